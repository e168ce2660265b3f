/* Objectives edited in the window (ui/esl-objective-editor.c): from the sensitivity chooser's
 * "Edit Objectives…" (win.edit-objectives) the editor lists five-bar's psi1..psi3; an objective
 * "v2" is added and given, through its drop-downs, the velocity of 12:2 (psi2's integrand);
 * refused changes show the loader's message and change nothing; the model changes only on
 * Apply, and an Apply onto a model changed meanwhile is refused. Applied, the chooser offers
 * v2, saving writes it, and a sensitivity run (penalty direct, 1 s) stores for v2 the psi and
 * gradient that the engine computes from a model file written by hand with v2 (to 1e-12
 * relative: the same numbers), equal to psi2's; the gradient table shows them. Undo takes the
 * objectives back.
 * usage: test_window_objectives. Needs a display (xvfb-run). ESL_SCREENSHOT=FILE.png saves the
 * screen with the editor showing five-bar's objectives, ESL_SCREENSHOT_ADDED=FILE.png with v2
 * added. */
#include <glib/gstdio.h>
#include <gtk/gtk.h>
#include <locale.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "esl-application.h"
#include "esl-gradient-table.h"
#include "esl-model-build.h"
#include "esl-model-file.h"
#include "esl-number.h"
#include "esl-objective-editor.h"
#include "esl-plot-board.h"
#include "esl-project.h"
#include "esl-run-settings.h"
#include "esl-window.h"
#include "esl-window-testing.h"
#include "tap.h"
#include "ui-test.h"

#define TIMEOUT_S 150

static char *dir, *project_path;
static char *by_hand; /* five-bar.json with v2 written by hand */
static gboolean run_checked;

static EslSensitivityChooser *chooser(EslWindow *window)
{
    return esl_run_settings_get_sensitivity(
        ESL_RUN_SETTINGS(find_nth(GTK_WIDGET(window), ESL_TYPE_RUN_SETTINGS, 0)));
}

/* Choose the item labelled label in a drop-down of the editor; FALSE when it offers none. */
static gboolean choose(EslObjectiveEditor *editor, int o, int t, const char *which,
                       const char *label)
{
    GtkWidget *w = esl_objective_editor_get_control(editor, o, t, which);
    GListModel *items = w ? gtk_drop_down_get_model(GTK_DROP_DOWN(w)) : NULL;
    for (guint i = 0; items && i < g_list_model_get_n_items(items); i++)
        if (!g_strcmp0(gtk_string_list_get_string(GTK_STRING_LIST(items), i), label)) {
            gtk_drop_down_set_selected(GTK_DROP_DOWN(w), i);
            iterate_pending(); /* the list is made again */
            return TRUE;
        }
    return FALSE;
}

/* The labels a drop-down offers, joined by spaces. */
static char *offered(EslObjectiveEditor *editor, int o, int t, const char *which)
{
    GtkWidget *w = esl_objective_editor_get_control(editor, o, t, which);
    GListModel *items = w ? gtk_drop_down_get_model(GTK_DROP_DOWN(w)) : NULL;
    GString *s = g_string_new(NULL);
    for (guint i = 0; items && i < g_list_model_get_n_items(items); i++)
        g_string_append_printf(s, "%s%s", i ? " " : "",
                               gtk_string_list_get_string(GTK_STRING_LIST(items), i));
    return g_string_free(s, FALSE);
}

static void click(EslObjectiveEditor *editor, int o, int t, const char *which)
{
    GtkWidget *w = esl_objective_editor_get_control(editor, o, t, which);
    if (w)
        g_signal_emit_by_name(w, "clicked");
    iterate_pending();
}

static void enter(EslObjectiveEditor *editor, int o, int t, const char *which, const char *text)
{
    GtkWidget *w = esl_objective_editor_get_control(editor, o, t, which);
    if (!w)
        return;
    gtk_editable_set_text(GTK_EDITABLE(w), text);
    g_signal_emit_by_name(w, "activate");
    iterate_pending();
}

static MbsModel *model_of(const char *json)
{
    return json ? esl_model_load_string(json, "model.json", NULL, 0, NULL) : NULL;
}

