/* Paths (engine/vehicle/mbs_path.h, issue 24): the interpolant through points (it passes
 * through them, its slope and curvature are the derivatives of its value: central differences;
 * monotone data give a monotone curve), the ISO 3888-1 and -2 lane changes against the
 * standards' numbers (lanes, cones, the path's centre lines), the slalom against its sine (its
 * gates, cones and crests), and bad input refused by name. */
#include <math.h>
#include <string.h>

#include "mbs_path.h"
#include "tap.h"

static void check_points(void)
{
    MbsError err = {0};
    const double xy[10] = {0.0, 0.0, 1.0, 0.5, 2.5, 0.6, 4.0, 2.0, 5.0, 2.0};
    MbsPath *p = mbs_path_new_points(xy, 5, &err);
    if (!tap_ok(p != NULL, "a path of 5 points: %s", err.message))
        return;
    double worst = 0.0, y, s, c;
    for (int i = 0; i < 5; ++i) {
        mbs_path_eval(p, xy[2 * i] + (i == 4 ? -1e-12 : 0.0), &y, &s, &c);
        worst = fmax(worst, fabs(y - xy[2 * i + 1]));
    }
    tap_ok(worst < 1e-9, "it passes through its points (worst %.1e m)", worst);
    /* slope and curvature against central differences inside the intervals; monotone */
    double ds = 0.0, dc = 0.0, h = 1e-5, prev = -1.0;
    int monotone = 1;
    for (double x = 0.013; x < 4.99; x += 0.0371) {
        double yp, ym, sp, sm, cp, cm;
        mbs_path_eval(p, x, &y, &s, &c);
        mbs_path_eval(p, x + h, &yp, &sp, &cp);
        mbs_path_eval(p, x - h, &ym, &sm, &cm);
        ds = fmax(ds, fabs((yp - ym) / (2 * h) - s));
        if (fabs(x - 1.0) > h && fabs(x - 2.5) > h && fabs(x - 4.0) > h)
            dc = fmax(dc, fabs((sp - sm) / (2 * h) - c));
        monotone &= y >= prev - 1e-12;
        prev = y;
    }
    tap_ok(ds < 1e-9 && dc < 5e-10, "slope and curvature are the derivatives of y (differences: "
           "%.1e, %.1e)", ds, dc);
    tap_ok(monotone, "non-decreasing points give a non-decreasing path (PCHIP)");
    mbs_path_eval(p, -3.0, &y, &s, &c);
    double y2, s2, c2;
    mbs_path_eval(p, 9.0, &y2, &s2, &c2);
    tap_ok(y == 0.0 && s == 0.0 && y2 == 2.0 && s2 == 0.0, "held beyond its ends");
    MbsPath *q = mbs_path_copy(p);
    mbs_path_eval(q, 3.3, &y2, &s2, &c2);
    mbs_path_eval(p, 3.3, &y, &s, &c);
    tap_ok(q && y == y2 && s == s2, "a copy is the same path");
    mbs_path_free(q);
    mbs_path_free(p);
    tap_ok(mbs_path_cones(p = mbs_path_new_points(xy, 2, &err), NULL, 0) == 0,
           "a path of points has no cones");
    mbs_path_free(p);
}

static void check_lane_change(MbsPathKind kind, const double L[5], const double W[3],
                              double offset, double width, double start)
{
    MbsError err = {0};
    MbsPath *p = mbs_path_new_lane_change(kind, width, start, NAN, &err);
    if (!tap_ok(p != NULL, "%s for w = %g m: %s", mbs_path_kind_name(kind), width, err.message))
        return;
    /* the standard's lanes: sections 1, 3, 5 */
    double x0[3] = {start, start + L[0] + L[1], start + L[0] + L[1] + L[2] + L[3]};
    double right = -W[0] / 2, ymin[3] = {right, right + offset, right};
    MbsPathLane lanes[MBS_PATH_LANES];
    int n = mbs_path_lanes(p, lanes, MBS_PATH_LANES), same = n == 3;
    for (int k = 0; same && k < 3; ++k)
        same = fabs(lanes[k].x0 - x0[k]) < 1e-12 && fabs(lanes[k].x1 - x0[k] - L[2 * k]) < 1e-12 &&
               fabs(lanes[k].y_min - ymin[k]) < 1e-12 &&
               fabs(lanes[k].y_max - ymin[k] - W[k]) < 1e-12;
    tap_ok(same, "%s: three lanes of the standard's lengths and widths", mbs_path_kind_name(kind));
    double cones[2 * 18];
    int nc = mbs_path_cones(p, cones, 18), on = nc == 18;
    for (int i = 0; on && i < nc; ++i) {
        const MbsPathLane *l = &lanes[i / 6];
        on = cones[2 * i] >= l->x0 && cones[2 * i] <= l->x1 &&
             (cones[2 * i + 1] == l->y_min || cones[2 * i + 1] == l->y_max);
    }
    tap_ok(on, "%s: 18 cones on the lanes' boundaries", mbs_path_kind_name(kind));
    /* the path runs along each lane's centre line, between the lanes by half-cosines */
    double worst = 0.0, y, s, c;
    for (int k = 0; k < 3; ++k)
        for (double x = lanes[k].x0; x <= lanes[k].x1; x += 0.5) {
            mbs_path_eval(p, x, &y, &s, &c);
            worst = fmax(worst, fabs(y - (lanes[k].y_min + lanes[k].y_max) / 2));
        }
    double xm = lanes[0].x1 + L[1] / 2, ym = ((lanes[0].y_min + lanes[0].y_max) / 2 +
                                              (lanes[1].y_min + lanes[1].y_max) / 2) / 2;
    mbs_path_eval(p, xm, &y, &s, &c);
    tap_ok(worst < 1e-12 && fabs(y - ym) < 1e-9,
           "%s: the path follows the lanes' centres (worst %.1e m) and crosses midway at the "
           "transition's middle", mbs_path_kind_name(kind), worst);
    mbs_path_free(p);
}

