/* Extended and unscented Kalman filters over the joint systems (uxbench/joint_kf.h). */
#include <math.h>
#include <string.h>

#include "uxbench/joint_kf.h"
#include "uxbench/kf.h"
#include "uxbench/moments.h"

#define D UX_MAX_DIM
#define MAX_POINTS (2 * UX_MAX_DIM + 1)
#define LOG_2PI 1.83787706640934548356

typedef struct {
    const ux_joint_model *model;
    ux_model_ctx ctx;
    ux_real params[UX_MODEL_MAX_PARAMS];
    unsigned dim, dim_noise, dim_obs;
    double w_mean[UX_JOINT_MAX_NOISES], w_sd[UX_JOINT_MAX_NOISES];
    double e_var; /* the kernel family's standard variance */
} kf_state;

/* -- the model, in doubles ------------------------------------------------------------------------- */
static void f(const kf_state *s, const double *x, const double *w, double *out)
{
    ux_real xr[D], wr[UX_JOINT_MAX_NOISES], o[D];
    unsigned c;
    for (c = 0; c < s->dim; ++c)
        xr[c] = (ux_real)x[c];
    for (c = 0; c < s->dim_noise; ++c)
        wr[c] = (ux_real)w[c];
    s->model->code->transition(o, xr, wr, &s->ctx);
    for (c = 0; c < s->dim; ++c)
        out[c] = (double)o[c];
}

static void obs(const kf_state *s, const double *x, double *loc, double *scale)
{
    ux_real xr[D], l[UX_JOINT_MAX_OBS], sc[UX_JOINT_MAX_OBS];
    unsigned c;
    for (c = 0; c < s->dim; ++c)
        xr[c] = (ux_real)x[c];
    s->model->code->kernel(xr, &s->ctx, l, sc);
    for (c = 0; c < s->dim_obs; ++c) {
        loc[c] = (double)l[c];
        if (scale != NULL)
            scale[c] = (double)sc[c];
    }
}

/* -- small dense matrices, row-major ---------------------------------------------------------------- */
/* out (r × c) = a (r × m) · b (m × c), or with b transposed (b is c × m) when bt. */
static void mul(const double *a, const double *b, double *out, unsigned r, unsigned m, unsigned c, int bt)
{
    double tmp[D * D];
    unsigned i, j, l;
    for (i = 0; i < r; ++i)
        for (j = 0; j < c; ++j) {
            double sum = 0;
            for (l = 0; l < m; ++l)
                sum += a[i * m + l] * (bt ? b[j * m + l] : b[l * c + j]);
            tmp[i * c + j] = sum;
        }
    memcpy(out, tmp, r * c * sizeof(double));
}

static void symmetrise(double *P, unsigned n)
{
    unsigned i, j;
    for (i = 0; i < n; ++i)
        for (j = i + 1; j < n; ++j)
            P[i * n + j] = P[j * n + i] = 0.5 * (P[i * n + j] + P[j * n + i]);
}

/* Lower Cholesky factor of a symmetric P ≥ 0; a non-positive pivot zeroes its column. */
static void cholesky(const double *P, double *L, unsigned n)
{
    unsigned i, j, l;
    memset(L, 0, n * n * sizeof(double));
    for (j = 0; j < n; ++j) {
        double d = P[j * n + j];
        for (l = 0; l < j; ++l)
            d -= L[j * n + l] * L[j * n + l];
        if (!(d > 0))
            continue;
        L[j * n + j] = sqrt(d);
        for (i = j + 1; i < n; ++i) {
            double v = P[i * n + j];
            for (l = 0; l < j; ++l)
                v -= L[i * n + l] * L[j * n + l];
            L[i * n + j] = v / L[j * n + j];
        }
    }
}

