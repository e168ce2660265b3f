/* EslStudyView: the Studies window (issue 25). The studies of a project the shards were merged
 * into (`eslabon-cli study collect`), or that were run from here (Plan Study…: the window's
 * EslStudyPlanDialog, then the local pool with a progress bar and Cancel, each case merged into
 * the project as it ends): choose one, see its cases in a table (parameters, status,
 * objectives' values), an objective against a parameter or, for two parameters, a coloured map
 * of it over both (a click on a case's point or cell, or Open Run on its row, shows its run in
 * the main window: "open-run"); and the advisor's work–precision diagram (an advice stored in
 * the project by `eslabon-cli advise --project`, or a file of `advise --json`: error against
 * CPU time, a curve per formulation, the recommendation ringed, the accuracy asked as a line).
 * Opened by win.studies. */
#ifndef ESL_STUDY_VIEW_H
#define ESL_STUDY_VIEW_H

#include <gtk/gtk.h>

#include "esl-advise.h"
#include "esl-scatter-plot.h"
#include "esl-study-results.h"

G_BEGIN_DECLS

#define ESL_TYPE_STUDY_VIEW (esl_study_view_get_type())
G_DECLARE_FINAL_TYPE(EslStudyView, esl_study_view, ESL, STUDY_VIEW, GtkWindow)

GtkWidget *esl_study_view_new(GtkWindow *parent);

/* List the studies of the project (NULL: none) and show the first; FALSE with error (also
 * shown in the window) when it cannot be read or its study's manifest cannot. */
gboolean esl_study_view_set_project(EslStudyView *self, const char *project_path,
                                    GError **error);
int esl_study_view_get_n_studies(EslStudyView *self);
/* Show study index of the list; FALSE with error (also shown) when it cannot be read. */
gboolean esl_study_view_select_study(EslStudyView *self, int index, GError **error);
/* The study shown, or NULL. */
const EslStudyResults *esl_study_view_get_results(EslStudyView *self);

/* The table: rows (cases) and columns ("case", the parameters, "status", the objectives); the
 * text of a cell (column 0 of row -1..: the headers at row -1), NULL outside. */
int esl_study_view_get_n_rows(EslStudyView *self);
const char *esl_study_view_cell_text(EslStudyView *self, int row, int column);
/* Select case k's row (-1: none) / the case selected. */
void esl_study_view_select_case(EslStudyView *self, int k);
int esl_study_view_get_selected_case(EslStudyView *self);

/* Plot objective i against parameter j. */
void esl_study_view_set_axes(EslStudyView *self, int parameter, int objective);
EslScatterPlot *esl_study_view_get_case_plot(EslStudyView *self);

/* The coloured map of objective i over the study's two parameters (the x-axis chooser's last
 * choice, "P1 × P2 (map)"; a click on a cell opens its case's run); FALSE: not two parameters. */
gboolean esl_study_view_show_map(EslStudyView *self, int objective);

/* Run study (saved first, as PROJECT.studies/study-NNN.json beside the project shown) on a
 * local pool of jobs processes of cli (`cli study run MANIFEST --case K`): a progress bar
 * (cases done, failed, time left) with Cancel, each case's shard merged into the project as it
 * ends and the table and plot showing it ("runs-merged" then). FALSE with error (also shown)
 * without a project or cli, while a study runs, or when the manifest cannot be written. */
gboolean esl_study_view_run_study(EslStudyView *self, EslStudy *study, const char *cli,
                                  int jobs, GError **error);
gboolean esl_study_view_is_running(EslStudyView *self);
/* Cancel: the running cases are killed, no more start (studies.cancel-run). */
void esl_study_view_cancel(EslStudyView *self);
const char *esl_study_view_get_progress_text(EslStudyView *self);
double esl_study_view_get_progress_fraction(EslStudyView *self);
/* The study last run from the window (its manifest as saved), or NULL. */
const EslStudy *esl_study_view_get_running_study(EslStudyView *self);

/* The work–precision diagram of an advice (taken) / of an advice file; the page is shown. */
void esl_study_view_show_advice(EslStudyView *self, EslAdvice *advice, const char *model);
gboolean esl_study_view_open_advice(EslStudyView *self, const char *path, GError **error);
EslScatterPlot *esl_study_view_get_work_precision_plot(EslStudyView *self);
/* The advice stored in the project (`eslabon-cli advise --project`), listed on the
 * Work–Precision tab, the newest shown when the project is set; show the index-th (oldest
 * first). */
int esl_study_view_get_n_stored_advice(EslStudyView *self);
gboolean esl_study_view_select_stored_advice(EslStudyView *self, int index, GError **error);
const char *esl_study_view_get_advice_text(EslStudyView *self);

/* Signals:
 *   "open-run" (const char *project_path, gint64 run_id): show that run (a case's);
 *   "apply-settings" (const char *formulation, const MbsSettings *settings): the advice's
 *   recommended formulation and settings, for the next runs (studies.apply-advice, Apply
 *   Recommended; disabled without a recommendation);
 *   "plan-study" (): Plan Study… (studies.plan; disabled while a study runs): the window opens
 *   the plan dialog on its model;
 *   "runs-merged" (): a case's run was merged into the project. */

G_END_DECLS

#endif
