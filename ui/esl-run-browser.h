/* EslRunBrowser: the runs of the project, newest first; one selected run is replayed, several
 * are compared (the window does both). */
#ifndef ESL_RUN_BROWSER_H
#define ESL_RUN_BROWSER_H

#include <gtk/gtk.h>

#include "esl-project.h"

G_BEGIN_DECLS

#define ESL_TYPE_RUN_BROWSER (esl_run_browser_get_type())
G_DECLARE_FINAL_TYPE(EslRunBrowser, esl_run_browser, ESL, RUN_BROWSER, GtkWidget)

/* List the runs of project (none when NULL); FALSE with error when they cannot be read. The
 * selection is dropped without "selection-changed". */
gboolean esl_run_browser_fill(EslRunBrowser *self, EslProject *project, GError **error);
void esl_run_browser_unselect_all(EslRunBrowser *self);
/* The ids (gint64) of the selected runs, in the order of the list. */
GArray *esl_run_browser_get_selected(EslRunBrowser *self);

/* A click on the row at index, as the user makes it: plain selects that run alone, Ctrl toggles
 * it, Shift extends from the last clicked row. Escape (action runs.unselect-all) clears. */
void esl_run_browser_click_row(EslRunBrowser *self, int index, GdkModifierType state);

/* Select the run of this id alone, as a plain click on its row; FALSE when it is not listed. */
gboolean esl_run_browser_select_run(EslRunBrowser *self, gint64 run_id);

/* The project's size on disk, shown under the list (0: nothing shown). */
void esl_run_browser_set_size(EslRunBrowser *self, gint64 bytes);
const char *esl_run_browser_get_size_text(EslRunBrowser *self);

/* The run status as shown to the user (the project stores the English identifier). */
const char *esl_run_status_label(EslRunStatus status);

/* Signals:
 *   "selection-changed" when the user selects or unselects runs;
 *   "rename-run" (gint64 id, const char *name) when the user names the selected run;
 *   "delete-runs" (GArray *ids) when the user asks to delete the selected runs (Delete…
 *   button or the Delete key); the window asks for confirmation and deletes them. */

G_END_DECLS

#endif
