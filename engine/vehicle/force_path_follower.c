/* Path follower: the closed-loop steering of a driver (issue 24) as a force element.
 *
 * It reads the chassis (body1): the look-ahead point p = r + L h, L the preview distance ahead
 * of point1 r along the heading h (body1's forward axis projected on XY, made unit), and its
 * velocity p' = v + L h'. Its lateral error to the model's path (mbs_path.h) is
 * e = p_y - y_path(p_x), e' = p'_y - y_path'(p_x) p'_x, and the steering command is
 *     c = -left sat(K_lat e + K_rate e'),  sat(u) = u / sqrt(1 + (u / c_max)^2)
 * (PD on the preview error: Sharp, Casanova and Symonds 2000's single-preview driver, the
 * scheme of Chrono's SteeringControllerSR; the smooth limit keeps the law C1). The steering
 * joint is then pulled toward c by a stiff servo,
 *     Q = -k (q - c) - d q'
 * a stiff spring-damper on the joint whose rest position moves with the chassis: a continuous
 * function of the state, so every formulation runs it, its power Q q' is the steering's work in
 * the energy balance, and the ad and difference tangents differentiate it. There is no integral
 * term (it would need a state of the element's own, which the engine does not have): a steady
 * curve is followed with a small steady error instead of none (docs/design/engine.md § Drivers).
 */
#include <math.h>
#include <stddef.h>
#include <string.h>

#include "mbs_driver.h"
#include "mbs_linalg.h"
#include "mbs_path.h"
#include "mbs_settings.h" /* MBS_N_ */

static const MbsForceField fields[] = {
    {MBS_N_("forward"), "1", offsetof(MbsForce, axis), 3, MBS_FIELD_REQUIRED},
    {MBS_N_("preview"), "m", offsetof(MbsForce, preview), 1,
     MBS_FIELD_REQUIRED | MBS_FIELD_NONNEGATIVE},
    {MBS_N_("lateral_gain"), "1/m", offsetof(MbsForce, lateral_gain), 1,
     MBS_FIELD_REQUIRED | MBS_FIELD_NONNEGATIVE},
    {MBS_N_("rate_gain"), "s/m", offsetof(MbsForce, rate_gain), 1, MBS_FIELD_NONNEGATIVE},
    {MBS_N_("max_command"), "1", offsetof(MbsForce, max_command), 1, MBS_FIELD_REQUIRED},
    {MBS_N_("left"), "1", offsetof(MbsForce, left), 1, MBS_FIELD_REQUIRED},
    {MBS_N_("stiffness"), "N/m", offsetof(MbsForce, stiffness), 1,
     MBS_FIELD_REQUIRED | MBS_FIELD_NONNEGATIVE},
    {MBS_N_("damping"), "N·s/m", offsetof(MbsForce, damping), 1, MBS_FIELD_NONNEGATIVE},
    {0},
};

