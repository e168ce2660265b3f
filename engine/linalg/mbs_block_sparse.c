/* Block-sparse matrices and their factorization (mbs_block_sparse.h). Moved from
 * form_ali3p.c (its 12 x 12 body blocks), unchanged but for the block size. */
#include "mbs_block_sparse.h"

#include <amd.h>
#include <cblas.h>
#include <lapacke.h>
#include <stdlib.h>
#include <string.h>

#include "mbs_alloc.h"
#include "mbs_sparse_lu.h"

/* The ordering and block pattern of the Cholesky factor of T's pattern (s->Ap, s->Ai). */
static int block_cholesky_new(MbsBlockSparse *s)
{
    MbsBlockCholesky *c = &s->chol;
    int n = s->n, bs = c->bs = s->bs, nb = c->nb = n / bs, fail = 0;
    size_t nb2 = (size_t)nb * (size_t)nb, bs2 = (size_t)bs * (size_t)bs;
    int *Bp = mbs_calloc((size_t)nb + 1, sizeof(int), &fail);
    int *Bi = mbs_calloc(nb2, sizeof(int), &fail);
    int *perm = mbs_calloc((size_t)nb, sizeof(int), &fail);
    unsigned char *filled = mbs_calloc(nb2, 1, &fail); /* block (i, k) of L, new order */
    c->perm_inv = mbs_calloc((size_t)nb, sizeof(int), &fail);
    c->below_start = mbs_calloc((size_t)nb + 1, sizeof(int), &fail);
    c->off = mbs_calloc(nb2, sizeof(int), &fail);
    c->pos = mbs_calloc((size_t)s->nnz, sizeof(int), &fail);
    c->tmp = mbs_calloc((size_t)n + 1, sizeof(double), &fail);
    if (!fail) {
        /* block graph of T (its columns bs j hold the row blocks of block column j) */
        int nnz = 0;
        for (int j = 0; j < nb; ++j) {
            Bp[j] = nnz;
            for (int k = s->Ap[bs * j]; k < s->Ap[bs * j + 1]; k += bs)
                Bi[nnz++] = s->Ai[k] / bs;
        }
        Bp[nb] = nnz;
        if (amd_order(nb, Bp, Bi, perm, NULL, NULL) < AMD_OK)
            fail = 1;
    }
    int nbelow = 0, nblocks = 0;
    if (!fail) {
        for (int k = 0; k < nb; ++k)
            c->perm_inv[perm[k]] = k;
        for (int j = 0; j < nb; ++j)
            for (int k = Bp[j]; k < Bp[j + 1]; ++k) {
                int a = c->perm_inv[Bi[k]], b = c->perm_inv[j];
                filled[a > b ? a + (size_t)nb * b : b + (size_t)nb * a] = 1;
            }
        /* symbolic elimination: the blocks below k couple pairwise */
        for (int k = 0; k < nb; ++k)
            for (int i = k + 1; i < nb; ++i)
                if (filled[i + (size_t)nb * k]) {
                    ++nbelow;
                    for (int j = k + 1; j <= i; ++j)
                        if (filled[j + (size_t)nb * k])
                            filled[i + (size_t)nb * j] = 1;
                }
        c->below = mbs_calloc((size_t)nbelow, sizeof(int), &fail);
        for (int k = 0; k < nb; ++k)
            for (int i = 0; i < nb; ++i)
                c->off[i + (size_t)nb * k] = i >= k && (i == k || filled[i + (size_t)nb * k])
                                                 ? (int)bs2 * nblocks++
                                                 : -1;
        c->Lx = mbs_calloc(bs2 * (size_t)nblocks, sizeof(double), &fail);
    }
    if (!fail) {
        int t = 0;
        for (int k = 0; k < nb; ++k) {
            c->below_start[k] = t;
            for (int i = k + 1; i < nb; ++i)
                if (c->off[i + (size_t)nb * k] >= 0)
                    c->below[t++] = i;
        }
        c->below_start[nb] = t;
        for (int col = 0; col < n; ++col)
            for (int k = s->Ap[col]; k < s->Ap[col + 1]; ++k) {
                int row = s->Ai[k], a = c->perm_inv[row / bs], b = c->perm_inv[col / bs];
                c->pos[k] = a > b || (a == b && row % bs >= col % bs)
                                ? c->off[a + (size_t)nb * b] + row % bs + bs * (col % bs)
                                : -1;
            }
    }
    free(Bp);
    free(Bi);
    free(perm);
    free(filled);
    return fail;
}

