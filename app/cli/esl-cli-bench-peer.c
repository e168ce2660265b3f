/* eslabon-cli bench peer MODEL: our formulations against MuJoCo (Euler and RK4) on the same
 * mechanism, in the same process: MuJoCo loads the MJCF that `export --format mjcf` writes
 * (app/model/esl-mjcf.c) through its C API. Thread CPU time (median of runs), energy drift
 * max |E(t) - E(0)| over the steps, and both as ratios to MuJoCo RK4's. Without libmujoco at
 * build time the bench says so and exits with status 1. */
#include <gio/gio.h>
#include <glib/gstdio.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "eslabon-config.h"
#include "esl-cli.h"
#include "esl-cli-bench.h"
#include "esl-model-file.h"
#include "esl-models-dir.h"
#include "mbs_formulation.h"
#include "mbs_topology.h"

#ifdef ESL_HAVE_MUJOCO
#include <mujoco/mujoco.h>
#endif

typedef struct {
    char label[96];
    double h, cpu, drift, energy0;
    long steps;
    int failed;
    char message[256];
} PeerRow;

#ifdef ESL_HAVE_MUJOCO
/* One MuJoCo run from the keyframe "initial" over duration; the energy at every grid time (the
 * energy mj_step computes is the one of the state it starts from, the last state gets its own
 * mj_forward). */
static void mujoco_once(const mjModel *mm, double duration, PeerRow *row)
{
    mjData *d = mj_makeData(mm);
    double c0 = esl_bench_thread_cpu();
    mj_resetDataKeyframe(mm, d, 0);
    mj_forward(mm, d);
    double e0 = d->energy[0] + d->energy[1], drift = 0.0;
    long steps = mbs_run_step_count(duration, mm->opt.timestep);
    for (long k = 0; k < steps; ++k) {
        mj_step(mm, d);
        if (k > 0)
            drift = fmax(drift, fabs(d->energy[0] + d->energy[1] - e0));
    }
    mj_forward(mm, d);
    drift = fmax(drift, fabs(d->energy[0] + d->energy[1] - e0));
    row->cpu = esl_bench_thread_cpu() - c0;
    row->drift = isfinite(drift) ? drift : INFINITY;
    row->energy0 = e0;
    row->steps = steps;
    mj_deleteData(d);
}

static mjModel *mujoco_load(const MbsModel *m, double h, const char *integrator, GError **error)
{
    char *text = esl_cli_mjcf_text(m, h, integrator, NULL, error);
    if (!text)
        return NULL;
    char *path = NULL;
    int fd = g_file_open_tmp("eslabon-peer-XXXXXX.xml", &path, error);
    mjModel *mm = NULL;
    if (fd >= 0) {
        close(fd);
        if (g_file_set_contents(path, text, -1, error)) {
            char why[1000] = "";
            mm = mj_loadXML(path, NULL, why, sizeof why);
            if (!mm)
                g_set_error(error, G_IO_ERROR, G_IO_ERROR_FAILED, "MuJoCo: %s", why);
        }
        g_unlink(path);
    }
    g_free(path);
    g_free(text);
    return mm;
}

static void ours_once(const MbsModel *m, const char *formulation, const char *algebra, double h,
                      double duration, PeerRow *row)
{
    MbsSettings s;
    mbs_settings_defaults(&s);
    s.step = h;
    s.duration = duration;
    if (!strcmp(formulation, "matrix-r") && algebra)
        mbs_settings_set_for(&s, "matrix-r", "algebra", algebra, NULL);
    EslBenchRun r = esl_bench_once(m, formulation, &s);
    row->cpu = r.thread_cpu;
    row->drift = r.summary.energy_drift_max;
    row->energy0 = r.summary.energy0;
    row->steps = r.summary.steps;
    row->failed = r.failed;
    g_strlcpy(row->message, r.message, sizeof row->message);
}
#endif

