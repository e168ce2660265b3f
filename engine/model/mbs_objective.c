#include "mbs_objective.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mbs_kinematics.h"
#include "mbs_linalg.h"
#include "mbs_natural.h"
#include "mbs_topology.h"

static const char *const quantity_names[MBS_QUANTITY_COUNT] = {
    "position", "displacement", "velocity", "acceleration",
    "joint_coordinate", "joint_rate", "angular_velocity",
};

const char *mbs_quantity_name(MbsQuantityKind kind)
{
    return (unsigned)kind < MBS_QUANTITY_COUNT ? quantity_names[kind] : "unknown";
}

MbsQuantityKind mbs_quantity_from_name(const char *name)
{
    for (int k = 0; name && k < MBS_QUANTITY_COUNT; ++k)
        if (!strcmp(name, quantity_names[k]))
            return (MbsQuantityKind)k;
    return MBS_QUANTITY_COUNT;
}

int mbs_quantity_size(MbsQuantityKind kind)
{
    return kind == MBS_QUANTITY_JOINT_COORDINATE || kind == MBS_QUANTITY_JOINT_RATE ? 1 : 3;
}

static int reads_point(MbsQuantityKind kind)
{
    return kind <= MBS_QUANTITY_ACCELERATION;
}

static int reads_joint(MbsQuantityKind kind)
{
    return kind == MBS_QUANTITY_JOINT_COORDINATE || kind == MBS_QUANTITY_JOINT_RATE;
}

double mbs_objective_term_value(const MbsObjectiveTerm *t, const double y[3], double dy[3])
{
    int size = mbs_quantity_size(t->quantity);
    double v = 0.0;
    for (int k = 0; k < 3; ++k) {
        double d = 0.0, yk = k < size ? y[k] - t->reference[k] : 0.0;
        if (k < size && t->measure == MBS_MEASURE_SQUARED_NORM) {
            v += t->weight * yk * yk;
            d = 2.0 * t->weight * yk;
        } else if (k == t->component && t->measure == MBS_MEASURE_COMPONENT) {
            v += t->weight * yk;
            d = t->weight;
        } else if (k == t->component && t->measure == MBS_MEASURE_SQUARED_COMPONENT) {
            v += t->weight * yk * yk;
            d = 2.0 * t->weight * yk;
        }
        if (dy)
            dy[k] = d;
    }
    return v;
}

/* ---- building ------------------------------------------------------------------------ */

static int grow_array(void **array, int count, int *cap, size_t elem)
{
    if (count < *cap)
        return 0;
    int ncap = *cap ? 2 * *cap : 4;
    void *p = realloc(*array, (size_t)ncap * elem);
    if (!p)
        return -1;
    *array = p;
    *cap = ncap;
    return 0;
}

int mbs_model_find_objective(const MbsModel *m, const char *name)
{
    for (int i = 0; name && i < m->nobjectives; ++i)
        if (!strcmp(m->objectives[i].name, name))
            return i;
    return -1;
}

int mbs_model_add_objective(MbsModel *m, const char *name, MbsError *err)
{
    if (!name || !*name || strlen(name) >= MBS_NAME_MAX)
        return mbs_error_set(err, MBS_FATAL, "objective: the name must have 1 to %d characters",
                             MBS_NAME_MAX - 1), -1;
    if (mbs_model_find_objective(m, name) >= 0)
        return mbs_error_set(err, MBS_FATAL, "objective '%s' is defined twice", name), -1;
    if (grow_array((void **)&m->objectives, m->nobjectives, &m->cap_objectives,
                   sizeof *m->objectives))
        return mbs_error_set(err, MBS_FATAL, "out of memory"), -1;
    MbsObjective *o = &m->objectives[m->nobjectives];
    memset(o, 0, sizeof *o);
    snprintf(o->name, sizeof o->name, "%s", name);
    o->first_term = m->nobjective_terms;
    return m->nobjectives++;
}

