/* Finding the drift with several plots (issue 12): run the four-bar; plot a body's kinetic
 * energy from the model list's menu action into the first variable plot; open the variable
 * browser (win.variable-browser); add a second plot with its Add button; search for two
 * variables (the tree narrows to them) and check them: they go into the second plot only, with
 * a point per stored sample; unchecking takes one out; a zoom in the second plot moves the time
 * range of the first and of the monitor plots; the playback cursor is drawn in every plot;
 * a third plot takes the Newton plot's place and is the last (all shown inside the window);
 * pressing in a plot makes it the current one; Escape closes the browser;
 * removing plots leaves the first. With ESLABON_SCREENSHOT (a PNG path prefix) the
 * screen is saved with the browser open (docs/user-guide.md). Runs at 1280x720 and, in the
 * meson test list, 1920x1080. */
#include <glib/gi18n.h>
#include <glib/gstdio.h>
#include <gtk/gtk.h>
#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "eslabon-config.h"
#include "esl-application.h"
#include "esl-plot-board.h"
#include "esl-plot.h"
#include "esl-variable-browser.h"
#include "esl-window.h"
#include "esl-window-testing.h"
#include "tap.h"
#include "ui-test.h"

#define TIMEOUT_S 90

typedef struct {
    EslWindow *window;
    EslVariableBrowser *browser;
    EslPlotBoard *board;
    char *dir;
    int phase;
} Variables;

static EslVariableBrowser *find_browser(void)
{
    GListModel *toplevels = gtk_window_get_toplevels();
    for (guint i = 0; i < g_list_model_get_n_items(toplevels); i++) {
        g_autoptr(GObject) w = g_list_model_get_item(toplevels, i);
        if (ESL_IS_VARIABLE_BROWSER(w))
            return ESL_VARIABLE_BROWSER(w);
    }
    return NULL;
}

static GtkWidget *find_button_with_icon(GtkWidget *root, const char *icon)
{
    for (int i = 0;; i++) {
        GtkWidget *b = find_nth(root, GTK_TYPE_BUTTON, i);
        if (!b || g_strcmp0(gtk_button_get_icon_name(GTK_BUTTON(b)), icon) == 0)
            return b;
    }
}

/* The check of the variable named name among the rows shown (its tooltip is the name). */
static GtkWidget *find_check(GtkWidget *root, const char *name)
{
    for (int i = 0;; i++) {
        GtkWidget *c = find_nth(root, GTK_TYPE_CHECK_BUTTON, i);
        if (!c || (gtk_widget_get_mapped(c) &&
                   g_strcmp0(gtk_widget_get_tooltip_text(c), name) == 0))
            return c;
    }
}

static void search(Variables *v, const char *text)
{
    gtk_editable_set_text(GTK_EDITABLE(esl_variable_browser_get_search_entry(v->browser)), text);
}

static int series_of(EslPlot *plot, const char *name)
{
    return plot ? esl_plot_find_series(plot, name) : -1;
}

/* The screen as it is, with the browser moved to the right edge (Xvfb has no window manager to
 * place it): for docs/user-guide.md. */
static void save_screen(const char *suffix)
{
    const char *prefix = g_getenv("ESLABON_SCREENSHOT");
    if (!prefix)
        return;
    GListModel *monitors = gdk_display_get_monitors(gdk_display_get_default());
    g_autoptr(GdkMonitor) monitor = g_list_model_get_item(monitors, 0);
    GdkRectangle area;
    gdk_monitor_get_geometry(monitor, &area);
    g_autofree char *cmd = g_strdup_printf(
        "xdotool search --name '^%s$' windowmove %d 40 && import -window root %s-%s.png",
        _("Variables"), area.width - 400, prefix, suffix);
    tap_ok(system(cmd) == 0, "screenshot %s-%s.png", prefix, suffix);
}

/* Phases a few hundred ms apart so that each is laid out (and the search applied: the search
 * entry waits 150 ms) before the next looks at it. */
