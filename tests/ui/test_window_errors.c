/* Errors are shown in full (issue 26, item 11): they were only in the narrow status line of the
 * run panel. A model file the loader refuses, opened from Open Recent, shows the loader's whole
 * message (the same text esl_model_document_read_file gives for that file) under the header bar,
 * every line of it inside the banner at 1280×720; Dismiss hides it. Needs a display (xvfb-run). ESL_SCREENSHOT=FILE.png: the banner. */
#include <gtk/gtk.h>

#include "esl-application.h"
#include "esl-model-document.h"
#include "esl-window.h"
#include "esl-window-testing.h"
#include "tap.h"
#include "ui-test.h"

static void check(GtkApplication *app, gpointer data)
{
    (void)data;
    EslWindow *window = ESL_WINDOW(gtk_application_get_active_window(app));
    gtk_window_set_default_size(GTK_WINDOW(window), 1280, 720);
    g_autoptr(GError) error = NULL;
    tap_ok(esl_window_load_model(window, "four-bar-spatial", &error), "the four-bar loads");
    iterate_pending();
    tap_ok(esl_window_get_error_banner(window) == NULL, "no error is shown");

    g_autofree char *dir = g_dir_make_tmp("eslabon-errors-XXXXXX", NULL);
    g_autofree char *path = g_build_filename(dir, "a-model-with-a-rather-long-name-refused.json",
                                             NULL);
    /* the four-bar with a joint that names a body it does not have */
    g_autofree char *four_bar = g_build_filename(g_getenv("ESLABON_MODELS_DIR"),
                                                 "four-bar-spatial.json", NULL);
    g_autofree char *text = NULL;
    g_file_get_contents(four_bar, &text, NULL, NULL);
    g_autoptr(GString) bad = g_string_new(text);
    tap_ok(g_string_replace(bad, "[\"ground\", \"crank\"]", "[\"ground\", \"crank-arm\"]", 1) == 1,
           "a joint of the four-bar made to name a body it does not have");
    g_file_set_contents(path, bad->str, -1, NULL);
    MbsModel *m = NULL;
    char *json = NULL, *file = NULL;
    g_autoptr(GError) expected = NULL;
    tap_ok(!esl_model_document_read_file(path, &m, &json, &file, &expected) && expected,
           "the loader refuses the model");
    gtk_widget_activate_action(GTK_WIDGET(window), "win.open-recent", "s", path);
    for (int i = 0; i < 30; i++) { /* the revealer's slide */
        iterate_pending();
        g_usleep(20000);
    }
    const char *shown = esl_window_get_error_banner(window);
    tap_ok(shown && expected && strstr(shown, expected->message),
           "the banner shows the loader's whole message: %s", shown ? shown : "(none)");
    GtkWidget *label = label_with(GTK_WIDGET(window), expected ? expected->message : "?");
    graphene_rect_t r = {{0, 0}, {0, 0}};
    int natural = 0;
    if (label)
        gtk_widget_measure(label, GTK_ORIENTATION_VERTICAL, gtk_widget_get_width(label), NULL,
                           &natural, NULL, NULL);
    gboolean inside = label && shown_inside(label, GTK_WIDGET(window), 100, 10, &r);
    tap_ok(inside && r.size.height >= natural,
           "in the window, every line of it (%.0f×%.0f px at %.0f, %.0f; its text needs %d px)",
           r.size.width, r.size.height, r.origin.x, r.origin.y, natural);
    save_screenshot_if_asked();

    gtk_widget_activate_action(GTK_WIDGET(window), "win.dismiss-error", NULL);
    tap_ok(esl_window_get_error_banner(window) == NULL, "Dismiss hides it");
    gtk_widget_activate_action(GTK_WIDGET(window), "win.open-recent", "s", path);
    tap_ok(esl_window_get_error_banner(window) != NULL, "the same error again shows it again");
    g_unlink(path);
    g_rmdir(dir);
    gtk_window_destroy(GTK_WINDOW(window));
}

int main(void)
{
    g_autofree char *config = g_dir_make_tmp("eslabon-errors-config-XXXXXX", NULL);
    g_setenv("XDG_DATA_HOME", config, TRUE); /* the recent files' list */
    run_application("test_window_errors", G_CALLBACK(check), NULL);
    remove_temporary_dir(config);
    return tap_done();
}
