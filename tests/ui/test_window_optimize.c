/* Design optimisation in the window (ui/esl-optimize-dialog.c), at a projector's 1280x720:
 *  - win.optimize opens the dialog over the window, inside the screen; it offers five-bar's
 *    objectives, its five free parameters with bounds value ± 50 % (Ls1: 1.11803 .. 3.3541),
 *    L-BFGS and SLSQP, and the formulation's gradient methods;
 *  - refusals shown in the dialog: a bound that is not a number, a first evaluation the
 *    loader refuses (L_A1 = 5: "Failed: evaluation 1 at L_A1 = 5: ...");
 *  - Ls1, Ls2 for psi1 with penalty direct gradients (h 0.01 s, 1 s) and a parameter
 *    tolerance of 1e-3 (after "0" is refused): psi1 falls from 0.114 by a factor above 1e10 in
 *    at most 20 evaluations, each on the plot and in the table, fewer than the optimiser needs
 *    at the default 1e-8 (esl_optimizer_run of the same problem), the status says "Converged";
 *  - the project holds it (the failed one too) with every evaluation, its tolerance and its
 *    best x bit for bit; the run list shows it; selected there, the plot board shows its
 *    evaluations (the dialog stays closed), and the dialog opened then shows it again from the
 *    project, its tolerance too;
 *  - Apply onto a model edited meanwhile is refused and changes nothing; Apply then sets
 *    Ls1, Ls2 as one edit: the model's values (and the saved file's) equal the optimiser's x
 *    bit for bit, Undo takes both back, Redo brings them again;
 *  - Stop (from five-bar's own lengths again; h 1 ms, 5 s: evaluations of ~0.3 s) once the
 *    first evaluation has come ends it as stopped with the evaluations done by then (the one
 *    under way does not count, or has just finished), the best of them offered to Apply.
 * usage: test_window_optimize. Needs a display (xvfb-run). ESL_SCREENSHOT_RUNNING=FILE.png saves
 * the screen during the stopped run, ESL_SCREENSHOT=FILE.png after the converged one,
 * ESL_SCREENSHOT_STORED=FILE.png with it shown again from the project. */
#include <glib/gstdio.h>
#include <gtk/gtk.h>
#include <locale.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "esl-application.h"
#include "esl-model-file.h"
#include "esl-number.h"
#include "esl-optimize-dialog.h"
#include "esl-plot-board.h"
#include "esl-plot.h"
#include "esl-project.h"
#include "esl-run-browser.h"
#include "esl-run-settings.h"
#include "esl-window.h"
#include "esl-window-testing.h"
#include "tap.h"
#include "ui-test.h"

#define TIMEOUT_S 150

static char *dir;
static gboolean checked;
static int finished_status = -1;

static GtkWidget *control(EslOptimizeDialog *d, int p, const char *which)
{
    return esl_optimize_dialog_get_control(d, p, which);
}

static const char *status_text(EslOptimizeDialog *d)
{
    return gtk_label_get_text(GTK_LABEL(control(d, -1, "status")));
}

static void click(EslOptimizeDialog *d, const char *which)
{
    g_signal_emit_by_name(control(d, -1, which), "clicked");
    iterate_pending();
}

static void on_dialog_finished(EslOptimizeDialog *d, int status, gpointer data)
{
    (void)d, (void)data;
    finished_status = status;
}

/* Start and wait until the optimisation ends; its status (-1: it did not end in time). */
static int run_to_end(EslOptimizeDialog *d)
{
    finished_status = -1;
    click(d, "start");
    gint64 end = g_get_monotonic_time() + 60 * G_USEC_PER_SEC;
    while (esl_optimize_dialog_is_running(d) && g_get_monotonic_time() < end)
        g_main_context_iteration(NULL, TRUE);
    iterate_pending();
    return finished_status;
}

static void choose(GtkWidget *dropdown, const char *label)
{
    GListModel *items = gtk_drop_down_get_model(GTK_DROP_DOWN(dropdown));
    for (guint i = 0; i < g_list_model_get_n_items(items); i++)
        if (!g_strcmp0(gtk_string_list_get_string(GTK_STRING_LIST(items), i), label))
            gtk_drop_down_set_selected(GTK_DROP_DOWN(dropdown), i);
}

