/* matrix-r direct and adjoint sensitivities (issue 10; paper 001 sec 3): on the five-bar of
 * paper 001 sec 4.1 built with the engine's builder (parameters Ls1, Ls2, m_A1 bound to the
 * springs' natural lengths and the first bar's mass), the gradient of psi1..3 by the direct
 * method against central differences of whole simulations of the same discrete scheme, the
 * adjoint against the direct method, the adjoint with checkpointing against the adjoint that
 * stores every state, both across a change of independent coordinates, and the values of
 * paper 001 Table 1. */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "../tap.h"
#include "alloc_counter.h"
#include "mbs_run.h"
#include "mbs_sensitivity.h"
#include "sens_matrix_r.h"
#include "test_models.h"

static int point2 = -1;
static double terminal_weight = 0.0;

/* A homogeneous bar of mass m between p1 and p2, inertia m L^2 / 12 about its centre; the
 * mass is bound to parameter `mass_parameter` when given (the inertia is kept, 001 sec 4.1). */
static int bar(MbsModel *m, const char *name, const double p1[3], const double p2[3],
               double mass, const char *mass_parameter, MbsError *err)
{
    double com[3], I[9];
    for (int i = 0; i < 3; ++i)
        com[i] = 0.5 * (p1[i] + p2[i]);
    mbs_inertia_slender_rod(mass, p1, p2, I);
    int b = mbs_model_add_body(m, name, mass, com, I, err);
    die_on(b, err);
    if (mass_parameter) {
        const char *in[] = {mass_parameter};
        MbsFieldRef ref = {MBS_ELEMENT_BODY, b, offsetof(MbsBody, mass)};
        die_on(mbs_model_bind(m, ref, MBS_DERIVE_VALUE, in, 1, err), err);
    }
    return b;
}

static void spring(MbsModel *m, const char *name, int b1, const double p1[3], int b2,
                   const double p2[3], const char *length_parameter, MbsError *err)
{
    MbsForce f = {.type = MBS_FORCE_TSDA, .body1 = b1, .body2 = b2, .stiffness = 100.0,
                  .natural_length = m->parameters[mbs_model_find_parameter(m, length_parameter)]
                                        .value};
    memcpy(f.point1, p1, sizeof f.point1);
    memcpy(f.point2, p2, sizeof f.point2);
    snprintf(f.name, sizeof f.name, "%s", name);
    int k = mbs_model_add_force(m, &f, err);
    die_on(k, err);
    const char *in[] = {length_parameter};
    MbsFieldRef ref = {MBS_ELEMENT_FORCE, k, offsetof(MbsForce, natural_length)};
    die_on(mbs_model_bind(m, ref, MBS_DERIVE_VALUE, in, 1, err), err);
}

/* Paper 001 sec 4.1 / IFToMM benchmark: A(0,0), B(1,0) fixed, joints 1(-1,-1), 2(0.5,-2),
 * 3(2,-1), bars A1, 3B of 1 kg and 12, 23 of 1.5 kg, springs B-1 and B-2 (k = 100 N/m) at
 * their natural lengths, gravity -y, at rest. */
static MbsModel *build_five_bar(void)
{
    MbsError err;
    MbsModel *m = mbs_model_new("five-bar");
    m->gravity[1] = -9.81;
    double A[3] = {0, 0, 0}, B[3] = {1, 0, 0}, P1[3] = {-1, -1, 0}, P2[3] = {0.5, -2, 0},
           P3[3] = {2, -1, 0};
    die_on(mbs_model_add_parameter(m, "Ls1", sqrt(5.0), &err), &err);
    die_on(mbs_model_add_parameter(m, "Ls2", sqrt(4.25), &err), &err);
    die_on(mbs_model_add_parameter(m, "m_A1", 1.0, &err), &err);
    int g = mbs_model_add_ground(m, "ground", &err);
    int a1 = bar(m, "A1", A, P1, 1.0, "m_A1", &err);
    int b12 = bar(m, "12", P1, P2, 1.5, NULL, &err);
    int b23 = bar(m, "23", P2, P3, 1.5, NULL, &err);
    int b3b = bar(m, "3B", P3, B, 1.0, NULL, &err);
    point2 = mbs_model_add_point(m, b12, "2", P2, &err);
    die_on(point2, &err);
    die_on(mbs_model_add_joint(m, "A", MBS_JOINT_REVOLUTE, g, a1, A, Z_AXIS, &err), &err);
    die_on(mbs_model_add_joint(m, "1", MBS_JOINT_REVOLUTE, a1, b12, P1, Z_AXIS, &err), &err);
    die_on(mbs_model_add_joint(m, "2", MBS_JOINT_REVOLUTE, b12, b23, P2, Z_AXIS, &err), &err);
    die_on(mbs_model_add_joint(m, "3", MBS_JOINT_REVOLUTE, b23, b3b, P3, Z_AXIS, &err), &err);
    die_on(mbs_model_add_joint(m, "B", MBS_JOINT_REVOLUTE, b3b, g, B, Z_AXIS, &err), &err);
    spring(m, "s1", g, B, a1, P1, "Ls1", &err);
    spring(m, "s2", g, B, b12, P2, "Ls2", &err);
    if (mbs_model_compile(m, &err)) {
        fprintf(stderr, "%s\n", err.message);
        exit(2);
    }
    return m;
}

