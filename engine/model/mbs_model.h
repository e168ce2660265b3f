/* MbsModel: the mechanism description (built once, compiled, then read-only).
 *
 * Everything is described as drawn in the initial configuration, in the global frame:
 * body centres of mass, inertia tensors (about the centre of mass, global axes), points,
 * unit vectors, joint locations and axes. Relative coordinates z are measured from that
 * drawing (z = 0 is the drawn configuration).
 *
 * Build with mbs_model_new + mbs_model_add_* and then mbs_model_compile(), which chooses the
 * spanning tree, the relative coordinates and the loop-closure constraints (see mbs_topology.h).
 */
#ifndef MBS_MODEL_H
#define MBS_MODEL_H

#include <stddef.h>

#include "mbs_error.h"
#include "mbs_function.h"

#define MBS_NAME_MAX 64

typedef enum {
    MBS_JOINT_REVOLUTE,  /* point + axis: 1 coordinate (rotation of body2 w.r.t. body1) */
    MBS_JOINT_PRISMATIC, /* point + axis: 1 coordinate (translation of body2 along axis) */
    MBS_JOINT_SPHERICAL, /* point: 3 coordinates (successive rotations about X, Y, Z) */
    MBS_JOINT_UNIVERSAL, /* point + axis1 (on body1) + axis2 (on body2): 2 coordinates */
    MBS_JOINT_ROD,       /* constant distance between point1 (body1) and point2 (body2) */
    MBS_JOINT_TYPE_COUNT
} MbsJointType;

const char *mbs_joint_type_name(MbsJointType type);
/* Number of relative coordinates a joint contributes when it is in the spanning tree. */
int mbs_joint_type_dofs(MbsJointType type);

typedef struct {
    char name[MBS_NAME_MAX];
    double mass;
    double com[3];       /* centre of mass, drawn configuration */
    double inertia[9];   /* about the centre of mass, global axes, row-major */
    int is_ground;
} MbsBody;

typedef struct {
    char name[MBS_NAME_MAX];
    int body;
    double pos[3]; /* drawn configuration */
} MbsPoint;

typedef struct {
    char name[MBS_NAME_MAX];
    MbsJointType type;
    int body1, body2;
    double point1[3], point2[3]; /* point2 == point1 except for rods */
    double axis1[3], axis2[3];   /* unit; axis2 == axis1 except for universal joints */
    double length;               /* rods only */
    int driven;                  /* 1: coordinate 0 of this joint follows driver(t) */
    MbsFunction driver;
} MbsJoint;

typedef enum {
    MBS_FORCE_TSDA,     /* translational spring-damper-actuator between two points */
    MBS_FORCE_RSDA,     /* rotational spring-damper on a revolute joint coordinate */
    MBS_FORCE_CONSTANT, /* constant global force at a point of a body */
    MBS_FORCE_TORQUE,   /* constant global torque on a body */
    MBS_FORCE_TYRE,     /* vertical tyre spring-damper of a wheel centre against a road */
    MBS_FORCE_SPRING_TABLE,    /* spring from a force-deflection table (PCHIP) and a damper */
    MBS_FORCE_DAMPER_BILINEAR, /* damper piecewise linear in the rate, four slopes */
    MBS_FORCE_BUMP_STOP,       /* one-sided spring-damper outside [min_length, max_length] */
    MBS_FORCE_ANTIROLL_BAR,    /* torsion bar on the joint between the bar's two halves */
    MBS_FORCE_WHEEL,    /* a wheel with a tyre law on the model's road (engine/vehicle) */
    MBS_FORCE_PATH_FOLLOWER, /* driver: steering servo toward the model's path (engine/vehicle) */
    MBS_FORCE_SPEED_CONTROL, /* driver: drive torque holding a target speed (engine/vehicle) */
} MbsForceType;

/* Most (deflection, force) pairs a spring_table element holds. */
#define MBS_FORCE_TABLE_MAX 32

/* The numbers of a wheel element's "linear" tyre law (mbs_tyre_model.h MBS_TYRE_LINEAR_*). */
#define MBS_FORCE_TYRE_NUMBERS 8
/* Most scaling factors of a wheel's tyre law (mbs_tyre_model.h MBS_TYRE_SCALES). */
#define MBS_FORCE_TYRE_SCALES 32

