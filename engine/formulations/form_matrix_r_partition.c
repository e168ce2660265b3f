/* matrix-r's coordinate partition and its dependent block (see form_matrix_r.c for the
 * formulation): the rank-revealing choice of dependent coordinates and rows (paper 003 eqs
 * 31-33), the block's LU (dense or KLU) and condition estimate, and, near singular positions,
 * the rank gap that confirms one and the damped least-squares solves (a sparse factorization
 * of the quasi-definite augmented matrix). Split
 * from form_matrix_r.c; the functions shared with it are declared in form_matrix_r_private.h. */
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
static void block_pattern(const MbsTopology *t, MatrixR *R)
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
    block_pattern(f->model->topo, R);
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

/* --- dependent coordinates near singular positions --------------------------------------
 * At a singular position (a parallelogram's flat position, a change point) Phi_z loses rank
 * whatever the partition, so repartitioning cannot help; near it the dependent block A has
 * singular values sigma -> 0. Solving A x = b then amplifies the position error left by Newton
 * (and round-off) by 1/sigma in zd and by 1/sigma^2 in S c, whose right side holds those
 * velocities (issue 13: one parallelogram at h = 0.5 ms, sigma/sigma_max ~ 1e-6 at a stage, gave
 * zdd_i = 3700 instead of -11.8 rad/s^2 and an energy jump of 18 J; the smaller the step, the
 * closer some stage comes to the singular position, so the error grew as h shrank).
 * There every solve with A is a damped least-squares problem (Levenberg-Marquardt, Tikhonov)
 * anchored on a prior x_p; with the SVD A = U S V^T (not formed: mr_damped_factor):
 *   min |A x - b|^2 + mu^2 |x - x_p|^2  =>  x = x_p + V diag(s / (s^2 + mu^2)) U^T (b - A x_p),
 * mu = damping * sigma_max: directions with sigma >> mu are solved exactly (relative change
 * (mu/sigma)^2), those with sigma << mu keep the prior, which is what a rank-revealing
 * least-squares solution does with redundant equations (paper 001 sec 2.2) and what the penalty
 * and augmented-Lagrangian projections of papers 000/004 do implicitly (they minimise
 * |x - x*|_M^2 + alpha |Phi_z x - b|^2, well posed at a rank loss). Priors: the predicted
 * dependent positions and velocities of the step (Taylor from the last step), R^Phi and S c of
 * the previous evaluation (moved to the current partition when it changed). */

/* |R_rr| / |R_11| of the pivoted QR of Phi_z (r its rank): how far Phi_z itself is from losing
 * rank, whatever the partition. */
double mr_constraints_rank_gap(MatrixR *R)
{
    int nr = R->nr, n = R->n, r = R->r;
    if (r == 0)
        return 1.0;
    R->rank_gap_qrs++;
    memcpy(R->qr, R->phiz, sizeof(double) * (size_t)nr * n);
    memset(R->jpvt, 0, sizeof(int) * (size_t)n);
    LAPACKE_dgeqp3_work(LAPACK_COL_MAJOR, nr, n, R->qr, nr, R->jpvt, R->tau, R->qrwork,
                        R->lqrwork);
    double r11 = fabs(R->qr[0]);
    return r11 > 0.0 ? fabs(R->qr[(r - 1) + (size_t)nr * (r - 1)]) / r11 : 0.0;
}

/* The same gap from the Gram matrix G = Phi_z^T Phi_z, assembled from Phi_z's sparse rows, by
 * pivoted Cholesky (dpstrf): in exact arithmetic its pivots are the pivoted QR's (both take the
 * column of largest remaining norm) and L_kk = |R_kk|. A fraction of the QR's cost (7x15
 * lattice: the 525 x 225 dgeqp3 took 14 % of a run); squaring costs accuracy only below
 * sqrt(n eps) (rank < r then: returns 0). Scratch: X (n x n). */
