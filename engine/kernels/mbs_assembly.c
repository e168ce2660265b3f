#include "mbs_assembly.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mbs_constraints.h"
#include "mbs_dynamics.h"
#include "mbs_linalg.h"
#include "mbs_topology.h"

typedef struct {
    int n, nr;
    int npv; /* initial conditions on point velocities: rows below Phi_z in the velocity problem */
    MbsKinematics kin;
    MbsDynamics dyn;
    MbsLeastSquares *lsq;
    double *phi, *phiz, *phit, *A, *rhs;
    int *imposed; /* per coordinate: 1 if its value is imposed (driver, initial condition) */
    int *free_cols;
} Work;

static void work_free(Work *w)
{
    mbs_kinematics_free(&w->kin);
    mbs_dynamics_free(&w->dyn);
    mbs_lsq_free(w->lsq);
    free(w->phi);
    free(w->phiz);
    free(w->phit);
    free(w->A);
    free(w->rhs);
    free(w->imposed);
    free(w->free_cols);
}

static int work_init(Work *w, const MbsModel *m, MbsError *err)
{
    memset(w, 0, sizeof *w);
    w->n = m->topo->nnodes;
    w->nr = m->topo->nrows;
    for (int i = 0; i < m->ninitial; ++i)
        w->npv += m->initial[i].joint < 0;
    size_t n = (size_t)w->n + 1, nr = (size_t)w->nr + (size_t)w->npv + 1,
           big = n > nr ? n : nr;
    w->phi = calloc(nr, sizeof(double));
    w->phiz = calloc(nr * n, sizeof(double));
    w->phit = calloc(nr, sizeof(double));
    w->A = calloc((nr + n) * n, sizeof(double));
    w->rhs = calloc(big + n, sizeof(double));
    w->imposed = calloc(n, sizeof(int));
    w->free_cols = calloc(n, sizeof(int));
    w->lsq = mbs_lsq_new(w->nr + w->npv, w->n);
    if (mbs_kinematics_init(&w->kin, m) || mbs_dynamics_init(&w->dyn, m) || !w->phi ||
        !w->phiz || !w->phit || !w->A || !w->rhs || !w->imposed || !w->free_cols || !w->lsq) {
        work_free(w);
        return mbs_error_set(err, MBS_FATAL, "out of memory");
    }
    return 0;
}

/* Row with the largest |residual| and the joint it belongs to, for error messages. */
static const char *worst_joint(const MbsModel *m, const double *r, double *worst)
{
    int best = 0;
    for (int i = 1; i < m->topo->nrows; ++i)
        if (fabs(r[i]) > fabs(r[best]))
            best = i;
    *worst = m->topo->nrows ? fabs(r[best]) : 0.0;
    return m->topo->nrows ? m->joints[m->topo->rows[best].joint].name : "-";
}

/* Copy the free columns of phiz into A (nr x nfree). */
static int gather_free(Work *w)
{
    int nf = 0;
    for (int j = 0; j < w->n; ++j)
        if (!w->imposed[j])
            w->free_cols[nf++] = j;
    for (int c = 0; c < nf; ++c)
        memcpy(&w->A[(size_t)w->nr * c], &w->phiz[(size_t)w->nr * w->free_cols[c]],
               sizeof(double) * (size_t)w->nr);
    return nf;
}

