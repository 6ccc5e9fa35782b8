/*
 * The model-propagation benchmark's native side (uxbench/mc.h): the ux propagation and plain Monte
 * Carlo over the same C model functions, their repeat loops, and W1 against a tabulated law.
 */
#include <math.h>
#include <string.h>

#include "ux/lift.h"
#include "ux/stats.h"
#include "uxbench/mc.h"

/* ---- the model functions ------------------------------------------------------------------------ */

/* What every bound function receives: the registry's ctx first, so the models' own functions read it
 * unchanged through a ux_model_ctx pointer, then what the benchmark's own wrapper needs. */
typedef struct {
    ux_model_ctx model;
    ux_kernel_fn kernel;
} prop_ctx;

typedef struct {
    ux_fn f;
    unsigned arity;
    uxb_lift_form form; /* how its last argument enters f, hence the lift used */
    ux_real params[UX_MODEL_MAX_PARAMS];
    prop_ctx ctx;
} bound;

/* The Beer–Lambert location exp(−x)(1 + m) is the cubic system's own kernel; h is added to it. */
static ux_real bl_observation(const ux_real *a, const void *ctx)
{
    const prop_ctx *c = (const prop_ctx *)ctx;
    ux_real g, scale;
    c->kernel(a, ctx, &g, &scale);
    return g + a[2];
}

/* The chain's links: the location exp(−x)(1 + m) from (x, m), then that plus h. */
static ux_real bl_location(const ux_real *a, const void *ctx)
{
    const prop_ctx *c = (const prop_ctx *)ctx;
    ux_real g, scale;
    c->kernel(a, ctx, &g, &scale);
    return g;
}

static ux_real sum_of_two(const ux_real *a, const void *ctx)
{
    (void)ctx;
    return a[0] + a[1];
}

/* Fills b (which must stay where it is: ctx points into it). UX_ERR_ARG for an unknown model. */
static ux_status bind(const uxb_prop *p, bound *b)
{
    static const unsigned system_of[UXB_PROP_MODELS] = {1, 1, 2, 2, 3, 3};
    const ux_model *m;

    if (p == NULL || p->model >= UXB_PROP_MODELS)
        return UX_ERR_ARG;
    m = ux_model_find(system_of[p->model]);
    if (m == NULL)
        return UX_ERR_ARG;
    switch (p->model) {
        case UXB_PROP_SV_TRANSITION:
        case UXB_PROP_GSS_TRANSITION:
        case UXB_PROP_CUBIC_TRANSITION:
            b->f = m->code->transition;
            b->arity = 2;
            b->form = m->code->additive_noise ? UXB_LIFT_ADDITIVE : UXB_LIFT_EVERY_POINT; /* the model's declaration */
            break;
        case UXB_PROP_SV_OBSERVATION: /* ε·exp(x/2): ε multiplies last */
        case UXB_PROP_GSS_OBSERVATION: /* x²/20 + ν: ν added last */
            b->f = m->code->sampler;
            b->arity = 2;
            b->form = p->model == UXB_PROP_GSS_OBSERVATION ? UXB_LIFT_ADDITIVE : UXB_LIFT_MULTIPLICATIVE;
            break;
        default: /* UXB_PROP_BL_OBSERVATION: g + h, h added last */
            if (m->code->kernel == NULL)
                return UX_ERR_ARG;
            b->f = bl_observation;
            b->arity = 3;
            b->form = UXB_LIFT_ADDITIVE;
            break;
    }
    memcpy(b->params, p->params, sizeof b->params);
    ux_model_context(m, b->params, p->k, 0, &b->ctx.model);
    b->ctx.kernel = m->code->kernel;
    return UX_OK;
}

unsigned uxb_prop_arity(const uxb_prop *p)
{
    bound b;
    return bind(p, &b) == UX_OK ? b.arity : 0u;
}

/* ---- the ux propagation ------------------------------------------------------------------------- */

