/*
 * session.h — the filter behind the link: configure, step, reset. Owns the only filter and its
 * workspace (static memory): a scalar filter or a joint (vector-state) one, never both at once, so the
 * two kinds share the filter's storage and its workspace. Every function either succeeds or leaves the
 * filter exactly as it was, so that an ERROR answer really changes nothing.
 */
#ifndef APP_SESSION_H
#define APP_SESSION_H

#include <stdbool.h>
#include <stdint.h>

#include "ux/config.h"
#include "ux/joint.h"
#include "ux/joint_model.h"

#ifndef APP_MAX_ETA
#define APP_MAX_ETA UX_MAX_ETA /* a board with little RAM lowers it in its board.mk */
#endif

/* Joint systems served (1) or left out (0: DESCRIBE does not list them, CONFIGURE_JOINT is refused); a
 * board whose RAM cannot hold them sets -DAPP_JOINT=0 in its board.mk. */
#ifndef APP_JOINT
#define APP_JOINT 1
#endif

/* The largest state dimension the shared workspace is sized for: the built-in joint systems' (a joint
 * system of a larger dim is not served). Each unit costs η² reals of workspace at the board's η. */
#ifndef APP_JOINT_MAX_DIM
#define APP_JOINT_MAX_DIM 2
#endif

#define SESSION_MAX_PARAMS 8u

/* A CONFIGURE request as it came off the wire. */
typedef struct {
    uint8_t system, eta, mode, likelihood, n_params;
    double params[SESSION_MAX_PARAMS];
    uint8_t prior_kind;
    double prior_a, prior_b;
} session_config;

/* A CONFIGURE_JOINT request as it came off the wire; priors hold min(dim, UX_MAX_DIM) laws. */
typedef struct {
    uint8_t system, eta, mode, n_params;
    double params[SESSION_MAX_PARAMS];
    uint8_t dim;
    uint8_t prior_kind[UX_MAX_DIM];
    double prior_a[UX_MAX_DIM], prior_b[UX_MAX_DIM];
} session_joint_config;

/* A STEP or STEP_JOINT request whose wire-level fields (flags, m, n_evidence, finiteness) are already checked. */
typedef struct {
    uint32_t k;
    bool predict;
    double u;
    uint16_t m;
    uint8_t n_evidence;
    const double *z;     /* STEP_JOINT: n_evidence rows of the system's dim_obs components */
    const double *omega;
} session_step_in;

typedef struct {
    uint8_t status; /* a STATUS_* value of proto.h (OK, FALLBACK, NO_EVIDENCE, REFOCUSED, OUTLIER) */
    double mean, var, log_evidence;
    uint64_t cycles_predict, cycles_update;
    uint8_t count;
    double x[APP_MAX_ETA], w[APP_MAX_ETA]; /* the board's η: RAM */
} session_posterior;

/* A joint step's answer: the statistics, and the posterior's atoms read in place (no copy: RAM). */
typedef struct {
    uint8_t status;
    double log_evidence;
    uint64_t cycles_predict, cycles_update;
    uint8_t dim;
    double mean[UX_MAX_DIM], cov[UX_MAX_DIM * UX_MAX_DIM];
    const ux_joint *atoms;
} session_joint_posterior;

/* What the session is configured for: which of STEP and STEP_JOINT it takes. */
typedef enum { SESSION_NONE = 0, SESSION_SCALAR = 1, SESSION_JOINT = 2 } session_kind;

/* Outcome of a request: 0, or an ERROR code of proto.h with its detail. */
typedef struct {
    uint8_t code;
    uint16_t detail;
} session_error;

void session_init(void);

unsigned session_max_eta(void);

session_kind session_configured(void);

/* How many systems are served (INFO.n_systems): the scalar ones, then the joint ones; DESCRIBE tells each. */
uint8_t session_system_count(void);

/* How many of them are scalar systems (DESCRIBE index < this: SYSTEM, else SYSTEM_JOINT). */
uint8_t session_scalar_count(void);

/* The i-th joint system served (i < session_system_count() − session_scalar_count()), else NULL. */
const ux_joint_model *session_joint_at(unsigned i);

/*
 * Checks every field in wire order (the first bad one is the detail of ERR_CONFIG) and builds the new
 * filter beside the current one, which survives any error. `params` holds min(n_params, 8) values.
 */
session_error session_configure(const session_config *cfg, uint8_t *count, uint32_t *workspace_bytes);

/* As session_configure, for a joint system: a ux_joint_filter replaces whatever was configured. */
session_error session_configure_joint(const session_joint_config *cfg, uint8_t *count, uint32_t *workspace_bytes);

/* The configured joint system's observation components (0 when no joint system is configured). */
unsigned session_joint_dim_obs(void);

/* One step; cycles are measured around predict and update separately. */
session_error session_step(const session_step_in *in, session_posterior *out);

/* One step of the joint filter; out->atoms points at the posterior until the next request. */
session_error session_step_joint(const session_step_in *in, session_joint_posterior *out);

/* Back to the power-on state: not configured. */
void session_reset(void);

#endif /* APP_SESSION_H */
