/* Anti-roll (stabiliser) bar as an angular spring between the bar's two ends, neglecting its
 * bending (paper 000: the coach's two stabiliser bars, "an angular spring between both bar
 * ends"). The bar is drawn as two halves joined by a revolute joint along the bar's axis; the
 * element acts on that joint, whose coordinate phi is the twist of one end relative to the
 * other (each half is linked to its suspension by its arm and a drop link, so the twist follows
 * the difference of the two wheels' travel):
 *   generalized force = -(k (phi - phi0) + c phi'),  k = stiffness + G J / L,
 * J = pi d^4 / 32 the polar moment of a solid round bar of diameter d, torsion length L and
 * shear modulus G (the torsion of a circular shaft, phi = T L / (G J): Timoshenko & Goodier,
 * Theory of Elasticity, §104; any of the three 0 leaves only `stiffness`). V = k (phi-phi0)^2/2,
 * power -c phi'^2; the derivative is exact. */
#include <math.h>

#include "mbs_force.h"
#include "mbs_settings.h" /* MBS_N_ */

static const MbsForceField fields[] = {
    {MBS_N_("stiffness"), "N·m/rad", offsetof(MbsForce, stiffness), 1, MBS_FIELD_NONNEGATIVE},
    {MBS_N_("bar_diameter"), "m", offsetof(MbsForce, bar_diameter), 1, MBS_FIELD_NONNEGATIVE},
    {MBS_N_("bar_length"), "m", offsetof(MbsForce, bar_length), 1, MBS_FIELD_NONNEGATIVE},
    {MBS_N_("shear_modulus"), "Pa", offsetof(MbsForce, shear_modulus), 1, MBS_FIELD_NONNEGATIVE},
    {MBS_N_("damping"), "N·m·s/rad", offsetof(MbsForce, damping), 1, MBS_FIELD_NONNEGATIVE},
    {MBS_N_("rest_angle"), "rad", offsetof(MbsForce, rest_angle), 1, 0},
    {0},
};

/* The torsional stiffness of the bar, N·m/rad. */
static double torsion_stiffness(const MbsForce *f)
{
    double k = f->stiffness, d = f->bar_diameter;
    if (d > 0.0 && f->bar_length > 0.0 && f->shear_modulus > 0.0)
        k += f->shear_modulus * (3.14159265358979323846 * d * d * d * d / 32.0) / f->bar_length;
    return k;
}

MBS_FORCE_LAW(evaluate,
    out->generalized = MBS_NEG(MBS_ADD(MBS_SCALE(torsion_stiffness(f),
                                                 MBS_SUBC(in->value, f->rest_angle)),
                                       MBS_SCALE(f->damping, in->rate)));
)

static void derivative(const MbsForce *f, const MbsForceInput *in, MbsForceDerivative *d)
{
    (void)in;
    d->d_value = -torsion_stiffness(f);
    d->d_rate = -f->damping;
}

static double energy(const MbsForce *f, const MbsForceInput *in)
{
    double s = in->value - f->rest_angle;
    return 0.5 * torsion_stiffness(f) * s * s;
}

static double power(const MbsForce *f, const MbsForceInput *in)
{
    return -f->damping * in->rate * in->rate;
}

static int check(const MbsForce *f, const char *name, MbsError *err)
{
    double x[4] = {f->bar_diameter, f->bar_length, f->shear_modulus, f->rest_angle};
    for (int i = 0; i < 4; ++i)
        if (!isfinite(x[i]))
            return mbs_error_set(err, MBS_FATAL, "force '%s': a number is not finite", name);
    if (!(torsion_stiffness(f) > 0.0))
        return mbs_error_set(err, MBS_FATAL,
                             "force '%s': give stiffness, or bar_diameter, bar_length and "
                             "shear_modulus", name);
    return 0;
}

const MbsForceClass mbs_force_antiroll_bar = {
    .name = "antiroll_bar",
    .description = MBS_N_("anti-roll bar"),
    .type = MBS_FORCE_ANTIROLL_BAR,
    .geometry = MBS_FORCE_ON_JOINT,
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