static gboolean step(gpointer data)
{
    Variables *v = data;
    GtkWidget *window = GTK_WIDGET(v->window);
    switch (v->phase++) {
    case 0:
        gtk_widget_activate_action(window, "win.plot-variable", "s", "crank:kinetic");
        tap_ok(esl_plot_board_get_n_plots(v->board) == 1 &&
                   series_of(esl_plot_board_get_plot(v->board, 0), "crank:kinetic") == 0,
               "the model list's Plot action puts crank:kinetic in the first variable plot");
        gtk_widget_activate_action(window, "win.variable-browser", NULL);
        v->browser = find_browser();
        tap_ok(v->browser && gtk_widget_get_visible(GTK_WIDGET(v->browser)),
               "win.variable-browser opens the variable browser");
        if (!v->browser)
            exit(tap_done());
        tap_ok(esl_variable_browser_count_rows(v->browser) == 2,
               "it lists the model's bodies and joints, collapsed (%u rows)",
               esl_variable_browser_count_rows(v->browser));
        return G_SOURCE_CONTINUE;
    case 1: {
        GtkWidget *add = find_button_with_icon(GTK_WIDGET(v->browser), "list-add-symbolic");
        tap_ok(add != NULL, "the browser has an Add plot button");
        if (add)
            g_signal_emit_by_name(add, "clicked");
        tap_ok(esl_plot_board_get_n_plots(v->board) == 2 &&
                   esl_plot_board_get_current_plot(v->board) == 1,
               "Add plot makes a second variable plot, the current one");
        g_autofree char *name = g_strdup_printf(_("Variables %d"), 2);
        g_autofree char *title = g_strdup_printf("● %s", name);
        GtkWidget *second = find_plot(window, title);
        tap_ok(second && gtk_widget_get_mapped(second),
               "it is shown, marked as the current one (● %s)", name);
        search(v, "crank:kinetic");
        return G_SOURCE_CONTINUE;
    }
    case 2: {
        guint rows = esl_variable_browser_count_rows(v->browser);
        tap_ok(rows == 3, "searching crank:kinetic narrows the tree to Bodies ▸ crank ▸ kinetic "
                          "(%u rows)", rows);
        GtkWidget *check = find_check(GTK_WIDGET(v->browser), "crank:kinetic");
        tap_ok(check && !gtk_check_button_get_active(GTK_CHECK_BUTTON(check)),
               "its check is shown, off: the current (second) plot does not have it");
        if (check)
            gtk_check_button_set_active(GTK_CHECK_BUTTON(check), TRUE);
        search(v, "C:violation");
        return G_SOURCE_CONTINUE;
    }
    case 3: {
        GtkWidget *check = find_check(GTK_WIDGET(v->browser), "C:violation");
        tap_ok(check != NULL, "searching C:violation shows joint C's violation");
        if (check)
            gtk_check_button_set_active(GTK_CHECK_BUTTON(check), TRUE);
        EslPlot *first = esl_plot_board_get_plot(v->board, 0);
        EslPlot *second = esl_plot_board_get_plot(v->board, 1);
        tap_ok(esl_plot_get_n_series(second) == 2 && series_of(second, "crank:kinetic") == 0 &&
                   series_of(second, "C:violation") == 1,
               "the two checked variables are in the second plot");
        tap_ok(esl_plot_get_n_series(first) == 1, "the first plot keeps only its own variable");
        tap_ok(esl_plot_series_length(second, 0) == 101 && esl_plot_series_length(second, 1) == 101,
               "with a point per stored sample (101)");
        if (check)
            gtk_check_button_set_active(GTK_CHECK_BUTTON(check), FALSE);
        tap_ok(esl_plot_get_n_series(second) == 1 && series_of(second, "C:violation") < 0,
               "unchecking takes C:violation out of the plot");
        if (check)
            gtk_check_button_set_active(GTK_CHECK_BUTTON(check), TRUE);
        /* a zoom by the user in the second plot, as its scroll handler reports it */
        esl_plot_set_time_range(second, 0.25, 0.5);
        g_signal_emit_by_name(second, "time-range-changed", 0.25, 0.5);
        double x0, x1;
        esl_plot_get_time_range(first, &x0, &x1);
        tap_ok(x0 == 0.25 && x1 == 0.5, "zooming the second plot gives the first the same time "
                                        "range (%g-%g)", x0, x1);
        GtkWidget *energy = find_plot(window, _("Energy"));
        esl_plot_get_time_range(ESL_PLOT(energy), &x0, &x1);
        tap_ok(x0 == 0.25 && x1 == 0.5, "and the energy plot (%g-%g)", x0, x1);
        esl_window_seek(v->window, 0.4);
        double t = esl_window_get_time(v->window);
        tap_ok(fabs(t - 0.4) < 1e-9 && fabs(esl_plot_get_cursor(first) - t) < 1e-12 &&
                   fabs(esl_plot_get_cursor(second) - t) < 1e-12 &&
                   fabs(esl_plot_get_cursor(ESL_PLOT(energy)) - t) < 1e-12,
               "the playback cursor (t = %g s) is drawn in every plot (%g, %g, %g)", t,
               esl_plot_get_cursor(first), esl_plot_get_cursor(second),
               esl_plot_get_cursor(ESL_PLOT(energy)));
        search(v, "crank");
        return G_SOURCE_CONTINUE;
    }
    case 4:
        save_screen("browser");
        return G_SOURCE_CONTINUE;
    case 5: {
        /* a third plot takes the Newton plot's place; that is as many as fit at 1280x720 */
        gtk_widget_activate_action(window, "win.add-plot", NULL);
        gtk_widget_activate_action(window, "win.add-plot", NULL);
        tap_ok(esl_plot_board_get_n_plots(v->board) == 3,
               "win.add-plot makes a third plot, and no more");
        return G_SOURCE_CONTINUE;
    }
    case 6: {
        int w = gtk_widget_get_width(window), h = gtk_widget_get_height(window), shown = 0;
        for (int i = 0; i < esl_plot_board_get_n_plots(v->board); i++) {
            graphene_rect_t r;
            GtkWidget *plot = GTK_WIDGET(esl_plot_board_get_plot(v->board, i));
            shown += gtk_widget_get_mapped(plot) && gtk_widget_compute_bounds(plot, window, &r) &&
                     r.size.width >= 150 && r.size.height >= 60 && r.origin.x >= 0 &&
                     r.origin.y >= 0 && r.origin.x + r.size.width <= w + 0.5 &&
                     r.origin.y + r.size.height <= h + 0.5;
        }
        GtkWidget *newton = find_plot(window, _("Newton iterations per step"));
        tap_ok(shown == 3 && !gtk_widget_get_mapped(newton),
               "the three variable plots are shown inside the window, at least 150x60 (%d), in "
               "the Newton plot's place", shown);
        save_screen("three-plots");
        /* a press in the first plot (its click gesture, as a button press reports it) */
        GtkWidget *first = GTK_WIDGET(esl_plot_board_get_plot(v->board, 0));
        g_autoptr(GListModel) controllers = gtk_widget_observe_controllers(first);
        for (guint i = 0; i < g_list_model_get_n_items(controllers); i++) {
            g_autoptr(GObject) c = g_list_model_get_item(controllers, i);
            if (GTK_IS_GESTURE_CLICK(c) &&
                gtk_event_controller_get_propagation_phase(GTK_EVENT_CONTROLLER(c)) ==
                    GTK_PHASE_CAPTURE)
                g_signal_emit_by_name(c, "pressed", 1, 40.0, 40.0);
        }
        tap_ok(esl_plot_board_get_current_plot(v->board) == 0 &&
                   g_str_equal(esl_plot_get_title(ESL_PLOT(first)), "● Variables"),
               "pressing in the first plot makes it the current one (%s)",
               esl_plot_get_title(ESL_PLOT(first)));
        esl_plot_board_set_current_plot(v->board, 2);
        gtk_widget_activate_action(window, "win.remove-plot", NULL);
        esl_plot_board_set_current_plot(v->board, 1);
        GtkWidget *remove = find_button_with_icon(GTK_WIDGET(v->browser), "list-remove-symbolic");
        if (remove)
            g_signal_emit_by_name(remove, "clicked");
        tap_ok(esl_plot_board_get_n_plots(v->board) == 1 &&
                   series_of(esl_plot_board_get_plot(v->board, 0), "crank:kinetic") == 0,
               "Remove plot takes the second plot away and leaves the first");
        tap_ok(press(GTK_WIDGET(v->browser), "Escape") &&
                   !gtk_widget_get_visible(GTK_WIDGET(v->browser)),
               "Escape closes the browser");
        gtk_window_destroy(GTK_WINDOW(window));
        return G_SOURCE_REMOVE;
    }
    }
    return G_SOURCE_REMOVE;
}

