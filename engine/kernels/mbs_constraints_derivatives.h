/* Analytical directional derivatives of the constraint terms matrix-r's tangent needs (paper 001
 * eqs 50-52: the Phi_zz products), written by hand from the kinematics as
 * mbs_dynamics_derivatives.c is for Q; the same numbers as the dual instance of
 * mbs_constraints_kernel.h gives (tests/app/test-tangent-ad.c checks them column by column).
 *
 * Motions about the origin m = [v; w] (as b_k, Z_k, D_k), crm(m) x = [w x x_v + v x x_w;
 * w x x_w]. Moving z along dz turns node k's subtree with the twist T_k = T_parent + b_k dz_k:
 * d b_k = crm(T_parent) b_k, d r = T_s + T_w x r for a point of node k, d u = T_w x u for a
 * vector. A twist built from rates v, Z^v_k = Z^v_parent + b_k v_k, changes by
 * dZ^v_k = dZ^v_parent + crm(T_parent) b_k v_k (+ b_k dv_k when the rates move too), and
 * D_k = D_parent + crm(Z_parent) b_k zd_k by
 * dD_k = dD_parent + (crm(dZ_parent) b_k + crm(Z_parent) d b_k) zd_k + crm(Z_parent) b_k dzd_k.
 * The rows (mbs_topology.h) are then differentiated term by term. */
#ifndef MBS_CONSTRAINTS_DERIVATIVES_H
#define MBS_CONSTRAINTS_DERIVATIVES_H

#include "mbs_kinematics.h"
#include "mbs_model_direction.h"
#include "mbs_topology.h"

typedef struct {
    int n;
    double *T;       /* 6 per node: the position twist of the direction dz */
    double *Zv, *dZv; /* 6 per node: the twist of rates v and its derivative */
    double *dD;      /* 6 per node: the derivative of D */
    double *W, *dW;  /* 6 per node: reaction wrenches and their derivative */
    /* a direction of the model's drawn data (mbs_constraints_derivatives_model_direction), or
     * NULL (a direction of the coordinates): its points move the rows' and the objectives'
     * points, and xdb (6 per node) is its own change of b_k, added to crm(T_parent) b_k */
    const MbsModelDirection *model;
    double *xdb;
    double *db;      /* 6 per node: d b_k of the last mbs_constraints_derivatives_motion */
} MbsConstraintsDerivatives;

int mbs_constraints_derivatives_init(MbsConstraintsDerivatives *w, const MbsModel *m);
void mbs_constraints_derivatives_free(MbsConstraintsDerivatives *w);

/* The direction of the positions, dz (n): its twists, which the functions below read. */
void mbs_constraints_derivatives_direction(const MbsModel *m, const MbsKinematics *k,
                                           MbsConstraintsDerivatives *w, const double *dz);

/* A direction of the model's drawn data at fixed coordinates (a parameter of the geometry that
 * moves points, mbs_model_direction.h): no body turns, so T_k = [dp_k; 0] with
 * p_k = (R_parent - R_k) point_k + p_parent for a revolute node, and b_k = [a_k x u_k; u_k],
 * a_k = R_parent point_k + p_parent, changes by crm(T_parent) b_k + [R_parent dpoint_k x u_k; 0].
 * The functions below then differentiate along it, with the rows' points (rows: the model's,
 * in order) and the objectives' points moved by R dx0; the rates zd, zdd do not move (dzd =
 * dzdd = 0 in mbs_constraints_derivatives_motion). With dz (not NULL) the direction is that
 * plus dz's (T_k gets b_k dz_k too, and bodies turn): the total derivative along a parameter
 * whose dependent coordinates move by dz, for the Phi_zz products of both at once (not for
 * mbs_dynamics_forces_model_derivative, which needs dz = NULL). */
void mbs_constraints_derivatives_model_direction(const MbsModel *m, const MbsKinematics *k,
                                                 MbsConstraintsDerivatives *w,
                                                 const MbsModelDirection *dir, const double *dz);

