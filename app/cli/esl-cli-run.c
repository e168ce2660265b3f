/* eslabon-cli run: one simulation, summary as text or JSON (keys in docs/cli.md), optional
 * history CSV and optional storage in a project file. */
#include <glib.h>
#include <json-glib/json-glib.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "esl-cli.h"
#include "esl-cli-sensitivity.h"
#include "esl-cli-settings.h"
#include "esl-model-file.h"
#include "esl-models-dir.h"
#include "esl-points.h"
#include "esl-project.h"
#include "esl-run-recorder.h"
#include "esl-settings-json.h"
#include "mbs_clock.h"
#include "mbs_run.h"

#define SAMPLES_MAX 4000 /* stored in a project per run: enough to replay and re-plot */

typedef struct {
    char *formulation;
    char **set;
    char *output, *project, *points, *variables;
    double output_step;
    gboolean json;
} RunOptions;

/* --set NAME=VALUE, into overrides (names point into opts->set). */
static gboolean parse_overrides(char **set, GArray *overrides, GError **error)
{
    for (int i = 0; set && set[i]; ++i) {
        char *eq = strchr(set[i], '=');
        char *end = NULL;
        double v = eq ? g_ascii_strtod(eq + 1, &end) : NAN;
        if (!eq || eq == set[i] || !end || *end || !isfinite(v)) {
            g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                        "--set '%s': expected PARAMETER=NUMBER", set[i]);
            return FALSE;
        }
        *eq = '\0';
        EslParameterOverride o = {set[i], v};
        g_array_append_val(overrides, o);
    }
    return TRUE;
}

static char *overrides_json(GArray *overrides)
{
    if (overrides->len == 0)
        return NULL;
    g_autoptr(JsonBuilder) b = json_builder_new();
    json_builder_begin_object(b);
    for (guint i = 0; i < overrides->len; ++i) {
        EslParameterOverride *o = &g_array_index(overrides, EslParameterOverride, i);
        json_builder_set_member_name(b, o->name);
        json_builder_add_double_value(b, o->value);
    }
    json_builder_end_object(b);
    g_autoptr(JsonNode) root = json_builder_get_root(b);
    return esl_json_generate(root, FALSE);
}

static void print_text(const char *path, const MbsFormulation *f, const MbsRunSummary *s,
                       double wall)
{
    printf("%s: %s, h = %g s, %ld steps to t = %g s in %.3f s (real-time factor %.2f)\n", path,
           f->klass->name, f->settings.step, s->steps, f->time, wall,
           wall > 0 ? f->time / wall : 0.0);
    printf("  energy: E(0) = %.6g J, max |E - E(0)| = %.3e J, max kinetic %.6g J\n", s->energy0,
           s->energy_drift_max, s->kinetic_energy_max);
    printf("  constraints: max ||Phi|| %.3e, ||Phi_dot|| %.3e, ||Phi_ddot|| %.3e\n",
           s->constraint_position_max, s->constraint_velocity_max,
           s->constraint_acceleration_max);
    printf("  Newton iterations %ld, Jacobian evaluations %ld\n", s->newton_iterations,
           s->jacobian_evaluations);
    /* the tangent's size, for formulations that publish it (statistics hook) */
    double columns = mbs_formulation_statistic(f, "jacobian_columns", NAN);
    double jacobian = mbs_settings_number(&f->settings, "jacobian");
    if (!isnan(columns) && !isnan(jacobian))
        printf("  Jacobian %s: n = %.0f columns, p = %.0f perturbation groups (colours), "
               "%.0f structural nonzeros\n", mbs_jacobian_method_name((MbsJacobianMethod)jacobian),
               columns, mbs_formulation_statistic(f, "jacobian_colours", NAN),
               mbs_formulation_statistic(f, "jacobian_nonzeros", NAN));
    printf("  time by phase: dynamics %.3f s, Jacobian %.3f s, factorization %.3f s, projections %.3f s\n",
           s->time_dynamics, s->time_jacobian, s->time_factorization, s->time_projection);
    if (s->step_cuts)
        printf("  step cut %ld times after a failed step (smallest step %g s)\n", s->step_cuts,
               s->step_min);
}

