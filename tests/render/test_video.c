/* Video export (`eslabon-cli render --video`, render/esl-video.c), read back with the same
 * libraries: a 5 s run of the bundled four-bar at 30 fps is 150 frames of the asked size and
 * lasts 5 s, in H.264/MP4 and VP9/WebM; a decoded frame matches `render --time` at the same
 * instant (better than the frames 1/30 s before and after); a stored run exports from its project; refused requests
 * leave no file behind. */
#include <fcntl.h>
#include <gdk-pixbuf/gdk-pixbuf.h>
#include <glib/gstdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "esl-cli.h"
#include "esl-video.h"
#include "tap.h"

int esl_cli_render(int argc, char **argv);
int esl_cli_run(int argc, char **argv);

/* A CLI entry point with its stdout (the JSON report) and stderr discarded. */
static int quiet(int (*entry)(int, char **), int argc, char **argv)
{
    fflush(stdout);
    fflush(stderr);
    int saved_out = dup(STDOUT_FILENO), saved_err = dup(STDERR_FILENO);
    int devnull = open("/dev/null", O_WRONLY);
    dup2(devnull, STDOUT_FILENO);
    dup2(devnull, STDERR_FILENO);
    close(devnull);
    int status = entry(argc, argv);
    fflush(stdout);
    fflush(stderr);
    dup2(saved_out, STDOUT_FILENO);
    dup2(saved_err, STDERR_FILENO);
    close(saved_out);
    close(saved_err);
    return status;
}

/* Mean absolute difference of the RGB channels of a decoded frame and a PNG, in levels. */
static double mean_difference(const guint8 *rgba, const char *png, int w, int h)
{
    g_autoptr(GdkPixbuf) pb = gdk_pixbuf_new_from_file(png, NULL);
    if (!pb || gdk_pixbuf_get_width(pb) != w || gdk_pixbuf_get_height(pb) != h)
        return INFINITY;
    int stride = gdk_pixbuf_get_rowstride(pb), nch = gdk_pixbuf_get_n_channels(pb);
    const guint8 *px = gdk_pixbuf_read_pixels(pb);
    double sum = 0.0;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            for (int c = 0; c < 3; c++)
                sum += abs((int)rgba[4 * (y * w + x) + c] - (int)px[y * stride + x * nch + c]);
    return sum / (3.0 * w * h);
}

