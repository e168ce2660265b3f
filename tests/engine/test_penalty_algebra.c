/* penalty's leading matrix factorized dense (LAPACK LU) or sparse (KLU on the pattern of M,
 * [C, K] and Phi_z^T Phi_z, symbolic analysis reused): the same trajectories to 1e-10, the
 * automatic choice, numeric-only refactorizations in the steps, and no allocation in a step.
 * Newton reuses a step's factors (modified Newton): its steps within the Newton tolerance of
 * the same steps solved to 1e-13. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "alloc_counter.h"
#include "mbs_formulation.h"
#include "tap.h"
#include "test_models.h"

static MbsFormulation *penalty(const MbsModel *m, const char *algebra, MbsError *err)
{
    MbsSettings s;
    mbs_settings_defaults(&s);
    s.step = 1e-2;
    if (algebra && mbs_settings_set_for(&s, "penalty", "algebra", algebra, err))
        return NULL;
    return mbs_formulation_new("penalty", m, &s, err);
}

/* 100 steps of 10 ms with each algebra; the final coordinates, and no allocation in the steps. */
static void check_model(const char *name, MbsModel *m, int want_automatic_sparse)
{
    const char *algebras[3] = {"dense", "sparse", NULL};
    double *z[3] = {NULL, NULL, NULL};
    int n = mbs_model_ncoords(m), status = 0;
    double sparse_stats[3] = {0, 0, 0};
    for (int k = 0; k < 3; ++k) {
        MbsError err = {0};
        MbsFormulation *f = penalty(m, algebras[k], &err);
        z[k] = calloc((size_t)n, sizeof(double));
        if (!f) {
            tap_ok(0, "%s, %s: %s", name, algebras[k] ? algebras[k] : "automatic", err.message);
            status = 1;
            continue;
        }
        long before = alloc_count;
        alloc_counting = 1;
        for (int s = 0; s < 100 && !status; ++s)
            status = mbs_formulation_step(f, &err);
        alloc_counting = 0;
        tap_ok(!status && alloc_count == before, "%s, %s algebra: 100 steps, %ld allocations %s",
               name, algebras[k] ? algebras[k] : "automatic", alloc_count - before,
               status ? err.message : "");
        f->klass->coordinates(f, z[k], NULL);
        if (k == 1) {
            sparse_stats[0] = mbs_formulation_statistic(f, "leading_nonzeros", NAN);
            sparse_stats[1] = mbs_formulation_statistic(f, "sparse_refactorizations", NAN);
            sparse_stats[2] = mbs_formulation_statistic(f, "sparse_full_factorizations", NAN);
        }
        if (k == 2)
            tap_ok(mbs_formulation_statistic(f, "leading_sparse", NAN) == want_automatic_sparse,
                   "%s (n = %d): automatic algebra is %s", name, n,
                   want_automatic_sparse ? "sparse" : "dense");
        mbs_formulation_free(f);
    }
    double diff = 0.0, size = 0.0;
    for (int i = 0; i < n && !status; ++i) {
        diff = fmax(diff, fabs(z[0][i] - z[1][i]));
        size = fmax(size, fabs(z[0][i]));
    }
    tap_ok(!status && diff <= 1e-10 * (1.0 + size),
           "%s, h = 10 ms, 1 s: sparse and dense leading matrices end within %.1e (bound 1e-10 "
           "x (1 + |z|))", name, diff);
    /* the four-bar's T is full; the lattice's is not */
    double entries = want_automatic_sparse ? (double)n * n - 1 : (double)n * n;
    /* at least one refactorization a step (Newton reuses the step's first factors while they
     * contract) */
    tap_ok(sparse_stats[0] <= entries && sparse_stats[1] >= 100 && sparse_stats[2] == 1,
           "%s: sparse T has %.0f of %d x %d entries; %.0f numeric refactorizations on the "
           "symbolic analysis and pivot order of init, %.0f full factorization (init's)",
           name, sparse_stats[0], n, n, sparse_stats[1], sparse_stats[2]);
    for (int k = 0; k < 3; ++k)
        free(z[k]);
}

/* From 20 states along 2 s of the lattice (h = 10 ms), one step with the default tolerance
 * (1e-10, modified Newton on reused factors) and one with 1e-13 from the same state: positions
 * within the default's bound 1e-10 (1 + |z|), with fewer factorizations than iterations. */
static void check_reuse(const char *name, MbsModel *m)
{
    MbsError err = {0};
    MbsSettings tight;
    mbs_settings_defaults(&tight);
    tight.step = 1e-2;
    mbs_settings_set_for(&tight, "penalty", "newton-tolerance", "1e-13", &err);
    MbsFormulation *f = penalty(m, NULL, &err), *g = mbs_formulation_new("penalty", m, &tight, &err);
    if (!f || !g) {
        tap_ok(0, "%s: created (%s)", name, err.message);
        return;
    }
    int n = mbs_model_ncoords(m), size = f->klass->state_size(f), ok = 1;
    double *state = calloc((size_t)size, sizeof(double)), *za = calloc((size_t)n, sizeof(double));
    double *zb = calloc((size_t)n, sizeof(double)), worst = 0.0, bound = INFINITY;
    long iterations = 0;
    for (int k = 0; k < 200 && ok; ++k) {
        if (k % 10 == 9) {
            f->klass->state_get(f, state);
            ok &= g->klass->state_set(g, state, &err) == 0;
            g->time = f->time;
            ok &= mbs_formulation_step(g, &err) == 0;
            g->klass->coordinates(g, zb, NULL);
        }
        ok &= mbs_formulation_step(f, &err) == 0;
        iterations += f->monitors.newton_iterations;
        if (k % 10 == 9) {
            f->klass->coordinates(f, za, NULL);
            double diff = 0.0, size_z = 0.0;
            for (int i = 0; i < n; ++i) {
                diff = fmax(diff, fabs(za[i] - zb[i]));
                size_z = fmax(size_z, fabs(za[i]));
            }
            worst = fmax(worst, diff);
            bound = fmin(bound, 1e-10 * (1.0 + size_z));
        }
    }
    double factorizations = mbs_formulation_statistic(f, "sparse_refactorizations", NAN);
    tap_ok(ok && worst <= bound && factorizations < 0.7 * (double)iterations,
           "%s: 20 steps within %.2g of the same steps to 1e-13 (bound %.2g); %.0f "
           "factorizations for %ld Newton iterations", name, worst, bound, factorizations,
           iterations);
    free(state);
    free(za);
    free(zb);
    mbs_formulation_free(f);
    mbs_formulation_free(g);
}

int main(void)
{
    MbsModel *m = build_four_bar();
    check_model("four-bar", m, 0);
    mbs_model_free(m);
    m = build_lattice(1, 15);
    check_model("1x15 lattice", m, 1);
    mbs_model_free(m);
    m = build_lattice(7, 15);
    check_reuse("7x15 lattice", m);
    mbs_model_free(m);
    return tap_done();
}
