/* Natural coordinates (García de Jalón): see mbs_natural.h for the choice of coordinates and
 * the list of constraint rows. */
#include "mbs_natural.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mbs_force.h"
#include "mbs_linalg.h"

static const double e_axis[3][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};

/* The double instance of the kernel: mbs_natural_joint_coordinate and mbs_natural_forces with
 * the energies (mbs_natural_dual.c is the dual one). */
#define MBS_S double
#define MBS_K(name) name
#define MBS_FORCE_IN MbsForceInput
#define MBS_FORCE_OUT MbsForceOutput
#define MBS_FORCE_EVALUATE(c) (c)->evaluate
#define MBS_NAT_ACCOUNT(c, F, in, e)                                                             \
    do {                                                                                       \
        if (e) {                                                                               \
            (e)->potential_elastic += (c)->energy(F, in);                                      \
            (e)->power_nonconservative += (c)->power(F, in);                                   \
        }                                                                                      \
    } while (0)
#define MBS_NAT_BODY_ENERGY(nat, b, q, qd, e) body_energy(nat, b, q, qd, e)

/* Body b's kinetic energy and gravity potential added to e (when not NULL). */
static void body_energy(const MbsNatural *nat, int b, const double *q, const double *qd,
                        MbsNatEnergy *e)
{
    if (!e)
        return;
    const MbsModel *m = nat->model;
    int off = nat->body_off[b];
    double mass = m->bodies[b].mass;
    const double *S = &nat->S[9 * b];
    double T = 0.5 * mass * mbs_v3_dot(&qd[off], &qd[off]);
    for (int j = 0; j < 3; ++j)
        for (int k = 0; k < 3; ++k)
            T += 0.5 * S[3 * j + k] * mbs_v3_dot(&qd[off + 3 + 3 * j], &qd[off + 3 + 3 * k]);
    e->kinetic += T;
    e->potential_gravity -= mass * mbs_v3_dot(m->gravity, &q[off]);
}

#include "mbs_natural_forces_kernel.h"

void mbs_natural_point_lin(const MbsNatural *nat, int body, const double x0[3], MbsNatLin *L)
{
    memset(L, 0, sizeof *L);
    int off = nat->body_off[body];
    if (off < 0) {
        memcpy(L->c, x0, sizeof L->c);
        return;
    }
    const double *com = nat->model->bodies[body].com;
    L->nt = 1;
    L->off[0] = off;
    L->w[0][0] = 1.0;
    for (int k = 0; k < 3; ++k)
        L->w[0][1 + k] = x0[k] - com[k];
}

void mbs_natural_vector_lin(const MbsNatural *nat, int body, const double a0[3], MbsNatLin *L)
{
    memset(L, 0, sizeof *L);
    int off = nat->body_off[body];
    if (off < 0) {
        memcpy(L->c, a0, sizeof L->c);
        return;
    }
    L->nt = 1;
    L->off[0] = off;
    for (int k = 0; k < 3; ++k)
        L->w[0][1 + k] = a0[k];
}

void mbs_natlin_sub(const MbsNatLin *A, const MbsNatLin *B, MbsNatLin *out)
{
    MbsNatLin r = *A;
    for (int k = 0; k < 3; ++k)
        r.c[k] -= B->c[k];
    for (int t = 0; t < B->nt; ++t) {
        int found = -1;
        for (int s = 0; s < r.nt; ++s)
            if (r.off[s] == B->off[t])
                found = s;
        if (found < 0) {
            found = r.nt++;
            r.off[found] = B->off[t];
            memset(r.w[found], 0, sizeof r.w[found]);
        }
        for (int k = 0; k < 4; ++k)
            r.w[found][k] -= B->w[t][k];
    }
    *out = r;
}

void mbs_natlin_eval(const MbsNatLin *L, const double *q, double x[3])
{
    natlin_eval(L, q, x);
}

void mbs_natlin_rate(const MbsNatLin *L, const double *qd, double v[3])
{
    natlin_rate(L, qd, v);
}

void mbs_natlin_add_transpose(const MbsNatLin *L, double s, const double f[3], double *g)
{
    natlin_add_transpose(L, s, f, g);
}

/* r += s * A^T f for the linear expression L (A = dL/dq). */
static void jrow_add(MbsNatJacRow *r, const MbsNatLin *L, double s, const double f[3])
{
    for (int t = 0; t < L->nt; ++t) {
        int off = L->off[t], slot;
        if (r->off[0] == off || r->off[0] < 0)
            slot = 0;
        else if (r->off[1] == off || r->off[1] < 0)
            slot = 1;
        else
            continue; /* not reachable: every row involves at most two bodies */
        r->off[slot] = off;
        for (int k = 0; k < 4; ++k) {
            double c = s * L->w[t][k];
            if (c != 0.0)
                for (int d = 0; d < 3; ++d)
                    r->v[slot][3 * k + d] += c * f[d];
        }
    }
}

void mbs_natural_point(const MbsNatural *nat, const double *q, int body, const double x0[3],
                       double x[3])
{
    MbsNatLin L;
    mbs_natural_point_lin(nat, body, x0, &L);
    mbs_natlin_eval(&L, q, x);
}

static MbsNatRow *new_row(MbsNatural *nat, MbsNatRowType type, int joint)
{
    MbsNatRow *r = &nat->rows[nat->m++];
    memset(r, 0, sizeof *r);
    r->type = type;
    r->joint = joint;
    return r;
}

static void dot_row(MbsNatural *nat, int joint, const MbsNatLin *a, const MbsNatLin *b,
                    double c0)
{
    MbsNatRow *r = new_row(nat, MBS_NAT_ROW_DOT, joint);
    r->a = *a;
    r->b = *b;
    r->c0 = c0;
}

