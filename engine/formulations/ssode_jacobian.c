/* ssode's iteration matrices through the tangent interface (engine/tangent/mbs_tangent.h):
 * the derivatives of r(x) = (vdd, W') with respect to x = (v, vd), that is J1 = dvdd/dv,
 * J2 = dvdd/dvd and the work rate's row (paper 002 eqs 27-40), by the method of the `jacobian`
 * setting:
 *
 *   nd-forward, nd-central  difference quotients of the whole ODE (recovery of u, ud and the
 *                           augmented solve per column: 2 nv or 4 nv right-hand sides)
 *   analytical              the linearized ODE below with dQ/d(q, qd) from the force laws'
 *                           derivatives (mbs_natural_forces_derivatives)
 *   ad                      the same with dQ along the directions by dual numbers
 *                           (mbs_natural_forces_dual): forward-mode AD of the ODE, whose
 *                           implicit parts (the recovery's Newton, the linear solves) are
 *                           differentiated by the implicit function theorem
 *
 * The linearized ODE (paper 002 eqs 27-40 in the augmented form of eq 17): at the state of the
 * last evaluation (q, qd, qdd, lambda, Phi_u and the augmented matrix factorized) a direction
 * (dv, dvd) gives
 *   dq  = T dv                            (Phi_R,q dq = 0, dq_v = dv)
 *   dqd: Phi_R,q dqd = -D(Phi_q qd + Phi_t)_R dq,   dqd_v = dvd            (from eq 16)
 *   [M Phi_R^T; Phi_R 0] [dqdd; dlambda] = [dQ - D(Phi_q^T lambda) dq;
 *                                           -D(Phi_q qdd + c)_R (dq, dqd)]  (eq 17, qdd fixed)
 *   dvdd = dqdd_v,  dW' = dP_nc + dlambda^T Phi_t + lambda^T DPhi_t dq
 * with dQ = Q_q dq + Q_qd dqd. The constraints of natural coordinates are quadratic in q
 * (every row a.b with a, b affine in q: mbs_natural.h), so Phi_q is affine in q and Phi_q qd +
 * Phi_t, Phi_q qdd + c are polynomials of degree 2 in (q, qd): their directional derivatives are
 * exactly (f(x + d) - f(x - d)) / 2 (no truncation error; d scaled to unit size, round-off
 * only), which is how D(...) is computed here from mbs_natural_constraint_rows. The rate of the
 * non-conservative work dP_nc (W is a quadrature outside the error control: its row only
 * linearizes the last Newton correction of a stage) is a Richardson-extrapolated central
 * difference of the force elements' power alone (no recovery, no solve). Directions go MBS_DUAL_WIDTH at a time. */
#include <float.h>
#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "form_ssode_private.h"
#include "mbs_tangent_probe.h"
#include "mbs_linalg.h"
#include "mbs_sparse_lu.h"

enum { WIDTH = MBS_DUAL_WIDTH };

typedef enum { FORCES_ANALYTICAL, FORCES_DUAL } ForceTangent;

typedef struct {
    Ssode *s;
    double t;                       /* time of the tangent being computed */
    double *J;                      /* (nv + 1) x 2 nv, column-major */
    double *y, *ydot, *r0;          /* 2 nv + 1, 2 nv + 1, nv + 1 */
    MbsNatJacRow *J0, *Jp, *Jm;     /* m rows: Phi_q at q, q + dq, q - dq */
    double *phit0, *phitp, *phitm, *cp, *cm; /* m */
    double *dq, *dqd, *dQ, *cforce; /* n x WIDTH: directions, dQ, D(Phi_q^T lambda) dq */
    double *acc, *dphit;            /* r x WIDTH: -D(Phi_q qdd + c)_R, DPhi_t dq (rows R) */
    double *dv, *dvd, *dvdd;        /* nv x WIDTH */
    double *dpower;                 /* WIDTH */
    double *qp, *qdp, *a, *g, *w;   /* n, n, n + r, n, n */
    double *grad, *Qtmp;            /* n */
    MbsDual *qdual, *qddual, *Qdual, *grad_dual; /* n (ad) */
    double *probe_x, *probe_r;      /* 2 nv, nv + 1: mbs_ssode_tangent_probe */
} SsodeJacobian;

