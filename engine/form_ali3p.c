/* ali3p: global index-3 augmented Lagrangian formulation with velocity and acceleration
 * projections (ALI3-P) in natural coordinates (paper 004 §2; Bayo & Ledesma; Cuadrado et al.).
 *
 * Per step t_{n-1} -> t_n = t_{n-1} + h:
 *   Newmark (eq 2): qd = gamma/(beta h) q - qd_hat, qdd = 1/(beta h^2) q - qdd_hat
 *   Newton-Raphson (eqs 3-5) on
 *     g(q) = beta h^2 [ M qdd + Phi_q^T (lambda* + alpha Phi) - Q ] = 0
 *   with the approximate tangent  M + gamma h C + beta h^2 (Phi_q^T alpha Phi_q + K),
 *   K = -dQ/dq, C = -dQ/dqd by numerical differentiation (settings.jacobian), and the
 *   multiplier update lambda* += alpha Phi at every iterate (eq 1b).
 *   Then projections of velocities (eq 6) and accelerations (eq 7) with
 *     projection 0: P = M, zeta = beta h^2 (mass-orthogonal, Bayo & Ledesma)
 *     projection 1: P = M + gamma h C + beta h^2 K, zeta = beta h^2 (mass-damping-stiffness-
 *                   orthogonal, Cuadrado et al.; the matrix is then the Newton tangent)
 *     projection 2: P = M, zeta = 1 (the paper's literal mass-orthogonal choice)
 *   The converged projection does not depend on zeta, only the conditioning does: with
 *   alpha = 1e9 and zeta = 1, M + alpha Phi_q^T Phi_q loses ~7 digits in the tangential
 *   velocities (see docs/formulations.md §ali3p), hence zeta = beta h^2 by default.
 *   iterating sigma += zeta alpha Phi_dot (6b) and kappa += zeta alpha Phi_ddot (7b).
 * Dense LU (LAPACK dgetrf/dgetrs); everything is allocated in init.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mbs_assembly.h"
#include "mbs_clock.h"
#include "mbs_formulation.h"
#include "mbs_linalg.h"
#include "mbs_natural.h"
#include "mbs_topology.h"

typedef struct {
    MbsNatural *nat;
    int n, m;
    double alpha, beta, gamma;
    double *q, *qd, *qdd, *lambda;       /* state and dynamic multipliers lambda* */
    double *q0, *qd0, *qdd0, *lambda0;   /* state at the start of the step (for a retry) */
    double *qd_hat, *qdd_hat;
    double *M, *T, *K, *C, *P;           /* n x n */
    int *ipiv;
    double *phi, *phiq, *phit, *cb;      /* m, m x n, m, m */
    double *Q, *Qp, *Qm, *g, *rhs, *x, *grad, *mult, *res;
    double *angle_ref;                   /* per joint */
    double power;                        /* non-conservative power at the current state */
    double work;
    int has_KC;
} Ali3p;

static void *xcalloc(size_t n, size_t size, int *fail)
{
    void *p = calloc(n ? n : 1, size);
    if (!p)
        *fail = 1;
    return p;
}

static void ali3p_finalize(MbsFormulation *f)
{
    Ali3p *a = f->impl;
    if (!a)
        return;
    mbs_natural_free(a->nat);
    double *bufs[] = {a->q, a->qd, a->qdd, a->lambda, a->q0, a->qd0, a->qdd0, a->lambda0,
                      a->qd_hat, a->qdd_hat, a->M, a->T, a->K, a->C, a->P, a->phi, a->phiq,
                      a->phit, a->cb, a->Q, a->Qp, a->Qm, a->g, a->rhs, a->x, a->grad, a->mult,
                      a->res, a->angle_ref};
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; ++i)
        free(bufs[i]);
    free(a->ipiv);
    free(a);
    f->impl = NULL;
}

static void forces(Ali3p *a, const double *q, const double *qd, double *Q, MbsNatEnergy *e)
{
    mbs_natural_forces(a->nat, q, qd, a->angle_ref, a->grad, Q, e);
}