static int joint_rows_count(const MbsJoint *J)
{
    int n = 0;
    switch (J->type) {
    case MBS_JOINT_REVOLUTE: n = 5; break;
    case MBS_JOINT_PRISMATIC: n = 5; break;
    case MBS_JOINT_SPHERICAL: n = 3; break;
    case MBS_JOINT_UNIVERSAL: n = 4; break;
    case MBS_JOINT_ROD: n = 1; break;
    default: break;
    }
    return n + (J->driven ? 1 : 0);
}

static void add_joint_rows(MbsNatural *nat, int j)
{
    const MbsJoint *J = &nat->model->joints[j];
    int b1 = J->body1, b2 = J->body2;
    double w1[3], w2[3];
    mbs_v3_basis(J->axis1, w1, w2);
    MbsNatLin x1, x2, d12, d21, a1, L1, L2, L3;
    mbs_natural_point_lin(nat, b1, J->point1, &x1);
    mbs_natural_point_lin(nat, b2, J->point2, &x2);
    mbs_natlin_sub(&x1, &x2, &d12);
    mbs_natlin_sub(&x2, &x1, &d21);
    mbs_natural_vector_lin(nat, b1, J->axis1, &a1);
    if (J->type == MBS_JOINT_REVOLUTE || J->type == MBS_JOINT_SPHERICAL ||
        J->type == MBS_JOINT_UNIVERSAL)
        for (int k = 0; k < 3; ++k) {
            MbsNatLin ek;
            mbs_natural_vector_lin(nat, nat->model->ground, e_axis[k], &ek);
            dot_row(nat, j, &d12, &ek, 0.0);
        }
    switch (J->type) {
    case MBS_JOINT_REVOLUTE:
        mbs_natural_vector_lin(nat, b2, w1, &L1);
        dot_row(nat, j, &a1, &L1, 0.0);
        mbs_natural_vector_lin(nat, b2, w2, &L2);
        dot_row(nat, j, &a1, &L2, 0.0);
        break;
    case MBS_JOINT_UNIVERSAL:
        mbs_natural_vector_lin(nat, b2, J->axis2, &L1);
        dot_row(nat, j, &a1, &L1, mbs_v3_dot(J->axis1, J->axis2));
        break;
    case MBS_JOINT_PRISMATIC:
        mbs_natural_vector_lin(nat, b2, w1, &L1);
        dot_row(nat, j, &a1, &L1, 0.0);
        mbs_natural_vector_lin(nat, b2, w2, &L2);
        dot_row(nat, j, &a1, &L2, 0.0);
        mbs_natural_vector_lin(nat, b1, w1, &L3);
        dot_row(nat, j, &L3, &L2, 0.0);
        dot_row(nat, j, &d21, &L3, 0.0);
        mbs_natural_vector_lin(nat, b1, w2, &L3);
        dot_row(nat, j, &d21, &L3, 0.0);
        break;
    case MBS_JOINT_ROD:
        dot_row(nat, j, &d12, &d12, J->length * J->length);
        break;
    default:
        break;
    }
    if (J->driven && J->type == MBS_JOINT_REVOLUTE) {
        MbsNatRow *r = new_row(nat, MBS_NAT_ROW_DRIVE_REV, j);
        mbs_natural_vector_lin(nat, b1, w2, &r->a);
        mbs_natural_vector_lin(nat, b1, w1, &r->a2);
        mbs_natural_vector_lin(nat, b2, w1, &r->b);
        r->f = &J->driver;
    } else if (J->driven && J->type == MBS_JOINT_PRISMATIC) {
        MbsNatRow *r = new_row(nat, MBS_NAT_ROW_DRIVE_PRI, j);
        r->a = d21;
        r->b = a1;
        r->f = &J->driver;
    }
}

MbsNatural *mbs_natural_new(const MbsModel *m, MbsError *err)
{
    if (m->ground < 0) {
        mbs_error_set(err, MBS_FATAL, "model '%s' has no ground body", m->name);
        return NULL;
    }
    MbsNatural *nat = calloc(1, sizeof *nat);
    if (!nat) {
        mbs_error_set(err, MBS_FATAL, "out of memory");
        return NULL;
    }
    nat->model = m;
    int nrows = 0;
    for (int j = 0; j < m->njoints; ++j)
        nrows += joint_rows_count(&m->joints[j]);
    nat->body_off = malloc(sizeof(int) * (size_t)(m->nbodies + 1));
    nat->S = calloc(9 * (size_t)(m->nbodies + 1), sizeof(double));
    nat->joint_row = malloc(sizeof(int) * (size_t)(m->njoints + 1));
    nat->joint_nrows = calloc((size_t)m->njoints + 1, sizeof(int));
    int nmov = 0;
    for (int b = 0; b < m->nbodies; ++b)
        nmov += b != m->ground;
    nat->rows = calloc((size_t)(nrows + 6 * nmov + 1), sizeof *nat->rows);
    if (!nat->body_off || !nat->S || !nat->joint_row || !nat->joint_nrows || !nat->rows) {
        mbs_natural_free(nat);
        mbs_error_set(err, MBS_FATAL, "out of memory");
        return NULL;
    }
    for (int b = 0; b < m->nbodies; ++b) {
        if (b == m->ground) {
            nat->body_off[b] = -1;
            continue;
        }
        nat->body_off[b] = 12 * nat->nbodies++;
        const double *J = m->bodies[b].inertia;
        double tr = J[0] + J[4] + J[8];
        for (int i = 0; i < 9; ++i)
            nat->S[9 * b + i] = -J[i];
        for (int i = 0; i < 3; ++i)
            nat->S[9 * b + 4 * i] += 0.5 * tr;
    }
    nat->n = 12 * nat->nbodies;
    /* Rigid-body rows: unit and mutually orthogonal u, v, w. */
    static const int pairs[6][2] = {{0, 0}, {1, 1}, {2, 2}, {0, 1}, {0, 2}, {1, 2}};
    for (int b = 0; b < m->nbodies; ++b) {
        if (b == m->ground)
            continue;
        for (int p = 0; p < 6; ++p) {
            MbsNatLin A, B;
            mbs_natural_vector_lin(nat, b, e_axis[pairs[p][0]], &A);
            mbs_natural_vector_lin(nat, b, e_axis[pairs[p][1]], &B);
            dot_row(nat, -1, &A, &B, pairs[p][0] == pairs[p][1] ? 1.0 : 0.0);
        }
    }
    nat->nrigid = nat->m;
    for (int j = 0; j < m->njoints; ++j) {
        nat->joint_row[j] = nat->m;
        add_joint_rows(nat, j);
        nat->joint_nrows[j] = nat->m - nat->joint_row[j];
    }
    nat->q_dependent_forces = mbs_natural_forces_vary(m);
    return nat;
}