/* inv = S⁻¹ by Gauss–Jordan with partial pivoting; 0 on success, 1 when S is singular or not finite. */
static int invert(const double *S, double *inv, unsigned n)
{
    double a[D * D];
    unsigned i, j, r;
    memcpy(a, S, n * n * sizeof(double));
    memset(inv, 0, n * n * sizeof(double));
    for (i = 0; i < n; ++i)
        inv[i * n + i] = 1.0;
    for (j = 0; j < n; ++j) {
        unsigned p = j;
        double pivot;
        for (r = j + 1; r < n; ++r)
            if (fabs(a[r * n + j]) > fabs(a[p * n + j]))
                p = r;
        if (!(fabs(a[p * n + j]) > 0) || !isfinite(a[p * n + j]))
            return 1;
        for (i = 0; i < n; ++i) {
            double t = a[j * n + i];
            a[j * n + i] = a[p * n + i];
            a[p * n + i] = t;
            t = inv[j * n + i];
            inv[j * n + i] = inv[p * n + i];
            inv[p * n + i] = t;
        }
        pivot = a[j * n + j];
        for (i = 0; i < n; ++i) {
            a[j * n + i] /= pivot;
            inv[j * n + i] /= pivot;
        }
        for (r = 0; r < n; ++r)
            if (r != j) {
                double m = a[r * n + j];
                for (i = 0; i < n; ++i) {
                    a[r * n + i] -= m * a[j * n + i];
                    inv[r * n + i] -= m * inv[j * n + i];
                }
            }
    }
    for (i = 0; i < n * n; ++i)
        if (!isfinite(inv[i]))
            return 1;
    return 0;
}

/* An update's innovation, when asked: log N(v; 0, S) and the normalised innovation squared vᵀS⁻¹v. */
typedef struct {
    double log_density, nis;
} kf_innovation;

/* An update skipped for a singular S: its innovation, when asked, has density 0 and no ratio. Returns 1 (skipped). */
static int singular(kf_innovation *innov)
{
    if (innov != NULL) {
        innov->log_density = -INFINITY;
        innov->nis = NAN;
    }
    return 1;
}

/* The innovation v (m) with S⁻¹ = Si into *out; −∞ and NaN when S is not positive definite. */
static void innovation_of(const double *v, const double *S, const double *Si, unsigned m, kf_innovation *out)
{
    double L[D * D], q = 0, log_det = 0;
    unsigned a, b;
    cholesky(S, L, m);
    for (a = 0; a < m; ++a) {
        if (!(L[a * m + a] > 0)) {
            singular(out);
            return;
        }
        log_det += 2 * log(L[a * m + a]);
        for (b = 0; b < m; ++b)
            q += v[a] * Si[a * m + b] * v[b];
    }
    out->log_density = -0.5 * (m * LOG_2PI + log_det + q);
    out->nis = q;
}

/* -- the noises ---------------------------------------------------------------------------------------- */
/* Q = Σ_j d_j d_jᵀ, d_j = f(x̂, w̄ + σ_j e_j) − f(x̂, w̄): the additive noise's effect, read from the model. */
static void process_cov(const kf_state *s, const double *x, const double *fx, double *Q)
{
    double w[UX_JOINT_MAX_NOISES], y[D], d[D];
    unsigned j, a, b, n = s->dim;
    memset(Q, 0, n * n * sizeof(double));
    for (j = 0; j < s->dim_noise; ++j) {
        memcpy(w, s->w_mean, s->dim_noise * sizeof(double));
        w[j] += s->w_sd[j];
        f(s, x, w, y);
        for (a = 0; a < n; ++a)
            d[a] = y[a] - fx[a];
        for (a = 0; a < n; ++a)
            for (b = 0; b < n; ++b)
                Q[a * n + b] += d[a] * d[b];
    }
}

/* R = diag(scale_c(x̂)²·var(e)). */
static void obs_cov(const kf_state *s, const double *scale, double *R)
{
    unsigned c, m = s->dim_obs;
    memset(R, 0, m * m * sizeof(double));
    for (c = 0; c < m; ++c)
        R[c * m + c] = scale[c] * scale[c] * s->e_var;
}

