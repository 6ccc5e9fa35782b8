/*
 * abi.c — what the Python binding (emulator/uxemu/native.py) needs to know about this build's memory
 * layout, so it never has to guess: the size of every struct it mirrors with ctypes, the offset and size
 * of each of their fields, and the workspace each entry point needs. The binding checks its mirrors
 * against this table when it loads the library and refuses a mismatch.
 *
 * Host builds only (libux.so, libux_float.so): a device never needs it.
 */
#include <math.h>
#include <stddef.h>
#include <string.h>

#include "ux/joint.h"
#include "ux/joint_model.h"
#include "ux/ux.h"

/* Every mirrored struct (UX_ABI_STRUCTS) and its fields (UX_ABI_FIELDS), generated from the headers. */
#include "abi_layout.h"

typedef struct {
    const char *type, *field;
    size_t offset, size;
} abi_field;

typedef struct {
    const char *type;
    size_t size;
} abi_struct;

#define FIELD_ENTRY(t, f) {#t, #f, offsetof(t, f), sizeof(((t *)0)->f)},
#define STRUCT_ENTRY(t) {#t, sizeof(t)},

static const abi_field fields[] = {UX_ABI_FIELDS(FIELD_ENTRY)};
static const abi_struct structs[] = {UX_ABI_STRUCTS(STRUCT_ENTRY)};

/* sizeof(type), or 0 when the type is not in the table. */
size_t ux_abi_sizeof(const char *type)
{
    size_t i;
    for (i = 0; i < sizeof structs / sizeof structs[0]; ++i)
        if (strcmp(structs[i].type, type) == 0)
            return structs[i].size;
    return 0;
}

/* Offset and size of type.field; returns 0 on success, −1 when the field is not in the table. */
int ux_abi_field(const char *type, const char *field, size_t *offset, size_t *size)
{
    size_t i;
    for (i = 0; i < sizeof fields / sizeof fields[0]; ++i)
        if (strcmp(fields[i].type, type) == 0 && strcmp(fields[i].field, field) == 0) {
            *offset = fields[i].offset;
            *size = fields[i].size;
            return 0;
        }
    return -1;
}

/* Number of fields the table lists for `type` (the binding must mirror each of them). */
unsigned ux_abi_field_count(const char *type)
{
    unsigned n = 0;
    size_t i;
    for (i = 0; i < sizeof fields / sizeof fields[0]; ++i)
        n += strcmp(fields[i].type, type) == 0;
    return n;
}

/* Workspace each entry point needs, from the same macros the core checks against (ux/workspace.h). */
size_t ux_abi_ttr_workspace_bytes(size_t count) { return UX_TTR_WORKSPACE_BYTES(count); }
size_t ux_abi_lift_workspace_bytes(size_t points) { return UX_LIFT_WORKSPACE_BYTES(points); }
size_t ux_abi_from_samples_workspace_bytes(size_t count)
{
    return UX_TTR_WORKSPACE_BYTES(count) + 2u * UX_WS_REALS(count);
}
size_t ux_abi_bayes_workspace_bytes(int form, size_t prior_count, size_t noise_points)
{
    return form == UX_LIK_KERNEL ? UX_BAYES_KERNEL_WORKSPACE_BYTES(prior_count, noise_points)
                                 : UX_BAYES_SAMPLER_WORKSPACE_BYTES(prior_count, noise_points);
}
size_t ux_abi_joint_ttr_workspace_bytes(size_t count, unsigned dim, unsigned eta)
{
    return UX_JOINT_TTR_WORKSPACE_BYTES(count, dim, eta);
}
size_t ux_abi_joint_from_atoms_workspace_bytes(size_t count, unsigned dim, unsigned eta)
{
    return UX_JOINT_FROM_ATOMS_WORKSPACE_BYTES(count, dim, eta);
}

/*
 * Simulation of a scalar system from its C model, for a system that has no Python twin (uxhost simulate,
 * uxemu.native.Native.simulate). Each law is sampled from the core's generator (ux_rng, rng.c) in double
 * precision, one draw at a time in a fixed order, so the same generator state gives the same bits. The
 * draws are not numpy's: a trace matches the reference's simulation in law, not in value.
 */
