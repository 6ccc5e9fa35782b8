/*
 * The filter's posterior density (docs/semantics.md, "Filter density"): how ux_filter_pdf reads the
 * posterior — its TTR-binned density, or the base law (the prior law at the first update, else the
 * predictive mixture) times the update's likelihood over their normaliser Z — and the quadrature of that
 * numerator on UX_DENSITY_NODES nodes, which gives log Z, the first update's region and mixture mode's
 * posterior. The state it reads is the filter's `density` (ux/filter.h); its arrays (mixture components,
 * evidence) are the workspace's density areas (filter_internal.h).
 */
#include "filter_internal.h"
#include "ux/pdf.h"
#include "ux/stats.h"
#include "ux/ttr.h"

#include <string.h>

/* Component i's term of the predictive mixture's log density at t: (log w_i − log σ_i) + g((t − c_i)/σ_i), with
 * the standard Gaussian's g(v) = −v·v/2 − log √(2π) written out as ux_std_logpdf computes it (subtracting the
 * constant is adding g(0) = −log √(2π)). */
static ux_real component_log(const ux_filter *f, ux_real t, size_t i, ux_real g0)
{
    ux_real v = (t - filter_area(f, A_C)[i]) / filter_area(f, A_S)[i];
    return filter_area(f, A_LW)[i] + (UX_R(-0.5) * v * v + g0);
}

/* log of the predictive mixture's density at t: logsumexp_i of component_log, as ux_logsumexp computes it,
 * each term computed again in the sum rather than kept (no scratch of 2η reals on the stack). */
static ux_real mixture_log_density(const ux_filter *f, ux_real t)
{
    const ux_real g0 = ux_std_logpdf(UX_LAW_GAUSSIAN, 0);
    ux_real top = component_log(f, t, 0, g0), sum = 0;
    size_t i, n = f->density.count;
    for (i = 0; i < n; ++i) {
        ux_real a = component_log(f, t, i, g0);
        if (isnan(a))
            return -UX_INF;
        top = a > top ? a : top;
    }
    if (!ux_finite(top))
        return -UX_INF;
    if (n == 1) /* as ux_logsumexp: exp(0) = 1 and log(1) = 0 exactly */
        return top + UX_R(0.0);
    for (i = 0; i < n; ++i)
        sum = sum + UX_EXP(component_log(f, t, i, g0) - top);
    return top + UX_LOG(sum);
}

void filter_mixture_logs(ux_filter *f)
{
    const ux_real *s = filter_area(f, A_S), *cw = filter_area(f, A_CW);
    ux_real *lw = filter_area(f, A_LW), last = 0, log_s = 0;
    size_t i;
    if (f->density.form != UX_DENSITY_MIXTURE || f->density.logs_ready)
        return;
    for (i = 0; i < f->density.count; ++i) {
        if (i == 0 || s[i] != last) { /* the components share σ but where a cell spreads: one log for them all */
            last = s[i];
            log_s = UX_LOG(last);
        }
        lw[i] = UX_LOG(cw[i]) - log_s;
    }
    f->density.logs_ready = 1;
}

/* The update's log-likelihood ℓ at the points t[0..count−1] into u (each point's value does not depend on
 * the others). */
static UX_ALWAYS_INLINE ux_status node_log_likelihoods(const ux_filter *f, const ux_real *t, size_t count, ux_real *u,
                                                       const ux_workspace *rest)
{
    const ux_value *noise[UX_MODEL_MAX_NOISES];
    ux_observation obs;
    ux_evidence ev;
    ux_model_ctx ctx;
    filter_observation(f, &ctx, noise, &obs);
    ev.z = filter_area(f, A_Z);
    ev.omega = filter_area(f, A_OM);
    ev.count = f->density.J;
    ev.m = f->density.m;
    return ux_log_likelihoods(&obs, t, count, &ev, u, rest);
}

/* The base law's log density at t: the predictive mixture's, or the prior law's; a: η reals of scratch. */
static ux_real base_log(const ux_filter *f, ux_real t)
{
    if (f->density.form == UX_DENSITY_MIXTURE)
        return mixture_log_density(f, t);
    return ux_std_logpdf(f->prior.kind, (t - f->prior.a) / f->prior.b) - UX_LOG(f->prior.b);
}

/* The numerator's log from the base law's and ℓ: base + ℓ, −∞ where that is NaN. */
static ux_real numerator_from(ux_real base, ux_real ell)
{
    ux_real u = base + ell;
    return isnan(u) ? -UX_INF : u;
}

/* log of the density's numerator at the points t[0..count−1] into u: the base law's log density plus,
 * unless the update fell back, the update's log-likelihood ℓ(t) (docs/semantics.md, "Filter density");
 * −∞ where it is 0. Returns the likelihood's status (UX_OK without one). Not for BINS. */
static ux_status numerator_logs(const ux_filter *f, const ux_real *t, size_t count, ux_real *u,
                                const ux_workspace *rest)
{
    size_t p;

    if (f->density.lik) {
        ux_status st = node_log_likelihoods(f, t, count, u, rest);
        if (st != UX_OK)
            return st;
    }
    for (p = 0; p < count; ++p) {
        ux_real base = base_log(f, t[p]);
        u[p] = f->density.lik ? numerator_from(base, u[p]) : base;
    }
    return UX_OK;
}

/* numerator_logs at one point; NaN should the likelihood fail. */
static ux_real numerator_log(const ux_filter *f, ux_real t, const ux_workspace *rest)
{
    ux_real u;
    return numerator_logs(f, &t, 1, &u, rest) == UX_OK ? u : (ux_real)NAN;
}

/* Node k of the density's quadrature: lo + k·h. */
static ux_real node_position(ux_real lo, ux_real h, size_t k) { return lo + (ux_real)k * h; }

/* Node k's trapezoid term for the numerator's value e there: ½ e at the two ends. */
static ux_real trapezoid_term(unsigned k, ux_real e)
{
    return (k == 0 || k == UX_DENSITY_INTERVALS) ? UX_R(0.5) * e : e;
}

/* The interval the density's base law holds all but a negligible part of its mass in: the union of the
 * mixture's components c_i ± UX_DENSITY_GAUSSIAN_REACH σ_i, or the prior law's location ± its reach in
 * scales; the first update's region when it has one. */
static void density_support(const ux_filter *f, ux_real *lo, ux_real *hi)
{
    if (f->density.region) {
        *lo = f->density.lo;
        *hi = f->density.hi;
    } else if (f->density.form == UX_DENSITY_MIXTURE) {
        const ux_real *c = filter_area(f, A_C), *s = filter_area(f, A_S);
        const ux_real reach = (ux_real)UX_DENSITY_GAUSSIAN_REACH;
        ux_real low = c[0] - reach * s[0], high = c[0] + reach * s[0];
        size_t i;
        for (i = 1; i < f->density.count; ++i) {
            ux_real l = c[i] - reach * s[i], r = c[i] + reach * s[i];
            low = l < low ? l : low;
            high = r > high ? r : high;
        }
        *lo = low;
        *hi = high;
    } else {
        ux_real reach =
            (ux_real)(f->prior.kind == UX_LAW_GAUSSIAN ? UX_DENSITY_GAUSSIAN_REACH : UX_DENSITY_LAPLACE_REACH) *
            f->prior.b;
        *lo = f->prior.a - reach;
        *hi = f->prior.a + reach;
    }
}

