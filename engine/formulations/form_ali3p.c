/* ali3p: global index-3 augmented Lagrangian formulation with velocity and acceleration
 * projections (ALI3-P) in natural coordinates (paper 004 §2; Bayo & Ledesma; Cuadrado et al.).
 *
 * Per step t_{n-1} -> t_n = t_{n-1} + h:
 *   Newmark (eq 2): qd = gamma/(beta h) q - qd_hat, qdd = 1/(beta h^2) q - qdd_hat
 *   Newton-Raphson (eqs 3-5) on
 *     g(q) = beta h^2 [ M qdd + Phi_q^T (lambda* + alpha Phi) - Q ] = 0
 *   with the approximate tangent  M + gamma h C + beta h^2 (Phi_q^T alpha Phi_q + K),
 *   K = -dQ/dq, C = -dQ/dqd by the tangent interface ("jacobian"), and the
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
 * Phi_q is kept as sparse rows (at most two bodies per row), M by blocks. The tangent and the
 * projection matrix are either dense (Cholesky dpotrf when symmetric, LU dgetrf otherwise) or
 * sparse with a fixed pattern of 12 x 12 body blocks: symmetric positive definite ones (no K, C)
 * by a block Cholesky whose ordering and pattern are found in init, the others by KLU (analysed
 * and factorized once in init, refactorized in place afterwards). Everything is allocated in
 * init.
 */
#include <cblas.h>
#include <lapacke.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "form_ali3p_private.h"
#include "mbs_alloc.h"
#include "mbs_block_sparse.h"
#include "mbs_assembly.h"
#include "mbs_clock.h"
#include "mbs_force.h"
#include "mbs_formulation.h"
#include "mbs_linalg.h"
#include "mbs_natural.h"
#include "mbs_tangent.h"
#include "mbs_tangent_probe.h"
#include "mbs_topology.h"

/* Linear algebra ("algebra": mbs_algebra_choices). */
enum { ALGEBRA_AUTOMATIC, ALGEBRA_DENSE, ALGEBRA_SPARSE };

static const Ali3pOptions *options(const MbsFormulation *f)
{
    return mbs_formulation_options(f);
}

typedef struct {
    MbsNatural *nat;
    /* sparse algebra (NULL: dense): T's pattern of 12 x 12 blocks between coupled moving
     * bodies (every body with itself, the bodies of every constraint row and force element),
     * the Cholesky factor of the symmetric positive definite ones (no K, C), KLU for the
     * others (slot 0: Newton tangent, 1: projection matrix) */
    MbsBlockSparse *sp;
    double *Kx, *Cx;       /* sparse: [K, C] on T's pattern, one block */
    int *KCp, *KCi;        /* the pattern of [K, C] (n x 2n): T's twice */
    MbsSparsity KC_pattern;
    int n, m;
    double alpha, beta, gamma;
    double h;                            /* size of the current (or last) step */
    double alpha_eff;                    /* alpha in use (see the step: raised when stalling) */
    double mass_max;                     /* largest diagonal entry of M (mbs_augmented_alpha) */
    int easy_steps;
    double *q, *qd, *qdd, *lambda;       /* state and dynamic multipliers lambda* */
    double *q0, *qd0, *qdd0, *lambda0;   /* state at the start of the step (for a retry) */
    double *qd_hat, *qdd_hat;
    double *T;                           /* n x n: tangent or projection matrix, factorized */
    double *K, *C;                       /* n x n, one block [K, C], only when Q depends on q, qd */
    int *ipiv;
    int sym;                             /* T holds a Cholesky factor (1) or an LU (0) */
    MbsNatJacRow *J;                     /* Phi_q, m sparse rows */
    double *phi, *phit, *cb;             /* m */
    double *Q, *g, *rhs, *x, *grad, *mult, *res, *tmp;
    double *angle_ref;                   /* per joint */
    double power;                        /* non-conservative power at the current state */
    double work;
    int has_KC;
    /* [K, C] = -dQ/d[q, qd]: variables, per-thread force workspaces, the tangent */
    double *qqd;
    struct ForceContext *nd;
    void **nd_ctx;
    int nthreads;
    MbsTangent tangent;
    /* the methods that compress by a pattern (nd-sparse, ad-sparse): [K, C]'s own pattern from
     * the force elements' bodies, its values, and where each goes in a->K or a->Kx */
    int *FKp, *FKi;
    MbsSparsity force_pattern;
    double *FKx;
    size_t *FKmap;
    MbsTrace *trace;                     /* the step trace of this step (f->trace), or NULL */
} Ali3p;

/* A thread's evaluation of Q(q, qd): the model data are shared read-only, the gradient
 * workspace is its own. */
typedef struct ForceContext {
    const Ali3p *a;
    double *grad;
    MbsDual *grad_dual; /* the same for ad and ad-sparse (NULL for the other methods) */
} ForceContext;

static void ali3p_finalize(MbsFormulation *f)
{
    Ali3p *a = f->impl;
    if (!a)
        return;
    mbs_natural_free(a->nat);
    double *bufs[] = {a->q, a->qd, a->qdd, a->lambda, a->q0, a->qd0, a->qdd0, a->lambda0,
                      a->qd_hat, a->qdd_hat, a->T, a->K, a->phi, a->phit, a->cb, a->Q,
                      a->g, a->rhs, a->x, a->grad, a->mult, a->res, a->tmp,
                      a->angle_ref, a->qqd};
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; ++i)
        free(bufs[i]);
    for (int t = 0; a->nd && t < a->nthreads; ++t) {
        free(a->nd[t].grad);
        free(a->nd[t].grad_dual);
    }
    free(a->nd);
    free(a->nd_ctx);
    mbs_tangent_free(&a->tangent);
    free(a->FKp);
    free(a->FKi);
    free(a->FKx);
    free(a->FKmap);
    free(a->J);
    free(a->ipiv);
    if (a->sp)
        mbs_block_sparse_free(a->sp);
    free(a->sp);
    free(a->Kx);
    free(a->KCp);
    free(a->KCi);
    free(a);
    f->impl = NULL;
}

static void forces(Ali3p *a, const double *q, const double *qd, double *Q, MbsNatEnergy *e)
{
    mbs_natural_forces(a->nat, q, qd, a->angle_ref, a->grad, Q, e);
}

static void mark(unsigned char *cpl, int nb, int off1, int off2)
{
    if (off1 < 0 || off2 < 0)
        return;
    int i = off1 / 12, j = off2 / 12;
    cpl[(size_t)i + (size_t)nb * j] = cpl[(size_t)j + (size_t)nb * i] = 1;
}

/* Pattern: every body with itself, the bodies of every constraint row, of every TSDA and of
 * every RSDA. a->J must hold the rows (their block offsets are structural). */
