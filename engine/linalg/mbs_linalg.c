#include "mbs_linalg.h"

#include <cblas.h>
#include <lapacke.h>
#include <stdlib.h>

void mbs_linalg_single_threaded(void)
{
    openblas_set_num_threads(1);
}

void mbs_v3_basis(const double u[3], double w1[3], double w2[3])
{
    /* Cross with the global axis least aligned with u. */
    double e[3] = {0, 0, 0};
    int k = 0;
    for (int i = 1; i < 3; ++i)
        if (fabs(u[i]) < fabs(u[k]))
            k = i;
    e[k] = 1.0;
    mbs_v3_cross(u, e, w1);
    double n = mbs_v3_norm(w1);
    for (int i = 0; i < 3; ++i)
        w1[i] /= n;
    mbs_v3_cross(u, w1, w2);
}

int mbs_lu_factor(int n, double *A, int *ipiv)
{
    return LAPACKE_dgetrf_work(LAPACK_COL_MAJOR, n, n, A, n, ipiv);
}

/* Up to this order the substitutions are written out here: LAPACK's dgetrs (OpenBLAS) spends
 * about 1000 instructions per call on checks and a lock, more than a 16 x 16 solve itself, and
 * matrix-r solves with its small dependent block several times per evaluation. */
#define SMALL_LU 16

void mbs_lu_solve(int n, const double *LU, const int *ipiv, double *b, int nrhs)
{
    mbs_lu_solve_ld(n, LU, ipiv, 0, b, n, nrhs);
}

void mbs_lu_solve_ld(int n, const double *LU, const int *ipiv, int transposed, double *b,
                     int ldb, int nrhs)
{
    if (n > SMALL_LU) {
        LAPACKE_dgetrs_work(LAPACK_COL_MAJOR, transposed ? 'T' : 'N', n, nrhs, LU, n, ipiv, b,
                            ldb);
        return;
    }
    for (int c = 0; c < nrhs; ++c) {
        double *x = b + (size_t)ldb * c;
        if (transposed) { /* A^T = U^T L^T P^T: U^T y = b, L^T w = y, x = P w */
            for (int j = 0; j < n; ++j) {
                for (int i = 0; i < j; ++i)
                    x[j] -= LU[i + (size_t)n * j] * x[i];
                x[j] /= LU[j + (size_t)n * j];
            }
            for (int j = n - 1; j >= 0; --j)
                for (int i = j + 1; i < n; ++i)
                    x[j] -= LU[i + (size_t)n * j] * x[i];
            for (int i = n - 1; i >= 0; --i) { /* the interchanges in reverse order */
                int p = ipiv[i] - 1;
                if (p != i) {
                    double t = x[i];
                    x[i] = x[p];
                    x[p] = t;
                }
            }
            continue;
        }
        for (int i = 0; i < n; ++i) { /* P b: LAPACK's interchanges, in order */
            int p = ipiv[i] - 1;
            if (p != i) {
                double t = x[i];
                x[i] = x[p];
                x[p] = t;
            }
        }
        for (int j = 0; j < n; ++j) /* L (unit diagonal) */
            for (int i = j + 1; i < n; ++i)
                x[i] -= LU[i + (size_t)n * j] * x[j];
        for (int j = n - 1; j >= 0; --j) { /* U */
            x[j] /= LU[j + (size_t)n * j];
            for (int i = 0; i < j; ++i)
                x[i] -= LU[i + (size_t)n * j] * x[j];
        }
    }
}

void mbs_gemm_tn(int m, int n, int k, double alpha, const double *A, const double *B,
                 double beta, double *C)
{
    mbs_gemm(1, m, n, k, alpha, A, k, B, k, beta, C, m);
}