typedef struct {
    char name[MBS_NAME_MAX];
    MbsForceType type;
    int body1, body2;            /* TSDA: both; CONSTANT/TORQUE: body1 */
    double point1[3], point2[3]; /* drawn configuration */
    double stiffness, damping;
    double natural_length;       /* TSDA */
    double preload;              /* TSDA: constant force along the line (tension > 0) */
    double rest_angle;           /* RSDA, relative to the drawing */
    int joint;                   /* RSDA */
    double vector[3];            /* CONSTANT: force, TORQUE: torque */
    double bump[3];              /* TYRE: road bump centre x, bump radius, road height (m) */
    /* suspension elements (issue 24) */
    double table[2 * MBS_FORCE_TABLE_MAX]; /* SPRING_TABLE: d0, F0, d1, F1, ... (m, N) */
    int ntable;                            /* SPRING_TABLE: pairs in table */
    double compression_damping, compression_damping_high, compression_knee; /* DAMPER_BILINEAR */
    double rebound_damping, rebound_damping_high, rebound_knee;             /* DAMPER_BILINEAR */
    double min_length, max_length;         /* BUMP_STOP (0: no stop on that side) */
    double transition;                     /* BUMP_STOP: penetration of the smooth onset (m) */
    double bar_diameter, bar_length, shear_modulus; /* ANTIROLL_BAR: a solid round bar */
    double axis[3];              /* WHEEL: spin axis of body1 (drawn; any length); point1 its centre */
    double tyre[MBS_FORCE_TYRE_NUMBERS]; /* WHEEL with the linear law: its numbers */
    int tyre_law;                /* WHEEL: index of the law (mbs_tyre_model_class_at) */
    /* WHEEL: the law's data read from its property file (NULL for the linear law, whose
     * numbers are tyre[]); the model owns it: mbs_model_add_force stores a copy, the model's
     * copy copies it, mbs_model_free frees it. */
    struct MbsTyreData *tyre_data;
    /* WHEEL: 1 when the wheel is mounted on the other side of the vehicle than the side its
     * tyre's data describe (the model file's "side" against the .tir file's TYRESIDE): the law
     * is then evaluated mirrored (mbs_tyre_evaluate); 0 otherwise */
    int tyre_mirror;
    /* WHEEL: multipliers of its tyre law's scaling factors (MbsTyreModelClass.scaling order; a
     * model file's "tyre_scaling", e.g. LMUY), so that parameters and sensitivities reach them;
     * read when tyre_scaled, else mbs_model_add_force sets them all to 1 */
    double tyre_scale[MBS_FORCE_TYRE_SCALES];
    int tyre_scaled;
    /* drivers (engine/vehicle/force_path_follower.c, force_speed_control.c): joint is the
     * joint they act on, body1/point1 the body they read (the chassis) and axis its forward
     * direction (drawn) */
    double preview;              /* PATH_FOLLOWER: look-ahead distance along the heading (m) */
    double lateral_gain, rate_gain; /* PATH_FOLLOWER: command per m of error, per m/s */
    double max_command;          /* PATH_FOLLOWER: command's smooth limit (joint units) */
    double left;                 /* PATH_FOLLOWER: +1 or -1, the sign of the joint that steers left */
    double target_speed;         /* SPEED_CONTROL: m/s */
    double gain;                 /* SPEED_CONTROL: N m per m/s of speed error */
    double feed_forward;         /* SPEED_CONTROL: constant part of the torque (N m) */
    double integral_gain;        /* SPEED_CONTROL: N m per m of integrated speed error */
    double max_torque;           /* SPEED_CONTROL: the torque's smooth limit (N m) */
} MbsForce;

typedef struct {
    int joint;      /* -1: the velocity of a point (point, direction) */
    int coordinate; /* which coordinate of a multi-coordinate joint */
    int is_velocity; /* 1: initial velocity, 0: initial position (relative to the drawing) */
    double value;
    int point;           /* joint -1: the point (index in points) whose velocity along */
    double direction[3]; /* this unit direction is value */
} MbsInitialCondition;

typedef struct {
    char name[MBS_NAME_MAX];
    double value;
} MbsParameter;

/* A degree of freedom chosen by the user (used by formulations that partition coordinates,
 * `matrix-r`): coordinate `coordinate` of joint `joint`, or, when joint < 0, the global
 * coordinate `axis` (0 x, 1 y, 2 z) of model point `point`. */
