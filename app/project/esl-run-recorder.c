/* One recorder for every run the application keeps; see esl-run-recorder.h. */
#include "esl-run-recorder.h"
#include "esl-settings-json.h"
#include "esl-points.h"

#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>

/* Samples are written to the project in batches of at most this many, or this often. */
#define STORE_BATCH 128
#define STORE_INTERVAL 0.25 /* s of wall time */

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

struct _EslRunRecorder {
    int nbodies, njoints;
    long every, last;
    FILE *csv;
    double csv_energy0;
    long csv_every;
    const MbsModel *model;
    int *csv_points, ncsv_points;
    double *csv_xyz, *csv_v; /* 3 per point */
    EslVariable *csv_variables;
    int ncsv_variables;
    double *csv_previous;                   /* last value of each variable (angle unwrapping) */
    double *csv_poses, *csv_body_velocities, *csv_violations; /* the state at a row */
    EslProject *project;
    gint64 run_id;
    GArray *monitors, *poses, *violations; /* samples not yet stored */
    GArray *internal_steps;                /* EslInternalStep not yet stored */
    GTimer *since_flush;
    char *error; /* first storage error; storing stops after it */
    EslRunSampleFunc func;
    gpointer func_data;
};

EslRunRecorder *esl_run_recorder_new(const MbsModel *model)
{
    EslRunRecorder *r = g_new0(EslRunRecorder, 1);
    r->nbodies = model->nbodies;
    r->njoints = model->njoints;
    r->model = model;
    r->every = 1;
    r->csv_every = 1;
    r->last = -1;
    r->monitors = g_array_new(FALSE, FALSE, sizeof(MbsMonitors));
    r->poses = g_array_new(FALSE, FALSE, sizeof(double));
    r->violations = g_array_new(FALSE, FALSE, sizeof(double));
    r->internal_steps = g_array_new(FALSE, FALSE, sizeof(EslInternalStep));
    r->since_flush = g_timer_new();
    return r;
}

void esl_run_recorder_free(EslRunRecorder *r)
{
    if (!r)
        return;
    g_array_unref(r->monitors);
    g_array_unref(r->poses);
    g_array_unref(r->violations);
    g_array_unref(r->internal_steps);
    g_timer_destroy(r->since_flush);
    g_free(r->error);
    g_free(r->csv_points);
    g_free(r->csv_xyz);
    g_free(r->csv_v);
    g_free(r->csv_variables);
    g_free(r->csv_previous);
    g_free(r->csv_poses);
    g_free(r->csv_body_velocities);
    g_free(r->csv_violations);
    g_free(r);
}

void esl_run_recorder_set_sample_every(EslRunRecorder *r, long every, long last)
{
    r->every = MAX(1, every);
    r->last = last;
}

/* The monitors' columns (mbs_monitors.h), with the energy drift E - E(0) after the total. */
static void csv_header(FILE *f)
{
    for (int k = 0; k < mbs_monitor_count; k++) {
        fprintf(f, "%s%s", k ? "," : "", mbs_monitor_fields[k].key);
        if (!strcmp(mbs_monitor_fields[k].key, "total"))
            fputs(",energy_drift", f);
    }
}

static void csv_row(FILE *f, const MbsMonitors *m, double e0)
{
    for (int k = 0; k < mbs_monitor_count; k++) {
        const MbsMonitorField *c = &mbs_monitor_fields[k];
        if (k)
            fputc(',', f);
        if (c->type == MBS_MONITOR_INT)
            fprintf(f, c->csv, (int)mbs_monitor_get(m, k));
        else
            fprintf(f, c->csv, mbs_monitor_get(m, k));
        if (!strcmp(c->key, "total"))
            fprintf(f, ",%.6e", m->total - e0);
    }
}

void esl_run_recorder_set_csv(EslRunRecorder *r, FILE *csv)
{
    r->csv = csv;
    if (!csv)
        return;
    csv_header(csv);
    esl_points_write_header(csv, r->model, r->csv_points, r->ncsv_points);
    for (int i = 0; i < r->ncsv_variables; i++) {
        g_autofree char *name = esl_variable_name(r->model, &r->csv_variables[i]);
        fprintf(csv, ",%s", name);
    }
    fputc('\n', csv);
}

