/* matrix-r direct and adjoint sensitivities on every bundled model with parameters (issue 10):
 * the gradient of the model's objectives (or, for a model that declares none, of
 * psi = int |displacement|^2 + |velocity|^2 of its last point) with respect to every parameter
 * that is not computed from others, by the direct and adjoint methods, against central
 * differences of whole simulations of the same discrete scheme.
 *
 * Tolerances, relative to the largest entry of the objective's gradient row: adjoint = direct
 * to 1e-9 (one is the transpose of the other: round-off of sums in opposite orders, amplified
 * where a row's entries are small sums of large terms; and the derivatives are taken at the
 * run's own evaluation in direct, at the checkpoint's re-evaluation (position problem to
 * 1e-13) in adjoint: four-bar-spatial's cos_t row, -0.03, differs by 5e-11; 2e-12 and below
 * on the other models); direct = fd to 1e-5: fd's error is
 * its truncation, O(delta^2) with delta = 1e-4 rho (about 1e-8 relative), plus the noise of
 * whole simulations that solve their Newton iterations to 1e-10, divided by delta (measured on
 * four-bar-spatial's cos_t, whose gradient is small: fd with delta 1e-3, 1e-4, 1e-5, 1e-6
 * differs from direct by 3.9e-5, 3.1e-7, 1.3e-6, 8.6e-6 relative: truncation then noise, the
 * direct value being the limit). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../tap.h"
#include "esl-model-file.h"
#include "esl-models-dir.h"
#include "mbs_model_direction.h"
#include "mbs_objective.h"
#include "mbs_run.h"
#include "sens_matrix_r.h"

static const double step = 1e-3, duration = 0.5;

typedef struct {
    MbsObjectiveEval *eval;
    double *psi, *g, *w, *q, *qd, *qdd;
    double t_last;
    int k;
} Quadrature;

/* The trapezoidal rule of the run's grid, plus w at the end: what the sensitivity methods
 * differentiate. */
static int accumulate(void *data, const MbsRun *run)
{
    Quadrature *a = data;
    MbsFormulation *f = mbs_run_formulation(run);
    f->klass->coordinates(f, a->q, a->qd);
    mbs_formulation_accelerations(f, a->qdd);
    double h = f->time - a->t_last;
    for (int i = 0; i < a->k; ++i)
        a->psi[i] += 0.5 * h * a->g[i];
    mbs_objective_eval_values(a->eval, a->q, a->qd, a->qdd, a->g, a->w);
    for (int i = 0; i < a->k; ++i)
        a->psi[i] += 0.5 * h * a->g[i];
    a->t_last = f->time;
    return 0;
}

/* psi of a whole simulation of m, displacements measured from its own initial positions. */
static int simulate(const MbsModel *m, const MbsSettings *s, double *psi)
{
    MbsError err = {0};
    int n = mbs_model_ncoords(m), k = m->nobjectives;
    MbsFormulation *f = mbs_formulation_new("matrix-r", m, s, &err);
    MbsObjectiveEval *e = mbs_objective_eval_new(m, MBS_COORDINATES_RELATIVE, &err);
    double *buf = g_new0(double, 3 * (size_t)n + 2 * (size_t)k + 1);
    Quadrature a = {.eval = e, .psi = psi, .g = buf, .w = buf + k, .q = buf + 2 * k,
                    .qd = buf + 2 * k + n, .qdd = buf + 2 * k + 2 * n, .k = k};
    int ok = f && e;
    if (ok) {
        f->klass->coordinates(f, a.q, a.qd);
        mbs_formulation_accelerations(f, a.qdd);
        mbs_objective_eval_set_initial(e, a.q, a.qd, a.qdd);
        mbs_objective_eval_values(e, a.q, a.qd, a.qdd, a.g, a.w);
        memset(psi, 0, sizeof(double) * (size_t)k);
    }
    MbsRunOptions ro = {.max_halvings = 0};
    MbsRunObserver obs = {.sample = accumulate, .data = &a, .every = 1};
    MbsRun *run = ok ? mbs_run_new(f, &ro, &obs, &err) : NULL;
    ok = run && mbs_run_advance(run, duration) == MBS_RUN_REACHED;
    if (!ok)
        tap_diag("%s", run ? mbs_run_error(run)->message : err.message);
    for (int i = 0; i < k; ++i)
        psi[i] += a.w[i];
    mbs_run_free(run);
    mbs_formulation_free(f);
    g_free(buf);
    mbs_objective_eval_free(e);
    return ok ? 0 : -1;
}