/* The command c and, when wanted, e, e' and the look-ahead point (values). */
#define FOLLOWER_COMMAND(S, f, in, command, e_out, ed_out, px_out, py_out)                      \
    do {                                                                                       \
        S ad_[3];                                                                              \
        MBS_V3_CROSS((in)->omega, (in)->axis, ad_); /* a' = w x a */                           \
        S hl_ = MBS_SQRT(MBS_ADD(MBS_MUL((in)->axis[0], (in)->axis[0]),                        \
                                 MBS_MUL((in)->axis[1], (in)->axis[1])));                      \
        S h0_ = MBS_DIV((in)->axis[0], hl_), h1_ = MBS_DIV((in)->axis[1], hl_);                \
        S hu_ = MBS_ADD(MBS_MUL(h0_, ad_[0]), MBS_MUL(h1_, ad_[1]));                           \
        S hd0_ = MBS_DIV(MBS_SUB(ad_[0], MBS_MUL(h0_, hu_)), hl_); /* h' = (u' - h h.u')/|u| */ \
        S hd1_ = MBS_DIV(MBS_SUB(ad_[1], MBS_MUL(h1_, hu_)), hl_);                             \
        S px_ = MBS_ADD((in)->r[0], MBS_SCALE((f)->preview, h0_));                             \
        S py_ = MBS_ADD((in)->r[1], MBS_SCALE((f)->preview, h1_));                             \
        S pxd_ = MBS_ADD((in)->v[0], MBS_SCALE((f)->preview, hd0_));                           \
        S pyd_ = MBS_ADD((in)->v[1], MBS_SCALE((f)->preview, hd1_));                           \
        double x0_ = MBS_VALUE(px_), y0_ = 0.0, s0_ = 0.0, c0_ = 0.0;                          \
        if ((in)->path)                                                                        \
            mbs_path_eval((in)->path, x0_, &y0_, &s0_, &c0_);                                  \
        /* the path's y and slope carried to first order in p_x (exact derivatives) */         \
        S dx_ = MBS_SUBC(px_, x0_);                                                            \
        S yp_ = MBS_ADD(MBS_LIKE(px_, y0_), MBS_SCALE(s0_, dx_));                              \
        S sp_ = MBS_ADD(MBS_LIKE(px_, s0_), MBS_SCALE(c0_, dx_));                              \
        S e_ = MBS_SUB(py_, yp_);                                                              \
        S ed_ = MBS_SUB(pyd_, MBS_MUL(sp_, pxd_));                                             \
        S u_ = MBS_ADD(MBS_SCALE((f)->lateral_gain, e_), MBS_SCALE((f)->rate_gain, ed_));      \
        S ur_ = MBS_SCALE(1.0 / (f)->max_command, u_);                                         \
        S sat_ = MBS_DIV(u_, MBS_SQRT(MBS_ADDC(MBS_MUL(ur_, ur_), 1.0)));                      \
        command = MBS_SCALE(-(f)->left, sat_);                                                 \
        e_out = MBS_VALUE(e_), ed_out = MBS_VALUE(ed_);                                        \
        px_out = MBS_VALUE(px_), py_out = MBS_VALUE(py_);                                      \
    } while (0)

MBS_FORCE_LAW(evaluate,
    MbsLawScalar c;
    double e, ed, px, py;
    FOLLOWER_COMMAND(MbsLawScalar, f, in, c, e, ed, px, py);
    (void)e, (void)ed, (void)px, (void)py;
    out->generalized = MBS_NEG(MBS_ADD(MBS_SCALE(f->stiffness, MBS_SUB(in->value, c)),
                                       MBS_SCALE(f->damping, in->rate)));
)

void mbs_path_follower_info(const MbsForce *f, const MbsForceInput *in, MbsPathFollowerInfo *info)
{
    double c;
    FOLLOWER_COMMAND(double, f, in, c, info->lateral_error, info->error_rate, info->preview_x,
                     info->preview_y);
    info->command = c;
    info->force = -(f->stiffness * (in->value - c) + f->damping * in->rate);
}

/* The law's derivative, by hand (forward mode over the 12 inputs of body1; the dual law
 * evaluate_dual gives the same, tests/engine/test_force.c). With G = dQ/du = k (-left) sat'(u),
 * sat'(u) = (1 + (u / c_max)^2)^(-3/2), and a direction (dr, dv, da, dw) of the inputs:
 *   a' = w x a:         d a' = dw x a + w x da
 *   h = a_xy / |a_xy|:  dh = (da - h (h . da)) / |a_xy|
 *   h' = (a'_xy - h (h . a')) / |a_xy|:
 *                       dh' = (d a' - dh (h . a') - h (dh . a' + h . d a') - h' (h . da)) / |a_xy|
 *   dp = dr + L dh,  dp' = dv + L dh'
 *   de = dp_y - y_path' dp_x,  de' = dp'_y - y_path'' p'_x dp_x - y_path' dp'_x
 *   dQ = G (K_lat de + K_rate de')
 * and dQ/dq = -k, dQ/dq' = -d. The path's y'' jumps at its knots (a cubic Hermite per
 * segment): there the law is C0 in p_x through e' and this is its one-sided derivative. */
