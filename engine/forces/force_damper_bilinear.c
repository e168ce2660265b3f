/* Damper piecewise linear in the rate, between two points (paper 000 §4: the coach's dampers,
 * "piecewise bilinear" characteristics with different slopes in compression and rebound). With
 * v = l' (> 0 rebound, the points separating; < 0 compression):
 *   rebound,     0 <= v <= vr:  tension = cr v
 *                v > vr:        tension = cr vr + cr2 (v - vr)
 *   compression, -vc <= v < 0:  tension = cc v
 *                v < -vc:       tension = -cc vc + cc2 (v + vc)
 * continuous, resisting the motion when the slopes are not negative; no potential, power
 * -tension v. The derivative d tension/d v is exact between the knees; at a knee it is the
 * low-speed (inner) slope, and at v = 0 the rebound slope: the branches the law takes. */
#include "mbs_force.h"
#include "mbs_settings.h" /* MBS_N_ */

static const MbsForceField fields[] = {
    {MBS_N_("compression_damping"), "N·s/m", offsetof(MbsForce, compression_damping), 1,
     MBS_FIELD_NONNEGATIVE},
    {MBS_N_("compression_damping_high"), "N·s/m", offsetof(MbsForce, compression_damping_high), 1,
     MBS_FIELD_NONNEGATIVE},
    {MBS_N_("compression_knee"), "m/s", offsetof(MbsForce, compression_knee), 1,
     MBS_FIELD_NONNEGATIVE},
    {MBS_N_("rebound_damping"), "N·s/m", offsetof(MbsForce, rebound_damping), 1,
     MBS_FIELD_NONNEGATIVE},
    {MBS_N_("rebound_damping_high"), "N·s/m", offsetof(MbsForce, rebound_damping_high), 1,
     MBS_FIELD_NONNEGATIVE},
    {MBS_N_("rebound_knee"), "m/s", offsetof(MbsForce, rebound_knee), 1, MBS_FIELD_NONNEGATIVE},
    {0},
};

/* Which branch the rate v is on: 0 rebound low, 1 rebound high, 2 compression low, 3 high. */
static int branch(const MbsForce *f, double v)
{
    if (v >= 0.0)
        return v <= f->rebound_knee ? 0 : 1;
    return v >= -f->compression_knee ? 2 : 3;
}

MBS_FORCE_LAW(evaluate,
    MbsLawScalar v = in->rate;
    double cr = f->rebound_damping, vr = f->rebound_knee;
    double cc = f->compression_damping, vc = f->compression_knee;
    switch (branch(f, MBS_VALUE(v))) {
    case 0: out->tension = MBS_SCALE(cr, v); break;
    case 1: out->tension = MBS_ADDC(MBS_SCALE(f->rebound_damping_high, MBS_SUBC(v, vr)), cr * vr);
        break;
    case 2: out->tension = MBS_SCALE(cc, v); break;
    default:
        out->tension =
            MBS_ADDC(MBS_SCALE(f->compression_damping_high, MBS_ADDC(v, vc)), -cc * vc);
        break;
    }
)

static void derivative(const MbsForce *f, const MbsForceInput *in, MbsForceDerivative *d)
{
    static const size_t slope[] = {offsetof(MbsForce, rebound_damping),
                                   offsetof(MbsForce, rebound_damping_high),
                                   offsetof(MbsForce, compression_damping),
                                   offsetof(MbsForce, compression_damping_high)};
    d->d_value = 0.0;
    d->d_rate = *(const double *)(const void *)((const char *)f + slope[branch(f, in->rate)]);
}

static double power(const MbsForce *f, const MbsForceInput *in)
{
    MbsForceOutput out;
    evaluate(f, in, &out);
    return -out.tension * in->rate;
}

const MbsForceClass mbs_force_damper_bilinear = {
    .name = "damper_bilinear",
    .description = MBS_N_("bilinear damper"),
    .type = MBS_FORCE_DAMPER_BILINEAR,
    .geometry = MBS_FORCE_ON_LINE,
    .fields = fields,
    .state_dependent = 1,
    .drawing = MBS_FORCE_DRAW_SPRING,
    .evaluate = evaluate,
    .evaluate_dual = evaluate_dual,
    .energy = mbs_force_no_energy,
    .power = power,
    .derivative = derivative,
};
