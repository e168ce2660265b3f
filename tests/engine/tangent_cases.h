/* What the tangent-method tests share (test_tangent_sparse.c, tests/app/test-tangent-ad.c):
 * penalty with a Jacobian method, random states, and a run's end for trajectory comparisons. */
#ifndef TANGENT_CASES_H
#define TANGENT_CASES_H

#include <math.h>
#include <stdlib.h>

#include "mbs_formulation.h"

static inline MbsFormulation *penalty_with_jacobian(const MbsModel *m, const char *method,
                                                    double step, MbsError *err)
{
    MbsSettings s;
    mbs_settings_defaults(&s);
    s.step = step;
    if (mbs_settings_set_for(&s, "penalty", "jacobian", method, err))
        return NULL;
    return mbs_formulation_new("penalty", m, &s, err);
}

/* xorshift64: the same sequence on every machine. */
static unsigned long long tangent_cases_rng = 88172645463325252ull;
static inline double tangent_cases_uniform(double lo, double hi)
{
    tangent_cases_rng ^= tangent_cases_rng << 13;
    tangent_cases_rng ^= tangent_cases_rng >> 7;
    tangent_cases_rng ^= tangent_cases_rng << 17;
    return lo + (hi - lo) * (double)(tangent_cases_rng >> 11) / 9007199254740992.0;
}

/* A random state of penalty near f's assembled one: z moved by up to 0.3, zd in [-2, 2]. */
static inline void tangent_cases_random_state(MbsFormulation *f, double *state)
{
    int n = f->klass->ncoords(f);
    f->klass->state_get(f, state);
    for (int i = 0; i < n; ++i) {
        state[i] += tangent_cases_uniform(-0.3, 0.3);
        state[n + i] = tangent_cases_uniform(-2.0, 2.0);
    }
}

/* Coordinates after `steps` steps of penalty with a method: a new array of *n (NULL on failure,
 * err set), its Newton iterations and Newton tolerance. */
static inline double *tangent_cases_run(const MbsModel *m, const char *method, double h,
                                        int steps, int *n, long *newton, double *tolerance,
                                        MbsError *err)
{
    MbsFormulation *f = penalty_with_jacobian(m, method, h, err);
    if (!f)
        return NULL;
    *tolerance = mbs_settings_number(&f->settings, "newton-tolerance");
    *n = f->klass->ncoords(f);
    *newton = 0;
    int status = 0;
    for (int s = 0; s < steps && !status; ++s) {
        status = mbs_formulation_step(f, err);
        *newton += f->monitors.newton_iterations;
    }
    double *z = status ? NULL : calloc((size_t)*n, sizeof(double));
    if (z)
        f->klass->coordinates(f, z, NULL);
    mbs_formulation_free(f);
    return z;
}

/* Largest difference of two runs' coordinates, and the bound a Newton iteration allows: each
 * step's result lies within tolerance (1 + |z|) of the exact solution of its equations. */
static inline double tangent_cases_gap(int n, const double *a, const double *b, int steps,
                                       double tolerance, double *bound)
{
    double diff = 0.0, size = 0.0;
    for (int i = 0; i < n; ++i) {
        diff = fmax(diff, fabs(a[i] - b[i]));
        size = fmax(size, fabs(a[i]));
    }
    *bound = steps * tolerance * (1.0 + size);
    return diff;
}

#endif