/* K = -dQ/dq, C = -dQ/dqd by forward or central differences (Q0 = Q(q, qd)). */
static void stiffness_damping(Ali3p *a, MbsJacobianMethod method, const double *Q0)
{
    int n = a->n;
    int central = method == MBS_JACOBIAN_ND_CENTRAL;
    double eps = central ? 6.0e-6 : 1.5e-8;
    for (int pass = 0; pass < 2; ++pass) {
        double *v = pass == 0 ? a->q : a->qd;
        double *J = pass == 0 ? a->K : a->C;
        for (int j = 0; j < n; ++j) {
            double vj = v[j], d = eps * fmax(1.0, fabs(vj));
            v[j] = vj + d;
            forces(a, a->q, a->qd, a->Qp, NULL);
            if (central) {
                v[j] = vj - d;
                forces(a, a->q, a->qd, a->Qm, NULL);
            }
            v[j] = vj;
            double *col = &J[(size_t)n * j];
            if (central)
                for (int i = 0; i < n; ++i)
                    col[i] = -(a->Qp[i] - a->Qm[i]) / (2.0 * d);
            else
                for (int i = 0; i < n; ++i)
                    col[i] = -(a->Qp[i] - Q0[i]) / d;
        }
    }
}

/* Projection matrix A = P + zeta alpha Phi_q^T Phi_q at the current q, factorized in a->T. */
static int projection_matrix(const MbsFormulation *f, Ali3p *a, int kind, double *zeta)
{
    int n = a->n;
    double h = f->settings.step;
    size_t nn = (size_t)n * n;
    memcpy(a->T, a->M, nn * sizeof(double));
    /* The converged projections do not depend on zeta (eqs 6b, 7b drive Phi_dot, Phi_ddot to
     * zero whatever the weight); zeta sets the iteration rate and the conditioning. */
    *zeta = kind == 2 ? 1.0 : a->beta * h * h;
    if (kind == 1) {
        if (a->has_KC)
            for (size_t i = 0; i < nn; ++i)
                a->T[i] += a->gamma * h * a->C[i] + a->beta * h * h * a->K[i];
    }
    memcpy(a->P, a->T, nn * sizeof(double));
    mbs_gemm_tn(n, n, a->m, *zeta * a->alpha, a->phiq, a->phiq, 1.0, a->T);
    return mbs_lu_factor(n, a->T, a->ipiv);
}

/* Augmented Lagrangian projection (eqs 6, 7): with A = P + zeta Phi_q^T alpha Phi_q factorized
 * in a->T, solve A x = rhs0 - Phi_q^T (mult + zeta alpha b) and update mult += zeta alpha
 * (Phi_q x + b) until ||Phi_q x + b||_inf <= tol. Returns the final residual norm (2-norm). */
static double al_project(Ali3p *a, const double *rhs0, const double *b, double zeta,
                         double *mult, double *x, double tol, int max_it)
{
    int n = a->n, m = a->m;
    double za = zeta * a->alpha, r2 = 0.0;
    for (int it = 0; it < max_it; ++it) {
        for (int i = 0; i < m; ++i)
            a->res[i] = mult[i] + za * b[i];
        memcpy(x, rhs0, (size_t)n * sizeof(double));
        /* x -= Phi_q^T res */
        mbs_gemm_tn(n, 1, m, -1.0, a->phiq, a->res, 1.0, x);
        mbs_lu_solve(n, a->T, a->ipiv, x, 1);
        /* res = Phi_q x + b */
        memcpy(a->res, b, (size_t)m * sizeof(double));
        for (int j = 0; j < n; ++j) {
            double xj = x[j];
            if (xj == 0.0)
                continue;
            const double *col = &a->phiq[(size_t)m * j];
            for (int i = 0; i < m; ++i)
                a->res[i] += col[i] * xj;
        }
        for (int i = 0; i < m; ++i)
            mult[i] += za * a->res[i];
        double rinf = mbs_vec_norminf(m, a->res);
        r2 = mbs_vec_norm2(m, a->res);
        if (rinf <= tol * fmax(1.0, mbs_vec_norminf(n, x)))
            break;
    }
    return r2;
}

