/*
 * messages.c — HELLO, DESCRIBE, CONFIGURE, STEP, their joint twins CONFIGURE_JOINT and STEP_JOINT, and
 * RESET (docs/protocol.md, "Messages").
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

/* A step's evidence as doubles: STEP's z then ω, each PROTO_MAX_EVIDENCE long; STEP_JOINT's ω then its
 * rows of z, n_evidence·(dim_obs + 1) ≤ EVIDENCE_REALS in all. */
#define EVIDENCE_REALS (2u * PROTO_MAX_EVIDENCE)
static double evidence[EVIDENCE_REALS];

/* A step's answer before it is written: one kind at a time. */
static union {
    session_posterior scalar;
    session_joint_posterior joint;
} posterior;

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

void messages_init(void)
{
    session_init();
}

bool messages_known(uint8_t type)
{
    return type == MSG_HELLO || type == MSG_DESCRIBE || type == MSG_CONFIGURE || type == MSG_STEP ||
           type == MSG_CONFIGURE_JOINT || type == MSG_STEP_JOINT || type == MSG_RESET;
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

/* Bytes of a system's name, title and parameter records on the wire (SYSTEM and SYSTEM_JOINT alike). */
static size_t strings_bytes(const char *name, const char *title, unsigned n_params, const char *const *param_names)
{
    size_t need = str_bytes(name) + str_bytes(title);
    for (unsigned i = 0; i < n_params; i++) {
        need += str_bytes(param_names[i]) + 8u + 1u;
    }
    return need;
}

/* The parameter records at `at`; returns their bytes. */
static size_t put_params(uint8_t *at, unsigned n_params, const char *const *names, const ux_real *defaults,
                         const uint8_t *domains)
{
    uint8_t *start = at;
    for (unsigned i = 0; i < n_params; i++) {
        at += 1u + wire_put_str(at, names[i]);
        wire_put_f64(at, (double)defaults[i]);
        at[8] = wire_domain(domains[i]);
        at += 9u;
    }
    return (size_t)(at - start);
}

static uint8_t wire_prior(const ux_law *law)
{
    return law->kind == UX_LAW_LAPLACE ? PRIOR_LAPLACE : PRIOR_GAUSSIAN;
}

/* SYSTEM_JOINT: the i-th joint system served, written field by field (its records hold strings). */
static message_result describe_joint(unsigned i, uint8_t *a)
{
    const ux_joint_model *m = session_joint_at(i);
    size_t need = SYSTEM_JOINT_MIN_BYTES - 2u + strings_bytes(m->name, m->title, m->n_params, m->param_names) +
                  SYSTEM_JOINT_PRIORS_BYTES * m->dim;
    if (need > PROTO_MAX_PAYLOAD) { /* a table entry too long for one frame: a build-time mistake */
        return error_of(ERR_INTERNAL, 0u);
    }
    a[SYSTEM_JOINT_ID_AT] = m->id;
    size_t name_len = wire_put_str(a + SYSTEM_JOINT_NAME_AT, m->name);
    size_t title_len = wire_put_str(a + SYSTEM_JOINT_TITLE_AT(name_len), m->title);
    a[SYSTEM_JOINT_DIM_AT(name_len, title_len)] = m->dim;
    a[SYSTEM_JOINT_DIM_OBS_AT(name_len, title_len)] = (uint8_t)m->code->dim_obs;
    a[SYSTEM_JOINT_N_PARAMS_AT(name_len, title_len)] = m->n_params;
    size_t params_bytes = put_params(a + SYSTEM_JOINT_PARAMS_AT(name_len, title_len), m->n_params,
                                     m->param_names, m->defaults, m->domains);
    for (unsigned c = 0; c < m->dim; c++) {
        uint8_t *prior = a + SYSTEM_JOINT_PRIORS_AT(name_len, title_len, params_bytes) + SYSTEM_JOINT_PRIORS_BYTES * c;
        prior[SYSTEM_JOINT_PRIORS_KIND_AT] = wire_prior(&m->prior[c]);
        wire_put_f64(prior + SYSTEM_JOINT_PRIORS_A_AT, (double)m->prior[c].a);
        wire_put_f64(prior + SYSTEM_JOINT_PRIORS_B_AT, (double)m->prior[c].b);
    }
    return answer_of(MSG_SYSTEM_JOINT, SYSTEM_JOINT_BYTES(name_len, title_len, params_bytes, (size_t)m->dim));
}

/* SYSTEM or SYSTEM_JOINT: the index-th system served, the scalar ones first. */
static message_result describe(const uint8_t *p, uint8_t *a)
{
    const unsigned index = p[DESCRIBE_INDEX_AT];
    if (index >= session_system_count()) {
        return error_of(ERR_CONFIG, DESCRIBE_FIELD_INDEX);
    }
    if (index >= session_scalar_count()) {
        return describe_joint(index - session_scalar_count(), a);
    }
    const ux_model *m = ux_model_at(index);
    size_t need = SYSTEM_MIN_BYTES - 2u + strings_bytes(m->name, m->title, m->n_params, m->param_names);
    if (need > PROTO_MAX_PAYLOAD) { /* a table entry too long for one frame: a build-time mistake */
        return error_of(ERR_INTERNAL, 0u);
    }
    a[SYSTEM_ID_AT] = m->id;
    size_t name_len = wire_put_str(a + SYSTEM_NAME_AT, m->name);
    size_t title_len = wire_put_str(a + SYSTEM_TITLE_AT(name_len), m->title);
    a[SYSTEM_N_PARAMS_AT(name_len, title_len)] = m->n_params;
    size_t params_bytes = put_params(a + SYSTEM_PARAMS_AT(name_len, title_len), m->n_params, m->param_names,
                                     m->defaults, m->domains);
    a[SYSTEM_PRIOR_KIND_AT(name_len, title_len, params_bytes)] = wire_prior(&m->prior);
    wire_put_f64(a + SYSTEM_PRIOR_A_AT(name_len, title_len, params_bytes), (double)m->prior.a);
    wire_put_f64(a + SYSTEM_PRIOR_B_AT(name_len, title_len, params_bytes), (double)m->prior.b);
    return answer_of(MSG_SYSTEM, SYSTEM_BYTES(name_len, title_len, params_bytes));
}

/* CONFIGURED, or the configuration's error. */
static message_result configured(session_error e, uint8_t count, uint32_t ws_bytes, uint8_t *a)
{
    if (e.code != 0u) {
        return error_of(e.code, e.detail);
    }
    a[CONFIGURED_COUNT_AT] = count;
    wire_put_u32(a + CONFIGURED_WORKSPACE_BYTES_AT, ws_bytes);
    return answer_of(MSG_CONFIGURED, CONFIGURED_BYTES);
}

/* Not configured (for this kind) outranks bad fields: the host's mistake is the missing CONFIGURE. */
static bool configured_for(session_kind want, message_result *r)
{
    session_kind now = session_configured();
    if (now != want) {
        *r = error_of(ERR_NOT_CONFIGURED, now == SESSION_NONE ? 0u : 1u);
        return false;
    }
    return true;
}

/* The step fields STEP and STEP_JOINT share (flags, u, m against n_evidence, n_evidence), in wire order. */
static bool check_step(uint8_t flags, session_step_in *in, uint16_t field_flags, uint16_t field_u,
                       uint16_t field_m, uint16_t field_n, message_result *r)
{
    if ((flags & (uint8_t)~STEP_FLAG_PREDICT) != 0u) {
        *r = error_of(ERR_EVIDENCE, field_flags);
        return false;
    }
    in->predict = (flags & STEP_FLAG_PREDICT) != 0u;
    if (!isfinite(in->u)) {
        *r = error_of(ERR_EVIDENCE, field_u);
        return false;
    }
    /* m counts the observations the evidence stands for: none exactly when there is no evidence (a
     * missing observation, a predict-only step). */
    if ((in->m == 0u) != (in->n_evidence == 0u)) {
        *r = error_of(ERR_EVIDENCE, field_m);
        return false;
    }
    if (in->n_evidence > PROTO_MAX_EVIDENCE) {
        *r = error_of(ERR_EVIDENCE, field_n);
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
    if (len != CONFIGURE_BYTES(n)) {
        return error_of(ERR_LENGTH, (uint16_t)frame_bytes);
    }
    memset(cfg.params, 0, sizeof cfg.params);
    for (size_t i = 0; i < n && i < SESSION_MAX_PARAMS; i++) {
        cfg.params[i] = wire_get_f64(p + CONFIGURE_PARAMS_AT + CONFIGURE_PARAMS_BYTES * i);
    }
    cfg.prior_kind = p[CONFIGURE_PRIOR_KIND_AT(n)];
    cfg.prior_a = wire_get_f64(p + CONFIGURE_PRIOR_A_AT(n));
    cfg.prior_b = wire_get_f64(p + CONFIGURE_PRIOR_B_AT(n));

    uint8_t count = 0;
    uint32_t ws_bytes = 0;
    return configured(session_configure(&cfg, &count, &ws_bytes), count, ws_bytes, a);
}

/* Not inlined: its request's locals would otherwise enlarge messages_run's frame under every STEP, the
 * deepest path (the stack bound of the smallest board has no room for them). */
__attribute__((noinline)) static message_result configure_joint(const uint8_t *p, size_t len, size_t frame_bytes, uint8_t *a)
{
    if (len < CONFIGURE_JOINT_MIN_BYTES) {
        return error_of(ERR_LENGTH, (uint16_t)frame_bytes);
    }
    session_joint_config cfg;
    cfg.system = p[CONFIGURE_JOINT_SYSTEM_AT];
    cfg.eta = p[CONFIGURE_JOINT_ETA_AT];
    cfg.mode = p[CONFIGURE_JOINT_MODE_AT];
    cfg.n_params = p[CONFIGURE_JOINT_N_PARAMS_AT];
    const size_t n = cfg.n_params;
    if (len < CONFIGURE_JOINT_BYTES(n, 0u)) {
        return error_of(ERR_LENGTH, (uint16_t)frame_bytes);
    }
    cfg.dim = p[CONFIGURE_JOINT_DIM_AT(n)];
    const size_t dim = cfg.dim;
    if (len != CONFIGURE_JOINT_BYTES(n, dim)) {
        return error_of(ERR_LENGTH, (uint16_t)frame_bytes);
    }
    memset(&cfg.params, 0, sizeof cfg.params);
    for (size_t i = 0; i < n && i < SESSION_MAX_PARAMS; i++) {
        cfg.params[i] = wire_get_f64(p + CONFIGURE_JOINT_PARAMS_AT + CONFIGURE_JOINT_PARAMS_BYTES * i);
    }
    for (size_t c = 0; c < dim && c < UX_MAX_DIM; c++) {
        const uint8_t *prior = p + CONFIGURE_JOINT_PRIORS_AT(n) + CONFIGURE_JOINT_PRIORS_BYTES * c;
        cfg.prior_kind[c] = prior[CONFIGURE_JOINT_PRIORS_KIND_AT];
        cfg.prior_a[c] = wire_get_f64(prior + CONFIGURE_JOINT_PRIORS_A_AT);
        cfg.prior_b[c] = wire_get_f64(prior + CONFIGURE_JOINT_PRIORS_B_AT);
    }
    uint8_t count = 0;
    uint32_t ws_bytes = 0;
    return configured(session_configure_joint(&cfg, &count, &ws_bytes), count, ws_bytes, a);
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
    if (len != STEP_BYTES((size_t)in.n_evidence)) {
        return error_of(ERR_LENGTH, (uint16_t)frame_bytes);
    }
    message_result r;
    if (!configured_for(SESSION_SCALAR, &r) ||
        !check_step(flags, &in, STEP_FIELD_FLAGS, STEP_FIELD_U, STEP_FIELD_M, STEP_FIELD_N_EVIDENCE, &r)) {
        return r;
    }
    double *z = evidence, *w = evidence + PROTO_MAX_EVIDENCE;
    for (unsigned j = 0; j < in.n_evidence; j++) {
        const uint8_t *e = p + STEP_EVIDENCE_AT + STEP_EVIDENCE_BYTES * j;
        if (read_reals(e + STEP_EVIDENCE_Z_AT, 1u, false, &z[j]) >= 0) {
            return error_of(ERR_EVIDENCE, (uint16_t)STEP_FIELD_EVIDENCE_Z(j));
        }
        if (read_reals(e + STEP_EVIDENCE_OMEGA_AT, 1u, true, &w[j]) >= 0) {
            return error_of(ERR_EVIDENCE, (uint16_t)STEP_FIELD_EVIDENCE_OMEGA(j));
        }
    }
    in.z = z;
    in.omega = w;

    const session_posterior *post = &posterior.scalar;
    session_error e = session_step(&in, &posterior.scalar);
    if (e.code != 0u) {
        return error_of(e.code, e.detail);
    }
    wire_put_u32(a + POSTERIOR_K_AT, in.k);
    a[POSTERIOR_STATUS_AT] = post->status;
    wire_put_f64(a + POSTERIOR_MEAN_AT, post->mean);
    wire_put_f64(a + POSTERIOR_VAR_AT, post->var);
    wire_put_f64(a + POSTERIOR_LOG_EVIDENCE_AT, post->log_evidence);
    wire_put_u64(a + POSTERIOR_CYCLES_PREDICT_AT, post->cycles_predict);
    wire_put_u64(a + POSTERIOR_CYCLES_UPDATE_AT, post->cycles_update);
    a[POSTERIOR_COUNT_AT] = post->count;
    for (unsigned i = 0; i < post->count; i++) {
        uint8_t *atom = a + POSTERIOR_ATOMS_AT + POSTERIOR_ATOMS_BYTES * i;
        wire_put_f64(atom + POSTERIOR_ATOMS_X_AT, post->x[i]);
        wire_put_f64(atom + POSTERIOR_ATOMS_W_AT, post->w[i]);
    }
    return answer_of(MSG_POSTERIOR, POSTERIOR_BYTES((size_t)post->count));
}

static message_result step_joint(const uint8_t *p, size_t len, size_t frame_bytes, uint8_t *a)
{
    if (len < STEP_JOINT_MIN_BYTES) {
        return error_of(ERR_LENGTH, (uint16_t)frame_bytes);
    }
    session_step_in in;
    in.k = wire_get_u32(p + STEP_JOINT_K_AT);
    uint8_t flags = p[STEP_JOINT_FLAGS_AT];
    in.u = wire_get_f64(p + STEP_JOINT_U_AT);
    in.m = wire_get_u16(p + STEP_JOINT_M_AT);
    in.n_evidence = p[STEP_JOINT_N_EVIDENCE_AT];
    const size_t n = in.n_evidence, dim_obs = p[STEP_JOINT_DIM_OBS_AT];
    if (len != STEP_JOINT_BYTES(n, dim_obs)) {
        return error_of(ERR_LENGTH, (uint16_t)frame_bytes);
    }
    message_result r;
    if (!configured_for(SESSION_JOINT, &r) ||
        !check_step(flags, &in, STEP_JOINT_FIELD_FLAGS, STEP_JOINT_FIELD_U, STEP_JOINT_FIELD_M,
                    STEP_JOINT_FIELD_N_EVIDENCE, &r)) {
        return r;
    }
    if (dim_obs != session_joint_dim_obs()) {
        return error_of(ERR_EVIDENCE, STEP_JOINT_FIELD_DIM_OBS);
    }
    if (n * (dim_obs + 1u) > EVIDENCE_REALS) {
        return error_of(ERR_EVIDENCE, STEP_JOINT_FIELD_N_EVIDENCE);
    }
    double *w = evidence, *z = evidence + n;
    long bad = read_reals(p + STEP_JOINT_OMEGA_AT, n, true, w);
    if (bad >= 0) {
        return error_of(ERR_EVIDENCE, (uint16_t)STEP_JOINT_FIELD_OMEGA((unsigned)bad));
    }
    bad = read_reals(p + STEP_JOINT_Z_AT(n), n * dim_obs, false, z);
    if (bad >= 0) {
        return error_of(ERR_EVIDENCE, (uint16_t)STEP_JOINT_FIELD_Z(n, (unsigned)bad));
    }
    in.z = z;
    in.omega = w;

    const session_joint_posterior *post = &posterior.joint;
    session_error e = session_step_joint(&in, &posterior.joint);
    if (e.code != 0u) {
        return error_of(e.code, e.detail);
    }
    const size_t dim = post->dim, count = post->atoms->count;
    wire_put_u32(a + POSTERIOR_JOINT_K_AT, in.k);
    a[POSTERIOR_JOINT_STATUS_AT] = post->status;
    wire_put_f64(a + POSTERIOR_JOINT_LOG_EVIDENCE_AT, post->log_evidence);
    wire_put_u64(a + POSTERIOR_JOINT_CYCLES_PREDICT_AT, post->cycles_predict);
    wire_put_u64(a + POSTERIOR_JOINT_CYCLES_UPDATE_AT, post->cycles_update);
    a[POSTERIOR_JOINT_DIM_AT] = (uint8_t)dim;
    for (size_t c = 0; c < dim; c++) {
        wire_put_f64(a + POSTERIOR_JOINT_MEAN_AT + POSTERIOR_JOINT_MEAN_BYTES * c, post->mean[c]);
    }
    for (size_t c = 0; c < dim * dim; c++) {
        wire_put_f64(a + POSTERIOR_JOINT_COV_AT(dim) + POSTERIOR_JOINT_COV_BYTES * c, post->cov[c]);
    }
    a[POSTERIOR_JOINT_COUNT_AT(dim)] = (uint8_t)count;
    for (size_t i = 0; i < count; i++) {
        wire_put_f64(a + POSTERIOR_JOINT_W_AT(dim) + POSTERIOR_JOINT_W_BYTES * i, (double)post->atoms->w[i]);
    }
    for (size_t c = 0; c < count * dim; c++) {
        wire_put_f64(a + POSTERIOR_JOINT_X_AT(dim, count) + POSTERIOR_JOINT_X_BYTES * c, (double)post->atoms->x[c]);
    }
    return answer_of(MSG_POSTERIOR_JOINT, POSTERIOR_JOINT_BYTES(dim, count));
}

message_result messages_run(uint8_t type, const uint8_t *payload, size_t length, size_t frame_bytes,
                            uint8_t *answer)
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
    case MSG_CONFIGURE_JOINT:
        return configure_joint(payload, length, frame_bytes, answer);
    case MSG_STEP_JOINT:
        return step_joint(payload, length, frame_bytes, answer);
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
