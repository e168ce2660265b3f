/* Semi-recursive open-chain kinematics (paper 000 eqs 2-5), written once over a scalar type and
 * compiled twice (docs/architecture.md § Automatic differentiation): over double by
 * mbs_kinematics.c (the functions of mbs_kinematics.h) and over dual numbers by mbs_dual.c
 * (mbs_dual.h, for the tangent methods ad and ad-sparse). No include guard: the includer defines
 *
 *   MBS_S          the scalar type (double or MbsDual)
 *   MBS_K(name)    the name of a function of this instance
 *   MBS_KIN        the kinematics struct over MBS_S (fields n, R, p, b, Z, D)
 *   MBS_S_ZERO, MBS_S_ONE  initializers of the constants 0 and 1
 *
 * and every operation on MBS_S goes through mbs_scalar.h, whose double versions are the plain
 * operators in the same order: the double instance gives the same bits as hand-written code.
 *
 * All bodies share the global origin as reference point: Z_k = [s_dot; omega] is the velocity
 * of the point of node k that coincides with the origin, and its angular velocity.
 * Z_k = Z_parent + b_k zd_k, and D_k = D_parent + b_dot_k zd_k is dZ_k/dt when zdd = 0.
 */
#include <stdlib.h>
#include <string.h>

#include "mbs_model.h"
#include "mbs_scalar.h"
#include "mbs_topology.h"

static const MBS_S MBS_K(zero6)[6] = {MBS_S_ZERO, MBS_S_ZERO, MBS_S_ZERO,
                                      MBS_S_ZERO, MBS_S_ZERO, MBS_S_ZERO};
static const MBS_S MBS_K(identity3)[9] = {MBS_S_ONE,  MBS_S_ZERO, MBS_S_ZERO,
                                          MBS_S_ZERO, MBS_S_ONE,  MBS_S_ZERO,
                                          MBS_S_ZERO, MBS_S_ZERO, MBS_S_ONE};

void MBS_K(mbs_kinematics_free)(MBS_KIN *k)
{
    free(k->R);
    free(k->p);
    free(k->b);
    free(k->Z);
    free(k->D);
    memset(k, 0, sizeof *k);
}

/* Workspace for model m; 0, or -1 when out of memory. */
int MBS_K(mbs_kinematics_init)(MBS_KIN *k, const MbsModel *m)
{
    int n = m->topo->nnodes;
    memset(k, 0, sizeof *k);
    k->n = n;
    size_t nn = (size_t)(n > 0 ? n : 1);
    k->R = calloc(9 * nn, sizeof(MBS_S));
    k->p = calloc(3 * nn, sizeof(MBS_S));
    k->b = calloc(6 * nn, sizeof(MBS_S));
    k->Z = calloc(6 * nn, sizeof(MBS_S));
    k->D = calloc(6 * nn, sizeof(MBS_S));
    if (!k->R || !k->p || !k->b || !k->Z || !k->D) {
        MBS_K(mbs_kinematics_free)(k);
        return -1;
    }
    return 0;
}

/* Rotation by angle about the unit axis u (Rodrigues). */
void MBS_K(mbs_m3_rotation)(const double u[3], MBS_S angle, MBS_S R[9])
{
    MBS_S c = MBS_COS(angle), s = MBS_SIN(angle), t = MBS_CSUB(1.0, c);
    double x = u[0], y = u[1], z = u[2];
    MBS_S tx = MBS_SCALE(x, t), ty = MBS_SCALE(y, t); /* t x, t y */
    R[0] = MBS_ADD(MBS_SCALE(x, tx), c);
    R[1] = MBS_SUB(MBS_SCALE(y, tx), MBS_SCALE(z, s));
    R[2] = MBS_ADD(MBS_SCALE(z, tx), MBS_SCALE(y, s));
    R[3] = MBS_ADD(MBS_SCALE(y, tx), MBS_SCALE(z, s));
    R[4] = MBS_ADD(MBS_SCALE(y, ty), c);
    R[5] = MBS_SUB(MBS_SCALE(z, ty), MBS_SCALE(x, s));
    R[6] = MBS_SUB(MBS_SCALE(z, tx), MBS_SCALE(y, s));
    R[7] = MBS_ADD(MBS_SCALE(z, ty), MBS_SCALE(x, s));
    R[8] = MBS_ADD(MBS_SCALE(z, MBS_SCALE(z, t)), c);
}

