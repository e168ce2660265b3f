/* Step Through (issue 12): a run of the four-bar is paused; win.step-through is refused while
 * it runs, Ctrl+T opens the Step Through view once paused; the view traces the step after the
 * time shown (re-created on a worker) and is filled: the phases of a penalty step (predictor,
 * Newton iterations, the two projections), the first Newton iteration selected with its three
 * spy plots (M 4 x 4, Phi_z 3 x 4, the leading matrix), the velocity projection with Phi_z; the
 * view fits the screen (1280x720 and 1920x1080: run under xvfb-run -s "-screen 0 WxHx24").
 * ESL_SCREENSHOT=FILE.png saves the screen; ESLABON_LOCALEDIR=build/po with LANGUAGE=es shows
 * it in Spanish (the checks of English captions are then skipped). Needs a display. */
#include <glib/gi18n.h>
#include <gtk/gtk.h>
#include <locale.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "esl-application.h"
#include "esl-step-view.h"
#include "esl-window.h"
#include "esl-window-testing.h"
#include "tap.h"
#include "ui-test.h"

#define STEP_TIMEOUT_S 90

typedef struct {
    EslWindow *window;
    EslStepView *view;
    double paused_at;
    int phase;
} StepTest;

static gboolean finish(gpointer data)
{
    StepTest *s = data;
    save_screenshot_if_asked();
    GdkDisplay *display = gdk_display_get_default();
    GdkMonitor *monitor =
        GDK_MONITOR(g_list_model_get_item(gdk_display_get_monitors(display), 0));
    GdkRectangle geometry = {0};
    if (monitor)
        gdk_monitor_get_geometry(monitor, &geometry);
    int w = gtk_widget_get_width(GTK_WIDGET(s->view)), h = gtk_widget_get_height(GTK_WIDGET(s->view));
    tap_ok(w > 600 && h > 400 && w <= geometry.width && h <= geometry.height,
           "the view (%d x %d) fits the screen (%d x %d)", w, h, geometry.width, geometry.height);
    g_clear_object(&monitor);
    gtk_window_destroy(GTK_WINDOW(s->view));
    gtk_widget_activate_action(GTK_WIDGET(s->window), "win.stop", NULL);
    g_application_quit(g_application_get_default());
    return G_SOURCE_REMOVE;
}

static void on_traced(EslStepView *view, StepTest *s)
{
    const MbsTrace *t = esl_step_view_get_trace(view);
    tap_ok(t != NULL, "the view shows a trace (%s)", esl_step_view_get_summary(view));
    if (!t) {
        g_timeout_add(10, finish, s);
        return;
    }
    tap_close(t->time, s->paused_at, 1e-9,
              "the step traced starts at the time shown when paused (%g s)", s->paused_at);
    tap_ok(strstr(esl_step_view_get_summary(view), "penalty") != NULL,
           "the summary names the formulation: %s", esl_step_view_get_summary(view));
    int newton = 0;
    for (int i = 0; i < t->nphases; i++)
        newton += t->phases[i].kind == MBS_TRACE_NEWTON;
    tap_ok(t->nphases == newton + 3 && newton >= 1 &&
               t->phases[0].kind == MBS_TRACE_PREDICTOR,
           "phases: the predictor, %d Newton iterations and two projections", newton);
    int sel = esl_step_view_get_selected_phase(view);
    tap_ok(sel == 1 && esl_step_view_count_pictures(view) == 3,
           "the first Newton iteration is selected with 3 spy plots (got phase %d, %d)", sel,
           esl_step_view_count_pictures(view));
    const char *c0 = esl_step_view_picture_caption(view, 0);
    const char *c1 = esl_step_view_picture_caption(view, 1);
    /* escaped: the captions have two lines, and a raw newline would be read as a line of TAP */
    g_autofree char *e0 = g_strescape(c0 ? c0 : "", NULL), *e1 = g_strescape(c1 ? c1 : "", NULL);
    tap_ok(c0 && g_str_has_prefix(c0, "M: 4 × 4") && c1 && g_str_has_prefix(c1, "Phi_z: 3 × 4"),
           "captions give sizes and nonzeros: '%s', '%s'", e0, e1);
    esl_step_view_select_phase(view, t->nphases - 2);
    tap_ok(esl_step_view_count_pictures(view) == 1,
           "selecting the velocity projection shows its one matrix (Phi_z at the new positions)");
    esl_step_view_select_phase(view, 0);
    tap_ok(esl_step_view_count_pictures(view) == 0, "the predictor builds no matrix");
    esl_step_view_select_phase(view, 1);
    g_timeout_add(300, finish, s);
}

