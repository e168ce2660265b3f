/* Scatter plot; see esl-scatter-plot.h. */
#include "esl-scatter-plot.h"

#include <math.h>

#define MARGIN_LEFT 64.0
#define MARGIN_RIGHT 16.0
#define MARGIN_TOP 28.0
#define MARGIN_BOTTOM 42.0
#define LEGEND_ROW 16.0
#define HIT_RADIUS 8.0
#define COLOR_BAR_WIDTH 96.0

typedef struct {
    double x, y;
    int tag;
    double value; /* the colour map's (NAN: none) */
} Point;

typedef struct {
    char *name;
    GdkRGBA color;
    gboolean lines;
    GArray *points; /* Point */
} Series;

struct _EslScatterPlot {
    GtkWidget parent_instance;
    char *title, *x_label, *y_label, *highlight_label, *reference_label;
    gboolean log_x, log_y;
    GPtrArray *series; /* Series* */
    int highlight;
    double reference;
    /* the mapping as last drawn: data (log10 when log) to pixels */
    double x0, x1, y0, y1, left, right, top, bottom;
    gboolean drawn;
    char *color_label; /* the colour bar's, or NULL: no colour map */
};

G_DEFINE_FINAL_TYPE(EslScatterPlot, esl_scatter_plot, GTK_TYPE_WIDGET)

enum { SIGNAL_POINT_ACTIVATED, N_SIGNALS };
static guint signals[N_SIGNALS];

static void series_free(gpointer data)
{
    Series *s = data;
    g_free(s->name);
    g_array_unref(s->points);
    g_free(s);
}

GtkWidget *esl_scatter_plot_new(void)
{
    return g_object_new(ESL_TYPE_SCATTER_PLOT, NULL);
}

static void replace(char **field, const char *text)
{
    g_free(*field);
    *field = g_strdup(text);
}

void esl_scatter_plot_set_title(EslScatterPlot *self, const char *title)
{
    replace(&self->title, title);
    gtk_widget_queue_draw(GTK_WIDGET(self));
}

void esl_scatter_plot_set_labels(EslScatterPlot *self, const char *x_label, const char *y_label)
{
    replace(&self->x_label, x_label);
    replace(&self->y_label, y_label);
    gtk_widget_queue_draw(GTK_WIDGET(self));
}

void esl_scatter_plot_set_log(EslScatterPlot *self, gboolean log_x, gboolean log_y)
{
    self->log_x = log_x;
    self->log_y = log_y;
    gtk_widget_queue_draw(GTK_WIDGET(self));
}

void esl_scatter_plot_clear(EslScatterPlot *self)
{
    g_ptr_array_set_size(self->series, 0);
    self->highlight = -1;
    self->reference = NAN;
    g_clear_pointer(&self->highlight_label, g_free);
    g_clear_pointer(&self->reference_label, g_free);
    g_clear_pointer(&self->color_label, g_free);
    gtk_widget_queue_draw(GTK_WIDGET(self));
}

int esl_scatter_plot_add_series(EslScatterPlot *self, const char *name, const GdkRGBA *color,
                                gboolean lines)
{
    Series *s = g_new0(Series, 1);
    s->name = g_strdup(name);
    s->color = *color;
    s->lines = lines;
    s->points = g_array_new(FALSE, FALSE, sizeof(Point));
    g_ptr_array_add(self->series, s);
    gtk_widget_queue_draw(GTK_WIDGET(self));
    return (int)self->series->len - 1;
}

void esl_scatter_plot_add_point(EslScatterPlot *self, int series, double x, double y, int tag)
{
    g_return_if_fail(series >= 0 && (guint)series < self->series->len);
    if (!isfinite(x) || !isfinite(y))
        return;
    Point p = {x, y, tag, NAN};
    g_array_append_val(((Series *)self->series->pdata[series])->points, p);
    gtk_widget_queue_draw(GTK_WIDGET(self));
}

void esl_scatter_plot_set_highlight(EslScatterPlot *self, int tag, const char *label)
{
    self->highlight = tag;
    replace(&self->highlight_label, label);
    gtk_widget_queue_draw(GTK_WIDGET(self));
}

