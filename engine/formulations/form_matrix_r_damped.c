/* matrix-r near singular positions (see form_matrix_r.c for the formulation,
 * form_matrix_r_partition.c for the partition and the dependent block's LU): the rank gap that
 * confirms one, the damped least-squares solves by a factorization of the quasi-definite
 * K = [mu I, A; A^T, -mu I], and their priors (the prediction anchored on the evaluated
 * independent coordinates, R^Phi and S c of the previous evaluation, the checkpoints' record of
 * them). Moved from form_matrix_r.c and form_matrix_r_partition.c; the functions shared with
 * them are declared in form_matrix_r_private.h. */
#include <cblas.h>
#include <float.h>
#include <klu.h>
#include <lapacke.h>
#include <math.h>
#include <string.h>

#include "form_matrix_r_private.h"
#include "mbs_linalg.h"
#include "mbs_topology.h"

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
        mr_block_pattern(R->f->model->topo, R);
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

/* The priors of the damped solves for an evaluation at zi, zdi (R->z holds the step's
 * prediction): the prediction moved onto the evaluated independent coordinates along the
 * previous R^Phi, z_p = z + R^Phi (zi - z[ind]) and likewise zd_p, so that the directions the
 * damping keeps agree with the independent coordinates to second order (an RK4 stage's zi
 * differs from the Taylor prediction by O(h^2): left out, one parallelogram at h = 1 ms kept a
 * 1.3e-6 rad error across the branch and jumped 0.3 J). */
static void anchor_prediction(MatrixR *R, const double *zi, const double *zdi)
{
    int n = R->n, d = R->d;
    memcpy(R->zpred, R->z, sizeof(double) * (size_t)n);
    mr_priors_to_partition(R);
    if (!R->dprior)
        return;
    double *dz = R->svtmp, *dv = R->svtmp + d;
    for (int k = 0; k < d; ++k) {
        dz[k] = zi[k] - R->zpred[R->ind[k]];
        dv[k] = zdi[k] - R->zdpred[R->ind[k]];
    }
    cblas_dgemv(CblasColMajor, CblasNoTrans, n, d, 1.0, R->Rprior, n, dz, 1, 1.0, R->zpred, 1);
    cblas_dgemv(CblasColMajor, CblasNoTrans, n, d, 1.0, R->Rprior, n, dv, 1, 1.0, R->zdpred, 1);
}

/* The priors of an evaluation at zi, zdi (evaluate, damping on): a checkpoint's when pinned,
 * anchored on zi, zdi. */
void mr_priors_take(MatrixR *R, const double *zi, const double *zdi)
{
    if (R->pin) { /* the run's priors there */
        int n = R->n;
        const double *pr = R->pinned;
        memcpy(R->zdpred, pr + 2, sizeof(double) * (size_t)n);
        memcpy(R->sprior, pr + 2 + n, sizeof(double) * (size_t)n);
        memcpy(R->Rprior, pr + 2 + 2 * n, sizeof(double) * (size_t)n * R->d);
        R->dprior = pr[1] != 0.0 ? R->d : 0;
        memcpy(R->indprior, R->ind, sizeof(int) * (size_t)R->d);
    }
    memcpy(R->zdpred_pre, R->zdpred, sizeof(double) * (size_t)R->n);
    anchor_prediction(R, zi, zdi);
}

/* After an evaluation (damping on): its R^Phi and S c become the next one's priors, the ones it
 * used are kept for the checkpoints' record (mr_priors_record). */
void mr_priors_keep(MatrixR *R)
{
    double *used = R->Rused; /* keep this one's (mr_priors_record) */
    R->Rused = R->Rprior;
    R->Rprior = used;
    used = R->sused;
    R->sused = R->sprior;
    R->sprior = used;
    R->used_singular = R->singular;
    R->used_dprior = R->dprior != 0;
    memcpy(R->Rprior, R->Rz, sizeof(double) * (size_t)R->n * R->d);
    memcpy(R->sprior, R->s, sizeof(double) * (size_t)R->n);
    memcpy(R->indprior, R->ind, sizeof(int) * (size_t)R->d);
    R->dprior = R->d;
    R->singular_evaluations += R->singular;
}

/* The priors of the last evaluation: whether it was damped, whether it had R^Phi and S c
 * priors, zd_p before anchor_prediction moved it onto the evaluated zd_i, S c's prior (n each),
 * R^Phi's (n x d, in the evaluation's partition): 2 + 2n + n d doubles. An evaluation at a
 * checkpoint that takes them (mbs_matrix_r_pin_priors) repeats the run's own evaluation there,
 * damped solves included, and anchors them on its own z_i, zd_i as the run did (a moved state
 * moves them along R^Phi) (issue 28: the adjoint re-evaluates the stored states in reverse
 * order, with other priors than the run's). Then the same for the next evaluation (0, whether
 * it has R^Phi and S c priors, zd_p, S c's and R^Phi's prior): a restored state's next step
 * repeats the run's bit for bit (the checkpointed adjoint's recomputed segments). */
size_t mr_priors_record_size(const MatrixR *R)
{
    return 2 * (2 + 2 * (size_t)R->n + (size_t)R->n * (size_t)R->d0);
}

/* Write the record into pr (mr_priors_record_size doubles; matrix_r_state_get). */
void mr_priors_record(const MatrixR *R, double *pr)
{
    int n = R->n;
    size_t bytes = sizeof(double) * (size_t)n;
    pr[0] = R->used_singular;
    pr[1] = R->used_dprior;
    memcpy(pr + 2, R->zdpred_pre, bytes);
    memcpy(pr + 2 + n, R->sused, bytes);
    memcpy(pr + 2 + 2 * n, R->Rused, bytes * (size_t)R->d0);
    double *next = pr + mr_priors_record_size(R) / 2;
    next[0] = 0.0;
    next[1] = R->dprior != 0 && R->d == R->d0;
    memcpy(next + 2, R->zdpred, bytes);
    memcpy(next + 2 + n, R->sprior, bytes);
    memcpy(next + 2 + 2 * n, R->Rprior, bytes * (size_t)R->d0);
}

/* The priors of the next evaluation from a state's record pr (matrix_r_state_set). */
void mr_priors_restore(MatrixR *R, const double *pr)
{
    int n = R->n;
    const double *next = pr + mr_priors_record_size(R) / 2;
    size_t bytes = sizeof(double) * (size_t)n;
    R->dprior = next[1] != 0.0 && R->d == R->d0 ? R->d : 0;
    memcpy(R->zdpred, next + 2, bytes);
    memcpy(R->sprior, next + 2 + n, bytes);
    memcpy(R->Rprior, next + 2 + 2 * n, bytes * (size_t)R->d0);
    memcpy(R->indprior, R->ind, sizeof(int) * (size_t)R->d);
}
