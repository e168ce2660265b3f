/* `penalty` direct sensitivities: the tangent linear model of its discrete scheme (trapezoidal
 * rule, Newton on the dynamic equilibrium, velocity and acceleration projections; see
 * form_penalty.c), stepped after each step of the dynamics so that it is the derivative of the
 * run that fd differentiates (paper 004 eqs 14, 22-23 and their penalty counterpart; the
 * projections as in eqs 15-16 with the penalty weight h^2/4 alpha).
 *
 * With R(z, zd, zdd, rho) = M zdd + Phi_z^T alpha Phi - Q and the trapezoidal rule
 *   zd* = 2/h z1 - a_hat,  zdd* = 4/h^2 z1 - b_hat,
 * a step's sensitivities s = dz/drho_k solve
 *   A s_z1 = -dR(0, -a_hat_s, -b_hat_s, e_k),   A = R_z + 2/h R_zd + 4/h^2 M        (dynamics)
 *   T (s_zd1 - s_zd*)  = -dG_v(z1, zd1; s_z1, s_zd*, e_k) + dM (zd* - zd1)            (velocities)
 *   T (s_zdd1 - s_zdd*) = -dG_a(z1, zd1, zdd1; s_z1, s_zd1, s_zdd*, e_k) + dM (zdd* - zdd1)
 * where G_v = h^2/4 alpha Phi_z^T (Phi_z zd + Phi_t), G_a = h^2/4 alpha Phi_z^T (Phi_z zdd + c)
 * are the projections' right-hand sides (T (zd - zd*) = -G_v(z1, zd*), ...), T = h^2/4 A, and
 * dF(...) is the derivative of F along a direction of its arguments and of parameter k.
 *
 * How each piece is obtained:
 *  - [R_zd, R_z] with alpha Phi frozen: with `jacobian` analytical (the default) the
 *    derivatives of M zdd* - Q analytically (analytical_tangent) plus Phi_zz^T lambda by
 *    dual numbers of the constraint reactions; with an nd method, or a force law without a derivative,
 *    that method on the whole frozen residual (mbs_tangent.h); then alpha Phi_z^T Phi_z
 *    exactly (mbs_constraints_add_gram);
 *  - the dynamics' dR along (0, dzd, dzdd) and rho_k: R_zd dzd + M dzdd from that tangent, plus
 *    R's explicit derivative at the step's state: for a parameter of the dynamics the part of
 *    the model it changes (dynamic_only_directional); for one of the geometry (M zdd - Q)_rho
 *    + Phi_zrho^T lambda + alpha Phi_z^T Phi_rho (geometric_directional);
 *  - the projections' derivatives: along the state exactly (Phi_zz[dz] products, the bias's
 *    derivative: mbs_constraints_derivatives.h), plus the explicit parameter terms at the same
 *    state (projection_terms), and d(M v_corr), d(M a_corr) by central differences;
 *  - every parameter part by central differences of the models rho_k +- d_k
 *    (mbs_model_with_parameter, built once) at a fixed state, so that alpha never multiplies
 *    a truncation error off the range of Phi_z^T: differencing alpha Phi_z^T Phi as a whole left
 *    alpha d^2 Phi_zrho^T Phi_rhorho / 2 in it, 2 % of the spatial four-bar's gradient at
 *    alpha = 1e9, now 1e-5;
 *  - the initial sensitivities by central differences of the initial assembly
 *    (mbs_assemble, mbs_assemble_accelerations) of those models;
 *  - the objectives' derivative the same way (mbs_objective.h evaluators of the models +- d).
 * Left out: the derivatives of the projections' weight T other than its alpha part, i.e.
 * (dC h/2 + dK h^2/4) times the projection corrections, and T differs from the formulation's
 * by h^2/4 (M_z zdd + Phi_zz^T alpha Phi) and its reuse of K and C: second-order terms (a
 * correction times a relative change of T). They set how well direct agrees with fd of whole
 * simulations: 3e-5 of a row's largest entry on the five-bar and the spatial four-bar, at any
 * alpha (tests/cli/test_sensitivity.py).
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "form_penalty_private.h"
#include "mbs_alloc.h"
#include "mbs_assembly.h"
#include "mbs_clock.h"
#include "mbs_constraints.h"
#include "mbs_constraints_derivatives.h"
#include "mbs_dynamics.h"
#include "mbs_dual.h"
#include "mbs_dynamics_derivatives.h"
#include "mbs_linalg.h"
#include "mbs_run.h"
#include "mbs_sensitivity_method.h"
#include "mbs_tangent.h"
#include "mbs_topology.h"
#include "sens_direct.h"

typedef struct Direct Direct;

/* Evaluation workspace of one model (the nominal one or rho_k +- d_k). */
typedef struct {
    const Direct *D;
    const MbsModel *m;
    MbsKinematics kin;
    MbsDynamics dyn;
    double *M, *Q, *phi, *phiz, *phit, *bias, *tmp, *Mv;
    /* frozen for the tangent's residual */
    const double *zdd, *lambda;
    double t;
} Eval;

