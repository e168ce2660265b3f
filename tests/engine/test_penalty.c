/* The `penalty` formulation: agreement with independent references for the double pendulum
 * (closed-form small-angle modes; RK4 on its Lagrange equations written here by hand), energy
 * conservation shrinking with h as the trapezoidal rule predicts, constraint residuals, the
 * redundant 7x15 lattice, the driver energy balance and a clear Newton failure. */
#include <string.h>

#include "mbs_run.h"
#include "mbs_topology.h"
#include "tap.h"
#include "pendulum_reference.h"
#include "test_models.h"

typedef struct {
    double drift, phi, dphi, ddphi, kinetic_max;
    int failed;
    char message[512];
} RunStats;

/* Extremes over the steps (t = 0 excluded), from the run driver's observer. */
static int accumulate(void *data, const MbsRun *run)
{
    RunStats *r = data;
    const MbsFormulation *f = mbs_run_formulation(run);
    const MbsMonitors *mo = &f->monitors;
    if (mbs_run_grid_steps(run) == 0)
        return 0;
    r->drift = fmax(r->drift, fabs(mo->total - f->energy0));
    r->phi = fmax(r->phi, mo->phi_norm);
    r->dphi = fmax(r->dphi, mo->dphi_norm);
    r->ddphi = fmax(r->ddphi, mo->ddphi_norm);
    r->kinetic_max = fmax(r->kinetic_max, mo->kinetic);
    return 0;
}

/* A run through the run driver (which cuts a step where Newton fails). */
static RunStats run(const MbsModel *m, double h, double duration, double alpha)
{
    MbsSettings s;
    mbs_settings_defaults(&s);
    s.step = h;
    if (alpha > 0)
        mbs_settings_set_number_for(&s, "penalty", "alpha", alpha, NULL);
    MbsError err = {0};
    RunStats r = {0};
    MbsFormulation *f = mbs_formulation_new("penalty", m, &s, &err);
    MbsRunObserver observer = {.sample = accumulate, .data = &r};
    MbsRun *driver = f ? mbs_run_new(f, NULL, &observer, &err) : NULL;
    if (!driver) {
        r.failed = 1;
        snprintf(r.message, sizeof r.message, "%s", err.message);
        mbs_formulation_free(f);
        return r;
    }
    /* the nearest whole number of steps */
    if (mbs_run_advance(driver, h * (int)(duration / h + 0.5)) == MBS_RUN_FAILED) {
        r.failed = 1;
        snprintf(r.message, sizeof r.message, "%s", mbs_run_error(driver)->message);
    }
    mbs_run_free(driver);
    mbs_formulation_free(f);
    return r;
}

/* Absolute angles (from the downward vertical) of the two bars after `duration`. */
static void pendulum_angles(double theta1, double theta2, double h, double duration,
                            double out[2])
{
    MbsModel *m = build_double_pendulum(theta1, theta2, 1);
    MbsSettings s;
    mbs_settings_defaults(&s);
    s.step = h;
    MbsError err;
    MbsFormulation *f = mbs_formulation_new("penalty", m, &s, &err);
    int steps = (int)(duration / h + 0.5);
    for (int i = 0; i < steps; ++i)
        mbs_formulation_step(f, &err);
    double z[2];
    f->klass->coordinates(f, z, NULL);
    /* node numbering is leaves to root: the bar attached to ground is the last node */
    int n1 = m->topo->body_node[1], n2 = m->topo->body_node[2];
    out[0] = theta1 + z[n1];
    out[1] = theta2 + z[n1] + z[n2];
    mbs_formulation_free(f);
    mbs_model_free(m);
}


