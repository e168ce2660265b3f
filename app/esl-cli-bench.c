/* eslabon-cli bench: tables like the papers' (not a test: it prints what it measured).
 *
 *   bench penalty: paper 000 Tables 2-3 — the spatial four-bar and the 1x15, 4x15 and 7x15
 *   lattices at h = 1, 10 and 20 ms over 5 s: median wall time of N runs, steps, Newton
 *   iterations, Jacobian evaluations, energy drift.
 *   bench jacobian: penalty with each method of the tangent registry (paper 000 Tables 1-4,
 *   paper 003 §3.2) on the four-bar and the lattices at h = 10 ms: sizes (n, 2n, nonzeros,
 *   colours), wall time on 1 and 2 threads, Jacobians, Newton iterations, energy drift, and one
 *   Jacobian in evaluations of Q, measured in the same process. */
#include <glib.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "eslabon-config.h"
#include "esl-cli.h"
#include "esl-cli-bench.h"
#include "esl-model-file.h"
#include "esl-models-dir.h"
#include "mbs_clock.h"
#include "mbs_run.h"
#include "mbs_tangent_probe.h"

typedef struct {
    double wall;
    MbsRunSummary summary;
    int failed;
    char message[512];
} BenchRun;

static BenchRun bench_once(const MbsModel *m, const char *formulation, const MbsSettings *s)
{
    BenchRun r = {0};
    MbsError err = {0};
    double t0 = mbs_clock_now();
    MbsFormulation *f = mbs_formulation_new(formulation, m, s, &err);
    if (!f) {
        r.failed = 1;
        g_strlcpy(r.message, err.message, sizeof r.message);
        return r;
    }
    MbsRun *run = mbs_run_new(f, NULL, NULL, &err);
    if (!run || mbs_run_advance(run, s->duration) == MBS_RUN_FAILED) {
        r.failed = 1;
        g_strlcpy(r.message, run ? mbs_run_error(run)->message : err.message, sizeof r.message);
    }
    if (run)
        r.summary = *mbs_run_summary(run);
    mbs_run_free(run);
    r.wall = mbs_clock_now() - t0;
    mbs_formulation_free(f);
    return r;
}

