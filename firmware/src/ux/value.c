/*
 * Values: sources, validity, and the constructors that start from atoms (point, samples, mixture).
 * Every weighted atom set becomes a value the same way: zero weights dropped, TTR(log2 eta), normalise.
 */
#include "internal.h"
#include "ux/ttr.h"
#include "ux/value.h"

#include <string.h>

void ux_sources_init(ux_sources *src)
{
    if (src != NULL)
        src->next = 0;
}

uint64_t ux_sources_fresh(ux_sources *src)
{
    uint64_t bit = (uint64_t)1 << (src->next & 63u);
    src->next++;
    return bit;
}

ux_status ux_value_check(const ux_value *v)
{
    uint32_t i;
    if (v == NULL || v->count < 1 || v->count > UX_MAX_ETA || ux_log2_eta(v->eta) < 0 || v->count > v->eta)
        return UX_ERR_ARG;
    for (i = 0; i < v->count; ++i) {
        if (!ux_finite(v->x[i]) || !ux_finite(v->w[i]) || !(v->w[i] > 0))
            return UX_ERR_DOMAIN;
        if (i > 0 && !(v->x[i] > v->x[i - 1]))
            return UX_ERR_DOMAIN;
    }
    return UX_OK;
}

/* eta = 0 → default; anything else must be a power of two ≤ UX_MAX_ETA. Returns n or −1. */
static int eta_or_default(unsigned *eta)
{
    if (*eta == 0)
        *eta = UX_DEFAULT_ETA;
    return ux_log2_eta(*eta);
}

ux_status ux_point(ux_value *out, ux_real c, unsigned eta, ux_sources *src)
{
    if (out == NULL || src == NULL || eta_or_default(&eta) < 0)
        return UX_ERR_ARG;
    if (!ux_finite(c))
        return UX_ERR_DOMAIN;
    out->count = 1;
    out->eta = eta;
    out->sources = ux_sources_fresh(src);
    out->x[0] = c;
    out->w[0] = 1;
    return UX_OK;
}

void ux_value_set(ux_value *out, const ux_real *x, ux_real *w, size_t count, unsigned eta, uint64_t sources)
{
    ux_normalise(w, count);
    memcpy(out->x, x, count * sizeof(ux_real));
    memcpy(out->w, w, count * sizeof(ux_real));
    out->count = (uint32_t)count;
    out->eta = eta;
    out->sources = sources;
}

void ux_value_copy(ux_value *out, const ux_value *in)
{
    out->count = in->count;
    out->eta = in->eta;
    out->sources = in->sources;
    memcpy(out->x, in->x, in->count * sizeof(ux_real));
    memcpy(out->w, in->w, in->count * sizeof(ux_real));
}

ux_status ux_independent_copy(ux_value *out, const ux_value *in, ux_sources *src)
{
    if (out == NULL || in == NULL || src == NULL)
        return UX_ERR_ARG;
    if (out != in)
        memcpy(out, in, sizeof *out);
    out->sources = ux_sources_fresh(src);
    return UX_OK;
}

ux_status ux_reduce(ux_value *out, ux_real *x, ux_real *w, size_t count, unsigned eta, uint64_t sources,
                    ux_workspace *ws)
{
    int n = ux_log2_eta(eta);
    ux_status st;
    if (out == NULL || x == NULL || w == NULL || n < 0)
        return UX_ERR_ARG;
    if (count == 0)
        return UX_ERR_DOMAIN;
    st = ux_compact(x, w, &count);
    if (st != UX_OK)
        return st;
    return ux_reduce_valid(out, x, w, count, eta, sources, ws);
}

ux_status ux_reduce_valid(ux_value *out, ux_real *x, ux_real *w, size_t count, unsigned eta, uint64_t sources,
                          ux_workspace *ws)
{
    int n = ux_log2_eta(eta);
    ux_status st;
    ux_arena arena;
    uint8_t *cell;
    if (count == 0) /* every weight was zero */
        return UX_ERR_DOMAIN;
    st = ux_arena_open(&arena, ws);
    if (st != UX_OK)
        return st;
    cell = ux_arena_bytes(&arena, count);
    if (cell == NULL)
        return UX_ERR_WORKSPACE;
    ux_value_set(out, x, w, ux_ttr(x, w, count, (unsigned)n, cell), eta, sources);
    return UX_OK;
}

ux_status ux_from_samples(ux_value *out, const ux_real *x, const ux_real *w, size_t count, unsigned eta,
                          ux_sources *src, ux_workspace *ws)
{
    ux_arena arena;
    ux_real *cx, *cw;
    ux_workspace rest;
    ux_status st;
    size_t i;

    if (out == NULL || x == NULL || src == NULL || eta_or_default(&eta) < 0)
        return UX_ERR_ARG;
    if (count == 0)
        return UX_ERR_DOMAIN;
    st = ux_arena_open(&arena, ws);
    if (st != UX_OK)
        return st;
    cx = ux_arena_reals(&arena, count);
    cw = ux_arena_reals(&arena, count);
    if (cx == NULL || cw == NULL)
        return UX_ERR_WORKSPACE;
    for (i = 0; i < count; ++i) {
        cx[i] = x[i];
        cw[i] = w != NULL ? w[i] : 1;
    }
    rest = ux_arena_rest(&arena);
    st = ux_reduce(out, cx, cw, count, eta, 0, &rest);
    if (st == UX_OK)
        out->sources = ux_sources_fresh(src);
    return st;
}

ux_status ux_mixture(ux_value *out, const ux_value *a, const ux_value *b, ux_real p, unsigned eta, ux_sources *src)
{
    ux_real mx[2 * UX_MAX_ETA], mw[2 * UX_MAX_ETA];
    uint8_t cell[2 * UX_MAX_ETA];
    ux_real q;
    size_t i, k = 0, r;
    int n;

    if (out == NULL || a == NULL || b == NULL || src == NULL)
        return UX_ERR_ARG;
    if (ux_value_check(a) != UX_OK || ux_value_check(b) != UX_OK)
        return UX_ERR_ARG;
    if (!(p > 0 && p < 1))
        return UX_ERR_DOMAIN;
    if (eta == 0)
        eta = a->eta > b->eta ? a->eta : b->eta;
    n = ux_log2_eta(eta);
    if (n < 0)
        return UX_ERR_ARG;
    q = UX_R(1.0) - p;
    /* a's atoms, then b's; weights that underflowed to zero leave. */
    for (i = 0; i < a->count + b->count; ++i) {
        int from_a = i < a->count;
        mx[k] = from_a ? a->x[i] : b->x[i - a->count];
        mw[k] = from_a ? p * a->w[i] : q * b->w[i - a->count];
        if (mw[k] != 0)
            ++k;
    }
    if (k == 0) /* both weights underflowed: nothing left to mix */
        return UX_ERR_DOMAIN;
    r = ux_ttr(mx, mw, k, (unsigned)n, cell);
    ux_value_set(out, mx, mw, r, eta, ux_sources_fresh(src));
    return UX_OK;
}
