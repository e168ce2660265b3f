/* matrix-r's private parts, shared by form_matrix_r.c (the formulation) and
 * form_matrix_r_tangent.c (its exact tangents: ad and analytical, and the directional
 * derivatives the sensitivities reuse). Not part of the engine's interface. */
#ifndef FORM_MATRIX_R_PRIVATE_H
#define FORM_MATRIX_R_PRIVATE_H

#include <klu.h>
#include <stddef.h>

#include "form_matrix_r.h"
#include "mbs_constraints_derivatives.h"
#include "mbs_dual.h"
#include "mbs_dynamics.h"
#include "mbs_dynamics_derivatives.h"
#include "mbs_kinematics.h"
#include "mbs_tangent.h"

typedef struct {
    const MbsFormulation *f;
    int n, nr, r, d; /* coordinates, rows, rank (dependent), degrees of freedom */
    int sparse, integrator;
    MbsDofList dofs; /* the run's: the options' or the model's list */
    int general; /* user DOFs with natural coordinates: Theta = [Phi_z[rows]; B(z)] (n x n) */
    int *dofnode; /* per DOF: node of a joint-coordinate DOF, -1 for a point coordinate */
    const double *tzi, *tzdi; /* general mode: imposed DOF values of the evaluation */
    double *Brow;
    MbsKinematics kin;
    MbsDynamics dyn;
    /* full state */
    double *z, *zd, *zdd;
    double *z0, *zd0, *zdd0;
    /* independent-coordinate work (d each) */
    double *zi0, *zdi0, *zddi0, *zi, *zdi, *zddi, *acc[4], *vel[4], *g, *delta;
    double *zdip, *zddip, *zsave, *zdsave, *Rsave; /* trapezoidal tangent (reduced_tangent) */
    MbsTangent tangent;
    /* its ad method (reduced_residual_dual): the kernels over dual numbers */
    MbsKinematicsDual kd;
    MbsDynamicsDual dd;
    MbsDual *zD, *zdD, *zddD, *rowD, *biasD, *QD; /* n, n, n, nr, nr, n */
    double *seed, *dirz, *dirv, *dira, *ydir;      /* d x W, n x W (three), n x W */
    double *zdd_base, *mu_base, *mu_rows;          /* n, n, nr */
    double *dF, *Fval, *wseed;                     /* d x W, n, 3 d x W */
    /* its analytical method (reduced_jacobian_analytical) */
    MbsConstraintsDerivatives cder;
    MbsDynamicsDerivatives dder;
    double *Kan, *Can, *DZ, *DZD, *DZDD, *DRE, *Van; /* n x n each */
    double *node_acc, *node_D, *rowbuf, *biasbuf;  /* 6 n, 6 n, nr + d, nr + d */
    /* zdd, K, C, G and mu of the directions are those of evaluation `generation` with
     * independent accelerations dir_zddi when dir_generation equals it (directions_base) */
    long generation, dir_generation;
    double *dir_zddi; /* d */
    double *model_work; /* 14 n: the subtree wrenches at directions_base's evaluation, then the
                           work of a model direction's forces (model_forces_derivative) */
    double *col_motion; /* 18 n per column: each analytical direction's motion (T, dZv and the
                           whole dD) when kept (mbs_matrix_r_keep_direction_motion), or NULL */
    MbsRow *drows; /* the model's rows, then one per DOF (general mode: B's rows, a point
                      coordinate as a points row against the ground, a joint coordinate as a
                      driver row), nr + d */
    MbsFormulation *tangent_f; /* the call being differentiated: step and error record */
    double tangent_h;
    MbsError *tangent_err;
    void *tangent_ctx[1];
    /* partition */
    int *dep, *ind, *rows; /* r, d, r */
    int *depidx, *rowidx;  /* n, nr: position in dep / rows or -1 */
    int *jpvt;             /* max(n, nr) */
    double *qr, *tau, *qrwork;
    int lqrwork;
    /* dependent block */
    double *A, *rhs, *X, *conwork; /* r*r, max(n, nr), r*d, 4 r */
    int *ipiv, *iconwork;
    double rcond, rcond_ref, rcond_ratio; /* current, just after the partition, trigger */
    double anorm; /* 1-norm of the dense block before factorization */
    /* near-singular block (damped least squares, see mr_damped_solve): the quasi-definite
     * K = [mu I, A; A^T, -mu I] (2r x 2r, CSC from A's pattern), factorized by KLU */
    int singular;                   /* this evaluation's solves are damped */
    double *svtmp;                  /* 3n scratch */
    int *Kp, *Ki, *Kmap;            /* 2n+1, 2 nnz + 2n, 2 nnz: K's pattern, A's entries in K */
    double *Kx, *Kb;                /* 2 nnz + 2n, 2n */
    double *Kd;                     /* dense algebra: K's LU (4 n^2), pivots Kipiv (2n) */
    int *Kipiv;
    int kpattern;                   /* K's pattern and analysis are the current partition's */
    klu_symbolic *KSym;
    klu_numeric *KNum;
    double sigma_max;               /* of A, by power iteration */
    double krcond_ref;              /* KLU's pivot ratio of K's last full factorization */
    double mu;                      /* damping * rcond_initial * sigma_max */
    double rcond_initial;           /* of the block of the first partition */
    double gap_initial;             /* rank gap of Phi_z at init (constraints_rank_gap) */
    double *zpred, *zdpred;         /* predicted z, zd of the evaluation (n) */
    double *Rprior, *sprior;        /* R^Phi and S c of the previous evaluation (n*d, n) */
    int *indprior, *ipiv_prior;     /* its independent coordinates (d), pivots (d) */
    int dprior;                     /* its d; 0: none yet */
    double *Rused, *sused;          /* the priors the last evaluation used (n*n, n) */
    double *zdpred_pre;             /* and its zd_p before anchor_prediction (n) */
    int used_singular, used_dprior; /* and whether it was damped, had R^Phi / S c priors */
    int d0;                         /* d of the first partition (the checkpoints' record) */
    int pin;                        /* evaluations take the priors in pinned */
    double *pinned;                 /* a checkpoint's record (mbs_matrix_r_pin_priors) */
    long singular_evaluations;
    long block_factorizations, damped_factorizations, rank_gap_checks, rank_gap_qrs; /* work */
    /* sparse */
    int *Ap, *Ai;
    double *Ax;
    klu_symbolic *Sym;
    klu_numeric *Num;
    klu_common common;
    /* constraints and dynamics */
    double *phi, *phiz, *phit, *bias;
    double *M, *Q, *Rz, *MR, *s, *w, *Mh, *Lh, *rh, *T;
    int *ipiv_d;
    int residual_only;   /* evaluate: no M, R^T M R, rh (mbs_matrix_r_residual) */
    int tangent_offered; /* T, ipiv_d hold an exact tangent for the next step of offered_h */
    double offered_h;
    double work_nc, power_nc;
    /* statistics */
    long partitions, evaluations, position_iterations;
    double last_partition_time;
    char event[1024];
    int step_pos_iterations;
    double t_position, t_velocity, t_rz, t_dynamics, t_reduced, t_solve, t_jacobian;
} MatrixR;

