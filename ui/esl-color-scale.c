/* Violation colour legend; see esl-color-scale.h. */
#include "esl-color-scale.h"

#include <glib/gi18n.h>
#include <math.h>

#include "esl-scene.h"

#define RAMP_WIDTH 180.0
#define RAMP_HEIGHT 9.0
#define PAD 8.0

struct _EslColorScale {
    GtkWidget parent_instance;
    double low, high, value;
    char *worst; /* name of the joint with the largest violation, or NULL */
    char *worst_run; /* over the whole run: the joint, or NULL */
    double worst_run_value, worst_run_time; /* its violation and when */
    double zoom; /* drawn this many times larger (presentation mode), in widget pixels / zoom */
};

enum { SIGNAL_WORST_ACTIVATED, SIGNAL_WORST_RUN_ACTIVATED, N_SIGNALS };
static guint signals[N_SIGNALS];

#define WORST_LINE_Y 44.0 /* the line naming the worst joint, under the ramp's labels */
#define LINE_H 16.0        /* and the line under it: the worst over the run */

G_DEFINE_FINAL_TYPE(EslColorScale, esl_color_scale, GTK_TYPE_WIDGET)

/* x of violation v on the ramp (clamped to its ends). */
static double ramp_x(const EslColorScale *self, double v)
{
    double t = (log10(v) - log10(self->low)) / (log10(self->high) - log10(self->low));
    return PAD + RAMP_WIDTH * CLAMP(isfinite(t) ? t : 1.0, 0.0, 1.0);
}

static void show_text(cairo_t *cr, PangoLayout *layout, const char *text, double x, double y,
                      double align_x)
{
    pango_layout_set_text(layout, text, -1);
    int w, h;
    pango_layout_get_pixel_size(layout, &w, &h);
    cairo_move_to(cr, x - align_x * w, y);
    pango_cairo_show_layout(cr, layout);
}

#define SCALE_FONT "Sans 8"

/* The legend's heading; its width sets the widget's (translations are longer). */
static const char *heading(void)
{
    return _("joint violation, largest |Φ| of each joint");
}

static int heading_width(GtkWidget *widget)
{
    EslColorScale *self = ESL_COLOR_SCALE(widget);
    /* the widest line: the heading, or the worst joint over the run */
    g_autofree char *run_line =
        self->worst_run
            ? g_strdup_printf(_("largest over the run: joint %s, %.2g at t = %.3g s — go to it"),
                              self->worst_run, self->worst_run_value, self->worst_run_time)
            : NULL;
    PangoLayout *layout = gtk_widget_create_pango_layout(widget, heading());
    if (run_line) {
        int wh, hh, wr, hr;
        pango_layout_get_pixel_size(layout, &wh, &hh);
        pango_layout_set_text(layout, run_line, -1);
        pango_layout_get_pixel_size(layout, &wr, &hr);
        if (wr < wh)
            pango_layout_set_text(layout, heading(), -1);
    }
    PangoFontDescription *font = pango_font_description_from_string(SCALE_FONT);
    pango_layout_set_font_description(layout, font);
    int w, h;
    pango_layout_get_pixel_size(layout, &w, &h);
    pango_font_description_free(font);
    g_object_unref(layout);
    return w;
}

