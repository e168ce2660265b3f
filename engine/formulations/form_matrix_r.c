/* `matrix-r`: semi-recursive Matrix R formulation, double velocity transformation
 * (paper 001 sec. 2, paper 003 secs. 2.1 and 3.1).
 *
 * First transformation: the open chain of relative coordinates z (semi-recursive M(z) and
 * Q(z, zd), mbs_dynamics). Second transformation: the loop-closure and driver constraints
 * Phi(z, t) = 0 are removed by zd = R zd_i + S b, zdd = R zdd_i + S c (paper 001 eqs 24-25):
 *
 *   (R^T M R) zdd_i = R^T (Q - M (S c - R B_dot zd))                   (001: 29)
 *
 * Coordinate partitioning (paper 003 eqs 31-33): a QR factorization with column pivoting of
 * Phi_z (LAPACK dgeqp3) gives the rank r of the constraints and r dependent coordinates (the
 * first r pivots); the d = n - r others are the independent ones. Redundant but compatible
 * constraints are handled by a second rank-revealing QR, of Phi_z^d transposed, which keeps r
 * independent rows: the dependent block A = Phi_z[rows, dep] is square and nonsingular, and the
 * dropped rows are satisfied because they are compatible (every residual reported covers all
 * rows). A is factorized by LAPACK LU (dense) or KLU (sparse, SuiteSparse) and
 *   R[dep, :] = -A^{-1} Phi_z[rows, ind],  R[ind, :] = I,
 *   (S b)[dep] = A^{-1} (-Phi_t),  (S c)[dep] = A^{-1} (-(Phi_z_dot zd + Phi_t_dot)).
 * Every evaluation solves the position problem (Newton on the dependent coordinates, the
 * independent ones held; converged when both the correction and max |Phi| over all rows are
 * below newton_tolerance (1 + max |z|)) and the velocity problem. The partition is chosen again
 * when the reciprocal condition estimate (LAPACK dgecon / klu_condest) of A falls below
 * the "rcond" setting times its value just after the last partition (checked at the start
 * of every step, where the state is consistent, so a change of partition is exact; the event is
 * reported through mbs_matrix_r_stats()).
 *
 * User degrees of freedom (setting "dof"): relative coordinates (constant B, paper 001
 * sec 2.2.2: the same partitioned scheme with the given independent set) or natural coordinates
 * of points, z_i = h(z) with B = h_z not constant (paper 001 sec 2.2.3): then the whole
 * Theta = [Phi_z[rows]; B] (n x n, dense LU) replaces A, R^Phi = Theta^{-1} [0; I],
 * S c = Theta^{-1} [c; -B_dot zd] and the position problem is Newton on all of z with
 * h(z) = z_i appended (001 eqs 13-25). When Theta becomes ill-conditioned the partition falls
 * back to the automatic one.
 *
 * Integrators on the independent coordinates: explicit RK4 (paper 003) or the implicit
 * trapezoidal rule (paper 001) solved by Newton on the d independent coordinates with the
 * tangent of the reduced residual ("jacobian"): analytical (the default: the derivatives of
 * R^Phi, S c and the dynamics through the position, velocity and acceleration problems, paper
 * 001 eqs 50-52), or forward-mode AD of the same chain (both in form_matrix_r_tangent.c), or
 * forward or central differences (d or 2 d full evaluations),
 * reused for "jacobian-reuse" iterations.
 */
#include "form_matrix_r.h"
#include "form_matrix_r_private.h"

#include <cblas.h>
#include <klu.h>
#include <lapacke.h>
#include <float.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mbs_alloc.h"
#include "mbs_assembly.h"
#include "mbs_clock.h"
#include "mbs_constraints.h"
#include "mbs_constraints_derivatives.h"
#include "mbs_dual.h"
#include "mbs_dynamics.h"
#include "mbs_dynamics_derivatives.h"
#include "mbs_energy.h"
#include "mbs_linalg.h"
#include "mbs_tangent.h"
#include "mbs_tangent_probe.h"
#include "mbs_topology.h"

enum { INTEGRATOR_RK4, INTEGRATOR_TRAPEZOIDAL };

/* The settings it reads (matrix_r_settings). */
typedef struct {
    int integrator; /* INTEGRATOR_RK4 (paper 003) or INTEGRATOR_TRAPEZOIDAL (paper 001) */
    int sparse;     /* 0: dense LAPACK LU of the dependent block, 1: sparse KLU */
    double rcond;   /* new partition when the dependent block's reciprocal condition estimate
                       falls below this fraction of its value just after the last partition */
    double damping; /* near-singular blocks: singular values below damping * sigma_max give way
                       to the prediction (damped least squares); 0: plain LU solves */
    MbsDofList dofs;
    MbsNewtonOptions newton;
    MbsTangentOptions tangent;
} MatrixROptions;
_Static_assert(sizeof(MatrixROptions) <= MBS_OPTIONS_BYTES, "matrix-r options fit MbsSettings");

static const MatrixROptions *options(const MbsFormulation *f)
{
    return mbs_formulation_options(f);
}


void mr_sort_ints(int *a, int k)
{
    for (int i = 1; i < k; ++i) {
        int v = a[i], j = i - 1;
        while (j >= 0 && a[j] > v) {
            a[j + 1] = a[j];
            --j;
        }
        a[j + 1] = v;
    }
}

void mr_free_klu(MatrixR *R)
{
    if (R->Num)
        klu_free_numeric(&R->Num, &R->common);
    if (R->Sym)
        klu_free_symbolic(&R->Sym, &R->common);
    if (R->KNum)
        klu_free_numeric(&R->KNum, &R->common);
    if (R->KSym)
        klu_free_symbolic(&R->KSym, &R->common);
    R->kpattern = 0;
}

/* Node of (joint, coordinate), or -1. */
int mr_find_node(const MbsTopology *t, int joint, int coord)
{
    for (int k = 0; k < t->nnodes; ++k)
        if (t->nodes[k].joint == joint && t->nodes[k].joint_coord == coord)
            return k;
    return -1;
}

/* --- degrees of freedom given as functions z_i = h(z) (paper 001 sec 2.2.3) ------------- */

const MbsDofChoice *mr_dof(const MbsFormulation *f, int i)
{
    return &((const MatrixR *)f->impl)->dofs.items[i];
}

const MbsPoint *mr_dof_point(const MbsFormulation *f, int i)
{
    return &f->model->points[mr_dof(f, i)->point];
}

/* h_i(z); positions current in R->kin. */
static double dof_value(const MbsFormulation *f, const MatrixR *R, int i)
{
    if (R->dofnode[i] >= 0)
        return R->z[R->dofnode[i]];
    const MbsPoint *pt = mr_dof_point(f, i);
    double r[3];
    mbs_kin_point(f->model, &R->kin, pt->body, pt->pos, r);
    return r[mr_dof(f, i)->axis];
}

/* Row i of B = h_z into out[k * ld], k = 0..n-1: for a point, the velocity of the point induced by
 * a unit velocity of every node on its path to the root, b_k(1:3) + b_k(4:6) x r. */
void mr_dof_row(const MbsFormulation *f, const MatrixR *R, int i, double *out, size_t ld)
{
    if (R->dofnode[i] >= 0) {
        for (int k = 0; k < R->n; ++k)
            out[(size_t)k * ld] = 0.0;
        out[(size_t)R->dofnode[i] * ld] = 1.0;
        return;
    }
    const MbsPoint *pt = mr_dof_point(f, i);
    double r[3], axis[3] = {0.0, 0.0, 0.0};
    axis[mr_dof(f, i)->axis] = 1.0;
    mbs_kin_point(f->model, &R->kin, pt->body, pt->pos, r);
    mbs_kin_point_velocity_row(f->model, &R->kin, pt->body, r, axis, out, ld);
}

/* B_dot zd for DOF i (velocities current in R->kin). */
static double dof_bias(const MbsFormulation *f, const MatrixR *R, int i)
{
    if (R->dofnode[i] >= 0)
        return 0.0;
    const MbsPoint *pt = mr_dof_point(f, i);
    double r[3], a[3];
    mbs_kin_point(f->model, &R->kin, pt->body, pt->pos, r);
    mbs_kin_point_motion(f->model, &R->kin, pt->body, r, NULL, a);
    return a[mr_dof(f, i)->axis];
}

/* Independent positions, velocities and accelerations of the current state. */
static void independent_state(const MbsFormulation *f, MatrixR *R, double *zi, double *zdi,
                              double *zddi)
{
    int n = R->n;
    for (int k = 0; k < R->d; ++k) {
        if (!R->general) {
            zi[k] = R->z[R->ind[k]];
            zdi[k] = R->zd[R->ind[k]];
            zddi[k] = R->zdd[R->ind[k]];
            continue;
        }
        zi[k] = dof_value(f, R, k);
        mr_dof_row(f, R, k, R->Brow, 1);
        double v = 0.0, a = dof_bias(f, R, k);
        for (int j = 0; j < n; ++j) {
            v += R->Brow[j] * R->zd[j];
            a += R->Brow[j] * R->zdd[j];
        }
        zdi[k] = v;
        zddi[k] = a;
    }
}

/* Pivoted QR (dgeqp3) of the nr x ncols matrix in R->qr, in place, with its column order in
 * R->jpvt (1-based); returns the numerical rank: the diagonal entries of R above rank_tol times
 * the first. */
