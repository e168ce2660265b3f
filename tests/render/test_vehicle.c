/* Vehicles in the 3D view (render/esl-scene-vehicle.c, issues 24 and 26): the road surface is
 * the engine's road (every vertex's height is mbs_road_eval's, the `tyre` element's own bump
 * included) with a checker fixed to the ground; tyres are drawn with their radius at their
 * centres and their bodies are not drawn as bars; the chassis is the box of its inertia; the
 * vehicle is inside the picture of the initial camera; the follow camera keeps the chassis at
 * the centre over a 3 s run of vehicle-simple (at 10 m/s: a fixed camera loses it); lane-change
 * cones stand on the road; the truck's tractor and semi-trailer are two boxes and its slalom's
 * gates have their cones. Headless OpenGL (EGL) for the pixels. */
#include <float.h>
#include <math.h>
#include <string.h>

#include "esl-model-file.h"
#include "esl-renderer.h"
#include "esl-scene.h"
#include "mbs_formulation.h"
#include "mbs_path.h"
#include "mbs_road.h"
#include "mbs_run.h"
#include "mbs_wheel.h"
#include "tap.h"

#define WIDTH 640
#define HEIGHT 400

static MbsModel *load(const char *name)
{
    g_autofree char *path = g_build_filename(ESLABON_SOURCE_DIR, "models", name, NULL);
    g_autoptr(GError) error = NULL;
    MbsModel *m = esl_model_load_file(path, NULL, 0, &error);
    if (!m)
        tap_ok(FALSE, "%s loads: %s", name, error->message);
    return m;
}

static int find_body(const MbsModel *m, const char *name)
{
    for (int b = 0; b < m->nbodies; b++)
        if (strcmp(m->bodies[b].name, name) == 0)
            return b;
    return -1;
}

/* The surface triangle whose xy projection holds (x, y), or -1. */
static int triangle_at(const EslScene *s, double x, double y)
{
    for (int t = 0; t + 2 < s->n_surface; t += 3) {
        const float *p[3] = {s->surface[t].position, s->surface[t + 1].position,
                             s->surface[t + 2].position};
        double d[3];
        for (int k = 0; k < 3; k++) {
            const float *a = p[k], *b = p[(k + 1) % 3];
            d[k] = (b[0] - a[0]) * (y - a[1]) - (b[1] - a[1]) * (x - a[0]);
        }
        if ((d[0] >= 0 && d[1] >= 0 && d[2] >= 0) || (d[0] <= 0 && d[1] <= 0 && d[2] <= 0))
            return t;
    }
    return -1;
}

/* Largest |vertex height - mbs_road_eval| over the surface, less what the vertices' rounding
 * to float explains (the slope times a float's spacing at x: a bump's flanks are steep). */
static double road_error(const EslScene *s, const MbsRoad *road)
{
    double worst = 0;
    for (int i = 0; i < s->n_surface; i++) {
        const float *x = s->surface[i].position;
        MbsRoadPoint p;
        mbs_road_eval(road, x[0], x[1], &p);
        double rounding = (fabs(p.gradient[0]) + 1.0) * 4.0 * FLT_EPSILON * (fabs(x[0]) + 1.0);
        worst = fmax(worst, fabs(x[2] - p.height) - rounding);
    }
    return fmax(worst, 0.0);
}

static const EslDrawable *largest_cylinder_of(const EslScene *s, int force)
{
    const EslDrawable *best = NULL;
    for (int i = 0; i < s->n; i++) {
        const EslDrawable *d = &s->items[i];
        if (d->kind == ESL_DRAW_CYLINDER && d->source == ESL_SOURCE_FORCE && d->index == force &&
            (!best || d->radius > best->radius))
            best = d;
    }
    return best;
}

