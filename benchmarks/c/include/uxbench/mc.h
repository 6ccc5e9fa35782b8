/*
 * uxbench/mc.h — the native side of the model-propagation benchmark (host only, never flashed).
 *
 * A propagation problem is one plain C model function of k independent inputs with the laws of those
 * inputs. For one problem this gives
 *  - the ux propagation: each input law quantized at η atoms by the core, the function lifted over
 *    them (ux_quantize + ux_lift, or ux_lift_additive / ux_lift_multiplicative for a function that adds
 *    or multiplies its last input last: exactly what an application would call);
 *  - plain Monte Carlo on the same function: inputs drawn with xoshiro256**, the function evaluated
 *    once per draw;
 *  - repeat loops of both, so that one timer around one foreign call measures the method, not the call;
 *  - W1 of a step cdf (weighted atoms or a sample) against a tabulated continuous law, and W1 of the
 *    growing prefixes of one Monte Carlo stream (what the iso-quality search reads).
 *
 * Nothing here allocates: every buffer belongs to the caller.
 */
#ifndef UXBENCH_MC_H
#define UXBENCH_MC_H

#include <stddef.h>
#include <stdint.h>

#include "ux/law.h"
#include "ux/model.h"
#include "ux/value.h"
#include "ux/workspace.h"

/* The six model functions the paper dissects; the argument order is the lift's input order. */
typedef enum {
    UXB_PROP_SV_TRANSITION = 0, /* stochastic volatility transition(x, w) */
    UXB_PROP_SV_OBSERVATION = 1, /* stochastic volatility sampler(x, ε) = ε·exp(x/2) */
    UXB_PROP_GSS_TRANSITION = 2, /* Gordon–Salmond–Smith transition(x, υ) at step ctx.k */
    UXB_PROP_GSS_OBSERVATION = 3, /* Gordon–Salmond–Smith sampler(x, ν) = x²/20 + ν */
    UXB_PROP_CUBIC_TRANSITION = 4, /* cubic mean-reverting transition(x, υ) */
    /* (x, m, h) ↦ exp(−x)(1 + m) + h: the cubic system's kernel location with an additive noise h
     * instead of the heteroscedastic one, as the paper's exponential observation benchmark has it. */
    UXB_PROP_BL_OBSERVATION = 5
} uxb_prop_model;

#define UXB_PROP_MODELS 6

typedef struct {
    unsigned model; /* a uxb_prop_model */
    ux_real params[UX_MODEL_MAX_PARAMS]; /* the system's parameters, in its table order */
    uint32_t k; /* step index (the GSS transition's drive 8cos(1.2k)) */
    ux_law in[UX_MAX_ARGS]; /* the laws of the inputs: Gaussian, Laplace or uniform */
} uxb_prop;

/* Number of inputs of the problem's function (0 for an unknown model). */
unsigned uxb_prop_arity(const uxb_prop *p);

/* Workspace bytes of one ux propagation at eta atoms per input (the lift of η^k points). */
size_t uxb_prop_ux_workspace_bytes(const uxb_prop *p, unsigned eta);

/* How a problem's function takes its last input, which decides the lift uxb_prop_ux calls. */
typedef enum {
    UXB_LIFT_EVERY_POINT = 0, /* ux_lift */
    UXB_LIFT_ADDITIVE = 1, /* f(…, v) = f(…, 0) + v: ux_lift_additive */
    UXB_LIFT_MULTIPLICATIVE = 2 /* f(…, v) = f(…, 1)·v: ux_lift_multiplicative */
} uxb_lift_form;

/*
 * The ux propagation: quantize every input law at eta atoms (fresh sources), lift the function, reduce
 * to eta atoms. A function that adds its last input last (the three transitions, which declare additive
 * noise, the GSS observation x²/20 + ν and the exponential observation's + h) is lifted with
 * ux_lift_additive, SV's observation ε·exp(x/2) with ux_lift_multiplicative: once per row of the other
 * inputs, the same result bit for bit. UX_ERR_ARG for an unknown model or a bad eta, the core's errors
 * otherwise.
 */