/* Small-angle modes: M phidd + K phi = 0 with M = [4/3, 1/2; 1/2, 1/3], K = g [3/2, 0; 0, 1/2]. */
static void pendulum_small_angle(double a1, double a2, double t, double out[2])
{
    const double g = 9.81;
    double M[4] = {4.0 / 3.0, 0.5, 0.5, 1.0 / 3.0}, K[4] = {1.5 * g, 0, 0, 0.5 * g};
    /* det(K - w^2 M) = 0: quadratic in w^2 */
    double A = M[0] * M[3] - M[1] * M[2];
    double B = -(K[0] * M[3] + K[3] * M[0]);
    double C = K[0] * K[3];
    double disc = sqrt(B * B - 4 * A * C);
    double w2[2] = {(-B - disc) / (2 * A), (-B + disc) / (2 * A)};
    double v[2][2];
    for (int k = 0; k < 2; ++k) { /* (K - w2 M) v = 0, first row */
        v[k][0] = -(K[1] - w2[k] * M[1]);
        v[k][1] = K[0] - w2[k] * M[0];
    }
    /* a = c0 v0 + c1 v1 */
    double det = v[0][0] * v[1][1] - v[1][0] * v[0][1];
    double c0 = (a1 * v[1][1] - a2 * v[1][0]) / det, c1 = (v[0][0] * a2 - v[0][1] * a1) / det;
    for (int i = 0; i < 2; ++i)
        out[i] = c0 * v[0][i] * cos(sqrt(w2[0]) * t) + c1 * v[1][i] * cos(sqrt(w2[1]) * t);
}

