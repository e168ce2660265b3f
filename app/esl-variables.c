/* Plottable variables of a stored history; see esl-variables.h. */
#include "esl-variables.h"

#include <glib/gi18n.h>
#include <string.h>

#include "esl-points.h"

const EslVariableKind esl_variable_kinds[] = {
    {"x", ESL_VARIABLE_POINT, 0, "m", N_("position x")},
    {"y", ESL_VARIABLE_POINT, 1, "m", N_("position y")},
    {"z", ESL_VARIABLE_POINT, 2, "m", N_("position z")},
    {"vx", ESL_VARIABLE_POINT, 3, "m/s", N_("velocity x")},
    {"vy", ESL_VARIABLE_POINT, 4, "m/s", N_("velocity y")},
    {"vz", ESL_VARIABLE_POINT, 5, "m/s", N_("velocity z")},
    {"ax", ESL_VARIABLE_POINT, 6, "m/s²", N_("acceleration x")},
    {"ay", ESL_VARIABLE_POINT, 7, "m/s²", N_("acceleration y")},
    {"az", ESL_VARIABLE_POINT, 8, "m/s²", N_("acceleration z")},
    {"violation", ESL_VARIABLE_JOINT, 0, "", N_("constraint violation")},
};
const int esl_variable_kind_count = G_N_ELEMENTS(esl_variable_kinds);

gboolean esl_variable_parse(const MbsModel *m, const char *name, EslVariable *out,
                            GError **error)
{
    const char *colon = name ? strrchr(name, ':') : NULL;
    for (int k = 0; colon && k < esl_variable_kind_count; k++) {
        const EslVariableKind *kind = &esl_variable_kinds[k];
        if (strcmp(colon + 1, kind->suffix) != 0)
            continue;
        g_autofree char *element = g_strndup(name, (gsize)(colon - name));
        int index = -1;
        if (kind->element == ESL_VARIABLE_JOINT) {
            index = mbs_model_find_joint(m, element);
        } else {
            g_autoptr(GArray) points = esl_points_parse(m, element, NULL);
            index = points && points->len == 1 ? g_array_index(points, int, 0) : -1;
        }
        if (index >= 0) {
            *out = (EslVariable){kind, index};
            return TRUE;
        }
    }
    g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                "'%s' is not a variable of this model (BODY:POINT:x|y|z|vx|vy|vz|ax|ay|az or "
                "JOINT:violation)",
                name ? name : "");
    return FALSE;
}

char *esl_variable_name(const MbsModel *m, const EslVariable *v)
{
    if (v->kind->element == ESL_VARIABLE_JOINT)
        return g_strdup_printf("%s:%s", m->joints[v->index].name, v->kind->suffix);
    const MbsPoint *p = &m->points[v->index];
    return g_strdup_printf("%s:%s:%s", m->bodies[p->body].name, p->name, v->kind->suffix);
}

void esl_variable_series(const MbsModel *m, const EslVariable *v, const double *time,
                         const double *poses, const double *violations, int n, double *y)
{
    if (v->kind->element == ESL_VARIABLE_JOINT) {
        for (int k = 0; k < n; k++)
            y[k] = violations ? violations[(size_t)k * m->njoints + v->index] : 0.0;
        return;
    }
    g_autofree double *xyz = g_new0(double, 3 * (size_t)n + 1);
    g_autofree double *vel = g_new0(double, 3 * (size_t)n + 1);
    esl_points_history(m, time, poses, n, &v->index, 1, xyz, vel);
    int axis = v->kind->component % 3;
    if (v->kind->component < 3) {
        for (int k = 0; k < n; k++)
            y[k] = xyz[3 * k + axis];
        return;
    }
    if (v->kind->component < 6) {
        for (int k = 0; k < n; k++)
            y[k] = vel[3 * k + axis];
        return;
    }
    /* acceleration: the same differences, of the velocities */
    for (int k = 0; k < n; k++) {
        int a = k > 0 ? k - 1 : 0, b = k < n - 1 ? k + 1 : n - 1;
        double dt = time[b] - time[a];
        y[k] = dt > 0 ? (vel[3 * b + axis] - vel[3 * a + axis]) / dt : 0.0;
    }
}
