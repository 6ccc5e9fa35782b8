// GENERATED from firmware/src/models/systems.toml by scripts/codegen — do not edit by hand.
// Change the source and run `make generate`; tests fail when this file and its source drift apart.

#include "ux/joint_model.h"
#include "ux/model.h"

extern const ux_model_code ux_code_sv;
extern const ux_model_code ux_code_gss;
extern const ux_model_code ux_code_cubic;
extern const ux_model_code ux_code_lg;
extern const ux_joint_model_code ux_jcode_pendulum;
extern const ux_joint_model_code ux_jcode_cvrange;
extern const ux_joint_model_code ux_jcode_bearings;
extern const ux_joint_model_code ux_jcode_reentry;

static const char *const sv_param_names[] = {"phi", "c", "sigma_eta", "sigma_eps"};
static const ux_real sv_defaults[] = {0.98, 0.0, 0.2, 1.0};
static const uint8_t sv_domains[] = {UX_PARAM_REAL, UX_PARAM_REAL, UX_PARAM_POSITIVE, UX_PARAM_POSITIVE};

static const char *const gss_param_names[] = {"sigma_v", "sigma_n"};
static const ux_real gss_defaults[] = {3.0, 1.0};
static const uint8_t gss_domains[] = {UX_PARAM_POSITIVE, UX_PARAM_POSITIVE};

static const char *const cubic_param_names[] = {"alpha", "beta", "c", "sigma_v", "sigma_m", "sigma_base"};
static const ux_real cubic_defaults[] = {0.1, 0.05, 0.95, 0.05, 0.05, 0.01};
static const uint8_t cubic_domains[] = {UX_PARAM_REAL, UX_PARAM_REAL, UX_PARAM_REAL, UX_PARAM_POSITIVE, UX_PARAM_POSITIVE, UX_PARAM_NONNEGATIVE};

static const char *const lg_param_names[] = {"a", "q", "r"};
static const ux_real lg_defaults[] = {0.95, 0.5, 1.0};
static const uint8_t lg_domains[] = {UX_PARAM_REAL, UX_PARAM_POSITIVE, UX_PARAM_POSITIVE};

static const char *const pendulum_param_names[] = {"dt", "g", "q", "r"};
static const ux_real pendulum_defaults[] = {0.05, 9.81, 0.5, 0.3};
static const uint8_t pendulum_domains[] = {UX_PARAM_POSITIVE, UX_PARAM_POSITIVE, UX_PARAM_POSITIVE, UX_PARAM_POSITIVE};

static const char *const cvrange_param_names[] = {"dt", "q", "h", "r"};
static const ux_real cvrange_defaults[] = {0.2, 0.05, 2.0, 0.5};
static const uint8_t cvrange_domains[] = {UX_PARAM_POSITIVE, UX_PARAM_POSITIVE, UX_PARAM_POSITIVE, UX_PARAM_POSITIVE};

static const char *const bearings_param_names[] = {"dt", "q", "speed", "leg", "r"};
static const ux_real bearings_defaults[] = {0.5, 0.01, 1.0, 20.0, 0.02};
static const uint8_t bearings_domains[] = {UX_PARAM_POSITIVE, UX_PARAM_POSITIVE, UX_PARAM_POSITIVE, UX_PARAM_POSITIVE, UX_PARAM_POSITIVE};

static const char *const reentry_param_names[] = {"dt", "hs", "m", "a", "q", "qb", "r"};
static const ux_real reentry_defaults[] = {0.5, 6.1, 30.5, 30.5, 0.001, 0.0001, 0.03};
static const uint8_t reentry_domains[] = {UX_PARAM_POSITIVE, UX_PARAM_POSITIVE, UX_PARAM_POSITIVE, UX_PARAM_REAL, UX_PARAM_POSITIVE, UX_PARAM_POSITIVE, UX_PARAM_POSITIVE};

const ux_model ux_models[] = {
    {1, "sv", "stochastic volatility", 4, sv_param_names, sv_defaults, sv_domains, {UX_LAW_GAUSSIAN, 0.0, 2.25, 0.0}, &ux_code_sv},
    {2, "gss", "Gordon–Salmond–Smith", 2, gss_param_names, gss_defaults, gss_domains, {UX_LAW_GAUSSIAN, 0.0, 5.0, 0.0}, &ux_code_gss},
    {3, "cubic", "cubic mean-reverting, Beer–Lambert observation", 6, cubic_param_names, cubic_defaults, cubic_domains, {UX_LAW_GAUSSIAN, 0.0, 0.1, 0.0}, &ux_code_cubic},
    {4, "lg", "linear-Gaussian", 3, lg_param_names, lg_defaults, lg_domains, {UX_LAW_GAUSSIAN, 0.0, 2.0, 0.0}, &ux_code_lg},
};

const unsigned ux_models_count = sizeof ux_models / sizeof ux_models[0];

const ux_joint_model ux_joint_models[] = {
    {5, "pendulum", "pendulum, sin-of-angle sensor", 4, pendulum_param_names, pendulum_defaults, pendulum_domains, 2, {{UX_LAW_GAUSSIAN, 1.5, 0.5, 0.0}, {UX_LAW_GAUSSIAN, 0.0, 1.0, 0.0}}, &ux_jcode_pendulum},
    {6, "cvrange", "constant-velocity target, range-only sensor", 4, cvrange_param_names, cvrange_defaults, cvrange_domains, 2, {{UX_LAW_GAUSSIAN, -10.0, 2.0, 0.0}, {UX_LAW_GAUSSIAN, 1.0, 0.5, 0.0}}, &ux_jcode_cvrange},
    {7, "bearings", "bearings-only tracking, zig-zag observer", 5, bearings_param_names, bearings_defaults, bearings_domains, 4, {{UX_LAW_GAUSSIAN, 20.0, 4.0, 0.0}, {UX_LAW_GAUSSIAN, 0.0, 2.0, 0.0}, {UX_LAW_GAUSSIAN, 0.0, 0.25, 0.0}, {UX_LAW_GAUSSIAN, 0.0, 0.25, 0.0}}, &ux_jcode_bearings},
    {8, "reentry", "falling body, range radar", 7, reentry_param_names, reentry_defaults, reentry_domains, 3, {{UX_LAW_GAUSSIAN, 91.4, 0.3, 0.0}, {UX_LAW_GAUSSIAN, 6.1, 0.6, 0.0}, {UX_LAW_GAUSSIAN, 1.2, 1.0, 0.0}}, &ux_jcode_reentry},
};

const unsigned ux_joint_models_count = sizeof ux_joint_models / sizeof ux_joint_models[0];