static void check_scene_vehicle_simple(const MbsModel *m)
{
    EslScene *s = esl_scene_new();
    /* the vehicle moved 10 m along x (the road follows it: the step at 12 m is in reach) */
    g_autofree double *poses = g_new0(double, 12 * (size_t)m->nbodies);
    for (int b = 0; b < m->nbodies; b++) {
        poses[12 * b] = poses[12 * b + 4] = poses[12 * b + 8] = 1.0;
        poses[12 * b + 9] = m->bodies[b].is_ground ? 0.0 : 10.0;
    }
    int built = esl_scene_build(s, m, poses, NULL, NULL);
    tap_ok(built == 0 && s->n_surface > 0 &&
               s->n_surface % 3 == 0,
           "vehicle-simple: the road is drawn as %d triangles", s->n_surface / 3);
    tap_ok(road_error(s, m->road) < 1e-6, "every road vertex is at mbs_road_eval's height "
           "(largest difference %.2g m)", road_error(s, m->road));
    /* under the front-left wheel, and one checker square (1 m) further: two colours; inside
     * the step at x = 12 m (a ramp 0.5 m long): the features' tint */
    int wheel = -1;
    for (int i = 0; i < m->nforces && wheel < 0; i++)
        if (m->forces[i].type == MBS_FORCE_WHEEL)
            wheel = i;
    double wx = m->forces[wheel].point1[0] + 10.0, wy = m->forces[wheel].point1[1];
    int under = triangle_at(s, wx, wy), next = triangle_at(s, wx + 1.0, wy);
    int step = triangle_at(s, 12.25, wy);
    tap_ok(under >= 0 && next >= 0 && step >= 0, "road triangles under the wheel (%.2f, %.2f), "
           "1 m ahead of it and on the step", wx, wy);
    if (under >= 0 && next >= 0 && step >= 0) {
        const float *cu = s->surface[under].color, *cn = s->surface[next].color,
                    *cs = s->surface[step].color;
        tap_ok(fabsf(cu[0] - cn[0]) > 0.05f && fabsf(cu[0] - cu[2]) < 0.1f,
               "the checker alternates under the wheel (grey %.2f) and 1 m ahead (%.2f)", cu[0],
               cn[0]);
        tap_ok(cs[0] - cs[2] > 0.3f, "the step is tinted (rgb %.2f %.2f %.2f)", cs[0], cs[1],
               cs[2]);
        MbsRoadPoint p;
        mbs_road_eval(m->road, 13.0, wy, &p);
        tap_ok(fabs(p.height + 0.03) < 1e-12 && fabs(s->surface[triangle_at(s, 13.0, wy)]
                                                           .position[2] + 0.03f) < 1e-6f,
               "beyond the step the road is 3 cm lower, as drawn");
    }
    /* tyres: radius 0.3 m at the wheel centres; their bodies are not drawn as bars */
    int tyres = 0, bars_of_wheels = 0;
    for (int i = 0; i < m->nforces; i++) {
        if (m->forces[i].type != MBS_FORCE_WHEEL)
            continue;
        const EslDrawable *d = largest_cylinder_of(s, i);
        float c[3];
        for (int k = 0; k < 3; k++)
            c[k] = 0.5f * (d->a[k] + d->b[k]);
        tyres += d && fabsf(d->radius - 0.3f) < 1e-6f &&
                 fabsf(c[0] - (float)m->forces[i].point1[0] - 10.0f) < 1e-5f &&
                 fabsf(c[2] - (float)m->forces[i].point1[2]) < 1e-5f &&
                 fabsf(fabsf(d->b[1] - d->a[1]) - 0.15f) < 1e-5f; /* width 0.5 R along y */
        for (int k = 0; k < s->n; k++)
            bars_of_wheels += s->items[k].source == ESL_SOURCE_BODY &&
                              s->items[k].index == m->forces[i].body1;
    }
    tap_ok(tyres == 4, "4 tyres of radius 0.3 m and width 0.15 m about y at the wheel centres");
    tap_ok(bars_of_wheels == 0, "the wheel bodies are not drawn as bars");
    int chassis = find_body(m, "chassis"), boxes = 0;
    for (int k = 0; k < s->n; k++)
        if (s->items[k].kind == ESL_DRAW_BOX && s->items[k].index == chassis) {
            boxes++;
            float dx = s->items[k].b[0] - s->items[k].a[0];
            tap_ok(fabsf(dx - 3.6f) < 1e-4f && s->items[k].radius <= 0.8f + 1e-6f &&
                       s->items[k].radius2 <= 0.25f + 1e-6f,
                   "the chassis is a box 3.6 m long (%.4f), at most 1.6 m wide (%.3f) and "
                   "0.5 m high (%.3f): its inertia's", dx, 2 * s->items[k].radius,
                   2 * s->items[k].radius2);
        }
    tap_ok(boxes == 1 && esl_scene_vehicle_body(m) == chassis,
           "one box, for the heaviest body (the chassis)");
    esl_scene_free(s);
}

