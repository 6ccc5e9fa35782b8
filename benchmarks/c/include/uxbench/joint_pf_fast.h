/*
 * uxbench/joint_pf_fast.h — the joint bootstrap particle filter of uxbench/joint_pf.h as a tuned loop per
 * system, the baseline at its fastest (as uxbench/pf_fast.h is for the scalar systems): the model inlined,
 * xoshiro256** and ziggurat normals inlined (uxbench/fast_random.h), systematic resampling fused with
 * propagation and weighing, Gaussian log-weights without constant terms and one exp per particle (and
 * reentry's two for its drag), unnormalised weights carried to the next resampling, the moments in one pass.
 *
 * Systems: pendulum, cvrange, bearings and reentry (their Gaussian priors and WNA / random-walk / independent
 * noises written out);
 * any other model, or a prior that is not Gaussian, is UX_ERR_ARG. Same configuration, outputs and step
 * convention as uxb_joint_pf_run; its random stream differs, so the two agree in distribution only.
 */
#ifndef UXBENCH_JOINT_PF_FAST_H
#define UXBENCH_JOINT_PF_FAST_H

#include "uxbench/joint_pf.h"

/* Bytes of workspace a run with n particles of dimension dim needs. */
size_t uxb_joint_pf_fast_workspace_bytes(size_t n, unsigned dim);

/* 1 when uxb_joint_pf_fast_run has a tuned loop for this model, else 0. */
int uxb_joint_pf_fast_supports(const ux_joint_model *model);

/* As uxb_joint_pf_run, plus UX_ERR_ARG for a model uxb_joint_pf_fast_supports rejects or a non-Gaussian prior. */
ux_status uxb_joint_pf_fast_run(const uxb_joint_pf_config *cfg, const uint32_t *k, const double *u, const double *z,
                                size_t T, const uxb_joint_pf_output *out, ux_workspace ws);

#endif /* UXBENCH_JOINT_PF_FAST_H */
