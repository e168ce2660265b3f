/* Semi-recursive open-chain kinematics in relative coordinates (paper 000 eqs 2-5): positions,
 * velocities and point queries are the double instance of mbs_kinematics_kernel.h (mbs_dual.h
 * has the dual-number one, for automatic differentiation).
 *
 * All bodies share the global origin as reference point: Z_k = [s_dot; omega] is the velocity
 * of the point of node k that coincides with the origin, and its angular velocity.
 * Z_k = Z_parent + b_k zd_k, and D_k = D_parent + b_dot_k zd_k is dZ_k/dt when zdd = 0.
 */
#ifndef MBS_KINEMATICS_H
#define MBS_KINEMATICS_H

#include "mbs_model.h"

typedef struct {
    int n;
    double *R; /* 9 per node: rotation from the drawing (row-major) */
    double *p; /* 3 per node: translation, x = R x_drawn + p */
    double *b; /* 6 per node */
    double *Z; /* 6 per node */
    double *D; /* 6 per node */
    /* The time of the state the kinematics are at, for the laws that read it (the speed
     * controller's integral, docs/design/engine.md § Drivers): a formulation points it at the
     * time it evaluates (set once per stage, shared by its workspaces and threads); NULL
     * (init's): t = 0. Copies of the struct share it. */
    const double *clock;
} MbsKinematics;

int mbs_kinematics_init(MbsKinematics *k, const MbsModel *m);
void mbs_kinematics_free(MbsKinematics *k);
/* Poses and b vectors for coordinates z. */
void mbs_kinematics_positions(const MbsModel *m, MbsKinematics *k, const double *z);
/* Z and D for velocities zd (after mbs_kinematics_positions). */
void mbs_kinematics_velocities(const MbsModel *m, MbsKinematics *k, const double *zd);
/* The same with accelerations zdd (NULL: as mbs_kinematics_velocities): D is then the whole
 * dZ/dt, and the point and vector motions below give whole accelerations. */
void mbs_kinematics_motion(const MbsModel *m, MbsKinematics *k, const double *zd,
                           const double *zdd);

/* D_out = D + sum over the path of b_j zdd_j (6 per node; acc: 6 per node of workspace): the
 * whole dZ/dt for accelerations zdd with the positions and velocities in k, into another
 * array, so that a copy of k with D = D_out gives the dynamics kernel's Q - M zdd (and its
 * analytical derivatives those of Q - M zdd) without touching k. */
void mbs_kinematics_accelerations(const MbsModel *m, const MbsKinematics *k, const double *zdd,
                                  double *acc, double *D_out);
/* The whole acceleration of the point at r (global) of a body for accelerations zdd, from the
 * positions and velocities in k: the velocity-product part (mbs_kin_point_motion) plus
 * sum over the path of (b_j(1:3) + b_j(4:6) x r) zdd_j. */
void mbs_kin_point_acceleration(const MbsModel *m, const MbsKinematics *k, int body,
                                const double r[3], const double *zdd, double a[3]);

/* Per-body queries (ground: fixed). */
void mbs_kin_body_pose(const MbsModel *m, const MbsKinematics *k, int body, double R[9],
                       double p[3]);
/* Current position of the drawn point x0 of body. */
void mbs_kin_point(const MbsModel *m, const MbsKinematics *k, int body, const double x0[3],
                   double r[3]);
/* Current direction of the drawn vector u0 of body. */
void mbs_kin_vector(const MbsModel *m, const MbsKinematics *k, int body, const double u0[3],
                    double u[3]);
/* Velocity of the body point at r, and its acceleration when zdd = 0. Either may be NULL. */
void mbs_kin_point_motion(const MbsModel *m, const MbsKinematics *k, int body, const double r[3],
                          double v[3], double a_bias[3]);
/* Time derivative of the body vector u and its second derivative when zdd = 0. */
void mbs_kin_vector_motion(const MbsModel *m, const MbsKinematics *k, int body,
                           const double u[3], double ud[3], double udd_bias[3]);
/* Velocity of the body point at r (zero for ground). */
void mbs_kin_point_velocity(const MbsModel *m, const MbsKinematics *k, int body,
                            const double r[3], double v[3]);
/* Row of the Jacobian of direction . v (v the velocity of the body point at r) with respect to
 * zd: out[j * ld] for every coordinate j (zero off the body's path to the root). */
void mbs_kin_point_velocity_row(const MbsModel *m, const MbsKinematics *k, int body,
                                const double r[3], const double direction[3], double *out,
                                size_t ld);
/* Angular velocity of a body (zero for ground). */
void mbs_kin_body_omega(const MbsModel *m, const MbsKinematics *k, int body, double w[3]);

#endif
