/* The window's variable plots: the variable browser (ui/esl-variable-browser.c), adding and
 * removing variable plots (ui/esl-plot-board.c). Plotting one variable is
 * esl_window_plot_variable (esl-window.c), shared with the model list's "Plot" menu. */
#include "esl-window-private.h"

#include <glib/gi18n.h>
#include <string.h>

#include "esl-variable-browser.h"
#include "esl-variables.h"

EslComparedRun *esl_compared_run_new(const char *name, int color, EslRunHistory *history)
{
    EslComparedRun *run = g_new0(EslComparedRun, 1);
    run->name = g_strdup(name);
    run->color = color;
    run->history = history;
    return run;
}

void esl_compared_run_free(EslComparedRun *run)
{
    g_free(run->name);
    esl_run_history_free(run->history);
    g_free(run);
}

/* A run shown, as esl_variable_series reads it. */
typedef struct {
    const char *name; /* NULL: the only run shown */
    int color;        /* of a run compared */
    int n;
    double *t, *poses, *violations;
} ShownRun;

static void shown_run_free(ShownRun *r)
{
    g_free(r->t);
    g_free(r->poses);
    g_free(r->violations);
    g_free(r);
}

/* The runs shown whose variables can be plotted: the history of the model's motion, or the
 * runs of this model compared (each named); none when neither is shown. */
static GPtrArray *shown_runs(EslWindow *self)
{
    GPtrArray *runs = g_ptr_array_new_with_free_func((GDestroyNotify)shown_run_free);
    const MbsModel *m = esl_window_model(self);
    if (!m)
        return runs;
    gsize nb = (gsize)12 * m->nbodies, nj = (gsize)m->njoints;
    if (self->history && self->history->len && self->history_matches_model) {
        ShownRun *r = g_new0(ShownRun, 1);
        r->n = (int)self->history->len;
        r->t = g_new(double, r->n);
        r->poses = g_new(double, r->n * nb + 1);
        r->violations = g_new(double, r->n * nj + 1);
        for (int k = 0; k < r->n; k++) {
            const EslRunSample *s = self->history->pdata[k];
            r->t[k] = s->monitors.time;
            memcpy(r->poses + k * nb, s->poses, sizeof(double) * nb);
            memcpy(r->violations + k * nj, s->violations, sizeof(double) * nj);
        }
        g_ptr_array_add(runs, r);
        return runs;
    }
    for (guint i = 0; self->compared && i < self->compared->len; i++) {
        const EslComparedRun *c = self->compared->pdata[i];
        const EslRunHistory *h = c->history;
        if (h->nbodies != m->nbodies || h->njoints != m->njoints || h->n == 0)
            continue;
        ShownRun *r = g_new0(ShownRun, 1);
        r->name = c->name;
        r->color = c->color;
        r->n = h->n;
        r->t = g_new(double, r->n);
        for (int k = 0; k < r->n; k++)
            r->t[k] = h->monitors[k].time;
        r->poses = g_memdup2(h->poses ? h->poses : r->t, h->poses ? sizeof(double) * r->n * nb : 1);
        r->violations = g_memdup2(h->violations ? h->violations : r->t,
                                  h->violations ? sizeof(double) * r->n * nj : 1);
        g_ptr_array_add(runs, r);
    }
    return runs;
}

/* Variable `name` of every run shown in variable plot `index`. */
static gboolean plot_in(EslWindow *self, int index, const char *name, GPtrArray *runs,
                        GError **error)
{
    EslVariable v;
    if (!esl_variable_parse(esl_window_model(self), name, &v, error))
        return FALSE;
    const MbsModel *m = esl_window_model(self);
    g_autofree char *label = esl_variable_name(m, &v);
    gboolean log_y =
        v.kind->element == ESL_VARIABLE_JOINT && v.kind->component == ESL_JOINT_VIOLATION;
    for (guint k = 0; k < runs->len; k++) {
        const ShownRun *r = runs->pdata[k];
        g_autofree double *y = g_new(double, r->n);
        esl_variable_series(m, &v, r->t, r->poses, r->violations, r->n, y);
        esl_plot_board_plot_variable(ESL_PLOT_BOARD(self->plot_board), index, label, log_y,
                                     r->name ? r->color : -1, r->name,
                                     r->t, y, r->n);
    }
    return TRUE;
}

