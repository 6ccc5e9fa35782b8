/*
 * The cell filter over a vector state (docs/semantics.md, "Cell filter"). Sums run in index order and the
 * matrices are row-major d × d, so the reference (uxemu/joint_cells.py) gives the same bits. Each step is
 * built in the `next` bank and the banks swap when it succeeds.
 */
#include "internal.h"
#include "ux/joint_cells.h"

#include <string.h>

#define D UX_MAX_DIM
#define POINTS (2 * UX_MAX_DIM + 1)

/* Half a sigma-point split: each half-space's conditional mean lies √(2/π) sd from the centre. */
#define SPLIT_OFFSET UX_R(0.79788456080286535588)

/* The first sigma point: 0 for the centre, 1 when its weight is 0 (κ = 0, d ≥ 3) and it is skipped. */
static unsigned first_point(const ux_joint_cells *f) { return f->w0 == 0 ? 1u : 0u; }
static ux_real point_weight(const ux_joint_cells *f, unsigned p) { return p == 0 ? f->w0 : f->wi; }

/* The 2d+1 sigma points of N(m, P): m, then m ± √(d+κ)·(column j of L). */
static void sigma_points(const ux_joint_cells *f, const ux_real *m, const ux_real *P, ux_real *X)
{
    ux_real L[D * D];
    unsigned d = f->dim, a, j;
    ux_cholesky(P, d, L);
    memcpy(X, m, d * sizeof(ux_real));
    for (j = 0; j < d; ++j)
        for (a = 0; a < d; ++a) {
            ux_real s = f->scale * L[a * d + j];
            X[(1 + j) * d + a] = m[a] + s;
            X[(1 + d + j) * d + a] = m[a] - s;
        }
}

/* Weighted mean of the sigma points' images Y (rows of n). */
static void points_mean(const ux_joint_cells *f, const ux_real *Y, unsigned n, ux_real *mean)
{
    unsigned a, p;
    for (a = 0; a < n; ++a) {
        ux_real acc = 0;
        for (p = first_point(f); p < 2 * f->dim + 1; ++p)
            acc = acc + point_weight(f, p) * Y[p * n + a];
        mean[a] = acc;
    }
}

/* Weighted cross-covariance of rows X (of nx, mean mx) and Y (of ny, mean my) into C (nx × ny). */
static void points_cross(const ux_joint_cells *f, const ux_real *X, const ux_real *mx, unsigned nx, const ux_real *Y,
                         const ux_real *my, unsigned ny, ux_real *C)
{
    unsigned a, b, p;
    for (a = 0; a < nx; ++a)
        for (b = 0; b < ny; ++b) {
            ux_real acc = 0;
            for (p = first_point(f); p < 2 * f->dim + 1; ++p)
                acc = acc + point_weight(f, p) * ((X[p * nx + a] - mx[a]) * (Y[p * ny + b] - my[b]));
            C[a * ny + b] = acc;
        }
}

static void bank_carve(ux_cells_bank *b, ux_arena *arena, unsigned eta, unsigned d)
{
    b->w = ux_arena_reals(arena, eta);
    b->b = ux_arena_reals(arena, eta);
    b->m = ux_arena_reals(arena, (size_t)eta * d);
    b->P = ux_arena_reals(arena, (size_t)eta * d * d);
}

static void bank_copy(const ux_cells_bank *to, size_t i, const ux_cells_bank *from, size_t j, unsigned d)
{
    to->w[i] = from->w[j];
    to->b[i] = from->b[j];
    memcpy(to->m + i * d, from->m + j * d, d * sizeof(ux_real));
    memcpy(to->P + i * d * d, from->P + j * d * d, (size_t)d * d * sizeof(ux_real));
}

static void swap_banks(ux_joint_cells *f)
{
    ux_cells_bank t = f->cur;
    f->cur = f->next;
    f->next = t;
}

static ux_status check_config(const ux_joint_filter_config *cfg)
{
    const ux_joint_model *model;
    if (cfg == NULL || (model = cfg->model) == NULL || model->n_params > UX_MODEL_MAX_PARAMS || model->dim < 1 ||
        model->dim > UX_MAX_DIM || model->code->dim_noise < 1 || model->code->dim_noise > model->dim ||
        model->code->dim_obs < 1 || model->code->dim_obs > UX_JOINT_MAX_OBS || !model->code->additive_noise)
        return UX_ERR_ARG;
    return ux_log2_eta(cfg->eta) < 0 ? UX_ERR_ARG : UX_OK;
}

/* The prior's one cell: its components' means and a diagonal covariance of their variances. */
static ux_status prior_cell(ux_joint_cells *f, const ux_law *prior)
{
    unsigned d = f->dim, a;
    memset(f->cur.P, 0, (size_t)d * d * sizeof(ux_real));
    for (a = 0; a < d; ++a)
        if (ux_law_moments(&prior[a], &f->cur.m[a], &f->cur.P[a * d + a]) != UX_OK)
            return UX_ERR_DOMAIN;
    f->cur.w[0] = 1;
    f->cur.b[0] = 0;
    f->count = 1;
    return UX_OK;
}

