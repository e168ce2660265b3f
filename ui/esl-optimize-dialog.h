/* EslOptimizeDialog: design optimisation in the window (Project ▸ Optimise Design…, or the
 * sensitivity chooser's Optimise…). The user chooses one of the model's objectives, ticks some
 * of its free parameters and gives their bounds (by default the value ± 50 %), the algorithm
 * (esl-optimizer.h's table), the gradient method (those the formulation has:
 * mbs_sensitivity_available), the most evaluations and the relative tolerance on the parameters
 * (xtol, stored with the run and shown again with it); Start runs the optimisation on a worker
 * (EslOptimizationController) with the run panel's formulation and settings, and every
 * evaluation comes to a plot of psi and a table (evaluation, psi, |grad psi|, parameters); the
 * status line says how it ended (converged, evaluation limit, stopped, or the engine's
 * message). Apply to Model hands the window the model's text with the ticked parameters set to
 * the best point ("apply"), which commits it as one undoable edit; nothing reaches the model
 * before. The dialog optimises its own copy of the model's text, so the window's edits
 * meanwhile make Apply refused rather than mixed in. */
#ifndef ESL_OPTIMIZE_DIALOG_H
#define ESL_OPTIMIZE_DIALOG_H

#include <gtk/gtk.h>

#include "esl-optimizer.h"
#include "esl-project.h"

G_BEGIN_DECLS

#define ESL_TYPE_OPTIMIZE_DIALOG (esl_optimize_dialog_get_type())
G_DECLARE_FINAL_TYPE(EslOptimizeDialog, esl_optimize_dialog, ESL, OPTIMIZE_DIALOG, GtkWindow)

/* A modal dialog over parent. */
EslOptimizeDialog *esl_optimize_dialog_new(GtkWindow *parent);

/* The model file to optimise (json; origin names it in messages) and how each evaluation runs
 * it: the formulation (by name), its settings and the sensitivity methods' own options
 * (options_table set; used when the method chosen has that table; NULL: none). Parameters
 * that stay keep their ticks and bounds. Ignored while an optimisation runs (it keeps its
 * model); FALSE, with the loader's message shown, when json does not load. */
gboolean esl_optimize_dialog_set_model(EslOptimizeDialog *self, const char *json,
                                       const char *origin, const char *formulation,
                                       const MbsSettings *settings,
                                       const MbsSettings *method_options);

/* Store each optimisation in the project at project_path (NULL: nowhere), of the stored model
 * model_id (0: none); app/esl-optimization-controller.h. */
void esl_optimize_dialog_set_project(EslOptimizeDialog *self, const char *project_path,
                                     gint64 model_id);
/* Show a stored optimisation (run run_id, its message from the run) as one just finished: its
 * choices, its evaluations on the plot and in the table, how it ended. Apply sets its best
 * point when ran_on (the model text it ran on) is the dialog's model text. Ignored while an
 * optimisation runs. */
void esl_optimize_dialog_show_stored(EslOptimizeDialog *self, gint64 run_id,
                                     const EslOptimizationRun *run, const char *message,
                                     const char *ran_on);
/* The run shown by esl_optimize_dialog_show_stored (0: none, or an optimisation started since). */
gint64 esl_optimize_dialog_get_stored_run(EslOptimizeDialog *self);
/* How a stored optimisation ended, as the dialog's status line says it ("Converged after 7
 * evaluations: ψ = 2.8694642e-18 at Ls1 = 2.431923573, Ls2 = 1.844868887."); message: its
 * run's. */
char *esl_optimize_dialog_stored_result_text(const EslOptimizationRun *run, const char *message);
gboolean esl_optimize_dialog_is_running(EslOptimizeDialog *self);
/* The result of the optimisation shown once it has finished (NULL before, or while it runs),
 * with the names of the parameters it varied (n of them). */
const EslOptimizerResult *esl_optimize_dialog_get_result(EslOptimizeDialog *self,
                                                         const char *const **parameters, int *n);
/* The text the optimisation ran on (the model's, as given or last applied). */
const char *esl_optimize_dialog_get_base_json(EslOptimizeDialog *self);

/* The widgets a test drives (NULL when there is none):
 *   parameter -1: "objective", "algorithm", "method" (drop-downs), "max-evaluations" (spin
 *   button), "xtol" (entry), "start", "stop", "apply" (buttons), "status" (label), "plot"
 *   (EslPlot), "table" (grid: a heading row, then one row per evaluation);
 *   parameter p (index into the model's parameters, free ones only): "use" (check button),
 *   "lower", "upper" (entries), "value" (label). */
GtkWidget *esl_optimize_dialog_get_control(EslOptimizeDialog *self, int parameter,
                                           const char *which);

/* Signals:
 *   "apply" (const char *base_json, const char *json, gpointer GError **) -> gboolean: make
 *   json, edited from base_json, the model's text; FALSE with the error (shown in the dialog)
 *   when the window cannot (a run goes on, the model changed meanwhile).
 *   "finished" (int status): an optimisation ended (an EslOptimizerStatus). */

G_END_DECLS

#endif