/* Parameters no binding computes from others (the ones a user sets). */
static int free_parameters(const MbsModel *m, int *out)
{
    int n = 0;
    for (int p = 0; p < m->nparameters; ++p) {
        int derived = 0;
        for (int b = 0; b < m->nbindings; ++b)
            derived |= m->bindings[b].target.kind == MBS_ELEMENT_PARAMETER &&
                       m->bindings[b].target.index == p;
        if (!derived)
            out[n++] = p;
    }
    return n;
}

/* The largest |a - b| of a gradient row relative to b's largest entry in that row (k x np). */
static double worst_row_difference(const double *a, const double *b, int k, int np)
{
    double worst = 0.0;
    for (int i = 0; i < k; ++i) {
        double scale = 1e-300;
        for (int c = 0; c < np; ++c)
            scale = fmax(scale, fabs(b[i * np + c]));
        for (int c = 0; c < np; ++c)
            worst = fmax(worst, fabs(a[i * np + c] - b[i * np + c]) / scale);
    }
    return worst;
}

static void check_model(const char *dir, const char *file)
{
    g_autofree char *path = g_build_filename(dir, file, NULL);
    g_autoptr(GError) error = NULL;
    MbsModel *m = esl_model_load_file(path, NULL, 0, &error);
    if (!m) {
        tap_ok(0, "%s loads: %s", file, error->message);
        return;
    }
    int params[64];
    int np = m->nparameters <= 64 ? free_parameters(m, params) : 0;
    if (np == 0) {
        mbs_model_free(m);
        return;
    }
    MbsError err = {0};
    if (m->nobjectives == 0) { /* a generic objective of the last point */
        MbsObjectiveTerm terms[2] = {
            {.quantity = MBS_QUANTITY_DISPLACEMENT, .point = m->npoints - 1,
             .body = m->points[m->npoints - 1].body, .measure = MBS_MEASURE_SQUARED_NORM,
             .weight = 1.0},
            {.quantity = MBS_QUANTITY_VELOCITY, .point = m->npoints - 1,
             .body = m->points[m->npoints - 1].body, .measure = MBS_MEASURE_SQUARED_NORM,
             .weight = 1.0}};
        if (mbs_model_add_objective(m, "psi", &err) < 0 ||
            mbs_model_add_objective_term(m, &terms[0], &err) < 0 ||
            mbs_model_add_objective_term(m, &terms[1], &err) < 0) {
            tap_ok(0, "%s: objective: %s", file, err.message);
            mbs_model_free(m);
            return;
        }
    }
    int k = m->nobjectives;
    MbsSettings s;
    mbs_settings_defaults(&s);
    s.step = step;
    mbs_settings_set_for(&s, "matrix-r", "integrator", "trapezoidal", &err);
    MbsSensResult direct, adjoint;
    /* the direct run evaluates its own Newton matrices, so that it takes the adjoint's steps
     * and adjoint = direct checks the transposition (tests/engine/test_sens_matrix_r.c checks
     * the default, the sensitivities' tangent) */
    MbsMatrixRSensOptions own;
    mbs_setting_table_defaults(&mbs_matrix_r_sens_settings, &own);
    own.newton_matrix = MBS_SENS_NEWTON_OWN;
    int st1 = mbs_matrix_r_model_sensitivity(m, &s, params, np, MBS_SENS_DIRECT, &own, duration,
                                             NULL, NULL, &direct, &err);
    if (!tap_ok(st1 == 0, "%s: direct (%d parameters, %d objectives)", file, np, k)) {
        tap_diag("%s", err.message);
        mbs_model_free(m);
        return;
    }
    int st2 = mbs_matrix_r_model_sensitivity(m, &s, params, np, MBS_SENS_ADJOINT, NULL,
                                             duration, NULL, NULL, &adjoint, &err);
    if (!tap_ok(st2 == 0, "%s: adjoint", file)) {
        tap_diag("%s", err.message);
        mbs_sens_result_free(&direct);
        mbs_model_free(m);
        return;
    }
    double worst_fd = 0.0, worst_adj = 0.0;
    double psi0[16], pp[16], pm[16];
    int sim_ok = k <= 16 && simulate(m, &s, psi0) == 0;
    for (int j = 0; j < np && sim_ok; ++j) {
        int q = params[j];
        double rho = m->parameters[q].value, dl = 1e-4 * fmax(1.0, fabs(rho));
        MbsModel *mp = mbs_model_with_parameter(m, q, rho + dl, &err);
        MbsModel *mm = mp ? mbs_model_with_parameter(m, q, rho - dl, &err) : NULL;
        sim_ok = mm && simulate(mp, &s, pp) == 0 && simulate(mm, &s, pm) == 0;
        for (int i = 0; i < k && sim_ok; ++i) {
            double scale = 1e-300;
            for (int c = 0; c < np; ++c)
                scale = fmax(scale, fabs(direct.gradient[i * np + c]));
            double fd = (pp[i] - pm[i]) / (2.0 * dl), dg = direct.gradient[i * np + j];
            worst_fd = fmax(worst_fd, fabs(dg - fd) / scale);
            worst_adj = fmax(worst_adj, fabs(adjoint.gradient[i * np + j] - dg) / scale);
            tap_diag("%s %s / %s: direct %.10g adjoint %.10g fd %.10g", file,
                     m->objectives[i].name, m->parameters[q].name, dg,
                     adjoint.gradient[i * np + j], fd);
        }
        mbs_model_free(mp);
        mbs_model_free(mm);
    }
    /* the state derivatives by analytical (the default: matrix-r's directional derivatives,
     * exact) against central differences (their truncation and the position problem's
     * tolerance, ~1e-9 relative on the five-bar: 1e-7) and against ad (both exact: 1e-10);
     * and the default Newton matrix of the run (the sensitivities' tangent), whose steps end
     * elsewhere within the Newton tolerance (1e-10 on the correction): measured here 4.4e-10
     * (stiff double pendulum) to 3.5e-9 (five-bar), and 3e-8 on four-bar-spatial at h = 1 ms
     * (eslabon-cli); bound 1e-6 */
    MbsMatrixRSensOptions other = own;
    tap_ok(other.jacobian == MBS_JACOBIAN_ANALYTICAL,
           "%s: analytical is the default state derivative", file);
    static const MbsJacobianMethod others[3] = {MBS_JACOBIAN_ND_CENTRAL, MBS_JACOBIAN_AD,
                                                MBS_JACOBIAN_ANALYTICAL};
    double bounds[3] = {1e-7, 1e-10, 1e-6};
    /* coach.json (PAC2002 tyres) starts upright, at camber 0 where the law's |camber| terms
     * have a kink: central differences average its two slopes, the exact derivatives take one
     * (test_wheel measures it at the element); analytical = ad to 1.4e-11 while nd-central is
     * 1.5e-7 off: its bound there 1e-6 */
    if (!strcmp(file, "coach.json"))
        bounds[0] = 1e-6;
    /* truck-slalom.json, upright at the start too: nd-central 7.6e-8, ad 5.0e-11 (measured,
     * issue 24): bounds 1e-6 and 5e-10 */
    if (!strcmp(file, "truck-slalom.json")) {
        bounds[0] = 1e-6;
        bounds[1] = 5e-10;
    }
    for (int o = 0; o < 3; ++o) {
        other.jacobian = others[o];
        other.newton_matrix = o == 2 ? MBS_SENS_NEWTON_SENSITIVITIES : MBS_SENS_NEWTON_OWN;
        MbsSensResult by_other;
        double worst = INFINITY;
        if (mbs_matrix_r_model_sensitivity(m, &s, params, np, MBS_SENS_DIRECT, &other, duration,
                                           NULL, NULL, &by_other, &err) == 0) {
            worst = worst_row_difference(by_other.gradient, direct.gradient, k, np);
            mbs_sens_result_free(&by_other);
        }
        tap_ok(worst < bounds[o], "%s: direct with analytical state derivatives = with %s "
               "(worst %.3g of the row's largest entry; bound %g) %s", file,
               o == 2 ? "the run's Newton matrix from the sensitivities (the default)"
                      : mbs_jacobian_method_name(others[o]),
               worst, bounds[o], isfinite(worst) ? "" : err.message);
    }
    /* the explicit terms along the drawing's derivative (setting geometry analytical, the
     * default: a parameter that moves points alone, one that reweights bodies, one that changes
     * force laws at a still geometry) = central differences of rebuilt models (their
     * truncation, O(delta^2) with delta = 6e-6 rho, and the position problems' 1e-13: measured
     * 8e-12 on the five-bar, 5e-13 on the slider-crank) */
    MbsMatrixRSensOptions differences = own;
    differences.geometry = MBS_SENS_GEOMETRY_DIFFERENCES;
    MbsSensResult by_differences;
    double worst_geometry = INFINITY;
    if (mbs_matrix_r_model_sensitivity(m, &s, params, np, MBS_SENS_DIRECT, &differences,
                                       duration, NULL, NULL, &by_differences, &err) == 0) {
        worst_geometry = by_differences.geometry_analytical == 0
                             ? worst_row_difference(by_differences.gradient, direct.gradient, k,
                                                    np)
                             : INFINITY;
        mbs_sens_result_free(&by_differences);
    }
    tap_ok(worst_geometry < 1e-9, "%s: the parameters' explicit terms along the drawing's "
           "derivative (%d of the geometry) = differences of rebuilt models (worst %.3g of the "
           "row's largest entry; bound 1e-9)", file, direct.geometry_analytical, worst_geometry);
    if (tap_ok(sim_ok, "%s: whole simulations for fd", file)) {
        /* adjoint = direct is the transposition, to round-off (~1e-12 on the five-bar); the
         * dependent coordinates the derivatives are taken at are the run's (Newton to 1e-10)
         * in direct, the restored checkpoint's solved again to 1e-13 in adjoint: on a small
         * row (four-bar-spatial's crank_spin / cos_t, -0.03) 5e-11 of the entry. (A geometric
         * parameter's F_rho used to difference two position problems solved from different
         * starting points: 2e-9 there.) */
        tap_ok(worst_adj < 1e-9, "%s: adjoint = direct (worst %.3g of the row's largest entry)",
               file, worst_adj);
        tap_ok(worst_fd < 1e-5, "%s: direct = fd of whole simulations (worst %.3g)", file,
               worst_fd);
    }
    mbs_sens_result_free(&direct);
    mbs_sens_result_free(&adjoint);
    mbs_model_free(m);
}

