/* `penalty`: semi-recursive penalty formulation with the trapezoidal rule, Newton-Raphson and
 * velocity/acceleration projections (paper 000 eqs 14-26, paper 003 eqs 39-50).
 *
 *   M(z) zdd + Phi_z^T alpha Phi = Q(z, zd)                                    (000: 14)
 *   zd_{n+1} = 2/h (z_{n+1} - z_n) - zd_n,
 *   zdd_{n+1} = 4/h^2 (z_{n+1} - z_n) - 4/h zd_n - zdd_n                      (003: 40-41)
 *   f(z) = h^2/4 (M zdd + Phi_z^T alpha Phi - Q) = 0                           (000: 17)
 *   tangent  T = M + h/2 C + h^2/4 (Phi_z^T alpha Phi_z + K)                   (000: 20)
 *   projections with P = T - h^2/4 Phi_z^T alpha Phi_z                         (000: 24-26)
 * With "multipliers" = iterated (augmented Lagrangian, as ALI3-P does, paper 004 eqs 8-9) the
 * constraint force is Phi_z^T (alpha Phi + lambda*) and every Newton iteration updates
 * lambda* += alpha Phi, carried from step to step: the constraint error no longer sits at
 * ~|reaction| / alpha, so the accuracy follows the step (docs/benchmarks.md, penalty accuracy).
 * K and C (-dQ/dz, -dQ/dzd) by the tangent interface (mbs_tangent.h), reused for `jacobian_reuse`
 * Newton iterations; the tangent is refactorized every iteration and its last factorization
 * serves both projections: dense LU, or KLU on a pattern fixed at init (`algebra`).
 */
#include <float.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "form_penalty_private.h"
#include "mbs_alloc.h"
#include "mbs_assembly.h"
#include "mbs_clock.h"
#include "mbs_constraints.h"
#include "mbs_dual.h"
#include "mbs_dynamics.h"
#include "mbs_dynamics_derivatives.h"
#include "mbs_energy.h"
#include "mbs_linalg.h"
#include "mbs_sparse_lu.h"
#include "mbs_tangent.h"
#include "mbs_tangent_probe.h"
#include "mbs_topology.h"

/* Coordinates from which the automatic algebra factorizes the leading matrix sparse (measured
 * crossover, docs/benchmarks.md). */
#define PENALTY_SPARSE_FROM 40 /* and in the algebra setting's description */

/* Newton reuses the leading matrix's factors while its corrections fall by this factor or more
 * per iteration, and refactorizes otherwise (docs/benchmarks.md, "penalty's factorizations"). */
#define REFACTOR_RATE 0.1
/* Most refinement passes of a projection with reused factors (each gains about that rate). */
#define PROJECTION_REFINEMENTS 4

/* Steps taken as plain penalty after the multiplier iteration failed in one (advance). */
#define PLAIN_STEPS_AFTER_FALLBACK 20

/* Linear algebra of the leading matrix ("algebra": mbs_algebra_choices). */
enum { ALGEBRA_AUTOMATIC, ALGEBRA_DENSE, ALGEBRA_SPARSE };


static const PenaltyOptions *options(const MbsFormulation *f)
{
    return mbs_formulation_options(f);
}

typedef struct {
    const MbsModel *m;
    MbsKinematics kin;
    MbsDynamics dyn;
    int positions_at_base; /* kin holds the position kinematics of the unperturbed z */
    MbsDynamicsDerivatives derivatives; /* the analytical method's workspace (thread 0 only) */
    /* the same over dual numbers, for the methods ad and ad-sparse only */
    MbsKinematicsDual kin_dual;
    MbsDynamicsDual dyn_dual;
    int dual_positions_at_base; /* kin_dual: of z with no direction seeded */
} ForceContext;

typedef struct {
    int n, nr;
    const MbsModel *m;
    const MbsTopology *topo; /* its row_ptr, row_cols: the structural nonzeros of Phi_z */
    MbsKinematics kin;
    MbsDynamics dyn;
    int nthreads;    /* threads for the numerical derivatives, each with its workspaces */
    ForceContext *nd;
    void **nd_ctx;
    double *z, *zd, *zdd;     /* state at the current time */
    double *z0, *zd0, *zdd0;  /* state at the start of the (sub)step */
    double *M, *K, *C, *T, *Q, *f;
    double *phi, *phiz, *phiz_v, *phit, *bias, *rv, *tmp;
    double *rhs, *delta, *rw; /* the projections' refinement: right-hand side, residual (n, n, nr) */
    int stale;       /* the leading matrix's factors are of an earlier Newton iterate than the last */
    double refinements; /* refinement passes of the projections (statistics) */
    double *lambda, *lambda0; /* iterated multipliers lambda* (zero without them), at step start */
    double *x;       /* [zd, z]: the variables of the tangent */
    int *KC_colptr, *KC_rowind; /* structural pattern of [C, K] (n x 2n) from the topology */
    MbsSparsity KC_pattern;
    double *KC_values;  /* the pattern's values, for methods that use it (then scattered) */
    MbsTangent tangent;
    int *ipiv;
    /* Sparse leading matrix (algebra): T's structural pattern (that of M, [C, K] and
     * Phi_z^T Phi_z) in compressed columns, its values gathered from the dense T, KLU factors on
     * the symbolic analysis of init. */
    int sparse;
    int *T_colptr, *T_rowind;
    double *T_values;
    int *gram_at; /* per constraint row i, per pair (a, b) of its columns: where in T_values the
                   * term Phi_z(i, a) Phi_z(i, b) goes (the entry (cols[b], cols[a])) */
    klu_common klu;
    klu_symbolic *klu_symbolic;
    klu_numeric *klu_numeric;
    double refactorizations, full_factorizations;
    double alpha;       /* the penalty factor of the last step (iterated: see iteration_alpha) */
    double fallbacks;   /* steps whose multiplier iteration fell back to plain penalty */
    int plain_steps;    /* steps still to take as plain penalty after a fallback */
    double work_nc;     /* accumulated work of non-conservative forces and drivers */
    double power_nc;    /* their power at the current time */
} Penalty;

/* Q(z, zd) with x = [zd, z]: velocity columns come first, so that a thread computes the
 * position kinematics once for all its velocity columns (they share the unperturbed z). */
static int eval_forces(void *ctx, const double *x, int column, double step, double *Q)
{
    ForceContext *c = ctx;
    int n = c->m->topo->nnodes, moves_positions = column >= n;
    const double *zd = x, *z = x + n;
    (void)step;
    if (moves_positions || !c->positions_at_base)
        mbs_kinematics_positions(c->m, &c->kin, z);
    c->positions_at_base = !moves_positions;
    mbs_kinematics_velocities(c->m, &c->kin, zd);
    mbs_dynamics_forces(c->m, &c->kin, &c->dyn, z, zd, Q);
    return 0;
}

/* Q and its derivatives along the seeded directions of x = [zd, z] (mbs_dual.h: the same
 * source as eval_forces). A pass that seeds velocities only keeps the position kinematics of
 * the unseeded z, as eval_forces does for its velocity columns. */
