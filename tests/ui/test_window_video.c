/* File ▸ Export Video… (issue 26; ui/esl-video-dialog.c): a 1 s run of the four-bar, shown in
 * the window, exported from the dialog to MP4 and WebM and read back with FFmpeg's libraries
 * (esl_video_probe, as the command line's test does): the frame count is duration × fps / speed,
 * the length duration / speed, the size and codec the ones asked for. The window's main loop
 * runs while the frames are drawn (the progress bar moves). Cancel midway leaves no file; a file
 * that cannot be written is refused with the whole reason in the dialog. Needs a display
 * (xvfb-run). ESL_SCREENSHOT=FILE.png: the dialog after an export;
 * ESL_SCREENSHOT_PROGRESS=FILE.png: during the export that is cancelled. */
#include <gtk/gtk.h>
#include <math.h>

#include "esl-application.h"
#include "esl-video.h"
#include "esl-video-dialog.h"
#include "esl-window.h"
#include "esl-window-testing.h"
#include "tap.h"
#include "ui-test.h"

typedef struct {
    EslWindow *window;
    gint64 run_id;
    int finished, ok; /* the dialog's "finished" */
    char *dir;
} Test;

static void on_run_finished(EslWindow *window, int status, gint64 run_id, Test *t)
{
    (void)window, (void)status;
    t->run_id = run_id;
}

static void on_export_finished(EslVideoDialog *dialog, gboolean ok, Test *t)
{
    (void)dialog;
    t->finished++;
    t->ok = ok;
}

/* Export to file name (in the test's folder) and wait for the end; in *moved whether the
 * progress was seen between the first and the last frame while the window's loop ran; with
 * cancel_after > 0, Cancel once that many frames are written. */
static gboolean export(Test *t, EslVideoDialog *dialog, const char *name, int fps, double speed,
                       long cancel_after, gboolean *moved)
{
    g_autofree char *path = g_build_filename(t->dir, name, NULL);
    esl_video_dialog_set_path(dialog, path);
    esl_video_dialog_set_fps(dialog, fps);
    esl_video_dialog_set_speed(dialog, speed);
    int before = t->finished;
    gtk_widget_activate_action(GTK_WIDGET(dialog), "video.export", NULL);
    *moved = FALSE;
    gboolean cancelled = FALSE;
    while (t->finished == before) {
        g_main_context_iteration(NULL, TRUE);
        long done, total;
        esl_video_dialog_get_progress(dialog, &done, &total);
        *moved = *moved || (done > 0 && done < total);
        if (cancel_after > 0 && done >= cancel_after && !cancelled) {
            cancelled = TRUE;
            save_screenshot_as("ESL_SCREENSHOT_PROGRESS"); /* the export goes on meanwhile */
            gtk_widget_activate_action(GTK_WIDGET(dialog), "video.cancel", NULL);
        }
    }
    return t->ok;
}

static int files_in(const char *dir)
{
    GDir *d = g_dir_open(dir, 0, NULL);
    int n = 0;
    while (d && g_dir_read_name(d))
        n++;
    if (d)
        g_dir_close(d);
    return n;
}