int mbs_natural_forces_vary(const MbsModel *m)
{
    for (int f = 0; f < m->nforces; ++f)
        if (mbs_force_varies_in_natural(&m->forces[f]))
            return 1;
    return 0;
}

void mbs_natural_free(MbsNatural *nat)
{
    if (!nat)
        return;
    free(nat->body_off);
    free(nat->S);
    free(nat->joint_row);
    free(nat->joint_nrows);
    free(nat->rows);
    free(nat);
}

void mbs_natural_from_bodies(const MbsNatural *nat, const MbsBodyState *bodies, double *q,
                             double *qd)
{
    const MbsModel *m = nat->model;
    for (int b = 0; b < m->nbodies; ++b) {
        int off = nat->body_off[b];
        if (off < 0)
            continue;
        const MbsBodyState *s = &bodies[b];
        double r[3];
        mbs_m3_mulv(s->R, m->bodies[b].com, r);
        mbs_v3_add(r, s->p, &q[off]);
        for (int k = 0; k < 3; ++k) {
            double e[3] = {s->R[k], s->R[3 + k], s->R[6 + k]}; /* column k of R */
            memcpy(&q[off + 3 + 3 * k], e, sizeof e);
            if (qd)
                mbs_v3_cross(s->omega, e, &qd[off + 3 + 3 * k]);
        }
        if (qd)
            memcpy(&qd[off], s->v_com, 3 * sizeof(double));
    }
}

double mbs_natural_joint_violation(const MbsNatural *nat, const double *phi, int joint)
{
    if (joint < 0 || joint >= nat->model->njoints)
        return 0.0;
    double v = 0.0;
    int r0 = nat->joint_row[joint];
    for (int i = r0; i < r0 + nat->joint_nrows[joint]; ++i)
        v = fmax(v, fabs(phi[i]));
    return v;
}

void mbs_natural_body_pose(const MbsNatural *nat, const double *q, int body, double R[9],
                           double p[3])
{
    int off = body >= 0 && body < nat->model->nbodies ? nat->body_off[body] : -1;
    if (off < 0) {
        mbs_m3_identity(R);
        p[0] = p[1] = p[2] = 0.0;
        return;
    }
    for (int k = 0; k < 3; ++k)
        for (int i = 0; i < 3; ++i)
            R[3 * i + k] = q[off + 3 + 3 * k + i];
    double rc[3];
    mbs_m3_mulv(R, nat->model->bodies[body].com, rc);
    mbs_v3_sub(&q[off], rc, p);
}

void mbs_natural_point_velocity(const MbsNatural *nat, const double *q, const double *qd,
                                int body, const double r[3], double v[3])
{
    int off = body >= 0 && body < nat->model->nbodies ? nat->body_off[body] : -1;
    v[0] = v[1] = v[2] = 0.0;
    if (off < 0)
        return;
    double d[3], s[3];
    mbs_v3_sub(r, &q[off], d);
    for (int k = 0; k < 3; ++k) /* s_k = (u, v, w)_k . d */
        s[k] = q[off + 3 + 3 * k] * d[0] + q[off + 4 + 3 * k] * d[1] + q[off + 5 + 3 * k] * d[2];
    for (int i = 0; i < 3; ++i)
        v[i] = qd[off + i] + s[0] * qd[off + 3 + i] + s[1] * qd[off + 6 + i] +
               s[2] * qd[off + 9 + i];
}