static int sparse_new(Ali3p *a, MbsError *err)
{
    const MbsNatural *nat = a->nat;
    const MbsModel *m = nat->model;
    MbsBlockSparse *sp = a->sp = calloc(1, sizeof *sp); /* freed by finalize, also on failure */
    int nb = nat->nbodies, n = a->n;
    unsigned char *cpl = calloc((size_t)nb * nb + 1, 1);
    if (!sp || !cpl) {
        free(cpl);
        return mbs_error_set(err, MBS_FATAL, "out of memory");
    }
    for (int i = 0; i < nb; ++i)
        cpl[(size_t)i * (nb + 1)] = 1;
    for (int i = 0; i < a->m; ++i)
        mark(cpl, nb, a->J[i].off[0], a->J[i].off[1]);
    for (int f = 0; f < m->nforces; ++f) {
        /* Elements between two bodies couple their coordinates in the tangent. */
        const MbsForce *F = &m->forces[f];
        MbsForceGeometry g = mbs_force_class(F->type)->geometry;
        if (g == MBS_FORCE_ON_LINE)
            mark(cpl, nb, nat->body_off[F->body1], nat->body_off[F->body2]);
        else if (g == MBS_FORCE_ON_JOINT || g == MBS_FORCE_CONTROL)
            mark(cpl, nb, nat->body_off[m->joints[F->joint].body1],
                 nat->body_off[m->joints[F->joint].body2]);
        if (g == MBS_FORCE_CONTROL) /* the joint's force reads body1 */
            for (int s = 0; s < 2; ++s)
                mark(cpl, nb, nat->body_off[F->body1],
                     nat->body_off[s ? m->joints[F->joint].body2 : m->joints[F->joint].body1]);
    }
    int status = mbs_block_sparse_init(sp, nb, 12, cpl);
    free(cpl);
    if (status == -2)
        return mbs_error_set(err, MBS_FATAL, "ali3p: KLU could not analyse the tangent (status %d)",
                             sp->common.status);
    if (status)
        return mbs_error_set(err, MBS_FATAL, "out of memory");
    int nnz = sp->nnz;
    if (a->has_KC) { /* Q couples no other blocks than the tangent's pattern */
        a->Kx = calloc(2 * (size_t)nnz + 1, sizeof(double));
        a->Cx = a->Kx ? a->Kx + nnz : NULL;
        a->KCp = malloc(sizeof(int) * (2 * (size_t)n + 1));
        a->KCi = malloc(sizeof(int) * (2 * (size_t)nnz + 1));
        if (!a->Kx || !a->KCp || !a->KCi)
            return mbs_error_set(err, MBS_FATAL, "out of memory");
        for (int j = 0; j <= n; ++j)
            a->KCp[j] = sp->Ap[j];
        for (int j = 1; j <= n; ++j)
            a->KCp[n + j] = nnz + sp->Ap[j];
        memcpy(a->KCi, sp->Ai, sizeof(int) * (size_t)nnz);
        memcpy(a->KCi + nnz, sp->Ai, sizeof(int) * (size_t)nnz);
        a->KC_pattern = (MbsSparsity){.colptr = a->KCp, .rowind = a->KCi};
    }
    return 0;
}

static int eval_forces(void *ctx, const double *x, int column, double step, double *Q)
{
    const ForceContext *c = ctx;
    (void)column;
    (void)step;
    mbs_natural_forces(c->a->nat, x, x + c->a->n, c->a->angle_ref, c->grad, Q, NULL);
    return 0;
}

/* Q over dual numbers at x = [q, qd] (ad, ad-sparse): the same source as eval_forces
 * (mbs_natural_forces_kernel.h). */
static int eval_forces_dual(void *ctx, const MbsDual *x, int largest, MbsDual *Q)
{
    const ForceContext *c = ctx;
    (void)largest;
    mbs_natural_forces_dual(c->a->nat, x, x + c->a->n, c->a->angle_ref, c->grad_dual, Q, NULL);
    return 0;
}

/* [K, C] = -dQ/d[q, qd] analytically (mbs_natural_forces_derivatives), into J as the tangent
 * stores it: dense n x 2n, or the values of KC_pattern. */
typedef struct {
    const Ali3p *a;
    double *J;
} JacobianSink;

static void subtract_entry(void *ctx, int row, int column, double value)
{
    const JacobianSink *s = ctx;
    const Ali3p *a = s->a;
    int n = a->n;
    if (!a->sp) {
        s->J[row + (size_t)n * (size_t)column] -= value;
        return;
    }
    int pos = mbs_block_sparse_pos(a->sp, row, column < n ? column : column - n);
    s->J[(column < n ? 0 : (size_t)a->sp->nnz) + (size_t)pos] -= value;
}

static int analytical_forces_jacobian(void *ctx, const double *x, double *J)
{
    const ForceContext *c = ctx;
    const Ali3p *a = c->a;
    size_t entries = a->sp ? 2 * (size_t)a->sp->nnz : 2 * (size_t)a->n * (size_t)a->n;
    memset(J, 0, sizeof(double) * entries);
    JacobianSink sink = {.a = a, .J = J};
    mbs_natural_forces_derivatives(a->nat, x, x + a->n, a->angle_ref, c->grad, subtract_entry,
                                   &sink);
    return 0;
}

/* [K, C]'s own pattern for the compressing methods: the 12 x 12 blocks of every body a force
 * element acts on, with itself and, for an element between two bodies (a line or a joint), with
 * the other (gravity is constant in natural coordinates; nothing else in Q depends on q, qd),
 * in both halves (K and C); and where each entry goes: a->K (dense) or a->Kx (T's pattern).
 * The leading matrix's pattern also couples the bodies of every joint, which K does not: the
 * colouring of this one needs far fewer colours. */
static int force_pattern_new(Ali3p *a, MbsError *err)
{
    const MbsNatural *nat = a->nat;
    const MbsModel *m = nat->model;
    int nb = nat->nbodies, n = a->n;
    unsigned char *cpl = calloc((size_t)nb * nb + 1, 1);
    if (!cpl)
        return mbs_error_set(err, MBS_FATAL, "out of memory");
    for (int f = 0; f < m->nforces; ++f) {
        const MbsForce *F = &m->forces[f];
        MbsForceGeometry g = mbs_force_class(F->type)->geometry;
        int on_joint = g == MBS_FORCE_ON_JOINT || g == MBS_FORCE_CONTROL;
        int b1 = on_joint ? m->joints[F->joint].body1 : F->body1;
        int b2 = on_joint                ? m->joints[F->joint].body2
                 : g == MBS_FORCE_ON_LINE ? F->body2
                                          : b1;
        int o1 = nat->body_off[b1], o2 = nat->body_off[b2];
        mark(cpl, nb, o1, o1);
        mark(cpl, nb, o2, o2);
        mark(cpl, nb, o1, o2);
        if (g == MBS_FORCE_CONTROL) { /* the joint's force reads body1 */
            int o3 = nat->body_off[F->body1];
            mark(cpl, nb, o3, o3);
            mark(cpl, nb, o1, o3);
            mark(cpl, nb, o2, o3);
        }
    }
    size_t nnz = 0;
    for (size_t k = 0; k < (size_t)nb * nb; ++k)
        nnz += cpl[k] ? 144 : 0;
    a->FKp = calloc(2 * (size_t)n + 1, sizeof(int));
    a->FKi = calloc(2 * nnz + 1, sizeof(int));
    a->FKx = calloc(2 * nnz + 1, sizeof(double));
    a->FKmap = calloc(2 * nnz + 1, sizeof(size_t));
    if (!a->FKp || !a->FKi || !a->FKx || !a->FKmap) {
        free(cpl);
        return mbs_error_set(err, MBS_FATAL, "out of memory");
    }
    size_t k = 0;
    for (int half = 0; half < 2; ++half)
        for (int j = 0; j < nb; ++j)
            for (int c = 0; c < 12; ++c) {
                int col = half * n + 12 * j + c;
                a->FKp[col] = (int)k;
                for (int i = 0; i < nb; ++i)
                    if (cpl[(size_t)i + (size_t)nb * j])
                        for (int r = 0; r < 12; ++r, ++k) {
                            int row = 12 * i + r;
                            a->FKi[k] = row;
                            a->FKmap[k] = a->sp ? (half ? (size_t)a->sp->nnz : 0) +
                                                      (size_t)mbs_block_sparse_pos(a->sp, row, 12 * j + c)
                                                : (size_t)row + (size_t)n * (size_t)col;
                        }
            }
    a->FKp[2 * n] = (int)k;
    free(cpl);
    a->force_pattern = (MbsSparsity){.colptr = a->FKp, .rowind = a->FKi};
    return 0;
}

