/* Vehicles in the scene: tyres as tyres, the chassis as a box, the road as a checkered surface
 * and lane-change cones. See esl-scene.h. Sizes of a vehicle are in metres (the road's units). */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "esl-scene-private.h"
#include "mbs_force.h"
#include "mbs_road.h"
#include "mbs_wheel.h"

#define TYRE_WIDTH 0.5f   /* of the radius: a tyre's section width when its law gives none */
#define RIM_RADIUS 0.6f   /* of the radius */
#define SPOKES 5
#define TREAD_BARS 18
#define ROAD_AHEAD 2.5f   /* the road drawn reaches this many model sizes ahead and behind */
#define ROAD_ASIDE 0.6f   /* and this many beside the outermost wheels */
#define FEATURE_SAMPLES 48
#define CONE_HEIGHT 0.5f  /* a traffic cone, metres */
#define CONE_BASE 0.16f
#define CONE_TOP 0.025f

static const float rim_color[4] = {0.74f, 0.75f, 0.78f, 1.0f};
static const float spoke_color[4] = {0.30f, 0.31f, 0.35f, 1.0f};
static const float tread_color[4] = {0.27f, 0.27f, 0.29f, 1.0f};
static const float road_colors[2][4] = {{0.62f, 0.63f, 0.65f, 1.0f}, {0.49f, 0.50f, 0.53f, 1.0f}};
static const float feature_colors[2][4] = {{0.90f, 0.66f, 0.25f, 1.0f},
                                           {0.78f, 0.53f, 0.16f, 1.0f}};
static const float cone_color[4] = {0.96f, 0.42f, 0.08f, 1.0f};
static const float band_color[4] = {0.97f, 0.97f, 0.97f, 1.0f};

int esl_scene_is_vehicle(const MbsModel *m)
{
    for (int i = 0; i < m->nforces; i++)
        if (mbs_force_class(m->forces[i].type)->drawing == MBS_FORCE_DRAW_TYRE)
            return 1;
    return 0;
}

int esl_scene_carries_tyre(const MbsModel *m, int b)
{
    for (int i = 0; i < m->nforces; i++)
        if (mbs_force_class(m->forces[i].type)->drawing == MBS_FORCE_DRAW_TYRE &&
            m->forces[i].body1 == b)
            return 1;
    return 0;
}

int esl_scene_vehicle_body(const MbsModel *m)
{
    int best = -1;
    for (int b = 0; b < m->nbodies; b++)
        if (!m->bodies[b].is_ground && (best < 0 || m->bodies[b].mass > m->bodies[best].mass))
            best = b;
    return best;
}

int esl_scene_is_frame(const MbsModel *m, int b, int vehicle_body)
{
    return vehicle_body >= 0 &&
           (b == vehicle_body || (m->bodies[b].mass >= 0.1 * m->bodies[vehicle_body].mass &&
                                  !esl_scene_carries_tyre(m, b)));
}

void esl_scene_body_center(const MbsModel *m, const double *poses, int b, float out[3])
{
    esl_scene_transform(esl_scene_body_pose(poses, b), m->bodies[b].com, out);
}

/* ---- tyres -------------------------------------------------------------------------------- */

/* Centre, spin axis and the two radial directions (e1, e2: they turn with the body) of tyre f,
 * and its radius. Without an axis (a `tyre` element) the spin axis is the body's y: the road
 * runs along x. */
static double tyre_frame(const MbsForce *f, const double *pose, float c[3], float axis[3],
                         float e1[3], float e2[3])
{
    double a[3] = {f->axis[0], f->axis[1], f->axis[2]};
    double n = sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
    if (!(n > 0)) {
        a[0] = a[2] = 0.0;
        a[1] = n = 1.0;
    }
    for (int k = 0; k < 3; k++)
        a[k] /= n;
    /* a radial direction of the drawn configuration: z (or x) without its part along a */
    double h[3] = {0, 0, 1};
    if (fabs(a[2]) > 0.9)
        h[0] = 1, h[2] = 0;
    double ha = h[0] * a[0] + h[1] * a[1] + h[2] * a[2], r1[3], r2[3];
    for (int k = 0; k < 3; k++)
        r1[k] = h[k] - ha * a[k];
    double n1 = sqrt(r1[0] * r1[0] + r1[1] * r1[1] + r1[2] * r1[2]);
    for (int k = 0; k < 3; k++)
        r1[k] /= n1;
    r2[0] = a[1] * r1[2] - a[2] * r1[1];
    r2[1] = a[2] * r1[0] - a[0] * r1[2];
    r2[2] = a[0] * r1[1] - a[1] * r1[0];
    esl_scene_transform(pose, f->point1, c);
    esl_scene_rotate(pose, a, axis);
    esl_scene_rotate(pose, r1, e1);
    esl_scene_rotate(pose, r2, e2);
    return mbs_force_wheel_radius(f);
}

