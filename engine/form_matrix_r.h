/* `matrix-r`: what the semi-recursive Matrix R formulation reports beyond the common monitors
 * (coordinate partition, repartition events; the phase times and counters are also published
 * through the statistics hook of the vtable, which the benchmark reads). */
#ifndef FORM_MATRIX_R_H
#define FORM_MATRIX_R_H

#include "mbs_formulation.h"

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

/* Fills out; returns -1 when f is not a matrix-r formulation. Pointers stay valid until the
 * next step. */
int mbs_matrix_r_stats(const MbsFormulation *f, MbsMatrixRStats *out);

#endif