/* -- steps --------------------------------------------------------------------------------------------- */
static void ekf_predict(const kf_state *s, double *x, double *P)
{
    double F[D * D], Q[D * D], fx[D], xp[D], xm[D], yp[D], ym[D];
    unsigned i, a, n = s->dim;
    f(s, x, s->w_mean, fx);
    for (i = 0; i < n; ++i) {
        double h = uxb_diff_step(x[i], sqrt(P[i * n + i]));
        memcpy(xp, x, n * sizeof(double));
        memcpy(xm, x, n * sizeof(double));
        xp[i] += h;
        xm[i] -= h;
        f(s, xp, s->w_mean, yp);
        f(s, xm, s->w_mean, ym);
        for (a = 0; a < n; ++a)
            F[a * n + i] = (yp[a] - ym[a]) / (xp[i] - xm[i]);
    }
    process_cov(s, x, fx, Q);
    mul(F, P, P, n, n, n, 0);
    mul(P, F, P, n, n, n, 1);
    for (a = 0; a < n * n; ++a)
        P[a] += Q[a];
    symmetrise(P, n);
    memcpy(x, fx, n * sizeof(double));
}

/* Sigma points of N(x, P): row 0 the mean, rows 1 + 2i and 2 + 2i at x ± c·L_i. */
static unsigned sigma_points(const double *x, const double *P, unsigned n, double c, double *X)
{
    double L[D * D];
    unsigned i, a;
    cholesky(P, L, n);
    memcpy(X, x, n * sizeof(double));
    for (i = 0; i < n; ++i)
        for (a = 0; a < n; ++a) {
            X[(1 + 2 * i) * n + a] = x[a] + c * L[a * n + i];
            X[(2 + 2 * i) * n + a] = x[a] - c * L[a * n + i];
        }
    return 2 * n + 1;
}

static double weight_m(const uxb_ut_weights *u, unsigned p) { return p == 0 ? u->wm0 : u->wi; }
static double weight_c(const uxb_ut_weights *u, unsigned p) { return p == 0 ? u->wc0 : u->wi; }

/* mean (m) of the rows of Y (points × m) and Σ Wᶜ (A − ā)(B − b̄)ᵀ into C (ma × mb). */
static void ut_mean(const uxb_ut_weights *u, const double *Y, unsigned points, unsigned m, double *mean)
{
    unsigned p, a;
    for (a = 0; a < m; ++a)
        mean[a] = 0;
    for (p = 0; p < points; ++p)
        for (a = 0; a < m; ++a)
            mean[a] += weight_m(u, p) * Y[p * m + a];
}

static void ut_cov(const uxb_ut_weights *u, const double *A, const double *am, unsigned ma, const double *B,
                   const double *bm, unsigned mb, unsigned points, double *C)
{
    unsigned p, a, b;
    memset(C, 0, ma * mb * sizeof(double));
    for (p = 0; p < points; ++p)
        for (a = 0; a < ma; ++a)
            for (b = 0; b < mb; ++b)
                C[a * mb + b] += weight_c(u, p) * (A[p * ma + a] - am[a]) * (B[p * mb + b] - bm[b]);
}

static void ukf_predict(const kf_state *s, double *x, double *P)
{
    uxb_ut_weights u = uxb_ut_weights_for(s->dim);
    double X[MAX_POINTS * D], Y[MAX_POINTS * D], Q[D * D], fx[D], mean[D];
    unsigned p, a, n = s->dim, points = sigma_points(x, P, n, u.c, X);
    for (p = 0; p < points; ++p)
        f(s, X + p * n, s->w_mean, Y + p * n);
    memcpy(fx, Y, n * sizeof(double));
    ut_mean(&u, Y, points, n, mean);
    ut_cov(&u, Y, mean, n, Y, mean, n, points, P);
    process_cov(s, x, fx, Q);
    for (a = 0; a < n * n; ++a)
        P[a] += Q[a];
    symmetrise(P, n);
    memcpy(x, mean, n * sizeof(double));
}

static int finite_all(const double *v, unsigned n)
{
    unsigned i;
    for (i = 0; i < n; ++i)
        if (!isfinite(v[i]))
            return 0;
    return 1;
}