ux_status ux_joint_cells_init(ux_joint_cells *f, const ux_joint_filter_config *cfg, ux_workspace ws)
{
    ux_law process[UX_JOINT_MAX_NOISES];
    ux_real kappa;
    ux_arena arena;
    unsigned j, d;
    ux_status st;

    if (f == NULL)
        return UX_ERR_ARG;
    memset(f, 0, sizeof *f);
    if ((st = check_config(cfg)) != UX_OK)
        return st;
    if (ux_joint_model_params(cfg->model, cfg->params, f->params) != UX_OK)
        return UX_ERR_DOMAIN;
    d = cfg->model->dim;
    if (ux_arena_open(&arena, &ws) != UX_OK || ws.bytes < UX_JOINT_CELLS_WORKSPACE_BYTES(cfg->eta, d))
        return UX_ERR_WORKSPACE;
    f->model = cfg->model;
    f->eta = cfg->eta;
    f->dim = d;
    f->exchange = 1u;
    bank_carve(&f->cur, &arena, f->eta, d);
    bank_carve(&f->next, &arena, f->eta, d);
    f->spread = ux_arena_reals(&arena, (size_t)f->eta * (d + 1u));
    if (f->spread == NULL) /* the size check above covers every carve: not reached */
        return UX_ERR_WORKSPACE;
    cfg->model->code->noises(f->params, process);
    for (j = 0; j < cfg->model->code->dim_noise; ++j)
        if (ux_law_moments(&process[j], &f->noise_mean[j], &f->noise_var[j]) != UX_OK)
            st = UX_ERR_DOMAIN;
    if (st == UX_OK)
        st = prior_cell(f, cfg->prior != NULL ? cfg->prior : cfg->model->prior);
    if (st != UX_OK) {
        memset(f, 0, sizeof *f);
        return st;
    }
    kappa = d < 3u ? (ux_real)(3u - d) : UX_R(0.0); /* the UKF's κ = 3 − d, kept ≥ 0 so no weight is negative */
    f->w0 = kappa / ((ux_real)d + kappa);
    f->wi = UX_R(0.5) / ((ux_real)d + kappa);
    f->scale = UX_SQRT((ux_real)d + kappa);
    ux_tests_init(&f->tests);
    f->last = UX_OK;
    return UX_OK;
}

/* The process covariance A·diag(var)·Aᵀ, A's column j = f(0, w̄ + e_j) − f(0, w̄) (the noise enters additively). */
static void process_cov(const ux_joint_cells *f, const ux_model_ctx *ctx, ux_real *Q)
{
    ux_real zero[D] = {0}, y0[D], yj[D], w[D], A[D * D];
    unsigned d = f->dim, n = f->model->code->dim_noise, a, b, j;
    f->model->code->transition(y0, zero, f->noise_mean, ctx);
    for (j = 0; j < n; ++j) {
        memcpy(w, f->noise_mean, n * sizeof(ux_real));
        w[j] = w[j] + UX_R(1.0);
        f->model->code->transition(yj, zero, w, ctx);
        for (a = 0; a < d; ++a)
            A[a * n + j] = yj[a] - y0[a];
    }
    for (a = 0; a < d; ++a)
        for (b = 0; b < d; ++b) {
            ux_real acc = 0;
            for (j = 0; j < n; ++j)
                acc = acc + (A[a * n + j] * f->noise_var[j]) * A[b * n + j];
            Q[a * d + b] = acc;
        }
}

/* Σ_j Σ_a (½(Y_{+j} + Y_{−j}) − centre)_a² / var_a over rows of n: how far the images of the ± sigma points
 * bend away from a line through the centre's image, in units of var. */
static ux_real bend(const ux_joint_cells *f, const ux_real *Y, const ux_real *centre, const ux_real *var, unsigned n)
{
    ux_real acc = 0;
    unsigned d = f->dim, j, a;
    for (j = 0; j < d; ++j)
        for (a = 0; a < n; ++a) {
            ux_real c = UX_R(0.5) * (Y[(1 + j) * n + a] + Y[(1 + d + j) * n + a]) - centre[a];
            acc = acc + (c * c) / var[a];
        }
    return acc;
}

/* Cell i's transition bend into the next bank, from its sigma points X and their images Y (P: its new
 * covariance): the centre's image is Y's first row, or computed when the centre has no weight. */
static void transition_bend(ux_joint_cells *f, unsigned i, const ux_real *X, const ux_real *Y, const ux_real *P,
                            const ux_model_ctx *ctx)
{
    ux_real centre[D], var[D];
    unsigned d = f->dim, a;
    if (first_point(f) == 0)
        memcpy(centre, Y, d * sizeof(ux_real));
    else
        f->model->code->transition(centre, X, f->noise_mean, ctx);
    for (a = 0; a < d; ++a)
        var[a] = P[a * d + a];
    f->next.b[i] = bend(f, Y, centre, var, d);
}

static void belief_moments(const ux_joint_cells *f, ux_real *mean, ux_real *cov);

/* Whether an outlier left a departure (docs/semantics.md, "Cell filter"): any component not 0. */
static int departure_kept(const ux_joint_cells *f)
{
    unsigned a;
    for (a = 0; a < f->dim; ++a)
        if (f->departure[a] != 0)
            return 1;
    return 0;
}

/* The departure carried through the transition at the noise's mean, f(m + δ) − f(m) with m the belief's mean;
 * 0 when that is not finite. */
static void departure_through(const ux_joint_cells *f, const ux_model_ctx *ctx, ux_real *moved)
{
    ux_real mean[D], cov[D * D], shifted[D], y0[D], y1[D];
    unsigned d = f->dim, a;
    belief_moments(f, mean, cov);
    for (a = 0; a < d; ++a)
        shifted[a] = mean[a] + f->departure[a];
    f->model->code->transition(y0, mean, f->noise_mean, ctx);
    f->model->code->transition(y1, shifted, f->noise_mean, ctx);
    for (a = 0; a < d; ++a)
        moved[a] = y1[a] - y0[a];
    if (!ux_all_finite(moved, d))
        memset(moved, 0, d * sizeof(ux_real));
}

ux_status ux_joint_cells_predict(ux_joint_cells *f, uint32_t k, double u)
{
    ux_real X[POINTS * D], Y[POINTS * D], Q[D * D], moved[D];
    ux_model_ctx ctx;
    unsigned d, i, p, a;
    int track;

    if (f == NULL || f->model == NULL)
        return UX_ERR_ARG;
    d = f->dim;
    ux_joint_model_context(f->model, f->params, k, (ux_real)u, &ctx);
    process_cov(f, &ctx, Q);
    if ((track = departure_kept(f)) != 0)
        departure_through(f, &ctx, moved);
    for (i = 0; i < f->count; ++i) {
        ux_real *m = f->next.m + i * d, *P = f->next.P + (size_t)i * d * d;
        sigma_points(f, f->cur.m + i * d, f->cur.P + (size_t)i * d * d, X);
        for (p = first_point(f); p < 2 * d + 1; ++p) {
            f->model->code->transition(Y + p * d, X + p * d, f->noise_mean, &ctx);
            if (!ux_all_finite(Y + p * d, d))
                return UX_ERR_DOMAIN; /* the belief is in the other bank, untouched */
        }
        points_mean(f, Y, d, m);
        points_cross(f, Y, m, d, Y, m, d, P);
        for (a = 0; a < d * d; ++a)
            P[a] = P[a] + Q[a];
        if (!ux_all_finite(P, (size_t)d * d))
            return UX_ERR_DOMAIN; /* finite points whose spread overflows: refused as a non-finite point */
        transition_bend(f, i, X, Y, P, &ctx);
        f->next.w[i] = f->cur.w[i];
    }
    swap_banks(f);
    if (track)
        memcpy(f->departure, moved, d * sizeof(ux_real));
    return UX_OK;
}