/* The state z1, zd1, zdd1 after the last step and its sensitivities are S's q, qd, qdd and
 * sq, sqd, sqdd (sens_direct.h). */
struct Direct {
    SensDirect S;
    int n, nr, np;
    double h, alpha;
    Eval base;
    Eval *plus, *minus; /* np each */
    int *dynamic_only;  /* np: sens_parameter_dynamic_only */
    unsigned char *part_bodies, *part_forces; /* np x nbodies, np x nforces: what such a
                                               * parameter changes (sens_parameter_part) */
    int analytical;                 /* the state tangent: analytical Q_z, Q_zd (below) */
    MbsDynamicsDerivatives derivatives;
    MbsTangent tangent;             /* otherwise: numerical differences of the residual */
    void *ctx[1];
    double *J, *A, *lambda, *x;
    int *ipiv;
    double *z0, *zd0, *zdd0, *zds, *zdds;
    double *sz1, *szds, *szdds;  /* n x np: of the step being taken */
    double *dir_zd, *dir_zdd, *rhs;
    double *v_corr, *a_corr;        /* zd* - zd1, zdd* - zdd1: the projections' corrections */
    double *node_acc, *node_D; /* 6 per node: sum of b_j zdd_j along the path; D + that */
    MbsKinematicsDual kd;      /* analytical: Phi_zz^T lambda by dual numbers */
    MbsDual *zD, *wrenchD, *reactD; /* n, 6 n, n */
    /* the projections' derivatives (projection_terms) */
    MbsConstraintsDerivatives cder;
    double *w_v, *w_a;   /* nr: Phi_z zd1 + Phi_t, Phi_z zdd1 + b at the step's state */
    double *e_v, *e_a;   /* nr: their explicit derivatives w.r.t. the parameter */
    double *rowbuf, *y;  /* nr each */
    double *dM_v, *dM_a; /* n: d(M v_corr), d(M a_corr) along the direction and parameter */
    double *p_v, *p_a;   /* n: Phi_zrho^T w_v, Phi_zrho^T w_a */
    double *react;       /* n */
    double *gnode_acc, *gnode_D; /* 6 per node: a rebuilt model's accelerations */
};

static int eval_init(Eval *e, const Direct *D, const MbsModel *m, MbsError *err)
{
    memset(e, 0, sizeof *e);
    e->D = D;
    e->m = m;
    int n = m->topo->nnodes, nr = m->topo->nrows;
    size_t nn = (size_t)(n ? n : 1), nrn = (size_t)(nr ? nr : 1);
    if (mbs_kinematics_init(&e->kin, m) || mbs_dynamics_init(&e->dyn, m))
        return mbs_error_set(err, MBS_FATAL, "out of memory");
    e->kin.clock = &e->t; /* set_time's */
    e->M = calloc(nn * nn, sizeof(double));
    e->Q = calloc(nn, sizeof(double));
    e->tmp = calloc(nn + nrn, sizeof(double));
    e->phi = calloc(nrn, sizeof(double));
    e->phiz = calloc(nrn * nn, sizeof(double));
    e->phit = calloc(nrn, sizeof(double));
    e->bias = calloc(nrn, sizeof(double));
    e->Mv = calloc(nn, sizeof(double));
    if (!e->M || !e->Q || !e->tmp || !e->phi || !e->phiz || !e->phit || !e->bias || !e->Mv)
        return mbs_error_set(err, MBS_FATAL, "out of memory");
    return 0;
}

static void eval_free(Eval *e)
{
    if (!e->m)
        return;
    mbs_kinematics_free(&e->kin);
    mbs_dynamics_free(&e->dyn);
    free(e->M), free(e->Q), free(e->tmp), free(e->phi), free(e->phiz), free(e->phit);
    free(e->bias), free(e->Mv);
    memset(e, 0, sizeof *e);
}

/* ---- the functions the scheme is made of ------------------------------------------------ */

/* out = Phi_z^T v (n) from e->phiz. */
static void phiz_t_mul(const Eval *e, const double *v, double s, double *out)
{
    int n = e->m->topo->nnodes, nr = e->m->topo->nrows;
    for (int j = 0; j < n; ++j) {
        double a = 0.0;
        for (int i = 0; i < nr; ++i)
            a += e->phiz[i + (size_t)nr * j] * v[i];
        out[j] = s * a;
    }
}

/* Phi_z x + add (nr) into out. */
static void phiz_mul(const Eval *e, const double *x, const double *add, double *out)
{
    int n = e->m->topo->nnodes, nr = e->m->topo->nrows;
    for (int i = 0; i < nr; ++i) {
        double a = add[i];
        for (int j = 0; j < n; ++j)
            a += e->phiz[i + (size_t)nr * j] * x[j];
        out[i] = a;
    }
}

