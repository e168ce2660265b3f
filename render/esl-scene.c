/* Scene builder: model + state -> drawables. See esl-scene.h. */
#include "esl-scene.h"
#include "esl-scene-private.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mbs_force.h"
#include "mbs_path.h"
#include "mbs_road.h"
#include "mbs_wheel.h"

#define MAX_ANCHORS 64

/* Element sizes, as multiples of the bar radius. */
#define JOINT_RADIUS 1.7f
#define JOINT_LENGTH 5.0f
#define PRISMATIC_LENGTH 10.0f
#define ROD_RADIUS 0.6f
#define SPRING_COIL 2.2f
#define SPRING_WIRE 0.3f
#define SPRING_TURNS 9
#define GROUND_HEIGHT 5.0f
#define GROUND_BASE 3.0f
#define FRAME_LENGTH 8.0f

static const float body_palette[][4] = {
    {0.36f, 0.54f, 0.84f, 1.0f}, {0.90f, 0.56f, 0.22f, 1.0f}, {0.62f, 0.50f, 0.82f, 1.0f},
    {0.30f, 0.62f, 0.78f, 1.0f}, {0.85f, 0.45f, 0.55f, 1.0f}, {0.55f, 0.57f, 0.66f, 1.0f},
};
static const float ground_color[4] = {0.42f, 0.42f, 0.45f, 1.0f};
static const float tyre_color[4] = {0.13f, 0.13f, 0.15f, 1.0f};
static const float spring_color[4] = {0.80f, 0.68f, 0.25f, 1.0f};
static const float force_color[4] = {0.85f, 0.20f, 0.55f, 1.0f};
static const float highlight_color[4] = {1.0f, 0.85f, 0.1f, 1.0f};

void esl_scene_options_defaults(EslSceneOptions *o)
{
    memset(o, 0, sizeof *o);
    o->violation_low = 1e-9;
    o->violation_high = 1e-3;
    o->highlight_source = -1;
    o->highlight_index = -1;
}

EslScene *esl_scene_new(void)
{
    return calloc(1, sizeof(EslScene));
}

void esl_scene_free(EslScene *scene)
{
    if (!scene)
        return;
    free(scene->items);
    free(scene->surface);
    free(scene);
}

/* ---- small vector helpers ------------------------------------------------------------- */

void esl_scene_transform(const double *pose, const double x[3], float out[3])
{
    if (!pose) {
        for (int i = 0; i < 3; i++)
            out[i] = (float)x[i];
        return;
    }
    const double *R = pose, *p = pose + 9;
    for (int i = 0; i < 3; i++)
        out[i] = (float)(R[3 * i] * x[0] + R[3 * i + 1] * x[1] + R[3 * i + 2] * x[2] + p[i]);
}

void esl_scene_rotate(const double *pose, const double v[3], float out[3])
{
    if (!pose) {
        for (int i = 0; i < 3; i++)
            out[i] = (float)v[i];
        return;
    }
    for (int i = 0; i < 3; i++)
        out[i] = (float)(pose[3 * i] * v[0] + pose[3 * i + 1] * v[1] + pose[3 * i + 2] * v[2]);
}

float esl_scene_dist3(const float a[3], const float b[3])
{
    float dx = a[0] - b[0], dy = a[1] - b[1], dz = a[2] - b[2];
    return sqrtf(dx * dx + dy * dy + dz * dz);
}

static double ddist3(const double a[3], const double b[3])
{
    double dx = a[0] - b[0], dy = a[1] - b[1], dz = a[2] - b[2];
    return sqrt(dx * dx + dy * dy + dz * dz);
}