/* The HMMWV's `tyre` elements: drawn as tyres of radius tyre_radius, on their own road (a plane
 * at 0 with a half-cylinder of 5 cm at x_bump) drawn through the same road evaluation. */
static void check_scene_hmmwv(const MbsModel *m)
{
    EslScene *s = esl_scene_new();
    esl_scene_build(s, m, NULL, NULL, NULL);
    int tyres = 0, tyre = -1;
    for (int i = 0; i < m->nforces; i++)
        if (m->forces[i].type == MBS_FORCE_TYRE) {
            const EslDrawable *d = largest_cylinder_of(s, i);
            tyres += d && fabsf(d->radius - (float)m->forces[i].natural_length) < 1e-6f;
            tyre = i;
        }
    tap_ok(tyres == 4, "hmmwv: its 4 `tyre` elements are drawn as tyres of radius %.4f m",
           tyre >= 0 ? m->forces[tyre].natural_length : 0.0);
    MbsRoad *road = mbs_force_tyre_road(&m->forces[tyre]);
    double top = -1;
    for (int i = 0; i < s->n_surface; i++)
        top = fmax(top, s->surface[i].position[2]);
    tap_ok(road && s->n_surface > 0 && road_error(s, road) < 1e-6 &&
               fabs(top - m->forces[tyre].bump[1]) < 1e-6,
           "its road is the tyres' own: every vertex at the road's height, the bump's top at "
           "%.4f m (radius %.4f m)", top, m->forces[tyre].bump[1]);
    mbs_road_free(road);
    esl_scene_free(s);
}

static float luminance(const guint8 *rgba, int x, int y)
{
    const guint8 *p = rgba + 4 * ((size_t)y * WIDTH + (size_t)x);
    return (0.2126f * p[0] + 0.7152f * p[1] + 0.0722f * p[2]) / 255.0f;
}

static const guint8 *pixel(const guint8 *rgba, const float px[2])
{
    int x = (int)lroundf(px[0]), y = (int)lroundf(px[1]);
    x = x < 0 ? 0 : x >= WIDTH ? WIDTH - 1 : x;
    y = y < 0 ? 0 : y >= HEIGHT ? HEIGHT - 1 : y;
    return rgba + 4 * ((size_t)y * WIDTH + (size_t)x);
}

static gboolean inside(const float px[2], float margin)
{
    return px[0] >= margin && px[0] <= WIDTH - margin && px[1] >= margin &&
           px[1] <= HEIGHT - margin;
}

/* Poses of every body at time t (the run advanced to it). */
static void poses_at(MbsFormulation *f, MbsRun *run, const MbsModel *m, double t, double *poses)
{
    mbs_run_advance(run, t + 0.5 * f->settings.step);
    for (int b = 0; b < m->nbodies; b++)
        mbs_formulation_body_pose(f, b, poses + 12 * b, poses + 12 * b + 9);
}