/* The tangent's residual: R with zdd and alpha Phi frozen (x = [zd, z]). */
static int frozen_residual(void *ctx, const double *x, int column, double step, double *r)
{
    Eval *e = ctx;
    const MbsModel *m = e->m;
    int n = m->topo->nnodes;
    const double *zd = x, *z = x + n;
    (void)column, (void)step;
    mbs_kinematics_positions(m, &e->kin, z);
    mbs_kinematics_velocities(m, &e->kin, zd);
    mbs_dynamics_mass(m, &e->kin, &e->dyn, e->M);
    mbs_dynamics_forces(m, &e->kin, &e->dyn, z, zd, e->Q);
    mbs_constraints_eval(m, &e->kin, e->t, z, e->phi, e->phiz, NULL);
    phiz_t_mul(e, e->lambda, 1.0, r);
    for (int i = 0; i < n; ++i) {
        double v = r[i] - e->Q[i];
        for (int j = 0; j < n; ++j)
            v += e->M[i + (size_t)n * j] * e->zdd[j];
        r[i] = v;
    }
    return 0;
}

/* J = [R_zd, R_z] at x = [zd, z] (kinematics of e at x). M zdd - Q is Q with the node
 * accelerations D_k replaced by D_k + sum_{j on the path of k} b_j zdd_j (paper 000 eqs 5-6:
 * the inverse dynamics), and those obey the derivative rules of D_k (d(b_j zdd_j)/dz_i =
 * crm(b_i) b_j zdd_j below node i, crm(b_i) b_i = 0; no zd in them), so
 * mbs_dynamics_forces_derivatives on that kinematics gives -(Q - M zdd)_zd, -(Q - M zdd)_z
 * exactly, as Pinocchio's RNEA derivatives do. Phi_zz^T lambda exactly: Phi_z^T lambda is the
 * generalized force of the constraint reactions (mbs_constraints_reactions), differentiated
 * over dual numbers along MBS_DUAL_WIDTH coordinates per pass, O(n + rows) each. */
static void analytical_tangent(Direct *D, Eval *e, const double *x, double *J)
{
    int n = D->n;
    const double *zd = x, *z = x + n;
    mbs_kinematics_accelerations(e->m, &e->kin, e->zdd, D->node_acc, D->node_D);
    MbsKinematics with_zdd = e->kin;
    with_zdd.D = D->node_D;
    mbs_dynamics_forces_derivatives(e->m, &with_zdd, &D->derivatives, z, zd, -1.0, J,
                                    J + (size_t)n * n, (size_t)n);
    for (int first = 0; first < n && D->nr > 0; first += MBS_DUAL_WIDTH) {
        int count = n - first < MBS_DUAL_WIDTH ? n - first : MBS_DUAL_WIDTH;
        for (int i = 0; i < n; ++i)
            D->zD[i] = mbs_dual_constant(z[i]);
        for (int w = 0; w < count; ++w)
            D->zD[first + w].d[w] = 1.0;
        mbs_kinematics_positions_dual(e->m, &D->kd, D->zD);
        mbs_constraints_reactions_dual(e->m, &D->kd, e->lambda, D->wrenchD, D->reactD);
        for (int w = 0; w < count; ++w) {
            double *column = J + (size_t)n * n + (size_t)n * (first + w);
            for (int i = 0; i < n; ++i)
                column[i] += D->reactD[i].d[w];
        }
    }
}

/* ---- set-up ---------------------------------------------------------------------------- */


static void direct_free(Direct *D)
{
    eval_free(&D->base);
    for (int k = 0; D->plus && k < D->np; ++k) {
        eval_free(&D->plus[k]);
        eval_free(&D->minus[k]);
    }
    free(D->plus), free(D->minus), free(D->ipiv), free(D->dynamic_only);
    free(D->part_bodies), free(D->part_forces);
    mbs_tangent_free(&D->tangent);
    mbs_dynamics_derivatives_free(&D->derivatives);
    double *arrays[] = {D->J, D->A, D->lambda, D->x, D->z0, D->zd0, D->zdd0, D->zds, D->zdds,
                        D->sz1, D->szds, D->szdds, D->dir_zd, D->dir_zdd, D->rhs,
                        D->v_corr, D->a_corr, D->node_acc, D->node_D, D->w_v, D->w_a,
                        D->e_v, D->e_a, D->rowbuf, D->y, D->dM_v, D->dM_a, D->p_v, D->p_a,
                        D->react, D->gnode_acc, D->gnode_D};
    for (size_t i = 0; i < sizeof arrays / sizeof arrays[0]; ++i)
        free(arrays[i]);
    mbs_kinematics_free_dual(&D->kd);
    mbs_constraints_derivatives_free(&D->cder);
    free(D->zD), free(D->wrenchD), free(D->reactD);
    sens_direct_free(&D->S);
}

