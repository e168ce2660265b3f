/* eslabon-cli bench ssode: the cost of one right-hand side of ssode's state-space ODE (SDIRK
 * 4/15, rtol = atol = 1e-6) on the lattices 1x15, 4x15, 7x15 and a generated 10x15, the growth
 * exponent fitted to it against the number of bodies, and, on each lattice, the cost of one
 * evaluation of matrix-r's equations of motion (RK4, h = 10 ms, sparse algebra) in the same
 * process, with their ratio (issue 27).
 *
 * Per right-hand side: the CPU time of the calling thread inside the formulation's steps
 * (initialisation excluded) over the right-hand sides the steps evaluated, so the integrator's
 * own algebra (its Newton matrices, error estimates, partition checks, dense output) is
 * included. Each ssode run takes output steps of 1 ms until it has evaluated at least
 * --evaluations right-hand sides; each matrix-r run takes --evaluations / 4 RK4 steps. For
 * instruction counts run it under valgrind --tool=callgrind and read the inclusive cost of
 * ssode_step and matrix-r's step (docs/benchmarks.md). */
#include <glib.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "eslabon-config.h"
#include "esl-cli-bench.h"
#include "esl-generate.h"
#include "esl-model-file.h"
#include "mbs_formulation.h"

enum { NCASE = 4 };

/* CPU seconds per right-hand side of one run of formulation (ssode: output steps of 1 ms
 * until `evaluations` right-hand sides; matrix-r: evaluations / 4 RK4 steps of 10 ms), its
 * right-hand sides in *count; negative on failure. */
static double measure(const MbsModel *m, int ssode, int evaluations, const char *algebra,
                      double *count)
{
    MbsSettings s;
    MbsError err = {0};
    mbs_settings_defaults(&s);
    s.step = ssode ? 1e-3 : 1e-2;
    s.duration = 1e3;
    if (ssode && algebra && mbs_settings_set_for(&s, "ssode", "algebra", algebra, &err) != 0) {
        fprintf(stderr, "eslabon-cli bench ssode: %s\n", err.message);
        return -1.0;
    }
    if (!ssode) {
        mbs_settings_set_for(&s, "matrix-r", "integrator", "rk4", NULL);
        mbs_settings_set_for(&s, "matrix-r", "algebra", "sparse", NULL);
    }
    const char *name = ssode ? "ssode" : "matrix-r";
    MbsFormulation *f = mbs_formulation_new(name, m, &s, &err);
    if (!f) {
        fprintf(stderr, "eslabon-cli bench ssode: %s: %s\n", name, err.message);
        return -1.0;
    }
    mbs_formulation_reset_statistics(f);
    double c0 = esl_bench_thread_cpu(), evals = 0.0;
    int ok = 1;
    for (int k = 0; ok && evals < evaluations; ++k) {
        ok = mbs_formulation_step(f, &err) == 0;
        evals = ssode ? mbs_formulation_statistic(f, "rhs_evaluations", 0.0) : 4.0 * (k + 1);
    }
    double cpu = esl_bench_thread_cpu() - c0;
    if (!ok)
        fprintf(stderr, "eslabon-cli bench ssode: %s: %s\n", name, err.message);
    mbs_formulation_free(f);
    *count = evals;
    return ok && evals > 0 ? cpu / evals : -1.0;
}

int esl_bench_ssode(const char *models_dir, int runs, int evaluations, const char *algebra,
                    const char *lattices)
{
    if (evaluations < 4 || runs < 1) {
        fprintf(stderr, "eslabon-cli bench ssode: needs at least 4 evaluations and 1 run\n");
        return 2;
    }
    int ny[NCASE] = {1, 4, 7, 10}, ncase = NCASE;
    if (lattices) { /* e.g. "1,4": the lattices 1x15 and 4x15 only */
        g_auto(GStrv) parts = g_strsplit(lattices, ",", NCASE);
        ncase = 0;
        for (int k = 0; parts[k] && ncase < NCASE; ++k) {
            int v = atoi(parts[k]);
            if (v < 1 || v > 40) {
                fprintf(stderr, "eslabon-cli bench ssode: --models takes lattice rows 1..40, "
                                "e.g. 1,4,7,10\n");
                return 2;
            }
            ny[ncase++] = v;
        }
    }
    double per_rhs[NCASE][2], count[NCASE][2];
    int bodies[NCASE], coords[NCASE];
    for (int c = 0; c < ncase; ++c) {
        g_autoptr(GError) error = NULL;
        MbsModel *m = NULL;
        if (ny[c] == 1 || ny[c] == 4 || ny[c] == 7) {
            g_autofree char *path =
                g_strdup_printf("%s/multi-four-bar-%dx15.json", models_dir, ny[c]);
            m = esl_model_load_file(path, NULL, 0, &error);
        } else {
            g_autofree char *json = esl_generate_multi_four_bar(ny[c], 15);
            m = json ? esl_model_load_string(json, "multi-four-bar (generated)", NULL, 0, &error)
                     : NULL;
        }
        if (!m) {
            fprintf(stderr, "eslabon-cli bench ssode: %s\n",
                    error ? error->message : "could not generate the 10x15 lattice");
            return 1;
        }
        bodies[c] = m->nbodies - 1;
        coords[c] = 12 * bodies[c];
        /* ssode and matrix-r runs interleaved, so that a changing load affects both */
        double *samples = calloc(2 * (size_t)runs, sizeof *samples);
        for (int r = 0; r < runs; ++r)
            for (int k = 0; k < 2; ++k) {
                double v = measure(m, k == 0, evaluations, algebra, &count[c][k]);
                if (v < 0.0) {
                    free(samples);
                    mbs_model_free(m);
                    return 1;
                }
                samples[k * runs + r] = v;
            }
        for (int k = 0; k < 2; ++k)
            per_rhs[c][k] = esl_bench_median(samples + k * runs, runs);
        free(samples);
        mbs_model_free(m);
    }
    /* least-squares slope of log(cost) against log(bodies) */
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    for (int c = 0; c < ncase; ++c) {
        double x = log(bodies[c]), y = log(per_rhs[c][0]);
        sx += x;
        sy += y;
        sxx += x * x;
        sxy += x * y;
    }
    double slope = ncase > 1 ? (ncase * sxy - sx * sy) / (ncase * sxx - sx * sx) : NAN;
    printf("# eslabon-cli bench ssode (algebra %s): SDIRK 4/15, rtol = atol = 1e-6, output steps of 1 ms until "
           ">= %d right-hand sides; matrix-r RK4 (sparse) h = 10 ms, %d evaluations; thread CPU "
           "time per right-hand side, median of %d runs; Eslabón %s\n\n",
           algebra ? algebra : "automatic", evaluations, evaluations, runs, ESLABON_VERSION);
    printf("| lattice | bodies | natural coords | ssode rhs | ssode ms / rhs | matrix-r ms / eval "
           "| ratio |\n|---|---:|---:|---:|---:|---:|---:|\n");
    for (int c = 0; c < ncase; ++c)
        printf("| %dx15 | %d | %d | %.0f | %.3f | %.3f | %.1f |\n", ny[c], bodies[c], coords[c],
               count[c][0], 1e3 * per_rhs[c][0], 1e3 * per_rhs[c][1],
               per_rhs[c][0] / per_rhs[c][1]);
    printf("\nssode cost per right-hand side grows like bodies^%.2f (least squares over the "
           "lattices)\n",
           slope);
    return 0;
}
