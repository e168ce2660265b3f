/* matrix-r's exact tangents of its reduced trapezoidal residual — `ad` (forward-mode AD over
 * the constraint, kinematics and dynamics kernels) and `analytical` (hand-written derivatives:
 * mbs_constraints_derivatives.c, mbs_dynamics_derivatives.c) — and the directional derivatives
 * of the reduced equations that matrix-r's sensitivities reuse (docs/architecture.md § matrix-r
 * ad and analytical; paper 001 eqs 24-25 and 50-52). */
#include <klu.h>
#include <lapacke.h>
#include <stdlib.h>
#include <string.h>

#include "form_matrix_r_private.h"
#include "mbs_alloc.h"
#include "mbs_constraints.h"
#include "mbs_linalg.h"
#include "mbs_topology.h"

/* --- the tangent by automatic differentiation (method ad) --------------------------------
 * The reduced residual g = R^T G, G = M zdd - Q (= Mh zdd_i - rh), differentiated along seeded
 * directions dz_i (with dzd_i = 2/h dz_i, dzdd_i = 4/h^2 dz_i: the trapezoidal rule) without
 * solving the position problem again: the evaluation's implicit functions have the derivatives
 * (paper 001 eqs 24-25 and 50-52, A = Phi_z[rows, dep], S y = y solved by A on dep, 0 on ind)
 *   dz   = R dz_i                                        (Phi(z) = 0 held)
 *   dzd  = R dzd_i  + S (-dPhi_z zd)                      (Phi_z zd = -Phi_t)
 *   dzdd = R dzdd_i + S (-dPhi_z zdd - dbias)             (Phi_z zdd = -bias)
 *   dR   = S (-dPhi_z R),  so  dg = R^T (dG - dPhi_z^T mu),  mu = A^-T G[dep]
 * where dPhi_z = Phi_zz[dz] and dbias, dG come from the constraint, kinematics and dynamics
 * kernels compiled over dual numbers (mbs_dual.h: the same source as the evaluation; G by the
 * forces with the accelerations in the kinematics, mbs_kinematics_motion). One dual pass gives
 * MBS_DUAL_WIDTH columns: no difference increment, no position Newton per column. */

int mr_dual_workspace(const MbsModel *m, MatrixR *R)
{
    int n = R->n, nr = R->nr, fail = 0;
    size_t W = MBS_DUAL_WIDTH, nn = (size_t)(n > 0 ? n : 1);
    if (mbs_kinematics_init_dual(&R->kd, m) || mbs_dynamics_init_dual(&R->dd, m))
        return -1;
    R->kd.clock = &R->f->clock;
    R->zD = calloc(nn, sizeof(MbsDual));
    R->zdD = calloc(nn, sizeof(MbsDual));
    R->zddD = calloc(nn, sizeof(MbsDual));
    R->QD = calloc(nn, sizeof(MbsDual));
    R->biasD = calloc((size_t)(nr > 0 ? nr : 1), sizeof(MbsDual));
    R->rowD = calloc((size_t)(nr > 0 ? nr : 1), sizeof(MbsDual));
    R->mu_rows = mbs_calloc_doubles((size_t)(nr > 0 ? nr : 1), &fail);
    R->seed = mbs_calloc_doubles(nn * W, &fail);
    R->dirz = mbs_calloc_doubles(nn * W, &fail);
    R->dirv = mbs_calloc_doubles(nn * W, &fail);
    R->dira = mbs_calloc_doubles(nn * W, &fail);
    R->ydir = mbs_calloc_doubles(nn * W, &fail);
    R->zdd_base = mbs_calloc_doubles(nn, &fail);
    R->dF = mbs_calloc_doubles(nn * W, &fail);
    R->wseed = mbs_calloc_doubles(3 * nn * W, &fail);
    R->Fval = mbs_calloc_doubles(nn, &fail);
    R->mu_base = mbs_calloc_doubles(nn, &fail);
    return fail || !R->zD || !R->zdD || !R->zddD || !R->QD || !R->biasD || !R->rowD ? -1 : 0;
}

/* Y (r x W) := A^-1 Y, the directions' dependent parts (the evaluation's solve: damped near a
 * singular position, as the values were). */
static void solve_block_directions(MatrixR *R, double *Y)
{
    int r = R->r;
    if (!R->singular) {
        mr_solve_block(R, Y, MBS_DUAL_WIDTH);
        return;
    }
    for (int w = 0; w < MBS_DUAL_WIDTH; ++w)
        mr_damped_solve(R, Y + (size_t)r * w, NULL);
}

