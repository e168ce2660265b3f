/* Wheel: a wheel body rolling on the model's road with a tyre law (mbs_tyre_model.h).
 *
 * Its geometry is MBS_FORCE_ON_WHEEL (mbs_force.h): it reads the centre's position and velocity,
 * the spin axis and the angular velocity of the wheel body, and gives the force at the centre
 * and the torque about it. The contact (force_wheel_contact.h) finds the contact point under
 * the wheel, the vertical load from the law's vertical stiffness and damping, the contact frame
 * and the velocities the law reads, and moves the law's wrench to the centre. It is written once
 * over double and dual numbers: the dual instance serves the ad tangent, and the element's
 * derivative (d wrench / d(r, v, a, w), exact: the geometry in forward mode through the law's
 * own analytical d out/d in) the analytical tangent.
 *
 * Energy: V = k delta^2 / 2 in contact; the power of the rest is the wrench's power plus dV/dt,
 * with delta' the deflection's own rate along the motion (a dual pass), so that
 * T + V_gravity + V - (integral of the power) stays constant up to the integrator's error.
 */
#include <math.h>
#include <stddef.h>
#include <string.h>

#include "mbs_force.h"
#include "mbs_road.h"
#include "mbs_settings.h" /* MBS_N_ */
#include "mbs_tyre_model.h"
#include "mbs_wheel.h"

_Static_assert(MBS_FORCE_TYRE_SCALES == MBS_TYRE_SCALES, "a wheel holds its law's multipliers");

#define TYRE_FIELD(i) (offsetof(MbsForce, tyre) + (size_t)(i) * sizeof(double))

static const MbsForceField fields[] = {
    {MBS_N_("axis"), "1", offsetof(MbsForce, axis), 3, MBS_FIELD_REQUIRED},
    {MBS_N_("radius"), "m", TYRE_FIELD(MBS_TYRE_LINEAR_RADIUS), 1, MBS_FIELD_NONNEGATIVE},
    {MBS_N_("stiffness"), "N/m", TYRE_FIELD(MBS_TYRE_LINEAR_STIFFNESS), 1,
     MBS_FIELD_NONNEGATIVE},
    {MBS_N_("damping"), "N·s/m", TYRE_FIELD(MBS_TYRE_LINEAR_DAMPING), 1, MBS_FIELD_NONNEGATIVE},
    {MBS_N_("longitudinal_stiffness"), "N", TYRE_FIELD(MBS_TYRE_LINEAR_CKAPPA), 1,
     MBS_FIELD_NONNEGATIVE},
    {MBS_N_("cornering_stiffness"), "N/rad", TYRE_FIELD(MBS_TYRE_LINEAR_CALPHA), 1,
     MBS_FIELD_NONNEGATIVE},
    {MBS_N_("friction"), "1", TYRE_FIELD(MBS_TYRE_LINEAR_MU), 1, MBS_FIELD_NONNEGATIVE},
    {MBS_N_("rolling_radius"), "m", TYRE_FIELD(MBS_TYRE_LINEAR_ROLLING), 1,
     MBS_FIELD_NONNEGATIVE},
    {MBS_N_("low_speed"), "m/s", TYRE_FIELD(MBS_TYRE_LINEAR_VLOW), 1, MBS_FIELD_NONNEGATIVE},
    {0},
};

/* The law's data: its property file's, or the element's own numbers for the linear law. */
static const MbsTyreData *wheel_data(const MbsForce *f)
{
    return f->tyre_data ? f->tyre_data : (const MbsTyreData *)(const void *)f->tyre;
}

/* The wheel's multipliers of its law's scaling factors (NULL: none set, all 1: an element built
 * without mbs_model_add_force). */
static const double *wheel_scale(const MbsForce *f) { return f->tyre_scaled ? f->tyre_scale : NULL; }

#define WS double
#define WK(name) name
#include "force_wheel_contact.h"
#undef WS
#undef WK
#define WS MbsDual
#define WK(name) name##_dual
#include "force_wheel_contact.h"
#undef WS
#undef WK

double mbs_force_wheel_radius(const MbsForce *f)
{
    if (f->type == MBS_FORCE_TYRE)
        return f->natural_length;
    const MbsTyreModelClass *law = mbs_tyre_model_class_at(f->tyre_law);
    double R0 = 0.0, k, c;
    if (law)
        law->vertical(wheel_data(f), wheel_scale(f), &R0, &k, &c);
    return R0;
}

double mbs_force_wheel_width(const MbsForce *f)
{
    if (f->type != MBS_FORCE_WHEEL)
        return 0.0;
    return mbs_tyre_width(mbs_tyre_model_class_at(f->tyre_law), wheel_data(f));
}

