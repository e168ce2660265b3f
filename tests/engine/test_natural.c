/* Natural coordinates (engine/mbs_natural.c): Jacobians against finite differences, the
 * velocity/acceleration bias, the constant mass matrix against rigid-body kinetic energy,
 * generalized forces against potentials and powers, and the agreement of the natural and the
 * relative descriptions of the same model (same point positions, same joint coordinates). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../tap.h"
#include "mbs_assembly.h"
#include "mbs_formulation.h"
#include "mbs_kinematics.h"
#include "mbs_linalg.h"
#include "mbs_natural.h"
#include "mbs_topology.h"
#include "test_models.h"

static unsigned long rng_state = 12345;
static double urand(void) /* uniform in [-1, 1) */
{
    rng_state = rng_state * 6364136223846793005UL + 1442695040888963407UL;
    return ((double)(rng_state >> 11) / 9007199254740992.0) * 2.0 - 1.0;
}


/* Closed loops with rods and a universal joint: a four-bar whose coupler is a rod joint. */
static MbsModel *build_rod_loop(void)
{
    MbsError err;
    MbsModel *m = mbs_model_new("rod-loop");
    m->gravity[2] = -9.81;
    int g = mbs_model_add_ground(m, "ground", &err);
    double O[3] = {0, 0, 0}, A[3] = {0, 0, 1}, D[3] = {0, 2, 0}, B[3] = {0, 2, 1.2};
    int c = add_bar(m, "crank", O, A, 1.0, &err);
    int f = add_bar(m, "follower", D, B, 1.0, &err);
    die_on(mbs_model_add_joint(m, "O", MBS_JOINT_REVOLUTE, g, c, O, X_AXIS, &err), &err);
    die_on(mbs_model_add_joint(m, "D", MBS_JOINT_REVOLUTE, g, f, D, X_AXIS, &err), &err);
    die_on(mbs_model_add_rod(m, "rod", c, A, f, B, -1.0, &err), &err);
    die_on(mbs_model_set_initial(m, 0, 0, 0, 0.4, &err), &err);
    die_on(mbs_model_set_initial(m, 0, 0, 1, 1.3, &err), &err);
    if (mbs_model_compile(m, &err)) {
        fprintf(stderr, "%s\n", err.message);
        exit(2);
    }
    return m;
}

/* Random q, qd, qdd near a consistent configuration (not on the manifold). */
static void random_state(const MbsNatural *nat, double *q, double *qd, double *qdd, double amp)
{
    for (int i = 0; i < nat->n; ++i) {
        q[i] += amp * urand();
        qd[i] = urand();
        qdd[i] = urand();
    }
}

static void identity_state(const MbsNatural *nat, double *q)
{
    const MbsModel *m = nat->model;
    for (int b = 0; b < m->nbodies; ++b) {
        int off = nat->body_off[b];
        if (off < 0)
            continue;
        memcpy(&q[off], m->bodies[b].com, 3 * sizeof(double));
        memset(&q[off + 3], 0, 9 * sizeof(double));
        q[off + 3] = q[off + 7] = q[off + 11] = 1.0;
    }
}

