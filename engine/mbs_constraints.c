#include "mbs_constraints.h"

#include <stdlib.h>
#include <string.h>

#include "mbs_linalg.h"
#include "mbs_topology.h"

/* Add s * d(point r of body)/dz . e to row `row` of phiz, for every node on the body's path. */
static void add_point_jacobian(const MbsModel *m, const MbsKinematics *k, double *phiz, int row,
                               int body, const double r[3], const double e[3], double s)
{
    int nr = m->topo->nrows;
    for (int j = m->topo->body_node[body]; j >= 0; j = m->topo->nodes[j].parent) {
        const double *b = &k->b[6 * j];
        double wr[3];
        mbs_v3_cross(b + 3, r, wr); /* dr/dz_j = b_s + b_w x r */
        phiz[row + (size_t)nr * j] += s * (mbs_v3_dot(b, e) + mbs_v3_dot(wr, e));
    }
}

/* Add s * d(vector u of body)/dz . e: du/dz_j = b_w x u. */
static void add_vector_jacobian(const MbsModel *m, const MbsKinematics *k, double *phiz, int row,
                                int body, const double u[3], const double e[3], double s)
{
    int nr = m->topo->nrows;
    for (int j = m->topo->body_node[body]; j >= 0; j = m->topo->nodes[j].parent) {
        double wu[3];
        mbs_v3_cross(&k->b[6 * j + 3], u, wu);
        phiz[row + (size_t)nr * j] += s * mbs_v3_dot(wu, e);
    }
}

void mbs_constraints_eval(const MbsModel *m, const MbsKinematics *k, double t, const double *z,
                          double *phi, double *phiz, double *phit)
{
    const MbsTopology *tp = m->topo;
    int nr = tp->nrows;
    if (phiz)
        memset(phiz, 0, sizeof(double) * (size_t)nr * (size_t)tp->nnodes);
    for (int i = 0; i < nr; ++i) {
        const MbsRow *w = &tp->rows[i];
        double r1[3], r2[3], u1[3], v2[3], d[3], val = 0.0, dt = 0.0;
        switch (w->type) {
        case MBS_ROW_POINTS: {
            double e[3] = {0, 0, 0};
            e[w->axis] = 1.0;
            mbs_kin_point(m, k, w->body1, w->r1, r1);
            mbs_kin_point(m, k, w->body2, w->r2, r2);
            val = r1[w->axis] - r2[w->axis];
            if (phiz) {
                add_point_jacobian(m, k, phiz, i, w->body1, r1, e, 1.0);
                add_point_jacobian(m, k, phiz, i, w->body2, r2, e, -1.0);
            }
            break;
        }
        case MBS_ROW_DOT:
            mbs_kin_vector(m, k, w->body1, w->u1, u1);
            mbs_kin_vector(m, k, w->body2, w->v2, v2);
            val = mbs_v3_dot(u1, v2) - w->c;
            if (phiz) {
                add_vector_jacobian(m, k, phiz, i, w->body1, u1, v2, 1.0);
                add_vector_jacobian(m, k, phiz, i, w->body2, v2, u1, 1.0);
            }
            break;
        case MBS_ROW_LINE:
            mbs_kin_point(m, k, w->body1, w->r1, r1);
            mbs_kin_point(m, k, w->body2, w->r2, r2);
            mbs_kin_vector(m, k, w->body1, w->u1, u1);
            mbs_v3_sub(r2, r1, d);
            val = mbs_v3_dot(d, u1);
            if (phiz) {
                add_point_jacobian(m, k, phiz, i, w->body2, r2, u1, 1.0);
                add_point_jacobian(m, k, phiz, i, w->body1, r1, u1, -1.0);
                add_vector_jacobian(m, k, phiz, i, w->body1, u1, d, 1.0);
            }
            break;
        case MBS_ROW_DISTANCE:
            mbs_kin_point(m, k, w->body1, w->r1, r1);
            mbs_kin_point(m, k, w->body2, w->r2, r2);
            mbs_v3_sub(r1, r2, d);
            val = mbs_v3_dot(d, d) - w->c;
            if (phiz) {
                add_point_jacobian(m, k, phiz, i, w->body1, r1, d, 2.0);
                add_point_jacobian(m, k, phiz, i, w->body2, r2, d, -2.0);
            }
            break;
        case MBS_ROW_DRIVER: {
            double fd = 0.0;
            val = z[w->node] - mbs_function_eval(&m->joints[w->joint].driver, t, &fd, NULL);
            dt = -fd;
            if (phiz)
                phiz[i + (size_t)nr * w->node] = 1.0;
            break;
        }
        }
        if (phi)
            phi[i] = val;
        if (phit)
            phit[i] = dt;
    }
}

