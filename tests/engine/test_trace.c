/* Step trace (engine/mbs_trace.h, issue 12 "step through one time step"): a traced penalty and
 * ali3p step on the spatial four-bar records the step's Newton iterations (as many as the
 * monitors count), converges below its bound, projects velocities (residual down 100x), leaves the formulation where it was (the traced
 * step's result is bit-equal to an untraced step from the same state), and its constraint
 * Jacobian snapshot has the nonzeros and values of Phi found by central differences; the traced
 * step allocates nothing (the buffers are the trace's, allocated by mbs_trace_new). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../tap.h"
#include "alloc_counter.h"
#include "mbs_constraints.h"
#include "mbs_formulation.h"
#include "mbs_kinematics.h"
#include "mbs_natural.h"
#include "mbs_topology.h"
#include "test_models.h"

/* Phi at coordinates x, time t, for either kind of coordinates. */
typedef struct {
    const MbsModel *m;
    MbsKinematics kin;
    MbsNatural *nat;
    int rows;
} PhiEval;

static void phi_at(PhiEval *e, const double *x, double t, double *phi)
{
    if (e->nat) {
        mbs_natural_constraints(e->nat, x, NULL, t, phi, NULL, NULL, NULL);
        return;
    }
    mbs_kinematics_positions(e->m, &e->kin, x);
    mbs_constraints_eval(e->m, &e->kin, t, x, phi, NULL, NULL);
}

static const MbsTraceMatrix *find_matrix(const MbsTrace *t, const char *name)
{
    for (int i = 0; i < t->nmatrices; ++i)
        if (strcmp(t->matrices[i].name, name) == 0)
            return &t->matrices[i];
    return NULL;
}

#define STEP 2e-3

/* form on m with steps of STEP, or NULL (said). */
static MbsFormulation *make(const char *form, const MbsModel *m)
{
    MbsSettings s;
    MbsError err;
    mbs_settings_defaults(&s);
    s.step = STEP;
    MbsFormulation *f = mbs_formulation_new(form, m, &s, &err);
    if (!tap_ok(f != NULL, "%s: created", form))
        tap_diag("%s", err.message);
    return f;
}