/* One row: value, sparse gradient, Phi_t and bias (any may be NULL). */
static void row_eval(const MbsNatRow *r, const double *q, const double *qd, double t,
                     double *phi, MbsNatJacRow *J, double *phit, double *c)
{
    double a[3], b[3], ad[3] = {0}, bd[3] = {0};
    mbs_natlin_eval(&r->a, q, a);
    mbs_natlin_eval(&r->b, q, b);
    if (c) {
        mbs_natlin_rate(&r->a, qd, ad);
        mbs_natlin_rate(&r->b, qd, bd);
    }
    if (J) {
        memset(J, 0, sizeof *J);
        J->off[0] = J->off[1] = -1;
    }
    switch (r->type) {
    case MBS_NAT_ROW_DOT:
    case MBS_NAT_ROW_DRIVE_PRI: {
        /* a.b = c0, or = f(t) for a driven prismatic coordinate */
        double f = r->c0, fd = 0.0, fdd = 0.0;
        if (r->type == MBS_NAT_ROW_DRIVE_PRI)
            f = mbs_function_eval(r->f, t, &fd, &fdd);
        if (phi)
            *phi = mbs_v3_dot(a, b) - f;
        if (J) {
            jrow_add(J, &r->a, 1.0, b);
            jrow_add(J, &r->b, 1.0, a);
        }
        if (phit)
            *phit = -fd;
        if (c)
            *c = 2.0 * mbs_v3_dot(ad, bd) - fdd;
        break;
    }
    case MBS_NAT_ROW_DRIVE_REV: {
        /* Phi = s cos f - co sin f = sin(theta - f), s = a.b, co = a2.b */
        double fd = 0.0, fdd = 0.0, f = mbs_function_eval(r->f, t, &fd, &fdd);
        double cf = cos(f), sf = sin(f);
        double a2[3], a2d[3] = {0};
        mbs_natlin_eval(&r->a2, q, a2);
        double s = mbs_v3_dot(a, b), co = mbs_v3_dot(a2, b);
        if (phi)
            *phi = s * cf - co * sf;
        if (J) {
            jrow_add(J, &r->a, cf, b);
            jrow_add(J, &r->a2, -sf, b);
            double g[3] = {cf * a[0] - sf * a2[0], cf * a[1] - sf * a2[1], cf * a[2] - sf * a2[2]};
            jrow_add(J, &r->b, 1.0, g);
        }
        if (phit)
            *phit = -fd * (s * sf + co * cf);
        if (c) {
            mbs_natlin_rate(&r->a2, qd, a2d);
            double sd = mbs_v3_dot(ad, b) + mbs_v3_dot(a, bd);
            double cod = mbs_v3_dot(a2d, b) + mbs_v3_dot(a2, bd);
            *c = 2.0 * mbs_v3_dot(ad, bd) * cf - 2.0 * mbs_v3_dot(a2d, bd) * sf -
                 2.0 * fd * (sd * sf + cod * cf) - fdd * (s * sf + co * cf) -
                 fd * fd * (s * cf - co * sf);
        }
        break;
    }
    }
}

void mbs_natural_constraint_rows(const MbsNatural *nat, const double *q, const double *qd,
                                 double t, double *phi, MbsNatJacRow *J, double *phit, double *c)
{
    for (int i = 0; i < nat->m; ++i)
        row_eval(&nat->rows[i], q, qd, t, phi ? &phi[i] : NULL, J ? &J[i] : NULL,
                 phit ? &phit[i] : NULL, c ? &c[i] : NULL);
}

void mbs_natural_constraints(const MbsNatural *nat, const double *q, const double *qd, double t,
                             double *phi, double *phiq, double *phit, double *c)
{
    int m = nat->m;
    if (phiq)
        memset(phiq, 0, sizeof(double) * (size_t)m * (size_t)nat->n);
    for (int i = 0; i < m; ++i) {
        MbsNatJacRow J;
        row_eval(&nat->rows[i], q, qd, t, phi ? &phi[i] : NULL, phiq ? &J : NULL,
                 phit ? &phit[i] : NULL, c ? &c[i] : NULL);
        if (phiq)
            for (int p = 0; p < 2; ++p)
                if (J.off[p] >= 0)
                    for (int k = 0; k < 12; ++k)
                        phiq[i + (size_t)m * (J.off[p] + k)] += J.v[p][k];
    }
}

void mbs_natural_mass_mul(const MbsNatural *nat, const double *x, double *y)
{
    const MbsModel *m = nat->model;
    for (int b = 0; b < m->nbodies; ++b) {
        int off = nat->body_off[b];
        if (off < 0)
            continue;
        double mass = m->bodies[b].mass;
        const double *S = &nat->S[9 * b];
        for (int d = 0; d < 3; ++d)
            y[off + d] = mass * x[off + d];
        for (int j = 0; j < 3; ++j)
            for (int d = 0; d < 3; ++d) {
                double v = 0.0;
                for (int k = 0; k < 3; ++k)
                    v += S[3 * j + k] * x[off + 3 + 3 * k + d];
                y[off + 3 + 3 * j + d] = v;
            }
    }
}

void mbs_natural_mass(const MbsNatural *nat, double *M)
{
    int n = nat->n;
    memset(M, 0, sizeof(double) * (size_t)n * (size_t)n);
    const MbsModel *m = nat->model;
    for (int b = 0; b < m->nbodies; ++b) {
        int off = nat->body_off[b];
        if (off < 0)
            continue;
        for (int d = 0; d < 3; ++d)
            M[(off + d) * (size_t)(n + 1)] = m->bodies[b].mass;
        const double *S = &nat->S[9 * b];
        for (int j = 0; j < 3; ++j)
            for (int k = 0; k < 3; ++k)
                for (int d = 0; d < 3; ++d) {
                    int row = off + 3 + 3 * j + d, col = off + 3 + 3 * k + d;
                    M[row + (size_t)n * col] = S[3 * j + k];
                }
    }
}

/* A revolute's vectors w2, w1 of body1 (A, A2) and w1 of body2 (B), as linear expressions and
 * at q: sin theta = a.b, cos theta = a2.b. */
static void revolute_vectors(const MbsNatural *nat, const MbsJoint *J, const double *q,
                             MbsNatLin *A, MbsNatLin *A2, MbsNatLin *B, double a[3],
                             double a2[3], double b[3])
{
    double w1[3], w2[3];
    mbs_v3_basis(J->axis1, w1, w2);
    mbs_natural_vector_lin(nat, J->body1, w2, A);
    mbs_natural_vector_lin(nat, J->body1, w1, A2);
    mbs_natural_vector_lin(nat, J->body2, w1, B);
    mbs_natlin_eval(A, q, a);
    mbs_natlin_eval(A2, q, a2);
    mbs_natlin_eval(B, q, b);
}