static char *offered(GtkWidget *dropdown)
{
    GListModel *items = gtk_drop_down_get_model(GTK_DROP_DOWN(dropdown));
    GString *s = g_string_new(NULL);
    for (guint i = 0; items && i < g_list_model_get_n_items(items); i++)
        g_string_append_printf(s, "%s%s", i ? " " : "",
                               gtk_string_list_get_string(GTK_STRING_LIST(items), i));
    return g_string_free(s, FALSE);
}

static void vary(EslOptimizeDialog *d, const MbsModel *m, const char *name, gboolean on)
{
    GtkWidget *use = control(d, mbs_model_find_parameter(m, name), "use");
    if (use)
        gtk_check_button_set_active(GTK_CHECK_BUTTON(use), on);
}

static void set_bound(EslOptimizeDialog *d, const MbsModel *m, const char *name,
                      const char *which, const char *text)
{
    GtkWidget *entry = control(d, mbs_model_find_parameter(m, name), which);
    if (entry)
        gtk_editable_set_text(GTK_EDITABLE(entry), text);
}

static double parameter(const char *json, const char *name)
{
    MbsModel *m = json ? esl_model_load_string(json, "model.json", NULL, 0, NULL) : NULL;
    int p = m ? mbs_model_find_parameter(m, name) : -1;
    double v = p >= 0 ? m->parameters[p].value : NAN;
    mbs_model_free(m);
    return v;
}

static EslOptimizeDialog *open_dialog(EslWindow *window)
{
    gtk_widget_activate_action(GTK_WIDGET(window), "win.optimize", NULL);
    iterate_pending();
    return find_toplevel(ESL_TYPE_OPTIMIZE_DIALOG);
}

/* The dialog as it opens, and the refusals it shows. */
static void offers(EslWindow *window, EslOptimizeDialog *d, const MbsModel *m)
{
    g_autofree char *objectives = offered(control(d, -1, "objective"));
    g_autofree char *algorithms = offered(control(d, -1, "algorithm"));
    g_autofree char *methods = offered(control(d, -1, "method"));
    int ls1 = mbs_model_find_parameter(m, "Ls1");
    g_autofree char *lo = esl_number_to_text(0.5 * m->parameters[ls1].value, 6, NULL);
    g_autofree char *hi = esl_number_to_text(1.5 * m->parameters[ls1].value, 6, NULL);
    int rows = 0;
    for (int p = 0; p < m->nparameters; p++)
        rows += control(d, p, "use") != NULL;
    tap_ok(gtk_widget_get_visible(GTK_WIDGET(d)) &&
               gtk_window_get_transient_for(GTK_WINDOW(d)) == GTK_WINDOW(window) &&
               !g_strcmp0(objectives, "psi1 psi2 psi3") && !g_strcmp0(algorithms, "L-BFGS SLSQP") &&
               !g_strcmp0(methods, "direct fd") && rows == 5,
           "win.optimize opens the dialog: objectives %s, algorithms %s, methods %s, %d free "
           "parameters", objectives, algorithms, methods, rows);
    tap_ok(!g_strcmp0(gtk_editable_get_text(GTK_EDITABLE(control(d, ls1, "lower"))), lo) &&
               !g_strcmp0(gtk_editable_get_text(GTK_EDITABLE(control(d, ls1, "upper"))), hi) &&
               !gtk_widget_get_sensitive(control(d, -1, "apply")) &&
               !gtk_widget_get_sensitive(control(d, -1, "stop")),
           "Ls1's bounds are its value ± 50 %% (%s .. %s); nothing to apply or stop yet", lo, hi);
    GdkRectangle screen;
    GdkMonitor *monitor = gdk_display_get_monitor_at_surface(
        gtk_widget_get_display(GTK_WIDGET(d)), gtk_native_get_surface(GTK_NATIVE(d)));
    gdk_monitor_get_geometry(monitor, &screen);
    int w = gtk_widget_get_width(GTK_WIDGET(d)), h = gtk_widget_get_height(GTK_WIDGET(d));
    tap_ok(w <= screen.width && h <= screen.height &&
               gtk_widget_get_width(control(d, -1, "plot")) >= 300,
           "the dialog (%d x %d) fits the %d x %d screen, its plot %d px wide", w, h,
           screen.width, screen.height, gtk_widget_get_width(control(d, -1, "plot")));

    vary(d, m, "Ls1", TRUE);
    set_bound(d, m, "Ls1", "upper", "three");
    click(d, "start");
    tap_ok(!esl_optimize_dialog_is_running(d) && strstr(status_text(d), "is not a number") &&
               strstr(status_text(d), "Ls1"),
           "a bound that is not a number is refused: %s", status_text(d));
    set_bound(d, m, "Ls1", "upper", hi);
    vary(d, m, "Ls1", FALSE);
    vary(d, m, "L_A1", TRUE);
    set_bound(d, m, "L_A1", "lower", "5");
    set_bound(d, m, "L_A1", "upper", "20");
    int status = run_to_end(d);
    tap_ok(status == ESL_OPTIMIZER_FAILED && strstr(status_text(d), "evaluation 1 at L_A1 = 5") &&
               gtk_widget_has_css_class(control(d, -1, "status"), "error") &&
               !gtk_widget_get_sensitive(control(d, -1, "apply")),
           "a first evaluation the loader refuses: %s", status_text(d));
    vary(d, m, "L_A1", FALSE);
    int l_a1 = mbs_model_find_parameter(m, "L_A1");
    g_autofree char *l_lo = esl_number_to_text(0.5 * m->parameters[l_a1].value, 6, NULL);
    g_autofree char *l_hi = esl_number_to_text(1.5 * m->parameters[l_a1].value, 6, NULL);
    set_bound(d, m, "L_A1", "lower", l_lo);
    set_bound(d, m, "L_A1", "upper", l_hi);
}