int mbs_model_add_objective_term(MbsModel *m, const MbsObjectiveTerm *term, MbsError *err)
{
    if (m->nobjectives == 0)
        return mbs_error_set(err, MBS_FATAL, "objective term without an objective"), -1;
    MbsObjective *o = &m->objectives[m->nobjectives - 1];
    const MbsObjectiveTerm *t = term;
    if ((unsigned)t->quantity >= MBS_QUANTITY_COUNT)
        return mbs_error_set(err, MBS_FATAL, "objective '%s': unknown quantity", o->name), -1;
    if (reads_point(t->quantity) && (t->point < 0 || t->point >= m->npoints))
        return mbs_error_set(err, MBS_FATAL, "objective '%s': %s needs a point of a body",
                             o->name, mbs_quantity_name(t->quantity)), -1;
    if (t->quantity == MBS_QUANTITY_ANGULAR_VELOCITY && (t->body < 0 || t->body >= m->nbodies))
        return mbs_error_set(err, MBS_FATAL, "objective '%s': angular_velocity needs a body",
                             o->name), -1;
    if (reads_joint(t->quantity)) {
        if (t->joint < 0 || t->joint >= m->njoints)
            return mbs_error_set(err, MBS_FATAL, "objective '%s': %s needs a joint", o->name,
                                 mbs_quantity_name(t->quantity)), -1;
        MbsJointType type = m->joints[t->joint].type;
        if (type != MBS_JOINT_REVOLUTE && type != MBS_JOINT_PRISMATIC)
            return mbs_error_set(err, MBS_FATAL, "objective '%s': joint '%s' is %s; joint "
                                 "quantities read revolute or prismatic joints", o->name,
                                 m->joints[t->joint].name, mbs_joint_type_name(type)), -1;
    }
    if ((t->measure == MBS_MEASURE_COMPONENT || t->measure == MBS_MEASURE_SQUARED_COMPONENT) &&
        (t->component < 0 || t->component >= mbs_quantity_size(t->quantity)))
        return mbs_error_set(err, MBS_FATAL, "objective '%s': %s has no component %d", o->name,
                             mbs_quantity_name(t->quantity), t->component), -1;
    if (!isfinite(t->weight) || !isfinite(t->reference[0]) || !isfinite(t->reference[1]) ||
        !isfinite(t->reference[2]))
        return mbs_error_set(err, MBS_FATAL, "objective '%s': the weight or reference is not finite",
                             o->name), -1;
    if (grow_array((void **)&m->objective_terms, m->nobjective_terms, &m->cap_objective_terms,
                   sizeof *m->objective_terms))
        return mbs_error_set(err, MBS_FATAL, "out of memory"), -1;
    MbsObjectiveTerm *n = &m->objective_terms[m->nobjective_terms];
    *n = *t;
    if (reads_point(t->quantity))
        n->body = m->points[t->point].body;
    o->nterms++;
    return m->nobjective_terms++;
}

/* ---- evaluation ---------------------------------------------------------------------- */

struct MbsObjectiveEval {
    const MbsModel *m;
    MbsCoordinateKind kind;
    int n, nobj, nterms;
    MbsKinematics kin;   /* relative coordinates */
    MbsNatural *nat;     /* natural coordinates */
    double *y;           /* 3 per term: the quantity it reads */
    double *y0;          /* 3 per term: positions at t = 0 (displacements) */
    double *angle_ref;   /* per term: branch of a revolute angle (natural coordinates) */
    double *grad;        /* n: scratch */
    double *x;           /* 3n: perturbed state */
    double *yp, *ym;     /* 3 per term: perturbed quantities */
};

void mbs_objective_eval_free(MbsObjectiveEval *e)
{
    if (!e)
        return;
    if (e->kin.R)
        mbs_kinematics_free(&e->kin);
    mbs_natural_free(e->nat);
    free(e->y);
    free(e->y0);
    free(e->angle_ref);
    free(e->grad);
    free(e->x);
    free(e->yp);
    free(e->ym);
    free(e);
}

