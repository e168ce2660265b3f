/* The formulation advisor; see esl-advise.h. */
#include "esl-advise.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <json-glib/json-glib.h>

#include "esl-settings-json.h"
#include "esl-study.h"
#include "mbs_run.h"
#include "mbs_trajectory.h"

#define SAMPLE_INTERVAL 0.01 /* s: every candidate's step divides it */
#define REFERENCE_STEP 1e-4

static const double fixed_steps[] = {0.01, 0.005, 0.002, 0.001, 0.0005};
static const double ssode_rtols[] = {1e-4, 1e-6, 1e-8};

static void candidate_free(gpointer data)
{
    EslAdviseCandidate *c = data;
    g_free(c->formulation);
    g_free(c->label);
    g_free(c->verdict);
    g_free(c);
}

void esl_advice_free(EslAdvice *a)
{
    if (!a)
        return;
    g_free(a->reference[0]);
    g_free(a->reference[1]);
    if (a->candidates)
        g_ptr_array_unref(a->candidates);
    g_free(a);
}

/* Settings of formulation at step h (ssode: rtol, atol = rtol / 100, on the sample grid). */
static gboolean settings_for(const char *formulation, double h, double rtol, double duration,
                             MbsSettings *s)
{
    mbs_settings_defaults(s);
    mbs_settings_for(s, mbs_formulation_find(formulation));
    s->step = h;
    s->duration = duration;
    if (rtol > 0)
        return mbs_settings_set_number_for(s, formulation, "rtol", rtol, NULL) == 0 &&
               mbs_settings_set_number_for(s, formulation, "atol", rtol / 100, NULL) == 0;
    return TRUE;
}

static int every_of(double h)
{
    return (int)lround(SAMPLE_INTERVAL / h);
}

static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

/* Variables recorded as the x of "points" (y = z = 0), so that the trajectory's deviation and
 * displacement_scale measure |y - y_ref| and |y_ref(t) - y_ref(0)|. */
typedef struct {
    const MbsModel *m;
    const EslAdviseQuantity *q;
    MbsTrajectory *t;
    int every;
    double *poses, *velocities, *violations;
    double *start;  /* energy: the first kinetic energy; constraints: the points' first places */
    double scale;   /* what divides the error (esl-advise.h, EslAdviseMeasure) */
} VariableRecorder;

/* Energy and constraints: the one recorded value and the scale's running maximum. */
static double measure_value(VariableRecorder *rec, const MbsFormulation *f)
{
    const EslAdviseQuantity *q = rec->q;
    gboolean first = rec->t->nsamples == 0;
    if (q->measure == ESL_ADVISE_MEASURE_ENERGY) {
        if (first)
            rec->start[0] = f->monitors.kinetic;
        rec->scale = fmax(rec->scale, fabs(f->monitors.kinetic - rec->start[0]));
        return f->monitors.total;
    }
    for (int i = 0; i < q->npoints; i++) { /* x = R x_drawn + p (poses: R row-major, p) */
        const MbsPoint *pt = &rec->m->points[q->points[i]];
        const double *pose = rec->poses + 12 * pt->body;
        double x[3];
        for (int r = 0; r < 3; r++)
            x[r] = pose[3 * r] * pt->pos[0] + pose[3 * r + 1] * pt->pos[1] +
                   pose[3 * r + 2] * pt->pos[2] + pose[9 + r];
        if (first)
            memcpy(rec->start + 3 * i, x, sizeof x);
        const double *x0 = rec->start + 3 * i;
        rec->scale = fmax(rec->scale, sqrt((x[0] - x0[0]) * (x[0] - x0[0]) +
                                           (x[1] - x0[1]) * (x[1] - x0[1]) +
                                           (x[2] - x0[2]) * (x[2] - x0[2])));
    }
    return f->monitors.phi_norm;
}