/* The editor as the user meets it, v2 added through its controls, refusals. */
static EslObjectiveEditor *edit_objectives(EslWindow *window)
{
    gtk_widget_activate_action(GTK_WIDGET(window), "win.edit-objectives", NULL);
    iterate_pending();
    EslObjectiveEditor *e = find_toplevel(ESL_TYPE_OBJECTIVE_EDITOR);
    tap_ok(e && gtk_widget_get_visible(GTK_WIDGET(e)) &&
               gtk_window_get_transient_for(GTK_WINDOW(e)) == GTK_WINDOW(window),
           "win.edit-objectives opens the objective editor over the window");
    if (!e)
        return NULL;
    GtkWidget *name = esl_objective_editor_get_control(e, 2, -1, "name");
    g_autofree char *quantities = offered(e, 0, 0, "quantity");
    g_autofree char *points = offered(e, 0, 0, "target");
    tap_ok(name && !g_strcmp0(gtk_editable_get_text(GTK_EDITABLE(name)), "psi3") &&
               !esl_objective_editor_get_control(e, 3, -1, "name") &&
               !g_strcmp0(quantities, "position displacement velocity acceleration "
                                      "joint_coordinate joint_rate angular_velocity") &&
               !g_strcmp0(points, "A1:A A1:1 12:1 12:2 23:2 23:3 3B:3 3B:B"),
           "it lists psi1, psi2, psi3; quantities: %s; points of moving bodies: %s", quantities,
           points);
    GtkWidget *reference = esl_objective_editor_get_control(e, 0, 0, "reference");
    g_autofree char *r20 = g_strdup_printf("0%s5 -2 0", localeconv()->decimal_point);
    tap_ok(reference && !g_strcmp0(gtk_editable_get_text(GTK_EDITABLE(reference)), r20) &&
               !gtk_widget_get_sensitive(esl_objective_editor_get_control(e, -1, -1, "apply")),
           "psi1 shows its reference r20 (%s); nothing to apply yet",
           reference ? gtk_editable_get_text(GTK_EDITABLE(reference)) : "");
    save_screenshot_as("ESL_SCREENSHOT");

    const char *model_json = esl_window_get_model_json(window);
    g_autofree char *before = g_strdup(model_json);
    gtk_editable_set_text(GTK_EDITABLE(esl_objective_editor_get_control(e, -1, -1, "new-name")),
                          "v2");
    click(e, -1, -1, "add");
    gboolean chosen = choose(e, 3, 0, "quantity", "velocity") && choose(e, 3, 0, "target", "12:2");
    g_autofree char *measures = offered(e, 3, 0, "measure");
    MbsModel *edited = model_of(esl_objective_editor_get_json(e));
    MbsModel *hand = model_of(by_hand);
    g_autofree char *why = NULL;
    tap_ok(chosen && edited && hand && esl_model_equal(edited, hand, &why) &&
               !esl_objective_editor_get_error(e) && !g_strcmp0(measures, "squared_norm x y z squared_x squared_y squared_z"),
           "v2 added, velocity of 12:2 chosen (measures %s): the edited text is five-bar with v2 "
           "written by hand %s%s", measures, why ? why : "",
           esl_objective_editor_get_error(e) ? esl_objective_editor_get_error(e) : "");
    mbs_model_free(edited);
    mbs_model_free(hand);
    g_autoptr(GArray) listed = g_array_new(FALSE, FALSE, sizeof(int));
    g_autoptr(GArray) parameters = g_array_new(FALSE, FALSE, sizeof(int));
    esl_sensitivity_chooser_get(chooser(window), listed, parameters, NULL);
    tap_ok(!strcmp(esl_window_get_model_json(window), before) && listed->len == 3,
           "the window's model is unchanged until Apply (the chooser offers %u objectives)",
           listed->len);
    choose(e, 3, 0, "quantity", "joint_rate");
    g_autofree char *joints = offered(e, 3, 0, "target");
    g_autofree char *scalar = offered(e, 3, 0, "measure");
    tap_ok(!g_strcmp0(joints, "A 1 2 3") && !g_strcmp0(scalar, "squared_norm value"),
           "a joint rate offers the tree's revolute joints (%s, not the cut joint B) and the "
           "measures of a scalar (%s)", joints, scalar);
    choose(e, 3, 0, "quantity", "velocity");
    choose(e, 3, 0, "target", "12:2");
    save_screenshot_as("ESL_SCREENSHOT_ADDED");

    /* refusals: the loader's message in the editor, the edited text as it was */
    g_autofree char *good = g_strdup(esl_objective_editor_get_json(e));
    enter(e, 3, -1, "name", "psi2");
    const char *error = esl_objective_editor_get_error(e);
    GtkWidget *renamed = esl_objective_editor_get_control(e, 3, -1, "name");
    tap_ok(error && strstr(error, "objective 'psi2' is defined twice") &&
               !strcmp(good, esl_objective_editor_get_json(e)) && renamed &&
               !g_strcmp0(gtk_editable_get_text(GTK_EDITABLE(renamed)), "v2"),
           "renaming v2 to psi2 is refused in the editor (%s); v2 keeps its name", error);
    click(e, 0, 0, "remove");
    error = esl_objective_editor_get_error(e);
    tap_ok(error && strstr(error, "needs at least one term") &&
               !strcmp(good, esl_objective_editor_get_json(e)),
           "removing psi1's only term is refused (%s)", error);
    enter(e, 3, 0, "weight", "two");
    error = esl_objective_editor_get_error(e);
    tap_ok(error && strstr(error, "is not a number") &&
               !strcmp(good, esl_objective_editor_get_json(e)),
           "a weight that is not a number is refused (%s)", error);

    /* an Apply onto a model changed since the editor read it is refused: nothing of it is
     * applied (the other edit is kept) */
    g_autoptr(GError) edit_error = NULL;
    gboolean edited_mass = esl_window_edit_model(window, "bodies/2/mass", 1.75, &edit_error);
    wait_checked(window);
    g_autofree char *changed = g_strdup(esl_window_get_model_json(window));
    click(e, -1, -1, "apply");
    error = esl_objective_editor_get_error(e);
    tap_ok(edited_mass && error && strstr(error, "changed since") &&
               !strcmp(changed, esl_window_get_model_json(window)),
           "Apply after another edit of the model is refused (%s), the model as it was",
           error ? error : (edit_error ? edit_error->message : ""));
    gtk_widget_activate_action(GTK_WIDGET(window), "win.undo", NULL);
    wait_checked(window);
    tap_ok(!strcmp(before, esl_window_get_model_json(window)), "the mass edit is undone");
    return e;
}