static int position_problem(MbsFormulation *f, MatrixR *R, double t, MbsError *err)
{
    const MbsModel *m = f->model;
    const MatrixROptions *o = options(f);
    int nr = R->nr, r = R->r;
    double tc = mbs_clock_now();
    double res = 0.0;
    int it;
    double corr = INFINITY, corr_prev = INFINITY;
    int converged = 0;
    for (it = 0;; ++it) {
        mbs_kinematics_positions(m, &R->kin, R->z);
        mbs_constraints_eval_pattern(m, &R->kin, t, R->z, R->phi, R->phiz, R->phit);
        res = mbs_vec_norminf(nr, R->phi);
        if (!isfinite(res))
            break;
        /* the condition is estimated once, at the converged state; near a singular position
         * the Newton steps keep the LU (A^-1 b is the minimum-norm step while A is nonsingular
         * in working precision) and the evaluation's other solves are damped ones */
        mr_factor_block(R);
        if (it == 0 && !R->singular &&
            (R->pin ? R->pinned[0] != 0.0 : mr_block_is_near_singular(R, o->damping))) {
            /* start again from the prediction anchored on the evaluated independent
             * coordinates (anchor_prediction): near the singular position the other branch is
             * close, the Newton start decides which one is found */
            R->singular = 1;
            memcpy(R->z, R->zpred, sizeof(double) * (size_t)R->n);
            it = -1;
            continue;
        }
        /* an exactly singular LU there: a damped (Levenberg-Marquardt) step instead */
        int lm = R->singular && R->rcond == 0.0;
        if (lm && mr_damped_factor(R, o->damping))
            break;
        if (R->rcond == 0.0 && !lm)
            break;
        if (r == 0 && !R->general) {
            converged = res <= o->newton.tolerance;
            mr_estimate_rcond(R);
            break;
        }
        for (int i = 0; i < r; ++i)
            R->rhs[i] = -R->phi[R->rows[i]];
        if (R->general)
            for (int k = 0; k < R->d; ++k)
                R->rhs[r + k] = R->tzi[k] - dof_value(f, R, k);
        int nu = R->general ? R->n : r; /* unknowns */
        if (lm)
            mr_damped_solve(R, R->rhs, NULL);
        else
            mr_solve_block(R, R->rhs, 1);
        corr = mbs_vec_norminf(nu, R->rhs);
        double zmax = 0.0;
        for (int i = 0; i < nu; ++i)
            zmax = fmax(zmax, fabs(R->z[R->general ? i : R->dep[i]]));
        /* Newton's error estimate is the next correction: when it and the residual are below
         * the tolerance the state is kept as evaluated (kinematics, Phi, Phi_z and factors all
         * current at z) */
        /* Near a singular configuration the block is ill-conditioned: a residual at round-off
         * level still yields corrections of cond * eps that never fall below the tolerance
         * (7x15 lattice, t = 1.85 s, h = 1 ms: |Phi| 1.4e-14, corrections 1e-9). Such a
         * residual is converged too (not with point-coordinate DOFs, whose equations are not
         * in Phi). */
        /* Near a singular position zd and S c amplify the position error by 1/sigma and
         * 1/sigma^2: there the iteration goes on to round-off, or until the corrections stop
         * falling (one or two more iterations: the solved directions converge quadratically). */
        const double tol = o->newton.tolerance * (1.0 + zmax);
        int tight_enough = !R->singular || corr > 0.5 * corr_prev;
        corr_prev = corr;
        int done = (corr <= tol && res <= tol && tight_enough) ||
                   (!R->general && res <= 64.0 * DBL_EPSILON * (1.0 + zmax));
        MbsTracePhase *phase =
            f->trace ? mbs_trace_phase(f->trace, MBS_TRACE_POSITION_NEWTON, it + 1) : NULL;
        if (phase) {
            phase->residual = res;
            phase->constraint = mbs_vec_norm2(nr, R->phi);
        }
        mbs_trace_newton_end(phase, corr, tol, done);
        if (done) {
            converged = 1;
            if (!R->singular) {
                mr_check_pivots(R);
            } else if (mr_damped_factor(R, o->damping)) { /* the evaluation's damped solves */
                converged = 0;
                R->rcond = 0.0;
            } else {
                mr_estimate_rcond(R);
            }
            break;
        }
        if (it >= o->newton.max_iterations || !isfinite(corr))
            break;
        for (int i = 0; i < nu; ++i)
            R->z[R->general ? i : R->dep[i]] += R->rhs[i];
        R->step_pos_iterations++;
        R->position_iterations++;
    }
    R->t_position += mbs_clock_now() - tc;
    if (converged)
        return 0;
    if (R->rcond == 0.0)
        return mbs_error_set(err, MBS_RECOVERABLE,
                             "matrix-r: the dependent block of Phi_z is singular at t = %.6g s "
                             "(%s)",
                             t, R->event);
    return mbs_error_set(err, MBS_RECOVERABLE,
                         "matrix-r: the position problem did not converge at t = %.6g s after "
                         "%d iterations (max |Phi| = %.3g, last correction %.3g); try a "
                         "smaller step",
                         t, it, res, corr);
}

/* Velocity problem: zd[dep] from zd[ind]; then velocity kinematics, the bias Phi_dot_z zd +
 * Phi_dot_t and S c (in R->s). */
static void velocity_problem(const MbsModel *m, MatrixR *R, double t)
{
    int nr = R->nr, r = R->r, d = R->d;
    double tc = mbs_clock_now();
    if (R->general) { /* Theta zd = [-Phi_t; zd_i], Theta s = [-bias; -B_dot zd] */
        int n = R->n;
        for (int i = 0; i < r; ++i)
            R->rhs[i] = -R->phit[R->rows[i]];
        for (int k = 0; k < d; ++k)
            R->rhs[r + k] = R->tzdi[k];
        mr_solve_block(R, R->rhs, 1);
        memcpy(R->zd, R->rhs, sizeof(double) * (size_t)n);
        mbs_kinematics_velocities(m, &R->kin, R->zd);
        mbs_constraints_bias(m, &R->kin, t, R->bias);
        for (int i = 0; i < r; ++i)
            R->rhs[i] = -R->bias[R->rows[i]];
        for (int k = 0; k < d; ++k)
            R->rhs[r + k] = -dof_bias(R->f, R, k);
        mr_solve_block(R, R->rhs, 1);
        memcpy(R->s, R->rhs, sizeof(double) * (size_t)n);
        R->t_velocity += mbs_clock_now() - tc;
        return;
    }
    for (int i = 0; i < r; ++i) {
        int row = R->rows[i];
        double v = -R->phit[row];
        for (int k = 0; k < d; ++k)
            v -= R->phiz[row + (size_t)nr * R->ind[k]] * R->zd[R->ind[k]];
        R->rhs[i] = v;
    }
    double *xp = R->svtmp + 2 * r;
    if (R->singular) {
        for (int i = 0; i < r; ++i)
            xp[i] = R->zdpred[R->dep[i]];
        mr_damped_solve(R, R->rhs, xp);
    } else {
        mr_solve_block(R, R->rhs, 1);
    }
    for (int i = 0; i < r; ++i)
        R->zd[R->dep[i]] = R->rhs[i];
    mbs_kinematics_velocities(m, &R->kin, R->zd);
    mbs_constraints_bias(m, &R->kin, t, R->bias);
    for (int i = 0; i < r; ++i)
        R->rhs[i] = -R->bias[R->rows[i]];
    if (R->singular) {
        for (int i = 0; i < r; ++i)
            xp[i] = R->dprior ? R->sprior[R->dep[i]] : 0.0;
        mr_damped_solve(R, R->rhs, xp);
    } else {
        mr_solve_block(R, R->rhs, 1);
    }
    for (int k = 0; k < R->n; ++k)
        R->s[k] = 0.0;
    for (int i = 0; i < r; ++i)
        R->s[R->dep[i]] = R->rhs[i];
    R->t_velocity += mbs_clock_now() - tc;
}

/* R^Phi (n x d) from the factorized block. */
static void compute_rz(MatrixR *R)
{
    int n = R->n, nr = R->nr, r = R->r, d = R->d;
    double tc = mbs_clock_now();
    if (R->general) { /* R^Phi = Theta^{-1} [0; I] */
        memset(R->Rz, 0, sizeof(double) * (size_t)n * d);
        for (int j = 0; j < d; ++j)
            R->Rz[r + j + (size_t)n * j] = 1.0;
        mr_solve_block(R, R->Rz, d);
        R->t_rz += mbs_clock_now() - tc;
        return;
    }
    for (int j = 0; j < d; ++j)
        for (int i = 0; i < r; ++i)
            R->X[i + (size_t)r * j] = -R->phiz[R->rows[i] + (size_t)nr * R->ind[j]];
    if (R->singular) {
        double *xp = R->svtmp + 2 * r;
        for (int j = 0; j < d; ++j) {
            for (int i = 0; i < r; ++i)
                xp[i] = R->dprior ? R->Rprior[R->dep[i] + (size_t)n * j] : 0.0;
            mr_damped_solve(R, R->X + (size_t)r * j, xp);
        }
    } else {
        mr_solve_block(R, R->X, d);
    }
    memset(R->Rz, 0, sizeof(double) * (size_t)n * d);
    for (int j = 0; j < d; ++j) {
        double *col = R->Rz + (size_t)n * j;
        col[R->ind[j]] = 1.0;
        for (int i = 0; i < r; ++i)
            col[R->dep[i]] = R->X[i + (size_t)r * j];
    }
    R->t_rz += mbs_clock_now() - tc;
}

/* M, Q and the reduced terms Mh = R^T M R, rh = R^T (Q - M S c). */
static void reduced_dynamics(const MbsModel *m, MatrixR *R)
{
    int n = R->n, d = R->d;
    double tc = mbs_clock_now();
    mbs_dynamics_mass(m, &R->kin, &R->dyn, R->M);
    mbs_dynamics_forces(m, &R->kin, &R->dyn, R->z, R->zd, R->Q);
    double t1 = mbs_clock_now();
    R->t_dynamics += t1 - tc;
    if (d > 0) {
        mbs_gemm(0, n, d, n, 1.0, R->M, n, R->Rz, n, 0.0, R->MR, n);
        mbs_gemm_tn(d, d, n, 1.0, R->Rz, R->MR, 0.0, R->Mh);
        memcpy(R->w, R->Q, sizeof(double) * (size_t)n);
        mbs_gemv(0, n, n, -1.0, R->M, n, R->s, 1.0, R->w);
        mbs_gemv(1, n, d, 1.0, R->Rz, n, R->w, 0.0, R->rh);
    }
    R->evaluations++;
    R->t_reduced += mbs_clock_now() - t1;
}

static int solve_reduced(MatrixR *R, double *zddi);

/* The step trace's record of an evaluation: Phi_z, M, R^Phi and R^T M R (paper 001 eq 29). */
static void trace_evaluation(MbsTrace *t, const MatrixR *R)
{
    int n = R->n, d = R->d, count = 0;
    for (int i = 0; i < t->nphases; ++i)
        count += t->phases[i].kind == MBS_TRACE_EVALUATION;
    if (!mbs_trace_phase(t, MBS_TRACE_EVALUATION, count + 1))
        return;
    mbs_trace_dense(t, "Phi_z", "Phi_z", R->nr, n, R->phiz, R->nr);
    mbs_trace_dense(t, "M", "M(z)", n, n, R->M, n);
    mbs_trace_dense(t, "R", "R^Phi: zd = R zd_i + S b", n, d, R->Rz, n);
    mbs_trace_dense(t, "leading", "R^T M R", d, d, R->Mh, d);
}

