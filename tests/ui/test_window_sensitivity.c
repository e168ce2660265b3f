/* A stored sensitivity run in the window (issue 10): made by `eslabon-cli sensitivity
 * --project`, it is listed as a sensitivity run; selecting it plots the running gradient per
 * objective (one series per parameter, every stored history row) in the plot board and shows
 * the gradient as printed by the command, and per parameter the stored sensitivities of the joint
 * coordinates (schema 8); presentation mode (F11) shows the running gradients, drawn larger,
 * and no monitor plot over them, Escape brings the rest back at their normal size; selecting a
 * plain run brings the monitor plots back.
 * usage: test_window_sensitivity ESLABON_CLI MODELS_DIR. Needs a display (xvfb-run).
 * ESL_SCREENSHOT=FILE.png also saves the screen with the sensitivity run shown,
 * ESL_SCREENSHOT_PRESENTATION=FILE.png in presentation mode. */
#include <glib/gstdio.h>
#include <gtk/gtk.h>
#include <json-glib/json-glib.h>
#include <stdlib.h>
#include <string.h>

#include "esl-application.h"
#include "esl-gradient-table.h"
#include "esl-number.h"
#include "esl-plot-board.h"
#include "esl-plot.h"
#include "esl-run-browser.h"
#include "esl-window.h"
#include "esl-window-testing.h"
#include "tap.h"
#include "ui-test.h"

#define TIMEOUT_S 60

static char *project_path;
static JsonObject *printed; /* the --json of the sensitivity command */

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

static gboolean check(gpointer data)
{
    EslWindow *window = data;
    EslRunBrowser *browser = ESL_RUN_BROWSER(find_type(GTK_WIDGET(window), ESL_TYPE_RUN_BROWSER));
    EslPlotBoard *board = ESL_PLOT_BOARD(find_type(GTK_WIDGET(window), ESL_TYPE_PLOT_BOARD));
    /* Newest first: row 0 is the plain run, row 1 the sensitivity run. */
    esl_run_browser_click_row(browser, 1, 0);
    int state_points = esl_plot_board_state_sensitivity_points(board);
    int points = esl_plot_board_sensitivity_points(board) - state_points;
    JsonArray *objectives = json_object_get_array_member(printed, "objectives");
    JsonArray *parameters = json_object_get_array_member(printed, "parameters");
    int no = (int)json_array_get_length(objectives), np = (int)json_array_get_length(parameters);
    tap_ok(points == no * np * 101,
           "the sensitivity run plots %d objectives x %d parameters x 101 history rows (%d points)",
           no, np, points);
    /* the stored d q / d rho replayed: per parameter a plot of the five-bar's 4 joint
     * coordinates (penalty, relative coordinates), every stored row */
    tap_ok(state_points == np * 4 * 101,
           "and the stored coordinates' sensitivities: %d parameters x 4 joint coordinates x 101 "
           "rows (%d points)", np, state_points);
    GtkWidget *table = esl_plot_board_gradient_table(board);
    gboolean same = table != NULL;
    JsonArray *gradient = json_object_get_array_member(printed, "gradient");
    for (int i = 0; same && i < no; i++)
        for (int k = 0; same && k < np; k++) {
            double d = json_array_get_double_element(json_array_get_array_element(gradient, i), k);
            g_autofree char *want = esl_number_to_text(d, 6, NULL);
            const char *got = esl_gradient_table_cell_text(ESL_GRADIENT_TABLE(table), k, i);
            same = g_strcmp0(got, want) == 0;
            if (!same)
                tap_diag("cell %d,%d: %s, printed %s", k, i, got ? got : "(none)", want);
        }
    tap_ok(same, "the gradient table shows the printed gradient (%d x %d cells)", np, no);
    save_screenshot_if_asked();

    /* Presentation mode presents the run's running gradients (one plot per objective), not
     * the energy plot on top of them; its d q / d rho plots and table come back after. */
    GtkWidget *root = GTK_WIDGET(window), *energy = find_plot(root, "Energy");
    int larger, before = shown_plots(GTK_WIDGET(board), &larger);
    gboolean pressed = press(root, "F11");
    iterate_pending();
    int shown = shown_plots(GTK_WIDGET(board), &larger);
    tap_ok(pressed && shown == no && larger == no && !gtk_widget_get_mapped(energy) && table &&
               !gtk_widget_get_mapped(table),
           "in presentation its %d running gradients are shown, drawn larger (%d), and no "
           "monitor plot (%d shown of %d)", no, larger, shown, before);
    save_screenshot_as("ESL_SCREENSHOT_PRESENTATION");
    pressed = press(root, "Escape");
    iterate_pending();
    shown = shown_plots(GTK_WIDGET(board), &larger);
    tap_ok(pressed && shown == before && before == no + np && larger == 0 &&
               !gtk_widget_get_mapped(energy) && gtk_widget_get_mapped(table),
           "after Escape its %d plots (gradients and d q / d rho) and its table at their normal "
           "size, no monitor plot (%d shown, %d larger)", before, shown, larger);
    esl_run_browser_click_row(browser, 0, 0);
    tap_ok(esl_plot_board_sensitivity_points(board) == 0 &&
               esl_plot_board_gradient_table(board) == NULL,
           "selecting the plain run removes the sensitivity plots and table");
    gtk_window_destroy(GTK_WINDOW(window));
    return G_SOURCE_REMOVE;
}

static void activate(GtkApplication *app, gpointer data)
{
    (void)data;
    GtkWidget *window = GTK_WIDGET(gtk_application_get_active_window(app));
    g_autoptr(GError) error = NULL;
    tap_ok(esl_window_open_project(ESL_WINDOW(window), project_path, FALSE, &error) &&
               esl_window_load_model(ESL_WINDOW(window), "five-bar", &error),
           "the project with a sensitivity run and its model open%s%s", error ? ": " : "",
           error ? error->message : "");
    g_timeout_add(1500, check, window);
    g_timeout_add_seconds(TIMEOUT_S, ui_test_timed_out, GINT_TO_POINTER(TIMEOUT_S));
}

int main(int argc, char **argv)
{
    if (argc != 3)
        return 2;
    g_autofree char *dir = g_dir_make_tmp("esl-window-sens-XXXXXX", NULL);
    project_path = g_build_filename(dir, "sens.eslabon", NULL);
    g_autofree char *model = g_build_filename(argv[2], "five-bar.json", NULL);
    const char *sens[] = {argv[1], "sensitivity", model, "--step", "0.01", "--duration", "1",
                          "--parameters", "Ls1,Ls2", "--json", "--project", project_path, NULL};
    const char *run[] = {argv[1], "run", model, "--step", "0.01", "--duration", "0.1",
                         "--project", project_path, NULL};
    g_autofree char *out = NULL;
    g_autofree char *ignored = NULL;
    g_autoptr(JsonParser) parser = json_parser_new();
    gboolean made = run_command(sens, &out) && json_parser_load_from_data(parser, out, -1, NULL) &&
                    run_command(run, &ignored);
    if (!tap_ok(made, "a sensitivity run and a plain run stored by eslabon-cli"))
        return tap_done();
    printed = json_node_get_object(json_parser_get_root(parser));

    run_application("test_window_sensitivity", G_CALLBACK(activate), NULL);
    remove_project(project_path);
    g_rmdir(dir);
    g_free(project_path);
    return tap_done();
}