static void check_derivatives(const MbsModel *mdl, const char *label)
{
    MbsError err;
    MbsNatural *nat = mbs_natural_new(mdl, &err);
    if (!tap_ok(nat != NULL, "%s: natural description built", label)) {
        tap_diag("%s", err.message);
        return;
    }
    int n = nat->n, m = nat->m;
    double *q = calloc(n, 8), *qd = calloc(n, 8), *qdd = calloc(n, 8), *qp = calloc(n, 8),
           *qm = calloc(n, 8), *J = calloc((size_t)m * n, 8), *phi = calloc(m, 8),
           *php = calloc(m, 8), *phm = calloc(m, 8), *phit = calloc(m, 8), *c = calloc(m, 8),
           *ph0 = calloc(m, 8);
    identity_state(nat, q);
    /* 12 coordinates and 6 rigid-body constraints per moving body, counted in the model */
    int moving = 0;
    for (int b = 0; b < mdl->nbodies; ++b)
        moving += !mdl->bodies[b].is_ground;
    tap_ok(n == 12 * moving && nat->nrigid == 6 * moving && m > nat->nrigid,
           "%s: %d coordinates, %d constraints (%d rigid-body) for %d moving bodies", label, n, m,
           nat->nrigid, moving);
    random_state(nat, q, qd, qdd, 0.3);
    double t = 0.37;
    mbs_natural_constraints(nat, q, qd, t, phi, J, phit, c);
    /* Phi_q against central differences, column by column. */
    double maxerr = 0.0, maxval = 0.0;
    for (int j = 0; j < n; ++j) {
        double hstep = 1e-6;
        memcpy(qp, q, n * 8);
        memcpy(qm, q, n * 8);
        qp[j] += hstep;
        qm[j] -= hstep;
        mbs_natural_constraints(nat, qp, NULL, t, php, NULL, NULL, NULL);
        mbs_natural_constraints(nat, qm, NULL, t, phm, NULL, NULL, NULL);
        for (int i = 0; i < m; ++i) {
            double fd = (php[i] - phm[i]) / (2 * hstep);
            maxerr = fmax(maxerr, fabs(fd - J[i + (size_t)m * j]));
            maxval = fmax(maxval, fabs(J[i + (size_t)m * j]));
        }
    }
    tap_below(maxerr, 1e-6 * maxval, "%s: Phi_q matches central differences (max err %.2e of %.2e)",
              label, maxerr, maxval);
    /* Phi_t against central differences in t. */
    double hstep = 1e-6, errt = 0.0, valt = 0.0;
    mbs_natural_constraints(nat, q, NULL, t + hstep, php, NULL, NULL, NULL);
    mbs_natural_constraints(nat, q, NULL, t - hstep, phm, NULL, NULL, NULL);
    for (int i = 0; i < m; ++i) {
        errt = fmax(errt, fabs((php[i] - phm[i]) / (2 * hstep) - phit[i]));
        valt = fmax(valt, fabs(phit[i]));
    }
    tap_below(errt, 1e-6 * fmax(valt, 1.0), "%s: Phi_t matches central differences (err %.2e, |Phi_t| %.2e)",
              label, errt, valt);
    /* Bias: d2/ds2 Phi(q + s qd + s^2/2 qdd, t + s) = Phi_q qdd + c. */
    double s = 1e-4, errc = 0.0, valc = 0.0;
    for (int k = 0; k < 3; ++k) {
        double sk = k == 0 ? s : k == 1 ? -s : 0.0;
        for (int i = 0; i < n; ++i)
            qp[i] = q[i] + sk * qd[i] + 0.5 * sk * sk * qdd[i];
        mbs_natural_constraints(nat, qp, NULL, t + sk, k == 0 ? php : k == 1 ? phm : ph0, NULL,
                                NULL, NULL);
    }
    for (int i = 0; i < m; ++i) {
        double dd = (php[i] - 2 * ph0[i] + phm[i]) / (s * s);
        double an = c[i];
        for (int j = 0; j < n; ++j)
            an += J[i + (size_t)m * j] * qdd[j];
        errc = fmax(errc, fabs(dd - an));
        valc = fmax(valc, fabs(an));
    }
    tap_below(errc, 1e-5 * fmax(valc, 1.0),
              "%s: Phi_ddot = Phi_q qdd + c matches second differences (err %.2e of %.2e)", label,
              errc, valc);

    /* Generalized forces: Q.qd = -(dV/dq).qd + P_nc on a rigid configuration (random rotations
     * make the torque term exact), V by central differences. */
    identity_state(nat, q);
    for (int b = 0; b < mdl->nbodies; ++b) {
        int off = nat->body_off[b];
        if (off < 0)
            continue;
        double ax[3] = {urand(), urand(), urand()}, R[9], w[3] = {urand(), urand(), urand()};
        double nrm = mbs_v3_norm(ax);
        for (int k = 0; k < 3; ++k)
            ax[k] /= nrm;
        mbs_m3_rotation(ax, 2.0 * urand(), R);
        MbsBodyState bs = {.v_com = {urand(), urand(), urand()}};
        memcpy(bs.R, R, sizeof R);
        memcpy(bs.omega, w, sizeof w);
        for (int k = 0; k < 3; ++k)
            bs.p[k] = 0.3 * urand();
        MbsBodyState *all = calloc(mdl->nbodies, sizeof *all);
        for (int i = 0; i < mdl->nbodies; ++i)
            mbs_m3_identity(all[i].R);
        all[b] = bs;
        double *qt = calloc(n, 8), *qdt = calloc(n, 8);
        mbs_natural_from_bodies(nat, all, qt, qdt);
        memcpy(&q[off], &qt[off], 12 * 8);
        memcpy(&qd[off], &qdt[off], 12 * 8);
        free(qt);
        free(qdt);
        free(all);
    }
    double *Q = calloc(n, 8), *grad = calloc(n, 8), *ref = calloc(mdl->njoints + 1, 8);
    MbsNatEnergy e, ep, em;
    mbs_natural_forces(nat, q, qd, ref, grad, Q, &e);
    double eps = 1e-6, dVdt = 0.0;
    for (int j = 0; j < n; ++j) {
        memcpy(qp, q, n * 8);
        qp[j] += eps;
        mbs_natural_forces(nat, qp, qd, ref, grad, qm, &ep);
        qp[j] -= 2 * eps;
        mbs_natural_forces(nat, qp, qd, ref, grad, qm, &em);
        double dV = (ep.potential_gravity + ep.potential_elastic - em.potential_gravity -
                     em.potential_elastic) / (2 * eps);
        dVdt += dV * qd[j];
    }
    double Qqd = 0.0;
    for (int j = 0; j < n; ++j)
        Qqd += Q[j] * qd[j];
    tap_close(Qqd, -dVdt + e.power_nonconservative, 1e-6 * (1.0 + fabs(Qqd)),
              "%s: Q.qd = -dV/dt + P_nc (%.6f vs %.6f)", label, Qqd,
              -dVdt + e.power_nonconservative);
    /* Kinetic energy 1/2 qd^T M qd equals the forces' kinetic term. */
    double *M = calloc((size_t)n * n, 8);
    mbs_natural_mass(nat, M);
    double T = 0.0;
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j)
            T += 0.5 * qd[i] * M[i + (size_t)n * j] * qd[j];
    tap_close(T, e.kinetic, 1e-12 * (1.0 + T), "%s: 1/2 qd^T M qd equals the kinetic energy", label);
    /* Block product y = M x against the dense matrix. */
    mbs_natural_mass_mul(nat, qd, qp);
    double mm_err = 0.0;
    for (int i = 0; i < n; ++i) {
        double v = 0.0;
        for (int j = 0; j < n; ++j)
            v += M[i + (size_t)n * j] * qd[j];
        mm_err = fmax(mm_err, fabs(v - qp[i]));
    }
    tap_below(mm_err, 1e-13, "%s: block product M x equals the dense one (%.1e)", label, mm_err);
    /* Sparse rows scatter to the dense Jacobian. */
    MbsNatJacRow *rows = calloc((size_t)m, sizeof *rows);
    mbs_natural_constraint_rows(nat, q, qd, t, NULL, rows, NULL, NULL);
    mbs_natural_constraints(nat, q, NULL, t, NULL, J, NULL, NULL);
    double sp_err = 0.0;
    for (int i = 0; i < m; ++i)
        for (int j = 0; j < n; ++j) {
            double v = 0.0;
            for (int p = 0; p < 2; ++p)
                if (rows[i].off[p] >= 0 && j >= rows[i].off[p] && j < rows[i].off[p] + 12)
                    v += rows[i].v[p][j - rows[i].off[p]];
            sp_err = fmax(sp_err, fabs(v - J[i + (size_t)m * j]));
        }
    tap_below(sp_err, 0.0, "%s: sparse rows of Phi_q equal the dense Jacobian (%.1e)", label, sp_err);
    free(rows);
    free(M);
    free(Q);
    free(grad);
    free(ref);
    free(q);
    free(qd);
    free(qdd);
    free(qp);
    free(qm);
    free(J);
    free(phi);
    free(php);
    free(phm);
    free(phit);
    free(c);
    free(ph0);
    mbs_natural_free(nat);
}

