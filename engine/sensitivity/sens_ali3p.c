/* `ali3p` direct sensitivities (paper 004 sec 3): the tangent linear model of the discrete
 * scheme form_ali3p.c runs, stepped after each of its steps, so that it is the derivative of the
 * run that fd differentiates. Three tangent linear models per step, each solved by the same
 * augmented Lagrangian iteration the scheme uses (redundant constraints need no special care):
 *
 * Dynamics (eqs 1-5 at convergence: M qdd* + Phi_q^T lambda* = Q, Phi = 0, Newmark qd*, qdd*
 * from q1): with W = R_q + gamma/(beta h) R_qd + 1/(beta h^2) M, R = M qdd + Phi_q^T lambda - Q,
 *   (W + alpha Phi_q^T Phi_q) s_q = -dR(0, -s_qd_hat, -s_qdd_hat, e_k)
 *                                   - Phi_q^T (s_lambda + alpha Phi_rho),
 *   s_lambda += alpha (Phi_q s_q + Phi_rho)              (the lambda* iteration, eq 1b)
 * until Phi_q s_q + Phi_rho = 0; s_qd* = gamma/(beta h) s_q - s_qd_hat, s_qdd* likewise.
 * Velocity projection (eq 6 at convergence: M (qd - qd*) + Phi_q^T sigma = 0,
 * Phi_q qd + Phi_t = 0), with P = M + zeta alpha Phi_q^T Phi_q, zeta = beta h^2:
 *   P s_qd = M s_qd* - d[M (qd - qd*) + Phi_q^T sigma](s_q, e_k) - Phi_q^T (s_sigma + zeta alpha c1)
 *   s_sigma += zeta alpha (Phi_q s_qd + c1),   c1 = d[Phi_q qd + Phi_t](s_q, e_k)
 * Acceleration projection (eq 7): the same with qdd, kappa and c2 = d[Phi_q qdd + c](s_q,
 * s_qd, e_k). sigma and kappa are the nominal projections' multipliers, recomputed here by the
 * same iteration from zero (the formulation keeps only lambda* + kappa).
 *
 * How each piece is obtained, as sens_penalty.c: [R_qd, R_q] with qdd and lambda* frozen by
 * parts (tangent_by_parts; the whole residual by forward differences if the run's `jacobian`
 * is nd-forward); derivatives along a direction and a parameter by central differences with
 * the models rho_k +- d_k (sens_direct.h); the initial sensitivities by central differences of the formulation's own initial state (its
 * assembly, velocity projection and consistent accelerations) for those models.
 * What is not differentiated: the scheme stops its iterations at the Newton tolerance, so fd
 * differentiates converged-to-tolerance values while this is the derivative of the converged
 * solution (difference ~ tolerance / d); projection `mdk` (P with K and C: their derivatives
 * would be second derivatives of Q) is refused.
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "form_ali3p_private.h"
#include "mbs_alloc.h"
#include "mbs_linalg.h"
#include "mbs_natural.h"
#include "mbs_tangent.h"
#include "mbs_sensitivity_method.h"
#include "sens_direct.h"

/* What the direct method refuses before it starts: projection 'mdk' (registry's check). */
static int direct_check(const MbsSettings *s, MbsError *err)
{
    const Ali3pOptions *o = mbs_ali3p_options(s);
    if (o && o->projection == PROJECTION_MDK)
        return mbs_error_set(err, MBS_FATAL, "ali3p direct: projection 'mdk' is not "
                             "differentiated (its matrix holds K and C; use 'mass' or fd)");
    return 0;
}

typedef struct Ali3pDirect Ali3pDirect;

/* Evaluation workspace of one model (the nominal one or rho_k +- d_k). */
typedef struct {
    const Ali3pDirect *D;
    MbsNatural *nat;
    double *M, *phi, *phiq, *phit, *cb, *Q, *grad, *Mv;
    MbsNatJacRow *rows; /* Phi_q as m sparse rows (two 12-column blocks each): the products */
} Eval;

