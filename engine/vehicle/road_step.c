/* A step across the road at x = position: the height rises by height (negative: a step down),
 * sharply, or over a ramp of some length with the smooth profile 3t^2 - 2t^3 (continuous
 * slope), t = (x - position) / length. */
#include "mbs_road.h"

#include "mbs_settings.h"

static const MbsRoadField fields[] = {
    {MBS_N_("height"), "m", 1},
    {MBS_N_("position"), "m", 1},
    {MBS_N_("length"), "m", 0},
    {0},
};

static void add(const MbsRoadFeature *f, double x, double y, MbsRoadPoint *p)
{
    (void)y;
    double H = f->v[0], x0 = f->v[1], L = f->v[2];
    if (x < x0)
        return;
    if (L <= 0.0 || x >= x0 + L) {
        p->height += H;
        return;
    }
    double t = (x - x0) / L;
    p->height += H * t * t * (3.0 - 2.0 * t);
    p->gradient[0] += H * 6.0 * t * (1.0 - t) / L;
    p->hessian[0] += H * (6.0 - 12.0 * t) / (L * L);
}

static int check(const MbsRoadFeature *f, MbsError *err)
{
    if (f->v[2] < 0.0)
        return mbs_error_set(err, MBS_FATAL, "road step: 'length' must not be negative");
    return 0;
}

static void extent(const MbsRoadFeature *f, double *x0, double *x1)
{
    *x0 = f->v[1];
    *x1 = f->v[1] + (f->v[2] > 0.0 ? f->v[2] : 0.0);
}

const MbsRoadClass mbs_road_step = {
    .name = "step",
    .description = MBS_N_("step"),
    .fields = fields,
    .add = add,
    .check = check,
    .extent = extent,
};
