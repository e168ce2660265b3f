/* Analytical dQ/dz and dQ/dzd of the semi-recursive forces (see the header for the idea).
 *
 * Spatial vectors are about the global origin, motions m = [v; w] (as b_k, Z_k, D_k of
 * mbs_kinematics.h), forces f = [F; n]. crm(m) x = [w x x_v + v x x_w; w x x_w] and
 * crf(m) f = [w x F; w x n + v x F], with (crm(m) x)^T f = -x^T crf(m) f.
 *
 * Body k (mbs_dynamics_forces, with gravity as an acceleration of the base a_g = [g; 0]):
 *   W_k = -Mbar_k a_k - crf(Z_k) h_k,   a_k = D_k - a_g,   h_k = Mbar_k Z_k,
 *   Q_i = b_i^T sum_{k in subtree(i)} W_k (+ force elements).
 * Kinematics (paper 000 eqs 3-5; p = parent of j, S = b_j; k in the subtree of j):
 *   d b_k/dz_j = crm(S) b_k,  d Mbar_k/dz_j = crf(S) Mbar_k - Mbar_k crm(S),
 *   d Z_k/dz_j = crm(S) Z_k - X_j,                     X_j = crm(S) Z_p,
 *   d D_k/dz_j = crm(S) (D_k - D_j) - crm(X_j) (Z_k - Z_j),
 *   d Z_k/dzd_j = S,  d D_k/dzd_j = crm(Z_p) S + crm(S) (Z_k - Z_j).
 * Hence, with composites Ic, hc, Wc, Bc of node i (Bc = sum crf(Z_k) Mbar_k - Mbar_k crm(Z_k),
 * symmetric) and Y_j = crm(S) a_j - crm(X_j) Z_j:
 *   i in subtree(j):  dQ_i/dz_j  = F_i . Y_j + G_i . X_j,   dQ_i/dzd_j = 2 F_i . X_j - G_i . S,
 *                     F_i = Ic_i b_i,  G_i = Bc_i b_i - crf(b_i) hc_i
 *                     (the rotation of b_i cancels crf(S) Wc_i);
 *   i above j:        dQ_i/dz_j  = b_i . (crf(S) Wc_j + Ic_j Y_j + Bc_j X_j + crf(X_j) hc_j),
 *                     dQ_i/dzd_j = b_i . (2 Ic_j X_j - crf(S) hc_j - Bc_j S).
 * A force f at point r of node k adds f . v_i(r) to Q_i (v_i(r) = b_i_v + b_i_w x r, i on the
 * path of k); moving z_a of an ancestor a of d (both on that path) turns b_d and r alike, giving
 * f . (b_a_w x v_d(r)) at (d, a) and (a, d); a torque n adds n . b_i_w and n . (b_a_w x b_d_w)
 * at (d, a). The law's own change (tsda: tension with l and l') is chained through the points'
 * motions: dr/dz_j = v_j(r), d rdot/dz_j = b_j_w x (rdot - u_p(r)) + w_p x v_j(r) with u_p(r)
 * the velocity of r carried by node p, d rdot/dzd_j = v_j(r); a point law's own change (the
 * tyre's force with the wheel centre's height, x and their rates) likewise; a wheel's force
 * and torque also with its axis and angular velocity (wheel_column); a driver's generalized
 * force on its joint with what it reads of its chassis the same way (control_terms).
 */
#include "mbs_dynamics_derivatives.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mbs_force.h"
#include "mbs_linalg.h"
#include "mbs_topology.h"

/* Per node: Ic (36), Bc (36), hc, Wc, F, G, X, Y, dW/dz, dW/dzd (6 each). */
enum { IC = 0, BC = 36, HC = 72, WC = 78, FV = 84, GV = 90, XV = 96, YV = 102, DWZ = 108,
       DWZD = 114, PER_NODE = 120 };

static const double zero6[6] = {0, 0, 0, 0, 0, 0};

int mbs_dynamics_derivatives_init(MbsDynamicsDerivatives *w, const MbsModel *m)
{
    int n = m->topo->nnodes;
    w->n = n;
    w->work = calloc((size_t)PER_NODE * (size_t)(n > 0 ? n : 1), sizeof(double));
    return w->work ? 0 : -1;
}

void mbs_dynamics_derivatives_free(MbsDynamicsDerivatives *w)
{
    free(w->work);
    w->work = NULL;
}