int esl_scatter_plot_get_highlight(EslScatterPlot *self)
{
    return self->highlight;
}

void esl_scatter_plot_set_reference(EslScatterPlot *self, double y, const char *label)
{
    self->reference = y;
    replace(&self->reference_label, label);
    gtk_widget_queue_draw(GTK_WIDGET(self));
}

int esl_scatter_plot_get_n_series(EslScatterPlot *self)
{
    return (int)self->series->len;
}

const char *esl_scatter_plot_series_name(EslScatterPlot *self, int series)
{
    g_return_val_if_fail(series >= 0 && (guint)series < self->series->len, NULL);
    return ((Series *)self->series->pdata[series])->name;
}

int esl_scatter_plot_series_length(EslScatterPlot *self, int series)
{
    g_return_val_if_fail(series >= 0 && (guint)series < self->series->len, 0);
    return (int)((Series *)self->series->pdata[series])->points->len;
}

gboolean esl_scatter_plot_get_point(EslScatterPlot *self, int series, int i, double *x,
                                    double *y, int *tag)
{
    if (series < 0 || (guint)series >= self->series->len)
        return FALSE;
    GArray *pts = ((Series *)self->series->pdata[series])->points;
    if (i < 0 || (guint)i >= pts->len)
        return FALSE;
    const Point *p = &g_array_index(pts, Point, i);
    *x = p->x;
    *y = p->y;
    *tag = p->tag;
    return TRUE;
}

static void text_at(cairo_t *cr, PangoLayout *layout, const char *text, double x, double y,
                    double ax, double ay);

/* ---- the colour map --------------------------------------------------------------------------- */

void esl_scatter_plot_set_color_bar(EslScatterPlot *self, const char *label)
{
    replace(&self->color_label, label);
    gtk_widget_queue_draw(GTK_WIDGET(self));
}

gboolean esl_scatter_plot_has_color_bar(EslScatterPlot *self)
{
    return self->color_label != NULL;
}

void esl_scatter_plot_add_valued_point(EslScatterPlot *self, int series, double x, double y,
                                       double value, int tag)
{
    int before = esl_scatter_plot_series_length(self, series);
    esl_scatter_plot_add_point(self, series, x, y, tag);
    GArray *pts = ((Series *)self->series->pdata[series])->points;
    if ((int)pts->len > before)
        g_array_index(pts, Point, pts->len - 1).value = value;
}

double esl_scatter_plot_get_point_value(EslScatterPlot *self, int series, int i)
{
    if (series < 0 || (guint)series >= self->series->len)
        return NAN;
    GArray *pts = ((Series *)self->series->pdata[series])->points;
    return i >= 0 && (guint)i < pts->len ? g_array_index(pts, Point, i).value : NAN;
}

gboolean esl_scatter_plot_get_value_range(EslScatterPlot *self, double *lo, double *hi)
{
    *lo = INFINITY, *hi = -INFINITY;
    for (guint s = 0; s < self->series->len; s++) {
        GArray *pts = ((Series *)self->series->pdata[s])->points;
        for (guint i = 0; i < pts->len; i++) {
            double v = g_array_index(pts, Point, i).value;
            if (isfinite(v))
                *lo = fmin(*lo, v), *hi = fmax(*hi, v);
        }
    }
    return isfinite(*lo);
}

/* A ramp through five colours of matplotlib's viridis (perceptually uniform, readable in grey). */
static void ramp(double u, GdkRGBA *c)
{
    static const float stops[][3] = {{0.267f, 0.005f, 0.329f}, {0.229f, 0.322f, 0.546f},
                                     {0.128f, 0.567f, 0.551f}, {0.369f, 0.789f, 0.383f},
                                     {0.993f, 0.906f, 0.144f}};
    double t = fmin(fmax(u, 0), 1) * 4;
    int i = (int)fmin(floor(t), 3);
    double f = t - i;
    c->red = (float)(stops[i][0] + f * (stops[i + 1][0] - stops[i][0]));
    c->green = (float)(stops[i][1] + f * (stops[i + 1][1] - stops[i][1]));
    c->blue = (float)(stops[i][2] + f * (stops[i + 1][2] - stops[i][2]));
    c->alpha = 1;
}

