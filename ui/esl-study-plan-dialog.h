/* EslStudyPlanDialog: plan a study of the window's model (Studies ▸ Plan Study…, issue 25) in
 * the words of `eslabon-cli study plan` (esl_study_plan_from_words: nothing here re-types
 * them): the model's free parameters, each ticked with its range LOWER:UPPER[:LEVELS]
 * (default: its value ± 20 %, 3 levels), the design (the names of esl-study.h's table) with
 * the samples and seed of the sampled ones, the objectives (final:VAR,max:VAR,min:VAR), the
 * formulation and its settings (an EslRunSettings: the engine's tables) and the processes of
 * the local pool. Plan and Run emits "planned" with the study; the dialog closes. */
#ifndef ESL_STUDY_PLAN_DIALOG_H
#define ESL_STUDY_PLAN_DIALOG_H

#include <gtk/gtk.h>

#include "esl-run-settings.h"
#include "esl-study.h"

G_BEGIN_DECLS

#define ESL_TYPE_STUDY_PLAN_DIALOG (esl_study_plan_dialog_get_type())
G_DECLARE_FINAL_TYPE(EslStudyPlanDialog, esl_study_plan_dialog, ESL, STUDY_PLAN_DIALOG,
                     GtkWindow)

/* A modal dialog over parent. */
EslStudyPlanDialog *esl_study_plan_dialog_new(GtkWindow *parent);

/* The model file to plan over (its free parameters listed: the dialog reads it itself) and
 * the run settings to start from; FALSE with error (also shown) when it does not load. */
gboolean esl_study_plan_dialog_set_model(EslStudyPlanDialog *self, const char *model_path,
                                         const char *formulation, const MbsSettings *settings,
                                         GError **error);
/* Tick parameter name with this range text (NULL: untick); FALSE when there is no such row. */
gboolean esl_study_plan_dialog_set_range(EslStudyPlanDialog *self, const char *name,
                                         const char *range);
void esl_study_plan_dialog_set_design(EslStudyPlanDialog *self, EslStudyDesign design,
                                      int samples, guint32 seed);
void esl_study_plan_dialog_set_objectives(EslStudyPlanDialog *self, const char *objectives);
void esl_study_plan_dialog_set_jobs(EslStudyPlanDialog *self, int jobs);
int esl_study_plan_dialog_get_jobs(EslStudyPlanDialog *self);
EslRunSettings *esl_study_plan_dialog_get_run_settings(EslStudyPlanDialog *self);
/* The names the design chooser offers (esl_study_design_name's table), in order. */
GListModel *esl_study_plan_dialog_get_design_names(EslStudyPlanDialog *self);

/* A message on the dialog's status line (why it cannot plan). */
void esl_study_plan_dialog_set_message(EslStudyPlanDialog *self, const char *text);

/* The study of what the dialog shows; NULL with error (also shown) naming what is refused. */
EslStudy *esl_study_plan_dialog_plan(EslStudyPlanDialog *self, GError **error);

/* Signals: "planned" (EslStudy *study, int jobs): Plan and Run (plan.run) made a study (the
 * dialog's, freed after the emission: save it to keep it). */

G_END_DECLS

#endif
