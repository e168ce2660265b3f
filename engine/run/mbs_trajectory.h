/* Point trajectories of a run, sampled on a fixed grid, to compare formulations and steps
 * (eslabon-cli compare, tests). */
#ifndef MBS_TRAJECTORY_H
#define MBS_TRAJECTORY_H

#include "mbs_run.h"

typedef struct {
    int npoints;       /* model points recorded */
    int nsamples;      /* samples taken (t = 0 included) */
    double *time;      /* nsamples */
    double *xyz;       /* nsamples * npoints * 3 */
    MbsRunSummary summary;
    double wall_seconds;
    int failed;        /* the run stopped early: samples up to the failure */
    MbsError error;
} MbsTrajectory;

/* Run `formulation` for s->duration, recording the given model points every `every` steps.
 * Returns 0, or the status of a failed initialisation (then nothing is recorded). A step failure
 * is reported in t->failed / t->error with the samples taken so far. */
int mbs_trajectory_record(const MbsModel *m, const char *formulation, const MbsSettings *s,
                          int every, const int *points, int npoints, MbsTrajectory *t,
                          MbsError *err);
void mbs_trajectory_free(MbsTrajectory *t);

/* Max over common samples and points of |a - b| (samples matched by time within 1e-9 s).
 * Returns -1 when no sample time is shared. */
double mbs_trajectory_max_deviation(const MbsTrajectory *a, const MbsTrajectory *b);

#endif
