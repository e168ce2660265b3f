/* The Studies window (issue 25; ui/esl-study-view.c, ui/esl-scatter-plot.c) on a study made by
 * eslabon-cli (five-bar, spring lengths Ls1 = 1.5, 2, 2.5 m by Ls2 = 1.5, 2.5 m: `study plan`, `study run`,
 * `study collect`) and an advice (`advise --json` on the spatial four-bar):
 *  - win.studies lists the project's study; its table has a row per case with the manifest's
 *    parameters (the full design's levels, computed here), the status and the objectives, whose
 *    final:12:2:x is checked against the stored history's last pose (esl_variable_series, not the
 *    value the case stored in its provenance);
 *  - the plot draws that objective against Ls1, one point per case;
 *  - a click on a case's point selects its row and shows its run in the window (the runs list
 *    selects it; the progress area names it);
 *  - the map of final:12:2:x over Ls1 and Ls2: a cell per case at its two values, its value the
 *    case's objective, coloured from the ramp's first colour (the least) to its last (the
 *    largest); a click on a cell opens its case's run;
 *  - the work–precision diagram: a curve per formulation of the advice, its points the full
 *    runs' (CPU time, error), the recommendation ringed, within the accuracy line, and no point
 *    to its left (faster) within it; a file that is not an advice is refused in the window;
 *  - the same advice stored in the project (`advise --project`): its text is the printed JSON's,
 *    and the Work–Precision tab lists it and draws the same diagram without the file.
 * ESL_SCREENSHOT_STUDIES / ESL_SCREENSHOT_MAP / ESL_SCREENSHOT_ADVICE: the screen with each page (the view
 * maximised). usage: test_window_studies ESLABON_CLI MODELS_DIR. Needs a display (xvfb-run). */
#include <glib/gstdio.h>
#include <gtk/gtk.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "esl-application.h"
#include "esl-model-file.h"
#include "esl-project.h"
#include "esl-run-browser.h"
#include "esl-run-settings.h"
#include "esl-scatter-plot.h"
#include "esl-study-view.h"
#include "esl-variables.h"
#include "esl-window.h"
#include "esl-window-testing.h"
#include "tap.h"
#include "ui-test.h"

#define TIMEOUT_S 120

static char *dir, *manifest, *project_path, *advice_path, *models;
static gboolean checked;

/* Case k's final 12:2:x from its stored history (the last stored pose). */
static double stored_final_x(EslProject *project, const MbsModel *m, gint64 run_id)
{
    g_autoptr(EslRunHistory) h = esl_project_load_run(project, run_id, NULL);
    EslVariable v;
    if (!h || h->n < 1 || !esl_variable_parse(m, "12:2:x", &v, NULL))
        return NAN;
    g_autofree double *time = g_new(double, h->n);
    g_autofree double *y = g_new(double, h->n);
    for (int i = 0; i < h->n; i++)
        time[i] = h->monitors[i].time;
    esl_variable_series(m, &v, time, h->poses, h->violations, h->n, y);
    return y[h->n - 1];
}

