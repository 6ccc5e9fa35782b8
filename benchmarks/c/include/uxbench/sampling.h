/*
 * uxbench/sampling.h — the randomness and the weight handling the particle filters share (scalar pf.c and
 * joint_pf.c): one xoshiro256** stream per run (the core's ux_rng), normals by Marsaglia's polar method,
 * draws from the laws a filter can sample, log-weights to weights, systematic resampling.
 */
#ifndef UXBENCH_SAMPLING_H
#define UXBENCH_SAMPLING_H

#include <stddef.h>
#include <stdint.h>

#include "ux/law.h"
#include "ux/stats.h"

/* A run's generator, with the second normal of each polar-method pair kept for the next draw. */
typedef struct {
    ux_rng rng;
    double spare;
    int has_spare;
} uxb_gen;

void uxb_gen_seed(uxb_gen *g, uint64_t seed);

/* Standard normal (Marsaglia's polar method: no trigonometry, two normals per accepted pair). */
double uxb_std_normal(uxb_gen *g);

/* 1 for the laws uxb_sample_law draws from (Gaussian, Laplace, uniform, exponential, lognormal, point)
 * with valid parameters, else 0. */
int uxb_can_sample(const ux_law *law);

/* One draw from a law that uxb_can_sample accepted (parameters as in ux/law.h). */
double uxb_sample_law(const ux_law *law, uxb_gen *g);

/* Index of `name` among names[0 .. count), or count when it is NULL or not there: the tuned loops' lookup of
 * the system they were given by the table's name. */
int uxb_name_index(const char *name, const char *const *names, int count);

/*
 * Log-weights to normalised weights in place; *log_evidence = log of the mean likelihood, the bootstrap
 * filter's (random) estimate of log p(z_t | z_0..t−1) (−∞ when every likelihood is zero). Returns 1 (and
 * equal weights) when no log-weight is finite, else 0. NaN log-weights end with weight 0.
 */
int uxb_normalise_log_weights(double *w, size_t n, double *log_evidence);

/*
 * Systematic resampling of n rows of `dim` reals: points (v + j)/n, v ~ U[0, 1), each mapped to the first
 * row whose cumulative weight exceeds it (numpy's searchsorted 'right'); the last row takes any rounding
 * shortfall of the cumulative sum. Rows are copied in ancestor order into `to`.
 */
void uxb_resample_systematic(const double *x, const double *w, size_t n, size_t dim, double *to, uxb_gen *g);

#endif /* UXBENCH_SAMPLING_H */
