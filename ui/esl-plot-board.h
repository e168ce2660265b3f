/* EslPlotBoard: the live plots of the workbench (energy, energy drift, constraint violation,
 * time per step by phase, integrator step size, Newton iterations), for one run or for several
 * runs compared; or a sensitivity run's running gradients and gradient table; or a stored
 * optimisation's evaluations. */
#ifndef ESL_PLOT_BOARD_H
#define ESL_PLOT_BOARD_H

#include <gtk/gtk.h>

#include "esl-plot.h"
#include "esl-project.h" /* EslInternalStep, EslOptimizationRun */
#include "esl-sensitivity-controller.h" /* EslSensitivityRow */
#include "mbs_formulation.h"

G_BEGIN_DECLS

#define ESL_TYPE_PLOT_BOARD (esl_plot_board_get_type())
G_DECLARE_FINAL_TYPE(EslPlotBoard, esl_plot_board, ESL, PLOT_BOARD, GtkWidget)

/* Remove every series. */
void esl_plot_board_clear(EslPlotBoard *self);
/* The series of one run (cleared first), filled by esl_plot_board_append. */
void esl_plot_board_prepare_single(EslPlotBoard *self);
/* Append one sample of the single run (its first sample is the energy of reference). */
void esl_plot_board_append(EslPlotBoard *self, const MbsMonitors *m);
/* Add run number k of a comparison as one series per plot (its colour from k). */
void esl_plot_board_add_run(EslPlotBoard *self, int k, const char *name,
                            const MbsMonitors *monitors, int n);
/* The step-size history of the single run (error-controlled integrators; after
 * esl_plot_board_prepare_single): one point per internal step, at the time it ended. */
void esl_plot_board_set_step_sizes(EslPlotBoard *self, const EslInternalStep *steps, int n);
/* Title the step-size plot "Fixed step h = step" and draw step over [0, duration]
 * (formulations without internal steps). */
void esl_plot_board_set_fixed_step(EslPlotBoard *self, double step, double duration);
/* A stored sensitivity run (replacing the monitor plots until the next clear or prepare_single):
 * per objective a plot of the running gradient, one series per parameter, the gradient table,
 * and when the run stored them the plots of the coordinates given (as begin_sensitivity's).
 * Shows at most ESL_PLOT_BOARD_MAX_OBJECTIVE_PLOTS objectives' plots (the table has all). */
#define ESL_PLOT_BOARD_MAX_OBJECTIVE_PLOTS 5
void esl_plot_board_show_sensitivity(EslPlotBoard *self, const EslSensitivityRun *run,
                                     const int *coordinates, const char *const *names,
                                     int ncoordinates);
/* A sensitivity run going on (esl-sensitivity-controller.h): the running-gradient plots, and
 * per parameter (as many as fit) a plot of the sensitivities of the outputs given, with their
 * names (none: no such plots): an index i >= 0 is a coordinate (a column of
 * EslSensitivityRow.state_sensitivity), i < 0 the component -1 - i of the points'
 * (EslSensitivityRow.point_sensitivity: x, y, z of each point); rows are appended as they
 * come; end adds the gradient table of the finished run. */
void esl_plot_board_begin_sensitivity(EslPlotBoard *self, const char *const *objectives, int no,
                                      const char *const *parameters, int np,
                                      const int *coordinates, const char *const *names,
                                      int ncoordinates);
void esl_plot_board_append_sensitivity(EslPlotBoard *self, const EslSensitivityRow *row);
void esl_plot_board_end_sensitivity(EslPlotBoard *self, const EslSensitivityRun *run);
/* The agreement of stored sensitivity runs of the same objectives and parameters (e.g. one
 * direct, one adjoint, one fd): their gradients side by side with the largest relative
 * difference (esl_gradient_table_set_runs), in place of the plots; FALSE when they differ. */
gboolean esl_plot_board_show_agreement(EslPlotBoard *self, EslSensitivityRun *const *runs,
                                       int n);
/* A stored optimisation (replacing the monitor plots until the next clear or prepare_single):
 * psi per evaluation with the lowest so far, the norm of its gradient and the parameters (the
 * path the optimiser took), one point per evaluation. */
