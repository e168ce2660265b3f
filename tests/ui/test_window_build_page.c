/* The Build page stays after an Add (issue 26, defect 6): with a body selected, adding a bar on
 * the Build page keeps the sidebar on the Build page (it turned to the Model tab after every
 * Add), and the selection stays; the joint form shows only the inputs of the type chosen (a
 * revolute joint's had the universal joint's axes and the rod's points). Needs a display
 * (xvfb-run). */
#include <gtk/gtk.h>

#include "esl-application.h"
#include "esl-model-editor.h"
#include "esl-model-panel.h"
#include "esl-scene.h"
#include "esl-window.h"
#include "esl-window-testing.h"
#include "build-spec.h"
#include "tap.h"
#include "ui-test.h"

/* The label under root with exactly this text is shown (visible). */
static gboolean input_shown(GtkWidget *root, const char *text)
{
    GtkWidget *label;
    for (int i = 0; (label = find_nth(root, GTK_TYPE_LABEL, i)); i++)
        if (g_str_equal(gtk_label_get_text(GTK_LABEL(label)), text))
            return gtk_widget_get_visible(label);
    return FALSE;
}

static void check_joint_form(GtkWidget *editor)
{
    GtkDropDown *kind = GTK_DROP_DOWN(find_nth(editor, GTK_TYPE_DROP_DOWN, 0));
    gtk_drop_down_set_selected(kind, 3); /* Joint */
    iterate_pending();
    GtkDropDown *type = GTK_DROP_DOWN(find_nth(editor, GTK_TYPE_DROP_DOWN, 1));
    const char *point = "Point (name or x y z)", *axis = "Axis (x, y, z or 3 numbers)",
               *axis1 = "Universal: axis on body 1", *rod = "Rod: end point names";
    tap_ok(input_shown(editor, point) && input_shown(editor, axis) &&
               !input_shown(editor, axis1) && !input_shown(editor, rod),
           "a revolute joint's form: its point and axis, no universal axes, no rod points");
    gtk_drop_down_set_selected(type, 3); /* universal */
    iterate_pending();
    tap_ok(input_shown(editor, point) && !input_shown(editor, axis) &&
               input_shown(editor, axis1) && !input_shown(editor, rod),
           "a universal joint's form: its point and two axes");
    gtk_drop_down_set_selected(type, 4); /* rod */
    iterate_pending();
    tap_ok(!input_shown(editor, point) && !input_shown(editor, axis1) &&
               input_shown(editor, rod),
           "a rod's form: its end points, no point or axes");
}

static void check(GtkApplication *app, gpointer data)
{
    (void)data;
    EslWindow *w = ESL_WINDOW(gtk_application_get_active_window(app));
    g_autoptr(GError) error = NULL;
    tap_ok(esl_window_load_model(w, "double-pendulum", &error), "the double pendulum loads");
    wait_checked(w);
    GtkWidget *editor = find_nth(GTK_WIDGET(w), ESL_TYPE_MODEL_EDITOR, 0);
    GtkNotebook *sidebar = GTK_NOTEBOOK(gtk_widget_get_ancestor(editor, GTK_TYPE_NOTEBOOK));
    EslModelPanel *panel = ESL_MODEL_PANEL(find_nth(GTK_WIDGET(w), ESL_TYPE_MODEL_PANEL, 0));
    esl_model_panel_select(panel, ESL_SOURCE_BODY, 1);
    int build = gtk_notebook_page_num(sidebar, editor);
    gtk_notebook_set_current_page(sidebar, build);
    iterate_pending();
    const double ends[6] = {0, 0, 0, 0, 1, 0};
    gtk_widget_activate_action_variant(
        GTK_WIDGET(w), "win.add-body",
        dict("name", g_variant_new_string("extra"), "shape", g_variant_new_string("bar"),
             "density", g_variant_new_double(2.0), "ends", doubles(6, ends), "end-names",
             pair("E1", "E2"), NULL));
    wait_checked(w);
    iterate_pending();
    tap_ok(g_strrstr(esl_window_get_model_json(w), "\"extra\"") != NULL, "the bar is added");
    tap_ok(gtk_notebook_get_current_page(sidebar) == build,
           "the sidebar stays on the Build page (page %d, Build is %d)",
           gtk_notebook_get_current_page(sidebar), build);
    int source, index;
    tap_ok(esl_model_panel_get_selected(panel, &source, &index) && source == ESL_SOURCE_BODY &&
               index == 1,
           "the body selected stays selected");
    check_joint_form(editor);
    gtk_window_destroy(GTK_WINDOW(w));
}

int main(void)
{
    run_application("test_window_build_page", G_CALLBACK(check), NULL);
    return tap_done();
}
