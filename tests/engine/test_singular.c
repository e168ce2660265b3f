/* Singular positions (issue 13). An isosceles slider-crank passes its dead centres and the
 * change point where the slider reaches the crank pivot (4 times in 1 s); a parallelogram
 * four-bar (a four-bar through a change point) and a chain of two pass their flat position,
 * where Phi_z loses rank whatever the partition, about every 0.4 s; a planar 40-loop chain has
 * no redundant rows and moves like the spatial one. Every formulation runs 1.2 s through
 * the run driver at steps from 10 ms to 0.5 ms; the crank angle is compared with the exact
 * 1-DOF equation of the parallelogram branch (all cranks turn together, the couplers translate),
 * integrated with RK4 at 10 us.
 * Before the damped recovery of matrix-r (form_matrix_r.c, "dependent coordinates near singular
 * positions", setting damping = 0 gives the old solves) its RK4 error grew as the step shrank:
 * 6.7e-6 rad at 1 ms, 6.4e-3 rad and an energy jump of 1.18 J in one step at 0.5 ms; its
 * trapezoidal rule jumped 0.012 J at 1 ms (error 6.2e-4 rad, 130x its h^2 share). */
#include <string.h>

#include "mbs_assembly.h"
#include "mbs_constraints.h"
#include "mbs_run.h"
#include "mbs_topology.h"
#include "tap.h"
#include "test_models.h"

static int LOOPS = 2;
static const double OMEGA = 6.0, DURATION = 1.2;

/* theta'' = k sin(theta) / I: cranks (LOOPS + 1) slender 1 kg, 1 m rods about their ends,
 * couplers (LOOPS) 1 kg translating with the crank tips. */
static double branch_acceleration(double th)
{
    double inertia = (LOOPS + 1) / 3.0 + LOOPS, k = 9.81 * ((LOOPS + 1) / 2.0 + LOOPS);
    return k * sin(th) / inertia;
}

static double reference_angle(double T)
{
    double th = 0.0, w = OMEGA, h = 1e-5;
    long n = lround(T / h);
    for (long i = 0; i < n; ++i) {
        double a1 = branch_acceleration(th);
        double a2 = branch_acceleration(th + 0.5 * h * w);
        double a3 = branch_acceleration(th + 0.5 * h * w + 0.25 * h * h * a1);
        double a4 = branch_acceleration(th + h * w + 0.5 * h * h * a2);
        th += h * w + h * h / 6.0 * (a1 + a2 + a3);
        w += h / 6.0 * (a1 + 2.0 * a2 + 2.0 * a3 + a4);
    }
    return th;
}

/* Angle of crank0 (body 1) from the upward vertical, about X. */
static double crank_angle(const MbsFormulation *f)
{
    double R[9], p[3];
    mbs_formulation_body_pose(f, 1, R, p);
    return atan2(-R[5], R[8]);
}

typedef struct {
    double energy_previous, jump_max;
    int started;
} Watch;

static int on_sample(void *data, const MbsRun *run)
{
    Watch *w = data;
    double e = mbs_run_formulation(run)->monitors.total;
    if (w->started)
        w->jump_max = fmax(w->jump_max, fabs(e - w->energy_previous));
    w->started = 1;
    w->energy_previous = e;
    return 0;
}

typedef struct {
    const char *label, *formulation;
    int integrator, sparse; /* matrix-r's choices */
} Method;

typedef struct {
    int finished;
    double error, jump, drift;
    char message[600];
} Outcome;

static Outcome run_one(const Method *me, const MbsModel *m, double h, double reference)
{
    Outcome out = {0};
    MbsSettings s;
    mbs_settings_defaults(&s);
    s.step = h;
    s.duration = DURATION;
    if (!strcmp(me->formulation, "matrix-r")) {
        mbs_settings_set_number_for(&s, me->formulation, "integrator", me->integrator, NULL);
        mbs_settings_set_number_for(&s, me->formulation, "algebra", me->sparse, NULL);
    }
    MbsError err = {0};
    MbsFormulation *f = mbs_formulation_new(me->formulation, m, &s, &err);
    if (!f) {
        snprintf(out.message, sizeof out.message, "%s", err.message);
        return out;
    }
    Watch w = {0};
    MbsRunObserver observer = {.sample = on_sample, .data = &w, .every = 1};
    MbsRun *run = mbs_run_new(f, NULL, &observer, &err);
    out.finished = run && mbs_run_advance(run, DURATION) == MBS_RUN_REACHED &&
                   fabs(f->time - DURATION) < 1e-9;
    if (run && !out.finished)
        snprintf(out.message, sizeof out.message, "%s", mbs_run_error(run)->message);
    out.error = fabs(remainder(crank_angle(f) - reference, 2.0 * M_PI));
    out.jump = w.jump_max;
    out.drift = run ? mbs_run_summary(run)->energy_drift_max : INFINITY;
    mbs_run_free(run);
    mbs_formulation_free(f);
    return out;
}

