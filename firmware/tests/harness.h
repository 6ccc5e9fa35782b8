/*
 * A minimal unit-test harness for the host: each test is a void function; a failed CHECK reports the
 * file, line and expression and ends that test. main.c runs the suites and prints the final line
 * "ctest: N passed, M failed"; the exit status is non-zero when anything failed.
 */
#ifndef UX_TEST_HARNESS_H
#define UX_TEST_HARNESS_H

#include <math.h>
#include <stdio.h>

#include "ux/ux.h"

typedef void (*ux_test_fn)(void);

extern int ux_test_failed_now;
void ux_test_run(const char *name, ux_test_fn fn);
void ux_test_fail(const char *file, int line, const char *what);

#define RUN(fn) ux_test_run(#fn, fn)

#define CHECK(cond)                                                                                                    \
    do {                                                                                                               \
        if (!(cond)) {                                                                                                 \
            ux_test_fail(__FILE__, __LINE__, #cond);                                                                   \
            return;                                                                                                    \
        }                                                                                                              \
    } while (0)

/* |a − b| ≤ tol·max(1, |b|): relative for large numbers, absolute near zero. */
#define CHECK_NEAR(a, b, tol)                                                                                          \
    do {                                                                                                               \
        double ux_a_ = (double)(a), ux_b_ = (double)(b);                                                               \
        double ux_s_ = fabs(ux_b_) > 1.0 ? fabs(ux_b_) : 1.0;                                                          \
        if (!(fabs(ux_a_ - ux_b_) <= (tol)*ux_s_)) {                                                                   \
            char ux_m_[256];                                                                                           \
            snprintf(ux_m_, sizeof ux_m_, "%s = %.17g, expected %s = %.17g (tol %g)", #a, ux_a_, #b, ux_b_,            \
                     (double)(tol));                                                                                   \
            ux_test_fail(__FILE__, __LINE__, ux_m_);                                                                   \
            return;                                                                                                    \
        }                                                                                                              \
    } while (0)

#define TEST_PI 3.14159265358979323846

/* Tolerances that hold in the double build and, looser, in the float build. */
#ifdef UX_REAL_FLOAT
#define TOL(d, f) (f)
#else
#define TOL(d, f) (d)
#endif

/* A static, aligned workspace shared by the tests (large enough for η = 64). */
extern ux_workspace ux_test_ws;

/* Suites (one per test file). */
void suite_ttr(void);
void suite_laws(void);
void suite_lift(void);
void suite_stats(void);
void suite_pdf(void);
void suite_bayes(void);
void suite_filter(void);
void suite_joint(void);
void suite_joint_filter(void);
void suite_uxm(void);

#endif /* UX_TEST_HARNESS_H */
