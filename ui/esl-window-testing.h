/* EslWindow's probes: what the tests drive and read (tests/ui/test_window_*.c), beside what a
 * user does with the actions. The application itself needs only esl-window.h. */
#ifndef ESL_WINDOW_TESTING_H
#define ESL_WINDOW_TESTING_H

#include "esl-window.h"

G_BEGIN_DECLS

/* The progress area's text: a live run's progress, or a stored run's (tests read it). */
const char *esl_window_get_progress_text(EslWindow *self);
void esl_window_set_duration(EslWindow *self, double duration);
/* Choose the sensitivity method of the next runs by name ("none" or NULL: plain runs, every
 * objective and free parameter checked otherwise); FALSE when the formulation lacks it. */
gboolean esl_window_set_sensitivity_method(EslWindow *self, const char *name);
/* Points in the sensitivity plots: running gradients and d q / d rho (for tests). */
int esl_window_sensitivity_points(EslWindow *self, int *state_points);
/* Set the number at path of the model file (see app/esl-model-edit.h), rebuild the model and
 * re-assemble it with the selected formulation, as the inspector does; on failure nothing
 * changes. */
gboolean esl_window_edit_model(EslWindow *self, const char *path, double value, GError **error);
/* Write the 3D view as it is now to a PNG file. */
gboolean esl_window_export_view(EslWindow *self, const char *path, GError **error);
/* Write the positions and velocities of model points over the run shown to a CSV file
 * (app/esl-points.h: velocities are differences of the stored positions). points: "BODY:POINT,..."
 * or NULL for the selected body's points (every moving body's when none is selected). */
gboolean esl_window_export_points(EslWindow *self, const char *points, const char *path,
                                  GError **error);
/* Plot a variable of the run shown ("BODY:POINT:x" ... "JOINT:violation", app/esl-variables.h)
 * in the Variables plot; FALSE with error for a name that is not one, or no run shown. */
gboolean esl_window_plot_variable(EslWindow *self, const char *name, GError **error);
/* What clicking the legend's worst joint does: select that joint, frame it in the 3D view and
 * plot its violation over the run; FALSE when no joint is violated in the state shown. */
gboolean esl_window_go_to_worst_joint(EslWindow *self);
/* The joint the legend names as the most violated in the state shown, or NULL. */
const char *esl_window_get_worst_joint(EslWindow *self);
/* The joint violated most over the whole run shown (NULL: none), its violation and when. */
const char *esl_window_get_worst_over_run(EslWindow *self, double *value, double *time);
/* What clicking the legend's second link does: show the instant of that largest violation
 * and go to its joint as esl_window_go_to_worst_joint; FALSE when there is none. */
gboolean esl_window_go_to_worst_over_run(EslWindow *self);
/* Select a body in the model list and the 3D view (its trail is drawn during playback). */
void esl_window_select_body(EslWindow *self, int body);
/* Move the playback to this time (clamped to the shown history). */
void esl_window_seek(EslWindow *self, double time);
/* Show the stored sample after (direction > 0) or before (< 0) the one shown, pausing the
 * playback; FALSE when there is none (or a run goes on). */
gboolean esl_window_step_sample(EslWindow *self, int direction);
/* Time shown by the playback slider. */
double esl_window_get_time(EslWindow *self);
/* Playback speed (simulated seconds per second); FALSE when the speed menu does not offer it. */
gboolean esl_window_set_playback_speed(EslWindow *self, double speed);
/* The largest joint violation of the state shown, as the colour legend marks it (NAN: none). */
double esl_window_get_largest_violation(EslWindow *self);
/* Name a stored run (NULL or blank: no name) / delete stored runs (gint64 ids) and give their
 * space back; the list and the project's size are refreshed. */
gboolean esl_window_rename_run(EslWindow *self, gint64 run_id, const char *name, GError **error);
gboolean esl_window_delete_runs(EslWindow *self, GArray *ids, GError **error);
/* The project size as the runs panel shows it ("" when no project is open). */
const char *esl_window_get_project_size_text(EslWindow *self);
/* The page shown: "start" (the gallery) or "workbench". */
const char *esl_window_get_page(EslWindow *self);
/* The question shown, or NULL: closing during a run (GTK_RESPONSE_ACCEPT stops the run and
 * closes) or leaving unsaved model edits (ACCEPT saves, REJECT discards); CANCEL cancels. */
GtkWidget *esl_window_get_question(EslWindow *self);
/* The renderer's error, or NULL when the 3D view works. */
const char *esl_window_get_viewport_error(EslWindow *self);
/* The tyre curves (win.tyre-curves) of wheel force (a pac2002 one; -1: the one selected in the
 * model list, else the bundled HMMWV tyre file): the EslTyreDialog shown. */
GtkWidget *esl_window_show_tyre_curves(EslWindow *self, int force);
/* The error shown in full under the header bar (esl_window_show_status), or NULL when none is
 * shown (dismissed, or a later message that is not an error). */
const char *esl_window_get_error_banner(EslWindow *self);
/* File ▸ Export Video… (win.export-video): the EslVideoDialog for the run shown, presented;
 * NULL with error when no finished run of the model is shown. */
GtkWidget *esl_window_show_video_export(EslWindow *self, GError **error);

/* Building (esl-window-assemble.c; the actions win.new-model, win.add-body, win.add-joint,
 * win.add-force, win.set-driver, win.set-initial, win.set-parameter, win.set-gravity,
 * win.remove-element take the a{sv} of app/esl-model-build.h; win.undo, win.redo;
 * win.save-model-to (s) saves to a path): the model file's text as edited, */
const char *esl_window_get_model_json(EslWindow *self);
/* whether its check (load, assemble, rank on a worker) is under way, */
gboolean esl_window_is_checking(EslWindow *self);
/* why the text does not load or assemble (NULL: it does), */
const char *esl_window_get_check_error(EslWindow *self);
/* and its degrees of freedom and redundant constraints as `eslabon-cli info` counts them (-1:
 * unknown). */
void esl_window_get_mobility(EslWindow *self, int *dof, int *redundant);

G_END_DECLS

#endif