/* ---- dQ/d[q, qd] of the force elements, analytically (ali3p's `analytical` tangent) ------ */

int mbs_natural_forces_derivatives_supported(const MbsModel *m, char *why, size_t size)
{
    for (int f = 0; f < m->nforces; ++f) {
        const MbsForce *F = &m->forces[f];
        const MbsForceClass *c = mbs_force_class(F->type);
        /* MbsForceDerivative carries no d torque/d omega */
        if (!c || !c->derivative || (c->geometry == MBS_FORCE_ON_BODY && c->state_dependent)) {
            snprintf(why, size, "force element '%s' (%s) has no analytical derivative of its law",
                     F->name, c ? c->name : "unknown kind");
            return 0;
        }

    }
    return 1;
}

/* s A^T G B into the columns col0 + (B's coordinates). */
static void add_sandwich(const MbsNatLin *A, const double G[3][3], const MbsNatLin *B, double s,
                         int col0, MbsNatAddFn add, void *ctx)
{
    for (int t = 0; t < A->nt; ++t)
        for (int k = 0; k < 4; ++k)
            for (int u = 0; u < B->nt; ++u)
                for (int l = 0; l < 4; ++l) {
                    double w = s * A->w[t][k] * B->w[u][l];
                    if (w == 0.0)
                        continue;
                    for (int a = 0; a < 3; ++a)
                        for (int b = 0; b < 3; ++b)
                            if (G[a][b] != 0.0)
                                add(ctx, A->off[t] + 3 * k + a, col0 + B->off[u] + 3 * l + b,
                                    w * G[a][b]);
                }
}

static const double identity3[3][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};

/* The joint's coordinates: the 12 of body1 then the 12 of body2 (-1: ground's). */
enum { JOINT_LOCAL = 24 };
static void joint_locals(const MbsNatural *nat, const MbsJoint *J, int idx[JOINT_LOCAL])
{
    int off[2] = {nat->body_off[J->body1], nat->body_off[J->body2]};
    for (int p = 0; p < 2; ++p)
        for (int i = 0; i < 12; ++i)
            idx[12 * p + i] = off[p] >= 0 ? off[p] + i : -1;
}

/* Hessian sink: H (24 x 24, column-major) of the joint's local coordinates. */
typedef struct {
    const int *idx;
    double *H;
    double scale;
} LocalHessian;

static void local_add(void *ctx, int row, int column, double value)
{
    LocalHessian *L = ctx;
    int i = -1, j = -1;
    for (int k = 0; k < JOINT_LOCAL; ++k) {
        if (L->idx[k] == row)
            i = k;
        if (L->idx[k] == column)
            j = k;
    }
    if (i >= 0 && j >= 0)
        L->H[i + JOINT_LOCAL * j] += L->scale * value;
}

/* theta's gradient g and Hessian H on the joint's coordinates (mbs_natural_joint_coordinate:
 * prismatic theta = d.a1, H = D^T A1 + A1^T D; revolute theta = atan2(s, co), s = a.b,
 * co = a2.b, g = (co gs - s gc)/r2, H = (gs gc^T - gc gs^T + co Hs - s Hc - g dr2^T)/r2 with
 * r2 = s^2 + co^2, dr2 = 2 (s gs + co gc), Hs = A^T B + B^T A, Hc = A2^T B + B^T A2). */
static void joint_hessian(const MbsNatural *nat, const MbsJoint *J, const double *q,
                          const int idx[JOINT_LOCAL], double g[JOINT_LOCAL],
                          double H[JOINT_LOCAL * JOINT_LOCAL], double *grad)
{
    memset(H, 0, sizeof(double) * JOINT_LOCAL * JOINT_LOCAL);
    memset(g, 0, sizeof(double) * JOINT_LOCAL);
    LocalHessian L = {.idx = idx, .H = H, .scale = 1.0};
    if (J->type == MBS_JOINT_PRISMATIC) {
        MbsNatLin x1, x2, D, A1;
        mbs_natural_point_lin(nat, J->body1, J->point1, &x1);
        mbs_natural_point_lin(nat, J->body2, J->point2, &x2);
        mbs_natlin_sub(&x2, &x1, &D);
        mbs_natural_vector_lin(nat, J->body1, J->axis1, &A1);
        add_sandwich(&D, identity3, &A1, 1.0, 0, local_add, &L);
        add_sandwich(&A1, identity3, &D, 1.0, 0, local_add, &L);
        mbs_natural_joint_coordinate(nat, q, (int)(J - nat->model->joints), 0.0, grad);
        for (int k = 0; k < JOINT_LOCAL; ++k)
            g[k] = idx[k] >= 0 ? grad[idx[k]] : 0.0;
        return;
    }
    if (J->type != MBS_JOINT_REVOLUTE)
        return;
    MbsNatLin A, A2, B;
    double a[3], a2[3], b[3];
    revolute_vectors(nat, J, q, &A, &A2, &B, a, a2, b);
    double s = mbs_v3_dot(a, b), co = mbs_v3_dot(a2, b), r2 = s * s + co * co;
    if (!(r2 > 1e-300))
        return;
    double gs[JOINT_LOCAL], gc[JOINT_LOCAL];
    int n = nat->n;
    memset(grad, 0, sizeof(double) * (size_t)n);
    mbs_natlin_add_transpose(&A, 1.0, b, grad);
    mbs_natlin_add_transpose(&B, 1.0, a, grad);
    for (int k = 0; k < JOINT_LOCAL; ++k)
        gs[k] = idx[k] >= 0 ? grad[idx[k]] : 0.0;
    memset(grad, 0, sizeof(double) * (size_t)n);
    mbs_natlin_add_transpose(&A2, 1.0, b, grad);
    mbs_natlin_add_transpose(&B, 1.0, a2, grad);
    for (int k = 0; k < JOINT_LOCAL; ++k)
        gc[k] = idx[k] >= 0 ? grad[idx[k]] : 0.0;
    L.scale = co / r2;
    add_sandwich(&A, identity3, &B, 1.0, 0, local_add, &L);
    add_sandwich(&B, identity3, &A, 1.0, 0, local_add, &L);
    L.scale = -s / r2;
    add_sandwich(&A2, identity3, &B, 1.0, 0, local_add, &L);
    add_sandwich(&B, identity3, &A2, 1.0, 0, local_add, &L);
    for (int k = 0; k < JOINT_LOCAL; ++k)
        g[k] = (co * gs[k] - s * gc[k]) / r2;
    for (int j = 0; j < JOINT_LOCAL; ++j)
        for (int i = 0; i < JOINT_LOCAL; ++i)
            H[i + JOINT_LOCAL * j] += (gs[i] * gc[j] - gc[i] * gs[j] -
                                       2.0 * g[i] * (s * gs[j] + co * gc[j])) / r2;
}