void esl_scatter_plot_color_of(EslScatterPlot *self, double value, GdkRGBA *color)
{
    double lo, hi;
    if (!isfinite(value) || !esl_scatter_plot_get_value_range(self, &lo, &hi)) {
        *color = (GdkRGBA){0.6f, 0.6f, 0.6f, 1};
        return;
    }
    ramp(hi > lo ? (value - lo) / (hi - lo) : 0.5, color);
}

/* How many distinct coordinates the points have along x (or y): the map's cells per row. */
static int distinct(EslScatterPlot *self, gboolean along_y)
{
    g_autoptr(GArray) seen = g_array_new(FALSE, FALSE, sizeof(double));
    for (guint s = 0; s < self->series->len; s++) {
        GArray *pts = ((Series *)self->series->pdata[s])->points;
        for (guint i = 0; i < pts->len; i++) {
            const Point *p = &g_array_index(pts, Point, i);
            double v = along_y ? p->y : p->x;
            gboolean found = FALSE;
            for (guint j = 0; j < seen->len && !found; j++)
                found = g_array_index(seen, double, j) == v;
            if (!found)
                g_array_append_val(seen, v);
        }
    }
    return MAX((int)seen->len, 1);
}

static void draw_color_bar(EslScatterPlot *self, cairo_t *cr, PangoLayout *layout)
{
    double lo, hi;
    if (!esl_scatter_plot_get_value_range(self, &lo, &hi))
        return;
    double x = self->right + 14, w = 14, top = self->top, bottom = self->bottom;
    for (double y = top; y < bottom; y += 1) {
        GdkRGBA c;
        ramp((bottom - y) / (bottom - top), &c);
        gdk_cairo_set_source_rgba(cr, &c);
        cairo_rectangle(cr, x, y, w, 1.5);
        cairo_fill(cr);
    }
    cairo_set_source_rgb(cr, 0.3, 0.3, 0.33);
    cairo_rectangle(cr, x, top, w, bottom - top);
    cairo_stroke(cr);
    cairo_set_source_rgb(cr, 0.12, 0.12, 0.14);
    for (int i = 0; i <= 4; i++) {
        double v = lo + (hi - lo) * i / 4, y = bottom - (bottom - top) * i / 4;
        g_autofree char *t = g_strdup_printf("%.4g", v);
        text_at(cr, layout, t, x + w + 3, y, 0, 0.5);
    }
    cairo_save(cr);
    cairo_translate(cr, x + w + 62, (top + bottom) / 2);
    cairo_rotate(cr, -G_PI / 2);
    text_at(cr, layout, self->color_label, 0, 0, 0.5, 0.0);
    cairo_restore(cr);
}

/* ---- drawing ---------------------------------------------------------------------------------- */

/* A coordinate as plotted: log10 on a log axis (NAN when not positive there). */
static double axis_value(double v, gboolean log_axis)
{
    return log_axis ? (v > 0 ? log10(v) : NAN) : v;
}

static double px_of(EslScatterPlot *self, double x)
{
    return self->left + (axis_value(x, self->log_x) - self->x0) / (self->x1 - self->x0) *
                            (self->right - self->left);
}

static double py_of(EslScatterPlot *self, double y)
{
    return self->bottom - (axis_value(y, self->log_y) - self->y0) / (self->y1 - self->y0) *
                              (self->bottom - self->top);
}

