/* Compaction and TTR: order kept, validity, mean preservation, identity, W1 = cell transport. */
#include <string.h>

#include "harness.h"

#define BIG 4096

static ux_real X[BIG], W[BIG], X2[BIG], W2[BIG];

static double uniform01(ux_rng *r) { return ux_rng_uniform(r); }

static void fill_random(ux_rng *r, size_t M, int ties)
{
    size_t i;
    for (i = 0; i < M; ++i) {
        X[i] = ties ? (ux_real)(ux_rng_next(r) % 7) : (ux_real)(uniform01(r) * 10.0 - 5.0);
        W[i] = (ux_real)(0.5 + uniform01(r));
    }
}

/* Stable insertion sort of (X, W)[0..M) by position: tests that need cells to be index ranges. */
static void sort_atoms(size_t M)
{
    size_t i, j;
    for (i = 1; i < M; ++i)
        for (j = i; j > 0 && X[j] < X[j - 1]; --j) {
            ux_real tx = X[j], tw = W[j];
            X[j] = X[j - 1];
            W[j] = W[j - 1];
            X[j - 1] = tx;
            W[j - 1] = tw;
        }
}

static void test_compact_keeps_order(void)
{
    ux_rng r;
    size_t i, M = 1000;
    ux_rng_seed(&r, 1);
    fill_random(&r, M, 1);
    for (i = 0; i < M; ++i)
        W[i] = (ux_real)(i + 1); /* the weight records the input order */
    W[10] = 0; /* a zero weight is dropped */
    CHECK(ux_compact(X, W, &M) == UX_OK);
    CHECK(M == 999);
    for (i = 1; i < M; ++i)
        CHECK(W[i - 1] < W[i]);
}

static void test_compact_rejects(void)
{
    size_t M = 3;
    ux_real x[3] = {1, 2, 3}, w[3] = {1, 1, 1};
    x[1] = (ux_real)NAN;
    CHECK(ux_compact(x, w, &M) == UX_ERR_DOMAIN);
    x[1] = 2;
    w[2] = -1;
    M = 3;
    CHECK(ux_compact(x, w, &M) == UX_ERR_DOMAIN);
    w[2] = (ux_real)INFINITY;
    M = 3;
    CHECK(ux_compact(x, w, &M) == UX_ERR_DOMAIN);
    CHECK(ux_compact(NULL, w, &M) == UX_ERR_ARG);
}

static uint8_t CELL[BIG];

/* Properties of one TTR run on (X, W)[0..M): returns the output count in *r. */
static void ttr_properties(size_t M, unsigned n, size_t *r_out, int *ok)
{
    double W0 = 0, S0 = 0, W1 = 0, S1 = 0;
    ux_real lo, hi;
    size_t i, r;
    *ok = 0;
    for (i = 0; i < M; ++i) {
        W0 += (double)W[i];
        S0 += (double)W[i] * (double)X[i];
    }
    for (i = 0; i < M; ++i) {
        X2[i] = X[i];
        W2[i] = W[i];
    }
    r = ux_ttr(X2, W2, M, n, CELL);
    *r_out = r;
    if (r < 1 || r > ((size_t)1 << n) || r > M)
        return;
    lo = hi = X[0];
    for (i = 1; i < M; ++i) {
        lo = X[i] < lo ? X[i] : lo;
        hi = X[i] > hi ? X[i] : hi;
    }
    for (i = 0; i < r; ++i) {
        if (!(W2[i] > 0) || X2[i] < lo || X2[i] > hi)
            return;
        if (i > 0 && !(X2[i] > X2[i - 1]))
            return;
        W1 += (double)W2[i];
        S1 += (double)W2[i] * (double)X2[i];
    }
    if (fabs(W1 - W0) > TOL(1e-12, 1e-4) * W0 || fabs(S1 - S0) > TOL(1e-11, 1e-3) * (W0 * 5.0))
        return;
    *ok = 1;
}

static void test_ttr_mean_mass_order(void)
{
    ux_rng r;
    size_t M, count;
    unsigned n;
    int ok;
    ux_rng_seed(&r, 3);
    for (M = 1; M <= 600; M = M * 3 + 1)
        for (n = 0; n <= 6; ++n) {
            fill_random(&r, M, 0); /* in no order: TTR needs none */
            ttr_properties(M, n, &count, &ok);
            CHECK(ok);
        }
}

