/* Building a mechanism in the window (issue 12): File ▸ New Model asks about unsaved edits,
 * then a four-bar is built from the empty model through the window's actions with the
 * parameters a user's clicks give; every edit is checked on a worker (the degrees of freedom
 * and the error at the element); undo and redo give back the texts and models exactly; a shared
 * point moves for both bodies; the model runs, is saved, reloaded and is the same model. Needs
 * a display (xvfb-run). */
#include <glib/gstdio.h>
#include <gtk/gtk.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "esl-application.h"
#include "esl-model-build.h"
#include "esl-model-editor.h"
#include "esl-model-file.h"
#include "esl-project.h"
#include "esl-scene.h"
#include "esl-window.h"
#include "esl-window-testing.h"
#include "build-spec.h"
#include "tap.h"
#include "ui-test.h"

G_DEFINE_AUTOPTR_CLEANUP_FUNC(MbsModel, mbs_model_free)

typedef struct {
    EslWindow *window;
    char *dir;
    int run_status;
    gboolean run_done;
} Assemble;

static void act(EslWindow *window, const char *action, GVariant *parameter)
{
    gtk_widget_activate_action_variant(GTK_WIDGET(window), action, parameter);
    wait_checked(window);
}

static MbsModel *model_of(const char *json)
{
    return json ? esl_model_load_string(json, "model.json", NULL, 0, NULL) : NULL;
}

static gboolean title_has(EslWindow *window, const char *text)
{
    const char *title = gtk_window_get_title(GTK_WINDOW(window));
    return title && strstr(title, text);
}

/* New Model with unsaved edits asks first; Discard gives the empty model. */
static void check_new_model(Assemble *a)
{
    EslWindow *w = a->window;
    g_autoptr(GError) error = NULL;
    tap_ok(esl_window_load_model(w, "double-pendulum", &error) &&
               esl_window_edit_model(w, "bodies/1/mass", 2.0, &error),
           "a bundled model is opened and edited");
    gtk_widget_activate_action(GTK_WIDGET(w), "win.new-model", NULL);
    GtkWidget *question = esl_window_get_question(w);
    tap_ok(question != NULL, "New Model with unsaved edits asks first");
    if (question)
        gtk_dialog_response(GTK_DIALOG(question), GTK_RESPONSE_CANCEL);
    tap_ok(title_has(w, "double-pendulum (modified)"), "Cancel keeps the edited model");
    gtk_widget_activate_action(GTK_WIDGET(w), "win.new-model", NULL);
    question = esl_window_get_question(w);
    if (question)
        gtk_dialog_response(GTK_DIALOG(question), GTK_RESPONSE_REJECT);
    wait_checked(w);
    g_autoptr(MbsModel) m = model_of(esl_window_get_model_json(w));
    int dof, redundant;
    esl_window_get_mobility(w, &dof, &redundant);
    tap_ok(m && m->nbodies == 1 && m->bodies[0].is_ground && m->gravity[2] == -9.81 &&
               dof == 0 && !title_has(w, "modified"),
           "Discard: a new model, a ground and gravity -9.81 Z, 0 degrees of freedom");
}

static void add_bar(EslWindow *w, const char *name, const char *a, const char *b,
                    const double ends[6])
{
    act(w, "win.add-body",
        dict("name", g_variant_new_string(name), "shape", g_variant_new_string("bar"), "density",
             g_variant_new_double(2.0), "ends", doubles(6, ends), "end-names", pair(a, b), NULL));
}

static void add_revolute(EslWindow *w, const char *name, const char *b1, const char *b2,
                         const double at[3])
{
    act(w, "win.add-joint",
        dict("name", g_variant_new_string(name), "type", g_variant_new_string("revolute"),
             "bodies", pair(b1, b2), "location", doubles(3, at), "axis",
             g_variant_new_string("x"), NULL));
}