ux_status uxb_prop_ux(const uxb_prop *p, unsigned eta, ux_value *out, ux_workspace ws);

/* The lift uxb_prop_ux uses for the problem's function. */
uxb_lift_form uxb_prop_lift_form(const uxb_prop *p);

/* uxb_prop_ux with the function evaluated at every point (ux_lift): the check of the additive lift. */
ux_status uxb_prop_ux_every_point(const uxb_prop *p, unsigned eta, ux_value *out, ux_workspace ws);

/* `reps` ux propagations back to back (the last result is left in out). */
ux_status uxb_prop_ux_repeat(const uxb_prop *p, unsigned eta, unsigned reps, ux_value *out, ux_workspace ws);

/*
 * The exponential observation's chained alternative to its three-input lift: g = exp(−x)(1 + m) lifted
 * from (x, m) and reduced to eta atoms, then g + h lifted additively and reduced: 2η² points instead of
 * η³, at the price of one more reduction. UX_ERR_ARG for any other model (none has such a chain).
 */
ux_status uxb_prop_ux_chained(const uxb_prop *p, unsigned eta, ux_value *out, ux_workspace ws);

/* `reps` chained propagations back to back. */
ux_status uxb_prop_ux_chained_repeat(const uxb_prop *p, unsigned eta, unsigned reps, ux_value *out, ux_workspace ws);

/*
 * n Monte Carlo outputs of the stream seeded by `seed`: draw i takes the inputs in argument order, one
 * after the other, from one xoshiro256** generator, so the first n outputs of a stream never depend on
 * how many are asked for. Gaussian inputs use Marsaglia's polar method (both numbers of a pair, kept
 * per input), Laplace and uniform inputs the inverse cdf. UX_ERR_ARG for an unknown model or an input
 * kind other than those three, UX_ERR_DOMAIN for parameters out of their domain.
 */
ux_status uxb_prop_mc(const uxb_prop *p, uint64_t seed, ux_real *out, size_t n);

/*
 * A continuous law tabulated on a grid y[0] < … < y[n−1], n ≥ 2: the cdf F, the density f = F′ and the
 * integrated cdf A(y) = ∫_{−∞}^{y} F. Between nodes A is the cubic Hermite interpolant with slopes F;
 * beyond them the law holds no mass (A = 0 on the left, A(y) = A[n−1] + y − y[n−1] on the right), so
 * the table's mean is y[n−1] − A[n−1].
 */
typedef struct {
    size_t n;
    const double *y;
    const double *F;
    const double *f;
    const double *A;
} uxb_law_table;

/*
 * W1 between a step cdf and the tabulated law: positions x[0] ≤ … ≤ x[m−1] with cumulative weights
 * c[i] = P(X ≤ x[i]) (c[m−1] = 1), or equal weights c[i] = (i + 1)/m when c is NULL. Exact for the
 * table's interpolant: on each step ∫|c − F| = c(2y* − a − b) + A(a) + A(b) − 2A(y*), y* the point of
 * [a, b] nearest to F⁻¹(c). Returns NaN for m = 0.
 */
double uxb_w1_steps(const double *x, const double *c, size_t m, const uxb_law_table *t);

/* Workspace bytes of uxb_prop_mc_w1_curve for the largest count and the largest step between counts. */
size_t uxb_prop_curve_workspace_bytes(size_t largest_count, size_t largest_step);

/*
 * W1 against the table of the first counts[i] outputs of the stream `seed` (uxb_prop_mc), for the
 * increasing counts[0] < counts[1] < …: each new block of draws is sorted and merged into the sorted
 * prefix, so the stream is drawn once. Stops after the first count whose W1 is ≤ stop (pass a negative
 * stop to evaluate every count). Writes w1[i] for the counts evaluated and returns how many they are.
 * Returns 0 on a bad argument (counts not increasing, workspace too small) or a failed draw.
 */
size_t uxb_prop_mc_w1_curve(const uxb_prop *p, uint64_t seed, const uxb_law_table *t, const size_t *counts,
                            size_t n_counts, double stop, double *w1, ux_workspace ws);

#endif /* UXBENCH_MC_H */
