/* Sensitivities of named points; see esl-point-sensitivity.h. */
#include "esl-point-sensitivity.h"

#include <gio/gio.h>

#include <float.h>
#include <math.h>
#include <string.h>

#include "mbs_kinematics.h"
#include "mbs_natural.h"
#include "mbs_topology.h"

struct _EslPointSensitivity {
    const MbsModel *model;
    MbsCoordinateKind kind;
    int npoints, nparameters, n;
    int *points;
    double *delta;    /* d_k */
    MbsModel **moved; /* the models rho_k + d_k, rho_k - d_k: 2 per parameter */
    /* relative coordinates: one kinematics workspace for every model (same topology) and a
     * row of d r / d z */
    MbsKinematics kin;
    gboolean kin_ready;
    double *row;
    double *moved_r; /* the points on rho + d, then on rho - d: 2 x 3 npoints */
    /* natural coordinates: each point as a linear map of q, on the model and the moved ones
     * (npoints per model, the model's first) */
    MbsNatLin *lin;
};

void esl_point_sensitivity_free(EslPointSensitivity *ps)
{
    if (!ps)
        return;
    for (int i = 0; ps->moved && i < 2 * ps->nparameters; i++)
        mbs_model_free(ps->moved[i]);
    g_free(ps->moved);
    if (ps->kin_ready)
        mbs_kinematics_free(&ps->kin);
    g_free(ps->points);
    g_free(ps->delta);
    g_free(ps->row);
    g_free(ps->moved_r);
    g_free(ps->lin);
    g_free(ps);
}

char *esl_point_name(const MbsModel *m, int point)
{
    return g_strdup_printf("%s:%s", m->bodies[m->points[point].body].name,
                           m->points[point].name);
}

static int coordinate_count(const MbsModel *m, MbsCoordinateKind kind)
{
    if (kind == MBS_COORDINATES_RELATIVE)
        return m->topo->nnodes;
    int moving = 0;
    for (int b = 0; b < m->nbodies; b++)
        moving += b != m->ground;
    return 12 * moving;
}

/* A moved model is usable when q means the same: same bodies, coordinates and points. */
static gboolean same_shape(const MbsModel *a, const MbsModel *b, MbsCoordinateKind kind)
{
    if (a->nbodies != b->nbodies || a->npoints != b->npoints || a->ground != b->ground ||
        a->topo->nnodes != b->topo->nnodes || coordinate_count(a, kind) != coordinate_count(b, kind))
        return FALSE;
    for (int i = 0; i < a->npoints; i++)
        if (a->points[i].body != b->points[i].body || strcmp(a->points[i].name, b->points[i].name))
            return FALSE;
    return TRUE;
}

/* The linear maps of the points on model m (natural coordinates). */
static gboolean point_maps(EslPointSensitivity *ps, const MbsModel *m, MbsNatLin *out,
                           GError **error)
{
    MbsError err = {0};
    MbsNatural *nat = mbs_natural_new(m, &err);
    if (!nat) {
        g_set_error(error, G_IO_ERROR, G_IO_ERROR_FAILED, "%s", err.message);
        return FALSE;
    }
    for (int i = 0; i < ps->npoints; i++) {
        const MbsPoint *P = &m->points[ps->points[i]];
        mbs_natural_point_lin(nat, P->body, P->pos, &out[i]);
    }
    mbs_natural_free(nat);
    return TRUE;
}

