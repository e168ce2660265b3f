/* The `matrix-r` formulation: agreement with `penalty` on point trajectories (the difference
 * shrinking with the step), an independent RK4 reference for the double pendulum, energy
 * conservation and balance, position constraints at the Newton tolerance every step, redundant
 * constraints (4x15, 7x15 lattices), dense = sparse, repartitioning, user-chosen degrees of
 * freedom and clear errors. */
#include <string.h>

#include "form_matrix_r.h"
#include "mbs_formulation.h"
#include "mbs_topology.h"
#include "tap.h"
#include "pendulum_reference.h"
#include "test_models.h"

typedef struct {
    int integrator, sparse, ndofs, dof_joint[4], dof_coord[4], dof_point[4], dof_axis[4];
    double rcond;
} Options;

static MbsSettings settings_for(double h, const Options *o)
{
    MbsSettings s;
    mbs_settings_defaults(&s);
    s.step = h;
    /* The values below were measured when the trapezoidal rule's tangent was always by forward
     * differences (it now follows the setting; central ones are tested in test_tangent). */
    mbs_settings_set_for(&s, "matrix-r", "jacobian", "nd-forward", NULL);
    if (o) {
        mbs_settings_set_number_for(&s, "matrix-r", "integrator", o->integrator, NULL);
        mbs_settings_set_number_for(&s, "matrix-r", "algebra", o->sparse, NULL);
        if (o->rcond > 0)
            mbs_settings_set_number_for(&s, "matrix-r", "rcond", o->rcond, NULL);
        MbsDofList *dofs = mbs_settings_value_for(&s, "matrix-r", "dof");
        dofs->count = o->ndofs;
        for (int i = 0; i < o->ndofs; ++i)
            dofs->items[i] = (MbsDofChoice){o->dof_joint[i], o->dof_coord[i], o->dof_point[i],
                                            o->dof_axis[i]};
    }
    return s;
}

typedef struct {
    double drift;      /* max |E - E0| */
    double phi_ratio;  /* max over steps of ||Phi||_inf / (tol (1 + max|z|)) */
    double phi, dphi, ddphi;
    double kinetic_max;
    long partitions;
    int failed;
    char message[512];
} Stats;

static double max_abs(int n, const double *x)
{
    double v = 0.0;
    for (int i = 0; i < n; ++i)
        v = fmax(v, fabs(x[i]));
    return v;
}

/* Run matrix-r; the final coordinates are written to zout (if not NULL). */
static Stats run(const MbsModel *m, double h, double duration, const Options *o, double *zout)
{
    MbsSettings s = settings_for(h, o);
    MbsError err = {0};
    Stats r = {0};
    MbsFormulation *f = mbs_formulation_new("matrix-r", m, &s, &err);
    if (!f) {
        r.failed = 1;
        snprintf(r.message, sizeof r.message, "%s", err.message);
        return r;
    }
    int n = m->topo->nnodes;
    double *z = calloc((size_t)n + 1, sizeof *z);
    double e0 = f->monitors.total;
    int steps = (int)(duration / h + 0.5);
    for (int i = 0; i < steps; ++i) {
        if (mbs_formulation_step(f, &err)) {
            r.failed = 1;
            snprintf(r.message, sizeof r.message, "%s", err.message);
            break;
        }
        const MbsMonitors *mo = &f->monitors;
        f->klass->coordinates(f, z, NULL);
        double phimax = 0.0; /* max |Phi_k| over every row, redundant ones included */
        for (int j = 0; j < m->njoints; ++j)
            phimax = fmax(phimax, f->klass->joint_violation(f, j));
        r.phi_ratio = fmax(r.phi_ratio, phimax / (mbs_settings_number(&s, "newton-tolerance") * (1.0 + max_abs(n, z))));
        r.drift = fmax(r.drift, fabs(mo->total - e0));
        r.phi = fmax(r.phi, mo->phi_norm);
        r.dphi = fmax(r.dphi, mo->dphi_norm);
        r.ddphi = fmax(r.ddphi, mo->ddphi_norm);
        r.kinetic_max = fmax(r.kinetic_max, mo->kinetic);
    }
    MbsMatrixRStats st;
    if (mbs_matrix_r_stats(f, &st) == 0)
        r.partitions = st.partitions;
    if (zout)
        f->klass->coordinates(f, zout, NULL);
    free(z);
    mbs_formulation_free(f);
    return r;
}

