/* Worker thread per run; see esl-run-controller.h. */
#include "esl-run-controller.h"

#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>

/* Samples are written to the project in batches of at most this many, or this often. */
#define STORE_BATCH 128
#define STORE_INTERVAL 0.25 /* s of wall time */
#define DEFAULT_SAMPLES_PER_RUN 2000

EslRunSample *esl_run_sample_new(int nbodies, int njoints)
{
    EslRunSample *s = g_new0(EslRunSample, 1);
    s->nbodies = nbodies;
    s->njoints = njoints;
    s->poses = g_new0(double, (gsize)nbodies * 12 + 1);
    s->violations = g_new0(double, (gsize)njoints + 1);
    return s;
}

EslRunSample *esl_run_sample_copy(const EslRunSample *sample)
{
    EslRunSample *s = esl_run_sample_new(sample->nbodies, sample->njoints);
    s->monitors = sample->monitors;
    s->step = sample->step;
    memcpy(s->poses, sample->poses, sizeof(double) * (gsize)sample->nbodies * 12);
    memcpy(s->violations, sample->violations, sizeof(double) * (gsize)sample->njoints);
    return s;
}

void esl_run_sample_free(EslRunSample *sample)
{
    if (!sample)
        return;
    g_free(sample->poses);
    g_free(sample->violations);
    g_free(sample);
}

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

typedef struct {
    EslProject *project;
    gint64 run_id;
    GArray *monitors, *poses, *violations;
    GTimer *since_flush;
    char *error; /* first storage error; storing stops after it */
} Store;

static void store_flush(Store *st)
{
    if (!st->project || st->error || st->monitors->len == 0)
        return;
    g_autoptr(GError) error = NULL;
    if (!esl_project_append_samples(st->project, st->run_id,
                                    (const MbsMonitors *)st->monitors->data,
                                    (const double *)st->poses->data,
                                    (const double *)st->violations->data,
                                    (int)st->monitors->len, &error))
        st->error = g_strdup(error->message);
    g_array_set_size(st->monitors, 0);
    g_array_set_size(st->poses, 0);
    g_array_set_size(st->violations, 0);
    g_timer_start(st->since_flush);
}

static EslRunSample *take_sample(const MbsFormulation *f)
{
    const MbsModel *m = f->model;
    EslRunSample *s = esl_run_sample_new(m->nbodies, m->njoints);
    s->monitors = f->monitors;
    s->monitors.time = f->time;
    s->step = f->steps;
    for (int b = 0; b < m->nbodies; b++)
        mbs_formulation_body_pose(f, b, s->poses + 12 * b, s->poses + 12 * b + 9);
    for (int j = 0; j < m->njoints; j++)
        s->violations[j] = f->klass->joint_violation ? f->klass->joint_violation(f, j) : 0.0;
    return s;
}

static void record(EslRunController *self, Store *st, const MbsFormulation *f)
{
    EslRunSample *s = take_sample(f);
    if (st->project && !st->error) {
        g_array_append_val(st->monitors, s->monitors);
        g_array_append_vals(st->poses, s->poses, (guint)s->nbodies * 12);
        g_array_append_vals(st->violations, s->violations, (guint)s->njoints);
        if (st->monitors->len >= STORE_BATCH ||
            g_timer_elapsed(st->since_flush, NULL) > STORE_INTERVAL)
            store_flush(st);
    }
    push_event(self, EVENT_SAMPLE, s);
}

static gboolean monitors_finite(const MbsMonitors *m)
{
    return isfinite(m->kinetic) && isfinite(m->potential_gravity) &&
           isfinite(m->potential_elastic) && isfinite(m->work_nonconservative) &&
           isfinite(m->total) && isfinite(m->phi_norm) && isfinite(m->dphi_norm) &&
           isfinite(m->ddphi_norm);
}

/* Running extremes over every step, for the summary. */
typedef struct {
    double energy0, max_drift, max_phi, max_dphi, max_ddphi, newton_sum, step_time_sum;
    long steps;
} Stats;

static void stats_add(Stats *s, const MbsMonitors *m)
{
    s->max_drift = fmax(s->max_drift, fabs(m->total - s->energy0));
    s->max_phi = fmax(s->max_phi, m->phi_norm);
    s->max_dphi = fmax(s->max_dphi, m->dphi_norm);
    s->max_ddphi = fmax(s->max_ddphi, m->ddphi_norm);
    s->newton_sum += m->newton_iterations;
    s->step_time_sum += m->time_step;
    s->steps++;
}