static void check_cases(EslWindow *window, EslStudyView *view)
{
    const EslStudyResults *r = esl_study_view_get_results(view);
    tap_ok(esl_study_view_get_n_studies(view) == 1 && r && r->study->ncases == 6 &&
               esl_study_view_get_n_rows(view) == 6 && r->nfinished == 6,
           "win.studies lists the project's study: 6 rows, 6 finished cases");
    const char *headers[] = {"case", "Ls1", "Ls2", "status", "final:12:2:x", "max:A1:kinetic"};
    gboolean heads = TRUE;
    for (int c = 0; c < 6; c++)
        heads &= g_strcmp0(esl_study_view_cell_text(view, -1, c), headers[c]) == 0 ||
                 (c == 0 || c == 3); /* translated words */
    tap_ok(heads, "its columns: case, Ls1, Ls2, status, final:12:2:x, max:A1:kinetic");
    /* the full design, last parameter fastest: Ls1 = 1.5, 2, 2.5 by Ls2 = 1.5, 2.5 */
    gboolean levels = TRUE;
    for (int k = 0; k < 6; k++) {
        double k1 = 1.5 + 0.5 * (k / 2), k2 = 1.5 + 1.0 * (k % 2);
        levels &= fabs(g_ascii_strtod(esl_study_view_cell_text(view, k, 1), NULL) - k1) < 1e-9 &&
                  fabs(g_ascii_strtod(esl_study_view_cell_text(view, k, 2), NULL) - k2) < 1e-9;
    }
    tap_ok(levels, "the parameters of each row are the design's levels");

    g_autoptr(GError) error = NULL;
    g_autoptr(EslProject) project = esl_project_open(project_path, FALSE, &error);
    g_autofree char *model_path = g_build_filename(models, "five-bar.json", NULL);
    MbsModel *m = esl_model_load_file(model_path, NULL, 0, &error);
    double worst = 0, spread_lo = INFINITY, spread_hi = -INFINITY;
    for (int k = 0; project && m && k < 6; k++) {
        double shown = g_ascii_strtod(esl_study_view_cell_text(view, k, 4), NULL);
        double stored = stored_final_x(project, m, r->cases[k].run_id);
        worst = fmax(worst, fabs(shown - stored) / fmax(fabs(stored), 1e-3));
        spread_lo = fmin(spread_lo, stored), spread_hi = fmax(spread_hi, stored);
        if (isnan(stored))
            worst = INFINITY;
    }
    mbs_model_free(m);
    tap_ok(worst < 1e-5 && spread_hi - spread_lo > 1e-4,
           "final:12:2:x in the table is the stored history's last pose within %.1e (shown to 6 "
           "digits; the cases differ by %.3g m)", worst, spread_hi - spread_lo);

    esl_study_view_set_axes(view, 0, 0);
    EslScatterPlot *plot = esl_study_view_get_case_plot(view);
    gboolean points = esl_scatter_plot_get_n_series(plot) >= 1 &&
                      esl_scatter_plot_series_length(plot, 0) == 6;
    for (int i = 0; points && i < 6; i++) {
        double x, y;
        int tag;
        points &= esl_scatter_plot_get_point(plot, 0, i, &x, &y, &tag) && tag >= 0 && tag < 6 &&
                  x == esl_study_results_parameter(r, tag, 0) &&
                  y == r->cases[tag].objectives[0];
    }
    tap_ok(points, "the plot draws final:12:2:x against Ls1, a point per case");

    double px, py;
    gint64 want = r->cases[4].run_id;
    iterate_pending();
    gboolean located = esl_scatter_plot_locate(plot, 4, &px, &py);
    int hit = located ? esl_scatter_plot_click(plot, px, py) : -1;
    iterate_pending();
    EslRunBrowser *browser = ESL_RUN_BROWSER(find_nth(GTK_WIDGET(window), ESL_TYPE_RUN_BROWSER, 0));
    g_autoptr(GArray) selected = browser ? esl_run_browser_get_selected(browser) : NULL;
    g_autofree char *progress = g_strdup(esl_window_get_progress_text(window));
    if (progress)
        g_strdelimit(progress, "\n", ' ');
    g_autofree char *id = g_strdup_printf("#%" G_GINT64_FORMAT, want);
    tap_ok(hit == 4 && esl_study_view_get_selected_case(view) == 4 && selected &&
               selected->len == 1 && g_array_index(selected, gint64, 0) == want && progress &&
               strstr(progress, id),
           "a click on case 4's point selects its row and shows its run %s in the window "
           "(progress: %s)", id, progress ? progress : "(none)");
}