static int solve_positions(const MbsModel *m, const MbsSettings *s, Work *w, double t, double *z,
                           MbsError *err)
{
    const double tol = fmax(s->assembly_tolerance, 1e-13);
    double res = INFINITY;
    for (int it = 0; it < 60; ++it) {
        mbs_kinematics_positions(m, &w->kin, z);
        mbs_constraints_eval(m, &w->kin, t, z, w->phi, w->phiz, NULL);
        res = mbs_vec_norminf(w->nr, w->phi);
        if (!isfinite(res))
            break;
        if (res <= tol)
            return 0;
        int nf = gather_free(w);
        for (int i = 0; i < w->nr; ++i)
            w->rhs[i] = -w->phi[i];
        if (mbs_lsq_solve(w->lsq, w->nr, nf, w->A, w->rhs, 1e-10) < 0)
            break;
        double step = mbs_vec_norminf(nf, w->rhs);
        /* Limit large Newton steps: a far-off drawing must not jump to another branch. */
        double scale = step > 0.5 ? 0.5 / step : 1.0;
        for (int c = 0; c < nf; ++c)
            z[w->free_cols[c]] += scale * w->rhs[c];
        if (step < 1e-15 && res < 1e-9)
            return 0; /* converged to round-off */
    }
    double worst;
    const char *joint = worst_joint(m, w->phi, &worst);
    return mbs_error_set(err, MBS_FATAL,
                         "the mechanism cannot be assembled: constraint residual %.3g at joint '%s'"
                         " (loop cannot be closed, or the imposed coordinates are incompatible)",
                         worst, joint);
}

/* The velocity problem's rows below Phi_z: u . v_P(zd) = value for each point velocity given
 * (into w->A's rows nr.. of leading dimension nr + npv, free columns only; w->rhs likewise).
 * Imposed coordinates move to the right side. */
static void point_velocity_rows(const MbsModel *m, Work *w, int nf, const double *zd)
{
    int ld = w->nr + w->npv, row = w->nr;
    double *full = w->phit; /* scratch: n entries of one row, phit no longer needed */
    for (int i = 0; i < m->ninitial; ++i) {
        const MbsInitialCondition *ic = &m->initial[i];
        if (ic->joint >= 0)
            continue;
        const MbsPoint *p = &m->points[ic->point];
        double r[3];
        mbs_kin_point(m, &w->kin, p->body, p->pos, r);
        mbs_kin_point_velocity_row(m, &w->kin, p->body, r, ic->direction, full, 1);
        double rhs = ic->value;
        for (int j = 0; j < w->n; ++j)
            if (w->imposed[j])
                rhs -= full[j] * zd[j];
        for (int c = 0; c < nf; ++c)
            w->A[row + (size_t)ld * c] = full[w->free_cols[c]];
        w->rhs[row++] = rhs;
    }
}

static int solve_velocities(const MbsModel *m, Work *w, double t, const double *z, double *zd,
                            MbsError *err)
{
    mbs_kinematics_positions(m, &w->kin, z);
    mbs_constraints_eval(m, &w->kin, t, z, w->phi, w->phiz, w->phit);
    int nf = gather_free(w), rows = w->nr + w->npv;
    /* Phi_z(free) zd_free = -Phi_t - Phi_z(imposed) zd_imposed */
    for (int i = 0; i < w->nr; ++i) {
        double r = -w->phit[i];
        for (int j = 0; j < w->n; ++j)
            if (w->imposed[j])
                r -= w->phiz[i + (size_t)w->nr * j] * zd[j];
        w->rhs[i] = r;
    }
    if (w->npv) {
        /* re-lay Phi_z's free columns with the longer leading dimension, from the last */
        for (int c = nf - 1; c >= 0; --c)
            memmove(&w->A[(size_t)rows * c], &w->A[(size_t)w->nr * c],
                    sizeof(double) * (size_t)w->nr);
        point_velocity_rows(m, w, nf, zd);
    }
    if (mbs_lsq_solve(w->lsq, rows, nf, w->A, w->rhs, 1e-10) < 0)
        return mbs_error_set(err, MBS_FATAL, "velocity problem: least-squares solver failed");
    for (int c = 0; c < nf; ++c)
        zd[w->free_cols[c]] = w->rhs[c];
    /* the point velocities given must be met exactly, else they contradict the constraints or
     * each other */
    if (w->npv) {
        /* Phi_t again (point_velocity_rows used it as scratch) */
        mbs_constraints_eval(m, &w->kin, t, z, w->phi, w->phiz, w->phit);
        mbs_kinematics_velocities(m, &w->kin, zd);
        for (int i = 0; i < m->ninitial; ++i) {
            const MbsInitialCondition *ic = &m->initial[i];
            if (ic->joint >= 0)
                continue;
            const MbsPoint *p = &m->points[ic->point];
            double r[3], v[3];
            mbs_kin_point(m, &w->kin, p->body, p->pos, r);
            mbs_kin_point_motion(m, &w->kin, p->body, r, v, NULL);
            double got = mbs_v3_dot(v, ic->direction);
            if (fabs(got - ic->value) > 1e-8 * (1.0 + fabs(ic->value)))
                return mbs_error_set(err, MBS_FATAL,
                                     "the initial velocity of point '%s' (%.6g along [%.3g, "
                                     "%.3g, %.3g]) cannot be met: the mechanism allows %.6g "
                                     "there (too many or contradictory initial velocities?)",
                                     p->name, ic->value, ic->direction[0], ic->direction[1],
                                     ic->direction[2], got);
        }
    }
    /* Check the imposed velocities were compatible. */
    double scale = 1.0 + mbs_vec_norminf(w->n, zd);
    for (int i = 0; i < w->nr; ++i) {
        double r = w->phit[i];
        for (int j = 0; j < w->n; ++j)
            r += w->phiz[i + (size_t)w->nr * j] * zd[j];
        w->phi[i] = r;
    }
    double worst;
    const char *joint = worst_joint(m, w->phi, &worst);
    if (worst > 1e-8 * scale)
        return mbs_error_set(err, MBS_FATAL,
                             "the initial velocities are incompatible with the constraints: "
                             "velocity residual %.3g at joint '%s'",
                             worst, joint);
    return 0;
}

