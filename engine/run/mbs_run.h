/* The run driver: the one loop that advances a formulation (the command line, the run
 * controller, the benchmarks, the renderer and mbs_trajectory all use it).
 *
 * A run steps on the output grid t_k = k h (h = settings.step) and lands on every grid time.
 * When a step fails with a recoverable status (Newton did not converge, a singular matrix) the
 * driver restores the state of the step start (mbs_formulation_restore) and halves the step,
 * down to h / 2^max_halvings; after each successful step it doubles the step again (when the
 * position inside the interval allows it) until it is back at h. Each cut is reported to the
 * observer. A fatal status, or a recoverable one at the smallest step, ends the run with that
 * error. A run that never fails takes exactly the steps of h it took before the driver existed.
 *
 * The summary (MbsRunSummary) is the one every front end reports, with the keys of
 * docs/cli.md. No allocation after mbs_run_new: a driver step, a cut included, allocates
 * nothing (one exception: restoring a matrix-r checkpoint whose partition differs from the
 * current one with sparse algebra re-analyses the block with KLU).
 */
#ifndef MBS_RUN_H
#define MBS_RUN_H

#include "mbs_formulation.h"

/* Default largest number of halvings: the smallest step is h / 2^6 = h / 64. */
#define MBS_RUN_MAX_HALVINGS 6

typedef struct {
    long steps;                  /* accepted formulation steps (substeps of a cut step included) */
    double energy0;              /* total energy at t = 0, J */
    double energy_drift_max;     /* max |E(t) - E(0)|, J */
    double kinetic_energy_max;   /* J */
    double constraint_position_max, constraint_velocity_max, constraint_acceleration_max;
    long newton_iterations, jacobian_evaluations;
    double time_dynamics, time_jacobian, time_factorization, time_projection, time_steps;
    long step_cuts;              /* times the driver halved the step after a recoverable failure */
    long steps_rejected;         /* failed attempts (each followed by a cut or the end) */
    double step_min;             /* smallest step taken, s */
    /* The energy error against the system's energy (issue 28): energy_scale is the largest
     * kinetic + |gravity potential - its initial value| + |elastic| + |non-conservative work|
     * of the run, J; energy_warning_time the first time |E - E(0)| passed
     * MBS_RUN_ENERGY_WARNING of the scale so far (-1: never). */
    double gravity0, energy_scale, energy_warning_time;
} MbsRunSummary;

/* The fraction of the system's energy above which an energy error is warned about: bundled
 * models at their default settings stay below 0.07 (docs/benchmarks.md, "Energy warning"). */
#define MBS_RUN_ENERGY_WARNING 0.1

void mbs_run_summary_init(MbsRunSummary *s, const MbsFormulation *f);
/* Accumulate the monitors of one accepted step of size h. */
void mbs_run_summary_add(MbsRunSummary *s, const MbsFormulation *f, double h);
/* The energy warning of a summary as an English sentence in buf (0 when there is none). */
int mbs_run_summary_warning(const MbsRunSummary *s, char *buf, size_t size);
/* Number of steps of size h that cover duration (round-off tolerant: the last grid time at or
 * before duration + 1e-9 h). */
long mbs_run_step_count(double duration, double h);

typedef struct MbsRun MbsRun;

/* A step cut: at `time` a step of old_step failed with `message`; the driver retries with
 * new_step. */
typedef struct {
    double time, old_step, new_step;
    const char *message;
} MbsRunCut;

/* Observer (every member optional). sample is called at t = 0 (the first mbs_run_advance), on
 * every `every`-th grid time and on the last grid time of each mbs_run_advance; it returns
 * nonzero to stop the run (a pause is a sample that waits). cut is called for every cut.
 * internal_step is called for every accepted internal step of a formulation with its own
 * steps (MbsFormulationClass.own_steps: the step-size history); the run installs it in the
 * formulation (f->internal_step) until mbs_run_free. */
typedef struct {
    int (*sample)(void *data, const MbsRun *run);
    void (*cut)(void *data, const MbsRun *run, const MbsRunCut *cut);
    MbsInternalStepFunc internal_step;
    void *data;
    int every; /* grid steps between samples; < 1 means 1 */
} MbsRunObserver;

typedef struct {
    int max_halvings; /* smallest step h / 2^max_halvings; 0 disables cutting */
} MbsRunOptions;

void mbs_run_options_defaults(MbsRunOptions *o);

typedef enum {
    MBS_RUN_REACHED, /* the requested time was reached */
    MBS_RUN_STOPPED, /* the observer stopped the run */
    MBS_RUN_FAILED,  /* a step failed for good: mbs_run_error() */
} MbsRunOutcome;

/* A run over f (borrowed: f must outlive the run). options and observer may be NULL. Returns
 * NULL with err filled when out of memory. */
MbsRun *mbs_run_new(MbsFormulation *f, const MbsRunOptions *options,
                    const MbsRunObserver *observer, MbsError *err);
void mbs_run_free(MbsRun *run);

/* Step to the last grid time at or before t_end (within 1e-9 h; none once failed or stopped). */
MbsRunOutcome mbs_run_advance(MbsRun *run, double t_end);

MbsFormulation *mbs_run_formulation(const MbsRun *run);
const MbsRunSummary *mbs_run_summary(const MbsRun *run);
/* Grid steps completed (t = grid_steps h when the run has not failed inside a step). */
long mbs_run_grid_steps(const MbsRun *run);
/* The step size the driver is using now (h, or a cut one). */
double mbs_run_current_step(const MbsRun *run);
const MbsError *mbs_run_error(const MbsRun *run);

#endif