/* The converged optimisation in the project (the newest run) and in the run list; selected
 * there, the plot board shows it, and the dialog opened then shows it again from the project. */
static void stored(EslWindow *window, EslOptimizeDialog *d, int evaluations, double x0, double x1,
                   double xtol)
{
    g_autoptr(GError) error = NULL;
    EslProject *project = esl_project_open(esl_window_get_project_path(window), FALSE, &error);
    g_autoptr(GPtrArray) runs = project ? esl_project_list_runs(project, &error) : NULL;
    const EslRunInfo *info = runs && runs->len ? runs->pdata[runs->len - 1] : NULL;
    g_autoptr(EslOptimizationRun) o =
        info ? esl_project_load_optimization(project, info->id, &error) : NULL;
    if (project)
        esl_project_close(project);
    tap_ok(runs && runs->len == 2 && info && info->status == ESL_RUN_FINISHED && o &&
               o->n == evaluations && o->x && o->x[0] == x0 && o->x[1] == x1 &&
               !g_strcmp0(o->result, "converged") && !g_strcmp0(o->parameters[0], "Ls1") &&
               info->settings.duration == 1.0 && o->xtol == xtol,
           "the project holds the failed and the converged optimisation: %d evaluations, xtol "
           "%g, its best x bit for bit%s%s", o ? o->n : -1, o ? o->xtol : NAN,
           error ? ": " : "", error ? error->message : "");
    GtkWidget *browser = find_nth(GTK_WIDGET(window), ESL_TYPE_RUN_BROWSER, 0);
    tap_ok(label_with(browser, "optimisation of psi1") != NULL,
           "the run list shows it as an optimisation of psi1");
    gtk_editable_set_text(GTK_EDITABLE(control(d, -1, "xtol")), "1e-8");
    gtk_window_close(GTK_WINDOW(d));
    iterate_pending();
    esl_run_browser_click_row(ESL_RUN_BROWSER(browser), 0, 0);
    iterate_pending();
    EslPlotBoard *board = ESL_PLOT_BOARD(find_nth(GTK_WIDGET(window), ESL_TYPE_PLOT_BOARD, 0));
    EslPlot *psi = esl_plot_board_get_optimization_plot(board, "psi");
    int plotted = psi ? esl_plot_series_length(psi, 0) : -1;
    tap_ok(!gtk_widget_get_visible(GTK_WIDGET(d)) && plotted == evaluations,
           "selected in the run list, it shows on the plot board (%d evaluations), the dialog "
           "stays closed", plotted);
    if (d != open_dialog(window))
        tap_diag("win.optimize made another dialog");
    GtkGrid *table = GTK_GRID(control(d, -1, "table"));
    int rows = 0;
    while (gtk_grid_get_child_at(table, 0, rows + 1))
        rows++;
    double shown = NAN;
    const char *xtol_text = gtk_editable_get_text(GTK_EDITABLE(control(d, -1, "xtol")));
    tap_ok(gtk_widget_get_visible(GTK_WIDGET(d)) && info &&
               g_str_has_prefix(status_text(d), "Optimisation #") &&
               strstr(status_text(d), "(stored): Converged") && rows == evaluations &&
               gtk_widget_get_sensitive(control(d, -1, "apply")) &&
               esl_number_from_text(xtol_text, &shown) && shown == xtol,
           "opened then, the dialog shows it again (%d rows, tolerance %s), Apply offered: %s",
           rows, xtol_text, status_text(d));
    save_screenshot_as("ESL_SCREENSHOT_STORED");
}

