/* EslOptimizationController: a design optimisation on a worker thread. */
#include "esl-optimization-controller.h"

#include <gio/gio.h>
#include "eslabon-config.h"

#include <glib/gi18n-lib.h>
#include <string.h>

#include "esl-optimization-recorder.h"
#include "esl-worker.h"

struct _EslOptimizationController {
    GObject parent_instance;
    EslOptimizerProblem problem; /* its arrays and strings below are owned */
    char *formulation;
    MbsSettings settings;
    MbsSettings method_options;
    int *parameters;
    double *lower, *upper, *start;
    MbsSettings *given_options; /* &method_options when given, else NULL */
    char *project_path, *model_name; /* where it is stored (NULL: nowhere) */
    gint64 model_id;
    EslWorker *worker; /* reports EslOptimizationEvaluation* */
    volatile int stop;
    EslOptimizerResult result; /* written by the worker, read after "finished" */
    char *message;     /* the result's message, and what could not be stored */
    gint run_id;       /* atomic */
};

G_DEFINE_FINAL_TYPE(EslOptimizationController, esl_optimization_controller, G_TYPE_OBJECT)

enum { SIGNAL_EVALUATIONS, SIGNAL_FINISHED, N_SIGNALS };
static guint signals[N_SIGNALS];

void esl_optimization_evaluation_free(EslOptimizationEvaluation *evaluation)
{
    if (!evaluation)
        return;
    g_free(evaluation->gradient);
    g_free(evaluation->x);
    g_free(evaluation);
}

static void esl_optimization_controller_finalize(GObject *object)
{
    EslOptimizationController *self = ESL_OPTIMIZATION_CONTROLLER(object);
    esl_optimization_controller_stop(self);
    esl_worker_free(self->worker);
    g_free(self->formulation);
    g_free(self->parameters);
    g_free(self->lower);
    g_free(self->upper);
    g_free(self->start);
    g_free(self->project_path);
    g_free(self->model_name);
    g_free(self->message);
    esl_optimizer_result_clear(&self->result);
    G_OBJECT_CLASS(esl_optimization_controller_parent_class)->finalize(object);
}

