/* The generalized forces Q(z, zd) of the semi-recursive formulation (paper 000 eqs 6-13),
 * written once over a scalar type and compiled twice like mbs_kinematics_kernel.h: over double
 * by mbs_dynamics.c (mbs_dynamics.h) and over dual numbers by mbs_dual.c (mbs_dual.h). No include
 * guard: besides the kinematics kernel's MBS_S, MBS_K, MBS_KIN the includer defines
 *
 *   MBS_DYN              the dynamics workspace over MBS_S (fields n, Wacc)
 *   MBS_FORCE_IN, MBS_FORCE_OUT  MbsForceInput/Output over MBS_S
 *   MBS_FORCE_EVALUATE   the force class's law over MBS_S (evaluate or evaluate_dual)
 *
 * and includes the kinematics kernel first (its point queries are used here).
 */
#include <string.h>

#include "mbs_force.h"
#include "mbs_scalar.h"

/* Current centre of mass g and inertia J = R J0 R^T of a body carried by node nd. */
static void MBS_K(body_inertia)(const MbsBody *B, const MBS_KIN *k, int nd, MBS_S g[3],
                                MBS_S J[9])
{
    const MBS_S *R = &k->R[9 * nd];
    MBS_S tmp[9];
    MBS_M3_MULV_C(R, B->com, g);
    MBS_V3_ADD(g, &k->p[3 * nd], g);
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) /* J0 R^T */
            tmp[3 * i + j] = MBS_ADD(MBS_ADD(MBS_SCALE(B->inertia[3 * i], R[3 * j]),
                                             MBS_SCALE(B->inertia[3 * i + 1], R[3 * j + 1])),
                                     MBS_SCALE(B->inertia[3 * i + 2], R[3 * j + 2]));
    MBS_M3_MUL(R, tmp, J);
}

/* Add a force f applied at point r of body to the node wrench about the origin. */
static void MBS_K(add_point_force)(const MbsModel *m, MBS_DYN *d, int body, const MBS_S r[3],
                                   const MBS_S f[3])
{
    int nd = m->topo->body_node[body];
    if (nd < 0)
        return;
    MBS_S *W = &d->Wacc[6 * nd], mo[3];
    MBS_V3_CROSS(r, f, mo);
    MBS_V3_ADD(W, f, W);
    MBS_V3_ADD(W + 3, mo, W + 3);
}

static void MBS_K(add_torque)(const MbsModel *m, MBS_DYN *d, int body, const MBS_S n[3])
{
    int nd = m->topo->body_node[body];
    if (nd >= 0)
        MBS_V3_ADD(&d->Wacc[6 * nd + 3], n, &d->Wacc[6 * nd + 3]);
}

