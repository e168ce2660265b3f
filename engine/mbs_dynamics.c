#include "mbs_dynamics.h"

#include <stdlib.h>
#include <string.h>

#include "mbs_force.h"
#include "mbs_linalg.h"
#include "mbs_topology.h"

int mbs_dynamics_init(MbsDynamics *d, const MbsModel *m)
{
    size_t n = (size_t)(m->topo->nnodes > 0 ? m->topo->nnodes : 1);
    d->n = m->topo->nnodes;
    d->Macc = calloc(36 * n, sizeof(double));
    d->Wacc = calloc(6 * n, sizeof(double));
    if (!d->Macc || !d->Wacc) {
        mbs_dynamics_free(d);
        return -1;
    }
    return 0;
}

void mbs_dynamics_free(MbsDynamics *d)
{
    free(d->Macc);
    free(d->Wacc);
    d->Macc = d->Wacc = NULL;
}

/* Current centre of mass g and inertia J = R J0 R^T of a body carried by node nd. */
static void body_inertia(const MbsBody *B, const MbsKinematics *k, int nd, double g[3],
                         double J[9])
{
    const double *R = &k->R[9 * nd];
    double tmp[9];
    mbs_m3_mulv(R, B->com, g);
    mbs_v3_add(g, &k->p[3 * nd], g);
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
            tmp[3 * i + j] = B->inertia[3 * i] * R[3 * j] + B->inertia[3 * i + 1] * R[3 * j + 1] +
                             B->inertia[3 * i + 2] * R[3 * j + 2]; /* J0 R^T */
    mbs_m3_mul(R, tmp, J);
}

/* Mbar = [m I, -m g~; m g~, J - m g~ g~] added to the column-major 6x6 A. */
static void add_body_mbar(double m, const double g[3], const double J[9], double *A)
{
    double gt[9] = {0, -g[2], g[1], g[2], 0, -g[0], -g[1], g[0], 0}; /* g~, row-major */
    for (int i = 0; i < 3; ++i) {
        A[i + 6 * i] += m;
        for (int j = 0; j < 3; ++j) {
            double gg = 0.0; /* (g~ g~)_ij */
            for (int c = 0; c < 3; ++c)
                gg += gt[3 * i + c] * gt[3 * c + j];
            A[i + 6 * (3 + j)] += -m * gt[3 * i + j];
            A[(3 + i) + 6 * j] += m * gt[3 * i + j];
            A[(3 + i) + 6 * (3 + j)] += J[3 * i + j] - m * gg;
        }
    }
}

void mbs_dynamics_mass(const MbsModel *m, const MbsKinematics *k, MbsDynamics *d, double *M)
{
    const MbsTopology *t = m->topo;
    int n = t->nnodes;
    memset(d->Macc, 0, sizeof(double) * 36 * (size_t)(n > 0 ? n : 1));
    for (int i = 0; i < n; ++i) {
        double *A = &d->Macc[36 * i];
        int b = t->nodes[i].body;
        if (b >= 0) {
            double g[3], J[9];
            body_inertia(&m->bodies[b], k, i, g, J);
            add_body_mbar(m->bodies[b].mass, g, J, A);
        }
        /* Accumulate towards the root (children have smaller indices: already complete). */
        int par = t->nodes[i].parent;
        if (par >= 0)
            for (int c = 0; c < 36; ++c)
                d->Macc[36 * par + c] += A[c];
    }
    for (int i = 0; i < n; ++i) {
        const double *A = &d->Macc[36 * i], *bi = &k->b[6 * i];
        double Ab[6];
        for (int r = 0; r < 6; ++r) {
            Ab[r] = 0.0;
            for (int c = 0; c < 6; ++c)
                Ab[r] += A[r + 6 * c] * bi[c];
        }
        /* M_ji = b_j^T Macc_i b_i for node i and every ancestor j (bodies above i are exactly
         * those carried by both). */
        for (int j = i; j >= 0; j = t->nodes[j].parent) {
            const double *bj = &k->b[6 * j];
            double v = 0.0;
            for (int c = 0; c < 6; ++c)
                v += bj[c] * Ab[c];
            M[j + (size_t)n * i] = v;
            M[i + (size_t)n * j] = v;
        }
    }
}

