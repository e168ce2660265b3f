/* Force elements: one class per kind (engine/force_<kind>.c), listed once in mbs_force.c.
 *
 * A class gives the element's law in terms of the kinematics of its geometry, so that both
 * descriptions of a model use it: the relative-coordinate path (mbs_dynamics.c, mbs_energy.c)
 * and the natural-coordinate path (mbs_natural.c, ali3p) each compute the geometry's
 * kinematics their own way and apply the law's output as their generalized forces:
 *
 *   line   (two points of two bodies)   in: distance l, its rate     out: tension along the line
 *   joint  (coordinate 0 of a joint)    in: coordinate q, its rate   out: generalized force
 *   point  (a point of one body)        in: position, velocity       out: global force at it
 *   body   (one body)                   in: angular velocity         out: global torque
 *   wheel  (a wheel body: centre point1 in: centre position, velocity,  out: force at the centre
 *           of body1, spin axis)            spin axis, angular velocity,     and torque (global)
 *                                           the model's road
 *   control (a joint driven by what a       in: the joint's coordinate and   out: generalized force
 *           body does: a driver reading         rate; point1 of body1: its       on the coordinate
 *           the chassis)                        position, velocity; body1's
 *                                               forward axis, angular velocity;
 *                                               the model's path
 *
 * A new kind is one file with its class and one line in the registry. The model file keys,
 * `eslabon-cli info`, the model editor and the scene read the class (fields, drawing).
 */
#ifndef MBS_FORCE_H
#define MBS_FORCE_H

#include <stddef.h>

#include "mbs_model.h"
#include "mbs_scalar.h"

typedef struct MbsRoad MbsRoad; /* mbs_road.h */
typedef struct MbsPath MbsPath; /* mbs_path.h */

typedef enum {
    MBS_FORCE_ON_LINE,  /* body1/point1 to body2/point2 */
    MBS_FORCE_ON_JOINT, /* joint (revolute or prismatic) */
    MBS_FORCE_AT_POINT, /* body1/point1 */
    MBS_FORCE_ON_BODY,  /* body1 */
    MBS_FORCE_ON_WHEEL, /* body1: centre point1, spin axis (drawn, global) */
    /* joint (revolute or prismatic), read from body1 (point1, forward axis): drivers. Its
     * force on the joint depends on the joint's coordinate and on body1's motion
     * (MbsForceDerivative: d_value, d_rate and d_gen_*). */
    MBS_FORCE_CONTROL,
} MbsForceGeometry;

/* What the scene draws for an element. */
typedef enum {
    MBS_FORCE_DRAW_NONE,
    MBS_FORCE_DRAW_SPRING, /* a helix from point1 to point2 */
    MBS_FORCE_DRAW_ARROW,  /* an arrow at point1 along vector */
    MBS_FORCE_DRAW_TYRE,   /* a tyre at point1 about axis, or the body's y without one (radius:
                              mbs_force_wheel_radius) */
} MbsForceDrawing;

enum {
    MBS_FIELD_REQUIRED = 1 << 0,
    MBS_FIELD_NONNEGATIVE = 1 << 1,
    MBS_FIELD_DRAWN_LENGTH = 1 << 2, /* absent: the drawn distance between the two points */
    /* a table of pairs [[x, y], ...] in the model file: count doubles at offset hold up to
     * count / 2 pairs, MbsForce.ntable says how many */
    MBS_FIELD_TABLE = 1 << 3,
};

/* A number of the element read from model files and shown to users. */
typedef struct {
    const char *name;   /* model-file key, e.g. "stiffness" */
    const char *unit;   /* SI, e.g. "N/m" */
    size_t offset;      /* of the first double in MbsForce */
    int count;          /* 1 or 3 */
    unsigned flags;     /* MBS_FIELD_* */
} MbsForceField;

/* Kinematics of the geometry (only the part for the class's geometry is set). */
typedef struct {
    double value, rate; /* line: distance and its rate; joint: coordinate and its rate */
    double r[3], v[3];  /* point: position and velocity of the point */
    double omega[3];    /* body, wheel: angular velocity */
    double axis[3];     /* wheel: its spin axis, unit (r, v: the centre's); control: body1's
                           forward axis turned (unit when drawn unit) */
    const MbsRoad *road; /* wheel: the model's road (NULL: none, no contact) */
    const MbsPath *path; /* control: the model's path (NULL: none) */
    double time;         /* control: the time of the state (s; the kinematics' clock, 0
                            without one: see MbsKinematics.clock) */
} MbsForceInput;

typedef struct {
    double tension;     /* line: > 0 pulls the two points together */
    double generalized; /* joint: generalized force on the coordinate */
    double vector[3];   /* point, wheel: force; body: torque (global axes) */
    double torque[3];   /* wheel: torque about the centre (global axes) */
} MbsForceOutput;

/* Partial derivatives of a law's output for the analytical tangent
 * (engine/mbs_dynamics_derivatives.c): line and joint laws, of the scalar output (tension,
 * generalized force) with respect to the scalar input's value and rate; point laws, of the force
 * vector with respect to the point's position and velocity (d_vector_r[a][b] = d vector_a/d r_b;
 * a constant law leaves them zero). */
