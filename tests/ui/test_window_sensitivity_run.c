/* Sensitivity runs from the window (issue 10): the run panel's Sensitivities choice offers the
 * formulation's methods (penalty: direct and fd; matrix-r: also adjoint), and Run computes them
 * on the worker thread while the plot board fills:
 *  - penalty direct on five-bar (h 0.01 s, 1 s): the running-gradient plots get 101 points per
 *    objective and parameter, the d q / d rho plots (the first three parameters: the cells the
 *    board has left) 101 per coordinate; at the
 *    end the gradient table shows the gradient stored in the project;
 *  - ali3p direct stopped at once ends as a stopped run;
 *  - penalty fd, then the fd and direct runs selected together: the agreement table shows both
 *    gradients (the direct column as stored) and every relative difference below 1e-4;
 *  - matrix-r adjoint (trapezoidal rule) with its own settings from the chooser (forward
 *    differences for the state derivatives): the stored gradient is the engine's for those
 *    settings, not for the defaults; selected in the run list, the stored run shows the
 *    method and those options in the chooser again.
 *  - at 1280x720 (the screen meson gives it) the gradient table of the direct run shows all
 *    its cells under the plots, the board scrolled to it and still between the side panels.
 * usage: test_window_sensitivity_run. Needs a display (xvfb-run), 1280x720 for the layout.
 * ESL_SCREENSHOT=FILE.png saves the screen after the direct run, ESL_SCREENSHOT_AGREEMENT=FILE.png
 * with the agreement table, ESL_SCREENSHOT_MATRIX_R=FILE.png after the matrix-r run. */
#include <glib/gstdio.h>
#include <glib/gi18n.h>
#include <gtk/gtk.h>
#include <locale.h>
#include <math.h>
#include <stdlib.h>

#include "esl-application.h"
#include "esl-gradient-table.h"
#include "esl-model-file.h"
#include "esl-number.h"
#include "esl-plot-board.h"
#include "esl-run-browser.h"
#include "esl-run-settings.h"
#include "esl-window.h"
#include "esl-window-testing.h"
#include "tap.h"
#include "ui-test.h"

#define TIMEOUT_S 120

static char *project_path;
static int phase;
static int live_state_points;

static GtkWidget *find_type(GtkWidget *widget, GType type)
{
    return find_nth(widget, type, 0);
}

static EslSensitivityChooser *chooser(EslWindow *window)
{
    return esl_run_settings_get_sensitivity(
        ESL_RUN_SETTINGS(find_type(GTK_WIDGET(window), ESL_TYPE_RUN_SETTINGS)));
}

static gboolean start_stopped_run(gpointer data)
{
    EslWindow *window = data;
    tap_ok(esl_window_set_formulation(window, "ali3p") &&
               esl_sensitivity_chooser_set_method(chooser(window), "direct"),
           "ali3p offers direct sensitivities");
    gtk_widget_activate_action(GTK_WIDGET(window), "win.run", NULL);
    gtk_widget_activate_action(GTK_WIDGET(window), "win.stop", NULL);
    return G_SOURCE_REMOVE;
}

static gboolean start_fd_run(gpointer data)
{
    EslWindow *window = data;
    esl_window_set_formulation(window, "penalty");
    esl_window_set_sensitivity_method(window, "fd");
    gtk_widget_activate_action(GTK_WIDGET(window), "win.run", NULL);
    return G_SOURCE_REMOVE;
}

static gboolean start_matrix_r_run(gpointer data);

