/* "Step through one time step" (issue 12): the trace of one step of a run, re-created by
 * running the model from t = 0 with the run driver (the same steps, so the same state bit for
 * bit as the run that was paused there), then tracing the next step (engine/mbs_trace.h).
 * Used by eslabon-cli step and the window's Step Through view. */
#ifndef ESL_STEP_TRACE_H
#define ESL_STEP_TRACE_H

#include <glib.h>
#include <json-glib/json-glib.h>

#include "mbs_formulation.h"

G_DEFINE_AUTOPTR_CLEANUP_FUNC(MbsTrace, mbs_trace_free)

/* The trace of the step that starts at the last grid time at or before `at` (s holds the
 * formulation's settings; s->step is the step). NULL with error when the formulation cannot be
 * created or the run fails before `at`; a step that fails is traced (t->status, t->message). */
MbsTrace *esl_step_trace_at(const MbsModel *m, const char *formulation, const MbsSettings *s,
                            double at, GError **error);

/* The trace as a JSON object (docs/cli.md, eslabon-cli step --json). */
void esl_step_trace_to_json(const MbsTrace *t, JsonBuilder *b);

/* Translatable label of a phase ("Predictor", "Newton 2", "Velocity projection"...). */
char *esl_step_trace_phase_label(const MbsTracePhase *p);

#endif
