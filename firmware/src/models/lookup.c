/*
 * Lookup in the system table (scalar and joint systems) and the parameter check its domains define. The
 * tables, `ux_models` and `ux_joint_models`, are generated from systems.toml into systems_table.c.
 */
#include <math.h>
#include <string.h>

#include "ux/joint_model.h"
#include "ux/model.h"

extern const ux_model ux_models[];
extern const unsigned ux_models_count;
extern const ux_joint_model ux_joint_models[];
extern const unsigned ux_joint_models_count;

/* Index of the first of n parameters that is not finite or out of its domain, −1 when all are valid. */
static int check_params(unsigned n, const uint8_t *domains, const ux_real *params)
{
    unsigned i;
    for (i = 0; i < n; ++i) {
        ux_real p = params[i];
        if (!isfinite(p))
            return (int)i;
        if (domains[i] == UX_PARAM_POSITIVE && !(p > 0))
            return (int)i;
        if (domains[i] == UX_PARAM_NONNEGATIVE && !(p >= 0))
            return (int)i;
    }
    return -1;
}

/* The same check of parameters given as doubles (as the link and the C API carry them): each converted to
 * the real type first, so a double that overflows the float build is caught. */
static int check_doubles(unsigned n, const uint8_t *domains, const double *params)
{
    ux_real p[UX_MODEL_MAX_PARAMS];
    unsigned i;
    for (i = 0; i < n; ++i) {
        p[i] = (ux_real)params[i];
        if (!isfinite(p[i]))
            return (int)i;
    }
    return check_params(n, domains, p);
}

/* params (NULL: defaults) in the real type → out, then checked. */
static ux_status read_params(unsigned n, const ux_real *defaults, const uint8_t *domains, const double *params,
                             ux_real *out)
{
    unsigned i;
    for (i = 0; i < n; ++i)
        out[i] = params != NULL ? (ux_real)params[i] : defaults[i];
    return check_params(n, domains, out) >= 0 ? UX_ERR_DOMAIN : UX_OK;
}

static void context(void (*prepare)(ux_model_ctx *), const ux_real *params, uint32_t k, ux_real u, ux_model_ctx *ctx)
{
    memset(ctx, 0, sizeof *ctx);
    ctx->params = params;
    ctx->k = k;
    ctx->u = u;
    if (prepare != NULL)
        prepare(ctx);
}

unsigned ux_model_count(void) { return ux_models_count; }

const ux_model *ux_model_at(unsigned i) { return i < ux_models_count ? &ux_models[i] : NULL; }

const ux_model *ux_model_find(unsigned id)
{
    unsigned i;
    for (i = 0; i < ux_models_count; ++i)
        if (ux_models[i].id == id)
            return &ux_models[i];
    return NULL;
}

const ux_model *ux_model_named(const char *name)
{
    unsigned i;
    for (i = 0; i < ux_models_count; ++i)
        if (strcmp(ux_models[i].name, name) == 0)
            return &ux_models[i];
    return NULL;
}

void ux_model_context(const ux_model *model, const ux_real *params, uint32_t k, ux_real u, ux_model_ctx *ctx)
{
    context(model->code->prepare, params, k, u, ctx);
}

ux_status ux_model_params(const ux_model *model, const double *params, ux_real *out)
{
    return read_params(model->n_params, model->defaults, model->domains, params, out);
}

int ux_model_check_params(const ux_model *model, const ux_real *params)
{
    return check_params(model->n_params, model->domains, params);
}

unsigned ux_joint_model_count(void) { return ux_joint_models_count; }

const ux_joint_model *ux_joint_model_at(unsigned i) { return i < ux_joint_models_count ? &ux_joint_models[i] : NULL; }

const ux_joint_model *ux_joint_model_find(unsigned id)
{
    unsigned i;
    for (i = 0; i < ux_joint_models_count; ++i)
        if (ux_joint_models[i].id == id)
            return &ux_joint_models[i];
    return NULL;
}

const ux_joint_model *ux_joint_model_named(const char *name)
{
    unsigned i;
    for (i = 0; i < ux_joint_models_count; ++i)
        if (strcmp(ux_joint_models[i].name, name) == 0)
            return &ux_joint_models[i];
    return NULL;
}

int ux_joint_model_check_params(const ux_joint_model *model, const double *params)
{
    if (model == NULL || params == NULL || model->n_params > UX_MODEL_MAX_PARAMS)
        return 0;
    return check_doubles(model->n_params, model->domains, params);
}

ux_status ux_joint_model_params(const ux_joint_model *model, const double *params, ux_real *out)
{
    return read_params(model->n_params, model->defaults, model->domains, params, out);
}

void ux_joint_model_context(const ux_joint_model *model, const ux_real *params, uint32_t k, ux_real u,
                            ux_model_ctx *ctx)
{
    context(model->code->prepare, params, k, u, ctx);
}
