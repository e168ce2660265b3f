/* Teaching with the window at a projector's 1280x720 (run under xvfb-run -s "-screen 0
 * 1280x720x24"), as a user would: run the four-bar; playback starts at 1x; step one stored
 * sample back and forth with the buttons' actions and Alt+Left/Right; export a point's history
 * (the crank tip on its circle); the legend names the worst joint and going to it selects it and
 * plots its violation; variables go into one Variables plot; zoom and pan are linked in time
 * across the plots; F11 enters presentation mode, which shows the 3D view, the
 * transport controls and one plot (their allocations non-empty, inside the window, the side
 * panels hidden, the plot drawn larger); the plot shown can be changed; Escape leaves it.
 * Issue 12, "Teach with it". */
#include <glib/gstdio.h>
#include <gtk/gtk.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "esl-application.h"
#include "esl-model-panel.h"
#include "esl-scene.h"
#include "esl-playback-bar.h"
#include <string.h>

#include "esl-plot.h"
#include "esl-window.h"
#include "esl-window-testing.h"
#include "tap.h"
#include "ui-test.h"

#define TEACH_TIMEOUT_S 60

typedef struct {
    EslWindow *window;
    char *dir;
    int phase;
} Teach;

static void check_playback(Teach *t)
{
    GtkWidget *window = GTK_WIDGET(t->window);
    EslPlaybackBar *bar = ESL_PLAYBACK_BAR(find_nth(window, ESL_TYPE_PLAYBACK_BAR, 0));
    tap_close(bar ? esl_playback_bar_get_speed(bar) : NAN, 1.0, 0, "playback starts at 1x");
    wait_replayed(t->window); /* a run faster than real time is played back first */
    tap_close(esl_window_get_time(t->window), 1.0, 1e-9, "the run is shown at its end, t = 1 s");
    tap_ok(!esl_window_step_sample(t->window, +1), "no sample after the last one");
    gtk_widget_activate_action(window, "win.step-backward", NULL);
    tap_close(esl_window_get_time(t->window), 0.99, 1e-9,
              "win.step-backward (the button's action) shows the sample before, t = 0.99 s");
    tap_ok(press(window, "<Alt>Left"), "Alt+Left is a shortcut");
    tap_close(esl_window_get_time(t->window), 0.98, 1e-9, "Alt+Left steps back once more");
    tap_ok(press(window, "<Alt>Right"), "Alt+Right is a shortcut");
    tap_close(esl_window_get_time(t->window), 0.99, 1e-9, "Alt+Right steps forward");
    esl_window_seek(t->window, 0.0);
    tap_ok(!esl_window_step_sample(t->window, -1), "no sample before the first one");
}

/* The legend names the worst joint (the four-bar's cut joint C: the tree joints have none);
 * going to it selects it, plots its violation; plots are linked in time. */
static void check_worst_and_plots(Teach *t)
{
    GtkWidget *window = GTK_WIDGET(t->window);
    esl_window_seek(t->window, 1.0);
    const char *worst = esl_window_get_worst_joint(t->window);
    tap_ok(worst && g_str_equal(worst, "C"), "the legend names joint C as the most violated (%s)",
           worst ? worst : "none");
    tap_ok(esl_window_go_to_worst_joint(t->window), "going to the worst joint");
    int source = -1, index = -1;
    GtkWidget *panel = find_nth(window, ESL_TYPE_MODEL_PANEL, 0);
    esl_model_panel_get_selected(ESL_MODEL_PANEL(panel), &source, &index);
    tap_ok(source == ESL_SOURCE_JOINT && index == 2, "selects joint C in the model panel");
    GtkWidget *variables = find_plot(window, "Variables");
    tap_ok(variables && gtk_widget_get_parent(variables) &&
               esl_plot_get_n_series(ESL_PLOT(variables)) == 1 &&
               esl_plot_series_length(ESL_PLOT(variables), 0) == 101,
           "and plots its violation at the 101 stored samples");
    g_autoptr(GError) error = NULL;
    tap_ok(esl_window_plot_variable(t->window, "crank:B:z", &error) &&
               esl_plot_get_n_series(ESL_PLOT(variables)) == 2,
           "a second variable goes into the same plot %s", error ? error->message : "");
    gtk_widget_activate_action(window, "win.plot-variable", "s", "crank:B:vx,crank:B:vy");
    tap_ok(esl_plot_get_n_series(ESL_PLOT(variables)) == 4,
           "win.plot-variable (the model list's right-click menu) plots the names it is given");
    g_autoptr(GError) bad = NULL;
    tap_ok(!esl_window_plot_variable(t->window, "crank:B:w", &bad) && bad,
           "a name that is no variable is refused: %s", bad ? bad->message : "");
    EslPlot *energy = ESL_PLOT(find_nth(window, ESL_TYPE_PLOT, 0));
    EslPlot *constraints = ESL_PLOT(find_nth(window, ESL_TYPE_PLOT, 2));
    g_signal_emit_by_name(energy, "time-range-changed", 0.2, 0.6);
    double x0, x1;
    esl_plot_get_time_range(constraints, &x0, &x1);
    tap_ok(x0 == 0.2 && x1 == 0.6, "a zoom in one plot shows the same time in the others (%g-%g)",
           x0, x1);
    g_signal_emit_by_name(energy, "time-range-changed", NAN, NAN);
    esl_plot_get_time_range(constraints, &x0, &x1);
    tap_ok(fabs(x0) < 1e-12 && fabs(x1 - 1.0) < 1e-12, "a fit gives them the whole run back");
}