static void esl_optimization_controller_class_init(EslOptimizationControllerClass *klass)
{
    G_OBJECT_CLASS(klass)->finalize = esl_optimization_controller_finalize;
    signals[SIGNAL_EVALUATIONS] =
        g_signal_new("evaluations", G_TYPE_FROM_CLASS(klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL,
                     NULL, G_TYPE_NONE, 1, G_TYPE_PTR_ARRAY);
    signals[SIGNAL_FINISHED] =
        g_signal_new("finished", G_TYPE_FROM_CLASS(klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                     G_TYPE_NONE, 2, G_TYPE_INT, G_TYPE_STRING);
}

static void esl_optimization_controller_init(EslOptimizationController *self)
{
    self->worker = esl_worker_new((GDestroyNotify)esl_optimization_evaluation_free);
}

static double *copy_numbers(const double *numbers, int n)
{
    return numbers ? g_memdup2(numbers, sizeof(double) * (gsize)n) : NULL;
}

EslOptimizationController *esl_optimization_controller_new(const EslOptimizerProblem *problem,
                                                           const MbsSettings *method_options)
{
    EslOptimizationController *self = g_object_new(ESL_TYPE_OPTIMIZATION_CONTROLLER, NULL);
    int n = MAX(problem->nparameters, 0);
    self->problem = *problem;
    self->formulation = g_strdup(problem->formulation);
    self->settings = *problem->settings;
    self->parameters = g_memdup2(problem->parameters, sizeof(int) * (gsize)MAX(n, 1));
    self->lower = copy_numbers(problem->lower, n);
    self->upper = copy_numbers(problem->upper, n);
    self->start = copy_numbers(problem->start, n);
    self->problem.formulation = self->formulation;
    self->problem.settings = &self->settings;
    self->problem.parameters = self->parameters;
    self->problem.lower = self->lower;
    self->problem.upper = self->upper;
    self->problem.start = self->start;
    self->problem.method_options = NULL;
    if (method_options) {
        self->method_options = *method_options;
        self->given_options = &self->method_options;
        self->problem.method_options = self->method_options.options.bytes;
    }
    self->problem.stop = &self->stop;
    return self;
}

/* ---- worker --------------------------------------------------------------------------------- */

typedef struct {
    EslOptimizationController *self;
    EslProject *project;               /* the worker's own connection, or NULL */
    EslOptimizationRecorder *recorder; /* NULL: not stored */
    char *error; /* what could not be stored (the first error) */
} Worker;

static void store_failed(Worker *w, GError *error)
{
    if (!w->error)
        w->error = g_strdup(error ? error->message : "unknown error");
}

static void on_evaluation(void *data, int index, double psi, const double *gradient,
                          const double *x, int n)
{
    Worker *w = data;
    EslOptimizationEvaluation *e = g_new0(EslOptimizationEvaluation, 1);
    e->index = index;
    e->psi = psi;
    e->n = n;
    e->gradient = copy_numbers(gradient, n);
    e->x = copy_numbers(x, n);
    esl_worker_push(w->self->worker, e);
    if (w->recorder)
        esl_optimization_recorder_evaluation(w->recorder, psi, gradient, x);
}

static void store_begin(Worker *w)
{
    EslOptimizationController *self = w->self;
    g_autoptr(GError) error = NULL;
    w->project = esl_project_open(self->project_path, TRUE, &error);
    w->recorder = w->project ? esl_optimization_recorder_begin(w->project, self->model_id,
                                                               self->model_name, &self->problem,
                                                               self->given_options, &error)
                             : NULL;
    if (!w->recorder) {
        store_failed(w, error);
        return;
    }
    /* row ids stay below 2^31 */
    g_atomic_int_set(&self->run_id, (gint)esl_optimization_recorder_run_id(w->recorder));
}

static void store_end(Worker *w, double wall)
{
    g_autoptr(GError) error = NULL;
    if (w->recorder &&
        !esl_optimization_recorder_finish(w->recorder, &w->self->result, wall, &error))
        store_failed(w, error);
    esl_optimization_recorder_free(w->recorder);
    if (w->project)
        esl_project_close(w->project);
}

static void optimise(GObject *owner)
{
    EslOptimizationController *self = ESL_OPTIMIZATION_CONTROLLER(owner);
    Worker w = {.self = self};
    if (self->project_path)
        store_begin(&w);
    EslOptimizerProblem p = self->problem;
    p.evaluation = on_evaluation;
    p.evaluation_data = &w;
    gint64 t0 = g_get_monotonic_time();
    esl_optimizer_run(&p, &self->result, NULL);
    store_end(&w, (g_get_monotonic_time() - t0) * 1e-6);
    const char *message = self->result.message;
    self->message = w.error ? g_strdup_printf("%s%s%s %s", message ? message : "",
                                              message ? "; " : "", _("not stored:"), w.error)
                            : g_strdup(message);
    g_free(w.error);
}

/* ---- main-context side ---------------------------------------------------------------------- */

static void on_evaluations(GObject *owner, GPtrArray *evaluations)
{
    g_signal_emit(owner, signals[SIGNAL_EVALUATIONS], 0, evaluations);
}

static void on_finished(GObject *owner)
{
    EslOptimizationController *self = ESL_OPTIMIZATION_CONTROLLER(owner);
    g_signal_emit(self, signals[SIGNAL_FINISHED], 0, (int)self->result.status, self->message);
}

gboolean esl_optimization_controller_start(EslOptimizationController *self, GError **error)
{
    if (esl_worker_is_running(self->worker)) {
        g_set_error(error, G_IO_ERROR, G_IO_ERROR_BUSY, _("the optimisation is running"));
        return FALSE;
    }
    /* what the optimiser or the method refuses at once is said here, not after a thread */
    g_autofree double *x = g_new0(double, MAX(self->problem.nparameters, 1));
    if (!esl_optimizer_check(&self->problem, x, error))
        return FALSE;
    if (self->problem.method_options &&
        self->method_options.options_table !=
            mbs_sensitivity_settings(self->formulation, self->problem.method)) {
        g_set_error(error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                    _("the options given are not those of %s %s sensitivities"),
                    self->formulation, mbs_sensitivity_method_name(self->problem.method));
        return FALSE;
    }
    esl_optimizer_result_clear(&self->result);
    g_clear_pointer(&self->message, g_free);
    g_atomic_int_set(&self->stop, 0);
    g_atomic_int_set(&self->run_id, 0);
    return esl_worker_start(self->worker, "eslabon-optimize", G_OBJECT(self), optimise,
                            on_evaluations, on_finished, error);
}

void esl_optimization_controller_stop(EslOptimizationController *self)
{
    g_atomic_int_set(&self->stop, 1);
}

void esl_optimization_controller_join(EslOptimizationController *self)
{
    esl_optimization_controller_stop(self);
    esl_worker_join(self->worker);
}

gboolean esl_optimization_controller_is_running(EslOptimizationController *self)
{
    return esl_worker_is_running(self->worker);
}

const EslOptimizerResult *esl_optimization_controller_get_result(EslOptimizationController *self)
{
    return &self->result;
}

void esl_optimization_controller_set_project(EslOptimizationController *self,
                                             const char *project_path, gint64 model_id,
                                             const char *model_name)
{
    g_return_if_fail(!esl_worker_is_running(self->worker));
    g_free(self->project_path);
    self->project_path = g_strdup(project_path);
    g_free(self->model_name);
    self->model_name = g_strdup(model_name ? model_name : self->problem.model->name);
    self->model_id = model_id;
}

gint64 esl_optimization_controller_get_run_id(EslOptimizationController *self)
{
    return g_atomic_int_get(&self->run_id);
}

const char *esl_optimization_controller_get_message(EslOptimizationController *self)
{
    return self->message;
}
