#include "mbs_kinematics.h"

#include <stdlib.h>
#include <string.h>

#include "mbs_linalg.h"
#include "mbs_topology.h"

/* The double instance of the kernel: positions, velocities, points, rotations. */
#define MBS_S double
#define MBS_K(name) name
#define MBS_KIN MbsKinematics
#define MBS_S_ZERO 0.0
#define MBS_S_ONE 1.0
#include "mbs_kinematics_kernel.h"

void mbs_kin_body_pose(const MbsModel *m, const MbsKinematics *k, int body, double R[9],
                       double p[3])
{
    int nd = m->topo->body_node[body];
    if (nd < 0) {
        memcpy(R, identity3, 9 * sizeof(double));
        p[0] = p[1] = p[2] = 0.0;
        return;
    }
    memcpy(R, &k->R[9 * nd], 9 * sizeof(double));
    memcpy(p, &k->p[3 * nd], 3 * sizeof(double));
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

void mbs_kinematics_accelerations(const MbsModel *m, const MbsKinematics *k, const double *zdd,
                                  double *acc, double *D_out)
{
    const MbsTopology *t = m->topo;
    for (int i = t->nnodes - 1; i >= 0; --i) { /* parents first */
        int parent = t->nodes[i].parent;
        for (int c = 0; c < 6; ++c) {
            double a = (parent < 0 ? 0.0 : acc[6 * parent + c]) + k->b[6 * i + c] * zdd[i];
            acc[6 * i + c] = a;
            D_out[6 * i + c] = k->D[6 * i + c] + a;
        }
    }
}

void mbs_kin_point_acceleration(const MbsModel *m, const MbsKinematics *k, int body,
                                const double r[3], const double *zdd, double a[3])
{
    double aa[3];
    mbs_kin_point_motion(m, k, body, r, NULL, aa);
    const MbsTopology *t = m->topo;
    for (int j = t->body_node[body]; j >= 0; j = t->nodes[j].parent) {
        const double *b = k->b + 6 * (size_t)j;
        double w[3];
        mbs_v3_cross(b + 3, r, w);
        for (int c = 0; c < 3; ++c)
            aa[c] += (b[c] + w[c]) * zdd[j];
    }
    memcpy(a, aa, sizeof aa);
}
