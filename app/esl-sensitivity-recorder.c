/* EslSensitivityRecorder: a sensitivity computation's history and result into a project. */
#include "esl-sensitivity-recorder.h"

#include "esl-settings-json.h"

/* Rows per transaction: a few commits per second of a long run, at most this many lost when
 * the process is killed. */
#define BATCH_ROWS 256

struct _EslSensitivityRecorder {
    EslProject *project;
    gint64 run_id;
    int nobjectives, nparameters;
    GArray *times, *psi, *gradient; /* buffered rows */
    GArray *state;                  /* their d q / d rho, nstate x nparameters each */
    int nstate;                     /* coordinates, from the first state reported; 0: none */
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
    r->state = g_array_new(FALSE, FALSE, sizeof(double));
    return r;
}

/* The options as stored: those given, or the table's defaults; NULL with error when they are
 * another table's. */
static char *method_options_json(const char *formulation, MbsSensitivityMethod method,
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
                                      const MbsModel *m, MbsSensitivityMethod method,
                                      const MbsSettings *method_options,
                                      const int *objectives, int nobjectives,
                                      const int *parameters, int nparameters, GError **error)
{
    g_autofree char *options = method_options_json(request->formulation, method,
                                                   method_options, error);
    if (!options)
        return 0;
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
        .parameters = parameter_names, .parameter_values = values, .method_options = options};
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
    g_array_unref(r->state);
    g_clear_error(&r->error);
    g_free(r);
}

/* The buffered rows, with their state sensitivities when every row has them. */
static void flush(EslSensitivityRecorder *r)
{
    gboolean with_state =
        r->nstate > 0 && r->state->len == r->times->len * (guint)(r->nstate * r->nparameters);
    if (!r->error && r->times->len > 0)
        esl_project_append_sensitivity_rows(
            r->project, r->run_id, (double *)(void *)r->times->data,
            (double *)(void *)r->psi->data, (double *)(void *)r->gradient->data,
            with_state ? (double *)(void *)r->state->data : NULL, with_state ? r->nstate : 0,
            (int)r->times->len, &r->error);
    g_array_set_size(r->times, 0);
    g_array_set_size(r->psi, 0);
    g_array_set_size(r->gradient, 0);
    g_array_set_size(r->state, 0);
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

void esl_sensitivity_recorder_state(void *data, double time, int n, const double *q,
                                    const double *sq)
{
    EslSensitivityRecorder *r = data;
    (void)q;
    guint rows = r->times->len;
    /* only for the row just recorded (a caller that thins rows reports states it skipped) */
    if (r->error || rows == 0 || g_array_index(r->times, double, rows - 1) != time || n < 1 ||
        (r->nstate && n != r->nstate))
        return;
    r->nstate = n;
    guint ns = (guint)(n * r->nparameters);
    if (r->state->len != (rows - 1) * ns) /* an earlier row of the batch had none */
        return;
    g_array_append_vals(r->state, sq, ns);
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