/* The slalom (paper 003's truck): gates d apart from x0, centred at +a, -a, +a, ..., w + 1 wide;
 * the path is a sin(pi (x - x0 + d/2) / d) between x0 - d/2 and x0 + (n - 1/2) d, 0 outside. */
static void check_slalom(double w, double x0, double d, double a, int n)
{
    MbsError err = {0};
    MbsPath *p = mbs_path_new_slalom(w, x0, d, a, n, &err);
    if (!tap_ok(p != NULL, "a slalom of %d gates %g m apart: %s", n, d, err.message))
        return;
    MbsPathLane gates[MBS_PATH_LANES];
    int ng = mbs_path_lanes(p, gates, MBS_PATH_LANES), same = ng == n;
    for (int k = 0; same && k < n; ++k) {
        double yc = k % 2 ? -a : a;
        same = fabs(gates[k].x0 - (x0 + k * d)) < 1e-12 && gates[k].x1 == gates[k].x0 &&
               fabs(gates[k].y_min - (yc - (w + 1) / 2)) < 1e-12 &&
               fabs(gates[k].y_max - (yc + (w + 1) / 2)) < 1e-12;
    }
    tap_ok(same, "slalom: %d gates at x0 + k d, centred at (-1)^k a, w + 1 wide", n);
    double cones[2 * 64];
    int nc = mbs_path_cones(p, cones, 64), on = nc == 2 * n;
    for (int i = 0; on && i < nc; ++i)
        on = cones[2 * i] == gates[i / 2].x0 &&
             cones[2 * i + 1] == (i % 2 ? gates[i / 2].y_max : gates[i / 2].y_min);
    tap_ok(on, "slalom: %d cones, two per gate at its ends", nc);
    double worst = 0.0, crest = 0.0, y, s, c;
    for (double x = x0 - d / 2 - 3.0; x < x0 + (n + 0.5) * d; x += 0.0917) {
        double u = (x - x0 + d / 2) / d, ref = u > 0 && u < n ? a * sin(M_PI * u) : 0.0;
        mbs_path_eval(p, x, &y, &s, &c);
        worst = fmax(worst, fabs(y - ref));
    }
    for (int k = 0; k < n; ++k) {
        mbs_path_eval(p, x0 + k * d, &y, &s, &c);
        crest = fmax(crest, fabs(y - (k % 2 ? -a : a)) + fabs(s));
    }
    /* PCHIP through samples at most 0.5 m apart: measured 1.1e-4 m (d = 25 m, a = 0.75 m) and
     * 3.4e-4 m (d = 17.3 m, a = 1.2 m) */
    tap_ok(worst < 4e-3 && crest < 1e-12,
           "slalom: the path is the sine within %.1e m (bound 4e-3 m) and passes each gate's "
           "centre level (%.1e)", worst, crest);
    mbs_path_free(p);
}

int main(void)
{
    check_points();
    double w = 2.1375;
    const double L1[5] = {15, 30, 25, 25, 15}, W1[3] = {1.1 * w + 0.25, 1.2 * w + 0.25,
                                                       1.3 * w + 0.25};
    const double L2[5] = {12, 13.5, 11, 12.5, 12}, W2[3] = {1.1 * w + 0.25, w + 1, 3};
    check_lane_change(MBS_PATH_ISO3888_1, L1, W1, 3.5, w, 40.0);
    check_lane_change(MBS_PATH_ISO3888_2, L2, W2, W2[0] + 1.0, w, -5.0);
    check_slalom(2.55, 15.0, 25.0, 0.75, 3);
    check_slalom(1.8, -3.0, 17.3, 1.2, MBS_PATH_LANES);
    MbsError err = {0};
    tap_ok(!mbs_path_new_slalom(2.0, 0.0, 20.0, 1.0, MBS_PATH_LANES + 1, &err) &&
               strstr(err.message, "gates"),
           "a slalom of too many gates is refused: %s", err.message);
    tap_ok(!mbs_path_new_slalom(2.0, 0.0, -1.0, 1.0, 3, &err) && strstr(err.message, "spacing"),
           "a negative spacing is refused: %s", err.message);
    const double back[4] = {0, 0, -1, 0};
    tap_ok(!mbs_path_new_points(back, 2, &err) && strstr(err.message, "point 1"),
           "a path turning back in x is refused: %s", err.message);
    tap_ok(!mbs_path_new_points(back, 1, &err) && strstr(err.message, "two points"),
           "a path of one point is refused: %s", err.message);
    tap_ok(!mbs_path_new_lane_change(MBS_PATH_ISO3888_1, 2.0, 0.0, 1.0, &err) &&
               strstr(err.message, "overlap"),
           "lanes that overlap are refused: %s", err.message);
    tap_ok(!mbs_path_new_lane_change(MBS_PATH_ISO3888_2, NAN, 0.0, NAN, &err) &&
               strstr(err.message, "vehicle_width"),
           "a width that is not a number is refused: %s", err.message);
    return tap_done();
}