struct Ali3pDirect {
    SensDirect S;
    int n, m, np;
    double alpha, beta, gamma, h, zeta, tolerance, t;
    int max_iterations;
    Eval base, *plus, *minus;
    int by_parts;     /* the tangent as tangent_by_parts; else the tangent interface's */
    MbsTangent tangent;
    void *ctx[1];
    double *J, *A, *P; /* tangent [R_qd, R_q]; dynamics and projection matrices (LU) */
    int *ipiv_A, *ipiv_P;
    double *state, *angle_ref, *lambda, *sigma, *kappa;
    double *q0, *qd0, *qdd0, *qds, *qdds, *diff, *mult, *x;
    double *sl; /* m x np: d lambda* / d rho */
    double *sq1, *sqds, *sqdds, *dir_qd, *dir_qdd, *rhs, *dr, *c, *res, *mu;
    double *xpert, *Qp, *Qm, *rc; /* the tangent by parts: 2n, n, n, n */
    /* d(Phi_q)_{row,col}/dq_j, constant without drivers (Phi_q affine in q): nhess entries */
    int nhess, *hess_row, *hess_col, *hess_j;
    double *hess_val;
};

/* ---- the functions the scheme is made of (natural coordinates, dense) --------------------- */

/* Phi, Phi_q (m sparse rows), Phi_t and, with qd, the bias c at q with e's model. */
static void constraints(Eval *e, const double *q, const double *qd)
{
    mbs_natural_constraint_rows(e->nat, q, qd, e->D->t, e->phi, e->rows, e->phit,
                                qd ? e->cb : NULL);
}

/* e->phiq (m x n, dense) from the rows of the last constraints() */
static void dense_phiq(Eval *e)
{
    int n = e->D->n, m = e->D->m;
    memset(e->phiq, 0, sizeof(double) * (size_t)m * (size_t)n);
    for (int i = 0; i < m; ++i)
        for (int p = 0; p < 2; ++p)
            if (e->rows[i].off[p] >= 0)
                for (int k = 0; k < 12; ++k)
                    e->phiq[i + (size_t)m * (e->rows[i].off[p] + k)] += e->rows[i].v[p][k];
}

/* out (n) = Phi_q^T v + s out */
static void phiq_t_mul(const Eval *e, const double *v, double s, double *out)
{
    int n = e->D->n, m = e->D->m;
    for (int j = 0; j < n; ++j)
        out[j] *= s;
    for (int i = 0; i < m; ++i)
        for (int p = 0; p < 2; ++p)
            if (e->rows[i].off[p] >= 0)
                for (int k = 0; k < 12; ++k)
                    out[e->rows[i].off[p] + k] += e->rows[i].v[p][k] * v[i];
}

/* out (m) = Phi_q x + add */
static void phiq_mul(const Eval *e, const double *x, const double *add, double *out)
{
    int m = e->D->m;
    for (int i = 0; i < m; ++i) {
        double a = add ? add[i] : 0.0;
        for (int p = 0; p < 2; ++p)
            if (e->rows[i].off[p] >= 0)
                for (int k = 0; k < 12; ++k)
                    a += e->rows[i].v[p][k] * x[e->rows[i].off[p] + k];
        out[i] = a;
    }
}

/* out (n) = M v + s out */
static void mass_mul(const Eval *e, const double *v, double s, double *out)
{
    int n = e->D->n;
    mbs_natural_mass_mul(e->nat, v, e->Mv); /* M's 12 x 12 blocks, one per body */
    for (int i = 0; i < n; ++i)
        out[i] = s * out[i] + e->Mv[i];
}

/* R = M qdd + Phi_q^T lambda* - Q(q, qd) */
static void dynamic_residual(void *ctx, const double *q, const double *qd, const double *qdd,
                             double *out)
{
    Eval *e = ctx;
    const Ali3pDirect *D = e->D;
    mbs_natural_forces(e->nat, q, qd, D->angle_ref, e->grad, e->Q, NULL);
    constraints(e, q, NULL);
    for (int i = 0; i < D->n; ++i)
        out[i] = -e->Q[i];
    mass_mul(e, qdd, 1.0, out);
    phiq_t_mul(e, D->lambda, 1.0, out);
}

/* The functions below return two blocks from one evaluation of the constraints, so that a
 * directional derivative of both costs one evaluation per side: out = [n entries; m entries]. */

/* [R = M qdd + Phi_q^T lambda* - Q(q, qd); Phi(q)] */
static void dynamics_and_constraints(void *ctx, const double *q, const double *qd,
                                     const double *qdd, double *out)
{
    Eval *e = ctx;
    dynamic_residual(e, q, qd, qdd, out);
    memcpy(out + e->D->n, e->phi, sizeof(double) * (size_t)e->D->m);
}

