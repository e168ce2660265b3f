/* matrix-r's coordinate partition and its dependent block (see form_matrix_r.c for the
 * formulation): the rank-revealing choice of dependent coordinates and rows (paper 003 eqs
 * 31-33), the block's LU (dense or KLU) and condition estimate (near singular positions:
 * form_matrix_r_damped.c). Split from form_matrix_r.c; the functions shared with it are
 * declared in form_matrix_r_private.h. */
#include <cblas.h>
#include <float.h>
#include <klu.h>
#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "form_matrix_r_private.h"
#include "mbs_constraints.h"
#include "mbs_linalg.h"
#include "mbs_topology.h"

static int pivoted_qr_rank(MatrixR *R, int ncols, double rank_tol)
{
    int nr = R->nr, rank = 0;
    memset(R->jpvt, 0, sizeof(int) * (size_t)ncols);
    LAPACKE_dgeqp3_work(LAPACK_COL_MAJOR, nr, ncols, R->qr, nr, R->jpvt, R->tau, R->qrwork,
                        R->lqrwork);
    int kmax = nr < ncols ? nr : ncols;
    double r11 = fabs(R->qr[0]);
    for (int k = 0; k < kmax; ++k)
        if (r11 > 0 && fabs(R->qr[k + (size_t)nr * k]) > rank_tol * r11)
            rank++;
    return rank;
}

/* R->rows (sorted) and R->rowidx: the r rows of Phi_z a pivoted QR of R->qr (m x nr, the rows
 * of Phi_z as its columns) picks first. */
static void independent_rows(MatrixR *R, int m, int r)
{
    memset(R->jpvt, 0, sizeof(int) * (size_t)R->nr);
    LAPACKE_dgeqp3_work(LAPACK_COL_MAJOR, m, R->nr, R->qr, m, R->jpvt, R->tau, R->qrwork,
                        R->lqrwork);
    for (int k = 0; k < r; ++k)
        R->rows[k] = R->jpvt[k] - 1;
    mr_sort_ints(R->rows, r);
    for (int k = 0; k < r; ++k)
        R->rowidx[R->rows[k]] = k;
}


/* First partition with user DOFs of which at least one is a natural coordinate: keep r
 * independent rows of Phi_z (pivoted QR of Phi_z^T); Theta = [Phi_z[rows]; B] is n x n. */
static int partition_general(MbsFormulation *f, MatrixR *R, MbsError *err)
{
    const MbsModel *m = f->model;
    int n = R->n, nr = R->nr, d = R->dofs.count;
    const double rank_tol = 1e-9 * (double)(n > nr ? n : nr);
    int r = 0;
    if (nr > 0) {
        memcpy(R->qr, R->phiz, sizeof(double) * (size_t)nr * n);
        r = pivoted_qr_rank(R, n, rank_tol);
        for (int k = 0; k < r; ++k)
            R->dep[k] = R->jpvt[k] - 1;
        mr_sort_ints(R->dep, r);
    }
    if (n - r != d)
        return mbs_error_set(err, MBS_FATAL,
                             "matrix-r: the model has %d degrees of freedom but %d were given",
                             n - r, d);
    for (int i = 0; i < nr; ++i)
        R->rowidx[i] = -1;
    if (r > 0) {
        for (int i = 0; i < nr; ++i)
            for (int j = 0; j < n; ++j)
                R->qr[j + (size_t)n * i] = R->phiz[i + (size_t)nr * j];
        independent_rows(R, n, r);
    }
    R->r = r;
    R->d = d;
    for (int k = 0; k < n; ++k)
        R->depidx[k] = -1;
    for (int k = 0; k < d; ++k)
        R->ind[k] = R->dofnode[k];
    R->partitions++;
    R->last_partition_time = f->time;
    int len = snprintf(R->event, sizeof R->event,
                       "t = %.6g s: user degrees of freedom with natural coordinates (", f->time);
    static const char axes[] = "xyz";
    for (int k = 0; k < d && len > 0 && len < (int)sizeof R->event - 2 * MBS_NAME_MAX; ++k) {
        if (R->dofnode[k] >= 0)
            len += snprintf(R->event + len, sizeof R->event - (size_t)len, "%s%s[%d]",
                            k ? ", " : "", m->joints[R->dofs.items[k].joint].name,
                            R->dofs.items[k].coordinate);
        else
            len += snprintf(R->event + len, sizeof R->event - (size_t)len, "%s%s.%c",
                            k ? ", " : "", mr_dof_point(f, k)->name,
                            axes[R->dofs.items[k].axis]);
    }
    if (len > 0 && len < (int)sizeof R->event - 2)
        snprintf(R->event + len, sizeof R->event - (size_t)len, ")");
    return 0;
}