EslPointSensitivity *esl_point_sensitivity_new(const MbsModel *m, MbsCoordinateKind kind,
                                               const int *points, int npoints,
                                               const int *parameters, int nparameters,
                                               GError **error)
{
    g_return_val_if_fail(m && m->topo && npoints >= 0 && nparameters >= 0, NULL);
    g_autoptr(EslPointSensitivity) ps = g_new0(EslPointSensitivity, 1);
    ps->model = m;
    ps->kind = kind;
    ps->npoints = npoints;
    ps->nparameters = nparameters;
    ps->n = coordinate_count(m, kind);
    ps->points = g_memdup2(points, sizeof(int) * (gsize)MAX(npoints, 1));
    for (int i = 0; i < npoints; i++)
        if (points[i] < 0 || points[i] >= m->npoints) {
            g_set_error(error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                        "point %d is not one of model '%s'", points[i], m->name);
            return NULL;
        }
    ps->delta = g_new0(double, MAX(nparameters, 1));
    ps->moved_r = g_new0(double, 6 * (gsize)MAX(npoints, 1));
    ps->moved = g_new0(MbsModel *, 2 * MAX(nparameters, 1));
    for (int k = 0; k < nparameters; k++) {
        int pi = parameters[k];
        double rho = m->parameters[pi].value;
        volatile double up = rho + cbrt(DBL_EPSILON) * fmax(1.0, fabs(rho));
        ps->delta[k] = up - rho; /* exactly representable: the models see rho +- d */
        for (int s = 0; s < 2; s++) {
            MbsError err = {0};
            MbsModel *mk = mbs_model_with_parameter(m, pi, s ? rho - ps->delta[k] : up, &err);
            ps->moved[2 * k + s] = mk;
            if (!mk || !same_shape(m, mk, kind)) {
                g_set_error(error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                            "point sensitivities: parameter '%s' %s", m->parameters[pi].name,
                            mk ? "changes the model's bodies, points or coordinates"
                               : err.message);
                return NULL;
            }
        }
    }
    if (kind == MBS_COORDINATES_RELATIVE) {
        if (mbs_kinematics_init(&ps->kin, m)) {
            g_set_error(error, G_IO_ERROR, G_IO_ERROR_FAILED, "out of memory");
            return NULL;
        }
        ps->kin_ready = TRUE;
        ps->row = g_new0(double, MAX(ps->n, 1));
    } else {
        ps->lin = g_new0(MbsNatLin, (gsize)MAX(npoints, 1) * (1 + 2 * nparameters));
        for (int i = 0; i <= 2 * nparameters; i++)
            if (!point_maps(ps, i ? ps->moved[i - 1] : m, ps->lin + (gsize)i * npoints, error))
                return NULL;
    }
    return g_steal_pointer(&ps);
}

int esl_point_sensitivity_outputs(const EslPointSensitivity *ps)
{
    return 3 * ps->npoints;
}

/* Position of point i on model m (moved: index into ps->moved, -1 for the model) at q. */
static void position(EslPointSensitivity *ps, int moved, int i, const double *q, double r[3])
{
    const MbsModel *m = moved < 0 ? ps->model : ps->moved[moved];
    if (ps->kind == MBS_COORDINATES_RELATIVE) {
        const MbsPoint *P = &m->points[ps->points[i]];
        mbs_kin_point(m, &ps->kin, P->body, P->pos, r);
    } else {
        mbs_natlin_eval(&ps->lin[(gsize)(moved + 1) * ps->npoints + i], q, r);
    }
}

gboolean esl_point_sensitivity_eval(EslPointSensitivity *ps, int n, const double *q,
                                    const double *sq, double *dr, double *r)
{
    if (n != ps->n)
        return FALSE;
    const MbsModel *m = ps->model;
    int nout = 3 * ps->npoints;
    /* d r / d q times d q / d rho */
    if (ps->kind == MBS_COORDINATES_RELATIVE)
        mbs_kinematics_positions(m, &ps->kin, q);
    for (int i = 0; i < ps->npoints; i++) {
        double here[3];
        position(ps, -1, i, q, here);
        if (r)
            memcpy(r + 3 * i, here, sizeof here);
        for (int a = 0; a < 3; a++) {
            if (ps->kind == MBS_COORDINATES_RELATIVE) {
                double e[3] = {a == 0, a == 1, a == 2};
                mbs_kin_point_velocity_row(m, &ps->kin, m->points[ps->points[i]].body, here, e,
                                           ps->row, 1);
            }
            for (int k = 0; k < ps->nparameters; k++) {
                const double *column = sq + (gsize)n * k;
                double v = 0.0;
                if (ps->kind == MBS_COORDINATES_RELATIVE) {
                    for (int j = 0; j < n; j++)
                        v += ps->row[j] * column[j];
                } else {
                    double rate[3];
                    mbs_natlin_rate(&ps->lin[i], column, rate);
                    v = rate[a];
                }
                dr[(gsize)nout * k + 3 * i + a] = v;
            }
        }
    }
    /* the explicit part: the points on the moved models at the same q */
    for (int k = 0; k < ps->nparameters; k++) {
        for (int s = 0; s < 2; s++) {
            if (ps->kind == MBS_COORDINATES_RELATIVE)
                mbs_kinematics_positions(ps->moved[2 * k + s], &ps->kin, q);
            for (int i = 0; i < ps->npoints; i++)
                position(ps, 2 * k + s, i, q, ps->moved_r + (gsize)s * nout + 3 * i);
        }
        for (int j = 0; j < nout; j++)
            dr[(gsize)nout * k + j] +=
                (ps->moved_r[j] - ps->moved_r[nout + j]) / (2.0 * ps->delta[k]);
    }
    return TRUE;
}
