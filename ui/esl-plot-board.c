/* The plot board; see esl-plot-board.h. */
#include "esl-plot-board.h"
#include "esl-template.h"

#include <glib/gi18n.h>
#include <math.h>

#include "esl-gradient-table.h"
#include "esl-plot.h"

struct _EslPlotBoard {
    GtkWidget parent_instance;
    GtkWidget *plot_grid; /* template */
    EslPlot *plot_energy, *plot_drift, *plot_constraints, *plot_timing, *plot_newton;
    EslPlot *plot_step_size; /* internal steps of error-controlled integrators (ssode) */
    EslPlot *plot_variables; /* variables the user chose (esl_plot_board_add_variable) */
    double energy0; /* total energy of the single run's first sample */
    GPtrArray *sensitivity_plots; /* EslPlot per objective of a sensitivity run (borrowed) */
    GtkWidget *gradient_table;    /* or NULL */
    int gradient_plots, sensitivity_np; /* the first sensitivity_plots: running gradients */
    int *state_coordinates, nstate_coordinates; /* the coordinates of the d q / d rho plots */
};

G_DEFINE_FINAL_TYPE(EslPlotBoard, esl_plot_board, GTK_TYPE_WIDGET)

enum { SIGNAL_CURSOR_MOVED, N_SIGNALS };
static guint signals[N_SIGNALS];

static const GdkRGBA palette[] = {
    {0.16, 0.42, 0.80, 1}, {0.90, 0.45, 0.10, 1}, {0.20, 0.63, 0.30, 1}, {0.75, 0.20, 0.25, 1},
    {0.50, 0.35, 0.75, 1}, {0.10, 0.60, 0.65, 1}, {0.55, 0.45, 0.30, 1}, {0.35, 0.35, 0.38, 1},
};

static EslPlot **monitor_plots(EslPlotBoard *self, EslPlot *plots[6])
{
    plots[0] = self->plot_energy;
    plots[1] = self->plot_drift;
    plots[2] = self->plot_constraints;
    plots[3] = self->plot_timing;
    plots[4] = self->plot_step_size;
    plots[5] = self->plot_newton;
    return plots;
}

/* Remove a sensitivity run's plots and table; the monitor plots come back. */
static void hide_sensitivity(EslPlotBoard *self)
{
    for (guint i = 0; i < self->sensitivity_plots->len; i++)
        gtk_grid_remove(GTK_GRID(self->plot_grid), self->sensitivity_plots->pdata[i]);
    g_ptr_array_set_size(self->sensitivity_plots, 0);
    self->gradient_plots = 0;
    if (self->gradient_table)
        gtk_grid_remove(GTK_GRID(self->plot_grid), self->gradient_table);
    self->gradient_table = NULL;
    EslPlot *plots[6];
    for (int i = 0; i < 6; i++)
        gtk_widget_set_visible(GTK_WIDGET(monitor_plots(self, plots)[i]), TRUE);
}

/* The Variables plot takes the place of the timing and step-size plots while it is shown: a third row would
 * not fit at 1280x720 (and a hidden child would keep its share of the homogeneous rows). */
static void show_variables(EslPlotBoard *self, gboolean show)
{
    GtkWidget *plot = GTK_WIDGET(self->plot_variables);
    gboolean attached = gtk_widget_get_parent(plot) != NULL;
    if (show && !attached)
        gtk_grid_attach(GTK_GRID(self->plot_grid), plot, 0, 1, 2, 1);
    else if (!show && attached)
        gtk_grid_remove(GTK_GRID(self->plot_grid), plot);
}

void esl_plot_board_clear(EslPlotBoard *self)
{
    hide_sensitivity(self);
    esl_plot_clear(self->plot_variables);
    show_variables(self, FALSE);
    gtk_widget_set_visible(GTK_WIDGET(self->plot_timing), TRUE);
    gtk_widget_set_visible(GTK_WIDGET(self->plot_step_size), TRUE);
    esl_plot_clear(self->plot_energy);
    esl_plot_clear(self->plot_drift);
    esl_plot_clear(self->plot_constraints);
    esl_plot_clear(self->plot_timing);
    esl_plot_clear(self->plot_newton);
    esl_plot_clear(self->plot_step_size);
}

