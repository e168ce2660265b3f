/* A wheel zoom on a plot (issue 26, defect 2): it zooms every plot in time and each says so
 * with a "Reset zoom" button that gives the whole run back in one click; a new run and another
 * model start from the whole run (the zoom of one run does not stick to the next). Needs a
 * display (xvfb-run). */
#include <glib/gi18n.h>
#include <gtk/gtk.h>
#include <math.h>

#include "esl-application.h"
#include "esl-plot-board.h"
#include "esl-plot.h"
#include "esl-window.h"
#include "esl-window-testing.h"
#include "tap.h"
#include "ui-test.h"

typedef struct {
    EslWindow *window;
    int finished;
} Zoom;

static void on_finished(EslWindow *window, int status, gint64 run_id, Zoom *z)
{
    (void)window, (void)run_id, (void)status;
    z->finished++;
}

static void run_for(Zoom *z, double duration)
{
    int before = z->finished;
    esl_window_set_duration(z->window, duration);
    gtk_widget_activate_action(GTK_WIDGET(z->window), "win.run", NULL);
    while (z->finished == before)
        g_main_context_iteration(NULL, TRUE);
    iterate_pending();
}

/* One wheel step over the plot, as GtkEventControllerScroll reports it. */
static void wheel(GtkWidget *plot)
{
    g_autoptr(GListModel) controllers = gtk_widget_observe_controllers(plot);
    for (guint i = 0; i < g_list_model_get_n_items(controllers); i++) {
        g_autoptr(GObject) c = g_list_model_get_item(controllers, i);
        gboolean handled = FALSE;
        if (GTK_IS_EVENT_CONTROLLER_SCROLL(c))
            g_signal_emit_by_name(c, "scroll", 0.0, -3.0, &handled);
    }
    iterate_pending();
}

static GtkWidget *reset_button(GtkWidget *plot)
{
    return find_nth(plot, GTK_TYPE_BUTTON, 0);
}

static gboolean shows_reset(GtkWidget *plot)
{
    GtkWidget *b = reset_button(plot);
    return b && gtk_widget_get_visible(b);
}

static double shown_end(GtkWidget *plot)
{
    double x0, x1;
    esl_plot_get_time_range(ESL_PLOT(plot), &x0, &x1);
    return x1;
}

static void check(GtkApplication *app, Zoom *z)
{
    z->window = ESL_WINDOW(gtk_application_get_active_window(app));
    GtkWidget *w = GTK_WIDGET(z->window);
    g_timeout_add_seconds(120, ui_test_timed_out, GINT_TO_POINTER(120));
    g_signal_connect(z->window, "run-finished", G_CALLBACK(on_finished), z);
    g_autoptr(GError) error = NULL;
    tap_ok(esl_window_load_model(z->window, "four-bar-spatial", &error), "the four-bar loads");
    run_for(z, 0.4);
    GtkWidget *energy = find_plot(w, _("Energy")), *drift = find_plot(w, _("Energy drift"));
    tap_ok(energy && drift && !shows_reset(energy), "the energy plot is not zoomed at first");
    double end = shown_end(energy);
    wheel(energy);
    tap_ok(shown_end(energy) < end - 0.01 && shown_end(drift) < end - 0.01,
           "a wheel step zooms the energy plot and the drift plot in time (to %g, %g s)",
           shown_end(energy), shown_end(drift));
    tap_ok(shows_reset(energy) && shows_reset(drift), "both show Reset zoom");
    save_screenshot_if_asked(); /* ESL_SCREENSHOT=FILE.png: the zoomed plots as drawn */
    g_signal_emit_by_name(reset_button(drift), "clicked");
    iterate_pending();
    tap_ok(fabs(shown_end(energy) - end) < 1e-9 && fabs(shown_end(drift) - end) < 1e-9 &&
               !shows_reset(energy) && !shows_reset(drift),
           "one click on Reset zoom gives every plot the whole run back (%g s)",
           shown_end(energy));

    wheel(energy);
    run_for(z, 0.6);
    tap_ok(shown_end(energy) >= 0.6 - 1e-9 && shown_end(drift) >= 0.6 - 1e-9 &&
               !shows_reset(energy),
           "a new run of 0.6 s is shown whole, not zoomed (to %g s)", shown_end(energy));

    wheel(energy);
    tap_ok(esl_window_load_model(z->window, "slider-crank", &error), "another model loads");
    iterate_pending();
    tap_ok(!shows_reset(energy) && !shows_reset(drift), "its plots are not zoomed");
    gtk_window_destroy(GTK_WINDOW(z->window));
}

int main(void)
{
    Zoom z = {0};
    run_application("test_window_zoom", G_CALLBACK(check), &z);
    return tap_done();
}