static int take_variables(void *data, const MbsRun *run)
{
    VariableRecorder *rec = data;
    MbsTrajectory *t = rec->t;
    const MbsModel *m = rec->m;
    const MbsFormulation *f = mbs_run_formulation(run);
    if (mbs_run_grid_steps(run) % rec->every != 0)
        return 0;
    for (int b = 0; b < m->nbodies; b++)
        mbs_formulation_body_pose(f, b, rec->poses + 12 * b, rec->poses + 12 * b + 9);
    esl_body_velocities_from_formulation(f, rec->velocities);
    for (int j = 0; j < m->njoints; j++)
        rec->violations[j] = f->klass->joint_violation(f, j);
    double *x = &t->xyz[(gsize)t->nsamples * t->npoints * 3];
    if (rec->q->measure != ESL_ADVISE_MEASURE_POINTS) {
        x[0] = measure_value(rec, f);
        x[1] = x[2] = 0;
        t->time[t->nsamples++] = f->time;
        return 0;
    }
    for (int i = 0; i < t->npoints; i++) {
        const EslVariable *v = &rec->q->variables[i];
        double y = esl_variable_value(m, v, f->time, rec->poses, rec->velocities,
                                      rec->violations);
        if (t->nsamples > 0)
            y = esl_variable_unwrap(v, x[3 * i - 3 * t->npoints], y);
        x[3 * i] = y;
        x[3 * i + 1] = x[3 * i + 2] = 0;
    }
    t->time[t->nsamples++] = f->time;
    return 0;
}

/* mbs_trajectory_record for variables (t freed with mbs_trajectory_free). */
static int record_variables(const MbsModel *m, const char *formulation, const MbsSettings *s,
                            int every, const EslAdviseQuantity *q, MbsTrajectory *t,
                            double *scale, MbsError *err)
{
    memset(t, 0, sizeof *t);
    long cap = mbs_run_step_count(s->duration, s->step) / every + 2;
    t->npoints = q->measure != ESL_ADVISE_MEASURE_POINTS ? 1 : q->nvariables;
    t->time = malloc(sizeof(double) * (size_t)cap);
    t->xyz = malloc(sizeof(double) * (size_t)cap * (size_t)t->npoints * 3);
    MbsFormulation *f = t->time && t->xyz ? mbs_formulation_new(formulation, m, s, err) : NULL;
    if (!f) {
        mbs_trajectory_free(t);
        return err && err->status ? err->status : MBS_FATAL;
    }
    VariableRecorder rec = {m, q, t, every, g_new0(double, 12 * (gsize)m->nbodies + 1),
                            g_new0(double, 6 * (gsize)m->nbodies + 1),
                            g_new0(double, (gsize)m->njoints + 1),
                            g_new0(double, 3 * (gsize)q->npoints + 1), 0};
    MbsRunObserver observer = {.sample = take_variables, .data = &rec, .every = every};
    MbsRun *run = mbs_run_new(f, NULL, &observer, err);
    int rc = run ? 0 : MBS_FATAL;
    if (run && mbs_run_advance(run, s->duration) == MBS_RUN_FAILED) {
        t->failed = 1;
        t->error = *mbs_run_error(run);
    }
    if (run)
        t->summary = *mbs_run_summary(run);
    else
        mbs_trajectory_free(t);
    mbs_run_free(run);
    mbs_formulation_free(f);
    g_free(rec.poses);
    g_free(rec.velocities);
    g_free(rec.violations);
    g_free(rec.start);
    if (scale)
        *scale = rec.scale;
    return rc;
}

/* Run; TRUE when it ran to the end. t is filled either way (free it). *seconds: the CPU time of
 * the run (this thread's: a loaded machine's other processes do not count), the least of up to
 * five repetitions while they take less than 0.2 s together (short runs are timed again). */
