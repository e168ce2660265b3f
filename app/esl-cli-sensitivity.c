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
#include "esl-settings-json.h"
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

/* --history: one CSV row per grid time with the running psi and gradient (direct methods). */
typedef struct {
    FILE *out;
    guint nobjectives, nparameters;
} History;

static void write_history(void *data, double time, const double *psi, const double *gradient)
{
    History *h = data;
    fprintf(h->out, "%.17g", time);
    for (guint i = 0; i < h->nobjectives; ++i)
        fprintf(h->out, ",%.17g", psi[i]);
    for (guint i = 0; i < h->nobjectives * h->nparameters; ++i)
        fprintf(h->out, ",%.17g", gradient[i]);
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

static char *result_json(const MbsModel *m, const char *path, const char *formulation,
                         const char *method, const MbsSettings *s, GArray *obj, GArray *par,
                         const MbsSensitivityResult *r)
{
    g_autoptr(JsonBuilder) b = json_builder_new();
    json_builder_begin_object(b);
    json_builder_set_member_name(b, "model");
    json_builder_add_string_value(b, path);
    json_builder_set_member_name(b, "formulation");
    json_builder_add_string_value(b, formulation);
    json_builder_set_member_name(b, "method");
    json_builder_add_string_value(b, method);
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
    return esl_json_generate(root, TRUE);
}

int esl_cli_sensitivity(int argc, char **argv)
{
    char *formulation = NULL, *method = NULL, *objectives = NULL, *parameters = NULL;
    char *project = NULL, *history = NULL;
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
    g_autoptr(GError) error = NULL;
    g_autoptr(GArray) obj = g_array_new(FALSE, FALSE, sizeof(int));
    g_autoptr(GArray) par = g_array_new(FALSE, FALSE, sizeof(int));
    g_autofree char *resolved = NULL;
    g_autofree char *js = NULL;
    g_autofree double *psi = NULL;
    g_autofree double *gradient = NULL;
    MbsModel *m = NULL;
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
    if (project) {
        fprintf(stderr, "eslabon-cli sensitivity: --project: storing sensitivities in a project "
                        "is not implemented yet\n");
        goto out;
    }
    resolved = esl_resolve_model_path(argv[1]);
    m = esl_sensitivity_load("sensitivity", resolved, formulation, objectives, parameters, &flags,
                             &s, obj, par, &status);
    if (!m)
        goto out;
    status = 1;
    MbsError err = {0};
    psi = g_new0(double, obj->len);
    gradient = g_new0(double, (gsize)obj->len * par->len);
    MbsSensitivityProblem p = {
        .model = m, .formulation = formulation, .settings = &s,
        .objectives = (const int *)(void *)obj->data, .nobjectives = (int)obj->len,
        .parameters = (const int *)(void *)par->data, .nparameters = (int)par->len,
        .fd_step = fd_step, .threads = threads,
    };
    MbsSensitivityResult r = {.psi = psi, .gradient = gradient};
    History hist = {.nobjectives = obj->len, .nparameters = par->len};
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
        p.history = write_history;
        p.history_data = &hist;
    }
    int failed = mbs_sensitivity_compute(&p, (MbsSensitivityMethod)imethod, &r, &err);
    if (hist.out)
        fclose(hist.out);
    if (failed) {
        fprintf(stderr, "eslabon-cli sensitivity: %s: %s\n", resolved, err.message);
        goto out;
    }
    if (json) {
        js = result_json(m, resolved, formulation, mbs_sensitivity_method_name(imethod), &s, obj,
                         par, &r);
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
    status = 0;
out:
    mbs_model_free(m);
    g_free(formulation);
    g_free(method);
    g_free(objectives);
    g_free(parameters);
    g_free(project);
    g_free(history);
    esl_setting_flags_clear(&flags);
    return status;
}