/* A line element: Q += A^T f2, f2 = -T e (d = A q + c, e = d/l, l' = e.A qd):
 * df2/dd = -(e dT/dd^T + T (I - e e^T)/l), dT/dd = T_l e + T_l' (I - e e^T) d'/l,
 * df2/dd' = -T_l' e e^T. */
static void line_derivatives(const MbsNatural *nat, const MbsForce *F, const double *q,
                             const double *qd, MbsNatAddFn add, void *ctx)
{
    const MbsForceClass *c = mbs_force_class(F->type);
    MbsNatLin x1, x2, D;
    mbs_natural_point_lin(nat, F->body1, F->point1, &x1);
    mbs_natural_point_lin(nat, F->body2, F->point2, &x2);
    mbs_natlin_sub(&x2, &x1, &D);
    double d[3], dd[3], e[3], Pdd[3];
    mbs_natlin_eval(&D, q, d);
    mbs_natlin_rate(&D, qd, dd);
    double l = mbs_v3_norm(d);
    if (l < 1e-12)
        return;
    for (int k = 0; k < 3; ++k)
        e[k] = d[k] / l;
    MbsForceInput in = {.value = l, .rate = mbs_v3_dot(d, dd) / l};
    MbsForceOutput out;
    MbsForceDerivative dT = {0};
    c->evaluate(F, &in, &out);
    c->derivative(F, &in, &dT);
    double ed = mbs_v3_dot(e, dd), Gq[3][3], Gv[3][3];
    for (int k = 0; k < 3; ++k)
        Pdd[k] = (dd[k] - e[k] * ed) / l;
    for (int a = 0; a < 3; ++a)
        for (int b = 0; b < 3; ++b) {
            double P = (a == b) - e[a] * e[b];
            Gq[a][b] = -(e[a] * (dT.d_value * e[b] + dT.d_rate * Pdd[b]) +
                              out.tension * P / l);
            Gv[a][b] = -dT.d_rate * e[a] * e[b];
        }
    add_sandwich(&D, Gq, &D, 1.0, 0, add, ctx);
    add_sandwich(&D, Gv, &D, 1.0, nat->n, add, ctx);
}

/* [u]x, the cross-product matrix: [u]x v = u x v */
static void cross_matrix(const double u[3], double M[3][3])
{
    M[0][0] = M[1][1] = M[2][2] = 0.0;
    M[0][1] = -u[2], M[0][2] = u[1];
    M[1][0] = u[2], M[1][2] = -u[0];
    M[2][0] = -u[1], M[2][1] = u[0];
}

/* What a law reads of body b (12 coordinates at off): the point r = X q, its velocity X qd,
 * the axis a = A q and omega = sum_k e_k x e_k' / 2 into in, and their derivatives as local
 * 3 x 12 matrices over the body's coordinates: dr/dq = dv/dqd = Xl, da/dq = Al,
 * domega/dq = Wq, domega/dqd = Wqd. */
static void body_reading(const MbsNatural *nat, int body, const double point[3],
                         const double axis[3], const double *q, const double *qd,
                         MbsForceInput *in, double Xl[3][12], double Al[3][12], double Wq[3][12],
                         double Wqd[3][12])
{
    int off = nat->body_off[body];
    MbsNatLin X, A;
    mbs_natural_point_lin(nat, body, point, &X);
    mbs_natural_vector_lin(nat, body, axis, &A);
    mbs_natlin_eval(&X, q, in->r);
    mbs_natlin_rate(&X, qd, in->v);
    mbs_natlin_eval(&A, q, in->axis);
    memset(in->omega, 0, sizeof in->omega);
    for (int k = 0; k < 3; ++k) {
        double w[3];
        mbs_v3_cross(&q[off + 3 + 3 * k], &qd[off + 3 + 3 * k], w);
        for (int d = 0; d < 3; ++d)
            in->omega[d] += 0.5 * w[d];
    }
    memset(Xl, 0, sizeof(double) * 36);
    memset(Al, 0, sizeof(double) * 36);
    memset(Wq, 0, sizeof(double) * 36);
    memset(Wqd, 0, sizeof(double) * 36);
    for (int k = 0; k < 4; ++k)
        for (int d = 0; d < 3; ++d) {
            Xl[d][3 * k + d] = X.w[0][k];
            Al[d][3 * k + d] = A.w[0][k];
        }
    for (int k = 0; k < 3; ++k) {
        double M[3][3], Md[3][3];
        cross_matrix(&qd[off + 3 + 3 * k], Md);
        cross_matrix(&q[off + 3 + 3 * k], M);
        for (int a = 0; a < 3; ++a)
            for (int b = 0; b < 3; ++b) {
                Wq[a][3 + 3 * k + b] = -0.5 * Md[a][b];
                Wqd[a][3 + 3 * k + b] = 0.5 * M[a][b];
            }
    }
}