/* Poses and b vectors for coordinates z. */
void MBS_K(mbs_kinematics_positions)(const MbsModel *m, MBS_KIN *k, const MBS_S *z)
{
    const MbsTopology *t = m->topo;
    for (int i = t->nnodes - 1; i >= 0; --i) {
        const MbsNode *nd = &t->nodes[i];
        const MBS_S *Rp = nd->parent < 0 ? MBS_K(identity3) : &k->R[9 * nd->parent];
        const MBS_S *pp = nd->parent < 0 ? MBS_K(zero6) : &k->p[3 * nd->parent];
        MBS_S *R = &k->R[9 * i], *p = &k->p[3 * i], *b = &k->b[6 * i];
        MBS_S u[3], a[3];
        MBS_M3_MULV_C(Rp, nd->axis, u);
        MBS_M3_MULV_C(Rp, nd->point, a);
        MBS_V3_ADD(a, pp, a);
        if (nd->type == MBS_NODE_REVOLUTE) {
            /* R = Rp Rot(axis, z); p = Rp (a0 - Rot a0) + pp */
            MBS_S Rrel[9], Ra0[3], d[3];
            MBS_K(mbs_m3_rotation)(nd->axis, z[i], Rrel);
            MBS_M3_MUL(Rp, Rrel, R);
            MBS_M3_MULV_C(Rrel, nd->point, Ra0);
            for (int c = 0; c < 3; ++c)
                d[c] = MBS_CSUB(nd->point[c], Ra0[c]);
            MBS_M3_MULV(Rp, d, p);
            MBS_V3_ADD(p, pp, p);
            MBS_V3_CROSS(a, u, b); /* velocity of the origin point: a x u */
            memcpy(b + 3, u, 3 * sizeof(MBS_S));
        } else {
            memcpy(R, Rp, 9 * sizeof(MBS_S));
            for (int c = 0; c < 3; ++c)
                p[c] = MBS_ADD(pp[c], MBS_MUL(u[c], z[i]));
            memcpy(b, u, 3 * sizeof(MBS_S));
            b[3] = b[4] = b[5] = MBS_K(zero6)[0];
        }
    }
}

/* Z and D for velocities zd (after the positions); with accelerations zdd (not NULL) D is the
 * whole dZ/dt, D_k = D_parent + b_dot_k zd_k + b_k zdd_k, so the forces of the dynamics kernel
 * become Q - M zdd (the inertia forces of the accelerations). */
void MBS_K(mbs_kinematics_motion)(const MbsModel *m, MBS_KIN *k, const MBS_S *zd,
                                  const MBS_S *zdd)
{
    const MbsTopology *t = m->topo;
    for (int i = t->nnodes - 1; i >= 0; --i) {
        const MbsNode *nd = &t->nodes[i];
        const MBS_S *Zp = nd->parent < 0 ? MBS_K(zero6) : &k->Z[6 * nd->parent];
        const MBS_S *Dp = nd->parent < 0 ? MBS_K(zero6) : &k->D[6 * nd->parent];
        const MBS_S *b = &k->b[6 * i];
        MBS_S *Z = &k->Z[6 * i], *D = &k->D[6 * i];
        const MBS_S *wp = Zp + 3;
        MBS_S bd[6];
        if (nd->type == MBS_NODE_REVOLUTE) {
            /* b = [a x u; u]: b_dot = [a_dot x u + a x u_dot; u_dot] with u_dot = wp x u and
             * a_dot = sp + wp x a. The joint point a is recovered from b: not needed, since
             * a x u_dot + a_dot x u = (sp + wp x a) x u + a x (wp x u) = sp x u + wp x (a x u). */
            MBS_S t1[3], t2[3];
            MBS_V3_CROSS(Zp, b + 3, t1);   /* sp x u */
            MBS_V3_CROSS(wp, b, t2);       /* wp x (a x u) */
            MBS_V3_ADD(t1, t2, bd);
            MBS_V3_CROSS(wp, b + 3, bd + 3);
        } else {
            MBS_V3_CROSS(wp, b, bd);
            bd[3] = bd[4] = bd[5] = MBS_K(zero6)[0];
        }
        for (int c = 0; c < 6; ++c) {
            Z[c] = MBS_ADD(Zp[c], MBS_MUL(b[c], zd[i]));
            D[c] = MBS_ADD(Dp[c], MBS_MUL(bd[c], zd[i]));
            if (zdd)
                D[c] = MBS_ADD(D[c], MBS_MUL(b[c], zdd[i]));
        }
    }
}

