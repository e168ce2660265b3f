#include "mbs_dynamics.h"

#include <stdlib.h>
#include <string.h>

#include "mbs_force.h"
#include "mbs_linalg.h"
#include "mbs_topology.h"

/* The double instance of the kernel: body inertias, force elements, Q. */
#define MBS_S double
#define MBS_K(name) name
#define MBS_KIN MbsKinematics
#define MBS_DYN MbsDynamics
#define MBS_FORCE_IN MbsForceInput
#define MBS_FORCE_OUT MbsForceOutput
#define MBS_FORCE_EVALUATE(c) (c)->evaluate
#include "mbs_dynamics_kernel.h"

void mbs_dynamics_forces_part(const MbsModel *m, const MbsKinematics *k, MbsDynamics *d,
                              const double *z, const double *zd, const unsigned char *bodies,
                              const unsigned char *forces, double *Q)
{
    forces_of(m, k, d, z, zd, bodies, forces, Q);
}

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

void mbs_dynamics_body_mbar(const MbsModel *m, const MbsKinematics *k, int node, double Mbar[36])
{
    int b = m->topo->nodes[node].body;
    memset(Mbar, 0, 36 * sizeof(double));
    if (b >= 0) {
        double g[3], J[9];
        body_inertia(&m->bodies[b], k, node, g, J);
        add_body_mbar(m->bodies[b].mass, g, J, Mbar);
    }
}

void mbs_dynamics_mass_times(const MbsModel *m, const MbsKinematics *k, MbsDynamics *d,
                             const double *v, double *out)
{
    const MbsTopology *t = m->topo;
    int n = t->nnodes;
    double *T = d->Macc; /* 6 per node: the twists of v (Macc is scratch here) */
    for (int i = n - 1; i >= 0; --i) { /* parents first */
        int par = t->nodes[i].parent;
        for (int c = 0; c < 6; ++c)
            T[6 * i + c] = (par >= 0 ? T[6 * par + c] : 0.0) + k->b[6 * i + c] * v[i];
    }
    for (int i = 0; i < n; ++i) {
        double *W = &d->Wacc[6 * i];
        memset(W, 0, 6 * sizeof(double));
        int b = t->nodes[i].body;
        if (b >= 0) { /* W = Mbar T: f = m (T_v + T_w x g), n = g x f + J T_w */
            const MbsBody *B = &m->bodies[b];
            double g[3], J[9], wg[3], Jw[3], gf[3];
            body_inertia(B, k, i, g, J);
            mbs_v3_cross(&T[6 * i + 3], g, wg);
            for (int c = 0; c < 3; ++c)
                W[c] = B->mass * (T[6 * i + c] + wg[c]);
            mbs_m3_mulv(J, &T[6 * i + 3], Jw);
            mbs_v3_cross(g, W, gf);
            for (int c = 0; c < 3; ++c)
                W[3 + c] = gf[c] + Jw[c];
        }
    }
    for (int i = 0; i < n; ++i) { /* children have smaller indices: already complete */
        const double *W = &d->Wacc[6 * i], *bi = &k->b[6 * i];
        double q = 0.0;
        for (int c = 0; c < 6; ++c)
            q += bi[c] * W[c];
        out[i] = q;
        int par = t->nodes[i].parent;
        if (par >= 0)
            for (int c = 0; c < 6; ++c)
                d->Wacc[6 * par + c] += W[c];
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
        if (c && c->geometry == MBS_FORCE_CONTROL) { /* the joint's Q reads body1's path */
            int jn = t->joint_node[F->joint], nb = t->body_node[F->body1];
            if (jn >= 0 && nb >= 0)
                mark_paths(t, depends, jn, nb);
            continue;
        }
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
