#include "esl-step-trace.h"

#include <glib/gi18n.h>
#include <math.h>

#include "esl-settings-json.h"
#include "mbs_run.h"

MbsTrace *esl_step_trace_at(const MbsModel *m, const char *formulation, const MbsSettings *s,
                            double at, GError **error)
{
    /* the run to the traced step is bounded like a run's --duration: --at 1e9 would not end */
    if (s->step > 0.0 && at / s->step > MBS_SETTINGS_STEPS_MAX) {
        g_set_error(error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                    _("the step at t = %g s is %.3g steps of %g s away; at most %.0e steps are "
                      "run before a traced step (trace an earlier time or lengthen the step)"),
                    at, at / s->step, s->step, MBS_SETTINGS_STEPS_MAX);
        return NULL;
    }
    MbsError err = {0};
    MbsFormulation *f = mbs_formulation_new(formulation, m, s, &err);
    if (!f) {
        g_set_error(error, G_IO_ERROR, G_IO_ERROR_FAILED, "%s", err.message);
        return NULL;
    }
    MbsRun *run = mbs_run_new(f, NULL, NULL, &err);
    if (!run || mbs_run_advance(run, fmax(at, 0.0)) == MBS_RUN_FAILED) {
        g_set_error(error, G_IO_ERROR, G_IO_ERROR_FAILED,
                    _("The run failed at t = %g s before the step to trace: %s"), f->time,
                    run ? mbs_run_error(run)->message : err.message);
        mbs_run_free(run);
        mbs_formulation_free(f);
        return NULL;
    }
    mbs_run_free(run);
    MbsTrace *t = mbs_trace_new(f, &err);
    if (t && mbs_formulation_trace_step(f, t, &err) < 0 && t->nphases == 0 && !t->status) {
        mbs_trace_free(t);
        t = NULL;
    }
    if (!t)
        g_set_error(error, G_IO_ERROR, G_IO_ERROR_FAILED, "%s", err.message);
    mbs_formulation_free(f);
    return t;
}

/* Members of the object being built: an integer, a boolean (strings and numbers:
 * esl_json_builder_add_string, _add_number). */
static void add_int(JsonBuilder *b, const char *key, gint64 v)
{
    json_builder_set_member_name(b, key);
    json_builder_add_int_value(b, v);
}

static void add_bool(JsonBuilder *b, const char *key, gboolean v)
{
    json_builder_set_member_name(b, key);
    json_builder_add_boolean_value(b, v);
}

void esl_step_trace_to_json(const MbsTrace *t, JsonBuilder *b)
{
    json_builder_begin_object(b);
    esl_json_builder_add_string(b, "formulation", t->formulation);
    esl_json_builder_add_number(b, "time", t->time);
    esl_json_builder_add_number(b, "step", t->step);
    add_int(b, "status", t->status);
    esl_json_builder_add_string(b, "message", t->message);
    add_bool(b, "truncated", t->truncated);
    json_builder_set_member_name(b, "phases");
    json_builder_begin_array(b);
    for (int i = 0; i < t->nphases; ++i) {
        const MbsTracePhase *p = &t->phases[i];
        json_builder_begin_object(b);
        esl_json_builder_add_string(b, "kind", mbs_trace_phase_kind_name(p->kind));
        add_int(b, "iteration", p->iteration);
        esl_json_builder_add_number(b, "residual", p->residual);
        esl_json_builder_add_number(b, "correction", p->correction);
        esl_json_builder_add_number(b, "bound", p->bound);
        esl_json_builder_add_number(b, "residual_after", p->residual_after);
        esl_json_builder_add_number(b, "constraint", p->constraint);
        add_bool(b, "tangent_evaluated", p->tangent_evaluated);
        add_bool(b, "converged", p->converged);
        json_builder_set_member_name(b, "matrices");
        json_builder_begin_array(b);
        for (int k = 0; k < p->matrix_count; ++k)
            json_builder_add_int_value(b, p->matrix_first + k);
        json_builder_end_array(b);
        json_builder_end_object(b);
    }
    json_builder_end_array(b);
    json_builder_set_member_name(b, "matrices");
    json_builder_begin_array(b);
    for (int i = 0; i < t->nmatrices; ++i) {
        const MbsTraceMatrix *x = &t->matrices[i];
        json_builder_begin_object(b);
        esl_json_builder_add_string(b, "name", x->name);
        esl_json_builder_add_string(b, "formula", x->formula);
        add_int(b, "phase", x->phase);
        add_int(b, "rows", x->rows);
        add_int(b, "cols", x->cols);
        add_int(b, "nonzeros", x->nonzeros);
        add_bool(b, "stored", x->stored);
        /* the pattern as index lists, with the values */
        static const char *const keys[] = {"row_index", "col_index", "values"};
        for (int list = 0; list < 3 && x->stored; ++list) {
            json_builder_set_member_name(b, keys[list]);
            json_builder_begin_array(b);
            for (long k = 0; k < x->nonzeros; ++k) {
                size_t at = x->first + (size_t)k;
                if (list == 2)
                    json_builder_add_double_value(b, t->value[at]);
                else
                    json_builder_add_int_value(b, list == 0 ? t->row[at] : t->col[at]);
            }
            json_builder_end_array(b);
        }
        json_builder_end_object(b);
    }
    json_builder_end_array(b);
    json_builder_end_object(b);
}

char *esl_step_trace_phase_label(const MbsTracePhase *p)
{
    switch (p->kind) {
    case MBS_TRACE_PREDICTOR:
        return g_strdup(_("Predictor"));
    case MBS_TRACE_NEWTON:
        return g_strdup_printf(_("Newton %d"), p->iteration);
    case MBS_TRACE_PROJECTION_VELOCITY:
        return g_strdup(_("Velocity projection"));
    case MBS_TRACE_PROJECTION_ACCELERATION:
        return g_strdup(_("Acceleration projection"));
    case MBS_TRACE_POSITION_NEWTON:
        return g_strdup_printf(_("Position Newton %d"), p->iteration);
    case MBS_TRACE_EVALUATION:
        return g_strdup_printf(_("Evaluation %d"), p->iteration);
    default:
        return g_strdup("?");
    }
}