MbsObjectiveEval *mbs_objective_eval_new(const MbsModel *m, MbsCoordinateKind kind, MbsError *err)
{
    MbsObjectiveEval *e = calloc(1, sizeof *e);
    if (!e)
        return mbs_error_set(err, MBS_FATAL, "out of memory"), NULL;
    e->m = m;
    e->kind = kind;
    e->nobj = m->nobjectives;
    e->nterms = m->nobjective_terms;
    int fail = 0;
    if (kind == MBS_COORDINATES_RELATIVE) {
        e->n = m->topo->nnodes;
        fail = mbs_kinematics_init(&e->kin, m) != 0;
        for (int i = 0; !fail && i < e->nterms; ++i) {
            const MbsObjectiveTerm *t = &m->objective_terms[i];
            if (reads_joint(t->quantity) && m->topo->joint_node[t->joint] < 0) {
                mbs_error_set(err, MBS_FATAL, "objective term %d: joint '%s' is a cut joint, "
                              "whose coordinate relative coordinates do not hold (give it an "
                              "initial condition to place it in the spanning tree)", i,
                              m->joints[t->joint].name);
                mbs_objective_eval_free(e);
                return NULL;
            }
        }
    } else {
        e->nat = mbs_natural_new(m, err);
        if (!e->nat) {
            mbs_objective_eval_free(e);
            return NULL;
        }
        e->n = e->nat->n;
    }
    size_t nt = (size_t)(e->nterms > 0 ? e->nterms : 1), n = (size_t)(e->n > 0 ? e->n : 1);
    e->y = calloc(3 * nt, sizeof(double));
    e->y0 = calloc(3 * nt, sizeof(double));
    e->yp = calloc(3 * nt, sizeof(double));
    e->ym = calloc(3 * nt, sizeof(double));
    e->angle_ref = calloc(nt, sizeof(double));
    e->grad = calloc(n, sizeof(double));
    e->x = calloc(3 * n, sizeof(double));
    if (fail || !e->y || !e->y0 || !e->yp || !e->ym || !e->angle_ref || !e->grad || !e->x) {
        mbs_objective_eval_free(e);
        return mbs_error_set(err, MBS_FATAL, "out of memory"), NULL;
    }
    return e;
}

int mbs_objective_eval_ncoords(const MbsObjectiveEval *e)
{
    return e->n;
}

/* The quantities of every term (relative coordinates) from kinematics k holding the positions
 * of z and the velocities of zd; point accelerations add sum_j (b_j zdd_j) at the point to the
 * bias of zd (mbs_kin_point_acceleration). */
static void quantities_from_kinematics(const MbsObjectiveEval *e, const MbsKinematics *k,
                                       const double *z, const double *zd, const double *zdd,
                                       double *y)
{
    const MbsModel *m = e->m;
    for (int i = 0; i < e->nterms; ++i) {
        const MbsObjectiveTerm *t = &m->objective_terms[i];
        double *yi = &y[3 * i], r[3];
        if (reads_point(t->quantity))
            mbs_kin_point(m, k, t->body, m->points[t->point].pos, r);
        switch (t->quantity) {
        case MBS_QUANTITY_POSITION:
            memcpy(yi, r, sizeof r);
            break;
        case MBS_QUANTITY_DISPLACEMENT:
            mbs_v3_sub(r, &e->y0[3 * i], yi);
            break;
        case MBS_QUANTITY_VELOCITY:
            mbs_kin_point_motion(m, k, t->body, r, yi, NULL);
            break;
        case MBS_QUANTITY_ACCELERATION:
            mbs_kin_point_acceleration(m, k, t->body, r, zdd, yi);
            break;
        case MBS_QUANTITY_JOINT_COORDINATE:
            yi[0] = z[m->topo->joint_node[t->joint]];
            break;
        case MBS_QUANTITY_JOINT_RATE:
            yi[0] = zd[m->topo->joint_node[t->joint]];
            break;
        case MBS_QUANTITY_ANGULAR_VELOCITY:
            mbs_kin_body_omega(m, k, t->body, yi);
            break;
        default:
            break;
        }
    }
}

/* The same in natural coordinates: points are linear in q (so velocities and accelerations
 * are the same maps of qd, qdd); omega = (u x ud + v x vd + w x wd) / 2 for the body's
 * orthonormal triad. */
