/*
 * ux/model.h — a state-space system as plain C functions, and the registry of systems.
 *
 *   x_k = transition({x_{k−1}, w}, ctx)           w ~ process noise
 *   z_k ~ kernel form:  outer family at loc/scale given {x_k, inner noise atom}
 *       ~ sampler form: sampler({x_k, noise_1, …}, ctx)
 *
 * ctx is a `ux_model_ctx` (parameters, step index, control input, and the constants the model's
 * optional `prepare` computed once for the step — GSS's 8·cos(1.2k) — instead of once per point;
 * callers build it with ux_model_context). Adding a system: write one C file
 * in firmware/src/models/ that defines a `const ux_model_code`, and add its entry to the system table
 * firmware/src/models/systems.toml (see firmware/README.md).
 */
#ifndef UX_MODEL_H
#define UX_MODEL_H

#include "bayes.h"
#include "config.h"
#include "law.h"
#include "lift.h"

#define UX_MODEL_MAX_PARAMS 8
#define UX_MODEL_MAX_NOISES 2 /* sampler-form observation noises after x */
#define UX_MODEL_STEP_CONSTANTS 4

/* What every model function receives as ctx. */
typedef struct {
    const ux_real *params; /* the model's parameters, in its table order */
    uint32_t k; /* time index of the step */
    ux_real u; /* control input of the step */
    ux_real step[UX_MODEL_STEP_CONSTANTS]; /* the model's per-step constants (its `prepare`), else 0 */
} ux_model_ctx;

/* The noise laws of a system for given parameters. */
typedef struct {
    ux_law process; /* process noise w */
    unsigned n_inner; /* kernel form: 0 or 1 inner noise */
    ux_law inner;
    unsigned n_noise; /* sampler form: 1..UX_MODEL_MAX_NOISES noises */
    ux_law noise[UX_MODEL_MAX_NOISES];
} ux_model_noises;

/* Where a parameter's value may lie, beyond being finite. */
typedef enum {
    UX_PARAM_REAL = 0, /* any finite value */
    UX_PARAM_POSITIVE = 1, /* > 0 */
    UX_PARAM_NONNEGATIVE = 2, /* ≥ 0 */
} ux_param_domain;

/* A system's mathematics: what its C file defines, as `const ux_model_code ux_code_<name>`. */
typedef struct {
    ux_fn transition; /* args {x, w} */
    void (*noises)(const ux_real *params, ux_model_noises *out);
    ux_law_kind family; /* kernel form outer family */
    ux_kernel_fn kernel; /* NULL when the system has no kernel form */
    ux_fn sampler; /* args {x, noise_1, …} */
    /* Optional: fill ctx->step from ctx->params, k and u, once per step, for constants the functions
     * above would otherwise compute at every point. NULL when the model has none. */
    void (*prepare)(ux_model_ctx *ctx);
    /* 1 when the process noise enters additively, transition({x, w}) = transition({x, 0}) + w bit for bit
     * for every finite x and w (w added last; tests check it on random points); 0 when it does not or is
     * not known. The predict then evaluates transition({x, 0}) once per atom of x (ux_lift_points_additive),
     * and with Gaussian process noise the filter reads its posterior density as the predictive mixture
     * (ux_filter_pdf). */
    int additive_noise;
    /* Optional: `kernel` for all inner-noise atoms of one x at once (ux_kernel_row_fn; tests check it against
     * `kernel` bit for bit), for models whose kernel does costly work on x alone (cubic's exp(−x)). */
    ux_kernel_row_fn kernel_row;
} ux_model_code;

/* A system: its identity from the system table (systems.toml, generated into systems_table.c) and its
 * code. */
typedef struct {
    uint8_t id; /* the id the link protocol knows it by */
    const char *name; /* short name, a C identifier ("gss") */
    const char *title; /* human name */
    uint8_t n_params;
    const char *const *param_names; /* n_params names, in the order ctx->params has them */
    const ux_real *defaults; /* n_params default values */
    const uint8_t *domains; /* n_params ux_param_domain values */
    ux_law prior; /* default prior law */
    const ux_model_code *code;
} ux_model;

/* The system with this id, or NULL. */
const ux_model *ux_model_find(unsigned id);
/* The system with this name (systems.toml), or NULL. */
const ux_model *ux_model_named(const char *name);
/* Number of registered systems and the i-th one (0-based; NULL past the end). */
unsigned ux_model_count(void);
const ux_model *ux_model_at(unsigned i);
/* Index of the first parameter that is not finite or out of its domain, or −1 when all are valid. */
int ux_model_check_params(const ux_model *model, const ux_real *params);
/* The parameter vector a caller gives as doubles (NULL: the model's defaults) in the real type, into out
 * (model->n_params values): UX_OK, or UX_ERR_DOMAIN when one is not finite (also after the conversion to
 * float) or out of its domain. */
ux_status ux_model_params(const ux_model *model, const double *params, ux_real *out);
/* The ctx of step k with control input u: params, k, u, then the model's prepare (if any). Every caller
 * of a model's functions builds its ctx here, so per-step constants are never missing. */
void ux_model_context(const ux_model *model, const ux_real *params, uint32_t k, ux_real u, ux_model_ctx *ctx);

#endif /* UX_MODEL_H */
