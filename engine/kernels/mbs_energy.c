#include "mbs_energy.h"

#include "mbs_dynamics.h"
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
        const MbsForceClass *c = mbs_force_class(F->type);
        MbsForceInput in;
        /* A line of zero length still stores energy (its rate is 0); a joint outside the tree
         * has no coordinate here. */
        if (!mbs_dynamics_force_input(m, k, z, zd, F, &in, NULL, NULL) &&
            c->geometry != MBS_FORCE_ON_LINE)
            continue;
        e->potential_elastic += c->energy(F, &in);
        e->power_nonconservative += c->power(F, &in);
    }
}
