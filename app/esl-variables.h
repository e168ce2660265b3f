/* The variables a run's stored history can be plotted as: one table (esl_variable_kinds) for
 * the application's plots and their names. A variable is named "BODY:POINT:x" (a point's
 * position, velocity "vx" or acceleration "ax" component, global axes) or "JOINT:violation" (the
 * largest |residual| of the joint's constraints). Computed from what a project stores (body poses
 * and joint violations per sample, docs/cli.md § Stored histories): positions exactly, velocities
 * and accelerations as differences of the stored positions.
 *
 * GLib-only.
 */
#ifndef ESL_VARIABLES_H
#define ESL_VARIABLES_H

#include <glib.h>

#include "mbs_model.h"

G_BEGIN_DECLS

typedef enum {
    ESL_VARIABLE_POINT, /* of a model point: component 0-2 position, 3-5 velocity, 6-8 acceleration */
    ESL_VARIABLE_JOINT, /* of a joint: its violation */
} EslVariableElement;

typedef struct {
    const char *suffix;  /* after "ELEMENT:" in the name */
    EslVariableElement element;
    int component;
    const char *unit;
    const char *description; /* English, N_() marked */
} EslVariableKind;

extern const EslVariableKind esl_variable_kinds[];
extern const int esl_variable_kind_count;

typedef struct {
    const EslVariableKind *kind;
    int index; /* point or joint index in the model */
} EslVariable;

/* Parse a name; FALSE with error naming it when it is not a variable of the model. */
gboolean esl_variable_parse(const MbsModel *m, const char *name, EslVariable *out,
                            GError **error);
/* Its name, as parsed (free with g_free). */
char *esl_variable_name(const MbsModel *m, const EslVariable *v);
/* Its value at each of n stored samples (time n, poses n * nbodies * 12, violations n *
 * njoints) into y (n). */
void esl_variable_series(const MbsModel *m, const EslVariable *v, const double *time,
                         const double *poses, const double *violations, int n, double *y);

G_END_DECLS

#endif
