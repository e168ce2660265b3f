/* Tangent by forward-mode automatic differentiation: the problem's residual_dual (the same
 * source as its residual, compiled over dual numbers: mbs_scalar.h) evaluated with
 * MBS_DUAL_WIDTH seeded directions at a time (vector mode, chunked as ForwardDiff does).
 *
 *   ad         one direction per column: ceil(nx / W) evaluations
 *   ad-sparse  one direction per group of columns that share no row of the pattern (the
 *              colouring of nd-sparse, Curtis-Powell-Reid): ceil(p / W) evaluations; entry
 *              (i, j) is the derivative of r_i along the direction of j's group, since r_i
 *              reads no other column of the group
 *
 * Exact to round-off (no truncation error, no increment to choose). Evaluations are shared
 * among threads like nd's columns (mbs_tangent_run_tasks): thread-private dual workspaces, no
 * locks, the same J whatever the thread count. */
#include <string.h>

#include "mbs_tangent_method.h"

static size_t ad_thread_work(const MbsTangentProblem *p)
{
    /* x (run_tasks' copy), then x and r over dual numbers */
    return (size_t)p->nx + ((size_t)p->nx + (size_t)p->nr) * (sizeof(MbsDual) / sizeof(double));
}

/* Evaluation `chunk`: the groups chunk W .. chunk W + W - 1 seeded as directions 0 .. W - 1,
 * their columns of J from the derivatives. work: ad_thread_work. */
static int chunk_task(const MbsTangent *t, void *ctx, int chunk, double *work, const double *x,
                      const double *r0, double *J, long *evals)
{
    (void)r0;
    const MbsTangentProblem *p = &t->problem;
    const MbsColumnGroups *g = t->method_data;
    MbsDual *xd = (MbsDual *)(void *)(work + p->nx), *rd = xd + p->nx;
    int first = chunk * MBS_DUAL_WIDTH, last = first + MBS_DUAL_WIDTH, largest = -1;
    if (last > t->colours)
        last = t->colours;
    for (int j = 0; j < p->nx; ++j)
        xd[j] = mbs_dual_constant(x[j]);
    for (int c = first; c < last; ++c)
        for (int l = g->start[c]; l < g->start[c + 1]; ++l) {
            int j = g->columns[l];
            xd[j].d[c - first] = 1.0;
            if (j > largest)
                largest = j;
        }
    int status = p->residual_dual(ctx, xd, largest, rd);
    ++*evals;
    if (status)
        return status;
    double sign = p->negate ? -1.0 : 1.0;
    for (int c = first; c < last; ++c)
        for (int l = g->start[c]; l < g->start[c + 1]; ++l) {
            size_t lo, hi;
            mbs_tangent_column_range(p, g->columns[l], &lo, &hi);
            for (size_t k = lo; k < hi; ++k)
                J[k] = sign * rd[mbs_tangent_row(p, k, lo)].d[c - first];
        }
    return 0;
}

static int ad_eval(MbsTangent *t, const double *x, const double *r0, double *J)
{
    int chunks = (t->colours + MBS_DUAL_WIDTH - 1) / MBS_DUAL_WIDTH;
    return mbs_tangent_run_tasks(t, chunks, chunk_task, x, r0, J);
}

/* Dense: the problem gets no pattern (mbs_jacobian_method_uses_pattern), so every column is
 * its own group. */
const MbsTangentMethodClass mbs_tangent_ad = {
    .needs_dual = 1,
    .thread_work = ad_thread_work,
    .eval = ad_eval,
    .prepare = mbs_tangent_groups_prepare,
    .release = mbs_tangent_groups_release,
};

const MbsTangentMethodClass mbs_tangent_ad_sparse = {
    .needs_dual = 1,
    .uses_pattern = 1,
    .thread_work = ad_thread_work,
    .eval = ad_eval,
    .prepare = mbs_tangent_groups_prepare,
    .release = mbs_tangent_groups_release,
};