/* The projections' stationarity M(q) diff + Phi_q(q)^T mult (diff, mult: D's, fixed) */
static void projection_residual(Eval *e, double *out)
{
    memset(out, 0, sizeof(double) * (size_t)e->D->n);
    mass_mul(e, e->D->diff, 0.0, out);
    phiq_t_mul(e, e->D->mult, 1.0, out);
}

/* [M diff + Phi_q^T mult; Phi_dot = Phi_q qd + Phi_t] */
static void velocity_projection(void *ctx, const double *q, const double *qd, const double *qdd,
                                double *out)
{
    Eval *e = ctx;
    (void)qdd;
    constraints(e, q, NULL);
    projection_residual(e, out);
    phiq_mul(e, qd, e->phit, out + e->D->n);
}

/* [M diff + Phi_q^T mult; Phi_ddot = Phi_q qdd + c(q, qd)] */
static void acceleration_projection(void *ctx, const double *q, const double *qd,
                                    const double *qdd, double *out)
{
    Eval *e = ctx;
    constraints(e, q, qd);
    projection_residual(e, out);
    phiq_mul(e, qdd, e->cb, out + e->D->n);
}

/* The tangent's residual: R with qdd* and lambda* frozen, x = [qd, q]. */
static int frozen_residual(void *ctx, const double *x, int column, double step, double *r)
{
    Eval *e = ctx;
    (void)column, (void)step;
    dynamic_residual(e, x + e->D->n, x, e->D->qdds, r);
    return 0;
}

/* J = [R_qd, R_q] at x = [qd, q] by parts: -Q_qd, -Q_q by central differences of the forces
 * alone (mbs_natural_forces: no constraints, no mass product), and d(Phi_q^T lambda*)/dq by a
 * unit forward difference, exact because every constraint is at most quadratic in natural
 * coordinates (mbs_natural.h), so Phi_q is affine in q. M is constant. */
static void tangent_by_parts(Ali3pDirect *D, const double *x, double *J)
{
    Eval *e = &D->base;
    int n = D->n;
    size_t nn = (size_t)n;
    memcpy(D->xpert, x, sizeof(double) * 2 * nn);
    for (int j = 0; j < 2 * n; ++j) {
        volatile double up = x[j] + cbrt(DBL_EPSILON) * fmax(1.0, fabs(x[j]));
        double d = up - x[j];
        D->xpert[j] = up;
        mbs_natural_forces(e->nat, D->xpert + n, D->xpert, D->angle_ref, e->grad, D->Qp, NULL);
        D->xpert[j] = x[j] - d;
        mbs_natural_forces(e->nat, D->xpert + n, D->xpert, D->angle_ref, e->grad, D->Qm, NULL);
        D->xpert[j] = x[j];
        for (int i = 0; i < n; ++i)
            J[i + nn * (size_t)j] = -(D->Qp[i] - D->Qm[i]) / (2.0 * d);
    }
    const double *q = x + n;
    if (D->hess_val) { /* sum_i lambda*_i d^2 Phi_i / dq dq from the stored entries */
        for (int t = 0; t < D->nhess; ++t)
            J[nn * nn + (size_t)D->hess_col[t] + nn * (size_t)D->hess_j[t]] +=
                D->lambda[D->hess_row[t]] * D->hess_val[t];
        return;
    }
    constraints(e, q, NULL);
    memset(D->rc, 0, sizeof(double) * nn);
    phiq_t_mul(e, D->lambda, 0.0, D->rc);
    for (int j = 0; j < n; ++j) {
        D->xpert[n + j] = q[j] + 1.0;
        constraints(e, D->xpert + n, NULL);
        D->xpert[n + j] = q[j];
        memset(D->Qp, 0, sizeof(double) * nn);
        phiq_t_mul(e, D->lambda, 0.0, D->Qp);
        double *column = J + nn * nn + nn * (size_t)j;
        for (int i = 0; i < n; ++i)
            column[i] += D->Qp[i] - D->rc[i];
    }
}

/* The constant second derivatives of Phi when no joint is driven (a driver's rows depend on t):
 * Phi_q(e_j) - Phi_q(0), exact for an affine Phi_q, kept where not zero. 0 or -1 (memory). */
