/* Saving the model as GNOME applications do: Save Model (Ctrl+S) writes the model's own file
 * and asks for a name only the first time (a new model, a bundled one, a run's); the title and
 * the unsaved-edits question name that file. See esl-window-private.h. */
#include "esl-window-private.h"


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
