/* ssode (paper 002): the SDIRK 4/15 table, agreement with ali3p and penalty, the error against
 * a tight-tolerance reference on the stiff double pendulum as the tolerance falls, energy
 * balance, constraint residuals at every output, the integrator choices and repartitioning. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mbs_run.h"
#include "mbs_trajectory.h"
#include "tap.h"
#include "test_models.h"

#include <complex.h> /* after test_models.h: its bars name a local I */
#undef I

/* The Butcher table of engine/ssode_sdirk.c. */
#include "ssode_sdirk.h"

static double A_(int i, int j) { return mbs_ssode_sdirk_A[5 * i + j]; }

/* The order conditions up to order 4 (the eight trees), L-stability and the embedding. */
static void sdirk_table(void)
{
    const double *b = mbs_ssode_sdirk_b, *c = mbs_ssode_sdirk_c, *d = mbs_ssode_sdirk_d;
    double Ac[5], Ac2[5], AAc[5];
    double worst_row = 0.0;
    for (int i = 0; i < 5; ++i) {
        double sum = 0.0;
        Ac[i] = Ac2[i] = 0.0;
        for (int j = 0; j < 5; ++j) {
            sum += A_(i, j);
            Ac[i] += A_(i, j) * c[j];
            Ac2[i] += A_(i, j) * c[j] * c[j];
        }
        worst_row = fmax(worst_row, fabs(sum - c[i]));
    }
    for (int i = 0; i < 5; ++i) {
        AAc[i] = 0.0;
        for (int j = 0; j < 5; ++j)
            AAc[i] += A_(i, j) * Ac[j];
    }
    double cond[8] = {0}, want[8] = {1, 0.5, 1.0 / 3, 1.0 / 6, 0.25, 1.0 / 8, 1.0 / 12, 1.0 / 24};
    for (int i = 0; i < 5; ++i) {
        cond[0] += b[i];
        cond[1] += b[i] * c[i];
        cond[2] += b[i] * c[i] * c[i];
        cond[3] += b[i] * Ac[i];
        cond[4] += b[i] * c[i] * c[i] * c[i];
        cond[5] += b[i] * c[i] * Ac[i];
        cond[6] += b[i] * Ac2[i];
        cond[7] += b[i] * AAc[i];
    }
    double worst = 0.0;
    for (int k = 0; k < 8; ++k)
        worst = fmax(worst, fabs(cond[k] - want[k]));
    tap_below(worst, 1e-14, "SDIRK 4/15: the eight order-4 conditions hold (worst residual %.1e)",
              worst);
    tap_below(worst_row, 1e-15, "SDIRK 4/15: c_i = sum_j a_ij (%.1e)", worst_row);
    int sdirk = 1;
    for (int i = 0; i < 5; ++i) {
        sdirk &= A_(i, i) == 4.0 / 15.0 && A_(4, i) == b[i];
        for (int j = i + 1; j < 5; ++j)
            sdirk &= A_(i, j) == 0.0;
    }
    tap_ok(sdirk, "SDIRK 4/15: lower triangular, gamma = 4/15 on the diagonal, stiffly accurate "
                  "(last row = b)");
    /* embedding (Hairer's SDIRK4): order 3 on the first four stages (d5 = 0), not order 4;
     * its estimate is filtered through (I - h gamma J)^-1 in engine/ssode_sdirk.c */
    double e[4] = {0};
    for (int i = 0; i < 5; ++i) {
        e[0] += d[i];
        e[1] += d[i] * c[i];
        e[2] += d[i] * c[i] * c[i];
        e[3] += d[i] * Ac[i];
    }
    double we = fmax(fmax(fabs(e[0] - 1), fabs(e[1] - 0.5)), fmax(fabs(e[2] - 1.0 / 3),
                                                                  fabs(e[3] - 1.0 / 6)));
    tap_below(we, 1e-13, "SDIRK 4/15: the embedded weights are of order 3 (%.1e), d5 = %g", we,
              d[4]);
    tap_ok(d[4] == 0.0, "the embedding does not use the last stage");
    double cond4 = 0.0;
    for (int i = 0; i < 5; ++i)
        cond4 += d[i] * c[i] * c[i] * c[i];
    tap_ok(fabs(cond4 - 0.25) > 1e-3, "and is not of order 4: the difference estimates the error "
           "(sum d c^3 = %.4f)", cond4);
    /* R(z) = 1 + z b^T (I - z A)^-1 1 on the imaginary axis and at infinity */
    double worst_abs = 0.0;
    for (int k = -300; k <= 300; ++k) {
        double complex z = _Complex_I * (k < 0 ? -1.0 : 1.0) * pow(10.0, abs(k) / 50.0 - 2.0), x[5];
        for (int i = 0; i < 5; ++i) {
            double complex s = 1.0;
            for (int j = 0; j < i; ++j)
                s += z * A_(i, j) * x[j];
            x[i] = s / (1.0 - z * A_(i, i));
        }
        double complex R = 1.0;
        for (int i = 0; i < 5; ++i)
            R += z * b[i] * x[i];
        worst_abs = fmax(worst_abs, cabs(R));
    }
    tap_below(worst_abs, 1.0 + 1e-12, "SDIRK 4/15: |R(iy)| <= 1 on the imaginary axis (max %.15f)",
              worst_abs);
    double complex z = -1e12, x[5], R = 1.0;
    for (int i = 0; i < 5; ++i) {
        double complex s = 1.0;
        for (int j = 0; j < i; ++j)
            s += z * A_(i, j) * x[j];
        x[i] = s / (1.0 - z * A_(i, i));
        R += z * b[i] * x[i];
    }
    tap_below(cabs(R), 1e-9, "SDIRK 4/15: L-stable, |R(-1e12)| = %.1e", cabs(R));
}