/* L L^T = T (s->Tx), right-looking by blocks; returns the dpotrf info (> 0: not positive
 * definite). */
static int block_cholesky_factor(MbsBlockSparse *s)
{
    MbsBlockCholesky *c = &s->chol;
    int nb = c->nb, bs = c->bs;
    size_t nb_ = (size_t)nb, bs2 = (size_t)bs * (size_t)bs;
    memset(c->Lx, 0, sizeof(double) * (size_t)c->off[nb_ * nb_ - 1] + bs2 * sizeof(double));
    for (int k = 0; k < s->nnz; ++k)
        if (c->pos[k] >= 0)
            c->Lx[c->pos[k]] = s->Tx[k];
    for (int k = 0; k < nb; ++k) {
        double *Lkk = c->Lx + c->off[k + nb_ * k];
        int info = LAPACKE_dpotrf_work(LAPACK_COL_MAJOR, 'L', bs, Lkk, bs);
        if (info != 0)
            return info;
        const int *below = c->below + c->below_start[k];
        int nbelow = c->below_start[k + 1] - c->below_start[k];
        for (int a = 0; a < nbelow; ++a) /* L_ik = T_ik L_kk^-T */
            cblas_dtrsm(CblasColMajor, CblasRight, CblasLower, CblasTrans, CblasNonUnit, bs, bs,
                        1.0, Lkk, bs, c->Lx + c->off[below[a] + nb_ * k], bs);
        for (int b = 0; b < nbelow; ++b) { /* T_ij -= L_ik L_jk^T */
            int j = below[b];
            const double *Ljk = c->Lx + c->off[j + nb_ * k];
            cblas_dsyrk(CblasColMajor, CblasLower, CblasNoTrans, bs, bs, -1.0, Ljk, bs, 1.0,
                        c->Lx + c->off[j + nb_ * j], bs);
            for (int a = b + 1; a < nbelow; ++a) {
                int i = below[a];
                cblas_dgemm(CblasColMajor, CblasNoTrans, CblasTrans, bs, bs, bs, -1.0,
                            c->Lx + c->off[i + nb_ * k], bs, Ljk, bs, 1.0,
                            c->Lx + c->off[i + nb_ * j], bs);
            }
        }
    }
    return 0;
}

/* x = T^-1 x with the block Cholesky factor (c->tmp: the permuted right-hand side). */
static void block_cholesky_solve(const MbsBlockCholesky *c, double *x)
{
    int nb = c->nb, bs = c->bs;
    size_t nb_ = (size_t)nb, row = (size_t)bs * sizeof(double);
    double *tmp = c->tmp;
    for (int b = 0; b < nb; ++b)
        memcpy(tmp + bs * c->perm_inv[b], x + bs * b, row);
    for (int k = 0; k < nb; ++k) {
        cblas_dtrsv(CblasColMajor, CblasLower, CblasNoTrans, CblasNonUnit, bs,
                    c->Lx + c->off[k + nb_ * k], bs, tmp + bs * k, 1);
        for (int a = c->below_start[k]; a < c->below_start[k + 1]; ++a)
            cblas_dgemv(CblasColMajor, CblasNoTrans, bs, bs, -1.0,
                        c->Lx + c->off[c->below[a] + nb_ * k], bs, tmp + bs * k, 1, 1.0,
                        tmp + bs * c->below[a], 1);
    }
    for (int k = nb - 1; k >= 0; --k) {
        for (int a = c->below_start[k]; a < c->below_start[k + 1]; ++a)
            cblas_dgemv(CblasColMajor, CblasTrans, bs, bs, -1.0,
                        c->Lx + c->off[c->below[a] + nb_ * k], bs, tmp + bs * c->below[a], 1,
                        1.0, tmp + bs * k, 1);
        cblas_dtrsv(CblasColMajor, CblasLower, CblasTrans, CblasNonUnit, bs,
                    c->Lx + c->off[k + nb_ * k], bs, tmp + bs * k, 1);
    }
    for (int b = 0; b < nb; ++b)
        memcpy(x + bs * b, tmp + bs * c->perm_inv[b], row);
}

