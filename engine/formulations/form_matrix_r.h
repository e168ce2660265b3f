/* `matrix-r`: what the semi-recursive Matrix R formulation reports beyond the common monitors
 * (coordinate partition, repartition events; the phase times and counters are also published
 * through the statistics hook of the vtable, which the benchmark reads). */
#ifndef FORM_MATRIX_R_H
#define FORM_MATRIX_R_H

#include "mbs_formulation.h"
#include "mbs_model_direction.h"
#include "mbs_kinematics.h"

#define MBS_MATRIX_R_MAX_DOFS 16
#define MBS_MATRIX_R_AUTOMATIC MBS_SETTING_LIST_AUTOMATIC /* MbsDofList.count: automatic */

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

/* Directional derivatives of the reduced equations F = R^T (M zdd - Q) (paper 001 eq 29) at
 * the evaluation current in f (after mbs_matrix_r_reduced_residual at time t with independent
 * accelerations zddi), through the position, velocity and acceleration problems
 * (docs/architecture.md § matrix-r ad and analytical): ncols directions with seeds dz_i,
 * dzd_i, dzdd_i in sz, sv, sa (d x ncols column-major; NULL: zero), by `analytical`
 * (ncols <= n) or `ad` (ncols <= MBS_DUAL_WIDTH, one dual pass), dF (d x ncols). The full
 * coordinates' directions (n x ncols each, valid until the next call) in out. Needs
 * mbs_matrix_r_prepare_directions once (it allocates); then allocates nothing. */
typedef struct {
    const double *dz, *dzd, *dzdd;
    /* analytical, when kept: each column's motion, 18 n (T, dZv, dD of
     * mbs_constraints_derivatives.h, dD of the whole accelerations), or NULL */
    const double *motion;
} MbsMatrixRDirections;
int mbs_matrix_r_prepare_directions(MbsFormulation *f, MbsError *err);
/* Keep the motion of each analytical direction (MbsMatrixRDirections.motion), for derivatives
 * of quantities of the motion along them (the objectives'); after prepare_directions. */
int mbs_matrix_r_keep_direction_motion(MbsFormulation *f, MbsError *err);
int mbs_matrix_r_reduced_directions(MbsFormulation *f, int analytical, double t,
                                    const double *zddi, int ncols, const double *sz,
                                    const double *sv, const double *sa, double *dF,
                                    MbsMatrixRDirections *out);


/* Derivatives w.r.t. a parameter of the geometry at the evaluation current in f (as for
 * mbs_matrix_r_reduced_directions, analytical; relative coordinates as DOFs only, -1 or
 * MBS_FATAL otherwise). mbs_matrix_r_parameter_terms evaluates on `rebuilt` (a model rebuilt
 * with another value of the parameter, same topology) at f's coordinates the terms whose
 * explicit derivatives the directions need: e = [Phi[rows]; (Phi_z zd + Phi_t)[rows];
 * (Phi_z zdd + bias)[rows]; G - Phi_z^T mu] (mbs_matrix_r_parameter_terms_size values; G =
 * M zdd - Q, mu f's reactions); rebuilt's view then shows its kinematics at those coordinates.
 * mbs_matrix_r_parameter_directions takes ncols (<= n) columns of those terms' derivatives
 * (central differences of e, say) and gives dF/drho (d x ncols) at fixed z_i, zd_i, zdd_i and
 * the full coordinates' directions dz/drho, dzd/drho, dzdd/drho in out. A column whose models[j]
 * (models may be NULL) is not NULL is instead a parameter that moves the drawing's points
 * (mbs_model_direction.h), taken analytically: its explicit terms come with the Phi_zz
 * products of its dz in the same passes (its column of explicit is not read), and its kept
 * motion (out->motion) is the total one, the drawing's points moved. */
int mbs_matrix_r_parameter_terms_size(const MbsFormulation *f);
int mbs_matrix_r_parameter_terms(MbsFormulation *f, MbsFormulation *rebuilt, double t,
                                 const double *zddi, double *e);
int mbs_matrix_r_parameter_directions(MbsFormulation *f, double t, const double *zddi,
                                      int ncols, const double *explicit,
                                      const MbsModelDirection *const *models, double *dF,
                                      MbsMatrixRDirections *out);

/* --- what the sensitivity analysis (sens_matrix_r.c) reads and evaluates ----------------- */

/* Degrees of freedom d, and the independent positions, velocities and accelerations of the
 * current state (each d values; any may be NULL). Returns -1 when f is not matrix-r. */
int mbs_matrix_r_independent_state(const MbsFormulation *f, double *zi, double *zdi,
                                   double *zddi);
