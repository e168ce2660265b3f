/* eslabon-cli bench: tables like the papers' (not a test: it prints what it measured).
 *
 *   bench penalty: paper 000 Tables 2-3 — the spatial four-bar and the 1x15, 4x15 and 7x15
 *   lattices at h = 1, 10 and 20 ms over 5 s: median wall time of N runs, steps, Newton
 *   iterations, Jacobian evaluations, energy drift.
 *   bench jacobian: esl-cli-bench-jacobian.c. */
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

EslBenchRun esl_bench_once(const MbsModel *m, const char *formulation, const MbsSettings *s)
{
    EslBenchRun r = {0};
    MbsError err = {0};
    double t0 = mbs_clock_now(), c0 = esl_bench_process_cpu(), tc0 = esl_bench_thread_cpu();
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
    r.cpu = esl_bench_process_cpu() - c0;
    r.thread_cpu = esl_bench_thread_cpu() - tc0;
    mbs_formulation_free(f);
    return r;
}

static double cpu_clock(clockid_t clock)
{
    struct timespec ts;
    clock_gettime(clock, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

double esl_bench_process_cpu(void) { return cpu_clock(CLOCK_PROCESS_CPUTIME_ID); }

double esl_bench_thread_cpu(void) { return cpu_clock(CLOCK_THREAD_CPUTIME_ID); }

static int compare_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double esl_bench_median(double *v, int n)
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
            EslBenchRun last = {0};
            int nr = runs < 64 ? runs : 64;
            for (int r = 0; r < nr; ++r) {
                last = esl_bench_once(m, "penalty", &s);
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
            double median = esl_bench_median(walls, nr);
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

int esl_cli_bench(int argc, char **argv)
{
    int runs = 3, evaluations = 1000;
    double duration = NAN, adams_duration = 1.0; /* duration: 4 s for stiff, else 5 s */
    double step = 1e-2, peer_step = NAN, max_step = 0.0;
    g_autofree char *models_dir = NULL, *jac = NULL, *formulation = NULL, *models = NULL,
                    *algebra = NULL;
    GOptionEntry entries[] = {
        {"runs", 'n', 0, G_OPTION_ARG_INT, &runs, "Runs per case (median reported, default 3)", "N"},
        {"duration", 't', 0, G_OPTION_ARG_DOUBLE, &duration, "Simulated time (default 5 s; stiff: 4 s)", "T"},
        {"formulation", 'f', 0, G_OPTION_ARG_STRING, &formulation, "bench jacobian: penalty, ali3p, matrix-r or all (default all); bench vehicles: comma-separated formulations (default all); peer: comma-separated (default matrix-r,penalty)", "F"},
        {"models", 0, 0, G_OPTION_ARG_STRING, &models, "bench jacobian, vehicles: comma-separated model names (default: per formulation; vehicles: hmmwv-stiff,coach,buggy-step,hmmwv-lane-change,truck-slalom); bench ssode: lattice rows (default 1,4,7,10); bench stiff: one model (default stiff-vehicle)", "LIST"},
        {"step", 0, 0, G_OPTION_ARG_DOUBLE, &step, "bench jacobian, peer: time step (default 0.01 s)", "H"},
        {"peer-step", 0, 0, G_OPTION_ARG_DOUBLE, &peer_step, "bench peer: MuJoCo's time step (default: --step)", "H"},
        {"jacobian", 0, 0, G_OPTION_ARG_STRING, &jac, "bench penalty, sensitivity: a method of the jacobian setting (default nd-central); bench stiff: ssode's (default analytical)", "METHOD"},
        {"algebra", 0, 0, G_OPTION_ARG_STRING, &algebra, "bench ssode: ssode's algebra setting (default automatic); peer: matrix-r's (default sparse)", "A"},
        {"models-dir", 0, 0, G_OPTION_ARG_FILENAME, &models_dir, "Where the model files are", "DIR"},
        {"evaluations", 0, 0, G_OPTION_ARG_INT, &evaluations, "matrix-r: evaluations per run (default 1000); ssode: right-hand sides per run (default 40)", "E"},
        {"adams-duration", 0, 0, G_OPTION_ARG_DOUBLE, &adams_duration, "stiff: simulated time of the explicit Adams runs (default 1 s; SDIRK runs --duration, default there 4 s)", "T"},
        {"max-step", 0, 0, G_OPTION_ARG_DOUBLE, &max_step, "stiff: ssode's max-internal-step for both integrators, so that a short obstacle cannot fall between two steps (default 0: no cap)", "H"},
        {NULL, 0, 0, 0, NULL, NULL, NULL},
    };
    g_autoptr(GOptionContext) ctx = g_option_context_new("penalty - print a benchmark table");
    g_option_context_add_main_entries(ctx, entries, NULL);
    g_autoptr(GError) error = NULL;
    if (!g_option_context_parse(ctx, &argc, &argv, &error)) {
        fprintf(stderr, "eslabon-cli bench: %s\n", error->message);
        return 2;
    }
    if (argc == 3 && !strcmp(argv[1], "peer")) {
        if (runs < 1 || !(duration > 0.0 || isnan(duration)) || !(step > 0.0) ||
            !(peer_step > 0.0 || isnan(peer_step))) {
            fprintf(stderr, "eslabon-cli bench peer: --runs must be >= 1, --duration, --step "
                            "and --peer-step > 0\n");
            return 2;
        }
        int st = esl_bench_peer(argv[2], formulation ? formulation : "matrix-r,penalty",
                                algebra ? algebra : "sparse", runs,
                                isnan(duration) ? 5.0 : duration, step,
                                isnan(peer_step) ? step : peer_step);
        return st;
    }
    if (argc != 2 || (strcmp(argv[1], "penalty") && strcmp(argv[1], "jacobian") &&
                      strcmp(argv[1], "matrix-r") && strcmp(argv[1], "sensitivity") &&
                      strcmp(argv[1], "stiff") && strcmp(argv[1], "vehicles") &&
                      strcmp(argv[1], "ssode"))) {
        fprintf(stderr, "eslabon-cli bench: available benchmarks: penalty, jacobian, matrix-r, "
                        "sensitivity, stiff, vehicles, ssode, peer MODEL\n");
        return 2;
    }
    int evaluations_set = evaluations != 1000;
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
    int st = !strcmp(argv[1], "jacobian")
                 ? esl_bench_jacobian(dir, formulation ? formulation : "all", models, runs,
                                      duration, step)
             : !strcmp(argv[1], "matrix-r") ? esl_bench_matrix_r(dir, runs, evaluations)
             : !strcmp(argv[1], "ssode")
                 ? esl_bench_ssode(dir, runs, evaluations_set ? evaluations : 40, algebra, models)
             : !strcmp(argv[1], "sensitivity") ? esl_bench_sensitivity(dir, runs, duration, jac)
             : !strcmp(argv[1], "stiff")
                 ? esl_bench_stiff(dir, models, jac, runs, duration, adams_duration, max_step)
             : !strcmp(argv[1], "vehicles")
                 ? esl_bench_vehicles(dir, models, formulation, runs, duration)
                                             : bench_penalty(dir, runs, duration, jac ? jac : "nd-central");
    return st;
}