static void test_ttr_is_identity_on_its_output(void)
{
    ux_rng r;
    size_t M = 500, a, b, i;
    unsigned n;
    ux_rng_seed(&r, 4);
    for (n = 0; n <= 6; ++n) {
        fill_random(&r, M, 0);
        a = ux_ttr(X, W, M, n, CELL);
        for (i = 0; i < a; ++i) {
            X2[i] = X[i];
            W2[i] = W[i];
        }
        b = ux_ttr(X2, W2, a, n, CELL);
        CHECK(a == b);
        CHECK(memcmp(X, X2, a * sizeof(ux_real)) == 0);
        CHECK(memcmp(W, W2, a * sizeof(ux_real)) == 0);
    }
}

/* Rebuild the tree bottom-up (parent = weighted mean of its children): interleaving parents between
 * children must give a strictly increasing sequence. */
static void test_ttr_tree_validity(void)
{
    ux_rng r;
    size_t M = 2000, count, i;
    unsigned n, level;
    ux_real px[64], pw[64];
    ux_rng_seed(&r, 5);
    for (n = 1; n <= 6; ++n) {
        fill_random(&r, M, 0);
        count = ux_ttr(X, W, M, n, CELL);
        CHECK(count == ((size_t)1 << n)); /* 2000 distinct continuous atoms always fill the tree */
        for (i = 0; i < count; ++i) {
            px[i] = X[i];
            pw[i] = W[i];
        }
        for (level = n; level > 0; --level) {
            size_t half = (size_t)1 << (level - 1);
            for (i = 0; i < half; ++i) {
                ux_real mw = pw[2 * i] + pw[2 * i + 1];
                ux_real m = (pw[2 * i] * px[2 * i] + pw[2 * i + 1] * px[2 * i + 1]) / mw;
                CHECK(px[2 * i] < m && m < px[2 * i + 1]);
                px[i] = m;
                pw[i] = mw;
            }
        }
    }
}

/* W1 between two sorted atom sets via ∫|F − G|. */
static double w1_sorted(const ux_real *xa, const ux_real *wa, size_t na, const ux_real *xb, const ux_real *wb,
                        size_t nb)
{
    size_t i = 0, j = 0;
    double Fa = 0, Fb = 0, last, total = 0;
    last = (double)(xa[0] < xb[0] ? xa[0] : xb[0]);
    while (i < na || j < nb) {
        double next = (j >= nb || (i < na && xa[i] <= xb[j])) ? (double)xa[i] : (double)xb[j];
        total += fabs(Fa - Fb) * (next - last);
        last = next;
        while (i < na && (double)xa[i] == next)
            Fa += (double)wa[i++];
        while (j < nb && (double)xb[j] == next)
            Fb += (double)wb[j++];
    }
    return total;
}

static void test_ttr_w1_is_cell_transport(void)
{
    ux_rng r;
    size_t M = 300, count, i, c;
    unsigned n;
    ux_rng_seed(&r, 6);
    for (n = 1; n <= 5; ++n) {
        double total = 0, transport = 0, acc;
        fill_random(&r, M, 0);
        sort_atoms(M); /* sorted, so that every cell is a run of consecutive atoms */
        for (i = 0; i < M; ++i)
            total += (double)W[i];
        for (i = 0; i < M; ++i)
            W[i] = (ux_real)((double)W[i] / total);
        for (i = 0; i < M; ++i) {
            X2[i] = X[i];
            W2[i] = W[i];
        }
        count = ux_ttr(X2, W2, M, n, CELL);
        /* Cells are consecutive input atoms whose sequential mass sum is the output mass. */
        for (c = 0, i = 0; c < count; ++c) {
            ux_real s = 0;
            acc = 0;
            while (i < M && s != W2[c]) {
                s = s + W[i];
                acc += (double)W[i] * fabs((double)X[i] - (double)X2[c]);
                ++i;
            }
            CHECK(s == W2[c]);
            transport += acc;
        }
        CHECK(i == M);
        CHECK_NEAR(w1_sorted(X, W, M, X2, W2, count), transport, TOL(1e-12, 1e-4));
    }
}