/* The data range (as plotted) of every point and the reference, widened a little. */
static gboolean data_range(EslScatterPlot *self, double *x0, double *x1, double *y0, double *y1)
{
    *x0 = *y0 = INFINITY;
    *x1 = *y1 = -INFINITY;
    for (guint s = 0; s < self->series->len; s++) {
        GArray *pts = ((Series *)self->series->pdata[s])->points;
        for (guint i = 0; i < pts->len; i++) {
            const Point *p = &g_array_index(pts, Point, i);
            double x = axis_value(p->x, self->log_x), y = axis_value(p->y, self->log_y);
            if (!isfinite(x) || !isfinite(y))
                continue;
            *x0 = fmin(*x0, x), *x1 = fmax(*x1, x), *y0 = fmin(*y0, y), *y1 = fmax(*y1, y);
        }
    }
    double r = axis_value(self->reference, self->log_y);
    if (isfinite(r) && isfinite(*y0))
        *y0 = fmin(*y0, r), *y1 = fmax(*y1, r);
    if (!isfinite(*x0))
        return FALSE;
    double wx = *x1 - *x0, wy = *y1 - *y0;
    if (wx <= 0)
        wx = self->log_x ? 1 : fmax(fabs(*x0), 1.0);
    if (wy <= 0)
        wy = self->log_y ? 1 : fmax(fabs(*y0), 1.0);
    *x0 -= 0.06 * wx, *x1 += 0.06 * wx, *y0 -= 0.08 * wy, *y1 += 0.08 * wy;
    return TRUE;
}

/* Tick step 1, 2 or 5 times a power of ten giving about n ticks over w. */
static double nice_step(double w, int n)
{
    double raw = w / n, p = pow(10, floor(log10(raw))), m = raw / p;
    return (m < 1.5 ? 1 : m < 3.5 ? 2 : m < 7.5 ? 5 : 10) * p;
}

static void text_at(cairo_t *cr, PangoLayout *layout, const char *text, double x, double y,
                    double ax, double ay)
{
    int w, h;
    pango_layout_set_text(layout, text, -1);
    pango_layout_get_pixel_size(layout, &w, &h);
    cairo_move_to(cr, x - ax * w, y - ay * h);
    pango_cairo_show_layout(cr, layout);
}

static char *tick_text(double v, gboolean log_axis)
{
    if (log_axis)
        return g_strdup_printf("%g", pow(10, v));
    return g_strdup_printf("%.4g", fabs(v) < 1e-12 ? 0.0 : v);
}

static void draw_tick(EslScatterPlot *self, cairo_t *cr, PangoLayout *layout, double v,
                      gboolean vertical)
{
    gboolean log_axis = vertical ? self->log_y : self->log_x;
    double a0 = vertical ? self->y0 : self->x0, a1 = vertical ? self->y1 : self->x1;
    g_autofree char *t = tick_text(v, log_axis);
    double p = vertical ? self->bottom - (v - a0) / (a1 - a0) * (self->bottom - self->top)
                        : self->left + (v - a0) / (a1 - a0) * (self->right - self->left);
    cairo_set_source_rgba(cr, 0, 0, 0, 0.10);
    if (vertical) {
        cairo_move_to(cr, self->left, p);
        cairo_line_to(cr, self->right, p);
    } else {
        cairo_move_to(cr, p, self->top);
        cairo_line_to(cr, p, self->bottom);
    }
    cairo_stroke(cr);
    cairo_set_source_rgb(cr, 0.25, 0.25, 0.28);
    if (vertical)
        text_at(cr, layout, t, self->left - 4, p, 1.0, 0.5);
    else
        text_at(cr, layout, t, p, self->bottom + 3, 0.5, 0.0);
}

static void draw_axis_ticks(EslScatterPlot *self, cairo_t *cr, PangoLayout *layout,
                            gboolean vertical)
{
    double a0 = vertical ? self->y0 : self->x0, a1 = vertical ? self->y1 : self->x1;
    gboolean log_axis = vertical ? self->log_y : self->log_x;
    if (log_axis && a1 - a0 < 2) { /* less than two decades: 1, 2 and 5 times each */
        static const double mult[] = {1, 2, 5};
        for (double e = floor(a0); e <= ceil(a1); e++)
            for (int i = 0; i < 3; i++) {
                double v = e + log10(mult[i]);
                if (v >= a0 && v <= a1)
                    draw_tick(self, cr, layout, v, vertical);
            }
        return;
    }
    double step = log_axis ? fmax(1, ceil((a1 - a0) / 6)) : nice_step(a1 - a0, 6);
    for (double v = ceil(a0 / step) * step; v <= a1 + 1e-9 * step; v += step)
        draw_tick(self, cr, layout, v, vertical);
}

