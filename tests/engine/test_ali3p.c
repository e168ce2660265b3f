/* ali3p formulation (engine/form_ali3p.c, paper 004 §2): energy balance, constraint
 * satisfaction at every step, redundant constraints, rheonomic drivers, both projections,
 * the Newton failure path, no allocation in a step, and agreement with `penalty` on point
 * trajectories. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <SuiteSparse_config.h>

#include "../tap.h"
#include "alloc_counter.h"
#include "mbs_formulation.h"
#include "mbs_linalg.h"
#include "mbs_natural.h"
#include "test_models.h"



typedef struct {
    double max_de;      /* max |total - E0| */
    double max_phi, max_dphi, max_ddphi;
    int max_iter;
    int failed;
    double final_work;
} RunStats;

static MbsFormulation *make(const char *form, const MbsModel *m, double h, int kind)
{
    MbsSettings s;
    MbsError err;
    mbs_settings_defaults(&s);
    s.step = h;
    if (kind)
        mbs_settings_set_number_for(&s, form, "projection", kind, NULL);
    MbsFormulation *f = mbs_formulation_new(form, m, &s, &err);
    if (!f)
        tap_diag("%s on %s: %s", form, m->name, err.message);
    return f;
}

static RunStats run(const MbsModel *m, double h, double T, int kind)
{
    RunStats r;
    memset(&r, 0, sizeof r);
    MbsFormulation *f = make("ali3p", m, h, kind);
    if (!f) {
        r.failed = 1;
        return r;
    }
    MbsError err;
    long n = lround(T / h);
    for (long k = 0; k < n; ++k) {
        if (mbs_formulation_step(f, &err)) {
            tap_diag("%s: %s", m->name, err.message);
            r.failed = 1;
            break;
        }
        const MbsMonitors *mo = &f->monitors;
        r.max_de = fmax(r.max_de, fabs(mo->total - f->energy0));
        r.max_phi = fmax(r.max_phi, mo->phi_norm);
        r.max_dphi = fmax(r.max_dphi, mo->dphi_norm);
        r.max_ddphi = fmax(r.max_ddphi, mo->ddphi_norm);
        if (mo->newton_iterations > r.max_iter)
            r.max_iter = mo->newton_iterations;
    }
    r.final_work = f->monitors.work_nonconservative;
    mbs_formulation_free(f);
    return r;
}

/* Constraint residuals every step: position to the Newton tolerance scale, velocities and
 * accelerations after the projections. */
static void check_constraints(const RunStats *r, const char *label)
{
    tap_ok(!r->failed, "%s: ran to the end", label);
    tap_below(r->max_phi, 1e-8, "%s: ||Phi|| <= 1e-8 at every step (max %.2e)", label, r->max_phi);
    tap_below(r->max_dphi, 1e-7, "%s: ||Phi_dot|| <= 1e-7 at every step (max %.2e)", label,
              r->max_dphi);
    tap_below(r->max_ddphi, 1e-6, "%s: ||Phi_ddot|| <= 1e-6 at every step (max %.2e)", label,
              r->max_ddphi);
}