/* Full evaluation at t for zi, zdi (R->z holds the initial guess of the dependent
 * coordinates): position and velocity problems, R^Phi, reduced dynamics. */
static int evaluate(MbsFormulation *f, MatrixR *R, double t, const double *zi, const double *zdi,
                    MbsError *err)
{
    f->clock = t;
    R->tzi = zi;
    R->tzdi = zdi;
    R->singular = 0;
    R->generation++;
    if (!R->general && options(f)->damping > 0.0)
        mr_priors_take(R, zi, zdi);
    for (int k = 0; k < R->d && !R->general; ++k) {
        R->z[R->ind[k]] = zi[k];
        R->zd[R->ind[k]] = zdi[k];
    }
    int status = position_problem(f, R, t, err);
    if (status)
        return status;
    velocity_problem(f->model, R, t);
    compute_rz(R);
    if (!R->residual_only)
        reduced_dynamics(f->model, R);
    if (f->trace)
        trace_evaluation(f->trace, R);
    if (!R->general && options(f)->damping > 0.0) /* priors of the next evaluation */
        mr_priors_keep(R);
    return 0;
}

/* zddi = Mh^{-1} rh (Cholesky). */
static int solve_reduced(MatrixR *R, double *zddi)
{
    int d = R->d;
    if (d == 0)
        return 0;
    double tc = mbs_clock_now();
    memcpy(R->Lh, R->Mh, sizeof(double) * (size_t)d * d);
    memcpy(zddi, R->rh, sizeof(double) * (size_t)d);
    int info = LAPACKE_dpotrf_work(LAPACK_COL_MAJOR, 'L', d, R->Lh, d);
    if (info == 0)
        LAPACKE_dpotrs_work(LAPACK_COL_MAJOR, 'L', d, 1, R->Lh, d, zddi, d);
    R->t_solve += mbs_clock_now() - tc;
    return info;
}

/* zdd = R zdd_i + S c. */
static void full_accelerations(MatrixR *R, const double *zddi)
{
    memcpy(R->zdd, R->s, sizeof(double) * (size_t)R->n);
    if (R->d > 0)
        mbs_gemv(0, R->n, R->d, 1.0, R->Rz, R->n, zddi, 1.0, R->zdd);
}

/* Monitors; M, Q, kinematics, phi, phiz, phit, bias current at the final state. The power of
 * the constraint reactions (M zdd - Q)^T zd is the driver power (zero for scleronomic rows). */
static void fill_monitors(MbsFormulation *f, MatrixR *R)
{
    const MbsModel *m = f->model;
    int n = R->n, nr = R->nr;
    MbsEnergy e;
    mbs_energy_eval(m, &R->kin, R->z, R->zd, &e);
    double pc = 0.0;
    for (int i = 0; i < n; ++i) {
        double v = -R->Q[i];
        for (int j = 0; j < n; ++j)
            v += R->M[i + (size_t)n * j] * R->zdd[j];
        pc += v * R->zd[i];
    }
    R->power_nc = e.power_nonconservative + pc;
    MbsMonitors *mo = &f->monitors;
    mo->time = f->time;
    mo->kinetic = e.kinetic;
    mo->potential_gravity = e.potential_gravity;
    mo->potential_elastic = e.potential_elastic;
    mo->work_nonconservative = R->work_nc;
    mo->total = e.kinetic + e.potential_gravity + e.potential_elastic - R->work_nc;
    mo->phi_norm = mbs_vec_norm2(nr, R->phi);
    double dphi = 0.0, ddphi = 0.0;
    const MbsTopology *t = m->topo;
    for (int i = 0; i < nr; ++i) { /* Phi_z's row pattern (the dense row was 7 % of a step) */
        double v = R->phit[i], a = R->bias[i];
        for (int p = t->row_ptr[i]; p < t->row_ptr[i + 1]; ++p) {
            int j = t->row_cols[p];
            v += R->phiz[i + (size_t)nr * j] * R->zd[j];
            a += R->phiz[i + (size_t)nr * j] * R->zdd[j];
        }
        dphi += v * v;
        ddphi += a * a;
    }
    mo->dphi_norm = sqrt(dphi);
    mo->ddphi_norm = sqrt(ddphi);
}

static void matrix_r_finalize(MbsFormulation *f)
{
    MatrixR *R = f->impl;
    if (!R)
        return;
    mr_free_klu(R);
    mbs_kinematics_free(&R->kin);
    mbs_dynamics_free(&R->dyn);
    double *arrays[] = {R->z,   R->zd,   R->zdd,   R->z0,     R->zd0,  R->zdd0, R->zi0,
                        R->zdi0, R->zddi0, R->zi,   R->zdi,    R->zddi, R->g,    R->delta,
                        R->qr,  R->tau,  R->qrwork, R->A,     R->rhs,  R->X,    R->conwork,
                        R->Ax,  R->phi,  R->phiz,  R->phit,   R->bias, R->M,    R->Q,
                        R->Rz,  R->MR,   R->s,     R->w,      R->Mh,   R->Lh,   R->rh,
                        R->T,   R->zdip,  R->zddip,  R->zsave, R->zdsave, R->Rsave,
                        R->Kx,  R->Kb,   R->Kd,    R->svtmp,
                        R->zpred, R->zdpred, R->Rprior, R->sprior, R->Rused, R->sused, R->pinned, R->zdpred_pre, R->seed, R->dirz,
                        R->dirv, R->dira, R->ydir, R->zdd_base, R->mu_base, R->mu_rows, R->dF, R->Fval, R->wseed,
                        R->Kan, R->Can, R->DZ, R->DZD, R->DZDD, R->DRE, R->Van, R->node_acc,
                        R->node_D, R->rowbuf, R->biasbuf, R->dir_zddi, R->model_work, R->col_motion};
    for (size_t i = 0; i < sizeof arrays / sizeof arrays[0]; ++i)
        free(arrays[i]);
    MbsDual *duals[] = {R->zD, R->zdD, R->zddD, R->rowD, R->biasD, R->QD};
    for (size_t i = 0; i < sizeof duals / sizeof duals[0]; ++i)
        free(duals[i]);
    mbs_kinematics_free_dual(&R->kd);
    mbs_dynamics_free_dual(&R->dd);
    mbs_constraints_derivatives_free(&R->cder);
    mbs_dynamics_derivatives_free(&R->dder);
    free(R->drows);
    for (int k = 0; k < 4; ++k) {
        free(R->acc[k]);
        free(R->vel[k]);
    }
    mbs_tangent_free(&R->tangent);
    free(R->dofnode);
    free(R->Brow);
    int *iarrays[] = {R->dep,  R->ind,  R->rows, R->depidx,   R->rowidx,
                      R->jpvt, R->ipiv, R->Ap,   R->Ai,       R->iconwork, R->ipiv_d,
                      R->ipiv_prior, R->indprior, R->Kp, R->Ki, R->Kmap, R->Kipiv};
    for (size_t i = 0; i < sizeof iarrays / sizeof iarrays[0]; ++i)
        free(iarrays[i]);
    free(R);
    f->impl = NULL;
}

/* The run's independent coordinates: the options' list, or the model's when they ask for it. */
static int resolve_dofs(const MbsModel *m, const MbsDofList *chosen, MbsDofList *out,
                        MbsError *err)
{
    *out = *chosen;
    if (out->count == MBS_MATRIX_R_AUTOMATIC) {
        out->count = 0;
    } else if (out->count == 0 && m->ndofs > 0) {
        if (m->ndofs > MBS_MATRIX_R_MAX_DOFS)
            return mbs_error_set(err, MBS_FATAL, "model '%s' chooses %d degrees of freedom; at "
                                 "most %d are supported", m->name, m->ndofs,
                                 MBS_MATRIX_R_MAX_DOFS);
        out->count = m->ndofs;
        memcpy(out->items, m->dofs, sizeof(MbsDofChoice) * (size_t)m->ndofs);
    }
    if (out->count < 0 || out->count > MBS_MATRIX_R_MAX_DOFS)
        return mbs_error_set(err, MBS_FATAL, "matrix-r: %d degrees of freedom given (at most %d)",
                             out->count, MBS_MATRIX_R_MAX_DOFS);
    return 0;
}

static int reduced_residual(void *ctx, const double *zi, int column, double step, double *g);

