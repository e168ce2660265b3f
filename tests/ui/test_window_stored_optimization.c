/* A stored optimisation in the window: made by `eslabon-cli optimize --project` (five-bar,
 * psi1 over Ls1 and Ls2, 1 s), the project opened alone (no model chosen) lists it as an
 * optimisation; selecting it loads its model from the project and plots its history on the
 * plot board — psi and the lowest so far, |grad psi| and the two parameters per evaluation,
 * as many points as the command printed evaluations and the project stores, the last psi the
 * stored one —, the status line says how it ended as the command did; the Optimise dialog
 * opened then lists the same evaluations, with the stored tolerance; selecting a plain run
 * brings the monitor plots back. Presentation mode (F11) shows the optimisation's three plots,
 * drawn larger, and no monitor plot over them; Escape leaves them at their normal size.
 * usage: test_window_stored_optimization ESLABON_CLI MODELS_DIR. Needs a display (xvfb-run).
 * ESL_SCREENSHOT=FILE.png saves the screen with the optimisation on the board,
 * ESL_SCREENSHOT_PRESENTATION=FILE.png in presentation mode, ESL_SCREENSHOT_DIALOG=FILE.png
 * with the dialog opened over it. */
#include <glib/gstdio.h>
#include <gtk/gtk.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "esl-application.h"
#include "esl-number.h"
#include "esl-optimize-dialog.h"
#include "esl-plot-board.h"
#include "esl-plot.h"
#include "esl-project.h"
#include "esl-run-browser.h"
#include "esl-window.h"
#include "esl-window-testing.h"
#include "tap.h"
#include "ui-test.h"

#define TIMEOUT_S 60

static char *project_path;
static int printed_evaluations; /* the evaluation lines the command printed */
static gint64 printed_run;      /* "stored as run N in FILE" */
static gboolean checked;

static int series_points(EslPlot *plot)
{
    int points = 0;
    for (int k = 0; plot && k < esl_plot_get_n_series(plot); k++)
        points += esl_plot_series_length(plot, k);
    return points;
}

