/* EslRunController: one simulation run on a worker thread.
 *
 * The worker owns the MbsFormulation (created, stepped by the run driver mbs_run_* and freed
 * on the worker); the driver cuts the step where a formulation fails recoverably. Every
 * sample_every steps it copies the monitors, body poses and joint violations into an
 * EslRunSample, stores it in the project (its own connection, batched transactions) and pushes
 * a copy to the UI thread through a GAsyncQueue; an idle callback on the main context that
 * created the controller drains the queue and emits "samples" and, at the end, "finished".
 * Pause, resume and stop take effect before the next step.
 *
 * GLib-level (GObject, no GTK).
 */
#ifndef ESL_RUN_CONTROLLER_H
#define ESL_RUN_CONTROLLER_H

#include <glib-object.h>

#include "esl-project.h"
#include "esl-run-recorder.h"
#include "mbs_formulation.h"

G_BEGIN_DECLS

/* EslRunSample: esl-run-recorder.h */

#define ESL_TYPE_RUN_CONTROLLER (esl_run_controller_get_type())
G_DECLARE_FINAL_TYPE(EslRunController, esl_run_controller, ESL, RUN_CONTROLLER, GObject)

/* model must stay alive and unchanged until "finished" has been emitted. project_path may be
 * NULL (nothing stored); model_id is the stored model's id or 0. settings->threads = 0 means
 * every core but one (the UI's); the run records the number used. */
EslRunController *esl_run_controller_new(const MbsModel *model, const char *model_name,
                                         const char *formulation, const MbsSettings *settings,
                                         const char *project_path, gint64 model_id);

/* Record one sample every this many steps (default: about 2000 samples per run). */
void esl_run_controller_set_sample_every(EslRunController *self, int steps);

/* Real-time pacing: the worker waits after each step so that simulated time advances at most
 * `speed` simulated seconds per wall second (a model that computes faster can be watched moving
 * while it is computed); 0: as fast as it computes (default). Any time, from the main thread. */
void esl_run_controller_set_pacing(EslRunController *self, double speed);

gboolean esl_run_controller_start(EslRunController *self, GError **error);
void esl_run_controller_pause(EslRunController *self);
void esl_run_controller_resume(EslRunController *self);
void esl_run_controller_stop(EslRunController *self);
/* Wait for the worker to end (it is asked to stop first). */
void esl_run_controller_join(EslRunController *self);

gboolean esl_run_controller_is_running(EslRunController *self);
gboolean esl_run_controller_is_paused(EslRunController *self);
/* Id of the run in the project (0 when not stored or not yet created). */
gint64 esl_run_controller_get_run_id(EslRunController *self);
/* Simulated time reached, steps done and wall time spent stepping (s), read atomically. */
void esl_run_controller_progress(EslRunController *self, double *sim_time, long *steps,
                                 double *wall_time);
/* Final status and message, valid after "finished". */
EslRunStatus esl_run_controller_get_status(EslRunController *self);
const char *esl_run_controller_get_message(EslRunController *self);

/* Signals (emitted on the main context that created the controller):
 *   "samples"  (GPtrArray *samples)  — new EslRunSample*, owned by the array; take copies
 *   "finished" (int status, const char *message)
 */

G_END_DECLS

#endif
