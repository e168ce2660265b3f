/* The workbench window; see esl-window.h. */
#include "esl-window.h"
#include "esl-models-dir.h"

#include <glib/gi18n.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>
#include <unistd.h>

#include "eslabon-config.h"
#include "esl-model-edit.h"
#include "esl-model-file.h"
#include "esl-plot.h"
#include "esl-project.h"
#include "esl-recent.h"
#include "esl-color-scale.h"
#include "esl-frame-meter.h"
#include "esl-run-controller.h"
#include "esl-run-settings.h"
#include "esl-renderer.h"
#include "esl-scene.h"
#include "esl-viewport.h"
#include "mbs_formulation.h"

#define PARAMETER_SOURCE 100 /* model list rows for parameters (not drawn) */
#define THUMBNAIL_WIDTH 320
#define THUMBNAIL_HEIGHT 160

struct _EslWindow {
    GtkApplicationWindow parent_instance;

    /* template */
    GtkWidget *stack, *gallery, *model_list, *inspector_label, *inspector_fields, *runs_list;
    GtkWidget *viewport, *recent_box;
    GMenu *recent_menu;
    GtkWidget *color_scale; /* legend of the joints' violation colours */
    GtkWidget *model_search; /* filters the model list */
    GtkWidget *speed_dropdown; /* playback speed, one of playback_speeds */
    GtkWidget *viewport_note, *play_button, *time_scale, *time_label, *plot_grid;
    GtkWidget *run_settings, *progress_bar, *progress_label;
    GtkWidget *status_label, *project_label, *title_label, *subtitle_label, *pause_button;
    GtkAdjustment *time_adjustment;

    EslPlot *plot_energy, *plot_drift, *plot_constraints, *plot_timing, *plot_newton;

    MbsModel *model;
    char *model_path;
    char *model_json;        /* the model file's text, as edited */
    gboolean model_modified; /* edited since it was opened or saved */

    EslProject *project;
    char *project_path;
    gboolean project_is_temporary;
    GHashTable *model_ids; /* model path -> stored model id (in this project) */

    EslRunController *controller;
    GPtrArray *history; /* EslRunSample* of the run shown (live or loaded) */
    double energy0;
    gboolean history_matches_model;
    gboolean updating_scale, rebuilding_runs, selecting_from_view;
    guint playback_tick, progress_timer;
    EslFrameMeter *frame_meter; /* the window's frames while a run goes on */
    GPtrArray *thumbnails; /* GtkPicture of each gallery card, "path" set on it */
    gboolean thumbnails_drawn;
    int selected_body; /* body whose centre of mass leaves a trail, or -1 */
    gint64 playback_last_us;
    double run_duration; /* duration of the run going on */
};

G_DEFINE_FINAL_TYPE(EslWindow, esl_window, GTK_TYPE_APPLICATION_WINDOW)

enum { SIGNAL_RUN_FINISHED, N_SIGNALS };
/* The run status as shown to the user (the project stores the English identifier). */
static const char *run_status_label(EslRunStatus status)
{
    switch (status) {
    case ESL_RUN_RUNNING: return _("running");
    case ESL_RUN_FINISHED: return _("finished");
    case ESL_RUN_STOPPED: return _("stopped");
    case ESL_RUN_FAILED: return _("failed");
    case ESL_RUN_INTERRUPTED: return _("interrupted");
    }
    return esl_run_status_name(status);
}

static guint signals[N_SIGNALS];

static const GdkRGBA palette[] = {
    {0.16, 0.42, 0.80, 1}, {0.90, 0.45, 0.10, 1}, {0.20, 0.63, 0.30, 1}, {0.75, 0.20, 0.25, 1},
    {0.50, 0.35, 0.75, 1}, {0.10, 0.60, 0.65, 1}, {0.55, 0.45, 0.30, 1}, {0.35, 0.35, 0.38, 1},
};

static void show_status(EslWindow *self, gboolean is_error, const char *format, ...)
    G_GNUC_PRINTF(3, 4);

static void show_status(EslWindow *self, gboolean is_error, const char *format, ...)
{
    va_list ap;
    va_start(ap, format);
    g_autofree char *text = g_strdup_vprintf(format, ap);
    va_end(ap);
    gtk_label_set_text(GTK_LABEL(self->status_label), text);
    if (is_error)
        gtk_widget_add_css_class(self->status_label, "error");
    else
        gtk_widget_remove_css_class(self->status_label, "error");
}


static char *resolve_model(const char *arg)
{
    if (g_file_test(arg, G_FILE_TEST_EXISTS) || strchr(arg, G_DIR_SEPARATOR))
        return g_strdup(arg);
    g_autofree char *file =
        g_str_has_suffix(arg, ".json") ? g_strdup(arg) : g_strconcat(arg, ".json", NULL);
    return g_build_filename(esl_models_dir(), file, NULL);
}

/* ---- titles ------------------------------------------------------------------------------- */

static void update_titles(EslWindow *self)
{
    g_autofree char *name =
        !self->model           ? g_strdup("Eslabón")
        : self->model_modified ? g_strdup_printf(_("%s (modified)"), self->model->name)
                               : g_strdup(self->model->name);
    gtk_label_set_text(GTK_LABEL(self->title_label), name);
    g_autofree char *project_name =
        self->project_path ? g_path_get_basename(self->project_path) : NULL;
    g_autofree char *subtitle =
        self->project_is_temporary ? g_strdup(_("unsaved project"))
        : project_name             ? g_strdup(project_name)
                                   : g_strdup(_("no project"));
    gtk_label_set_text(GTK_LABEL(self->subtitle_label), subtitle);
    g_autofree char *where =
        self->project_is_temporary
            ? g_strdup_printf(_("Runs are kept in a temporary project (%s); use Project ▸ Save "
                                "Project As… to keep them."),
                              self->project_path)
        : self->project_path ? g_strdup_printf(_("Project: %s"), self->project_path)
                             : g_strdup(_("No project open."));
    gtk_label_set_text(GTK_LABEL(self->project_label), where);
    g_autofree char *title = self->model ? g_strdup_printf("%s — Eslabón", name)
                                         : g_strdup("Eslabón");
    gtk_window_set_title(GTK_WINDOW(self), title);
}

/* ---- plots ------------------------------------------------------------------------------- */

static void plots_clear(EslWindow *self)
{
    esl_plot_clear(self->plot_energy);
    esl_plot_clear(self->plot_drift);
    esl_plot_clear(self->plot_constraints);
    esl_plot_clear(self->plot_timing);
    esl_plot_clear(self->plot_newton);
}

/* Series of one run, in the order plots_append uses them. */
static void plots_prepare_single(EslWindow *self)
{
    plots_clear(self);
    esl_plot_add_series(self->plot_energy, _("kinetic"), &palette[0], FALSE);
    esl_plot_add_series(self->plot_energy, _("gravity potential"), &palette[1], FALSE);
    esl_plot_add_series(self->plot_energy, _("elastic potential"), &palette[2], FALSE);
    esl_plot_add_series(self->plot_energy, _("non-conservative work"), &palette[4], FALSE);
    esl_plot_add_series(self->plot_energy, _("total"), &palette[7], FALSE);
    esl_plot_add_series(self->plot_drift, _("|E − E₀|"), &palette[3], FALSE);
    esl_plot_add_series(self->plot_constraints, "‖Φ‖", &palette[0], FALSE);
    esl_plot_add_series(self->plot_constraints, "‖dΦ/dt‖", &palette[1], FALSE);
    esl_plot_add_series(self->plot_constraints, "‖d²Φ/dt²‖", &palette[2], FALSE);
    esl_plot_add_series(self->plot_timing, _("dynamics"), &palette[0], FALSE);
    esl_plot_add_series(self->plot_timing, _("Jacobian"), &palette[1], FALSE);
    esl_plot_add_series(self->plot_timing, _("factorization"), &palette[2], FALSE);
    esl_plot_add_series(self->plot_timing, _("projection"), &palette[4], FALSE);
    esl_plot_add_series(self->plot_timing, _("whole step"), &palette[7], FALSE);
    esl_plot_add_series(self->plot_newton, _("Newton iterations"), &palette[0], FALSE);
    esl_plot_add_series(self->plot_newton, _("Jacobian evaluations"), &palette[1], FALSE);
}

static void plots_append(EslWindow *self, const MbsMonitors *m)
{
    double t = m->time;
    if (!isfinite(self->energy0))
        self->energy0 = m->total;
    esl_plot_append(self->plot_energy, 0, t, m->kinetic);
    esl_plot_append(self->plot_energy, 1, t, m->potential_gravity);
    esl_plot_append(self->plot_energy, 2, t, m->potential_elastic);
    esl_plot_append(self->plot_energy, 3, t, m->work_nonconservative);
    esl_plot_append(self->plot_energy, 4, t, m->total);
    esl_plot_append(self->plot_drift, 0, t, fabs(m->total - self->energy0));
    esl_plot_append(self->plot_constraints, 0, t, m->phi_norm);
    esl_plot_append(self->plot_constraints, 1, t, m->dphi_norm);
    esl_plot_append(self->plot_constraints, 2, t, m->ddphi_norm);
    if (t > 0) { /* no step has been timed at t = 0 */
        esl_plot_append(self->plot_timing, 0, t, 1e3 * m->time_dynamics);
        esl_plot_append(self->plot_timing, 1, t, 1e3 * m->time_jacobian);
        esl_plot_append(self->plot_timing, 2, t, 1e3 * m->time_factorization);
        esl_plot_append(self->plot_timing, 3, t, 1e3 * m->time_projection);
        esl_plot_append(self->plot_timing, 4, t, 1e3 * m->time_step);
        esl_plot_append(self->plot_newton, 0, t, m->newton_iterations);
        esl_plot_append(self->plot_newton, 1, t, m->jacobian_evaluations);
    }
}

static void plots_set_cursor(EslWindow *self, double t)
{
    esl_plot_set_cursor(self->plot_energy, t);
    esl_plot_set_cursor(self->plot_drift, t);
    esl_plot_set_cursor(self->plot_constraints, t);
    esl_plot_set_cursor(self->plot_timing, t);
    esl_plot_set_cursor(self->plot_newton, t);
}

/* ---- playback ---------------------------------------------------------------------------- */

static int history_index_at(EslWindow *self, double t)
{
    GPtrArray *h = self->history;
    if (!h || h->len == 0)
        return -1;
    guint lo = 0, hi = h->len - 1;
    while (hi - lo > 1) {
        guint mid = (lo + hi) / 2;
        if (((EslRunSample *)h->pdata[mid])->monitors.time < t)
            lo = mid;
        else
            hi = mid;
    }
    double tl = ((EslRunSample *)h->pdata[lo])->monitors.time;
    double th = ((EslRunSample *)h->pdata[hi])->monitors.time;
    return (int)(fabs(th - t) < fabs(tl - t) ? hi : lo);
}

