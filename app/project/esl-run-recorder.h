/* EslRunRecorder: turns the run driver's observations (mbs_run_*) into what the application
 * keeps of a run — samples (monitors, body poses, joint violations), the CSV history, the
 * project's sample rows — and writes the one run summary (JSON keys of docs/cli.md). Used by
 * `eslabon-cli run` and by the run controller's worker, so both store the same things.
 *
 * GLib-only. One recorder per run, used by one thread.
 */
#ifndef ESL_RUN_RECORDER_H
#define ESL_RUN_RECORDER_H

#include <glib.h>
#include <stdio.h>

#include "esl-project.h"
#include "esl-variables.h"
#include "mbs_run.h"

G_BEGIN_DECLS

/* One recorded instant of a run: copies, owned by the sample. */
typedef struct {
    MbsMonitors monitors;
    long step;          /* grid steps done */
    int nbodies, njoints;
    double *poses;      /* nbodies * 12: R row-major, then p */
    double *violations; /* njoints */
} EslRunSample;

EslRunSample *esl_run_sample_new(int nbodies, int njoints);
EslRunSample *esl_run_sample_copy(const EslRunSample *sample);
void esl_run_sample_free(EslRunSample *sample);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(EslRunSample, esl_run_sample_free)

typedef struct _EslRunRecorder EslRunRecorder;

/* Receives every sample taken (transfer full). */
typedef void (*EslRunSampleFunc)(EslRunSample *sample, gpointer data);

EslRunRecorder *esl_run_recorder_new(const MbsModel *model);
void esl_run_recorder_free(EslRunRecorder *recorder);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(EslRunRecorder, esl_run_recorder_free)

/* Take a sample at t = 0, every `every` grid steps and at grid step `last` (default: every
 * grid step). */
void esl_run_recorder_set_sample_every(EslRunRecorder *recorder, long every, long last);
/* Write the history (a header now, then a row at t = 0 and one per grid step) to csv
 * (borrowed). */
void esl_run_recorder_set_csv(EslRunRecorder *recorder, FILE *csv);
/* Before set_csv: add to each CSV row the position and velocity of these model points (six
 * columns each, esl-points.h), and write a row every `every` grid steps only (1: every one;
 * the last grid step `last` of set_sample_every always has one). */
void esl_run_recorder_set_csv_points(EslRunRecorder *recorder, const int *points, int npoints,
                                     long every);
/* Before set_csv: add after the point columns one column per variable (esl-variables.h, named
 * as esl_variable_name), computed from the formulation's exact state at every CSV row. */
void esl_run_recorder_set_csv_variables(EslRunRecorder *recorder, const EslVariable *variables,
                                        int nvariables);
/* Store the samples in run_id of project (borrowed), in batches. */
void esl_run_recorder_set_project(EslRunRecorder *recorder, EslProject *project, gint64 run_id);
void esl_run_recorder_set_sample_func(EslRunRecorder *recorder, EslRunSampleFunc func,
                                      gpointer data);

/* Record the run's current grid time; call it from the run's observer on every grid step. */
void esl_run_recorder_observe(EslRunRecorder *recorder, const MbsRun *run);
/* An MbsRunObserver.sample that only records (data: the recorder). */
int esl_run_recorder_sample(void *recorder, const MbsRun *run);

/* An MbsRunObserver.internal_step / MbsInternalStepFunc (data: the recorder): keeps the
 * step-size history of formulations with their own steps for the project (stored with the
 * samples; nothing is kept without a project). */
void esl_run_recorder_internal_step(void *recorder, double t, double h, int order);

/* Store what is buffered. FALSE when a storage error happened (then storing stopped). */
gboolean esl_run_recorder_flush(EslRunRecorder *recorder);
/* The first storage error, or NULL. */
const char *esl_run_recorder_error(EslRunRecorder *recorder);
/* Store what is buffered and close the run in the project (esl_project_finish_run) with status,
 * message and summary. When the samples or the summary cannot be stored, the run is closed as
 * failed saying so, never left "running", and FALSE is returned with error naming the storage
 * problem. */
gboolean esl_run_recorder_finish(EslRunRecorder *recorder, EslRunStatus status,
                                 const char *message, const char *summary_json,
                                 double wall_time, GError **error);

/* The run summary as one JSON object (keys: docs/cli.md). model_path may be NULL (then "model"
 * is the model name); status is
 * "finished", "stopped" or "failed"; message NULL unless stopped or failed. */
typedef struct {
    const char *model_path;
    const char *model_name;
    const char *formulation;
    const char *status;
    const char *message;
    double wall_seconds;
} EslRunSummaryInfo;

char *esl_run_summary_json(const EslRunSummaryInfo *info, const MbsRun *run, gboolean pretty);
/* The run's warning (mbs_run_summary_warning: the energy error, issue 28), or NULL: stored as
 * the message of a run that finished, printed by the CLI. Free with g_free. */
char *esl_run_warning(const MbsRun *run);

G_END_DECLS

#endif
