/* The Optimise Design dialog; see esl-optimize-dialog.h. What it offers comes from the model
 * (objectives, free parameters), esl-optimizer.h (algorithms) and the engine's registry
 * (mbs_sensitivity_available); the optimisation is esl-optimizer.c's, on
 * EslOptimizationController's thread. */
#include "esl-optimize-dialog.h"

#include <glib/gi18n.h>
#include <math.h>

#include "esl-drop-down.h"
#include "esl-model-edit.h"
#include "esl-model-file.h"
#include "esl-number.h"
#include "esl-optimization-controller.h"
#include "esl-plot.h"
#include "esl-wheel.h"

struct _EslOptimizeDialog {
    GtkWindow parent_instance;
    /* template */
    GtkWidget *choices_grid, *run_label, *parameters_grid, *plot, *table, *table_scroller;
    GtkWidget *status_label, *start_button, *stop_button, *apply_button;
    /* the choices, made once */
    GtkWidget *objective, *algorithm, *method, *max_evaluations, *xtol;
    GArray *methods; /* MbsSensitivityMethod of each item of the method drop-down */

    char *base_json; /* the model's text as given or last applied */
    char *origin, *formulation;
    MbsSettings settings;
    MbsSettings method_options;
    gboolean has_method_options;
    MbsModel *model;      /* compiled from base_json; NULL when it does not load */
    GPtrArray *row_names; /* names of the parameters listed, in their rows' order */
    GHashTable *controls; /* "p/which" -> widget of a parameter's row (borrowed) */

    EslOptimizationController *controller; /* running, or the last one finished */
    char *project_path; /* where optimisations are stored (NULL: nowhere) */
    gint64 model_id;
    GStrv varied; /* the parameters of the optimisation shown (running, finished or stored) */
    int nvaried;
    EslOptimizerResult result; /* how the one shown ended (has_result), a copy */
    gboolean has_result;
    int evaluations_shown;
    double best_psi; /* the lowest psi shown, and its row in the table */
    int best_row;
    gboolean all_positive; /* every psi so far > 0: the plot's y axis is logarithmic */
    gboolean applied;      /* its best point is the model's now */
    gint64 stored_run;     /* the stored optimisation shown (0: none, or one started since) */
};

G_DEFINE_FINAL_TYPE(EslOptimizeDialog, esl_optimize_dialog, GTK_TYPE_WINDOW)

enum { SIGNAL_APPLY, SIGNAL_FINISHED, N_SIGNALS };
static guint signals[N_SIGNALS];

/* ---- state ----------------------------------------------------------------------------------- */

static void show_status(EslOptimizeDialog *self, gboolean is_error, const char *text)
{
    gtk_label_set_text(GTK_LABEL(self->status_label), text);
    if (is_error)
        gtk_widget_add_css_class(self->status_label, "error");
    else
        gtk_widget_remove_css_class(self->status_label, "error");
}

static gboolean running(EslOptimizeDialog *self)
{
    return self->controller && esl_optimization_controller_is_running(self->controller);
}

static const EslOptimizerResult *finished_result(EslOptimizeDialog *self)
{
    return self->has_result && !running(self) ? &self->result : NULL;
}

/* r (x and gradient of nvaried numbers) becomes the result shown. */
static void keep_result(EslOptimizeDialog *self, const EslOptimizerResult *r)
{
    esl_optimizer_result_clear(&self->result);
    self->result = *r;
    self->result.x = g_memdup2(r->x, sizeof(double) * MAX(self->nvaried, 1));
    self->result.gradient = g_memdup2(r->gradient, sizeof(double) * MAX(self->nvaried, 1));
    self->result.message = g_strdup(r->message);
    self->has_result = TRUE;
}

static void update_state(EslOptimizeDialog *self)
{
    gboolean busy = running(self);
    const EslOptimizerResult *r = finished_result(self);
    gtk_widget_set_sensitive(self->start_button, !busy && self->model);
    gtk_widget_set_sensitive(self->stop_button, busy);
    gtk_widget_set_sensitive(self->apply_button, r && r->evaluations > 0 && !self->applied);
    gtk_widget_set_sensitive(self->choices_grid, !busy);
    gtk_widget_set_sensitive(self->parameters_grid, !busy);
}

/* "Ls1 = 2.431923572, Ls2 = 1.844868886" for the n parameters named at x. */
static char *point_text(const char *const *names, int n, const double *x)
{
    GString *s = g_string_new(NULL);
    for (int k = 0; k < n; k++) {
        g_autofree char *v = esl_number_to_text(x[k], 10, NULL);
        g_string_append_printf(s, "%s%s = %s", k ? ", " : "", names[k], v);
    }
    return g_string_free(s, FALSE);
}

/* ---- the choices ----------------------------------------------------------------------------- */

static void show_xtol(EslOptimizeDialog *self, double xtol)
{
    g_autofree char *text = esl_number_to_text(xtol, 0, NULL);
    gtk_editable_set_text(GTK_EDITABLE(self->xtol), text);
}