static void esl_color_scale_snapshot(GtkWidget *widget, GtkSnapshot *snapshot)
{
    EslColorScale *self = ESL_COLOR_SCALE(widget);
    int w = gtk_widget_get_width(widget), h = gtk_widget_get_height(widget);
    cairo_t *cr = gtk_snapshot_append_cairo(snapshot, &GRAPHENE_RECT_INIT(0, 0, w, h));
    cairo_scale(cr, self->zoom, self->zoom);
    w = (int)ceil(w / self->zoom);
    h = (int)ceil(h / self->zoom);
    PangoLayout *layout = gtk_widget_create_pango_layout(widget, NULL);
    PangoFontDescription *font = pango_font_description_from_string(SCALE_FONT);
    pango_layout_set_font_description(layout, font);

    cairo_set_source_rgba(cr, 1, 1, 1, 0.82);
    cairo_rectangle(cr, 0, 0, w, h);
    cairo_fill(cr);

    cairo_set_source_rgb(cr, 0.15, 0.15, 0.18);
    show_text(cr, layout, heading(), PAD, 3, 0.0);
    const double ramp_y = 20;
    const int pieces = 90;
    for (int i = 0; i < pieces; i++) { /* the ramp, sampled as the scene colours joints */
        double t0 = (double)i / pieces, v = self->low * pow(self->high / self->low, t0);
        float rgba[4];
        esl_scene_violation_color(v, self->low, self->high, rgba);
        cairo_set_source_rgb(cr, rgba[0], rgba[1], rgba[2]);
        cairo_rectangle(cr, PAD + RAMP_WIDTH * t0, ramp_y, RAMP_WIDTH / pieces + 0.5, RAMP_HEIGHT);
        cairo_fill(cr);
    }
    cairo_set_source_rgb(cr, 0.25, 0.25, 0.28);
    int d0 = (int)ceil(log10(self->low) - 1e-9), d1 = (int)floor(log10(self->high) + 1e-9);
    int every = MAX(1, (d1 - d0) / 3);
    for (int d = d0; d <= d1; d += every) {
        double x = round(ramp_x(self, pow(10.0, d))) + 0.5;
        cairo_move_to(cr, x, ramp_y + RAMP_HEIGHT);
        cairo_line_to(cr, x, ramp_y + RAMP_HEIGHT + 3);
        cairo_set_line_width(cr, 1);
        cairo_stroke(cr);
        char label[16];
        g_snprintf(label, sizeof label, d == d0 ? "≤1e%d" : d == d1 ? "≥1e%d" : "1e%d", d);
        show_text(cr, layout, label, x, ramp_y + RAMP_HEIGHT + 3, d == d0 ? 0.0 : 0.5);
    }
    if (isfinite(self->value)) { /* marker: a triangle above the ramp, and the number */
        double x = ramp_x(self, fmax(self->value, self->low * 1e-3));
        cairo_set_source_rgb(cr, 0.1, 0.1, 0.12);
        cairo_move_to(cr, x, ramp_y);
        cairo_line_to(cr, x - 4, ramp_y - 6);
        cairo_line_to(cr, x + 4, ramp_y - 6);
        cairo_close_path(cr);
        cairo_fill(cr);
        char value[32];
        g_snprintf(value, sizeof value, "%.2g", self->value);
        show_text(cr, layout, value, PAD + RAMP_WIDTH + 6, ramp_y - 3, 0.0);
    }
    /* links: clicking one goes to its joint */
    cairo_set_source_rgb(cr, 0.10, 0.35, 0.75);
    PangoAttrList *attrs = pango_attr_list_new();
    pango_attr_list_insert(attrs, pango_attr_underline_new(PANGO_UNDERLINE_SINGLE));
    pango_layout_set_attributes(layout, attrs);
    if (self->worst) {
        g_autofree char *line = g_strdup_printf(_("largest now at joint %s — go to it"),
                                                self->worst);
        show_text(cr, layout, line, PAD, WORST_LINE_Y, 0.0);
    }
    if (self->worst_run) {
        g_autofree char *line =
            g_strdup_printf(_("largest over the run: joint %s, %.2g at t = %.3g s — go to it"),
                            self->worst_run, self->worst_run_value, self->worst_run_time);
        show_text(cr, layout, line, PAD, WORST_LINE_Y + LINE_H, 0.0);
    }
    pango_layout_set_attributes(layout, NULL);
    pango_attr_list_unref(attrs);
    pango_font_description_free(font);
    g_object_unref(layout);
    cairo_destroy(cr);
}

static void esl_color_scale_measure(GtkWidget *widget, GtkOrientation orientation, int for_size,
                                    int *minimum, int *natural, int *minimum_baseline,
                                    int *natural_baseline)
{
    (void)for_size;
    int size = orientation == GTK_ORIENTATION_HORIZONTAL
                   ? MAX((int)(RAMP_WIDTH + 2 * PAD + 52), heading_width(widget) + (int)(2 * PAD))
                   : 46 + 16 + (ESL_COLOR_SCALE(widget)->worst_run ? (int)LINE_H : 0);
    *minimum = *natural = (int)ceil(size * ESL_COLOR_SCALE(widget)->zoom);
    *minimum_baseline = *natural_baseline = -1;
}

static void esl_color_scale_finalize(GObject *object)
{
    g_free(ESL_COLOR_SCALE(object)->worst);
    g_free(ESL_COLOR_SCALE(object)->worst_run);
    G_OBJECT_CLASS(esl_color_scale_parent_class)->finalize(object);
}

