#include "mbs_sensitivity.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mbs_clock.h"
#include "mbs_run.h"
#include "mbs_tangent.h"
#include "sens_matrix_r.h"

static const char *const method_names[MBS_SENSITIVITY_METHOD_COUNT] = {"direct", "adjoint", "fd"};

const char *mbs_sensitivity_method_name(MbsSensitivityMethod method)
{
    return (unsigned)method < MBS_SENSITIVITY_METHOD_COUNT ? method_names[method] : "unknown";
}

int mbs_sensitivity_method_from_name(const char *name)
{
    for (int i = 0; name && i < MBS_SENSITIVITY_METHOD_COUNT; ++i)
        if (!strcmp(name, method_names[i]))
            return i;
    return -1;
}

typedef int (*SensitivityFn)(const MbsSensitivityProblem *p, MbsSensitivityResult *r,
                             MbsError *err);

/* Direct and adjoint methods, by formulation (fd works for every formulation). */
int mbs_penalty_direct_sensitivity(const MbsSensitivityProblem *p, MbsSensitivityResult *r,
                                   MbsError *err);
/* ali3p: sens_ali3p.c (paper 004 sec 3) */
int mbs_ali3p_direct_sensitivity(const MbsSensitivityProblem *p, MbsSensitivityResult *r,
                                 MbsError *err);

/* matrix-r: sens_matrix_r.c (paper 001 sec 3) */
int mbs_matrix_r_direct_sensitivity(const MbsSensitivityProblem *p, MbsSensitivityResult *r,
                                    MbsError *err);
int mbs_matrix_r_adjoint_sensitivity(const MbsSensitivityProblem *p, MbsSensitivityResult *r,
                                     MbsError *err);

int mbs_ali3p_sensitivity_check(const MbsSettings *s, MbsError *err);

static const struct {
    const char *formulation;
    MbsSensitivityMethod method;
    SensitivityFn run;
    const MbsSettingTable *settings; /* the method's own options (problem->method_options) */
    int (*check)(const MbsSettings *s, MbsError *err); /* what it refuses at once, or NULL */
} registry[] = {
    {"penalty", MBS_SENSITIVITY_DIRECT, mbs_penalty_direct_sensitivity, NULL, NULL},
    {"ali3p", MBS_SENSITIVITY_DIRECT, mbs_ali3p_direct_sensitivity, NULL,
     mbs_ali3p_sensitivity_check},
    {"matrix-r", MBS_SENSITIVITY_DIRECT, mbs_matrix_r_direct_sensitivity,
     &mbs_matrix_r_sens_settings, mbs_matrix_r_sensitivity_check},
    {"matrix-r", MBS_SENSITIVITY_ADJOINT, mbs_matrix_r_adjoint_sensitivity,
     &mbs_matrix_r_sens_settings, mbs_matrix_r_sensitivity_check},
};

const MbsSettingTable *mbs_sensitivity_settings(const char *formulation,
                                                MbsSensitivityMethod method)
{
    for (size_t i = 0; formulation && i < sizeof registry / sizeof registry[0]; ++i)
        if (registry[i].method == method && !strcmp(registry[i].formulation, formulation))
            return registry[i].settings;
    return NULL;
}

static SensitivityFn find_method(const char *formulation, MbsSensitivityMethod method)
{
    if (method == MBS_SENSITIVITY_FD)
        return mbs_sensitivity_fd;
    for (size_t i = 0; formulation && i < sizeof registry / sizeof registry[0]; ++i)
        if (registry[i].formulation && registry[i].method == method && !strcmp(registry[i].formulation, formulation))
            return registry[i].run;
    return NULL;
}

int mbs_sensitivity_available(const char *formulation, MbsSensitivityMethod method)
{
    return find_method(formulation, method) != NULL;
}

int mbs_sensitivity_check(const char *formulation, MbsSensitivityMethod method,
                          const MbsSettings *s, MbsError *err)
{
    if (!find_method(formulation, method))
        return mbs_error_set(err, MBS_FATAL, "formulation '%s' has no %s sensitivity method",
                             formulation ? formulation : "(none)",
                             mbs_sensitivity_method_name(method));
    for (size_t i = 0; i < sizeof registry / sizeof registry[0]; ++i)
        if (registry[i].method == method && !strcmp(registry[i].formulation, formulation) &&
            registry[i].check)
            return registry[i].check(s, err);
    return 0;
}

int mbs_sensitivity_has_state_history(const char *formulation, MbsSensitivityMethod method)
{
    /* the methods stepped by sens_direct.c, and matrix-r's direct method (its independent
     * sensitivities mapped to every coordinate: sens_matrix_r.c's notify) */
    SensitivityFn run = find_method(formulation, method);
    return run == mbs_penalty_direct_sensitivity || run == mbs_ali3p_direct_sensitivity ||
           run == mbs_matrix_r_direct_sensitivity;
}

