/* fd: central differences of whole simulations, psi(rho + d) - psi(rho - d) / 2d, one pair of
 * runs per parameter, in parallel over the runs (OpenMP threads; the model is immutable and
 * every run has its own formulation object). Any formulation. */
#include <math.h>
#include <stdlib.h>

#include "mbs_clock.h"
#include "mbs_run.h"
#include "mbs_sensitivity_method.h"
#include "mbs_tangent.h"

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

static int fd_run(const MbsSensitivityProblem *p, MbsSensitivityResult *r, MbsError *err)
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

/* What fd refuses before its runs: a relative step lost in round-off on a parameter. */
static int fd_check_problem(const MbsSensitivityProblem *p, MbsError *err)
{
    for (int k = 0; k < p->nparameters; ++k)
        if (!(fd_increment(p, k) > 0.0) || !isfinite(fd_increment(p, k)))
            return mbs_error_set(err, MBS_FATAL,
                                 "fd: the relative step %g is lost in round-off on "
                                 "parameter '%s' = %g (rho + d == rho); use about 1e-8 to "
                                 "1e-3", p->fd_step,
                                 p->model->parameters[p->parameters[k]].name,
                                 p->model->parameters[p->parameters[k]].value);
    return 0;
}

const MbsSensitivityMethodClass mbs_sens_fd = {
    .formulation = NULL,
    .method = MBS_SENSITIVITY_FD,
    .run = fd_run,
    .check_problem = fd_check_problem,
};
