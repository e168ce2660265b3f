/* EslRunBrowser (ui/esl-run-browser.c): lists the runs of a project newest first with their
 * status, reports the selected runs' ids, and says "selection-changed" for the user's
 * selections but not while it refills itself. Needs a display (xvfb-run). */
#include <glib/gstdio.h>
#include <gtk/gtk.h>
#include <string.h>

#include "esl-run-browser.h"
#include "tap.h"
#include "ui-test.h"

static GtkWidget *find_list(GtkWidget *widget)
{
    if (GTK_IS_LIST_BOX(widget))
        return widget;
    for (GtkWidget *c = gtk_widget_get_first_child(widget); c; c = gtk_widget_get_next_sibling(c)) {
        GtkWidget *found = find_list(c);
        if (found)
            return found;
    }
    return NULL;
}

static int count_rows(GtkWidget *list)
{
    int n = 0;
    for (GtkWidget *c = gtk_widget_get_first_child(list); c; c = gtk_widget_get_next_sibling(c))
        n += GTK_IS_LIST_BOX_ROW(c);
    return n;
}

static const char *row_text(GtkWidget *list, int i)
{
    GtkListBoxRow *row = gtk_list_box_get_row_at_index(GTK_LIST_BOX(list), i);
    return row ? gtk_label_get_text(GTK_LABEL(gtk_list_box_row_get_child(row))) : "";
}

/* A row's text for a TAP line (its lines joined). */
static const char *one_line(const char *text)
{
    static char buffer[512];
    g_strlcpy(buffer, text, sizeof buffer);
    return g_strdelimit(buffer, "\n", '/');
}

static void on_selection_changed(EslRunBrowser *browser, int *count)
{
    (void)browser;
    (*count)++;
}

static gint64 add_run(EslProject *project, EslRunStatus status, const char *message)
{
    EslRunRequest request = {.model_name = "four-bar-spatial", .formulation = "penalty"};
    gint64 id = esl_project_begin_run(project, &request, NULL);
    esl_project_finish_run(project, id, status, message, NULL, 0.5, NULL);
    return id;
}

/* An optimisation of psi1 over one parameter with these evaluations' psi. */
static gint64 add_optimization(EslProject *project, const double *psi, int n)
{
    EslRunRequest request = {.model_name = "five-bar", .formulation = "penalty"};
    gint64 id = esl_project_begin_run(project, &request, NULL);
    const char *names[] = {"Ls1", NULL};
    double lower = 1.5, upper = 3.0, start = 2.2, gradient = 0.1;
    EslOptimizationRequest r = {.objective = "psi1", .method = "direct", .method_options = "{}",
                                .algorithm = "lbfgs", .max_evaluations = 100, .xtol = 1e-8,
                                .nparameters = 1, .parameters = names, .lower = &lower,
                                .upper = &upper, .start = &start};
    gboolean ok = esl_project_begin_optimization(project, id, &r, NULL);
    for (int i = 0; ok && i < n; i++)
        ok = esl_project_append_optimization_evaluation(project, id, psi[i], &gradient, &start,
                                                        NULL);
    return ok && esl_project_finish_run(project, id, ESL_RUN_FINISHED, NULL, NULL, 0.5, NULL)
               ? id
               : 0;
}

static void on_rename_run(EslRunBrowser *browser, gint64 id, const char *name, gint64 *renamed)
{
    *renamed = id;
    char **new_name = g_object_get_data(G_OBJECT(browser), "new-name");
    g_free(*new_name);
    *new_name = g_strdup(name);
}

static void on_delete_runs(EslRunBrowser *browser, GArray *ids, gint64 *deleted)
{
    (void)browser;
    *deleted = ids->len == 1 ? g_array_index(ids, gint64, 0) : -1;
}

static GtkWidget *find_entry(GtkWidget *widget)
{
    if (GTK_IS_ENTRY(widget))
        return widget;
    for (GtkWidget *c = gtk_widget_get_first_child(widget); c; c = gtk_widget_get_next_sibling(c)) {
        GtkWidget *found = find_entry(c);
        if (found)
            return found;
    }
    return NULL;
}

static gboolean selected_are(EslRunBrowser *browser, guint n, const gint64 *expected)
{
    g_autoptr(GArray) ids = esl_run_browser_get_selected(browser);
    if (ids->len != n)
        return FALSE;
    for (guint i = 0; i < n; i++)
        if (g_array_index(ids, gint64, i) != expected[i])
            return FALSE;
    return TRUE;
}