/* What force element F's law reads (mbs_dynamics.h). */
int MBS_K(mbs_dynamics_force_input)(const MbsModel *m, const MBS_KIN *k, const MBS_S *z,
                                    const MBS_S *zd, const MbsForce *F, MBS_FORCE_IN *in,
                                    MBS_S at[2][3], MBS_S dir[3])
{
    const MbsForceClass *c = mbs_force_class(F->type);
    MBS_S r[2][3], v1[3], v2[3], e[3], dv[3];
    memset(in, 0, sizeof *in);
    switch (c->geometry) {
    case MBS_FORCE_ON_LINE: {
        MBS_K(mbs_kin_point)(m, k, F->body1, F->point1, r[0]);
        MBS_K(mbs_kin_point)(m, k, F->body2, F->point2, r[1]);
        MBS_K(mbs_kin_point_velocity)(m, k, F->body1, r[0], v1);
        MBS_K(mbs_kin_point_velocity)(m, k, F->body2, r[1], v2);
        MBS_V3_SUB(r[1], r[0], e);
        MBS_S l = MBS_V3_NORM(e);
        in->value = l;
        if (at)
            memcpy(at, r, sizeof r);
        if (MBS_VALUE(l) < 1e-12)
            return 0; /* direction undefined: no force */
        for (int i = 0; i < 3; ++i)
            e[i] = MBS_DIV(e[i], l);
        MBS_V3_SUB(v2, v1, dv);
        in->rate = MBS_V3_DOT(dv, e);
        if (dir)
            memcpy(dir, e, sizeof e);
        return 1;
    }
    case MBS_FORCE_ON_JOINT: {
        int nd = m->topo->joint_node[F->joint];
        if (nd < 0)
            return 0;
        in->value = z[nd];
        in->rate = zd[nd];
        return 1;
    }
    case MBS_FORCE_AT_POINT:
        MBS_K(mbs_kin_point)(m, k, F->body1, F->point1, r[0]);
        MBS_K(mbs_kin_point_velocity)(m, k, F->body1, r[0], in->v);
        memcpy(in->r, r[0], sizeof r[0]);
        if (at)
            memcpy(at[0], r[0], sizeof r[0]);
        return 1;
    case MBS_FORCE_ON_BODY:
        MBS_K(mbs_kin_body_omega)(m, k, F->body1, in->omega);
        return 1;
    case MBS_FORCE_ON_WHEEL: {
        int nd = m->topo->body_node[F->body1];
        if (nd < 0)
            return 0; /* a wheel of the ground does not roll */
        MBS_K(mbs_kin_point)(m, k, F->body1, F->point1, r[0]);
        MBS_K(mbs_kin_point_velocity)(m, k, F->body1, r[0], in->v);
        memcpy(in->r, r[0], sizeof r[0]);
        MBS_K(mbs_kin_body_omega)(m, k, F->body1, in->omega);
        MBS_M3_MULV_C(&k->R[9 * nd], F->axis, in->axis); /* the drawn axis turned */
        in->road = m->road;
        if (at)
            memcpy(at[0], r[0], sizeof r[0]);
        return 1;
    }
    case MBS_FORCE_CONTROL: {
        int jn = m->topo->joint_node[F->joint], nd = m->topo->body_node[F->body1];
        if (jn < 0 || nd < 0)
            return 0; /* compile keeps the joint in the tree and refuses a ground reader */
        in->value = z[jn];
        in->rate = zd[jn];
        MBS_K(mbs_kin_point)(m, k, F->body1, F->point1, r[0]);
        MBS_K(mbs_kin_point_velocity)(m, k, F->body1, r[0], in->v);
        memcpy(in->r, r[0], sizeof r[0]);
        MBS_K(mbs_kin_body_omega)(m, k, F->body1, in->omega);
        MBS_M3_MULV_C(&k->R[9 * nd], F->axis, in->axis); /* the drawn forward axis turned */
        in->path = m->path;
        in->time = k->clock ? *k->clock : 0.0;
        return 1;
    }
    }
    return 0;
}

/* Force element F on the node wrenches (points and bodies; joint forces go to Q directly). */
static void MBS_K(add_element)(const MbsModel *m, const MBS_KIN *k, MBS_DYN *d, const MBS_S *z,
                               const MBS_S *zd, const MbsForce *F)
{
    const MbsForceClass *c = mbs_force_class(F->type);
    MBS_FORCE_IN in;
    MBS_FORCE_OUT out;
    MBS_S at[2][3], e[3];
    if (c->geometry == MBS_FORCE_ON_JOINT || c->geometry == MBS_FORCE_CONTROL ||
        !MBS_K(mbs_dynamics_force_input)(m, k, z, zd, F, &in, at, e))
        return;
    MBS_FORCE_EVALUATE(c)(F, &in, &out);
    switch (c->geometry) {
    case MBS_FORCE_ON_LINE: {
        MBS_S f1[3], f2[3], minus_tension = MBS_NEG(out.tension);
        for (int i = 0; i < 3; ++i) {
            f2[i] = MBS_MUL(minus_tension, e[i]);
            f1[i] = MBS_NEG(f2[i]);
        }
        MBS_K(add_point_force)(m, d, F->body1, at[0], f1);
        MBS_K(add_point_force)(m, d, F->body2, at[1], f2);
        break;
    }
    case MBS_FORCE_AT_POINT:
        MBS_K(add_point_force)(m, d, F->body1, at[0], out.vector);
        break;
    case MBS_FORCE_ON_BODY:
        MBS_K(add_torque)(m, d, F->body1, out.vector);
        break;
    case MBS_FORCE_ON_WHEEL:
        MBS_K(add_point_force)(m, d, F->body1, at[0], out.vector);
        MBS_K(add_torque)(m, d, F->body1, out.torque);
        break;
    case MBS_FORCE_ON_JOINT:
    case MBS_FORCE_CONTROL:
        break;
    }
}