static int direct_init(Direct *D, const MbsSensitivityProblem *p, MbsError *err)
{
    const MbsModel *m = p->model;
    memset(D, 0, sizeof *D);
    D->n = m->topo->nnodes;
    D->nr = m->topo->nrows;
    D->np = p->nparameters;
    D->h = p->settings->step;
    const PenaltyOptions *o = mbs_penalty_options(p->settings);
    if (o && o->projection != PENALTY_PROJECTION_TANGENT)
        return mbs_error_set(err, MBS_FATAL, "penalty direct: projection 'mass' is not "
                             "differentiated (the step's derivative uses the tangent's "
                             "projections; use 'tangent' or fd)");
    /* settings that hold no penalty options: the formulation's default */
    D->alpha = o ? o->alpha : 1e9;
    int n = D->n, np = D->np, fail = 0;
    size_t nn = (size_t)(n ? n : 1), npn = nn * (size_t)(np ? np : 1);
    if (sens_direct_init(&D->S, p, n, n, MBS_COORDINATES_RELATIVE, err))
        return MBS_FATAL;
    if (eval_init(&D->base, D, m, err))
        return MBS_FATAL;
    D->plus = calloc((size_t)np + 1, sizeof *D->plus);
    D->minus = calloc((size_t)np + 1, sizeof *D->minus);
    D->ipiv = calloc(nn, sizeof *D->ipiv);
    D->dynamic_only = calloc((size_t)np + 1, sizeof *D->dynamic_only);
    D->part_bodies = calloc((size_t)np * m->nbodies + 1, 1);
    D->part_forces = calloc((size_t)np * m->nforces + 1, 1);
    if (!D->plus || !D->minus || !D->ipiv || !D->dynamic_only || !D->part_bodies ||
        !D->part_forces)
        return mbs_error_set(err, MBS_FATAL, "out of memory");
    for (int k = 0; k < np; ++k)
        if ((D->dynamic_only[k] = sens_parameter_dynamic_only(m, p->parameters[k])) &&
            sens_parameter_part(m, p->parameters[k], D->part_bodies + (size_t)m->nbodies * k,
                                D->part_forces + (size_t)m->nforces * k))
            return mbs_error_set(err, MBS_FATAL, "out of memory");
    for (int k = 0; k < np; ++k)
        if (eval_init(&D->plus[k], D, D->S.models[2 * k], err) ||
            eval_init(&D->minus[k], D, D->S.models[2 * k + 1], err))
            return MBS_FATAL;
    D->J = mbs_calloc_doubles(2 * nn * nn, &fail);
    D->A = mbs_calloc_doubles(nn * nn, &fail);
    D->lambda = mbs_calloc_doubles((size_t)D->nr + 1, &fail);
    D->x = mbs_calloc_doubles(2 * nn, &fail);
    D->node_acc = mbs_calloc_doubles(6 * nn, &fail);
    D->node_D = mbs_calloc_doubles(6 * nn, &fail);
    D->gnode_acc = mbs_calloc_doubles(6 * nn, &fail);
    D->gnode_D = mbs_calloc_doubles(6 * nn, &fail);
    double **vec[] = {&D->z0,   &D->zd0,    &D->zdd0, &D->zds, &D->zdds, &D->dir_zd,
                      &D->dir_zdd, &D->rhs,  &D->v_corr, &D->a_corr, &D->dM_v, &D->dM_a,
                      &D->p_v,  &D->p_a,    &D->react};
    for (size_t i = 0; i < sizeof vec / sizeof vec[0]; ++i)
        *vec[i] = mbs_calloc_doubles(nn, &fail);
    double **rowvec[] = {&D->w_v, &D->w_a, &D->e_v, &D->e_a, &D->rowbuf, &D->y};
    for (size_t i = 0; i < sizeof rowvec / sizeof rowvec[0]; ++i)
        *rowvec[i] = mbs_calloc_doubles((size_t)D->nr + 1, &fail);
    if (mbs_constraints_derivatives_init(&D->cder, m))
        fail = 1;
    double **mat[] = {&D->sz1, &D->szds, &D->szdds};
    for (size_t i = 0; i < sizeof mat / sizeof mat[0]; ++i)
        *mat[i] = mbs_calloc_doubles(npn, &fail);
    if (fail)
        return mbs_error_set(err, MBS_FATAL, "out of memory");
    /* the run's `jacobian`: analytical (penalty's default) when every force law has its
     * derivative; a numerical-differences method on the whole frozen residual otherwise (ad,
     * written for penalty's Q alone, is replaced by central differences) */
    double method = o ? (double)o->tangent.method : NAN;
    char why[160];
    if ((!isfinite(method) || method == MBS_JACOBIAN_ANALYTICAL) &&
        mbs_dynamics_derivatives_supported(m, why, sizeof why)) {
        D->zD = calloc(nn, sizeof(MbsDual));
        D->wrenchD = calloc(6 * nn, sizeof(MbsDual));
        D->reactD = calloc(nn, sizeof(MbsDual));
        if (mbs_dynamics_derivatives_init(&D->derivatives, m) ||
            mbs_kinematics_init_dual(&D->kd, m) || !D->zD || !D->wrenchD || !D->reactD)
            return mbs_error_set(err, MBS_FATAL, "out of memory");
        D->kd.clock = &D->base.t;
        D->analytical = 1;
        return 0;
    }
    MbsJacobianMethod jm = MBS_JACOBIAN_ND_CENTRAL;
    if (method == MBS_JACOBIAN_ND_FORWARD || method == MBS_JACOBIAN_ND_SPARSE)
        jm = (MbsJacobianMethod)method;
    D->ctx[0] = &D->base;
    MbsTangentProblem tp = {.nx = 2 * n, .nr = n, .residual = frozen_residual,
                            .contexts = D->ctx, .nthreads = 1, .negate = 0};
    return mbs_tangent_init(&D->tangent, &tp, jm, err);
}

