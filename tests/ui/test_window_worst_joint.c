/* The joint violated most, now and over the run (issue 26, defect 10): the legend named only
 * the largest at the instant shown; it names also the largest over the whole run (equal to
 * the largest of every stored sample, stepped through one by one), going to that one shows its
 * instant and selects its joint, and the model list scrolls to a joint selected out of sight
 * (the last of multi-four-bar-1x15's). Run at 1280x720. Needs a display (xvfb-run). */
#include <gtk/gtk.h>
#include <math.h>
#include <string.h>

#include "esl-application.h"
#include "esl-model-panel.h"
#include "esl-scene.h"
#include "esl-window.h"
#include "esl-window-testing.h"
#include "tap.h"
#include "ui-test.h"

static int finished;

static void on_finished(EslWindow *window, int status, gint64 run_id, gpointer data)
{
    (void)window, (void)run_id, (void)data;
    tap_ok(status == 1, "the run finishes");
    finished = 1;
}

static void settle(void)
{
    for (int i = 0; i < 20; i++) {
        iterate_pending();
        g_usleep(10000);
    }
}

/* The model list's selected row is inside its scrolled window's visible area. */
static gboolean selected_row_in_view(GtkWidget *panel, char **label)
{
    GtkWidget *list = find_nth(panel, GTK_TYPE_LIST_BOX, 0);
    GtkWidget *scrolled = gtk_widget_get_ancestor(list, GTK_TYPE_SCROLLED_WINDOW);
    GtkListBoxRow *row = gtk_list_box_get_selected_row(GTK_LIST_BOX(list));
    graphene_rect_t r = GRAPHENE_RECT_INIT(0, 0, 0, 0);
    gboolean ok = row && gtk_widget_compute_bounds(GTK_WIDGET(row), scrolled, &r);
    GtkWidget *text = row ? find_nth(GTK_WIDGET(row), GTK_TYPE_LABEL, 0) : NULL;
    *label = g_strdup(text ? gtk_label_get_text(GTK_LABEL(text)) : "none");
    return ok && r.origin.y >= -0.5 &&
           r.origin.y + r.size.height <= gtk_widget_get_height(scrolled) + 0.5;
}

static void check(GtkApplication *app, gpointer data)
{
    (void)data;
    EslWindow *w = ESL_WINDOW(gtk_application_get_active_window(app));
    g_autoptr(GError) error = NULL;
    tap_ok(esl_window_load_model(w, "multi-four-bar-1x15", &error), "multi-four-bar-1x15 loads");
    start_run(w, 0.2, G_CALLBACK(on_finished), NULL, 50);
    while (!finished)
        g_main_context_iteration(NULL, TRUE);
    wait_replayed(w);

    double value = NAN, time = NAN;
    const char *worst = esl_window_get_worst_over_run(w, &value, &time);
    g_autofree char *worst_name = g_strdup(worst);
    double largest = 0, when = NAN;
    esl_window_seek(w, 0.0);
    do {
        double v = esl_window_get_largest_violation(w);
        if (v > largest) {
            largest = v;
            when = esl_window_get_time(w);
        }
    } while (esl_window_step_sample(w, +1));
    tap_ok(worst && value == largest && time == when,
           "over the run the legend names joint %s, %.3g at t = %g s: the largest of the stored "
           "samples (%.3g at t = %g s)", worst ? worst : "none", value, time, largest, when);
    tap_ok(esl_window_get_worst_joint(w) != NULL,
           "and the largest now, at t = %g s (joint %s)", esl_window_get_time(w),
           esl_window_get_worst_joint(w) ? esl_window_get_worst_joint(w) : "none");

    tap_ok(esl_window_go_to_worst_over_run(w), "going to the largest over the run");
    settle();
    save_screenshot_as("ESL_SCREENSHOT");
    GtkWidget *panel = find_nth(GTK_WIDGET(w), ESL_TYPE_MODEL_PANEL, 0);
    int source, index;
    g_autofree char *label = NULL;
    gboolean in_view = selected_row_in_view(panel, &label);
    tap_ok(esl_window_get_time(w) == time &&
               g_strcmp0(esl_window_get_worst_joint(w), worst_name) == 0,
           "shows its instant, t = %g s, where joint %s is the largest now",
           esl_window_get_time(w), esl_window_get_worst_joint(w));
    tap_ok(esl_model_panel_get_selected(ESL_MODEL_PANEL(panel), &source, &index) &&
               source == ESL_SOURCE_JOINT && g_str_has_prefix(label, worst_name) && in_view,
           "selects joint %s in the model list, in view", label);

    int last = -1;
    for (int j = 0;; j++) { /* the last joint of the list */
        esl_model_panel_select(ESL_MODEL_PANEL(panel), ESL_SOURCE_JOINT, j);
        if (!esl_model_panel_get_selected(ESL_MODEL_PANEL(panel), &source, &index) || index != j)
            break;
        last = j;
    }
    esl_model_panel_select(ESL_MODEL_PANEL(panel), ESL_SOURCE_JOINT, 0);
    settle();
    esl_model_panel_select(ESL_MODEL_PANEL(panel), ESL_SOURCE_JOINT, last);
    settle();
    g_clear_pointer(&label, g_free);
    in_view = selected_row_in_view(panel, &label);
    tap_ok(last > 20 && in_view, "the list scrolls to its last joint, %s (joint %d)", label, last);
    gtk_window_destroy(GTK_WINDOW(w));
}

int main(void)
{
    run_application("test_window_worst_joint", G_CALLBACK(check), NULL);
    return tap_done();
}