size_t uxb_prop_ux_workspace_bytes(const uxb_prop *p, unsigned eta)
{
    size_t points = 1;
    unsigned i, k = uxb_prop_arity(p);
    for (i = 0; i < k; ++i)
        points *= eta;
    return UX_LIFT_WORKSPACE_BYTES(points);
}

uxb_lift_form uxb_prop_lift_form(const uxb_prop *p)
{
    bound b;
    return bind(p, &b) == UX_OK ? b.form : UXB_LIFT_EVERY_POINT;
}

/* How a propagation lifts: by the function's form, at every point, or (the exponential observation) as a
 * chain of two-input lifts. */
typedef enum { BY_FORM = 0, EVERY_POINT = 1, CHAINED = 2 } lift_plan;

/* The chain: g = exp(−x)(1 + m) lifted from (x, m) and reduced to η, then g + h lifted additively. */
static ux_status chained(const bound *b, const ux_value *in, unsigned eta, ux_value *out, ux_workspace *ws)
{
    ux_value g;
    const ux_value *first[2], *second[2];
    ux_status st;
    first[0] = &in[0];
    first[1] = &in[1];
    st = ux_lift(&g, bl_location, &b->ctx, first, 2, eta, ws);
    if (st != UX_OK)
        return st;
    second[0] = &g;
    second[1] = &in[2];
    return ux_lift_additive(out, sum_of_two, NULL, second, 2, eta, ws);
}

/* The ux propagation, the function lifted as `plan` says. */
static ux_status propagate(const uxb_prop *p, unsigned eta, ux_value *out, ux_workspace ws, lift_plan plan)
{
    bound b;
    ux_sources src;
    ux_value in[UX_MAX_ARGS];
    const ux_value *ptr[UX_MAX_ARGS];
    unsigned i;
    ux_status st = bind(p, &b);

    if (st != UX_OK)
        return st;
    if (out == NULL || ux_log2_eta(eta) < 0 || (plan == CHAINED && p->model != UXB_PROP_BL_OBSERVATION))
        return UX_ERR_ARG;
    /* A fresh counter per propagation: the inputs are always sources 0, 1, 2 however many runs. */
    ux_sources_init(&src);
    for (i = 0; i < b.arity; ++i) {
        st = ux_quantize(&p->in[i], eta, &in[i], &src);
        if (st != UX_OK)
            return st;
        ptr[i] = &in[i];
    }
    if (plan == CHAINED)
        return chained(&b, in, eta, out, &ws);
    if (plan == EVERY_POINT || b.form == UXB_LIFT_EVERY_POINT)
        return ux_lift(out, b.f, &b.ctx, ptr, b.arity, eta, &ws);
    return b.form == UXB_LIFT_ADDITIVE ? ux_lift_additive(out, b.f, &b.ctx, ptr, b.arity, eta, &ws)
                                       : ux_lift_multiplicative(out, b.f, &b.ctx, ptr, b.arity, eta, &ws);
}

ux_status uxb_prop_ux(const uxb_prop *p, unsigned eta, ux_value *out, ux_workspace ws)
{
    return propagate(p, eta, out, ws, BY_FORM);
}

ux_status uxb_prop_ux_every_point(const uxb_prop *p, unsigned eta, ux_value *out, ux_workspace ws)
{
    return propagate(p, eta, out, ws, EVERY_POINT);
}

ux_status uxb_prop_ux_chained(const uxb_prop *p, unsigned eta, ux_value *out, ux_workspace ws)
{
    return propagate(p, eta, out, ws, CHAINED);
}

static ux_status repeat(const uxb_prop *p, unsigned eta, unsigned reps, ux_value *out, ux_workspace ws, lift_plan plan)
{
    ux_status st = UX_ERR_ARG;
    unsigned r;
    for (r = 0; r < reps; ++r) {
        st = propagate(p, eta, out, ws, plan);
        if (st != UX_OK)
            return st;
    }
    return st;
}