/* Rows newest first: fd (0), the stopped ali3p run (1), direct (2). */
static gboolean check_agreement(gpointer data)
{
    EslWindow *window = data;
    EslRunBrowser *browser = ESL_RUN_BROWSER(find_type(GTK_WIDGET(window), ESL_TYPE_RUN_BROWSER));
    EslPlotBoard *board = ESL_PLOT_BOARD(find_type(GTK_WIDGET(window), ESL_TYPE_PLOT_BOARD));
    /* the direct run replayed alone: its stored d q / d rho of every coordinate (4) and d r /
     * d rho of 12:2, for the 3 parameters that have a plot */
    esl_run_browser_click_row(browser, 2, 0);
    int replayed = esl_plot_board_state_sensitivity_points(board);
    tap_ok(replayed == 3 * (4 + 3) * 101,
           "the stored direct run replays d q / d rho of its 4 coordinates and d r / d rho of "
           "12:2: %d points (3 x 7 x 101; live: %d)", replayed, live_state_points);
    esl_run_browser_click_row(browser, 0, 0);
    esl_run_browser_click_row(browser, 2, GDK_CONTROL_MASK);
    GtkWidget *table = esl_plot_board_gradient_table(board);
    EslGradientTable *t = table ? ESL_GRADIENT_TABLE(table) : NULL;
    tap_ok(t && !g_strcmp0(esl_gradient_table_grid_text(t, 1, 0), "fd") &&
               !g_strcmp0(esl_gradient_table_grid_text(t, 2, 0), "direct"),
           "selecting the fd and direct runs shows their gradients side by side");
    double worst = 0.0;
    int rows = 0;
    for (int row = 1; t && esl_gradient_table_grid_text(t, 3, row); row++, rows++) {
        /* printed in the locale's numbers: 4,5e-05 in Spanish */
        g_autofree char *text = g_strdup(esl_gradient_table_grid_text(t, 3, row));
        worst = fmax(worst, g_ascii_strtod(g_strdelimit(text, ",", '.'), NULL));
    }
    tap_ok(rows == 3 * 5 && worst < 1e-4,
           "%d derivatives, largest relative difference fd / direct %.1e (< 1e-4)", rows, worst);
    save_screenshot_as("ESL_SCREENSHOT_AGREEMENT");
    g_idle_add(start_matrix_r_run, window);
    return G_SOURCE_REMOVE;
}

/* matrix-r adjoint with the trapezoidal rule (what its sensitivities differentiate) and its
 * own options: forward differences for the state derivatives, given through the chooser. */
static MbsSettings matrix_r_options;

static gboolean start_matrix_r_run(gpointer data)
{
    EslWindow *window = data;
    EslRunSettings *panel = ESL_RUN_SETTINGS(find_type(GTK_WIDGET(window), ESL_TYPE_RUN_SETTINGS));
    MbsSettings s;
    esl_run_settings_read(panel, &s);
    mbs_settings_for(&s, mbs_formulation_find("matrix-r"));
    mbs_settings_set_for(&s, "matrix-r", "integrator", "trapezoidal", NULL);
    esl_run_settings_show(panel, "matrix-r", &s);
    EslSensitivityChooser *c = chooser(window);
    const MbsSettingTable *t = mbs_sensitivity_settings("matrix-r", MBS_SENSITIVITY_ADJOINT);
    MbsSettings shown;
    gboolean none_for_fd = esl_sensitivity_chooser_set_method(c, "fd") &&
                           !esl_sensitivity_chooser_get_options(c, &shown);
    esl_sensitivity_chooser_set_method(c, "adjoint");
    MbsSettings want;
    mbs_settings_defaults(&want);
    if (t)
        mbs_settings_use_options(&want, t);
    gboolean defaults = t && esl_sensitivity_chooser_get_options(c, &shown) == t;
    for (int i = 0; defaults && i < t->count; i++) {
        double a = mbs_settings_number(&shown, t->items[i].name);
        double b = mbs_settings_number(&want, t->items[i].name);
        defaults = a == b || fabs(a / b - 1) < 1e-12; /* logarithmic rows: to round-off */
    }
    tap_ok(t && none_for_fd && defaults,
           "matrix-r adjoint offers its %d own settings at their defaults (fd has none)",
           t ? t->count : 0);
    mbs_settings_defaults(&matrix_r_options);
    mbs_settings_set(&matrix_r_options, t, "jacobian", "nd-forward", NULL);
    esl_sensitivity_chooser_show_options(c, &matrix_r_options);
    gtk_widget_activate_action(GTK_WIDGET(window), "win.run", NULL);
    return G_SOURCE_REMOVE;
}

