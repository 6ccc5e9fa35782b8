/*
 * cells_fuzz.c — libFuzzer harness of the cell filter (ux/joint_cells.h): a configuration (joint system, η,
 * parameters, prior laws) and a stream of predicts and updates, every number read from the input as a raw
 * double, so NaN, ±∞, subnormals and huge values all arrive.
 *
 * The oracle beyond the sanitizers: every call returns one of its documented statuses, and after every call
 * that succeeds the cells are a belief — 1…η of them, weights positive and summing to 1, means and
 * covariances finite, the belief's mean finite; a refused call changes nothing (the filter's struct and its
 * cells; the workspace's other bank is the step's scratch).
 * Otherwise the harness says why on stderr and aborts (a finding).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "input.h"
#include "ux/ux.h"

#define FINDING(...) (fprintf(stderr, "cells_fuzz: " __VA_ARGS__), fputc('\n', stderr), abort())
#define MAX_FUZZ_ETA 16 /* a step costs O(η·d) model calls; the code paths are the same at every η */

static uint64_t workspace[UX_WORDS(UX_JOINT_CELLS_WORKSPACE_BYTES(MAX_FUZZ_ETA, UX_MAX_DIM))];
static ux_joint_cells filter, before;
/* The belief's cells as `before` held them (the other bank and the spreads are scratch a refused step may use). */
static double saved_w[MAX_FUZZ_ETA], saved_m[MAX_FUZZ_ETA * UX_MAX_DIM],
    saved_P[MAX_FUZZ_ETA * UX_MAX_DIM * UX_MAX_DIM];

static void save_cells(const ux_joint_cells *f)
{
    unsigned i, d = f->dim;
    for (i = 0; i < ux_joint_cells_count(f); ++i)
        ux_joint_cells_cell(f, i, &saved_w[i], &saved_m[i * d], &saved_P[i * d * d]);
}

static int cells_equal(const ux_joint_cells *f)
{
    double w, m[UX_MAX_DIM], P[UX_MAX_DIM * UX_MAX_DIM];
    unsigned i, d = f->dim;
    for (i = 0; i < ux_joint_cells_count(f); ++i) {
        ux_joint_cells_cell(f, i, &w, m, P);
        if (memcmp(&w, &saved_w[i], sizeof w) != 0 || memcmp(m, &saved_m[i * d], d * sizeof(double)) != 0 ||
            memcmp(P, &saved_P[i * d * d], d * d * sizeof(double)) != 0)
            return 0;
    }
    return 1;
}

static void check_cells(const ux_joint_cells *f)
{
    double w, sum = 0, mean[UX_MAX_DIM], cov[UX_MAX_DIM * UX_MAX_DIM];
    unsigned i, a, n = ux_joint_cells_count(f), d = f->dim;
    if (n < 1 || n > f->eta)
        FINDING("%u cells at η = %u", n, f->eta);
    for (i = 0; i < n; ++i) {
        if (ux_joint_cells_cell(f, i, &w, mean, cov) != UX_OK || !(w > 0) || !isfinite(w))
            FINDING("cell %u has weight %g", i, w);
        sum += w;
        for (a = 0; a < d * d; ++a)
            if (!isfinite(cov[a]) || (a < d && !isfinite(mean[a])))
                FINDING("cell %u has a non-finite mean or covariance", i);
    }
    if (fabs(sum - 1.0) > 1e-9)
        FINDING("the cells' weights sum to %.17g", sum);
    if (ux_joint_cells_mean(f, mean) != UX_OK)
        FINDING("no mean for a valid belief");
    for (a = 0; a < d; ++a)
        if (!isfinite(mean[a]))
            FINDING("the belief's mean is not finite");
    if (ux_joint_cells_departure(f, mean) != UX_OK)
        FINDING("no departure for a valid belief");
    for (a = 0; a < d; ++a)
        if (!isfinite(mean[a]))
            FINDING("the departure is not finite");
}

/* The filter and its cells unchanged since `before` and the saved cells were taken. */
static void check_unchanged(const char *what, ux_status st)
{
    if (memcmp(&before, &filter, sizeof filter) != 0 || !cells_equal(&filter))
        FINDING("a refused %s (status %d) changed the filter", what, (int)st);
}