/* Rigid-body kinetic energy: 1/2 m v^2 + 1/2 w^T (R J R^T) w against 1/2 qd^T M qd. */
static void check_mass_matrix(void)
{
    MbsError err;
    MbsModel *m = mbs_model_new("one-body");
    mbs_model_add_ground(m, "ground", &err);
    double com[3] = {0.3, -0.2, 0.5}, J[9] = {2.0, 0.1, -0.2, 0.1, 1.5, 0.05, -0.2, 0.05, 0.9};
    int b = mbs_model_add_body(m, "body", 3.0, com, J, &err);
    mbs_model_compile(m, &err);
    MbsNatural *nat = mbs_natural_new(m, &err);
    double worst = 0.0;
    for (int trial = 0; trial < 5; ++trial) {
        MbsBodyState st[2];
        memset(st, 0, sizeof st);
        mbs_m3_identity(st[0].R);
        double ax[3] = {urand(), urand(), urand()}, nrm;
        nrm = mbs_v3_norm(ax);
        for (int k = 0; k < 3; ++k) {
            ax[k] /= nrm;
            st[b].p[k] = urand();
            st[b].v_com[k] = urand();
            st[b].omega[k] = 3 * urand();
        }
        mbs_m3_rotation(ax, 3 * urand(), st[b].R);
        double q[12], qd[12], M[144];
        mbs_natural_from_bodies(nat, st, q, qd);
        mbs_natural_mass(nat, M);
        double T = 0.0;
        for (int i = 0; i < 12; ++i)
            for (int j = 0; j < 12; ++j)
                T += 0.5 * qd[i] * M[i + 12 * j] * qd[j];
        /* reference */
        double w0[3], Jw[3], *R = st[b].R, *w = st[b].omega;
        for (int i = 0; i < 3; ++i)
            w0[i] = R[i] * w[0] + R[3 + i] * w[1] + R[6 + i] * w[2];
        mbs_m3_mulv(J, w0, Jw);
        double Tref = 0.5 * 3.0 * mbs_v3_dot(st[b].v_com, st[b].v_com) + 0.5 * mbs_v3_dot(w0, Jw);
        worst = fmax(worst, fabs(T - Tref) / Tref);
        /* pose round trip */
        double R2[9], p2[3];
        mbs_natural_body_pose(nat, q, b, R2, p2);
        for (int i = 0; i < 9; ++i)
            worst = fmax(worst, fabs(R2[i] - R[i]));
        for (int i = 0; i < 3; ++i)
            worst = fmax(worst, fabs(p2[i] - st[b].p[i]));
    }
    tap_below(worst, 1e-13, "constant natural mass matrix gives the rigid-body kinetic energy and "
              "the pose round-trips (worst %.2e)", worst);
    mbs_natural_free(nat);
    mbs_model_free(m);
}

