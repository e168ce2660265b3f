/* EslSensitivityRecorder: a sensitivity computation's history and result into a project. */
#include "esl-sensitivity-recorder.h"

/* Rows per transaction: a few commits per second of a long run, at most this many lost when
 * the process is killed. */
#define BATCH_ROWS 256

struct _EslSensitivityRecorder {
    EslProject *project;
    gint64 run_id;
    int nobjectives, nparameters;
    GArray *times, *psi, *gradient; /* buffered rows */
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
    return r;
}

gint64 esl_sensitivity_recorder_begin(EslProject *project, const EslRunRequest *request,
                                      const MbsModel *m, MbsSensitivityMethod method,
                                      const int *objectives, int nobjectives,
                                      const int *parameters, int nparameters, GError **error)
{
    gint64 run_id = esl_project_begin_run(project, request, error);
    if (!run_id)
        return 0;
    g_autofree const char **objective_names = g_new0(const char *, nobjectives + 1);
    g_autofree const char **parameter_names = g_new0(const char *, nparameters + 1);
    g_autofree double *values = g_new0(double, nparameters + 1);
    for (int i = 0; i < nobjectives; ++i)
        objective_names[i] = m->objectives[objectives[i]].name;
    for (int k = 0; k < nparameters; ++k) {
        parameter_names[k] = m->parameters[parameters[k]].name;
        values[k] = m->parameters[parameters[k]].value;
    }
    EslSensitivityRequest sreq = {
        .method = mbs_sensitivity_method_name(method), .nobjectives = nobjectives,
        .nparameters = nparameters, .objectives = objective_names,
        .parameters = parameter_names, .parameter_values = values};
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
    g_clear_error(&r->error);
    g_free(r);
}

static void flush(EslSensitivityRecorder *r)
{
    if (!r->error && r->times->len > 0)
        esl_project_append_sensitivity_history(r->project, r->run_id, (double *)(void *)r->times->data,
                                               (double *)(void *)r->psi->data,
                                               (double *)(void *)r->gradient->data,
                                               (int)r->times->len, &r->error);
    g_array_set_size(r->times, 0);
    g_array_set_size(r->psi, 0);
    g_array_set_size(r->gradient, 0);
}

void esl_sensitivity_recorder_history(void *data, double time, const double *psi,
                                      const double *gradient)
{
    EslSensitivityRecorder *r = data;
    if (r->error)
        return;
    g_array_append_val(r->times, time);
    g_array_append_vals(r->psi, psi, r->nobjectives);
    g_array_append_vals(r->gradient, gradient, (guint)(r->nobjectives * r->nparameters));
    if (r->times->len >= BATCH_ROWS)
        flush(r);
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