static char *summary_json(const EslRunController *self, const Stats *s, double sim_time,
                          double wall)
{
    g_autoptr(JsonBuilder) b = json_builder_new();
    json_builder_begin_object(b);
#define MEMBER_DOUBLE(name, value)                                                               \
    do {                                                                                         \
        double v_ = (value);                                                                     \
        json_builder_set_member_name(b, name);                                                   \
        if (isfinite(v_))                                                                        \
            json_builder_add_double_value(b, v_);                                                \
        else                                                                                     \
            json_builder_add_null_value(b);                                                      \
    } while (0)
    json_builder_set_member_name(b, "formulation");
    json_builder_add_string_value(b, self->formulation);
    json_builder_set_member_name(b, "steps");
    json_builder_add_int_value(b, s->steps);
    MEMBER_DOUBLE("final_time", sim_time);
    MEMBER_DOUBLE("wall_time", wall);
    MEMBER_DOUBLE("real_time_factor", wall > 0 ? sim_time / wall : 0.0);
    MEMBER_DOUBLE("initial_energy", s->energy0);
    MEMBER_DOUBLE("max_energy_drift", s->max_drift);
    MEMBER_DOUBLE("max_phi", s->max_phi);
    MEMBER_DOUBLE("max_dphi", s->max_dphi);
    MEMBER_DOUBLE("max_ddphi", s->max_ddphi);
    MEMBER_DOUBLE("mean_newton_iterations", s->steps ? s->newton_sum / s->steps : 0.0);
    MEMBER_DOUBLE("mean_step_time", s->steps ? s->step_time_sum / s->steps : 0.0);
#undef MEMBER_DOUBLE
    json_builder_end_object(b);
    g_autoptr(JsonNode) root = json_builder_get_root(b);
    return json_to_string(root, FALSE);
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
    Store st = {0};
    st.monitors = g_array_new(FALSE, FALSE, sizeof(MbsMonitors));
    st.poses = g_array_new(FALSE, FALSE, sizeof(double));
    st.violations = g_array_new(FALSE, FALSE, sizeof(double));
    st.since_flush = g_timer_new();
    g_autoptr(GTimer) wall = g_timer_new(); /* time spent stepping */
    g_timer_stop(wall);
    EslRunStatus status = ESL_RUN_FINISHED;
    char *message = NULL;
    Stats stats = {0};
    double sim_time = 0.0;

    if (self->project_path) {
        g_autoptr(GError) error = NULL;
        st.project = esl_project_open(self->project_path, FALSE, &error);
        EslRunRequest request = {.model_name = self->model_name, .model_id = self->model_id,
                                 .formulation = self->formulation, .settings = self->settings,
                                 .nbodies = m->nbodies, .njoints = m->njoints};
        if (st.project)
            st.run_id = esl_project_begin_run(st.project, &request, &error);
        if (!st.run_id) {
            st.error = g_strdup(error ? error->message : "cannot open the project");
            g_clear_pointer(&st.project, esl_project_close);
        }
        g_mutex_lock(&self->lock);
        self->run_id = st.run_id;
        g_mutex_unlock(&self->lock);
    }

    MbsError err = {0};
    MbsFormulation *f = mbs_formulation_new(self->formulation, m, &self->settings, &err);
    if (!f) {
        status = ESL_RUN_FAILED;
        message = g_strdup_printf("the %s formulation cannot start: %s", self->formulation,
                                  err.message);
    } else {
        stats.energy0 = f->monitors.total;
        record(self, &st, f);
        const double h = f->settings.step, duration = f->settings.duration;
        while (f->time < duration - 0.5 * h) {
            g_mutex_lock(&self->lock);
            while (self->paused && !self->stop_requested)
                g_cond_wait(&self->cond, &self->lock);
            gboolean stop = self->stop_requested;
            g_mutex_unlock(&self->lock);
            if (stop) {
                status = ESL_RUN_STOPPED;
                message = g_strdup_printf("stopped by the user at t = %.6g s", f->time);
                break;
            }
            g_timer_continue(wall);
            int rc = mbs_formulation_step(f, &err);
            g_timer_stop(wall);
            if (rc != 0) {
                status = ESL_RUN_FAILED;
                message = g_strdup_printf("step %ld failed at t = %.6g s: %s", f->steps + 1,
                                          f->time, err.message);
                break;
            }
            if (!monitors_finite(&f->monitors)) {
                status = ESL_RUN_FAILED;
                message = g_strdup_printf("non-finite energy or constraint norm at t = %.6g s",
                                          f->time);
                break;
            }
            stats_add(&stats, &f->monitors);
            g_mutex_lock(&self->lock);
            self->sim_time = f->time;
            self->steps = f->steps;
            self->wall_time = g_timer_elapsed(wall, NULL);
            g_mutex_unlock(&self->lock);
            gboolean last = f->time >= duration - 0.5 * h;
            if (f->steps % self->sample_every == 0 || last)
                record(self, &st, f);
        }
        sim_time = f->time;
        mbs_formulation_free(f);
    }

    double wall_time = g_timer_elapsed(wall, NULL);
    store_flush(&st);
    if (st.project) {
        g_autofree char *summary = summary_json(self, &stats, sim_time, wall_time);
        g_autoptr(GError) error = NULL;
        if (!esl_project_finish_run(st.project, st.run_id, status, message, summary, wall_time,
                                    &error) &&
            !st.error)
            st.error = g_strdup(error->message);
        esl_project_close(st.project);
    }
    if (st.error) {
        char *joined = g_strdup_printf("%s%sthe run was not fully stored: %s",
                                       message ? message : "", message ? "; " : "", st.error);
        g_free(message);
        message = joined;
    }
    g_mutex_lock(&self->lock);
    self->wall_time = wall_time;
    g_mutex_unlock(&self->lock);
    set_outcome(self, status, message);
    g_array_unref(st.monitors);
    g_array_unref(st.poses);
    g_array_unref(st.violations);
    g_timer_destroy(st.since_flush);
    g_free(st.error);
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

void esl_run_controller_pause(EslRunController *self)
{
    g_mutex_lock(&self->lock);
    self->paused = TRUE;
    g_mutex_unlock(&self->lock);
}

void esl_run_controller_resume(EslRunController *self)
{
    g_mutex_lock(&self->lock);
    self->paused = FALSE;
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
