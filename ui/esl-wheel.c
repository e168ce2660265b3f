/* The mouse wheel in nested scrolling; see esl-wheel.h. Both rules are scroll controllers in
 * the capture phase: they see the event before the widget's own handler, move the enclosing
 * scrolled window themselves and stop the event there. */
#include "esl-wheel.h"

#include <math.h>

/* Move an adjustment as GtkScrolledWindow does for the same event: a wheel notch moves it by
 * page_size^(2/3), a touchpad's smooth delta in surface units by that many pixels. */
static void scroll_adjustment(GtkAdjustment *adj, GtkEventControllerScroll *controller,
                              double delta)
{
    if (!adj || delta == 0.0)
        return;
    double unit = gtk_event_controller_scroll_get_unit(controller) == GDK_SCROLL_UNIT_SURFACE
                      ? 1.0
                      : pow(gtk_adjustment_get_page_size(adj), 2.0 / 3.0);
    /* gtk_adjustment_set_value clamps to [lower, upper - page_size] */
    gtk_adjustment_set_value(adj, gtk_adjustment_get_value(adj) + delta * unit);
}

/* The scrolled window around the controller's widget (not the widget itself). */
static GtkScrolledWindow *enclosing(GtkEventController *controller)
{
    GtkWidget *parent = gtk_widget_get_parent(gtk_event_controller_get_widget(controller));
    GtkWidget *scrolled = parent ? gtk_widget_get_ancestor(parent, GTK_TYPE_SCROLLED_WINDOW)
                                 : NULL;
    return scrolled ? GTK_SCROLLED_WINDOW(scrolled) : NULL;
}

static void add_rule(GtkWidget *widget, const char *name, GCallback on_scroll)
{
    GtkEventController *wheel = gtk_event_controller_scroll_new(
        GTK_EVENT_CONTROLLER_SCROLL_BOTH_AXES);
    gtk_event_controller_set_name(wheel, name);
    gtk_event_controller_set_propagation_phase(wheel, GTK_PHASE_CAPTURE);
    g_signal_connect(wheel, "scroll", on_scroll, NULL);
    gtk_widget_add_controller(widget, wheel);
}

/* Whether the keyboard focus is in the spin button (GtkSpinButton hands it to its text). */
static gboolean has_focus(GtkWidget *spin)
{
    GtkRoot *root = gtk_widget_get_root(spin);
    GtkWidget *focus = root ? gtk_root_get_focus(root) : NULL;
    return focus && (focus == spin || gtk_widget_is_ancestor(focus, spin));
}

static gboolean spin_wheel(GtkEventControllerScroll *controller, double dx, double dy,
                           gpointer data)
{
    (void)data;
    if (has_focus(gtk_event_controller_get_widget(GTK_EVENT_CONTROLLER(controller))))
        return GDK_EVENT_PROPAGATE; /* the spin button steps its value */
    GtkScrolledWindow *panel = enclosing(GTK_EVENT_CONTROLLER(controller));
    if (panel) {
        scroll_adjustment(gtk_scrolled_window_get_vadjustment(panel), controller, dy);
        scroll_adjustment(gtk_scrolled_window_get_hadjustment(panel), controller, dx);
    }
    return GDK_EVENT_STOP;
}

GtkWidget *esl_spin_new(double lower, double upper, double step)
{
    GtkWidget *spin = gtk_spin_button_new_with_range(lower, upper, step);
    add_rule(spin, "esl-spin-wheel", G_CALLBACK(spin_wheel));
    return spin;
}

static gboolean sideways_wheel(GtkEventControllerScroll *controller, double dx, double dy,
                               gpointer data)
{
    (void)data;
    GdkModifierType mods =
        gtk_event_controller_get_current_event_state(GTK_EVENT_CONTROLLER(controller));
    if (dy == 0.0 || mods & GDK_SHIFT_MASK)
        return GDK_EVENT_PROPAGATE; /* sideways: its own */
    GtkWidget *self = gtk_event_controller_get_widget(GTK_EVENT_CONTROLLER(controller));
    scroll_adjustment(gtk_scrolled_window_get_hadjustment(GTK_SCROLLED_WINDOW(self)), controller,
                      dx);
    GtkScrolledWindow *outer = enclosing(GTK_EVENT_CONTROLLER(controller));
    if (outer)
        scroll_adjustment(gtk_scrolled_window_get_vadjustment(outer), controller, dy);
    return GDK_EVENT_STOP;
}

void esl_wheel_vertical_to_parent(GtkWidget *scrolled)
{
    g_return_if_fail(GTK_IS_SCROLLED_WINDOW(scrolled));
    add_rule(scrolled, "esl-sideways-wheel", G_CALLBACK(sideways_wheel));
}
