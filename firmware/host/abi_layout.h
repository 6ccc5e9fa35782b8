// GENERATED from firmware/include/ux/*.h by scripts/codegen — do not edit by hand.
// Change the source and run `make generate`; tests fail when this file and its source drift apart.
/* The structs the Python binding mirrors (uxemu/layouts.py), for abi.c's layout table:
 * UX_ABI_FIELDS(X) calls X(type, field) for each field in declaration order, UX_ABI_STRUCTS(X)
 * X(type) for each struct. */
#ifndef UX_ABI_LAYOUT_H
#define UX_ABI_LAYOUT_H

#define UX_ABI_FIELDS(X) \
    X(ux_value, count) \
    X(ux_value, eta) \
    X(ux_value, sources) \
    X(ux_value, x) \
    X(ux_value, w) \
    X(ux_sources, next) \
    X(ux_law, kind) \
    X(ux_law, a) \
    X(ux_law, b) \
    X(ux_law, c) \
    X(ux_rng, s) \
    X(ux_workspace, mem) \
    X(ux_workspace, bytes) \
    X(ux_evidence, z) \
    X(ux_evidence, omega) \
    X(ux_evidence, count) \
    X(ux_evidence, m) \
    X(ux_observation, form) \
    X(ux_observation, ctx) \
    X(ux_observation, family) \
    X(ux_observation, kernel) \
    X(ux_observation, inner) \
    X(ux_observation, sampler) \
    X(ux_observation, noise) \
    X(ux_observation, n_noise) \
    X(ux_observation, eta) \
    X(ux_observation, kernel_row) \
    X(ux_observation, innovation) \
    X(ux_model_ctx, params) \
    X(ux_model_ctx, k) \
    X(ux_model_ctx, u) \
    X(ux_model_ctx, step) \
    X(ux_model_noises, process) \
    X(ux_model_noises, n_inner) \
    X(ux_model_noises, inner) \
    X(ux_model_noises, n_noise) \
    X(ux_model_noises, noise) \
    X(ux_model_code, transition) \
    X(ux_model_code, noises) \
    X(ux_model_code, family) \
    X(ux_model_code, kernel) \
    X(ux_model_code, sampler) \
    X(ux_model_code, prepare) \
    X(ux_model_code, additive_noise) \
    X(ux_model_code, kernel_row) \
    X(ux_model, id) \
    X(ux_model, name) \
    X(ux_model, title) \
    X(ux_model, n_params) \
    X(ux_model, param_names) \
    X(ux_model, defaults) \
    X(ux_model, domains) \
    X(ux_model, prior) \
    X(ux_model, code) \
    X(ux_filter_config, model) \
    X(ux_filter_config, params) \
    X(ux_filter_config, eta) \
    X(ux_filter_config, mode) \
    X(ux_filter_config, likelihood) \
    X(ux_filter_config, prior) \
    X(ux_joint, count) \
    X(ux_joint, eta) \
    X(ux_joint, dim) \
    X(ux_joint, sources) \
    X(ux_joint, x) \
    X(ux_joint, w) \
    X(ux_joint_filter_config, model) \
    X(ux_joint_filter_config, params) \
    X(ux_joint_filter_config, eta) \
    X(ux_joint_filter_config, mode) \
    X(ux_joint_filter_config, prior) \
    X(ux_joint_model_code, dim_noise) \
    X(ux_joint_model_code, dim_obs) \
    X(ux_joint_model_code, transition) \
    X(ux_joint_model_code, noises) \
    X(ux_joint_model_code, family) \
    X(ux_joint_model_code, kernel) \
    X(ux_joint_model_code, prepare) \
    X(ux_joint_model_code, additive_noise) \
    X(ux_joint_model, id) \
    X(ux_joint_model, name) \
    X(ux_joint_model, title) \
    X(ux_joint_model, n_params) \
    X(ux_joint_model, param_names) \
    X(ux_joint_model, defaults) \
    X(ux_joint_model, domains) \
    X(ux_joint_model, dim) \
    X(ux_joint_model, prior) \
    X(ux_joint_model, code)

#define UX_ABI_STRUCTS(X) \
    X(ux_value) \
    X(ux_sources) \
    X(ux_law) \
    X(ux_rng) \
    X(ux_workspace) \
    X(ux_evidence) \
    X(ux_observation) \
    X(ux_model_ctx) \
    X(ux_model_noises) \
    X(ux_model_code) \
    X(ux_model) \
    X(ux_filter_config) \
    X(ux_joint) \
    X(ux_joint_filter_config) \
    X(ux_joint_model_code) \
    X(ux_joint_model)

#endif /* UX_ABI_LAYOUT_H */
