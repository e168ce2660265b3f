/* One interface for every formulation (GSL/SUNDIALS style vtable).
 *
 * A formulation object owns its state and every workspace; mbs_formulation_new() allocates
 * them once, mbs_formulation_step() allocates nothing. Adding a formulation is one file that
 * defines an MbsFormulationClass and one line in the registry (mbs_formulation.c).
 *
 * Threads: formulation objects share nothing but the read-only model, so different objects may
 * step on different threads at once; one object is used by one thread at a time. Creating one
 * sets OpenBLAS to a single thread for the whole process (mbs_linalg_single_threaded).
 * Time: f->time is authoritative; f->monitors.time is kept equal to it.
 * Every vtable entry is required.
 */
#ifndef MBS_FORMULATION_H
#define MBS_FORMULATION_H

#include "mbs_error.h"
#include "mbs_model.h"

typedef enum {
    MBS_JACOBIAN_ND_FORWARD, /* forward differences */
    MBS_JACOBIAN_ND_CENTRAL, /* central differences */
    MBS_JACOBIAN_COUNT
} MbsJacobianMethod;

const char *mbs_jacobian_method_name(MbsJacobianMethod method);
/* Returns -1 when the name is unknown. */
int mbs_jacobian_method_from_name(const char *name);

/* Marks a string for translation catalogues without translating it here (the engine has no
 * gettext): xgettext --keyword=MBS_N_ extracts it, an interface looks it up at run time. */
#define MBS_N_(text) (text)

#define MBS_MATRIX_R_MAX_DOFS 16
#define MBS_MATRIX_R_AUTOMATIC (-1) /* matrix_r_ndofs: partition by pivoted QR whatever the model */

typedef struct {
    double step;          /* h, s */
    double duration;      /* s */
    MbsJacobianMethod jacobian;
    double penalty;       /* alpha */
    double newton_tolerance;   /* on the max-norm of the Newton correction */
    int newton_max_iterations;
    int jacobian_reuse;   /* K and C reused for this many Newton iterations (paper 000: 3) */
    double assembly_tolerance;
    int threads;          /* threads for Jacobian columns; 0 (default): as OpenMP offers */
    /* ali3p (paper 004): Newmark parameters (trapezoidal rule: 0.25, 0.5) and the projection
     * 0: mass-orthogonal (P = M, zeta = beta h^2), 1: mass-damping-stiffness-orthogonal
     * (P = M + gamma h C + beta h^2 K, zeta = beta h^2), 2: mass-orthogonal, zeta = 1. */
    double newmark_beta, newmark_gamma;
    int projection_kind;
    /* matrix-r (papers 001, 003) */
    int matrix_r_integrator; /* 0: explicit RK4 (paper 003), 1: implicit trapezoidal rule (001) */
    int matrix_r_sparse;     /* 0: dense LAPACK LU of the dependent block, 1: sparse KLU */
    double matrix_r_rcond;   /* new partition when the dependent block's reciprocal condition
                                estimate falls below this fraction of its value just after the
                                last partition (1: every step) */
    /* user-chosen degrees of freedom: 0, the model's list (MbsModel.dofs) when it has one, else
     * the automatic partition; MBS_MATRIX_R_AUTOMATIC, the automatic partition even when the
     * model lists some; > 0, these. DOF i is coordinate
     * dof_coord[i] of joint dof_joint[i] (a relative coordinate: constant B) or, when
     * dof_joint[i] < 0, the global coordinate dof_axis[i] (0 x, 1 y, 2 z) of model point
     * dof_point[i] (a natural coordinate: B = h_z not constant, paper 001 sec 2.2.3). */
    int matrix_r_ndofs;
    int matrix_r_dof_joint[MBS_MATRIX_R_MAX_DOFS], matrix_r_dof_coord[MBS_MATRIX_R_MAX_DOFS];
    int matrix_r_dof_point[MBS_MATRIX_R_MAX_DOFS], matrix_r_dof_axis[MBS_MATRIX_R_MAX_DOFS];
    /* ali3p linear algebra: 0 automatic (sparse KLU from 20 moving bodies), 1 dense LAPACK,
     * 2 sparse KLU */
    int ali3p_solver;
} MbsSettings;

void mbs_settings_defaults(MbsSettings *s);

/* What every formulation reports after every step. Energies in J, times in s. */
typedef struct {
    double time;
    double kinetic;
    double potential_gravity;
    double potential_elastic;
    double work_nonconservative; /* work done on the system by dampers, drivers, torques */
    double total;                /* kinetic + potentials - work_nonconservative */
    double phi_norm, dphi_norm, ddphi_norm; /* 2-norms of position, velocity, acceleration
                                               constraint residuals */
    int newton_iterations;       /* in the last step */
    int jacobian_evaluations;    /* in the last step */
    /* wall time of the last step, split by phase */
    double time_dynamics, time_jacobian, time_factorization, time_projection, time_step;
} MbsMonitors;

typedef struct MbsFormulation MbsFormulation;

/* A named counter or timer a formulation publishes (MbsFormulationClass.statistics), e.g. the
 * phase times of matrix-r; value accumulated since init or the last reset. */
typedef struct {
    const char *name;  /* stable identifier, e.g. "time_position" */
    double value;
    const char *unit;  /* "s", "" for a count */
} MbsStatistic;

/* Which settings beyond step and duration a formulation reads (MbsFormulationClass.uses), so a
 * front end offers only those. */
