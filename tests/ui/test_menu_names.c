/* Right-click menus show names as they are (issue 26, defect 9): the model list's Plot menu of
 * the lattice's body v_0_1 says "Plot v_0_1: …", not "v01" (GMenu labels parse underscores as
 * mnemonics). Needs a display (xvfb-run). */
#include <gtk/gtk.h>
#include <string.h>

#include "esl-model-file.h"
#include "esl-model-panel.h"
#include "tap.h"
#include "ui-test.h"

static GtkWidget *row_with(GtkWidget *root, const char *text)
{
    GtkWidget *row;
    for (int i = 0; (row = find_nth(root, GTK_TYPE_LIST_BOX_ROW, i)); i++) {
        GtkWidget *label;
        for (int k = 0; (label = find_nth(row, GTK_TYPE_LABEL, k)); k++)
            if (g_str_has_prefix(gtk_label_get_text(GTK_LABEL(label)), text) &&
                gtk_label_get_text(GTK_LABEL(label))[strlen(text)] == ' ')
                return row;
    }
    return NULL;
}

/* Every label under root, its text as shown, joined. */
static void texts(GtkWidget *root, GString *out)
{
    GtkWidget *label;
    for (int i = 0; (label = find_nth(root, GTK_TYPE_LABEL, i)); i++)
        g_string_append_printf(out, "%s|", gtk_label_get_text(GTK_LABEL(label)));
}

int main(int argc, char **argv)
{
    (void)argc, (void)argv;
    gtk_init();
    g_autofree char *path =
        g_build_filename(g_getenv("ESLABON_MODELS_DIR"), "multi-four-bar-1x15.json", NULL);
    g_autoptr(GError) error = NULL;
    MbsModel *m = esl_model_load_file(path, NULL, 0, &error);
    tap_ok(m != NULL, "the 1x15 lattice loads%s%s", error ? ": " : "",
           error ? error->message : "");
    if (!m)
        return tap_done();
    GtkWidget *window = gtk_window_new();
    gtk_window_set_default_size(GTK_WINDOW(window), 400, 700);
    EslModelPanel *panel = g_object_new(ESL_TYPE_MODEL_PANEL, NULL);
    gtk_window_set_child(GTK_WINDOW(window), GTK_WIDGET(panel));
    esl_model_panel_set_model(panel, m, NULL);
    gtk_window_present(GTK_WINDOW(window));
    for (int i = 0; i < 20; i++) {
        iterate_pending();
        g_usleep(10000);
    }
    GtkWidget *row = row_with(GTK_WIDGET(panel), "v_0_1"); /* "v_0_1  revolute" */
    GtkWidget *list = row ? gtk_widget_get_parent(row) : NULL;
    graphene_rect_t r;
    tap_ok(row && list && gtk_widget_compute_bounds(row, list, &r), "body v_0_1 is listed");
    GtkGesture *right = NULL;
    g_autoptr(GListModel) controllers = list ? gtk_widget_observe_controllers(list) : NULL;
    for (guint i = 0; controllers && i < g_list_model_get_n_items(controllers); i++) {
        g_autoptr(GObject) c = g_list_model_get_item(controllers, i);
        if (GTK_IS_GESTURE_CLICK(c) &&
            gtk_gesture_single_get_button(GTK_GESTURE_SINGLE(c)) == GDK_BUTTON_SECONDARY)
            right = GTK_GESTURE(c);
    }
    tap_ok(right != NULL, "the list takes right clicks");
    if (right)
        g_signal_emit_by_name(right, "pressed", 1, 10.0, (double)(r.origin.y + r.size.height / 2));
    iterate_pending();
    GtkWidget *menu = find_nth(GTK_WIDGET(panel), GTK_TYPE_POPOVER_MENU, 0);
    g_autoptr(GString) shown = g_string_new(NULL);
    if (menu)
        texts(menu, shown);
    tap_ok(strstr(shown->str, "Plot v_0_1:") != NULL,
           "the right-click menu names v_0_1 and its points (n_0_1) as they are (%.120s)", shown->str);
    gtk_window_destroy(GTK_WINDOW(window));
    mbs_model_free(m);
    return tap_done();
}