static void quantities_natural(MbsObjectiveEval *e, const double *q, const double *qd,
                               const double *qdd, double *y)
{
    const MbsModel *m = e->m;
    for (int i = 0; i < e->nterms; ++i) {
        const MbsObjectiveTerm *t = &m->objective_terms[i];
        double *yi = &y[3 * i];
        MbsNatLin L;
        if (reads_point(t->quantity))
            mbs_natural_point_lin(e->nat, t->body, m->points[t->point].pos, &L);
        switch (t->quantity) {
        case MBS_QUANTITY_POSITION:
            mbs_natlin_eval(&L, q, yi);
            break;
        case MBS_QUANTITY_DISPLACEMENT:
            mbs_natlin_eval(&L, q, yi);
            mbs_v3_sub(yi, &e->y0[3 * i], yi);
            break;
        case MBS_QUANTITY_VELOCITY:
            mbs_natlin_rate(&L, qd, yi);
            break;
        case MBS_QUANTITY_ACCELERATION:
            mbs_natlin_rate(&L, qdd, yi);
            break;
        case MBS_QUANTITY_JOINT_COORDINATE:
            yi[0] = mbs_natural_joint_coordinate(e->nat, q, t->joint, e->angle_ref[i], NULL);
            break;
        case MBS_QUANTITY_JOINT_RATE: {
            mbs_natural_joint_coordinate(e->nat, q, t->joint, e->angle_ref[i], e->grad);
            double v = 0.0;
            for (int j = 0; j < e->n; ++j)
                v += e->grad[j] * qd[j];
            yi[0] = v;
            break;
        }
        case MBS_QUANTITY_ANGULAR_VELOCITY: {
            int off = e->nat->body_off[t->body];
            yi[0] = yi[1] = yi[2] = 0.0;
            for (int k = 1; off >= 0 && k <= 3; ++k) {
                double c[3];
                mbs_v3_cross(&q[off + 3 * k], &qd[off + 3 * k], c);
                mbs_v3_axpy(0.5, c, yi);
            }
            break;
        }
        default:
            break;
        }
    }
}

static void quantities(MbsObjectiveEval *e, const double *q, const double *qd, const double *qdd,
                       double *y)
{
    if (e->kind == MBS_COORDINATES_RELATIVE) {
        mbs_kinematics_positions(e->m, &e->kin, q);
        mbs_kinematics_velocities(e->m, &e->kin, qd);
        quantities_from_kinematics(e, &e->kin, q, qd, qdd, y);
    } else
        quantities_natural(e, q, qd, qdd, y);
}

void mbs_objective_eval_set_initial(MbsObjectiveEval *e, const double *q, const double *qd,
                                    const double *qdd)
{
    memset(e->y0, 0, 3 * (size_t)e->nterms * sizeof(double));
    for (int i = 0; i < e->nterms; ++i)
        e->angle_ref[i] = 0.0;
    quantities(e, q, qd, qdd, e->y);
    for (int i = 0; i < e->nterms; ++i) {
        const MbsObjectiveTerm *t = &e->m->objective_terms[i];
        if (t->quantity == MBS_QUANTITY_DISPLACEMENT)
            memcpy(&e->y0[3 * i], &e->y[3 * i], 3 * sizeof(double));
        if (t->quantity == MBS_QUANTITY_JOINT_COORDINATE)
            e->angle_ref[i] = e->y[3 * i];
    }
}

static void values_from(const MbsObjectiveEval *e, const double *y, double *g, double *w)
{
    const MbsModel *m = e->m;
    for (int o = 0; o < e->nobj; ++o) {
        const MbsObjective *ob = &m->objectives[o];
        double sg = 0.0, sw = 0.0;
        for (int i = ob->first_term; i < ob->first_term + ob->nterms; ++i) {
            double v = mbs_objective_term_value(&m->objective_terms[i], &y[3 * i], NULL);
            if (m->objective_terms[i].final)
                sw += v;
            else
                sg += v;
        }
        if (g)
            g[o] = sg;
        if (w)
            w[o] = sw;
    }
}

void mbs_objective_eval_values(MbsObjectiveEval *e, const double *q, const double *qd,
                               const double *qdd, double *g, double *w)
{
    quantities(e, q, qd, qdd, e->y);
    /* follow revolute angles across +-pi */
    for (int i = 0; i < e->nterms; ++i)
        if (e->m->objective_terms[i].quantity == MBS_QUANTITY_JOINT_COORDINATE)
            e->angle_ref[i] = e->y[3 * i];
    values_from(e, e->y, g, w);
}

void mbs_objective_eval_values_kinematics(MbsObjectiveEval *e, const MbsKinematics *k,
                                          const double *z, const double *zd, const double *zdd,
                                          double *g, double *w)
{
    if (e->kind != MBS_COORDINATES_RELATIVE) {
        mbs_objective_eval_values(e, z, zd, zdd, g, w);
        return;
    }
    quantities_from_kinematics(e, k, z, zd, zdd, e->y);
    values_from(e, e->y, g, w);
}

/* out[o * n + j] += dg_o/dy . dy/dx_j for every objective, from quantities y at the state and
 * yp, ym at x_j +- h (central difference of the quantities, exact dg/dy). */