/* The evaluations the optimiser takes for the dialog's problem (psi1 over Ls1, Ls2 within
 * the dialog's bounds, penalty direct, the run panel's settings) at the default tolerance. */
static int evaluations_at_default_xtol(EslWindow *window, EslOptimizeDialog *d, const MbsModel *m)
{
    EslRunSettings *panel =
        ESL_RUN_SETTINGS(find_nth(GTK_WIDGET(window), ESL_TYPE_RUN_SETTINGS, 0));
    MbsSettings s;
    esl_run_settings_read(panel, &s);
    int varied[2] = {mbs_model_find_parameter(m, "Ls1"), mbs_model_find_parameter(m, "Ls2")};
    double lower[2], upper[2];
    for (int k = 0; k < 2; k++)
        if (!esl_number_from_text(gtk_editable_get_text(GTK_EDITABLE(
                                      control(d, varied[k], "lower"))), &lower[k]) ||
            !esl_number_from_text(gtk_editable_get_text(GTK_EDITABLE(
                                      control(d, varied[k], "upper"))), &upper[k]))
            return -1;
    EslOptimizerProblem p = {.model = m, .formulation = "penalty", .settings = &s,
                             .method = MBS_SENSITIVITY_DIRECT,
                             .objective = mbs_model_find_objective(m, "psi1"),
                             .parameters = varied, .nparameters = 2, .lower = lower,
                             .upper = upper, .algorithm = ESL_OPTIMIZER_LBFGS};
    EslOptimizerResult r = {0};
    esl_optimizer_run(&p, &r, NULL);
    int evaluations = r.status == ESL_OPTIMIZER_CONVERGED ? r.evaluations : -1;
    esl_optimizer_result_clear(&r);
    return evaluations;
}