static int eval_forces_dual(void *ctx, const MbsDual *x, int largest, MbsDual *Q)
{
    ForceContext *c = ctx;
    int n = c->m->topo->nnodes, moves_positions = largest >= n;
    const MbsDual *zd = x, *z = x + n;
    if (moves_positions || !c->dual_positions_at_base)
        mbs_kinematics_positions_dual(c->m, &c->kin_dual, z);
    c->dual_positions_at_base = !moves_positions;
    mbs_kinematics_velocities_dual(c->m, &c->kin_dual, zd);
    mbs_dynamics_forces_dual(c->m, &c->kin_dual, &c->dyn_dual, z, zd, Q);
    return 0;
}

static void begin_forces(void *ctx)
{
    ((ForceContext *)ctx)->positions_at_base = 0;
    ((ForceContext *)ctx)->dual_positions_at_base = 0;
}

/* [C, K] = -dQ/d[zd, z] analytically (mbs_dynamics_derivatives.c), for the `analytical` method. */
static int analytical_forces_jacobian(void *ctx, const double *x, double *J)
{
    ForceContext *c = ctx;
    int n = c->m->topo->nnodes;
    const double *zd = x, *z = x + n;
    mbs_kinematics_positions(c->m, &c->kin, z);
    mbs_kinematics_velocities(c->m, &c->kin, zd);
    c->positions_at_base = 0;
    mbs_dynamics_forces_derivatives(c->m, &c->kin, &c->derivatives, z, zd, -1.0, J,
                                    J + (size_t)n * (size_t)n, (size_t)n);
    return 0;
}

static int penalty_tangent_probe(MbsFormulation *f, MbsTangentProbe *probe, MbsError *err)
{
    Penalty *P = f->impl;
    size_t bytes = sizeof(double) * (size_t)P->n;
    (void)err;
    memcpy(P->x, P->zd, bytes);
    memcpy(P->x + P->n, P->z, bytes);
    begin_forces(P->nd_ctx[0]);
    eval_forces(P->nd_ctx[0], P->x, -1, 0.0, P->Q);
    *probe = (MbsTangentProbe){.tangent = &P->tangent, .x = P->x, .r0 = P->Q};
    return 0;
}

/* Phi, Phi_z (dense, and its structural nonzeros row by row in phiz_v) and Phi_t (when not NULL)
 * at time t and the positions of P->kin and P->z. */
static void constraints_at(Penalty *P, double t, double *phit)
{
    const MbsTopology *tp = P->topo;
    mbs_constraints_eval_pattern(P->m, &P->kin, t, P->z, P->phi, P->phiz, phit);
    for (int i = 0; i < P->nr; ++i)
        for (int k = tp->row_ptr[i]; k < tp->row_ptr[i + 1]; ++k)
            P->phiz_v[k] = P->phiz[i + (size_t)P->nr * tp->row_cols[k]];
}

/* start + (Phi_z x)_i over the structural nonzeros of row i, in the order of the columns (the
 * dense sum's terms and order, without its exact zeros). */
static double phiz_row_times(const Penalty *P, int i, const double *x, double start)
{
    const MbsTopology *t = P->topo;
    double v = start;
    for (int k = t->row_ptr[i]; k < t->row_ptr[i + 1]; ++k)
        v += P->phiz_v[k] * x[t->row_cols[k]];
    return v;
}

/* acc_j += Phi_z(i, j) * factor * w_i for the rows i in increasing order: each acc_j receives the
 * terms of its dense column sum in the same order. */
static void phiz_transpose_add(const Penalty *P, double factor, const double *w, double *acc)
{
    const MbsTopology *t = P->topo;
    for (int i = 0; i < P->nr; ++i)
        for (int k = t->row_ptr[i]; k < t->row_ptr[i + 1]; ++k) {
            int j = t->row_cols[k];
            acc[j] += P->phiz_v[k] * factor * w[i];
        }
}

/* Power of the driver reactions: the force -(alpha Phi_k + lambda*_k) acts on a driven
 * coordinate. */
static double driver_power(const MbsModel *m, const Penalty *P, double alpha)
{
    double power = 0.0;
    for (int i = 0; i < P->nr; ++i) {
        const MbsRow *r = &m->topo->rows[i];
        if (r->type == MBS_ROW_DRIVER)
            power += -(alpha * P->phi[i] + P->lambda[i]) * P->zd[r->node];
    }
    return power;
}

/* Monitors from the state in P (kinematics, phi, phiz, phit, bias already current). */
static void fill_monitors(MbsFormulation *f, Penalty *P)
{
    const MbsModel *m = f->model;
    MbsEnergy e;
    mbs_energy_eval(m, &P->kin, P->z, P->zd, &e);
    P->power_nc = e.power_nonconservative + driver_power(m, P, P->alpha);
    MbsMonitors *mo = &f->monitors;
    mo->time = f->time;
    mo->kinetic = e.kinetic;
    mo->potential_gravity = e.potential_gravity;
    mo->potential_elastic = e.potential_elastic;
    mo->work_nonconservative = P->work_nc;
    mo->total = e.kinetic + e.potential_gravity + e.potential_elastic - P->work_nc;
    mo->phi_norm = mbs_vec_norm2(P->nr, P->phi);
    double dphi = 0.0, ddphi = 0.0;
    for (int i = 0; i < P->nr; ++i) {
        double v = phiz_row_times(P, i, P->zd, P->phit[i]);
        double a = phiz_row_times(P, i, P->zdd, P->bias[i]);
        dphi += v * v;
        ddphi += a * a;
    }
    mo->dphi_norm = sqrt(dphi);
    mo->ddphi_norm = sqrt(ddphi);
}

static void penalty_finalize(MbsFormulation *f)
{
    Penalty *P = f->impl;
    if (!P)
        return;
    mbs_kinematics_free(&P->kin);
    mbs_dynamics_free(&P->dyn);
    for (int t = 0; P->nd && t < P->nthreads; ++t) {
        mbs_kinematics_free(&P->nd[t].kin);
        mbs_dynamics_free(&P->nd[t].dyn);
        mbs_dynamics_derivatives_free(&P->nd[t].derivatives);
        mbs_kinematics_free_dual(&P->nd[t].kin_dual);
        mbs_dynamics_free_dual(&P->nd[t].dyn_dual);
    }
    free(P->nd);
    free(P->nd_ctx);
    mbs_tangent_free(&P->tangent);
    double *arrays[] = {P->z, P->zd, P->zdd, P->z0, P->zd0, P->zdd0,
                        P->M, P->C, P->T,
                        P->Q, P->f, P->phi, P->phiz, P->phit, P->bias, P->rv, P->tmp,
                        P->x, P->lambda, P->lambda0, P->phiz_v, P->rhs, P->delta, P->rw};
    for (size_t i = 0; i < sizeof arrays / sizeof arrays[0]; ++i)
        free(arrays[i]);
    free(P->ipiv);
    free(P->KC_colptr);
    free(P->KC_rowind);
    free(P->KC_values);
    if (P->klu_numeric)
        klu_free_numeric(&P->klu_numeric, &P->klu);
    if (P->klu_symbolic)
        klu_free_symbolic(&P->klu_symbolic, &P->klu);
    free(P->T_colptr);
    free(P->T_rowind);
    free(P->T_values);
    free(P->gram_at);
    free(P);
    f->impl = NULL;
}

