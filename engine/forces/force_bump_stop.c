/* Bump stop (and rebound stop) between two points: a one-sided stiff spring-damper that acts
 * only while the length l leaves [min_length, max_length] (the HMMWV data's "Minimum Length"
 * and "Maximum Length" of the spring; 0 leaves that side free), a penalty force on the
 * penetration p (p = min - l below, l - max above), as elastomer stops are modelled in vehicle
 * models. Over the first `transition` (delta) of penetration stiffness and damping grow from 0,
 * so the force is C1 at contact (a sharp stop's kink and a damped stop's jump at contact are
 * events that fixed-step sensitivities and differences cannot follow):
 *   elastic  E(p) = k p^2 / (2 delta)          for p < delta,  k (p - delta/2) beyond
 *   damping  w(p) = p / delta                  for p < delta,  1 beyond
 *   P = E(p) + c w(p) p',  clamped at 0 (it never holds the points at the limit, as the tyre's
 *   vertical force), pushing apart below min (tension = -P), pulling above max (tension = +P);
 * delta = 0 is the sharp stop P = k p + c p'. V = integral of E: k p^3 / (6 delta) for
 * p < delta, k delta^2/6 + k ((p - delta/2)^2 - delta^2/4) / 2 beyond; power = dV/dt -
 * tension l'. The derivative is exact away from the clamp (0 clamped or inside the range). */
#include "mbs_force.h"
#include "mbs_settings.h" /* MBS_N_ */

static const MbsForceField fields[] = {
    {MBS_N_("min_length"), "m", offsetof(MbsForce, min_length), 1, MBS_FIELD_NONNEGATIVE},
    {MBS_N_("max_length"), "m", offsetof(MbsForce, max_length), 1, MBS_FIELD_NONNEGATIVE},
    {MBS_N_("stiffness"), "N/m", offsetof(MbsForce, stiffness), 1,
     MBS_FIELD_REQUIRED | MBS_FIELD_NONNEGATIVE},
    {MBS_N_("damping"), "N·s/m", offsetof(MbsForce, damping), 1, MBS_FIELD_NONNEGATIVE},
    {MBS_N_("transition"), "m", offsetof(MbsForce, transition), 1, MBS_FIELD_NONNEGATIVE},
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

/* P from the penetration p and its rate pd (> 0 going in), written over the scalar type. */
#define STOP_FORCE(P, p, pd)                                                                    \
    do {                                                                                       \
        double delta_ = f->transition;                                                         \
        if (delta_ > 0.0 && MBS_VALUE(p) < delta_) {                                           \
            MbsLawScalar w_ = MBS_SCALE(1.0 / delta_, p);                                      \
            P = MBS_MUL(w_, MBS_ADD(MBS_SCALE(0.5 * f->stiffness, p),                          \
                                    MBS_SCALE(f->damping, pd)));                               \
        } else {                                                                               \
            P = MBS_ADD(MBS_SCALE(f->stiffness, MBS_SUBC(p, 0.5 * delta_)),                    \
                        MBS_SCALE(f->damping, pd));                                            \
        }                                                                                      \
    } while (0)

MBS_FORCE_LAW(evaluate,
    int s = side(f, MBS_VALUE(in->value));
    out->tension = MBS_LIKE(in->value, 0.0);
    if (s != 0) {
        MbsLawScalar p = s < 0 ? MBS_CSUB(f->min_length, in->value)
                               : MBS_SUBC(in->value, f->max_length);
        MbsLawScalar pd = s < 0 ? MBS_NEG(in->rate) : in->rate, P;
        STOP_FORCE(P, p, pd);
        if (MBS_VALUE(P) > 0.0)
            out->tension = s < 0 ? MBS_NEG(P) : P;
    }
)

static double penetration(const MbsForce *f, double l)
{
    int s = side(f, l);
    return s < 0 ? f->min_length - l : s > 0 ? l - f->max_length : 0.0;
}

static void derivative(const MbsForce *f, const MbsForceInput *in, MbsForceDerivative *d)
{
    MbsForceOutput out;
    evaluate(f, in, &out);
    d->d_value = d->d_rate = 0.0;
    int s = side(f, in->value);
    if (s == 0 || out.tension == 0.0)
        return;
    /* dP/dp and dP/dpd; p = s (l - limit), pd = s l', tension = s P: d tension/d l = dP/dp */
    double p = penetration(f, in->value), pd = s * in->rate, delta = f->transition;
    double k = f->stiffness, c = f->damping;
    if (delta > 0.0 && p < delta) {
        d->d_value = (k * p + c * pd) / delta;
        d->d_rate = c * p / delta;
    } else {
        d->d_value = k;
        d->d_rate = c;
    }
}

static double energy(const MbsForce *f, const MbsForceInput *in)
{
    double p = penetration(f, in->value), delta = f->transition, k = f->stiffness;
    if (delta > 0.0 && p < delta)
        return k * p * p * p / (6.0 * delta);
    double a = p - 0.5 * delta;
    return k * delta * delta / 6.0 + 0.5 * k * (a * a - 0.25 * delta * delta);
}

static double power(const MbsForce *f, const MbsForceInput *in)
{
    MbsForceOutput out;
    evaluate(f, in, &out);
    int s = side(f, in->value);
    double p = penetration(f, in->value), delta = f->transition, k = f->stiffness;
    double E = delta > 0.0 && p < delta ? k * p * p / (2.0 * delta) : k * (p - 0.5 * delta);
    double dV = s == 0 ? 0.0 : E * s * in->rate; /* dV/dt = E(p) p', p' = s l' */
    return dV - out.tension * in->rate;
}

static int check(const MbsForce *f, const char *name, MbsError *err)
{
    if (f->max_length > 0.0 && !(f->max_length > f->min_length))
        return mbs_error_set(err, MBS_FATAL,
                             "force '%s': max_length %g must exceed min_length %g (or be 0: no "
                             "rebound stop)", name, f->max_length, f->min_length);
    if (!(f->transition >= 0.0))
        return mbs_error_set(err, MBS_FATAL, "force '%s': transition %g must not be negative",
                             name, f->transition);
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
