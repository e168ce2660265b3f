/* Save Model as GNOME applications do (issue 26, defect 7): Ctrl+S saves the model to its file
 * without asking once it has one, Ctrl+Shift+S is Save As, Save Project As keeps a key of its
 * own (Ctrl+Alt+S) and the shortcuts window lists them; the title and the unsaved-edits question
 * name the file saved ("my-pendulum.json"), not the name inside the model. Needs a display
 * (xvfb-run). */
#include <glib/gstdio.h>
#include <gtk/gtk.h>
#include <string.h>

#include "esl-application.h"
#include "esl-window.h"
#include "esl-window-testing.h"
#include "tap.h"
#include "ui-test.h"

static gboolean title_has(EslWindow *window, const char *text)
{
    const char *title = gtk_window_get_title(GTK_WINDOW(window));
    return title && strstr(title, text);
}

static char *file_text(const char *path)
{
    char *text = NULL;
    g_file_get_contents(path, &text, NULL, NULL);
    return text;
}

static void check(GtkApplication *app, gpointer data)
{
    const char *dir = data;
    EslWindow *w = ESL_WINDOW(gtk_application_get_active_window(app));
    g_timeout_add_seconds(60, ui_test_timed_out, GINT_TO_POINTER(60));
    const struct {
        const char *action, *accel;
    } keys[] = {{"win.save-model-file", "<Control>s"},
                {"win.save-model", "<Shift><Control>s"},
                {"win.save-project", "<Control><Alt>s"}};
    for (size_t i = 0; i < G_N_ELEMENTS(keys); i++) {
        g_auto(GStrv) accels = gtk_application_get_accels_for_action(app, keys[i].action);
        tap_ok(accels[0] && g_str_equal(accels[0], keys[i].accel) && !accels[1],
               "%s is %s (got %s)", keys[i].action, keys[i].accel, accels[0] ? accels[0] : "none");
    }
    g_autoptr(GBytes) overlay = g_resources_lookup_data("/org/eslabon/Eslabon/gtk/help-overlay.ui",
                                                        0, NULL);
    const char *xml = overlay ? g_bytes_get_data(overlay, NULL) : "";
    tap_ok(strstr(xml, "win.save-model-file") && strstr(xml, "\"action-name\">win.save-model<"),
           "the shortcuts window lists Save Model and Save Model As");

    g_autoptr(GError) error = NULL;
    tap_ok(esl_window_load_model(w, "double-pendulum", &error), "a bundled model loads");
    g_autofree char *path = g_build_filename(dir, "my-pendulum.json", NULL);
    gtk_widget_activate_action(GTK_WIDGET(w), "win.save-model-to", "s", path);
    wait_checked(w);
    tap_ok(title_has(w, "my-pendulum.json"), "saved as my-pendulum.json, the title names the "
           "file (%s)", gtk_window_get_title(GTK_WINDOW(w)));

    tap_ok(esl_window_edit_model(w, "bodies/1/mass", 2.5, &error), "the model is edited");
    wait_checked(w);
    tap_ok(title_has(w, "my-pendulum.json") && title_has(w, "modified"),
           "the title says the file is modified (%s)", gtk_window_get_title(GTK_WINDOW(w)));
    tap_ok(press(GTK_WIDGET(w), "<Control>s"), "Ctrl+S reaches the window");
    iterate_pending();
    g_autofree char *saved = file_text(path);
    tap_ok(saved && g_str_equal(saved, esl_window_get_model_json(w)),
           "Ctrl+S wrote the edited model to its file");
    tap_ok(!title_has(w, "modified") && !find_toplevel(GTK_TYPE_FILE_CHOOSER_DIALOG) &&
               !esl_window_get_question(w),
           "without asking for a name, and the title is no longer modified");

    tap_ok(esl_window_edit_model(w, "bodies/1/mass", 3.0, &error), "edited again");
    wait_checked(w);
    tap_ok(title_has(w, "my-pendulum.json (modified)"), "the title says so (%s)",
           gtk_window_get_title(GTK_WINDOW(w)));
    gtk_widget_activate_action(GTK_WIDGET(w), "win.new-model", NULL);
    GtkWidget *question = esl_window_get_question(w);
    g_autofree char *text = NULL;
    if (question)
        g_object_get(question, "text", &text, NULL);
    tap_ok(text && strstr(text, "my-pendulum.json"),
           "the unsaved-edits question names the file (%s)", text ? text : "no question");
    if (question)
        gtk_dialog_response(GTK_DIALOG(question), GTK_RESPONSE_CANCEL);
    iterate_pending();
    gtk_window_destroy(GTK_WINDOW(w));
}

int main(void)
{
    g_autofree char *dir = g_dir_make_tmp("esl-save-XXXXXX", NULL);
    g_setenv("XDG_DATA_HOME", dir, TRUE); /* Recent Files of the test's own */
    run_application("test_window_save", G_CALLBACK(check), dir);
    remove_temporary_dir(dir);
    return tap_done();
}
