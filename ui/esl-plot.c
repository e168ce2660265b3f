/* Cairo plot widget; see esl-plot.h. */
#include "esl-plot.h"

#include <cairo-svg.h>
#include <glib/gi18n.h>
#include <math.h>
#include <stdio.h>

#define MARGIN_LEFT 66.0
#define MARGIN_RIGHT 14.0
#define MARGIN_TOP 26.0
#define MARGIN_BOTTOM 38.0

typedef struct {
    char *name;
    GdkRGBA color;
    gboolean dashed;
    GArray *x, *y; /* double */
} Series;

struct _EslPlot {
    GtkWidget parent_instance;
    char *title, *x_label, *y_label;
    gboolean log_y;
    gboolean integer_x; /* x counts something: ticks at whole numbers only */
    GPtrArray *series;
    double cursor;
    /* view: x range and y range (log10 units when log_y); auto follows the data */
    gboolean auto_range;
    double x0, x1, y0, y1;
    /* interaction */
    double drag_x0, drag_x1, drag_y0, drag_y1;
    gboolean hovering;
    double hover_px, hover_py;
    GtkWidget *menu; /* right-click popover */
    GtkWidget *reset; /* "Reset zoom", shown while the view does not follow the data */
    int legend_rows;  /* rows the legend takes above the plot area, as last laid out */
    gboolean legend_hidden; /* the board names the series in a legend of its own */
    gboolean maximized;     /* the board gives this plot its whole area ("maximized") */
    GdkTexture *body; /* PLOT_LAYER_BODY as last drawn, or NULL when it must be redrawn */
    int body_width, body_height, body_scale;
    guint refresh_tick; /* data were appended: the body is redrawn at a later frame */
    double link_x0, link_x1; /* time range set by a linked plot (NAN: follow the data) */
    double zoom; /* text, lines and margins drawn this many times larger (presentation mode);
                    the plot is drawn in units of widget pixels / zoom */
};

/* Frame (of the frame clock) in which a plot last redrew its body for appended data: live plots
 * take turns, one per frame, so a run feeding five plots does not redraw all five every frame. */
static gint64 live_refresh_frame = -1;

G_DEFINE_FINAL_TYPE(EslPlot, esl_plot, GTK_TYPE_WIDGET)

enum { SIGNAL_CURSOR_MOVED, SIGNAL_TIME_RANGE_CHANGED, N_SIGNALS };
static guint signals[N_SIGNALS];

enum { PROP_0, PROP_MAXIMIZED, N_PROPS };
static GParamSpec *props[N_PROPS];

static void series_free(Series *s)
{
    g_free(s->name);
    g_array_unref(s->x);
    g_array_unref(s->y);
    g_free(s);
}

/* ---- geometry ------------------------------------------------------------------------------ */

typedef struct {
    double left, top, width, height;
} Area;

#define LEGEND_LINE_H 15.0
#define LEGEND_MAX_ROWS 3

/* The data area inside the axes; the legend's rows sit between the title and it, so that it
 * covers neither data nor tick labels. */
static Area plot_area(double width, double height, int legend_rows)
{
    /* the first row is on the title's line */
    double top = MARGIN_TOP + (legend_rows > 1 ? (legend_rows - 1) * LEGEND_LINE_H + 2 : 0);
    Area a = {MARGIN_LEFT, top, width - MARGIN_LEFT - MARGIN_RIGHT,
              height - top - MARGIN_BOTTOM};
    if (a.width < 10)
        a.width = 10;
    if (a.height < 10)
        a.height = 10;
    return a;
}

/* y as drawn: log10(y) on a log axis (NAN for y <= 0). */
static double y_axis_value(const EslPlot *self, double y)
{
    if (!self->log_y)
        return y;
    return y > 0 ? log10(y) : NAN;
}

/* Data extent; FALSE when there is nothing to show. */
static gboolean data_extent(const EslPlot *self, double *x0, double *x1, double *y0, double *y1)
{
    *x0 = *y0 = INFINITY;
    *x1 = *y1 = -INFINITY;
    for (guint i = 0; i < self->series->len; i++) {
        const Series *s = self->series->pdata[i];
        for (guint k = 0; k < s->x->len; k++) {
            double x = g_array_index(s->x, double, k);
            double y = y_axis_value(self, g_array_index(s->y, double, k));
            if (!isfinite(x) || !isfinite(y))
                continue;
            *x0 = fmin(*x0, x);
            *x1 = fmax(*x1, x);
            *y0 = fmin(*y0, y);
            *y1 = fmax(*y1, y);
        }
    }
    return isfinite(*x0) && isfinite(*y0);
}

static void current_view(const EslPlot *self, double *x0, double *x1, double *y0, double *y1)
{
    if (!self->auto_range) {
        *x0 = self->x0;
        *x1 = self->x1;
        *y0 = self->y0;
        *y1 = self->y1;
        return;
    }
    if (!data_extent(self, x0, x1, y0, y1)) {
        /* an empty plot (a new variable plot) shows the linked time range all the same */
        gboolean linked = isfinite(self->link_x0);
        *x0 = linked ? self->link_x0 : 0;
        *x1 = linked ? self->link_x1 : 1;
        *y0 = self->log_y ? -1 : 0;
        *y1 = self->log_y ? 0 : 1;
        return;
    }
    if (*x1 - *x0 <= 0) {
        *x1 = *x0 + (fabs(*x0) > 0 ? 0.1 * fabs(*x0) : 1.0);
    }
    if (self->log_y) {
        *y0 = floor(*y0 - 0.05);
        *y1 = ceil(*y1 + 0.05);
        if (*y1 - *y0 < 1)
            *y1 = *y0 + 1;
    } else {
        double pad = 0.06 * (*y1 - *y0);
        if (pad <= 0)
            pad = fabs(*y0) > 0 ? 0.1 * fabs(*y0) : 1.0;
        *y0 -= pad;
        *y1 += pad;
    }
    if (isfinite(self->link_x0)) { /* the time range of the linked plots */
        *x0 = self->link_x0;
        *x1 = self->link_x1;
    }
}

/* ---- ticks ----------------------------------------------------------------------------------- */

static double nice_step(double range, int max_ticks)
{
    double rough = range / MAX(max_ticks, 1);
    double p = pow(10.0, floor(log10(rough))), f = rough / p;
    return (f < 1.5 ? 1 : f < 3.5 ? 2 : f < 7.5 ? 5 : 10) * p;
}