static int store_constraint_hessian(Ali3pDirect *D, const MbsModel *model)
{
    for (int j = 0; j < model->njoints; ++j)
        if (model->joints[j].driven)
            return 0;
    Eval *e = &D->base;
    int n = D->n, m = D->m;
    size_t mn = (size_t)m * (size_t)n;
    double *phiq0 = malloc(sizeof(double) * (mn ? mn : 1)); /* Phi_q(0), made before the run */
    if (!phiq0)
        return -1;
    memset(D->xpert, 0, sizeof(double) * (size_t)n);
    constraints(e, D->xpert, NULL);
    dense_phiq(e);
    memcpy(phiq0, e->phiq, sizeof(double) * mn);
    for (int pass = 0; pass < 2; ++pass) {
        int count = 0;
        for (int j = 0; j < n; ++j) {
            D->xpert[j] = 1.0;
            constraints(e, D->xpert, NULL);
            dense_phiq(e);
            D->xpert[j] = 0.0;
            for (size_t a = 0; a < mn; ++a) {
                double v = e->phiq[a] - phiq0[a];
                if (v == 0.0)
                    continue;
                if (pass == 1) {
                    D->hess_row[count] = (int)(a % (size_t)m);
                    D->hess_col[count] = (int)(a / (size_t)m);
                    D->hess_j[count] = j;
                    D->hess_val[count] = v;
                }
                ++count;
            }
        }
        if (pass == 0) {
            D->nhess = count;
            D->hess_row = calloc((size_t)count + 1, sizeof(int));
            D->hess_col = calloc((size_t)count + 1, sizeof(int));
            D->hess_j = calloc((size_t)count + 1, sizeof(int));
            D->hess_val = calloc((size_t)count + 1, sizeof(double));
            if (!D->hess_row || !D->hess_col || !D->hess_j || !D->hess_val) {
                free(phiq0);
                return -1;
            }
        }
    }
    free(phiq0);
    return 0;
}

/* The augmented Lagrangian iteration of the scheme on linear equations: with LU = W + za
 * Phi_q^T Phi_q factorized, x = LU^-1 (rhs0 - Phi_q^T (mu + za c)), mu += za (Phi_q x + c)
 * until Phi_q x + c = 0 (to the tolerance relative to x). */
static void al_solve(Ali3pDirect *D, const double *LU, const int *ipiv, double za,
                     const double *rhs0, const double *c, double *mu, double *x)
{
    int n = D->n, m = D->m;
    for (int it = 0; it < D->max_iterations; ++it) {
        for (int i = 0; i < m; ++i)
            D->res[i] = -(mu[i] + za * c[i]);
        memcpy(x, rhs0, sizeof(double) * (size_t)n);
        phiq_t_mul(&D->base, D->res, 1.0, x);
        mbs_lu_solve(n, LU, ipiv, x, 1);
        phiq_mul(&D->base, x, c, D->res);
        for (int i = 0; i < m; ++i)
            mu[i] += za * D->res[i];
        if (mbs_vec_norminf(m, D->res) <= D->tolerance * fmax(1.0, mbs_vec_norminf(n, x)))
            break;
    }
}

/* ---- set-up ---------------------------------------------------------------------------- */


static int eval_init(Eval *e, const Ali3pDirect *D, const MbsModel *m, MbsError *err)
{
    int fail = 0;
    size_t n = (size_t)D->n, mm = (size_t)D->m;
    e->D = D;
    e->nat = mbs_natural_new(m, err);
    if (!e->nat)
        return MBS_FATAL;
    e->nat->clock = &D->t; /* the step's */
    e->M = mbs_calloc_doubles(n * n, &fail);
    e->phi = mbs_calloc_doubles(mm, &fail);
    e->phiq = mbs_calloc_doubles(mm * n, &fail);
    e->rows = calloc(mm ? mm : 1, sizeof *e->rows);
    if (!e->rows)
        fail = 1;
    e->phit = mbs_calloc_doubles(mm, &fail);
    e->cb = mbs_calloc_doubles(mm, &fail);
    e->Q = mbs_calloc_doubles(n, &fail);
    e->grad = mbs_calloc_doubles(n, &fail);
    e->Mv = mbs_calloc_doubles(n, &fail);
    if (fail)
        return mbs_error_set(err, MBS_FATAL, "out of memory");
    mbs_natural_mass(e->nat, e->M);
    return 0;
}

static void eval_free(Eval *e)
{
    if (e->nat)
        mbs_natural_free(e->nat);
    double *arrays[] = {e->M, e->phi, e->phiq, e->phit, e->cb, e->Q, e->grad, e->Mv};
    for (size_t i = 0; i < sizeof arrays / sizeof arrays[0]; ++i)
        free(arrays[i]);
    free(e->rows);
    memset(e, 0, sizeof *e);
}

