/* matrix-r sensitivities: the one derivative source (see sens_matrix_r.c for the equations
 * they feed). J = d[F; g; w]/d[z_i, zd_i, zdd_i] and P = d[F; g; w]/drho at a stored state:
 * the state columns by matrix-r's exact directional derivatives (or the tangent interface's
 * differences), the objectives along each direction, the parameters by central differences of
 * rebuilt models (of the part of the model a parameter of the dynamics changes; of the
 * geometry's explicit terms, carried through matrix-r's exact parameter directions); and the
 * map of the independent state across a change of partition. */
#include <float.h>
#include <math.h>
#include <string.h>

#include "mbs_linalg.h"
#include "mbs_objective.h"
#include "sens_direct.h"
#include "mbs_dynamics_derivatives.h"
#include "sens_matrix_r_private.h"

/* --- derivatives (the one source: swap for analytical ones here) ------------------------- */

/* [F; g] at the base point's time for the state x = [z_i, zd_i, zdd_i] of formulation f on
 * model m, the dependent coordinates starting from guess. */
static int eval_outputs(Sens *S, MbsFormulation *f, const MbsModel *m, const double *guess,
                        const double *x, double *out)
{
    int d = S->d;
    /* the probe's evaluation is the base of derivatives (its R^T M R is F_a); the rebuilt
     * models' give residuals alone */
    int status = f == S->probe ? mbs_matrix_r_reduced_residual(f, S->t, guess, x, x + d,
                                                               x + 2 * d, out, S->err)
                               : mbs_matrix_r_residual(f, S->t, guess, x, x + d, x + 2 * d,
                                                       out, S->err);
    if (status)
        return status;
    MbsMatrixRView v;
    mbs_matrix_r_view(f, &v);
    return S->obj.values(S->obj.ctx, m, v.kin, S->t, v.z, v.zd, v.zdd, out + d, out + d + S->k);
}

/* Tangent callback: a moved independent position also moves the dependent guess by R^Phi
 * (first-order prediction, as matrix-r's own tangent does). */
static void moved_state(Sens *S, const double *x, int column, double step)
{
    int n = S->n, d = S->d;
    memcpy(S->guess, S->zbase, sizeof(double) * (size_t)n);
    if (column >= 0 && column < d)
        for (int i = 0; i < n; ++i)
            S->guess[i] += step * S->Rbase[i + (size_t)n * column];
    memcpy(S->xfull, x, sizeof(double) * 2 * (size_t)d); /* x = [z_i, zd_i]; zdd_i held */
    memcpy(S->xfull + 2 * d, S->x0 + 2 * d, sizeof(double) * (size_t)d);
}

int mr_sens_state_residual(void *ctx, const double *x, int column, double step, double *out)
{
    Sens *S = ctx;
    moved_state(S, x, column, step);
    return eval_outputs(S, S->probe, S->model, S->guess, S->xfull, out);
}

static int objective_direction(Sens *S, const double *dz, const double *dzd, const double *dzdd,
                               const double *motion, const MbsModelDirection *model,
                               double *col);

/* Columns of zdd_i: F is linear in it (F_a = R^T M R, 001 eq 29) and g reads it through
 * zdd = R^Phi zdd_i + S c, so no kinematic problem is solved again: F_a is copied, g_a is the
 * objectives' directional derivative along R^Phi e_j, or central differences of g alone
 * (exact for g quadratic in zdd). S->base holds the base evaluation. */
