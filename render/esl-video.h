/* Video files from rendered frames, with FFmpeg's libraries (libavcodec, libavformat,
 * libswscale): H.264 in MP4 (`.mp4`, encoder libx264) or VP9 in WebM (`.webm`, libvpx-vp9),
 * chosen by the file's extension. Frames are RGBA, top row first (as
 * esl_renderer_render_offscreen gives them), converted to YUV 4:2:0.
 *
 * The file is written under a temporary name beside it and renamed into place by
 * esl_video_finish, so a failed or cancelled export leaves nothing half-made behind.
 * Licences: docs/architecture.md § Video export. */
#ifndef ESL_VIDEO_H
#define ESL_VIDEO_H

#include <glib.h>

G_BEGIN_DECLS

typedef struct EslVideo EslVideo;

/* A new video of width x height pixels (both even, 16 to 8192) at fps frames per second.
 * NULL with error for an unknown extension, an encoder this FFmpeg lacks, or a file that
 * cannot be made. */
EslVideo *esl_video_new(const char *path, int width, int height, int fps, GError **error);
/* Encode one frame (width*height*4 bytes of RGBA, top row first). */
gboolean esl_video_add_frame(EslVideo *v, const guint8 *rgba, GError **error);
/* Flush the encoder, write the trailer, move the file into place and free v. On failure the
 * temporary file is removed (and v freed). */
gboolean esl_video_finish(EslVideo *v, GError **error);
/* Give up: remove the temporary file and free v (NULL is fine). */
void esl_video_abort(EslVideo *v);

/* What a video file holds, read back with the same libraries: its first video stream's size,
 * frame count (decoded, not the container's estimate) and duration in seconds; with frame >= 0
 * and rgba non-NULL, that frame decoded to width*height*4 bytes of RGBA (g_free). */
typedef struct {
    int width, height, frames;
    double duration, fps;
    char codec[32];
} EslVideoInfo;
gboolean esl_video_probe(const char *path, EslVideoInfo *info, int frame, guint8 **rgba,
                         GError **error);

G_END_DECLS

#endif