ux_status uxb_prop_ux_repeat(const uxb_prop *p, unsigned eta, unsigned reps, ux_value *out, ux_workspace ws)
{
    return repeat(p, eta, reps, out, ws, BY_FORM);
}

ux_status uxb_prop_ux_chained_repeat(const uxb_prop *p, unsigned eta, unsigned reps, ux_value *out, ux_workspace ws)
{
    return repeat(p, eta, reps, out, ws, CHAINED);
}

/* ---- Monte Carlo -------------------------------------------------------------------------------- */

/*
 * Gaussian draws use the ziggurat of Marsaglia & Tsang in Doornik's form (ZIGNOR: 128 blocks, one
 * 64-bit draw gives both the block and the abscissa): about one uniform and no logarithm per normal,
 * which keeps the Monte Carlo baseline as fast as a careful C program would be.
 */
#define ZIG_BLOCKS 128
#define ZIG_R 3.442619855899 /* start of the tail */
#define ZIG_V 9.91256303526217e-3 /* area of each block */

typedef struct {
    double x[ZIG_BLOCKS + 1];
    double ratio[ZIG_BLOCKS];
} ziggurat;

static void ziggurat_init(ziggurat *z)
{
    double f = exp(-0.5 * ZIG_R * ZIG_R);
    int i;
    z->x[0] = ZIG_V / f; /* the bottom block: rectangle plus tail */
    z->x[1] = ZIG_R;
    z->x[ZIG_BLOCKS] = 0;
    for (i = 2; i < ZIG_BLOCKS; ++i) {
        z->x[i] = sqrt(-2.0 * log(ZIG_V / z->x[i - 1] + f));
        f = exp(-0.5 * z->x[i] * z->x[i]);
    }
    for (i = 0; i < ZIG_BLOCKS; ++i)
        z->ratio[i] = z->x[i + 1] / z->x[i];
}

typedef struct {
    bound b;
    ux_law in[UX_MAX_ARGS];
    ux_rng rng;
    ziggurat zig;
} stream;

static ux_status stream_init(stream *s, const uxb_prop *p, uint64_t seed)
{
    unsigned i;
    ux_status st = bind(p, &s->b);
    if (st != UX_OK)
        return st;
    for (i = 0; i < s->b.arity; ++i) {
        const ux_law *law = &p->in[i];
        if (law->kind != UX_LAW_GAUSSIAN && law->kind != UX_LAW_LAPLACE && law->kind != UX_LAW_UNIFORM)
            return UX_ERR_ARG;
        st = ux_law_check(law);
        if (st != UX_OK)
            return st;
        s->in[i] = *law;
    }
    ux_rng_seed(&s->rng, seed);
    ziggurat_init(&s->zig);
    return UX_OK;
}

/* Uniform in (0, 1), never 0 or 1: the tails below take logarithms of it. */
static double open_uniform(ux_rng *rng) { return ((double)(ux_rng_next(rng) >> 11) + 0.5) * 0x1.0p-53; }

static double normal_tail(ux_rng *rng, int negative)
{
    double x, y;
    do {
        x = log(open_uniform(rng)) / ZIG_R;
        y = log(open_uniform(rng));
    } while (-2.0 * y < x * x);
    return negative ? x - ZIG_R : ZIG_R - x;
}

static double standard_normal(stream *s)
{
    const ziggurat *z = &s->zig;
    for (;;) {
        uint64_t r = ux_rng_next(&s->rng);
        double u = 2.0 * ((double)(r >> 11) * 0x1.0p-53) - 1.0; /* top 53 bits: the abscissa */
        unsigned i = (unsigned)(r & (ZIG_BLOCKS - 1)); /* low 7 bits: the block */
        double x, f0, f1;
        if (fabs(u) < z->ratio[i])
            return u * z->x[i];
        if (i == 0)
            return normal_tail(&s->rng, u < 0);
        x = u * z->x[i];
        f0 = exp(-0.5 * (z->x[i] * z->x[i] - x * x));
        f1 = exp(-0.5 * (z->x[i + 1] * z->x[i + 1] - x * x));
        if (f1 + ux_rng_uniform(&s->rng) * (f0 - f1) < 1.0)
            return x;
    }
}

