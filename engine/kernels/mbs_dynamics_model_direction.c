/* The derivative of the semi-recursive forces Q - M zdd along a direction of the model's drawn
 * data (mbs_dynamics_derivatives.h): what a parameter of the geometry changes at fixed
 * coordinates, for matrix-r's F_rho (paper 001 eqs 55-61) without models rebuilt with
 * rho +- delta.
 *
 * Body k, as mbs_dynamics_forces writes it (g its centre of mass, J its inertia, Z = [v; w] and
 * D its velocity and whole acceleration twists about the origin, gravity a):
 *   F = m (a - w x vg - ab),  vg = v + w x g,  ab = D_v + D_w x g,
 *   W_k = [F; g x F - w x J w - J D_w],  g = R com + p,  J = R I R^T.
 * The direction moves no body's orientation (dR = 0): dg = R dcom + T_v, dJ = R dI R^T, and dZ,
 * dD come from the direction's motion (their angular parts stay 0); the products follow by the
 * product rule. A line element
 * (tsda) between r1 and r2 pulls with its tension t(l, l') along u = (r2 - r1) / l: dl = u . dd,
 * du = (dd - u dl) / l, dl' = ddv . u + dv . du; a point law with its d vector/d(r, v). Then
 * Q_j = b_j . W_j (subtree sums) gives dQ_j = db_j . W_j + b_j . dW_j.
 */
#include <string.h>

#include "mbs_dynamics_derivatives.h"
#include "mbs_force.h"
#include "mbs_linalg.h"
#include "mbs_topology.h"

/* out = R X R^T x, the product of a drawn inertia turned to the current axes */
static void turned_inertia_times(const double *R, const double *X, const double x[3],
                                 double out[3])
{
    double a[3], b[3];
    for (int i = 0; i < 3; ++i) /* a = R^T x */
        a[i] = R[i] * x[0] + R[3 + i] * x[1] + R[6 + i] * x[2];
    mbs_m3_mulv(X, a, b);
    mbs_m3_mulv(R, b, out);
}

/* The derivative of body k's wrench. No body turns along a model direction (T_w = 0, so
 * dZ_w = dD_w = 0: mbs_constraints_derivatives_model_direction), which leaves of the product
 * rule dvg = dZ_v + w x dg, dab = dD_v + D_w x dg, d(w x J w) = w x dJ w, d(J D_w) = dJ D_w. */
static void add_body(const MbsModel *m, const MbsKinematics *k, const double *A,
                     const double *T, const double *dZ, const double *dD,
                     const MbsModelDirection *dir, int i, double *dW)
{
    int b = m->topo->nodes[i].body;
    const MbsBody *B = &m->bodies[b];
    const double *R = &k->R[9 * i], *Z = &k->Z[6 * i], *D = &A[6 * i], *om = Z + 3;
    const double *dI = dir->inertia + 9 * b;
    double mass = B->mass, dmass = dir->mass[b];
    double g[3], dg[3], t1[3], t2[3];
    mbs_m3_mulv(R, B->com, g);
    mbs_v3_add(g, &k->p[3 * i], g);
    mbs_m3_mulv(R, dir->com + 3 * b, dg);
    mbs_v3_add(dg, T, dg);
    double vg[3], dvg[3], ab[3], dab[3];
    mbs_v3_cross(om, g, t1); /* vg = v + w x g */
    mbs_v3_add(Z, t1, vg);
    mbs_v3_cross(om, dg, t2);
    mbs_v3_add(dZ, t2, dvg);
    mbs_v3_cross(D + 3, g, t1); /* ab = D_v + D_w x g */
    mbs_v3_add(D, t1, ab);
    mbs_v3_cross(D + 3, dg, t2);
    mbs_v3_add(dD, t2, dab);
    double wvg[3], dwvg[3], F[3], dF[3];
    mbs_v3_cross(om, vg, wvg);
    mbs_v3_cross(om, dvg, dwvg);
    for (int c = 0; c < 3; ++c) {
        double a = m->gravity[c] - wvg[c] - ab[c];
        F[c] = mass * a;
        dF[c] = dmass * a - mass * (dwvg[c] + dab[c]);
    }
    double dmo[3], dn[3] = {0, 0, 0};
    int turns_inertia = 0;
    for (int c = 0; c < 9; ++c)
        turns_inertia |= dI[c] != 0.0;
    if (turns_inertia) { /* dn = -(w x dJ w + dJ D_w) */
        double dJw[3], dJD[3];
        turned_inertia_times(R, dI, om, dJw);
        mbs_v3_cross(om, dJw, t1);
        turned_inertia_times(R, dI, D + 3, dJD);
        for (int c = 0; c < 3; ++c)
            dn[c] = -(t1[c] + dJD[c]);
    }
    mbs_v3_cross(dg, F, t1); /* d(g x F) = dg x F + g x dF */
    mbs_v3_cross(g, dF, t2);
    mbs_v3_add(t1, t2, dmo);
    for (int c = 0; c < 3; ++c) {
        dW[6 * i + c] += dF[c];
        dW[6 * i + 3 + c] += dmo[c] + dn[c];
    }
}