void esl_scene_unit(float v[3])
{
    float n = sqrtf(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    if (n > 0)
        for (int i = 0; i < 3; i++)
            v[i] /= n;
}

/* ---- building ------------------------------------------------------------------------- */

EslDrawable *esl_scene_push(EslScene *s, EslDrawableKind kind, EslDrawableSource source, int index,
                         const float color[4])
{
    if (s->n == s->cap) {
        int cap = s->cap ? 2 * s->cap : 64;
        EslDrawable *items = realloc(s->items, (size_t)cap * sizeof *items);
        if (!items)
            return NULL;
        s->items = items;
        s->cap = cap;
    }
    EslDrawable *d = &s->items[s->n++];
    memset(d, 0, sizeof *d);
    d->kind = kind;
    d->source = source;
    d->index = index;
    memcpy(d->color, color, sizeof d->color);
    return d;
}

const double *esl_scene_body_pose(const double *poses, int body)
{
    return poses ? poses + 12 * body : NULL;
}

/* Bounding box of the model's bodies, points and joints in a state (NULL: as drawn); without
 * what is fixed to the ground when moving_only (a vehicle's guides at the origin would keep
 * the centre there as it drives off). */
static int model_box(const MbsModel *m, const double *poses, int moving_only, double lo[3],
                     double hi[3])
{
    int count = 0;
    for (int k = 0; k < 3; k++) {
        lo[k] = DBL_MAX;
        hi[k] = -DBL_MAX;
    }
#define ADD(body, x)                                                                            \
    do {                                                                                        \
        if (moving_only && (body) == m->ground)                                                 \
            break;                                                                              \
        float y_[3];                                                                            \
        esl_scene_transform(esl_scene_body_pose(poses, (body)), (x), y_);                                                             \
        for (int k_ = 0; k_ < 3; k_++) {                                                        \
            lo[k_] = fmin(lo[k_], y_[k_]);                                                      \
            hi[k_] = fmax(hi[k_], y_[k_]);                                                      \
        }                                                                                       \
        count++;                                                                                \
    } while (0)
    for (int i = 0; i < m->nbodies; i++)
        if (!m->bodies[i].is_ground)
            ADD(i, m->bodies[i].com);
    for (int i = 0; i < m->npoints; i++)
        ADD(m->points[i].body, m->points[i].pos);
    for (int i = 0; i < m->njoints; i++) {
        ADD(m->joints[i].body1, m->joints[i].point1);
        ADD(m->joints[i].body2, m->joints[i].point2);
    }
#undef ADD
    if (count == 0) {
        lo[0] = lo[1] = lo[2] = -0.5;
        hi[0] = hi[1] = hi[2] = 0.5;
    }
    return count;
}

/* Up vector, size (radii stay put while it moves), floor and bounding sphere from the drawn
 * model; for a vehicle the bounding sphere of its moving bodies in the state drawn (one that has
 * driven off stays in the frame). */
static void measure(EslScene *s, const MbsModel *m, const double *poses)
{
    double lo[3], hi[3];
    int moving_only = esl_scene_is_vehicle(m);
    model_box(m, NULL, 0, lo, hi);
    double diag = ddist3(lo, hi);
    if (diag < 1e-9)
        diag = 1.0;
    s->size = (float)diag;
    double g = sqrt(m->gravity[0] * m->gravity[0] + m->gravity[1] * m->gravity[1] +
                    m->gravity[2] * m->gravity[2]);
    for (int k = 0; k < 3; k++)
        s->up[k] = g > 0 ? (float)(-m->gravity[k] / g) : (k == 2 ? 1.0f : 0.0f);
    float drawn_center[3];
    for (int k = 0; k < 3; k++)
        drawn_center[k] = (float)(0.5 * (lo[k] + hi[k]));
    s->floor = drawn_center[0] * s->up[0] + drawn_center[1] * s->up[1] +
               drawn_center[2] * s->up[2] - 0.525f * s->size;
    if (moving_only) { /* a vehicle: where it is now; a mechanism keeps its frame */
        model_box(m, poses, moving_only, lo, hi);
        diag = fmax(ddist3(lo, hi), 1e-9);
    }
    for (int k = 0; k < 3; k++)
        s->center[k] = (float)(0.5 * (lo[k] + hi[k]));
    s->radius = (float)(0.5 * diag);
}

static int body_anchors(const MbsModel *m, int body, double anchors[][3], double tol);

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Bar radius: 1.2 % of the model's size, but at most 5 % of the median body length, so that
 * models made of many short bars stay readable. */
static float bar_radius(const EslScene *s, const MbsModel *m, float *median_length)
{
    float r = 0.012f * s->size;
    *median_length = 0.0f;
    double *lengths = malloc(sizeof(double) * (size_t)(m->nbodies + 1));
    int n = 0;
    for (int b = 0; lengths && b < m->nbodies; b++) {
        if (m->bodies[b].is_ground)
            continue;
        double anchors[MAX_ANCHORS][3], longest = 0;
        int k = body_anchors(m, b, anchors, 1e-6 * s->size);
        for (int i = 0; i < k; i++)
            for (int j = i + 1; j < k; j++)
                longest = fmax(longest, ddist3(anchors[i], anchors[j]));
        if (longest > 0)
            lengths[n++] = longest;
    }
    if (n > 0) {
        qsort(lengths, (size_t)n, sizeof *lengths, compare_doubles);
        *median_length = (float)lengths[n / 2];
        float limit = (float)(0.05 * lengths[n / 2]);
        if (limit < r)
            r = limit;
    }
    free(lengths);
    return r;
}

/* Collect the distinct drawn anchors of a body. */
static int body_anchors(const MbsModel *m, int body, double anchors[][3], double tol)
{
    int n = 0;
#define ADD_ANCHOR(x)                                                                           \
    do {                                                                                        \
        int dup_ = 0;                                                                           \
        for (int j_ = 0; j_ < n && !dup_; j_++)                                                 \
            dup_ = ddist3(anchors[j_], (x)) <= tol;                                             \
        if (!dup_ && n < MAX_ANCHORS)                                                           \
            memcpy(anchors[n++], (x), sizeof anchors[0]);                                       \
    } while (0)
    for (int i = 0; i < m->njoints; i++) {
        const MbsJoint *j = &m->joints[i];
        if (j->body1 == body)
            ADD_ANCHOR(j->point1);
        if (j->body2 == body)
            ADD_ANCHOR(j->point2);
    }
    for (int i = 0; i < m->nforces; i++) {
        const MbsForce *f = &m->forces[i];
        MbsForceGeometry g = mbs_force_class(f->type)->geometry;
        if (g != MBS_FORCE_ON_LINE && g != MBS_FORCE_AT_POINT)
            continue;
        if (f->body1 == body)
            ADD_ANCHOR(f->point1);
        if (g == MBS_FORCE_ON_LINE && f->body2 == body)
            ADD_ANCHOR(f->point2);
    }
    for (int i = 0; i < m->npoints; i++)
        if (m->points[i].body == body)
            ADD_ANCHOR(m->points[i].pos);
#undef ADD_ANCHOR
    return n;
}

static int add_body(EslScene *s, const MbsModel *m, int b, const double *pose, float r,
                    const float color[4])
{
    double anchors[MAX_ANCHORS][3];
    int n = body_anchors(m, b, anchors, 1e-6 * s->size);
    float com[3];
    esl_scene_transform(pose, m->bodies[b].com, com);
    EslDrawable *d;
    if (n == 0) {
        if (!(d = esl_scene_push(s, ESL_DRAW_SPHERE, ESL_SOURCE_BODY, b, color)))
            return -1;
        memcpy(d->a, com, sizeof com);
        d->radius = 2.0f * r;
        return 0;
    }
    if (n == 2) {
        if (!(d = esl_scene_push(s, ESL_DRAW_CAPSULE, ESL_SOURCE_BODY, b, color)))
            return -1;
        esl_scene_transform(pose, anchors[0], d->a);
        esl_scene_transform(pose, anchors[1], d->b);
        d->radius = r;
        return 0;
    }
    /* One anchor, or a plate of three or more: bars from the centre of mass. */
    for (int i = 0; i < n; i++) {
        float x[3];
        esl_scene_transform(pose, anchors[i], x);
        if (esl_scene_dist3(x, com) <= r)
            continue;
        if (!(d = esl_scene_push(s, ESL_DRAW_CAPSULE, ESL_SOURCE_BODY, b, color)))
            return -1;
        memcpy(d->a, com, sizeof com);
        memcpy(d->b, x, sizeof x);
        d->radius = r;
    }
    if (!(d = esl_scene_push(s, ESL_DRAW_SPHERE, ESL_SOURCE_BODY, b, color)))
        return -1;
    memcpy(d->a, com, sizeof com);
    d->radius = 1.4f * r;
    return 0;
}

/* Cylinder of given length centred at c along axis. */
EslDrawable *esl_scene_add_axis_cylinder(EslScene *s, EslDrawableSource source, int index,
                                      const float color[4], const float c[3], const float axis[3],
                                      float length, float radius)
{
    EslDrawable *d = esl_scene_push(s, ESL_DRAW_CYLINDER, source, index, color);
    if (!d)
        return NULL;
    for (int k = 0; k < 3; k++) {
        d->a[k] = c[k] - 0.5f * length * axis[k];
        d->b[k] = c[k] + 0.5f * length * axis[k];
    }
    d->radius = d->radius2 = radius;
    return d;
}

static int add_arrow(EslScene *s, EslDrawableSource source, int index, const float color[4],
                     const float from[3], const float dir[3], float length, float r)
{
    float tip_start[3], tip[3];
    for (int k = 0; k < 3; k++) {
        tip_start[k] = from[k] + 0.75f * length * dir[k];
        tip[k] = from[k] + length * dir[k];
    }
    EslDrawable *shaft = esl_scene_push(s, ESL_DRAW_CYLINDER, source, index, color);
    if (!shaft)
        return -1;
    memcpy(shaft->a, from, sizeof shaft->a);
    memcpy(shaft->b, tip_start, sizeof shaft->b);
    shaft->radius = shaft->radius2 = r;
    EslDrawable *head = esl_scene_push(s, ESL_DRAW_CYLINDER, source, index, color);
    if (!head)
        return -1;
    memcpy(head->a, tip_start, sizeof head->a);
    memcpy(head->b, tip, sizeof head->b);
    head->radius = 2.5f * r;
    head->radius2 = 0.0f;
    return 0;
}

static int add_joint(EslScene *s, const MbsModel *m, int i, const double *poses, float r,
                     const float color[4], int vehicle)
{
    const MbsJoint *j = &m->joints[i];
    const double *pose1 = esl_scene_body_pose(poses, j->body1), *pose2 = esl_scene_body_pose(poses, j->body2);
    float c[3], axis1[3], axis2[3];
    /* Drawn on body2 (the moving side for tree joints); a violated loop joint then shows the gap
     * through its colour. */
    esl_scene_transform(pose2, j->point2, c);
    esl_scene_rotate(pose1, j->axis1, axis1);
    esl_scene_rotate(pose2, j->axis2, axis2);
    esl_scene_unit(axis1);
    esl_scene_unit(axis2);
    EslDrawable *d = NULL;
    switch (j->type) {
    case MBS_JOINT_REVOLUTE:
        d = esl_scene_add_axis_cylinder(s, ESL_SOURCE_JOINT, i, color, c, axis2, JOINT_LENGTH * r,
                              JOINT_RADIUS * r);
        break;
    case MBS_JOINT_PRISMATIC:
        d = esl_scene_add_axis_cylinder(s, ESL_SOURCE_JOINT, i, color, c, axis1, PRISMATIC_LENGTH * r,
                              1.2f * r);
        break;
    case MBS_JOINT_SPHERICAL:
        if ((d = esl_scene_push(s, ESL_DRAW_SPHERE, ESL_SOURCE_JOINT, i, color))) {
            memcpy(d->a, c, sizeof c);
            d->radius = 2.0f * r;
        }
        break;
    case MBS_JOINT_UNIVERSAL:
        d = esl_scene_add_axis_cylinder(s, ESL_SOURCE_JOINT, i, color, c, axis1, JOINT_LENGTH * r,
                              JOINT_RADIUS * r * 0.8f);
        if (d)
            d = esl_scene_add_axis_cylinder(s, ESL_SOURCE_JOINT, i, color, c, axis2, JOINT_LENGTH * r,
                                  JOINT_RADIUS * r * 0.8f);
        break;
    case MBS_JOINT_ROD:
        if ((d = esl_scene_push(s, ESL_DRAW_CAPSULE, ESL_SOURCE_JOINT, i, color))) {
            esl_scene_transform(pose1, j->point1, d->a);
            memcpy(d->b, c, sizeof c);
            d->radius = ROD_RADIUS * r;
        }
        break;
    default:
        return 0; /* unknown joint type: nothing to draw */
    }
    if (!d)
        return -1;

    /* Ground marker: a cone under joints attached to the ground (not a vehicle's guides: they
     * support nothing, and would stay behind at the origin as it drives off). */
    int on_ground = !vehicle && ((j->body1 == m->ground) || (j->body2 == m->ground));
    if (on_ground && m->ground >= 0) {
        float g[3];
        esl_scene_transform(NULL, j->body1 == m->ground ? j->point1 : j->point2, g);
        EslDrawable *cone = esl_scene_push(s, ESL_DRAW_CYLINDER, ESL_SOURCE_GROUND, i, ground_color);
        if (!cone)
            return -1;
        for (int k = 0; k < 3; k++) {
            cone->a[k] = g[k] - GROUND_HEIGHT * r * s->up[k];
            cone->b[k] = g[k] - JOINT_RADIUS * r * s->up[k];
        }
        cone->radius = GROUND_BASE * r;
        cone->radius2 = 0.6f * r;
    }
    return 0;
}

static int add_force(EslScene *s, const MbsModel *m, int i, const double *poses, float r,
                     const float color[4])
{
    const MbsForce *f = &m->forces[i];
    MbsForceDrawing drawing = mbs_force_class(f->type)->drawing;
    if (drawing == MBS_FORCE_DRAW_SPRING) {
        EslDrawable *d = esl_scene_push(s, ESL_DRAW_HELIX, ESL_SOURCE_FORCE, i, color);
        if (!d)
            return -1;
        esl_scene_transform(esl_scene_body_pose(poses, f->body1), f->point1, d->a);
        esl_scene_transform(esl_scene_body_pose(poses, f->body2), f->point2, d->b);
        d->radius = SPRING_COIL * r;
        d->radius2 = SPRING_WIRE * r;
        d->turns = SPRING_TURNS;
        return 0;
    }
    if (drawing == MBS_FORCE_DRAW_ARROW) {
        float at[3], dir[3];
        esl_scene_transform(esl_scene_body_pose(poses, f->body1), f->point1, at);
        for (int k = 0; k < 3; k++)
            dir[k] = (float)f->vector[k];
        if (dir[0] == 0 && dir[1] == 0 && dir[2] == 0)
            return 0;
        esl_scene_unit(dir);
        return add_arrow(s, ESL_SOURCE_FORCE, i, force_color, at, dir, 0.15f * s->size, 0.5f * r);
    }
    if (drawing == MBS_FORCE_DRAW_TYRE)
        return esl_scene_add_tyre(s, m, i, poses, color == spring_color ? tyre_color : color);
    return 0; /* MBS_FORCE_DRAW_NONE: joint spring-dampers and torques */
}

static int add_frame(EslScene *s, const MbsModel *m, int b, const double *pose, float r)
{
    static const float axis_colors[3][4] = {
        {0.9f, 0.2f, 0.2f, 1.0f}, {0.2f, 0.75f, 0.2f, 1.0f}, {0.25f, 0.35f, 0.95f, 1.0f}};
    float com[3];
    esl_scene_transform(pose, m->bodies[b].com, com);
    for (int k = 0; k < 3; k++) {
        double e[3] = {k == 0, k == 1, k == 2};
        float dir[3];
        esl_scene_rotate(pose, e, dir);
        if (add_arrow(s, ESL_SOURCE_FRAME, b, axis_colors[k], com, dir, FRAME_LENGTH * r,
                      0.35f * r))
            return -1;
    }
    return 0;
}

static const float *pick_color(const EslSceneOptions *o, EslDrawableSource source, int index,
                               const float *normal)
{
    return (o->highlight_source == (int)source && o->highlight_index == index) ? highlight_color
                                                                              : normal;
}

int esl_scene_build(EslScene *s, const MbsModel *m, const double *poses,
                    const double *violations, const EslSceneOptions *options)
{
    EslSceneOptions defaults;
    if (!options) {
        esl_scene_options_defaults(&defaults);
        options = &defaults;
    }
    s->n = 0;
    s->n_surface = 0;
    measure(s, m, poses);
    float median_length;
    float r = bar_radius(s, m, &median_length);
    s->bar_radius = r;
    /* Joint markers: in a model of many short bars (the 225-body lattice) bars are thin next to
     * the whole, and markers sized from them are too small to read their colour; they grow
     * to 1.2 % of the model's size, without overlapping a neighbour (0.3 of the median bar). */
    float joint_r = r;
    if (median_length > 0)
        joint_r = fmaxf(r, fminf(0.012f * s->size, 0.3f * median_length) / JOINT_RADIUS);

    int vehicle_body = esl_scene_is_vehicle(m) ? esl_scene_vehicle_body(m) : -1;
    for (int b = 0; b < m->nbodies; b++) {
        if (m->bodies[b].is_ground)
            continue;
        const float *color = pick_color(options, ESL_SOURCE_BODY, b,
                                        body_palette[b % (int)(sizeof body_palette /
                                                               sizeof body_palette[0])]);
        if (b != vehicle_body && esl_scene_carries_tyre(m, b))
            continue; /* drawn as its tyre */
        int chassis = esl_scene_is_frame(m, b, vehicle_body)
                          ? esl_scene_add_chassis(s, m, b, poses, color)
                          : 1;
        if (chassis < 0 ||
            (chassis > 0 && add_body(s, m, b, esl_scene_body_pose(poses, b), r, color)))
            return -1;
    }
    for (int i = 0; i < m->njoints; i++) {
        float color[4];
        esl_scene_violation_color(violations ? violations[i] : 0.0, options->violation_low,
                                  options->violation_high, color);
        if (add_joint(s, m, i, poses, joint_r,
                      pick_color(options, ESL_SOURCE_JOINT, i, color), vehicle_body >= 0))
            return -1;
    }
    for (int i = 0; i < m->nforces; i++)
        if (add_force(s, m, i, poses, r, pick_color(options, ESL_SOURCE_FORCE, i, spring_color)))
            return -1;
    if (esl_scene_add_road(s, m, poses))
        return -1;
    if (m->path) { /* a lane change's cones (ISO 3888: at most 18 gates' worth) */
        double cones[2 * 64];
        int n = mbs_path_cones(m->path, cones, 64);
        if (esl_scene_add_cones(s, m, cones, n < 64 ? n : 64))
            return -1;
    }
    if (options->show_frames)
        for (int b = 0; b < m->nbodies; b++)
            if (!m->bodies[b].is_ground && add_frame(s, m, b, esl_scene_body_pose(poses, b), r))
                return -1;
    return 0;
}

int esl_scene_add_trail(EslScene *s, const float *points, int n, const float color[4],
                        int index)
{
    float r = 0.35f * (s->bar_radius > 0 ? s->bar_radius : 0.01f);
    for (int i = 1; i < n; i++) {
        EslDrawable *d = esl_scene_push(s, ESL_DRAW_CAPSULE, ESL_SOURCE_TRAIL, index, color);
        if (!d)
            return -1;
        memcpy(d->a, points + 3 * (i - 1), sizeof d->a);
        memcpy(d->b, points + 3 * i, sizeof d->b);
        d->radius = r;
    }
    return 0;
}

void esl_scene_grow_bounds(const EslScene *s, float lo[3], float hi[3])
{
    for (int i = 0; i < s->n; i++) {
        const EslDrawable *d = &s->items[i];
        float r = d->radius > d->radius2 ? d->radius : d->radius2;
        const float *b = d->kind == ESL_DRAW_SPHERE ? d->a : d->b;
        for (int k = 0; k < 3; k++) {
            lo[k] = fminf(lo[k], fminf(d->a[k], b[k]) - r);
            hi[k] = fmaxf(hi[k], fmaxf(d->a[k], b[k]) + r);
        }
    }
}

void esl_scene_violation_color(double v, double low, double high, float rgba[4])
{
    static const float good[3] = {0.20f, 0.70f, 0.35f}, mid[3] = {0.95f, 0.80f, 0.15f},
                       bad[3] = {0.90f, 0.15f, 0.12f};
    double t = 0.0;
    if (!(v <= low)) { /* NaN counts as bad */
        t = (v >= high || isnan(v) || low <= 0 || high <= low)
                ? 1.0
                : (log10(v) - log10(low)) / (log10(high) - log10(low));
    }
    for (int k = 0; k < 3; k++)
        rgba[k] = t < 0.5 ? good[k] + (float)(2 * t) * (mid[k] - good[k])
                          : mid[k] + (float)(2 * t - 1) * (bad[k] - mid[k]);
    rgba[3] = 1.0f;
}

/* ---- picking ---------------------------------------------------------------------------- */

/* Closest approach between the ray o + t d (t >= 0, |d| = 1) and the segment a-b: returns the
 * distance and the ray parameter in *t. */
static float ray_segment(const float o[3], const float d[3], const float a[3], const float b[3],
                         float *t)
{
    float u[3], w[3];
    for (int k = 0; k < 3; k++) {
        u[k] = b[k] - a[k];
        w[k] = o[k] - a[k];
    }
    float uu = u[0] * u[0] + u[1] * u[1] + u[2] * u[2];
    float ud = u[0] * d[0] + u[1] * d[1] + u[2] * d[2];
    float uw = u[0] * w[0] + u[1] * w[1] + u[2] * w[2];
    float dw = d[0] * w[0] + d[1] * w[1] + d[2] * w[2];
    float denom = uu - ud * ud;
    float sc; /* segment parameter */
    if (uu < 1e-20f)
        sc = 0;
    else if (denom < 1e-12f * uu)
        sc = 0; /* parallel */
    else
        sc = (uw - ud * dw) / denom;
    sc = sc < 0 ? 0 : sc > 1 ? 1 : sc;
    float ps[3];
    for (int k = 0; k < 3; k++)
        ps[k] = a[k] + sc * u[k];
    float tc = 0;
    for (int k = 0; k < 3; k++)
        tc += (ps[k] - o[k]) * d[k];
    if (tc < 0)
        tc = 0;
    float pr[3];
    for (int k = 0; k < 3; k++)
        pr[k] = o[k] + tc * d[k];
    *t = tc;
    return esl_scene_dist3(pr, ps);
}

int esl_scene_pick(const EslScene *s, const float origin[3], const float dir[3],
                   float tolerance)
{
    float d[3] = {dir[0], dir[1], dir[2]};
    esl_scene_unit(d);
    int best = -1;
    float best_t = FLT_MAX;
    for (int i = 0; i < s->n; i++) {
        const EslDrawable *e = &s->items[i];
        const float *b = e->kind == ESL_DRAW_SPHERE ? e->a : e->b;
        float radius = e->radius > e->radius2 ? e->radius : e->radius2;
        float t;
        float dist = ray_segment(origin, d, e->a, b, &t);
        if (dist <= radius + tolerance && t > 0 && t < best_t) {
            best_t = t;
            best = i;
        }
    }
    return best;
}