static double draw(stream *s, unsigned i)
{
    const ux_law *law = &s->in[i];
    double u;

    switch (law->kind) {
        case UX_LAW_GAUSSIAN:
            return law->a + law->b * standard_normal(s);
        case UX_LAW_LAPLACE:
            u = open_uniform(&s->rng);
            return u < 0.5 ? law->a + law->b * log(2.0 * u) : law->a - law->b * log(2.0 * (1.0 - u));
        default: /* UX_LAW_UNIFORM, checked by stream_init */
            return law->a + (law->b - law->a) * ux_rng_uniform(&s->rng);
    }
}

static double next_output(stream *s)
{
    ux_real args[UX_MAX_ARGS];
    unsigned i;
    for (i = 0; i < s->b.arity; ++i)
        args[i] = (ux_real)draw(s, i);
    return (double)s->b.f(args, &s->b.ctx);
}

ux_status uxb_prop_mc(const uxb_prop *p, uint64_t seed, ux_real *out, size_t n)
{
    stream s;
    size_t i;
    ux_status st;

    if (out == NULL && n > 0)
        return UX_ERR_ARG;
    st = stream_init(&s, p, seed);
    if (st != UX_OK)
        return st;
    for (i = 0; i < n; ++i)
        out[i] = (ux_real)next_output(&s);
    return UX_OK;
}

/* ---- W1 of a step cdf against a tabulated law ----------------------------------------------------- */

/* The largest j ≤ n − 2 with v[j] ≤ x (0 when x < v[0]), looked for from `hint` onwards first: the
 * callers' queries mostly increase, so a short walk usually finds it. */