/* Series of one run, in the order esl_plot_board_append uses them. */
void esl_plot_board_prepare_single(EslPlotBoard *self)
{
    esl_plot_board_clear(self);
    self->energy0 = NAN;
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
    esl_plot_add_series(self->plot_step_size, _("internal step"), &palette[5], FALSE);
}

void esl_plot_board_set_step_sizes(EslPlotBoard *self, const EslInternalStep *steps, int n)
{
    for (int i = 0; i < n; i++)
        esl_plot_append(self->plot_step_size, 0, steps[i].time, steps[i].size);
}

void esl_plot_board_append(EslPlotBoard *self, const MbsMonitors *m)
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

void esl_plot_board_add_run(EslPlotBoard *self, int k, const char *name,
                            const MbsMonitors *monitors, int n)
{
    const GdkRGBA *color = &palette[k % G_N_ELEMENTS(palette)];
    gboolean dashed = k >= (int)G_N_ELEMENTS(palette);
    int se = esl_plot_add_series(self->plot_energy, name, color, dashed);
    int sd = esl_plot_add_series(self->plot_drift, name, color, dashed);
    int sc = esl_plot_add_series(self->plot_constraints, name, color, dashed);
    int st = esl_plot_add_series(self->plot_timing, name, color, dashed);
    int sn = esl_plot_add_series(self->plot_newton, name, color, dashed);
    double e0 = n ? monitors[0].total : 0;
    for (int i = 0; i < n; i++) {
        const MbsMonitors *m = &monitors[i];
        esl_plot_append(self->plot_energy, se, m->time, m->total);
        esl_plot_append(self->plot_drift, sd, m->time, fabs(m->total - e0));
        esl_plot_append(self->plot_constraints, sc, m->time, m->phi_norm);
        if (m->time > 0) {
            esl_plot_append(self->plot_timing, st, m->time, 1e3 * m->time_step);
            esl_plot_append(self->plot_newton, sn, m->time, m->newton_iterations);
        }
    }
}

static EslPlot *make_plot(EslPlotBoard *self, const char *title, const char *y_label,
                          gboolean log_y, int column, int row, int width);

/* The monitor plots give their cells (3 columns) to a sensitivity run's: per objective (at most
 * ESL_PLOT_BOARD_MAX_OBJECTIVE_PLOTS) a running-gradient plot with a series per parameter. */
static int begin_gradient_plots(EslPlotBoard *self, const char *const *objectives, int no,
                                const char *const *parameters, int np)
{
    hide_sensitivity(self);
    show_variables(self, FALSE);
    EslPlot *plots[6];
    for (int i = 0; i < 6; i++)
        gtk_widget_set_visible(GTK_WIDGET(monitor_plots(self, plots)[i]), FALSE);
    int shown = MIN(no, ESL_PLOT_BOARD_MAX_OBJECTIVE_PLOTS);
    for (int i = 0; i < shown; i++) {
        g_autofree char *title = g_strdup_printf(_("Running gradient of %s"), objectives[i]);
        g_autofree char *label = g_strdup_printf("∂%s/∂ρ", objectives[i]);
        EslPlot *plot = make_plot(self, title, label, FALSE, i % 3, i / 3, 1);
        g_ptr_array_add(self->sensitivity_plots, plot);
        for (int k = 0; k < np; k++) {
            g_autofree char *name = g_strdup_printf("∂/∂%s", parameters[k]);
            esl_plot_add_series(plot, name, &palette[k % G_N_ELEMENTS(palette)],
                                k >= (int)G_N_ELEMENTS(palette));
        }
    }
    self->gradient_plots = shown;
    self->sensitivity_np = np;
    return shown;
}

/* The gradient table in the cells after the plots. */
static void attach_gradient_table(EslPlotBoard *self, const EslSensitivityRun *run)
{
    int cell = (int)self->sensitivity_plots->len;
    self->gradient_table = esl_gradient_table_new();
    esl_gradient_table_set_run(ESL_GRADIENT_TABLE(self->gradient_table), run);
    gtk_grid_attach(GTK_GRID(self->plot_grid), self->gradient_table, cell % 3, cell / 3,
                    cell % 3 == 0 ? 3 : 3 - cell % 3, 1);
}

