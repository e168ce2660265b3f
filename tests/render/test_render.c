/* Headless rendering through `eslabon-cli render`'s entry point: the PNG of the bundled
 * four-bar is the requested size, not a flat colour, shows the mechanism (many non-background
 * pixels), and changes when the mechanism has moved. */
#include <gdk-pixbuf/gdk-pixbuf.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <string.h>
#include <unistd.h>

#include "esl-cli.h"
#include "tap.h"

int esl_cli_render(int argc, char **argv);

/* esl_cli_render with its JSON report on stdout sent to the TAP stream as a comment. */
static int render_argv(int argc, char **argv)
{
    fflush(stdout);
    int saved = dup(STDOUT_FILENO);
    int devnull = open("/dev/null", O_WRONLY);
    dup2(devnull, STDOUT_FILENO);
    close(devnull);
    int status = esl_cli_render(argc, argv);
    fflush(stdout);
    dup2(saved, STDOUT_FILENO);
    close(saved);
    return status;
}

static int render(const char *model, const char *time, const char *out)
{
    char *argv[] = {"render", (char *)model, "--time", (char *)time, "--out", (char *)out,
                    "--size", "320x200", NULL};
    return render_argv(8, argv);
}

/* Distinct colours and fraction of pixels differing from the top-left (background) pixel. */
static void image_stats(GdkPixbuf *pb, int *distinct, double *foreground)
{
    int w = gdk_pixbuf_get_width(pb), h = gdk_pixbuf_get_height(pb);
    int stride = gdk_pixbuf_get_rowstride(pb), nch = gdk_pixbuf_get_n_channels(pb);
    const guint8 *px = gdk_pixbuf_read_pixels(pb);
    g_autoptr(GHashTable) colours = g_hash_table_new(NULL, NULL);
    long differ = 0;
    guint32 background = px[0] | px[1] << 8 | px[2] << 16;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            const guint8 *p = px + y * stride + x * nch;
            guint32 c = p[0] | p[1] << 8 | p[2] << 16;
            g_hash_table_add(colours, GUINT_TO_POINTER(c + 1));
            differ += c != background;
        }
    *distinct = (int)g_hash_table_size(colours);
    *foreground = (double)differ / (w * h);
}

static int differing_pixels(GdkPixbuf *a, GdkPixbuf *b)
{
    int w = gdk_pixbuf_get_width(a), h = gdk_pixbuf_get_height(a);
    int stride = gdk_pixbuf_get_rowstride(a), nch = gdk_pixbuf_get_n_channels(a);
    const guint8 *pa = gdk_pixbuf_read_pixels(a), *pb = gdk_pixbuf_read_pixels(b);
    int n = 0;
    for (int y = 0; y < h; y++)
        n += memcmp(pa + y * stride, pb + y * stride, (size_t)w * nch) != 0;
    return n;
}

int main(void)
{
    g_autofree char *dir = g_dir_make_tmp("esl-render-XXXXXX", NULL);
    g_autofree char *at0 = g_build_filename(dir, "four-bar-t0.png", NULL);
    g_autofree char *at3 = g_build_filename(dir, "four-bar-t3.png", NULL);
    g_setenv("ESLABON_MODELS_DIR", ESLABON_SOURCE_DIR "/models", TRUE);

    tap_ok(render("four-bar-spatial", "0", at0) == 0, "render the bundled four-bar at t = 0");
    g_autoptr(GError) error = NULL;
    g_autoptr(GdkPixbuf) img0 = gdk_pixbuf_new_from_file(at0, &error);
    if (!tap_ok(img0 != NULL, "the PNG loads"))
        return tap_done();
    tap_ok(gdk_pixbuf_get_width(img0) == 320 && gdk_pixbuf_get_height(img0) == 200,
           "the PNG has the requested size 320x200");
    int distinct;
    double foreground;
    image_stats(img0, &distinct, &foreground);
    tap_ok(distinct > 50, "not a flat image: %d distinct colours", distinct);
    tap_ok(foreground > 0.02 && foreground < 0.9, "mechanism and grid cover %.1f %% of the image",
           100 * foreground);

    tap_ok(render("four-bar-spatial", "3", at3) == 0, "render the four-bar at t = 3 s");
    g_autoptr(GdkPixbuf) img3 = gdk_pixbuf_new_from_file(at3, NULL);
    int rows = img3 ? differing_pixels(img0, img3) : 0;
    tap_ok(rows > 5, "the picture changes as the mechanism moves (%d rows differ)", rows);

    g_autofree char *nowhere = g_build_filename(dir, "x.png", NULL);
    tap_ok(render("no-such-model", "0", nowhere) != 0 && !g_file_test(nowhere, G_FILE_TEST_EXISTS),
           "an unknown model fails without writing a file");
    char *bad_size[] = {"render", "four-bar-spatial", "--out", nowhere, "--size", "12", NULL};
    tap_ok(render_argv(6, bad_size) != 0, "a malformed --size is refused");

    /* ali3p stalls at the chain's flat position at h = 5 ms (t = 2.785 s); render used to retry
     * the same step for ever, the run driver cuts it and goes on */
    const char *chain = ESLABON_SOURCE_DIR "/tests/cli/parallelogram-chain.json";
    g_autofree char *chain_png = g_build_filename(dir, "chain.png", NULL);
    char *through_singular[] = {"render", (char *)chain, "--time", "3", "--out", chain_png,
                                "--formulation", "ali3p", "--step", "0.005", "--size",
                                "320x200", NULL};
    tap_ok(render_argv(12, through_singular) == 0 && g_file_test(chain_png, G_FILE_TEST_EXISTS),
           "render reaches t = 3 s through a singular position where ali3p's step must be cut");

    /* --follow: the vehicle's chassis (the heaviest body) at the centre of the picture after
     * 2 s at 10 m/s; a body that is not there is a bad command line */
    g_autofree char *follow_png = g_build_filename(dir, "follow.png", NULL);
    char *follow[] = {"render", "vehicle-simple", "--time", "2", "--follow", "--out",
                      follow_png, "--size", "320x200", NULL};
    g_autoptr(GdkPixbuf) followed = NULL;
    if (render_argv(9, follow) == 0)
        followed = gdk_pixbuf_new_from_file(follow_png, NULL);
    if (tap_ok(followed != NULL, "render vehicle-simple at 2 s with --follow")) {
        const guint8 *c = gdk_pixbuf_read_pixels(followed) +
                          100 * gdk_pixbuf_get_rowstride(followed) +
                          160 * gdk_pixbuf_get_n_channels(followed);
        tap_ok(c[2] > c[0] + 40, "the chassis (blue) is at the centre (rgb %d %d %d)", c[0],
               c[1], c[2]);
    }
    char *follow_nobody[] = {"render", "vehicle-simple", "--follow=no-such-body", "--out",
                             nowhere, NULL};
    tap_ok(render_argv(5, follow_nobody) == 2 && !g_file_test(nowhere, G_FILE_TEST_EXISTS),
           "--follow=no-such-body is refused (exit 2) without a file");

    g_unlink(follow_png);
    g_unlink(chain_png);
    g_unlink(at0);
    g_unlink(at3);
    g_rmdir(dir);
    return tap_done();
}