/* The linear interpolant through the nodes is their law convolved with a triangle of width h, which adds
 * h²/6 to the variance; the atoms (normalised weights) are shrunk about their mean to take it out again,
 * to no spread at all should they hold less. Sums in atom order. */
static void remove_interpolation_variance(ux_real *x, const ux_real *w, size_t count, ux_real h)
{
    ux_real mean = 0, var = 0, scale;
    size_t i;
    for (i = 0; i < count; ++i)
        mean = mean + w[i] * x[i];
    for (i = 0; i < count; ++i)
        var = var + w[i] * ((x[i] - mean) * (x[i] - mean));
    if (!(var > 0))
        return;
    scale = var - h * h / UX_R(6.0);
    scale = scale > 0 ? UX_SQRT(scale / var) : 0;
    for (i = 0; i < count; ++i)
        x[i] = mean + (x[i] - mean) * scale;
}

/* Consecutive equal positions (atoms shrunk within rounding of one another) as one atom: masses added left to
 * right, spreads (unless v is NULL) mass-weighted. Returns the count. */
static size_t merge_equal(ux_real *x, ux_real *w, ux_real *v, size_t count)
{
    size_t i, out = 0;
    for (i = 0; i < count; ++i) {
        if (out > 0 && x[i] == x[out - 1]) {
            ux_real total = w[out - 1] + w[i];
            if (v != NULL)
                v[out - 1] = (w[out - 1] * v[out - 1] + w[i] * v[i]) / total;
            w[out - 1] = total;
            continue;
        }
        x[out] = x[i];
        w[out] = w[i];
        if (v != NULL)
            v[out] = v[i];
        ++out;
    }
    return out;
}

/* Two arrays of UX_DENSITY_NODES reals from the scratch workspace, and the scratch left after them in *rest;
 * 0 when they do not fit (cannot happen: init checked the mode's bound). */
static int node_arrays(const ux_filter *f, ux_real **t, ux_real **u, ux_workspace *rest)
{
    ux_arena arena;
    *rest = filter_scratch(f);
    if (ux_arena_open(&arena, rest) != UX_OK)
        return 0;
    *t = ux_arena_reals(&arena, UX_DENSITY_NODES);
    *u = ux_arena_reals(&arena, UX_DENSITY_NODES);
    *rest = ux_arena_rest(&arena);
    return *t != NULL && *u != NULL;
}

/* u[i] ← e_i = exp(u[i] − max u) in place; returns max u. When that is not finite (the numerator vanishes or
 * overflows at every point) u is left as it was. */
static ux_real to_relative(ux_real *u, size_t count)
{
    ux_real top = -UX_INF;
    size_t i;
    for (i = 0; i < count; ++i)
        top = u[i] > top ? u[i] : top;
    if (ux_finite(top))
        for (i = 0; i < count; ++i)
            u[i] = UX_EXP(u[i] - top);
    return top;
}

/* The bracket of points with relative numerator e (to_relative; docs/semantics.md, "Filter", the
 * quadrature's region): *first and *last become the first and the last point whose e is at least
 * UX_REFOCUS_FLOOR (unchanged when none is: cannot happen after to_relative); returns how many are, and
 * their Σ e (all points, in order) in *sum. */
static size_t bracket(const ux_real *e, size_t count, size_t *first, size_t *last, ux_real *sum)
{
    size_t i, kept = 0;
    *sum = 0;
    for (i = 0; i < count; ++i) {
        *sum += e[i];
        if (e[i] >= UX_REFOCUS_FLOOR) {
            *first = kept == 0 ? i : *first;
            *last = i;
            ++kept;
        }
    }
    return kept;
}

/* The length of mixture_on_nodes' runs: a run's first term is an exponential and each next one two
 * products further, so every term is within about NODE_RUN·(NODE_RUN + 1)/2 roundings of its exponential
 * (double: 3e-14 of itself, float: 8e-6). */
#define NODE_RUN 16

/* Adds one mixture component's terms amp·exp(−v·v/2), v = (t_k − c)/σ, to s[k] at the nodes k = from,
 * from + step, … (step ±1) before `end`, in runs of NODE_RUN nodes: a run's first term and its ratio to the
 * next, exp(−(v·d + d·d/2)) with d = h/σ moving v away from c, are exponentials; then term ← term·ratio,
 * ratio ← ratio·exp(−d·d). From the node nearest c outward the terms only fall, so the first term below
 * the smallest normal ends the component's contribution (the rest are smaller still). */
static void add_component_run(ux_real *s, long from, long step, long end, ux_real lo, ux_real h, ux_real c,
                              ux_real sigma, ux_real amp)
{
    const ux_real d = h / sigma, q = UX_EXP(-(d * d));
    ux_real term = 0, ratio = 0;
    long k, n;
    for (k = from, n = 0; k != end; k += step, ++n) {
        if (n % NODE_RUN == 0) {
            ux_real v = (node_position(lo, h, (size_t)k) - c) / sigma, away = step > 0 ? v : -v;
            term = amp * UX_EXP(UX_R(-0.5) * v * v);
            ratio = UX_EXP(-(away * d + UX_R(0.5) * d * d));
        }
        if (!(term >= UX_NORMAL_MIN))
            return;
        s[k] = s[k] + term;
        term = term * ratio;
        ratio = ratio * q;
    }
}

/* The predictive mixture's density at the nodes lo + k·h into s (docs/semantics.md, "Filter density"):
 * s_k = Σ_i a_i·exp(−v·v/2), a_i = exp((log w_i − log σ_i) + g(0)), v = (t_k − c_i)/σ_i, summed in i order,
 * each component's terms by add_component_run outward from the node nearest c_i — 2 products per node and
 * component where mixture_log_density takes an exponential and a division (GSS at η = 16: 2,064 of them
 * per region). */
static void mixture_on_nodes(const ux_filter *f, ux_real lo, ux_real h, ux_real *s)
{
    const ux_real *c = filter_area(f, A_C), *lw = filter_area(f, A_LW), *sd = filter_area(f, A_S);
    const ux_real g0 = ux_std_logpdf(UX_LAW_GAUSSIAN, 0), last = (ux_real)UX_DENSITY_INTERVALS;
    size_t i, k;
    for (k = 0; k < UX_DENSITY_NODES; ++k)
        s[k] = 0;
    for (i = 0; i < f->density.count; ++i) {
        ux_real amp = UX_EXP(lw[i] + g0), r = (c[i] - lo) / h;
        long nearest = !(r > 0) ? 0 : r >= last ? (long)UX_DENSITY_INTERVALS : (long)(r + UX_R(0.5));
        add_component_run(s, nearest, 1, (long)UX_DENSITY_NODES, lo, h, c[i], sd[i], amp);
        add_component_run(s, nearest - 1, -1, -1, lo, h, c[i], sd[i], amp);
    }
}

/* The log numerator at the nodes lo + k·h into e, from their log-likelihoods ell: the base law's log density
 * plus ℓ_k, −∞ where that is NaN or ℓ_k = −∞. A mixture's log density is log s_k (e holds s_k,
 * mixture_on_nodes) where s_k ≥ UX_LINEAR_MIN and finite, else mixture_log_density's logsumexp (a node far in
 * every component's tail). Not inlined: its frame stays off the one that evaluates the likelihood. */
