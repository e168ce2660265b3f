/* eslabon-cli compare: several formulations on one model from one initial state, against a
 * reference run at a much smaller step (issue 4 "side by side"). */
#include <glib.h>
#include <json-glib/json-glib.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "esl-cli.h"
#include "esl-model-file.h"
#include "esl-settings-json.h"
#include "esl-models-dir.h"
#include "esl-points.h"
#include "mbs_trajectory.h"

typedef struct {
    char *formulations, *reference, *points, *jacobian;
    double step, duration, reference_step, alpha;
    gboolean json;
} CompareOptions;

static void print_table(const CompareOptions *o, const char *path, char **forms,
                        MbsTrajectory *runs, const double *dev, const MbsTrajectory *ref)
{
    printf("# %s: h = %g s, %g s simulated; reference %s at h = %g s; deviation = max over "
           "samples and points of |r - r_ref| (m)\n",
           path, o->step, o->duration, o->reference, o->reference_step);
    printf("| formulation | wall (s) | steps | Newton it. | energy drift (J) | max ‖Φ‖ | max ‖Φ̇‖ | "
           "max deviation (m) |\n|---|---:|---:|---:|---:|---:|---:|---:|\n");
    for (int i = 0; forms[i]; ++i) {
        const MbsTrajectory *t = &runs[i];
        if (!t->time) {
            printf("| %s | failed to start: %s | | | | | | |\n", forms[i], t->error.message);
            continue;
        }
        printf("| %s%s | %.3f | %ld | %ld | %.3e | %.2e | %.2e | %.3e |\n", forms[i],
               t->failed ? " (failed)" : "", t->wall_seconds, t->summary.steps,
               t->summary.newton_iterations, t->summary.energy_drift_max,
               t->summary.constraint_position_max, t->summary.constraint_velocity_max, dev[i]);
        if (t->failed)
            printf("|  | %s | | | | | | |\n", t->error.message);
    }
    printf("| reference (%s) | %.3f | %ld | %ld | %.3e | %.2e | %.2e | |\n", o->reference,
           ref->wall_seconds, ref->summary.steps, ref->summary.newton_iterations,
           ref->summary.energy_drift_max, ref->summary.constraint_position_max,
           ref->summary.constraint_velocity_max);
}

static void print_json(const CompareOptions *o, const char *path, char **forms,
                       MbsTrajectory *runs, const double *dev)
{
    g_autoptr(JsonBuilder) b = json_builder_new();
    json_builder_begin_object(b);
    json_builder_set_member_name(b, "model");
    json_builder_add_string_value(b, path);
    json_builder_set_member_name(b, "step");
    json_builder_add_double_value(b, o->step);
    json_builder_set_member_name(b, "duration");
    json_builder_add_double_value(b, o->duration);
    json_builder_set_member_name(b, "reference_formulation");
    json_builder_add_string_value(b, o->reference);
    json_builder_set_member_name(b, "reference_step");
    json_builder_add_double_value(b, o->reference_step);
    json_builder_set_member_name(b, "runs");
    json_builder_begin_array(b);
    for (int i = 0; forms[i]; ++i) {
        const MbsTrajectory *t = &runs[i];
        json_builder_begin_object(b);
        json_builder_set_member_name(b, "formulation");
        json_builder_add_string_value(b, forms[i]);
        json_builder_set_member_name(b, "status");
        json_builder_add_string_value(b, !t->time ? "not-started" : t->failed ? "failed" : "finished");
        if (!t->time || t->failed) {
            json_builder_set_member_name(b, "error");
            json_builder_add_string_value(b, t->error.message);
        }
        if (t->time) {
#define D(k, v) (json_builder_set_member_name(b, k), json_builder_add_double_value(b, v))
            D("wall_seconds", t->wall_seconds);
            json_builder_set_member_name(b, "steps");
            json_builder_add_int_value(b, t->summary.steps);
            json_builder_set_member_name(b, "newton_iterations");
            json_builder_add_int_value(b, t->summary.newton_iterations);
            D("energy_drift_max", t->summary.energy_drift_max);
            D("constraint_position_max", t->summary.constraint_position_max);
            D("constraint_velocity_max", t->summary.constraint_velocity_max);
            D("constraint_acceleration_max", t->summary.constraint_acceleration_max);
            D("trajectory_deviation_max", dev[i]);
#undef D
        }
        json_builder_end_object(b);
    }
    json_builder_end_array(b);
    json_builder_end_object(b);
    g_autoptr(JsonNode) root = json_builder_get_root(b);
    g_autofree char *text = esl_json_generate(root, TRUE);
    printf("%s\n", text);
}