static void format_tick(char *buf, size_t n, double v, double step)
{
    if (fabs(v) < 1e-12 * step)
        v = 0;
    double a = fabs(v);
    if (a != 0 && (a >= 1e5 || a < 1e-3))
        snprintf(buf, n, "%.2g", v);
    else
        snprintf(buf, n, "%.6g", v);
}

/* ---- drawing ---------------------------------------------------------------------------------- */

static void draw_text(cairo_t *cr, PangoLayout *layout, const char *text, double x, double y,
                      double align_x, double align_y)
{
    pango_layout_set_text(layout, text, -1);
    int w, h;
    pango_layout_get_pixel_size(layout, &w, &h);
    cairo_move_to(cr, x - align_x * w, y - align_y * h);
    pango_cairo_show_layout(cr, layout);
}

static void set_rgba(cairo_t *cr, const GdkRGBA *c)
{
    cairo_set_source_rgba(cr, c->red, c->green, c->blue, c->alpha);
}

/* Index of the point of s whose x is nearest to x (s->x increasing), or -1. */
static int nearest_index(const Series *s, double x)
{
    guint n = s->x->len;
    if (n == 0)
        return -1;
    guint lo = 0, hi = n - 1;
    while (hi - lo > 1) {
        guint mid = (lo + hi) / 2;
        if (g_array_index(s->x, double, mid) < x)
            lo = mid;
        else
            hi = mid;
    }
    double dl = fabs(g_array_index(s->x, double, lo) - x);
    double dh = fabs(g_array_index(s->x, double, hi) - x);
    return (int)(dh < dl ? hi : lo);
}

/* What draw_plot draws: the body (background, axes, series, legend) changes only with the data
 * and the view and is kept as a texture; the cursor and the hover read-out move often. */
typedef enum {
    PLOT_LAYER_BODY = 1 << 0,
    PLOT_LAYER_CURSOR = 1 << 1,
    PLOT_LAYER_HOVER = 1 << 2,
} PlotLayers;

/* The legend in rows: the first after the title (title_end), the others under it from the y
 * axis, at most LEGEND_MAX_ROWS rows (then "+N" says how many are not shown). With cr it is
 * drawn; returns the rows it takes. */
static int legend_layout(EslPlot *self, PangoLayout *layout, double width, double height,
                         double title_end, cairo_t *cr)
{
    /* a short plot keeps its height for the data: the title's row and one more (the hover
     * read-out names every series) */
    const int max_rows = CLAMP((int)((height - 100) / 40) + 1, 2, LEGEND_MAX_ROWS);
    if (self->series->len == 0 || self->legend_hidden)
        return 0;
    const double swatch = 24, gap = 14, top = 4;
    double right = width - MARGIN_RIGHT, x = MAX(MARGIN_LEFT, title_end + gap);
    int row = 0;
    pango_layout_set_ellipsize(layout, PANGO_ELLIPSIZE_END);
    for (guint i = 0; i < self->series->len; i++) {
        const Series *s = self->series->pdata[i];
        pango_layout_set_width(layout, -1);
        pango_layout_set_text(layout, s->name, -1);
        int w, h;
        pango_layout_get_pixel_size(layout, &w, &h);
        /* on the last row, room for "+N" unless this is the last entry */
        double limit = row == max_rows - 1 && i + 1 < self->series->len ? right - 26 : right;
        if (x > MARGIN_LEFT && x + swatch + w > limit) {
            row++;
            x = MARGIN_LEFT;
            limit = row == max_rows - 1 && i + 1 < self->series->len ? right - 26 : right;
        }
        if (x + swatch + w > limit) { /* alone on its row and still too long: shortened */
            pango_layout_set_width(layout, (int)(MAX(limit - x - swatch, 20) * PANGO_SCALE));
            pango_layout_get_pixel_size(layout, &w, &h);
        }
        if (row == max_rows) {
            if (cr) {
                g_autofree char *more = g_strdup_printf("+%u", self->series->len - i);
                cairo_set_source_rgb(cr, 0.35, 0.35, 0.38);
                pango_layout_set_width(layout, -1);
                draw_text(cr, layout, more, right, top + (row - 0.5) * LEGEND_LINE_H, 1.0, 0.5);
            }
            break;
        }
        if (cr) {
            double ly = top + row * LEGEND_LINE_H + LEGEND_LINE_H / 2;
            set_rgba(cr, &s->color);
            cairo_set_line_width(cr, 2.5);
            static const double dash[] = {4.0, 3.0};
            cairo_set_dash(cr, dash, s->dashed ? 2 : 0, 0);
            cairo_move_to(cr, x + 2, ly);
            cairo_line_to(cr, x + swatch - 4, ly);
            cairo_stroke(cr);
            cairo_set_dash(cr, NULL, 0, 0);
            cairo_set_source_rgb(cr, 0.12, 0.12, 0.14);
            draw_text(cr, layout, s->name, x + swatch, ly, 0.0, 0.5);
        }
        x += swatch + w + gap;
    }
    pango_layout_set_width(layout, -1);
    pango_layout_set_ellipsize(layout, PANGO_ELLIPSIZE_NONE);
    return MIN(row + 1, max_rows);
}