static void direct_free(Ali3pDirect *D)
{
    eval_free(&D->base);
    for (int k = 0; D->plus && k < D->np; ++k) {
        eval_free(&D->plus[k]);
        eval_free(&D->minus[k]);
    }
    free(D->plus), free(D->minus), free(D->ipiv_A), free(D->ipiv_P);
    free(D->hess_row), free(D->hess_col), free(D->hess_j), free(D->hess_val);
    mbs_tangent_free(&D->tangent);
    double *arrays[] = {D->J, D->A, D->P, D->state, D->angle_ref, D->lambda, D->sigma,
                        D->kappa, D->q0, D->qd0, D->qdd0, D->qds, D->qdds, D->diff, D->mult,
                        D->x, D->sl, D->sq1, D->sqds, D->sqdds, D->dir_qd, D->dir_qdd, D->rhs,
                        D->dr, D->c, D->res, D->mu, D->xpert, D->Qp, D->Qm, D->rc};
    for (size_t i = 0; i < sizeof arrays / sizeof arrays[0]; ++i)
        free(arrays[i]);
    sens_direct_free(&D->S);
}

/* The scheme's settings, read from a formulation made with the problem's settings (its
 * defaults when the settings hold another formulation's options). */
static int read_settings(Ali3pDirect *D, const MbsFormulation *f, MbsError *err)
{
    const MbsSettings *s = &f->settings;
    const Ali3pOptions *o = mbs_ali3p_options(s);
    if (!o)
        return mbs_error_set(err, MBS_FATAL, "ali3p direct: the settings hold no ali3p options");
    D->alpha = o->alpha;
    D->beta = o->newmark_beta;
    D->gamma = o->newmark_gamma;
    D->tolerance = o->newton.tolerance;
    int it = o->newton.max_iterations;
    if (direct_check(s, err))
        return MBS_FATAL;
    /* the linear iterations converge at the scheme's rate; a few more than its Newton's */
    D->max_iterations = it > 50 ? it : 50;
    D->h = f->settings.step;
    D->zeta = D->beta * D->h * D->h;
    return 0;
}

/* The formulation's state after init or a step: q, qd, qdd into S, lambda* and the angle
 * branches into D. */
static void read_state(Ali3pDirect *D, const MbsFormulation *f, double *q, double *qd,
                       double *qdd, double *lambda)
{
    size_t n = (size_t)D->n;
    f->klass->state_get(f, D->state);
    memcpy(q, D->state, n * sizeof(double));
    memcpy(qd, D->state + n, n * sizeof(double));
    memcpy(qdd, D->state + 2 * n, n * sizeof(double));
    memcpy(lambda, D->state + 3 * n, (size_t)D->m * sizeof(double));
    memcpy(D->angle_ref, D->state + 3 * n + D->m, sizeof(double) * (size_t)f->model->njoints);
}

/* Initial sensitivities: central differences of the formulation's initial state for the
 * models rho_k +- d_k (its assembly and projections are what the runs fd compares start
 * from). */
static int initial_sensitivities(Ali3pDirect *D, const MbsSensitivityProblem *p, MbsError *err)
{
    SensDirect *S = &D->S;
    int n = D->n, m = D->m;
    for (int k = 0; k < D->np; ++k) {
        double d2 = 2.0 * S->delta[k];
        for (int side = 0; side < 2; ++side) {
            MbsFormulation *f = mbs_formulation_new("ali3p", S->models[2 * k + side],
                                                    p->settings, err);
            if (!f)
                return MBS_FATAL;
            read_state(D, f, side ? S->xm_q : S->xp_q, side ? S->xm_qd : S->xp_qd,
                       side ? S->xm_qdd : S->xp_qdd, side ? D->mu : D->sigma);
            mbs_formulation_free(f);
        }
        for (int i = 0; i < n; ++i) {
            SENS_COL(S, S->sq, k)[i] = (S->xp_q[i] - S->xm_q[i]) / d2;
            SENS_COL(S, S->sqd, k)[i] = (S->xp_qd[i] - S->xm_qd[i]) / d2;
            SENS_COL(S, S->sqdd, k)[i] = (S->xp_qdd[i] - S->xm_qdd[i]) / d2;
        }
        for (int i = 0; i < m; ++i)
            D->sl[(size_t)m * k + i] = (D->sigma[i] - D->mu[i]) / d2;
    }
    return 0;
}