void esl_run_recorder_set_csv_variables(EslRunRecorder *r, const EslVariable *variables,
                                        int nvariables)
{
    const MbsModel *m = r->model;
    g_free(r->csv_variables);
    g_free(r->csv_previous);
    r->ncsv_variables = MAX(nvariables, 0);
    r->csv_variables = g_memdup2(variables, sizeof(EslVariable) * (gsize)r->ncsv_variables);
    r->csv_previous = g_new(double, (gsize)r->ncsv_variables + 1);
    for (int i = 0; i < r->ncsv_variables; i++)
        r->csv_previous[i] = NAN;
    if (!r->csv_poses) {
        r->csv_poses = g_new0(double, 12 * (gsize)m->nbodies + 1);
        r->csv_body_velocities = g_new0(double, 6 * (gsize)m->nbodies + 1);
        r->csv_violations = g_new0(double, (gsize)m->njoints + 1);
    }
}

void esl_run_recorder_set_csv_points(EslRunRecorder *r, const int *points, int npoints,
                                     long every)
{
    g_free(r->csv_points);
    g_free(r->csv_xyz);
    g_free(r->csv_v);
    r->csv_points = g_memdup2(points, sizeof(int) * (gsize)MAX(npoints, 0));
    r->ncsv_points = MAX(npoints, 0);
    r->csv_xyz = g_new0(double, 3 * (gsize)r->ncsv_points + 1);
    r->csv_v = g_new0(double, 3 * (gsize)r->ncsv_points + 1);
    r->csv_every = MAX(1, every);
}

static void csv_points_row(EslRunRecorder *r, const MbsFormulation *f)
{
    for (int i = 0; i < r->ncsv_points; ++i) {
        mbs_formulation_point_position(f, r->csv_points[i], r->csv_xyz + 3 * i);
        mbs_formulation_point_velocity(f, r->csv_points[i], r->csv_v + 3 * i);
    }
    esl_points_write_values(r->csv, r->csv_xyz, r->csv_v, r->ncsv_points);
    if (r->ncsv_variables > 0) {
        const MbsModel *m = r->model;
        for (int b = 0; b < m->nbodies; b++)
            mbs_formulation_body_pose(f, b, r->csv_poses + 12 * b, r->csv_poses + 12 * b + 9);
        esl_body_velocities_from_formulation(f, r->csv_body_velocities);
        for (int j = 0; j < m->njoints; j++)
            r->csv_violations[j] = f->klass->joint_violation(f, j);
    }
    for (int i = 0; i < r->ncsv_variables; i++) {
        const EslVariable *v = &r->csv_variables[i];
        double value = esl_variable_value(r->model, v, f->time, r->csv_poses,
                                          r->csv_body_velocities, r->csv_violations);
        r->csv_previous[i] = esl_variable_unwrap(v, r->csv_previous[i], value);
        fprintf(r->csv, ",%.12g", r->csv_previous[i]);
    }
    fputc('\n', r->csv);
}

void esl_run_recorder_set_project(EslRunRecorder *r, EslProject *project, gint64 run_id)
{
    r->project = project;
    r->run_id = run_id;
}

void esl_run_recorder_set_sample_func(EslRunRecorder *r, EslRunSampleFunc func, gpointer data)
{
    r->func = func;
    r->func_data = data;
}

gboolean esl_run_recorder_flush(EslRunRecorder *r)
{
    if (r->project && !r->error && r->monitors->len > 0) {
        g_autoptr(GError) error = NULL;
        if (!esl_project_append_samples(r->project, r->run_id,
                                        (const MbsMonitors *)(void *)r->monitors->data,
                                        (const double *)(void *)r->poses->data,
                                        (const double *)(void *)r->violations->data,
                                        (int)r->monitors->len, &error))
            r->error = g_strdup(error->message);
    }
    if (r->project && !r->error && r->internal_steps->len > 0) {
        g_autoptr(GError) error = NULL;
        if (!esl_project_append_internal_steps(
                r->project, r->run_id, (const EslInternalStep *)(void *)r->internal_steps->data,
                (int)r->internal_steps->len, &error))
            r->error = g_strdup(error->message);
    }
    g_array_set_size(r->internal_steps, 0);
    g_array_set_size(r->monitors, 0);
    g_array_set_size(r->poses, 0);
    g_array_set_size(r->violations, 0);
    g_timer_start(r->since_flush);
    return r->error == NULL;
}

const char *esl_run_recorder_error(EslRunRecorder *r)
{
    return r->error;
}

