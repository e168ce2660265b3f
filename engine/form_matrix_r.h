/* `matrix-r`: what the semi-recursive Matrix R formulation reports beyond the common monitors
 * (coordinate partition, repartition events; the phase times and counters are also published
 * through the statistics hook of the vtable, which the benchmark reads). */
#ifndef FORM_MATRIX_R_H
#define FORM_MATRIX_R_H

#include "mbs_formulation.h"

#define MBS_MATRIX_R_MAX_DOFS 16
#define MBS_MATRIX_R_AUTOMATIC (-1) /* MbsDofList.count: the automatic partition */

/* The independent coordinates chosen for a run (matrix-r's setting "dof"). count 0: the
 * model's list (MbsModel.dofs) when it has one, else the automatic partition;
 * MBS_MATRIX_R_AUTOMATIC: the automatic partition even when the model lists some; > 0: these.
 * A joint item is a relative coordinate (constant B); a point item (joint < 0) a global
 * coordinate of a model point (B = h_z not constant, paper 001 sec 2.2.3). */
typedef struct {
    int count;
    MbsDofChoice items[MBS_MATRIX_R_MAX_DOFS];
} MbsDofList;

typedef struct {
    int ncoords;          /* n relative coordinates */
    int nindependent;     /* d = degrees of freedom */
    int ndependent;       /* r = rank of Phi_z */
    int nrows;            /* constraint equations, redundant ones included */
    const int *independent; /* d node indices (coordinates z) used as independent ones; -1 for
                               a degree of freedom that is a point coordinate (user choice) */
    const int *dependent;   /* r node indices */
    const int *rows;        /* r constraint rows kept in the square dependent block */
    long partitions;      /* partitions chosen, the initial one included */
    double last_partition_time; /* s */
    double rcond;         /* reciprocal condition estimate (1-norm) of the dependent block */
    const char *last_event; /* human-readable description of the last partition change */
    long evaluations;     /* evaluations of the reduced equations of motion */
    long position_iterations; /* Newton iterations of the position problem, whole run */
    /* accumulated wall time per phase since init or the last reset, s */
    double t_position;  /* position problem: kinematics, Phi, Phi_z, factorizations, solves */
    double t_velocity;  /* velocity problem and S c (acceleration with zero independent acc.) */
    double t_rz;        /* R^Phi: solve of the dependent block for the d right-hand sides */
    double t_dynamics;  /* open-chain M and Q (semi-recursive accumulation) */
    double t_reduced;   /* products R^T M R and R^T (Q - M S c) */
    double t_solve;     /* solution of the reduced d x d system (Cholesky / Newton LU) */
    double t_jacobian;  /* trapezoidal rule: K, C by numerical differentiation */
} MbsMatrixRStats;

/* The model's degrees of freedom where it assembles with s's assembly tolerance: coordinates
 * minus the rank of Phi_z; -1 when it does not assemble. What a list of independent
 * coordinates is checked against (MbsFormulationClass.check_settings). */
int mbs_matrix_r_degrees_of_freedom(const MbsModel *m, const MbsSettings *s);

/* Fills out; returns -1 when f is not a matrix-r formulation. Pointers stay valid until the
 * next step. */
int mbs_matrix_r_stats(const MbsFormulation *f, MbsMatrixRStats *out);

#endif
