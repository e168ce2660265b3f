/* EslPlot: series, log axis with non-positive values, cursor, and exports (PNG, SVG, CSV). */
#include <gdk-pixbuf/gdk-pixbuf.h>
#include <glib/gstdio.h>
#include <math.h>
#include <stdlib.h>

#include "esl-plot.h"
#include "tap.h"

/* The most pixels of one colour in a single row of the image. */
static int longest_row_of(GdkPixbuf *image, int r, int g, int b)
{
    int best = 0, stride = gdk_pixbuf_get_rowstride(image);
    int nch = gdk_pixbuf_get_n_channels(image);
    const guchar *px = gdk_pixbuf_get_pixels(image);
    for (int y = 0; y < gdk_pixbuf_get_height(image); y++) {
        int n = 0;
        for (int x = 0; x < gdk_pixbuf_get_width(image); x++) {
            const guchar *p = px + y * stride + x * nch;
            n += abs(p[0] - r) < 40 && abs(p[1] - g) < 40 && abs(p[2] - b) < 40;
        }
        best = MAX(best, n);
    }
    return best;
}

/* How many rows of the image hold a pixel of one colour: a curve that rises spans many rows, a
 * flat one (or a legend swatch) a few. */
static int rows_with(GdkPixbuf *image, int r, int g, int b)
{
    int rows = 0, stride = gdk_pixbuf_get_rowstride(image);
    int nch = gdk_pixbuf_get_n_channels(image);
    const guchar *px = gdk_pixbuf_get_pixels(image);
    for (int y = 0; y < gdk_pixbuf_get_height(image); y++)
        for (int x = 0; x < gdk_pixbuf_get_width(image); x++) {
            const guchar *p = px + y * stride + x * nch;
            if (abs(p[0] - r) < 40 && abs(p[1] - g) < 40 && abs(p[2] - b) < 40) {
                rows++;
                break;
            }
        }
    return rows;
}

/* Data in all four corners: the legend used to sit on one of them, over the data (issue 12). */
static void test_legend_covers_nothing(const char *png)
{
    EslPlot *plot = ESL_PLOT(g_object_ref_sink(esl_plot_new()));
    esl_plot_set_title(plot, "Constraint violation");
    esl_plot_set_labels(plot, "t (s)", "norm");
    GdkRGBA red = {1, 0, 0, 1}, green = {0, 0.8, 0, 1}, blue = {0, 0, 1, 1};
    int top = esl_plot_add_series(plot, "‖Φ‖ top", &red, FALSE);
    int bottom = esl_plot_add_series(plot, "bottom", &green, FALSE);
    int middle = esl_plot_add_series(plot, "a rather long series name in the middle", &blue, FALSE);
    for (int i = 0; i <= 400; i++) {
        esl_plot_append(plot, top, i * 0.025, 1.0);
        esl_plot_append(plot, bottom, i * 0.025, 0.0);
        esl_plot_append(plot, middle, i * 0.025, 0.5);
    }
    const int width = 480, area_width = 480 - 66 - 14;
    g_autoptr(GError) error = NULL;
    tap_ok(esl_plot_export(plot, png, width, 300, &error), "legend test exported");
    g_autoptr(GdkPixbuf) image = gdk_pixbuf_new_from_file(png, NULL);
    int red_run = image ? longest_row_of(image, 255, 0, 0) : 0;
    int green_run = image ? longest_row_of(image, 0, 204, 0) : 0;
    tap_ok(red_run >= area_width * 95 / 100 && green_run >= area_width * 95 / 100,
           "the legend covers no data: the top and bottom lines are drawn across the plot "
           "(%d and %d of %d pixels)", red_run, green_run, area_width);
    g_object_unref(plot);
}

/* Dark (text) pixels of a plot of 190 x 120 exported with this title and y label (NULL:
 * none), as a mask of 0/1 (g_free). */