void esl_plot_board_show_sensitivity(EslPlotBoard *self, const EslSensitivityRun *run)
{
    int shown = begin_gradient_plots(self, (const char *const *)run->objectives,
                                     run->nobjectives, (const char *const *)run->parameters,
                                     run->nparameters);
    int ng = run->nobjectives * run->nparameters;
    g_autofree double *y = g_new(double, MAX(run->n, 1));
    for (int i = 0; i < shown; i++) {
        EslPlot *plot = self->sensitivity_plots->pdata[i];
        for (int k = 0; k < run->nparameters; k++) {
            for (int r = 0; r < run->n; r++)
                y[r] = run->history_gradient[(gsize)r * ng + i * run->nparameters + k];
            esl_plot_append_many(plot, k, run->times, y, run->n);
        }
        esl_plot_fit(plot);
    }
    attach_gradient_table(self, run);
}

void esl_plot_board_begin_sensitivity(EslPlotBoard *self, const char *const *objectives, int no,
                                      const char *const *parameters, int np,
                                      const int *coordinates, const char *const *names,
                                      int ncoordinates)
{
    int shown = begin_gradient_plots(self, objectives, no, parameters, np);
    g_free(self->state_coordinates);
    self->state_coordinates = g_memdup2(coordinates, sizeof(int) * (gsize)MAX(ncoordinates, 0));
    self->nstate_coordinates = ncoordinates;
    /* per parameter a plot of the coordinates' sensitivities, in the cells left but one (the
     * table's, at the end) */
    for (int k = 0; ncoordinates > 0 && k < np && shown + k < 5; k++) {
        g_autofree char *title = g_strdup_printf(_("Sensitivity to %s"), parameters[k]);
        g_autofree char *label = g_strdup_printf("∂q/∂%s", parameters[k]);
        int cell = shown + k;
        EslPlot *plot = make_plot(self, title, label, FALSE, cell % 3, cell / 3, 1);
        g_ptr_array_add(self->sensitivity_plots, plot);
        for (int c = 0; c < ncoordinates; c++)
            esl_plot_add_series(plot, names[c], &palette[c % G_N_ELEMENTS(palette)],
                                c >= (int)G_N_ELEMENTS(palette));
    }
}

void esl_plot_board_append_sensitivity(EslPlotBoard *self, const EslSensitivityRow *row)
{
    int np = self->sensitivity_np;
    for (int i = 0; i < self->gradient_plots; i++)
        for (int k = 0; k < np; k++)
            esl_plot_append(self->sensitivity_plots->pdata[i], k, row->time,
                            row->gradient[i * np + k]);
    for (guint p = (guint)self->gradient_plots; row->state_sensitivity &&
                                                p < self->sensitivity_plots->len; p++) {
        const double *column = row->state_sensitivity + (gsize)row->n * (p - self->gradient_plots);
        for (int c = 0; c < self->nstate_coordinates; c++)
            if (self->state_coordinates[c] < row->n)
                esl_plot_append(self->sensitivity_plots->pdata[p], c, row->time,
                                column[self->state_coordinates[c]]);
    }
}

gboolean esl_plot_board_show_agreement(EslPlotBoard *self, EslSensitivityRun *const *runs,
                                       int n)
{
    GtkWidget *table = esl_gradient_table_new();
    g_object_ref_sink(table);
    gboolean same = esl_gradient_table_set_runs(ESL_GRADIENT_TABLE(table), runs, n);
    if (same) {
        begin_gradient_plots(self, NULL, 0, NULL, 0); /* the monitor plots give their cells */
        self->gradient_table = table;
        gtk_grid_attach(GTK_GRID(self->plot_grid), table, 0, 0, 3, 2);
    }
    g_object_unref(table);
    return same;
}

void esl_plot_board_end_sensitivity(EslPlotBoard *self, const EslSensitivityRun *run)
{
    if (!self->gradient_table)
        attach_gradient_table(self, run);
}

int esl_plot_board_state_sensitivity_points(EslPlotBoard *self)
{
    int points = 0;
    for (guint i = (guint)self->gradient_plots; i < self->sensitivity_plots->len; i++) {
        EslPlot *plot = self->sensitivity_plots->pdata[i];
        for (int k = 0; k < esl_plot_get_n_series(plot); k++)
            points += esl_plot_series_length(plot, k);
    }
    return points;
}