static void draw(EslScatterPlot *self, cairo_t *cr, double width, double height)
{
    cairo_set_source_rgb(cr, 1, 1, 1);
    cairo_paint(cr);
    cairo_set_line_width(cr, 1.0);
    PangoLayout *layout = pango_cairo_create_layout(cr);
    PangoFontDescription *font = pango_font_description_from_string("Sans 8.5");
    pango_layout_set_font_description(layout, font);
    int legend_rows = self->series->len > 0 ? ((int)self->series->len + 3) / 4 : 0;
    self->left = MARGIN_LEFT;
    self->right = width - MARGIN_RIGHT - (self->color_label ? COLOR_BAR_WIDTH : 0);
    self->top = MARGIN_TOP;
    self->bottom = height - MARGIN_BOTTOM - legend_rows * LEGEND_ROW;
    cairo_set_source_rgb(cr, 0.12, 0.12, 0.14);
    if (self->title) {
        PangoFontDescription *bold = pango_font_description_copy(font);
        pango_font_description_set_weight(bold, PANGO_WEIGHT_BOLD);
        pango_layout_set_font_description(layout, bold);
        text_at(cr, layout, self->title, self->left, 6, 0, 0);
        pango_layout_set_font_description(layout, font);
        pango_font_description_free(bold);
    }
    self->drawn = self->right - self->left > 20 && self->bottom - self->top > 20 &&
                  data_range(self, &self->x0, &self->x1, &self->y0, &self->y1);
    if (!self->drawn) {
        cairo_set_source_rgb(cr, 0.4, 0.4, 0.45);
        text_at(cr, layout, "—", width / 2, height / 2, 0.5, 0.5);
        g_object_unref(layout);
        pango_font_description_free(font);
        return;
    }
    draw_axis_ticks(self, cr, layout, FALSE);
    draw_axis_ticks(self, cr, layout, TRUE);
    cairo_set_source_rgb(cr, 0.3, 0.3, 0.33);
    cairo_rectangle(cr, self->left, self->top, self->right - self->left,
                    self->bottom - self->top);
    cairo_stroke(cr);
    cairo_set_source_rgb(cr, 0.12, 0.12, 0.14);
    if (self->x_label)
        text_at(cr, layout, self->x_label, (self->left + self->right) / 2, self->bottom + 18,
                0.5, 0.0);
    if (self->y_label) {
        cairo_save(cr);
        cairo_translate(cr, 12, (self->top + self->bottom) / 2);
        cairo_rotate(cr, -G_PI / 2);
        text_at(cr, layout, self->y_label, 0, 0, 0.5, 0.0);
        cairo_restore(cr);
    }
    if (isfinite(axis_value(self->reference, self->log_y))) {
        double y = py_of(self, self->reference);
        static const double dash[] = {6, 4};
        cairo_set_dash(cr, dash, 2, 0);
        cairo_set_source_rgb(cr, 0.75, 0.1, 0.1);
        cairo_move_to(cr, self->left, y);
        cairo_line_to(cr, self->right, y);
        cairo_stroke(cr);
        cairo_set_dash(cr, NULL, 0, 0);
        if (self->reference_label)
            text_at(cr, layout, self->reference_label, self->right - 4, y - 2, 1.0, 1.0);
    }
    cairo_save(cr);
    cairo_rectangle(cr, self->left, self->top, self->right - self->left,
                    self->bottom - self->top);
    cairo_clip(cr);
    double hx = NAN, hy = NAN;
    /* the map's cells: as wide as the points' spacing on a grid, at most 40 px */
    double cell_w = fmin(fmax(0.9 * (self->right - self->left) / (distinct(self, FALSE) + 1), 8), 40);
    double cell_h = fmin(fmax(0.9 * (self->bottom - self->top) / (distinct(self, TRUE) + 1), 8), 40);
    for (guint s = 0; s < self->series->len; s++) {
        Series *se = self->series->pdata[s];
        gdk_cairo_set_source_rgba(cr, &se->color);
        if (se->lines && se->points->len > 1) {
            g_autoptr(GArray) sorted = g_array_copy(se->points);
            for (guint i = 1; i < sorted->len; i++) /* insertion sort by x */
                for (guint j = i; j > 0 && g_array_index(sorted, Point, j).x <
                                               g_array_index(sorted, Point, j - 1).x; j--) {
                    Point t = g_array_index(sorted, Point, j);
                    g_array_index(sorted, Point, j) = g_array_index(sorted, Point, j - 1);
                    g_array_index(sorted, Point, j - 1) = t;
                }
            gboolean first = TRUE;
            for (guint i = 0; i < sorted->len; i++) {
                const Point *p = &g_array_index(sorted, Point, i);
                double x = px_of(self, p->x), y = py_of(self, p->y);
                if (!isfinite(x) || !isfinite(y))
                    continue;
                if (first)
                    cairo_move_to(cr, x, y);
                else
                    cairo_line_to(cr, x, y);
                first = FALSE;
            }
            cairo_set_line_width(cr, 1.5);
            cairo_stroke(cr);
        }
        for (guint i = 0; i < se->points->len; i++) {
            const Point *p = &g_array_index(se->points, Point, i);
            double x = px_of(self, p->x), y = py_of(self, p->y);
            if (!isfinite(x) || !isfinite(y))
                continue;
            if (self->color_label) { /* a cell of the map */
                GdkRGBA c;
                esl_scatter_plot_color_of(self, p->value, &c);
                gdk_cairo_set_source_rgba(cr, &c);
                cairo_rectangle(cr, x - cell_w / 2, y - cell_h / 2, cell_w, cell_h);
                cairo_fill(cr);
            } else {
                cairo_arc(cr, x, y, 3.5, 0, 2 * G_PI);
                cairo_fill(cr);
            }
            if (p->tag == self->highlight && self->highlight >= 0)
                hx = x, hy = y;
        }
    }
    cairo_restore(cr);
    if (isfinite(hx)) {
        cairo_set_source_rgb(cr, 0.9, 0.55, 0.0);
        cairo_set_line_width(cr, 2.5);
        cairo_arc(cr, hx, hy, 8, 0, 2 * G_PI);
        cairo_stroke(cr);
        if (self->highlight_label) {
            cairo_set_source_rgb(cr, 0.12, 0.12, 0.14);
            gboolean right_half = hx > (self->left + self->right) / 2;
            gboolean below = hy - 30 < self->top; /* not over the title */
            text_at(cr, layout, self->highlight_label, hx + (right_half ? -12 : 12),
                    below ? hy + 10 : hy - 10, right_half ? 1.0 : 0.0, below ? 0.0 : 1.0);
        }
    }
    if (self->color_label)
        draw_color_bar(self, cr, layout);
    /* the legend, four series a row */
    for (guint s = 0; s < self->series->len; s++) {
        Series *se = self->series->pdata[s];
        double x = self->left + (s % 4) * (self->right - self->left) / 4;
        double y = height - legend_rows * LEGEND_ROW - 4 + (s / 4) * LEGEND_ROW + LEGEND_ROW / 2;
        gdk_cairo_set_source_rgba(cr, &se->color);
        cairo_arc(cr, x + 5, y, 3.5, 0, 2 * G_PI);
        cairo_fill(cr);
        cairo_set_source_rgb(cr, 0.12, 0.12, 0.14);
        text_at(cr, layout, se->name, x + 14, y, 0, 0.5);
    }
    g_object_unref(layout);
    pango_font_description_free(font);
}