__attribute__((noinline)) static void node_numerators(const ux_filter *f, ux_real lo, ux_real h, const ux_real *ell,
                                                      ux_real *e)
{
    const int mixture = f->density.form == UX_DENSITY_MIXTURE;
    size_t k;
    for (k = 0; k < UX_DENSITY_NODES; ++k) {
        ux_real t = node_position(lo, h, k), base;
        if (ell[k] == -UX_INF) {
            e[k] = -UX_INF;
            continue;
        }
        if (!mixture)
            base = base_log(f, t);
        else if (e[k] >= UX_LINEAR_MIN && ux_finite(e[k]))
            base = UX_LOG(e[k]);
        else
            base = mixture_log_density(f, t);
        e[k] = numerator_from(base, ell[k]);
    }
}

/* A mixture's relative numerator in the linear domain (docs/semantics.md, "Filter density"), when s_k (in e)
 * is at least UX_LINEAR_MIN and finite at every node of finite ℓ_k and max ℓ is finite: e_k ← v_k / max v,
 * v_k = s_k·e^(ℓ_k − max ℓ) (0 where ℓ_k = −∞), *top ← max ℓ + log max v; returns 1. Else 0, e untouched. No
 * logarithm per node, where the log domain takes one at each. */
static int linear_node_values(const ux_real *ell, ux_real *e, ux_real *top)
{
    ux_real lmax = -UX_INF, vmax = 0;
    size_t k;
    for (k = 0; k < UX_DENSITY_NODES; ++k) {
        lmax = ell[k] > lmax ? ell[k] : lmax;
        if (ell[k] != -UX_INF && !(e[k] >= UX_LINEAR_MIN && ux_finite(e[k])))
            return 0;
    }
    if (!ux_finite(lmax))
        return 0;
    for (k = 0; k < UX_DENSITY_NODES; ++k) {
        e[k] = ell[k] == -UX_INF ? UX_R(0.0) : e[k] * UX_EXP(ell[k] - lmax);
        vmax = e[k] > vmax ? e[k] : vmax;
    }
    for (k = 0; k < UX_DENSITY_NODES; ++k)
        e[k] = e[k] / vmax;
    *top = lmax + UX_LOG(vmax);
    return 1;
}

/* The nodes' relative numerators e (returns top, as weigh_nodes) from their log-likelihoods ell. */
static ux_real numerators_from_likelihoods(const ux_filter *f, ux_real lo, ux_real h, const ux_real *ell, ux_real *e)
{
    ux_real top;
    if (f->density.form == UX_DENSITY_MIXTURE) {
        mixture_on_nodes(f, lo, h, e);
        if (linear_node_values(ell, e, &top))
            return top;
    }
    node_numerators(f, lo, h, ell, e);
    return to_relative(e, UX_DENSITY_NODES);
}

/* The nodes lo + k·h of a region: ell ← ℓ_k, e ← e_k, the numerator relative to e^top (linear_node_values; else
 * e^{u_k − max u}, top = max u). Returns top (not finite: the numerator vanishes or overflows at every node), or
 * NaN should the likelihood fail. */
static ux_real weigh_nodes(const ux_filter *f, ux_real lo, ux_real h, ux_real *ell, ux_real *e,
                           const ux_workspace *rest)
{
    size_t k;
    for (k = 0; k < UX_DENSITY_NODES; ++k)
        e[k] = node_position(lo, h, k);
    if (node_log_likelihoods(f, e, UX_DENSITY_NODES, ell, rest) != UX_OK)
        return (ux_real)NAN;
    return numerators_from_likelihoods(f, lo, h, ell, e);
}

/* Whether the trapezoid on the nodes lo + k·h resolves the density's numerator (UX_NODE_RESOLUTION,
 * UX_COMPONENT_SPAN). */
static int resolves(const ux_filter *f, ux_real lo, ux_real hi, ux_real h)
{
    ux_real largest = UX_FABS(lo) > UX_FABS(hi) ? UX_FABS(lo) : UX_FABS(hi);
    if (!(h >= (ux_real)UX_NODE_RESOLUTION * UX_EPS * largest))
        return 0;
    if (f->density.form == UX_DENSITY_MIXTURE) {
        const ux_real *s = filter_area(f, A_S);
        ux_real widest = s[0];
        size_t i;
        for (i = 1; i < f->density.count; ++i)
            widest = s[i] > widest ? s[i] : widest;
        return widest >= UX_COMPONENT_SPAN * h;
    }
    return 1;
}

/* A clump of the numerator apart from the quadrature's region (docs/semantics.md, "Filter density"; the
 * reference's Lump): its own quadrature's region and the log of the interpolant's mass there, in the numerator's
 * units (its mean and variance, less the interpolation's h²/6, are in density_lumps' `taken`). */
typedef struct {
    ux_real lo, hi, log_mass;
} density_lump;

/* The lumps of one quadrature: each one's region and log mass, and its mean and spread in `taken`, whose masses
 * e^(log mass − top) — top the max u of the region's nodes — mixture_posterior fills in for the posterior. */
typedef struct {
    unsigned count;
    ux_real top;
    density_lump lump[UX_LUMPS];
    ux_lump taken[UX_LUMPS];
} density_lumps;

/* log Z of the nodes' relative numerators e (max u = top, spacing h) and the lumps: the trapezoid sum in node
 * order times h, then each lump's mass e^(log mass − top) added, in lump order. */
static ux_real trapezoid_log_z(const ux_real *e, ux_real top, ux_real h, const density_lumps *lumps)
{
    ux_real sum = 0, z;
    unsigned k, j;
    for (k = 0; k < UX_DENSITY_NODES; ++k)
        sum += trapezoid_term(k, e[k]);
    z = sum * h;
    for (j = 0; j < lumps->count; ++j)
        z = z + UX_EXP(lumps->lump[j].log_mass - top);
    return top + UX_LOG(z);
}

/* A lump from the nodes lo + k·h of its region, their relative numerators e and max u = top: TTR(0) of their
 * interpolant (ux_ttr_linear: its mass, mean and variance), the variance less h²/6 (to 0). 0 without mass. */
static int lump_from_nodes(const ux_real *e, ux_real lo, ux_real hi, ux_real h, ux_real top, density_lump *lump,
                           ux_lump *taken)
{
    ux_real edges[2], w, v;
    if (ux_ttr_linear(e, UX_DENSITY_NODES, lo, h, 0, edges, &taken->at, &w, &v) != 1)
        return 0;
    v = v - h * h / UX_R(6.0);
    *lump = (density_lump){lo, hi, top + UX_LOG(w)};
    taken->spread = v > 0 ? v : 0;
    return 1;
}

/* Lump j again on the nodes of its region (the reference's lump_on), weighed afresh into ell and e; 0 where they
 * do not resolve the numerator, it vanishes or overflows at every node, or the likelihood fails. */
static int lump_on(const ux_filter *f, ux_real *ell, ux_real *e, const ux_workspace *rest, density_lumps *lumps,
                   unsigned j)
{
    ux_real lo = lumps->lump[j].lo, hi = lumps->lump[j].hi, h = (hi - lo) / (ux_real)UX_DENSITY_INTERVALS, top;
    if (!resolves(f, lo, hi, h))
        return 0;
    top = weigh_nodes(f, lo, h, ell, e, rest);
    return ux_finite(top) && lump_from_nodes(e, lo, hi, h, top, &lumps->lump[j], &lumps->taken[j]);
}

