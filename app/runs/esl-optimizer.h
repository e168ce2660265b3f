/* The design optimiser shared by `eslabon-cli optimize` and the window (EslOptimizationController):
 * minimise one objective of a model (psi = w(t_F) + integral of g dt, mbs_objective.h) over some
 * of its parameters within bounds, with NLopt's gradient-based L-BFGS or SLSQP, the gradient of
 * every evaluation by a sensitivity method (mbs_sensitivity.h) on the model rebuilt at the
 * iterate (mbs_model_with_parameter).
 *
 * One call runs the whole optimisation on the calling thread; a callback sees every evaluation
 * and a stop flag (set from another thread) ends it between evaluations (nlopt_force_stop) or
 * inside one (the sensitivity's own stop), which then does not count.
 *
 * GLib-level, no GTK. */
#ifndef ESL_OPTIMIZER_H
#define ESL_OPTIMIZER_H

#include <glib.h>

#include "mbs_sensitivity.h"

G_BEGIN_DECLS

/* The algorithms, indices into one table (names for the CLI and the project, labels for the
 * window). */
typedef enum {
    ESL_OPTIMIZER_LBFGS,
    ESL_OPTIMIZER_SLSQP,
    ESL_OPTIMIZER_ALGORITHM_COUNT
} EslOptimizerAlgorithm;

/* "lbfgs", "slsqp". */
const char *esl_optimizer_algorithm_name(EslOptimizerAlgorithm algorithm);
/* "L-BFGS", "SLSQP" (names, not translated). */
const char *esl_optimizer_algorithm_label(EslOptimizerAlgorithm algorithm);
/* NLopt's own description ("Limited-memory BFGS (L-BFGS) (local, derivative-based)"). */
const char *esl_optimizer_algorithm_description(EslOptimizerAlgorithm algorithm);
/* -1 when unknown. */
int esl_optimizer_algorithm_from_name(const char *name);

#define ESL_OPTIMIZER_MAX_EVALUATIONS 100
#define ESL_OPTIMIZER_XTOL 1e-8

/* One evaluation: its index (1, 2, ...), psi, its gradient and the parameters x (n each).
 * Called on the optimising thread; the pointers are valid during the call. */
typedef void (*EslOptimizerEvaluation)(void *data, int index, double psi, const double *gradient,
                                       const double *x, int n);

typedef struct {
    const MbsModel *model;       /* compiled, with objectives and parameters */
    const char *formulation;
    const MbsSettings *settings; /* step, duration, the formulation's options */
    MbsSensitivityMethod method;
    const void *method_options;  /* MbsSensitivityProblem.method_options; NULL: defaults */
    int threads;                 /* fd's parallel runs; 0: as OpenMP offers */
    int objective;               /* index into model->objectives */
    const int *parameters;       /* indices into model->parameters */
    int nparameters;
    const double *lower, *upper; /* nparameters each; NULL: unbounded */
    const double *start;         /* nparameters; NULL: the model's values (clamped to the bounds) */
    EslOptimizerAlgorithm algorithm;
    int max_evaluations;         /* < 1: ESL_OPTIMIZER_MAX_EVALUATIONS */
    double xtol;                 /* relative tolerance on x; <= 0: ESL_OPTIMIZER_XTOL */
    EslOptimizerEvaluation evaluation; /* optional */
    void *evaluation_data;
    const volatile int *stop;    /* optional: nonzero (set by another thread) stops */
} EslOptimizerProblem;

typedef enum {
    ESL_OPTIMIZER_CONVERGED,       /* NLopt's tolerance met */
    ESL_OPTIMIZER_EVALUATION_LIMIT, /* max_evaluations done */
    ESL_OPTIMIZER_STOPPED,         /* the stop flag */
    ESL_OPTIMIZER_FAILED,          /* an evaluation failed, or NLopt did: message says which */
} EslOptimizerStatus;

/* "converged", "evaluation limit", "stopped", "failed". */
const char *esl_optimizer_status_name(EslOptimizerStatus status);
/* -1 when unknown. */
int esl_optimizer_status_from_name(const char *name);

typedef struct {
    EslOptimizerStatus status;
    int nlopt_code;   /* nlopt_result */
    int evaluations;  /* completed */
    double psi;       /* the lowest psi evaluated (HUGE_VAL when none) */
    double *x;        /* nparameters: where (the start when none) */
    double *gradient; /* nparameters: its gradient (zeros when none) */
    char *message;    /* FAILED: what failed (the evaluation, its parameters, the engine's
                         message); else NULL */
} EslOptimizerResult;

void esl_optimizer_result_clear(EslOptimizerResult *result);

/* What esl_optimizer_run refuses before any evaluation: FALSE with error naming it (no
 * objective or parameter of the model, a method the formulation has not or refuses for these
 * settings, settings that cannot run, an empty bound pair); else TRUE with the start point in x
 * (nparameters). */
gboolean esl_optimizer_check(const EslOptimizerProblem *p, double *x, GError **error);

/* Run the optimisation. result is filled in every case (esl_optimizer_result_clear it);
 * returns FALSE only when esl_optimizer_check refuses the problem (result->status FAILED, its
 * message and error set). */
gboolean esl_optimizer_run(const EslOptimizerProblem *p, EslOptimizerResult *result,
                           GError **error);

G_END_DECLS

#endif