static int direct_init(Ali3pDirect *D, const MbsSensitivityProblem *p, MbsError *err)
{
    memset(D, 0, sizeof *D);
    MbsFormulation *f = mbs_formulation_new("ali3p", p->model, p->settings, err);
    if (!f)
        return MBS_FATAL;
    int status = read_settings(D, f, err);
    D->n = f->klass->ncoords(f);
    int state_size = f->klass->state_size(f);
    mbs_formulation_free(f);
    if (status)
        return status;
    MbsNatural *nat = mbs_natural_new(p->model, err);
    if (!nat)
        return MBS_FATAL;
    D->m = nat->m;
    mbs_natural_free(nat);
    int n = D->n, m = D->m, np = D->np = p->nparameters, fail = 0;
    size_t nn = (size_t)n, mm = (size_t)m;
    if (sens_direct_init(&D->S, p, n, n + m, MBS_COORDINATES_NATURAL, err))
        return MBS_FATAL;
    D->plus = calloc((size_t)np + 1, sizeof *D->plus);
    D->minus = calloc((size_t)np + 1, sizeof *D->minus);
    D->ipiv_A = calloc(nn + 1, sizeof(int));
    D->ipiv_P = calloc(nn + 1, sizeof(int));
    if (!D->plus || !D->minus || !D->ipiv_A || !D->ipiv_P)
        return mbs_error_set(err, MBS_FATAL, "out of memory");
    D->J = mbs_calloc_doubles(2 * nn * nn, &fail);
    D->A = mbs_calloc_doubles(nn * nn, &fail);
    D->P = mbs_calloc_doubles(nn * nn, &fail);
    D->state = mbs_calloc_doubles((size_t)state_size, &fail);
    D->angle_ref = mbs_calloc_doubles((size_t)p->model->njoints, &fail);
    D->sl = mbs_calloc_doubles(mm * (size_t)(np ? np : 1), &fail);
    double **vm[] = {&D->lambda, &D->sigma, &D->kappa, &D->mult, &D->c, &D->res, &D->mu};
    D->xpert = mbs_calloc_doubles(2 * nn, &fail);
    D->Qp = mbs_calloc_doubles(nn, &fail);
    D->Qm = mbs_calloc_doubles(nn, &fail);
    D->rc = mbs_calloc_doubles(nn, &fail);
    D->dr = mbs_calloc_doubles(nn + mm, &fail); /* [n; m]: the merged functions' directional derivatives */
    for (size_t i = 0; i < sizeof vm / sizeof vm[0]; ++i)
        *vm[i] = mbs_calloc_doubles(mm, &fail);
    double **vn[] = {&D->q0, &D->qd0, &D->qdd0, &D->qds, &D->qdds, &D->diff, &D->x, &D->sq1,
                     &D->sqds, &D->sqdds, &D->dir_qd, &D->dir_qdd, &D->rhs};
    for (size_t i = 0; i < sizeof vn / sizeof vn[0]; ++i)
        *vn[i] = mbs_calloc_doubles(2 * nn, &fail); /* x: [qd, q] for the tangent */
    if (fail)
        return mbs_error_set(err, MBS_FATAL, "out of memory");
    if (eval_init(&D->base, D, p->model, err))
        return MBS_FATAL;
    for (int k = 0; k < np; ++k)
        if (eval_init(&D->plus[k], D, D->S.models[2 * k], err) ||
            eval_init(&D->minus[k], D, D->S.models[2 * k + 1], err))
            return MBS_FATAL;
    if (D->base.nat->n != n || D->base.nat->m != m)
        return mbs_error_set(err, MBS_FATAL, "ali3p direct: unexpected natural coordinates");
    /* the tangent by parts (central differences of the forces), unless the run asks forward
     * differences: then forward differences of the whole frozen residual */
    const Ali3pOptions *o = mbs_ali3p_options(p->settings);
    double method = o ? (double)o->tangent.method : NAN;
    D->by_parts = method != MBS_JACOBIAN_ND_FORWARD;
    if (D->by_parts && store_constraint_hessian(D, p->model))
        return mbs_error_set(err, MBS_FATAL, "out of memory");
    MbsJacobianMethod jm = method == MBS_JACOBIAN_ND_FORWARD ? MBS_JACOBIAN_ND_FORWARD
                                                              : MBS_JACOBIAN_ND_CENTRAL;
    D->ctx[0] = &D->base;
    MbsTangentProblem tp = {.nx = 2 * n, .nr = n, .residual = frozen_residual,
                            .contexts = D->ctx, .nthreads = 1, .negate = 0};
    if (mbs_tangent_init(&D->tangent, &tp, jm, err))
        return MBS_FATAL;
    return initial_sensitivities(D, p, err);
}