static int matrix_r_init(MbsFormulation *f, MbsError *err)
{
    const MbsModel *m = f->model;
    const MbsSettings *st = &f->settings;
    const MatrixROptions *o = options(f);
    MbsDofList dofs;
    if (resolve_dofs(m, &o->dofs, &dofs, err))
        return MBS_FATAL;
    MatrixR *R = calloc(1, sizeof *R);
    if (!R)
        return mbs_error_set(err, MBS_FATAL, "out of memory");
    f->impl = R;
    R->f = f;
    R->dofs = dofs;
    R->sparse = o->sparse != 0;
    R->integrator = o->integrator;
    R->rcond_ratio = o->rcond;
    klu_defaults(&R->common);
    int n = R->n = m->topo->nnodes, nr = R->nr = m->topo->nrows, fail = 0;
    int mx = n > nr ? n : nr;
    size_t nn = (size_t)n * n;
    if (mbs_kinematics_init(&R->kin, m) || mbs_dynamics_init(&R->dyn, m))
        fail = 1;
    R->kin.clock = &f->clock;
    double **vecs_n[] = {&R->z, &R->zd, &R->zdd, &R->z0, &R->zd0, &R->zdd0, &R->zi0, &R->zdi0,
                         &R->zddi0, &R->zi, &R->zdi, &R->zddi, &R->g, &R->delta, &R->Q, &R->s,
                         &R->w, &R->rh, &R->zdip, &R->zddip, &R->zsave, &R->zdsave,
                         &R->zpred, &R->zdpred, &R->sprior, &R->sused, &R->zdpred_pre};
    for (size_t i = 0; i < sizeof vecs_n / sizeof vecs_n[0]; ++i)
        *vecs_n[i] = mbs_calloc_doubles((size_t)n, &fail);
    for (int k = 0; k < 4; ++k) {
        R->acc[k] = mbs_calloc_doubles((size_t)n, &fail);
        R->vel[k] = mbs_calloc_doubles((size_t)n, &fail);
    }
    R->node_acc = mbs_calloc_doubles(6 * (size_t)n, &fail);
    R->node_D = mbs_calloc_doubles(6 * (size_t)n, &fail);
    R->dep = mbs_calloc_ints((size_t)n, &fail);
    R->ind = mbs_calloc_ints((size_t)n, &fail);
    R->dofnode = mbs_calloc_ints(MBS_MATRIX_R_MAX_DOFS, &fail);
    R->Brow = mbs_calloc_doubles((size_t)n, &fail);
    R->rows = mbs_calloc_ints((size_t)n, &fail);
    R->depidx = mbs_calloc_ints((size_t)n, &fail);
    R->rowidx = mbs_calloc_ints((size_t)nr, &fail);
    R->jpvt = mbs_calloc_ints((size_t)mx, &fail);
    R->qr = mbs_calloc_doubles((size_t)nr * n, &fail);
    R->tau = mbs_calloc_doubles((size_t)mx, &fail);
    R->A = mbs_calloc_doubles(nn, &fail);
    R->rhs = mbs_calloc_doubles((size_t)mx, &fail);
    R->X = mbs_calloc_doubles(nn, &fail);
    R->conwork = mbs_calloc_doubles(4 * (size_t)n, &fail);
    R->iconwork = mbs_calloc_ints((size_t)n, &fail);
    R->ipiv = mbs_calloc_ints((size_t)n, &fail);
    R->ipiv_d = mbs_calloc_ints((size_t)n, &fail);
    R->ipiv_prior = mbs_calloc_ints((size_t)n, &fail);
    R->indprior = mbs_calloc_ints((size_t)n, &fail);
    R->svtmp = mbs_calloc_doubles(3 * (size_t)n, &fail);
    int nnz = m->topo->row_ptr[nr];
    R->Ap = mbs_calloc_ints((size_t)n + 1, &fail);
    R->Ai = mbs_calloc_ints((size_t)nnz, &fail);
    R->Ax = mbs_calloc_doubles((size_t)nnz, &fail);
    R->Kp = mbs_calloc_ints(2 * (size_t)n + 1, &fail); /* K = [mu I, A; A^T, -mu I] */
    R->Ki = mbs_calloc_ints(2 * (size_t)nnz + 2 * (size_t)n, &fail);
    R->Kmap = mbs_calloc_ints(2 * (size_t)nnz, &fail);
    R->Kx = mbs_calloc_doubles(2 * (size_t)nnz + 2 * (size_t)n, &fail);
    R->Kb = mbs_calloc_doubles(2 * (size_t)n, &fail);
    if (!R->sparse && o->damping > 0.0) {
        R->Kd = mbs_calloc_doubles(4 * (size_t)n * n, &fail);
        R->Kipiv = mbs_calloc_ints(2 * (size_t)n, &fail);
    }
    R->phi = mbs_calloc_doubles((size_t)nr, &fail);
    R->phiz = mbs_calloc_doubles((size_t)nr * n, &fail);
    R->phit = mbs_calloc_doubles((size_t)nr, &fail);
    R->bias = mbs_calloc_doubles((size_t)nr, &fail);
    double **mats[] = {&R->M,  &R->Rz, &R->MR, &R->Mh, &R->Lh,    &R->T,
                       &R->Rsave, &R->Rprior, &R->Rused};
    for (size_t i = 0; i < sizeof mats / sizeof mats[0]; ++i)
        *mats[i] = mbs_calloc_doubles(nn, &fail);
    if (fail)
        return mbs_error_set(err, MBS_FATAL, "out of memory");
    /* The trapezoidal rule's tangent: serial, an evaluation uses all of R. Made for d <= n.
     * Forward differences keep matrix-r's own increment 1e-7 (1 + |z_i|) (its results, and the
     * Newton iterations near the 1x15 lattice's hard point at 1.85 s, depend on it); central
     * ones, new here, take the interface's. */
    R->tangent_ctx[0] = R;
    const MbsTangentProblem tangent = {
        .nx = n, .nr = n, .residual = reduced_residual, .contexts = R->tangent_ctx, .nthreads = 1,
        .residual_dual = mr_reduced_residual_dual,
        .analytical_jacobian = mr_reduced_jacobian_analytical,
        .step = o->tangent.method == MBS_JACOBIAN_ND_FORWARD
                    ? (MbsTangentStep){.relative = 1e-7, .offset_one = 1, .unrounded = 1}
                    : (MbsTangentStep){0},
    };
    if (mbs_tangent_init(&R->tangent, &tangent, o->tangent.method, err))
        return MBS_FATAL;
    /* the exact methods, ad and analytical, each with the other's workspace too: a probe can
     * check one against the other on the same residual (tests/app/test-tangent-ad.c) */
    int exact = mbs_jacobian_method_needs_dual(o->tangent.method) ||
                o->tangent.method == MBS_JACOBIAN_ANALYTICAL;
    char why[256];
    if (R->integrator == INTEGRATOR_TRAPEZOIDAL && o->tangent.method == MBS_JACOBIAN_ANALYTICAL &&
        !mbs_dynamics_derivatives_supported(m, why, sizeof why))
        return mbs_error_set(err, MBS_FATAL, "matrix-r: the Jacobian method 'analytical' "
                             "cannot be used on this model: %s; choose ad", why);
    if (R->integrator == INTEGRATOR_TRAPEZOIDAL && exact &&
        (mr_dual_workspace(m, R) || mr_analytical_workspace(m, R)))
        return mbs_error_set(err, MBS_FATAL, "out of memory");
    /* dgeqp3 workspace for (nr x n) and (r x nr), r <= min(n, nr) */
    {
        double q1 = 0.0, q2 = 0.0;
        int one = 1;
        if (nr > 0 && n > 0) {
            LAPACKE_dgeqp3_work(LAPACK_COL_MAJOR, nr, n, R->qr, nr, &one, R->tau, &q1, -1);
            int rm = nr < n ? nr : n;
            LAPACKE_dgeqp3_work(LAPACK_COL_MAJOR, rm, nr, R->qr, rm, &one, R->tau, &q2, -1);
            double q3 = 0.0;
            LAPACKE_dgeqp3_work(LAPACK_COL_MAJOR, n, nr, R->qr, n, &one, R->tau, &q3, -1);
            q2 = fmax(q2, q3);
        }
        R->lqrwork = (int)fmax(fmax(q1, q2), 3.0 * mx + 1.0) + 1;
        R->qrwork = mbs_calloc_doubles((size_t)R->lqrwork, &fail);
        if (fail)
            return mbs_error_set(err, MBS_FATAL, "out of memory");
    }

    for (int i = 0; i < R->dofs.count; ++i) {
        R->dofnode[i] = -1;
        int jt = R->dofs.items[i].joint;
        if (jt >= 0)
            continue;
        R->general = 1;
        int pt = R->dofs.items[i].point, ax = R->dofs.items[i].axis;
        if (pt < 0 || pt >= m->npoints || ax < 0 || ax > 2 ||
            m->topo->body_node[m->points[pt].body] < 0)
            return mbs_error_set(err, MBS_FATAL,
                                 "matrix-r: degree of freedom %d: point %d, axis %d is not a "
                                 "coordinate of a point of a moving body",
                                 i + 1, pt, ax);
    }
    if (R->general && R->sparse)
        return mbs_error_set(err, MBS_FATAL,
                             "matrix-r: natural coordinates as degrees of freedom are implemented "
                             "with dense algebra only (set sparse off)");
    if (R->general && R->integrator == INTEGRATOR_TRAPEZOIDAL &&
        mbs_jacobian_method_needs_dual(o->tangent.method))
        return mbs_error_set(err, MBS_FATAL,
                             "matrix-r: the Jacobian method '%s' does not cover point coordinates "
                             "as degrees of freedom; choose analytical, nd-forward or nd-central",
                             mbs_jacobian_method_name(o->tangent.method));
    for (int i = 0; i < R->dofs.count && R->general; ++i) {
        int jt = R->dofs.items[i].joint;
        if (jt < 0)
            continue;
        R->dofnode[i] = jt < m->njoints ? mr_find_node(m->topo, jt, R->dofs.items[i].coordinate) : -1;
        if (R->dofnode[i] < 0)
            return mbs_error_set(err, MBS_FATAL,
                                 "matrix-r: degree of freedom %d (joint %d, coordinate %d) is not "
                                 "a relative coordinate of the spanning tree",
                                 i + 1, jt, R->dofs.items[i].coordinate);
    }
    int status = mbs_assemble(m, st, 0.0, R->z, R->zd, NULL, err);
    if (status)
        return status;
    mbs_kinematics_positions(m, &R->kin, R->z);
    mbs_constraints_eval_pattern(m, &R->kin, 0.0, R->z, R->phi, R->phiz, R->phit);
    if ((status = mr_partition(f, R, err)))
        return status;
    R->d0 = R->d;
    fail = 0;
    R->pinned = mbs_calloc_doubles(mr_priors_record_size(R), &fail);
    if (fail)
        return mbs_error_set(err, MBS_FATAL, "out of memory");
    mr_factor_block(R);
    mr_estimate_rcond(R);
    R->rcond_ref = R->rcond_initial = R->rcond;
    R->gap_initial = R->general ? 1.0 : mr_constraints_rank_gap(R);
    if (R->rcond == 0.0)
        return mbs_error_set(err, MBS_FATAL, "matrix-r: the dependent block is singular (%s)",
                             R->event);
    memset(R->zdd, 0, sizeof(double) * (size_t)n); /* zdd_i is not needed here */
    memcpy(R->zdpred, R->zd, sizeof(double) * (size_t)n);
    independent_state(f, R, R->zi, R->zdi, R->zddi);
    if ((status = evaluate(f, R, 0.0, R->zi, R->zdi, err)))
        return status;
    if (solve_reduced(R, R->zddi))
        return mbs_error_set(err, MBS_FATAL,
                             "matrix-r: the reduced mass matrix R^T M R is not positive definite");
    full_accelerations(R, R->zddi);
    fill_monitors(f, R);
    return 0;
}

static void restore(MbsFormulation *f, MatrixR *R)
{
    size_t bytes = sizeof(double) * (size_t)R->n;
    memcpy(R->z, R->z0, bytes);
    memcpy(R->zd, R->zd0, bytes);
    memcpy(R->zdd, R->zdd0, bytes);
    R->generation++;
    mbs_kinematics_positions(f->model, &R->kin, R->z);
    mbs_kinematics_velocities(f->model, &R->kin, R->zd);
    mbs_constraints_eval_pattern(f->model, &R->kin, f->time, R->z, R->phi, R->phiz, R->phit);
    mr_factor_block_checked(R);
}