static gboolean step(gpointer data)
{
    StepTest *s = data;
    GtkWidget *window = GTK_WIDGET(s->window);
    switch (s->phase++) {
    case 0:
        s->paused_at = esl_window_get_time(s->window);
        tap_ok(s->paused_at > 0.0, "the run is paused at t = %g s", s->paused_at);
        tap_ok(press(window, "<Control>t"), "Ctrl+T is a shortcut");
        s->view = find_toplevel(ESL_TYPE_STEP_VIEW);
        tap_ok(s->view != NULL, "Ctrl+T opens the Step Through view on the paused run");
        if (!s->view) {
            g_application_quit(g_application_get_default());
            return G_SOURCE_REMOVE;
        }
        g_signal_connect(s->view, "traced", G_CALLBACK(on_traced), s);
        return G_SOURCE_REMOVE;
    }
    return G_SOURCE_REMOVE;
}

static gboolean pause_run(gpointer data)
{
    StepTest *s = data;
    gtk_widget_activate_action(GTK_WIDGET(s->window), "win.pause", NULL);
    g_timeout_add(400, step, s); /* the samples up to the pause arrive */
    return G_SOURCE_REMOVE;
}

static void activate(GtkApplication *app, StepTest *s)
{
    s->window = ESL_WINDOW(gtk_application_get_active_window(app));
    g_autoptr(GError) error = NULL;
    tap_ok(esl_window_load_model(s->window, "four-bar-spatial", &error), "the four-bar loads");
    esl_window_set_duration(s->window, 1000.0);
    /* paced in real time, so that the run is somewhere inside when paused */
    g_action_group_change_action_state(G_ACTION_GROUP(s->window), "real-time",
                                       g_variant_new_boolean(TRUE));
    gtk_widget_activate_action(GTK_WIDGET(s->window), "win.run", NULL);
    gtk_widget_activate_action(GTK_WIDGET(s->window), "win.step-through", NULL);
    tap_ok(find_toplevel(ESL_TYPE_STEP_VIEW) == NULL,
           "Step Through is refused while the run goes on");
    g_timeout_add(800, pause_run, s);
    g_timeout_add_seconds(STEP_TIMEOUT_S, ui_test_timed_out, GINT_TO_POINTER(STEP_TIMEOUT_S));
}

int main(void)
{
    StepTest s = {0};
    if (g_getenv("ESLABON_LOCALEDIR")) {
        setlocale(LC_ALL, "");
        bindtextdomain("eslabon", g_getenv("ESLABON_LOCALEDIR"));
        bind_textdomain_codeset("eslabon", "UTF-8");
        textdomain("eslabon");
    }
    g_autofree char *dir = g_dir_make_tmp("eslabon-step-XXXXXX", NULL);
    g_setenv("XDG_DATA_HOME", dir, TRUE);
    g_autoptr(EslApplication) app = esl_application_new();
    g_application_set_flags(G_APPLICATION(app), g_application_get_flags(G_APPLICATION(app)) |
                                                    G_APPLICATION_NON_UNIQUE);
    g_signal_connect_after(app, "activate", G_CALLBACK(activate), &s);
    char *argv[] = {"test_window_step", NULL};
    g_application_run(G_APPLICATION(app), 1, argv);
    return tap_done();
}
