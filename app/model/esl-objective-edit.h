/* Editing the objectives of a model file (docs/model-format.md, "Objectives"): add, remove and
 * rename an objective; add and remove a term of its integrand or final value; set a term's
 * part, quantity, target, measure, weight and reference.
 *
 * As the structural edits (esl-model-build.h), an edit takes the model file's JSON text and
 * returns the edited text, so names, parameters and comments survive. Unlike them, the result
 * must load: the model is rebuilt from it with the loader, and either every step succeeds, or
 * nothing changes and the error is the loader's message (or names the input that is wrong).
 *
 * An edit is a kind and a GVariant dictionary (a{sv}) of its inputs:
 *
 *   add          name s; and its first term, with the term's keys below (an objective needs
 *                at least one term)
 *   remove       name s
 *   rename       name s; new-name s
 *   add-term     objective s; the term's keys
 *   remove-term  objective s; term i
 *   set-term     objective s; term i; any of the term's keys
 *
 * The term's keys: part s ("integrand", the default, or "final"); quantity s (a name of
 * mbs_quantity_name); its target as the quantity needs (esl_objective_target,
 * esl-objective-format.h): body s and
 * point s, or joint s, or body s; measure s (esl_objective_measures: "squared_norm", the
 * default, or a component); weight d (default 1); reference ad (1 or 3 numbers as the quantity
 * has; empty: none).
 *
 * A term is named by its index among the objective's terms as the model lists them: the
 * integrand's in file order, then the final value's (m->objective_terms[first_term + term]).
 * set-term with another part moves the term to the end of that list; with another quantity it
 * drops the keys the new quantity does not read (a joint for a point quantity, a point for an
 * angular velocity) and the reference, a value of the old quantity, unless one is given.
 *
 * GLib-level (json-glib), no GTK. */
#ifndef ESL_OBJECTIVE_EDIT_H
#define ESL_OBJECTIVE_EDIT_H

#include <glib.h>

#include "esl-objective-format.h"
#include "mbs_model.h"

G_BEGIN_DECLS

/* Whether a joint quantity of compiled model m can read joint j in every formulation: a
 * revolute or prismatic joint of the spanning tree (relative coordinates hold no coordinate of
 * a cut joint). */
gboolean esl_objective_joint_offered(const MbsModel *m, int joint);

/* A name no objective of m has: base1, base2, ... */
char *esl_objective_free_name(const MbsModel *m, const char *base);

/* json after the edit kind with inputs spec (a{sv}), or NULL with error: the input that is
 * wrong or the loader's message about the edited text (origin names it). On success *model
 * (when model is not NULL) receives the model compiled from the edited text. */
char *esl_objective_edit(const char *json, const char *origin, const char *kind, GVariant *spec,
                         MbsModel **model, GError **error);

G_END_DECLS

#endif