static void draw_plot(EslPlot *self, cairo_t *cr, double width, double height, PlotLayers layers)
{
    PangoLayout *layout = pango_cairo_create_layout(cr);
    PangoFontDescription *font = pango_font_description_from_string("Sans 8.5");
    pango_layout_set_font_description(layout, font);
    /* The title starts over the y axis, or further left (over the tick labels) when it would
     * not fit: a translated title is longer. */
    double title_x = MARGIN_LEFT, title_end = MARGIN_LEFT;
    if (self->title) {
        PangoFontDescription *bold = pango_font_description_copy(font);
        pango_font_description_set_weight(bold, PANGO_WEIGHT_BOLD);
        pango_layout_set_font_description(layout, bold);
        pango_layout_set_text(layout, self->title, -1);
        int w, h;
        pango_layout_get_pixel_size(layout, &w, &h);
        title_x = CLAMP(width - MARGIN_RIGHT - w, 6, MARGIN_LEFT);
        title_end = title_x + MIN(w, width - title_x - 4);
        pango_layout_set_font_description(layout, font);
        pango_font_description_free(bold);
    }
    self->legend_rows = legend_layout(self, layout, width, height, title_end, NULL);
    Area a = plot_area(width, height, self->legend_rows);
    double x0, x1, y0, y1;
    current_view(self, &x0, &x1, &y0, &y1);
#define PX(x) (a.left + ((x) - x0) / (x1 - x0) * a.width)
#define PY(y) (a.top + a.height - ((y) - y0) / (y1 - y0) * a.height)

    if (layers & PLOT_LAYER_BODY) {
        cairo_set_source_rgb(cr, 1, 1, 1);
        cairo_paint(cr);

        /* grid and ticks */
        cairo_set_line_width(cr, 1.0);
        char label[64];
        int max_x_ticks = MAX(2, (int)(a.width / 80));
        double xs = nice_step(x1 - x0, max_x_ticks);
        if (self->integer_x)
            xs = MAX(xs, 1.0);
        for (double t = ceil(x0 / xs) * xs; t <= x1 + 1e-9 * xs; t += xs) {
            double px = round(PX(t)) + 0.5;
            cairo_set_source_rgb(cr, 0.90, 0.90, 0.92);
            cairo_move_to(cr, px, a.top);
            cairo_line_to(cr, px, a.top + a.height);
            cairo_stroke(cr);
            cairo_set_source_rgb(cr, 0.25, 0.25, 0.28);
            format_tick(label, sizeof label, t, xs);
            draw_text(cr, layout, label, px, a.top + a.height + 3, 0.5, 0.0);
        }
        if (self->log_y) {
            int decades = (int)ceil(y1) - (int)floor(y0);
            int every = MAX(1, decades / MAX(2, (int)(a.height / 28)));
            for (int k = (int)ceil(y0); k <= (int)floor(y1); k++) {
                double py = round(PY(k)) + 0.5;
                cairo_set_source_rgb(cr, 0.90, 0.90, 0.92);
                cairo_move_to(cr, a.left, py);
                cairo_line_to(cr, a.left + a.width, py);
                cairo_stroke(cr);
                if ((k - (int)ceil(y0)) % every)
                    continue;
                cairo_set_source_rgb(cr, 0.25, 0.25, 0.28);
                snprintf(label, sizeof label, "1e%d", k);
                draw_text(cr, layout, label, a.left - 5, py, 1.0, 0.5);
            }
        } else {
            double ys = nice_step(y1 - y0, MAX(2, (int)(a.height / 36)));
            for (double t = ceil(y0 / ys) * ys; t <= y1 + 1e-9 * ys; t += ys) {
                double py = round(PY(t)) + 0.5;
                cairo_set_source_rgb(cr, 0.90, 0.90, 0.92);
                cairo_move_to(cr, a.left, py);
                cairo_line_to(cr, a.left + a.width, py);
                cairo_stroke(cr);
                cairo_set_source_rgb(cr, 0.25, 0.25, 0.28);
                format_tick(label, sizeof label, t, ys);
                draw_text(cr, layout, label, a.left - 5, py, 1.0, 0.5);
            }
        }

        /* frame, title, axis labels */
        cairo_set_source_rgb(cr, 0.55, 0.55, 0.58);
        cairo_rectangle(cr, a.left + 0.5, a.top + 0.5, a.width - 1, a.height - 1);
        cairo_stroke(cr);
        cairo_set_source_rgb(cr, 0.12, 0.12, 0.14);
        if (self->title) {
            PangoFontDescription *bold = pango_font_description_copy(font);
            pango_font_description_set_weight(bold, PANGO_WEIGHT_BOLD);
            pango_layout_set_font_description(layout, bold);
            pango_layout_set_width(layout, (int)((width - title_x - 4) * PANGO_SCALE));
            pango_layout_set_ellipsize(layout, PANGO_ELLIPSIZE_END);
            draw_text(cr, layout, self->title, title_x, 5, 0.0, 0.0);
            pango_layout_set_width(layout, -1);
            pango_layout_set_ellipsize(layout, PANGO_ELLIPSIZE_NONE);
            pango_layout_set_font_description(layout, font);
            pango_font_description_free(bold);
        }
        if (self->x_label)
            draw_text(cr, layout, self->x_label, a.left + a.width, height - 2, 1.0, 1.0);
        if (self->y_label) {
            cairo_save(cr);
            cairo_move_to(cr, 0, 0);
            cairo_translate(cr, 3, a.top + a.height / 2);
            cairo_rotate(cr, -G_PI / 2);
            /* no longer than the data area: the title, moved left over the tick labels when
             * it does not fit (a translated one), is above it */
            pango_layout_set_width(layout, (int)(MAX(a.height, 1) * PANGO_SCALE));
            pango_layout_set_ellipsize(layout, PANGO_ELLIPSIZE_END);
            draw_text(cr, layout, self->y_label, 0, 0, 0.5, 0.0);
            pango_layout_set_width(layout, -1);
            pango_layout_set_ellipsize(layout, PANGO_ELLIPSIZE_NONE);
            cairo_restore(cr);
        }

        /* series */
        cairo_save(cr);
        cairo_rectangle(cr, a.left, a.top, a.width, a.height);
        cairo_clip(cr);
        cairo_set_line_width(cr, 1.6);
        cairo_set_line_join(cr, CAIRO_LINE_JOIN_ROUND);
        for (guint i = 0; i < self->series->len; i++) {
            const Series *s = self->series->pdata[i];
            set_rgba(cr, &s->color);
            static const double dash[] = {6.0, 4.0};
            cairo_set_dash(cr, dash, s->dashed ? 2 : 0, 0);
            /* Points falling in the same pixel column are drawn as their vertical extent: the
             * picture is the same and the path stays a few segments per pixel, however long the
             * run (a 5000-step history made every frame slow under software rendering). */
            gboolean pen_down = FALSE;
            double column = 0, xlast = 0, ylo = 0, yhi = 0, ylast = 0;
            for (guint k = 0; k <= s->x->len; k++) {
                gboolean end = k == s->x->len;
                double x = end ? NAN : g_array_index(s->x, double, k);
                double y = end ? NAN : y_axis_value(self, g_array_index(s->y, double, k));
                gboolean finite = isfinite(x) && isfinite(y);
                double px = finite ? PX(x) : 0, py = finite ? PY(y) : 0;
                if (pen_down && finite && floor(px) == column) {
                    ylo = fmin(ylo, py);
                    yhi = fmax(yhi, py);
                    xlast = px;
                    ylast = py;
                    continue;
                }
                if (pen_down) { /* close the previous column */
                    if (yhi > ylo) {
                        cairo_line_to(cr, xlast, ylo);
                        cairo_line_to(cr, xlast, yhi);
                    }
                    cairo_line_to(cr, xlast, ylast);
                }
                if (!finite) {
                    pen_down = FALSE;
                    continue;
                }
                if (pen_down)
                    cairo_line_to(cr, px, py);
                else
                    cairo_move_to(cr, px, py);
                pen_down = TRUE;
                column = floor(px);
                xlast = px;
                ylo = yhi = ylast = py;
            }
            if (s->x->len == 1) { /* a single point: a dot */
                double x = g_array_index(s->x, double, 0);
                double y = y_axis_value(self, g_array_index(s->y, double, 0));
                if (isfinite(y))
                    cairo_arc(cr, PX(x), PY(y), 2.0, 0, 2 * G_PI);
            }
            cairo_stroke(cr);
        }
        cairo_set_dash(cr, NULL, 0, 0);

        cairo_restore(cr);

        /* a log axis cannot show zeros: say so rather than show an empty frame */
        double ex0, ex1, ey0, ey1;
        gboolean has_points = FALSE;
        for (guint i = 0; i < self->series->len; i++)
            has_points |= ((Series *)self->series->pdata[i])->x->len > 0;
        if (self->log_y && has_points && !data_extent(self, &ex0, &ex1, &ey0, &ey1)) {
            cairo_set_source_rgb(cr, 0.35, 0.35, 0.38);
            draw_text(cr, layout, _("all values are zero (log scale)"), a.left + a.width / 2,
                      a.top + a.height / 2, 0.5, 0.5);
        }

        legend_layout(self, layout, width, height, title_end, cr);
    }

    /* time cursor */
    if ((layers & PLOT_LAYER_CURSOR) && isfinite(self->cursor) && self->cursor >= x0 &&
        self->cursor <= x1) {
        static const double cursor_dash[] = {5.0, 3.0};
        cairo_set_source_rgba(cr, 0.10, 0.10, 0.12, 0.75);
        cairo_set_line_width(cr, 1.5);
        cairo_set_dash(cr, cursor_dash, 2, 0);
        cairo_move_to(cr, PX(self->cursor), a.top);
        cairo_line_to(cr, PX(self->cursor), a.top + a.height);
        cairo_stroke(cr);
        cairo_set_dash(cr, NULL, 0, 0);
    }

    /* hover read-out */
    if ((layers & PLOT_LAYER_HOVER) && self->hovering && self->hover_px >= a.left &&
        self->hover_px <= a.left + a.width && self->series->len > 0) {
        double hx = x0 + (self->hover_px - a.left) / a.width * (x1 - x0);
        GString *text = g_string_new(NULL);
        double shown_x = NAN;
        for (guint i = 0; i < self->series->len; i++) {
            const Series *s = self->series->pdata[i];
            int k = nearest_index(s, hx);
            if (k < 0)
                continue;
            if (!isfinite(shown_x)) {
                shown_x = g_array_index(s->x, double, k);
                g_string_append_printf(text, "%s = %.6g", self->x_label ? self->x_label : "x",
                                       shown_x);
            }
            g_string_append_printf(text, "\n%s: %.6g", s->name, g_array_index(s->y, double, k));
        }
        if (text->len) {
            pango_layout_set_text(layout, text->str, -1);
            int w, h;
            pango_layout_get_pixel_size(layout, &w, &h);
            double bx = self->hover_px + 12, by = self->hover_py + 12;
            if (bx + w + 10 > width)
                bx = self->hover_px - w - 22;
            bx = MAX(bx, 2.0); /* wider than either side: keep its start in view */
            if (by + h + 8 > height)
                by = height - h - 8;
            cairo_set_source_rgba(cr, 0.15, 0.15, 0.18, 0.88);
            cairo_rectangle(cr, bx, by, w + 10, h + 6);
            cairo_fill(cr);
            cairo_set_source_rgb(cr, 1, 1, 1);
            cairo_move_to(cr, bx + 5, by + 3);
            pango_cairo_show_layout(cr, layout);
            cairo_set_source_rgba(cr, 0.3, 0.3, 0.35, 0.5);
            cairo_set_line_width(cr, 1);
            cairo_move_to(cr, self->hover_px + 0.5, a.top);
            cairo_line_to(cr, self->hover_px + 0.5, a.top + a.height);
            cairo_stroke(cr);
        }
        g_string_free(text, TRUE);
    }
#undef PX
#undef PY
    pango_font_description_free(font);
    g_object_unref(layout);
}

