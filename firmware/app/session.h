/*
 * session.h — the filter behind the link: configure, step, reset. Owns the only filter and its
 * workspace (static memory). The link knows one kind of system, of state dimension `dim`; behind it the
 * core's scalar filter runs the scalar systems and its joint filter the vector-state ones, never both at
 * once, so the two share the filter's storage and its workspace. Every function either succeeds or
 * leaves the filter exactly as it was, so that an ERROR answer really changes nothing.
 */
#ifndef APP_SESSION_H
#define APP_SESSION_H

#include <stdbool.h>
#include <stdint.h>

#include "ux/config.h"
#include "ux/joint.h"
#include "ux/joint_model.h"
#include "ux/systems_limits.h"

#ifndef APP_MAX_ETA
#define APP_MAX_ETA UX_MAX_ETA /* a board with little RAM lowers it in its board.mk */
#endif

/* Joint systems served (1) or left out (0: DESCRIBE does not list them, CONFIGURE refuses them); a
 * board whose RAM cannot hold them sets -DAPP_JOINT=0 in its board.mk. */
#ifndef APP_JOINT
#define APP_JOINT 1
#endif

/* The largest state dimension the shared workspace is sized for: by default the built-in joint systems'
 * (generated from the system table); a board short of RAM may set less, and a joint system of a larger dim
 * is then not served. Each unit costs η² reals of workspace at the board's η. */
#ifndef APP_JOINT_MAX_DIM
#define APP_JOINT_MAX_DIM UX_JOINT_SYSTEMS_MAX_DIM
#endif

#define SESSION_MAX_PARAMS 8u

/* A CONFIGURE request as it came off the wire; priors hold min(dim, UX_MAX_DIM) laws. */
typedef struct {
    uint8_t system, eta, mode, likelihood, n_params;
    double params[SESSION_MAX_PARAMS];
    uint8_t dim;
    uint8_t prior_kind[UX_MAX_DIM];
    double prior_a[UX_MAX_DIM], prior_b[UX_MAX_DIM];
} session_config;

/* A STEP request whose wire-level fields (flags, m, n_evidence, dim_obs, finiteness) are already checked. */
typedef struct {
    uint32_t k;
    bool predict;
    double u;
    uint16_t m;
    uint8_t n_evidence;
    const double *z; /* n_evidence rows of the system's dim_obs components */
    const double *omega;
} session_step_in;

/* A step's answer: the statistics, and the posterior's atoms read in place (no copy: RAM) until the
 * next request. */
typedef struct {
    uint8_t status; /* a STATUS_* value of proto.h */
    double log_evidence;
    uint64_t cycles_predict, cycles_update;
    uint8_t dim;
    double mean[UX_MAX_DIM], cov[UX_MAX_DIM * UX_MAX_DIM];
    uint32_t count;
    const ux_real *x; /* atom i's components at i·dim */
    const ux_real *w;
} session_posterior;

/* A system served, as DESCRIBE tells it: the scalar core's systems are dim 1, dim_obs 1. */
typedef struct {
    uint8_t id, dim, dim_obs, n_params;
    const char *name, *title;
    const char *const *param_names;
    const ux_real *defaults;
    const uint8_t *domains;
    const ux_law *prior; /* dim independent component laws */
} session_system;

/* Outcome of a request: 0, or an ERROR code of proto.h with its detail. */
typedef struct {
    uint8_t code;
    uint16_t detail;
} session_error;

void session_init(void);

unsigned session_max_eta(void);

/* How many systems are served (INFO.n_systems): the scalar core's, then the joint core's. */
uint8_t session_system_count(void);

/* The index-th system served (DESCRIBE's index); false when there is none. */
bool session_system_at(unsigned index, session_system *out);

/*
 * Checks every field in wire order (the first bad one is the detail of ERR_CONFIG) and builds the new
 * filter beside the current one, which survives any error. `params` holds min(n_params, 8) values.
 */
session_error session_configure(const session_config *cfg, uint8_t *count, uint32_t *workspace_bytes);

/* The configured system's observation components; 0 when nothing is configured. */
unsigned session_dim_obs(void);

/* One step; cycles are measured around predict and update separately. */
session_error session_step(const session_step_in *in, session_posterior *out);

/* Back to the power-on state: not configured. */
void session_reset(void);

#endif /* APP_SESSION_H */
