/* Spin buttons and the mouse wheel (ui/esl-spin.c): the run settings panel, in a scrolled window
 * shorter than it, as the window has it. Over a spin button that does not have the keyboard
 * focus the wheel scrolls the panel and leaves the setting alone; a focused spin button steps
 * its value with the wheel.
 *  - through the capture-phase controller esl_spin_new adds (its "scroll" signal, as a wheel
 *    event reaches it first): deterministic, needs no input device;
 *  - with real wheel clicks from xdotool (buttons 4 and 5) at the spin button's place on the
 *    screen, when xdotool is installed (else those checks are skipped, and say so).
 * usage: test_spin. Needs a display (xvfb-run). */
#include <gtk/gtk.h>
#include <math.h>

#include "esl-run-settings.h"
#include "tap.h"
#include "ui-test.h"

#define TITLE "esl-spin-test"

static GtkWidget *window, *scrolled, *spin;

/* The first spin button below the top of the panel's viewport, not the first row (the panel
 * must be able to scroll both ways from it). */
static GtkWidget *some_spin(GtkWidget *panel)
{
    for (int i = 0;; i++) {
        GtkWidget *s = find_nth(panel, GTK_TYPE_SPIN_BUTTON, i);
        if (!s)
            return NULL;
        if (i >= 2 && gtk_widget_get_mapped(s))
            return s;
    }
}

static GtkAdjustment *vadj(void)
{
    return gtk_scrolled_window_get_vadjustment(GTK_SCROLLED_WINDOW(scrolled));
}

static double spin_value(void)
{
    return gtk_spin_button_get_value(GTK_SPIN_BUTTON(spin));
}

static GtkEventController *wheel_controller(GtkWidget *w)
{
    g_autoptr(GListModel) controllers = gtk_widget_observe_controllers(w);
    for (guint i = 0; i < g_list_model_get_n_items(controllers); i++) {
        g_autoptr(GtkEventController) c = g_list_model_get_item(controllers, i);
        if (GTK_IS_EVENT_CONTROLLER_SCROLL(c) &&
            gtk_event_controller_get_propagation_phase(c) == GTK_PHASE_CAPTURE)
            return c; /* the widget keeps its reference */
    }
    return NULL;
}

static void iterate(int ms)
{
    gint64 end = g_get_monotonic_time() + ms * 1000;
    while (g_get_monotonic_time() < end)
        g_main_context_iteration(NULL, FALSE);
}

static void unfocus(void)
{
    gtk_root_set_focus(GTK_ROOT(window), NULL);
}

static void test_controller(void)
{
    GtkEventController *c = wheel_controller(spin);
    if (!tap_ok(c != NULL, "the spin button has a capture-phase scroll controller"))
        return;
    unfocus();
    gtk_adjustment_set_value(vadj(), 0);
    double before = spin_value(), page = gtk_adjustment_get_page_size(vadj());
    gboolean handled = FALSE;
    g_signal_emit_by_name(c, "scroll", 0.0, 2.0, &handled);
    double want = MIN(2 * pow(page, 2.0 / 3.0), gtk_adjustment_get_upper(vadj()) - page);
    tap_ok(handled && spin_value() == before && fabs(gtk_adjustment_get_value(vadj()) - want) < 1e-9,
           "without the focus, two wheel notches down scroll the panel by %.1f px (%.1f, handled "
           "%d) and leave the value at %g (%g)",
           want, gtk_adjustment_get_value(vadj()), handled, before, spin_value());
    g_signal_emit_by_name(c, "scroll", 0.0, -5.0, &handled);
    tap_ok(handled && gtk_adjustment_get_value(vadj()) == 0 && spin_value() == before,
           "five notches up scroll it back to the top (%.1f), value unchanged",
           gtk_adjustment_get_value(vadj()));

    gtk_widget_grab_focus(spin);
    handled = TRUE;
    g_signal_emit_by_name(c, "scroll", 0.0, 1.0, &handled);
    tap_ok(!handled && gtk_adjustment_get_value(vadj()) == 0,
           "with the focus, the wheel is left to the spin button (handled %d, panel at %.1f)",
           handled, gtk_adjustment_get_value(vadj()));
    unfocus();
}