static void test_energy(void)
{
    /* Conservative double pendulum released horizontal: trapezoidal rule + projections, the
     * drift is small and shrinks with h at second order. */
    MbsModel *dp = build_double_pendulum(M_PI / 2, M_PI / 2, 1);
    RunStats a = run(dp, 1e-2, 5.0, 0), b = run(dp, 5e-3, 5.0, 0);
    check_constraints(&a, "double pendulum h=1e-2");
    check_constraints(&b, "double pendulum h=5e-3");
    tap_below(a.max_de, 0.3, "double pendulum h=1e-2: |E - E0| <= 0.3 J over 5 s (max %.4f J; "
              "mgL scale 29 J)", a.max_de);
    tap_below(b.max_de, 0.3 * a.max_de, "double pendulum: drift shrinks with h (%.2e -> %.2e)",
              a.max_de, b.max_de);
    tap_below(a.max_iter, 8, "double pendulum: Newton converges in <= 8 iterations (%d)", a.max_iter);
    mbs_model_free(dp);

    /* Spatial four-bar (universal + spherical), paper 000's test. */
    MbsModel *fb = build_four_bar();
    RunStats c = run(fb, 1e-2, 5.0, 0), d = run(fb, 5e-3, 5.0, 0);
    check_constraints(&c, "spatial four-bar h=1e-2");
    tap_below(c.max_de, 0.1, "spatial four-bar h=1e-2: |E - E0| <= 0.1 J over 5 s (max %.4f, E0 "
              "40.8 J)", c.max_de);
    tap_below(d.max_de, 0.3 * c.max_de, "spatial four-bar: drift shrinks with h (%.2e -> %.2e)",
              c.max_de, d.max_de);
    mbs_model_free(fb);

    /* Slider-crank closed by a prismatic joint with a TSDA and an RSDA (conservative). */
    MbsModel *sc = build_slider_crank(0);
    RunStats e = run(sc, 1e-2, 5.0, 0);
    check_constraints(&e, "slider-crank (TSDA, RSDA) h=1e-2");
    tap_below(e.max_de, 2e-3, "slider-crank (TSDA, RSDA): |E - E0| <= 2e-3 J over 5 s (max %.2e)",
              e.max_de);
    /* Second order down to small steps (catches an ill-conditioned projection, whose round-off
     * floor stops the drift from shrinking). */
    RunStats e2 = run(sc, 2.5e-3, 5.0, 0);
    check_constraints(&e2, "slider-crank (TSDA, RSDA) h=2.5e-3");
    tap_below(e2.max_de, 0.15 * e.max_de,
              "slider-crank: drift shrinks at second order from h = 1e-2 to 2.5e-3 (%.2e -> %.2e)",
              e.max_de, e2.max_de);
    /* The paper's literal mass-orthogonal weighting (zeta = 1) also runs. */
    RunStats e3 = run(sc, 1e-2, 5.0, 2);
    check_constraints(&e3, "slider-crank, projection zeta = 1");
    tap_below(e3.max_de, 2e-3, "slider-crank, projection zeta = 1: |E - E0| <= 2e-3 J (max %.2e)",
              e3.max_de);
    mbs_model_free(sc);
}

/* Redundant constraints: the planar lattice modelled with spatial revolute joints. */
static void test_redundant(void)
{
    MbsModel *lat = build_lattice(3, 2);
    RunStats r = run(lat, 1e-2, 3.0, 0);
    check_constraints(&r, "lattice 3x2 (redundant)");
    tap_below(r.max_de, 1e-3, "lattice 3x2 (redundant): |E - E0| <= 1e-3 J over 3 s (max %.2e)",
              r.max_de);
    mbs_model_free(lat);
}

/* Rheonomic driver with a damper: the balance includes the work of driver and damper, and the
 * crank follows f(t) = 2 pi t. */
static void test_driven(void)
{
    MbsModel *m = build_slider_crank(1);
    MbsError err;
    MbsNatural *nat = mbs_natural_new(m, &err);
    double worst_drive = 0.0, max_de = 0.0;
    for (int pass = 0; pass < 2; ++pass) {
        double h = pass ? 5e-3 : 1e-2;
        MbsFormulation *f = make("ali3p", m, h, 0);
        if (!f)
            break;
        double *q = calloc((size_t)nat->n, sizeof(double));
        double ref = 0.0, de = 0.0;
        int failed = 0;
        long n = lround(2.0 / h);
        for (long k = 0; k < n; ++k) {
            if (mbs_formulation_step(f, &err)) {
                tap_diag("%s", err.message);
                failed = 1;
                break;
            }
            f->klass->coordinates(f, q, NULL);
            ref = mbs_natural_joint_coordinate(nat, q, 0, ref, NULL);
            worst_drive = fmax(worst_drive, fabs(ref - 2.0 * M_PI * f->time));
            de = fmax(de, fabs(f->monitors.total - f->energy0));
        }
        tap_ok(!failed && f->monitors.work_nonconservative != 0.0,
               "driven slider-crank h=%g: runs 2 s, non-conservative work %.3f J", h,
               f->monitors.work_nonconservative);
        tap_below(de, pass ? 0.3 * max_de : 0.1,
                  "driven slider-crank h=%g: energy balance |T + V - W - E0| (max %.2e J)", h, de);
        max_de = de;
        free(q);
        mbs_formulation_free(f);
    }
    tap_below(worst_drive, 1e-8, "driven slider-crank: crank angle equals f(t) = 2 pi t (max err %.2e)",
              worst_drive);
    mbs_natural_free(nat);
    mbs_model_free(m);
}

