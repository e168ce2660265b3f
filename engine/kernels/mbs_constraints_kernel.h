/* Loop-closure and driver constraints (mbs_constraints.h), written once over a scalar type and
 * compiled twice like mbs_kinematics_kernel.h: over double by mbs_constraints.c and over dual
 * numbers by mbs_dual.c, whose derivatives of Phi_z and of the bias along seeded directions are
 * the second-derivative terms (Phi_zz [dz]) of matrix-r's tangent (paper 001 eqs 50-52). The
 * includer defines MBS_S, MBS_K, MBS_KIN as for the kinematics kernel and includes it first. */
#include <string.h>

#include "mbs_function.h"
#include "mbs_scalar.h"
#include "mbs_topology.h"

/* Add s * d(point r of body)/dz . e to row `row` of phiz, for every node on the body's path. */
static void MBS_K(add_point_jacobian)(const MbsModel *m, const MBS_KIN *k, MBS_S *phiz, int row,
                                      int body, const MBS_S r[3], const MBS_S e[3], double s)
{
    int nr = m->topo->nrows;
    for (int j = m->topo->body_node[body]; j >= 0; j = m->topo->nodes[j].parent) {
        const MBS_S *b = &k->b[6 * j];
        MBS_S wr[3];
        MBS_V3_CROSS(b + 3, r, wr); /* dr/dz_j = b_s + b_w x r */
        MBS_S *out = &phiz[row + (size_t)nr * j];
        *out = MBS_ADD(*out, MBS_SCALE(s, MBS_ADD(MBS_V3_DOT(b, e), MBS_V3_DOT(wr, e))));
    }
}

/* The same for e the unit vector of `axis` (a POINTS row): component `axis` of b_s + b_w x r,
 * the general one's value without its products by e's zeros. */
static void MBS_K(add_point_jacobian_axis)(const MbsModel *m, const MBS_KIN *k, MBS_S *phiz,
                                           int row, int body, const MBS_S r[3], int axis,
                                           double s)
{
    int nr = m->topo->nrows, a1 = (axis + 1) % 3, a2 = (axis + 2) % 3;
    for (int j = m->topo->body_node[body]; j >= 0; j = m->topo->nodes[j].parent) {
        const MBS_S *b = &k->b[6 * j];
        MBS_S wr = MBS_SUB(MBS_MUL(b[3 + a1], r[a2]), MBS_MUL(b[3 + a2], r[a1]));
        MBS_S *out = &phiz[row + (size_t)nr * j];
        *out = MBS_ADD(*out, MBS_SCALE(s, MBS_ADD(b[axis], wr)));
    }
}

/* Add s * d(vector u of body)/dz . e: du/dz_j = b_w x u. */
static void MBS_K(add_vector_jacobian)(const MbsModel *m, const MBS_KIN *k, MBS_S *phiz,
                                       int row, int body, const MBS_S u[3], const MBS_S e[3],
                                       double s)
{
    int nr = m->topo->nrows;
    for (int j = m->topo->body_node[body]; j >= 0; j = m->topo->nodes[j].parent) {
        MBS_S wu[3];
        MBS_V3_CROSS(&k->b[6 * j + 3], u, wu);
        MBS_S *out = &phiz[row + (size_t)nr * j];
        *out = MBS_ADD(*out, MBS_SCALE(s, MBS_V3_DOT(wu, e)));
    }
}

/* The two points of a row (r1 on body 1, r2 on body 2): positions, and the velocities and
 * accelerations (either NULL) of the motion in k. */
static void MBS_K(row_points)(const MbsModel *m, const MBS_KIN *k, const MbsRow *w,
                              MBS_S r[2][3], MBS_S v[2][3], MBS_S a[2][3])
{
    MBS_K(mbs_kin_point)(m, k, w->body1, w->r1, r[0]);
    MBS_K(mbs_kin_point)(m, k, w->body2, w->r2, r[1]);
    if (v || a) {
        MBS_K(mbs_kin_point_motion)(m, k, w->body1, r[0], v ? v[0] : NULL, a ? a[0] : NULL);
        MBS_K(mbs_kin_point_motion)(m, k, w->body2, r[1], v ? v[1] : NULL, a ? a[1] : NULL);
    }
}