/* Ls1, Ls2 for psi1; then Apply (refused onto an edited model), Undo, Redo, Save. */
static void optimise_and_apply(EslWindow *window, EslOptimizeDialog *d, const MbsModel *m)
{
    choose(control(d, -1, "objective"), "psi1");
    choose(control(d, -1, "algorithm"), "L-BFGS");
    choose(control(d, -1, "method"), "direct");
    vary(d, m, "Ls1", TRUE);
    vary(d, m, "Ls2", TRUE);
    GtkWidget *xtol = control(d, -1, "xtol");
    gtk_editable_set_text(GTK_EDITABLE(xtol), "0");
    click(d, "start");
    tap_ok(!esl_optimize_dialog_is_running(d) && strstr(status_text(d), "parameter tolerance") &&
               gtk_widget_has_css_class(control(d, -1, "status"), "error"),
           "a parameter tolerance of 0 is refused: %s", status_text(d));
    gtk_editable_set_text(GTK_EDITABLE(xtol), "1e-3");
    int status = run_to_end(d);
    const char *const *varied;
    int n;
    const EslOptimizerResult *r = esl_optimize_dialog_get_result(d, &varied, &n);
    EslPlot *plot = ESL_PLOT(control(d, -1, "plot"));
    int points = esl_plot_get_n_series(plot) == 1 ? esl_plot_series_length(plot, 0) : -1;
    /* the table: a heading row, then a row per evaluation (its first cell the index) */
    GtkGrid *table = GTK_GRID(control(d, -1, "table"));
    int rows = 0;
    while (gtk_grid_get_child_at(table, 0, rows + 1))
        rows++;
    tap_ok(status == ESL_OPTIMIZER_CONVERGED && r && r->evaluations <= 20 &&
               points == r->evaluations && rows == r->evaluations && n == 2 &&
               g_str_has_prefix(status_text(d), "Converged"),
           "Ls1, Ls2 for psi1 converge in %d evaluations (<= 20), %d on the plot, %d in the "
           "table: %s", r ? r->evaluations : -1, points, rows, status_text(d));
    double first = NAN; /* the table's first evaluation */
    GtkWidget *cell = gtk_grid_get_child_at(table, 1, 1);
    if (!cell || !esl_number_from_text(gtk_label_get_text(GTK_LABEL(cell)), &first))
        first = NAN;
    tap_ok(r && first > 0.1 && r->psi * 1e10 < first,
           "psi1 falls from %.4g by a factor above 1e10 to %.3g", first, r ? r->psi : NAN);
    int at_default = evaluations_at_default_xtol(window, d, m);
    tap_ok(r && r->evaluations < at_default,
           "with the tolerance 1e-3 it takes %d evaluations, the default 1e-8 %d",
           r ? r->evaluations : -1, at_default);
    save_screenshot_as("ESL_SCREENSHOT");
    if (!r || n != 2)
        return;
    double x0 = r->x[0], x1 = r->x[1];
    int evaluations = r->evaluations;
    stored(window, d, evaluations, x0, x1, 1e-3);
    r = esl_optimize_dialog_get_result(d, NULL, NULL);
    tap_ok(r && r->x[0] == x0 && r->x[1] == x1, "the stored run's best point is the one shown");

    /* Apply onto a model edited meanwhile: refused, nothing changed */
    g_autofree char *before = g_strdup(esl_window_get_model_json(window));
    esl_window_edit_model(window, "bodies/2/mass", 1.75, NULL);
    wait_checked(window);
    g_autofree char *edited = g_strdup(esl_window_get_model_json(window));
    click(d, "apply");
    tap_ok(strstr(status_text(d), "changed since") &&
               !strcmp(edited, esl_window_get_model_json(window)) &&
               gtk_widget_get_sensitive(control(d, -1, "apply")),
           "Apply onto a model edited meanwhile is refused: %s", status_text(d));
    gtk_widget_activate_action(GTK_WIDGET(window), "win.undo", NULL);
    wait_checked(window);

    click(d, "apply");
    wait_checked(window);
    const char *json = esl_window_get_model_json(window);
    double ls1 = parameter(json, "Ls1"), ls2 = parameter(json, "Ls2");
    tap_ok(strcmp(before, json) && ls1 == x0 && ls2 == x1 && !esl_window_get_check_error(window) &&
               !gtk_widget_get_sensitive(control(d, -1, "apply")) &&
               g_str_has_prefix(status_text(d), "Applied"),
           "Apply: the model's Ls1 = %.17g, Ls2 = %.17g are the optimiser's x (%.17g, %.17g) "
           "bit for bit", ls1, ls2, x0, x1);
    gtk_widget_activate_action(GTK_WIDGET(window), "win.undo", NULL);
    wait_checked(window);
    tap_ok(!strcmp(before, esl_window_get_model_json(window)),
           "one Undo takes both parameters back (Ls1 = %.10g)",
           parameter(esl_window_get_model_json(window), "Ls1"));
    gtk_widget_activate_action(GTK_WIDGET(window), "win.redo", NULL);
    wait_checked(window);
    g_autofree char *saved = g_build_filename(dir, "five-bar-optimised.json", NULL);
    gtk_widget_activate_action(GTK_WIDGET(window), "win.save-model-to", "s", saved);
    g_autofree char *text = NULL;
    g_file_get_contents(saved, &text, NULL, NULL);
    tap_ok(parameter(text, "Ls1") == x0 && parameter(text, "Ls2") == x1,
           "Redo, Save: the file says Ls1 = %.17g, Ls2 = %.17g", parameter(text, "Ls1"),
           parameter(text, "Ls2"));
}

