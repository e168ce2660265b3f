/* The frame loop of a video export: see esl-video-export.h. */
#include "esl-video-export.h"

#include <math.h>

#include "esl-scene.h"
#ifdef ESLABON_HAVE_VIDEO
#include "esl-video.h"
#endif

struct EslVideoExport {
    const MbsModel *m;
    EslRenderer *renderer;
    EslVideoExportOptions o;
    EslPosesAt poses_at;
    gpointer data;
#ifdef ESLABON_HAVE_VIDEO
    EslVideo *video;
#endif
    EslScene *scene;
    EslSceneOptions scene_options;
    EslCamera camera;
    gboolean given_camera; /* options->camera was given: not framed from the view */
    double *poses, *violations;
    guint8 *pixels;
    long n, k;
};

void esl_camera_aim(EslCamera *camera, const MbsModel *m, const double *poses, int body)
{
    if (body < 0)
        return;
    float c[3];
    esl_scene_body_center(m, poses, body, c);
    esl_camera_follow(camera, c);
}

gboolean esl_video_export_supported(void)
{
#ifdef ESLABON_HAVE_VIDEO
    return TRUE;
#else
    return FALSE;
#endif
}

static void export_free(EslVideoExport *x)
{
    if (x->scene)
        esl_scene_free(x->scene);
    g_free(x->poses);
    g_free(x->violations);
    g_free(x->pixels);
    g_free(x);
}

EslVideoExport *esl_video_export_new(const MbsModel *m, EslRenderer *renderer,
                                     const EslVideoExportOptions *o, EslPosesAt poses_at,
                                     gpointer data, GError **error)
{
#ifdef ESLABON_HAVE_VIDEO
    if (!(o->speed > 0) || !isfinite(o->speed) || o->fps < 1 || o->fps > 240 ||
        !(o->duration > 0) || !isfinite(o->duration) || !isfinite(o->start)) {
        g_set_error(error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                    "a video needs 1 to 240 frames per second, a speed > 0 and a duration > 0 "
                    "(got %d, %g, %g s)", o->fps, o->speed, o->duration);
        return NULL;
    }
    if (!esl_renderer_set_offscreen_size(renderer, o->width, o->height, error))
        return NULL;
    EslVideo *video = esl_video_new(o->path, o->width, o->height, o->fps, error);
    if (!video)
        return NULL;
    EslVideoExport *x = g_new0(EslVideoExport, 1);
    x->m = m;
    x->renderer = renderer;
    x->o = *o;
    x->given_camera = o->camera != NULL;
    if (o->camera)
        x->camera = *o->camera;
    x->o.camera = NULL; /* not kept: the copy above is */
    x->poses_at = poses_at;
    x->data = data;
    x->video = video;
    x->scene = esl_scene_new();
    esl_scene_options_defaults(&x->scene_options);
    x->scene_options.show_frames = o->show_frames;
    x->poses = g_new0(double, (gsize)m->nbodies * 12);
    x->violations = g_new0(double, (gsize)MAX(m->njoints, 1));
    x->pixels = g_malloc((gsize)o->width * o->height * 4);
    x->n = MAX(1, (long)floor(o->duration * o->fps / o->speed + 1e-9));
    return x;
#else
    (void)m, (void)renderer, (void)poses_at, (void)data;
    g_set_error(error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                "%s: this build has no video export (FFmpeg's libavcodec, libavformat and "
                "libswscale were not found)", o->path);
    return NULL;
#endif
}

long esl_video_export_n_frames(const EslVideoExport *x)
{
    return x->n;
}

long esl_video_export_done(const EslVideoExport *x)
{
    return x->k;
}

double esl_video_export_next_time(const EslVideoExport *x)
{
    return x->o.start + (double)x->k * x->o.speed / x->o.fps;
}

gboolean esl_video_export_step(EslVideoExport *x, GError **error)
{
#ifdef ESLABON_HAVE_VIDEO
    if (x->k >= x->n)
        return TRUE;
    if (!x->poses_at(x->data, esl_video_export_next_time(x), x->poses, x->violations, error))
        return FALSE;
    esl_scene_build(x->scene, x->m, x->poses, x->violations, &x->scene_options);
    if (x->k == 0 && !x->given_camera)
        esl_camera_set_view(&x->camera, x->o.view, x->scene);
    esl_camera_aim(&x->camera, x->m, x->poses, x->o.follow);
    if (!esl_renderer_render_offscreen(x->renderer, x->scene, &x->camera, x->pixels, error) ||
        !esl_video_add_frame(x->video, x->pixels, error))
        return FALSE;
    x->k++;
    return TRUE;
#else
    (void)x;
    g_set_error_literal(error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED, "no video export");
    return FALSE;
#endif
}

gboolean esl_video_export_finish(EslVideoExport *x, GError **error)
{
#ifdef ESLABON_HAVE_VIDEO
    gboolean ok = esl_video_finish(g_steal_pointer(&x->video), error);
    export_free(x);
    return ok;
#else
    export_free(x);
    g_set_error_literal(error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED, "no video export");
    return FALSE;
#endif
}

void esl_video_export_abort(EslVideoExport *x)
{
    if (!x)
        return;
#ifdef ESLABON_HAVE_VIDEO
    esl_video_abort(x->video);
#endif
    export_free(x);
}