/* The section width to draw: the tyre's (a .tir file's WIDTH), else a fraction of its radius. */
static float tyre_width(const MbsForce *f, double R)
{
    double w = mbs_force_wheel_width(f);
    return (float)(w > 0.0 ? w : TYRE_WIDTH * R);
}

int esl_scene_add_tyre(EslScene *s, const MbsModel *m, int i, const double *poses,
                       const float color[4])
{
    const MbsForce *f = &m->forces[i];
    float c[3], w[3], e1[3], e2[3];
    float R = (float)tyre_frame(f, esl_scene_body_pose(poses, f->body1), c, w, e1, e2);
    if (!(R > 0))
        return 0;
    float W = tyre_width(f, R);
    if (!esl_scene_add_axis_cylinder(s, ESL_SOURCE_FORCE, i, color, c, w, W, R) ||
        !esl_scene_add_axis_cylinder(s, ESL_SOURCE_FORCE, i, rim_color, c, w, 1.04f * W,
                                     RIM_RADIUS * R))
        return -1;
    /* spokes on both faces of the rim and bars across the tread: they show the rotation */
    for (int side = -1; side <= 1; side += 2)
        for (int k = 0; k < SPOKES; k++) {
            float t = 2.0f * 3.14159265f * (float)k / SPOKES, ct = cosf(t), st = sinf(t);
            EslDrawable *d = esl_scene_push(s, ESL_DRAW_CAPSULE, ESL_SOURCE_FORCE, i, spoke_color);
            if (!d)
                return -1;
            for (int j = 0; j < 3; j++) {
                float face = c[j] + (float)side * 0.53f * W * w[j], radial = ct * e1[j] + st * e2[j];
                d->a[j] = face + 0.1f * R * radial;
                d->b[j] = face + 0.5f * R * radial;
            }
            d->radius = 0.045f * R;
        }
    for (int k = 0; k < TREAD_BARS; k++) {
        float t = 2.0f * 3.14159265f * (float)k / TREAD_BARS, ct = cosf(t), st = sinf(t), at[3];
        for (int j = 0; j < 3; j++)
            at[j] = c[j] + 0.985f * R * (ct * e1[j] + st * e2[j]);
        if (!esl_scene_add_axis_cylinder(s, ESL_SOURCE_FORCE, i, tread_color, at, w, 0.96f * W,
                                         0.045f * R))
            return -1;
    }
    return 0;
}

/* ---- chassis ------------------------------------------------------------------------------ */

int esl_scene_add_chassis(EslScene *s, const MbsModel *m, int b, const double *poses,
                          const float color[4])
{
    const MbsBody *body = &m->bodies[b];
    const double *I = body->inertia;
    double mass = body->mass;
    /* The uniform box of this mass and these principal moments (the diagonal: a chassis's
     * inertia is given in its own axes): I_xx = m (b^2 + c^2) / 12, ... */
    double half[3];
    for (int k = 0; k < 3; k++) {
        double e2 = 6.0 * (I[4 * ((k + 1) % 3)] + I[4 * ((k + 2) % 3)] - I[4 * k]) / mass;
        if (!(mass > 0) || !(e2 > 0))
            return 1;
        half[k] = 0.5 * sqrt(e2);
    }
    /* narrowed to stay between the wheels (inertia counts the payload, not the shape) */
    for (int i = 0; i < m->nforces; i++) {
        const MbsForce *f = &m->forces[i];
        if (mbs_force_class(f->type)->drawing != MBS_FORCE_DRAW_TYRE)
            continue;
        float c[3], w[3], e1[3], e2[3];
        double R = tyre_frame(f, esl_scene_body_pose(NULL, f->body1), c, w, e1, e2);
        double inner = fabs(c[1] - body->com[1]) - 0.5 * tyre_width(f, R) - 0.05 * R;
        if (inner > 0.2 * half[1] && inner < half[1])
            half[1] = inner;
    }
    /* and above the lowest wheel centre, where the arms and springs show */
    double bottom = -DBL_MAX;
    for (int i = 0; i < m->nforces; i++)
        if (mbs_force_class(m->forces[i].type)->drawing == MBS_FORCE_DRAW_TYRE) {
            float c[3];
            esl_scene_transform(NULL, m->forces[i].point1, c);
            bottom = bottom == -DBL_MAX ? c[2] : fmin(bottom, c[2]);
        }
    double center[3] = {body->com[0], body->com[1], body->com[2]};
    double top = center[2] + half[2];
    if (bottom > center[2] - half[2] && bottom < top - 0.2 * half[2]) {
        half[2] = 0.5 * (top - bottom);
        center[2] = 0.5 * (top + bottom);
    }
    const double *pose = esl_scene_body_pose(poses, b);
    const double ex[3] = {1, 0, 0}, ey[3] = {0, 1, 0};
    float com[3], x[3];
    esl_scene_transform(pose, center, com);
    esl_scene_rotate(pose, ex, x);
    EslDrawable *d = esl_scene_push(s, ESL_DRAW_BOX, ESL_SOURCE_BODY, b, color);
    if (!d)
        return -1;
    for (int k = 0; k < 3; k++) {
        d->a[k] = com[k] - (float)half[0] * x[k];
        d->b[k] = com[k] + (float)half[0] * x[k];
    }
    esl_scene_rotate(pose, ey, d->side);
    d->radius = (float)half[1];
    d->radius2 = (float)half[2];
    return 0;
}

