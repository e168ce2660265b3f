/* Direct and adjoint sensitivities of matrix-r runs (paper 001 sec 3); see sens_matrix_r.h.
 *
 * One trapezoidal step n-1 -> n of the independent coordinates (step h) is
 *   v_n = 2/h (z_n - z_{n-1}) - v_{n-1},  a_n = 4/h^2 (z_n - z_{n-1}) - 4/h v_{n-1} - a_{n-1},
 *   F(z_n, v_n, a_n; rho) = 0                  (z: z_i, v: zd_i, a: zdd_i; F: 001 eq 29)
 * Differentiating it w.r.t. rho with u = [z'; v'; a'] (3d x p) gives the tangent linear model
 * (001 eq 48 discretized as paper 001 sec 4 does, by the same trapezoidal rule):
 *   T z'_n = L u_{n-1} - F_rho,   T = F_z + 2/h F_v + 4/h^2 F_a,
 *   L = [2/h F_v + 4/h^2 F_a,  F_v + 4/h F_a,  F_a],
 * i.e. u_n = A_n u_{n-1} + B_n with A_n = c T^-1 L + N, B_n = -c T^-1 F_rho,
 * c = [I; 2/h I; 4/h^2 I], N = -[0 0 0; 2/h I, I, 0; 4/h^2 I, 4/h I, I].
 * psi = sum_n w_n g_n (trapezoidal weights), psi' = sum_n w_n (g_x u_n + g_rho).
 * The adjoint is the transpose, backwards (001 eqs 67-69 for this discretization):
 *   lambda_N = w_N g_x^T;  mu = T_n^-T c^T lambda_n,  psi' -= F_rho,n^T mu,
 *   lambda_{n-1} = L_n^T mu + N^T lambda_n + w_{n-1} g_x,{n-1}^T;  psi' += u_0^T lambda_0
 * (plus sum w_n g_rho,n). F_a = Mh, F_v = -dQbar/dzd_i = Cbar, F_z = Kbar + Mh_z zdd_i (001
 * eqs 50-52); T is the matrix the dynamics' Newton iteration uses. J, F_rho and the objectives'
 * derivatives come from one source, sens_matrix_r_derivatives.c.
 */
#include "sens_matrix_r.h"

#include <lapacke.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "form_matrix_r_private.h"
#include "mbs_clock.h"
#include "mbs_dynamics.h"
#include "mbs_dynamics_derivatives.h"
#include "mbs_linalg.h"
#include "mbs_objective.h"
#include "mbs_run.h"
#include "mbs_sensitivity_method.h"
#include "mbs_tangent.h"
#include "mbs_topology.h"
#include "sens_direct.h"
#include "sens_matrix_r_private.h"

/* --- settings ----------------------------------------------------------------------------- */

static const char trapezoidal_only[] = "matrix-r sensitivities differentiate the trapezoidal "
                                      "rule: set matrix-r's integrator to trapezoidal (paper "
                                      "001 sec 4)";

int mbs_matrix_r_sensitivity_check(const MbsSettings *s, MbsError *err)
{
    if (!mbs_matrix_r_settings_trapezoidal(s))
        return mbs_error_set(err, MBS_FATAL, "%s", trapezoidal_only);
    return 0;
}

static const char *const newton_matrix_choices[] = {"sensitivities", "own", NULL};
static const char *const newton_matrix_labels[] = {MBS_N_("the sensitivities' tangent"),
                                                   MBS_N_("its own"), NULL};

static const char *const geometry_choices[] = {"analytical", "differences", NULL};
static const char *const geometry_labels[] = {MBS_N_("analytical"),
                                              MBS_N_("differences of rebuilt models"), NULL};

static const MbsSetting sens_items[] = {
    {.name = "jacobian", .type = MBS_SETTING_CHOICE,
     .offset = offsetof(MbsMatrixRSensOptions, jacobian), .default_value = MBS_JACOBIAN_ANALYTICAL,
     .choices = mbs_jacobian_method_names, .choice_labels = mbs_jacobian_method_labels,
     .label = MBS_N_("State derivatives"),
     .description = MBS_N_("How the derivatives of the reduced equations and the objectives "
                           "w.r.t. the independent positions, velocities and accelerations are "
                           "computed")},
    {.name = "adjoint-memory", .type = MBS_SETTING_NUMBER,
     .offset = offsetof(MbsMatrixRSensOptions, memory), .default_value = 512.0, .min = 0.0,
     .max = 1e6, .unit = "MiB", .flags = MBS_SETTING_ABOVE_MIN | MBS_SETTING_DECADES,
     .label = MBS_N_("Adjoint memory"),
     .description = MBS_N_("Bound on the trajectory the adjoint method stores; above it the "
                           "states are checkpointed and recomputed segment by segment")},
    {.name = "parameter-step", .type = MBS_SETTING_NUMBER,
     .offset = offsetof(MbsMatrixRSensOptions, parameter_step), .default_value = 6e-6,
     .min = 1e-12, .max = 1e-2, .flags = MBS_SETTING_DECADES,
     .label = MBS_N_("Parameter increment"),
     .description = MBS_N_("Relative increment of the central differences in the parameters "
                           "(times max(1, |value|))")},
    {.name = "newton-matrix", .type = MBS_SETTING_CHOICE,
     .offset = offsetof(MbsMatrixRSensOptions, newton_matrix),
     .default_value = MBS_SENS_NEWTON_SENSITIVITIES, .choices = newton_matrix_choices,
     .choice_labels = newton_matrix_labels, .label = MBS_N_("Newton matrix of the run"),
     .description = MBS_N_("Direct method: each step of the run starts its Newton iteration "
                           "with the exact tangent the sensitivities computed at its starting "
                           "point (the run then differs from a plain one within the Newton "
                           "tolerance), or evaluates its own as a plain run does")},
    {.name = "geometry", .type = MBS_SETTING_CHOICE,
     .offset = offsetof(MbsMatrixRSensOptions, geometry),
     .default_value = MBS_SENS_GEOMETRY_ANALYTICAL, .choices = geometry_choices,
     .choice_labels = geometry_labels, .label = MBS_N_("Terms of the parameters"),
     .description = MBS_N_("How the terms of the equations move with a parameter: "
                           "analytically along the drawing's derivative (points moved, bodies "
                           "reweighted, or force laws' numbers at a still geometry, when the "
                           "parameter turns no axis), or by central differences of models "
                           "rebuilt with the parameter changed")},
};

const MbsSettingTable mbs_matrix_r_sens_settings = {
    .name = "sensitivity", .items = sens_items, .count = 5,
    .size = sizeof(MbsMatrixRSensOptions)};

/* --- points ------------------------------------------------------------------------------- */

