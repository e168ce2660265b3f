/* EslModelEditor: the Build page of the sidebar. It adds bodies (bar, box, point mass),
 * joints, forces (a form per force class, made from the fields the class publishes), drivers,
 * initial conditions, parameters and gravity, removes the element selected in the model list,
 * undoes and redoes; it shows the degrees of freedom and redundant constraints of the model as
 * checked, or why it does not load. It only presents: every button activates a window action
 * (win.add-body etc., with the a{sv} of app/esl-model-build.h) and the window does the edit. */
#ifndef ESL_MODEL_EDITOR_H
#define ESL_MODEL_EDITOR_H

#include <gtk/gtk.h>

#include "esl-model-build.h"

G_BEGIN_DECLS

#define ESL_TYPE_MODEL_EDITOR (esl_model_editor_get_type())
G_DECLARE_FINAL_TYPE(EslModelEditor, esl_model_editor, ESL, MODEL_EDITOR, GtkWidget)

/* The model whose bodies and joints the forms offer (borrowed until the next call; NULL:
 * none). */
void esl_model_editor_set_model(EslModelEditor *self, const MbsModel *model);
/* The check of the text: under way, or its result (NULL: no model). */
void esl_model_editor_set_check(EslModelEditor *self, gboolean checking,
                                const EslModelCheck *check);
/* The edits Undo and Redo would undo and redo (NULL: none). */
void esl_model_editor_set_history(EslModelEditor *self, const char *undo_label,
                                  const char *redo_label);
/* A body (or joint) picked in the 3D view fills the form's picker of bodies (the first, then the
 * second of a pair) or of joints; FALSE when the form has none. */
gboolean esl_model_editor_pick(EslModelEditor *self, gboolean body, int index);
/* The text shown as the model's state ("1 degree of freedom, 0 redundant constraints", the
 * error, "Checking…"). */
const char *esl_model_editor_get_status(EslModelEditor *self);

G_END_DECLS

#endif
