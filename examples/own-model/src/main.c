/*
 * own-model — the ux-filter library with a system of the application's own (src/tea.c): a sensor is
 * simulated on the device from the model, the filter runs, one line per step goes to the board's UART:
 * the truth, the observation, the posterior mean and standard deviation in thousandths, then the bits of
 * the observation and of the posterior mean and variance (IEEE 754 doubles, in hex), which the host's
 * reference engine reproduces from model.py. A summary line ends the run.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "board.h"
#include "tea.h"
#include "ux/ux.h"

#define STEPS 30u
#define ETA 16u

static ux_filter filter;
static uint64_t workspace[UX_WORDS(UX_WORKSPACE_BYTES(ETA))];

static void put(const char *s) { board_write((const uint8_t *)s, strlen(s)); }

/* A signed decimal integer. */
static void put_int(long long m)
{
    char buf[24];
    int i = (int)sizeof buf - 1;
    unsigned long long u = m < 0 ? 0ull - (unsigned long long)m : (unsigned long long)m;
    buf[i] = '\0';
    do {
        buf[--i] = (char)('0' + u % 10u);
        u /= 10u;
    } while (u != 0u);
    if (m < 0)
        buf[--i] = '-';
    put(buf + i);
}

/* A value in thousandths (the firmware has no printf for floating point). */
static void put_milli(double v) { put_int(llround(v * 1000.0)); }

/* A double's 64 bits, as 16 hex digits: the exact value, for checking. */
static void put_bits(double v)
{
    char buf[17];
    uint64_t b;
    memcpy(&b, &v, sizeof b);
    for (int i = 15; i >= 0; --i, b >>= 4)
        buf[i] = "0123456789abcdef"[b & 15u];
    buf[16] = '\0';
    put(buf);
}

/* A standard normal draw (Box–Muller) from the core's seeded generator. */
static double normal(ux_rng *rng)
{
    double u1 = ux_rng_uniform(rng), u2 = ux_rng_uniform(rng);
    return sqrt(-2.0 * log(1.0 - u1)) * cos(6.283185307179586 * u2);
}

int main(void)
{
    const ux_model *tea = &tea_model;
    const double k = tea->defaults[0], room = tea->defaults[1], q = tea->defaults[2], r = tea->defaults[3],
                 s = tea->defaults[4];
    ux_filter_config cfg = {tea, NULL, ETA, UX_MODE_REFINED, UX_LIK_KERNEL, NULL};
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
    x = tea->prior.a + tea->prior.b * normal(&rng);
    for (uint32_t step = 0; step < STEPS; ++step) {
        if (step > 0) {
            x = x + k * (room - x) + q * normal(&rng);
            ux_filter_predict(&filter, step, 0.0);
        }
        double z = s * x / (s + x) + r * normal(&rng);
        ux_status status = ux_filter_update(&filter, &z, NULL, 1, 1);
        double mean = ux_filter_mean(&filter), var = ux_filter_var(&filter);
        sq += (mean - x) * (mean - x);
        put("k=");
        put_int(step);
        put(" x=");
        put_milli(x);
        put(" z=");
        put_milli(z);
        put(" mean=");
        put_milli(mean);
        put(" sd=");
        put_milli(sqrt(var));
        put(" status=");
        put_int(status); /* UX_OK 0, UX_FALLBACK, UX_REFOCUSED … (ux/facts.h) */
        put(" bits=");
        put_bits(z);
        put(",");
        put_bits(mean);
        put(",");
        put_bits(var);
        put("\n");
    }
    put("done rmse=");
    put_milli(sqrt(sq / STEPS));
    put("\n");
    for (;;) {
    }
}