/* y = Phi_q v + b (m entries) */
static void phiq_mul(const Ali3p *a, const double *v, const double *b, double *y)
{
    int n = a->n, m = a->m;
    memcpy(y, b, (size_t)m * sizeof(double));
    for (int j = 0; j < n; ++j) {
        const double *col = &a->phiq[(size_t)m * j];
        for (int i = 0; i < m; ++i)
            y[i] += col[i] * v[j];
    }
}

/* Power of the drivers: constraint force -Phi_q^T lambda on the driver rows, power
 * -lambda_d^T Phi_q,d qd (= lambda_d^T Phi_t,d on the velocity manifold). */
static double driver_power(const Ali3p *a, const double *lam)
{
    const MbsNatural *nat = a->nat;
    double P = 0.0;
    int n = a->n, m = a->m;
    for (int i = nat->nrigid; i < m; ++i) {
        if (nat->rows[i].type == MBS_NAT_ROW_DOT)
            continue;
        double s = 0.0;
        for (int j = 0; j < n; ++j)
            s += a->phiq[i + (size_t)m * j] * a->qd[j];
        P -= lam[i] * s;
    }
    return P;
}

/* Energies and constraint norms at the current state (phi, phiq, phit, cb current). */
static void fill_monitors(MbsFormulation *f, Ali3p *a, const double *lam_eff, int accumulate)
{
    MbsMonitors *mo = &f->monitors;
    MbsNatEnergy e;
    forces(a, a->q, a->qd, a->Q, &e);
    double power = e.power_nonconservative + driver_power(a, lam_eff);
    if (accumulate)
        a->work += 0.5 * f->settings.step * (a->power + power);
    a->power = power;
    mo->time = f->time;
    mo->kinetic = e.kinetic;
    mo->potential_gravity = e.potential_gravity;
    mo->potential_elastic = e.potential_elastic;
    mo->work_nonconservative = a->work;
    mo->total = e.kinetic + e.potential_gravity + e.potential_elastic - a->work;
    mo->phi_norm = mbs_vec_norm2(a->m, a->phi);
    phiq_mul(a, a->qd, a->phit, a->res);
    mo->dphi_norm = mbs_vec_norm2(a->m, a->res);
    phiq_mul(a, a->qdd, a->cb, a->res);
    mo->ddphi_norm = mbs_vec_norm2(a->m, a->res);
}

static void update_angle_refs(Ali3p *a, const MbsModel *m)
{
    for (int j = 0; j < m->njoints; ++j)
        if (m->joints[j].type == MBS_JOINT_REVOLUTE)
            a->angle_ref[j] = mbs_natural_joint_coordinate(a->nat, a->q, j, a->angle_ref[j], NULL);
}

