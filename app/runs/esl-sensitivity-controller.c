/* EslSensitivityController: a sensitivity computation on a worker thread. */
#include "esl-sensitivity-controller.h"

#include <gio/gio.h>
#include "eslabon-config.h"
#include "mbs_topology.h"

#include <glib/gi18n-lib.h>
#include <math.h>
#include <string.h>

#include "esl-point-sensitivity.h"
#include "esl-sensitivity-recorder.h"
#include "esl-worker.h"
#include "mbs_run.h"

struct _EslSensitivityController {
    GObject parent_instance;
    const MbsModel *model;
    char *model_name, *formulation, *project_path;
    MbsSettings settings;
    MbsSensitivityMethod method;
    MbsSettings method_options; /* holds the method's table's options when has_method_options */
    gboolean has_method_options;
    int *objectives, *parameters;
    int nobjectives, nparameters;
    int *points; /* esl_sensitivity_controller_set_points */
    int npoints;
    EslPointSensitivity *point_sensitivity; /* made by start, used by the worker */
    gint64 model_id;

    EslWorker *worker;  /* reports EslSensitivityRow* */
    volatile int stop;  /* MbsSensitivityProblem.stop */
    gint run_id;        /* atomic */
    EslRunStatus status;
    char *message;
    double *psi, *gradient;
};

G_DEFINE_FINAL_TYPE(EslSensitivityController, esl_sensitivity_controller, G_TYPE_OBJECT)

enum { SIGNAL_ROWS, SIGNAL_FINISHED, N_SIGNALS };
static guint signals[N_SIGNALS];

void esl_sensitivity_row_free(EslSensitivityRow *row)
{
    if (!row)
        return;
    g_free(row->psi);
    g_free(row->gradient);
    g_free(row->state_sensitivity);
    g_free(row->point_sensitivity);
    g_free(row);
}

static void esl_sensitivity_controller_finalize(GObject *object)
{
    EslSensitivityController *self = ESL_SENSITIVITY_CONTROLLER(object);
    esl_sensitivity_controller_stop(self);
    esl_worker_free(self->worker);
    g_free(self->model_name);
    g_free(self->formulation);
    g_free(self->project_path);
    g_free(self->objectives);
    g_free(self->parameters);
    g_free(self->points);
    esl_point_sensitivity_free(self->point_sensitivity);
    g_free(self->message);
    g_free(self->psi);
    g_free(self->gradient);
    G_OBJECT_CLASS(esl_sensitivity_controller_parent_class)->finalize(object);
}