/* ---- road --------------------------------------------------------------------------------- */

/* The road to draw: the model's, or the first `tyre` element's own (then *own holds it). */
static const MbsRoad *drawing_road(const MbsModel *m, MbsRoad **own)
{
    *own = NULL;
    if (m->road)
        return m->road;
    for (int i = 0; i < m->nforces && !*own; i++)
        *own = mbs_force_tyre_road(&m->forces[i]);
    return *own;
}

static double nice_step(double rough)
{
    double p = pow(10.0, floor(log10(rough))), f = rough / p;
    return (f < 1.5 ? 1 : f < 3.5 ? 2 : f < 7.5 ? 5 : 10) * p;
}

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static int push_vertex(EslScene *s, double x, double y, const MbsRoadPoint *p,
                       const float color[4])
{
    if (s->n_surface == s->cap_surface) {
        int cap = s->cap_surface ? 2 * s->cap_surface : 4096;
        EslSurfaceVertex *v = realloc(s->surface, (size_t)cap * sizeof *v);
        if (!v)
            return -1;
        s->surface = v;
        s->cap_surface = cap;
    }
    EslSurfaceVertex *v = &s->surface[s->n_surface++];
    double n[3] = {-p->gradient[0], -p->gradient[1], 1.0};
    double len = sqrt(n[0] * n[0] + n[1] * n[1] + 1.0);
    v->position[0] = (float)x, v->position[1] = (float)y, v->position[2] = (float)p->height;
    for (int k = 0; k < 3; k++)
        v->normal[k] = (float)(n[k] / len);
    memcpy(v->color, color, sizeof v->color);
    return 0;
}

/* The x samples: a regular grid over [x0, x1] and each feature finely, with a sliver before
 * it so that a sharp step gets its face. */
static int road_xs(const MbsRoad *road, double x0, double x1, double dx, double **out)
{
    int n_regular = (int)ceil((x1 - x0) / dx) + 1;
    int cap = n_regular + road->nfeatures * (FEATURE_SAMPLES + 2);
    double *xs = malloc(sizeof(double) * (size_t)cap);
    if (!xs)
        return -1;
    int n = 0;
    for (int i = 0; i < n_regular; i++)
        xs[n++] = fmin(x0 + i * dx, x1);
    for (int i = 0; i < road->nfeatures; i++) {
        double a, b;
        mbs_road_class_at(road->features[i].kind)->extent(&road->features[i], &a, &b);
        if (b < x0 || a > x1)
            continue;
        xs[n++] = fmax(a - 1e-4 * dx, x0);
        for (int k = 0; k <= FEATURE_SAMPLES; k++)
            xs[n++] = fmin(fmax(a + (b - a) * k / FEATURE_SAMPLES, x0), x1);
    }
    qsort(xs, (size_t)n, sizeof *xs, compare_doubles);
    int kept = 0;
    for (int i = 0; i < n; i++)
        if (kept == 0 || xs[i] - xs[kept - 1] > 1e-9 * dx)
            xs[kept++] = xs[i];
    *out = xs;
    return kept;
}

static int in_feature(const MbsRoad *road, double x, double dx)
{
    for (int i = 0; i < road->nfeatures; i++) {
        double a, b;
        mbs_road_class_at(road->features[i].kind)->extent(&road->features[i], &a, &b);
        if (x >= a - 1e-4 * dx && x <= b)
            return 1;
    }
    return 0;
}

