/* Sensitivities of `matrix-r` runs (paper 001 sec 3): gradients dpsi/drho of objectives
 *   psi = integral over [0, t_end] of g(t, z, zd, zdd; rho) dt
 * with respect to model parameters rho, by the direct method (DDM, paper 001 sec 3.1, eq 48,
 * Algorithm 1) or the adjoint method (AVM, paper 001 sec 3.2, eqs 62-69, Algorithm 2).
 *
 * Both differentiate the discrete scheme the dynamics uses (the implicit trapezoidal rule on
 * the independent coordinates z_i, as paper 001 sec 4 does for dynamics and sensitivities):
 * the direct method is the tangent linear model of each trapezoidal step (one linear system of
 * d equations per parameter and step, with the step's tangent matrix), the adjoint method its
 * exact transpose run backwards (one system per objective and step), and psi is integrated by
 * the trapezoidal rule on the same grid. So direct and adjoint agree to round-off, and both
 * are the derivatives of the very numbers a finite-difference of whole simulations computes.
 *
 * The derivatives of the reduced equations F(z_i, zd_i, zdd_i; rho) = Mh zdd_i - rh (001 eq
 * 29) and of g come from one function (sens_derivatives in sens_matrix_r.c): today by the
 * tangent interface (finite differences in z_i, zd_i, zdd_i, which include R^Phi's and S c's
 * derivatives, eqs 53-59) and by central differences of models rebuilt with a changed
 * parameter (mbs_model_with_parameter); analytical derivatives can replace it there.
 *
 * The adjoint stores the forward trajectory (matrix-r checkpoints, 4n + nr + 7 doubles a step);
 * when that exceeds the memory bound it keeps every K-th state and recomputes each segment of
 * K steps from its checkpoint in the backward sweep (bit-identical replay), with K the
 * smallest that fits.
 *
 * A change of independent coordinates during the run (matrix-r's repartition) is crossed:
 * the next step starts from [z, zd, zdd] at the new independent nodes, a function of the old
 * independent state and rho whose Jacobian maps the direct sensitivities forward and the
 * adjoint variables backward.
 *
 * Restrictions (refused with a message): degrees of freedom must be relative coordinates
 * (constant B), the integrator must be the trapezoidal rule, and steps are not cut (a failing
 * step ends the sensitivity run).
 */
#ifndef SENS_MATRIX_R_H
#define SENS_MATRIX_R_H

#include <stddef.h>

#include "form_matrix_r.h"
#include "mbs_constraints_derivatives.h"
#include "mbs_settings.h"

/* The objectives psi_i = w_i(t_end) + integral of g_i dt (001 eq 30 with a terminal term).
 * values writes g and w (count values each) at time t for model m (the run's model or one with
 * a changed parameter), with the kinematics current at z, zd; zdd are the accelerations.
 * prepare (optional) is called once for the run's model and for every model with a changed
 * parameter, with a formulation at t = 0 on it (the reference of displacements). Both return 0
 * or an MbsError status. */
typedef struct {
    int count;
    int (*values)(void *ctx, const MbsModel *m, const MbsKinematics *kin, double t,
                  const double *z, const double *zd, const double *zdd, double *g, double *w);
    int (*prepare)(void *ctx, const MbsModel *m, const MbsFormulation *initial, MbsError *err);
    /* optional: the derivatives of g and w along a direction of the state, exactly (the
     * arguments of mbs_objective_eval_directional, at the run's model); without it they are
     * central differences of values */
    int (*directional)(void *ctx, const MbsModel *m, const MbsKinematics *kin,
                       const MbsConstraintsDerivatives *cw, const double *A, const double *z,
                       const double *zd, const double *dz, const double *dzd, double *dg,
                       double *dw);
    void *ctx;
} MbsSensObjectives;

typedef enum { MBS_SENS_DIRECT, MBS_SENS_ADJOINT } MbsSensMethod;

typedef struct {
    int jacobian;        /* MbsJacobianMethod of the state derivatives: nd-forward, nd-central
                          * or ad (matrix-r's directional derivatives) */
    double memory;       /* adjoint: bound on the stored trajectory, MiB */
    double parameter_step; /* relative increment of the parameters' central differences */
    int newton_matrix;   /* direct: 0 the run's steps start with the sensitivities' exact
                          * tangent (MBS_SENS_NEWTON_SENSITIVITIES), 1 they evaluate their own */
    int geometry;        /* the explicit terms of a parameter of the geometry: analytically
                          * along the drawing's derivative where it only moves points
                          * (MBS_SENS_GEOMETRY_ANALYTICAL), or differences of rebuilt models */
} MbsMatrixRSensOptions;