static double constraints_rank_gap_gram(MatrixR *R)
{
    const MbsTopology *t = R->f->model->topo;
    int nr = R->nr, n = R->n, r = R->r, rank = 0;
    double *G = R->X;
    memset(G, 0, sizeof(double) * (size_t)n * n);
    for (int i = 0; i < nr; ++i) /* lower triangle: sum over rows of phi_i^T phi_i */
        for (int p = t->row_ptr[i]; p < t->row_ptr[i + 1]; ++p) {
            int a = t->row_cols[p];
            double va = R->phiz[i + (size_t)nr * a];
            for (int q = t->row_ptr[i]; q < t->row_ptr[i + 1]; ++q) {
                int b = t->row_cols[q];
                if (b >= a)
                    G[b + (size_t)n * a] += va * R->phiz[i + (size_t)nr * b];
            }
        }
    LAPACKE_dpstrf_work(LAPACK_COL_MAJOR, 'L', n, G, n, R->jpvt, &rank, -1.0, R->qrwork);
    return rank < r || !(G[0] > 0.0) ? 0.0 : G[(r - 1) + (size_t)n * (r - 1)] / G[0];
}

/* Whether this evaluation's block is near-singular because Phi_z nears a rank loss (LU factors
 * current; estimates rcond). Both are measured against their initial values: a lattice's
 * blocks are ill-conditioned by nature (rcond ~ 1e-3 on the 7x15) and keep their plain solves;
 * a block that degrades while Phi_z keeps its rank (a poor partition: the four-bar with the
 * follower angle as DOF near its dead point) is left to the repartition at the next step.
 * The gap is the pivoted QR's; the Gram matrix's decides alone when it is clear of the
 * threshold by 1e-3 of it (the two differed by at most 1.4e-5 relative on the 1x15 to 7x15
 * lattices: the QR's norm downdating) and the threshold is well above its accuracy
 * sqrt(n eps); else the QR decides. */
int mr_block_is_near_singular(MatrixR *R, double damping)
{
    if (damping <= 0.0 || R->general || R->r == 0)
        return 0;
    mr_estimate_rcond(R);
    if (!(R->rcond < damping * R->rcond_initial))
        return 0;
    R->rank_gap_checks++;
    double threshold = damping * R->gap_initial, gap = constraints_rank_gap_gram(R);
    if (fabs(gap - threshold) > 1e-3 * threshold &&
        threshold * threshold > 1e4 * R->n * DBL_EPSILON)
        return gap < threshold;
    return mr_constraints_rank_gap(R) < threshold;
}

/* K = [mu I, A; A^T, -mu I] (2r x 2r): its CSC pattern from A's (Ap, Ai: built here in the
 * dense algebra too), Kmap[p] / Kmap[nnz + p] the places of A's entry p in the x and y blocks,
 * and, in the sparse algebra, its KLU analysis (allocates: once per partition, the first time a
 * block nears a singular position; the dense algebra factorizes K densely, without
 * allocating). */
static int damped_pattern(MatrixR *R)
{
    int r = R->r, nnz;
    if (!R->sparse)
        block_pattern(R->f->model->topo, R);
    nnz = R->Ap[r];
    int *Kp = R->Kp, *cnt = R->jpvt; /* jpvt: scratch, >= r */
    memset(cnt, 0, sizeof(int) * (size_t)r);
    for (int p = 0; p < nnz; ++p)
        cnt[R->Ai[p]]++;
    Kp[0] = 0;
    for (int j = 0; j < r; ++j) /* y columns: mu e_j, then A's row j as rows r + c */
        Kp[j + 1] = Kp[j] + 1 + cnt[j];
    for (int c = 0; c < r; ++c) /* x columns: A's column c, then -mu at row r + c */
        Kp[r + c + 1] = Kp[r + c] + (R->Ap[c + 1] - R->Ap[c]) + 1;
    for (int j = 0; j < r; ++j) {
        R->Ki[Kp[j]] = j;
        cnt[j] = Kp[j] + 1; /* next free place of y column j */
    }
    for (int c = 0; c < r; ++c) { /* c increasing: y columns' rows sorted */
        int q = Kp[r + c];
        for (int p = R->Ap[c]; p < R->Ap[c + 1]; ++p) {
            int i = R->Ai[p];
            R->Ki[q] = i;
            R->Kmap[p] = q++;
            R->Ki[cnt[i]] = r + c;
            R->Kmap[nnz + p] = cnt[i]++;
        }
        R->Ki[q] = r + c;
    }
    R->kpattern = 1;
    if (!R->sparse)
        return 0;
    if (R->KNum)
        klu_free_numeric(&R->KNum, &R->common);
    if (R->KSym)
        klu_free_symbolic(&R->KSym, &R->common);
    R->KSym = klu_analyze(2 * r, R->Kp, R->Ki, &R->common);
    if (!R->KSym) {
        R->kpattern = 0;
        return -1;
    }
    return 0;
}