/* ---- the sensitivity step --------------------------------------------------------------- */

#define COL(a, k) SENS_COL(&D->S, a, k)

static void set_time(Direct *D, double t)
{
    D->base.t = t;
    for (int k = 0; k < D->np; ++k)
        D->plus[k].t = D->minus[k].t = t;
}

/* dR along (0, dzd, dzdd) and a parameter that only changes M and Q (the models share the
 * kinematics, and Phi): R_zd dzd + M dzdd from the step's tangent, plus
 * (M_+ zdd* - Q_+) - (M_- zdd* - Q_-) over 2d on the nominal kinematics at (z1, zd*), of the
 * part of the model the parameter changes only (its bodies and force elements: the rest
 * cancels): the forces kernel with the accelerations zdd* in D gives Q - M zdd* without M. */
static void dynamic_only_directional(Direct *D, int k, const double *z, const double *dzd,
                                     const double *dzdd, double *out)
{
    int n = D->n;
    const Eval *e = &D->base;
    double d = D->S.delta[k];
    MbsKinematics with_zdd = e->kin;
    with_zdd.D = D->node_D; /* step(): the accelerations zdd* at (z1, zd*) */
    const unsigned char *bodies = D->part_bodies + (size_t)e->m->nbodies * k;
    const unsigned char *forces = D->part_forces + (size_t)e->m->nforces * k;
    Eval *ep = &D->plus[k], *em = &D->minus[k];
    mbs_dynamics_forces_part(ep->m, &with_zdd, &ep->dyn, z, D->zds, bodies, forces, ep->Q);
    mbs_dynamics_forces_part(em->m, &with_zdd, &em->dyn, z, D->zds, bodies, forces, em->Q);
    for (int i = 0; i < n; ++i) {
        double v = -(ep->Q[i] - em->Q[i]) / (2.0 * d);
        for (int j = 0; j < n; ++j) {
            size_t ij = i + (size_t)n * j;
            v += D->J[ij] * dzd[j] + e->M[ij] * dzdd[j];
        }
        out[i] = v;
    }
}

/* The parts of the projections' derivatives along the direction dz (= s_z1) and parameter k
 * that are not alpha-weighted constraint terms: d(M v_corr) and d(M a_corr), by central
 * differences with the models rho_k +- d_k at z1 +- d_k dz (M v without forming M); and, for a
 * parameter of the geometry, the explicit derivatives at the step's own state (z1, zd1,
 * zdd1) of the constraint terms: e_v = (Phi_z zd + Phi_t)_rho, e_a = (Phi_z zdd + b)_rho,
 * p_v = Phi_zrho^T w_v, p_a = Phi_zrho^T w_a (zero for a parameter of the dynamics). Holding
 * the state in those differences is what keeps alpha from multiplying their truncation: the
 * state's part is exact (step), and Phi, Phi_z are polynomial in the point coordinates a
 * parameter moves. */
