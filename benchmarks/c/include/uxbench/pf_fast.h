/*
 * uxbench/pf_fast.h — the bootstrap particle filter of uxbench/pf.h written as a tuned loop per system, the
 * baseline at its fastest: the model inlined (no function pointers in the inner loop), xoshiro256** inlined,
 * normals by a 256-layer ziggurat, systematic resampling fused with propagation and weighing, log-weights
 * without constant terms and one exp per particle for the weights, unnormalised weights carried to the
 * next resampling. Inner noise (cubic's m) is sampled once per particle, not integrated: the weight is
 * then p(z | x, m), an unbiased estimate of p(z | x), which keeps the filter exact in the limit.
 *
 * Systems: sv, gss, cubic and lg (the scalar systems of the filtering benchmark); any other model is
 * UX_ERR_ARG. Same configuration, outputs and step convention as uxb_pf_run (step 0 draws from the prior
 * and weighs; later steps resample, propagate and weigh; a step's posterior is the weighted set; all
 * likelihoods zero or non-finite: equal weights on the finite positions, flagged). `inner_eta` is
 * ignored. The prior may be any law uxb_can_sample accepts. Deterministic for a seed; its random stream
 * differs from uxb_pf_run's, so the two agree in distribution, not draw for draw.
 */
#ifndef UXBENCH_PF_FAST_H
#define UXBENCH_PF_FAST_H

#include "uxbench/pf.h"

/* Bytes of workspace a run with n particles needs (four arrays of n reals). */
size_t uxb_pf_fast_workspace_bytes(size_t n);

/* 1 when uxb_pf_fast_run has a tuned loop for this model, else 0. */
int uxb_pf_fast_supports(const ux_model *model);

/* As uxb_pf_run (uxbench/pf.h), plus UX_ERR_ARG for a model uxb_pf_fast_supports rejects. */
ux_status uxb_pf_fast_run(const uxb_pf_config *cfg, const uint32_t *k, const double *u, const double *z, size_t T,
                          const uxb_pf_output *out, ux_workspace ws);

#endif /* UXBENCH_PF_FAST_H */