/* x := Phi_u^-1 x (r entries) with the factors of the last evaluation. */
static void dependent_solve(Ssode *s, double *x)
{
    if (s->r == 0)
        return;
    if (s->sparse)
        klu_solve(s->psym, s->pnum, s->r, 1, x, &s->kc);
    else
        mbs_lu_solve(s->r, s->Pu, s->ip, x, 1);
}

/* [M Phi_R^T; Phi_R 0] [dqdd; dlambda_R] = [a; b] with the factors of the last evaluation:
 * a (n) becomes dqdd, b (r, stored at a + n) becomes dlambda_R. Dense: the partitioned form of
 * evaluate_dense (qdd = g + T z, (T^T M T) z = T^T (a - M g), Phi_u^T dlambda = (a - M qdd)_u). */
static void augmented_solve(SsodeJacobian *c, double *a)
{
    Ssode *s = c->s;
    int n = s->n, r = s->r, nv = s->nv;
    double *b = a + n;
    if (s->sparse) {
        klu_solve(s->ksym, s->knum, n + r, 1, a, &s->kc);
        return;
    }
    size_t R = (size_t)r, N = (size_t)n, NV = (size_t)nv;
    const double *Tu = s->K, *Mred = s->K + R * NV + N * NV;
    dependent_solve(s, b);
    memset(c->g, 0, N * sizeof(double));
    for (int i = 0; i < r; ++i)
        c->g[s->ucol[i]] = b[i];
    mbs_natural_mass_mul(s->nat, c->g, c->w);
    for (int k = 0; k < n; ++k)
        c->w[k] = a[k] - c->w[k];
    double *z = c->qp; /* nv */
    for (int j = 0; j < nv; ++j) {
        double sum = c->w[s->vcol[j]];
        for (int k = 0; k < r; ++k)
            sum += Tu[R * j + k] * c->w[s->ucol[k]];
        z[j] = sum;
    }
    if (nv > 0)
        mbs_lu_solve(nv, (double *)Mred, s->ipk, z, 1);
    double *qdd = c->qdp;
    memcpy(qdd, c->g, N * sizeof(double));
    for (int j = 0; j < nv; ++j) {
        qdd[s->vcol[j]] += z[j];
        for (int i = 0; i < r; ++i)
            qdd[s->ucol[i]] += Tu[R * j + i] * z[j];
    }
    mbs_natural_mass_mul(s->nat, qdd, c->w);
    for (int i = 0; i < r; ++i)
        b[i] = a[s->ucol[i]] - c->w[s->ucol[i]];
    if (r > 0)
        LAPACKE_dgetrs_work(LAPACK_COL_MAJOR, 'T', r, 1, s->Pu, r, s->ip, b, r);
    memcpy(a, qdd, N * sizeof(double));
}

static double max_abs(const double *x, int n)
{
    double m = 0.0;
    for (int i = 0; i < n; ++i)
        m = fmax(m, fabs(x[i]));
    return m;
}

/* The dependent part of a direction: x_u = -Phi_u^-1 (Phi_R x|_{u = 0} + extra_R), x's u
 * entries zero on entry. */
static void complete_direction(SsodeJacobian *c, double *x, const double *extra)
{
    Ssode *s = c->s;
    double *b = c->a;
    for (int i = 0; i < s->r; ++i)
        b[i] = sparse_row_dot(&c->J0[s->rows[i]], x) + (extra ? extra[i] : 0.0);
    dependent_solve(s, b);
    for (int i = 0; i < s->r; ++i)
        x[s->ucol[i]] = -b[i];
}

/* Kinematics of direction k (columns k of c->dv, c->dvd): dq, dqd, the constraint force's
 * derivative D(Phi_q^T lambda) dq, the acceleration constraint's -D(Phi_q qdd + c)_R (dq, dqd)
 * and DPhi_t dq on the rows R, exact by the quadratic constraints (central differences of
 * degree-2 polynomials with unit-size increments). */