static void projection_terms(Direct *D, int k, const double *z1, const double *zd1,
                             const double *zdd1, const double *dz)
{
    int n = D->n, nr = D->nr;
    double d = D->S.delta[k], c = 1.0 / (2.0 * d);
    Eval *side[2] = {&D->plus[k], &D->minus[k]};
    for (int s = 0; s < 2; ++s) {
        Eval *e = side[s];
        double *zs = s ? D->S.xm_q : D->S.xp_q;
        for (int i = 0; i < n; ++i)
            zs[i] = z1[i] + (s ? -d : d) * dz[i];
        mbs_kinematics_positions(e->m, &e->kin, zs);
        mbs_dynamics_mass_times(e->m, &e->kin, &e->dyn, D->v_corr, e->Mv);
        mbs_dynamics_mass_times(e->m, &e->kin, &e->dyn, D->a_corr, e->Q);
    }
    for (int i = 0; i < n; ++i) {
        D->dM_v[i] = c * (side[0]->Mv[i] - side[1]->Mv[i]);
        D->dM_a[i] = c * (side[0]->Q[i] - side[1]->Q[i]);
    }
    if (D->dynamic_only[k]) {
        memset(D->e_v, 0, sizeof(double) * (size_t)nr);
        memset(D->e_a, 0, sizeof(double) * (size_t)nr);
        memset(D->p_v, 0, sizeof(double) * (size_t)n);
        memset(D->p_a, 0, sizeof(double) * (size_t)n);
        return;
    }
    for (int s = 0; s < 2; ++s) { /* tmp: Phi_z zd1 + Phi_t, phi: Phi_z zdd1 + b */
        Eval *e = side[s];
        mbs_kinematics_positions(e->m, &e->kin, z1);
        mbs_kinematics_velocities(e->m, &e->kin, zd1);
        mbs_constraints_eval(e->m, &e->kin, e->t, z1, e->phi, e->phiz, e->phit);
        mbs_constraints_bias(e->m, &e->kin, e->t, e->bias);
        phiz_mul(e, zd1, e->phit, e->tmp);
        phiz_mul(e, zdd1, e->bias, e->phi);
        phiz_t_mul(e, D->w_v, 1.0, e->Mv);
        phiz_t_mul(e, D->w_a, 1.0, e->Q);
    }
    for (int i = 0; i < nr; ++i) {
        D->e_v[i] = c * (side[0]->tmp[i] - side[1]->tmp[i]);
        D->e_a[i] = c * (side[0]->phi[i] - side[1]->phi[i]);
    }
    for (int i = 0; i < n; ++i) {
        D->p_v[i] = c * (side[0]->Mv[i] - side[1]->Mv[i]);
        D->p_a[i] = c * (side[0]->Q[i] - side[1]->Q[i]);
    }
}

/* out = dM - h^2/4 alpha (Phi_zz[dz]^T w + p + Phi_z^T y): a projection's right-hand side
 * differentiated (y the derivative of the constraint term inside, w its value, p its
 * explicit Phi_zrho^T w). Needs the base's Phi_z and the direction dz in D->cder. */
static void projection_derivative(Direct *D, const double *dM, const double *w, const double *p,
                                  const double *y, double *out)
{
    Eval *e = &D->base;
    int n = D->n;
    double cw = 0.25 * D->h * D->h * D->alpha;
    mbs_constraints_derivatives_reactions(e->m, &e->kin, &D->cder, e->m->topo->rows, D->nr, w,
                                          D->react);
    phiz_t_mul(e, y, 1.0, out);
    for (int i = 0; i < n; ++i)
        out[i] = dM[i] - cw * (D->react[i] + p[i] + out[i]);
}

/* dR along (0, dzd, dzdd) and a parameter of the geometry: R_zd dzd + M dzdd from the step's
 * tangent, plus R's explicit derivative at the state (z1, zd*, zdd*) with the penalty term
 * expanded, (M zdd* - Q)_rho + Phi_zrho^T lambda + alpha Phi_z^T Phi_rho (lambda = alpha Phi):
 * Phi and Phi_z by central differences of the models rho_k +- d_k at z1. Differencing
 * alpha Phi_z^T Phi as one function would leave alpha d^2 Phi_zrho^T Phi_rhorho/2 in it, off the
 * range of Phi_z^T where the solve cannot absorb it: 2 % of the spatial four-bar's gradient at
 * alpha = 1e9 (its C moves with cos_t and sqrt(1 - cos_t^2)). */
static void geometric_directional(Direct *D, int k, const double *z, const double *dzd,
                                  const double *dzdd, double *out)
{
    int n = D->n, nr = D->nr;
    const Eval *e = &D->base;
    double c = 1.0 / (2.0 * D->S.delta[k]);
    Eval *side[2] = {&D->plus[k], &D->minus[k]};
    for (int s = 0; s < 2; ++s) { /* Q: Q - M zdd*, Mv: Phi_z^T lambda, phi: Phi */
        Eval *es = side[s];
        mbs_kinematics_positions(es->m, &es->kin, z);
        mbs_kinematics_velocities(es->m, &es->kin, D->zds);
        mbs_kinematics_accelerations(es->m, &es->kin, D->zdds, D->gnode_acc, D->gnode_D);
        MbsKinematics with_zdd = es->kin;
        with_zdd.D = D->gnode_D;
        mbs_dynamics_forces(es->m, &with_zdd, &es->dyn, z, D->zds, es->Q);
        mbs_constraints_eval(es->m, &es->kin, es->t, z, es->phi, es->phiz, NULL);
        phiz_t_mul(es, D->lambda, 1.0, es->Mv);
    }
    for (int i = 0; i < nr; ++i)
        D->y[i] = D->alpha * c * (side[0]->phi[i] - side[1]->phi[i]);
    phiz_t_mul(e, D->y, 1.0, out);
    for (int i = 0; i < n; ++i) {
        double v = out[i] + c * (side[0]->Mv[i] - side[1]->Mv[i]) -
                   c * (side[0]->Q[i] - side[1]->Q[i]);
        for (int j = 0; j < n; ++j) {
            size_t ij = i + (size_t)n * j;
            v += D->J[ij] * dzd[j] + e->M[ij] * dzdd[j];
        }
        out[i] = v;
    }
}