/* psi1 = int |r2 - r20|^2, psi2 = int |v2|^2, psi3 = int |a2|^2 (001 eq 74); r20 is the drawn
 * (= initial) position of point 2. */
static int five_bar_integrand(void *ctx, const MbsModel *m, const MbsKinematics *kin, double t,
                              const double *z, const double *zd, const double *zdd, double *g,
                              double *w)
{
    (void)ctx, (void)t, (void)z, (void)zd;
    double r[3], v[3], a[3];
    mbs_sens_point_motion(m, kin, zdd, point2, r, v, a);
    mbs_v3_sub(r, m->points[point2].pos, r);
    g[0] = mbs_v3_dot(r, r);
    g[1] = mbs_v3_dot(v, v);
    g[2] = mbs_v3_dot(a, a);
    /* a terminal term on psi2 (kinetic-like, |v2|^2 at t_end) checks the w path; Table 1 has
     * none: terminal_weight is 0 there */
    for (int i = 0; i < 3; ++i)
        w[i] = i == 1 ? terminal_weight * mbs_v3_dot(v, v) : 0.0;
    return 0;
}

static const MbsSensObjectives objectives = {.count = 3, .values = five_bar_integrand};

typedef struct {
    const MbsModel *m;
    double psi[3];
    double h;
    long N;
} Quadrature;

static int accumulate(void *data, const MbsRun *run)
{
    Quadrature *q = data;
    MbsFormulation *f = mbs_run_formulation(run);
    long n = mbs_run_grid_steps(run);
    MbsMatrixRView v;
    mbs_matrix_r_view(f, &v);
    double g[3], terminal[3];
    five_bar_integrand(NULL, q->m, v.kin, f->time, v.z, v.zd, v.zdd, g, terminal);
    double w = n == 0 || n == q->N ? 0.5 * q->h : q->h;
    for (int i = 0; i < 3; ++i)
        q->psi[i] += w * g[i] + (n == q->N ? terminal[i] : 0.0);
    return 0;
}

/* psi of one whole simulation, trapezoidal rule on the run's grid (what fd differentiates). */
static void simulate_psi(const MbsModel *m, const MbsSettings *s, double t_end, double psi[3])
{
    MbsError err = {0};
    MbsFormulation *f = mbs_formulation_new("matrix-r", m, s, &err);
    if (!f) {
        fprintf(stderr, "%s\n", err.message);
        exit(2);
    }
    Quadrature q = {.m = m, .h = s->step, .N = mbs_run_step_count(t_end, s->step)};
    MbsRunOptions ro = {.max_halvings = 0};
    MbsRunObserver obs = {.sample = accumulate, .data = &q, .every = 1};
    MbsRun *run = mbs_run_new(f, &ro, &obs, &err);
    if (mbs_run_advance(run, t_end) != MBS_RUN_REACHED) {
        fprintf(stderr, "%s\n", mbs_run_error(run)->message);
        exit(2);
    }
    memcpy(psi, q.psi, sizeof q.psi);
    mbs_run_free(run);
    mbs_formulation_free(f);
}

static void settings_for(MbsSettings *s, double h)
{
    MbsError err = {0};
    mbs_settings_defaults(s);
    s->step = h;
    if (mbs_settings_set_for(s, "matrix-r", "integrator", "trapezoidal", &err)) {
        fprintf(stderr, "%s\n", err.message);
        exit(2);
    }
}

static double rel(double a, double b)
{
    return fabs(a - b) / fmax(fabs(b), 1e-300);
}

/* Allocations from the first observation to the end of the call: none in a step. */
static long observed_allocations;
static void count_allocations(void *data, const MbsSensResult *r)
{
    (void)data, (void)r;
    alloc_counting = 1;
}

