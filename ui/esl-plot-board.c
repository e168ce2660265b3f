/* The plot board; see esl-plot-board.h. */
#include "esl-plot-board.h"
#include "esl-number.h"
#include "esl-template.h"

#include <glib/gi18n.h>
#include <math.h>
#include <string.h>

#include "esl-gradient-table.h"
#include "esl-plot.h"

struct _EslPlotBoard {
    GtkWidget parent_instance;
    GtkWidget *plot_grid; /* template (in a scrolled window) */
    GtkWidget *run_legend, *pages, *focus_box; /* template */
    GString *legend_markup; /* run_legend's text: the runs compared with their colours */
    EslPlot *focused; /* the maximised plot (on the page "focus"), or NULL */
    int focused_cell[4]; /* and its cell in the grid: column, row, width, height */
    EslPlot *plot_energy, *plot_drift, *plot_constraints, *plot_timing, *plot_newton;
    EslPlot *plot_step_size; /* internal steps of error-controlled integrators (ssode) */
    GPtrArray *variable_plots; /* EslPlot (owned) of the variables the user chose, in order */
    int current_plot;          /* the one variables go to, or -1 */
    double link_x0, link_x1;   /* the time range of the last zoom or pan (NAN: none) */
    double energy0; /* total energy of the single run's first sample */
    GPtrArray *sensitivity_plots; /* EslPlot per objective of a sensitivity run (borrowed) */
    GtkWidget *gradient_table;    /* or NULL */
    int gradient_plots, sensitivity_np; /* the first sensitivity_plots: running gradients */
    int *state_coordinates, nstate_coordinates; /* the coordinates of the d q / d rho plots */
    EslPlot *optimization_plots[3]; /* a stored optimisation's psi, |grad psi| and parameters
                                       per evaluation (borrowed), or NULL */
    char *presented;       /* esl_plot_board_present's name, NULL when not presenting */
    double presented_zoom; /* and its zoom */
};

G_DEFINE_FINAL_TYPE(EslPlotBoard, esl_plot_board, GTK_TYPE_WIDGET)

enum { SIGNAL_CURSOR_MOVED, SIGNAL_PLOTS_CHANGED, N_SIGNALS };
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

/* The maximised plot goes back to its cell in the grid, and the grid is shown again. */
static void unfocus(EslPlotBoard *self)
{
    EslPlot *plot = g_steal_pointer(&self->focused);
    if (!plot)
        return;
    g_object_ref(plot);
    gtk_box_remove(GTK_BOX(self->focus_box), GTK_WIDGET(plot));
    const int *c = self->focused_cell;
    gtk_grid_attach(GTK_GRID(self->plot_grid), GTK_WIDGET(plot), c[0], c[1], c[2], c[3]);
    esl_plot_set_maximized(plot, FALSE);
    g_object_unref(plot);
    gtk_stack_set_visible_child_name(GTK_STACK(self->pages), "all");
}

/* Before the grid takes plot away or hides it: it comes back from the focus page first. */
static void unfocus_plot(EslPlotBoard *self, gpointer plot)
{
    if (plot && self->focused == plot)
        unfocus(self);
}

/* A plot maximised takes the board's area (the others wait in the grid); at 1280x720 the six
 * plots are about 190x120 px each. */
static void focus(EslPlotBoard *self, EslPlot *plot)
{
    if (self->focused == plot)
        return;
    unfocus(self);
    int *c = self->focused_cell;
    gtk_grid_query_child(GTK_GRID(self->plot_grid), GTK_WIDGET(plot), &c[0], &c[1], &c[2], &c[3]);
    g_object_ref(plot);
    gtk_grid_remove(GTK_GRID(self->plot_grid), GTK_WIDGET(plot));
    gtk_box_append(GTK_BOX(self->focus_box), GTK_WIDGET(plot));
    g_object_unref(plot);
    self->focused = plot;
    gtk_stack_set_visible_child_name(GTK_STACK(self->pages), "focus");
}

static void on_plot_maximized(EslPlot *plot, GParamSpec *pspec, EslPlotBoard *self)
{
    (void)pspec;
    /* only a plot in the grid can be maximised (not one hidden or taken out meanwhile) */
    gboolean in_grid = gtk_widget_get_parent(GTK_WIDGET(plot)) == self->plot_grid &&
                       gtk_widget_get_visible(GTK_WIDGET(plot));
    if (esl_plot_get_maximized(plot) && in_grid)
        focus(self, plot);
    else if (esl_plot_get_maximized(plot))
        esl_plot_set_maximized(plot, FALSE);
    else
        unfocus_plot(self, plot);
}

static void on_all_plots_clicked(GtkButton *button, EslPlotBoard *self)
{
    (void)button;
    unfocus(self);
}

EslPlot *esl_plot_board_get_maximized(EslPlotBoard *self)
{
    return self->focused;
}

/* Remove a sensitivity run's or an optimisation's plots and table; the monitor plots come
 * back. */