/* A's largest singular value by power iteration on A^T A (A from K's x block), from a fixed
 * start with no symmetry a chain could share; to 1e-6 relative or 60 iterations: mu is a
 * threshold, a lower bound within a fraction of sigma_max sets the same damped directions. */
static double sigma_max_estimate(MatrixR *R)
{
    int r = R->r;
    double *v = R->svtmp, *w = R->svtmp + r, s2 = 0.0;
    for (int i = 0; i < r; ++i)
        v[i] = 1.0 + 0.5 * sin(1.0 + 0.7 * i);
    for (int it = 0; it < 60; ++it) {
        double nv = cblas_dnrm2(r, v, 1);
        if (!(nv > 0.0))
            return 0.0;
        memset(w, 0, sizeof(double) * (size_t)r);
        for (int c = 0; c < r; ++c) /* w = A v (A's columns in K's x block, rows < r) */
            for (int q = R->Kp[r + c]; q < R->Kp[r + c + 1] - 1; ++q)
                w[R->Ki[q]] += R->Kx[q] * v[c] / nv;
        for (int c = 0; c < r; ++c) { /* v = A^T w */
            double acc = 0.0;
            for (int q = R->Kp[r + c]; q < R->Kp[r + c + 1] - 1; ++q)
                acc += R->Kx[q] * w[R->Ki[q]];
            v[c] = acc;
        }
        double s2new = cblas_dnrm2(r, w, 1);
        s2new *= s2new; /* Rayleigh quotient v^T A^T A v / v^T v */
        int done = fabs(s2new - s2) <= 1e-6 * s2new;
        s2 = s2new;
        if (done)
            break;
    }
    return sqrt(s2);
}

/* Factorize K for the damped solves of this evaluation (A = Phi_z[rows, dep] at the current
 * state): mu = damping * rcond_initial * sigma_max. K is symmetric quasi-definite, its
 * condition sqrt(sigma_max^2 + mu^2) / mu, not squared as A^T A + mu^2 I's; KLU keeps the
 * pivot order of its first factorization in the partition (any symmetric order is stable for
 * a quasi-definite matrix; a poor one is factorized again). Replaces the dense SVD (dgesdd) of
 * the r x r block: 47 % of a 7x15 lattice run. */
int mr_damped_factor(MatrixR *R, double damping)
{
    int r = R->r, nr = R->nr;
    if (!R->kpattern && damped_pattern(R))
        return -1;
    int nnz = R->Ap[r];
    for (int c = 0; c < r; ++c)
        for (int p = R->Ap[c]; p < R->Ap[c + 1]; ++p) {
            double a = R->phiz[R->rows[R->Ai[p]] + (size_t)nr * R->dep[c]];
            R->Kx[R->Kmap[p]] = a;
            R->Kx[R->Kmap[nnz + p]] = a;
        }
    R->sigma_max = sigma_max_estimate(R);
    if (!(R->sigma_max > 0.0) || !isfinite(R->sigma_max))
        return -1;
    R->mu = damping * R->rcond_initial * R->sigma_max;
    for (int j = 0; j < r; ++j) {
        R->Kx[R->Kp[j]] = R->mu;
        R->Kx[R->Kp[r + j + 1] - 1] = -R->mu;
    }
    R->damped_factorizations++;
    if (!R->sparse) { /* dense LU of K (2r x 2r) */
        int m2 = 2 * r;
        memset(R->Kd, 0, sizeof(double) * (size_t)m2 * m2);
        for (int c = 0; c < m2; ++c)
            for (int q = R->Kp[c]; q < R->Kp[c + 1]; ++q)
                R->Kd[R->Ki[q] + (size_t)m2 * c] = R->Kx[q];
        return LAPACKE_dgetrf_work(LAPACK_COL_MAJOR, m2, m2, R->Kd, m2, R->Kipiv) ? -1 : 0;
    }
    /* pivot growth checked by KLU's min/max |U_ii| against the last full factorization's */
    if (R->KNum && klu_refactor(R->Kp, R->Ki, R->Kx, R->KSym, R->KNum, &R->common) &&
        R->common.status == KLU_OK && klu_rcond(R->KSym, R->KNum, &R->common) &&
        R->common.rcond > 1e-3 * R->krcond_ref)
        return 0;
    if (R->KNum)
        klu_free_numeric(&R->KNum, &R->common);
    R->KNum = klu_factor(R->Kp, R->Ki, R->Kx, R->KSym, &R->common);
    if (!R->KNum || !klu_rcond(R->KSym, R->KNum, &R->common))
        return -1;
    R->krcond_ref = R->common.rcond;
    return 0;
}