static void check(const char *form, const MbsModel *m)
{
    MbsError err;
    MbsFormulation *f = make(form, m);
    if (!f)
        return;
    for (int k = 0; k < 100; ++k) /* into the motion: t = 0.2 s */
        if (mbs_formulation_step(f, &err))
            tap_diag("%s", err.message);
    int n = f->klass->ncoords(f);
    int size = f->klass->state_size(f);
    double *before = calloc((size_t)size, sizeof(double));
    double *traced = calloc((size_t)size, sizeof(double));
    double *untraced = calloc((size_t)size, sizeof(double));
    double *x = calloc((size_t)n, sizeof(double)), *xd = calloc((size_t)n, sizeof(double));
    double *xdd = calloc((size_t)n, sizeof(double));
    f->klass->state_get(f, before);
    double t0 = f->time;
    f->klass->coordinates(f, x, xd);
    f->klass->accelerations(f, xdd);

    MbsTrace *t = mbs_trace_new(f, &err);
    int status = mbs_formulation_trace_step(f, t, &err);
    tap_ok(status == 0 && t->status == 0, "%s: traced step succeeds (%s)", form, t->message);
    f->klass->state_get(f, traced);
    tap_ok(memcmp(before, traced, sizeof(double) * (size_t)size) == 0 && f->time == t0,
           "%s: tracing leaves the formulation at its state (t = %g)", form, t0);

    /* the traced step again, untraced, from the same state */
    f->trace = t; /* recorded again into t, then compared with the untraced step */
    mbs_trace_clear(t);
    long allocations = alloc_count;
    alloc_counting = 1;
    mbs_formulation_step(f, &err);
    alloc_counting = 0;
    tap_ok(alloc_count == allocations, "%s: a traced step allocates nothing (%ld)", form,
           alloc_count - allocations);
    f->klass->state_get(f, traced);
    MbsMonitors traced_monitors = f->monitors;
    f->trace = NULL;
    f->klass->state_set(f, before, &err);
    f->time = t0;
    mbs_formulation_step(f, &err);
    f->klass->state_get(f, untraced);
    tap_ok(memcmp(traced, untraced, sizeof(double) * (size_t)size) == 0,
           "%s: the traced step's state is bit-equal to the untraced step's (%d values)", form,
           size);
    tap_ok(traced_monitors.total == f->monitors.total &&
               traced_monitors.phi_norm == f->monitors.phi_norm,
           "%s: and so are its monitors", form);

    int newton = 0, evaluations = 0, predictor = 0, vel = 0, acc = 0;
    const MbsTracePhase *last = NULL;
    for (int i = 0; i < t->nphases; ++i) {
        const MbsTracePhase *p = &t->phases[i];
        predictor += p->kind == MBS_TRACE_PREDICTOR;
        vel += p->kind == MBS_TRACE_PROJECTION_VELOCITY;
        acc += p->kind == MBS_TRACE_PROJECTION_ACCELERATION;
        if (p->kind == MBS_TRACE_NEWTON) {
            newton++;
            evaluations += p->tangent_evaluated;
            last = p;
        }
    }
    tap_ok(predictor == 1 && vel == 1 && acc == 1 && t->phases[0].kind == MBS_TRACE_PREDICTOR,
           "%s: one predictor first, one velocity and one acceleration projection", form);
    tap_ok(newton == f->monitors.newton_iterations && newton >= 2,
           "%s: Newton iterations recorded %d = the monitors' %d", form, newton,
           f->monitors.newton_iterations);
    tap_ok(evaluations == f->monitors.jacobian_evaluations,
           "%s: tangent evaluations recorded %d = the monitors' %d", form, evaluations,
           f->monitors.jacobian_evaluations);
    if (last) {
        tap_ok(last->converged && last->correction <= last->bound,
               "%s: last correction %.3g below its bound %.3g", form, last->correction,
               last->bound);
        tap_below(last->residual, 0.1 * t->phases[1].residual,
                  "%s: the residual falls by 10 or more over the iterations", form);
    }
    const MbsTracePhase *pv = &t->phases[t->nphases - 2];
    if (pv->kind == MBS_TRACE_PROJECTION_VELOCITY)
        tap_below(pv->residual_after, 1e-2 * pv->residual,
                  "%s: velocity projection takes |Phi_q qd + Phi_t| from %.3g to %.3g", form,
                  pv->residual, pv->residual_after);

    /* Phi_q of the first iteration, at the predictor, against central differences */
    int relative = f->klass->coordinate_kind == MBS_COORDINATES_RELATIVE;
    const MbsTraceMatrix *J = find_matrix(t, relative ? "Phi_z" : "Phi_q");
    const MbsTraceMatrix *M = find_matrix(t, "M");
    const MbsTraceMatrix *L = find_matrix(t, "leading");
    tap_ok(J && M && L && J->stored && M->rows == n && L->cols == n && J->cols == n,
           "%s: M, Phi and the leading matrix recorded with n = %d columns", form, n);
    if (J) {
        PhiEval e = {.m = m};
        if (relative) {
            mbs_kinematics_init(&e.kin, m);
            e.rows = m->topo->nrows;
        } else {
            e.nat = mbs_natural_new(m, &err);
            e.rows = e.nat->m;
        }
        double h = STEP, t1 = t0 + h, eps = 1e-6;
        double *xp = calloc((size_t)n, sizeof(double));
        double *dense = calloc((size_t)e.rows * n, sizeof(double));
        double *phi_plus = calloc((size_t)e.rows, sizeof(double));
        double *phi_minus = calloc((size_t)e.rows, sizeof(double));
        for (int i = 0; i < n; ++i)
            xp[i] = x[i] + h * xd[i] + 0.5 * h * h * xdd[i];
        double largest = 0.0;
        for (int j = 0; j < n; ++j) {
            double keep = xp[j];
            xp[j] = keep + eps;
            phi_at(&e, xp, t1, phi_plus);
            xp[j] = keep - eps;
            phi_at(&e, xp, t1, phi_minus);
            xp[j] = keep;
            for (int i = 0; i < e.rows; ++i) {
                dense[i + (size_t)e.rows * j] = (phi_plus[i] - phi_minus[i]) / (2 * eps);
                largest = fmax(largest, fabs(dense[i + (size_t)e.rows * j]));
            }
        }
        double clear = 1e-7 * largest, worst = 0.0;
        long expected = 0, recorded_clear = 0;
        for (size_t k = 0; k < (size_t)e.rows * n; ++k)
            expected += fabs(dense[k]) > clear;
        for (long k = 0; k < J->nonzeros; ++k) {
            size_t at = J->first + (size_t)k;
            double v = t->value[at];
            recorded_clear += fabs(v) > clear;
            worst = fmax(worst, fabs(v - dense[t->row[at] + (size_t)e.rows * t->col[at]]));
        }
        tap_ok(J->rows == e.rows && recorded_clear == expected && expected > 0,
               "%s: %s is %d x %d with %ld nonzeros above 1e-7 max, as differences find (%ld)",
               form, J->name, J->rows, J->cols, recorded_clear, expected);
        tap_below(worst, 1e-6 * largest, "%s: %s values agree with differences", form, J->name);
        tap_diag("%s: %s has %ld nonzeros in all, M %ld, leading %ld (of %d)", form, J->name,
                 J->nonzeros, M ? M->nonzeros : -1L, L ? L->nonzeros : -1L, n * n);
        free(xp);
        free(dense);
        free(phi_plus);
        free(phi_minus);
        if (relative)
            mbs_kinematics_free(&e.kin);
        else
            mbs_natural_free(e.nat);
    }
    mbs_trace_free(t);
    free(before);
    free(traced);
    free(untraced);
    free(x);
    free(xd);
    free(xdd);
    mbs_formulation_free(f);
}

