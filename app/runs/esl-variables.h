/* The variables a run can be plotted or exported as: one table (esl_variable_kinds) for the
 * application's plots, its variable browser, its model-list menus and `eslabon-cli run
 * --variables`. A variable is named "BODY:POINT:x" (a point's position, velocity "vx" or
 * acceleration "ax" component, global axes), "JOINT:violation" (the largest |residual| of the
 * joint's constraints), "JOINT:angle" / "JOINT:angle_rate" (rotation of body2 relative to body1
 * about the axis of a revolute joint), "JOINT:slide" / "JOINT:slide_rate" (translation of body2
 * relative to body1 along the axis of a prismatic joint), or "BODY:kinetic" / "BODY:potential"
 * (the body's kinetic energy and its potential energy in gravity). In a model with a road (a
 * vehicle) a body also has "BODY:speed", ":yaw", ":pitch", ":roll", ":yaw_rate" and
 * ":lateral_acceleration"; a wheel element "WHEEL:fz", ":fx", ":fy", ":mz", ":kappa", ":alpha"
 * (its contact); a path follower "FOLLOWER:lateral_error", ":steering_command", ":target_y",
 * ":actual_y"; a speed controller "CONTROL:measured_speed", ":target_speed", ":drive_torque",
 * ":speed_integral".
 *
 * Every variable is computed from body poses and body velocities (esl_variable_value), so it
 * means the same thing in every formulation, relative or natural coordinates: joint coordinates
 * from the poses of the joint's two bodies, not from a formulation's own coordinates. From a
 * live formulation the velocities are exact (esl_body_velocities_from_formulation); a stored
 * history keeps only poses (docs/cli.md § Stored histories), so there they are differences of
 * the stored poses (esl_variable_series), as the point velocities are.
 *
 * GLib-only.
 */
#ifndef ESL_VARIABLES_H
#define ESL_VARIABLES_H

#include <glib.h>

#include "mbs_formulation.h"
#include "mbs_model.h"

G_BEGIN_DECLS

typedef enum {
    ESL_VARIABLE_POINT, /* of a model point: component 0-2 position, 3-5 velocity, 6-8 acceleration */
    ESL_VARIABLE_JOINT, /* of a joint: EslJointQuantity */
    ESL_VARIABLE_BODY,  /* of a moving body: EslBodyQuantity */
    ESL_VARIABLE_FORCE, /* of a force element: EslForceQuantity */
} EslVariableElement;

typedef enum {
    ESL_JOINT_VIOLATION,
    ESL_JOINT_ANGLE, /* revolute joints */
    ESL_JOINT_ANGLE_RATE,
    ESL_JOINT_SLIDE, /* prismatic joints */
    ESL_JOINT_SLIDE_RATE,
} EslJointQuantity;

typedef enum {
    ESL_BODY_KINETIC,
    ESL_BODY_POTENTIAL, /* in gravity: -m g . r_G */
    /* vehicle quantities (models with a road), the body's drawn X forward and Z up: */
    ESL_BODY_SPEED,     /* horizontal speed of the centre of mass */
    ESL_BODY_YAW,       /* rotation from the drawing as yaw, pitch, roll (Z-Y-X, ISO 8855) */
    ESL_BODY_PITCH,
    ESL_BODY_ROLL,
    ESL_BODY_YAW_RATE,  /* angular velocity about global Z */
    ESL_BODY_LATERAL_ACCELERATION, /* of the centre of mass along the horizontal left */
} EslBodyQuantity;

typedef enum {
    /* wheel elements: the contact (mbs_wheel.h MbsWheelInfo) */
    ESL_FORCE_FZ,
    ESL_FORCE_FX,
    ESL_FORCE_FY,
    ESL_FORCE_MZ,
    ESL_FORCE_KAPPA,
    ESL_FORCE_ALPHA,
    /* path followers (mbs_driver.h) */
    ESL_FORCE_LATERAL_ERROR,
    ESL_FORCE_STEERING_COMMAND,
    ESL_FORCE_TARGET_Y,  /* the path's y at the reference point's x */
    ESL_FORCE_ACTUAL_Y,  /* the reference point's y */
    /* speed controllers */
    ESL_FORCE_MEASURED_SPEED,
    ESL_FORCE_TARGET_SPEED,
    ESL_FORCE_DRIVE_TORQUE,
    ESL_FORCE_SPEED_INTEGRAL, /* the integrated speed error (m) */
} EslForceQuantity;

typedef struct {
    const char *suffix;  /* after "ELEMENT:" in the name */
    EslVariableElement element;
    int component; /* point component, EslJointQuantity, EslBodyQuantity or EslForceQuantity */
    const char *unit;
    const char *description; /* English, N_() marked */
} EslVariableKind;

/* Point kinds first (position, velocity, acceleration, three axes each), then joints, bodies. */
extern const EslVariableKind esl_variable_kinds[];
extern const int esl_variable_kind_count;

typedef struct {
    const EslVariableKind *kind;
    int index; /* point, joint, body or force index in the model */
} EslVariable;

/* Whether the kind exists for that element of m (an angle only for revolute joints...). */
gboolean esl_variable_applies(const MbsModel *m, const EslVariableKind *kind, int index);

/* Parse a name; FALSE with error naming it when it is not a variable of the model. */
gboolean esl_variable_parse(const MbsModel *m, const char *name, EslVariable *out,
                            GError **error);
/* Parse a comma-separated list into an array of EslVariable; NULL with error at the first
 * name that is not one. */
GArray *esl_variables_parse(const MbsModel *m, const char *spec, GError **error);
/* Its name, as parsed (free with g_free). */
char *esl_variable_name(const MbsModel *m, const EslVariable *v);

/* Body velocities, 6 per body: velocity of the centre of mass, then angular velocity (global;
 * zero for the ground). From a formulation: exact, from its point velocities (a rigid body's
 * velocity field v(r) = v_G + w x (r - r_G) gives w = 1/2 sum_i e_i x (v(r_G + e_i) - v_G)). */
void esl_body_velocities_from_formulation(const MbsFormulation *f, double *velocities);
/* From n stored samples (time n, poses n * nbodies * 12): differences of the poses, central
 * inside and one-sided at the ends (w from the skew part of dR/dt R^T), into n * nbodies * 6. */
void esl_body_velocities_from_poses(const MbsModel *m, const double *time, const double *poses,
                                    int n, double *velocities);

/* Whether a variable is a function of one state (poses and velocities): all but the point
 * accelerations, which only esl_variable_series gives (differences). */
gboolean esl_variable_is_instantaneous(const EslVariable *v);
/* The value of a variable at one state: at time (s: a speed controller's integral reads it),
 * poses (nbodies * 12), body velocities (nbodies * 6), joint violations (njoints; may be NULL:
 * 0). Angles in (-pi, pi]. NaN for a point acceleration (not instantaneous). */
double esl_variable_value(const MbsModel *m, const EslVariable *v, double time,
                          const double *poses, const double *velocities,
                          const double *violations);
/* An angle variable's value moved by whole turns to the one nearest previous (continuous
 * histories); other variables unchanged. */
double esl_variable_unwrap(const EslVariable *v, double previous, double value);

/* Its value at each of n stored samples (time n, poses n * nbodies * 12, violations n *
 * njoints) into y (n); angles continuous from the first sample. */
void esl_variable_series(const MbsModel *m, const EslVariable *v, const double *time,
                         const double *poses, const double *violations, int n, double *y);

G_END_DECLS

#endif