static void mark_imposed(const MbsModel *m, Work *w, double t, double *z, double *zd)
{
    const MbsTopology *tp = m->topo;
    for (int j = 0; j < m->njoints; ++j) {
        if (!m->joints[j].driven || tp->joint_node[j] < 0)
            continue;
        int nd = tp->joint_node[j];
        w->imposed[nd] = 1;
        z[nd] = mbs_function_eval(&m->joints[j].driver, t, &zd[nd], NULL);
    }
}

int mbs_assemble(const MbsModel *m, const MbsSettings *s, double t, double *z, double *zd,
                 MbsBodyState *bodies, MbsError *err)
{
    Work w;
    if (work_init(&w, m, err))
        return MBS_FATAL;
    const MbsTopology *tp = m->topo;
    memset(z, 0, sizeof(double) * (size_t)w.n);
    memset(zd, 0, sizeof(double) * (size_t)w.n);
    int status = 0;

    /* Position problem: drivers and initial positions held. */
    mark_imposed(m, &w, t, z, zd);
    for (int i = 0; i < m->ninitial; ++i) {
        const MbsInitialCondition *ic = &m->initial[i];
        /* a point's velocity (joint -1) and joint rates are not positions */
        if (ic->is_velocity || ic->joint < 0 || tp->joint_node[ic->joint] < 0)
            continue;
        /* joint_node is coordinate 0; other coordinates of the joint are its neighbours */
        for (int k = 0; k < tp->nnodes; ++k)
            if (tp->nodes[k].joint == ic->joint && tp->nodes[k].joint_coord == ic->coordinate) {
                z[k] = ic->value;
                w.imposed[k] = 1;
            }
    }
    status = solve_positions(m, s, &w, t, z, err);

    /* Velocity problem: drivers and initial velocities held. */
    if (status == 0) {
        memset(w.imposed, 0, sizeof(int) * (size_t)w.n);
        mark_imposed(m, &w, t, z, zd);
        for (int i = 0; i < m->ninitial; ++i) {
            const MbsInitialCondition *ic = &m->initial[i];
            if (!ic->is_velocity)
                continue;
            for (int k = 0; k < tp->nnodes; ++k)
                if (tp->nodes[k].joint == ic->joint && tp->nodes[k].joint_coord == ic->coordinate) {
                    zd[k] = ic->value;
                    w.imposed[k] = 1;
                }
        }
        status = solve_velocities(m, &w, t, z, zd, err);
    }

    if (status == 0 && bodies) {
        mbs_kinematics_positions(m, &w.kin, z);
        mbs_kinematics_velocities(m, &w.kin, zd);
        for (int b = 0; b < m->nbodies; ++b) {
            MbsBodyState *bs = &bodies[b];
            double g[3];
            mbs_kin_body_pose(m, &w.kin, b, bs->R, bs->p);
            mbs_kin_point(m, &w.kin, b, m->bodies[b].com, g);
            mbs_kin_point_motion(m, &w.kin, b, g, bs->v_com, NULL);
            mbs_kin_body_omega(m, &w.kin, b, bs->omega);
        }
    }
    work_free(&w);
    return status;
}

