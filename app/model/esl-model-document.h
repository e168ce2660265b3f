/* EslModelDocument: the model open for editing, as a document (what a text editor's buffer is to
 * its window): the model file's text as edited, the model compiled from it, the file it was read
 * from or saved to, the undo history, whether it was modified since, and the check of every edit
 * (load, assemble, count the degrees of freedom) on a worker thread. GLib-only (app/ never
 * includes ui/); the window presents it (ui/esl-window-assemble.c).
 *
 * Relative paths in the text (a wheel's "tyre_file") are read from the model file's folder: the
 * document loads its text with the file's path as origin, never with its base name alone.
 *
 * Signals:
 *   "checked" (gpointer EslModelCheck *check, gboolean installed) after a check of the text as
 *     it is now has ended and the document took its result (installed: the check was of an
 *     edit, its model or draft is the document's now, still readable in check); the old
 *     model is freed only after the handlers ran (a view may still point at it until then). */
#ifndef ESL_MODEL_DOCUMENT_H
#define ESL_MODEL_DOCUMENT_H

#include <gio/gio.h>

#include "esl-model-build.h"
#include "mbs_formulation.h"
#include "mbs_model.h"

G_BEGIN_DECLS

#define ESL_TYPE_MODEL_DOCUMENT (esl_model_document_get_type())
G_DECLARE_FINAL_TYPE(EslModelDocument, esl_model_document, ESL, MODEL_DOCUMENT, GObject)

EslModelDocument *esl_model_document_new(void);

/* ---- the document ------------------------------------------------------------------------- */

/* The model file path_or_name (a path, or the name of a bundled model) read and compiled: the
 * model, its text and the file's path, for esl_model_document_open (a window first lets go of
 * the model it shows); FALSE with the loader's error. */
gboolean esl_model_document_read_file(const char *path_or_name, MbsModel **model, char **json,
                                      char **path, GError **error);
/* The same, opened in doc; on failure nothing changes. */
gboolean esl_model_document_load(EslModelDocument *doc, const char *path_or_name,
                                 GError **error);
/* model (built from json, read from path) becomes the document's, unmodified, with a new undo
 * history; takes the three. A check under way is cancelled. */
void esl_model_document_open(EslModelDocument *doc, MbsModel *model, char *json, char *path);
/* The last model that loaded and assembled (NULL: none open); while the text does not load it
 * stays for the run settings, and get_draft is what can be drawn. */
MbsModel *esl_model_document_get_model(EslModelDocument *doc);
/* What the text as it is now draws as when it does not load (NULL: it loads). */
const MbsModel *esl_model_document_get_draft(EslModelDocument *doc);
/* The draft, else the model: what the window shows. */
const MbsModel *esl_model_document_get_shown(EslModelDocument *doc);
const char *esl_model_document_get_json(EslModelDocument *doc);
const char *esl_model_document_get_path(EslModelDocument *doc);
/* What the loader is told the text is (the file's path; "model.json" before any): messages name
 * it and relative paths start from its folder. */
const char *esl_model_document_get_origin(EslModelDocument *doc);
gboolean esl_model_document_is_modified(EslModelDocument *doc);
/* Write the text to path, which becomes the document's file, unmodified. */
gboolean esl_model_document_save(EslModelDocument *doc, const char *path, GError **error);

/* ---- edits -------------------------------------------------------------------------------- */

/* Whether json may replace the text: a number the loader refuses (a negative mass) is refused
 * with the loader's message; a model under construction (not yet connected, or whose text
 * already fails its check) takes anything, its check says what is missing. */
gboolean esl_model_document_validate(EslModelDocument *doc, const char *json, GError **error);
/* The same on a worker thread (loading the 225-body lattice takes 20-50 ms). */
void esl_model_document_validate_async(EslModelDocument *doc, const char *json,
                                       GAsyncReadyCallback callback, gpointer data);
gboolean esl_model_document_validate_finish(GAsyncResult *result, GError **error);
/* json (taken) becomes the text after an edit named label (undoable); the document is modified.
 * The caller then checks it (esl_model_document_check with installs TRUE). */
void esl_model_document_commit(EslModelDocument *doc, char *json, const char *label);
/* Undo / redo one edit: the text changes as commit's; FALSE when there is none. */
gboolean esl_model_document_undo(EslModelDocument *doc);
gboolean esl_model_document_redo(EslModelDocument *doc);
/* The label of the edit undo / redo would undo or redo, or NULL. */
const char *esl_model_document_undo_label(EslModelDocument *doc);
const char *esl_model_document_redo_label(EslModelDocument *doc);

/* ---- the check ---------------------------------------------------------------------------- */

/* Check the text as it is now with the formulation and settings on a worker ("checked" when
 * done; a check under way is cancelled). installs: its model replaces the document's (an edit);
 * FALSE: the text as opened, only counted. */
void esl_model_document_check(EslModelDocument *doc, const char *formulation,
                              const MbsSettings *settings, gboolean installs);
/* Cancel the check under way (the window goes away). */
void esl_model_document_cancel_check(EslModelDocument *doc);
gboolean esl_model_document_is_checking(EslModelDocument *doc);
/* A check of an edit is under way: the edited model is not there yet. */
gboolean esl_model_document_is_installing(EslModelDocument *doc);
/* Why the text does not load or assemble (NULL: it does, or it was not checked yet). */
const char *esl_model_document_get_check_error(EslModelDocument *doc);
/* Degrees of freedom and redundant constraints of the text last checked (-1: unknown). */
void esl_model_document_get_mobility(EslModelDocument *doc, int *dof, int *redundant);

G_END_DECLS

#endif
