/* eslabon-cli bench sensitivity: cost of matrix-r sensitivities on the five-bar (paper 001
 * sec 4.1): the dynamics alone, the direct method with 1, 5 and 20 parameters, the adjoint
 * method with 1, 5 and 20 parameters, both with 4 and 20 parameters of the dynamics alone, and
 * the adjoint's stored trajectory with and without checkpointing. Trapezoidal rule, h = 1 ms,
 * the model's objectives (psi1..3); 20 parameters are the model's five (or its four dynamic
 * ones) repeated (each differentiated on its own, the cost of 20 distinct ones). All cases
 * interleaved in one process, median of --runs. */
#include <glib.h>
#include <stdio.h>
#include <stdlib.h>

#include "eslabon-config.h"
#include "esl-cli-bench.h"
#include "esl-model-file.h"
#include "mbs_clock.h"
#include "mbs_run.h"
#include "sens_matrix_r.h"

/* The cases after the dynamics alone: a method, a number of parameters (the model's five
 * repeated, or its four dynamic ones, Ls1, Ls2, m_A1, xG_A1, repeated: their derivatives are of
 * the part of the model they change, while L_A1's evaluate the whole rebuilt models' terms),
 * and whether the adjoint is checkpointed. */
typedef struct {
    MbsSensMethod method;
    int count, dynamic_only, checkpointed;
    const char *label;
} BenchCase;

static const BenchCase cases[] = {
    {MBS_SENS_DIRECT, 1, 0, 0, "direct"},
    {MBS_SENS_DIRECT, 5, 0, 0, "direct"},
    {MBS_SENS_DIRECT, 20, 0, 0, "direct"},
    {MBS_SENS_DIRECT, 4, 1, 0, "direct, dynamic parameters"},
    {MBS_SENS_DIRECT, 20, 1, 0, "direct, dynamic parameters"},
    {MBS_SENS_ADJOINT, 1, 0, 0, "adjoint, every state stored"},
    {MBS_SENS_ADJOINT, 5, 0, 0, "adjoint, every state stored"},
    {MBS_SENS_ADJOINT, 20, 0, 0, "adjoint, every state stored"},
    {MBS_SENS_ADJOINT, 4, 1, 0, "adjoint, dynamic parameters"},
    {MBS_SENS_ADJOINT, 20, 1, 0, "adjoint, dynamic parameters"},
    {MBS_SENS_ADJOINT, 1, 0, 1, "adjoint, checkpointed"},
    {MBS_SENS_ADJOINT, 5, 0, 1, "adjoint, checkpointed"},
    {MBS_SENS_ADJOINT, 20, 0, 1, "adjoint, checkpointed"},
};
enum { NCASES = 1 + (int)(sizeof cases / sizeof cases[0]) }; /* + the dynamics alone */

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double dynamics_alone(const MbsModel *m, const MbsSettings *s, double duration)
{
    MbsError err = {0};
    MbsFormulation *f = mbs_formulation_new("matrix-r", m, s, &err);
    MbsRun *run = f ? mbs_run_new(f, NULL, NULL, &err) : NULL;
    double t0 = mbs_clock_now();
    int ok = run && mbs_run_advance(run, duration) == MBS_RUN_REACHED;
    double t = mbs_clock_now() - t0;
    if (!ok)
        fprintf(stderr, "eslabon-cli bench: %s\n", run ? mbs_run_error(run)->message : err.message);
    mbs_run_free(run);
    mbs_formulation_free(f);
    return ok ? t : -1.0;
}

static int jacobian = -1; /* the sensitivity's state derivatives; -1: the table's default */

static double sensitivity(const MbsModel *m, const MbsSettings *s, double duration,
                          const int *params, int np, MbsSensMethod method, double memory,
                          MbsSensResult *keep)
{
    MbsMatrixRSensOptions o;
    mbs_setting_table_defaults(&mbs_matrix_r_sens_settings, &o);
    if (jacobian >= 0)
        o.jacobian = jacobian;
    if (memory > 0)
        o.memory = memory;
    MbsError err = {0};
    MbsSensResult r;
    double t0 = mbs_clock_now();
    if (mbs_matrix_r_model_sensitivity(m, s, params, np, method, &o, duration, NULL, NULL, &r,
                                       &err)) {
        fprintf(stderr, "eslabon-cli bench: %s\n", err.message);
        return -1.0;
    }
    double t = mbs_clock_now() - t0;
    mbs_sens_result_free(&r);
    *keep = r;
    return t;
}