static void solve_k(MatrixR *R, double *Kb)
{
    if (R->sparse)
        klu_solve(R->KSym, R->KNum, 2 * R->r, 1, Kb, &R->common);
    else
        mbs_lu_solve(2 * R->r, R->Kd, R->Kipiv, Kb, 1);
}

/* b := argmin |A x - b|^2 + mu^2 |x - xp|^2 (xp NULL: 0) = xp + (A^T A + mu^2 I)^-1 A^T
 * (b - A xp): K [y; x] = [b - A xp; 0] gives mu y = b - A (xp + x), A^T y = mu x. Directions
 * with sigma >> mu are solved exactly (relative change (mu/sigma)^2), those with sigma << mu
 * keep the prior. */
void mr_damped_solve(MatrixR *R, double *b, const double *xp)
{
    int r = R->r;
    double *Kb = R->Kb;
    memcpy(Kb, b, sizeof(double) * (size_t)r);
    memset(Kb + r, 0, sizeof(double) * (size_t)r);
    if (xp)
        for (int c = 0; c < r; ++c)
            for (int q = R->Kp[r + c]; q < R->Kp[r + c + 1] - 1; ++q)
                Kb[R->Ki[q]] -= R->Kx[q] * xp[c];
    solve_k(R, Kb);
    for (int i = 0; i < r; ++i)
        b[i] = (xp ? xp[i] : 0.0) + Kb[r + i];
}

/* y := A (A^T A + mu^2 I)^-1 y, the transpose of mr_damped_solve's map (xp NULL): K (symmetric)
 * [u; x] = [0; y] gives x = -mu (A^T A + mu^2 I)^-1 y and u = -A x / mu. */
void mr_damped_solve_transposed(MatrixR *R, double *y)
{
    int r = R->r;
    double *Kb = R->Kb;
    memset(Kb, 0, sizeof(double) * (size_t)r);
    memcpy(Kb + r, y, sizeof(double) * (size_t)r);
    solve_k(R, Kb);
    memcpy(y, Kb, sizeof(double) * (size_t)r);
}

/* The previous evaluation's R^Phi and S c moved to the current independent coordinates:
 * R' = R P^{-1}, S c' = S c - R' (S c)[ind] with P = R[ind, :] (the same velocities expressed
 * in the new independent ones). No prior (dprior = 0) when P is singular. */
void mr_priors_to_partition(MatrixR *R)
{
    int n = R->n, d = R->d;
    if (R->dprior != d) {
        R->dprior = 0;
        return;
    }
    int same = 1;
    for (int k = 0; k < d && same; ++k)
        same = R->indprior[k] == R->ind[k];
    if (same || d == 0)
        return;
    double *P = R->Lh, *Yt = R->MR; /* scratch: d x d, d x n */
    for (int j = 0; j < d; ++j)
        for (int k = 0; k < d; ++k)
            P[k + (size_t)d * j] = R->Rprior[R->ind[k] + (size_t)n * j];
    if (LAPACKE_dgetrf_work(LAPACK_COL_MAJOR, d, d, P, d, R->ipiv_prior) != 0) {
        R->dprior = 0;
        return;
    }
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < d; ++j)
            Yt[j + (size_t)d * i] = R->Rprior[i + (size_t)n * j];
    LAPACKE_dgetrs_work(LAPACK_COL_MAJOR, 'T', d, n, P, d, R->ipiv_prior, Yt, d);
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < d; ++j)
            R->Rprior[i + (size_t)n * j] = Yt[j + (size_t)d * i];
    for (int k = 0; k < d; ++k)
        R->svtmp[k] = R->sprior[R->ind[k]];
    cblas_dgemv(CblasColMajor, CblasNoTrans, n, d, -1.0, R->Rprior, n, R->svtmp, 1, 1.0,
                R->sprior, 1);
    memcpy(R->indprior, R->ind, sizeof(int) * (size_t)d);
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
