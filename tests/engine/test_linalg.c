/* The engine's small dense solves (mbs_linalg.h): mbs_lu_solve_ld's written-out substitutions,
 * with A and with A^T, columns of b ldb apart, against the residual and against LAPACK's dgetrs
 * (which it calls above SMALL_LU). */
#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mbs_linalg.h"
#include "tap.h"

/* A deterministic matrix whose LU needs row interchanges (small diagonal). */
static void matrix(int n, double *A)
{
    unsigned s = 12345u;
    for (int i = 0; i < n * n; ++i) {
        s = s * 1103515245u + 12345u;
        A[i] = (double)(s >> 8) / (double)(1u << 24) - 0.5;
    }
    for (int i = 0; i < n; ++i)
        A[i + n * i] *= 1e-3;
}

static void check(int n, int transposed)
{
    enum { NRHS = 3, EXTRA = 2 };
    int ld = n + EXTRA;
    double *A = malloc(sizeof(double) * n * n), *LU = malloc(sizeof(double) * n * n);
    double *b = malloc(sizeof(double) * ld * NRHS), *x = malloc(sizeof(double) * ld * NRHS);
    double *y = malloc(sizeof(double) * ld * NRHS);
    int *ipiv = malloc(sizeof(int) * n);
    matrix(n, A);
    memcpy(LU, A, sizeof(double) * n * n);
    int info = mbs_lu_factor(n, LU, ipiv);
    int swaps = 0;
    for (int i = 0; i < n; ++i)
        swaps += ipiv[i] != i + 1;
    for (int i = 0; i < ld * NRHS; ++i)
        b[i] = sin(1.0 + i);
    memcpy(x, b, sizeof(double) * ld * NRHS);
    memcpy(y, b, sizeof(double) * ld * NRHS);
    mbs_lu_solve_ld(n, LU, ipiv, transposed, x, ld, NRHS);
    LAPACKE_dgetrs_work(LAPACK_COL_MAJOR, transposed ? 'T' : 'N', n, NRHS, LU, n, ipiv, y, ld);
    double residual = 0.0, lapack = 0.0, untouched = 0.0;
    for (int c = 0; c < NRHS; ++c) {
        for (int i = 0; i < n; ++i) {
            double v = -b[i + ld * c];
            for (int j = 0; j < n; ++j)
                v += (transposed ? A[j + n * i] : A[i + n * j]) * x[j + ld * c];
            residual = fmax(residual, fabs(v));
            lapack = fmax(lapack, fabs(x[i + ld * c] - y[i + ld * c]) /
                                      fmax(1.0, fabs(y[i + ld * c])));
        }
        for (int i = n; i < ld; ++i) /* the rows between columns are not b's */
            untouched = fmax(untouched, fabs(x[i + ld * c] - b[i + ld * c]));
    }
    tap_ok(info == 0 && (swaps > 0 || n == 1), "%d x %d: LU with %d interchanges", n, n, swaps);
    tap_ok(residual < 1e-12 && lapack < 1e-13 && untouched == 0.0,
           "%d x %d, %s, 3 right-hand sides %d apart: |A x - b| %.2g, = dgetrs to %.2g, the "
           "rows between left alone", n, n, transposed ? "A^T" : "A", ld, residual, lapack);
    free(A);
    free(LU);
    free(b);
    free(x);
    free(y);
    free(ipiv);
}

int main(void)
{
    static const int sizes[] = {1, 2, 5, 16, 24}; /* 24: LAPACK's path */
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; ++i)
        for (int t = 0; t < 2; ++t)
            check(sizes[i], t);
    return tap_done();
}
