/* The design optimiser (NLopt); see esl-optimizer.h. */
#include "esl-optimizer.h"

#include <gio/gio.h>
#include "eslabon-config.h"

#include <glib/gi18n-lib.h>
#include <math.h>
#include <nlopt.h>
#include <string.h>

static const struct {
    const char *name, *label;
    nlopt_algorithm nlopt;
} algorithms[ESL_OPTIMIZER_ALGORITHM_COUNT] = {
    [ESL_OPTIMIZER_LBFGS] = {"lbfgs", "L-BFGS", NLOPT_LD_LBFGS},
    [ESL_OPTIMIZER_SLSQP] = {"slsqp", "SLSQP", NLOPT_LD_SLSQP},
};

const char *esl_optimizer_algorithm_name(EslOptimizerAlgorithm algorithm)
{
    g_return_val_if_fail(algorithm < ESL_OPTIMIZER_ALGORITHM_COUNT, NULL);
    return algorithms[algorithm].name;
}

const char *esl_optimizer_algorithm_label(EslOptimizerAlgorithm algorithm)
{
    g_return_val_if_fail(algorithm < ESL_OPTIMIZER_ALGORITHM_COUNT, NULL);
    return algorithms[algorithm].label;
}

const char *esl_optimizer_algorithm_description(EslOptimizerAlgorithm algorithm)
{
    g_return_val_if_fail(algorithm < ESL_OPTIMIZER_ALGORITHM_COUNT, NULL);
    return nlopt_algorithm_name(algorithms[algorithm].nlopt);
}

int esl_optimizer_algorithm_from_name(const char *name)
{
    for (int a = 0; name && a < ESL_OPTIMIZER_ALGORITHM_COUNT; a++)
        if (!strcmp(name, algorithms[a].name))
            return a;
    return -1;
}

static const char *const status_names[] = {"converged", "evaluation limit", "stopped", "failed"};

const char *esl_optimizer_status_name(EslOptimizerStatus status)
{
    g_return_val_if_fail(status < G_N_ELEMENTS(status_names), NULL);
    return status_names[status];
}

int esl_optimizer_status_from_name(const char *name)
{
    for (int s = 0; name && s < (int)G_N_ELEMENTS(status_names); s++)
        if (!strcmp(name, status_names[s]))
            return s;
    return -1;
}

void esl_optimizer_result_clear(EslOptimizerResult *result)
{
    g_clear_pointer(&result->x, g_free);
    g_clear_pointer(&result->gradient, g_free);
    g_clear_pointer(&result->message, g_free);
}

/* ---- one evaluation ------------------------------------------------------------------------- */

typedef struct {
    const EslOptimizerProblem *p;
    EslOptimizerResult *result;
    nlopt_opt opt;
    gboolean stopped, failed, limited;
} Run;

/* "Ls1 = 2.4, Ls2 = 1.8" for x. */
static char *parameters_text(const EslOptimizerProblem *p, const double *x)
{
    GString *s = g_string_new(NULL);
    for (int k = 0; k < p->nparameters; k++)
        g_string_append_printf(s, "%s%s = %.10g", k ? ", " : "",
                               p->model->parameters[p->parameters[k]].name, x[k]);
    return g_string_free(s, FALSE);
}

/* The model with the parameters at x (each change re-evaluates the fields that read it). */
static MbsModel *model_at(const EslOptimizerProblem *p, const double *x, MbsError *err)
{
    MbsModel *m = NULL;
    const MbsModel *from = p->model;
    for (int k = 0; k < p->nparameters; ++k) {
        MbsModel *next = mbs_model_with_parameter(from, p->parameters[k], x[k], err);
        mbs_model_free(m);
        if (!next)
            return NULL;
        m = next;
        from = m;
    }
    return m;
}

static gboolean stop_asked(const Run *run)
{
    return run->p->stop && g_atomic_int_get((const volatile gint *)run->p->stop);
}