static void check_pictures(const MbsModel *m, EslRenderer *r)
{
    EslScene *s = esl_scene_new();
    g_autofree guint8 *rgba = g_malloc(WIDTH * HEIGHT * 4);
    esl_scene_build(s, m, NULL, NULL, NULL);
    EslCamera camera = {0};
    esl_camera_set_view(&camera, ESL_VIEW_ISOMETRIC, s);
    tap_ok(esl_renderer_render_offscreen(r, s, &camera, rgba, NULL), "vehicle-simple rendered");
    /* the whole vehicle is in the picture: the chassis's centre and every tyre's outer edge */
    int chassis = find_body(m, "chassis");
    float c[3], px[2];
    esl_scene_body_center(m, NULL, chassis, c);
    int in = esl_camera_project(&camera, WIDTH, HEIGHT, c, px) && inside(px, 20);
    for (int i = 0; i < m->nforces; i++)
        if (m->forces[i].type == MBS_FORCE_WHEEL)
            for (int side = -1; side <= 1; side += 2) {
                float edge[3] = {(float)m->forces[i].point1[0] + side * 0.3f,
                                 (float)m->forces[i].point1[1],
                                 (float)m->forces[i].point1[2]};
                float q[2];
                in = in && esl_camera_project(&camera, WIDTH, HEIGHT, edge, q) && inside(q, 5);
            }
    tap_ok(in, "the initial camera frames the vehicle: chassis at (%.0f, %.0f) px and every "
           "tyre inside the %dx%d picture", px[0], px[1], WIDTH, HEIGHT);
    const guint8 *body = pixel(rgba, px);
    tap_ok(body[2] > body[0] + 40, "the chassis's box is drawn there (rgb %d %d %d)", body[0],
           body[1], body[2]);
    /* the tyre nearest the eye: dark rubber just inside its edge, above the centre */
    float eye[3];
    esl_camera_eye(&camera, eye);
    int nearest = -1;
    double best = INFINITY;
    for (int i = 0; i < m->nforces; i++)
        if (m->forces[i].type == MBS_FORCE_WHEEL) {
            double d = 0;
            for (int k = 0; k < 3; k++)
                d += pow(m->forces[i].point1[k] - eye[k], 2);
            if (d < best)
                best = d, nearest = i;
        }
    const double *w = m->forces[nearest].point1;
    float rubber[3] = {(float)w[0], (float)(w[1] + (w[1] < eye[1] ? 0.076 : -0.076)),
                       (float)w[2] + 0.82f * 0.3f};
    float rp[2];
    esl_camera_project(&camera, WIDTH, HEIGHT, rubber, rp);
    float dark = luminance(rgba, (int)lroundf(rp[0]), (int)lroundf(rp[1]));
    tap_ok(dark < 0.25f, "the tyre's rubber is where the wheel is (luminance %.2f at %.0f, %.0f)",
           dark, rp[0], rp[1]);
    /* the road 3 m behind the wheel: grey, not the background */
    float road[3] = {(float)w[0] - 3.0f, (float)w[1], 0.0f}, gp[2];
    esl_camera_project(&camera, WIDTH, HEIGHT, road, gp);
    const guint8 *g = pixel(rgba, gp);
    tap_ok(inside(gp, 0) && g[0] < 200 && g[0] > 60 && abs(g[0] - g[2]) < 25,
           "the road shows behind the vehicle (rgb %d %d %d)", g[0], g[1], g[2]);

    /* a 3 s run at 10 m/s: the follow camera keeps the chassis at the centre, a fixed one not */
    MbsSettings settings;
    mbs_settings_defaults(&settings);
    settings.duration = 3.0;
    MbsError err = {0};
    MbsFormulation *f = mbs_formulation_new("penalty", m, &settings, &err);
    MbsRun *run = f ? mbs_run_new(f, NULL, NULL, &err) : NULL;
    if (!tap_ok(run != NULL, "vehicle-simple runs with penalty %s", err.message))
        return;
    g_autofree double *poses = g_new0(double, 12 * (size_t)m->nbodies);
    EslCamera fixed = camera, follow = camera;
    double worst = 0, fixed_off = 0, travelled = 0;
    int centre_blue = 0, frames = 0;
    for (double t = 0.5; t <= 3.0 + 1e-9; t += 0.5) {
        poses_at(f, run, m, t, poses);
        esl_scene_build(s, m, poses, NULL, NULL);
        esl_scene_body_center(m, poses, chassis, c);
        travelled = c[0];
        esl_camera_follow(&follow, c);
        float at[2];
        if (esl_camera_project(&follow, WIDTH, HEIGHT, c, at))
            worst = fmax(worst, hypot(at[0] - 0.5 * WIDTH, at[1] - 0.5 * HEIGHT));
        else
            worst = INFINITY;
        if (esl_camera_project(&fixed, WIDTH, HEIGHT, c, at))
            fixed_off = fmax(fixed_off, hypot(at[0] - 0.5 * WIDTH, at[1] - 0.5 * HEIGHT));
        esl_renderer_render_offscreen(r, s, &follow, rgba, NULL);
        const float middle[2] = {0.5f * WIDTH, 0.5f * HEIGHT};
        const guint8 *p = pixel(rgba, middle);
        centre_blue += p[2] > p[0] + 40;
        frames++;
    }
    tap_ok(travelled > 20.0, "the vehicle drove %.1f m in 3 s", travelled);
    tap_ok(worst < 1.0, "the follow camera keeps the chassis within %.2f px of the centre",
           worst);
    tap_ok(centre_blue == frames, "and the picture's centre shows the chassis in %d of %d "
           "frames", centre_blue, frames);
    tap_ok(fixed_off > 100.0, "a fixed camera sees it %.0f px away from the centre", fixed_off);
    mbs_run_free(run);
    mbs_formulation_free(f);

    /* lane-change cones from a synthetic path: on the road (3 cm lower past the step) */
    esl_scene_build(s, m, NULL, NULL, NULL);
    const double cones[] = {2.5, -1.6, 2.5, 1.6, -2.5, -1.6, -2.5, 1.6, 14.0, 0.0};
    int before = s->n;
    tap_ok(esl_scene_add_cones(s, m, cones, 5) == 0 && s->n == before + 10,
           "5 cones: a cone and a band each");
    int on_road = 0;
    for (int i = before; i < s->n; i++) {
        const EslDrawable *d = &s->items[i];
        MbsRoadPoint p;
        mbs_road_eval(m->road, cones[2 * d->index], cones[2 * d->index + 1], &p);
        on_road += d->source == ESL_SOURCE_CONE && (i - before) % 2 == 0 &&
                   fabsf(d->a[2] - (float)p.height) < 1e-6f &&
                   fabsf(d->a[0] - (float)cones[2 * d->index]) < 1e-6f;
    }
    tap_ok(on_road == 5, "each cone stands on the road at its (x, y) (the last one 3 cm lower)");
    float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    esl_scene_grow_bounds(s, lo, hi); /* Fit View: the cones are in the picture */
    esl_camera_fit_box(&camera, lo, hi, (float)WIDTH / HEIGHT);
    esl_renderer_render_offscreen(r, s, &camera, rgba, NULL);
    float mid[3] = {2.5f, -1.6f, 0.15f}, mp[2];
    esl_camera_project(&camera, WIDTH, HEIGHT, mid, mp);
    const guint8 *o = pixel(rgba, mp);
    tap_ok(inside(mp, 0) && o[0] > 1.6 * o[1] && o[1] > 1.5 * o[2] && o[0] > 100,
           "the cone at (2.5, -1.6) is orange in the picture at (%.0f, %.0f) (rgb %d %d %d)",
           mp[0], mp[1], o[0], o[1], o[2]);
    esl_scene_free(s);
}

