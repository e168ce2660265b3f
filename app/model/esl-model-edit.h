/* Editing the numbers of a model file: the compiled engine model is read-only, so an edit
 * changes one number of the model file's JSON text, rebuilds the model from the new text and
 * assembles it with a formulation. Either every step succeeds, or nothing changes and the error
 * says why (the loader's or the assembly's message).
 *
 * A field is addressed by a path into the file:
 *   bodies/B/mass                 mass of bodies[B]
 *   bodies/B/points/NAME/K        coordinate K (0 x, 1 y, 2 z) of point NAME of bodies[B];
 *                                 a point shared by the bodies of a joint (a joint located
 *                                 there, the other body's point written alike) is one point:
 *                                 it moves for every body, and the joint with it
 *   forces/F/KEY                  stiffness, damping, natural_length, preload, rest_angle
 *   forces/F/vector/K             component K of a constant force or torque
 *   joints/J/length               length of a rod joint
 *   initial/J/C/KEY               initial position or velocity of coordinate C of joints[J]
 *                                 (an entry of "initial" is added when the file has none)
 *   parameters/NAME               value of a parameter
 * B, F, J are indices of the model (equal to the file's array indices). An expression at that
 * place is replaced by the number.
 *
 * GLib-level (json-glib), no GTK. */
#ifndef ESL_MODEL_EDIT_H
#define ESL_MODEL_EDIT_H

#include <glib.h>

#include "mbs_formulation.h"
#include "mbs_model.h"

G_BEGIN_DECLS

typedef enum {
    ESL_ELEMENT_BODY,
    ESL_ELEMENT_JOINT,
    ESL_ELEMENT_FORCE,
    ESL_ELEMENT_PARAMETER,
} EslElementKind;

/* One editable number of an element. */
typedef struct {
    char *path;       /* see above */
    char *key;        /* "mass", "points", "stiffness", ..., "position", "velocity", "value" */
    char *sub;        /* point name for "points", else NULL */
    int component;    /* 0..2 for vectors and points, -1 for a scalar */
    int coordinate;   /* joint coordinate for "position"/"velocity", else -1 */
    double value;     /* current value, as evaluated */
    char *expression; /* the expression written in the file at that place, or NULL */
} EslModelField;

void esl_model_field_free(EslModelField *field);

/* The editable numbers of an element of m (loaded from json). A GPtrArray of EslModelField*
 * (owning; empty for the ground or a driven coordinate). */
GPtrArray *esl_model_edit_fields(const MbsModel *m, const char *json, EslElementKind kind,
                                 int index);

/* json with the number at path set to value (pretty-printed), or NULL with error when the path
 * does not name a number of the file. The model is not rebuilt. */
char *esl_model_edit_set_number(const char *json, const char *path, double value,
                                GError **error);

/* json with each parameter names[k] set to values[k] (written so that it reads back as the
 * same double), as one edit: the new text only when every name is a parameter of the file
 * and the loader takes the result (origin names the file in its messages); else NULL with
 * error and nothing changed. */
char *esl_model_edit_set_parameters(const char *json, const char *origin,
                                    const char *const *names, const double *values, int n,
                                    GError **error);

/* The result of a successful edit. */
typedef struct {
    char *json;         /* the edited model file */
    MbsModel *model;    /* compiled from it */
    double *poses;      /* model->nbodies * 12: assembled pose (R row-major, p) of each body */
    double *violations; /* model->njoints: constraint violation of each joint once assembled */
} EslModelEdit;

void esl_model_edit_free(EslModelEdit *edit);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(EslModelEdit, esl_model_edit_free)

/* Assemble model with the formulation (by name) and settings: *poses (nbodies * 12: R
 * row-major, p) and *violations (njoints) newly allocated; FALSE with error (origin names the
 * model) when the formulation cannot assemble it. */
gboolean esl_model_assemble(const MbsModel *model, const char *origin, const char *formulation,
                            const MbsSettings *settings, double **poses, double **violations,
                            GError **error);

/* Set the number at path, rebuild the model (origin names the file in messages) and assemble it
 * with the formulation (by name) and settings. NULL with error when any step fails. */
EslModelEdit *esl_model_edit_apply(const char *json, const char *origin, const char *path,
                                   double value, const char *formulation,
                                   const MbsSettings *settings, GError **error);

G_END_DECLS

#endif