/* The tangent of Q over x = [q, qd] into the block [K, C] (dense or the sparse pattern's
 * values); made once Q's pattern is known. */
static int stiffness_damping_init(Ali3p *a, const MbsTangentOptions *o, MbsError *err)
{
    int n = a->n, fail = 0;
    /* At most n / 8 threads, as penalty: 2 threads already paid at n = 36 (15 vs 25 us per
     * [K, C]; 0.5 vs 1.0 ms at n = 540; best of 300 on the 2-core test machine). */
    a->nthreads = mbs_tangent_threads(o->threads, n / 8 > 1 ? n / 8 : 1);
    a->nd = mbs_calloc((size_t)a->nthreads, sizeof *a->nd, &fail);
    a->nd_ctx = mbs_calloc((size_t)a->nthreads, sizeof *a->nd_ctx, &fail);
    a->qqd = mbs_calloc(2 * (size_t)n, sizeof(double), &fail);
    int dual = mbs_jacobian_method_needs_dual(o->method);
    for (int t = 0; !fail && t < a->nthreads; ++t) {
        a->nd[t] = (ForceContext){.a = a, .grad = mbs_calloc((size_t)n, sizeof(double), &fail)};
        if (dual)
            a->nd[t].grad_dual = mbs_calloc((size_t)n, sizeof(MbsDual), &fail);
        a->nd_ctx[t] = &a->nd[t];
    }
    if (fail)
        return mbs_error_set(err, MBS_FATAL, "out of memory");
    char why[256];
    if (o->method == MBS_JACOBIAN_ANALYTICAL &&
        !mbs_natural_forces_derivatives_supported(a->nat->model, why, sizeof why))
        return mbs_error_set(err, MBS_FATAL,
                             "ali3p: the Jacobian method '%s' cannot be used on this model: %s; "
                             "choose nd-central",
                             mbs_jacobian_method_name(o->method), why);
    int compressed = mbs_jacobian_method_uses_pattern(o->method);
    if (compressed && force_pattern_new(a, err))
        return MBS_FATAL;
    const MbsTangentProblem tangent = {
        .nx = 2 * n, .nr = n, .residual = eval_forces, .contexts = a->nd_ctx,
        .nthreads = a->nthreads,
        .pattern = compressed ? &a->force_pattern : a->sp ? &a->KC_pattern : NULL,
        .negate = 1,
        .analytical_jacobian = analytical_forces_jacobian,
        .residual_dual = eval_forces_dual,
    };
    return mbs_tangent_init(&a->tangent, &tangent, o->method, err);
}

/* K = -dQ/dq, C = -dQ/dqd at the current state (Q0 = Q(q, qd)). */
static void stiffness_damping(Ali3p *a, const double *Q0)
{
    size_t bytes = sizeof(double) * (size_t)a->n;
    memcpy(a->qqd, a->q, bytes);
    memcpy(a->qqd + a->n, a->qd, bytes);
    if (!a->FKp) {
        mbs_tangent_eval(&a->tangent, a->qqd, Q0, a->sp ? a->Kx : a->K);
        return;
    }
    /* scattered from [K, C]'s own pattern; the entries outside it stay 0 */
    mbs_tangent_eval(&a->tangent, a->qqd, Q0, a->FKx);
    double *dest = a->sp ? a->Kx : a->K;
    for (int k = 0; k < a->FKp[2 * a->n]; ++k)
        dest[a->FKmap[k]] = a->FKx[k];
}

static int ali3p_tangent_probe(MbsFormulation *f, MbsTangentProbe *probe, MbsError *err)
{
    Ali3p *a = f->impl;
    if (!a->has_KC)
        return mbs_error_set(err, MBS_FATAL, "ali3p: no force varies with the state");
    size_t bytes = sizeof(double) * (size_t)a->n;
    memcpy(a->qqd, a->q, bytes);
    memcpy(a->qqd + a->n, a->qd, bytes);
    forces(a, a->q, a->qd, a->Q, NULL);
    *probe = (MbsTangentProbe){.tangent = &a->tangent, .x = a->qqd, .r0 = a->Q};
    return 0;
}

/* Sparse T += s M and T += s Phi_q^T Phi_q. */
static void sp_add_mass(const Ali3p *a, double s)
{
    const MbsNatural *nat = a->nat;
    const MbsModel *m = nat->model;
    MbsBlockSparse *sp = a->sp;
    for (int b = 0; b < m->nbodies; ++b) {
        int off = nat->body_off[b];
        if (off < 0)
            continue;
        for (int d = 0; d < 3; ++d)
            sp->Tx[mbs_block_sparse_pos(sp, off + d, off + d)] += s * m->bodies[b].mass;
        const double *S = &nat->S[9 * b];
        for (int j = 0; j < 3; ++j)
            for (int k = 0; k < 3; ++k)
                for (int d = 0; d < 3; ++d)
                    sp->Tx[mbs_block_sparse_pos(sp, off + 3 + 3 * j + d, off + 3 + 3 * k + d)] += s * S[3 * j + k];
    }
}

/* T += s Phi_q^T Phi_q from the sparse rows (each touches at most two 12-coordinate blocks),
 * into the dense matrix (T != NULL) or the sparse tangent's values. */
static void add_gram(const Ali3p *a, double *T, double s)
{
    size_t n = (size_t)a->n;
    for (int i = 0; i < a->m; ++i) {
        const MbsNatJacRow *r = &a->J[i];
        for (int p = 0; p < 2; ++p) {
            if (r->off[p] < 0)
                continue;
            for (int q = 0; q < 2; ++q) {
                if (r->off[q] < 0)
                    continue;
                for (int k = 0; k < 12; ++k) {
                    double v = s * r->v[q][k];
                    if (v == 0.0)
                        continue;
                    /* 12 consecutive rows of block p in column off[q] + k */
                    double *col = T ? &T[n * (size_t)(r->off[q] + k) + (size_t)r->off[p]]
                                    : &a->sp->Tx[mbs_block_sparse_pos(a->sp, r->off[p], r->off[q] + k)];
                    for (int l = 0; l < 12; ++l)
                        col[l] += r->v[p][l] * v;
                }
            }
        }
    }
}

/* T += s M (block structure of the natural mass matrix). */
static void add_mass(const Ali3p *a, double *T, double s)
{
    const MbsNatural *nat = a->nat;
    const MbsModel *m = nat->model;
    size_t n = (size_t)a->n;
    for (int b = 0; b < m->nbodies; ++b) {
        int off = nat->body_off[b];
        if (off < 0)
            continue;
        for (int d = 0; d < 3; ++d)
            T[(off + d) * (n + 1)] += s * m->bodies[b].mass;
        const double *S = &nat->S[9 * b];
        for (int j = 0; j < 3; ++j)
            for (int k = 0; k < 3; ++k)
                for (int d = 0; d < 3; ++d)
                    T[(off + 3 + 3 * j + d) + n * (off + 3 + 3 * k + d)] += s * S[3 * j + k];
    }
}

