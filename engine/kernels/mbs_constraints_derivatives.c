/* Analytical directional derivatives of the constraint terms (see the header). */
#include "mbs_constraints_derivatives.h"

#include <stdlib.h>
#include <string.h>

#include "mbs_function.h"
#include "mbs_linalg.h"
#include "mbs_topology.h"

static const double zero6[6] = {0, 0, 0, 0, 0, 0};

int mbs_constraints_derivatives_init(MbsConstraintsDerivatives *w, const MbsModel *m)
{
    int n = m->topo->nnodes;
    size_t nn = 6 * (size_t)(n > 0 ? n : 1);
    memset(w, 0, sizeof *w);
    w->n = n;
    w->T = calloc(nn, sizeof(double));
    w->Zv = calloc(nn, sizeof(double));
    w->dZv = calloc(nn, sizeof(double));
    w->dD = calloc(nn, sizeof(double));
    w->W = calloc(nn, sizeof(double));
    w->dW = calloc(nn, sizeof(double));
    w->xdb = calloc(nn, sizeof(double));
    w->db = calloc(nn, sizeof(double));
    if (!w->T || !w->Zv || !w->dZv || !w->dD || !w->W || !w->dW || !w->xdb || !w->db) {
        mbs_constraints_derivatives_free(w);
        return -1;
    }
    return 0;
}

void mbs_constraints_derivatives_free(MbsConstraintsDerivatives *w)
{
    free(w->T);
    free(w->Zv);
    free(w->dZv);
    free(w->dD);
    free(w->W);
    free(w->dW);
    free(w->xdb);
    free(w->db);
    memset(w, 0, sizeof *w);
}

/* out = crm(m) x = [w x x_v + v x x_w; w x x_w], m = [v; w] */
static void crm(const double m[6], const double x[6], double out[6])
{
    double a[3], b[3];
    mbs_v3_cross(m + 3, x, a);
    mbs_v3_cross(m, x + 3, b);
    mbs_v3_add(a, b, out);
    mbs_v3_cross(m + 3, x + 3, out + 3);
}

static const double *parent_of(const MbsTopology *t, const double *per_node, int i)
{
    int p = t->nodes[i].parent;
    return p < 0 ? zero6 : per_node + 6 * p;
}

/* db_k = crm(T_parent) b_k, plus a model direction's own change of b_k (its points moved) */
static void node_db(const MbsTopology *t, const MbsConstraintsDerivatives *w, const double *b,
                    int i, double db[6])
{
    crm(parent_of(t, w->T, i), b, db);
    if (w->model)
        for (int c = 0; c < 6; ++c)
            db[c] += w->xdb[6 * i + c];
}

void mbs_constraints_derivatives_node_db(const MbsModel *m, const MbsKinematics *k,
                                         const MbsConstraintsDerivatives *w, int node,
                                         double db[6])
{
    node_db(m->topo, w, &k->b[6 * node], node, db);
}

void mbs_constraints_derivatives_direction(const MbsModel *m, const MbsKinematics *k,
                                           MbsConstraintsDerivatives *w, const double *dz)
{
    const MbsTopology *t = m->topo;
    w->model = NULL;
    for (int i = t->nnodes - 1; i >= 0; --i) { /* parents first */
        const double *Tp = parent_of(t, w->T, i), *b = &k->b[6 * i];
        for (int c = 0; c < 6; ++c)
            w->T[6 * i + c] = Tp[c] + b[c] * dz[i];
    }
}