/* The belief's mean and covariance: Σ w_i m_i, Σ w_i (P_i + (m_i − mean)(m_i − mean)ᵀ). */
static void belief_moments(const ux_joint_cells *f, ux_real *mean, ux_real *cov)
{
    unsigned d = f->dim, a, b, i;
    for (a = 0; a < d; ++a) {
        ux_real acc = 0;
        for (i = 0; i < f->count; ++i)
            acc = acc + f->cur.w[i] * f->cur.m[i * d + a];
        mean[a] = acc;
    }
    for (a = 0; a < d; ++a)
        for (b = 0; b < d; ++b) {
            ux_real acc = 0;
            for (i = 0; i < f->count; ++i) {
                const ux_real *m = f->cur.m + i * d;
                acc =
                    acc + f->cur.w[i] * (f->cur.P[(size_t)i * d * d + a * d + b] + (m[a] - mean[a]) * (m[b] - mean[b]));
            }
            cov[a * d + b] = acc;
        }
}

/* Cell i's bend: its transition bend plus the kernel's, Σ_c over the observation components of
 * (Σ_j (½(h(m + sL_j) + h(m − sL_j)) − h(m))² + Σ_{j<k} (h(m + sL_j + sL_k) − h(m + sL_j) − h(m + sL_k) + h(m))²)
 * / var_c, var_c the kernel's variance at the mean: the corners see the cross terms (y/x bends only there). */
static ux_real cell_bend(const ux_joint_cells *f, unsigned i, const ux_model_ctx *ctx)
{
    ux_real X[POINTS * D], corner[D], loc[(POINTS + D * (D - 1) / 2) * D], scale[(POINTS + D * (D - 1) / 2) * D];
    ux_real acc = 0, var, t, fv = ux_family_variance(f->model->code->family);
    unsigned d = f->dim, mo = f->model->code->dim_obs, p, j, k, a, c, n;
    sigma_points(f, f->cur.m + i * d, f->cur.P + (size_t)i * d * d, X);
    for (p = 0; p < 2 * d + 1; ++p)
        f->model->code->kernel(X + p * d, ctx, loc + p * mo, scale + p * mo);
    for (j = 0, n = 2 * d + 1; j < d; ++j)
        for (k = j + 1; k < d; ++k, ++n) {
            for (a = 0; a < d; ++a)
                corner[a] = X[(1 + j) * d + a] + (X[(1 + k) * d + a] - X[a]);
            f->model->code->kernel(corner, ctx, loc + n * mo, scale + n * mo);
        }
    for (c = 0; c < mo; ++c) {
        var = (scale[c] * scale[c]) * fv;
        for (j = 0; j < d; ++j) {
            t = UX_R(0.5) * (loc[(1 + j) * mo + c] + loc[(1 + d + j) * mo + c]) - loc[c];
            acc = acc + (t * t) / var;
        }
        for (j = 0, n = 2 * d + 1; j < d; ++j)
            for (k = j + 1; k < d; ++k, ++n) {
                t = ((loc[n * mo + c] - loc[(1 + j) * mo + c]) - loc[(1 + k) * mo + c]) + loc[c];
                acc = acc + (t * t) / var;
            }
    }
    return acc + f->cur.b[i];
}

/* Cell i's top spread against the belief's covariance T = L·Lᵀ: the top eigenvalue of L⁻¹·P_i·L⁻ᵀ by power
 * iteration from the axis of its largest diagonal, into f->spread[i·(d+1)] and its unit direction after it. */
static void cell_spread(ux_joint_cells *f, unsigned i, const ux_real *L, const ux_model_ctx *ctx)
{
    ux_real B[D * D], M[D * D], col[D], y[D], v[D], u[D], lambda = 0;
    const ux_real *P = f->cur.P + (size_t)i * f->dim * f->dim;
    unsigned d = f->dim, a, b, c, it, top = 0;
    for (c = 0; c < d; ++c) { /* B = L⁻¹·P, column by column */
        for (a = 0; a < d; ++a)
            col[a] = P[a * d + c];
        ux_forward(L, d, col, y);
        for (a = 0; a < d; ++a)
            B[a * d + c] = y[a];
    }
    for (c = 0; c < d; ++c) { /* M = L⁻¹·Bᵀ = L⁻¹·P·L⁻ᵀ */
        ux_forward(L, d, B + c * d, y);
        for (a = 0; a < d; ++a)
            M[a * d + c] = y[a];
    }
    for (a = 1; a < d; ++a)
        top = M[a * d + a] > M[top * d + top] ? a : top;
    memset(v, 0, sizeof v);
    v[top] = 1;
    for (it = 0; it <= UX_CELLS_SPLIT_ITERATIONS; ++it) {
        ux_real norm = 0;
        for (a = 0; a < d; ++a) {
            ux_real acc = 0;
            for (b = 0; b < d; ++b)
                acc = acc + M[a * d + b] * v[b];
            u[a] = acc;
        }
        lambda = 0;
        for (a = 0; a < d; ++a)
            lambda = lambda + v[a] * u[a];
        if (it == UX_CELLS_SPLIT_ITERATIONS)
            break; /* λ is the Rayleigh quotient of the last direction */
        for (a = 0; a < d; ++a)
            norm = norm + u[a] * u[a];
        norm = UX_SQRT(norm);
        if (!(norm > 0))
            break;
        for (a = 0; a < d; ++a)
            v[a] = u[a] / norm;
    }
    f->spread[i * (d + 1u)] = cell_bend(f, i, ctx) > UX_R(UX_CELLS_BEND) ? lambda : UX_R(0.0); /* no gain unbent */
    memcpy(f->spread + i * (d + 1u) + 1, v, d * sizeof(ux_real));
}