static size_t locate(const double *v, size_t n, double x, size_t hint)
{
    size_t lo, hi, step;
    if (hint > n - 2)
        hint = n - 2;
    if (!(v[hint] <= x)) {
        lo = 0;
        hi = hint; /* v[hi] > x */
        if (!(v[0] <= x))
            return 0;
    } else {
        lo = hint;
        for (step = 1; lo + step < n - 1 && v[lo + step] <= x; step *= 2)
            lo += step;
        hi = lo + step < n - 1 ? lo + step : n - 1;
        if (v[hi] <= x)
            return n - 2;
    }
    while (hi - lo > 1) { /* v[lo] ≤ x < v[hi] */
        size_t mid = lo + (hi - lo) / 2;
        if (v[mid] <= x)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

/* A(x) = ∫_{−∞}^{x} F, by the cubic Hermite interpolant of the table. */
static double integrated_cdf(const uxb_law_table *t, double x, size_t *hint)
{
    const size_t n = t->n;
    size_t j;
    double h, s, s2, s3;

    if (x <= t->y[0]) {
        double a = t->A[0] + t->F[0] * (x - t->y[0]);
        return a > 0 ? a : 0.0;
    }
    if (x >= t->y[n - 1])
        return t->A[n - 1] + (x - t->y[n - 1]);
    j = locate(t->y, n, x, *hint);
    *hint = j;
    h = t->y[j + 1] - t->y[j];
    s = (x - t->y[j]) / h;
    s2 = s * s;
    s3 = s2 * s;
    return (2 * s3 - 3 * s2 + 1) * t->A[j] + (s3 - 2 * s2 + s) * h * t->F[j] + (-2 * s3 + 3 * s2) * t->A[j + 1] +
           (s3 - s2) * h * t->F[j + 1];
}

/* F⁻¹(c) by linear interpolation between nodes: it only places the crossing inside a step, where an
 * error δ changes that step's ∫|c − F| by f·δ², so a linear inverse is ample. */
static double inverse_cdf(const uxb_law_table *t, double c, size_t *hint)
{
    const size_t n = t->n;
    size_t j;
    double dF;

    if (c <= t->F[0])
        return t->y[0];
    if (c >= t->F[n - 1])
        return t->y[n - 1];
    j = locate(t->F, n, c, *hint);
    *hint = j;
    dF = t->F[j + 1] - t->F[j];
    return dF > 0 ? t->y[j] + (c - t->F[j]) / dF * (t->y[j + 1] - t->y[j]) : t->y[j];
}

/* Running sum of ∫|F_step − F| over the steps, fed position by position in increasing order. */
typedef struct {
    const uxb_law_table *t;
    size_t hint_a, hint_q, hint_s;
    double sum, prev_x, prev_c, prev_A;
    int started;
} w1_acc;

static void acc_init(w1_acc *a, const uxb_law_table *t)
{
    memset(a, 0, sizeof *a);
    a->t = t;
}

/* Position x with cumulative weight c after it. */
static void acc_push(w1_acc *a, double x, double c)
{
    double Ax = integrated_cdf(a->t, x, &a->hint_a);
    if (!a->started) {
        a->sum = Ax; /* ∫_{−∞}^{x₀} F */
        a->started = 1;
    } else {
        double lo = a->prev_x, hi = x, q = inverse_cdf(a->t, a->prev_c, &a->hint_q);
        double ys = q < lo ? lo : (q > hi ? hi : q);
        double As = ys == lo ? a->prev_A : (ys == hi ? Ax : integrated_cdf(a->t, ys, &a->hint_s));
        a->sum += a->prev_c * (2 * ys - lo - hi) + a->prev_A + Ax - 2 * As;
    }
    a->prev_x = x;
    a->prev_c = c;
    a->prev_A = Ax;
}

/* The right tail ∫_{x_last}^{∞} (1 − F) = mean − x_last + A(x_last), with the table's mean. */
static double acc_finish(const w1_acc *a)
{
    const uxb_law_table *t = a->t;
    double mean = t->y[t->n - 1] - t->A[t->n - 1];
    return a->sum + (mean - a->prev_x + a->prev_A);
}

static int table_ok(const uxb_law_table *t)
{
    return t != NULL && t->n >= 2 && t->y != NULL && t->F != NULL && t->f != NULL && t->A != NULL;
}

double uxb_w1_steps(const double *x, const double *c, size_t m, const uxb_law_table *t)
{
    w1_acc a;
    size_t i;

    if (m == 0 || x == NULL || !table_ok(t))
        return NAN;
    acc_init(&a, t);
    for (i = 0; i < m; ++i)
        acc_push(&a, x[i], c != NULL ? c[i] : (double)(i + 1) / (double)m);
    return acc_finish(&a);
}

/* ---- sorting the Monte Carlo stream --------------------------------------------------------------- */

/* Order-preserving map of doubles to unsigned keys (negative numbers reversed), and back. */
static uint64_t key_of(double x)
{
    uint64_t u;
    memcpy(&u, &x, sizeof u);
    return (u >> 63) ? ~u : (u | 0x8000000000000000ull);
}

static double value_of(uint64_t k)
{
    uint64_t u = (k >> 63) ? (k & 0x7FFFFFFFFFFFFFFFull) : ~k;
    double x;
    memcpy(&x, &u, sizeof x);
    return x;
}

#define RADIX_BITS 11
#define RADIX_SIZE (1u << RADIX_BITS)
#define RADIX_PASSES 6 /* 6 × 11 bits cover the 64-bit key */

/* LSD radix sort of n keys, tmp holding n more; passes whose digit is the same for all keys are skipped
 * (the top digits of a narrow range of doubles). */
static void radix_sort(uint64_t *a, uint64_t *tmp, size_t n)
{
    static const size_t small = 64;
    uint32_t hist[RADIX_PASSES][RADIX_SIZE];
    uint64_t *src = a, *dst = tmp;
    size_t i;
    unsigned d;

    if (n < small) {
        for (i = 1; i < n; ++i) {
            uint64_t k = a[i];
            size_t j = i;
            for (; j > 0 && a[j - 1] > k; --j)
                a[j] = a[j - 1];
            a[j] = k;
        }
        return;
    }
    memset(hist, 0, sizeof hist);
    for (i = 0; i < n; ++i)
        for (d = 0; d < RADIX_PASSES; ++d)
            ++hist[d][(a[i] >> (d * RADIX_BITS)) & (RADIX_SIZE - 1)];
    for (d = 0; d < RADIX_PASSES; ++d) {
        uint32_t *h = hist[d], sum = 0, c;
        unsigned shift = d * RADIX_BITS, b;
        uint64_t *swap;
        if (h[(src[0] >> shift) & (RADIX_SIZE - 1)] == n)
            continue;
        for (b = 0; b < RADIX_SIZE; ++b) {
            c = h[b];
            h[b] = sum;
            sum += c;
        }
        for (i = 0; i < n; ++i)
            dst[h[(src[i] >> shift) & (RADIX_SIZE - 1)]++] = src[i];
        swap = src;
        src = dst;
        dst = swap;
    }
    if (src != a)
        memcpy(a, src, n * sizeof *a);
}

/* Merge the sorted block b[0..nb) into the sorted prefix a[0..na), in place from the back. */
static void merge_back(uint64_t *a, size_t na, const uint64_t *b, size_t nb)
{
    size_t k = na + nb;
    while (nb > 0) {
        if (na > 0 && a[na - 1] > b[nb - 1])
            a[--k] = a[--na];
        else
            a[--k] = b[--nb];
    }
}

size_t uxb_prop_curve_workspace_bytes(size_t largest_count, size_t largest_step)
{
    return (largest_count + 2 * largest_step) * sizeof(uint64_t);
}

size_t uxb_prop_mc_w1_curve(const uxb_prop *p, uint64_t seed, const uxb_law_table *t, const size_t *counts,
                            size_t n_counts, double stop, double *w1, ux_workspace ws)
{
    stream s;
    size_t i, j, have = 0, largest_step = 0;
    uint64_t *prefix, *block, *scratch;

    if (counts == NULL || w1 == NULL || n_counts == 0 || !table_ok(t) || ws.mem == NULL ||
        ((uintptr_t)ws.mem & 7u) != 0)
        return 0;
    for (i = 0; i < n_counts; ++i) {
        size_t prev = i > 0 ? counts[i - 1] : 0;
        if (counts[i] <= prev)
            return 0;
        if (counts[i] - prev > largest_step)
            largest_step = counts[i] - prev;
    }
    if (ws.bytes < uxb_prop_curve_workspace_bytes(counts[n_counts - 1], largest_step))
        return 0;
    if (stream_init(&s, p, seed) != UX_OK)
        return 0;
    prefix = (uint64_t *)ws.mem;
    block = prefix + counts[n_counts - 1];
    scratch = block + largest_step;
    for (i = 0; i < n_counts; ++i) {
        size_t nb = counts[i] - have;
        w1_acc a;
        for (j = 0; j < nb; ++j) {
            double y = next_output(&s);
            if (!isfinite(y))
                return 0;
            block[j] = key_of(y);
        }
        radix_sort(block, scratch, nb);
        merge_back(prefix, have, block, nb);
        have = counts[i];
        acc_init(&a, t);
        for (j = 0; j < have; ++j)
            acc_push(&a, value_of(prefix[j]), (double)(j + 1) / (double)have);
        w1[i] = acc_finish(&a);
        if (stop >= 0 && w1[i] <= stop)
            return i + 1;
    }
    return n_counts;
}
