/* The window as a user meets it (issue 12's defects): closing it during a run asks first and
 * stores the run as "stopped"; app.quit asks the same. Needs a display (xvfb-run). */
#include <glib/gstdio.h>
#include <gtk/gtk.h>
#include <stdlib.h>
#include <string.h>

#include "esl-application.h"
#include "esl-project.h"
#include "esl-window.h"
#include "tap.h"

#define WORKFLOW_TIMEOUT_S 60

typedef struct {
    GtkApplication *app;
    EslWindow *window;
    char *dir, *project_path;
    int phase;
} Workflow;

static void check_stored_run(Workflow *w)
{
    g_autoptr(GError) error = NULL;
    g_autoptr(EslProject) project = esl_project_open(w->project_path, FALSE, &error);
    g_autoptr(GPtrArray) runs = project ? esl_project_list_runs(project, &error) : NULL;
    tap_ok(runs && runs->len == 1, "the project has the run (%s)", error ? error->message : "");
    const EslRunInfo *run = runs && runs->len ? runs->pdata[0] : NULL;
    tap_ok(run && run->status == ESL_RUN_STOPPED,
           "a run the user closed the window on is stored as stopped (%s)",
           run ? esl_run_status_name(run->status) : "none");
    tap_ok(run && run->message && strstr(run->message, "stopped by the user"),
           "its message says the user stopped it: %s", run && run->message ? run->message : "");
    tap_ok(esl_project_interrupted_on_open(project) == 0, "no run is found interrupted");
}

static void on_window_destroyed(GtkWidget *window, Workflow *w)
{
    (void)window;
    tap_ok(w->phase == 3, "the window goes only after the user chose Stop and Close");
    check_stored_run(w);
    w->window = NULL;
}

static gboolean step(gpointer data)
{
    Workflow *w = data;
    GtkWidget *question = w->window ? esl_window_get_close_question(w->window) : NULL;
    switch (w->phase) {
    case 0: /* a run goes on: close the window */
        gtk_window_close(GTK_WINDOW(w->window));
        question = esl_window_get_close_question(w->window);
        tap_ok(question != NULL, "closing the window during a run asks first");
        tap_ok(g_list_find(gtk_application_get_windows(w->app), w->window) != NULL,
               "the window stays open while asking");
        gtk_dialog_response(GTK_DIALOG(question), GTK_RESPONSE_CANCEL);
        tap_ok(esl_window_get_close_question(w->window) == NULL, "Cancel answers the question");
        w->phase = 1;
        return G_SOURCE_CONTINUE;
    case 1: /* the run still goes on: quitting asks the same */
        tap_ok(!gtk_widget_is_sensitive(GTK_WIDGET(w->window)) ||
                   gtk_widget_get_visible(GTK_WIDGET(w->window)),
               "after Cancel the window is still there");
        g_action_group_activate_action(G_ACTION_GROUP(w->app), "quit", NULL);
        tap_ok(esl_window_get_close_question(w->window) != NULL, "app.quit during a run asks too");
        w->phase = 2;
        return G_SOURCE_CONTINUE;
    case 2:
        w->phase = 3;
        gtk_dialog_response(GTK_DIALOG(question), GTK_RESPONSE_ACCEPT);
        return G_SOURCE_REMOVE;
    }
    return G_SOURCE_REMOVE;
}

static gboolean timed_out(gpointer data)
{
    (void)data;
    tap_ok(FALSE, "the workflow finished within %d s", WORKFLOW_TIMEOUT_S);
    exit(tap_done());
}

static void activate(GtkApplication *app, Workflow *w)
{
    w->app = app;
    w->window = ESL_WINDOW(gtk_application_get_active_window(app));
    g_autoptr(GError) error = NULL;
    tap_ok(esl_window_open_project(w->window, w->project_path, TRUE, &error),
           "a fresh project opens");
    tap_ok(esl_window_load_model(w->window, "four-bar-spatial", &error), "a bundled model loads");
    esl_window_set_duration(w->window, 1000.0);
    g_signal_connect(w->window, "destroy", G_CALLBACK(on_window_destroyed), w);
    gtk_widget_activate_action(GTK_WIDGET(w->window), "win.run", NULL);
    /* Paused, the run goes on for as long as the test needs. */
    gtk_widget_activate_action(GTK_WIDGET(w->window), "win.pause", NULL);
    g_timeout_add(400, step, w);
    g_timeout_add_seconds(WORKFLOW_TIMEOUT_S, timed_out, w);
}

int main(void)
{
    Workflow w = {0};
    w.dir = g_dir_make_tmp("eslabon-workflow-XXXXXX", NULL);
    w.project_path = g_build_filename(w.dir, "close.eslabon", NULL);
    g_autoptr(EslApplication) app = esl_application_new();
    g_application_set_flags(G_APPLICATION(app),
                            g_application_get_flags(G_APPLICATION(app)) |
                                G_APPLICATION_NON_UNIQUE);
    g_signal_connect_after(app, "activate", G_CALLBACK(activate), &w);
    char *argv[] = {"test_window_workflow", NULL};
    g_application_run(G_APPLICATION(app), 1, argv);
    tap_ok(w.phase == 3 && w.window == NULL, "the application ends once the window is closed");
    g_unlink(w.project_path);
    g_rmdir(w.dir);
    g_free(w.project_path);
    g_free(w.dir);
    return tap_done();
}
