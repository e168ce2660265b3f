/* Renderer levels of detail: each sphere and frustum is drawn with the coarsest mesh whose
 * faceting stays under half a pixel at its size on screen, so a lattice seen whole costs a
 * fraction of the triangles while a close-up keeps the finest mesh. Headless OpenGL (EGL). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "esl-renderer.h"
#include "tap.h"

#define WIDTH 800
#define HEIGHT 500

/* Triangles of one frustum (sides and caps) and one sphere for n segments around. */
static long frustum_triangles(int n) { return 4L * n; }
static long sphere_triangles(int n) { return (long)n * n; }

static EslDrawable sphere_at(float x, float radius)
{
    return (EslDrawable){.kind = ESL_DRAW_SPHERE, .a = {x, 0, 0}, .b = {x, 0, 0},
                         .radius = radius, .radius2 = radius, .color = {0.5f, 0.5f, 0.5f, 1}};
}

static void add(EslScene *s, EslDrawable d)
{
    if (s->n == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 64;
        s->items = realloc(s->items, sizeof(EslDrawable) * (size_t)s->cap);
    }
    s->items[s->n++] = d;
}

/* Level at which the renderer draws one sphere of on-screen radius radius_px. */
static int level_for_radius(EslRenderer *r, EslScene *s, EslCamera *cam, double radius_px)
{
    /* pixels per unit length at distance d: HEIGHT / (2 tan(fov/2) d) */
    double ppu = HEIGHT / (2.0 * tan(cam->fov / 2.0));
    s->n = 0;
    add(s, sphere_at(0, (float)(radius_px * cam->distance / ppu)));
    g_autofree guint8 *pixels = g_malloc(WIDTH * HEIGHT * 4);
    g_autoptr(GError) error = NULL;
    if (!esl_renderer_render_offscreen(r, s, cam, pixels, &error))
        return -1;
    EslRenderStats st;
    esl_renderer_get_stats(r, &st);
    for (int l = 0; l < 3; l++)
        if (st.instances[l] == 1)
            return l;
    return -1;
}

int main(void)
{
    g_autoptr(GError) error = NULL;
    EslGlHeadless *gl = esl_gl_headless_new(&error);
    if (!tap_ok(gl != NULL, "headless OpenGL context: %s", gl ? "yes" : error->message))
        return tap_done();
    EslRenderer *r = esl_renderer_new(&error);
    tap_ok(r != NULL, "renderer created");
    if (!r || !esl_renderer_set_offscreen_size(r, WIDTH, HEIGHT, &error))
        return tap_done();
    esl_renderer_set_show_grid(r, FALSE);
    EslScene *s = esl_scene_new();
    s->radius = 1;
    s->up[2] = 1;
    EslCamera cam = {.target = {0, 0, 0}, .distance = 3, .fov = (float)(G_PI / 4),
                     .up = {0, 0, 1}};

    /* 28, 14 and 8 segments keep the faceting r (1 - cos(pi/n)) under half a pixel up to an
     * on-screen radius of 79.6, 19.9 and 6.6 pixels */
    tap_ok(level_for_radius(r, s, &cam, 3.0) == 2, "a sphere of 3 px radius on screen: the coarsest level");
    tap_ok(level_for_radius(r, s, &cam, 6.0) == 2, "6 px: still the coarsest (8 segments)");
    tap_ok(level_for_radius(r, s, &cam, 7.5) == 1, "7.5 px: the middle level (14 segments)");
    tap_ok(level_for_radius(r, s, &cam, 19.0) == 1, "19 px: the middle level");
    tap_ok(level_for_radius(r, s, &cam, 21.0) == 0, "21 px: the finest level (28 segments)");
    tap_ok(level_for_radius(r, s, &cam, 200.0) == 0, "200 px: the finest level");

    /* A lattice like multi-four-bar-7x15 seen whole: 15 x 15 bars 0.2 m long, radius 1 cm. */
    s->n = 0;
    for (int i = 0; i < 15; i++)
        for (int j = 0; j < 15; j++) {
            EslDrawable d = {.kind = ESL_DRAW_CAPSULE, .radius = 0.01f, .radius2 = 0.01f,
                             .color = {0.4f, 0.5f, 0.8f, 1}};
            d.a[0] = d.b[0] = 0.2f * i - 1.4f;
            d.a[2] = 0.2f * j - 1.4f;
            d.b[2] = d.a[2] + 0.2f;
            add(s, d);
        }
    s->radius = 2.0f;
    esl_camera_set_view(&cam, ESL_VIEW_ISOMETRIC, s);
    g_autofree guint8 *pixels = g_malloc(WIDTH * HEIGHT * 4);
    tap_ok(esl_renderer_render_offscreen(r, s, &cam, pixels, &error), "lattice rendered");
    EslRenderStats st;
    esl_renderer_get_stats(r, &st);
    long finest = 225 * (frustum_triangles(28) + 2 * sphere_triangles(28));
    tap_ok(st.instances[0] + st.instances[1] + st.instances[2] == 3 * 225,
           "every bar drawn: %d + %d + %d instances", st.instances[0], st.instances[1],
           st.instances[2]);
    tap_ok(st.triangles < finest / 8, "seen whole: %ld triangles, %.1f %% of the finest mesh's",
           st.triangles, 100.0 * st.triangles / finest);

    /* Close-up of one corner: the nearest bars at the finest level, the far ones coarser. */
    cam.distance = 0.08f;
    memcpy(cam.target, s->items[0].a, sizeof cam.target);
    tap_ok(esl_renderer_render_offscreen(r, s, &cam, pixels, &error), "close-up rendered");
    esl_renderer_get_stats(r, &st);
    tap_ok(st.instances[0] >= 3 && st.instances[2] > 0,
           "close-up: %d instances finest, %d middle, %d coarsest", st.instances[0],
           st.instances[1], st.instances[2]);

    esl_scene_free(s);
    esl_renderer_free(r);
    esl_gl_headless_free(gl);
    return tap_done();
}