/* Trail of the selected body's centre of mass over samples 0..upto of the history. */
static void update_trail(EslWindow *self, int upto)
{
    EslViewport *viewport = ESL_VIEWPORT(self->viewport);
    int b = self->selected_body;
    if (b < 0 || !self->model || b >= self->model->nbodies || self->model->bodies[b].is_ground ||
        !self->history || !self->history_matches_model || upto < 1 ||
        upto >= (int)self->history->len) {
        esl_viewport_set_trail(viewport, NULL, 0, -1);
        return;
    }
    const double *com = self->model->bodies[b].com;
    int stride = MAX(1, (upto + 1) / 400);
    g_autoptr(GArray) points = g_array_new(FALSE, FALSE, sizeof(float));
    for (int i = 0;; i += stride) {
        if (i > upto)
            i = upto;
        const EslRunSample *s = self->history->pdata[i];
        const double *R = s->poses + 12 * b, *p = R + 9;
        for (int k = 0; k < 3; k++) {
            float x = (float)(R[3 * k] * com[0] + R[3 * k + 1] * com[1] + R[3 * k + 2] * com[2] +
                              p[k]);
            g_array_append_val(points, x);
        }
        if (i == upto)
            break;
    }
    esl_viewport_set_trail(viewport, (const float *)points->data, (int)(points->len / 3), b);
}

/* Show a state (body poses, joint violations; NULL poses: the model as drawn) in the 3D view
 * and its largest violation on the colour legend. */
static void show_state(EslWindow *self, const double *poses, const double *violations)
{
    esl_viewport_set_state(ESL_VIEWPORT(self->viewport), poses, violations);
    double largest = violations ? 0.0 : NAN;
    for (int j = 0; violations && self->model && j < self->model->njoints; j++)
        largest = isnan(violations[j]) ? INFINITY : fmax(largest, violations[j]);
    esl_color_scale_set_value(ESL_COLOR_SCALE(self->color_scale), largest);
}

static void show_time(EslWindow *self, double t)
{
    int i = history_index_at(self, t);
    if (i < 0)
        return;
    const EslRunSample *s = self->history->pdata[i];
    if (self->history_matches_model)
        show_state(self, s->poses, s->violations);
    update_trail(self, i);
    plots_set_cursor(self, s->monitors.time);
    g_autofree char *text = g_strdup_printf(_("t = %.4f s"), s->monitors.time);
    gtk_label_set_text(GTK_LABEL(self->time_label), text);
}

static void on_time_changed(GtkAdjustment *adjustment, EslWindow *self)
{
    if (!self->updating_scale)
        show_time(self, gtk_adjustment_get_value(adjustment));
}

static void on_plot_cursor_moved(EslPlot *plot, double t, EslWindow *self)
{
    (void)plot;
    gtk_adjustment_set_value(self->time_adjustment, t);
}

static void set_scale_silently(EslWindow *self, double upper, double value)
{
    self->updating_scale = TRUE;
    gtk_adjustment_set_upper(self->time_adjustment, fmax(upper, 1e-6));
    gtk_adjustment_set_step_increment(self->time_adjustment, fmax(upper, 1e-6) / 1000);
    gtk_adjustment_set_page_increment(self->time_adjustment, fmax(upper, 1e-6) / 20);
    gtk_adjustment_set_value(self->time_adjustment, value);
    self->updating_scale = FALSE;
}

/* The speed drop-down's choices, in its order (assets/ui/esl-window.ui). */
static const double playback_speeds[] = {0.1, 0.25, 0.5, 1.0, 2.0, 4.0};

static gboolean playback_tick(GtkWidget *widget, GdkFrameClock *clock, gpointer data)
{
    (void)widget;
    EslWindow *self = data;
    gint64 now = gdk_frame_clock_get_frame_time(clock);
    guint speed = gtk_drop_down_get_selected(GTK_DROP_DOWN(self->speed_dropdown));
    double dt = self->playback_last_us ? (now - self->playback_last_us) * 1e-6 : 0.0;
    dt *= speed < G_N_ELEMENTS(playback_speeds) ? playback_speeds[speed] : 1.0;
    self->playback_last_us = now;
    double t = gtk_adjustment_get_value(self->time_adjustment) + dt;
    double end = gtk_adjustment_get_upper(self->time_adjustment);
    if (t >= end) {
        gtk_adjustment_set_value(self->time_adjustment, end);
        self->playback_tick = 0;
        GAction *action = g_action_map_lookup_action(G_ACTION_MAP(self), "playback");
        g_simple_action_set_state(G_SIMPLE_ACTION(action), g_variant_new_boolean(FALSE));
        return G_SOURCE_REMOVE;
    }
    gtk_adjustment_set_value(self->time_adjustment, t);
    return G_SOURCE_CONTINUE;
}

static void stop_playback(EslWindow *self)
{
    if (self->playback_tick) {
        gtk_widget_remove_tick_callback(GTK_WIDGET(self), self->playback_tick);
        self->playback_tick = 0;
    }
    GAction *action = g_action_map_lookup_action(G_ACTION_MAP(self), "playback");
    if (action)
        g_simple_action_set_state(G_SIMPLE_ACTION(action), g_variant_new_boolean(FALSE));
}

static void playback_state_changed(GSimpleAction *action, GVariant *state, gpointer data)
{
    EslWindow *self = data;
    gboolean play = g_variant_get_boolean(state);
    g_simple_action_set_state(action, state);
    if (play && !self->playback_tick && self->history && self->history->len > 1 &&
        !self->controller) {
        if (gtk_adjustment_get_value(self->time_adjustment) >=
            gtk_adjustment_get_upper(self->time_adjustment) - 1e-9)
            gtk_adjustment_set_value(self->time_adjustment, 0);
        self->playback_last_us = 0;
        self->playback_tick = gtk_widget_add_tick_callback(GTK_WIDGET(self), playback_tick, self,
                                                           NULL);
    } else if (!play && self->playback_tick) {
        gtk_widget_remove_tick_callback(GTK_WIDGET(self), self->playback_tick);
        self->playback_tick = 0;
    } else if (play) {
        g_simple_action_set_state(action, g_variant_new_boolean(FALSE));
    }
}

/* ---- model sidebar and inspector --------------------------------------------------------- */

static void clear_list_box(GtkWidget *list)
{
    GtkWidget *child;
    while ((child = gtk_widget_get_first_child(list)))
        gtk_list_box_remove(GTK_LIST_BOX(list), child);
}

static void add_section(GtkWidget *list, const char *title, int count)
{
    g_autofree char *text = g_strdup_printf("%s (%d)", title, count);
    GtkWidget *label = gtk_label_new(text);
    gtk_label_set_xalign(GTK_LABEL(label), 0);
    gtk_widget_add_css_class(label, "heading");
    gtk_widget_set_margin_top(label, 8);
    GtkWidget *row = gtk_list_box_row_new();
    gtk_list_box_row_set_child(GTK_LIST_BOX_ROW(row), label);
    gtk_list_box_row_set_selectable(GTK_LIST_BOX_ROW(row), FALSE);
    gtk_list_box_row_set_activatable(GTK_LIST_BOX_ROW(row), FALSE);
    gtk_list_box_append(GTK_LIST_BOX(list), row);
}

static void add_element(GtkWidget *list, int source, int index, const char *name,
                        const char *kind)
{
    g_autofree char *markup = g_markup_printf_escaped("%s  <span alpha=\"60%%\">%s</span>", name,
                                                      kind);
    GtkWidget *label = gtk_label_new(NULL);
    gtk_label_set_markup(GTK_LABEL(label), markup);
    gtk_label_set_xalign(GTK_LABEL(label), 0);
    gtk_widget_set_margin_start(label, 12);
    GtkWidget *row = gtk_list_box_row_new();
    gtk_list_box_row_set_child(GTK_LIST_BOX_ROW(row), label);
    g_object_set_data(G_OBJECT(row), "source", GINT_TO_POINTER(source));
    g_object_set_data(G_OBJECT(row), "index", GINT_TO_POINTER(index));
    g_autofree char *text = g_strconcat(name, " ", kind, NULL);
    g_object_set_data_full(G_OBJECT(row), "filter-text", g_utf8_casefold(text, -1), g_free);
    gtk_list_box_append(GTK_LIST_BOX(list), row);
}

/* Rows of elements whose name or kind contains the search text; section headings stay. */
static gboolean model_row_visible(GtkListBoxRow *row, gpointer data)
{
    EslWindow *self = data;
    const char *text = g_object_get_data(G_OBJECT(row), "filter-text");
    const char *search = gtk_editable_get_text(GTK_EDITABLE(self->model_search));
    if (!text || !search || !*search)
        return TRUE;
    g_autofree char *folded = g_utf8_casefold(search, -1);
    return strstr(text, folded) != NULL;
}

static void on_model_search_changed(GtkSearchEntry *entry, EslWindow *self)
{
    (void)entry;
    gtk_list_box_invalidate_filter(GTK_LIST_BOX(self->model_list));
}

static const char *force_kind(MbsForceType t)
{
    switch (t) {
    case MBS_FORCE_TSDA: return _("spring-damper");
    case MBS_FORCE_RSDA: return _("rotational spring-damper");
    case MBS_FORCE_CONSTANT: return _("constant force");
    case MBS_FORCE_TORQUE: return _("constant torque");
    }
    return "?";
}

static const char *joint_kind(MbsJointType t)
{
    switch (t) {
    case MBS_JOINT_REVOLUTE: return _("revolute");
    case MBS_JOINT_PRISMATIC: return _("prismatic");
    case MBS_JOINT_SPHERICAL: return _("spherical");
    case MBS_JOINT_UNIVERSAL: return _("universal");
    case MBS_JOINT_ROD: return _("rod");
    case MBS_JOINT_TYPE_COUNT: break;
    }
    return "?";
}

static void fill_model_list(EslWindow *self)
{
    clear_list_box(self->model_list);
    const MbsModel *m = self->model;
    if (!m)
        return;
    add_section(self->model_list, _("Bodies"), m->nbodies);
    for (int i = 0; i < m->nbodies; i++)
        add_element(self->model_list, ESL_SOURCE_BODY, i, m->bodies[i].name,
                    m->bodies[i].is_ground ? _("ground") : "");
    add_section(self->model_list, _("Joints"), m->njoints);
    for (int i = 0; i < m->njoints; i++)
        add_element(self->model_list, ESL_SOURCE_JOINT, i, m->joints[i].name,
                    joint_kind(m->joints[i].type));
    add_section(self->model_list, _("Forces"), m->nforces);
    for (int i = 0; i < m->nforces; i++)
        add_element(self->model_list, ESL_SOURCE_FORCE, i, m->forces[i].name,
                    force_kind(m->forces[i].type));
    add_section(self->model_list, _("Parameters"), m->nparameters);
    for (int i = 0; i < m->nparameters; i++) {
        g_autofree char *value = g_strdup_printf("= %g", m->parameters[i].value);
        add_element(self->model_list, PARAMETER_SOURCE, i, m->parameters[i].name, value);
    }
}

static void append_vector(GString *s, const char *label, const double v[3], const char *unit)
{
    g_string_append_printf(s, "%s: (%.6g, %.6g, %.6g) %s\n", label, v[0], v[1], v[2], unit);
}

