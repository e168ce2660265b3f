/* Worker thread per run; see esl-run-controller.h. */
#include "esl-run-controller.h"

#include <gio/gio.h>
#include <math.h>

#include "mbs_run.h"

#define DEFAULT_SAMPLES_PER_RUN 2000

typedef enum { EVENT_SAMPLE, EVENT_FINISHED } EventKind;

typedef struct {
    EventKind kind;
    EslRunSample *sample;
} Event;

struct _EslRunController {
    GObject parent_instance;

    const MbsModel *model;
    char *model_name, *formulation, *project_path;
    MbsSettings settings;
    gint64 model_id;
    int sample_every;

    GThread *thread;
    GMainContext *context;
    GAsyncQueue *queue; /* Event* from the worker */
    gint idle_pending;  /* atomic */

    GMutex lock; /* protects everything below */
    GCond cond;
    gboolean paused, stop_requested, running;
    double pace_speed;     /* simulated s per wall s; 0: as fast as it computes */
    gint64 pace_origin_us; /* monotonic time at which simulated time 0 would have been shown; 0:
                              anchor at the next step (after a start, resume or new speed) */
    double sim_time, wall_time;
    long steps;
    gint64 run_id;
    EslRunStatus status;
    char *message;
};

G_DEFINE_FINAL_TYPE(EslRunController, esl_run_controller, G_TYPE_OBJECT)

enum { SIGNAL_SAMPLES, SIGNAL_FINISHED, N_SIGNALS };
static guint signals[N_SIGNALS];

static void event_free(Event *e)
{
    esl_run_sample_free(e->sample);
    g_free(e);
}

static void esl_run_controller_finalize(GObject *object)
{
    EslRunController *self = ESL_RUN_CONTROLLER(object);
    esl_run_controller_join(self);
    Event *e;
    while ((e = g_async_queue_try_pop(self->queue)))
        event_free(e);
    g_async_queue_unref(self->queue);
    g_main_context_unref(self->context);
    g_mutex_clear(&self->lock);
    g_cond_clear(&self->cond);
    g_free(self->model_name);
    g_free(self->formulation);
    g_free(self->project_path);
    g_free(self->message);
    G_OBJECT_CLASS(esl_run_controller_parent_class)->finalize(object);
}