/* Dependent-coordinate guess for an evaluation at t0 + c h. */
static void predict(MatrixR *R, double ch)
{
    for (int k = 0; k < R->n; ++k) { /* the independent ones are then overwritten */
        R->z[k] = R->z0[k] + ch * R->zd0[k] + 0.5 * ch * ch * R->zdd0[k];
        R->zdpred[k] = R->zd0[k] + ch * R->zdd0[k];
    }
}

static int step_rk4(MbsFormulation *f, MatrixR *R, double h, MbsError *err)
{
    int d = R->d, status;
    double t0 = f->time;
    static const double c[4] = {0.0, 0.5, 0.5, 1.0};
    for (int k = 0; k < d; ++k) {
        R->vel[0][k] = R->zdi0[k];
        R->acc[0][k] = R->zddi0[k];
    }
    for (int stage = 1; stage < 4; ++stage) {
        double a = c[stage] * h;
        for (int k = 0; k < d; ++k) {
            R->zi[k] = R->zi0[k] + a * R->vel[stage - 1][k];
            R->zdi[k] = R->zdi0[k] + a * R->acc[stage - 1][k];
        }
        predict(R, a);
        if ((status = evaluate(f, R, t0 + a, R->zi, R->zdi, err)))
            return status;
        if (solve_reduced(R, R->acc[stage]))
            return mbs_error_set(err, MBS_RECOVERABLE,
                                 "matrix-r: R^T M R is not positive definite at t = %.6g s",
                                 t0 + a);
        memcpy(R->vel[stage], R->zdi, sizeof(double) * (size_t)d);
    }
    for (int k = 0; k < d; ++k) {
        R->zi[k] = R->zi0[k] + h / 6.0 *
                                   (R->vel[0][k] + 2.0 * R->vel[1][k] + 2.0 * R->vel[2][k] +
                                    R->vel[3][k]);
        R->zdi[k] = R->zdi0[k] + h / 6.0 *
                                     (R->acc[0][k] + 2.0 * R->acc[1][k] + 2.0 * R->acc[2][k] +
                                      R->acc[3][k]);
    }
    predict(R, h);
    if ((status = evaluate(f, R, t0 + h, R->zi, R->zdi, err)))
        return status;
    if (solve_reduced(R, R->zddi))
        return mbs_error_set(err, MBS_RECOVERABLE,
                             "matrix-r: R^T M R is not positive definite at t = %.6g s", t0 + h);
    full_accelerations(R, R->zddi);
    f->monitors.newton_iterations = R->step_pos_iterations;
    return 0;
}

/* The reduced trapezoidal residual g(z_i) = Mh zdd_i - rh, with zd_i and zdd_i following z_i
 * by the trapezoidal rule from the base point of reduced_tangent (z_i moved by step in column,
 * -1: not moved). Every call is a full evaluation (position and velocity problems, R^Phi, M,
 * Q), so the derivatives of R^Phi and S c (constraint reactions, convective terms) are
 * included; the dependent coordinates start from the first-order prediction z + step R^Phi e_k. */
static int reduced_residual(void *ctx, const double *zi, int column, double step, double *g)
{
    MatrixR *R = ctx;
    MbsFormulation *f = R->tangent_f;
    int n = R->n, d = R->d, status;
    double h = R->tangent_h;
    for (int j = 0; j < d; ++j) {
        R->zdip[j] = R->zdi[j];
        R->zddip[j] = R->zddi[j];
    }
    if (column >= 0) {
        R->zdip[column] += 2.0 / h * step;
        R->zddip[column] += 4.0 / (h * h) * step;
    }
    for (int i = 0; i < n; ++i)
        R->z[i] = column >= 0 ? R->zsave[i] + step * R->Rsave[i + (size_t)n * column]
                              : R->zsave[i];
    if ((status = evaluate(f, R, f->time + h, zi, R->zdip, R->tangent_err)))
        return status;
    for (int i = 0; i < d; ++i) {
        double v = -R->rh[i];
        for (int j = 0; j < d; ++j)
            v += R->Mh[i + (size_t)d * j] * R->zddip[j];
        g[i] = v;
    }
    return 0;
}

/* The current evaluation becomes the base point of the tangent (for a step of size h). */
static int reduced_tangent_base(MbsFormulation *f, MatrixR *R, double h, MbsError *err)
{
    size_t bytes = sizeof(double) * (size_t)R->n;
    memcpy(R->zsave, R->z, bytes);
    memcpy(R->zdsave, R->zd, bytes);
    memcpy(R->Rsave, R->Rz, bytes * (size_t)R->d);
    R->tangent_f = f;
    R->tangent_h = h;
    R->tangent_err = err;
    if (mbs_tangent_set_size(&R->tangent, R->d, R->d)) /* d <= n, the size it was made for */
        return mbs_error_set(err, MBS_FATAL, "matrix-r: the tangent cannot take %d degrees of "
                             "freedom", R->d);
    return 0;
}

/* Tangent dg/dz_i of the reduced trapezoidal residual through the tangent interface (forward
 * or central differences as "jacobian" says). On entry the evaluation at zi is current and g
 * holds its residual; on return T holds the LU factors. */
static int reduced_tangent(MbsFormulation *f, MatrixR *R, double h, MbsError *err)
{
    int n = R->n, d = R->d;
    double tc = mbs_clock_now();
    size_t bytes = sizeof(double) * (size_t)n;
    int status = reduced_tangent_base(f, R, h, err);
    if (!status)
        status = mbs_tangent_eval(&R->tangent, R->zi, R->g, R->T);
    if (status)
        return status;
    memcpy(R->z, R->zsave, bytes);
    memcpy(R->zd, R->zdsave, bytes);
    f->monitors.jacobian_evaluations++;
    R->t_jacobian += mbs_clock_now() - tc;
    if (LAPACKE_dgetrf_work(LAPACK_COL_MAJOR, d, d, R->T, d, R->ipiv_d) != 0)
        return mbs_error_set(err, MBS_RECOVERABLE,
                             "matrix-r: singular tangent of the trapezoidal rule at t = %.6g s",
                             f->time + h);
    return 0;
}

static int matrix_r_tangent_probe(MbsFormulation *f, MbsTangentProbe *probe, MbsError *err)
{
    MatrixR *R = f->impl;
    if (reduced_tangent_base(f, R, f->settings.step, err) ||
        reduced_residual(R, R->zi, -1, 0.0, R->g))
        return MBS_FATAL;
    *probe = (MbsTangentProbe){.tangent = &R->tangent, .x = R->zi, .r0 = R->g};
    return 0;
}

static void trapezoidal_derivatives(MatrixR *R, double h)
{
    for (int k = 0; k < R->d; ++k) {
        double dz = R->zi[k] - R->zi0[k];
        R->zdi[k] = 2.0 / h * dz - R->zdi0[k];
        R->zddi[k] = 4.0 / (h * h) * dz - 4.0 / h * R->zdi0[k] - R->zddi0[k];
    }
}

static int step_trapezoidal(MbsFormulation *f, MatrixR *R, double h, MbsError *err)
{
    const MatrixROptions *o = options(f);
    int d = R->d, status;
    double t1 = f->time + h;
    int reuse = o->tangent.reuse > 0 ? o->tangent.reuse : 1;
    /* an exact tangent offered for this step (the direct sensitivities') replaces the first
     * one, at the predictor */
    int start_tangent = R->tangent_offered && R->offered_h == h;
    R->tangent_offered = 0;
    for (int k = 0; k < d; ++k)
        R->zi[k] = R->zi0[k] + h * R->zdi0[k] + 0.5 * h * h * R->zddi0[k];
    predict(R, h);
    int converged = d == 0, it;
    double corr = INFINITY, previous = INFINITY;
    for (it = 0; it < o->newton.max_iterations && !converged; ++it) {
        trapezoidal_derivatives(R, h);
        if ((status = evaluate(f, R, t1, R->zi, R->zdi, err)))
            return status;
        /* g = Mh zdd_i - rh */
        for (int i = 0; i < d; ++i) {
            double v = -R->rh[i];
            for (int j = 0; j < d; ++j)
                v += R->Mh[i + (size_t)d * j] * R->zddi[j];
            R->g[i] = v;
        }
        MbsTracePhase *phase = f->trace ? mbs_trace_phase(f->trace, MBS_TRACE_NEWTON, it + 1)
                                        : NULL;
        if (phase) {
            phase->residual = mbs_vec_norminf(d, R->g);
            phase->tangent_evaluated = it % reuse == 0 && !(it == 0 && start_tangent);
        }
        /* the tangent's d or 2 d evaluations are not traced (they would bury the step) */
        MbsTrace *trace = f->trace;
        f->trace = NULL;
        status = it % reuse == 0 && !(it == 0 && start_tangent) ? reduced_tangent(f, R, h, err)
                                                                 : 0;
        f->trace = trace;
        if (status)
            return status;
        double tc = mbs_clock_now();
        for (int i = 0; i < d; ++i)
            R->delta[i] = -R->g[i];
        mbs_lu_solve(d, R->T, R->ipiv_d, R->delta, 1);
        R->t_solve += mbs_clock_now() - tc;
        corr = mbs_vec_norminf(d, R->delta);
        for (int k = 0; k < d; ++k)
            R->zi[k] += R->delta[k];
        if (!isfinite(corr))
            break;
        double bound;
        converged = mbs_newton_converged(&o->newton, h, 1.0 + mbs_vec_norminf(d, R->zi), corr,
                                         previous, &bound);
        previous = corr;
        mbs_trace_newton_end(phase, corr, bound, converged);
    }
    f->monitors.newton_iterations = it;
    if (!converged)
        return mbs_error_set(err, MBS_RECOVERABLE,
                             "matrix-r: Newton-Raphson of the trapezoidal rule did not converge at"
                             " t = %.6g s after %d iterations (last correction %.3g); try a "
                             "smaller step",
                             t1, it, corr);
    trapezoidal_derivatives(R, h);
    if ((status = evaluate(f, R, t1, R->zi, R->zdi, err)))
        return status;
    full_accelerations(R, R->zddi);
    return 0;
}