/* The labels (taken) as the items of a drop-down, keeping the item labelled as before. */
static void set_items(GtkWidget *dropdown, GPtrArray *labels, const char *keep)
{
    guint selected = 0;
    for (guint i = 0; keep && i < labels->len; i++)
        if (g_str_equal(labels->pdata[i], keep))
            selected = i;
    g_ptr_array_add(labels, NULL);
    gtk_drop_down_set_model(GTK_DROP_DOWN(dropdown),
                            G_LIST_MODEL(gtk_string_list_new((const char *const *)labels->pdata)));
    g_ptr_array_unref(labels);
    gtk_drop_down_set_selected(GTK_DROP_DOWN(dropdown), selected);
}

/* The label of a drop-down's item shown (owned), or NULL. */
static char *selected_label(GtkWidget *dropdown)
{
    GListModel *items = gtk_drop_down_get_model(GTK_DROP_DOWN(dropdown));
    guint i = gtk_drop_down_get_selected(GTK_DROP_DOWN(dropdown));
    return items && i < g_list_model_get_n_items(items)
               ? g_strdup(gtk_string_list_get_string(GTK_STRING_LIST(items), i))
               : NULL;
}

static void fill_objectives(EslOptimizeDialog *self)
{
    g_autofree char *keep = selected_label(self->objective);
    GPtrArray *labels = g_ptr_array_new_with_free_func(g_free);
    for (int o = 0; self->model && o < self->model->nobjectives; o++)
        g_ptr_array_add(labels, g_strdup(self->model->objectives[o].name));
    set_items(self->objective, labels, keep);
}

/* The methods the formulation has, keeping the one chosen (else direct, the cheapest). */
static void fill_methods(EslOptimizeDialog *self)
{
    g_autofree char *keep = selected_label(self->method);
    g_array_set_size(self->methods, 0);
    GPtrArray *labels = g_ptr_array_new_with_free_func(g_free);
    for (int m = 0; self->formulation && m < MBS_SENSITIVITY_METHOD_COUNT; m++)
        if (mbs_sensitivity_available(self->formulation, (MbsSensitivityMethod)m)) {
            g_array_append_val(self->methods, m);
            g_ptr_array_add(labels, g_strdup(mbs_sensitivity_method_name(m)));
        }
    set_items(self->method, labels,
              keep ? keep : mbs_sensitivity_method_name(MBS_SENSITIVITY_DIRECT));
}

static GtkWidget *caption(const char *text, float xalign)
{
    GtkWidget *label = gtk_label_new(text);
    gtk_label_set_xalign(GTK_LABEL(label), xalign);
    gtk_widget_add_css_class(label, "caption-heading");
    return label;
}

static void add_choice(EslOptimizeDialog *self, int row, const char *label, const char *tooltip,
                       GtkWidget *widget)
{
    GtkWidget *l = gtk_label_new(label);
    gtk_label_set_xalign(GTK_LABEL(l), 0);
    gtk_widget_set_tooltip_text(l, tooltip);
    gtk_widget_set_tooltip_text(widget, tooltip);
    gtk_widget_set_hexpand(widget, TRUE);
    gtk_grid_attach(GTK_GRID(self->choices_grid), l, 0, row, 1, 1);
    gtk_grid_attach(GTK_GRID(self->choices_grid), widget, 1, row, 1, 1);
}

static void make_choices(EslOptimizeDialog *self)
{
    self->objective = esl_drop_down_new(gtk_string_list_new(NULL));
    add_choice(self, 0, _("Objective"), _("The objective ψ to minimise"), self->objective);
    GtkStringList *algorithms = gtk_string_list_new(NULL);
    for (int a = 0; a < ESL_OPTIMIZER_ALGORITHM_COUNT; a++)
        gtk_string_list_append(algorithms, esl_optimizer_algorithm_label(a));
    self->algorithm = esl_drop_down_new(algorithms);
    add_choice(self, 1, _("Algorithm"),
               _("NLopt's gradient-based local optimisers with bounds: L-BFGS (quasi-Newton) or "
                 "SLSQP (sequential quadratic programming)"),
               self->algorithm);
    self->method = esl_drop_down_new(gtk_string_list_new(NULL));
    add_choice(self, 2, _("Gradient"),
               _("How each evaluation computes the gradient of ψ: the sensitivity methods the "
                 "formulation has"),
               self->method);
    self->max_evaluations = esl_spin_new(1, 10000, 1);
    gtk_spin_button_set_value(GTK_SPIN_BUTTON(self->max_evaluations),
                              ESL_OPTIMIZER_MAX_EVALUATIONS);
    add_choice(self, 3, _("Most evaluations"),
               _("The optimisation stops after this many evaluations of ψ and its gradient"),
               self->max_evaluations);
    self->xtol = gtk_entry_new();
    show_xtol(self, ESL_OPTIMIZER_XTOL);
    gtk_editable_set_width_chars(GTK_EDITABLE(self->xtol), 8);
    add_choice(self, 4, _("Parameter tolerance"),
               _("Relative tolerance on the parameters (NLopt's xtol): the optimisation has "
                 "converged when a step changes every parameter by less than this fraction of "
                 "its value"),
               self->xtol);
}

