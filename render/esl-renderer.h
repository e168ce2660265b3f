/* EslRenderer: draws an EslScene with OpenGL 3.3 core (libepoxy, cglm). Knows nothing of GTK.
 *
 * Every call needs the GL context that was current at esl_renderer_new(). GL objects (shaders,
 * meshes, buffers) are created in esl_renderer_new(); drawing only updates buffer contents.
 * Offscreen rendering (esl_renderer_set_offscreen_size + esl_renderer_read_offscreen) draws into
 * a multisampled framebuffer and reads RGBA pixels back, for headless PNG output and tests.
 *
 * esl_gl_headless_context_new() makes a window-less context with EGL (Mesa surfaceless
 * platform, llvmpipe works) for the command line.
 */
#ifndef ESL_RENDERER_H
#define ESL_RENDERER_H

#include <glib.h>

#include "esl-scene.h"

G_BEGIN_DECLS

#define ESL_RENDERER_ERROR (esl_renderer_error_quark())
GQuark esl_renderer_error_quark(void);

/* Orbit camera around a target; yaw/pitch in radians relative to the scene's up vector. */
typedef struct {
    float target[3];
    float distance;
    float yaw, pitch;
    float fov;  /* vertical field of view, radians */
    float up[3];
} EslCamera;

typedef enum {
    ESL_VIEW_ISOMETRIC,
    ESL_VIEW_FRONT,
    ESL_VIEW_SIDE,
    ESL_VIEW_TOP,
} EslStandardView;

/* Frame the whole scene, keeping the camera's direction. */
void esl_camera_fit(EslCamera *c, const EslScene *scene);
/* Frame the box [lo, hi] in a viewport of this aspect ratio (width / height), keeping the
 * camera's direction: the target at the box's centre, the distance the smallest (plus a margin)
 * at which every corner is inside both the vertical and the horizontal field of view. */
void esl_camera_fit_box(EslCamera *c, const float lo[3], const float hi[3], float aspect);
/* Pixel (origin top-left) of point p in a width x height viewport; FALSE behind the eye. */
gboolean esl_camera_project(const EslCamera *c, int width, int height, const float p[3],
                            float px[2]);
void esl_camera_set_view(EslCamera *c, EslStandardView view, const EslScene *scene);
/* Follow camera: keep the direction and distance and look at point p (a body's centre of mass,
 * esl_scene_body_center), which then stays at the centre of the picture. */
void esl_camera_follow(EslCamera *c, const float p[3]);
void esl_camera_orbit(EslCamera *c, float dyaw, float dpitch);
/* Move the target in the view plane by (dx, dy) fractions of the viewport height. */
void esl_camera_pan(EslCamera *c, float dx, float dy);
void esl_camera_zoom(EslCamera *c, float factor);
void esl_camera_eye(const EslCamera *c, float eye[3]);
/* Ray through pixel (x, y) (origin top-left) of a width x height viewport. */
void esl_camera_ray(const EslCamera *c, int width, int height, float x, float y, float origin[3],
                    float dir[3]);

typedef struct EslRenderer EslRenderer;

EslRenderer *esl_renderer_new(GError **error);
void esl_renderer_free(EslRenderer *r);

void esl_renderer_set_show_grid(EslRenderer *r, gboolean show);

/* Draw into the currently bound framebuffer (viewport width x height). */
void esl_renderer_draw(EslRenderer *r, const EslScene *scene, const EslCamera *camera, int width,
                       int height);

/* What the last esl_renderer_draw sent to OpenGL. */
typedef struct {
    int instances[3]; /* frustums and spheres drawn at each level of detail, finest first */
    long triangles;   /* of frustums and spheres */
} EslRenderStats;
void esl_renderer_get_stats(const EslRenderer *r, EslRenderStats *stats);

/* (Re)create the offscreen framebuffer. */
gboolean esl_renderer_set_offscreen_size(EslRenderer *r, int width, int height, GError **error);
/* Draw offscreen and read back width*height*4 bytes of RGBA, top row first. */
gboolean esl_renderer_render_offscreen(EslRenderer *r, const EslScene *scene,
                                       const EslCamera *camera, guint8 *rgba, GError **error);

/* A current OpenGL 3.3 core context without any window (EGL). */
typedef struct EslGlHeadless EslGlHeadless;
EslGlHeadless *esl_gl_headless_new(GError **error);
void esl_gl_headless_free(EslGlHeadless *ctx);
/* GL_RENDERER string of the current context. */
const char *esl_gl_renderer_name(void);

G_END_DECLS

#endif
