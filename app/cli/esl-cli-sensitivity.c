/* eslabon-cli sensitivity: psi and d psi / d rho of a model's objectives (engine/mbs_sensitivity.h)
 * as text or JSON (keys in docs/cli.md). */
#include <glib.h>
#include <json-glib/json-glib.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "esl-cli.h"
#include "esl-cli-settings.h"
#include "esl-cli-sensitivity.h"
#include "esl-model-file.h"
#include "esl-models-dir.h"
#include "esl-point-sensitivity.h"
#include "esl-points.h"
#include "esl-project.h"
#include "esl-sensitivity-recorder.h"
#include "esl-settings-json.h"
#include "mbs_run.h"
#include "mbs_sensitivity.h"

gboolean esl_sensitivity_select(const MbsModel *m, const char *objectives,
                                const char *parameters, GArray *objective_index,
                                GArray *parameter_index, GError **error)
{
    if (!objectives) {
        for (int i = 0; i < m->nobjectives; ++i)
            g_array_append_val(objective_index, i);
    } else {
        g_auto(GStrv) names = g_strsplit(objectives, ",", -1);
        for (int i = 0; names[i]; ++i) {
            int o = mbs_model_find_objective(m, g_strstrip(names[i]));
            if (o < 0) {
                g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                            "'%s' is not an objective of model '%s'", names[i], m->name);
                return FALSE;
            }
            g_array_append_val(objective_index, o);
        }
    }
    if (!parameters) {
        for (int i = 0; i < m->nparameters; ++i)
            if (mbs_model_parameter_is_free(m, i))
                g_array_append_val(parameter_index, i);
    } else {
        g_auto(GStrv) names = g_strsplit(parameters, ",", -1);
        for (int i = 0; names[i]; ++i) {
            int p = mbs_model_find_parameter(m, g_strstrip(names[i]));
            if (p < 0) {
                g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                            "'%s' is not a parameter of model '%s'", names[i], m->name);
                return FALSE;
            }
            g_array_append_val(parameter_index, p);
        }
    }
    if (objective_index->len == 0 || parameter_index->len == 0) {
        g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                    "model '%s' declares no %s (see docs/model-format.md)", m->name,
                    objective_index->len == 0 ? "objectives" : "parameters");
        return FALSE;
    }
    return TRUE;
}

/* --history: one CSV row per grid time with the running psi and gradient (direct methods);
 * --project: the same rows into the project (thinned to PROJECT_HISTORY_ROWS). */
typedef struct {
    FILE *out;
    EslSensitivityRecorder *recorder;
    long every, calls; /* the project stores every `every`-th row */
    guint nobjectives, nparameters;
} History;

/* History rows stored in a project per run: enough to re-plot, as for `run` samples. */
#define PROJECT_HISTORY_ROWS 4000

static void write_history(void *data, double time, const double *psi, const double *gradient)
{
    History *h = data;
    if (h->recorder && h->calls++ % h->every == 0)
        esl_sensitivity_recorder_history(h->recorder, time, psi, gradient);
    if (!h->out)
        return;
    fprintf(h->out, "%.17g", time);
    for (guint i = 0; i < h->nobjectives; ++i)
        fprintf(h->out, ",%.17g", psi[i]);
    for (guint i = 0; i < h->nobjectives * h->nparameters; ++i)
        fprintf(h->out, ",%.17g", gradient[i]);
    fprintf(h->out, "\n");
}

/* --state-history: one CSV row per grid time with d q / d rho (direct methods: every
 * coordinate of the formulation's kind, column per parameter), then with --points d r / d rho
 * of each point; --project: the recorder's rows get them too. The header is written at the
 * first row, when n is known. */
typedef struct {
    FILE *out;
    EslSensitivityRecorder *recorder;
    const MbsModel *model;
    GArray *parameters;
    gboolean header;
    EslPointSensitivity *points; /* --points, or NULL */
    GArray *point_index;
    double *dr;                  /* 3 npoints x nparameters */
} StateHistory;