/* Read the tolerance on the parameters; FALSE with the status saying why. */
static gboolean read_xtol(EslOptimizeDialog *self, double *xtol)
{
    const char *text = gtk_editable_get_text(GTK_EDITABLE(self->xtol));
    if (esl_number_from_text(text, xtol) && *xtol > 0.0 && *xtol < 1.0)
        return TRUE;
    g_autofree char *message = g_strdup_printf(
        _("The parameter tolerance, “%s”, is not a number between 0 and 1."), text);
    show_status(self, TRUE, message);
    return FALSE;
}

/* ---- the parameters' rows -------------------------------------------------------------------- */

static void keep_control(EslOptimizeDialog *self, int p, const char *which, GtkWidget *widget)
{
    g_hash_table_insert(self->controls, g_strdup_printf("%d/%s", p, which), widget);
}

GtkWidget *esl_optimize_dialog_get_control(EslOptimizeDialog *self, int parameter,
                                           const char *which)
{
    if (parameter < 0) {
        static const char *const names[] = {"objective", "algorithm", "method",
                                            "max-evaluations", "xtol", "start", "stop", "apply",
                                            "status", "plot", "table"};
        GtkWidget *widgets[] = {self->objective, self->algorithm, self->method,
                                self->max_evaluations, self->xtol, self->start_button,
                                self->stop_button, self->apply_button, self->status_label,
                                self->plot, self->table};
        for (size_t i = 0; i < G_N_ELEMENTS(names); i++)
            if (g_strcmp0(which, names[i]) == 0)
                return widgets[i];
        return NULL;
    }
    g_autofree char *key = g_strdup_printf("%d/%s", parameter, which);
    return g_hash_table_lookup(self->controls, key);
}

static GtkWidget *bound_entry(double value, const char *tooltip)
{
    GtkWidget *entry = gtk_entry_new();
    g_autofree char *text = esl_number_to_text(value, 6, NULL);
    gtk_editable_set_text(GTK_EDITABLE(entry), text);
    gtk_editable_set_width_chars(GTK_EDITABLE(entry), 8);
    gtk_editable_set_max_width_chars(GTK_EDITABLE(entry), 8);
    gtk_widget_set_tooltip_text(entry, tooltip);
    return entry;
}

/* The free parameters' names of the model, in its order. */
static GPtrArray *free_parameter_names(const MbsModel *m)
{
    GPtrArray *names = g_ptr_array_new_with_free_func(g_free);
    for (int p = 0; m && p < m->nparameters; p++)
        if (mbs_model_parameter_is_free(m, p))
            g_ptr_array_add(names, g_strdup(m->parameters[p].name));
    return names;
}

static gboolean same_names(GPtrArray *a, GPtrArray *b)
{
    if (!a || a->len != b->len)
        return FALSE;
    for (guint i = 0; i < a->len; i++)
        if (!g_str_equal(a->pdata[i], b->pdata[i]))
            return FALSE;
    return TRUE;
}

/* One row per free parameter: tick, name, lower bound, value, upper bound (value ± 50 %, ± 1
 * around zero). The rows stay (with their ticks and bounds) while the model has the same
 * free parameters; only the values shown follow the model. */
static void fill_parameters(EslOptimizeDialog *self)
{
    const MbsModel *m = self->model;
    GPtrArray *names = free_parameter_names(m);
    gboolean keep = same_names(self->row_names, names);
    if (self->row_names)
        g_ptr_array_unref(self->row_names);
    self->row_names = names;
    if (!keep) {
        g_hash_table_remove_all(self->controls);
        GtkWidget *child;
        while ((child = gtk_widget_get_first_child(self->parameters_grid)))
            gtk_grid_remove(GTK_GRID(self->parameters_grid), child);
        const char *headings[] = {_("Vary"), _("Lower"), _("Value"), _("Upper")};
        for (int c = 0; c < 4; c++)
            gtk_grid_attach(GTK_GRID(self->parameters_grid), caption(headings[c], c ? 1 : 0), c,
                            0, 1, 1);
    }
    int row = 1;
    for (int p = 0; m && p < m->nparameters; p++) {
        if (!mbs_model_parameter_is_free(m, p))
            continue;
        double v = m->parameters[p].value, half = v != 0.0 ? 0.5 * fabs(v) : 1.0;
        g_autofree char *value = esl_number_to_text(v, 6, NULL);
        if (keep) {
            gtk_label_set_text(GTK_LABEL(esl_optimize_dialog_get_control(self, p, "value")),
                               value);
            row++;
            continue;
        }
        GtkWidget *use = gtk_check_button_new_with_label(m->parameters[p].name);
        gtk_widget_set_tooltip_text(use, _("Vary this parameter"));
        GtkWidget *lower = bound_entry(v - half, _("The smallest value the optimiser may try"));
        GtkWidget *shown = gtk_label_new(value);
        gtk_label_set_xalign(GTK_LABEL(shown), 1);
        gtk_widget_add_css_class(shown, "numeric");
        gtk_widget_set_tooltip_text(shown, _("The model's value: where the optimisation starts"));
        GtkWidget *upper = bound_entry(v + half, _("The largest value the optimiser may try"));
        GtkWidget *cells[] = {use, lower, shown, upper};
        const char *which[] = {"use", "lower", "value", "upper"};
        for (int c = 0; c < 4; c++) {
            gtk_grid_attach(GTK_GRID(self->parameters_grid), cells[c], c, row, 1, 1);
            keep_control(self, p, which[c], cells[c]);
        }
        row++;
    }
    if (m && row == 1 && !keep)
        gtk_grid_attach(GTK_GRID(self->parameters_grid),
                        gtk_label_new(_("The model has no parameters of its own to vary.")), 0,
                        1, 4, 1);
}