/* A planar four-bar in the X = 0 plane (ground O-C 4 m, crank 1 m, coupler, rocker). */
static void build_four_bar(Assemble *a)
{
    EslWindow *w = a->window;
    static const double crank[6] = {0, 0, 0, 0, 0, 1}, coupler[6] = {0, 0, 1, 0, 3, 1.5},
                        rocker[6] = {0, 3, 1.5, 0, 4, 0};
    add_bar(w, "crank", "O", "A", crank);
    const char *error = esl_window_get_check_error(w);
    tap_ok(error && strstr(error, "'crank'") && strstr(error, "not connected"),
           "a bar alone: the check says it is not connected (%s)", error ? error : "no error");
    gtk_widget_activate_action(GTK_WIDGET(w), "win.run", NULL);
    tap_ok(!g_action_group_get_action_enabled(G_ACTION_GROUP(w), "run") ||
               esl_window_get_check_error(w),
           "a model that does not load cannot run");
    add_revolute(w, "O", "ground", "crank", (double[]){0, 0, 0});
    int dof, redundant;
    esl_window_get_mobility(w, &dof, &redundant);
    tap_ok(!esl_window_get_check_error(w) && dof == 1 && redundant == 0,
           "crank on the ground: 1 degree of freedom, 0 redundant (%d, %d)", dof, redundant);
    add_bar(w, "coupler", "A", "B", coupler);
    add_bar(w, "rocker", "B", "C", rocker);
    add_revolute(w, "A", "crank", "coupler", (double[]){0, 0, 1});
    add_revolute(w, "B", "coupler", "rocker", (double[]){0, 3, 1.5});
    add_revolute(w, "C", "ground", "rocker", (double[]){0, 4, 0});
    esl_window_get_mobility(w, &dof, &redundant);
    /* The planar loop's cut revolute: 5 equations of rank 2 (3 redundant out of plane). */
    tap_ok(!esl_window_get_check_error(w) && dof == 1 && redundant == 3,
           "four-bar: 1 degree of freedom, 3 redundant constraints, as eslabon-cli info counts "
           "(%d, %d)", dof, redundant);
    GtkWidget *editor = find_widget_of_type(GTK_WIDGET(w), ESL_TYPE_MODEL_EDITOR);
    const char *status = editor ? esl_model_editor_get_status(ESL_MODEL_EDITOR(editor)) : "";
    tap_ok(strstr(status, "1 degree of freedom") && strstr(status, "3 redundant"),
           "the Build page shows them: %s", status);
    act(w, "win.add-force",
        dict("type", g_variant_new_string("rsda"), "name", g_variant_new_string("spring"),
             "joint", g_variant_new_string("O"), "stiffness", g_variant_new_double(20.0),
             "damping", g_variant_new_double(0.5), NULL));
    act(w, "win.set-initial",
        dict("joint", g_variant_new_string("O"), "velocity", g_variant_new_double(1.0), NULL));
    g_autoptr(MbsModel) m = model_of(esl_window_get_model_json(w));
    tap_ok(m && m->nbodies == 4 && m->njoints == 4 && m->nforces == 1 &&
               m->forces[0].stiffness == 20.0 && m->ninitial == 1 &&
               fabs(m->bodies[2].mass - 2.0 * sqrt(9.0 + 0.25)) < 1e-12,
           "the built model: 4 bodies, 4 joints, a torsional spring, an initial velocity; the "
           "coupler's mass is 2 kg/m x its length");
}

/* Every edit undoes and redoes exactly: the text, and the model checked from it. */
static void check_undo(Assemble *a)
{
    EslWindow *w = a->window;
    g_autofree char *before = g_strdup(esl_window_get_model_json(w));
    g_autoptr(MbsModel) model_before = model_of(before);
    act(w, "win.remove-element",
        dict("section", g_variant_new_string("bodies"), "name", g_variant_new_string("rocker"),
             NULL));
    g_autofree char *removed = g_strdup(esl_window_get_model_json(w));
    g_autoptr(MbsModel) m = model_of(removed);
    tap_ok(m && m->nbodies == 3 && m->njoints == 2, "removing the rocker removes joints B and C");
    act(w, "win.undo", NULL);
    g_autoptr(MbsModel) undone = model_of(esl_window_get_model_json(w));
    g_autofree char *why = NULL;
    tap_ok(g_strcmp0(esl_window_get_model_json(w), before) == 0 && undone &&
               esl_model_equal(undone, model_before, &why),
           "Undo gives back the text and the model exactly%s%s", why ? ": " : "", why ? why : "");
    int dof, redundant;
    esl_window_get_mobility(w, &dof, &redundant);
    tap_ok(dof == 1 && redundant == 3, "and its check (1 dof, 3 redundant)");
    act(w, "win.redo", NULL);
    tap_ok(g_strcmp0(esl_window_get_model_json(w), removed) == 0, "Redo gives back the removal");
    act(w, "win.undo", NULL);

    /* The shared point B moves for the coupler, the rocker and joint B. */
    g_autoptr(MbsModel) now = model_of(esl_window_get_model_json(w));
    int coupler = mbs_model_find_body(now, "coupler");
    g_autofree char *path = g_strdup_printf("bodies/%d/points/B/2", coupler);
    g_autoptr(GError) error = NULL;
    tap_ok(esl_window_edit_model(w, path, 1.6, &error), "the coupler's point B is moved");
    wait_checked(w);
    g_autoptr(MbsModel) moved = model_of(esl_window_get_model_json(w));
    int rocker = moved ? mbs_model_find_body(moved, "rocker") : -1;
    int b = moved ? mbs_model_find_point(moved, rocker, "B") : -1;
    int jb = moved ? mbs_model_find_joint(moved, "B") : -1;
    tap_ok(b >= 0 && moved->points[b].pos[2] == 1.6 && moved->joints[jb].point1[2] == 1.6 &&
               !esl_window_get_check_error(w),
           "it moves for the rocker and joint B, and the model still assembles");
    act(w, "win.undo", NULL);
    tap_ok(g_strcmp0(esl_window_get_model_json(w), before) == 0, "Ctrl+Z takes it back");
}