/* x += s Phi_q^T r */
static void jt_mul_add(const Ali3p *a, double s, const double *r, double *x)
{
    for (int i = 0; i < a->m; ++i) {
        double v = s * r[i];
        if (v == 0.0)
            continue;
        const MbsNatJacRow *row = &a->J[i];
        for (int p = 0; p < 2; ++p)
            if (row->off[p] >= 0)
                for (int k = 0; k < 12; ++k)
                    x[row->off[p] + k] += row->v[p][k] * v;
    }
}

/* y = Phi_q x + b (b may be NULL) */
static void j_mul(const Ali3p *a, const double *x, const double *b, double *y)
{
    for (int i = 0; i < a->m; ++i) {
        const MbsNatJacRow *row = &a->J[i];
        double v = b ? b[i] : 0.0;
        for (int p = 0; p < 2; ++p)
            if (row->off[p] >= 0)
                for (int k = 0; k < 12; ++k)
                    v += row->v[p][k] * x[row->off[p] + k];
        y[i] = v;
    }
}

/* Factorize a->T: Cholesky when symmetric (it is then positive definite), LU otherwise.
 * Returns 0 or the LAPACK info. */
static int factor(Ali3p *a, int sym)
{
    a->sym = sym;
    if (a->sp) /* SPD (no K, C): block Cholesky; else KLU */
        return mbs_block_sparse_factor(a->sp, sym);
    if (sym)
        return LAPACKE_dpotrf_work(LAPACK_COL_MAJOR, 'L', a->n, a->T, a->n);
    return mbs_lu_factor(a->n, a->T, a->ipiv);
}

static void solve(Ali3p *a, double *x)
{
    if (a->sp)
        mbs_block_sparse_solve(a->sp, x);
    else if (a->sym)
        LAPACKE_dpotrs_work(LAPACK_COL_MAJOR, 'L', a->n, 1, a->T, a->n, x, a->n);
    else
        mbs_lu_solve(a->n, a->T, a->ipiv, x, 1);
}

/* Weight matrix P of the projection: y = P x. */
static void p_mul(const Ali3p *a, const MbsFormulation *f, int kind, const double *x, double *y)
{
    (void)f;
    mbs_natural_mass_mul(a->nat, x, y);
    if (kind == 1 && a->has_KC && a->sp) {
        const MbsBlockSparse *sp = a->sp;
        double h = a->h, cC = a->gamma * h, cK = a->beta * h * h;
        for (int c = 0; c < a->n; ++c)
            for (int k = sp->Ap[c]; k < sp->Ap[c + 1]; ++k)
                y[sp->Ai[k]] += (cC * a->Cx[k] + cK * a->Kx[k]) * x[c];
    } else if (kind == 1 && a->has_KC) {
        double h = a->h;
        cblas_dgemv(CblasColMajor, CblasNoTrans, a->n, a->n, a->gamma * h, a->C, a->n, x, 1, 1.0,
                    y, 1);
        cblas_dgemv(CblasColMajor, CblasNoTrans, a->n, a->n, a->beta * h * h, a->K, a->n, x, 1,
                    1.0, y, 1);
    }
}

/* What the step trace calls the matrices of build_and_factor. */
static const char leading_formula[] = "M + gamma h C + beta h^2 (Phi_q^T alpha Phi_q + K)";
static const char projection_formula[] = "P + zeta alpha Phi_q^T Phi_q";

/* The mass matrix and Phi_q for the step trace (M assembled in the trace's scratch). */
static void trace_mass_and_jacobian(const Ali3p *a, MbsTrace *t)
{
    size_t n = (size_t)a->n;
    memset(t->scratch, 0, n * n * sizeof(double));
    add_mass(a, t->scratch, 1.0);
    mbs_trace_dense(t, "M", "M (constant)", a->n, a->n, t->scratch, a->n);
    mbs_trace_matrix_begin(t, "Phi_q", "Phi_q", a->m, a->n);
    for (int i = 0; i < a->m; ++i)
        for (int p = 0; p < 2; ++p)
            if (a->J[i].off[p] >= 0)
                for (int k = 0; k < 12; ++k)
                    mbs_trace_matrix_entry(t, i, a->J[i].off[p] + k, a->J[i].v[p][k]);
    mbs_trace_matrix_end(t);
}

/* A projection phase of the step trace: residual before, after (the last one al_project
 * computed, in a->res), iterations and the change from old to x. */
static void trace_projection(const Ali3p *a, MbsTracePhase *p, double before, int iterations,
                             const double *old, const double *x)
{
    if (!p)
        return;
    p->iteration = iterations;
    p->residual = before;
    p->residual_after = mbs_vec_norm2(a->m, a->res);
    p->correction = 0.0;
    for (int i = 0; i < a->n; ++i)
        p->correction = fmax(p->correction, fabs(x[i] - old[i]));
}

/* T = M + c_C C + c_K K + s Phi_q^T Phi_q, factorized (slot 0: tangent, 1: projection). */
static int build_and_factor(Ali3p *a, double cC, double cK, double s, int slot)
{
    size_t nn = (size_t)a->n * (size_t)a->n;
    int use_KC = a->has_KC && (cC != 0.0 || cK != 0.0);
    if (a->sp) {
        MbsBlockSparse *sp = a->sp;
        if (use_KC)
            for (int k = 0; k < sp->nnz; ++k)
                sp->Tx[k] = cC * a->Cx[k] + cK * a->Kx[k];
        else
            memset(sp->Tx, 0, (size_t)sp->nnz * sizeof(double));
        sp_add_mass(a, 1.0);
        add_gram(a, NULL, s);
        sp->cur = slot;
        if (a->trace)
            mbs_trace_csc(a->trace, slot ? "projection" : "leading",
                          slot ? projection_formula : leading_formula, a->n, a->n, sp->Ap, sp->Ai,
                          sp->Tx);
        return factor(a, !use_KC);
    }
    if (use_KC)
        for (size_t i = 0; i < nn; ++i)
            a->T[i] = cC * a->C[i] + cK * a->K[i];
    else
        memset(a->T, 0, nn * sizeof(double));
    add_mass(a, a->T, 1.0);
    add_gram(a, a->T, s);
    if (a->trace)
        mbs_trace_dense(a->trace, slot ? "projection" : "leading",
                        slot ? projection_formula : leading_formula, a->n, a->n, a->T, a->n);
    return factor(a, !use_KC);
}

/* Projection matrix A = P + zeta alpha Phi_q^T Phi_q at the current q, factorized in a->T. */
static int projection_matrix(const MbsFormulation *f, Ali3p *a, int kind, double *zeta)
{
    (void)f;
    double h = a->h;
    /* The converged projections do not depend on zeta (eqs 6b, 7b drive Phi_dot, Phi_ddot to
     * zero whatever the weight); zeta sets the iteration rate and the conditioning. */
    *zeta = kind == 2 ? 1.0 : a->beta * h * h;
    if (kind == 1)
        return build_and_factor(a, a->gamma * h, a->beta * h * h, *zeta * a->alpha_eff, 1);
    return build_and_factor(a, 0.0, 0.0, *zeta * a->alpha_eff, 1);
}

