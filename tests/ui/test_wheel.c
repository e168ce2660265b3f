/* The mouse wheel in nested scrolling (ui/esl-wheel.c), in one window with two scrolled panels:
 *  - the run settings panel, in a scrolled window shorter than it, as the window has it: over a
 *    spin button that does not have the keyboard focus the wheel scrolls the panel and leaves
 *    the setting alone; a focused spin button steps its value with the wheel;
 *  - a sideways-scrolling table (a scrolled window with esl_wheel_vertical_to_parent, as the
 *    gradient table) in a taller panel: the vertical wheel over it scrolls the panel.
 * Each through the capture-phase controller the rule adds (its "scroll" signal, as a wheel
 * event reaches it first: deterministic, needs no input device), and with real wheel clicks
 * from xdotool (buttons 4 and 5) at the widget's place on the screen when xdotool is installed
 * (else those checks are skipped, and say so).
 * usage: test_wheel. Needs a display (xvfb-run). */
#include <gtk/gtk.h>
#include <math.h>

#include "esl-run-settings.h"
#include "esl-wheel.h"
#include "tap.h"
#include "ui-test.h"

#define TITLE "esl-wheel-test"

static GtkWidget *window, *panel_view, *spin, *outer, *table;

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

static GtkAdjustment *vadj(GtkWidget *scrolled)
{
    return gtk_scrolled_window_get_vadjustment(GTK_SCROLLED_WINDOW(scrolled));
}

static double position(GtkWidget *scrolled)
{
    return gtk_adjustment_get_value(vadj(scrolled));
}

/* How far n wheel notches move a scrolled window (GtkScrolledWindow's own step), to its end. */
static double notches(GtkWidget *scrolled, double n)
{
    GtkAdjustment *a = vadj(scrolled);
    double page = gtk_adjustment_get_page_size(a);
    return MIN(n * pow(page, 2.0 / 3.0), gtk_adjustment_get_upper(a) - page);
}

static double spin_value(void)
{
    return gtk_spin_button_get_value(GTK_SPIN_BUTTON(spin));
}

/* The rule's controller, by the name esl-wheel.h gives it (GtkScrolledWindow has capture-phase
 * scroll controllers of its own), in the capture phase. */
static GtkEventController *wheel_controller(GtkWidget *w, const char *name)
{
    GtkEventController *c = find_controller(w, name);
    return c && GTK_IS_EVENT_CONTROLLER_SCROLL(c) &&
                   gtk_event_controller_get_propagation_phase(c) == GTK_PHASE_CAPTURE
               ? c
               : NULL;
}

static gboolean emit_scroll(GtkEventController *c, double dx, double dy)
{
    gboolean handled = FALSE;
    g_signal_emit_by_name(c, "scroll", dx, dy, &handled);
    return handled;
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

static void test_spin_controller(void)
{
    GtkEventController *c = wheel_controller(spin, "esl-spin-wheel");
    if (!tap_ok(c != NULL, "the spin button has a capture-phase scroll controller"))
        return;
    unfocus();
    gtk_adjustment_set_value(vadj(panel_view), 0);
    double before = spin_value(), want = notches(panel_view, 2);
    gboolean handled = emit_scroll(c, 0, 2);
    tap_ok(handled && spin_value() == before && fabs(position(panel_view) - want) < 1e-9,
           "without the focus, two wheel notches down scroll the panel by %.1f px (%.1f, handled "
           "%d) and leave the value at %g (%g)",
           want, position(panel_view), handled, before, spin_value());
    handled = emit_scroll(c, 0, -5);
    tap_ok(handled && position(panel_view) == 0 && spin_value() == before,
           "five notches up scroll it back to the top (%.1f), value unchanged",
           position(panel_view));
    gtk_widget_grab_focus(spin);
    handled = emit_scroll(c, 0, 1);
    tap_ok(!handled && position(panel_view) == 0,
           "with the focus, the wheel is left to the spin button (handled %d, panel at %.1f)",
           handled, position(panel_view));
    unfocus();
}

static void test_table_controller(void)
{
    GtkEventController *c = wheel_controller(table, "esl-sideways-wheel");
    if (!tap_ok(c != NULL, "the sideways table has a capture-phase scroll controller"))
        return;
    gtk_adjustment_set_value(vadj(outer), 0);
    double want = notches(outer, 2);
    gboolean handled = emit_scroll(c, 0, 2);
    tap_ok(handled && fabs(position(outer) - want) < 1e-9,
           "two notches down over the table scroll the panel around it by %.1f px (%.1f)", want,
           position(outer));
    handled = emit_scroll(c, 1, 0);
    tap_ok(!handled && fabs(position(outer) - want) < 1e-9,
           "a sideways delta is left to the table (handled %d)", handled);
}

/* A point of the widget on the window's X surface: at fraction fx of its width, half its
 * height down but at most 40 px (the table is taller than the window). */
static void centre(GtkWidget *w, double fx, int *x, int *y)
{
    graphene_rect_t r;
    double sx = 0, sy = 0;
    if (!gtk_widget_compute_bounds(w, window, &r))
        graphene_rect_init(&r, 0, 0, 0, 0);
    gtk_native_get_surface_transform(GTK_NATIVE(window), &sx, &sy);
    *x = (int)lround(sx + r.origin.x + fx * r.size.width);
    *y = (int)lround(sy + r.origin.y + MIN(0.5 * r.size.height, 40));
}

/* xdotool moves the pointer over w and clicks button (4: wheel up, 5: down). */
static gboolean wheel(const char *xdotool, GtkWidget *w, double fx, int button, int clicks)
{
    int x, y;
    centre(w, fx, &x, &y);
    g_autofree char *xs = g_strdup_printf("%d", x), *ys = g_strdup_printf("%d", y);
    g_autofree char *bs = g_strdup_printf("%d", button), *cs = g_strdup_printf("%d", clicks);
    const char *argv[] = {xdotool, "search", "--sync", "--name", "^" TITLE "$", "mousemove",
                          "--window", "%1", xs, ys, "sleep", "0.2", "click", "--repeat", cs,
                          "--delay", "80", bs, NULL};
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
        for (int i = 0; i < 3; i++)
            tap_ok(TRUE, "# SKIP xdotool is not installed: no real wheel events");
        return;
    }
    unfocus();
    gtk_adjustment_set_value(vadj(panel_view), 0);
    iterate(200);
    double before = spin_value();
    /* over the text, left of the - and + buttons */
    gboolean sent = wheel(xdotool, spin, 0.25, 5, 2);
    tap_ok(sent && position(panel_view) > 0 && spin_value() == before,
           "real wheel clicks over an unfocused spin button scroll the panel (to %.1f) and leave "
           "the value at %g (%g)",
           position(panel_view), before, spin_value());
    gtk_widget_grab_focus(spin);
    iterate(100);
    double scrolled_to = position(panel_view);
    sent = wheel(xdotool, spin, 0.25, 5, 1);
    tap_ok(sent && spin_value() < before && position(panel_view) == scrolled_to,
           "over the focused spin button a click steps the value down (%g to %g), the panel "
           "stays",
           before, spin_value());
    unfocus();
    gtk_adjustment_set_value(vadj(outer), 0);
    iterate(200);
    sent = wheel(xdotool, table, 0.5, 5, 2);
    tap_ok(sent && position(outer) > 0,
           "real wheel clicks over the sideways table scroll the panel around it (to %.1f)",
           position(outer));
}

