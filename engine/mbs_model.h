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
} MbsForceType;

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
} MbsForce;

typedef struct {
    int joint;
    int coordinate; /* which coordinate of a multi-coordinate joint */
    int is_velocity; /* 1: initial velocity, 0: initial position (relative to the drawing) */
    double value;
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

typedef struct MbsTopology MbsTopology;

typedef struct MbsModel {
    char name[MBS_NAME_MAX * 2];
    double gravity[3];

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

    int ground; /* index of the ground body */
    MbsTopology *topo; /* NULL until compiled */

    /* builder bookkeeping */
    int cap_bodies, cap_points, cap_joints, cap_forces, cap_initial, cap_parameters, cap_dofs;
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
int mbs_model_set_initial(MbsModel *m, int joint, int coordinate, int is_velocity, double value,
                          MbsError *err);
int mbs_model_add_parameter(MbsModel *m, const char *name, double value, MbsError *err);
/* joint >= 0: a joint coordinate (point, axis ignored); joint < 0: point's global axis. */
int mbs_model_add_dof(MbsModel *m, int joint, int coordinate, int point, int axis,
                      MbsError *err);

int mbs_model_find_body(const MbsModel *m, const char *name);
int mbs_model_find_joint(const MbsModel *m, const char *name);
int mbs_model_find_point(const MbsModel *m, int body, const char *name);

/* Inertia helpers (about the centre of mass, global axes). */
void mbs_inertia_slender_rod(double mass, const double end1[3], const double end2[3],
                             double inertia[9]);
void mbs_inertia_box(double mass, const double size[3], double inertia[9]);

/* Spanning tree, coordinates, constraints. After this the model is read-only. */
int mbs_model_compile(MbsModel *m, MbsError *err);

/* Sizes after compile. */
int mbs_model_ncoords(const MbsModel *m);      /* relative coordinates z */
int mbs_model_nconstraints(const MbsModel *m); /* loop closures + drivers */

#endif