/* The stored gradient is the engine's for the options given, bit for bit, not the defaults'. */
static void check_matrix_r_run(EslWindow *window, int status, gint64 run_id)
{
    g_autoptr(GError) error = NULL;
    EslProject *project = esl_project_open(project_path, FALSE, &error);
    g_autoptr(EslSensitivityRun) run =
        project ? esl_project_load_sensitivity(project, run_id, &error) : NULL;
    if (project)
        esl_project_close(project);
    g_autofree char *path =
        g_build_filename(g_getenv("ESLABON_MODELS_DIR"), "five-bar.json", NULL);
    MbsModel *m = esl_model_load_file(path, NULL, 0, NULL);
    EslRunSettings *panel = ESL_RUN_SETTINGS(find_type(GTK_WIDGET(window), ESL_TYPE_RUN_SETTINGS));
    MbsSettings s;
    esl_run_settings_read(panel, &s);
    int objectives[] = {0, 1, 2}, parameters[5];
    int np = 0;
    for (int k = 0; m && k < m->nparameters && np < 5; k++)
        if (mbs_model_parameter_is_free(m, k))
            parameters[np++] = k;
    double psi[3], given[15], defaults[15];
    MbsSensitivityProblem p = {.model = m, .formulation = "matrix-r", .settings = &s,
                               .objectives = objectives, .nobjectives = 3,
                               .parameters = parameters, .nparameters = np,
                               .method_options = matrix_r_options.options.bytes};
    MbsSensitivityResult r = {.psi = psi, .gradient = given};
    MbsError err = {0};
    gboolean computed = m && np == 5 && mbs_sensitivity_compute(&p, MBS_SENSITIVITY_ADJOINT, &r, &err) == 0;
    p.method_options = NULL;
    r.gradient = defaults;
    computed = computed && mbs_sensitivity_compute(&p, MBS_SENSITIVITY_ADJOINT, &r, &err) == 0;
    tap_ok(status == ESL_RUN_FINISHED && run && run->gradient && computed &&
               run->nobjectives == 3 && run->nparameters == 5 &&
               !memcmp(run->gradient, given, sizeof given) &&
               memcmp(run->gradient, defaults, sizeof defaults) != 0,
           "the matrix-r adjoint run with forward-difference state derivatives stores the "
           "engine's gradient for them (%.17g), not the defaults' (%.17g)%s%s",
           run && run->gradient ? run->gradient[0] : NAN, defaults[0], err.message,
           error ? error->message : "");
    save_screenshot_as("ESL_SCREENSHOT_MATRIX_R");
    mbs_model_free(m);

    /* Replayed, the run shows its method and the method's options in the chooser (the panel
     * shows its formulation settings), whatever the chooser showed before; the fd run shows
     * fd, without options. */
    EslSensitivityChooser *c = chooser(window);
    esl_sensitivity_chooser_set_method(c, "direct");
    MbsSettings defaults_shown;
    mbs_settings_defaults(&defaults_shown);
    mbs_settings_use_options(&defaults_shown, matrix_r_options.options_table);
    esl_sensitivity_chooser_show_options(c, &defaults_shown);
    EslRunBrowser *browser = ESL_RUN_BROWSER(find_type(GTK_WIDGET(window), ESL_TYPE_RUN_BROWSER));
    esl_run_browser_click_row(browser, 0, 0);
    g_autoptr(GArray) o = g_array_new(FALSE, FALSE, sizeof(int));
    g_autoptr(GArray) k = g_array_new(FALSE, FALSE, sizeof(int));
    MbsSettings shown;
    int method = esl_sensitivity_chooser_get(c, o, k, NULL);
    const MbsSettingTable *t = esl_sensitivity_chooser_get_options(c, &shown);
    gboolean same = t && t == matrix_r_options.options_table;
    for (int i = 0; same && i < t->count; i++) {
        double a = mbs_settings_number(&shown, t->items[i].name);
        double b = mbs_settings_number(&matrix_r_options, t->items[i].name);
        same = a == b || fabs(a / b - 1) < 1e-12; /* logarithmic rows: to round-off */
    }
    tap_ok(method == MBS_SENSITIVITY_ADJOINT && same &&
               mbs_settings_number(&shown, "jacobian") !=
                   mbs_settings_number(&defaults_shown, "jacobian"),
           "selecting the stored matrix-r run shows adjoint and its options in the chooser "
           "(state derivatives by forward differences, not the defaults)");
    esl_run_browser_click_row(browser, 1, 0);
    tap_ok(esl_sensitivity_chooser_get(c, o, k, NULL) == MBS_SENSITIVITY_FD &&
               !esl_sensitivity_chooser_get_options(c, &shown),
           "selecting the stored penalty fd run shows fd, without options of its own");
}