int esl_cli_run(int argc, char **argv)
{
    RunOptions o = {.formulation = NULL};
    GOptionEntry entries[] = {
        {"formulation", 'f', 0, G_OPTION_ARG_STRING, &o.formulation, "Formulation (penalty, ...)", "NAME"},
        {"set", 0, 0, G_OPTION_ARG_STRING_ARRAY, &o.set, "Override a model parameter", "NAME=VALUE"},
        {"output", 'o', 0, G_OPTION_ARG_FILENAME, &o.output, "Write the history as CSV", "FILE"},
        {"points", 0, 0, G_OPTION_ARG_STRING, &o.points, "Add each point's position and velocity to the CSV history", "BODY:POINT,..."},
        {"variables", 0, 0, G_OPTION_ARG_STRING, &o.variables, "Add these variables (joint angles and rates, body energies...) to the CSV history", "NAME,..."},
        {"output-step", 0, 0, G_OPTION_ARG_DOUBLE, &o.output_step, "Write a CSV row every DT seconds (a multiple of the step)", "DT"},
        {"project", 'p', 0, G_OPTION_ARG_FILENAME, &o.project, "Store the run in a project", "FILE"},
        {"json", 0, 0, G_OPTION_ARG_NONE, &o.json, "Print the summary as JSON", NULL},
        {NULL, 0, 0, 0, NULL, NULL, NULL},
    };
    g_autoptr(GOptionContext) ctx = g_option_context_new("MODEL - run a simulation");
    g_option_context_add_main_entries(ctx, entries, NULL);
    EslSettingFlags flags;
    esl_setting_flags_init(&flags);
    g_option_context_add_main_entries(ctx, flags.entries, NULL);
    g_autofree char *settings_help = esl_setting_flags_help();
    g_option_context_set_description(ctx, settings_help);
    g_autoptr(GError) error = NULL;
    g_autoptr(GArray) overrides = g_array_new(FALSE, FALSE, sizeof(EslParameterOverride));
    g_autoptr(GArray) points = NULL;
    g_autoptr(GArray) variables = NULL;
    int status = 1;
    MbsModel *m = NULL;
    MbsFormulation *f = NULL;
    MbsRun *run = NULL;
    EslRunRecorder *recorder = NULL;
    FILE *csv = NULL;
    EslProject *project = NULL;
    gint64 run_id = 0;
    g_autofree char *model_text = NULL;
    g_autofree char *resolved = NULL;
    g_autofree char *message = NULL, *warning = NULL;
    g_autofree char *js = NULL;
    g_autofree char *compact = NULL;

    if (!g_option_context_parse(ctx, &argc, &argv, &error) || !parse_overrides(o.set, overrides, &error)) {
        fprintf(stderr, "eslabon-cli run: %s\n", error->message);
        status = 2;
        goto out;
    }
    if ((o.points || o.variables || o.output_step != 0.0) && !o.output) {
        fprintf(stderr,
                "eslabon-cli run: --points, --variables and --output-step need --output FILE\n");
        status = 2;
        goto out;
    }
    if (argc != 2) {
        fprintf(stderr, "eslabon-cli run: expected one MODEL file\n");
        status = 2;
        goto out;
    }
    resolved = esl_resolve_model_path(argv[1]);
    const char *path = resolved;
    if (!o.formulation)
        o.formulation = g_strdup("penalty");
    if (!mbs_formulation_find(o.formulation)) {
        fprintf(stderr, "eslabon-cli run: unknown formulation '%s'; available:", o.formulation);
        for (int i = 0; i < mbs_formulation_count(); ++i)
            fprintf(stderr, " %s", mbs_formulation_class(i)->name);
        fprintf(stderr, "\n");
        status = 2;
        goto out;
    }
    MbsSettings s;
    mbs_settings_defaults(&s);

    m = esl_model_load_file(path, (EslParameterOverride *)(void *)overrides->data,
                            (int)overrides->len, &error);
    if (!m) {
        fprintf(stderr, "eslabon-cli run: %s\n", error->message);
        goto out;
    }
    if ((status = esl_setting_flags_apply(&flags, mbs_formulation_find(o.formulation), m, &s))) {
        goto out;
    }
    status = 1;
    MbsError err = {0};
    double wall0 = mbs_clock_now();
    f = mbs_settings_check_run(&s, &err) ? NULL : mbs_formulation_new(o.formulation, m, &s, &err);
    if (!f) {
        fprintf(stderr, "eslabon-cli run: %s: %s\n", path, err.message);
        goto out;
    }
    long nsteps = mbs_run_step_count(s.duration, s.step);
    long csv_every = 1;
    if (o.output_step != 0.0) {
        double ratio = o.output_step / s.step;
        csv_every = isfinite(ratio) ? lround(ratio) : 0;
        if (csv_every < 1 || fabs(ratio - (double)csv_every) > 1e-9 * ratio) {
            fprintf(stderr, "eslabon-cli run: --output-step %g is not a positive multiple of the "
                            "step %g s\n", o.output_step, s.step);
            status = 2;
            goto out;
        }
    }
    if (o.points && !(points = esl_points_parse(m, o.points, &error))) {
        fprintf(stderr, "eslabon-cli run: %s\n", error->message);
        status = 2;
        goto out;
    }
    if (o.variables && !(variables = esl_variables_parse(m, o.variables, &error))) {
        fprintf(stderr, "eslabon-cli run: --variables: %s\n", error->message);
        status = 2;
        goto out;
    }
    for (guint i = 0; variables && i < variables->len; i++) {
        const EslVariable *v = &g_array_index(variables, EslVariable, i);
        if (!esl_variable_is_instantaneous(v)) {
            g_autofree char *name = esl_variable_name(m, v);
            fprintf(stderr, "eslabon-cli run: --variables: '%s' is an acceleration, which the "
                            "history does not have at a single state\n", name);
            status = 2;
            goto out;
        }
    }
    if (o.output) {
        csv = fopen(o.output, "w");
        if (!csv) {
            fprintf(stderr, "eslabon-cli run: cannot write '%s': %s\n", o.output, g_strerror(errno));
            goto out;
        }
    }
    recorder = esl_run_recorder_new(m);
    esl_run_recorder_set_sample_every(recorder, nsteps / SAMPLES_MAX + 1, nsteps);
    if (points)
        esl_run_recorder_set_csv_points(recorder, (const int *)(void *)points->data,
                                        (int)points->len, csv_every);
    else
        esl_run_recorder_set_csv_points(recorder, NULL, 0, csv_every);
    if (variables)
        esl_run_recorder_set_csv_variables(recorder, (const EslVariable *)(void *)variables->data,
                                           (int)variables->len);
    esl_run_recorder_set_csv(recorder, csv);
    if (o.project) {
        project = esl_project_open(o.project, TRUE, &error);
        if (!project || !g_file_get_contents(path, &model_text, NULL, &error)) {
            fprintf(stderr, "eslabon-cli run: %s\n", error->message);
            goto out;
        }
        esl_cli_report_unreadable(project, "run");
        gint64 model_id = esl_project_add_model(project, m->name, path, model_text, &error);
        g_autofree char *params = overrides_json(overrides);
        EslRunRequest req = {.model_name = m->name, .model_id = model_id,
                             .formulation = o.formulation, .settings = s,
                             .parameters_json = params, .nbodies = m->nbodies,
                             .njoints = m->njoints};
        run_id = model_id ? esl_project_begin_run(project, &req, &error) : 0;
        if (!run_id) {
            fprintf(stderr, "eslabon-cli run: %s\n", error->message);
            goto out;
        }
        esl_run_recorder_set_project(recorder, project, run_id);
    }

    MbsRunObserver observer = {.sample = esl_run_recorder_sample,
                               .internal_step = esl_run_recorder_internal_step,
                               .data = recorder,
                               .every = 1};
    run = mbs_run_new(f, NULL, &observer, &err);
    if (!run) {
        fprintf(stderr, "eslabon-cli run: %s: %s\n", path, err.message);
        goto out;
    }
    const char *run_status = "finished";
    if (mbs_run_advance(run, s.duration) == MBS_RUN_FAILED) {
        run_status = "failed";
        message = g_strdup_printf("%s: %s", path, mbs_run_error(run)->message);
    }
    const MbsRunSummary *sum = mbs_run_summary(run);
    double wall = mbs_clock_now() - wall0;
    EslRunSummaryInfo info = {.model_path = path, .model_name = m->name,
                              .formulation = o.formulation, .status = run_status,
                              .message = message, .wall_seconds = wall};
    js = esl_run_summary_json(&info, run, TRUE);
    warning = esl_run_warning(run);
    if (project) {
        compact = esl_run_summary_json(&info, run, FALSE);
        if (!esl_run_recorder_finish(recorder, message ? ESL_RUN_FAILED : ESL_RUN_FINISHED,
                                     message ? message : warning, compact, wall, &error)) {
            fprintf(stderr, "eslabon-cli run: %s\n", error->message);
            goto out;
        }
    }
    if (o.json)
        printf("%s\n", js);
    else
        print_text(path, f, sum, wall);
    gboolean written = !csv || esl_cli_close_output(csv, o.output, "run");
    csv = NULL;
    if (warning)
        fprintf(stderr, "eslabon-cli run: warning: %s: %s\n", path, warning);
    if (message)
        fprintf(stderr, "eslabon-cli run: %s\n", message);
    else if (written)
        status = 0;

out:
    if (csv)
        fclose(csv);
    mbs_run_free(run);
    esl_run_recorder_free(recorder);
    if (project)
        esl_project_close(project);
    mbs_formulation_free(f);
    mbs_model_free(m);
    g_free(o.formulation);
    g_free(o.output);
    g_free(o.project);
    g_free(o.points);
    g_free(o.variables);
    g_strfreev(o.set);
    esl_setting_flags_clear(&flags);
    return status;
}