/* Uniform on the open interval (0, 1): (j + ½)·2^−52 for the top 52 bits j of one draw (exact in double). */
static double open_uniform(ux_rng *rng) { return ((double)(ux_rng_next(rng) >> 12) + 0.5) * 0x1.0p-52; }

/* A point (a, b) uniform in the unit disc but its centre, by rejection from the square: returns a, with
 * s = a² + b², the start of both polar methods below. */
static double polar_point(ux_rng *rng, double *s)
{
    double a, b;
    do {
        a = 2.0 * ux_rng_uniform(rng) - 1.0;
        b = 2.0 * ux_rng_uniform(rng) - 1.0;
        *s = a * a + b * b;
    } while (*s >= 1.0 || *s == 0.0);
    return a;
}

/* N(0, 1) by Marsaglia's polar method (the pair's second value is not kept). */
static double std_normal(ux_rng *rng)
{
    double s, a = polar_point(rng, &s);
    return a * sqrt(-2.0 * log(s) / s);
}

/* Laplace(0, 1) by inversion. */
static double std_laplace(ux_rng *rng)
{
    double v = open_uniform(rng) - 0.5;
    return v < 0 ? log(1.0 + 2.0 * v) : -log(1.0 - 2.0 * v);
}

/* Student's t with df > 0 degrees of freedom by Bailey's polar method (Math. Comp. 62, 1994). */
static double std_student_t(ux_rng *rng, double df)
{
    double s, a = polar_point(rng, &s);
    return a * sqrt(df * (pow(s, -2.0 / df) - 1.0) / s);
}

/* One draw from `law` (checked by the caller), with the parameters of ux/law.h. */
static double draw(const ux_law *law, ux_rng *rng)
{
    double a = (double)law->a, b = (double)law->b, c = (double)law->c;
    switch (law->kind) {
        case UX_LAW_GAUSSIAN:
            return a + b * std_normal(rng);
        case UX_LAW_LAPLACE:
            return a + b * std_laplace(rng);
        case UX_LAW_UNIFORM:
            return a + (b - a) * ux_rng_uniform(rng);
        case UX_LAW_EXPONENTIAL:
            return -a * log(open_uniform(rng));
        case UX_LAW_STUDENT_T:
            return b + c * std_student_t(rng, a);
        case UX_LAW_LOGNORMAL:
            return exp(a + b * std_normal(rng));
        case UX_LAW_POINT:
            return a;
    }
    return NAN;
}

/* Whether `family` is a kernel family (ux_std_logpdf's). */
static int kernel_family(ux_law_kind family)
{
    return family == UX_LAW_GAUSSIAN || family == UX_LAW_LAPLACE || family == UX_LAW_UNIFORM;
}

/* One draw from the standard member of a kernel family: N(0, 1), Laplace(0, 1), U(−½, ½). */
static double draw_standard(ux_law_kind family, ux_rng *rng)
{
    if (family == UX_LAW_GAUSSIAN)
        return std_normal(rng);
    return family == UX_LAW_LAPLACE ? std_laplace(rng) : ux_rng_uniform(rng) - 0.5;
}

/* Advance rng by 2^128 draws (xoshiro256's jump): stream i of a seed is the generator after i jumps, so
 * streams never overlap and trace i does not depend on how many traces are drawn. */
void ux_abi_rng_jump(ux_rng *rng)
{
    static const uint64_t jump[4] = {0x180ec6d33cfd0abaull, 0xd5a61266f0c9392cull, 0xa9582618e03fc9aaull,
                                     0x39abdc4529b1661cull};
    uint64_t s[4] = {0, 0, 0, 0};
    unsigned i, b, j;
    for (i = 0; i < 4; ++i)
        for (b = 0; b < 64; ++b) {
            if (jump[i] & ((uint64_t)1 << b))
                for (j = 0; j < 4; ++j)
                    s[j] ^= rng->s[j];
            ux_rng_next(rng);
        }
    for (j = 0; j < 4; ++j)
        rng->s[j] = s[j];
}

