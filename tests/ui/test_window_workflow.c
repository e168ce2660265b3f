/* The window as a user meets it (issue 12's defects): a file that fails to open leaves Recent
 * Files; the gallery has Back and Escape, also during a run; closing the window during a run
 * asks first and stores the run as "stopped"; app.quit asks the same. Needs a display
 * (xvfb-run). */
#include <glib/gstdio.h>
#include <gtk/gtk.h>
#include <stdlib.h>
#include <string.h>

#include "esl-application.h"
#include "esl-project.h"
#include "esl-recent.h"
#include "esl-window.h"
#include "esl-window-testing.h"
#include "tap.h"
#include "ui-test.h"

#define WORKFLOW_TIMEOUT_S 60

typedef struct {
    GtkApplication *app;
    EslWindow *window;
    char *dir, *project_path;
    int phase;
    gint64 stored[2]; /* runs in the project before the window opens it */
} Workflow;

static void check_stored_run(Workflow *w)
{
    g_autoptr(GError) error = NULL;
    g_autoptr(EslProject) project = esl_project_open(w->project_path, FALSE, &error);
    g_autoptr(GPtrArray) runs = project ? esl_project_list_runs(project, &error) : NULL;
    tap_ok(runs && runs->len == 2, "the project has the renamed run and the new one (%s)",
           error ? error->message : "");
    const EslRunInfo *run = runs && runs->len == 2 ? runs->pdata[1] : NULL;
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

static GtkWidget *find_type(GtkWidget *widget, GType type)
{
    if (G_TYPE_CHECK_INSTANCE_TYPE(widget, type))
        return widget;
    for (GtkWidget *c = gtk_widget_get_first_child(widget); c; c = gtk_widget_get_next_sibling(c)) {
        GtkWidget *found = find_type(c, type);
        if (found)
            return found;
    }
    return NULL;
}

static gboolean in_recent(const char *path)
{
    g_autoptr(GPtrArray) paths = esl_recent_list(100);
    for (guint i = 0; i < paths->len; i++)
        if (g_str_equal(paths->pdata[i], path))
            return TRUE;
    return FALSE;
}

/* A corrupt model picked in the file chooser (which adds it to the recent files) fails to open
 * and is dropped from them. */
static void check_recent(Workflow *w)
{
    g_autofree char *bad = g_build_filename(w->dir, "corrupt.json", NULL);
    g_file_set_contents(bad, "{\"bodies\": [", -1, NULL);
    esl_recent_add(bad);
    tap_ok(in_recent(bad), "a picked file is in Recent Files");
    gtk_widget_activate_action(GTK_WIDGET(w->window), "win.open-recent", "s", bad);
    tap_ok(!in_recent(bad), "a file that failed to open is no longer in Recent Files");
    g_unlink(bad);
}

/* Two runs stored before: one is renamed, the other deleted, through the window. */
static void check_rename_delete(Workflow *w)
{
    g_autoptr(GError) error = NULL;
    const char *size_before = esl_window_get_project_size_text(w->window);
    tap_ok(g_str_has_prefix(size_before, "Project: ") && strlen(size_before) > 9,
           "the project's size is shown: %s", size_before);
    g_autofree char *before = g_strdup(size_before);
    tap_ok(esl_window_rename_run(w->window, w->stored[0], "reference", &error),
           "a run is renamed from the window");
    g_autoptr(GArray) ids = g_array_new(FALSE, FALSE, sizeof(gint64));
    g_array_append_val(ids, w->stored[1]);
    tap_ok(esl_window_delete_runs(w->window, ids, &error), "a run is deleted from the window");
    g_autoptr(EslProject) project = esl_project_open(w->project_path, FALSE, &error);
    g_autoptr(GPtrArray) runs = project ? esl_project_list_runs(project, &error) : NULL;
    const EslRunInfo *kept = runs && runs->len == 1 ? runs->pdata[0] : NULL;
    tap_ok(kept && kept->id == w->stored[0] && g_strcmp0(kept->name, "reference") == 0,
           "the project keeps the renamed run only");
    tap_ok(!g_str_equal(before, esl_window_get_project_size_text(w->window)),
           "the size shown follows the deletion: %s -> %s", before,
           esl_window_get_project_size_text(w->window));
}

static gboolean title_has(Workflow *w, const char *text);

static void check_gallery(Workflow *w, const char *when)
{
    GtkWidget *window = GTK_WIDGET(w->window);
    gtk_widget_activate_action(window, "win.show-gallery", NULL);
    tap_ok(g_str_equal(esl_window_get_page(w->window), "start"), "the gallery is shown %s", when);
    tap_ok(press(window, "Escape") && g_str_equal(esl_window_get_page(w->window), "workbench"),
           "Escape goes back from the gallery to the model %s", when);
    gtk_widget_activate_action(window, "win.show-gallery", NULL);
    gtk_widget_activate_action(window, "win.show-workbench", NULL);
    tap_ok(g_str_equal(esl_window_get_page(w->window), "workbench"),
           "the Back button's action goes back too %s", when);
    tap_ok(!press(window, "Escape") && g_str_equal(esl_window_get_page(w->window), "workbench"),
           "Escape on the workbench is left to the other handlers");
    if (g_str_equal(when, "during a run")) { /* a card cannot replace the running model */
        gtk_widget_activate_action(window, "win.show-gallery", NULL);
        GtkWidget *page = find_type(window, g_type_from_name("EslStartPage"));
        g_signal_emit_by_name(page, "model-chosen", "slider-crank");
        tap_ok(g_str_equal(esl_window_get_page(w->window), "workbench") &&
                   title_has(w, "four-bar-spatial"),
               "a gallery card chosen during a run leads back to the running model");
    }
}

static gboolean title_has(Workflow *w, const char *text)
{
    const char *title = gtk_window_get_title(GTK_WINDOW(w->window));
    return title && strstr(title, text);
}

/* Unsaved edits are never thrown away silently: a gallery card or closing the window asks
 * (save / discard / cancel). */
static void check_unsaved(Workflow *w)
{
    g_autoptr(GError) error = NULL;
    tap_ok(esl_window_edit_model(w->window, "bodies/1/mass", 1.5, &error) &&
               title_has(w, "modified"),
           "the model is edited");
    GtkWidget *page = find_type(GTK_WIDGET(w->window), g_type_from_name("EslStartPage"));
    g_signal_emit_by_name(page, "model-chosen", "slider-crank");
    GtkWidget *question = esl_window_get_question(w->window);
    tap_ok(question != NULL, "choosing a gallery model with unsaved edits asks first");
    if (question)
        gtk_dialog_response(GTK_DIALOG(question), GTK_RESPONSE_CANCEL);
    tap_ok(!esl_window_get_question(w->window) && title_has(w, "four-bar-spatial (modified)"),
           "Cancel keeps the edited model");
    gtk_window_close(GTK_WINDOW(w->window));
    question = esl_window_get_question(w->window);
    tap_ok(question != NULL, "closing the window with unsaved edits asks first");
    if (question)
        gtk_dialog_response(GTK_DIALOG(question), GTK_RESPONSE_CANCEL);
    tap_ok(gtk_widget_get_visible(GTK_WIDGET(w->window)) && title_has(w, "(modified)"),
           "Cancel keeps the window and the edits");
    g_signal_emit_by_name(page, "model-chosen", "slider-crank");
    question = esl_window_get_question(w->window);
    if (question)
        gtk_dialog_response(GTK_DIALOG(question), GTK_RESPONSE_REJECT);
    tap_ok(question && title_has(w, "slider-crank") && !title_has(w, "modified"),
           "Discard opens the chosen model");
}

static gboolean step(gpointer data)
{
    Workflow *w = data;
    GtkWidget *question = w->window ? esl_window_get_question(w->window) : NULL;
    switch (w->phase) {
    case 0: /* a run goes on: the gallery is no dead end; close the window */
        check_gallery(w, "during a run");
        gtk_window_close(GTK_WINDOW(w->window));
        question = esl_window_get_question(w->window);
        tap_ok(question != NULL, "closing the window during a run asks first");
        tap_ok(g_list_find(gtk_application_get_windows(w->app), w->window) != NULL,
               "the window stays open while asking");
        gtk_dialog_response(GTK_DIALOG(question), GTK_RESPONSE_CANCEL);
        tap_ok(esl_window_get_question(w->window) == NULL, "Cancel answers the question");
        w->phase = 1;
        return G_SOURCE_CONTINUE;
    case 1: /* the run still goes on: quitting asks the same */
        tap_ok(!gtk_widget_is_sensitive(GTK_WIDGET(w->window)) ||
                   gtk_widget_get_visible(GTK_WIDGET(w->window)),
               "after Cancel the window is still there");
        g_action_group_activate_action(G_ACTION_GROUP(w->app), "quit", NULL);
        tap_ok(esl_window_get_question(w->window) != NULL, "app.quit during a run asks too");
        w->phase = 2;
        return G_SOURCE_CONTINUE;
    case 2:
        w->phase = 3;
        gtk_dialog_response(GTK_DIALOG(question), GTK_RESPONSE_ACCEPT);
        return G_SOURCE_REMOVE;
    }
    return G_SOURCE_REMOVE;
}

static void activate(GtkApplication *app, Workflow *w)
{
    w->app = app;
    w->window = ESL_WINDOW(gtk_application_get_active_window(app));
    g_autoptr(GError) error = NULL;
    tap_ok(esl_window_open_project(w->window, w->project_path, FALSE, &error),
           "the project opens");
    check_rename_delete(w);
    check_recent(w);
    tap_ok(esl_window_load_model(w->window, "four-bar-spatial", &error), "a bundled model loads");
    check_gallery(w, "with a model open");
    check_unsaved(w);
    tap_ok(esl_window_load_model(w->window, "four-bar-spatial", &error), "the model to run loads");
    esl_window_set_duration(w->window, 1000.0);
    g_signal_connect(w->window, "destroy", G_CALLBACK(on_window_destroyed), w);
    gtk_widget_activate_action(GTK_WIDGET(w->window), "win.run", NULL);
    /* Paused, the run goes on for as long as the test needs. */
    gtk_widget_activate_action(GTK_WIDGET(w->window), "win.pause", NULL);
    g_timeout_add(400, step, w);
    g_timeout_add_seconds(WORKFLOW_TIMEOUT_S, ui_test_timed_out, GINT_TO_POINTER(WORKFLOW_TIMEOUT_S));
}

int main(void)
{
    Workflow w = {0};
    w.dir = g_dir_make_tmp("eslabon-workflow-XXXXXX", NULL);
    w.project_path = g_build_filename(w.dir, "close.eslabon", NULL);
    /* The recent files of this test, not the user's. */
    g_setenv("XDG_DATA_HOME", w.dir, TRUE);
    EslProject *project = esl_project_open(w.project_path, TRUE, NULL);
    for (int i = 0; i < 2; i++) {
        EslRunRequest request = {.model_name = "four-bar-spatial", .formulation = "penalty"};
        w.stored[i] = esl_project_begin_run(project, &request, NULL);
        MbsMonitors m[64] = {{0}};
        for (int k = 0; k < 64; k++)
            m[k].time = k * 0.01;
        esl_project_append_samples(project, w.stored[i], m, NULL, NULL, 64, NULL);
        esl_project_finish_run(project, w.stored[i], ESL_RUN_FINISHED, NULL, NULL, 0.1, NULL);
    }
    esl_project_close(project);
    g_autoptr(EslApplication) app = esl_application_new();
    g_application_set_flags(G_APPLICATION(app),
                            g_application_get_flags(G_APPLICATION(app)) |
                                G_APPLICATION_NON_UNIQUE);
    g_signal_connect_after(app, "activate", G_CALLBACK(activate), &w);
    char *argv[] = {"test_window_workflow", NULL};
    g_application_run(G_APPLICATION(app), 1, argv);
    tap_ok(w.phase == 3 && w.window == NULL, "the application ends once the window is closed");
    g_unlink(w.project_path);
    g_autofree char *xbel = g_build_filename(w.dir, "recently-used.xbel", NULL);
    g_unlink(xbel);
    g_rmdir(w.dir);
    g_free(w.project_path);
    g_free(w.dir);
    return tap_done();
}