int main(void)
{
    gtk_init();
    g_autofree char *dir = g_dir_make_tmp("eslabon-run-browser-XXXXXX", NULL);
    g_autofree char *path = g_build_filename(dir, "runs.eslabon", NULL);
    g_autoptr(GError) error = NULL;
    EslProject *project = esl_project_open(path, TRUE, &error);
    tap_ok(project != NULL, "project created");
    gint64 first = add_run(project, ESL_RUN_FINISHED, NULL);
    gint64 failed = add_run(project, ESL_RUN_FAILED, "Newton did not converge");
    gint64 last = add_run(project, ESL_RUN_FINISHED, NULL);

    EslRunBrowser *browser = g_object_ref_sink(g_object_new(ESL_TYPE_RUN_BROWSER, NULL));
    int changes = 0;
    g_signal_connect(browser, "selection-changed", G_CALLBACK(on_selection_changed), &changes);
    GtkWidget *list = find_list(GTK_WIDGET(browser));
    tap_ok(list != NULL, "the browser has a list");
    tap_ok(esl_run_browser_fill(browser, project, &error), "the runs are listed");
    tap_ok(count_rows(list) == 3, "one row per run (%d)", count_rows(list));
    g_autofree char *newest = g_strdup_printf("#%" G_GINT64_FORMAT " ", last);
    g_autofree char *oldest = g_strdup_printf("#%" G_GINT64_FORMAT " ", first);
    tap_ok(strstr(row_text(list, 0), newest) && strstr(row_text(list, 2), oldest),
           "newest first: %s", one_line(row_text(list, 0)));
    tap_ok(strstr(row_text(list, 1), "failed") != NULL, "the failed run says so: %s",
           one_line(row_text(list, 1)));
    tap_ok(g_str_equal(esl_run_status_label(ESL_RUN_INTERRUPTED), "interrupted"),
           "status label of an interrupted run");

    for (int i = 0; i < 2; i++)
        gtk_list_box_select_row(GTK_LIST_BOX(list),
                                gtk_list_box_get_row_at_index(GTK_LIST_BOX(list), i));
    tap_ok(changes == 2, "each selection is reported (%d)", changes);
    g_autoptr(GArray) ids = esl_run_browser_get_selected(browser);
    tap_ok(ids->len == 2 && g_array_index(ids, gint64, 0) == last &&
               g_array_index(ids, gint64, 1) == failed,
           "the selected runs' ids, in the order of the list");

    /* Clicks as the user makes them (issue 12: a plain click used to add to the selection). */
    changes = 0;
    esl_run_browser_click_row(browser, 2, 0);
    tap_ok(selected_are(browser, 1, (gint64[]){first}) && changes == 1,
           "a plain click selects that run alone, reported once (%d)", changes);
    esl_run_browser_click_row(browser, 0, GDK_CONTROL_MASK);
    tap_ok(selected_are(browser, 2, (gint64[]){last, first}), "Ctrl+click adds a run");
    esl_run_browser_click_row(browser, 2, GDK_CONTROL_MASK);
    tap_ok(selected_are(browser, 1, (gint64[]){last}), "Ctrl+click on a selected run removes it");
    esl_run_browser_click_row(browser, 0, GDK_SHIFT_MASK);
    tap_ok(selected_are(browser, 3, (gint64[]){last, failed, first}),
           "Shift+click selects the range from the last clicked run");
    esl_run_browser_click_row(browser, 1, 0);
    tap_ok(selected_are(browser, 1, (gint64[]){failed}),
           "a plain click brings the selection back to one run");
    changes = 0;
    tap_ok(press(GTK_WIDGET(browser), "Escape") && selected_are(browser, 0, NULL) && changes == 1,
           "Escape clears the selection and says so (%d)", changes);

    /* Rename and delete are asked of the window with the selected runs' ids. */
    gint64 renamed = 0, deleted = 0;
    g_autofree char *new_name = NULL;
    g_signal_connect(browser, "rename-run", G_CALLBACK(on_rename_run), &renamed);
    g_signal_connect(browser, "delete-runs", G_CALLBACK(on_delete_runs), &deleted);
    g_object_set_data(G_OBJECT(browser), "new-name", &new_name);
    esl_run_browser_click_row(browser, 1, 0);
    tap_ok(press(GTK_WIDGET(browser), "Delete") && deleted == failed,
           "the Delete key asks to delete the selected run");
    GtkWidget *entry = find_entry(GTK_WIDGET(browser));
    tap_ok(entry != NULL, "the browser has a name entry");
    if (entry) {
        gtk_editable_set_text(GTK_EDITABLE(entry), "no convergence");
        g_signal_emit_by_name(entry, "activate");
    }
    tap_ok(renamed == failed && g_strcmp0(new_name, "no convergence") == 0,
           "Enter in the name entry renames the selected run (%s)", new_name ? new_name : "");
    esl_project_rename_run(project, failed, "no convergence", NULL);
    tap_ok(esl_run_browser_fill(browser, project, &error) &&
               strstr(row_text(list, 1), "no convergence · four-bar-spatial"),
           "a named run shows its name: %s", one_line(row_text(list, 1)));
    esl_run_browser_set_size(browser, 45 * 1000 * 1000);
    tap_ok(g_str_has_prefix(esl_run_browser_get_size_text(browser), "Project: 45.0") &&
               g_str_has_suffix(esl_run_browser_get_size_text(browser), "MB"),
           "the project size is shown: %s", esl_run_browser_get_size_text(browser));

    esl_run_browser_click_row(browser, 0, 0);
    changes = 0;
    tap_ok(esl_run_browser_fill(browser, project, &error) && count_rows(list) == 3 && changes == 0,
           "refilling drops the selection without reporting it (%d)", changes);
    g_autoptr(GArray) none = esl_run_browser_get_selected(browser);
    tap_ok(none->len == 0, "nothing is selected after a refill");

    /* An optimisation says how many evaluations it made and the lowest psi among them, as a
     * plain run says its samples; none made yet: no psi. */
    const double psi[] = {0.72, 9.0e-18, 2.4};
    gboolean made = add_optimization(project, psi, 3) && add_optimization(project, psi, 0) &&
                    esl_run_browser_fill(browser, project, &error) && count_rows(list) == 5;
    g_autofree char *three = g_strdup(one_line(row_text(list, 1)));
    tap_ok(made && strstr(three, "optimisation of psi1 · 3 evaluations, ψ 9e-18"),
           "an optimisation's row counts its evaluations, with the lowest psi: %s", three);
    tap_ok(made && g_str_has_suffix(row_text(list, 0), "optimisation of psi1 · 0 evaluations"),
           "one without evaluations shows no psi: %s", one_line(row_text(list, 0)));
    tap_ok(esl_run_browser_fill(browser, NULL, &error) && count_rows(list) == 0,
           "no project: no runs");

    g_object_unref(browser);
    esl_project_close(project);
    g_unlink(path);
    g_rmdir(dir);
    return tap_done();
}