/* New automatic partition at the current (consistent) state, reported in R->event. */
static int repartition(MbsFormulation *f, MatrixR *R, const char *why, MbsError *err)
{
    R->tangent_offered = 0; /* in the old independent coordinates */
    double old = R->rcond;
    R->general = 0; /* a new partition is automatic, in relative coordinates */
    int status = mr_partition(f, R, err);
    if (status)
        return status;
    mr_factor_block(R);
    mr_estimate_rcond(R);
    R->rcond_ref = R->rcond;
    int len = (int)strlen(R->event);
    if (len < (int)sizeof R->event - 1)
        snprintf(R->event + len, sizeof R->event - (size_t)len, "; %s %.2g, now %.2g", why, old,
                 R->rcond);
    if (R->rcond == 0.0)
        return mbs_error_set(err, MBS_FATAL,
                             "matrix-r: no nonsingular dependent block at t = %.6g s", f->time);
    return 0;
}

static int matrix_r_step(MbsFormulation *f, double h, MbsError *err)
{
    MatrixR *R = f->impl;
    MbsMonitors *mo = &f->monitors;
    double t_start = mbs_clock_now();
    double tp0 = R->t_position + R->t_velocity, td0 = R->t_dynamics + R->t_reduced,
           tf0 = R->t_rz + R->t_solve, tj0 = R->t_jacobian;
    mo->jacobian_evaluations = 0;
    mo->newton_iterations = 0;
    R->step_pos_iterations = 0;

    /* repartition where the state is consistent */
    int status;
    if (R->rcond < R->rcond_ratio * R->rcond_ref &&
        (status = repartition(f, R, "the reciprocal condition of the dependent block fell to",
                              err)))
        return status;
    size_t bytes = sizeof(double) * (size_t)R->n;
    memcpy(R->z0, R->z, bytes);
    memcpy(R->zd0, R->zd, bytes);
    memcpy(R->zdd0, R->zdd, bytes);
    double power0 = R->power_nc;
    for (int attempt = 0;; ++attempt) {
        independent_state(f, R, R->zi0, R->zdi0, R->zddi0);
        status = R->integrator == INTEGRATOR_TRAPEZOIDAL ? step_trapezoidal(f, R, h, err) : step_rk4(f, R, h, err);
        if (status == 0)
            break;
        restore(f, R);
        /* a step that failed inside (singular block or no convergence of a Newton iteration)
         * is tried once more from a fresh partition */
        if (status < 0 || attempt > 0)
            return status;
        int rs = repartition(f, R, "a step failed; the reciprocal condition of the dependent "
                                   "block was", err);
        if (rs)
            return rs;
    }
    f->time += h;
    double tc = mbs_clock_now();
    fill_monitors(f, R);
    R->work_nc += 0.5 * h * (power0 + R->power_nc);
    mo->work_nonconservative = R->work_nc;
    mo->total = mo->kinetic + mo->potential_gravity + mo->potential_elastic - R->work_nc;
    R->t_dynamics += mbs_clock_now() - tc;
    mo->time_projection = R->t_position + R->t_velocity - tp0;
    mo->time_dynamics = R->t_dynamics + R->t_reduced - td0;
    mo->time_factorization = R->t_rz + R->t_solve - tf0;
    mo->time_jacobian = R->t_jacobian - tj0;
    mo->time_step = mbs_clock_now() - t_start;
    return 0;
}

static void matrix_r_body_pose(const MbsFormulation *f, int body, double Rm[9], double p[3])
{
    const MatrixR *R = f->impl;
    mbs_kin_body_pose(f->model, &R->kin, body, Rm, p);
}

static void matrix_r_point_velocity(const MbsFormulation *f, int body, const double r[3],
                                  double v[3])
{
    const MatrixR *R = f->impl;
    mbs_kin_point_motion(f->model, &R->kin, body, r, v, NULL);
}

static int matrix_r_ncoords(const MbsFormulation *f)
{
    return ((const MatrixR *)f->impl)->n;
}

static void matrix_r_coordinates(const MbsFormulation *f, double *q, double *qd)
{
    const MatrixR *R = f->impl;
    if (q)
        memcpy(q, R->z, sizeof(double) * (size_t)R->n);
    if (qd)
        memcpy(qd, R->zd, sizeof(double) * (size_t)R->n);
}

static void matrix_r_accelerations(const MbsFormulation *f, double *qdd)
{
    const MatrixR *R = f->impl;
    memcpy(qdd, R->zdd, sizeof(double) * (size_t)R->n);
}

static double matrix_r_joint_violation(const MbsFormulation *f, int joint)
{
    const MatrixR *R = f->impl;
    const MbsTopology *t = f->model->topo;
    double v = 0.0;
    for (int i = 0; i < t->joint_nrows[joint]; ++i)
        v = fmax(v, fabs(R->phi[t->joint_row[joint] + i]));
    return v;
}

/* State: z, zd, zdd (n each); work, power, the condition estimates that trigger a new
 * partition; the partition itself (mode, r, d, dep then ind: n entries, the kept rows: nr);
 * then what the last evaluation's damped solves were anchored on (mr_priors_record). */
enum { STATE_SCALARS = 7 };

static int matrix_r_state_size(const MbsFormulation *f)
{
    const MatrixR *R = f->impl;
    return 4 * R->n + R->nr + STATE_SCALARS + (int)mr_priors_record_size(R);
}

static double *priors_record(const MatrixR *R, double *state)
{
    return state + 4 * (size_t)R->n + (size_t)R->nr + STATE_SCALARS;
}

static void matrix_r_state_get(const MbsFormulation *f, double *state)
{
    const MatrixR *R = f->impl;
    int n = R->n;
    size_t bytes = sizeof(double) * (size_t)n;
    memcpy(state, R->z, bytes);
    memcpy(state + n, R->zd, bytes);
    memcpy(state + 2 * n, R->zdd, bytes);
    double *x = state + 3 * n;
    x[0] = R->work_nc;
    x[1] = R->power_nc;
    x[2] = R->rcond;
    x[3] = R->rcond_ref;
    x[4] = R->general;
    x[5] = R->r;
    x[6] = R->d;
    x += STATE_SCALARS;
    for (int k = 0; k < R->r; ++k)
        x[k] = R->dep[k];
    for (int k = 0; k < R->d; ++k)
        x[R->r + k] = R->ind[k];
    for (int k = 0; k < R->nr; ++k)
        x[n + k] = k < R->r ? R->rows[k] : -1;
    mr_priors_record(R, priors_record(R, state));
}

int mbs_matrix_r_pin_priors(MbsFormulation *f, const MbsCheckpoint *c)
{
    MatrixR *R = mr_impl(f);
    if (!R || !c || c->size != matrix_r_state_size(f) || R->d != R->d0 || !R->pinned)
        return -1;
    memcpy(R->pinned, priors_record(R, c->state), sizeof(double) * mr_priors_record_size(R));
    R->pin = 1;
    return 0;
}

/* Apply a partition from a checkpoint when it differs from the current one. */
static int set_partition(MbsFormulation *f, MatrixR *R, const double *x, MbsError *err)
{
    int general = (int)x[4], r = (int)x[5], d = (int)x[6], n = R->n, nr = R->nr;
    const double *p = x + STATE_SCALARS;
    int same = general == R->general && r == R->r && d == R->d;
    for (int k = 0; same && k < r; ++k)
        same = R->dep[k] == (int)p[k] && R->rows[k] == (int)p[n + k];
    for (int k = 0; same && k < d; ++k)
        same = R->ind[k] == (int)p[r + k];
    if (same)
        return 0;
    if (r < 0 || d < 0 || r + d != n || r > nr)
        return mbs_error_set(err, MBS_FATAL, "matrix-r: the checkpoint's partition does not fit "
                             "this model");
    R->general = general;
    R->r = r;
    R->d = d;
    for (int k = 0; k < n; ++k)
        R->depidx[k] = -1;
    for (int k = 0; k < nr; ++k)
        R->rowidx[k] = -1;
    for (int k = 0; k < r; ++k) {
        R->dep[k] = (int)p[k];
        R->rows[k] = (int)p[n + k];
        R->depidx[R->dep[k]] = k;
        R->rowidx[R->rows[k]] = k;
    }
    for (int k = 0; k < d; ++k)
        R->ind[k] = (int)p[r + k];
    R->kpattern = 0;
    return R->sparse && !general && r > 0 ? mr_sparse_pattern(f, R, err) : 0;
}

static int matrix_r_state_set(MbsFormulation *f, const double *state, MbsError *err)
{
    MatrixR *R = f->impl;
    R->tangent_offered = 0;
    const MbsModel *m = f->model;
    int n = R->n, status;
    size_t bytes = sizeof(double) * (size_t)n;
    const double *x = state + 3 * n;
    if ((status = set_partition(f, R, x, err)))
        return status;
    memcpy(R->z, state, bytes);
    memcpy(R->zd, state + n, bytes);
    memcpy(R->zdd, state + 2 * n, bytes);
    R->work_nc = x[0];
    R->power_nc = x[1];
    R->rcond = x[2];
    R->rcond_ref = x[3];
    if (!R->general && options(f)->damping > 0.0)
        mr_priors_restore(R, priors_record(R, (double *)state));
    R->generation++;
    /* the block is factorized again by the next evaluation before any use */
    mbs_kinematics_positions(m, &R->kin, R->z);
    mbs_kinematics_velocities(m, &R->kin, R->zd);
    mbs_constraints_eval_pattern(m, &R->kin, f->time, R->z, R->phi, R->phiz, R->phit);
    /* the independent state too: a tangent probe (matrix_r_tangent_probe) reads it, and a
     * step sets it again from z, zd, zdd */
    independent_state(f, R, R->zi, R->zdi, R->zddi);
    return 0;
}

/* Phase times and counters accumulated since init or the last reset (eslabon-cli bench
 * matrix-r), and the partition. */
static int matrix_r_statistics(const MbsFormulation *f, MbsStatistic *out, int capacity)
{
    const MatrixR *R = f->impl;
    const MbsStatistic all[] = {
        {"time_position", R->t_position, "s"},
        {"time_velocity", R->t_velocity, "s"},
        {"time_rz", R->t_rz, "s"},
        {"time_dynamics", R->t_dynamics, "s"},
        {"time_reduced", R->t_reduced, "s"},
        {"time_solve", R->t_solve, "s"},
        {"time_jacobian", R->t_jacobian, "s"},
        {"evaluations", (double)R->evaluations, ""},
        {"position_iterations", (double)R->position_iterations, ""},
        {"partitions", (double)R->partitions, ""},
        {"independent_coordinates", (double)R->d, ""},
        {"dependent_block_rcond", R->rcond, ""},
        {"singular_evaluations", (double)R->singular_evaluations, ""},
        {"block_factorizations", (double)R->block_factorizations, ""},
        {"damped_factorizations", (double)R->damped_factorizations, ""},
        {"rank_gap_checks", (double)R->rank_gap_checks, ""},
        {"rank_gap_qrs", (double)R->rank_gap_qrs, ""},
    };
    int count = (int)(sizeof all / sizeof all[0]);
    for (int i = 0; i < count && i < capacity; ++i)
        out[i] = all[i];
    return count;
}