static char *describe_element(const MbsModel *m, int source, int index)
{
    GString *s = g_string_new(NULL);
    if (source == ESL_SOURCE_BODY) {
        const MbsBody *b = &m->bodies[index];
        g_string_append_printf(s, _("Body %s%s\n\n"), b->name, b->is_ground ? _(" (ground)") : "");
        if (!b->is_ground) {
            g_string_append_printf(s, _("mass: %.6g kg\n"), b->mass);
            append_vector(s, _("centre of mass"), b->com, "m");
            g_string_append_printf(s, _("inertia about the centre of mass (kg·m²):\n"));
            for (int r = 0; r < 3; r++)
                g_string_append_printf(s, "  %10.4g %10.4g %10.4g\n", b->inertia[3 * r],
                                       b->inertia[3 * r + 1], b->inertia[3 * r + 2]);
        }
        int npoints = 0;
        for (int i = 0; i < m->npoints; i++)
            if (m->points[i].body == index) {
                if (npoints++ == 0)
                    g_string_append(s, _("\npoints (drawn configuration):\n"));
                g_string_append_printf(s, "  %s: (%.6g, %.6g, %.6g) m\n", m->points[i].name,
                                       m->points[i].pos[0], m->points[i].pos[1],
                                       m->points[i].pos[2]);
            }
    } else if (source == ESL_SOURCE_JOINT) {
        const MbsJoint *j = &m->joints[index];
        g_string_append_printf(s, _("Joint %s (%s)\n\n"), j->name, joint_kind(j->type));
        g_string_append_printf(s, _("bodies: %s → %s\n"), m->bodies[j->body1].name,
                               m->bodies[j->body2].name);
        append_vector(s, _("point"), j->point1, "m");
        if (j->type == MBS_JOINT_ROD) {
            append_vector(s, _("point 2"), j->point2, "m");
            g_string_append_printf(s, _("length: %.6g m\n"), j->length);
        }
        if (j->type == MBS_JOINT_REVOLUTE || j->type == MBS_JOINT_PRISMATIC ||
            j->type == MBS_JOINT_UNIVERSAL)
            append_vector(s, _("axis"), j->axis1, "");
        if (j->type == MBS_JOINT_UNIVERSAL)
            append_vector(s, _("axis 2"), j->axis2, "");
        if (j->driven)
            g_string_append(s, _("driven: its coordinate follows a function of time\n"));
    } else if (source == ESL_SOURCE_FORCE) {
        const MbsForce *f = &m->forces[index];
        g_string_append_printf(s, _("Force %s (%s)\n\n"), f->name, force_kind(f->type));
        if (f->type == MBS_FORCE_TSDA) {
            g_string_append_printf(s, _("between %s and %s\n"), m->bodies[f->body1].name,
                                   m->bodies[f->body2].name);
            append_vector(s, _("point 1"), f->point1, "m");
            append_vector(s, _("point 2"), f->point2, "m");
            g_string_append_printf(s,
                                   _("stiffness: %.6g N/m\ndamping: %.6g N·s/m\nnatural "
                                     "length: %.6g m\npreload: %.6g N\n"),
                                   f->stiffness, f->damping, f->natural_length, f->preload);
        } else if (f->type == MBS_FORCE_RSDA) {
            g_string_append_printf(s,
                                   _("on joint %s\nstiffness: %.6g N·m/rad\ndamping: %.6g "
                                     "N·m·s/rad\nrest angle: %.6g rad\n"),
                                   m->joints[f->joint].name, f->stiffness, f->damping,
                                   f->rest_angle);
        } else {
            g_string_append_printf(s, _("on body %s\n"), m->bodies[f->body1].name);
            append_vector(s, f->type == MBS_FORCE_TORQUE ? _("torque") : _("force"), f->vector,
                          f->type == MBS_FORCE_TORQUE ? "N·m" : "N");
        }
    } else if (source == PARAMETER_SOURCE) {
        g_string_append_printf(s, _("Parameter %s = %.10g\n"), m->parameters[index].name,
                               m->parameters[index].value);
    }
    return g_string_free(s, FALSE);
}

/* ---- editing numbers in the inspector ----------------------------------------------------- */

static void read_settings(EslWindow *self, MbsSettings *settings);
static void set_history(EslWindow *self, GPtrArray *history, gboolean matches_model);
static void fill_model_list(EslWindow *self);
static void select_element(EslWindow *self, int source, int index);

static const char *axis_name(int k)
{
    return k == 0 ? "x" : k == 1 ? "y" : "z";
}

/* Label of an editable number, with its unit. */
static char *field_label(const MbsModel *m, int source, int index, const EslModelField *f)
{
    const char *k = f->key;
    gboolean rotational = source == ESL_SOURCE_FORCE && m->forces[index].type == MBS_FORCE_RSDA;
    if (g_str_equal(k, "mass"))
        return g_strdup(_("mass (kg)"));
    if (g_str_equal(k, "points"))
        return g_strdup_printf(_("point %s, %s (m)"), f->sub, axis_name(f->component));
    if (g_str_equal(k, "stiffness"))
        return g_strdup(rotational ? _("stiffness (N·m/rad)") : _("stiffness (N/m)"));
    if (g_str_equal(k, "damping"))
        return g_strdup(rotational ? _("damping (N·m·s/rad)") : _("damping (N·s/m)"));
    if (g_str_equal(k, "length"))
        return g_strdup(_("length (m)"));
    if (g_str_equal(k, "natural_length"))
        return g_strdup(_("natural length (m)"));
    if (g_str_equal(k, "preload"))
        return g_strdup(_("preload (N)"));
    if (g_str_equal(k, "rest_angle"))
        return g_strdup(_("rest angle (rad)"));
    if (g_str_equal(k, "vector"))
        return m->forces[index].type == MBS_FORCE_TORQUE
                   ? g_strdup_printf(_("torque, %s (N·m)"), axis_name(f->component))
                   : g_strdup_printf(_("force, %s (N)"), axis_name(f->component));
    if (g_str_equal(k, "position") || g_str_equal(k, "velocity")) {
        gboolean linear = m->joints[index].type == MBS_JOINT_PRISMATIC;
        gboolean velocity = g_str_equal(k, "velocity");
        const char *unit = velocity ? (linear ? "m/s" : "rad/s") : (linear ? "m" : "rad");
        return g_strdup_printf(velocity ? _("initial velocity %d (%s)")
                                        : _("initial position %d (%s)"),
                               f->coordinate + 1, unit);
    }
    return g_strdup(_("value"));
}

static EslElementKind element_kind(int source)
{
    return source == ESL_SOURCE_BODY    ? ESL_ELEMENT_BODY
           : source == ESL_SOURCE_JOINT ? ESL_ELEMENT_JOINT
           : source == ESL_SOURCE_FORCE ? ESL_ELEMENT_FORCE
                                        : ESL_ELEMENT_PARAMETER;
}

gboolean esl_window_edit_model(EslWindow *self, const char *path, double value, GError **error)
{
    if (self->controller) {
        g_set_error(error, G_IO_ERROR, G_IO_ERROR_BUSY,
                    _("Stop the running simulation before editing the model."));
        return FALSE;
    }
    if (!self->model_json) {
        g_set_error(error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND, _("no model is open"));
        return FALSE;
    }
    MbsSettings settings;
    read_settings(self, &settings);
    const MbsFormulationClass *klass =
        esl_run_settings_get_formulation(ESL_RUN_SETTINGS(self->run_settings));
    const char *formulation = klass ? klass->name : "penalty";
    g_autofree char *origin = g_path_get_basename(self->model_path);
    g_autoptr(EslModelEdit) edit = esl_model_edit_apply(self->model_json, origin, path, value,
                                                        formulation, &settings, error);
    if (!edit)
        return FALSE;
    /* The element shown in the inspector is shown again, with its new numbers. */
    GtkListBoxRow *row = gtk_list_box_get_selected_row(GTK_LIST_BOX(self->model_list));
    int source = row ? GPOINTER_TO_INT(g_object_get_data(G_OBJECT(row), "source")) : -1;
    int index = row ? GPOINTER_TO_INT(g_object_get_data(G_OBJECT(row), "index")) : -1;
    /* The run shown was of the model before the edit: it is no longer shown. */
    gtk_list_box_unselect_all(GTK_LIST_BOX(self->runs_list));
    set_history(self, NULL, FALSE);
    plots_prepare_single(self);
    gtk_label_set_text(GTK_LABEL(self->time_label), _("t = 0 s"));
    esl_viewport_set_model(ESL_VIEWPORT(self->viewport), NULL);
    mbs_model_free(self->model);
    self->model = g_steal_pointer(&edit->model);
    esl_run_settings_set_model(ESL_RUN_SETTINGS(self->run_settings), self->model);
    g_free(self->model_json);
    self->model_json = g_steal_pointer(&edit->json);
    self->model_modified = TRUE;
    esl_viewport_set_model(ESL_VIEWPORT(self->viewport), self->model);
    show_state(self, edit->poses, edit->violations);
    gtk_label_set_text(GTK_LABEL(self->viewport_note),
                       _("Model edited and re-assembled: run it to see the effect."));
    update_titles(self);
    fill_model_list(self);
    select_element(self, source, index);
    return TRUE;
}

/* Enter in a field: the edit, or its error under the field (the model then stays as it was). */
static void on_field_activate(GtkEntry *entry, EslWindow *self)
{
    GtkWidget *error_label = g_object_get_data(G_OBJECT(entry), "error-label");
    /* Copies: the entry is replaced when the inspector is rebuilt after the edit. */
    g_autofree char *path = g_strdup(g_object_get_data(G_OBJECT(entry), "path"));
    g_autofree char *label = g_strdup(g_object_get_data(G_OBJECT(entry), "label"));
    const char *text = gtk_editable_get_text(GTK_EDITABLE(entry));
    /* Numbers are shown with a decimal point; a decimal comma is accepted too. */
    g_autofree char *number = g_strdelimit(g_strdup(text), ",", '.');
    char *end = NULL;
    double value = g_ascii_strtod(number, &end);
    g_autoptr(GError) error = NULL;
    gboolean ok;
    if (end == number || *g_strchug(end) || !isfinite(value)) {
        g_set_error(&error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, _("“%s” is not a number."),
                    text);
        ok = FALSE;
    } else {
        ok = esl_window_edit_model(self, path, value, &error);
    }
    if (!ok) {
        gtk_label_set_text(GTK_LABEL(error_label), error->message);
        gtk_widget_set_visible(error_label, TRUE);
        gtk_widget_add_css_class(GTK_WIDGET(entry), "error");
        return;
    }
    const MbsFormulationClass *klass =
        esl_run_settings_get_formulation(ESL_RUN_SETTINGS(self->run_settings));
    show_status(self, FALSE, _("%s set to %g; the model is re-assembled (%s)."), label, value,
                klass ? klass->name : "penalty");
}

static void on_field_changed(GtkEditable *editable, gpointer data)
{
    (void)data;
    GtkWidget *error_label = g_object_get_data(G_OBJECT(editable), "error-label");
    gtk_widget_set_visible(error_label, FALSE);
    gtk_widget_remove_css_class(GTK_WIDGET(editable), "error");
}

