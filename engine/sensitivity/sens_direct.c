#include "sens_direct.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mbs_alloc.h"
#include "mbs_clock.h"
#include "mbs_run.h"
#include "mbs_topology.h"


void sens_direct_free(SensDirect *S)
{
    for (int k = 0; S->models && k < 2 * S->np; ++k)
        mbs_model_free(S->models[k]);
    for (int k = 0; S->objectives && k < 2 * S->np; ++k)
        mbs_objective_eval_free(S->objectives[k]);
    free(S->models), free(S->objectives), free(S->delta);
    double *arrays[] = {S->q, S->qd, S->qdd, S->sq, S->sqd, S->sqdd, S->xp_q, S->xp_qd,
                        S->xp_qdd, S->xm_q, S->xm_qd, S->xm_qdd, S->fp, S->fm, S->gp, S->gm, S->wp, S->wm,
                        S->dg_last, S->grad_integral, S->dw_last, S->psi_now, S->grad_now};
    for (size_t i = 0; i < sizeof arrays / sizeof arrays[0]; ++i)
        free(arrays[i]);
    if (S->p)
        mbs_objective_accumulator_free(&S->acc);
    memset(S, 0, sizeof *S);
}

int sens_direct_init(SensDirect *S, const MbsSensitivityProblem *p, int n, int nout,
                     MbsCoordinateKind kind, MbsError *err)
{
    const MbsModel *m = p->model;
    memset(S, 0, sizeof *S);
    S->n = n;
    S->np = p->nparameters;
    S->no = m->nobjectives;
    S->kind = kind;
    int np = S->np, fail = 0;
    size_t nn = (size_t)(n ? n : 1), npn = nn * (size_t)(np ? np : 1);
    size_t nonp = (size_t)(S->no ? S->no : 1) * (size_t)(np ? np : 1);
    S->models = calloc(2 * (size_t)np + 1, sizeof *S->models);
    S->objectives = calloc(2 * (size_t)np + 1, sizeof *S->objectives);
    S->delta = mbs_calloc_doubles((size_t)np, &fail);
    double **vec[] = {&S->q, &S->qd, &S->qdd, &S->xp_q, &S->xp_qd, &S->xp_qdd, &S->xm_q,
                      &S->xm_qd, &S->xm_qdd};
    for (size_t i = 0; i < sizeof vec / sizeof vec[0]; ++i)
        *vec[i] = mbs_calloc_doubles(nn, &fail);
    S->fp = mbs_calloc_doubles((size_t)(nout > n ? nout : n), &fail);
    S->fm = mbs_calloc_doubles((size_t)(nout > n ? nout : n), &fail);
    S->sq = mbs_calloc_doubles(npn, &fail);
    S->sqd = mbs_calloc_doubles(npn, &fail);
    S->sqdd = mbs_calloc_doubles(npn, &fail);
    S->gp = mbs_calloc_doubles((size_t)S->no, &fail);
    S->gm = mbs_calloc_doubles((size_t)S->no, &fail);
    S->wp = mbs_calloc_doubles((size_t)S->no, &fail);
    S->wm = mbs_calloc_doubles((size_t)S->no, &fail);
    S->psi_now = mbs_calloc_doubles((size_t)S->no, &fail);
    S->dg_last = mbs_calloc_doubles(nonp, &fail);
    S->grad_integral = mbs_calloc_doubles(nonp, &fail);
    S->dw_last = mbs_calloc_doubles(nonp, &fail);
    S->grad_now = mbs_calloc_doubles(nonp, &fail);
    if (fail || !S->models || !S->objectives)
        return mbs_error_set(err, MBS_FATAL, "out of memory");
    for (int k = 0; k < np; ++k) {
        int pi = p->parameters[k];
        double rho = m->parameters[pi].value;
        volatile double up = rho + cbrt(DBL_EPSILON) * fmax(1.0, fabs(rho));
        S->delta[k] = up - rho; /* exactly representable: the models see rho +- d */
        for (int s = 0; s < 2; ++s) {
            MbsModel *mk = mbs_model_with_parameter(m, pi, s ? rho - S->delta[k] : up, err);
            if (!mk)
                return MBS_FATAL;
            S->models[2 * k + s] = mk;
            if (mk->topo->nnodes != m->topo->nnodes || mk->topo->nrows != m->topo->nrows ||
                mk->nbodies != m->nbodies || mk->njoints != m->njoints)
                return mbs_error_set(err, MBS_FATAL, "parameter '%s' changes the topology",
                                     m->parameters[pi].name);
            S->objectives[2 * k + s] = mbs_objective_eval_new(mk, kind, err);
            if (!S->objectives[2 * k + s])
                return MBS_FATAL;
        }
    }
    if (mbs_objective_accumulator_init(&S->acc, m, kind, err))
        return MBS_FATAL;
    S->p = p;
    return 0;
}

