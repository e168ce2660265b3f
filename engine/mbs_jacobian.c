#include "mbs_jacobian.h"

#include <float.h>
#include <math.h>
#include <string.h>

/* One column: d Q / d x_j where x is z (which = 0) or zd (which = 1), written as -col. */
static int column(MbsJacobianMethod method, int n, int j, int which, double *zp, double *zdp,
                  const double *Q0, MbsForcesFn fn, void *ctx, double *Qp, double *Qm,
                  double *out)
{
    double *x = which ? zdp : zp;
    int moved = which == 0 || j == 0; /* velocity columns after the first reuse positions */
    double x0 = x[j];
    int evals;
    if (method == MBS_JACOBIAN_ND_FORWARD) {
        double h = sqrt(DBL_EPSILON) * fmax(1.0, fabs(x0));
        x[j] = x0 + h;
        h = x[j] - x0; /* exactly representable step */
        fn(ctx, zp, zdp, Qp, moved);
        for (int i = 0; i < n; ++i)
            out[i] = -(Qp[i] - Q0[i]) / h;
        evals = 1;
    } else {
        double h = cbrt(DBL_EPSILON) * fmax(1.0, fabs(x0));
        x[j] = x0 + h;
        fn(ctx, zp, zdp, Qp, moved);
        x[j] = x0 - h;
        fn(ctx, zp, zdp, Qm, which == 0);
        for (int i = 0; i < n; ++i)
            out[i] = -(Qp[i] - Qm[i]) / (2.0 * h);
        evals = 2;
    }
    x[j] = x0;
    return evals;
}

int mbs_jacobian_nd(MbsJacobianMethod method, int n, const double *z, const double *zd,
                    const double *Q0, MbsForcesFn fn, void *ctx, double *work, double *K,
                    double *C)
{
    double *zp = work, *zdp = work + n, *Qp = work + 2 * n, *Qm = work + 3 * n;
    memcpy(zp, z, sizeof(double) * (size_t)n);
    memcpy(zdp, zd, sizeof(double) * (size_t)n);
    int evals = 0;
    /* Velocity columns first: they share the position kinematics of the unperturbed z. */
    for (int j = 0; j < n; ++j)
        evals += column(method, n, j, 1, zp, zdp, Q0, fn, ctx, Qp, Qm, C + (size_t)n * j);
    for (int j = 0; j < n; ++j)
        evals += column(method, n, j, 0, zp, zdp, Q0, fn, ctx, Qp, Qm, K + (size_t)n * j);
    return evals;
}