/* The derivative df of a force f at a point (r, dr) on the node of body. */
static void add_point_force(const MbsModel *m, int body, const double r[3], const double dr[3],
                            const double f[3], const double df[3], double *dW)
{
    int nd = m->topo->body_node[body];
    if (nd < 0)
        return;
    double t1[3], t2[3];
    mbs_v3_cross(dr, f, t1);
    mbs_v3_cross(r, df, t2);
    for (int c = 0; c < 3; ++c) {
        dW[6 * nd + c] += df[c];
        dW[6 * nd + 3 + c] += t1[c] + t2[c];
    }
}

static void add_element(const MbsModel *m, const MbsKinematics *k,
                        const MbsConstraintsDerivatives *w, const MbsModelDirection *dir, int f,
                        double *dW)
{
    const MbsForce *F = &m->forces[f];
    const MbsForceClass *c = mbs_force_class(F->type);
    const double *dx = dir->force_points + 6 * f;
    MbsForceInput in;
    MbsForceOutput out;
    MbsForceDerivative der;
    memset(&in, 0, sizeof in);
    memset(&der, 0, sizeof der);
    if (c->geometry == MBS_FORCE_ON_LINE) {
        MbsPointDerivatives p1, p2;
        /* positions and velocities (no accelerations: A = NULL) */
        mbs_constraints_derivatives_point(m, k, w, NULL, F->body1, F->point1, dx, &p1);
        mbs_constraints_derivatives_point(m, k, w, NULL, F->body2, F->point2, dx + 3, &p2);
        double e[3], de[3], v[3], dv[3], u[3], du[3];
        mbs_v3_sub(p2.r, p1.r, e);
        mbs_v3_sub(p2.dr, p1.dr, de);
        mbs_v3_sub(p2.v, p1.v, v);
        mbs_v3_sub(p2.dv, p1.dv, dv);
        double l = mbs_v3_norm(e);
        if (l < 1e-12)
            return; /* as mbs_dynamics_forces: no direction, no force */
        for (int j = 0; j < 3; ++j)
            u[j] = e[j] / l;
        double dl = mbs_v3_dot(u, de);
        for (int j = 0; j < 3; ++j)
            du[j] = (de[j] - u[j] * dl) / l;
        in.value = l;
        in.rate = mbs_v3_dot(v, u);
        double drate = mbs_v3_dot(dv, u) + mbs_v3_dot(v, du);
        c->evaluate(F, &in, &out);
        c->derivative(F, &in, &der);
        double t = out.tension, dt = der.d_value * dl + der.d_rate * drate;
        double f2[3], df2[3], f1[3], df1[3];
        for (int j = 0; j < 3; ++j) {
            f2[j] = -t * u[j];
            df2[j] = -(dt * u[j] + t * du[j]);
            f1[j] = -f2[j];
            df1[j] = -df2[j];
        }
        add_point_force(m, F->body1, p1.r, p1.dr, f1, df1, dW);
        add_point_force(m, F->body2, p2.r, p2.dr, f2, df2, dW);
    } else if (c->geometry == MBS_FORCE_AT_POINT) {
        MbsPointDerivatives p;
        mbs_constraints_derivatives_point(m, k, w, NULL, F->body1, F->point1, dx, &p);
        memcpy(in.r, p.r, sizeof in.r);
        memcpy(in.v, p.v, sizeof in.v);
        c->evaluate(F, &in, &out);
        c->derivative(F, &in, &der);
        double dvec[3];
        for (int a = 0; a < 3; ++a) {
            dvec[a] = 0.0;
            for (int b = 0; b < 3; ++b)
                dvec[a] += der.d_vector_r[a][b] * p.dr[b] + der.d_vector_v[a][b] * p.dv[b];
        }
        add_point_force(m, F->body1, p.r, p.dr, out.vector, dvec, dW);
    } else if (c->geometry == MBS_FORCE_ON_WHEEL) {
        /* The centre moves with the direction; no body turns (the axis and the angular
         * velocity stay), so the wrench changes through r and v only. */
        MbsPointDerivatives p;
        if (!mbs_dynamics_force_input(m, k, NULL, NULL, F, &in, NULL, NULL))
            return;
        mbs_constraints_derivatives_point(m, k, w, NULL, F->body1, F->point1, dx, &p);
        memcpy(in.r, p.r, sizeof in.r);
        memcpy(in.v, p.v, sizeof in.v);
        c->evaluate(F, &in, &out);
        c->derivative(F, &in, &der);
        double dvec[3], dtor[3];
        for (int a = 0; a < 3; ++a) {
            dvec[a] = dtor[a] = 0.0;
            for (int b = 0; b < 3; ++b) {
                dvec[a] += der.d_vector_r[a][b] * p.dr[b] + der.d_vector_v[a][b] * p.dv[b];
                dtor[a] += der.d_torque_r[a][b] * p.dr[b] + der.d_torque_v[a][b] * p.dv[b];
            }
        }
        add_point_force(m, F->body1, p.r, p.dr, out.vector, dvec, dW);
        int nd = m->topo->body_node[F->body1];
        for (int a = 0; nd >= 0 && a < 3; ++a)
            dW[6 * nd + 3 + a] += dtor[a];
    }
    /* a torque on a body is constant (no body law reads omega), and a joint law acts on Q
     * directly at the fixed z, zd: no change (a driver reads a point: control_element) */
}

