/* Building a mechanism: the structural edits of a model file (add and remove bodies, joints,
 * forces, drivers, initial conditions, parameters; gravity), the undo/redo history of the
 * edits, and the check of an edited text (load, assemble, rank) that runs on a worker thread.
 *
 * The model file's JSON text is what is edited: it keeps the parameters, expressions and names
 * the user wrote, and saving it is writing it. An edit takes the text and returns the edited
 * text; it does not require the result to load (a mechanism under construction does not: a
 * body added before its joint is not connected to the ground). The check says what is wrong
 * and where.
 *
 * An edit is named by a kind and a GVariant dictionary (a{sv}) of its inputs, the same
 * dictionaries the window's actions take (win.add-body etc.):
 *
 *   body       name s; shape s: "bar" | "box" | "point-mass"; mass d or density d (bar:
 *              kg/m, box: kg/m^3; the mass is density x length or x volume); bar: ends ad
 *              (6: the two end points), end-names as (default P1, P2); box: centre ad, size
 *              ad (edges along X, Y, Z); point-mass: centre ad. The inertia is the shape's
 *              (slender rod, box, none).
 *   joint      name s; type s (revolute, prismatic, spherical, universal, rod); bodies as (2);
 *              the location: point s (a point of body1 or body2) or location ad (3); axis
 *              (revolute, prismatic), axis1 and axis2 (universal): s ("x", "y", "z", or a
 *              vector name) or ad (3); rod: ends ad (6) or points as (2), length d
 *              (optional). The location becomes a point of both bodies (one point: moving it
 *              moves it for both).
 *   force      type s (a force class's name: tsda, rsda, force, torque); name s (optional);
 *              where it acts, as the class's geometry needs: bodies as + points as / ends ad
 *              (line), joint s (joint), body s + point s / location ad (point), body s (body);
 *              then any of the class's fields (mbs_force.h) by name: d, or ad for a vector.
 *   driver     joint s; type s: "polynomial" (coefficients ad), "sine" (offset, amplitude,
 *              omega, phase d) or "none" (the joint is no longer driven).
 *   initial    joint s; coordinate i (default 0); position d and/or velocity d; neither:
 *              the condition is removed.
 *   parameter  name s; value d or s (an expression of earlier parameters).
 *   gravity    vector ad (3).
 *   remove     section s ("bodies", "joints", "forces", "parameters"); name s. Removing a
 *              body removes its joints and the forces on it; removing a joint removes its
 *              initial conditions, chosen degrees of freedom and the forces on it.
 *
 * A number of the file is set with esl_model_edit_set_number (esl-model-edit.h); a point shared
 * by the bodies of a joint moves for all of them there.
 *
 * GLib-level (json-glib, GIO for the worker), no GTK. */
#ifndef ESL_MODEL_BUILD_H
#define ESL_MODEL_BUILD_H

#include <gio/gio.h>

#include "mbs_formulation.h"
#include "mbs_model.h"

G_BEGIN_DECLS

/* The text of an empty model: a ground body and the default gravity. */
char *esl_model_build_empty(const char *name);

/* The text json after the edit kind with inputs spec (a{sv}), or NULL with error naming the
 * input that is wrong. */
char *esl_model_build_edit(const char *json, const char *kind, GVariant *spec, GError **error);

/* ---- undo / redo ----------------------------------------------------------------------------- */

typedef struct _EslModelHistory EslModelHistory;

/* A history whose present text is json (copied). */
EslModelHistory *esl_model_history_new(const char *json);
void esl_model_history_free(EslModelHistory *history);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(EslModelHistory, esl_model_history_free)
const char *esl_model_history_get_json(const EslModelHistory *history);
/* json (taken) becomes the present text; what was present is undone to with label. The redo
 * list is dropped. */
void esl_model_history_push(EslModelHistory *history, char *json, const char *label);
/* Label of the edit Undo / Redo would undo or redo, or NULL when there is none. */
const char *esl_model_history_undo_label(const EslModelHistory *history);
const char *esl_model_history_redo_label(const EslModelHistory *history);
/* Go back / forward by one edit; FALSE when there is none. */
gboolean esl_model_history_undo(EslModelHistory *history);
gboolean esl_model_history_redo(EslModelHistory *history);

/* ---- the check of a text ----------------------------------------------------------------------- */

typedef enum {
    ESL_CHECK_SECTION_NONE = -1,
    ESL_CHECK_SECTION_BODY,
    ESL_CHECK_SECTION_JOINT,
    ESL_CHECK_SECTION_FORCE,
    ESL_CHECK_SECTION_PARAMETER,
} EslCheckSection;

typedef struct {
    char *json;
    /* compiled and assembled; NULL when the text does not load or assemble */
    MbsModel *model;
    /* for drawing when model is NULL: the bodies, points, joints and forces read before the
     * problem (not compiled; NULL when the text cannot be read that far) */
    MbsModel *draft;
    double *poses;      /* model->nbodies * 12 once assembled (R row-major, p), else NULL */
    double *violations; /* model->njoints, else NULL */
    /* as `eslabon-cli info` prints them (the drawn configuration); -1 when unknown */
    int ncoords, nconstraints, rank, dof, redundant;
    char *error;             /* NULL when the model loads and assembles */
    EslCheckSection section; /* the element the error is about, when it names one */
    int index;
    double seconds; /* time the check took on the worker */
} EslModelCheck;

void esl_model_check_free(EslModelCheck *check);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(EslModelCheck, esl_model_check_free)

/* Load json (origin names it in messages), assemble it with the formulation and settings and
 * compute the rank of the constraints, on the calling thread. */
EslModelCheck *esl_model_check_run(const char *json, const char *origin, const char *formulation,
                                   const MbsSettings *settings);
/* The same on a worker thread (GTask); the result is taken with esl_model_check_finish. */
void esl_model_check_async(const char *json, const char *origin, const char *formulation,
                           const MbsSettings *settings, GCancellable *cancellable,
                           GAsyncReadyCallback callback, gpointer data);
EslModelCheck *esl_model_check_finish(GAsyncResult *result, GError **error);

/* ---- comparing models ---------------------------------------------------------------------------- */

/* Whether a and b are the same model, field by field (names, numbers, bindings with their
 * expressions, objectives and their terms, topology sizes); when not, *difference (if not NULL)
 * names the first field that differs. */
gboolean esl_model_equal(const MbsModel *a, const MbsModel *b, char **difference);

G_END_DECLS

#endif