/* Whether r lies in the box of size w x h at the origin (half a pixel of rounding). */
static gboolean inside(const graphene_rect_t *r, double w, double h)
{
    return r->size.width >= 1 && r->size.height >= 1 && r->origin.x >= -0.5 &&
           r->origin.y >= -0.5 && r->origin.x + r->size.width <= w + 0.5 &&
           r->origin.y + r->size.height <= h + 0.5;
}

/* At 1280x720 (the screen this test runs on) the gradient table of the five-bar's 3 objectives
 * x 5 parameters is readable: every cell inside the table's own scrolled window (nothing of it
 * scrolled out of the table) and, the board having scrolled to it, inside the board's; the
 * board stays between the side panels. */
static gboolean check_table_layout(gpointer data)
{
    EslWindow *window = data;
    GtkWidget *w = GTK_WIDGET(window);
    EslPlotBoard *board = ESL_PLOT_BOARD(find_type(w, ESL_TYPE_PLOT_BOARD));
    GtkWidget *table = esl_plot_board_gradient_table(board);
    GtkWidget *table_view = table ? find_type(table, GTK_TYPE_SCROLLED_WINDOW) : NULL;
    GtkWidget *cells = table ? find_type(table, GTK_TYPE_GRID) : NULL;
    GtkWidget *board_view = find_type(GTK_WIDGET(board), GTK_TYPE_SCROLLED_WINDOW);
    int seen = 0, readable = 0;
    for (GtkWidget *c = cells ? gtk_widget_get_first_child(cells) : NULL; c;
         c = gtk_widget_get_next_sibling(c), seen++) {
        graphene_rect_t in_table, in_board;
        gboolean ok = gtk_widget_compute_bounds(c, table_view, &in_table) &&
                      inside(&in_table, gtk_widget_get_width(table_view),
                             gtk_widget_get_height(table_view)) &&
                      gtk_widget_compute_bounds(c, board_view, &in_board) &&
                      inside(&in_board, gtk_widget_get_width(board_view),
                             gtk_widget_get_height(board_view));
        if (ok)
            readable++;
        else
            tap_diag("cell '%s' is not in view", gtk_label_get_text(GTK_LABEL(c)));
    }
    /* the header row (corner, rho, 3 objectives), psi's row (its name and 3 values) and per
     * parameter its name, value and 3 derivatives */
    tap_ok(seen == 5 + 4 + 5 * 5 && readable == seen,
           "the gradient table shows all its %d cells (3 objectives x 5 parameters, headings, "
           "psi and rho) without scrolling it (%d in view, table %dx%d)",
           seen, readable, table_view ? gtk_widget_get_width(table_view) : 0,
           table_view ? gtk_widget_get_height(table_view) : 0);
    graphene_rect_t b, left, right;
    GtkWidget *sidebar = find_type(w, GTK_TYPE_NOTEBOOK);
    GtkWidget *run_panel = gtk_widget_get_ancestor(find_type(w, ESL_TYPE_RUN_SETTINGS),
                                                   GTK_TYPE_SCROLLED_WINDOW);
    gboolean between = gtk_widget_compute_bounds(GTK_WIDGET(board), w, &b) &&
                       gtk_widget_compute_bounds(sidebar, w, &left) &&
                       gtk_widget_compute_bounds(run_panel, w, &right) &&
                       inside(&b, gtk_widget_get_width(w), gtk_widget_get_height(w)) &&
                       b.origin.x >= left.origin.x + left.size.width - 0.5 &&
                       b.origin.x + b.size.width <= right.origin.x + 0.5;
    tap_ok(between, "the plot board stays between the side panels (%.0fx%.0f at %.0f,%.0f)",
           b.size.width, b.size.height, b.origin.x, b.origin.y);
    save_screenshot_as("ESL_SCREENSHOT");
    /* the wheel over the table scrolls the board (the table scrolls sideways only): the
     * table's rule (ui/esl-wheel.c) is what a wheel event meets first */
    GtkAdjustment *board_adj =
        gtk_scrolled_window_get_vadjustment(GTK_SCROLLED_WINDOW(board_view));
    double revealed = gtk_adjustment_get_value(board_adj);
    GtkEventController *rule = table_view ? find_controller(table_view, "esl-sideways-wheel")
                                          : NULL;
    gboolean handled = FALSE;
    if (rule)
        g_signal_emit_by_name(rule, "scroll", 0.0, -10.0, &handled);
    /* on a screen where plots and table fit together (not 1280x720) nothing scrolls */
    gboolean fits = gtk_adjustment_get_upper(board_adj) <=
                    gtk_adjustment_get_page_size(board_adj) + 0.5;
    tap_ok(fits ? revealed == 0 && gtk_adjustment_get_value(board_adj) == 0
                : revealed > 0 && handled && gtk_adjustment_get_value(board_adj) == 0,
           "the board had scrolled down to the table (%.0f px); the wheel over the table "
           "scrolls it back up (%.0f)%s", revealed, gtk_adjustment_get_value(board_adj),
           fits ? " (the board fits this screen: nothing to scroll)" : "");
    g_idle_add(start_stopped_run, window);
    return G_SOURCE_REMOVE;
}