/* CSC pattern of the dependent block A = Phi_z[rows, dep] (Ap, Ai) from the structural
 * sparsity of Phi_z, rows in increasing order in every column. */
void mr_block_pattern(const MbsTopology *t, MatrixR *R)
{
    int nr = R->nr, r = R->r;
    memset(R->Ap, 0, sizeof(int) * (size_t)(r + 1));
    for (int i = 0; i < nr; ++i) {
        if (R->rowidx[i] < 0)
            continue;
        for (int p = t->row_ptr[i]; p < t->row_ptr[i + 1]; ++p) {
            int c = R->depidx[t->row_cols[p]];
            if (c >= 0)
                R->Ap[c + 1]++;
        }
    }
    for (int c = 0; c < r; ++c)
        R->Ap[c + 1] += R->Ap[c];
    int *cursor = R->jpvt; /* scratch, max(n, nr) >= r entries */
    for (int c = 0; c < r; ++c)
        cursor[c] = R->Ap[c];
    for (int rr = 0; rr < r; ++rr) {
        int i = R->rows[rr];
        for (int p = t->row_ptr[i]; p < t->row_ptr[i + 1]; ++p) {
            int c = R->depidx[t->row_cols[p]];
            if (c >= 0)
                R->Ai[cursor[c]++] = rr;
        }
    }
}

/* A's pattern and its KLU analysis (allocates: only when the partition changes). */
int mr_sparse_pattern(MbsFormulation *f, MatrixR *R, MbsError *err)
{
    int r = R->r;
    mr_block_pattern(f->model->topo, R);
    mr_free_klu(R);
    R->Sym = klu_analyze(r, R->Ap, R->Ai, &R->common);
    if (!R->Sym)
        return mbs_error_set(err, MBS_FATAL,
                             "matrix-r: KLU could not analyse the dependent block (%d x %d,"
                             " status %d)",
                             r, r, R->common.status);
    return 0;
}

/* Choose dependent/independent coordinates and the kept rows from the current Phi_z.
 * Allocation-free in the dense path; the sparse path re-analyses the pattern (KLU allocates,
 * which happens only when the partition changes). */