/* The body drawn into an image at the widget's size and scale, as a texture. */
static GdkTexture *render_body(EslPlot *self, int width, int height, int scale)
{
    cairo_surface_t *surface =
        cairo_image_surface_create(CAIRO_FORMAT_ARGB32, width * scale, height * scale);
    cairo_surface_set_device_scale(surface, scale, scale);
    cairo_t *cr = cairo_create(surface);
    cairo_scale(cr, self->zoom, self->zoom);
    draw_plot(self, cr, width / self->zoom, height / self->zoom, PLOT_LAYER_BODY);
    cairo_destroy(cr);
    cairo_surface_flush(surface);
    int stride = cairo_image_surface_get_stride(surface);
    GBytes *bytes = g_bytes_new_with_free_func(
        cairo_image_surface_get_data(surface), (gsize)stride * height * scale,
        (GDestroyNotify)cairo_surface_destroy, surface);
    /* cairo's ARGB32 is premultiplied, native-endian: GDK's default memory format */
    GdkTexture *texture = gdk_memory_texture_new(width * scale, height * scale,
                                                 GDK_MEMORY_DEFAULT, bytes, (gsize)stride);
    g_bytes_unref(bytes);
    return texture;
}

/* Redraw the body at the next frame (data, view or style changed). */
/* Zoomed or panned, by the user or by a linked plot: say so, with a one-click way back. */
static gboolean is_zoomed(const EslPlot *self)
{
    return !self->auto_range || isfinite(self->link_x0);
}

static void invalidate(EslPlot *self)
{
    if (self->reset)
        gtk_widget_set_visible(self->reset, is_zoomed(self));
    if (self->refresh_tick) {
        gtk_widget_remove_tick_callback(GTK_WIDGET(self), self->refresh_tick);
        self->refresh_tick = 0;
    }
    g_clear_object(&self->body);
    gtk_widget_queue_draw(GTK_WIDGET(self));
}

static gboolean refresh_when_turn(GtkWidget *widget, GdkFrameClock *clock, gpointer data)
{
    (void)data;
    EslPlot *self = ESL_PLOT(widget);
    gint64 frame = gdk_frame_clock_get_frame_counter(clock);
    if (frame == live_refresh_frame)
        return G_SOURCE_CONTINUE; /* another plot's turn */
    live_refresh_frame = frame;
    self->refresh_tick = 0;
    invalidate(self);
    return G_SOURCE_REMOVE;
}

