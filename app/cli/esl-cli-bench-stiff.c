/* eslabon-cli bench stiff: implicit SDIRK 4/15 against the explicit Adams code, both on
 * ssode's state-space ODE of a stiff vehicle (--models: models/stiff-vehicle.json by default,
 * or hmmwv-stiff, paper 002 §5.2; like paper 002 Tables V and VI), the SDIRK's J1, J2 by the
 * --jacobian method (ssode's default when not given): for
 * each tolerance, one run per integrator advanced second by second, with the internal steps,
 * right-hand sides and CPU time reached at each whole second (median CPU time of the runs).
 * Adams is capped at --adams-duration (it takes of the order of 1e4 steps per simulated
 * second): its rows past the cap say so. */
#include <glib.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "eslabon-config.h"
#include "esl-cli-bench.h"
#include "esl-model-file.h"
#include "mbs_formulation.h"
#include "mbs_run.h"

#define MAX_SECONDS 8
#define NTOL 4
static const double tolerances[NTOL] = {1e-2, 1e-3, 1e-4, 1e-5};

typedef struct {
    double steps, rhs, cpu; /* at the end of each simulated second */
} Mark;

static double cpu_seconds(void)
{
    return (double)clock() / CLOCKS_PER_SEC;
}

/* One run of integrator at tol to `seconds` (a fraction is allowed: then one mark at it). */
static const char *jacobian_method; /* NULL: ssode's default */
static double max_internal_step;    /* 0: ssode's default, no cap */