/* Paper 002 §5.1, as models/double-pendulum-stiff.json. */
static MbsModel *build_stiff_pendulum(void)
{
    MbsError err;
    MbsModel *m = mbs_model_new("double-pendulum-stiff");
    m->gravity[1] = -9.81;
    double O[3] = {0, 0, 0}, P[3] = {2, 0, 0};
    double E[3] = {2 + 3 * cos(M_PI / 12), -3 * sin(M_PI / 12), 0};
    int g = mbs_model_add_ground(m, "ground", &err);
    double I1[9], I2[9], c1[3] = {1, 0, 0}, c2[3] = {0.5 * (P[0] + E[0]), 0.5 * E[1], 0};
    mbs_inertia_slender_rod(3.0, O, P, I1);
    mbs_inertia_slender_rod(0.3, P, E, I2);
    int b1 = mbs_model_add_body(m, "bar1", 3.0, c1, I1, &err);
    int b2 = mbs_model_add_body(m, "bar2", 0.3, c2, I2, &err);
    die_on(b1, &err);
    die_on(b2, &err);
    die_on(mbs_model_add_point(m, b1, "P", P, &err), &err);
    die_on(mbs_model_add_point(m, b2, "E", E, &err), &err);
    int jo = mbs_model_add_joint(m, "O", MBS_JOINT_REVOLUTE, g, b1, O, Z_AXIS, &err);
    int jp = mbs_model_add_joint(m, "P", MBS_JOINT_REVOLUTE, b1, b2, P, Z_AXIS, &err);
    die_on(jo, &err);
    die_on(jp, &err);
    MbsForce s1 = {.type = MBS_FORCE_RSDA, .joint = jo, .stiffness = 400, .damping = 15,
                   .rest_angle = -M_PI / 2};
    MbsForce s2 = {.type = MBS_FORCE_RSDA, .joint = jp, .stiffness = 3e5, .damping = 5e4,
                   .rest_angle = M_PI / 12};
    snprintf(s1.name, sizeof s1.name, "spring1");
    snprintf(s2.name, sizeof s2.name, "spring2");
    die_on(mbs_model_add_force(m, &s1, &err), &err);
    die_on(mbs_model_add_force(m, &s2, &err), &err);
    die_on(mbs_model_set_initial(m, jo, 0, 1, 0.0, &err), &err);
    die_on(mbs_model_set_initial(m, jp, 0, 1, 10.0, &err), &err);
    if (mbs_model_compile(m, &err)) {
        fprintf(stderr, "%s\n", err.message);
        exit(2);
    }
    return m;
}

static MbsFormulation *make_ssode(const MbsModel *m, const char *integrator, double tol, double h)
{
    MbsSettings s;
    mbs_settings_defaults(&s);
    s.step = h;
    MbsError err;
    mbs_settings_set_for(&s, "ssode", "integrator", integrator, NULL);
    mbs_settings_set_number_for(&s, "ssode", "rtol", tol, NULL);
    mbs_settings_set_number_for(&s, "ssode", "atol", tol, NULL);
    MbsFormulation *f = mbs_formulation_new("ssode", m, &s, &err);
    if (!f)
        tap_diag("ssode: %s", err.message);
    return f;
}

/* theta1 of bar 1 (model body 1, natural coordinates u = q[3..5]) and its rate. */
static void theta1(const MbsFormulation *f, double *th, double *thd)
{
    double q[64], qd[64];
    f->klass->coordinates(f, q, qd);
    *th = atan2(q[4], q[3]);
    *thd = q[3] * qd[4] - q[4] * qd[3];
}

typedef struct {
    int n;
    double th[512], thd[512];
    long internal_steps;
    double phi_max, dphi_max, drift_max;
    int ok;
} PendulumRun;

#define OUTPUT_STEP 0.01
#define DURATION 2.0

