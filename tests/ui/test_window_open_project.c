/* Opening a project alone (issue 26, item 11): a window with no model showed the gallery and
 * nothing of the project's runs; it now shows its newest run with that run's model, on the
 * Runs page of the workbench. The project is made by a first window's run. Needs a display
 * (xvfb-run). */
#include <gtk/gtk.h>
#include <string.h>

#include "esl-application.h"
#include "esl-run-browser.h"
#include "esl-window.h"
#include "esl-window-testing.h"
#include "tap.h"
#include "ui-test.h"

static int finished;

static void on_finished(EslWindow *window, int status, gint64 run_id, gpointer data)
{
    (void)window, (void)run_id, (void)data;
    tap_ok(status == 1, "a run of the double pendulum finishes");
    finished = 1;
}

static void check(GtkApplication *app, gpointer data)
{
    (void)data;
    EslWindow *first = ESL_WINDOW(gtk_application_get_active_window(app));
    g_autoptr(GError) error = NULL;
    tap_ok(esl_window_load_model(first, "double-pendulum", &error), "the double pendulum loads");
    start_run(first, 0.1, G_CALLBACK(on_finished), NULL, 50);
    while (!finished)
        g_main_context_iteration(NULL, TRUE);
    wait_replayed(first);
    g_autofree char *path = g_strdup(esl_window_get_project_path(first));

    EslWindow *w = esl_window_new(app);
    gtk_window_present(GTK_WINDOW(w));
    iterate_pending();
    tap_ok(g_strcmp0(esl_window_get_page(w), "start") == 0, "a new window shows the gallery");
    tap_ok(esl_window_open_project(w, path, FALSE, &error), "it opens the project alone");
    iterate_pending();
    EslRunBrowser *browser = ESL_RUN_BROWSER(find_nth(GTK_WIDGET(w), ESL_TYPE_RUN_BROWSER, 0));
    g_autoptr(GArray) shown = esl_run_browser_get_selected(browser);
    const char *json = esl_window_get_model_json(w);
    tap_ok(shown->len == 1 && json && strstr(json, "\"double-pendulum\"") != NULL,
           "its newest run is shown with the run's model (%u selected)", shown->len);
    tap_ok(g_strcmp0(esl_window_get_page(w), "workbench") == 0 &&
               gtk_widget_get_mapped(GTK_WIDGET(browser)),
           "on the Runs page of the workbench (page %s)", esl_window_get_page(w));
    gtk_window_destroy(GTK_WINDOW(w));
    gtk_window_destroy(GTK_WINDOW(first));
}

int main(void)
{
    run_application("test_window_open_project", G_CALLBACK(check), NULL);
    return tap_done();
}
