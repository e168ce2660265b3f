/* Shared by eslabon-cli sensitivity and optimize. */
#ifndef ESL_CLI_SENSITIVITY_H
#define ESL_CLI_SENSITIVITY_H

#include <glib.h>

#include "esl-cli-settings.h"
#include "esl-project.h"
#include "mbs_model.h"

/* Objectives and parameters by comma-separated names (NULL: every objective; every parameter
 * with a value of its own, mbs_model_parameter_is_free), as int indices appended to the
 * arrays. FALSE with error naming an unknown one, or when none is left. */
gboolean esl_sensitivity_select(const MbsModel *m, const char *objectives,
                                const char *parameters, GArray *objective_index,
                                GArray *parameter_index, GError **error);

/* Load the model at path, choose objectives and parameters (as above), apply the setting
 * flags for the formulation into s and check the run: the model, or NULL with a message on
 * stderr ("eslabon-cli COMMAND: ...") and the exit status in *status. */
MbsModel *esl_sensitivity_load(const char *command, const char *path, const char *formulation,
                               const char *objectives, const char *parameters,
                               const EslSettingFlags *flags, MbsSettings *s,
                               GArray *objective_index, GArray *parameter_index, int *status);

/* matrix-r's direct and adjoint sensitivities differentiate the trapezoidal rule only: when
 * its integrator is another and was not asked for by --integrator, the trapezoidal rule is
 * chosen in s and TRUE returned (the command prints esl_sensitivity_integrator_note). */
gboolean esl_sensitivity_choose_integrator(const char *formulation, int method,
                                           const EslSettingFlags *flags, MbsSettings *s);
#define esl_sensitivity_integrator_note                                                          \
    "note: matrix-r's integrator set to trapezoidal, the rule its sensitivities differentiate "  \
    "(paper 001 sec 4)"

/* --project FILE: the project at path (created if missing; a file that is not an intact
 * Eslabón project is refused and left as it was) with the text of the model file model_path
 * (the model m) stored, its id in *model_id; NULL with error. */
/* On stderr, when opening the project had to mark runs unreadable (a migration that could not
 * carry them whole). */
void esl_cli_report_unreadable(EslProject *project, const char *command);

EslProject *esl_cli_open_project(const char *path, const char *model_path, const MbsModel *m,
                                 gint64 *model_id, GError **error);

#endif