static void esl_scatter_plot_snapshot(GtkWidget *widget, GtkSnapshot *snapshot)
{
    EslScatterPlot *self = ESL_SCATTER_PLOT(widget);
    int w = gtk_widget_get_width(widget), h = gtk_widget_get_height(widget);
    if (w <= 0 || h <= 0)
        return;
    graphene_rect_t bounds = GRAPHENE_RECT_INIT(0, 0, w, h);
    cairo_t *cr = gtk_snapshot_append_cairo(snapshot, &bounds);
    draw(self, cr, w, h);
    cairo_destroy(cr);
}

static void esl_scatter_plot_measure(GtkWidget *widget, GtkOrientation orientation,
                                     int for_size, int *minimum, int *natural,
                                     int *minimum_baseline, int *natural_baseline)
{
    (void)widget, (void)for_size;
    *minimum = orientation == GTK_ORIENTATION_HORIZONTAL ? 240 : 180;
    *natural = orientation == GTK_ORIENTATION_HORIZONTAL ? 480 : 320;
    *minimum_baseline = *natural_baseline = -1;
}

/* ---- clicks ----------------------------------------------------------------------------------- */

/* The mapping of the size the widget has now (tests call it before anything was drawn). */
static gboolean lay_out(EslScatterPlot *self)
{
    int w = gtk_widget_get_width(GTK_WIDGET(self)), h = gtk_widget_get_height(GTK_WIDGET(self));
    if (w <= 0 || h <= 0)
        return FALSE;
    cairo_surface_t *surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, 1, 1);
    cairo_t *cr = cairo_create(surface);
    draw(self, cr, w, h); /* sets the mapping; the drawing goes nowhere */
    cairo_destroy(cr);
    cairo_surface_destroy(surface);
    return self->drawn;
}