static void direction_kinematics(SsodeJacobian *c, int k)
{
    Ssode *s = c->s;
    const MbsNatural *nat = s->nat;
    int n = s->n, r = s->r, nv = s->nv;
    size_t N = (size_t)n, R = (size_t)r;
    double *dq = c->dq + N * k, *dqd = c->dqd + N * k, *cf = c->cforce + N * k;
    double *acc = c->acc + R * k, *dphit = c->dphit + R * k, *qm = c->w, *qdm = c->g;
    memset(dq, 0, N * sizeof(double));
    memset(dqd, 0, N * sizeof(double));
    memset(cf, 0, N * sizeof(double));
    for (int j = 0; j < nv; ++j) {
        dq[s->vcol[j]] = c->dv[(size_t)nv * k + j];
        dqd[s->vcol[j]] = c->dvd[(size_t)nv * k + j];
    }
    complete_direction(c, dq, NULL);
    for (int i = 0; i < r; ++i)
        acc[i] = dphit[i] = c->cm[i] = 0.0; /* c->cm[0 .. r): D(Phi_q qd + Phi_t)_R dq */
    double sigma = max_abs(dq, n);
    if (sigma > 0.0) {
        for (int l = 0; l < n; ++l) {
            c->qp[l] = s->q[l] + dq[l] / sigma;
            qm[l] = s->q[l] - dq[l] / sigma;
        }
        mbs_natural_constraint_rows(nat, c->qp, NULL, c->t, NULL, c->Jp, c->phitp, NULL);
        mbs_natural_constraint_rows(nat, qm, NULL, c->t, NULL, c->Jm, c->phitm, NULL);
        double half = 0.5 * sigma;
        for (int i = 0; i < r; ++i) {
            int row = s->rows[i];
            const MbsNatJacRow *P = &c->Jp[row], *Mi = &c->Jm[row];
            dphit[i] = half * (c->phitp[row] - c->phitm[row]);
            c->cm[i] = half * (sparse_row_dot(P, s->qd) - sparse_row_dot(Mi, s->qd)) + dphit[i];
            acc[i] = -half * (sparse_row_dot(P, s->qdd) - sparse_row_dot(Mi, s->qdd));
            /* D(Phi_q^T lambda) dq = (DPhi_q dq)^T lambda, row by row */
            double l = s->lambda[row] * half;
            if (l != 0.0)
                for (int t = 0; t < 2; ++t) {
                    if (P->off[t] >= 0)
                        for (int e = 0; e < 12; ++e)
                            cf[P->off[t] + e] += l * P->v[t][e];
                    if (Mi->off[t] >= 0)
                        for (int e = 0; e < 12; ++e)
                            cf[Mi->off[t] + e] -= l * Mi->v[t][e];
                }
        }
    }
    complete_direction(c, dqd, c->cm);
    /* -Dc_R (dq, dqd): c is of degree 2 in (q, qd) */
    double tau = fmax(sigma, max_abs(dqd, n));
    if (tau > 0.0) {
        for (int l = 0; l < n; ++l) {
            c->qp[l] = s->q[l] + dq[l] / tau;
            qm[l] = s->q[l] - dq[l] / tau;
        }
        double *qdp = c->qdp;
        for (int l = 0; l < n; ++l) {
            qdp[l] = s->qd[l] + dqd[l] / tau;
            qdm[l] = s->qd[l] - dqd[l] / tau;
        }
        mbs_natural_constraint_rows(nat, c->qp, qdp, c->t, NULL, NULL, NULL, c->cp);
        mbs_natural_constraint_rows(nat, qm, qdm, c->t, NULL, NULL, NULL, c->cm);
        for (int i = 0; i < r; ++i)
            acc[i] -= 0.5 * tau * (c->cp[s->rows[i]] - c->cm[s->rows[i]]);
    }
}

typedef struct {
    double *dQ;
    const double *dq, *dqd;
    int n, ndir;
} DirectionalSink;

/* dQ += value * direction entry: Q_q dq + Q_qd dqd for every direction at once. */
static void add_directional(void *ctx, int row, int column, double value)
{
    const DirectionalSink *d = ctx;
    size_t N = (size_t)d->n;
    const double *dir = column < d->n ? d->dq + column : d->dqd + (column - d->n);
    for (int k = 0; k < d->ndir; ++k)
        d->dQ[(size_t)row + N * k] += value * dir[N * k];
}

