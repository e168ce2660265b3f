/* Comparing one variable across runs (issue 26, defect 1): a variable plotted from an ali3p run
 * is still plotted after a penalty run, with that run's values; Ctrl+clicking both runs draws it
 * for each (one series per run, its legend naming the run, a colour per run), and another
 * variable can be plotted then ("no run of this model is shown" is not said with two shown).
 * Needs a display (xvfb-run). */
#include <gtk/gtk.h>
#include <string.h>

#include "esl-application.h"
#include "esl-plot-board.h"
#include "esl-plot.h"
#include "esl-run-browser.h"
#include "esl-window.h"
#include "esl-window-testing.h"
#include "tap.h"
#include "ui-test.h"

typedef struct {
    EslWindow *window;
    EslPlotBoard *board;
    int finished;
} Compare;

static void on_finished(EslWindow *window, int status, gint64 run_id, Compare *c)
{
    (void)window, (void)run_id;
    tap_ok(status == 1, "run %d finishes", c->finished + 1);
    c->finished++;
}

static void run_with(Compare *c, const char *formulation)
{
    int before = c->finished;
    tap_ok(esl_window_set_formulation(c->window, formulation), "%s is chosen", formulation);
    gtk_widget_activate_action(GTK_WIDGET(c->window), "win.run", NULL);
    while (c->finished == before)
        g_main_context_iteration(NULL, TRUE);
    iterate_pending();
}

/* The series of plot p named `name` or "name · ..." and how many points the first has. */
static int series_named(EslPlot *plot, const char *name, int *points)
{
    int found = 0;
    *points = 0;
    g_autofree char *prefix = g_strdup_printf("%s · ", name);
    for (int s = 0; s < esl_plot_get_n_series(plot); s++) {
        const char *n = esl_plot_series_name(plot, s);
        if (g_str_equal(n, name) || g_str_has_prefix(n, prefix)) {
            if (!found)
                *points = esl_plot_series_length(plot, s);
            found++;
        }
    }
    return found;
}

static void check(GtkApplication *app, Compare *c)
{
    c->window = ESL_WINDOW(gtk_application_get_active_window(app));
    c->board = ESL_PLOT_BOARD(find_nth(GTK_WIDGET(c->window), ESL_TYPE_PLOT_BOARD, 0));
    g_timeout_add_seconds(120, ui_test_timed_out, GINT_TO_POINTER(120));
    g_signal_connect(c->window, "run-finished", G_CALLBACK(on_finished), c);
    g_autoptr(GError) error = NULL;
    tap_ok(esl_window_load_model(c->window, "four-bar-spatial", &error), "the four-bar loads");
    esl_window_set_duration(c->window, 0.2);
    run_with(c, "ali3p");
    tap_ok(esl_window_plot_variable(c->window, "crank:kinetic", &error),
           "crank:kinetic of the ali3p run is plotted");
    EslPlot *plot = esl_plot_board_get_plot(c->board, 0);
    int points = 0, found = series_named(plot, "crank:kinetic", &points);
    tap_ok(found == 1 && points > 10, "one series of %d points", points);

    run_with(c, "penalty");
    tap_ok(esl_plot_board_get_n_plots(c->board) == 1, "the variable plot survives a new run");
    plot = esl_plot_board_get_plot(c->board, 0);
    found = plot ? series_named(plot, "crank:kinetic", &points) : 0;
    tap_ok(found == 1 && points > 10, "and draws crank:kinetic for the new run (%d points)",
           points);

    EslRunBrowser *browser =
        ESL_RUN_BROWSER(find_nth(GTK_WIDGET(c->window), ESL_TYPE_RUN_BROWSER, 0));
    esl_run_browser_click_row(browser, 0, 0);
    esl_run_browser_click_row(browser, 1, GDK_CONTROL_MASK);
    iterate_pending();
    g_autoptr(GArray) ids = esl_run_browser_get_selected(browser);
    tap_ok(ids->len == 2, "two runs are shown (%u)", ids->len);
    plot = esl_plot_board_get_plot(c->board, 0);
    tap_ok(series_named(plot, "crank:kinetic", &points) == 2 && points > 10,
           "crank:kinetic is drawn for each shown run");
    gboolean named = TRUE;
    for (int s = 0; s < esl_plot_get_n_series(plot); s++)
        named &= strstr(esl_plot_series_name(plot, s), "#") != NULL;
    tap_ok(named, "each legend names its run (%s)", esl_plot_get_n_series(plot) > 0
                                                        ? esl_plot_series_name(plot, 0)
                                                        : "none");
    g_clear_error(&error);
    tap_ok(esl_window_plot_variable(c->window, "coupler:kinetic", &error),
           "another variable is plotted with two runs shown%s%s", error ? ": " : "",
           error ? error->message : "");
    tap_ok(series_named(plot, "coupler:kinetic", &points) == 2,
           "for each of the two runs");
    gtk_window_destroy(GTK_WINDOW(c->window));
}

int main(void)
{
    Compare c = {0};
    run_application("test_window_compare_variables", G_CALLBACK(check), &c);
    return tap_done();
}
