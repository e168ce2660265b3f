/* The window's part of the Studies (issue 25): win.studies opens the EslStudyView on the
 * window's project; a case's run it asks for is shown here (the project opened when it is
 * another, the run selected in the runs list as a click on it would). */
#include <glib/gi18n.h>

#include "esl-study-plan-dialog.h"
#include "esl-study-pool.h"
#include "esl-study-view.h"
#include "esl-window-private.h"

#define VIEW_KEY "esl-study-view"

static void on_open_run(EslStudyView *view, const char *project_path, gint64 run_id,
                        EslWindow *self)
{
    (void)view;
    g_autoptr(GError) error = NULL;
    if (g_strcmp0(project_path, self->project_path) != 0 &&
        !esl_window_open_project(self, project_path, FALSE, &error)) {
        esl_window_show_status(self, TRUE, _("Cannot open %s: %s"), project_path,
                               error->message);
        return;
    }
    g_autofree char *id = g_strdup_printf("#%" G_GINT64_FORMAT, run_id);
    if (!esl_run_browser_select_run(ESL_RUN_BROWSER(self->run_browser), run_id))
        esl_window_show_status(self, TRUE, _("Run %s is not in the project"), id);
    gtk_window_present(GTK_WINDOW(self));
}

/* The advice's recommendation for the next runs: its formulation and settings, this window's
 * duration. */
static void on_apply_settings(EslStudyView *view, const char *formulation,
                              const MbsSettings *settings, EslWindow *self)
{
    (void)view;
    EslRunSettings *panel = ESL_RUN_SETTINGS(self->run_settings);
    MbsSettings now, next = *settings;
    esl_run_settings_read(panel, &now);
    next.duration = now.duration;
    esl_run_settings_show(panel, formulation, &next);
    esl_window_show_status(self, FALSE, _("Run settings: %s at %g s, as the advisor recommends"),
                           formulation, next.step);
}

/* Plan and Run: the study runs on the local pool, its cases merged into the window's project. */
static void on_planned(EslStudyPlanDialog *dialog, EslStudy *study, int jobs, EslWindow *self)
{
    (void)dialog;
    EslStudyView *view = g_object_get_data(G_OBJECT(self), VIEW_KEY);
    g_autofree char *cli = esl_study_find_cli();
    if (view && !esl_study_view_is_running(view) && self->project_path)
        esl_study_view_set_project(view, self->project_path, NULL); /* made for the study */
    if (view)
        esl_study_view_run_study(view, study, cli, jobs, NULL); /* an error shows in the view */
}

static void on_plan_study(EslStudyView *view, EslWindow *self)
{
    EslStudyPlanDialog *dialog = esl_study_plan_dialog_new(GTK_WINDOW(view));
    gtk_window_set_destroy_with_parent(GTK_WINDOW(dialog), TRUE);
    g_signal_connect_object(dialog, "planned", G_CALLBACK(on_planned), self, 0);
    MbsSettings settings;
    esl_window_read_settings(self, &settings);
    const MbsFormulationClass *k =
        esl_run_settings_get_formulation(ESL_RUN_SETTINGS(self->run_settings));
    g_autoptr(GError) error = NULL;
    const char *path = esl_model_document_get_path(self->document);
    if (path && esl_model_document_is_modified(self->document))
        g_set_error(&error, ESL_STUDY_ERROR, ESL_STUDY_ERROR_INVALID,
                    _("Save the model's edits first: a study runs the model file"));
    else if (esl_window_ensure_project(self, &error))
        esl_study_plan_dialog_set_model(dialog, path, k ? k->name : "penalty", &settings, NULL);
    if (error)
        esl_study_plan_dialog_set_message(dialog, error->message);
    gtk_window_present(GTK_WINDOW(dialog));
}

/* A case's run merged into the project: the runs list shows it. */
static void on_runs_merged(EslStudyView *view, EslWindow *self)
{
    (void)view;
    esl_window_fill_runs(self);
}

static void on_view_destroyed(GtkWidget *view, EslWindow *self)
{
    (void)view;
    g_object_set_data(G_OBJECT(self), VIEW_KEY, NULL);
}

GtkWidget *esl_window_show_studies(EslWindow *self)
{
    GtkWidget *view = g_object_get_data(G_OBJECT(self), VIEW_KEY);
    if (!view) {
        view = esl_study_view_new(GTK_WINDOW(self));
        gtk_window_set_destroy_with_parent(GTK_WINDOW(view), TRUE);
        g_object_set_data(G_OBJECT(self), VIEW_KEY, view);
        g_signal_connect_object(view, "open-run", G_CALLBACK(on_open_run), self, 0);
        g_signal_connect_object(view, "apply-settings", G_CALLBACK(on_apply_settings), self, 0);
        g_signal_connect_object(view, "destroy", G_CALLBACK(on_view_destroyed), self, 0);
        g_signal_connect_object(view, "plan-study", G_CALLBACK(on_plan_study), self, 0);
        g_signal_connect_object(view, "runs-merged", G_CALLBACK(on_runs_merged), self, 0);
    }
    esl_study_view_set_project(ESL_STUDY_VIEW(view), self->project_path, NULL);
    gtk_window_present(GTK_WINDOW(view));
    return view;
}

static void on_studies(GSimpleAction *action, GVariant *parameter, gpointer window)
{
    (void)action, (void)parameter;
    esl_window_show_studies(ESL_WINDOW(window));
}

void esl_window_init_study_actions(EslWindow *self)
{
    g_autoptr(GSimpleAction) studies = g_simple_action_new("studies", NULL);
    g_signal_connect(studies, "activate", G_CALLBACK(on_studies), self);
    g_action_map_add_action(G_ACTION_MAP(self), G_ACTION(studies));
}