/* Augmented Lagrangian projection (eqs 6, 7): with A = P + zeta Phi_q^T alpha Phi_q factorized
 * in a->T, solve A x = rhs0 - Phi_q^T (mult + zeta alpha b) and update mult += zeta alpha
 * (Phi_q x + b) until ||Phi_q x + b||_inf <= tol max(1, ||x||_inf). */
static int al_project(Ali3p *a, const double *rhs0, const double *b, double zeta, double *mult,
                      double *x, double tol, int max_it)
{
    int n = a->n, m = a->m, it;
    double za = zeta * a->alpha_eff;
    for (it = 0; it < max_it; ++it) {
        for (int i = 0; i < m; ++i)
            a->res[i] = mult[i] + za * b[i];
        memcpy(x, rhs0, (size_t)n * sizeof(double));
        jt_mul_add(a, -1.0, a->res, x);
        solve(a, x);
        j_mul(a, x, b, a->res);
        for (int i = 0; i < m; ++i)
            mult[i] += za * a->res[i];
        if (mbs_vec_norminf(m, a->res) <= tol * fmax(1.0, mbs_vec_norminf(n, x)))
            return it + 1;
    }
    return it;
}

/* alpha_eff raised to mbs_augmented_alpha's at step weight beta h^2 for the Phi_q in a->J: the
 * multiplier iteration (eq 1b) and the projections (eqs 6b, 7b, weight zeta alpha) contract by
 * about 1 / (1 + beta h^2 alpha sigma^2 / m), so at a fixed alpha they stalled as h fell and the
 * constraint residual grew as 1/h^2 (2e-13 at h = 1e-4, 2e-9 at 1e-6; issue 28). */
static double raise_alpha_for_step(Ali3p *a, double h)
{
    double gram = 0.0;
    memset(a->tmp, 0, (size_t)a->n * sizeof(double));
    for (int i = 0; i < a->m; ++i)
        for (int p = 0; p < 2; ++p)
            for (int k = 0; k < 12 && a->J[i].off[p] >= 0; ++k)
                a->tmp[a->J[i].off[p] + k] += a->J[i].v[p][k] * a->J[i].v[p][k];
    for (int j = 0; j < a->n; ++j)
        gram = fmax(gram, a->tmp[j]);
    double alpha = mbs_augmented_alpha(a->alpha, a->mass_max, gram, a->beta * h * h);
    a->alpha_eff = fmax(a->alpha_eff, alpha);
    return alpha;
}

/* Power of the drivers: constraint force -Phi_q^T lambda on the driver rows, power
 * -lambda_d^T Phi_q,d qd (= lambda_d^T Phi_t,d on the velocity manifold). */
static double driver_power(const Ali3p *a, const double *lam)
{
    const MbsNatural *nat = a->nat;
    double P = 0.0;
    for (int i = nat->nrigid; i < a->m; ++i) {
        if (nat->rows[i].type == MBS_NAT_ROW_DOT)
            continue;
        const MbsNatJacRow *row = &a->J[i];
        double s = 0.0;
        for (int p = 0; p < 2; ++p)
            if (row->off[p] >= 0)
                for (int k = 0; k < 12; ++k)
                    s += row->v[p][k] * a->qd[row->off[p] + k];
        P -= lam[i] * s;
    }
    return P;
}

/* Energies and constraint norms at the current state (phi, J, phit, cb current). */
static void fill_monitors(MbsFormulation *f, Ali3p *a, const double *lam_eff, int accumulate)
{
    MbsMonitors *mo = &f->monitors;
    MbsNatEnergy e;
    forces(a, a->q, a->qd, a->Q, &e);
    double power = e.power_nonconservative + driver_power(a, lam_eff);
    if (accumulate)
        a->work += 0.5 * a->h * (a->power + power);
    a->power = power;
    mo->time = f->time;
    mo->kinetic = e.kinetic;
    mo->potential_gravity = e.potential_gravity;
    mo->potential_elastic = e.potential_elastic;
    mo->work_nonconservative = a->work;
    mo->total = e.kinetic + e.potential_gravity + e.potential_elastic - a->work;
    mo->phi_norm = mbs_vec_norm2(a->m, a->phi);
    j_mul(a, a->qd, a->phit, a->res);
    mo->dphi_norm = mbs_vec_norm2(a->m, a->res);
    j_mul(a, a->qdd, a->cb, a->res);
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
    const Ali3pOptions *o = options(f);
    Ali3p *a = calloc(1, sizeof *a);
    if (!a)
        return mbs_error_set(err, MBS_FATAL, "out of memory");
    f->impl = a;
    a->nat = mbs_natural_new(m, err);
    if (!a->nat)
        return MBS_FATAL;
    a->nat->clock = &f->clock;
    int n = a->n = a->nat->n, mm = a->m = a->nat->m;
    a->alpha = a->alpha_eff = o->alpha;
    for (int b = 0; b < m->nbodies; ++b)
        if (a->nat->body_off[b] >= 0) {
            a->mass_max = fmax(a->mass_max, m->bodies[b].mass);
            for (int j = 0; j < 3; ++j)
                a->mass_max = fmax(a->mass_max, a->nat->S[9 * b + 4 * j]);
        }
    a->beta = o->newmark_beta;
    a->gamma = o->newmark_gamma;
    a->h = s->step;
    a->has_KC = a->nat->q_dependent_forces;
    int fail = 0;
    size_t N = (size_t)n, NN = N * N, MM = (size_t)mm, mx = N > MM ? N : MM;
    a->q = mbs_calloc(N, sizeof(double), &fail);
    a->qd = mbs_calloc(N, sizeof(double), &fail);
    a->qdd = mbs_calloc(N, sizeof(double), &fail);
    a->lambda = mbs_calloc(MM, sizeof(double), &fail);
    a->q0 = mbs_calloc(N, sizeof(double), &fail);
    a->qd0 = mbs_calloc(N, sizeof(double), &fail);
    a->qdd0 = mbs_calloc(N, sizeof(double), &fail);
    a->lambda0 = mbs_calloc(MM, sizeof(double), &fail);
    a->qd_hat = mbs_calloc(N, sizeof(double), &fail);
    a->qdd_hat = mbs_calloc(N, sizeof(double), &fail);
    int use_sparse = o->algebra == ALGEBRA_SPARSE ||
                     (o->algebra == ALGEBRA_AUTOMATIC && a->nat->nbodies >= 20);
    if (!use_sparse) {
        a->T = mbs_calloc(NN, sizeof(double), &fail);
        if (a->has_KC) {
            a->K = mbs_calloc(2 * NN, sizeof(double), &fail);
            a->C = a->K ? a->K + NN : NULL;
        }
    }
    a->ipiv = mbs_calloc(N, sizeof(int), &fail);
    a->J = mbs_calloc(MM, sizeof *a->J, &fail);
    a->phi = mbs_calloc(MM, sizeof(double), &fail);
    a->phit = mbs_calloc(MM, sizeof(double), &fail);
    a->cb = mbs_calloc(MM, sizeof(double), &fail);
    a->Q = mbs_calloc(N, sizeof(double), &fail);
    a->g = mbs_calloc(N, sizeof(double), &fail);
    a->rhs = mbs_calloc(N, sizeof(double), &fail);
    a->x = mbs_calloc(N, sizeof(double), &fail);
    a->grad = mbs_calloc(N, sizeof(double), &fail);
    a->mult = mbs_calloc(MM, sizeof(double), &fail);
    a->res = mbs_calloc(mx, sizeof(double), &fail);
    a->tmp = mbs_calloc(N, sizeof(double), &fail);
    a->angle_ref = mbs_calloc((size_t)m->njoints, sizeof(double), &fail);
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
            a->angle_ref[j] = nd >= 0 ? z[nd] : 0.0;
        }
    }
    free(z);
    free(zd);
    free(bodies);
    if (st != 0)
        return st;
    update_angle_refs(a, m);
    memset(&f->monitors, 0, sizeof f->monitors);
    if (n == 0)
        return 0;
    /* Velocity projection of the assembled velocities (eq 6, P = M) and consistent initial
     * accelerations: (M + zeta Phi_q^T alpha Phi_q) qdd = Q - Phi_q^T (lambda + zeta alpha c),
     * lambda += zeta alpha Phi_ddot (the acceleration projection with P qdd* = Q, so that its
     * multipliers are the dynamic ones). */
    mbs_natural_constraint_rows(a->nat, a->q, a->qd, 0.0, a->phi, a->J, a->phit, NULL);
    if (use_sparse && sparse_new(a, err))
        return MBS_FATAL;
    if (a->has_KC && stiffness_damping_init(a, &o->tangent, err))
        return MBS_FATAL;
    forces(a, a->q, a->qd, a->Q, NULL);
    if (a->has_KC)
        stiffness_damping(a, a->Q);
    double zeta, h = s->step;
    raise_alpha_for_step(a, h);
    if (a->sp) {
        /* KLU: the first (allocating) factorization of the Newton tangent happens here when K,
         * C make it unsymmetric, the steps only refactorize. */
        int info = build_and_factor(a, a->gamma * h, a->beta * h * h, a->beta * h * h * a->alpha, 0);
        /* and of the projection matrix when K, C make it unsymmetric (else block Cholesky) */
        if (info == 0 && a->has_KC && o->projection == PROJECTION_MDK)
            info = projection_matrix(f, a, PROJECTION_MDK, &zeta);
        if (info != 0)
            return mbs_error_set(err, MBS_FATAL,
                                 "ali3p: the tangent matrix is singular at t = 0: a body without "
                                 "inertia in a direction no joint fixes?");
    }
    int info = projection_matrix(f, a, o->projection == PROJECTION_MASS_UNIT_ZETA ? 2 : 0, &zeta);
    if (info != 0)
        return mbs_error_set(err, MBS_FATAL,
                             "ali3p: the matrix M + Phi_q^T alpha Phi_q is singular at t = 0 "
                             "(LAPACK info %d): a body without inertia in a direction no joint "
                             "fixes?", info);
    int maxit = o->newton.max_iterations > 50 ? o->newton.max_iterations : 50;
    double tol = o->newton.tolerance;
    memset(a->mult, 0, MM * sizeof(double));
    mbs_natural_mass_mul(a->nat, a->qd, a->rhs);
    al_project(a, a->rhs, a->phit, zeta, a->mult, a->x, tol, maxit);
    memcpy(a->qd, a->x, N * sizeof(double));
    mbs_natural_constraint_rows(a->nat, a->q, a->qd, 0.0, NULL, NULL, NULL, a->cb);
    forces(a, a->q, a->qd, a->Q, NULL);
    memset(a->lambda, 0, MM * sizeof(double));
    al_project(a, a->Q, a->cb, zeta, a->lambda, a->qdd, tol, maxit);
    a->work = 0.0;
    a->power = 0.0;
    fill_monitors(f, a, a->lambda, 0);
    return 0;
}