static void run_pendulum(const MbsModel *m, const char *integrator, double tol, double duration,
                         PendulumRun *r)
{
    memset(r, 0, sizeof *r);
    MbsFormulation *f = make_ssode(m, integrator, tol, OUTPUT_STEP);
    if (!f)
        return;
    MbsError err;
    long steps = mbs_run_step_count(duration, OUTPUT_STEP);
    r->ok = 1;
    double unwrap = 0.0, prev = 0.0;
    for (long k = 0; k <= steps && k < 512; ++k) {
        if (k > 0 && mbs_formulation_step(f, &err) != 0) {
            tap_diag("%s at tol %g: %s", integrator, tol, err.message);
            r->ok = 0;
            break;
        }
        double th, thd;
        theta1(f, &th, &thd);
        if (k > 0 && th - prev > M_PI)
            unwrap -= 2 * M_PI;
        else if (k > 0 && th - prev < -M_PI)
            unwrap += 2 * M_PI;
        prev = th;
        r->th[k] = th + unwrap;
        r->thd[k] = thd;
        r->n = (int)k + 1;
        r->phi_max = fmax(r->phi_max, f->monitors.phi_norm);
        r->dphi_max = fmax(r->dphi_max, f->monitors.dphi_norm);
        r->drift_max = fmax(r->drift_max, fabs(f->monitors.total - f->energy0));
    }
    r->internal_steps = (long)mbs_formulation_statistic(f, "internal_steps", -1);
    tap_diag("%s tol %.0e: %ld internal steps, %.0f error test failures, %.0f nonlinear "
             "iterations, %.0f convergence failures, %.0f right-hand sides, %.0f Jacobians, "
             "%.0f repartitions", integrator, tol, r->internal_steps,
             mbs_formulation_statistic(f, "error_test_failures", -1),
             mbs_formulation_statistic(f, "nonlinear_iterations", -1),
             mbs_formulation_statistic(f, "nonlinear_failures", -1),
             mbs_formulation_statistic(f, "rhs_evaluations", -1),
             mbs_formulation_statistic(f, "jacobian_evaluations", -1),
             mbs_formulation_statistic(f, "repartitions", -1));
    mbs_formulation_free(f);
}

static void errors(const PendulumRun *a, const PendulumRun *ref, double *pmax, double *prms,
                   double *vmax, double *vrms)
{
    *pmax = *prms = *vmax = *vrms = 0.0;
    for (int k = 0; k < a->n && k < ref->n; ++k) {
        double dp = fabs(a->th[k] - ref->th[k]), dv = fabs(a->thd[k] - ref->thd[k]);
        *pmax = fmax(*pmax, dp);
        *vmax = fmax(*vmax, dv);
        *prms += dp * dp;
        *vrms += dv * dv;
    }
    *prms = sqrt(*prms / a->n);
    *vrms = sqrt(*vrms / a->n);
}

/* Paper 002 Table II: error of theta1 and its rate against a tight-tolerance reference. */
static void error_falls_with_tolerance(void)
{
    MbsModel *m = build_stiff_pendulum();
    static PendulumRun ref, run[4];
    run_pendulum(m, "sdirk4", 1e-10, DURATION, &ref);
    tap_ok(ref.ok && ref.n == 201, "stiff double pendulum: reference at tol 1e-10 over 2 s "
           "(%ld internal steps)", ref.internal_steps);
    tap_diag("theta1 in [%.3f, %.3f] rad", ref.th[0], ref.th[ref.n - 1]);
    double pmax[4], vmax[4], prms_k[4], vrms_k[4];
    tap_diag("tol     theta1 max   theta1 rms   rate max     rate rms     internal steps");
    for (int k = 0; k < 4; ++k) {
        double tol = pow(10.0, -2 - k), prms, vrms;
        run_pendulum(m, "sdirk4", tol, DURATION, &run[k]);
        errors(&run[k], &ref, &pmax[k], &prms, &vmax[k], &vrms);
        prms_k[k] = prms;
        vrms_k[k] = vrms;
        tap_diag("%.0e   %.3e    %.3e    %.3e    %.3e    %ld", tol, pmax[k], prms, vmax[k], vrms,
                 run[k].internal_steps);
        tap_ok(run[k].ok && run[k].n == 201, "tol %.0e: 2 s in %ld internal steps", tol,
               run[k].internal_steps);
        /* paper 002: Delta ~ up to 7 10^k for positions, 10^(k+1) for velocities */
        tap_below(pmax[k], 20 * tol, "tol %.0e: max error of theta1 %.2e rad", tol, pmax[k]);
        tap_below(vmax[k], 200 * tol, "tol %.0e: max error of its rate %.2e rad/s", tol, vmax[k]);
        tap_below(run[k].phi_max, 1e-10, "tol %.0e: |Phi| <= %.1e at every output", tol,
                  run[k].phi_max);
        tap_below(run[k].dphi_max, 1e-8, "tol %.0e: |Phi_dot| <= %.1e at every output", tol,
                  run[k].dphi_max);
    }
    tap_ok(pmax[3] < 0.1 * pmax[1] && pmax[2] < pmax[0] && vmax[3] < 0.1 * vmax[1] &&
               vmax[2] < vmax[0],
           "the errors fall with the tolerance (theta1 %.1e -> %.1e, rate %.1e -> %.1e)", pmax[0],
           pmax[3], vmax[0], vmax[3]);
    /* Table II decade by decade: every error measure (max and RMS of theta1 and its rate)
     * falls by at least 3 from one tolerance to the next (measured 5-20 times). */
    int decades = 1;
    double worst_ratio = INFINITY;
    for (int k = 0; k + 1 < 4; ++k) {
        const double now[4] = {pmax[k + 1], prms_k[k + 1], vmax[k + 1], vrms_k[k + 1]};
        const double before[4] = {pmax[k], prms_k[k], vmax[k], vrms_k[k]};
        for (int e = 0; e < 4; ++e) {
            worst_ratio = fmin(worst_ratio, before[e] / now[e]);
            decades &= now[e] * 3 < before[e];
        }
    }
    tap_ok(decades, "each tighter decade of tolerance cuts every error measure by 3 or more "
           "(the smallest ratio %.1f)", worst_ratio);

    tap_ok(run[0].internal_steps < run[3].internal_steps,
           "and tol 1e-5 takes more internal steps than 1e-2 (%ld, %ld, %ld, %ld)",
           run[0].internal_steps, run[1].internal_steps, run[2].internal_steps,
           run[3].internal_steps);
    /* The other integrators on the same ODE agree with the reference at their tolerance. */
    static PendulumRun bdf, adams;
    run_pendulum(m, "bdf", 1e-6, DURATION, &bdf);
    double p, pr, v, vr;
    errors(&bdf, &ref, &p, &pr, &v, &vr);
    tap_ok(bdf.ok && bdf.n == 201 && p < 1e-3 && v < 1e-2,
           "CVODE BDF at tol 1e-6: theta1 error %.1e, rate %.1e (%ld internal steps)", p, v,
           bdf.internal_steps);
    /* The explicit Adams code is held by the stiff eigenvalue (~ -1e5): 0.2 s only. */
    run_pendulum(m, "adams", 1e-4, 0.2, &adams);
    static PendulumRun sd_short;
    run_pendulum(m, "sdirk4", 1e-4, 0.2, &sd_short);
    errors(&adams, &ref, &p, &pr, &v, &vr);
    tap_ok(adams.ok && adams.n == 21 && p < 1e-3,
           "CVODE Adams at tol 1e-4 over 0.2 s: theta1 error %.1e", p);
    tap_ok(adams.internal_steps > 10 * sd_short.internal_steps,
           "the stiffness shows: Adams takes %ld internal steps where SDIRK takes %ld",
           adams.internal_steps, sd_short.internal_steps);
    /* bound: 10 times the drift measured (6.2e-7 J) */
    tap_below(ref.drift_max, 6e-6,
              "energy balance (kinetic + potentials - damper work) at tol 1e-10: drift %.2e J",
              ref.drift_max);
    mbs_model_free(m);
}