static void check(GtkApplication *app, Test *t)
{
    t->window = ESL_WINDOW(gtk_application_get_active_window(app));
    /* the screen's size (Xvfb has no window manager to maximise it) */
    g_autoptr(GdkMonitor) monitor =
        g_list_model_get_item(gdk_display_get_monitors(gdk_display_get_default()), 0);
    GdkRectangle screen = {0, 0, 1280, 720};
    if (monitor)
        gdk_monitor_get_geometry(monitor, &screen);
    gtk_window_set_default_size(GTK_WINDOW(t->window), screen.width, screen.height);
    g_autoptr(GError) error = NULL;
    tap_ok(esl_window_load_model(t->window, "four-bar-spatial", &error), "the four-bar loads");
    gboolean refused = !esl_window_show_video_export(t->window, &error) && error &&
                       strstr(error->message, "run");
    tap_ok(refused, "before a run, Export Video says it needs one (%s)",
           error ? error->message : "");
    g_clear_error(&error);

    const double duration = 1.0;
    start_run(t->window, duration, G_CALLBACK(on_run_finished), t, 170);
    while (!t->run_id)
        g_main_context_iteration(NULL, TRUE);
    wait_replayed(t->window);

    gtk_widget_activate_action(GTK_WIDGET(t->window), "win.export-video", NULL);
    EslVideoDialog *dialog = find_toplevel(ESL_TYPE_VIDEO_DIALOG);
    tap_ok(dialog && gtk_widget_get_visible(GTK_WIDGET(dialog)),
           "File ▸ Export Video… opens the dialog");
    if (!dialog) {
        gtk_window_destroy(GTK_WINDOW(t->window));
        return;
    }
    g_signal_connect(dialog, "finished", G_CALLBACK(on_export_finished), t);
    tap_ok(esl_video_dialog_set_size(dialog, 640, 360), "640 × 360 is offered");

    /* MP4 at 20 fps, speed 1: 20 frames of 1/20 s */
    gboolean moved = FALSE;
    gboolean ok = export(t, dialog, "four-bar.mp4", 20, 1.0, 0, &moved);
    tap_ok(ok, "the run is exported to MP4 (%s)", esl_video_dialog_get_message(dialog));
    tap_ok(moved, "the progress moved while the window's loop ran (the frames drawn on a worker)");
    save_screenshot_if_asked();
    g_autofree char *mp4 = g_build_filename(t->dir, "four-bar.mp4", NULL);
    EslVideoInfo info = {0};
    tap_ok(esl_video_probe(mp4, &info, -1, NULL, &error), "the MP4 reads back%s%s",
           error ? ": " : "", error ? error->message : "");
    g_clear_error(&error);
    int frames = (int)floor(duration * 20 / 1.0 + 1e-9);
    tap_ok(info.frames == frames && info.width == 640 && info.height == 360 &&
               !strcmp(info.codec, "h264"),
           "%d H.264 frames of 640x360 (read %d of %dx%d, %s)", frames, info.frames, info.width,
           info.height, info.codec);
    tap_close(info.duration, duration / 1.0, 1.0 / 20, "it lasts %.3f s (read %.4f s)", duration,
              info.duration);

    /* WebM at 30 fps, twice as fast: 15 frames, 0.5 s */
    ok = export(t, dialog, "four-bar.webm", 30, 2.0, 0, &moved);
    tap_ok(ok, "the run is exported to WebM at speed 2 (%s)", esl_video_dialog_get_message(dialog));
    g_autofree char *webm = g_build_filename(t->dir, "four-bar.webm", NULL);
    memset(&info, 0, sizeof info);
    esl_video_probe(webm, &info, -1, NULL, NULL);
    frames = (int)floor(duration * 30 / 2.0 + 1e-9);
    tap_ok(info.frames == frames && !strcmp(info.codec, "vp9"),
           "%d VP9 frames (read %d, %s)", frames, info.frames, info.codec);
    tap_close(info.duration, duration / 2.0, 1.0 / 30, "it lasts %.3f s (read %.4f s)",
              duration / 2.0, info.duration);

    /* slowed down 20 times: 400 frames, cancelled after 3 */
    ok = export(t, dialog, "cancelled.mp4", 20, 0.05, 3, &moved);
    long done, total;
    esl_video_dialog_get_progress(dialog, &done, &total);
    tap_ok(!ok && done < total && strstr(esl_video_dialog_get_message(dialog), "Cancelled"),
           "Cancel stops the export at frame %ld of %ld (%s)", done, total,
           esl_video_dialog_get_message(dialog));
    tap_ok(files_in(t->dir) == 2, "and leaves no file behind (%d files in the folder, the two "
                                  "videos)", files_in(t->dir));

    /* a folder that is not there: the whole reason */
    g_autofree char *missing = g_build_filename(t->dir, "no-such-folder", "x.mp4", NULL);
    esl_video_dialog_set_path(dialog, missing);
    int before = t->finished;
    gtk_widget_activate_action(GTK_WIDGET(dialog), "video.export", NULL);
    while (t->finished == before)
        g_main_context_iteration(NULL, TRUE);
    const char *message = esl_video_dialog_get_message(dialog);
    tap_ok(!t->ok && strstr(message, "Cannot export the video") && strstr(message, missing),
           "a file that cannot be made is refused with the whole reason: %s", message);
    tap_ok(files_in(t->dir) == 2, "nothing else is written");

    gtk_window_destroy(GTK_WINDOW(t->window));
}

int main(void)
{
    Test t = {0};
    t.dir = g_dir_make_tmp("eslabon-window-video-XXXXXX", NULL);
    run_application("test_window_video", G_CALLBACK(check), &t);
    remove_temporary_dir(t.dir);
    g_free(t.dir);
    return tap_done();
}