static void check_map(EslWindow *window, EslStudyView *view)
{
    const EslStudyResults *r = esl_study_view_get_results(view);
    EslScatterPlot *plot = esl_study_view_get_case_plot(view);
    if (!tap_ok(r && esl_study_view_show_map(view, 0) && esl_scatter_plot_has_color_bar(plot),
                "two parameters: the map of final:12:2:x over Ls1 and Ls2, with a colour bar"))
        return;
    gboolean mapped = esl_scatter_plot_series_length(plot, 0) == 6;
    double lo = INFINITY, hi = -INFINITY;
    int klo = -1, khi = -1;
    for (int i = 0; mapped && i < 6; i++) {
        double x, y;
        int k;
        mapped &= esl_scatter_plot_get_point(plot, 0, i, &x, &y, &k) && k >= 0 && k < 6 &&
                  x == esl_study_results_parameter(r, k, 0) &&
                  y == esl_study_results_parameter(r, k, 1) &&
                  esl_scatter_plot_get_point_value(plot, 0, i) == r->cases[k].objectives[0];
        if (mapped && r->cases[k].objectives[0] < lo)
            lo = r->cases[k].objectives[0], klo = k;
        if (mapped && r->cases[k].objectives[0] > hi)
            hi = r->cases[k].objectives[0], khi = k;
    }
    tap_ok(mapped, "a cell per case at (Ls1, Ls2) of the design, its value the case's "
                   "final:12:2:x");
    double vlo, vhi;
    GdkRGBA clo, chi, cmid;
    esl_scatter_plot_color_of(plot, lo, &clo);
    esl_scatter_plot_color_of(plot, hi, &chi);
    esl_scatter_plot_color_of(plot, 0.5 * (lo + hi), &cmid);
    /* viridis: dark purple (0.267, 0.005, 0.329) to yellow (0.993, 0.906, 0.144) */
    tap_ok(esl_scatter_plot_get_value_range(plot, &vlo, &vhi) && vlo == lo && vhi == hi &&
               fabs(clo.red - 0.267) < 1e-3 && fabs(clo.blue - 0.329) < 1e-3 &&
               fabs(chi.red - 0.993) < 1e-3 && fabs(chi.green - 0.906) < 1e-3 &&
               cmid.green > clo.green && cmid.green < chi.green,
           "the colours run from the least value (case %d, %.6g) to the largest (case %d, %.6g)",
           klo, lo, khi, hi);
    double px, py;
    gint64 want = r->cases[khi].run_id;
    iterate_pending();
    int hit = esl_scatter_plot_locate(plot, khi, &px, &py) ? esl_scatter_plot_click(plot, px, py)
                                                          : -1;
    iterate_pending();
    EslRunBrowser *browser = ESL_RUN_BROWSER(find_nth(GTK_WIDGET(window), ESL_TYPE_RUN_BROWSER, 0));
    g_autoptr(GArray) selected = browser ? esl_run_browser_get_selected(browser) : NULL;
    tap_ok(hit == khi && esl_study_view_get_selected_case(view) == khi && selected &&
               selected->len == 1 && g_array_index(selected, gint64, 0) == want,
           "a click on case %d's cell selects its row and shows its run", khi);
    gtk_window_present(GTK_WINDOW(view)); /* the run was shown in the window, in front */
    save_screenshot_as("ESL_SCREENSHOT_MAP");
}