int mbs_dynamics_derivatives_supported(const MbsModel *m, char *why, size_t size)
{
    for (int f = 0; f < m->nforces; ++f) {
        const MbsForce *F = &m->forces[f];
        const MbsForceClass *c = mbs_force_class(F->type);
        /* MbsForceDerivative carries no d torque/d omega */
        int body_law = c && c->geometry == MBS_FORCE_ON_BODY;
        if (!c || !c->derivative || (body_law && c->state_dependent)) {
            snprintf(why, size, "force element '%s' (%s) has no analytical derivative of its law",
                     F->name, c ? c->name : "unknown kind");
            return 0;
        }
    }
    return 1;
}

static void crm(const double *m, const double *x, double *out)
{
    double t[3];
    mbs_v3_cross(m + 3, x, out);
    mbs_v3_cross(m, x + 3, t);
    mbs_v3_add(out, t, out);
    mbs_v3_cross(m + 3, x + 3, out + 3);
}

static void crf(const double *m, const double *f, double *out)
{
    double t[3];
    mbs_v3_cross(m + 3, f, out);
    mbs_v3_cross(m + 3, f + 3, out + 3);
    mbs_v3_cross(m, f, t);
    mbs_v3_add(out + 3, t, out + 3);
}

static double dot6(const double *a, const double *b)
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3] + a[4] * b[4] + a[5] * b[5];
}

/* out (+)= A x, A 6x6 column-major */
static void mulv6(const double *A, const double *x, double *out, int add)
{
    for (int r = 0; r < 6; ++r) {
        double v = add ? out[r] : 0.0;
        for (int c = 0; c < 6; ++c)
            v += A[r + 6 * c] * x[c];
        out[r] = v;
    }
}

/* Velocity of point r carried by node i's coordinate: v_i(r) = b_i_v + b_i_w x r. */
static void point_jacobian(const double *b, const double r[3], double v[3])
{
    mbs_v3_cross(b + 3, r, v);
    mbs_v3_add(v, b, v);
}

static int is_ancestor_or_self(const MbsTopology *t, int a, int k)
{
    for (int c = k; c >= 0 && t->nodes[c].depth >= t->nodes[a].depth; c = t->nodes[c].parent)
        if (c == a)
            return 1;
    return 0;
}