/* Initial sensitivities by central differences of the assembly of the models rho_k +- d_k. */
static int start(void *method, SensDirect *S, const MbsFormulation *f, MbsError *err)
{
    Direct *D = method;
    int n = D->n;
    const MbsSettings *s = S->p->settings;
    f->klass->coordinates(f, S->q, S->qd);
    mbs_formulation_accelerations(f, S->qdd);
    set_time(D, f->time);
    for (int k = 0; k < D->np; ++k) {
        for (int side = 0; side < 2; ++side) {
            const MbsModel *mk = S->models[2 * k + side];
            double *z = side ? S->xm_q : S->xp_q, *zd = side ? S->xm_qd : S->xp_qd;
            double *zdd = side ? S->xm_qdd : S->xp_qdd;
            if (mbs_assemble(mk, s, 0.0, z, zd, NULL, err) ||
                mbs_assemble_accelerations(mk, s, 0.0, z, zd, zdd, err))
                return MBS_FATAL;
        }
        for (int i = 0; i < n; ++i) {
            double d2 = 2.0 * S->delta[k];
            COL(S->sq, k)[i] = (S->xp_q[i] - S->xm_q[i]) / d2;
            COL(S->sqd, k)[i] = (S->xp_qd[i] - S->xm_qd[i]) / d2;
            COL(S->sqdd, k)[i] = (S->xp_qdd[i] - S->xm_qdd[i]) / d2;
        }
    }
    return 0;
}