static gboolean record(const MbsModel *m, const char *formulation, const MbsSettings *s,
                       const EslAdviseQuantity *q, MbsTrajectory *t, char **message,
                       double *seconds, double *scale)
{
    MbsError err = {0};
    double spent = 0, best = INFINITY;
    memset(t, 0, sizeof *t);
    for (int rep = 0; rep < 5 && (rep == 0 || spent < 0.2); rep++) {
        if (rep > 0)
            mbs_trajectory_free(t);
        double t0 = cpu_now();
        if (q->nvariables > 0 || q->measure != ESL_ADVISE_MEASURE_POINTS
                ? record_variables(m, formulation, s, every_of(s->step), q, t, scale, &err)
                : mbs_trajectory_record(m, formulation, s, every_of(s->step), q->points,
                                        q->npoints, t, &err)) {
            *message = g_strdup(err.message);
            return FALSE;
        }
        double dt = cpu_now() - t0;
        spent += dt;
        best = fmin(best, dt);
        if (t->failed) {
            *message = g_strdup(t->error.message);
            return FALSE;
        }
        if (!seconds)
            break;
    }
    if (seconds)
        *seconds = best;
    return TRUE;
}

/* Largest displacement of the points over the reference's samples. */
static double displacement_scale(const MbsTrajectory *ref)
{
    double scale = 0;
    for (int k = 0; k < ref->nsamples; k++)
        for (int p = 0; p < ref->npoints; p++) {
            const double *a = ref->xyz + 3 * p, *b = ref->xyz + ((gsize)k * ref->npoints + p) * 3;
            scale = fmax(scale, sqrt((b[0] - a[0]) * (b[0] - a[0]) +
                                     (b[1] - a[1]) * (b[1] - a[1]) +
                                     (b[2] - a[2]) * (b[2] - a[2])));
        }
    return scale > 0 ? scale : 1.0;
}

typedef struct {
    const char *formulation;
    double rtol;
} RefChoice;

