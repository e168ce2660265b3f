/* A study planned and run from the Studies window (issue 25; ui/esl-study-plan-dialog.c,
 * ui/esl-study-view.c, app/studies/esl-study-pool.c) on the five-bar in a new project:
 *  - Plan Study… opens the plan dialog on the window's model: its free parameters listed, the
 *    design chooser offering the names `study plan --design` takes;
 *  - Plan and Run with Ls1 = 1.5:2.5:3, objectives final:12:2:x and max:A1:kinetic, penalty at
 *    h = 2 ms for 0.3 s on two processes: the progress bar counts the cases to "Done: 3 cases
 *    run, 0 failed", the three runs are merged into the window's project (its runs list shows
 *    them) and the cases table shows them;
 *  - the same study planned, run and collected by eslabon-cli gives the same parameters and
 *    the same objectives' values, bit for bit (the penalty formulation is deterministic), and
 *    the table's text is theirs;
 *  - Cancel on a longer study stops it: the progress bar says so, not every case ran, and the
 *    study can run again to finish (the cases that ended are not run again).
 * ESL_SCREENSHOT_PLAN: the screen with the dialog. usage: test_window_plan_study ESLABON_CLI
 * MODELS_DIR. Needs a display (xvfb-run). */
#include <glib/gstdio.h>
#include <gtk/gtk.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "esl-application.h"
#include "esl-project.h"
#include "esl-run-settings.h"
#include "esl-study-plan-dialog.h"
#include "esl-study-results.h"
#include "esl-study-view.h"
#include "esl-window.h"
#include "esl-window-testing.h"
#include "tap.h"
#include "ui-test.h"

#define TIMEOUT_S 240

static char *dir, *project_path, *model_path, *cli;
static gboolean checked;

static void wait_while_running(EslStudyView *view, char **seen_progress)
{
    gint64 end = g_get_monotonic_time() + 180 * G_USEC_PER_SEC;
    while (esl_study_view_is_running(view) && g_get_monotonic_time() < end) {
        g_main_context_iteration(NULL, TRUE);
        const char *t = esl_study_view_get_progress_text(view);
        if (seen_progress && t && strstr(t, "s left") && !*seen_progress)
            *seen_progress = g_strdup(t);
    }
    iterate_pending();
}

/* The plan dialog on the window's model with these words; NULL when it does not open. */
static EslStudyPlanDialog *plan_dialog(EslStudyView *view, const char *range, double duration)
{
    gtk_widget_activate_action(GTK_WIDGET(view), "studies.plan", NULL);
    iterate_pending();
    EslStudyPlanDialog *dialog = find_toplevel(ESL_TYPE_STUDY_PLAN_DIALOG);
    if (!dialog)
        return NULL;
    esl_study_plan_dialog_set_range(dialog, "Ls1", range);
    esl_study_plan_dialog_set_objectives(dialog, "final:12:2:x,max:A1:kinetic");
    MbsSettings s;
    mbs_settings_defaults(&s);
    s.step = 0.002;
    s.duration = duration;
    esl_run_settings_show(esl_study_plan_dialog_get_run_settings(dialog), "penalty", &s);
    return dialog;
}

static void check_against_cli(EslStudyView *view)
{
    g_autofree char *manifest = g_build_filename(dir, "cli-study.json", NULL);
    g_autofree char *merged = g_build_filename(dir, "cli-merged.eslabon", NULL);
    const char *plan[] = {cli, "study", "plan", model_path, "--parameter", "Ls1=1.5:2.5:3",
                          "--formulation", "penalty", "--step", "0.002", "--duration", "0.3",
                          "--objectives", "final:12:2:x,max:A1:kinetic", "--output", manifest,
                          NULL};
    const char *run[] = {cli, "study", "run", manifest, "--jobs", "2", NULL};
    const char *collect[] = {cli, "study", "collect", manifest, "--output", merged, NULL};
    g_autofree char *out = NULL, *out2 = NULL, *out3 = NULL;
    g_autoptr(GError) error = NULL;
    gboolean made = run_command(plan, &out) && run_command(run, &out2) &&
                    run_command(collect, &out3);
    g_autoptr(EslStudyResults) want =
        made ? esl_study_results_load(manifest, merged, &error) : NULL;
    const EslStudyResults *got = esl_study_view_get_results(view);
    if (!tap_ok(want && got && want->nfinished == 3,
                "eslabon-cli plans, runs and collects the same study (%s)",
                error ? error->message : made ? "3 cases finished" : "a command failed"))
        return;
    gboolean same = got->study->ncases == 3 && got->nobjectives == 2;
    double spread = 0;
    for (int k = 0; same && k < 3; k++) {
        same &= esl_study_results_parameter(got, k, 0) == esl_study_results_parameter(want, k, 0);
        for (int i = 0; i < 2; i++) {
            double a = got->cases[k].objectives[i], b = want->cases[k].objectives[i];
            same &= a == b && isfinite(a);
            g_autofree char *text = g_strdup_printf("%.6g", b);
            same &= g_strcmp0(esl_study_view_cell_text(view, k, 3 + i), text) == 0;
        }
        spread = fmax(spread, fabs(got->cases[k].objectives[0] - want->cases[0].objectives[0]));
    }
    tap_ok(same && spread > 1e-4,
           "the cases table's parameters and objectives are the command line's, bit for bit "
           "(final:12:2:x of the cases differ by up to %.3g m)", spread);
}

