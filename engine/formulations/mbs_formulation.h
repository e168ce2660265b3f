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
 * Every vtable entry is required but settings and check_settings.
 */
#ifndef MBS_FORMULATION_H
#define MBS_FORMULATION_H

#include "mbs_error.h"
#include "mbs_model.h"
#include "mbs_monitors.h"
#include "mbs_settings.h"
#include "mbs_tangent.h" /* MbsJacobianMethod, its names and labels */
#include "mbs_trace.h"

/* Settings groups shared by several formulations (sub-tables of their settings tables). */
typedef struct {
    double tolerance;   /* on the max-norm of the Newton correction */
    int max_iterations;
} MbsNewtonOptions;

typedef struct {
    MbsJacobianMethod method;
    int reuse;   /* K and C reused for this many Newton iterations (paper 000: 3) */
    int threads; /* threads for Jacobian columns; 0: as OpenMP offers */
} MbsTangentOptions;

extern const MbsSettingTable mbs_newton_settings;  /* newton-tolerance, newton-iterations */

/* The penalty factor of an augmented Lagrangian iteration (ali3p; penalty's iterated
 * multipliers) at step weight w (beta h^2 or h^2/4): alpha, raised to
 * 1e3 mass / (w gram) when smaller, with mass and gram the largest diagonal entries of the mass
 * matrix and of Phi_q^T Phi_q. The iteration contracts by about 1 / (1 + w alpha sigma^2 / m)
 * along a constraint direction (paper 004 section 2), so with a fixed alpha it stalls as h
 * falls (issue 28); its converged step (Phi = 0) does not depend on alpha. */
double mbs_augmented_alpha(double alpha, double mass, double gram, double weight);

/* Newton's convergence at step h (issue 28): the correction corr (max-norm) is at most
 * *bound = tolerance * size * mbs_newton_step_factor(h), size the formulation's scale of the
 * coordinates (1 + |z|); or at most tolerance * size and no longer halving against the previous
 * correction (INFINITY at the first iteration): round-off, which a small step's bound may be
 * below. An error e left in a step's positions is 2e/h in its velocities and 4e/h^2 in its
 * accelerations, and a run adds up T/h of them, so a bound that did not fall with h made
 * smaller steps give worse results (ali3p, trapezoidal rules below 0.1 ms). */
int mbs_newton_converged(const MbsNewtonOptions *o, double h, double size, double corr,
                         double previous, double *bound);
/* min(1, h / 1 ms): the newton-tolerance setting holds at steps of 1 ms and more, and scales
 * with h below (Newton above, and ali3p's projections). */
double mbs_newton_step_factor(double h);
/* Choices of the "algebra" setting of ali3p and penalty: automatic, dense, sparse. */
extern const char *const mbs_algebra_choices[];
extern const char *const mbs_algebra_labels[];
/* jacobian-reuse, jacobian (analytical by default), threads: penalty and ali3p. */
extern const MbsSettingTable mbs_tangent_analytical_settings;
/* Its first two items, forward differences by default, for a serial tangent (matrix-r). */
extern const MbsSettingTable mbs_tangent_serial_settings; /* jacobian-reuse, jacobian (forward by default) */
/* The jacobian item alone (analytical by default): ssode, whose integrators decide the reuse. */
extern const MbsSettingTable mbs_tangent_method_settings;

/* MbsMonitors: what every formulation reports after every step (mbs_monitors.h, one table). */

typedef struct MbsFormulation MbsFormulation;
typedef struct MbsTangentProbe MbsTangentProbe; /* mbs_tangent_probe.h */

/* One accepted internal step of an error-controlled integrator (MbsFormulation.internal_step):
 * it ended at time t, had size h and order (the method's order for one-step methods). */
typedef void (*MbsInternalStepFunc)(void *data, double t, double h, int order);

/* The coordinates a formulation integrates (what `coordinates` and `accelerations` return). */
typedef enum {
    MBS_COORDINATES_RELATIVE, /* z of the spanning tree (mbs_kinematics.h) */
    MBS_COORDINATES_NATURAL,  /* q of mbs_natural.h */
} MbsCoordinateKind;

/* A named counter or timer a formulation publishes (MbsFormulationClass.statistics), e.g. the
 * phase times of matrix-r; value accumulated since init or the last reset. */
typedef struct {
    const char *name;  /* stable identifier, e.g. "time_position" */
    double value;
    const char *unit;  /* "s", "" for a count */
} MbsStatistic;


