/*
 * abi.c — what the Python binding (emulator/uxemu/native.py) needs to know about this build's memory
 * layout, so it never has to guess: the size of every struct it mirrors with ctypes, the offset and size
 * of each of their fields, and the workspace each entry point needs. The binding checks its mirrors
 * against this table when it loads the library and refuses a mismatch.
 *
 * Host builds only (libux.so, libux_float.so): a device never needs it.
 */
#include <stddef.h>
#include <string.h>

#include "ux/joint.h"
#include "ux/joint_model.h"
#include "ux/ux.h"

/* Every mirrored struct: X(type, field), in declaration order. */
#define UX_ABI_FIELDS(X)                                                                               \
    X(ux_value, count) X(ux_value, eta) X(ux_value, sources) X(ux_value, x) X(ux_value, w)             \
    X(ux_sources, next)                                                                                \
    X(ux_law, kind) X(ux_law, a) X(ux_law, b) X(ux_law, c)                                             \
    X(ux_rng, s)                                                                                       \
    X(ux_workspace, mem) X(ux_workspace, bytes)                                                        \
    X(ux_evidence, z) X(ux_evidence, omega) X(ux_evidence, count) X(ux_evidence, m)                    \
    X(ux_observation, form) X(ux_observation, ctx) X(ux_observation, family)                           \
    X(ux_observation, kernel) X(ux_observation, inner) X(ux_observation, sampler)                      \
    X(ux_observation, noise) X(ux_observation, n_noise) X(ux_observation, eta)                         \
    X(ux_observation, kernel_row) X(ux_observation, innovation)                                        \
    X(ux_model_ctx, params) X(ux_model_ctx, k) X(ux_model_ctx, u) X(ux_model_ctx, step)                \
    X(ux_model_noises, process) X(ux_model_noises, n_inner) X(ux_model_noises, inner)                  \
    X(ux_model_noises, n_noise) X(ux_model_noises, noise)                                              \
    X(ux_model_code, transition) X(ux_model_code, noises) X(ux_model_code, family)                     \
    X(ux_model_code, kernel) X(ux_model_code, sampler) X(ux_model_code, prepare)                       \
    X(ux_model_code, additive_noise) X(ux_model_code, kernel_row)                                      \
    X(ux_model, id) X(ux_model, name) X(ux_model, title) X(ux_model, n_params)                         \
    X(ux_model, param_names) X(ux_model, defaults) X(ux_model, domains) X(ux_model, prior)             \
    X(ux_model, code)                                                                                  \
    X(ux_filter_config, model) X(ux_filter_config, params) X(ux_filter_config, eta)                    \
    X(ux_filter_config, mode) X(ux_filter_config, likelihood) X(ux_filter_config, prior)               \
    X(ux_joint, count) X(ux_joint, eta) X(ux_joint, dim) X(ux_joint, sources) X(ux_joint, x)           \
    X(ux_joint, w)                                                                                     \
    X(ux_joint_filter_config, model) X(ux_joint_filter_config, params) X(ux_joint_filter_config, eta)  \
    X(ux_joint_filter_config, mode) X(ux_joint_filter_config, prior)                                   \
    X(ux_joint_model_code, dim_noise) X(ux_joint_model_code, dim_obs)                                  \
    X(ux_joint_model_code, transition) X(ux_joint_model_code, noises) X(ux_joint_model_code, family)   \
    X(ux_joint_model_code, kernel) X(ux_joint_model_code, prepare)                                     \
    X(ux_joint_model_code, additive_noise)                                                             \
    X(ux_joint_model, id) X(ux_joint_model, name) X(ux_joint_model, title) X(ux_joint_model, n_params) \
    X(ux_joint_model, param_names) X(ux_joint_model, defaults) X(ux_joint_model, domains)              \
    X(ux_joint_model, dim) X(ux_joint_model, prior) X(ux_joint_model, code)

#define UX_ABI_STRUCTS(X)                                                                              \
    X(ux_value) X(ux_sources) X(ux_law) X(ux_rng) X(ux_workspace) X(ux_evidence) X(ux_observation)     \
    X(ux_model_ctx) X(ux_model_noises) X(ux_model_code) X(ux_model) X(ux_filter_config) X(ux_joint)     \
    X(ux_joint_filter_config) X(ux_joint_model_code) X(ux_joint_model)

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