int main(void)
{
    g_autofree char *dir = g_dir_make_tmp("eslabon-video-XXXXXX", NULL);
    g_autofree char *model = g_build_filename(ESLABON_SOURCE_DIR, "models", "four-bar-spatial.json",
                                              NULL);
    g_autofree char *mp4 = g_build_filename(dir, "four-bar.mp4", NULL);
    g_autofree char *webm = g_build_filename(dir, "four-bar.webm", NULL);
    g_autofree char *png = g_build_filename(dir, "t2.png", NULL);

    char *a1[] = {"render", model, "--video", mp4, "--size", "320x240", "--duration", "5",
                  "--fps", "30", NULL};
    tap_ok(quiet(esl_cli_render, 10, a1) == 0, "a 5 s video of the four-bar is exported to MP4");
    EslVideoInfo info;
    g_autofree guint8 *frame60 = NULL;
    GError *error = NULL;
    gboolean read = esl_video_probe(mp4, &info, 60, &frame60, &error);
    tap_ok(read, "the MP4 reads back%s%s", error ? ": " : "", error ? error->message : "");
    g_clear_error(&error);
    tap_ok(info.frames == 150 && info.width == 320 && info.height == 240,
           "150 frames of 320x240 (read %d of %dx%d)", info.frames, info.width, info.height);
    tap_ok(!strcmp(info.codec, "h264") && fabs(info.fps - 30.0) < 1e-9,
           "H.264 at 30 fps (read %s at %g)", info.codec, info.fps);
    tap_ok(fabs(info.duration - 5.0) <= 1.0 / 30.0, "it lasts 5 s (read %.4f s)", info.duration);

    /* frame 60 is t = 2 s: the same picture as render --time 2, up to the codec's loss */
    char *a2[] = {"render", model, "--time", "2", "--out", png, "--size", "320x240", NULL};
    tap_ok(quiet(esl_cli_render, 8, a2) == 0, "render --time 2 draws the same instant");
    /* the frames before and after differ more: frame 60 is the instant */
    g_autofree guint8 *frame59 = NULL, *frame61 = NULL;
    EslVideoInfo again;
    esl_video_probe(mp4, &again, 59, &frame59, NULL);
    esl_video_probe(mp4, &again, 61, &frame61, NULL);
    double same = frame60 ? mean_difference(frame60, png, 320, 240) : INFINITY;
    double before = frame59 ? mean_difference(frame59, png, 320, 240) : 0.0;
    double after = frame61 ? mean_difference(frame61, png, 320, 240) : 0.0;
    /* measured: 1.27 levels (the codec's loss: frame 0 against render --time 0 is 1.43), frames
     * 59 and 61 2.7 and 2.5 */
    tap_ok(same < 2.0, "frame 60 matches render --time 2 (mean difference %.2f levels)", same);
    tap_ok(before > 1.5 * same && after > 1.5 * same,
           "and its neighbours, 1/30 s away, do not (%.2f and %.2f levels)", before, after);

    char *a3[] = {"render", model, "--video", webm, "--size", "320x240", "--duration", "2",
                  NULL};
    tap_ok(quiet(esl_cli_render, 8, a3) == 0, "a 2 s video is exported to WebM");
    read = esl_video_probe(webm, &info, -1, NULL, NULL);
    tap_ok(read && info.frames == 60 && !strcmp(info.codec, "vp9") && info.width == 320,
           "60 VP9 frames of 320 pixels (read %d, %s, %d)", info.frames, info.codec, info.width);

    /* a stored run: its samples, its length */
    g_autofree char *project = g_build_filename(dir, "runs.eslabon", NULL);
    g_autofree char *stored = g_build_filename(dir, "stored.mp4", NULL);
    char *a4[] = {"run", model, "--duration", "1", "--step", "0.001", "--project", project, NULL};
    tap_ok(quiet(esl_cli_run, 8, a4) == 0, "a 1 s run is stored in a project");
    char *a5[] = {"render", "--project", project, "--run", "1", "--video", stored, "--size",
                  "320x240", "--fps", "25", NULL};
    tap_ok(quiet(esl_cli_render, 11, a5) == 0, "the stored run is exported");
    read = esl_video_probe(stored, &info, -1, NULL, NULL);
    tap_ok(read && info.frames == 25, "its length at 25 fps: 25 frames (read %d)", info.frames);

    /* refusals leave nothing behind */
    g_autofree char *odd = g_build_filename(dir, "odd.mp4", NULL);
    g_autofree char *avi = g_build_filename(dir, "x.avi", NULL);
    char *a6[] = {"render", model, "--video", odd, "--size", "321x240", "--duration", "1", NULL};
    char *a7[] = {"render", model, "--video", avi, "--size", "320x240", "--duration", "1", NULL};
    int s6 = quiet(esl_cli_render, 8, a6), s7 = quiet(esl_cli_render, 8, a7);
    g_autofree char *odd_part = g_strdup_printf("%s.part", odd);
    tap_ok(s6 == 1 && !g_file_test(odd, G_FILE_TEST_EXISTS) &&
               !g_file_test(odd_part, G_FILE_TEST_EXISTS),
           "an odd size is refused and leaves no file");
    tap_ok(s7 == 1 && !g_file_test(avi, G_FILE_TEST_EXISTS), "an unknown format is refused");

    const char *names[] = {"four-bar.mp4", "four-bar.webm", "t2.png", "runs.eslabon",
                           "runs.eslabon-wal", "runs.eslabon-shm", "stored.mp4"};
    for (size_t i = 0; i < G_N_ELEMENTS(names); i++) {
        g_autofree char *p = g_build_filename(dir, names[i], NULL);
        g_unlink(p);
    }
    g_rmdir(dir);
    return tap_done();
}