/* Body 1's vector u1 and, for a dot row, body 2's v2: directions, and their first and second
 * time derivatives (either NULL) of the motion in k. */
static void MBS_K(row_vectors)(const MbsModel *m, const MBS_KIN *k, const MbsRow *w, int both,
                               MBS_S u[2][3], MBS_S ud[2][3], MBS_S udd[2][3])
{
    MBS_K(mbs_kin_vector)(m, k, w->body1, w->u1, u[0]);
    if (both)
        MBS_K(mbs_kin_vector)(m, k, w->body2, w->v2, u[1]);
    if (!ud)
        return;
    for (int i = 0; i < 1 + both; ++i)
        MBS_K(mbs_kin_vector_motion)(m, k, i ? w->body2 : w->body1, u[i], ud[i],
                                     udd ? udd[i] : NULL);
}

/* Phi, Phi_z (dense nr x n, column-major) and Phi_t. pattern_only: only the entries of the
 * topology's row pattern are cleared before they are accumulated (the others must be zero on
 * entry): the dense clearing of nr x n entries grew as n^2 and was most of Phi_z's cost on
 * large lattices, while the pattern has a few entries per row (the nodes on two bodies' paths). */
static void MBS_K(constraints_eval_impl)(const MbsModel *m, const MBS_KIN *k, double t,
                                         const MBS_S *z, MBS_S *phi, MBS_S *phiz, double *phit,
                                         int pattern_only)
{
    const MbsTopology *tp = m->topo;
    int nr = tp->nrows;
    if (phiz && pattern_only) {
        for (int i = 0; i < nr; ++i)
            for (int p = tp->row_ptr[i]; p < tp->row_ptr[i + 1]; ++p)
                phiz[i + (size_t)nr * tp->row_cols[p]] = MBS_K(zero6)[0];
    } else if (phiz) {
        memset(phiz, 0, sizeof(MBS_S) * (size_t)nr * (size_t)tp->nnodes);
    }
    const MbsRow *shared = NULL; /* the POINTS row whose points r holds */
    MBS_S r[2][3];
    for (int i = 0; i < nr; ++i) {
        const MbsRow *w = &tp->rows[i];
        MBS_S u[2][3], d[3], val = MBS_K(zero6)[0];
        double dt = 0.0;
        switch (w->type) {
        case MBS_ROW_POINTS: {
            if (!mbs_rows_share_points(w, shared))
                MBS_K(row_points)(m, k, w, r, NULL, NULL);
            shared = w;
            val = MBS_SUB(r[0][w->axis], r[1][w->axis]);
            if (phiz) {
                MBS_K(add_point_jacobian_axis)(m, k, phiz, i, w->body1, r[0], w->axis, 1.0);
                MBS_K(add_point_jacobian_axis)(m, k, phiz, i, w->body2, r[1], w->axis, -1.0);
            }
            break;
        }
        case MBS_ROW_DOT:
            MBS_K(row_vectors)(m, k, w, 1, u, NULL, NULL);
            val = MBS_SUBC(MBS_V3_DOT(u[0], u[1]), w->c);
            if (phiz) {
                MBS_K(add_vector_jacobian)(m, k, phiz, i, w->body1, u[0], u[1], 1.0);
                MBS_K(add_vector_jacobian)(m, k, phiz, i, w->body2, u[1], u[0], 1.0);
            }
            break;
        case MBS_ROW_LINE:
            MBS_K(row_points)(m, k, w, r, NULL, NULL);
            shared = NULL;
            MBS_K(row_vectors)(m, k, w, 0, u, NULL, NULL);
            MBS_V3_SUB(r[1], r[0], d);
            val = MBS_V3_DOT(d, u[0]);
            if (phiz) {
                MBS_K(add_point_jacobian)(m, k, phiz, i, w->body2, r[1], u[0], 1.0);
                MBS_K(add_point_jacobian)(m, k, phiz, i, w->body1, r[0], u[0], -1.0);
                MBS_K(add_vector_jacobian)(m, k, phiz, i, w->body1, u[0], d, 1.0);
            }
            break;
        case MBS_ROW_DISTANCE:
            MBS_K(row_points)(m, k, w, r, NULL, NULL);
            shared = NULL;
            MBS_V3_SUB(r[0], r[1], d);
            val = MBS_SUBC(MBS_V3_DOT(d, d), w->c);
            if (phiz) {
                MBS_K(add_point_jacobian)(m, k, phiz, i, w->body1, r[0], d, 2.0);
                MBS_K(add_point_jacobian)(m, k, phiz, i, w->body2, r[1], d, -2.0);
            }
            break;
        case MBS_ROW_DRIVER: {
            double fd = 0.0;
            val = MBS_SUBC(z[w->node], mbs_function_eval(&m->joints[w->joint].driver, t, &fd,
                                                         NULL));
            dt = -fd;
            if (phiz)
                phiz[i + (size_t)nr * w->node] = MBS_K(identity3)[0];
            break;
        }
        }
        if (phi)
            phi[i] = val;
        if (phit)
            phit[i] = dt;
    }
}

