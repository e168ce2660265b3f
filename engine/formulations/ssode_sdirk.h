/* The SDIRK 4/15 integrator of ssode (paper 002 §4): Hairer and Wanner's L-stable, stiffly
 * accurate SDIRK of order 4 with 5 stages and gamma = 4/15, its order-3 embedded estimate
 * filtered through (I - h gamma J)^-1, simplified Newton with the convergence forecast, for
 * second-order systems y = (x, xd, w): x' = xd, xd' = a(t, x, xd), w' = p(t, x, xd), where w are
 * quadratures (the work of non-conservative forces) outside the error control. The Newton
 * matrix is reduced to I - h gamma J2 - (h gamma)^2 J1 (nx x nx; paper 002 eqs 41-46) with
 * J1 = da/dx, J2 = da/dxd and dw'/d(x, xd) from the caller's Jacobian function (ssode: the
 * tangent interface, ssode_jacobian.c). Everything is allocated in
 * ssode_sdirk_new; a step allocates nothing. */
#ifndef SSODE_SDIRK_H
#define SSODE_SDIRK_H

/* ydot = f(t, y) (y and ydot of 2 nx + nw); 0, or nonzero when f cannot be evaluated there (a
 * position problem without solution): the step is retried with a smaller h. */
typedef int (*SsodeSdirkRhs)(void *data, double t, const double *y, double *ydot);

/* J1 = da/dx, J2 = da/dxd (nx x nx, column-major) and Jw = dw'/d(x, xd) (nw x 2 nx) at
 * (t, y), where ydot = f(t, y); 0, or nonzero when they cannot be computed (the step is then
 * refused). */
typedef int (*SsodeSdirkJacobian)(void *data, double t, const double *y, const double *ydot,
                                  double *J1, double *J2, double *Jw);

typedef struct SsodeSdirk SsodeSdirk;

typedef struct {
    long steps;             /* accepted */
    long error_test_failures;
    long newton_iterations;
    long newton_failures;   /* convergence failures, including f failing at a stage */
    long jacobians;
    long rhs;               /* evaluations of f by the integrator (not by the Jacobian
                             * function) */
} SsodeSdirkCounters;

SsodeSdirk *ssode_sdirk_new(int nx, int nw, SsodeSdirkRhs rhs, SsodeSdirkJacobian jacobian,
                            void *data);
void ssode_sdirk_free(SsodeSdirk *sd);
void ssode_sdirk_set_tolerances(SsodeSdirk *sd, double rtol, double atol);
/* Largest step (0: none). */
void ssode_sdirk_set_max_step(SsodeSdirk *sd, double hmax);
/* Restart at (t, y) with ydot = f(t, y) and first step h0 (<= 0: estimated). */
void ssode_sdirk_restart(SsodeSdirk *sd, double t, const double *y, const double *ydot,
                         double h0);
/* The same trajectory in new coordinates at (t, y), ydot = f(t, y) (ssode's repartition): the
 * step size and controller history are kept, the Jacobian is evaluated afresh. */
void ssode_sdirk_rebase(SsodeSdirk *sd, double t, const double *y, const double *ydot);
/* One accepted step, ending at or before t_stop (exactly at it when it is reached). The last
 * evaluation of f is at the new (t, y). 0, or -1 when no step could be accepted (step size
 * below round-off or too many failures in a row): the state is then unchanged. */
int ssode_sdirk_step(SsodeSdirk *sd, double t_stop);
double ssode_sdirk_time(const SsodeSdirk *sd);
const double *ssode_sdirk_state(const SsodeSdirk *sd);
const double *ssode_sdirk_derivative(const SsodeSdirk *sd);
double ssode_sdirk_last_step(const SsodeSdirk *sd);
double ssode_sdirk_next_step(const SsodeSdirk *sd);
const SsodeSdirkCounters *ssode_sdirk_counters(const SsodeSdirk *sd);

/* Its whole state (time, state and derivative, step size, controller and Newton history, the
 * Jacobian), for a checkpoint: ssode_sdirk_checkpoint_size doubles. After restore a step
 * repeats the original bit for bit (the iteration matrix is factorized again from the same
 * Jacobian and h gamma). */
int ssode_sdirk_checkpoint_size(const SsodeSdirk *sd);
void ssode_sdirk_checkpoint_get(const SsodeSdirk *sd, double *x);
void ssode_sdirk_checkpoint_set(SsodeSdirk *sd, const double *x);

/* The tableau (tests/engine/test_ssode.c checks its order conditions). */
extern const double mbs_ssode_sdirk_c[5], mbs_ssode_sdirk_A[25], mbs_ssode_sdirk_b[5],
    mbs_ssode_sdirk_d[5];

#endif