/* mu := A^-T mu (r; Theta^-T, n, with point coordinates as DOFs). Near a singular position the
 * transpose A (A^T A + mu^2 I)^-1 of the damped solve's (A^T A + mu^2 I)^-1 A^T. */
static void solve_block_transposed(MatrixR *R, double *mu)
{
    int r = R->r;
    if (R->general) { /* Theta (n x n), dense */
        LAPACKE_dgetrs_work(LAPACK_COL_MAJOR, 'T', R->n, 1, R->A, R->n, R->ipiv, mu, R->n);
        return;
    }
    if (r == 0)
        return;
    if (R->singular)
        mr_damped_solve_transposed(R, mu);
    else if (!R->sparse) {
        LAPACKE_dgetrs_work(LAPACK_COL_MAJOR, 'T', r, 1, R->A, r, R->ipiv, mu, r);
    } else {
        klu_tsolve(R->Sym, R->Num, r, 1, mu, &R->common);
    }
}

/* out[:, w] = R^Phi seed[:, w] * scale + S y[:, w] for the W directions (seed NULL: zero; y:
 * r x W of right-hand sides for A, solved here, or NULL), out n x W. */
static void directions(MatrixR *R, const double *seed, double scale, double *y, double *out)
{
    int n = R->n, d = R->d, r = R->r, W = MBS_DUAL_WIDTH;
    if (d > 0 && seed)
        mbs_gemm(0, n, W, d, scale, R->Rz, n, seed, d, 0.0, out, n);
    else
        memset(out, 0, sizeof(double) * (size_t)n * W);
    if (!y || r == 0)
        return;
    solve_block_directions(R, y);
    for (int w = 0; w < W; ++w)
        for (int i = 0; i < r; ++i)
            out[R->dep[i] + (size_t)n * w] += y[i + (size_t)r * w];
}

/* y[i, w] = -(Phi_zz[dz_w] v)[rows_i] (r x W) for a real v: the velocity constraints with v
 * as velocities at the seeded positions (mbs_constraints_velocity). Overwrites the dual
 * velocities and R->zddD. */
static void phizz_times(const MbsModel *m, MatrixR *R, const double *v, double *y)
{
    int r = R->r;
    for (int i = 0; i < R->n; ++i)
        R->zddD[i] = mbs_dual_constant(v[i]);
    mbs_kinematics_velocities_dual(m, &R->kd, R->zddD);
    mbs_constraints_velocity_dual(m, &R->kd, R->zddD, R->rowD);
    for (int i = 0; i < r; ++i)
        for (int w = 0; w < MBS_DUAL_WIDTH; ++w)
            y[i + (size_t)r * w] = -R->rowD[R->rows[i]].d[w];
}

static void to_dual(int n, const double *v, const double *dir, MbsDual *out)
{
    for (int i = 0; i < n; ++i) {
        out[i].v = v[i];
        for (int w = 0; w < MBS_DUAL_WIDTH; ++w)
            out[i].d[w] = dir[i + (size_t)n * w];
    }
}

/* dF (d x W) along the directions dz_i = cz sz, dzd_i = cv sv, dzdd_i = ca sa (d x W each,
 * NULL: zero) of the reduced equations F = R^T (M zdd - Q) at the current evaluation (R->z,
 * zd, R^Phi, S c, the factorized block) at time t with independent accelerations zddi; F in
 * R->Fval, the full directions dz, dzd, dzdd in R->dirz, dirv, dira (n x W). */