/* dQ = Q_q dq + Q_qd dqd for the first ndir directions. */
static void force_directions(SsodeJacobian *c, int ndir, ForceTangent how)
{
    Ssode *s = c->s;
    int n = s->n;
    size_t N = (size_t)n;
    if (how == FORCES_ANALYTICAL) {
        memset(c->dQ, 0, N * (size_t)ndir * sizeof(double));
        DirectionalSink sink = {.dQ = c->dQ, .dq = c->dq, .dqd = c->dqd, .n = n, .ndir = ndir};
        mbs_natural_forces_derivatives(s->nat, s->q, s->qd, s->angle_ref, c->grad,
                                       add_directional, &sink);
        return;
    }
    for (int l = 0; l < n; ++l) {
        c->qdual[l] = mbs_dual_constant(s->q[l]);
        c->qddual[l] = mbs_dual_constant(s->qd[l]);
        for (int k = 0; k < ndir; ++k) {
            c->qdual[l].d[k] = c->dq[(size_t)l + N * k];
            c->qddual[l].d[k] = c->dqd[(size_t)l + N * k];
        }
    }
    mbs_natural_forces_dual(s->nat, c->qdual, c->qddual, s->angle_ref, c->grad_dual, c->Qdual,
                            NULL);
    for (int k = 0; k < ndir; ++k)
        for (int l = 0; l < n; ++l)
            c->dQ[(size_t)l + N * k] = c->Qdual[l].d[k];
}

/* The force elements' non-conservative power at (q, qd) + e (dq, dqd) of direction k. */
static double power_at(SsodeJacobian *c, int k, double e)
{
    Ssode *s = c->s;
    int n = s->n;
    const double *dq = c->dq + (size_t)n * k, *dqd = c->dqd + (size_t)n * k;
    for (int l = 0; l < n; ++l) {
        c->qp[l] = s->q[l] + e * dq[l];
        c->qdp[l] = s->qd[l] + e * dqd[l];
    }
    MbsNatEnergy en;
    mbs_natural_forces(s->nat, c->qp, c->qdp, s->angle_ref, c->grad, c->Qtmp, &en);
    return en.power_nonconservative;
}

/* The derivative of the force elements' non-conservative power along direction k: central
 * differences at increments e and e/2 extrapolated (Richardson), error O(e^4). A single central
 * difference is exact for the dampers' power (quadratic in the rates) but not for tyres': on
 * the buggies its truncation (proportional to e^2, measured) was 3e-5 of the row's largest
 * entry; extrapolated, 1e-9 (tests/app/test-ssode-jacobian). */
static double power_direction(SsodeJacobian *c, int k)
{
    Ssode *s = c->s;
    int n = s->n;
    size_t N = (size_t)n;
    double size = fmax(max_abs(c->dq + N * k, n), max_abs(c->dqd + N * k, n));
    if (!(size > 0.0))
        return 0.0;
    double eps = cbrt(DBL_EPSILON) * fmax(1.0, fmax(max_abs(s->q, n), max_abs(s->qd, n))) / size;
    double d1 = (power_at(c, k, eps) - power_at(c, k, -eps)) / (2.0 * eps);
    double d2 = (power_at(c, k, 0.5 * eps) - power_at(c, k, -0.5 * eps)) / eps;
    return (4.0 * d2 - d1) / 3.0;
}

/* The linearized ODE (header) along the first ndir columns of c->dv, c->dvd, at the state of
 * the last evaluation: dvdd (nv x ndir) and dpower (ndir). */
static void linearize(SsodeJacobian *c, int ndir, ForceTangent how)
{
    Ssode *s = c->s;
    int n = s->n, r = s->r, nv = s->nv;
    size_t N = (size_t)n, R = (size_t)r;
    mbs_natural_constraint_rows(s->nat, s->q, NULL, c->t, NULL, c->J0, c->phit0, NULL);
    for (int k = 0; k < ndir; ++k)
        direction_kinematics(c, k);
    force_directions(c, ndir, how);
    for (int k = 0; k < ndir; ++k) {
        double *a = c->a;
        for (int l = 0; l < n; ++l)
            a[l] = c->dQ[(size_t)l + N * k] - c->cforce[(size_t)l + N * k];
        memcpy(a + n, c->acc + R * k, R * sizeof(double));
        augmented_solve(c, a);
        for (int j = 0; j < nv; ++j)
            c->dvdd[(size_t)nv * k + j] = a[s->vcol[j]];
        double dp = power_direction(c, k);
        for (int i = 0; i < r; ++i) {
            int row = s->rows[i];
            dp += a[n + i] * c->phit0[row] + s->lambda[row] * c->dphit[R * k + i];
        }
        c->dpower[k] = dp;
    }
}