static void apply(EslWindow *window, EslObjectiveEditor *e)
{
    /* the editor reads the model again (as opened from the chooser), then v2 once more */
    GtkWidget *edit = NULL;
    for (int i = 0; (edit = find_nth(GTK_WIDGET(chooser(window)), GTK_TYPE_BUTTON, i)); i++)
        if (!g_strcmp0(gtk_actionable_get_action_name(GTK_ACTIONABLE(edit)),
                       "win.edit-objectives"))
            break;
    tap_ok(edit != NULL, "the sensitivity chooser has a button for win.edit-objectives");
    if (edit)
        g_signal_emit_by_name(edit, "clicked");
    iterate_pending();
    tap_ok(!strcmp(esl_objective_editor_get_json(e), esl_window_get_model_json(window)) &&
               !esl_objective_editor_get_error(e),
           "opened again, the editor holds the model's text");
    gtk_editable_set_text(GTK_EDITABLE(esl_objective_editor_get_control(e, -1, -1, "new-name")),
                          "v2");
    click(e, -1, -1, "add");
    choose(e, 3, 0, "quantity", "velocity");
    choose(e, 3, 0, "target", "12:2");
    g_autofree char *text = g_strdup(esl_objective_editor_get_json(e));
    click(e, -1, -1, "apply");
    wait_checked(window);
    g_autoptr(GArray) objectives = g_array_new(FALSE, FALSE, sizeof(int));
    g_autoptr(GArray) parameters = g_array_new(FALSE, FALSE, sizeof(int));
    esl_sensitivity_chooser_set_method(chooser(window), "direct");
    esl_sensitivity_chooser_get(chooser(window), objectives, parameters, NULL);
    tap_ok(!esl_objective_editor_get_error(e) &&
               !strcmp(text, esl_window_get_model_json(window)) && objectives->len == 4 &&
               !esl_window_get_check_error(window) &&
               !gtk_widget_get_sensitive(esl_objective_editor_get_control(e, -1, -1, "apply")),
           "Apply makes the edited text the model's; the chooser offers %u objectives",
           objectives->len);
    gtk_window_close(GTK_WINDOW(e));

    /* closing with a change not applied asks; Discard takes the change back and closes */
    gtk_window_present(GTK_WINDOW(e));
    gtk_editable_set_text(GTK_EDITABLE(esl_objective_editor_get_control(e, -1, -1, "new-name")),
                          "unsaved");
    click(e, -1, -1, "add");
    gtk_window_close(GTK_WINDOW(e));
    GtkWidget *confirm = esl_objective_editor_get_control(e, -1, -1, "confirm");
    gboolean asked = confirm && gtk_widget_get_visible(GTK_WIDGET(e));
    if (confirm)
        gtk_dialog_response(GTK_DIALOG(confirm), GTK_RESPONSE_REJECT);
    tap_ok(asked && !esl_objective_editor_get_control(e, -1, -1, "confirm") &&
               !gtk_widget_get_visible(GTK_WIDGET(e)) &&
               !strcmp(esl_objective_editor_get_json(e), esl_window_get_model_json(window)),
           "closing with a change not applied asks first; Discard takes it back and closes");

    g_autofree char *saved = g_build_filename(dir, "five-bar-v2.json", NULL);
    gtk_widget_activate_action(GTK_WIDGET(window), "win.save-model-to", "s", saved);
    MbsModel *from_file = esl_model_load_file(saved, NULL, 0, NULL);
    MbsModel *hand = model_of(by_hand);
    tap_ok(from_file && hand && esl_model_equal(from_file, hand, NULL),
           "saving the model writes v2");
    mbs_model_free(from_file);
    mbs_model_free(hand);
}