/* Split cell i along its spread direction s = L·v·√λ: cells i and `count` at m ∓ c·s, each of half the weight
 * and covariance P − c²·s·sᵀ (c = √(2/π)): the two half-spaces' conditional moments of a Gaussian cell.
 * 0 (nothing changed) when a half would not be finite. */
static int split_cell(ux_joint_cells *f, unsigned i, const ux_real *L)
{
    const ux_real *v = f->spread + i * (f->dim + 1u) + 1;
    unsigned d = f->dim, n = f->count, a, b;
    ux_real delta[D], P[D * D], lo[D], hi[D], s = SPLIT_OFFSET * UX_SQRT(f->spread[i * (d + 1u)]);
    ux_real *m = f->cur.m + i * d;
    for (a = 0; a < d; ++a) {
        ux_real acc = 0;
        for (b = 0; b <= a; ++b)
            acc = acc + L[a * d + b] * v[b];
        delta[a] = s * acc;
        lo[a] = m[a] - delta[a];
        hi[a] = m[a] + delta[a];
    }
    for (a = 0; a < d; ++a)
        for (b = 0; b < d; ++b)
            P[a * d + b] = f->cur.P[(size_t)i * d * d + a * d + b] - delta[a] * delta[b];
    if (!ux_all_finite(P, (size_t)d * d) || !ux_all_finite(lo, d) || !ux_all_finite(hi, d))
        return 0;
    memcpy(f->cur.P + (size_t)i * d * d, P, (size_t)d * d * sizeof(ux_real));
    f->cur.w[i] = f->cur.w[i] * UX_R(0.5);
    bank_copy(&f->cur, n, &f->cur, i, d);
    memcpy(f->cur.m + n * d, hi, d * sizeof(ux_real));
    memcpy(m, lo, d * sizeof(ux_real));
    f->count = n + 1;
    return 1;
}

/* Remove cell i, the later ones (and their spreads) moving down (order kept). */
static void remove_cell(ux_joint_cells *f, unsigned i)
{
    unsigned j, d = f->dim;
    for (j = i + 1; j < f->count; ++j) {
        bank_copy(&f->cur, j - 1, &f->cur, j, d);
        memcpy(f->spread + (j - 1) * (d + 1u), f->spread + j * (d + 1u), (d + 1u) * sizeof(ux_real));
    }
    f->count -= 1;
}

/* Cell j becomes the moment-preserving merge of cells i and j: 1, or 0 (nothing changed) when the merge's
 * spread would not be finite (cells far apart on a scale near the largest real). */
static int merge_pair(ux_joint_cells *f, unsigned i, unsigned j)
{
    unsigned d = f->dim, a, b;
    ux_real wi = f->cur.w[i], wj = f->cur.w[j], w = wi + wj, m[D], di[D], dj[D], P[D * D];
    const ux_real *mi = f->cur.m + i * d, *mj = f->cur.m + j * d, *Pi = f->cur.P + (size_t)i * d * d;
    const ux_real *Pj = f->cur.P + (size_t)j * d * d;
    for (a = 0; a < d; ++a) {
        m[a] = (wi * mi[a] + wj * mj[a]) / w;
        di[a] = mi[a] - m[a];
        dj[a] = mj[a] - m[a];
    }
    for (a = 0; a < d; ++a)
        for (b = 0; b < d; ++b)
            P[a * d + b] = (wi * (Pi[a * d + b] + di[a] * di[b]) + wj * (Pj[a * d + b] + dj[a] * dj[b])) / w;
    if (!ux_all_finite(P, (size_t)d * d) || !ux_all_finite(m, d))
        return 0;
    memcpy(f->cur.m + j * d, m, d * sizeof(ux_real));
    memcpy(f->cur.P + (size_t)j * d * d, P, (size_t)d * d * sizeof(ux_real));
    f->cur.w[j] = w;
    f->cur.b[j] = f->cur.b[j] > f->cur.b[i] ? f->cur.b[j] : f->cur.b[i];
    return 1;
}

/* The cell of largest weight × spread (the first on a tie) and that product (0: none is positive). */
static unsigned widest_cell(const ux_joint_cells *f, ux_real *score)
{
    unsigned i, best = 0;
    *score = 0;
    for (i = 0; i < f->count; ++i) {
        ux_real s = f->cur.w[i] * f->spread[i * (f->dim + 1u)];
        if (s > *score) {
            *score = s;
            best = i;
        }
    }
    return best;
}

/* Exchange: merge the closest pair of cells when merging them costs less than splitting the widest gains, both
 * measured as the within-cell covariance's trace against the belief's (Ward's cost w_i·w_j/(w_i + w_j)·|y_i − y_j|²
 * of the whitened means y = L⁻¹·m against c²·w·λ), so a cell the likelihood has made redundant is re-split where
 * the belief is wide. At most one merge per update; the whitened means use the next bank's means as scratch. */
static void exchange_cells(ux_joint_cells *f, const ux_real *L, const ux_model_ctx *ctx)
{
    ux_real *y = f->next.m, gain, best = UX_INF;
    unsigned d = f->dim, i, j, a, bi = 0, bj = 0;
    if (f->count < 2)
        return;
    widest_cell(f, &gain);
    gain = (SPLIT_OFFSET * SPLIT_OFFSET) * gain;
    for (i = 0; i < f->count; ++i)
        ux_forward(L, d, f->cur.m + i * d, y + i * d);
    for (i = 0; i < f->count; ++i)
        for (j = i + 1; j < f->count; ++j) {
            ux_real dist = 0, cost;
            for (a = 0; a < d; ++a)
                dist = dist + (y[i * d + a] - y[j * d + a]) * (y[i * d + a] - y[j * d + a]);
            cost = (f->cur.w[i] * f->cur.w[j] / (f->cur.w[i] + f->cur.w[j])) * dist;
            if (cost < best) {
                best = cost;
                bi = i;
                bj = j;
            }
        }
    if (!(best < gain) || !merge_pair(f, bi, bj))
        return;
    remove_cell(f, bi);
    cell_spread(f, bj - 1, L, ctx);
}