/* z_k: the sampler form, sampler({x, noise_1, …}), or the kernel form, loc + scale·t with {loc, scale} the
 * kernel at {x, inner noise draw} and t a draw of the family's standard member. */
static ux_real observe(const ux_model *model, const ux_model_noises *nz, int form, ux_real x, const ux_model_ctx *ctx,
                       ux_rng *rng)
{
    ux_real args[1 + UX_MODEL_MAX_NOISES], loc, scale;
    unsigned i;
    args[0] = x;
    if (form == UX_LIK_SAMPLER) {
        for (i = 0; i < nz->n_noise; ++i)
            args[1 + i] = (ux_real)draw(&nz->noise[i], rng);
        return model->code->sampler(args, ctx);
    }
    args[1] = nz->n_inner ? (ux_real)draw(&nz->inner, rng) : 0;
    model->code->kernel(args, ctx, &loc, &scale);
    return (ux_real)((double)loc + (double)scale * draw_standard(model->code->family, rng));
}

/* The observation form to draw with (−1: the sampler form when the model has one, else the kernel form), or
 * −1 when the form is unknown or the model lacks it or its transition or noises. */
static int simulate_form(const ux_model *model, int form)
{
    if (form < 0)
        form = model->code->sampler != NULL ? UX_LIK_SAMPLER : UX_LIK_KERNEL;
    if (form != UX_LIK_SAMPLER && form != UX_LIK_KERNEL)
        return -1;
    if (model->code->transition == NULL || model->code->noises == NULL ||
        (form == UX_LIK_SAMPLER ? model->code->sampler == NULL : model->code->kernel == NULL))
        return -1;
    return form;
}

/* UX_OK when the laws the simulation draws from (prior, process noise, the form's observation noises) can be
 * drawn: UX_ERR_DOMAIN for a law with invalid parameters, UX_ERR_ARG for noises the form cannot take. */
static ux_status check_scalar_laws(const ux_model *model, const ux_law *prior, const ux_model_noises *nz, int form)
{
    unsigned i;
    if (ux_law_check(prior) != UX_OK || ux_law_check(&nz->process) != UX_OK)
        return UX_ERR_DOMAIN;
    if (form == UX_LIK_SAMPLER) {
        if (nz->n_noise < 1 || nz->n_noise > UX_MODEL_MAX_NOISES)
            return UX_ERR_ARG;
        for (i = 0; i < nz->n_noise; ++i)
            if (ux_law_check(&nz->noise[i]) != UX_OK)
                return UX_ERR_DOMAIN;
        return UX_OK;
    }
    if (nz->n_inner > 1 || !kernel_family(model->code->family))
        return UX_ERR_ARG;
    return nz->n_inner && ux_law_check(&nz->inner) != UX_OK ? UX_ERR_DOMAIN : UX_OK;
}

/*
 * Simulate `steps` steps of a scalar system from its C model and the core's generator `rng` (seeded by the
 * caller with ux_rng_seed, advanced here): x_0 from the prior, x_k = transition({x_{k−1}, w_k}) with w_k a
 * draw of the process noise and the context of step k (k, u[k]), z_k the observation of x_k with draws of
 * the observation noises. The observation is evaluated with the context the filter gives it (step 0, no
 * input: ux_filter_update's), so a trace is of the model the filter assumes.
 *   params  the parameter vector (NULL: the model's defaults); prior: the prior law (NULL: the model's)
 *   u       steps control inputs (NULL: all 0)
 *   form    UX_LIK_SAMPLER or UX_LIK_KERNEL: which observation form draws z; −1: the sampler form when the
 *           model has one, else the kernel form
 *   x, z    steps values each, written
 * Per step the draws come in this order: the prior (step 0) or the process noise, then the observation's
 * noises (sampler: noise_1, …; kernel: the inner noise if any, then the family's). A state or reading that
 * is not finite (a system that diverges under these parameters) is written as it is: the caller decides.
 * Returns UX_OK; UX_ERR_ARG for a NULL pointer, an unknown form, or a form or function the model lacks;
 * UX_ERR_DOMAIN for parameters outside their domains or a law with invalid parameters.
 */