void mbs_constraints_derivatives_model_direction(const MbsModel *m, const MbsKinematics *k,
                                                 MbsConstraintsDerivatives *w,
                                                 const MbsModelDirection *dir, const double *dz)
{
    const MbsTopology *t = m->topo;
    static const double identity[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
    w->model = dir;
    for (int i = t->nnodes - 1; i >= 0; --i) { /* parents first */
        const MbsNode *nd = &t->nodes[i];
        const double *Tp = parent_of(t, w->T, i), *dpoint = dir->node_point + 3 * i;
        const double *Rp = nd->parent < 0 ? identity : &k->R[9 * nd->parent];
        double *T = &w->T[6 * i], *x = &w->xdb[6 * i];
        for (int c = 0; c < 6; ++c)
            T[c] = Tp[c] + (dz ? k->b[6 * i + c] * dz[i] : 0.0);
        memset(x, 0, 6 * sizeof(double));
        if (nd->type != MBS_NODE_REVOLUTE)
            continue; /* a prismatic node's p and b do not read its point */
        /* p = (Rp - R) point + p_parent; b = [a x u; u] with a = Rp point + p_parent */
        double a[3], ra[3];
        mbs_m3_mulv(Rp, dpoint, a);
        mbs_m3_mulv(&k->R[9 * i], dpoint, ra);
        for (int c = 0; c < 3; ++c)
            T[c] += a[c] - ra[c];
        mbs_v3_cross(a, &k->b[6 * i + 3], x);
    }
}

/* The motion of a point or a vector of a body and its derivative: positions from k and the
 * direction's twists; Z, dZ (6 per node) a twist and its derivative; D, dD (6 per node, or
 * NULL) the acceleration bias and its derivative. */
typedef struct {
    const double *Z, *dZ, *D, *dD;
} Motion;

typedef MbsPointDerivatives PointDerivs;

static void point_derivs(const MbsModel *m, const MbsKinematics *k,
                         const MbsConstraintsDerivatives *w, const Motion *mo, int body,
                         const double x0[3], const double *dx0, PointDerivs *p)
{
    int nd = m->topo->body_node[body];
    memset(p, 0, sizeof *p);
    mbs_kin_point(m, k, body, x0, p->r);
    if (nd < 0) {
        if (dx0) /* a ground point the model direction moves */
            memcpy(p->dr, dx0, sizeof p->dr);
        return;
    }
    const double *T = &w->T[6 * nd];
    double t1[3], t2[3];
    mbs_v3_cross(T + 3, p->r, t1); /* dr = T_s + T_w x r (+ R dx0: the drawn point moved) */
    mbs_v3_add(T, t1, p->dr);
    if (dx0) {
        mbs_m3_mulv(&k->R[9 * nd], dx0, t1);
        mbs_v3_add(p->dr, t1, p->dr);
    }
    if (!mo->Z) /* positions only */
        return;
    const double *Z = &mo->Z[6 * nd], *dZ = &mo->dZ[6 * nd];
    mbs_v3_cross(Z + 3, p->r, t1); /* v = Z_s + Z_w x r */
    mbs_v3_add(Z, t1, p->v);
    mbs_v3_cross(dZ + 3, p->r, t1); /* dv = dZ_s + dZ_w x r + Z_w x dr */
    mbs_v3_cross(Z + 3, p->dr, t2);
    for (int c = 0; c < 3; ++c)
        p->dv[c] = dZ[c] + t1[c] + t2[c];
    if (!mo->D)
        return;
    /* a = D_s + D_w x r + w x v;  da = dD_s + dD_w x r + D_w x dr + dw x v + w x dv */
    const double *D = &mo->D[6 * nd], *dD = &mo->dD[6 * nd];
    double t3[3], t4[3], t5[3];
    mbs_v3_cross(D + 3, p->r, t1);
    mbs_v3_cross(Z + 3, p->v, t2);
    for (int c = 0; c < 3; ++c)
        p->a[c] = D[c] + t1[c] + t2[c];
    mbs_v3_cross(dD + 3, p->r, t1);
    mbs_v3_cross(D + 3, p->dr, t2);
    mbs_v3_cross(dZ + 3, p->v, t3);
    mbs_v3_cross(Z + 3, p->dv, t4);
    for (int c = 0; c < 3; ++c) {
        t5[c] = t3[c] + t4[c];
        p->da[c] = dD[c] + t1[c] + t2[c] + t5[c];
    }
}

typedef struct {
    double u[3], du[3], ud[3], dud[3], udd[3], dudd[3];
} VectorDerivs;

static void vector_derivs(const MbsModel *m, const MbsKinematics *k,
                          const MbsConstraintsDerivatives *w, const Motion *mo, int body,
                          const double u0[3], VectorDerivs *q)
{
    int nd = m->topo->body_node[body];
    memset(q, 0, sizeof *q);
    mbs_kin_vector(m, k, body, u0, q->u);
    if (nd < 0)
        return;
    const double *T = &w->T[6 * nd];
    double t1[3], t2[3];
    mbs_v3_cross(T + 3, q->u, q->du);
    if (!mo->Z) /* positions only */
        return;
    const double *Z = &mo->Z[6 * nd], *dZ = &mo->dZ[6 * nd];
    mbs_v3_cross(Z + 3, q->u, q->ud);   /* ud = w x u */
    mbs_v3_cross(dZ + 3, q->u, t1);     /* dud = dw x u + w x du */
    mbs_v3_cross(Z + 3, q->du, t2);
    mbs_v3_add(t1, t2, q->dud);
    if (!mo->D)
        return;
    /* udd = Dw x u + w x ud;  dudd = dDw x u + Dw x du + dw x ud + w x dud */
    const double *D = &mo->D[6 * nd], *dD = &mo->dD[6 * nd];
    double t3[3], t4[3];
    mbs_v3_cross(D + 3, q->u, t1);
    mbs_v3_cross(Z + 3, q->ud, t2);
    mbs_v3_add(t1, t2, q->udd);
    mbs_v3_cross(dD + 3, q->u, t1);
    mbs_v3_cross(D + 3, q->du, t2);
    mbs_v3_cross(dZ + 3, q->ud, t3);
    mbs_v3_cross(Z + 3, q->dud, t4);
    for (int c = 0; c < 3; ++c)
        q->dudd[c] = t1[c] + t2[c] + t3[c] + t4[c];
}

/* The points (r1 of body 1, r2 of body 2) and vectors (u1 of body 1, v2 of body 2) of a row. */
/* The points' derivatives of the row before, kept by the loops over rows: a spherical or
 * revolute joint's three POINTS rows share their pair of points. */
typedef struct {
    const MbsRow *row; /* NULL: none yet */
    PointDerivs p[2];
} PointPair;

static void row_derivs(const MbsModel *m, const MbsKinematics *k,
                       const MbsConstraintsDerivatives *w, const Motion *mo, const MbsRow *row,
                       int index, PointPair *pair, PointDerivs p[2], VectorDerivs q[2])
{
    /* a model direction moves the drawn points of the model's rows (index: the row's) */
    const double *dx = w->model && index < w->model->nrows ? w->model->row_points + 6 * index
                                                           : NULL;
    if (p && mbs_rows_share_points(row, pair->row)) {
        p[0] = pair->p[0];
        p[1] = pair->p[1];
    } else if (p) {
        point_derivs(m, k, w, mo, row->body1, row->r1, dx, &p[0]);
        point_derivs(m, k, w, mo, row->body2, row->r2, dx ? dx + 3 : NULL, &p[1]);
        pair->row = row;
        pair->p[0] = p[0];
        pair->p[1] = p[1];
    }
    if (q) {
        vector_derivs(m, k, w, mo, row->body1, row->u1, &q[0]);
        vector_derivs(m, k, w, mo, row->body2, row->v2, &q[1]);
    }
}

void mbs_constraints_derivatives_velocity(const MbsModel *m, const MbsKinematics *k,
                                          MbsConstraintsDerivatives *w, const MbsRow *rows,
                                          int nrows, const double *v, double *out)
{
    const MbsTopology *t = m->topo;
    for (int i = t->nnodes - 1; i >= 0; --i) {
        const double *Zp = parent_of(t, w->Zv, i), *dZp = parent_of(t, w->dZv, i);
        const double *b = &k->b[6 * i];
        double db[6];
        node_db(t, w, b, i, db);
        for (int c = 0; c < 6; ++c) {
            w->Zv[6 * i + c] = Zp[c] + b[c] * v[i];
            w->dZv[6 * i + c] = dZp[c] + db[c] * v[i];
        }
    }
    const Motion mo = {.Z = w->Zv, .dZ = w->dZv};
    PointPair pair = {0};
    for (int i = 0; i < nrows; ++i) {
        const MbsRow *row = &rows[i];
        PointDerivs p[2];
        VectorDerivs q[2];
        double d[3], dd[3], dv[3], ddv[3], val = 0.0;
        switch (row->type) {
        case MBS_ROW_POINTS:
            row_derivs(m, k, w, &mo, row, i, &pair, p, NULL);
            val = p[0].dv[row->axis] - p[1].dv[row->axis];
            break;
        case MBS_ROW_DOT: /* ud1 . u2 + u1 . ud2 */
            row_derivs(m, k, w, &mo, row, i, &pair, NULL, q);
            val = mbs_v3_dot(q[0].dud, q[1].u) + mbs_v3_dot(q[0].ud, q[1].du) +
                  mbs_v3_dot(q[0].du, q[1].ud) + mbs_v3_dot(q[0].u, q[1].dud);
            break;
        case MBS_ROW_LINE: /* (v2 - v1) . u1 + (r2 - r1) . ud1 */
            row_derivs(m, k, w, &mo, row, i, &pair, p, q);
            mbs_v3_sub(p[1].r, p[0].r, d);
            mbs_v3_sub(p[1].dr, p[0].dr, dd);
            mbs_v3_sub(p[1].v, p[0].v, dv);
            mbs_v3_sub(p[1].dv, p[0].dv, ddv);
            val = mbs_v3_dot(ddv, q[0].u) + mbs_v3_dot(dv, q[0].du) + mbs_v3_dot(dd, q[0].ud) +
                  mbs_v3_dot(d, q[0].dud);
            break;
        case MBS_ROW_DISTANCE: /* 2 (r1 - r2) . (v1 - v2) */
            row_derivs(m, k, w, &mo, row, i, &pair, p, NULL);
            mbs_v3_sub(p[0].r, p[1].r, d);
            mbs_v3_sub(p[0].dr, p[1].dr, dd);
            mbs_v3_sub(p[0].v, p[1].v, dv);
            mbs_v3_sub(p[0].dv, p[1].dv, ddv);
            val = 2.0 * (mbs_v3_dot(dd, dv) + mbs_v3_dot(d, ddv));
            break;
        case MBS_ROW_DRIVER: /* v[node]: no position dependence */
            break;
        }
        out[i] = val;
    }
}

void mbs_constraints_derivatives_motion(const MbsModel *m, const MbsKinematics *k,
                                        MbsConstraintsDerivatives *w, const double *zd,
                                        const double *dzd, const double *zdd,
                                        const double *dzdd)
{
    const MbsTopology *t = m->topo;
    double *dZ = w->dZv; /* here: the derivative of the velocity twists Z of k */
    for (int i = t->nnodes - 1; i >= 0; --i) {
        const double *Zp = parent_of(t, k->Z, i), *dZp = parent_of(t, dZ, i);
        const double *dDp = parent_of(t, w->dD, i);
        const double *b = &k->b[6 * i];
        double *db = &w->db[6 * i], bd[6], x[6], y[6], dbd[6];
        node_db(t, w, b, i, db);
        crm(Zp, b, bd);  /* b_dot */
        crm(dZp, b, x);  /* d(b_dot) = crm(dZp) b + crm(Zp) db */
        crm(Zp, db, y);
        for (int c = 0; c < 6; ++c) {
            dbd[c] = x[c] + y[c];
            dZ[6 * i + c] = dZp[c] + db[c] * zd[i] + b[c] * dzd[i];
            w->dD[6 * i + c] = dDp[c] + dbd[c] * zd[i] + bd[c] * dzd[i];
            if (zdd) /* the whole acceleration: + d(b zdd) */
                w->dD[6 * i + c] += db[c] * zdd[i] + b[c] * dzdd[i];
        }
    }
}

void mbs_constraints_derivatives_accelerations(const MbsModel *m, const MbsKinematics *k,
                                               MbsConstraintsDerivatives *w, const double *dzdd)
{
    const MbsTopology *t = m->topo;
    size_t bytes = sizeof(double) * 6 * (size_t)t->nnodes;
    w->model = NULL;
    memset(w->T, 0, bytes);
    memset(w->dZv, 0, bytes);
    for (int i = t->nnodes - 1; i >= 0; --i) {
        const double *dDp = parent_of(t, w->dD, i), *b = &k->b[6 * i];
        for (int c = 0; c < 6; ++c)
            w->dD[6 * i + c] = dDp[c] + b[c] * dzdd[i];
    }
}

void mbs_constraints_derivatives_whole(const MbsModel *m, const MbsKinematics *k,
                                       const MbsConstraintsDerivatives *w, const double *zdd,
                                       const double *dzdd, double *dD)
{
    const MbsTopology *t = m->topo;
    for (int i = t->nnodes - 1; i >= 0; --i) {
        const double *b = &k->b[6 * i], *bias = &w->dD[6 * i], *db = &w->db[6 * i];
        const double *ap = parent_of(t, dD, i), *bp = parent_of(t, w->dD, i);
        /* dD (the whole) - dD (the bias) sums d(b zdd) over the path: parent's difference + own */
        for (int c = 0; c < 6; ++c)
            dD[6 * i + c] = bias[c] + (ap[c] - bp[c]) + db[c] * zdd[i] + b[c] * dzdd[i];
    }
}

void mbs_constraints_derivatives_point(const MbsModel *m, const MbsKinematics *k,
                                       const MbsConstraintsDerivatives *w, const double *A,
                                       int body, const double x0[3], const double *dx0,
                                       MbsPointDerivatives *out)
{
    const Motion mo = {.Z = k->Z, .dZ = w->dZv, .D = A, .dD = w->dD};
    point_derivs(m, k, w, &mo, body, x0, dx0, out);
}

void mbs_constraints_derivatives_positions(const MbsModel *m, const MbsKinematics *k,
                                           MbsConstraintsDerivatives *w, const MbsRow *rows,
                                           int nrows, double *dphi)
{
    const Motion mo = {.Z = NULL}; /* positions only: point_derivs stops after dr */
    const double *dc = w->model ? w->model->row_c : NULL;
    PointPair pair = {0};
    for (int i = 0; i < nrows; ++i) {
        const MbsRow *row = &rows[i];
        PointDerivs p[2];
        VectorDerivs q[2];
        double d[3], dd[3], x = 0.0, c = dc && i < w->model->nrows ? dc[i] : 0.0;
        switch (row->type) {
        case MBS_ROW_POINTS:
            row_derivs(m, k, w, &mo, row, i, &pair, p, NULL);
            x = p[0].dr[row->axis] - p[1].dr[row->axis];
            break;
        case MBS_ROW_DOT:
            row_derivs(m, k, w, &mo, row, i, &pair, NULL, q);
            x = mbs_v3_dot(q[0].du, q[1].u) + mbs_v3_dot(q[0].u, q[1].du) - c;
            break;
        case MBS_ROW_LINE:
            row_derivs(m, k, w, &mo, row, i, &pair, p, q);
            mbs_v3_sub(p[1].r, p[0].r, d);
            mbs_v3_sub(p[1].dr, p[0].dr, dd);
            x = mbs_v3_dot(dd, q[0].u) + mbs_v3_dot(d, q[0].du);
            break;
        case MBS_ROW_DISTANCE:
            row_derivs(m, k, w, &mo, row, i, &pair, p, NULL);
            mbs_v3_sub(p[0].r, p[1].r, d);
            mbs_v3_sub(p[0].dr, p[1].dr, dd);
            x = 2.0 * mbs_v3_dot(d, dd) - c;
            break;
        case MBS_ROW_DRIVER:
            break;
        }
        dphi[i] = x;
    }
}

void mbs_constraints_derivatives_bias(const MbsModel *m, const MbsKinematics *k,
                                      MbsConstraintsDerivatives *w, const MbsRow *rows,
                                      int nrows, const double *zd, const double *dzd,
                                      double *out)
{
    mbs_constraints_derivatives_motion(m, k, w, zd, dzd, NULL, NULL);
    const Motion mo = {.Z = k->Z, .dZ = w->dZv, .D = k->D, .dD = w->dD};
    PointPair pair = {0};
    for (int i = 0; i < nrows; ++i) {
        const MbsRow *row = &rows[i];
        PointDerivs p[2];
        VectorDerivs q[2];
        double d[3], dd[3], v[3], dv[3], a[3], da[3], val = 0.0;
        switch (row->type) {
        case MBS_ROW_POINTS:
            row_derivs(m, k, w, &mo, row, i, &pair, p, NULL);
            val = p[0].da[row->axis] - p[1].da[row->axis];
            break;
        case MBS_ROW_DOT: /* udd1 . u2 + 2 ud1 . ud2 + u1 . udd2 */
            row_derivs(m, k, w, &mo, row, i, &pair, NULL, q);
            val = mbs_v3_dot(q[0].dudd, q[1].u) + mbs_v3_dot(q[0].udd, q[1].du) +
                  2.0 * (mbs_v3_dot(q[0].dud, q[1].ud) + mbs_v3_dot(q[0].ud, q[1].dud)) +
                  mbs_v3_dot(q[0].du, q[1].udd) + mbs_v3_dot(q[0].u, q[1].dudd);
            break;
        case MBS_ROW_LINE: /* (a2 - a1) . u + 2 (v2 - v1) . ud + (r2 - r1) . udd, u = u1 */
            row_derivs(m, k, w, &mo, row, i, &pair, p, q);
            for (int c = 0; c < 3; ++c) {
                d[c] = p[1].r[c] - p[0].r[c], dd[c] = p[1].dr[c] - p[0].dr[c];
                v[c] = p[1].v[c] - p[0].v[c], dv[c] = p[1].dv[c] - p[0].dv[c];
                a[c] = p[1].a[c] - p[0].a[c], da[c] = p[1].da[c] - p[0].da[c];
            }
            val = mbs_v3_dot(da, q[0].u) + mbs_v3_dot(a, q[0].du) +
                  2.0 * (mbs_v3_dot(dv, q[0].ud) + mbs_v3_dot(v, q[0].dud)) +
                  mbs_v3_dot(dd, q[0].udd) + mbs_v3_dot(d, q[0].dudd);
            break;
        case MBS_ROW_DISTANCE: /* 2 |v1 - v2|^2 + 2 (r1 - r2) . (a1 - a2) */
            row_derivs(m, k, w, &mo, row, i, &pair, p, NULL);
            for (int c = 0; c < 3; ++c) {
                d[c] = p[0].r[c] - p[1].r[c], dd[c] = p[0].dr[c] - p[1].dr[c];
                v[c] = p[0].v[c] - p[1].v[c], dv[c] = p[0].dv[c] - p[1].dv[c];
                a[c] = p[0].a[c] - p[1].a[c], da[c] = p[0].da[c] - p[1].da[c];
            }
            val = 4.0 * mbs_v3_dot(v, dv) + 2.0 * (mbs_v3_dot(dd, a) + mbs_v3_dot(d, da));
            break;
        case MBS_ROW_DRIVER: /* -f''(t) */
            break;
        }
        out[i] = val;
    }
}

/* Add s times the wrench of force f at r (or torque n when f is NULL) and its derivative
 * (df, dr; dn) to node nd's W and dW. */
static void add_wrench(MbsConstraintsDerivatives *w, int nd, double s, const double r[3],
                       const double dr[3], const double f[3], const double df[3],
                       const double n[3], const double dn[3])
{
    if (nd < 0)
        return;
    double *W = &w->W[6 * nd], *dW = &w->dW[6 * nd];
    if (f) { /* [f; r x f], d = [df; dr x f + r x df] */
        double mo[3], t1[3], t2[3];
        mbs_v3_cross(r, f, mo);
        mbs_v3_cross(dr, f, t1);
        mbs_v3_cross(r, df, t2);
        for (int c = 0; c < 3; ++c) {
            W[c] += s * f[c];
            W[3 + c] += s * mo[c];
            dW[c] += s * df[c];
            dW[3 + c] += s * (t1[c] + t2[c]);
        }
    } else {
        for (int c = 0; c < 3; ++c) {
            W[3 + c] += s * n[c];
            dW[3 + c] += s * dn[c];
        }
    }
}

void mbs_constraints_derivatives_reactions(const MbsModel *m, const MbsKinematics *k,
                                           MbsConstraintsDerivatives *w, const MbsRow *rows,
                                           int nrows, const double *mu, double *out)
{
    const MbsTopology *t = m->topo;
    int n = t->nnodes;
    memset(w->W, 0, sizeof(double) * 6 * (size_t)(n > 0 ? n : 1));
    memset(w->dW, 0, sizeof(double) * 6 * (size_t)(n > 0 ? n : 1));
    const Motion mo = {.Z = k->Z, .dZ = w->dZv}; /* rates unused: positions only */
    PointPair pair = {0};
    for (int i = 0; i < nrows; ++i) {
        const MbsRow *row = &rows[i];
        double s = mu[i];
        if (s == 0.0)
            continue;
        int nd1 = t->body_node[row->body1], nd2 = t->body_node[row->body2];
        PointDerivs p[2];
        VectorDerivs q[2];
        double d[3], dd[3], x[3], y[3], z[3];
        switch (row->type) {
        case MBS_ROW_POINTS: {
            double e[3] = {0, 0, 0}, de[3] = {0, 0, 0};
            e[row->axis] = 1.0;
            row_derivs(m, k, w, &mo, row, i, &pair, p, NULL);
            add_wrench(w, nd1, s, p[0].r, p[0].dr, e, de, NULL, NULL);
            add_wrench(w, nd2, -s, p[1].r, p[1].dr, e, de, NULL, NULL);
            break;
        }
        case MBS_ROW_DOT: /* torque s (u1 x v2) on body 1, -s on body 2 */
            row_derivs(m, k, w, &mo, row, i, &pair, NULL, q);
            mbs_v3_cross(q[0].u, q[1].u, x);
            mbs_v3_cross(q[0].du, q[1].u, y);
            mbs_v3_cross(q[0].u, q[1].du, z);
            mbs_v3_add(y, z, y);
            add_wrench(w, nd1, s, NULL, NULL, NULL, NULL, x, y);
            add_wrench(w, nd2, -s, NULL, NULL, NULL, NULL, x, y);
            break;
        case MBS_ROW_LINE: /* s u1 at r2, -s u1 at r1, torque s (u1 x (r2 - r1)) on body 1 */
            row_derivs(m, k, w, &mo, row, i, &pair, p, q);
            mbs_v3_sub(p[1].r, p[0].r, d);
            mbs_v3_sub(p[1].dr, p[0].dr, dd);
            add_wrench(w, nd2, s, p[1].r, p[1].dr, q[0].u, q[0].du, NULL, NULL);
            add_wrench(w, nd1, -s, p[0].r, p[0].dr, q[0].u, q[0].du, NULL, NULL);
            mbs_v3_cross(q[0].u, d, x);
            mbs_v3_cross(q[0].du, d, y);
            mbs_v3_cross(q[0].u, dd, z);
            mbs_v3_add(y, z, y);
            add_wrench(w, nd1, s, NULL, NULL, NULL, NULL, x, y);
            break;
        case MBS_ROW_DISTANCE: /* 2 s (r1 - r2) at r1, -2 s (r1 - r2) at r2 */
            row_derivs(m, k, w, &mo, row, i, &pair, p, NULL);
            mbs_v3_sub(p[0].r, p[1].r, d);
            mbs_v3_sub(p[0].dr, p[1].dr, dd);
            add_wrench(w, nd1, 2.0 * s, p[0].r, p[0].dr, d, dd, NULL, NULL);
            add_wrench(w, nd2, -2.0 * s, p[1].r, p[1].dr, d, dd, NULL, NULL);
            break;
        case MBS_ROW_DRIVER: /* mu on Q[node]: no position dependence */
            break;
        }
    }
    /* Q_j = b_j . W_j (subtree sums): dQ_j = (crm(T_parent) b_j) . W_j + b_j . dW_j */
    for (int j = 0; j < n; ++j) { /* children before parents */
        int par = t->nodes[j].parent;
        const double *b = &k->b[6 * j], *W = &w->W[6 * j], *dW = &w->dW[6 * j];
        double db[6], v = 0.0;
        node_db(t, w, b, j, db);
        for (int c = 0; c < 6; ++c)
            v += db[c] * W[c] + b[c] * dW[c];
        out[j] = v;
        if (par >= 0)
            for (int c = 0; c < 6; ++c) {
                w->W[6 * par + c] += W[c];
                w->dW[6 * par + c] += dW[c];
            }
    }
}
