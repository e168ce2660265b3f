/* EslSensitivityChooser: what a run differentiates (issue 10), in the run panel: the method
 * (none, or those the formulation offers: mbs_sensitivity_available, nothing re-listed here),
 * the model's objectives and its free parameters as check buttons (all checked by default), with
 * buttons to edit the objectives and to optimise (the window's actions win.edit-objectives and
 * win.optimize), and
 * for the methods that step d q / d rho the coordinates to plot (the first six by default) and
 * the model's points whose d r / d rho to plot and store (none by default), and
 * the method's own settings when it has a table of them (mbs_sensitivity_settings: matrix-r
 * direct and adjoint), one row per setting as in the run panel. */
#ifndef ESL_SENSITIVITY_CHOOSER_H
#define ESL_SENSITIVITY_CHOOSER_H

#include <gtk/gtk.h>

#include "mbs_sensitivity.h"

G_BEGIN_DECLS

#define ESL_TYPE_SENSITIVITY_CHOOSER (esl_sensitivity_chooser_get_type())
G_DECLARE_FINAL_TYPE(EslSensitivityChooser, esl_sensitivity_chooser, ESL, SENSITIVITY_CHOOSER,
                     GtkBox)

GtkWidget *esl_sensitivity_chooser_new(void);
/* The formulation whose methods are offered (the choice is kept when it has it). */
void esl_sensitivity_chooser_set_formulation(EslSensitivityChooser *self, const char *name);
/* The model whose objectives and parameters are offered (NULL: none); kept until the next. */
void esl_sensitivity_chooser_set_model(EslSensitivityChooser *self, const MbsModel *model);
/* Choose a method by name (NULL or "none": plain runs); FALSE when the formulation lacks it. */
gboolean esl_sensitivity_chooser_set_method(EslSensitivityChooser *self, const char *name);
/* The method chosen, or -1 for a plain run; objectives and parameters (int indices) are
 * filled with the checked ones, outputs (optional) with the checked coordinates, as indices
 * into esl_sensitivity_state_coordinates' list for the model and formulation. */
int esl_sensitivity_chooser_get(EslSensitivityChooser *self, GArray *objectives,
                                GArray *parameters, GArray *outputs);
/* The chosen method's own options (those of mbs_sensitivity_settings' table for the
 * formulation and method, as its rows show them) into options (mbs_settings_defaults first);
 * returns the table, or NULL when the method has none (options then holds none). */
const MbsSettingTable *esl_sensitivity_chooser_get_options(EslSensitivityChooser *self,
                                                           MbsSettings *options);
/* Show options (those of one of the methods' tables: options->options_table) in that table's
 * rows; FALSE when no method has that table. */
gboolean esl_sensitivity_chooser_show_options(EslSensitivityChooser *self,
                                              const MbsSettings *options);
/* The model's points checked (indices into its points) whose d r / d rho the run plots and
 * stores (esl-point-sensitivity.h), appended to points; for the methods that step d q / d rho. */
void esl_sensitivity_chooser_get_points(EslSensitivityChooser *self, GArray *points);
/* Check or uncheck the model's point (index into its points); FALSE when it is not offered
 * (points of the ground are not). */
gboolean esl_sensitivity_chooser_set_point(EslSensitivityChooser *self, int point,
                                           gboolean active);
/* Check or uncheck the output at index (esl_sensitivity_state_coordinates' order); FALSE when
 * there is none. */
gboolean esl_sensitivity_chooser_set_output(EslSensitivityChooser *self, int index,
                                            gboolean active);

G_END_DECLS

#endif
