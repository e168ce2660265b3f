/* EslPlot: a Cairo plot widget. Several series (x, y), axes with nice ticks and units, a legend,
 * linear or log10 y axis, live append, zoom (scroll, Ctrl+scroll for y) and pan (drag),
 * double-click to fit, hover read-out, a time cursor (click to move it, "cursor-moved"), and
 * export to PNG, SVG or CSV. A zoom or pan by the user emits "time-range-changed" (double x0,
 * double x1; NAN, NAN after a double-click fit), for plots linked in time. */
#ifndef ESL_PLOT_H
#define ESL_PLOT_H

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define ESL_TYPE_PLOT (esl_plot_get_type())
G_DECLARE_FINAL_TYPE(EslPlot, esl_plot, ESL, PLOT, GtkWidget)

GtkWidget *esl_plot_new(void);

void esl_plot_set_title(EslPlot *self, const char *title);
const char *esl_plot_get_title(EslPlot *self);
/* Axis labels with their units, e.g. "t (s)" and "energy (J)". */
void esl_plot_set_labels(EslPlot *self, const char *x_label, const char *y_label);
void esl_plot_set_log_y(EslPlot *self, gboolean log_y);
/* x counts something (evaluations): its ticks only at whole numbers. */
void esl_plot_set_integer_x(EslPlot *self, gboolean integer_x);
gboolean esl_plot_get_log_y(EslPlot *self);
/* Show x (time) from x0 to x1, as a linked plot's zoom or pan asks (x1 <= x0 or NAN: follow the
 * data again); the y axis keeps its own range. */
void esl_plot_set_time_range(EslPlot *self, double x0, double x1);
/* The x range shown. */
void esl_plot_get_time_range(EslPlot *self, double *x0, double *x1);
/* Draw text, lines and margins zoom times larger (presentation mode; 0.5 to 4, default 1). */
void esl_plot_set_zoom(EslPlot *self, double zoom);
double esl_plot_get_zoom(EslPlot *self);
/* The plot takes its board's whole area ("maximized", toggled by a double click and by the
 * action plot.maximized of its menu; the board listens to notify::maximized). */
void esl_plot_set_maximized(EslPlot *self, gboolean maximized);
gboolean esl_plot_get_maximized(EslPlot *self);
/* No legend in the plot: the board names the series (the runs compared) in one of its own. */
void esl_plot_set_legend_hidden(EslPlot *self, gboolean hidden);
gboolean esl_plot_get_legend_hidden(EslPlot *self);

/* Returns the new series' index. dashed: drawn with a dash pattern (overlaid runs). */
int esl_plot_add_series(EslPlot *self, const char *name, const GdkRGBA *color, gboolean dashed);
int esl_plot_get_n_series(EslPlot *self);
/* Remove one series (the later ones move down by one). */
void esl_plot_remove_series(EslPlot *self, int series);
/* The index of the series of that name, or -1. */
int esl_plot_find_series(EslPlot *self, const char *name);
const char *esl_plot_series_name(EslPlot *self, int series);
void esl_plot_append(EslPlot *self, int series, double x, double y);
void esl_plot_append_many(EslPlot *self, int series, const double *x, const double *y, int n);
/* Number of points of a series. */
int esl_plot_series_length(EslPlot *self, int series);
/* Remove every series. */
void esl_plot_clear(EslPlot *self);

/* Time cursor at x (NAN hides it). */
void esl_plot_set_cursor(EslPlot *self, double x);
double esl_plot_get_cursor(EslPlot *self);
/* Follow the data (auto range) again after a zoom or pan. */
void esl_plot_fit(EslPlot *self);

/* Write the plot as PNG or SVG (width x height) or its data as CSV (series,x,y), chosen by the
 * file name's extension. */
gboolean esl_plot_export(EslPlot *self, const char *path, int width, int height, GError **error);

G_END_DECLS

#endif