static void esl_run_controller_class_init(EslRunControllerClass *klass)
{
    G_OBJECT_CLASS(klass)->finalize = esl_run_controller_finalize;
    signals[SIGNAL_SAMPLES] = g_signal_new("samples", G_TYPE_FROM_CLASS(klass), G_SIGNAL_RUN_LAST,
                                           0, NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_PTR_ARRAY);
    signals[SIGNAL_FINISHED] =
        g_signal_new("finished", G_TYPE_FROM_CLASS(klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                     G_TYPE_NONE, 2, G_TYPE_INT, G_TYPE_STRING);
}

static void esl_run_controller_init(EslRunController *self)
{
    g_mutex_init(&self->lock);
    g_cond_init(&self->cond);
    self->queue = g_async_queue_new();
    self->context = g_main_context_ref_thread_default();
}

EslRunController *esl_run_controller_new(const MbsModel *model, const char *model_name,
                                         const char *formulation, const MbsSettings *settings,
                                         const char *project_path, gint64 model_id)
{
    EslRunController *self = g_object_new(ESL_TYPE_RUN_CONTROLLER, NULL);
    self->model = model;
    self->model_name = g_strdup(model_name ? model_name : model->name);
    self->formulation = g_strdup(formulation);
    self->settings = *settings;
    /* "As many as there are cores" would leave none to the window that shows the run. */
    int *threads = mbs_settings_value_for(&self->settings, formulation, "threads");
    if (threads && *threads <= 0)
        *threads = MAX(1, (int)g_get_num_processors() - 1);
    self->project_path = g_strdup(project_path);
    self->model_id = model_id;
    double steps = settings->step > 0 ? settings->duration / settings->step : 1.0;
    /* the run refuses more steps (mbs_settings_check_run); (int) of more is undefined */
    steps = isfinite(steps) ? fmin(steps, MBS_SETTINGS_STEPS_MAX) : 1.0;
    self->sample_every = MAX(1, (int)ceil(steps / DEFAULT_SAMPLES_PER_RUN));
    return self;
}

void esl_run_controller_set_sample_every(EslRunController *self, int steps)
{
    self->sample_every = MAX(1, steps);
}

/* ---- main-context side ------------------------------------------------------------------ */

static gboolean drain(gpointer data)
{
    EslRunController *self = data;
    g_atomic_int_set(&self->idle_pending, 0);
    g_autoptr(GPtrArray) samples = g_ptr_array_new_with_free_func(
        (GDestroyNotify)esl_run_sample_free);
    gboolean finished = FALSE;
    Event *e;
    while ((e = g_async_queue_try_pop(self->queue))) {
        if (e->kind == EVENT_SAMPLE)
            g_ptr_array_add(samples, g_steal_pointer(&e->sample));
        else
            finished = TRUE;
        event_free(e);
    }
    if (samples->len)
        g_signal_emit(self, signals[SIGNAL_SAMPLES], 0, samples);
    if (finished) {
        esl_run_controller_join(self);
        g_signal_emit(self, signals[SIGNAL_FINISHED], 0, (int)self->status, self->message);
        g_object_unref(self); /* the reference taken by esl_run_controller_start */
    }
    return G_SOURCE_REMOVE;
}

/* Worker side: make sure one drain is scheduled on the controller's main context. */
static void push_event(EslRunController *self, EventKind kind, EslRunSample *sample)
{
    Event *e = g_new0(Event, 1);
    e->kind = kind;
    e->sample = sample;
    g_async_queue_push(self->queue, e);
    if (g_atomic_int_compare_and_exchange(&self->idle_pending, 0, 1)) {
        GSource *idle = g_idle_source_new();
        /* Above redraws: a busy UI must still receive samples. */
        g_source_set_priority(idle, G_PRIORITY_DEFAULT);
        g_source_set_callback(idle, drain, g_object_ref(self), g_object_unref);
        g_source_attach(idle, self->context);
        g_source_unref(idle);
    }
}

/* ---- worker ----------------------------------------------------------------------------- */

static gboolean monitors_finite(const MbsMonitors *m)
{
    return mbs_monitors_non_finite(m) == NULL;
}

static void push_sample(EslRunSample *sample, gpointer data)
{
    push_event(data, EVENT_SAMPLE, sample);
}

/* The worker's view of a run, shared with the driver's observer. */
typedef struct {
    EslRunController *self;
    EslRunRecorder *recorder;
    GTimer *wall;           /* time spent stepping */
    EslRunStatus status;
    char *message;
} Worker;

/* Observer of every internal step of formulations with their own steps: the recorder keeps
 * the step-size history. */
static void observe_internal_step(void *data, double t, double h, int order)
{
    Worker *w = data;
    esl_run_recorder_internal_step(w->recorder, t, h, order);
}

/* Real-time pacing (lock held): wait until the wall time since the anchor is the simulated time
 * over the speed, or until a pause, stop or new speed. A step slower than that is not waited
 * for: the run then goes as fast as it computes. */
static void pace(EslRunController *self, double sim_time)
{
    if (!(self->pace_speed > 0))
        return;
    gint64 now = g_get_monotonic_time();
    gint64 ahead_us = (gint64)(sim_time / self->pace_speed * 1e6);
    if (self->pace_origin_us == 0 || now - self->pace_origin_us > ahead_us)
        self->pace_origin_us = now - ahead_us; /* (re)anchor: behind is not caught up later */
    gint64 until = self->pace_origin_us + ahead_us;
    double speed = self->pace_speed;
    while (!self->stop_requested && !self->paused && self->pace_speed == speed &&
           g_get_monotonic_time() < until)
        g_cond_wait_until(&self->cond, &self->lock, until);
}

/* Observer on every grid step: progress, samples, then pause and stop (before the next step). */
static int observe(void *data, const MbsRun *run)
{
    Worker *w = data;
    EslRunController *self = w->self;
    const MbsFormulation *f = mbs_run_formulation(run);
    g_timer_stop(w->wall);
    if (!monitors_finite(&f->monitors)) {
        w->status = ESL_RUN_FAILED;
        w->message = g_strdup_printf("non-finite energy or constraint norm at t = %.6g s",
                                     f->time);
        return 1;
    }
    g_mutex_lock(&self->lock);
    self->sim_time = f->time;
    self->steps = mbs_run_grid_steps(run);
    self->wall_time = g_timer_elapsed(w->wall, NULL);
    g_mutex_unlock(&self->lock);
    esl_run_recorder_observe(w->recorder, run);
    g_mutex_lock(&self->lock);
    pace(self, f->time);
    while (self->paused && !self->stop_requested)
        g_cond_wait(&self->cond, &self->lock);
    gboolean stop = self->stop_requested;
    g_mutex_unlock(&self->lock);
    if (stop && mbs_run_grid_steps(run) < mbs_run_step_count(f->settings.duration,
                                                              f->settings.step)) {
        w->status = ESL_RUN_STOPPED;
        w->message = g_strdup_printf("stopped by the user at t = %.6g s", f->time);
        return 1;
    }
    g_timer_continue(w->wall);
    return 0;
}

static void set_outcome(EslRunController *self, EslRunStatus status, char *message)
{
    g_mutex_lock(&self->lock);
    self->status = status;
    g_free(self->message);
    self->message = message;
    g_mutex_unlock(&self->lock);
}

static gpointer worker(gpointer data)
{
    EslRunController *self = data;
    const MbsModel *m = self->model;
    EslProject *project = NULL;
    gint64 run_id = 0;
    g_autofree char *store_error = NULL;
    g_autoptr(GTimer) wall = g_timer_new();
    g_timer_stop(wall);
    g_autoptr(EslRunRecorder) recorder = esl_run_recorder_new(m);
    Worker w = {.self = self, .recorder = recorder, .wall = wall, .status = ESL_RUN_FINISHED};
    MbsRun *run = NULL;

    if (self->project_path) {
        g_autoptr(GError) error = NULL;
        project = esl_project_open(self->project_path, FALSE, &error);
        EslRunRequest request = {.model_name = self->model_name, .model_id = self->model_id,
                                 .formulation = self->formulation, .settings = self->settings,
                                 .nbodies = m->nbodies, .njoints = m->njoints};
        if (project)
            run_id = esl_project_begin_run(project, &request, &error);
        if (!run_id) {
            store_error = g_strdup(error ? error->message : "cannot open the project");
            g_clear_pointer(&project, esl_project_close);
        }
        g_mutex_lock(&self->lock);
        self->run_id = run_id;
        g_mutex_unlock(&self->lock);
    }

    esl_run_recorder_set_project(recorder, project, run_id); /* also closes a refused run */
    MbsError err = {0};
    MbsFormulation *f = mbs_settings_check_run(&self->settings, &err)
                            ? NULL
                            : mbs_formulation_new(self->formulation, m, &self->settings, &err);
    MbsRunObserver observer = {
        .sample = observe, .internal_step = observe_internal_step, .data = &w, .every = 1};
    run = f ? mbs_run_new(f, NULL, &observer, &err) : NULL;
    if (!run) {
        w.status = ESL_RUN_FAILED;
        w.message = g_strdup_printf("the %s formulation cannot start: %s", self->formulation,
                                    err.message);
    } else {
        const double duration = f->settings.duration;
        esl_run_recorder_set_sample_every(recorder, self->sample_every,
                                          mbs_run_step_count(duration, f->settings.step));
        esl_run_recorder_set_sample_func(recorder, push_sample, self);
        g_timer_continue(wall);
        if (mbs_run_advance(run, duration) == MBS_RUN_FAILED) {
            w.status = ESL_RUN_FAILED;
            w.message = g_strdup_printf("step %ld failed at t = %.6g s: %s",
                                        mbs_run_grid_steps(run) + 1, f->time,
                                        mbs_run_error(run)->message);
        }
        if (g_timer_is_active(wall)) /* a stopping observer has stopped it already */
            g_timer_stop(wall);
    }

    double wall_time = g_timer_elapsed(wall, NULL);
    /* a finished run's energy warning (issue 28): stored as its message and announced */
    g_autofree char *warning = run && !w.message ? esl_run_warning(run) : NULL;
    if (project) {
        static const char *const status_names[] = {
            [ESL_RUN_RUNNING] = "running", [ESL_RUN_FINISHED] = "finished",
            [ESL_RUN_STOPPED] = "stopped", [ESL_RUN_FAILED] = "failed"};
        g_autofree char *summary = NULL;
        if (run) {
            EslRunSummaryInfo info = {.model_name = self->model_name,
                                      .formulation = self->formulation,
                                      .status = status_names[w.status], .message = w.message,
                                      .wall_seconds = wall_time};
            summary = esl_run_summary_json(&info, run, FALSE);
        }
        g_autoptr(GError) error = NULL;
        if (!esl_run_recorder_finish(recorder, w.status, w.message ? w.message : warning,
                                     summary, wall_time, &error))
            store_error = g_strdup(error->message);
        esl_project_close(project);
    }
    mbs_run_free(run);
    mbs_formulation_free(f);
    if (warning)
        w.message = g_steal_pointer(&warning);
    if (store_error) {
        char *joined = g_strdup_printf("%s%sthe run was not fully stored: %s",
                                       w.message ? w.message : "", w.message ? "; " : "",
                                       store_error);
        g_free(w.message);
        w.message = joined;
    }
    g_mutex_lock(&self->lock);
    self->wall_time = wall_time;
    g_mutex_unlock(&self->lock);
    set_outcome(self, w.status, w.message);
    push_event(self, EVENT_FINISHED, NULL);
    return NULL;
}

gboolean esl_run_controller_start(EslRunController *self, GError **error)
{
    if (self->thread) {
        g_set_error(error, G_IO_ERROR, G_IO_ERROR_BUSY, "this run has already been started");
        return FALSE;
    }
    if (!mbs_formulation_find(self->formulation)) {
        g_set_error(error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND, "unknown formulation '%s'",
                    self->formulation);
        return FALSE;
    }
    /* Kept alive until "finished" has been emitted on the main context. */
    g_object_ref(self);
    self->running = TRUE;
    self->thread = g_thread_try_new("eslabon-run", worker, self, error);
    if (!self->thread) {
        self->running = FALSE;
        g_object_unref(self);
        return FALSE;
    }
    return TRUE;
}

void esl_run_controller_set_pacing(EslRunController *self, double speed)
{
    g_mutex_lock(&self->lock);
    self->pace_speed = speed > 0 && isfinite(speed) ? speed : 0.0;
    self->pace_origin_us = 0;
    g_cond_broadcast(&self->cond);
    g_mutex_unlock(&self->lock);
}

void esl_run_controller_pause(EslRunController *self)
{
    g_mutex_lock(&self->lock);
    self->paused = TRUE;
    g_cond_broadcast(&self->cond); /* out of a pacing wait */
    g_mutex_unlock(&self->lock);
}

void esl_run_controller_resume(EslRunController *self)
{
    g_mutex_lock(&self->lock);
    self->paused = FALSE;
    self->pace_origin_us = 0;
    g_cond_broadcast(&self->cond);
    g_mutex_unlock(&self->lock);
}

void esl_run_controller_stop(EslRunController *self)
{
    g_mutex_lock(&self->lock);
    self->stop_requested = TRUE;
    g_cond_broadcast(&self->cond);
    g_mutex_unlock(&self->lock);
}

void esl_run_controller_join(EslRunController *self)
{
    if (!self->thread)
        return;
    esl_run_controller_stop(self);
    g_thread_join(self->thread);
    self->thread = NULL;
    self->running = FALSE;
}

gboolean esl_run_controller_is_running(EslRunController *self)
{
    return self->running;
}

gboolean esl_run_controller_is_paused(EslRunController *self)
{
    g_mutex_lock(&self->lock);
    gboolean paused = self->paused;
    g_mutex_unlock(&self->lock);
    return paused;
}

gint64 esl_run_controller_get_run_id(EslRunController *self)
{
    g_mutex_lock(&self->lock);
    gint64 id = self->run_id;
    g_mutex_unlock(&self->lock);
    return id;
}

void esl_run_controller_progress(EslRunController *self, double *sim_time, long *steps,
                                 double *wall_time)
{
    g_mutex_lock(&self->lock);
    if (sim_time)
        *sim_time = self->sim_time;
    if (steps)
        *steps = self->steps;
    if (wall_time)
        *wall_time = self->wall_time;
    g_mutex_unlock(&self->lock);
}

EslRunStatus esl_run_controller_get_status(EslRunController *self)
{
    return self->status;
}

const char *esl_run_controller_get_message(EslRunController *self)
{
    return self->message;
}