int mr_partition(MbsFormulation *f, MatrixR *R, MbsError *err)
{
    const MbsModel *m = f->model;
    const MbsTopology *t = m->topo;
    int n = R->n, nr = R->nr;
    const double rank_tol = 1e-9 * (double)(n > nr ? n : nr);
    int r = 0;
    int user = R->dofs.count > 0 && R->partitions == 0;
    if (user && R->general)
        return partition_general(f, R, err);
    int *cand = R->ind; /* reused as scratch for the candidate columns */
    int ncand = 0;

    if (user) {
        /* user-chosen independent coordinates (paper 001 sec 2.2.2: constant B) */
        for (int k = 0; k < n; ++k)
            R->depidx[k] = 0;
        for (int i = 0; i < R->dofs.count; ++i) {
            int node = mr_find_node(t, R->dofs.items[i].joint, R->dofs.items[i].coordinate);
            if (node < 0)
                return mbs_error_set(err, MBS_FATAL,
                                     "matrix-r: degree of freedom %d (joint '%s', coordinate %d)"
                                     " is not a relative coordinate of the spanning tree",
                                     i + 1,
                                     R->dofs.items[i].joint >= 0 &&
                                             R->dofs.items[i].joint < m->njoints
                                         ? m->joints[R->dofs.items[i].joint].name
                                         : "?",
                                     R->dofs.items[i].coordinate);
            R->depidx[node] = -1;
        }
        for (int k = 0; k < n; ++k)
            if (R->depidx[k] == 0)
                cand[ncand++] = k;
    } else {
        for (int k = 0; k < n; ++k)
            cand[ncand++] = k;
    }

    if (nr > 0 && ncand > 0) {
        /* rank of the whole Phi_z (needed to validate a user choice) and pivoted QR of the
         * candidate columns */
        int rank_all = -1;
        if (user) {
            memcpy(R->qr, R->phiz, sizeof(double) * (size_t)nr * n);
            rank_all = pivoted_qr_rank(R, n, rank_tol);
        }
        for (int j = 0; j < ncand; ++j)
            memcpy(R->qr + (size_t)nr * j, R->phiz + (size_t)nr * cand[j],
                   sizeof(double) * (size_t)nr);
        r = pivoted_qr_rank(R, ncand, rank_tol);
        if (user && n - rank_all != R->dofs.count)
            return mbs_error_set(err, MBS_FATAL,
                                 "matrix-r: the model has %d degrees of freedom but %d were "
                                 "given",
                                 n - rank_all, R->dofs.count);
        if (user && r != rank_all)
            return mbs_error_set(err, MBS_FATAL,
                                 "matrix-r: the chosen degrees of freedom are not independent "
                                 "(the remaining coordinates can satisfy only %d of the %d "
                                 "independent constraints)",
                                 r, rank_all);
        for (int k = 0; k < r; ++k)
            R->dep[k] = cand[R->jpvt[k] - 1];
    }
    mr_sort_ints(R->dep, r);
    for (int k = 0; k < n; ++k)
        R->depidx[k] = -1;
    for (int k = 0; k < r; ++k)
        R->depidx[R->dep[k]] = k;
    int d = 0;
    for (int k = 0; k < n; ++k)
        if (R->depidx[k] < 0)
            R->ind[d++] = k;
    R->r = r;
    R->d = d;

    /* independent rows: pivoted QR of Phi_z[:, dep]^T (r x nr) */
    for (int i = 0; i < nr; ++i)
        R->rowidx[i] = -1;
    if (r > 0) {
        for (int i = 0; i < r; ++i)
            for (int k = 0; k < nr; ++k)
                R->qr[i + (size_t)r * k] = R->phiz[k + (size_t)nr * R->dep[i]];
        independent_rows(R, r, r);
    }

    int status;
    if (R->sparse && r > 0 && (status = mr_sparse_pattern(f, R, err)))
        return status;

    R->kpattern = 0;
    R->partitions++;
    R->last_partition_time = f->time;
    int len = snprintf(R->event, sizeof R->event,
                       "t = %.6g s: %s partition, %d independent coordinate%s (", f->time,
                       R->partitions == 1 ? (user ? "user" : "initial") : "new", d,
                       d == 1 ? "" : "s");
    for (int k = 0; k < d && len > 0 && len < (int)sizeof R->event - 24; ++k) {
        const MbsNode *nd = &t->nodes[R->ind[k]];
        len += snprintf(R->event + len, sizeof R->event - (size_t)len, "%s%s[%d]",
                        k ? ", " : "", m->joints[nd->joint].name, nd->joint_coord);
    }
    if (len > 0 && len < (int)sizeof R->event - 2)
        snprintf(R->event + len, sizeof R->event - (size_t)len, ")");
    return 0;
}

/* Factorize A = Phi_z[rows, dep] (or Theta) from R->phiz; R->rcond = 0 when singular, -1 (not
 * estimated yet) otherwise: mr_estimate_rcond() estimates it from the factors. */
void mr_factor_block(MatrixR *R)
{
    int r = R->r, nr = R->nr, n = R->n;
    if (R->general) { /* Theta = [Phi_z[rows]; B] */
        for (int j = 0; j < n; ++j)
            for (int i = 0; i < r; ++i)
                R->A[i + (size_t)n * j] = R->phiz[R->rows[i] + (size_t)nr * j];
        for (int k = 0; k < R->d; ++k)
            mr_dof_row(R->f, R, k, R->A + r + k, (size_t)n);
        r = n;
    }
    if (r == 0) {
        R->rcond = 1.0;
        return;
    }
    R->block_factorizations++;
    if (!R->sparse || R->general) {
        if (!R->general)
            for (int j = 0; j < r; ++j)
                for (int i = 0; i < r; ++i)
                    R->A[i + (size_t)r * j] = R->phiz[R->rows[i] + (size_t)nr * R->dep[j]];
        R->anorm = LAPACKE_dlange_work(LAPACK_COL_MAJOR, '1', r, r, R->A, r, NULL);
        R->rcond = LAPACKE_dgetrf_work(LAPACK_COL_MAJOR, r, r, R->A, r, R->ipiv) != 0 ? 0.0 : -1.0;
        return;
    }
    for (int c = 0; c < r; ++c)
        for (int p = R->Ap[c]; p < R->Ap[c + 1]; ++p)
            R->Ax[p] = R->phiz[R->rows[R->Ai[p]] + (size_t)nr * R->dep[c]];
    int ok;
    if (!R->Num) {
        R->Num = klu_factor(R->Ap, R->Ai, R->Ax, R->Sym, &R->common);
        ok = R->Num != NULL;
    } else {
        ok = klu_refactor(R->Ap, R->Ai, R->Ax, R->Sym, R->Num, &R->common) &&
             R->common.status == KLU_OK;
    }
    R->rcond = ok ? -1.0 : 0.0;
}

