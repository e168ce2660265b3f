#include "mbs_kinematics.h"

#include <stdlib.h>
#include <string.h>

#include "mbs_linalg.h"
#include "mbs_topology.h"

static const double zero6[6] = {0, 0, 0, 0, 0, 0};
static const double identity3[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};

int mbs_kinematics_init(MbsKinematics *k, const MbsModel *m)
{
    int n = m->topo->nnodes;
    memset(k, 0, sizeof *k);
    k->n = n;
    size_t nn = (size_t)(n > 0 ? n : 1);
    k->R = calloc(9 * nn, sizeof(double));
    k->p = calloc(3 * nn, sizeof(double));
    k->b = calloc(6 * nn, sizeof(double));
    k->Z = calloc(6 * nn, sizeof(double));
    k->D = calloc(6 * nn, sizeof(double));
    if (!k->R || !k->p || !k->b || !k->Z || !k->D) {
        mbs_kinematics_free(k);
        return -1;
    }
    return 0;
}

void mbs_kinematics_free(MbsKinematics *k)
{
    free(k->R);
    free(k->p);
    free(k->b);
    free(k->Z);
    free(k->D);
    memset(k, 0, sizeof *k);
}

void mbs_kinematics_positions(const MbsModel *m, MbsKinematics *k, const double *z)
{
    const MbsTopology *t = m->topo;
    for (int i = t->nnodes - 1; i >= 0; --i) {
        const MbsNode *nd = &t->nodes[i];
        const double *Rp = nd->parent < 0 ? identity3 : &k->R[9 * nd->parent];
        const double *pp = nd->parent < 0 ? zero6 : &k->p[3 * nd->parent];
        double *R = &k->R[9 * i], *p = &k->p[3 * i], *b = &k->b[6 * i];
        double u[3], a[3];
        mbs_m3_mulv(Rp, nd->axis, u);
        mbs_m3_mulv(Rp, nd->point, a);
        mbs_v3_add(a, pp, a);
        if (nd->type == MBS_NODE_REVOLUTE) {
            /* R = Rp Rot(axis, z); p = Rp (a0 - Rot a0) + pp */
            double Rrel[9], Ra0[3], d[3];
            mbs_m3_rotation(nd->axis, z[i], Rrel);
            mbs_m3_mul(Rp, Rrel, R);
            mbs_m3_mulv(Rrel, nd->point, Ra0);
            mbs_v3_sub(nd->point, Ra0, d);
            mbs_m3_mulv(Rp, d, p);
            mbs_v3_add(p, pp, p);
            mbs_v3_cross(a, u, b); /* velocity of the origin point: a x u */
            memcpy(b + 3, u, 3 * sizeof(double));
        } else {
            memcpy(R, Rp, 9 * sizeof(double));
            for (int c = 0; c < 3; ++c)
                p[c] = pp[c] + u[c] * z[i];
            memcpy(b, u, 3 * sizeof(double));
            b[3] = b[4] = b[5] = 0.0;
        }
    }
}

void mbs_kinematics_velocities(const MbsModel *m, MbsKinematics *k, const double *zd)
{
    const MbsTopology *t = m->topo;
    for (int i = t->nnodes - 1; i >= 0; --i) {
        const MbsNode *nd = &t->nodes[i];
        const double *Zp = nd->parent < 0 ? zero6 : &k->Z[6 * nd->parent];
        const double *Dp = nd->parent < 0 ? zero6 : &k->D[6 * nd->parent];
        const double *b = &k->b[6 * i];
        double *Z = &k->Z[6 * i], *D = &k->D[6 * i];
        const double *wp = Zp + 3;
        double bd[6];
        if (nd->type == MBS_NODE_REVOLUTE) {
            /* b = [a x u; u]: b_dot = [a_dot x u + a x u_dot; u_dot] with u_dot = wp x u and
             * a_dot = sp + wp x a. The joint point a is recovered from b: not needed, since
             * a x u_dot + a_dot x u = (sp + wp x a) x u + a x (wp x u) = sp x u + wp x (a x u). */
            double t1[3], t2[3];
            mbs_v3_cross(Zp, b + 3, t1);   /* sp x u */
            mbs_v3_cross(wp, b, t2);       /* wp x (a x u) */
            mbs_v3_add(t1, t2, bd);
            mbs_v3_cross(wp, b + 3, bd + 3);
        } else {
            mbs_v3_cross(wp, b, bd);
            bd[3] = bd[4] = bd[5] = 0.0;
        }
        for (int c = 0; c < 6; ++c) {
            Z[c] = Zp[c] + b[c] * zd[i];
            D[c] = Dp[c] + bd[c] * zd[i];
        }
    }
}