static int *all_points(const MbsModel *m, int *np)
{
    *np = m->npoints;
    int *p = malloc(sizeof(int) * (size_t)(m->npoints + 1));
    for (int i = 0; i < m->npoints; ++i)
        p[i] = i;
    return p;
}

/* Point trajectories against ali3p and penalty at small steps, within bounds (m) of about 10
 * times the deviations measured. */
static void agrees_with(const char *name, MbsModel *m, double duration, double bound_ali3p,
                        double bound_penalty)
{
    int np;
    int *pts = all_points(m, &np);
    MbsSettings s;
    mbs_settings_defaults(&s);
    s.step = 1e-3;
    s.duration = duration;
    MbsError err;
    MbsTrajectory ss;
    mbs_settings_set_number_for(&s, "ssode", "rtol", 1e-9, NULL);
    mbs_settings_set_number_for(&s, "ssode", "atol", 1e-9, NULL);
    int st = mbs_trajectory_record(m, "ssode", &s, 10, pts, np, &ss, &err);
    tap_ok(st == 0 && !ss.failed, "%s: ssode ran %g s (%s)", name, duration,
           st ? err.message : ss.failed ? ss.error.message : "ok");
    const char *others[] = {"ali3p", "penalty"};
    double bounds[] = {bound_ali3p, bound_penalty};
    for (int k = 0; k < 2; ++k) {
        MbsSettings o;
        mbs_settings_defaults(&o);
        o.step = k == 0 ? 5e-4 : 2.5e-4;
        o.duration = duration;
        MbsTrajectory t;
        int every = (int)lround(1e-2 / o.step);
        if (mbs_trajectory_record(m, others[k], &o, every, pts, np, &t, &err) || t.failed) {
            tap_ok(0, "%s: %s ran", name, others[k]);
            continue;
        }
        double d = mbs_trajectory_max_deviation(&ss, &t);
        tap_ok(d >= 0 && d < bounds[k], "%s: ssode and %s (h = %g ms) agree within %.2e m "
               "(bound %.0e)", name, others[k], 1e3 * o.step, d, bounds[k]);
        mbs_trajectory_free(&t);
    }
    mbs_trajectory_free(&ss);
    free(pts);
}