/* Paper 001 Table 1: the 15 gradient entries on models/five-bar.json (its five parameters,
 * psi1..3), direct and adjoint, h = 1 ms, 5 s (tests/engine/test_sens_matrix_r.c says why
 * 1 ms). Tolerance: one unit of the last printed digit of the paper's direct column (its own
 * direct and adjoint columns differ by that much). */
static void table1(const char *dir)
{
    static const double paper[3][5] = {{-4.2288, 3.2116, 0.31866, 0.44235, 3.3598},
                                       {-15.452, 50.309, 0.97017, 0.74569, -27.359},
                                       {221.64, 2436.6, -32.497, -85.658, -2546.6}};
    static const double unit[3][5] = {{1e-4, 1e-4, 1e-5, 1e-5, 1e-4},
                                      {1e-3, 1e-3, 1e-5, 1e-5, 1e-3},
                                      {1e-2, 1e-1, 1e-3, 1e-3, 1e-1}};
    g_autofree char *path = g_build_filename(dir, "five-bar.json", NULL);
    g_autoptr(GError) error = NULL;
    MbsModel *m = esl_model_load_file(path, NULL, 0, &error);
    if (!tap_ok(m != NULL, "five-bar.json loads"))
        return;
    static const char *const names[5] = {"Ls1", "Ls2", "m_A1", "xG_A1", "L_A1"};
    int params[5];
    for (int j = 0; j < 5; ++j)
        params[j] = mbs_model_find_parameter(m, names[j]);
    MbsSettings s;
    mbs_settings_defaults(&s);
    s.step = 1e-3;
    MbsError err = {0};
    mbs_settings_set_for(&s, "matrix-r", "integrator", "trapezoidal", &err);
    MbsMatrixRSensOptions options[3];
    mbs_setting_table_defaults(&mbs_matrix_r_sens_settings, &options[0]);
    options[1] = options[2] = options[0];
    options[0].jacobian = MBS_JACOBIAN_ND_CENTRAL;
    options[1].jacobian = MBS_JACOBIAN_AD;
    options[2].jacobian = MBS_JACOBIAN_ANALYTICAL;
    for (int method = 0; method < 6; ++method) {
        MbsSensResult r;
        const MbsMatrixRSensOptions *o = &options[method / 2];
        const char *state = mbs_jacobian_method_name((MbsJacobianMethod)o->jacobian);
        if (!tap_ok(mbs_matrix_r_model_sensitivity(m, &s, params, 5,
                                                   method % 2 ? MBS_SENS_ADJOINT
                                                              : MBS_SENS_DIRECT,
                                                   o, 5.0, NULL, NULL, &r, &err) == 0,
                    "Table 1 run (%s, state derivatives %s)",
                    method % 2 ? "adjoint" : "direct", state)) {
            tap_diag("%s", err.message);
            continue;
        }
        int matched = 0;
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 5; ++j) {
                double got = r.gradient[i * 5 + j];
                int good = fabs(got - paper[i][j]) <= unit[i][j] * (1 + 1e-9);
                matched += good;
                tap_diag("%s, %s: psi%d / %s: %.8g, Table 1 %.5g%s",
                         method % 2 ? "adjoint" : "direct", state, i + 1, names[j], got,
                         paper[i][j], good ? "" : "  <-- off");
            }
        tap_ok(matched == 15, "paper 001 Table 1 by the %s method, state derivatives %s: %d of "
               "15 values", method % 2 ? "adjoint" : "direct", state, matched);
        mbs_sens_result_free(&r);
    }
    mbs_model_free(m);
}

