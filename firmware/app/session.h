/*
 * session.h — the filter behind the link: configure, step, reset. Owns the only filter and its
 * workspace (static memory). Every function either succeeds or leaves the filter exactly as it was, so
 * that an ERROR answer really changes nothing.
 */
#ifndef APP_SESSION_H
#define APP_SESSION_H

#include <stdbool.h>
#include <stdint.h>

#include "ux/config.h"

#ifndef APP_MAX_ETA
#define APP_MAX_ETA UX_MAX_ETA /* a board with little RAM lowers it in its board.mk */
#endif

#define SESSION_MAX_PARAMS 8u

/* A CONFIGURE request as it came off the wire. */
typedef struct {
    uint8_t system, eta, mode, likelihood, n_params;
    double params[SESSION_MAX_PARAMS];
    uint8_t prior_kind;
    double prior_a, prior_b;
} session_config;

/* A STEP request whose wire-level fields (flags, m, n_evidence, finiteness) are already checked. */
typedef struct {
    uint32_t k;
    bool predict;
    double u;
    uint16_t m;
    uint8_t n_evidence;
    const double *z;
    const double *omega;
} session_step_in;

typedef struct {
    uint8_t status; /* STATUS_OK, STATUS_FALLBACK or STATUS_NO_EVIDENCE (proto.h) */
    double mean, var, log_evidence;
    uint64_t cycles_predict, cycles_update;
    uint8_t count;
    double x[UX_MAX_ETA], w[UX_MAX_ETA];
} session_posterior;

/* Outcome of a request: 0, or an ERROR code of proto.h with its detail. */
typedef struct {
    uint8_t code;
    uint16_t detail;
} session_error;

void session_init(void);

unsigned session_max_eta(void);

bool session_configured(void);

/* How many systems are built in (INFO.n_systems); DESCRIBE tells each. */
uint8_t session_system_count(void);

/*
 * Checks every field in wire order (the first bad one is the detail of ERR_CONFIG) and builds the new
 * filter beside the current one, which survives any error. `params` holds min(n_params, 8) values.
 */
session_error session_configure(const session_config *cfg, uint8_t *count, uint32_t *workspace_bytes);

/* One step; cycles are measured around predict and update separately. */
session_error session_step(const session_step_in *in, session_posterior *out);

/* Back to the power-on state: not configured. */
void session_reset(void);

#endif /* APP_SESSION_H */