static void plan_and_run(EslStudyView *view, EslStudyPlanDialog *dialog)
{
    g_autoptr(GError) error = NULL;
    GListModel *designs = esl_study_plan_dialog_get_design_names(dialog);
    gboolean names = g_list_model_get_n_items(designs) == ESL_STUDY_N_DESIGNS;
    for (int d = 0; names && d < ESL_STUDY_N_DESIGNS; d++)
        names &= !g_strcmp0(gtk_string_list_get_string(GTK_STRING_LIST(designs), d),
                            esl_study_design_name((EslStudyDesign)d));
    tap_ok(names && esl_study_plan_dialog_set_range(dialog, "Ls2", NULL) &&
               !esl_study_plan_dialog_set_range(dialog, "no_such", "1:2:3"),
           "it lists the model's free parameters and the designs of `study plan --design`");
    /* a bad range is refused in the dialog, with the command line's words */
    esl_study_plan_dialog_set_range(dialog, "Ls1", "2.5:1.5:3");
    g_autoptr(EslStudy) refused = esl_study_plan_dialog_plan(dialog, &error);
    tap_ok(!refused && error && strstr(error->message, "Ls1=2.5:1.5:3"),
           "a range with LOWER > UPPER is refused: %s", error ? error->message : "(accepted)");
    g_clear_error(&error);
    esl_study_plan_dialog_set_range(dialog, "Ls1", "1.5:2.5:3");
    esl_study_plan_dialog_set_jobs(dialog, 2);
    g_autoptr(EslStudy) planned = esl_study_plan_dialog_plan(dialog, NULL); /* "3 cases" */
    if (g_getenv("ESL_SCREENSHOT_PLAN")) {
        /* the view as large as the screen (Xvfb has no window manager), the dialog over it */
        GdkDisplay *display = gtk_widget_get_display(GTK_WIDGET(view));
        g_autoptr(GdkMonitor) monitor =
            g_list_model_get_item(gdk_display_get_monitors(display), 0);
        GdkRectangle geometry;
        gdk_monitor_get_geometry(monitor, &geometry);
        gtk_widget_set_visible(GTK_WIDGET(dialog), FALSE);
        gtk_widget_set_visible(GTK_WIDGET(view), FALSE);
        gtk_window_set_default_size(GTK_WINDOW(view), geometry.width, geometry.height);
        gtk_window_present(GTK_WINDOW(view));
        iterate_pending();
    }
    gtk_window_present(GTK_WINDOW(dialog));
    save_screenshot_as("ESL_SCREENSHOT_PLAN");
    gtk_widget_activate_action(GTK_WIDGET(dialog), "plan.run", NULL);
    iterate_pending();
    g_autofree char *seen = NULL;
    /* on an idle machine the three short cases can all end within that one iteration */
    const char *started = esl_study_view_get_progress_text(view);
    tap_ok(esl_study_view_is_running(view) || (started && g_str_has_prefix(started, "Done:")),
           "Plan and Run starts the study on the local pool (%s)",
           esl_study_view_is_running(view) ? "running" : started ? started : "no progress");
    wait_while_running(view, &seen);
    const char *done = esl_study_view_get_progress_text(view);
    const EslStudyResults *r = esl_study_view_get_results(view);
    tap_ok(!esl_study_view_is_running(view) && done && strstr(done, "Done: 3 cases run, 0 failed") &&
               esl_study_view_get_progress_fraction(view) == 1.0,
           "the progress bar counts the cases to the end: '%s' (on the way: '%s')",
           done ? done : "", seen ? seen : "no estimate seen");
    tap_ok(r && r->study->ncases == 3 && r->nfinished == 3 && esl_study_view_get_n_rows(view) == 3,
           "the cases table shows the 3 cases finished, merged into the window's project");
    g_autoptr(EslProject) project = esl_project_open(project_path, FALSE, &error);
    g_autoptr(GPtrArray) runs = project ? esl_project_list_runs(project, &error) : NULL;
    tap_ok(runs && runs->len == 3, "the window's project holds the 3 runs (%d)",
           runs ? (int)runs->len : -1);
    g_clear_pointer(&project, esl_project_close);
    check_against_cli(view);

    /* Cancel: a longer study on one process, cancelled at once */
    dialog = plan_dialog(view, "1.5:2.5:4", 3.0);
    if (dialog) {
        esl_study_plan_dialog_set_jobs(dialog, 1);
        gtk_widget_activate_action(GTK_WIDGET(dialog), "plan.run", NULL);
        iterate_pending();
        gtk_widget_activate_action(GTK_WIDGET(view), "studies.cancel-run", NULL);
        wait_while_running(view, NULL);
        const EslStudy *s = esl_study_view_get_running_study(view);
        int ended = 0;
        for (int k = 0; s && k < s->ncases; k++) {
            EslCaseState st = esl_study_case_state(s, k, NULL);
            ended += st == ESL_CASE_FINISHED || st == ESL_CASE_FAILED;
        }
        const char *text = esl_study_view_get_progress_text(view);
        tap_ok(!esl_study_view_is_running(view) && text && strstr(text, "Cancelled") &&
                   s && ended < s->ncases,
               "Cancel stops the study: '%s', %d of %d cases ended", text ? text : "", ended,
               s ? s->ncases : 0);
    } else {
        tap_ok(FALSE, "the plan dialog opens again");
    }
}