int mbs_assemble_accelerations(const MbsModel *m, const MbsSettings *s, double t,
                               const double *z, const double *zd, double *zdd, MbsError *err)
{
    Work w;
    if (work_init(&w, m, err))
        return MBS_FATAL;
    int n = w.n, nr = w.nr, status = 0;
    double *M = calloc((size_t)n * n + 1, sizeof(double));
    double *Q = calloc((size_t)n + 1, sizeof(double));
    double *bias = calloc((size_t)nr + 1, sizeof(double));
    double *lambda = calloc((size_t)nr + 1, sizeof(double));
    int *ipiv = calloc((size_t)n + 1, sizeof(int));
    if (!M || !Q || !bias || !lambda || !ipiv) {
        status = mbs_error_set(err, MBS_FATAL, "out of memory");
        goto done;
    }
    mbs_kinematics_positions(m, &w.kin, z);
    mbs_kinematics_velocities(m, &w.kin, zd);
    mbs_constraints_eval(m, &w.kin, t, z, NULL, w.phiz, NULL);
    mbs_constraints_bias(m, &w.kin, t, bias);
    mbs_dynamics_mass(m, &w.kin, &w.dyn, M);
    mbs_dynamics_forces(m, &w.kin, &w.dyn, z, zd, Q);

    /* Scale the penalty with the mass matrix so the iteration converges fast. */
    double mscale = 0.0;
    for (int i = 0; i < n; ++i)
        mscale = fmax(mscale, fabs(M[i + (size_t)n * i]));
    double alpha = 1e6 * (mscale > 0.0 ? mscale : 1.0);
    /* (M + alpha Phi_z^T Phi_z) zdd = Q - Phi_z^T (lambda + alpha c); update lambda. */
    memcpy(w.A, M, sizeof(double) * (size_t)n * n);
    mbs_gemm_tn(n, n, nr, alpha, w.phiz, w.phiz, 1.0, w.A);
    if (n && mbs_lu_factor(n, w.A, ipiv) != 0) {
        status = mbs_error_set(err, MBS_FATAL,
                               "acceleration problem: the leading matrix is singular (a body "
                               "without mass or inertia in an unconstrained direction?)");
        goto done;
    }
    double res = INFINITY;
    for (int it = 0; it < 50 && n; ++it) {
        for (int i = 0; i < nr; ++i)
            w.rhs[i] = lambda[i] + alpha * bias[i];
        for (int j = 0; j < n; ++j) {
            double v = Q[j];
            for (int i = 0; i < nr; ++i)
                v -= w.phiz[i + (size_t)nr * j] * w.rhs[i];
            zdd[j] = v;
        }
        mbs_lu_solve(n, w.A, ipiv, zdd, 1);
        res = 0.0;
        for (int i = 0; i < nr; ++i) {
            double r = bias[i];
            for (int j = 0; j < n; ++j)
                r += w.phiz[i + (size_t)nr * j] * zdd[j];
            lambda[i] += alpha * r;
            res = fmax(res, fabs(r));
        }
        if (res < 1e-11 * (1.0 + mbs_vec_norminf(n, zdd)))
            break;
    }
    if (!(res < 1e-6 * (1.0 + mbs_vec_norminf(n, zdd))))
        status = mbs_error_set(err, MBS_FATAL,
                               "acceleration problem did not converge (residual %.3g)", res);
    (void)s;
done:
    free(M);
    free(Q);
    free(bias);
    free(lambda);
    free(ipiv);
    work_free(&w);
    return status;
}