/* ---- the iterates ---------------------------------------------------------------------------- */

static GtkWidget *cell(const char *text, gboolean heading)
{
    GtkWidget *label = gtk_label_new(text);
    gtk_label_set_xalign(GTK_LABEL(label), 1);
    gtk_widget_add_css_class(label, heading ? "caption-heading" : "numeric");
    return label;
}

/* An empty plot and a table with its heading, for the parameters varied. */
static void clear_iterates(EslOptimizeDialog *self, const char *objective)
{
    EslPlot *plot = ESL_PLOT(self->plot);
    esl_plot_clear(plot);
    g_autofree char *title = g_strdup_printf(_("%s per evaluation"), objective);
    esl_plot_set_title(plot, title);
    esl_plot_set_labels(plot, _("evaluation"), objective);
    GdkRGBA colour = {0.10, 0.45, 0.80, 1.0};
    esl_plot_add_series(plot, objective, &colour, FALSE);
    esl_plot_set_log_y(plot, TRUE);
    self->all_positive = TRUE;
    GtkWidget *child;
    while ((child = gtk_widget_get_first_child(self->table)))
        gtk_grid_remove(GTK_GRID(self->table), child);
    gtk_grid_attach(GTK_GRID(self->table), cell("#", TRUE), 0, 0, 1, 1);
    gtk_grid_attach(GTK_GRID(self->table), cell(objective, TRUE), 1, 0, 1, 1);
    gtk_grid_attach(GTK_GRID(self->table), cell("|∇ψ|", TRUE), 2, 0, 1, 1);
    for (int k = 0; k < self->nvaried; k++)
        gtk_grid_attach(GTK_GRID(self->table), cell(self->varied[k], TRUE), 3 + k, 0, 1, 1);
    self->evaluations_shown = 0;
    self->best_psi = HUGE_VAL;
    self->best_row = 0;
}

/* The row of the best point in bold, once the optimisation has ended. */
static void mark_best_row(EslOptimizeDialog *self)
{
    for (int c = 0; c < 3 + self->nvaried; c++) {
        GtkWidget *label = gtk_grid_get_child_at(GTK_GRID(self->table), c, self->best_row);
        if (label && self->best_row > 0)
            gtk_widget_add_css_class(label, "optimum");
    }
}

/* Scroll the table to its last row once it is laid out (a tick comes before the layout). */
static gboolean scroll_to_end(GtkWidget *widget, GdkFrameClock *clock, gpointer data)
{
    (void)clock, (void)data;
    GtkAdjustment *v = gtk_scrolled_window_get_vadjustment(GTK_SCROLLED_WINDOW(widget));
    gtk_adjustment_set_value(v, gtk_adjustment_get_upper(v) - gtk_adjustment_get_page_size(v));
    return G_SOURCE_REMOVE;
}

/* One evaluation (index, psi, its gradient and x: nvaried each) on the plot and in the table. */
static void show_evaluation(EslOptimizeDialog *self, int index, double psi,
                            const double *gradient, const double *x)
{
    EslPlot *plot = ESL_PLOT(self->plot);
    esl_plot_append(plot, 0, index, psi);
    if (self->all_positive && !(psi > 0)) {
        self->all_positive = FALSE; /* a log axis cannot show it */
        esl_plot_set_log_y(plot, FALSE);
    }
    double norm = 0.0;
    for (int k = 0; k < self->nvaried; k++)
        norm += gradient[k] * gradient[k];
    int row = ++self->evaluations_shown;
    if (psi < self->best_psi) {
        self->best_psi = psi;
        self->best_row = row;
    }
    g_autofree char *number = g_strdup_printf("%d", index);
    g_autofree char *value = esl_number_to_text(psi, 8, NULL);
    g_autofree char *slope = esl_number_to_text(sqrt(norm), 4, NULL);
    gtk_grid_attach(GTK_GRID(self->table), cell(number, FALSE), 0, row, 1, 1);
    gtk_grid_attach(GTK_GRID(self->table), cell(value, FALSE), 1, row, 1, 1);
    gtk_grid_attach(GTK_GRID(self->table), cell(slope, FALSE), 2, row, 1, 1);
    for (int k = 0; k < self->nvaried; k++) {
        g_autofree char *v = esl_number_to_text(x[k], 10, NULL);
        gtk_grid_attach(GTK_GRID(self->table), cell(v, FALSE), 3 + k, row, 1, 1);
    }
}

static void on_evaluations(EslOptimizationController *controller, GPtrArray *evaluations,
                           EslOptimizeDialog *self)
{
    (void)controller;
    const EslOptimizationEvaluation *last = NULL;
    for (guint i = 0; i < evaluations->len; i++) {
        last = evaluations->pdata[i];
        show_evaluation(self, last->index, last->psi, last->gradient, last->x);
    }
    gtk_widget_add_tick_callback(self->table_scroller, scroll_to_end, NULL, NULL);
    g_autofree char *psi = esl_number_to_text(last->psi, 6, NULL);
    g_autofree char *text = g_strdup_printf(_("Running: evaluation %d, ψ = %s…"), last->index,
                                            psi);
    show_status(self, FALSE, text);
}

