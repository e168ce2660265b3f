/* matrix-r sensitivities' private parts, shared by sens_matrix_r.c (the sweeps: direct,
 * adjoint, checkpoints, setup) and sens_matrix_r_derivatives.c (the one derivative source: J,
 * P at a stored state, and the map across a change of partition). Not part of the engine's
 * interface. */
#ifndef SENS_MATRIX_R_PRIVATE_H
#define SENS_MATRIX_R_PRIVATE_H

#include "form_matrix_r.h"
#include "mbs_constraints_derivatives.h"
#include "mbs_model_direction.h"
#include "mbs_dynamics.h"
#include "mbs_formulation.h"
#include "mbs_kinematics.h"
#include "mbs_sensitivity.h"
#include "mbs_tangent.h"
#include "sens_matrix_r.h"

enum { /* a parameter of the dynamics (dynamic_parameter_columns) */
    MR_DYNAMIC_PART,   /* its part of the model evaluated on the models rho +- delta */
    MR_DYNAMIC_MASSES, /* its bodies reweighted along the drawing's derivative (S->gdir) */
    MR_DYNAMIC_LAWS,   /* its force laws differenced at a still geometry */
};

typedef struct {
    const MbsModel *model;
    int n, nr, d, k, p, nx, nout; /* nx = 3d variables [z_i, zd_i, zdd_i]; nout = d + 2k outputs
                                 [F; g; w] */
    const int *params;
    MbsSensObjectives obj;
    MbsSensMethod method;
    MbsMatrixRSensOptions opt;
    MbsFormulation *stepper; /* the run */
    MbsFormulation *probe;   /* derivatives w.r.t. the state, on the run's model */
    MbsFormulation *base;    /* the evaluation the derivatives are taken at: the probe's, or
                              * (direct, exact state derivatives) the run's own last one */
    MbsModel **pmodel;       /* 2p models: rho_j + delta_j, rho_j - delta_j */
    MbsFormulation **pform;  /* 2p */
    double *delta;           /* p */
    int *dynamic_only;       /* p: 1 when the parameter changes only masses, centres of mass,
                                inertias, force elements or gravity (not the kinematics) */
    MbsDynamics dyn;         /* their derivatives: Q - M zdd of the rebuilt models */
    MbsKinematics kin_acc;   /* the probe's kinematics with D = node_D (not owned) */
    double *node_acc, *node_D; /* 6 n each */
    double *Mzdd;            /* 2 n: their Q - M zdd */
    unsigned char *part_bodies, *part_forces; /* p x nbodies, p x nforces: what a dynamic
                                               * parameter changes (parameter_part) */
    MbsCheckpoint state;     /* the state derivatives are taken at */
    MbsCheckpoint previous;  /* direct: the state of the previous grid time */
    MbsTangent tangent;
    void *tangent_ctx[1];
    double *zrho;        /* n x p: dz/drho at fixed z_i (geometric parameters; 0 otherwise) */
    double *dzfull;      /* n x p: dz/drho of the full coordinates (direct) */
    int ad;              /* state derivatives by mbs_matrix_r_reduced_directions (analytical
                          * or ad) */
    MbsKinematics kin;   /* ad: the objectives at states moved along a direction */
    MbsConstraintsDerivatives cw; /* the direction's motion (objectives' directional
                                   * derivatives, when the objectives offer them) */
    double *zero;        /* n zeros */
    /* parameters of the geometry with exact state derivatives (geometric_parameter_columns):
     * up to n columns at a time */
    double *Eg, *ep, *em;  /* 4 n x n: explicit derivatives of matrix-r's parameter terms;
                            * 4 n each: those terms on the rebuilt models */
    double *gexp, *dFg;    /* 2k x n: the objectives' explicit derivatives; d x n */
    int *gcols;            /* n: the parameters of the columns */
    MbsModelDirection *gdir; /* p: the drawing's derivative of each parameter of the geometry,
                              * when its terms are taken analytically (gdir_ok) */
    int *gdir_ok;            /* p */
    const MbsModelDirection **gmodels; /* n: the columns' directions (NULL: differenced) */
    int *dynamic_way;        /* p: how a parameter of the dynamics is differentiated */
    double *dWpar;           /* 6 n: its wrenches' derivatives */
    double *xt;          /* 3 n: that state */
    double *sz, *sv, *dF; /* d x W each (ad) */
    MbsError *err;
    int *ind;       /* independent coordinates (node indices) of the aligned partition */
    int *ind_new;   /* those of the next partition, when it changes */
    int *mapind;    /* scratch */
    double *aligned_partition; /* the partition record the evaluation formulations hold */
    int partition_size, aligned;
    /* a change of partition (paper 001 eq 37a-c with a new selection of z_i): the new
     * independent state [z, zd, zdd][ind_new] as a function of the old one and rho */
    MbsTangent map_tangent;
    void *map_ctx[1];
    double *Mx, *Mp, *mtmp; /* 3d x 3d, 3d x p, 3d x max(p, k) */
    /* base point of the derivatives */
    double t;
    double *zbase, *Rbase, *guess; /* n, n x d, max(n, d + k) */
    double *x0, *xfull, *r0, *rp, *rm; /* 3d, 3d, d + k each */
    double *J; /* (d + k) x 3d: d[F; g]/d[z_i, zd_i, zdd_i] */
    double *P; /* (d + k) x p: d[F; g]/drho */
    /* sensitivity equations */
    double *T, *L, *Fa; /* d x d, d x 3d, d x d */
    int *ipiv;
    double *u, *unew; /* 3d x p */
    double *U0;       /* 3d x p: sensitivities of the initial state */
    double *lam, *lamnew, *mu; /* 3d x k, 3d x k, d x k */
    double *g;        /* k */
    long N;
    double h;
    /* adjoint storage */
    long K, nstored;
    MbsCheckpoint *stored, *segment; /* nstored checkpoints; K + 1 states of a segment */
    double *stored_values, *segment_values;
    long segment_start;
    /* results and timing */
    MbsSensResult *res;
    MbsSensObserver observer;
    void *observer_data;
    double clock, t_sens;
    int status;
    const volatile int *stop; /* MbsSensitivityProblem.stop, read between steps of every sweep */
} Sens;

/* sens_matrix_r_derivatives.c */
/* J = d[F; g]/d[z_i, zd_i, zdd_i] and P = d[F; g]/drho at the checkpointed state `at`; on
 * return S->x0 is the state and S->r0 = [F; g] there. */
int mr_sens_derivatives(Sens *S, const MbsCheckpoint *at);
/* The evaluation formulations take the partition of `at` when it is not the one they hold. */
int mr_sens_align(Sens *S, const MbsCheckpoint *at);
/* What parameter j's rebuilt models change, when it changes only the dynamics. */
int mr_sens_parameter_part(Sens *S, int j);
/* Mx, Mp: the map from the old independent state (and rho) to the new one at `at`. */
int mr_sens_partition_map(Sens *S, const MbsCheckpoint *at);
/* 1 when checkpoints a and b have different independent coordinates (ind_new: b's). */
int mr_sens_partition_changed(Sens *S, const MbsCheckpoint *a, const MbsCheckpoint *b);
/* The tangent interface's residuals (differenced state columns; the partition map). */
int mr_sens_state_residual(void *ctx, const double *x, int column, double step, double *out);
int mr_sens_map_residual(void *ctx, const double *x, int column, double step, double *out);

#endif