/* The direct method's run evaluates its own Newton matrices (as a plain run), so that it takes
 * the same steps as the adjoint's and the plain run, and they agree to round-off; the default
 * (the sensitivities' tangent) is checked on its own below. */
static int newton_matrix = MBS_SENS_NEWTON_OWN;

static int sensitivity(const MbsModel *m, const MbsSettings *s, MbsSensMethod method,
                       double memory, double t_end, MbsSensResult *r)
{
    MbsMatrixRSensOptions o;
    mbs_setting_table_defaults(&mbs_matrix_r_sens_settings, &o);
    o.newton_matrix = newton_matrix;
    if (memory > 0)
        o.memory = memory;
    int params[] = {0, 1, 2};
    MbsError err = {0};
    alloc_count = 0;
    int status = mbs_matrix_r_sensitivity(m, s, params, 3, &objectives, method, &o, t_end,
                                          count_allocations, NULL, r, &err);
    alloc_counting = 0;
    observed_allocations = alloc_count;
    if (status)
        tap_diag("%s", err.message);
    return status;
}

/* Central differences of whole simulations (increment 1e-5 max(1, |rho|)): fd[i * 3 + j]. */
static void fd_gradient(const MbsModel *m, const MbsSettings *s, double t_end, double fd[9])
{
    MbsError err = {0};
    for (int j = 0; j < 3; ++j) {
        double rho = m->parameters[j].value, dl = 1e-5 * fmax(1.0, fabs(rho));
        MbsModel *mp = mbs_model_with_parameter(m, j, rho + dl, &err);
        MbsModel *mm = mbs_model_with_parameter(m, j, rho - dl, &err);
        double pp[3], pm[3];
        simulate_psi(mp, s, t_end, pp);
        simulate_psi(mm, s, t_end, pm);
        for (int i = 0; i < 3; ++i)
            fd[i * 3 + j] = (pp[i] - pm[i]) / (2 * dl);
        mbs_model_free(mp);
        mbs_model_free(mm);
    }
}

/* Largest |a - b| relative to the largest entry of b's row (an entry near zero has only
 * absolute accuracy). */
static double worst_difference(const double *a, const double *b)
{
    double worst = 0.0;
    for (int i = 0; i < 3; ++i) {
        double scale = 0.0;
        for (int c = 0; c < 3; ++c)
            scale = fmax(scale, fabs(b[i * 3 + c]));
        for (int j = 0; j < 3; ++j)
            worst = fmax(worst, fabs(a[i * 3 + j] - b[i * 3 + j]) / scale);
    }
    return worst;
}

/* What the methods refuse before they start (mbs_sensitivity_check), so that a front end can
 * say so without clearing its plots for a run that would not start. */
static void up_front_checks(void)
{
    MbsSettings s;
    MbsError err = {0};
    settings_for(&s, 1e-2);
    int ok = mbs_sensitivity_check("matrix-r", MBS_SENSITIVITY_ADJOINT, &s, &err) == 0;
    mbs_settings_set_for(&s, "matrix-r", "integrator", "rk4", &err);
    MbsError rk4 = {0};
    ok = ok && mbs_sensitivity_check("matrix-r", MBS_SENSITIVITY_DIRECT, &s, &rk4) != 0 &&
         strstr(rk4.message, "trapezoidal");
    tap_ok(ok, "matrix-r's sensitivities: trapezoidal accepted, RK4 refused up front (%s)",
           rk4.message);
    MbsError mdk = {0}, ssode = {0};
    mbs_settings_defaults(&s);
    mbs_settings_set_for(&s, "ali3p", "projection", "mdk", &err);
    tap_ok(mbs_sensitivity_check("ali3p", MBS_SENSITIVITY_DIRECT, &s, &mdk) != 0 &&
               strstr(mdk.message, "mdk"),
           "ali3p direct refuses projection mdk up front (%s)", mdk.message);
    mbs_settings_defaults(&s);
    tap_ok(mbs_sensitivity_check("penalty", MBS_SENSITIVITY_DIRECT, &s, &err) == 0 &&
               mbs_sensitivity_check("ssode", MBS_SENSITIVITY_DIRECT, &s, &ssode) != 0 &&
               mbs_sensitivity_check("ssode", MBS_SENSITIVITY_FD, &s, &err) == 0,
           "penalty direct and ssode fd pass, ssode direct is refused (%s)", ssode.message);
}