static gint by_name(gconstpointer a, gconstpointer b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The drawing's derivative (mbs_model_direction.h) of the five-bar's L_A1: joints 1 and 2 move
 * along A1's direction, (-1, -1)/sqrt(2) per unit of L_A1 (models/five-bar.json's x1, y1), so
 * point 1 of bar A1 moves by exactly that; and the parameters it refuses, with their reason. */
static void model_direction(const char *dir)
{
    struct {
        const char *file, *parameter, *refused; /* refused: a word of the reason, or NULL */
    } cases[] = {{"five-bar.json", "L_A1", NULL},
                 {"five-bar.json", "Ls1", "force law"},
                 {"four-bar-spatial.json", "cos_t", "turns"}};
    for (size_t c = 0; c < G_N_ELEMENTS(cases); ++c) {
        g_autofree char *path = g_build_filename(dir, cases[c].file, NULL);
        g_autoptr(GError) error = NULL;
        MbsModel *m = esl_model_load_file(path, NULL, 0, &error);
        int q = m ? mbs_model_find_parameter(m, cases[c].parameter) : -1;
        if (!tap_ok(q >= 0, "%s loads with %s", cases[c].file, cases[c].parameter)) {
            mbs_model_free(m);
            continue;
        }
        MbsError err = {0};
        double rho = m->parameters[q].value, delta = 6e-6 * fmax(1.0, fabs(rho));
        MbsModel *plus = mbs_model_with_parameter(m, q, rho + delta, &err);
        MbsModel *minus = plus ? mbs_model_with_parameter(m, q, rho - delta, &err) : NULL;
        MbsModelDirection d;
        char why[160] = "";
        int status = minus ? mbs_model_direction_init(&d, m, plus, minus, delta, why, sizeof why)
                           : -2;
        if (cases[c].refused) {
            tap_ok(status == 1 && strstr(why, cases[c].refused),
                   "%s %s: taken by differences (%s)", cases[c].file, cases[c].parameter, why);
        } else {
            int body = mbs_model_find_body(m, "A1");
            int point = body >= 0 ? mbs_model_find_point(m, body, "1") : -1;
            double want = -1.0 / sqrt(2.0), worst = INFINITY;
            if (status == 0 && point >= 0)
                worst = fmax(fabs(d.point[3 * point] - want),
                             fmax(fabs(d.point[3 * point + 1] - want), fabs(d.point[3 * point + 2])));
            tap_ok(status == 0 && worst < 1e-9, "%s %s: point 1 of A1 moves by (-1, -1, 0)/sqrt(2) "
                   "per unit (error %.2g)", cases[c].file, cases[c].parameter, worst);
            if (status == 0)
                mbs_model_direction_free(&d);
        }
        mbs_model_free(plus);
        mbs_model_free(minus);
        mbs_model_free(m);
    }
}

