/* RSDA: spring-damper on the coordinate of a revolute (or prismatic) joint,
 * generalized force = -(k (q - q0) + c q'). */
#include "mbs_force.h"
#include "mbs_settings.h" /* MBS_N_ */

static const MbsForceField fields[] = {
    {MBS_N_("stiffness"), "N·m/rad", offsetof(MbsForce, stiffness), 1, MBS_FIELD_NONNEGATIVE},
    {MBS_N_("damping"), "N·m·s/rad", offsetof(MbsForce, damping), 1, MBS_FIELD_NONNEGATIVE},
    {MBS_N_("rest_angle"), "rad", offsetof(MbsForce, rest_angle), 1, 0},
    {0},
};

MBS_FORCE_LAW(evaluate,
    out->generalized = MBS_NEG(MBS_ADD(MBS_SCALE(f->stiffness, MBS_SUBC(in->value, f->rest_angle)),
                                       MBS_SCALE(f->damping, in->rate)));
)

static void derivative(const MbsForce *f, const MbsForceInput *in, MbsForceDerivative *d)
{
    (void)in;
    d->d_value = -f->stiffness;
    d->d_rate = -f->damping;
}

static double energy(const MbsForce *f, const MbsForceInput *in)
{
    double s = in->value - f->rest_angle;
    return 0.5 * f->stiffness * s * s;
}

static double power(const MbsForce *f, const MbsForceInput *in)
{
    return -f->damping * in->rate * in->rate;
}

const MbsForceClass mbs_force_rsda = {
    .name = "rsda",
    .description = MBS_N_("rotational spring-damper"),
    .type = MBS_FORCE_RSDA,
    .geometry = MBS_FORCE_ON_JOINT,
    .fields = fields,
    .state_dependent = 1,
    .drawing = MBS_FORCE_DRAW_NONE,
    .evaluate = evaluate,
    .evaluate_dual = evaluate_dual,
    .energy = energy,
    .power = power,
    .derivative = derivative,
};
