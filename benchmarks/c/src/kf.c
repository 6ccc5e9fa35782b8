/*
 * Extended and unscented Kalman filters over the registered models (uxbench/kf.h): the baselines an
 * embedded engineer would pick first, compiled with the core's flags like the PF.
 */
#include <math.h>
#include <string.h>

#include "uxbench/kf.h"
#include "uxbench/moments.h"

/* What one run keeps: the model's context and the noises' first two moments. */
typedef struct {
    const ux_model *model;
    ux_model_ctx ctx;
    ux_real params[UX_MODEL_MAX_PARAMS];
    double w_mean, w_var; /* process noise */
    int has_inner;
    double m_mean, m_var; /* inner noise atom of the kernel form */
    double e_var; /* the outer family's standard noise (mean 0) */
} kf_state;

static double f(const kf_state *s, double x, double w)
{
    ux_real args[2];
    args[0] = (ux_real)x;
    args[1] = (ux_real)w;
    return (double)s->model->code->transition(args, &s->ctx);
}

static void obs(const kf_state *s, double x, double m, double *loc, double *scale)
{
    ux_real args[2], l, sc;
    args[0] = (ux_real)x;
    args[1] = (ux_real)m;
    s->model->code->kernel(args, &s->ctx, &l, &sc);
    *loc = (double)l;
    *scale = (double)sc;
}

static double obs_loc(const kf_state *s, double x, double m)
{
    double loc, scale;
    obs(s, x, m, &loc, &scale);
    return loc;
}

/* -- the unscented transform ---------------------------------------------------------------------- */
/* Σ Wᵐ y over 2n + 1 points (point 0 the centre). */
static double ut_mean(const uxb_ut_weights *u, const double *y, unsigned points)
{
    double sum = u->wm0 * y[0];
    unsigned i;
    for (i = 1; i < points; ++i)
        sum += u->wi * y[i];
    return sum;
}

/* Σ Wᶜ (a − ā)(b − b̄). */
static double ut_cov(const uxb_ut_weights *u, const double *a, double am, const double *b, double bm, unsigned points)
{
    double sum = u->wc0 * (a[0] - am) * (b[0] - bm);
    unsigned i;
    for (i = 1; i < points; ++i)
        sum += u->wi * (a[i] - am) * (b[i] - bm);
    return sum;
}

/* -- steps ------------------------------------------------------------------------------------------ */
static void ekf_predict(const kf_state *s, double *x, double *P)
{
    double hx = uxb_diff_step(*x, sqrt(*P)), hw = uxb_diff_step(s->w_mean, sqrt(s->w_var));
    double xp = *x + hx, xm = *x - hx, wp = s->w_mean + hw, wm = s->w_mean - hw;
    double F = (f(s, xp, s->w_mean) - f(s, xm, s->w_mean)) / (xp - xm);
    double G = (f(s, *x, wp) - f(s, *x, wm)) / (wp - wm);
    double mean = f(s, *x, s->w_mean);
    *P = F * F * *P + G * G * s->w_var;
    *x = mean;
}

static void ukf_predict(const kf_state *s, double *x, double *P)
{
    uxb_ut_weights u = uxb_ut_weights_for(2);
    double sx = u.c * sqrt(*P), sw = u.c * sqrt(s->w_var), y[5], mean;
    y[0] = f(s, *x, s->w_mean);
    y[1] = f(s, *x + sx, s->w_mean);
    y[2] = f(s, *x - sx, s->w_mean);
    y[3] = f(s, *x, s->w_mean + sw);
    y[4] = f(s, *x, s->w_mean - sw);
    mean = ut_mean(&u, y, 5);
    *P = ut_cov(&u, y, mean, y, mean, 5);
    *x = mean;
}

/* An update needs a finite observation and a positive, finite innovation variance. */
static int usable(double z, double S) { return isfinite(z) && S > 0 && isfinite(S); }

static int ekf_update(const kf_state *s, double z, double *x, double *P)
{
    double loc, scale, H, M = 0.0, R, S, K;
    double hx = uxb_diff_step(*x, sqrt(*P)), xp = *x + hx, xm = *x - hx;
    obs(s, *x, s->m_mean, &loc, &scale);
    H = (obs_loc(s, xp, s->m_mean) - obs_loc(s, xm, s->m_mean)) / (xp - xm);
    if (s->has_inner) {
        double hm = uxb_diff_step(s->m_mean, sqrt(s->m_var)), mp = s->m_mean + hm, mm = s->m_mean - hm;
        M = (obs_loc(s, *x, mp) - obs_loc(s, *x, mm)) / (mp - mm);
    }
    R = scale * scale * s->e_var + M * M * s->m_var;
    S = H * H * *P + R;
    if (!usable(z, S))
        return 1;
    K = *P * H / S;
    *x = *x + K * (z - loc);
    *P = *P * R / S;
    return 0;
}

/* log y² update; UX_ERR_ARG when loc is not 0 around x̂. Returns 1 when skipped, 0 when applied. */
static int ekf_logsq_update(const kf_state *s, double z, double *x, double *P, ux_status *st)
{
    double loc, scale, lp, sp, lm, sm, H, S, K, zeta;
    double hx = uxb_diff_step(*x, sqrt(*P)), xp = *x + hx, xm = *x - hx;
    obs(s, *x, 0.0, &loc, &scale);
    obs(s, xp, 0.0, &lp, &sp);
    obs(s, xm, 0.0, &lm, &sm);
    if (loc != 0.0 || lp != 0.0 || lm != 0.0) {
        *st = UX_ERR_ARG;
        return 1;
    }
    H = (2.0 * log(sp) - 2.0 * log(sm)) / (xp - xm);
    S = H * H * *P + UXB_LOGCHI2_VAR;
    zeta = 2.0 * log(fabs(z));
    if (!usable(zeta, S))
        return 1;
    K = *P * H / S;
    *x = *x + K * (zeta - (2.0 * log(scale) + UXB_LOGCHI2_MEAN));
    *P = *P * UXB_LOGCHI2_VAR / S;
    return 0;
}

