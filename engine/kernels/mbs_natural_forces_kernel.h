/* The generalized forces of gravity and the force elements in natural coordinates (paper 004's
 * Q for ali3p and ssode), written once over a scalar type and compiled twice (docs/architecture.md
 * § Automatic differentiation): over double by mbs_natural.c (mbs_natural_forces, with the
 * energies) and over dual numbers by mbs_natural_dual.c (mbs_natural_forces_dual, for ali3p's
 * tangent methods ad and ad-sparse). No include guard: the includer defines
 *
 *   MBS_S                 the scalar type (double or MbsDual)
 *   MBS_K(name)           the name of a function of this instance
 *   MBS_FORCE_IN, MBS_FORCE_OUT, MBS_FORCE_EVALUATE(c)   the law's input, output and function
 *   MBS_NAT_ACCOUNT(c, F, in, e)   adds an element's energy and power to e (double instance;
 *                                  nothing in the dual one, whose e is always NULL)
 *   MBS_NAT_BODY_ENERGY(nat, b, q, qd, e)   adds body b's kinetic and gravity energy to e (the
 *                                  same)
 *
 * Every operation on MBS_S goes through mbs_scalar.h, whose double versions are the plain
 * operators in the order the hand-written code had. The linear expressions MbsNatLin (x = A q + c,
 * mbs_natural.h) have constant coefficients: a coefficient that is zero is skipped (a product by
 * zero adds nothing, and in the dual instance it carries no derivative either).
 */
#include <math.h>
#include <string.h>

#include "mbs_force.h"
#include "mbs_natural.h"
#include "mbs_scalar.h"

/* x = A q + c (the rate of a point or vector is A qd: c = 0) */
static void MBS_K(natlin_combine)(const MbsNatLin *L, const MBS_S *q, const double c[3],
                                  MBS_S x[3])
{
    for (int d = 0; d < 3; ++d)
        x[d] = MBS_LIKE(q[0], c[d]);
    for (int t = 0; t < L->nt; ++t)
        for (int k = 0; k < 4; ++k) {
            double s = L->w[t][k];
            if (s != 0.0)
                for (int d = 0; d < 3; ++d)
                    x[d] = MBS_ADD(x[d], MBS_SCALE(s, q[L->off[t] + 3 * k + d]));
        }
}

static void MBS_K(natlin_eval)(const MbsNatLin *L, const MBS_S *q, MBS_S x[3])
{
    MBS_K(natlin_combine)(L, q, L->c, x);
}

static void MBS_K(natlin_rate)(const MbsNatLin *L, const MBS_S *qd, MBS_S v[3])
{
    static const double zero[3] = {0.0, 0.0, 0.0};
    MBS_K(natlin_combine)(L, qd, zero, v);
}

/* g += s A^T f */
static void MBS_K(natlin_add_transpose)(const MbsNatLin *L, MBS_S s, const MBS_S f[3],
                                        MBS_S *g)
{
    for (int t = 0; t < L->nt; ++t)
        for (int k = 0; k < 4; ++k) {
            double w = L->w[t][k];
            if (w == 0.0)
                continue;
            MBS_S c = MBS_SCALE(w, s);
            for (int d = 0; d < 3; ++d) {
                MBS_S *gi = &g[L->off[t] + 3 * k + d];
                *gi = MBS_ADD(*gi, MBS_MUL(c, f[d]));
            }
        }
}

/* a . b over n values */
static MBS_S MBS_K(dot)(int n, const MBS_S *a, const MBS_S *b)
{
    MBS_S s = MBS_LIKE(a[0], 0.0);
    for (int i = 0; i < n; ++i)
        s = MBS_ADD(s, MBS_MUL(a[i], b[i]));
    return s;
}

/* A revolute's angle or a prismatic's slide at q (mbs_natural.h: revolute sin theta = w2.w1',
 * cos theta = w1.w1', unwrapped next to ref; prismatic (x2 - x1).a1) and, unless grad is NULL,
 * its gradient dtheta/dq into grad (n values). */