/* Energy conservation of a conservative mechanism, residuals and partition statistics. */
static void four_bar_energy_and_partition(void)
{
    MbsModel *m = build_four_bar();
    MbsFormulation *f = make_ssode(m, "sdirk4", 1e-9, 1e-2);
    MbsError err;
    int ok = f != NULL;
    double drift = 0.0, phi = 0.0, dphi = 0.0, ddphi = 0.0;
    for (int k = 0; ok && k < 300; ++k) {
        ok &= mbs_formulation_step(f, &err) == 0;
        drift = fmax(drift, fabs(f->monitors.total - f->energy0));
        phi = fmax(phi, f->monitors.phi_norm);
        dphi = fmax(dphi, f->monitors.dphi_norm);
        ddphi = fmax(ddphi, f->monitors.ddphi_norm);
    }
    tap_ok(ok, "four-bar: 3 s at tol 1e-9 in output steps of 10 ms");
    tap_below(drift, 1e-6 * fmax(1.0, fabs(f ? f->energy0 : 0)),
              "four-bar: energy drift %.2e J (E0 = %.3f J)", drift, f ? f->energy0 : 0);
    tap_below(phi, 1e-10, "four-bar: |Phi| %.1e at every output", phi);
    tap_below(dphi, 1e-9, "four-bar: |Phi_dot| %.1e at every output", dphi);
    tap_below(ddphi, 1e-7, "four-bar: |Phi_ddot| %.1e at every output", ddphi);
    if (f) {
        double steps = mbs_formulation_statistic(f, "internal_steps", -1);
        double hmax = mbs_formulation_statistic(f, "internal_step_max", -1);
        double hmin = mbs_formulation_statistic(f, "internal_step_min", -1);
        double rep = mbs_formulation_statistic(f, "repartitions", -1);
        tap_ok(steps >= 300 && hmin > 0 && hmax <= 1e-2 + 1e-15 && hmin <= hmax,
               "statistics: %.0f internal steps of %.2e .. %.2e s, %.0f repartitions", steps, hmin,
               hmax, rep);
        mbs_formulation_reset_statistics(f);
        tap_ok(mbs_formulation_statistic(f, "internal_steps", -1) == 0,
               "reset_statistics zeroes the counters");
    }
    mbs_formulation_free(f);
    mbs_model_free(m);
}

/* The stiff pendulum swings bar 1 through a quarter turn: the partition chosen at t = 0 grows
 * ill-conditioned and is replaced. */
static void repartitions(void)
{
    MbsModel *m = build_stiff_pendulum();
    MbsFormulation *f = make_ssode(m, "sdirk4", 1e-6, 1e-2);
    MbsError err;
    int ok = f != NULL;
    double phi = 0.0;
    for (int k = 0; ok && k < 100; ++k) {
        ok &= mbs_formulation_step(f, &err) == 0;
        phi = fmax(phi, f->monitors.phi_norm);
    }
    double rep = f ? mbs_formulation_statistic(f, "repartitions", -1) : -1;
    tap_ok(ok && rep > 0 && phi < 1e-10,
           "stiff double pendulum, 1 s: %.0f repartitions (cond(Phi_u) grew 25 %%), |Phi| <= %.1e",
           rep, phi);
    mbs_formulation_free(f);
    mbs_model_free(m);
}

/* The outputs' velocities are the time derivative of the outputs' positions (issue 11: with
 * ARKODE's Lagrange interpolant, of low degree after each restart, they differed by 2.3e-2 m/s
 * on the four-bar). Stiff double pendulum, tol 1e-4, outputs every 1 ms: internal steps up to
 * tens of ms, a repartition restarts the integrator at ~0.23 s. Central differences of every
 * natural coordinate against its output rate: dt^2/6 times the third derivative of the Hermite
 * pieces, plus their C1 joints; separate polynomials for v and vd differ by their
 * interpolation error instead. */
static void outputs_consistent(void)
{
    MbsModel *m = build_stiff_pendulum();
    const double dt = 1e-3;
    MbsFormulation *f = make_ssode(m, "sdirk4", 1e-4, dt);
    MbsError err;
    int ok = f != NULL, n = f ? f->klass->ncoords(f) : 0, steps = 500;
    double *q = calloc((size_t)(3 * n + 1), sizeof(double)), *qd = q + n, *qm = qd + n;
    double *qprev = calloc((size_t)(2 * n + 1), sizeof(double)), *qdprev = qprev + n;
    double worst = 0.0, vmax = 0.0;
    for (int k = 0; ok && k <= steps; ++k) {
        if (k > 0)
            ok &= mbs_formulation_step(f, &err) == 0;
        memcpy(qm, qprev, (size_t)n * sizeof(double));
        memcpy(qprev, q, (size_t)n * sizeof(double));
        memcpy(qdprev, qd, (size_t)n * sizeof(double));
        f->klass->coordinates(f, q, qd);
        /* at output k - 1: (q_k - q_{k-2}) / 2 dt against qd_{k-1}; from 10 ms on (the first
         * milliseconds hold the fast mode's initial layer, eigenvalue ~ -1e5: there the exact
         * motion's differences differ from its velocity by 3e-2) */
        if (k >= 11)
            for (int i = 0; i < n; ++i) {
                worst = fmax(worst, fabs((q[i] - qm[i]) / (2 * dt) - qdprev[i]));
                vmax = fmax(vmax, fabs(qdprev[i]));
            }
    }
    double rep = f ? mbs_formulation_statistic(f, "repartitions", -1) : 0;
    double hmax = f ? mbs_formulation_statistic(f, "internal_step_max", -1) : 0;
    tap_ok(ok && rep >= 1 && hmax > 10 * dt, "stiff double pendulum 0.5 s, outputs every 1 ms: "
           "%.0f repartition(s), internal steps up to %.1f ms", rep, 1e3 * hmax);
    tap_below(worst, 1e-4 * vmax, "the output velocities are the derivative of the output "
              "positions: central differences differ by %.1e (|qd| up to %.1f)", worst, vmax);
    free(q);
    free(qprev);
    mbs_formulation_free(f);
    mbs_model_free(m);
}