/* The runs of nodes whose e reaches UX_REFOCUS_FLOOR, when there are 2 … 1 + UX_LUMPS of them and all but the
 * heaviest (the largest Σ e, the first of equals) hold less than 1/η of `total`, all the nodes' Σ e (sums in
 * node order): spans[2i], spans[2i + 1] ← run i's bracket, from the node before it to the node after it (lo, hi
 * at the ends); returns the run count, *heavy the heaviest's index. 0 elsewhere. */
static size_t light_clumps(const ux_real *e, ux_real lo, ux_real hi, ux_real h, ux_real total, unsigned eta,
                           ux_real *spans, size_t *heavy)
{
    ux_real mass[1 + UX_LUMPS];
    size_t k, runs = 0, i;
    for (k = 0; k < UX_DENSITY_NODES; ++k) {
        if (!(e[k] >= UX_REFOCUS_FLOOR))
            continue;
        if (k == 0 || !(e[k - 1] >= UX_REFOCUS_FLOOR)) { /* a run starts */
            if (runs == 1 + UX_LUMPS)
                return 0;
            mass[runs] = 0;
            spans[2 * runs] = k > 0 ? node_position(lo, h, k - 1) : lo;
            ++runs;
        }
        mass[runs - 1] += e[k];
        spans[2 * runs - 1] = k + 1 < UX_DENSITY_NODES ? node_position(lo, h, k + 1) : hi;
    }
    for (i = 1, *heavy = 0; i < runs; ++i)
        *heavy = mass[i] > mass[*heavy] ? i : *heavy;
    for (i = 0; i < runs; ++i)
        if (i != *heavy && mass[i] * (ux_real)eta >= total)
            return 0;
    return runs >= 2 ? runs : 0;
}

/* The nodes of [lo, hi] weighed (weigh_nodes), *h their spacing: max u, or −∞ where they do not resolve the
 * numerator (resolves). */
static UX_ALWAYS_INLINE ux_real weigh_region(const ux_filter *f, ux_real *ell, ux_real *e, const ux_workspace *rest,
                                             ux_real lo, ux_real hi, ux_real *h)
{
    *h = (hi - lo) / (ux_real)UX_DENSITY_INTERVALS;
    if (!resolves(f, lo, hi, *h)) /* every round's: a narrowing that zooms onto one spike misses the rest */
        return -UX_INF;
    return weigh_nodes(f, lo, *h, ell, e, rest);
}

/* The quadrature's narrowing (docs/semantics.md, "Filter density") from round r, whose nodes of [*lo, *hi] are
 * weighed (weigh_region: top, *h): the region narrowed to its own nodes' bracket while fewer than
 * UX_REGION_NODES of them reach the floor and the bracket differs from it, up to round UX_REFOCUS_ROUNDS. e ←
 * the last region's e_k = e^{u_k − max u} (ell: their log-likelihoods). Returns max u: not finite when the
 * numerator vanishes or overflows at every node, −∞ should the nodes of some round not resolve the numerator,
 * NaN should the likelihood fail. */
static UX_ALWAYS_INLINE ux_real narrow(const ux_filter *f, ux_real *ell, ux_real *e, const ux_workspace *rest,
                                       ux_real *lo, ux_real *hi, ux_real *h, unsigned r, ux_real top)
{
    for (;; ++r) {
        size_t first = 0, last = 0, kept;
        ux_real mass, nlo, nhi;
        if (!ux_finite(top) || r == UX_REFOCUS_ROUNDS)
            return top;
        kept = bracket(e, UX_DENSITY_NODES, &first, &last, &mass);
        nlo = first > 0 ? node_position(*lo, *h, first - 1) : *lo;
        nhi = last + 1 < UX_DENSITY_NODES ? node_position(*lo, *h, last + 1) : *hi;
        if (kept >= UX_REGION_NODES || (nlo == *lo && nhi == *hi))
            return top;
        *lo = nlo;
        *hi = nhi;
        top = weigh_region(f, ell, e, rest, *lo, *hi, h);
    }
}

/* A clump's lump: [lo, hi] narrowed as the quadrature's region (without lumps of its own) and weighed; 0 where it
 * has no quadrature. ell and e hold the last round's nodes. */
static UX_ALWAYS_INLINE int lump_of(const ux_filter *f, ux_real *ell, ux_real *e, const ux_workspace *rest, ux_real lo,
                                    ux_real hi, density_lump *lump, ux_lump *taken)
{
    ux_real h, top = narrow(f, ell, e, rest, &lo, &hi, &h, 0, weigh_region(f, ell, e, rest, lo, hi, &h));
    return ux_finite(top) && lump_from_nodes(e, lo, hi, h, top, lump, taken);
}

/* Where the nodes' largest e (the first of equals) is a peak narrower than they resolve (its neighbours' product
 * below UX_NARROW_PEAK), the brackets of the 1 + UX_LUMPS largest interior local maxima of e (e_k > 0,
 * e_k ≥ e_(k−1), e_k > e_(k+1); the first of equals) into spans, in node order; returns how many when at least
 * two, else 0. */
static size_t hidden_peaks(const ux_real *e, ux_real lo, ux_real h, ux_real *spans)
{
    size_t at[1 + UX_LUMPS], count = 0, top = 0, k, i;
    for (k = 1; k < UX_DENSITY_NODES; ++k)
        top = e[k] > e[top] ? k : top;
    if (top == 0 || top + 1 == UX_DENSITY_NODES || !(e[top - 1] * e[top + 1] < UX_NARROW_PEAK))
        return 0;
    for (k = 1; k + 1 < UX_DENSITY_NODES; ++k) {
        if (!(e[k] > 0 && e[k] >= e[k - 1] && e[k] > e[k + 1]))
            continue;
        /* insertion by e, larger first (equals keep node order); a full list's smallest falls off */
        for (i = count < 1 + UX_LUMPS ? count++ : count; i > 0 && e[at[i - 1]] < e[k]; --i)
            if (i < 1 + UX_LUMPS)
                at[i] = at[i - 1];
        if (i < 1 + UX_LUMPS)
            at[i] = k;
    }
    if (count < 2)
        return 0;
    for (i = 1; i < count; ++i) /* node order */
        for (k = i; k > 0 && at[k - 1] > at[k]; --k) {
            size_t swap = at[k];
            at[k] = at[k - 1];
            at[k - 1] = swap;
        }
    for (i = 0; i < count; ++i) {
        spans[2 * i] = node_position(lo, h, at[i] - 1);
        spans[2 * i + 1] = node_position(lo, h, at[i] + 1);
    }
    return count;
}

/* Lump `one` into the lumps in node order (by region). */
static void lump_in_order(density_lumps *lumps, const density_lump *one, const ux_lump *taken)
{
    unsigned i = lumps->count++;
    for (; i > 0 && lumps->lump[i - 1].lo > one->lo; --i) {
        lumps->lump[i] = lumps->lump[i - 1];
        lumps->taken[i] = lumps->taken[i - 1];
    }
    lumps->lump[i] = *one;
    lumps->taken[i] = *taken;
}

/* The hidden peaks' spans each a lump (lump_of): [*lo, *hi] the heaviest's region (the largest log mass, the first
 * of equals), the others lumps where their mass is at least UX_REFOCUS_FLOOR of its, in node order. Should fewer
 * than two have a quadrature, no lump is taken. The heaviest so far is kept apart, the others among the lumps. */
