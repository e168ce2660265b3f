/* Bump stop (and rebound stop) between two points: a one-sided stiff spring-damper that acts
 * only while the length l leaves [min_length, max_length] (the HMMWV data's "Minimum Length"
 * and "Maximum Length" of the spring; 0 leaves that side free), as the contact laws of
 * elastomer stops in vehicle models are written (a penalty force on the penetration p):
 *   l < min: p = min - l, push  P = k p - c l'  (>= 0),  tension = -P
 *   l > max: p = l - max, pull  P = k p + c l'  (>= 0),  tension = +P
 * The force never holds the points at the limit (no sticking: P is clamped at 0, as the
 * tyre's vertical force is). V = k p^2 / 2; power = dV/dt - tension l' (the damper and the
 * clamp). The derivative is exact away from the limits and the clamp (k and c inside, 0 once
 * clamped). */
#include "mbs_force.h"
#include "mbs_settings.h" /* MBS_N_ */

static const MbsForceField fields[] = {
    {MBS_N_("min_length"), "m", offsetof(MbsForce, min_length), 1, MBS_FIELD_NONNEGATIVE},
    {MBS_N_("max_length"), "m", offsetof(MbsForce, max_length), 1, MBS_FIELD_NONNEGATIVE},
    {MBS_N_("stiffness"), "N/m", offsetof(MbsForce, stiffness), 1,
     MBS_FIELD_REQUIRED | MBS_FIELD_NONNEGATIVE},
    {MBS_N_("damping"), "N·s/m", offsetof(MbsForce, damping), 1, MBS_FIELD_NONNEGATIVE},
    {0},
};

/* -1 below min, +1 above max, 0 between. */
static int side(const MbsForce *f, double l)
{
    if (l < f->min_length)
        return -1;
    if (f->max_length > 0.0 && l > f->max_length)
        return 1;
    return 0;
}

MBS_FORCE_LAW(evaluate,
    int s = side(f, MBS_VALUE(in->value));
    out->tension = MBS_LIKE(in->value, 0.0);
    if (s < 0) {
        MbsLawScalar P = MBS_SUB(MBS_SCALE(f->stiffness, MBS_CSUB(f->min_length, in->value)),
                                 MBS_SCALE(f->damping, in->rate));
        if (MBS_VALUE(P) > 0.0)
            out->tension = MBS_NEG(P);
    } else if (s > 0) {
        MbsLawScalar P = MBS_ADD(MBS_SCALE(f->stiffness, MBS_SUBC(in->value, f->max_length)),
                                 MBS_SCALE(f->damping, in->rate));
        if (MBS_VALUE(P) > 0.0)
            out->tension = P;
    }
)

static void derivative(const MbsForce *f, const MbsForceInput *in, MbsForceDerivative *d)
{
    MbsForceOutput out;
    evaluate(f, in, &out);
    /* both sides: tension = k l + c l' + constant while acting */
    int acting = side(f, in->value) != 0 && out.tension != 0.0;
    d->d_value = acting ? f->stiffness : 0.0;
    d->d_rate = acting ? f->damping : 0.0;
}

static double penetration(const MbsForce *f, double l)
{
    int s = side(f, l);
    return s < 0 ? f->min_length - l : s > 0 ? l - f->max_length : 0.0;
}

static double energy(const MbsForce *f, const MbsForceInput *in)
{
    double p = penetration(f, in->value);
    return 0.5 * f->stiffness * p * p;
}

static double power(const MbsForce *f, const MbsForceInput *in)
{
    MbsForceOutput out;
    evaluate(f, in, &out);
    int s = side(f, in->value);
    double dV = s * f->stiffness * penetration(f, in->value) * in->rate; /* dV/dt */
    return dV - out.tension * in->rate;
}

static int check(const MbsForce *f, const char *name, MbsError *err)
{
    if (f->max_length > 0.0 && !(f->max_length > f->min_length))
        return mbs_error_set(err, MBS_FATAL,
                             "force '%s': max_length %g must exceed min_length %g (or be 0: no "
                             "rebound stop)", name, f->max_length, f->min_length);
    return 0;
}

const MbsForceClass mbs_force_bump_stop = {
    .name = "bump_stop",
    .description = MBS_N_("bump stop"),
    .type = MBS_FORCE_BUMP_STOP,
    .geometry = MBS_FORCE_ON_LINE,
    .fields = fields,
    .state_dependent = 1,
    .drawing = MBS_FORCE_DRAW_NONE,
    .evaluate = evaluate,
    .evaluate_dual = evaluate_dual,
    .energy = energy,
    .power = power,
    .derivative = derivative,
    .check = check,
};
