/* The window's model document (issue 23, app/esl-model-document.c): a model whose wheels read
 * their tyre property file by a path relative to the model file (models/coach.json:
 * "../data/tyres/...") is edited in the window, from the inspector (validated on a worker) and
 * through esl_window_edit_model, and checked again; the test runs in a temporary folder, where
 * that relative path leads nowhere, so the edit is only accepted when the window validates it
 * with the model file's path (it passed the base name: "'tyre_file': No such file"). Needs a
 * display (xvfb-run). */
#include <glib/gstdio.h>
#include <gtk/gtk.h>
#include <string.h>

#include "esl-application.h"
#include "esl-model-panel.h"
#include "esl-window.h"
#include "esl-window-testing.h"
#include "tap.h"
#include "ui-test.h"

static void check(GtkApplication *app, gpointer data)
{
    (void)data;
    EslWindow *window = ESL_WINDOW(gtk_application_get_active_window(app));
    g_timeout_add_seconds(100, ui_test_timed_out, GINT_TO_POINTER(100));
    g_autoptr(GError) error = NULL;
    tap_ok(!g_file_test("../data/tyres", G_FILE_TEST_IS_DIR),
           "the working directory has no ../data/tyres (the model's relative path leads nowhere "
           "from here)");
    if (!tap_ok(esl_window_load_model(window, "coach", &error), "coach loads: %s",
                error ? error->message : "ok"))
        return;
    wait_checked(window);
    tap_ok(esl_window_get_check_error(window) == NULL, "the model as opened checks: %s",
           esl_window_get_check_error(window) ? esl_window_get_check_error(window) : "ok");

    /* the inspector's edit: validated on a worker, then committed and checked */
    EslModelPanel *panel = ESL_MODEL_PANEL(find_nth(GTK_WIDGET(window), ESL_TYPE_MODEL_PANEL, 0));
    gboolean taken = FALSE;
    GError *field_error = NULL;
    g_signal_emit_by_name(panel, "edit-field", "bodies/4/mass", "mass", 8100.25, &field_error,
                          &taken);
    tap_ok(taken && !field_error, "the inspector takes the front body's mass 8100.25 kg");
    g_clear_error(&field_error);
    for (int i = 0; i < 400 && !strstr(esl_window_get_model_json(window), "8100.25"); i++) {
        g_main_context_iteration(NULL, FALSE);
        g_usleep(5000);
    }
    wait_checked(window);
    tap_ok(strstr(esl_window_get_model_json(window), "8100.25") != NULL,
           "the worker's validation accepted it: the text has the new mass");
    tap_ok(esl_window_get_check_error(window) == NULL, "and the edited model checks: %s",
           esl_window_get_check_error(window) ? esl_window_get_check_error(window) : "ok");

    tap_ok(esl_window_edit_model(window, "bodies/5/mass", 8100.5, &error),
           "esl_window_edit_model sets the rear body's mass: %s", error ? error->message : "ok");
    g_clear_error(&error);
    wait_checked(window);
    tap_ok(esl_window_get_check_error(window) == NULL && strstr(gtk_window_get_title(GTK_WINDOW(window)),
                                                                "modified") != NULL,
           "the model checks again and the title says modified (%s)",
           gtk_window_get_title(GTK_WINDOW(window)));
    gboolean refused = !esl_window_edit_model(window, "bodies/5/mass", -1, &error);
    tap_ok(refused && error, "a negative mass is still refused with the loader's message: %s",
           error ? error->message : "(accepted)");
    gtk_window_destroy(GTK_WINDOW(window));
}

int main(void)
{
    /* a folder where the model's "../data/tyres/..." leads nowhere */
    g_autofree char *dir = g_dir_make_tmp("esl-document-XXXXXX", NULL);
    g_autofree char *inner = g_build_filename(dir, "inner", NULL);
    g_mkdir(inner, 0700);
    g_chdir(inner);
    run_application("test_window_document", G_CALLBACK(check), NULL);
    g_rmdir(inner);
    g_rmdir(dir);
    return tap_done();
}