static void peak_lumps(const ux_filter *f, ux_real *ell, ux_real *e, const ux_workspace *rest, ux_real *lo, ux_real *hi,
                       const ux_real *spans, size_t count, density_lumps *lumps)
{
    density_lump heavy, next;
    ux_lump heavy_taken, next_taken;
    size_t i, kept = 0;
    unsigned j, k;
    for (i = 0; i < count; ++i) {
        if (!lump_of(f, ell, e, rest, spans[2 * i], spans[2 * i + 1], &next, &next_taken))
            continue;
        if (kept++ == 0) {
            heavy = next, heavy_taken = next_taken;
        } else if (next.log_mass > heavy.log_mass) {
            lump_in_order(lumps, &heavy, &heavy_taken);
            heavy = next, heavy_taken = next_taken;
        } else {
            lump_in_order(lumps, &next, &next_taken);
        }
    }
    if (kept < 2) {
        lumps->count = 0;
        return;
    }
    for (j = 0, k = 0; j < lumps->count; ++j)
        if (UX_EXP(lumps->lump[j].log_mass - heavy.log_mass) >= UX_REFOCUS_FLOOR) {
            lumps->lump[k] = lumps->lump[j];
            lumps->taken[k++] = lumps->taken[j];
        }
    lumps->count = k;
    *lo = heavy.lo;
    *hi = heavy.hi;
}

/* Where the nodes of [*lo, *hi] (e; `total` their Σ e) split into light clumps (light_clumps; spans: room for their
 * brackets), each but the heaviest a lump (lump_of) and [*lo, *hi] the heaviest's bracket; should one have no
 * quadrature, no lump is taken. Returns 0 where the nodes do not split (ell and e untouched), else 1. */
static int split_off_lumps(const ux_filter *f, ux_real *ell, ux_real *e, const ux_workspace *rest, ux_real *lo,
                           ux_real *hi, ux_real h, ux_real total, ux_real *spans, density_lumps *lumps)
{
    size_t heavy = 0, runs = light_clumps(e, *lo, *hi, h, total, f->eta, spans, &heavy), i;
    if (runs == 0)
        return 0;
    for (i = 0; i < runs; ++i) {
        if (i == heavy)
            continue;
        if (!lump_of(f, ell, e, rest, spans[2 * i], spans[2 * i + 1], &lumps->lump[lumps->count],
                     &lumps->taken[lumps->count])) {
            lumps->count = 0;
            return 1;
        }
        ++lumps->count;
    }
    *lo = spans[2 * heavy];
    *hi = spans[2 * heavy + 1];
    return 1;
}

/* Whether the first round seeks peaks hidden between its nodes: for a kernel likelihood whose family is positive
 * everywhere. A sampler's binned density is a step function, and a uniform kernel's window has edges: their zeros
 * and steps are no peaks. */
static int seeks_peaks(const ux_filter *f)
{
    return f->likelihood == UX_LIK_KERNEL && f->model->code->family != UX_LAW_UNIFORM;
}

/* How the first round's nodes of [*lo, *hi] (e, spacing h; `kept` of them at the floor, `total` their Σ e) split
 * (the reference's first_split): where they hide narrow peaks (hidden_peaks, where seeks_peaks), the heaviest's
 * region and the others' lumps (peak_lumps); else, with fewer than UX_REGION_NODES at the floor, light clumps
 * (split_off_lumps). Returns 0 where the nodes do not split (ell and e untouched), else 1: the lumps' narrowing
 * took ell and e, so the caller weighs its region again (the support, should no lump have been taken). */
static int first_split(const ux_filter *f, ux_real *ell, ux_real *e, const ux_workspace *rest, ux_real *lo, ux_real *hi,
                       ux_real h, size_t kept, ux_real total, density_lumps *lumps)
{
    ux_real spans[2 * (1 + UX_LUMPS)];
    size_t peaks = seeks_peaks(f) ? hidden_peaks(e, *lo, h, spans) : 0;
    if (peaks > 0) {
        peak_lumps(f, ell, e, rest, lo, hi, spans, peaks, lumps);
        return 1;
    }
    return kept < UX_REGION_NODES && split_off_lumps(f, ell, e, rest, lo, hi, h, total, spans, lumps);
}

/* The density's quadrature (docs/semantics.md, "Filter density"): its region is the density's support narrowed
 * (narrow) — where the first round's nodes hide narrow peaks or split into light clumps, from the heaviest's
 * region on, the others lumps (first_split; should no lump be taken, from the support weighed again). e ← the
 * last region's e_k (ell: their log-likelihoods), [*lo, *hi] the region, *h its node spacing, *lumps the lumps
 * and max u. Returns log Z, the trapezoid sum of the e_k in node order with the lumps' masses (trapezoid_log_z);
 * not finite when the numerator vanishes or overflows at every node, Z is not finite or the nodes of some round do
 * not resolve the numerator (−∞), NaN should the likelihood fail. The nodes are stored, so each is evaluated once:
 * the filter's workspace holds them beside the likelihood's scratch (ux_filter_workspace_bytes). */
static ux_real quadrature(const ux_filter *f, ux_real *ell, ux_real *e, const ux_workspace *rest, ux_real *lo,
                          ux_real *hi, ux_real *h, density_lumps *lumps)
{
    ux_real top;
    unsigned r = 0;
    lumps->count = 0;
    density_support(f, lo, hi);
    top = weigh_region(f, ell, e, rest, *lo, *hi, h);
    if (ux_finite(top)) {
        size_t first = 0, last = 0;
        ux_real total;
        size_t kept = bracket(e, UX_DENSITY_NODES, &first, &last, &total);
        if (first_split(f, ell, e, rest, lo, hi, *h, kept, total, lumps)) {
            top = weigh_region(f, ell, e, rest, *lo, *hi, h);
            r = 1;
        }
    }
    top = narrow(f, ell, e, rest, lo, hi, h, r, top);
    lumps->top = top;
    return ux_finite(top) ? trapezoid_log_z(e, top, *h, lumps) : top;
}

/* log Z of the density ("Filter density"): the quadrature's; 0 without a likelihood factor (the base law is
 * its own density); the update's evidence should the numerator vanish or overflow at every node, or the
 * nodes not resolve it. */
static ux_real density_log_norm(const ux_filter *f)
{
    ux_workspace rest;
    ux_real *ell, *e, lo, hi, h, out;
    density_lumps lumps;
    if (!f->density.lik)
        return 0;
    if (!node_arrays(f, &ell, &e, &rest))
        return f->log_evidence;
    out = quadrature(f, ell, e, &rest, &lo, &hi, &h, &lumps);
    return ux_finite(out) ? out : f->log_evidence;
}

/* The quadrature posterior's cells sum squares of their positions: a region whose nodes (or lumps) reach beyond
 * √(largest real)/1024 would overflow them (a prior of scale 1e219), so its update keeps its own posterior. */
static int within_moment_reach(ux_real first, ux_real last, const density_lumps *lumps)
{
    ux_real reach = UX_SQRT(UX_REAL_MAX) / UX_R(1024.0);
    unsigned j;
    for (j = 0; j < lumps->count; ++j)
        if (!(UX_FABS(lumps->taken[j].at) < reach))
            return 0;
    return UX_FABS(first) < reach && UX_FABS(last) < reach;
}

