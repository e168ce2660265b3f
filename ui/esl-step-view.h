/* EslStepView: "Step Through" — one time step of a run, phase by phase (predictor, Newton
 * iterations with residual and correction, projections), each phase's matrices drawn as spy
 * plots (nonzeros coloured by magnitude, size and nonzero count in the caption). The step is
 * re-created on a worker thread from the model's text, the formulation and its settings by
 * running to the time asked (app/esl-step-trace.h), so the run itself is never touched. */
#ifndef ESL_STEP_VIEW_H
#define ESL_STEP_VIEW_H

#include <gtk/gtk.h>

#include "mbs_formulation.h"

G_BEGIN_DECLS

#define ESL_TYPE_STEP_VIEW (esl_step_view_get_type())
G_DECLARE_FINAL_TYPE(EslStepView, esl_step_view, ESL, STEP_VIEW, GtkWindow)

EslStepView *esl_step_view_new(GtkWindow *parent);
/* Trace the step that starts at `at` of the model (its JSON text) run with formulation and
 * settings s, on a worker; the view shows it when done ("traced" is emitted). */
void esl_step_view_trace(EslStepView *self, const char *model_json, const char *formulation,
                         const MbsSettings *s, double at);
/* The trace shown (NULL while tracing or when it failed). */
const MbsTrace *esl_step_view_get_trace(EslStepView *self);
/* Select phase i of the trace (its matrices are drawn); the phase selected, -1: none. */
void esl_step_view_select_phase(EslStepView *self, int i);
int esl_step_view_get_selected_phase(EslStepView *self);
/* Spy plots shown for the selected phase, and the caption of the k-th (for tests). */
int esl_step_view_count_pictures(EslStepView *self);
const char *esl_step_view_picture_caption(EslStepView *self, int k);
/* The summary line (formulation, times, or why nothing is traced). */
const char *esl_step_view_get_summary(EslStepView *self);

/* Signals: "traced" () once a trace (or its failure) is shown. */

G_END_DECLS

#endif
