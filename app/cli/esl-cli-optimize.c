/* eslabon-cli optimize: minimise one objective of a model over some of its parameters, within
 * bounds, with NLopt's gradient-based L-BFGS or SLSQP; gradients by any sensitivity method
 * (engine/mbs_sensitivity.h). Prints every evaluation; --project stores them too. The optimiser
 * (app/esl-optimizer.c) and the recorder (app/esl-optimization-recorder.c) are the window's
 * too. */
#include <glib.h>
#include <math.h>
#include <nlopt.h>
#include <stdio.h>
#include <string.h>

#include "esl-cli.h"
#include "esl-cli-sensitivity.h"
#include "esl-cli-settings.h"
#include "esl-model-file.h"
#include "esl-models-dir.h"
#include "esl-optimization-recorder.h"
#include "esl-optimizer.h"
#include "mbs_sensitivity.h"

/* One line per evaluation, as the optimiser reports it; with --project (data: the recorder)
 * stored too. */
static void print_evaluation(void *data, int index, double psi, const double *gradient,
                             const double *x, int n)
{
    if (data)
        esl_optimization_recorder_evaluation(data, psi, gradient, x);
    double norm = 0.0;
    for (int k = 0; k < n; ++k)
        norm += gradient[k] * gradient[k];
    printf("%4d  psi = %-14.8g |grad| = %-11.4g x =", index, psi, sqrt(norm));
    for (int k = 0; k < n; ++k)
        printf(" %.10g", x[k]);
    printf("\n");
    fflush(stdout);
}

/* --project: which run of the project holds the optimisation. */
static void print_stored(const EslOptimizationRecorder *recorder, const char *project)
{
    if (recorder)
        printf("stored as run %" G_GINT64_FORMAT " in %s\n",
               esl_optimization_recorder_run_id(recorder), project);
}

static gboolean parse_numbers(const char *text, guint count, double *out, GError **error)
{
    g_auto(GStrv) parts = g_strsplit(text, ",", -1);
    if (g_strv_length(parts) != count) {
        g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                    "'%s': expected %u numbers, one per parameter", text, count);
        return FALSE;
    }
    for (guint k = 0; k < count; ++k) {
        char *end = NULL;
        out[k] = g_ascii_strtod(parts[k], &end);
        if (!end || *end || !isfinite(out[k])) {
            g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                        "'%s' is not a number", parts[k]);
            return FALSE;
        }
    }
    return TRUE;
}

