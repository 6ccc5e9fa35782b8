/*
 * messages.c — HELLO, DESCRIBE, CONFIGURE, STEP and RESET (docs/protocol.md, "Messages"). A system of
 * any state dimension travels in the same messages; session.c picks the core's filter behind them.
 *
 * Each request is checked completely (size, then fields in payload order) before anything runs, so a
 * rejected request leaves the device as it was.
 */
#include "messages.h"

#include <math.h>
#include <string.h>

#include "board.h"
#include "proto.h"
#include "session.h"
#include "ux/config.h"
#include "ux/model.h"
#include "wire.h"

#ifndef APP_FW_VERSION
#define APP_FW_VERSION "unversioned"
#endif

/* A step's evidence as doubles: ω then the rows of z, n_evidence·(dim_obs + 1) ≤ EVIDENCE_REALS in all. */
#define EVIDENCE_REALS (2u * PROTO_MAX_EVIDENCE)
static double evidence[EVIDENCE_REALS];

/* A step's answer before it is written. */
static session_posterior posterior;

static message_result answer_of(uint8_t type, size_t length)
{
    message_result r = {0u, 0u, type, length};
    return r;
}

static message_result error_of(uint8_t code, uint16_t detail)
{
    message_result r = {code, detail, 0u, 0u};
    return r;
}

void messages_init(void) { session_init(); }

bool messages_known(uint8_t type)
{
    return type == MSG_HELLO || type == MSG_DESCRIBE || type == MSG_CONFIGURE || type == MSG_STEP || type == MSG_RESET;
}

static message_result hello(uint8_t *a)
{
    wire_put_u16(a + INFO_PROTOCOL_AT, (uint16_t)PROTO_VERSION);
    a[INFO_MAX_ETA_AT] = (uint8_t)session_max_eta();
    a[INFO_REAL_BYTES_AT] = (uint8_t)UX_REAL_BYTES;
    a[INFO_CYCLE_SOURCE_AT] = board_cycle_source;
    a[INFO_RESET_CAUSE_AT] = board_reset_cause();
    wire_put_u32(a + INFO_CORE_HZ_AT, board_core_hz());
    size_t board_len = wire_put_str(a + INFO_BOARD_AT, board_name);
    size_t fw_len = wire_put_str(a + INFO_FW_VERSION_AT(board_len), APP_FW_VERSION);
    a[INFO_N_SYSTEMS_AT(board_len, fw_len)] = session_system_count();
    return answer_of(MSG_INFO, INFO_BYTES(board_len, fw_len));
}

/* The wire's value for a parameter domain and a prior law of the core. */
static uint8_t wire_domain(uint8_t domain)
{
    switch (domain) {
        case UX_PARAM_POSITIVE:
            return DOMAIN_POSITIVE;
        case UX_PARAM_NONNEGATIVE:
            return DOMAIN_NONNEGATIVE;
        default:
            return DOMAIN_REAL;
    }
}

static size_t str_bytes(const char *s)
{
    size_t n = strlen(s);
    return 1u + (n > 255u ? 255u : n);
}

/* Bytes of a system's name, title and parameter records on the wire. */
static size_t strings_bytes(const session_system *m)
{
    size_t need = str_bytes(m->name) + str_bytes(m->title);
    for (unsigned i = 0; i < m->n_params; i++) {
        need += str_bytes(m->param_names[i]) + 8u + 1u;
    }
    return need;
}

/* The parameter records at `at`; returns their bytes. */
static size_t put_params(uint8_t *at, const session_system *m)
{
    uint8_t *start = at;
    for (unsigned i = 0; i < m->n_params; i++) {
        at += 1u + wire_put_str(at, m->param_names[i]);
        wire_put_f64(at, (double)m->defaults[i]);
        at[8] = wire_domain(m->domains[i]);
        at += 9u;
    }
    return (size_t)(at - start);
}

static uint8_t wire_prior(const ux_law *law) { return law->kind == UX_LAW_LAPLACE ? PRIOR_LAPLACE : PRIOR_GAUSSIAN; }

/* SYSTEM: the index-th system served, written field by field (its records hold strings). */
static message_result describe(const uint8_t *p, uint8_t *a)
{
    session_system m;
    if (!session_system_at(p[DESCRIBE_INDEX_AT], &m)) {
        return error_of(ERR_CONFIG, DESCRIBE_FIELD_INDEX);
    }
    size_t need = SYSTEM_MIN_BYTES - 2u + strings_bytes(&m) + SYSTEM_PRIORS_BYTES * m.dim;
    if (need > PROTO_MAX_PAYLOAD) { /* a table entry too long for one frame: a build-time mistake */
        return error_of(ERR_INTERNAL, 0u);
    }
    a[SYSTEM_ID_AT] = m.id;
    size_t name_len = wire_put_str(a + SYSTEM_NAME_AT, m.name);
    size_t title_len = wire_put_str(a + SYSTEM_TITLE_AT(name_len), m.title);
    a[SYSTEM_DIM_AT(name_len, title_len)] = m.dim;
    a[SYSTEM_DIM_OBS_AT(name_len, title_len)] = m.dim_obs;
    a[SYSTEM_N_PARAMS_AT(name_len, title_len)] = m.n_params;
    size_t params_bytes = put_params(a + SYSTEM_PARAMS_AT(name_len, title_len), &m);
    for (unsigned c = 0; c < m.dim; c++) {
        uint8_t *prior = a + SYSTEM_PRIORS_AT(name_len, title_len, params_bytes) + SYSTEM_PRIORS_BYTES * c;
        prior[SYSTEM_PRIORS_KIND_AT] = wire_prior(&m.prior[c]);
        wire_put_f64(prior + SYSTEM_PRIORS_A_AT, (double)m.prior[c].a);
        wire_put_f64(prior + SYSTEM_PRIORS_B_AT, (double)m.prior[c].b);
    }
    return answer_of(MSG_SYSTEM, SYSTEM_BYTES(name_len, title_len, params_bytes, (size_t)m.dim));
}