/* Same configuration, two descriptions: random relative coordinates z of an open chain, body
 * poses from the relative kinematics, natural coordinates from the poses. Every model point is
 * in the same place, every joint constraint of the natural description holds, and the
 * natural-coordinate readings of the revolute/prismatic joint coordinates equal z. */
static void check_same_configuration(const MbsModel *mdl, const char *label)
{
    MbsError err;
    MbsNatural *nat = mbs_natural_new(mdl, &err);
    MbsKinematics kin;
    mbs_kinematics_init(&kin, mdl);
    int nz = mbs_model_ncoords(mdl), n = nat->n, m = nat->m;
    double *z = calloc(nz + 1, 8), *q = calloc(n + 1, 8), *phi = calloc(m + 1, 8);
    MbsBodyState *bs = calloc(mdl->nbodies, sizeof *bs);
    double pt_err = 0.0, phi_err = 0.0, z_err = 0.0, drv_err = 0.0;
    double t = 0.61;
    for (int trial = 0; trial < 10; ++trial) {
        for (int i = 0; i < nz; ++i)
            z[i] = 1.5 * urand();
        mbs_kinematics_positions(mdl, &kin, z);
        for (int b = 0; b < mdl->nbodies; ++b)
            mbs_kin_body_pose(mdl, &kin, b, bs[b].R, bs[b].p);
        mbs_natural_from_bodies(nat, bs, q, NULL);
        for (int p = 0; p < mdl->npoints; ++p) {
            const MbsPoint *P = &mdl->points[p];
            double x1[3], x2[3];
            mbs_kin_point(mdl, &kin, P->body, P->pos, x1);
            mbs_natural_point(nat, q, P->body, P->pos, x2);
            for (int k = 0; k < 3; ++k)
                pt_err = fmax(pt_err, fabs(x1[k] - x2[k]));
        }
        mbs_natural_constraints(nat, q, NULL, t, phi, NULL, NULL, NULL);
        for (int j = 0; j < mdl->njoints; ++j) {
            const MbsJoint *J = &mdl->joints[j];
            int r0 = nat->joint_row[j], nr = nat->joint_nrows[j] - (J->driven ? 1 : 0);
            for (int i = r0; i < r0 + nr; ++i)
                phi_err = fmax(phi_err, fabs(phi[i]));
            int nd = mdl->topo->joint_node[j];
            if (nd < 0 || (J->type != MBS_JOINT_REVOLUTE && J->type != MBS_JOINT_PRISMATIC))
                continue;
            double th = mbs_natural_joint_coordinate(nat, q, j, z[nd], NULL);
            z_err = fmax(z_err, fabs(th - z[nd]));
            if (J->driven) {
                double f = mbs_function_eval(&J->driver, t, NULL, NULL);
                double want = J->type == MBS_JOINT_REVOLUTE ? sin(z[nd] - f) : z[nd] - f;
                drv_err = fmax(drv_err, fabs(phi[r0 + nr] - want));
            }
        }
    }
    tap_below(pt_err, 1e-12, "%s: natural and relative descriptions put every point in the same "
              "place (max diff %.2e m)", label, pt_err);
    tap_below(phi_err, 1e-12, "%s: relative-coordinate configurations satisfy the natural joint "
              "constraints (max %.2e)", label, phi_err);
    tap_below(z_err, 1e-12, "%s: joint coordinates read from q equal z, same sign (max %.2e)",
              label, z_err);
    tap_below(drv_err, 1e-12, "%s: driver rows equal sin(z - f(t)) / z - f(t) (max %.2e)", label,
              drv_err);
    mbs_kinematics_free(&kin);
    free(z);
    free(q);
    free(phi);
    free(bs);
    mbs_natural_free(nat);
}