/* NLopt's objective: psi and its gradient at x, or a forced stop (the stop flag, a failure). */
static double evaluate(unsigned n, const double *x, double *grad, void *data)
{
    Run *run = data;
    const EslOptimizerProblem *p = run->p;
    /* every return that stops NLopt leaves a defined gradient behind (issue 28: valgrind saw
     * NLopt read one that was never filled after a failed evaluation) */
    if (grad)
        memset(grad, 0, n * sizeof *grad);
    if (stop_asked(run)) {
        run->stopped = TRUE;
        nlopt_force_stop(run->opt);
        return HUGE_VAL;
    }
    /* NLopt's L-BFGS (Luksan's) can ask for one more than maxeval: the limit is ours to keep */
    int limit = p->max_evaluations > 0 ? p->max_evaluations : ESL_OPTIMIZER_MAX_EVALUATIONS;
    if (run->result->evaluations >= limit) {
        run->limited = TRUE;
        nlopt_force_stop(run->opt);
        return HUGE_VAL;
    }
    MbsError err = {0};
    MbsModel *m = model_at(p, x, &err);
    double psi = HUGE_VAL;
    g_autofree double *gradient = g_new0(double, n);
    int failed = m == NULL;
    if (m) {
        MbsSensitivityProblem sp = {
            .model = m, .formulation = p->formulation, .settings = p->settings,
            .objectives = &p->objective, .nobjectives = 1,
            .parameters = p->parameters, .nparameters = (int)n,
            .threads = p->threads, .stop = p->stop, .method_options = p->method_options,
        };
        MbsSensitivityResult r = {.psi = &psi, .gradient = gradient};
        failed = mbs_sensitivity_compute(&sp, p->method, &r, &err) != 0;
        mbs_model_free(m);
    }
    if (failed && stop_asked(run) && !strcmp(err.message, MBS_SENSITIVITY_STOPPED)) {
        run->stopped = TRUE; /* inside the evaluation: it does not count */
        nlopt_force_stop(run->opt);
        return HUGE_VAL;
    }
    gboolean finite = !failed && isfinite(psi);
    for (unsigned k = 0; finite && k < n; k++)
        finite = isfinite(gradient[k]);
    if (!finite) {
        g_autofree char *where = parameters_text(p, x);
        run->failed = TRUE;
        run->result->message =
            g_strdup_printf(_("evaluation %d at %s: %s"), run->result->evaluations + 1, where,
                            failed ? err.message : _("psi or its gradient is not finite"));
        nlopt_force_stop(run->opt);
        return HUGE_VAL;
    }
    int index = ++run->result->evaluations;
    if (psi < run->result->psi) {
        run->result->psi = psi;
        memcpy(run->result->x, x, n * sizeof(double));
        memcpy(run->result->gradient, gradient, n * sizeof(double));
    }
    if (grad)
        memcpy(grad, gradient, n * sizeof(double));
    if (p->evaluation)
        p->evaluation(p->evaluation_data, index, psi, gradient, x, (int)n);
    return psi;
}

/* ---- the optimisation ----------------------------------------------------------------------- */

/* The model's values or p->start, clamped to the bounds. */
static gboolean start_point(const EslOptimizerProblem *p, double *x, GError **error)
{
    for (int k = 0; k < p->nparameters; k++) {
        const char *name = p->model->parameters[p->parameters[k]].name;
        double lo = p->lower ? p->lower[k] : -HUGE_VAL, hi = p->upper ? p->upper[k] : HUGE_VAL;
        double start = p->start ? p->start[k] : p->model->parameters[p->parameters[k]].value;
        if (isnan(lo) || isnan(hi) || !(lo <= hi) || !isfinite(start)) {
            g_set_error(error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                        _("parameter '%s': the bounds [%g, %g] hold no value"), name, lo, hi);
            return FALSE;
        }
        x[k] = fmin(fmax(start, lo), hi);
    }
    return TRUE;
}

