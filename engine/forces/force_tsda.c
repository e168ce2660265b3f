/* TSDA: translational spring-damper-actuator between two points,
 * tension = k (l - l0) + c l' + preload. */
#include "mbs_force.h"
#include "mbs_settings.h" /* MBS_N_ */

static const MbsForceField fields[] = {
    {MBS_N_("stiffness"), "N/m", offsetof(MbsForce, stiffness), 1, MBS_FIELD_NONNEGATIVE},
    {MBS_N_("damping"), "N·s/m", offsetof(MbsForce, damping), 1, MBS_FIELD_NONNEGATIVE},
    {MBS_N_("natural_length"), "m", offsetof(MbsForce, natural_length), 1,
     MBS_FIELD_NONNEGATIVE | MBS_FIELD_DRAWN_LENGTH},
    {MBS_N_("preload"), "N", offsetof(MbsForce, preload), 1, 0},
    {0},
};

MBS_FORCE_LAW(evaluate,
    out->tension = MBS_ADDC(MBS_ADD(MBS_SCALE(f->stiffness, MBS_SUBC(in->value, f->natural_length)),
                                    MBS_SCALE(f->damping, in->rate)),
                            f->preload);
)

static void derivative(const MbsForce *f, const MbsForceInput *in, MbsForceDerivative *d)
{
    (void)in;
    d->d_value = f->stiffness;
    d->d_rate = f->damping;
}

static double energy(const MbsForce *f, const MbsForceInput *in)
{
    double s = in->value - f->natural_length;
    return 0.5 * f->stiffness * s * s + f->preload * in->value;
}

static double power(const MbsForce *f, const MbsForceInput *in)
{
    return -f->damping * in->rate * in->rate;
}

const MbsForceClass mbs_force_tsda = {
    .name = "tsda",
    .description = MBS_N_("spring-damper"),
    .type = MBS_FORCE_TSDA,
    .geometry = MBS_FORCE_ON_LINE,
    .fields = fields,
    .state_dependent = 1,
    .drawing = MBS_FORCE_DRAW_SPRING,
    .evaluate = evaluate,
    .evaluate_dual = evaluate_dual,
    .energy = energy,
    .power = power,
    .derivative = derivative,
};
