/* The drivers' laws (engine/vehicle/force_path_follower.c, force_speed_control.c; issue 24):
 * their analytical derivative (d Q/d(q, q') and d Q/d(r, v, a, w) of the chassis they read)
 * against central differences of the law and against the dual law seeded along the same 14
 * inputs, on the ISO 3888-1 path (in its lane change's curve, on a straight, with the command
 * saturated), with a heading turned and yawing; the speed controller also with its integral
 * term (at a time t, along the path and, without one, along the drawn heading). The path's
 * station (the integral's distance) against an independent quadrature and a closed form.
 * Whole runs against closed forms: tests/cli/test_driver.py. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "mbs_force.h"
#include "mbs_path.h"
#include "tap.h"

enum { NIN = 14 }; /* q, q', r (3), v (3), a (3), w (3) */

static double *input_slot(MbsForceInput *in, int i)
{
    return i == 0 ? &in->value : i == 1 ? &in->rate : i < 5 ? &in->r[i - 2] :
           i < 8 ? &in->v[i - 5] : i < 11 ? &in->axis[i - 8] : &in->omega[i - 11];
}

static MbsDual *input_slot_dual(MbsForceInputDual *in, int i)
{
    return i == 0 ? &in->value : i == 1 ? &in->rate : i < 5 ? &in->r[i - 2] :
           i < 8 ? &in->v[i - 5] : i < 11 ? &in->axis[i - 8] : &in->omega[i - 11];
}

static double analytical_entry(const MbsForceDerivative *d, int i)
{
    return i == 0 ? d->d_value : i == 1 ? d->d_rate : i < 5 ? d->d_gen_r[i - 2] :
           i < 8 ? d->d_gen_v[i - 5] : i < 11 ? d->d_gen_a[i - 8] : d->d_gen_w[i - 11];
}

/* The worst difference of the analytical derivative and of the dual law from central
 * differences (h relative to each input's size), and the largest entry. */
static void compare(const MbsForce *f, const MbsForceInput *in, double *worst_an,
                    double *worst_dual, double *an_dual, double *largest)
{
    const MbsForceClass *c = mbs_force_class(f->type);
    MbsForceDerivative d;
    MbsForceInputDual ind = {.path = in->path, .time = in->time};
    MbsForceOutputDual outd;
    MbsForceOutput out;
    for (int i = 0; i < NIN; ++i) {
        MbsForceInput tmp = *in;
        *input_slot_dual(&ind, i) = mbs_dual_constant(*input_slot(&tmp, i));
        input_slot_dual(&ind, i)->d[i] = 1.0;
    }
    c->evaluate(f, in, &out);
    c->derivative(f, in, &d);
    c->evaluate_dual(f, &ind, &outd);
    *worst_an = *worst_dual = *largest = *an_dual = 0.0;
    *worst_dual = fabs(outd.generalized.v - out.generalized);
    for (int i = 0; i < NIN; ++i) {
        MbsForceInput p = *in, m = *in;
        double h = 1e-6 * fmax(1.0, fabs(*input_slot(&p, i)));
        MbsForceOutput op, om;
        *input_slot(&p, i) += h;
        *input_slot(&m, i) -= h;
        c->evaluate(f, &p, &op);
        c->evaluate(f, &m, &om);
        double fd = (op.generalized - om.generalized) / (2 * h);
        *largest = fmax(*largest, fabs(fd));
        *worst_an = fmax(*worst_an, fabs(analytical_entry(&d, i) - fd));
        *worst_dual = fmax(*worst_dual, fabs(outd.generalized.d[i] - fd));
        *an_dual = fmax(*an_dual, fabs(analytical_entry(&d, i) - outd.generalized.d[i]) /
                                      fmax(1e-300, fabs(outd.generalized.d[i])));
    }
}

/* Composite Simpson (2 m panels of [a, b]) on sqrt(1 + y'^2) from mbs_path_eval over [a, b]. */
static double simpson_length(const MbsPath *path, double a, double b, int m)
{
    double h = (b - a) / (2 * m), sum = 0.0;
    for (int i = 0; i <= 2 * m; ++i) {
        double y, s, c;
        mbs_path_eval(path, a + i * h, &y, &s, &c);
        sum += (i == 0 || i == 2 * m ? 1.0 : i % 2 ? 4.0 : 2.0) * sqrt(1.0 + s * s);
    }
    return sum * h / 3.0;
}

/* The station against independent references: on the lane change, composite Simpson on
 * sqrt(1 + y'^2) from mbs_path_eval (400 panels per PCHIP segment: y'' jumps at the points)
 * and its rate against central differences; on a straight line of slope m,
 * sqrt(1 + m^2) (x - x0). */