/* Closed loops: the assembled state (relative coordinates) satisfies every natural constraint
 * at position and velocity level. */
static void check_assembled(const MbsModel *mdl, const char *label)
{
    MbsError err;
    MbsSettings s;
    mbs_settings_defaults(&s);
    MbsNatural *nat = mbs_natural_new(mdl, &err);
    int nz = mbs_model_ncoords(mdl), n = nat->n, m = nat->m;
    double *z = calloc(nz + 1, 8), *zd = calloc(nz + 1, 8), *q = calloc(n + 1, 8),
           *qd = calloc(n + 1, 8), *phi = calloc(m + 1, 8), *J = calloc((size_t)m * n + 1, 8),
           *phit = calloc(m + 1, 8);
    MbsBodyState *bs = calloc(mdl->nbodies, sizeof *bs);
    int st = mbs_assemble(mdl, &s, 0.0, z, zd, bs, &err);
    if (!tap_ok(st == 0, "%s: assembled", label)) {
        tap_diag("%s", err.message);
    } else {
        mbs_natural_from_bodies(nat, bs, q, qd);
        mbs_natural_constraints(nat, q, qd, 0.0, phi, J, phit, NULL);
        double pv = mbs_vec_norminf(m, phi), vv = 0.0;
        for (int i = 0; i < m; ++i) {
            double r = phit[i];
            for (int j = 0; j < n; ++j)
                r += J[i + (size_t)m * j] * qd[j];
            vv = fmax(vv, fabs(r));
        }
        tap_below(pv, 1e-9, "%s: assembled configuration satisfies Phi(q) = 0 (max %.2e)", label, pv);
        tap_below(vv, 1e-9, "%s: assembled velocities satisfy Phi_q qd + Phi_t = 0 (max %.2e)",
                  label, vv);
    }
    free(z);
    free(zd);
    free(q);
    free(qd);
    free(phi);
    free(J);
    free(phit);
    free(bs);
    mbs_natural_free(nat);
}

int main(void)
{
    MbsModel *models[6] = {build_double_pendulum(M_PI / 2, M_PI / 2, 1), build_four_bar(),
                           build_slider_crank(0), build_slider_crank(1), build_chain(),
                           build_rod_loop()};
    const char *names[6] = {"double pendulum", "spatial four-bar", "slider-crank",
                            "driven slider-crank", "chain (all joints, drivers, forces)",
                            "rod loop"};
    for (int i = 0; i < 6; ++i)
        check_derivatives(models[i], names[i]);
    check_mass_matrix();
    check_same_configuration(models[0], names[0]);
    check_same_configuration(models[4], names[4]);
    for (int i = 0; i < 6; ++i)
        check_assembled(models[i], names[i]);
    MbsModel *lat = build_lattice(2, 2);
    check_assembled(lat, "lattice 2x2 (redundant)");
    mbs_model_free(lat);
    for (int i = 0; i < 6; ++i)
        mbs_model_free(models[i]);
    return tap_done();
}