static void add_column(const MbsObjectiveEval *e, int j, double h, double *g_out, double *w_out,
                       int only_displacement)
{
    const MbsModel *m = e->m;
    for (int o = 0; o < e->nobj; ++o) {
        const MbsObjective *ob = &m->objectives[o];
        double dg = 0.0, dw = 0.0;
        for (int i = ob->first_term; i < ob->first_term + ob->nterms; ++i) {
            const MbsObjectiveTerm *t = &m->objective_terms[i];
            if (only_displacement && t->quantity != MBS_QUANTITY_DISPLACEMENT)
                continue;
            double dy[3], d = 0.0;
            mbs_objective_term_value(t, &e->y[3 * i], dy);
            for (int k = 0; k < 3; ++k)
                d += dy[k] * (e->yp[3 * i + k] - e->ym[3 * i + k]) / (2.0 * h);
            if (t->final)
                dw += d;
            else
                dg += d;
        }
        if (only_displacement) { /* y = r - r0: dy/dr0 = -dy/dr */
            dg = -dg;
            dw = -dw;
        }
        if (g_out)
            g_out[(size_t)o * e->n + j] = dg;
        if (w_out)
            w_out[(size_t)o * e->n + j] = dw;
    }
}

void mbs_objective_eval_partials(MbsObjectiveEval *e, const double *q, const double *qd,
                                 const double *qdd, const MbsObjectivePartials *out)
{
    int n = e->n;
    size_t bytes = sizeof(double) * (size_t)n;
    double *xq = e->x, *xqd = e->x + n, *xqdd = e->x + 2 * n;
    double *g_out[3] = {out->g_q, out->g_qd, out->g_qdd};
    double *w_out[3] = {out->w_q, out->w_qd, out->w_qdd};
    memcpy(xq, q, bytes);
    memcpy(xqd, qd, bytes);
    memcpy(xqdd, qdd, bytes);
    quantities(e, q, qd, qdd, e->y);
    double *ysave = e->y;
    for (int level = 0; level < 3; ++level) {
        if (!g_out[level] && !w_out[level] && !(level == 0 && (out->g_q0 || out->w_q0)))
            continue;
        double *x = e->x + (size_t)level * n;
        for (int j = 0; j < n; ++j) {
            double xj = x[j], h = cbrt(DBL_EPSILON) * fmax(1.0, fabs(xj));
            volatile double xp = xj + h;
            h = xp - xj;
            x[j] = xj + h;
            quantities(e, xq, xqd, xqdd, e->yp);
            x[j] = xj - h;
            quantities(e, xq, xqd, xqdd, e->ym);
            x[j] = xj;
            e->y = ysave;
            add_column(e, j, h, g_out[level], w_out[level], 0);
            if (level == 0 && (out->g_q0 || out->w_q0))
                add_column(e, j, h, out->g_q0, out->w_q0, 1);
        }
    }
    /* leave the kinematics at the unperturbed state */
    quantities(e, q, qd, qdd, e->y);
}