static void run_chain(void)
{
    tap_diag("--- %d parallelogram%s", LOOPS, LOOPS > 1 ? "s" : "");
    MbsModel *m = build_parallelogram_chain(LOOPS, OMEGA);
    const double steps[] = {1e-2, 5e-3, 2e-3, 1e-3, 5e-4};
    enum { NSTEPS = sizeof steps / sizeof steps[0] };
    const double reference = reference_angle(DURATION);
    /* the 1-DOF reference crosses the flat position (|theta| = pi/2 mod pi) three times */
    tap_ok(fabs(reference) > 2.5 * M_PI, "the reference turns %.2f rad in %.1f s", reference,
           DURATION);
    const Method methods[] = {
        {"matrix-r RK4 dense", "matrix-r", 0, 0},
        {"matrix-r RK4 sparse", "matrix-r", 0, 1},
        {"matrix-r trapezoidal dense", "matrix-r", 1, 0},
        {"matrix-r trapezoidal sparse", "matrix-r", 1, 1},
        {"ali3p", "ali3p", 0, 0},
        {"penalty", "penalty", 0, 0},
    };
    double rk4_dense_error[NSTEPS] = {0};
    for (size_t k = 0; k < sizeof methods / sizeof methods[0]; ++k) {
        const Method *me = &methods[k];
        Outcome o[NSTEPS];
        int all = 1;
        for (int i = 0; i < NSTEPS; ++i) {
            o[i] = run_one(me, m, steps[i], reference);
            all &= o[i].finished;
            tap_diag("%s h = %g s: error %.3g rad, largest energy change in a step %.3g J, "
                     "drift %.3g J %s", me->label, steps[i], o[i].error, o[i].jump, o[i].drift,
                     o[i].message);
        }
        tap_ok(all, "%d loop(s), %s finishes at every step from 10 ms to 0.5 ms", LOOPS,
               me->label);
        if (!strcmp(me->formulation, "matrix-r") && me->integrator == 0) {
            /* RK4: the error no longer grows as h shrinks; it stays below 1e-6 rad (before:
             * 6.4e-3 rad at 0.5 ms); its floor (~1e-7 rad) is set by the damped directions'
             * priors and the Newton tolerance, not by the order (h^4 would reach 1e-11) */
            double worst = 0.0, jump = 0.0;
            for (int i = 0; i < NSTEPS; ++i) {
                worst = fmax(worst, o[i].error);
                jump = fmax(jump, o[i].jump);
                if (!me->sparse)
                    rk4_dense_error[i] = o[i].error;
            }
            tap_ok(all && worst < 1e-6, "%s: error below 1e-6 rad at every step (worst %.3g)",
                   me->label, worst);
            tap_ok(all && jump < 2e-5, "%s: no energy jump at the crossings (largest change in "
                   "one step %.3g J)", me->label, jump);
            if (me->sparse) {
                double gap = 0.0;
                for (int i = 0; i < NSTEPS; ++i)
                    gap = fmax(gap, fabs(o[i].error - rk4_dense_error[i]));
                tap_ok(gap < 1e-5, "RK4 dense and sparse agree within 1e-5 rad (%.3g)", gap);
            }
        } else if (strcmp(me->formulation, "penalty")) {
            /* second-order integrators: the error falls as h^2 over the whole range */
            int order = all;
            for (int i = 0; i + 1 < NSTEPS; ++i) {
                double ratio = o[i].error / o[i + 1].error, expected = pow(steps[i] / steps[i + 1], 2);
                order &= ratio > 0.7 * expected && ratio < 1.5 * expected;
            }
            tap_ok(order, "%s: error falls as h^2 (%.3g at 10 ms, %.3g at 1 ms, %.3g at 0.5 ms)",
                   me->label, o[0].error, o[3].error, o[4].error);
            double jump = 0.0;
            for (int i = 1; i < NSTEPS; ++i)
                jump = fmax(jump, o[i].jump / (steps[i] * steps[i]));
            tap_ok(all && jump < 200.0, "%s: the largest energy change in one step stays "
                   "within the integrator's O(h^2) (%.3g h^2 J/s^2)", me->label, jump);
        } else {
            tap_ok(all && o[NSTEPS - 1].error < o[0].error,
                   "%s: the error at 0.5 ms (%.3g) is below the one at 10 ms (%.3g)", me->label,
                   o[NSTEPS - 1].error, o[0].error);
        }
    }
    mbs_model_free(m);
}

/* Planar mode (model planar about X): the 40-loop chain's cut joints keep their in-plane
 * equations only: 80 rows of rank 80 instead of 200 of rank 80, and the same motion. */