static void fill_inspector_fields(EslWindow *self, int source, int index)
{
    GtkWidget *child;
    while ((child = gtk_widget_get_first_child(self->inspector_fields)))
        gtk_grid_remove(GTK_GRID(self->inspector_fields), child);
    if (!self->model || !self->model_json || source < 0)
        return;
    g_autoptr(GPtrArray) fields =
        esl_model_edit_fields(self->model, self->model_json, element_kind(source), index);
    int row = 0;
    if (fields->len > 0) {
        GtkWidget *hint = gtk_label_new(_("Edit a number and press Enter: the model is rebuilt "
                                          "and re-assembled."));
        gtk_label_set_wrap(GTK_LABEL(hint), TRUE);
        gtk_label_set_xalign(GTK_LABEL(hint), 0);
        gtk_widget_add_css_class(hint, "dim-label");
        gtk_widget_add_css_class(hint, "caption");
        gtk_grid_attach(GTK_GRID(self->inspector_fields), hint, 0, row++, 2, 1);
    }
    for (guint i = 0; i < fields->len; i++) {
        const EslModelField *f = fields->pdata[i];
        g_autofree char *label_text = field_label(self->model, source, index, f);
        GtkWidget *label = gtk_label_new(label_text);
        gtk_label_set_xalign(GTK_LABEL(label), 0);
        GtkWidget *entry = gtk_entry_new();
        char value[G_ASCII_DTOSTR_BUF_SIZE];
        gtk_editable_set_text(GTK_EDITABLE(entry),
                              g_ascii_formatd(value, sizeof value, "%.10g", f->value));
        gtk_editable_set_width_chars(GTK_EDITABLE(entry), 10);
        gtk_widget_set_hexpand(entry, TRUE);
        gtk_widget_add_css_class(entry, "numeric");
        if (f->expression) {
            g_autofree char *tip = g_strdup_printf(
                _("The file gives this value as the expression “%s”; a number typed here "
                  "replaces it."),
                f->expression);
            gtk_widget_set_tooltip_text(entry, tip);
        }
        GtkWidget *error_label = gtk_label_new(NULL);
        gtk_label_set_wrap(GTK_LABEL(error_label), TRUE);
        gtk_label_set_xalign(GTK_LABEL(error_label), 0);
        gtk_label_set_selectable(GTK_LABEL(error_label), TRUE);
        gtk_widget_add_css_class(error_label, "error");
        gtk_widget_add_css_class(error_label, "caption");
        gtk_widget_set_visible(error_label, FALSE);
        g_object_set_data_full(G_OBJECT(entry), "path", g_strdup(f->path), g_free);
        g_object_set_data_full(G_OBJECT(entry), "label", g_strdup(label_text), g_free);
        g_object_set_data(G_OBJECT(entry), "source", GINT_TO_POINTER(source));
        g_object_set_data(G_OBJECT(entry), "index", GINT_TO_POINTER(index));
        g_object_set_data(G_OBJECT(entry), "error-label", error_label);
        g_signal_connect(entry, "activate", G_CALLBACK(on_field_activate), self);
        g_signal_connect(entry, "changed", G_CALLBACK(on_field_changed), NULL);
        gtk_grid_attach(GTK_GRID(self->inspector_fields), label, 0, row, 1, 1);
        gtk_grid_attach(GTK_GRID(self->inspector_fields), entry, 1, row++, 1, 1);
        gtk_grid_attach(GTK_GRID(self->inspector_fields), error_label, 0, row++, 2, 1);
    }
}

static void on_model_row_selected(GtkListBox *list, GtkListBoxRow *row, EslWindow *self)
{
    (void)list;
    if (!self->model)
        return;
    if (!row) {
        self->selected_body = -1;
        esl_viewport_set_trail(ESL_VIEWPORT(self->viewport), NULL, 0, -1);
        esl_viewport_set_highlight(ESL_VIEWPORT(self->viewport), -1, -1);
        fill_inspector_fields(self, -1, -1);
        return;
    }
    int source = GPOINTER_TO_INT(g_object_get_data(G_OBJECT(row), "source"));
    int index = GPOINTER_TO_INT(g_object_get_data(G_OBJECT(row), "index"));
    self->selected_body = source == ESL_SOURCE_BODY ? index : -1;
    if (self->history && self->history->len > 0)
        update_trail(self, self->controller
                               ? (int)self->history->len - 1
                               : history_index_at(self,
                                                  gtk_adjustment_get_value(self->time_adjustment)));
    g_autofree char *text = describe_element(self->model, source, index);
    gtk_label_set_text(GTK_LABEL(self->inspector_label), text);
    fill_inspector_fields(self, source, index);
    esl_viewport_set_highlight(ESL_VIEWPORT(self->viewport),
                               source == PARAMETER_SOURCE ? -1 : source, index);
}

static void on_viewport_picked(EslViewport *viewport, int source, int index, EslWindow *self)
{
    (void)viewport;
    select_element(self, source, index);
}

/* Select the row of an element in the model list (none when source < 0). */
static void select_element(EslWindow *self, int source, int index)
{
    if (source < 0) {
        gtk_list_box_unselect_all(GTK_LIST_BOX(self->model_list));
        return;
    }
    for (GtkWidget *row = gtk_widget_get_first_child(self->model_list); row;
         row = gtk_widget_get_next_sibling(row)) {
        if (GPOINTER_TO_INT(g_object_get_data(G_OBJECT(row), "source")) == source &&
            GPOINTER_TO_INT(g_object_get_data(G_OBJECT(row), "index")) == index &&
            gtk_list_box_row_get_selectable(GTK_LIST_BOX_ROW(row))) {
            gtk_list_box_select_row(GTK_LIST_BOX(self->model_list), GTK_LIST_BOX_ROW(row));
            gtk_notebook_set_current_page(
                GTK_NOTEBOOK(gtk_widget_get_ancestor(self->model_list, GTK_TYPE_NOTEBOOK)), 0);
            return;
        }
    }
}

/* ---- runs list --------------------------------------------------------------------------- */

static void load_single_run(EslWindow *self, gint64 run_id);
static void install_model(EslWindow *self, MbsModel *model, char *json, char *path);
static void load_overlay(EslWindow *self, GList *rows);

static void fill_runs_list(EslWindow *self)
{
    self->rebuilding_runs = TRUE;
    clear_list_box(self->runs_list);
    if (self->project) {
        g_autoptr(GError) error = NULL;
        g_autoptr(GPtrArray) runs = esl_project_list_runs(self->project, &error);
        if (!runs)
            show_status(self, TRUE, _("Cannot list the runs: %s"), error->message);
        for (guint i = 0; runs && i < runs->len; i++) {
            const EslRunInfo *r = runs->pdata[runs->len - 1 - i]; /* newest first */
            g_autofree char *started = g_strndup(r->started_at ? r->started_at : "", 16);
            g_strdelimit(started, "T", ' ');
            g_autofree char *id = g_strdup_printf("#%" G_GINT64_FORMAT, r->id);
            g_autofree char *count = g_strdup_printf("%" G_GINT64_FORMAT, r->nsamples);
            g_autofree char *markup = g_markup_printf_escaped(
                _("<b>%s %s</b> · %s\nh = %g s, %g s · %s\n<span alpha=\"60%%\">%s UTC · %s "
                  "samples</span>"),
                id, r->model_name, r->formulation, r->settings.step, r->settings.duration,
                run_status_label(r->status), started, count);
            GtkWidget *label = gtk_label_new(NULL);
            gtk_label_set_markup(GTK_LABEL(label), markup);
            gtk_label_set_xalign(GTK_LABEL(label), 0);
            gtk_widget_set_margin_top(label, 3);
            gtk_widget_set_margin_bottom(label, 3);
            if (r->message)
                gtk_widget_set_tooltip_text(label, r->message);
            GtkWidget *row = gtk_list_box_row_new();
            gtk_list_box_row_set_child(GTK_LIST_BOX_ROW(row), label);
            g_object_set_data(G_OBJECT(row), "run-id", GINT_TO_POINTER((int)r->id));
            gtk_list_box_append(GTK_LIST_BOX(self->runs_list), row);
        }
    }
    self->rebuilding_runs = FALSE;
}

static void on_runs_selection_changed(GtkListBox *list, EslWindow *self)
{
    if (self->rebuilding_runs || self->controller)
        return;
    GList *rows = gtk_list_box_get_selected_rows(list);
    guint n = g_list_length(rows);
    if (n == 1)
        load_single_run(self,
                        GPOINTER_TO_INT(g_object_get_data(G_OBJECT(rows->data), "run-id")));
    else if (n > 1)
        load_overlay(self, rows);
    g_list_free(rows);
}

/* Frame the whole motion of the history (a few dozen of its states). */
static void fit_history(EslWindow *self)
{
    if (!self->history || !self->history_matches_model || self->history->len == 0)
        return;
    int n = MIN((int)self->history->len, 60);
    g_autofree const double **poses = g_new(const double *, n);
    for (int i = 0; i < n; i++) {
        guint k = (guint)((gint64)i * (self->history->len - 1) / MAX(n - 1, 1));
        poses[i] = ((EslRunSample *)self->history->pdata[k])->poses;
    }
    esl_viewport_fit_states(ESL_VIEWPORT(self->viewport), (const double *const *)poses, n);
}

static void set_history(EslWindow *self, GPtrArray *history, gboolean matches_model)
{
    stop_playback(self);
    esl_viewport_set_trail(ESL_VIEWPORT(self->viewport), NULL, 0, -1);
    g_clear_pointer(&self->history, g_ptr_array_unref);
    self->history = history;
    self->history_matches_model = matches_model;
    double end = history && history->len
                     ? ((EslRunSample *)history->pdata[history->len - 1])->monitors.time
                     : 0.0;
    set_scale_silently(self, end, end);
    gtk_widget_set_sensitive(self->time_scale, history && history->len > 1);
    if (history && history->len)
        show_time(self, end);
}

static GPtrArray *history_from_store(const EslRunHistory *h)
{
    GPtrArray *samples = g_ptr_array_new_with_free_func((GDestroyNotify)esl_run_sample_free);
    for (int i = 0; i < h->n; i++) {
        EslRunSample *s = esl_run_sample_new(h->nbodies, h->njoints);
        s->monitors = h->monitors[i];
        if (h->poses)
            memcpy(s->poses, h->poses + (gsize)i * h->nbodies * 12,
                   sizeof(double) * h->nbodies * 12);
        if (h->violations)
            memcpy(s->violations, h->violations + (gsize)i * h->njoints,
                   sizeof(double) * h->njoints);
        g_ptr_array_add(samples, s);
    }
    return samples;
}