static int ekf_update(const kf_state *s, const double *z, double *x, double *P, kf_innovation *innov)
{
    double loc[UX_JOINT_MAX_OBS], scale[UX_JOINT_MAX_OBS], lp[UX_JOINT_MAX_OBS], lm[UX_JOINT_MAX_OBS];
    double H[D * D], R[D * D], S[D * D], Si[D * D], PHt[D * D], K[D * D], IKH[D * D], KR[D * D], xp[D], xm[D];
    unsigned i, a, c, n = s->dim, m = s->dim_obs;
    obs(s, x, loc, scale);
    for (i = 0; i < n; ++i) {
        double h = uxb_diff_step(x[i], sqrt(P[i * n + i]));
        memcpy(xp, x, n * sizeof(double));
        memcpy(xm, x, n * sizeof(double));
        xp[i] += h;
        xm[i] -= h;
        obs(s, xp, lp, NULL);
        obs(s, xm, lm, NULL);
        for (c = 0; c < m; ++c)
            H[c * n + i] = (lp[c] - lm[c]) / (xp[i] - xm[i]);
    }
    obs_cov(s, scale, R);
    mul(P, H, PHt, n, n, m, 1); /* P Hᵀ: n × m */
    mul(H, PHt, S, m, n, m, 0); /* H P Hᵀ */
    for (a = 0; a < m * m; ++a)
        S[a] += R[a];
    if (!finite_all(z, m))
        return 1;
    if (invert(S, Si, m))
        return singular(innov);
    for (c = 0; c < m; ++c)
        loc[c] = z[c] - loc[c]; /* the innovation */
    if (innov != NULL) /* only when asked: a filter that is not fitted does not pay for it */
        innovation_of(loc, S, Si, m, innov);
    mul(PHt, Si, K, n, m, m, 0);
    for (a = 0; a < n; ++a)
        for (c = 0; c < m; ++c)
            x[a] += K[a * m + c] * loc[c];
    mul(K, H, IKH, n, m, n, 0);
    for (a = 0; a < n * n; ++a)
        IKH[a] = (a % (n + 1) == 0 ? 1.0 : 0.0) - IKH[a];
    mul(IKH, P, P, n, n, n, 0);
    mul(P, IKH, P, n, n, n, 1);
    mul(K, R, KR, n, m, m, 0);
    mul(KR, K, KR, n, m, n, 1);
    for (a = 0; a < n * n; ++a)
        P[a] += KR[a];
    symmetrise(P, n);
    return 0;
}

static int ukf_update(const kf_state *s, const double *z, double *x, double *P, kf_innovation *innov)
{
    uxb_ut_weights u = uxb_ut_weights_for(s->dim);
    double X[MAX_POINTS * D], Z[MAX_POINTS * UX_JOINT_MAX_OBS], zbar[UX_JOINT_MAX_OBS], loc[UX_JOINT_MAX_OBS];
    double scale[UX_JOINT_MAX_OBS], R[D * D], S[D * D], Si[D * D], C[D * D], K[D * D], KS[D * D];
    unsigned p, a, c, n = s->dim, m = s->dim_obs, points = sigma_points(x, P, n, u.c, X);
    for (p = 0; p < points; ++p)
        obs(s, X + p * n, Z + p * m, NULL);
    obs(s, x, loc, scale);
    ut_mean(&u, Z, points, m, zbar);
    ut_cov(&u, Z, zbar, m, Z, zbar, m, points, S);
    obs_cov(s, scale, R);
    for (a = 0; a < m * m; ++a)
        S[a] += R[a];
    if (!finite_all(z, m))
        return 1;
    if (invert(S, Si, m))
        return singular(innov);
    for (c = 0; c < m; ++c)
        loc[c] = z[c] - zbar[c]; /* the innovation */
    if (innov != NULL)
        innovation_of(loc, S, Si, m, innov);
    ut_cov(&u, X, x, n, Z, zbar, m, points, C);
    mul(C, Si, K, n, m, m, 0);
    for (a = 0; a < n; ++a)
        for (c = 0; c < m; ++c)
            x[a] += K[a * m + c] * loc[c];
    mul(K, S, KS, n, m, m, 0);
    mul(KS, K, KS, n, m, n, 1);
    for (a = 0; a < n * n; ++a)
        P[a] -= KS[a];
    symmetrise(P, n);
    return 0;
}