static void matrix_r_reset_statistics(MbsFormulation *f)
{
    MatrixR *R = f->impl;
    R->t_position = R->t_velocity = R->t_rz = R->t_dynamics = R->t_reduced = R->t_solve =
        R->t_jacobian = 0.0;
    R->evaluations = 0;
    R->position_iterations = 0;
    R->block_factorizations = R->damped_factorizations = R->rank_gap_checks = R->rank_gap_qrs = 0;
    R->singular_evaluations = 0;
}

/* --- settings -------------------------------------------------------------------------- */

static int dofs_to_json(const void *value, char *buf, size_t size)
{
    const MbsDofList *l = value;
    if (l->count == 0)
        return snprintf(buf, size, "null");
    int len = snprintf(buf, size, "[");
    for (int i = 0; i < l->count && len >= 0 && (size_t)len < size; ++i) {
        const MbsDofChoice *d = &l->items[i];
        len += d->joint >= 0
                   ? snprintf(buf + len, size - (size_t)len, "%s{\"joint\": %d, \"coordinate\": %d}",
                              i ? ", " : "", d->joint, d->coordinate)
                   : snprintf(buf + len, size - (size_t)len, "%s{\"point\": %d, \"axis\": %d}",
                              i ? ", " : "", d->point, d->axis);
    }
    if (len >= 0 && (size_t)len < size)
        len += snprintf(buf + len, size - (size_t)len, "]");
    return len;
}

static const char *skip_space(const char *p)
{
    while (*p == ' ' || *p == '\n' || *p == '\t' || *p == '\r')
        p++;
    return p;
}

/* null, [] or [{"joint": J, "coordinate": C} | {"point": P, "axis": A}, ...] */
static int dofs_from_json(const char *text, void *value, MbsError *err)
{
    MbsDofList l = {0};
    const char *p = skip_space(text);
    if (!strncmp(p, "null", 4) && !*skip_space(p + 4)) {
        *(MbsDofList *)value = l;
        return 0;
    }
    if (*p++ != '[')
        goto bad;
    p = skip_space(p);
    if (*p == ']') {
        l.count = MBS_MATRIX_R_AUTOMATIC;
        p++;
    }
    while (l.count >= 0 && *p != ']') {
        if (l.count >= MBS_MATRIX_R_MAX_DOFS)
            return mbs_error_set(err, MBS_FATAL, "dof: at most %d degrees of freedom",
                                 MBS_MATRIX_R_MAX_DOFS);
        MbsDofChoice d = {.joint = -1, .coordinate = 0, .point = -1, .axis = 0};
        p = skip_space(p);
        if (*p++ != '{')
            goto bad;
        for (;;) {
            char key[16];
            int used = 0;
            long v;
            p = skip_space(p);
            if (sscanf(p, "\"%15[a-z]\" :%n", key, &used) != 1 || used == 0)
                goto bad;
            char *end;
            v = strtol(p + used, &end, 10);
            if (end == p + used || v < -1 || v > 1000000)
                goto bad;
            if (!strcmp(key, "joint"))
                d.joint = (int)v;
            else if (!strcmp(key, "coordinate"))
                d.coordinate = (int)v;
            else if (!strcmp(key, "point"))
                d.point = (int)v;
            else if (!strcmp(key, "axis"))
                d.axis = (int)v;
            else
                goto bad;
            p = skip_space(end);
            if (*p == ',') {
                p++;
                continue;
            }
            if (*p++ != '}')
                goto bad;
            break;
        }
        l.items[l.count++] = d;
        p = skip_space(p);
        if (*p == ',')
            p++;
        else if (*p != ']')
            goto bad;
    }
    if (l.count >= 0)
        p++;
    if (*skip_space(p))
        goto bad;
    *(MbsDofList *)value = l;
    return 0;
bad:
    return mbs_error_set(err, MBS_FATAL,
                         "dof: '%.60s' is not null, [] or a list of {\"joint\", \"coordinate\"} "
                         "and {\"point\", \"axis\"}", text);
}

/* JOINT[:COORD], BODY:POINT:x|y|z or auto (which goes alone). */
static int dofs_add_item(const MbsModel *m, const char *text, void *value, MbsError *err)
{
    MbsDofList *l = value;
    if (!strcmp(text, "auto")) {
        if (l->count != 0)
            return mbs_error_set(err, MBS_FATAL, "dof: auto goes alone");
        l->count = MBS_MATRIX_R_AUTOMATIC;
        return 0;
    }
    if (l->count < 0)
        return mbs_error_set(err, MBS_FATAL, "dof: auto goes alone");
    if (l->count >= MBS_MATRIX_R_MAX_DOFS)
        return mbs_error_set(err, MBS_FATAL, "dof: at most %d", MBS_MATRIX_R_MAX_DOFS);
    char part[3][2 * MBS_NAME_MAX];
    int n = 0;
    const char *p = text;
    for (; n < 3; ++n) {
        const char *colon = strchr(p, ':');
        size_t len = colon ? (size_t)(colon - p) : strlen(p);
        if (len >= sizeof part[n])
            break;
        memcpy(part[n], p, len);
        part[n][len] = '\0';
        if (!colon) {
            n++;
            break;
        }
        p = colon + 1;
    }
    MbsDofChoice d = {.joint = -1, .coordinate = 0, .point = -1, .axis = 0};
    int joint = n <= 2 ? mbs_model_find_joint(m, part[0]) : -1;
    if (n >= 1 && n <= 2 && joint >= 0) {
        d.joint = joint;
        d.coordinate = n == 2 ? atoi(part[1]) : 0;
    } else {
        int body = n == 3 ? mbs_model_find_body(m, part[0]) : -1;
        int point = body >= 0 ? mbs_model_find_point(m, body, part[1]) : -1;
        const char *axes = "xyz";
        const char *a = n == 3 && strlen(part[2]) == 1 ? strchr(axes, part[2][0]) : NULL;
        if (point < 0 || !a)
            return mbs_error_set(err, MBS_FATAL, "--dof '%s' is neither JOINT[:COORD] nor "
                                 "BODY:POINT:x|y|z of this model", text);
        d.point = point;
        d.axis = (int)(a - axes);
    }
    l->items[l->count++] = d;
    return 0;
}

_Static_assert(MBS_MATRIX_R_MAX_DOFS <= MBS_SETTINGS_LIST_MAX, "an editor's room for the list");

static int dofs_get_items(const void *value, MbsDofChoice *items)
{
    const MbsDofList *l = value;
    for (int i = 0; i < l->count && i < MBS_MATRIX_R_MAX_DOFS; ++i)
        items[i] = l->items[i];
    return l->count;
}

static void dofs_set_items(void *value, int count, const MbsDofChoice *items)
{
    MbsDofList *l = value;
    l->count = count < MBS_MATRIX_R_MAX_DOFS ? count : MBS_MATRIX_R_MAX_DOFS;
    for (int i = 0; i < l->count; ++i)
        l->items[i] = items[i];
}

/* The model's degrees of freedom at the default assembly tolerance. */
static int dofs_needed(const MbsModel *m)
{
    MbsSettings common;
    mbs_settings_defaults(&common);
    return mbs_matrix_r_degrees_of_freedom(m, &common);
}

static const MbsSettingList dofs_list = {
    .to_json = dofs_to_json,
    .from_json = dofs_from_json,
    .add_item = dofs_add_item,
    .item_syntax = "JOINT[:COORD], BODY:POINT:x|y|z or auto",
    .max_items = MBS_MATRIX_R_MAX_DOFS,
    .get_items = dofs_get_items,
    .set_items = dofs_set_items,
    .needed = dofs_needed,
};

static int trapezoidal(const MbsModel *m, const void *options)
{
    (void)m;
    return !options || ((const MatrixROptions *)options)->integrator == INTEGRATOR_TRAPEZOIDAL;
}

static const char *const integrator_choices[] = {"rk4", "trapezoidal", NULL};
static const char *const integrator_labels[] = {MBS_N_("RK4 (explicit)"),
                                                MBS_N_("trapezoidal (implicit)"), NULL};
static const char *const algebra_choices[] = {"dense", "sparse", NULL};
static const char *const algebra_labels[] = {MBS_N_("dense (LAPACK)"), MBS_N_("sparse (KLU)"),
                                             NULL};

static const MbsSetting matrix_r_items[] = {
    {.name = "integrator", .type = MBS_SETTING_CHOICE,
     .offset = offsetof(MatrixROptions, integrator), .default_value = INTEGRATOR_RK4,
     .choices = integrator_choices, .choice_labels = integrator_labels,
     .label = MBS_N_("Integrator"),
     .description = MBS_N_("Explicit RK4 (paper 003) or implicit trapezoidal rule (paper 001)")},
    {.name = "algebra", .type = MBS_SETTING_CHOICE, .offset = offsetof(MatrixROptions, sparse),
     .default_value = 0, .choices = algebra_choices, .choice_labels = algebra_labels,
     .label = MBS_N_("Linear algebra"),
     .description = MBS_N_("Dense LAPACK or sparse KLU factorizations of the dependent block")},
    {.name = "rcond", .type = MBS_SETTING_NUMBER, .offset = offsetof(MatrixROptions, rcond),
     .default_value = 0.1, .min = 0.0, .max = 1.0, .label = MBS_N_("Repartition below"),
     .description = MBS_N_("A new choice of independent coordinates when the condition estimate "
                           "of the dependent block falls below this fraction of its value "
                           "after the last choice (1: every step)")},
    {.name = "damping", .type = MBS_SETTING_NUMBER, .offset = offsetof(MatrixROptions, damping),
     .default_value = 1e-1, .min = 0.0, .max = 0.5,
     .label = MBS_N_("Damping near singular positions"),
     .description = MBS_N_("Near a singular position (the dependent block's reciprocal "
                           "condition below this fraction of its initial value) the dependent "
                           "coordinates are solved by damped least squares: directions whose "
                           "singular value is below that fraction follow the step's prediction "
                           "(0: plain solves)")},
    {.name = "dof", .type = MBS_SETTING_LIST, .offset = offsetof(MatrixROptions, dofs),
     .list = &dofs_list, .label = MBS_N_("Independent coordinates"),
     .description = MBS_N_("The coordinates matrix-r integrates; the others follow from the "
                           "constraints. Default: the model file's list, else the automatic "
                           "partition (pivoted QR)")},
    {.name = "newton", .type = MBS_SETTING_GROUP, .offset = offsetof(MatrixROptions, newton),
     .group = &mbs_newton_settings},
    /* the trapezoidal rule's Newton iteration reuses its tangent (serial differences: one
     * evaluation uses all of the formulation's workspace) */
    {.name = "tangent", .type = MBS_SETTING_GROUP, .offset = offsetof(MatrixROptions, tangent),
     .group = &mbs_tangent_serial_settings, .applies = trapezoidal},
};