/* The state of the last evaluation is that at (c->t, x), or evaluate there. */
static int ensure_state(SsodeJacobian *c, const double *x)
{
    Ssode *s = c->s;
    size_t bytes = 2 * (size_t)s->nv * sizeof(double);
    if (s->eval_valid && s->eval_t == c->t && !memcmp(s->eval_y, x, bytes))
        return 0;
    if (x != c->y) /* residual_dual passes c->y itself */
        memcpy(c->y, x, bytes);
    c->y[2 * s->nv] = 0.0;
    s->rhs_evals++;
    s->jacobian_rhs_evals++;
    return ssode_evaluate(s, c->t, c->y, c->ydot);
}

/* MbsResidualFn: r = (vdd, W') at x = (v, vd) (the difference methods). */
static int residual(void *ctx, const double *x, int column, double step, double *r)
{
    (void)column;
    (void)step;
    SsodeJacobian *c = ctx;
    Ssode *s = c->s;
    int nv = s->nv;
    memcpy(c->y, x, 2 * (size_t)nv * sizeof(double));
    c->y[2 * nv] = 0.0;
    s->rhs_evals++;
    s->jacobian_rhs_evals++;
    int st = ssode_evaluate(s, c->t, c->y, c->ydot);
    if (st)
        return MBS_RECOVERABLE;
    memcpy(r, c->ydot + nv, ((size_t)nv + 1) * sizeof(double));
    return 0;
}

/* MbsResidualDualFn: the values at x's values, the derivatives along its seeded directions by
 * the linearized ODE with dQ over dual numbers. */
static int residual_dual(void *ctx, const MbsDual *x, int largest, MbsDual *r)
{
    (void)largest;
    SsodeJacobian *c = ctx;
    Ssode *s = c->s;
    int nv = s->nv, ndir = 0;
    for (int j = 0; j < 2 * nv; ++j) {
        c->y[j] = x[j].v;
        for (int k = ndir; k < WIDTH; ++k)
            if (x[j].d[k] != 0.0)
                ndir = k + 1;
    }
    if (ensure_state(c, c->y))
        return MBS_RECOVERABLE;
    for (int k = 0; k < ndir; ++k)
        for (int j = 0; j < nv; ++j) {
            c->dv[(size_t)nv * k + j] = x[j].d[k];
            c->dvd[(size_t)nv * k + j] = x[nv + j].d[k];
        }
    if (ndir > 0)
        linearize(c, ndir, FORCES_DUAL);
    for (int i = 0; i <= nv; ++i) {
        r[i] = mbs_dual_constant(i < nv ? s->qdd[s->vcol[i]] : s->power);
        for (int k = 0; k < ndir; ++k)
            r[i].d[k] = i < nv ? c->dvdd[(size_t)nv * k + i] : c->dpower[k];
    }
    return 0;
}

/* analytical_jacobian: the columns of J, WIDTH unit directions at a time. */
static int analytical_jacobian(void *ctx, const double *x, double *J)
{
    SsodeJacobian *c = ctx;
    Ssode *s = c->s;
    int nv = s->nv, cols = 2 * nv;
    size_t NR = (size_t)nv + 1;
    if (ensure_state(c, x))
        return MBS_RECOVERABLE;
    for (int first = 0; first < cols; first += WIDTH) {
        int ndir = cols - first < WIDTH ? cols - first : WIDTH;
        memset(c->dv, 0, (size_t)nv * WIDTH * sizeof(double));
        memset(c->dvd, 0, (size_t)nv * WIDTH * sizeof(double));
        for (int k = 0; k < ndir; ++k) {
            int j = first + k;
            if (j < nv)
                c->dv[(size_t)nv * k + j] = 1.0;
            else
                c->dvd[(size_t)nv * k + j - nv] = 1.0;
        }
        linearize(c, ndir, FORCES_ANALYTICAL);
        for (int k = 0; k < ndir; ++k) {
            double *col = J + NR * (size_t)(first + k);
            memcpy(col, c->dvdd + (size_t)nv * k, (size_t)nv * sizeof(double));
            col[nv] = c->dpower[k];
        }
    }
    return 0;
}

