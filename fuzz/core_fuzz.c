/*
 * core_fuzz.c — libFuzzer harness of the core's entry points that take a user's numbers: a law
 * (ux_quantize), a filter configuration (ux_filter_init: system, η, mode, likelihood, parameters, prior)
 * and a stream of steps (ux_filter_predict, ux_filter_update with any evidence, weights and count,
 * ux_filter_logpdf). Numbers are read from the input as raw doubles, so NaN, ±∞, subnormals and huge
 * values all arrive.
 *
 * The oracle beyond the sanitizers: every call returns one of its documented statuses — an update one of
 * the protocol's status table (oracle.h, generated from docs/protocol.toml, so a status added there is
 * known here without an edit) or a refusal — and after every call that succeeds the filter's posterior is
 * a valid value (ux_value_check) with a finite mean; a refused call changes nothing. Otherwise the harness
 * says why on stderr and aborts (a finding). Built with -DFUZZ_TRACE it prints each update's status.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "input.h"
#include "oracle.h"
#include "ux/ux.h"

#define FINDING(...) (fprintf(stderr, "core_fuzz: " __VA_ARGS__), fputc('\n', stderr), abort())

static uint64_t workspace[UX_WORDS(UX_WORKSPACE_BYTES(UX_MAX_ETA))];
static ux_filter filter, before;

static void check_posterior(const ux_filter *f)
{
    const ux_value *v = ux_filter_posterior(f);
    if (ux_value_check(v) != UX_OK || v->count < 1 || v->count > f->eta || !isfinite(ux_filter_mean(f)))
        FINDING("the posterior after a call that succeeded is not a valid value with a finite mean");
}

static void fuzz_law(input *in)
{
    ux_law law;
    ux_value out;
    ux_sources src;
    unsigned eta = 1u << (take_u8(in) % (UX_MAX_LOG2_ETA + 1));
    law.kind = (ux_law_kind)(take_u8(in) % 8); /* one past the last kind: refused */
    law.a = (ux_real)take_f64(in);
    law.b = (ux_real)take_f64(in);
    law.c = (ux_real)take_f64(in);
    ux_sources_init(&src);
    ux_status st = ux_quantize(&law, eta, &out, &src);
    if (st == UX_OK) {
        if (ux_value_check(&out) != UX_OK || out.count > eta)
            FINDING("ux_quantize succeeded with an invalid value");
    } else if (st != UX_ERR_ARG && st != UX_ERR_DOMAIN) {
        FINDING("ux_quantize returned status %d, not a documented one", (int)st);
    }
}

static void fuzz_filter(input *in)
{
    double params[UX_MODEL_MAX_PARAMS];
    ux_law prior;
    const ux_model *model = ux_model_at(take_u8(in) % ux_model_count());
    ux_filter_config cfg = {model,
                            params,
                            1u << (take_u8(in) % (UX_MAX_LOG2_ETA + 1)),
                            (ux_mode)(take_u8(in) % 3),
                            (ux_likelihood)(take_u8(in) % 3),
                            NULL};
    ux_workspace ws = {workspace, sizeof workspace};
    unsigned i, steps;
    /* η is capped at 16 (kernel) and 8 (sampler) so that a million inputs run in minutes: a step costs
     * η² likelihoods (× η² noise points for the sampler), and the code paths are the same at every η. */
    if (cfg.eta > 16)
        cfg.eta = 16;
    if (cfg.eta > 8 && cfg.likelihood == UX_LIK_SAMPLER)
        cfg.eta = 8;
    for (i = 0; i < model->n_params; ++i)
        params[i] = (take_u8(in) & 1) ? take_f64(in) : (double)model->defaults[i];
    if (take_u8(in) & 1) {
        prior.kind = (ux_law_kind)(take_u8(in) % 8);
        prior.a = (ux_real)take_f64(in);
        prior.b = (ux_real)take_f64(in);
        prior.c = 0;
        cfg.prior = &prior;
    }
    ux_status st = ux_filter_init(&filter, &cfg, ws);
    if (st != UX_OK) {
        if (st != UX_ERR_ARG && st != UX_ERR_DOMAIN && st != UX_ERR_WORKSPACE)
            FINDING("ux_filter_init returned status %d, not a documented one", (int)st);
        return;
    }
    check_posterior(&filter);
    steps = take_u8(in) % 8;
    for (i = 0; i < steps && in->left > 0; ++i) {
        double z[4], omega[4];
        unsigned j, J = take_u8(in) % 5, m = take_u8(in) % 4;
        int with_omega = take_u8(in) & 1;
        memcpy(&before, &filter, sizeof before);
        if (take_u8(in) & 1) {
            st = ux_filter_predict(&filter, (uint32_t)(i + 1), take_f64(in));
            if (st == UX_OK)
                continue;
            if (st != UX_ERR_DOMAIN || memcmp(&before.posterior, &filter.posterior, sizeof before.posterior) != 0)
                FINDING("ux_filter_predict returned status %d or changed the belief it refused", (int)st);
            continue;
        }
        for (j = 0; j < J; ++j) {
            z[j] = take_f64(in);
            omega[j] = take_f64(in);
        }
        st = ux_filter_update(&filter, J ? z : NULL, with_omega ? omega : NULL, J, m);
#ifdef FUZZ_TRACE
        fprintf(stderr, "core_fuzz: update status %d\n", (int)st);
#endif
        if (oracle_status(st)) { /* every status of the table answers with a posterior */
            check_posterior(&filter);
            (void)ux_filter_logpdf(&filter, take_f64(in));
            (void)ux_filter_log_evidence(&filter);
        } else if (st == UX_ERR_ARG || st == UX_ERR_DOMAIN) {
            if (memcmp(&before.posterior, &filter.posterior, sizeof before.posterior) != 0)
                FINDING("a refused update (status %d) changed the posterior", (int)st);
        } else {
            FINDING("update status %d is neither in docs/protocol.toml's status table nor a refusal", (int)st);
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    input in = {data, size};
    if (take_u8(&in) & 1)
        fuzz_law(&in);
    else
        fuzz_filter(&in);
    return 0;
}
