/* Objectives in model files and their evaluation (engine/mbs_objective.h): the loader, the same
 * values from relative and natural coordinates, the partial derivatives, clear errors. */
#include <math.h>
#include <string.h>

#include "esl-model-file.h"
#include "mbs_formulation.h"
#include "mbs_objective.h"
#include "mbs_run.h"
#include "tap.h"

#define MODELS ESLABON_SOURCE_DIR "/models/"

static const char *const pendulum =
    "{\"format\": \"eslabon-model\", \"version\": 1, \"parameters\": {\"L\": 1},"
    "\"bodies\": [{\"name\": \"ground\", \"ground\": true, \"points\": {\"O\": [0, 0, 0]}},"
    " {\"name\": \"bar\", \"mass\": 1, \"inertia\": {\"slender_rod\": [\"O\", \"E\"]},"
    "  \"points\": {\"O\": [0, 0, 0], \"E\": [0, \"L\", 0]}}],"
    "\"joints\": [{\"name\": \"O\", \"type\": \"revolute\", \"bodies\": [\"ground\", \"bar\"],"
    "  \"point\": \"O\", \"axis\": \"x\"}],"
    "\"initial\": [{\"joint\": \"O\", \"velocity\": 2}],"
    "\"objectives\": [%s]}";

static MbsModel *load_with(const char *objectives, GError **error)
{
    char *text = g_strdup_printf(pendulum, objectives);
    MbsModel *m = esl_model_load_string(text, "pendulum.json", NULL, 0, error);
    g_free(text);
    return m;
}

static void expect_error(const char *objectives, const char *fragment)
{
    GError *error = NULL;
    MbsModel *m = load_with(objectives, &error);
    tap_ok(!m && error && strstr(error->message, fragment), "refused with '%s': %s", fragment,
           error ? error->message : "(loaded)");
    mbs_model_free(m);
    g_clear_error(&error);
}

/* g of every objective of m for the state of f. */
static void values_of(const MbsModel *m, MbsFormulation *f, MbsObjectiveEval *e, double *g)
{
    int n = f->klass->ncoords(f);
    double q[256], qd[256], qdd[256];
    f->klass->coordinates(f, q, qd);
    mbs_formulation_accelerations(f, qdd);
    mbs_objective_eval_values(e, q, qd, qdd, g, NULL);
    (void)m, (void)n;
}

/* mbs_objective_eval_directional against central differences of the values, for every
 * quantity of the relative description, on a spatial chain (revolute, universal, spherical) at
 * an arbitrary, not even consistent, state and direction: the objectives' derivatives do not
 * involve the constraints. Central differences with h = 1e-5 err by ~h^2 (1e-10 relative);
 * the bound 1e-7 still catches a missing term (each is O(1) here). */
