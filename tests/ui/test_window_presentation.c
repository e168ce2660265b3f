/* Presentation mode read from the back row (issue 26, defect 4; run under xvfb-run -s "-screen
 * 0 1280x720x24"): after F11 the joint-violation legend is drawn as much larger as the plots
 * (it stayed ~9 px tall), the window's text is 1.5 times larger, View ▸ Text Size in
 * Presentation ▸ Larger scales all of them once more with the 3D view, the plot and the legend
 * still inside the screen, and Step Through opened then is presented too (maximised, its text
 * 1.5 times larger: more would not fit its matrices at 1280x720); Escape gives the normal
 * sizes back. Needs a display (xvfb-run). */
#include <gtk/gtk.h>
#include <string.h>

#include "esl-application.h"
#include "esl-color-scale.h"
#include "esl-plot.h"
#include "esl-step-view.h"
#include "esl-window.h"
#include "esl-window-testing.h"
#include "tap.h"
#include "ui-test.h"

typedef struct {
    EslWindow *window;
    int finished;
} Present;

static void on_finished(EslWindow *window, int status, gint64 run_id, Present *p)
{
    (void)window, (void)run_id;
    tap_ok(status == 1, "the run finishes");
    p->finished++;
}

static void settle(void)
{
    for (int i = 0; i < 30; i++) {
        iterate_pending();
        g_usleep(10000);
    }
}

/* The height (px) of a line of the widget's text, as its style (CSS font-size) sets it. */
static double text_height(GtkWidget *widget)
{
    PangoLayout *layout = gtk_widget_create_pango_layout(widget, "Xg");
    int w, h;
    pango_layout_get_pixel_size(layout, &w, &h);
    g_object_unref(layout);
    return h;
}

/* A label shown under root whose text has this in it, or NULL. */
static GtkWidget *shown_label_with(GtkWidget *root, const char *text)
{
    GtkWidget *label;
    for (int i = 0; (label = find_nth(root, GTK_TYPE_LABEL, i)); i++)
        if (gtk_widget_get_mapped(label) && strstr(gtk_label_get_text(GTK_LABEL(label)), text))
            return label;
    return NULL;
}

static void check_sizes(Present *p, const char *when, double zoom, int legend_h0)
{
    GtkWidget *window = GTK_WIDGET(p->window);
    GtkWidget *legend = find_nth(window, ESL_TYPE_COLOR_SCALE, 0);
    graphene_rect_t r = GRAPHENE_RECT_INIT(0, 0, 0, 0);
    int shown_h = legend ? gtk_widget_get_height(legend) : 0;
    tap_ok(legend && esl_color_scale_get_zoom(ESL_COLOR_SCALE(legend)) == zoom &&
               shown_h >= 0.95 * zoom * legend_h0,
           "%s: the violation legend is drawn %.2g times larger (%d px tall, was %d)", when, zoom,
           shown_h, legend_h0);
    gboolean ok = shown_inside(legend, window, 1, 1, &r);
    tap_ok(ok, "%s: and it is inside the window (%.0fx%.0f at %.0f,%.0f)", when, r.size.width,
           r.size.height, r.origin.x, r.origin.y);
    GtkWidget *plot = find_plot(window, "Energy");
    ok = shown_inside(plot, window, 600, 150, &r);
    tap_ok(plot && esl_plot_get_zoom(ESL_PLOT(plot)) == zoom && ok,
           "%s: the energy plot at zoom %.2g, inside the window (%.0fx%.0f)", when,
           plot ? esl_plot_get_zoom(ESL_PLOT(plot)) : 0, r.size.width, r.size.height);
    GtkWidget *view = find_nth(window, g_type_from_name("EslViewport"), 0);
    ok = shown_inside(view, window, 600, 300, &r);
    tap_ok(ok, "%s: the 3D view is inside the window, at least 600x300 (%.0fx%.0f)", when,
           r.size.width, r.size.height);
}

static void check(GtkApplication *app, Present *p)
{
    p->window = ESL_WINDOW(gtk_application_get_active_window(app));
    GtkWidget *window = GTK_WIDGET(p->window);
    g_autoptr(GError) error = NULL;
    tap_ok(esl_window_load_model(p->window, "four-bar-spatial", &error), "the four-bar loads");
    start_run(p->window, 0.3, G_CALLBACK(on_finished), p, 50);
    while (!p->finished)
        g_main_context_iteration(NULL, TRUE);
    wait_replayed(p->window);
    settle();
    GtkWidget *legend = find_nth(window, ESL_TYPE_COLOR_SCALE, 0);
    int legend_h0 = legend ? gtk_widget_get_height(legend) : 0;
    GtkWidget *title = shown_label_with(window, "four-bar-spatial");
    double normal_pt = title ? text_height(title) : 0;

    g_action_group_change_action_state(G_ACTION_GROUP(window), "presentation",
                                       g_variant_new_boolean(TRUE));
    settle();
    check_sizes(p, "F11", 1.8, legend_h0);
    save_screenshot_as("ESL_SCREENSHOT_F11");
    double presented_pt = text_height(title);
    tap_ok(presented_pt >= 1.45 * normal_pt, "the window's text is larger: %.0f px (was %.1f)",
           presented_pt, normal_pt);

    g_action_group_change_action_state(G_ACTION_GROUP(window), "presentation-text",
                                       g_variant_new_double(1.5));
    settle();
    check_sizes(p, "Larger", 2.7, legend_h0);
    double larger_pt = text_height(title);
    tap_ok(larger_pt >= 1.45 * presented_pt, "Larger: the window's text is %.0f px", larger_pt);
    save_screenshot_as("ESL_SCREENSHOT_LARGER");

    gtk_widget_activate_action(window, "win.step-through", NULL);
    settle();
    save_screenshot_as("ESL_SCREENSHOT_STEP");
    GtkWidget *view = find_toplevel(ESL_TYPE_STEP_VIEW);
    GtkWidget *view_label = view ? shown_label_with(view, "spy plots") : NULL;
    tap_ok(view && gtk_widget_has_css_class(view, "presentation"),
           "Step Through opened in presentation mode is presented");
    double view_presented = view_label ? text_height(view_label) : 0;

    tap_ok(press(window, "Escape"), "Escape leaves presentation mode");
    settle();
    double view_normal = view_label ? text_height(view_label) : 0;
    tap_ok(view && !gtk_widget_has_css_class(view, "presentation") &&
               view_presented >= 1.45 * view_normal,
           "Step Through's text was 1.5 times larger (%.0f px) and is back to normal (%.0f px)",
           view_presented, view_normal);
    tap_ok(esl_color_scale_get_zoom(ESL_COLOR_SCALE(legend)) == 1.0 &&
               gtk_widget_get_height(legend) == legend_h0 && text_height(title) <= 1.01 * normal_pt,
           "the legend (%d px) and the window's text (%.0f px) are back to normal",
           gtk_widget_get_height(legend), text_height(title));
    if (view)
        gtk_window_destroy(GTK_WINDOW(view));
    gtk_window_destroy(GTK_WINDOW(window));
}

int main(void)
{
    Present p = {0};
    run_application("test_window_presentation", G_CALLBACK(check), &p);
    return tap_done();
}
