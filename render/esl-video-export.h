/* A video of a motion (the frame loop of `eslabon-cli render --video` and of the window's
 * File ▸ Export Video…): frames at times start + k speed / fps, k = 0 .. n - 1 with
 * n = duration fps / speed (the video lasts duration / speed seconds), each drawn as
 * `render --time` draws that instant, with the camera of the first frame (or following a body),
 * rendered offscreen and encoded (esl-video.h). One frame per esl_video_export_step, so a caller
 * shows progress and cancels between frames (the CLI on Ctrl+C, the window from an idle). */
#ifndef ESL_VIDEO_EXPORT_H
#define ESL_VIDEO_EXPORT_H

#include <gio/gio.h>

#include "esl-renderer.h"
#include "mbs_model.h"

G_BEGIN_DECLS

/* Poses (nbodies * 12: R row-major, p) and joint violations of the motion at time t; FALSE with
 * error when it has none (a simulation that failed). */
typedef gboolean (*EslPosesAt)(gpointer data, double t, double *poses, double *violations,
                               GError **error);

typedef struct {
    const char *path; /* .mp4 or .webm */
    int width, height, fps;
    double speed;           /* simulated seconds per second of video */
    double start, duration; /* the simulated interval shown */
    EslStandardView view;
    gboolean show_frames; /* body frames drawn */
    int follow;           /* body the camera follows, or -1 */
    const EslCamera *camera; /* the first frame's camera (copied; the window's 3D view), or
                              * NULL: view framing the first frame */
} EslVideoExportOptions;

typedef struct EslVideoExport EslVideoExport;

/* The export begun (the renderer's offscreen size set, the file opened); NULL with error for
 * bad options, or G_IO_ERROR_NOT_SUPPORTED when this build has no FFmpeg. */
EslVideoExport *esl_video_export_new(const MbsModel *m, EslRenderer *renderer,
                                     const EslVideoExportOptions *options, EslPosesAt poses_at,
                                     gpointer data, GError **error);
long esl_video_export_n_frames(const EslVideoExport *x);
/* Frames written so far. */
long esl_video_export_done(const EslVideoExport *x);
/* The simulated time of the next frame. */
double esl_video_export_next_time(const EslVideoExport *x);
/* Draw and encode the next frame (none left: TRUE, nothing done). */
gboolean esl_video_export_step(EslVideoExport *x, GError **error);
/* After the last frame: the file moved into place; x freed in any case. */
gboolean esl_video_export_finish(EslVideoExport *x, GError **error);
/* Give up: nothing left behind; x freed (NULL is fine). */
void esl_video_export_abort(EslVideoExport *x);
/* A follow camera (body >= 0) looks at its body's centre of mass in the poses given. */
void esl_camera_aim(EslCamera *camera, const MbsModel *m, const double *poses, int body);
/* Whether this build can write videos. */
gboolean esl_video_export_supported(void);

G_END_DECLS

#endif
