/* Tangent Jacobian J = -dQ/d[z, zd] = [K, C] by numerical differentiation (paper 000 eq 23). */
#ifndef MBS_JACOBIAN_H
#define MBS_JACOBIAN_H

#include "mbs_formulation.h"

/* Generalized forces Q(z, zd) of the open chain; ctx carries its own workspaces.
 * positions_changed = 0 promises that z equals the z of the previous call, so the position
 * kinematics may be reused (only velocity columns are being perturbed). */
typedef void (*MbsForcesFn)(void *ctx, const double *z, const double *zd, double *Q,
                            int positions_changed);

/* K = -dQ/dz and C = -dQ/dzd, each n x n column-major. Q0 = Q(z, zd) (used by forward
 * differences). Columns are shared among nthreads threads (OpenMP), thread t evaluating fn with
 * ctx[t] and work + 4 n t (work: 4 n nthreads doubles). Returns the number of evaluations. */
int mbs_jacobian_nd(MbsJacobianMethod method, int n, const double *z, const double *zd,
                    const double *Q0, MbsForcesFn fn, void *const *ctx, int nthreads,
                    double *work, double *K, double *C);

/* Threads to use for a requested count (0: what OpenMP offers), at most max. */
int mbs_jacobian_threads(int requested, int max);

#endif