enum {
    MBS_USES_PENALTY = 1 << 0,     /* penalty */
    MBS_USES_JACOBIAN = 1 << 1,    /* jacobian, jacobian_reuse, threads */
    MBS_USES_NEWTON = 1 << 2,      /* newton_tolerance, newton_max_iterations */
    MBS_USES_NEWMARK = 1 << 3,     /* newmark_beta, newmark_gamma */
    MBS_USES_PROJECTION = 1 << 4,  /* projection_kind */
    MBS_USES_INTEGRATOR = 1 << 5,  /* matrix_r_integrator */
    MBS_USES_ALGEBRA = 1 << 6,     /* matrix_r_sparse / ali3p_solver: dense or sparse */
    MBS_USES_DOFS = 1 << 7,        /* matrix_r_ndofs, matrix_r_dof_*, matrix_r_rcond */
};

typedef struct {
    const char *name;
    const char *description; /* English; marked MBS_N_ so that interfaces can translate it */
    unsigned uses;                                      /* MBS_USES_* */
    /* uses narrowed to what a run of this model reads (NULL: uses); see mbs_formulation_uses */
    unsigned (*uses_for_model)(const MbsModel *m);
    int (*init)(MbsFormulation *f, MbsError *err);      /* allocate workspaces, assemble */
    /* Advance one step of size h (the run driver's; it may be below settings.step when the
     * driver cuts the step). On a recoverable failure the state may be anywhere: the driver
     * restores its checkpoint. */
    int (*step)(MbsFormulation *f, double h, MbsError *err);
    void (*finalize)(MbsFormulation *f);                /* release workspaces */
    /* Pose of a body: x = R x_drawn + p maps drawn coordinates to current ones. */
    void (*body_pose)(const MbsFormulation *f, int body, double R[9], double p[3]);
    /* Coordinates (relative z or natural q): count and values. */
    int (*ncoords)(const MbsFormulation *f);
    void (*coordinates)(const MbsFormulation *f, double *q, double *qd);
    /* Max |violation| of the constraints that belong to one joint (0 for tree joints). */
    double (*joint_violation)(const MbsFormulation *f, int joint);
    /* Checkpoint of the formulation's own state (coordinates, velocities, accelerations,
     * multipliers, accumulated work, adaptive parameters...): state_size doubles, copied out by
     * state_get (no allocation) and back by state_set, after which stepping repeats the
     * original trajectory bit for bit. Time, step count and monitors are saved by
     * mbs_formulation_save. */
    int (*state_size)(const MbsFormulation *f);
    void (*state_get)(const MbsFormulation *f, double *state);
    int (*state_set)(MbsFormulation *f, const double *state, MbsError *err);
    /* Named counters and timers: fills at most capacity entries, returns how many there are
     * (names and units are static strings). reset_statistics zeroes them. */
    int (*statistics)(const MbsFormulation *f, MbsStatistic *out, int capacity);
    void (*reset_statistics)(MbsFormulation *f);
} MbsFormulationClass;

struct MbsFormulation {
    const MbsFormulationClass *klass;
    const MbsModel *model;
    MbsSettings settings;
    double time;
    long steps;
    double energy0;  /* total energy at t = 0 */
    MbsMonitors monitors;
    void *impl;      /* formulation-specific state and workspaces */
};

/* Registry. */
int mbs_formulation_count(void);
const MbsFormulationClass *mbs_formulation_class(int i);
const MbsFormulationClass *mbs_formulation_find(const char *name);

/* The settings (MBS_USES_*) a run of model m with formulation k reads; m NULL: k->uses. */
unsigned mbs_formulation_uses(const MbsFormulationClass *k, const MbsModel *m);

/* Create, assemble (position, velocity, acceleration problems) and fill monitors at t = 0.
 * Returns NULL with err filled when the model cannot be assembled. */
MbsFormulation *mbs_formulation_new(const char *name, const MbsModel *m, const MbsSettings *s,
                                    MbsError *err);
/* One step of settings.step (no step cutting: mbs_run_* does that). */
int mbs_formulation_step(MbsFormulation *f, MbsError *err);
/* One step of size h. */
int mbs_formulation_step_by(MbsFormulation *f, double h, MbsError *err);
void mbs_formulation_free(MbsFormulation *f);

void mbs_formulation_body_pose(const MbsFormulation *f, int body, double R[9], double p[3]);
/* Current position of a model point (index into m->points). */
void mbs_formulation_point_position(const MbsFormulation *f, int point, double out[3]);

/* Everything needed to restart a formulation exactly: sized for one formulation object by
 * mbs_checkpoint_init (allocates), filled by mbs_formulation_save and applied by
 * mbs_formulation_restore (neither allocates). */
typedef struct {
    const MbsFormulationClass *klass; /* the formulation it was sized for */
    double time;
    long steps;
    MbsMonitors monitors;
    int size;       /* doubles of the formulation's own state */
    double *state;
} MbsCheckpoint;

int mbs_checkpoint_init(MbsCheckpoint *c, const MbsFormulation *f, MbsError *err);
void mbs_checkpoint_free(MbsCheckpoint *c);
void mbs_formulation_save(const MbsFormulation *f, MbsCheckpoint *c);
int mbs_formulation_restore(MbsFormulation *f, const MbsCheckpoint *c, MbsError *err);

/* Statistics (MbsFormulationClass.statistics): the value of one by name, or fallback. */
int mbs_formulation_statistics(const MbsFormulation *f, MbsStatistic *out, int capacity);
double mbs_formulation_statistic(const MbsFormulation *f, const char *name, double fallback);
void mbs_formulation_reset_statistics(MbsFormulation *f);

#endif
