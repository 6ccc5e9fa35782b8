/*
 * ux/joint_bayes.h — BayesLaplace over joint values (docs/semantics.md, "Joint BayesLaplace"): weight
 * prior atoms in R^d by the likelihood of a vector observation, then the joint reduction.
 *
 * Kernel form: per observation component c the model gives loc_c(x) and scale_c(x) of an outer noise
 * family with a known standard density, the components independent given x:
 *   log p(z | x_i) = Σ_c [g((z_c − loc_c(x_i)) / scale_c(x_i)) − log scale_c(x_i)]   (exact).
 * Evidence is J weighted points z_k ∈ R^{dim_obs} (ω_k) standing for m observations:
 *   ℓ_i = m Σ_k ω_k log p(z_k | x_i); posterior weights w_i·exp(ℓ_i − max_j ℓ_j).
 */
#ifndef UX_JOINT_BAYES_H
#define UX_JOINT_BAYES_H

#include "config.h"
#include "joint.h"
#include "joint_model.h"
#include "law.h"
#include "workspace.h"

typedef struct {
    const void *ctx; /* passed to kernel */
    ux_law_kind family; /* UX_LAW_GAUSSIAN, UX_LAW_LAPLACE or UX_LAW_UNIFORM */
    ux_joint_kernel_fn kernel;
    unsigned dim_obs; /* 1..UX_JOINT_MAX_OBS */
    /* When not NULL, a likelihood pass over the prior atoms also adds each atom's kernel location and its
     * family variance × scale² to these innovation-gate sums, afresh at each pass (the joint filter's test ratio
     * without a kernel pass of its own; docs/semantics.md, "Joint filter"). */
    struct ux_gate_sums *gate;
} ux_joint_observation;

typedef struct {
    const ux_real *z; /* count rows of dim_obs components, packed */
    const ux_real *omega; /* their weights (NULL: equal, 1/count) */
    unsigned count; /* J, 1..UX_MAX_ETA */
    unsigned m; /* observations the evidence stands for, ≥ 1 */
} ux_joint_evidence;

/* Workspace of ux_joint_bayes_laplace for `count` prior atoms of dimension dim, output size eta. */
#define UX_JOINT_BAYES_WORKSPACE_BYTES(count, dim, eta)                                                                \
    (UX_WS_REALS(count) + UX_JOINT_TTR_WORKSPACE_BYTES(count, dim, eta))

/*
 * The posterior of the prior atoms (px: count rows of dim, pw > 0; any order) at eta atoms into `out`
 * (sources as given). UX_OK, or UX_FALLBACK when every likelihood is zero or non-finite (then `out` is the
 * prior reduced), or an error: non-finite evidence, ω ≤ 0 or m = 0 (UX_ERR_DOMAIN), bad arguments
 * (UX_ERR_ARG), too small a workspace (UX_ERR_WORKSPACE). The prior arrays are consumed (scratch). `out`
 * is written only on UX_OK or UX_FALLBACK. `log_evidence` (NULL: not wanted) receives
 * L + log Σ_i w_i·exp(ℓ_i − L) − log Σ_i w_i (−∞ on a fallback), as the scalar update's.
 */
ux_status ux_joint_bayes_laplace(ux_joint *out, const ux_joint_observation *obs, ux_real *px, ux_real *pw, size_t count,
                                 unsigned dim, const ux_joint_evidence *ev, unsigned eta, uint64_t sources,
                                 ux_workspace *ws, ux_real *log_evidence);

#endif /* UX_JOINT_BAYES_H */
