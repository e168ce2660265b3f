/* Minimal TAP producer for the C tests (meson test runs them with protocol: 'tap'). */
#ifndef ESL_TAP_H
#define ESL_TAP_H

#include <math.h>
#include <stdarg.h>
#include <stdio.h>

static int tap_count, tap_failed;

static inline int tap_ok(int cond, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    printf("%sok %d - ", cond ? "" : "not ", ++tap_count);
    vprintf(fmt, ap);
    printf("\n");
    va_end(ap);
    fflush(stdout);
    if (!cond)
        tap_failed++;
    return cond;
}

/* |got - want| <= tol, reported with both numbers. */
#define tap_close(got, want, tol, ...)                                                          \
    do {                                                                                        \
        double g_ = (got), w_ = (want), t_ = (tol);                                             \
        if (!tap_ok(fabs(g_ - w_) <= t_, __VA_ARGS__))                                          \
            printf("#   got %.12g, want %.12g (tolerance %.3g, diff %.3g)\n", g_, w_, t_,        \
                   fabs(g_ - w_));                                                              \
    } while (0)

/* got <= bound */
#define tap_below(got, bound, ...)                                                              \
    do {                                                                                        \
        double g_ = (got), b_ = (bound);                                                        \
        if (!tap_ok(g_ <= b_, __VA_ARGS__))                                                     \
            printf("#   got %.6g, bound %.6g\n", g_, b_);                                        \
    } while (0)

/* A test not run, counted as passing: "ok N # SKIP reason" (TAP's directive). */
static inline void tap_skip(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    printf("ok %d # SKIP ", ++tap_count);
    vprintf(fmt, ap);
    printf("\n");
    va_end(ap);
    fflush(stdout);
}

static inline void tap_diag(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    printf("# ");
    vprintf(fmt, ap);
    printf("\n");
    va_end(ap);
}

static inline int tap_done(void)
{
    printf("1..%d\n", tap_count);
    return tap_failed ? 1 : 0;
}

#endif
