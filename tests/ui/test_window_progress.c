/* The progress area follows what is shown (issue 26, item 11): after a run it gives the run's
 * numbers; another model opened, or the run deleted, leaves it empty (it kept the last run's
 * text). Needs a display (xvfb-run). */
#include <gtk/gtk.h>
#include <string.h>

#include "esl-application.h"
#include "esl-window.h"
#include "esl-window-testing.h"
#include "tap.h"
#include "ui-test.h"

static gint64 run_id;

static void on_finished(EslWindow *window, int status, gint64 id, gpointer data)
{
    (void)window, (void)data;
    tap_ok(status == 1, "the run finishes");
    run_id = id;
}

static void run_once(EslWindow *w)
{
    run_id = 0;
    gtk_widget_activate_action(GTK_WIDGET(w), "win.run", NULL);
    while (!run_id)
        g_main_context_iteration(NULL, TRUE);
    wait_replayed(w);
}

static void check(GtkApplication *app, gpointer data)
{
    (void)data;
    EslWindow *w = ESL_WINDOW(gtk_application_get_active_window(app));
    g_autoptr(GError) error = NULL;
    g_signal_connect(w, "run-finished", G_CALLBACK(on_finished), NULL);
    g_timeout_add_seconds(50, ui_test_timed_out, GINT_TO_POINTER(50));
    tap_ok(esl_window_load_model(w, "four-bar-spatial", &error), "the four-bar loads");
    esl_window_set_duration(w, 0.1);
    run_once(w);
    tap_ok(strstr(esl_window_get_progress_text(w), "simulated time") != NULL,
           "the progress area gives the run's numbers");
    tap_ok(esl_window_load_model(w, "double-pendulum", &error), "another model opens");
    tap_ok(strlen(esl_window_get_progress_text(w)) == 0,
           "the progress area is empty (\"%s\")", esl_window_get_progress_text(w));
    esl_window_set_duration(w, 0.1);
    run_once(w);
    g_autoptr(GArray) ids = g_array_new(FALSE, FALSE, sizeof(gint64));
    g_array_append_val(ids, run_id);
    tap_ok(esl_window_delete_runs(w, ids, &error), "the run is deleted");
    tap_ok(strlen(esl_window_get_progress_text(w)) == 0,
           "the progress area is empty again (\"%s\")", esl_window_get_progress_text(w));
    gtk_window_destroy(GTK_WINDOW(w));
}

int main(void)
{
    run_application("test_window_progress", G_CALLBACK(check), NULL);
    return tap_done();
}
