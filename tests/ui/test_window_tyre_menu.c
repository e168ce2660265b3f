/* The model list's right-click menu of a wheel with a PAC2002 tyre opens its tyre curves
 * (issue 24/26: the menu item was untested): on the HMMWV lane change, right-clicking fr_tyre
 * offers "Tyre Curves of fr_tyre…" (underscores as they are), and choosing it shows the Tyre
 * Curves window for that wheel, its three plots filled. Needs a display (xvfb-run). */
#include <gtk/gtk.h>
#include <string.h>

#include "esl-application.h"
#include "esl-model-panel.h"
#include "esl-plot.h"
#include "esl-scene.h"
#include "esl-tyre-dialog.h"
#include "esl-window.h"
#include "esl-window-testing.h"
#include "tap.h"
#include "ui-test.h"

/* The model list's row whose first label is "name ..." (name, then its kind). */
static GtkWidget *row_named(GtkWidget *root, const char *name)
{
    GtkWidget *row;
    for (int i = 0; (row = find_nth(root, GTK_TYPE_LIST_BOX_ROW, i)); i++) {
        GtkWidget *label;
        for (int k = 0; (label = find_nth(row, GTK_TYPE_LABEL, k)); k++) {
            const char *text = gtk_label_get_text(GTK_LABEL(label));
            if (g_str_has_prefix(text, name) &&
                (text[strlen(name)] == ' ' || text[strlen(name)] == '\0'))
                return row;
        }
    }
    return NULL;
}

static GtkGesture *right_click_of(GtkWidget *list)
{
    g_autoptr(GListModel) controllers = gtk_widget_observe_controllers(list);
    for (guint i = 0; i < g_list_model_get_n_items(controllers); i++) {
        g_autoptr(GObject) c = g_list_model_get_item(controllers, i);
        if (GTK_IS_GESTURE_CLICK(c) &&
            gtk_gesture_single_get_button(GTK_GESTURE_SINGLE(c)) == GDK_BUTTON_SECONDARY)
            return GTK_GESTURE(c);
    }
    return NULL;
}

static void check(GtkApplication *app, gpointer data)
{
    (void)data;
    EslWindow *window = ESL_WINDOW(gtk_application_get_active_window(app));
    g_autoptr(GError) error = NULL;
    tap_ok(esl_window_load_model(window, "hmmwv-lane-change", &error),
           "the HMMWV lane change loads%s%s", error ? ": " : "", error ? error->message : "");
    for (int i = 0; i < 20; i++) {
        iterate_pending();
        g_usleep(10000);
    }
    GtkWidget *panel = find_nth(GTK_WIDGET(window), ESL_TYPE_MODEL_PANEL, 0);
    GtkWidget *row = row_named(panel, "fr_tyre");
    /* in view first (the list scrolls to what is selected), as a user scrolls to it */
    if (row)
        esl_model_panel_select(ESL_MODEL_PANEL(panel), ESL_SOURCE_FORCE,
                               GPOINTER_TO_INT(g_object_get_data(G_OBJECT(row), "index")));
    for (int i = 0; i < 30; i++) {
        iterate_pending();
        g_usleep(10000);
    }
    GtkWidget *list = row ? gtk_widget_get_parent(row) : NULL;
    graphene_rect_t r;
    tap_ok(row && list && gtk_widget_compute_bounds(row, list, &r), "wheel fr_tyre is listed");
    GtkGesture *right = list ? right_click_of(list) : NULL;
    tap_ok(right != NULL, "the list takes right clicks");
    if (right)
        g_signal_emit_by_name(right, "pressed", 1, 10.0, (double)(r.origin.y + r.size.height / 2));
    iterate_pending();
    GtkWidget *menu = find_nth(panel, GTK_TYPE_POPOVER_MENU, 0);
    GtkWidget *label = menu ? label_with(menu, "Tyre Curves of fr_tyre") : NULL;
    tap_ok(label != NULL, "its menu offers \"Tyre Curves of fr_tyre…\"");
    GtkWidget *item = label ? gtk_widget_get_ancestor(label, g_type_from_name("GtkModelButton"))
                            : NULL;
    tap_ok(item != NULL, "as a menu item");
    if (item)
        g_signal_emit_by_name(item, "clicked");
    iterate_pending();
    GtkWidget *dialog = find_toplevel(ESL_TYPE_TYRE_DIALOG);
    const char *title = dialog ? gtk_window_get_title(GTK_WINDOW(dialog)) : NULL;
    tap_ok(dialog && gtk_widget_get_visible(dialog) && title && strstr(title, "fr_tyre"),
           "choosing it shows the Tyre Curves of fr_tyre (%s)", title ? title : "no window");
    for (int c = 0; dialog && c < ESL_TYRE_CURVE_COUNT; c++) {
        EslPlot *plot = esl_tyre_dialog_get_plot(ESL_TYRE_DIALOG(dialog), (EslTyreCurve)c);
        tap_ok(esl_plot_get_n_series(plot) == ESL_TYRE_LOADS,
               "its plot %d has a curve per load (%d)", c, esl_plot_get_n_series(plot));
    }
    gtk_window_destroy(GTK_WINDOW(window));
}

int main(void)
{
    run_application("test_window_tyre_menu", G_CALLBACK(check), NULL);
    return tap_done();
}