static void on_run_finished(EslWindow *window, int status, gint64 run_id, Variables *v)
{
    (void)window;
    (void)run_id;
    tap_ok(status == 1 /* ESL_RUN_FINISHED */, "the run finishes");
    g_timeout_add(600, step, v);
}

static void activate(GtkApplication *app, Variables *v)
{
    v->window = ESL_WINDOW(gtk_application_get_active_window(app));
    v->board = ESL_PLOT_BOARD(find_nth(GTK_WIDGET(v->window), ESL_TYPE_PLOT_BOARD, 0));
    g_autoptr(GError) error = NULL;
    tap_ok(esl_window_load_model(v->window, "four-bar-spatial", &error), "the four-bar loads");
    esl_window_set_duration(v->window, 1.0);
    g_signal_connect(v->window, "run-finished", G_CALLBACK(on_run_finished), v);
    gtk_widget_activate_action(GTK_WIDGET(v->window), "win.run", NULL);
    g_timeout_add_seconds(TIMEOUT_S, ui_test_timed_out, GINT_TO_POINTER(TIMEOUT_S));
}

int main(void)
{
    Variables v = {0};
    /* the screenshots in Spanish: ESLABON_LOCALEDIR=build/po LANGUAGE=es */
    const char *localedir = g_getenv("ESLABON_LOCALEDIR");
    if (localedir) {
        setlocale(LC_ALL, "");
        bindtextdomain(GETTEXT_PACKAGE, localedir);
        bind_textdomain_codeset(GETTEXT_PACKAGE, "UTF-8");
        textdomain(GETTEXT_PACKAGE);
    }
    v.dir = g_dir_make_tmp("eslabon-variables-XXXXXX", NULL);
    g_setenv("XDG_DATA_HOME", v.dir, TRUE);
    g_autoptr(EslApplication) app = esl_application_new();
    g_application_set_flags(G_APPLICATION(app),
                            g_application_get_flags(G_APPLICATION(app)) |
                                G_APPLICATION_NON_UNIQUE);
    g_signal_connect_after(app, "activate", G_CALLBACK(activate), &v);
    char *argv[] = {"test_window_variables", NULL};
    g_application_run(G_APPLICATION(app), 1, argv);
    return tap_done();
}