static void reduced_directions(MatrixR *R, double t, const double *zddi, const double *sz,
                               double cz, const double *sv, double cv, const double *sa,
                               double ca, double *dF)
{
    const MbsModel *m = R->f->model;
    int n = R->n, d = R->d, r = R->r, nr = R->nr, W = MBS_DUAL_WIDTH;
    /* positions along dz = R dz_i */
    directions(R, sz, cz, NULL, R->dirz);
    to_dual(n, R->z, R->dirz, R->zD);
    mbs_kinematics_positions_dual(m, &R->kd, R->zD);
    /* velocities and the bias */
    phizz_times(m, R, R->zd, R->ydir);
    directions(R, sv, cv, R->ydir, R->dirv);
    to_dual(n, R->zd, R->dirv, R->zdD);
    mbs_kinematics_velocities_dual(m, &R->kd, R->zdD);
    mbs_constraints_bias_dual(m, &R->kd, t, R->biasD);
    /* accelerations zdd = R zdd_i + S c (the bias is kept before phizz_times moves the
     * velocities) */
    double *zdd = R->zdd_base;
    memcpy(zdd, R->s, sizeof(double) * (size_t)n);
    if (d > 0)
        mbs_gemv(0, n, d, 1.0, R->Rz, n, zddi, 1.0, zdd);
    phizz_times(m, R, zdd, R->ydir);
    for (int i = 0; i < r; ++i)
        for (int w = 0; w < W; ++w)
            R->ydir[i + (size_t)r * w] -= R->biasD[R->rows[i]].d[w];
    directions(R, sa, ca, R->ydir, R->dira);
    to_dual(n, zdd, R->dira, R->zddD);
    /* -G = Q - M zdd over duals */
    mbs_kinematics_motion_dual(m, &R->kd, R->zdD, R->zddD);
    mbs_dynamics_forces_dual(m, &R->kd, &R->dd, R->zD, R->zdD, R->QD);
    /* mu = A^-T G[dep] */
    double *mu = R->mu_base; /* r <= n */
    for (int i = 0; i < r; ++i)
        mu[i] = -R->QD[R->dep[i]].v;
    solve_block_transposed(R, mu);
    /* v = dG - Phi_zz[dz]^T mu (n x W, in ydir), G in zdd's place; the reactions in zddD
     * (the forces' wrench workspace is free again) */
    memset(R->mu_rows, 0, sizeof(double) * (size_t)nr);
    for (int i = 0; i < r; ++i)
        R->mu_rows[R->rows[i]] = mu[i];
    mbs_constraints_reactions_dual(m, &R->kd, R->mu_rows, R->dd.Wacc, R->zddD);
    double *G = zdd;
    for (int j = 0; j < n; ++j) {
        G[j] = -R->QD[j].v;
        for (int w = 0; w < W; ++w)
            R->ydir[j + (size_t)n * w] = -R->QD[j].d[w] - R->zddD[j].d[w];
    }
    /* F = R^T G, dF = R^T v */
    if (d > 0) {
        mbs_gemm(1, d, W, n, 1.0, R->Rz, n, R->ydir, n, 0.0, dF, d);
        mbs_gemv(1, n, d, 1.0, R->Rz, n, G, 0.0, R->Fval);
    }
}

/* The reduced trapezoidal residual over dual numbers at the base point of reduced_tangent (the
 * evaluation at x's values is current): directions dz_i seeded, dzd_i = 2/h dz_i,
 * dzdd_i = 4/h^2 dz_i. */
int mr_reduced_residual_dual(void *ctx, const MbsDual *x, int largest, MbsDual *g)
{
    MatrixR *R = ctx;
    int d = R->d, W = MBS_DUAL_WIDTH;
    double h = R->tangent_h;
    (void)largest;
    if (R->general) /* refused at init; a repartition only leaves the general mode */
        return MBS_FATAL;
    for (int k = 0; k < d; ++k)
        for (int w = 0; w < W; ++w)
            R->seed[k + (size_t)d * w] = x[k].d[w];
    reduced_directions(R, R->tangent_f->time + h, R->zddi, R->seed, 1.0, R->seed, 2.0 / h,
                       R->seed, 4.0 / (h * h), R->dF);
    for (int k = 0; k < d; ++k) {
        g[k].v = R->Fval[k];
        for (int w = 0; w < W; ++w)
            g[k].d[w] = R->dF[k + (size_t)d * w];
    }
    return 0;
}

/* --- the analytical tangent (method analytical) -----------------------------------------
 * The same chain as reduced_directions, one column dz_i = e_j at a time (with dzd_i = 2/h e_j,
 * dzdd_i = 4/h^2 e_j), by hand-written derivatives: Phi_zz[dz] zd, Phi_zz[dz] zdd, the bias's
 * and Phi_zz[dz]^T mu's from mbs_constraints_derivatives.c, and dG = K dz + C dzd + M dzdd with
 * K = dG/dz, C = dG/dzd at fixed zdd from mbs_dynamics_forces_derivatives on the kinematics
 * with the accelerations in D (G = M zdd - Q; paper 001 eqs 50-52), then
 * dg = R^T (dG - Phi_zz[dz]^T mu) for all columns at once. */

