/*
 * ux/joint_model.h — a state-space system with a vector state, as plain C functions, and the registry of
 * joint systems (the [joint.NAME] entries of firmware/src/models/systems.toml).
 *
 *   x_k = transition(x_{k−1}, w; ctx)             x ∈ R^dim, w: dim_noise independent scalar noises
 *   z_k ~ kernel form: per observation component c, the outer family at loc_c(x_k), scale_c(x_k), the
 *         components independent given x_k
 *
 * ctx is a `ux_model_ctx` (ux/model.h), built once per step with ux_joint_model_context (parameters,
 * step index, control input, the model's per-step constants). Adding one: write
 * src/models/<name>.c defining `const ux_joint_model_code ux_jcode_<name>` and add [joint.<name>] to the
 * table.
 */
#ifndef UX_JOINT_MODEL_H
#define UX_JOINT_MODEL_H

#include "config.h"
#include "joint.h"
#include "law.h"
#include "model.h"

#define UX_JOINT_MAX_NOISES UX_MAX_DIM /* process-noise components */
#define UX_JOINT_MAX_OBS UX_MAX_DIM /* observation components */

/* Kernel observation model: loc[c] and scale[c] (> 0) of observation component c < dim_obs given x. */
typedef void (*ux_joint_kernel_fn)(const ux_real *x, const void *ctx, ux_real *loc, ux_real *scale);

/* A joint system's mathematics: what its C file defines, as `const ux_joint_model_code ux_jcode_<name>`. */
typedef struct {
    unsigned dim_noise; /* process-noise components, 1..dim (the state's) */
    unsigned dim_obs; /* observation components, 1..UX_JOINT_MAX_OBS */
    ux_joint_fn transition; /* out[dim] = f(x[dim], w[dim_noise]; ctx) */
    /* The process-noise component laws (independent) for given parameters: process[0 .. dim_noise). */
    void (*noises)(const ux_real *params, ux_law *process);
    ux_law_kind family; /* the kernel's outer family (Gaussian, Laplace or uniform) */
    ux_joint_kernel_fn kernel;
    void (*prepare)(ux_model_ctx *ctx); /* optional per-step constants (NULL: none) */
    /* 1 when the noise enters additively and linearly, f(x, w) = f(x, 0) + A·w with the same matrix A at
     * every x (tests check it on random points): the Gaussian baselines and the grid filter read the
     * process covariance from it. */
    int additive_noise;
} ux_joint_model_code;

/* A joint system: its identity from the table (generated into systems_table.c) and its code. */
typedef struct {
    uint8_t id;
    const char *name;
    const char *title;
    uint8_t n_params;
    const char *const *param_names;
    const ux_real *defaults;
    const uint8_t *domains; /* n_params ux_param_domain values */
    uint8_t dim; /* state components, 2..UX_MAX_DIM */
    ux_law prior[UX_MAX_DIM]; /* default prior: independent component laws */
    const ux_joint_model_code *code;
} ux_joint_model;

const ux_joint_model *ux_joint_model_find(unsigned id);
const ux_joint_model *ux_joint_model_named(const char *name);
unsigned ux_joint_model_count(void);
const ux_joint_model *ux_joint_model_at(unsigned i);
/* Index of the first of the parameters (doubles, as the link carries them) that is not finite in the
 * build's real type or out of its domain; −1 when all are valid (ux_filter_check_params' rule). */
int ux_joint_model_check_params(const ux_joint_model *model, const double *params);
/* As ux_model_params (ux/model.h): doubles (NULL: defaults) → out, UX_ERR_DOMAIN when one is invalid. */
ux_status ux_joint_model_params(const ux_joint_model *model, const double *params, ux_real *out);
/* The ctx of step k with control input u (params, k, u, then the model's prepare). */
void ux_joint_model_context(const ux_joint_model *model, const ux_real *params, uint32_t k, ux_real u,
                            ux_model_ctx *ctx);

#endif /* UX_JOINT_MODEL_H */