enum { MBS_SENS_NEWTON_SENSITIVITIES, MBS_SENS_NEWTON_OWN };
enum { MBS_SENS_GEOMETRY_ANALYTICAL, MBS_SENS_GEOMETRY_DIFFERENCES };

extern const MbsSettingTable mbs_matrix_r_sens_settings;

/* 0 when settings (holding matrix-r's options) can start its sensitivities: the trapezoidal
 * integrator; else an MbsError status with err saying what to change. */
int mbs_matrix_r_sensitivity_check(const MbsSettings *s, MbsError *err);

/* Running results, given to the observer after every step (direct: t rises from 0; adjoint:
 * the forward run reports psi, then the backward sweep — backward = 1 — reports the gradient
 * accumulated from t_end down to t). */
typedef struct {
    int nobjectives, nparameters;
    double time;
    int backward; /* adjoint: 1 during the backward sweep */
    double *psi;      /* nobjectives */
    double *gradient; /* nobjectives x nparameters, row-major: [i * nparameters + j] */
    const double *state_sensitivity; /* direct: dz_i/drho (d x nparameters, column-major) */
    int dofs;
    /* direct: the coordinates z (ncoords) and dz/drho (ncoords x nparameters, column-major):
     * R^Phi dz_i/drho plus, for a geometric parameter, the move of the dependent coordinates
     * at fixed z_i (z_rho = -S Phi_rho) */
    const double *coordinates, *coordinate_sensitivity;
    int ncoords;
    /* totals of the last call */
    long steps;
    double time_dynamics;    /* s: the forward run's steps */
    double time_sensitivity; /* s: derivatives, sensitivity equations, recomputation */
    double time_recompute;   /* s: adjoint, recomputed forward segments (in time_sensitivity) */
    size_t stored_bytes;     /* adjoint: the stored trajectory (checkpoints and one segment) */
    size_t full_bytes;       /* adjoint: what storing every state would take */
    long checkpoint_interval; /* adjoint: K (1: every state stored) */
    long derivative_evaluations; /* evaluations of F and g for derivatives */
    long partition_changes;  /* changes of independent coordinates the sensitivities crossed */
    int geometry_analytical; /* parameters of the geometry whose terms were taken along the
                              * drawing's derivative (the others: rebuilt models differenced) */
} MbsSensResult;

typedef void (*MbsSensObserver)(void *data, const MbsSensResult *r);

/* Gradient of the objectives w.r.t. the model parameters params[0..np-1] (indices into
 * m->parameters) over a matrix-r run of m with settings s up to t_end. out's arrays are
 * allocated here (mbs_sens_result_free). options NULL: the table's defaults. observer may be
 * NULL. Returns 0, or an MbsError status with err filled (then out is freed). */
int mbs_matrix_r_sensitivity(const MbsModel *m, const MbsSettings *s, const int *params, int np,
                             const MbsSensObjectives *objectives, MbsSensMethod method,
                             const MbsMatrixRSensOptions *options, double t_end,
                             MbsSensObserver observer, void *observer_data, MbsSensResult *out,
                             MbsError *err);
void mbs_sens_result_free(MbsSensResult *r);

/* The same for the objectives the model declares (m->objectives, mbs_objective.h: evaluated
 * for each model with its own initial state as the reference of displacements). */
int mbs_matrix_r_model_sensitivity(const MbsModel *m, const MbsSettings *s, const int *params,
                                   int np, MbsSensMethod method,
                                   const MbsMatrixRSensOptions *options, double t_end,
                                   MbsSensObserver observer, void *observer_data,
                                   MbsSensResult *out, MbsError *err);

/* Position, velocity and acceleration of model point `point` for the kinematics kin (positions
 * and velocities current) and accelerations zdd: what an integrand of points reads. Any output
 * may be NULL. */
void mbs_sens_point_motion(const MbsModel *m, const MbsKinematics *kin, const double *zdd,
                           int point, double r[3], double v[3], double a[3]);

#endif