void mbs_sens_point_motion(const MbsModel *m, const MbsKinematics *kin, const double *zdd,
                           int point, double r[3], double v[3], double a[3])
{
    const MbsPoint *pt = &m->points[point];
    double rr[3];
    mbs_kin_point(m, kin, pt->body, pt->pos, rr);
    if (r)
        memcpy(r, rr, sizeof rr);
    if (v)
        mbs_kin_point_motion(m, kin, pt->body, rr, v, NULL);
    if (a)
        mbs_kin_point_acceleration(m, kin, pt->body, rr, zdd, a);
}

/* --- the sensitivity equations ------------------------------------------------------------ */

/* F's blocks of J: F_z, F_v, F_a are rows 0..d-1, columns [0, d), [d, 2d), [2d, 3d). */
static double Fblock(const Sens *S, int block, int i, int j)
{
    return S->J[i + (size_t)S->nout * ((size_t)block * S->d + j)];
}

/* T (LU-factorized) and L of a step of size h at the current derivatives. */
static int step_matrices(Sens *S, double h)
{
    int d = S->d;
    double c1 = 2.0 / h, c2 = 4.0 / (h * h), c3 = 4.0 / h;
    for (int j = 0; j < d; ++j)
        for (int i = 0; i < d; ++i) {
            double fz = Fblock(S, 0, i, j), fv = Fblock(S, 1, i, j), fa = Fblock(S, 2, i, j);
            S->T[i + (size_t)d * j] = fz + c1 * fv + c2 * fa;
            S->L[i + (size_t)d * j] = c1 * fv + c2 * fa;
            S->L[i + (size_t)d * (d + j)] = fv + c3 * fa;
            S->L[i + (size_t)d * (2 * d + j)] = fa;
        }
    if (d > 0 && mbs_lu_factor(d, S->T, S->ipiv) != 0)
        return mbs_error_set(S->err, MBS_FATAL,
                             "matrix-r sensitivities: singular step matrix at t = %.6g s", S->t);
    return 0;
}

/* u_0: z_i', zd_i' of the initial state from the perturbed models' assembly, zdd_i' from the
 * derivative of F = 0 at t = 0 (F_a a' = -(F_z z' + F_v v' + F_rho)). Needs J, P at t = 0. */
static int initial_sensitivities(Sens *S, const double *zi_plus_minus)
{
    int d = S->d, p = S->p, nx = S->nx;
    for (int j = 0; j < p; ++j) {
        double *u = S->U0 + (size_t)nx * j;
        const double *plus = zi_plus_minus + (size_t)4 * d * j, *minus = plus + 2 * d;
        for (int i = 0; i < 2 * d; ++i)
            u[i] = (plus[i] - minus[i]) / (2.0 * S->delta[j]);
        for (int i = 0; i < d; ++i) {
            double v = -S->P[i + (size_t)S->nout * j];
            for (int c = 0; c < 2 * d; ++c)
                v -= S->J[i + (size_t)S->nout * c] * u[c];
            u[2 * d + i] = v;
        }
    }
    for (int j = 0; j < d; ++j)
        for (int i = 0; i < d; ++i)
            S->Fa[i + (size_t)d * j] = Fblock(S, 2, i, j);
    if (d > 0 && p > 0 &&
        (LAPACKE_dgetrf_work(LAPACK_COL_MAJOR, d, d, S->Fa, d, S->ipiv) != 0 ||
         LAPACKE_dgetrs_work(LAPACK_COL_MAJOR, 'N', d, p, S->Fa, d, S->ipiv, S->U0 + 2 * d, nx)))
        return mbs_error_set(S->err, MBS_FATAL,
                             "matrix-r sensitivities: singular reduced mass matrix at t = 0");
    return 0;
}

/* Trapezoidal weight of grid point n of 0..N. */
static double weight(const Sens *S, long n)
{
    return n == 0 || n == S->N ? 0.5 * S->h : S->h;
}

/* psi' += w (g_x u + g_rho), plus (w_x u + w_rho) at the last point (direct), or only the
 * rho parts (adjoint, u NULL). */
static void add_objective_terms(Sens *S, long n, const double *u)
{
    int d = S->d, k = S->k, p = S->p, nx = S->nx, no = S->nout;
    for (int term = 0; term < (n == S->N ? 2 : 1); ++term) {
        double w = term ? 1.0 : weight(S, n);
        int row0 = d + term * k;
        for (int i = 0; i < k; ++i)
            for (int j = 0; j < p; ++j) {
                double v = S->P[row0 + i + (size_t)no * j];
                for (int c = 0; u && c < nx; ++c)
                    v += S->J[row0 + i + (size_t)no * c] * u[c + (size_t)nx * j];
                S->res->gradient[(size_t)i * p + j] += w * v;
            }
    }
}

/* Direct method at grid point n (derivatives current). */
static int direct_visit(Sens *S, long n)
{
    int d = S->d, p = S->p, nx = S->nx, status;
    if (n == 0) {
        memcpy(S->u, S->U0, sizeof(double) * (size_t)nx * p);
    } else {
        double h = S->h, c1 = 2.0 / h, c2 = 4.0 / (h * h), c3 = 4.0 / h;
        if ((status = step_matrices(S, h)))
            return status;
        /* T is exact at the run's next starting point: its first Newton matrix */
        if (S->opt.newton_matrix == MBS_SENS_NEWTON_SENSITIVITIES)
            mbs_matrix_r_offer_tangent(S->stepper, h, S->T, S->ipiv);
        for (int j = 0; j < p; ++j) { /* rhs = L u - F_rho */
            double *z = S->unew + (size_t)nx * j;
            for (int i = 0; i < d; ++i)
                z[i] = -S->P[i + (size_t)S->nout * j];
        }
        if (d > 0 && p > 0) {
            mbs_gemm(0, d, p, nx, 1.0, S->L, d, S->u, nx, 1.0, S->unew, nx);
            mbs_lu_solve_ld(d, S->T, S->ipiv, 0, S->unew, nx, p);
        }
        for (int j = 0; j < p; ++j) {
            const double *o = S->u + (size_t)nx * j;
            double *u = S->unew + (size_t)nx * j;
            for (int i = 0; i < d; ++i) {
                double dz = u[i] - o[i];
                u[d + i] = c1 * dz - o[d + i];
                u[2 * d + i] = c2 * dz - c3 * o[d + i] - o[2 * d + i];
            }
        }
        double *swap = S->u;
        S->u = S->unew;
        S->unew = swap;
    }
    add_objective_terms(S, n, S->u);
    return 0;
}