int esl_plot_board_sensitivity_points(EslPlotBoard *self)
{
    int points = 0;
    for (guint i = 0; i < self->sensitivity_plots->len; i++) {
        EslPlot *plot = self->sensitivity_plots->pdata[i];
        for (int k = 0; k < esl_plot_get_n_series(plot); k++)
            points += esl_plot_series_length(plot, k);
    }
    return points;
}

GtkWidget *esl_plot_board_gradient_table(EslPlotBoard *self)
{
    return self->gradient_table;
}

/* The plots by the names esl_plot_board_present takes. */
static EslPlot *plot_named(EslPlotBoard *self, const char *name)
{
    const struct {
        const char *name;
        EslPlot *plot;
    } plots[] = {{"energy", self->plot_energy},           {"drift", self->plot_drift},
                 {"constraints", self->plot_constraints}, {"timing", self->plot_timing},
                 {"newton", self->plot_newton},           {"step-size", self->plot_step_size},
                 {"variables", self->plot_variables}};
    for (size_t i = 0; i < G_N_ELEMENTS(plots); i++)
        if (g_strcmp0(plots[i].name, name) == 0)
            return plots[i].plot;
    return NULL;
}

gboolean esl_plot_board_present(EslPlotBoard *self, const char *name, double zoom)
{
    EslPlot *chosen = name ? plot_named(self, name) : NULL;
    if (name && !chosen)
        return FALSE;
    EslPlot *all[] = {self->plot_energy, self->plot_drift,  self->plot_constraints,
                      self->plot_timing, self->plot_newton, self->plot_step_size};
    gboolean variables = esl_plot_get_n_series(self->plot_variables) > 0;
    show_variables(self, chosen ? chosen == self->plot_variables : variables);
    esl_plot_set_zoom(self->plot_variables, chosen ? zoom : 1.0);
    /* homogeneous rows would keep the hidden row's share */
    gtk_grid_set_row_homogeneous(GTK_GRID(self->plot_grid), !chosen);
    gtk_grid_set_column_homogeneous(GTK_GRID(self->plot_grid), !chosen);
    for (size_t i = 0; i < G_N_ELEMENTS(all); i++) {
        gtk_widget_set_visible(GTK_WIDGET(all[i]),
                               chosen ? all[i] == chosen
                                      : !(variables && (all[i] == self->plot_timing ||
                                                        all[i] == self->plot_step_size)));
        esl_plot_set_zoom(all[i], chosen ? zoom : 1.0);
    }
    return TRUE;
}

int esl_plot_board_add_variable(EslPlotBoard *self, const char *name, gboolean log_y,
                                const double *t, const double *y, int n)
{
    EslPlot *plot = self->plot_variables;
    int k = esl_plot_get_n_series(plot);
    if (k == 0)
        esl_plot_set_log_y(plot, log_y);
    int series = esl_plot_add_series(plot, name, &palette[k % G_N_ELEMENTS(palette)],
                                     k >= (int)G_N_ELEMENTS(palette));
    esl_plot_append_many(plot, series, t, y, n);
    show_variables(self, TRUE);
    gtk_widget_set_visible(GTK_WIDGET(self->plot_timing), FALSE);
    gtk_widget_set_visible(GTK_WIDGET(self->plot_step_size), FALSE);
    return series;
}

void esl_plot_board_set_cursor(EslPlotBoard *self, double t)
{
    for (guint i = 0; i < self->sensitivity_plots->len; i++)
        esl_plot_set_cursor(self->sensitivity_plots->pdata[i], t);
    esl_plot_set_cursor(self->plot_variables, t);
    esl_plot_set_cursor(self->plot_energy, t);
    esl_plot_set_cursor(self->plot_drift, t);
    esl_plot_set_cursor(self->plot_constraints, t);
    esl_plot_set_cursor(self->plot_timing, t);
    esl_plot_set_cursor(self->plot_newton, t);
    esl_plot_set_cursor(self->plot_step_size, t);
}