/* db (6): the derivative of node's b along the direction (crm(T_parent) b, and a model
 * direction's own change). */
void mbs_constraints_derivatives_node_db(const MbsModel *m, const MbsKinematics *k,
                                         const MbsConstraintsDerivatives *w, int node,
                                         double db[6]);

/* The derivative along (dz, dzd, dzdd) of the motion, after mbs_constraints_derivatives_direction
 * (dz): w->dZv of the velocity twists Z of k (rates zd) and w->dD of the accelerations D of k
 * (zdd NULL: the bias, as k holds it) or of the whole accelerations D + sum b zdd (zdd given:
 * mbs_kinematics_accelerations' D_out). */
void mbs_constraints_derivatives_motion(const MbsModel *m, const MbsKinematics *k,
                                        MbsConstraintsDerivatives *w, const double *zd,
                                        const double *dzd, const double *zdd,
                                        const double *dzdd);

/* The same for a direction of the accelerations alone (dz = dzd = 0: the sensitivities' columns
 * of zdd_i): T = dZv = 0 and dD_k = dD_parent + b_k dzdd_k, what the two calls above give for it
 * to the bit, without their crm products. */
void mbs_constraints_derivatives_accelerations(const MbsModel *m, const MbsKinematics *k,
                                               MbsConstraintsDerivatives *w, const double *dzdd);

/* dD (6 per node) = the derivative of the whole accelerations D + sum b zdd along (dz, dzd,
 * dzdd), from w after mbs_constraints_derivatives_motion without zdd (the bias's, in w->dD, and
 * its d b_k):
 * what _motion with zdd would give, to round-off, without its crm products again (dD may not
 * be w->dD). */
void mbs_constraints_derivatives_whole(const MbsModel *m, const MbsKinematics *k,
                                       const MbsConstraintsDerivatives *w, const double *zdd,
                                       const double *dzdd, double *dD);

/* Position, velocity, acceleration of a body's point (drawn at x0; a model direction moves it
 * by dx0 when not NULL) and their derivatives along
 * the direction of mbs_constraints_derivatives_motion, whose accelerations (6 per node) are A. */
typedef struct {
    double r[3], dr[3], v[3], dv[3], a[3], da[3];
} MbsPointDerivatives;
void mbs_constraints_derivatives_point(const MbsModel *m, const MbsKinematics *k,
                                       const MbsConstraintsDerivatives *w, const double *A,
                                       int body, const double x0[3], const double *dx0,
                                       MbsPointDerivatives *out);

/* The rows differentiated below: the model's (m->topo->rows) or any others of the same kinds
 * (matrix-r appends one per point coordinate chosen as a degree of freedom: a points row
 * against the ground). */

/* out (nrows) = Phi_zz[dz] v: the derivative along dz of Phi_z v with the rates v fixed. */
void mbs_constraints_derivatives_velocity(const MbsModel *m, const MbsKinematics *k,
                                          MbsConstraintsDerivatives *w, const MbsRow *rows,
                                          int nrows, const double *v, double *out);

/* out (nrows) = the derivative of the bias (mbs_constraints_bias, the motion in k from zd)
 * along dz and the velocity direction dzd. */
void mbs_constraints_derivatives_bias(const MbsModel *m, const MbsKinematics *k,
                                      MbsConstraintsDerivatives *w, const MbsRow *rows,
                                      int nrows, const double *zd, const double *dzd,
                                      double *out);

/* dphi (nrows): the derivative of Phi along the direction (positions only; DRIVER rows 0). */
void mbs_constraints_derivatives_positions(const MbsModel *m, const MbsKinematics *k,
                                           MbsConstraintsDerivatives *w, const MbsRow *rows,
                                           int nrows, double *dphi);

/* out (n) = Phi_zz[dz]^T mu: the derivative along dz of Phi_z^T mu (mu one value per row). */
void mbs_constraints_derivatives_reactions(const MbsModel *m, const MbsKinematics *k,
                                           MbsConstraintsDerivatives *w, const MbsRow *rows,
                                           int nrows, const double *mu, double *out);

#endif
