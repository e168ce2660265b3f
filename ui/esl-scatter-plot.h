/* EslScatterPlot: points (x, y) in series, drawn as dots (joined in x order when the series asks
 * for lines), on linear or log10 axes, with one point highlighted (a ring and its label) and an
 * optional horizontal reference line. Each point carries a tag (a study's case, an advisor's
 * candidate); a click near a point emits "point-activated" (int tag). The Studies view draws an
 * objective against a parameter with it, and the advisor's work–precision diagram (error against
 * CPU time, a series per formulation). */
#ifndef ESL_SCATTER_PLOT_H
#define ESL_SCATTER_PLOT_H

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define ESL_TYPE_SCATTER_PLOT (esl_scatter_plot_get_type())
G_DECLARE_FINAL_TYPE(EslScatterPlot, esl_scatter_plot, ESL, SCATTER_PLOT, GtkWidget)

GtkWidget *esl_scatter_plot_new(void);

void esl_scatter_plot_set_title(EslScatterPlot *self, const char *title);
/* Axis labels with their units. */
void esl_scatter_plot_set_labels(EslScatterPlot *self, const char *x_label, const char *y_label);
/* log10 axes (points whose coordinate is not positive are left out). */
void esl_scatter_plot_set_log(EslScatterPlot *self, gboolean log_x, gboolean log_y);
/* Remove every series, the highlight and the reference line. */
void esl_scatter_plot_clear(EslScatterPlot *self);
/* Returns the series' index. lines: its points joined in the order of x. */
int esl_scatter_plot_add_series(EslScatterPlot *self, const char *name, const GdkRGBA *color,
                                gboolean lines);
/* Non-finite points are ignored. */
void esl_scatter_plot_add_point(EslScatterPlot *self, int series, double x, double y, int tag);
/* Ring the point of this tag, with label beside it (tag -1: none). */
void esl_scatter_plot_set_highlight(EslScatterPlot *self, int tag, const char *label);
int esl_scatter_plot_get_highlight(EslScatterPlot *self);
/* A dashed horizontal line at y with its label (NAN: none). */
void esl_scatter_plot_set_reference(EslScatterPlot *self, double y, const char *label);

int esl_scatter_plot_get_n_series(EslScatterPlot *self);
const char *esl_scatter_plot_series_name(EslScatterPlot *self, int series);
int esl_scatter_plot_series_length(EslScatterPlot *self, int series);
/* Point i of a series (in the order added); FALSE outside. */
gboolean esl_scatter_plot_get_point(EslScatterPlot *self, int series, int i, double *x,
                                    double *y, int *tag);
/* Where the point of this tag is drawn (widget coordinates, as last drawn); FALSE when it is
 * not drawn. */
gboolean esl_scatter_plot_locate(EslScatterPlot *self, int tag, double *px, double *py);
/* What a click at (px, py) does: emits "point-activated" for the nearest point within 8 px and
 * returns its tag, or -1. */
int esl_scatter_plot_click(EslScatterPlot *self, double px, double py);

/* A coloured map (a study over two parameters): points carry a value drawn as the colour of
 * their cell on a ramp from the least value (dark blue) to the largest (yellow), with a colour
 * bar labelled label on the right. NULL: plain points again (esl_scatter_plot_clear too). */
void esl_scatter_plot_set_color_bar(EslScatterPlot *self, const char *label);
gboolean esl_scatter_plot_has_color_bar(EslScatterPlot *self);
/* A point with a value (its colour in the map; NAN: grey). */
void esl_scatter_plot_add_valued_point(EslScatterPlot *self, int series, double x, double y,
                                       double value, int tag);
/* Point i's value (NAN: none). */
double esl_scatter_plot_get_point_value(EslScatterPlot *self, int series, int i);
/* The least and largest finite value of the points (FALSE: none). */
gboolean esl_scatter_plot_get_value_range(EslScatterPlot *self, double *lo, double *hi);
/* The colour a value is drawn with (grey for NAN). */
void esl_scatter_plot_color_of(EslScatterPlot *self, double value, GdkRGBA *color);

G_END_DECLS

#endif