/* The SDIRK on its own (engine/ssode_sdirk.c), y = (x, xd, w): x'' = -(2 pi)^2 x, w' = xd^2,
 * 5 s (x = cos 2 pi t, w = 2 pi^2 t), and the stiff x'' = -1e8 (x - sin t) - 2e4 (xd - cos t)
 * - sin t (eigenvalue -1e4 twice; x = sin t), 10 s: L-stable, it runs, but its steps stay
 * short (5509 at tol 1e-4 for an error of 1e-8: the order reduction of a stage-order-1 method
 * on a driven stiff component, which the estimate sees). */
static double sdirk_k;
static int sdirk_test_rhs(void *data, double t, const double *y, double *ydot)
{
    (void)data;
    double w2 = 4 * M_PI * M_PI;
    ydot[0] = y[1];
    ydot[1] = sdirk_k == 0 ? -w2 * y[0]
                           : -sdirk_k * (y[0] - sin(t)) - 2e4 * (y[1] - cos(t)) - sin(t);
    ydot[2] = y[1] * y[1];
    return 0;
}

/* Its Jacobian (the integrator takes J1, J2, Jw from the caller). */
static int sdirk_test_jacobian(void *data, double t, const double *y, const double *ydot,
                               double *J1, double *J2, double *Jw)
{
    (void)data;
    (void)t;
    (void)ydot;
    J1[0] = sdirk_k == 0 ? -4 * M_PI * M_PI : -sdirk_k;
    J2[0] = sdirk_k == 0 ? 0.0 : -2e4;
    Jw[0] = 0.0;
    Jw[1] = 2.0 * y[1];
    return 0;
}

static void sdirk_alone(void)
{
    long steps[3];
    for (int stiff = 0; stiff < 2; ++stiff) {
        sdirk_k = stiff ? 1e8 : 0.0;
        double T = stiff ? 10.0 : 5.0;
        for (int k = 0; k < (stiff ? 2 : 3); ++k) {
            double tol = pow(10.0, -4 - 2 * k);
            SsodeSdirk *sd = ssode_sdirk_new(1, 1, sdirk_test_rhs, sdirk_test_jacobian, NULL);
            ssode_sdirk_set_tolerances(sd, tol, tol);
            double y[3] = {stiff ? 0.0 : 1.0, stiff ? 1.0 : 0.0, 0.0}, yd[3];
            sdirk_test_rhs(NULL, 0.0, y, yd);
            ssode_sdirk_restart(sd, 0.0, y, yd, 0.0);
            int st = 0;
            while (st == 0 && ssode_sdirk_time(sd) < T)
                st = ssode_sdirk_step(sd, T);
            const double *z = ssode_sdirk_state(sd);
            double ex = stiff ? sin(T) : cos(2 * M_PI * T), err = fabs(z[0] - ex);
            double wex = 2 * M_PI * M_PI * T, werr = stiff ? 0.0 : fabs(z[2] - wex) / wex;
            steps[k] = ssode_sdirk_counters(sd)->steps;
            tap_ok(st == 0 && ssode_sdirk_time(sd) == T && err < tol && werr < tol,
                   "SDIRK alone, %s, tol %.0e: %ld steps, x error %.1e, relative error of the "
                   "quadrature w %.1e", stiff ? "stiff (eigenvalue -1e4)" : "oscillator", tol,
                   steps[k], err, werr);
            ssode_sdirk_free(sd);
        }
        if (!stiff) {
            /* an error estimate of local order 4 (ours): steps ~ tol^(-1/4), x 3.16 per two
             * decades; ARKODE's order-2 embedding: tol^(-1/3), x 4.6 */
            double r1 = (double)steps[1] / steps[0], r2 = (double)steps[2] / steps[1];
            tap_ok(r1 > 2.5 && r1 < 4.0 && r2 > 2.5 && r2 < 4.0,
                   "SDIRK alone: steps grow %.2f and %.2f times per two decades of tolerance "
                   "(tol^(-1/4): 3.16)", r1, r2);
        }
    }
}


/* Sparse (KLU) against dense algebra (issue 27): the accelerations at t = 0 are the unique
 * solution of [M Phi_q^T; Phi_q 0] whatever the partition, so they agree to round-off; after
 * 0.5 s at tol 1e-9 the positions agree to the integration error (the two algebras may choose
 * different partitions, hence different error-controlled coordinates). */
static MbsFormulation *make_ssode_algebra(const MbsModel *m, const char *algebra)
{
    MbsSettings s;
    mbs_settings_defaults(&s);
    s.step = 1e-2;
    mbs_settings_set_number_for(&s, "ssode", "rtol", 1e-9, NULL);
    mbs_settings_set_number_for(&s, "ssode", "atol", 1e-9, NULL);
    mbs_settings_set_for(&s, "ssode", "algebra", algebra, NULL);
    MbsError err;
    MbsFormulation *f = mbs_formulation_new("ssode", m, &s, &err);
    if (!f)
        tap_diag("ssode (%s): %s", algebra, err.message);
    return f;
}