static guint8 *dark_mask(const char *png, const char *title, const char *y_label)
{
    EslPlot *plot = ESL_PLOT(g_object_ref_sink(esl_plot_new()));
    if (title)
        esl_plot_set_title(plot, title);
    esl_plot_set_labels(plot, "t (s)", y_label);
    gboolean ok = esl_plot_export(plot, png, 190, 120, NULL);
    g_object_unref(plot);
    GdkPixbuf *image = ok ? gdk_pixbuf_new_from_file(png, NULL) : NULL;
    guint8 *mask = g_new0(guint8, 190 * 120);
    if (!image)
        return mask;
    int stride = gdk_pixbuf_get_rowstride(image), nch = gdk_pixbuf_get_n_channels(image);
    const guchar *px = gdk_pixbuf_get_pixels(image);
    for (int y = 0; y < 120; y++)
        for (int x = 0; x < 190; x++) {
            const guchar *p = px + y * stride + x * nch;
            mask[y * 190 + x] = (nch < 4 || p[3] > 128) && p[0] + p[1] + p[2] < 3 * 110;
        }
    g_object_unref(image);
    return mask;
}

/* A long (Spanish) title and a long y label of a small plot do not overlap (issue 26): the title
 * moves left over the tick labels when it does not fit, where a long rotated y label used to
 * reach up into it. The pixels each draws (those not drawn without either) share none. */
static void test_title_clear_of_y_label(const char *png)
{
    const char *title = "Violación de restricciones", *y_label = "norma (m, m/s, m/s²)";
    g_autofree guint8 *neither = dark_mask(png, NULL, NULL);
    g_autofree guint8 *with_title = dark_mask(png, title, NULL);
    g_autofree guint8 *with_label = dark_mask(png, NULL, y_label);
    int title_px = 0, label_px = 0, both = 0;
    for (int i = 0; i < 190 * 120; i++) {
        gboolean t = with_title[i] && !neither[i], l = with_label[i] && !neither[i];
        title_px += t;
        label_px += l;
        both += t && l;
    }
    tap_ok(title_px > 50 && label_px > 50 && both == 0,
           "a 190 x 120 plot's title and y label share no pixel (%d of %d and %d)", both,
           title_px, label_px);
}