static void test_ttr_equal_positions_and_n0(void)
{
    ux_real x[5] = {1, 1, 1, 1, 1}, w[5] = {1, 2, 3, 4, 5};
    ux_real y[4] = {0, 0, 1, 1}, v[4] = {1, 1, 1, 1};
    ux_real z[3] = {-1, 0, 4}, u[3] = {1, 2, 1};
    CHECK(ux_ttr(x, w, 5, 6, CELL) == 1);
    CHECK(x[0] == 1 && w[0] == 15);
    CHECK(ux_ttr(y, v, 4, 6, CELL) == 2);
    CHECK(y[0] == 0 && y[1] == 1 && v[0] == 2 && v[1] == 2);
    CHECK(ux_ttr(z, u, 3, 0, NULL) == 1); /* n ≤ 1 needs no cell scratch */
    CHECK(z[0] == (ux_real)0.75 && u[0] == 4);
    CHECK(ux_ttr(z, u, 1, 2, NULL) == 0); /* n > 1 does */
}

/* The cells are decided by comparisons only: a shuffled copy gives the same cells, and positions and
 * masses that differ only by the rounding of sums taken in another order. */
static void test_ttr_order_changes_only_rounding(void)
{
    ux_rng r;
    size_t M = 777, i, a, b;
    unsigned n;
    ux_real x2[64], w2[64];
    ux_rng_seed(&r, 8);
    for (n = 0; n <= 6; ++n) {
        fill_random(&r, M, 0);
        for (i = 0; i < M; ++i) {
            X2[i] = X[M - 1 - i]; /* reversed */
            W2[i] = W[M - 1 - i];
        }
        b = ux_ttr(X2, W2, M, n, CELL);
        for (i = 0; i < b; ++i) {
            x2[i] = X2[i];
            w2[i] = W2[i];
        }
        a = ux_ttr(X, W, M, n, CELL);
        CHECK(a == b);
        for (i = 0; i < a && i < b; ++i) {
            CHECK_NEAR(X[i], x2[i], TOL(1e-12, 1e-4));
            CHECK_NEAR(W[i], w2[i], TOL(1e-12, 1e-4) * W[i]);
        }
    }
}

static void test_normalise_and_reduce(void)
{
    ux_value out;
    ux_real x[4] = {3, 1, 2, 1}, w[4] = {1, 1, 1, 1};
    CHECK(ux_reduce(&out, x, w, 4, 2, 5, &ux_test_ws) == UX_OK);
    /* {1, 1, 2, 3} splits at its mean 1.75 into {1, 1} and {2, 3}. */
    CHECK(out.count == 2 && out.eta == 2 && out.sources == 5);
    CHECK(ux_value_check(&out) == UX_OK);
    CHECK(out.x[0] == 1 && out.w[0] == (ux_real)0.5 && out.x[1] == (ux_real)2.5);
    CHECK(ux_reduce(&out, x, w, 4, 3, 5, &ux_test_ws) == UX_ERR_ARG); /* η must be a power of two */
}

/* TTR of a piecewise-linear density against closed forms: a uniform law splits into 2^n equal cells
 * with atoms at their centres; the density 2t on [0, 1] splits at its mean 2/3 into cells of mass 4/9
 * and 5/9 with means 4/9 and 38/45. Interior nodes of a linear law change nothing. */
