/* Scene builder: the drawables of a small model built with the engine builder API, moved by
 * given poses, coloured by given violations; colour scale; picking. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "esl-scene.h"
#include "tap.h"

static int count(const EslScene *s, EslDrawableKind kind, EslDrawableSource source, int index)
{
    int n = 0;
    for (int i = 0; i < s->n; i++)
        n += s->items[i].kind == kind && s->items[i].source == source &&
             s->items[i].index == index;
    return n;
}

static const EslDrawable *find(const EslScene *s, EslDrawableKind kind, EslDrawableSource source,
                               int index)
{
    for (int i = 0; i < s->n; i++)
        if (s->items[i].kind == kind && s->items[i].source == source && s->items[i].index == index)
            return &s->items[i];
    return NULL;
}

static int near3(const float a[3], double x, double y, double z)
{
    return fabs(a[0] - x) < 1e-6 && fabs(a[1] - y) < 1e-6 && fabs(a[2] - z) < 1e-6;
}

/* Ground; arm A hinged at the origin about z, reaching (1,0,0); link B hanging from A's tip by
 * a spherical joint down to (1,0,-1); a spring from the ground at (0,0,-1) to B's end. */
static MbsModel *small_model(int *ja, int *jb, int *spring)
{
    MbsError err = {0};
    MbsModel *m = mbs_model_new("test");
    m->gravity[2] = -9.81;
    int g = mbs_model_add_ground(m, "ground", &err);
    double I[9] = {0.01, 0, 0, 0, 0.01, 0, 0, 0, 0.01};
    double com_a[3] = {0.5, 0, 0}, com_b[3] = {1, 0, -0.5};
    int a = mbs_model_add_body(m, "A", 1.0, com_a, I, &err);
    int b = mbs_model_add_body(m, "B", 1.0, com_b, I, &err);
    double origin[3] = {0, 0, 0}, z[3] = {0, 0, 1}, tip[3] = {1, 0, 0}, end[3] = {1, 0, -1};
    double anchor[3] = {0, 0, -1};
    mbs_model_add_point(m, a, "tip", tip, &err);
    mbs_model_add_point(m, b, "end", end, &err);
    *ja = mbs_model_add_joint(m, "hinge", MBS_JOINT_REVOLUTE, g, a, origin, z, &err);
    *jb = mbs_model_add_joint(m, "ball", MBS_JOINT_SPHERICAL, a, b, tip, z, &err);
    MbsForce f = {.type = MBS_FORCE_TSDA, .body1 = g, .body2 = b, .stiffness = 100,
                  .natural_length = 1};
    strcpy(f.name, "spring");
    memcpy(f.point1, anchor, sizeof anchor);
    memcpy(f.point2, end, sizeof end);
    *spring = mbs_model_add_force(m, &f, &err);
    if (err.status)
        tap_diag("builder error: %s", err.message);
    return m;
}

/* A chain of 40 bars of 0.1 m joined by ball joints (many short bars, as the lattices): its
 * joint markers are large enough to read their colour next to the whole (1.2 % of its size is
 * the aim; at least 0.8 % asked) and still do not overlap their neighbours (below half a bar). */
static void check_marker_scale(void)
{
    MbsError err = {0};
    MbsModel *m = mbs_model_new("chain");
    int prev = mbs_model_add_ground(m, "ground", &err);
    double I[9] = {1e-4, 0, 0, 0, 1e-4, 0, 0, 0, 1e-4}, z[3] = {0, 0, 1};
    for (int i = 0; i < 40; i++) {
        char name[16];
        snprintf(name, sizeof name, "b%d", i);
        double com[3] = {0.1 * i + 0.05, 0, 0}, a[3] = {0.1 * i, 0, 0}, b[3] = {0.1 * i + 0.1, 0, 0};
        int body = mbs_model_add_body(m, name, 0.1, com, I, &err);
        mbs_model_add_point(m, body, "end", b, &err);
        snprintf(name, sizeof name, "j%d", i);
        mbs_model_add_joint(m, name, MBS_JOINT_SPHERICAL, prev, body, a, z, &err);
        prev = body;
    }
    EslScene *s = esl_scene_new();
    int built = err.status == 0 ? esl_scene_build(s, m, NULL, NULL, NULL) : -1;
    const EslDrawable *ball = built == 0 ? find(s, ESL_DRAW_SPHERE, ESL_SOURCE_JOINT, 20) : NULL;
    double size = s->size;
    tap_ok(ball && ball->radius >= 0.008 * size && ball->radius <= 0.05,
           "a 40-bar chain's joint markers: radius %.4f m, %.2f %% of its %.1f m, half a bar at "
           "most", ball ? ball->radius : 0.0, ball ? 100 * ball->radius / size : 0.0, size);
    tap_ok(s->bar_radius < 0.5 * (ball ? ball->radius : 0), "and thicker than its bars");
    esl_scene_free(s);
    mbs_model_free(m);
}

