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
_Static_assert(MODE_REFINED == UX_MODE_REFINED && MODE_PAPER == UX_MODE_PAPER && MODE_MIXTURE == UX_MODE_MIXTURE,
               "mode values");
_Static_assert(LIKELIHOOD_KERNEL == UX_LIK_KERNEL && LIKELIHOOD_SAMPLER == UX_LIK_SAMPLER, "likelihood values");

_Static_assert(APP_MAX_ETA >= 1 && APP_MAX_ETA <= UX_MAX_ETA, "APP_MAX_ETA must be in 1..UX_MAX_ETA");
_Static_assert(SESSION_MAX_PARAMS == UX_MODEL_MAX_PARAMS, "the wire carries what a model can take");

#if APP_JOINT
/* The joint filter's workspace at the board's η for the largest dim served; the scalar filter's at the
 * same η is larger for dim 2, so serving joint systems costs no workspace there. */
#define JOINT_WORKSPACE_BYTES UX_JOINT_FILTER_WORKSPACE_BYTES(APP_MAX_ETA, APP_JOINT_MAX_DIM)
_Static_assert(APP_JOINT_MAX_DIM >= 1 && APP_JOINT_MAX_DIM <= UX_MAX_DIM, "APP_JOINT_MAX_DIM must be in 1..UX_MAX_DIM");
#else
#define JOINT_WORKSPACE_BYTES 0u
#endif

/* One workspace for whichever filter is configured. */
static uint64_t workspace[UX_WORDS(UX_WS_MAX(UX_WORKSPACE_BYTES(APP_MAX_ETA), JOINT_WORKSPACE_BYTES))];

/*
 * Two filter slots: the live one and a spare, each holding a scalar or a joint filter. CONFIGURE builds
 * into the spare and swaps only on success (the slots do not overlap, so the live filter of either kind
 * survives a failed CONFIGURE of either kind); STEP copies the live slot to the spare first and restores
 * it on failure. A filter keeps nothing in the workspace between messages (a STEP always ends with an
 * update), so the copy is complete.
 */
typedef union {
    ux_filter scalar;
#if APP_JOINT
    ux_joint_filter joint;
#endif
} filter_slot;

static filter_slot slots[2];
static filter_slot *live;
static filter_slot *spare;
static session_kind configured;

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
    live = &slots[0];
    spare = &slots[1];
    configured = SESSION_NONE;
}

/* The wire's step status for a successful update's status (proto.h, docs/protocol.toml). */
static uint8_t wire_status(ux_status st)
{
    switch (st) {
    case UX_FALLBACK:
        return STATUS_FALLBACK;
    case UX_NO_EVIDENCE:
        return STATUS_NO_EVIDENCE;
    case UX_REFOCUSED:
        return STATUS_REFOCUSED;
    case UX_OUTLIER:
        return STATUS_OUTLIER;
    case UX_DEPARTED:
        return STATUS_DEPARTED;
    default:
        return STATUS_OK;
    }
}

/* The spare becomes the live filter, of the given kind. */
static void swap_in(session_kind kind)
{
    filter_slot *previous = live;
    live = spare;
    spare = previous;
    configured = kind;
}

unsigned session_max_eta(void)
{
    return APP_MAX_ETA;
}

/* A joint system this build serves: its workspace was sized for it. */
static bool joint_served(const ux_joint_model *m)
{
    return APP_JOINT && m != NULL && m->dim <= APP_JOINT_MAX_DIM;
}

uint8_t session_scalar_count(void)
{
    unsigned n = ux_model_count();
    return (uint8_t)(n > 255u ? 255u : n); /* INFO.n_systems is a u8; the table holds ids 1…255 */
}

const ux_joint_model *session_joint_at(unsigned i)
{
    for (unsigned j = 0, seen = 0; j < ux_joint_model_count(); j++) {
        const ux_joint_model *m = ux_joint_model_at(j);
        if (joint_served(m) && seen++ == i) {
            return m;
        }
    }
    return NULL;
}

uint8_t session_system_count(void)
{
    unsigned n = session_scalar_count();
    while (n < 255u && session_joint_at(n - session_scalar_count()) != NULL) {
        n++;
    }
    return (uint8_t)n;
}

session_kind session_configured(void)
{
    return configured;
}

static bool valid_eta(unsigned eta)
{
    return ux_log2_eta(eta) >= 0 && eta <= APP_MAX_ETA;
}