int mr_analytical_workspace(const MbsModel *m, MatrixR *R)
{
    int n = R->n, nr = R->nr, fail = 0;
    size_t nn = (size_t)(n > 0 ? n : 1) * (size_t)(n > 0 ? n : 1);
    if (mbs_constraints_derivatives_init(&R->cder, m) ||
        mbs_dynamics_derivatives_init(&R->dder, m))
        return -1;
    double **mats[] = {&R->Kan, &R->Can, &R->DZ, &R->DZD, &R->DZDD, &R->DRE, &R->Van};
    for (size_t i = 0; i < sizeof mats / sizeof mats[0]; ++i)
        *mats[i] = mbs_calloc_doubles(nn, &fail);
    size_t rows = (size_t)nr + MBS_MATRIX_R_MAX_DOFS;
    R->rowbuf = mbs_calloc_doubles(rows, &fail);
    R->biasbuf = mbs_calloc_doubles(rows, &fail);
    R->drows = calloc(rows, sizeof *R->drows);
    if (!R->drows)
        return -1;
    if (nr > 0)
        memcpy(R->drows, m->topo->rows, sizeof *R->drows * (size_t)nr);
    if (!R->zdd_base)
        R->zdd_base = mbs_calloc_doubles((size_t)(n > 0 ? n : 1), &fail);
    if (!R->mu_base)
        R->mu_base = mbs_calloc_doubles((size_t)(n > 0 ? n : 1), &fail);
    free(R->mu_rows); /* one per row of drows */
    R->mu_rows = mbs_calloc_doubles(rows, &fail);
    if (!R->Fval)
        R->Fval = mbs_calloc_doubles((size_t)(n > 0 ? n : 1), &fail);
    R->dir_zddi = mbs_calloc_doubles((size_t)(n > 0 ? n : 1), &fail); /* d <= n, d not yet known */
    R->model_work = mbs_calloc_doubles(14 * (size_t)n + 1, &fail);
    R->dir_generation = -1;
    return fail ? -1 : 0;
}

/* B's rows after the model's in R->drows (general mode): d(h_k(z)) is a point coordinate's
 * (a points row against the ground) or a joint coordinate's (a driver row: no second
 * derivative). */
static void dof_rows(MatrixR *R)
{
    const MbsModel *m = R->f->model;
    for (int k = 0; k < R->d; ++k) {
        MbsRow *w = &R->drows[R->nr + k];
        memset(w, 0, sizeof *w);
        if (R->dofnode[k] >= 0) {
            w->type = MBS_ROW_DRIVER;
            w->node = R->dofnode[k];
            continue;
        }
        const MbsPoint *pt = mr_dof_point(R->f, k);
        w->type = MBS_ROW_POINTS;
        w->body1 = pt->body;
        memcpy(w->r1, pt->pos, sizeof w->r1);
        w->body2 = m->ground;
        w->axis = mr_dof(R->f, k)->axis;
    }
}

/* out (n) += S y: y (r; n with point coordinates as DOFs: Theta's rows) the right-hand sides,
 * -rows of dPhi_z terms, solved here (overwritten). */
static void add_dependent(MatrixR *R, double *y, double *out)
{
    int n = R->n, r = R->r;
    if (R->general) { /* Theta^-1 y over every coordinate */
        mr_solve_block(R, y, 1);
        for (int i = 0; i < n; ++i)
            out[i] += y[i];
        return;
    }
    if (r == 0)
        return;
    if (R->singular)
        mr_damped_solve(R, y, NULL);
    else
        mr_solve_block(R, y, 1);
    for (int i = 0; i < r; ++i)
        out[R->dep[i]] += y[i];
}

/* What every direction at the current evaluation shares (computed once per evaluation and
 * independent accelerations zddi): zdd = R zdd_i + S c, K and C of G = M zdd - Q at it, G
 * itself (R->Fval) and mu = A^-T G[dep] (R->mu_rows, one per row of drows). */