/* Before an update: one exchange (unless turned off), then while fewer than η cells, split the widest. */
static void split_cells(ux_joint_cells *f, const ux_model_ctx *ctx)
{
    ux_real mean[D], T[D * D], L[D * D], top;
    unsigned i, d = f->dim;
    belief_moments(f, mean, T);
    if (!ux_all_finite(T, (size_t)d * d) || !ux_cholesky(T, d, L))
        return; /* a flat belief has no direction to split along, an overflowing one no scale */
    for (i = 0; i < f->count; ++i)
        cell_spread(f, i, L, ctx);
    if (f->exchange)
        exchange_cells(f, L, ctx);
    while (f->count < f->eta) {
        unsigned best = widest_cell(f, &top);
        if (!(top > 0) || !split_cell(f, best, L))
            return;
        cell_spread(f, best, L, ctx);
        cell_spread(f, f->count - 1, L, ctx);
    }
}

/* The kernel's moments at cell i's sigma points: predicted observation zh, its covariance plus the kernel's
 * mean variance S (dim_obs²), the state–observation cross-covariance C (dim × dim_obs). */
static void observation_moments(const ux_joint_cells *f, unsigned i, const ux_model_ctx *ctx, ux_real *zh, ux_real *S,
                                ux_real *C)
{
    ux_real X[POINTS * D], loc[POINTS * D], scale[POINTS * D], noise;
    unsigned d = f->dim, mo = f->model->code->dim_obs, p, c;
    const ux_real *m = f->cur.m + i * d;
    ux_real fv = ux_family_variance(f->model->code->family);
    sigma_points(f, m, f->cur.P + (size_t)i * d * d, X);
    for (p = first_point(f); p < 2 * d + 1; ++p)
        f->model->code->kernel(X + p * d, ctx, loc + p * mo, scale + p * mo);
    points_mean(f, loc, mo, zh);
    points_cross(f, loc, zh, mo, loc, zh, mo, S);
    points_cross(f, X, m, d, loc, zh, mo, C);
    for (c = 0; c < mo; ++c) {
        noise = 0;
        for (p = first_point(f); p < 2 * d + 1; ++p)
            noise = noise + point_weight(f, p) * ((scale[p * mo + c] * scale[p * mo + c]) * fv);
        S[c * mo + c] = S[c * mo + c] + noise;
    }
}

/* Cell i's unscented update into the next bank: m + G·y, P − G·Gᵀ with S = Ls·Lsᵀ, y = Ls⁻¹(z − zh),
 * G = C·Ls⁻ᵀ; returns log w_i + log N(z; zh, S), or −∞ when S is not positive definite or a result is not
 * finite (the cell then keeps its prediction, with weight 0). */
static ux_real update_cell(ux_joint_cells *f, unsigned i, const ux_real *z, const ux_model_ctx *ctx, ux_gate_sums *g)
{
    ux_real zh[D], S[D * D], C[D * D], Ls[D * D], nu[D], y[D], G[D * D], maha = 0, half = 0, lw;
    unsigned d = f->dim, mo = f->model->code->dim_obs, a, b, c, e;
    const ux_real *m = f->cur.m + i * d, *P = f->cur.P + (size_t)i * d * d;
    ux_real *mn = f->next.m + i * d, *Pn = f->next.P + (size_t)i * d * d;
    bank_copy(&f->next, i, &f->cur, i, d);
    observation_moments(f, i, ctx, zh, S, C);
    ux_gate_add(g, f->cur.w[i], zh, S, mo);
    if (!ux_cholesky(S, mo, Ls))
        return -UX_INF;
    for (c = 0; c < mo; ++c)
        nu[c] = z[c] - zh[c];
    ux_forward(Ls, mo, nu, y);
    for (c = 0; c < mo; ++c) {
        maha = maha + y[c] * y[c];
        half = half + UX_LOG(Ls[c * mo + c]);
    }
    for (a = 0; a < d; ++a)
        for (c = 0; c < mo; ++c) {
            ux_real t = C[a * mo + c];
            for (e = 0; e < c; ++e)
                t = t - G[a * mo + e] * Ls[c * mo + e];
            G[a * mo + c] = t / Ls[c * mo + c];
        }
    for (a = 0; a < d; ++a) {
        ux_real acc = 0;
        for (c = 0; c < mo; ++c)
            acc = acc + G[a * mo + c] * y[c];
        mn[a] = m[a] + acc;
        for (b = 0; b < d; ++b) {
            ux_real g = 0;
            for (c = 0; c < mo; ++c)
                g = g + G[a * mo + c] * G[b * mo + c];
            Pn[a * d + b] = P[a * d + b] - g;
        }
    }
    lw = UX_LOG(f->cur.w[i]) + ((-(UX_R(0.5) * maha) - half) - (ux_real)mo * (UX_R(0.5) * UX_LOG_2PI));
    if (!ux_all_finite(Pn, (size_t)d * d) || !ux_all_finite(mn, d))
        lw = -UX_INF;
    if (!(lw > -UX_INF)) { /* NaN too */
        bank_copy(&f->next, i, &f->cur, i, d);
        return -UX_INF;
    }
    return lw;
}

/* The cell nearest cell i: the least (m_i − m_j)ᵀ·T⁻¹·(m_i − m_j), T = L·Lᵀ (the first on a tie). */
static unsigned nearest_cell(const ux_joint_cells *f, unsigned i, const ux_real *L)
{
    ux_real diff[D], y[D], best = UX_INF;
    unsigned d = f->dim, j, a, out = i == 0 ? 1u : 0u;
    for (j = 0; j < f->count; ++j) {
        ux_real dist = 0;
        if (j == i)
            continue;
        for (a = 0; a < d; ++a)
            diff[a] = f->cur.m[i * d + a] - f->cur.m[j * d + a];
        ux_forward(L, d, diff, y);
        for (a = 0; a < d; ++a)
            dist = dist + y[a] * y[a];
        if (dist < best) {
            best = dist;
            out = j;
        }
    }
    return out;
}