MBS_S MBS_K(mbs_natural_joint_coordinate)(const MbsNatural *nat, const MBS_S *q, int joint,
                                          double ref, MBS_S *grad)
{
    const MbsJoint *J = &nat->model->joints[joint];
    for (int i = 0; grad && i < nat->n; ++i)
        grad[i] = MBS_LIKE(q[0], 0.0);
    MBS_S one = MBS_LIKE(q[0], 1.0);
    if (J->type == MBS_JOINT_PRISMATIC) {
        MbsNatLin x1, x2, d, a1;
        MBS_S dv[3], av[3];
        mbs_natural_point_lin(nat, J->body1, J->point1, &x1);
        mbs_natural_point_lin(nat, J->body2, J->point2, &x2);
        mbs_natlin_sub(&x2, &x1, &d);
        mbs_natural_vector_lin(nat, J->body1, J->axis1, &a1);
        MBS_K(natlin_eval)(&d, q, dv);
        MBS_K(natlin_eval)(&a1, q, av);
        if (grad) {
            MBS_K(natlin_add_transpose)(&d, one, av, grad);
            MBS_K(natlin_add_transpose)(&a1, one, dv, grad);
        }
        return MBS_V3_DOT(dv, av);
    }
    if (J->type != MBS_JOINT_REVOLUTE)
        return MBS_LIKE(q[0], 0.0);
    double w1[3], w2[3];
    mbs_v3_basis(J->axis1, w1, w2);
    MbsNatLin A, A2, B;
    mbs_natural_vector_lin(nat, J->body1, w2, &A);
    mbs_natural_vector_lin(nat, J->body1, w1, &A2);
    mbs_natural_vector_lin(nat, J->body2, w1, &B);
    MBS_S a[3], a2[3], b[3];
    MBS_K(natlin_eval)(&A, q, a);
    MBS_K(natlin_eval)(&A2, q, a2);
    MBS_K(natlin_eval)(&B, q, b);
    MBS_S s = MBS_V3_DOT(a, b), co = MBS_V3_DOT(a2, b);
    MBS_S th = MBS_ATAN2(s, co);
    double k = round((ref - MBS_VALUE(th)) / (2.0 * M_PI));
    th = MBS_ADDC(th, 2.0 * M_PI * k);
    if (!grad)
        return th;
    MBS_S r2 = MBS_ADD(MBS_MUL(s, s), MBS_MUL(co, co));
    if (MBS_VALUE(r2) > 1e-300) {
        /* dtheta = (co ds - s dco) / r2 */
        MBS_S cr = MBS_DIV(co, r2), sr = MBS_NEG(MBS_DIV(s, r2));
        MBS_K(natlin_add_transpose)(&A, cr, b, grad);
        MBS_K(natlin_add_transpose)(&B, cr, a, grad);
        MBS_K(natlin_add_transpose)(&A2, sr, b, grad);
        MBS_K(natlin_add_transpose)(&B, sr, a2, grad);
    }
    return th;
}

/* Force element F (mbs_force.h): its geometry's kinematics from q, qd, its law's output as
 * generalized forces added to Q, its energy and power to e (MBS_NAT_ACCOUNT). */
/* A body's angular velocity from its unit vectors e_k (coordinates off + 3 ..): omega =
 * sum_k e_k x de_k / 2 (valid for orthonormal e_k). */
static void MBS_K(body_omega)(const MBS_S *q, const MBS_S *qd, int off, MBS_S omega[3])
{
    for (int d = 0; d < 3; ++d)
        omega[d] = MBS_LIKE(q[0], 0.0);
    for (int k = 0; k < 3; ++k) {
        MBS_S w[3];
        MBS_V3_CROSS(&q[off + 3 + 3 * k], &qd[off + 3 + 3 * k], w);
        for (int d = 0; d < 3; ++d)
            omega[d] = MBS_ADD(omega[d], MBS_SCALE(0.5, w[d]));
    }
}