void MBS_K(mbs_constraints_eval)(const MbsModel *m, const MBS_KIN *k, double t, const MBS_S *z,
                                 MBS_S *phi, MBS_S *phiz, double *phit)
{
    MBS_K(constraints_eval_impl)(m, k, t, z, phi, phiz, phit, 0);
}

/* d2 Phi / dt2 at the accelerations of the motion in k (zdd = 0 after
 * mbs_kinematics_velocities: the bias Phi_z_dot zd + Phi_t_dot). */
void MBS_K(mbs_constraints_bias)(const MbsModel *m, const MBS_KIN *k, double t, MBS_S *bias)
{
    const MbsTopology *tp = m->topo;
    const MbsRow *shared = NULL; /* the POINTS row whose points' accelerations pa holds */
    MBS_S pa[2][3];
    for (int i = 0; i < tp->nrows; ++i) {
        const MbsRow *w = &tp->rows[i];
        MBS_S r[2][3], v[2][3], a[2][3], u[2][3], ud[2][3], udd[2][3], d[3], dd[3], da[3];
        MBS_S val = MBS_K(zero6)[0];
        switch (w->type) {
        case MBS_ROW_POINTS:
            if (!mbs_rows_share_points(w, shared))
                MBS_K(row_points)(m, k, w, r, NULL, pa);
            shared = w;
            val = MBS_SUB(pa[0][w->axis], pa[1][w->axis]);
            break;
        case MBS_ROW_DOT:
            MBS_K(row_vectors)(m, k, w, 1, u, ud, udd);
            val = MBS_ADD(MBS_ADD(MBS_V3_DOT(udd[0], u[1]),
                                  MBS_SCALE(2.0, MBS_V3_DOT(ud[0], ud[1]))),
                          MBS_V3_DOT(u[0], udd[1]));
            break;
        case MBS_ROW_LINE:
            MBS_K(row_points)(m, k, w, r, v, a);
            MBS_K(row_vectors)(m, k, w, 0, u, ud, udd);
            MBS_V3_SUB(r[1], r[0], d);
            MBS_V3_SUB(v[1], v[0], dd);
            MBS_V3_SUB(a[1], a[0], da);
            val = MBS_ADD(MBS_ADD(MBS_V3_DOT(da, u[0]), MBS_SCALE(2.0, MBS_V3_DOT(dd, ud[0]))),
                          MBS_V3_DOT(d, udd[0]));
            break;
        case MBS_ROW_DISTANCE:
            MBS_K(row_points)(m, k, w, r, v, a);
            MBS_V3_SUB(r[0], r[1], d);
            MBS_V3_SUB(v[0], v[1], dd);
            MBS_V3_SUB(a[0], a[1], da);
            val = MBS_ADD(MBS_SCALE(2.0, MBS_V3_DOT(dd, dd)), MBS_SCALE(2.0, MBS_V3_DOT(d, da)));
            break;
        case MBS_ROW_DRIVER: {
            double f2 = 0.0;
            mbs_function_eval(&m->joints[w->joint].driver, t, NULL, &f2);
            val = MBS_LIKE(val, -f2);
            break;
        }
        }
        bias[i] = val;
    }
}

