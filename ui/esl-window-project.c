/* The window's project: opened, made temporary when a run needs one, its runs listed, named and
 * deleted; see esl-window-private.h. */
#include "esl-window-private.h"

#include <glib/gi18n.h>
#include <glib/gstdio.h>
#include <unistd.h>

void esl_window_close_project(EslWindow *self)
{
    g_clear_pointer(&self->project, esl_project_close);
    g_hash_table_remove_all(self->model_ids);
    if (self->project_is_temporary && self->project_path) {
        g_autofree char *wal = g_strconcat(self->project_path, "-wal", NULL);
        g_autofree char *shm = g_strconcat(self->project_path, "-shm", NULL);
        g_unlink(self->project_path);
        g_unlink(wal);
        g_unlink(shm);
    }
    g_clear_pointer(&self->project_path, g_free);
    self->project_is_temporary = FALSE;
}

gboolean esl_window_open_project(EslWindow *self, const char *path, gboolean create,
                                 GError **error)
{
    if (esl_window_is_running(self)) {
        g_set_error(error, G_IO_ERROR, G_IO_ERROR_BUSY,
                    _("Stop the running simulation before changing the project."));
        return FALSE;
    }
    EslProject *project = esl_project_open(path, create, error);
    if (!project)
        return FALSE;
    esl_window_close_project(self);
    self->project = project;
    self->project_path = g_strdup(path);
    int interrupted = esl_project_interrupted_on_open(project);
    if (interrupted > 0)
        esl_window_show_status(
            self, TRUE,
            ngettext("%d run had been interrupted (the program stopped during it); it "
                     "is marked so in the list.",
                     "%d runs had been interrupted (the program stopped during them); "
                     "they are marked so in the list.",
                     interrupted),
            interrupted);
    esl_window_update_titles(self);
    esl_window_fill_runs(self);
    esl_window_show_newest_run(self);
    return TRUE;
}

const char *esl_window_get_project_path(EslWindow *self)
{
    return self->project_path;
}

gboolean esl_window_ensure_project(EslWindow *self, GError **error)
{
    if (self->project)
        return TRUE;
    g_autofree char *dir = g_build_filename(g_get_user_cache_dir(), "eslabon", NULL);
    g_mkdir_with_parents(dir, 0700);
    g_autofree char *name = g_strdup_printf("unsaved-%d-%" G_GINT64_FORMAT ".eslabon", getpid(),
                                            g_get_real_time());
    g_autofree char *path = g_build_filename(dir, name, NULL);
    if (!esl_window_open_project(self, path, TRUE, error))
        return FALSE;
    self->project_is_temporary = TRUE;
    esl_window_update_titles(self);
    return TRUE;
}

void esl_window_fill_runs(EslWindow *self)
{
    g_autoptr(GError) error = NULL;
    EslRunBrowser *browser = ESL_RUN_BROWSER(self->run_browser);
    if (!esl_run_browser_fill(browser, self->project, &error))
        esl_window_show_status(self, TRUE, _("Cannot list the runs: %s"), error->message);
    esl_run_browser_set_size(browser, self->project ? esl_project_disk_size(self->project) : 0);
}

gboolean esl_window_rename_run(EslWindow *self, gint64 run_id, const char *name, GError **error)
{
    if (!self->project) {
        g_set_error(error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND, _("No project open."));
        return FALSE;
    }
    if (!esl_project_rename_run(self->project, run_id, name, error))
        return FALSE;
    esl_window_fill_runs(self);
    return TRUE;
}

gboolean esl_window_delete_runs(EslWindow *self, GArray *ids, GError **error)
{
    if (esl_window_is_running(self)) {
        g_set_error(error, G_IO_ERROR, G_IO_ERROR_BUSY,
                    _("Stop the running simulation before deleting runs."));
        return FALSE;
    }
    if (!self->project) {
        g_set_error(error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND, _("No project open."));
        return FALSE;
    }
    gint64 before = esl_project_disk_size(self->project);
    gboolean ok = TRUE;
    for (guint i = 0; ok && i < ids->len; i++)
        ok = esl_project_delete_run(self->project, g_array_index(ids, gint64, i), error);
    /* The space of the deleted samples goes back to the disk, not only to SQLite. */
    ok = ok && esl_project_compact(self->project, error);
    esl_window_set_history(self, NULL, FALSE);
    esl_plot_board_prepare_single(ESL_PLOT_BOARD(self->plot_board));
    esl_window_fill_runs(self);
    if (ok) {
        g_autofree char *freed =
            g_format_size((guint64)MAX(before - esl_project_disk_size(self->project), 0));
        esl_window_show_status(self, FALSE,
                               ngettext("%u run deleted; %s freed.", "%u runs deleted; %s freed.",
                                        ids->len),
                               ids->len, freed);
    }
    return ok;
}

static void on_rename_run(EslRunBrowser *browser, gint64 run_id, const char *name,
                          EslWindow *self)
{
    (void)browser;
    g_autoptr(GError) error = NULL;
    if (!esl_window_rename_run(self, run_id, name, &error))
        esl_window_show_status(self, TRUE, _("Cannot rename the run: %s"), error->message);
}

static void on_delete_answer(GtkDialog *dialog, int response, EslWindow *self)
{
    GArray *ids = g_object_get_data(G_OBJECT(dialog), "run-ids");
    g_autoptr(GError) error = NULL;
    if (response == GTK_RESPONSE_ACCEPT && !esl_window_delete_runs(self, ids, &error))
        esl_window_show_status(self, TRUE, _("Cannot delete the runs: %s"), error->message);
    gtk_window_destroy(GTK_WINDOW(dialog));
}

static void on_delete_runs(EslRunBrowser *browser, GArray *ids, EslWindow *self)
{
    (void)browser;
    GtkWidget *dialog = gtk_message_dialog_new(
        GTK_WINDOW(self), GTK_DIALOG_MODAL | GTK_DIALOG_DESTROY_WITH_PARENT, GTK_MESSAGE_QUESTION,
        GTK_BUTTONS_NONE,
        ngettext("Delete %u run?", "Delete %u runs?", ids->len), ids->len);
    gtk_message_dialog_format_secondary_text(
        GTK_MESSAGE_DIALOG(dialog), _("Their samples are removed from the project for good."));
    gtk_dialog_add_button(GTK_DIALOG(dialog), _("_Cancel"), GTK_RESPONSE_CANCEL);
    GtkWidget *delete = gtk_dialog_add_button(GTK_DIALOG(dialog), _("_Delete"),
                                              GTK_RESPONSE_ACCEPT);
    gtk_widget_add_css_class(delete, "destructive-action");
    gtk_dialog_set_default_response(GTK_DIALOG(dialog), GTK_RESPONSE_CANCEL);
    g_object_set_data_full(G_OBJECT(dialog), "run-ids", g_array_ref(ids),
                           (GDestroyNotify)g_array_unref);
    g_signal_connect(dialog, "response", G_CALLBACK(on_delete_answer), self);
    gtk_window_present(GTK_WINDOW(dialog));
}

static void on_runs_selection_changed(EslRunBrowser *browser, EslWindow *self)
{
    (void)browser;
    esl_window_show_selected_runs(self);
}

void esl_window_class_bind_project_callbacks(GtkWidgetClass *widget_class)
{
    gtk_widget_class_bind_template_callback(widget_class, on_runs_selection_changed);
    gtk_widget_class_bind_template_callback(widget_class, on_rename_run);
    gtk_widget_class_bind_template_callback(widget_class, on_delete_runs);
}