/* Adjoint method at grid point n, visited from N down to 0 (derivatives current). */
static int adjoint_visit(Sens *S, long n)
{
    int d = S->d, k = S->k, p = S->p, nx = S->nx, no = S->nout, status;
    double w = weight(S, n);
    for (int i = 0; i < k; ++i) /* lambda_n += w g_x^T (+ w_x^T at the end) */
        for (int c = 0; c < nx; ++c)
            S->lam[c + (size_t)nx * i] +=
                w * S->J[d + i + (size_t)no * c] + (n == S->N ? S->J[d + k + i + (size_t)no * c] : 0.0);
    add_objective_terms(S, n, NULL);
    if (n == 0) { /* psi' += u_0^T lambda_0 */
        for (int i = 0; i < k; ++i)
            for (int j = 0; j < p; ++j) {
                double v = 0.0;
                for (int c = 0; c < nx; ++c)
                    v += S->U0[c + (size_t)nx * j] * S->lam[c + (size_t)nx * i];
                S->res->gradient[(size_t)i * p + j] += v;
            }
        return 0;
    }
    double h = S->h, c1 = 2.0 / h, c2 = 4.0 / (h * h), c3 = 4.0 / h;
    if ((status = step_matrices(S, h)))
        return status;
    for (int i = 0; i < k; ++i) { /* mu = T^-T c^T lambda */
        const double *l = S->lam + (size_t)nx * i;
        for (int r = 0; r < d; ++r)
            S->mu[r + (size_t)d * i] = l[r] + c1 * l[d + r] + c2 * l[2 * d + r];
    }
    if (d > 0 && k > 0)
        mbs_lu_solve_ld(d, S->T, S->ipiv, 1, S->mu, d, k);
    for (int i = 0; i < k; ++i) /* psi' -= F_rho^T mu */
        for (int j = 0; j < p; ++j) {
            double v = 0.0;
            for (int r = 0; r < d; ++r)
                v += S->P[r + (size_t)no * j] * S->mu[r + (size_t)d * i];
            S->res->gradient[(size_t)i * p + j] -= v;
        }
    for (int i = 0; i < k; ++i) { /* lambda_{n-1} = L^T mu + N^T lambda_n */
        const double *l = S->lam + (size_t)nx * i;
        double *o = S->lamnew + (size_t)nx * i;
        for (int r = 0; r < d; ++r) {
            o[r] = -c1 * l[d + r] - c2 * l[2 * d + r];
            o[d + r] = -l[d + r] - c3 * l[2 * d + r];
            o[2 * d + r] = -l[2 * d + r];
        }
    }
    if (d > 0 && k > 0)
        mbs_gemm(1, nx, k, d, 1.0, S->L, d, S->mu, d, 1.0, S->lamnew, nx);
    double *swap = S->lam;
    S->lam = S->lamnew;
    S->lamnew = swap;
    return 0;
}

/* --- changes of partition ---------------------------------------------------------------- */

/* Direct: u (old independent coordinates, at `before`) -> Mx u + Mp (new ones). */
static int direct_partition_change(Sens *S, const MbsCheckpoint *before)
{
    int nx = S->nx, p = S->p, status;
    if ((status = mr_sens_partition_map(S, before)))
        return status;
    memcpy(S->unew, S->Mp, sizeof(double) * (size_t)nx * p);
    mbs_gemm(0, nx, p, nx, 1.0, S->Mx, nx, S->u, nx, 1.0, S->unew, nx);
    double *swap = S->u;
    S->u = S->unew;
    S->unew = swap;
    S->res->partition_changes++;
    return 0;
}

/* Adjoint: lambda (new coordinates) -> Mx^T lambda (old ones at `before`), psi' += Mp^T lambda. */
static int adjoint_partition_change(Sens *S, const MbsCheckpoint *before)
{
    int nx = S->nx, p = S->p, k = S->k, status;
    if ((status = mr_sens_partition_map(S, before)))
        return status;
    for (int i = 0; i < k; ++i)
        for (int j = 0; j < p; ++j) {
            double v = 0.0;
            for (int c = 0; c < nx; ++c)
                v += S->Mp[c + (size_t)nx * j] * S->lam[c + (size_t)nx * i];
            S->res->gradient[(size_t)i * p + j] += v;
        }
    mbs_gemm(1, nx, k, nx, 1.0, S->Mx, nx, S->lam, nx, 0.0, S->lamnew, nx);
    double *swap = S->lam;
    S->lam = S->lamnew;
    S->lamnew = swap;
    S->res->partition_changes++;
    return 0;
}

/* --- runs --------------------------------------------------------------------------------- */

/* MBS_FATAL with "stopped" (as the other methods end on problem->stop), else 0. */
static int stopped(Sens *S)
{
    return S->stop && *S->stop ? mbs_error_set(S->err, MBS_FATAL, MBS_SENSITIVITY_STOPPED) : 0;
}

static void notify(Sens *S, double t)
{
    if (!S->observer)
        return;
    S->res->time = t;
    int direct = S->method == MBS_SENS_DIRECT;
    S->res->state_sensitivity = direct ? S->u : NULL;
    if (direct) { /* dz/drho = R^Phi dz_i/drho + dz/drho at fixed z_i (001 eq 37a) */
        int n = S->n, d = S->d, p = S->p;
        memcpy(S->dzfull, S->zrho, sizeof(double) * (size_t)n * p);
        if (d > 0 && p > 0)
            mbs_gemm(0, n, p, d, 1.0, S->Rbase, n, S->u, S->nx, 1.0, S->dzfull, n);
        S->res->coordinates = S->zbase;
        S->res->coordinate_sensitivity = S->dzfull;
        S->res->ncoords = n;
    }
    S->observer(S->observer_data, S->res);
    S->res->state_sensitivity = NULL;
    S->res->coordinates = S->res->coordinate_sensitivity = NULL;
    S->res->ncoords = 0;
}

static int forward_sample(void *data, const MbsRun *run)
{
    Sens *S = data;
    if ((S->status = stopped(S)))
        return 1;
    MbsFormulation *f = mbs_run_formulation(run);
    long n = mbs_run_grid_steps(run);
    double tc = mbs_clock_now();
    S->res->time_dynamics += tc - S->clock;
    MbsMatrixRView v;
    mbs_matrix_r_view(f, &v);
    if ((S->status = S->obj.values(S->obj.ctx, S->model, v.kin, f->time, v.z, v.zd, v.zdd, S->g,
                                   S->g + S->k)))
        return 1;
    for (int i = 0; i < S->k; ++i)
        S->res->psi[i] += weight(S, n) * S->g[i] + (n == S->N ? S->g[S->k + i] : 0.0);
    if (S->method == MBS_SENS_DIRECT) {
        MbsCheckpoint *now = &S->state, *before = &S->previous;
        mbs_formulation_save(f, now);
        if (n > 0 && mr_sens_partition_changed(S, before, now) &&
            (S->status = direct_partition_change(S, before)))
            return 1;
        if ((S->status = mr_sens_derivatives(S, now)))
            return 1;
        /* the state is the previous one of the next step (swap the checkpoints' arrays) */
        double *values = S->previous.state;
        S->previous = S->state;
        S->state.state = values;
        if (n == 0 && (S->status = initial_sensitivities(S, S->U0 + (size_t)S->nx * S->p)))
            return 1;
        if ((S->status = direct_visit(S, n)))
            return 1;
        notify(S, f->time);
    } else {
        if (n % S->K == 0)
            mbs_formulation_save(f, &S->stored[n / S->K]);
        notify(S, f->time);
    }
    S->res->steps = n;
    S->clock = mbs_clock_now();
    S->t_sens += S->clock - tc;
    return 0;
}