void mbs_gemm(int transa, int m, int n, int k, double alpha, const double *A, int lda,
              const double *B, int ldb, double beta, double *C, int ldc)
{
    if (m <= 0 || n <= 0)
        return;
    if ((double)m * n * k > MBS_SMALL_PRODUCT) {
        cblas_dgemm(CblasColMajor, transa ? CblasTrans : CblasNoTrans, CblasNoTrans, m, n, k,
                    alpha, A, lda, B, ldb, beta, C, ldc);
        return;
    }
    for (int j = 0; j < n; ++j) {
        double *c = C + (size_t)ldc * j;
        const double *b = B + (size_t)ldb * j;
        for (int i = 0; i < m; ++i)
            c[i] = beta == 0.0 ? 0.0 : beta * c[i];
        if (transa) { /* c_i += alpha a_i . b, a_i column i of A */
            for (int i = 0; i < m; ++i) {
                const double *a = A + (size_t)lda * i;
                double sum = 0.0;
                for (int l = 0; l < k; ++l)
                    sum += a[l] * b[l];
                c[i] += alpha * sum;
            }
        } else {
            for (int l = 0; l < k; ++l) {
                const double *a = A + (size_t)lda * l;
                double t = alpha * b[l];
                for (int i = 0; i < m; ++i)
                    c[i] += a[i] * t;
            }
        }
    }
}

void mbs_gemv(int transa, int m, int n, double alpha, const double *A, int lda, const double *x,
              double beta, double *y)
{
    if ((double)m * n > MBS_SMALL_PRODUCT) {
        cblas_dgemv(CblasColMajor, transa ? CblasTrans : CblasNoTrans, m, n, alpha, A, lda, x, 1,
                    beta, y, 1);
        return;
    }
    /* y = alpha op(A) x + beta y: op(A) is m x n, or n x m with transa */
    mbs_gemm(transa, transa ? n : m, 1, transa ? m : n, alpha, A, lda, x, transa ? m : n, beta,
             y, transa ? n : m);
}

double mbs_vec_norm2(int n, const double *x)
{
    double s = 0.0;
    for (int i = 0; i < n; ++i)
        s += x[i] * x[i];
    return sqrt(s);
}

double mbs_vec_norminf(int n, const double *x)
{
    double s = 0.0;
    for (int i = 0; i < n; ++i)
        if (fabs(x[i]) > s || x[i] != x[i])
            s = x[i] != x[i] ? INFINITY : fabs(x[i]);
    return s;
}

struct MbsLeastSquares {
    int max_rows, max_cols;
    double *s, *work;
    lapack_int *iwork;
    lapack_int lwork;
};

MbsLeastSquares *mbs_lsq_new(int max_rows, int max_cols)
{
    MbsLeastSquares *ls = calloc(1, sizeof *ls);
    if (!ls)
        return NULL;
    int mn = max_rows < max_cols ? max_rows : max_cols;
    int mx = max_rows > max_cols ? max_rows : max_cols;
    if (mn < 1)
        mn = 1;
    if (mx < 1)
        mx = 1;
    ls->max_rows = max_rows;
    ls->max_cols = max_cols;
    /* Workspace query on the largest problem. */
    double wq = 0.0, dummyA = 0.0, dummyB = 0.0, dummyS = 0.0;
    lapack_int iwq = 0, rank = 0;
    LAPACKE_dgelsd_work(LAPACK_COL_MAJOR, max_rows, max_cols, 1, &dummyA, max_rows > 0 ? max_rows : 1,
                        &dummyB, mx, &dummyS, -1.0, &rank, &wq, -1, &iwq);
    ls->lwork = (lapack_int)wq + 1;
    ls->s = malloc(sizeof(double) * (size_t)mn);
    ls->work = malloc(sizeof(double) * (size_t)ls->lwork);
    ls->iwork = malloc(sizeof(lapack_int) * (size_t)(iwq > 1 ? iwq : 1) * 2 + 64 * mn);
    if (!ls->s || !ls->work || !ls->iwork) {
        mbs_lsq_free(ls);
        return NULL;
    }
    return ls;
}

void mbs_lsq_free(MbsLeastSquares *ls)
{
    if (!ls)
        return;
    free(ls->s);
    free(ls->work);
    free(ls->iwork);
    free(ls);
}

int mbs_lsq_solve(MbsLeastSquares *ls, int m, int n, double *A, double *b, double rcond)
{
    if (m > ls->max_rows || n > ls->max_cols)
        return -1;
    if (m == 0 || n == 0) {
        for (int i = 0; i < n; ++i)
            b[i] = 0.0;
        return 0;
    }
    lapack_int rank = 0;
    int ldb = m > n ? m : n;
    lapack_int info = LAPACKE_dgelsd_work(LAPACK_COL_MAJOR, m, n, 1, A, m, b, ldb, ls->s, rcond,
                                          &rank, ls->work, ls->lwork, ls->iwork);
    return info == 0 ? (int)rank : -1;
}