/* A driver (control) reads point1 of its chassis: its Q on the joint's coordinate moves with
 * that point's position and velocity (no body turns along a model direction: its axis and
 * angular velocity stay). */
static void control_element(const MbsModel *m, const MbsKinematics *k, const double *z,
                            const double *zd, const MbsConstraintsDerivatives *w,
                            const MbsModelDirection *dir, int f, double *dQ)
{
    const MbsForce *F = &m->forces[f];
    const MbsForceClass *c = mbs_force_class(F->type);
    MbsForceInput in;
    MbsForceDerivative der;
    MbsPointDerivatives p;
    if (c->geometry != MBS_FORCE_CONTROL ||
        !mbs_dynamics_force_input(m, k, z, zd, F, &in, NULL, NULL))
        return;
    mbs_constraints_derivatives_point(m, k, w, NULL, F->body1, F->point1,
                                      dir->force_points + 6 * f, &p);
    c->derivative(F, &in, &der);
    dQ[m->topo->joint_node[F->joint]] += mbs_v3_dot(der.d_gen_r, p.dr) +
                                         mbs_v3_dot(der.d_gen_v, p.dv);
}

void mbs_dynamics_forces_model_derivative(const MbsModel *m, const MbsKinematics *k,
                                          const double *A, const double *z, const double *zd,
                                          const double *W,
                                          const MbsConstraintsDerivatives *w,
                                          const MbsModelDirection *dir, double *dW, double *dQ)
{
    const MbsTopology *t = m->topo;
    int n = t->nnodes;
    memset(dW, 0, sizeof(double) * 6 * (size_t)(n > 0 ? n : 1));
    for (int i = 0; i < n; ++i)
        if (t->nodes[i].body >= 0)
            add_body(m, k, A, &w->T[6 * i], &w->dZv[6 * i], &w->dD[6 * i], dir, i, dW);
    for (int f = 0; f < m->nforces; ++f)
        add_element(m, k, w, dir, f, dW);
    for (int j = 0; j < n; ++j) { /* children before parents */
        int par = t->nodes[j].parent;
        const double *b = &k->b[6 * j];
        double db[6], v = 0.0;
        mbs_constraints_derivatives_node_db(m, k, w, j, db);
        for (int c = 0; c < 6; ++c)
            v += db[c] * W[6 * j + c] + b[c] * dW[6 * j + c];
        dQ[j] = v;
        if (par >= 0)
            for (int c = 0; c < 6; ++c)
                dW[6 * par + c] += dW[6 * j + c];
    }
    for (int f = 0; f < m->nforces; ++f) /* a driver's point on its chassis moves */
        control_element(m, k, z, zd, w, dir, f, dQ);
}