static void check_advice(EslWindow *window, EslStudyView *view)
{
    g_autoptr(GError) error = NULL;
    g_autofree char *text = NULL;
    g_file_get_contents(advice_path, &text, NULL, NULL);
    g_autoptr(EslAdvice) a = text ? esl_advice_from_json(text, NULL, NULL, &error) : NULL;
    gboolean opened = esl_study_view_open_advice(view, advice_path, &error);
    EslScatterPlot *plot = esl_study_view_get_work_precision_plot(view);
    if (!tap_ok(a && opened && a->recommended >= 0, "the advice opens (%s)",
                error ? error->message : "recommended"))
        return;
    int nforms = 0, nfull = 0;
    for (guint i = 0; i < a->candidates->len; i++) {
        const EslAdviseCandidate *c = a->candidates->pdata[i];
        gboolean seen = FALSE;
        for (guint j = 0; j < i; j++)
            seen |= !strcmp(((EslAdviseCandidate *)a->candidates->pdata[j])->formulation,
                            c->formulation);
        nforms += !seen;
        nfull += isfinite(c->error) && isfinite(c->seconds);
    }
    int drawn = 0;
    for (int s = 0; s < esl_scatter_plot_get_n_series(plot); s++)
        drawn += esl_scatter_plot_series_length(plot, s);
    tap_ok(esl_scatter_plot_get_n_series(plot) == nforms && drawn == nfull,
           "the work–precision diagram: a curve per formulation (%d), a point per full run (%d)",
           nforms, nfull);
    const EslAdviseCandidate *rec = a->candidates->pdata[a->recommended];
    gboolean faster_within = FALSE, found = FALSE;
    for (int s = 0; s < esl_scatter_plot_get_n_series(plot); s++)
        for (int i = 0; i < esl_scatter_plot_series_length(plot, s); i++) {
            double x, y;
            int tag;
            esl_scatter_plot_get_point(plot, s, i, &x, &y, &tag);
            found |= tag == a->recommended && x == rec->seconds && y == rec->error;
            faster_within |= x < rec->seconds && y <= a->accuracy;
        }
    tap_ok(esl_scatter_plot_get_highlight(plot) == a->recommended && found &&
               rec->error <= a->accuracy && !faster_within &&
               strstr(esl_study_view_get_advice_text(view), rec->label),
           "the recommendation (%s: %.2e in %.2g s) is ringed, within the accuracy %.0e, and no "
           "point left of it is", rec->label, rec->error, rec->seconds, a->accuracy);
    save_screenshot_as("ESL_SCREENSHOT_ADVICE");

    /* Apply Recommended: the window's run settings become the recommendation's (its step and,
     * for ssode, its rtol), the duration kept */
    EslRunSettings *panel =
        ESL_RUN_SETTINGS(find_nth(GTK_WIDGET(window), ESL_TYPE_RUN_SETTINGS, 0));
    MbsSettings before, after;
    esl_run_settings_read(panel, &before);
    gtk_widget_activate_action(GTK_WIDGET(view), "studies.apply-advice", NULL);
    iterate_pending();
    esl_run_settings_read(panel, &after);
    const MbsFormulationClass *k = esl_run_settings_get_formulation(panel);
    double rtol = mbs_settings_number(&after, "rtol");
    double want_rtol = mbs_settings_number(&rec->settings, "rtol");
    tap_ok(k && !strcmp(k->name, rec->formulation) && after.step == rec->settings.step &&
               after.duration == before.duration &&
               (isnan(want_rtol) || rtol == want_rtol),
           "Apply Recommended sets the window's run settings: %s, h = %g s, duration kept (%g s)",
           k ? k->name : "?", after.step, after.duration);

    /* the advice stored in the project: listed, its text the printed one, the same diagram */
    g_autoptr(EslProject) project = esl_project_open(project_path, FALSE, NULL);
    g_autoptr(GPtrArray) stored = project ? esl_project_list_advice(project, NULL) : NULL;
    g_autofree char *printed = g_strdup(text);
    g_strstrip(printed);
    int series = esl_scatter_plot_get_n_series(plot), highlight = esl_scatter_plot_get_highlight(plot);
    esl_scatter_plot_clear(plot);
    gboolean shown = esl_study_view_get_n_stored_advice(view) == 1 &&
                     esl_study_view_select_stored_advice(view, 0, NULL);
    int drawn_again = 0;
    for (int s = 0; s < esl_scatter_plot_get_n_series(plot); s++)
        drawn_again += esl_scatter_plot_series_length(plot, s);
    tap_ok(stored && stored->len == 1 &&
               !g_strcmp0(((EslStoredAdvice *)stored->pdata[0])->json, printed) && shown &&
               esl_scatter_plot_get_n_series(plot) == series && drawn_again == drawn &&
               esl_scatter_plot_get_highlight(plot) == highlight,
           "advise --project stores the printed advice; the Work–Precision tab lists it and "
           "draws the same diagram from the project (%d curves, %d points)", series,
           drawn_again);

    g_autoptr(GError) bad_error = NULL;
    gboolean refused = !esl_study_view_open_advice(view, manifest, &bad_error);
    tap_ok(refused && bad_error &&
               strstr(esl_study_view_get_advice_text(view), "not an advice"),
           "a study manifest is refused as an advice: %s", bad_error ? bad_error->message : "");
}