static void directions_base(MatrixR *R, const double *zddi)
{
    const MbsModel *m = R->f->model;
    int n = R->n, d = R->d, r = R->r;
    if (R->dir_generation == R->generation &&
        !memcmp(R->dir_zddi, zddi, sizeof(double) * (size_t)d))
        return;
    int nr = R->nr, ndof = R->general ? d : 0, nb = R->general ? n : r;
    if (R->general)
        dof_rows(R);
    double *zdd = R->zdd_base, *mu = R->mu_base;
    memcpy(zdd, R->s, sizeof(double) * (size_t)n);
    mbs_gemv(0, n, d, 1.0, R->Rz, n, zddi, 1.0, zdd);
    mbs_kinematics_accelerations(m, &R->kin, zdd, R->node_acc, R->node_D);
    MbsKinematics with_zdd = R->kin;
    with_zdd.D = R->node_D;
    mbs_dynamics_forces_derivatives(m, &with_zdd, &R->dder, R->z, R->zd, -1.0, R->Can, R->Kan,
                                    (size_t)n);
    double *G = R->Fval;
    mbs_dynamics_forces(m, &with_zdd, &R->dyn, R->z, R->zd, G); /* Q - M zdd */
    /* its subtree wrenches, for the derivatives along a model direction */
    memcpy(R->model_work, R->dyn.Wacc, sizeof(double) * 6 * (size_t)n);
    for (int i = 0; i < n; ++i)
        G[i] = -G[i];
    for (int i = 0; i < nb; ++i)
        mu[i] = G[R->general ? i : R->dep[i]];
    solve_block_transposed(R, mu);
    memset(R->mu_rows, 0, sizeof(double) * (size_t)(nr + ndof));
    for (int i = 0; i < r; ++i)
        R->mu_rows[R->rows[i]] = mu[i];
    for (int k = 0; k < ndof; ++k)
        R->mu_rows[nr + k] = mu[r + k];
    memcpy(R->dir_zddi, zddi, sizeof(double) * (size_t)d);
    R->dir_generation = R->generation;
}

/* (Q - M zdd)'s derivative along a model direction at the current evaluation (R->model_work;
 * directions_base done): the direction's own motion at the rates and whole accelerations. */
static double *model_forces_derivative(MatrixR *R, const MbsModelDirection *dir)
{
    const MbsModel *m = R->f->model;
    int n = R->n;
    double *Wbase = R->model_work, *dW = Wbase + 6 * (size_t)n, *dQ = dW + 6 * (size_t)n;
    double *zero = dQ + n;
    memset(zero, 0, sizeof(double) * (size_t)n);
    mbs_constraints_derivatives_model_direction(m, &R->kin, &R->cder, dir, NULL);
    mbs_constraints_derivatives_motion(m, &R->kin, &R->cder, R->zd, zero, R->zdd_base, zero);
    mbs_dynamics_forces_model_derivative(m, &R->kin, R->node_D, R->z, R->zd, Wbase, &R->cder, dir,
                                         dW, dQ);
    return dQ;
}

/* dF (d x ncols) of F = R^T (M zdd - Q) along ncols directions dz_i = cz sz, dzd_i = cv sv,
 * dzdd_i = ca sa (d x ncols each; NULL: the unit vectors e_j) at the current evaluation (time t,
 * independent accelerations zddi), by the analytical derivatives; the full directions in
 * R->DZ, DZD, DZDD (n x ncols). ncols <= n. With `explicit` (3 r + n per column; the seeds
 * are then zero) a column is a parameter's: the explicit derivatives of Phi[rows],
 * (Phi_z zd + Phi_t)[rows], (Phi_z zdd + bias)[rows] and G - Phi_z^T mu at fixed coordinates
 * (paper 001 eqs 55, 57, 59, 61) enter the position, velocity and acceleration problems'
 * right-hand sides and V. */