/* After an update: the lightest cell, while lighter than UX_CELLS_MERGE_WEIGHT, merged into its nearest (one of
 * weight 0 dropped). */
static void merge_cells(ux_joint_cells *f)
{
    ux_real mean[D], T[D * D], L[D * D];
    int have_metric = 0;
    while (f->count > 1) {
        unsigned i, lightest = 0;
        for (i = 1; i < f->count; ++i)
            lightest = f->cur.w[i] < f->cur.w[lightest] ? i : lightest;
        if (!(f->cur.w[lightest] < UX_R(UX_CELLS_MERGE_WEIGHT)))
            return;
        if (!(f->cur.w[lightest] > 0)) {
            remove_cell(f, lightest);
            continue;
        }
        if (!have_metric) { /* merges keep the belief's covariance: one metric serves them all */
            belief_moments(f, mean, T);
            if (!ux_all_finite(T, (size_t)f->dim * f->dim) || !ux_cholesky(T, f->dim, L))
                return;
            have_metric = 1;
        }
        if (!merge_pair(f, lightest, nearest_cell(f, lightest, L)))
            return; /* the light cell stays: merging it would not give a finite cell */
        remove_cell(f, lightest);
    }
}

/* One cell over its update (cur: the split cell, next: the updated one): the change of the kernel's location a
 * line through the cell predicts, lin = Cᵀ·P⁻¹·(m' − m), and what the location did beyond it,
 * e = h(m') − h(m) − lin, each as a length in the cell's S; 0 where a factor is not positive definite or a
 * length not finite. */
static int cell_bent(const ux_joint_cells *f, unsigned i, const ux_model_ctx *ctx, ux_real *lin_len, ux_real *bent_len)
{
    ux_real zh[D], S[D * D], C[D * D], Ls[D * D], Lp[D * D], h0[D], h1[D], scale[D], step[D], u[D], col[D], v[D];
    ux_real lin[D], bent[D];
    unsigned d = f->dim, mo = f->model->code->dim_obs, a, c;
    const ux_real *m = f->cur.m + i * d, *mn = f->next.m + i * d;
    observation_moments(f, i, ctx, zh, S, C);
    if (!ux_cholesky(S, mo, Ls) || !ux_cholesky(f->cur.P + (size_t)i * d * d, d, Lp))
        return 0;
    f->model->code->kernel(m, ctx, h0, scale);
    f->model->code->kernel(mn, ctx, h1, scale);
    for (a = 0; a < d; ++a)
        step[a] = mn[a] - m[a];
    ux_forward(Lp, d, step, u);
    for (c = 0; c < mo; ++c) {
        ux_real acc = 0;
        for (a = 0; a < d; ++a)
            col[a] = C[a * mo + c];
        ux_forward(Lp, d, col, v);
        for (a = 0; a < d; ++a)
            acc = acc + v[a] * u[a];
        lin[c] = acc;
        bent[c] = (h1[c] - h0[c]) - acc;
    }
    *lin_len = UX_SQRT(ux_metric(Ls, mo, lin));
    *bent_len = UX_SQRT(ux_metric(Ls, mo, bent));
    return ux_finite(*lin_len) && ux_finite(*bent_len);
}

/* The share of the update's move the kernel did not follow: Σ w_i·|e_i| / Σ w_i·|lin_i| over the updated cells of
 * positive weight (cell_bent), in cell order; 0 when Σ w_i·|lin_i| is not positive or the share not finite. */
static ux_real bent_share(const ux_joint_cells *f, const ux_model_ctx *ctx)
{
    ux_real num = 0, den = 0, lin, bent, share;
    unsigned i;
    for (i = 0; i < f->count; ++i) {
        if (!(f->next.w[i] > 0) || !cell_bent(f, i, ctx, &lin, &bent))
            continue;
        num = num + f->next.w[i] * bent;
        den = den + f->next.w[i] * lin;
    }
    share = den > 0 ? num / den : UX_R(0.0);
    return ux_finite(share) ? share : UX_R(0.0);
}

/* The move a linear update of the whole belief would make at z: C·S⁻¹·ν, with the split cells' predictive
 * innovation ν and covariance S from the update's gate sums g, and their state–observation cross-covariance
 * C = Σ w_i·(C_i + (m_i − m_0)(ẑ_i − ẑ_0)ᵀ)/W − (m̄ − m_0)(ẑ − ẑ_0)ᵀ, summed in cell order about the first cell's
 * m and ẑ. 0 where S is not positive definite or a value not finite. */
static int linear_move(const ux_joint_cells *f, const ux_model_ctx *ctx, const ux_gate_sums *g, const ux_real *z,
                       ux_real *move)
{
    ux_real zh[D], S[D * D], C[D * D], sm[D] = {0}, X[D * D] = {0}, Sz[D * D], Ls[D * D], nu[D], x[D];
    unsigned d = f->dim, mo = f->model->code->dim_obs, i, a, c;
    const ux_real *m0 = f->cur.m;
    for (i = 0; i < f->count; ++i) {
        const ux_real *m = f->cur.m + i * d, w = f->cur.w[i];
        observation_moments(f, i, ctx, zh, S, C);
        for (a = 0; a < d; ++a) {
            sm[a] = sm[a] + w * (m[a] - m0[a]);
            for (c = 0; c < mo; ++c)
                X[a * mo + c] = X[a * mo + c] + w * (C[a * mo + c] + (m[a] - m0[a]) * (zh[c] - g->z0[c]));
        }
    }
    if (!ux_gate_innovation(g, z, mo, nu, Sz) || !ux_cholesky(Sz, mo, Ls))
        return 0;
    ux_solve(Ls, mo, nu, x);
    for (a = 0; a < d; ++a) {
        ux_real acc = 0;
        for (c = 0; c < mo; ++c)
            acc = acc + (X[a * mo + c] / g->W - (sm[a] / g->W) * (g->s[c] / g->W)) * x[c];
        move[a] = acc;
    }
    return ux_all_finite(move, d);
}

/* What an outlier's update left, read while the split cells are in cur: the share of the move the kernel did not
 * follow (bent_share), and the move a linear update of the whole belief would have made (linear_move). */
