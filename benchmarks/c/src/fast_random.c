/* The ziggurat's tables and slow path (uxbench/fast_random.h). */
#include <pthread.h>

#include "uxbench/fast_random.h"

#define ZIG_R 3.6541528853610088
#define ZIG_V 4.92867323399e-3

double uxb_zig_x[257], uxb_zig_f[257];
static pthread_once_t zig_once = PTHREAD_ONCE_INIT;

static void zig_build(void)
{
    int i;
    uxb_zig_x[0] = ZIG_V / exp(-0.5 * ZIG_R * ZIG_R);
    uxb_zig_x[1] = ZIG_R;
    for (i = 2; i < 256; ++i) {
        double y = ZIG_V / uxb_zig_x[i - 1] + exp(-0.5 * uxb_zig_x[i - 1] * uxb_zig_x[i - 1]);
        uxb_zig_x[i] = y < 1.0 ? sqrt(-2.0 * log(y)) : 0.0;
    }
    uxb_zig_x[256] = 0.0;
    for (i = 0; i <= 256; ++i)
        uxb_zig_f[i] = exp(-0.5 * uxb_zig_x[i] * uxb_zig_x[i]);
}

void uxb_zig_init(void) { pthread_once(&zig_once, zig_build); }

static double open_uniform(ux_rng *r) { return ((double)(uxb_fast_next(r) >> 11) + 0.5) * 0x1p-53; } /* (0, 1) */

double uxb_zig_slow(ux_rng *r, unsigned i, double u, double x)
{
    for (;;) {
        uint64_t b;
        if (i == 0) { /* the tail beyond R (Marsaglia 1964) */
            double a, e;
            do {
                a = -log(open_uniform(r)) / ZIG_R;
                e = -log(open_uniform(r));
            } while (e + e < a * a);
            return u < 0 ? -(ZIG_R + a) : ZIG_R + a;
        }
        if (uxb_zig_f[i + 1] + (uxb_zig_f[i] - uxb_zig_f[i + 1]) * uxb_fast_uniform(r) < exp(-0.5 * x * x))
            return x;
        b = uxb_fast_next(r);
        i = (unsigned)(b & 0xffu);
        u = (double)(b >> 11) * 0x1p-52 - 1.0;
        x = u * uxb_zig_x[i];
        if (fabs(x) < uxb_zig_x[i + 1])
            return x;
    }
}
