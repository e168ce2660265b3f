/* Small 3-vector / 3x3 helpers (row-major 3x3) and thin wrappers over LAPACKE for the dense
 * column-major matrices of the formulations. */
#ifndef MBS_LINALG_H
#define MBS_LINALG_H

#include <math.h>
#include <string.h>

static inline double mbs_v3_dot(const double a[3], const double b[3])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}
static inline double mbs_v3_norm(const double a[3]) { return sqrt(mbs_v3_dot(a, a)); }
/* out = a / |a| for a finite a, also when |a|^2 overflows (a = [1e200, 0, 0] would otherwise
 * become zero): then a is first divided by its largest component, as hypot does. Returns |a|
 * (inf when it overflows; 0 when a = 0, out then unset). Finite norms use the plain
 * arithmetic, so ordinary vectors get the same bits as a / mbs_v3_norm(a). */
static inline double mbs_v3_unit(const double a[3], double out[3])
{
    double n = mbs_v3_norm(a);
    if (n == 0.0)
        return 0.0;
    if (isfinite(n)) {
        for (int i = 0; i < 3; ++i)
            out[i] = a[i] / n;
        return n;
    }
    double big = fmax(fabs(a[0]), fmax(fabs(a[1]), fabs(a[2]))), scaled[3];
    for (int i = 0; i < 3; ++i)
        scaled[i] = a[i] / big;
    double ns = mbs_v3_norm(scaled);
    for (int i = 0; i < 3; ++i)
        out[i] = scaled[i] / ns;
    return big * ns;
}
static inline void mbs_v3_sub(const double a[3], const double b[3], double out[3])
{
    out[0] = a[0] - b[0];
    out[1] = a[1] - b[1];
    out[2] = a[2] - b[2];
}
static inline void mbs_v3_add(const double a[3], const double b[3], double out[3])
{
    out[0] = a[0] + b[0];
    out[1] = a[1] + b[1];
    out[2] = a[2] + b[2];
}
static inline void mbs_v3_axpy(double s, const double x[3], double y[3])
{
    y[0] += s * x[0];
    y[1] += s * x[1];
    y[2] += s * x[2];
}
/* out = a x b; out may not alias a or b. */
static inline void mbs_v3_cross(const double a[3], const double b[3], double out[3])
{
    out[0] = a[1] * b[2] - a[2] * b[1];
    out[1] = a[2] * b[0] - a[0] * b[2];
    out[2] = a[0] * b[1] - a[1] * b[0];
}
/* out = R x (R row-major 3x3); out may not alias x. */
static inline void mbs_m3_mulv(const double R[9], const double x[3], double out[3])
{
    out[0] = R[0] * x[0] + R[1] * x[1] + R[2] * x[2];
    out[1] = R[3] * x[0] + R[4] * x[1] + R[5] * x[2];
    out[2] = R[6] * x[0] + R[7] * x[1] + R[8] * x[2];
}
/* out = A B; out may not alias A or B. */
static inline void mbs_m3_mul(const double A[9], const double B[9], double out[9])
{
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
            out[3 * i + j] = A[3 * i] * B[j] + A[3 * i + 1] * B[3 + j] + A[3 * i + 2] * B[6 + j];
}
static inline void mbs_m3_identity(double R[9])
{
    memset(R, 0, 9 * sizeof *R);
    R[0] = R[4] = R[8] = 1.0;
}
/* Rotation by angle about unit axis u (Rodrigues; defined with the kinematics kernel,
 * mbs_kinematics_kernel.h, which differentiates it). */
void mbs_m3_rotation(const double u[3], double angle, double R[9]);
/* Two unit vectors completing u to a right-handed orthonormal basis (u, w1, w2). */
void mbs_v3_basis(const double u[3], double w1[3], double w2[3]);

/* --- dense column-major algebra ------------------------------------------------------- */
/* The dense matrices here are small (n < 1000): OpenBLAS threads cost more than they give
 * (measured: LU of 225 x 225, 9x slower with 2 threads), so the engine runs BLAS on one thread
 * and parallelises at a coarser grain itself. Idempotent. */
void mbs_linalg_single_threaded(void);
/* LU factorization in place; returns 0 or the LAPACK info (> 0: singular). */
int mbs_lu_factor(int n, double *A, int *ipiv);
/* Solve with the factors from mbs_lu_factor for nrhs right-hand sides stored in b (n x nrhs). */
void mbs_lu_solve(int n, const double *LU, const int *ipiv, double *b, int nrhs);
/* The same with A^T when transposed, b's columns ldb apart. */
void mbs_lu_solve_ld(int n, const double *LU, const int *ipiv, int transposed, double *b,
                     int ldb, int nrhs);
/* C(m x n) = alpha A^T B + beta C for A (k x m), B (k x n); plain column-major. */
void mbs_gemm_tn(int m, int n, int k, double alpha, const double *A, const double *B,
                 double beta, double *C);
/* C(m x n) = alpha op(A) B + beta C, column-major with leading dimensions, op(A) = A (m x k)
 * or, with transa, A^T (A k x m); beta 0 ignores C's contents (as BLAS). y = alpha op(A) x +
 * beta y for A (m x n), op(A) x of length m (n with transa). Products of the small blocks of
 * most models (up to MBS_SMALL_PRODUCT multiply-adds) by plain loops: OpenBLAS spends about a
 * thousand instructions per call on checks and a lock, more than a 4 x 4 product costs
 * (callgrind, five-bar: 23 M of matrix-r direct's 268 M were BLAS calls); larger ones by BLAS. */
#define MBS_SMALL_PRODUCT 4096
void mbs_gemm(int transa, int m, int n, int k, double alpha, const double *A, int lda,
              const double *B, int ldb, double beta, double *C, int ldc);
void mbs_gemv(int transa, int m, int n, double alpha, const double *A, int lda, const double *x,
              double beta, double *y);
double mbs_vec_norm2(int n, const double *x);
double mbs_vec_norminf(int n, const double *x);

/* Minimum-norm least-squares solver (LAPACK dgelsd) with workspace allocated once. */
typedef struct MbsLeastSquares MbsLeastSquares;
MbsLeastSquares *mbs_lsq_new(int max_rows, int max_cols);
void mbs_lsq_free(MbsLeastSquares *ls);
/* Solve min ||A x - b|| with minimum ||x|| for A (m x n, column-major, overwritten);
 * b has max(m, n) entries and returns x in its first n. Returns the numerical rank (or -1). */
int mbs_lsq_solve(MbsLeastSquares *ls, int m, int n, double *A, double *b, double rcond);

#endif
