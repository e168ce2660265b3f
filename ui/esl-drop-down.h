/* Drop-downs of the side panels that keep their width. GtkDropDown's default factory sizes the
 * button to the label of the item shown, so choosing a long label ("compressed automatic
 * differentiation") widens the whole run panel and squeezes the 3D view. These show the item
 * in an ellipsized label (the full text in a tooltip when it does not fit) and the full
 * labels in the popup list, with the check mark of the item chosen as GTK's own list has. */
#ifndef ESL_DROP_DOWN_H
#define ESL_DROP_DOWN_H

#include <gtk/gtk.h>

/* Label widths of the button, in characters: at least ESL_DROP_DOWN_MIN_CHARS (then "…"), at
 * most ESL_DROP_DOWN_MAX_CHARS asked for (more when the panel gives the room). */
#define ESL_DROP_DOWN_MIN_CHARS 6
#define ESL_DROP_DOWN_MAX_CHARS 20

/* A drop-down of the strings of `strings` (a GtkStringList; taken over, as
 * gtk_drop_down_new does). */
GtkWidget *esl_drop_down_new(GtkStringList *strings);

#endif