/* A law of CONFIGURE(_JOINT)'s prior fields; *bad: 0 the kind, 1 a, 2 b is wrong, −1 none. */
static ux_law wire_law(uint8_t kind, double a, double b, int *bad)
{
    ux_law law = {kind == PRIOR_GAUSSIAN ? UX_LAW_GAUSSIAN : UX_LAW_LAPLACE, (ux_real)a, (ux_real)b, (ux_real)0};
    *bad = -1;
    if (kind != PRIOR_GAUSSIAN && kind != PRIOR_LAPLACE) {
        *bad = 0;
    } else if (!isfinite(a)) {
        *bad = 1;
    } else if (!isfinite(b) || !(b > 0.0) || ux_law_check(&law) != UX_OK) {
        /* The float build may round a valid double scale to 0 or infinity; the core knows its domain. */
        *bad = 2;
    }
    return law;
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
    if (cfg->mode != UX_MODE_REFINED && cfg->mode != UX_MODE_PAPER && cfg->mode != UX_MODE_MIXTURE) {
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
    ux_law prior = wire_law(cfg->prior_kind, cfg->prior_a, cfg->prior_b, &bad);
    if (bad >= 0) {
        return fail(ERR_CONFIG, CONFIGURE_FIELD_PRIOR_KIND(n) + (unsigned)bad);
    }
    ux_filter_config fc = {model, cfg->params, cfg->eta, (ux_mode)cfg->mode,
                           (ux_likelihood)cfg->likelihood, &prior};
    ux_workspace ws = {workspace, sizeof workspace};
    ux_status st = ux_filter_init(&spare->scalar, &fc, ws);
    if (st < 0) {
        return internal(st);
    }
    swap_in(SESSION_SCALAR);
    *count = (uint8_t)ux_filter_posterior(&live->scalar)->count;
    *workspace_bytes = (uint32_t)ux_filter_workspace_in_use(&live->scalar);
    return ok();
}

#if APP_JOINT
session_error session_configure_joint(const session_joint_config *cfg, uint8_t *count, uint32_t *workspace_bytes)
{
    const ux_joint_model *model = ux_joint_model_find(cfg->system);
    if (!joint_served(model)) {
        return fail(ERR_CONFIG, CONFIGURE_JOINT_FIELD_SYSTEM);
    }
    /* The answer must fit one frame, and the workspace was sized for the board's η at this dim. */
    if (!valid_eta(cfg->eta) || POSTERIOR_JOINT_BYTES((size_t)model->dim, (size_t)cfg->eta) > PROTO_MAX_PAYLOAD ||
        ux_joint_filter_workspace_bytes(model, cfg->eta) > sizeof workspace) {
        return fail(ERR_CONFIG, CONFIGURE_JOINT_FIELD_ETA);
    }
    if (cfg->mode != UX_MODE_REFINED && cfg->mode != UX_MODE_PAPER) { /* no joint mixture mode */
        return fail(ERR_CONFIG, CONFIGURE_JOINT_FIELD_MODE);
    }
    if (cfg->n_params != model->n_params) {
        return fail(ERR_CONFIG, CONFIGURE_JOINT_FIELD_N_PARAMS);
    }
    int bad = ux_joint_model_check_params(model, cfg->params);
    if (bad >= 0) {
        return fail(ERR_CONFIG, CONFIGURE_JOINT_FIELD_PARAMS((unsigned)bad));
    }
    const unsigned n = cfg->n_params;
    if (cfg->dim != model->dim) {
        return fail(ERR_CONFIG, CONFIGURE_JOINT_FIELD_DIM(n));
    }
    ux_law priors[UX_MAX_DIM];
    for (unsigned c = 0; c < model->dim; c++) {
        priors[c] = wire_law(cfg->prior_kind[c], cfg->prior_a[c], cfg->prior_b[c], &bad);
        if (bad >= 0) {
            return fail(ERR_CONFIG, CONFIGURE_JOINT_FIELD_PRIORS_KIND(n, c) + (unsigned)bad);
        }
    }
    ux_joint_filter_config fc = {model, cfg->params, cfg->eta, (ux_mode)cfg->mode, priors};
    ux_workspace ws = {workspace, sizeof workspace};
    ux_status st = ux_joint_filter_init(&spare->joint, &fc, ws);
    if (st < 0) {
        return internal(st);
    }
    swap_in(SESSION_JOINT);
    *count = (uint8_t)ux_joint_filter_posterior(&live->joint)->count;
    *workspace_bytes = (uint32_t)ux_joint_filter_workspace_bytes(model, cfg->eta);
    return ok();
}

unsigned session_joint_dim_obs(void)
{
    return configured == SESSION_JOINT ? live->joint.model->code->dim_obs : 0u;
}
#else
session_error session_configure_joint(const session_joint_config *cfg, uint8_t *count, uint32_t *workspace_bytes)
{
    (void)cfg;
    (void)count;
    (void)workspace_bytes;
    return fail(ERR_CONFIG, CONFIGURE_JOINT_FIELD_SYSTEM); /* no joint system is served */
}

unsigned session_joint_dim_obs(void)
{
    return 0u;
}
#endif

/* Kind check shared by both steps: nothing configured, or configured for the other kind. */
static session_error check_kind(session_kind want)
{
    if (configured == SESSION_NONE) {
        return fail(ERR_NOT_CONFIGURED, 0u);
    }
    return configured != want ? fail(ERR_NOT_CONFIGURED, 1u) : ok();
}

session_error session_step(const session_step_in *in, session_posterior *out)
{
    session_error e = check_kind(SESSION_SCALAR);
    if (e.code != 0u) {
        return e;
    }
    memcpy(spare, live, sizeof *spare);
    ux_filter *f = &live->scalar;

    uint64_t cycles_predict = 0u;
    if (in->predict) {
        board_cycles_restart();
        ux_status st = ux_filter_predict(f, in->k, in->u);
        cycles_predict = board_cycles_read();
        if (st < 0) {
            memcpy(live, spare, sizeof *live);
            return internal(st);
        }
    }
    board_cycles_restart();
    ux_status st = ux_filter_update(f, in->z, in->omega, in->n_evidence, in->m);
    uint64_t cycles_update = board_cycles_read();
    if (st < 0) {
        memcpy(live, spare, sizeof *live);
        return internal(st);
    }

    const ux_value *post = ux_filter_posterior(f);
    out->status = wire_status(st);
    out->mean = ux_filter_mean(f);
    out->var = ux_filter_var(f);
    out->log_evidence = ux_filter_log_evidence(f);
    out->cycles_predict = cycles_predict;
    out->cycles_update = cycles_update;
    out->count = (uint8_t)post->count;
    for (uint32_t i = 0; i < post->count; i++) {
        out->x[i] = (double)post->x[i];
        out->w[i] = (double)post->w[i];
    }
    return ok();
}

#if APP_JOINT
session_error session_step_joint(const session_step_in *in, session_joint_posterior *out)
{
    session_error e = check_kind(SESSION_JOINT);
    if (e.code != 0u) {
        return e;
    }
    memcpy(spare, live, sizeof *spare);
    ux_joint_filter *f = &live->joint;

    uint64_t cycles_predict = 0u;
    if (in->predict) {
        board_cycles_restart();
        ux_status st = ux_joint_filter_predict(f, in->k, in->u);
        cycles_predict = board_cycles_read();
        if (st < 0) {
            memcpy(live, spare, sizeof *live);
            return internal(st);
        }
    }
    board_cycles_restart();
    ux_status st = ux_joint_filter_update(f, in->z, in->omega, in->n_evidence, in->m);
    uint64_t cycles_update = board_cycles_read();
    if (st >= 0) {
        ux_status sm = ux_joint_filter_mean(f, out->mean);
        ux_status sc = ux_joint_filter_cov(f, out->cov);
        st = sm < 0 ? sm : sc < 0 ? sc : st;
    }
    if (st < 0) {
        memcpy(live, spare, sizeof *live);
        return internal(st);
    }
    out->status = wire_status(st);
    out->log_evidence = ux_joint_filter_log_evidence(f);
    out->cycles_predict = cycles_predict;
    out->cycles_update = cycles_update;
    out->atoms = ux_joint_filter_posterior(f);
    out->dim = (uint8_t)out->atoms->dim;
    return ok();
}
#else
session_error session_step_joint(const session_step_in *in, session_joint_posterior *out)
{
    (void)in;
    (void)out;
    return check_kind(SESSION_JOINT); /* never configured for it */
}
#endif

void session_reset(void)
{
    configured = SESSION_NONE;
}