gboolean esl_scatter_plot_locate(EslScatterPlot *self, int tag, double *px, double *py)
{
    if (!lay_out(self))
        return FALSE;
    for (guint s = 0; s < self->series->len; s++) {
        GArray *pts = ((Series *)self->series->pdata[s])->points;
        for (guint i = 0; i < pts->len; i++) {
            const Point *p = &g_array_index(pts, Point, i);
            if (p->tag != tag)
                continue;
            *px = px_of(self, p->x);
            *py = py_of(self, p->y);
            return isfinite(*px) && isfinite(*py);
        }
    }
    return FALSE;
}

int esl_scatter_plot_click(EslScatterPlot *self, double px, double py)
{
    if (!lay_out(self))
        return -1;
    int best = -1;
    double best_d = HIT_RADIUS;
    for (guint s = 0; s < self->series->len; s++) {
        GArray *pts = ((Series *)self->series->pdata[s])->points;
        for (guint i = 0; i < pts->len; i++) {
            const Point *p = &g_array_index(pts, Point, i);
            double d = hypot(px_of(self, p->x) - px, py_of(self, p->y) - py);
            if (d <= best_d)
                best = p->tag, best_d = d;
        }
    }
    if (best >= 0)
        g_signal_emit(self, signals[SIGNAL_POINT_ACTIVATED], 0, best);
    return best;
}

static void on_pressed(GtkGestureClick *gesture, int n_press, double x, double y,
                       EslScatterPlot *self)
{
    (void)gesture, (void)n_press;
    esl_scatter_plot_click(self, x, y);
}

static void esl_scatter_plot_finalize(GObject *object)
{
    EslScatterPlot *self = ESL_SCATTER_PLOT(object);
    g_free(self->title);
    g_free(self->x_label);
    g_free(self->y_label);
    g_free(self->highlight_label);
    g_free(self->reference_label);
    g_free(self->color_label);
    g_ptr_array_unref(self->series);
    G_OBJECT_CLASS(esl_scatter_plot_parent_class)->finalize(object);
}

static void esl_scatter_plot_class_init(EslScatterPlotClass *klass)
{
    G_OBJECT_CLASS(klass)->finalize = esl_scatter_plot_finalize;
    GtkWidgetClass *widget_class = GTK_WIDGET_CLASS(klass);
    widget_class->snapshot = esl_scatter_plot_snapshot;
    widget_class->measure = esl_scatter_plot_measure;
    signals[SIGNAL_POINT_ACTIVATED] =
        g_signal_new("point-activated", G_TYPE_FROM_CLASS(klass), G_SIGNAL_RUN_LAST, 0, NULL,
                     NULL, NULL, G_TYPE_NONE, 1, G_TYPE_INT);
}

static void esl_scatter_plot_init(EslScatterPlot *self)
{
    self->series = g_ptr_array_new_with_free_func(series_free);
    self->highlight = -1;
    self->reference = NAN;
    GtkGesture *click = gtk_gesture_click_new();
    g_signal_connect(click, "pressed", G_CALLBACK(on_pressed), self);
    gtk_widget_add_controller(GTK_WIDGET(self), GTK_EVENT_CONTROLLER(click));
}
