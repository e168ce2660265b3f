/* The plot area at 1280x720 (issue 26, defect 3; run under xvfb-run -s "-screen 0
 * 1280x720x24"): three runs compared are named in full, once, in a legend above the plots that
 * wraps (each plot's own legend, about 190 px wide, cut them to "#2 penal… +1"); a plot
 * maximised (its menu's Maximise, as a double click) takes the board's area while the others
 * wait, keeps it through a new run, and gives it back. Needs a display (xvfb-run). */
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
} Area;

static void on_finished(EslWindow *window, int status, gint64 run_id, Area *a)
{
    (void)window, (void)run_id;
    tap_ok(status == 1, "run %d finishes", a->finished + 1);
    a->finished++;
}

static void run_with(Area *a, const char *formulation)
{
    int before = a->finished;
    esl_window_set_formulation(a->window, formulation);
    gtk_widget_activate_action(GTK_WIDGET(a->window), "win.run", NULL);
    while (a->finished == before)
        g_main_context_iteration(NULL, TRUE);
    iterate_pending();
}

/* Let the layout settle (a few frames). */
static void settle(void)
{
    for (int i = 0; i < 30; i++) {
        iterate_pending();
        g_usleep(10000);
    }
}

static void check_legend(Area *a, EslPlot *energy)
{
    const char *legend = esl_plot_board_get_run_legend(a->board);
    int n = esl_plot_get_n_series(energy), named = 0;
    for (int s = 0; s < n; s++)
        named += strstr(legend, esl_plot_series_name(energy, s)) != NULL;
    tap_ok(n == 3 && named == 3, "the legend above the plots names the %d runs in full (%d): %s",
           n, named, legend);
    GtkWidget *label = label_with(GTK_WIDGET(a->board), esl_plot_series_name(energy, 2));
    int bw = gtk_widget_get_width(GTK_WIDGET(a->board));
    tap_ok(label && gtk_widget_get_mapped(label) && gtk_widget_get_width(label) <= bw &&
               gtk_widget_get_height(label) > 10,
           "it is shown within the board's width (%d <= %d px, %d px tall)",
           label ? gtk_widget_get_width(label) : -1, bw,
           label ? gtk_widget_get_height(label) : -1);
    const char *titles[] = {"Energy", "Energy drift", "Constraint violation",
                            "Time per step by phase", "Newton iterations per step"};
    int hidden = 0;
    for (size_t i = 0; i < G_N_ELEMENTS(titles); i++)
        hidden += esl_plot_get_legend_hidden(
            ESL_PLOT(find_plot(GTK_WIDGET(a->board), titles[i])));
    tap_ok(hidden == 5, "the five monitor plots leave their cut legends out (%d)", hidden);
}

static void check_maximise(Area *a, EslPlot *energy)
{
    GtkWidget *board = GTK_WIDGET(a->board);
    int larger, before = shown_plots(board, &larger);
    int w0 = gtk_widget_get_width(GTK_WIDGET(energy));
    gtk_widget_activate_action(GTK_WIDGET(energy), "plot.maximized", NULL);
    settle();
    int bw = gtk_widget_get_width(board), bh = gtk_widget_get_height(board);
    int w = gtk_widget_get_width(GTK_WIDGET(energy)), h = gtk_widget_get_height(GTK_WIDGET(energy));
    tap_ok(esl_plot_board_get_maximized(a->board) == energy, "Maximise maximises the plot");
    tap_ok(w >= 0.9 * bw && h >= 0.7 * bh && w > 2 * w0,
           "the energy plot takes the board: %dx%d of %dx%d (it had %d px of width)", w, h, bw,
           bh, w0);
    tap_ok(shown_plots(board, &larger) == 1, "the other %d plots wait out of view", before - 1);
    save_screenshot_as("ESL_SCREENSHOT_MAXIMISED");

    run_with(a, "penalty");
    settle();
    tap_ok(esl_plot_board_get_maximized(a->board) == energy &&
               gtk_widget_get_width(GTK_WIDGET(energy)) >= 0.9 * bw,
           "a new run keeps the plot maximised");
    tap_ok(strlen(esl_plot_board_get_run_legend(a->board)) == 0,
           "one run shown: no legend of runs");
    tap_ok(!esl_plot_get_legend_hidden(energy), "and the plot names its series again");

    gtk_widget_activate_action(GTK_WIDGET(energy), "plot.maximized", NULL);
    settle();
    tap_ok(!esl_plot_board_get_maximized(a->board) && shown_plots(board, &larger) == before,
           "Maximise again gives every plot back (%d shown)", shown_plots(board, &larger));
    tap_ok(gtk_widget_get_width(GTK_WIDGET(energy)) < 0.5 * bw,
           "the energy plot is in its cell again (%d px wide)",
           gtk_widget_get_width(GTK_WIDGET(energy)));
}

static void check(GtkApplication *app, Area *a)
{
    a->window = ESL_WINDOW(gtk_application_get_active_window(app));
    a->board = ESL_PLOT_BOARD(find_nth(GTK_WIDGET(a->window), ESL_TYPE_PLOT_BOARD, 0));
    g_timeout_add_seconds(50, ui_test_timed_out, GINT_TO_POINTER(50));
    g_signal_connect(a->window, "run-finished", G_CALLBACK(on_finished), a);
    g_autoptr(GError) error = NULL;
    tap_ok(esl_window_load_model(a->window, "four-bar-spatial", &error), "the four-bar loads");
    esl_window_set_duration(a->window, 0.1);
    run_with(a, "penalty");
    run_with(a, "ali3p");
    run_with(a, "penalty");
    EslRunBrowser *browser =
        ESL_RUN_BROWSER(find_nth(GTK_WIDGET(a->window), ESL_TYPE_RUN_BROWSER, 0));
    esl_run_browser_click_row(browser, 0, 0);
    esl_run_browser_click_row(browser, 1, GDK_CONTROL_MASK);
    esl_run_browser_click_row(browser, 2, GDK_CONTROL_MASK);
    settle();
    EslPlot *energy = ESL_PLOT(find_plot(GTK_WIDGET(a->board), "Energy"));
    check_legend(a, energy);
    save_screenshot_as("ESL_SCREENSHOT_COMPARE");
    check_maximise(a, energy);
    gtk_window_destroy(GTK_WINDOW(a->window));
}

int main(void)
{
    Area a = {0};
    run_application("test_window_plot_area", G_CALLBACK(check), &a);
    return tap_done();
}