/* Max over the steps and over every model point of |p_matrix-r - p_penalty|. */
static double compare_with_penalty(const MbsModel *m, double h, double duration, const Options *o,
                                   char *msg, size_t msglen)
{
    MbsSettings s = settings_for(h, o);
    MbsError err = {0};
    MbsFormulation *a = mbs_formulation_new("matrix-r", m, &s, &err);
    MbsFormulation *b = a ? mbs_formulation_new("penalty", m, &s, &err) : NULL;
    if (!a || !b) {
        snprintf(msg, msglen, "%s", err.message);
        mbs_formulation_free(a);
        return INFINITY;
    }
    double worst = 0.0;
    int steps = (int)(duration / h + 0.5);
    for (int i = 0; i < steps; ++i) {
        if (mbs_formulation_step(a, &err) || mbs_formulation_step(b, &err)) {
            snprintf(msg, msglen, "%s", err.message);
            worst = INFINITY;
            break;
        }
        for (int p = 0; p < m->npoints; ++p) {
            double pa[3], pb[3], d[3];
            mbs_formulation_point_position(a, p, pa);
            mbs_formulation_point_position(b, p, pb);
            mbs_v3_sub(pa, pb, d);
            worst = fmax(worst, mbs_v3_norm(d));
        }
    }
    mbs_formulation_free(a);
    mbs_formulation_free(b);
    return worst;
}

/* Absolute angles of the two bars of the double pendulum after `duration` (matrix-r). */
static void pendulum_angles(double theta1, double theta2, double h, double duration,
                            const Options *o, double out[2])
{
    MbsModel *m = build_double_pendulum(theta1, theta2, 1);
    double z[2];
    run(m, h, duration, o, z);
    int n1 = m->topo->body_node[1], n2 = m->topo->body_node[2];
    out[0] = theta1 + z[n1];
    out[1] = theta2 + z[n1] + z[n2];
    mbs_model_free(m);
}


static const char *integrator_name(int i) { return i ? "trapezoidal" : "RK4"; }

/* Difference to penalty at h and h/4 must shrink (both methods are at least second order). */
static void agreement(const char *name, const MbsModel *m, double h, double duration,
                      double bound)
{
    for (int integ = 0; integ < 2; ++integ) {
        Options o = {.integrator = integ};
        char msg[512] = "";
        double d1 = compare_with_penalty(m, h, duration, &o, msg, sizeof msg);
        double d4 = compare_with_penalty(m, h / 4, duration, &o, msg, sizeof msg);
        tap_below(d4, bound,
                  "%s, %s: max point distance to penalty over %.3g s at h = %.3g ms: %.2e m %s",
                  name, integrator_name(integ), duration, 1e3 * h / 4, d4, msg);
        /* Both trapezoidal: the same discretization, the difference is penalty's own
         * constraint violation (alpha = 1e9) at every step. */
        if (d1 < 1e-7)
            tap_ok(d1 < 1e-7 && d4 < 1e-7,
                   "%s, %s: distance to penalty is at penalty's constraint-violation floor at "
                   "both steps: %.2e (h = %.3g ms), %.2e",
                   name, integrator_name(integ), d1, 1e3 * h, d4);
        else
            tap_ok(d1 / d4 > 6.0,
                   "%s, %s: distance to penalty shrinks with h: %.2e (h = %.3g ms) / %.2e = "
                   "%.1f (second order: 16)",
                   name, integrator_name(integ), d1, 1e3 * h, d4, d1 / d4);
    }
}

/* mbs_matrix_r_residual (no mass matrix: R^T (M zdd - Q) from the forces with the
 * accelerations) = mbs_matrix_r_reduced_residual (R^T M R zdd_i - R^T (Q - M S c)) at the same
 * independent state, after some steps of the four-bar (a moving, constrained state). */