/* The quadrature again on its region (nodes lo + k·h) and its lumps' after the base law changed (mixture mode's
 * comb): each lump weighed afresh on its region (lump_on), then the region's nodes — from their likelihoods in
 * ell where there is no lump (they still hold them). Returns log Z as quadrature; −∞ should a lump fail. */
static ux_real quadrature_again(const ux_filter *f, ux_real *ell, ux_real *e, const ux_workspace *rest, ux_real lo,
                                ux_real h, density_lumps *lumps)
{
    unsigned j;
    for (j = 0; j < lumps->count; ++j)
        if (!lump_on(f, ell, e, rest, lumps, j))
            return -UX_INF;
    lumps->top = lumps->count > 0 ? weigh_nodes(f, lo, h, ell, e, rest) : numerators_from_likelihoods(f, lo, h, ell, e);
    return ux_finite(lumps->top) ? trapezoid_log_z(e, lumps->top, h, lumps) : lumps->top;
}

/* The scale component i of the predictive mixture must reach against a comb (docs/semantics.md, "Filter";
 * reference comb_widths): least (UX_COMB_SPAN h), or UX_COMB_GAP of the distance to the nearer neighbouring
 * centre in component order, at most of mean_gap, whichever is larger (mean_gap 0: least alone). */
static ux_real comb_width(const ux_real *c, size_t i, size_t n, ux_real least, ux_real mean_gap)
{
    ux_real gap = 0, wide;
    if (n > 1) {
        gap = i + 1 < n ? UX_FABS(c[i + 1] - c[i]) : UX_FABS(c[i] - c[i - 1]);
        if (i > 0 && i + 1 < n) {
            ux_real before = UX_FABS(c[i] - c[i - 1]);
            gap = gap < before ? gap : before;
        }
    }
    wide = UX_COMB_GAP * (gap < mean_gap ? gap : mean_gap);
    return wide > least ? wide : least;
}

/* The centres' mean spacing (max c − min c)/(n − 1) that comb_width caps the spacing term at; 0 (no spacing
 * term) for one component or a mixture whose bimodality coefficient exceeds UX_COMB_BIMODALITY. */
static ux_real comb_mean_gap(const ux_real *c, const ux_real *w, const ux_real *s, size_t n, ux_real total,
                             ux_real mean)
{
    ux_shape shape = {0, 0, 0};
    ux_real top = c[0], low = c[0];
    size_t i;
    for (i = 0; i < n; ++i) {
        shape_add(&shape, w[i] / total, c[i] - mean, s[i] * s[i]);
        top = c[i] > top ? c[i] : top;
        low = c[i] < low ? c[i] : low;
    }
    if (n < 2 || shape_bimodality(&shape) > UX_COMB_BIMODALITY)
        return 0;
    return (top - low) / (ux_real)(n - 1);
}

/* Mixture mode's comb (docs/semantics.md, "Filter"): where some predictive component is narrower than its
 * comb_width, each scale is raised to at least that and the centres shrink about their mean by the variance
 * it adds, so the mixture keeps its mean and variance (at most UX_KERNEL_CAP of the centres' variance moves;
 * the additions scale down to it). Components far narrower than their spacing make a comb where the true
 * predictive is smooth; at η ≥ 32 the nodes alias it too, and a near-static state's posterior lost 5–16 % of
 * its variance at an update. Returns 1 when the components changed (their logs are taken again). */
static int widen_comb(ux_filter *f, ux_real h)
{
    ux_real *c = filter_area(f, A_C), *s = filter_area(f, A_S);
    const ux_real *w = filter_area(f, A_CW);
    ux_real least = UX_COMB_SPAN * h, total = 0, first = 0, between = 0, added = 0, mean_gap, mean, moved, shrink;
    size_t i, n = f->density.count;
    if (f->mode != UX_MODE_MIXTURE || f->density.form != UX_DENSITY_MIXTURE)
        return 0;
    for (i = 0; i < n; ++i) {
        total = total + w[i];
        first = first + w[i] * c[i];
    }
    mean = first / total;
    mean_gap = comb_mean_gap(c, w, s, n, total, mean);
    for (i = 0; i < n; ++i) {
        ux_real d = c[i] - mean, want = comb_width(c, i, n, least, mean_gap), wide = s[i] < want ? want : s[i];
        between = between + w[i] * (d * d);
        added = added + w[i] * (wide * wide - s[i] * s[i]);
    }
    between = between / total;
    added = added / total;
    if (!(between > 0 && added > 0)) /* added is exactly 0 where no component of weight is narrower */
        return 0;
    moved = added < UX_KERNEL_CAP * between ? added : UX_KERNEL_CAP * between;
    shrink = UX_SQRT(UX_R(1.0) - moved / between);
    for (i = 0; i < n; ++i) { /* the scales first: their widths read the centres before these shrink */
        ux_real want = comb_width(c, i, n, least, mean_gap), wide = s[i] < want ? want : s[i];
        s[i] = UX_SQRT(s[i] * s[i] + (wide * wide - s[i] * s[i]) * (moved / added));
    }
    for (i = 0; i < n; ++i)
        c[i] = mean + shrink * (c[i] - mean);
    f->density.logs_ready = 0;
    filter_mixture_logs(f);
    return 1;
}

/* The lightest adjacent pair of atoms (the smallest w_i + w_{i+1}, the first of equals) as one atom with their
 * mass, mean and — unless v is NULL — variance (its spread holds the pair's own); count ≥ 2. */
static void merge_lightest_pair(ux_real *x, ux_real *w, ux_real *v, size_t count)
{
    size_t i, at = 0;
    ux_real total, mean;
    for (i = 1; i + 1 < count; ++i)
        at = w[i] + w[i + 1] < w[at] + w[at + 1] ? i : at;
    total = w[at] + w[at + 1];
    mean = (w[at] * x[at] + w[at + 1] * x[at + 1]) / total;
    if (v != NULL) {
        ux_real d0 = x[at] - mean, d1 = x[at + 1] - mean;
        v[at] = (w[at] * (v[at] + d0 * d0) + w[at + 1] * (v[at + 1] + d1 * d1)) / total;
    }
    x[at] = mean;
    w[at] = total;
    for (i = at + 1; i + 1 < count; ++i) {
        x[i] = x[i + 1];
        w[i] = w[i + 1];
        if (v != NULL)
            v[i] = v[i + 1];
    }
}

/* A lump as an atom of its own among `count` atoms in increasing position (room for `room`): its mass and
 * (unless v is NULL) spread, placed after every atom at or below its mean; where there is no room the lightest
 * adjacent pair becomes one atom first (merge_lightest_pair). Returns the count. */
static size_t seat_lump(ux_real *x, ux_real *w, ux_real *v, size_t count, size_t room, const ux_lump *lump)
{
    size_t i;
    if (count == room && count >= 2) {
        merge_lightest_pair(x, w, v, count);
        --count;
    }
    if (count == room)
        return count;
    for (i = count; i > 0 && x[i - 1] > lump->at; --i) {
        x[i] = x[i - 1];
        w[i] = w[i - 1];
        if (v != NULL)
            v[i] = v[i - 1];
    }
    x[i] = lump->at;
    w[i] = lump->mass;
    if (v != NULL)
        v[i] = lump->spread;
    return count + 1;
}