static void on_finished(EslWindow *window, int status, gint64 run_id, gpointer data)
{
    (void)data;
    EslPlotBoard *board = ESL_PLOT_BOARD(find_type(GTK_WIDGET(window), ESL_TYPE_PLOT_BOARD));
    if (phase++ == 0) {
        tap_ok(status == ESL_RUN_FINISHED, "the penalty direct sensitivity run finishes");
        int gradient_points = esl_plot_board_sensitivity_points(board) -
                              esl_plot_board_state_sensitivity_points(board);
        /* five-bar: 3 objectives, 5 free parameters, 2 of its 4 joint coordinates chosen
         * (penalty: relative); 3 gradient plots leave room for the d q / d rho plots of the
         * first 3 parameters (the table goes under the plots) */
        tap_ok(gradient_points == 3 * 5 * 101,
               "the running-gradient plots were filled live: %d points (3 x 5 x 101)",
               gradient_points);
        int state_points = esl_plot_board_state_sensitivity_points(board);
        live_state_points = state_points;
        tap_ok(state_points == 3 * (2 + 3) * 101,
               "the d q / d rho and d r / d rho plots of the chosen outputs were filled live: "
               "%d points (3 parameters x (2 coordinates + x, y, z of 12:2) x 101)",
               state_points);
        g_autoptr(GError) error = NULL;
        EslProject *project = esl_project_open(project_path, FALSE, &error);
        g_autoptr(EslSensitivityRun) run =
            project ? esl_project_load_sensitivity(project, run_id, &error) : NULL;
        GtkWidget *table = esl_plot_board_gradient_table(board);
        gboolean same = run && run->gradient && table && run->n == 101;
        for (int i = 0; same && i < run->nobjectives; i++)
            for (int k = 0; same && k < run->nparameters; k++) {
                g_autofree char *want =
                    esl_number_to_text(run->gradient[i * run->nparameters + k], 6, NULL);
                same = !g_strcmp0(esl_gradient_table_cell_text(ESL_GRADIENT_TABLE(table), k, i),
                                  want);
            }
        tap_ok(same, "the gradient table shows the stored gradient (101 stored rows)%s%s",
               error ? ": " : "", error ? error->message : "");
        tap_ok(run && run->npoints == 1 && !g_strcmp0(run->points[0], "12:2") &&
                   run->history_points && run->nstate == 4,
               "the project stores the point 12:2 with its d r / d rho at every row");
        if (project)
            esl_project_close(project);
        g_timeout_add(800, check_table_layout, window); /* laid out and revealed by then */
        return;
    }
    if (phase == 2) {
        tap_ok(status == ESL_RUN_STOPPED, "the ali3p run stopped at once ends as stopped (%d)",
               status);
        g_idle_add(start_fd_run, window);
        return;
    }
    if (phase == 3) {
        tap_ok(status == ESL_RUN_FINISHED, "the penalty fd run finishes");
        g_idle_add(check_agreement, window);
        return;
    }
    check_matrix_r_run(window, status, run_id);
    gtk_window_destroy(GTK_WINDOW(window));
}