static double fd_increment(const MbsSensitivityProblem *p, int k);

int mbs_sensitivity_compute(const MbsSensitivityProblem *p, MbsSensitivityMethod method,
                            MbsSensitivityResult *r, MbsError *err)
{
    if (!mbs_formulation_find(p->formulation))
        return mbs_error_set(err, MBS_FATAL, "unknown formulation '%s'", p->formulation);
    SensitivityFn run = find_method(p->formulation, method);
    if (!run) {
        char have[128] = "fd";
        for (size_t i = 0; i < sizeof registry / sizeof registry[0]; ++i)
            if (registry[i].formulation && !strcmp(registry[i].formulation, p->formulation)) {
                strncat(have, ", ", sizeof have - strlen(have) - 1);
                strncat(have, method_names[registry[i].method], sizeof have - strlen(have) - 1);
            }
        return mbs_error_set(err, MBS_FATAL, "formulation '%s' has no %s sensitivity method "
                             "(not implemented yet; it has: %s)", p->formulation,
                             mbs_sensitivity_method_name(method), have);
    }
    for (int i = 0; i < p->nobjectives; ++i)
        if (p->objectives[i] < 0 || p->objectives[i] >= p->model->nobjectives)
            return mbs_error_set(err, MBS_FATAL, "objective index %d out of range (the model "
                                 "has %d)", p->objectives[i], p->model->nobjectives);
    for (int i = 0; i < p->nparameters; ++i)
        if (p->parameters[i] < 0 || p->parameters[i] >= p->model->nparameters)
            return mbs_error_set(err, MBS_FATAL, "parameter index %d out of range (the model "
                                 "has %d)", p->parameters[i], p->model->nparameters);
    if (method == MBS_SENSITIVITY_FD)
        for (int k = 0; k < p->nparameters; ++k)
            if (!(fd_increment(p, k) > 0.0) || !isfinite(fd_increment(p, k)))
                return mbs_error_set(err, MBS_FATAL,
                                     "fd: the relative step %g is lost in round-off on "
                                     "parameter '%s' = %g (rho + d == rho); use about 1e-8 to "
                                     "1e-3", p->fd_step,
                                     p->model->parameters[p->parameters[k]].name,
                                     p->model->parameters[p->parameters[k]].value);
    int status = run(p, r, err);
    if (status)
        return status;
    /* an objective that overflows (a weight of 1e308) is an error, never a NaN printed */
    for (int i = 0; i < p->nobjectives; ++i) {
        const char *name = p->model->objectives[p->objectives[i]].name;
        if (!isfinite(r->psi[i]))
            return mbs_error_set(err, MBS_FATAL,
                                 "objective '%s' is not finite (%g): its terms overflow (a "
                                 "weight or a value too large)", name, r->psi[i]);
        for (int k = 0; k < p->nparameters; ++k)
            if (!isfinite(r->gradient[i * p->nparameters + k]))
                return mbs_error_set(err, MBS_FATAL,
                                     "d %s / d %s is not finite (%g): the objective's terms or "
                                     "the method's increments overflow", name,
                                     p->model->parameters[p->parameters[k]].name,
                                     r->gradient[i * p->nparameters + k]);
    }
    return 0;
}

/* ---- runs with objectives --------------------------------------------------------------- */

typedef struct {
    MbsObjectiveAccumulator acc;
    const volatile int *stop;
} ObjectivesRun;

static int accumulate(void *data, const MbsRun *run)
{
    ObjectivesRun *o = data;
    mbs_objective_accumulator_add(&o->acc, mbs_run_formulation(run));
    return o->stop && *o->stop; /* nonzero stops the run */
}

static int objectives_run(const MbsModel *m, const char *formulation, const MbsSettings *settings,
                          const volatile int *stop, double *psi, long *steps, MbsError *err);

int mbs_objectives_run(const MbsModel *m, const char *formulation, const MbsSettings *settings,
                       double *psi, long *steps, MbsError *err)
{
    return objectives_run(m, formulation, settings, NULL, psi, steps, err);
}