static void sparse_matches_dense(const char *name, MbsModel *m, double acc_bound, double pos_bound)
{
    MbsFormulation *d = make_ssode_algebra(m, "dense"), *sp = make_ssode_algebra(m, "sparse");
    if (!d || !sp) {
        tap_ok(0, "%s: ssode dense and sparse start", name);
        mbs_formulation_free(d);
        mbs_formulation_free(sp);
        return;
    }
    int n = d->klass->ncoords(d);
    double *a = calloc((size_t)n, sizeof(double)), *b = calloc((size_t)n, sizeof(double));
    double *qa = calloc((size_t)n, sizeof(double)), *qb = calloc((size_t)n, sizeof(double));
    d->klass->accelerations(d, a);
    sp->klass->accelerations(sp, b);
    double worst = 0.0, scale = 1.0;
    for (int k = 0; k < n; ++k) {
        worst = fmax(worst, fabs(a[k] - b[k]));
        scale = fmax(scale, fabs(a[k]));
    }
    tap_below(worst / scale, acc_bound,
              "%s: accelerations at t = 0, sparse against dense: %.1e relative", name,
              worst / scale);
    MbsError err;
    int ok = 1;
    for (int k = 0; ok && k < 50; ++k)
        ok = mbs_formulation_step(d, &err) == 0 && mbs_formulation_step(sp, &err) == 0;
    d->klass->coordinates(d, qa, NULL);
    sp->klass->coordinates(sp, qb, NULL);
    worst = 0.0;
    for (int k = 0; k < n; ++k)
        worst = fmax(worst, fabs(qa[k] - qb[k]));
    tap_ok(ok && worst < pos_bound,
           "%s: natural coordinates at 0.5 s (tol 1e-9), sparse against dense: %.1e "
           "(%.0f / %.0f repartitions, %.0f sparse refactorizations)",
           name, worst, mbs_formulation_statistic(d, "repartitions", -1),
           mbs_formulation_statistic(sp, "repartitions", -1),
           mbs_formulation_statistic(sp, "sparse_refactorizations", -1));
    free(a);
    free(b);
    free(qa);
    free(qb);
    mbs_formulation_free(d);
    mbs_formulation_free(sp);
}

/* Issue 27: a chain of two parallelograms (1 m links, 6 rad/s) passes its flat position, where
 * Phi_q loses rank whatever the partition, three times in 1.2 s. Before the singular mode
 * the SDIRK at tol 1e-6 cut its step there (the recovery's error amplified by 1/sigma^2 in the
 * accelerations) and ended 4.6e-3 m off in 2 s. Now: every point against matrix-r RK4 at 1 ms
 * within about 10 times the deviation measured, falling with the tolerance as the
 * integrator's own error does (so the crossings add no error of their own). */
static void singular_chain(void)
{
    MbsModel *m = build_parallelogram_chain(2, 6.0);
    int np;
    int *pts = all_points(m, &np);
    MbsSettings s;
    mbs_settings_defaults(&s);
    s.duration = 1.2;
    s.step = 1e-3;
    MbsError err;
    MbsTrajectory ref;
    int ok = mbs_trajectory_record(m, "matrix-r", &s, 10, pts, np, &ref, &err) == 0 && !ref.failed;
    tap_ok(ok, "parallelogram chain: matrix-r RK4 reference at 1 ms");
    const double tols[] = {1e-6, 1e-8}, bounds[] = {1e-3, 1e-5};
    double dev[2] = {0};
    for (int k = 0; ok && k < 2; ++k) {
        MbsSettings o;
        mbs_settings_defaults(&o);
        o.duration = 1.2;
        o.step = 1e-2;
        mbs_settings_set_number_for(&o, "ssode", "rtol", tols[k], NULL);
        mbs_settings_set_number_for(&o, "ssode", "atol", tols[k], NULL);
        MbsTrajectory t;
        int st = mbs_trajectory_record(m, "ssode", &o, 1, pts, np, &t, &err);
        tap_ok(st == 0 && !t.failed, "parallelogram chain, tol %.0e: ssode passes the flat "
               "position three times (%s)", tols[k],
               st ? err.message : t.failed ? t.error.message : "ok");
        dev[k] = st == 0 && !t.failed ? mbs_trajectory_max_deviation(&t, &ref) : INFINITY;
        tap_ok(dev[k] < bounds[k], "parallelogram chain, tol %.0e: within %.2e m of matrix-r "
               "RK4 (bound %.0e), energy drift %.2e J", tols[k], dev[k], bounds[k],
               st == 0 ? t.summary.energy_drift_max : INFINITY);
        if (st == 0)
            mbs_trajectory_free(&t);
    }
    tap_ok(dev[1] < 0.03 * dev[0], "parallelogram chain: the deviation falls with the "
           "tolerance (%.2e -> %.2e for two decades)", dev[0], dev[1]);
    if (ok)
        mbs_trajectory_free(&ref);
    /* the singular mode is what passes it: damped evaluations at the first crossing */
    MbsFormulation *f = make_ssode(m, "sdirk4", 1e-6, 1e-2);
    for (int k = 0; f && k < 30; ++k)
        if (mbs_formulation_step(f, &err) != 0)
            break;
    double sing = f ? mbs_formulation_statistic(f, "singular_steps", -1) : 0;
    double damped = f ? mbs_formulation_statistic(f, "damped_evaluations", -1) : 0;
    tap_ok(f && f->time > 0.29 && sing > 0 && damped > 0, "parallelogram chain, first crossing "
           "(t = 0.238 s): %.0f steps in the singular mode, %.0f damped evaluations", sing, damped);
    mbs_formulation_free(f);
    free(pts);
    mbs_model_free(m);
}