/* The pattern of [C, K] = -dQ/d[zd, z]: that of dQ/dz (mbs_dynamics_forces_pattern) twice. */
static int build_pattern(const MbsModel *m, Penalty *P)
{
    int n = P->n;
    P->KC_colptr = calloc(2 * (size_t)n + 1, sizeof(int));
    int nnz = P->KC_colptr ? mbs_dynamics_forces_pattern(m, P->KC_colptr, NULL) : -1;
    P->KC_rowind = nnz >= 0 ? calloc(2 * (size_t)nnz + 1, sizeof(int)) : NULL;
    P->KC_values = nnz >= 0 ? calloc(2 * (size_t)nnz + 1, sizeof(double)) : NULL;
    if (!P->KC_rowind || !P->KC_values || mbs_dynamics_forces_pattern(m, P->KC_colptr,
                                                                      P->KC_rowind) < 0)
        return MBS_FATAL;
    for (int j = 0; j <= n; ++j)
        P->KC_colptr[n + j] = nnz + P->KC_colptr[j];
    memcpy(P->KC_rowind + nnz, P->KC_rowind, sizeof(int) * (size_t)nnz);
    P->KC_pattern = (MbsSparsity){.colptr = P->KC_colptr, .rowind = P->KC_rowind};
    return 0;
}

/* T's pattern: M and [C, K] couple the coordinates that mbs_dynamics_forces_pattern finds (a
 * node with its ancestors and descendants, and the paths of bodies joined by a force), the
 * penalty term those of each constraint row. */
static int build_leading_pattern(const MbsModel *m, Penalty *P)
{
    const MbsTopology *t = m->topo;
    int n = P->n, nnz = 0;
    unsigned char *filled = calloc((size_t)n * (size_t)n + 1, 1);
    P->T_colptr = calloc((size_t)n + 1, sizeof(int));
    if (!filled || !P->T_colptr) {
        free(filled);
        return MBS_FATAL;
    }
    for (int j = 0; j < n; ++j) {
        filled[j + (size_t)n * j] = 1;
        for (int k = P->KC_colptr[j]; k < P->KC_colptr[j + 1]; ++k)
            filled[P->KC_rowind[k] + (size_t)n * j] = 1;
    }
    for (int r = 0; r < t->nrows; ++r)
        for (int a = t->row_ptr[r]; a < t->row_ptr[r + 1]; ++a)
            for (int b = t->row_ptr[r]; b < t->row_ptr[r + 1]; ++b)
                filled[t->row_cols[a] + (size_t)n * t->row_cols[b]] = 1;
    for (size_t k = 0; k < (size_t)n * (size_t)n; ++k)
        nnz += filled[k];
    P->T_rowind = calloc((size_t)nnz + 1, sizeof(int));
    P->T_values = calloc((size_t)nnz + 1, sizeof(double));
    if (P->T_rowind && P->T_values) {
        nnz = 0;
        for (int j = 0; j < n; ++j) {
            P->T_colptr[j] = nnz;
            for (int i = 0; i < n; ++i)
                if (filled[i + (size_t)n * j])
                    P->T_rowind[nnz++] = i;
        }
        P->T_colptr[n] = nnz;
    }
    free(filled);
    if (!P->T_rowind || !P->T_values)
        return MBS_FATAL;
    size_t pairs = 0;
    for (int r = 0; r < t->nrows; ++r)
        pairs += (size_t)(t->row_ptr[r + 1] - t->row_ptr[r]) * (size_t)(t->row_ptr[r + 1] -
                                                                        t->row_ptr[r]);
    int *slot = P->gram_at = calloc(pairs + 1, sizeof(int));
    if (!slot)
        return MBS_FATAL;
    for (int r = 0; r < t->nrows; ++r)
        for (int a = t->row_ptr[r]; a < t->row_ptr[r + 1]; ++a)
            for (int b = t->row_ptr[r]; b < t->row_ptr[r + 1]; ++b) {
                int j = t->row_cols[a], i = t->row_cols[b], lo = P->T_colptr[j],
                    hi = P->T_colptr[j + 1] - 1;
                while (lo < hi) { /* the column's rows are increasing */
                    int mid = (lo + hi) / 2;
                    if (P->T_rowind[mid] < i)
                        lo = mid + 1;
                    else
                        hi = mid;
                }
                *slot++ = lo;
            }
    klu_defaults(&P->klu);
    P->klu_symbolic = klu_analyze(n, P->T_colptr, P->T_rowind, &P->klu);
    return P->klu_symbolic ? 0 : MBS_FATAL;
}

/* T = M + h/2 C + h^2/4 (K + Phi_z^T alpha Phi_z) (with_tangent; else M + h^2/4 Phi_z^T alpha
 * Phi_z) into the dense T, every entry. */
static void leading_dense(Penalty *P, double h, double alpha, int with_tangent)
{
    size_t nn = (size_t)P->n * (size_t)P->n;
    if (with_tangent)
        for (size_t i = 0; i < nn; ++i)
            P->T[i] = P->M[i] + 0.5 * h * P->C[i] + 0.25 * h * h * P->K[i];
    else
        memcpy(P->T, P->M, sizeof(double) * nn);
    mbs_constraints_add_gram(P->m, P->phiz, 0.25 * h * h * alpha, P->T);
}

/* The same on T's pattern (the sparse algebra's values), with the dense sum's terms in its
 * order (bit-equal to gathering leading_dense's T), the Gram terms through gram_at. */
static void assemble_leading(Penalty *P, double h, double alpha, int with_tangent)
{
    if (!P->sparse) {
        leading_dense(P, h, alpha, with_tangent);
        return;
    }
    int n = P->n, nr = P->nr;
    const MbsTopology *t = P->topo;
    for (int j = 0; j < n; ++j)
        for (int k = P->T_colptr[j]; k < P->T_colptr[j + 1]; ++k) {
            size_t at = (size_t)P->T_rowind[k] + (size_t)n * (size_t)j;
            P->T_values[k] = with_tangent
                                 ? P->M[at] + 0.5 * h * P->C[at] + 0.25 * h * h * P->K[at]
                                 : P->M[at];
        }
    double w = 0.25 * h * h * alpha;
    const int *slot = P->gram_at;
    for (int i = 0; i < nr; ++i) { /* mbs_constraints_add_gram's loops */
        const double *phiz = &P->phiz_v[t->row_ptr[i]];
        int nc = t->row_ptr[i + 1] - t->row_ptr[i];
        for (int a = 0; a < nc; ++a, slot += nc) {
            double va = w * phiz[a];
            if (va == 0.0)
                continue;
            for (int b = 0; b < nc; ++b)
                P->T_values[slot[b]] += va * phiz[b];
        }
    }
}

/* Factorize T (dense LU of T, or KLU of the pattern's values), as assemble_leading left it.
 * Returns 0, or non-zero when singular. */
static int factor_leading(Penalty *P)
{
    if (!P->sparse)
        return mbs_lu_factor(P->n, P->T, P->ipiv);
    return mbs_sparse_lu_factor(P->T_colptr, P->T_rowind, P->T_values, P->klu_symbolic,
                                &P->klu_numeric, &P->klu, &P->refactorizations,
                                &P->full_factorizations);
}

/* x = T^-1 x with the factors of factor_leading. */
static void solve_leading(Penalty *P, double *x)
{
    if (P->sparse)
        klu_solve(P->klu_symbolic, P->klu_numeric, P->n, 1, x, &P->klu);
    else
        mbs_lu_solve(P->n, P->T, P->ipiv, x, 1);
}

