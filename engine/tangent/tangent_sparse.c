/* Tangent by compressed forward differences (Curtis, Powell and Reid 1974): columns that share
 * no row of the structural pattern are perturbed together, so p residual evaluations (p colours)
 * give all nx columns instead of nx; each entry is recovered from the one difference of its
 * colour, divided by its own column's increment. With the same increments as nd-forward an
 * entry differs from nd-forward's only by round-off, since its row reads no other variable of
 * the colour. Without a pattern every column is its own colour (nd-forward's cost).
 * Colours are shared among threads like nd-forward's columns (paper 003 §3.2). */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mbs_tangent_method.h"

typedef struct {
    int count, column;
} ColumnOrder;

static int by_decreasing_count(const void *a, const void *b)
{
    const ColumnOrder *x = a, *y = b;
    if (x->count != y->count)
        return x->count > y->count ? -1 : 1;
    return (x->column > y->column) - (x->column < y->column);
}

int mbs_tangent_colour_columns(const MbsSparsity *pattern, int nx, int nr, int *colour)
{
    const int *cp = pattern->colptr, *ri = pattern->rowind;
    int nnz = cp[nx], colours = 0;
    int *row_start = calloc((size_t)nr + 2, sizeof(int));
    int *row_columns = malloc(sizeof(int) * ((size_t)nnz + 1));
    int *forbidden = malloc(sizeof(int) * ((size_t)nx + 1)); /* column that forbade colour c */
    ColumnOrder *order = malloc(sizeof(ColumnOrder) * ((size_t)nx + 1));
    if (!row_start || !row_columns || !forbidden || !order) {
        colours = -1;
        goto out;
    }
    /* the transpose: the columns of each row */
    for (int k = 0; k < nnz; ++k)
        row_start[ri[k] + 2]++;
    for (int i = 0; i < nr; ++i)
        row_start[i + 2] += row_start[i + 1];
    for (int j = 0; j < nx; ++j)
        for (int k = cp[j]; k < cp[j + 1]; ++k)
            row_columns[row_start[ri[k] + 1]++] = j;
    for (int j = 0; j < nx; ++j) {
        colour[j] = -1;
        forbidden[j] = -1;
        order[j] = (ColumnOrder){cp[j + 1] - cp[j], j};
    }
    qsort(order, (size_t)nx, sizeof *order, by_decreasing_count);
    for (int o = 0; o < nx; ++o) {
        int j = order[o].column, c = 0;
        for (int k = cp[j]; k < cp[j + 1]; ++k)
            for (int l = row_start[ri[k]]; l < row_start[ri[k] + 1]; ++l)
                if (colour[row_columns[l]] >= 0)
                    forbidden[colour[row_columns[l]]] = j;
        while (forbidden[c] == j)
            ++c;
        colour[j] = c;
        if (c + 1 > colours)
            colours = c + 1;
    }
out:
    free(row_start);
    free(row_columns);
    free(forbidden);
    free(order);
    return colours;
}

void mbs_tangent_groups_release(MbsTangent *t)
{
    MbsColumnGroups *g = t->method_data;
    if (g) {
        free(g->start);
        free(g->columns);
        free(g);
    }
    t->method_data = NULL;
}

/* Renumbers the colours by their largest column, so that the groups that move only the first
 * variables come first: penalty's velocities (x = [zd, z]), whose evaluations keep the position
 * kinematics of the base point when a thread meets them in a row (22 of the 60 groups of the
 * lattices). The groups and the entries are the same; only their order changes. Returns 0, or
 * -1 when out of memory. */
static int order_by_largest(int *colour, int nx, int colours)
{
    int *largest = malloc(sizeof(int) * ((size_t)colours + 1));
    int *owner = malloc(sizeof(int) * ((size_t)nx + 1)); /* the colour whose largest column j is */
    if (!largest || !owner) {
        free(largest);
        free(owner);
        return -1;
    }
    for (int j = 0; j < nx; ++j) {
        largest[colour[j]] = j;
        owner[j] = -1;
    }
    for (int c = 0; c < colours; ++c)
        owner[largest[c]] = c;
    for (int j = 0, rank = 0; j < nx; ++j)
        if (owner[j] >= 0)
            largest[owner[j]] = rank++; /* now the new number of colour owner[j] */
    for (int j = 0; j < nx; ++j)
        colour[j] = largest[colour[j]];
    free(largest);
    free(owner);
    return 0;
}