/* New data: redraw the body in a frame where no other plot does. */
static void refresh_soon(EslPlot *self)
{
    if (!self->body || !gtk_widget_get_mapped(GTK_WIDGET(self))) {
        invalidate(self);
        return;
    }
    if (!self->refresh_tick)
        self->refresh_tick =
            gtk_widget_add_tick_callback(GTK_WIDGET(self), refresh_when_turn, NULL, NULL);
}

static void esl_plot_snapshot(GtkWidget *widget, GtkSnapshot *snapshot)
{
    EslPlot *self = ESL_PLOT(widget);
    int w = gtk_widget_get_width(widget), h = gtk_widget_get_height(widget);
    int scale = gtk_widget_get_scale_factor(widget);
    if (w <= 0 || h <= 0)
        return;
    if (!self->body || self->body_width != w || self->body_height != h ||
        self->body_scale != scale) {
        g_clear_object(&self->body);
        self->body = render_body(self, w, h, scale);
        self->body_width = w;
        self->body_height = h;
        self->body_scale = scale;
    }
    graphene_rect_t bounds = GRAPHENE_RECT_INIT(0, 0, w, h);
    gtk_snapshot_append_texture(snapshot, self->body, &bounds);
    if (isfinite(self->cursor) || self->hovering) {
        cairo_t *cr = gtk_snapshot_append_cairo(snapshot, &bounds);
        cairo_scale(cr, self->zoom, self->zoom);
        draw_plot(self, cr, w / self->zoom, h / self->zoom, PLOT_LAYER_CURSOR | PLOT_LAYER_HOVER);
        cairo_destroy(cr);
    }
    if (self->reset)
        gtk_widget_snapshot_child(widget, self->reset, snapshot);
}

static void esl_plot_measure(GtkWidget *widget, GtkOrientation orientation, int for_size,
                             int *minimum, int *natural, int *minimum_baseline,
                             int *natural_baseline)
{
    (void)widget;
    (void)for_size;
    /* small enough for three plots side by side next to both side panels at 1280x720 */
    *minimum = orientation == GTK_ORIENTATION_HORIZONTAL ? 160 : 110;
    *natural = orientation == GTK_ORIENTATION_HORIZONTAL ? 420 : 220;
    *minimum_baseline = *natural_baseline = -1;
}

/* ---- interaction ------------------------------------------------------------------------------ */

/* The data area in drawing units (widget pixels / zoom), as last drawn. */
static Area view_area(EslPlot *self)
{
    return plot_area(gtk_widget_get_width(GTK_WIDGET(self)) / self->zoom,
                     gtk_widget_get_height(GTK_WIDGET(self)) / self->zoom, self->legend_rows);
}

static void freeze_view(EslPlot *self)
{
    if (self->auto_range) {
        current_view(self, &self->x0, &self->x1, &self->y0, &self->y1);
        self->auto_range = FALSE;
    }
}

static void on_drag_begin(GtkGestureDrag *gesture, double x, double y, EslPlot *self)
{
    (void)gesture;
    (void)x;
    (void)y;
    current_view(self, &self->drag_x0, &self->drag_x1, &self->drag_y0, &self->drag_y1);
}

static void on_drag_update(GtkGestureDrag *gesture, double dx, double dy, EslPlot *self)
{
    (void)gesture;
    if (fabs(dx) < 3 && fabs(dy) < 3)
        return;
    dx /= self->zoom;
    dy /= self->zoom;
    Area a = view_area(self);
    double sx = dx / a.width * (self->drag_x1 - self->drag_x0);
    double sy = dy / a.height * (self->drag_y1 - self->drag_y0);
    self->auto_range = FALSE;
    self->x0 = self->drag_x0 - sx;
    self->x1 = self->drag_x1 - sx;
    self->y0 = self->drag_y0 + sy;
    self->y1 = self->drag_y1 + sy;
    invalidate(self);
    g_signal_emit(self, signals[SIGNAL_TIME_RANGE_CHANGED], 0, self->x0, self->x1);
}

static void on_click_released(GtkGestureClick *gesture, int n_press, double x, double y,
                              EslPlot *self)
{
    (void)gesture;
    (void)y;
    if (n_press == 2) { /* the plot takes the board's area, or gives it back */
        gtk_widget_activate_action(GTK_WIDGET(self), "plot.maximized", NULL);
        return;
    }
    x /= self->zoom;
    Area a = view_area(self);
    if (x < a.left || x > a.left + a.width)
        return;
    double x0, x1, y0, y1;
    current_view(self, &x0, &x1, &y0, &y1);
    double t = x0 + (x - a.left) / a.width * (x1 - x0);
    esl_plot_set_cursor(self, t);
    g_signal_emit(self, signals[SIGNAL_CURSOR_MOVED], 0, t);
}

static gboolean on_scroll(GtkEventControllerScroll *controller, double dx, double dy,
                          EslPlot *self)
{
    (void)dx;
    GdkModifierType mods =
        gtk_event_controller_get_current_event_state(GTK_EVENT_CONTROLLER(controller));
    Area a = view_area(self);
    freeze_view(self);
    double factor = pow(1.2, dy);
    if (mods & GDK_CONTROL_MASK) {
        double fy = self->hovering ? 1.0 - (self->hover_py - a.top) / a.height : 0.5;
        double centre = self->y0 + fy * (self->y1 - self->y0);
        self->y0 = centre - (centre - self->y0) * factor;
        self->y1 = centre + (self->y1 - centre) * factor;
    } else {
        double fx = self->hovering ? (self->hover_px - a.left) / a.width : 0.5;
        double centre = self->x0 + fx * (self->x1 - self->x0);
        self->x0 = centre - (centre - self->x0) * factor;
        self->x1 = centre + (self->x1 - centre) * factor;
    }
    invalidate(self);
    g_signal_emit(self, signals[SIGNAL_TIME_RANGE_CHANGED], 0, self->x0, self->x1);
    return TRUE;
}

static void on_motion(GtkEventControllerMotion *controller, double x, double y, EslPlot *self)
{
    (void)controller;
    self->hovering = TRUE;
    self->hover_px = x / self->zoom;
    self->hover_py = y / self->zoom;
    gtk_widget_queue_draw(GTK_WIDGET(self));
}