static int acceleration_columns(Sens *S)
{
    int n = S->n, d = S->d, no = S->nout, status;
    MbsMatrixRView v;
    mbs_matrix_r_view(S->base, &v);
    for (int j = 0; j < d; ++j) {
        double *col = S->J + (size_t)no * (2 * d + j);
        for (int i = 0; i < d; ++i)
            col[i] = v.Mh[i + (size_t)d * j];
        if (S->obj.directional) {
            if ((status = objective_direction(S, S->zero, S->zero, v.Rz + (size_t)n * j, NULL,
                                              NULL, col + d)))
                return status;
            continue;
        }
        double step = 6e-6 * fmax(1.0, fabs(S->x0[2 * d + j]));
        for (int sgn = 0; sgn < 2; ++sgn) {
            double dz = sgn ? -step : step;
            for (int i = 0; i < n; ++i)
                S->guess[i] = v.zdd[i] + dz * v.Rz[i + (size_t)n * j];
            double *o = sgn ? S->rm : S->rp;
            if ((status = S->obj.values(S->obj.ctx, S->model, v.kin, S->t, v.z, v.zd, S->guess,
                                        o, o + S->k)))
                return status;
        }
        for (int i = 0; i < 2 * S->k; ++i)
            col[d + i] = (S->rp[i] - S->rm[i]) / (2.0 * step);
    }
    return 0;
}

/* Columns of P for parameters that change only the dynamics: the kinematic problems, R^Phi and
 * S c do not depend on them, so F_rho = R^T (M_rho zdd - Q_rho), and the objectives (points,
 * joints, angular velocities) do not read them: g_rho = w_rho = 0. Q - M zdd of the rebuilt
 * models is taken at the base evaluation's kinematics with the accelerations in D (the forces
 * kernel then gives Q - M zdd without forming M), of the part of the model the parameter
 * changes only (its bodies and force elements, sens_setup): the rest cancels in the central
 * difference. */
static void dynamic_parameter_columns(Sens *S)
{
    int n = S->n, d = S->d, no = S->nout;
    MbsMatrixRView v;
    mbs_matrix_r_view(S->base, &v);
    S->kin_acc = *v.kin; /* the base's positions and velocities, D with the accelerations */
    S->kin_acc.D = S->node_D;
    double *plus = S->Mzdd, *minus = S->Mzdd + n;
    for (int j = 0; j < S->p; ++j) {
        if (!S->dynamic_only[j])
            continue;
        const unsigned char *bodies = S->part_bodies + (size_t)S->model->nbodies * j;
        const unsigned char *forces = S->part_forces + (size_t)S->model->nforces * j;
        double scale = -1.0; /* F = R^T (M zdd - Q) */
        if (S->dynamic_way[j] == MR_DYNAMIC_PART) {
            mbs_dynamics_forces_part(S->pmodel[2 * j], &S->kin_acc, &S->dyn, v.z, v.zd, bodies,
                                     forces, plus);
            mbs_dynamics_forces_part(S->pmodel[2 * j + 1], &S->kin_acc, &S->dyn, v.z, v.zd,
                                     bodies, forces, minus);
            for (int i = 0; i < n; ++i)
                plus[i] -= minus[i];
            scale = -1.0 / (2.0 * S->delta[j]);
        } else {
            mbs_dynamics_forces_parameter_derivative(
                S->model, v.kin, S->node_D, v.z, v.zd,
                S->dynamic_way[j] == MR_DYNAMIC_MASSES ? &S->gdir[j] : NULL, S->pmodel[2 * j],
                S->pmodel[2 * j + 1], S->delta[j],
                S->dynamic_way[j] == MR_DYNAMIC_LAWS ? forces : NULL, S->dWpar, plus);
        }
        double *col = S->P + (size_t)no * j;
        if (d > 0)
            mbs_gemv(1, n, d, scale, v.Rz, n, plus, 0.0, col);
        for (int i = d; i < no; ++i)
            col[i] = 0.0;
    }
}

/* What parameter j's rebuilt models change, when it changes only the dynamics. */
int mr_sens_parameter_part(Sens *S, int j)
{
    const MbsModel *m = S->model;
    if (sens_parameter_part(m, S->params[j], S->part_bodies + (size_t)m->nbodies * j,
                            S->part_forces + (size_t)m->nforces * j))
        return mbs_error_set(S->err, MBS_FATAL, "out of memory");
    return 0;
}