/* How an optimisation of the n parameters named ended, for a status line. */
static char *result_text(const EslOptimizerResult *r, const char *const *names, int n)
{
    g_autofree char *best = r->evaluations > 0 ? point_text(names, n, r->x) : NULL;
    g_autofree char *psi = esl_number_to_text(r->psi, 8, NULL);
    const char *message = r->message ? r->message : "";
    switch (r->status) {
    case ESL_OPTIMIZER_CONVERGED:
        return g_strdup_printf(_("Converged after %d evaluations: ψ = %s at %s."),
                               r->evaluations, psi, best);
    case ESL_OPTIMIZER_EVALUATION_LIMIT:
        return g_strdup_printf(_("Stopped at the limit of %d evaluations: best ψ = %s at %s."),
                               r->evaluations, psi, best);
    case ESL_OPTIMIZER_STOPPED:
        return best ? g_strdup_printf(_("Stopped after %d evaluations: best ψ = %s at %s."),
                                      r->evaluations, psi, best)
                    : g_strdup(_("Stopped before the first evaluation finished."));
    case ESL_OPTIMIZER_FAILED:
        break;
    }
    return best ? g_strdup_printf(_("Failed: %s. Best before: ψ = %s at %s."), message, psi,
                                  best)
                : g_strdup_printf(_("Failed: %s."), message);
}

static void on_finished(EslOptimizationController *controller, int status, const char *message,
                        EslOptimizeDialog *self)
{
    keep_result(self, esl_optimization_controller_get_result(controller));
    g_free(self->result.message); /* with what could not be stored */
    self->result.message = g_strdup(message);
    g_autofree char *text =
        result_text(&self->result, (const char *const *)self->varied, self->nvaried);
    show_status(self, status == ESL_OPTIMIZER_FAILED, text);
    mark_best_row(self);
    update_state(self);
    g_signal_emit(self, signals[SIGNAL_FINISHED], 0, status);
}

/* ---- start, stop, apply ---------------------------------------------------------------------- */

/* A bound entry's number; FALSE with the status saying why. */
static gboolean read_bound(EslOptimizeDialog *self, int p, const char *which, double *value)
{
    GtkWidget *entry = esl_optimize_dialog_get_control(self, p, which);
    const char *text = gtk_editable_get_text(GTK_EDITABLE(entry));
    if (esl_number_from_text(text, value))
        return TRUE;
    const char *format = g_str_equal(which, "lower")
                             ? _("The lower bound of %s, “%s”, is not a number.")
                             : _("The upper bound of %s, “%s”, is not a number.");
    g_autofree char *message = g_strdup_printf(format, self->model->parameters[p].name, text);
    show_status(self, TRUE, message);
    return FALSE;
}

static void on_start_clicked(GtkButton *button, EslOptimizeDialog *self)
{
    (void)button;
    if (running(self) || !self->model)
        return;
    const MbsModel *m = self->model;
    g_autoptr(GArray) varied = g_array_new(FALSE, FALSE, sizeof(int));
    g_autoptr(GArray) lower = g_array_new(FALSE, FALSE, sizeof(double));
    g_autoptr(GArray) upper = g_array_new(FALSE, FALSE, sizeof(double));
    for (int p = 0; p < m->nparameters; p++) {
        GtkWidget *use = esl_optimize_dialog_get_control(self, p, "use");
        double lo, hi;
        if (!use || !gtk_check_button_get_active(GTK_CHECK_BUTTON(use)))
            continue;
        if (!read_bound(self, p, "lower", &lo) || !read_bound(self, p, "upper", &hi))
            return;
        g_array_append_val(varied, p);
        g_array_append_val(lower, lo);
        g_array_append_val(upper, hi);
    }
    double xtol;
    if (!read_xtol(self, &xtol))
        return;
    guint o = gtk_drop_down_get_selected(GTK_DROP_DOWN(self->objective));
    guint method = gtk_drop_down_get_selected(GTK_DROP_DOWN(self->method));
    EslOptimizerProblem problem = {
        .model = m, .formulation = self->formulation, .settings = &self->settings,
        .method = method < self->methods->len
                      ? (MbsSensitivityMethod)g_array_index(self->methods, int, method)
                      : MBS_SENSITIVITY_METHOD_COUNT,
        .threads = MAX(1, (int)g_get_num_processors() - 1), /* one core for the window */
        .objective = o < (guint)m->nobjectives ? (int)o : -1,
        .parameters = (const int *)(void *)varied->data, .nparameters = (int)varied->len,
        .lower = (const double *)(void *)lower->data, .upper = (const double *)(void *)upper->data,
        .algorithm = (EslOptimizerAlgorithm)gtk_drop_down_get_selected(
            GTK_DROP_DOWN(self->algorithm)),
        .max_evaluations =
            gtk_spin_button_get_value_as_int(GTK_SPIN_BUTTON(self->max_evaluations)),
        .xtol = xtol};
    /* the sensitivity chooser's own options, when they are this method's */
    const MbsSettings *options =
        self->has_method_options && problem.method < MBS_SENSITIVITY_METHOD_COUNT &&
                self->method_options.options_table ==
                    mbs_sensitivity_settings(self->formulation, problem.method)
            ? &self->method_options
            : NULL;
    EslOptimizationController *c = esl_optimization_controller_new(&problem, options);
    esl_optimization_controller_set_project(c, self->project_path, self->model_id, NULL);
    g_autoptr(GError) error = NULL;
    g_signal_connect(c, "evaluations", G_CALLBACK(on_evaluations), self);
    g_signal_connect(c, "finished", G_CALLBACK(on_finished), self);
    if (!esl_optimization_controller_start(c, &error)) {
        g_signal_handlers_disconnect_by_data(c, self);
        g_object_unref(c);
        g_autofree char *text = g_strdup_printf(_("Cannot start: %s"), error->message);
        show_status(self, TRUE, text);
        return;
    }
    if (self->controller)
        g_signal_handlers_disconnect_by_data(self->controller, self);
    g_clear_object(&self->controller);
    self->controller = c;
    g_strfreev(self->varied);
    self->varied = g_new0(char *, varied->len + 1);
    for (guint k = 0; k < varied->len; k++)
        self->varied[k] = g_strdup(m->parameters[g_array_index(varied, int, k)].name);
    self->nvaried = (int)varied->len;
    self->has_result = FALSE;
    self->applied = FALSE;
    self->stored_run = 0;
    clear_iterates(self, m->objectives[problem.objective].name);
    g_autofree char *text = g_strdup_printf(
        _("Running: minimising %s with %s, gradients by %s %s…"),
        m->objectives[problem.objective].name, esl_optimizer_algorithm_label(problem.algorithm),
        self->formulation, mbs_sensitivity_method_name(problem.method));
    show_status(self, FALSE, text);
    update_state(self);
}