int esl_bench_peer(const char *model_path, const char *formulations, const char *algebra,
                   int runs, double duration, double step, double peer_step)
{
#ifndef ESL_HAVE_MUJOCO
    (void)formulations, (void)algebra, (void)runs, (void)duration, (void)step, (void)peer_step;
    fprintf(stderr, "eslabon-cli bench peer: this eslabon-cli was built without MuJoCo "
                    "(install libmujoco-dev and reconfigure); `eslabon-cli export --format mjcf "
                    "%s` writes the model for a MuJoCo elsewhere\n",
            model_path);
    return 1;
#else
    g_autoptr(GError) error = NULL;
    g_autofree char *path = esl_resolve_model_path(model_path);
    MbsModel *m = esl_model_load_file(path, NULL, 0, &error);
    if (!m) {
        fprintf(stderr, "eslabon-cli bench peer: %s\n", error->message);
        return 1;
    }
    static const char *const integrators[] = {"Euler", "RK4"};
    mjModel *mm[2] = {NULL, NULL};
    for (int i = 0; i < 2; ++i)
        if (!(mm[i] = mujoco_load(m, peer_step, integrators[i], &error))) {
            fprintf(stderr, "eslabon-cli bench peer: %s\n", error->message);
            mj_deleteModel(mm[0]);
            mbs_model_free(m);
            return 1;
        }
    g_auto(GStrv) ours = g_strsplit(formulations, ",", -1);
    int nours = (int)g_strv_length(ours), nrows = 2 + nours;
    PeerRow *rows = g_new0(PeerRow, nrows);
    double *cpu = g_new0(double, (size_t)nrows * runs);
    /* the cases interleaved run by run, so that a changing machine load affects all alike */
    for (int r = 0; r < runs; ++r)
        for (int c = 0; c < nrows; ++c) {
            PeerRow *row = &rows[c];
            if (c < 2) {
                g_snprintf(row->label, sizeof row->label, "MuJoCo %s %s", mj_versionString(),
                           integrators[c]);
                row->h = peer_step;
                mujoco_once(mm[c], duration, row);
            } else {
                const char *f = ours[c - 2];
                g_snprintf(row->label, sizeof row->label, "%s%s%s", f,
                           strcmp(f, "matrix-r") ? "" : " RK4 ",
                           strcmp(f, "matrix-r") ? "" : (algebra ? algebra : "dense"));
                row->h = step;
                ours_once(m, f, algebra, step, duration, row);
            }
            cpu[(size_t)c * runs + r] = row->cpu;
        }
    for (int c = 0; c < nrows; ++c)
        rows[c].cpu = esl_bench_median(cpu + (size_t)c * runs, runs);
    printf("# eslabon-cli bench peer: %s, %d bodies, %g s simulated, median CPU time of the "
           "thread over %d runs (cases interleaved); drift = max |E(t) - E(0)| over the steps; "
           "ratios to MuJoCo RK4; Eslabón %s\n",
           m->name, m->nbodies - 1, duration, runs, ESLABON_VERSION);
    printf("# initial energy: ours %.10g J, MuJoCo %.10g J (relative difference %.1e)\n",
           rows[2 < nrows ? 2 : 1].energy0, rows[1].energy0,
           fabs(rows[1].energy0 - rows[2 < nrows ? 2 : 1].energy0) /
               fmax(1e-300, fabs(rows[1].energy0)));
    printf("| engine | h (ms) | steps | CPU (s) | energy drift (J) | time / MuJoCo RK4 | "
           "drift / MuJoCo RK4 |\n|---|---:|---:|---:|---:|---:|---:|\n");
    for (int c = 0; c < nrows; ++c) {
        if (rows[c].failed) {
            printf("| %s | %g | | failed: %s | | | |\n", rows[c].label, 1e3 * rows[c].h,
                   rows[c].message);
            continue;
        }
        printf("| %s | %g | %ld | %.3f | %.3e | %.3f | %.3g |\n", rows[c].label,
               1e3 * rows[c].h, rows[c].steps, rows[c].cpu, rows[c].drift,
               rows[c].cpu / rows[1].cpu, rows[c].drift / rows[1].drift);
    }
    g_free(cpu);
    g_free(rows);
    mj_deleteModel(mm[0]);
    mj_deleteModel(mm[1]);
    mbs_model_free(m);
    return 0;
#endif
}
