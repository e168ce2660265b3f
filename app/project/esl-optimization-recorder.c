/* EslOptimizationRecorder: an optimisation's evaluations and result into a project. */
#include "esl-optimization-recorder.h"

#include "esl-sensitivity-recorder.h"

struct _EslOptimizationRecorder {
    EslProject *project;
    gint64 run_id;
    GError *error; /* the first storage error; nothing more is stored after it */
};

EslOptimizationRecorder *esl_optimization_recorder_begin(EslProject *project, gint64 model_id,
                                                         const char *model_name,
                                                         const EslOptimizerProblem *p,
                                                         const MbsSettings *method_options,
                                                         GError **error)
{
    g_autofree double *start = g_new0(double, MAX(p->nparameters, 1));
    g_autofree char *options =
        esl_sensitivity_method_options_json(p->formulation, p->method, method_options, error);
    if (!options || !esl_optimizer_check(p, start, error))
        return NULL;
    EslRunRequest req = {.model_name = model_name, .model_id = model_id,
                         .formulation = p->formulation, .settings = *p->settings};
    g_autofree const char **names = g_new0(const char *, p->nparameters + 1);
    for (int k = 0; k < p->nparameters; k++)
        names[k] = p->model->parameters[p->parameters[k]].name;
    EslOptimizationRequest r = {
        .objective = p->model->objectives[p->objective].name,
        .method = mbs_sensitivity_method_name(p->method), .method_options = options,
        .algorithm = esl_optimizer_algorithm_name(p->algorithm),
        .max_evaluations = p->max_evaluations > 0 ? p->max_evaluations
                                                  : ESL_OPTIMIZER_MAX_EVALUATIONS,
        .xtol = p->xtol > 0 ? p->xtol : ESL_OPTIMIZER_XTOL, .nparameters = p->nparameters,
        .parameters = names, .lower = p->lower, .upper = p->upper, .start = start};
    gint64 run_id = esl_project_begin_run(project, &req, error);
    if (!run_id)
        return NULL;
    if (!esl_project_begin_optimization(project, run_id, &r, error)) {
        esl_project_finish_run(project, run_id, ESL_RUN_FAILED, (*error)->message, NULL, 0.0,
                               NULL);
        return NULL;
    }
    EslOptimizationRecorder *recorder = g_new0(EslOptimizationRecorder, 1);
    recorder->project = project;
    recorder->run_id = run_id;
    return recorder;
}

void esl_optimization_recorder_free(EslOptimizationRecorder *recorder)
{
    if (!recorder)
        return;
    g_clear_error(&recorder->error);
    g_free(recorder);
}

gint64 esl_optimization_recorder_run_id(const EslOptimizationRecorder *recorder)
{
    return recorder->run_id;
}

void esl_optimization_recorder_evaluation(EslOptimizationRecorder *recorder, double psi,
                                          const double *gradient, const double *x)
{
    if (!recorder->error)
        esl_project_append_optimization_evaluation(recorder->project, recorder->run_id, psi,
                                                   gradient, x, &recorder->error);
}

/* How it ended, as a run's status: converged and the evaluation limit finish it. */
static EslRunStatus run_status(EslOptimizerStatus status)
{
    switch (status) {
    case ESL_OPTIMIZER_CONVERGED:
    case ESL_OPTIMIZER_EVALUATION_LIMIT:
        return ESL_RUN_FINISHED;
    case ESL_OPTIMIZER_STOPPED:
        return ESL_RUN_STOPPED;
    case ESL_OPTIMIZER_FAILED:
        break;
    }
    return ESL_RUN_FAILED;
}

gboolean esl_optimization_recorder_finish(EslOptimizationRecorder *recorder,
                                          const EslOptimizerResult *result, double wall_time,
                                          GError **error)
{
    EslProject *project = recorder->project;
    gboolean any = result->evaluations > 0;
    if (!recorder->error &&
        esl_project_set_optimization_result(project, recorder->run_id,
                                            esl_optimizer_status_name(result->status),
                                            result->psi, any ? result->x : NULL,
                                            any ? result->gradient : NULL, &recorder->error) &&
        esl_project_finish_run(project, recorder->run_id, run_status(result->status),
                               result->message, NULL, wall_time, &recorder->error))
        return TRUE;
    /* a run whose evaluations or result the project refused is closed as failed, never left
     * running */
    esl_project_finish_run(project, recorder->run_id, ESL_RUN_FAILED, recorder->error->message,
                           NULL, wall_time, NULL);
    g_propagate_error(error, g_steal_pointer(&recorder->error));
    return FALSE;
}
