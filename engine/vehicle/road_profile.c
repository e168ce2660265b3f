/* A height profile along x: the polyline through points (x_i, h_i), linear between them, held
 * at its end heights beyond them (the slope jumps at the points; its curvature is 0 between). */
#include "mbs_road.h"

#include "mbs_settings.h"

static const MbsRoadField fields[] = {{0}};

static void add(const MbsRoadFeature *f, double x, double y, MbsRoadPoint *p)
{
    (void)y;
    const double *P = f->points;
    int n = f->npoints;
    if (x <= P[0]) {
        p->height += P[1];
        return;
    }
    if (x >= P[2 * n - 2]) {
        p->height += P[2 * n - 1];
        return;
    }
    int lo = 0, hi = n - 1; /* bisection: P[2 lo] <= x < P[2 hi] */
    while (hi - lo > 1) {
        int mid = (lo + hi) / 2;
        if (P[2 * mid] <= x)
            lo = mid;
        else
            hi = mid;
    }
    double slope = (P[2 * hi + 1] - P[2 * lo + 1]) / (P[2 * hi] - P[2 * lo]);
    p->height += P[2 * lo + 1] + slope * (x - P[2 * lo]);
    p->gradient[0] += slope;
}

static void extent(const MbsRoadFeature *f, double *x0, double *x1)
{
    *x0 = f->points[0];
    *x1 = f->points[2 * f->npoints - 2];
}

const MbsRoadClass mbs_road_profile = {
    .name = "profile",
    .description = MBS_N_("height profile"),
    .fields = fields,
    .takes_points = 1,
    .add = add,
    .extent = extent,
};