MbsRoad *mbs_force_tyre_road(const MbsForce *f)
{
    if (f->type != MBS_FORCE_TYRE)
        return NULL;
    MbsRoad *road = mbs_road_new(f->bump[2], 1.0);
    if (road && f->bump[1] > 0.0) {
        /* the tyre's road is the same half-cylinder as the road class "bump" (road_bump.c) */
        double bump[2] = {2.0 * f->bump[1], f->bump[0]};
        MbsError err = {0};
        if (mbs_road_add(road, mbs_road_class_index("bump"), bump, 2, NULL, 0, &err) != 0) {
            mbs_road_free(road);
            return NULL;
        }
    }
    return road;
}

void mbs_force_wheel_contact(const MbsForce *f, const MbsRoad *road, const double r[3],
                             const double v[3], const double a[3], const double w[3],
                             double force[3], double torque[3], MbsWheelInfo *info)
{
    double delta;
    contact(f, road, r, v, a, w, force, torque, &delta, info);
}

static void evaluate(const MbsForce *f, const MbsForceInput *in, MbsForceOutput *out)
{
    double delta;
    memset(out, 0, sizeof *out);
    contact(f, in->road, in->r, in->v, in->axis, in->omega, out->vector, out->torque, &delta,
            NULL);
}

static void evaluate_dual(const MbsForce *f, const MbsForceInputDual *in, MbsForceOutputDual *out)
{
    MbsDual delta;
    out->tension = out->generalized = mbs_dual_constant(0.0);
    contact_dual(f, in->road, in->r, in->v, in->axis, in->omega, out->vector, out->torque,
                 &delta, NULL);
}

/* One dual pass seeded along r (directions 0-2), v (3-5), a (6-8) and w (9-11). */
static void derivative(const MbsForce *f, const MbsForceInput *in, MbsForceDerivative *d)
{
    MbsDual r[3], v[3], a[3], w[3], force[3], torque[3], delta;
    memset(d, 0, sizeof *d);
    for (int i = 0; i < 3; ++i) {
        r[i] = mbs_dual_constant(in->r[i]);
        v[i] = mbs_dual_constant(in->v[i]);
        a[i] = mbs_dual_constant(in->axis[i]);
        w[i] = mbs_dual_constant(in->omega[i]);
        r[i].d[i] = v[i].d[3 + i] = a[i].d[6 + i] = w[i].d[9 + i] = 1.0;
    }
    if (!contact_dual(f, in->road, r, v, a, w, force, torque, &delta, NULL))
        return;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
            d->d_vector_r[i][j] = force[i].d[j];
            d->d_vector_v[i][j] = force[i].d[3 + j];
            d->d_vector_a[i][j] = force[i].d[6 + j];
            d->d_vector_w[i][j] = force[i].d[9 + j];
            d->d_torque_r[i][j] = torque[i].d[j];
            d->d_torque_v[i][j] = torque[i].d[3 + j];
            d->d_torque_a[i][j] = torque[i].d[6 + j];
            d->d_torque_w[i][j] = torque[i].d[9 + j];
        }
}

static double stiffness_of(const MbsForce *f)
{
    const MbsTyreModelClass *law = mbs_tyre_model_class_at(f->tyre_law);
    double R0, k, c;
    law->vertical(wheel_data(f), wheel_scale(f), &R0, &k, &c);
    return k;
}

static double energy(const MbsForce *f, const MbsForceInput *in)
{
    double force[3], torque[3], delta;
    contact(f, in->road, in->r, in->v, in->axis, in->omega, force, torque, &delta, NULL);
    return 0.5 * stiffness_of(f) * delta * delta;
}

/* The wrench's power F.v + T.w plus dV/dt = k delta delta', delta' along r' = v, a' = w x a. */
static double power(const MbsForce *f, const MbsForceInput *in)
{
    MbsDual r[3], v[3], a[3], w[3], force[3], torque[3], delta;
    double ad[3];
    mbs_v3_cross(in->omega, in->axis, ad);
    for (int i = 0; i < 3; ++i) {
        r[i] = mbs_dual_constant(in->r[i]);
        v[i] = mbs_dual_constant(in->v[i]);
        a[i] = mbs_dual_constant(in->axis[i]);
        w[i] = mbs_dual_constant(in->omega[i]);
        r[i].d[0] = in->v[i];
        a[i].d[0] = ad[i];
    }
    contact_dual(f, in->road, r, v, a, w, force, torque, &delta, NULL);
    double p = stiffness_of(f) * delta.v * delta.d[0];
    for (int i = 0; i < 3; ++i)
        p += force[i].v * in->v[i] + torque[i].v * in->omega[i];
    return p;
}

const MbsForceClass mbs_force_wheel = {
    .name = "wheel",
    .description = MBS_N_("wheel with a tyre on the road"),
    .type = MBS_FORCE_WHEEL,
    .geometry = MBS_FORCE_ON_WHEEL,
    .fields = fields,
    .state_dependent = 1,
    .drawing = MBS_FORCE_DRAW_TYRE,
    .evaluate = evaluate,
    .evaluate_dual = evaluate_dual,
    .energy = energy,
    .power = power,
    .derivative = derivative,
};
