/* Speed controller: the driver's throttle (issue 24) as a force element.
 *
 * It reads the chassis (body1): the speed of point1 along the heading h (body1's forward axis
 * projected on XY, made unit), s = v . h, and applies to the joint it acts on (a driven wheel's
 * spin joint: the torque between the wheel and its carrier, as an in-wheel motor) the torque
 *     T = sat(K (s* - s) + K_i E + T_ff),  sat(u) = u / sqrt(1 + (u / T_max)^2)
 * a PI controller with a constant feed-forward, smoothly limited. A vehicle with several driven
 * wheels has one element on each, sharing the gains. Its power T q' is the drive's work in the
 * energy balance.
 *
 * The integral is stateless (docs/design/engine.md § Drivers): E = int_0^t (s* - S') dt
 *     = s* t - (S(r) - S(r_0)),
 * S the station of point1 along the vehicle's path, r_0 point1 as drawn (where runs start, at
 * t = 0): with the model's path the arc length of the curve up to point1's x
 * (mbs_path_station), without one the distance along the drawn heading h_0 from the drawn
 * point, S = (r - r_0)_xy . h_0. So the integral integrates the speed along the path, S', where
 * the proportional term reads the speed along the heading, s; they agree on a straight run
 * (the steady state the integral makes exact). The time t is the kinematics' clock
 * (MbsForceInput.time). No anti-windup: a stateless integral cannot stop integrating; the
 * smooth limit bounds the torque, not E, so after a long saturation the vehicle overshoots s*
 * until the distance lost is made up. integral_gain 0 (the default) is the P controller with
 * feed-forward exactly (E is not even computed).
 */
#include <math.h>
#include <stddef.h>
#include <string.h>

#include "mbs_driver.h"
#include "mbs_path.h"
#include "mbs_settings.h" /* MBS_N_ */

static const MbsForceField fields[] = {
    {MBS_N_("forward"), "1", offsetof(MbsForce, axis), 3, MBS_FIELD_REQUIRED},
    {MBS_N_("speed"), "m/s", offsetof(MbsForce, target_speed), 1, MBS_FIELD_REQUIRED},
    {MBS_N_("gain"), "N·m·s/m", offsetof(MbsForce, gain), 1,
     MBS_FIELD_REQUIRED | MBS_FIELD_NONNEGATIVE},
    {MBS_N_("integral_gain"), "N·m/m", offsetof(MbsForce, integral_gain), 1,
     MBS_FIELD_NONNEGATIVE},
    {MBS_N_("feed_forward"), "N·m", offsetof(MbsForce, feed_forward), 1, 0},
    {MBS_N_("max_torque"), "N·m", offsetof(MbsForce, max_torque), 1, MBS_FIELD_REQUIRED},
    {0},
};

/* The station of point1 at its drawn position (the run's start). */
static double start_station(const MbsForce *f, const MbsPath *path)
{
    double rate;
    return path ? mbs_path_station(path, f->point1[0], &rate) : 0.0;
}

/* The station S of the point at x, y and dS/dx, dS/dy (the drawn heading without a path). */
static double station(const MbsForce *f, const MbsPath *path, double x, double y, double dS[2])
{
    if (path) {
        dS[1] = 0.0;
        return mbs_path_station(path, x, &dS[0]);
    }
    double hl = sqrt(f->axis[0] * f->axis[0] + f->axis[1] * f->axis[1]);
    dS[0] = f->axis[0] / hl, dS[1] = f->axis[1] / hl;
    return (x - f->point1[0]) * dS[0] + (y - f->point1[1]) * dS[1];
}

/* u = K (s* - s) + K_i E + T_ff, s and E (values) out; the station carried to first order in
 * r (its exact derivative). */