gboolean esl_window_plot_variable(EslWindow *self, const char *name, GError **error)
{
    g_autoptr(GPtrArray) runs = shown_runs(self);
    if (runs->len == 0) {
        g_set_error_literal(error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                            _("no run of this model is shown"));
        return FALSE;
    }
    EslVariable v;
    if (!esl_variable_parse(esl_window_model(self), name, &v, error))
        return FALSE;
    EslPlotBoard *board = ESL_PLOT_BOARD(self->plot_board);
    if (esl_plot_board_get_current_plot(board) < 0)
        esl_plot_board_add_plot(board);
    return plot_in(self, esl_plot_board_get_current_plot(board), name, runs, error);
}

void esl_window_set_compared(EslWindow *self, GPtrArray *compared)
{
    g_clear_pointer(&self->compared, g_ptr_array_unref);
    self->compared = compared;
    /* the variables plotted stay, drawn for the runs now shown (a variable the model shown has
     * not is taken out) */
    EslPlotBoard *board = ESL_PLOT_BOARD(self->plot_board);
    g_autoptr(GPtrArray) runs = shown_runs(self);
    for (int p = 0; p < esl_plot_board_get_n_plots(board); p++) {
        int n = 0;
        const char *const *listed = esl_plot_board_get_variables(board, p, &n);
        g_auto(GStrv) names = g_new0(char *, n + 1);
        for (int i = 0; i < n; i++)
            names[i] = g_strdup(listed[i]);
        esl_plot_clear(esl_plot_board_get_plot(board, p));
        for (int i = 0; i < n; i++)
            if (!esl_window_model(self) || !plot_in(self, p, names[i], runs, NULL))
                esl_plot_board_forget_variable(board, p, names[i]);
    }
}

static void on_variable_toggled(EslVariableBrowser *browser, const char *name, gboolean checked,
                                EslWindow *self)
{
    (void)browser;
    EslPlotBoard *board = ESL_PLOT_BOARD(self->plot_board);
    g_autoptr(GError) error = NULL;
    if (!checked)
        esl_plot_board_remove_variable(board, name);
    else if (!esl_window_plot_variable(self, name, &error))
        /* the check goes back off with the board's "plots-changed" on the next change; say why */
        esl_window_show_status(self, TRUE, _("Cannot plot %s: %s"), name, error->message);
}

static void action_variable_browser(GtkWidget *widget, const char *action, GVariant *parameter)
{
    (void)action;
    (void)parameter;
    EslWindow *self = ESL_WINDOW(widget);
    if (!self->variable_browser) {
        EslVariableBrowser *browser =
            esl_variable_browser_new(GTK_WINDOW(self), ESL_PLOT_BOARD(self->plot_board));
        self->variable_browser = GTK_WIDGET(browser);
        g_object_add_weak_pointer(G_OBJECT(browser), (gpointer *)&self->variable_browser);
        g_signal_connect(browser, "variable-toggled", G_CALLBACK(on_variable_toggled), self);
        esl_variable_browser_set_model(browser, esl_window_model(self));
    }
    gtk_window_present(GTK_WINDOW(self->variable_browser));
}

static void action_add_plot(GtkWidget *widget, const char *action, GVariant *parameter)
{
    (void)action;
    (void)parameter;
    esl_plot_board_add_plot(ESL_PLOT_BOARD(ESL_WINDOW(widget)->plot_board));
}

static void action_remove_plot(GtkWidget *widget, const char *action, GVariant *parameter)
{
    (void)action;
    (void)parameter;
    EslPlotBoard *board = ESL_PLOT_BOARD(ESL_WINDOW(widget)->plot_board);
    int current = esl_plot_board_get_current_plot(board);
    if (current >= 0)
        esl_plot_board_remove_plot(board, current);
}

void esl_window_class_install_variable_actions(GtkWidgetClass *widget_class)
{
    gtk_widget_class_install_action(widget_class, "win.variable-browser", NULL,
                                    action_variable_browser);
    gtk_widget_class_install_action(widget_class, "win.add-plot", NULL, action_add_plot);
    gtk_widget_class_install_action(widget_class, "win.remove-plot", NULL, action_remove_plot);
}

void esl_window_variables_model_changed(EslWindow *self)
{
    if (self->variable_browser)
        esl_variable_browser_set_model(ESL_VARIABLE_BROWSER(self->variable_browser),
                                       esl_window_model(self));
    esl_window_update_plot_actions(self);
}

void esl_window_update_plot_actions(EslWindow *self)
{
    EslPlotBoard *board = ESL_PLOT_BOARD(self->plot_board);
    int n = esl_plot_board_get_n_plots(board);
    gtk_widget_action_set_enabled(GTK_WIDGET(self), "win.add-plot",
                                  n < ESL_PLOT_BOARD_MAX_VARIABLE_PLOTS);
    gtk_widget_action_set_enabled(GTK_WIDGET(self), "win.remove-plot", n > 0);
}