static int ali3p_init(MbsFormulation *f, MbsError *err)
{
    const MbsModel *m = f->model;
    const MbsSettings *s = &f->settings;
    if (!(s->newmark_beta > 0.0) || !(s->newmark_beta <= 1.0) || !(s->newmark_gamma >= 0.5) ||
        !(s->newmark_gamma <= 1.0))
        return mbs_error_set(err, MBS_FATAL,
                             "ali3p: Newmark beta = %g must be in (0, 1] and gamma = %g in [0.5, 1]",
                             s->newmark_beta, s->newmark_gamma);
    if (s->projection_kind < 0 || s->projection_kind > 2)
        return mbs_error_set(err, MBS_FATAL,
                             "ali3p: projection %d unknown (0: mass-orthogonal, 1: "
                             "mass-damping-stiffness-orthogonal, 2: mass-orthogonal with "
                             "zeta = 1)", s->projection_kind);
    Ali3p *a = calloc(1, sizeof *a);
    if (!a)
        return mbs_error_set(err, MBS_FATAL, "out of memory");
    f->impl = a;
    a->nat = mbs_natural_new(m, err);
    if (!a->nat)
        return MBS_FATAL;
    int n = a->n = a->nat->n, mm = a->m = a->nat->m;
    a->alpha = s->penalty;
    a->beta = s->newmark_beta;
    a->gamma = s->newmark_gamma;
    a->has_KC = a->nat->q_dependent_forces;
    int fail = 0;
    size_t N = (size_t)n, NN = N * N, MM = (size_t)mm, mx = N > MM ? N : MM;
    a->q = xcalloc(N, sizeof(double), &fail);
    a->qd = xcalloc(N, sizeof(double), &fail);
    a->qdd = xcalloc(N, sizeof(double), &fail);
    a->lambda = xcalloc(MM, sizeof(double), &fail);
    a->q0 = xcalloc(N, sizeof(double), &fail);
    a->qd0 = xcalloc(N, sizeof(double), &fail);
    a->qdd0 = xcalloc(N, sizeof(double), &fail);
    a->lambda0 = xcalloc(MM, sizeof(double), &fail);
    a->qd_hat = xcalloc(N, sizeof(double), &fail);
    a->qdd_hat = xcalloc(N, sizeof(double), &fail);
    a->M = xcalloc(NN, sizeof(double), &fail);
    a->T = xcalloc(NN, sizeof(double), &fail);
    a->K = xcalloc(NN, sizeof(double), &fail);
    a->C = xcalloc(NN, sizeof(double), &fail);
    a->P = xcalloc(NN, sizeof(double), &fail);
    a->ipiv = xcalloc(N, sizeof(int), &fail);
    a->phi = xcalloc(MM, sizeof(double), &fail);
    a->phiq = xcalloc(MM * N, sizeof(double), &fail);
    a->phit = xcalloc(MM, sizeof(double), &fail);
    a->cb = xcalloc(MM, sizeof(double), &fail);
    a->Q = xcalloc(N, sizeof(double), &fail);
    a->Qp = xcalloc(N, sizeof(double), &fail);
    a->Qm = xcalloc(N, sizeof(double), &fail);
    a->g = xcalloc(N, sizeof(double), &fail);
    a->rhs = xcalloc(N, sizeof(double), &fail);
    a->x = xcalloc(N, sizeof(double), &fail);
    a->grad = xcalloc(N, sizeof(double), &fail);
    a->mult = xcalloc(MM, sizeof(double), &fail);
    a->res = xcalloc(mx, sizeof(double), &fail);
    a->angle_ref = xcalloc((size_t)m->njoints, sizeof(double), &fail);
    int nz = mbs_model_ncoords(m);
    double *z = calloc((size_t)nz + 1, sizeof(double)), *zd = calloc((size_t)nz + 1, sizeof(double));
    MbsBodyState *bodies = calloc((size_t)m->nbodies + 1, sizeof *bodies);
    if (fail || !z || !zd || !bodies) {
        free(z);
        free(zd);
        free(bodies);
        return mbs_error_set(err, MBS_FATAL, "out of memory");
    }
    /* The same assembled initial state as every formulation. */
    int st = mbs_assemble(m, s, 0.0, z, zd, bodies, err);
    if (st == 0) {
        mbs_natural_from_bodies(a->nat, bodies, a->q, a->qd);
        /* Revolute angle branches from the relative coordinates of the tree joints. */
        for (int j = 0; j < m->njoints; ++j) {
            int nd = m->topo->joint_node[j];
            double ref = nd >= 0 ? z[nd] : 0.0;
            a->angle_ref[j] = ref;
        }
    }
    free(z);
    free(zd);
    free(bodies);
    if (st != 0)
        return st;
    update_angle_refs(a, m);
    if (n == 0) {
        memset(&f->monitors, 0, sizeof f->monitors);
        return 0;
    }
    mbs_natural_mass(a->nat, a->M);
    /* Velocity projection of the assembled velocities (eq 6, P = M) and consistent initial
     * accelerations: (M + Phi_q^T alpha Phi_q) qdd = Q - Phi_q^T (lambda + alpha c),
     * lambda += alpha Phi_ddot (the acceleration projection with P qdd* = Q). */
    mbs_natural_constraints(a->nat, a->q, a->qd, 0.0, a->phi, a->phiq, a->phit, NULL);
    forces(a, a->q, a->qd, a->Q, NULL);
    if (a->has_KC)
        stiffness_damping(a, s->jacobian, a->Q);
    double zeta;
    int info = projection_matrix(f, a, s->projection_kind == 2 ? 2 : 0, &zeta);
    if (info != 0)
        return mbs_error_set(err, MBS_FATAL,
                             "ali3p: the matrix M + Phi_q^T alpha Phi_q is singular at t = 0 "
                             "(column %d): a body without inertia in a direction no joint fixes?",
                             info);
    int maxit = s->newton_max_iterations > 50 ? s->newton_max_iterations : 50;
    double tol = s->newton_tolerance;
    memset(a->mult, 0, MM * sizeof(double));
    /* rhs = M qd* */
    for (size_t i = 0; i < N; ++i) {
        double v = 0.0;
        for (size_t j = 0; j < N; ++j)
            v += a->M[i + N * j] * a->qd[j];
        a->rhs[i] = v;
    }
    al_project(a, a->rhs, a->phit, zeta, a->mult, a->x, tol, maxit);
    memcpy(a->qd, a->x, N * sizeof(double));
    mbs_natural_constraints(a->nat, a->q, a->qd, 0.0, NULL, NULL, NULL, a->cb);
    forces(a, a->q, a->qd, a->Q, NULL);
    memset(a->lambda, 0, MM * sizeof(double));
    al_project(a, a->Q, a->cb, zeta, a->lambda, a->qdd, tol, maxit);
    /* With P qdd* = Q the multipliers of this projection are the dynamic ones. */
    memset(&f->monitors, 0, sizeof f->monitors);
    a->work = 0.0;
    a->power = 0.0;
    fill_monitors(f, a, a->lambda, 0);
    return 0;
}