void mbs_constraints_bias(const MbsModel *m, const MbsKinematics *k, double t, double *bias)
{
    const MbsTopology *tp = m->topo;
    for (int i = 0; i < tp->nrows; ++i) {
        const MbsRow *w = &tp->rows[i];
        double r1[3], r2[3], v1[3], v2[3], a1[3], a2[3], u[3], ud[3], udd[3], v[3], vd[3],
            vdd[3], d[3], dd[3], da[3];
        double val = 0.0;
        switch (w->type) {
        case MBS_ROW_POINTS:
            mbs_kin_point(m, k, w->body1, w->r1, r1);
            mbs_kin_point(m, k, w->body2, w->r2, r2);
            mbs_kin_point_motion(m, k, w->body1, r1, NULL, a1);
            mbs_kin_point_motion(m, k, w->body2, r2, NULL, a2);
            val = a1[w->axis] - a2[w->axis];
            break;
        case MBS_ROW_DOT:
            mbs_kin_vector(m, k, w->body1, w->u1, u);
            mbs_kin_vector(m, k, w->body2, w->v2, v);
            mbs_kin_vector_motion(m, k, w->body1, u, ud, udd);
            mbs_kin_vector_motion(m, k, w->body2, v, vd, vdd);
            val = mbs_v3_dot(udd, v) + 2.0 * mbs_v3_dot(ud, vd) + mbs_v3_dot(u, vdd);
            break;
        case MBS_ROW_LINE:
            mbs_kin_point(m, k, w->body1, w->r1, r1);
            mbs_kin_point(m, k, w->body2, w->r2, r2);
            mbs_kin_point_motion(m, k, w->body1, r1, v1, a1);
            mbs_kin_point_motion(m, k, w->body2, r2, v2, a2);
            mbs_kin_vector(m, k, w->body1, w->u1, u);
            mbs_kin_vector_motion(m, k, w->body1, u, ud, udd);
            mbs_v3_sub(r2, r1, d);
            mbs_v3_sub(v2, v1, dd);
            mbs_v3_sub(a2, a1, da);
            val = mbs_v3_dot(da, u) + 2.0 * mbs_v3_dot(dd, ud) + mbs_v3_dot(d, udd);
            break;
        case MBS_ROW_DISTANCE:
            mbs_kin_point(m, k, w->body1, w->r1, r1);
            mbs_kin_point(m, k, w->body2, w->r2, r2);
            mbs_kin_point_motion(m, k, w->body1, r1, v1, a1);
            mbs_kin_point_motion(m, k, w->body2, r2, v2, a2);
            mbs_v3_sub(r1, r2, d);
            mbs_v3_sub(v1, v2, dd);
            mbs_v3_sub(a1, a2, da);
            val = 2.0 * mbs_v3_dot(dd, dd) + 2.0 * mbs_v3_dot(d, da);
            break;
        case MBS_ROW_DRIVER: {
            double f2 = 0.0;
            mbs_function_eval(&m->joints[w->joint].driver, t, NULL, &f2);
            val = -f2;
            break;
        }
        }
        bias[i] = val;
    }
}

void mbs_constraints_add_gram(const MbsModel *m, const double *phiz, double alpha, double *A)
{
    const MbsTopology *tp = m->topo;
    size_t n = (size_t)tp->nnodes, nr = (size_t)tp->nrows;
    for (size_t i = 0; i < nr; ++i) {
        const int *cols = &tp->row_cols[tp->row_ptr[i]];
        int nc = tp->row_ptr[i + 1] - tp->row_ptr[i];
        for (int a = 0; a < nc; ++a) {
            double va = alpha * phiz[i + nr * (size_t)cols[a]];
            if (va == 0.0)
                continue;
            for (int b = 0; b < nc; ++b)
                A[(size_t)cols[b] + n * (size_t)cols[a]] += va * phiz[i + nr * (size_t)cols[b]];
        }
    }
}

int mbs_constraints_rank(const MbsModel *m, double t, const double *z)
{
    const double rank_rcond = 1e-9; /* relative to the largest singular value */
    int nr = mbs_model_nconstraints(m), n = mbs_model_ncoords(m);
    if (nr == 0 || n == 0)
        return 0;
    MbsKinematics k;
    if (mbs_kinematics_init(&k, m))
        return -1;
    double *drawn = z ? NULL : calloc((size_t)n, sizeof *drawn);
    double *phiz = malloc(sizeof(double) * (size_t)nr * (size_t)n);
    double *rhs = calloc((size_t)(nr > n ? nr : n), sizeof *rhs);
    MbsLeastSquares *ls = mbs_lsq_new(nr, n);
    int rank = -1;
    const double *at = z ? z : drawn;
    if (at && phiz && rhs && ls) {
        mbs_kinematics_positions(m, &k, at);
        mbs_constraints_eval(m, &k, t, at, NULL, phiz, NULL);
        rank = mbs_lsq_solve(ls, nr, n, phiz, rhs, rank_rcond);
    }
    mbs_lsq_free(ls);
    free(rhs);
    free(phiz);
    free(drawn);
    mbs_kinematics_free(&k);
    return rank;
}