void sens_direct_directional(SensDirect *S, SensDirectFn fn, void *plus, void *minus, int k,
                             int nout, const double *q, const double *qd, const double *qdd,
                             const double *dq, const double *dqd, const double *dqdd,
                             double *out)
{
    double d = S->delta[k];
    for (int i = 0; i < S->n; ++i) {
        S->xp_q[i] = q[i] + d * (dq ? dq[i] : 0.0);
        S->xm_q[i] = q[i] - d * (dq ? dq[i] : 0.0);
        S->xp_qd[i] = qd[i] + d * (dqd ? dqd[i] : 0.0);
        S->xm_qd[i] = qd[i] - d * (dqd ? dqd[i] : 0.0);
        S->xp_qdd[i] = qdd[i] + d * (dqdd ? dqdd[i] : 0.0);
        S->xm_qdd[i] = qdd[i] - d * (dqdd ? dqdd[i] : 0.0);
    }
    fn(plus, S->xp_q, S->xp_qd, S->xp_qdd, S->fp);
    fn(minus, S->xm_q, S->xm_qd, S->xm_qdd, S->fm);
    for (int i = 0; i < nout; ++i)
        out[i] = (S->fp[i] - S->fm[i]) / (2.0 * d);
}

int sens_parameter_dynamic_only(const MbsModel *m, int q)
{
    int count = mbs_model_parameter_dependents(m, q, NULL, 0);
    MbsFieldRef *refs = calloc((size_t)count + 1, sizeof *refs);
    if (!refs)
        return 0;
    mbs_model_parameter_dependents(m, q, refs, count);
    int only = 1;
    for (int i = 0; i < count; ++i)
        only &= refs[i].kind == MBS_ELEMENT_BODY || refs[i].kind == MBS_ELEMENT_FORCE ||
                refs[i].kind == MBS_ELEMENT_MODEL || refs[i].kind == MBS_ELEMENT_PARAMETER;
    free(refs);
    return only;
}

int sens_parameter_part(const MbsModel *m, int q, unsigned char *bodies, unsigned char *forces)
{
    int count = mbs_model_parameter_dependents(m, q, NULL, 0);
    MbsFieldRef *refs = calloc((size_t)count + 1, sizeof *refs);
    if (!refs)
        return -1;
    mbs_model_parameter_dependents(m, q, refs, count);
    memset(bodies, 0, (size_t)m->nbodies);
    memset(forces, 0, (size_t)m->nforces);
    for (int i = 0; i < count; ++i) {
        if (refs[i].kind == MBS_ELEMENT_BODY)
            bodies[refs[i].index] = 1;
        else if (refs[i].kind == MBS_ELEMENT_FORCE)
            forces[refs[i].index] = 1;
        else if (refs[i].kind == MBS_ELEMENT_MODEL) /* gravity */
            memset(bodies, 1, (size_t)m->nbodies);
    }
    free(refs);
    return 0;
}

/* d g / d rho_k and d w / d rho_k at the state and its sensitivities, every objective. */
static void objective_derivatives(SensDirect *S, int initial, double *dg, double *dw)
{
    int n = S->n, no = S->no, np = S->np;
    for (int k = 0; k < np; ++k) {
        double d = S->delta[k];
        for (int i = 0; i < n; ++i) {
            S->xp_q[i] = S->q[i] + d * SENS_COL(S, S->sq, k)[i];
            S->xm_q[i] = S->q[i] - d * SENS_COL(S, S->sq, k)[i];
            S->xp_qd[i] = S->qd[i] + d * SENS_COL(S, S->sqd, k)[i];
            S->xm_qd[i] = S->qd[i] - d * SENS_COL(S, S->sqd, k)[i];
            S->xp_qdd[i] = S->qdd[i] + d * SENS_COL(S, S->sqdd, k)[i];
            S->xm_qdd[i] = S->qdd[i] - d * SENS_COL(S, S->sqdd, k)[i];
        }
        MbsObjectiveEval *plus = S->objectives[2 * k], *minus = S->objectives[2 * k + 1];
        if (initial) {
            mbs_objective_eval_set_initial(plus, S->xp_q, S->xp_qd, S->xp_qdd);
            mbs_objective_eval_set_initial(minus, S->xm_q, S->xm_qd, S->xm_qdd);
        }
        /* g and w from one evaluation per side (gp/gm hold g, wp/wm w) */
        mbs_objective_eval_values(plus, S->xp_q, S->xp_qd, S->xp_qdd, S->gp, S->wp);
        mbs_objective_eval_values(minus, S->xm_q, S->xm_qd, S->xm_qdd, S->gm, S->wm);
        for (int o = 0; o < no; ++o) {
            dg[(size_t)o * np + k] = (S->gp[o] - S->gm[o]) / (2.0 * d);
            dw[(size_t)o * np + k] = (S->wp[o] - S->wm[o]) / (2.0 * d);
        }
    }
}

