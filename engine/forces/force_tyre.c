/* Tyre: a vertical spring-damper between a wheel centre (a point of a body) and the road
 * below it, in the spirit of the vertical tyre TSDAs of paper 002 §5.2. The road runs along
 * global X with global +Z up: height z0, with a half-cylinder bump of radius R across it at
 * x = xb, z_road(x) = z0 + sqrt(R^2 - (x - xb)^2) for |x - xb| < R. The tyre deflection is
 * d = radius - (z - z_road(x)); in contact (d > 0) the vertical force is
 * k d - c (zd - z_road'(x) xd), never pulling (>= 0). V = k d^2 / 2 (d > 0); the power of the
 * rest is f.v + dV/dt (the damper, the bump's slope pushing only vertically, the clamp). */
#include <math.h>
#include <string.h>

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

/* The contact, written once over the scalar type (MBS_FORCE_LAW) for the law and its energy and
 * power: vector[0] = d (0 off the road), vector[1] its rate (0 off the road), vector[2] the
 * vertical force k d + c d', clamped at 0. Branches follow the values. */
MBS_FORCE_LAW(contact,
    MbsLawScalar road = MBS_LIKE(in->r[0], f->bump[2]), slope = MBS_LIKE(in->r[0], 0.0);
    double R = f->bump[1];
    if (R > 0.0 && fabs(MBS_VALUE(in->r[0]) - f->bump[0]) < R) {
        MbsLawScalar s = MBS_SUBC(in->r[0], f->bump[0]);
        MbsLawScalar h = MBS_SQRT(MBS_CSUB(R * R, MBS_MUL(s, s)));
        road = MBS_ADDC(h, f->bump[2]);
        if (MBS_VALUE(h) > 0.0)
            slope = MBS_NEG(MBS_DIV(s, h));
    }
    MbsLawScalar d = MBS_CSUB(f->natural_length, MBS_SUB(in->r[2], road));
    out->vector[0] = out->vector[1] = out->vector[2] = MBS_LIKE(d, 0.0);
    if (MBS_VALUE(d) > 0.0) {
        out->vector[0] = d;
        out->vector[1] = MBS_SUB(MBS_MUL(slope, in->v[0]), in->v[2]);
        MbsLawScalar fz = MBS_ADD(MBS_SCALE(f->stiffness, d), MBS_SCALE(f->damping, out->vector[1]));
        if (MBS_VALUE(fz) > 0.0)
            out->vector[2] = fz;
    }
)

static void evaluate(const MbsForce *f, const MbsForceInput *in, MbsForceOutput *out)
{
    contact(f, in, out);
    out->vector[0] = out->vector[1] = 0.0;
}

static void evaluate_dual(const MbsForce *f, const MbsForceInputDual *in, MbsForceOutputDual *out)
{
    contact_dual(f, in, out);
    out->vector[0] = out->vector[1] = mbs_dual_constant(0.0);
}

/* With s = x - xb, h = sqrt(R^2 - s^2) on the bump: d_x = slope = -s/h, slope_x = -R^2/h^3,
 * d_z = -1; d'_x = slope_x x', d'_x' = slope, d'_z' = -1. */
static void derivative(const MbsForce *f, const MbsForceInput *in, MbsForceDerivative *d)
{
    MbsForceOutput out;
    memset(d, 0, sizeof *d);
    contact(f, in, &out);
    if (!(out.vector[2] > 0.0))
        return; /* off the road or clamped: no force near here */
    double R = f->bump[1], s = in->r[0] - f->bump[0], slope = 0.0, slope_x = 0.0;
    if (R > 0.0 && fabs(s) < R) {
        double h = sqrt(R * R - s * s);
        if (h > 0.0) {
            slope = -s / h;
            slope_x = -R * R / (h * h * h);
        }
    }
    double k = f->stiffness, c = f->damping;
    d->d_vector_r[2][0] = k * slope + c * slope_x * in->v[0];
    d->d_vector_r[2][2] = -k;
    d->d_vector_v[2][0] = c * slope;
    d->d_vector_v[2][2] = -c;
}

static double energy(const MbsForce *f, const MbsForceInput *in)
{
    MbsForceOutput out;
    contact(f, in, &out);
    return 0.5 * f->stiffness * out.vector[0] * out.vector[0];
}

static double power(const MbsForce *f, const MbsForceInput *in)
{
    MbsForceOutput out;
    contact(f, in, &out);
    return out.vector[2] * in->v[2] + f->stiffness * out.vector[0] * out.vector[1];
}

const MbsForceClass mbs_force_tyre = {
    .name = "tyre",
    .description = MBS_N_("tyre on a road with a bump"),
    .type = MBS_FORCE_TYRE,
    .geometry = MBS_FORCE_AT_POINT,
    .fields = fields,
    .state_dependent = 1,
    .drawing = MBS_FORCE_DRAW_TYRE, /* radius: natural_length; axis: the body's y */
    .evaluate = evaluate,
    .evaluate_dual = evaluate_dual,
    .energy = energy,
    .power = power,
    .derivative = derivative,
};
