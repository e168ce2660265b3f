/* EslOptimizationRecorder: stores a design optimisation (esl-optimizer.h) in a project (schema
 * 10): the run and what is minimised over what, from where; every evaluation as it comes (one
 * transaction each: a killed optimisation keeps every evaluation done); then the result and
 * the run's end. The one path of `eslabon-cli optimize --project` and of the window's
 * EslOptimizationController. GLib-only; one thread at a time.
 */
#ifndef ESL_OPTIMIZATION_RECORDER_H
#define ESL_OPTIMIZATION_RECORDER_H

#include <glib.h>

#include "esl-optimizer.h"
#include "esl-project.h"

G_BEGIN_DECLS

typedef struct _EslOptimizationRecorder EslOptimizationRecorder;

/* Begin a run in project (borrowed; it must outlive the recorder) of the stored model model_id
 * (0: none) named model_name, with the problem's formulation and settings, marked as an
 * optimisation of problem: its objective, parameters with their bounds (which must be finite)
 * and start (esl_optimizer_check's), algorithm, limits and gradient method with its own options
 * (method_options: those of mbs_sensitivity_settings' table, or NULL for its defaults). NULL
 * with error when the problem is refused or the project refuses it (a run refused as an
 * optimisation is ended as failed). */
EslOptimizationRecorder *esl_optimization_recorder_begin(EslProject *project, gint64 model_id,
                                                         const char *model_name,
                                                         const EslOptimizerProblem *problem,
                                                         const MbsSettings *method_options,
                                                         GError **error);
void esl_optimization_recorder_free(EslOptimizationRecorder *recorder);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(EslOptimizationRecorder, esl_optimization_recorder_free)

gint64 esl_optimization_recorder_run_id(const EslOptimizationRecorder *recorder);

/* Store one evaluation (an EslOptimizerEvaluation's arguments). After a storage error it stores
 * nothing more; esl_optimization_recorder_finish returns the error. */
void esl_optimization_recorder_evaluation(EslOptimizationRecorder *recorder, double psi,
                                          const double *gradient, const double *x);

/* Store how it ended and the best point, and end the run: finished when it converged or reached
 * the evaluation limit, stopped, or failed with the result's message; wall time in seconds.
 * FALSE with the first storage error, the run then ended as failed with it. */
gboolean esl_optimization_recorder_finish(EslOptimizationRecorder *recorder,
                                          const EslOptimizerResult *result, double wall_time,
                                          GError **error);

G_END_DECLS

#endif