/* The evaluation formulations take the partition of checkpoint `at` when it is not the one
 * they hold (the first time, and after a change of partition), and always its priors of the
 * damped solves: near a singular position their evaluations then repeat the run's (the
 * adjoint's come in reverse order, the direct method's base is the run's own; issue 28). */
int mr_sens_align(Sens *S, const MbsCheckpoint *at)
{
    int count, status;
    const double *part = mbs_matrix_r_checkpoint_partition(at, S->n, S->nr, &count);
    for (int j = 0; j < 2 * S->p; ++j)
        if (S->pform[j] && mbs_matrix_r_pin_priors(S->pform[j], at))
            return mbs_error_set(S->err, MBS_FATAL, "matrix-r sensitivities: a checkpoint "
                                 "without the priors of its damped solves");
    if (mbs_matrix_r_pin_priors(S->probe, at))
        return mbs_error_set(S->err, MBS_FATAL, "matrix-r sensitivities: a checkpoint without "
                             "the priors of its damped solves");
    if (S->aligned && !memcmp(part, S->aligned_partition, sizeof(double) * (size_t)count))
        return 0;
    for (int j = 0; j < 2 * S->p; ++j)
        if ((status = mbs_formulation_restore(S->pform[j], at, S->err)))
            return status;
    if ((status = mbs_formulation_restore(S->probe, at, S->err)))
        return status;
    memcpy(S->aligned_partition, part, sizeof(double) * (size_t)count);
    if (mbs_matrix_r_checkpoint_independent(at, S->n, S->ind) != S->d)
        return mbs_error_set(S->err, MBS_FATAL, "matrix-r sensitivities: the number of degrees "
                             "of freedom changed at t = %.6g s", at->time);
    S->aligned = 1;
    return 0;
}

/* The objectives' derivative along the direction (dz, dzd, dzdd) of the full coordinates at the
 * base state, into col (2k: g then w): the objectives' own directional derivative when they
 * offer one (S->node_D: the whole accelerations there), otherwise central differences of the
 * objectives alone (their kinematics at the moved state, no position problem), the step a
 * cube root of eps relative to each block of the state. */
static int objective_direction(Sens *S, const double *dz, const double *dzd, const double *dzdd,
                               const double *motion, const MbsModelDirection *model,
                               double *col)
{
    int n = S->n, k = S->k;
    MbsMatrixRView v;
    mbs_matrix_r_view(S->base, &v);
    if (S->obj.directional && motion) { /* the motion matrix-r's direction kept */
        MbsConstraintsDerivatives kept = S->cw;
        kept.model = model; /* the objectives' points move with the drawing */
        kept.T = (double *)motion;
        kept.dZv = (double *)motion + 6 * (size_t)n;
        kept.dD = (double *)motion + 12 * (size_t)n;
        return S->obj.directional(S->obj.ctx, S->model, v.kin, &kept, S->node_D, v.z, v.zd, dz,
                                  dzd, col, col + k);
    }
    if (S->obj.directional) { /* exactly, from the direction's motion */
        if (model) /* the drawing's direction and dz's */
            mbs_constraints_derivatives_model_direction(S->model, v.kin, &S->cw, model, dz);
        if (dz == S->zero && dzd == S->zero && !model) /* the columns of zdd_i */
            mbs_constraints_derivatives_accelerations(S->model, v.kin, &S->cw, dzdd);
        else if (model)
            mbs_constraints_derivatives_motion(S->model, v.kin, &S->cw, v.zd, dzd, v.zdd, dzdd);
        else {
            mbs_constraints_derivatives_direction(S->model, v.kin, &S->cw, dz);
            mbs_constraints_derivatives_motion(S->model, v.kin, &S->cw, v.zd, dzd, v.zdd, dzdd);
        }
        return S->obj.directional(S->obj.ctx, S->model, v.kin, &S->cw, S->node_D, v.z, v.zd, dz,
                                  dzd, col, col + k);
    }
    const double *base[3] = {v.z, v.zd, v.zdd}, *dir[3] = {dz, dzd, dzdd};
    double ratio = 0.0;
    for (int b = 0; b < 3; ++b) {
        double size = 1.0, move = 0.0;
        for (int i = 0; i < n; ++i) {
            size = fmax(size, fabs(base[b][i]));
            move = fmax(move, fabs(dir[b][i]));
        }
        ratio = fmax(ratio, move / size);
    }
    if (ratio == 0.0) {
        memset(col, 0, sizeof(double) * 2 * (size_t)k);
        return 0;
    }
    double eps = cbrt(DBL_EPSILON) / ratio;
    for (int sgn = 0; sgn < 2; ++sgn) {
        double e = sgn ? -eps : eps;
        for (int b = 0; b < 3; ++b)
            for (int i = 0; i < n; ++i)
                S->xt[(size_t)n * b + i] = base[b][i] + e * dir[b][i];
        mbs_kinematics_positions(S->model, &S->kin, S->xt);
        mbs_kinematics_velocities(S->model, &S->kin, S->xt + n);
        double *o = sgn ? S->rm : S->rp;
        int status = S->obj.values(S->obj.ctx, S->model, &S->kin, S->t, S->xt, S->xt + n,
                                   S->xt + 2 * (size_t)n, o, o + k);
        if (status)
            return status;
    }
    for (int i = 0; i < 2 * k; ++i)
        col[i] = (S->rp[i] - S->rm[i]) / (2.0 * eps);
    return 0;
}