/* dQ += the projection of the node wrenches' derivatives dW (subtree sums formed here), b fixed */
static void project(const MbsTopology *t, const MbsKinematics *k, double *dW, double *dQ)
{
    for (int j = 0; j < t->nnodes; ++j) { /* children before parents */
        int par = t->nodes[j].parent;
        const double *b = &k->b[6 * j];
        double v = 0.0;
        for (int c = 0; c < 6; ++c)
            v += b[c] * dW[6 * j + c];
        dQ[j] += v;
        if (par >= 0)
            for (int c = 0; c < 6; ++c)
                dW[6 * par + c] += dW[6 * j + c];
    }
}

void mbs_dynamics_forces_parameter_derivative(const MbsModel *m, const MbsKinematics *k,
                                              const double *A, const double *z, const double *zd,
                                              const MbsModelDirection *dir,
                                              const MbsModel *plus, const MbsModel *minus,
                                              double delta, const unsigned char *forces,
                                              double *dW, double *dQ)
{
    static const double still[6] = {0, 0, 0, 0, 0, 0};
    const MbsTopology *t = m->topo;
    int n = t->nnodes;
    memset(dW, 0, sizeof(double) * 6 * (size_t)(n > 0 ? n : 1));
    memset(dQ, 0, sizeof(double) * (size_t)(n > 0 ? n : 1));
    for (int i = 0; dir && i < n; ++i) { /* the bodies reweighted, the motion still */
        int b = t->nodes[i].body, moved = 0;
        for (int c = 0; b >= 0 && c < 9 && !moved; ++c)
            moved = dir->inertia[9 * b + c] != 0.0 || (c < 3 && dir->com[3 * b + c] != 0.0);
        if (b >= 0 && (moved || dir->mass[b] != 0.0))
            add_body(m, k, A, still, still, still, dir, i, dW);
    }
    double c2 = 1.0 / (2.0 * delta);
    for (int f = 0; forces && f < m->nforces; ++f) { /* a law's numbers, its geometry still */
        if (!forces[f])
            continue;
        const MbsForce *F = &m->forces[f];
        const MbsForceClass *c = mbs_force_class(F->type);
        MbsForceInput in;
        MbsForceOutput op, om;
        double at[2][3], e[3];
        if (!mbs_dynamics_force_input(m, k, z, zd, F, &in, at, e))
            continue;
        c->evaluate(&plus->forces[f], &in, &op);
        c->evaluate(&minus->forces[f], &in, &om);
        if (c->geometry == MBS_FORCE_ON_JOINT || c->geometry == MBS_FORCE_CONTROL) {
            dQ[t->joint_node[F->joint]] += c2 * (op.generalized - om.generalized);
        } else if (c->geometry == MBS_FORCE_ON_LINE) {
            double dt = c2 * (op.tension - om.tension), df2[3], df1[3];
            for (int j = 0; j < 3; ++j) {
                df2[j] = -dt * e[j];
                df1[j] = -df2[j];
            }
            add_point_force(m, F->body1, at[0], still, still, df1, dW);
            add_point_force(m, F->body2, at[1], still, still, df2, dW);
        } else if (c->geometry == MBS_FORCE_AT_POINT || c->geometry == MBS_FORCE_ON_WHEEL) {
            double dv[3];
            for (int j = 0; j < 3; ++j)
                dv[j] = c2 * (op.vector[j] - om.vector[j]);
            add_point_force(m, F->body1, at[0], still, still, dv, dW);
            int nd = t->body_node[F->body1];
            for (int j = 0; nd >= 0 && c->geometry == MBS_FORCE_ON_WHEEL && j < 3; ++j)
                dW[6 * nd + 3 + j] += c2 * (op.torque[j] - om.torque[j]);
        } else { /* a torque on a body */
            int nd = t->body_node[F->body1];
            for (int j = 0; nd >= 0 && j < 3; ++j)
                dW[6 * nd + 3 + j] += c2 * (op.vector[j] - om.vector[j]);
        }
    }
    project(t, k, dW, dQ);
}