static void restore(Ali3p *a, double t)
{
    size_t N = (size_t)a->n;
    memcpy(a->q, a->q0, N * sizeof(double));
    memcpy(a->qd, a->qd0, N * sizeof(double));
    memcpy(a->qdd, a->qdd0, N * sizeof(double));
    memcpy(a->lambda, a->lambda0, (size_t)a->m * sizeof(double));
    mbs_natural_constraint_rows(a->nat, a->q, a->qd, t, a->phi, a->J, a->phit, a->cb);
}

static int ali3p_step(MbsFormulation *f, double h, MbsError *err)
{
    Ali3p *a = f->impl;
    const Ali3pOptions *o = options(f);
    MbsMonitors *mo = &f->monitors;
    double t_start = mbs_clock_now(), t_dyn = 0.0, t_jac = 0.0, t_fac = 0.0, t_proj = 0.0, c0;
    int n = a->n, m = a->m;
    size_t N = (size_t)n;
    const double alpha_least = raise_alpha_for_step(a, h);
    double beta = a->beta, gamma = a->gamma, alpha = a->alpha_eff;
    a->h = h;
    const double alpha_start = alpha;
    double t = f->time + h;
    f->clock = t; /* every evaluation of the step is at its end */
    if (n == 0) {
        f->time = t;
        mo->time = t;
        return 0;
    }
    a->trace = f->trace; /* NULL again when the step returns */
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
    MbsTracePhase *phase = a->trace ? mbs_trace_phase(a->trace, MBS_TRACE_PREDICTOR, 0) : NULL;
    if (phase) /* the predictor's move h qd + h^2/2 qdd */
        for (size_t i = 0; i < N; ++i)
            phase->correction = fmax(i ? phase->correction : 0.0, fabs(a->q[i] - a->q0[i]));
    int reuse = o->tangent.reuse > 0 ? o->tangent.reuse : 1;
    int it = 0, converged = 0, jac_evals = 0, total_it = 0;
    double dq_norm = 0.0, tol = o->newton.tolerance;
    double bh2 = beta * h * h;
    /* The converged solution (Phi = 0, M qdd + Phi_q^T lambda* = Q) does not depend on alpha;
     * alpha sets the contraction of the multiplier iteration, about 1 - beta h^2 alpha sigma^2 / m
     * along a constraint direction with singular value sigma. Close to singular configurations
     * sigma -> 0 and the iteration stalls: then the step restarts from the predictor with alpha
     * ten times larger (up to 1e4 times the setting), which is kept while needed and relaxed
     * after 50 easy steps. */
    for (int attempt = 0;; ++attempt) {
        if (attempt > 0) {
            memcpy(a->lambda, a->lambda0, (size_t)m * sizeof(double));
            for (size_t i = 0; i < N; ++i)
                a->q[i] = a->q0[i] + h * a->qd0[i] + 0.5 * h * h * a->qdd0[i];
        }
        double previous = INFINITY;
        for (it = 0; it < o->newton.max_iterations; ++it) {
            c0 = mbs_clock_now();
            for (size_t i = 0; i < N; ++i) {
                a->qd[i] = gamma / (beta * h) * a->q[i] - a->qd_hat[i];
                a->qdd[i] = a->q[i] / (beta * h * h) - a->qdd_hat[i];
            }
            mbs_natural_constraint_rows(a->nat, a->q, NULL, t, a->phi, a->J, NULL, NULL);
            if (it > 0) /* eq 1b: lambda*(i+1) = lambda*(i) + alpha Phi(i+1) */
                for (int i = 0; i < m; ++i)
                    a->lambda[i] += alpha * a->phi[i];
            forces(a, a->q, a->qd, a->Q, NULL);
            /* eq 3 as the right-hand side:
             * -g = -beta h^2 [M qdd + Phi_q^T (lambda* + alpha Phi) - Q] */
            for (int i = 0; i < m; ++i)
                a->res[i] = a->lambda[i] + alpha * a->phi[i];
            mbs_natural_mass_mul(a->nat, a->qdd, a->g);
            for (size_t i = 0; i < N; ++i)
                a->g[i] -= a->Q[i];
            jt_mul_add(a, 1.0, a->res, a->g);
            for (size_t i = 0; i < N; ++i)
                a->g[i] *= -bh2;
            t_dyn += mbs_clock_now() - c0;
            c0 = mbs_clock_now();
            if (a->has_KC && it % reuse == 0) {
                stiffness_damping(a, a->Q);
                jac_evals++;
            }
            t_jac += mbs_clock_now() - c0;
            phase = a->trace ? mbs_trace_phase(a->trace, MBS_TRACE_NEWTON, total_it + it + 1)
                             : NULL;
            if (phase) {
                phase->residual = mbs_vec_norminf(n, a->g);
                phase->constraint = mbs_vec_norm2(m, a->phi);
                phase->tangent_evaluated = a->has_KC && it % reuse == 0;
                if (total_it + it == 0)
                    trace_mass_and_jacobian(a, a->trace);
            }
            c0 = mbs_clock_now();
            /* eq 5: M + gamma h C + beta h^2 (Phi_q^T alpha Phi_q + K) */
            int info = build_and_factor(a, gamma * h, bh2, bh2 * alpha, 0);
            if (info != 0) {
                t_fac += mbs_clock_now() - c0;
                break;
            }
            solve(a, a->g);
            t_fac += mbs_clock_now() - c0;
            dq_norm = mbs_vec_norminf(n, a->g);
            for (size_t i = 0; i < N; ++i)
                a->q[i] += a->g[i];
            if (!isfinite(dq_norm))
                break;
            double bound;
            int done = mbs_newton_converged(&o->newton, h, fmax(1.0, mbs_vec_norminf(n, a->q)),
                                            dq_norm, previous, &bound);
            previous = dq_norm;
            mbs_trace_newton_end(phase, dq_norm, bound, done);
            if (done) {
                converged = 1;
                ++it;
                break;
            }
        }
        total_it += it;
        if (converged || !isfinite(dq_norm) || alpha >= 1e4 * alpha_least)
            break;
        alpha = a->alpha_eff = 10.0 * alpha;
        a->easy_steps = 0;
    }
    if (!converged) {
        a->alpha_eff = alpha_start;
        a->trace = NULL;
        restore(a, f->time);
        return mbs_error_set(err, MBS_RECOVERABLE,
                             "ali3p: Newton-Raphson did not converge at t = %.6g s after %d "
                             "iterations (last correction %.3g, tolerance %.3g, penalty factor "
                             "raised up to %.3g)%s", t, total_it, dq_norm, tol, alpha,
                             mbs_error_correction_hint(dq_norm));
    }
    if (a->alpha_eff > a->alpha) {
        if (it > 3)
            a->easy_steps = 0;
        else if (++a->easy_steps >= 50) {
            a->alpha_eff = fmax(a->alpha, 0.1 * a->alpha_eff);
            a->easy_steps = 0;
        }
    }
    /* Final state of the iteration: velocities, accelerations, constraints at q_n. */
    c0 = mbs_clock_now();
    for (size_t i = 0; i < N; ++i) {
        a->qd[i] = gamma / (beta * h) * a->q[i] - a->qd_hat[i];
        a->qdd[i] = a->q[i] / (beta * h * h) - a->qdd_hat[i];
    }
    mbs_natural_constraint_rows(a->nat, a->q, NULL, t, a->phi, a->J, a->phit, NULL);
    for (int i = 0; i < m; ++i)
        a->lambda[i] += alpha * a->phi[i];
    t_dyn += mbs_clock_now() - c0;

    /* Projections (eqs 6, 7). */
    c0 = mbs_clock_now();
    double zeta;
    int kind = o->projection;
    /* begun before the projection matrix is built, so that the matrix is shown with it */
    phase = a->trace ? mbs_trace_phase(a->trace, MBS_TRACE_PROJECTION_VELOCITY, 0) : NULL;
    if (projection_matrix(f, a, kind, &zeta) != 0) {
        a->trace = NULL;
        restore(a, f->time);
        return mbs_error_set(err, MBS_RECOVERABLE,
                             "ali3p: singular projection matrix at t = %.6g s", t);
    }
    int pmax = o->newton.max_iterations;
    double ptol = tol * mbs_newton_step_factor(h); /* as Newton's (issue 28) */
    /* velocities: P qd* - Phi_q^T (sigma + zeta alpha Phi_t) */
    p_mul(a, f, kind, a->qd, a->rhs);
    memset(a->mult, 0, (size_t)m * sizeof(double));
    double before = 0.0;
    if (a->trace) { /* a->res: al_project's scratch, overwritten first */
        j_mul(a, a->qd, a->phit, a->res);
        before = mbs_vec_norm2(m, a->res);
    }
    int pits = al_project(a, a->rhs, a->phit, zeta, a->mult, a->x, ptol, pmax);
    if (a->trace)
        trace_projection(a, phase, before, pits, a->qd, a->x);
    memcpy(a->qd, a->x, N * sizeof(double));
    /* accelerations: P qdd* - Phi_q^T (kappa + zeta alpha (Phi_q_dot qd + Phi_t_dot)) */
    mbs_natural_constraint_rows(a->nat, a->q, a->qd, t, NULL, NULL, NULL, a->cb);
    p_mul(a, f, kind, a->qdd, a->rhs);
    memset(a->mult, 0, (size_t)m * sizeof(double));
    if (a->trace) {
        j_mul(a, a->qdd, a->cb, a->res);
        before = mbs_vec_norm2(m, a->res);
    }
    pits = al_project(a, a->rhs, a->cb, zeta, a->mult, a->x, ptol, pmax);
    if (a->trace)
        trace_projection(a, mbs_trace_phase(a->trace, MBS_TRACE_PROJECTION_ACCELERATION, 0),
                         before, pits, a->qdd, a->x);
    a->trace = NULL;
    memcpy(a->qdd, a->x, N * sizeof(double));
    t_proj = mbs_clock_now() - c0;

    f->time = t;
    update_angle_refs(a, f->model);
    /* Multipliers consistent with the projected accelerations: lambda* + kappa. */
    for (int i = 0; i < m; ++i)
        a->mult[i] += a->lambda[i];
    fill_monitors(f, a, a->mult, 1);
    mo->newton_iterations = total_it;
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

static void ali3p_point_velocity(const MbsFormulation *f, int body, const double r[3],
                                  double v[3])
{
    const Ali3p *a = f->impl;
    mbs_natural_point_velocity(a->nat, a->q, a->qd, body, r, v);
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

static void ali3p_accelerations(const MbsFormulation *f, double *qdd)
{
    const Ali3p *a = f->impl;
    memcpy(qdd, a->qdd, sizeof(double) * (size_t)a->n);
}

static double ali3p_joint_violation(const MbsFormulation *f, int joint)
{
    const Ali3p *a = f->impl;
    return mbs_natural_joint_violation(a->nat, a->phi, joint);
}

/* State: q, qd, qdd (n each), lambda* (m), the revolute angle branches (per joint), then
 * work, power, the penalty factor in use and the count of easy steps that relaxes it. */
static int ali3p_state_size(const MbsFormulation *f)
{
    const Ali3p *a = f->impl;
    return 3 * a->n + a->m + f->model->njoints + 4;
}

static void ali3p_state_get(const MbsFormulation *f, double *state)
{
    const Ali3p *a = f->impl;
    size_t N = (size_t)a->n;
    double *x = state;
    memcpy(x, a->q, N * sizeof(double));
    memcpy(x += N, a->qd, N * sizeof(double));
    memcpy(x += N, a->qdd, N * sizeof(double));
    memcpy(x += N, a->lambda, (size_t)a->m * sizeof(double));
    memcpy(x += a->m, a->angle_ref, (size_t)f->model->njoints * sizeof(double));
    x += f->model->njoints;
    x[0] = a->work;
    x[1] = a->power;
    x[2] = a->alpha_eff;
    x[3] = a->easy_steps;
}

static int ali3p_state_set(MbsFormulation *f, const double *state, MbsError *err)
{
    (void)err;
    Ali3p *a = f->impl;
    size_t N = (size_t)a->n;
    const double *x = state;
    memcpy(a->q0, x, N * sizeof(double));
    memcpy(a->qd0, x += N, N * sizeof(double));
    memcpy(a->qdd0, x += N, N * sizeof(double));
    memcpy(a->lambda0, x += N, (size_t)a->m * sizeof(double));
    memcpy(a->angle_ref, x += a->m, (size_t)f->model->njoints * sizeof(double));
    x += f->model->njoints;
    a->work = x[0];
    a->power = x[1];
    a->alpha_eff = x[2];
    a->easy_steps = (int)x[3];
    if (a->n > 0)
        restore(a, f->time); /* copies the *0 arrays in and evaluates the constraints there */
    return 0;
}

/* The penalty factor in use: raised above the setting while the multiplier iteration stalls. */
static int ali3p_statistics(const MbsFormulation *f, MbsStatistic *out, int capacity)
{
    const Ali3p *a = f->impl;
    const MbsBlockSparse *sp = a->sp;
    MbsStatistic all[] = {
        {"penalty_in_use", a->alpha_eff, ""},
        {"sparse_refactorizations", sp ? sp->refactorizations : 0.0, ""},
        {"sparse_full_factorizations", sp ? sp->full_factorizations : 0.0, ""},
        {"sparse_block_choleskys", sp ? sp->block_choleskys : 0.0, ""},
    };
    int count = (int)(sizeof all / sizeof all[0]);
    for (int i = 0; i < count && i < capacity; ++i)
        out[i] = all[i];
    return count;
}

static void ali3p_reset_statistics(MbsFormulation *f)
{
    Ali3p *a = f->impl;
    if (a->sp)
        a->sp->refactorizations = a->sp->full_factorizations = a->sp->block_choleskys = 0.0;
}

/* Without forces that vary with the state, K = C = 0: no Jacobian is ever evaluated. */
static int forces_vary(const MbsModel *m, const void *options)
{
    (void)options;
    return !m || mbs_natural_forces_vary(m);
}

static const char *const projection_choices[] = {"mass", "mdk", "mass-unit-zeta", NULL};
static const char *const projection_labels[] = {
    MBS_N_("mass-orthogonal"), MBS_N_("mass-damping-stiffness-orthogonal"),
    MBS_N_("mass-orthogonal, ζ = 1"), NULL};

static const MbsSetting ali3p_items[] = {
    {.name = "alpha", .type = MBS_SETTING_NUMBER, .offset = offsetof(Ali3pOptions, alpha),
     .default_value = 1e9, .min = 0.0, .max = 1e300,
     .flags = MBS_SETTING_ABOVE_MIN | MBS_SETTING_DECADES, .label = MBS_N_("Penalty α"),
     .description = MBS_N_("Penalty factor of the constraints")},
    {.name = "newmark-beta", .type = MBS_SETTING_NUMBER,
     .offset = offsetof(Ali3pOptions, newmark_beta), .default_value = 0.25, .min = 0.0, .max = 1.0,
     .flags = MBS_SETTING_ABOVE_MIN, .label = MBS_N_("Newmark β"),
     .description = MBS_N_("0.25 with γ = 0.5: trapezoidal rule")},
    {.name = "newmark-gamma", .type = MBS_SETTING_NUMBER,
     .offset = offsetof(Ali3pOptions, newmark_gamma), .default_value = 0.5, .min = 0.5,
     .max = 1.0, .label = MBS_N_("Newmark γ"), .description = MBS_N_("Newmark γ")},
    {.name = "projection", .type = MBS_SETTING_CHOICE, .offset = offsetof(Ali3pOptions, projection),
     .default_value = PROJECTION_MASS, .choices = projection_choices,
     .choice_labels = projection_labels, .label = MBS_N_("Projection"),
     .description = MBS_N_("Velocity and acceleration projections: onto the mass metric, "
                           "or onto mass, damping and stiffness (paper 004)")},
    {.name = "algebra", .type = MBS_SETTING_CHOICE, .offset = offsetof(Ali3pOptions, algebra),
     .default_value = ALGEBRA_AUTOMATIC, .choices = mbs_algebra_choices,
     .choice_labels = mbs_algebra_labels, .label = MBS_N_("Linear algebra"),
     .description = MBS_N_("Dense LAPACK or sparse KLU factorizations; automatic: sparse from "
                           "20 moving bodies")},
    {.name = "newton", .type = MBS_SETTING_GROUP, .offset = offsetof(Ali3pOptions, newton),
     .group = &mbs_newton_settings},
    /* K and C: columns on threads (stiffness_damping) */
    {.name = "tangent", .type = MBS_SETTING_GROUP, .offset = offsetof(Ali3pOptions, tangent),
     .group = &mbs_tangent_analytical_settings, .applies = forces_vary},
};

static const MbsSettingTable ali3p_settings = {
    .name = "ali3p", .items = ali3p_items, .count = 7, .size = sizeof(Ali3pOptions)};

const Ali3pOptions *mbs_ali3p_options(const MbsSettings *s)
{
    return s->options_table == &ali3p_settings ? (const Ali3pOptions *)s->options.bytes : NULL;
}

const MbsFormulationClass mbs_ali3p_class = {
    .name = "ali3p",
    .description = MBS_N_("Index-3 augmented Lagrangian with velocity and acceleration "
                          "projections in natural coordinates (paper 004)"),
    .settings = &ali3p_settings,
    .tangent_offers_analytical = 1,
    .tangent_offers_dual = 1,
    .tangent_probe = ali3p_tangent_probe,
    .init = ali3p_init,
    .step = ali3p_step,
    .finalize = ali3p_finalize,
    .body_pose = ali3p_body_pose,
    .point_velocity = ali3p_point_velocity,
    .ncoords = ali3p_ncoords,
    .coordinates = ali3p_coordinates,
    .coordinate_kind = MBS_COORDINATES_NATURAL,
    .accelerations = ali3p_accelerations,
    .joint_violation = ali3p_joint_violation,
    .state_size = ali3p_state_size,
    .state_get = ali3p_state_get,
    .state_set = ali3p_state_set,
    .statistics = ali3p_statistics,
    .reset_statistics = ali3p_reset_statistics,
};