static void planar_chain(void)
{
    MbsModel *spatial = build_parallelogram_chain_planar(40, OMEGA, -1);
    MbsModel *planar = build_parallelogram_chain_planar(40, OMEGA, 0);
    MbsSettings s;
    mbs_settings_defaults(&s);
    MbsError err = {0};
    int n = planar->topo->nnodes;
    double *z = calloc((size_t)n, sizeof *z), *zd = calloc((size_t)n, sizeof *zd);
    int rank_planar = mbs_assemble(planar, &s, 0.0, z, zd, NULL, &err) == 0
                          ? mbs_constraints_rank(planar, 0.0, z) : -1;
    int rank_spatial = mbs_assemble(spatial, &s, 0.0, z, zd, NULL, &err) == 0
                           ? mbs_constraints_rank(spatial, 0.0, z) : -1;
    tap_ok(planar->topo->nrows == 80 && rank_planar == 80,
           "planar 40-loop chain: %d equations of rank %d (no redundant rows)",
           planar->topo->nrows, rank_planar);
    tap_ok(spatial->topo->nrows == 200 && rank_spatial == 80,
           "the same chain as a spatial model: %d equations of rank %d", spatial->topo->nrows,
           rank_spatial);
    /* the same motion through the flat position, every formulation */
    static const char *const formulations[] = {"penalty", "matrix-r", "ali3p"};
    for (int k = 0; k < 3; ++k) {
        double angle[2] = {0.0, 0.0};
        int ok = 1;
        for (int p = 0; p < 2; ++p) {
            mbs_settings_defaults(&s);
            s.step = 2e-3;
            MbsFormulation *f = mbs_formulation_new(formulations[k], p ? planar : spatial, &s, &err);
            MbsRun *run = f ? mbs_run_new(f, NULL, NULL, &err) : NULL;
            ok &= run && mbs_run_advance(run, 0.5) == MBS_RUN_REACHED;
            if (f)
                angle[p] = crank_angle(f);
            mbs_run_free(run);
            mbs_formulation_free(f);
        }
        tap_ok(ok && fabs(angle[0] - angle[1]) < 1e-6,
               "%s: planar and spatial chains end 0.5 s later at the same crank angle (%.3g rad "
               "apart)", formulations[k], fabs(angle[0] - angle[1]));
    }
    free(z);
    free(zd);
    mbs_model_free(spatial);
    mbs_model_free(planar);
}

/* An isosceles slider-crank (crank = rod = 0.5 m, 1 kg slender bars, a 1 kg slider on Y through
 * the crank pivot): when the crank is vertical the slider reaches the pivot, a change point where
 * Phi_z loses rank (the slider could stay while the crank turns). On the slider-crank branch
 * B = (2 L cos th, 0), and with th the crank angle from +Y towards +Z
 *   I(th) = 1/12 + 1/48 + (9/16 sin^2 + 1/16 cos^2) + sin^2,   V = g (L/2 + L/2) sin th,
 *   th'' = -(V' + I'(th) th'^2 / 2) / I(th). */
static double slider_crank_inertia(double th, double *slope)
{
    double s = sin(th), c = cos(th);
    *slope = 2.0 * s * c * (9.0 / 16.0 - 1.0 / 16.0 + 1.0);
    return 1.0 / 12.0 + 1.0 / 48.0 + 9.0 / 16.0 * s * s + 1.0 / 16.0 * c * c + s * s;
}

static double slider_crank_acceleration(double th, double w)
{
    double slope, inertia = slider_crank_inertia(th, &slope);
    return -(9.81 * 0.5 * cos(th) + 0.5 * slope * w * w) / inertia;
}

static double slider_crank_reference(double th, double w, double T)
{
    const double h = 1e-5;
    for (long i = 0, n = lround(T / h); i < n; ++i) {
        double k1 = slider_crank_acceleration(th, w);
        double k2 = slider_crank_acceleration(th + 0.5 * h * w, w + 0.5 * h * k1);
        double k3 = slider_crank_acceleration(th + 0.5 * h * (w + 0.5 * h * k1), w + 0.5 * h * k2);
        double k4 = slider_crank_acceleration(th + h * (w + 0.5 * h * k2), w + h * k3);
        th += h * w + h * h / 6.0 * (k1 + k2 + k3);
        w += h / 6.0 * (k1 + 2.0 * k2 + 2.0 * k3 + k4);
    }
    return th;
}

