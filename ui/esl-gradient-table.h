/* EslGradientTable: a sensitivity run's gradient as a table, one row per parameter (with its
 * value) and one column per objective (with psi in a row under the objectives' names). It asks
 * for the height of all its rows and the width of its columns (up to a bound, then it scrolls
 * sideways), so a layout cannot squeeze it to a cell; the vertical wheel over it goes to the
 * scrolled window that shows it. */
#ifndef ESL_GRADIENT_TABLE_H
#define ESL_GRADIENT_TABLE_H

#include <gtk/gtk.h>

#include "esl-project.h" /* EslSensitivityRun */

G_BEGIN_DECLS

#define ESL_TYPE_GRADIENT_TABLE (esl_gradient_table_get_type())
G_DECLARE_FINAL_TYPE(EslGradientTable, esl_gradient_table, ESL, GRADIENT_TABLE, GtkWidget)

GtkWidget *esl_gradient_table_new(void);
/* Show run's gradient (a run without one, interrupted or failed, says so). */
void esl_gradient_table_set_run(EslGradientTable *self, const EslSensitivityRun *run);
/* The agreement of n runs' gradients (direct, adjoint, fd): a row per derivative, a column
 * per run and the largest relative difference between them; FALSE (nothing shown) when the
 * runs differentiate different objectives or parameters. */
gboolean esl_gradient_table_set_runs(EslGradientTable *self, EslSensitivityRun *const *runs,
                                     int n);
/* The text of the cell at column and row of the grid (for tests), NULL outside. */
const char *esl_gradient_table_grid_text(EslGradientTable *self, int column, int row);
/* The text of the cell of parameter k and objective i (for tests), NULL outside. */
const char *esl_gradient_table_cell_text(EslGradientTable *self, int k, int i);

G_END_DECLS

#endif