/* Body terms: composites, then the per-node vectors, then the pairs. */
static void body_terms(const MbsModel *m, const MbsKinematics *k, MbsDynamicsDerivatives *w,
                       double scale, double *Czd, double *Kz, size_t ld)
{
    const MbsTopology *t = m->topo;
    int n = t->nnodes;
    const double ag[6] = {m->gravity[0], m->gravity[1], m->gravity[2], 0, 0, 0};
    memset(w->work, 0, sizeof(double) * PER_NODE * (size_t)n);
    for (int i = 0; i < n; ++i) {
        double *node = w->work + PER_NODE * (size_t)i;
        if (t->nodes[i].body >= 0) {
            const double *Z = &k->Z[6 * i], *D = &k->D[6 * i];
            double Mbar[36], h[6], a[6], P[36], ch[6], Ma[6];
            mbs_dynamics_body_mbar(m, k, i, Mbar);
            mulv6(Mbar, Z, h, 0);
            for (int c = 0; c < 6; ++c)
                a[c] = D[c] - ag[c];
            /* W = -Mbar a - crf(Z) h */
            mulv6(Mbar, a, Ma, 0);
            crf(Z, h, ch);
            for (int c = 0; c < 6; ++c) {
                node[WC + c] -= Ma[c] + ch[c];
                node[HC + c] += h[c];
            }
            /* B = P + P^T with P = crf(Z) Mbar (Mbar crm(Z) = -(crf(Z) Mbar)^T) */
            for (int c = 0; c < 6; ++c)
                crf(Z, Mbar + 6 * c, P + 6 * c);
            for (int r = 0; r < 6; ++r)
                for (int c = 0; c < 6; ++c) {
                    node[IC + r + 6 * c] += Mbar[r + 6 * c];
                    node[BC + r + 6 * c] += P[r + 6 * c] + P[c + 6 * r];
                }
        }
        int par = t->nodes[i].parent;
        if (par >= 0) {
            double *up = w->work + PER_NODE * (size_t)par;
            for (int c = 0; c < 84; ++c) /* Ic, Bc, hc, Wc */
                up[c] += node[c];
        }
    }
    for (int j = 0; j < n; ++j) {
        double *node = w->work + PER_NODE * (size_t)j;
        const double *S = &k->b[6 * j], *Ic = node + IC, *Bc = node + BC, *hc = node + HC;
        int par = t->nodes[j].parent;
        const double *Zp = par >= 0 ? &k->Z[6 * par] : zero6;
        double a[6], tmp[6], *X = node + XV, *Y = node + YV;
        mulv6(Ic, S, node + FV, 0);
        mulv6(Bc, S, node + GV, 0);
        crf(S, hc, tmp);
        for (int c = 0; c < 6; ++c)
            node[GV + c] -= tmp[c];
        crm(S, Zp, X);
        for (int c = 0; c < 6; ++c)
            a[c] = k->D[6 * j + c] - ag[c];
        crm(S, a, Y);
        crm(X, &k->Z[6 * j], tmp);
        for (int c = 0; c < 6; ++c)
            Y[c] -= tmp[c];
        /* dWc_j/dz_j = crf(S) Wc + Ic Y + Bc X + crf(X) hc */
        double *dWz = node + DWZ, *dWzd = node + DWZD;
        crf(S, node + WC, dWz);
        mulv6(Ic, Y, dWz, 1);
        mulv6(Bc, X, dWz, 1);
        crf(X, hc, tmp);
        for (int c = 0; c < 6; ++c)
            dWz[c] += tmp[c];
        /* dWc_j/dzd_j = 2 Ic X - crf(S) hc - Bc S */
        double X2[6];
        for (int c = 0; c < 6; ++c)
            X2[c] = 2.0 * X[c];
        mulv6(Ic, X2, dWzd, 0);
        crf(S, hc, tmp);
        for (int c = 0; c < 6; ++c)
            dWzd[c] -= node[GV + c] + 2.0 * tmp[c]; /* Bc S = G + crf(S) hc */
    }
    for (int i = 0; i < n; ++i) {
        const double *ni = w->work + PER_NODE * (size_t)i;
        for (int j = i; j >= 0; j = t->nodes[j].parent) {
            const double *nj = w->work + PER_NODE * (size_t)j, *bj = &k->b[6 * j];
            Kz[i + ld * j] = scale * (dot6(ni + FV, nj + YV) + dot6(ni + GV, nj + XV));
            Czd[i + ld * j] = scale * (2.0 * dot6(ni + FV, nj + XV) - dot6(ni + GV, bj));
            if (j != i) {
                Kz[j + ld * i] = scale * dot6(bj, ni + DWZ);
                Czd[j + ld * i] = scale * dot6(bj, ni + DWZD);
            }
        }
    }
}

/* A force f at point r of node k: f . (b_a_w x v_d(r)) at (d, a) and (a, d) for a above d. */
static void point_force_turning(const MbsTopology *t, const MbsKinematics *k, int node,
                                const double r[3], const double f[3], double scale, double *Kz,
                                size_t ld)
{
    for (int d = node; d >= 0; d = t->nodes[d].parent) {
        double v[3], c[3];
        point_jacobian(&k->b[6 * d], r, v);
        mbs_v3_cross(v, f, c);
        for (int a = d; a >= 0; a = t->nodes[a].parent) {
            double val = scale * mbs_v3_dot(&k->b[6 * a + 3], c);
            Kz[d + ld * a] += val;
            if (a != d)
                Kz[a + ld * d] += val;
        }
    }
}

/* A torque n on node k: n . (b_a_w x b_d_w) at (d, a) for a above d (itself included). */
static void torque_turning(const MbsTopology *t, const MbsKinematics *k, int node,
                           const double torque[3], double scale, double *Kz, size_t ld)
{
    for (int d = node; d >= 0; d = t->nodes[d].parent) {
        double c[3];
        mbs_v3_cross(&k->b[6 * d + 3], torque, c);
        for (int a = t->nodes[d].parent; a >= 0; a = t->nodes[a].parent)
            Kz[d + ld * a] += scale * mbs_v3_dot(&k->b[6 * a + 3], c);
    }
}

/* Motion of point r of node k under column j (on the path of k; else zero): dr/dz_j = dr/dzd_j
 * = v_j(r), d rdot/dz_j = b_j_w x (rdot - u_p(r)) + w_p x v_j(r). */