static int segment_sample(void *data, const MbsRun *run)
{
    Sens *S = data;
    if ((S->status = stopped(S)))
        return 1;
    MbsFormulation *f = mbs_run_formulation(run);
    mbs_formulation_save(f, &S->segment[mbs_run_grid_steps(run) - S->segment_start]);
    return 0;
}

static int run_to(Sens *S, double t_end, int (*sample)(void *, const MbsRun *))
{
    MbsRunOptions ro = {.max_halvings = 0}; /* the sensitivity equations follow grid steps */
    MbsRunObserver obs = {.sample = sample, .data = S, .every = 1};
    MbsRun *run = mbs_run_new(S->stepper, &ro, &obs, S->err);
    if (!run)
        return MBS_FATAL;
    MbsRunOutcome out = mbs_run_advance(run, t_end);
    int status = 0;
    if (out == MBS_RUN_FAILED) {
        *S->err = *mbs_run_error(run);
        status = S->err->status ? S->err->status : MBS_FATAL;
    } else if (S->status) {
        status = S->status;
    }
    mbs_run_free(run);
    return status;
}

/* States visited backwards: from storage, or segment by segment from checkpoints. */
static int adjoint_backward(Sens *S)
{
    int status;
    long nseg = S->K == 1 ? 0 : (S->N + S->K - 1) / S->K;
    S->res->backward = 1;
    if (S->K == 1) {
        for (long n = S->N; n >= 0; --n) {
            if ((status = stopped(S)) || (status = mr_sens_derivatives(S, &S->stored[n])) ||
                (n == 0 && (status = initial_sensitivities(S, S->U0 + (size_t)S->nx * S->p))) ||
                (status = adjoint_visit(S, n)) ||
                (n > 0 && mr_sens_partition_changed(S, &S->stored[n - 1], &S->stored[n]) &&
                 (status = adjoint_partition_change(S, &S->stored[n - 1]))))
                return status;
            notify(S, S->t);
        }
        return 0;
    }
    for (long seg = nseg - 1; seg >= 0; --seg) {
        long start = seg * S->K, end = start + S->K < S->N ? start + S->K : S->N;
        double tc = mbs_clock_now();
        if ((status = mbs_formulation_restore(S->stepper, &S->stored[seg], S->err)))
            return status;
        S->segment_start = start;
        if ((status = run_to(S, (double)end * S->h, segment_sample)))
            return status;
        S->res->time_recompute += mbs_clock_now() - tc;
        /* the replay must be the forward run bit for bit */
        if (end == (seg + 1) * S->K &&
            memcmp(S->segment[end - start].state, S->stored[seg + 1].state,
                   sizeof(double) * (size_t)S->stored[seg + 1].size) != 0)
            return mbs_error_set(S->err, MBS_FATAL,
                                 "matrix-r adjoint: the recomputed segment [%.6g, %.6g] s does "
                                 "not repeat the forward run",
                                 (double)start * S->h, (double)end * S->h);
        for (long n = end; n >= (seg == 0 ? 0 : start + 1); --n) {
            const MbsCheckpoint *before = n > 0 ? &S->segment[n - 1 - start] : NULL;
            if ((status = stopped(S)) || (status = mr_sens_derivatives(S, &S->segment[n - start])) ||
                (n == 0 && (status = initial_sensitivities(S, S->U0 + (size_t)S->nx * S->p))) ||
                (status = adjoint_visit(S, n)) ||
                (before && mr_sens_partition_changed(S, before, &S->segment[n - start]) &&
                 (status = adjoint_partition_change(S, before))))
                return status;
            notify(S, (double)n * S->h);
        }
    }
    return 0;
}

/* Checkpoint interval K: 1 when every state fits the bound, else the smallest K for which
 * ceil(N / K) + 1 checkpoints and one segment of K + 1 states fit. */
static int plan_storage(Sens *S, size_t bytes_per_state)
{
    double bound = S->opt.memory * 1024.0 * 1024.0;
    long states = S->N + 1;
    S->res->full_bytes = (size_t)states * bytes_per_state;
    if ((double)S->res->full_bytes <= bound) {
        S->K = 1;
        S->nstored = states;
    } else {
        long K = 2;
        while (K < states && (double)((S->N + K - 1) / K + 1 + K + 1) * bytes_per_state > bound)
            ++K;
        if (K >= states)
            return mbs_error_set(S->err, MBS_FATAL,
                                 "matrix-r adjoint: %.3g MiB cannot hold the checkpoints of %ld "
                                 "steps (%zu bytes a state); raise adjoint-memory",
                                 S->opt.memory, S->N, bytes_per_state);
        S->K = K;
        S->nstored = (S->N + K - 1) / K + 1;
    }
    S->res->checkpoint_interval = S->K;
    return 0;
}

static int alloc_checkpoints(MbsCheckpoint **list, double **values, long count,
                             const MbsCheckpoint *like)
{
    *list = calloc((size_t)count, sizeof **list);
    *values = calloc((size_t)count * (size_t)like->size + 1, sizeof(double));
    if (!*list || !*values)
        return -1;
    for (long i = 0; i < count; ++i) {
        (*list)[i] = *like;
        (*list)[i].state = *values + (size_t)i * like->size;
    }
    return 0;
}