static void load_single_run(EslWindow *self, gint64 run_id)
{
    g_autoptr(GError) error = NULL;
    g_autoptr(EslRunInfo) info = esl_project_get_run(self->project, run_id, &error);
    g_autoptr(EslRunHistory) h = info ? esl_project_load_run(self->project, run_id, &error) : NULL;
    g_autofree char *id = g_strdup_printf("#%" G_GINT64_FORMAT, run_id);
    if (!h) {
        show_status(self, TRUE, _("Cannot load run %s: %s"), id, error->message);
        return;
    }
    /* The run's own model (stored with it) is loaded to replay it, unless the model shown has
     * unsaved edits. */
    g_autofree char *note = NULL;
    g_autofree char *run_json =
        info->model_id > 0 ? esl_project_model_json(self->project, info->model_id, NULL) : NULL;
    if (run_json && g_strcmp0(run_json, self->model_json) != 0) {
        g_autoptr(GError) model_error = NULL;
        g_autofree char *origin = g_strdup_printf("%s.json", info->model_name);
        MbsModel *m = self->model_modified
                          ? NULL
                          : esl_model_load_string(run_json, origin, NULL, 0, &model_error);
        if (m) {
            install_model(self, m, g_steal_pointer(&run_json), g_steal_pointer(&origin));
            note = g_strdup_printf(_("Model %s of run %s loaded from the project."),
                                   info->model_name, id);
        } else if (self->model_modified) {
            note = g_strdup(_("This run belongs to another model: save the edited model (Project "
                              "▸ Save Model As…) to replay it in 3D."));
        } else {
            note = g_strdup_printf(_("The model of this run cannot be loaded: %s"),
                                   model_error->message);
        }
    }
    gboolean matches = self->model && h->nbodies == self->model->nbodies &&
                       h->njoints == self->model->njoints &&
                       g_strcmp0(info->model_name, self->model->name) == 0 &&
                       (!run_json || g_strcmp0(run_json, self->model_json) == 0);
    plots_prepare_single(self);
    self->energy0 = NAN;
    for (int i = 0; i < h->n; i++)
        plots_append(self, &h->monitors[i]);
    set_history(self, history_from_store(h), matches);
    fit_history(self);
    esl_run_settings_show(ESL_RUN_SETTINGS(self->run_settings), info->formulation,
                          &info->settings);
    gtk_label_set_text(GTK_LABEL(self->viewport_note),
                       note      ? note
                       : matches ? ""
                                 : _("This run belongs to another model: open that model to "
                                     "replay it in 3D."));
    show_status(self, info->status == ESL_RUN_FAILED || info->status == ESL_RUN_INTERRUPTED,
                _("Run %s (%s): %s%s%s"), id, info->formulation,
                run_status_label(info->status), info->message ? " — " : "",
                info->message ? info->message : "");
}

static void load_overlay(EslWindow *self, GList *rows)
{
    plots_clear(self);
    set_history(self, NULL, FALSE);
    plots_set_cursor(self, NAN);
    gtk_label_set_text(GTK_LABEL(self->time_label), "");
    gtk_label_set_text(GTK_LABEL(self->viewport_note),
                       _("Comparing runs: select a single run to replay it."));
    int k = 0;
    for (GList *l = rows; l; l = l->next, k++) {
        gint64 id = GPOINTER_TO_INT(g_object_get_data(G_OBJECT(l->data), "run-id"));
        g_autoptr(GError) error = NULL;
        g_autoptr(EslRunInfo) info = esl_project_get_run(self->project, id, &error);
        g_autoptr(EslRunHistory) h = info ? esl_project_load_run(self->project, id, &error) : NULL;
        if (!h)
            continue;
        g_autofree char *name = g_strdup_printf("#%" G_GINT64_FORMAT " %s h=%g", id,
                                                info->formulation, info->settings.step);
        const GdkRGBA *color = &palette[k % G_N_ELEMENTS(palette)];
        gboolean dashed = k >= (int)G_N_ELEMENTS(palette);
        int se = esl_plot_add_series(self->plot_energy, name, color, dashed);
        int sd = esl_plot_add_series(self->plot_drift, name, color, dashed);
        int sc = esl_plot_add_series(self->plot_constraints, name, color, dashed);
        int st = esl_plot_add_series(self->plot_timing, name, color, dashed);
        int sn = esl_plot_add_series(self->plot_newton, name, color, dashed);
        double e0 = h->n ? h->monitors[0].total : 0;
        for (int i = 0; i < h->n; i++) {
            const MbsMonitors *m = &h->monitors[i];
            esl_plot_append(self->plot_energy, se, m->time, m->total);
            esl_plot_append(self->plot_drift, sd, m->time, fabs(m->total - e0));
            esl_plot_append(self->plot_constraints, sc, m->time, m->phi_norm);
            if (m->time > 0) {
                esl_plot_append(self->plot_timing, st, m->time, 1e3 * m->time_step);
                esl_plot_append(self->plot_newton, sn, m->time, m->newton_iterations);
            }
        }
    }
    show_status(self, FALSE, _("Comparing %d runs: total energy, drift, ‖Φ‖, step time and "
                               "Newton iterations of each."),
                k);
}

/* ---- project ------------------------------------------------------------------------------ */

static void close_project(EslWindow *self)
{
    g_clear_pointer(&self->project, esl_project_close);
    g_hash_table_remove_all(self->model_ids);
    if (self->project_is_temporary && self->project_path) {
        g_autofree char *wal = g_strconcat(self->project_path, "-wal", NULL);
        g_autofree char *shm = g_strconcat(self->project_path, "-shm", NULL);
        g_unlink(self->project_path);
        g_unlink(wal);
        g_unlink(shm);
    }
    g_clear_pointer(&self->project_path, g_free);
    self->project_is_temporary = FALSE;
}

gboolean esl_window_open_project(EslWindow *self, const char *path, gboolean create,
                                 GError **error)
{
    if (self->controller) {
        g_set_error(error, G_IO_ERROR, G_IO_ERROR_BUSY,
                    _("Stop the running simulation before changing the project."));
        return FALSE;
    }
    EslProject *project = esl_project_open(path, create, error);
    if (!project)
        return FALSE;
    close_project(self);
    self->project = project;
    self->project_path = g_strdup(path);
    int interrupted = esl_project_interrupted_on_open(project);
    if (interrupted > 0)
        show_status(self, TRUE,
                    ngettext("%d run had been interrupted (the program stopped during it); it "
                             "is marked so in the list.",
                             "%d runs had been interrupted (the program stopped during them); "
                             "they are marked so in the list.",
                             interrupted),
                    interrupted);
    update_titles(self);
    fill_runs_list(self);
    return TRUE;
}

const char *esl_window_get_project_path(EslWindow *self)
{
    return self->project_path;
}

static gboolean ensure_project(EslWindow *self, GError **error)
{
    if (self->project)
        return TRUE;
    g_autofree char *dir = g_build_filename(g_get_user_cache_dir(), "eslabon", NULL);
    g_mkdir_with_parents(dir, 0700);
    g_autofree char *name = g_strdup_printf("unsaved-%d-%" G_GINT64_FORMAT ".eslabon", getpid(),
                                            g_get_real_time());
    g_autofree char *path = g_build_filename(dir, name, NULL);
    if (!esl_window_open_project(self, path, TRUE, error))
        return FALSE;
    self->project_is_temporary = TRUE;
    update_titles(self);
    return TRUE;
}

static gint64 stored_model_id(EslWindow *self)
{
    /* One stored copy per distinct text: an edited model is stored as it was run. */
    g_autofree char *sum = g_compute_checksum_for_string(G_CHECKSUM_SHA256, self->model_json, -1);
    g_autofree char *key = g_strconcat(self->model_path, "\n", sum, NULL);
    gpointer id = g_hash_table_lookup(self->model_ids, key);
    if (id)
        return GPOINTER_TO_INT(id);
    gint64 model_id = esl_project_add_model(self->project, self->model->name, self->model_path,
                                            self->model_json, NULL);
    if (model_id > 0)
        g_hash_table_insert(self->model_ids, g_steal_pointer(&key), GINT_TO_POINTER((int)model_id));
    return model_id;
}

static void update_run_actions(EslWindow *self);

/* ---- model -------------------------------------------------------------------------------- */

gboolean esl_window_load_model(EslWindow *self, const char *path_or_name, GError **error)
{
    if (self->controller) {
        g_set_error(error, G_IO_ERROR, G_IO_ERROR_BUSY,
                    _("Stop the running simulation before opening another model."));
        return FALSE;
    }
    char *path = resolve_model(path_or_name);
    MbsModel *model = esl_model_load_file(path, NULL, 0, error);
    char *json = NULL;
    if (!model || !g_file_get_contents(path, &json, NULL, error)) {
        mbs_model_free(model);
        g_free(path);
        return FALSE;
    }
    install_model(self, model, json, path);
    return TRUE;
}

/* Make model (built from json, read from path) the window's model; takes the three. */
static void install_model(EslWindow *self, MbsModel *model, char *json, char *path)
{
    esl_viewport_set_model(ESL_VIEWPORT(self->viewport), NULL);
    set_history(self, NULL, FALSE);
    mbs_model_free(self->model);
    self->model = model;
    g_free(self->model_path);
    self->model_path = path;
    g_free(self->model_json);
    self->model_json = json;
    self->model_modified = FALSE;
    esl_run_settings_set_model(ESL_RUN_SETTINGS(self->run_settings), model);
    esl_viewport_set_model(ESL_VIEWPORT(self->viewport), model);
    esl_color_scale_set_value(ESL_COLOR_SCALE(self->color_scale), NAN);
    self->selected_body = -1;
    fill_model_list(self);
    plots_prepare_single(self);
    gtk_label_set_text(GTK_LABEL(self->viewport_note), "");
    gtk_label_set_text(GTK_LABEL(self->inspector_label),
                       _("Select a body, joint, force or parameter (in the list or in the 3D "
                         "view) to inspect it."));
    fill_inspector_fields(self, -1, -1);
    g_autofree char *summary =
        g_strdup_printf(_("%s: %d bodies, %d joints, %d forces, %d coordinates, %d "
                          "constraints."),
                        model->name, model->nbodies, model->njoints, model->nforces,
                        mbs_model_ncoords(model), mbs_model_nconstraints(model));
    show_status(self, FALSE, "%s", summary);
    gtk_stack_set_visible_child_name(GTK_STACK(self->stack), "workbench");
    update_titles(self);
    update_run_actions(self);
}

static void on_gallery_clicked(GtkButton *button, EslWindow *self)
{
    const char *path = g_object_get_data(G_OBJECT(button), "path");
    g_autoptr(GError) error = NULL;
    if (!esl_window_load_model(self, path, &error))
        show_status(self, TRUE, "%s", error->message);
}

/* Thumbnails of the gallery: each bundled model drawn offscreen with the renderer, in a GL
 * context of the window's surface. Without OpenGL the cards simply have no picture. */
static void draw_thumbnails(EslWindow *self)
{
    if (self->thumbnails_drawn || self->thumbnails->len == 0)
        return;
    self->thumbnails_drawn = TRUE;
    GdkSurface *surface = gtk_native_get_surface(GTK_NATIVE(self));
    g_autoptr(GError) error = NULL;
    g_autoptr(GdkGLContext) context = surface ? gdk_surface_create_gl_context(surface, &error)
                                              : NULL;
    if (!context)
        return;
    gdk_gl_context_set_required_version(context, 3, 3);
    if (!gdk_gl_context_realize(context, &error)) {
        g_debug("no thumbnails: %s", error->message);
        return;
    }
    gdk_gl_context_make_current(context);
    EslRenderer *renderer = esl_renderer_new(&error);
    if (!renderer || !esl_renderer_set_offscreen_size(renderer, THUMBNAIL_WIDTH,
                                                      THUMBNAIL_HEIGHT, &error)) {
        g_debug("no thumbnails: %s", error ? error->message : "");
        esl_renderer_free(renderer);
        gdk_gl_context_clear_current();
        return;
    }
    EslScene *scene = esl_scene_new();
    gsize stride = THUMBNAIL_WIDTH * 4;
    for (guint i = 0; i < self->thumbnails->len; i++) {
        GtkWidget *picture = self->thumbnails->pdata[i];
        const char *path = g_object_get_data(G_OBJECT(picture), "path");
        MbsModel *m = esl_model_load_file(path, NULL, 0, NULL);
        if (!m)
            continue;
        esl_scene_build(scene, m, NULL, NULL, NULL);
        EslCamera camera = {0};
        esl_camera_set_view(&camera, ESL_VIEW_ISOMETRIC, scene);
        guint8 *pixels = g_malloc(stride * THUMBNAIL_HEIGHT);
        if (esl_renderer_render_offscreen(renderer, scene, &camera, pixels, NULL)) {
            g_autoptr(GBytes) bytes = g_bytes_new_take(pixels, stride * THUMBNAIL_HEIGHT);
            g_autoptr(GdkTexture) texture = gdk_memory_texture_new(
                THUMBNAIL_WIDTH, THUMBNAIL_HEIGHT, GDK_MEMORY_R8G8B8A8, bytes, stride);
            gtk_picture_set_paintable(GTK_PICTURE(picture), GDK_PAINTABLE(texture));
        } else {
            g_free(pixels);
        }
        mbs_model_free(m);
    }
    esl_scene_free(scene);
    esl_renderer_free(renderer);
    gdk_gl_context_clear_current();
}