/* Z and D for velocities zd (after the positions). */
void MBS_K(mbs_kinematics_velocities)(const MbsModel *m, MBS_KIN *k, const MBS_S *zd)
{
    MBS_K(mbs_kinematics_motion)(m, k, zd, NULL);
}

/* Current position of the drawn point x0 of body (ground: fixed). */
void MBS_K(mbs_kin_point)(const MbsModel *m, const MBS_KIN *k, int body, const double x0[3],
                          MBS_S r[3])
{
    int nd = m->topo->body_node[body];
    if (nd < 0) {
        for (int c = 0; c < 3; ++c)
            r[c] = MBS_LIKE(MBS_K(zero6)[0], x0[c]);
        return;
    }
    MBS_M3_MULV_C(&k->R[9 * nd], x0, r);
    MBS_V3_ADD(r, &k->p[3 * nd], r);
}

/* Velocity of the body point at r: s_dot + w x r (zero for ground). */
void MBS_K(mbs_kin_point_velocity)(const MbsModel *m, const MBS_KIN *k, int body,
                                   const MBS_S r[3], MBS_S v[3])
{
    int nd = m->topo->body_node[body];
    if (nd < 0) {
        memcpy(v, MBS_K(zero6), 3 * sizeof(MBS_S));
        return;
    }
    const MBS_S *Z = &k->Z[6 * nd];
    MBS_V3_CROSS(Z + 3, r, v);
    MBS_V3_ADD(v, Z, v);
}

/* Angular velocity of a body (zero for ground). */
void MBS_K(mbs_kin_body_omega)(const MbsModel *m, const MBS_KIN *k, int body, MBS_S w[3])
{
    int nd = m->topo->body_node[body];
    memcpy(w, nd < 0 ? MBS_K(zero6) : &k->Z[6 * nd + 3], 3 * sizeof(MBS_S));
}

/* Current direction of the drawn vector u0 of body (ground: fixed). */
void MBS_K(mbs_kin_vector)(const MbsModel *m, const MBS_KIN *k, int body, const double u0[3],
                           MBS_S u[3])
{
    int nd = m->topo->body_node[body];
    if (nd < 0) {
        for (int c = 0; c < 3; ++c)
            u[c] = MBS_LIKE(MBS_K(zero6)[0], u0[c]);
        return;
    }
    MBS_M3_MULV_C(&k->R[9 * nd], u0, u);
}

/* Velocity of the body point at r, and its acceleration when zdd = 0 (with the zdd given to
 * the velocities: the whole acceleration). Either may be NULL. */
void MBS_K(mbs_kin_point_motion)(const MbsModel *m, const MBS_KIN *k, int body,
                                 const MBS_S r[3], MBS_S v[3], MBS_S a_bias[3])
{
    int nd = m->topo->body_node[body];
    MBS_S vv[3];
    MBS_K(mbs_kin_point_velocity)(m, k, body, r, vv);
    if (v)
        memcpy(v, vv, sizeof vv);
    if (a_bias) {
        if (nd < 0) {
            memcpy(a_bias, MBS_K(zero6), 3 * sizeof(MBS_S));
            return;
        }
        /* d/dt (s_dot + w x r) = D_s + D_w x r + w x r_dot */
        const MBS_S *D = &k->D[6 * nd], *w = &k->Z[6 * nd + 3];
        MBS_S t1[3], t2[3];
        MBS_V3_CROSS(D + 3, r, t1);
        MBS_V3_CROSS(w, vv, t2);
        for (int c = 0; c < 3; ++c)
            a_bias[c] = MBS_ADD(MBS_ADD(D[c], t1[c]), t2[c]);
    }
}

/* Time derivative of the body vector u and its second derivative when zdd = 0. */
void MBS_K(mbs_kin_vector_motion)(const MbsModel *m, const MBS_KIN *k, int body,
                                  const MBS_S u[3], MBS_S ud[3], MBS_S udd_bias[3])
{
    int nd = m->topo->body_node[body];
    if (nd < 0) {
        memcpy(ud, MBS_K(zero6), 3 * sizeof(MBS_S));
        if (udd_bias)
            memcpy(udd_bias, MBS_K(zero6), 3 * sizeof(MBS_S));
        return;
    }
    const MBS_S *w = &k->Z[6 * nd + 3], *Dw = &k->D[6 * nd + 3];
    MBS_V3_CROSS(w, u, ud);
    if (udd_bias) {
        MBS_S t1[3], t2[3];
        MBS_V3_CROSS(Dw, u, t1);
        MBS_V3_CROSS(w, ud, t2);
        MBS_V3_ADD(t1, t2, udd_bias);
    }
}
