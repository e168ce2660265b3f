#include "mbs_energy.h"

#include "mbs_linalg.h"
#include "mbs_topology.h"

static void body_kinetic_potential(const MbsModel *m, const MbsKinematics *k, int b,
                                   MbsEnergy *e)
{
    const MbsBody *B = &m->bodies[b];
    double R[9], p[3], g[3], w[3], vg[3], Jw[3], w0[3];
    mbs_kin_body_pose(m, k, b, R, p);
    mbs_kin_point(m, k, b, B->com, g);
    mbs_kin_point_motion(m, k, b, g, vg, NULL);
    mbs_kin_body_omega(m, k, b, w);
    /* w^T J w with J = R J0 R^T: use w0 = R^T w. */
    for (int i = 0; i < 3; ++i)
        w0[i] = R[i] * w[0] + R[3 + i] * w[1] + R[6 + i] * w[2];
    mbs_m3_mulv(B->inertia, w0, Jw);
    e->kinetic += 0.5 * (B->mass * mbs_v3_dot(vg, vg) + mbs_v3_dot(w0, Jw));
    e->potential_gravity -= B->mass * mbs_v3_dot(m->gravity, g);
}

void mbs_energy_eval(const MbsModel *m, const MbsKinematics *k, const double *z,
                     const double *zd, MbsEnergy *e)
{
    e->kinetic = e->potential_gravity = e->potential_elastic = e->power_nonconservative = 0.0;
    for (int b = 0; b < m->nbodies; ++b)
        if (b != m->ground)
            body_kinetic_potential(m, k, b, e);
    for (int f = 0; f < m->nforces; ++f) {
        const MbsForce *F = &m->forces[f];
        double r1[3], r2[3], v1[3], v2[3], d[3], dv[3], w[3];
        switch (F->type) {
        case MBS_FORCE_TSDA: {
            mbs_kin_point(m, k, F->body1, F->point1, r1);
            mbs_kin_point(m, k, F->body2, F->point2, r2);
            mbs_kin_point_motion(m, k, F->body1, r1, v1, NULL);
            mbs_kin_point_motion(m, k, F->body2, r2, v2, NULL);
            mbs_v3_sub(r2, r1, d);
            mbs_v3_sub(v2, v1, dv);
            double l = mbs_v3_norm(d), ldot = l > 1e-12 ? mbs_v3_dot(d, dv) / l : 0.0;
            double s = l - F->natural_length;
            e->potential_elastic += 0.5 * F->stiffness * s * s + F->preload * l;
            e->power_nonconservative -= F->damping * ldot * ldot;
            break;
        }
        case MBS_FORCE_RSDA: {
            int nd = m->topo->joint_node[F->joint];
            if (nd < 0)
                break;
            double s = z[nd] - F->rest_angle;
            e->potential_elastic += 0.5 * F->stiffness * s * s;
            e->power_nonconservative -= F->damping * zd[nd] * zd[nd];
            break;
        }
        case MBS_FORCE_CONSTANT:
            mbs_kin_point(m, k, F->body1, F->point1, r1);
            mbs_kin_point_motion(m, k, F->body1, r1, v1, NULL);
            e->power_nonconservative += mbs_v3_dot(F->vector, v1);
            break;
        case MBS_FORCE_TORQUE:
            mbs_kin_body_omega(m, k, F->body1, w);
            e->power_nonconservative += mbs_v3_dot(F->vector, w);
            break;
        }
    }
}
