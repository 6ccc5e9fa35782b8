/*
 * Lookup in the system table and the parameter check its domains define. The table itself,
 * `ux_models`, is generated from systems.toml into systems_table.c.
 */
#include <math.h>
#include <string.h>

#include "ux/model.h"

extern const ux_model ux_models[];
extern const unsigned ux_models_count;

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
    memset(ctx, 0, sizeof *ctx);
    ctx->params = params;
    ctx->k = k;
    ctx->u = u;
    if (model->code->prepare != NULL)
        model->code->prepare(ctx);
}

ux_status ux_model_params(const ux_model *model, const double *params, ux_real *out)
{
    unsigned i;
    for (i = 0; i < model->n_params; ++i)
        out[i] = params != NULL ? (ux_real)params[i] : model->defaults[i];
    return ux_model_check_params(model, out) >= 0 ? UX_ERR_DOMAIN : UX_OK;
}

int ux_model_check_params(const ux_model *model, const ux_real *params)
{
    unsigned i;
    for (i = 0; i < model->n_params; ++i) {
        ux_real p = params[i];
        if (!isfinite(p))
            return (int)i;
        if (model->domains[i] == UX_PARAM_POSITIVE && !(p > 0))
            return (int)i;
        if (model->domains[i] == UX_PARAM_NONNEGATIVE && !(p >= 0))
            return (int)i;
    }
    return -1;
}
