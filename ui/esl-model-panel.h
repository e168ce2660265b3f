/* EslModelPanel: the model list (bodies, joints, forces, parameters, filtered by a search
 * field) and the inspector of the selected element, whose numbers can be edited. Elements are
 * named as in the 3D view's picking (ESL_SOURCE_BODY/JOINT/FORCE of esl-scene.h, and
 * ESL_MODEL_PANEL_PARAMETER) with their index. */
#ifndef ESL_MODEL_PANEL_H
#define ESL_MODEL_PANEL_H

#include <gtk/gtk.h>

#include "mbs_model.h"

G_BEGIN_DECLS

#define ESL_MODEL_PANEL_PARAMETER 100 /* source of the parameters' rows (not drawn) */

#define ESL_TYPE_MODEL_PANEL (esl_model_panel_get_type())
G_DECLARE_FINAL_TYPE(EslModelPanel, esl_model_panel, ESL, MODEL_PANEL, GtkWidget)

/* Show a model (borrowed until the next call; NULL: none) and its file's text, with nothing
 * selected. */
void esl_model_panel_set_model(EslModelPanel *self, const MbsModel *model, const char *json);
/* Select an element (none when source < 0) and show the panel's page of its notebook. */
void esl_model_panel_select(EslModelPanel *self, int source, int index);
/* The selected element; FALSE (and -1, -1) when none. */
gboolean esl_model_panel_get_selected(EslModelPanel *self, int *source, int *index);
/* Joint violations of the state shown (n: the model's joints; NULL: none), copied: a selected
 * joint's inspector shows its violation now. */
void esl_model_panel_set_violations(EslModelPanel *self, const double *violations, int n);
/* Whether the inspector's numbers can be edited (not while a run goes on). */
void esl_model_panel_set_editable(EslModelPanel *self, gboolean editable);
/* Show message under the inspector's field of path (an edit refused after the handler
 * returned, by a check on a worker); FALSE when no such field is shown. */
gboolean esl_model_panel_show_field_error(EslModelPanel *self, const char *path,
                                          const char *message);

/* Signals:
 *   "element-selected" (int source, int index): the selection changed (-1, -1: none).
 *   gboolean "edit-field" (const char *path, const char *label, double value, GError **error):
 *     a number was entered in the inspector for the field at path (app/esl-model-edit.h);
 *     the handler applies it and returns TRUE, or FALSE with error, shown under the field. */

G_END_DECLS

#endif