static int ali3p_step(MbsFormulation *f, MbsError *err)
{
    Ali3p *a = f->impl;
    const MbsSettings *s = &f->settings;
    MbsMonitors *mo = &f->monitors;
    double t_start = mbs_clock_now(), t_dyn = 0.0, t_jac = 0.0, t_fac = 0.0, t_proj = 0.0, c0;
    int n = a->n, m = a->m;
    size_t N = (size_t)n, NN = N * N;
    double h = s->step, beta = a->beta, gamma = a->gamma, alpha = a->alpha;
    double t = f->time + h;
    if (n == 0) {
        f->time = t;
        mo->time = t;
        return 0;
    }
    memcpy(a->q0, a->q, N * sizeof(double));
    memcpy(a->qd0, a->qd, N * sizeof(double));
    memcpy(a->qdd0, a->qdd, N * sizeof(double));
    memcpy(a->lambda0, a->lambda, (size_t)m * sizeof(double));
    /* Newmark predictors (eq 2) and the initial guess q = q + h qd + h^2/2 qdd. */
    for (size_t i = 0; i < N; ++i) {
        double q = a->q[i], qd = a->qd[i], qdd = a->qdd[i];
        a->qd_hat[i] = gamma / (beta * h) * q + (gamma / beta - 1.0) * qd +
                       h * (gamma / (2.0 * beta) - 1.0) * qdd;
        a->qdd_hat[i] = q / (beta * h * h) + qd / (beta * h) + (1.0 / (2.0 * beta) - 1.0) * qdd;
        a->q[i] = q + h * qd + 0.5 * h * h * qdd;
    }
    int reuse = s->jacobian_reuse > 0 ? s->jacobian_reuse : 1;
    int it, converged = 0, jac_evals = 0;
    double dq_norm = 0.0, tol = s->newton_tolerance;
    double bh2 = beta * h * h;
    for (it = 0; it < s->newton_max_iterations; ++it) {
        c0 = mbs_clock_now();
        for (size_t i = 0; i < N; ++i) {
            a->qd[i] = gamma / (beta * h) * a->q[i] - a->qd_hat[i];
            a->qdd[i] = a->q[i] / (beta * h * h) - a->qdd_hat[i];
        }
        mbs_natural_constraints(a->nat, a->q, NULL, t, a->phi, a->phiq, NULL, NULL);
        if (it > 0) /* eq 1b: lambda*(i+1) = lambda*(i) + alpha Phi(i+1) */
            for (int i = 0; i < m; ++i)
                a->lambda[i] += alpha * a->phi[i];
        forces(a, a->q, a->qd, a->Q, NULL);
        /* eq 3: g = beta h^2 [M qdd + Phi_q^T (lambda* + alpha Phi) - Q] */
        for (int i = 0; i < m; ++i)
            a->res[i] = a->lambda[i] + alpha * a->phi[i];
        for (size_t i = 0; i < N; ++i)
            a->g[i] = -a->Q[i];
        for (size_t j = 0; j < N; ++j) {
            double v = a->qdd[j];
            const double *col = &a->M[N * j];
            for (size_t i = 0; i < N; ++i)
                a->g[i] += col[i] * v;
        }
        mbs_gemm_tn(n, 1, m, 1.0, a->phiq, a->res, 1.0, a->g);
        for (size_t i = 0; i < N; ++i)
            a->g[i] *= -bh2; /* right-hand side -g */
        t_dyn += mbs_clock_now() - c0;
        c0 = mbs_clock_now();
        if (a->has_KC && it % reuse == 0) {
            stiffness_damping(a, s->jacobian, a->Q);
            jac_evals++;
        }
        t_jac += mbs_clock_now() - c0;
        c0 = mbs_clock_now();
        /* eq 5: M + gamma h C + beta h^2 (Phi_q^T alpha Phi_q + K) */
        memcpy(a->T, a->M, NN * sizeof(double));
        if (a->has_KC)
            for (size_t i = 0; i < NN; ++i)
                a->T[i] += gamma * h * a->C[i] + bh2 * a->K[i];
        mbs_gemm_tn(n, n, m, bh2 * alpha, a->phiq, a->phiq, 1.0, a->T);
        int info = mbs_lu_factor(n, a->T, a->ipiv);
        if (info != 0) {
            t_fac += mbs_clock_now() - c0;
            break;
        }
        mbs_lu_solve(n, a->T, a->ipiv, a->g, 1);
        t_fac += mbs_clock_now() - c0;
        dq_norm = mbs_vec_norminf(n, a->g);
        for (size_t i = 0; i < N; ++i)
            a->q[i] += a->g[i];
        if (!isfinite(dq_norm))
            break;
        if (dq_norm <= tol * fmax(1.0, mbs_vec_norminf(n, a->q))) {
            converged = 1;
            ++it;
            break;
        }
    }
    if (!converged) {
        memcpy(a->q, a->q0, N * sizeof(double));
        memcpy(a->qd, a->qd0, N * sizeof(double));
        memcpy(a->qdd, a->qdd0, N * sizeof(double));
        memcpy(a->lambda, a->lambda0, (size_t)m * sizeof(double));
        mbs_natural_constraints(a->nat, a->q, a->qd, f->time, a->phi, a->phiq, a->phit, a->cb);
        return mbs_error_set(err, MBS_RECOVERABLE,
                             "ali3p: Newton-Raphson did not converge at t = %.6g s after %d "
                             "iterations (last correction %.3g, tolerance %.3g; the augmented "
                             "Lagrangian converges faster with a larger penalty factor, now %.3g)",
                             t, it, dq_norm, tol, alpha);
    }
    /* Final state of the iteration: velocities, accelerations, constraints at q_n. */
    c0 = mbs_clock_now();
    for (size_t i = 0; i < N; ++i) {
        a->qd[i] = gamma / (beta * h) * a->q[i] - a->qd_hat[i];
        a->qdd[i] = a->q[i] / (beta * h * h) - a->qdd_hat[i];
    }
    mbs_natural_constraints(a->nat, a->q, NULL, t, a->phi, a->phiq, a->phit, NULL);
    for (int i = 0; i < m; ++i)
        a->lambda[i] += alpha * a->phi[i];
    t_dyn += mbs_clock_now() - c0;

    /* Projections (eqs 6, 7). */
    c0 = mbs_clock_now();
    double zeta;
    if (projection_matrix(f, a, s->projection_kind, &zeta) != 0) {
        memcpy(a->q, a->q0, N * sizeof(double));
        memcpy(a->qd, a->qd0, N * sizeof(double));
        memcpy(a->qdd, a->qdd0, N * sizeof(double));
        memcpy(a->lambda, a->lambda0, (size_t)m * sizeof(double));
        mbs_natural_constraints(a->nat, a->q, a->qd, f->time, a->phi, a->phiq, a->phit, a->cb);
        return mbs_error_set(err, MBS_RECOVERABLE,
                             "ali3p: singular projection matrix at t = %.6g s", t);
    }
    int pmax = s->newton_max_iterations;
    /* velocities: P qd* - Phi_q^T (sigma + zeta alpha Phi_t) */
    for (size_t i = 0; i < N; ++i) {
        double v = 0.0;
        for (size_t j = 0; j < N; ++j)
            v += a->P[i + N * j] * a->qd[j];
        a->rhs[i] = v;
    }
    memset(a->mult, 0, (size_t)m * sizeof(double));
    al_project(a, a->rhs, a->phit, zeta, a->mult, a->x, tol, pmax);
    memcpy(a->qd, a->x, N * sizeof(double));
    /* accelerations: P qdd* - Phi_q^T (kappa + zeta alpha (Phi_q_dot qd + Phi_t_dot)) */
    mbs_natural_constraints(a->nat, a->q, a->qd, t, NULL, NULL, NULL, a->cb);
    for (size_t i = 0; i < N; ++i) {
        double v = 0.0;
        for (size_t j = 0; j < N; ++j)
            v += a->P[i + N * j] * a->qdd[j];
        a->rhs[i] = v;
    }
    memset(a->mult, 0, (size_t)m * sizeof(double));
    al_project(a, a->rhs, a->cb, zeta, a->mult, a->x, tol, pmax);
    memcpy(a->qdd, a->x, N * sizeof(double));
    t_proj = mbs_clock_now() - c0;

    f->time = t;
    update_angle_refs(a, f->model);
    /* Multipliers consistent with the projected accelerations: lambda* + kappa. */
    for (int i = 0; i < m; ++i)
        a->mult[i] += a->lambda[i];
    fill_monitors(f, a, a->mult, 1);
    mo->newton_iterations = it;
    mo->jacobian_evaluations = jac_evals;
    mo->time_dynamics = t_dyn;
    mo->time_jacobian = t_jac;
    mo->time_factorization = t_fac;
    mo->time_projection = t_proj;
    mo->time_step = mbs_clock_now() - t_start;
    return 0;
}

