/* Semi-recursive open-chain dynamics (paper 000 eqs 6-13): M(z) = R^T Mbar R and
 * Q(z, zd) = R^T (Qbar - Mbar D), computed by accumulating inertias and forces from the leaves
 * to the root. Every force element of the model is included here. */
#ifndef MBS_DYNAMICS_H
#define MBS_DYNAMICS_H

#include "mbs_force.h"
#include "mbs_kinematics.h"

typedef struct {
    int n;
    double *Macc; /* 36 per node: accumulated 6x6 inertia (column-major) */
    double *Wacc; /* 6 per node: accumulated force wrench about the origin */
} MbsDynamics;

int mbs_dynamics_init(MbsDynamics *d, const MbsModel *m);
void mbs_dynamics_free(MbsDynamics *d);

/* Mbar (6x6 column-major) of the body carried by node (zero without one): its spatial inertia
 * about the origin, [m I, -m g~; m g~, J - m g~ g~] (paper 000 eq 7). */
void mbs_dynamics_body_mbar(const MbsModel *m, const MbsKinematics *k, int node, double Mbar[36]);
/* M (n x n, column-major, full symmetric) from the positions in k. */
void mbs_dynamics_mass(const MbsModel *m, const MbsKinematics *k, MbsDynamics *d, double *M);
/* out = M v (n) without forming M: the twists of v, each body's M_bar times its twist, summed
 * up the tree (O(n) against M's O(n depth)). */
void mbs_dynamics_mass_times(const MbsModel *m, const MbsKinematics *k, MbsDynamics *d,
                             const double *v, double *out);
/* Q (n) from positions and velocities in k, at coordinates z, zd (for joint forces). */
void mbs_dynamics_forces(const MbsModel *m, const MbsKinematics *k, MbsDynamics *d,
                         const double *z, const double *zd, double *Q);
/* The same of part of the model: the body terms of the bodies with bodies[b] != 0 and the
 * force elements with forces[f] != 0 (either NULL: every one). Two models that differ only in
 * those elements (a mass, a spring's length) differ in Q by the difference of their parts. */
void mbs_dynamics_forces_part(const MbsModel *m, const MbsKinematics *k, MbsDynamics *d,
                              const double *z, const double *zd, const unsigned char *bodies,
                              const unsigned char *forces, double *Q);
/* Structural pattern of dQ/dz (and of dQ/dzd, the same), n x n in compressed columns, from the
 * topology: Q_k = b_k^T (wrenches of the bodies in the subtree of node k) (paper 000 eq 9)
 * reads the coordinates on the path from the root to k and in k's subtree, and, through a force
 * on a line between a body of that subtree and another body, the path of the other body.
 * Joint forces act on their own coordinate. colptr has n + 1 entries; with rowind NULL only
 * colptr is filled. Returns the number of entries, or -1 when out of memory. */
int mbs_dynamics_forces_pattern(const MbsModel *m, int *colptr, int *rowind);

/* What force element F's law reads (mbs_force.h), in relative coordinates, from the positions
 * and velocities in k and the coordinates z, zd. at receives the points it acts at (line: both,
 * point: the first) and, for a line, dir its unit direction from point 1 to point 2 (either may
 * be NULL). Returns 0 when it acts on nothing here: a joint coordinate outside the spanning
 * tree, or a line of zero length (no direction; its rate is then 0). */
int mbs_dynamics_force_input(const MbsModel *m, const MbsKinematics *k, const double *z,
                             const double *zd, const MbsForce *F, MbsForceInput *in,
                             double at[2][3], double dir[3]);

#endif
