/* Spin buttons and the mouse wheel; see esl-spin.h. */
#include "esl-spin.h"

#include <math.h>

/* Whether the keyboard focus is in the spin button (GtkSpinButton hands it to its text). */
static gboolean has_focus(GtkWidget *spin)
{
    GtkRoot *root = gtk_widget_get_root(spin);
    GtkWidget *focus = root ? gtk_root_get_focus(root) : NULL;
    return focus && (focus == spin || gtk_widget_is_ancestor(focus, spin));
}

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

/* Captured before the spin button's own scroll handler sees the event: without the focus, the
 * delta goes to the enclosing scrolled window and the event stops here. */
static gboolean on_wheel(GtkEventControllerScroll *controller, double dx, double dy,
                         gpointer data)
{
    (void)data;
    GtkWidget *spin = gtk_event_controller_get_widget(GTK_EVENT_CONTROLLER(controller));
    if (has_focus(spin))
        return GDK_EVENT_PROPAGATE; /* the spin button steps its value */
    GtkWidget *scrolled = gtk_widget_get_ancestor(spin, GTK_TYPE_SCROLLED_WINDOW);
    if (scrolled) {
        GtkScrolledWindow *sw = GTK_SCROLLED_WINDOW(scrolled);
        scroll_adjustment(gtk_scrolled_window_get_vadjustment(sw), controller, dy);
        scroll_adjustment(gtk_scrolled_window_get_hadjustment(sw), controller, dx);
    }
    return GDK_EVENT_STOP;
}

GtkWidget *esl_spin_new(double lower, double upper, double step)
{
    GtkWidget *spin = gtk_spin_button_new_with_range(lower, upper, step);
    GtkEventController *wheel = gtk_event_controller_scroll_new(
        GTK_EVENT_CONTROLLER_SCROLL_BOTH_AXES);
    gtk_event_controller_set_name(wheel, "esl-spin-wheel");
    gtk_event_controller_set_propagation_phase(wheel, GTK_PHASE_CAPTURE);
    g_signal_connect(wheel, "scroll", G_CALLBACK(on_wheel), NULL);
    gtk_widget_add_controller(spin, wheel);
    return spin;
}