static void on_window_map(GtkWidget *widget, gpointer data)
{
    (void)data;
    draw_thumbnails(ESL_WINDOW(widget));
}

/* g_ptr_array_sort passes pointers to the elements. */
static int compare_names(gconstpointer a, gconstpointer b)
{
    return g_strcmp0(*(char *const *)a, *(char *const *)b);
}

static void fill_gallery(EslWindow *self)
{
    g_autoptr(GDir) dir = g_dir_open(esl_models_dir(), 0, NULL);
    g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func(g_free);
    const char *name;
    while (dir && (name = g_dir_read_name(dir)))
        if (g_str_has_suffix(name, ".json"))
            g_ptr_array_add(names, g_strdup(name));
    g_ptr_array_sort(names, compare_names);
    for (guint i = 0; i < names->len; i++) {
        g_autofree char *path = g_build_filename(esl_models_dir(), names->pdata[i], NULL);
        g_autoptr(JsonParser) parser = json_parser_new();
        if (!json_parser_load_from_file(parser, path, NULL))
            continue;
        JsonNode *root = json_parser_get_root(parser);
        if (!JSON_NODE_HOLDS_OBJECT(root))
            continue;
        JsonObject *o = json_node_get_object(root);
        const char *title = json_object_get_string_member_with_default(o, "name", names->pdata[i]);
        const char *description = json_object_get_string_member_with_default(o, "description", "");
        GtkWidget *box = gtk_box_new(GTK_ORIENTATION_VERTICAL, 6);
        GtkWidget *picture = gtk_picture_new();
        gtk_widget_set_size_request(picture, THUMBNAIL_WIDTH, THUMBNAIL_HEIGHT);
        gtk_picture_set_can_shrink(GTK_PICTURE(picture), FALSE);
        gtk_widget_set_halign(picture, GTK_ALIGN_CENTER);
        gtk_widget_set_valign(picture, GTK_ALIGN_START);
        g_object_set_data_full(G_OBJECT(picture), "path", g_strdup(path), g_free);
        g_ptr_array_add(self->thumbnails, picture);
        gtk_box_append(GTK_BOX(box), picture);
        GtkWidget *heading = gtk_label_new(title);
        gtk_widget_add_css_class(heading, "heading");
        gtk_label_set_xalign(GTK_LABEL(heading), 0);
        GtkWidget *text = gtk_label_new(description);
        gtk_label_set_wrap(GTK_LABEL(text), TRUE);
        gtk_label_set_lines(GTK_LABEL(text), 5);
        gtk_label_set_ellipsize(GTK_LABEL(text), PANGO_ELLIPSIZE_END);
        gtk_label_set_max_width_chars(GTK_LABEL(text), 40);
        gtk_label_set_xalign(GTK_LABEL(text), 0);
        gtk_label_set_yalign(GTK_LABEL(text), 0);
        gtk_widget_add_css_class(text, "dim-label");
        gtk_box_append(GTK_BOX(box), heading);
        gtk_box_append(GTK_BOX(box), text);
        GtkWidget *button = gtk_button_new();
        gtk_button_set_child(GTK_BUTTON(button), box);
        gtk_widget_add_css_class(button, "model-card");
        gtk_widget_set_valign(button, GTK_ALIGN_START);
        gtk_widget_set_tooltip_text(button, description);
        g_object_set_data_full(G_OBJECT(button), "path", g_strdup(path), g_free);
        g_signal_connect(button, "clicked", G_CALLBACK(on_gallery_clicked), self);
        gtk_flow_box_append(GTK_FLOW_BOX(self->gallery), button);
    }
    if (names->len == 0) {
        g_autofree char *text =
            g_strdup_printf(_("No bundled models found in %s."), esl_models_dir());
        gtk_flow_box_append(GTK_FLOW_BOX(self->gallery), gtk_label_new(text));
    }
}

/* ---- running ------------------------------------------------------------------------------ */

/* The run settings shown in the run panel. */
static void read_settings(EslWindow *self, MbsSettings *settings)
{
    esl_run_settings_read(ESL_RUN_SETTINGS(self->run_settings), settings);
}

static void update_progress(EslWindow *self)
{
    if (!self->controller)
        return;
    double sim, wall;
    long steps;
    esl_run_controller_progress(self->controller, &sim, &steps, &wall);
    double duration = self->run_duration;
    gtk_progress_bar_set_fraction(GTK_PROGRESS_BAR(self->progress_bar),
                                  duration > 0 ? CLAMP(sim / duration, 0, 1) : 0);
    g_autofree char *percent = g_strdup_printf("%.0f %%", duration > 0 ? 100 * sim / duration : 0);
    gtk_progress_bar_set_text(GTK_PROGRESS_BAR(self->progress_bar), percent);
    double frame_ms = self->frame_meter ? esl_frame_meter_recent_work(self->frame_meter, 60) : 0;
    g_autofree char *text = g_strdup_printf(
        _("simulated time: %.4f s\nsteps: %ld\nreal-time factor: %.3g\nsteps per second: %.0f\n"
          "window: %.1f ms of work per frame"),
        sim, steps, wall > 0 ? sim / wall : 0.0, wall > 0 ? steps / wall : 0.0, frame_ms);
    gtk_label_set_text(GTK_LABEL(self->progress_label), text);
}

static gboolean progress_timeout(gpointer data)
{
    update_progress(data);
    return G_SOURCE_CONTINUE;
}

static void on_run_samples(EslRunController *controller, GPtrArray *samples, EslWindow *self)
{
    (void)controller;
    for (guint i = 0; i < samples->len; i++) {
        const EslRunSample *s = samples->pdata[i];
        plots_append(self, &s->monitors);
        g_ptr_array_add(self->history, esl_run_sample_copy(s));
    }
    const EslRunSample *last = samples->pdata[samples->len - 1];
    show_state(self, last->poses, last->violations);
    update_trail(self, (int)self->history->len - 1);
    plots_set_cursor(self, NAN);
    set_scale_silently(self, gtk_adjustment_get_upper(self->time_adjustment),
                       last->monitors.time);
    g_autofree char *text = g_strdup_printf(_("t = %.4f s"), last->monitors.time);
    gtk_label_set_text(GTK_LABEL(self->time_label), text);
}

static void on_run_finished(EslRunController *controller, int status, const char *message,
                            EslWindow *self)
{
    update_progress(self);
    gint64 run_id = esl_run_controller_get_run_id(controller);
    g_signal_handlers_disconnect_by_data(controller, self);
    g_clear_object(&self->controller);
    g_clear_handle_id(&self->progress_timer, g_source_remove);
    g_clear_pointer(&self->frame_meter, esl_frame_meter_free);
    gtk_widget_remove_css_class(self->pause_button, "suggested-action");
    GPtrArray *history = g_steal_pointer(&self->history);
    set_history(self, history, TRUE);
    fit_history(self);
    fill_runs_list(self);
    g_autofree char *id = g_strdup_printf("#%" G_GINT64_FORMAT, run_id);
    show_status(self, status == ESL_RUN_FAILED, _("Run %s %s%s%s"), id,
                run_status_label((EslRunStatus)status), message ? ": " : ".",
                message ? message : "");
    update_run_actions(self);
    g_signal_emit(self, signals[SIGNAL_RUN_FINISHED], 0, status, run_id);
}

static void start_run(EslWindow *self)
{
    if (self->controller || !self->model)
        return;
    g_autoptr(GError) error = NULL;
    if (!esl_run_settings_check(ESL_RUN_SETTINGS(self->run_settings), &error)) {
        show_status(self, TRUE, "%s", error->message);
        return;
    }
    if (!ensure_project(self, &error)) {
        show_status(self, TRUE, _("No project to store the run in: %s"), error->message);
        return;
    }
    MbsSettings settings;
    read_settings(self, &settings);
    const MbsFormulationClass *klass =
        esl_run_settings_get_formulation(ESL_RUN_SETTINGS(self->run_settings));
    if (!klass) {
        show_status(self, TRUE, _("No formulation is available in this build."));
        return;
    }
    stop_playback(self);
    self->run_duration = settings.duration;
    gtk_list_box_unselect_all(GTK_LIST_BOX(self->runs_list));
    plots_prepare_single(self);
    self->energy0 = NAN;
    set_history(self, NULL, TRUE);
    self->history = g_ptr_array_new_with_free_func((GDestroyNotify)esl_run_sample_free);
    set_scale_silently(self, settings.duration, 0);
    gtk_widget_set_sensitive(self->time_scale, FALSE);
    gtk_label_set_text(GTK_LABEL(self->viewport_note), "");

    self->controller = esl_run_controller_new(self->model, self->model->name, klass->name,
                                              &settings, self->project_path,
                                              stored_model_id(self));
    g_signal_connect(self->controller, "samples", G_CALLBACK(on_run_samples), self);
    g_signal_connect(self->controller, "finished", G_CALLBACK(on_run_finished), self);
    if (!esl_run_controller_start(self->controller, &error)) {
        g_clear_object(&self->controller);
        show_status(self, TRUE, _("Cannot start the run: %s"), error->message);
        return;
    }
    show_status(self, FALSE, _("Running %s with %s…"), self->model->name, klass->name);
    self->progress_timer = g_timeout_add(100, progress_timeout, self);
    self->frame_meter = esl_frame_meter_start(GTK_WIDGET(self));
    update_run_actions(self);
}

/* ---- actions ------------------------------------------------------------------------------ */

static void update_run_actions(EslWindow *self)
{
    gboolean running = self->controller != NULL;
    GAction *a;
    if ((a = g_action_map_lookup_action(G_ACTION_MAP(self), "run")))
        g_simple_action_set_enabled(G_SIMPLE_ACTION(a), !running && self->model);
    if ((a = g_action_map_lookup_action(G_ACTION_MAP(self), "pause")))
        g_simple_action_set_enabled(G_SIMPLE_ACTION(a), running);
    if ((a = g_action_map_lookup_action(G_ACTION_MAP(self), "stop")))
        g_simple_action_set_enabled(G_SIMPLE_ACTION(a), running);
    gtk_widget_set_sensitive(self->run_settings, !running);
    gtk_widget_set_sensitive(self->inspector_fields, !running);
    if ((a = g_action_map_lookup_action(G_ACTION_MAP(self), "save-model")))
        g_simple_action_set_enabled(G_SIMPLE_ACTION(a), self->model != NULL);
    if ((a = g_action_map_lookup_action(G_ACTION_MAP(self), "export-view")))
        g_simple_action_set_enabled(G_SIMPLE_ACTION(a), self->model != NULL);
}