/* Sigma point i of the update: state, inner noise, outer standard noise. */
static void point(double *X, double *M, double *E, unsigned i, double x, double m, double e)
{
    X[i] = x;
    M[i] = m;
    E[i] = e;
}

static int ukf_update(const kf_state *s, double z, double *x, double *P)
{
    enum { MAX_POINTS = 7 };
    unsigned n = s->has_inner ? 3u : 2u, points = 2u * n + 1u, i = 1;
    uxb_ut_weights u = uxb_ut_weights_for(n);
    double X[MAX_POINTS], M[MAX_POINTS], E[MAX_POINTS], Z[MAX_POINTS], sx, zbar, S, C, K;
    sx = u.c * sqrt(*P);
    point(X, M, E, 0, *x, s->m_mean, 0.0);
    point(X, M, E, i++, *x + sx, s->m_mean, 0.0);
    point(X, M, E, i++, *x - sx, s->m_mean, 0.0);
    if (s->has_inner) {
        double sm = u.c * sqrt(s->m_var);
        point(X, M, E, i++, *x, s->m_mean + sm, 0.0);
        point(X, M, E, i++, *x, s->m_mean - sm, 0.0);
    }
    point(X, M, E, i++, *x, s->m_mean, u.c * sqrt(s->e_var));
    point(X, M, E, i, *x, s->m_mean, -u.c * sqrt(s->e_var));
    for (i = 0; i < points; ++i) {
        double loc, scale;
        obs(s, X[i], M[i], &loc, &scale);
        Z[i] = loc + scale * E[i];
    }
    zbar = ut_mean(&u, Z, points);
    S = ut_cov(&u, Z, zbar, Z, zbar, points);
    C = ut_cov(&u, X, *x, Z, zbar, points);
    if (!usable(z, S))
        return 1;
    K = C / S;
    *x = *x + K * (z - zbar);
    *P = *P - K * C;
    if (*P < 0)
        *P = 0;
    return 0;
}

static ux_status setup(kf_state *s, const uxb_kf_config *cfg, double *x, double *P)
{
    ux_model_noises noises;
    ux_law prior;

    memset(s, 0, sizeof *s);
    memset(&noises, 0, sizeof noises);
    if (cfg->model == NULL || cfg->model->code->kernel == NULL || cfg->model->code->transition == NULL ||
        cfg->model->n_params > UX_MODEL_MAX_PARAMS || (unsigned)cfg->method > UXB_KF_EKF_LOGSQ)
        return UX_ERR_ARG;
    s->model = cfg->model;
    if (ux_model_params(s->model, cfg->params, s->params) != UX_OK)
        return UX_ERR_DOMAIN;
    s->ctx.params = s->params;
    s->model->code->noises(s->params, &noises);
    prior = cfg->prior != NULL ? *cfg->prior : s->model->prior;
    if (uxb_law_moments(&prior, x, P) != 0 || uxb_law_moments(&noises.process, &s->w_mean, &s->w_var) != 0)
        return UX_ERR_ARG;
    s->has_inner = noises.n_inner > 0;
    if (s->has_inner && uxb_law_moments(&noises.inner, &s->m_mean, &s->m_var) != 0)
        return UX_ERR_ARG;
    s->e_var = uxb_family_var(s->model->code->family);
    if (s->e_var < 0)
        return UX_ERR_ARG;
    if (cfg->method == UXB_KF_EKF_LOGSQ && (s->model->code->family != UX_LAW_GAUSSIAN || s->has_inner))
        return UX_ERR_ARG;
    return UX_OK;
}

ux_status uxb_kf_run(const uxb_kf_config *cfg, const uint32_t *k, const double *u, const double *z, size_t T,
                     const uxb_kf_output *out)
{
    kf_state s;
    double x, P;
    size_t t;
    ux_status st;

    if (cfg == NULL || out == NULL || k == NULL || u == NULL || z == NULL)
        return UX_ERR_ARG;
    st = setup(&s, cfg, &x, &P);
    if (st != UX_OK)
        return st;
    for (t = 0; t < T; ++t) {
        int skipped;
        ux_model_context(s.model, s.params, k[t], (ux_real)u[t], &s.ctx);
        if (t > 0) {
            if (cfg->method == UXB_KF_UKF)
                ukf_predict(&s, &x, &P);
            else
                ekf_predict(&s, &x, &P);
        }
        if (cfg->method == UXB_KF_UKF)
            skipped = ukf_update(&s, z[t], &x, &P);
        else if (cfg->method == UXB_KF_EKF)
            skipped = ekf_update(&s, z[t], &x, &P);
        else {
            skipped = ekf_logsq_update(&s, z[t], &x, &P, &st);
            if (st != UX_OK)
                return st;
        }
        if (out->mean != NULL)
            out->mean[t] = x;
        if (out->var != NULL)
            out->var[t] = P;
        if (out->skipped != NULL)
            out->skipped[t] = (uint8_t)skipped;
    }
    return UX_OK;
}