static void write_state_history(void *data, double time, int n, const double *q,
                                const double *sq)
{
    StateHistory *h = data;
    int nr = h->points ? esl_point_sensitivity_outputs(h->points) : 0;
    gboolean points = nr && esl_point_sensitivity_eval(h->points, n, q, sq, h->dr, NULL);
    if (h->recorder) {
        esl_sensitivity_recorder_state(h->recorder, time, n, q, sq);
        if (points)
            esl_sensitivity_recorder_points(h->recorder, time, nr, h->dr);
    }
    if (!h->out)
        return;
    guint np = h->parameters->len;
    if (!h->header) {
        fprintf(h->out, "time");
        for (guint k = 0; k < np; ++k)
            for (int i = 0; i < n; ++i)
                fprintf(h->out, ",dq%d/d%s", i + 1,
                        h->model->parameters[g_array_index(h->parameters, int, k)].name);
        for (guint k = 0; points && k < np; ++k)
            for (int i = 0; i < nr; ++i) {
                g_autofree char *name =
                    esl_point_name(h->model, g_array_index(h->point_index, int, i / 3));
                fprintf(h->out, ",d%s:%c/d%s", name, "xyz"[i % 3],
                        h->model->parameters[g_array_index(h->parameters, int, k)].name);
            }
        fprintf(h->out, "\n");
        h->header = TRUE;
    }
    fprintf(h->out, "%.17g", time);
    for (guint k = 0; k < np; ++k)
        for (int i = 0; i < n; ++i)
            fprintf(h->out, ",%.17g", sq[(size_t)n * k + (size_t)i]);
    for (guint k = 0; points && k < np; ++k)
        for (int i = 0; i < nr; ++i)
            fprintf(h->out, ",%.17g", h->dr[(size_t)nr * k + (size_t)i]);
    fprintf(h->out, "\n");
}

MbsModel *esl_sensitivity_load(const char *command, const char *path, const char *formulation,
                               const char *objectives, const char *parameters,
                               const EslSettingFlags *flags, MbsSettings *s,
                               GArray *objective_index, GArray *parameter_index, int *status)
{
    g_autoptr(GError) error = NULL;
    MbsError err = {0};
    *status = 1;
    MbsModel *m = esl_model_load_file(path, NULL, 0, &error);
    if (!m || !esl_sensitivity_select(m, objectives, parameters, objective_index,
                                      parameter_index, &error)) {
        fprintf(stderr, "eslabon-cli %s: %s\n", command, error->message);
    } else if ((*status = esl_setting_flags_apply(flags, mbs_formulation_find(formulation), m,
                                                  s))) {
        /* the flags' message is printed */
    } else if (mbs_settings_check_run(s, &err)) {
        fprintf(stderr, "eslabon-cli %s: %s\n", command, err.message);
        *status = 1;
    } else {
        return m;
    }
    if (!*status)
        *status = 1;
    mbs_model_free(m);
    return NULL;
}

gboolean esl_sensitivity_choose_integrator(const char *formulation, int method,
                                           const EslSettingFlags *flags, MbsSettings *s)
{
    if (strcmp(formulation, "matrix-r") || method == MBS_SENSITIVITY_FD ||
        !mbs_sensitivity_check(formulation, method, s, NULL))
        return FALSE;
    for (int i = 0; i < flags->count; i++)
        if (!strcmp(flags->names[i], "integrator") && flags->values[i])
            return FALSE; /* asked for by name: the engine's refusal says why */
    MbsSettings trial = *s;
    if (mbs_settings_set_for(&trial, formulation, "integrator", "trapezoidal", NULL) ||
        mbs_sensitivity_check(formulation, method, &trial, NULL))
        return FALSE; /* refused for another reason: left to the engine's message */
    *s = trial;
    return TRUE;
}