static void sens_free(Sens *S)
{
    mbs_formulation_free(S->stepper);
    mbs_formulation_free(S->probe);
    for (int j = 0; j < 2 * S->p; ++j) {
        if (S->pform)
            mbs_formulation_free(S->pform[j]);
        if (S->pmodel)
            mbs_model_free(S->pmodel[j]);
    }
    free(S->pform);
    free(S->pmodel);
    for (int j = 0; S->gdir && j < S->p; ++j)
        mbs_model_direction_free(&S->gdir[j]);
    free(S->gdir);
    free(S->gdir_ok);
    free(S->gmodels);
    free(S->dynamic_way);
    free(S->dWpar);
    mbs_checkpoint_free(&S->state);
    mbs_checkpoint_free(&S->previous);
    mbs_tangent_free(&S->tangent);
    mbs_tangent_free(&S->map_tangent);
    free(S->ind);
    free(S->ind_new);
    free(S->mapind);
    mbs_dynamics_free(&S->dyn);
    mbs_kinematics_free(&S->kin);
    mbs_constraints_derivatives_free(&S->cw);
    free(S->zero);
    free(S->dynamic_only);
    free(S->part_bodies);
    free(S->part_forces);
    double *arrays[] = {S->delta, S->zbase, S->Rbase, S->guess, S->x0,  S->xfull, S->r0,
                        S->rp,    S->rm,    S->J,     S->P,     S->T,   S->L,
                        S->Fa,    S->u,     S->unew,  S->U0,    S->lam, S->lamnew,
                        S->mu,    S->g,     S->stored_values, S->segment_values,
                        S->node_acc, S->node_D, S->Mzdd,  S->aligned_partition, S->Mx, S->Mp,
                        S->mtmp,  S->xt,    S->sz,    S->sv,  S->dF,  S->zrho,
                        S->dzfull, S->Eg,   S->ep,    S->em,  S->gexp, S->dFg};
    for (size_t i = 0; i < sizeof arrays / sizeof arrays[0]; ++i)
        free(arrays[i]);
    free(S->ipiv);
    free(S->gcols);
    free(S->stored);
    free(S->segment);
}

void mbs_sens_result_free(MbsSensResult *r)
{
    free(r->psi);
    free(r->gradient);
    r->psi = r->gradient = NULL;
}