/* What is wrong with p's choices, or NULL (the method is the engine's to refuse). */
static char *refusal(const EslOptimizerProblem *p)
{
    const MbsModel *m = p->model;
    if (!m || !p->formulation || !p->settings)
        return g_strdup(_("no model, formulation or settings to optimise"));
    if (p->objective < 0 || p->objective >= m->nobjectives)
        return g_strdup(_("choose one of the model's objectives"));
    if (p->nparameters < 1 || !p->parameters)
        return g_strdup(_("choose at least one parameter to vary"));
    for (int k = 0; k < p->nparameters; k++)
        if (p->parameters[k] < 0 || p->parameters[k] >= m->nparameters)
            return g_strdup_printf(_("parameter %d is not the model's"), p->parameters[k]);
    if (p->algorithm >= ESL_OPTIMIZER_ALGORITHM_COUNT)
        return g_strdup(_("unknown optimisation algorithm"));
    return NULL;
}

gboolean esl_optimizer_check(const EslOptimizerProblem *p, double *x, GError **error)
{
    g_autofree char *refused = refusal(p);
    if (refused) {
        g_set_error_literal(error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT, refused);
        return FALSE;
    }
    MbsError err = {0};
    if (mbs_sensitivity_check(p->formulation, p->method, p->settings, &err) ||
        mbs_settings_check_run(p->settings, &err)) {
        g_set_error_literal(error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT, err.message);
        return FALSE;
    }
    return start_point(p, x, error);
}

gboolean esl_optimizer_run(const EslOptimizerProblem *p, EslOptimizerResult *result,
                           GError **error)
{
    memset(result, 0, sizeof *result);
    result->status = ESL_OPTIMIZER_FAILED;
    result->psi = HUGE_VAL;
    int n = MAX(p->nparameters, 0);
    result->x = g_new0(double, MAX(n, 1));
    result->gradient = g_new0(double, MAX(n, 1));
    GError *refused = NULL;
    if (!esl_optimizer_check(p, result->x, &refused)) {
        result->message = g_strdup(refused->message);
        g_propagate_error(error, refused);
        return FALSE;
    }
    g_autofree double *x = g_memdup2(result->x, sizeof(double) * (gsize)n);
    g_autofree double *lower = g_new(double, n), *upper = g_new(double, n);
    for (int k = 0; k < n; k++) {
        lower[k] = p->lower ? p->lower[k] : -HUGE_VAL;
        upper[k] = p->upper ? p->upper[k] : HUGE_VAL;
    }
    Run run = {.p = p, .result = result,
               .opt = nlopt_create(algorithms[p->algorithm].nlopt, (unsigned)n)};
    nlopt_set_lower_bounds(run.opt, lower);
    nlopt_set_upper_bounds(run.opt, upper);
    nlopt_set_min_objective(run.opt, evaluate, &run);
    nlopt_set_xtol_rel(run.opt, p->xtol > 0 ? p->xtol : ESL_OPTIMIZER_XTOL);
    nlopt_set_maxeval(run.opt, p->max_evaluations > 0 ? p->max_evaluations
                                                      : ESL_OPTIMIZER_MAX_EVALUATIONS);
    double best = HUGE_VAL;
    nlopt_result code = nlopt_optimize(run.opt, x, &best);
    nlopt_destroy(run.opt);
    result->nlopt_code = (int)code;
    if (run.failed) {
        result->status = ESL_OPTIMIZER_FAILED;
    } else if (run.stopped) {
        result->status = ESL_OPTIMIZER_STOPPED;
    } else if (code == NLOPT_MAXEVAL_REACHED || run.limited) {
        result->status = ESL_OPTIMIZER_EVALUATION_LIMIT;
    } else if (code > 0) {
        result->status = ESL_OPTIMIZER_CONVERGED;
    } else {
        result->status = ESL_OPTIMIZER_FAILED;
        result->message = g_strdup_printf(_("NLopt stopped with code %d"), (int)code);
    }
    return TRUE;
}