typedef struct {
    ux_real share, linear[D];
    int has_linear;
} outlier_move;

/* The gap a weighed outlier leaves, mp the belief's mean before the update, m after, lengths in the metric of L:
 * share·(m − mp) (the cells went where the kernel does not), or, when the linear move is longer than the cells'
 * own, (1 − |m − mp|/|linear|)·linear (they fell short of where a linear update goes, as the scalar filter's
 * departure measures it) where that is longer; the first on a tie. */
static void fresh_departure(const outlier_move *om, const ux_real *m, const ux_real *mp, const ux_real *L, unsigned d,
                            ux_real *fresh)
{
    ux_real step[D] = {0}, under[D] = {0}, lin_len, step_len;
    unsigned a;
    for (a = 0; a < d; ++a) {
        step[a] = m[a] - mp[a];
        fresh[a] = om->share * step[a];
    }
    if (!om->has_linear)
        return;
    lin_len = UX_SQRT(ux_metric(L, d, om->linear));
    step_len = UX_SQRT(ux_metric(L, d, step));
    if (!(lin_len > step_len))
        return;
    for (a = 0; a < d; ++a)
        under[a] = (UX_R(1.0) - step_len / lin_len) * om->linear[a];
    if (ux_metric(L, d, under) > ux_metric(L, d, fresh))
        memcpy(fresh, under, d * sizeof(ux_real));
}

/* After a weighed update (banks swapped, light cells merged), mp and Pp the belief before it: the departure
 * through the update, δ ← P·Pp⁻¹·δ (what a linear update forgets of an old reading); at an outlier (om not NULL)
 * the fresh gap in its place when that is longer in P. DEPARTED in place of OK while δᵀ·P⁻¹·δ exceeds
 * UX_DEPARTURE_SD². */
static ux_status track_departure(ux_joint_cells *f, const outlier_move *om, const ux_real *mp, const ux_real *Pp,
                                 ux_status st)
{
    ux_real m[D], P[D * D], Lp[D * D], L[D * D], y[D], kept[D] = {0}, fresh[D] = {0};
    unsigned d = f->dim, a, b;
    belief_moments(f, m, P);
    if (!ux_cholesky(Pp, d, Lp) || !ux_cholesky(P, d, L))
        return st; /* a flat belief: the departure is left as it was, and not tested */
    ux_solve(Lp, d, f->departure, y);
    for (a = 0; a < d; ++a) {
        ux_real acc = 0;
        for (b = 0; b < d; ++b)
            acc = acc + P[a * d + b] * y[b];
        kept[a] = acc;
    }
    if (om != NULL)
        fresh_departure(om, m, mp, L, d, fresh);
    memcpy(f->departure, om != NULL && ux_metric(L, d, fresh) > ux_metric(L, d, kept) ? fresh : kept,
           d * sizeof(ux_real));
    if (!ux_all_finite(f->departure, d))
        memset(f->departure, 0, sizeof f->departure);
    return st == UX_OK && ux_metric(L, d, f->departure) > UX_DEPARTURE_SD * UX_DEPARTURE_SD ? UX_DEPARTED : st;
}

static ux_status check_observation(const ux_joint_cells *f, const double *z, const double *omega, unsigned J,
                                   unsigned m, ux_real *zr)
{
    unsigned c;
    if (z == NULL || J != 1 || m != 1)
        return m < 1 ? UX_ERR_DOMAIN : UX_ERR_ARG;
    if (omega != NULL && !(isfinite(omega[0]) && omega[0] > 0))
        return UX_ERR_DOMAIN;
    for (c = 0; c < f->model->code->dim_obs; ++c) {
        zr[c] = (ux_real)z[c];
        if (!ux_finite(zr[c]))
            return UX_ERR_DOMAIN;
    }
    return UX_OK;
}

/* The cells' new weights from their log-weights lw (in next.w): exp(lw − max) normalised, and the evidence
 * log Σ exp(lw). 0 when no cell has a finite log-weight. */
static int normalise_weights(ux_joint_cells *f)
{
    ux_real top = -UX_INF, sum = 0;
    unsigned i;
    for (i = 0; i < f->count; ++i)
        top = f->next.w[i] > top ? f->next.w[i] : top;
    if (!ux_finite(top))
        return 0;
    for (i = 0; i < f->count; ++i) {
        f->next.w[i] = UX_EXP(f->next.w[i] - top);
        sum = sum + f->next.w[i];
    }
    for (i = 0; i < f->count; ++i)
        f->next.w[i] = f->next.w[i] / sum;
    f->log_evidence = top + UX_LOG(sum);
    return 1;
}

ux_status ux_joint_cells_update(ux_joint_cells *f, const double *z, const double *omega, unsigned J, unsigned m)
{
    ux_real zr[UX_JOINT_MAX_OBS], mp[D], Pp[D * D];
    outlier_move om;
    ux_model_ctx ctx;
    ux_gate_sums gate;
    unsigned i;
    int outlier, track, inconsistent;
    ux_status st;

    if (f == NULL || f->model == NULL)
        return UX_ERR_ARG;
    if (J == 0 && m == 0) {
        f->last = UX_NO_EVIDENCE;
        f->log_evidence = 0;
        f->tests.ratio = (ux_real)NAN;
        return UX_NO_EVIDENCE;
    }
    if ((st = check_observation(f, z, omega, J, m, zr)) != UX_OK)
        return st;
    ux_joint_model_context(f->model, f->params, 0, 0, &ctx);
    split_cells(f, &ctx);
    memset(&gate, 0, sizeof gate);
    for (i = 0; i < f->count; ++i)
        f->next.w[i] = update_cell(f, i, zr, &ctx, &gate);
    outlier = ux_tests_outlier(&f->tests, ux_gate_ratio(&gate, zr, f->model->code->dim_obs));
    inconsistent = ux_tests_track(&f->tests, f->model->code->dim_obs);
    if (outlier && f->tests.drop) { /* not weighed: the cells as split, nothing observed */
        f->last = UX_OUTLIER;
        f->log_evidence = 0;
        return UX_OUTLIER;
    }
    if (!normalise_weights(f)) {
        f->last = UX_FALLBACK;
        f->log_evidence = -UX_INF;
        f->log_likelihood += (double)f->log_evidence;
        return UX_FALLBACK;
    }
    if ((track = outlier || departure_kept(f)) != 0) { /* the belief before the update, while it is in cur */
        if (outlier) {
            om.share = bent_share(f, &ctx);
            om.has_linear = linear_move(f, &ctx, &gate, zr, om.linear);
        }
        belief_moments(f, mp, Pp);
    }
    swap_banks(f);
    merge_cells(f);
    f->last = outlier ? UX_OUTLIER : UX_OK;
    if (track)
        f->last = track_departure(f, outlier ? &om : NULL, mp, Pp, f->last);
    if (inconsistent && f->last == UX_OK)
        f->last = UX_INCONSISTENT;
    f->log_likelihood += (double)f->log_evidence;
    return f->last;
}