/* A model with a path (the HMMWV's ISO 3888-1 lane change): the scene stands the path's cones
 * (mbs_path_cones, an independent list) where the path puts them, on the road. */
static void check_scene_lane_change(const MbsModel *m)
{
    double xy[2 * 64];
    int n = m->path ? mbs_path_cones(m->path, xy, 64) : 0;
    EslScene *s = esl_scene_new();
    esl_scene_build(s, m, NULL, NULL, NULL);
    int found = 0;
    for (int i = 0; i < s->n; i++) {
        const EslDrawable *d = &s->items[i];
        if (d->source != ESL_SOURCE_CONE || d->index < 0 || d->index >= n)
            continue;
        found += fabsf(d->a[0] - (float)xy[2 * d->index]) < 1e-4f &&
                 fabsf(d->a[1] - (float)xy[2 * d->index + 1]) < 1e-4f;
    }
    tap_ok(n >= 18 && found == 2 * n,
           "hmmwv-lane-change: %d of the path's %d cones drawn at their (x, y), each with its band",
           found / 2, n);
    esl_scene_free(s);
}

/* truck-slalom: the semi-trailer (heaviest) and the tractor (a sixth of its mass, no tyre) are
 * boxes, nothing else is; the slalom's 3 gates stand 6 cones on the road. */