static int measure(const MbsModel *m, const char *integrator, double tol, double seconds,
                   Mark *marks, int nmarks)
{
    MbsSettings s;
    mbs_settings_defaults(&s);
    s.step = 0.01;
    s.duration = seconds;
    mbs_settings_set_for(&s, "ssode", "integrator", integrator, NULL);
    mbs_settings_set_number_for(&s, "ssode", "rtol", tol, NULL);
    mbs_settings_set_number_for(&s, "ssode", "atol", tol, NULL);
    mbs_settings_set_number_for(&s, "ssode", "max-internal-steps", 1e8, NULL);
    mbs_settings_set_number_for(&s, "ssode", "max-internal-step", max_internal_step, NULL);
    if (jacobian_method)
        mbs_settings_set_for(&s, "ssode", "jacobian", jacobian_method, NULL);
    MbsError err = {0};
    double c0 = cpu_seconds();
    MbsFormulation *f = mbs_formulation_new("ssode", m, &s, &err);
    MbsRun *run = f ? mbs_run_new(f, NULL, NULL, &err) : NULL;
    for (int k = 0; run && k < nmarks; ++k) {
        double t = nmarks == 1 ? seconds : k + 1.0;
        if (mbs_run_advance(run, t) != MBS_RUN_REACHED) {
            fprintf(stderr, "eslabon-cli bench stiff: %s at tol %g: %s\n", integrator, tol,
                    mbs_run_error(run)->message);
            break;
        }
        marks[k].cpu = cpu_seconds() - c0;
        marks[k].steps = mbs_formulation_statistic(f, "internal_steps", NAN);
        marks[k].rhs = mbs_formulation_statistic(f, "rhs_evaluations", NAN);
    }
    if (!f)
        fprintf(stderr, "eslabon-cli bench stiff: %s\n", err.message);
    mbs_run_free(run);
    mbs_formulation_free(f);
    return f ? 0 : -1;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median over runs of the marks (steps and right-hand sides do not vary). */
static int median_marks(const MbsModel *m, const char *integrator, double tol, double seconds,
                        int nmarks, int runs, Mark *out)
{
    double *cpu = calloc((size_t)runs * (size_t)nmarks, sizeof *cpu);
    for (int r = 0; r < runs; ++r) {
        Mark marks[MAX_SECONDS];
        for (int k = 0; k < nmarks; ++k)
            marks[k] = (Mark){NAN, NAN, NAN};
        if (measure(m, integrator, tol, seconds, marks, nmarks) != 0) {
            free(cpu);
            return -1;
        } /* a run that failed keeps NaN marks past the failure: "failed" in the table */
        for (int k = 0; k < nmarks; ++k) {
            out[k] = marks[k];
            cpu[k * runs + r] = marks[k].cpu;
        }
    }
    for (int k = 0; k < nmarks; ++k) {
        qsort(cpu + k * runs, (size_t)runs, sizeof *cpu, cmp);
        out[k].cpu = cpu[k * runs + runs / 2];
    }
    free(cpu);
    return 0;
}

static void print_table(const char *title, Mark marks[NTOL][MAX_SECONDS], int nmarks,
                        const char *first_column_unit, double first)
{
    printf("**%s**\n\n| duration |", title);
    for (int i = 0; i < NTOL; ++i)
        printf(" tol %.0e: steps | rhs | CPU s |", tolerances[i]);
    printf("\n|---|");
    for (int i = 0; i < NTOL; ++i)
        printf("---:|---:|---:|");
    printf("\n");
    for (int k = 0; k < nmarks; ++k) {
        printf("| %g %s |", nmarks == 1 ? first : k + 1.0, first_column_unit);
        for (int i = 0; i < NTOL; ++i)
            if (isnan(marks[i][k].cpu))
                printf(" failed | | |");
            else
                printf(" %.0f | %.0f | %.2f |", marks[i][k].steps, marks[i][k].rhs,
                       marks[i][k].cpu);
        printf("\n");
    }
    printf("\n");
}

int esl_bench_stiff(const char *models_dir, const char *model, const char *jacobian, int runs,
                    double duration, double adams_duration, double max_step)
{
    jacobian_method = jacobian;
    max_internal_step = max_step;
    if (!model)
        model = "stiff-vehicle";
    int seconds = (int)floor(duration + 1e-9);
    /* Adams' span must hold at least one output step (0.01 s): a shorter one measures no step
     * and divides by nothing */
    if (runs < 1 || seconds < 1 || seconds > MAX_SECONDS || !(adams_duration >= 0.01) ||
        !(max_step >= 0.0)) {
        fprintf(stderr, "eslabon-cli bench stiff: needs --runs >= 1, --duration from 1 to %d s "
                        "(whole seconds), --adams-duration >= 0.01 s (the output step) and "
                        "--max-step >= 0\n", MAX_SECONDS);
        return 2;
    }
    g_autofree char *path = g_strdup_printf("%s/%s.json", models_dir, model);
    g_autoptr(GError) error = NULL;
    MbsModel *m = esl_model_load_file(path, NULL, 0, &error);
    if (!m) {
        fprintf(stderr, "eslabon-cli bench: %s\n", error->message);
        return 1;
    }
    static Mark sdirk[NTOL][MAX_SECONDS], sdirk_cap[NTOL][MAX_SECONDS], adams[NTOL][MAX_SECONDS];
    int failed = 0;
    for (int i = 0; i < NTOL && !failed; ++i) { /* a failed run is reported in its cells */
        failed |= median_marks(m, "sdirk4", tolerances[i], seconds, seconds, runs, sdirk[i]);
        failed |= median_marks(m, "sdirk4", tolerances[i], adams_duration, 1, runs, sdirk_cap[i]);
        failed |= median_marks(m, "adams", tolerances[i], adams_duration, 1, runs, adams[i]);
    }
    if (failed) {
        mbs_model_free(m);
        return 1;
    }
    g_autofree char *cap = max_step > 0.0 ? g_strdup_printf("%g s", max_step)
                                          : g_strdup("not capped");
    printf("# eslabon-cli bench stiff: models/%s.json, ssode (state-space ODE, algebra "
           "automatic, SDIRK's J1, J2: %s), outputs every 10 ms, rtol = atol = tol, largest "
           "internal step %s; CPU time of this process, median of %d runs; Eslabón %s\n\n",
           model, jacobian ? jacobian : "ssode's default, analytical",
           cap, runs,
           ESLABON_VERSION);
    print_table("Implicit SDIRK 4/15 (paper 002 Table V)", sdirk, seconds, "s", seconds);
    printf("Explicit Adams (CVODE, variable order, fixed-point iteration; paper 002 Table VI): "
           "capped at %g s of simulated time (it takes of the order of 1e4 steps per second).\n\n",
           adams_duration);
    print_table("Explicit Adams", adams, 1, "s", adams_duration);
    print_table("SDIRK over the same span", sdirk_cap, 1, "s", adams_duration);
    printf("| tol | Adams / SDIRK CPU time over %g s | Adams / SDIRK steps |\n|---|---:|---:|\n",
           adams_duration);
    for (int i = 0; i < NTOL; ++i)
        printf("| %.0e | %.1f | %.1f |\n", tolerances[i], adams[i][0].cpu / sdirk_cap[i][0].cpu,
               adams[i][0].steps / sdirk_cap[i][0].steps);
    mbs_model_free(m);
    return 0;
}