static void analytical_directions(MatrixR *R, double t, const double *zddi, const double *sz,
                                  double cz, const double *sv, double cv, const double *sa,
                                  double ca, const double *explicit,
                                  const MbsModelDirection *const *models, int ncols, double *dF)
{
    const MbsModel *m = R->f->model;
    int n = R->n, d = R->d, r = R->r;
    /* without degrees of freedom (every coordinate driven) a parameter's column still moves
     * the coordinates */
    if (ncols == 0 || (d == 0 && !explicit && !models))
        return;
    /* the rows: the independent ones of Phi, then (point coordinates as DOFs) B's */
    int nr = R->nr, ndof = R->general ? d : 0;
    directions_base(R, zddi);
    double *zdd = R->zdd_base, *y = R->svtmp + 2 * n;
    const MbsRow *rows = R->drows;
    int nrows = nr + ndof;
    size_t ne = 3 * (size_t)r + (size_t)n; /* an explicit column */
    for (int j = 0; j < ncols; ++j) {
        double *dz = R->DZ + (size_t)n * j, *dzd = R->DZD + (size_t)n * j,
               *dzdd = R->DZDD + (size_t)n * j;
        const MbsModelDirection *model = models ? models[j] : NULL;
        const double *e = explicit && !model ? explicit + ne * j : NULL;
        double *dQ_model = NULL;
        if (model) { /* a parameter that moves the drawing's points: mbs_model_direction.h */
            memset(dz, 0, sizeof(double) * (size_t)n);
            memset(dzd, 0, sizeof(double) * (size_t)n);
            memset(dzdd, 0, sizeof(double) * (size_t)n);
            dQ_model = model_forces_derivative(R, model);
            /* Phi_z dz = -Phi_rho with dz_i = 0 ... */
            mbs_constraints_derivatives_positions(m, &R->kin, &R->cder, rows, nr, R->rowbuf);
            for (int i = 0; i < r; ++i)
                y[i] = -R->rowbuf[R->rows[i]];
            add_dependent(R, y, dz);
        } else if (e) { /* Phi_z dz = -Phi_rho with dz_i = 0 */
            memset(dz, 0, sizeof(double) * (size_t)n);
            memset(dzd, 0, sizeof(double) * (size_t)n);
            memset(dzdd, 0, sizeof(double) * (size_t)n);
            for (int i = 0; i < r; ++i)
                y[i] = -e[i];
            add_dependent(R, y, dz);
        } else {
            /* R^Phi times the seed of column j (the unit vector e_j without one) */
            const double *seeds[3] = {sz, sv, sa};
            double *outs[3] = {dz, dzd, dzdd}, scales[3] = {cz, cv, ca};
            for (int b = 0; b < 3; ++b) {
                int nonzero = 0; /* the sensitivities' seeds are mostly zero blocks */
                for (int i = 0; seeds[b] && i < d && !nonzero; ++i)
                    nonzero = seeds[b][i + (size_t)d * j] != 0.0;
                if (seeds[b] && !nonzero)
                    memset(outs[b], 0, sizeof(double) * (size_t)n);
                else if (seeds[b])
                    mbs_gemv(0, n, d, scales[b], R->Rz, n, seeds[b] + (size_t)d * j, 0.0, outs[b]);
                else
                    for (int i = 0; i < n; ++i)
                        outs[b][i] = scales[b] * R->Rz[i + (size_t)n * j];
            }
        }
        /* a direction of the rates alone (dz = 0: the sensitivities' columns of zd_i) has no
         * Phi_zz[dz] terms */
        int moves = 0;
        for (int i = 0; i < n && !moves; ++i)
            moves = dz[i] != 0.0;
        moves |= model != NULL; /* ... and then the drawing's and dz's direction at once: the
                                   products below carry both parts (the explicit terms) */
        if (model)
            mbs_constraints_derivatives_model_direction(m, &R->kin, &R->cder, model, dz);
        else
            mbs_constraints_derivatives_direction(m, &R->kin, &R->cder, dz);
        if (moves || e) {
            if (moves)
                mbs_constraints_derivatives_velocity(m, &R->kin, &R->cder, rows, nrows, R->zd,
                                                     R->rowbuf);
            for (int i = 0; i < r; ++i)
                y[i] = -(moves ? R->rowbuf[R->rows[i]] : 0.0) - (e ? e[r + i] : 0.0);
            for (int k = 0; k < ndof; ++k)
                y[r + k] = -(moves ? R->rowbuf[nr + k] : 0.0);
            add_dependent(R, y, dzd);
        }
        mbs_constraints_derivatives_bias(m, &R->kin, &R->cder, rows, nrows, R->zd, dzd,
                                         R->biasbuf);
        double *motion = R->col_motion ? R->col_motion + 18 * (size_t)n * j : NULL;
        if (motion) { /* the twists of dz and the rates' derivative, before velocity(zdd) */
            memcpy(motion, R->cder.T, sizeof(double) * 6 * (size_t)n);
            memcpy(motion + 6 * (size_t)n, R->cder.dZv, sizeof(double) * 6 * (size_t)n);
        }
        if (moves)
            mbs_constraints_derivatives_velocity(m, &R->kin, &R->cder, rows, nrows, zdd,
                                                 R->rowbuf);
        for (int i = 0; i < r; ++i)
            y[i] = -(moves ? R->rowbuf[R->rows[i]] : 0.0) - R->biasbuf[R->rows[i]] -
                   (e ? e[2 * r + i] : 0.0);
        for (int k = 0; k < ndof; ++k)
            y[r + k] = -(moves ? R->rowbuf[nr + k] : 0.0) - R->biasbuf[nr + k];
        add_dependent(R, y, dzdd);
        if (motion)
            mbs_constraints_derivatives_whole(m, &R->kin, &R->cder, zdd, dzdd,
                                              motion + 12 * (size_t)n);
        if (moves)
            mbs_constraints_derivatives_reactions(m, &R->kin, &R->cder, rows, nrows, R->mu_rows,
                                                  R->DRE + (size_t)n * j);
        else
            memset(R->DRE + (size_t)n * j, 0, sizeof(double) * (size_t)n);
        if (e) /* V gets + (G - Phi_z^T mu)_rho: DRE enters with a minus */
            for (int i = 0; i < n; ++i)
                R->DRE[i + (size_t)n * j] -= e[3 * r + i];
        if (dQ_model) /* G_rho = -(Q - M zdd)_rho, the reactions' part is in DRE already */
            for (int i = 0; i < n; ++i)
                R->DRE[i + (size_t)n * j] += dQ_model[i];
    }
    /* t only enters through the drivers' Phi_t and its derivative, constant along z */
    (void)t;
    /* V = K dz + C dzd + M dzdd - Phi_zz[dz]^T mu, dF = R^T V */
    memcpy(R->Van, R->DRE, sizeof(double) * (size_t)n * ncols);
    mbs_gemm(0, n, ncols, n, 1.0, R->Kan, n, R->DZ, n, -1.0, R->Van, n);
    mbs_gemm(0, n, ncols, n, 1.0, R->Can, n, R->DZD, n, 1.0, R->Van, n);
    mbs_gemm(0, n, ncols, n, 1.0, R->M, n, R->DZDD, n, 1.0, R->Van, n);
    mbs_gemm_tn(d, ncols, n, 1.0, R->Rz, R->Van, 0.0, dF);
}