size_t ux_joint_cells_workspace_bytes(const ux_joint_model *model, unsigned eta)
{
    if (model == NULL || ux_log2_eta(eta) < 0 || model->dim < 1 || model->dim > UX_MAX_DIM)
        return 0;
    return UX_JOINT_CELLS_WORKSPACE_BYTES(eta, model->dim);
}

ux_status ux_joint_cells_set_exchange(ux_joint_cells *f, int on)
{
    if (f == NULL || (on != 0 && on != 1))
        return UX_ERR_ARG;
    f->exchange = (uint8_t)on;
    return UX_OK;
}

ux_status ux_joint_cells_set_gate(ux_joint_cells *f, double gate, int gate_outliers)
{
    return f != NULL && f->model != NULL ? ux_tests_set_gate(&f->tests, gate, gate_outliers) : UX_ERR_ARG;
}

ux_status ux_joint_cells_departure(const ux_joint_cells *f, double *departure)
{
    unsigned a;
    if (f == NULL || f->model == NULL || departure == NULL)
        return UX_ERR_ARG;
    for (a = 0; a < f->dim; ++a)
        departure[a] = (double)f->departure[a];
    return UX_OK;
}

double ux_joint_cells_test_ratio(const ux_joint_cells *f) { return f != NULL ? (double)f->tests.ratio : (double)NAN; }
double ux_joint_cells_nis(const ux_joint_cells *f) { return f != NULL ? (double)f->tests.nis : (double)NAN; }

ux_status ux_joint_cells_set_consistency(ux_joint_cells *f, double limit)
{
    return f != NULL && f->model != NULL ? ux_tests_set_consistency(&f->tests, limit) : UX_ERR_ARG;
}
size_t ux_joint_cells_sizeof(void) { return sizeof(ux_joint_cells); }
unsigned ux_joint_cells_count(const ux_joint_cells *f) { return f != NULL ? f->count : 0u; }
ux_status ux_joint_cells_last_status(const ux_joint_cells *f) { return f != NULL ? f->last : UX_ERR_ARG; }
double ux_joint_cells_log_evidence(const ux_joint_cells *f) { return (double)f->log_evidence; }
double ux_joint_cells_log_likelihood(const ux_joint_cells *f) { return f->log_likelihood; }

ux_status ux_joint_cells_cell(const ux_joint_cells *f, unsigned i, double *w, double *mean, double *cov)
{
    unsigned d, a;
    if (f == NULL || f->model == NULL || i >= f->count || w == NULL || mean == NULL || cov == NULL)
        return UX_ERR_ARG;
    d = f->dim;
    *w = (double)f->cur.w[i];
    for (a = 0; a < d; ++a)
        mean[a] = (double)f->cur.m[i * d + a];
    for (a = 0; a < d * d; ++a)
        cov[a] = (double)f->cur.P[(size_t)i * d * d + a];
    return UX_OK;
}

/* The belief's mean and covariance as doubles into whichever of mean, cov is not NULL. */
static ux_status belief_out(const ux_joint_cells *f, double *mean, double *cov)
{
    ux_real m[D], T[D * D];
    unsigned a;
    if (f == NULL || f->model == NULL)
        return UX_ERR_ARG;
    belief_moments(f, m, T);
    for (a = 0; mean != NULL && a < f->dim; ++a)
        mean[a] = (double)m[a];
    for (a = 0; cov != NULL && a < f->dim * f->dim; ++a)
        cov[a] = (double)T[a];
    return UX_OK;
}

ux_status ux_joint_cells_mean(const ux_joint_cells *f, double *mean)
{
    return mean == NULL ? UX_ERR_ARG : belief_out(f, mean, NULL);
}

ux_status ux_joint_cells_cov(const ux_joint_cells *f, double *cov)
{
    return cov == NULL ? UX_ERR_ARG : belief_out(f, NULL, cov);
}

double ux_joint_cells_logpdf(const ux_joint_cells *f, const double *x)
{
    ux_real L[D * D], diff[D], y[D], lp[UX_MAX_ETA], top = -UX_INF, sum = 0;
    unsigned d, i, a;
    if (f == NULL || f->model == NULL || x == NULL)
        return (double)NAN;
    d = f->dim;
    for (i = 0; i < f->count; ++i) {
        ux_real maha = 0, half = 0;
        lp[i] = -UX_INF;
        if (!ux_cholesky(f->cur.P + (size_t)i * d * d, d, L) || !(f->cur.w[i] > 0))
            continue;
        for (a = 0; a < d; ++a)
            diff[a] = (ux_real)x[a] - f->cur.m[i * d + a];
        ux_forward(L, d, diff, y);
        for (a = 0; a < d; ++a) {
            maha = maha + y[a] * y[a];
            half = half + UX_LOG(L[a * d + a]);
        }
        lp[i] = UX_LOG(f->cur.w[i]) + ((-(UX_R(0.5) * maha) - half) - (ux_real)d * (UX_R(0.5) * UX_LOG_2PI));
        top = lp[i] > top ? lp[i] : top;
    }
    if (!ux_finite(top))
        return (double)top;
    for (i = 0; i < f->count; ++i)
        sum = sum + UX_EXP(lp[i] - top);
    return (double)(top + UX_LOG(sum));
}
