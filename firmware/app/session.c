/*
 * session.c — the filter behind the link, on the ux core.
 */
#include "session.h"

#include <math.h>
#include <string.h>

#include "board.h"
#include "proto.h"
#include "ux/ux.h"

/* The wire's values are the core's: CONFIGURE's mode and likelihood reach the core unchanged. */
_Static_assert(MODE_REFINED == UX_MODE_REFINED && MODE_PAPER == UX_MODE_PAPER, "mode values");
_Static_assert(LIKELIHOOD_KERNEL == UX_LIK_KERNEL && LIKELIHOOD_SAMPLER == UX_LIK_SAMPLER, "likelihood values");

_Static_assert(APP_MAX_ETA >= 1 && APP_MAX_ETA <= UX_MAX_ETA, "APP_MAX_ETA must be in 1..UX_MAX_ETA");
_Static_assert(SESSION_MAX_PARAMS == UX_MODEL_MAX_PARAMS, "the wire carries what a model can take");

static uint64_t workspace[UX_WORDS(UX_WORKSPACE_BYTES(APP_MAX_ETA))];

/*
 * Two filters: the live one and a spare. CONFIGURE builds into the spare and swaps only on success;
 * STEP copies the live filter to the spare first and restores it on failure. The filter keeps nothing
 * in the workspace between messages (a STEP always ends with an update), so the copy is complete.
 */
static ux_filter filters[2];
static ux_filter *live;
static ux_filter *spare;
static bool configured;

static session_error ok(void)
{
    session_error e = {0u, 0u};
    return e;
}

static session_error fail(uint8_t code, unsigned detail)
{
    session_error e = {code, (uint16_t)detail};
    return e;
}

static session_error internal(ux_status st)
{
    /* The detail carries the core's (negative) status as a positive number: UX_ERR_DOMAIN → 2. */
    return fail(ERR_INTERNAL, (unsigned)(-st));
}

void session_init(void)
{
    live = &filters[0];
    spare = &filters[1];
    configured = false;
}

unsigned session_max_eta(void)
{
    return APP_MAX_ETA;
}

uint8_t session_system_count(void)
{
    unsigned n = ux_model_count();
    return (uint8_t)(n > 255u ? 255u : n); /* INFO.n_systems is a u8; the table holds ids 1…255 */
}

bool session_configured(void)
{
    return configured;
}

static bool valid_eta(unsigned eta)
{
    return ux_log2_eta(eta) >= 0 && eta <= APP_MAX_ETA;
}

session_error session_configure(const session_config *cfg, uint8_t *count, uint32_t *workspace_bytes)
{
    const ux_model *model = ux_model_find(cfg->system);
    if (model == NULL) {
        return fail(ERR_CONFIG, CONFIGURE_FIELD_SYSTEM);
    }
    if (!valid_eta(cfg->eta)) {
        return fail(ERR_CONFIG, CONFIGURE_FIELD_ETA);
    }
    if (cfg->mode != UX_MODE_REFINED && cfg->mode != UX_MODE_PAPER) {
        return fail(ERR_CONFIG, CONFIGURE_FIELD_MODE);
    }
    if ((cfg->likelihood == UX_LIK_KERNEL && model->code->kernel == NULL) ||
        (cfg->likelihood == UX_LIK_SAMPLER && model->code->sampler == NULL) ||
        (cfg->likelihood != UX_LIK_KERNEL && cfg->likelihood != UX_LIK_SAMPLER)) {
        return fail(ERR_CONFIG, CONFIGURE_FIELD_LIKELIHOOD);
    }
    if (cfg->n_params != model->n_params) {
        return fail(ERR_CONFIG, CONFIGURE_FIELD_N_PARAMS);
    }
    int bad = ux_filter_check_params(model, cfg->params);
    if (bad >= 0) {
        return fail(ERR_CONFIG, CONFIGURE_FIELD_PARAMS((unsigned)bad));
    }
    const unsigned n = cfg->n_params;
    if (cfg->prior_kind != PRIOR_GAUSSIAN && cfg->prior_kind != PRIOR_LAPLACE) {
        return fail(ERR_CONFIG, CONFIGURE_FIELD_PRIOR_KIND(n));
    }
    if (!isfinite(cfg->prior_a)) {
        return fail(ERR_CONFIG, CONFIGURE_FIELD_PRIOR_A(n));
    }
    if (!isfinite(cfg->prior_b) || !(cfg->prior_b > 0.0)) {
        return fail(ERR_CONFIG, CONFIGURE_FIELD_PRIOR_B(n));
    }

    ux_law prior = {cfg->prior_kind == PRIOR_GAUSSIAN ? UX_LAW_GAUSSIAN : UX_LAW_LAPLACE,
                    (ux_real)cfg->prior_a, (ux_real)cfg->prior_b, (ux_real)0};
    /* The float build may round a valid double scale to 0 or infinity; the core knows its domain. */
    if (ux_law_check(&prior) != UX_OK) {
        return fail(ERR_CONFIG, CONFIGURE_FIELD_PRIOR_B(n));
    }
    ux_filter_config fc = {model, cfg->params, cfg->eta, (ux_mode)cfg->mode,
                           (ux_likelihood)cfg->likelihood, &prior};
    ux_workspace ws = {workspace, sizeof workspace};
    ux_status st = ux_filter_init(spare, &fc, ws);
    if (st < 0) {
        return internal(st);
    }
    ux_filter *previous = live;
    live = spare;
    spare = previous;
    configured = true;
    *count = (uint8_t)ux_filter_posterior(live)->count;
    *workspace_bytes = (uint32_t)ux_filter_workspace_in_use(live);
    return ok();
}

session_error session_step(const session_step_in *in, session_posterior *out)
{
    if (!configured) {
        return fail(ERR_NOT_CONFIGURED, 0u);
    }
    memcpy(spare, live, sizeof *spare);

    uint64_t cycles_predict = 0u;
    if (in->predict) {
        board_cycles_restart();
        ux_status st = ux_filter_predict(live, in->k, in->u);
        cycles_predict = board_cycles_read();
        if (st < 0) {
            memcpy(live, spare, sizeof *live);
            return internal(st);
        }
    }
    board_cycles_restart();
    ux_status st = ux_filter_update(live, in->z, in->omega, in->n_evidence, in->m);
    uint64_t cycles_update = board_cycles_read();
    if (st < 0) {
        memcpy(live, spare, sizeof *live);
        return internal(st);
    }

    const ux_value *post = ux_filter_posterior(live);
    out->status = st == UX_FALLBACK ? STATUS_FALLBACK : st == UX_NO_EVIDENCE ? STATUS_NO_EVIDENCE : STATUS_OK;
    out->mean = ux_filter_mean(live);
    out->var = ux_filter_var(live);
    out->log_evidence = ux_filter_log_evidence(live);
    out->cycles_predict = cycles_predict;
    out->cycles_update = cycles_update;
    out->count = (uint8_t)post->count;
    for (uint32_t i = 0; i < post->count; i++) {
        out->x[i] = (double)post->x[i];
        out->w[i] = (double)post->w[i];
    }
    return ok();
}

void session_reset(void)
{
    configured = false;
}