/* STEP's fields before its evidence (flags, u, m against n_evidence, n_evidence, dim_obs), in wire
 * order. Not configured outranks bad fields: the host's mistake is the missing CONFIGURE. */
static bool check_step(uint8_t flags, size_t dim_obs, session_step_in *in, message_result *r)
{
    const unsigned want_obs = session_dim_obs();
    if (want_obs == 0u) {
        *r = error_of(ERR_NOT_CONFIGURED, 0u);
        return false;
    }
    uint16_t bad = UINT16_MAX;
    if ((flags & (uint8_t)~STEP_FLAG_PREDICT) != 0u) {
        bad = STEP_FIELD_FLAGS;
    } else if (!isfinite(in->u)) {
        bad = STEP_FIELD_U;
    } else if ((in->m == 0u) != (in->n_evidence == 0u)) {
        /* m counts the observations the evidence stands for: none exactly when there is no evidence (a
         * missing observation, a predict-only step). */
        bad = STEP_FIELD_M;
    } else if (in->n_evidence > PROTO_MAX_EVIDENCE) {
        bad = STEP_FIELD_N_EVIDENCE;
    } else if (dim_obs != want_obs) {
        bad = STEP_FIELD_DIM_OBS;
    } else if (in->n_evidence * (dim_obs + 1u) > EVIDENCE_REALS) {
        bad = STEP_FIELD_N_EVIDENCE;
    }
    in->predict = (flags & STEP_FLAG_PREDICT) != 0u;
    if (bad != UINT16_MAX) {
        *r = error_of(ERR_EVIDENCE, bad);
        return false;
    }
    return true;
}

/* `n` wire f64 at `at` (stride 8) into out[0 .. n); index of the first that is not finite (or, with
 * `positive`, not > 0), −1 when all are valid. */
static long read_reals(const uint8_t *at, size_t n, bool positive, double *out)
{
    for (size_t j = 0; j < n; j++) {
        out[j] = wire_get_f64(at + 8u * j);
        /* ω = 0 too: the core's domain is ω > 0, and a refusal here names the field. */
        if (!isfinite(out[j]) || (positive && !(out[j] > 0.0))) {
            return (long)j;
        }
    }
    return -1;
}

/* Not inlined: its request's locals would otherwise enlarge messages_run's frame under every STEP, the
 * deepest path (the stack bound of the smallest board has no room for them). */
__attribute__((noinline)) static message_result configure(const uint8_t *p, size_t len, size_t frame_bytes, uint8_t *a)
{
    if (len < CONFIGURE_MIN_BYTES) {
        return error_of(ERR_LENGTH, (uint16_t)frame_bytes);
    }
    session_config cfg;
    cfg.system = p[CONFIGURE_SYSTEM_AT];
    cfg.eta = p[CONFIGURE_ETA_AT];
    cfg.mode = p[CONFIGURE_MODE_AT];
    cfg.likelihood = p[CONFIGURE_LIKELIHOOD_AT];
    cfg.n_params = p[CONFIGURE_N_PARAMS_AT];
    const size_t n = cfg.n_params;
    if (len < CONFIGURE_BYTES(n, 0u)) {
        return error_of(ERR_LENGTH, (uint16_t)frame_bytes);
    }
    cfg.dim = p[CONFIGURE_DIM_AT(n)];
    const size_t dim = cfg.dim;
    if (len != CONFIGURE_BYTES(n, dim)) {
        return error_of(ERR_LENGTH, (uint16_t)frame_bytes);
    }
    memset(&cfg.params, 0, sizeof cfg.params);
    for (size_t i = 0; i < n && i < SESSION_MAX_PARAMS; i++) {
        cfg.params[i] = wire_get_f64(p + CONFIGURE_PARAMS_AT + CONFIGURE_PARAMS_BYTES * i);
    }
    for (size_t c = 0; c < dim && c < UX_MAX_DIM; c++) {
        const uint8_t *prior = p + CONFIGURE_PRIORS_AT(n) + CONFIGURE_PRIORS_BYTES * c;
        cfg.prior_kind[c] = prior[CONFIGURE_PRIORS_KIND_AT];
        cfg.prior_a[c] = wire_get_f64(prior + CONFIGURE_PRIORS_A_AT);
        cfg.prior_b[c] = wire_get_f64(prior + CONFIGURE_PRIORS_B_AT);
    }
    uint8_t count = 0;
    uint32_t ws_bytes = 0;
    session_error e = session_configure(&cfg, &count, &ws_bytes);
    if (e.code != 0u) {
        return error_of(e.code, e.detail);
    }
    a[CONFIGURED_COUNT_AT] = count;
    wire_put_u32(a + CONFIGURED_WORKSPACE_BYTES_AT, ws_bytes);
    return answer_of(MSG_CONFIGURED, CONFIGURED_BYTES);
}

