/* EslSensitivityController: one sensitivity computation (mbs_sensitivity.h) on a worker
 * thread, as EslRunController runs a simulation: stored in a project (its own connection,
 * EslSensitivityRecorder) and reported to the thread that created it. The running psi and
 * gradient and, where the method steps them (mbs_sensitivity_has_state_history), the
 * coordinates' sensitivities d q / d rho come as EslSensitivityRow at about ROWS times of the
 * run ("rows"); "finished" ends it. Stop takes effect before the next step (direct), run (fd)
 * or step of matrix-r's adjoint forward run, recomputed segment or backward sweep.
 *
 * GLib-level (GObject, no GTK).
 */
#ifndef ESL_SENSITIVITY_CONTROLLER_H
#define ESL_SENSITIVITY_CONTROLLER_H

#include <glib-object.h>

#include "esl-project.h"
#include "mbs_sensitivity.h"

G_BEGIN_DECLS

/* History rows per run (reported and stored), as for the samples of runs. */
#define ESL_SENSITIVITY_ROWS 2000

typedef struct {
    double time;
    double progress;  /* fraction of the computation done, in [0, 1] */
    /* psi and gradient are NULL in a row that only reports progress (fd, adjoint) */
    double *psi;      /* nobjectives */
    double *gradient; /* nobjectives x nparameters, row per objective */
    int n;            /* coordinates in state_sensitivity, 0 when the method has none */
    double *state_sensitivity; /* n x nparameters, column per parameter: d q / d rho */
    int npoint_outputs;        /* 3 per point of esl_sensitivity_controller_set_points; 0: none */
    double *point_sensitivity; /* npoint_outputs x nparameters, column per parameter: d r / d rho
                                  (x, y, z of each point, esl-point-sensitivity.h) */
} EslSensitivityRow;

void esl_sensitivity_row_free(EslSensitivityRow *row);

/* The coordinates whose sensitivities d q / d rho a run can plot, as indices into
 * EslSensitivityRow.state_sensitivity's columns with their names (appended to index and names,
 * which frees them): of relative coordinates every joint coordinate, of natural ones every
 * moving body's centre of mass (x, y, z). Returns how many. */
int esl_sensitivity_state_coordinates(const MbsModel *m, MbsCoordinateKind kind, GArray *index,
                                      GPtrArray *names);

#define ESL_TYPE_SENSITIVITY_CONTROLLER (esl_sensitivity_controller_get_type())
G_DECLARE_FINAL_TYPE(EslSensitivityController, esl_sensitivity_controller, ESL,
                     SENSITIVITY_CONTROLLER, GObject)

/* model must stay alive and unchanged until "finished"; objectives and parameters are indices
 * into it (copied). project_path may be NULL (nothing stored); model_id: the stored model. */
EslSensitivityController *esl_sensitivity_controller_new(
    const MbsModel *model, const char *model_name, const char *formulation,
    const MbsSettings *settings, MbsSensitivityMethod method, const int *objectives,
    int nobjectives, const int *parameters, int nparameters, const char *project_path,
    gint64 model_id);

/* The method's own options (MbsSensitivityProblem.method_options): options holds those of the
 * table mbs_sensitivity_settings gives for the formulation and method (options->options_table);
 * copied. Without a call, or with NULL, the method takes its defaults. Before start, which
 * refuses options of another table. */
void esl_sensitivity_controller_set_method_options(EslSensitivityController *self,
                                                   const MbsSettings *options);
/* The model's points (indices, copied) whose d r / d rho the rows carry and the project stores,
 * for methods that step d q / d rho (others: ignored). Before start, which refuses a parameter
 * the points cannot be differentiated by (esl_point_sensitivity_new). */
void esl_sensitivity_controller_set_points(EslSensitivityController *self, const int *points,
                                           int npoints);
gboolean esl_sensitivity_controller_start(EslSensitivityController *self, GError **error);
void esl_sensitivity_controller_stop(EslSensitivityController *self);
/* Wait for the worker to end (it is asked to stop first). */
void esl_sensitivity_controller_join(EslSensitivityController *self);
gboolean esl_sensitivity_controller_is_running(EslSensitivityController *self);
gint64 esl_sensitivity_controller_get_run_id(EslSensitivityController *self);
/* After "finished": status, message, and psi / gradient (NULL unless finished). */
EslRunStatus esl_sensitivity_controller_get_status(EslSensitivityController *self);
const char *esl_sensitivity_controller_get_message(EslSensitivityController *self);
const double *esl_sensitivity_controller_get_psi(EslSensitivityController *self);
const double *esl_sensitivity_controller_get_gradient(EslSensitivityController *self);

/* Signals (on the main context that created the controller):
 *   "rows"     (GPtrArray *rows) — new EslSensitivityRow*, owned by the array
 *   "finished" (int status, const char *message)
 */

G_END_DECLS

#endif