/* Phi_z v (nrows) without Phi_z: the velocity constraints with the motion in k computed from v
 * (mbs_kinematics_velocities(v)), row by row as their Jacobian rows read it. Over dual numbers
 * with constant v and seeded positions it gives Phi_zz[dz] v in O(n + rows). */
void MBS_K(mbs_constraints_velocity)(const MbsModel *m, const MBS_KIN *k, const MBS_S *v,
                                     MBS_S *out)
{
    const MbsTopology *tp = m->topo;
    const MbsRow *shared = NULL; /* the POINTS row whose points' velocities sv holds */
    MBS_S sv[2][3];
    for (int i = 0; i < tp->nrows; ++i) {
        const MbsRow *w = &tp->rows[i];
        MBS_S r[2][3], pv[2][3], u[2][3], ud[2][3], d[3], dv[3];
        MBS_S val = MBS_K(zero6)[0];
        switch (w->type) {
        case MBS_ROW_POINTS:
            if (!mbs_rows_share_points(w, shared))
                MBS_K(row_points)(m, k, w, r, sv, NULL);
            shared = w;
            val = MBS_SUB(sv[0][w->axis], sv[1][w->axis]);
            break;
        case MBS_ROW_DOT:
            MBS_K(row_vectors)(m, k, w, 1, u, ud, NULL);
            val = MBS_ADD(MBS_V3_DOT(ud[0], u[1]), MBS_V3_DOT(u[0], ud[1]));
            break;
        case MBS_ROW_LINE:
            MBS_K(row_points)(m, k, w, r, pv, NULL);
            MBS_K(row_vectors)(m, k, w, 0, u, ud, NULL);
            MBS_V3_SUB(r[1], r[0], d);
            MBS_V3_SUB(pv[1], pv[0], dv);
            val = MBS_ADD(MBS_V3_DOT(dv, u[0]), MBS_V3_DOT(d, ud[0]));
            break;
        case MBS_ROW_DISTANCE:
            MBS_K(row_points)(m, k, w, r, pv, NULL);
            MBS_V3_SUB(r[0], r[1], d);
            MBS_V3_SUB(pv[0], pv[1], dv);
            val = MBS_SCALE(2.0, MBS_V3_DOT(d, dv));
            break;
        case MBS_ROW_DRIVER:
            val = v[w->node];
            break;
        }
        out[i] = val;
    }
}

/* Add force f at point r of body (s times) to the node wrenches W (6 per node, about the
 * origin), or torque n (f NULL). */
static void MBS_K(reaction_wrench)(const MbsModel *m, MBS_S *W, int body, const MBS_S r[3],
                                   const MBS_S f[3], const MBS_S n[3], double s)
{
    int nd = m->topo->body_node[body];
    if (nd < 0)
        return;
    MBS_S *w = &W[6 * nd], mo[3];
    if (f) {
        MBS_V3_CROSS(r, f, mo);
        for (int c = 0; c < 3; ++c) {
            w[c] = MBS_ADD(w[c], MBS_SCALE(s, f[c]));
            w[3 + c] = MBS_ADD(w[3 + c], MBS_SCALE(s, mo[c]));
        }
    } else {
        for (int c = 0; c < 3; ++c)
            w[3 + c] = MBS_ADD(w[3 + c], MBS_SCALE(s, n[c]));
    }
}