int ssode_jacobian_init(Ssode *s, MbsError *err)
{
    MbsJacobianMethod method = s->o->tangent.method;
    if (method != MBS_JACOBIAN_ANALYTICAL && method != MBS_JACOBIAN_AD &&
        method != MBS_JACOBIAN_ND_FORWARD && method != MBS_JACOBIAN_ND_CENTRAL)
        return mbs_error_set(err, MBS_FATAL,
                             "ssode: the Jacobian method '%s' is not offered (analytical, ad, "
                             "nd-forward, nd-central)",
                             mbs_jacobian_method_name(method));
    char why[256];
    if (method == MBS_JACOBIAN_ANALYTICAL &&
        !mbs_natural_forces_derivatives_supported(s->nat->model, why, sizeof why))
        return mbs_error_set(err, MBS_FATAL,
                             "ssode: the Jacobian method 'analytical' cannot be used on this "
                             "model: %s; choose ad or nd-forward",
                             why);
    SsodeJacobian *c = calloc(1, sizeof *c);
    if (!c)
        return mbs_error_set(err, MBS_FATAL, "out of memory");
    s->tangent_ctx = c;
    c->s = s;
    int n = s->n, m = s->m, nv = s->nv, fail = 0;
    size_t N = (size_t)n, MM = (size_t)m, NV = (size_t)nv, W = WIDTH;
    size_t R = (size_t)(m < n ? m : n);
    double **bufs[] = {&c->J, &c->y, &c->ydot, &c->r0, &c->phit0, &c->phitp, &c->phitm,
                       &c->cp, &c->cm, &c->dq, &c->dqd, &c->dQ, &c->cforce, &c->acc,
                       &c->dphit, &c->dv, &c->dvd, &c->dvdd, &c->dpower, &c->qp, &c->qdp,
                       &c->a, &c->g, &c->w, &c->grad, &c->Qtmp, &c->probe_x, &c->probe_r};
    size_t sizes[] = {(NV + 1) * 2 * NV, 2 * NV + 1, 2 * NV + 1, NV + 1, MM, MM, MM,
                      MM, MM, N * W, N * W, N * W, N * W, R * W,
                      R * W, NV * W, NV * W, NV * W, W, N, N,
                      N + R, N, N, N, N, 2 * NV, NV + 1};
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; ++i)
        fail |= !(*bufs[i] = calloc(sizes[i] + 1, sizeof(double)));
    MbsNatJacRow **rows[] = {&c->J0, &c->Jp, &c->Jm};
    for (size_t i = 0; i < 3; ++i)
        fail |= !(*rows[i] = calloc(MM + 1, sizeof(MbsNatJacRow)));
    if (method == MBS_JACOBIAN_AD) {
        MbsDual **duals[] = {&c->qdual, &c->qddual, &c->Qdual, &c->grad_dual};
        for (size_t i = 0; i < 4; ++i)
            fail |= !(*duals[i] = calloc(N + 1, sizeof(MbsDual)));
    }
    if (fail)
        return mbs_error_set(err, MBS_FATAL, "out of memory");
    void *const *contexts = &s->tangent_ctx;
    const MbsTangentProblem problem = {
        .nx = 2 * nv, .nr = nv + 1, .residual = residual, .contexts = contexts, .nthreads = 1,
        .residual_dual = residual_dual, .analytical_jacobian = analytical_jacobian,
    };
    return mbs_tangent_init(&s->tangent, &problem, method, err);
}