static void derivative(const MbsForce *f, const MbsForceInput *in, MbsForceDerivative *d)
{
    memset(d, 0, sizeof *d);
    d->d_value = -f->stiffness;
    d->d_rate = -f->damping;
    const double *a = in->axis, *w = in->omega;
    double ad[3], hl = sqrt(a[0] * a[0] + a[1] * a[1]);
    mbs_v3_cross(w, a, ad);
    double h[2] = {a[0] / hl, a[1] / hl}, hu = h[0] * ad[0] + h[1] * ad[1];
    double hd[2] = {(ad[0] - h[0] * hu) / hl, (ad[1] - h[1] * hu) / hl};
    double L = f->preview, px = in->r[0] + L * h[0], py = in->r[1] + L * h[1];
    double pxd = in->v[0] + L * hd[0];
    double y0 = 0.0, s0 = 0.0, c0 = 0.0;
    if (in->path)
        mbs_path_eval(in->path, px, &y0, &s0, &c0);
    double e = py - y0, ed = in->v[1] + L * hd[1] - s0 * pxd;
    double u = f->lateral_gain * e + f->rate_gain * ed, ur = u / f->max_command;
    double G = -f->left * f->stiffness / ((1.0 + ur * ur) * sqrt(1.0 + ur * ur));
    double *out[4] = {d->d_gen_r, d->d_gen_v, d->d_gen_a, d->d_gen_w};
    for (int g = 0; g < 4; ++g)
        for (int j = 0; j < 3; ++j) {
            double dx[4][3] = {{0}}; /* dr, dv, da, dw */
            dx[g][j] = 1.0;
            double dad[3], t[3];
            mbs_v3_cross(dx[3], a, dad);
            mbs_v3_cross(w, dx[2], t);
            mbs_v3_add(dad, t, dad);
            double dhl = h[0] * dx[2][0] + h[1] * dx[2][1], dh[2], dhd[2];
            for (int i = 0; i < 2; ++i)
                dh[i] = (dx[2][i] - h[i] * dhl) / hl;
            double dhu = dh[0] * ad[0] + dh[1] * ad[1] + h[0] * dad[0] + h[1] * dad[1];
            for (int i = 0; i < 2; ++i)
                dhd[i] = (dad[i] - dh[i] * hu - h[i] * dhu - hd[i] * dhl) / hl;
            double dpx = dx[0][0] + L * dh[0], dpy = dx[0][1] + L * dh[1];
            double dpxd = dx[1][0] + L * dhd[0], dpyd = dx[1][1] + L * dhd[1];
            double de = dpy - s0 * dpx, ded = dpyd - c0 * pxd * dpx - s0 * dpxd;
            out[g][j] = G * (f->lateral_gain * de + f->rate_gain * ded);
        }
}

/* No potential: the servo's spring pulls toward a moving command, so all its work is power. */
static double power(const MbsForce *f, const MbsForceInput *in)
{
    MbsForceOutput out;
    evaluate(f, in, &out);
    return out.generalized * in->rate;
}

static int check(const MbsForce *f, const char *name, MbsError *err)
{
    if (f->left != 1.0 && f->left != -1.0)
        return mbs_error_set(err, MBS_FATAL, "force '%s': 'left' is 1 or -1 (the sign of the "
                             "steering joint's coordinate that steers left), not %g", name,
                             f->left);
    if (!(f->max_command > 0.0))
        return mbs_error_set(err, MBS_FATAL, "force '%s': 'max_command' %g must be positive",
                             name, f->max_command);
    return mbs_driver_check_heading(f, name, err);
}

const MbsForceClass mbs_force_path_follower = {
    .name = "path_follower",
    .description = MBS_N_("driver: steering along the path"),
    .type = MBS_FORCE_PATH_FOLLOWER,
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