/* Mixture mode (docs/semantics.md, "Filter"): the posterior is TTR of the piecewise-linear density through
 * the quadrature's nodes (t_k, e^{u_k − max}) and its lumps — in mixture mode at η ≥ UX_LUMP_ATOM_ETA each seated
 * as an atom of its own (seat_lump), else in the TTR's cells (ux_ttr_linear_lumps) — normalised, less the
 * interpolation's variance; its region becomes the density's support (with lumps the density keeps the one it
 * started from) and its log Z the step's evidence, written to *log_evidence; returns 1. When the numerator
 * vanishes or overflows at every node, Z is not finite or the nodes do not resolve the numerator, the update's
 * own posterior and evidence stay (returns 0). */
int filter_mixture_posterior(ux_filter *f, ux_real *log_evidence)
{
    ux_workspace rest;
    ux_real *ell, *e, lo, hi, h, out, *spreads;
    density_lumps lumps;
    size_t count;
    unsigned j;

    filter_mixture_logs(f);
    if (!node_arrays(f, &ell, &e, &rest))
        return 0;
    out = quadrature(f, ell, e, &rest, &lo, &hi, &h, &lumps);
    if (ux_finite(out) && widen_comb(f, h)) /* the same nodes and likelihoods: log Z moves with the widening */
        out = quadrature_again(f, ell, e, &rest, lo, h, &lumps);
    if (!ux_finite(out) || !within_moment_reach(lo, lo + (ux_real)UX_DENSITY_INTERVALS * h, &lumps))
        return 0;
    /* The node e^{u − max} = 1 gives its intervals mass, so at least one atom comes out. The likelihoods'
     * space holds the cells' edges now (η + 1 ≤ UX_DENSITY_NODES). */
    spreads = f->mode == UX_MODE_MIXTURE || f->smooth ? filter_area(f, A_V) : NULL;
    for (j = 0; j < lumps.count; ++j)
        lumps.taken[j].mass = UX_EXP(lumps.lump[j].log_mass - lumps.top);
    if (f->mode == UX_MODE_MIXTURE && f->eta >= UX_LUMP_ATOM_ETA) { /* each lump an atom (seat_lump) */
        count = ux_ttr_linear(e, UX_DENSITY_NODES, lo, h, f->n, ell, f->posterior.x, f->posterior.w, spreads);
        for (j = 0; j < lumps.count; ++j)
            count = seat_lump(f->posterior.x, f->posterior.w, spreads, count, (size_t)1 << f->n, &lumps.taken[j]);
    } else {
        count = ux_ttr_linear_lumps(e, UX_DENSITY_NODES, lo, h, lumps.taken, lumps.count, f->n, ell, f->posterior.x,
                                    f->posterior.w, spreads);
    }
    ux_normalise(f->posterior.w, count);
    remove_interpolation_variance(f->posterior.x, f->posterior.w, count, h);
    count = merge_equal(f->posterior.x, f->posterior.w, spreads, count);
    if (f->smooth) { /* the quadrature law's variance: its atoms' and its cells' spreads */
        ux_real within = 0, *v = filter_area(f, A_V);
        size_t i;
        f->posterior.count = (uint32_t)count;
        for (i = 0; i < count; ++i) {
            ux_real p = f->posterior.w[i] * v[i];
            within = within + p;
        }
        f->post_var = ux_var(&f->posterior) + within;
    }
    f->posterior.count = (uint32_t)count;
    f->posterior.eta = f->eta;
    if (lumps.count == 0) { /* with lumps, the region it started from: where the quadrature takes them again */
        f->density.lo = lo;
        f->density.hi = hi;
        f->density.region = 1;
    }
    f->density.log_norm = out;
    f->density.norm_ready = 1;
    f->spread = f->mode == UX_MODE_MIXTURE; /* the next predict's components carry the cells' spreads */
    *log_evidence = out;
    return 1;
}

/* An outlier's reach under a Gaussian predictive (docs/semantics.md, "Departure"), after an update whose density
 * has its likelihood factor: the density's quadrature with N(mean, var) for its base law (its own region, from
 * mean ± UX_DENSITY_GAUSSIAN_REACH sd), and |Σ g_k·t_k / Σ g_k − mean| over the trapezoid terms g_k of its last
 * region's e_k, summed in node order, then its lumps' masses over h at their means. NaN when that quadrature has
 * no finite log Z or var is not positive. The density and the prior law are the filter's again on return. */
ux_real filter_gaussian_reach(ux_filter *f, ux_real mean, ux_real var)
{
    ux_filter_density density = f->density;
    ux_law prior = f->prior;
    ux_workspace rest;
    ux_real *ell, *e, lo, hi, h, reach = (ux_real)NAN;
    density_lumps lumps;
    if (!(var > 0) || !node_arrays(f, &ell, &e, &rest))
        return reach;
    f->density.form = UX_DENSITY_PRIOR;
    f->density.region = 0;
    f->prior = (ux_law){UX_LAW_GAUSSIAN, mean, UX_SQRT(var), 0};
    if (ux_finite(quadrature(f, ell, e, &rest, &lo, &hi, &h, &lumps))) {
        ux_real mass = 0, moment = 0;
        unsigned k;
        for (k = 0; k < UX_DENSITY_NODES; ++k) {
            ux_real g = trapezoid_term(k, e[k]);
            mass = mass + g;
            moment = moment + g * node_position(lo, h, k);
        }
        for (k = 0; k < lumps.count; ++k) { /* a lump's mass in the trapezoid terms' units */
            ux_real g = UX_EXP(lumps.lump[k].log_mass - lumps.top) / h;
            mass = mass + g;
            moment = moment + g * lumps.taken[k].at;
        }
        reach = UX_FABS(moment / mass - mean);
    }
    f->density = density;
    f->prior = prior;
    return reach;
}

/* The first update's region (docs/semantics.md, "Filter"): the bracket of the prior atoms it weighed (the
 * prior law quantized again: BayesLaplace reordered them); it becomes the density's support. Returns 1 when
 * the atoms were concentrated (the largest e, 1, holds at least half of Σ e): the posterior is then
 * refocused. Needs the nodes' scratch, as mixture_posterior. */
int filter_first_region(ux_filter *f)
{
    ux_workspace rest;
    ux_real *t, *u, lo, hi, sum;
    size_t count, first = 0, last = 0;

    filter_mixture_logs(f);
    if (!node_arrays(f, &t, &u, &rest))
        return 0;
    density_support(f, &lo, &hi);
    count = ux_quantize_scaled(&f->prior, filter_first_prior_atoms(f), t, u); /* u: the weights, overwritten */
    if (numerator_logs(f, t, count, u, &rest) != UX_OK || !ux_finite(to_relative(u, count)))
        return 0;
    bracket(u, count, &first, &last, &sum);
    f->density.lo = first > 0 ? t[first - 1] : lo;
    f->density.hi = last + 1 < count ? t[last + 1] : hi;
    f->density.region = 1;
    return sum <= UX_R(2.0);
}

/* The predictive mixture's density at t over its constant factor 1/√(2π): Σ_i (w_i/σ_i)·e^(−v·v/2),
 * v = (t − c_i)/σ_i, summed in i order. */
