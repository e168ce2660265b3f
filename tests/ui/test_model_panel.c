/* EslModelPanel (ui/esl-model-panel.c): one row per element under four headings, selection
 * reported as (source, index), the search field filters rows by name or kind, and a number
 * entered in the inspector is handed to "edit-field" (a decimal comma accepted), with the
 * handler's error or "not a number" shown under the field. Needs a display (xvfb-run). */
#include <gtk/gtk.h>
#include <math.h>
#include <string.h>

#include "esl-model-file.h"
#include "esl-model-panel.h"
#include "esl-models-dir.h"
#include "esl-scene.h"
#include "tap.h"

typedef struct {
    int source, index, selections;
    int edits;
    char *path;
    double value;
    gboolean accept;
} Seen;

static void on_element_selected(EslModelPanel *panel, int source, int index, Seen *seen)
{
    (void)panel;
    seen->source = source;
    seen->index = index;
    seen->selections++;
}

static gboolean on_edit_field(EslModelPanel *panel, const char *path, const char *label,
                              double value, GError **error, Seen *seen)
{
    (void)panel;
    (void)label;
    seen->edits++;
    g_free(seen->path);
    seen->path = g_strdup(path);
    seen->value = value;
    if (!seen->accept)
        g_set_error(error, G_IO_ERROR, G_IO_ERROR_FAILED, "refused by the test");
    return seen->accept;
}

/* Descendants of widget of a type, depth first. */
static void collect(GtkWidget *widget, GType type, GPtrArray *out)
{
    if (G_TYPE_CHECK_INSTANCE_TYPE(widget, type))
        g_ptr_array_add(out, widget);
    for (GtkWidget *c = gtk_widget_get_first_child(widget); c; c = gtk_widget_get_next_sibling(c))
        collect(c, type, out);
}

static GtkWidget *first_of(GtkWidget *widget, GType type)
{
    g_autoptr(GPtrArray) all = g_ptr_array_new();
    collect(widget, type, all);
    return all->len ? all->pdata[0] : NULL;
}

/* Rows of elements (selectable) that the filter shows. */
static int visible_elements(GtkWidget *list)
{
    int n = 0;
    for (GtkWidget *c = gtk_widget_get_first_child(list); c; c = gtk_widget_get_next_sibling(c))
        n += GTK_IS_LIST_BOX_ROW(c) && gtk_list_box_row_get_selectable(GTK_LIST_BOX_ROW(c)) &&
             gtk_widget_get_child_visible(c);
    return n;
}

static gboolean quit_loop(gpointer loop)
{
    g_main_loop_quit(loop);
    return G_SOURCE_REMOVE;
}

static void activate_with(GtkWidget *entry, const char *text)
{
    gtk_editable_set_text(GTK_EDITABLE(entry), text);
    g_signal_emit_by_name(entry, "activate");
}

/* The texts of every label under widget, one per line. */
static void collect_labels(GtkWidget *widget, GString *out)
{
    if (GTK_IS_LABEL(widget) && gtk_widget_get_visible(widget))
        g_string_append_printf(out, "%s\n", gtk_label_get_text(GTK_LABEL(widget)));
    for (GtkWidget *c = gtk_widget_get_first_child(widget); c; c = gtk_widget_get_next_sibling(c))
        collect_labels(c, out);
}

/* One element of each force kind: the inspector's words and units come from the engine's
 * force classes (engine/mbs_force.h), not from a switch on the kinds in the panel. */
static const char forces_model[] =
    "{\"format\": \"eslabon-model\", \"version\": 1, \"name\": \"forces\","
    " \"gravity\": [0, 0, -9.81],"
    " \"bodies\": [{\"name\": \"ground\", \"ground\": true,"
    "   \"points\": {\"O\": [0, 0, 0], \"S\": [0, 0, 1]}},"
    "  {\"name\": \"bar\", \"mass\": 2, \"inertia\": {\"slender_rod\": [\"O\", \"A\"]},"
    "   \"points\": {\"O\": [0, 0, 0], \"A\": [0.5, 0, 0]}}],"
    " \"joints\": [{\"name\": \"O\", \"type\": \"revolute\", \"bodies\": [\"ground\", \"bar\"],"
    "   \"point\": \"O\", \"axis\": \"y\"}],"
    " \"forces\": ["
    "  {\"name\": \"spring\", \"type\": \"tsda\", \"bodies\": [\"ground\", \"bar\"],"
    "   \"points\": [\"S\", \"A\"], \"stiffness\": 100, \"natural_length\": 0.75},"
    "  {\"name\": \"coil\", \"type\": \"rsda\", \"joint\": \"O\", \"stiffness\": 3,"
    "   \"rest_angle\": 0.25},"
    "  {\"name\": \"push\", \"type\": \"force\", \"body\": \"bar\", \"point\": \"A\","
    "   \"vector\": [0, 0, 5]},"
    "  {\"name\": \"twist\", \"type\": \"torque\", \"body\": \"bar\", \"vector\": [0, 2, 0]}]}";

