#include "mbs_jacobian.h"

#include <float.h>
#include <math.h>
#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#endif

/* One column: d Q / d x_j where x is z (which = 0) or zd (which = 1), written as -col. */
static int column(MbsJacobianMethod method, int n, int j, int which, int moved, double *zp,
                  double *zdp, const double *Q0, MbsForcesFn fn, void *ctx, double *Qp,
                  double *Qm, double *out)
{
    double *x = which ? zdp : zp;
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

int mbs_jacobian_threads(int requested, int max)
{
#ifdef _OPENMP
    int t = requested > 0 ? requested : omp_get_max_threads();
#else
    int t = 1;
    (void)requested;
#endif
    return t < 1 ? 1 : t > max ? max : t;
}

int mbs_jacobian_nd(MbsJacobianMethod method, int n, const double *z, const double *zd,
                    const double *Q0, MbsForcesFn fn, void *const *ctx, int nthreads,
                    double *work, double *K, double *C)
{
    int evals = 0;
    /* Columns interleaved among threads; each thread does its velocity columns first, which
     * share the position kinematics of the unperturbed z, then its position columns. */
#pragma omp parallel num_threads(nthreads) reduction(+ : evals) if (nthreads > 1)
    {
#ifdef _OPENMP
        int tid = omp_get_thread_num();
#else
        int tid = 0;
#endif
        double *w = work + (size_t)4 * n * tid;
        double *zp = w, *zdp = w + n, *Qp = w + 2 * n, *Qm = w + 3 * n;
        memcpy(zp, z, sizeof(double) * (size_t)n);
        memcpy(zdp, zd, sizeof(double) * (size_t)n);
        int first_velocity = 1;
#pragma omp for schedule(static, 1)
        for (int c = 0; c < 2 * n; ++c) {
            int which = c < n, j = which ? c : c - n;
            int moved = !which || first_velocity;
            first_velocity = first_velocity && !which;
            evals += column(method, n, j, which, moved, zp, zdp, Q0, fn, ctx[tid], Qp, Qm,
                            (which ? C : K) + (size_t)n * j);
        }
    }
    return evals;
}
