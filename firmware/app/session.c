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
_Static_assert(MODE_REFINED == UX_MODE_REFINED && MODE_PAPER == UX_MODE_PAPER && MODE_MIXTURE == UX_MODE_MIXTURE &&
                   MODE_CELLS == UX_MODE_CELLS,
               "mode values");
_Static_assert(LIKELIHOOD_KERNEL == UX_LIK_KERNEL && LIKELIHOOD_SAMPLER == UX_LIK_SAMPLER, "likelihood values");

_Static_assert(APP_MAX_ETA >= 1 && APP_MAX_ETA <= UX_MAX_ETA, "APP_MAX_ETA must be in 1..UX_MAX_ETA");
_Static_assert(SESSION_MAX_PARAMS == UX_MODEL_MAX_PARAMS, "the wire carries what a model can take");

#if APP_JOINT
/* The joint filters' workspace at the board's η for the largest dim served: the larger of the atom filter's
 * and the cell filter's (which keeps its cells there; it is the larger only at the smallest η). The scalar
 * filter's at the same η is larger for dim 2, so serving joint systems costs no workspace there. */
#define JOINT_WORKSPACE_BYTES                                                                                          \
    UX_WS_MAX(UX_JOINT_FILTER_WORKSPACE_BYTES(APP_MAX_ETA, APP_JOINT_MAX_DIM),                                         \
              UX_JOINT_CELLS_WORKSPACE_BYTES(APP_MAX_ETA, APP_JOINT_MAX_DIM))
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
 * it on failure. The scalar and the atom filter keep nothing in the workspace between messages (a STEP
 * always ends with an update), so the copy is complete for them. The cell filter keeps its cells there, in
 * two banks: a step builds in the free one and swaps the slot's pointers only on success, so the copied
 * slot still points at the untouched bank. A CONFIGURE whose core init fails after the session's checks
 * (not reached: they cover what init checks) could have written the workspace: a live cell filter is then
 * unconfigured rather than kept with cells of unknown content.
 */
typedef union {
    ux_filter scalar;
#if APP_JOINT
    ux_joint_filter joint;
    ux_joint_cells cells;
#endif
} filter_slot;

/* Which core's filter the live slot holds. */
typedef enum { SESSION_NONE = 0, SESSION_SCALAR = 1, SESSION_JOINT = 2, SESSION_CELLS = 3 } session_kind;

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
        case UX_INCONSISTENT:
            return STATUS_INCONSISTENT;
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

unsigned session_max_eta(void) { return APP_MAX_ETA; }

/* A joint system this build serves: its workspace was sized for it. */
static bool joint_served(const ux_joint_model *m) { return APP_JOINT && m != NULL && m->dim <= APP_JOINT_MAX_DIM; }

static uint8_t scalar_count(void)
{
    unsigned n = ux_model_count();
    return (uint8_t)(n > 255u ? 255u : n); /* INFO.n_systems is a u8; the table holds ids 1…255 */
}

/* The i-th joint system served, else NULL. */
static const ux_joint_model *joint_at(unsigned i)
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
    unsigned n = scalar_count();
    while (n < 255u && joint_at(n - scalar_count()) != NULL) {
        n++;
    }
    return (uint8_t)n;
}

static session_system scalar_system(const ux_model *m)
{
    session_system s = {m->id,          1u,          1u,         m->n_params, m->name, m->title,
                        m->param_names, m->defaults, m->domains, &m->prior};
    return s;
}

static session_system joint_system(const ux_joint_model *m)
{
    session_system s = {
        m->id,      m->dim,  (uint8_t)m->code->dim_obs, m->n_params, m->name, m->title, m->param_names, m->defaults,
        m->domains, m->prior};
    return s;
}

bool session_system_at(unsigned index, session_system *out)
{
    if (index < scalar_count()) {
        *out = scalar_system(ux_model_at(index));
        return true;
    }
    const ux_joint_model *m = joint_at(index - scalar_count());
    if (m == NULL) {
        return false;
    }
    *out = joint_system(m);
    return true;
}

/* The system CONFIGURE names, of either core; false when this build serves none by that id. */
static bool find_system(uint8_t id, const ux_model **scalar, const ux_joint_model **joint, session_system *out)
{
    *scalar = ux_model_find(id);
    *joint = *scalar == NULL ? ux_joint_model_find(id) : NULL;
    if (*scalar != NULL) {
        *out = scalar_system(*scalar);
        return true;
    }
    if (!joint_served(*joint)) {
        return false;
    }
    *out = joint_system(*joint);
    return true;
}

static bool valid_eta(unsigned eta) { return ux_log2_eta(eta) >= 0 && eta <= APP_MAX_ETA; }

/* A law of CONFIGURE's prior fields; *bad: 0 the kind, 1 a, 2 b is wrong, −1 none. */
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

/* η: a power of two the board was built for, whose posterior fits one POSTERIOR and whose joint filter
 * fits the workspace (sized for the board's η at APP_JOINT_MAX_DIM). */