static void on_stop_clicked(GtkButton *button, EslOptimizeDialog *self)
{
    (void)button;
    if (running(self)) {
        esl_optimization_controller_stop(self->controller);
        show_status(self, FALSE, _("Stopping…"));
    }
}

static void load(EslOptimizeDialog *self, const char *json, const char *origin);

/* The ticked parameters at the best point, as one edit of the text the optimisation ran on. */
static void on_apply_clicked(GtkButton *button, EslOptimizeDialog *self)
{
    (void)button;
    const EslOptimizerResult *r = finished_result(self);
    if (!r || r->evaluations == 0 || self->applied || !self->model)
        return;
    g_autoptr(GError) error = NULL;
    g_autofree char *json = esl_model_edit_set_parameters(
        self->base_json, self->origin, (const char *const *)self->varied, r->x, self->nvaried,
        &error);
    gboolean ok = FALSE;
    if (json)
        g_signal_emit(self, signals[SIGNAL_APPLY], 0, self->base_json, json, &error, &ok);
    if (!ok) {
        g_autofree char *text = g_strdup_printf(
            _("Not applied: %s"), error ? error->message : _("the window did not take it"));
        show_status(self, TRUE, text);
        return;
    }
    g_autofree char *point = point_text((const char *const *)self->varied, self->nvaried, r->x);
    self->applied = TRUE;
    load(self, json, self->origin);
    g_autofree char *text =
        g_strdup_printf(_("Applied to the model: %s (Undo takes it back)."), point);
    show_status(self, FALSE, text);
    update_state(self);
}

/* ---- public ---------------------------------------------------------------------------------- */

/* json (its model) becomes the dialog's; the rows and choices follow it. */
static void load(EslOptimizeDialog *self, const char *json, const char *origin)
{
    g_autoptr(GError) error = NULL;
    MbsModel *model = json ? esl_model_load_string(json, origin, NULL, 0, &error) : NULL;
    g_free(self->base_json);
    self->base_json = g_strdup(json);
    g_free(self->origin);
    self->origin = g_strdup(origin);
    mbs_model_free(self->model);
    self->model = model;
    fill_objectives(self);
    fill_parameters(self);
    g_autofree char *title = model ? g_strdup_printf(_("Optimise %s"), model->name)
                                   : g_strdup(_("Optimise Design"));
    gtk_window_set_title(GTK_WINDOW(self), title);
    if (!model)
        show_status(self, TRUE, error ? error->message : _("No model to optimise."));
    else if (model->nobjectives == 0)
        show_status(self, TRUE, _("The model declares no objectives: add one with Project ▸ "
                                  "Model Objectives…"));
}

gboolean esl_optimize_dialog_set_model(EslOptimizeDialog *self, const char *json,
                                       const char *origin, const char *formulation,
                                       const MbsSettings *settings,
                                       const MbsSettings *method_options)
{
    if (running(self))
        return self->model != NULL;
    g_free(self->formulation);
    self->formulation = g_strdup(formulation);
    self->settings = *settings;
    self->has_method_options = method_options != NULL;
    if (method_options)
        self->method_options = *method_options;
    fill_methods(self);
    if (g_strcmp0(json, self->base_json) != 0) { /* another model: its result does not apply */
        self->applied = TRUE;
        show_status(self, FALSE, "");
    }
    load(self, json, origin);
    g_autofree char *step = esl_number_to_text(settings->step, 6, NULL);
    g_autofree char *duration = esl_number_to_text(settings->duration, 6, NULL);
    g_autofree char *run = g_strdup_printf(
        _("Each evaluation runs %s with h = %s s for %s s (the run panel's settings)."),
        formulation, step, duration);
    gtk_label_set_text(GTK_LABEL(self->run_label), run);
    update_state(self);
    return self->model != NULL;
}