static void check_station(const MbsPath *path)
{
    double worst = 0.0, worst_rate = 0.0, rate, r0, r1;
    for (double x = path->x[0] + 0.37; x < path->x[path->n - 1]; x += 7.9) {
        double sum = 0.0;
        for (int i = 0; i + 1 < path->n && path->x[i] < x; ++i)
            sum += simpson_length(path, path->x[i], fmin(x, path->x[i + 1]), 200);
        worst = fmax(worst, fabs(mbs_path_station(path, x, &rate) - sum));
        double d = 1e-5, fd = (mbs_path_station(path, x + d, &r1) -
                               mbs_path_station(path, x - d, &r0)) / (2 * d);
        worst_rate = fmax(worst_rate, fabs(rate - fd));
    }
    /* measured: 1.4e-14 m and 6.2e-10 (the differences' round-off) */
    tap_below(worst, 1e-12, "ISO 3888-1 path: station = Simpson's arc length (worst %.1e m)",
              worst);
    tap_below(worst_rate, 1e-8, "ISO 3888-1 path: dS/dx = sqrt(1 + y'^2) = central differences "
              "(worst %.1e)", worst_rate);
    MbsError err = {0};
    const double line[] = {2.0, 1.0, 12.0, 4.0}; /* slope 0.3 */
    MbsPath *p = mbs_path_new_points(line, 2, &err);
    double S = mbs_path_station(p, 9.0, &rate), S_end = mbs_path_station(p, 15.0, &r1);
    double S_before = mbs_path_station(p, -1.0, &r0);
    tap_below(fabs(S - sqrt(1.09) * 7.0) + fabs(rate - sqrt(1.09)), 1e-14,
              "a straight path of slope 0.3: station sqrt(1 + m^2) (x - x0) = %.15g, rate %.15g",
              S, rate);
    tap_below(fabs(S_end - (sqrt(1.09) * 10.0 + 3.0)) + fabs(S_before + 3.0) +
                  fabs(r0 - 1.0) + fabs(r1 - 1.0), 1e-14,
              "beyond its ends the station goes on along the held y (%.15g, %.15g)", S_end,
              S_before);
    mbs_path_free(p);
}

int main(void)
{
    MbsError err = {0};
    MbsPath *path = mbs_path_new_lane_change(MBS_PATH_ISO3888_1, 2.2, 10.0, NAN, &err);
    tap_ok(path != NULL, "ISO 3888-1 path: %s", path ? "made" : err.message);
    if (!path)
        return tap_done();
    const MbsForce follower = {.type = MBS_FORCE_PATH_FOLLOWER, .preview = 8.0,
                               .lateral_gain = 0.08, .rate_gain = 0.02, .max_command = 0.6,
                               .left = -1.0, .stiffness = 3e4, .damping = 300.0};
    const MbsForce speed = {.type = MBS_FORCE_SPEED_CONTROL, .target_speed = 16.7, .gain = 400,
                            .feed_forward = 120.0, .max_torque = 900.0};
    /* PI: drawn at x = -20 (before the path's start, where its station is a straight line's),
     * at x = 12 in the lane (the station's integrand varies) */
    const MbsForce speed_pi = {.type = MBS_FORCE_SPEED_CONTROL, .target_speed = 16.7,
                               .gain = 400, .integral_gain = 150.0, .feed_forward = 120.0,
                               .max_torque = 900.0, .point1 = {-20.0, 0.1, 0.8}};
    const MbsForce speed_pi_lane = {.type = MBS_FORCE_SPEED_CONTROL, .target_speed = 16.7,
                                    .gain = 400, .integral_gain = 150.0, .feed_forward = 120.0,
                                    .max_torque = 900.0, .point1 = {42.0, 1.0, 0.8},
                                    .axis = {0.96, 0.28, 0.0}};
    static const struct {
        const char *where;
        MbsForceInput in;
    } cases[] = {
        /* x + preview in the first curve of the lane change, heading turned 0.05 rad, yawing */
        {"in the lane change's curve",
         {.value = 0.02, .rate = -0.1, .r = {25.0, 0.3, 0.8}, .v = {16.5, 0.9, 0.05},
          .axis = {0.9975, 0.0500, 0.02}, .omega = {0.01, -0.02, 0.15}}},
        /* on the straight before it */
        {"on the straight",
         {.value = -0.01, .rate = 0.05, .r = {-5.0, -0.2, 0.8}, .v = {14.0, -0.3, 0.0},
          .axis = {0.999, -0.03, 0.0}, .omega = {0.0, 0.0, -0.05}}},
        /* far off the path: the command and the torque near their limits */
        {"saturated",
         {.value = 0.3, .rate = 0.4, .r = {40.0, 6.0, 0.8}, .v = {5.0, 2.0, 0.1},
          .axis = {0.8, 0.6, -0.05}, .omega = {0.02, 0.01, 0.4}}},
    };
    const MbsForce *laws[] = {&follower, &speed, &speed_pi, &speed_pi_lane, &speed_pi_lane};
    const char *const variant[] = {"", "", " PI", " PI drawn in the lane",
                                   " PI without a path"};
    for (int l = 0; l < 5; ++l)
        for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
            MbsForceInput in = cases[k].in;
            in.path = l == 4 ? NULL : path;
            in.time = 1.3 + 0.9 * (double)k; /* E of a few m: the integral term matters */
            double an, du, ad, largest;
            compare(laws[l], &in, &an, &du, &ad, &largest);
            const char *name = mbs_force_class(laws[l]->type)->name;
            /* central differences with h = 1e-6: truncation and round-off near 1e-6 of the
             * largest entry (measured below 4e-8 of it) */
            tap_below(an, 1e-6 * largest, "%s%s %s: analytical dQ/d(q, q', r, v, a, w) = central "
                      "differences (error %.1e, largest entry %.4g)", name, variant[l],
                      cases[k].where, an, largest);
            tap_below(du, 1e-6 * largest, "%s%s %s: the dual law = the law and its central "
                      "differences (error %.1e)", name, variant[l], cases[k].where, du);
            /* the same derivative by hand and by dual numbers: equal to round-off, entry by
             * entry (measured below 1e-13) */
            tap_below(ad, 1e-11, "%s%s %s: analytical = dual law, every entry (worst relative "
                      "difference %.1e)", name, variant[l], cases[k].where, ad);
        }
    check_station(path);
    mbs_path_free(path);
    return tap_done();
}