/* Formulations, perturbed models, workspaces; u_0's position and velocity parts. */
static int sens_setup(Sens *S, const MbsSettings *s)
{
    const MbsModel *m = S->model;
    MbsError *err = S->err;
    int p = S->p;
    if (!(S->stepper = mbs_formulation_new("matrix-r", m, s, err)))
        return MBS_FATAL;
    if (!mbs_matrix_r_trapezoidal(S->stepper))
        return mbs_error_set(err, MBS_FATAL, "%s", trapezoidal_only);
    if (!mbs_matrix_r_constant_b(S->stepper))
        return mbs_error_set(err, MBS_FATAL, "matrix-r sensitivities with natural coordinates "
                             "as degrees of freedom are not implemented");
    int status;
    if (S->obj.prepare && (status = S->obj.prepare(S->obj.ctx, m, S->stepper, err)))
        return status;
    /* the evaluations for derivatives solve the position problem tighter than the run, so
     * that its error stays far below the difference increments */
    MbsSettings es = *s;
    MbsNewtonOptions *newton = mbs_matrix_r_newton_options(&es);
    if (newton->tolerance > 1e-13)
        newton->tolerance = 1e-13;
    if (!(S->probe = mbs_formulation_new("matrix-r", m, &es, err)))
        return MBS_FATAL;
    int n = S->n = mbs_model_ncoords(m);
    int d = S->d = mbs_matrix_r_independent_state(S->stepper, NULL, NULL, NULL);
    int k = S->k = S->obj.count;
    S->nx = 3 * d;
    S->nout = d + 2 * k;
    size_t nx = (size_t)S->nx, no = (size_t)S->nout;
    S->pmodel = calloc(2 * (size_t)p + 1, sizeof *S->pmodel);
    S->pform = calloc(2 * (size_t)p + 1, sizeof *S->pform);
    S->delta = calloc((size_t)p + 1, sizeof(double));
    S->dynamic_only = calloc((size_t)p + 1, sizeof(int));
    S->node_acc = calloc(6 * (size_t)n + 1, sizeof(double));
    S->node_D = calloc(6 * (size_t)n + 1, sizeof(double));
    S->Mzdd = calloc(2 * (size_t)n + 1, sizeof(double));
    S->zero = calloc((size_t)n + 1, sizeof(double));
    S->part_bodies = calloc((size_t)p * m->nbodies + 1, 1);
    S->part_forces = calloc((size_t)p * m->nforces + 1, 1);
    if (!S->dynamic_only || !S->node_acc || !S->node_D || !S->Mzdd || !S->part_bodies ||
        !S->part_forces || !S->zero || mbs_constraints_derivatives_init(&S->cw, m) ||
        mbs_dynamics_init(&S->dyn, m))
        return mbs_error_set(err, MBS_FATAL, "out of memory");
    double **vecs[] = {&S->zbase, &S->guess, &S->x0, &S->xfull, &S->r0, &S->rp, &S->rm, &S->g};
    size_t sizes[] = {(size_t)n, (size_t)n + no, nx, nx, no, no, no, 2 * (size_t)k};
    for (size_t i = 0; i < sizeof vecs / sizeof vecs[0]; ++i)
        *vecs[i] = calloc(sizes[i] + 1, sizeof(double));
    S->Rbase = calloc((size_t)n * d + 1, sizeof(double));
    S->zrho = calloc((size_t)n * p + 1, sizeof(double));
    S->dzfull = calloc((size_t)n * p + 1, sizeof(double));
    if (!S->zrho || !S->dzfull)
        return mbs_error_set(err, MBS_FATAL, "out of memory");
    S->J = calloc(no * nx + 1, sizeof(double));
    S->P = calloc(no * p + 1, sizeof(double));
    S->T = calloc((size_t)d * d + 1, sizeof(double));
    S->Fa = calloc((size_t)d * d + 1, sizeof(double));
    S->L = calloc((size_t)d * nx + 1, sizeof(double));
    S->ipiv = calloc((size_t)d + 1, sizeof(int));
    S->u = calloc(nx * p + 1, sizeof(double));
    S->unew = calloc(nx * p + 1, sizeof(double));
    S->U0 = calloc(nx * p + 4 * (size_t)d * p + 1, sizeof(double)); /* + the +- states */
    S->lam = calloc(nx * k + 1, sizeof(double));
    S->lamnew = calloc(nx * k + 1, sizeof(double));
    S->mu = calloc((size_t)d * k + 1, sizeof(double));
    if (!S->pmodel || !S->pform || !S->delta || !S->zbase || !S->guess || !S->x0 || !S->xfull || !S->r0 ||
        !S->rp || !S->rm || !S->g || !S->Rbase || !S->J || !S->P || !S->T || !S->Fa || !S->L ||
        !S->ipiv || !S->u || !S->unew || !S->U0 || !S->lam || !S->lamnew || !S->mu)
        return mbs_error_set(err, MBS_FATAL, "out of memory");
    if (mbs_checkpoint_init(&S->state, S->stepper, err) ||
        mbs_checkpoint_init(&S->previous, S->stepper, err))
        return MBS_FATAL;
    S->nr = mbs_model_nconstraints(m);
    int count;
    mbs_matrix_r_checkpoint_partition(&S->state, n, S->nr, &count);
    S->ind = calloc((size_t)d + 1, sizeof(int));
    S->ind_new = calloc((size_t)d + 1, sizeof(int));
    S->mapind = calloc((size_t)d + 1, sizeof(int));
    S->aligned_partition = calloc((size_t)count + 1, sizeof(double));
    S->Mx = calloc(nx * nx + 1, sizeof(double));
    S->Mp = calloc(nx * p + 1, sizeof(double));
    S->mtmp = calloc(nx * (size_t)(p > k ? p : k) + no + 1, sizeof(double));
    if (!S->ind || !S->ind_new || !S->mapind || !S->aligned_partition || !S->Mx || !S->Mp ||
        !S->mtmp)
        return mbs_error_set(err, MBS_FATAL, "out of memory");
    const int *ind = mbs_matrix_r_independent_nodes(S->stepper); /* the initial partition */
    for (int j = 0; j < p; ++j) {
        int q = S->params[j];
        if (q < 0 || q >= m->nparameters)
            return mbs_error_set(err, MBS_FATAL, "matrix-r sensitivities: no parameter %d", q);
        double rho = m->parameters[q].value;
        S->dynamic_only[j] = sens_parameter_dynamic_only(m, q);
        if (S->dynamic_only[j] && (status = mr_sens_parameter_part(S, j)))
            return status;
        S->delta[j] = S->opt.parameter_step * fmax(1.0, fabs(rho));
        for (int s2 = 0; s2 < 2; ++s2) {
            double value = rho + (s2 ? -S->delta[j] : S->delta[j]);
            if (!(S->pmodel[2 * j + s2] = mbs_model_with_parameter(m, q, value, err)) ||
                !(S->pform[2 * j + s2] =
                      mbs_formulation_new("matrix-r", S->pmodel[2 * j + s2], &es, err)))
                return MBS_FATAL;
            if (S->obj.prepare &&
                (status = S->obj.prepare(S->obj.ctx, S->pmodel[2 * j + s2],
                                         S->pform[2 * j + s2], err)))
                return status;
            /* the perturbed model's initial state, in the run's independent coordinates */
            MbsMatrixRView v;
            mbs_matrix_r_view(S->pform[2 * j + s2], &v);
            double *st = S->U0 + nx * p + (size_t)4 * d * j + (size_t)2 * d * s2;
            for (int i = 0; i < d; ++i) {
                st[i] = v.z[ind[i]];
                st[d + i] = v.zd[ind[i]];
            }
        }
    }
    /* parameters of the geometry that move points alone: their terms analytically */
    S->gdir = calloc((size_t)p + 1, sizeof *S->gdir);
    S->gdir_ok = calloc((size_t)p + 1, sizeof(int));
    S->gmodels = calloc((size_t)n + 1, sizeof *S->gmodels);
    S->dynamic_way = calloc((size_t)p + 1, sizeof(int));
    S->dWpar = calloc(6 * (size_t)n + 1, sizeof(double));
    if (!S->gdir || !S->gdir_ok || !S->gmodels || !S->dynamic_way || !S->dWpar)
        return mbs_error_set(err, MBS_FATAL, "out of memory");
    char why[160];
    int analytical_terms = S->opt.geometry == MBS_SENS_GEOMETRY_ANALYTICAL &&
                           (S->opt.jacobian == MBS_JACOBIAN_AD ||
                            S->opt.jacobian == MBS_JACOBIAN_ANALYTICAL) &&
                           S->obj.directional &&
                           mbs_dynamics_derivatives_supported(m, why, sizeof why);
    for (int j = 0; analytical_terms && j < p; ++j) {
        status = mbs_model_direction_init(&S->gdir[j], m, S->pmodel[2 * j],
                                          S->pmodel[2 * j + 1], S->delta[j], NULL, 0);
        if (status < 0)
            return mbs_error_set(err, MBS_FATAL, "out of memory");
        S->gdir_ok[j] = status == 0;
        S->res->geometry_analytical += S->gdir_ok[j] && !S->dynamic_only[j];
        /* a parameter of the dynamics: its bodies reweighted along the drawing's derivative
         * (mass properties alone), or its force laws differenced at a still geometry (no body
         * of its own), or else its part of the model evaluated twice */
        if (S->dynamic_only[j]) {
            const unsigned char *bodies = S->part_bodies + (size_t)m->nbodies * j;
            int own_bodies = 0;
            for (int b = 0; b < m->nbodies; ++b)
                own_bodies |= bodies[b];
            S->dynamic_way[j] = S->gdir_ok[j] ? MR_DYNAMIC_MASSES
                                : !own_bodies && !memcmp(m->gravity, S->pmodel[2 * j]->gravity,
                                                         sizeof m->gravity)
                                    ? MR_DYNAMIC_LAWS
                                    : MR_DYNAMIC_PART;
        }
    }
    S->tangent_ctx[0] = S;
    const MbsTangentProblem tp = {.nx = 2 * d, .nr = S->nout, .residual = mr_sens_state_residual,
                                  .contexts = S->tangent_ctx, .nthreads = 1};
    S->map_ctx[0] = S;
    const MbsTangentProblem mp = {.nx = 2 * d, .nr = S->nx, .residual = mr_sens_map_residual,
                                  .contexts = S->map_ctx, .nthreads = 1};
    /* ad: the state columns by matrix-r's directional derivatives; the rare change of
     * partition's map (eval_map) keeps central differences */
    if (mbs_jacobian_method_uses_pattern((MbsJacobianMethod)S->opt.jacobian))
        return mbs_error_set(err, MBS_FATAL, "matrix-r sensitivities: the state derivatives "
                             "'%s' are not offered (the reduced tangent is dense); choose "
                             "analytical, ad, nd-forward or nd-central",
                             mbs_jacobian_method_name((MbsJacobianMethod)S->opt.jacobian));
    S->ad = S->opt.jacobian == MBS_JACOBIAN_AD || S->opt.jacobian == MBS_JACOBIAN_ANALYTICAL;
    MbsJacobianMethod differences =
        S->ad ? MBS_JACOBIAN_ND_CENTRAL : (MbsJacobianMethod)S->opt.jacobian;
    if (S->ad) {
        if (mbs_matrix_r_prepare_directions(S->probe, err) ||
            (S->method == MBS_SENS_DIRECT && mbs_matrix_r_prepare_directions(S->stepper, err)))
            return MBS_FATAL;
        /* the objectives along the analytical directions read the motion those computed */
        if (S->opt.jacobian == MBS_JACOBIAN_ANALYTICAL && S->obj.directional &&
            (mbs_matrix_r_keep_direction_motion(S->probe, err) ||
             (S->method == MBS_SENS_DIRECT && mbs_matrix_r_keep_direction_motion(S->stepper, err))))
            return MBS_FATAL;
        if (mbs_kinematics_init(&S->kin, m))
            return mbs_error_set(err, MBS_FATAL, "out of memory");
        S->kin.clock = &S->t;
        S->xt = calloc(3 * (size_t)n + 1, sizeof(double));
        size_t cols = (size_t)(n > MBS_DUAL_WIDTH ? n : MBS_DUAL_WIDTH);
        S->sz = calloc((size_t)d * cols + 1, sizeof(double));
        S->sv = calloc((size_t)d * cols + 1, sizeof(double));
        S->dF = calloc((size_t)d * cols + 1, sizeof(double));
        size_t nn = (size_t)n + 1;
        S->Eg = calloc(4 * nn * nn, sizeof(double));
        S->ep = calloc(4 * nn, sizeof(double));
        S->em = calloc(4 * nn, sizeof(double));
        S->gexp = calloc(2 * (size_t)(k + 1) * nn, sizeof(double));
        S->dFg = calloc((size_t)(d + 1) * nn, sizeof(double));
        S->gcols = calloc(nn, sizeof(int));
        if (!S->xt || !S->sz || !S->sv || !S->dF || !S->Eg || !S->ep || !S->em || !S->gexp ||
            !S->dFg || !S->gcols)
            return mbs_error_set(err, MBS_FATAL, "out of memory");
    }
    if ((!S->ad && mbs_tangent_init(&S->tangent, &tp, differences, err)) ||
        mbs_tangent_init(&S->map_tangent, &mp, differences, err))
        return MBS_FATAL;
    return 0;
}

