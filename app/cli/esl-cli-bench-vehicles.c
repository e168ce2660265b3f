/* eslabon-cli bench vehicles: every vehicle model x formulation x step, as paper 000 reports
 * its coach (h = 1, 10, 20 ms): median wall and CPU time of N runs, real-time factor, energy
 * drift, steps, Newton iterations and Jacobian evaluations; a run that fails says why. ssode
 * chooses its own steps within its tolerances (defaults), h bounding them (the output grid).
 * Every formulation runs with its default tangent (analytical where it has one). */
#include <glib.h>
#include <stdio.h>

#include "eslabon-config.h"
#include "esl-cli-bench.h"
#include "esl-model-file.h"

typedef struct {
    const char *label;       /* as printed */
    const char *formulation; /* the class */
    const char *integrator;  /* matrix-r's, or NULL */
} VehicleCase;

static const VehicleCase cases[] = {
    {"penalty", "penalty", NULL},
    {"matrix-r RK4", "matrix-r", "rk4"},
    {"matrix-r trapezoidal", "matrix-r", "trapezoidal"},
    {"ali3p", "ali3p", NULL},
    {"ssode (adaptive SDIRK)", "ssode", NULL},
};

static void bench_case(const MbsModel *m, const char *name, const VehicleCase *c, double h,
                       int runs, double duration)
{
    MbsSettings s;
    mbs_settings_defaults(&s);
    s.step = h;
    s.duration = duration;
    if (c->integrator)
        mbs_settings_set_for(&s, c->formulation, "integrator", c->integrator, NULL);
    const char *label = c->label;
    double walls[64], cpus[64];
    EslBenchRun last = {0};
    int n = runs < 64 ? runs : 64, done = 0;
    for (; done < n; ++done) {
        last = esl_bench_once(m, c->formulation, &s);
        walls[done] = last.wall;
        cpus[done] = last.cpu;
        if (last.failed)
            break;
    }
    if (last.failed) {
        printf("| %s | %s | %g | failed: %s | | | | | | |\n", name, label, 1e3 * h,
               last.message);
        fflush(stdout);
        return;
    }
    double wall = esl_bench_median(walls, n), cpu = esl_bench_median(cpus, n);
    printf("| %s | %s | %g | %.3f | %.3f | %.2f | %.3e | %ld | %ld | %ld |\n", name, label,
           1e3 * h, wall, cpu, duration / wall, last.summary.energy_drift_max,
           last.summary.steps, last.summary.newton_iterations,
           last.summary.jacobian_evaluations);
    fflush(stdout);
}

int esl_bench_vehicles(const char *models_dir, const char *models, const char *formulations,
                       int runs, double duration)
{
    /* --formulation A,B: only the cases of those formulations (matrix-r: both integrators) */
    g_auto(GStrv) chosen = formulations ? g_strsplit(formulations, ",", -1) : NULL;
    static const double steps[] = {1e-3, 1e-2, 2e-2};
    g_auto(GStrv) names = g_strsplit(
        models ? models : "hmmwv-stiff,coach,buggy-step,hmmwv-lane-change,truck-slalom", ",", -1);
    printf("# eslabon-cli bench vehicles: %d runs per case (median), %g s simulated, Eslabón %s\n",
           runs, duration, ESLABON_VERSION);
    printf("| vehicle | formulation | h (ms) | wall (s) | CPU (s) | real-time factor | "
           "energy drift (J) | steps | Newton it. | Jacobians |\n");
    printf("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    fflush(stdout);
    for (int i = 0; names[i]; ++i) {
        g_autofree char *path = g_strdup_printf("%s/%s.json", models_dir, names[i]);
        g_autoptr(GError) error = NULL;
        MbsModel *m = esl_model_load_file(path, NULL, 0, &error);
        if (!m) {
            fprintf(stderr, "eslabon-cli bench: %s\n", error->message);
            return 1;
        }
        for (size_t c = 0; c < G_N_ELEMENTS(cases); ++c)
            for (size_t k = 0; k < G_N_ELEMENTS(steps); ++k)
                if (!chosen || g_strv_contains((const char *const *)chosen, cases[c].formulation))
                    bench_case(m, names[i], &cases[c], steps[k], runs, duration);
        mbs_model_free(m);
    }
    return 0;
}
