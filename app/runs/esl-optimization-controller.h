/* EslOptimizationController: one design optimisation (esl-optimizer.h) on a worker thread, as
 * EslSensitivityController runs a sensitivity computation: every evaluation (psi, its gradient,
 * the parameters) is reported to the thread that created it ("evaluations", in batches every
 * 50 ms) and "finished" ends it. Stop takes effect before the next evaluation, or inside the
 * one under way (it then does not count). The window never waits for it.
 *
 * GLib-level (GObject, no GTK). */
#ifndef ESL_OPTIMIZATION_CONTROLLER_H
#define ESL_OPTIMIZATION_CONTROLLER_H

#include <glib-object.h>

#include "esl-optimizer.h"

G_BEGIN_DECLS

/* One evaluation as reported. */
typedef struct {
    int index;        /* 1, 2, ... */
    double psi;
    int n;            /* parameters */
    double *gradient; /* n */
    double *x;        /* n */
} EslOptimizationEvaluation;

void esl_optimization_evaluation_free(EslOptimizationEvaluation *evaluation);

#define ESL_TYPE_OPTIMIZATION_CONTROLLER (esl_optimization_controller_get_type())
G_DECLARE_FINAL_TYPE(EslOptimizationController, esl_optimization_controller, ESL,
                     OPTIMIZATION_CONTROLLER, GObject)

/* The problem is copied (its arrays and settings) but for the model, which must stay alive and
 * unchanged until "finished"; its evaluation callback and stop flag are the controller's own.
 * method_options: the method's own options (those of mbs_sensitivity_settings' table for the
 * formulation and method, copied), or NULL for its defaults. */
EslOptimizationController *esl_optimization_controller_new(const EslOptimizerProblem *problem,
                                                           const MbsSettings *method_options);
/* Store the optimisation in the project at project_path (its own connection; NULL: nowhere),
 * of the stored model model_id (0: none) named model_name (NULL: the model's name): a run of
 * the problem's formulation and settings with every evaluation and the result (schema 10).
 * Before start. A storage error does not stop the optimisation; the message says it. */
void esl_optimization_controller_set_project(EslOptimizationController *self,
                                             const char *project_path, gint64 model_id,
                                             const char *model_name);
gboolean esl_optimization_controller_start(EslOptimizationController *self, GError **error);
void esl_optimization_controller_stop(EslOptimizationController *self);
/* Wait for the worker to end (it is asked to stop first). */
void esl_optimization_controller_join(EslOptimizationController *self);
gboolean esl_optimization_controller_is_running(EslOptimizationController *self);
/* After "finished": the result (x and gradient have the problem's nparameters numbers), and
 * its message with what could not be stored (NULL: nothing to say). */
const EslOptimizerResult *esl_optimization_controller_get_result(EslOptimizationController *self);
const char *esl_optimization_controller_get_message(EslOptimizationController *self);
/* The stored run (0 until it is stored, or when it is not). */
gint64 esl_optimization_controller_get_run_id(EslOptimizationController *self);

/* Signals (on the main context that created the controller):
 *   "evaluations" (GPtrArray *evaluations) — new EslOptimizationEvaluation*, owned by the array
 *   "finished"    (int status, const char *message) — an EslOptimizerStatus; message NULL
 *                 unless it failed or was not stored
 */

G_END_DECLS

#endif
