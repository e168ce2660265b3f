/* EslVariableBrowser: the variables of the model shown (app/esl-variables.h), as OMEdit's
 * variable browser lists them: a tree by element (bodies with their points, joints) with a
 * search entry; checking a variable adds it to the current variable plot of the plot board,
 * unchecking removes it; the plots can be chosen, added and removed from it. */
#ifndef ESL_VARIABLE_BROWSER_H
#define ESL_VARIABLE_BROWSER_H

#include <gtk/gtk.h>

#include "esl-plot-board.h"
#include "mbs_model.h"

G_BEGIN_DECLS

#define ESL_TYPE_VARIABLE_BROWSER (esl_variable_browser_get_type())
G_DECLARE_FINAL_TYPE(EslVariableBrowser, esl_variable_browser, ESL, VARIABLE_BROWSER,
                     GtkWindow)

/* A browser of the plots of board (borrowed: it must outlive the browser), over parent. */
EslVariableBrowser *esl_variable_browser_new(GtkWindow *parent, EslPlotBoard *board);
/* List the variables of m (borrowed until the next call; NULL: none). */
void esl_variable_browser_set_model(EslVariableBrowser *self, const MbsModel *m);
/* The search entry (for tests and the window's key handling). */
GtkWidget *esl_variable_browser_get_search_entry(EslVariableBrowser *self);
/* Rows listed now (elements and variables, as expanded; for tests). */
guint esl_variable_browser_count_rows(EslVariableBrowser *self);

/* Signals:
 *   "variable-toggled" (const char *name, gboolean checked) when the user checks or unchecks
 *   a variable: the window plots it in (or removes it from) the board's current plot. */

G_END_DECLS

#endif