/* POSTERIOR from the session's answer. */
static message_result put_posterior(uint32_t k, const session_posterior *post, uint8_t *a)
{
    const size_t dim = post->dim, count = post->count;
    wire_put_u32(a + POSTERIOR_K_AT, k);
    a[POSTERIOR_STATUS_AT] = post->status;
    wire_put_f64(a + POSTERIOR_LOG_EVIDENCE_AT, post->log_evidence);
    wire_put_u64(a + POSTERIOR_CYCLES_PREDICT_AT, post->cycles_predict);
    wire_put_u64(a + POSTERIOR_CYCLES_UPDATE_AT, post->cycles_update);
    a[POSTERIOR_DIM_AT] = (uint8_t)dim;
    for (size_t c = 0; c < dim; c++) {
        wire_put_f64(a + POSTERIOR_MEAN_AT + POSTERIOR_MEAN_BYTES * c, post->mean[c]);
    }
    for (size_t c = 0; c < dim * dim; c++) {
        wire_put_f64(a + POSTERIOR_COV_AT(dim) + POSTERIOR_COV_BYTES * c, post->cov[c]);
    }
    a[POSTERIOR_COUNT_AT(dim)] = (uint8_t)count;
    for (size_t i = 0; i < count; i++) {
        wire_put_f64(a + POSTERIOR_W_AT(dim) + POSTERIOR_W_BYTES * i, (double)post->w[i]);
    }
    for (size_t c = 0; c < count * dim; c++) {
        wire_put_f64(a + POSTERIOR_X_AT(dim, count) + POSTERIOR_X_BYTES * c, (double)post->x[c]);
    }
    return answer_of(MSG_POSTERIOR, POSTERIOR_BYTES(dim, count));
}

static message_result step(const uint8_t *p, size_t len, size_t frame_bytes, uint8_t *a)
{
    if (len < STEP_MIN_BYTES) {
        return error_of(ERR_LENGTH, (uint16_t)frame_bytes);
    }
    session_step_in in;
    in.k = wire_get_u32(p + STEP_K_AT);
    uint8_t flags = p[STEP_FLAGS_AT];
    in.u = wire_get_f64(p + STEP_U_AT);
    in.m = wire_get_u16(p + STEP_M_AT);
    in.n_evidence = p[STEP_N_EVIDENCE_AT];
    const size_t n = in.n_evidence, dim_obs = p[STEP_DIM_OBS_AT];
    if (len != STEP_BYTES(n, dim_obs)) {
        return error_of(ERR_LENGTH, (uint16_t)frame_bytes);
    }
    message_result r;
    if (!check_step(flags, dim_obs, &in, &r)) {
        return r;
    }
    double *w = evidence, *z = evidence + n;
    long bad = read_reals(p + STEP_OMEGA_AT, n, true, w);
    if (bad >= 0) {
        return error_of(ERR_EVIDENCE, (uint16_t)STEP_FIELD_OMEGA((unsigned)bad));
    }
    bad = read_reals(p + STEP_Z_AT(n), n * dim_obs, false, z);
    if (bad >= 0) {
        return error_of(ERR_EVIDENCE, (uint16_t)STEP_FIELD_Z(n, (unsigned)bad));
    }
    in.z = z;
    in.omega = w;

    session_error e = session_step(&in, &posterior);
    if (e.code != 0u) {
        return error_of(e.code, e.detail);
    }
    return put_posterior(in.k, &posterior, a);
}

message_result messages_run(uint8_t type, const uint8_t *payload, size_t length, size_t frame_bytes, uint8_t *answer)
{
    switch (type) {
        case MSG_HELLO:
            if (length != HELLO_BYTES) {
                return error_of(ERR_LENGTH, (uint16_t)frame_bytes);
            }
            return hello(answer);
        case MSG_DESCRIBE:
            if (length != DESCRIBE_BYTES) {
                return error_of(ERR_LENGTH, (uint16_t)frame_bytes);
            }
            return describe(payload, answer);
        case MSG_CONFIGURE:
            return configure(payload, length, frame_bytes, answer);
        case MSG_STEP:
            return step(payload, length, frame_bytes, answer);
        case MSG_RESET:
            if (length != RESET_BYTES) {
                return error_of(ERR_LENGTH, (uint16_t)frame_bytes);
            }
            session_reset();
            return answer_of(MSG_RESET_DONE, 0u);
        default:
            return error_of(ERR_TYPE, type);
    }
}
