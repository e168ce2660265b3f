/* EslObjectiveEditor: a dialog that edits the objectives of the model file shown (its
 * "objectives": docs/model-format.md): it lists each objective with its terms, one row per
 * term with drop-downs for the part (integrand or final), the quantity, what it reads and the
 * measure, offering only what the model can evaluate (points of moving bodies for point
 * quantities, revolute and prismatic joints of the spanning tree for joint quantities, moving
 * bodies for angular velocities, components that the quantity has), and entries for the
 * weight and the reference; buttons add and remove objectives and terms.
 *
 * It edits a copy of the model's text through app/esl-objective-edit.h: each change is
 * rebuilt by the loader at once, and a change the loader refuses is shown with its message
 * and leaves the copy as it was. Apply hands the edited text to the window ("apply"), which
 * commits it as one model edit; nothing reaches the model before. */
#ifndef ESL_OBJECTIVE_EDITOR_H
#define ESL_OBJECTIVE_EDITOR_H

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define ESL_TYPE_OBJECTIVE_EDITOR (esl_objective_editor_get_type())
G_DECLARE_FINAL_TYPE(EslObjectiveEditor, esl_objective_editor, ESL, OBJECTIVE_EDITOR, GtkWindow)

/* A modal editor over parent. */
EslObjectiveEditor *esl_objective_editor_new(GtkWindow *parent);
/* Edit the objectives of the model file json (origin names it in messages); changes not
 * applied are dropped. FALSE, with the loader's message shown, when json does not load. */
gboolean esl_objective_editor_set_model(EslObjectiveEditor *self, const char *json,
                                        const char *origin);
/* The text as edited, the text it was given (or last applied), and the message of the last
 * change refused (NULL: none). */
const char *esl_objective_editor_get_json(EslObjectiveEditor *self);
const char *esl_objective_editor_get_base_json(EslObjectiveEditor *self);
const char *esl_objective_editor_get_error(EslObjectiveEditor *self);

/* The widgets a test drives (NULL when there is none):
 *   objective -1: "new-name" (entry), "add" (button), "apply", "revert" (buttons), "confirm"
 *   (the dialog closing with changes not applied asks, while it is shown);
 *   objective o, term -1: "name" (entry), "remove", "add-term" (buttons);
 *   objective o, term t (as the model lists them): "part", "quantity", "target", "measure"
 *   (drop-downs), "weight", "reference" (entries), "remove" (button).
 * Widgets are made again after every change (once the main loop runs). */
GtkWidget *esl_objective_editor_get_control(EslObjectiveEditor *self, int objective, int term,
                                            const char *which);

/* Signals:
 *   "apply" (const char *base_json, const char *json, gpointer GError **) -> gboolean: make
 *   json, edited from base_json, the model's text; FALSE with the error (shown in the editor)
 *   when the window cannot (a run goes on, the model changed meanwhile). */

G_END_DECLS

#endif