/* [C, K] from the tangent: dense already, or the pattern's values into the dense block (its
 * other entries stay the zeros of init). */
static void tangent_eval(Penalty *P)
{
    if (!P->tangent.problem.pattern) {
        mbs_tangent_eval(&P->tangent, P->x, P->Q, P->C);
        return;
    }
    mbs_tangent_eval(&P->tangent, P->x, P->Q, P->KC_values);
    for (int j = 0; j < 2 * P->n; ++j)
        for (int k = P->KC_colptr[j]; k < P->KC_colptr[j + 1]; ++k)
            P->C[P->KC_rowind[k] + (size_t)P->n * j] = P->KC_values[k];
}

static int penalty_init(MbsFormulation *f, MbsError *err)
{
    const MbsModel *m = f->model;
    Penalty *P = calloc(1, sizeof *P);
    if (!P)
        return mbs_error_set(err, MBS_FATAL, "out of memory");
    f->impl = P;
    int n = P->n = m->topo->nnodes, nr = P->nr = m->topo->nrows, fail = 0;
    P->m = m;
    P->topo = m->topo;
    P->alpha = options(f)->alpha;
    size_t nn = (size_t)n * (size_t)n, nrn = (size_t)nr * (size_t)n;
    /* More threads than columns / 8 do not pay (measured on the four-bar). */
    P->nthreads = mbs_tangent_threads(options(f)->tangent.threads, n / 8 > 1 ? n / 8 : 1);
    P->nd = calloc((size_t)P->nthreads, sizeof *P->nd);
    P->nd_ctx = calloc((size_t)P->nthreads, sizeof *P->nd_ctx);
    if (!P->nd || !P->nd_ctx)
        return mbs_error_set(err, MBS_FATAL, "out of memory");
    MbsJacobianMethod method = options(f)->tangent.method;
    int dual = mbs_jacobian_method_needs_dual(method);
    for (int e = 0; dual && e < m->nforces; ++e)
        if (!mbs_force_class(m->forces[e].type)->evaluate_dual)
            return mbs_error_set(err, MBS_FATAL,
                                 "penalty: the Jacobian method '%s' needs the dual law of force "
                                 "kind '%s', which it does not define (MBS_FORCE_LAW)",
                                 mbs_jacobian_method_name(method),
                                 mbs_force_class(m->forces[e].type)->name);
    if (mbs_kinematics_init(&P->kin, m) || mbs_dynamics_init(&P->dyn, m))
        fail = 1;
    P->kin.clock = &f->clock;
    for (int t = 0; t < P->nthreads; ++t) {
        P->nd[t].m = m;
        P->nd_ctx[t] = &P->nd[t];
        if (mbs_kinematics_init(&P->nd[t].kin, m) || mbs_dynamics_init(&P->nd[t].dyn, m))
            fail = 1;
        if (dual && (mbs_kinematics_init_dual(&P->nd[t].kin_dual, m) ||
                     mbs_dynamics_init_dual(&P->nd[t].dyn_dual, m)))
            fail = 1;
        P->nd[t].kin.clock = P->nd[t].kin_dual.clock = &f->clock;
    }
    P->z = mbs_calloc_doubles(n, &fail);
    P->zd = mbs_calloc_doubles(n, &fail);
    P->zdd = mbs_calloc_doubles(n, &fail);
    P->z0 = mbs_calloc_doubles(n, &fail);
    P->zd0 = mbs_calloc_doubles(n, &fail);
    P->zdd0 = mbs_calloc_doubles(n, &fail);
    P->M = mbs_calloc_doubles(nn, &fail);
    P->C = mbs_calloc_doubles(2 * nn, &fail); /* [C, K] = -dQ/d[zd, z], one block */
    P->K = P->C ? P->C + nn : NULL;
    P->T = mbs_calloc_doubles(nn, &fail);
    P->Q = mbs_calloc_doubles(n, &fail);
    P->f = mbs_calloc_doubles(n, &fail);
    P->phi = mbs_calloc_doubles(nr, &fail);
    P->phiz = mbs_calloc_doubles(nrn, &fail);
    P->phiz_v = mbs_calloc_doubles((size_t)m->topo->row_ptr[nr], &fail);
    P->phit = mbs_calloc_doubles(nr, &fail);
    P->bias = mbs_calloc_doubles(nr, &fail);
    P->rv = mbs_calloc_doubles(nr, &fail);
    P->lambda = mbs_calloc_doubles(nr, &fail);
    P->lambda0 = mbs_calloc_doubles(nr, &fail);
    P->tmp = mbs_calloc_doubles(n, &fail);
    P->rhs = mbs_calloc_doubles(n, &fail);
    P->delta = mbs_calloc_doubles(n, &fail);
    P->rw = mbs_calloc_doubles(nr, &fail);
    P->x = mbs_calloc_doubles(2 * (size_t)n, &fail);
    P->ipiv = calloc((size_t)n + 1, sizeof(int));
    if (fail || !P->ipiv || build_pattern(m, P))
        return mbs_error_set(err, MBS_FATAL, "out of memory");
    int analytical = method == MBS_JACOBIAN_ANALYTICAL;
    char why[256];
    /* every force kind has its derivative; one without would be refused here, not replaced
     * silently by differences */
    if (analytical && !mbs_dynamics_derivatives_supported(m, why, sizeof why))
        return mbs_error_set(err, MBS_FATAL,
                             "penalty: the Jacobian method '%s' cannot be used on this model: %s; "
                             "choose nd-central or ad",
                             mbs_jacobian_method_name(method), why);
    if (analytical && mbs_dynamics_derivatives_init(&P->nd[0].derivatives, m))
        return mbs_error_set(err, MBS_FATAL, "out of memory");
    const MbsTangentProblem tangent = {
        .nx = 2 * n, .nr = n, .residual = eval_forces, .begin = begin_forces,
        .contexts = P->nd_ctx, .nthreads = P->nthreads, .negate = 1,
        .pattern = mbs_jacobian_method_uses_pattern(method) ? &P->KC_pattern : NULL,
        .analytical_jacobian = analytical ? analytical_forces_jacobian : NULL,
        .residual_dual = eval_forces_dual,
    };
    if (mbs_tangent_init(&P->tangent, &tangent, method, err))
        return MBS_FATAL;
    int algebra = options(f)->algebra;
    P->sparse = algebra == ALGEBRA_SPARSE ||
                (algebra == ALGEBRA_AUTOMATIC && n >= PENALTY_SPARSE_FROM);
    if (P->sparse && build_leading_pattern(m, P))
        return mbs_error_set(err, MBS_FATAL, "penalty: out of memory or KLU could not analyse "
                             "the leading matrix (status %d)", P->klu.status);

    int status = mbs_assemble(m, &f->settings, 0.0, P->z, P->zd, NULL, err);
    if (status == 0)
        status = mbs_assemble_accelerations(m, &f->settings, 0.0, P->z, P->zd, P->zdd, err);
    if (status)
        return status;
    mbs_kinematics_positions(m, &P->kin, P->z);
    mbs_kinematics_velocities(m, &P->kin, P->zd);
    constraints_at(P, 0.0, P->phit);
    mbs_constraints_bias(m, &P->kin, 0.0, P->bias);
    if (P->sparse) {
        /* KLU's first (allocating) factorization here, on M + h^2/4 Phi_z^T alpha Phi_z: the
         * steps then refactorize with its pivot order (a failure is left to the first step) */
        double h = f->settings.step;
        mbs_dynamics_mass(m, &P->kin, &P->dyn, P->M);
        assemble_leading(P, h, options(f)->alpha, 0);
        factor_leading(P);
    }
    fill_monitors(f, P);
    return 0;
}