static bool eta_fits(unsigned eta, const session_system *s, const ux_joint_model *joint, uint8_t mode)
{
    if (!valid_eta(eta) || POSTERIOR_BYTES((size_t)s->dim, (size_t)eta) > PROTO_MAX_PAYLOAD) {
        return false;
    }
#if APP_JOINT
    size_t need = mode == UX_MODE_CELLS ? ux_joint_cells_workspace_bytes(joint, eta)
                                        : ux_joint_filter_workspace_bytes(joint, eta);
    if (joint != NULL && need > sizeof workspace) {
        return false;
    }
#else
    (void)joint;
    (void)mode;
#endif
    return true;
}

/* Mode and likelihood: the mixture mode and the sampler are the scalar core's only, the cells the joint one's. */
static int bad_mode_or_likelihood(const session_config *cfg, const ux_model *scalar)
{
    bool scalar_mode = cfg->mode == UX_MODE_MIXTURE && scalar != NULL;
    bool joint_mode = cfg->mode == UX_MODE_CELLS && scalar == NULL;
    if (cfg->mode != UX_MODE_REFINED && cfg->mode != UX_MODE_PAPER && !scalar_mode && !joint_mode) {
        return CONFIGURE_FIELD_MODE;
    }
    bool kernel = scalar == NULL || scalar->code->kernel != NULL;
    bool sampler = scalar != NULL && scalar->code->sampler != NULL;
    if (!((cfg->likelihood == UX_LIK_KERNEL && kernel) || (cfg->likelihood == UX_LIK_SAMPLER && sampler))) {
        return CONFIGURE_FIELD_LIKELIHOOD;
    }
    return -1;
}

/* Index of the first bad parameter, −1 when all are valid. */
static int bad_param(const session_config *cfg, const ux_model *scalar, const ux_joint_model *joint)
{
#if APP_JOINT
    if (joint != NULL) {
        return ux_joint_model_check_params(joint, cfg->params);
    }
#else
    (void)joint;
#endif
    return ux_filter_check_params(scalar, cfg->params);
}

/* The spare filter of the configured system, from checked fields. */
static ux_status init_spare(const session_config *cfg, const ux_model *scalar, const ux_joint_model *joint,
                            const ux_law *priors)
{
    ux_workspace ws = {workspace, sizeof workspace};
#if APP_JOINT
    if (joint != NULL) {
        ux_joint_filter_config fc = {joint, cfg->params, cfg->eta, (ux_mode)cfg->mode, priors};
        return cfg->mode == UX_MODE_CELLS ? ux_joint_cells_init(&spare->cells, &fc, ws)
                                          : ux_joint_filter_init(&spare->joint, &fc, ws);
    }
#else
    (void)joint;
#endif
    ux_filter_config fc = {scalar,    cfg->params, cfg->eta, (ux_mode)cfg->mode, (ux_likelihood)cfg->likelihood,
                           &priors[0]};
    return ux_filter_init(&spare->scalar, &fc, ws);
}

/* The live filter's prior atoms and workspace in use, for CONFIGURED. */
static void configured_sizes(unsigned eta, uint8_t *count, uint32_t *workspace_bytes)
{
#if APP_JOINT
    if (configured == SESSION_JOINT) {
        *count = (uint8_t)ux_joint_filter_posterior(&live->joint)->count;
        *workspace_bytes = (uint32_t)ux_joint_filter_workspace_bytes(live->joint.model, eta);
        return;
    }
    if (configured == SESSION_CELLS) {
        *count = (uint8_t)ux_joint_cells_count(&live->cells);
        *workspace_bytes = (uint32_t)ux_joint_cells_workspace_bytes(live->cells.model, eta);
        return;
    }
#endif
    (void)eta;
    *count = (uint8_t)ux_filter_posterior(&live->scalar)->count;
    *workspace_bytes = (uint32_t)ux_filter_workspace_in_use(&live->scalar);
}

session_error session_configure(const session_config *cfg, uint8_t *count, uint32_t *workspace_bytes)
{
    const ux_model *scalar;
    const ux_joint_model *joint;
    session_system sys;
    if (!find_system(cfg->system, &scalar, &joint, &sys)) {
        return fail(ERR_CONFIG, CONFIGURE_FIELD_SYSTEM);
    }
    if (!eta_fits(cfg->eta, &sys, joint, cfg->mode)) {
        return fail(ERR_CONFIG, CONFIGURE_FIELD_ETA);
    }
    int bad = bad_mode_or_likelihood(cfg, scalar);
    if (bad >= 0) {
        return fail(ERR_CONFIG, (unsigned)bad);
    }
    if (cfg->n_params != sys.n_params) {
        return fail(ERR_CONFIG, CONFIGURE_FIELD_N_PARAMS);
    }
    bad = bad_param(cfg, scalar, joint);
    if (bad >= 0) {
        return fail(ERR_CONFIG, CONFIGURE_FIELD_PARAMS((unsigned)bad));
    }
    const unsigned n = cfg->n_params;
    if (cfg->dim != sys.dim) {
        return fail(ERR_CONFIG, CONFIGURE_FIELD_DIM(n));
    }
    ux_law priors[UX_MAX_DIM];
    for (unsigned c = 0; c < sys.dim; c++) {
        priors[c] = wire_law(cfg->prior_kind[c], cfg->prior_a[c], cfg->prior_b[c], &bad);
        if (bad >= 0) {
            return fail(ERR_CONFIG, CONFIGURE_FIELD_PRIORS_KIND(n, c) + (unsigned)bad);
        }
    }
    ux_status st = init_spare(cfg, scalar, joint, priors);
    if (st < 0) {
        configured = configured == SESSION_CELLS ? SESSION_NONE : configured; /* its cells may be overwritten */
        return internal(st);
    }
    swap_in(joint == NULL ? SESSION_SCALAR : cfg->mode == UX_MODE_CELLS ? SESSION_CELLS : SESSION_JOINT);
    configured_sizes(cfg->eta, count, workspace_bytes);
    return ok();
}

