/* Objective functions of the motion, psi = w(q, qd, qdd at t_F) + integral of g(q, qd, qdd, t) dt
 * (paper 001 eq 32, paper 004 eq 8), for sensitivities and optimisation.
 *
 * A model's objectives (MbsObjective, MbsObjectiveTerm in mbs_model.h) are sums of terms
 * weight * measure(quantity): the squared norm or a component of a point's position (absolute,
 * or relative to its position at t = 0), velocity or acceleration, of a joint coordinate or
 * rate, or of a body's angular velocity. g and w are evaluated from the coordinates of either
 * kinematic description (a formulation's q, qd, qdd: relative z or natural q, see
 * MbsFormulationClass.coordinate_kind), through the kinematics the formulations use
 * (mbs_kinematics.h, mbs_natural.h), so that every formulation reads the same numbers.
 *
 * Derivatives: g and w are simple functions (a square, a component) of the quantities y they
 * read, so dg/dy is exact; the partial derivatives with respect to the coordinates, which
 * direct and adjoint methods chain with dq/drho or with adjoint variables, are
 * dg/dq = dg/dy dy/dq with dy/dq by central differences of the kinematics (relative error
 * about 1e-10; exact up to round-off for the natural coordinates' linear point maps).
 *
 * Nothing here allocates after mbs_objective_eval_new.
 */
#ifndef MBS_OBJECTIVE_H
#define MBS_OBJECTIVE_H

#include "mbs_formulation.h"
#include "mbs_constraints_derivatives.h"
#include "mbs_kinematics.h"
#include "mbs_model.h"

/* Names in model files: "position", "displacement", ..., "angular_velocity". */
const char *mbs_quantity_name(MbsQuantityKind kind);
MbsQuantityKind mbs_quantity_from_name(const char *name); /* MBS_QUANTITY_COUNT if unknown */
int mbs_quantity_size(MbsQuantityKind kind);              /* 3 or 1 */

/* The value of one term from the quantity y it reads (size mbs_quantity_size; the term's
 * reference is subtracted), and d(term)/dy (may be NULL). */
double mbs_objective_term_value(const MbsObjectiveTerm *t, const double y[3], double dy[3]);

typedef struct MbsObjectiveEval MbsObjectiveEval;

/* An evaluator of every objective of compiled model m from coordinates of `kind`. NULL with err
 * when a term cannot be read in that description (a joint coordinate of a cut joint in
 * relative coordinates) or out of memory. */
MbsObjectiveEval *mbs_objective_eval_new(const MbsModel *m, MbsCoordinateKind kind,
                                         MbsError *err);
void mbs_objective_eval_free(MbsObjectiveEval *e);
int mbs_objective_eval_ncoords(const MbsObjectiveEval *e);

/* Record the state at t = 0: the reference of displacement terms (and of revolute angle
 * branches in natural coordinates). Call before any other evaluation. */
void mbs_objective_eval_set_initial(MbsObjectiveEval *e, const double *q, const double *qd,
                                    const double *qdd);

/* g and w of every objective (m->nobjectives entries each; either may be NULL) at a state. */
void mbs_objective_eval_values(MbsObjectiveEval *e, const double *q, const double *qd,
                               const double *qdd, double *g, double *w);
/* The same in relative coordinates from kinematics k that already hold the positions of z and
 * the velocities of zd (mbs_kinematics_positions, _velocities: a formulation's own), without
 * computing them again. */
void mbs_objective_eval_values_kinematics(MbsObjectiveEval *e, const MbsKinematics *k,
                                          const double *z, const double *zd, const double *zdd,
                                          double *g, double *w);

/* The derivatives of g and w (dg, dw: nobjectives each) along a direction (dz, dzd, dzdd) of
 * the state, analytically, in relative coordinates: k holds the positions of z and velocities
 * of zd, A (6 per node) the whole accelerations (mbs_kinematics_accelerations' D_out), and cw
 * the direction (mbs_constraints_derivatives_direction for dz, then _motion with zdd, dzdd). */
void mbs_objective_eval_directional(MbsObjectiveEval *e, const MbsKinematics *k,
                                    const MbsConstraintsDerivatives *cw, const double *A,
                                    const double *z, const double *zd, const double *dz,
                                    const double *dzd, double *dg, double *dw);

/* Partial derivatives at a state, nobjectives x ncoords each, row i for objective i (row-major:
 * out[i * n + j]); any may be NULL. g_q0: derivative of g with respect to the initial
 * positions q(0) (through the displacement terms' reference). The same for w. */
typedef struct {
    double *g_q, *g_qd, *g_qdd, *g_q0;
    double *w_q, *w_qd, *w_qdd, *w_q0;
} MbsObjectivePartials;
void mbs_objective_eval_partials(MbsObjectiveEval *e, const double *q, const double *qd,
                                 const double *qdd, const MbsObjectivePartials *out);

/* Running value of the objectives along a run: the trapezoidal rule on the states it is given
 * (the integrator's own rule; every step of a run gives the integral the sensitivity methods
 * differentiate), plus w at the last state. */
typedef struct {
    MbsObjectiveEval *eval;
    int nobjectives;
    double t_last;
    int started;
    double *integral; /* of g so far */
    double *g_last, *w_last;
    double *q, *qd, *qdd; /* scratch: a formulation's state */
} MbsObjectiveAccumulator;

int mbs_objective_accumulator_init(MbsObjectiveAccumulator *a, const MbsModel *m,
                                   MbsCoordinateKind kind, MbsError *err);
void mbs_objective_accumulator_free(MbsObjectiveAccumulator *a);
/* Add the state of f at its current time (the first call is t = 0). */
void mbs_objective_accumulator_add(MbsObjectiveAccumulator *a, const MbsFormulation *f);
/* psi (nobjectives entries) = integral so far + w at the last state added. */
void mbs_objective_accumulator_psi(const MbsObjectiveAccumulator *a, double *psi);

#endif