/* A torque T on that body: virtual work T.dtheta with de_k = dtheta x e_k, so
 * Q_{e_k} += (T x e_k) / 2. */
static void MBS_K(add_body_torque)(const MBS_S *q, int off, const MBS_S T[3], MBS_S *Q)
{
    for (int k = 0; k < 3; ++k) {
        MBS_S g[3];
        MBS_V3_CROSS(T, &q[off + 3 + 3 * k], g);
        for (int d = 0; d < 3; ++d) {
            MBS_S *Qi = &Q[off + 3 + 3 * k + d];
            *Qi = MBS_ADD(*Qi, MBS_SCALE(0.5, g[d]));
        }
    }
}

static void MBS_K(add_element)(const MbsNatural *nat, const MbsForce *F, const MBS_S *q,
                               const MBS_S *qd, const double *angle_ref, MBS_S *grad, MBS_S *Q,
                               MbsNatEnergy *e)
{
    const MbsForceClass *c = mbs_force_class(F->type);
    int n = nat->n;
    MBS_FORCE_IN in;
    MBS_FORCE_OUT out;
    memset(&in, 0, sizeof in);
    (void)e;
    switch (c->geometry) {
    case MBS_FORCE_ON_LINE: {
        MbsNatLin x1, x2, dl;
        mbs_natural_point_lin(nat, F->body1, F->point1, &x1);
        mbs_natural_point_lin(nat, F->body2, F->point2, &x2);
        mbs_natlin_sub(&x2, &x1, &dl);
        MBS_S d[3], dd[3];
        MBS_K(natlin_eval)(&dl, q, d);
        MBS_K(natlin_rate)(&dl, qd, dd);
        MBS_S l = MBS_V3_NORM(d);
        in.value = l;
        in.rate = MBS_VALUE(l) > 1e-12 ? MBS_DIV(MBS_V3_DOT(d, dd), l) : MBS_LIKE(l, 0.0);
        MBS_NAT_ACCOUNT(c, F, &in, e);
        if (MBS_VALUE(l) < 1e-12)
            break; /* direction undefined: no force */
        MBS_FORCE_EVALUATE(c)(F, &in, &out);
        /* Force on point 2: -tension d/l; on point 1 the opposite: Q += dl_q^T f2. */
        MBS_K(natlin_add_transpose)(&dl, MBS_DIV(MBS_NEG(out.tension), l), d, Q);
        break;
    }
    case MBS_FORCE_ON_JOINT: {
        double ref = angle_ref ? angle_ref[F->joint] : 0.0;
        in.value = MBS_K(mbs_natural_joint_coordinate)(nat, q, F->joint, ref, grad);
        in.rate = MBS_K(dot)(n, grad, qd);
        MBS_FORCE_EVALUATE(c)(F, &in, &out);
        for (int i = 0; i < n; ++i)
            Q[i] = MBS_ADD(Q[i], MBS_MUL(out.generalized, grad[i]));
        MBS_NAT_ACCOUNT(c, F, &in, e);
        break;
    }
    case MBS_FORCE_AT_POINT: {
        MbsNatLin x;
        mbs_natural_point_lin(nat, F->body1, F->point1, &x);
        MBS_K(natlin_eval)(&x, q, in.r);
        MBS_K(natlin_rate)(&x, qd, in.v);
        MBS_FORCE_EVALUATE(c)(F, &in, &out);
        MBS_K(natlin_add_transpose)(&x, MBS_LIKE(q[0], 1.0), out.vector, Q);
        MBS_NAT_ACCOUNT(c, F, &in, e);
        break;
    }
    case MBS_FORCE_ON_BODY: {
        /* Virtual work T.dtheta with de_k = dtheta x e_k: Q_{e_k} = (T x e_k)/2 (valid for
         * orthonormal e_k); omega = sum_k e_k x de_k/2. */
        int off = nat->body_off[F->body1];
        if (off < 0)
            break;
        MBS_K(body_omega)(q, qd, off, in.omega);
        MBS_FORCE_EVALUATE(c)(F, &in, &out);
        MBS_K(add_body_torque)(q, off, out.vector, Q);
        MBS_NAT_ACCOUNT(c, F, &in, e);
        break;
    }
    case MBS_FORCE_ON_WHEEL: {
        /* The centre x = X q + c and the axis a = A q (linear), omega as for a body; the force
         * at the centre Q += X^T f, the torque as for a body. */
        int off = nat->body_off[F->body1];
        if (off < 0)
            break;
        MbsNatLin x, A;
        mbs_natural_point_lin(nat, F->body1, F->point1, &x);
        mbs_natural_vector_lin(nat, F->body1, F->axis, &A);
        MBS_K(natlin_eval)(&x, q, in.r);
        MBS_K(natlin_rate)(&x, qd, in.v);
        MBS_K(natlin_eval)(&A, q, in.axis);
        MBS_K(body_omega)(q, qd, off, in.omega);
        in.road = nat->model->road;
        MBS_FORCE_EVALUATE(c)(F, &in, &out);
        MBS_K(natlin_add_transpose)(&x, MBS_LIKE(q[0], 1.0), out.vector, Q);
        MBS_K(add_body_torque)(q, off, out.torque, Q);
        MBS_NAT_ACCOUNT(c, F, &in, e);
        break;
    }
    case MBS_FORCE_CONTROL: {
        /* The joint's coordinate as for a joint element; the reader's point, forward axis
         * and angular velocity as for a wheel; the output on the coordinate only. */
        int off = nat->body_off[F->body1];
        if (off < 0)
            break;
        double ref = angle_ref ? angle_ref[F->joint] : 0.0;
        in.value = MBS_K(mbs_natural_joint_coordinate)(nat, q, F->joint, ref, grad);
        in.rate = MBS_K(dot)(n, grad, qd);
        MbsNatLin x, A;
        mbs_natural_point_lin(nat, F->body1, F->point1, &x);
        mbs_natural_vector_lin(nat, F->body1, F->axis, &A);
        MBS_K(natlin_eval)(&x, q, in.r);
        MBS_K(natlin_rate)(&x, qd, in.v);
        MBS_K(natlin_eval)(&A, q, in.axis);
        MBS_K(body_omega)(q, qd, off, in.omega);
        in.path = nat->model->path;
        in.time = nat->clock ? *nat->clock : 0.0;
        MBS_FORCE_EVALUATE(c)(F, &in, &out);
        for (int i = 0; i < n; ++i)
            Q[i] = MBS_ADD(Q[i], MBS_MUL(out.generalized, grad[i]));
        MBS_NAT_ACCOUNT(c, F, &in, e);
        break;
    }
    }
}

/* Q = gravity on every moving body's centre of mass plus every force element (grad: n values of
 * workspace), and when e is not NULL (double instance) the energies (mbs_natural.h). */
void MBS_K(mbs_natural_forces)(const MbsNatural *nat, const MBS_S *q, const MBS_S *qd,
                               const double *angle_ref, MBS_S *grad, MBS_S *Q, MbsNatEnergy *e)
{
    const MbsModel *m = nat->model;
    for (int i = 0; i < nat->n; ++i)
        Q[i] = MBS_LIKE(q[0], 0.0);
    if (e)
        memset(e, 0, sizeof *e);
    for (int b = 0; b < m->nbodies; ++b) {
        int off = nat->body_off[b];
        if (off < 0)
            continue;
        double mass = m->bodies[b].mass;
        for (int d = 0; d < 3; ++d)
            Q[off + d] = MBS_ADDC(Q[off + d], mass * m->gravity[d]);
        MBS_NAT_BODY_ENERGY(nat, b, q, qd, e);
    }
    for (int f = 0; f < m->nforces; ++f)
        MBS_K(add_element)(nat, &m->forces[f], q, qd, angle_ref, grad, Q, e);
}
