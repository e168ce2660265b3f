/* Clearing the selection in the 3D view clears the inspector (issue 26, defect 8): with joint A
 * selected, the release of an orbit over empty space (the viewport's "picked" of nothing, as a
 * click there reports it) leaves no element selected and the inspector back at its prompt, no
 * fields of A left. Needs a display (xvfb-run). */
#include <gtk/gtk.h>
#include <string.h>

#include "esl-application.h"
#include "esl-model-panel.h"
#include "esl-scene.h"
#include "esl-viewport.h"
#include "esl-window.h"
#include "esl-window-testing.h"
#include "tap.h"
#include "ui-test.h"

static int fields(GtkWidget *panel)
{
    int n = 0;
    while (find_nth(panel, GTK_TYPE_ENTRY, n))
        n++;
    return n;
}

static void check(GtkApplication *app, gpointer data)
{
    (void)data;
    EslWindow *w = ESL_WINDOW(gtk_application_get_active_window(app));
    g_autoptr(GError) error = NULL;
    tap_ok(esl_window_load_model(w, "four-bar-spatial", &error), "the four-bar loads");
    wait_checked(w);
    GtkWidget *panel = find_nth(GTK_WIDGET(w), ESL_TYPE_MODEL_PANEL, 0);
    GtkWidget *viewport = find_nth(GTK_WIDGET(w), ESL_TYPE_VIEWPORT, 0);
    const char *prompt = "Select a body, joint, force or parameter";
    int none = fields(panel);
    g_signal_emit_by_name(viewport, "picked", ESL_SOURCE_JOINT, 0);
    iterate_pending();
    int source, index;
    tap_ok(esl_model_panel_get_selected(ESL_MODEL_PANEL(panel), &source, &index) &&
               source == ESL_SOURCE_JOINT && index == 0 && !label_with(panel, prompt) &&
               fields(panel) > none,
           "a pick in the 3D view selects joint A and the inspector shows it (%d fields)",
           fields(panel));
    g_signal_emit_by_name(viewport, "picked", -1, -1);
    iterate_pending();
    tap_ok(!esl_model_panel_get_selected(ESL_MODEL_PANEL(panel), &source, &index),
           "an orbit's release over empty space clears the selection");
    tap_ok(label_with(panel, prompt) && fields(panel) == none,
           "and the inspector: its prompt, none of A's fields (%d)", fields(panel));
    gtk_window_destroy(GTK_WINDOW(w));
}

int main(void)
{
    run_application("test_window_unselect", G_CALLBACK(check), NULL);
    return tap_done();
}