static void esl_sensitivity_controller_class_init(EslSensitivityControllerClass *klass)
{
    G_OBJECT_CLASS(klass)->finalize = esl_sensitivity_controller_finalize;
    signals[SIGNAL_ROWS] = g_signal_new("rows", G_TYPE_FROM_CLASS(klass), G_SIGNAL_RUN_LAST, 0,
                                        NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_PTR_ARRAY);
    signals[SIGNAL_FINISHED] =
        g_signal_new("finished", G_TYPE_FROM_CLASS(klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                     G_TYPE_NONE, 2, G_TYPE_INT, G_TYPE_STRING);
}

static void esl_sensitivity_controller_init(EslSensitivityController *self)
{
    self->worker = esl_worker_new((GDestroyNotify)esl_sensitivity_row_free);
}

EslSensitivityController *esl_sensitivity_controller_new(
    const MbsModel *model, const char *model_name, const char *formulation,
    const MbsSettings *settings, MbsSensitivityMethod method, const int *objectives,
    int nobjectives, const int *parameters, int nparameters, const char *project_path,
    gint64 model_id)
{
    EslSensitivityController *self = g_object_new(ESL_TYPE_SENSITIVITY_CONTROLLER, NULL);
    self->model = model;
    self->model_name = g_strdup(model_name ? model_name : model->name);
    self->formulation = g_strdup(formulation);
    self->settings = *settings;
    self->method = method;
    self->objectives = g_memdup2(objectives, sizeof(int) * (gsize)nobjectives);
    self->parameters = g_memdup2(parameters, sizeof(int) * (gsize)nparameters);
    self->nobjectives = nobjectives;
    self->nparameters = nparameters;
    self->project_path = g_strdup(project_path);
    self->model_id = model_id;
    return self;
}

/* ---- worker --------------------------------------------------------------------------------- */

typedef struct {
    EslSensitivityController *self;
    EslSensitivityRecorder *recorder; /* or NULL */
    EslSensitivityRow *pending;       /* a row waiting for its state sensitivities */
    gboolean with_state;
    double reported; /* the last progress sent */
    GMutex lock;     /* progress comes from fd's threads */
} Worker;

/* Methods without histories (fd, adjoint) report only how far they are: a row without psi and
 * gradient each time it moved by half a per cent (a direct run's rows carry it already). */
static void on_progress(void *data, double fraction)
{
    Worker *w = data;
    g_mutex_lock(&w->lock);
    if (fraction >= w->reported + 0.005 || (fraction >= 1.0 && w->reported < 1.0)) {
        w->reported = fraction;
        EslSensitivityRow *row = g_new0(EslSensitivityRow, 1);
        row->time = fraction * w->self->settings.duration;
        row->progress = fraction;
        esl_worker_push(w->self->worker, row);
    }
    g_mutex_unlock(&w->lock);
}

static void on_history(void *data, double time, const double *psi, const double *gradient)
{
    Worker *w = data;
    EslSensitivityController *self = w->self;
    if (w->recorder)
        esl_sensitivity_recorder_history(w->recorder, time, psi, gradient);
    EslSensitivityRow *row = g_new0(EslSensitivityRow, 1);
    row->time = time;
    row->progress = self->settings.duration > 0 ? MIN(time / self->settings.duration, 1.0) : 0.0;
    w->reported = MAX(w->reported, row->progress);
    row->psi = g_memdup2(psi, sizeof(double) * (gsize)self->nobjectives);
    row->gradient = g_memdup2(gradient,
                              sizeof(double) * (gsize)self->nobjectives * self->nparameters);
    if (w->with_state) /* state_history follows at the same time */
        w->pending = row;
    else
        esl_worker_push(self->worker, row);
}

static void on_state(void *data, double time, int n, const double *q, const double *sq)
{
    Worker *w = data;
    if (w->recorder)
        esl_sensitivity_recorder_state(w->recorder, time, n, q, sq);
    EslSensitivityRow *row = w->pending;
    w->pending = NULL;
    if (!row || row->time != time) {
        esl_sensitivity_row_free(row);
        return;
    }
    row->n = n;
    row->state_sensitivity = g_memdup2(sq, sizeof(double) * (gsize)n * w->self->nparameters);
    EslPointSensitivity *ps = w->self->point_sensitivity;
    int nr = ps ? esl_point_sensitivity_outputs(ps) : 0;
    double *dr = nr ? g_new(double, (gsize)nr * w->self->nparameters) : NULL;
    if (dr && esl_point_sensitivity_eval(ps, n, q, sq, dr, NULL)) {
        row->npoint_outputs = nr;
        row->point_sensitivity = dr;
        if (w->recorder)
            esl_sensitivity_recorder_points(w->recorder, time, nr, dr);
    } else {
        g_free(dr);
    }
    esl_worker_push(w->self->worker, row);
}

static void compute(GObject *owner)
{
    EslSensitivityController *self = ESL_SENSITIVITY_CONTROLLER(owner);
    Worker w = {.self = self,
                .with_state = mbs_sensitivity_has_state_history(self->formulation, self->method)};
    g_mutex_init(&w.lock);
    EslProject *project = NULL;
    g_autoptr(GError) error = NULL;
    g_autofree char *store_error = NULL;
    if (self->project_path) {
        project = esl_project_open(self->project_path, TRUE, &error);
        EslRunRequest req = {.model_name = self->model_name, .model_id = self->model_id,
                             .formulation = self->formulation, .settings = self->settings};
        EslSensitivityChoice choice = {
            .method = self->method,
            .method_options = self->has_method_options ? &self->method_options : NULL,
            .objectives = self->objectives, .nobjectives = self->nobjectives,
            .parameters = self->parameters, .nparameters = self->nparameters,
            .points = self->points, .npoints = self->point_sensitivity ? self->npoints : 0};
        gint64 run_id =
            project ? esl_sensitivity_recorder_begin(project, &req, self->model, &choice, &error)
                    : 0;
        if (run_id) {
            w.recorder = esl_sensitivity_recorder_new(project, run_id, self->nobjectives,
                                                      self->nparameters);
            g_atomic_int_set(&self->run_id, (gint)run_id); /* row ids stay below 2^31 */
        } else {
            store_error = g_strdup(error->message);
            g_clear_error(&error);
        }
    }
    double *psi = g_new0(double, self->nobjectives);
    double *gradient = g_new0(double, (gsize)self->nobjectives * self->nparameters);
    long steps = mbs_run_step_count(self->settings.duration, self->settings.step);
    MbsSensitivityProblem p = {
        .model = self->model, .formulation = self->formulation, .settings = &self->settings,
        .objectives = self->objectives, .nobjectives = self->nobjectives,
        .parameters = self->parameters, .nparameters = self->nparameters,
        .threads = MAX(1, (int)g_get_num_processors() - 1), /* one core for the window */
        .history = on_history, .history_data = &w,
        .history_every = (int)(steps / ESL_SENSITIVITY_ROWS + 1),
        .state_history = w.with_state ? on_state : NULL, .state_history_data = &w,
        .stop = &self->stop,
        .progress = self->method == MBS_SENSITIVITY_DIRECT ? NULL : on_progress,
        .progress_data = &w,
        .method_options = self->has_method_options ? self->method_options.options.bytes : NULL};
    MbsSensitivityResult r = {.psi = psi, .gradient = gradient};
    MbsError err = {0};
    gint64 t0 = g_get_monotonic_time();
    int failed = mbs_sensitivity_compute(&p, self->method, &r, &err);
    double wall = (g_get_monotonic_time() - t0) * 1e-6;
    esl_sensitivity_row_free(w.pending);
    g_mutex_clear(&w.lock);
    EslRunStatus status = !failed                                       ? ESL_RUN_FINISHED
                          : !strcmp(err.message, MBS_SENSITIVITY_STOPPED) ? ESL_RUN_STOPPED
                                                                          : ESL_RUN_FAILED;
    char *message = failed ? g_strdup(err.message) : NULL;
    if (w.recorder &&
        !esl_sensitivity_recorder_finish(w.recorder, status, failed ? NULL : psi,
                                         failed ? NULL : gradient, message, NULL, wall, &error))
        store_error = g_strdup(error->message);
    esl_sensitivity_recorder_free(w.recorder);
    if (project)
        esl_project_close(project);
    if (store_error) {
        char *joined = g_strdup_printf("%s%snot stored: %s", message ? message : "",
                                       message ? "; " : "", store_error);
        g_free(message);
        message = joined;
    }
    self->status = status;
    self->message = message;
    if (!failed) {
        self->psi = psi;
        self->gradient = gradient;
    } else {
        g_free(psi);
        g_free(gradient);
    }
}

/* ---- main-context side ---------------------------------------------------------------------- */

static void on_rows(GObject *owner, GPtrArray *rows)
{
    g_signal_emit(owner, signals[SIGNAL_ROWS], 0, rows);
}

static void on_finished(GObject *owner)
{
    EslSensitivityController *self = ESL_SENSITIVITY_CONTROLLER(owner);
    g_signal_emit(self, signals[SIGNAL_FINISHED], 0, (int)self->status, self->message);
}

void esl_sensitivity_controller_set_method_options(EslSensitivityController *self,
                                                   const MbsSettings *options)
{
    g_return_if_fail(!esl_worker_is_running(self->worker));
    self->has_method_options = options != NULL;
    if (options)
        self->method_options = *options;
}

void esl_sensitivity_controller_set_points(EslSensitivityController *self, const int *points,
                                           int npoints)
{
    g_return_if_fail(!esl_worker_is_running(self->worker) && npoints >= 0);
    g_free(self->points);
    self->points = g_memdup2(points, sizeof(int) * (gsize)MAX(npoints, 1));
    self->npoints = npoints;
}

gboolean esl_sensitivity_controller_start(EslSensitivityController *self, GError **error)
{
    if (esl_worker_is_running(self->worker)) {
        g_set_error(error, G_IO_ERROR, G_IO_ERROR_BUSY, "this computation has already started");
        return FALSE;
    }
    MbsError err = {0};
    if (!mbs_sensitivity_available(self->formulation, self->method) ||
        mbs_settings_check_run(&self->settings, &err)) {
        g_set_error(error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT, "%s",
                    err.message[0] ? err.message : "the formulation has not this method");
        return FALSE;
    }
    if (self->has_method_options &&
        self->method_options.options_table !=
            mbs_sensitivity_settings(self->formulation, self->method)) {
        g_set_error(error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                    "the options given are not those of %s %s sensitivities",
                    self->formulation, mbs_sensitivity_method_name(self->method));
        return FALSE;
    }
    /* the points' sensitivities come from the states' (methods without them: none) */
    g_clear_pointer(&self->point_sensitivity, esl_point_sensitivity_free);
    if (self->npoints > 0 && mbs_sensitivity_has_state_history(self->formulation, self->method)) {
        self->point_sensitivity = esl_point_sensitivity_new(
            self->model, mbs_formulation_find(self->formulation)->coordinate_kind, self->points,
            self->npoints, self->parameters, self->nparameters, error);
        if (!self->point_sensitivity)
            return FALSE;
    }
    return esl_worker_start(self->worker, "eslabon-sensitivity", G_OBJECT(self), compute,
                            on_rows, on_finished, error);
}

void esl_sensitivity_controller_stop(EslSensitivityController *self)
{
    g_atomic_int_set(&self->stop, 1);
}

void esl_sensitivity_controller_join(EslSensitivityController *self)
{
    esl_sensitivity_controller_stop(self);
    esl_worker_join(self->worker);
}

gboolean esl_sensitivity_controller_is_running(EslSensitivityController *self)
{
    return esl_worker_is_running(self->worker);
}

gint64 esl_sensitivity_controller_get_run_id(EslSensitivityController *self)
{
    return g_atomic_int_get(&self->run_id);
}

EslRunStatus esl_sensitivity_controller_get_status(EslSensitivityController *self)
{
    return self->status;
}

const char *esl_sensitivity_controller_get_message(EslSensitivityController *self)
{
    return self->message;
}

const double *esl_sensitivity_controller_get_psi(EslSensitivityController *self)
{
    return self->psi;
}

const double *esl_sensitivity_controller_get_gradient(EslSensitivityController *self)
{
    return self->gradient;
}

int esl_sensitivity_state_coordinates(const MbsModel *m, MbsCoordinateKind kind, GArray *index,
                                      GPtrArray *names)
{
    if (kind == MBS_COORDINATES_RELATIVE) {
        for (int i = 0; i < m->topo->nnodes; i++) {
            const MbsNode *node = &m->topo->nodes[i];
            const char *joint = m->joints[node->joint].name;
            g_ptr_array_add(names, node->joint_coord > 0
                                       ? g_strdup_printf(_("joint %s[%d]"), joint,
                                                         node->joint_coord)
                                       : g_strdup_printf(_("joint %s"), joint));
            g_array_append_val(index, i);
        }
    } else {
        static const char *const axes[] = {"x", "y", "z"};
        for (int b = 0, off = 0; b < m->nbodies; b++) {
            if (b == m->ground)
                continue; /* 12 natural coordinates per moving body, r first (mbs_natural.h) */
            for (int a = 0; a < 3; a++) {
                int i = off + a;
                g_array_append_val(index, i);
                g_ptr_array_add(names, g_strdup_printf("%s.%s", m->bodies[b].name, axes[a]));
            }
            off += 12;
        }
    }
    return (int)index->len;
}