static void residual_alone(void)
{
    MbsModel *m = build_four_bar();
    Options tr = {.integrator = 1};
    MbsSettings s = settings_for(1e-3, &tr);
    MbsError err = {0};
    MbsFormulation *f = mbs_formulation_new("matrix-r", m, &s, &err);
    int ok = f != NULL;
    for (int k = 0; ok && k < 200; ++k)
        ok = !mbs_formulation_step(f, &err);
    double zi[8], zdi[8], zddi[8], F1[8], F2[8], guess[64];
    int d = ok ? mbs_matrix_r_independent_state(f, zi, zdi, zddi) : 0;
    MbsMatrixRView v;
    if (ok)
        mbs_matrix_r_view(f, &v);
    ok = ok && d > 0 && d <= 8 && mbs_model_ncoords(m) <= 64;
    if (ok) {
        for (int k = 0; k < d; ++k) /* away from the step's own solution: F is not ~0 */
            zddi[k] += 1.0 + k;
        memcpy(guess, v.z, sizeof(double) * (size_t)mbs_model_ncoords(m));
        ok = !mbs_matrix_r_reduced_residual(f, f->time, guess, zi, zdi, zddi, F1, &err) &&
             !mbs_matrix_r_residual(f, f->time, guess, zi, zdi, zddi, F2, &err);
    }
    double worst = 0.0, scale = 1e-300;
    for (int i = 0; ok && i < d; ++i) {
        worst = fmax(worst, fabs(F1[i] - F2[i]));
        scale = fmax(scale, fabs(F1[i]));
    }
    tap_ok(ok && scale > 1e-3 && worst <= 1e-12 * scale, "matrix-r: the residual without the "
           "mass matrix = the reduced residual (%.2g of |F| = %.3g) %s", worst / scale, scale,
           err.message);
    mbs_formulation_free(f);
    mbs_model_free(m);
}

