/* Per-operation arithmetic: one- and two-input lifts of the elementary functions. */
#include "internal.h"
#include "ux/lift.h"

static ux_real f_add(const ux_real *a, const void *c)
{
    (void)c;
    return a[0] + a[1];
}
static ux_real f_sub(const ux_real *a, const void *c)
{
    (void)c;
    return a[0] - a[1];
}
static ux_real f_mul(const ux_real *a, const void *c)
{
    (void)c;
    return a[0] * a[1];
}
static ux_real f_div(const ux_real *a, const void *c)
{
    (void)c;
    return a[0] / a[1];
}
static ux_real f_pow(const ux_real *a, const void *c)
{
    (void)c;
    return UX_POW(a[0], a[1]);
}
static ux_real f_exp(const ux_real *a, const void *c)
{
    (void)c;
    return UX_EXP(a[0]);
}
static ux_real f_log(const ux_real *a, const void *c)
{
    (void)c;
    return UX_LOG(a[0]);
}
static ux_real f_sin(const ux_real *a, const void *c)
{
    (void)c;
    return UX_SIN(a[0]);
}
static ux_real f_cos(const ux_real *a, const void *c)
{
    (void)c;
    return UX_COS(a[0]);
}
static ux_real f_sqrt(const ux_real *a, const void *c)
{
    (void)c;
    return UX_SQRT(a[0]);
}

static ux_status binary(ux_value *out, ux_fn f, const ux_value *a, const ux_value *b, ux_workspace *ws)
{
    const ux_value *in[2];
    in[0] = a;
    in[1] = b;
    return ux_lift(out, f, NULL, in, 2, 0, ws);
}

static ux_status unary(ux_value *out, ux_fn f, const ux_value *a, ux_workspace *ws)
{
    const ux_value *in[1];
    in[0] = a;
    return ux_lift(out, f, NULL, in, 1, 0, ws);
}

ux_status ux_add(ux_value *o, const ux_value *a, const ux_value *b, ux_workspace *ws)
{
    return binary(o, f_add, a, b, ws);
}
ux_status ux_sub(ux_value *o, const ux_value *a, const ux_value *b, ux_workspace *ws)
{
    return binary(o, f_sub, a, b, ws);
}
ux_status ux_mul(ux_value *o, const ux_value *a, const ux_value *b, ux_workspace *ws)
{
    return binary(o, f_mul, a, b, ws);
}
ux_status ux_div(ux_value *o, const ux_value *a, const ux_value *b, ux_workspace *ws)
{
    return binary(o, f_div, a, b, ws);
}
ux_status ux_pow(ux_value *o, const ux_value *a, const ux_value *b, ux_workspace *ws)
{
    return binary(o, f_pow, a, b, ws);
}
ux_status ux_exp(ux_value *o, const ux_value *a, ux_workspace *ws) { return unary(o, f_exp, a, ws); }
ux_status ux_log(ux_value *o, const ux_value *a, ux_workspace *ws) { return unary(o, f_log, a, ws); }
ux_status ux_sin(ux_value *o, const ux_value *a, ux_workspace *ws) { return unary(o, f_sin, a, ws); }
ux_status ux_cos(ux_value *o, const ux_value *a, ux_workspace *ws) { return unary(o, f_cos, a, ws); }
ux_status ux_sqrt(ux_value *o, const ux_value *a, ux_workspace *ws) { return unary(o, f_sqrt, a, ws); }