/* Columns z_i, zd_i of J by matrix-r's directional derivatives (analytical, or ad: W
 * directions per dual pass): dF exactly and the directions of z, zd, zdd, along which the
 * objectives are differenced (objective_direction). The probe holds the base evaluation.
 * Returns the passes made (analytical: calls of up to n columns), or -1. */
static long exact_state_columns(Sens *S)
{
    int n = S->n, d = S->d, no = S->nout;
    int analytical = S->opt.jacobian == MBS_JACOBIAN_ANALYTICAL;
    int W = analytical ? n : MBS_DUAL_WIDTH;
    long passes = 0;
    for (int first = 0; first < 2 * d; first += W, ++passes) {
        int count = 2 * d - first < W ? 2 * d - first : W;
        memset(S->sz, 0, sizeof(double) * (size_t)d * count);
        memset(S->sv, 0, sizeof(double) * (size_t)d * count);
        for (int w = 0; w < count; ++w) {
            int j = first + w;
            if (j < d)
                S->sz[j + (size_t)d * w] = 1.0;
            else
                S->sv[j - d + (size_t)d * w] = 1.0;
        }
        MbsMatrixRDirections dir;
        if (mbs_matrix_r_reduced_directions(S->base, analytical, S->t, S->x0 + 2 * d, count,
                                            S->sz, S->sv, NULL, S->dF, &dir))
            return -1;
        for (int w = 0; w < count; ++w) {
            double *col = S->J + (size_t)no * (first + w);
            for (int i = 0; i < d; ++i)
                col[i] = S->dF[i + (size_t)d * w];
            size_t at = (size_t)n * w;
            if (objective_direction(S, dir.dz + at, dir.dzd + at, dir.dzdd + at,
                                    dir.motion ? dir.motion + 18 * at : NULL, NULL, col + d))
                return -1;
        }
    }
    return passes;
}

/* Columns of P for parameters of the geometry, with exact state derivatives: the terms of
 * the equations whose explicit derivatives matrix-r's parameter directions need (Phi, the
 * velocity and acceleration equations' rows, G - Phi_z^T mu) and the objectives, on the
 * models rebuilt with rho_j +- delta_j at the base's coordinates, differenced; then dF/drho
 * and the full directions dz, dzd, dzdd / drho from matrix-r (paper 001 eqs 55-61), along
 * which the objectives are differentiated like any direction of the state. No position
 * problem is solved. Needs the base's state columns first (it reuses their K, C and mu). */