void esl_optimize_dialog_set_project(EslOptimizeDialog *self, const char *project_path,
                                     gint64 model_id)
{
    g_free(self->project_path);
    self->project_path = g_strdup(project_path);
    self->model_id = model_id;
}

/* The dialog's choices as a stored optimisation made them (those it can show). */
static void show_choices(EslOptimizeDialog *self, const EslOptimizationRun *run)
{
    int algorithm = esl_optimizer_algorithm_from_name(run->algorithm);
    if (algorithm >= 0)
        gtk_drop_down_set_selected(GTK_DROP_DOWN(self->algorithm), (guint)algorithm);
    int method = mbs_sensitivity_method_from_name(run->method);
    for (guint i = 0; i < self->methods->len; i++)
        if (g_array_index(self->methods, int, i) == method)
            gtk_drop_down_set_selected(GTK_DROP_DOWN(self->method), i);
    int objective = self->model ? mbs_model_find_objective(self->model, run->objective) : -1;
    if (objective >= 0)
        gtk_drop_down_set_selected(GTK_DROP_DOWN(self->objective), (guint)objective);
    gtk_spin_button_set_value(GTK_SPIN_BUTTON(self->max_evaluations), run->max_evaluations);
    show_xtol(self, run->xtol);
    for (int p = 0; self->model && p < self->model->nparameters; p++) {
        GtkWidget *use = esl_optimize_dialog_get_control(self, p, "use");
        int k = 0;
        while (k < run->nparameters && g_strcmp0(run->parameters[k], self->model->parameters[p].name))
            k++;
        if (!use)
            continue;
        gtk_check_button_set_active(GTK_CHECK_BUTTON(use), k < run->nparameters);
        const double *bounds[] = {run->lower, run->upper};
        const char *which[] = {"lower", "upper"};
        for (int b = 0; b < 2 && k < run->nparameters; b++) {
            g_autofree char *text = esl_number_to_text(bounds[b][k], 0, NULL);
            gtk_editable_set_text(GTK_EDITABLE(esl_optimize_dialog_get_control(self, p, which[b])),
                                  text);
        }
    }
}

/* A stored optimisation's result (message: its run's), its x and gradient zeros (nparameters
 * numbers) when it stored no best point. */
static EslOptimizerResult stored_result(const EslOptimizationRun *run, const char *message,
                                        double *zeros)
{
    int status = esl_optimizer_status_from_name(run->result);
    return (EslOptimizerResult){
        .status = status >= 0 ? (EslOptimizerStatus)status : ESL_OPTIMIZER_FAILED,
        .evaluations = run->x ? run->n : 0, .psi = run->psi,
        .x = run->x ? run->x : zeros, .gradient = run->gradient ? run->gradient : zeros,
        .message = status >= 0 ? (char *)message : (char *)_("interrupted")};
}

char *esl_optimize_dialog_stored_result_text(const EslOptimizationRun *run, const char *message)
{
    g_autofree double *zeros = g_new0(double, MAX(run->nparameters, 1));
    EslOptimizerResult r = stored_result(run, message, zeros);
    return result_text(&r, (const char *const *)run->parameters, run->nparameters);
}

void esl_optimize_dialog_show_stored(EslOptimizeDialog *self, gint64 run_id,
                                     const EslOptimizationRun *run, const char *message,
                                     const char *ran_on)
{
    if (running(self))
        return;
    self->stored_run = run_id;
    show_choices(self, run);
    g_strfreev(self->varied);
    self->varied = g_strdupv(run->parameters);
    self->nvaried = run->nparameters;
    clear_iterates(self, run->objective);
    for (int i = 0; i < run->n; i++)
        show_evaluation(self, i + 1, run->history_psi[i],
                        run->history_gradient + (gsize)i * run->nparameters,
                        run->history_x + (gsize)i * run->nparameters);
    gtk_widget_add_tick_callback(self->table_scroller, scroll_to_end, NULL, NULL);
    g_autofree double *zeros = g_new0(double, MAX(run->nparameters, 1));
    EslOptimizerResult r = stored_result(run, message, zeros);
    keep_result(self, &r);
    mark_best_row(self);
    /* its best point applies to the text it ran on */
    self->applied = g_strcmp0(ran_on, self->base_json) != 0;
    g_autofree char *result =
        result_text(&self->result, (const char *const *)self->varied, self->nvaried);
    g_autofree char *id = g_strdup_printf("#%" G_GINT64_FORMAT, run_id);
    g_autofree char *text =
        g_strdup_printf(_("Optimisation %s (stored): %s%s"), id, result,
                        self->applied && r.evaluations > 0
                            ? _(" It ran on another text of the model: nothing to apply.")
                            : "");
    show_status(self, r.status == ESL_OPTIMIZER_FAILED, text);
    update_state(self);
}

