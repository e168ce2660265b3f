/* A number entered in the model inspector is loaded on a worker before it is committed (issue
 * 12: loading the 225-body lattice took 20-50 ms on the UI thread): Enter returns at once with
 * the model unchanged; a mass the loader refuses then shows its message under the field and the
 * model stays as it was; a possible one becomes the model's text (Undo-able) and is checked. */
#include <gtk/gtk.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "esl-application.h"
#include "esl-model-file.h"
#include "esl-model-panel.h"
#include "esl-window.h"
#include "esl-window-testing.h"
#include "tap.h"
#include "ui-test.h"

#define INSPECTOR_TIMEOUT_S 30

typedef struct {
    EslWindow *window;
    GtkWidget *entry, *error_label;
    char *json_before;
    int phase, polls;
} Inspector;

/* The inspector's entry whose path ends in /mass. */
static GtkWidget *mass_entry(GtkWidget *root)
{
    for (int i = 0;; i++) {
        GtkWidget *entry = find_nth(root, GTK_TYPE_ENTRY, i);
        if (!entry)
            return NULL;
        const char *path = g_object_get_data(G_OBJECT(entry), "path");
        if (path && g_str_has_suffix(path, "/mass"))
            return entry;
    }
}

static void enter(GtkWidget *entry, const char *text)
{
    gtk_editable_set_text(GTK_EDITABLE(entry), text);
    g_signal_emit_by_name(entry, "activate");
}

static gboolean step(gpointer data)
{
    Inspector *t = data;
    GtkWidget *window = GTK_WIDGET(t->window);
    switch (t->phase) {
    case 0:
        esl_window_select_body(t->window, 1);
        t->entry = mass_entry(window);
        tap_ok(t->entry != NULL, "the inspector of body 1 has its mass field");
        if (!t->entry) {
            gtk_window_destroy(GTK_WINDOW(window));
            return G_SOURCE_REMOVE;
        }
        t->error_label = g_object_get_data(G_OBJECT(t->entry), "error-label");
        t->json_before = g_strdup(esl_window_get_model_json(t->window));
        enter(t->entry, "-1");
        tap_ok(g_str_equal(esl_window_get_model_json(t->window), t->json_before) &&
                   !gtk_widget_get_visible(t->error_label),
               "Enter returns before the text is loaded: the model is unchanged, no error yet");
        t->phase = 1;
        g_timeout_add(50, step, t); /* then poll for the worker's answer */
        return G_SOURCE_REMOVE;
    case 1: /* wait for the worker */
        if (!gtk_widget_get_visible(t->error_label) && ++t->polls < 200)
            return G_SOURCE_CONTINUE;
        tap_ok(gtk_widget_get_visible(t->error_label) &&
                   strstr(gtk_label_get_text(GTK_LABEL(t->error_label)), "mass") &&
                   gtk_widget_has_css_class(t->entry, "error"),
               "a negative mass: the loader's message is shown under the field (%s)",
               gtk_label_get_text(GTK_LABEL(t->error_label)));
        tap_ok(g_str_equal(esl_window_get_model_json(t->window), t->json_before),
               "and the model stays as it was");
        enter(t->entry, "2,5");
        t->phase = 2;
        t->polls = 0;
        return G_SOURCE_CONTINUE;
    case 2:
        if (g_str_equal(esl_window_get_model_json(t->window), t->json_before) && ++t->polls < 200)
            return G_SOURCE_CONTINUE;
        {
            g_autoptr(GError) error = NULL;
            MbsModel *m = esl_model_load_string(esl_window_get_model_json(t->window), "x.json",
                                                NULL, 0, &error);
            tap_ok(m && m->bodies[1].mass == 2.5,
                   "a mass of 2,5 becomes the model's (%g)", m ? m->bodies[1].mass : NAN);
            mbs_model_free(m);
        }
        gtk_widget_activate_action(window, "win.undo", NULL);
        tap_ok(g_str_equal(esl_window_get_model_json(t->window), t->json_before),
               "and Undo brings the model back");
        gtk_window_destroy(GTK_WINDOW(window));
        return G_SOURCE_REMOVE;
    }
    return G_SOURCE_REMOVE;
}

static void activate(GtkApplication *app, Inspector *t)
{
    t->window = ESL_WINDOW(gtk_application_get_active_window(app));
    g_autoptr(GError) error = NULL;
    tap_ok(esl_window_load_model(t->window, "four-bar-spatial", &error), "the four-bar loads");
    g_timeout_add(1000, step, t); /* laid out, and the first check done */
    g_timeout_add_seconds(INSPECTOR_TIMEOUT_S, ui_test_timed_out, GINT_TO_POINTER(INSPECTOR_TIMEOUT_S));
}

int main(void)
{
    Inspector t = {0};
    g_autoptr(EslApplication) app = esl_application_new();
    g_application_set_flags(G_APPLICATION(app),
                            g_application_get_flags(G_APPLICATION(app)) |
                                G_APPLICATION_NON_UNIQUE);
    g_signal_connect_after(app, "activate", G_CALLBACK(activate), &t);
    char *argv[] = {"test_window_inspector", NULL};
    g_application_run(G_APPLICATION(app), 1, argv);
    g_free(t.json_before);
    return tap_done();
}