static gboolean check(gpointer data)
{
    EslWindow *window = data;
    gtk_widget_activate_action(GTK_WIDGET(window), "win.studies", NULL);
    iterate_pending();
    EslStudyView *view = find_toplevel(ESL_TYPE_STUDY_VIEW);
    if (tap_ok(view && gtk_widget_get_visible(GTK_WIDGET(view)), "win.studies opens the view")) {
        if (g_getenv("ESL_SCREENSHOT_STUDIES") || g_getenv("ESL_SCREENSHOT_ADVICE") ||
            g_getenv("ESL_SCREENSHOT_MAP")) {
            /* the whole screen (Xvfb has no window manager to maximise it) */
            GdkDisplay *display = gtk_widget_get_display(GTK_WIDGET(view));
            g_autoptr(GdkMonitor) monitor =
                g_list_model_get_item(gdk_display_get_monitors(display), 0);
            GdkRectangle geometry;
            gdk_monitor_get_geometry(monitor, &geometry);
            gtk_widget_set_visible(GTK_WIDGET(view), FALSE);
            gtk_window_set_default_size(GTK_WINDOW(view), geometry.width, geometry.height);
            gtk_window_present(GTK_WINDOW(view));
        }
        iterate_pending();
        check_cases(window, view);
        esl_study_view_select_case(view, 2);
        gtk_window_present(GTK_WINDOW(view));
        save_screenshot_as("ESL_SCREENSHOT_STUDIES");
        check_map(window, view);
        check_advice(window, view);
    }
    checked = TRUE;
    gtk_window_destroy(GTK_WINDOW(window));
    return G_SOURCE_REMOVE;
}

static void activate(GtkApplication *app, gpointer data)
{
    (void)data;
    open_project_then(app, project_path, "the merged project", check, 300, TIMEOUT_S);
}

int main(int argc, char **argv)
{
    if (argc != 3)
        return 2;
    models = argv[2];
    dir = g_dir_make_tmp("esl-window-studies-XXXXXX", NULL);
    manifest = g_build_filename(dir, "study.json", NULL);
    project_path = g_build_filename(dir, "merged.eslabon", NULL);
    advice_path = g_build_filename(dir, "advice.json", NULL);
    g_autofree char *five_bar = g_build_filename(models, "five-bar.json", NULL);
    g_autofree char *four_bar = g_build_filename(models, "four-bar-spatial.json", NULL);
    const char *plan[] = {argv[1], "study", "plan", five_bar, "--parameter", "Ls1=1.5:2.5:3",
                          "--parameter", "Ls2=1.5:2.5:2", "--duration", "0.3", "--step", "0.002",
                          "--objectives", "final:12:2:x,max:A1:kinetic", "--output", manifest,
                          NULL};
    const char *run[] = {argv[1], "study", "run", manifest, "--jobs", "2", NULL};
    const char *collect[] = {argv[1], "study", "collect", manifest, "--output", project_path,
                             NULL};
    const char *advise[] = {argv[1], "advise", four_bar, "--duration", "0.5", "--json",
                            "--project", project_path, NULL};
    g_autofree char *out = NULL, *ignored = NULL, *advice = NULL;
    gboolean made = run_command(plan, &out) && run_command(run, &ignored) &&
                    run_command(collect, &ignored) && run_command(advise, &advice) &&
                    g_file_set_contents(advice_path, advice, -1, NULL);
    if (!tap_ok(made, "a study planned, run, collected and an advice by eslabon-cli"))
        return tap_done();
    run_application("test_window_studies", G_CALLBACK(activate), NULL);
    tap_ok(checked, "every check ran");
    g_autofree char *rm = g_strdup_printf("rm -rf '%s'", dir);
    if (system(rm) != 0)
        tap_diag("could not remove %s", dir);
    return tap_done();
}