static char *result_json(const MbsModel *m, const char *path, const char *formulation,
                         const char *method, const MbsSettings *method_options,
                         const MbsSettings *s, GArray *obj, GArray *par,
                         const MbsSensitivityResult *r, gboolean pretty)
{
    g_autoptr(JsonBuilder) b = json_builder_new();
    json_builder_begin_object(b);
    json_builder_set_member_name(b, "model");
    json_builder_add_string_value(b, path);
    json_builder_set_member_name(b, "formulation");
    json_builder_add_string_value(b, formulation);
    json_builder_set_member_name(b, "method");
    json_builder_add_string_value(b, method);
    json_builder_set_member_name(b, "method_options"); /* {} for a method without a table */
    json_builder_add_value(b, esl_settings_options_to_node(method_options));
    json_builder_set_member_name(b, "step");
    json_builder_add_double_value(b, s->step);
    json_builder_set_member_name(b, "duration");
    json_builder_add_double_value(b, s->duration);
    json_builder_set_member_name(b, "objectives");
    json_builder_begin_array(b);
    for (guint i = 0; i < obj->len; ++i)
        json_builder_add_string_value(b, m->objectives[g_array_index(obj, int, i)].name);
    json_builder_end_array(b);
    json_builder_set_member_name(b, "parameters");
    json_builder_begin_array(b);
    for (guint k = 0; k < par->len; ++k)
        json_builder_add_string_value(b, m->parameters[g_array_index(par, int, k)].name);
    json_builder_end_array(b);
    json_builder_set_member_name(b, "parameter_values");
    json_builder_begin_array(b);
    for (guint k = 0; k < par->len; ++k)
        json_builder_add_double_value(b, m->parameters[g_array_index(par, int, k)].value);
    json_builder_end_array(b);
    json_builder_set_member_name(b, "psi");
    json_builder_begin_array(b);
    for (guint i = 0; i < obj->len; ++i)
        json_builder_add_double_value(b, r->psi[i]);
    json_builder_end_array(b);
    json_builder_set_member_name(b, "gradient");
    json_builder_begin_array(b);
    for (guint i = 0; i < obj->len; ++i) {
        json_builder_begin_array(b);
        for (guint k = 0; k < par->len; ++k)
            json_builder_add_double_value(b, r->gradient[i * par->len + k]);
        json_builder_end_array(b);
    }
    json_builder_end_array(b);
    json_builder_set_member_name(b, "steps");
    json_builder_add_int_value(b, r->steps);
    json_builder_set_member_name(b, "time_dynamics");
    json_builder_add_double_value(b, r->time_dynamics);
    json_builder_set_member_name(b, "time_sensitivity");
    json_builder_add_double_value(b, r->time_sensitivity);
    json_builder_end_object(b);
    g_autoptr(JsonNode) root = json_builder_get_root(b);
    return esl_json_generate(root, pretty);
}

void esl_cli_report_unreadable(EslProject *project, const char *command)
{
    int n = esl_project_unreadable_on_open(project);
    if (n > 0)
        fprintf(stderr,
                "eslabon-cli %s: %s: %d run%s could not be read whole when the project was "
                "migrated; kept, marked failed with the reason\n",
                command, esl_project_path(project), n, n == 1 ? "" : "s");
}

EslProject *esl_cli_open_project(const char *path, const char *model_path, const MbsModel *m,
                                 gint64 *model_id, GError **error)
{
    g_autoptr(EslProject) project = esl_project_open(path, TRUE, error);
    g_autofree char *model_text = NULL;
    if (!project || !g_file_get_contents(model_path, &model_text, NULL, error))
        return NULL;
    esl_cli_report_unreadable(project, "sensitivity");
    *model_id = esl_project_add_model(project, m->name, model_path, model_text, error);
    return *model_id ? g_steal_pointer(&project) : NULL;
}

/* --project: the run (model, formulation, settings), what is differentiated, and a recorder. */
typedef struct {
    EslProject *project;
    EslSensitivityRecorder *recorder;
} Store;

static void store_free(Store *store)
{
    if (!store)
        return;
    esl_sensitivity_recorder_free(store->recorder);
    esl_project_close(store->project);
    g_free(store);
}
G_DEFINE_AUTOPTR_CLEANUP_FUNC(Store, store_free)

