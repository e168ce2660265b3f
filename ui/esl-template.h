/* Shared by the window's parts (GtkWidget subclasses built from a template). */
#ifndef ESL_TEMPLATE_H
#define ESL_TEMPLATE_H

#include <gtk/gtk.h>

/* gtk_widget_dispose_template (GTK 4.8) unparents only the bound children; a part's unbound
 * top child is left, and finalizing the part with it warns and crashes when the window is
 * destroyed. Call in dispose, after gtk_widget_dispose_template. */
static inline void esl_template_unparent_children(GtkWidget *widget)
{
    GtkWidget *child;
    while ((child = gtk_widget_get_first_child(widget)))
        gtk_widget_unparent(child);
}

#endif