static void check_export(Teach *t)
{
    g_autofree char *path = g_build_filename(t->dir, "crank.csv", NULL);
    g_autoptr(GError) error = NULL;
    tap_ok(esl_window_export_points(t->window, "crank:B", path, &error),
           "the crank tip's history is exported %s", error ? error->message : "");
    FILE *f = fopen(path, "r");
    char line[512];
    int rows = 0;
    double radius = 0, moved = 0, z0 = NAN;
    gboolean header = f && fgets(line, sizeof line, f) &&
                      g_str_has_prefix(line, "time,crank:B:x,crank:B:y,crank:B:z,crank:B:vx");
    while (f && fgets(line, sizeof line, f)) {
        double time, x, y, z;
        if (sscanf(line, "%lf,%lf,%lf,%lf", &time, &x, &y, &z) != 4)
            break;
        rows++;
        radius = fmax(radius, fabs(hypot(y, z) - 1.5) + fabs(x));
        if (isnan(z0))
            z0 = z;
        moved = fmax(moved, fabs(z - z0));
    }
    if (f)
        fclose(f);
    tap_ok(header, "its header names the point's columns");
    tap_ok(rows == 101, "a row per stored sample (%d)", rows);
    tap_ok(radius < 1e-8 && moved > 0.1,
           "the crank tip stays on its circle of radius 1.5 m (%.1e) while it moves (%.2f m)",
           radius, moved);
    g_unlink(path);
}

static void check_presentation(Teach *t, const char *plot_name, int plot_index)
{
    GtkWidget *window = GTK_WIDGET(t->window);
    int w = gtk_widget_get_width(window), h = gtk_widget_get_height(window);
    tap_ok(w > 0 && w <= 1280 && h > 0 && h <= 720, "the window fits the 1280x720 screen (%dx%d)",
           w, h);
    graphene_rect_t r = GRAPHENE_RECT_INIT(0, 0, 0, 0);
    GtkWidget *bar = find_nth(window, ESL_TYPE_PLAYBACK_BAR, 0);
    struct {
        GtkWidget *widget;
        const char *what;
        int min_w, min_h;
    } parts[] = {
        {find_nth(window, g_type_from_name("EslViewport"), 0), "the 3D view", 600, 300},
        {find_nth(bar, GTK_TYPE_TOGGLE_BUTTON, 0), "the Play button", 16, 16},
        {find_nth(bar, GTK_TYPE_BUTTON, 0), "the step-back button", 16, 16},
        {find_nth(bar, GTK_TYPE_SCALE, 0), "the time slider", 300, 10},
        {find_nth(window, ESL_TYPE_PLOT, plot_index), plot_name, 600, 150},
    };
    for (size_t i = 0; i < G_N_ELEMENTS(parts); i++) {
        gboolean ok = shown_inside(parts[i].widget, window, parts[i].min_w, parts[i].min_h, &r);
        tap_ok(ok, "presentation: %s is shown inside the window, at least %dx%d (%.0fx%.0f at "
               "%.0f,%.0f)",
               parts[i].what, parts[i].min_w, parts[i].min_h, r.size.width, r.size.height,
               r.origin.x, r.origin.y);
    }
    int plots_shown = 0;
    for (int k = 0; k < 5; k++) {
        GtkWidget *p = find_nth(window, ESL_TYPE_PLOT, k);
        plots_shown += p && gtk_widget_get_mapped(p);
    }
    tap_ok(plots_shown == 1, "one plot is shown (%d)", plots_shown);
    GtkWidget *plot = find_nth(window, ESL_TYPE_PLOT, plot_index);
    tap_ok(plot && esl_plot_get_zoom(ESL_PLOT(plot)) > 1.5, "drawn larger (zoom %.1f)",
           plot ? esl_plot_get_zoom(ESL_PLOT(plot)) : 0);
    GtkWidget *sidebar = find_nth(window, GTK_TYPE_NOTEBOOK, 0);
    GtkWidget *settings = find_nth(window, g_type_from_name("EslRunSettings"), 0);
    tap_ok(sidebar && !gtk_widget_get_mapped(sidebar) && settings &&
               !gtk_widget_get_mapped(settings),
           "the model panel and the run settings are hidden");
}

