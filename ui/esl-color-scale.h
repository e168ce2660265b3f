/* EslColorScale: the legend of the 3D view's violation colours — the colour ramp of
 * esl_scene_violation_color over its logarithmic range, decade ticks, and a marker at the
 * largest joint violation of the state shown. Drawn over the view (GtkOverlay). */
#ifndef ESL_COLOR_SCALE_H
#define ESL_COLOR_SCALE_H

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define ESL_TYPE_COLOR_SCALE (esl_color_scale_get_type())
G_DECLARE_FINAL_TYPE(EslColorScale, esl_color_scale, ESL, COLOR_SCALE, GtkWidget)

GtkWidget *esl_color_scale_new(void);
/* Range of the ramp (violations at or below low are "good", at or above high "bad"). */
void esl_color_scale_set_range(EslColorScale *self, double low, double high);
/* Largest violation of the state shown (NAN: no state, no marker). */
void esl_color_scale_set_value(EslColorScale *self, double value);
double esl_color_scale_get_value(EslColorScale *self);
/* The joint with the largest violation (NULL: none), named on the legend as a link. */
void esl_color_scale_set_worst(EslColorScale *self, const char *joint);
const char *esl_color_scale_get_worst(EslColorScale *self);
/* The joint with the largest violation over the whole run shown, its value and time (NULL:
 * none, no such line), named on a second link. */
void esl_color_scale_set_worst_over_run(EslColorScale *self, const char *joint, double value,
                                        double time);
const char *esl_color_scale_get_worst_over_run(EslColorScale *self, double *value, double *time);
/* Text, ramp and marker drawn zoom times larger (presentation mode; 0.5 to 4, default 1). */
void esl_color_scale_set_zoom(EslColorScale *self, double zoom);
double esl_color_scale_get_zoom(EslColorScale *self);

/* Signals: "worst-activated" () when the user clicks the worst joint's name,
 * "worst-run-activated" () when the worst one over the run's. */

G_END_DECLS

#endif