gboolean esl_run_recorder_finish(EslRunRecorder *r, EslRunStatus status, const char *message,
                                 const char *summary_json, double wall_time, GError **error)
{
    g_return_val_if_fail(r->project != NULL, FALSE);
    g_autoptr(GError) local = NULL;
    g_autofree char *problem = NULL;
    if (!esl_run_recorder_flush(r))
        problem = g_strdup_printf("cannot store the run's samples: %s", r->error);
    else if (esl_project_finish_run(r->project, r->run_id, status, message, summary_json,
                                    wall_time, &local))
        return TRUE;
    else
        problem = g_strdup_printf("cannot store the run's summary: %s", local->message);
    g_autofree char *why = message ? g_strdup_printf("%s; %s", message, problem)
                                   : g_strdup(problem);
    g_clear_error(&local);
    /* best effort: a project that refuses this too has a message already */
    esl_project_finish_run(r->project, r->run_id, ESL_RUN_FAILED, why, NULL, wall_time, &local);
    g_set_error_literal(error, ESL_PROJECT_ERROR, ESL_PROJECT_ERROR_INVALID, problem);
    return FALSE;
}

static EslRunSample *take_sample(const EslRunRecorder *r, const MbsRun *run)
{
    const MbsFormulation *f = mbs_run_formulation(run);
    EslRunSample *s = esl_run_sample_new(r->nbodies, r->njoints);
    s->monitors = f->monitors;
    s->monitors.time = f->time;
    s->step = mbs_run_grid_steps(run);
    for (int b = 0; b < r->nbodies; b++)
        mbs_formulation_body_pose(f, b, s->poses + 12 * b, s->poses + 12 * b + 9);
    for (int j = 0; j < r->njoints; j++)
        s->violations[j] = f->klass->joint_violation(f, j);
    return s;
}

void esl_run_recorder_observe(EslRunRecorder *r, const MbsRun *run)
{
    const MbsFormulation *f = mbs_run_formulation(run);
    long grid = mbs_run_grid_steps(run);
    if (grid == 0)
        r->csv_energy0 = f->monitors.total;
    if (r->csv && (grid % r->csv_every == 0 || grid == r->last)) {
        csv_row(r->csv, &f->monitors, r->csv_energy0);
        csv_points_row(r, f);
    }
    if (grid % r->every != 0 && grid != r->last)
        return;
    if (!r->project && !r->func)
        return;
    EslRunSample *s = take_sample(r, run);
    if (r->project && !r->error) {
        g_array_append_val(r->monitors, s->monitors);
        g_array_append_vals(r->poses, s->poses, (guint)s->nbodies * 12);
        g_array_append_vals(r->violations, s->violations, (guint)s->njoints);
        if (r->monitors->len >= STORE_BATCH ||
            g_timer_elapsed(r->since_flush, NULL) > STORE_INTERVAL)
            esl_run_recorder_flush(r);
    }
    if (r->func)
        r->func(s, r->func_data);
    else
        esl_run_sample_free(s);
}

void esl_run_recorder_internal_step(void *recorder, double t, double h, int order)
{
    EslRunRecorder *r = recorder;
    if (!r->project || r->error)
        return;
    EslInternalStep step = {t, h, order};
    g_array_append_val(r->internal_steps, step);
}

int esl_run_recorder_sample(void *recorder, const MbsRun *run)
{
    esl_run_recorder_observe(recorder, run);
    return 0;
}

char *esl_run_warning(const MbsRun *run)
{
    char warning[512];
    return mbs_run_summary_warning(mbs_run_summary(run), warning, sizeof warning)
               ? g_strdup(warning)
               : NULL;
}

