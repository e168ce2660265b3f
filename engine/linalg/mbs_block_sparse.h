/* Sparse matrices with a fixed pattern of bs x bs blocks (ali3p's tangent and projection
 * matrices: 12 natural coordinates per moving body) and their factorization: a symmetric
 * positive definite one by a block Cholesky L L^T = P T P^T (dense blocks in BLAS, ordering by
 * AMD on the block graph; on the 7x15 lattice 7x faster than KLU's refactorization, 1.0 vs
 * 7.3 ms: its flops are half of LU's and run on whole blocks, docs/benchmarks.md), any other by
 * KLU (analysed at init, refactorized in place afterwards: mbs_sparse_lu.h). The pattern, its
 * KLU analysis, the Cholesky ordering and the pattern of L are made at init; factor and solve
 * allocate nothing but in KLU's fallbacks (a full factorization after a bad pivot). */
#ifndef MBS_BLOCK_SPARSE_H
#define MBS_BLOCK_SPARSE_H

#include <klu.h>

/* The block Cholesky factor's ordering and pattern. */
typedef struct {
    int nb, bs;       /* blocks, block size */
    int *perm_inv;    /* block b of T is block perm_inv[b] of L */
    int *below_start; /* below_start[k] .. below_start[k + 1]: the blocks i > k of column k */
    int *below;
    int *off;         /* nb x nb: offset in Lx of block (i, k), i >= k, -1: none */
    int *pos;         /* per entry of T's pattern: its place in Lx, -1: upper triangle */
    double *Lx;
    double *tmp;      /* n: the permuted right-hand side */
} MbsBlockCholesky;

/* T in compressed columns, every block present whole (within a column the row blocks are
 * sorted), with two numeric slots for KLU (cur: the one factor and solve use). */
typedef struct {
    int bs, nb, n, nnz;
    int *rank;    /* nb x nb: rank of row block i in the list of column block j, -1: none */
    int *Ap, *Ai; /* CSC pattern */
    double *Tx;   /* values */
    klu_common common;
    klu_symbolic *sym;
    klu_numeric *num[2];
    int cur;
    /* since init or the last reset: numeric-only refactorizations on the symbolic analysis of
     * init, full (pivoting, allocating) factorizations (the first of each slot and the fallbacks
     * after a bad pivot), block Cholesky factorizations */
    double refactorizations, full_factorizations, block_choleskys;
    MbsBlockCholesky chol;
    int chol_valid; /* the last factorization is chol's (else KLU's num[cur]) */
} MbsBlockSparse;

/* The pattern of nb x nb blocks of size bs where coupled[i + nb j] (symmetric, the diagonal
 * set), its KLU analysis and the Cholesky ordering. 0; -1 out of memory; -2 KLU could not
 * analyse it (s->common.status says why). mbs_block_sparse_free releases it also on failure. */
int mbs_block_sparse_init(MbsBlockSparse *s, int nb, int bs, const unsigned char *coupled);
void mbs_block_sparse_free(MbsBlockSparse *s);

/* Position of entry (row, col) in Tx, -1 when outside the pattern. */
static inline int mbs_block_sparse_pos(const MbsBlockSparse *s, int row, int col)
{
    int bs = s->bs;
    int rk = s->rank[(size_t)(row / bs) + (size_t)s->nb * (size_t)(col / bs)];
    return rk < 0 ? -1 : s->Ap[col] + bs * rk + row % bs;
}

/* Factorize Tx: by the block Cholesky when spd (KLU when it finds a non-positive pivot), else
 * by KLU in slot cur. 0, or non-zero when the matrix is singular. */
int mbs_block_sparse_factor(MbsBlockSparse *s, int spd);
/* x := T^-1 x with the last factorization. */
void mbs_block_sparse_solve(MbsBlockSparse *s, double *x);

#endif