/* Mass-orthogonal and mass-damping-stiffness-orthogonal projections give the same motion. */
static void test_projections(void)
{
    MbsModel *m = build_slider_crank(1);
    MbsFormulation *f0 = make("ali3p", m, 1e-2, 0), *f1 = make("ali3p", m, 1e-2, 1);
    MbsError err;
    double dev = 0.0;
    int ok = f0 && f1;
    RunStats r1;
    memset(&r1, 0, sizeof r1);
    for (int k = 0; ok && k < 200; ++k) {
        if (mbs_formulation_step(f0, &err) || mbs_formulation_step(f1, &err)) {
            tap_diag("%s", err.message);
            ok = 0;
            break;
        }
        r1.max_phi = fmax(r1.max_phi, f1->monitors.phi_norm);
        r1.max_dphi = fmax(r1.max_dphi, f1->monitors.dphi_norm);
        r1.max_ddphi = fmax(r1.max_ddphi, f1->monitors.ddphi_norm);
        for (int p = 0; p < m->npoints; ++p) {
            double x0[3], x1[3];
            mbs_formulation_point_position(f0, p, x0);
            mbs_formulation_point_position(f1, p, x1);
            for (int c = 0; c < 3; ++c)
                dev = fmax(dev, fabs(x0[c] - x1[c]));
        }
    }
    r1.failed = !ok;
    check_constraints(&r1, "mass-damping-stiffness-orthogonal projection");
    tap_below(dev, 1e-4, "both projections give the same point trajectories (max %.2e m)", dev);
    mbs_formulation_free(f0);
    mbs_formulation_free(f1);
    mbs_model_free(m);
}

static void test_errors(void)
{
    MbsModel *m = build_four_bar();
    MbsSettings s;
    MbsError err;
    mbs_settings_defaults(&s);
    *(double *)mbs_settings_value_for(&s, "ali3p", "newmark-beta") = 0.0;
    err.message[0] = 0;
    MbsFormulation *f = mbs_formulation_new("ali3p", m, &s, &err);
    tap_ok(!f && strstr(err.message, "beta"), "invalid Newmark beta is refused: %s", err.message);
    mbs_formulation_free(f);
    mbs_settings_defaults(&s);
    mbs_settings_set_number_for(&s, "ali3p", "newton-iterations", 1, NULL);
    f = mbs_formulation_new("ali3p", m, &s, &err);
    int st = f ? mbs_formulation_step(f, &err) : -99;
    tap_ok(st > 0 && strstr(err.message, "t = 0.01") && f->time == 0.0,
           "Newton non-convergence is recoverable, names the time and keeps the state: %s",
           err.message);
    if (f) {
        mbs_settings_set_number_for(&f->settings, "ali3p", "newton-iterations", 20, NULL);
        st = mbs_formulation_step(f, &err);
        tap_ok(st == 0 && fabs(f->time - 0.01) < 1e-15, "the step succeeds on retry");
    }
    mbs_formulation_free(f);
    mbs_model_free(m);
}

static MbsFormulation *make_solver(const MbsModel *m, double h, int kind, int solver)
{
    MbsSettings s;
    MbsError err;
    mbs_settings_defaults(&s);
    s.step = h;
    mbs_settings_set_number_for(&s, "ali3p", "projection", kind, NULL);
    mbs_settings_set_number_for(&s, "ali3p", "algebra", solver, NULL);
    MbsFormulation *f = mbs_formulation_new("ali3p", m, &s, &err);
    if (!f)
        tap_diag("ali3p on %s: %s", m->name, err.message);
    return f;
}

static void test_no_allocation(void)
{
    /* KLU's allocations are counted too: the counter interposes malloc for the process */
    MbsModel *m = build_slider_crank(0); /* TSDA + RSDA: stiffness/damping by differences */
    for (int solver = 1; solver <= 2; ++solver)
        for (int kind = 0; kind <= 1; ++kind) {
            MbsFormulation *f = make_solver(m, 1e-2, kind, solver);
            MbsError err;
            int st = f ? 0 : -1;
            alloc_count = 0;
            alloc_counting = 1;
            for (int k = 0; k < 20 && st == 0; ++k)
                st = mbs_formulation_step(f, &err);
            alloc_counting = 0;
            tap_ok(st == 0 && alloc_count == 0, "%s algebra, projection %d: 20 steps allocate "
                   "nothing (%ld allocations)", solver == 1 ? "dense" : "sparse", kind, alloc_count);
            mbs_formulation_free(f);
        }
    mbs_model_free(m);
}