static void ali3p_body_pose(const MbsFormulation *f, int body, double R[9], double p[3])
{
    const Ali3p *a = f->impl;
    mbs_natural_body_pose(a->nat, a->q, body, R, p);
}

static int ali3p_ncoords(const MbsFormulation *f)
{
    const Ali3p *a = f->impl;
    return a->n;
}

static void ali3p_coordinates(const MbsFormulation *f, double *q, double *qd)
{
    const Ali3p *a = f->impl;
    if (q)
        memcpy(q, a->q, (size_t)a->n * sizeof(double));
    if (qd)
        memcpy(qd, a->qd, (size_t)a->n * sizeof(double));
}

static double ali3p_joint_violation(const MbsFormulation *f, int joint)
{
    const Ali3p *a = f->impl;
    if (joint < 0 || joint >= f->model->njoints)
        return 0.0;
    double v = 0.0;
    int r0 = a->nat->joint_row[joint];
    for (int i = r0; i < r0 + a->nat->joint_nrows[joint]; ++i)
        v = fmax(v, fabs(a->phi[i]));
    return v;
}

const MbsFormulationClass mbs_ali3p_class = {
    .name = "ali3p",
    .description = "Index-3 augmented Lagrangian with velocity and acceleration projections in "
                   "natural coordinates (paper 004)",
    .init = ali3p_init,
    .step = ali3p_step,
    .finalize = ali3p_finalize,
    .body_pose = ali3p_body_pose,
    .ncoords = ali3p_ncoords,
    .coordinates = ali3p_coordinates,
    .joint_violation = ali3p_joint_violation,
};
