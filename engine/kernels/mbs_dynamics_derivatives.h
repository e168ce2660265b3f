/* Analytical derivatives of the semi-recursive generalized forces Q(z, zd) = R^T (Qbar - Mbar D)
 * (paper 000 eqs 6-13; mbs_dynamics_forces) with respect to z and zd, in O(n * depth).
 *
 * Idea (as Pinocchio's RNEA derivatives, Carpentier & Mansard 2018, and MBSLIM, paper 001 §3):
 * moving z_j moves the subtree of node j rigidly with the twist b_j, and moving zd_j adds b_j to
 * the velocities of that subtree. So every body's wrench in the subtree changes by a spatial
 * cross product plus terms that do not depend on the body, and summing those over the subtree
 * needs only composite quantities of node i: inertia Ic_i, momentum hc_i, body wrench Wc_i and
 * Bc_i = sum crf(Z_k) Mbar_k - Mbar_k crm(Z_k). dQ_i/dz_j and dQ_i/dzd_j are then two dot
 * products of 6-vectors for every pair (i, j) with j an ancestor of i or i of j; force elements
 * add their own terms along the paths of the bodies they act on (mbs_force.h's derivative).
 */
#ifndef MBS_DYNAMICS_DERIVATIVES_H
#define MBS_DYNAMICS_DERIVATIVES_H

#include <stddef.h>

#include "mbs_constraints_derivatives.h"
#include "mbs_dynamics.h"

typedef struct {
    int n;
    double *work; /* per node: composites and the per-node vectors of the pair terms */
} MbsDynamicsDerivatives;

int mbs_dynamics_derivatives_init(MbsDynamicsDerivatives *w, const MbsModel *m);
void mbs_dynamics_derivatives_free(MbsDynamicsDerivatives *w);

/* 1 when every force element of the model has an analytical derivative of its law; otherwise 0
 * and why (naming the element and its kind) in why. */
int mbs_dynamics_derivatives_supported(const MbsModel *m, char *why, size_t size);

/* scale * dQ/dzd into dQ_dzd and scale * dQ/dz into dQ_dz (each n x n column-major with leading
 * dimension ld, every entry written), from the positions and velocities in k at z, zd. */
void mbs_dynamics_forces_derivatives(const MbsModel *m, const MbsKinematics *k,
                                     MbsDynamicsDerivatives *w, const double *z, const double *zd,
                                     double scale, double *dQ_dzd, double *dQ_dz, size_t ld);

/* dQ (n): the derivative of Q - M zdd (mbs_dynamics_forces with the whole accelerations A as
 * D) along a direction of the model's drawn data at fixed coordinates (w after
 * mbs_constraints_derivatives_model_direction without dz and _motion with zdd; dir its
 * numbers): every body's wrench moves with its node's translation, the derivatives of its
 * motion and its mass properties, every force element with its points (its law's numbers do not
 * move: mbs_model_direction.h). W (6 per node) are the subtree sums of the wrenches at the
 * point of differentiation, as mbs_dynamics_forces leaves them in its workspace (Wacc); z, zd
 * the coordinates (a driver's law reads its joint's); dW: 6 per node of work. Needs
 * mbs_dynamics_derivatives_supported.
 * (engine/mbs_dynamics_model_direction.c) */
void mbs_dynamics_forces_model_derivative(const MbsModel *m, const MbsKinematics *k,
                                          const double *A, const double *z, const double *zd,
                                          const double *W,
                                          const MbsConstraintsDerivatives *w,
                                          const MbsModelDirection *dir, double *dW, double *dQ);

/* dQ (n): the derivative of Q - M zdd along a parameter of the dynamics at fixed coordinates
 * and motion (k at z, zd; A the whole accelerations): the bodies reweighted by dir's mass
 * properties (dir may be NULL: none), and the force elements with forces[f] set by central
 * differences of their laws with plus's and minus's numbers (rho +- delta) at the same
 * geometry — instead of two evaluations of the part of the model (mbs_dynamics_forces_part).
 * dW: 6 per node of work. */
void mbs_dynamics_forces_parameter_derivative(const MbsModel *m, const MbsKinematics *k,
                                              const double *A, const double *z, const double *zd,
                                              const MbsModelDirection *dir,
                                              const MbsModel *plus, const MbsModel *minus,
                                              double delta, const unsigned char *forces,
                                              double *dW, double *dQ);

#endif