/* A panel of a sideways-scrolling table (wider than the panel, 40 rows) and a spacer, taller
 * than its scrolled window. */
static GtkWidget *table_panel(void)
{
    GtkWidget *grid = gtk_grid_new();
    for (int r = 0; r < 40; r++)
        for (int c = 0; c < 12; c++) {
            g_autofree char *text = g_strdup_printf("cell %d,%d", r, c);
            gtk_grid_attach(GTK_GRID(grid), gtk_label_new(text), c, r, 1, 1);
        }
    table = gtk_scrolled_window_new();
    gtk_scrolled_window_set_policy(GTK_SCROLLED_WINDOW(table), GTK_POLICY_AUTOMATIC,
                                   GTK_POLICY_NEVER);
    gtk_scrolled_window_set_child(GTK_SCROLLED_WINDOW(table), grid);
    esl_wheel_vertical_to_parent(table);
    GtkWidget *box = gtk_box_new(GTK_ORIENTATION_VERTICAL, 0);
    gtk_box_append(GTK_BOX(box), table);
    GtkWidget *spacer = gtk_label_new("");
    gtk_widget_set_size_request(spacer, -1, 400);
    gtk_box_append(GTK_BOX(box), spacer);
    outer = gtk_scrolled_window_new();
    gtk_scrolled_window_set_policy(GTK_SCROLLED_WINDOW(outer), GTK_POLICY_NEVER,
                                   GTK_POLICY_AUTOMATIC);
    gtk_scrolled_window_set_child(GTK_SCROLLED_WINDOW(outer), box);
    gtk_widget_set_size_request(outer, 300, -1);
    return outer;
}

int main(void)
{
    gtk_init();
    window = gtk_window_new();
    gtk_window_set_title(GTK_WINDOW(window), TITLE);
    gtk_window_set_default_size(GTK_WINDOW(window), 700, 300);
    panel_view = gtk_scrolled_window_new();
    gtk_scrolled_window_set_policy(GTK_SCROLLED_WINDOW(panel_view), GTK_POLICY_NEVER,
                                   GTK_POLICY_AUTOMATIC);
    GtkWidget *panel = esl_run_settings_new();
    gtk_scrolled_window_set_child(GTK_SCROLLED_WINDOW(panel_view), panel);
    gtk_widget_set_hexpand(panel_view, TRUE);
    GtkWidget *box = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 8);
    gtk_box_append(GTK_BOX(box), panel_view);
    gtk_box_append(GTK_BOX(box), table_panel());
    gtk_window_set_child(GTK_WINDOW(window), box);
    gtk_window_present(GTK_WINDOW(window));
    iterate(1000);
    spin = some_spin(panel);
    double page = gtk_adjustment_get_page_size(vadj(panel_view));
    double outer_page = gtk_adjustment_get_page_size(vadj(outer));
    if (!tap_ok(spin && gtk_adjustment_get_upper(vadj(panel_view)) > page + 50 &&
                    gtk_adjustment_get_upper(vadj(outer)) > outer_page + 50,
                "both panels are taller than their scrolled windows (%.0f px in %.0f, %.0f in "
                "%.0f)",
                gtk_adjustment_get_upper(vadj(panel_view)), page,
                gtk_adjustment_get_upper(vadj(outer)), outer_page))
        return tap_done();
    test_spin_controller();
    test_table_controller();
    test_real_wheel();
    gtk_window_destroy(GTK_WINDOW(window));
    return tap_done();
}