/* ssode integrates inside ARKODE: the trace says it is not traced instead of showing nothing. */
static void check_untraced(const MbsModel *m)
{
    MbsError err;
    MbsFormulation *f = make("ssode", m);
    if (!f)
        return;
    MbsTrace *t = mbs_trace_new(f, &err);
    mbs_formulation_trace_step(f, t, &err);
    tap_ok(t->nphases == 0 && strstr(t->message, "not traced") != NULL,
           "ssode: says it is not traced (\"%s\")", t->message);
    mbs_trace_free(t);
    mbs_formulation_free(f);
}

/* matrix-r (RK4): four evaluations, each after its position Newton iterations; the monitors
 * count the corrections applied (the converged iteration's is not), and the step is unmoved. */
static void check_matrix_r(const MbsModel *m)
{
    MbsError err;
    MbsFormulation *f = make("matrix-r", m);
    if (!f)
        return;
    for (int k = 0; k < 100; ++k)
        mbs_formulation_step(f, &err);
    int size = f->klass->state_size(f);
    double *before = calloc((size_t)size, sizeof(double));
    double *after = calloc((size_t)size, sizeof(double));
    MbsCheckpoint c;
    mbs_checkpoint_init(&c, f, &err);
    mbs_formulation_save(f, &c);
    MbsTrace *t = mbs_trace_new(f, &err);
    mbs_formulation_trace_step(f, t, &err);
    mbs_formulation_step(f, &err); /* untraced, from the same state */
    f->klass->state_get(f, after);
    mbs_formulation_restore(f, &c, &err);
    mbs_checkpoint_free(&c);
    f->trace = t;
    mbs_trace_clear(t);
    mbs_formulation_step(f, &err);
    f->trace = NULL;
    f->klass->state_get(f, before);
    tap_ok(memcmp(before, after, sizeof(double) * (size_t)size) == 0,
           "matrix-r: the traced step's state is bit-equal to the untraced step's");
    int evaluations = 0, applied = 0, converged = 0;
    for (int i = 0; i < t->nphases; ++i) {
        const MbsTracePhase *p = &t->phases[i];
        evaluations += p->kind == MBS_TRACE_EVALUATION;
        if (p->kind == MBS_TRACE_POSITION_NEWTON) {
            applied += !p->converged;
            converged += p->converged;
        }
    }
    tap_ok(evaluations == 4 && converged == 4,
           "matrix-r: 4 evaluations of RK4, each after a converged position problem (%d, %d)",
           evaluations, converged);
    tap_ok(applied == f->monitors.newton_iterations,
           "matrix-r: position corrections recorded %d = the monitors' %d", applied,
           f->monitors.newton_iterations);
    const MbsTraceMatrix *Rm = find_matrix(t, "R"), *L = find_matrix(t, "leading");
    int n = f->klass->ncoords(f);
    tap_ok(Rm && L && Rm->rows == n && Rm->cols == 1 && L->rows == 1 && L->cols == 1,
           "matrix-r: R is n x d = %d x 1 and R^T M R is d x d = 1 x 1", n);
    free(before);
    free(after);
    mbs_trace_free(t);
    mbs_formulation_free(f);
}

int main(void)
{
    MbsModel *m = build_four_bar();
    check("penalty", m);
    check("ali3p", m);
    check_matrix_r(m);
    check_untraced(m);
    mbs_model_free(m);
    return tap_done();
}
