/* Sparse LU with KLU on a fixed pattern (ali3p's and penalty's leading matrices): the symbolic
 * analysis (ordering) is made once for the pattern; each matrix is then refactorized numerically
 * with the pivot order of its last full factorization while the reciprocal pivot ratio stays
 * sane (refactor allocates nothing), and factorized afresh otherwise. */
#ifndef MBS_SPARSE_LU_H
#define MBS_SPARSE_LU_H

#include <klu.h>

/* Numeric factors of Tx (values of the pattern Ap, Ai analysed in sym) into *num, reusing them
 * when they exist; counts refactorizations and full factorizations. Returns 0, or 1 when the
 * matrix is singular. */
int mbs_sparse_lu_factor(const int *Ap, const int *Ai, double *Tx, klu_symbolic *sym,
                         klu_numeric **num, klu_common *common, double *refactorizations,
                         double *full_factorizations);

#endif
