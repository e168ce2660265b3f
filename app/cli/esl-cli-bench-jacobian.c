/* eslabon-cli bench jacobian: paper 000 Tables 1-4 (and paper 003 §3.2's threads) for every
 * formulation that computes a tangent — penalty, ali3p, matrix-r with the trapezoidal rule —
 * and every Jacobian method the formulation offers (mbs_formulation_offers_jacobian: the same
 * table as the run panel and `run --jacobian`). Per model and method: the tangent's size
 * (variables, nonzeros, colours), residuals per Jacobian, wall and CPU time on 1 and 2 threads
 * (median of the runs, alternating so drift in the machine's load hits both), Jacobians, Newton
 * iterations, energy drift, and the CPU time of one Jacobian alone over one residual alone,
 * measured in the same process (the robust column on a busy machine). */
#include <glib.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "eslabon-config.h"
#include "esl-cli-bench.h"
#include "esl-model-file.h"
#include "mbs_formulation.h"
#include "mbs_tangent_probe.h"

/* The formulations with a tangent, the setting that makes them use it, and the models their
 * tables are made on by default: ali3p computes a tangent only for forces that vary with the
 * state (the lattices have none), so it is measured on the models with springs and tyres. */
static const struct {
    const char *name;
    const char *setting, *value;
    const char *models;
} formulations[] = {
    {"penalty", NULL, NULL,
     "four-bar-spatial,multi-four-bar-1x15,multi-four-bar-4x15,multi-four-bar-7x15"},
    {"ali3p", NULL, NULL, "five-bar,double-pendulum-stiff,stiff-vehicle"},
    {"matrix-r", "integrator", "trapezoidal",
     "four-bar-spatial,multi-four-bar-1x15,multi-four-bar-4x15,multi-four-bar-7x15"},
};

typedef struct {
    double jacobian, residual; /* CPU s of one each, median of 15 */
    long evaluations;          /* residuals the method evaluated for one Jacobian */
    int nx, nr;
    double nonzeros, colours;
} OneJacobian;

/* One Jacobian alone and one residual alone (from scratch: position kinematics included), at
 * the assembled state of a fresh formulation on one thread. */
static int time_one_jacobian(const MbsModel *m, const char *name, const MbsSettings *s,
                             OneJacobian *out)
{
    MbsError err = {0};
    MbsFormulation *f = mbs_formulation_new(name, m, s, &err);
    MbsTangentProbe probe;
    if (!f || mbs_formulation_tangent_probe(f, &probe, &err)) {
        fprintf(stderr, "eslabon-cli bench jacobian: %s\n", err.message);
        mbs_formulation_free(f);
        return 1;
    }
    const MbsTangentProblem *p = &probe.tangent->problem;
    size_t nJ = p->pattern ? (size_t)p->pattern->colptr[p->nx] : (size_t)p->nx * p->nr;
    double *J = g_new0(double, nJ + 1), *r = g_new0(double, p->nr + 1), times[2][15];
    for (int k = 0; k < 15; ++k) {
        double t0 = esl_bench_thread_cpu();
        mbs_tangent_eval(probe.tangent, probe.x, probe.r0, J);
        times[0][k] = esl_bench_thread_cpu() - t0;
        if (p->begin)
            p->begin(p->contexts[0]);
        t0 = esl_bench_thread_cpu();
        for (int i = 0; i < 20; ++i)
            p->residual(p->contexts[0], probe.x, -1, 0.0, r);
        times[1][k] = (esl_bench_thread_cpu() - t0) / 20.0;
    }
    out->evaluations = probe.tangent->evaluations;
    out->jacobian = esl_bench_median(times[0], 15);
    out->residual = esl_bench_median(times[1], 15);
    out->nx = p->nx;
    out->nr = p->nr;
    out->nonzeros = (double)nJ;
    out->colours = probe.tangent->colours; /* perturbed groups of the sparse methods */
    g_free(J);
    g_free(r);
    mbs_formulation_free(f);
    return 0;
}

static void settings_for(MbsSettings *s, int k, double step, double duration, int method,
                         int threads)
{
    mbs_settings_defaults(s);
    s->step = step;
    s->duration = duration;
    const char *name = formulations[k].name;
    if (formulations[k].setting)
        mbs_settings_set_for(s, name, formulations[k].setting, formulations[k].value, NULL);
    mbs_settings_set_number_for(s, name, "jacobian", method, NULL);
    mbs_settings_set_number_for(s, name, "threads", threads, NULL);
}

/* One formulation's table; a line per model of what its default method gains over nd-central
 * (the target for penalty: 10x on one thread, same Newton iterations and drift). */