static Store *open_store(const char *path, const char *model_path, const MbsModel *m,
                         const char *formulation, const EslSensitivityChoice *choice,
                         const MbsSettings *s, GError **error)
{
    g_autoptr(Store) store = g_new0(Store, 1);
    gint64 model_id = 0;
    store->project = esl_cli_open_project(path, model_path, m, &model_id, error);
    if (!store->project)
        return NULL;
    EslRunRequest req = {.model_name = m->name, .model_id = model_id,
                         .formulation = formulation, .settings = *s};
    gint64 run_id = esl_sensitivity_recorder_begin(store->project, &req, m, choice, error);
    if (!run_id)
        return NULL;
    store->recorder = esl_sensitivity_recorder_new(store->project, run_id, choice->nobjectives,
                                                   choice->nparameters);
    return g_steal_pointer(&store);
}

int esl_cli_sensitivity(int argc, char **argv)
{
    char *formulation = NULL, *method = NULL, *objectives = NULL, *parameters = NULL;
    char *project = NULL, *history = NULL, *state_history = NULL, *points = NULL;
    gboolean json = FALSE;
    double fd_step = 0.0;
    int threads = 0;
    GOptionEntry entries[] = {
        {"formulation", 'f', 0, G_OPTION_ARG_STRING, &formulation, "Formulation (penalty, ...)", "NAME"},
        {"method", 'm', 0, G_OPTION_ARG_STRING, &method, "direct, adjoint or fd", "METHOD"},
        {"objectives", 0, 0, G_OPTION_ARG_STRING, &objectives, "Objectives (default: all)", "A,B"},
        {"parameters", 0, 0, G_OPTION_ARG_STRING, &parameters,
         "Parameters (default: every parameter with a value of its own)", "A,B"},
        {"fd-step", 0, 0, G_OPTION_ARG_DOUBLE, &fd_step, "fd: relative increment (1e-5)", "D"},
        {"fd-threads", 0, 0, G_OPTION_ARG_INT, &threads, "fd: parallel runs (0: all cores)", "N"},
        {"history", 0, 0, G_OPTION_ARG_FILENAME, &history,
         "direct: write psi(t) and its gradient at every step as CSV", "FILE"},
        {"state-history", 0, 0, G_OPTION_ARG_FILENAME, &state_history,
         "direct method: write d q / d rho of every coordinate at every step as CSV",
         "FILE"},
        {"points", 0, 0, G_OPTION_ARG_STRING, &points,
         "direct method: d r / d rho of these points too, in the --state-history CSV and the "
         "project", "BODY:POINT,..."},
        {"project", 'p', 0, G_OPTION_ARG_FILENAME, &project, "Store the result in a project", "FILE"},
        {"json", 0, 0, G_OPTION_ARG_NONE, &json, "Print JSON", NULL},
        {NULL, 0, 0, 0, NULL, NULL, NULL},
    };
    g_autoptr(GOptionContext) ctx =
        g_option_context_new("MODEL - gradients of the model's objectives w.r.t. its parameters");
    g_option_context_add_main_entries(ctx, entries, NULL);
    EslSettingFlags flags;
    esl_setting_flags_init(&flags);
    g_option_context_add_main_entries(ctx, flags.entries, NULL);
    EslMethodFlags method_flags;
    esl_method_flags_init(&method_flags);
    g_option_context_add_main_entries(ctx, method_flags.entries, NULL);
    MbsSettings method_options; /* holds the method's own options, when it has a table */
    mbs_settings_defaults(&method_options);
    g_autoptr(GError) error = NULL;
    g_autoptr(GArray) obj = g_array_new(FALSE, FALSE, sizeof(int));
    g_autoptr(GArray) par = g_array_new(FALSE, FALSE, sizeof(int));
    g_autoptr(GArray) point_index = NULL;
    g_autoptr(EslPointSensitivity) point_sensitivity = NULL;
    g_autofree double *dr = NULL;
    g_autofree char *resolved = NULL;
    g_autofree char *js = NULL;
    g_autofree double *psi = NULL;
    g_autofree double *gradient = NULL;
    MbsModel *m = NULL;
    g_autoptr(Store) store = NULL;
    int status = 2, imethod = -1;
    MbsSettings s;
    mbs_settings_defaults(&s);

    if (!g_option_context_parse(ctx, &argc, &argv, &error)) {
        fprintf(stderr, "eslabon-cli sensitivity: %s\n", error->message);
        goto out;
    }
    if (argc != 2) {
        fprintf(stderr, "eslabon-cli sensitivity: expected one MODEL file\n");
        goto out;
    }
    if (!formulation)
        formulation = g_strdup("penalty");
    if (!mbs_formulation_find(formulation)) {
        fprintf(stderr, "eslabon-cli sensitivity: unknown formulation '%s'\n", formulation);
        goto out;
    }
    imethod = mbs_sensitivity_method_from_name(method ? method : "direct");
    if (imethod < 0) {
        fprintf(stderr, "eslabon-cli sensitivity: unknown method '%s' (direct, adjoint or fd)\n",
                method);
        goto out;
    }
    if ((status = esl_method_flags_apply(&method_flags, formulation, imethod, &method_options)))
        goto out;
    resolved = esl_resolve_model_path(argv[1]);
    m = esl_sensitivity_load("sensitivity", resolved, formulation, objectives, parameters, &flags,
                             &s, obj, par, &status);
    if (!m)
        goto out;
    status = 1;
    if (esl_sensitivity_choose_integrator(formulation, imethod, &flags, &s))
        fprintf(json ? stderr : stdout, "%s\n", esl_sensitivity_integrator_note);
    MbsError err = {0};
    psi = g_new0(double, obj->len);
    gradient = g_new0(double, (gsize)obj->len * par->len);
    MbsSensitivityProblem p = {
        .model = m, .formulation = formulation, .settings = &s,
        .objectives = (const int *)(void *)obj->data, .nobjectives = (int)obj->len,
        .parameters = (const int *)(void *)par->data, .nparameters = (int)par->len,
        .fd_step = fd_step, .threads = threads,
        .method_options = esl_method_options_bytes(&method_options),
    };
    MbsSensitivityResult r = {.psi = psi, .gradient = gradient};
    History hist = {.nobjectives = obj->len, .nparameters = par->len, .every = 1};
    StateHistory shist = {.model = m, .parameters = par};
    gboolean with_state =
        mbs_sensitivity_has_state_history(formulation, (MbsSensitivityMethod)imethod);
    if ((state_history || points) && !with_state) { /* before any file is made */
        fprintf(stderr, "eslabon-cli sensitivity: %s: only the direct method "
                        "(penalty, ali3p, matrix-r) steps d q / d rho\n",
                state_history ? "--state-history" : "--points");
        status = 2;
        goto out;
    }
    if (points) {
        point_index = esl_points_parse(m, points, &error);
        point_sensitivity =
            point_index ? esl_point_sensitivity_new(
                              m, mbs_formulation_find(formulation)->coordinate_kind,
                              (const int *)(void *)point_index->data, (int)point_index->len,
                              (const int *)(void *)par->data, (int)par->len, &error)
                        : NULL;
        if (!point_sensitivity) {
            fprintf(stderr, "eslabon-cli sensitivity: %s\n", error->message);
            status = 2;
            goto out;
        }
        dr = g_new0(double, (gsize)esl_point_sensitivity_outputs(point_sensitivity) * par->len);
        shist.points = point_sensitivity;
        shist.point_index = point_index;
        shist.dr = dr;
    }
    if (history) {
        if (imethod != MBS_SENSITIVITY_DIRECT) {
            fprintf(stderr, "eslabon-cli sensitivity: --history: only the direct method gives "
                            "histories (fd and adjoint give the final gradient)\n");
            status = 2;
            goto out;
        }
        hist.out = fopen(history, "w");
        if (!hist.out) {
            fprintf(stderr, "eslabon-cli sensitivity: cannot write '%s'\n", history);
            goto out;
        }
        fprintf(hist.out, "time");
        for (guint i = 0; i < obj->len; ++i)
            fprintf(hist.out, ",%s", m->objectives[g_array_index(obj, int, i)].name);
        for (guint i = 0; i < obj->len; ++i)
            for (guint k = 0; k < par->len; ++k)
                fprintf(hist.out, ",d%s/d%s", m->objectives[g_array_index(obj, int, i)].name,
                        m->parameters[g_array_index(par, int, k)].name);
        fprintf(hist.out, "\n");
    }
    /* the coordinates' sensitivities: into a CSV, and with the stored rows (the window
     * replays them) */
    if (state_history) {
        shist.out = fopen(state_history, "w");
        if (!shist.out) {
            fprintf(stderr, "eslabon-cli sensitivity: cannot write '%s'\n", state_history);
            goto out;
        }
    }
    if (project) {
        EslSensitivityChoice choice = {
            .method = (MbsSensitivityMethod)imethod,
            .method_options = method_options.options_table ? &method_options : NULL,
            .objectives = (const int *)(void *)obj->data, .nobjectives = (int)obj->len,
            .parameters = (const int *)(void *)par->data, .nparameters = (int)par->len,
            .points = point_index ? (const int *)(void *)point_index->data : NULL,
            .npoints = point_index ? (int)point_index->len : 0};
        store = open_store(project, resolved, m, formulation, &choice, &s, &error);
        if (!store) {
            fprintf(stderr, "eslabon-cli sensitivity: %s\n", error->message);
            goto out;
        }
        hist.recorder = store->recorder;
        hist.every = mbs_run_step_count(s.duration, s.step) / PROJECT_HISTORY_ROWS + 1;
    }
    if (hist.out || (hist.recorder && imethod == MBS_SENSITIVITY_DIRECT)) {
        p.history = write_history;
        p.history_data = &hist;
    }
    shist.recorder = hist.recorder; /* the coordinates' sensitivities of the stored rows */
    if (with_state && (shist.out || shist.recorder)) {
        p.state_history = write_state_history;
        p.state_history_data = &shist;
    }
    double wall0 = g_get_monotonic_time() * 1e-6;
    int failed = mbs_sensitivity_compute(&p, (MbsSensitivityMethod)imethod, &r, &err);
    gboolean written = !hist.out || esl_cli_close_output(hist.out, history, "sensitivity");
    written = (!shist.out || esl_cli_close_output(shist.out, state_history, "sensitivity")) &&
              written;
    if (failed)
        fprintf(stderr, "eslabon-cli sensitivity: %s: %s\n", resolved, err.message);
    js = failed ? NULL
                : result_json(m, resolved, formulation, mbs_sensitivity_method_name(imethod),
                              &method_options, &s, obj, par, &r, FALSE);
    if (store && !esl_sensitivity_recorder_finish(
                     store->recorder, failed ? ESL_RUN_FAILED : ESL_RUN_FINISHED,
                     failed ? NULL : psi, failed ? NULL : gradient, failed ? err.message : NULL,
                     js, g_get_monotonic_time() * 1e-6 - wall0, &error)) {
        fprintf(stderr, "eslabon-cli sensitivity: %s: %s\n", project, error->message);
        goto out;
    }
    if (failed)
        goto out;
    if (json) {
        g_free(js);
        js = result_json(m, resolved, formulation, mbs_sensitivity_method_name(imethod),
                         &method_options, &s, obj, par, &r, TRUE);
        printf("%s\n", js);
    } else {
        printf("%s: %s, %s sensitivities, h = %g s, %g s (%ld steps)\n", resolved, formulation,
               mbs_sensitivity_method_name(imethod), s.step, s.duration, r.steps);
        printf("  wall time: dynamics %.3f s, sensitivities %.3f s\n", r.time_dynamics,
               r.time_sensitivity);
        printf("  %-12s %-16s", "objective", "psi");
        for (guint k = 0; k < par->len; ++k)
            printf(" d/d%-13s", m->parameters[g_array_index(par, int, k)].name);
        printf("\n");
        for (guint i = 0; i < obj->len; ++i) {
            printf("  %-12s %-16.8g", m->objectives[g_array_index(obj, int, i)].name, psi[i]);
            for (guint k = 0; k < par->len; ++k)
                printf(" %-16.8g", gradient[i * par->len + k]);
            printf("\n");
        }
    }
    status = written ? 0 : 1;
out:
    mbs_model_free(m);
    g_free(formulation);
    g_free(method);
    g_free(objectives);
    g_free(parameters);
    g_free(project);
    g_free(history);
    g_free(state_history);
    g_free(points);
    esl_setting_flags_clear(&flags);
    esl_method_flags_clear(&method_flags);
    return status;
}