#define SPEED_COMMAND(S, f, in, u, speed_out, integral_out)                                     \
    do {                                                                                        \
        S hl_ = MBS_SQRT(MBS_ADD(MBS_MUL((in)->axis[0], (in)->axis[0]),                         \
                                 MBS_MUL((in)->axis[1], (in)->axis[1])));                       \
        S s_ = MBS_DIV(MBS_ADD(MBS_MUL((in)->v[0], (in)->axis[0]),                              \
                               MBS_MUL((in)->v[1], (in)->axis[1])), hl_);                       \
        S p_ = MBS_SCALE(-(f)->gain, MBS_SUBC(s_, (f)->target_speed));                          \
        integral_out = 0.0;                                                                     \
        if ((f)->integral_gain != 0.0) {                                                        \
            double x0_ = MBS_VALUE((in)->r[0]), y0_ = MBS_VALUE((in)->r[1]), dS_[2];            \
            double S0_ = station(f, (in)->path, x0_, y0_, dS_);                                 \
            S st_ = MBS_ADD(MBS_SCALE(dS_[0], MBS_SUBC((in)->r[0], x0_)),                       \
                            MBS_SCALE(dS_[1], MBS_SUBC((in)->r[1], y0_)));                      \
            /* E = s* t + S(r_0) - S(r) */                                                      \
            double c_ = (f)->target_speed * (in)->time + start_station(f, (in)->path) - S0_;    \
            S E_ = MBS_CSUB(c_, st_);                                                           \
            p_ = MBS_ADD(p_, MBS_SCALE((f)->integral_gain, E_));                                \
            integral_out = MBS_VALUE(E_);                                                       \
        }                                                                                       \
        u = MBS_ADDC(p_, (f)->feed_forward);                                                    \
        speed_out = MBS_VALUE(s_);                                                              \
    } while (0)

#define SPEED_TORQUE(S, f, u, torque)                                                           \
    do {                                                                                        \
        S ur_ = MBS_SCALE(1.0 / (f)->max_torque, u);                                            \
        torque = MBS_DIV(u, MBS_SQRT(MBS_ADDC(MBS_MUL(ur_, ur_), 1.0)));                        \
    } while (0)

MBS_FORCE_LAW(evaluate,
    MbsLawScalar u;
    double s, E;
    SPEED_COMMAND(MbsLawScalar, f, in, u, s, E);
    SPEED_TORQUE(MbsLawScalar, f, u, out->generalized);
    (void)s, (void)E;
)

void mbs_speed_control_info(const MbsForce *f, const MbsForceInput *in, MbsSpeedControlInfo *info)
{
    double u;
    SPEED_COMMAND(double, f, in, u, info->speed, info->integral);
    SPEED_TORQUE(double, f, u, info->torque);
    info->target_speed = f->target_speed;
}

/* The law's derivative, by hand: with s = v_xy . h, h = a_xy / |a_xy|, ds/dv = h and
 * ds/da = (v - s h) / |a_xy| (on x, y); dE/dr = -dS/dr (dS/dx = sqrt(1 + y'(x)^2) along a
 * path, h_0 without one); dT = sat'(u) (-K ds + K_i dE),
 * sat'(u) = (1 + (u / T_max)^2)^(-3/2); nothing else moves it. */
static void derivative(const MbsForce *f, const MbsForceInput *in, MbsForceDerivative *d)
{
    memset(d, 0, sizeof *d);
    const double *a = in->axis, *v = in->v;
    double hl = sqrt(a[0] * a[0] + a[1] * a[1]), h[2] = {a[0] / hl, a[1] / hl};
    double u, s, E, dS[2] = {0.0, 0.0};
    SPEED_COMMAND(double, f, in, u, s, E);
    (void)E;
    if (f->integral_gain != 0.0)
        station(f, in->path, in->r[0], in->r[1], dS);
    double ur = u / f->max_torque, sat = 1.0 / ((1.0 + ur * ur) * sqrt(1.0 + ur * ur));
    double G = -f->gain * sat;
    for (int i = 0; i < 2; ++i) {
        d->d_gen_v[i] = G * h[i];
        d->d_gen_a[i] = G * (v[i] - s * h[i]) / hl;
        d->d_gen_r[i] = -f->integral_gain * sat * dS[i];
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