static void on_pressed(GtkGestureClick *gesture, int n_press, double x, double y,
                       EslColorScale *self)
{
    (void)gesture;
    (void)n_press;
    (void)x;
    y /= self->zoom;
    if (self->worst_run && y >= WORST_LINE_Y + LINE_H - 2)
        g_signal_emit(self, signals[SIGNAL_WORST_RUN_ACTIVATED], 0);
    else if (self->worst && y >= WORST_LINE_Y - 2)
        g_signal_emit(self, signals[SIGNAL_WORST_ACTIVATED], 0);
}

static void esl_color_scale_class_init(EslColorScaleClass *klass)
{
    GtkWidgetClass *widget_class = GTK_WIDGET_CLASS(klass);
    G_OBJECT_CLASS(klass)->finalize = esl_color_scale_finalize;
    signals[SIGNAL_WORST_ACTIVATED] =
        g_signal_new("worst-activated", G_TYPE_FROM_CLASS(klass), G_SIGNAL_RUN_LAST, 0, NULL,
                     NULL, NULL, G_TYPE_NONE, 0);
    signals[SIGNAL_WORST_RUN_ACTIVATED] =
        g_signal_new("worst-run-activated", G_TYPE_FROM_CLASS(klass), G_SIGNAL_RUN_LAST, 0, NULL,
                     NULL, NULL, G_TYPE_NONE, 0);
    widget_class->snapshot = esl_color_scale_snapshot;
    widget_class->measure = esl_color_scale_measure;
    gtk_widget_class_set_css_name(widget_class, "eslcolorscale");
}

static void esl_color_scale_init(EslColorScale *self)
{
    EslSceneOptions defaults;
    esl_scene_options_defaults(&defaults);
    self->low = defaults.violation_low;
    self->high = defaults.violation_high;
    self->value = NAN;
    self->zoom = 1.0;
    GtkGesture *click = gtk_gesture_click_new();
    g_signal_connect(click, "pressed", G_CALLBACK(on_pressed), self);
    gtk_widget_add_controller(GTK_WIDGET(self), GTK_EVENT_CONTROLLER(click));
    gtk_widget_set_tooltip_text(
        GTK_WIDGET(self),
        _("Joints are coloured by the largest residual of their constraint equations in the "
          "state shown (m for positions); the marker is the largest of all joints."));
}

GtkWidget *esl_color_scale_new(void)
{
    return g_object_new(ESL_TYPE_COLOR_SCALE, NULL);
}

void esl_color_scale_set_range(EslColorScale *self, double low, double high)
{
    g_return_if_fail(low > 0 && high > low);
    self->low = low;
    self->high = high;
    gtk_widget_queue_draw(GTK_WIDGET(self));
}

void esl_color_scale_set_value(EslColorScale *self, double value)
{
    if (value == self->value || (isnan(value) && isnan(self->value)))
        return;
    self->value = value;
    gtk_widget_queue_draw(GTK_WIDGET(self));
}

void esl_color_scale_set_worst(EslColorScale *self, const char *joint)
{
    if (g_strcmp0(joint, self->worst) == 0)
        return;
    g_free(self->worst);
    self->worst = g_strdup(joint);
    gtk_widget_set_cursor_from_name(GTK_WIDGET(self), joint || self->worst_run ? "pointer" : NULL);
    gtk_widget_queue_draw(GTK_WIDGET(self));
}

const char *esl_color_scale_get_worst(EslColorScale *self)
{
    return self->worst;
}

double esl_color_scale_get_value(EslColorScale *self)
{
    return self->value;
}

void esl_color_scale_set_zoom(EslColorScale *self, double zoom)
{
    zoom = CLAMP(zoom, 0.5, 4.0);
    if (zoom == self->zoom)
        return;
    self->zoom = zoom;
    gtk_widget_queue_resize(GTK_WIDGET(self));
}

double esl_color_scale_get_zoom(EslColorScale *self)
{
    return self->zoom;
}

void esl_color_scale_set_worst_over_run(EslColorScale *self, const char *joint, double value,
                                        double time)
{
    if (g_strcmp0(joint, self->worst_run) == 0 && value == self->worst_run_value &&
        time == self->worst_run_time)
        return;
    g_free(self->worst_run);
    self->worst_run = g_strdup(joint);
    self->worst_run_value = value;
    self->worst_run_time = time;
    gtk_widget_set_cursor_from_name(GTK_WIDGET(self), self->worst || joint ? "pointer" : NULL);
    gtk_widget_queue_resize(GTK_WIDGET(self));
}

const char *esl_color_scale_get_worst_over_run(EslColorScale *self, double *value, double *time)
{
    if (value)
        *value = self->worst_run_value;
    if (time)
        *time = self->worst_run_time;
    return self->worst_run;
}