/* psi and gradient so far, for the problem's objectives */
static void current(SensDirect *S, double *psi, double *grad)
{
    const MbsSensitivityProblem *p = S->p;
    mbs_objective_accumulator_psi(&S->acc, S->psi_now);
    for (int i = 0; i < p->nobjectives; ++i) {
        int o = p->objectives[i];
        psi[i] = S->psi_now[o];
        for (int k = 0; k < S->np; ++k)
            grad[(size_t)i * S->np + k] = S->grad_integral[(size_t)o * S->np + k] +
                                          S->dw_last[(size_t)o * S->np + k];
    }
}

typedef struct {
    SensDirect *S;
    const SensDirectScheme *scheme;
    double *psi, *grad; /* history scratch */
} Observer;

static int observe(void *data, const MbsRun *run)
{
    Observer *o = data;
    SensDirect *S = o->S;
    const MbsFormulation *f = mbs_run_formulation(run);
    if (S->failed)
        return 1;
    if (S->p->stop && *S->p->stop) {
        S->failed = 1;
        mbs_error_set(&S->error, MBS_FATAL, MBS_SENSITIVITY_STOPPED);
        return 1;
    }
    double t0 = mbs_clock_now();
    mbs_objective_accumulator_add(&S->acc, f);
    if (S->steps == 0 && S->t_last == 0.0 && f->steps == 0) {
        if (o->scheme->start(o->scheme->method, S, f, &S->error)) {
            S->failed = 1;
            return 1;
        }
        objective_derivatives(S, 1, S->dg_last, S->dw_last);
    } else if (f->steps > S->steps) {
        if (o->scheme->step(o->scheme->method, S, f, &S->error)) {
            S->failed = 1;
            return 1;
        }
        /* trapezoidal rule on d g / d rho, as on g */
        double dt = f->time - S->t_last;
        size_t nonp = (size_t)S->no * (size_t)S->np;
        memcpy(S->grad_now, S->dg_last, sizeof(double) * nonp);
        objective_derivatives(S, 0, S->dg_last, S->dw_last);
        for (size_t i = 0; i < nonp; ++i)
            S->grad_integral[i] += 0.5 * dt * (S->grad_now[i] + S->dg_last[i]);
        S->t_last = f->time;
    }
    S->steps = f->steps;
    const MbsSensitivityProblem *p = S->p;
    int every = p->history_every > 0 ? p->history_every : 1;
    if (mbs_run_grid_steps(run) % every == 0) {
        if (p->history) {
            current(S, o->psi, o->grad);
            p->history(p->history_data, f->time, o->psi, o->grad);
        }
        if (p->state_history)
            p->state_history(p->state_history_data, f->time, S->n, S->q, S->sq);
    }
    if (p->progress && p->settings->duration > 0)
        p->progress(p->progress_data, fmin(f->time / p->settings->duration, 1.0));
    S->time_sensitivity += mbs_clock_now() - t0;
    return 0;
}

int sens_direct_run(SensDirect *S, const SensDirectScheme *scheme, MbsSensitivityResult *r,
                    MbsError *err)
{
    const MbsSensitivityProblem *p = S->p;
    double t_start = mbs_clock_now();
    MbsFormulation *f = mbs_formulation_new(scheme->formulation, p->model, p->settings, err);
    if (!f)
        return MBS_FATAL;
    Observer o = {.S = S, .scheme = scheme, .psi = r->psi, .grad = r->gradient};
    MbsRunOptions options = {.max_halvings = 0};
    MbsRunObserver observer = {.sample = observe, .data = &o, .every = 1};
    MbsRun *run = mbs_run_new(f, &options, &observer, err);
    int status = run ? 0 : MBS_FATAL;
    if (run && mbs_run_advance(run, p->settings->duration) != MBS_RUN_REACHED) {
        *err = S->failed ? S->error : *mbs_run_error(run);
        status = MBS_FATAL;
    }
    if (status == 0) {
        current(S, r->psi, r->gradient);
        r->steps = mbs_run_summary(run)->steps;
        r->time_sensitivity = S->time_sensitivity;
        r->time_dynamics = mbs_clock_now() - t_start - S->time_sensitivity;
    }
    mbs_run_free(run);
    mbs_formulation_free(f);
    return status;
}