/* The tangent's hook: the directions e_j with the trapezoidal rule's dzd_i = 2/h dz_i,
 * dzdd_i = 4/h^2 dz_i; the evaluation at x is current. */
int mr_reduced_jacobian_analytical(void *ctx, const double *x, double *J)
{
    MatrixR *R = ctx;
    double h = R->tangent_h;
    (void)x;
    analytical_directions(R, R->tangent_f->time + h, R->zddi, NULL, 1.0, NULL, 2.0 / h, NULL,
                          4.0 / (h * h), NULL, NULL, R->d, J);
    return 0;
}

int mbs_matrix_r_keep_direction_motion(MbsFormulation *f, MbsError *err)
{
    MatrixR *R = mr_impl(f);
    if (!R || !R->Kan)
        return mbs_error_set(err, MBS_FATAL, "matrix-r: prepare the directions first");
    if (!R->col_motion && !(R->col_motion = calloc(18 * (size_t)R->n * (size_t)R->n + 1,
                                                   sizeof(double))))
        return mbs_error_set(err, MBS_FATAL, "out of memory");
    return 0;
}

int mbs_matrix_r_prepare_directions(MbsFormulation *f, MbsError *err)
{
    MatrixR *R = mr_impl(f);
    if (!R)
        return mbs_error_set(err, MBS_FATAL, "not a matrix-r formulation");
    if (!R->zD && mr_dual_workspace(f->model, R))
        return mbs_error_set(err, MBS_FATAL, "out of memory");
    if (!R->Kan && mr_analytical_workspace(f->model, R))
        return mbs_error_set(err, MBS_FATAL, "out of memory");
    return 0;
}

/* Seeds d x ncols into d x W (zero columns beyond ncols), for a dual pass. */
static const double *widen(const MatrixR *R, const double *seed, int ncols, double *out)
{
    if (!seed)
        return NULL;
    memset(out, 0, sizeof(double) * (size_t)R->d * MBS_DUAL_WIDTH);
    memcpy(out, seed, sizeof(double) * (size_t)R->d * (size_t)ncols);
    return out;
}

int mbs_matrix_r_reduced_directions(MbsFormulation *f, int analytical, double t,
                                    const double *zddi, int ncols, const double *sz,
                                    const double *sv, const double *sa, double *dF,
                                    MbsMatrixRDirections *out)
{
    MatrixR *R = mr_impl(f);
    if (!R || !R->zD || !R->Kan || ncols < 0 || ncols > (analytical ? R->n : MBS_DUAL_WIDTH))
        return MBS_FATAL;
    if (analytical) {
        /* a NULL seed is zero here (unit vectors are the tangent's own convention) */
        int d = R->d;
        double *zero = R->Van; /* d x ncols of zeros, until analytical_directions uses it */
        memset(zero, 0, sizeof(double) * (size_t)d * (size_t)ncols);
        analytical_directions(R, t, zddi, sz ? sz : zero, 1.0, sv ? sv : zero, 1.0,
                              sa ? sa : zero, 1.0, NULL, NULL, ncols, dF);
        if (out)
            *out = (MbsMatrixRDirections){.dz = R->DZ, .dzd = R->DZD, .dzdd = R->DZDD,
                                          .motion = R->col_motion};
        return 0;
    }
    if (R->general)
        return MBS_FATAL;
    size_t block = (size_t)R->d * MBS_DUAL_WIDTH;
    const double *z = widen(R, sz, ncols, R->wseed);
    const double *v = widen(R, sv, ncols, R->wseed + block);
    const double *a = widen(R, sa, ncols, R->wseed + 2 * block);
    reduced_directions(R, t, zddi, z, 1.0, v, 1.0, a, 1.0, R->dF);
    for (int j = 0; j < ncols; ++j)
        memcpy(dF + (size_t)R->d * j, R->dF + (size_t)R->d * j, sizeof(double) * (size_t)R->d);
    if (out)
        *out = (MbsMatrixRDirections){.dz = R->dirz, .dzd = R->dirv, .dzdd = R->dira};
    return 0;
}

