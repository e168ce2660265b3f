/* Tyre: a vertical spring-damper between a wheel centre (a point of a body) and the road
 * below it, in the spirit of the vertical tyre TSDAs of paper 002 §5.2. The road runs along
 * global X with global +Z up: height z0, with a half-cylinder bump of radius R across it at
 * x = xb, z_road(x) = z0 + sqrt(R^2 - (x - xb)^2) for |x - xb| < R. The tyre deflection is
 * d = radius - (z - z_road(x)); in contact (d > 0) the vertical force is
 * k d - c (zd - z_road'(x) xd), never pulling (>= 0). V = k d^2 / 2 (d > 0); the power of the
 * rest is f.v + dV/dt (the damper, the bump's slope pushing only vertically, the clamp). */
#include <math.h>

#include "mbs_force.h"
#include "mbs_settings.h" /* MBS_N_ */

static const MbsForceField fields[] = {
    {MBS_N_("stiffness"), "N/m", offsetof(MbsForce, stiffness), 1, MBS_FIELD_NONNEGATIVE},
    {MBS_N_("damping"), "N·s/m", offsetof(MbsForce, damping), 1, MBS_FIELD_NONNEGATIVE},
    {MBS_N_("radius"), "m", offsetof(MbsForce, natural_length), 1,
     MBS_FIELD_REQUIRED | MBS_FIELD_NONNEGATIVE},
    /* x of the bump's axis, its radius, the road's height */
    {MBS_N_("bump"), "m", offsetof(MbsForce, bump), 3, 0},
    {0},
};

/* Road height under x and its slope. */
static double road(const MbsForce *f, double x, double *slope)
{
    double s = x - f->bump[0], R = f->bump[1];
    *slope = 0.0;
    if (!(R > 0.0) || fabs(s) >= R)
        return f->bump[2];
    double h = sqrt(R * R - s * s);
    *slope = h > 0.0 ? -s / h : 0.0;
    return f->bump[2] + h;
}

/* Deflection d and its rate (0 when off the road). */
static double deflection(const MbsForce *f, const MbsForceInput *in, double *rate)
{
    double slope;
    double d = f->natural_length - (in->r[2] - road(f, in->r[0], &slope));
    *rate = d > 0.0 ? slope * in->v[0] - in->v[2] : 0.0;
    return d > 0.0 ? d : 0.0;
}

static void evaluate(const MbsForce *f, const MbsForceInput *in, MbsForceOutput *out)
{
    double rate, d = deflection(f, in, &rate);
    double fz = d > 0.0 ? f->stiffness * d + f->damping * rate : 0.0;
    out->vector[0] = out->vector[1] = 0.0;
    out->vector[2] = fz > 0.0 ? fz : 0.0;
}

static double energy(const MbsForce *f, const MbsForceInput *in)
{
    double rate, d = deflection(f, in, &rate);
    return 0.5 * f->stiffness * d * d;
}

static double power(const MbsForce *f, const MbsForceInput *in)
{
    MbsForceOutput out;
    evaluate(f, in, &out);
    double rate, d = deflection(f, in, &rate);
    return out.vector[2] * in->v[2] + f->stiffness * d * rate;
}

const MbsForceClass mbs_force_tyre = {
    .name = "tyre",
    .description = MBS_N_("tyre on a road with a bump"),
    .type = MBS_FORCE_TYRE,
    .geometry = MBS_FORCE_AT_POINT,
    .fields = fields,
    .state_dependent = 1,
    .drawing = MBS_FORCE_DRAW_NONE,
    .evaluate = evaluate,
    .energy = energy,
    .power = power,
};
