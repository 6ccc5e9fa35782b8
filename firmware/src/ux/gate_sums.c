/*
 * The innovation gate's sums over weighted predictive points, each with its predicted observation and that
 * observation's covariance (docs/semantics.md, "Cell filter" and "Joint filter"): the cells' and the joint
 * atom filter's one test ratio. Sums in index order, as uxemu/_linalg.py's GateSums. Every filter's evidence
 * tests (the gate, the test ratio and its consistency mean: ux_tests_*) are kept here too.
 */
#include "internal.h"
#include "ux/joint_model.h"

#include <string.h>

void ux_gate_add(ux_gate_sums *g, ux_real w, const ux_real *zh, const ux_real *S, unsigned mo)
{
    ux_real dv[UX_JOINT_MAX_OBS];
    unsigned a, b;
    if (g->n++ == 0)
        memcpy(g->z0, zh, mo * sizeof(ux_real));
    for (a = 0; a < mo; ++a)
        dv[a] = zh[a] - g->z0[a];
    g->W = g->W + w;
    for (a = 0; a < mo; ++a) {
        g->s[a] = g->s[a] + w * dv[a];
        for (b = 0; b < mo; ++b)
            g->M[a * mo + b] = g->M[a * mo + b] + w * (S[a * mo + b] + dv[a] * dv[b]);
    }
}

int ux_gate_innovation(const ux_gate_sums *g, const ux_real *z, unsigned mo, ux_real *nu, ux_real *S)
{
    ux_real mean[UX_JOINT_MAX_OBS] = {0};
    unsigned a, b;
    for (a = 0; a < mo; ++a)
        mean[a] = g->s[a] / g->W;
    for (a = 0; a < mo; ++a) {
        nu[a] = z[a] - (g->z0[a] + mean[a]);
        for (b = 0; b < mo; ++b)
            S[a * mo + b] = g->M[a * mo + b] / g->W - mean[a] * mean[b];
    }
    return ux_all_finite(S, (size_t)mo * mo) && ux_all_finite(nu, mo);
}

ux_real ux_gate_ratio(const ux_gate_sums *g, const ux_real *z, unsigned mo)
{
    ux_real nu[UX_JOINT_MAX_OBS] = {0}, S[UX_JOINT_MAX_OBS * UX_JOINT_MAX_OBS] = {0},
            L[UX_JOINT_MAX_OBS * UX_JOINT_MAX_OBS], y[UX_JOINT_MAX_OBS], ratio = 0;
    unsigned a;
    if (!ux_gate_innovation(g, z, mo, nu, S) || !ux_cholesky(S, mo, L))
        return (ux_real)NAN;
    ux_forward(L, mo, nu, y);
    for (a = 0; a < mo; ++a)
        ratio = ratio + y[a] * y[a];
    return ux_finite(ratio) ? ratio : (ux_real)NAN;
}

void ux_tests_init(ux_evidence_tests *t)
{
    t->gate = (ux_real)UX_OUTLIER_GATE;
    t->ratio = (ux_real)NAN;
    t->nis = UX_R(1.0); /* a calibrated predictive's mean */
    t->nis_limit = (ux_real)UX_NIS_LIMIT;
    t->drop = 0;
}

ux_status ux_tests_set_gate(ux_evidence_tests *t, double gate, int drop)
{
    if (!(gate > 0))
        return UX_ERR_ARG;
    t->gate = (ux_real)gate;
    t->drop = (uint8_t)(drop != 0);
    return UX_OK;
}

ux_status ux_tests_set_consistency(ux_evidence_tests *t, double limit)
{
    if (!(limit > 0))
        return UX_ERR_ARG;
    t->nis_limit = (ux_real)limit;
    return UX_OK;
}

int ux_tests_outlier(ux_evidence_tests *t, ux_real ratio)
{
    t->ratio = ratio;
    return ratio > t->gate * t->gate;
}

int ux_tests_track(ux_evidence_tests *t, unsigned mo)
{
    if (t->ratio == t->ratio) {
        ux_real r = t->ratio / (ux_real)mo;
        r = r < (ux_real)UX_NIS_CAP ? r : (ux_real)UX_NIS_CAP;
        t->nis = t->nis + (ux_real)UX_NIS_WEIGHT * (r - t->nis);
    }
    return t->nis > t->nis_limit;
}
