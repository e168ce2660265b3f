#include "mbs_trajectory.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mbs_clock.h"

typedef struct {
    MbsTrajectory *t;
    const int *points;
    int every;
} Recorder;

/* Observer: a sample on t = 0 and every `every` steps (not at an end off that grid). */
static int take(void *data, const MbsRun *run)
{
    Recorder *rec = data;
    MbsTrajectory *t = rec->t;
    const int *points = rec->points;
    const MbsFormulation *f = mbs_run_formulation(run);
    if (mbs_run_grid_steps(run) % rec->every != 0)
        return 0;
    double *x = &t->xyz[(size_t)t->nsamples * t->npoints * 3];
    for (int i = 0; i < t->npoints; ++i)
        mbs_formulation_point_position(f, points[i], &x[3 * i]);
    t->time[t->nsamples++] = f->time;
    return 0;
}

int mbs_trajectory_record(const MbsModel *m, const char *formulation, const MbsSettings *s,
                          int every, const int *points, int npoints, MbsTrajectory *t,
                          MbsError *err)
{
    memset(t, 0, sizeof *t);
    if (every < 1)
        every = 1;
    long steps = mbs_run_step_count(s->duration, s->step);
    long cap = steps / every + 2;
    t->npoints = npoints;
    t->time = malloc(sizeof(double) * (size_t)cap);
    t->xyz = malloc(sizeof(double) * (size_t)cap * (size_t)(npoints > 0 ? npoints : 1) * 3);
    if (!t->time || !t->xyz) {
        mbs_trajectory_free(t);
        return mbs_error_set(err, MBS_FATAL, "out of memory for %ld samples", cap);
    }
    double t0 = mbs_clock_now();
    MbsFormulation *f = mbs_formulation_new(formulation, m, s, err);
    if (!f) {
        mbs_trajectory_free(t);
        return err ? (err->status ? err->status : MBS_FATAL) : MBS_FATAL;
    }
    Recorder rec = {t, points, every};
    MbsRunObserver observer = {.sample = take, .data = &rec, .every = every};
    MbsRun *run = mbs_run_new(f, NULL, &observer, err);
    if (!run) {
        mbs_formulation_free(f);
        mbs_trajectory_free(t);
        return MBS_FATAL;
    }
    if (mbs_run_advance(run, s->duration) == MBS_RUN_FAILED) {
        t->failed = 1;
        t->error = *mbs_run_error(run);
    }
    t->summary = *mbs_run_summary(run);
    t->wall_seconds = mbs_clock_now() - t0;
    mbs_run_free(run);
    mbs_formulation_free(f);
    return 0;
}

void mbs_trajectory_free(MbsTrajectory *t)
{
    free(t->time);
    free(t->xyz);
    t->time = t->xyz = NULL;
    t->nsamples = 0;
}

double mbs_trajectory_max_deviation(const MbsTrajectory *a, const MbsTrajectory *b)
{
    double worst = -1.0;
    int j = 0;
    for (int i = 0; i < a->nsamples; ++i) {
        while (j < b->nsamples && b->time[j] < a->time[i] - 1e-9)
            ++j;
        if (j >= b->nsamples)
            break;
        if (fabs(b->time[j] - a->time[i]) > 1e-9)
            continue;
        const double *x = &a->xyz[(size_t)i * a->npoints * 3];
        const double *y = &b->xyz[(size_t)j * b->npoints * 3];
        for (int p = 0; p < a->npoints && p < b->npoints; ++p) {
            double dx = x[3 * p] - y[3 * p], dy = x[3 * p + 1] - y[3 * p + 1],
                   dz = x[3 * p + 2] - y[3 * p + 2];
            worst = fmax(worst, sqrt(dx * dx + dy * dy + dz * dz));
        }
    }
    return worst;
}
