/* Joint violations in the window: the state's on the 3D view and the colour legend, the joint
 * violated most now and over the run, and going to it; see esl-window-private.h. */
#include "esl-window-private.h"

#include <math.h>
#include <string.h>

#include "esl-color-scale.h"

/* Show a state (body poses, joint violations; NULL poses: the model as drawn) in the 3D view
 * and its largest violation on the colour legend. */
void esl_window_show_state(EslWindow *self, const double *poses, const double *violations)
{
    esl_viewport_set_state(ESL_VIEWPORT(self->viewport), poses, violations);
    double largest = violations ? 0.0 : NAN;
    int worst = -1;
    for (int j = 0; violations && esl_window_model(self) && j < esl_window_model(self)->njoints; j++) {
        double v = isnan(violations[j]) ? INFINITY : violations[j];
        if (v > largest || (worst < 0 && v >= largest)) {
            largest = v;
            worst = j;
        }
    }
    EslColorScale *legend = ESL_COLOR_SCALE(self->color_scale);
    esl_color_scale_set_value(legend, largest);
    /* a tree joint's violation is 0: name a joint only when one is violated */
    esl_color_scale_set_worst(legend, worst >= 0 && largest > 0 ? esl_window_model(self)->joints[worst].name
                                                                : NULL);
    esl_model_panel_set_violations(ESL_MODEL_PANEL(self->model_panel), violations,
                                   violations && esl_window_model(self) ? esl_window_model(self)->njoints : 0);
}

/* Diagonal of the box of the model's points as drawn (m). */
static double model_extent(const MbsModel *m)
{
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (int i = 0; i < m->npoints; i++)
        for (int k = 0; k < 3; k++) {
            lo[k] = fmin(lo[k], m->points[i].pos[k]);
            hi[k] = fmax(hi[k], m->points[i].pos[k]);
        }
    return m->npoints ? hypot(hypot(hi[0] - lo[0], hi[1] - lo[1]), hi[2] - lo[2]) : 1.0;
}

/* Select joint j, frame it where it is in the state shown (its point on the first body) and
 * plot its violation over the run. */
static void go_to_joint(EslWindow *self, int j)
{
    const MbsModel *m = esl_window_model(self);
    esl_model_panel_select(ESL_MODEL_PANEL(self->model_panel), ESL_SOURCE_JOINT, j);
    const MbsJoint *joint = &m->joints[j];
    double R[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, p[3] = {0, 0, 0};
    int i = self->history ? esl_window_history_index_at(self, esl_window_get_time(self)) : -1;
    if (i >= 0 && self->history_matches_model) {
        const double *pose = ((EslRunSample *)self->history->pdata[i])->poses + 12 * joint->body1;
        memcpy(R, pose, sizeof R);
        memcpy(p, pose + 9, sizeof p);
    }
    float center[3];
    for (int k = 0; k < 3; k++)
        center[k] = (float)(R[3 * k] * joint->point1[0] + R[3 * k + 1] * joint->point1[1] +
                            R[3 * k + 2] * joint->point1[2] + p[k]);
    esl_viewport_fit_element(ESL_VIEWPORT(self->viewport), center,
                             (float)fmax(0.2 * model_extent(m), 1e-3));
    g_autofree char *variable = g_strdup_printf("%s:violation", joint->name);
    esl_window_plot_variable(self, variable, NULL);
}

gboolean esl_window_go_to_worst_joint(EslWindow *self)
{
    const char *name = esl_color_scale_get_worst(ESL_COLOR_SCALE(self->color_scale));
    int j = name && esl_window_model(self) ? mbs_model_find_joint(esl_window_model(self), name) : -1;
    if (j < 0)
        return FALSE;
    go_to_joint(self, j);
    return TRUE;
}

gboolean esl_window_go_to_worst_over_run(EslWindow *self)
{
    double time;
    const char *name =
        esl_color_scale_get_worst_over_run(ESL_COLOR_SCALE(self->color_scale), NULL, &time);
    int j = name && esl_window_model(self) ? mbs_model_find_joint(esl_window_model(self), name) : -1;
    if (j < 0)
        return FALSE;
    esl_window_seek(self, time); /* the instant it was largest */
    go_to_joint(self, j);
    return TRUE;
}

const char *esl_window_get_worst_over_run(EslWindow *self, double *value, double *time)
{
    return esl_color_scale_get_worst_over_run(ESL_COLOR_SCALE(self->color_scale), value, time);
}

/* The legend's second link: the joint violated most over the whole run shown (the first names
 * the largest at the instant shown, which a playback leaves at its last sample). */
void esl_window_update_worst_over_run(EslWindow *self)
{
    double largest = 0, when = 0;
    int worst = -1;
    for (guint i = 0; self->history && self->history_matches_model && esl_window_model(self) &&
                      i < self->history->len;
         i++) {
        const EslRunSample *s = self->history->pdata[i];
        for (int j = 0; s->violations && j < esl_window_model(self)->njoints; j++) {
            double v = isnan(s->violations[j]) ? INFINITY : s->violations[j];
            if (v > largest) {
                largest = v;
                worst = j;
                when = s->monitors.time;
            }
        }
    }
    esl_color_scale_set_worst_over_run(ESL_COLOR_SCALE(self->color_scale),
                                       worst >= 0 ? esl_window_model(self)->joints[worst].name : NULL,
                                       largest, when);
}

const char *esl_window_get_worst_joint(EslWindow *self)
{
    return esl_color_scale_get_worst(ESL_COLOR_SCALE(self->color_scale));
}

static void on_worst_activated(EslColorScale *legend, EslWindow *self)
{
    (void)legend;
    esl_window_go_to_worst_joint(self);
}

static void on_worst_run_activated(EslColorScale *legend, EslWindow *self)
{
    (void)legend;
    esl_window_go_to_worst_over_run(self);
}

void esl_window_init_violations(EslWindow *self)
{
    g_signal_connect(self->color_scale, "worst-activated", G_CALLBACK(on_worst_activated), self);
    g_signal_connect(self->color_scale, "worst-run-activated",
                     G_CALLBACK(on_worst_run_activated), self);
}