static void directional_derivatives(void)
{
    char *text = NULL;
    GError *error = NULL;
    if (!g_file_get_contents(MODELS "four-bar-spatial.json", &text, NULL, &error)) {
        tap_ok(0, "four-bar-spatial.json: %s", error->message);
        return;
    }
    char *cut = strstr(text, "\"objectives\"");
    tap_ok(cut != NULL, "four-bar-spatial declares objectives (replaced here)");
    if (!cut)
        return;
    *cut = '\0';
    char *model = g_strconcat(
        text, "\"objectives\": ["
        "{\"name\": \"points\", \"integrand\": ["
        " {\"quantity\": \"position\", \"body\": \"coupler\", \"point\": \"C\"},"
        " {\"quantity\": \"displacement\", \"body\": \"coupler\", \"point\": \"B\", \"weight\": 2},"
        " {\"quantity\": \"velocity\", \"body\": \"coupler\", \"point\": \"C\", \"measure\": \"y\"}]},"
        "{\"name\": \"motion\", \"integrand\": ["
        " {\"quantity\": \"acceleration\", \"body\": \"coupler\", \"point\": \"C\"},"
        " {\"quantity\": \"angular_velocity\", \"body\": \"coupler\"}],"
        " \"final\": [{\"quantity\": \"velocity\", \"body\": \"follower\", \"point\": \"C\"},"
        " {\"quantity\": \"acceleration\", \"body\": \"crank\", \"point\": \"B\", \"measure\": \"z\"}]},"
        "{\"name\": \"joints\", \"integrand\": ["
        " {\"quantity\": \"joint_coordinate\", \"joint\": \"A\"},"
        " {\"quantity\": \"joint_rate\", \"joint\": \"D\", \"measure\": \"value\"}],"
        " \"final\": [{\"quantity\": \"angular_velocity\", \"body\": \"follower\", \"measure\": \"x\"}]},"
        "{\"name\": \"z\", \"integrand\": ["
        " {\"quantity\": \"acceleration\", \"body\": \"coupler\", \"point\": \"C\", \"measure\": \"z\"}]},"
        "{\"name\": \"squares\", \"integrand\": ["
        " {\"quantity\": \"acceleration\", \"body\": \"coupler\", \"point\": \"C\","
        "  \"measure\": \"squared_z\"}],"
        " \"final\": [{\"quantity\": \"angular_velocity\", \"body\": \"follower\","
        "  \"measure\": \"squared_x\", \"weight\": 2}]}]}",
        NULL);
    g_free(text);
    MbsModel *m = esl_model_load_string(model, "four-bar-spatial+objectives", NULL, 0, &error);
    g_free(model);
    tap_ok(m != NULL, "the objectives of every quantity load %s", error ? error->message : "");
    if (!m) {
        g_clear_error(&error);
        return;
    }
    MbsError err = {0};
    MbsObjectiveEval *e = mbs_objective_eval_new(m, MBS_COORDINATES_RELATIVE, &err);
    int n = e ? mbs_objective_eval_ncoords(e) : 0, no = m->nobjectives;
    MbsKinematics k;
    MbsConstraintsDerivatives cw;
    int ok = e && n > 0 && n <= 16 && !mbs_kinematics_init(&k, m) &&
             !mbs_constraints_derivatives_init(&cw, m);
    tap_ok(ok, "evaluator, kinematics and derivative workspace (%d coordinates) %s", n,
           err.message);
    if (!ok)
        return;
    double z[16], zd[16], zdd[16], dz[16], dzd[16], dzdd[16], x[3][16], acc[96], A[96];
    for (int i = 0; i < n; ++i) {
        z[i] = 0.3 + 0.4 * sin(1.7 * i + 0.2);
        zd[i] = 1.1 * cos(0.9 * i + 0.4);
        zdd[i] = -0.8 + 0.5 * i;
        dz[i] = 0.7 * cos(2.3 * i);
        dzd[i] = 0.5 - 0.3 * i;
        dzdd[i] = 1.3 * sin(0.6 * i + 1.0);
        x[0][i] = 0.1 * i; /* the reference state of the displacement */
        x[1][i] = x[2][i] = 0.0;
    }
    mbs_objective_eval_set_initial(e, x[0], x[1], x[2]);
    mbs_kinematics_positions(m, &k, z);
    mbs_kinematics_velocities(m, &k, zd);
    mbs_kinematics_accelerations(m, &k, zdd, acc, A);
    mbs_constraints_derivatives_direction(m, &k, &cw, dz);
    mbs_constraints_derivatives_motion(m, &k, &cw, zd, dzd, zdd, dzdd);
    double dg[8], dw[8], gp[8], wp[8], gm[8], wm[8], g0[8], w0[8], g1[8], w1[8];
    if (no != 5) {
        tap_ok(0, "five objectives, not %d", no);
        return;
    }
    mbs_objective_eval_directional(e, &k, &cw, A, z, zd, dz, dzd, dg, dw);
    mbs_objective_eval_values_kinematics(e, &k, z, zd, zdd, g0, w0);
    mbs_objective_eval_values(e, z, zd, zdd, g1, w1);
    double same = 0.0;
    for (int o = 0; o < no; ++o)
        same = fmax(same, fmax(fabs(g0[o] - g1[o]), fabs(w0[o] - w1[o])));
    tap_close(same, 0.0, 1e-12, "values from the caller's kinematics = values from coordinates "
              "(%.2g)", same);
    /* squared_z is the square of the component z (paper 001 eq 76), squared_x of x */
    tap_close(g1[4], g1[3] * g1[3], 1e-12 * fmax(1.0, g1[4]), "squared_z = z^2 (%.12g, %.12g)",
              g1[4], g1[3]);
    tap_close(w1[4], 2.0 * w1[2] * w1[2], 1e-12 * fmax(1.0, w1[4]),
              "weight 2, squared_x = 2 x^2 (%.12g, %.12g)", w1[4], w1[2]);
    const double h = 1e-5;
    for (int s = 0; s < 2; ++s) {
        double sg = s ? -h : h;
        for (int i = 0; i < n; ++i) {
            x[0][i] = z[i] + sg * dz[i];
            x[1][i] = zd[i] + sg * dzd[i];
            x[2][i] = zdd[i] + sg * dzdd[i];
        }
        mbs_objective_eval_values(e, x[0], x[1], x[2], s ? gm : gp, s ? wm : wp);
    }
    for (int o = 0; o < no; ++o) {
        double fg = (gp[o] - gm[o]) / (2 * h), fw = (wp[o] - wm[o]) / (2 * h);
        tap_close(dg[o], fg, 1e-7 * fmax(1.0, fabs(fg)), "objective %s: dg %.12g, differences "
                  "%.12g", m->objectives[o].name, dg[o], fg);
        tap_close(dw[o], fw, 1e-7 * fmax(1.0, fabs(fw)), "objective %s: dw %.12g, differences "
                  "%.12g", m->objectives[o].name, dw[o], fw);
    }
    tap_ok(fabs(dg[0]) > 0.1 && fabs(dg[1]) > 0.1 && fabs(dg[2]) > 0.1 && fabs(dw[1]) > 0.1,
           "the derivatives are not trivially zero");
    mbs_constraints_derivatives_free(&cw);
    mbs_kinematics_free(&k);
    mbs_objective_eval_free(e);
    mbs_model_free(m);
}