static void action_run(GSimpleAction *a, GVariant *p, gpointer data)
{
    (void)a;
    (void)p;
    start_run(data);
}

static void action_pause(GSimpleAction *a, GVariant *p, gpointer data)
{
    (void)a;
    (void)p;
    EslWindow *self = data;
    if (!self->controller)
        return;
    if (esl_run_controller_is_paused(self->controller)) {
        esl_run_controller_resume(self->controller);
        gtk_widget_remove_css_class(self->pause_button, "suggested-action");
        show_status(self, FALSE, _("Resumed."));
    } else {
        esl_run_controller_pause(self->controller);
        gtk_widget_add_css_class(self->pause_button, "suggested-action");
        show_status(self, FALSE, _("Paused: press Pause again to resume."));
    }
}

static void action_stop(GSimpleAction *a, GVariant *p, gpointer data)
{
    (void)a;
    (void)p;
    EslWindow *self = data;
    if (self->controller)
        esl_run_controller_stop(self->controller);
}

static void action_fit(GSimpleAction *a, GVariant *p, gpointer data)
{
    (void)a;
    (void)p;
    esl_viewport_fit(ESL_VIEWPORT(ESL_WINDOW(data)->viewport));
}

static void action_view(GSimpleAction *a, GVariant *p, gpointer data)
{
    (void)a;
    const char *name = g_variant_get_string(p, NULL);
    EslStandardView view = g_str_equal(name, "front") ? ESL_VIEW_FRONT
                           : g_str_equal(name, "side") ? ESL_VIEW_SIDE
                           : g_str_equal(name, "top")  ? ESL_VIEW_TOP
                                                       : ESL_VIEW_ISOMETRIC;
    esl_viewport_set_view(ESL_VIEWPORT(ESL_WINDOW(data)->viewport), view);
}

static void frames_state_changed(GSimpleAction *a, GVariant *state, gpointer data)
{
    g_simple_action_set_state(a, state);
    esl_viewport_set_show_frames(ESL_VIEWPORT(ESL_WINDOW(data)->viewport),
                                 g_variant_get_boolean(state));
}

static void grid_state_changed(GSimpleAction *a, GVariant *state, gpointer data)
{
    g_simple_action_set_state(a, state);
    esl_viewport_set_show_grid(ESL_VIEWPORT(ESL_WINDOW(data)->viewport),
                               g_variant_get_boolean(state));
}

static void action_gallery(GSimpleAction *a, GVariant *p, gpointer data)
{
    (void)a;
    (void)p;
    gtk_stack_set_visible_child_name(GTK_STACK(ESL_WINDOW(data)->stack), "start");
}

typedef void (*PathHandler)(EslWindow *self, const char *path);

static void on_chooser_response(GtkNativeDialog *dialog, int response, gpointer data)
{
    EslWindow *self = data;
    PathHandler handler = (PathHandler)g_object_get_data(G_OBJECT(dialog), "handler");
    if (response == GTK_RESPONSE_ACCEPT) {
        g_autoptr(GFile) file = gtk_file_chooser_get_file(GTK_FILE_CHOOSER(dialog));
        g_autofree char *path = file ? g_file_get_path(file) : NULL;
        if (path)
            handler(self, path);
    }
    gtk_native_dialog_destroy(dialog);
    g_object_unref(dialog);
}

static void choose_file(EslWindow *self, const char *title, GtkFileChooserAction action,
                        const char *accept, const char *filter_name, const char *pattern,
                        PathHandler handler)
{
    GtkFileChooserNative *chooser =
        gtk_file_chooser_native_new(title, GTK_WINDOW(self), action, accept, _("_Cancel"));
    GtkFileFilter *filter = gtk_file_filter_new();
    gtk_file_filter_set_name(filter, filter_name);
    gtk_file_filter_add_pattern(filter, pattern);
    gtk_file_chooser_add_filter(GTK_FILE_CHOOSER(chooser), filter);
    g_object_unref(filter);
    if (action == GTK_FILE_CHOOSER_ACTION_OPEN && g_str_equal(pattern, "*.json")) {
        g_autoptr(GFile) dir = g_file_new_for_path(esl_models_dir());
        gtk_file_chooser_set_current_folder(GTK_FILE_CHOOSER(chooser), dir, NULL);
    }
    if (action == GTK_FILE_CHOOSER_ACTION_SAVE && g_str_equal(pattern, "*.json")) {
        g_autofree char *name =
            g_strdup_printf("%s.json", self->model ? self->model->name : "model");
        gtk_file_chooser_set_current_name(GTK_FILE_CHOOSER(chooser), name);
    } else if (action == GTK_FILE_CHOOSER_ACTION_SAVE && g_str_equal(pattern, "*.png")) {
        g_autofree char *name =
            g_strdup_printf("%s.png", self->model ? self->model->name : "view");
        gtk_file_chooser_set_current_name(GTK_FILE_CHOOSER(chooser), name);
    } else if (action == GTK_FILE_CHOOSER_ACTION_SAVE) {
        gtk_file_chooser_set_current_name(GTK_FILE_CHOOSER(chooser), _("runs.eslabon"));
    }
    g_object_set_data(G_OBJECT(chooser), "handler", (gpointer)handler);
    g_signal_connect(chooser, "response", G_CALLBACK(on_chooser_response), self);
    gtk_native_dialog_show(GTK_NATIVE_DIALOG(chooser));
}

static void open_model_path(EslWindow *self, const char *path)
{
    g_autoptr(GError) error = NULL;
    if (!esl_window_load_model(self, path, &error))
        show_status(self, TRUE, "%s", error->message);
    else
        esl_recent_add(path);
}

static void new_project_path(EslWindow *self, const char *path)
{
    g_autoptr(GError) error = NULL;
    /* The chooser has asked before overwriting: start from an empty file. */
    if (g_file_test(path, G_FILE_TEST_EXISTS)) {
        g_autoptr(GError) check = NULL;
        EslProject *existing = esl_project_open(path, FALSE, &check);
        if (!existing) {
            show_status(self, TRUE,
                        _("%s is not replaced because it is not an Eslabón project: %s"), path,
                        check->message);
            return;
        }
        esl_project_close(existing);
        g_unlink(path);
    }
    if (!esl_window_open_project(self, path, TRUE, &error)) {
        show_status(self, TRUE, "%s", error->message);
        return;
    }
    show_status(self, FALSE, _("New project %s."), path);
    esl_recent_add(path);
}

static void open_project_path(EslWindow *self, const char *path)
{
    g_autoptr(GError) error = NULL;
    if (!esl_window_open_project(self, path, FALSE, &error))
        show_status(self, TRUE, _("Cannot open the project: %s"), error->message);
    else
        esl_recent_add(path);
}

static void save_project_path(EslWindow *self, const char *path)
{
    g_autoptr(GError) error = NULL;
    if (!ensure_project(self, &error)) {
        show_status(self, TRUE, "%s", error->message);
        return;
    }
    if (g_strcmp0(path, self->project_path) == 0) {
        show_status(self, FALSE, _("The project is saved: runs are written as they happen."));
        return;
    }
    if (g_file_test(path, G_FILE_TEST_EXISTS))
        g_unlink(path); /* the chooser confirmed the overwrite */
    if (!esl_project_save_copy(self->project, path, &error) ||
        !esl_window_open_project(self, path, FALSE, &error)) {
        show_status(self, TRUE, _("Cannot save the project: %s"), error->message);
        return;
    }
    show_status(self, FALSE, _("Project saved as %s."), path);
    esl_recent_add(path);
}

static void save_model_path(EslWindow *self, const char *path)
{
    g_autoptr(GError) error = NULL;
    if (!self->model_json || !g_file_set_contents(path, self->model_json, -1, &error)) {
        show_status(self, TRUE, _("Cannot save the model: %s"),
                    error ? error->message : _("no model is open"));
        return;
    }
    g_free(self->model_path);
    self->model_path = g_strdup(path);
    self->model_modified = FALSE;
    update_titles(self);
    show_status(self, FALSE, _("Model saved as %s."), path);
    esl_recent_add(path);
}

static void action_save_model(GSimpleAction *a, GVariant *p, gpointer data)
{
    (void)a;
    (void)p;
    choose_file(data, _("Save Model As"), GTK_FILE_CHOOSER_ACTION_SAVE, _("_Save"),
                _("Eslabón models (*.json)"), "*.json", save_model_path);
}

gboolean esl_window_export_view(EslWindow *self, const char *path, GError **error)
{
    g_autoptr(GdkTexture) texture =
        esl_viewport_render_texture(ESL_VIEWPORT(self->viewport), error);
    if (!texture)
        return FALSE;
    if (!gdk_texture_save_to_png(texture, path)) {
        g_set_error(error, G_IO_ERROR, G_IO_ERROR_FAILED, _("cannot write %s"), path);
        return FALSE;
    }
    return TRUE;
}

static void export_view_path(EslWindow *self, const char *path)
{
    g_autoptr(GError) error = NULL;
    if (esl_window_export_view(self, path, &error))
        show_status(self, FALSE, _("3D view exported to %s."), path);
    else
        show_status(self, TRUE, _("Cannot export the 3D view: %s"), error->message);
}

static void action_export_view(GSimpleAction *a, GVariant *p, gpointer data)
{
    (void)a;
    (void)p;
    choose_file(data, _("Export 3D View"), GTK_FILE_CHOOSER_ACTION_SAVE, _("_Export"),
                _("PNG images (*.png)"), "*.png", export_view_path);
}

static void action_open_model(GSimpleAction *a, GVariant *p, gpointer data)
{
    (void)a;
    (void)p;
    choose_file(data, _("Open Model"), GTK_FILE_CHOOSER_ACTION_OPEN, _("_Open"),
                _("Eslabón models (*.json)"), "*.json", open_model_path);
}

static void action_new_project(GSimpleAction *a, GVariant *p, gpointer data)
{
    (void)a;
    (void)p;
    choose_file(data, _("New Project"), GTK_FILE_CHOOSER_ACTION_SAVE, _("_Create"),
                _("Eslabón projects (*.eslabon)"), "*.eslabon", new_project_path);
}

static void action_open_project(GSimpleAction *a, GVariant *p, gpointer data)
{
    (void)a;
    (void)p;
    choose_file(data, _("Open Project"), GTK_FILE_CHOOSER_ACTION_OPEN, _("_Open"),
                _("Eslabón projects (*.eslabon)"), "*.eslabon", open_project_path);
}

static void action_save_project(GSimpleAction *a, GVariant *p, gpointer data)
{
    (void)a;
    (void)p;
    choose_file(data, _("Save Project As"), GTK_FILE_CHOOSER_ACTION_SAVE, _("_Save"),
                _("Eslabón projects (*.eslabon)"), "*.eslabon", save_project_path);
}

static void action_open_recent(GSimpleAction *a, GVariant *p, gpointer data)
{
    (void)a;
    const char *path = g_variant_get_string(p, NULL);
    if (g_str_has_suffix(path, ".eslabon"))
        open_project_path(data, path);
    else
        open_model_path(data, path);
}

