/*
 * sensor-loop — the ux-filter library inside an application: a sensor is read, the filter runs, the
 * estimate is used. Here the "sensor" is simulated on the device (Gordon–Salmond–Smith system) so the
 * example runs anywhere; each step prints the truth, the observation, and the posterior mean and
 * standard deviation in thousandths, then a summary line with the RMSE.
 */
#include <math.h>
#include <stdint.h>

#include "board.h"
#include "ux/ux.h"

#define STEPS 40u
#define ETA 16u

static ux_filter filter;
static uint64_t workspace[UX_WORDS(UX_WORKSPACE_BYTES(ETA))];

static void put(const char *s)
{
    const char *e = s;
    while (*e)
        e++;
    board_write((const uint8_t *)s, (size_t)(e - s));
}

/* A value in thousandths, as a signed decimal (the firmware has no printf for floating point). */
static void put_milli(double v)
{
    char buf[24];
    int i = (int)sizeof buf - 1;
    long long m = llround(v * 1000.0);
    int negative = m < 0;
    unsigned long long u = negative ? (unsigned long long)(-m) : (unsigned long long)m;
    buf[i] = '\0';
    do {
        buf[--i] = (char)('0' + u % 10u);
        u /= 10u;
    } while (u != 0u);
    if (negative)
        buf[--i] = '-';
    put(buf + i);
}

/* A standard normal draw (Box–Muller) from the core's seeded generator. */
static double normal(ux_rng *rng)
{
    double u1 = ux_rng_uniform(rng), u2 = ux_rng_uniform(rng);
    return sqrt(-2.0 * log(1.0 - u1)) * cos(6.283185307179586 * u2);
}

int main(void)
{
    const ux_model *gss = ux_model_named("gss");
    const double sigma_v = gss->defaults[0], sigma_n = gss->defaults[1];
    ux_filter_config cfg = {gss, NULL, ETA, UX_MODE_REFINED, UX_LIK_KERNEL, NULL};
    ux_workspace ws = {workspace, sizeof workspace};
    ux_rng rng;
    double x, sq = 0.0;

    board_init();
    if (ux_filter_init(&filter, &cfg, ws) != UX_OK) {
        put("filter configuration refused\n");
        for (;;) {
        }
    }
    ux_rng_seed(&rng, 2026u);
    x = gss->prior.b * normal(&rng);
    for (uint32_t k = 0; k < STEPS; ++k) {
        if (k > 0) {
            x = x / 2.0 + 25.0 * x / (1.0 + x * x) + 8.0 * cos(1.2 * (double)k) + sigma_v * normal(&rng);
            ux_filter_predict(&filter, k, 0.0);
        }
        double z = x * x / 20.0 + sigma_n * normal(&rng);
        ux_filter_update(&filter, &z, NULL, 1, 1);
        double mean = ux_filter_mean(&filter), sd = sqrt(ux_filter_var(&filter));
        sq += (mean - x) * (mean - x);
        put("k=");
        put_milli((double)k / 1000.0);
        put(" x=");
        put_milli(x);
        put(" z=");
        put_milli(z);
        put(" mean=");
        put_milli(mean);
        put(" sd=");
        put_milli(sd);
        put("\n");
    }
    put("done rmse=");
    put_milli(sqrt(sq / STEPS));
    put("\n");
    for (;;) {
    }
}