/* Q (n) from positions and velocities in k, at coordinates z, zd (for joint forces), of the
 * bodies with bodies[b] and the force elements with forces[f] set (NULL: every one). */
static void MBS_K(forces_of)(const MbsModel *m, const MBS_KIN *k, MBS_DYN *d, const MBS_S *z,
                             const MBS_S *zd, const unsigned char *bodies,
                             const unsigned char *forces, MBS_S *Q)
{
    const MbsTopology *t = m->topo;
    int n = t->nnodes;
    memset(d->Wacc, 0, sizeof(MBS_S) * 6 * (size_t)(n > 0 ? n : 1));
    /* Body terms: gravity, velocity-dependent inertia forces and -Mbar D. */
    for (int i = 0; i < n; ++i) {
        int b = t->nodes[i].body;
        if (b < 0 || (bodies && !bodies[b]))
            continue;
        const MbsBody *B = &m->bodies[b];
        const MBS_S *Z = &k->Z[6 * i], *D = &k->D[6 * i], *w = Z + 3;
        MBS_S g[3], J[9], vg[3], ab[3], tmp[3], F[3], Jw[3], wJw[3], JD[3], mo[3];
        MBS_K(body_inertia)(B, k, i, g, J);
        MBS_V3_CROSS(w, g, tmp);
        MBS_V3_ADD(Z, tmp, vg);            /* velocity of the centre of mass */
        MBS_V3_CROSS(D + 3, g, tmp);
        MBS_V3_ADD(D, tmp, ab);            /* its acceleration part from D */
        MBS_V3_CROSS(w, vg, tmp);          /* w x vg */
        for (int c = 0; c < 3; ++c)
            F[c] = MBS_SCALE(B->mass, MBS_SUB(MBS_CSUB(m->gravity[c], tmp[c]), ab[c]));
        MBS_M3_MULV(J, w, Jw);
        MBS_V3_CROSS(w, Jw, wJw);
        MBS_M3_MULV(J, D + 3, JD);
        MBS_V3_CROSS(g, F, mo);
        MBS_S *W = &d->Wacc[6 * i];
        for (int c = 0; c < 3; ++c) {
            W[c] = MBS_ADD(W[c], F[c]);
            W[3 + c] = MBS_ADD(W[3 + c], MBS_SUB(MBS_SUB(mo[c], wJw[c]), JD[c]));
        }
    }
    for (int f = 0; f < m->nforces; ++f)
        if (!forces || forces[f])
            MBS_K(add_element)(m, k, d, z, zd, &m->forces[f]);
    for (int i = 0; i < n; ++i) {
        int par = t->nodes[i].parent;
        const MBS_S *W = &d->Wacc[6 * i], *b = &k->b[6 * i];
        MBS_S q = MBS_LIKE(W[0], 0.0);
        for (int c = 0; c < 6; ++c)
            q = MBS_ADD(q, MBS_MUL(b[c], W[c]));
        Q[i] = q;
        if (par >= 0)
            for (int c = 0; c < 6; ++c)
                d->Wacc[6 * par + c] = MBS_ADD(d->Wacc[6 * par + c], W[c]);
    }
    /* Joint-level forces (spring-dampers and drivers on tree coordinates) act on Q directly. */
    for (int f = 0; f < m->nforces; ++f) {
        const MbsForce *F = &m->forces[f];
        const MbsForceClass *c = mbs_force_class(F->type);
        MBS_FORCE_IN in;
        MBS_FORCE_OUT out;
        if ((c->geometry != MBS_FORCE_ON_JOINT && c->geometry != MBS_FORCE_CONTROL) ||
            (forces && !forces[f]) ||
            !MBS_K(mbs_dynamics_force_input)(m, k, z, zd, F, &in, NULL, NULL))
            continue;
        MBS_FORCE_EVALUATE(c)(F, &in, &out);
        Q[t->joint_node[F->joint]] = MBS_ADD(Q[t->joint_node[F->joint]], out.generalized);
    }
}

void MBS_K(mbs_dynamics_forces)(const MbsModel *m, const MBS_KIN *k, MBS_DYN *d, const MBS_S *z,
                                const MBS_S *zd, MBS_S *Q)
{
    MBS_K(forces_of)(m, k, d, z, zd, NULL, NULL, Q);
}