ux_status ux_abi_simulate(const ux_model *model, const double *params, const ux_law *prior, ux_rng *rng, uint32_t steps,
                          const double *u, int form, double *x, double *z)
{
    ux_real p[UX_MODEL_MAX_PARAMS], args[2], state = 0;
    ux_model_noises nz;
    ux_model_ctx ctx, obs_ctx;
    ux_status st;
    uint32_t k;
    if (model == NULL || model->code == NULL || rng == NULL || (steps > 0 && (x == NULL || z == NULL)))
        return UX_ERR_ARG;
    if ((form = simulate_form(model, form)) < 0)
        return UX_ERR_ARG;
    if (model->n_params > UX_MODEL_MAX_PARAMS || ux_model_params(model, params, p) != UX_OK)
        return UX_ERR_DOMAIN;
    if (prior == NULL)
        prior = &model->prior;
    memset(&nz, 0, sizeof nz);
    model->code->noises(p, &nz);
    if ((st = check_scalar_laws(model, prior, &nz, form)) != UX_OK)
        return st;
    ux_model_context(model, p, 0, 0, &obs_ctx);
    for (k = 0; k < steps; ++k) {
        if (k == 0) {
            state = (ux_real)draw(prior, rng);
        } else {
            ux_model_context(model, p, k, u != NULL ? (ux_real)u[k] : 0, &ctx);
            args[0] = state;
            args[1] = (ux_real)draw(&nz.process, rng);
            state = model->code->transition(args, &ctx);
        }
        x[k] = (double)state;
        z[k] = (double)observe(model, &nz, form, state, &obs_ctx, rng);
    }
    return UX_OK;
}

/* UX_OK when a joint system has what its simulation calls, in dimensions the core takes; else UX_ERR_ARG. */
static ux_status check_joint_code(const ux_joint_model *model)
{
    const ux_joint_model_code *code = model->code;
    if (code->transition == NULL || code->noises == NULL || code->kernel == NULL || !kernel_family(code->family))
        return UX_ERR_ARG;
    if (model->dim < 1 || model->dim > UX_MAX_DIM || code->dim_noise < 1 || code->dim_noise > UX_JOINT_MAX_NOISES ||
        code->dim_obs < 1 || code->dim_obs > UX_JOINT_MAX_OBS)
        return UX_ERR_ARG;
    return UX_OK;
}

/* UX_OK when the prior's dim component laws and the dim_noise process-noise laws can be drawn, else
 * UX_ERR_DOMAIN. */
static ux_status check_joint_laws(const ux_law *prior, unsigned dim, const ux_law *process, unsigned dim_noise)
{
    unsigned i;
    for (i = 0; i < dim; ++i)
        if (ux_law_check(&prior[i]) != UX_OK)
            return UX_ERR_DOMAIN;
    for (i = 0; i < dim_noise; ++i)
        if (ux_law_check(&process[i]) != UX_OK)
            return UX_ERR_DOMAIN;
    return UX_OK;
}

/* One step of a joint simulation: the state (step 0: drawn from the prior; else the transition of the last
 * with a draw of each process noise and the step's context) into state, its observation into z (dim_obs). */