typedef struct {
    double d_value, d_rate;
    double d_vector_r[3][3], d_vector_v[3][3];
    /* wheel: of the force (vector) and the torque with the centre's position r and velocity v,
     * the spin axis a and the angular velocity w (d_torque_r[a][b] = d torque_a/d r_b) */
    double d_vector_a[3][3], d_vector_w[3][3];
    double d_torque_r[3][3], d_torque_v[3][3], d_torque_a[3][3], d_torque_w[3][3];
    /* control: of the generalized force (with d_value, d_rate: with the joint's coordinate and
     * rate) with body1's point r, its velocity v, the forward axis a (turned) and body1's
     * angular velocity w */
    double d_gen_r[3], d_gen_v[3], d_gen_a[3], d_gen_w[3];
} MbsForceDerivative;
/* The same over dual numbers (mbs_scalar.h), for automatic differentiation. */
typedef struct {
    MbsDual value, rate;
    MbsDual r[3], v[3];
    MbsDual omega[3];
    MbsDual axis[3];
    const MbsRoad *road;
    const MbsPath *path;
    double time; /* not differentiated: a step's time is no unknown */
} MbsForceInputDual;

typedef struct {
    MbsDual tension;
    MbsDual generalized;
    MbsDual vector[3];
    MbsDual torque[3];
} MbsForceOutputDual;

/* A law written once over the scalar type: defines the static functions name (double) and
 * name_dual (dual numbers) from one body that reads f and in and sets out with the operations
 * of mbs_scalar.h (MBS_ADD, MBS_SCALE...), so the forward-mode derivative of a law is never
 * written by hand. Its locals are of type MbsLawScalar (double or MbsDual). */
#define MBS_FORCE_LAW(name, ...)                                                                 \
    static void name(const MbsForce *f, const MbsForceInput *in, MbsForceOutput *out)          \
    {                                                                                          \
        typedef double MbsLawScalar;                                                           \
        (void)f, (void)in, (void)out, (void)sizeof(MbsLawScalar);                              \
        __VA_ARGS__                                                                            \
    }                                                                                          \
    static void name##_dual(const MbsForce *f, const MbsForceInputDual *in,                    \
                            MbsForceOutputDual *out)                                           \
    {                                                                                          \
        typedef MbsDual MbsLawScalar;                                                          \
        (void)f, (void)in, (void)out, (void)sizeof(MbsLawScalar);                              \
        __VA_ARGS__                                                                            \
    }

typedef struct {
    const char *name;        /* the kind in model files: "tsda" */
    const char *description; /* for people: "spring-damper" (the inspector's words) */
    MbsForceType type;
    MbsForceGeometry geometry;
    const MbsForceField *fields; /* terminated by a NULL name */
    int nstates;             /* internal state variables (0 for every kind today) */
    int state_dependent;     /* the law reads the kinematics (0: a constant output) */
    MbsForceDrawing drawing;
    void (*evaluate)(const MbsForce *f, const MbsForceInput *in, MbsForceOutput *out);
    /* the same law over dual numbers (MBS_FORCE_LAW defines both) */
    void (*evaluate_dual)(const MbsForce *f, const MbsForceInputDual *in,
                          MbsForceOutputDual *out);
    /* Potential of the conservative part, and power of the rest (for the energy balance:
     * d(T + V)/dt = power). */
    double (*energy)(const MbsForce *f, const MbsForceInput *in);
    double (*power)(const MbsForce *f, const MbsForceInput *in);
    /* Optional: the law's derivative (d tension/d(l, l'), d generalized/d(q, q'), d vector/
     * d(r, v); a wheel's force and torque / d(r, v, axis, omega); a control law's generalized
     * force / d(q, q', r, v, axis, omega)); a constant law
     * (state_dependent 0) gives zeros. Without it the analytical
     * tangent refuses models with the element. A body law that read the kinematics would need
     * d torque/d omega, which this does not carry (none exists today). */
    void (*derivative)(const MbsForce *f, const MbsForceInput *in, MbsForceDerivative *d);
    /* Optional: checks of the element's numbers beyond their sign (mbs_model_add_force calls
     * it): 0, or a status with err naming the element (name) and the field. */
    int (*check)(const MbsForce *f, const char *name, MbsError *err);
} MbsForceClass;

/* The numbers of field in element f (count of them). */
static inline const double *mbs_force_field_values(const MbsForce *f, const MbsForceField *field)
{
    return (const double *)(const void *)((const char *)f + field->offset);
}

int mbs_force_class_count(void);
const MbsForceClass *mbs_force_class_at(int i);
const MbsForceClass *mbs_force_class(MbsForceType type); /* NULL for an unknown type */
const MbsForceClass *mbs_force_class_by_name(const char *name);

/* "tsda, rsda, force or torque": the kinds for messages. */
void mbs_force_class_list(char *text, size_t size);

/* Parts that classes share: the law of a constant vector (f->vector, whatever the
 * kinematics) and no potential. */
void mbs_force_constant_vector(const MbsForce *f, const MbsForceInput *in, MbsForceOutput *out);
void mbs_force_constant_vector_dual(const MbsForce *f, const MbsForceInputDual *in,
                                    MbsForceOutputDual *out);
double mbs_force_no_energy(const MbsForce *f, const MbsForceInput *in);
void mbs_force_constant_derivative(const MbsForce *f, const MbsForceInput *in,
                                   MbsForceDerivative *d);

/* The element's generalized forces in natural coordinates depend on q (all but a constant
 * force at a point, whose point is linear in q). */
int mbs_force_varies_in_natural(const MbsForce *f);

#endif
