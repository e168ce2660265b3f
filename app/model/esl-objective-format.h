/* The vocabulary of a model file's objectives (docs/model-format.md, "Objectives"): what a
 * quantity targets, the names of an objective's parts and of a term's measures. The loader
 * (esl-model-file.c) reads terms with it and the editor (esl-objective-edit.c) writes them, so
 * neither depends on the other for it. GLib-level, no GTK. */
#ifndef ESL_OBJECTIVE_FORMAT_H
#define ESL_OBJECTIVE_FORMAT_H

#include <glib.h>

#include "mbs_model.h"

G_BEGIN_DECLS

/* What a quantity reads. */
typedef enum {
    ESL_OBJECTIVE_TARGET_POINT, /* body and point: position, displacement, velocity, acceleration */
    ESL_OBJECTIVE_TARGET_JOINT, /* joint: joint_coordinate, joint_rate */
    ESL_OBJECTIVE_TARGET_BODY,  /* body: angular_velocity */
} EslObjectiveTarget;

EslObjectiveTarget esl_objective_target(MbsQuantityKind quantity);

/* "integrand" (final 0) or "final" (1): the lists of a model file's objective. */
const char *esl_objective_part_name(int final);

/* The measures of a quantity as model files name them, NULL-terminated: "squared_norm", then
 * "x", "y", "z" (vector quantities) or "value" (scalar ones). */
const char *const *esl_objective_measures(MbsQuantityKind quantity);
/* The measure named name of quantity; FALSE when the quantity has none of that name. */
gboolean esl_objective_measure_parse(MbsQuantityKind quantity, const char *name,
                                     MbsMeasure *measure, int *component);
/* The name of a term's measure. */
const char *esl_objective_measure_name(const MbsObjectiveTerm *term);

G_END_DECLS

#endif