gint64 esl_optimize_dialog_get_stored_run(EslOptimizeDialog *self)
{
    return self->stored_run;
}

gboolean esl_optimize_dialog_is_running(EslOptimizeDialog *self)
{
    return running(self);
}

const EslOptimizerResult *esl_optimize_dialog_get_result(EslOptimizeDialog *self,
                                                         const char *const **parameters, int *n)
{
    if (parameters)
        *parameters = (const char *const *)self->varied;
    if (n)
        *n = self->nvaried;
    return finished_result(self);
}

const char *esl_optimize_dialog_get_base_json(EslOptimizeDialog *self)
{
    return self->base_json;
}

EslOptimizeDialog *esl_optimize_dialog_new(GtkWindow *parent)
{
    return g_object_new(ESL_TYPE_OPTIMIZE_DIALOG, "transient-for", parent, NULL);
}

/* ---- object ---------------------------------------------------------------------------------- */

static void esl_optimize_dialog_dispose(GObject *object)
{
    EslOptimizeDialog *self = ESL_OPTIMIZE_DIALOG(object);
    if (self->controller) { /* the model it reads goes with the dialog */
        g_signal_handlers_disconnect_by_data(self->controller, self);
        esl_optimization_controller_join(self->controller);
        g_clear_object(&self->controller);
    }
    gtk_widget_dispose_template(GTK_WIDGET(object), ESL_TYPE_OPTIMIZE_DIALOG);
    G_OBJECT_CLASS(esl_optimize_dialog_parent_class)->dispose(object);
}

static void esl_optimize_dialog_finalize(GObject *object)
{
    EslOptimizeDialog *self = ESL_OPTIMIZE_DIALOG(object);
    g_free(self->base_json);
    g_free(self->origin);
    g_free(self->formulation);
    g_strfreev(self->varied);
    g_free(self->project_path);
    esl_optimizer_result_clear(&self->result);
    mbs_model_free(self->model);
    if (self->row_names)
        g_ptr_array_unref(self->row_names);
    g_hash_table_unref(self->controls);
    g_array_unref(self->methods);
    G_OBJECT_CLASS(esl_optimize_dialog_parent_class)->finalize(object);
}

static void esl_optimize_dialog_class_init(EslOptimizeDialogClass *klass)
{
    GtkWidgetClass *widget_class = GTK_WIDGET_CLASS(klass);
    G_OBJECT_CLASS(klass)->dispose = esl_optimize_dialog_dispose;
    G_OBJECT_CLASS(klass)->finalize = esl_optimize_dialog_finalize;
    g_type_ensure(ESL_TYPE_PLOT);
    gtk_widget_class_set_template_from_resource(widget_class,
                                                "/org/eslabon/Eslabon/ui/esl-optimize-dialog.ui");
#define CHILD(name) gtk_widget_class_bind_template_child(widget_class, EslOptimizeDialog, name)
    CHILD(choices_grid);
    CHILD(run_label);
    CHILD(parameters_grid);
    CHILD(plot);
    CHILD(table);
    CHILD(table_scroller);
    CHILD(status_label);
    CHILD(start_button);
    CHILD(stop_button);
    CHILD(apply_button);
#undef CHILD
    gtk_widget_class_bind_template_callback(widget_class, on_start_clicked);
    gtk_widget_class_bind_template_callback(widget_class, on_stop_clicked);
    gtk_widget_class_bind_template_callback(widget_class, on_apply_clicked);
    gtk_widget_class_add_binding_action(widget_class, GDK_KEY_Escape, 0, "window.close", NULL);
    signals[SIGNAL_APPLY] =
        g_signal_new("apply", G_TYPE_FROM_CLASS(klass), G_SIGNAL_RUN_LAST, 0,
                     g_signal_accumulator_first_wins, NULL, NULL, G_TYPE_BOOLEAN, 3,
                     G_TYPE_STRING, G_TYPE_STRING, G_TYPE_POINTER);
    signals[SIGNAL_FINISHED] = g_signal_new("finished", G_TYPE_FROM_CLASS(klass),
                                            G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL, G_TYPE_NONE,
                                            1, G_TYPE_INT);
}

static void esl_optimize_dialog_init(EslOptimizeDialog *self)
{
    gtk_widget_init_template(GTK_WIDGET(self));
    self->controls = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    self->methods = g_array_new(FALSE, FALSE, sizeof(int));
    self->applied = TRUE; /* nothing to apply yet */
    make_choices(self);
    esl_plot_set_integer_x(ESL_PLOT(self->plot), TRUE);
    esl_plot_set_title(ESL_PLOT(self->plot), _("ψ per evaluation"));
    esl_plot_set_labels(ESL_PLOT(self->plot), _("evaluation"), "ψ");
    GtkWidget *note = gtk_label_new(_("Each evaluation is listed here as it comes: ψ, the norm of "
                                      "its gradient and the parameters."));
    gtk_label_set_wrap(GTK_LABEL(note), TRUE);
    gtk_label_set_xalign(GTK_LABEL(note), 0);
    gtk_widget_add_css_class(note, "dim-label");
    gtk_grid_attach(GTK_GRID(self->table), note, 0, 0, 1, 1);
    update_state(self);
}