/* Issue 27: a checkpoint holds the SDIRK's continuation (step size, controller and Newton
 * history, Jacobian, dense output, the partition and the singular mode's prediction): a run
 * restored from it, in a fresh object or in the same one, repeats the uninterrupted run bit
 * for bit (before: the integrator restarted there, within the tolerance only). The chain is
 * saved at 0.23 s, in the singular mode of its first crossing, after repartitions. */
static void checkpoint_round_trip(const char *name, MbsModel *m, int save_at, int total)
{
    MbsFormulation *a = make_ssode(m, "sdirk4", 1e-6, 1e-2);
    MbsFormulation *b = make_ssode(m, "sdirk4", 1e-6, 1e-2);
    MbsError err;
    MbsCheckpoint c = {0};
    int ok = a && b && mbs_checkpoint_init(&c, a, &err) == 0;
    for (int k = 0; ok && k < save_at; ++k)
        ok = mbs_formulation_step(a, &err) == 0;
    double sing = a ? mbs_formulation_statistic(a, "singular_steps", -1) : 0;
    if (ok)
        mbs_formulation_save(a, &c);
    for (int k = save_at; ok && k < total; ++k)
        ok = mbs_formulation_step(a, &err) == 0;
    int n = a ? a->klass->ncoords(a) : 0;
    double *qa = calloc(4 * (size_t)n + 1, sizeof(double)), *qda = qa + n, *qb = qda + n,
           *qdb = qb + n;
    if (ok)
        a->klass->coordinates(a, qa, qda);
    int same[2] = {0, 0};
    for (int pass = 0; ok && pass < 2; ++pass) {
        MbsFormulation *g = pass == 0 ? b : a; /* a fresh object, then the same one */
        ok = mbs_formulation_restore(g, &c, &err) == 0;
        for (int k = save_at; ok && k < total; ++k)
            ok = mbs_formulation_step(g, &err) == 0;
        if (ok) {
            g->klass->coordinates(g, qb, qdb);
            same[pass] = !memcmp(qa, qb, (size_t)n * sizeof(double)) &&
                         !memcmp(qda, qdb, (size_t)n * sizeof(double)) && g->time == a->time;
        }
    }
    tap_ok(ok && same[0] && same[1], "%s: a run restored at step %d (in a fresh object and in "
           "the same one) repeats the uninterrupted one bit for bit to step %d (%.0f singular "
           "steps before the checkpoint)%s", name, save_at, total, sing, ok ? "" : err.message);
    free(qa);
    mbs_checkpoint_free(&c);
    mbs_formulation_free(a);
    mbs_formulation_free(b);
}

int main(void)
{
    sdirk_table();
    sdirk_alone();
    error_falls_with_tolerance();
    MbsModel *m = build_four_bar();
    agrees_with("four-bar", m, 1.0, 4e-6, 3e-6); /* measured 3.6e-7, 2.1e-7 */
    mbs_model_free(m);
    m = build_double_pendulum(M_PI / 2, M_PI / 2, 1);
    agrees_with("double pendulum", m, 1.0, 7e-5, 7e-6); /* measured 6.8e-6, 6.3e-7 */
    mbs_model_free(m);
    four_bar_energy_and_partition();
    repartitions();
    outputs_consistent();
    m = build_four_bar();
    sparse_matches_dense("four-bar", m, 3e-13, 1e-9);
    mbs_model_free(m);
    m = build_stiff_pendulum();
    sparse_matches_dense("stiff double pendulum", m, 3e-13, 6e-8);
    mbs_model_free(m);
    m = build_parallelogram_chain(3, 1.0); /* slowly: ssode cannot pass its flat position yet */
    sparse_matches_dense("parallelogram chain of 3 loops", m, 3e-13, 3e-11);
    mbs_model_free(m);
    m = build_slider_crank(0);
    sparse_matches_dense("slider-crank with springs", m, 3e-13, 3e-10);
    mbs_model_free(m);
    singular_chain();
    m = build_parallelogram_chain(2, 6.0);
    checkpoint_round_trip("parallelogram chain", m, 23, 60);
    mbs_model_free(m);
    m = build_stiff_pendulum();
    checkpoint_round_trip("stiff double pendulum", m, 20, 60);
    mbs_model_free(m);
    return tap_done();
}
