/* eslabon-cli optimize: minimise one objective of a model over some of its parameters, within
 * bounds, with NLopt's gradient-based L-BFGS or SLSQP; gradients by any sensitivity method
 * (engine/mbs_sensitivity.h). Prints every evaluation. */
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
#include "mbs_sensitivity.h"

typedef struct {
    const MbsModel *model;
    const char *formulation;
    MbsSensitivityMethod method;
    const MbsSettings *settings;
    int objective;
    GArray *parameters;
    int evaluations;
    int failed;
    MbsError error;
} Problem;

/* The model with the parameters at x (each change re-evaluates its dependent fields). */
static MbsModel *model_at(const Problem *p, const double *x, MbsError *err)
{
    MbsModel *m = NULL;
    const MbsModel *from = p->model;
    for (guint k = 0; k < p->parameters->len; ++k) {
        MbsModel *next = mbs_model_with_parameter(from, g_array_index(p->parameters, int, k),
                                                  x[k], err);
        mbs_model_free(m);
        if (!next)
            return NULL;
        m = next;
        from = m;
    }
    return m;
}

static double evaluate(unsigned n, const double *x, double *grad, void *data)
{
    Problem *p = data;
    MbsError err = {0};
    MbsModel *m = model_at(p, x, &err);
    double psi = HUGE_VAL;
    g_autofree double *gradient = g_new0(double, n);
    if (m) {
        MbsSensitivityProblem sp = {
            .model = m, .formulation = p->formulation, .settings = p->settings,
            .objectives = &p->objective, .nobjectives = 1,
            .parameters = (const int *)(void *)p->parameters->data, .nparameters = (int)n,
        };
        MbsSensitivityResult r = {.psi = &psi, .gradient = gradient};
        if (mbs_sensitivity_compute(&sp, p->method, &r, &err))
            psi = HUGE_VAL;
        mbs_model_free(m);
    }
    if (!isfinite(psi)) {
        p->failed = 1;
        p->error = err;
        return HUGE_VAL;
    }
    if (grad)
        memcpy(grad, gradient, n * sizeof(double));
    double norm = 0.0;
    for (unsigned k = 0; k < n; ++k)
        norm += gradient[k] * gradient[k];
    printf("%4d  psi = %-14.8g |grad| = %-11.4g x =", ++p->evaluations, psi, sqrt(norm));
    for (unsigned k = 0; k < n; ++k)
        printf(" %.10g", x[k]);
    printf("\n");
    fflush(stdout);
    return psi;
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
    char *lower = NULL, *upper = NULL, *algorithm = NULL;
    int max_evaluations = 100;
    double xtol = 1e-8;
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
        {NULL, 0, 0, 0, NULL, NULL, NULL},
    };
    g_autoptr(GOptionContext) ctx =
        g_option_context_new("MODEL - minimise an objective over parameters (NLopt)");
    g_option_context_add_main_entries(ctx, entries, NULL);
    EslSettingFlags flags;
    esl_setting_flags_init(&flags);
    g_option_context_add_main_entries(ctx, flags.entries, NULL);
    g_autoptr(GError) error = NULL;
    g_autoptr(GArray) obj = g_array_new(FALSE, FALSE, sizeof(int));
    g_autoptr(GArray) par = g_array_new(FALSE, FALSE, sizeof(int));
    g_autofree char *resolved = NULL;
    g_autofree double *x = NULL, *lb = NULL, *ub = NULL;
    MbsModel *m = NULL;
    nlopt_opt opt = NULL;
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
    nlopt_algorithm alg = !algorithm || !strcmp(algorithm, "lbfgs") ? NLOPT_LD_LBFGS
                          : !strcmp(algorithm, "slsqp")            ? NLOPT_LD_SLSQP
                                                                   : NLOPT_NUM_ALGORITHMS;
    if (!mbs_formulation_find(formulation) || imethod < 0 || alg == NLOPT_NUM_ALGORITHMS) {
        fprintf(stderr, "eslabon-cli optimize: unknown formulation, method or algorithm\n");
        goto out;
    }
    resolved = esl_resolve_model_path(argv[1]);
    m = esl_sensitivity_load("optimize", resolved, formulation, objective, parameters, &flags, &s,
                             obj, par, &status);
    if (!m)
        goto out;
    status = 1;
    guint n = par->len;
    x = g_new0(double, n);
    lb = g_new0(double, n);
    ub = g_new0(double, n);
    for (guint k = 0; k < n; ++k) {
        x[k] = m->parameters[g_array_index(par, int, k)].value;
        lb[k] = -HUGE_VAL;
        ub[k] = HUGE_VAL;
    }
    if ((lower && !parse_numbers(lower, n, lb, &error)) ||
        (upper && !parse_numbers(upper, n, ub, &error))) {
        fprintf(stderr, "eslabon-cli optimize: %s\n", error->message);
        status = 2;
        goto out;
    }
    for (guint k = 0; k < n; ++k)
        x[k] = fmin(fmax(x[k], lb[k]), ub[k]);
    Problem p = {.model = m, .formulation = formulation, .method = (MbsSensitivityMethod)imethod,
                 .settings = &s, .objective = g_array_index(obj, int, 0), .parameters = par};
    opt = nlopt_create(alg, n);
    nlopt_set_lower_bounds(opt, lb);
    nlopt_set_upper_bounds(opt, ub);
    nlopt_set_min_objective(opt, evaluate, &p);
    nlopt_set_xtol_rel(opt, xtol);
    nlopt_set_maxeval(opt, max_evaluations);
    printf("%s: minimise %s over", resolved, m->objectives[p.objective].name);
    for (guint k = 0; k < n; ++k)
        printf(" %s", m->parameters[g_array_index(par, int, k)].name);
    printf(" (%s, %s gradients by %s)\n", nlopt_algorithm_name(alg), formulation,
           mbs_sensitivity_method_name(p.method));
    double best = HUGE_VAL;
    nlopt_result res = nlopt_optimize(opt, x, &best);
    if (p.failed) {
        fprintf(stderr, "eslabon-cli optimize: %s: %s\n", resolved, p.error.message);
        goto out;
    }
    printf("%s after %d evaluations: psi = %.10g at", res > 0 ? "converged" :
           res == NLOPT_MAXEVAL_REACHED ? "stopped (evaluation limit)" : "stopped",
           p.evaluations, best);
    for (guint k = 0; k < n; ++k)
        printf(" %s = %.10g", m->parameters[g_array_index(par, int, k)].name, x[k]);
    printf("\n");
    status = res > 0 || res == NLOPT_MAXEVAL_REACHED ? 0 : 1;
    if (status)
        fprintf(stderr, "eslabon-cli optimize: NLopt stopped with code %d\n", (int)res);
out:
    if (opt)
        nlopt_destroy(opt);
    mbs_model_free(m);
    g_free(formulation), g_free(method), g_free(objective), g_free(parameters);
    g_free(lower), g_free(upper), g_free(algorithm);
    esl_setting_flags_clear(&flags);
    return status;
}