/* A wheel on body b (12 coordinates at off: the centre of mass g, then e_1..e_3): its centre
 * r = g + sum_k c_k e_k = X q and axis a = sum_k a0_k e_k = A q (mbs_natural_point_lin,
 * _vector_lin), v = X qd, omega = sum_k e_k x e_k' / 2, so d omega/de_k = -[e_k']x / 2 and
 * d omega/de_k' = [e_k]x / 2. The wrench adds X^T f and, on e_k, (T x e_k) / 2 = -[e_k]x T / 2
 * (as a body's torque), whose own change with e_k is [T]x / 2. With the element's derivative
 * (d f, d T / d(r, v, a, omega)): dQ/dq = X^T Jf_q - sum_k E_k^T [e_k]x JT_q / 2 + [T]x / 2 on
 * each e_k block, dQ/dqd = X^T Jf_qd - sum_k E_k^T [e_k]x JT_qd / 2. */
static void wheel_derivatives(const MbsNatural *nat, const MbsForce *F, const double *q,
                              const double *qd, MbsNatAddFn add, void *ctx)
{
    const MbsForceClass *c = mbs_force_class(F->type);
    int off = nat->body_off[F->body1], n = nat->n;
    if (off < 0)
        return;
    MbsForceInput in = {.road = nat->model->road};
    MbsForceOutput out;
    MbsForceDerivative D;
    double Xl[3][12], Al[3][12], Wq[3][12], Wqd[3][12];
    body_reading(nat, F->body1, F->point1, F->axis, q, qd, &in, Xl, Al, Wq, Wqd);
    c->evaluate(F, &in, &out);
    c->derivative(F, &in, &D);
    double Jf[2][3][12], JT[2][3][12]; /* [q or qd] */
    for (int a = 0; a < 3; ++a)
        for (int j = 0; j < 12; ++j) {
            double fq = 0, fqd = 0, tq = 0, tqd = 0;
            for (int b = 0; b < 3; ++b) {
                fq += D.d_vector_r[a][b] * Xl[b][j] + D.d_vector_a[a][b] * Al[b][j] +
                      D.d_vector_w[a][b] * Wq[b][j];
                fqd += D.d_vector_v[a][b] * Xl[b][j] + D.d_vector_w[a][b] * Wqd[b][j];
                tq += D.d_torque_r[a][b] * Xl[b][j] + D.d_torque_a[a][b] * Al[b][j] +
                      D.d_torque_w[a][b] * Wq[b][j];
                tqd += D.d_torque_v[a][b] * Xl[b][j] + D.d_torque_w[a][b] * Wqd[b][j];
            }
            Jf[0][a][j] = fq, Jf[1][a][j] = fqd, JT[0][a][j] = tq, JT[1][a][j] = tqd;
        }
    double H[2][12][12] = {{{0}}};
    for (int v = 0; v < 2; ++v)
        for (int i = 0; i < 12; ++i)
            for (int j = 0; j < 12; ++j) {
                double h = 0.0;
                for (int a = 0; a < 3; ++a)
                    h += Xl[a][i] * Jf[v][a][j];
                H[v][i][j] = h;
            }
    double TM[3][3];
    cross_matrix(out.torque, TM);
    for (int k = 0; k < 3; ++k) {
        double M[3][3];
        cross_matrix(&q[off + 3 + 3 * k], M);
        for (int a = 0; a < 3; ++a) {
            int row = 3 + 3 * k + a;
            for (int v = 0; v < 2; ++v)
                for (int j = 0; j < 12; ++j) {
                    double h = 0.0;
                    for (int b = 0; b < 3; ++b)
                        h += M[a][b] * JT[v][b][j];
                    H[v][row][j] -= 0.5 * h;
                }
            for (int b = 0; b < 3; ++b)
                H[0][row][3 + 3 * k + b] += 0.5 * TM[a][b];
        }
    }
    for (int v = 0; v < 2; ++v)
        for (int i = 0; i < 12; ++i)
            for (int j = 0; j < 12; ++j)
                if (H[v][i][j] != 0.0)
                    add(ctx, off + i, v * n + off + j, H[v][i][j]);
}

/* A law on a joint's coordinate theta (a joint element; a driver also reads body1):
 * Q += G grad theta, theta' = grad theta . qd, so with g = grad theta and H its Hessian
 *   dQ/dq = G_theta g g^T + G_rate g (H qd)^T + G H + g (G_r Xl + G_a Al + G_w Wq)^T,
 *   dQ/dqd = G_rate g g^T + g (G_v Xl + G_w Wqd)^T
 * the last terms (body_reading) on body1's 12 coordinates, for a driver only. */
