/*
 * ux/model.h — a state-space system as plain C functions, and the registry of systems.
 *
 *   x_k = transition({x_{k−1}, w}, ctx)           w ~ process noise
 *   z_k ~ kernel form:  outer family at loc/scale given {x_k, inner noise atom}
 *       ~ sampler form: sampler({x_k, noise_1, …}, ctx)
 *
 * ctx is a `ux_model_ctx` (parameters, step index, control input). Adding a system: write one C file
 * in firmware/src/models/ that defines a `const ux_model`, and add one line to the table in
 * firmware/src/models/registry.c (see firmware/README.md).
 */
#ifndef UX_MODEL_H
#define UX_MODEL_H

#include "bayes.h"
#include "config.h"
#include "law.h"
#include "lift.h"

#define UX_MODEL_MAX_PARAMS 8
#define UX_MODEL_MAX_NOISES 2 /* sampler-form observation noises after x */

/* What every model function receives as ctx. */
typedef struct {
    const ux_real *params; /* the model's parameters, in its table order */
    uint32_t k;            /* time index of the step */
    ux_real u;             /* control input of the step */
} ux_model_ctx;

/* The noise laws of a system for given parameters. */
typedef struct {
    ux_law process;                     /* process noise w */
    unsigned n_inner;                   /* kernel form: 0 or 1 inner noise */
    ux_law inner;
    unsigned n_noise;                   /* sampler form: 1..UX_MODEL_MAX_NOISES noises */
    ux_law noise[UX_MODEL_MAX_NOISES];
} ux_model_noises;

typedef struct {
    uint8_t id;           /* the id used by the link protocol and docs/semantics.md */
    const char *name;
    uint8_t n_params;
    const ux_real *defaults;              /* n_params values (the paper's) */
    /* Index of the first parameter out of its domain or not finite, or −1 when all are valid. */
    int (*check)(const ux_real *params);
    ux_fn transition;                     /* args {x, w} */
    void (*noises)(const ux_real *params, ux_model_noises *out);
    ux_law_kind family;                   /* kernel form outer family */
    ux_kernel_fn kernel;                  /* NULL when the system has no kernel form */
    ux_fn sampler;                        /* args {x, noise_1, …} */
    ux_law prior;                         /* default prior law */
} ux_model;

/* The system with this id, or NULL. */
const ux_model *ux_model_find(unsigned id);
/* Number of registered systems and the i-th one (0-based; NULL past the end). */
unsigned ux_model_count(void);
const ux_model *ux_model_at(unsigned i);

#endif /* UX_MODEL_H */