int esl_bench_sensitivity(const char *models_dir, int runs, double duration, const char *jac)
{
    jacobian = jac ? mbs_jacobian_method_from_name(jac) : -1;
    g_autofree char *path = g_build_filename(models_dir, "five-bar.json", NULL);
    g_autoptr(GError) error = NULL;
    MbsModel *m = esl_model_load_file(path, NULL, 0, &error);
    if (!m) {
        fprintf(stderr, "eslabon-cli bench: %s\n", error->message);
        return 1;
    }
    static const char *const names[5] = {"Ls1", "Ls2", "m_A1", "xG_A1", "L_A1"};
    int params[20], dynamic[20]; /* the five repeated; the four dynamic ones repeated */
    for (int j = 0; j < 20; ++j)
        if ((params[j] = mbs_model_find_parameter(m, names[j % 5])) < 0 ||
            (dynamic[j] = mbs_model_find_parameter(m, names[j % 4])) < 0) {
            fprintf(stderr, "eslabon-cli bench: %s has no parameter %s or %s\n", path,
                    names[j % 5], names[j % 4]);
            mbs_model_free(m);
            return 1;
        }
    MbsSettings s;
    mbs_settings_defaults(&s);
    s.step = 1e-3;
    MbsError err = {0};
    if (mbs_settings_set_for(&s, "matrix-r", "integrator", "trapezoidal", &err)) {
        fprintf(stderr, "eslabon-cli bench: %s\n", err.message);
        mbs_model_free(m);
        return 1;
    }
    double *samples = calloc((size_t)NCASES * runs, sizeof *samples);
    MbsSensResult info[NCASES] = {{0}};
    double small = 0.0;
    int failed = 0;
    for (int r = 0; r < runs && !failed; ++r)
        for (int c = 0; c < NCASES && !failed; ++c) {
            double t;
            if (c == 0) {
                t = dynamics_alone(m, &s, duration);
            } else {
                const BenchCase *k = &cases[c - 1];
                t = sensitivity(m, &s, duration, k->dynamic_only ? dynamic : params, k->count,
                                k->method, k->checkpointed ? small : 0, &info[c]);
                /* the checkpointed runs (after the stored ones) get a tenth of the full
                 * trajectory */
                if (k->method == MBS_SENS_ADJOINT && !k->checkpointed)
                    small = 0.1 * (double)info[c].full_bytes / (1024.0 * 1024.0);
            }
            failed = t < 0;
            samples[(size_t)c * runs + r] = t;
        }
    if (failed) {
        free(samples);
        mbs_model_free(m);
        return 1;
    }
    double med[NCASES];
    for (int c = 0; c < NCASES; ++c) {
        qsort(samples + (size_t)c * runs, (size_t)runs, sizeof *samples, cmp);
        med[c] = samples[(size_t)c * runs + runs / 2];
    }
    MbsMatrixRSensOptions o;
    mbs_setting_table_defaults(&mbs_matrix_r_sens_settings, &o);
    printf("# eslabon-cli bench sensitivity: five-bar (paper 001 sec 4.1), matrix-r trapezoidal "
           "h = 1 ms, %g s, objectives psi1..3, state derivatives '%s', the run's Newton matrix "
           "'%s' (direct), the parameters' terms %s, "
           "median of %d runs, cases interleaved; Eslabón %s\n\n",
           duration, jac ? jac : mbs_jacobian_method_name((MbsJacobianMethod)o.jacobian),
           o.newton_matrix == MBS_SENS_NEWTON_OWN ? "own" : "sensitivities",
           o.geometry == MBS_SENS_GEOMETRY_ANALYTICAL
               ? "along the drawing's derivative (geometry analytical: L_A1 with its "
                 "direction, m_A1 and xG_A1 reweighting A1, Ls1 and Ls2 their laws at a still "
                 "geometry)"
               : "by differences of rebuilt models (geometry differences)",
           runs,
           ESLABON_VERSION);
    printf("| case | parameters | wall time, s | / dynamics alone | / its own forward steps | "
           "full evaluations of F | stored trajectory |\n|---|---:|---:|---:|---:|---:|---|\n");
    printf("| dynamics alone | - | %.3f | 1.00 | - | - | - |\n", med[0]);
    for (int c = 1; c < NCASES; ++c) {
        const MbsSensResult *r = &info[c];
        const BenchCase *k = &cases[c - 1];
        printf("| %s | %d | %.3f | %.2f | %.2f | %ld | ", k->label, k->count, med[c],
               med[c] / med[0], (r->time_dynamics + r->time_sensitivity) / r->time_dynamics,
               r->derivative_evaluations);
        if (k->method == MBS_SENS_DIRECT)
            printf("- |\n");
        else
            printf("%.1f kB of %.1f kB (K = %ld; recomputation %.3f s) |\n",
                   (double)r->stored_bytes / 1024.0, (double)r->full_bytes / 1024.0,
                   r->checkpoint_interval, r->time_recompute);
    }
    free(samples);
    mbs_model_free(m);
    return 0;
}