int main(void)
{
    residual_alone();
    /* Double pendulum (no constraints: R = I): independent RK4 reference. */
    {
        double ref[2], got[2], got_tr[2];
        Options rk = {0}, tr = {.integrator = 1};
        pendulum_rk4(M_PI / 2, M_PI / 2, 1.0, 1e-4, ref);
        pendulum_angles(M_PI / 2, M_PI / 2, 1e-3, 1.0, &rk, got);
        pendulum_angles(M_PI / 2, M_PI / 2, 1e-3, 1.0, &tr, got_tr);
        double e = fmax(fabs(got[0] - ref[0]), fabs(got[1] - ref[1]));
        double etr = fmax(fabs(got_tr[0] - ref[0]), fabs(got_tr[1] - ref[1]));
        tap_below(e, 1e-7, "double pendulum released horizontally, RK4 h = 1 ms: |angle - "
                           "reference| at 1 s = %.2e rad", e);
        tap_below(etr, 2e-3, "double pendulum, trapezoidal h = 1 ms: |angle - reference| at 1 s "
                             "= %.2e rad", etr);
    }
    /* Agreement with penalty on point trajectories. */
    {
        MbsModel *m = build_double_pendulum(M_PI / 2, M_PI / 2, 1);
        agreement("double pendulum", m, 4e-3, 1.0, 2e-3);
        mbs_model_free(m);
        m = build_four_bar();
        agreement("four-bar", m, 4e-3, 2.0, 2e-3);
        mbs_model_free(m);
        m = build_lattice(1, 15);
        agreement("1x15 lattice", m, 2e-2, 1.0, 5e-3);
        mbs_model_free(m);
    }
    /* Four-bar: energy, constraints at the Newton tolerance. */
    {
        MbsModel *m = build_four_bar();
        Options rk = {0}, tr = {.integrator = 1};
        Stats a = run(m, 1e-3, 5.0, &rk, NULL), b = run(m, 1e-3, 5.0, &tr, NULL),
              b10 = run(m, 1e-2, 5.0, &tr, NULL);
        tap_ok(!a.failed && !b.failed && !b10.failed, "four-bar runs 5 s %s%s%s", a.message,
               b.message, b10.message);
        tap_below(a.drift, 1e-7, "four-bar, RK4 h = 1 ms: energy drift %.2e J (kinetic up to "
                                 "%.1f J)", a.drift, a.kinetic_max);
        tap_below(b.drift, 1e-3, "four-bar, trapezoidal h = 1 ms: energy drift %.2e J", b.drift);
        tap_ok(b10.drift / b.drift > 30.0, "four-bar, trapezoidal: drift ratio h = 10 ms / 1 ms "
               "= %.0f (second order: ~100)", b10.drift / b.drift);
        tap_below(fmax(a.phi_ratio, b.phi_ratio), 1.0,
                  "four-bar: max |Phi| <= tol (1 + max|z|) every step (worst %.2f tol)",
                  fmax(a.phi_ratio, b.phi_ratio));
        tap_below(fmax(a.dphi, b.dphi), 1e-10, "four-bar: ||Phi_dot|| = %.1e", fmax(a.dphi, b.dphi));
        tap_below(a.ddphi, 1e-9, "four-bar: ||Phi_ddot|| = %.1e", a.ddphi);
        mbs_model_free(m);
    }
    /* Driven slider-crank with a damped spring: no independent coordinate is left (d = 0);
     * the balance includes the driver work (constraint reaction power) and the damper. */
    {
        MbsModel *m = build_slider_crank(1);
        Options rk = {0};
        Stats r1 = run(m, 1e-3, 2.0, &rk, NULL), r2 = run(m, 5e-4, 2.0, &rk, NULL);
        tap_ok(!r1.failed && !r2.failed, "driven slider-crank runs 2 s %s%s", r1.message,
               r2.message);
        tap_below(r1.drift, 2e-3, "driven slider-crank, h = 1 ms: energy balance error %.2e J "
                                  "(kinetic up to %.1f J)", r1.drift, r1.kinetic_max);
        tap_ok(r2.drift < 0.5 * r1.drift, "energy balance error shrinks with h: %.2e (0.5 ms) "
               "vs %.2e (1 ms)", r2.drift, r1.drift);
        tap_below(r1.phi_ratio, 1.0, "driven slider-crank: |Phi| within the Newton tolerance "
                                      "(%.2f tol)", r1.phi_ratio);
        mbs_model_free(m);
        m = build_slider_crank(0);
        Options tr = {.integrator = 1};
        Stats a = run(m, 1e-3, 2.0, &rk, NULL), b = run(m, 1e-3, 2.0, &tr, NULL);
        tap_below(a.drift, 1e-6, "slider-crank with RSDA and TSDA, RK4: drift %.2e J", a.drift);
        tap_below(b.drift, 1e-2, "slider-crank with RSDA and TSDA, trapezoidal: drift %.2e J",
                  b.drift);
        mbs_model_free(m);
    }
    /* Lattices: 1x15, and the redundant 4x15 and 7x15. */
    {
        MbsModel *m = build_lattice(1, 15);
        Options rk = {0}, tr = {.integrator = 1};
        Stats a = run(m, 1e-2, 5.0, &rk, NULL), b = run(m, 1e-2, 5.0, &tr, NULL);
        tap_ok(!a.failed && !b.failed, "1x15 lattice runs 5 s at h = 10 ms %s%s", a.message,
               b.message);
        tap_below(a.drift, 1e-3, "1x15 lattice, RK4: energy drift %.2e J of |E| = 1470 J",
                  a.drift);
        tap_below(b.drift, 0.5, "1x15 lattice, trapezoidal: energy drift %.2e J", b.drift);
        tap_below(fmax(a.phi_ratio, b.phi_ratio), 1.0,
                  "1x15 lattice: |Phi| within the Newton tolerance every step (%.2f tol)",
                  fmax(a.phi_ratio, b.phi_ratio));
        tap_ok(a.partitions >= 2, "1x15 lattice: the partition was chosen again %ld time(s) "
               "when the dependent block became ill-conditioned", a.partitions - 1);
        Options sp = {.sparse = 1};
        Stats c = run(m, 1e-2, 5.0, &sp, NULL);
        tap_ok(!c.failed && c.partitions >= 2 && c.phi_ratio <= 1.0 && c.drift < 1e-3,
               "1x15 lattice, sparse: %ld partitions (KLU re-analysed), |Phi| %.2f tol, energy "
               "drift %.2e J %s", c.partitions, c.phi_ratio, c.drift, c.message);
        mbs_model_free(m);
        for (int ny = 4; ny <= 7; ny += 3) {
            m = build_lattice(ny, 15);
            MbsSettings s = settings_for(1e-2, NULL);
            MbsError err;
            MbsFormulation *f = mbs_formulation_new("matrix-r", m, &s, &err);
            MbsMatrixRStats st = {0};
            if (f)
                mbs_matrix_r_stats(f, &st);
            tap_ok(f && st.nindependent == 15 && st.ndependent == m->topo->nnodes - 15 &&
                       m->topo->nrows > st.ndependent,
                   "%dx15 lattice: %d coordinates, %d constraint equations of rank %d, 15 "
                   "degrees of freedom", ny, m->topo->nnodes, m->topo->nrows, st.ndependent);
            mbs_formulation_free(f);
            Stats r = run(m, 1e-2, 2.0, &rk, NULL);
            tap_ok(!r.failed, "%dx15 lattice (redundant constraints) runs 2 s %s", ny, r.message);
            tap_below(r.phi_ratio, 1.0, "%dx15 lattice: |Phi| of all rows, redundant ones "
                      "included, within the Newton tolerance (%.2f tol)", ny, r.phi_ratio);
            tap_below(r.dphi + r.ddphi, 1e-8, "%dx15 lattice: ||Phi_dot|| + ||Phi_ddot|| = %.1e",
                      ny, r.dphi + r.ddphi);
            double e_abs = ny == 4 ? 4423.0 : 7375.0;
            tap_below(r.drift / e_abs, 1e-6, "%dx15 lattice, RK4 h = 10 ms: relative energy "
                      "drift %.2e over 2 s", ny, r.drift / e_abs);
            mbs_model_free(m);
        }
    }
    /* Dense and sparse paths give the same answers. */
    {
        struct { const char *name; MbsModel *m; double h, T; } cases[] = {
            {"four-bar", build_four_bar(), 1e-3, 2.0},
            {"driven slider-crank", build_slider_crank(1), 1e-3, 1.0},
            {"4x15 lattice", build_lattice(4, 15), 1e-2, 1.0},
        };
        for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c)
            for (int integ = 0; integ < 2; ++integ) {
                int n = cases[c].m->topo->nnodes;
                double *zd = calloc((size_t)n, sizeof *zd), *zs = calloc((size_t)n, sizeof *zs);
                Options dense = {.integrator = integ}, sparse = {.integrator = integ, .sparse = 1};
                Stats a = run(cases[c].m, cases[c].h, cases[c].T, &dense, zd);
                Stats b = run(cases[c].m, cases[c].h, cases[c].T, &sparse, zs);
                double diff = 0.0;
                for (int i = 0; i < n; ++i)
                    diff = fmax(diff, fabs(zd[i] - zs[i]));
                tap_ok(!a.failed && !b.failed && diff < 1e-8,
                       "%s, %s: dense and sparse (KLU) coordinates after %.3g s differ by %.1e %s%s",
                       cases[c].name, integrator_name(integ), cases[c].T, diff, a.message,
                       b.message);
                free(zd);
                free(zs);
            }
        for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c)
            mbs_model_free(cases[c].m);
    }
    /* Repartition: choosing the partition again whenever the condition estimate decreases at
     * all gives the same motion (RK4 on other independent coordinates). */
    {
        MbsModel *m = build_four_bar();
        int n = m->topo->nnodes;
        double za[8], zb[8];
        Options def = {0}, eager = {.rcond = 0.999999};
        Stats a = run(m, 1e-3, 2.0, &def, za), b = run(m, 1e-3, 2.0, &eager, zb);
        double diff = 0.0;
        for (int i = 0; i < n; ++i)
            diff = fmax(diff, fabs(za[i] - zb[i]));
        tap_ok(b.partitions > 10 && diff < 1e-7,
               "four-bar: %ld partitions instead of %ld, coordinates after 2 s differ by %.1e",
               b.partitions, a.partitions, diff);
        tap_below(b.drift, 1e-5, "four-bar with frequent repartitions: energy drift %.2e J",
                  b.drift);
        mbs_model_free(m);
    }
    /* A model that lists its degrees of freedom: the list applies when the run chooses none,
     * and is ignored when the run asks for the automatic partition. */
    {
        MbsModel *m = build_four_bar(), *listing = build_four_bar_listing_dof("D");
        int n = m->topo->nnodes, jd = mbs_model_find_joint(m, "D");
        double z_auto[8], z_user[8], z_listed[8], z_forced[8];
        Options def = {0}, user = {.ndofs = 1, .dof_joint = {jd}, .dof_coord = {0}},
                automatic = {.ndofs = MBS_MATRIX_R_AUTOMATIC};
        run(m, 1e-3, 0.5, &def, z_auto);
        run(m, 1e-3, 0.5, &user, z_user);
        Stats listed = run(listing, 1e-3, 0.5, &def, z_listed);
        Stats forced = run(listing, 1e-3, 0.5, &automatic, z_forced);
        size_t bytes = sizeof(double) * (size_t)n;
        tap_ok(listing->ndofs == 1 && !listed.failed && !forced.failed &&
                   memcmp(z_auto, z_user, bytes) != 0,
               "four-bar listing joint D as its degree of freedom: runs made %s%s",
               listed.message, forced.message);
        tap_ok(memcmp(z_listed, z_user, bytes) == 0,
               "no choice in the run: the model's list applies (same coordinates as choosing D)");
        tap_ok(memcmp(z_forced, z_auto, bytes) == 0,
               "MBS_MATRIX_R_AUTOMATIC: the automatic partition despite the list");
        mbs_model_free(m);
        mbs_model_free(listing);
    }
    /* User-chosen degrees of freedom (constant B, paper 001 sec 2.2.2). */
    {
        MbsModel *m = build_four_bar();
        int n = m->topo->nnodes;
        int jd = mbs_model_find_joint(m, "D");
        double za[8], zb[8], zc[8];
        Options def = {0}, user = {.ndofs = 1, .dof_joint = {jd}, .dof_coord = {0}};
        Stats a = run(m, 5e-4, 2.0, &def, za), b = run(m, 1e-3, 2.0, &user, zb),
              b2 = run(m, 5e-4, 2.0, &user, zc);
        double d1 = 0.0, d2 = 0.0;
        for (int i = 0; i < n; ++i) {
            d1 = fmax(d1, fabs(za[i] - zb[i]));
            d2 = fmax(d2, fabs(za[i] - zc[i]));
        }
        /* the follower angle nears a dead point of the follower (the dependent block's
         * condition drops 100 times, the partition is then chosen again): RK4's error there is
         * larger, and must shrink at fourth order */
        tap_ok(!b.failed && !b2.failed && d2 < 2e-6 && d1 / d2 > 8.0,
               "four-bar with the follower angle (joint D) as the degree of freedom: "
               "coordinates after 2 s differ from the automatic choice by %.1e (h = 1 ms), "
               "%.1e (h = 0.5 ms) %s", d1, d2, b.message);
        tap_ok(b.partitions == 2, "four-bar, user degree of freedom: %ld partitions (user, then "
               "automatic near the dead point)", b.partitions);
        Options two = {.ndofs = 2, .dof_joint = {jd, 0}, .dof_coord = {0, 0}};
        Stats c = run(m, 1e-3, 0.01, &two, NULL);
        tap_ok(c.failed && strstr(c.message, "1 degrees of freedom but 2"),
               "four-bar with two degrees of freedom given: '%s'", c.message);
        mbs_model_free(m);
        /* two vertical bars of the same parallelogram cannot both be independent */
        m = build_lattice(1, 2);
        int j0 = mbs_model_find_joint(m, "n_0_0_0"), j1 = mbs_model_find_joint(m, "n_0_1_0");
        Options same = {.ndofs = 2, .dof_joint = {j0, j1}, .dof_coord = {0, 0}};
        c = run(m, 1e-3, 0.01, &same, NULL);
        tap_ok(c.failed && strstr(c.message, "not independent"),
               "1x2 lattice with both ground angles of one cell as degrees of freedom: '%s'",
               c.message);
        mbs_model_free(m);
        (void)a;
    }
    /* Natural coordinates as degrees of freedom (B = h_z not constant, paper 001 sec 2.2.3). */
    {
        MbsModel *m = build_four_bar();
        int n = m->topo->nnodes;
        int pc = mbs_model_find_point(m, mbs_model_find_body(m, "follower"), "follower.2");
        for (int integ = 0; integ < 2; ++integ) {
            double za[8], zb[8];
            Options def = {.integrator = integ},
                    nat = {.integrator = integ, .ndofs = 1, .dof_joint = {-1}, .dof_point = {pc},
                           .dof_axis = {1}};
            Stats a = run(m, 1e-3, 1.0, &def, za), b = run(m, 1e-3, 1.0, &nat, zb);
            double diff = 0.0;
            for (int i = 0; i < n; ++i)
                diff = fmax(diff, fabs(za[i] - zb[i]));
            tap_ok(!a.failed && !b.failed && b.partitions == 1 && diff < (integ ? 1e-5 : 1e-8),
                   "four-bar, %s, y of the follower tip C as the degree of freedom: coordinates "
                   "after 1 s differ from the automatic partition by %.1e %s",
                   integrator_name(integ), diff, b.message);
            tap_below(b.phi_ratio, 1.0, "four-bar, natural-coordinate DOF, %s: |Phi| within the "
                      "Newton tolerance (%.2f tol)", integrator_name(integ), b.phi_ratio);
        }
        Options sp = {.sparse = 1, .ndofs = 1, .dof_joint = {-1}, .dof_point = {pc}, .dof_axis = {1}};
        Stats c = run(m, 1e-3, 0.01, &sp, NULL);
        tap_ok(c.failed && strstr(c.message, "dense algebra only"),
               "natural-coordinate DOF with sparse algebra: '%s'", c.message);
        mbs_model_free(m);
        /* double pendulum driven by the two coordinates of its tip: singular when the arm
         * straightens, where the partition falls back to the joint angles */
        m = build_double_pendulum(M_PI / 2, 0.3, 1);
        int tip = mbs_model_find_point(m, mbs_model_find_body(m, "bar2"), "bar2.2");
        Options def = {0}, nat = {.ndofs = 2, .dof_joint = {-1, -1}, .dof_point = {tip, tip},
                                  .dof_axis = {1, 2}};
        double za[2], zb[2];
        Stats a = run(m, 1e-3, 0.3, &def, za), b = run(m, 1e-3, 0.3, &nat, zb);
        double diff = fmax(fabs(za[0] - zb[0]), fabs(za[1] - zb[1]));
        tap_ok(!a.failed && !b.failed && b.partitions == 1 && diff < 1e-8,
               "double pendulum, tip (y, z) as degrees of freedom: angles at 0.3 s differ from "
               "the automatic partition by %.1e rad %s", diff, b.message);
        a = run(m, 1e-3, 1.0, &def, za);
        b = run(m, 1e-3, 1.0, &nat, zb);
        diff = fmax(fabs(za[0] - zb[0]), fabs(za[1] - zb[1]));
        tap_ok(!b.failed && b.partitions == 2 && diff < 1e-5 && b.drift < 1e-4,
               "double pendulum, tip DOFs through the straight-arm singularity: %ld partitions, "
               "angles at 1 s differ by %.1e rad, energy drift %.1e J %s", b.partitions, diff,
               b.drift, b.message);
        mbs_model_free(m);
    }
    return tap_done();
}