static void remove_run_plots(EslPlotBoard *self)
{
    for (guint i = 0; i < self->sensitivity_plots->len; i++)
        unfocus_plot(self, self->sensitivity_plots->pdata[i]);
    for (size_t i = 0; i < G_N_ELEMENTS(self->optimization_plots); i++)
        unfocus_plot(self, self->optimization_plots[i]);
    for (guint i = 0; i < self->sensitivity_plots->len; i++)
        gtk_grid_remove(GTK_GRID(self->plot_grid), self->sensitivity_plots->pdata[i]);
    g_ptr_array_set_size(self->sensitivity_plots, 0);
    for (size_t i = 0; i < G_N_ELEMENTS(self->optimization_plots); i++)
        if (self->optimization_plots[i])
            gtk_grid_remove(GTK_GRID(self->plot_grid), GTK_WIDGET(self->optimization_plots[i]));
    memset(self->optimization_plots, 0, sizeof self->optimization_plots);
    self->gradient_plots = 0;
    if (self->gradient_table)
        gtk_grid_remove(GTK_GRID(self->plot_grid), self->gradient_table);
    self->gradient_table = NULL;
    gtk_grid_set_row_homogeneous(GTK_GRID(self->plot_grid), TRUE);
    gtk_grid_set_column_homogeneous(GTK_GRID(self->plot_grid), TRUE);
    EslPlot *plots[6];
    for (int i = 0; i < 6; i++)
        gtk_widget_set_visible(GTK_WIDGET(monitor_plots(self, plots)[i]), TRUE);
}

/* A run's own plots are on the board (a sensitivity run's, an optimisation's, the agreement
 * table): they stand in for the monitor plots, in presentation too. */
static gboolean shows_run_plots(EslPlotBoard *self)
{
    return self->sensitivity_plots->len > 0 || self->optimization_plots[0] ||
           self->gradient_table;
}

static void present_monitor_plots(EslPlotBoard *self);

static EslPlot *current_variable_plot(EslPlotBoard *self)
{
    return self->current_plot >= 0 ? self->variable_plots->pdata[self->current_plot] : NULL;
}

/* The variable plots take the place of the second row's plots while they are shown (a third
 * row would not fit at 1280x720; a hidden child would keep its share of the homogeneous rows):
 * one plot spans the timing and step-size cells, two take one each, a third the Newton cell. */
static void show_variables(EslPlotBoard *self, gboolean show)
{
    guint n = show ? self->variable_plots->len : 0;
    for (guint i = 0; i < self->variable_plots->len; i++)
        unfocus_plot(self, self->variable_plots->pdata[i]);
    if (n >= 3) /* the cells they take */
        unfocus_plot(self, self->plot_newton);
    if (n > 0) {
        unfocus_plot(self, self->plot_timing);
        unfocus_plot(self, self->plot_step_size);
    }
    for (guint i = 0; i < self->variable_plots->len; i++) {
        GtkWidget *plot = self->variable_plots->pdata[i];
        if (gtk_widget_get_parent(plot))
            gtk_grid_remove(GTK_GRID(self->plot_grid), plot);
        if (i < n)
            gtk_grid_attach(GTK_GRID(self->plot_grid), plot, (int)i, 1, n == 1 ? 2 : 1, 1);
    }
    gtk_widget_set_visible(GTK_WIDGET(self->plot_timing), n == 0);
    gtk_widget_set_visible(GTK_WIDGET(self->plot_step_size), n == 0);
    gtk_widget_set_visible(GTK_WIDGET(self->plot_newton), n < 3);
}

/* The variables a variable plot lists (char *, owned by the plot): they outlive its series,
 * which are the shown runs' values (esl_plot_board_clear keeps the list). */
static GPtrArray *variables_of(EslPlot *plot)
{
    GPtrArray *names = g_object_get_data(G_OBJECT(plot), "esl-variables");
    if (!names) {
        names = g_ptr_array_new_with_free_func(g_free);
        g_object_set_data_full(G_OBJECT(plot), "esl-variables", names,
                               (GDestroyNotify)g_ptr_array_unref);
    }
    return names;
}

static gboolean lists_variable(EslPlot *plot, const char *name, guint *index)
{
    return g_ptr_array_find_with_equal_func(variables_of(plot), name, g_str_equal, index);
}

/* No runs compared: each monitor plot names its own series again. */
static void clear_run_legend(EslPlotBoard *self)
{
    g_string_truncate(self->legend_markup, 0);
    gtk_label_set_markup(GTK_LABEL(self->run_legend), "");
    gtk_widget_set_visible(self->run_legend, FALSE);
    EslPlot *plots[6];
    for (int i = 0; i < 6; i++)
        esl_plot_set_legend_hidden(monitor_plots(self, plots)[i], FALSE);
}

/* Run k of a comparison named once above the plots, in its colour (solid or dashed as its
 * series), in a legend that wraps; the monitor plots, which draw every run alike, leave out
 * their own. */