static int geometric_parameter_columns(Sens *S)
{
    int n = S->n, d = S->d, k = S->k, no = S->nout, status;
    int ne = mbs_matrix_r_parameter_terms_size(S->base);
    const double *zddi = S->x0 + 2 * d;
    int count = 0;
    for (int j = 0; j <= S->p; ++j) {
        if (j < S->p && !S->dynamic_only[j] && S->gdir_ok[j]) {
            S->gmodels[count] = &S->gdir[j]; /* its terms come with its direction */
            S->gcols[count++] = j;
        } else if (j < S->p && !S->dynamic_only[j]) {
            S->gmodels[count] = NULL;
            double *E = S->Eg + (size_t)ne * count, *gx = S->gexp + 2 * (size_t)k * count;
            for (int s = 0; s < 2; ++s) {
                double *e = s ? S->em : S->ep, *o = s ? S->rm : S->rp;
                if (mbs_matrix_r_parameter_terms(S->base, S->pform[2 * j + s], S->t, zddi, e))
                    return mbs_error_set(S->err, MBS_FATAL, "matrix-r sensitivities: the "
                                         "geometry's terms failed at t = %.6g s", S->t);
                MbsMatrixRView v;
                mbs_matrix_r_view(S->pform[2 * j + s], &v);
                if ((status = S->obj.values(S->obj.ctx, S->pmodel[2 * j + s], v.kin, S->t, v.z,
                                            v.zd, v.zdd, o, o + k)))
                    return status;
            }
            double c = 1.0 / (2.0 * S->delta[j]);
            for (int i = 0; i < ne; ++i)
                E[i] = c * (S->ep[i] - S->em[i]);
            for (int i = 0; i < 2 * k; ++i)
                gx[i] = c * (S->rp[i] - S->rm[i]);
            S->gcols[count++] = j;
            S->res->derivative_evaluations += 2;
        }
        if (count == 0 || (count < n && j < S->p))
            continue;
        MbsMatrixRDirections dir;
        if (mbs_matrix_r_parameter_directions(S->base, S->t, zddi, count, S->Eg,
                                              (const MbsModelDirection *const *)S->gmodels,
                                              S->dFg, &dir))
            return mbs_error_set(S->err, MBS_FATAL, "matrix-r sensitivities: the geometry's "
                                 "directions failed at t = %.6g s", S->t);
        for (int w = 0; w < count; ++w) {
            int jj = S->gcols[w];
            double *col = S->P + (size_t)no * jj;
            size_t at = (size_t)n * w;
            for (int i = 0; i < d; ++i)
                col[i] = S->dFg[i + (size_t)d * w];
            const MbsModelDirection *model = S->gmodels[w];
            if ((status = objective_direction(S, dir.dz + at, dir.dzd + at, dir.dzdd + at,
                                              dir.motion ? dir.motion + 18 * at : NULL, model,
                                              col + d)))
                return status;
            for (int i = 0; i < 2 * k && !model; ++i) /* the differenced explicit part */
                col[d + i] += S->gexp[i + 2 * (size_t)k * w];
            memcpy(S->zrho + (size_t)n * jj, dir.dz + at, sizeof(double) * (size_t)n);
        }
        count = 0;
    }
    return 0;
}

/* J = d[F; g]/d[z_i, zd_i, zdd_i] and P = d[F; g]/drho at the checkpointed state `at`
 * (tangent interface; central differences of the models rebuilt with rho_j +- delta_j). On
 * return S->x0 is the state and S->r0 = [F; g] there. */