static void on_leave(GtkEventControllerMotion *controller, EslPlot *self)
{
    (void)controller;
    self->hovering = FALSE;
    gtk_widget_queue_draw(GTK_WIDGET(self));
}

/* ---- context menu: export, fit, log scale ------------------------------------------------------ */

static void on_export_response(GtkNativeDialog *dialog, int response, gpointer data)
{
    EslPlot *self = data;
    if (response == GTK_RESPONSE_ACCEPT) {
        g_autoptr(GFile) file = gtk_file_chooser_get_file(GTK_FILE_CHOOSER(dialog));
        g_autofree char *path = file ? g_file_get_path(file) : NULL;
        g_autoptr(GError) error = NULL;
        int w = MAX(gtk_widget_get_width(GTK_WIDGET(self)), 320);
        int h = MAX(gtk_widget_get_height(GTK_WIDGET(self)), 200);
        if (path && !esl_plot_export(self, path, 2 * w, 2 * h, &error))
            g_warning("%s", error->message);
    }
    gtk_native_dialog_destroy(dialog);
    g_object_unref(dialog);
    g_object_unref(self);
}

static void action_export(GtkWidget *widget, const char *name, GVariant *parameter)
{
    (void)name;
    (void)parameter;
    EslPlot *self = ESL_PLOT(widget);
    GtkRoot *root = gtk_widget_get_root(widget);
    GtkFileChooserNative *chooser = gtk_file_chooser_native_new(
        _("Export Plot"), GTK_IS_WINDOW(root) ? GTK_WINDOW(root) : NULL,
        GTK_FILE_CHOOSER_ACTION_SAVE, _("_Export"), _("_Cancel"));
    g_autofree char *base = g_strdup(self->title ? self->title : _("plot"));
    g_strdelimit(base, " /", '-');
    g_autofree char *name_png = g_strconcat(base, ".png", NULL);
    gtk_file_chooser_set_current_name(GTK_FILE_CHOOSER(chooser), name_png);
    static const struct {
        const char *name, *pattern;
    } formats[] = {{N_("PNG image"), "*.png"}, {N_("SVG drawing"), "*.svg"},
                   {N_("CSV data (series, x, y)"), "*.csv"}};
    for (size_t i = 0; i < G_N_ELEMENTS(formats); i++) {
        GtkFileFilter *filter = gtk_file_filter_new();
        gtk_file_filter_set_name(filter, _(formats[i].name));
        gtk_file_filter_add_pattern(filter, formats[i].pattern);
        gtk_file_chooser_add_filter(GTK_FILE_CHOOSER(chooser), filter);
        g_object_unref(filter);
    }
    g_signal_connect(chooser, "response", G_CALLBACK(on_export_response), g_object_ref(self));
    gtk_native_dialog_show(GTK_NATIVE_DIALOG(chooser));
}

static void action_fit(GtkWidget *widget, const char *name, GVariant *parameter)
{
    (void)name;
    (void)parameter;
    esl_plot_fit(ESL_PLOT(widget));
}

static void action_log_scale(GtkWidget *widget, const char *name, GVariant *parameter)
{
    (void)name;
    (void)parameter;
    EslPlot *self = ESL_PLOT(widget);
    esl_plot_set_log_y(self, !self->log_y);
}

static void on_context_click(GtkGestureClick *gesture, int n_press, double x, double y,
                             EslPlot *self)
{
    (void)gesture;
    (void)n_press;
    if (!self->menu) {
        GMenu *menu = g_menu_new();
        g_menu_append(menu, _("Export as PNG, SVG or CSV…"), "plot.export");
        g_menu_append(menu, _("Fit to the Data"), "plot.fit");
        g_menu_append(menu, _("Logarithmic / Linear Scale"), "plot.log-scale");
        g_menu_append(menu, _("Maximise (Double Click)"), "plot.maximized");
        self->menu = gtk_popover_menu_new_from_model(G_MENU_MODEL(menu));
        g_object_unref(menu);
        gtk_widget_set_parent(self->menu, GTK_WIDGET(self));
        gtk_popover_set_has_arrow(GTK_POPOVER(self->menu), FALSE);
    }
    gtk_popover_set_pointing_to(GTK_POPOVER(self->menu), &(GdkRectangle){(int)x, (int)y, 1, 1});
    gtk_popover_popup(GTK_POPOVER(self->menu));
}

static void esl_plot_size_allocate(GtkWidget *widget, int width, int height, int baseline)
{
    (void)height;
    (void)baseline;
    EslPlot *self = ESL_PLOT(widget);
    if (self->menu)
        gtk_popover_present(GTK_POPOVER(self->menu));
    if (self->reset) { /* at the top right, over the title's end */
        int w, h;
        gtk_widget_measure(self->reset, GTK_ORIENTATION_HORIZONTAL, -1, NULL, &w, NULL, NULL);
        gtk_widget_measure(self->reset, GTK_ORIENTATION_VERTICAL, w, NULL, &h, NULL, NULL);
        w = MIN(w, width);
        gtk_widget_size_allocate(self->reset, &(GtkAllocation){width - w - 2, 2, w, h}, -1);
    }
}

static void on_reset_clicked(GtkButton *button, EslPlot *self)
{
    (void)button;
    esl_plot_fit(self);
    g_signal_emit(self, signals[SIGNAL_TIME_RANGE_CHANGED], 0, NAN, NAN);
}

/* ---- object ----------------------------------------------------------------------------------- */

static void esl_plot_dispose(GObject *object)
{
    EslPlot *self = ESL_PLOT(object);
    g_clear_pointer(&self->menu, gtk_widget_unparent);
    g_clear_pointer(&self->reset, gtk_widget_unparent);
    G_OBJECT_CLASS(esl_plot_parent_class)->dispose(object);
}

static void esl_plot_finalize(GObject *object)
{
    EslPlot *self = ESL_PLOT(object);
    g_ptr_array_unref(self->series);
    g_clear_object(&self->body);
    g_free(self->title);
    g_free(self->x_label);
    g_free(self->y_label);
    G_OBJECT_CLASS(esl_plot_parent_class)->finalize(object);
}

static void esl_plot_get_property(GObject *object, guint id, GValue *value, GParamSpec *pspec)
{
    if (id == PROP_MAXIMIZED)
        g_value_set_boolean(value, ESL_PLOT(object)->maximized);
    else
        G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, pspec);
}

static void esl_plot_set_property(GObject *object, guint id, const GValue *value,
                                  GParamSpec *pspec)
{
    if (id == PROP_MAXIMIZED)
        esl_plot_set_maximized(ESL_PLOT(object), g_value_get_boolean(value));
    else
        G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, pspec);
}