static void on_run_finished(EslWindow *window, int status, gint64 run_id, Assemble *a)
{
    (void)window;
    (void)run_id;
    a->run_status = status;
    a->run_done = TRUE;
}

static void check_run_save_reload(Assemble *a)
{
    EslWindow *w = a->window;
    esl_window_set_duration(w, 0.5);
    g_signal_connect(w, "run-finished", G_CALLBACK(on_run_finished), a);
    gtk_widget_activate_action(GTK_WIDGET(w), "win.run", NULL);
    gint64 end = g_get_monotonic_time() + 60 * G_USEC_PER_SEC;
    while (!a->run_done && g_get_monotonic_time() < end)
        g_main_context_iteration(NULL, TRUE);
    tap_ok(a->run_done && a->run_status == ESL_RUN_FINISHED,
           "the built four-bar runs 0.5 s (status %d)", a->run_status);
    wait_replayed(w); /* a run faster than real time is played back first */
    tap_ok(fabs(esl_window_get_time(w) - 0.5) < 1e-9, "its motion is shown to t = 0.5 s (%.9g)",
           esl_window_get_time(w));

    g_autofree char *json = g_strdup(esl_window_get_model_json(w));
    g_autoptr(MbsModel) built = model_of(json);
    g_autofree char *path = g_build_filename(a->dir, "four-bar-built.json", NULL);
    act(w, "win.save-model-to", g_variant_new_string(path));
    g_autofree char *saved = NULL;
    g_file_get_contents(path, &saved, NULL, NULL);
    tap_ok(saved && g_str_equal(saved, json) && !title_has(w, "modified"),
           "saved: the file is the model's text and the title is no longer modified");
    /* Another model, then the saved file again, as the Recent menu opens it. */
    g_autoptr(GError) error = NULL;
    esl_window_load_model(w, "slider-crank", &error);
    act(w, "win.open-recent", g_variant_new_string(path));
    g_autoptr(MbsModel) reloaded = model_of(esl_window_get_model_json(w));
    g_autoptr(MbsModel) from_file = esl_model_load_file(path, NULL, 0, NULL);
    g_autofree char *why = NULL;
    g_autofree char *why_file = NULL;
    tap_ok(built && reloaded && esl_model_equal(built, reloaded, &why) &&
               g_str_equal(esl_window_get_model_json(w), json) && !title_has(w, "slider-crank"),
           "reloaded, it is the same model%s%s", why ? ": " : "", why ? why : "");
    tap_ok(from_file && esl_model_equal(built, from_file, &why_file),
           "and the file loads to the same model%s%s", why_file ? ": " : "",
           why_file ? why_file : "");
}

static GtkWidget *find_button(GtkWidget *widget, const char *label)
{
    if (GTK_IS_BUTTON(widget) && g_strcmp0(gtk_button_get_label(GTK_BUTTON(widget)), label) == 0)
        return widget;
    for (GtkWidget *c = gtk_widget_get_first_child(widget); c; c = gtk_widget_get_next_sibling(c)) {
        GtkWidget *found = find_button(c, label);
        if (found)
            return found;
    }
    return NULL;
}