static int bench_formulation(const char *models_dir, int k, const char *models, int runs,
                             double duration, double step)
{
    const char *name = formulations[k].name;
    const MbsFormulationClass *klass = mbs_formulation_find(name);
    printf("\n## %s: h = %g ms, %g s simulated, median of %d run(s), Eslabón %s\n\n", name,
           1e3 * step, duration, runs, ESLABON_VERSION);
    printf("| model | method | variables | rows | nnz(J) | p | residuals per J | wall 1 thr (s) "
           "| CPU of 1 thr (s) | wall 2 thr (s) | speed-up | Jacobians | Newton it. | energy drift "
           "(J) | one J / one residual |\n");
    printf("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    g_auto(GStrv) names = g_strsplit(models ? models : formulations[k].models, ",", -1);
    g_autoptr(GString) targets = g_string_new("");
    int failures = 0;
    for (int i = 0; names[i]; ++i) {
        g_autofree char *path = g_strdup_printf("%s/%s.json", models_dir, names[i]);
        g_autoptr(GError) error = NULL;
        MbsModel *m = esl_model_load_file(path, NULL, 0, &error);
        if (!m) {
            fprintf(stderr, "eslabon-cli bench jacobian: %s\n", error->message);
            return 1;
        }
        double cpu_of[MBS_JACOBIAN_COUNT] = {0}, newton_of[MBS_JACOBIAN_COUNT] = {0},
               drift_of[MBS_JACOBIAN_COUNT] = {0};
        for (int method = 0; method < MBS_JACOBIAN_COUNT; ++method) {
            if (!mbs_formulation_offers_jacobian(klass, (MbsJacobianMethod)method))
                continue;
            const char *mname = mbs_jacobian_method_name((MbsJacobianMethod)method);
            MbsSettings s;
            settings_for(&s, k, step, duration, method, 1);
            OneJacobian one;
            if (time_one_jacobian(m, name, &s, &one)) {
                printf("| %s | %s | no tangent (see the message above) |\n", names[i], mname);
                failures++;
                break; /* the model has no tangent in this formulation: no method has one */
            }
            double wall[2][64], cpu[64];
            EslBenchRun last[2] = {{0}};
            int nr = runs < 64 ? runs : 64;
            for (int r = 0; r < nr && !last[0].failed && !last[1].failed; ++r)
                for (int t = 0; t < 2; ++t) {
                    settings_for(&s, k, step, duration, method, t + 1);
                    last[t] = esl_bench_once(m, name, &s);
                    wall[t][r] = last[t].wall;
                    if (t == 0)
                        cpu[r] = last[t].thread_cpu;
                }
            if (last[0].failed || last[1].failed) {
                printf("| %s | %s | failed: %s |\n", names[i], mname,
                       last[0].failed ? last[0].message : last[1].message);
                failures++;
                continue;
            }
            double one_thread = esl_bench_median(wall[0], nr), two = esl_bench_median(wall[1], nr);
            const MbsRunSummary *sum = &last[0].summary;
            cpu_of[method] = esl_bench_median(cpu, nr);
            newton_of[method] = (double)sum->newton_iterations;
            drift_of[method] = sum->energy_drift_max;
            /* directions: colours of the compressed methods, every variable for the dense
             * ones, none for analytical */
            double directions = method == MBS_JACOBIAN_ANALYTICAL ? 0.0
                                : method == MBS_JACOBIAN_ND_SPARSE || method == MBS_JACOBIAN_AD_SPARSE
                                    ? one.colours
                                    : one.nx;
            printf("| %s | %s | %d | %d | %.0f | %.0f | %ld | %.4g | %.4g | %.4g | %.2f | %ld | %ld "
                   "| %.3e | %.1f |\n",
                   names[i], mname, one.nx, one.nr, one.nonzeros, directions, one.evaluations,
                   one_thread, cpu_of[method], two, one_thread / two, sum->jacobian_evaluations,
                   sum->newton_iterations, sum->energy_drift_max, one.jacobian / one.residual);
            fflush(stdout);
        }
        MbsSettings defaults;
        mbs_settings_defaults(&defaults);
        if (formulations[k].setting)
            mbs_settings_set_for(&defaults, name, formulations[k].setting,
                                 formulations[k].value, NULL);
        const int *jd = mbs_settings_value_for(&defaults, name, "jacobian");
        int best = jd ? *jd : MBS_JACOBIAN_ND_CENTRAL, ref = MBS_JACOBIAN_ND_CENTRAL;
        if (cpu_of[best] > 0.0 && cpu_of[ref] > 0.0)
            g_string_append_printf(
                targets,
                "- %s: default `%s` %.2f× less CPU than nd-central on one thread%s; Newton "
                "iterations %+.1f %%, energy drift %+.2f %%\n",
                names[i], mbs_jacobian_method_name((MbsJacobianMethod)best),
                cpu_of[ref] / cpu_of[best],
                k == 0 ? (cpu_of[ref] / cpu_of[best] >= 10.0 ? " (target 10×: met)"
                                                             : " (target 10×: missed)")
                       : "",
                100.0 * (newton_of[best] / newton_of[ref] - 1.0),
                100.0 * (drift_of[best] / drift_of[ref] - 1.0));
        mbs_model_free(m);
    }
    printf("\n%s", targets->str);
    return failures ? 1 : 0;
}

int esl_bench_jacobian(const char *models_dir, const char *formulation, const char *models,
                       int runs, double duration, double step)
{
    int all = !strcmp(formulation, "all"), found = 0, failures = 0;
    printf("# eslabon-cli bench jacobian: variables x of the tangent J = dr/dx (penalty, ali3p: "
           "[velocities, positions]; matrix-r: z_i, with zd_i and zdd_i following from the "
           "trapezoidal rule), rows of r, nnz structural "
           "nonzeros, p colours; one J / one residual: CPU time of a Jacobian alone over that of "
           "one residual from scratch (1 thread, median of 15)\n");
    for (int k = 0; k < (int)G_N_ELEMENTS(formulations); ++k) {
        if (!all && strcmp(formulation, formulations[k].name))
            continue;
        found = 1;
        failures += bench_formulation(models_dir, k, models, runs, duration, step);
    }
    if (!found) {
        fprintf(stderr, "eslabon-cli bench jacobian: --formulation must be penalty, ali3p, "
                        "matrix-r or all, not '%s'\n", formulation);
        return 2;
    }
    return failures ? 1 : 0;
}