static void add_to_run_legend(EslPlotBoard *self, int k, const char *name)
{
    const GdkRGBA *c = &palette[k % G_N_ELEMENTS(palette)];
    g_autofree char *escaped = g_markup_escape_text(name, -1);
    if (self->legend_markup->len)
        g_string_append(self->legend_markup, "    ");
    /* non-breaking space: the swatch stays with its name when the line wraps */
    g_string_append_printf(self->legend_markup,
                           "<span foreground=\"#%02x%02x%02x\" weight=\"bold\">%s</span>\u00a0%s",
                           (int)(255 * c->red), (int)(255 * c->green), (int)(255 * c->blue),
                           k >= (int)G_N_ELEMENTS(palette) ? "╍╍" : "━━", escaped);
    gtk_label_set_markup(GTK_LABEL(self->run_legend), self->legend_markup->str);
    gtk_widget_set_visible(self->run_legend, TRUE);
    EslPlot *plots[6];
    for (int i = 0; i < 6; i++)
        esl_plot_set_legend_hidden(monitor_plots(self, plots)[i], TRUE);
}

const char *esl_plot_board_get_run_legend(EslPlotBoard *self)
{
    return gtk_label_get_text(GTK_LABEL(self->run_legend));
}

void esl_plot_board_clear(EslPlotBoard *self)
{
    clear_run_legend(self);
    remove_run_plots(self);
    /* the variable plots stay with their variables, to be drawn for the next runs shown */
    for (guint i = 0; i < self->variable_plots->len; i++)
        esl_plot_clear(self->variable_plots->pdata[i]);
    show_variables(self, TRUE);
    g_signal_emit(self, signals[SIGNAL_PLOTS_CHANGED], 0);
    /* a zoom was of the runs shown before: the next follow their data (a live run its end) */
    self->link_x0 = self->link_x1 = NAN;
    EslPlot *plots[6];
    for (int i = 0; i < 6; i++)
        esl_plot_set_time_range(monitor_plots(self, plots)[i], NAN, NAN);
    for (guint i = 0; i < self->variable_plots->len; i++)
        esl_plot_set_time_range(self->variable_plots->pdata[i], NAN, NAN);
    esl_plot_clear(self->plot_energy);
    esl_plot_clear(self->plot_drift);
    esl_plot_clear(self->plot_constraints);
    esl_plot_clear(self->plot_timing);
    esl_plot_clear(self->plot_newton);
    esl_plot_clear(self->plot_step_size);
    if (self->presented) /* a run started in presentation: still the one plot presented */
        present_monitor_plots(self);
}

/* The plot that shows a monitor's series (mbs_monitors.h), or NULL. */
static EslPlot *monitor_plot(EslPlotBoard *self, MbsMonitorPlot plot)
{
    switch (plot) {
    case MBS_MONITOR_PLOT_ENERGY:
        return self->plot_energy;
    case MBS_MONITOR_PLOT_CONSTRAINTS:
        return self->plot_constraints;
    case MBS_MONITOR_PLOT_TIMING:
        return self->plot_timing;
    case MBS_MONITOR_PLOT_NEWTON:
        return self->plot_newton;
    default:
        return NULL;
    }
}

/* Series of one run, in the order esl_plot_board_append uses them. */
void esl_plot_board_prepare_single(EslPlotBoard *self)
{
    esl_plot_board_clear(self);
    self->energy0 = NAN;
    /* the monitors' series from their table (mbs_monitors.h), coloured in order per plot */
    static const int colour[] = {0, 1, 2, 4, 7};
    int count[MBS_MONITOR_PLOT_NEWTON + 1] = {0};
    for (int k = 0; k < mbs_monitor_count; k++) {
        const MbsMonitorField *c = &mbs_monitor_fields[k];
        EslPlot *plot = monitor_plot(self, c->plot);
        if (plot)
            esl_plot_add_series(plot, _(c->label), &palette[colour[count[c->plot]++ % 5]], FALSE);
    }
    esl_plot_add_series(self->plot_drift, _("|E − E₀|"), &palette[3], FALSE);
    esl_plot_add_series(self->plot_step_size, _("internal step"), &palette[5], FALSE);
    esl_plot_set_title(self->plot_step_size, _("Integrator step size"));
}

/* A fixed-step formulation has no step-size history: the plot says which step it took, as its
 * title and a flat line over [0, duration], instead of staying empty (issue 12). */