static gboolean check(gpointer data)
{
    EslWindow *window = data;
    gtk_widget_activate_action(GTK_WIDGET(window), "win.studies", NULL);
    iterate_pending();
    EslStudyView *view = find_toplevel(ESL_TYPE_STUDY_VIEW);
    EslStudyPlanDialog *dialog = view ? plan_dialog(view, "1.5:2.5:3", 0.3) : NULL;
    if (tap_ok(dialog != NULL, "Plan Study… opens the plan dialog on the window's model"))
        plan_and_run(view, dialog);
    checked = TRUE;
    gtk_window_destroy(GTK_WINDOW(window));
    return G_SOURCE_REMOVE;
}

static void activate(GtkApplication *app, gpointer data)
{
    (void)data;
    EslWindow *window = ESL_WINDOW(gtk_application_get_active_window(app));
    g_autoptr(GError) error = NULL;
    tap_ok(esl_window_load_model(window, model_path, &error), "the five-bar loads%s%s",
           error ? ": " : "", error ? error->message : "");
    open_project_then(app, project_path, "a new project", check, 300, TIMEOUT_S);
}

int main(int argc, char **argv)
{
    if (argc != 3)
        return 2;
    cli = argv[1];
    g_setenv("ESLABON_CLI", cli, TRUE); /* the window's pool runs this one */
    dir = g_dir_make_tmp("esl-window-plan-study-XXXXXX", NULL);
    project_path = g_build_filename(dir, "plan.eslabon", NULL);
    model_path = g_build_filename(argv[2], "five-bar.json", NULL);
    /* an empty project the window opens */
    g_autoptr(EslProject) project = esl_project_open(project_path, TRUE, NULL);
    tap_ok(project != NULL, "a new project");
    g_clear_pointer(&project, esl_project_close);
    run_application("test_window_plan_study", G_CALLBACK(activate), NULL);
    tap_ok(checked, "every check ran");
    g_autofree char *rm = g_strdup_printf("rm -rf '%s'", dir);
    if (system(rm) != 0)
        tap_diag("could not remove %s", dir);
    return tap_done();
}
