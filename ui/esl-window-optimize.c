/* The optimiser in the window: the Optimise dialog over the window's model and run settings,
 * storing in its project, its Apply to Model as one undoable edit, its optimisations listed
 * with the runs; see esl-window-private.h. */
#include "esl-window-private.h"

#include <glib/gi18n.h>

#include "esl-optimize-dialog.h"

/* The stored optimisation selected in the run list (one run selected) shown in the dialog with
 * its choices, evaluations and result, unless the dialog shows it already or has one running. */
static void offer_selected_optimization(EslWindow *self, EslOptimizeDialog *dialog)
{
    g_autoptr(GArray) ids = esl_run_browser_get_selected(ESL_RUN_BROWSER(self->run_browser));
    gint64 id = ids->len == 1 ? g_array_index(ids, gint64, 0) : 0;
    if (!id || !self->project || esl_optimize_dialog_is_running(dialog) ||
        esl_optimize_dialog_get_stored_run(dialog) == id ||
        !esl_project_run_is_optimization(self->project, id))
        return;
    g_autoptr(EslRunInfo) info = esl_project_get_run(self->project, id, NULL);
    g_autoptr(EslOptimizationRun) run =
        info ? esl_project_load_optimization(self->project, id, NULL) : NULL;
    if (!run)
        return; /* the status line said why when it was selected */
    /* its best point applies to the model text it ran on (the window's when none is stored) */
    g_autofree char *ran_on =
        info->model_id > 0 ? esl_project_model_json(self->project, info->model_id, NULL) : NULL;
    esl_optimize_dialog_show_stored(dialog, id, run, info->message,
                                    ran_on ? ran_on : esl_window_json(self));
}

/* The optimiser's Apply to Model: the parameters it varied at its best point. */
static gboolean on_optimum_apply(EslOptimizeDialog *dialog, const char *base_json,
                                 const char *json, GError **error, EslWindow *self)
{
    const char *const *varied;
    int n;
    esl_optimize_dialog_get_result(dialog, &varied, &n);
    g_autofree char *names = g_strjoinv(", ", (char **)varied);
    g_autofree char *label = g_strdup_printf(_("optimised %s"), names);
    return esl_window_commit_from_dialog(self, base_json, json, label, error);
}

/* An optimisation ended: it is listed with the runs. */
static void on_optimization_finished(EslOptimizeDialog *dialog, int status, EslWindow *self)
{
    (void)dialog, (void)status;
    esl_window_fill_runs(self);
}

EslOptimizeDialog *esl_window_present_optimizer(EslWindow *self)
{
    if (!esl_window_json(self)) {
        esl_window_show_status(self, TRUE, _("Open a model or start a new one (Project ▸ New "
                                             "Model) first."));
        return NULL;
    }
    const MbsFormulationClass *klass =
        esl_run_settings_get_formulation(ESL_RUN_SETTINGS(self->run_settings));
    g_autoptr(GError) error = NULL;
    if (!klass) {
        esl_window_show_status(self, TRUE, _("No formulation is available in this build."));
        return NULL;
    }
    if (!esl_window_ensure_project(self, &error)) {
        esl_window_show_status(self, TRUE, _("No project to store the optimisation in: %s"),
                               error->message);
        return NULL;
    }
    if (!self->optimize_dialog) {
        EslOptimizeDialog *dialog = esl_optimize_dialog_new(GTK_WINDOW(self));
        self->optimize_dialog = GTK_WIDGET(dialog);
        g_object_add_weak_pointer(G_OBJECT(dialog), (gpointer *)&self->optimize_dialog);
        g_signal_connect(dialog, "apply", G_CALLBACK(on_optimum_apply), self);
        g_signal_connect(dialog, "finished", G_CALLBACK(on_optimization_finished), self);
    }
    EslOptimizeDialog *dialog = ESL_OPTIMIZE_DIALOG(self->optimize_dialog);
    /* the sensitivity chooser's method options go with the run panel's settings */
    MbsSettings settings, options;
    esl_window_read_settings(self, &settings);
    gboolean has_options = esl_sensitivity_chooser_get_options(
                               esl_run_settings_get_sensitivity(
                                   ESL_RUN_SETTINGS(self->run_settings)),
                               &options) != NULL;
    if (!esl_optimize_dialog_is_running(dialog)) /* a running one keeps its project and model */
        esl_optimize_dialog_set_project(dialog, self->project_path,
                                        esl_window_model(self) ? esl_window_stored_model_id(self) : 0);
    esl_optimize_dialog_set_model(dialog, esl_window_json(self), esl_model_document_get_origin(self->document), klass->name,
                                  &settings, has_options ? &options : NULL);
    offer_selected_optimization(self, dialog);
    gtk_window_present(GTK_WINDOW(dialog));
    return dialog;
}

static void action_optimize(GtkWidget *widget, const char *name, GVariant *parameter)
{
    (void)name;
    (void)parameter;
    esl_window_present_optimizer(ESL_WINDOW(widget));
}

void esl_window_class_install_optimize_actions(GtkWidgetClass *widget_class)
{
    gtk_widget_class_install_action(widget_class, "win.optimize", NULL, action_optimize);
}