static void take_config(input *in, ux_joint_filter_config *cfg, double *params, ux_law *prior)
{
    const ux_joint_model *model = ux_joint_model_at(take_u8(in) % ux_joint_model_count());
    unsigned i;
    cfg->model = model;
    cfg->params = params;
    cfg->eta = 1u << (take_u8(in) % (UX_MAX_LOG2_ETA + 1));
    cfg->eta = cfg->eta > MAX_FUZZ_ETA ? MAX_FUZZ_ETA : cfg->eta;
    cfg->mode = UX_MODE_CELLS;
    cfg->prior = NULL;
    for (i = 0; i < model->n_params; ++i)
        params[i] = (take_u8(in) & 1) ? take_f64(in) : (double)model->defaults[i];
    if (take_u8(in) & 1) {
        for (i = 0; i < model->dim; ++i) {
            prior[i].kind = (ux_law_kind)(take_u8(in) % 8); /* one past the last kind: refused */
            prior[i].a = (ux_real)take_f64(in);
            prior[i].b = (ux_real)take_f64(in);
            prior[i].c = 0;
        }
        cfg->prior = prior;
    }
}

static void fuzz_step(input *in, unsigned i)
{
    double z[UX_MAX_DIM] = {0}, omega = 1.0; /* z doubles as logpdf's point: dim values */
    unsigned c, J = take_u8(in) % 3, m = take_u8(in) % 3;
    int with_omega = take_u8(in) & 1;
    ux_status st;
    memcpy(&before, &filter, sizeof before);
    save_cells(&filter);
    if (take_u8(in) & 1) {
        st = ux_joint_cells_predict(&filter, i + 1u, take_f64(in));
        if (st == UX_OK)
            check_cells(&filter);
        else if (st == UX_ERR_DOMAIN)
            check_unchanged("predict", st);
        else
            FINDING("ux_joint_cells_predict returned status %d, not a documented one", (int)st);
        return;
    }
    for (c = 0; c < filter.model->code->dim_obs; ++c)
        z[c] = take_f64(in);
    if (with_omega)
        omega = take_f64(in);
    st = ux_joint_cells_update(&filter, J ? z : NULL, with_omega ? &omega : NULL, J, m);
    if (st == UX_OK || st == UX_OUTLIER || st == UX_DEPARTED || st == UX_INCONSISTENT || st == UX_FALLBACK ||
        st == UX_NO_EVIDENCE) {
        check_cells(&filter);
        (void)ux_joint_cells_logpdf(&filter, z);
    } else if (st == UX_ERR_ARG || st == UX_ERR_DOMAIN) {
        check_unchanged("update", st);
    } else {
        FINDING("ux_joint_cells_update returned status %d, not a documented one", (int)st);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    input in = {data, size};
    double params[UX_MODEL_MAX_PARAMS];
    ux_law prior[UX_MAX_DIM];
    ux_joint_filter_config cfg;
    ux_workspace ws = {workspace, sizeof workspace};
    unsigned i, steps;
    ux_status st;
    take_config(&in, &cfg, params, prior);
    st = ux_joint_cells_init(&filter, &cfg, ws);
    if (st != UX_OK) {
        if (st != UX_ERR_ARG && st != UX_ERR_DOMAIN && st != UX_ERR_WORKSPACE)
            FINDING("ux_joint_cells_init returned status %d, not a documented one", (int)st);
        return 0;
    }
    check_cells(&filter);
    steps = take_u8(&in);
    if ((steps & 8u) && ux_joint_cells_set_exchange(&filter, 0) != UX_OK) /* a spare bit: seeds below 8 keep it */
        FINDING("ux_joint_cells_set_exchange refused a live filter");
    if ((steps & 16u) && ux_joint_cells_set_gate(&filter, 1.0, 1) != UX_OK) /* a 1-sd gate that drops: often taken */
        FINDING("ux_joint_cells_set_gate refused a live filter");
    steps %= 8u;
    for (i = 0; i < steps && in.left > 0; ++i)
        fuzz_step(&in, i);
    return 0;
}