static int objectives_run(const MbsModel *m, const char *formulation, const MbsSettings *settings,
                          const volatile int *stop, double *psi, long *steps, MbsError *err)
{
    MbsFormulation *f = mbs_formulation_new(formulation, m, settings, err);
    if (!f)
        return err->status ? err->status : MBS_FATAL;
    ObjectivesRun acc = {.stop = stop};
    if (mbs_objective_accumulator_init(&acc.acc, m, f->klass->coordinate_kind, err)) {
        mbs_formulation_free(f);
        return MBS_FATAL;
    }
    MbsRunOptions options = {.max_halvings = 0};
    MbsRunObserver observer = {.sample = accumulate, .data = &acc, .every = 1};
    MbsRun *run = mbs_run_new(f, &options, &observer, err);
    int status = run ? 0 : MBS_FATAL;
    MbsRunOutcome outcome = run ? mbs_run_advance(run, settings->duration) : MBS_RUN_REACHED;
    if (outcome == MBS_RUN_STOPPED) {
        status = mbs_error_set(err, MBS_FATAL, MBS_SENSITIVITY_STOPPED);
    } else if (outcome != MBS_RUN_REACHED) {
        *err = *mbs_run_error(run);
        status = err->status < 0 ? err->status : MBS_FATAL;
    }
    if (status == 0) {
        mbs_objective_accumulator_psi(&acc.acc, psi);
        if (steps)
            *steps = mbs_run_summary(run)->steps;
    }
    mbs_run_free(run);
    mbs_objective_accumulator_free(&acc.acc);
    mbs_formulation_free(f);
    return status;
}

/* ---- central differences of whole simulations ------------------------------------------ */

static double fd_increment(const MbsSensitivityProblem *p, int k)
{
    double rel = p->fd_step > 0.0 ? p->fd_step : MBS_SENSITIVITY_FD_STEP;
    double rho = p->model->parameters[p->parameters[k]].value;
    volatile double up = rho + rel * fmax(1.0, fabs(rho));
    return up - rho; /* exactly representable: the runs see rho +- d */
}

/* Run `task` of fd: parameter task / 2, sign + for even tasks. */
static int fd_task(const MbsSensitivityProblem *p, int task, double *psi, MbsError *err)
{
    int k = task / 2, sign = task % 2 == 0 ? 1 : -1;
    const MbsModel *m = p->model;
    double d = fd_increment(p, k);
    MbsModel *mp = mbs_model_with_parameter(m, p->parameters[k],
                                            m->parameters[p->parameters[k]].value + sign * d, err);
    if (!mp)
        return MBS_FATAL;
    int status = objectives_run(mp, p->formulation, p->settings, p->stop, psi, NULL, err);
    mbs_model_free(mp);
    return status;
}

int mbs_sensitivity_fd(const MbsSensitivityProblem *p, MbsSensitivityResult *r, MbsError *err)
{
    const MbsModel *m = p->model;
    int no = m->nobjectives, ntasks = 2 * p->nparameters;
    double t0 = mbs_clock_now();
    double *psi_all = calloc((size_t)no * (size_t)(ntasks + 1) + 1, sizeof(double));
    MbsError *errors = calloc((size_t)ntasks + 1, sizeof *errors);
    int *status = calloc((size_t)ntasks + 1, sizeof *status);
    if (!psi_all || !errors || !status) {
        free(psi_all), free(errors), free(status);
        return mbs_error_set(err, MBS_FATAL, "out of memory");
    }
    int failed = objectives_run(m, p->formulation, p->settings, p->stop, psi_all, &r->steps, err);
    double t1 = mbs_clock_now();
    int nthreads = mbs_tangent_threads(p->threads, ntasks > 0 ? ntasks : 1);
    int done = 1; /* runs finished, the nominal one included */
    if (p->progress)
        p->progress(p->progress_data, 1.0 / (ntasks + 1));
    if (!failed) {
#pragma omp parallel for num_threads(nthreads) schedule(dynamic, 1) if (nthreads > 1)
        for (int task = 0; task < ntasks; ++task) {
            status[task] = fd_task(p, task, psi_all + (size_t)no * (size_t)(task + 1),
                                   &errors[task]);
            if (p->progress) {
#pragma omp critical(fd_progress)
                p->progress(p->progress_data, (double)++done / (ntasks + 1));
            }
        }
        for (int task = 0; task < ntasks && !failed; ++task)
            if (status[task] && p->stop && *p->stop) {
                failed = mbs_error_set(err, MBS_FATAL, MBS_SENSITIVITY_STOPPED);
            } else if (status[task]) {
                int k = task / 2;
                failed = mbs_error_set(err, MBS_FATAL, "fd: the run with %s %s d failed: %s",
                                       m->parameters[p->parameters[k]].name,
                                       task % 2 ? "-" : "+", errors[task].message);
            }
    }
    if (!failed) {
        for (int i = 0; i < p->nobjectives; ++i) {
            int o = p->objectives[i];
            r->psi[i] = psi_all[o];
            for (int k = 0; k < p->nparameters; ++k) {
                const double *plus = psi_all + (size_t)no * (size_t)(2 * k + 1);
                const double *minus = plus + no;
                r->gradient[(size_t)i * p->nparameters + k] =
                    (plus[o] - minus[o]) / (2.0 * fd_increment(p, k));
            }
        }
        r->time_dynamics = t1 - t0;
        r->time_sensitivity = mbs_clock_now() - t1;
    }
    free(psi_all);
    free(errors);
    free(status);
    return failed ? MBS_FATAL : 0;
}
