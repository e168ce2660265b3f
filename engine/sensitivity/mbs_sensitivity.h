/* Sensitivities of a model's objectives (mbs_objective.h) with respect to its parameters
 * (mbs_model_with_parameter): psi and d psi / d rho after a run of settings->duration.
 *
 * Methods (`--method`):
 *   fd       central differences of whole simulations, psi(rho + d) - psi(rho - d) / 2d, one
 *            pair of runs per parameter, in parallel over the runs (OpenMP threads; the model
 *            is immutable and every run has its own formulation object). Any formulation.
 *   direct   the formulation's tangent linear model stepped along the run.
 *   adjoint  a forward run and a backward sweep of the adjoint equations.
 * A method a formulation does not have is refused with a message saying what it has.
 *
 * Runs for sensitivities never cut their step (max_halvings 0): the derivative of a run is that
 * of its step sequence; a step that fails ends the computation with the formulation's error.
 */
#ifndef MBS_SENSITIVITY_H
#define MBS_SENSITIVITY_H

#include "mbs_formulation.h"
#include "mbs_objective.h"

typedef enum {
    MBS_SENSITIVITY_DIRECT,
    MBS_SENSITIVITY_ADJOINT,
    MBS_SENSITIVITY_FD,
    MBS_SENSITIVITY_METHOD_COUNT
} MbsSensitivityMethod;

const char *mbs_sensitivity_method_name(MbsSensitivityMethod method);
int mbs_sensitivity_method_from_name(const char *name); /* -1 if unknown */

/* A running value along a run (direct methods: at every grid time): psi(t) = integral of g up
 * to t plus w(t), and its gradient, both for the problem's objectives and parameters. */
typedef void (*MbsSensitivityHistory)(void *data, double time, const double *psi,
                                      const double *gradient);

/* The state and its sensitivities at the same times (direct methods of penalty and ali3p, which
 * step d q / d rho: paper 004 sec 3): q (n coordinates of the formulation's kind, as
 * mbs_formulation_coordinate_kind) and sq = d q / d rho (n x nparameters, column k for
 * parameter k). Pointers valid during the call only. */
typedef void (*MbsSensitivityStateHistory)(void *data, double time, int n, const double *q,
                                           const double *sq);

/* How far a computation is, in [0, 1] (every method: direct after each grid step, fd after each
 * whole run — called from the run's thread, so it must be thread-safe —, matrix-r's adjoint
 * 0-0.5 for its forward run and 0.5-1 for the backward sweep). */
typedef void (*MbsSensitivityProgress)(void *data, double fraction);

typedef struct {
    const MbsModel *model;          /* compiled, with objectives and parameters */
    const char *formulation;
    const MbsSettings *settings;    /* step, duration, the formulation's options */
    const int *objectives;          /* indices into model->objectives */
    int nobjectives;
    const int *parameters;          /* indices into model->parameters */
    int nparameters;
    double fd_step;                 /* fd: relative increment (d = fd_step max(1, |rho|));
                                       0: MBS_SENSITIVITY_FD_STEP */
    int threads;                    /* fd: parallel runs; 0: as OpenMP offers */
    MbsSensitivityHistory history;  /* optional */
    void *history_data;
    int history_every;              /* grid steps between history calls (< 1: 1) */
    MbsSensitivityStateHistory state_history; /* optional; with history_every */
    void *state_history_data;
    /* optional, read between steps (direct methods of penalty and ali3p; matrix-r's forward
     * run, recomputed segments and backward sweep) and between runs (fd): nonzero ends the computation with MBS_FATAL and "stopped" (another thread sets it) */
    const volatile int *stop;
    MbsSensitivityProgress progress; /* optional */
    void *progress_data;
    /* optional: the method's own options, the struct mbs_sensitivity_settings describes (NULL:
     * its defaults) */
    const void *method_options;
} MbsSensitivityProblem;

/* The table of the method's own options for the formulation (matrix-r direct and adjoint:
 * adjoint-memory, ...), or NULL when it has none. */
const MbsSettingTable *mbs_sensitivity_settings(const char *formulation,
                                                MbsSensitivityMethod method);

/* 1 when the method gives state histories (state_history) for the formulation. */
int mbs_sensitivity_has_state_history(const char *formulation, MbsSensitivityMethod method);
/* The message of a computation ended by problem->stop. */
#define MBS_SENSITIVITY_STOPPED "stopped"


#define MBS_SENSITIVITY_FD_STEP 1e-5

typedef struct {
    double *psi;      /* nobjectives, filled by the caller-sized arrays */
    double *gradient; /* nobjectives x nparameters, row per objective */
    double time_dynamics;    /* wall s of the nominal run alone (the dynamics) */
    double time_sensitivity; /* wall s of the sensitivity computation beyond it */
    long steps;
} MbsSensitivityResult;

/* One run of problem's model and settings, accumulating every objective of the model
 * (psi: model->nobjectives entries). steps (optional): formulation steps taken. */
int mbs_objectives_run(const MbsModel *m, const char *formulation, const MbsSettings *settings,
                       double *psi, long *steps, MbsError *err);

/* 1 when the formulation has the method. */
int mbs_sensitivity_available(const char *formulation, MbsSensitivityMethod method);
/* 0 when the method can start with settings s (holding the formulation's options); else an
 * MbsError status with err naming what it refuses at once (matrix-r: an integrator other than
 * trapezoidal; ali3p: projection 'mdk'), so that a front end can say so before it starts a
 * run. What only a run shows (a model the method does not take) is still reported by it. */
int mbs_sensitivity_check(const char *formulation, MbsSensitivityMethod method,
                          const MbsSettings *s, MbsError *err);

/* psi and its gradient by method: 0, or < 0 with err (a method the formulation has not, a
 * failed run, a parameter value the model refuses). */
int mbs_sensitivity_compute(const MbsSensitivityProblem *p, MbsSensitivityMethod method,
                            MbsSensitivityResult *r, MbsError *err);

/* The methods: MbsSensitivityMethodClass (mbs_sensitivity_method.h), one file each
 * (sens_fd.c, sens_penalty.c, sens_ali3p.c, sens_matrix_r.c), registry in mbs_sensitivity.c. */

#endif
