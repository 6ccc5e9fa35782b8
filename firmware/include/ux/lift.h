/*
 * ux/lift.h — lifting plain functions of reals to uncertain values, and per-operation arithmetic.
 *
 * lift(f, v1..vk) evaluates f on every point of the outer product of the inputs' atoms (weights
 * multiplied left to right, the first input varying slowest), then TTR in that order, normalise.
 * Every use of an input inside f sees the same atom, so correlation inside f is exact.
 *
 * Dependencies: the same pointer passed twice is one input (f sees the same atom in both places:
 * `ux_mul(out, x, x)` is the exact law of X²). Two *different* inputs that share a source are refused
 * with UX_ERR_DEPENDENT: write one function of the independent sources and lift that instead.
 */
#ifndef UX_LIFT_H
#define UX_LIFT_H

#include "config.h"
#include "value.h"
#include "workspace.h"

/* A plain function of k reals; ctx is passed through untouched. */
typedef ux_real (*ux_fn)(const ux_real *args, const void *ctx);

/*
 * y = f(in[0], …, in[k−1]; ctx), 1 ≤ k ≤ UX_MAX_ARGS. eta = 0 means the largest eta of the inputs.
 * A non-finite f value gives UX_ERR_DOMAIN. `out` may be one of the inputs. The result's sources are
 * the union of the inputs' sources.
 * Workspace: UX_LIFT_WORKSPACE_BYTES(product of the distinct inputs' counts).
 */
ux_status ux_lift(ux_value *out, ux_fn f, const void *ctx, const ux_value *const *in, unsigned k, unsigned eta,
                  ux_workspace *ws);

/*
 * The outer product alone, without reduction: points (x, w) in evaluation order (first input varying
 * slowest), zero weights dropped, *count set. Used by the filter's refined prediction, which keeps all
 * points. Same dependency rule and errors as ux_lift. x and w must have room for the product of the
 * distinct inputs' counts. Needs no workspace.
 */
ux_status ux_lift_points(ux_real *x, ux_real *w, size_t *count, ux_fn f, const void *ctx, const ux_value *const *in,
                         unsigned k);

/*
 * ux_lift and ux_lift_points for an f whose last argument enters additively, f(…, v) = f(…, 0) + v bit for
 * bit (true whenever v is added last: `… + a[k−1]`; ux_model_code.additive_noise declares it of a
 * transition), the last argument an input of its own that no other argument uses (else UX_ERR_ARG): f is
 * evaluated once per row of the other inputs' atoms, and each point is that value plus an atom of the last
 * input — the same points, weights and order as ux_lift / ux_lift_points, so the same result, at the cost
 * of additions for all but one point per row.
 */
ux_status ux_lift_additive(ux_value *out, ux_fn f, const void *ctx, const ux_value *const *in, unsigned k, unsigned eta,
                           ux_workspace *ws);
ux_status ux_lift_points_additive(ux_real *x, ux_real *w, size_t *count, ux_fn f, const void *ctx,
                                  const ux_value *const *in, unsigned k);

/* ux_lift for an f whose last argument multiplies last, f(…, v) = f(…, 1)·v bit for bit (a multiplicative
 * noise: SV's observation ε·exp(x/2)), with the same conditions and the same result as ux_lift_additive. */
ux_status ux_lift_multiplicative(ux_value *out, ux_fn f, const void *ctx, const ux_value *const *in, unsigned k,
                                 unsigned eta, ux_workspace *ws);

/* Per-operation arithmetic: the k = 1 and k = 2 lifts of the obvious functions, eta = 0 rule.
 * ux_mul(out, x, x) is the exact law of X²; ux_mul(out, x, y) with y computed from x is refused. */
ux_status ux_add(ux_value *out, const ux_value *a, const ux_value *b, ux_workspace *ws);
ux_status ux_sub(ux_value *out, const ux_value *a, const ux_value *b, ux_workspace *ws);
ux_status ux_mul(ux_value *out, const ux_value *a, const ux_value *b, ux_workspace *ws);
ux_status ux_div(ux_value *out, const ux_value *a, const ux_value *b, ux_workspace *ws);
ux_status ux_pow(ux_value *out, const ux_value *a, const ux_value *b, ux_workspace *ws);
ux_status ux_exp(ux_value *out, const ux_value *a, ux_workspace *ws);
ux_status ux_log(ux_value *out, const ux_value *a, ux_workspace *ws);
ux_status ux_sin(ux_value *out, const ux_value *a, ux_workspace *ws);
ux_status ux_cos(ux_value *out, const ux_value *a, ux_workspace *ws);
ux_status ux_sqrt(ux_value *out, const ux_value *a, ux_workspace *ws);

#endif /* UX_LIFT_H */
