/*
 * uxbench/moments.h — what the Kalman-type baselines (kf.c, joint_kf.c) read from the model's laws: their
 * first two moments, the kernel family's variance, the central-difference step and the unscented transform's weights (uxbench/kf.h says
 * why the step is set by the spread, not the magnitude).
 */
#ifndef UXBENCH_MOMENTS_H
#define UXBENCH_MOMENTS_H

#include "ux/law.h"

/* Mean and variance of a law; 0 when they are finite, −1 when the law has none or is invalid. */
int uxb_law_moments(const ux_law *law, double *mean, double *var);

/* Variance of the standard member of a kernel family (mean 0): ux_std_logpdf's Gaussian, Laplace of
 * scale 1, Uniform on [−½, ½]; −1 for other kinds. */
double uxb_family_var(ux_law_kind family);

/* The central-difference step for a variable at v with standard deviation sd:
 * max(UXB_KF_DIFF_REL · sd, UXB_KF_DIFF_FLOOR · max(|v|, 1)). */
double uxb_diff_step(double v, double sd);

/* The scaled unscented transform's weights for n dimensions (uxbench/kf.h: α, β, κ = 3 − n). */
typedef struct {
    double wm0, wc0, wi, c; /* weights and the spread √(n + λ) */
} uxb_ut_weights;

uxb_ut_weights uxb_ut_weights_for(unsigned n);

#endif /* UXBENCH_MOMENTS_H */