static ux_real mixture_linear(const ux_filter *f, ux_real t)
{
    const ux_real *c = filter_area(f, A_C), *s = filter_area(f, A_S), *cw = filter_area(f, A_CW);
    ux_real sum = 0;
    size_t i;
    for (i = 0; i < f->density.count; ++i) {
        ux_real inv = UX_R(1.0) / s[i], v = (t - c[i]) * inv;
        ux_real term = (cw[i] * inv) * UX_EXP(UX_R(-0.5) * v * v);
        sum = sum + term;
    }
    return sum;
}

/* Whether the density's numerator is larger at the outer point than at the inner one, whose log-likelihoods
 * are ell_e > ell_i: a mixture's S(outer)·e^(ℓ_e − ℓ_i) > S(inner) (mixture_linear: no logarithm) where S is at
 * least UX_LINEAR_MIN and finite at both; else from the log numerators. */
static int numerator_rises(ux_filter *f, ux_real outer, ux_real inner, ux_real ell_e, ux_real ell_i)
{
    if (f->density.form == UX_DENSITY_MIXTURE) {
        ux_real so = mixture_linear(f, outer), si = mixture_linear(f, inner);
        if (so >= UX_LINEAR_MIN && ux_finite(so) && si >= UX_LINEAR_MIN && ux_finite(si))
            return so * UX_EXP(ell_e - ell_i) > si;
        filter_mixture_logs(f);
    }
    return numerator_from(base_log(f, outer), ell_e) > numerator_from(base_log(f, inner), ell_i);
}

/* Whether the posterior's density still rises at the outermost point of `side` (0: lowest, 1: highest), which
 * alone holds at least `bar` of its variance about `mean`: its share w_e/Σw·e^(ℓ_e − log evidence) times its
 * squared distance from the mean, with the likelihood and the numerator larger there than at the next point
 * inward. The likelihoods are BayesLaplace's own (e->probe); the mixture's density is read only where the rest
 * holds. */
static int edge_rises(ux_filter *f, const ux_point_edges *e, int side, ux_real log_evidence, ux_real mean, ux_real bar)
{
    ux_real ell = ux_probe_ell(&e->probe, 2 * side), d = e->edge[side] - mean, inner;
    ux_real share = (e->weight[side] / e->probe.prior_mass) * UX_EXP(ell - log_evidence);
    if (!(share * (d * d) >= bar))
        return 0;
    inner = ux_probe_ell(&e->probe, 2 * side + 1);
    return ell > inner && numerator_rises(f, e->edge[side], e->inner[side], ell, inner);
}

/* The scale of the predictive component whose centre is outermost on `side` (the first such in order). */
static ux_real outer_scale(const ux_filter *f, int side)
{
    const ux_real *c = filter_area(f, A_C), *s = filter_area(f, A_S);
    size_t i, at = 0;
    for (i = 1; i < f->density.count; ++i)
        if (side ? c[i] > c[at] : c[i] < c[at])
            at = i;
    return s[at];
}

/* Whether the predictive mixture's posterior holds at least `bar` of its variance about `mean` beyond the
 * outermost point of `side`: at the UX_EDGE_PROBES points t_j = e ± j·s (s: outer_scale, j = 1, 2, …), the
 * numerator over the update's evidence, e^(b(t_j) + ℓ_j − log evidence), times (t_j − mean)², summed in j
 * order and times s. Only at η ≥ UX_EDGE_PROBES_ETA, for a mixture, where the likelihood is larger at the edge
 * than at the next point inward; the mixture's density is read only where some ℓ_j exceeds ℓ at the edge. */
static int mass_beyond(ux_filter *f, const ux_point_edges *e, int side, ux_real log_evidence, ux_real mean, ux_real bar)
{
    ux_real *t, *ell, step, sum = 0, edge_ell = ux_probe_ell(&e->probe, 2 * side);
    ux_workspace rest;
    size_t j;
    int rises = 0;
    if (f->eta < UX_EDGE_PROBES_ETA || f->density.form != UX_DENSITY_MIXTURE ||
        !(edge_ell > ux_probe_ell(&e->probe, 2 * side + 1)) || !node_arrays(f, &t, &ell, &rest))
        return 0;
    step = outer_scale(f, side);
    for (j = 0; j < UX_EDGE_PROBES; ++j)
        t[j] = e->edge[side] + (ux_real)(j + 1) * (side ? step : -step);
    if (node_log_likelihoods(f, t, UX_EDGE_PROBES, ell, &rest) != UX_OK)
        return 0;
    for (j = 0; j < UX_EDGE_PROBES; ++j)
        rises = rises || ell[j] > edge_ell;
    if (!rises)
        return 0;
    filter_mixture_logs(f);
    for (j = 0; j < UX_EDGE_PROBES; ++j) {
        ux_real d = t[j] - mean, n = UX_EXP(numerator_from(mixture_log_density(f, t[j]), ell[j]) - log_evidence);
        sum = sum + n * (d * d);
    }
    return step * sum >= bar;
}

/* The open-edge test (docs/semantics.md, "Filter"), after an update whose density has its likelihood factor: 1
 * when on either side the posterior's density still rises at the outermost point (edge_rises) or holds mass
 * beyond it (mass_beyond), either at least UX_EDGE_SHARE of the posterior's variance. */
int filter_edge_open(ux_filter *f, const ux_point_edges *e, ux_real log_evidence)
{
    ux_real mean = ux_mean(&f->posterior), bar = UX_EDGE_SHARE * f->post_var;
    int side;
    if (!(f->post_var > 0))
        return 0;
    for (side = 0; side < 2; ++side)
        if (edge_rises(f, e, side, log_evidence, mean, bar) || mass_beyond(f, e, side, log_evidence, mean, bar))
            return 1;
    return 0;
}

/* The density's log normaliser, computed at the first need after an update. */
static ux_real cached_log_norm(ux_filter *f)
{
    if (!f->density.norm_ready) {
        filter_mixture_logs(f);
        f->density.log_norm = density_log_norm(f);
        f->density.norm_ready = 1;
    }
    return f->density.log_norm;
}

static ux_real filter_logpdf(ux_filter *f, ux_real tr)
{
    if (f->density.form == UX_DENSITY_BINS) {
        ux_real p = ux_pdf(&f->posterior, tr);
        return p > 0 ? UX_LOG(p) : -UX_INF;
    }
    {
        ux_workspace rest = filter_scratch(f);
        filter_mixture_logs(f);
        return numerator_log(f, tr, &rest) - cached_log_norm(f);
    }
}

double ux_filter_density_log_evidence(ux_filter *f)
{
    if (f == NULL || f->model == NULL)
        return (double)NAN;
    if (f->density.form == UX_DENSITY_BINS || !f->density.lik)
        return (double)f->log_evidence;
    return (double)cached_log_norm(f);
}

double ux_filter_logpdf(ux_filter *f, double t)
{
    if (f == NULL || f->model == NULL)
        return (double)NAN;
    return (double)filter_logpdf(f, (ux_real)t);
}

double ux_filter_pdf(ux_filter *f, double t)
{
    ux_real lp;
    if (f == NULL || f->model == NULL)
        return (double)NAN;
    lp = filter_logpdf(f, (ux_real)t);
    return lp == -UX_INF ? 0.0 : (double)UX_EXP(lp);
}

ux_density_form ux_filter_density_form(const ux_filter *f)
{
    return f != NULL ? (ux_density_form)f->density.form : UX_DENSITY_BINS;
}