char *esl_run_summary_json(const EslRunSummaryInfo *info, const MbsRun *run, gboolean pretty)
{
    const MbsFormulation *f = mbs_run_formulation(run);
    const MbsRunSummary *s = mbs_run_summary(run);
    const double wall = info->wall_seconds;
    g_autoptr(JsonBuilder) b = json_builder_new();
    json_builder_begin_object(b);
    /* JSON has no NaN or infinity: such a value is written as null */
#define D(key, value)                                                                            \
    do {                                                                                         \
        double v_ = (value);                                                                     \
        json_builder_set_member_name(b, key);                                                    \
        if (isfinite(v_))                                                                        \
            json_builder_add_double_value(b, v_);                                                \
        else                                                                                     \
            json_builder_add_null_value(b);                                                      \
    } while (0)
#define I(key, v) (json_builder_set_member_name(b, key), json_builder_add_int_value(b, v))
#define S(key, v) (json_builder_set_member_name(b, key), json_builder_add_string_value(b, v))
    /* a run started in the application knows its model by name, not by file */
    S("model", info->model_path ? info->model_path : info->model_name ? info->model_name
                                                                       : f->model->name);
    S("model_name", info->model_name ? info->model_name : f->model->name);
    S("formulation", info->formulation ? info->formulation : f->klass->name);
    double jacobian = mbs_settings_number(&f->settings, "jacobian");
    if (!isnan(jacobian))
        S("jacobian", mbs_jacobian_method_name((MbsJacobianMethod)jacobian));
    D("step", f->settings.step);
    D("duration", f->settings.duration);
    D("assembly_tolerance", f->settings.assembly_tolerance);
    double alpha = mbs_settings_number(&f->settings, "alpha");
    if (!isnan(alpha))
        D("penalty", alpha);
    g_autofree char *options = esl_settings_options_to_json(&f->settings);
    json_builder_set_member_name(b, "options");
    json_builder_add_value(b, json_from_string(options, NULL));
    S("status", info->status);
    if (info->message)
        S("error", info->message);
    char warning[512];
    if (mbs_run_summary_warning(s, warning, sizeof warning))
        S("warning", warning); /* the energy error (issue 28) */
    D("time_reached", f->time);
    I("steps", s->steps);
    D("wall_seconds", wall);
    D("real_time_factor", wall > 0 ? f->time / wall : 0.0);
    D("energy_initial", s->energy0);
    D("energy_drift_max", s->energy_drift_max);
    D("kinetic_energy_max", s->kinetic_energy_max);
    D("constraint_position_max", s->constraint_position_max);
    D("constraint_velocity_max", s->constraint_velocity_max);
    D("constraint_acceleration_max", s->constraint_acceleration_max);
    I("newton_iterations", s->newton_iterations);
    I("jacobian_evaluations", s->jacobian_evaluations);
    /* the tangent's size (n columns, p colours), for formulations that publish it */
    if (!isnan(mbs_formulation_statistic(f, "jacobian_columns", NAN))) {
        D("jacobian_columns", mbs_formulation_statistic(f, "jacobian_columns", NAN));
        D("jacobian_colours", mbs_formulation_statistic(f, "jacobian_colours", NAN));
        D("jacobian_nonzeros", mbs_formulation_statistic(f, "jacobian_nonzeros", NAN));
    }
    I("step_cuts", s->step_cuts);
    I("steps_rejected", s->steps_rejected);
    D("step_min", s->step_min);
    /* every counter and timer the formulation publishes (MbsFormulationClass.statistics) */
    MbsStatistic statistics[64];
    int nstat = MIN(mbs_formulation_statistics(f, statistics, G_N_ELEMENTS(statistics)),
                    (int)G_N_ELEMENTS(statistics));
    json_builder_set_member_name(b, "statistics");
    json_builder_begin_object(b);
    for (int i = 0; i < nstat; ++i)
        D(statistics[i].name, statistics[i].value);
    json_builder_end_object(b);
    json_builder_set_member_name(b, "phase_seconds");
    json_builder_begin_object(b);
    D("dynamics", s->time_dynamics);
    D("jacobian", s->time_jacobian);
    D("factorization", s->time_factorization);
    D("projection", s->time_projection);
    json_builder_end_object(b);
    int n = f->klass->ncoords(f);
    g_autofree double *q = g_new0(double, n + 1);
    g_autofree double *qd = g_new0(double, n + 1);
    f->klass->coordinates(f, q, qd);
    json_builder_set_member_name(b, "final_coordinates");
    json_builder_begin_array(b);
    for (int i = 0; i < n; ++i)
        json_builder_add_double_value(b, q[i]);
    json_builder_end_array(b);
    json_builder_set_member_name(b, "final_velocities");
    json_builder_begin_array(b);
    for (int i = 0; i < n; ++i)
        json_builder_add_double_value(b, qd[i]);
    json_builder_end_array(b);
#undef D
#undef I
#undef S
    json_builder_end_object(b);
    g_autoptr(JsonNode) root = json_builder_get_root(b);
    return esl_json_generate(root, pretty);
}