typedef struct {
    int joint, coordinate;
    int point, axis;
} MbsDofChoice;

/* ---- objectives: psi = w(t_F) + integral of g dt (mbs_objective.h evaluates them) ---- */

/* What a term of an objective reads, at one instant. */
typedef enum {
    MBS_QUANTITY_POSITION,         /* 3: global position of a point of a body */
    MBS_QUANTITY_DISPLACEMENT,     /* 3: that position minus its value at t = 0 */
    MBS_QUANTITY_VELOCITY,         /* 3: velocity of a point */
    MBS_QUANTITY_ACCELERATION,     /* 3: acceleration of a point */
    MBS_QUANTITY_JOINT_COORDINATE, /* 1: coordinate of a tree or cut joint (revolute, prismatic) */
    MBS_QUANTITY_JOINT_RATE,       /* 1: its time derivative */
    MBS_QUANTITY_ANGULAR_VELOCITY, /* 3: angular velocity of a body */
    MBS_QUANTITY_COUNT
} MbsQuantityKind;

typedef enum {
    MBS_MEASURE_SQUARED_NORM, /* y.y (the square of a scalar quantity) */
    MBS_MEASURE_COMPONENT,    /* y[component] (the value of a scalar quantity) */
    MBS_MEASURE_SQUARED_COMPONENT, /* y[component]^2: paper 001 eq 76's z-acceleration squared */
} MbsMeasure;

/* One term weight * measure(quantity) of an objective's integrand g or final value w. */
typedef struct {
    MbsQuantityKind quantity;
    int point;     /* index into m->points: position, displacement, velocity, acceleration */
    int body;      /* angular velocity (for point quantities: the point's body) */
    int joint;     /* joint quantities */
    MbsMeasure measure;
    int component; /* 0..2 (x, y, z) for a component of a vector quantity; 0 for scalars */
    double weight;
    double reference[3]; /* subtracted from a vector quantity (e.g. a fixed point r20) */
    int final;     /* 0: a term of g (integrated over the run), 1: of w (at the final time) */
} MbsObjectiveTerm;

typedef struct {
    char name[MBS_NAME_MAX];
    int first_term, nterms; /* its terms: m->objective_terms[first_term ...] */
} MbsObjective;

typedef struct MbsTopology MbsTopology;

/* ---- parameters: which fields are computed from which parameter (mbs_parameters.c) ---- */

/* The element a bound number belongs to. */
typedef enum {
    MBS_ELEMENT_MODEL,     /* the model itself (gravity) */
    MBS_ELEMENT_PARAMETER, /* a parameter defined by an expression of earlier ones */
    MBS_ELEMENT_BODY,
    MBS_ELEMENT_POINT,
    MBS_ELEMENT_JOINT,
    MBS_ELEMENT_FORCE,
    MBS_ELEMENT_INITIAL,
} MbsElementKind;

/* A number of the model: element kind and index, byte offset of a double in the element's
 * struct (e.g. offsetof(MbsBody, mass), offsetof(MbsJoint, axis1) + sizeof(double)). */
typedef struct {
    MbsElementKind kind;
    int index;
    size_t offset;
} MbsFieldRef;

/* How a bound field is computed from its input expressions. Derived fields (a unit axis, an
 * inertia of a shape, a drawn distance) keep the inputs they came from, so a new parameter
 * value reproduces exactly what loading the file with that value gives. */
typedef enum {
    MBS_DERIVE_VALUE,       /* 1 input -> 1 number */
    MBS_DERIVE_UNIT_VECTOR, /* 3 inputs v -> v / |v| (3 numbers) */
    MBS_DERIVE_DISTANCE,    /* 6 inputs a, b -> |b - a| */
    MBS_DERIVE_MIDPOINT,    /* 6 inputs a, b -> (a + b) / 2 (3 numbers) */
    MBS_DERIVE_BOX_INERTIA, /* mass, 3 sizes -> inertia (9 numbers, mbs_inertia_box) */
    MBS_DERIVE_ROD_INERTIA, /* mass, 6 end coordinates -> inertia (mbs_inertia_slender_rod) */
    MBS_DERIVE_BOX_INERTIA_ALONG, /* mass, 3 sizes, 2 edge directions -> inertia (9 numbers,
                                     mbs_inertia_box_along) */
    MBS_DERIVE_COUNT
} MbsDerivation;