int esl_scene_add_road(EslScene *s, const MbsModel *m, const double *poses)
{
    if (!esl_scene_is_vehicle(m))
        return 0;
    MbsRoad *own;
    const MbsRoad *road = drawing_road(m, &own);
    if (!road)
        return 0;
    /* across: beyond the outermost wheels; along: ahead and behind the vehicle as it is now */
    double ylo = DBL_MAX, yhi = -DBL_MAX;
    for (int i = 0; i < m->nforces; i++)
        if (mbs_force_class(m->forces[i].type)->drawing == MBS_FORCE_DRAW_TYRE) {
            float c[3];
            esl_scene_transform(esl_scene_body_pose(poses, m->forces[i].body1),
                                m->forces[i].point1, c);
            ylo = fmin(ylo, c[1]);
            yhi = fmax(yhi, c[1]);
        }
    double tile = nice_step(s->size / 5.0), dx = 0.25 * tile, dy = 0.5 * tile;
    double x0 = dx * floor((s->center[0] - ROAD_AHEAD * s->size) / dx);
    double x1 = dx * ceil((s->center[0] + ROAD_AHEAD * s->size) / dx);
    double y0 = dy * floor((ylo - ROAD_ASIDE * s->size) / dy);
    double y1 = dy * ceil((yhi + ROAD_ASIDE * s->size) / dy);
    double *xs = NULL;
    int nx = road_xs(road, x0, x1, dx, &xs), ny = (int)lround((y1 - y0) / dy) + 1;
    MbsRoadPoint *grid = nx > 1 ? malloc(sizeof *grid * (size_t)nx * (size_t)ny) : NULL;
    int status = grid ? 0 : -1;
    double lowest = DBL_MAX;
    for (int i = 0; grid && i < nx; i++)
        for (int j = 0; j < ny; j++) {
            mbs_road_eval(road, xs[i], y0 + j * dy, &grid[i * ny + j]);
            lowest = fmin(lowest, grid[i * ny + j].height);
        }
    for (int i = 0; grid && status == 0 && i + 1 < nx; i++) {
        double xm = 0.5 * (xs[i] + xs[i + 1]);
        const float(*colors)[4] = in_feature(road, xm, dx) ? feature_colors : road_colors;
        for (int j = 0; status == 0 && j + 1 < ny; j++) {
            /* squares of the checker are fixed to the ground: the motion shows against them */
            double ym = y0 + (j + 0.5) * dy;
            const float *color = colors[((long)floor(xm / tile) + (long)floor(ym / tile)) & 1];
            double ya = y0 + j * dy, yb = ya + dy;
            const MbsRoadPoint *p00 = &grid[i * ny + j], *p01 = &grid[i * ny + j + 1],
                               *p10 = &grid[(i + 1) * ny + j], *p11 = &grid[(i + 1) * ny + j + 1];
            status = push_vertex(s, xs[i], ya, p00, color) ||
                     push_vertex(s, xs[i + 1], ya, p10, color) ||
                     push_vertex(s, xs[i + 1], yb, p11, color) ||
                     push_vertex(s, xs[i], ya, p00, color) ||
                     push_vertex(s, xs[i + 1], yb, p11, color) ||
                     push_vertex(s, xs[i], yb, p01, color)
                         ? -1
                         : 0;
        }
    }
    if (grid)
        s->floor = (float)(lowest - 0.01 * s->size); /* the grid shows beside the road only */
    free(grid);
    free(xs);
    mbs_road_free(own);
    return status;
}

/* ---- cones -------------------------------------------------------------------------------- */

int esl_scene_add_cones(EslScene *s, const MbsModel *m, const double *xy, int n)
{
    MbsRoad *own;
    const MbsRoad *road = drawing_road(m, &own);
    int status = 0;
    for (int i = 0; i < n && status == 0; i++) {
        double base = s->floor;
        if (road) {
            MbsRoadPoint p;
            mbs_road_eval(road, xy[2 * i], xy[2 * i + 1], &p);
            base = p.height;
        }
        /* the cone, then a white band around it between 45 % and 65 % of its height */
        const float lo[2] = {0.0f, 0.45f}, hi[2] = {1.0f, 0.65f};
        const float *colors[2] = {cone_color, band_color};
        for (int part = 0; part < 2 && status == 0; part++) {
            EslDrawable *d = esl_scene_push(s, ESL_DRAW_CYLINDER, ESL_SOURCE_CONE, i, colors[part]);
            if (!d) {
                status = -1;
                break;
            }
            float grow = part ? 1.04f : 1.0f; /* the band just outside the cone */
            d->a[0] = d->b[0] = (float)xy[2 * i];
            d->a[1] = d->b[1] = (float)xy[2 * i + 1];
            d->a[2] = (float)base + lo[part] * CONE_HEIGHT;
            d->b[2] = (float)base + hi[part] * CONE_HEIGHT;
            d->radius = grow * (CONE_BASE + lo[part] * (CONE_TOP - CONE_BASE));
            d->radius2 = grow * (CONE_BASE + hi[part] * (CONE_TOP - CONE_BASE));
        }
    }
    mbs_road_free(own);
    return status;
}