/* The spin button's centre on the window's X surface. */
static void spin_centre(int *x, int *y)
{
    graphene_rect_t r;
    double sx = 0, sy = 0;
    if (!gtk_widget_compute_bounds(spin, window, &r))
        graphene_rect_init(&r, 0, 0, 0, 0);
    gtk_native_get_surface_transform(GTK_NATIVE(window), &sx, &sy);
    /* the text, left of the - and + buttons */
    *x = (int)lround(sx + r.origin.x + 0.25 * r.size.width);
    *y = (int)lround(sy + r.origin.y + 0.5 * r.size.height);
}

/* xdotool moves the pointer over the spin button and clicks button (4: wheel up, 5: down). */
static gboolean wheel(const char *xdotool, int button, int clicks)
{
    int x, y;
    spin_centre(&x, &y);
    g_autofree char *xs = g_strdup_printf("%d", x), *ys = g_strdup_printf("%d", y);
    g_autofree char *bs = g_strdup_printf("%d", button), *cs = g_strdup_printf("%d", clicks);
    const char *argv[] = {xdotool, "search", "--sync", "--name", "^" TITLE "$", "mousemove", "--window", "%1", xs, ys, "sleep",
                          "0.2", "click", "--repeat", cs, "--delay", "80", bs, NULL};
    int status = 0;
    gboolean ok = g_spawn_sync(NULL, (char **)argv, NULL, G_SPAWN_STDERR_TO_DEV_NULL, NULL,
                               NULL, NULL, NULL, &status, NULL) &&
                  g_spawn_check_wait_status(status, NULL);
    iterate(600);
    return ok;
}

static void test_real_wheel(void)
{
    g_autofree char *xdotool = g_find_program_in_path("xdotool");
    if (!xdotool) {
        for (int i = 0; i < 2; i++)
            tap_ok(TRUE, "# SKIP xdotool is not installed: no real wheel events");
        return;
    }
    unfocus();
    gtk_adjustment_set_value(vadj(), 0);
    iterate(200);
    double before = spin_value();
    gboolean sent = wheel(xdotool, 5, 2);
    tap_ok(sent && gtk_adjustment_get_value(vadj()) > 0 && spin_value() == before,
           "real wheel clicks over an unfocused spin button scroll the panel (to %.1f) and leave "
           "the value at %g (%g)",
           gtk_adjustment_get_value(vadj()), before, spin_value());
    gtk_widget_grab_focus(spin);
    iterate(100);
    double scrolled_to = gtk_adjustment_get_value(vadj());
    sent = wheel(xdotool, 5, 1);
    tap_ok(sent && spin_value() < before && gtk_adjustment_get_value(vadj()) == scrolled_to,
           "over the focused spin button a click steps the value down (%g to %g), the panel "
           "stays",
           before, spin_value());
}

int main(void)
{
    gtk_init();
    window = gtk_window_new();
    gtk_window_set_title(GTK_WINDOW(window), TITLE);
    gtk_window_set_default_size(GTK_WINDOW(window), 400, 300);
    scrolled = gtk_scrolled_window_new();
    gtk_scrolled_window_set_policy(GTK_SCROLLED_WINDOW(scrolled), GTK_POLICY_NEVER,
                                   GTK_POLICY_AUTOMATIC);
    GtkWidget *panel = esl_run_settings_new();
    gtk_scrolled_window_set_child(GTK_SCROLLED_WINDOW(scrolled), panel);
    gtk_window_set_child(GTK_WINDOW(window), scrolled);
    gtk_window_present(GTK_WINDOW(window));
    iterate(1000);
    spin = some_spin(panel);
    double page = gtk_adjustment_get_page_size(vadj());
    if (!tap_ok(spin && gtk_adjustment_get_upper(vadj()) > page + 50,
                "the panel is taller than its scrolled window (%.0f px in %.0f)",
                gtk_adjustment_get_upper(vadj()), page))
        return tap_done();
    test_controller();
    test_real_wheel();
    gtk_window_destroy(GTK_WINDOW(window));
    return tap_done();
}
