/* Tangent by numerical differentiation, forward (one evaluation a column, error O(sqrt eps))
 * or central (two, error O(eps^(2/3))), columns in parallel (paper 003 §3.2). */
#include <float.h>
#include <math.h>
#include <string.h>

#include "mbs_tangent_method.h"

static size_t nd_thread_work(const MbsTangentProblem *p)
{
    return (size_t)p->nx + 2 * (size_t)p->nr; /* perturbed x, r(x + h e_j), r(x - h e_j) */
}

/* Column j of J into its entries of J; x is the thread's copy, restored on return. */
static int column(const MbsTangentProblem *p, void *ctx, int central, int j, double *x,
                  const double *r0, double *rp, double *rm, double *J, long *evals)
{
    double x0 = x[j];
    double sign = p->negate ? -1.0 : 1.0;
    size_t lo, hi;
    mbs_tangent_column_range(p, j, &lo, &hi);
    int status;
    if (!central) {
        double h = mbs_tangent_increment(&p->step, sqrt(DBL_EPSILON), x0);
        x[j] = x0 + h;
        if (!p->step.unrounded)
            h = x[j] - x0; /* exactly representable step */
        status = p->residual(ctx, x, j, h, rp);
        ++*evals;
        if (!status)
            for (size_t k = lo; k < hi; ++k) {
                int i = mbs_tangent_row(p, k, lo);
                J[k] = sign * ((rp[i] - r0[i]) / h);
            }
    } else {
        double h = mbs_tangent_increment(&p->step, cbrt(DBL_EPSILON), x0);
        x[j] = x0 + h;
        status = p->residual(ctx, x, j, h, rp);
        ++*evals;
        if (!status) {
            x[j] = x0 - h;
            status = p->residual(ctx, x, j, -h, rm);
            ++*evals;
        }
        if (!status)
            for (size_t k = lo; k < hi; ++k) {
                int i = mbs_tangent_row(p, k, lo);
                J[k] = sign * ((rp[i] - rm[i]) / (2.0 * h));
            }
    }
    x[j] = x0;
    return status;
}

/* work: perturbed x, r(x + h e_j), r(x - h e_j) (nd_thread_work) */
static int forward_column(const MbsTangent *t, void *ctx, int j, double *work, const double *x,
                          const double *r0, double *J, long *evals)
{
    (void)x;
    const MbsTangentProblem *p = &t->problem;
    double *rp = work + p->nx, *rm = rp + p->nr;
    return column(p, ctx, 0, j, work, r0, rp, rm, J, evals);
}

static int central_column(const MbsTangent *t, void *ctx, int j, double *work, const double *x,
                          const double *r0, double *J, long *evals)
{
    (void)x;
    const MbsTangentProblem *p = &t->problem;
    double *rp = work + p->nx, *rm = rp + p->nr;
    return column(p, ctx, 1, j, work, r0, rp, rm, J, evals);
}

static int nd_forward_eval(MbsTangent *t, const double *x, const double *r0, double *J)
{
    return mbs_tangent_run_tasks(t, t->problem.nx, forward_column, x, r0, J);
}

static int nd_central_eval(MbsTangent *t, const double *x, const double *r0, double *J)
{
    return mbs_tangent_run_tasks(t, t->problem.nx, central_column, x, r0, J);
}

const MbsTangentMethodClass mbs_tangent_nd_forward = {
    .needs_base_residual = 1,
    .thread_work = nd_thread_work,
    .eval = nd_forward_eval,
};

const MbsTangentMethodClass mbs_tangent_nd_central = {
    .needs_base_residual = 0,
    .thread_work = nd_thread_work,
    .eval = nd_central_eval,
};