void ssode_jacobian_free(Ssode *s)
{
    SsodeJacobian *c = s->tangent_ctx;
    mbs_tangent_free(&s->tangent);
    if (!c)
        return;
    void *bufs[] = {c->J, c->y, c->ydot, c->r0, c->phit0, c->phitp, c->phitm, c->cp, c->cm,
                    c->dq, c->dqd, c->dQ, c->cforce, c->acc, c->dphit, c->dv, c->dvd, c->dvdd,
                    c->dpower, c->qp, c->qdp, c->a, c->g, c->w, c->grad, c->Qtmp, c->J0, c->Jp,
                    c->Jm, c->qdual, c->qddual, c->Qdual, c->grad_dual, c->probe_x, c->probe_r};
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; ++i)
        free(bufs[i]);
    free(c);
    s->tangent_ctx = NULL;
}

int ssode_jacobian_exact(const Ssode *s)
{
    MbsJacobianMethod method = s->o->tangent.method;
    return method == MBS_JACOBIAN_ANALYTICAL || method == MBS_JACOBIAN_AD;
}

const double *ssode_jacobian_matrix(const Ssode *s)
{
    const SsodeJacobian *c = s->tangent_ctx;
    return c->J;
}

/* In the singular mode (form_ssode.c) the linearization's plain solves with Phi_u would
 * amplify round-off by 1/sigma: forward differences of the damped ODE instead (2 nv
 * right-hand sides; it lasts a few steps per crossing). */
static int singular_jacobian(SsodeJacobian *c, const double *y)
{
    Ssode *s = c->s;
    int nv = s->nv;
    size_t NR = (size_t)nv + 1;
    double *x = c->a, *col = c->w;
    memcpy(x, y, 2 * (size_t)nv * sizeof(double));
    for (int j = 0; j < 2 * nv; ++j) {
        double keep = x[j], d = 1e-7 * fmax(1.0, fabs(keep));
        x[j] = keep + d;
        d = x[j] - keep;
        int st = residual(c, x, j, d, col);
        x[j] = keep;
        if (st)
            return -1;
        for (size_t i = 0; i < NR; ++i)
            c->J[i + NR * (size_t)j] = (col[i] - c->r0[i]) / d;
    }
    return 0;
}

int ssode_jacobian(Ssode *s, double t, const double *y, const double *ydot, double *J1,
                   double *J2, double *Jw)
{
    SsodeJacobian *c = s->tangent_ctx;
    int nv = s->nv;
    size_t NV = (size_t)nv, NR = NV + 1;
    c->t = s->clock = t;
    memcpy(c->r0, ydot + nv, NR * sizeof(double));
    /* the state (x = (v, vd)) is the leading part of y */
    if (s->singular ? singular_jacobian(c, y) != 0
                    : mbs_tangent_eval(&s->tangent, y, c->r0, c->J) != 0)
        return -1;
    for (size_t j = 0; j < NV && J1; ++j)
        for (size_t i = 0; i < NV; ++i) {
            J1[i + NV * j] = c->J[i + NR * j];
            J2[i + NV * j] = c->J[i + NR * (j + NV)];
        }
    for (size_t j = 0; j < 2 * NV && Jw; ++j)
        Jw[j] = c->J[NV + NR * j];
    return 0;
}

int mbs_ssode_tangent_probe(MbsFormulation *f, MbsTangentProbe *probe, MbsError *err)
{
    Ssode *s = f->impl;
    SsodeJacobian *c = s->tangent_ctx;
    int nv = s->nv;
    /* a restored checkpoint: the algebra and the recovery's factors of its partition */
    if (s->restart && ssode_restart_at_output(f, s) != 0)
        return mbs_error_set(err, MBS_FATAL, "ssode: could not restart at t = %g", f->time);
    for (int j = 0; j < nv; ++j) {
        c->probe_x[j] = s->q[s->vcol[j]];
        c->probe_x[nv + j] = s->qd[s->vcol[j]];
    }
    c->t = f->time;
    memcpy(c->y, c->probe_x, 2 * (size_t)nv * sizeof(double));
    c->y[2 * nv] = 0.0;
    if (ssode_evaluate(s, c->t, c->y, c->ydot))
        return mbs_error_set(err, MBS_FATAL, "ssode: the ODE cannot be evaluated at t = %g",
                             f->time);
    memcpy(c->probe_r, c->ydot + nv, ((size_t)nv + 1) * sizeof(double));
    *probe = (MbsTangentProbe){.tangent = &s->tangent, .x = c->probe_x, .r0 = c->probe_r};
    return 0;
}