static gboolean check(gpointer data)
{
    EslWindow *window = data;
    GtkWidget *root = GTK_WIDGET(window);
    EslRunBrowser *browser = ESL_RUN_BROWSER(find_nth(root, ESL_TYPE_RUN_BROWSER, 0));
    EslPlotBoard *board = ESL_PLOT_BOARD(find_nth(root, ESL_TYPE_PLOT_BOARD, 0));
    g_autoptr(GError) error = NULL;
    EslProject *project = esl_project_open(project_path, FALSE, &error);
    g_autoptr(EslOptimizationRun) o =
        project ? esl_project_load_optimization(project, printed_run, &error) : NULL;
    if (project)
        esl_project_close(project);
    int n = o ? o->n : -1;
    tap_ok(o && n == printed_evaluations && label_with(GTK_WIDGET(browser), "optimisation of psi1"),
           "the project stores run %" G_GINT64_FORMAT " with %d evaluations, as printed (%d); "
           "the run list shows it as an optimisation of psi1%s%s", printed_run, n,
           printed_evaluations, error ? ": " : "", error ? error->message : "");
    if (!o) {
        gtk_window_destroy(GTK_WINDOW(window));
        return G_SOURCE_REMOVE;
    }

    /* Newest first: row 0 is the plain run, row 1 the optimisation. */
    esl_run_browser_click_row(browser, 1, 0);
    iterate_pending();
    EslPlot *psi = esl_plot_board_get_optimization_plot(board, "psi");
    EslPlot *gradient = esl_plot_board_get_optimization_plot(board, "gradient");
    EslPlot *parameters = esl_plot_board_get_optimization_plot(board, "parameters");
    const char *json = esl_window_get_model_json(window);
    tap_ok(json && strstr(json, "\"five-bar\"") && psi && gradient && parameters &&
               gtk_widget_get_visible(GTK_WIDGET(psi)),
           "selected, it loads five-bar from the project and shows three plots over the "
           "evaluations");
    tap_ok(psi && esl_plot_get_n_series(psi) == 2 && esl_plot_series_length(psi, 0) == n &&
               esl_plot_series_length(psi, 1) == n && esl_plot_get_log_y(psi),
           "psi1 and the lowest so far: %d points each (stored %d), on a log scale",
           psi ? esl_plot_series_length(psi, 0) : -1, n);
    tap_ok(gradient && series_points(gradient) == n && parameters &&
               esl_plot_get_n_series(parameters) == 2 && series_points(parameters) == 2 * n,
           "|grad psi1|: %d points; the parameters' path: %d series, %d points (2 x %d)",
           series_points(gradient), parameters ? esl_plot_get_n_series(parameters) : -1,
           series_points(parameters), n);
    g_autofree char *best = esl_number_to_text(o->psi, 8, NULL);
    g_autofree char *ending = g_strdup_printf("Converged after %d evaluations: ψ = %s", n, best);
    GtkWidget *status = label_with(root, ending);
    tap_ok(status && strstr(gtk_label_get_text(GTK_LABEL(status)), "optimisation of psi1") &&
               !g_strcmp0(o->result, "converged"),
           "the status line says how it ended: %s", status ? gtk_label_get_text(GTK_LABEL(status))
                                                       : "(no such line)");
    g_autofree char *evaluations = g_strdup_printf("\n%d evaluations\n", n);
    const char *progress = esl_window_get_progress_text(ESL_WINDOW(window));
    /* the area's text on one TAP line (its newlines broke the TAP stream) */
    g_autofree char *one_line = g_strdelimit(g_strdup(progress ? progress : "(none)"), "\n", ' ');
    tap_ok(progress && strstr(progress, "stored run #") && strstr(progress, evaluations),
           "the progress area shows the stored optimisation, not a live run: %s", one_line);
    EslOptimizeDialog *d = find_toplevel(ESL_TYPE_OPTIMIZE_DIALOG);
    tap_ok(!d || !gtk_widget_get_visible(GTK_WIDGET(d)), "selecting it opens no dialog");
    save_screenshot_as("ESL_SCREENSHOT");

    /* Presentation mode presents its plots, not the energy plot on top of them. */
    int larger, shown;
    gboolean pressed = press(root, "F11");
    iterate_pending();
    shown = shown_plots(GTK_WIDGET(board), &larger);
    tap_ok(pressed && shown == 3 && larger == 3 && gtk_widget_get_mapped(GTK_WIDGET(psi)),
           "in presentation its three plots are shown, drawn larger, and nothing else (%d shown, "
           "%d larger)", shown, larger);
    save_screenshot_as("ESL_SCREENSHOT_PRESENTATION");
    pressed = press(root, "Escape");
    iterate_pending();
    shown = shown_plots(GTK_WIDGET(board), &larger);
    tap_ok(pressed && shown == 3 && larger == 0 && gtk_widget_get_mapped(GTK_WIDGET(psi)),
           "after Escape the same three at their normal size, no monitor plot (%d shown, %d "
           "larger)", shown, larger);

    gtk_widget_activate_action(root, "win.optimize", NULL);
    iterate_pending();
    d = find_toplevel(ESL_TYPE_OPTIMIZE_DIALOG);
    GtkGrid *table = d ? GTK_GRID(esl_optimize_dialog_get_control(d, -1, "table")) : NULL;
    int rows = 0;
    while (table && gtk_grid_get_child_at(table, 0, rows + 1))
        rows++;
    double xtol = NAN;
    GtkWidget *entry = d ? esl_optimize_dialog_get_control(d, -1, "xtol") : NULL;
    if (!entry || !esl_number_from_text(gtk_editable_get_text(GTK_EDITABLE(entry)), &xtol))
        xtol = NAN;
    tap_ok(d && gtk_widget_get_visible(GTK_WIDGET(d)) && rows == n &&
               esl_optimize_dialog_get_stored_run(d) == printed_run && xtol == o->xtol &&
               xtol == 1e-6,
           "Project ▸ Optimise Design… then shows it: %d rows, tolerance %g (stored %g)", rows,
           xtol, o->xtol);
    save_screenshot_as("ESL_SCREENSHOT_DIALOG");
    if (d)
        gtk_window_close(GTK_WINDOW(d));
    iterate_pending();

    esl_run_browser_click_row(browser, 0, 0);
    iterate_pending();
    EslPlot *energy = ESL_PLOT(find_plot(root, "Energy"));
    tap_ok(!esl_plot_board_get_optimization_plot(board, "psi") && energy &&
               gtk_widget_get_visible(GTK_WIDGET(energy)) && series_points(energy) > 0,
           "selecting the plain run brings the monitor plots back (energy: %d points)",
           series_points(energy));
    progress = esl_window_get_progress_text(ESL_WINDOW(window));
    g_autofree char *run_line = g_strdelimit(g_strdup(progress ? progress : "(none)"), "\n", ' ');
    tap_ok(progress && strstr(progress, "stored run #") && strstr(progress, "simulated time: "),
           "and the progress area that run's: %s", run_line);
    checked = TRUE;
    gtk_window_destroy(GTK_WINDOW(window));
    return G_SOURCE_REMOVE;
}

static void activate(GtkApplication *app, gpointer data)
{
    (void)data;
    open_project_then(app, project_path, "the project", check, 500, TIMEOUT_S);
}

int main(int argc, char **argv)
{
    if (argc != 3)
        return 2;
    g_autofree char *dir = g_dir_make_tmp("esl-window-stored-opt-XXXXXX", NULL);
    project_path = g_build_filename(dir, "optimised.eslabon", NULL);
    g_autofree char *model = g_build_filename(argv[2], "five-bar.json", NULL);
    const char *optimize[] = {argv[1], "optimize", model, "--objective", "psi1", "--parameters",
                              "Ls1,Ls2", "--lower", "1.5,1.5", "--upper", "3,3", "--step",
                              "0.01", "--duration", "1", "--xtol", "1e-6", "--project",
                              project_path, NULL};
    const char *run[] = {argv[1], "run", model, "--step", "0.01", "--duration", "0.1",
                         "--project", project_path, NULL};
    g_autofree char *out = NULL, *ignored = NULL;
    gboolean made = run_command(optimize, &out) && run_command(run, &ignored);
    g_auto(GStrv) lines = g_strsplit(out ? out : "", "\n", -1);
    for (int i = 0; lines[i]; i++) {
        int index;
        char word[8];
        if (sscanf(lines[i], "%d %7s =", &index, word) == 2 && !strcmp(word, "psi"))
            printed_evaluations++;
        sscanf(lines[i], "stored as run %" G_GINT64_FORMAT, &printed_run);
    }
    if (!tap_ok(made && printed_evaluations > 1 && printed_run == 1,
                "an optimisation (%d evaluations printed, run %" G_GINT64_FORMAT ") and a plain "
                "run stored by eslabon-cli", printed_evaluations, printed_run))
        return tap_done();

    run_application("test_window_stored_optimization", G_CALLBACK(activate), NULL);
    tap_ok(checked, "every check ran");
    remove_project(project_path);
    g_rmdir(dir);
    g_free(project_path);
    return tap_done();
}