int mr_sens_derivatives(Sens *S, const MbsCheckpoint *at)
{
    int n = S->n, d = S->d, status;
    if ((status = mr_sens_align(S, at)))
        return status;
    S->t = at->time;
    const double *z, *zd, *zdd;
    mbs_matrix_r_checkpoint_coordinates(at, n, &z, &zd, &zdd);
    for (int i = 0; i < d; ++i) { /* constant B: the independent ones are entries of z */
        S->x0[i] = z[S->ind[i]];
        S->x0[d + i] = zd[S->ind[i]];
        S->x0[2 * d + i] = zdd[S->ind[i]];
    }
    /* direct with exact state derivatives: the run's last evaluation is at this state (the
     * step ends with one), so it is the base; otherwise the probe evaluates it */
    S->base = S->method == MBS_SENS_DIRECT && S->ad ? S->stepper : S->probe;
    MbsMatrixRView v;
    if (S->base == S->probe) {
        if ((status = eval_outputs(S, S->probe, S->model, z, S->x0, S->r0)))
            return status;
        mbs_matrix_r_view(S->probe, &v);
    } else {
        mbs_matrix_r_current_residual(S->stepper, S->x0 + 2 * d, S->r0);
        mbs_matrix_r_view(S->stepper, &v);
        if ((status = S->obj.values(S->obj.ctx, S->model, v.kin, S->t, v.z, v.zd, v.zdd,
                                    S->r0 + d, S->r0 + d + S->k)))
            return status;
    }
    mbs_kinematics_accelerations(S->model, v.kin, v.zdd, S->node_acc, S->node_D);
    memcpy(S->zbase, v.z, sizeof(double) * (size_t)n);
    memcpy(S->Rbase, v.Rz, sizeof(double) * (size_t)n * d);
    dynamic_parameter_columns(S);
    if ((status = acceleration_columns(S)))
        return status;
    if (S->ad) {
        long passes = exact_state_columns(S);
        if (passes < 0)
            return mbs_error_set(S->err, MBS_FATAL, "matrix-r sensitivities: the directional "
                                 "derivatives failed at t = %.6g s", S->t);
        S->res->derivative_evaluations += passes + 1; /* a dual pass counts as one */
    } else {
        if ((status = mbs_tangent_eval(&S->tangent, S->x0, S->r0, S->J)))
            return status;
        S->res->derivative_evaluations += S->tangent.evaluations + 1;
    }
    if (S->ad) /* exactly, from the geometry's explicit terms */
        return geometric_parameter_columns(S);
    for (int j = 0; j < S->p; ++j) {
        if (S->dynamic_only[j])
            continue;
        for (int s = 0; s < 2; ++s) {
            /* the rebuilt model's dependent coordinates move by about +-delta dz/drho (the
             * last one taken): a guess that saves the position problem an iteration */
            double step = s ? -S->delta[j] : S->delta[j];
            for (int i = 0; i < n; ++i)
                S->guess[i] = S->zbase[i] + step * S->zrho[i + (size_t)n * j];
            if ((status = eval_outputs(S, S->pform[2 * j + s], S->pmodel[2 * j + s], S->guess,
                                       S->x0, s ? S->rm : S->rp)))
                return status;
        }
        MbsMatrixRView vp, vm;
        mbs_matrix_r_view(S->pform[2 * j], &vp);
        mbs_matrix_r_view(S->pform[2 * j + 1], &vm);
        for (int i = 0; i < n; ++i)
            S->zrho[i + (size_t)n * j] = (vp.z[i] - vm.z[i]) / (2.0 * S->delta[j]);
        for (int i = 0; i < S->nout; ++i)
            S->P[i + (size_t)S->nout * j] = (S->rp[i] - S->rm[i]) / (2.0 * S->delta[j]);
        S->res->derivative_evaluations += 2;
    }
    return 0;
}

/* --- changes of partition ---------------------------------------------------------------- */

/* [z; zd; zdd][ind_new] of an evaluation of f at x = [z_i, zd_i, zdd_i] (aligned partition). */
static int eval_map(Sens *S, MbsFormulation *f, const double *guess, const double *x,
                    double *out)
{
    int d = S->d;
    int status = mbs_matrix_r_reduced_residual(f, S->t, guess, x, x + d, x + 2 * d, S->mtmp,
                                               S->err);
    if (status)
        return status;
    MbsMatrixRView v;
    mbs_matrix_r_view(f, &v);
    for (int i = 0; i < d; ++i) {
        out[i] = v.z[S->ind_new[i]];
        out[d + i] = v.zd[S->ind_new[i]];
        out[2 * d + i] = v.zdd[S->ind_new[i]];
    }
    return 0;
}