/* Index among the plots of the step-size plot ("Integrator step size" or "Fixed step h = …"),
 * or -1. */
static int step_size_plot(GtkWidget *window)
{
    for (int i = 0;; i++) {
        GtkWidget *plot = find_nth(window, ESL_TYPE_PLOT, i);
        if (!plot)
            return -1;
        const char *title = esl_plot_get_title(ESL_PLOT(plot));
        if (g_str_has_prefix(title, "Integrator step size") || g_str_has_prefix(title, "Fixed step"))
            return i;
    }
}

static gboolean step(gpointer data)
{
    Teach *t = data;
    GtkWidget *window = GTK_WIDGET(t->window);
    switch (t->phase++) {
    case 0:
        tap_ok(press(window, "F11"), "F11 is a shortcut");
        return G_SOURCE_CONTINUE;
    case 1:
        check_presentation(t, "the energy plot", 0);
        g_action_group_activate_action(G_ACTION_GROUP(window), "presentation-plot",
                                       g_variant_new_string("constraints"));
        return G_SOURCE_CONTINUE;
    case 2:
        check_presentation(t, "the constraint plot (chosen)", 2);
        g_action_group_activate_action(G_ACTION_GROUP(window), "presentation-plot",
                                       g_variant_new_string("step-size"));
        return G_SOURCE_CONTINUE;
    case 3: {
        /* The menu offers the step-size plot; a fixed-step run's says its step, not nothing. */
        int index = step_size_plot(window);
        check_presentation(t, "the step-size plot (chosen)", index);
        const char *title = index >= 0 ? esl_plot_get_title(ESL_PLOT(find_nth(window, ESL_TYPE_PLOT, index))) : "";
        const char *prefix = "Fixed step h = ";
        EslPlot *plot = index >= 0 ? ESL_PLOT(find_nth(window, ESL_TYPE_PLOT, index)) : NULL;
        tap_ok(g_str_has_prefix(title, prefix) && g_ascii_strtod(title + strlen(prefix), NULL) == 0.01,
               "the penalty run's step-size plot is titled with its fixed step (%s)", title);
        tap_ok(plot && esl_plot_series_length(plot, 0) == 2,
               "and draws it as a line over the run, not an empty plot");
        tap_ok(press(window, "Escape"), "Escape is taken in presentation mode");
        return G_SOURCE_CONTINUE;
    }
    case 4: {
        GtkWidget *sidebar = find_nth(window, GTK_TYPE_NOTEBOOK, 0);
        GtkWidget *plot = find_plot(window, "Newton iterations per step");
        tap_ok(sidebar && gtk_widget_get_mapped(sidebar) && plot && gtk_widget_get_mapped(plot) &&
                   esl_plot_get_zoom(ESL_PLOT(plot)) == 1.0,
               "after Escape the side panel and every plot are back, at their normal size");
        gtk_window_destroy(GTK_WINDOW(window));
        return G_SOURCE_REMOVE;
    }
    }
    return G_SOURCE_REMOVE;
}

static void on_run_finished(EslWindow *window, int status, gint64 run_id, Teach *t)
{
    (void)window;
    (void)run_id;
    tap_ok(status == 1 /* ESL_RUN_FINISHED */, "the run finishes");
    check_playback(t);
    check_export(t);
    check_worst_and_plots(t);
    g_timeout_add(800, step, t); /* each phase laid out before the next */
}

static void activate(GtkApplication *app, Teach *t)
{
    t->window = ESL_WINDOW(gtk_application_get_active_window(app));
    g_autoptr(GError) error = NULL;
    tap_ok(esl_window_load_model(t->window, "four-bar-spatial", &error), "the four-bar loads");
    esl_window_set_duration(t->window, 1.0);
    g_signal_connect(t->window, "run-finished", G_CALLBACK(on_run_finished), t);
    gtk_widget_activate_action(GTK_WIDGET(t->window), "win.run", NULL);
    g_timeout_add_seconds(TEACH_TIMEOUT_S, ui_test_timed_out, GINT_TO_POINTER(TEACH_TIMEOUT_S));
}

int main(void)
{
    Teach t = {0};
    t.dir = g_dir_make_tmp("eslabon-teach-XXXXXX", NULL);
    g_setenv("XDG_DATA_HOME", t.dir, TRUE);
    g_autoptr(EslApplication) app = esl_application_new();
    g_application_set_flags(G_APPLICATION(app),
                            g_application_get_flags(G_APPLICATION(app)) |
                                G_APPLICATION_NON_UNIQUE);
    g_signal_connect_after(app, "activate", G_CALLBACK(activate), &t);
    char *argv[] = {"test_window_teach", NULL};
    g_application_run(G_APPLICATION(app), 1, argv);
    return tap_done();
}
