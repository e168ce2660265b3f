/* EslSensitivityRecorder: stores a sensitivity computation (mbs_sensitivity.h) in a project:
 * its running psi and gradient as they come (MbsSensitivityHistory), committed in batches so a
 * killed run keeps what was reported, then psi, the gradient and the run's end. Used by
 * `eslabon-cli sensitivity --project`; GLib-only, one thread.
 */
#ifndef ESL_SENSITIVITY_RECORDER_H
#define ESL_SENSITIVITY_RECORDER_H

#include <glib.h>

#include "esl-project.h"
#include "mbs_sensitivity.h"

G_BEGIN_DECLS

typedef struct _EslSensitivityRecorder EslSensitivityRecorder;

/* What a sensitivity run differentiates, and what it stores besides. */
typedef struct {
    MbsSensitivityMethod method;
    /* the method's own options (those of mbs_sensitivity_settings' table for the run's
     * formulation and the method, options_table set; NULL: the table's defaults, as the engine
     * takes them), stored as JSON */
    const MbsSettings *method_options;
    const int *objectives; /* indices into the model's objectives */
    int nobjectives;
    const int *parameters; /* into its parameters */
    int nparameters;
    const int *points;     /* into its points: those whose d r / d rho are stored (may be 0) */
    int npoints;
} EslSensitivityChoice;

/* Begin a run of request in project and mark it as a sensitivity run of model for choice; the
 * run id, or 0 with error (a run refused as a sensitivity run is ended as failed). */
gint64 esl_sensitivity_recorder_begin(EslProject *project, const EslRunRequest *request,
                                      const MbsModel *model, const EslSensitivityChoice *choice,
                                      GError **error);

/* The method's own options as stored (a JSON object keyed by its table's names; "{}" for a
 * method without a table): those given, or the table's defaults, the ones the engine takes;
 * NULL with error when those given are another table's. The optimisations store theirs so too. */
char *esl_sensitivity_method_options_json(const char *formulation, MbsSensitivityMethod method,
                                          const MbsSettings *given, GError **error);

/* The method's own options a stored sensitivity run of formulation ran with, into options
 * (mbs_settings_defaults first): its table's defaults overwritten by what is stored (the
 * defaults alone when run->method_options is NULL, a run stored before schema 9). Returns
 * FALSE with error when the stored text does not read; options->options_table is the table
 * (NULL when the method has none). */
gboolean esl_sensitivity_run_method_options(const EslSensitivityRun *run,
                                            const char *formulation, MbsSettings *options,
                                            GError **error);

/* run_id: a running run of project (both borrowed) already marked with
 * esl_project_begin_sensitivity for nobjectives x nparameters. */
EslSensitivityRecorder *esl_sensitivity_recorder_new(EslProject *project, gint64 run_id,
                                                     int nobjectives, int nparameters);
void esl_sensitivity_recorder_free(EslSensitivityRecorder *recorder);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(EslSensitivityRecorder, esl_sensitivity_recorder_free)

/* An MbsSensitivityHistory: data is the recorder. After a storage error it stores nothing more
 * (the error is returned by esl_sensitivity_recorder_finish). */
void esl_sensitivity_recorder_history(void *data, double time, const double *psi,
                                      const double *gradient);

/* Store the rows still buffered, psi and gradient (NULL when the computation failed), and end
 * the run with status, message, summary (JSON object text or NULL) and wall time. */
/* An MbsSensitivityStateHistory: d q / d rho of the row just recorded (same time), stored with
 * it; states of rows the caller did not record are ignored. */
void esl_sensitivity_recorder_state(void *data, double time, int n, const double *q,
                                    const double *sq);
/* d r / d rho of the run's points (esl-point-sensitivity.h: noutputs = 3 per point, x
 * nparameters, column per parameter) for the row just recorded, stored with it as the states
 * are. */
void esl_sensitivity_recorder_points(EslSensitivityRecorder *recorder, double time,
                                     int noutputs, const double *dr);
gboolean esl_sensitivity_recorder_finish(EslSensitivityRecorder *recorder, EslRunStatus status,
                                         const double *psi, const double *gradient,
                                         const char *message, const char *summary_json,
                                         double wall_time, GError **error);

G_END_DECLS

#endif