int main(void)
{
    check_marker_scale();
    int ja, jb, spring;
    MbsModel *m = small_model(&ja, &jb, &spring);
    tap_ok(m->nbodies == 3 && m->njoints == 2 && m->nforces == 1, "model built");
    EslScene *s = esl_scene_new();
    EslSceneOptions o;
    esl_scene_options_defaults(&o);

    /* Drawn configuration. */
    tap_ok(esl_scene_build(s, m, NULL, NULL, &o) == 0, "scene built in the drawn configuration");
    tap_ok(s->n == 6, "6 drawables: 2 bars, hinge, ground cone, ball, spring (got %d)", s->n);
    tap_ok(count(s, ESL_DRAW_CAPSULE, ESL_SOURCE_BODY, 1) == 1 &&
               count(s, ESL_DRAW_CAPSULE, ESL_SOURCE_BODY, 2) == 1,
           "one bar per two-anchor body");
    const EslDrawable *bar_a = find(s, ESL_DRAW_CAPSULE, ESL_SOURCE_BODY, 1);
    tap_ok(bar_a && near3(bar_a->a, 0, 0, 0) && near3(bar_a->b, 1, 0, 0),
           "bar of A joins the hinge and the tip");
    const EslDrawable *hinge = find(s, ESL_DRAW_CYLINDER, ESL_SOURCE_JOINT, ja);
    tap_ok(hinge && fabsf(hinge->a[0]) < 1e-6f && fabsf(hinge->a[1]) < 1e-6f &&
               hinge->a[2] < 0 && hinge->b[2] > 0 && fabsf(hinge->a[2] + hinge->b[2]) < 1e-6f,
           "hinge is a cylinder centred on the origin along z");
    const EslDrawable *cone = find(s, ESL_DRAW_CYLINDER, ESL_SOURCE_GROUND, ja);
    tap_ok(cone && cone->a[2] < cone->b[2] && cone->b[2] < 0 && cone->radius > cone->radius2,
           "ground cone below the hinge, narrowing upwards (up = -gravity)");
    const EslDrawable *ball = find(s, ESL_DRAW_SPHERE, ESL_SOURCE_JOINT, jb);
    tap_ok(ball && near3(ball->a, 1, 0, 0), "spherical joint is a sphere at A's tip");
    const EslDrawable *coil = find(s, ESL_DRAW_HELIX, ESL_SOURCE_FORCE, spring);
    tap_ok(coil && near3(coil->a, 0, 0, -1) && near3(coil->b, 1, 0, -1) && coil->turns > 2 &&
               coil->radius > coil->radius2,
           "spring is a helix between its attachment points");
    tap_close(s->size, sqrt(2.0), 1e-6, "size is the drawn bounding box diagonal");
    tap_ok(near3(s->up, 0, 0, 1), "up is against gravity");

    /* Rotate everything 90 degrees about z: A and B move, the ground does not. */
    double poses[3 * 12] = {0};
    const double rz[9] = {0, -1, 0, 1, 0, 0, 0, 0, 1}, id[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
    memcpy(poses, id, sizeof id);
    memcpy(poses + 12, rz, sizeof rz);
    memcpy(poses + 24, rz, sizeof rz);
    double violations[2] = {0.0, 1.0};
    esl_scene_build(s, m, poses, violations, &o);
    bar_a = find(s, ESL_DRAW_CAPSULE, ESL_SOURCE_BODY, 1);
    tap_ok(bar_a && near3(bar_a->b, 0, 1, 0), "bar of A follows A's pose");
    coil = find(s, ESL_DRAW_HELIX, ESL_SOURCE_FORCE, spring);
    tap_ok(coil && near3(coil->a, 0, 0, -1) && near3(coil->b, 0, 1, -1),
           "spring end on B follows B, ground end stays");
    ball = find(s, ESL_DRAW_SPHERE, ESL_SOURCE_JOINT, jb);
    hinge = find(s, ESL_DRAW_CYLINDER, ESL_SOURCE_JOINT, ja);
    float good[4], bad[4];
    esl_scene_violation_color(0.0, o.violation_low, o.violation_high, good);
    esl_scene_violation_color(1.0, o.violation_low, o.violation_high, bad);
    tap_ok(ball && memcmp(ball->color, bad, sizeof bad) == 0,
           "violated joint drawn in the 'bad' colour");
    tap_ok(hinge && memcmp(hinge->color, good, sizeof good) == 0,
           "satisfied joint drawn in the 'good' colour");

    /* Colour scale. */
    float mid[4], nan_color[4];
    esl_scene_violation_color(sqrt(o.violation_low * o.violation_high), o.violation_low,
                              o.violation_high, mid);
    esl_scene_violation_color(NAN, o.violation_low, o.violation_high, nan_color);
    tap_ok(good[1] > good[0] && bad[0] > bad[1] && mid[0] > 0.8f && mid[1] > 0.7f,
           "scale goes green -> yellow -> red (mid %.2f %.2f %.2f)", mid[0], mid[1], mid[2]);
    tap_ok(memcmp(nan_color, bad, sizeof bad) == 0, "NaN violation shows as bad");

    /* Frames and highlight. */
    o.show_frames = 1;
    o.highlight_source = ESL_SOURCE_BODY;
    o.highlight_index = 2;
    esl_scene_build(s, m, NULL, NULL, &o);
    int frame_items = 0;
    for (int i = 0; i < s->n; i++)
        frame_items += s->items[i].source == ESL_SOURCE_FRAME;
    tap_ok(frame_items == 2 * 3 * 2, "frames: 3 arrows (shaft + head) for each of 2 bodies");
    const EslDrawable *bar_b = find(s, ESL_DRAW_CAPSULE, ESL_SOURCE_BODY, 2);
    bar_a = find(s, ESL_DRAW_CAPSULE, ESL_SOURCE_BODY, 1);
    tap_ok(bar_b && bar_a && memcmp(bar_a->color, bar_b->color, sizeof bar_a->color) != 0,
           "highlighted body drawn in another colour");

    /* Picking: a ray straight down through the middle of A's bar. */
    o.show_frames = 0;
    esl_scene_build(s, m, NULL, NULL, &o);
    float origin[3] = {0.3f, 0, 5}, down[3] = {0, 0, -1};
    int hit = esl_scene_pick(s, origin, down, 0);
    tap_ok(hit >= 0 && s->items[hit].source == ESL_SOURCE_BODY && s->items[hit].index == 1,
           "ray down at x = 0.3 picks body A");
    float miss_origin[3] = {0.3f, 2, 5};
    tap_ok(esl_scene_pick(s, miss_origin, down, 0) == -1, "ray beside the model picks nothing");
    float near_origin[3] = {0.3f, 0.05f, 5};
    tap_ok(esl_scene_pick(s, near_origin, down, 0) == -1 &&
               esl_scene_pick(s, near_origin, down, 0.05f) >= 0,
           "a ray just beside a bar picks it only with a tolerance");
    float side_origin[3] = {1, -5, -0.5f}, along_y[3] = {0, 1, 0};
    hit = esl_scene_pick(s, side_origin, along_y, 0);
    tap_ok(hit >= 0 && s->items[hit].source == ESL_SOURCE_BODY && s->items[hit].index == 2,
           "horizontal ray at z = -0.5 picks body B");

    /* Bounds of what is drawn, radii included. */
    float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    esl_scene_grow_bounds(s, lo, hi);
    tap_ok(lo[0] < 0 && hi[0] > 1 && hi[0] < 1.2f && lo[2] < -1 && hi[2] > 0,
           "bounds cover the drawables (x %.3f..%.3f, z %.3f..%.3f)", lo[0], hi[0], lo[2], hi[2]);

    /* Trail: capsules joining the points, thinner than the bars. */
    int before = s->n;
    float path[4 * 3] = {0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0};
    float grey[4] = {0.5f, 0.5f, 0.5f, 1};
    tap_ok(esl_scene_add_trail(s, path, 4, grey, 1) == 0 && s->n == before + 3,
           "a trail of 4 points adds 3 capsules");
    const EslDrawable *seg = &s->items[before + 2];
    tap_ok(seg->source == ESL_SOURCE_TRAIL && seg->index == 1 && near3(seg->a, 1, 1, 0) &&
               near3(seg->b, 0, 1, 0) && seg->radius < s->bar_radius,
           "trail segment joins consecutive points, thinner than a bar");

    esl_scene_free(s);
    mbs_model_free(m);
    return tap_done();
}
