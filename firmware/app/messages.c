/*
 * messages.c — HELLO, CONFIGURE, STEP and RESET (docs/protocol.md, "Messages").
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
#include "wire.h"

#ifndef APP_FW_VERSION
#define APP_FW_VERSION "unversioned"
#endif

/* STEP field indices, the detail of ERR_EVIDENCE (each evidence pair is two fields: z then ω). */
#define FIELD_STEP_FLAGS 1u
#define FIELD_STEP_U 2u
#define FIELD_STEP_M 3u
#define FIELD_STEP_N_EVIDENCE 4u
#define FIELD_STEP_EVIDENCE0 5u

static double evidence_z[STEP_MAX_EVIDENCE];
static double evidence_w[STEP_MAX_EVIDENCE];
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

void messages_init(void)
{
    session_init();
}

bool messages_known(uint8_t type)
{
    return type == MSG_HELLO || type == MSG_CONFIGURE || type == MSG_STEP || type == MSG_RESET;
}

static size_t put_string(uint8_t *p, const char *s)
{
    size_t n = strlen(s);
    if (n > 255u) {
        n = 255u;
    }
    p[0] = (uint8_t)n;
    memcpy(p + 1, s, n);
    return 1u + n;
}

static message_result hello(uint8_t *a)
{
    size_t n = 0;
    wire_put_u16(a, (uint16_t)PROTO_VERSION);
    a[2] = (uint8_t)session_max_eta();
    a[3] = (uint8_t)UX_REAL_BYTES;
    a[4] = board_cycle_source;
    n = 5;
    n += put_string(a + n, board_name);
    n += put_string(a + n, APP_FW_VERSION);
    a[n++] = session_systems();
    return answer_of(MSG_INFO, n);
}

static message_result configure(const uint8_t *p, size_t len, size_t frame_bytes, uint8_t *a)
{
    if (len < CONFIGURE_FIXED_BYTES) {
        return error_of(ERR_LENGTH, (uint16_t)frame_bytes);
    }
    session_config cfg;
    cfg.system = p[0];
    cfg.eta = p[1];
    cfg.mode = p[2];
    cfg.likelihood = p[3];
    cfg.n_params = p[4];
    if (len != CONFIGURE_FIXED_BYTES + 8u * (size_t)cfg.n_params) {
        return error_of(ERR_LENGTH, (uint16_t)frame_bytes);
    }
    memset(cfg.params, 0, sizeof cfg.params);
    const uint8_t *q = p + 5;
    for (unsigned i = 0; i < cfg.n_params; i++, q += 8) {
        if (i < SESSION_MAX_PARAMS) {
            cfg.params[i] = wire_get_f64(q);
        }
    }
    cfg.prior_kind = q[0];
    cfg.prior_a = wire_get_f64(q + 1);
    cfg.prior_b = wire_get_f64(q + 9);

    uint8_t count = 0;
    uint32_t ws_bytes = 0;
    session_error e = session_configure(&cfg, &count, &ws_bytes);
    if (e.code != 0u) {
        return error_of(e.code, e.detail);
    }
    a[0] = count;
    wire_put_u32(a + 1, ws_bytes);
    return answer_of(MSG_CONFIGURED, 5u);
}

static message_result step(const uint8_t *p, size_t len, size_t frame_bytes, uint8_t *a)
{
    if (len < STEP_FIXED_BYTES) {
        return error_of(ERR_LENGTH, (uint16_t)frame_bytes);
    }
    session_step_in in;
    in.k = wire_get_u32(p);
    uint8_t flags = p[4];
    in.u = wire_get_f64(p + 5);
    in.m = wire_get_u16(p + 13);
    in.n_evidence = p[15];
    if (len != STEP_FIXED_BYTES + STEP_EVIDENCE_BYTES * (size_t)in.n_evidence) {
        return error_of(ERR_LENGTH, (uint16_t)frame_bytes);
    }
    /* Not configured outranks bad fields: the host's mistake is the missing CONFIGURE. */
    if (!session_configured()) {
        return error_of(ERR_NOT_CONFIGURED, 0u);
    }
    if ((flags & (uint8_t)~STEP_FLAG_PREDICT) != 0u) {
        return error_of(ERR_EVIDENCE, FIELD_STEP_FLAGS);
    }
    in.predict = (flags & STEP_FLAG_PREDICT) != 0u;
    if (!isfinite(in.u)) {
        return error_of(ERR_EVIDENCE, FIELD_STEP_U);
    }
    if (in.m == 0u) {
        return error_of(ERR_EVIDENCE, FIELD_STEP_M);
    }
    if (in.n_evidence < 1u || in.n_evidence > STEP_MAX_EVIDENCE) {
        return error_of(ERR_EVIDENCE, FIELD_STEP_N_EVIDENCE);
    }
    const uint8_t *q = p + STEP_FIXED_BYTES;
    for (unsigned j = 0; j < in.n_evidence; j++, q += STEP_EVIDENCE_BYTES) {
        evidence_z[j] = wire_get_f64(q);
        evidence_w[j] = wire_get_f64(q + 8);
        if (!isfinite(evidence_z[j])) {
            return error_of(ERR_EVIDENCE, (uint16_t)(FIELD_STEP_EVIDENCE0 + 2u * j));
        }
        if (!isfinite(evidence_w[j]) || !(evidence_w[j] > 0.0)) {
            return error_of(ERR_EVIDENCE, (uint16_t)(FIELD_STEP_EVIDENCE0 + 2u * j + 1u));
        }
    }
    in.z = evidence_z;
    in.omega = evidence_w;

    session_error e = session_step(&in, &posterior);
    if (e.code != 0u) {
        return error_of(e.code, e.detail);
    }
    wire_put_u32(a, in.k);
    a[4] = posterior.status;
    wire_put_f64(a + 5, posterior.mean);
    wire_put_f64(a + 13, posterior.var);
    wire_put_u64(a + 21, posterior.cycles_predict);
    wire_put_u64(a + 29, posterior.cycles_update);
    a[37] = posterior.count;
    uint8_t *o = a + POSTERIOR_FIXED_BYTES;
    for (unsigned i = 0; i < posterior.count; i++, o += POSTERIOR_ATOM_BYTES) {
        wire_put_f64(o, posterior.x[i]);
        wire_put_f64(o + 8, posterior.w[i]);
    }
    return answer_of(MSG_POSTERIOR, POSTERIOR_FIXED_BYTES + POSTERIOR_ATOM_BYTES * (size_t)posterior.count);
}

message_result messages_run(uint8_t type, const uint8_t *payload, size_t length, size_t frame_bytes,
                            uint8_t *answer)
{
    switch (type) {
    case MSG_HELLO:
        if (length != 0u) {
            return error_of(ERR_LENGTH, (uint16_t)frame_bytes);
        }
        return hello(answer);
    case MSG_CONFIGURE:
        return configure(payload, length, frame_bytes, answer);
    case MSG_STEP:
        return step(payload, length, frame_bytes, answer);
    case MSG_RESET:
        if (length != 0u) {
            return error_of(ERR_LENGTH, (uint16_t)frame_bytes);
        }
        session_reset();
        return answer_of(MSG_RESET_DONE, 0u);
    default:
        return error_of(ERR_TYPE, type);
    }
}
