/* eslabon-cli advise: the formulation advisor (issue 25; app/studies/esl-advise.h). */
#include <glib.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "esl-advise.h"
#include "esl-cli.h"
#include "esl-model-file.h"
#include "esl-models-dir.h"
#include "esl-points.h"
#include "esl-settings-json.h"
#include "esl-project.h"
#include "esl-study.h"
#include "esl-variables.h"

static void print_table(const char *path, const char *quantity, const EslAdvice *a)
{
    if (a->measure == ESL_ADVISE_MEASURE_ENERGY)
        printf("# %s: %g s; error = max |E - E_ref| of the total energy over the samples (every "
               "%g s) / %.4g J (the largest |T_ref(t) - T_ref(0)|, kinetic);\n", path,
               a->duration, a->sample_interval, a->scale);
    else if (a->measure == ESL_ADVISE_MEASURE_CONSTRAINTS)
        printf("# %s: %g s; error = max | ||Phi|| - ||Phi_ref|| | of the position constraints "
               "over the samples (every %g s) / %.4g m (the points' largest displacement);\n",
               path, a->duration, a->sample_interval, a->scale);
    else if (a->variables)
        printf("# %s: %g s; error = max |y - y_ref| over %s and the samples (every %g s) / %.4g "
               "(the largest |y_ref(t) - y_ref(0)|);\n", path, a->duration, quantity,
               a->sample_interval, a->scale);
    else
        printf("# %s: %g s; error = max |r - r_ref| over the points and the samples (every %g "
               "s) / %.4g m (their largest displacement);\n", path, a->duration,
               a->sample_interval, a->scale);
    printf("# reference %s at h = %g s, confirmed by %s (they differ by %.2e); probe %g s\n",
           a->reference[0], a->reference_step, a->reference[1], a->reference_agreement,
           a->probe_duration);
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
    g_autofree char *project_path = NULL;
    GOptionEntry entries[] = {
        {"accuracy", 0, 0, G_OPTION_ARG_DOUBLE, &accuracy, "Relative error asked for (1e-4)", "E"},
        {"quantity", 0, 0, G_OPTION_ARG_STRING, &quantity, "Points compared (default: every point of a moving body), variables of the variable table, energy (the total energy's drift) or constraints (their violation)", "BODY:POINT,...|VARIABLE,...|energy|constraints"},
        {"duration", 't', 0, G_OPTION_ARG_DOUBLE, &duration, "Simulated time, s (2)", "T"},
        {"full-runs", 0, 0, G_OPTION_ARG_INT, &full_runs, "Probe survivors run in full (4)", "N"},
        {"json", 0, 0, G_OPTION_ARG_NONE, &json, "Print JSON", NULL},
        {"project", 'p', 0, G_OPTION_ARG_FILENAME, &project_path, "Store the advice in this project (created if missing)", "FILE.eslabon"},
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
    EslAdviseMeasure measure = !g_strcmp0(quantity, "energy")        ? ESL_ADVISE_MEASURE_ENERGY
                               : !g_strcmp0(quantity, "constraints") ? ESL_ADVISE_MEASURE_CONSTRAINTS
                                                                     : ESL_ADVISE_MEASURE_POINTS;
    g_autofree char *path = esl_resolve_model_path(argv[1]);
    MbsModel *m = esl_model_load_file(path, NULL, 0, &error);
    if (!m) {
        fprintf(stderr, "eslabon-cli advise: %s\n", error->message);
        return 1;
    }
    /* points first; a list that is not all points, as variables */
    /* energy, constraints: the default points scale the constraints' violation */
    g_autoptr(GArray) points =
        esl_points_parse(m, measure == ESL_ADVISE_MEASURE_POINTS ? quantity : NULL, &error);
    g_autoptr(GArray) variables = NULL;
    if (!points && quantity) {
        g_autoptr(GError) as_variables = NULL;
        variables = esl_variables_parse(m, quantity, &as_variables);
        if (!variables) {
            fprintf(stderr, "eslabon-cli advise: --quantity %s: neither points (%s) nor "
                            "variables (%s)\n", quantity, error->message, as_variables->message);
            mbs_model_free(m);
            return 2;
        }
    }
    if (!variables && (!points || points->len == 0)) {
        fprintf(stderr, "eslabon-cli advise: %s\n",
                error ? error->message : "the model has no point of a moving body");
        mbs_model_free(m);
        return 2;
    }
    EslAdviseQuantity q = {.measure = measure};
    if (variables) {
        q.variables = (const EslVariable *)(void *)variables->data;
        q.nvariables = (int)variables->len;
    } else {
        q.points = (const int *)(void *)points->data;
        q.npoints = (int)points->len;
    }
    g_clear_error(&error);
    g_autoptr(EslAdvice) a = esl_advise(m, &q, accuracy, duration, full_runs, &error);
    mbs_model_free(m);
    if (!a) {
        fprintf(stderr, "eslabon-cli advise: %s: %s\n", path, error->message);
        return error->code == ESL_STUDY_ERROR_INVALID ? 2 : 1;
    }
    const char *what = quantity ? quantity : "every point of a moving body";
    g_autofree char *text = esl_advice_to_json(a, path, what);
    if (json)
        printf("%s\n", text);
    else
        print_table(path, what, a);
    if (project_path) { /* the application's Work–Precision tab lists it */
        g_autoptr(EslProject) project = esl_project_open(project_path, TRUE, &error);
        gint64 id = project ? esl_project_add_advice(project, path, what, text, &error) : 0;
        if (!id) {
            fprintf(stderr, "eslabon-cli advise: %s: %s\n", project_path, error->message);
            return 1;
        }
        fprintf(stderr, "advice #%" G_GINT64_FORMAT " stored in %s\n", id, project_path);
    }
    return a->recommended >= 0 ? 0 : 1;
}