int main(void)
{
    directional_derivatives();
    GError *error = NULL;
    MbsModel *m = esl_model_load_file(MODELS "five-bar.json", NULL, 0, &error);
    tap_ok(m != NULL, "five-bar loads %s", error ? error->message : "");
    if (!m)
        return tap_done();
    tap_ok(m->nobjectives == 3 && !strcmp(m->objectives[0].name, "psi1") &&
           !strcmp(m->objectives[2].name, "psi3"), "three objectives psi1..psi3");
    const char *free_names[] = {"Ls1", "Ls2", "m_A1", "xG_A1", "L_A1"};
    int nfree = 0, in_order = 1;
    for (int i = 0; i < m->nparameters; ++i)
        if (mbs_model_parameter_is_free(m, i))
            in_order &= nfree < 5 && !strcmp(m->parameters[i].name, free_names[nfree++]);
    tap_ok(nfree == 5 && in_order, "its free parameters are Ls1, Ls2, m_A1, xG_A1, L_A1 (%d)", nfree);

    /* The same objectives from relative (penalty) and natural (ali3p) coordinates at t = 0:
     * psi3's integrand |a2|^2 reads the initial accelerations both assemble. */
    MbsSettings s;
    mbs_settings_defaults(&s);
    MbsError err = {0};
    MbsFormulation *rel = mbs_formulation_new("penalty", m, &s, &err);
    MbsFormulation *nat = mbs_formulation_new("ali3p", m, &s, &err);
    tap_ok(rel && nat, "penalty and ali3p start %s", err.message);
    MbsObjectiveEval *er = mbs_objective_eval_new(m, MBS_COORDINATES_RELATIVE, &err);
    MbsObjectiveEval *en = mbs_objective_eval_new(m, MBS_COORDINATES_NATURAL, &err);
    double gr[3], gn[3];
    values_of(m, rel, er, gr);
    values_of(m, nat, en, gn);
    tap_ok(gr[2] > 1.0, "the initial acceleration of point 2 is not zero (|a2|^2 = %g)", gr[2]);
    tap_close(gn[2], gr[2], 1e-6 * gr[2], "psi3's integrand: natural %.12g, relative %.12g",
              gn[2], gr[2]);
    tap_close(gr[0], 0.0, 1e-20, "psi1's integrand is 0 at r20 (%g)", gr[0]);

    /* After some steps point 2 of the objective is where the formulation says it is. */
    for (int i = 0; i < 50; ++i)
        mbs_formulation_step(rel, &err);
    double q[8], qd[8], qdd[8], r2[3];
    rel->klass->coordinates(rel, q, qd);
    mbs_formulation_accelerations(rel, qdd);
    int p2 = mbs_model_find_point(m, mbs_model_find_body(m, "12"), "2");
    mbs_formulation_point_position(rel, p2, r2);
    mbs_objective_eval_values(er, q, qd, qdd, gr, NULL);
    double want = (r2[0] - 0.5) * (r2[0] - 0.5) + (r2[1] + 2) * (r2[1] + 2) + r2[2] * r2[2];
    tap_close(gr[0], want, 1e-14, "psi1's integrand is |r2 - r20|^2 from the formulation's pose");

    /* Partials: |v|^2 is homogeneous of degree 2 in the rates, so g_qd . qd = 2 g. */
    int n = mbs_objective_eval_ncoords(er);
    double g_qd[3 * 8], g_qdd[3 * 8];
    MbsObjectivePartials out = {.g_qd = g_qd, .g_qdd = g_qdd};
    mbs_objective_eval_partials(er, q, qd, qdd, &out);
    double euler = 0.0, euler3 = 0.0;
    for (int j = 0; j < n; ++j)
        euler += g_qd[1 * n + j] * qd[j];
    tap_close(euler, 2.0 * gr[1], 1e-7 * gr[1], "g_qd . qd = 2 g for psi2 (%.10g, %.10g)", euler,
              2.0 * gr[1]);
    /* a = A zdd + b (b: the bias of the rates, zero without them): g_qdd . zdd = 2 a.(a - b)
     * = g(zdd) - g(zdd = 0) + g(rates = 0) for g = |a|^2. */
    double zero[8] = {0}, g_no_acc[3], g_no_rate[3];
    mbs_objective_eval_values(er, q, qd, zero, g_no_acc, NULL);
    mbs_objective_eval_values(er, q, zero, qdd, g_no_rate, NULL);
    for (int j = 0; j < n; ++j)
        euler3 += g_qdd[2 * n + j] * qdd[j];
    double want3 = gr[2] - g_no_acc[2] + g_no_rate[2];
    tap_close(euler3, want3, 1e-7 * fabs(want3), "g_qdd . zdd = 2 a.(a - b) for psi3 (%.10g, %.10g)",
              euler3, want3);
    mbs_objective_eval_free(er);
    mbs_objective_eval_free(en);
    mbs_formulation_free(rel);
    mbs_formulation_free(nat);
    mbs_model_free(m);

    /* displacement: its reference is the position at t = 0, and g_q0 = -g_q */
    m = load_with("{\"name\": \"d\", \"integrand\": [{\"quantity\": \"displacement\", "
                  "\"body\": \"bar\", \"point\": \"E\"}], \"final\": [{\"quantity\": "
                  "\"joint_rate\", \"joint\": \"O\", \"measure\": \"value\", \"weight\": 3}]}",
                  &error);
    tap_ok(m != NULL, "a displacement and a final joint rate load %s", error ? error->message : "");
    if (m) {
        MbsObjectiveEval *e = mbs_objective_eval_new(m, MBS_COORDINATES_RELATIVE, &err);
        double z0[1] = {0.0}, zd0[1] = {2.0}, a0[1] = {0.0}, z1[1] = {0.3}, g, w;
        mbs_objective_eval_set_initial(e, z0, zd0, a0);
        mbs_objective_eval_values(e, z1, zd0, a0, &g, &w);
        /* E moves on a circle of radius 1: |E(0.3) - E(0)| = 2 sin(0.15) */
        tap_close(g, pow(2 * sin(0.15), 2), 1e-14, "displacement^2 = (2 sin(z/2))^2");
        tap_close(w, 6.0, 1e-14, "final term: 3 x rate 2");
        double gq[1], gq0[1];
        MbsObjectivePartials pd = {.g_q = gq, .g_q0 = gq0};
        mbs_objective_eval_partials(e, z1, zd0, a0, &pd);
        tap_close(gq[0], 2 * sin(0.3), 1e-9, "dg/dz = 2 sin z (%.12g)", gq[0]);
        tap_close(gq0[0], -gq[0], 1e-9, "dg/dz0 = -dg/dz through the reference");
        mbs_objective_eval_free(e);
    }
    mbs_model_free(m);
    g_clear_error(&error);

    expect_error("{\"name\": \"x\", \"integrand\": [{\"quantity\": \"jerk\", \"body\": \"bar\"}]}",
                 "objectives[0] 'x' integrand[0]: unknown quantity 'jerk'");
    expect_error("{\"name\": \"x\", \"integrand\": [{\"quantity\": \"velocity\", \"body\": \"bar\","
                 " \"point\": \"Q\"}]}", "'Q' is not a point of body 'bar'");
    expect_error("{\"name\": \"x\", \"integrand\": [{\"quantity\": \"velocity\", \"body\": \"bar\","
                 " \"point\": \"E\", \"measure\": \"value\"}]}", "must be \"squared_norm\" or \"x\"");
    expect_error("{\"name\": \"x\", \"integrand\": [{\"quantity\": \"velocity\", \"body\": \"bar\","
                 " \"point\": \"E\", \"weight\": \"L\"}]}", "'weight' must be a number");
    expect_error("{\"name\": \"x\"}", "needs at least one term");
    expect_error("{\"name\": \"x\", \"final\": [{\"quantity\": \"angular_velocity\", \"body\": \"bar\"}]},"
                 "{\"name\": \"x\", \"final\": [{\"quantity\": \"angular_velocity\", \"body\": \"bar\"}]}",
                 "objective 'x' is defined twice");
    return tap_done();
}