/* The Build page's own form, as a user fills it: the last kind (Gravity), its one entry. */
static void check_form(Assemble *a)
{
    EslWindow *w = a->window;
    GtkWidget *editor = find_widget_of_type(GTK_WIDGET(w), ESL_TYPE_MODEL_EDITOR);
    GtkWidget *kinds = editor ? find_widget_of_type(editor, GTK_TYPE_DROP_DOWN) : NULL;
    GListModel *list = kinds ? gtk_drop_down_get_model(GTK_DROP_DOWN(kinds)) : NULL;
    guint n = list ? g_list_model_get_n_items(list) : 0;
    /* Two bodies picked in the 3D view on the Joint form (the fourth kind) fill its pair. */
    GtkWidget *sidebar = editor ? gtk_widget_get_ancestor(editor, GTK_TYPE_NOTEBOOK) : NULL;
    if (sidebar)
        gtk_notebook_set_current_page(GTK_NOTEBOOK(sidebar),
                                      gtk_notebook_page_num(GTK_NOTEBOOK(sidebar), editor));
    if (n)
        gtk_drop_down_set_selected(GTK_DROP_DOWN(kinds), 3);
    GtkWidget *viewport = find_widget_of_type(GTK_WIDGET(w), g_type_from_name("EslViewport"));
    g_signal_emit_by_name(viewport, "picked", ESL_SOURCE_BODY, 3);
    g_signal_emit_by_name(viewport, "picked", ESL_SOURCE_BODY, 0);
    GtkWidget *joint_grid = find_widget_of_type(editor, GTK_TYPE_GRID);
    GtkWidget *first = NULL, *second = NULL;
    for (GtkWidget *c = joint_grid ? gtk_widget_get_first_child(joint_grid) : NULL; c;
         c = gtk_widget_get_next_sibling(c))
        if (GTK_IS_BOX(c) && GTK_IS_DROP_DOWN(gtk_widget_get_first_child(c))) {
            first = gtk_widget_get_first_child(c);
            second = gtk_widget_get_last_child(c);
        }
    tap_ok(first && gtk_drop_down_get_selected(GTK_DROP_DOWN(first)) == 3 &&
               gtk_drop_down_get_selected(GTK_DROP_DOWN(second)) == 0 &&
               gtk_notebook_get_current_page(GTK_NOTEBOOK(sidebar)) ==
                   gtk_notebook_page_num(GTK_NOTEBOOK(sidebar), editor),
           "bodies picked in the 3D view fill the joint's pair (rocker, ground); the Build page "
           "stays");
    if (n)
        gtk_drop_down_set_selected(GTK_DROP_DOWN(kinds), n - 1);
    GtkWidget *grid = editor ? find_widget_of_type(editor, GTK_TYPE_GRID) : NULL;
    GtkWidget *entry = grid ? find_widget_of_type(grid, GTK_TYPE_ENTRY) : NULL;
    GtkWidget *add = editor ? find_button(editor, "_Add") : NULL;
    tap_ok(n > 8 && entry && add, "the Build page has %u kinds of element, a form and Add", n);
    if (!entry || !add)
        return;
    gtk_editable_set_text(GTK_EDITABLE(entry), "0 -9.81 0");
    g_signal_emit_by_name(add, "clicked");
    wait_checked(w);
    g_autoptr(MbsModel) m = model_of(esl_window_get_model_json(w));
    tap_ok(m && m->gravity[0] == 0 && m->gravity[1] == -9.81 && m->gravity[2] == 0,
           "its Gravity form sets gravity to (0, -9.81, 0)");
    /* The form is made again for the model as checked. */
    entry = find_widget_of_type(find_widget_of_type(editor, GTK_TYPE_GRID), GTK_TYPE_ENTRY);
    gtk_editable_set_text(GTK_EDITABLE(entry), "0 oops 0");
    g_signal_emit_by_name(add, "clicked");
    wait_checked(w);
    g_autoptr(MbsModel) same = model_of(esl_window_get_model_json(w));
    tap_ok(same && same->gravity[1] == -9.81, "a form with a word for a number changes nothing");
    act(w, "win.undo", NULL);
}

static void activate(GtkApplication *app, Assemble *a)
{
    a->window = ESL_WINDOW(gtk_application_get_active_window(app));
    gtk_window_present(GTK_WINDOW(a->window));
    check_new_model(a);
    build_four_bar(a);
    check_undo(a);
    check_form(a);
    check_run_save_reload(a);
    gtk_window_destroy(GTK_WINDOW(a->window));
}

int main(void)
{
    Assemble a = {0};
    a.dir = g_dir_make_tmp("eslabon-assemble-XXXXXX", NULL);
    g_setenv("XDG_DATA_HOME", a.dir, TRUE);  /* recent files of this test */
    g_setenv("XDG_CACHE_HOME", a.dir, TRUE); /* its temporary project */
    g_autoptr(EslApplication) app = esl_application_new();
    g_application_set_flags(G_APPLICATION(app),
                            g_application_get_flags(G_APPLICATION(app)) |
                                G_APPLICATION_NON_UNIQUE);
    g_signal_connect_after(app, "activate", G_CALLBACK(activate), &a);
    char *argv[] = {"test_window_assemble", NULL};
    g_application_run(G_APPLICATION(app), 1, argv);
    g_autofree char *cmd = g_strdup_printf("rm -rf '%s'", a.dir);
    (void)!system(cmd);
    g_free(a.dir);
    return tap_done();
}