int main(void)
{
    const char *dir = esl_models_dir();
    g_autoptr(GDir) d = g_dir_open(dir, 0, NULL);
    const char *name;
    GPtrArray *files = g_ptr_array_new_with_free_func(g_free);
    while (d && (name = g_dir_read_name(d)))
        if (g_str_has_suffix(name, ".json"))
            g_ptr_array_add(files, g_strdup(name));
    g_ptr_array_sort(files, by_name);
    for (guint i = 0; i < files->len; ++i) {
        const char *file = g_ptr_array_index(files, i);
        /* The stiff vehicle's road is a half-cylinder bump whose slope is infinite at its edges:
         * the run (0.5 s) ends as the front wheels meet it, where psi is not differentiable in
         * x_bump (direct 0.05, fd -2.4). Not a smooth sensitivity problem; known, see the
         * closing note of issue 10. */
        /* hmmwv-stiff-paper002.json: the same edge, reached as this run ends (its front wheels
         * meet the bump at 0.5 s): the fd run with x_bump moved fails there (matrix-r: the
         * position problem did not converge at t = 0.5 s), direct and adjoint give 0; its other
         * 7 parameters agree (direct = adjoint to 1.6e-9 relative, fd within 1.4 %: c_bushing
         * -9.771e-13 / -9.907e-13, the rest within 0.7 %; measured issue 24). */
        if (strcmp(file, "stiff-vehicle.json") == 0 ||
            strcmp(file, "hmmwv-stiff-paper002.json") == 0) {
            tap_skip("%s: its road profile is not differentiable at the bump's edges", file);
            continue;
        }
        /* hmmwv.json rises from the data's design position in its first 0.5 s and its rebound
         * stops touch: contact events inside a step, which the direct and adjoint sensitivities
         * do not follow (direct vs fd 5e-3 of the row's largest entry with the model's 1 cm
         * transition, 0.127 with a damped sharp stop). Without the stops the same vehicle on
         * its spring_table springs agrees: direct vs fd 8.5e-8, analytical vs nd-central
         * 7.2e-11 (measured with the stops removed, issue 24). */
        if (strcmp(file, "hmmwv.json") == 0) {
            tap_skip("%s: its bump stops make contact while it settles (events)", file);
            continue;
        }
        /* The buggy's step comes at 2 s: over this test's 0.5 s nothing moves (psi ~1e-18, its
         * gradient is round-off), and the lane change has barely begun (a gradient row of 5e-9:
         * adjoint = direct to 1e-8 of it, round-off). Their sensitivities are checked around
         * the step and over the whole lane change by tests/cli/test_sens_buggy.py. */
        /* The lane change's drivers have their analytical derivatives now (direct with them =
         * with ad to 4.9e-12, adjoint = direct to 1.5e-11, and the drivers' parameters agree
         * with fd: speed 18.00677835 / 18.00677837, lateral_gain -6.654039e-3 / -6.653917e-3,
         * preview -7.888e-6 / -7.920e-6). It is skipped for the hmmwv.json reason: its rebound
         * stops touch as it settles (stop_transition: direct -0.360, fd -0.342, the worst row
         * 1.0e-3), and nd-central's relative increments on the chassis's travel are 3.9e-4 off
         * (test-tangent-ad.c; measured issue 24). */
        if (!strcmp(file, "hmmwv-lane-change.json")) {
            tap_skip("%s: its bump stops make contact while it settles (events), as hmmwv.json",
                     file);
            continue;
        }
        /* The truck (paper 003, its drivers with their analytical derivatives) is checked:
         * measured over 0.5 s (issue 24), direct = fd 2.0e-8 of the row's largest entry (psi /
         * speed 14.8966269 direct, 14.8966266 fd), adjoint = direct 2.0e-12; its own bounds for
         * the state derivatives below (camber 0 at the start, as the coach). */
        if (g_str_has_prefix(file, "buggy-")) {
            tap_skip("%s: checked by tests/cli/test_sens_buggy.py", file);
            continue;
        }
        check_model(dir, file);
    }
    g_ptr_array_unref(files);
    table1(dir);
    model_direction(dir);
    return tap_done();
}
