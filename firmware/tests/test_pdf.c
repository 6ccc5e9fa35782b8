/* The TTR-binned density: split points, total mass, mean, edge conventions. */
#include "harness.h"

static ux_sources src;

/* Total mass and mean of the reconstructed density, bin by bin. */
static void density_moments(const ux_value *v, double *mass, double *mean)
{
    ux_real split[UX_MAX_ETA];
    uint32_t i, n = v->count;
    *mass = 0;
    *mean = 0;
    ux_split_points(v->x, v->w, n, split);
    for (i = 0; i < n; ++i) {
        double l = i == 0 ? (double)v->x[0] - ((double)split[0] - (double)v->x[0]) : (double)split[i - 1];
        double r = i + 1 == n ? (double)v->x[n - 1] + ((double)v->x[n - 1] - (double)split[n - 2]) : (double)split[i];
        double x = (double)v->x[i];
        double hl = (double)ux_pdf(v, (ux_real)((l + x) / 2)), hr = (double)ux_pdf(v, (ux_real)((x + r) / 2));
        *mass += hl * (x - l) + hr * (r - x);
        *mean += hl * (x * x - l * l) / 2 + hr * (r * r - x * x) / 2;
    }
}

static void test_split_points_between_atoms(void)
{
    ux_value v;
    ux_real split[UX_MAX_ETA];
    unsigned eta, i;
    ux_sources_init(&src);
    for (eta = 2; eta <= 64; eta *= 2) {
        CHECK(ux_laplace(&v, 1, 2, eta, &src) == UX_OK);
        CHECK(ux_split_points(v.x, v.w, v.count, split) == UX_OK);
        for (i = 0; i + 1 < v.count; ++i)
            CHECK(v.x[i] < split[i] && split[i] < v.x[i + 1]);
    }
    /* The root split of a symmetric law is its mean. */
    CHECK(ux_gaussian(&v, 0, 1, 16, &src) == UX_OK);
    CHECK(ux_split_points(v.x, v.w, v.count, split) == UX_OK);
    CHECK_NEAR(split[7], 0, TOL(1e-15, 1e-6));
}

static void test_density_keeps_mass_and_mean(void)
{
    ux_value v;
    double mass, mean;
    unsigned eta;
    ux_sources_init(&src);
    for (eta = 2; eta <= 64; eta *= 2) {
        CHECK(ux_lognormal(&v, 0, 0.5, eta, &src) == UX_OK);
        density_moments(&v, &mass, &mean);
        CHECK_NEAR(mass, 1, TOL(1e-12, 1e-4));
        CHECK_NEAR(mean, ux_mean(&v), TOL(1e-12, 1e-4));
    }
}

static void test_density_values_and_edges(void)
{
    ux_value v, p;
    ux_real split[UX_MAX_ETA];
    ux_sources_init(&src);
    CHECK(ux_gaussian(&v, 0, 1, 64, &src) == UX_OK);
    CHECK(fabs((double)ux_pdf(&v, 0) - 0.3989422804014327) < 0.01);
    CHECK(ux_pdf(&v, -100) == 0 && ux_pdf(&v, 100) == 0);
    CHECK(ux_point(&p, 1, 8, &src) == UX_OK);
    CHECK(ux_pdf(&p, 1) == 0); /* one atom: no density */
    /* At an atom the density is that of its right bin. */
    CHECK(ux_split_points(v.x, v.w, v.count, split) == UX_OK);
    CHECK(ux_pdf(&v, v.x[10]) == ux_pdf(&v, (ux_real)(((double)v.x[10] + (double)split[10]) / 2)));
}

void suite_pdf(void)
{
    RUN(test_split_points_between_atoms);
    RUN(test_density_keeps_mass_and_mean);
    RUN(test_density_values_and_edges);
}