static void joint_step(const ux_joint_model *model, const ux_real *p, const ux_law *prior, const ux_law *process,
                       uint32_t k, const double *u, const ux_model_ctx *obs_ctx, ux_rng *rng, ux_real *state, double *z)
{
    const ux_joint_model_code *code = model->code;
    ux_real next[UX_MAX_DIM], w[UX_JOINT_MAX_NOISES], loc[UX_JOINT_MAX_OBS], scale[UX_JOINT_MAX_OBS];
    ux_model_ctx ctx;
    unsigned i;
    if (k == 0) {
        for (i = 0; i < model->dim; ++i)
            state[i] = (ux_real)draw(&prior[i], rng);
    } else {
        ux_joint_model_context(model, p, k, u != NULL ? (ux_real)u[k] : 0, &ctx);
        for (i = 0; i < code->dim_noise; ++i)
            w[i] = (ux_real)draw(&process[i], rng);
        code->transition(next, state, w, &ctx);
        memcpy(state, next, model->dim * sizeof state[0]);
    }
    code->kernel(state, obs_ctx, loc, scale);
    for (i = 0; i < code->dim_obs; ++i)
        z[i] = (double)loc[i] + (double)scale[i] * draw_standard(code->family, rng);
}

/*
 * The same for a joint system (ux/joint_model.h): x_0 from the prior's dim independent component laws,
 * x_k = transition(x_{k−1}, w_k) with w_k one draw of each of the dim_noise process-noise laws and the
 * context of step k (k, u[k]), and z_k: per observation component c, loc_c + scale_c·t_c with {loc, scale}
 * the kernel at x_k (with the filter's context, step 0 and no input, as above) and t_c a draw of the
 * family's standard member. Draws per step: the prior's components in order (step 0) or the noises in
 * order, then t_0, t_1, ….
 *   prior   dim laws (NULL: the model's); x: steps·dim values, row k the state at step k; z: steps·dim_obs
 * Returns UX_OK, UX_ERR_ARG (a NULL pointer, a model without a transition, noises or kernel, dimensions out
 * of range, a family that is not a kernel family) or UX_ERR_DOMAIN (parameters or laws out of domain).
 */
ux_status ux_abi_joint_simulate(const ux_joint_model *model, const double *params, const ux_law *prior, ux_rng *rng,
                                uint32_t steps, const double *u, double *x, double *z)
{
    ux_real p[UX_MODEL_MAX_PARAMS], state[UX_MAX_DIM];
    ux_law process[UX_JOINT_MAX_NOISES];
    ux_model_ctx obs_ctx;
    ux_status st;
    unsigned i;
    uint32_t k;
    if (model == NULL || model->code == NULL || rng == NULL || (steps > 0 && (x == NULL || z == NULL)))
        return UX_ERR_ARG;
    if ((st = check_joint_code(model)) != UX_OK)
        return st;
    if (model->n_params > UX_MODEL_MAX_PARAMS || ux_joint_model_params(model, params, p) != UX_OK)
        return UX_ERR_DOMAIN;
    if (prior == NULL)
        prior = model->prior;
    memset(process, 0, sizeof process);
    model->code->noises(p, process);
    if ((st = check_joint_laws(prior, model->dim, process, model->code->dim_noise)) != UX_OK)
        return st;
    ux_joint_model_context(model, p, 0, 0, &obs_ctx);
    for (k = 0; k < steps; ++k) {
        joint_step(model, p, prior, process, k, u, &obs_ctx, rng, state, z + (size_t)k * model->code->dim_obs);
        for (i = 0; i < model->dim; ++i)
            x[(size_t)k * model->dim + i] = (double)state[i];
    }
    return UX_OK;
}

/* What the binding needs to know of a joint system to simulate it, without mirroring its struct: its name
 * and id, dimensions and parameter count, and its default parameters (UX_MODEL_MAX_PARAMS doubles at most).
 * Returns 0, or −1 for a NULL model. */
int ux_abi_joint_shape(const ux_joint_model *model, const char **name, unsigned *id, unsigned *dim, unsigned *dim_obs,
                       unsigned *n_params, double *defaults)
{
    unsigned i;
    if (model == NULL || model->code == NULL)
        return -1;
    *name = model->name;
    *id = model->id;
    *dim = model->dim;
    *dim_obs = model->code->dim_obs;
    *n_params = model->n_params;
    for (i = 0; i < model->n_params && i < UX_MODEL_MAX_PARAMS; ++i)
        defaults[i] = (double)model->defaults[i];
    return 0;
}