/* The sparse path analyses the pattern once in init. Symmetric positive definite matrices (no
 * K, C: M + s Phi_q^T Phi_q) are factorized by blocks (Cholesky), the others by KLU: pivoting
 * once in init, then numeric refactorizations on that analysis. With `kc` (forces that vary
 * with the state) the Newton tangent is unsymmetric, the mass-orthogonal projection is not. */
static void factorizations_per_step(const MbsModel *m, int kc)
{
    MbsFormulation *f = make_solver(m, 1e-2, 0, 2);
    if (!f) {
        tap_ok(0, "ali3p sparse on %s", m->name);
        return;
    }
    double full_init = mbs_formulation_statistic(f, "sparse_full_factorizations", -1.0);
    mbs_formulation_reset_statistics(f);
    MbsError err;
    int steps = 0, iterations = 0;
    for (; steps < 20 && mbs_formulation_step(f, &err) == 0; ++steps)
        iterations += f->monitors.newton_iterations;
    double re = mbs_formulation_statistic(f, "sparse_refactorizations", -1.0);
    double full = mbs_formulation_statistic(f, "sparse_full_factorizations", -1.0);
    double chol = mbs_formulation_statistic(f, "sparse_block_choleskys", -1.0);
    tap_ok(steps == 20 && full_init == kc && full == 0.0 && re == (kc ? iterations : 0) &&
               chol == (kc ? 0 : iterations) + steps,
           "%s, sparse: %g KLU factorizations in init, then over %d steps (%d Newton iterations) "
           "%g KLU refactorizations, %g block Cholesky factorizations, %g KLU factorizations",
           m->name, full_init, steps, iterations, re, chol, full);
    mbs_formulation_free(f);
}

/* Sparse (KLU) and dense (LAPACK) linear algebra give the same motion; a 46-body lattice runs
 * with the automatic (sparse) choice. */
static void test_sparse(void)
{
    struct {
        MbsModel *m;
        const char *label;
        int kind, steps;
    } cases[] = {
        {build_slider_crank(0), "slider-crank (TSDA, RSDA)", 0, 200},
        {build_slider_crank(0), "slider-crank (TSDA, RSDA)", 1, 200},
        {build_slider_crank(1), "driven slider-crank", 0, 200},
        {build_chain(), "chain", 0, 100},
        {build_lattice(2, 2), "lattice 2x2", 0, 200},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
        const MbsModel *m = cases[c].m;
        MbsFormulation *d = make_solver(m, 1e-2, cases[c].kind, 1);
        MbsFormulation *sp = make_solver(m, 1e-2, cases[c].kind, 2);
        MbsError err;
        double dev = INFINITY;
        if (d && sp) {
            dev = 0.0;
            for (int k = 0; k < cases[c].steps; ++k) {
                if (mbs_formulation_step(d, &err) || mbs_formulation_step(sp, &err)) {
                    tap_diag("%s", err.message);
                    dev = INFINITY;
                    break;
                }
                for (int p = 0; p < m->npoints; ++p) {
                    double x[3], y[3];
                    mbs_formulation_point_position(d, p, x);
                    mbs_formulation_point_position(sp, p, y);
                    for (int i = 0; i < 3; ++i)
                        dev = fmax(dev, fabs(x[i] - y[i]));
                }
            }
        }
        tap_below(dev, 1e-7, "%s, projection %d: sparse KLU and dense LAPACK give the same "
                  "points over %d steps (max %.2e m)", cases[c].label, cases[c].kind,
                  cases[c].steps, dev);
        mbs_formulation_free(d);
        mbs_formulation_free(sp);
        mbs_model_free(cases[c].m);
    }
    MbsModel *lat = build_lattice(1, 15);
    RunStats r = run(lat, 1e-2, 1.0, 0), r2 = run(lat, 5e-3, 1.0, 0);
    check_constraints(&r, "lattice 1x15 (46 bodies, automatic sparse)");
    tap_below(r.max_de, 0.1, "lattice 1x15: |E - E0| <= 0.1 J over 1 s with 680 J of kinetic "
              "energy (max %.2e)", r.max_de);
    tap_below(r2.max_de, 0.3 * r.max_de, "lattice 1x15: drift shrinks with h (%.2e -> %.2e)",
              r.max_de, r2.max_de);
    factorizations_per_step(lat, 0);
    MbsModel *sc = build_slider_crank(0);
    factorizations_per_step(sc, 1);
    mbs_model_free(sc);
    mbs_model_free(lat);
}

