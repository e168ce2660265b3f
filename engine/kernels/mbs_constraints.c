#include "mbs_constraints.h"

#include <stdlib.h>
#include <string.h>

#include "mbs_linalg.h"
#include "mbs_topology.h"

/* The double instance of the constraints kernel (the dual one is in mbs_dual.c). */
#define MBS_S double
#define MBS_K(name) name
#define MBS_KIN MbsKinematics
#define MBS_S_ZERO 0.0
#define MBS_S_ONE 1.0
static const double zero6[6] = {0, 0, 0, 0, 0, 0};
static const double identity3[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
#include "mbs_constraints_kernel.h"

void mbs_constraints_eval_pattern(const MbsModel *m, const MbsKinematics *k, double t,
                                  const double *z, double *phi, double *phiz, double *phit)
{
    constraints_eval_impl(m, k, t, z, phi, phiz, phit, 1);
}

void mbs_constraints_add_gram(const MbsModel *m, const double *phiz, double alpha, double *A)
{
    const MbsTopology *tp = m->topo;
    size_t n = (size_t)tp->nnodes, nr = (size_t)tp->nrows;
    for (size_t i = 0; i < nr; ++i) {
        const int *cols = &tp->row_cols[tp->row_ptr[i]];
        int nc = tp->row_ptr[i + 1] - tp->row_ptr[i];
        for (int a = 0; a < nc; ++a) {
            double va = alpha * phiz[i + nr * (size_t)cols[a]];
            if (va == 0.0)
                continue;
            for (int b = 0; b < nc; ++b)
                A[(size_t)cols[b] + n * (size_t)cols[a]] += va * phiz[i + nr * (size_t)cols[b]];
        }
    }
}

int mbs_constraints_rank(const MbsModel *m, double t, const double *z)
{
    const double rank_rcond = 1e-9; /* relative to the largest singular value */
    int nr = mbs_model_nconstraints(m), n = mbs_model_ncoords(m);
    if (nr == 0 || n == 0)
        return 0;
    MbsKinematics k;
    if (mbs_kinematics_init(&k, m))
        return -1;
    double *drawn = z ? NULL : calloc((size_t)n, sizeof *drawn);
    double *phiz = malloc(sizeof(double) * (size_t)nr * (size_t)n);
    double *rhs = calloc((size_t)(nr > n ? nr : n), sizeof *rhs);
    MbsLeastSquares *ls = mbs_lsq_new(nr, n);
    int rank = -1;
    const double *at = z ? z : drawn;
    if (at && phiz && rhs && ls) {
        mbs_kinematics_positions(m, &k, at);
        mbs_constraints_eval(m, &k, t, at, NULL, phiz, NULL);
        rank = mbs_lsq_solve(ls, nr, n, phiz, rhs, rank_rcond);
    }
    mbs_lsq_free(ls);
    free(rhs);
    free(phiz);
    free(drawn);
    mbs_kinematics_free(&k);
    return rank;
}