/* |A^-1|_1 of a small LU-factorized block (dgetrf's factors and pivots), column by column:
 * exact, and for nb <= 8 far cheaper than dgecon's estimate (whose robust triangular solves,
 * dlatrs, took a fifth of a five-bar run: 5300 instructions a call for a 3 x 3 block). */
static double small_inverse_norm(const double *LU, const int *ipiv, int nb, double *col)
{
    double norm = 0.0;
    for (int j = 0; j < nb; ++j) {
        for (int i = 0; i < nb; ++i)
            col[i] = i == j ? 1.0 : 0.0;
        for (int i = 0; i < nb; ++i) { /* P e_j, then L y = P e_j (unit lower) */
            int pi = ipiv[i] - 1;
            double t = col[i];
            col[i] = col[pi];
            col[pi] = t;
        }
        for (int i = 0; i < nb; ++i)
            for (int k = 0; k < i; ++k)
                col[i] -= LU[i + (size_t)nb * k] * col[k];
        double sum = 0.0;
        for (int i = nb - 1; i >= 0; --i) { /* U x = y */
            for (int k = i + 1; k < nb; ++k)
                col[i] -= LU[i + (size_t)nb * k] * col[k];
            col[i] /= LU[i + (size_t)nb * i];
            sum += fabs(col[i]);
        }
        norm = fmax(norm, sum);
    }
    return norm;
}

/* Reciprocal condition estimate (1-norm) of the factorized block: exact for blocks up to 8 x 8
 * (small_inverse_norm), LAPACK dgecon or klu_condest above. Once per factorization
 * (factor_block sets -1): a position problem that converges at its first iteration asks twice
 * for the same factors. */
void mr_estimate_rcond(MatrixR *R)
{
    int nb = R->general ? R->n : R->r;
    if (nb == 0) {
        R->rcond = 1.0;
        return;
    }
    if (R->rcond >= 0.0)
        return;
    if (!R->sparse || R->general) {
        double rc = 0.0;
        if (nb <= 8) {
            double inv = small_inverse_norm(R->A, R->ipiv, nb, R->conwork);
            rc = inv > 0.0 && R->anorm > 0.0 ? 1.0 / (R->anorm * inv) : 0.0;
        } else {
            LAPACKE_dgecon_work(LAPACK_COL_MAJOR, '1', nb, R->A, nb, R->anorm, &rc, R->conwork,
                                R->iconwork);
        }
        R->rcond = isfinite(rc) ? rc : 0.0;
        return;
    }
    if (!klu_condest(R->Ap, R->Ax, R->Sym, R->Num, &R->common) ||
        !(R->common.condest > 0) || !isfinite(R->common.condest)) {
        R->rcond = 0.0;
        return;
    }
    R->rcond = 1.0 / R->common.condest;
}

/* Solve A X = B in place, B r x nrhs. */
void mr_solve_block(MatrixR *R, double *B, int nrhs)
{
    int r = R->general ? R->n : R->r;
    if (r == 0 || nrhs == 0)
        return;
    if (!R->sparse || R->general)
        mbs_lu_solve(r, R->A, R->ipiv, B, nrhs);
    else
        klu_solve(R->Sym, R->Num, r, nrhs, B, &R->common);
}

/* The sparse path refactorizes with the pivot order of the last full factorization; if that
 * order has become poor, factorize again with pivoting (KLU allocates here: rare). */
void mr_check_pivots(MatrixR *R)
{
    mr_estimate_rcond(R);
    if (R->sparse && !R->general && R->r > 0 && R->rcond < R->rcond_ratio * R->rcond_ref &&
        R->Num) {
        klu_free_numeric(&R->Num, &R->common);
        mr_factor_block(R);
        mr_estimate_rcond(R);
    }
}

void mr_factor_block_checked(MatrixR *R)
{
    mr_factor_block(R);
    mr_check_pivots(R);
}

/* Position problem at time t: Newton on z[dep] with z[ind] held. On return kinematic positions,
 * phi, phiz, phit are current at z and the block is factorized. */