/* ---- recent files ------------------------------------------------------------------------- */

#define RECENT_MAX 8

static void on_recent_clicked(GtkButton *button, EslWindow *self)
{
    g_action_group_activate_action(G_ACTION_GROUP(self), "open-recent",
                                   g_variant_new_string(g_object_get_data(G_OBJECT(button),
                                                                          "path")));
}

/* The Project ▸ Open Recent menu and the list on the start page. */
static void fill_recent(EslWindow *self)
{
    g_autoptr(GPtrArray) paths = esl_recent_list(RECENT_MAX);
    g_menu_remove_all(self->recent_menu);
    GtkWidget *heading = gtk_widget_get_first_child(self->recent_box);
    GtkWidget *child;
    while ((child = gtk_widget_get_next_sibling(heading)))
        gtk_box_remove(GTK_BOX(self->recent_box), child);
    for (guint i = 0; i < paths->len; i++) {
        const char *path = paths->pdata[i];
        g_autofree char *base = g_path_get_basename(path);
        g_autofree char *dir = g_path_get_dirname(path);
        g_autoptr(GMenuItem) item = g_menu_item_new(base, NULL);
        g_menu_item_set_action_and_target_value(item, "win.open-recent",
                                                g_variant_new_string(path));
        g_menu_append_item(self->recent_menu, item);
        g_autofree char *markup =
            g_markup_printf_escaped("%s  <span alpha=\"60%%\">%s</span>", base, dir);
        GtkWidget *label = gtk_label_new(NULL);
        gtk_label_set_markup(GTK_LABEL(label), markup);
        gtk_label_set_xalign(GTK_LABEL(label), 0);
        gtk_label_set_ellipsize(GTK_LABEL(label), PANGO_ELLIPSIZE_MIDDLE);
        GtkWidget *button = gtk_button_new();
        gtk_button_set_child(GTK_BUTTON(button), label);
        gtk_widget_add_css_class(button, "flat");
        gtk_widget_set_tooltip_text(button, path);
        g_object_set_data_full(G_OBJECT(button), "path", g_strdup(path), g_free);
        g_signal_connect(button, "clicked", G_CALLBACK(on_recent_clicked), self);
        gtk_box_append(GTK_BOX(self->recent_box), button);
    }
    gtk_widget_set_visible(self->recent_box, paths->len > 0);
}

static void on_recent_changed(GtkRecentManager *manager, EslWindow *self)
{
    (void)manager;
    fill_recent(self);
}

static const GActionEntry win_actions[] = {
    {"run", action_run, NULL, NULL, NULL, {0}},
    {"pause", action_pause, NULL, NULL, NULL, {0}},
    {"stop", action_stop, NULL, NULL, NULL, {0}},
    {"fit-view", action_fit, NULL, NULL, NULL, {0}},
    {"view", action_view, "s", NULL, NULL, {0}},
    {"show-frames", NULL, NULL, "false", frames_state_changed, {0}},
    {"show-grid", NULL, NULL, "true", grid_state_changed, {0}},
    {"playback", NULL, NULL, "false", playback_state_changed, {0}},
    {"show-gallery", action_gallery, NULL, NULL, NULL, {0}},
    {"open-model", action_open_model, NULL, NULL, NULL, {0}},
    {"save-model", action_save_model, NULL, NULL, NULL, {0}},
    {"open-recent", action_open_recent, "s", NULL, NULL, {0}},
    {"export-view", action_export_view, NULL, NULL, NULL, {0}},
    {"new-project", action_new_project, NULL, NULL, NULL, {0}},
    {"open-project", action_open_project, NULL, NULL, NULL, {0}},
    {"save-project", action_save_project, NULL, NULL, NULL, {0}},
};

/* ---- run panel ----------------------------------------------------------------------------- */

static EslPlot *make_plot(EslWindow *self, const char *title, const char *y_label, gboolean log_y,
                          int column, int row, int width)
{
    EslPlot *plot = ESL_PLOT(esl_plot_new());
    esl_plot_set_title(plot, title);
    esl_plot_set_labels(plot, _("t (s)"), y_label);
    esl_plot_set_log_y(plot, log_y);
    g_signal_connect(plot, "cursor-moved", G_CALLBACK(on_plot_cursor_moved), self);
    gtk_grid_attach(GTK_GRID(self->plot_grid), GTK_WIDGET(plot), column, row, width, 1);
    return plot;
}

/* ---- object -------------------------------------------------------------------------------- */

static void esl_window_dispose(GObject *object)
{
    EslWindow *self = ESL_WINDOW(object);
    if (self->controller) {
        g_signal_handlers_disconnect_by_data(self->controller, self);
        esl_run_controller_join(self->controller);
        g_clear_object(&self->controller);
    }
    g_clear_handle_id(&self->progress_timer, g_source_remove);
    g_clear_pointer(&self->frame_meter, esl_frame_meter_free);
    g_signal_handlers_disconnect_by_data(gtk_recent_manager_get_default(), self);
    if (self->viewport)
        esl_viewport_set_model(ESL_VIEWPORT(self->viewport), NULL);
    gtk_widget_dispose_template(GTK_WIDGET(self), ESL_TYPE_WINDOW);
    G_OBJECT_CLASS(esl_window_parent_class)->dispose(object);
}

static void esl_window_finalize(GObject *object)
{
    EslWindow *self = ESL_WINDOW(object);
    close_project(self);
    g_hash_table_unref(self->model_ids);
    g_ptr_array_unref(self->thumbnails);
    if (self->history)
        g_ptr_array_unref(self->history);
    mbs_model_free(self->model);
    g_free(self->model_path);
    g_free(self->model_json);
    G_OBJECT_CLASS(esl_window_parent_class)->finalize(object);
}

static void esl_window_class_init(EslWindowClass *klass)
{
    GObjectClass *object_class = G_OBJECT_CLASS(klass);
    GtkWidgetClass *widget_class = GTK_WIDGET_CLASS(klass);
    object_class->dispose = esl_window_dispose;
    object_class->finalize = esl_window_finalize;
    g_type_ensure(ESL_TYPE_VIEWPORT);
    g_type_ensure(ESL_TYPE_COLOR_SCALE);
    g_type_ensure(ESL_TYPE_PLOT);
    g_type_ensure(ESL_TYPE_RUN_SETTINGS);
    gtk_widget_class_set_template_from_resource(widget_class,
                                                "/org/eslabon/Eslabon/ui/esl-window.ui");
#define CHILD(name) gtk_widget_class_bind_template_child(widget_class, EslWindow, name)
    CHILD(stack);
    CHILD(gallery);
    CHILD(model_list);
    CHILD(inspector_label);
    CHILD(inspector_fields);
    CHILD(recent_box);
    CHILD(recent_menu);
    CHILD(runs_list);
    CHILD(viewport);
    CHILD(viewport_note);
    CHILD(color_scale);
    CHILD(model_search);
    CHILD(speed_dropdown);
    CHILD(play_button);
    CHILD(time_scale);
    CHILD(time_label);
    CHILD(time_adjustment);
    CHILD(plot_grid);
    CHILD(run_settings);
    CHILD(progress_bar);
    CHILD(progress_label);
    CHILD(status_label);
    CHILD(project_label);
    CHILD(title_label);
    CHILD(subtitle_label);
    CHILD(pause_button);
#undef CHILD
    signals[SIGNAL_RUN_FINISHED] =
        g_signal_new("run-finished", G_TYPE_FROM_CLASS(klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL,
                     NULL, G_TYPE_NONE, 2, G_TYPE_INT, G_TYPE_INT64);
}

static void esl_window_init(EslWindow *self)
{
    gtk_widget_init_template(GTK_WIDGET(self));
    gtk_list_box_set_filter_func(GTK_LIST_BOX(self->model_list), model_row_visible, self, NULL);
    g_signal_connect(self->model_search, "search-changed", G_CALLBACK(on_model_search_changed),
                     self);
    self->model_ids = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    self->energy0 = NAN;
    self->selected_body = -1;
    g_action_map_add_action_entries(G_ACTION_MAP(self), win_actions, G_N_ELEMENTS(win_actions),
                                    self);

    self->plot_energy = make_plot(self, _("Energy"), _("energy (J)"), FALSE, 0, 0, 1);
    self->plot_drift = make_plot(self, _("Energy drift"), _("|E − E₀| (J)"), TRUE, 1, 0, 1);
    self->plot_constraints =
        make_plot(self, _("Constraint violation"), _("norm (m, m/s, m/s²)"), TRUE, 2, 0, 1);
    self->plot_timing = make_plot(self, _("Time per step by phase"), _("time (ms)"), FALSE, 0,
                                  1, 2);
    self->plot_newton = make_plot(self, _("Newton iterations per step"), _("count"), FALSE, 2,
                                  1, 1);
    plots_prepare_single(self);

    g_signal_connect(self->time_adjustment, "value-changed", G_CALLBACK(on_time_changed), self);
    g_signal_connect(self->model_list, "row-selected", G_CALLBACK(on_model_row_selected), self);
    g_signal_connect(self->viewport, "picked", G_CALLBACK(on_viewport_picked), self);
    g_signal_connect(self->runs_list, "selected-rows-changed",
                     G_CALLBACK(on_runs_selection_changed), self);
    gtk_widget_set_sensitive(self->time_scale, FALSE);
    gtk_label_set_text(GTK_LABEL(self->time_label), _("t = 0 s"));
    self->thumbnails = g_ptr_array_new();
    fill_gallery(self);
    fill_recent(self);
    g_signal_connect(gtk_recent_manager_get_default(), "changed", G_CALLBACK(on_recent_changed),
                     self);
    g_signal_connect(self, "map", G_CALLBACK(on_window_map), NULL);
    update_titles(self);
    update_run_actions(self);
}

EslWindow *esl_window_new(GtkApplication *app)
{
    return g_object_new(ESL_TYPE_WINDOW, "application", app, NULL);
}

void esl_window_set_duration(EslWindow *self, double duration)
{
    esl_run_settings_set_duration(ESL_RUN_SETTINGS(self->run_settings), duration);
}

gboolean esl_window_set_formulation(EslWindow *self, const char *name)
{
    return esl_run_settings_set_formulation(ESL_RUN_SETTINGS(self->run_settings), name);
}

const char *esl_window_get_viewport_error(EslWindow *self)
{
    return esl_viewport_get_error(ESL_VIEWPORT(self->viewport));
}

void esl_window_select_body(EslWindow *self, int body)
{
    select_element(self, ESL_SOURCE_BODY, body);
}

void esl_window_seek(EslWindow *self, double time)
{
    gtk_adjustment_set_value(self->time_adjustment, time);
}

double esl_window_get_largest_violation(EslWindow *self)
{
    return esl_color_scale_get_value(ESL_COLOR_SCALE(self->color_scale));
}

double esl_window_get_time(EslWindow *self)
{
    return gtk_adjustment_get_value(self->time_adjustment);
}

gboolean esl_window_set_playback_speed(EslWindow *self, double speed)
{
    for (guint i = 0; i < G_N_ELEMENTS(playback_speeds); i++)
        if (playback_speeds[i] == speed) {
            gtk_drop_down_set_selected(GTK_DROP_DOWN(self->speed_dropdown), i);
            return TRUE;
        }
    return FALSE;
}