static const MbsSettingTable matrix_r_settings = {
    .name = "matrix-r",
    .items = matrix_r_items, .count = 7, .size = sizeof(MatrixROptions)};

MbsNewtonOptions *mbs_matrix_r_newton_options(MbsSettings *s)
{
    mbs_settings_use_options(s, &matrix_r_settings);
    return &((MatrixROptions *)(void *)s->options.bytes)->newton;
}

int mbs_matrix_r_degrees_of_freedom(const MbsModel *m, const MbsSettings *s)
{
    if (!m->topo)
        return -1;
    int n = mbs_model_ncoords(m);
    double *z = calloc((size_t)n + 1, sizeof(double)), *zd = calloc((size_t)n + 1, sizeof(double));
    MbsError ignored = {0};
    int rank = z && zd && mbs_assemble(m, s, 0.0, z, zd, NULL, &ignored) == 0
                   ? mbs_constraints_rank(m, 0.0, z)
                   : -1;
    free(z);
    free(zd);
    return rank < 0 ? -1 : n - rank;
}

/* The number of independent coordinates chosen must be the model's degrees of freedom (where
 * the model does not assemble, init says so). */
static int matrix_r_check_settings(const MbsModel *m, const MbsSettings *s, MbsError *err)
{
    const MatrixROptions *o = (const MatrixROptions *)(const void *)s->options.bytes;
    MbsDofList dofs;
    if (resolve_dofs(m, &o->dofs, &dofs, err))
        return MBS_FATAL;
    int needed = dofs.count > 0 ? mbs_matrix_r_degrees_of_freedom(m, s) : -1;
    if (needed >= 0 && needed != dofs.count)
        return mbs_error_set(err, MBS_FATAL,
                             "matrix-r: the model has %d degrees of freedom but %d were given",
                             needed, dofs.count);
    return 0;
}

const MbsFormulationClass mbs_matrix_r_class = {
    .name = "matrix-r",
    .tangent_dense_only = 1,
    .tangent_offers_dual = 1,
    .tangent_probe = matrix_r_tangent_probe,
    .tangent_offers_analytical = 1,
    .description = MBS_N_("Semi-recursive Matrix R (double velocity transformation), "
                          "coordinate partitioning by pivoted QR, RK4 or trapezoidal rule, "
                          "dense LAPACK or sparse KLU (papers 001, 003)"),
    .settings = &matrix_r_settings,
    .check_settings = matrix_r_check_settings,
    .init = matrix_r_init,
    .step = matrix_r_step,
    .finalize = matrix_r_finalize,
    .body_pose = matrix_r_body_pose,
    .point_velocity = matrix_r_point_velocity,
    .ncoords = matrix_r_ncoords,
    .coordinates = matrix_r_coordinates,
    .accelerations = matrix_r_accelerations,
    .joint_violation = matrix_r_joint_violation,
    .state_size = matrix_r_state_size,
    .state_get = matrix_r_state_get,
    .state_set = matrix_r_state_set,
    .statistics = matrix_r_statistics,
    .reset_statistics = matrix_r_reset_statistics,
};

int mbs_matrix_r_stats(const MbsFormulation *f, MbsMatrixRStats *out)
{
    if (!f || f->klass != &mbs_matrix_r_class || !f->impl)
        return -1;
    const MatrixR *R = f->impl;
    out->ncoords = R->n;
    out->nindependent = R->d;
    out->ndependent = R->r;
    out->nrows = R->nr;
    out->independent = R->ind;
    out->dependent = R->dep;
    out->rows = R->rows;
    out->partitions = R->partitions;
    out->last_partition_time = R->last_partition_time;
    out->rcond = R->rcond;
    out->last_event = R->event;
    out->evaluations = R->evaluations;
    out->position_iterations = R->position_iterations;
    out->t_position = R->t_position;
    out->t_velocity = R->t_velocity;
    out->t_rz = R->t_rz;
    out->t_dynamics = R->t_dynamics;
    out->t_reduced = R->t_reduced;
    out->t_solve = R->t_solve;
    out->t_jacobian = R->t_jacobian;
    return 0;
}


/* --- sensitivity analysis (sens_matrix_r.c) ------------------------------------------- */

MatrixR *mr_impl(const MbsFormulation *f)
{
    return f && f->klass == &mbs_matrix_r_class ? f->impl : NULL;
}

int mbs_matrix_r_independent_state(const MbsFormulation *f, double *zi, double *zdi,
                                   double *zddi)
{
    MatrixR *R = mr_impl(f);
    if (!R)
        return -1;
    independent_state(f, R, R->zi0, R->zdi0, R->zddi0);
    size_t bytes = sizeof(double) * (size_t)R->d;
    if (zi)
        memcpy(zi, R->zi0, bytes);
    if (zdi)
        memcpy(zdi, R->zdi0, bytes);
    if (zddi)
        memcpy(zddi, R->zddi0, bytes);
    return R->d;
}

long mbs_matrix_r_partitions(const MbsFormulation *f)
{
    const MatrixR *R = mr_impl(f);
    return R ? R->partitions : -1;
}

int mbs_matrix_r_constant_b(const MbsFormulation *f)
{
    const MatrixR *R = mr_impl(f);
    return R && !R->general;
}

int mbs_matrix_r_trapezoidal(const MbsFormulation *f)
{
    const MatrixR *R = mr_impl(f);
    return R && R->integrator == INTEGRATOR_TRAPEZOIDAL;
}

int mbs_matrix_r_settings_trapezoidal(const MbsSettings *s)
{
    return mbs_settings_number(s, "integrator") == (double)INTEGRATOR_TRAPEZOIDAL;
}

const int *mbs_matrix_r_independent_nodes(const MbsFormulation *f)
{
    const MatrixR *R = mr_impl(f);
    return R ? R->ind : NULL;
}

int mbs_matrix_r_reduced_residual(MbsFormulation *f, double t, const double *z_guess,
                                  const double *zi, const double *zdi, const double *zddi,
                                  double *F, MbsError *err)
{
    MatrixR *R = mr_impl(f);
    if (!R)
        return mbs_error_set(err, MBS_FATAL, "not a matrix-r formulation");
    int status;
    memcpy(R->z, z_guess, sizeof(double) * (size_t)R->n);
    if ((status = evaluate(f, R, t, zi, zdi, err)))
        return status;
    mbs_matrix_r_current_residual(f, zddi, F);
    return 0;
}

void mbs_matrix_r_offer_tangent(MbsFormulation *f, double h, const double *lu, const int *ipiv)
{
    MatrixR *R = mr_impl(f);
    if (!R)
        return;
    size_t d = (size_t)R->d;
    memcpy(R->T, lu, sizeof(double) * d * d);
    memcpy(R->ipiv_d, ipiv, sizeof(int) * d);
    R->tangent_offered = 1;
    R->offered_h = h;
}

int mbs_matrix_r_residual(MbsFormulation *f, double t, const double *z_guess, const double *zi,
                          const double *zdi, const double *zddi, double *F, MbsError *err)
{
    MatrixR *R = mr_impl(f);
    if (!R)
        return mbs_error_set(err, MBS_FATAL, "not a matrix-r formulation");
    memcpy(R->z, z_guess, sizeof(double) * (size_t)R->n);
    R->residual_only = 1;
    int status = evaluate(f, R, t, zi, zdi, err);
    R->residual_only = 0;
    if (status)
        return status;
    full_accelerations(R, zddi);
    /* F = R^T (M zdd - Q): the forces kernel with the accelerations in D gives Q - M zdd */
    MbsKinematics with_zdd = R->kin;
    mbs_kinematics_accelerations(f->model, &R->kin, R->zdd, R->node_acc, R->node_D);
    with_zdd.D = R->node_D;
    mbs_dynamics_forces(f->model, &with_zdd, &R->dyn, R->z, R->zd, R->w);
    if (R->d > 0)
        mbs_gemv(1, R->n, R->d, -1.0, R->Rz, R->n, R->w, 0.0, F);
    return 0;
}

void mbs_matrix_r_current_residual(MbsFormulation *f, const double *zddi, double *F)
{
    MatrixR *R = f->impl;
    int d = R->d;
    for (int i = 0; i < d; ++i) {
        double v = -R->rh[i];
        for (int j = 0; j < d; ++j)
            v += R->Mh[i + (size_t)d * j] * zddi[j];
        F[i] = v;
    }
    full_accelerations(R, zddi);
}

void mbs_matrix_r_checkpoint_coordinates(const MbsCheckpoint *c, int n, const double **z,
                                         const double **zd, const double **zdd)
{
    *z = c->state; /* matrix_r_state_get's layout */
    *zd = c->state + n;
    *zdd = c->state + 2 * (size_t)n;
}

int mbs_matrix_r_checkpoint_independent(const MbsCheckpoint *c, int n, int *ind)
{
    const double *x = c->state + 3 * (size_t)n; /* matrix_r_state_get's layout */
    int r = (int)x[5], d = (int)x[6];
    for (int k = 0; k < d; ++k)
        ind[k] = (int)x[STATE_SCALARS + r + k];
    return d;
}

const double *mbs_matrix_r_checkpoint_partition(const MbsCheckpoint *c, int n, int nr,
                                                int *count)
{
    *count = STATE_SCALARS - 4 + n + nr;
    return c->state + 3 * (size_t)n + 4;
}

void mbs_matrix_r_view(const MbsFormulation *f, MbsMatrixRView *view)
{
    const MatrixR *R = mr_impl(f);
    *view = (MbsMatrixRView){.n = R->n, .d = R->d, .z = R->z, .zd = R->zd, .zdd = R->zdd,
                             .Rz = R->Rz, .Sc = R->s, .Mh = R->Mh, .kin = &R->kin};
}