static void test_ttr_linear_closed_forms(void)
{
    ux_real e[65], edges[UX_MAX_ETA + 1], x[UX_MAX_ETA], w[UX_MAX_ETA], v[UX_MAX_ETA];
    size_t i, r;
    unsigned n;
    double tol = sizeof(ux_real) == sizeof(double) ? 1e-12 : 2e-5;
    for (i = 0; i < 65; ++i)
        e[i] = 1;
    for (n = 0; n <= UX_MAX_LOG2_ETA; ++n) {
        double cells = (double)(1u << n);
        r = ux_ttr_linear(e, 65, -2, (ux_real)0.0625, n, edges, x, w, v); /* uniform on [−2, 2] */
        CHECK(r == 1u << n);
        for (i = 0; i < r; ++i) {
            CHECK_NEAR(x[i], -2.0 + 4.0 * ((double)i + 0.5) / cells, tol * 4);
            CHECK_NEAR(w[i], 4.0 / cells, tol * 4);
            CHECK_NEAR(v[i], (4.0 / cells) * (4.0 / cells) / 12.0, tol * 16); /* a uniform cell's variance */
        }
    }
    for (i = 0; i < 65; ++i)
        e[i] = (ux_real)(2.0 * (double)i / 64.0);
    r = ux_ttr_linear(e, 65, 0, (ux_real)(1.0 / 64.0), 1, edges, x, w, v); /* density 2t on [0, 1] */
    CHECK(r == 2);
    CHECK_NEAR(v[0], 2.0 / 81.0, tol); /* ∫ t²·2t over [0, 2/3] / (4/9) − (4/9)² */
    CHECK_NEAR(v[1], 37.0 / 4050.0, tol);
    CHECK_NEAR(w[0], 4.0 / 9.0, tol);
    CHECK_NEAR(w[1], 5.0 / 9.0, tol);
    CHECK_NEAR(x[0], 4.0 / 9.0, tol);
    CHECK_NEAR(x[1], 38.0 / 45.0, tol);
    /* Cells without mass are dropped: a law on the right half only gives half the atoms at n = 1 … */
    for (i = 0; i < 65; ++i)
        e[i] = i < 32 ? 0 : 1;
    CHECK(ux_ttr_linear(e, 65, 0, 1, 6, edges, x, w, NULL) <= 64);
    CHECK(x[0] >= 31);
    /* … and bad arguments give 0 atoms. */
    CHECK(ux_ttr_linear(e, 1, 0, 1, 2, edges, x, w, NULL) == 0);
    CHECK(ux_ttr_linear(e, 65, 0, 1, UX_MAX_LOG2_ETA + 1, edges, x, w, NULL) == 0);
    CHECK(ux_ttr_linear(NULL, 65, 0, 1, 2, edges, x, w, NULL) == 0);
}

/* A lump (ux_ttr_linear_lumps) far right of the uniform law on [−2, 2], with a third of the mass: the first split
 * cuts it off whole, so at n = 2 it is one atom with its own point, mass and spread, the interpolant's two
 * atoms stay as at n = 1 without it (the third cell, between the law and the lump, holds nothing); a NULL lump
 * array with a count is refused. */
static void test_ttr_linear_lumps(void)
{
    ux_real e[65], edges[5], x[4], w[4], v[4];
    const ux_lump lump = {40, 2, (ux_real)0.25};
    size_t i;
    double tol = sizeof(ux_real) == sizeof(double) ? 1e-12 : 2e-5;
    for (i = 0; i < 65; ++i)
        e[i] = 1;
    CHECK(ux_ttr_linear_lumps(e, 65, -2, (ux_real)0.0625, &lump, 1, 2, edges, x, w, v) == 3);
    CHECK_NEAR(x[0], -1.0, tol);
    CHECK_NEAR(x[1], 1.0, tol);
    CHECK_NEAR(w[0], 2.0, tol);
    CHECK_NEAR(x[2], 40.0, tol * 40);
    CHECK(w[2] == 2);
    CHECK_NEAR(v[2], 0.25, tol * 1600);
    CHECK(ux_ttr_linear_lumps(e, 65, -2, (ux_real)0.0625, NULL, 1, 2, edges, x, w, v) == 0);
}

void suite_ttr(void)
{
    RUN(test_compact_keeps_order);
    RUN(test_compact_rejects);
    RUN(test_ttr_mean_mass_order);
    RUN(test_ttr_is_identity_on_its_output);
    RUN(test_ttr_tree_validity);
    RUN(test_ttr_w1_is_cell_transport);
    RUN(test_ttr_equal_positions_and_n0);
    RUN(test_ttr_order_changes_only_rounding);
    RUN(test_normalise_and_reduce);
    RUN(test_ttr_linear_closed_forms);
    RUN(test_ttr_linear_lumps);
}
