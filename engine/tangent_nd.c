/* Tangent by numerical differentiation, forward (one evaluation a column, error O(sqrt eps))
 * or central (two, error O(eps^(2/3))), columns in parallel (paper 003 §3.2). */
#include <float.h>
#include <math.h>
#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "mbs_tangent_method.h"

static size_t nd_thread_work(const MbsTangentProblem *p)
{
    return (size_t)p->nx + 2 * (size_t)p->nr; /* perturbed x, r(x + h e_j), r(x - h e_j) */
}

static double increment(const MbsTangentStep *rule, double fallback, double xj)
{
    double relative = rule->relative > 0.0 ? rule->relative : fallback;
    return relative * (rule->offset_one ? 1.0 + fabs(xj) : fmax(1.0, fabs(xj)));
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
        double h = increment(&p->step, sqrt(DBL_EPSILON), x0);
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
        double h = increment(&p->step, cbrt(DBL_EPSILON), x0);
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

static int nd_eval(MbsTangent *t, const double *x, const double *r0, double *J, int central)
{
    const MbsTangentProblem *p = &t->problem;
    int nx = p->nx, nr = p->nr, failed = 0;
    long evals = 0;
    memset(t->status, 0, sizeof(int) * (size_t)p->nthreads);
    /* Columns interleaved among threads (static, 1): each thread meets its columns in
     * increasing order, so a problem may put the variables whose columns share work first. */
#pragma omp parallel num_threads(p->nthreads) reduction(+ : evals) if (p->nthreads > 1)
    {
#ifdef _OPENMP
        int tid = omp_get_thread_num();
#else
        int tid = 0;
#endif
        double *xp = t->work + t->work_stride * (size_t)tid;
        double *rp = xp + nx, *rm = rp + nr;
        void *ctx = p->contexts[tid];
        int status = 0;
        memcpy(xp, x, sizeof(double) * (size_t)nx);
        if (p->begin)
            p->begin(ctx);
#pragma omp for schedule(static, 1)
        for (int j = 0; j < nx; ++j) {
            int stop;
#pragma omp atomic read
            stop = failed;
            if (status || stop)
                continue; /* a residual failed: J is not wanted any more */
            status = column(p, ctx, central, j, xp, r0, rp, rm, J, &evals);
            if (status) {
#pragma omp atomic write
                failed = 1;
            }
        }
        t->status[tid] = status;
    }
    t->evaluations = evals;
    return mbs_tangent_worst_status(t);
}

static int nd_forward_eval(MbsTangent *t, const double *x, const double *r0, double *J)
{
    return nd_eval(t, x, r0, J, 0);
}

static int nd_central_eval(MbsTangent *t, const double *x, const double *r0, double *J)
{
    (void)r0;
    return nd_eval(t, x, r0, J, 1);
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