/* ---- the sensitivity step --------------------------------------------------------------- */

static int start(void *method, SensDirect *S, const MbsFormulation *f, MbsError *err)
{
    Ali3pDirect *D = method;
    (void)err;
    D->t = f->time;
    read_state(D, f, S->q, S->qd, S->qdd, D->lambda);
    return 0;
}

static int step(void *method, SensDirect *S, const MbsFormulation *f, MbsError *err)
{
    Ali3pDirect *D = method;
    int n = D->n, m = D->m;
    double h = D->h, beta = D->beta, gamma = D->gamma, alpha = D->alpha;
    double a1 = gamma / (beta * h), a2 = 1.0 / (beta * h * h);
    size_t bytes = sizeof(double) * (size_t)n;
    Eval *e = &D->base;
    if (fabs(f->time - D->t - h) > 1e-9 * h)
        return mbs_error_set(err, MBS_FATAL, "ali3p direct: a step of %g s, not the step %g s",
                             f->time - D->t, h);
    memcpy(D->q0, S->q, bytes);
    memcpy(D->qd0, S->qd, bytes);
    memcpy(D->qdd0, S->qdd, bytes);
    D->t = f->time;
    read_state(D, f, S->q, S->qd, S->qdd, D->lambda);
    /* Newmark values before the projections (eq 2) */
    for (int i = 0; i < n; ++i) {
        double qd_hat = a1 * D->q0[i] + (gamma / beta - 1.0) * D->qd0[i] +
                        h * (gamma / (2.0 * beta) - 1.0) * D->qdd0[i];
        double qdd_hat = a2 * D->q0[i] + D->qd0[i] / (beta * h) +
                         (1.0 / (2.0 * beta) - 1.0) * D->qdd0[i];
        D->qds[i] = a1 * S->q[i] - qd_hat;
        D->qdds[i] = a2 * S->q[i] - qdd_hat;
    }
    /* dynamics matrix W + alpha Phi_q^T Phi_q at (q1, qd*, qdd*) */
    memcpy(D->x, D->qds, bytes);
    memcpy(D->x + n, S->q, bytes);
    if (D->by_parts)
        tangent_by_parts(D, D->x, D->J);
    else if (frozen_residual(e, D->x, -1, 0.0, D->rhs) ||
             mbs_tangent_eval(&D->tangent, D->x, D->rhs, D->J))
        return mbs_error_set(err, MBS_FATAL, "ali3p direct: the tangent failed at t = %g s",
                             D->t);
    constraints(e, S->q, S->qd); /* Phi_q, Phi_t at q1, c at (q1, qd1) */
    for (size_t i = 0; i < (size_t)n * n; ++i) {
        D->A[i] = D->J[(size_t)n * n + i] + a1 * D->J[i] + a2 * e->M[i];
        D->P[i] = e->M[i];
    }
    for (int r = 0; r < m; ++r) /* alpha Phi_q^T Phi_q, row by row (two blocks each) */
        for (int pa = 0; pa < 2; ++pa)
            for (int pb = 0; pb < 2; ++pb) {
                const MbsNatJacRow *J = &e->rows[r];
                if (J->off[pa] < 0 || J->off[pb] < 0)
                    continue;
                for (int b = 0; b < 12; ++b)
                    for (int a = 0; a < 12; ++a) {
                        double g = J->v[pa][a] * J->v[pb][b];
                        size_t ij = J->off[pa] + a + (size_t)n * (J->off[pb] + b);
                        D->A[ij] += alpha * g;
                        D->P[ij] += D->zeta * alpha * g;
                    }
            }
    if (mbs_lu_factor(n, D->A, D->ipiv_A) || mbs_lu_factor(n, D->P, D->ipiv_P))
        return mbs_error_set(err, MBS_FATAL, "ali3p direct: singular tangent at t = %g s", D->t);
    /* the projections' multipliers sigma, kappa (the nominal projections, from zero) */
    double za = D->zeta * alpha;
    mass_mul(e, D->qds, 0.0, D->rhs);
    memset(D->sigma, 0, sizeof(double) * (size_t)m);
    al_solve(D, D->P, D->ipiv_P, za, D->rhs, e->phit, D->sigma, D->x);
    mass_mul(e, D->qdds, 0.0, D->rhs);
    memset(D->kappa, 0, sizeof(double) * (size_t)m);
    al_solve(D, D->P, D->ipiv_P, za, D->rhs, e->cb, D->kappa, D->x);
    for (int k = 0; k < D->np; ++k) {
        double *sq = SENS_COL(S, S->sq, k), *sqd = SENS_COL(S, S->sqd, k);
        double *sqdd = SENS_COL(S, S->sqdd, k), *sl = D->sl + (size_t)m * k;
        void *plus = &D->plus[k], *minus = &D->minus[k];
        /* dynamics with the lambda* iteration */
        for (int i = 0; i < n; ++i) {
            D->dir_qd[i] = -(a1 * sq[i] + (gamma / beta - 1.0) * sqd[i] +
                             h * (gamma / (2.0 * beta) - 1.0) * sqdd[i]);
            D->dir_qdd[i] = -(a2 * sq[i] + sqd[i] / (beta * h) +
                              (1.0 / (2.0 * beta) - 1.0) * sqdd[i]);
        }
        /* Phi(q) does not read qd, qdd: its part is d Phi / d rho alone */
        sens_direct_directional(S, dynamics_and_constraints, plus, minus, k, n + m, S->q,
                                D->qds, D->qdds, NULL, D->dir_qd, D->dir_qdd, D->dr);
        memcpy(D->c, D->dr + n, sizeof(double) * (size_t)m);
        for (int i = 0; i < n; ++i)
            D->dr[i] = -D->dr[i];
        al_solve(D, D->A, D->ipiv_A, alpha, D->dr, D->c, sl, D->sq1);
        for (int i = 0; i < n; ++i) {
            D->sqds[i] = a1 * D->sq1[i] + D->dir_qd[i];
            D->sqdds[i] = a2 * D->sq1[i] + D->dir_qdd[i];
        }
        /* velocity projection */
        for (int i = 0; i < n; ++i)
            D->diff[i] = S->qd[i] - D->qds[i];
        memcpy(D->mult, D->sigma, sizeof(double) * (size_t)m);
        sens_direct_directional(S, velocity_projection, plus, minus, k, n + m, S->q, S->qd,
                                S->qdd, D->sq1, NULL, NULL, D->dr);
        memcpy(D->c, D->dr + n, sizeof(double) * (size_t)m);
        mass_mul(e, D->sqds, 0.0, D->rhs);
        for (int i = 0; i < n; ++i)
            D->rhs[i] -= D->dr[i];
        memset(D->mu, 0, sizeof(double) * (size_t)m);
        al_solve(D, D->P, D->ipiv_P, za, D->rhs, D->c, D->mu, sqd);
        /* acceleration projection */
        for (int i = 0; i < n; ++i)
            D->diff[i] = S->qdd[i] - D->qdds[i];
        memcpy(D->mult, D->kappa, sizeof(double) * (size_t)m);
        /* the stationarity part does not read qd: along (s_q1, s_qd) as before */
        sens_direct_directional(S, acceleration_projection, plus, minus, k, n + m, S->q, S->qd,
                                S->qdd, D->sq1, sqd, NULL, D->dr);
        memcpy(D->c, D->dr + n, sizeof(double) * (size_t)m);
        mass_mul(e, D->sqdds, 0.0, D->rhs);
        for (int i = 0; i < n; ++i)
            D->rhs[i] -= D->dr[i];
        memset(D->mu, 0, sizeof(double) * (size_t)m);
        al_solve(D, D->P, D->ipiv_P, za, D->rhs, D->c, D->mu, sqdd);
        memcpy(sq, D->sq1, bytes);
    }
    return 0;
}

static int direct_sensitivity(const MbsSensitivityProblem *p, MbsSensitivityResult *r,
                              MbsError *err)
{
    Ali3pDirect *D = calloc(1, sizeof *D);
    if (!D)
        return mbs_error_set(err, MBS_FATAL, "out of memory");
    int status = direct_init(D, p, err);
    if (status == 0) {
        SensDirectScheme scheme = {.formulation = "ali3p", .start = start, .step = step,
                                   .method = D};
        status = sens_direct_run(&D->S, &scheme, r, err);
    }
    direct_free(D);
    free(D);
    return status ? MBS_FATAL : 0;
}

const MbsSensitivityMethodClass mbs_sens_ali3p_direct = {
    .formulation = "ali3p",
    .method = MBS_SENSITIVITY_DIRECT,
    .run = direct_sensitivity,
    .check = direct_check,
    .has_state_history = 1, /* stepped by sens_direct.c */
};
