/* What the direct (tangent linear model) sensitivity methods share (sens_<formulation>.c):
 *  - the parameters' increments d_k = eps^(1/3) max(1, |rho_k|) and the models rho_k +- d_k,
 *    built once by the parameter machinery (mbs_model_with_parameter), so that a method takes
 *    derivatives along a direction and a parameter by central differences of its functions
 *    evaluated with those models at the state +- d_k times the direction (geometric parameters
 *    are then handled as fd handles them: by the model they build);
 *  - the objectives' derivatives the same way, integrated by the trapezoidal rule on the run's
 *    steps as psi is (mbs_objective.h), plus the final-value term;
 *  - the run: the formulation's run with the tangent linear model stepped after each step of the
 *    dynamics (no step cuts), the history callback, the wall times.
 * A method fills the state (q, qd, qdd) and its sensitivities (sq, sqd, sqdd) at t = 0 (start)
 * and after every step (step). Nothing here allocates after sens_direct_init.
 */
#ifndef SENS_DIRECT_H
#define SENS_DIRECT_H

#include "mbs_sensitivity.h"

typedef struct {
    const MbsSensitivityProblem *p;
    int n, np, no;            /* coordinates (of `kind`), parameters, objectives of the model */
    MbsCoordinateKind kind;
    double *delta;            /* np: the parameters' increments */
    MbsModel **models;        /* 2 np: rho_k + d_k (2k), rho_k - d_k (2k + 1) */
    MbsObjectiveEval **objectives; /* 2 np, of those models */
    double *q, *qd, *qdd;     /* n: the state after the last step */
    double *sq, *sqd, *sqdd;  /* n x np: its sensitivities, column k for parameter k */
    double *xp_q, *xp_qd, *xp_qdd, *xm_q, *xm_qd, *xm_qdd; /* n: perturbed states */
    double *fp, *fm;          /* nout: perturbed values */
    double *gp, *gm, *wp, *wm, *dg_last, *grad_integral, *dw_last, *psi_now, *grad_now;
    MbsObjectiveAccumulator acc;
    double t_last;
    long steps;
    int failed;
    MbsError error;
    double time_sensitivity;
} SensDirect;

/* n coordinates of kind, nout: the largest output of a function given to
 * sens_direct_directional. */
int sens_direct_init(SensDirect *S, const MbsSensitivityProblem *p, int n, int nout,
                     MbsCoordinateKind kind, MbsError *err);
void sens_direct_free(SensDirect *S);

/* A function of a method's scheme evaluated with one of the models (ctx: the method's
 * evaluation workspace of that model): out (nout) from q, qd, qdd. */
typedef void (*SensDirectFn)(void *ctx, const double *q, const double *qd, const double *qdd,
                             double *out);

/* d fn along (dq, dqd, dqdd) (NULL: 0) and parameter k at (q, qd, qdd): central differences
 * with the models rho_k +- d_k (their contexts plus, minus) and the state +- d_k times the
 * direction. */
void sens_direct_directional(SensDirect *S, SensDirectFn fn, void *plus, void *minus, int k,
                             int nout, const double *q, const double *qd, const double *qdd,
                             const double *dq, const double *dqd, const double *dqdd,
                             double *out);

typedef struct {
    const char *formulation;
    /* at t = 0, after the formulation's init: S->q.. and S->sq.. */
    int (*start)(void *method, SensDirect *S, const MbsFormulation *f, MbsError *err);
    /* after each step of the dynamics: S->q.. and S->sq.. at f->time */
    int (*step)(void *method, SensDirect *S, const MbsFormulation *f, MbsError *err);
    void *method;
} SensDirectScheme;

/* The run of p with the scheme's tangent linear model: psi, gradient, times into r. */
/* 1 when every field parameter q of m changes is a mass, centre of mass or inertia, a field of
 * a force element or gravity (directly or through parameters computed from it): the models
 * rho +- d then share the kinematics, and only M and Q differ. */
int sens_parameter_dynamic_only(const MbsModel *m, int q);
/* What parameter q changes when it changes only the dynamics: bodies[b] = 1 for the bodies
 * (mass, centre of mass, inertia; all of them for gravity) and forces[f] = 1 for the force
 * elements (the arrays, nbodies and nforces, are zeroed first), for
 * mbs_dynamics_forces_part. 0, or -1 out of memory. */
int sens_parameter_part(const MbsModel *m, int q, unsigned char *bodies, unsigned char *forces);

int sens_direct_run(SensDirect *S, const SensDirectScheme *scheme, MbsSensitivityResult *r,
                    MbsError *err);

#define SENS_COL(S, a, k) ((a) + (size_t)(S)->n * (size_t)(k))

#endif