/* Phi_z^T mu (n) without Phi_z: each row's gradient is the generalized force of a force or
 * torque on its bodies (a point row: mu e at r1 and -mu e at r2), summed up the tree as the
 * dynamics sums body wrenches (Q_j = b_j . sum of the subtree's wrenches). mu has a value per
 * row (0: a row left out); W is 6 n of workspace. Over dual numbers with seeded positions it
 * gives Phi_zz[dz]^T mu in O(n + rows). */
void MBS_K(mbs_constraints_reactions)(const MbsModel *m, const MBS_KIN *k, const double *mu,
                                      MBS_S *W, MBS_S *out)
{
    const MbsTopology *tp = m->topo;
    int n = tp->nnodes;
    memset(W, 0, sizeof(MBS_S) * 6 * (size_t)(n > 0 ? n : 1));
    for (int j = 0; j < n; ++j)
        out[j] = MBS_K(zero6)[0];
    for (int i = 0; i < tp->nrows; ++i) {
        const MbsRow *w = &tp->rows[i];
        double s = mu[i];
        if (s == 0.0)
            continue;
        MBS_S r[2][3], u[2][3], d[3], t[3];
        switch (w->type) {
        case MBS_ROW_POINTS: {
            MBS_S e[3] = {MBS_S_ZERO, MBS_S_ZERO, MBS_S_ZERO};
            e[w->axis] = MBS_K(identity3)[0];
            MBS_K(row_points)(m, k, w, r, NULL, NULL);
            MBS_K(reaction_wrench)(m, W, w->body1, r[0], e, NULL, s);
            MBS_K(reaction_wrench)(m, W, w->body2, r[1], e, NULL, -s);
            break;
        }
        case MBS_ROW_DOT: /* d(u1 . v2)/dz_j = b_w,j . (u1 x v2) on body 1's path, and
                           * b_w,j . (v2 x u1) on body 2's */
            MBS_K(row_vectors)(m, k, w, 1, u, NULL, NULL);
            MBS_V3_CROSS(u[0], u[1], t);
            MBS_K(reaction_wrench)(m, W, w->body1, NULL, NULL, t, s);
            MBS_K(reaction_wrench)(m, W, w->body2, NULL, NULL, t, -s);
            break;
        case MBS_ROW_LINE: /* (r2 - r1) . u1 */
            MBS_K(row_points)(m, k, w, r, NULL, NULL);
            MBS_K(row_vectors)(m, k, w, 0, u, NULL, NULL);
            MBS_V3_SUB(r[1], r[0], d);
            MBS_K(reaction_wrench)(m, W, w->body2, r[1], u[0], NULL, s);
            MBS_K(reaction_wrench)(m, W, w->body1, r[0], u[0], NULL, -s);
            MBS_V3_CROSS(u[0], d, t);
            MBS_K(reaction_wrench)(m, W, w->body1, NULL, NULL, t, s);
            break;
        case MBS_ROW_DISTANCE:
            MBS_K(row_points)(m, k, w, r, NULL, NULL);
            MBS_V3_SUB(r[0], r[1], d);
            MBS_K(reaction_wrench)(m, W, w->body1, r[0], d, NULL, 2.0 * s);
            MBS_K(reaction_wrench)(m, W, w->body2, r[1], d, NULL, -2.0 * s);
            break;
        case MBS_ROW_DRIVER:
            out[w->node] = MBS_ADDC(out[w->node], s);
            break;
        }
    }
    for (int j = 0; j < n; ++j) { /* parents have larger indices (mbs_kinematics_positions) */
        int par = tp->nodes[j].parent;
        const MBS_S *w = &W[6 * j], *b = &k->b[6 * j];
        MBS_S q = out[j];
        for (int c = 0; c < 6; ++c)
            q = MBS_ADD(q, MBS_MUL(b[c], w[c]));
        out[j] = q;
        if (par >= 0)
            for (int c = 0; c < 6; ++c)
                W[6 * par + c] = MBS_ADD(W[6 * par + c], w[c]);
    }
}