/* zd, zdd from z by the trapezoidal rule (paper 003 eqs 40-41). */
static void trapezoidal_derivatives(Penalty *P, double h)
{
    for (int i = 0; i < P->n; ++i) {
        double dz = P->z[i] - P->z0[i];
        P->zd[i] = 2.0 / h * dz - P->zd0[i];
        P->zdd[i] = 4.0 / (h * h) * dz - 4.0 / h * P->zd0[i] - P->zdd0[i];
    }
}

/* 2-norm of Phi_z x + b (b per row): the velocity or acceleration constraint residual. */
static double rows_residual_norm(const Penalty *P, const double *x, const double *b)
{
    double sum = 0.0;
    for (int i = 0; i < P->nr; ++i) {
        double v = phiz_row_times(P, i, x, b[i]);
        sum += v * v;
    }
    return sqrt(sum);
}

/* A projection phase of the step trace: residuals before and after, the correction (in tmp
 * after project()). */
static void trace_projection(MbsTrace *t, const Penalty *P, MbsTracePhaseKind kind,
                             double before, const double *x, const double *b)
{
    MbsTracePhase *p = mbs_trace_phase(t, kind, 1);
    if (!p)
        return;
    p->residual = before;
    p->residual_after = rows_residual_norm(P, x, b);
    p->correction = mbs_vec_norminf(P->n, P->tmp);
}

/* out = T v, T = M + h/2 C + h^2/4 (K + Phi_z^T alpha Phi_z) at the positions of P->kin and
 * P->phiz (M v by the tree, C and K on their pattern), without forming T. */
static void leading_times(Penalty *P, double h, double alpha, const double *v, double *out)
{
    int n = P->n;
    mbs_dynamics_mass_times(P->m, &P->kin, &P->dyn, v, out);
    for (int j = 0; j < 2 * n; ++j) { /* [C, K]: columns j < n of C, then of K */
        double w = (j < n ? 0.5 * h : 0.25 * h * h) * v[j % n];
        for (int k = P->KC_colptr[j]; k < P->KC_colptr[j + 1]; ++k)
            out[P->KC_rowind[k]] += P->C[P->KC_rowind[k] + (size_t)n * (size_t)j] * w;
    }
    for (int i = 0; i < P->nr; ++i)
        P->rw[i] = phiz_row_times(P, i, v, 0.0);
    phiz_transpose_add(P, 0.25 * h * h * alpha, P->rw, out);
}

/* x -= T^{-1} (h^2/4 Phi_z^T alpha r): the projection correction with the tangent factors (paper
 * 000 eqs 24, 26), the correction left in tmp. When Newton's last iterations reused factors of
 * an earlier iterate, iterative refinement with them solves with T at the new positions (the
 * matrix of the step's end, as refactorizing there would; refinement's corrections shrink by
 * Newton's contraction rate, below REFACTOR_RATE). */
static int project_with_factors(Penalty *P, double h, double alpha, double tolerance,
                                const double *r, double *x)
{
    int n = P->n;
    double s = 0.25 * h * h * alpha;
    memset(P->tmp, 0, sizeof(double) * (size_t)n);
    phiz_transpose_add(P, 1.0, r, P->tmp);
    for (int j = 0; j < n; ++j)
        P->tmp[j] *= s;
    if (P->stale)
        memcpy(P->rhs, P->tmp, sizeof(double) * (size_t)n);
    solve_leading(P, P->tmp);
    double previous = mbs_vec_norminf(n, P->tmp);
    int refined = !P->stale;
    for (int pass = 0; P->stale && pass < PROJECTION_REFINEMENTS; ++pass) {
        leading_times(P, h, alpha, P->tmp, P->delta);
        for (int j = 0; j < n; ++j)
            P->delta[j] = P->rhs[j] - P->delta[j];
        solve_leading(P, P->delta);
        /* the passes multiply the error by one matrix: its contraction is step / previous,
         * the error left after this pass about step x that rate */
        double step = mbs_vec_norminf(n, P->delta), rate = step / previous;
        previous = step;
        for (int j = 0; j < n; ++j)
            P->tmp[j] += P->delta[j];
        P->refinements++;
        if (rate < 1.0 && step * rate / (1.0 - rate) <= tolerance * (1.0 + mbs_vec_norminf(n, x))) {
            refined = 1;
            break;
        }
    }
    if (!refined)
        return 1;
    for (int j = 0; j < n; ++j)
        x[j] -= P->tmp[j];
    return 0;
}

/* project_with_factors, and when the refinement with stale factors does not converge (near a
 * singular position the stale factors can be too far from T: the spatial four-bar's energy went
 * from 18 J to 6e10 J within a second at t = 55 s, test_energy_warning) T is factorized at the
 * step's end, as every step did before the factors were reused. Returns non-zero when T is
 * singular there. */
static int project(Penalty *P, double h, double alpha, double tolerance, const double *r,
                   double *x)
{
    if (project_with_factors(P, h, alpha, tolerance, r, x) == 0)
        return 0;
    mbs_dynamics_mass(P->m, &P->kin, &P->dyn, P->M);
    assemble_leading(P, h, alpha, 1);
    P->stale = 0;
    if (factor_leading(P) != 0)
        return 1;
    return project_with_factors(P, h, alpha, tolerance, r, x);
}

/* The alpha of the multiplier iteration at step h: the setting's, raised as 1/h^2 when it would
 * make the iteration crawl (mbs_augmented_alpha; with alpha = 1e9 it stopped converging below
 * h = 10 us on a centimetre four-bar, issue 28). */
static double iteration_alpha(Penalty *P, double h, double alpha)
{
    int n = P->n;
    const MbsTopology *t = P->topo;
    double mass = 0.0, gram = 0.0;
    memset(P->tmp, 0, sizeof(double) * (size_t)n);
    for (int i = 0; i < P->nr; ++i)
        for (int k = t->row_ptr[i]; k < t->row_ptr[i + 1]; ++k) {
            double v = P->phiz_v[k];
            P->tmp[t->row_cols[k]] += v * v;
        }
    for (int j = 0; j < n; ++j) {
        mass = fmax(mass, P->M[j + (size_t)n * j]);
        gram = fmax(gram, P->tmp[j]);
    }
    return mbs_augmented_alpha(alpha, mass, gram, 0.25 * h * h);
}

/* Newton-Raphson on f(z) = h^2/4 (M zdd + Phi_z^T (alpha Phi + lambda*) - Q) from the z in P,
 * lambda* += alpha Phi every iteration when `iterate` (paper 004 eq 9; alpha then raised to
 * iteration_alpha's at the first iteration). Returns 1 when converged; the iterations in *it,
 * the last correction in *corr. `done`: iterations of earlier attempts (for the trace). */