typedef struct {
    const char *name;
    const char *description; /* English; marked MBS_N_ so that interfaces can translate it */
    /* Its own settings, in its options struct (MbsSettings.options); NULL: none. */
    const MbsSettingTable *settings;
    /* Whether these settings can run this model, beyond the tables' ranges (checked before):
     * 0, or -1 with err saying why. NULL: nothing more to check. */
    int (*check_settings)(const MbsModel *m, const MbsSettings *s, MbsError *err);
    /* 1 when its tangent problem offers residual_dual (mbs_tangent.h), so that the Jacobian
     * methods that need it (ad, ad-sparse) apply; 0: mbs_formulation_check_settings refuses
     * them, naming the formulation. */
    int tangent_offers_dual;
    /* 1 when its tangent problem offers analytical_jacobian (the `analytical` method); 0:
     * mbs_formulation_check_settings refuses it, naming the formulation. */
    int tangent_offers_analytical;
    /* 1 when its tangent has no structural pattern to compress (matrix-r: the reduced tangent in
     * the independent coordinates is dense, and its size follows the partition, so a colouring
     * made at init would not fit): the methods that use a pattern (nd-sparse, ad-sparse) are
     * refused. */
    int tangent_dense_only;
    /* The tangent it uses, at its current state (mbs_tangent_probe.h, through
     * mbs_formulation_tangent_probe): 0, or MBS_FATAL when it computes none there (ali3p
     * without forces that vary with the state) or the residual's evaluation fails. NULL: the
     * formulation computes no tangent. */
    int (*tangent_probe)(MbsFormulation *f, MbsTangentProbe *probe, MbsError *err);
    int (*init)(MbsFormulation *f, MbsError *err);      /* allocate workspaces, assemble */
    /* Advance one step of size h (the run driver's; it may be below settings.step when the
     * driver cuts the step). On a recoverable failure the state may be anywhere: the driver
     * restores its checkpoint. */
    int (*step)(MbsFormulation *f, double h, MbsError *err);
    void (*finalize)(MbsFormulation *f);                /* release workspaces */
    /* Pose of a body: x = R x_drawn + p maps drawn coordinates to current ones. */
    void (*body_pose)(const MbsFormulation *f, int body, double R[9], double p[3]);
    /* Velocity v of the material point of a body that is now at r (global). */
    void (*point_velocity)(const MbsFormulation *f, int body, const double r[3], double v[3]);
    /* Coordinates (relative z or natural q): count and values. */
    int (*ncoords)(const MbsFormulation *f);
    void (*coordinates)(const MbsFormulation *f, double *q, double *qd);
    MbsCoordinateKind coordinate_kind;
    /* Accelerations of the coordinates at the current time (ncoords entries). */
    void (*accelerations)(const MbsFormulation *f, double *qdd);
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
    /* Nonzero: step(h) advances an error-controlled integrator with its own internal steps and
     * history to the output time f->time + h, continuing it from the previous step (no
     * restart) and stepping past the output time when its step is longer (the output comes
     * from its dense output). Each accepted internal step is reported to f->internal_step.
     * Its checkpoint holds the state at the output time and, where the integrator's history
     * can be set (ssode's SDIRK), that history: a restored run repeats the uninterrupted one
     * bit for bit; otherwise (CVODE), and when restored to retry a failed step, state_set
     * restarts the integrator there (a run restarted there bit for bit, the uninterrupted run
     * within the tolerance). */
    int own_steps;
} MbsFormulationClass;

struct MbsFormulation {
    const MbsFormulationClass *klass;
    const MbsModel *model;
    MbsSettings settings;
    double time;
    /* The time of the evaluation in progress (a stage's, a Newton iterate's): the formulation's
     * kinematics point their clock at it (MbsKinematics.clock) and set it with every
     * evaluation; mbs_formulation_step and _restore leave it at time. */
    double clock;
    long steps;
    double energy0;  /* total energy at t = 0 */
    MbsMonitors monitors;
    void *impl;      /* formulation-specific state and workspaces */
    /* Formulations with own_steps call this after each accepted internal step (NULL: none). */
    MbsInternalStepFunc internal_step;
    void *internal_step_data;
    /* Step trace being recorded (mbs_formulation_trace_step), NULL otherwise: the formulation
     * reports its phases and matrices to it (mbs_trace.h). */
    MbsTrace *trace;
};

/* The formulation's own options struct (described by f->klass->settings). */
static inline const void *mbs_formulation_options(const MbsFormulation *f)
{
    return f->settings.options.bytes;
}

/* Registry. */
int mbs_formulation_count(void);
const MbsFormulationClass *mbs_formulation_class(int i);
const MbsFormulationClass *mbs_formulation_find(const char *name);

/* Makes s hold k's options (its defaults unless it holds them already). */
void mbs_settings_for(MbsSettings *s, const MbsFormulationClass *k);
/* By name, for formulation `formulation` (common settings too): 0, or -1 with err. */
int mbs_settings_set_for(MbsSettings *s, const char *formulation, const char *name,
                         const char *text, MbsError *err);
int mbs_settings_set_number_for(MbsSettings *s, const char *formulation, const char *name,
                                double value, MbsError *err);
/* The address of a setting's value (binding s to the formulation's options first); NULL when
 * there is no such setting. Unchecked: mbs_formulation_new checks the ranges. */
void *mbs_settings_value_for(MbsSettings *s, const char *formulation, const char *name);
/* The table ranges, then k->check_settings for model m: 0, or -1 with err. When s holds no
 * options or another formulation's, k's defaults are checked (and used by mbs_formulation_new:
 * one formulation's options mean nothing to another). */
/* 1 when formulation k computes its tangent by method (every method of differences; ad and
 * ad-sparse where tangent_offers_dual, analytical where tangent_offers_analytical): the one
 * table the run panel, compare and run --jacobian read. */
int mbs_formulation_offers_jacobian(const MbsFormulationClass *k, MbsJacobianMethod method);
/* Whether choice `choice` of setting d is one formulation k offers (the jacobian setting's
 * methods by mbs_formulation_offers_jacobian; every other choice is offered). */
int mbs_formulation_offers_choice(const MbsFormulationClass *k, const MbsSetting *d, int choice);
int mbs_formulation_check_settings(const MbsFormulationClass *k, const MbsModel *m,
                                   const MbsSettings *s, MbsError *err);

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
/* Accelerations of the coordinates (NaN when the class has no `accelerations`, so that nothing
 * reads made-up zeros). */
void mbs_formulation_accelerations(const MbsFormulation *f, double *qdd);
/* Current position of a model point (index into m->points). */
void mbs_formulation_point_position(const MbsFormulation *f, int point, double out[3]);
/* Current velocity of a model point (index into m->points); zero on the ground. */
void mbs_formulation_point_velocity(const MbsFormulation *f, int point, double out[3]);

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