static int stoppable_sensitivity(const MbsModel *m, const MbsSettings *s, const int *params,
                                 int np, const MbsSensObjectives *objectives,
                                 MbsSensMethod method, const MbsMatrixRSensOptions *options,
                                 double t_end, MbsSensObserver observer, void *observer_data,
                                 const volatile int *stop, MbsSensResult *out, MbsError *err)
{
    memset(out, 0, sizeof *out);
    Sens S = {.model = m, .p = np, .params = params, .obj = *objectives, .method = method,
              .err = err, .res = out, .observer = observer, .observer_data = observer_data,
              .stop = stop};
    if (options)
        S.opt = *options;
    else
        mbs_setting_table_defaults(&mbs_matrix_r_sens_settings, &S.opt);
    out->nobjectives = objectives->count;
    out->nparameters = np;
    out->psi = calloc((size_t)objectives->count + 1, sizeof(double));
    out->gradient = calloc((size_t)objectives->count * np + 1, sizeof(double));
    int status = !out->psi || !out->gradient ? mbs_error_set(err, MBS_FATAL, "out of memory")
                                             : sens_setup(&S, s);
    out->dofs = S.d;
    S.h = s->step;
    S.N = mbs_run_step_count(t_end, S.h);
    if (!status && method == MBS_SENS_ADJOINT) {
        size_t per_state = sizeof(MbsCheckpoint) + sizeof(double) * (size_t)S.state.size;
        if (!(status = plan_storage(&S, per_state)) &&
            (alloc_checkpoints(&S.stored, &S.stored_values, S.nstored, &S.state) ||
             (S.K > 1 &&
              alloc_checkpoints(&S.segment, &S.segment_values, S.K + 1, &S.state))))
            status = mbs_error_set(err, MBS_FATAL, "out of memory");
        out->stored_bytes = per_state * (size_t)(S.nstored + (S.K > 1 ? S.K + 1 : 0));
    }
    double t0 = mbs_clock_now();
    S.clock = t0;
    if (!status)
        status = run_to(&S, t_end, forward_sample);
    if (!status && method == MBS_SENS_ADJOINT) {
        double tb = mbs_clock_now();
        status = adjoint_backward(&S);
        S.t_sens += mbs_clock_now() - tb;
    }
    out->time_sensitivity = S.t_sens;
    sens_free(&S);
    if (status)
        mbs_sens_result_free(out);
    return status;
}

int mbs_matrix_r_sensitivity(const MbsModel *m, const MbsSettings *s, const int *params, int np,
                             const MbsSensObjectives *objectives, MbsSensMethod method,
                             const MbsMatrixRSensOptions *options, double t_end,
                             MbsSensObserver observer, void *observer_data, MbsSensResult *out,
                             MbsError *err)
{
    return stoppable_sensitivity(m, s, params, np, objectives, method, options, t_end, observer,
                                 observer_data, NULL, out, err);
}

/* --- the model's objectives (mbs_objective.h) ---------------------------------------------- */

/* One evaluator of the model's objectives per model (the run's and the 2p with a changed
 * parameter), each with its own initial state as the reference of displacements, as a whole
 * simulation of that model measures them (fd); a reference that must not move with a
 * parameter is a fixed "reference" of the term (five-bar's r20). select (count of them) picks
 * the objectives reported; NULL: all. */
typedef struct {
    int count, capacity;
    const MbsModel **models;
    MbsObjectiveEval **evals;
    const int *select;
    int nselect;
    double *g, *w; /* every objective of the model */
} ModelObjectives;

static int model_objectives_prepare(void *ctx, const MbsModel *m, const MbsFormulation *initial,
                                    MbsError *err)
{
    ModelObjectives *o = ctx;
    if (o->count >= o->capacity)
        return mbs_error_set(err, MBS_FATAL, "matrix-r sensitivities: too many models");
    MbsObjectiveEval *e = mbs_objective_eval_new(m, MBS_COORDINATES_RELATIVE, err);
    if (!e)
        return MBS_FATAL;
    MbsMatrixRView v;
    mbs_matrix_r_view(initial, &v);
    mbs_objective_eval_set_initial(e, v.z, v.zd, v.zdd);
    o->models[o->count] = m;
    o->evals[o->count++] = e;
    return 0;
}

static MbsObjectiveEval *model_objectives_find(ModelObjectives *o, const MbsModel *m);
static void model_objectives_select(const ModelObjectives *o, double *g, double *w);

static int model_objectives_values(void *ctx, const MbsModel *m, const MbsKinematics *kin,
                                   double t, const double *z, const double *zd,
                                   const double *zdd, double *g, double *w)
{
    (void)t;
    ModelObjectives *o = ctx;
    MbsObjectiveEval *e = model_objectives_find(o, m);
    if (!e)
        return MBS_FATAL;
    mbs_objective_eval_values_kinematics(e, kin, z, zd, zdd, o->g, o->w);
    model_objectives_select(o, g, w);
    return 0;
}

/* The selected objectives of the model's evaluator for m (ModelObjectives.g, .w hold every
 * objective) into g and w. */
static MbsObjectiveEval *model_objectives_find(ModelObjectives *o, const MbsModel *m)
{
    for (int i = 0; i < o->count; ++i)
        if (o->models[i] == m)
            return o->evals[i];
    return NULL;
}