unsigned session_dim_obs(void)
{
#if APP_JOINT
    if (configured == SESSION_JOINT) {
        return live->joint.model->code->dim_obs;
    }
    if (configured == SESSION_CELLS) {
        return live->cells.model->code->dim_obs;
    }
#endif
    return configured == SESSION_SCALAR ? 1u : 0u;
}

static ux_status core_predict(uint32_t k, double u)
{
#if APP_JOINT
    if (configured == SESSION_JOINT) {
        return ux_joint_filter_predict(&live->joint, k, u);
    }
    if (configured == SESSION_CELLS) {
        return ux_joint_cells_predict(&live->cells, k, u);
    }
#endif
    return ux_filter_predict(&live->scalar, k, u);
}

static ux_status core_update(const session_step_in *in)
{
#if APP_JOINT
    if (configured == SESSION_JOINT) {
        return ux_joint_filter_update(&live->joint, in->z, in->omega, in->n_evidence, in->m);
    }
    if (configured == SESSION_CELLS) {
        return ux_joint_cells_update(&live->cells, in->z, in->omega, in->n_evidence, in->m);
    }
#endif
    return ux_filter_update(&live->scalar, in->z, in->omega, in->n_evidence, in->m);
}

/* The posterior's statistics and atoms after a successful update; a negative status when the joint
 * core cannot reduce them. */
static ux_status read_posterior(session_posterior *out)
{
#if APP_JOINT
    if (configured == SESSION_JOINT) {
        const ux_joint_filter *f = &live->joint;
        ux_status sm = ux_joint_filter_mean(f, out->mean);
        ux_status sc = ux_joint_filter_cov(f, out->cov);
        const ux_joint *atoms = ux_joint_filter_posterior(f);
        out->log_evidence = ux_joint_filter_log_evidence(f);
        out->dim = (uint8_t)atoms->dim;
        out->count = atoms->count;
        out->x = atoms->x;
        out->w = atoms->w;
        return sm < 0 ? sm : sc;
    }
    if (configured == SESSION_CELLS) { /* the cells' means and weights stand as the atoms */
        const ux_joint_cells *f = &live->cells;
        ux_status sm = ux_joint_cells_mean(f, out->mean);
        ux_status sc = ux_joint_cells_cov(f, out->cov);
        out->log_evidence = ux_joint_cells_log_evidence(f);
        out->dim = (uint8_t)f->dim;
        out->count = f->count;
        out->x = f->cur.m;
        out->w = f->cur.w;
        return sm < 0 ? sm : sc;
    }
#endif
    const ux_filter *f = &live->scalar;
    const ux_value *post = ux_filter_posterior(f);
    out->mean[0] = ux_filter_mean(f);
    out->cov[0] = ux_filter_var(f);
    out->log_evidence = ux_filter_log_evidence(f);
    out->dim = 1u;
    out->count = post->count;
    out->x = post->x;
    out->w = post->w;
    return UX_OK;
}

session_error session_step(const session_step_in *in, session_posterior *out)
{
    if (configured == SESSION_NONE) {
        return fail(ERR_NOT_CONFIGURED, 0u);
    }
    memcpy(spare, live, sizeof *spare);

    uint64_t cycles_predict = 0u;
    if (in->predict) {
        board_cycles_restart();
        ux_status st = core_predict(in->k, in->u);
        cycles_predict = board_cycles_read();
        if (st < 0) {
            memcpy(live, spare, sizeof *live);
            return internal(st);
        }
    }
    board_cycles_restart();
    ux_status st = core_update(in);
    uint64_t cycles_update = board_cycles_read();
    if (st >= 0) {
        ux_status sr = read_posterior(out);
        st = sr < 0 ? sr : st;
    }
    if (st < 0) {
        memcpy(live, spare, sizeof *live);
        return internal(st);
    }
    out->status = wire_status(st);
    out->cycles_predict = cycles_predict;
    out->cycles_update = cycles_update;
    return ok();
}

void session_reset(void) { configured = SESSION_NONE; }