static void check_scene_truck(const MbsModel *m)
{
    EslScene *s = esl_scene_new();
    esl_scene_build(s, m, NULL, NULL, NULL);
    double xy[2 * 64];
    int n = m->path ? mbs_path_cones(m->path, xy, 64) : 0;
    int trailer = find_body(m, "trailer"), tractor = find_body(m, "tractor");
    int boxes = 0, right = 0, cones = 0;
    for (int k = 0; k < s->n; k++) {
        const EslDrawable *d = &s->items[k];
        if (d->kind == ESL_DRAW_BOX && d->source == ESL_SOURCE_BODY) {
            boxes++;
            right += d->index == trailer || d->index == tractor;
        }
        cones += d->source == ESL_SOURCE_CONE && d->index >= 0 && d->index < n &&
                 fabsf(d->a[0] - (float)xy[2 * d->index]) < 1e-4f &&
                 fabsf(d->a[1] - (float)xy[2 * d->index + 1]) < 1e-4f;
    }
    tap_ok(boxes == 2 && right == 2 && esl_scene_vehicle_body(m) == trailer,
           "truck-slalom: the semi-trailer and the tractor are the two boxes (%d boxes)", boxes);
    tap_ok(n == 6 && cones == 2 * n,
           "truck-slalom: the slalom's %d cones drawn at their (x, y), each with its band",
           cones / 2);
    esl_scene_free(s);
}

int main(void)
{
    MbsModel *simple = load("vehicle-simple.json"), *hmmwv = load("hmmwv.json");
    if (!simple || !hmmwv)
        return tap_done();
    check_scene_vehicle_simple(simple);
    check_scene_hmmwv(hmmwv);
    MbsModel *lane_change = load("hmmwv-lane-change.json");
    if (lane_change)
        check_scene_lane_change(lane_change);
    mbs_model_free(lane_change);
    MbsModel *truck = load("truck-slalom.json");
    if (truck)
        check_scene_truck(truck);
    mbs_model_free(truck);
    g_autoptr(GError) error = NULL;
    EslGlHeadless *gl = esl_gl_headless_new(&error);
    EslRenderer *r = gl ? esl_renderer_new(&error) : NULL;
    if (tap_ok(r && esl_renderer_set_offscreen_size(r, WIDTH, HEIGHT, &error),
               "headless OpenGL %s", error ? error->message : ""))
        check_pictures(simple, r);
    esl_renderer_free(r);
    esl_gl_headless_free(gl);
    mbs_model_free(simple);
    mbs_model_free(hmmwv);
    return tap_done();
}
