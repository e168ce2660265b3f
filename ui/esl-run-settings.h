/* EslRunSettings: the settings of the next run: the formulation, the common settings (step,
 * duration, assembly tolerance) and the selected formulation's own, one row per setting of its
 * table (engine/mbs_settings.h: nothing here names a setting), shown when the setting applies
 * to the model and to the options shown. A list setting (matrix-r's independent coordinates)
 * is chosen among those of the model set with esl_run_settings_set_model: automatic, the model
 * file's, or checked here. */
#ifndef ESL_RUN_SETTINGS_H
#define ESL_RUN_SETTINGS_H

#include <gtk/gtk.h>

#include "esl-sensitivity-chooser.h"
#include "mbs_formulation.h"

G_BEGIN_DECLS

#define ESL_TYPE_RUN_SETTINGS (esl_run_settings_get_type())
G_DECLARE_FINAL_TYPE(EslRunSettings, esl_run_settings, ESL, RUN_SETTINGS, GtkBox)

GtkWidget *esl_run_settings_new(void);

/* The selected formulation (NULL when the engine has none). */
const MbsFormulationClass *esl_run_settings_get_formulation(EslRunSettings *self);
/* FALSE when the registry has no formulation of that name. */
gboolean esl_run_settings_set_formulation(EslRunSettings *self, const char *name);
/* Defaults of the engine, overwritten by what the panel shows. */
void esl_run_settings_read(EslRunSettings *self, MbsSettings *settings);
/* Show these settings (e.g. those of a stored run); the formulation too when it exists. */
void esl_run_settings_show(EslRunSettings *self, const char *formulation,
                           const MbsSettings *settings);
void esl_run_settings_set_duration(EslRunSettings *self, double duration);
/* The model whose coordinates can be chosen as independent (NULL: none), which
 * esl_run_settings_check checks the settings against: the panel keeps the pointer until the
 * next call, so call it again whenever the model is replaced. */
void esl_run_settings_set_model(EslRunSettings *self, const MbsModel *model);
/* FALSE, with a message, when the settings shown cannot be run: none or too many independent
 * coordinates checked, or the formulation's check_settings refuses them for the model (the
 * number chosen is not the model's degrees of freedom). */
gboolean esl_run_settings_check(EslRunSettings *self, GError **error);
/* What the next run differentiates (a plain run unless a method is chosen). */
EslSensitivityChooser *esl_run_settings_get_sensitivity(EslRunSettings *self);

G_END_DECLS

#endif
