/* Saving the model as GNOME applications do: Save Model (Ctrl+S) writes the model's own file
 * and asks for a name only the first time (a new model, a bundled one, a run's); the title and
 * the unsaved-edits question name that file. See esl-window-private.h. */
#include "esl-window-private.h"

#include <glib/gi18n.h>

#include "esl-models-dir.h"

/* A model file of the user's, saved in place; the bundled models and a run's model are saved
 * under a new name. */
gboolean esl_window_model_saved_in_place(EslWindow *self)
{
    return esl_model_document_get_path(self->document) && g_path_is_absolute(esl_model_document_get_path(self->document)) &&
           !g_str_has_prefix(esl_model_document_get_path(self->document), esl_models_dir()) &&
           g_file_test(esl_model_document_get_path(self->document), G_FILE_TEST_IS_REGULAR);
}

/* The file's name once the model has one of the user's ("my-four-bar.json"), else the name
 * inside the model (a bundled model's "Spatial four-bar", a new one's "untitled"). */
char *esl_window_model_display_name(EslWindow *self)
{
    if (!esl_window_model(self))
        return g_strdup("Eslabón");
    if (esl_window_model_saved_in_place(self))
        return g_path_get_basename(esl_model_document_get_path(self->document));
    return g_strdup(esl_window_model(self)->name);
}

/* ---- unsaved edits: the question before they are lost ---- */

static void on_unsaved_response(GtkDialog *dialog, int response, EslWindow *self)
{
    EslWindowThen then = (EslWindowThen)g_object_get_data(G_OBJECT(dialog), "then");
    g_autofree char *path = g_strdup(g_object_get_data(G_OBJECT(dialog), "path"));
    gtk_window_destroy(GTK_WINDOW(dialog));
    self->question = NULL;
    if (response == GTK_RESPONSE_REJECT) {
        self->edits_discarded = TRUE;
        then(self, path);
    } else if (response == GTK_RESPONSE_ACCEPT && esl_window_model_saved_in_place(self)) {
        g_autoptr(GError) error = NULL;
        g_autofree char *file = g_strdup(esl_model_document_get_path(self->document));
        if (esl_model_document_save(self->document, file, &error)) {
            esl_window_update_titles(self);
            then(self, path);
        } else {
            esl_window_show_status(self, TRUE, _("Cannot save the model: %s"), error->message);
        }
    } else if (response == GTK_RESPONSE_ACCEPT) {
        esl_window_choose_model_file(self, then, path);
    }
}

void esl_window_ask_unsaved(EslWindow *self, EslWindowThen then, const char *path)
{
    if (!esl_model_document_is_modified(self->document) || self->edits_discarded) {
        then(self, path);
        return;
    }
    if (self->question)
        return;
    g_autofree char *shown = esl_window_model_display_name(self);
    GtkWidget *dialog = gtk_message_dialog_new(
        GTK_WINDOW(self), GTK_DIALOG_MODAL | GTK_DIALOG_DESTROY_WITH_PARENT, GTK_MESSAGE_QUESTION,
        GTK_BUTTONS_NONE, _("Save the edits to model %s?"), shown);
    gtk_message_dialog_format_secondary_text(GTK_MESSAGE_DIALOG(dialog),
                                             _("If you do not save them, they are lost."));
    gtk_dialog_add_button(GTK_DIALOG(dialog), _("_Cancel"), GTK_RESPONSE_CANCEL);
    GtkWidget *discard =
        gtk_dialog_add_button(GTK_DIALOG(dialog), _("_Discard"), GTK_RESPONSE_REJECT);
    gtk_widget_add_css_class(discard, "destructive-action");
    GtkWidget *save = gtk_dialog_add_button(
        GTK_DIALOG(dialog), esl_window_model_saved_in_place(self) ? _("_Save") : _("_Save As…"),
        GTK_RESPONSE_ACCEPT);
    gtk_widget_add_css_class(save, "suggested-action");
    gtk_dialog_set_default_response(GTK_DIALOG(dialog), GTK_RESPONSE_ACCEPT);
    g_object_set_data(G_OBJECT(dialog), "then", (gpointer)then);
    g_object_set_data_full(G_OBJECT(dialog), "path", g_strdup(path), g_free);
    g_signal_connect(dialog, "response", G_CALLBACK(on_unsaved_response), self);
    self->question = dialog;
    gtk_window_present(GTK_WINDOW(dialog));
}

static void action_save_model_file(GtkWidget *widget, const char *name, GVariant *parameter)
{
    (void)name;
    (void)parameter;
    EslWindow *self = ESL_WINDOW(widget);
    if (!esl_window_model(self))
        return;
    if (esl_window_model_saved_in_place(self))
        esl_window_save_model_path(self, esl_model_document_get_path(self->document));
    else
        gtk_widget_activate_action(widget, "win.save-model", NULL); /* Save As: asks a name */
}

void esl_window_class_install_save_actions(GtkWidgetClass *widget_class)
{
    gtk_widget_class_install_action(widget_class, "win.save-model-file", NULL,
                                    action_save_model_file);
}