static int compare_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median_of(double *v, int n)
{
    qsort(v, n, sizeof v[0], compare_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static int bench_penalty(const char *models_dir, int runs, double duration, const char *jac)
{
    static const char *const models[] = {"four-bar-spatial", "multi-four-bar-1x15",
                                         "multi-four-bar-4x15", "multi-four-bar-7x15"};
    static const double steps[] = {1e-3, 1e-2, 2e-2};
    printf("# eslabon-cli bench penalty: %s, %d runs (median wall time), %g s simulated, "
           "Jacobian %s, Eslabón %s\n",
           "semi-recursive penalty + trapezoidal rule + projections", runs, duration, jac,
           ESLABON_VERSION);
    printf("| model | bodies | coords | h (ms) | wall median (s) | wall min-max (s) | steps | "
           "Newton it. | Jacobians | energy drift (J) | max ‖Φ‖ |\n");
    printf("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    fflush(stdout);
    int failures = 0;
    for (size_t i = 0; i < G_N_ELEMENTS(models); ++i) {
        g_autofree char *path = g_strdup_printf("%s/%s.json", models_dir, models[i]);
        g_autoptr(GError) error = NULL;
        MbsModel *m = esl_model_load_file(path, NULL, 0, &error);
        if (!m) {
            fprintf(stderr, "eslabon-cli bench: %s\n", error->message);
            return 1;
        }
        for (size_t k = 0; k < G_N_ELEMENTS(steps); ++k) {
            MbsSettings s;
            mbs_settings_defaults(&s);
            s.step = steps[k];
            s.duration = duration;
            mbs_settings_set_for(&s, "penalty", "jacobian", jac, NULL);
            double walls[64];
            BenchRun last = {0};
            int nr = runs < 64 ? runs : 64;
            for (int r = 0; r < nr; ++r) {
                last = bench_once(m, "penalty", &s);
                walls[r] = last.wall;
                if (last.failed)
                    break;
            }
            if (last.failed) {
                printf("| %s | %d | %d | %g | failed: %s | | | | | | |\n", models[i],
                       m->nbodies - 1, mbs_model_ncoords(m), 1e3 * steps[k], last.message);
                failures++;
                continue;
            }
            double median = median_of(walls, nr);
            printf("| %s | %d | %d | %g | %.3f | %.3f-%.3f | %ld | %ld | %ld | %.3e | %.2e |\n",
                   models[i], m->nbodies - 1, mbs_model_ncoords(m), 1e3 * steps[k], median,
                   walls[0], walls[nr - 1], last.summary.steps, last.summary.newton_iterations,
                   last.summary.jacobian_evaluations, last.summary.energy_drift_max,
                   last.summary.constraint_position_max);
            fflush(stdout);
        }
        mbs_model_free(m);
    }
    return failures ? 1 : 0;
}

/* CPU time of the calling thread: on a busy machine wall time of short sections mostly
 * measures the other processes. */
static double thread_cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* One Jacobian alone and one evaluation of Q alone, in the same process, at the assembled
 * state of a fresh penalty object on one thread (CPU seconds each, median of repeats). */
static int time_one_jacobian(const MbsModel *m, const MbsSettings *s, double *jacobian,
                             double *residual, long *evaluations)
{
    MbsError err = {0};
    MbsFormulation *f = mbs_formulation_new("penalty", m, s, &err);
    MbsTangentProbe probe;
    if (!f || mbs_penalty_tangent_probe(f, &probe, &err)) {
        fprintf(stderr, "eslabon-cli bench: %s\n", err.message);
        mbs_formulation_free(f);
        return 1;
    }
    const MbsTangentProblem *p = &probe.tangent->problem;
    size_t nJ = p->pattern ? (size_t)p->pattern->colptr[p->nx] : (size_t)p->nx * p->nr;
    double *J = g_new0(double, nJ + 1), *r = g_new0(double, p->nr + 1), times[2][15];
    for (int k = 0; k < 15; ++k) {
        double t0 = thread_cpu_now();
        mbs_tangent_eval(probe.tangent, probe.x, probe.r0, J);
        times[0][k] = thread_cpu_now() - t0;
        if (p->begin)
            p->begin(p->contexts[0]);
        t0 = thread_cpu_now();
        for (int i = 0; i < 20; ++i) /* -1: from scratch, position kinematics included */
            p->residual(p->contexts[0], probe.x, -1, 0.0, r);
        times[1][k] = (thread_cpu_now() - t0) / 20.0;
    }
    *evaluations = probe.tangent->evaluations;
    *jacobian = median_of(times[0], 15);
    *residual = median_of(times[1], 15);
    g_free(J);
    g_free(r);
    mbs_formulation_free(f);
    return 0;
}

/* Paper 000 Tables 1-4 by Jacobian method: penalty, h = 10 ms, each method on 1 and 2 threads
 * (runs alternate, so drift in machine load hits both), median wall time of the runs. */
static int bench_jacobian(const char *models_dir, int runs, double duration)
{
    static const char *const models[] = {"four-bar-spatial", "multi-four-bar-1x15",
                                         "multi-four-bar-4x15", "multi-four-bar-7x15"};
    printf("# eslabon-cli bench jacobian: penalty, h = 10 ms, %g s simulated, median of %d "
           "run(s); n coordinates, J = -dQ/d[zd, z] has 2n columns, nnz structural nonzeros, "
           "p colours; one J / one Q: CPU time of a Jacobian alone over that of Q alone (1 thread); "
           "Eslabón %s\n", duration, runs, ESLABON_VERSION);
    printf("| model | method | n | 2n | nnz(J) | p | Q per J | wall 1 thr (s) | wall 2 thr (s) | "
           "speed-up | Jacobians | Newton it. | energy drift (J) | one J / one Q |\n");
    printf("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    g_autoptr(GString) targets = g_string_new("");
    for (size_t i = 0; i < G_N_ELEMENTS(models); ++i) {
        g_autofree char *path = g_strdup_printf("%s/%s.json", models_dir, models[i]);
        g_autoptr(GError) error = NULL;
        MbsModel *m = esl_model_load_file(path, NULL, 0, &error);
        if (!m) {
            fprintf(stderr, "eslabon-cli bench: %s\n", error->message);
            return 1;
        }
        /* per method, one thread: wall median, Newton iterations, energy drift */
        double method_wall[MBS_JACOBIAN_COUNT], method_newton[MBS_JACOBIAN_COUNT],
            method_drift[MBS_JACOBIAN_COUNT];
        for (int method = 0; method < MBS_JACOBIAN_COUNT; ++method) {
            double wall[2][64];
            BenchRun last[2] = {{0}};
            int nr = runs < 64 ? runs : 64;
            MbsSettings s;
            for (int r = 0; r < nr; ++r)
                for (int t = 0; t < 2; ++t) {
                    mbs_settings_defaults(&s);
                    s.step = 1e-2;
                    s.duration = duration;
                    mbs_settings_set_number_for(&s, "penalty", "jacobian", method, NULL);
                    mbs_settings_set_number_for(&s, "penalty", "threads", t + 1, NULL);
                    last[t] = bench_once(m, "penalty", &s);
                    if (last[t].failed) {
                        fprintf(stderr, "eslabon-cli bench: %s: %s\n", models[i],
                                last[t].message);
                        mbs_model_free(m);
                        return 1;
                    }
                    wall[t][r] = last[t].wall;
                }
            mbs_settings_set_number_for(&s, "penalty", "threads", 1, NULL);
            double one_jacobian, one_q;
            long per_jacobian;
            if (time_one_jacobian(m, &s, &one_jacobian, &one_q, &per_jacobian)) {
                mbs_model_free(m);
                return 1;
            }
            /* the pattern and colours penalty reports */
            MbsError err = {0};
            MbsFormulation *f = mbs_formulation_new("penalty", m, &s, &err);
            double nnz = f ? mbs_formulation_statistic(f, "jacobian_nonzeros", NAN) : NAN;
            double colours = f ? mbs_formulation_statistic(f, "jacobian_colours", NAN) : NAN;
            mbs_formulation_free(f);
            int n = mbs_model_ncoords(m);
            double one = median_of(wall[0], nr), two = median_of(wall[1], nr);
            const MbsRunSummary *sum = &last[0].summary;
            printf("| %s | %s | %d | %d | %.0f | %.0f | %ld | %.4g | %.4g | %.2f | %ld | %ld | "
                   "%.3e | %.1f |\n",
                   models[i], mbs_jacobian_method_name((MbsJacobianMethod)method), n, 2 * n,
                   nnz, colours, per_jacobian, one, two, one / two, sum->jacobian_evaluations,
                   sum->newton_iterations, sum->energy_drift_max, one_jacobian / one_q);
            fflush(stdout);
            method_wall[method] = one;
            method_newton[method] = (double)sum->newton_iterations;
            method_drift[method] = sum->energy_drift_max;
        }
        /* the target: the default method >= 10x nd-central on one thread, same Newton
         * iterations (5 %) and energy drift (1 %) */
        MbsSettings defaults;
        mbs_settings_defaults(&defaults);
        const int *jd = mbs_settings_value_for(&defaults, "penalty", "jacobian");
        int best = jd ? *jd : MBS_JACOBIAN_ND_CENTRAL, ref = MBS_JACOBIAN_ND_CENTRAL;
        double speedup = method_wall[ref] / method_wall[best];
        g_string_append_printf(targets, "- %s: default `%s` on one thread %.2f× faster than "
                               "nd-central (target 10×: %s); Newton iterations %+.1f %%, energy "
                               "drift %+.2f %%\n", models[i],
                               mbs_jacobian_method_name((MbsJacobianMethod)best), speedup,
                               speedup >= 10.0 ? "met" : "missed",
                               100.0 * (method_newton[best] / method_newton[ref] - 1.0),
                               100.0 * (method_drift[best] / method_drift[ref] - 1.0));
        mbs_model_free(m);
    }
    printf("\n%s", targets->str);
    return 0;
}

int esl_cli_bench(int argc, char **argv)
{
    int runs = 3, evaluations = 1000;
    double duration = NAN, adams_duration = 1.0; /* duration: 4 s for stiff, else 5 s */
    char *models_dir = NULL, *jac = NULL;
    GOptionEntry entries[] = {
        {"runs", 'n', 0, G_OPTION_ARG_INT, &runs, "Runs per case (median reported, default 3)", "N"},
        {"duration", 't', 0, G_OPTION_ARG_DOUBLE, &duration, "Simulated time (default 5 s; stiff: 4 s)", "T"},
        {"jacobian", 0, 0, G_OPTION_ARG_STRING, &jac, "bench penalty, sensitivity: a method of the jacobian setting (default nd-central)", "METHOD"},
        {"models-dir", 0, 0, G_OPTION_ARG_FILENAME, &models_dir, "Where the model files are", "DIR"},
        {"evaluations", 0, 0, G_OPTION_ARG_INT, &evaluations, "matrix-r: evaluations per run (default 1000)", "E"},
        {"adams-duration", 0, 0, G_OPTION_ARG_DOUBLE, &adams_duration, "stiff: simulated time of the explicit Adams runs (default 1 s; SDIRK runs --duration, default there 4 s)", "T"},
        {NULL, 0, 0, 0, NULL, NULL, NULL},
    };
    g_autoptr(GOptionContext) ctx = g_option_context_new("penalty - print a benchmark table");
    g_option_context_add_main_entries(ctx, entries, NULL);
    g_autoptr(GError) error = NULL;
    if (!g_option_context_parse(ctx, &argc, &argv, &error)) {
        fprintf(stderr, "eslabon-cli bench: %s\n", error->message);
        return 2;
    }
    if (argc != 2 || (strcmp(argv[1], "penalty") && strcmp(argv[1], "jacobian") &&
                      strcmp(argv[1], "matrix-r") && strcmp(argv[1], "sensitivity") &&
                      strcmp(argv[1], "stiff"))) {
        fprintf(stderr, "eslabon-cli bench: available benchmarks: penalty, jacobian, matrix-r, "
                        "sensitivity, stiff\n");
        return 2;
    }
    if (isnan(duration))
        duration = !strcmp(argv[1], "stiff") ? 4.0 : 5.0;
    if (runs < 1 || !(duration > 0)) {
        fprintf(stderr, "eslabon-cli bench: --runs must be >= 1 and --duration > 0\n");
        return 2;
    }
    if (jac && mbs_jacobian_method_from_name(jac) < 0) {
        fprintf(stderr, "eslabon-cli bench: unknown Jacobian method '%s'\n", jac);
        return 2;
    }
    const char *dir = models_dir ? models_dir : esl_models_dir();
    int st = !strcmp(argv[1], "jacobian") ? bench_jacobian(dir, runs, duration)
             : !strcmp(argv[1], "matrix-r") ? esl_bench_matrix_r(dir, runs, evaluations)
             : !strcmp(argv[1], "sensitivity") ? esl_bench_sensitivity(dir, runs, duration, jac)
             : !strcmp(argv[1], "stiff")
                 ? esl_bench_stiff(dir, runs, duration, adams_duration)
                                             : bench_penalty(dir, runs, duration, jac ? jac : "nd-central");
    g_free(models_dir);
    g_free(jac);
    return st;
}
