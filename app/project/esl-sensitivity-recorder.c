/* EslSensitivityRecorder: a sensitivity computation's history and result into a project. */
#include "esl-sensitivity-recorder.h"

#include "esl-point-sensitivity.h"
#include "esl-settings-json.h"

/* Rows per transaction: a few commits per second of a long run, at most this many lost when
 * the process is killed. */
#define BATCH_ROWS 256

/* Numbers attached to the row just recorded (d q / d rho, d r / d rho): count x nparameters
 * each, buffered with the rows; stored only when every buffered row has them. */
typedef struct {
    GArray *values;
    int count; /* from the first reported; 0: none yet */
} Attached;

struct _EslSensitivityRecorder {
    EslProject *project;
    gint64 run_id;
    int nobjectives, nparameters;
    GArray *times, *psi, *gradient; /* buffered rows */
    Attached state;                 /* their d q / d rho */
    Attached points;                /* their d r / d rho (3 per stored point) */
    GError *error;                  /* first storage error */
};

EslSensitivityRecorder *esl_sensitivity_recorder_new(EslProject *project, gint64 run_id,
                                                     int nobjectives, int nparameters)
{
    EslSensitivityRecorder *r = g_new0(EslSensitivityRecorder, 1);
    r->project = project;
    r->run_id = run_id;
    r->nobjectives = nobjectives;
    r->nparameters = nparameters;
    r->times = g_array_new(FALSE, FALSE, sizeof(double));
    r->psi = g_array_new(FALSE, FALSE, sizeof(double));
    r->gradient = g_array_new(FALSE, FALSE, sizeof(double));
    r->state.values = g_array_new(FALSE, FALSE, sizeof(double));
    r->points.values = g_array_new(FALSE, FALSE, sizeof(double));
    return r;
}

char *esl_sensitivity_method_options_json(const char *formulation, MbsSensitivityMethod method,
                                          const MbsSettings *given, GError **error)
{
    const MbsSettingTable *t = mbs_sensitivity_settings(formulation, method);
    MbsSettings options;
    mbs_settings_defaults(&options);
    mbs_settings_use_options(&options, t);
    if (given && given->options_table != t) {
        g_set_error(error, ESL_PROJECT_ERROR, ESL_PROJECT_ERROR_INVALID,
                    "the options given are not those of %s %s sensitivities", formulation,
                    mbs_sensitivity_method_name(method));
        return NULL;
    }
    return esl_settings_options_to_json(given ? given : &options);
}

gboolean esl_sensitivity_run_method_options(const EslSensitivityRun *run,
                                            const char *formulation, MbsSettings *options,
                                            GError **error)
{
    mbs_settings_defaults(options);
    int method = mbs_sensitivity_method_from_name(run->method);
    const MbsSettingTable *t =
        method >= 0 ? mbs_sensitivity_settings(formulation, (MbsSensitivityMethod)method) : NULL;
    g_autofree char *owner = g_strdup_printf("%s %s", formulation, run->method);
    return esl_settings_table_options_from_json(options, t, owner,
                                                t ? run->method_options : NULL, error);
}

gint64 esl_sensitivity_recorder_begin(EslProject *project, const EslRunRequest *request,
                                      const MbsModel *m, const EslSensitivityChoice *c,
                                      GError **error)
{
    g_autofree char *options = esl_sensitivity_method_options_json(
        request->formulation, c->method, c->method_options, error);
    if (!options)
        return 0;
    gint64 run_id = esl_project_begin_run(project, request, error);
    if (!run_id)
        return 0;
    g_autofree const char **objective_names = g_new0(const char *, c->nobjectives + 1);
    g_autofree const char **parameter_names = g_new0(const char *, c->nparameters + 1);
    g_autofree double *values = g_new0(double, c->nparameters + 1);
    g_autoptr(GPtrArray) point_names = g_ptr_array_new_with_free_func(g_free);
    for (int i = 0; i < c->nobjectives; ++i)
        objective_names[i] = m->objectives[c->objectives[i]].name;
    for (int k = 0; k < c->nparameters; ++k) {
        parameter_names[k] = m->parameters[c->parameters[k]].name;
        values[k] = m->parameters[c->parameters[k]].value;
    }
    for (int i = 0; i < c->npoints; ++i)
        g_ptr_array_add(point_names, esl_point_name(m, c->points[i]));
    EslSensitivityRequest sreq = {
        .method = mbs_sensitivity_method_name(c->method), .nobjectives = c->nobjectives,
        .nparameters = c->nparameters, .objectives = objective_names,
        .parameters = parameter_names, .parameter_values = values, .method_options = options,
        .npoints = c->npoints, .points = (const char *const *)point_names->pdata};
    if (!esl_project_begin_sensitivity(project, run_id, &sreq, error)) {
        esl_project_finish_run(project, run_id, ESL_RUN_FAILED, (*error)->message, NULL, 0.0,
                               NULL);
        return 0;
    }
    return run_id;
}