void mbs_kin_body_pose(const MbsModel *m, const MbsKinematics *k, int body, double R[9],
                       double p[3])
{
    int nd = m->topo->body_node[body];
    if (nd < 0) {
        memcpy(R, identity3, sizeof identity3);
        p[0] = p[1] = p[2] = 0.0;
        return;
    }
    memcpy(R, &k->R[9 * nd], 9 * sizeof(double));
    memcpy(p, &k->p[3 * nd], 3 * sizeof(double));
}

void mbs_kin_point(const MbsModel *m, const MbsKinematics *k, int body, const double x0[3],
                   double r[3])
{
    int nd = m->topo->body_node[body];
    if (nd < 0) {
        memcpy(r, x0, 3 * sizeof(double));
        return;
    }
    mbs_m3_mulv(&k->R[9 * nd], x0, r);
    mbs_v3_add(r, &k->p[3 * nd], r);
}

void mbs_kin_vector(const MbsModel *m, const MbsKinematics *k, int body, const double u0[3],
                    double u[3])
{
    int nd = m->topo->body_node[body];
    if (nd < 0)
        memcpy(u, u0, 3 * sizeof(double));
    else
        mbs_m3_mulv(&k->R[9 * nd], u0, u);
}

void mbs_kin_point_velocity_row(const MbsModel *m, const MbsKinematics *k, int body,
                                const double r[3], const double direction[3], double *out,
                                size_t ld)
{
    const MbsTopology *t = m->topo;
    for (int j = 0; j < t->nnodes; ++j)
        out[(size_t)j * ld] = 0.0;
    /* a unit rate of node j moves the point by b_j(1:3) + b_j(4:6) x r */
    for (int j = t->body_node[body]; j >= 0; j = t->nodes[j].parent) {
        const double *b = k->b + 6 * (size_t)j;
        double v[3];
        mbs_v3_cross(b + 3, r, v);
        out[(size_t)j * ld] = direction[0] * (b[0] + v[0]) + direction[1] * (b[1] + v[1]) +
                              direction[2] * (b[2] + v[2]);
    }
}

void mbs_kin_point_motion(const MbsModel *m, const MbsKinematics *k, int body, const double r[3],
                          double v[3], double a_bias[3])
{
    int nd = m->topo->body_node[body];
    double vv[3] = {0, 0, 0};
    if (nd >= 0) {
        const double *Z = &k->Z[6 * nd];
        mbs_v3_cross(Z + 3, r, vv);
        mbs_v3_add(vv, Z, vv);
    }
    if (v)
        memcpy(v, vv, sizeof vv);
    if (a_bias) {
        if (nd < 0) {
            a_bias[0] = a_bias[1] = a_bias[2] = 0.0;
            return;
        }
        /* d/dt (s_dot + w x r) = D_s + D_w x r + w x r_dot */
        const double *D = &k->D[6 * nd], *w = &k->Z[6 * nd + 3];
        double t1[3], t2[3];
        mbs_v3_cross(D + 3, r, t1);
        mbs_v3_cross(w, vv, t2);
        for (int c = 0; c < 3; ++c)
            a_bias[c] = D[c] + t1[c] + t2[c];
    }
}

void mbs_kin_vector_motion(const MbsModel *m, const MbsKinematics *k, int body,
                           const double u[3], double ud[3], double udd_bias[3])
{
    int nd = m->topo->body_node[body];
    if (nd < 0) {
        ud[0] = ud[1] = ud[2] = 0.0;
        if (udd_bias)
            udd_bias[0] = udd_bias[1] = udd_bias[2] = 0.0;
        return;
    }
    const double *w = &k->Z[6 * nd + 3], *Dw = &k->D[6 * nd + 3];
    mbs_v3_cross(w, u, ud);
    if (udd_bias) {
        double t1[3], t2[3];
        mbs_v3_cross(Dw, u, t1);
        mbs_v3_cross(w, ud, t2);
        mbs_v3_add(t1, t2, udd_bias);
    }
}

void mbs_kin_body_omega(const MbsModel *m, const MbsKinematics *k, int body, double w[3])
{
    int nd = m->topo->body_node[body];
    if (nd < 0)
        w[0] = w[1] = w[2] = 0.0;
    else
        memcpy(w, &k->Z[6 * nd + 3], 3 * sizeof(double));
}