/* Issue 28: the 40-loop planar parallelogram chain (1 m links) crosses its flat position at
 * t = 0.26 s, where matrix-r damps its solves (anchored on priors from the run's history);
 * gravity (gz) is the parameter, the first crank's angle at the end the objective. */
static int chain_node = -1;
static int chain_angle_values(void *ctx, const MbsModel *m, const MbsKinematics *kin, double t,
                              const double *z, const double *zd, const double *zdd, double *g,
                              double *w)
{
    (void)ctx, (void)m, (void)kin, (void)t, (void)zd, (void)zdd;
    g[0] = 0.0;
    w[0] = z[chain_node];
    return 0;
}

static double chain_final_angle(const MbsModel *m, const MbsSettings *s, double t_end)
{
    MbsError err = {0};
    MbsFormulation *f = mbs_formulation_new("matrix-r", m, s, &err);
    MbsRunOptions ro = {.max_halvings = 0};
    MbsRun *run = f ? mbs_run_new(f, &ro, NULL, &err) : NULL;
    double angle = NAN;
    if (run && mbs_run_advance(run, t_end) == MBS_RUN_REACHED) {
        MbsMatrixRView v;
        mbs_matrix_r_view(f, &v);
        angle = v.z[chain_node];
    }
    mbs_run_free(run);
    mbs_formulation_free(f);
    return angle;
}

static void singular_crossing(void)
{
    MbsError err = {0};
    MbsModel *m = parallelogram_chain_drawn(40, 6.0, 0);
    const char *in[] = {"gz"};
    MbsFieldRef ref = {MBS_ELEMENT_MODEL, 0, offsetof(MbsModel, gravity) + 2 * sizeof(double)};
    die_on(mbs_model_add_parameter(m, "gz", m->gravity[2], &err), &err);
    die_on(mbs_model_bind(m, ref, MBS_DERIVE_VALUE, in, 1, &err), &err);
    die_on(mbs_model_compile(m, &err), &err);
    for (int k = 0; k < m->topo->nnodes; ++k)
        if (m->topo->nodes[k].joint == 0) /* G0, the first crank's hinge */
            chain_node = k;
    MbsSettings s;
    settings_for(&s, 1e-3);
    const double t_end = 0.4;
    const MbsSensObjectives obj = {.count = 1, .values = chain_angle_values};
    MbsMatrixRSensOptions o;
    mbs_setting_table_defaults(&mbs_matrix_r_sens_settings, &o);
    o.newton_matrix = MBS_SENS_NEWTON_OWN;
    int params[] = {0};
    MbsSensResult r[2];
    int status = 0;
    for (int method = 0; method < 2 && !status; ++method)
        status = mbs_matrix_r_sensitivity(m, &s, params, 1, &obj,
                                          method ? MBS_SENS_ADJOINT : MBS_SENS_DIRECT, &o, t_end,
                                          NULL, NULL, &r[method], &err);
    if (!tap_ok(status == 0, "40-loop chain through its flat position: direct and adjoint run (%s)",
                status ? err.message : "ok")) {
        mbs_model_free(m);
        return;
    }
    /* the whole runs' map carries ~1e-9 of non-smooth noise at the crossing (damped
     * directions, Newton stops): a relative increment of 1e-5 or 1e-6 leaves fd 1e-3 apart;
     * 1e-4 agrees with direct to ~1e-5 (measured through the CLI's fd at 1e-4, 1e-5, 1e-6) */
    double gz = m->parameters[0].value, dl = 1e-4 * fabs(gz);
    MbsModel *mp = mbs_model_with_parameter(m, 0, gz + dl, &err);
    MbsModel *mm = mbs_model_with_parameter(m, 0, gz - dl, &err);
    double fd = (chain_final_angle(mp, &s, t_end) - chain_final_angle(mm, &s, t_end)) / (2 * dl);
    double direct = r[0].gradient[0], adjoint = r[1].gradient[0];
    tap_diag("d(angle)/d(gz) across the crossing: direct %.15g adjoint %.15g fd %.10g", direct,
             adjoint, fd);
    /* measured 4.5e-13; before the checkpoints kept the damped solves' priors 2.6e-9 at 0.5 s
     * and 3.3e-8 at 1 s (the CLI on this chain, tip position) */
    tap_ok(rel(adjoint, direct) < 1e-10,
           "across a singular crossing, adjoint = direct (relative %.3g)", rel(adjoint, direct));
    tap_ok(rel(direct, fd) < 1e-4 && rel(adjoint, fd) < 1e-4,
           "across a singular crossing, direct and adjoint = fd of whole runs (%.3g, %.3g)",
           rel(direct, fd), rel(adjoint, fd));
    mbs_sens_result_free(&r[0]);
    mbs_sens_result_free(&r[1]);
    mbs_model_free(mp);
    mbs_model_free(mm);
    mbs_model_free(m);
}