void esl_sensitivity_recorder_free(EslSensitivityRecorder *r)
{
    if (!r)
        return;
    g_array_unref(r->times);
    g_array_unref(r->psi);
    g_array_unref(r->gradient);
    g_array_unref(r->state.values);
    g_array_unref(r->points.values);
    g_clear_error(&r->error);
    g_free(r);
}

/* The attached numbers of every buffered row, or NULL when some row has none. */
static const double *attached_rows(const EslSensitivityRecorder *r, const Attached *a)
{
    return a->count > 0 && a->values->len == r->times->len * (guint)(a->count * r->nparameters)
               ? (const double *)(void *)a->values->data
               : NULL;
}

/* The buffered rows, with their state and point sensitivities when every row has them. */
static void flush(EslSensitivityRecorder *r)
{
    const double *state = attached_rows(r, &r->state);
    if (!r->error && r->times->len > 0)
        esl_project_append_sensitivity_rows(
            r->project, r->run_id, (double *)(void *)r->times->data,
            (double *)(void *)r->psi->data, (double *)(void *)r->gradient->data, state,
            state ? r->state.count : 0, attached_rows(r, &r->points), (int)r->times->len,
            &r->error);
    g_array_set_size(r->times, 0);
    g_array_set_size(r->psi, 0);
    g_array_set_size(r->gradient, 0);
    g_array_set_size(r->state.values, 0);
    g_array_set_size(r->points.values, 0);
}

void esl_sensitivity_recorder_history(void *data, double time, const double *psi,
                                      const double *gradient)
{
    EslSensitivityRecorder *r = data;
    if (r->error)
        return;
    if (r->times->len >= BATCH_ROWS) /* before the new row: its state may follow */
        flush(r);
    g_array_append_val(r->times, time);
    g_array_append_vals(r->psi, psi, r->nobjectives);
    g_array_append_vals(r->gradient, gradient, (guint)(r->nobjectives * r->nparameters));
}

/* count x nparameters values for the row just recorded (a caller that thins rows reports
 * some it skipped: ignored), after those of every earlier row of the batch. */
static void attach(EslSensitivityRecorder *r, Attached *a, double time, int count,
                   const double *values)
{
    guint rows = r->times->len;
    if (r->error || rows == 0 || g_array_index(r->times, double, rows - 1) != time ||
        count < 1 || (a->count && count != a->count))
        return;
    a->count = count;
    guint per_row = (guint)(count * r->nparameters);
    if (a->values->len != (rows - 1) * per_row) /* an earlier row of the batch had none */
        return;
    g_array_append_vals(a->values, values, per_row);
}

void esl_sensitivity_recorder_state(void *data, double time, int n, const double *q,
                                    const double *sq)
{
    (void)q;
    EslSensitivityRecorder *r = data;
    attach(r, &r->state, time, n, sq);
}

void esl_sensitivity_recorder_points(EslSensitivityRecorder *r, double time, int noutputs,
                                     const double *dr)
{
    attach(r, &r->points, time, noutputs, dr);
}

gboolean esl_sensitivity_recorder_finish(EslSensitivityRecorder *r, EslRunStatus status,
                                         const double *psi, const double *gradient,
                                         const char *message, const char *summary_json,
                                         double wall_time, GError **error)
{
    flush(r);
    gboolean stored = !r->error && (!psi || !gradient ||
                                    esl_project_set_sensitivity_result(r->project, r->run_id, psi,
                                                                       gradient, &r->error));
    /* A result that could not be stored (a NaN gradient) fails the run, which is still ended. */
    g_autofree char *why = r->error ? g_strdup_printf("not stored: %s", r->error->message) : NULL;
    gboolean ended = esl_project_finish_run(r->project, r->run_id,
                                            stored ? status : ESL_RUN_FAILED,
                                            stored ? message : why, summary_json, wall_time,
                                            stored ? error : NULL);
    if (!stored) {
        g_propagate_error(error, g_steal_pointer(&r->error));
        return FALSE;
    }
    return ended;
}
