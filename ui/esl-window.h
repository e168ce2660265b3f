/* EslWindow: the workbench window (start page with the model gallery, model tree and inspector,
 * 3D viewport with playback, live plots, run panel, runs of the project). */
#ifndef ESL_WINDOW_H
#define ESL_WINDOW_H

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define ESL_TYPE_WINDOW (esl_window_get_type())
G_DECLARE_FINAL_TYPE(EslWindow, esl_window, ESL, WINDOW, GtkApplicationWindow)

EslWindow *esl_window_new(GtkApplication *app);

/* Load a model file (path or bundled name) and show the workbench. */
gboolean esl_window_load_model(EslWindow *self, const char *path_or_name, GError **error);
/* Use this project file (created when missing). */
gboolean esl_window_open_project(EslWindow *self, const char *path, gboolean create,
                                 GError **error);
const char *esl_window_get_project_path(EslWindow *self);
/* Select a formulation of the registry by name; FALSE when there is none of that name. */
gboolean esl_window_set_formulation(EslWindow *self, const char *name);

/* The Studies window (win.studies, ui/esl-study-view.h) on the window's project: the
 * EslStudyView shown; a case's run it opens is shown in this window. */
GtkWidget *esl_window_show_studies(EslWindow *self);

/* What tests drive and read: esl-window-testing.h. Signals:
 *   "run-finished" (int status, gint64 run_id) after a run has ended and been shown. */

G_END_DECLS

#endif
