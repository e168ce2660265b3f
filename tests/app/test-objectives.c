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

int main(void)
{
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
