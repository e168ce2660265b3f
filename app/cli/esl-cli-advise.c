/* eslabon-cli advise: the formulation advisor (issue 25; app/studies/esl-advise.h). */
#include <glib.h>
#include <json-glib/json-glib.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "esl-advise.h"
#include "esl-cli.h"
#include "esl-model-file.h"
#include "esl-models-dir.h"
#include "esl-points.h"
#include "esl-settings-json.h"

static void add_number(JsonBuilder *b, const char *name, double v)
{
    json_builder_set_member_name(b, name);
    if (isfinite(v))
        json_builder_add_double_value(b, v);
    else
        json_builder_add_null_value(b);
}

static void print_json(const char *path, const EslAdvice *a)
{
    g_autoptr(JsonBuilder) b = json_builder_new();
    json_builder_begin_object(b);
    json_builder_set_member_name(b, "model");
    json_builder_add_string_value(b, path);
    add_number(b, "accuracy", a->accuracy);
    add_number(b, "duration", a->duration);
    add_number(b, "probe_duration", a->probe_duration);
    add_number(b, "sample_interval", a->sample_interval);
    json_builder_set_member_name(b, "reference");
    json_builder_begin_object(b);
    json_builder_set_member_name(b, "formulation");
    json_builder_add_string_value(b, a->reference[0]);
    json_builder_set_member_name(b, "confirmed_by");
    json_builder_add_string_value(b, a->reference[1]);
    add_number(b, "step", a->reference_step);
    add_number(b, "agreement", a->reference_agreement);
    add_number(b, "scale", a->scale);
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
        json_builder_set_member_name(b, "formulation");
        json_builder_add_string_value(b, c->formulation);
        add_number(b, "step", c->settings.step);
        json_builder_set_member_name(b, "options");
        json_builder_add_value(b, esl_settings_options_to_node(&c->settings));
        add_number(b, "probe_error", c->probe_error);
        add_number(b, "probe_seconds", c->probe_seconds);
        add_number(b, "error", c->error);
        add_number(b, "seconds", c->seconds);
        json_builder_set_member_name(b, "verdict");
        json_builder_add_string_value(b, c->verdict);
        json_builder_end_object(b);
    }
    json_builder_end_array(b);
    json_builder_end_object(b);
    g_autoptr(JsonNode) root = json_builder_get_root(b);
    g_autofree char *text = esl_json_generate(root, TRUE);
    printf("%s\n", text);
}

static void print_table(const char *path, const EslAdvice *a)
{
    printf("# %s: %g s; error = max |r - r_ref| over the points and the samples (every %g s) / "
           "%.4g m (their largest displacement);\n# reference %s at h = %g s, confirmed by %s "
           "(they differ by %.2e); probe %g s\n",
           path, a->duration, a->sample_interval, a->scale, a->reference[0], a->reference_step,
           a->reference[1], a->reference_agreement, a->probe_duration);
    printf("| candidate | probe error | probe CPU (s) | error | CPU (s) | verdict |\n"
           "|---|---:|---:|---:|---:|---|\n");
    for (guint i = 0; i < a->candidates->len; i++) {
        const EslAdviseCandidate *c = a->candidates->pdata[i];
        char pe[32] = "", ps[32] = "", e[32] = "", s[32] = "";
        if (isfinite(c->probe_error))
            g_snprintf(pe, sizeof pe, "%.2e", c->probe_error);
        if (isfinite(c->probe_seconds))
            g_snprintf(ps, sizeof ps, "%.2g", c->probe_seconds);
        if (isfinite(c->error))
            g_snprintf(e, sizeof e, "%.2e", c->error);
        if (isfinite(c->seconds))
            g_snprintf(s, sizeof s, "%.2g", c->seconds);
        printf("| %s%s%s | %s | %s | %s | %s | %s |\n", (int)i == a->recommended ? "**" : "",
               c->label, (int)i == a->recommended ? "**" : "", pe, ps, e, s, c->verdict);
    }
    if (a->recommended >= 0) {
        const EslAdviseCandidate *c = a->candidates->pdata[a->recommended];
        g_autofree char *options = esl_settings_options_to_json(&c->settings);
        printf("\nRecommended: --formulation %s --step %g (options %s): error %.2e <= %.1e in "
               "%.2g s of CPU\n", c->formulation, c->settings.step, options, c->error, a->accuracy,
               c->seconds);
    } else {
        printf("\nNo candidate meets %.1e: ask for less, or try smaller steps\n", a->accuracy);
    }
}

int esl_cli_advise(int argc, char **argv)
{
    double accuracy = 1e-4, duration = 2.0;
    int full_runs = 4;
    g_autofree char *quantity = NULL;
    gboolean json = FALSE;
    GOptionEntry entries[] = {
        {"accuracy", 0, 0, G_OPTION_ARG_DOUBLE, &accuracy, "Relative error asked for (1e-4)", "E"},
        {"quantity", 0, 0, G_OPTION_ARG_STRING, &quantity, "Points compared (default: every point of a moving body)", "BODY:POINT,..."},
        {"duration", 't', 0, G_OPTION_ARG_DOUBLE, &duration, "Simulated time, s (2)", "T"},
        {"full-runs", 0, 0, G_OPTION_ARG_INT, &full_runs, "Probe survivors run in full (4)", "N"},
        {"json", 0, 0, G_OPTION_ARG_NONE, &json, "Print JSON", NULL},
        {NULL, 0, 0, 0, NULL, NULL, NULL},
    };
    g_autoptr(GOptionContext) ctx =
        g_option_context_new("MODEL - which formulation, settings and step for an accuracy");
    g_option_context_add_main_entries(ctx, entries, NULL);
    g_autoptr(GError) error = NULL;
    if (!g_option_context_parse(ctx, &argc, &argv, &error)) {
        fprintf(stderr, "eslabon-cli advise: %s\n", error->message);
        return 2;
    }
    if (argc != 2 || full_runs < 1) {
        fprintf(stderr, "eslabon-cli advise: expected one MODEL (and --full-runs of 1 or more)\n");
        return 2;
    }
    if (quantity && (!strcmp(quantity, "energy") || !strcmp(quantity, "constraints"))) {
        fprintf(stderr, "eslabon-cli advise: --quantity %s is not implemented yet: name the "
                        "points to compare (BODY:POINT,...)\n", quantity);
        return 2;
    }
    g_autofree char *path = esl_resolve_model_path(argv[1]);
    MbsModel *m = esl_model_load_file(path, NULL, 0, &error);
    g_autoptr(GArray) points = m ? esl_points_parse(m, quantity, &error) : NULL;
    if (!points || points->len == 0) {
        fprintf(stderr, "eslabon-cli advise: %s\n",
                error ? error->message : "the model has no point of a moving body");
        mbs_model_free(m);
        return m ? 2 : 1;
    }
    g_autoptr(EslAdvice) a = esl_advise(m, (const int *)(void *)points->data, (int)points->len,
                                        accuracy, duration, full_runs, &error);
    mbs_model_free(m);
    if (!a) {
        fprintf(stderr, "eslabon-cli advise: %s: %s\n", path, error->message);
        return 1;
    }
    if (json)
        print_json(path, a);
    else
        print_table(path, a);
    return a->recommended >= 0 ? 0 : 1;
}
