/* eslabon-cli bench matrix-r: dense (LAPACK LU) vs sparse (KLU) algebra for the dependent
 * block, on the 1x15, 4x15 and 7x15 lattices (like paper 003 Table 1): wall time per phase for a
 * fixed number of evaluations of the equations of motion (RK4, 4 per step), median of runs. */
#include <glib.h>
#include <stdio.h>
#include <stdlib.h>

#include "eslabon-config.h"
#include "esl-cli-bench.h"
#include "esl-model-file.h"
#include "mbs_clock.h"
#include "mbs_formulation.h"
#include "mbs_run.h"
#include "mbs_topology.h"

enum { PH_POS, PH_VEL, PH_RZ, PH_DYN, PH_RED, PH_SOLVE, PH_TOTAL, NPH };
static const char *phase_names[NPH] = {
    "position problem (Newton: Phi, Phi_z, LU)", "velocity problem and S c",
    "R^Phi (d solves with the block)", "open-chain M and Q", "R^T M R, R^T (Q - M S c)",
    "reduced d x d solve", "total"};

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static int measure(const MbsModel *m, int sparse, int evaluations, double out[NPH], long *iters)
{
    MbsSettings s;
    mbs_settings_defaults(&s);
    s.step = 1e-2;
    mbs_settings_set_number_for(&s, "matrix-r", "algebra", sparse, NULL);
    MbsError err;
    MbsFormulation *f = mbs_formulation_new("matrix-r", m, &s, &err);
    if (!f) {
        fprintf(stderr, "%s\n", err.message);
        return -1;
    }
    mbs_formulation_reset_statistics(f);
    int steps = evaluations / 4;
    MbsRun *run = mbs_run_new(f, NULL, NULL, &err);
    double t0 = mbs_clock_now();
    if (!run || mbs_run_advance(run, steps * s.step) != MBS_RUN_REACHED) {
        fprintf(stderr, "%s\n", run ? mbs_run_error(run)->message : err.message);
        mbs_run_free(run);
        mbs_formulation_free(f);
        return -1;
    }
    out[PH_TOTAL] = mbs_clock_now() - t0;
    mbs_run_free(run);
    /* the phase times matrix-r publishes through the statistics hook */
    static const char *const statistic[PH_TOTAL] = {"time_position", "time_velocity", "time_rz",
                                                    "time_dynamics", "time_reduced",
                                                    "time_solve"};
    for (int p = 0; p < PH_TOTAL; ++p)
        out[p] = mbs_formulation_statistic(f, statistic[p], 0.0);
    *iters = (long)mbs_formulation_statistic(f, "position_iterations", 0.0);
    mbs_formulation_free(f);
    return 0;
}

int esl_bench_matrix_r(const char *models_dir, int runs, int evaluations)
{
    if (evaluations < 4 || runs < 1) {
        fprintf(stderr, "eslabon-cli bench matrix-r: needs at least 4 evaluations and 1 run\n");
        return 2;
    }
    int ny[3] = {1, 4, 7};
    double med[3][2][NPH];
    long iters[3][2];
    MbsModel *models[3];
    for (int c = 0; c < 3; ++c) {
        g_autofree char *path = g_strdup_printf("%s/multi-four-bar-%dx15.json", models_dir, ny[c]);
        g_autoptr(GError) error = NULL;
        models[c] = esl_model_load_file(path, NULL, 0, &error);
        if (!models[c]) {
            fprintf(stderr, "eslabon-cli bench: %s\n", error->message);
            return 1;
        }
        /* dense and sparse runs interleaved, so that a changing machine load affects both */
        double *samples = calloc((size_t)2 * runs * NPH, sizeof *samples);
        for (int r = 0; r < runs; ++r)
            for (int sp = 0; sp < 2; ++sp) {
                double t[NPH];
                if (measure(models[c], sp, evaluations, t, &iters[c][sp]))
                    return 1;
                for (int p = 0; p < NPH; ++p)
                    samples[(sp * NPH + p) * runs + r] = t[p];
            }
        for (int sp = 0; sp < 2; ++sp)
            for (int p = 0; p < NPH; ++p) {
                double *v = samples + (size_t)(sp * NPH + p) * runs;
                qsort(v, (size_t)runs, sizeof *v, cmp);
                med[c][sp][p] = v[runs / 2];
            }
        free(samples);
    }
    printf("# eslabon-cli bench matrix-r: RK4 h = 10 ms, %d evaluations (%d steps) from t = 0, "
           "median of %d runs, ms (dense and sparse runs interleaved); Eslabón %s\n\n",
           evaluations, evaluations / 4, runs, ESLABON_VERSION);
    printf("| phase |");
    for (int c = 0; c < 3; ++c)
        printf(" %dx15 dense | %dx15 sparse |", ny[c], ny[c]);
    printf("\n|---|");
    for (int c = 0; c < 3; ++c)
        printf("---:|---:|");
    printf("\n");
    for (int p = 0; p < NPH; ++p) {
        printf("| %s |", phase_names[p]);
        for (int c = 0; c < 3; ++c)
            printf(" %.1f | %.1f |", 1e3 * med[c][0][p], 1e3 * med[c][1][p]);
        printf("\n");
    }
    printf("| dense / sparse, total |");
    for (int c = 0; c < 3; ++c)
        printf(" %.2f | |", med[c][0][PH_TOTAL] / med[c][1][PH_TOTAL]);
    printf("\n\n");
    for (int c = 0; c < 3; ++c) {
        const MbsTopology *t = models[c]->topo;
        printf("%dx15: n = %d coordinates, %d constraint rows (%d nonzeros in Phi_z), "
               "position Newton iterations %ld (dense) / %ld (sparse)\n",
               ny[c], t->nnodes, t->nrows, t->row_ptr[t->nrows], iters[c][0], iters[c][1]);
        mbs_model_free(models[c]);
    }
    return 0;
}