int esl_cli_optimize(int argc, char **argv)
{
    char *formulation = NULL, *method = NULL, *objective = NULL, *parameters = NULL;
    char *lower = NULL, *upper = NULL, *algorithm = NULL, *project = NULL;
    int max_evaluations = ESL_OPTIMIZER_MAX_EVALUATIONS;
    double xtol = ESL_OPTIMIZER_XTOL;
    GOptionEntry entries[] = {
        {"formulation", 'f', 0, G_OPTION_ARG_STRING, &formulation, "Formulation (penalty)", "NAME"},
        {"method", 'm', 0, G_OPTION_ARG_STRING, &method, "Gradient: direct, adjoint or fd", "METHOD"},
        {"objective", 0, 0, G_OPTION_ARG_STRING, &objective, "Objective to minimise (default: the first)", "NAME"},
        {"parameters", 0, 0, G_OPTION_ARG_STRING, &parameters, "Parameters to vary", "A,B"},
        {"lower", 0, 0, G_OPTION_ARG_STRING, &lower, "Lower bounds, one per parameter", "A,B"},
        {"upper", 0, 0, G_OPTION_ARG_STRING, &upper, "Upper bounds, one per parameter", "A,B"},
        {"algorithm", 0, 0, G_OPTION_ARG_STRING, &algorithm, "lbfgs (default) or slsqp", "NAME"},
        {"max-evaluations", 0, 0, G_OPTION_ARG_INT, &max_evaluations, "Most evaluations (100)", "N"},
        {"xtol", 0, 0, G_OPTION_ARG_DOUBLE, &xtol, "Relative tolerance on the parameters (1e-8)", "X"},
        {"project", 'p', 0, G_OPTION_ARG_FILENAME, &project,
         "Store the optimisation (every evaluation and the result) in a project", "FILE"},
        {NULL, 0, 0, 0, NULL, NULL, NULL},
    };
    g_autoptr(GOptionContext) ctx =
        g_option_context_new("MODEL - minimise an objective over parameters (NLopt)");
    g_option_context_add_main_entries(ctx, entries, NULL);
    EslSettingFlags flags;
    esl_setting_flags_init(&flags);
    g_option_context_add_main_entries(ctx, flags.entries, NULL);
    EslMethodFlags method_flags; /* --sensitivity-*, as `sensitivity` has them */
    esl_method_flags_init(&method_flags);
    g_option_context_add_main_entries(ctx, method_flags.entries, NULL);
    MbsSettings method_options; /* the gradient method's own, from those flags */
    mbs_settings_defaults(&method_options);
    g_autoptr(GError) error = NULL;
    g_autoptr(GArray) obj = g_array_new(FALSE, FALSE, sizeof(int));
    g_autoptr(GArray) par = g_array_new(FALSE, FALSE, sizeof(int));
    g_autofree char *resolved = NULL;
    g_autofree double *lb = NULL, *ub = NULL, *start = NULL;
    EslOptimizerResult result = {0};
    MbsModel *m = NULL;
    EslProject *store = NULL;
    g_autoptr(EslOptimizationRecorder) recorder = NULL;
    int status = 2;
    MbsSettings s;
    mbs_settings_defaults(&s);

    if (!g_option_context_parse(ctx, &argc, &argv, &error)) {
        fprintf(stderr, "eslabon-cli optimize: %s\n", error->message);
        goto out;
    }
    if (argc != 2) {
        fprintf(stderr, "eslabon-cli optimize: expected one MODEL file\n");
        goto out;
    }
    if (!formulation)
        formulation = g_strdup("penalty");
    int imethod = mbs_sensitivity_method_from_name(method ? method : "direct");
    int alg = esl_optimizer_algorithm_from_name(algorithm ? algorithm : "lbfgs");
    if (!mbs_formulation_find(formulation) || imethod < 0 || alg < 0) {
        fprintf(stderr, "eslabon-cli optimize: unknown formulation, method or algorithm\n");
        goto out;
    }
    if ((status = esl_method_flags_apply(&method_flags, formulation, imethod, &method_options)))
        goto out;
    resolved = esl_resolve_model_path(argv[1]);
    m = esl_sensitivity_load("optimize", resolved, formulation, objective, parameters, &flags, &s,
                             obj, par, &status);
    if (!m)
        goto out;
    status = 1;
    if (esl_sensitivity_choose_integrator(formulation, imethod, &flags, &s))
        fprintf(stderr, "eslabon-cli optimize: %s\n", esl_sensitivity_integrator_note);
    guint n = par->len;
    lb = g_new0(double, n);
    ub = g_new0(double, n);
    for (guint k = 0; k < n; ++k) {
        lb[k] = -HUGE_VAL;
        ub[k] = HUGE_VAL;
    }
    if ((lower && !parse_numbers(lower, n, lb, &error)) ||
        (upper && !parse_numbers(upper, n, ub, &error))) {
        fprintf(stderr, "eslabon-cli optimize: %s\n", error->message);
        status = 2;
        goto out;
    }
    EslOptimizerProblem p = {
        .model = m, .formulation = formulation, .settings = &s,
        .method = (MbsSensitivityMethod)imethod,
        .method_options = esl_method_options_bytes(&method_options),
        .objective = g_array_index(obj, int, 0),
        .parameters = (const int *)(void *)par->data, .nparameters = (int)n,
        .lower = lb, .upper = ub, .algorithm = (EslOptimizerAlgorithm)alg,
        .max_evaluations = max_evaluations, .xtol = xtol, .evaluation = print_evaluation};
    start = g_new0(double, n);
    if (!esl_optimizer_check(&p, start, &error)) {
        fprintf(stderr, "eslabon-cli optimize: %s\n", error->message);
        status = 2;
        goto out;
    }
    if (project) {
        /* a stored optimisation keeps its bounds, as numbers */
        for (guint k = 0; k < n; ++k)
            if (!isfinite(lb[k]) || !isfinite(ub[k])) {
                fprintf(stderr, "eslabon-cli optimize: --project: give --lower and --upper "
                                "(a stored optimisation keeps finite bounds)\n");
                status = 2;
                goto out;
            }
        gint64 model_id = 0;
        store = esl_cli_open_project(project, resolved, m, &model_id, &error);
        recorder = store ? esl_optimization_recorder_begin(store, model_id, m->name, &p,
                                                           &method_options, &error)
                         : NULL;
        if (!recorder) {
            fprintf(stderr, "eslabon-cli optimize: %s\n", error->message);
            goto out;
        }
        p.evaluation_data = recorder;
    }
    printf("%s: minimise %s over", resolved, m->objectives[p.objective].name);
    for (guint k = 0; k < n; ++k)
        printf(" %s", m->parameters[g_array_index(par, int, k)].name);
    printf(" (%s, %s gradients by %s)\n", esl_optimizer_algorithm_description(p.algorithm),
           formulation, mbs_sensitivity_method_name(p.method));
    gint64 t0 = g_get_monotonic_time();
    esl_optimizer_run(&p, &result, NULL); /* checked above */
    if (recorder && !esl_optimization_recorder_finish(
                        recorder, &result, (g_get_monotonic_time() - t0) * 1e-6, &error)) {
        fprintf(stderr, "eslabon-cli optimize: %s: not stored: %s\n", project, error->message);
        goto out;
    }
    if (result.status == ESL_OPTIMIZER_FAILED && result.nlopt_code == NLOPT_FORCED_STOP) {
        /* an evaluation failed: no best point to print */
        fprintf(stderr, "eslabon-cli optimize: %s: %s\n", resolved, result.message);
        print_stored(recorder, project);
        goto out;
    }
    printf("%s after %d evaluations: psi = %.10g at",
           result.status == ESL_OPTIMIZER_CONVERGED          ? "converged"
           : result.status == ESL_OPTIMIZER_EVALUATION_LIMIT ? "stopped (evaluation limit)"
                                                             : "stopped",
           result.evaluations, result.psi);
    for (guint k = 0; k < n; ++k)
        printf(" %s = %.10g", m->parameters[g_array_index(par, int, k)].name, result.x[k]);
    printf("\n");
    print_stored(recorder, project);
    status = result.status == ESL_OPTIMIZER_FAILED ? 1 : 0;
    if (status)
        fprintf(stderr, "eslabon-cli optimize: %s\n", result.message);
out:
    g_clear_pointer(&recorder, esl_optimization_recorder_free); /* before its project */
    if (store)
        esl_project_close(store);
    esl_optimizer_result_clear(&result);
    mbs_model_free(m);
    g_free(formulation), g_free(method), g_free(objective), g_free(parameters);
    g_free(lower), g_free(upper), g_free(algorithm), g_free(project);
    esl_setting_flags_clear(&flags);
    esl_method_flags_clear(&method_flags);
    return status;
}
