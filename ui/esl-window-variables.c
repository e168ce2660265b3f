/* The window's variable plots: the variable browser (ui/esl-variable-browser.c), adding and
 * removing variable plots (ui/esl-plot-board.c). Plotting one variable is
 * esl_window_plot_variable (esl-window.c), shared with the model list's "Plot" menu. */
#include "esl-window-private.h"

#include <glib/gi18n.h>

#include "esl-variable-browser.h"

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
        esl_variable_browser_set_model(browser, self->model);
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
                                       self->model);
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