#define MBS_BINDING_INPUTS_MAX 10

typedef struct {
    MbsFieldRef target;  /* first number written */
    MbsDerivation derivation;
    int ninputs;
    char *inputs[MBS_BINDING_INPUTS_MAX]; /* expression texts (plain numbers written as text) */
    int *reads;          /* indices of the parameters the inputs read directly */
    int nreads;
} MbsBinding;

typedef struct MbsModel {
    char name[MBS_NAME_MAX * 2];
    double gravity[3];
    /* -1: spatial; 0, 1, 2: a planar mechanism moving in the plane normal to X, Y or Z (its
     * cut joints keep only their in-plane equations: no redundant rows) */
    int planar_normal;

    MbsBody *bodies;
    int nbodies;
    MbsPoint *points;
    int npoints;
    MbsJoint *joints;
    int njoints;
    MbsForce *forces;
    int nforces;
    MbsInitialCondition *initial;
    int ninitial;
    MbsParameter *parameters;
    int nparameters;
    MbsDofChoice *dofs;
    int ndofs;
    MbsBinding *bindings; /* fields that read a parameter, in evaluation order */
    int nbindings;
    MbsObjective *objectives;
    int nobjectives;
    MbsObjectiveTerm *objective_terms; /* every objective's terms, one objective after another */
    int nobjective_terms;

    int ground; /* index of the ground body */
    MbsTopology *topo; /* NULL until compiled */
    struct MbsRoad *road; /* the road wheels roll on (mbs_road.h; NULL: none), owned */
    struct MbsPath *path; /* the path a path follower steers along (mbs_path.h; NULL: none), owned */

    /* builder bookkeeping */
    int cap_bodies, cap_points, cap_joints, cap_forces, cap_initial, cap_parameters, cap_dofs,
        cap_bindings, cap_objectives, cap_objective_terms;
} MbsModel;

MbsModel *mbs_model_new(const char *name);
void mbs_model_free(MbsModel *m);

/* Builders return the new element's index, or -1 with err filled. */
int mbs_model_add_ground(MbsModel *m, const char *name, MbsError *err);
int mbs_model_add_body(MbsModel *m, const char *name, double mass, const double com[3],
                       const double inertia[9], MbsError *err);
int mbs_model_add_point(MbsModel *m, int body, const char *name, const double pos[3],
                        MbsError *err);
/* Revolute/prismatic: point, axis. Spherical: point (axis ignored). */
int mbs_model_add_joint(MbsModel *m, const char *name, MbsJointType type, int body1, int body2,
                        const double point[3], const double axis[3], MbsError *err);
int mbs_model_add_universal(MbsModel *m, const char *name, int body1, int body2,
                            const double point[3], const double axis1[3],
                            const double axis2[3], MbsError *err);
/* length < 0: the drawn distance between the two points. */
int mbs_model_add_rod(MbsModel *m, const char *name, int body1, const double point1[3],
                      int body2, const double point2[3], double length, MbsError *err);
int mbs_model_drive_joint(MbsModel *m, int joint, const MbsFunction *driver, MbsError *err);
int mbs_model_add_force(MbsModel *m, const MbsForce *force, MbsError *err);
/* The road of the model's wheels: the model stores a copy (mbs_road_copy; NULL removes it). */
int mbs_model_set_road(MbsModel *m, const struct MbsRoad *road, MbsError *err);
/* The path of the model's path followers: the model stores a copy (NULL removes it). */
int mbs_model_set_path(MbsModel *m, const struct MbsPath *path, MbsError *err);
/* Initial condition "point moves at value along direction" (direction need not be unit; it is
 * normalized). The assembly's velocity problem adds it as one more equation. */
/* Declare the mechanism planar, moving in the plane normal to axis (0, 1, 2 for X, Y, Z; -1:
 * spatial). Checked at compile: revolute axes along the normal, prismatic axes in the plane, no
 * spherical or universal joints. */
int mbs_model_set_planar(MbsModel *m, int axis, MbsError *err);
int mbs_model_set_point_velocity(MbsModel *m, int point, const double direction[3], double value,
                                 MbsError *err);