void esl_plot_board_set_fixed_step(EslPlotBoard *self, double step, double duration)
{
    g_autofree char *h = esl_number_to_text(step, 0, NULL);
    g_autofree char *title = g_strdup_printf(_("Fixed step h = %s s"), h);
    esl_plot_set_title(self->plot_step_size, title);
    esl_plot_append(self->plot_step_size, 0, 0.0, step);
    esl_plot_append(self->plot_step_size, 0, duration, step);
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
    int count[MBS_MONITOR_PLOT_NEWTON + 1] = {0};
    for (int k = 0; k < mbs_monitor_count; k++) {
        MbsMonitorPlot which = mbs_monitor_fields[k].plot;
        EslPlot *plot = monitor_plot(self, which);
        if (!plot)
            continue;
        int series = count[which]++;
        /* no step has been timed (or iterated) at t = 0; timings in ms */
        if (which == MBS_MONITOR_PLOT_TIMING || which == MBS_MONITOR_PLOT_NEWTON) {
            if (t > 0)
                esl_plot_append(plot, series, t,
                                (which == MBS_MONITOR_PLOT_TIMING ? 1e3 : 1.0) *
                                    mbs_monitor_get(m, k));
        } else
            esl_plot_append(plot, series, t, mbs_monitor_get(m, k));
    }
    esl_plot_append(self->plot_drift, 0, t, fabs(m->total - self->energy0));
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
    add_to_run_legend(self, k, name);
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

/* The monitor plots (and variable plots) give their cells, 3 columns of 2 rows, to a
 * sensitivity run's or an optimisation's plots. */
static void hide_monitor_plots(EslPlotBoard *self)
{
    unfocus(self);
    remove_run_plots(self);
    show_variables(self, FALSE);
    EslPlot *plots[6];
    for (int i = 0; i < 6; i++)
        gtk_widget_set_visible(GTK_WIDGET(monitor_plots(self, plots)[i]), FALSE);
}

/* Per objective of a sensitivity run (at most ESL_PLOT_BOARD_MAX_OBJECTIVE_PLOTS) a
 * running-gradient plot with a series per parameter. */
static int begin_gradient_plots(EslPlotBoard *self, const char *const *objectives, int no,
                                const char *const *parameters, int np)
{
    hide_monitor_plots(self);
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

/* Once the table under the plots is laid out, scroll the board so that all of it shows (at
 * 1280x720 the plots and the table do not fit together: the table is the run's result). */
static gboolean reveal_table(GtkWidget *table, GdkFrameClock *clock, gpointer data)
{
    (void)clock;
    (void)data;
    GtkWidget *grid = gtk_widget_get_parent(table);
    GtkWidget *scrolled = grid ? gtk_widget_get_ancestor(grid, GTK_TYPE_SCROLLED_WINDOW) : NULL;
    graphene_rect_t r;
    if (!scrolled || gtk_widget_get_height(table) == 0 ||
        !gtk_widget_compute_bounds(table, grid, &r))
        return G_SOURCE_CONTINUE; /* not laid out yet */
    GtkAdjustment *adj = gtk_scrolled_window_get_vadjustment(GTK_SCROLLED_WINDOW(scrolled));
    double top = r.origin.y, bottom = r.origin.y + r.size.height + gtk_widget_get_margin_bottom(grid);
    double page = gtk_adjustment_get_page_size(adj), value = gtk_adjustment_get_value(adj);
    if (bottom > value + page)
        gtk_adjustment_set_value(adj, MIN(bottom - page, top));
    return G_SOURCE_REMOVE;
}

static void scroll_to_table(EslPlotBoard *self)
{
    gtk_widget_add_tick_callback(self->gradient_table, reveal_table, NULL, NULL);
}

/* A run's plots as presentation says. Presenting, an optimisation's three plots and a
 * sensitivity run's running gradients (its first row) are drawn larger, and its d q / d rho
 * plots and table are hidden: in the board's third of the screen they were squeezed to
 * unreadable strips. A table without plots (fd, adjoint, agreement) shows either way. Not
 * presenting, everything at its normal size. */
static void present_run_plots(EslPlotBoard *self)
{
    double zoom = self->presented ? self->presented_zoom : 1.0;
    gboolean gradients_only = self->presented && self->gradient_plots > 0;
    for (guint i = 0; i < self->sensitivity_plots->len; i++) {
        gtk_widget_set_visible(self->sensitivity_plots->pdata[i],
                               !gradients_only || (int)i < self->gradient_plots);
        esl_plot_set_zoom(self->sensitivity_plots->pdata[i], zoom);
    }
    for (size_t i = 0; i < G_N_ELEMENTS(self->optimization_plots); i++)
        if (self->optimization_plots[i])
            esl_plot_set_zoom(self->optimization_plots[i], zoom);
    if (self->gradient_table) {
        gboolean hidden = !gtk_widget_get_visible(self->gradient_table);
        gtk_widget_set_visible(self->gradient_table, !gradients_only);
        if (hidden && !gradients_only) /* back from presentation: the result in view again */
            scroll_to_table(self);
    }
}

/* The gradient table: the whole board when there are no plots (fd, adjoint), else a row of its
 * own under the plots, as tall as its rows need (esl_gradient_table_set_run's minimum; a cell
 * left by the plots, a third of the board's width at 1280x720, showed one column and a half).
 * The plots' rows share the rest; when the board is too short for both, it scrolls. */
static void attach_gradient_table(EslPlotBoard *self, const EslSensitivityRun *run)
{
    self->gradient_table = esl_gradient_table_new();
    esl_gradient_table_set_run(ESL_GRADIENT_TABLE(self->gradient_table), run);
    if (self->sensitivity_plots->len == 0) {
        gtk_grid_attach(GTK_GRID(self->plot_grid), self->gradient_table, 0, 0, 3, 2);
        return;
    }
    gtk_grid_set_row_homogeneous(GTK_GRID(self->plot_grid), FALSE);
    gtk_grid_attach(GTK_GRID(self->plot_grid), self->gradient_table, 0, 2, 3, 1);
    present_run_plots(self);
    if (gtk_widget_get_visible(self->gradient_table))
        scroll_to_table(self);
}

void esl_plot_board_show_sensitivity(EslPlotBoard *self, const EslSensitivityRun *run,
                                     const int *coordinates, const char *const *names,
                                     int ncoordinates)
{
    /* the live path's plots, filled with the stored rows */
    if (!run->history_state && !run->history_points)
        ncoordinates = 0;
    /* a run without history (fd, adjoint) has only its table */
    esl_plot_board_begin_sensitivity(self, (const char *const *)run->objectives,
                                     run->n > 0 ? run->nobjectives : 0,
                                     (const char *const *)run->parameters,
                                     run->nparameters, coordinates, names, ncoordinates);
    int ng = run->nobjectives * run->nparameters;
    gsize ns = (gsize)run->nstate * run->nparameters;
    gsize nr = (gsize)3 * run->npoints * run->nparameters;
    for (int r = 0; r < run->n; r++) {
        EslSensitivityRow row = {
            .time = run->times[r], .psi = run->history_psi + (gsize)r * run->nobjectives,
            .gradient = run->history_gradient + (gsize)r * ng,
            .n = ncoordinates && run->history_state ? run->nstate : 0,
            .state_sensitivity = ncoordinates && run->history_state ? run->history_state + r * ns
                                                                    : NULL,
            .npoint_outputs = ncoordinates && run->history_points ? 3 * run->npoints : 0,
            .point_sensitivity = ncoordinates && run->history_points
                                     ? run->history_points + r * nr
                                     : NULL};
        esl_plot_board_append_sensitivity(self, &row);
    }
    for (guint i = 0; i < self->sensitivity_plots->len; i++)
        esl_plot_fit(self->sensitivity_plots->pdata[i]);
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
    /* per parameter a plot of the coordinates' sensitivities, in the cells left of the two
     * rows (the table comes under them at the end) */
    gboolean coordinates_too = FALSE, points_too = FALSE;
    for (int c = 0; c < ncoordinates; c++) {
        coordinates_too |= coordinates[c] >= 0;
        points_too |= coordinates[c] < 0;
    }
    for (int k = 0; ncoordinates > 0 && k < np && shown + k < 6; k++) {
        g_autofree char *title = g_strdup_printf(_("Sensitivity to %s"), parameters[k]);
        g_autofree char *label = g_strdup_printf("%s/∂%s",
                                                 !points_too        ? "∂q"
                                                 : coordinates_too ? "∂q, ∂r"
                                                                   : "∂r",
                                                 parameters[k]);
        int cell = shown + k;
        EslPlot *plot = make_plot(self, title, label, FALSE, cell % 3, cell / 3, 1);
        g_ptr_array_add(self->sensitivity_plots, plot);
        for (int c = 0; c < ncoordinates; c++)
            esl_plot_add_series(plot, names[c], &palette[c % G_N_ELEMENTS(palette)],
                                c >= (int)G_N_ELEMENTS(palette));
    }
    present_run_plots(self);
}

void esl_plot_board_append_sensitivity(EslPlotBoard *self, const EslSensitivityRow *row)
{
    int np = self->sensitivity_np;
    for (int i = 0; i < self->gradient_plots; i++)
        for (int k = 0; k < np; k++)
            esl_plot_append(self->sensitivity_plots->pdata[i], k, row->time,
                            row->gradient[i * np + k]);
    /* outputs: a coordinate's column of d q / d rho, or (index -1 - j) component j of the
     * points' d r / d rho */
    for (guint p = (guint)self->gradient_plots;
         (row->state_sensitivity || row->point_sensitivity) && p < self->sensitivity_plots->len;
         p++) {
        gsize k = p - (guint)self->gradient_plots;
        for (int c = 0; c < self->nstate_coordinates; c++) {
            int i = self->state_coordinates[c], j = -1 - i;
            if (i >= 0 && row->state_sensitivity && i < row->n)
                esl_plot_append(self->sensitivity_plots->pdata[p], c, row->time,
                                row->state_sensitivity[(gsize)row->n * k + i]);
            else if (i < 0 && row->point_sensitivity && j < row->npoint_outputs)
                esl_plot_append(self->sensitivity_plots->pdata[p], c, row->time,
                                row->point_sensitivity[(gsize)row->npoint_outputs * k + j]);
        }
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

/* A plot over the evaluations of an optimisation, a column of the board's two rows; not linked
 * to the time plots (its x is no time). */
static EslPlot *evaluation_plot(EslPlotBoard *self, const char *title, const char *y_label,
                                int column)
{
    EslPlot *plot = ESL_PLOT(esl_plot_new());
    esl_plot_set_title(plot, title);
    esl_plot_set_labels(plot, _("evaluation"), y_label);
    esl_plot_set_integer_x(plot, TRUE);
    g_signal_connect(plot, "notify::maximized", G_CALLBACK(on_plot_maximized), self);
    gtk_widget_set_hexpand(GTK_WIDGET(plot), TRUE);
    gtk_widget_set_vexpand(GTK_WIDGET(plot), TRUE);
    gtk_grid_attach(GTK_GRID(self->plot_grid), GTK_WIDGET(plot), column, 0, 1, 2);
    self->optimization_plots[column] = plot;
    return plot;
}

void esl_plot_board_show_optimization(EslPlotBoard *self, const EslOptimizationRun *run)
{
    hide_monitor_plots(self);
    g_autofree char *title = g_strdup_printf(_("%s per evaluation"), run->objective);
    EslPlot *psi = evaluation_plot(self, title, run->objective, 0);
    EslPlot *slope = evaluation_plot(self, _("|∇ψ| per evaluation"), "|∇ψ|", 1);
    EslPlot *path = evaluation_plot(self, _("Parameters per evaluation"), _("value"), 2);
    esl_plot_add_series(psi, run->objective, &palette[0], FALSE);
    esl_plot_add_series(psi, _("lowest so far"), &palette[7], TRUE);
    esl_plot_add_series(slope, "|∇ψ|", &palette[3], FALSE);
    int np = run->nparameters;
    for (int k = 0; k < np; k++)
        esl_plot_add_series(path, run->parameters[k], &palette[k % G_N_ELEMENTS(palette)],
                            k >= (int)G_N_ELEMENTS(palette));
    gboolean psi_positive = run->n > 0, slope_positive = run->n > 0;
    double lowest = HUGE_VAL;
    for (int i = 0; i < run->n; i++) {
        double e = i + 1, value = run->history_psi[i], norm = 0.0;
        for (int k = 0; k < np; k++) {
            double g = run->history_gradient[(gsize)i * np + k];
            norm += g * g;
            esl_plot_append(path, k, e, run->history_x[(gsize)i * np + k]);
        }
        norm = sqrt(norm);
        lowest = MIN(lowest, value);
        esl_plot_append(psi, 0, e, value);
        esl_plot_append(psi, 1, e, lowest);
        esl_plot_append(slope, 0, e, norm);
        psi_positive = psi_positive && value > 0;
        slope_positive = slope_positive && norm > 0;
    }
    /* ψ and its gradient fall by orders of magnitude as it converges */
    esl_plot_set_log_y(psi, psi_positive);
    esl_plot_set_log_y(slope, slope_positive);
    for (size_t i = 0; i < G_N_ELEMENTS(self->optimization_plots); i++)
        esl_plot_fit(self->optimization_plots[i]);
    present_run_plots(self);
}

EslPlot *esl_plot_board_get_optimization_plot(EslPlotBoard *self, const char *which)
{
    static const char *const names[] = {"psi", "gradient", "parameters"};
    for (size_t i = 0; i < G_N_ELEMENTS(names); i++)
        if (g_strcmp0(which, names[i]) == 0)
            return self->optimization_plots[i];
    return NULL;
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

/* The plot by a name esl_plot_board_present takes ("variables": the current one, NULL when
 * there is none yet) in *plot; FALSE for another name. */
static gboolean plot_named(EslPlotBoard *self, const char *name, EslPlot **plot)
{
    const struct {
        const char *name;
        EslPlot *plot;
    } plots[] = {{"energy", self->plot_energy},           {"drift", self->plot_drift},
                 {"constraints", self->plot_constraints}, {"timing", self->plot_timing},
                 {"newton", self->plot_newton},           {"step-size", self->plot_step_size},
                 {"variables", current_variable_plot(self)}};
    for (size_t i = 0; i < G_N_ELEMENTS(plots); i++)
        if (g_strcmp0(plots[i].name, name) == 0) {
            *plot = plots[i].plot;
            return TRUE;
        }
    return FALSE;
}

/* The monitor and variable plots as presentation says: only the one presented, drawn larger;
 * all at their normal size when not presenting. */
static void present_monitor_plots(EslPlotBoard *self)
{
    EslPlot *chosen = NULL;
    if (self->presented && plot_named(self, self->presented, &chosen) && !chosen) {
        esl_plot_board_add_plot(self); /* "variables" before any: an empty one to fill */
        plot_named(self, self->presented, &chosen);
    }
    double zoom = chosen ? self->presented_zoom : 1.0;
    EslPlot *all[] = {self->plot_energy, self->plot_drift,  self->plot_constraints,
                      self->plot_timing, self->plot_newton, self->plot_step_size};
    EslPlot *variables = current_variable_plot(self);
    /* homogeneous rows would keep the hidden row's share */
    gtk_grid_set_row_homogeneous(GTK_GRID(self->plot_grid), !chosen);
    gtk_grid_set_column_homogeneous(GTK_GRID(self->plot_grid), !chosen);
    show_variables(self, FALSE);
    for (size_t i = 0; i < G_N_ELEMENTS(all); i++) {
        gtk_widget_set_visible(GTK_WIDGET(all[i]), !chosen || all[i] == chosen);
        esl_plot_set_zoom(all[i], zoom);
    }
    if (!chosen)
        show_variables(self, TRUE);
    else if (chosen == variables)
        gtk_grid_attach(GTK_GRID(self->plot_grid), GTK_WIDGET(variables), 0, 1, 2, 1);
    for (guint i = 0; i < self->variable_plots->len; i++)
        esl_plot_set_zoom(self->variable_plots->pdata[i], zoom);
}

gboolean esl_plot_board_present(EslPlotBoard *self, const char *name, double zoom)
{
    EslPlot *unused;
    if (name && !plot_named(self, name, &unused))
        return FALSE;
    unfocus(self); /* presentation chooses its plot itself */
    g_free(self->presented);
    self->presented = g_strdup(name);
    self->presented_zoom = zoom;
    /* a stored sensitivity run or optimisation shown: its plots are what is presented (the
     * monitor plots they replaced stay hidden, and come back as presentation says when the
     * run's plots go) */
    if (shows_run_plots(self))
        present_run_plots(self);
    else
        present_monitor_plots(self);
    return TRUE;
}

int esl_plot_board_add_variable(EslPlotBoard *self, const char *name, gboolean log_y,
                                const double *t, const double *y, int n)
{
    if (self->current_plot < 0)
        esl_plot_board_add_plot(self);
    return esl_plot_board_plot_variable(self, self->current_plot, name, log_y, -1, NULL, t, y,
                                        n);
}

int esl_plot_board_plot_variable(EslPlotBoard *self, int index, const char *name,
                                 gboolean log_y, int run, const char *run_name, const double *t,
                                 const double *y, int n)
{
    g_return_val_if_fail(index >= 0 && (guint)index < self->variable_plots->len, -1);
    EslPlot *plot = self->variable_plots->pdata[index];
    GPtrArray *names = variables_of(plot);
    guint v;
    if (!lists_variable(plot, name, &v)) {
        g_ptr_array_add(names, g_strdup(name));
        v = names->len - 1;
    }
    /* one run: a colour per variable; several: a colour per run, its name in the legend, and
     * the variables after the first dashed */
    g_autofree char *label = run_name ? g_strdup_printf("%s · %s", name, run_name)
                                      : g_strdup(name);
    int series = esl_plot_find_series(plot, label);
    if (series >= 0)
        return series;
    int k = run >= 0 ? run : esl_plot_get_n_series(plot);
    if (esl_plot_get_n_series(plot) == 0)
        esl_plot_set_log_y(plot, log_y);
    series = esl_plot_add_series(plot, label, &palette[k % G_N_ELEMENTS(palette)],
                                 run >= 0 ? v > 0 : k >= (int)G_N_ELEMENTS(palette));
    esl_plot_append_many(plot, series, t, y, n);
    g_signal_emit(self, signals[SIGNAL_PLOTS_CHANGED], 0);
    return series;
}

void esl_plot_board_forget_variable(EslPlotBoard *self, int index, const char *name)
{
    g_return_if_fail(index >= 0 && (guint)index < self->variable_plots->len);
    guint v;
    if (lists_variable(self->variable_plots->pdata[index], name, &v)) {
        g_ptr_array_remove_index(variables_of(self->variable_plots->pdata[index]), v);
        g_signal_emit(self, signals[SIGNAL_PLOTS_CHANGED], 0);
    }
}

const char *const *esl_plot_board_get_variables(EslPlotBoard *self, int index, int *n)
{
    g_return_val_if_fail(index >= 0 && (guint)index < self->variable_plots->len, NULL);
    GPtrArray *names = variables_of(self->variable_plots->pdata[index]);
    *n = (int)names->len;
    return (const char *const *)names->pdata;
}

static void on_variable_plot_pressed(GtkGestureClick *gesture, int n_press, double x, double y,
                                     EslPlotBoard *self)
{
    (void)n_press;
    (void)x;
    (void)y;
    GtkWidget *plot = gtk_event_controller_get_widget(GTK_EVENT_CONTROLLER(gesture));
    guint index;
    if (g_ptr_array_find(self->variable_plots, plot, &index))
        esl_plot_board_set_current_plot(self, (int)index);
}

/* Titles name the plots in order: "Variables", "Variables 2"...; the current one is marked
 * with a dot when there are several. */
static void retitle_variable_plots(EslPlotBoard *self)
{
    for (guint i = 0; i < self->variable_plots->len; i++) {
        g_autofree char *title = i == 0 ? g_strdup(_("Variables"))
                                        : g_strdup_printf(_("Variables %d"), (int)i + 1);
        g_autofree char *marked =
            self->variable_plots->len > 1 && (int)i == self->current_plot
                ? g_strdup_printf("● %s", title) /* short: a third of the row at 1280x720 */
                : g_strdup(title);
        esl_plot_set_title(self->variable_plots->pdata[i], marked);
    }
}

int esl_plot_board_add_plot(EslPlotBoard *self)
{
    if (self->variable_plots->len >= ESL_PLOT_BOARD_MAX_VARIABLE_PLOTS)
        return -1;
    EslPlot *plot =
        g_object_ref(make_plot(self, _("Variables"), _("value (SI units)"), FALSE, 0, 1, 1));
    gtk_grid_remove(GTK_GRID(self->plot_grid), GTK_WIDGET(plot)); /* placed by show_variables */
    GtkGesture *press = gtk_gesture_click_new();
    gtk_event_controller_set_propagation_phase(GTK_EVENT_CONTROLLER(press), GTK_PHASE_CAPTURE);
    g_signal_connect(press, "pressed", G_CALLBACK(on_variable_plot_pressed), self);
    gtk_widget_add_controller(GTK_WIDGET(plot), GTK_EVENT_CONTROLLER(press));
    if (isfinite(self->link_x0))
        esl_plot_set_time_range(plot, self->link_x0, self->link_x1);
    if (!isnan(esl_plot_get_cursor(self->plot_energy)))
        esl_plot_set_cursor(plot, esl_plot_get_cursor(self->plot_energy));
    g_ptr_array_add(self->variable_plots, plot);
    self->current_plot = (int)self->variable_plots->len - 1;
    retitle_variable_plots(self);
    show_variables(self, TRUE);
    g_signal_emit(self, signals[SIGNAL_PLOTS_CHANGED], 0);
    return self->current_plot;
}

void esl_plot_board_remove_plot(EslPlotBoard *self, int index)
{
    g_return_if_fail(index >= 0 && (guint)index < self->variable_plots->len);
    show_variables(self, FALSE);
    g_ptr_array_remove_index(self->variable_plots, (guint)index);
    int n = (int)self->variable_plots->len;
    if (self->current_plot >= n || self->current_plot > index)
        self->current_plot--;
    if (n > 0 && self->current_plot < 0)
        self->current_plot = 0;
    retitle_variable_plots(self);
    show_variables(self, TRUE);
    g_signal_emit(self, signals[SIGNAL_PLOTS_CHANGED], 0);
}

int esl_plot_board_get_n_plots(EslPlotBoard *self)
{
    return (int)self->variable_plots->len;
}

EslPlot *esl_plot_board_get_plot(EslPlotBoard *self, int index)
{
    g_return_val_if_fail(index >= 0 && (guint)index < self->variable_plots->len, NULL);
    return self->variable_plots->pdata[index];
}

int esl_plot_board_get_current_plot(EslPlotBoard *self)
{
    return self->current_plot;
}

void esl_plot_board_set_current_plot(EslPlotBoard *self, int index)
{
    g_return_if_fail(index >= 0 && (guint)index < self->variable_plots->len);
    if (index == self->current_plot)
        return;
    self->current_plot = index;
    retitle_variable_plots(self);
    g_signal_emit(self, signals[SIGNAL_PLOTS_CHANGED], 0);
}

gboolean esl_plot_board_has_variable(EslPlotBoard *self, const char *name)
{
    EslPlot *plot = current_variable_plot(self);
    return plot && lists_variable(plot, name, NULL);
}

void esl_plot_board_remove_variable(EslPlotBoard *self, const char *name)
{
    EslPlot *plot = current_variable_plot(self);
    guint v;
    if (!plot || !lists_variable(plot, name, &v))
        return;
    g_ptr_array_remove_index(variables_of(plot), v);
    g_autofree char *prefix = g_strdup_printf("%s · ", name); /* its series of each run */
    for (int s = esl_plot_get_n_series(plot) - 1; s >= 0; s--) {
        const char *series = esl_plot_series_name(plot, s);
        if (g_str_equal(series, name) || g_str_has_prefix(series, prefix))
            esl_plot_remove_series(plot, s);
    }
    g_signal_emit(self, signals[SIGNAL_PLOTS_CHANGED], 0);
}

void esl_plot_board_set_cursor(EslPlotBoard *self, double t)
{
    for (guint i = 0; i < self->sensitivity_plots->len; i++)
        esl_plot_set_cursor(self->sensitivity_plots->pdata[i], t);
    for (guint i = 0; i < self->variable_plots->len; i++)
        esl_plot_set_cursor(self->variable_plots->pdata[i], t);
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
    EslPlot *all[] = {self->plot_energy, self->plot_drift,  self->plot_constraints,
                      self->plot_timing, self->plot_newton, self->plot_step_size};
    self->link_x0 = x0;
    self->link_x1 = x1;
    for (size_t i = 0; i < G_N_ELEMENTS(all); i++)
        if (all[i] != plot)
            esl_plot_set_time_range(all[i], x0, x1);
    for (guint i = 0; i < self->variable_plots->len; i++)
        if (self->variable_plots->pdata[i] != plot)
            esl_plot_set_time_range(self->variable_plots->pdata[i], x0, x1);
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
    g_signal_connect(plot, "notify::maximized", G_CALLBACK(on_plot_maximized), self);
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
    g_clear_pointer(&self->variable_plots, g_ptr_array_unref);
    g_clear_pointer(&self->presented, g_free);
    if (self->legend_markup)
        g_string_free(g_steal_pointer(&self->legend_markup), TRUE);
    self->focused = NULL;
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
    gtk_widget_class_bind_template_child(widget_class, EslPlotBoard, run_legend);
    gtk_widget_class_bind_template_child(widget_class, EslPlotBoard, pages);
    gtk_widget_class_bind_template_child(widget_class, EslPlotBoard, focus_box);
    gtk_widget_class_bind_template_callback(widget_class, on_all_plots_clicked);
    signals[SIGNAL_CURSOR_MOVED] =
        g_signal_new("cursor-moved", G_TYPE_FROM_CLASS(klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL,
                     NULL, G_TYPE_NONE, 1, G_TYPE_DOUBLE);
    signals[SIGNAL_PLOTS_CHANGED] =
        g_signal_new("plots-changed", G_TYPE_FROM_CLASS(klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL,
                     NULL, G_TYPE_NONE, 0);
}

static void esl_plot_board_init(EslPlotBoard *self)
{
    gtk_widget_init_template(GTK_WIDGET(self));
    self->legend_markup = g_string_new(NULL);
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
    /* a variable plot is referenced here: show_variables takes it out of the grid and back */
    self->variable_plots = g_ptr_array_new_with_free_func(g_object_unref);
    self->current_plot = -1;
    self->link_x0 = self->link_x1 = NAN;
    esl_plot_board_prepare_single(self);
}
