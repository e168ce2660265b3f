/* The semi-recursive kinematics and forces over dual numbers (mbs_scalar.h): the second
 * instance of mbs_kinematics_kernel.h and mbs_dynamics_kernel.h, the same source as the double
 * functions of mbs_kinematics.h and mbs_dynamics.h. Q and its derivatives along
 * MBS_DUAL_WIDTH directions in one evaluation: forward-mode automatic differentiation for the
 * tangent methods ad and ad-sparse (docs/architecture.md § Automatic differentiation). */
#ifndef MBS_DUAL_H
#define MBS_DUAL_H

#include "mbs_force.h"
#include "mbs_model.h"
#include "mbs_scalar.h"

typedef struct {
    int n;
    MbsDual *R, *p, *b, *Z, *D; /* as MbsKinematics */
    const double *clock;        /* as MbsKinematics */
} MbsKinematicsDual;

typedef struct {
    int n;
    MbsDual *Wacc; /* as MbsDynamics (its forces part) */
} MbsDynamicsDual;

/* Workspaces for model m (sized at init, as the double ones). Return 0 or -1. */
int mbs_kinematics_init_dual(MbsKinematicsDual *k, const MbsModel *m);
void mbs_kinematics_free_dual(MbsKinematicsDual *k);
int mbs_dynamics_init_dual(MbsDynamicsDual *d, const MbsModel *m);
void mbs_dynamics_free_dual(MbsDynamicsDual *d);

void mbs_kinematics_positions_dual(const MbsModel *m, MbsKinematicsDual *k, const MbsDual *z);
void mbs_kinematics_velocities_dual(const MbsModel *m, MbsKinematicsDual *k, const MbsDual *zd);
/* With accelerations zdd: D is the whole dZ/dt, and mbs_dynamics_forces_dual then gives
 * Q - M zdd (mbs_kinematics_motion). */
void mbs_kinematics_motion_dual(const MbsModel *m, MbsKinematicsDual *k, const MbsDual *zd,
                                const MbsDual *zdd);
void mbs_dynamics_forces_dual(const MbsModel *m, const MbsKinematicsDual *k, MbsDynamicsDual *d,
                              const MbsDual *z, const MbsDual *zd, MbsDual *Q);

/* The constraints of mbs_constraints.h over dual numbers: Phi, Phi_z (nrows x n, column-major,
 * overwritten) and the bias along the seeded directions (phit is real: Phi_t depends on t
 * only). Outputs may be NULL. */
void mbs_constraints_eval_dual(const MbsModel *m, const MbsKinematicsDual *k, double t,
                               const MbsDual *z, MbsDual *phi, MbsDual *phiz, double *phit);
void mbs_constraints_bias_dual(const MbsModel *m, const MbsKinematicsDual *k, double t,
                               MbsDual *bias);
/* Phi_z v (the motion in k computed from v) and Phi_z^T mu (W: 6 n of workspace) without
 * Phi_z, O(n + rows): with seeded positions their derivatives are Phi_zz[dz] v and
 * Phi_zz[dz]^T mu (mbs_constraints_kernel.h). */
void mbs_constraints_velocity_dual(const MbsModel *m, const MbsKinematicsDual *k,
                                   const MbsDual *v, MbsDual *out);
void mbs_constraints_reactions_dual(const MbsModel *m, const MbsKinematicsDual *k,
                                    const double *mu, MbsDual *W, MbsDual *out);

#endif