static int newton(MbsFormulation *f, double h, double t1, int iterate, double *alpha_io,
                  int reuse, int done, int *it_out, double *corr)
{
    const MbsModel *m = f->model;
    Penalty *P = f->impl;
    const PenaltyOptions *s = options(f);
    int n = P->n, nr = P->nr, converged = 0, it;
    double alpha = *alpha_io, tc, previous = INFINITY;
    size_t bytes = sizeof(double) * (size_t)n;
    MbsMonitors *mo = &f->monitors;
    MbsTrace *trace = f->trace;
    MbsTracePhase *phase;
    /* The leading matrix is factorized at the first iteration and then only when the stale
     * factors stop contracting (modified Newton, below) */
    int factored_at = -1, tangent_at = -1;
    double before_previous = INFINITY;
    f->clock = t1;
    for (it = 0; it < s->newton.max_iterations && !converged; ++it) {
        int refactor = factored_at < 0 ||
                       (factored_at < it - 1 && previous > REFACTOR_RATE * before_previous);
        tc = mbs_clock_now();
        trapezoidal_derivatives(P, h);
        mbs_kinematics_positions(m, &P->kin, P->z);
        mbs_kinematics_velocities(m, &P->kin, P->zd);
        if (refactor)
            mbs_dynamics_mass(m, &P->kin, &P->dyn, P->M);
        mbs_dynamics_forces(m, &P->kin, &P->dyn, P->z, P->zd, P->Q);
        constraints_at(P, t1, NULL);
        if (iterate && it == 0)
            alpha = iteration_alpha(P, h, alpha);
        if (iterate && it > 0)
            for (int r = 0; r < nr; ++r) /* lambda*_{i+1} = lambda*_i + alpha Phi (004: 9) */
                P->lambda[r] += alpha * P->phi[r];
        /* f = h^2/4 (M zdd + Phi_z^T (alpha Phi + lambda*) - Q), M zdd by the tree (O(n)) */
        mbs_dynamics_mass_times(m, &P->kin, &P->dyn, P->zdd, P->f);
        for (int i = 0; i < n; ++i)
            P->f[i] -= P->Q[i];
        phiz_transpose_add(P, alpha, P->phi, P->f);
        if (s->multipliers == MULTIPLIERS_ITERATED) /* lambda* (held in a fallback) */
            phiz_transpose_add(P, 1.0, P->lambda, P->f);
        for (int i = 0; i < n; ++i)
            P->f[i] = -0.25 * h * h * P->f[i];
        mo->time_dynamics += mbs_clock_now() - tc;
        int evaluate = refactor && (tangent_at < 0 || it - tangent_at >= reuse);
        phase = trace ? mbs_trace_phase(trace, MBS_TRACE_NEWTON, done + it + 1) : NULL;
        if (phase) {
            phase->residual = mbs_vec_norminf(n, P->f);
            phase->constraint = mbs_vec_norm2(nr, P->phi);
            phase->tangent_evaluated = evaluate;
            if (done + it == 0) {
                mbs_trace_dense(trace, "M", "M(z)", n, n, P->M, n);
                mbs_trace_dense(trace, "Phi_z", "Phi_z", nr, n, P->phiz, nr);
            }
        }

        if (evaluate) {
            tc = mbs_clock_now();
            memcpy(P->x, P->zd, bytes);
            memcpy(P->x + n, P->z, bytes);
            tangent_eval(P);
            tangent_at = it;
            mo->jacobian_evaluations++;
            mo->time_jacobian += mbs_clock_now() - tc;
        }

        tc = mbs_clock_now();
        if (refactor) {
            assemble_leading(P, h, alpha, 1);
            if (phase) {
                leading_dense(P, h, alpha, 1);
                mbs_trace_dense(trace, "leading", "M + h/2 C + h^2/4 (Phi_z^T alpha Phi_z + K)",
                                n, n, P->T, n);
            }
            if (factor_leading(P) != 0) {
                mo->time_factorization += mbs_clock_now() - tc;
                break;
            }
            factored_at = it;
        }
        solve_leading(P, P->f);
        before_previous = previous;
        *corr = mbs_vec_norminf(n, P->f);
        for (int i = 0; i < n; ++i)
            P->z[i] += P->f[i];
        mo->time_factorization += mbs_clock_now() - tc;
        if (!isfinite(*corr))
            break;
        /* With stale factors the iteration contracts linearly: the error left after a
         * correction c is about c rate / (1 - rate), rate = c / previous (as DASSL's modified
         * Newton estimates it), and that is what must meet the bound; the stagnation test
         * (corr > previous / 2) applies to Newton's own steps only. */
        double bound, rate = *corr / previous;
        if (refactor || !(rate < REFACTOR_RATE))
            converged = mbs_newton_converged(&s->newton, h, 1.0 + mbs_vec_norminf(n, P->z),
                                             *corr, refactor ? previous : INFINITY, &bound);
        else {
            double left = *corr * rate / (1.0 - rate);
            converged = mbs_newton_converged(&s->newton, h, 1.0 + mbs_vec_norminf(n, P->z),
                                             left, INFINITY, &bound);
            bound *= *corr / fmax(left, DBL_MIN); /* the bound this correction had to meet */
        }
        previous = *corr;
        mbs_trace_newton_end(phase, *corr, bound, converged);
    }
    P->stale = factored_at != it - 1;
    *it_out = it;
    *alpha_io = alpha;
    return converged;
}

/* The state of the step's start again, after a failure. */
static void restore_step_start(const MbsModel *m, Penalty *P)
{
    size_t bytes = sizeof(double) * (size_t)P->n;
    memcpy(P->z, P->z0, bytes);
    memcpy(P->zd, P->zd0, bytes);
    memcpy(P->zdd, P->zdd0, bytes);
    memcpy(P->lambda, P->lambda0, sizeof(double) * (size_t)P->nr);
    mbs_kinematics_positions(m, &P->kin, P->z);
    mbs_kinematics_velocities(m, &P->kin, P->zd);
}

/* A projection matrix found singular at t1: the step's start again and a recoverable error
 * (the run driver cuts the step). */
static int projection_failed(MbsFormulation *f, Penalty *P, double t1, double tc, MbsError *err)
{
    f->monitors.time_projection = mbs_clock_now() - tc;
    restore_step_start(f->model, P);
    return mbs_error_set(err, MBS_RECOVERABLE, "penalty: singular projection matrix at t = %.6g s",
                         t1);
}

/* One trapezoidal step of size h from the current state; monitors' counters and phase times
 * accumulate. On failure the state is restored to the start of this step. */