EslAdvice *esl_advise(const MbsModel *m, const EslAdviseQuantity *q, double accuracy,
                      double duration, int full_runs, GError **error)
{
    for (int i = 0; i < q->nvariables; i++)
        if (!esl_variable_is_instantaneous(&q->variables[i])) {
            g_autofree char *name = esl_variable_name(m, &q->variables[i]);
            g_set_error(error, ESL_STUDY_ERROR, ESL_STUDY_ERROR_INVALID,
                        "%s: an acceleration is not a function of one state; name a position "
                        "or velocity, an angle, an energy...", name);
            return NULL;
        }
    if (q->nvariables == 0 && q->npoints == 0 && q->measure == ESL_ADVISE_MEASURE_POINTS) {
        g_set_error(error, ESL_STUDY_ERROR, ESL_STUDY_ERROR_INVALID, "nothing to compare");
        return NULL;
    }
    if (!(accuracy > 0) || !(duration >= 10 * SAMPLE_INTERVAL) ||
        fabs(duration / SAMPLE_INTERVAL - lround(duration / SAMPLE_INTERVAL)) > 1e-9) {
        g_set_error(error, ESL_STUDY_ERROR, ESL_STUDY_ERROR_INVALID,
                    "the accuracy must be positive and the duration a multiple of %g s, at "
                    "least %g s", SAMPLE_INTERVAL, 10 * SAMPLE_INTERVAL);
        return NULL;
    }
    g_autoptr(EslAdvice) a = g_new0(EslAdvice, 1);
    a->accuracy = accuracy;
    a->duration = duration;
    a->sample_interval = SAMPLE_INTERVAL;
    a->probe_duration = fmax(10 * SAMPLE_INTERVAL,
                             SAMPLE_INTERVAL * round(duration / 10 / SAMPLE_INTERVAL));
    a->reference_step = REFERENCE_STEP;
    a->recommended = -1;
    a->variables = q->nvariables > 0 && q->measure == ESL_ADVISE_MEASURE_POINTS;
    a->measure = q->measure;
    a->candidates = g_ptr_array_new_with_free_func(candidate_free);

    /* 1. the reference: the first two of these that agree */
    static const RefChoice choices[] = {
        {"matrix-r", 0}, {"penalty", 0}, {"ali3p", 0}, {"ssode", 1e-10}};
    MbsTrajectory refs[G_N_ELEMENTS(choices)];
    memset(refs, 0, sizeof refs);
    gboolean have[G_N_ELEMENTS(choices)] = {FALSE};
    double scales[G_N_ELEMENTS(choices)] = {0}; /* what divides the errors, per reference */
    int ref = -1, other = -1;
    GString *why = g_string_new(NULL);
    for (guint i = 0; i < G_N_ELEMENTS(choices) && ref < 0; i++) {
        MbsSettings s;
        g_autofree char *message = NULL;
        if (!mbs_formulation_find(choices[i].formulation) ||
            !settings_for(choices[i].formulation,
                          choices[i].rtol > 0 ? SAMPLE_INTERVAL : REFERENCE_STEP,
                          choices[i].rtol, duration, &s))
            continue;
        have[i] = record(m, choices[i].formulation, &s, q, &refs[i], &message, NULL,
                         &scales[i]);
        if (q->measure == ESL_ADVISE_MEASURE_POINTS)
            scales[i] = displacement_scale(&refs[i]);
        else if (!(scales[i] > 0))
            scales[i] = 1.0;
        if (!have[i]) {
            g_string_append_printf(why, "%s%s failed (%s)", why->len ? "; " : "",
                                   choices[i].formulation, message);
            continue;
        }
        for (guint j = 0; j < i && ref < 0; j++) {
            if (!have[j])
                continue;
            double dev = mbs_trajectory_max_deviation(&refs[j], &refs[i]);
            double rel = dev / scales[j];
            if (dev >= 0 && refs[i].nsamples == refs[j].nsamples && rel <= accuracy / 10) {
                ref = (int)j;
                other = (int)i;
                a->reference_agreement = rel;
            } else {
                g_string_append_printf(why, "%s%s and %s differ by %.2e", why->len ? "; " : "",
                                       choices[j].formulation, choices[i].formulation, rel);
            }
        }
    }
    if (ref < 0) {
        g_set_error(error, ESL_STUDY_ERROR, ESL_STUDY_ERROR_RUN,
                    "no reference solution: no two formulations agree within %.1e at tight "
                    "settings (%s); ask for a lower accuracy or a shorter duration",
                    accuracy / 10, why->str);
        g_string_free(why, TRUE);
        for (guint i = 0; i < G_N_ELEMENTS(choices); i++)
            mbs_trajectory_free(&refs[i]);
        return NULL;
    }
    g_string_free(why, TRUE);
    a->reference[0] = g_strdup(choices[ref].formulation);
    a->reference[1] = g_strdup(choices[other].formulation);
    a->scale = scales[ref];

    /* 2. the candidates, probed on a short horizon */
    for (int i = 0; i < mbs_formulation_count(); i++) {
        const char *name = mbs_formulation_class(i)->name;
        gboolean own = mbs_formulation_class(i)->own_steps;
        int n = own ? (int)G_N_ELEMENTS(ssode_rtols) : (int)G_N_ELEMENTS(fixed_steps);
        for (int k = 0; k < n; k++) {
            EslAdviseCandidate *c = g_new0(EslAdviseCandidate, 1);
            c->formulation = g_strdup(name);
            double h = own ? SAMPLE_INTERVAL : fixed_steps[k];
            double rtol = own ? ssode_rtols[k] : 0;
            if (!settings_for(name, h, rtol, a->probe_duration, &c->settings)) {
                candidate_free(c);
                continue;
            }
            c->label = own ? g_strdup_printf("%s, rtol = %g", name, rtol)
                           : g_strdup_printf("%s, h = %g s", name, h);
            c->probe_error = c->probe_seconds = c->error = c->seconds = NAN;
            g_ptr_array_add(a->candidates, c);
            MbsTrajectory t;
            g_autofree char *message = NULL;
            double cpu = NAN;
            if (!record(m, name, &c->settings, q, &t, &message, &cpu, NULL)) {
                c->probe_failed = c->failed = TRUE;
                c->verdict = g_strdup_printf("failed in the probe: %s", message);
            } else {
                c->probe_seconds = cpu;
                c->probe_error = mbs_trajectory_max_deviation(&t, &refs[ref]) / a->scale;
                if (c->probe_error > accuracy)
                    c->verdict = g_strdup_printf("too inaccurate: %.2e in the probe",
                                                 c->probe_error);
            }
            mbs_trajectory_free(&t);
        }
    }

    /* 3. full runs of the fastest survivors */
    g_autoptr(GPtrArray) order = g_ptr_array_new();
    for (guint i = 0; i < a->candidates->len; i++) {
        EslAdviseCandidate *c = a->candidates->pdata[i];
        if (!c->verdict)
            g_ptr_array_add(order, c);
    }
    for (guint i = 1; i < order->len; i++) /* insertion sort by probe time */
        for (guint j = i; j > 0 && ((EslAdviseCandidate *)order->pdata[j])->probe_seconds <
                                       ((EslAdviseCandidate *)order->pdata[j - 1])->probe_seconds;
             j--) {
            gpointer t = order->pdata[j];
            order->pdata[j] = order->pdata[j - 1];
            order->pdata[j - 1] = t;
        }
    gboolean found = FALSE; /* one within the accuracy: past full_runs, stop there */
    for (guint i = 0; i < order->len; i++) {
        EslAdviseCandidate *c = order->pdata[i];
        if ((int)i >= full_runs && found) {
            c->verdict = g_strdup_printf("not run in full: slower in the probe (%.2g s)",
                                         c->probe_seconds);
            continue;
        }
        c->settings.duration = duration;
        MbsTrajectory t;
        g_autofree char *message = NULL;
        c->ran_full = TRUE;
        double cpu = NAN;
        if (!record(m, c->formulation, &c->settings, q, &t, &message, &cpu, NULL)) {
            c->failed = TRUE;
            c->verdict = g_strdup_printf("failed: %s", message);
        } else {
            c->seconds = cpu;
            c->error = mbs_trajectory_max_deviation(&t, &refs[ref]) / a->scale;
            if (c->error > accuracy)
                c->verdict = g_strdup_printf("too inaccurate: %.2e", c->error);
            else
                found = TRUE;
        }
        mbs_trajectory_free(&t);
    }

    /* 4. the fastest within the accuracy */
    for (guint i = 0; i < a->candidates->len; i++) {
        EslAdviseCandidate *c = a->candidates->pdata[i];
        if (c->ran_full && !c->verdict &&
            (a->recommended < 0 ||
             c->seconds < ((EslAdviseCandidate *)a->candidates->pdata[a->recommended])->seconds))
            a->recommended = (int)i;
    }
    for (guint i = 0; i < a->candidates->len; i++) {
        EslAdviseCandidate *c = a->candidates->pdata[i];
        if (c->verdict)
            continue;
        c->verdict = (int)i == a->recommended
                         ? g_strdup("recommended")
                         : g_strdup_printf("within the accuracy, slower (%.2g s)", c->seconds);
    }
    for (guint i = 0; i < G_N_ELEMENTS(choices); i++)
        mbs_trajectory_free(&refs[i]);
    return g_steal_pointer(&a);
}