int mr_sens_map_residual(void *ctx, const double *x, int column, double step, double *out)
{
    Sens *S = ctx;
    moved_state(S, x, column, step);
    return eval_map(S, S->probe, S->guess, S->xfull, out);
}

/* Mx = d y/d x and Mp = d y/d rho of y = [z; zd; zdd][ind_new] at checkpoint `at` (its own
 * partition, the old one): the independent state the next step starts from (matrix-r
 * re-chooses the partition at a consistent state and reads z_i, zd_i, zdd_i from z, zd, zdd).
 * Columns of zdd_i: zdd = R^Phi zdd_i + S c, so d zdd / d zdd_i = R^Phi; rho: central
 * differences of the rebuilt models (parameters of the dynamics alone change nothing here). */
int mr_sens_partition_map(Sens *S, const MbsCheckpoint *at)
{
    int n = S->n, d = S->d, nx = S->nx, status;
    if ((status = mr_sens_align(S, at)))
        return status;
    S->t = at->time;
    const double *z, *zd, *zdd;
    mbs_matrix_r_checkpoint_coordinates(at, n, &z, &zd, &zdd);
    for (int i = 0; i < d; ++i) {
        S->x0[i] = z[S->ind[i]];
        S->x0[d + i] = zd[S->ind[i]];
        S->x0[2 * d + i] = zdd[S->ind[i]];
    }
    if ((status = eval_map(S, S->probe, z, S->x0, S->r0)))
        return status;
    MbsMatrixRView v;
    mbs_matrix_r_view(S->probe, &v);
    memcpy(S->zbase, v.z, sizeof(double) * (size_t)n);
    memcpy(S->Rbase, v.Rz, sizeof(double) * (size_t)n * d);
    for (int j = 0; j < d; ++j)
        for (int i = 0; i < nx; ++i)
            S->Mx[i + (size_t)nx * (2 * d + j)] =
                i < 2 * d ? 0.0 : v.Rz[S->ind_new[i - 2 * d] + (size_t)n * j];
    if ((status = mbs_tangent_eval(&S->map_tangent, S->x0, S->r0, S->Mx)))
        return status;
    for (int j = 0; j < S->p; ++j) {
        double *col = S->Mp + (size_t)nx * j;
        if (S->dynamic_only[j]) {
            memset(col, 0, sizeof(double) * (size_t)nx);
            continue;
        }
        if ((status = eval_map(S, S->pform[2 * j], S->zbase, S->x0, S->rp)) ||
            (status = eval_map(S, S->pform[2 * j + 1], S->zbase, S->x0, S->rm)))
            return status;
        for (int i = 0; i < nx; ++i)
            col[i] = (S->rp[i] - S->rm[i]) / (2.0 * S->delta[j]);
    }
    return 0;
}

/* 1 when checkpoints a and b have different independent coordinates (ind_new: b's). */
int mr_sens_partition_changed(Sens *S, const MbsCheckpoint *a, const MbsCheckpoint *b)
{
    int ca, cb;
    const double *pa = mbs_matrix_r_checkpoint_partition(a, S->n, S->nr, &ca);
    const double *pb = mbs_matrix_r_checkpoint_partition(b, S->n, S->nr, &cb);
    if (!memcmp(pa, pb, sizeof(double) * (size_t)ca))
        return 0;
    int da = mbs_matrix_r_checkpoint_independent(a, S->n, S->mapind);
    int db = mbs_matrix_r_checkpoint_independent(b, S->n, S->ind_new);
    return da != db || memcmp(S->mapind, S->ind_new, sizeof(int) * (size_t)db) != 0;
}