int main(void)
{
    gtk_init();
    EslPlot *plot = ESL_PLOT(g_object_ref_sink(esl_plot_new()));
    esl_plot_set_title(plot, "Energy");
    esl_plot_set_labels(plot, "t (s)", "energy (J)");
    GdkRGBA blue = {0.1, 0.3, 0.9, 1}, red = {0.9, 0.1, 0.1, 1};
    int a = esl_plot_add_series(plot, "kinetic", &blue, FALSE);
    int b = esl_plot_add_series(plot, "drift, \"abs\"", &red, TRUE);
    tap_ok(a == 0 && b == 1 && esl_plot_get_n_series(plot) == 2, "two series added");
    for (int i = 0; i <= 200; i++) {
        double t = i * 0.01;
        esl_plot_append(plot, a, t, 3.0 + sin(4 * t));
    }
    double xs[3] = {0.0, 0.5, 1.0}, ys[3] = {0.0, 1e-9, 2.5e-6};
    esl_plot_append_many(plot, b, xs, ys, 3);
    tap_ok(esl_plot_series_length(plot, a) == 201 && esl_plot_series_length(plot, b) == 3,
           "live appends counted");
    esl_plot_set_cursor(plot, 0.75);
    tap_ok(esl_plot_get_cursor(plot) == 0.75, "cursor set");

    g_autofree char *dir = g_dir_make_tmp("esl-plot-XXXXXX", NULL);
    g_autofree char *png = g_build_filename(dir, "plot.png", NULL);
    g_autofree char *svg = g_build_filename(dir, "plot.svg", NULL);
    g_autofree char *csv = g_build_filename(dir, "plot.csv", NULL);
    g_autofree char *bad = g_build_filename(dir, "plot.bmp", NULL);
    g_autoptr(GError) error = NULL;

    tap_ok(esl_plot_export(plot, png, 640, 360, &error), "PNG export");
    g_autoptr(GdkPixbuf) image = gdk_pixbuf_new_from_file(png, NULL);
    tap_ok(image && gdk_pixbuf_get_width(image) == 640 && gdk_pixbuf_get_height(image) == 360,
           "PNG has the requested size");
    /* The curve's blue must appear somewhere in the picture. */
    int blue_pixels = 0;
    if (image) {
        int stride = gdk_pixbuf_get_rowstride(image), nch = gdk_pixbuf_get_n_channels(image);
        const guint8 *px = gdk_pixbuf_read_pixels(image);
        for (int y = 0; y < 360; y++)
            for (int x = 0; x < 640; x++) {
                const guint8 *p = px + y * stride + x * nch;
                blue_pixels += p[2] > 180 && p[0] < 90 && p[1] < 140;
            }
    }
    tap_ok(blue_pixels > 100, "the blue series is drawn (%d pixels)", blue_pixels);

    tap_ok(esl_plot_export(plot, svg, 640, 360, &error), "SVG export");
    g_autofree char *svg_text = NULL;
    g_file_get_contents(svg, &svg_text, NULL, NULL);
    tap_ok(svg_text && strstr(svg_text, "<svg") && strlen(svg_text) > 2000, "SVG written");

    tap_ok(esl_plot_export(plot, csv, 0, 0, &error), "CSV export");
    g_autofree char *csv_text = NULL;
    g_file_get_contents(csv, &csv_text, NULL, NULL);
    g_auto(GStrv) lines = csv_text ? g_strsplit(csv_text, "\n", -1) : NULL;
    tap_ok(lines && g_strv_length(lines) == 1 + 201 + 3 + 1, "CSV: header, 204 rows");
    tap_ok(lines && g_str_equal(lines[0], "series,x,y") &&
               g_str_equal(lines[1], "\"kinetic\",0,3"),
           "CSV header and first row: %s", lines ? lines[1] : "");
    tap_ok(lines && g_str_equal(lines[204], "\"drift, \\\"abs\\\"\",1,2.5000000000000002e-06"),
           "CSV quotes names and keeps full precision: %s", lines ? lines[204] : "");

    tap_ok(!esl_plot_export(plot, bad, 10, 10, &error) && error, "unknown format refused: %s",
           error ? error->message : "");
    g_clear_error(&error);

    /* Log scale with zeros: drawn without them. The red series (0, 1e-9, 2.5e-6) lies flat on
     * the axis on a linear scale beside 2..4; on a log axis (whole decades, 1e-10 to 10) it
     * climbs 3.4 of 11 decades, 0.31 of the plot area's height (56 rows measured). */
    g_autoptr(GdkPixbuf) linear = gdk_pixbuf_new_from_file(png, NULL); /* 640 x 360, linear */
    int red_linear = linear ? rows_with(linear, 230, 26, 26) : 0;
    esl_plot_set_log_y(plot, TRUE);
    tap_ok(esl_plot_export(plot, png, 640, 360, &error), "log-scale export with a zero value");
    g_autoptr(GdkPixbuf) logimg = gdk_pixbuf_new_from_file(png, NULL);
    int red_log = logimg ? rows_with(logimg, 230, 26, 26) : 0;
    tap_ok(red_linear < 10 && red_log > 40,
           "the log axis spreads the small series over %d rows (%d on a linear axis)", red_log,
           red_linear);
    esl_plot_clear(plot);
    tap_ok(esl_plot_get_n_series(plot) == 0 && esl_plot_export(plot, png, 320, 200, NULL),
           "an empty plot exports");
    g_autoptr(GdkPixbuf) empty = gdk_pixbuf_new_from_file(png, NULL);
    tap_ok(empty && gdk_pixbuf_get_width(empty) == 320 && gdk_pixbuf_get_height(empty) == 200 &&
               rows_with(empty, 26, 77, 230) == 0 && rows_with(empty, 230, 26, 26) == 0,
           "at its size, without the cleared series' colours");

    /* Names are written as UTF-8 (issue 12: they were octal escapes "\342\200\226..."). */
    int phi = esl_plot_add_series(plot, "‖Φ‖ (m) — «Ruta»", &red, FALSE);
    esl_plot_append(plot, phi, 0.5, 1e-9);
    tap_ok(esl_plot_export(plot, csv, 0, 0, &error), "CSV export of a non-ASCII name");
    g_autofree char *utf8_text = NULL;
    g_file_get_contents(csv, &utf8_text, NULL, NULL);
    tap_ok(utf8_text && g_utf8_validate(utf8_text, -1, NULL) &&
               strstr(utf8_text, "\"‖Φ‖ (m) — «Ruta»\",0.5,1.0000000000000001e-09\n") &&
               !strchr(utf8_text, '\\'),
           "CSV writes the series name in UTF-8");

    test_legend_covers_nothing(png);
    test_title_clear_of_y_label(png);

    g_unlink(png);
    g_unlink(svg);
    g_unlink(csv);
    g_rmdir(dir);
    g_object_unref(plot);
    return tap_done();
}