/* Agreement with the relative-coordinate `penalty` formulation on every point trajectory. */
static double compare_penalty(const MbsModel *m, double h, double T, double *dev0)
{
    MbsFormulation *a = make("ali3p", m, h, 0), *p = make("penalty", m, h, 0);
    MbsError err;
    double dev = INFINITY;
    *dev0 = INFINITY;
    if (!a || !p)
        goto out;
    dev = *dev0 = 0.0;
    long n = lround(T / h);
    for (long k = 0; k <= n; ++k) {
        for (int i = 0; i < m->npoints; ++i) {
            double x[3], y[3];
            mbs_formulation_point_position(a, i, x);
            mbs_formulation_point_position(p, i, y);
            for (int c = 0; c < 3; ++c) {
                dev = fmax(dev, fabs(x[c] - y[c]));
                if (k == 0)
                    *dev0 = fmax(*dev0, fabs(x[c] - y[c]));
            }
        }
        if (k < n && (mbs_formulation_step(a, &err) || mbs_formulation_step(p, &err))) {
            tap_diag("%s: %s", m->name, err.message);
            dev = INFINITY;
            break;
        }
    }
out:
    mbs_formulation_free(a);
    mbs_formulation_free(p);
    return dev;
}

/* Everything at once: open chain with revolute, prismatic, spherical and universal joints,
 * two drivers, a TSDA with damping and preload, an RSDA on a driven joint, a constant force and
 * a constant torque. The energy balance closes at second order, and the point trajectories
 * agree with penalty. */
static void test_chain(void)
{
    MbsModel *m = build_chain();
    RunStats a = run(m, 1e-2, 2.0, 0), b = run(m, 5e-3, 2.0, 0);
    check_constraints(&a, "chain h=1e-2");
    tap_ok(fabs(a.final_work) > 10.0, "chain: drivers, dampers, force and torque do work "
           "(%.2f J)", a.final_work);
    tap_below(a.max_de, 0.6, "chain h=1e-2: |T + V - W - E0| <= 0.6 J over 2 s (max %.3f J)",
              a.max_de);
    tap_below(b.max_de, 0.3 * a.max_de, "chain: energy balance error shrinks with h (%.2e -> %.2e)",
              a.max_de, b.max_de);
    double d0, coarse = compare_penalty(m, 5e-3, 0.5, &d0);
    double fine = compare_penalty(m, 2e-3, 0.5, &d0);
    tap_below(fine, 1e-4, "chain: point trajectories agree with penalty over 0.5 s, h = 2e-3 "
              "(max %.2e m)", fine);
    tap_below(fine, 0.3 * coarse, "chain: the difference shrinks with h (%.2e -> %.2e m)", coarse,
              fine);
    mbs_model_free(m);
}

/* Paper 000's 1x15 lattice (46 bodies, redundant) passes close to a singular configuration
 * at t = 1.6 s, where the multiplier iteration stalls with alpha = 1e9 (the step restarts with
 * a larger alpha). It must get through and keep following penalty. */
static void test_near_singular(void)
{
    MbsModel *m = build_lattice(1, 15);
    MbsFormulation *a = make("ali3p", m, 2e-3, 0), *p = make("penalty", m, 2e-3, 0);
    MbsError err;
    double dev = INFINITY, max_phi = 0.0, max_de = 0.0;
    int max_it = 0, ok = a && p;
    if (ok) {
        dev = 0.0;
        for (int k = 0; k < 1000; ++k) {
            if (mbs_formulation_step(a, &err) || mbs_formulation_step(p, &err)) {
                tap_diag("t = %g: %s", a->time, err.message);
                ok = 0;
                break;
            }
            max_phi = fmax(max_phi, a->monitors.phi_norm);
            max_de = fmax(max_de, fabs(a->monitors.total - a->energy0));
            if (a->monitors.newton_iterations > max_it)
                max_it = a->monitors.newton_iterations;
            for (int i = 0; i < m->npoints; ++i) {
                double x[3], y[3];
                mbs_formulation_point_position(a, i, x);
                mbs_formulation_point_position(p, i, y);
                for (int c = 0; c < 3; ++c)
                    dev = fmax(dev, fabs(x[c] - y[c]));
            }
        }
    }
    tap_diag("lattice 1x15: at most %d Newton iterations in a step (restarts included)", max_it);
    tap_ok(ok, "lattice 1x15, h = 2e-3: ali3p runs 2 s through the near-singular configuration");
    tap_below(max_phi, 1e-8, "lattice 1x15: ||Phi|| <= 1e-8 at every step (max %.2e)", max_phi);
    tap_below(max_de, 1e-2, "lattice 1x15: |E - E0| <= 1e-2 J (max %.2e; kinetic energy up to "
              "1900 J)", max_de);
    tap_below(dev, 1e-4, "lattice 1x15: points agree with penalty within 1e-4 m over 2 s (max "
              "%.2e m)", dev);
    mbs_formulation_free(a);
    mbs_formulation_free(p);
    mbs_model_free(m);
}