/* Add a force f applied at point r of body to the node wrench about the origin. */
static void add_point_force(const MbsModel *m, MbsDynamics *d, int body, const double r[3],
                            const double f[3])
{
    int nd = m->topo->body_node[body];
    if (nd < 0)
        return;
    double *W = &d->Wacc[6 * nd], mo[3];
    mbs_v3_cross(r, f, mo);
    mbs_v3_add(W, f, W);
    mbs_v3_add(W + 3, mo, W + 3);
}

static void add_torque(const MbsModel *m, MbsDynamics *d, int body, const double n[3])
{
    int nd = m->topo->body_node[body];
    if (nd >= 0)
        mbs_v3_add(&d->Wacc[6 * nd + 3], n, &d->Wacc[6 * nd + 3]);
}

int mbs_dynamics_force_input(const MbsModel *m, const MbsKinematics *k, const double *z,
                             const double *zd, const MbsForce *F, MbsForceInput *in,
                             double at[2][3], double dir[3])
{
    const MbsForceClass *c = mbs_force_class(F->type);
    double r[2][3], v1[3], v2[3], e[3], dv[3];
    memset(in, 0, sizeof *in);
    switch (c->geometry) {
    case MBS_FORCE_ON_LINE: {
        mbs_kin_point(m, k, F->body1, F->point1, r[0]);
        mbs_kin_point(m, k, F->body2, F->point2, r[1]);
        mbs_kin_point_motion(m, k, F->body1, r[0], v1, NULL);
        mbs_kin_point_motion(m, k, F->body2, r[1], v2, NULL);
        mbs_v3_sub(r[1], r[0], e);
        double l = mbs_v3_norm(e);
        in->value = l;
        if (at)
            memcpy(at, r, sizeof r);
        if (l < 1e-12)
            return 0; /* direction undefined: no force */
        for (int i = 0; i < 3; ++i)
            e[i] /= l;
        mbs_v3_sub(v2, v1, dv);
        in->rate = mbs_v3_dot(dv, e);
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
        mbs_kin_point(m, k, F->body1, F->point1, r[0]);
        mbs_kin_point_motion(m, k, F->body1, r[0], in->v, NULL);
        memcpy(in->r, r[0], sizeof r[0]);
        if (at)
            memcpy(at[0], r[0], sizeof r[0]);
        return 1;
    case MBS_FORCE_ON_BODY:
        mbs_kin_body_omega(m, k, F->body1, in->omega);
        return 1;
    }
    return 0;
}

/* Force element F on the node wrenches (points and bodies; joint forces go to Q directly). */
static void add_element(const MbsModel *m, const MbsKinematics *k, MbsDynamics *d,
                        const double *z, const double *zd, const MbsForce *F)
{
    const MbsForceClass *c = mbs_force_class(F->type);
    MbsForceInput in;
    MbsForceOutput out;
    double at[2][3], e[3];
    if (c->geometry == MBS_FORCE_ON_JOINT || !mbs_dynamics_force_input(m, k, z, zd, F, &in, at, e))
        return;
    c->evaluate(F, &in, &out);
    switch (c->geometry) {
    case MBS_FORCE_ON_LINE: {
        double f2[3] = {-out.tension * e[0], -out.tension * e[1], -out.tension * e[2]};
        double f1[3] = {-f2[0], -f2[1], -f2[2]};
        add_point_force(m, d, F->body1, at[0], f1);
        add_point_force(m, d, F->body2, at[1], f2);
        break;
    }
    case MBS_FORCE_AT_POINT:
        add_point_force(m, d, F->body1, at[0], out.vector);
        break;
    case MBS_FORCE_ON_BODY:
        add_torque(m, d, F->body1, out.vector);
        break;
    case MBS_FORCE_ON_JOINT:
        break;
    }
}

void mbs_dynamics_forces(const MbsModel *m, const MbsKinematics *k, MbsDynamics *d,
                         const double *z, const double *zd, double *Q)
{
    const MbsTopology *t = m->topo;
    int n = t->nnodes;
    memset(d->Wacc, 0, sizeof(double) * 6 * (size_t)(n > 0 ? n : 1));
    /* Body terms: gravity, velocity-dependent inertia forces and -Mbar D. */
    for (int i = 0; i < n; ++i) {
        int b = t->nodes[i].body;
        if (b < 0)
            continue;
        const MbsBody *B = &m->bodies[b];
        const double *Z = &k->Z[6 * i], *D = &k->D[6 * i], *w = Z + 3;
        double g[3], J[9], vg[3], ab[3], tmp[3], F[3], Jw[3], wJw[3], JD[3], mo[3];
        body_inertia(B, k, i, g, J);
        mbs_v3_cross(w, g, tmp);
        mbs_v3_add(Z, tmp, vg);            /* velocity of the centre of mass */
        mbs_v3_cross(D + 3, g, tmp);
        mbs_v3_add(D, tmp, ab);            /* its acceleration part from D */
        mbs_v3_cross(w, vg, tmp);          /* w x vg */
        for (int c = 0; c < 3; ++c)
            F[c] = B->mass * (m->gravity[c] - tmp[c] - ab[c]);
        mbs_m3_mulv(J, w, Jw);
        mbs_v3_cross(w, Jw, wJw);
        mbs_m3_mulv(J, D + 3, JD);
        mbs_v3_cross(g, F, mo);
        double *W = &d->Wacc[6 * i];
        for (int c = 0; c < 3; ++c) {
            W[c] += F[c];
            W[3 + c] += mo[c] - wJw[c] - JD[c];
        }
    }
    for (int f = 0; f < m->nforces; ++f)
        add_element(m, k, d, z, zd, &m->forces[f]);
    for (int i = 0; i < n; ++i) {
        int par = t->nodes[i].parent;
        const double *W = &d->Wacc[6 * i], *b = &k->b[6 * i];
        double q = 0.0;
        for (int c = 0; c < 6; ++c)
            q += b[c] * W[c];
        Q[i] = q;
        if (par >= 0)
            for (int c = 0; c < 6; ++c)
                d->Wacc[6 * par + c] += W[c];
    }
    /* Joint-level forces (spring-dampers on tree coordinates) act on Q directly. */
    for (int f = 0; f < m->nforces; ++f) {
        const MbsForce *F = &m->forces[f];
        const MbsForceClass *c = mbs_force_class(F->type);
        MbsForceInput in;
        MbsForceOutput out;
        if (c->geometry != MBS_FORCE_ON_JOINT ||
            !mbs_dynamics_force_input(m, k, z, zd, F, &in, NULL, NULL))
            continue;
        c->evaluate(F, &in, &out);
        Q[t->joint_node[F->joint]] += out.generalized;
    }
}

/* Marks, in row a of the dense n x n map and for every ancestor a of node `from` (itself
 * included), the path from the root to node `to`. */
static void mark_paths(const MbsTopology *t, unsigned char *depends, int from, int to)
{
    int n = t->nnodes;
    for (int a = from; a >= 0; a = t->nodes[a].parent)
        for (int c = to; c >= 0; c = t->nodes[c].parent)
            depends[(size_t)n * a + c] = 1;
}

int mbs_dynamics_forces_pattern(const MbsModel *m, int *colptr, int *rowind)
{
    const MbsTopology *t = m->topo;
    int n = t->nnodes;
    unsigned char *depends = calloc((size_t)n * (size_t)n + 1, 1); /* row-major: [row][col] */
    if (!depends)
        return -1;
    /* path(k) in row k, k in rows of its ancestors (their subtrees) */
    for (int k = 0; k < n; ++k)
        for (int a = k; a >= 0; a = t->nodes[a].parent) {
            depends[(size_t)n * k + a] = 1;
            depends[(size_t)n * a + k] = 1;
        }
    /* a force on a line couples the two bodies' paths both ways */
    for (int f = 0; f < m->nforces; ++f) {
        const MbsForce *F = &m->forces[f];
        const MbsForceClass *c = mbs_force_class(F->type);
        if (!c || c->geometry != MBS_FORCE_ON_LINE)
            continue;
        int n1 = t->body_node[F->body1], n2 = t->body_node[F->body2];
        if (n1 >= 0 && n2 >= 0) {
            mark_paths(t, depends, n1, n2);
            mark_paths(t, depends, n2, n1);
        }
    }
    int nnz = 0;
    for (int j = 0; j < n; ++j) {
        colptr[j] = nnz;
        for (int i = 0; i < n; ++i)
            if (depends[(size_t)n * i + j]) {
                if (rowind)
                    rowind[nnz] = i;
                ++nnz;
            }
    }
    colptr[n] = nnz;
    free(depends);
    return nnz;
}