static void point_motion_derivative(const MbsTopology *t, const MbsKinematics *k, int node,
                                    int j, const double r[3], const double rdot[3],
                                    double dr[3], double drdot[3])
{
    if (node < 0 || !is_ancestor_or_self(t, j, node)) {
        memset(dr, 0, 3 * sizeof(double));
        memset(drdot, 0, 3 * sizeof(double));
        return;
    }
    int par = t->nodes[j].parent;
    const double *Zp = par >= 0 ? &k->Z[6 * par] : zero6, *bj = &k->b[6 * j];
    double up[3], rel[3], t1[3];
    point_jacobian(bj, r, dr);
    point_jacobian(Zp, r, up);
    mbs_v3_sub(rdot, up, rel);
    mbs_v3_cross(bj + 3, rel, drdot);
    mbs_v3_cross(Zp + 3, dr, t1);
    mbs_v3_add(drdot, t1, drdot);
}

/* Adds df . v_i(r) (scaled) for i on the path of node to column j of A. */
static void add_force_change(const MbsTopology *t, const MbsKinematics *k, int node,
                             const double r[3], const double df[3], double scale, double *A,
                             size_t ld, int j)
{
    for (int i = node; i >= 0; i = t->nodes[i].parent) {
        double v[3];
        point_jacobian(&k->b[6 * i], r, v);
        A[i + ld * j] += scale * mbs_v3_dot(df, v);
    }
}

/* The change of a line element's force f1 = T e (on point 1; -f1 on point 2) with column j. */
static void line_column(const MbsTopology *t, const MbsKinematics *k, const int nodes[2],
                        const double at[2][3], const double rdot[2][3], const double e[3],
                        double l, double T, const MbsForceDerivative *dT, int j, double scale,
                        double *Czd, double *Kz, size_t ld)
{
    double dr[2][3], drd[2][3], delta[3], dvel[3], vrel[3], de[3], df[3];
    for (int p = 0; p < 2; ++p)
        point_motion_derivative(t, k, nodes[p], j, at[p], rdot[p], dr[p], drd[p]);
    mbs_v3_sub(dr[1], dr[0], delta);
    mbs_v3_sub(drd[1], drd[0], dvel);
    mbs_v3_sub(rdot[1], rdot[0], vrel);
    /* position column: dl = e . delta, de = (delta - e dl) / l, dl' = de . vrel + e . dvel */
    double dl = mbs_v3_dot(e, delta);
    for (int c = 0; c < 3; ++c)
        de[c] = (delta[c] - e[c] * dl) / l;
    double dldot = mbs_v3_dot(de, vrel) + mbs_v3_dot(e, dvel);
    double dtension = dT->d_value * dl + dT->d_rate * dldot;
    for (int c = 0; c < 3; ++c)
        df[c] = dtension * e[c] + T * de[c];
    add_force_change(t, k, nodes[0], at[0], df, scale, Kz, ld, j);
    add_force_change(t, k, nodes[1], at[1], df, -scale, Kz, ld, j);
    /* velocity column: only l' changes, by e . delta */
    dtension = dT->d_rate * dl;
    for (int c = 0; c < 3; ++c)
        df[c] = dtension * e[c];
    add_force_change(t, k, nodes[0], at[0], df, scale, Czd, ld, j);
    add_force_change(t, k, nodes[1], at[1], df, -scale, Czd, ld, j);
}

/* The change of a point law's force with column j: df = D_r dr + D_v drdot (position column)
 * and D_v v_j(r) (velocity column: drdot/dzd_j = v_j(r) = dr/dz_j). */
static void point_law_column(const MbsTopology *t, const MbsKinematics *k, int node,
                             const double r[3], const double rdot[3],
                             const MbsForceDerivative *dF, int j, double scale, double *Czd,
                             double *Kz, size_t ld)
{
    double dr[3], drd[3], dfz[3], dfzd[3];
    point_motion_derivative(t, k, node, j, r, rdot, dr, drd);
    for (int a = 0; a < 3; ++a) {
        dfz[a] = mbs_v3_dot(dF->d_vector_r[a], dr) + mbs_v3_dot(dF->d_vector_v[a], drd);
        dfzd[a] = mbs_v3_dot(dF->d_vector_v[a], dr);
    }
    add_force_change(t, k, node, r, dfz, scale, Kz, ld, j);
    add_force_change(t, k, node, r, dfzd, scale, Czd, ld, j);
}