static void test_penalty_agreement(void)
{
    struct {
        MbsModel *m;
        const char *label;
        double T, tol;
        int shrink;
    } cases[] = {
        {build_double_pendulum(M_PI / 2, M_PI / 2, 1), "double pendulum", 2.0, 2e-3, 1},
        {build_four_bar(), "spatial four-bar", 2.0, 2e-3, 1},
        {build_slider_crank(0), "slider-crank (TSDA, RSDA)", 2.0, 1e-4, 1},
        {build_slider_crank(1), "driven slider-crank", 2.0, 1e-4, 0},
        {build_lattice(2, 2), "lattice 2x2 (redundant)", 2.0, 1e-4, 1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        double d0, d0b, coarse = compare_penalty(cases[i].m, 1e-2, cases[i].T, &d0);
        double fine = compare_penalty(cases[i].m, 2.5e-3, cases[i].T, &d0b);
        tap_below(d0, 1e-9, "%s: ali3p and penalty start from the same assembled points (%.2e m)",
                  cases[i].label, d0);
        tap_below(fine, cases[i].tol, "%s: point trajectories agree with penalty over %.0f s, "
                  "h = 2.5e-3 (max %.2e m)", cases[i].label, cases[i].T, fine);
        if (cases[i].shrink)
            tap_below(fine, 0.25 * coarse, "%s: the difference shrinks with h (%.2e -> %.2e m)",
                      cases[i].label, coarse, fine);
        mbs_model_free(cases[i].m);
    }
}

/* What ali3p reads for a model agrees with what it does: without state-dependent forces it
 * evaluates no Jacobian and does not list the Jacobian settings; with a spring it does both. */
static int setting_applies(const MbsFormulationClass *k, const MbsModel *m, const char *name)
{
    MbsSettings s;
    mbs_settings_defaults(&s);
    mbs_settings_for(&s, k);
    MbsSettingRef r;
    return mbs_settings_find(k->settings, name, &r) == 0 && mbs_setting_applies(&r, m, &s);
}

static void test_uses_for_model(void)
{
    const MbsFormulationClass *k = mbs_formulation_find("ali3p");
    MbsModel *models[2] = {build_four_bar(), build_slider_crank(0)};
    for (int i = 0; i < 2; i++) {
        MbsFormulation *f = make("ali3p", models[i], 1e-3, 0);
        long evaluations = 0;
        MbsError err;
        for (int n = 0; f && n < 20 && mbs_formulation_step(f, &err) == 0; n++)
            evaluations += f->monitors.jacobian_evaluations;
        int listed = setting_applies(k, models[i], "jacobian");
        tap_ok(f && listed == (evaluations > 0) && listed == (i == 1),
               "ali3p on %s: %ld Jacobian evaluations in 20 steps, Jacobian settings %s",
               models[i]->name, evaluations, listed ? "used" : "not used");
        mbs_formulation_free(f);
        mbs_model_free(models[i]);
    }
    tap_ok(setting_applies(mbs_formulation_find("penalty"), NULL, "jacobian"),
           "penalty reads the Jacobian settings");
}

int main(void)
{
    tap_ok(mbs_formulation_find("ali3p") != NULL, "ali3p is registered");
    test_energy();
    test_redundant();
    test_driven();
    test_projections();
    test_errors();
    test_no_allocation();
    test_sparse();
    test_penalty_agreement();
    test_chain();
    test_near_singular();
    test_uses_for_model();
    return tap_done();
}