static int step(void *method, SensDirect *S, const MbsFormulation *f, MbsError *err)
{
    Direct *D = method;
    int n = D->n, np = D->np;
    double h = D->h, t1 = f->time;
    size_t bytes = sizeof(double) * (size_t)n;
    double *z1 = S->q, *zd1 = S->qd, *zdd1 = S->qdd;
    memcpy(D->z0, z1, bytes);
    memcpy(D->zd0, zd1, bytes);
    memcpy(D->zdd0, zdd1, bytes);
    f->klass->coordinates(f, z1, zd1);
    mbs_formulation_accelerations(f, zdd1);
    set_time(D, t1);
    for (int i = 0; i < n; ++i) { /* the trapezoidal values before the projections */
        double dz = z1[i] - D->z0[i];
        D->zds[i] = 2.0 / h * dz - D->zd0[i];
        D->zdds[i] = 4.0 / (h * h) * dz - 4.0 / h * D->zd0[i] - D->zdd0[i];
    }
    /* A = R_z + 2/h R_zd + 4/h^2 M at (z1, zd*, zdd*) */
    Eval *e = &D->base;
    mbs_kinematics_positions(e->m, &e->kin, z1);
    mbs_constraints_eval(e->m, &e->kin, t1, z1, e->phi, e->phiz, NULL);
    for (int i = 0; i < D->nr; ++i)
        D->lambda[i] = D->alpha * e->phi[i];
    e->lambda = D->lambda;
    e->zdd = D->zdds;
    memcpy(D->x, D->zds, bytes);
    memcpy(D->x + n, z1, bytes);
    frozen_residual(e, D->x, -1, 0.0, D->rhs);
    if (D->analytical)
        analytical_tangent(D, e, D->x, D->J);
    else if (mbs_tangent_eval(&D->tangent, D->x, D->rhs, D->J))
        return mbs_error_set(err, MBS_FATAL, "penalty direct: the tangent failed at "
                             "t = %g s", t1);
    frozen_residual(e, D->x, -1, 0.0, D->rhs); /* M and phi_z at (z1, zd*) again */
    /* the accelerations zdd* at (z1, zd*): the dynamic parameters' parts */
    mbs_kinematics_accelerations(e->m, &e->kin, D->zdds, D->node_acc, D->node_D);
    for (size_t i = 0; i < (size_t)n * n; ++i)
        D->A[i] = D->J[(size_t)n * n + i] + 2.0 / h * D->J[i] + 4.0 / (h * h) * e->M[i];
    mbs_constraints_add_gram(e->m, e->phiz, D->alpha, D->A);
    if (mbs_lu_factor(n, D->A, D->ipiv))
        return mbs_error_set(err, MBS_FATAL, "penalty direct: singular tangent at "
                             "t = %g s", t1);
    double to_T = 4.0 / (h * h); /* T^-1 = 4/h^2 A^-1 */
    for (int k = 0; k < np; ++k) {
        double *sz0 = COL(S->sq, k), *szd0 = COL(S->sqd, k), *szdd0 = COL(S->sqdd, k);
        double *sz1 = COL(D->sz1, k), *szds = COL(D->szds, k), *szdds = COL(D->szdds, k);
        /* dynamics: A s_z1 = -dR(0, -a_hat, -b_hat, e_k) */
        for (int i = 0; i < n; ++i) {
            D->dir_zd[i] = -(2.0 / h * sz0[i] + szd0[i]);
            D->dir_zdd[i] = -(4.0 / (h * h) * sz0[i] + 4.0 / h * szd0[i] + szdd0[i]);
        }
        if (D->dynamic_only[k])
            dynamic_only_directional(D, k, z1, D->dir_zd, D->dir_zdd, sz1);
        else
            geometric_directional(D, k, z1, D->dir_zd, D->dir_zdd, sz1);
        for (int i = 0; i < n; ++i)
            sz1[i] = -sz1[i];
        mbs_lu_solve(n, D->A, D->ipiv, sz1, 1);
        for (int i = 0; i < n; ++i) {
            szds[i] = 2.0 / h * sz1[i] + D->dir_zd[i];
            szdds[i] = 4.0 / (h * h) * sz1[i] + D->dir_zdd[i];
        }
    }
    for (int i = 0; i < n; ++i) {
        D->v_corr[i] = D->zds[i] - zd1[i];
        D->a_corr[i] = D->zdds[i] - zdd1[i];
    }
    /* the constraint terms of the projections at the step's state (z1, zd1, zdd1):
     * w_v = Phi_z zd1 + Phi_t, w_a = Phi_z zdd1 + b */
    mbs_kinematics_positions(e->m, &e->kin, z1);
    mbs_kinematics_velocities(e->m, &e->kin, zd1);
    mbs_constraints_eval(e->m, &e->kin, t1, z1, e->phi, e->phiz, e->phit);
    mbs_constraints_bias(e->m, &e->kin, t1, e->bias);
    phiz_mul(e, zd1, e->phit, D->w_v);
    phiz_mul(e, zdd1, e->bias, D->w_a);
    const MbsRow *rows = e->m->topo->rows;
    int nr = D->nr;
    for (int k = 0; k < np; ++k) {
        double *sz1 = COL(D->sz1, k), *szds = COL(D->szds, k), *szdds = COL(D->szdds, k);
        double *szd = COL(S->sqd, k), *szdd = COL(S->sqdd, k);
        projection_terms(D, k, z1, zd1, zdd1, sz1);
        mbs_constraints_derivatives_direction(e->m, &e->kin, &D->cder, sz1);
        /* velocity projection: d(M v_corr - G_v) along (s_z1, s_zd*) and rho_k, the
         * constraint term's derivative y = Phi_zz[dz] zd1 + Phi_z dzd + e_v */
        mbs_constraints_derivatives_velocity(e->m, &e->kin, &D->cder, rows, nr, zd1, D->y);
        phiz_mul(e, szds, D->y, D->rowbuf);
        for (int i = 0; i < nr; ++i)
            D->rowbuf[i] += D->e_v[i];
        projection_derivative(D, D->dM_v, D->w_v, D->p_v, D->rowbuf, D->rhs);
        for (int i = 0; i < n; ++i)
            D->rhs[i] *= to_T;
        mbs_lu_solve(n, D->A, D->ipiv, D->rhs, 1);
        for (int i = 0; i < n; ++i)
            szd[i] = szds[i] + D->rhs[i];
        /* acceleration projection: d(M a_corr - G_a) along (s_z1, s_zd1, s_zdd*) and rho_k,
         * y = Phi_zz[dz] zdd1 + Phi_z dzdd + db(dz, dzd) + e_a */
        mbs_constraints_derivatives_velocity(e->m, &e->kin, &D->cder, rows, nr, zdd1, D->y);
        mbs_constraints_derivatives_bias(e->m, &e->kin, &D->cder, rows, nr, zd1, szd,
                                         D->rowbuf);
        for (int i = 0; i < nr; ++i)
            D->y[i] += D->rowbuf[i] + D->e_a[i];
        phiz_mul(e, szdds, D->y, D->rowbuf);
        projection_derivative(D, D->dM_a, D->w_a, D->p_a, D->rowbuf, D->rhs);
        for (int i = 0; i < n; ++i)
            D->rhs[i] *= to_T;
        mbs_lu_solve(n, D->A, D->ipiv, D->rhs, 1);
        for (int i = 0; i < n; ++i)
            szdd[i] = szdds[i] + D->rhs[i];
        memcpy(COL(S->sq, k), sz1, bytes);
    }
    return 0;
}

static int direct_sensitivity(const MbsSensitivityProblem *p, MbsSensitivityResult *r,
                              MbsError *err)
{
    Direct *D = calloc(1, sizeof *D);
    if (!D)
        return mbs_error_set(err, MBS_FATAL, "out of memory");
    int status = direct_init(D, p, err);
    if (status == 0) {
        SensDirectScheme scheme = {.formulation = "penalty", .start = start, .step = step,
                                   .method = D};
        status = sens_direct_run(&D->S, &scheme, r, err);
    }
    direct_free(D);
    free(D);
    return status ? MBS_FATAL : 0;
}

const MbsSensitivityMethodClass mbs_sens_penalty_direct = {
    .formulation = "penalty",
    .method = MBS_SENSITIVITY_DIRECT,
    .run = direct_sensitivity,
    .has_state_history = 1, /* stepped by sens_direct.c */
};