void mbs_objective_eval_directional(MbsObjectiveEval *e, const MbsKinematics *k,
                                    const MbsConstraintsDerivatives *cw, const double *A,
                                    const double *z, const double *zd, const double *dz,
                                    const double *dzd, double *dg, double *dw)
{
    const MbsModel *m = e->m;
    for (int o = 0; o < e->nobj; ++o)
        dg[o] = dw[o] = 0.0;
    MbsPointDerivatives p;
    int p_body = -1, p_point = -1; /* whose derivatives p holds: terms often share a point */
    for (int o = 0; o < e->nobj; ++o) {
        const MbsObjective *ob = &m->objectives[o];
        for (int i = ob->first_term; i < ob->first_term + ob->nterms; ++i) {
            const MbsObjectiveTerm *t = &m->objective_terms[i];
            double y[3] = {0, 0, 0}, dy[3] = {0, 0, 0}, grad[3];
            if (reads_point(t->quantity) && (t->body != p_body || t->point != p_point)) {
                mbs_constraints_derivatives_point(m, k, cw, A, t->body,
                                                  m->points[t->point].pos,
                                                  cw->model ? cw->model->point + 3 * t->point
                                                            : NULL,
                                                  &p);
                p_body = t->body;
                p_point = t->point;
            }
            int node = t->quantity == MBS_QUANTITY_JOINT_COORDINATE ||
                               t->quantity == MBS_QUANTITY_JOINT_RATE
                           ? m->topo->joint_node[t->joint]
                           : -1;
            switch (t->quantity) {
            case MBS_QUANTITY_POSITION:
            case MBS_QUANTITY_DISPLACEMENT:
                memcpy(y, p.r, sizeof y);
                if (t->quantity == MBS_QUANTITY_DISPLACEMENT)
                    mbs_v3_sub(y, &e->y0[3 * i], y);
                memcpy(dy, p.dr, sizeof dy);
                break;
            case MBS_QUANTITY_VELOCITY:
                memcpy(y, p.v, sizeof y);
                memcpy(dy, p.dv, sizeof dy);
                break;
            case MBS_QUANTITY_ACCELERATION:
                memcpy(y, p.a, sizeof y);
                memcpy(dy, p.da, sizeof dy);
                break;
            case MBS_QUANTITY_JOINT_COORDINATE:
                y[0] = z[node];
                dy[0] = dz[node];
                break;
            case MBS_QUANTITY_JOINT_RATE:
                y[0] = zd[node];
                dy[0] = dzd[node];
                break;
            case MBS_QUANTITY_ANGULAR_VELOCITY: {
                int nd = m->topo->body_node[t->body];
                mbs_kin_body_omega(m, k, t->body, y);
                if (nd >= 0)
                    memcpy(dy, &cw->dZv[6 * nd + 3], sizeof dy);
                break;
            }
            default:
                break;
            }
            mbs_objective_term_value(t, y, grad);
            double v = grad[0] * dy[0] + grad[1] * dy[1] + grad[2] * dy[2];
            if (t->final)
                dw[o] += v;
            else
                dg[o] += v;
        }
    }
}

/* ---- accumulation along a run --------------------------------------------------------- */

int mbs_objective_accumulator_init(MbsObjectiveAccumulator *a, const MbsModel *m,
                                   MbsCoordinateKind kind, MbsError *err)
{
    memset(a, 0, sizeof *a);
    a->eval = mbs_objective_eval_new(m, kind, err);
    if (!a->eval)
        return MBS_FATAL;
    a->nobjectives = m->nobjectives;
    size_t no = (size_t)(a->nobjectives > 0 ? a->nobjectives : 1);
    size_t n = (size_t)(a->eval->n > 0 ? a->eval->n : 1);
    a->integral = calloc(no, sizeof(double));
    a->g_last = calloc(no, sizeof(double));
    a->w_last = calloc(no, sizeof(double));
    a->q = calloc(3 * n, sizeof(double));
    if (!a->integral || !a->g_last || !a->w_last || !a->q) {
        mbs_objective_accumulator_free(a);
        return mbs_error_set(err, MBS_FATAL, "out of memory");
    }
    a->qd = a->q + n;
    a->qdd = a->q + 2 * n;
    return 0;
}

void mbs_objective_accumulator_free(MbsObjectiveAccumulator *a)
{
    mbs_objective_eval_free(a->eval);
    free(a->integral);
    free(a->g_last);
    free(a->w_last);
    free(a->q);
    memset(a, 0, sizeof *a);
}

void mbs_objective_accumulator_add(MbsObjectiveAccumulator *a, const MbsFormulation *f)
{
    f->klass->coordinates(f, a->q, a->qd);
    mbs_formulation_accelerations(f, a->qdd);
    if (!a->started)
        mbs_objective_eval_set_initial(a->eval, a->q, a->qd, a->qdd);
    double h = f->time - a->t_last;
    double *g_prev = a->w_last; /* scratch until w is recomputed below */
    memcpy(g_prev, a->g_last, sizeof(double) * (size_t)a->nobjectives);
    mbs_objective_eval_values(a->eval, a->q, a->qd, a->qdd, a->g_last, NULL);
    if (a->started)
        for (int o = 0; o < a->nobjectives; ++o)
            a->integral[o] += 0.5 * h * (g_prev[o] + a->g_last[o]);
    values_from(a->eval, a->eval->y, NULL, a->w_last);
    a->started = 1;
    a->t_last = f->time;
}

void mbs_objective_accumulator_psi(const MbsObjectiveAccumulator *a, double *psi)
{
    for (int o = 0; o < a->nobjectives; ++o)
        psi[o] = a->integral[o] + a->w_last[o];
}