/* --alpha reaches every formulation with a penalty factor (the others have none to set);
 * --jacobian every formulation with a tangent that offers the method: one that refuses it (ad on
 * ali3p) keeps its default, and stderr says so. */
static MbsSettings with_options(const MbsSettings *common, const char *formulation,
                                const CompareOptions *o, const MbsModel *m, GHashTable *told)
{
    MbsSettings s = *common;
    if (o->alpha > 0)
        mbs_settings_set_number_for(&s, formulation, "alpha", o->alpha, NULL);
    MbsSettings chosen = s;
    MbsError err = {0};
    if (o->jacobian && !mbs_settings_set_for(&chosen, formulation, "jacobian", o->jacobian, NULL)) {
        if (mbs_formulation_check_settings(mbs_formulation_find(formulation), m, &chosen, &err)) {
            /* once per formulation, though the reference may run it too */
            if (g_hash_table_add(told, (gpointer)formulation))
                fprintf(stderr, "eslabon-cli compare: %s keeps its default Jacobian method: %s\n",
                        formulation, err.message);
        } else
            s = chosen;
    }
    return s;
}

int esl_cli_compare(int argc, char **argv)
{
    CompareOptions o = {.step = 1e-2, .duration = 5.0};
    GOptionEntry entries[] = {
        {"formulations", 'f', 0, G_OPTION_ARG_STRING, &o.formulations, "Comma-separated list (default: all)", "A,B,..."},
        {"step", 'h', 0, G_OPTION_ARG_DOUBLE, &o.step, "Time step, s (default 0.01)", "H"},
        {"duration", 't', 0, G_OPTION_ARG_DOUBLE, &o.duration, "Simulated time, s (default 5)", "T"},
        {"reference-step", 0, 0, G_OPTION_ARG_DOUBLE, &o.reference_step, "Step of the reference run (default H/10; H must be a multiple)", "H_REF"},
        {"reference-formulation", 0, 0, G_OPTION_ARG_STRING, &o.reference, "Formulation of the reference run (default matrix-r, the 4th-order RK4, when available)", "NAME"},
        {"points", 0, 0, G_OPTION_ARG_STRING, &o.points, "Points compared (default: all points of moving bodies)", "BODY:POINT,..."},
        {"alpha", 0, 0, G_OPTION_ARG_DOUBLE, &o.alpha, "Penalty factor for every run", "A"},
        {"jacobian", 0, 0, G_OPTION_ARG_STRING, &o.jacobian, "Jacobian method (the jacobian setting) of every run that offers it", "METHOD"},
        {"json", 0, 0, G_OPTION_ARG_NONE, &o.json, "Print JSON", NULL},
        {NULL, 0, 0, 0, NULL, NULL, NULL},
    };
    g_autoptr(GOptionContext) ctx = g_option_context_new("MODEL - compare formulations");
    g_option_context_add_main_entries(ctx, entries, NULL);
    g_autoptr(GError) error = NULL;
    g_auto(GStrv) forms = NULL;
    g_autoptr(GArray) pts = NULL;
    g_autofree char *path = NULL;
    MbsModel *m = NULL;
    MbsTrajectory *runs = NULL, ref = {0};
    double *dev = NULL;
    int status = 2, n = 0;
    GHashTable *told = NULL; /* formulations whose refusal of --jacobian was printed */

    if (!g_option_context_parse(ctx, &argc, &argv, &error)) {
        fprintf(stderr, "eslabon-cli compare: %s\n", error->message);
        goto out;
    }
    if (argc != 2 || !(o.step > 0) || !(o.duration > 0)) {
        fprintf(stderr, "eslabon-cli compare: expected one MODEL, a positive --step and --duration\n");
        goto out;
    }
    if (o.formulations) {
        forms = g_strsplit(o.formulations, ",", -1);
    } else {
        forms = g_new0(char *, mbs_formulation_count() + 1);
        for (int i = 0; i < mbs_formulation_count(); ++i)
            forms[i] = g_strdup(mbs_formulation_class(i)->name);
    }
    n = (int)g_strv_length(forms);
    for (int i = 0; i < n; ++i)
        if (!mbs_formulation_find(forms[i])) {
            fprintf(stderr, "eslabon-cli compare: unknown formulation '%s'\n", forms[i]);
            goto out;
        }
    if (!o.reference)
        o.reference = g_strdup(mbs_formulation_find("matrix-r") ? "matrix-r" : forms[0]);
    if (!mbs_formulation_find(o.reference)) {
        fprintf(stderr, "eslabon-cli compare: unknown reference formulation '%s'\n", o.reference);
        goto out;
    }
    if (o.jacobian && mbs_jacobian_method_from_name(o.jacobian) < 0) {
        fprintf(stderr, "eslabon-cli compare: unknown Jacobian method '%s'\n", o.jacobian);
        goto out;
    }
    if (o.reference_step <= 0)
        o.reference_step = o.step / 10.0;
    double ratio = o.step / o.reference_step;
    if (fabs(ratio - round(ratio)) > 1e-9 * ratio || ratio < 1) {
        fprintf(stderr, "eslabon-cli compare: --step %g must be a multiple of --reference-step %g\n",
                o.step, o.reference_step);
        goto out;
    }
    status = 1;
    path = esl_resolve_model_path(argv[1]);
    m = esl_model_load_file(path, NULL, 0, &error);
    if (!m || !(pts = esl_points_parse(m, o.points, &error))) {
        fprintf(stderr, "eslabon-cli compare: %s\n", error->message);
        goto out;
    }
    MbsSettings s;
    mbs_settings_defaults(&s);
    s.duration = o.duration;
    MbsError err = {0};
    s.step = o.reference_step;
    told = g_hash_table_new(g_str_hash, g_str_equal);
    MbsSettings sr = with_options(&s, o.reference, &o, m, told);
    if (mbs_trajectory_record(m, o.reference, &sr, (int)round(ratio), (int *)(void *)pts->data,
                              (int)pts->len, &ref, &err) != 0 || ref.failed) {
        fprintf(stderr, "eslabon-cli compare: %s: reference run (%s, h = %g s) failed: %s\n",
                argv[1], o.reference, o.reference_step, ref.failed ? ref.error.message : err.message);
        goto out;
    }
    runs = g_new0(MbsTrajectory, n);
    dev = g_new0(double, n);
    s.step = o.step;
    for (int i = 0; i < n; ++i) {
        MbsSettings si = with_options(&s, forms[i], &o, m, told);
        if (mbs_trajectory_record(m, forms[i], &si, 1, (int *)(void *)pts->data, (int)pts->len,
                                  &runs[i], &err) != 0) {
            runs[i].error = err;
            dev[i] = NAN;
            continue;
        }
        dev[i] = mbs_trajectory_max_deviation(&runs[i], &ref);
    }
    if (o.json)
        print_json(&o, argv[1], forms, runs, dev);
    else
        print_table(&o, argv[1], forms, runs, dev, &ref);
    status = 0;
    for (int i = 0; i < n; ++i)
        if (!runs[i].time || runs[i].failed)
            status = 1;

out:
    if (told)
        g_hash_table_unref(told);
    for (int i = 0; runs && i < n; ++i)
        mbs_trajectory_free(&runs[i]);
    g_free(runs);
    g_free(dev);
    mbs_trajectory_free(&ref);
    mbs_model_free(m);
    g_free(o.formulations);
    g_free(o.reference);
    g_free(o.points);
    g_free(o.jacobian);
    return status;
}