/* Partitions chosen so far (the initial one included): a change means the independent
 * coordinates changed. */
long mbs_matrix_r_partitions(const MbsFormulation *f);
/* 1 when the independent coordinates are relative coordinates (constant B, paper 001 sec
 * 2.2.2), 0 with natural coordinates as degrees of freedom. */
int mbs_matrix_r_constant_b(const MbsFormulation *f);
/* 1 when f integrates with the implicit trapezoidal rule. */
int mbs_matrix_r_trapezoidal(const MbsFormulation *f);
/* The same from settings holding matrix-r's options (before a formulation is made). */
int mbs_matrix_r_settings_trapezoidal(const MbsSettings *s);
/* Node index of each independent coordinate (d values; constant B only). */
const int *mbs_matrix_r_independent_nodes(const MbsFormulation *f);

/* The reduced equations of motion at time t for the independent state (zi, zdi, zddi):
 * F = (R^T M R) zdd_i - R^T (Q - M (S c - R B_dot zd)) (paper 001 eq 29 as a residual, d
 * values). z_guess (n values) starts the position problem's Newton iteration on the dependent
 * coordinates. On return the formulation's coordinates are those of the evaluation: z, zd and
 * zdd = R zdd_i + S c (mbs_matrix_r_view), kinematics current. Returns 0 or an MbsError
 * status. Does not advance time; the formulation must be set to a checkpoint before stepping
 * on. */
int mbs_matrix_r_reduced_residual(MbsFormulation *f, double t, const double *z_guess,
                                  const double *zi, const double *zdi, const double *zddi,
                                  double *F, MbsError *err);
/* The same F without the mass matrix and R^T M R (F = R^T (M zdd - Q) from the forces with
 * the accelerations zdd = R zdd_i + S c): for residuals alone. The view's Mh is then not
 * current. */
int mbs_matrix_r_residual(MbsFormulation *f, double t, const double *z_guess, const double *zi,
                          const double *zdi, const double *zddi, double *F, MbsError *err);

/* The same residual F for accelerations zddi at the evaluation current in f (its last step's
 * final one, or the last mbs_matrix_r_reduced_residual), without evaluating again; zdd becomes
 * R zdd_i + S c. */
void mbs_matrix_r_current_residual(MbsFormulation *f, const double *zddi, double *F);

/* The LU factors (d x d column-major, LAPACK's ipiv) of the trapezoidal tangent
 * T = F_z + 2/h F_v + 4/h^2 F_a at the state f is at, computed exactly by the caller (the
 * direct sensitivities have it at every step): the next step, if of size h, starts its Newton
 * iteration with them instead of evaluating a tangent at its predictor (later iterations
 * follow the "jacobian-reuse" setting). A repartition or state_set forgets them. */
void mbs_matrix_r_offer_tangent(MbsFormulation *f, double h, const double *lu, const int *ipiv);

/* The coordinates stored in a checkpoint of a matrix-r formulation (mbs_formulation_save): z,
 * zd, zdd (n each), pointers into c->state. */
void mbs_matrix_r_checkpoint_coordinates(const MbsCheckpoint *c, int n, const double **z,
                                         const double **zd, const double **zdd);

/* The partition stored in such a checkpoint: its independent coordinates (node indices into
 * ind, d of them; returns d), and the whole partition record (mode, rank, d, dependent and
 * independent nodes, kept rows: *count doubles) to compare two checkpoints' partitions. */
int mbs_matrix_r_checkpoint_independent(const MbsCheckpoint *c, int n, int *ind);
const double *mbs_matrix_r_checkpoint_partition(const MbsCheckpoint *c, int n, int nr,
                                                int *count);

/* From now on every evaluation of f takes the priors of its damped solves near a singular
 * position (and the decision whether to damp) from checkpoint c, as the run's own evaluation
 * of that state did, instead of from f's previous evaluation: the sensitivities' evaluations
 * at a stored state then repeat the run's exactly, whatever their order (issue 28). For
 * formulations that only evaluate at checkpoints; 0, or -1 when c is not f's. */
int mbs_matrix_r_pin_priors(MbsFormulation *f, const MbsCheckpoint *c);

/* The current full coordinates (n each), the kinematics (positions and velocities) they give,
 * R^Phi (n x d), S c (n) and R^T M R (d x d) of the last evaluation. */
typedef struct {
    int n, d;
    const double *z, *zd, *zdd, *Rz, *Sc, *Mh;
    const MbsKinematics *kin;
} MbsMatrixRView;
void mbs_matrix_r_view(const MbsFormulation *f, MbsMatrixRView *view);

#endif