/* Zoom and pan are linked across the plots in time. */
static void on_plot_time_range(EslPlot *plot, double x0, double x1, EslPlotBoard *self)
{
    EslPlot *all[] = {self->plot_energy, self->plot_drift,    self->plot_constraints,
                      self->plot_timing, self->plot_newton,   self->plot_step_size,
                      self->plot_variables};
    for (size_t i = 0; i < G_N_ELEMENTS(all); i++)
        if (all[i] && all[i] != plot)
            esl_plot_set_time_range(all[i], x0, x1);
}

static void on_plot_cursor_moved(EslPlot *plot, double t, EslPlotBoard *self)
{
    (void)plot;
    g_signal_emit(self, signals[SIGNAL_CURSOR_MOVED], 0, t);
}

static EslPlot *make_plot(EslPlotBoard *self, const char *title, const char *y_label,
                          gboolean log_y, int column, int row, int width)
{
    EslPlot *plot = ESL_PLOT(esl_plot_new());
    esl_plot_set_title(plot, title);
    esl_plot_set_labels(plot, _("t (s)"), y_label);
    esl_plot_set_log_y(plot, log_y);
    g_signal_connect(plot, "cursor-moved", G_CALLBACK(on_plot_cursor_moved), self);
    g_signal_connect(plot, "time-range-changed", G_CALLBACK(on_plot_time_range), self);
    gtk_widget_set_hexpand(GTK_WIDGET(plot), TRUE);
    gtk_widget_set_vexpand(GTK_WIDGET(plot), TRUE);
    gtk_grid_attach(GTK_GRID(self->plot_grid), GTK_WIDGET(plot), column, row, width, 1);
    return plot;
}

static void esl_plot_board_dispose(GObject *object)
{
    EslPlotBoard *self = ESL_PLOT_BOARD(object);
    g_clear_pointer(&self->sensitivity_plots, g_ptr_array_unref);
    g_clear_pointer(&self->state_coordinates, g_free);
    g_clear_object(&self->plot_variables);
    gtk_widget_dispose_template(GTK_WIDGET(object), ESL_TYPE_PLOT_BOARD);
    esl_template_unparent_children(GTK_WIDGET(object));
    G_OBJECT_CLASS(esl_plot_board_parent_class)->dispose(object);
}

static void esl_plot_board_class_init(EslPlotBoardClass *klass)
{
    GtkWidgetClass *widget_class = GTK_WIDGET_CLASS(klass);
    G_OBJECT_CLASS(klass)->dispose = esl_plot_board_dispose;
    gtk_widget_class_set_layout_manager_type(widget_class, GTK_TYPE_BIN_LAYOUT);
    gtk_widget_class_set_css_name(widget_class, "eslplotboard");
    gtk_widget_class_set_template_from_resource(widget_class,
                                                "/org/eslabon/Eslabon/ui/esl-plot-board.ui");
    gtk_widget_class_bind_template_child(widget_class, EslPlotBoard, plot_grid);
    signals[SIGNAL_CURSOR_MOVED] =
        g_signal_new("cursor-moved", G_TYPE_FROM_CLASS(klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL,
                     NULL, G_TYPE_NONE, 1, G_TYPE_DOUBLE);
}

static void esl_plot_board_init(EslPlotBoard *self)
{
    gtk_widget_init_template(GTK_WIDGET(self));
    self->sensitivity_plots = g_ptr_array_new();
    self->plot_energy = make_plot(self, _("Energy"), _("energy (J)"), FALSE, 0, 0, 1);
    self->plot_drift = make_plot(self, _("Energy drift"), _("|E − E₀| (J)"), TRUE, 1, 0, 1);
    self->plot_constraints =
        make_plot(self, _("Constraint violation"), _("norm (m, m/s, m/s²)"), TRUE, 2, 0, 1);
    self->plot_timing = make_plot(self, _("Time per step by phase"), _("time (ms)"), FALSE, 0,
                                  1, 1);
    self->plot_step_size = make_plot(self, _("Integrator step size"), _("step (s)"), TRUE, 1, 1,
                                     1);
    self->plot_newton = make_plot(self, _("Newton iterations per step"), _("count"), FALSE, 2,
                                  1, 1);
    self->plot_variables = g_object_ref(
        make_plot(self, _("Variables"), _("value (SI units)"), FALSE, 0, 1, 2));
    show_variables(self, FALSE);
    esl_plot_board_prepare_single(self);
}