int main(void)
{
    up_front_checks();
    singular_crossing();
    MbsModel *m = build_five_bar();
    MbsSettings s;
    MbsError err = {0};

    /* 1. direct vs fd of whole simulations, adjoint vs direct, checkpointing: 1 s, h = 5 ms */
    settings_for(&s, 5e-3);
    double t_end = 1.0;
    terminal_weight = 0.5;
    MbsSensResult direct, adjoint, checkpointed;
    int status = sensitivity(m, &s, MBS_SENS_DIRECT, 0, t_end, &direct);
    if (!tap_ok(status == 0 && observed_allocations == 0,
                "direct runs, no allocation in its steps (%ld)", observed_allocations))
        return tap_done();
    status = sensitivity(m, &s, MBS_SENS_ADJOINT, 0, t_end, &adjoint);
    if (!tap_ok(status == 0 && adjoint.checkpoint_interval == 1 && observed_allocations == 0,
                "adjoint runs, storing every state (%zu bytes), no allocation in its backward "
                "steps (%ld)", adjoint.stored_bytes, observed_allocations))
        return tap_done();
    /* a bound of a quarter of the full trajectory forces checkpoints and recomputation */
    double small = 0.25 * (double)adjoint.full_bytes / (1024.0 * 1024.0);
    status = sensitivity(m, &s, MBS_SENS_ADJOINT, small, t_end, &checkpointed);
    if (!tap_ok(status == 0 && checkpointed.checkpoint_interval > 1 &&
           checkpointed.stored_bytes < adjoint.full_bytes / 3,
       "adjoint with checkpoints every %ld steps stores %zu of %zu bytes",
       checkpointed.checkpoint_interval, checkpointed.stored_bytes, checkpointed.full_bytes))
        return tap_done();

    double worst_psi = 0, psi0[3], fd[9];
    simulate_psi(m, &s, t_end, psi0);
    fd_gradient(m, &s, t_end, fd);
    for (int i = 0; i < 9; ++i)
        tap_diag("psi%d / %s: direct %.10g adjoint %.10g fd %.10g", i / 3 + 1,
                 m->parameters[i % 3].name, direct.gradient[i], adjoint.gradient[i], fd[i]);
    double worst_fd = worst_difference(direct.gradient, fd);
    double worst_adj = worst_difference(adjoint.gradient, direct.gradient);
    double worst_ck = worst_difference(checkpointed.gradient, adjoint.gradient);
    for (int i = 0; i < 3; ++i)
        worst_psi = fmax(worst_psi, fmax(rel(direct.psi[i], psi0[i]), rel(adjoint.psi[i], psi0[i])));
    tap_ok(worst_psi == 0.0, "psi of the sensitivity runs is the plain run's (worst rel %.3g)",
       worst_psi);
    /* fd of whole simulations: increments 1e-5 give truncation ~1e-10 and round-off ~1e-9 of
     * psi over 1e-5; the Newton tolerance of each run (1e-10) leaves ~1e-6 relative noise */
    tap_ok(worst_fd < 1e-5, "direct = central differences of whole simulations (worst %.3g of the "
       "row's largest entry)", worst_fd);
    tap_ok(worst_adj < 1e-9, "adjoint = direct to round-off (worst %.3g)", worst_adj);
    tap_ok(worst_ck < 1e-13, "checkpointed adjoint = stored adjoint (worst %.3g)", worst_ck);
    /* The default: the run's steps start Newton with the sensitivities' exact tangent at their
     * starting point, not one at the predictor; each step's solution then moves within the
     * Newton tolerance (1e-10 on the correction), so psi and the gradient agree with the plain
     * run and the adjoint to ~1e-9 (bound 1e-7), not to round-off. */
    newton_matrix = MBS_SENS_NEWTON_SENSITIVITIES;
    MbsSensResult fast;
    status = sensitivity(m, &s, MBS_SENS_DIRECT, 0, t_end, &fast);
    if (tap_ok(status == 0 && observed_allocations == 0,
               "direct with the sensitivities' tangent as the run's Newton matrix (the default) "
               "runs, no allocation (%ld)", observed_allocations)) {
        double worst_fast = worst_difference(fast.gradient, adjoint.gradient), psi_fast = 0;
        for (int i = 0; i < 3; ++i)
            psi_fast = fmax(psi_fast, rel(fast.psi[i], psi0[i]));
        tap_ok(worst_fast < 1e-7 && psi_fast < 1e-7, "it agrees with the adjoint (worst %.3g) "
               "and the plain run's psi (worst rel %.3g) within the Newton tolerance's effect",
               worst_fast, psi_fast);
        mbs_sens_result_free(&fast);
    }
    newton_matrix = MBS_SENS_NEWTON_OWN;
    mbs_sens_result_free(&direct);
    mbs_sens_result_free(&adjoint);
    mbs_sens_result_free(&checkpointed);

    /* 2. matrix-r choosing its partition again at every step (rcond 1): the sensitivities
     * cross every change of independent coordinates (some steps do change them) */
    MbsSettings every = s;
    mbs_settings_set_number_for(&every, "matrix-r", "rcond", 1.0, &err);
    /* start from user degrees of freedom (joints A and 1) that the automatic choice made at
     * the first repartition replaces */
    MbsDofList *dofs = mbs_settings_value_for(&every, "matrix-r", "dof");
    dofs->count = 2;
    dofs->items[0] = (MbsDofChoice){.joint = 0, .point = -1};
    dofs->items[1] = (MbsDofChoice){.joint = 1, .point = -1};
    MbsSensResult rd, ra;
    double t_short = 0.5;
    status = sensitivity(m, &every, MBS_SENS_DIRECT, 0, t_short, &rd);
    int status2 = status ? status : sensitivity(m, &every, MBS_SENS_ADJOINT, 0, t_short, &ra);
    if (tap_ok(status == 0 && status2 == 0 && rd.partition_changes > 0 &&
                   ra.partition_changes == rd.partition_changes,
               "with rcond 1 the sensitivities cross %ld changes of independent coordinates",
               rd.partition_changes)) {
        fd_gradient(m, &every, t_short, fd);
        double w_fd = worst_difference(rd.gradient, fd);
        double w_adj = worst_difference(ra.gradient, rd.gradient);
        tap_ok(w_fd < 1e-5, "across the changes, direct = fd of whole simulations (worst %.3g)",
               w_fd);
        tap_ok(w_adj < 1e-9, "across the changes, adjoint = direct (worst %.3g)", w_adj);
        mbs_sens_result_free(&rd);
        mbs_sens_result_free(&ra);
    }

    /* 3. paper 001 Table 1, direct column, for the parameters this builder binds (the five of
     * them through models/five-bar.json: tests/cli). Paper 001 sec 4 integrates dynamics and
     * sensitivities by the trapezoidal rule with "the maximum step within the benchmark's
     * accuracy": h = 1 ms reproduces its direct and adjoint columns (the h -> 0 limit is its
     * reference column: psi2/m_A1 is 0.97016 at 1 ms, 0.97013 at 0.5 ms, reference 0.97012).
     * Tolerance: one unit of the last printed digit (the paper's own direct and adjoint
     * columns differ by that much). */
    static const double table1[3][3] = {{-4.2288, 3.2116, 0.31866},
                                        {-15.452, 50.309, 0.97017},
                                        {221.64, 2436.6, -32.497}};
    static const double unit[3][3] = {{1e-4, 1e-4, 1e-5}, {1e-3, 1e-3, 1e-5}, {1e-2, 1e-1, 1e-3}};
    settings_for(&s, 1e-3);
    terminal_weight = 0.0;
    for (int method = 0; method < 2; ++method) {
        MbsSensResult r;
        if (sensitivity(m, &s, method ? MBS_SENS_ADJOINT : MBS_SENS_DIRECT, 0, 5.0, &r)) {
            tap_ok(0, "Table 1 run");
            continue;
        }
        int matched = 1;
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j) {
                double got = r.gradient[i * 3 + j];
                int good = fabs(got - table1[i][j]) <= unit[i][j] * (1 + 1e-9);
                matched &= good;
                tap_diag("%s psi%d / %s: %.8g, Table 1 %.5g%s", method ? "adjoint" : "direct",
                         i + 1, m->parameters[j].name, got, table1[i][j], good ? "" : "  <--");
            }
        tap_ok(matched, "paper 001 Table 1 by the %s method, h = 1 ms, 5 s (9 values)",
               method ? "adjoint" : "direct");
        mbs_sens_result_free(&r);
    }
    mbs_model_free(m);
    return tap_done();
}