/* The stored run against the engine's on the file written by hand. */
static void on_finished(EslWindow *window, int status, gint64 run_id, gpointer data)
{
    (void)data;
    g_autoptr(GError) error = NULL;
    EslProject *project = esl_project_open(project_path, FALSE, &error);
    g_autoptr(EslSensitivityRun) run =
        project ? esl_project_load_sensitivity(project, run_id, &error) : NULL;
    if (project)
        esl_project_close(project);
    MbsModel *m = model_of(by_hand);
    MbsSettings s;
    esl_run_settings_read(ESL_RUN_SETTINGS(find_nth(GTK_WIDGET(window), ESL_TYPE_RUN_SETTINGS, 0)),
                          &s);
    int objectives[] = {0, 1, 2, 3}, parameters[8], np = 0;
    for (int k = 0; m && k < m->nparameters && np < 8; k++)
        if (mbs_model_parameter_is_free(m, k))
            parameters[np++] = k;
    double psi[4], gradient[4 * 8];
    MbsSensitivityProblem p = {.model = m, .formulation = "penalty", .settings = &s,
                               .objectives = objectives, .nobjectives = 4,
                               .parameters = parameters, .nparameters = np};
    MbsSensitivityResult r = {.psi = psi, .gradient = gradient};
    MbsError err = {0};
    gboolean computed = m && mbs_sensitivity_compute(&p, MBS_SENSITIVITY_DIRECT, &r, &err) == 0;
    gboolean stored = status == ESL_RUN_FINISHED && run && run->psi && run->gradient &&
                      run->nobjectives == 4 && run->nparameters == np &&
                      !g_strcmp0(run->objectives[3], "v2");
    tap_ok(computed && stored, "the direct run of the edited model is stored with v2 (%d "
           "objectives, %d parameters)%s%s", run ? run->nobjectives : 0, np, err.message,
           error ? error->message : "");
    double worst = computed && stored ? 0.0 : INFINITY;
    for (int i = 0; computed && stored && i < 4; i++) {
        worst = fmax(worst, fabs(run->psi[i] - psi[i]) / fabs(psi[i]));
        for (int k = 0; k < np; k++)
            worst = fmax(worst, fabs(run->gradient[i * np + k] - gradient[i * np + k]) /
                                    fmax(fabs(gradient[i * np + k]), 1e-300));
    }
    tap_ok(worst <= 1e-12,
           "psi(v2) = %.17g stored, %.17g by the engine on the file written by hand; every psi "
           "and derivative agrees to %.1e (<= 1e-12 relative)", stored ? run->psi[3] : NAN,
           psi[3], worst);
    tap_ok(stored && run->psi[3] == run->psi[1] && run->psi[3] > 0,
           "v2 is psi2 (the same integrand): %.17g and %.17g", stored ? run->psi[3] : NAN,
           stored ? run->psi[1] : NAN);
    EslPlotBoard *board = ESL_PLOT_BOARD(find_nth(GTK_WIDGET(window), ESL_TYPE_PLOT_BOARD, 0));
    GtkWidget *table = esl_plot_board_gradient_table(board);
    g_autofree char *want = stored ? esl_number_to_text(run->psi[3], 6, NULL) : NULL;
    g_autofree char *want_d = stored ? esl_number_to_text(run->gradient[3 * np], 6, NULL) : NULL;
    EslGradientTable *t = table ? ESL_GRADIENT_TABLE(table) : NULL;
    tap_ok(t && !g_strcmp0(esl_gradient_table_grid_text(t, 5, 0), "v2") &&
               !g_strcmp0(esl_gradient_table_grid_text(t, 5, 1), want) &&
               !g_strcmp0(esl_gradient_table_cell_text(t, 0, 3), want_d),
           "the gradient table shows v2 with its psi %s and derivatives (%s)", want, want_d);
    mbs_model_free(m);

    gtk_widget_activate_action(GTK_WIDGET(window), "win.undo", NULL);
    wait_checked(window);
    g_autoptr(GArray) o = g_array_new(FALSE, FALSE, sizeof(int));
    g_autoptr(GArray) k = g_array_new(FALSE, FALSE, sizeof(int));
    esl_sensitivity_chooser_get(chooser(window), o, k, NULL);
    MbsModel *now = model_of(esl_window_get_model_json(window));
    tap_ok(now && now->nobjectives == 3 && o->len == 3,
           "Undo takes the objectives back: psi1, psi2, psi3 in the model and the chooser");
    mbs_model_free(now);
    run_checked = TRUE;
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
    wait_checked(window);
    esl_window_set_formulation(window, "penalty");
    esl_window_set_sensitivity_method(window, "direct");
    EslObjectiveEditor *e = edit_objectives(window);
    if (!e) {
        gtk_window_destroy(GTK_WINDOW(window));
        return;
    }
    apply(window, e);
    esl_window_set_duration(window, 1.0);
    g_signal_connect(window, "run-finished", G_CALLBACK(on_finished), NULL);
    gtk_widget_activate_action(GTK_WIDGET(window), "win.run", NULL);
    g_timeout_add_seconds(TIMEOUT_S, ui_test_timed_out, GINT_TO_POINTER(TIMEOUT_S));
}

