/* Speed controller: the driver's throttle (issue 24) as a force element.
 *
 * It reads the chassis (body1): the speed of point1 along the heading h (body1's forward axis
 * projected on XY, made unit), s = v . h, and applies to the joint it acts on (a driven wheel's
 * spin joint: the torque between the wheel and its carrier, as an in-wheel motor) the torque
 *     T = sat(K (s_target - s) + T_ff),  sat(u) = u / sqrt(1 + (u / T_max)^2)
 * a proportional controller with a constant feed-forward (the rolling resistance one expects),
 * smoothly limited. A vehicle with several driven wheels has one element on each, sharing the
 * gains. The integral term of a PI controller would need a state of the element's own, which
 * the engine does not have: without it the speed settles below the target by the resisting
 * torque not fed forward divided by the sum of the gains (docs/design/engine.md § Drivers).
 * Its power T q' is the drive's work in the energy balance.
 */
#include <math.h>
#include <stddef.h>
#include <string.h>

#include "mbs_driver.h"
#include "mbs_settings.h" /* MBS_N_ */

static const MbsForceField fields[] = {
    {MBS_N_("forward"), "1", offsetof(MbsForce, axis), 3, MBS_FIELD_REQUIRED},
    {MBS_N_("speed"), "m/s", offsetof(MbsForce, target_speed), 1, MBS_FIELD_REQUIRED},
    {MBS_N_("gain"), "N·m·s/m", offsetof(MbsForce, gain), 1,
     MBS_FIELD_REQUIRED | MBS_FIELD_NONNEGATIVE},
    {MBS_N_("feed_forward"), "N·m", offsetof(MbsForce, feed_forward), 1, 0},
    {MBS_N_("max_torque"), "N·m", offsetof(MbsForce, max_torque), 1, MBS_FIELD_REQUIRED},
    {0},
};

#define SPEED_TORQUE(S, f, in, torque, speed_out)                                               \
    do {                                                                                        \
        S hl_ = MBS_SQRT(MBS_ADD(MBS_MUL((in)->axis[0], (in)->axis[0]),                         \
                                 MBS_MUL((in)->axis[1], (in)->axis[1])));                       \
        S s_ = MBS_DIV(MBS_ADD(MBS_MUL((in)->v[0], (in)->axis[0]),                              \
                               MBS_MUL((in)->v[1], (in)->axis[1])), hl_);                       \
        S u_ = MBS_ADDC(MBS_SCALE(-(f)->gain, MBS_SUBC(s_, (f)->target_speed)),                 \
                        (f)->feed_forward);                                                     \
        S ur_ = MBS_SCALE(1.0 / (f)->max_torque, u_);                                           \
        torque = MBS_DIV(u_, MBS_SQRT(MBS_ADDC(MBS_MUL(ur_, ur_), 1.0)));                       \
        speed_out = MBS_VALUE(s_);                                                              \
    } while (0)

MBS_FORCE_LAW(evaluate,
    double s;
    SPEED_TORQUE(MbsLawScalar, f, in, out->generalized, s);
    (void)s;
)

void mbs_speed_control_info(const MbsForce *f, const MbsForceInput *in, MbsSpeedControlInfo *info)
{
    SPEED_TORQUE(double, f, in, info->torque, info->speed);
    info->target_speed = f->target_speed;
}

/* The law's derivative, by hand: with s = v_xy . h, h = a_xy / |a_xy|, ds/dv = h and
 * ds/da = (v - s h) / |a_xy| (on x, y), dT = sat'(u) (-K) ds, sat'(u) = (1 + (u / T_max)^2)^(-3/2);
 * nothing else moves it. */
static void derivative(const MbsForce *f, const MbsForceInput *in, MbsForceDerivative *d)
{
    memset(d, 0, sizeof *d);
    const double *a = in->axis, *v = in->v;
    double hl = sqrt(a[0] * a[0] + a[1] * a[1]), h[2] = {a[0] / hl, a[1] / hl};
    double s = v[0] * h[0] + v[1] * h[1];
    double u = -f->gain * (s - f->target_speed) + f->feed_forward, ur = u / f->max_torque;
    double G = -f->gain / ((1.0 + ur * ur) * sqrt(1.0 + ur * ur));
    for (int i = 0; i < 2; ++i) {
        d->d_gen_v[i] = G * h[i];
        d->d_gen_a[i] = G * (v[i] - s * h[i]) / hl;
    }
}

static double power(const MbsForce *f, const MbsForceInput *in)
{
    MbsForceOutput out;
    evaluate(f, in, &out);
    return out.generalized * in->rate;
}

static int check(const MbsForce *f, const char *name, MbsError *err)
{
    if (!(f->max_torque > 0.0))
        return mbs_error_set(err, MBS_FATAL, "force '%s': 'max_torque' %g must be positive",
                             name, f->max_torque);
    return mbs_driver_check_heading(f, name, err);
}

const MbsForceClass mbs_force_speed_control = {
    .name = "speed_control",
    .description = MBS_N_("driver: drive torque holding a speed"),
    .type = MBS_FORCE_SPEED_CONTROL,
    .geometry = MBS_FORCE_CONTROL,
    .fields = fields,
    .state_dependent = 1,
    .drawing = MBS_FORCE_DRAW_NONE,
    .evaluate = evaluate,
    .evaluate_dual = evaluate_dual,
    .energy = mbs_force_no_energy,
    .power = power,
    .derivative = derivative,
    .check = check,
};
