/* Spin buttons that leave the mouse wheel to the panel they sit in: a spin button takes wheel
 * events only when it has the keyboard focus; otherwise the wheel scrolls the enclosing
 * GtkScrolledWindow, as in GNOME's own settings panels (scrolling a panel past a spin button
 * must not change the setting under the pointer). Every spin button of the window is made
 * here. */
#ifndef ESL_SPIN_H
#define ESL_SPIN_H

#include <gtk/gtk.h>

/* gtk_spin_button_new_with_range() with the wheel rule above: a scroll controller in the capture
 * phase (named "esl-spin-wheel") that, while the focus is elsewhere, moves the adjustments of
 * the nearest GtkScrolledWindow ancestor as that window would and stops the event. */
GtkWidget *esl_spin_new(double lower, double upper, double step);

#endif
