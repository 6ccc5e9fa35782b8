/*
 * ux/config.h — build-time configuration of the ux core; its limits and status codes are in ux/facts.h.
 *
 * The core is portable C11 with no allocation, no I/O and no global mutable state: every call takes
 * its inputs, its outputs and (when it needs scratch memory) a caller-provided workspace.
 */
#ifndef UX_CONFIG_H
#define UX_CONFIG_H

#include <stddef.h>
#include <stdint.h>

/*
 * The real type. Double by default; define UX_REAL_FLOAT for cores whose FPU is single precision only
 * (Cortex-M4F), where double arithmetic would be emulated in software.
 */
#ifdef UX_REAL_FLOAT
typedef float ux_real;
#define UX_REAL_BYTES 4
#else
typedef double ux_real;
#define UX_REAL_BYTES 8
#endif

/* Limits (UX_MAX_ETA, UX_MAX_ARGS, UX_MAX_DIM, …), status codes and law kinds: one generated header. */
#include "facts.h"

/* log2 of a power of two η in 1..UX_MAX_ETA, or -1 when η is not one. */
int ux_log2_eta(unsigned eta);

#endif /* UX_CONFIG_H */