static ux_status setup(kf_state *s, const uxb_joint_kf_config *cfg, double *x, double *P)
{
    ux_law process[UX_JOINT_MAX_NOISES];
    const ux_law *prior;
    unsigned c;

    memset(s, 0, sizeof *s);
    if (cfg->model == NULL || cfg->model->n_params > UX_MODEL_MAX_PARAMS || cfg->model->dim < 1 ||
        cfg->model->dim > UX_MAX_DIM || cfg->model->code->dim_noise < 1 ||
        cfg->model->code->dim_noise > UX_JOINT_MAX_NOISES || cfg->model->code->dim_obs < 1 ||
        cfg->model->code->dim_obs > UX_JOINT_MAX_OBS || !cfg->model->code->additive_noise ||
        (unsigned)cfg->method > UXB_JKF_UKF)
        return UX_ERR_ARG;
    s->model = cfg->model;
    s->dim = cfg->model->dim;
    s->dim_noise = cfg->model->code->dim_noise;
    s->dim_obs = cfg->model->code->dim_obs;
    if (ux_joint_model_params(s->model, cfg->params, s->params) != UX_OK)
        return UX_ERR_DOMAIN;
    s->model->code->noises(s->params, process);
    prior = cfg->prior != NULL ? cfg->prior : s->model->prior;
    memset(P, 0, s->dim * s->dim * sizeof(double));
    for (c = 0; c < s->dim; ++c)
        if (uxb_law_moments(&prior[c], &x[c], &P[c * s->dim + c]) != 0)
            return UX_ERR_ARG;
    for (c = 0; c < s->dim_noise; ++c) {
        double var;
        if (uxb_law_moments(&process[c], &s->w_mean[c], &var) != 0)
            return UX_ERR_ARG;
        s->w_sd[c] = sqrt(var);
    }
    s->e_var = uxb_family_var(s->model->code->family);
    return s->e_var < 0 ? UX_ERR_ARG : UX_OK;
}

ux_status uxb_joint_kf_run(const uxb_joint_kf_config *cfg, const uint32_t *k, const double *u, const double *z,
                           size_t T, const uxb_joint_kf_output *out)
{
    kf_state s;
    double x[D], P[D * D];
    size_t t;
    ux_status st;

    if (cfg == NULL || out == NULL || k == NULL || u == NULL || z == NULL)
        return UX_ERR_ARG;
    st = setup(&s, cfg, x, P);
    if (st != UX_OK)
        return st;
    for (t = 0; t < T; ++t) {
        int skipped;
        kf_innovation innov = {0, NAN}, *wanted = out->log_evidence != NULL || out->nis != NULL ? &innov : NULL;
        unsigned n = s.dim;
        ux_joint_model_context(s.model, s.params, k[t], (ux_real)u[t], &s.ctx);
        if (t > 0) {
            if (cfg->method == UXB_JKF_UKF)
                ukf_predict(&s, x, P);
            else
                ekf_predict(&s, x, P);
        }
        skipped = cfg->method == UXB_JKF_UKF ? ukf_update(&s, z + t * s.dim_obs, x, P, wanted)
                                             : ekf_update(&s, z + t * s.dim_obs, x, P, wanted);
        if (out->mean != NULL)
            memcpy(out->mean + t * n, x, n * sizeof(double));
        if (out->cov != NULL)
            memcpy(out->cov + t * n * n, P, n * n * sizeof(double));
        if (out->skipped != NULL)
            out->skipped[t] = (uint8_t)skipped;
        if (out->log_evidence != NULL) /* missing z: 0 */
            out->log_evidence[t] = innov.log_density;
        if (out->nis != NULL)
            out->nis[t] = innov.nis;
    }
    return UX_OK;
}