static void model_objectives_select(const ModelObjectives *o, double *g, double *w)
{
    for (int j = 0; j < o->nselect; ++j) {
        int k = o->select ? o->select[j] : j;
        g[j] = o->g[k];
        w[j] = o->w[k];
    }
}

static int model_objectives_directional(void *ctx, const MbsModel *m, const MbsKinematics *kin,
                                        const MbsConstraintsDerivatives *cw, const double *A,
                                        const double *z, const double *zd, const double *dz,
                                        const double *dzd, double *dg, double *dw)
{
    ModelObjectives *o = ctx;
    MbsObjectiveEval *e = model_objectives_find(o, m);
    if (!e)
        return MBS_FATAL;
    mbs_objective_eval_directional(e, kin, cw, A, z, zd, dz, dzd, o->g, o->w);
    model_objectives_select(o, dg, dw);
    return 0;
}

static int objectives_sensitivity(const MbsModel *m, const MbsSettings *s, const int *objectives,
                                  int nobjectives, const int *params, int np,
                                  MbsSensMethod method, const MbsMatrixRSensOptions *options,
                                  double t_end, MbsSensObserver observer, void *observer_data,
                                  const volatile int *stop, MbsSensResult *out, MbsError *err)
{
    memset(out, 0, sizeof *out);
    if (m->nobjectives < 1 || nobjectives < 1)
        return mbs_error_set(err, MBS_FATAL, "model '%s': no objectives to differentiate",
                             m->name);
    ModelObjectives o = {.capacity = 2 * np + 1, .select = objectives, .nselect = nobjectives};
    o.models = calloc((size_t)o.capacity, sizeof *o.models);
    o.evals = calloc((size_t)o.capacity, sizeof *o.evals);
    o.g = calloc(2 * (size_t)m->nobjectives, sizeof(double));
    o.w = o.g ? o.g + m->nobjectives : NULL;
    int status;
    if (!o.models || !o.evals || !o.g) {
        status = mbs_error_set(err, MBS_FATAL, "out of memory");
    } else {
        MbsSensObjectives obj = {.count = nobjectives, .values = model_objectives_values,
                                 .prepare = model_objectives_prepare,
                                 .directional = model_objectives_directional, .ctx = &o};
        status = stoppable_sensitivity(m, s, params, np, &obj, method, options, t_end,
                                       observer, observer_data, stop, out, err);
    }
    for (int i = 0; i < o.count; ++i)
        mbs_objective_eval_free(o.evals[i]);
    free(o.models);
    free(o.evals);
    free(o.g);
    return status;
}

int mbs_matrix_r_model_sensitivity(const MbsModel *m, const MbsSettings *s, const int *params,
                                   int np, MbsSensMethod method,
                                   const MbsMatrixRSensOptions *options, double t_end,
                                   MbsSensObserver observer, void *observer_data,
                                   MbsSensResult *out, MbsError *err)
{
    return objectives_sensitivity(m, s, NULL, m->nobjectives, params, np, method, options, t_end,
                                  observer, observer_data, NULL, out, err);
}

/* --- eslabon-cli sensitivity's registry (mbs_sensitivity.h) -------------------------------- */

typedef struct {
    const MbsSensitivityProblem *p;
    MbsSensMethod method;
    long calls;
} History;

/* The direct method's history (forward in time), and every method's progress. */
static void history_sample(void *data, const MbsSensResult *r)
{
    History *h = data;
    const MbsSensitivityProblem *p = h->p;
    if (h->method == MBS_SENS_DIRECT && (p->history || p->state_history)) {
        int every = p->history_every > 1 ? p->history_every : 1;
        if (h->calls++ % every == 0) {
            if (p->history)
                p->history(p->history_data, r->time, r->psi, r->gradient);
            if (p->state_history && r->coordinate_sensitivity)
                p->state_history(p->state_history_data, r->time, r->ncoords, r->coordinates,
                                 r->coordinate_sensitivity);
        }
    }
    double T = p->settings->duration;
    if (p->progress && T > 0) {
        double f = fmin(fmax(r->time / T, 0.0), 1.0); /* the last grid time may pass T */
        p->progress(p->progress_data, h->method == MBS_SENS_DIRECT ? f
                                      : r->backward                ? 1.0 - 0.5 * f
                                                                   : 0.5 * f);
    }
}

static int registry_sensitivity(const MbsSensitivityProblem *p, MbsSensMethod method,
                                MbsSensitivityResult *r, MbsError *err)
{
    if (strcmp(p->formulation, "matrix-r"))
        return mbs_error_set(err, MBS_FATAL, "matrix-r sensitivities for formulation '%s'",
                             p->formulation);
    History h = {.p = p, .method = method};
    MbsSensResult out;
    int status = objectives_sensitivity(p->model, p->settings, p->objectives, p->nobjectives,
                                        p->parameters, p->nparameters, method,
                                        p->method_options,
                                        p->settings->duration,
                                        /* histories run forward in time: direct only */
                                        ((p->history || p->state_history) &&
                                         method == MBS_SENS_DIRECT) || p->progress
                                            ? history_sample
                                            : NULL,
                                        &h, p->stop, &out, err);
    if (status)
        return status;
    memcpy(r->psi, out.psi, sizeof(double) * (size_t)p->nobjectives);
    memcpy(r->gradient, out.gradient, sizeof(double) * (size_t)p->nobjectives * p->nparameters);
    r->time_dynamics = out.time_dynamics;
    r->time_sensitivity = out.time_sensitivity;
    r->steps = out.steps;
    mbs_sens_result_free(&out);
    return 0;
}

static int direct_sensitivity(const MbsSensitivityProblem *p, MbsSensitivityResult *r,
                              MbsError *err)
{
    return registry_sensitivity(p, MBS_SENS_DIRECT, r, err);
}

static int adjoint_sensitivity(const MbsSensitivityProblem *p, MbsSensitivityResult *r,
                               MbsError *err)
{
    return registry_sensitivity(p, MBS_SENS_ADJOINT, r, err);
}

const MbsSensitivityMethodClass mbs_sens_matrix_r_direct = {
    .formulation = "matrix-r",
    .method = MBS_SENSITIVITY_DIRECT,
    .run = direct_sensitivity,
    .check = mbs_matrix_r_sensitivity_check,
    .settings = &mbs_matrix_r_sens_settings,
    /* its independent sensitivities mapped to every coordinate (history_sample) */
    .has_state_history = 1,
};

const MbsSensitivityMethodClass mbs_sens_matrix_r_adjoint = {
    .formulation = "matrix-r",
    .method = MBS_SENSITIVITY_ADJOINT,
    .run = adjoint_sensitivity,
    .check = mbs_matrix_r_sensitivity_check,
    .settings = &mbs_matrix_r_sens_settings,
};
