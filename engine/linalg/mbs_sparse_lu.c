#include "mbs_sparse_lu.h"

int mbs_sparse_lu_factor(const int *Ap, const int *Ai, double *Tx, klu_symbolic *sym,
                         klu_numeric **num, klu_common *common, double *refactorizations,
                         double *full_factorizations)
{
    if (*num) {
        if (klu_refactor((int *)Ap, (int *)Ai, Tx, sym, *num, common) &&
            klu_rcond(sym, *num, common) && common->rcond > 1e-13) {
            *refactorizations += 1.0;
            return 0;
        }
        klu_free_numeric(num, common);
    }
    *full_factorizations += 1.0;
    *num = klu_factor((int *)Ap, (int *)Ai, Tx, sym, common);
    return *num && common->status == KLU_OK ? 0 : 1;
}
