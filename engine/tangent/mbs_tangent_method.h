/* What a tangent method implements (private to the engine). Adding a method: a file defining
 * an MbsTangentMethodClass, its MbsJacobianMethod value, and its line in the registry, names and
 * labels of mbs_tangent.c. */
#ifndef MBS_TANGENT_METHOD_H
#define MBS_TANGENT_METHOD_H

#include <math.h>

#include "mbs_tangent.h"

struct MbsTangentMethodClass {
    int needs_base_residual;   /* uses r(x); mbs_tangent_eval provides it when not given */
    int uses_pattern;          /* see mbs_jacobian_method_uses_pattern */
    int needs_dual;            /* differentiates residual_dual (mbs_jacobian_method_needs_dual) */
    /* doubles of workspace each thread needs for the problem */
    size_t (*thread_work)(const MbsTangentProblem *p);
    /* J at x (see mbs_tangent_eval): sets t->evaluations and t->status[thread], returns 0 or
     * the first failing status. */
    int (*eval)(MbsTangent *t, const double *x, const double *r0, double *J);
    /* optional: what the method keeps for the problem (t->method_data, t->colours), made at
     * init (returns 0 or MBS_FATAL) and freed with the object */
    int (*prepare)(MbsTangent *t, MbsError *err);
    void (*release)(MbsTangent *t);
};

/* Increment of the variable x_j: relative * max(1, |x_j|), or relative * (1 + |x_j|) with
 * offset_one; relative from the rule or the method's fallback (mbs_tangent.h). */
static inline double mbs_tangent_increment(const MbsTangentStep *rule, double fallback, double xj)
{
    double relative = rule->relative > 0.0 ? rule->relative : fallback;
    return relative * (rule->offset_one ? 1.0 + fabs(xj) : fmax(1.0, fabs(xj)));
}

/* Entries of column j in J: indices lo .. hi - 1, row of entry k mbs_tangent_row(p, k, lo). */
static inline void mbs_tangent_column_range(const MbsTangentProblem *p, int j, size_t *lo,
                                            size_t *hi)
{
    if (p->pattern) {
        *lo = (size_t)p->pattern->colptr[j];
        *hi = (size_t)p->pattern->colptr[j + 1];
    } else {
        *lo = (size_t)p->nr * (size_t)j;
        *hi = *lo + (size_t)p->nr;
    }
}

static inline int mbs_tangent_row(const MbsTangentProblem *p, size_t k, size_t lo)
{
    return p->pattern ? p->pattern->rowind[k] : (int)(k - lo);
}

/* Groups of columns that share no row of the problem's pattern (each column its own group
 * without a pattern): nd-sparse perturbs a group at once, ad-sparse seeds it as one direction. */
typedef struct {
    int *start;   /* groups + 1: the columns of group c are columns[start[c] .. start[c + 1]) */
    int *columns; /* nx, grouped, increasing within a group */
} MbsColumnGroups;

/* A method's prepare/release that makes the groups (t->method_data) by
 * mbs_tangent_colour_columns and sets t->colours to their count. */
int mbs_tangent_groups_prepare(MbsTangent *t, MbsError *err);
void mbs_tangent_groups_release(MbsTangent *t);

/* The worst of the threads' statuses: a fatal one before a recoverable one. */
int mbs_tangent_worst_status(const MbsTangent *t);

/* Task `index` of a method's evaluation (a column, a colour of columns): with the thread's
 * context and workspace, whose first nx doubles are a copy of x that the task restores.
 * Adds its residual evaluations to *evals; returns 0 or the failing residual's status. */
typedef int (*MbsTangentTask)(const MbsTangent *t, void *ctx, int index, double *work,
                              const double *x, const double *r0, double *J, long *evals);

/* Runs tasks 0 .. ntasks - 1 interleaved among the problem's threads (static, 1: each thread
 * meets its tasks in increasing order, so a problem may put the variables whose columns share
 * work first); after a failure the remaining tasks are skipped. Sets t->evaluations and
 * t->status; returns mbs_tangent_worst_status. */
int mbs_tangent_run_tasks(MbsTangent *t, int ntasks, MbsTangentTask task, const double *x,
                          const double *r0, double *J);

#endif