static void test_force_inspector(EslModelPanel *panel)
{
    g_autoptr(GError) error = NULL;
    MbsModel *model = esl_model_load_string(forces_model, "forces.json", NULL, 0, &error);
    if (!tap_ok(model != NULL, "a model with every force kind loads%s%s", error ? ": " : "",
                error ? error->message : ""))
        return;
    esl_model_panel_set_model(panel, model, forces_model);
    static const struct {
        const char *kind, *expected[4];
    } forces[] = {
        {"spring-damper",
         {"stiffness (N/m)", "natural length (m)", "natural length: 0.75 m", "between ground and bar"}},
        {"rotational spring-damper",
         {"stiffness (N·m/rad)", "rest angle (rad)", "rest angle: 0.25 rad", "on joint O"}},
        {"constant force", {"vector, z (N)", "vector: (0, 0, 5) N", "on body bar", "point: "}},
        {"constant torque", {"vector, y (N·m)", "vector: (0, 2, 0) N·m", "on body bar", "Force twist"}},
    };
    for (int i = 0; i < 4; i++) {
        esl_model_panel_select(panel, ESL_SOURCE_FORCE, i);
        g_autoptr(GString) text = g_string_new(NULL);
        collect_labels(GTK_WIDGET(panel), text);
        gboolean all = strstr(text->str, forces[i].kind) != NULL;
        const char *missing = all ? NULL : forces[i].kind;
        for (int k = 0; k < 4; k++)
            if (!strstr(text->str, forces[i].expected[k])) {
                all = FALSE;
                missing = forces[i].expected[k];
            }
        tap_ok(all, "force %d (%s): the inspector names its kind, fields and units from its class%s%s",
               i, forces[i].kind, missing ? "; missing: " : "", missing ? missing : "");
    }
    esl_model_panel_set_model(panel, NULL, NULL);
    mbs_model_free(model);
}

int main(void)
{
    gtk_init();
    g_autofree char *path = g_build_filename(esl_models_dir(), "four-bar-spatial.json", NULL);
    g_autoptr(GError) error = NULL;
    MbsModel *model = esl_model_load_file(path, NULL, 0, &error);
    g_autofree char *json = NULL;
    if (!tap_ok(model && g_file_get_contents(path, &json, NULL, NULL), "four-bar-spatial loads"))
        return tap_done();

    GtkWidget *window = gtk_window_new();
    EslModelPanel *panel = g_object_new(ESL_TYPE_MODEL_PANEL, NULL);
    gtk_window_set_child(GTK_WINDOW(window), GTK_WIDGET(panel));
    Seen seen = {.source = -2};
    g_signal_connect(panel, "element-selected", G_CALLBACK(on_element_selected), &seen);
    g_signal_connect(panel, "edit-field", G_CALLBACK(on_edit_field), &seen);
    GtkWidget *list = first_of(GTK_WIDGET(panel), GTK_TYPE_LIST_BOX);
    esl_model_panel_set_model(panel, model, json);
    int elements = model->nbodies + model->njoints + model->nforces + model->nparameters;
    tap_ok(visible_elements(list) == elements, "one row per element (%d)", elements);

    esl_model_panel_select(panel, ESL_SOURCE_JOINT, 2);
    int source, index;
    tap_ok(seen.source == ESL_SOURCE_JOINT && seen.index == 2, "selecting joint 2 is reported");
    tap_ok(esl_model_panel_get_selected(panel, &source, &index) && source == ESL_SOURCE_JOINT &&
               index == 2,
           "joint 2 is the selection");

    esl_model_panel_select(panel, ESL_SOURCE_BODY, 1);
    GtkWidget *entry = first_of(GTK_WIDGET(panel), GTK_TYPE_ENTRY);
    tap_ok(entry != NULL, "the inspector of body 1 has editable numbers");
    if (entry) {
        GtkWidget *error_label = g_object_get_data(G_OBJECT(entry), "error-label");
        activate_with(entry, "1,5");
        tap_ok(seen.edits == 1 && g_str_has_prefix(seen.path, "bodies/1/") && seen.value == 1.5,
               "Enter hands the field to edit-field: %s = %g", seen.path, seen.value);
        tap_ok(gtk_widget_get_visible(error_label) &&
                   g_str_equal(gtk_label_get_text(GTK_LABEL(error_label)), "refused by the test") &&
                   gtk_widget_has_css_class(entry, "error"),
               "the handler's error is shown under the field");
        activate_with(entry, "heavy");
        tap_ok(seen.edits == 1 && strstr(gtk_label_get_text(GTK_LABEL(error_label)), "heavy"),
               "a word is not handed on: %s", gtk_label_get_text(GTK_LABEL(error_label)));
        gtk_editable_set_text(GTK_EDITABLE(entry), "2");
        tap_ok(!gtk_widget_get_visible(error_label) && !gtk_widget_has_css_class(entry, "error"),
               "typing clears the error");
        esl_model_panel_set_editable(panel, FALSE);
        tap_ok(!gtk_widget_is_sensitive(entry), "not editable while a run goes on");
        esl_model_panel_set_editable(panel, TRUE);
    }

    esl_model_panel_select(panel, -1, -1);
    tap_ok(seen.source == -1 && !esl_model_panel_get_selected(panel, &source, &index),
           "no selection is reported as (-1, -1)");

    GtkWidget *search = first_of(GTK_WIDGET(panel), GTK_TYPE_SEARCH_ENTRY);
    gtk_editable_set_text(GTK_EDITABLE(search), "COUPLER");
    GMainLoop *loop = g_main_loop_new(NULL, FALSE);
    g_timeout_add(600, quit_loop, loop); /* the search entry waits before "search-changed" */
    g_main_loop_run(loop);
    g_main_loop_unref(loop);
    tap_ok(visible_elements(list) == 1, "the filter (any case) keeps the coupler only (%d rows)",
           visible_elements(list));

    esl_model_panel_set_model(panel, NULL, NULL);
    tap_ok(visible_elements(list) == 0, "no model: no rows");
    gtk_editable_set_text(GTK_EDITABLE(search), "");
    test_force_inspector(panel);
    gtk_window_destroy(GTK_WINDOW(window));
    mbs_model_free(model);
    g_free(seen.path);
    return tap_done();
}
