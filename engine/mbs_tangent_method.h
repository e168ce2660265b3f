/* What a tangent method implements (private to the engine). Adding a method: a file defining
 * an MbsTangentMethodClass, its MbsJacobianMethod value, and its line in the registry, names and
 * labels of mbs_tangent.c. */
#ifndef MBS_TANGENT_METHOD_H
#define MBS_TANGENT_METHOD_H

#include "mbs_tangent.h"

struct MbsTangentMethodClass {
    int needs_base_residual;   /* uses r(x); mbs_tangent_eval provides it when not given */
    /* doubles of workspace each thread needs for the problem */
    size_t (*thread_work)(const MbsTangentProblem *p);
    /* J at x (see mbs_tangent_eval): sets t->evaluations and t->status[thread], returns 0 or
     * the first failing status. */
    int (*eval)(MbsTangent *t, const double *x, const double *r0, double *J);
};

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

/* The worst of the threads' statuses: a fatal one before a recoverable one. */
int mbs_tangent_worst_status(const MbsTangent *t);

#endif