static int advance(MbsFormulation *f, double h, MbsError *err)
{
    const MbsModel *m = f->model;
    Penalty *P = f->impl;
    const PenaltyOptions *s = options(f);
    int n = P->n, nr = P->nr;
    double alpha = s->alpha, t1 = f->time + h;
    size_t bytes = sizeof(double) * (size_t)n;
    MbsMonitors *mo = &f->monitors;
    double tc;

    memcpy(P->z0, P->z, bytes);
    memcpy(P->zd0, P->zd, bytes);
    memcpy(P->zdd0, P->zdd, bytes);
    memcpy(P->lambda0, P->lambda, sizeof(double) * (size_t)nr);
    double power0 = P->power_nc;
    for (int i = 0; i < n; ++i) /* predictor */
        P->z[i] = P->z0[i] + h * P->zd0[i] + 0.5 * h * h * P->zdd0[i];
    MbsTrace *trace = f->trace;
    MbsTracePhase *phase = trace ? mbs_trace_phase(trace, MBS_TRACE_PREDICTOR, 0) : NULL;
    if (phase) /* the predictor's move h zd + h^2/2 zdd */
        for (int i = 0; i < n; ++i)
            phase->correction = fmax(i ? phase->correction : 0.0, fabs(P->z[i] - P->z0[i]));

    /* Iterated multipliers: the step's alpha is at least iteration_alpha's, and a step whose
     * iteration does not converge (near a singular position the iteration stalls: sigma -> 0)
     * is taken again from the predictor as plain penalty, lambda* = 0 and the setting's alpha,
     * and so are the next PLAIN_STEPS_AFTER_FALLBACK steps: falling back for single steps
     * alternated with the iteration and excited the trapezoidal rule's undamped alternating
     * mode (the 40-loop chain gained 1.5e3 J at h = 1 ms; issue 28). */
    int iterate = s->multipliers == MULTIPLIERS_ITERATED && P->plain_steps == 0;
    int converged = 0, it = 0, total = 0;
    if (P->plain_steps > 0)
        P->plain_steps--;
    double corr = INFINITY;
    int reuse = s->tangent.reuse > 0 ? s->tangent.reuse : 1;
    for (int attempt = 0; attempt < 1 + iterate && !converged; ++attempt) {
        if (attempt > 0) { /* the fallback: plain penalty with the user's alpha */
            iterate = 0;
            alpha = s->alpha;
            memset(P->lambda, 0, sizeof(double) * (size_t)nr);
            P->plain_steps = PLAIN_STEPS_AFTER_FALLBACK;
            for (int i = 0; i < n; ++i)
                P->z[i] = P->z0[i] + h * P->zd0[i] + 0.5 * h * h * P->zdd0[i];
            P->fallbacks++;
        }
        converged = newton(f, h, t1, iterate, &alpha, reuse, total, &it, &corr);
        total += it;
    }
    mo->newton_iterations += total;
    if (!converged) {
        restore_step_start(m, P);
        return mbs_error_set(err, MBS_RECOVERABLE,
                             "penalty: Newton-Raphson did not converge at t = %.6g s after %d "
                             "iterations (last correction %.3g); try a smaller step%s",
                             t1, total, corr, mbs_error_correction_hint(corr));
    }
    P->alpha = alpha;

    /* Projections of velocities and accelerations (paper 000 eqs 24, 26). */
    tc = mbs_clock_now();
    trapezoidal_derivatives(P, h);
    mbs_kinematics_positions(m, &P->kin, P->z);
    constraints_at(P, t1, P->phit);
    if (s->projection == PENALTY_PROJECTION_MASS) {
        /* P = M at the new positions: paper 000's P = M + h/2 C + h^2/4 K is not symmetric
         * (C holds the velocity terms of Q) and its projections added energy, a bias that made
         * the spatial four-bar diverge at h = 10 ms after 95 s (issue 28) */
        mbs_dynamics_mass(m, &P->kin, &P->dyn, P->M);
        assemble_leading(P, h, alpha, 0);
        P->stale = 0;
        if (factor_leading(P) != 0)
            return projection_failed(f, P, t1, tc, err);
    }
    for (int i = 0; i < nr; ++i)
        P->rv[i] = phiz_row_times(P, i, P->zd, P->phit[i]);
    double before = trace ? mbs_vec_norm2(nr, P->rv) : 0.0;
    double tolerance = s->newton.tolerance * mbs_newton_step_factor(h);
    if (project(P, h, alpha, tolerance, P->rv, P->zd) != 0)
        return projection_failed(f, P, t1, tc, err);
    if (trace) {
        trace_projection(trace, P, MBS_TRACE_PROJECTION_VELOCITY, before, P->zd, P->phit);
        mbs_trace_dense(trace, "Phi_z", "Phi_z at the new positions", nr, n, P->phiz, nr);
    }
    mbs_kinematics_velocities(m, &P->kin, P->zd);
    mbs_constraints_bias(m, &P->kin, t1, P->bias);
    for (int i = 0; i < nr; ++i)
        P->rv[i] = phiz_row_times(P, i, P->zdd, P->bias[i]);
    before = trace ? mbs_vec_norm2(nr, P->rv) : 0.0;
    if (project(P, h, alpha, tolerance, P->rv, P->zdd) != 0)
        return projection_failed(f, P, t1, tc, err);
    if (trace)
        trace_projection(trace, P, MBS_TRACE_PROJECTION_ACCELERATION, before, P->zdd, P->bias);
    mo->time_projection = mbs_clock_now() - tc;

    f->time = t1;
    tc = mbs_clock_now();
    fill_monitors(f, P);
    P->work_nc += 0.5 * h * (power0 + P->power_nc);
    mo->work_nonconservative = P->work_nc;
    mo->total = mo->kinetic + mo->potential_gravity + mo->potential_elastic - P->work_nc;
    mo->time_dynamics += mbs_clock_now() - tc;
    return 0;
}

/* A step of size h (the run driver cuts it when Newton fails). */
static int penalty_step(MbsFormulation *f, double h, MbsError *err)
{
    MbsMonitors *mo = &f->monitors;
    double t_start = mbs_clock_now();
    mo->time_dynamics = mo->time_jacobian = mo->time_factorization = mo->time_projection = 0.0;
    mo->jacobian_evaluations = mo->newton_iterations = 0;
    int status = advance(f, h, err);
    mo->time_step = mbs_clock_now() - t_start;
    return status;
}

/* State: z, zd, zdd, then the accumulated work and the power of non-conservative forces, then
 * the iterated multipliers, the last step's alpha and the plain steps left after a fallback. */
static int penalty_state_size(const MbsFormulation *f)
{
    const Penalty *P = f->impl;
    return 3 * P->n + 2 + P->nr + 2;
}

static void penalty_state_get(const MbsFormulation *f, double *state)
{
    const Penalty *P = f->impl;
    size_t bytes = sizeof(double) * (size_t)P->n;
    memcpy(state, P->z, bytes);
    memcpy(state + P->n, P->zd, bytes);
    memcpy(state + 2 * P->n, P->zdd, bytes);
    state[3 * P->n] = P->work_nc;
    state[3 * P->n + 1] = P->power_nc;
    memcpy(state + 3 * P->n + 2, P->lambda, sizeof(double) * (size_t)P->nr);
    state[3 * P->n + 2 + P->nr] = P->alpha;
    state[3 * P->n + 3 + P->nr] = P->plain_steps;
}

static int penalty_state_set(MbsFormulation *f, const double *state, MbsError *err)
{
    (void)err;
    Penalty *P = f->impl;
    const MbsModel *m = f->model;
    size_t bytes = sizeof(double) * (size_t)P->n;
    memcpy(P->z, state, bytes);
    memcpy(P->zd, state + P->n, bytes);
    memcpy(P->zdd, state + 2 * P->n, bytes);
    P->work_nc = state[3 * P->n];
    P->power_nc = state[3 * P->n + 1];
    memcpy(P->lambda, state + 3 * P->n + 2, sizeof(double) * (size_t)P->nr);
    P->alpha = state[3 * P->n + 2 + P->nr];
    P->plain_steps = (int)state[3 * P->n + 3 + P->nr];
    /* what the end of a step leaves current: kinematics and constraints at the state */
    mbs_kinematics_positions(m, &P->kin, P->z);
    mbs_kinematics_velocities(m, &P->kin, P->zd);
    constraints_at(P, f->time, P->phit);
    mbs_constraints_bias(m, &P->kin, f->time, P->bias);
    return 0;
}