/* Adds dn . b_i_w (scaled), a torque's change, for i on the path of node to column j of A. */
static void add_torque_change(const MbsTopology *t, const MbsKinematics *k, int node,
                              const double dn[3], double scale, double *A, size_t ld, int j)
{
    for (int i = node; i >= 0; i = t->nodes[i].parent)
        A[i + ld * j] += scale * mbs_v3_dot(dn, &k->b[6 * i + 3]);
}

/* The motion of what a law reads of a body (its point r, r', an axis a of it and its angular
 * velocity w) under column j on the path of its node: da/dz_j = b_j_w x a, dw/dz_j = b_j_w x
 * (w - w_p) (w_p the parent's: the joints below j turn with it), dw/dzd_j = b_j_w (returned as
 * bw), and r, r' as a point (point_motion_derivative; dr/dzd_j = dr). */
static const double *body_reading_column(const MbsTopology *t, const MbsKinematics *k, int node,
                                         const MbsForceInput *in, int j, double dr[3],
                                         double drd[3], double da[3], double dw[3])
{
    int par = t->nodes[j].parent;
    const double *Zp = par >= 0 ? &k->Z[6 * par] : zero6, *bw = &k->b[6 * j + 3];
    double wrel[3];
    point_motion_derivative(t, k, node, j, in->r, in->v, dr, drd);
    mbs_v3_cross(bw, in->axis, da);
    mbs_v3_sub(in->omega, Zp + 3, wrel);
    mbs_v3_cross(bw, wrel, dw);
    return bw;
}

/* The change of a wheel's force and torque with column j (on the path of its node): its law
 * reads the centre r, its velocity, the axis a and the angular velocity w
 * (body_reading_column). */
static void wheel_column(const MbsTopology *t, const MbsKinematics *k, int node,
                         const MbsForceInput *in, const MbsForceDerivative *D, int j,
                         double scale, double *Czd, double *Kz, size_t ld)
{
    double dr[3], drd[3], da[3], dw[3];
    double df[3], dn[3], dfv[3], dnv[3];
    const double *bw = body_reading_column(t, k, node, in, j, dr, drd, da, dw);
    for (int a = 0; a < 3; ++a) {
        df[a] = mbs_v3_dot(D->d_vector_r[a], dr) + mbs_v3_dot(D->d_vector_v[a], drd) +
                mbs_v3_dot(D->d_vector_a[a], da) + mbs_v3_dot(D->d_vector_w[a], dw);
        dn[a] = mbs_v3_dot(D->d_torque_r[a], dr) + mbs_v3_dot(D->d_torque_v[a], drd) +
                mbs_v3_dot(D->d_torque_a[a], da) + mbs_v3_dot(D->d_torque_w[a], dw);
        dfv[a] = mbs_v3_dot(D->d_vector_v[a], dr) + mbs_v3_dot(D->d_vector_w[a], bw);
        dnv[a] = mbs_v3_dot(D->d_torque_v[a], dr) + mbs_v3_dot(D->d_torque_w[a], bw);
    }
    add_force_change(t, k, node, in->r, df, scale, Kz, ld, j);
    add_torque_change(t, k, node, dn, scale, Kz, ld, j);
    add_force_change(t, k, node, in->r, dfv, scale, Czd, ld, j);
    add_torque_change(t, k, node, dnv, scale, Czd, ld, j);
}

/* A driver (control): Q on its joint's coordinate (row jn) with that coordinate and rate, and
 * with what it reads of body1 (node) under each column j on body1's path. */
static void control_terms(const MbsTopology *t, const MbsKinematics *k, int jn, int node,
                          const MbsForceInput *in, const MbsForceDerivative *D, double scale,
                          double *Czd, double *Kz, size_t ld)
{
    Kz[jn + ld * jn] += scale * D->d_value;
    Czd[jn + ld * jn] += scale * D->d_rate;
    for (int j = node; j >= 0; j = t->nodes[j].parent) {
        double dr[3], drd[3], da[3], dw[3];
        const double *bw = body_reading_column(t, k, node, in, j, dr, drd, da, dw);
        Kz[jn + ld * j] += scale * (mbs_v3_dot(D->d_gen_r, dr) + mbs_v3_dot(D->d_gen_v, drd) +
                                    mbs_v3_dot(D->d_gen_a, da) + mbs_v3_dot(D->d_gen_w, dw));
        Czd[jn + ld * j] += scale * (mbs_v3_dot(D->d_gen_v, dr) + mbs_v3_dot(D->d_gen_w, bw));
    }
}