int main(void)
{
    /* Double pendulum, small angles: closed-form modal solution. */
    {
        double a1 = 2e-3, a2 = -1e-3, ref[2], got[2];
        pendulum_small_angle(a1, a2, 2.0, ref);
        pendulum_angles(a1, a2, 1e-3, 2.0, got);
        double amp = 3e-3;
        tap_close(got[0], ref[0], 2e-3 * amp, "double pendulum, small angles: phi1(2 s) = modal solution");
        tap_close(got[1], ref[1], 2e-3 * amp, "double pendulum, small angles: phi2(2 s) = modal solution");
    }
    /* Double pendulum released horizontally: RK4 reference at h = 1e-5 on its own equations,
     * and second-order convergence of the trapezoidal rule. */
    {
        double ref[2], g1[2], g4[2];
        pendulum_rk4(M_PI / 2, M_PI / 2, 1.0, 1e-5, ref);
        pendulum_angles(M_PI / 2, M_PI / 2, 1e-3, 1.0, g1);
        pendulum_angles(M_PI / 2, M_PI / 2, 4e-3, 1.0, g4);
        double e1 = fmax(fabs(g1[0] - ref[0]), fabs(g1[1] - ref[1]));
        double e4 = fmax(fabs(g4[0] - ref[0]), fabs(g4[1] - ref[1]));
        tap_below(e1, 2e-3, "double pendulum, large motion: |angle - RK4 reference| at 1 s, h = 1 ms (%.2e rad)", e1);
        tap_ok(e4 / e1 > 8.0, "error ratio h = 4 ms / h = 1 ms is %.1f (second order predicts 16)", e4 / e1);
    }
    /* Spatial four-bar (paper 000), 5 s: energy and constraints. */
    {
        MbsModel *m = build_four_bar();
        RunStats r1 = run(m, 1e-3, 5.0, 0), r10 = run(m, 1e-2, 5.0, 0);
        tap_ok(!r1.failed && !r10.failed, "four-bar runs 5 s at h = 1 and 10 ms %s%s", r1.message, r10.message);
        tap_below(r1.drift, 2e-2, "four-bar, h = 1 ms: energy drift %.3e J (kinetic up to %.2f J)", r1.drift, r1.kinetic_max);
        tap_below(r10.drift, 3.0, "four-bar, h = 10 ms: energy drift %.3e J", r10.drift);
        tap_ok(r10.drift / r1.drift > 30.0, "four-bar: drift ratio h = 10 ms / 1 ms = %.0f (second order: ~100)", r10.drift / r1.drift);
        tap_below(r1.phi, 1e-6, "four-bar: ||Phi|| stays below 1e-6 (alpha = 1e9)");
        tap_below(r1.dphi, 1e-4, "four-bar: ||Phi_dot|| after projection below 1e-4");
        tap_below(r1.ddphi, 0.1, "four-bar: ||Phi_ddot|| after projection below 0.1");
        RunStats longrun = run(m, 1e-3, 100.0, 0);
        tap_ok(!longrun.failed && longrun.drift < 0.05,
               "four-bar, h = 1 ms, 100 s: stays bounded, drift %.3e J %s", longrun.drift, longrun.message);
        RunStats weak = run(m, 1e-3, 5.0, 1e7);
        tap_ok(weak.phi > 50 * r1.phi, "position error scales with 1/alpha: %.2e (1e7) vs %.2e (1e9)", weak.phi, r1.phi);
        mbs_model_free(m);
    }
    /* Lattices: 1x15 energy, 7x15 (redundant constraints) runs 5 s at h = 10 ms. */
    {
        MbsModel *m = build_lattice(1, 15);
        RunStats r = run(m, 1e-2, 5.0, 0);
        tap_ok(!r.failed, "1x15 lattice runs 5 s at h = 10 ms %s", r.message);
        tap_below(r.drift, 0.5, "1x15 lattice, h = 10 ms: energy drift %.3e J of |E| = 1470 J", r.drift);
        tap_below(r.phi, 1e-6, "1x15 lattice: ||Phi|| below 1e-6");
        mbs_model_free(m);
        m = build_lattice(7, 15);
        tap_ok(m->topo->nnodes == 225 && m->topo->nrows > 225 - 15,
               "7x15 lattice: 225 coordinates, %d constraint equations (redundant)", m->topo->nrows);
        r = run(m, 1e-2, 5.0, 0);
        tap_ok(!r.failed, "7x15 lattice runs 5 s at h = 10 ms without failure %s", r.message);
        tap_below(r.phi, 1e-5, "7x15 lattice: ||Phi|| below 1e-5");
        tap_below(r.drift / 7375.0, 1e-3, "7x15 lattice: relative energy drift %.2e", r.drift / 7375.0);
        mbs_model_free(m);
    }
    /* Driven slider-crank with a damped spring: the balance includes driver and damper work. */
    {
        MbsModel *m = build_slider_crank(1);
        RunStats r1 = run(m, 1e-3, 2.0, 0), r2 = run(m, 5e-4, 2.0, 0);
        tap_ok(!r1.failed && !r2.failed, "driven slider-crank runs 2 s %s", r1.message);
        tap_below(r1.drift, 0.2, "driven slider-crank, h = 1 ms: energy balance error %.3e J (kinetic up to %.1f J)", r1.drift, r1.kinetic_max);
        tap_ok(r2.drift < 0.5 * r1.drift, "energy balance error shrinks with h: %.2e (0.5 ms) vs %.2e (1 ms)", r2.drift, r1.drift);
        mbs_model_free(m);
        m = build_slider_crank(0);
        r1 = run(m, 1e-3, 2.0, 0);
        tap_below(r1.drift, 1e-2, "slider-crank with RSDA and TSDA, conservative: drift %.3e J", r1.drift);
        mbs_model_free(m);
    }
    /* Jacobian columns on 2 threads give bit-identical results to 1 thread. */
    {
        MbsModel *m = build_lattice(1, 15);
        double zs[2][45];
        for (int t = 0; t < 2; ++t) {
            MbsSettings s;
            mbs_settings_defaults(&s);
            mbs_settings_set_number_for(&s, "penalty", "threads", t + 1, NULL);
            MbsError err;
            MbsFormulation *f = mbs_formulation_new("penalty", m, &s, &err);
            for (int i = 0; i < 50; ++i)
                mbs_formulation_step(f, &err);
            f->klass->coordinates(f, zs[t], NULL);
            mbs_formulation_free(f);
        }
        tap_ok(memcmp(zs[0], zs[1], sizeof zs[0]) == 0,
               "1x15 lattice: 1 and 2 Jacobian threads give identical trajectories");
        mbs_model_free(m);
    }
    /* Newton failure is a recoverable error with a message, not a crash or NaN. */
    {
        MbsModel *m = build_four_bar();
        MbsSettings s;
        mbs_settings_defaults(&s);
        mbs_settings_set_number_for(&s, "penalty", "newton-iterations", 1, NULL);
        mbs_settings_set_number_for(&s, "penalty", "newton-tolerance", 1e-15, NULL);
        MbsError err = {0};
        MbsFormulation *f = mbs_formulation_new("penalty", m, &s, &err);
        int status = mbs_formulation_step(f, &err);
        tap_ok(status > 0 && strstr(err.message, "did not converge") && strstr(err.message, "t = "),
               "Newton non-convergence returns a recoverable status: \"%s\"", err.message);
        tap_ok(f->time == 0.0 && isfinite(f->monitors.total), "the state is left at the last good step");
        mbs_formulation_free(f);
        s.step = -1;
        f = mbs_formulation_new("penalty", m, &s, &err);
        tap_ok(!f && strstr(err.message, "step"), "a negative step is refused: \"%s\"", err.message);
        mbs_model_free(m);
    }
    return tap_done();
}