/* ---- JSON ------------------------------------------------------------------------------------ */

/* The JSON's "measure": EslAdviseMeasure's names, then the variables'. */
static const char *const measure_names[] = {"points", "energy", "constraints", "variables"};

char *esl_advice_to_json(const EslAdvice *a, const char *model, const char *quantity)
{
    g_autoptr(JsonBuilder) b = json_builder_new();
    json_builder_begin_object(b);
    esl_json_builder_add_string(b, "model", model);
    esl_json_builder_add_string(b, "quantity", quantity);
    esl_json_builder_add_string(b, "measure", measure_names[a->measure == ESL_ADVISE_MEASURE_POINTS && a->variables
                                               ? G_N_ELEMENTS(measure_names) - 1
                                               : (guint)a->measure]);
    esl_json_builder_add_number(b, "accuracy", a->accuracy);
    esl_json_builder_add_number(b, "duration", a->duration);
    esl_json_builder_add_number(b, "probe_duration", a->probe_duration);
    esl_json_builder_add_number(b, "sample_interval", a->sample_interval);
    json_builder_set_member_name(b, "reference");
    json_builder_begin_object(b);
    esl_json_builder_add_string(b, "formulation", a->reference[0]);
    esl_json_builder_add_string(b, "confirmed_by", a->reference[1]);
    esl_json_builder_add_number(b, "step", a->reference_step);
    esl_json_builder_add_number(b, "agreement", a->reference_agreement);
    esl_json_builder_add_number(b, "scale", a->scale);
    json_builder_end_object(b);
    json_builder_set_member_name(b, "recommended");
    if (a->recommended >= 0)
        json_builder_add_int_value(b, a->recommended);
    else
        json_builder_add_null_value(b);
    json_builder_set_member_name(b, "candidates");
    json_builder_begin_array(b);
    for (guint i = 0; i < a->candidates->len; i++) {
        const EslAdviseCandidate *c = a->candidates->pdata[i];
        json_builder_begin_object(b);
        esl_json_builder_add_string(b, "formulation", c->formulation);
        esl_json_builder_add_string(b, "label", c->label);
        esl_json_builder_add_number(b, "step", c->settings.step);
        json_builder_set_member_name(b, "options");
        json_builder_add_value(b, esl_settings_options_to_node(&c->settings));
        esl_json_builder_add_number(b, "probe_error", c->probe_error);
        esl_json_builder_add_number(b, "probe_seconds", c->probe_seconds);
        esl_json_builder_add_number(b, "error", c->error);
        esl_json_builder_add_number(b, "seconds", c->seconds);
        esl_json_builder_add_string(b, "verdict", c->verdict);
        json_builder_end_object(b);
    }
    json_builder_end_array(b);
    json_builder_end_object(b);
    g_autoptr(JsonNode) root = json_builder_get_root(b);
    return esl_json_generate(root, TRUE);
}