int mbs_block_sparse_init(MbsBlockSparse *s, int nb, int bs, const unsigned char *coupled)
{
    int n = nb * bs;
    *s = (MbsBlockSparse){.bs = bs, .nb = nb, .n = n};
    s->rank = malloc(sizeof(int) * ((size_t)nb * nb + 1));
    s->Ap = malloc(sizeof(int) * ((size_t)n + 1));
    int nnz = 0;
    if (s->rank && s->Ap) {
        for (int j = 0; j < nb; ++j) {
            int r = 0;
            for (int i = 0; i < nb; ++i)
                s->rank[(size_t)i + (size_t)nb * j] =
                    coupled[(size_t)i + (size_t)nb * j] ? r++ : -1;
            for (int c = 0; c < bs; ++c) {
                s->Ap[bs * j + c] = nnz;
                nnz += bs * r;
            }
        }
        s->Ap[n] = nnz;
    }
    s->nnz = nnz;
    s->Ai = malloc(sizeof(int) * ((size_t)nnz + 1));
    s->Tx = calloc((size_t)nnz + 1, sizeof(double));
    if (!s->rank || !s->Ap || !s->Ai || !s->Tx)
        return -1;
    for (int j = 0; j < nb; ++j)
        for (int c = 0; c < bs; ++c) {
            int k = s->Ap[bs * j + c];
            for (int i = 0; i < nb; ++i)
                if (coupled[(size_t)i + (size_t)nb * j])
                    for (int r = 0; r < bs; ++r)
                        s->Ai[k++] = bs * i + r;
        }
    klu_defaults(&s->common);
    s->sym = klu_analyze(n, s->Ap, s->Ai, &s->common);
    if (!s->sym)
        return -2;
    return block_cholesky_new(s) ? -1 : 0;
}

void mbs_block_sparse_free(MbsBlockSparse *s)
{
    for (int k = 0; k < 2; ++k)
        if (s->num[k])
            klu_free_numeric(&s->num[k], &s->common);
    if (s->sym)
        klu_free_symbolic(&s->sym, &s->common);
    free(s->chol.perm_inv);
    free(s->chol.below_start);
    free(s->chol.below);
    free(s->chol.off);
    free(s->chol.pos);
    free(s->chol.Lx);
    free(s->chol.tmp);
    free(s->rank);
    free(s->Ap);
    free(s->Ai);
    free(s->Tx);
}

int mbs_block_sparse_factor(MbsBlockSparse *s, int spd)
{
    /* KLU: factorize once, then refactorize in place with the same pivot order while the
     * reciprocal pivot ratio stays sane (refactor allocates nothing). */
    klu_numeric **num = &s->num[s->cur];
    /* SPD: block Cholesky; KLU when it finds a bad pivot */
    s->chol_valid = spd && block_cholesky_factor(s) == 0;
    if (s->chol_valid) {
        s->block_choleskys += 1.0;
        return 0;
    }
    return mbs_sparse_lu_factor(s->Ap, s->Ai, s->Tx, s->sym, num, &s->common,
                                &s->refactorizations, &s->full_factorizations);
}

void mbs_block_sparse_solve(MbsBlockSparse *s, double *x)
{
    if (s->chol_valid)
        block_cholesky_solve(&s->chol, x);
    else
        klu_solve(s->sym, s->num[s->cur], s->n, 1, x, &s->common);
}