int main(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    setlocale(LC_ALL, "");
    dir = g_dir_make_tmp("esl-window-objectives-XXXXXX", NULL);
    project_path = g_build_filename(dir, "objectives.eslabon", NULL);
    g_autofree char *five_bar =
        g_build_filename(g_getenv("ESLABON_MODELS_DIR"), "five-bar.json", NULL);
    g_autofree char *text = NULL;
    if (!g_file_get_contents(five_bar, &text, NULL, NULL) || !strstr(text, "\n  ]\n}")) {
        tap_ok(FALSE, "five-bar.json ends with its objectives");
        return tap_done();
    }
    *strstr(text, "\n  ]\n}") = '\0';
    by_hand = g_strconcat(text, ",\n    {\"name\": \"v2\", \"integrand\": [{\"quantity\": "
                                "\"velocity\", \"body\": \"12\", \"point\": \"2\"}]}\n  ]\n}\n",
                          NULL);
    g_autoptr(EslApplication) app = esl_application_new();
    g_application_set_flags(G_APPLICATION(app),
                            g_application_get_flags(G_APPLICATION(app)) |
                                G_APPLICATION_NON_UNIQUE);
    g_signal_connect_after(app, "activate", G_CALLBACK(activate), NULL);
    char *app_argv[] = {"test_window_objectives", NULL};
    g_application_run(G_APPLICATION(app), 1, app_argv);
    tap_ok(run_checked, "the sensitivity run of the edited model was checked");
    const char *files[] = {"objectives.eslabon", "objectives.eslabon-wal",
                           "objectives.eslabon-shm", "five-bar-v2.json"};
    for (size_t i = 0; i < G_N_ELEMENTS(files); i++) {
        g_autofree char *f = g_build_filename(dir, files[i], NULL);
        g_unlink(f);
    }
    g_rmdir(dir);
    g_free(project_path);
    g_free(by_hand);
    return tap_done();
}
