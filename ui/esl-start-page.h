/* EslStartPage: the welcome page: recent files, the gallery of bundled models (cards with a
 * thumbnail drawn by the renderer) and a button to open a model file. */
#ifndef ESL_START_PAGE_H
#define ESL_START_PAGE_H

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define ESL_TYPE_START_PAGE (esl_start_page_get_type())
G_DECLARE_FINAL_TYPE(EslStartPage, esl_start_page, ESL, START_PAGE, GtkWidget)

/* Signals:
 *   "model-chosen" (const char *path) when a card of the gallery is clicked.
 * A recent file activates the window's action win.open-recent with its path. */

G_END_DECLS

#endif