static void esl_plot_class_init(EslPlotClass *klass)
{
    GtkWidgetClass *widget_class = GTK_WIDGET_CLASS(klass);
    G_OBJECT_CLASS(klass)->get_property = esl_plot_get_property;
    G_OBJECT_CLASS(klass)->set_property = esl_plot_set_property;
    props[PROP_MAXIMIZED] = g_param_spec_boolean(
        "maximized", NULL, NULL, FALSE,
        G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
    g_object_class_install_properties(G_OBJECT_CLASS(klass), N_PROPS, props);
    G_OBJECT_CLASS(klass)->finalize = esl_plot_finalize;
    G_OBJECT_CLASS(klass)->dispose = esl_plot_dispose;
    widget_class->snapshot = esl_plot_snapshot;
    widget_class->measure = esl_plot_measure;
    widget_class->size_allocate = esl_plot_size_allocate;
    gtk_widget_class_install_action(widget_class, "plot.export", NULL, action_export);
    gtk_widget_class_install_action(widget_class, "plot.fit", NULL, action_fit);
    gtk_widget_class_install_action(widget_class, "plot.log-scale", NULL, action_log_scale);
    gtk_widget_class_install_property_action(widget_class, "plot.maximized", "maximized");
    gtk_widget_class_set_css_name(widget_class, "eslplot");
    signals[SIGNAL_CURSOR_MOVED] =
        g_signal_new("cursor-moved", G_TYPE_FROM_CLASS(klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL,
                     NULL, G_TYPE_NONE, 1, G_TYPE_DOUBLE);
    signals[SIGNAL_TIME_RANGE_CHANGED] =
        g_signal_new("time-range-changed", G_TYPE_FROM_CLASS(klass), G_SIGNAL_RUN_LAST, 0, NULL,
                     NULL, NULL, G_TYPE_NONE, 2, G_TYPE_DOUBLE, G_TYPE_DOUBLE);
}

static void esl_plot_init(EslPlot *self)
{
    self->series = g_ptr_array_new_with_free_func((GDestroyNotify)series_free);
    self->cursor = NAN;
    self->auto_range = TRUE;
    self->zoom = 1.0;
    self->link_x0 = self->link_x1 = NAN;
    GtkWidget *w = GTK_WIDGET(self);
    gtk_widget_set_focusable(w, FALSE);
    /* an icon: a text button would cover the title and legend of a plot 190 px wide */
    self->reset = gtk_button_new_from_icon_name("zoom-original-symbolic");
    gtk_widget_add_css_class(self->reset, "osd");
    gtk_widget_add_css_class(self->reset, "plot-reset");
    gtk_widget_set_tooltip_text(self->reset, _("Reset zoom: show the whole run again in every "
                                               "plot"));
    gtk_accessible_update_property(GTK_ACCESSIBLE(self->reset), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                   _("Reset zoom"), -1);
    g_signal_connect(self->reset, "clicked", G_CALLBACK(on_reset_clicked), self);
    gtk_widget_set_parent(self->reset, w);
    gtk_widget_set_visible(self->reset, FALSE);

    GtkGesture *drag = gtk_gesture_drag_new();
    gtk_gesture_single_set_button(GTK_GESTURE_SINGLE(drag), GDK_BUTTON_PRIMARY);
    g_signal_connect(drag, "drag-begin", G_CALLBACK(on_drag_begin), self);
    g_signal_connect(drag, "drag-update", G_CALLBACK(on_drag_update), self);
    gtk_widget_add_controller(w, GTK_EVENT_CONTROLLER(drag));

    GtkGesture *click = gtk_gesture_click_new();
    g_signal_connect(click, "released", G_CALLBACK(on_click_released), self);
    gtk_widget_add_controller(w, GTK_EVENT_CONTROLLER(click));

    GtkGesture *context = gtk_gesture_click_new();
    gtk_gesture_single_set_button(GTK_GESTURE_SINGLE(context), GDK_BUTTON_SECONDARY);
    g_signal_connect(context, "pressed", G_CALLBACK(on_context_click), self);
    gtk_widget_add_controller(w, GTK_EVENT_CONTROLLER(context));

    GtkEventController *scroll = gtk_event_controller_scroll_new(
        GTK_EVENT_CONTROLLER_SCROLL_VERTICAL | GTK_EVENT_CONTROLLER_SCROLL_DISCRETE);
    g_signal_connect(scroll, "scroll", G_CALLBACK(on_scroll), self);
    gtk_widget_add_controller(w, scroll);

    GtkEventController *motion = gtk_event_controller_motion_new();
    g_signal_connect(motion, "motion", G_CALLBACK(on_motion), self);
    g_signal_connect(motion, "leave", G_CALLBACK(on_leave), self);
    gtk_widget_add_controller(w, motion);
}

GtkWidget *esl_plot_new(void)
{
    return g_object_new(ESL_TYPE_PLOT, NULL);
}

void esl_plot_set_maximized(EslPlot *self, gboolean maximized)
{
    maximized = !!maximized;
    if (self->maximized == maximized)
        return;
    self->maximized = maximized;
    g_object_notify_by_pspec(G_OBJECT(self), props[PROP_MAXIMIZED]);
}

gboolean esl_plot_get_maximized(EslPlot *self)
{
    return self->maximized;
}

void esl_plot_set_legend_hidden(EslPlot *self, gboolean hidden)
{
    hidden = !!hidden;
    if (self->legend_hidden == hidden)
        return;
    self->legend_hidden = hidden;
    invalidate(self);
}

gboolean esl_plot_get_legend_hidden(EslPlot *self)
{
    return self->legend_hidden;
}

void esl_plot_set_title(EslPlot *self, const char *title)
{
    g_free(self->title);
    self->title = g_strdup(title);
    invalidate(self);
}

const char *esl_plot_get_title(EslPlot *self)
{
    return self->title;
}

void esl_plot_set_labels(EslPlot *self, const char *x_label, const char *y_label)
{
    g_free(self->x_label);
    g_free(self->y_label);
    self->x_label = g_strdup(x_label);
    self->y_label = g_strdup(y_label);
    invalidate(self);
}

void esl_plot_set_integer_x(EslPlot *self, gboolean integer_x)
{
    self->integer_x = integer_x;
    invalidate(self);
}

void esl_plot_set_log_y(EslPlot *self, gboolean log_y)
{
    self->log_y = log_y;
    self->auto_range = TRUE;
    invalidate(self);
}

void esl_plot_set_time_range(EslPlot *self, double x0, double x1)
{
    if (!(isfinite(x0) && isfinite(x1) && x1 > x0)) {
        self->link_x0 = self->link_x1 = NAN;
        self->auto_range = TRUE;
    } else if (self->auto_range) {
        self->link_x0 = x0;
        self->link_x1 = x1;
    } else {
        self->x0 = x0;
        self->x1 = x1;
    }
    invalidate(self);
}

void esl_plot_get_time_range(EslPlot *self, double *x0, double *x1)
{
    double y0, y1;
    current_view(self, x0, x1, &y0, &y1);
}

void esl_plot_set_zoom(EslPlot *self, double zoom)
{
    self->zoom = isfinite(zoom) ? CLAMP(zoom, 0.5, 4.0) : 1.0;
    invalidate(self);
}

double esl_plot_get_zoom(EslPlot *self)
{
    return self->zoom;
}

gboolean esl_plot_get_log_y(EslPlot *self)
{
    return self->log_y;
}

int esl_plot_add_series(EslPlot *self, const char *name, const GdkRGBA *color, gboolean dashed)
{
    Series *s = g_new0(Series, 1);
    s->name = g_strdup(name);
    s->color = *color;
    s->dashed = dashed;
    s->x = g_array_new(FALSE, FALSE, sizeof(double));
    s->y = g_array_new(FALSE, FALSE, sizeof(double));
    g_ptr_array_add(self->series, s);
    invalidate(self);
    return (int)self->series->len - 1;
}

void esl_plot_remove_series(EslPlot *self, int series)
{
    g_return_if_fail(series >= 0 && (guint)series < self->series->len);
    g_ptr_array_remove_index(self->series, (guint)series);
    invalidate(self);
}

int esl_plot_find_series(EslPlot *self, const char *name)
{
    for (guint i = 0; i < self->series->len; i++)
        if (g_strcmp0(((Series *)self->series->pdata[i])->name, name) == 0)
            return (int)i;
    return -1;
}

const char *esl_plot_series_name(EslPlot *self, int series)
{
    g_return_val_if_fail(series >= 0 && (guint)series < self->series->len, NULL);
    return ((Series *)self->series->pdata[series])->name;
}

int esl_plot_get_n_series(EslPlot *self)
{
    return (int)self->series->len;
}

void esl_plot_append_many(EslPlot *self, int series, const double *x, const double *y, int n)
{
    g_return_if_fail(series >= 0 && (guint)series < self->series->len);
    Series *s = self->series->pdata[series];
    g_array_append_vals(s->x, x, (guint)n);
    g_array_append_vals(s->y, y, (guint)n);
    refresh_soon(self);
}

void esl_plot_append(EslPlot *self, int series, double x, double y)
{
    esl_plot_append_many(self, series, &x, &y, 1);
}

int esl_plot_series_length(EslPlot *self, int series)
{
    g_return_val_if_fail(series >= 0 && (guint)series < self->series->len, 0);
    return (int)((Series *)self->series->pdata[series])->x->len;
}

void esl_plot_clear(EslPlot *self)
{
    g_ptr_array_set_size(self->series, 0);
    self->auto_range = TRUE;
    invalidate(self);
}

void esl_plot_set_cursor(EslPlot *self, double x)
{
    self->cursor = x;
    gtk_widget_queue_draw(GTK_WIDGET(self));
}

double esl_plot_get_cursor(EslPlot *self)
{
    return self->cursor;
}

void esl_plot_fit(EslPlot *self)
{
    self->auto_range = TRUE;
    self->link_x0 = self->link_x1 = NAN; /* and not a linked plot's range either */
    invalidate(self);
}

static gboolean export_csv(EslPlot *self, const char *path, GError **error)
{
    GString *csv = g_string_new("series,x,y\n");
    /* Quotes, backslashes and control characters are escaped; bytes of UTF-8 sequences
     * (0x80-0xff) are kept as they are, so "‖Φ‖" stays readable. */
    char utf8_bytes[129];
    for (int b = 0; b < 128; b++)
        utf8_bytes[b] = (char)(0x80 + b);
    utf8_bytes[128] = '\0';
    for (guint i = 0; i < self->series->len; i++) {
        const Series *s = self->series->pdata[i];
        g_autofree char *quoted = g_strescape(s->name, utf8_bytes);
        for (guint k = 0; k < s->x->len; k++)
        {
            /* A file: a decimal point whatever the locale. */
            char x[G_ASCII_DTOSTR_BUF_SIZE], y[G_ASCII_DTOSTR_BUF_SIZE];
            g_string_append_printf(
                csv, "\"%s\",%s,%s\n", quoted,
                g_ascii_formatd(x, sizeof x, "%.17g", g_array_index(s->x, double, k)),
                g_ascii_formatd(y, sizeof y, "%.17g", g_array_index(s->y, double, k)));
        }
    }
    gboolean ok = g_file_set_contents(path, csv->str, (gssize)csv->len, error);
    g_string_free(csv, TRUE);
    return ok;
}

gboolean esl_plot_export(EslPlot *self, const char *path, int width, int height, GError **error)
{
    g_autofree char *lower = g_ascii_strdown(path, -1);
    if (g_str_has_suffix(lower, ".csv"))
        return export_csv(self, path, error);
    cairo_surface_t *surface;
    gboolean png = g_str_has_suffix(lower, ".png");
    if (png)
        surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, width, height);
    else if (g_str_has_suffix(lower, ".svg"))
        surface = cairo_svg_surface_create(path, width, height);
    else {
        g_set_error(error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                    _("Unknown export format for %s: use .png, .svg or .csv"), path);
        return FALSE;
    }
    cairo_t *cr = cairo_create(surface);
    draw_plot(self, cr, width, height, PLOT_LAYER_BODY | PLOT_LAYER_CURSOR);
    cairo_destroy(cr);
    cairo_status_t status = CAIRO_STATUS_SUCCESS;
    if (png)
        status = cairo_surface_write_to_png(surface, path);
    cairo_surface_finish(surface);
    if (status == CAIRO_STATUS_SUCCESS)
        status = cairo_surface_status(surface);
    cairo_surface_destroy(surface);
    if (status != CAIRO_STATUS_SUCCESS) {
        g_set_error(error, G_IO_ERROR, G_IO_ERROR_FAILED, _("Cannot write %s: %s"), path,
                    cairo_status_to_string(status));
        return FALSE;
    }
    return TRUE;
}