/* A number member: NAN when null; FALSE when missing or not a number. */
static gboolean member_number(JsonObject *o, const char *name, double *v)
{
    JsonNode *n = o ? json_object_get_member(o, name) : NULL;
    if (!n)
        return FALSE;
    if (JSON_NODE_HOLDS_NULL(n)) {
        *v = NAN;
        return TRUE;
    }
    GType t = json_node_get_value_type(n);
    if (!JSON_NODE_HOLDS_VALUE(n) || (t != G_TYPE_DOUBLE && t != G_TYPE_INT64))
        return FALSE;
    *v = json_node_get_double(n);
    return TRUE;
}

static const char *member_string(JsonObject *o, const char *name)
{
    JsonNode *n = o ? json_object_get_member(o, name) : NULL;
    return n && JSON_NODE_HOLDS_VALUE(n) && json_node_get_value_type(n) == G_TYPE_STRING
               ? json_node_get_string(n)
               : NULL;
}

static EslAdvice *bad_advice(GError **error, const char *what)
{
    g_set_error(error, ESL_STUDY_ERROR, ESL_STUDY_ERROR_INVALID,
                "not an advice of `eslabon-cli advise --json`: %s", what);
    return NULL;
}

EslAdvice *esl_advice_from_json(const char *text, char **model, char **quantity,
                                GError **error)
{
    g_autoptr(JsonParser) parser = json_parser_new();
    g_autoptr(GError) local = NULL;
    if (!json_parser_load_from_data(parser, text, -1, &local))
        return bad_advice(error, local->message);
    JsonNode *root = json_parser_get_root(parser);
    JsonObject *o = root && JSON_NODE_HOLDS_OBJECT(root) ? json_node_get_object(root) : NULL;
    JsonNode *rn = o ? json_object_get_member(o, "reference") : NULL;
    JsonObject *r = rn && JSON_NODE_HOLDS_OBJECT(rn) ? json_node_get_object(rn) : NULL;
    JsonNode *cn = o ? json_object_get_member(o, "candidates") : NULL;
    JsonArray *cands = cn && JSON_NODE_HOLDS_ARRAY(cn) ? json_node_get_array(cn) : NULL;
    g_autoptr(EslAdvice) a = g_new0(EslAdvice, 1);
    a->candidates = g_ptr_array_new_with_free_func(candidate_free);
    double recommended = NAN;
    if (!o || !cands || !r || !member_number(o, "accuracy", &a->accuracy) ||
        !member_number(o, "duration", &a->duration) ||
        !member_number(o, "probe_duration", &a->probe_duration) ||
        !member_number(o, "sample_interval", &a->sample_interval) ||
        !member_number(r, "step", &a->reference_step) ||
        !member_number(r, "agreement", &a->reference_agreement) ||
        !member_number(r, "scale", &a->scale) || !member_string(r, "formulation") ||
        !member_string(r, "confirmed_by") || !member_number(o, "recommended", &recommended))
        return bad_advice(error, "a member of the object or of its reference is missing");
    a->reference[0] = g_strdup(member_string(r, "formulation"));
    a->reference[1] = g_strdup(member_string(r, "confirmed_by"));
    const char *measure = member_string(o, "measure");
    for (guint i = 0; measure && i < G_N_ELEMENTS(measure_names); i++)
        if (!strcmp(measure, measure_names[i])) {
            a->variables = i == G_N_ELEMENTS(measure_names) - 1;
            a->measure = a->variables ? ESL_ADVISE_MEASURE_POINTS : (EslAdviseMeasure)i;
        }
    guint n = json_array_get_length(cands);
    a->recommended = isnan(recommended) ? -1 : (int)recommended;
    if (a->recommended >= (int)n || (!isnan(recommended) && recommended < 0))
        return bad_advice(error, "the recommended index is not a candidate's");
    for (guint i = 0; i < n; i++) {
        JsonNode *node = json_array_get_element(cands, i);
        JsonObject *co = JSON_NODE_HOLDS_OBJECT(node) ? json_node_get_object(node) : NULL;
        EslAdviseCandidate *c = g_new0(EslAdviseCandidate, 1);
        g_ptr_array_add(a->candidates, c);
        const char *form = member_string(co, "formulation");
        const MbsFormulationClass *k = form ? mbs_formulation_find(form) : NULL;
        mbs_settings_defaults(&c->settings);
        if (k)
            mbs_settings_for(&c->settings, k);
        if (!form || !member_string(co, "verdict") ||
            !member_number(co, "step", &c->settings.step) ||
            !member_number(co, "probe_error", &c->probe_error) ||
            !member_number(co, "probe_seconds", &c->probe_seconds) ||
            !member_number(co, "error", &c->error) || !member_number(co, "seconds", &c->seconds))
            return bad_advice(error, "a candidate lacks its formulation, step, errors, times or "
                                     "verdict");
        c->formulation = g_strdup(form);
        c->verdict = g_strdup(member_string(co, "verdict"));
        const char *label = member_string(co, "label");
        c->label = label ? g_strdup(label)
                         : g_strdup_printf("%s, h = %g s", form, c->settings.step);
        c->probe_failed = g_str_has_prefix(c->verdict, "failed in the probe");
        c->failed = g_str_has_prefix(c->verdict, "failed");
        c->ran_full = isfinite(c->error) || (c->failed && !c->probe_failed);
        JsonNode *opts = co ? json_object_get_member(co, "options") : NULL;
        if (k && opts && JSON_NODE_HOLDS_OBJECT(opts)) {
            g_autofree char *otext = esl_json_generate(opts, FALSE);
            esl_settings_options_from_json(&c->settings, k, otext, NULL); /* labels suffice */
        }
    }
    if (model)
        *model = g_strdup(member_string(o, "model"));
    if (quantity)
        *quantity = g_strdup(member_string(o, "quantity"));
    return g_steal_pointer(&a);
}
