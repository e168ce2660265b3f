/* Loop-closure and driver constraints in relative coordinates (paper 003 eqs 25-30): written
 * with the natural coordinates (points and unit vectors) of the cut joints, which are functions
 * of z; Phi_z by the chain rule from the b vectors of the tree. */
#ifndef MBS_CONSTRAINTS_H
#define MBS_CONSTRAINTS_H

#include "mbs_kinematics.h"

/* Positions must be current in k (computed from z). Outputs may be NULL:
 *   phi (nrows), phiz (nrows x n, column-major, overwritten), phit (nrows).
 * Velocities must be current in k for bias (nrows): d2phi/dt2 at zdd = 0. */
void mbs_constraints_eval(const MbsModel *m, const MbsKinematics *k, double t, const double *z,
                          double *phi, double *phiz, double *phit);
/* The same, for a phiz buffer whose entries outside the topology's row pattern (row_ptr,
 * row_cols) are zero on entry (zeroed once, written only by this function): only the pattern is
 * cleared, O(nonzeros) instead of O(nrows n). Same values, bit for bit. */
void mbs_constraints_eval_pattern(const MbsModel *m, const MbsKinematics *k, double t,
                                  const double *z, double *phi, double *phiz, double *phit);
void mbs_constraints_bias(const MbsModel *m, const MbsKinematics *k, double t, double *bias);
/* Phi_z v (nrows) with the motion in k computed from v (mbs_kinematics_velocities(v)), and
 * Phi_z^T mu (n; mu one value per row, W 6 n of workspace), both without forming Phi_z. */
void mbs_constraints_velocity(const MbsModel *m, const MbsKinematics *k, const double *v,
                              double *out);
void mbs_constraints_reactions(const MbsModel *m, const MbsKinematics *k, const double *mu,
                               double *W, double *out);

/* Numerical rank of Phi_z at time t and coordinates z (NULL: the drawn configuration, z = 0);
 * singular values below 1e-9 of the largest count as zero. -1 when out of memory. The model's
 * degrees of freedom are mbs_model_ncoords(m) minus this rank. Allocates. */
int mbs_constraints_rank(const MbsModel *m, double t, const double *z);

/* A += alpha Phi_z^T Phi_z (A n x n column-major), using the structural sparsity of Phi_z. */
void mbs_constraints_add_gram(const MbsModel *m, const double *phiz, double alpha, double *A);

#endif
