/* EslVideoDialog: File ▸ Export Video… — the run shown in the window encoded to MP4 (H.264) or
 * WebM (VP9), chosen by the file name's extension, at a frame rate, a size and a speed, with the
 * 3D view's camera, as `eslabon-cli render --video` does (the frame loop of
 * render/esl-video-export.h). The frames are drawn on a worker thread in its own headless GL
 * context (esl_gl_headless_new, as the command line's), so the window stays responsive; a
 * progress bar follows them and Cancel stops between two frames, leaving no file behind. */
#ifndef ESL_VIDEO_DIALOG_H
#define ESL_VIDEO_DIALOG_H

#include <gtk/gtk.h>

#include "esl-renderer.h"

G_BEGIN_DECLS

#define ESL_TYPE_VIDEO_DIALOG (esl_video_dialog_get_type())
G_DECLARE_FINAL_TYPE(EslVideoDialog, esl_video_dialog, ESL, VIDEO_DIALOG, GtkWindow)

GtkWidget *esl_video_dialog_new(GtkWindow *parent);

/* The run to export: the model's text (origin: its file, for relative tyre files), the run's
 * name as shown, its samples (EslRunSample*, copied), the camera of the first frame, and the
 * 3D view's options (body frames, floor grid, the body a follow camera keeps centred or -1). */
void esl_video_dialog_set_run(EslVideoDialog *self, const char *json, const char *origin,
                              const char *run_name, GPtrArray *samples, const EslCamera *camera,
                              gboolean show_frames, gboolean show_grid, int follow);

/* What the dialog's fields hold (tests set them as a user types). */
void esl_video_dialog_set_path(EslVideoDialog *self, const char *path);
void esl_video_dialog_set_fps(EslVideoDialog *self, int fps);
void esl_video_dialog_set_speed(EslVideoDialog *self, double speed);
/* One of the sizes offered (FALSE when it is not). */
gboolean esl_video_dialog_set_size(EslVideoDialog *self, int width, int height);

/* Start the export (the Export button, action video.export); FALSE with the reason shown in
 * the dialog when it cannot start. "finished" (gboolean ok) is emitted when it ends. */
gboolean esl_video_dialog_export(EslVideoDialog *self);
/* Stop it between two frames (the Cancel button while exporting, action video.cancel). */
void esl_video_dialog_cancel(EslVideoDialog *self);
gboolean esl_video_dialog_is_exporting(EslVideoDialog *self);
/* Frames written and to write of the export going on (or the last one). */
void esl_video_dialog_get_progress(EslVideoDialog *self, long *done, long *total);
/* The result line as shown: the frames written, or the error's full message. */
const char *esl_video_dialog_get_message(EslVideoDialog *self);

G_END_DECLS

#endif