static MbsModel *build_isosceles_slider_crank(double th0, double w0)
{
    MbsError err;
    MbsModel *m = mbs_model_new("isosceles-slider-crank");
    m->gravity[2] = -9.81;
    double O[3] = {0, 0, 0}, A[3] = {0, 0.5 * cos(th0), 0.5 * sin(th0)},
           B[3] = {0, cos(th0), 0};
    int g = mbs_model_add_ground(m, "ground", &err);
    int crank = add_bar(m, "crank", O, A, 2.0, &err);
    int rod = add_bar(m, "rod", A, B, 2.0, &err);
    double none[9] = {0};
    int slider = mbs_model_add_body(m, "slider", 1.0, B, none, &err);
    die_on(slider, &err);
    int jo = mbs_model_add_joint(m, "O", MBS_JOINT_REVOLUTE, g, crank, O, X_AXIS, &err);
    die_on(jo, &err);
    die_on(mbs_model_add_joint(m, "A", MBS_JOINT_REVOLUTE, crank, rod, A, X_AXIS, &err), &err);
    die_on(mbs_model_add_joint(m, "B", MBS_JOINT_REVOLUTE, rod, slider, B, X_AXIS, &err), &err);
    die_on(mbs_model_add_joint(m, "S", MBS_JOINT_PRISMATIC, g, slider, B, Y_AXIS, &err), &err);
    die_on(mbs_model_set_initial(m, jo, 0, 1, w0, &err), &err);
    if (mbs_model_compile(m, &err)) {
        fprintf(stderr, "%s\n", err.message);
        exit(2);
    }
    return m;
}

static void slider_crank_dead_centre(void)
{
    const double th0 = M_PI / 3.0, w0 = 8.0, T = 1.0;
    const double reference = slider_crank_reference(th0, w0, T);
    tap_diag("--- isosceles slider-crank, reference crank angle %.6f rad after %g s", reference, T);
    MbsModel *m = build_isosceles_slider_crank(th0, w0);
    const double steps[] = {1e-2, 5e-3, 2e-3, 1e-3, 5e-4};
    static const char *const formulations[] = {"matrix-r", "matrix-r", "ali3p", "penalty"};
    static const char *const labels[] = {"matrix-r RK4", "matrix-r trapezoidal", "ali3p",
                                         "penalty"};
    for (int k = 0; k < 4; ++k) {
        double error[5], jump[5];
        int all = 1;
        for (int i = 0; i < 5; ++i) {
            MbsSettings s;
            mbs_settings_defaults(&s);
            s.step = steps[i];
            if (k < 2)
                mbs_settings_set_number_for(&s, "matrix-r", "integrator", k, NULL);
            MbsError err = {0};
            MbsFormulation *f = mbs_formulation_new(formulations[k], m, &s, &err);
            Watch w = {0};
            MbsRunObserver observer = {.sample = on_sample, .data = &w, .every = 1};
            MbsRun *run = f ? mbs_run_new(f, NULL, &observer, &err) : NULL;
            int ok = run && mbs_run_advance(run, T) == MBS_RUN_REACHED;
            double R[9] = {0}, p[3];
            if (f)
                mbs_formulation_body_pose(f, 1, R, p);
            double angle = th0 + atan2(R[7], R[4]); /* the crank is drawn at th0 */
            error[i] = ok ? fabs(remainder(angle - reference, 2 * M_PI)) : INFINITY;
            jump[i] = w.jump_max;
            all &= ok;
            tap_diag("%s h = %g: %s error %.3g rad, largest energy change in a step %.3g J %s",
                     labels[k], steps[i], ok ? "" : "FAILED", error[i], jump[i],
                     run && !ok ? mbs_run_error(run)->message : err.message);
            mbs_run_free(run);
            mbs_formulation_free(f);
        }
        tap_ok(all, "slider-crank, %s: finishes through the dead centres at every step", labels[k]);
        /* 2 ms -> 0.5 ms: 4^4 = 256 for RK4 (measured 800), 4^2 = 16 for the others */
        double ratio = error[2] / error[4], order = k == 0 ? 256.0 : 16.0;
        tap_ok(all && ratio > 0.6 * order && (k == 0 || ratio < 1.6 * order),
               "slider-crank, %s: the error falls at the integrator's order (%.3g at 2 ms, %.3g "
               "at 0.5 ms: %.3g times, order %g)", labels[k], error[2], error[4], ratio, order);
        /* the largest energy change in one step is the integrator's local error, at least
         * O(h^2) (measured O(h^3) and O(h^5)): no jump at the dead centres */
        tap_ok(all && jump[3] / jump[4] > 4.0,
               "slider-crank, %s: the largest energy change in a step falls with h (%.3g J at "
               "1 ms, %.3g J at 0.5 ms)", labels[k], jump[3], jump[4]);
    }
    mbs_model_free(m);
}

int main(void)
{
    slider_crank_dead_centre();
    for (LOOPS = 1; LOOPS <= 2; ++LOOPS)
        run_chain();
    planar_chain();
    return tap_done();
}