int mbs_tangent_groups_prepare(MbsTangent *t, MbsError *err)
{
    const MbsTangentProblem *p = &t->problem;
    int nx = p->nx;
    MbsColumnGroups *g = calloc(1, sizeof *g);
    int *colour = malloc(sizeof(int) * ((size_t)nx + 1));
    t->method_data = g;
    int colours = nx;
    if (g && colour) {
        if (p->pattern)
            colours = mbs_tangent_colour_columns(p->pattern, nx, p->nr, colour);
        else
            for (int j = 0; j < nx; ++j)
                colour[j] = j;
        g->start = calloc((size_t)(colours > 0 ? colours : 0) + 2, sizeof(int));
        g->columns = malloc(sizeof(int) * ((size_t)nx + 1));
    }
    if (!g || !colour || colours < 0 || !g->start || !g->columns ||
        order_by_largest(colour, nx, colours)) {
        free(colour);
        return mbs_error_set(err, MBS_FATAL, "out of memory");
    }
    for (int j = 0; j < nx; ++j) /* counting sort by colour keeps columns increasing */
        g->start[colour[j] + 2]++;
    for (int c = 0; c < colours; ++c)
        g->start[c + 2] += g->start[c + 1];
    for (int j = 0; j < nx; ++j)
        g->columns[g->start[colour[j] + 1]++] = j;
    free(colour);
    t->colours = colours;
    return 0;
}

static size_t sparse_thread_work(const MbsTangentProblem *p)
{
    return 2 * (size_t)p->nx + (size_t)p->nr; /* perturbed x, increments, r(x + sum h_j e_j) */
}

/* The columns of colour c into their entries of J; x is the thread's copy, restored on return.
 * The residual is told the largest column moved (penalty's velocity columns come first, so a
 * colour of velocities only keeps the position kinematics). */
static int colour_columns(const MbsTangentProblem *p, const MbsColumnGroups *g, void *ctx, int c,
                          const double *x0, double *x, double *steps, const double *r0,
                          double *r, double *J)
{
    double sign = p->negate ? -1.0 : 1.0;
    int first = g->start[c], last = g->start[c + 1], largest = g->columns[last - 1];
    for (int l = first; l < last; ++l) {
        int j = g->columns[l];
        double h = mbs_tangent_increment(&p->step, sqrt(DBL_EPSILON), x0[j]);
        x[j] = x0[j] + h;
        steps[j] = p->step.unrounded ? h : x[j] - x0[j]; /* exactly representable step */
    }
    int status = p->residual(ctx, x, largest, steps[largest], r);
    for (int l = first; l < last; ++l) {
        int j = g->columns[l];
        x[j] = x0[j];
        if (status)
            continue;
        size_t lo, hi;
        mbs_tangent_column_range(p, j, &lo, &hi);
        for (size_t k = lo; k < hi; ++k) {
            int i = mbs_tangent_row(p, k, lo);
            J[k] = sign * ((r[i] - r0[i]) / steps[j]);
        }
    }
    return status;
}

/* work: perturbed x, increments, r(x + sum h_j e_j) (sparse_thread_work) */
static int colour_task(const MbsTangent *t, void *ctx, int c, double *work, const double *x,
                       const double *r0, double *J, long *evals)
{
    const MbsTangentProblem *p = &t->problem;
    double *steps = work + p->nx, *r = steps + p->nx;
    ++*evals;
    return colour_columns(p, t->method_data, ctx, c, x, work, steps, r0, r, J);
}

static int sparse_eval(MbsTangent *t, const double *x, const double *r0, double *J)
{
    return mbs_tangent_run_tasks(t, t->colours, colour_task, x, r0, J);
}

const MbsTangentMethodClass mbs_tangent_nd_sparse = {
    .needs_base_residual = 1,
    .uses_pattern = 1,
    .thread_work = sparse_thread_work,
    .eval = sparse_eval,
    .prepare = mbs_tangent_groups_prepare,
    .release = mbs_tangent_groups_release,
};