int mbs_model_set_initial(MbsModel *m, int joint, int coordinate, int is_velocity, double value,
                          MbsError *err);
int mbs_model_add_parameter(MbsModel *m, const char *name, double value, MbsError *err);
/* joint >= 0: a joint coordinate (point, axis ignored); joint < 0: point's global axis. */
int mbs_model_add_dof(MbsModel *m, int joint, int coordinate, int point, int axis,
                      MbsError *err);

/* A new objective (no terms yet), and a term appended to the last objective added (checked
 * against the model: the point, body or joint it reads, the component). Return the index, or
 * -1 with err naming the objective. Objectives may be added after compile: they do not change
 * the dynamics. */
int mbs_model_add_objective(MbsModel *m, const char *name, MbsError *err);
int mbs_model_add_objective_term(MbsModel *m, const MbsObjectiveTerm *term, MbsError *err);
int mbs_model_find_objective(const MbsModel *m, const char *name);

int mbs_model_find_body(const MbsModel *m, const char *name);
int mbs_model_find_joint(const MbsModel *m, const char *name);
int mbs_model_find_point(const MbsModel *m, int body, const char *name);

/* Inertia helpers (about the centre of mass, global axes). */
void mbs_inertia_slender_rod(double mass, const double end1[3], const double end2[3],
                             double inertia[9]);
void mbs_inertia_box(double mass, const double size[3], double inertia[9]);
/* A uniform box whose edge size[0] lies along u, size[1] along the part of v normal to u and
 * size[2] along u x v: I = Q diag Q^T with Q = [u, v', u x v'] (unit columns). -1 (inertia
 * NaN) when u is zero or v is parallel to u. */
int mbs_inertia_box_along(double mass, const double size[3], const double u[3],
                          const double v[3], double inertia[9]);

/* Spanning tree, coordinates, constraints. After this the model is read-only. */
int mbs_model_compile(MbsModel *m, MbsError *err);

/* ---- parameters ---------------------------------------------------------------------- */

int mbs_model_find_parameter(const MbsModel *m, const char *name);
/* 1 when parameter p is given a value of its own (a number, or an expression of constants),
 * 0 when it is computed from other parameters: the parameters a sensitivity or an optimisation
 * can vary, by default. */
int mbs_model_parameter_is_free(const MbsModel *m, int p);

/* Record that target (already set by a builder) is computed from inputs: expressions of the
 * model's parameters, all added before. The inputs must reproduce the target's value exactly
 * (so a rebuild for the same values is the same model). Inputs that read no parameter make a
 * constant: nothing is recorded then. Returns 0, or < 0 with err naming the field. */
int mbs_model_bind(MbsModel *m, MbsFieldRef target, MbsDerivation derivation,
                   const char *const *inputs, int ninputs, MbsError *err);

/* Number of doubles a derivation writes (1, 3 or 9). */
int mbs_derivation_outputs(MbsDerivation derivation);

/* Fields that change with parameter p, directly or through parameters computed from it, in
 * evaluation order: writes up to max of them to out (may be NULL) and returns how many there
 * are (parameters computed from p included, as MBS_ELEMENT_PARAMETER). */
int mbs_model_parameter_dependents(const MbsModel *m, int p, MbsFieldRef *out, int max);

/* "bodies[1] 'crank' mass", "joints[0] 'A' axis1[2]", ...: a field for messages and listings. */
void mbs_field_ref_describe(const MbsModel *m, MbsFieldRef ref, char *text, size_t size);

/* Forget every binding: the model's numbers stay, no field depends on a parameter any more. */
void mbs_model_clear_bindings(MbsModel *m);

/* A copy of m (compiled if m is). NULL with err on failure. */
MbsModel *mbs_model_copy(const MbsModel *m, MbsError *err);

/* A new model where parameter p has value (as if the file gave it that value) and every field
 * that depends on it is evaluated again, checked by the builders and compiled (if m is).
 * m stays untouched. NULL with err naming the element when a new value is invalid. */
MbsModel *mbs_model_with_parameter(const MbsModel *m, int p, double value, MbsError *err);

/* Sizes after compile. */
int mbs_model_ncoords(const MbsModel *m);      /* relative coordinates z */
int mbs_model_nconstraints(const MbsModel *m); /* loop closures + drivers */

#endif