/* Stop during a slower problem, from five-bar's own lengths again. */
static void stops(EslWindow *window, EslOptimizeDialog *d, const MbsModel *m)
{
    gtk_widget_activate_action(GTK_WIDGET(window), "win.undo", NULL);
    wait_checked(window);
    EslRunSettings *panel =
        ESL_RUN_SETTINGS(find_nth(GTK_WIDGET(window), ESL_TYPE_RUN_SETTINGS, 0));
    MbsSettings s;
    esl_run_settings_read(panel, &s);
    s.step = 0.001;
    s.duration = 5.0;
    esl_run_settings_show(panel, "penalty", &s);
    gtk_window_close(GTK_WINDOW(d));
    iterate_pending();
    d = open_dialog(window);
    vary(d, m, "Ls1", TRUE);
    vary(d, m, "Ls2", TRUE);
    finished_status = -1;
    click(d, "start");
    EslPlot *plot = ESL_PLOT(control(d, -1, "plot"));
    gboolean busy = gtk_widget_get_sensitive(control(d, -1, "stop")) &&
                    !gtk_widget_get_sensitive(control(d, -1, "start"));
    /* a screenshot shows a few evaluations first */
    int wanted = g_getenv("ESL_SCREENSHOT_RUNNING") ? 3 : 1;
    gint64 end = g_get_monotonic_time() + 60 * G_USEC_PER_SEC;
    while (esl_optimize_dialog_is_running(d) && esl_plot_series_length(plot, 0) < wanted &&
           g_get_monotonic_time() < end)
        g_main_context_iteration(NULL, TRUE);
    save_screenshot_as("ESL_SCREENSHOT_RUNNING");
    /* what has come by now: a delivery is at most 50 ms late */
    gint64 settle = g_get_monotonic_time() + 100000;
    while (g_get_monotonic_time() < settle)
        g_main_context_iteration(NULL, FALSE);
    int seen = esl_plot_series_length(plot, 0);
    click(d, "stop");
    while (esl_optimize_dialog_is_running(d) && g_get_monotonic_time() < end)
        g_main_context_iteration(NULL, TRUE);
    iterate_pending();
    const EslOptimizerResult *r = esl_optimize_dialog_get_result(d, NULL, NULL);
    tap_ok(busy && finished_status == ESL_OPTIMIZER_STOPPED && r &&
               r->status == ESL_OPTIMIZER_STOPPED && r->evaluations >= seen && seen >= 1 &&
               r->evaluations <= seen + 1 &&
               esl_plot_series_length(plot, 0) == r->evaluations &&
               g_str_has_prefix(status_text(d), "Stopped after") &&
               gtk_widget_get_sensitive(control(d, -1, "apply")),
           "Stop after %d evaluations seen (Stop enabled, Start not, while it ran): stopped "
           "after %d, the best of them offered to Apply: %s", seen, r ? r->evaluations : -1,
           status_text(d));
}

static void activate(GtkApplication *app, gpointer data)
{
    (void)data;
    EslWindow *window = ESL_WINDOW(gtk_application_get_active_window(app));
    g_autofree char *project = g_build_filename(dir, "optimize.eslabon", NULL);
    g_autoptr(GError) error = NULL;
    tap_ok(esl_window_open_project(window, project, TRUE, &error) &&
               esl_window_load_model(window, "five-bar", &error),
           "a new project and five-bar open%s%s", error ? ": " : "", error ? error->message : "");
    wait_checked(window);
    esl_window_set_formulation(window, "penalty");
    esl_window_set_duration(window, 1.0);
    g_timeout_add_seconds(TIMEOUT_S, ui_test_timed_out, GINT_TO_POINTER(TIMEOUT_S));
    MbsModel *m = esl_model_load_string(esl_window_get_model_json(window), "five-bar.json", NULL,
                                        0, NULL);
    EslOptimizeDialog *d = open_dialog(window);
    if (tap_ok(d && m, "the optimise dialog opens")) {
        g_signal_connect(d, "finished", G_CALLBACK(on_dialog_finished), NULL);
        offers(window, d, m);
        optimise_and_apply(window, d, m);
        stops(window, d, m);
        checked = TRUE;
    }
    mbs_model_free(m);
    gtk_window_destroy(GTK_WINDOW(window));
}

int main(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    setlocale(LC_ALL, "");
    dir = g_dir_make_tmp("esl-window-optimize-XXXXXX", NULL);
    g_autoptr(EslApplication) app = esl_application_new();
    g_application_set_flags(G_APPLICATION(app),
                            g_application_get_flags(G_APPLICATION(app)) |
                                G_APPLICATION_NON_UNIQUE);
    g_signal_connect_after(app, "activate", G_CALLBACK(activate), NULL);
    char *app_argv[] = {"test_window_optimize", NULL};
    g_application_run(G_APPLICATION(app), 1, app_argv);
    tap_ok(checked, "every check ran");
    const char *files[] = {"optimize.eslabon", "optimize.eslabon-wal", "optimize.eslabon-shm",
                           "five-bar-optimised.json"};
    for (size_t i = 0; i < G_N_ELEMENTS(files); i++) {
        g_autofree char *f = g_build_filename(dir, files[i], NULL);
        g_unlink(f);
    }
    g_rmdir(dir);
    return tap_done();
}