static void element_terms(const MbsModel *m, const MbsKinematics *k, const double *z,
                          const double *zd, const MbsForce *F, double scale, double *Czd,
                          double *Kz, size_t ld)
{
    const MbsTopology *t = m->topo;
    const MbsForceClass *c = mbs_force_class(F->type);
    MbsForceInput in;
    MbsForceOutput out;
    MbsForceDerivative dT = {0};
    double at[2][3], e[3];
    if (!c->derivative || !mbs_dynamics_force_input(m, k, z, zd, F, &in, at, e))
        return; /* (a law without one is refused before: mbs_dynamics_derivatives_supported) */
    c->evaluate(F, &in, &out);
    c->derivative(F, &in, &dT);
    switch (c->geometry) {
    case MBS_FORCE_ON_LINE: {
        int nodes[2] = {t->body_node[F->body1], t->body_node[F->body2]};
        double f1[3] = {out.tension * e[0], out.tension * e[1], out.tension * e[2]};
        double f2[3] = {-f1[0], -f1[1], -f1[2]}, rdot[2][3];
        for (int p = 0; p < 2; ++p)
            mbs_kin_point_motion(m, k, p ? F->body2 : F->body1, at[p], rdot[p], NULL);
        if (nodes[0] >= 0)
            point_force_turning(t, k, nodes[0], at[0], f1, scale, Kz, ld);
        if (nodes[1] >= 0)
            point_force_turning(t, k, nodes[1], at[1], f2, scale, Kz, ld);
        /* columns on either path, each once */
        for (int j = nodes[0]; j >= 0; j = t->nodes[j].parent)
            line_column(t, k, nodes, at, rdot, e, in.value, out.tension, &dT, j, scale, Czd,
                        Kz, ld);
        for (int j = nodes[1]; j >= 0; j = t->nodes[j].parent)
            if (nodes[0] < 0 || !is_ancestor_or_self(t, j, nodes[0]))
                line_column(t, k, nodes, at, rdot, e, in.value, out.tension, &dT, j, scale,
                            Czd, Kz, ld);
        break;
    }
    case MBS_FORCE_ON_JOINT: {
        int nd = t->joint_node[F->joint];
        Kz[nd + ld * nd] += scale * dT.d_value;
        Czd[nd + ld * nd] += scale * dT.d_rate;
        break;
    }
    case MBS_FORCE_AT_POINT: {
        int nd = t->body_node[F->body1];
        if (nd < 0)
            break;
        point_force_turning(t, k, nd, at[0], out.vector, scale, Kz, ld);
        if (c->state_dependent)
            for (int j = nd; j >= 0; j = t->nodes[j].parent)
                point_law_column(t, k, nd, at[0], in.v, &dT, j, scale, Czd, Kz, ld);
        break;
    }
    case MBS_FORCE_ON_BODY: {
        int nd = t->body_node[F->body1];
        if (nd >= 0)
            torque_turning(t, k, nd, out.vector, scale, Kz, ld);
        break;
    }
    case MBS_FORCE_ON_WHEEL: {
        int nd = t->body_node[F->body1];
        if (nd < 0)
            break;
        point_force_turning(t, k, nd, at[0], out.vector, scale, Kz, ld);
        torque_turning(t, k, nd, out.torque, scale, Kz, ld);
        for (int j = nd; j >= 0; j = t->nodes[j].parent)
            wheel_column(t, k, nd, &in, &dT, j, scale, Czd, Kz, ld);
        break;
    }
    case MBS_FORCE_CONTROL:
        control_terms(t, k, t->joint_node[F->joint], t->body_node[F->body1], &in, &dT, scale,
                      Czd, Kz, ld);
        break;
    }
}

void mbs_dynamics_forces_derivatives(const MbsModel *m, const MbsKinematics *k,
                                     MbsDynamicsDerivatives *w, const double *z, const double *zd,
                                     double scale, double *dQ_dzd, double *dQ_dz, size_t ld)
{
    int n = m->topo->nnodes;
    for (int j = 0; j < n; ++j) {
        memset(dQ_dzd + ld * (size_t)j, 0, sizeof(double) * (size_t)n);
        memset(dQ_dz + ld * (size_t)j, 0, sizeof(double) * (size_t)n);
    }
    body_terms(m, k, w, scale, dQ_dzd, dQ_dz, ld);
    for (int f = 0; f < m->nforces; ++f)
        element_terms(m, k, z, zd, &m->forces[f], scale, dQ_dzd, dQ_dz, ld);
}