void esl_plot_board_show_optimization(EslPlotBoard *self, const EslOptimizationRun *run);
/* Its plots (for tests): "psi", "gradient" or "parameters"; NULL when none is shown. */
EslPlot *esl_plot_board_get_optimization_plot(EslPlotBoard *self, const char *which);
/* Points plotted in the d q / d rho plots (for tests). */
int esl_plot_board_state_sensitivity_points(EslPlotBoard *self);
/* Points plotted in the sensitivity plots (for tests; 0 when none are shown). */
int esl_plot_board_sensitivity_points(EslPlotBoard *self);
/* The gradient table shown with the sensitivity plots, or NULL. */
GtkWidget *esl_plot_board_gradient_table(EslPlotBoard *self);
/* Presentation: show only the plot of this name ("energy", "drift", "constraints", "timing",
 * "step-size", "newton", "variables"), drawn zoom times larger; NULL: every plot at its normal
 * size. While a sensitivity run's or an optimisation's plots are shown they are presented
 * instead (an optimisation's three plots, a sensitivity run's running gradients without its
 * d q / d rho plots and table, drawn zoom times larger; the monitor plots stay hidden), and the
 * named plot when they go. The board keeps presenting as its plots change until called with
 * NULL. FALSE for an unknown name (nothing changes). */
gboolean esl_plot_board_present(EslPlotBoard *self, const char *name, double zoom);
/* Plot a variable of the run shown (n samples) in the current variable plot (the first is made
 * when there is none), with the other variables added to it since the last clear; log_y for
 * the first decides the scale. A name already there is not added twice. Returns its series. */
int esl_plot_board_add_variable(EslPlotBoard *self, const char *name, gboolean log_y,
                                const double *t, const double *y, int n);
/* Plot a variable of one of the runs shown in variable plot index: run -1 the only run (a
 * colour per variable, the series named as the variable), run k >= 0 the kth of several (a
 * colour per run, the series named "name · run_name"). The plot lists the variable from then on:
 * esl_plot_board_clear empties the plots for the next runs shown and keeps what they list.
 * Returns the series. */
int esl_plot_board_plot_variable(EslPlotBoard *self, int index, const char *name,
                                 gboolean log_y, int run, const char *run_name, const double *t,
                                 const double *y, int n);
/* Take a variable off plot index's list (its series stay until the next clear). */
void esl_plot_board_forget_variable(EslPlotBoard *self, int index, const char *name);
/* The variables plot index lists, n of them (owned by the board). */
const char *const *esl_plot_board_get_variables(EslPlotBoard *self, int index, int *n);

/* Several variable plots ("Variables", "Variables 2"...), each with its own variables, linked
 * in time with the monitor plots; pressing in one makes it the current one. Their series are
 * cleared with the rest; the plots and the variables they list stay. "plots-changed" is emitted when plots or their variables change. */
/* Three: they share the second row with no third row, which would not fit at 1280x720. */
#define ESL_PLOT_BOARD_MAX_VARIABLE_PLOTS 3
/* A new empty variable plot, made current: its index, or -1 when there are as many as allowed. */
int esl_plot_board_add_plot(EslPlotBoard *self);
void esl_plot_board_remove_plot(EslPlotBoard *self, int index);
int esl_plot_board_get_n_plots(EslPlotBoard *self);
EslPlot *esl_plot_board_get_plot(EslPlotBoard *self, int index);
/* -1 when there is no variable plot. */
int esl_plot_board_get_current_plot(EslPlotBoard *self);
void esl_plot_board_set_current_plot(EslPlotBoard *self, int index);
/* Whether the current variable plot shows that variable; remove it from there. */
gboolean esl_plot_board_has_variable(EslPlotBoard *self, const char *name);
void esl_plot_board_remove_variable(EslPlotBoard *self, const char *name);
/* The plot maximised (a double click: it takes the board's area), or NULL. */
EslPlot *esl_plot_board_get_maximized(EslPlotBoard *self);
/* The legend above the plots naming the runs compared ("" when one run is shown). */
const char *esl_plot_board_get_run_legend(EslPlotBoard *self);
/* Time cursor of every plot (NAN: none). */
void esl_plot_board_set_cursor(EslPlotBoard *self, double t);

/* Signals:
 *   "cursor-moved" (double t) when the user moves the time cursor of a plot;
 *   "plots-changed" when variable plots are added, removed, made current or change variables. */

G_END_DECLS

#endif