/* The size of the tangent: columns n (of [zd, z]: 2 x coordinates), structural nonzeros,
 * colours p (the groups of columns perturbed together: n unless compressed) and the residual
 * evaluations the last Jacobian took. */
static int penalty_statistics(const MbsFormulation *f, MbsStatistic *out, int capacity)
{
    const Penalty *P = f->impl;
    const MbsTangent *t = &P->tangent;
    const MbsStatistic stats[] = {
        {"jacobian_columns", t->problem.nx, ""},
        {"jacobian_nonzeros", P->KC_colptr[t->problem.nx], ""},
        {"jacobian_colours", t->colours, ""},
        {"jacobian_residuals", (double)t->evaluations, ""},
        {"leading_sparse", P->sparse, ""},
        {"leading_nonzeros", P->sparse ? P->T_colptr[P->n] : (double)P->n * P->n, ""},
        {"sparse_refactorizations", P->refactorizations, ""},
        {"sparse_full_factorizations", P->full_factorizations, ""},
        {"multiplier_fallbacks", P->fallbacks, ""},
        {"projection_refinements", P->refinements, ""},
    };
    int count = (int)(sizeof stats / sizeof stats[0]);
    for (int i = 0; i < count && i < capacity; ++i)
        out[i] = stats[i];
    return count;
}

static void penalty_reset_statistics(MbsFormulation *f)
{
    Penalty *P = f->impl;
    P->refactorizations = P->full_factorizations = P->fallbacks = P->refinements = 0.0;
}

static void penalty_body_pose(const MbsFormulation *f, int body, double R[9], double p[3])
{
    const Penalty *P = f->impl;
    mbs_kin_body_pose(f->model, &P->kin, body, R, p);
}

static void penalty_point_velocity(const MbsFormulation *f, int body, const double r[3],
                                  double v[3])
{
    const Penalty *P = f->impl;
    mbs_kin_point_motion(f->model, &P->kin, body, r, v, NULL);
}

static int penalty_ncoords(const MbsFormulation *f)
{
    return ((const Penalty *)f->impl)->n;
}

static void penalty_coordinates(const MbsFormulation *f, double *q, double *qd)
{
    const Penalty *P = f->impl;
    if (q)
        memcpy(q, P->z, sizeof(double) * (size_t)P->n);
    if (qd)
        memcpy(qd, P->zd, sizeof(double) * (size_t)P->n);
}

static void penalty_accelerations(const MbsFormulation *f, double *qdd)
{
    const Penalty *P = f->impl;
    memcpy(qdd, P->zdd, sizeof(double) * (size_t)P->n);
}

static double penalty_joint_violation(const MbsFormulation *f, int joint)
{
    const Penalty *P = f->impl;
    const MbsTopology *t = f->model->topo;
    double v = 0.0;
    for (int i = 0; i < t->joint_nrows[joint]; ++i)
        v = fmax(v, fabs(P->phi[t->joint_row[joint] + i]));
    return v;
}

static const char *const multipliers_choices[] = {"none", "iterated", NULL};
static const char *const multipliers_labels[] = {MBS_N_("none (penalty)"),
                                                 MBS_N_("iterated (augmented Lagrangian)"), NULL};

static const char *const projection_choices[] = {"tangent", "mass", NULL};
static const char *const projection_labels[] = {MBS_N_("Newton tangent (paper 000)"),
                                                MBS_N_("mass matrix"), NULL};

static const MbsSetting penalty_items[] = {
    {.name = "alpha", .type = MBS_SETTING_NUMBER, .offset = offsetof(PenaltyOptions, alpha),
     .default_value = 1e9, .min = 0.0, .max = 1e300,
     .flags = MBS_SETTING_ABOVE_MIN | MBS_SETTING_DECADES, .label = MBS_N_("Penalty α"),
     .description = MBS_N_("Penalty factor of the constraints")},
    {.name = "algebra", .type = MBS_SETTING_CHOICE, .offset = offsetof(PenaltyOptions, algebra),
     .default_value = ALGEBRA_AUTOMATIC, .choices = mbs_algebra_choices,
     .choice_labels = mbs_algebra_labels, .label = MBS_N_("Linear algebra"),
     .description = MBS_N_("Leading matrix by dense LAPACK or sparse KLU factorizations; "
                           "automatic: sparse from 40 coordinates")}, /* PENALTY_SPARSE_FROM */
    {.name = "multipliers", .type = MBS_SETTING_CHOICE,
     .offset = offsetof(PenaltyOptions, multipliers), .default_value = MULTIPLIERS_NONE,
     .choices = multipliers_choices, .choice_labels = multipliers_labels,
     .label = MBS_N_("Multipliers"),
     .description = MBS_N_("Plain penalty (constraint error ~ reaction / α) or multipliers "
                           "iterated in every Newton iteration (augmented Lagrangian, as ali3p): "
                           "the constraint error falls to the Newton tolerance")},
    {.name = "projection", .type = MBS_SETTING_CHOICE,
     .offset = offsetof(PenaltyOptions, projection), .default_value = PENALTY_PROJECTION_TANGENT,
     .choices = projection_choices, .choice_labels = projection_labels,
     .label = MBS_N_("Projections"),
     .description = MBS_N_("Velocity and acceleration projections weighted by the Newton tangent "
                           "(paper 000, no extra factorization) or by the mass matrix (one more "
                           "factorization a step; no energy gained through the projections)")},
    {.name = "newton", .type = MBS_SETTING_GROUP, .offset = offsetof(PenaltyOptions, newton),
     .group = &mbs_newton_settings},
    {.name = "tangent", .type = MBS_SETTING_GROUP, .offset = offsetof(PenaltyOptions, tangent),
     .group = &mbs_tangent_analytical_settings},
};

static const MbsSettingTable penalty_settings = {
    .name = "penalty", .items = penalty_items,
    .count = (int)(sizeof penalty_items / sizeof penalty_items[0]), .size = sizeof(PenaltyOptions)};

const PenaltyOptions *mbs_penalty_options(const MbsSettings *s)
{
    return s->options_table == &penalty_settings ? (const PenaltyOptions *)s->options.bytes : NULL;
}

const MbsFormulationClass mbs_penalty_class = {
    .name = "penalty",
    .description = MBS_N_("Semi-recursive penalty formulation, trapezoidal rule, velocity and "
                          "acceleration projections (papers 000, 003)"),
    .settings = &penalty_settings,
    .tangent_offers_dual = 1,
    .tangent_probe = penalty_tangent_probe,
    .tangent_offers_analytical = 1,
    .init = penalty_init,
    .step = penalty_step,
    .finalize = penalty_finalize,
    .body_pose = penalty_body_pose,
    .point_velocity = penalty_point_velocity,
    .ncoords = penalty_ncoords,
    .coordinates = penalty_coordinates,
    .accelerations = penalty_accelerations,
    .joint_violation = penalty_joint_violation,
    .state_size = penalty_state_size,
    .state_get = penalty_state_get,
    .state_set = penalty_state_set,
    .statistics = penalty_statistics,
    .reset_statistics = penalty_reset_statistics,
};
