/* A half-cylinder bump across the road (paper 002 §5.2's obstacle): its axis along y at
 * x = position, on the road plane, of some diameter: h = sqrt(R^2 - s^2), s = x - position,
 * for |s| < R. */
#include "mbs_road.h"

#include <math.h>

#include "mbs_settings.h"

static const MbsRoadField fields[] = {
    {MBS_N_("diameter"), "m", 1},
    {MBS_N_("position"), "m", 1},
    {0},
};

static void add(const MbsRoadFeature *f, double x, double y, MbsRoadPoint *p)
{
    (void)y;
    double R = 0.5 * f->v[0], s = x - f->v[1];
    if (!(fabs(s) < R))
        return;
    double h = sqrt(R * R - s * s);
    p->height += h;
    if (h > 0.0) {
        p->gradient[0] += -s / h;
        p->hessian[0] += -R * R / (h * h * h);
    }
}

static int check(const MbsRoadFeature *f, MbsError *err)
{
    if (!(f->v[0] > 0.0))
        return mbs_error_set(err, MBS_FATAL, "road bump: 'diameter' must be positive");
    return 0;
}

static void extent(const MbsRoadFeature *f, double *x0, double *x1)
{
    *x0 = f->v[1] - 0.5 * f->v[0];
    *x1 = f->v[1] + 0.5 * f->v[0];
}

const MbsRoadClass mbs_road_bump = {
    .name = "bump",
    .description = MBS_N_("half-cylinder bump"),
    .fields = fields,
    .add = add,
    .check = check,
    .extent = extent,
};