static void activate(GtkApplication *app, gpointer data)
{
    (void)data;
    EslWindow *window = ESL_WINDOW(gtk_application_get_active_window(app));
    g_autoptr(GError) error = NULL;
    tap_ok(esl_window_open_project(window, project_path, TRUE, &error) &&
               esl_window_load_model(window, "five-bar", &error),
           "a new project and five-bar open%s%s", error ? ": " : "",
           error ? error->message : "");
    EslSensitivityChooser *c = chooser(window);
    tap_ok(esl_window_set_formulation(window, "penalty") &&
               esl_sensitivity_chooser_set_method(c, "direct") &&
               esl_sensitivity_chooser_set_method(c, "fd") &&
               !esl_sensitivity_chooser_set_method(c, "adjoint"),
           "penalty offers direct and fd, not adjoint");
    tap_ok(esl_window_set_formulation(window, "matrix-r") &&
               esl_sensitivity_chooser_set_method(c, "adjoint"),
           "matrix-r offers adjoint");
    esl_window_set_formulation(window, "penalty");
    esl_sensitivity_chooser_set_method(c, "direct");
    /* two chosen outputs: the first and third joint coordinates of the four */
    tap_ok(esl_sensitivity_chooser_set_output(c, 1, FALSE) &&
               esl_sensitivity_chooser_set_output(c, 3, FALSE) &&
               !esl_sensitivity_chooser_set_output(c, 4, TRUE),
           "the chooser offers the five-bar's 4 joint coordinates as outputs; 2 unchecked");
    /* and the point 2 of bar 12, whose d r / d rho is plotted and stored */
    g_autofree char *path =
        g_build_filename(g_getenv("ESLABON_MODELS_DIR"), "five-bar.json", NULL);
    MbsModel *m = esl_model_load_file(path, NULL, 0, NULL);
    int point = m ? mbs_model_find_point(m, mbs_model_find_body(m, "12"), "2") : -1;
    int ground_point = m ? mbs_model_find_point(m, m->ground, "A") : -1;
    tap_ok(point >= 0 && esl_sensitivity_chooser_set_point(c, point, TRUE) &&
               !esl_sensitivity_chooser_set_point(c, ground_point, TRUE),
           "the chooser offers the points of moving bodies (12:2 checked), not the ground's");
    mbs_model_free(m);
    start_run(window, 1.0, G_CALLBACK(on_finished), NULL, TIMEOUT_S);
}

int main(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    /* ESLABON_LOCALEDIR=build/po LANGUAGE=es: the screens in Spanish (for screenshots) */
    setlocale(LC_ALL, "");
    if (g_getenv("ESLABON_LOCALEDIR")) {
        bindtextdomain("eslabon", g_getenv("ESLABON_LOCALEDIR"));
        bind_textdomain_codeset("eslabon", "UTF-8");
        textdomain("eslabon");
    }
    g_autofree char *dir = g_dir_make_tmp("esl-window-sens-run-XXXXXX", NULL);
    project_path = g_build_filename(dir, "sens.eslabon", NULL);
    run_application("test_window_sensitivity_run", G_CALLBACK(activate), NULL);
    tap_ok(phase == 4, "the four runs finished");
    remove_project(project_path);
    g_rmdir(dir);
    g_free(project_path);
    return tap_done();
}
