/* The mouse wheel in nested scrolling. GTK 4 gives a wheel event to the innermost widget that
 * handles it, and two kinds of widget handle every one: a spin button (it steps its value) and
 * a scrolled window with overlay scrollbars (even one with nothing to scroll in that
 * direction). Inside a scrolled panel both stop the panel from scrolling under the pointer;
 * these rules, as GNOME's own settings panels have them, give the wheel back to the panel.
 * Every spin button of the window is made here. */
#ifndef ESL_WHEEL_H
#define ESL_WHEEL_H

#include <gtk/gtk.h>

/* gtk_spin_button_new_with_range() that takes the wheel only when it has the keyboard focus;
 * otherwise the wheel scrolls the nearest GtkScrolledWindow around it (as that window would)
 * and the value stays (scrolling a panel past a spin button must not change the setting).
 * The rule is a capture-phase GtkEventControllerScroll named "esl-spin-wheel". */
GtkWidget *esl_spin_new(double lower, double upper, double step);

/* scrolled (a GtkScrolledWindow that scrolls sideways only: its vertical policy NEVER) leaves
 * the vertical wheel to the scrolled window around it; Shift+wheel and horizontal deltas still
 * scroll it sideways. The rule: a capture-phase controller named "esl-sideways-wheel". */
void esl_wheel_vertical_to_parent(GtkWidget *scrolled);

#endif