/* form_matrix_r.c */
MatrixR *mr_impl(const MbsFormulation *f); /* NULL when f is not a matrix-r formulation */
const MbsDofChoice *mr_dof(const MbsFormulation *f, int i);
const MbsPoint *mr_dof_point(const MbsFormulation *f, int i);
/* Solve A X = B in place with the factorized dependent block (or Theta), B r x nrhs. */
void mr_solve_block(MatrixR *R, double *B, int nrhs);

/* form_matrix_r.c: helpers the partition uses */
void mr_free_klu(MatrixR *R);
void mr_dof_row(const MbsFormulation *f, const MatrixR *R, int i, double *out, size_t ld);
int mr_find_node(const MbsTopology *t, int joint, int coord);
void mr_sort_ints(int *a, int k);

/* form_matrix_r_partition.c: the partition (QR with column pivoting of Phi_z, the kept rows),
 * the dependent block's factors and condition */
int mr_partition(MbsFormulation *f, MatrixR *R, MbsError *err);
int mr_sparse_pattern(MbsFormulation *f, MatrixR *R, MbsError *err);
void mr_factor_block(MatrixR *R);
void mr_estimate_rcond(MatrixR *R);
void mr_check_pivots(MatrixR *R);
void mr_factor_block_checked(MatrixR *R);
/* CSC pattern of the dependent block A = Phi_z[rows, dep] (Ap, Ai) */
void mr_block_pattern(const MbsTopology *t, MatrixR *R);

/* form_matrix_r_damped.c: near singular positions, the rank gap that confirms one, the damped
 * solves (K = [mu I, A; A^T, -mu I]) and their priors */
double mr_constraints_rank_gap(MatrixR *R);
int mr_block_is_near_singular(MatrixR *R, double damping);
int mr_damped_factor(MatrixR *R, double damping);
/* b := argmin |A x - b|^2 + mu^2 |x - xp|^2 (xp NULL: 0), near a singular position
 * (mr_damped_factor first). */
void mr_damped_solve(MatrixR *R, double *b, const double *xp);
/* y := A (A^T A + mu^2 I)^-1 y: the transpose of mr_damped_solve's map (xp NULL) */
void mr_damped_solve_transposed(MatrixR *R, double *y);
void mr_priors_to_partition(MatrixR *R);
void mr_priors_take(MatrixR *R, const double *zi, const double *zdi);
void mr_priors_keep(MatrixR *R);
size_t mr_priors_record_size(const MatrixR *R);
void mr_priors_record(const MatrixR *R, double *pr);
void mr_priors_restore(MatrixR *R, const double *pr);
/* form_matrix_r_tangent.c: workspaces (made at init, 0 or -1) and the tangent problem's hooks */
int mr_dual_workspace(const MbsModel *m, MatrixR *R);
int mr_analytical_workspace(const MbsModel *m, MatrixR *R);
int mr_reduced_residual_dual(void *ctx, const MbsDual *x, int largest, MbsDual *g);
int mr_reduced_jacobian_analytical(void *ctx, const double *x, double *J);

/* The Newton options of the matrix-r options s holds (s made to hold matrix-r's defaults
 * first when it holds another formulation's), typed for sens_matrix_r.c. */
MbsNewtonOptions *mbs_matrix_r_newton_options(MbsSettings *s);

#endif