/* --- parameters of the geometry (the sensitivities' F_rho, paper 001 eqs 55, 57, 59, 61) ---
 * A parameter that moves the model's points changes Phi, the bias and G at fixed coordinates;
 * the dependent coordinates, velocities and accelerations then follow from the position,
 * velocity and acceleration problems exactly as for a direction of the state, and dR from
 * dPhi_z = Phi_zz[dz] + Phi_z,rho. The explicit parts are what the caller differences between
 * models rebuilt with rho +- delta, evaluated at the same coordinates (no position problem:
 * what the base evaluation's residual is cancels in the difference). */

int mbs_matrix_r_parameter_terms_size(const MbsFormulation *f)
{
    const MatrixR *R = mr_impl(f);
    return R && !R->general ? 3 * R->r + R->n : -1;
}

int mbs_matrix_r_parameter_terms(MbsFormulation *f, MbsFormulation *rebuilt, double t,
                                 const double *zddi, double *e)
{
    MatrixR *R = mr_impl(f), *P = mr_impl(rebuilt);
    if (!R || !P || !R->Kan || R->general || P->general || P->n != R->n || P->nr != R->nr)
        return MBS_FATAL;
    directions_base(R, zddi);
    const MbsModel *m = rebuilt->model;
    int n = R->n, nr = R->nr, r = R->r;
    size_t bytes = sizeof(double) * (size_t)n;
    memcpy(P->z, R->z, bytes);
    memcpy(P->zd, R->zd, bytes);
    memcpy(P->zdd, R->zdd_base, bytes);
    P->generation++; /* P holds coordinates, not an evaluation of its own */
    rebuilt->clock = t;
    mbs_kinematics_positions(m, &P->kin, P->z);
    mbs_constraints_eval(m, &P->kin, t, P->z, P->phi, P->phiz, P->phit);
    mbs_kinematics_velocities(m, &P->kin, P->zd);
    mbs_constraints_bias(m, &P->kin, t, P->bias);
    mbs_kinematics_accelerations(m, &P->kin, P->zdd, P->node_acc, P->node_D);
    MbsKinematics with_zdd = P->kin;
    with_zdd.D = P->node_D;
    mbs_dynamics_forces(m, &with_zdd, &P->dyn, P->z, P->zd, P->w); /* Q - M zdd */
    for (int i = 0; i < r; ++i) {
        int row = R->rows[i];
        double vel = P->phit[row], acc = P->bias[row];
        for (int c = 0; c < n; ++c) {
            double a = P->phiz[row + (size_t)nr * c];
            vel += a * P->zd[c];
            acc += a * P->zdd[c];
        }
        e[i] = P->phi[row];
        e[r + i] = vel;
        e[2 * r + i] = acc;
    }
    for (int c = 0; c < n; ++c) { /* G - Phi_z^T mu, mu the base's */
        double v = -P->w[c];
        for (int i = 0; i < r; ++i)
            v -= P->phiz[R->rows[i] + (size_t)nr * c] * R->mu_rows[R->rows[i]];
        e[3 * r + c] = v;
    }
    return 0;
}

int mbs_matrix_r_parameter_directions(MbsFormulation *f, double t, const double *zddi,
                                      int ncols, const double *explicit,
                                      const MbsModelDirection *const *models, double *dF,
                                      MbsMatrixRDirections *out)
{
    MatrixR *R = mr_impl(f);
    if (!R || !R->Kan || R->general || ncols < 0 || ncols > R->n)
        return MBS_FATAL;
    analytical_directions(R, t, zddi, NULL, 1.0, NULL, 1.0, NULL, 1.0, explicit, models, ncols,
                          dF);
    if (out)
        *out = (MbsMatrixRDirections){.dz = R->DZ, .dzd = R->DZD, .dzdd = R->DZDD,
                                      .motion = R->col_motion};
    return 0;
}