static void joint_law_derivatives(const MbsNatural *nat, const MbsForce *F, const double *q,
                                  const double *qd, const double *angle_ref, double *grad,
                                  MbsNatAddFn add, void *ctx)
{
    const MbsModel *m = nat->model;
    const MbsForceClass *c = mbs_force_class(F->type);
    const MbsJoint *J = &m->joints[F->joint];
    int n = nat->n, control = c->geometry == MBS_FORCE_CONTROL;
    int off = control ? nat->body_off[F->body1] : -1;
    if (control && off < 0)
        return; /* as mbs_natural_forces: a reader on the ground has no force */
    int idx[JOINT_LOCAL];
    double g[JOINT_LOCAL], H[JOINT_LOCAL * JOINT_LOCAL], Hqd[JOINT_LOCAL] = {0};
    double Xl[3][12], Al[3][12], Wq[3][12], Wqd[3][12];
    joint_locals(nat, J, idx);
    joint_hessian(nat, J, q, idx, g, H, grad);
    double ref = angle_ref ? angle_ref[F->joint] : 0.0;
    MbsForceInput in = {.value = mbs_natural_joint_coordinate(nat, q, F->joint, ref, grad)};
    in.rate = dot(n, grad, qd);
    if (control) {
        body_reading(nat, F->body1, F->point1, F->axis, q, qd, &in, Xl, Al, Wq, Wqd);
        in.path = m->path;
        in.time = nat->clock ? *nat->clock : 0.0;
    }
    MbsForceOutput out;
    MbsForceDerivative dT = {0};
    c->evaluate(F, &in, &out);
    c->derivative(F, &in, &dT);
    for (int j = 0; j < JOINT_LOCAL; ++j)
        for (int i = 0; i < JOINT_LOCAL; ++i)
            if (idx[i] >= 0)
                Hqd[j] += H[i + JOINT_LOCAL * j] * qd[idx[i]];
    for (int j = 0; j < JOINT_LOCAL; ++j)
        for (int i = 0; i < JOINT_LOCAL && idx[j] >= 0; ++i) {
            if (idx[i] < 0)
                continue;
            double h = H[i + JOINT_LOCAL * j];
            add(ctx, idx[i], idx[j], dT.d_value * g[i] * g[j] +
                                         dT.d_rate * g[i] * Hqd[j] + out.generalized * h);
            add(ctx, idx[i], n + idx[j], dT.d_rate * g[i] * g[j]);
        }
    if (!control)
        return;
    double Jq[12], Jqd[12];
    for (int j = 0; j < 12; ++j) {
        Jq[j] = Jqd[j] = 0.0;
        for (int b = 0; b < 3; ++b) {
            Jq[j] += dT.d_gen_r[b] * Xl[b][j] + dT.d_gen_a[b] * Al[b][j] + dT.d_gen_w[b] * Wq[b][j];
            Jqd[j] += dT.d_gen_v[b] * Xl[b][j] + dT.d_gen_w[b] * Wqd[b][j];
        }
    }
    for (int i = 0; i < JOINT_LOCAL; ++i)
        for (int j = 0; j < 12 && idx[i] >= 0; ++j) {
            if (Jq[j] != 0.0)
                add(ctx, idx[i], off + j, g[i] * Jq[j]);
            if (Jqd[j] != 0.0)
                add(ctx, idx[i], n + off + j, g[i] * Jqd[j]);
        }
}

void mbs_natural_forces_derivatives(const MbsNatural *nat, const double *q, const double *qd,
                                    const double *angle_ref, double *grad, MbsNatAddFn add,
                                    void *ctx)
{
    const MbsModel *m = nat->model;
    int n = nat->n;
    for (int f = 0; f < m->nforces; ++f) {
        const MbsForce *F = &m->forces[f];
        const MbsForceClass *c = mbs_force_class(F->type);
        if (!c->state_dependent && c->geometry != MBS_FORCE_ON_BODY)
            continue; /* a constant force at a point: constant in natural coordinates */
        switch (c->geometry) {
        case MBS_FORCE_ON_LINE:
            line_derivatives(nat, F, q, qd, add, ctx);
            break;
        case MBS_FORCE_ON_JOINT:
        case MBS_FORCE_CONTROL:
            joint_law_derivatives(nat, F, q, qd, angle_ref, grad, add, ctx);
            break;
        case MBS_FORCE_AT_POINT: {
            MbsNatLin x;
            MbsForceInput in = {0};
            MbsForceDerivative dF = {0};
            mbs_natural_point_lin(nat, F->body1, F->point1, &x);
            mbs_natlin_eval(&x, q, in.r);
            mbs_natlin_rate(&x, qd, in.v);
            c->derivative(F, &in, &dF);
            add_sandwich(&x, (const double(*)[3])dF.d_vector_r, &x, 1.0, 0, add, ctx);
            add_sandwich(&x, (const double(*)[3])dF.d_vector_v, &x, 1.0, n, add, ctx);
            break;
        }
        case MBS_FORCE_ON_WHEEL:
            wheel_derivatives(nat, F, q, qd, add, ctx);
            break;
        case MBS_FORCE_ON_BODY: {
            /* constant torque T: Q_{e_k} = (T x e_k)/2, d/de_k = [T]x / 2 */
            int off = nat->body_off[F->body1];
            MbsForceInput in = {0};
            MbsForceOutput out;
            if (off < 0)
                break;
            c->evaluate(F, &in, &out);
            const double *T = out.vector;
            double X[9] = {0, -T[2], T[1], T[2], 0, -T[0], -T[1], T[0], 0};
            for (int k = 0; k < 3; ++k)
                for (int a = 0; a < 3; ++a)
                    for (int b = 0; b < 3; ++b)
                        if (X[3 * a + b] != 0.0)
                            add(ctx, off + 3 + 3 * k + a, off + 3 + 3 * k + b,
                                0.5 * X[3 * a + b]);
            break;
        }
        }
    }
}
