/* The design optimiser (app/esl-optimizer.c) and its worker (app/esl-optimization-controller.c)
 * on docs/cli.md's worked example: five-bar's psi1 over the springs' natural lengths Ls1, Ls2
 * in [1.5, 3], penalty direct gradients, h = 0.01 s, 1 s.
 *  - L-BFGS converges: psi1 from 0.114 to below 1e-12 in at most 20 evaluations, at the lengths
 *    that keep the mechanism still (five-bar-statics.h: the statics of the drawn position); the
 *    result is the lowest evaluation reported, its x and gradient;
 *  - SLSQP reaches the same point;
 *  - a stop asked during evaluation 2 ends it as "stopped" with 2 evaluations recorded;
 *  - max_evaluations 1 to 4 end with the evaluation limit after exactly that many;
 *  - refused before any evaluation: empty bounds, an objective not the model's, a method the
 *    formulation has not; a failing evaluation (L_A1 = 5 leaves the geometry's expressions
 *    without a value) ends it as failed naming the evaluation, the parameter and the engine's
 *    message;
 *  - on the controller: the same evaluations bit for bit, delivered to the main loop, which
 *    keeps turning while it runs, and stored in a project (schema 10) bit for bit with the
 *    request and the result, as a finished run; Stop from the first delivery ends it as
 *    stopped, stored as a stopped run with the evaluations done. */
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

#include "esl-model-file.h"
#include "esl-optimization-controller.h"
#include "esl-optimizer.h"
#include "esl-project.h"
#include "five-bar-statics.h"
#include "tap.h"

/* the optimum against the statics: 10 times the difference measured (2.5e-9, SLSQP) */
#define TOL_LS 3e-8

#define MODELS ESLABON_SOURCE_DIR "/models/"

typedef struct {
    GArray *psi;             /* every evaluation's psi, in order */
    GArray *x;               /* and its x (2 each) */
    int last_index;
    gboolean indices_in_order;
    int stop_at;             /* set the stop flag during this evaluation (0: never) */
    volatile int stop;
} Seen;

static void seen_init(Seen *seen)
{
    memset(seen, 0, sizeof *seen);
    seen->psi = g_array_new(FALSE, FALSE, sizeof(double));
    seen->x = g_array_new(FALSE, FALSE, sizeof(double));
    seen->indices_in_order = TRUE;
}

static void seen_clear(Seen *seen)
{
    g_array_unref(seen->psi);
    g_array_unref(seen->x);
}

static void record(Seen *seen, int index, double psi, const double *x, int n)
{
    seen->indices_in_order &= index == seen->last_index + 1 && n == 2;
    seen->last_index = index;
    g_array_append_val(seen->psi, psi);
    g_array_append_vals(seen->x, x, 2);
}

static void on_evaluation(void *data, int index, double psi, const double *gradient,
                          const double *x, int n)
{
    (void)gradient;
    Seen *seen = data;
    record(seen, index, psi, x, n);
    if (index == seen->stop_at)
        g_atomic_int_set(&seen->stop, 1);
}

static MbsSettings settings;
static char *project_path; /* where the controller stores */
static int parameters[2];
static const double lower[] = {1.5, 1.5}, upper[] = {3.0, 3.0};

static EslOptimizerProblem five_bar_problem(const MbsModel *m, EslOptimizerAlgorithm algorithm,
                                            Seen *seen)
{
    return (EslOptimizerProblem){
        .model = m, .formulation = "penalty", .settings = &settings,
        .method = MBS_SENSITIVITY_DIRECT, .objective = mbs_model_find_objective(m, "psi1"),
        .parameters = parameters, .nparameters = 2, .lower = lower, .upper = upper,
        .algorithm = algorithm, .max_evaluations = 40,
        .evaluation = seen ? on_evaluation : NULL, .evaluation_data = seen,
        .stop = seen ? &seen->stop : NULL};
}

/* The lowest psi reported and its index. */
static int lowest(const Seen *seen)
{
    int best = 0;
    for (guint i = 1; i < seen->psi->len; i++)
        if (g_array_index(seen->psi, double, i) < g_array_index(seen->psi, double, best))
            best = (int)i;
    return best;
}

static void converges(const MbsModel *m, EslOptimizerAlgorithm algorithm)
{
    const char *name = esl_optimizer_algorithm_name(algorithm);
    Seen seen;
    seen_init(&seen);
    EslOptimizerProblem p = five_bar_problem(m, algorithm, &seen);
    EslOptimizerResult r;
    g_autoptr(GError) error = NULL;
    gboolean ran = esl_optimizer_run(&p, &r, &error);
    double first = seen.psi->len ? g_array_index(seen.psi, double, 0) : NAN;
    tap_ok(ran && r.status == ESL_OPTIMIZER_CONVERGED && r.evaluations <= 20 &&
               r.evaluations == (int)seen.psi->len && seen.indices_in_order,
           "%s converges in %d evaluations (<= 20), each reported once in order (%s)", name,
           r.evaluations, r.message ? r.message : esl_optimizer_status_name(r.status));
    tap_ok(first > 0.1 && r.psi < 1e-12,
           "%s: psi1 from %.6g at the drawn lengths to %.3g (< 1e-12)", name, first, r.psi);
    double ls1, ls2;
    five_bar_still_lengths(&ls1, &ls2);
    tap_close(r.x[0], ls1, TOL_LS, "%s: Ls1 = %.10g holds the mechanism still (statics: %.10g)",
              name, r.x[0], ls1);
    tap_close(r.x[1], ls2, TOL_LS, "%s: Ls2 = %.10g (statics: %.10g)", name, r.x[1], ls2);
    int best = lowest(&seen);
    tap_ok(seen.psi->len && r.psi == g_array_index(seen.psi, double, best) &&
               r.x[0] == g_array_index(seen.x, double, 2 * best) &&
               r.x[1] == g_array_index(seen.x, double, 2 * best + 1) &&
               hypot(r.gradient[0], r.gradient[1]) < 1e-4,
           "%s: the result is evaluation %d, the lowest reported (|grad| %.3g)", name, best + 1,
           hypot(r.gradient[0], r.gradient[1]));
    esl_optimizer_result_clear(&r);
    seen_clear(&seen);
}

static void stops_and_limits(const MbsModel *m)
{
    Seen seen;
    seen_init(&seen);
    seen.stop_at = 2;
    EslOptimizerProblem p = five_bar_problem(m, ESL_OPTIMIZER_LBFGS, &seen);
    EslOptimizerResult r;
    esl_optimizer_run(&p, &r, NULL);
    tap_ok(r.status == ESL_OPTIMIZER_STOPPED && r.evaluations == 2 && seen.psi->len == 2 &&
               !r.message && r.psi == fmin(g_array_index(seen.psi, double, 0),
                                           g_array_index(seen.psi, double, 1)),
           "a stop asked during evaluation 2: %s after %d evaluations (%u reported), psi %.6g "
           "the lower of the two", esl_optimizer_status_name(r.status), r.evaluations,
           seen.psi->len, r.psi);
    esl_optimizer_result_clear(&r);
    seen_clear(&seen);

    /* the limit is the number of evaluations made, whatever the algorithm's line search asks
     * for (NLopt's L-BFGS evaluated a third time under a limit of 2) */
    for (int limit = 1; limit <= 4; limit++) {
        seen_init(&seen);
        p = five_bar_problem(m, ESL_OPTIMIZER_LBFGS, &seen);
        p.max_evaluations = limit;
        esl_optimizer_run(&p, &r, NULL);
        tap_ok(r.status == ESL_OPTIMIZER_EVALUATION_LIMIT && r.evaluations == limit &&
                   (int)seen.psi->len == limit,
               "max_evaluations %d: %s after %d", limit, esl_optimizer_status_name(r.status),
               r.evaluations);
        esl_optimizer_result_clear(&r);
        seen_clear(&seen);
    }
}

static void refusals(const MbsModel *m)
{
    EslOptimizerProblem p = five_bar_problem(m, ESL_OPTIMIZER_LBFGS, NULL);
    const double high[] = {3.0, 1.0};
    p.upper = high;
    EslOptimizerResult r;
    g_autoptr(GError) error = NULL;
    gboolean ran = esl_optimizer_run(&p, &r, &error);
    tap_ok(!ran && r.status == ESL_OPTIMIZER_FAILED && r.evaluations == 0 && error &&
               strstr(error->message, "'Ls2'") && !g_strcmp0(r.message, error->message),
           "empty bounds refused before any evaluation: %s", error ? error->message : "");
    esl_optimizer_result_clear(&r);
    g_clear_error(&error);

    p = five_bar_problem(m, ESL_OPTIMIZER_LBFGS, NULL);
    p.objective = m->nobjectives;
    ran = esl_optimizer_run(&p, &r, &error);
    tap_ok(!ran && error, "an objective not the model's refused: %s", error ? error->message : "");
    esl_optimizer_result_clear(&r);
    g_clear_error(&error);

    p = five_bar_problem(m, ESL_OPTIMIZER_LBFGS, NULL);
    p.formulation = "ssode";
    ran = esl_optimizer_run(&p, &r, &error);
    tap_ok(!ran && error && strstr(error->message, "no direct sensitivity method"),
           "a method the formulation has not refused: %s", error ? error->message : "");
    esl_optimizer_result_clear(&r);
    g_clear_error(&error);

    int l_a1 = mbs_model_find_parameter(m, "L_A1");
    const double five = 5.0, twenty = 20.0;
    p = five_bar_problem(m, ESL_OPTIMIZER_LBFGS, NULL);
    p.parameters = &l_a1;
    p.nparameters = 1;
    p.lower = &five;
    p.upper = &twenty;
    ran = esl_optimizer_run(&p, &r, &error);
    tap_ok(ran && r.status == ESL_OPTIMIZER_FAILED && r.evaluations == 0 && r.message &&
               strstr(r.message, "evaluation 1 at L_A1 = 5:") && strstr(r.message, "'h3'"),
           "a failing evaluation ends it as failed: %s", r.message ? r.message : "");
    esl_optimizer_result_clear(&r);
}

/* The stored optimisation of c: every evaluation seen, bit for bit, the request and the
 * result; the run's status. */
static void check_stored(EslOptimizationController *c, const Seen *seen, EslRunStatus status)
{
    gint64 run = esl_optimization_controller_get_run_id(c);
    const EslOptimizerResult *r = esl_optimization_controller_get_result(c);
    g_autoptr(GError) error = NULL;
    EslProject *project = run ? esl_project_open(project_path, FALSE, &error) : NULL;
    g_autoptr(EslRunInfo) info = project ? esl_project_get_run(project, run, &error) : NULL;
    g_autoptr(EslOptimizationRun) o =
        project ? esl_project_load_optimization(project, run, &error) : NULL;
    if (project)
        esl_project_close(project);
    gboolean same = o && o->n == (int)seen->psi->len && o->nparameters == 2;
    for (int i = 0; same && i < o->n; i++)
        same = o->history_psi[i] == g_array_index(seen->psi, double, i) &&
               !memcmp(o->history_x + 2 * i, &g_array_index(seen->x, double, 2 * i),
                       2 * sizeof(double));
    tap_ok(same && info && info->status == status && o->x && o->psi == r->psi &&
               !memcmp(o->x, r->x, 2 * sizeof(double)) &&
               !g_strcmp0(o->result, esl_optimizer_status_name(r->status)) &&
               !g_strcmp0(o->objective, "psi1") && !g_strcmp0(o->parameters[1], "Ls2") &&
               o->lower[0] == lower[0] && o->upper[1] == upper[1] &&
               !g_strcmp0(o->algorithm, "lbfgs") && !g_strcmp0(o->method, "direct"),
           "stored as run %" G_GINT64_FORMAT " (%s): its %d evaluations, the request and the "
           "result (%s) bit for bit%s%s", run, info ? esl_run_status_name(info->status) : "?",
           o ? o->n : -1, o ? o->result : "?", error ? ": " : "", error ? error->message : "");
}

/* ---- the controller ------------------------------------------------------------------------- */

typedef struct {
    Seen seen;
    GMainLoop *loop;
    int status;
    int ticks;           /* of a 10 ms timeout while it ran */
    gboolean stop_first; /* Stop from the first delivery */
    EslOptimizationController *c;
} Watch;

static void on_evaluations(EslOptimizationController *c, GPtrArray *evaluations, Watch *w)
{
    for (guint i = 0; i < evaluations->len; i++) {
        const EslOptimizationEvaluation *e = evaluations->pdata[i];
        record(&w->seen, e->index, e->psi, e->x, e->n);
    }
    if (w->stop_first)
        esl_optimization_controller_stop(c);
}

static void on_finished(EslOptimizationController *c, int status, const char *message, Watch *w)
{
    (void)c, (void)message;
    w->status = status;
    g_main_loop_quit(w->loop);
}

static gboolean tick(gpointer data)
{
    ((Watch *)data)->ticks++;
    return G_SOURCE_CONTINUE;
}

static void watch(const MbsModel *m, const MbsSettings *s, Watch *w)
{
    seen_init(&w->seen);
    EslOptimizerProblem p = five_bar_problem(m, ESL_OPTIMIZER_LBFGS, NULL);
    p.settings = s;
    w->c = esl_optimization_controller_new(&p, NULL);
    esl_optimization_controller_set_project(w->c, project_path, 0, NULL);
    w->loop = g_main_loop_new(NULL, FALSE);
    w->status = -1;
    g_signal_connect(w->c, "evaluations", G_CALLBACK(on_evaluations), w);
    g_signal_connect(w->c, "finished", G_CALLBACK(on_finished), w);
    guint ticker = g_timeout_add(10, tick, w);
    g_autoptr(GError) error = NULL;
    /* that the loop does not wait is checked by its turns while the work runs (no timing
     * threshold here: benches measure time) */
    gboolean started = esl_optimization_controller_start(w->c, &error);
    tap_ok(started && esl_optimization_controller_is_running(w->c),
           "the controller starts and is running when start returns%s",
           error ? error->message : "");
    if (started)
        g_main_loop_run(w->loop);
    g_source_remove(ticker);
    g_main_loop_unref(w->loop);
}

static void controller(const MbsModel *m)
{
    Seen direct;
    seen_init(&direct);
    EslOptimizerProblem p = five_bar_problem(m, ESL_OPTIMIZER_LBFGS, &direct);
    EslOptimizerResult r;
    esl_optimizer_run(&p, &r, NULL);

    Watch w = {0};
    watch(m, &settings, &w);
    const EslOptimizerResult *got = esl_optimization_controller_get_result(w.c);
    gboolean same = w.seen.psi->len == direct.psi->len && w.seen.indices_in_order;
    for (guint i = 0; same && i < direct.psi->len; i++)
        same = g_array_index(w.seen.psi, double, i) == g_array_index(direct.psi, double, i) &&
               g_array_index(w.seen.x, double, 2 * i) == g_array_index(direct.x, double, 2 * i);
    tap_ok(w.status == ESL_OPTIMIZER_CONVERGED && same && got->psi == r.psi &&
               got->x[0] == r.x[0] && got->x[1] == r.x[1] &&
               !esl_optimization_controller_is_running(w.c),
           "on the worker: converged, the same %u evaluations and result bit for bit",
           w.seen.psi->len);
    tap_ok(w.ticks >= 3, "the main loop turned %d times (10 ms timeout) while it ran", w.ticks);
    check_stored(w.c, &w.seen, ESL_RUN_FINISHED);
    int all = (int)w.seen.psi->len;
    g_object_unref(w.c);
    seen_clear(&w.seen);
    esl_optimizer_result_clear(&r);
    seen_clear(&direct);

    /* evaluations of ~50 ms (h = 1 ms, 2 s): the first delivery comes while more are to do */
    MbsSettings slow = settings;
    slow.step = 0.001;
    slow.duration = 2.0;
    Watch s = {.stop_first = TRUE};
    watch(m, &slow, &s);
    got = esl_optimization_controller_get_result(s.c);
    tap_ok(s.status == ESL_OPTIMIZER_STOPPED && got->status == ESL_OPTIMIZER_STOPPED &&
               got->evaluations >= 1 && got->evaluations == (int)s.seen.psi->len &&
               got->evaluations < all,
           "Stop from the first delivery: stopped after %d evaluations (of %d), each delivered",
           got->evaluations, all);
    check_stored(s.c, &s.seen, ESL_RUN_STOPPED);
    g_object_unref(s.c);
    seen_clear(&s.seen);

    /* refused at start, with the optimiser's message */
    EslOptimizerProblem bad = five_bar_problem(m, ESL_OPTIMIZER_LBFGS, NULL);
    bad.formulation = "ssode";
    EslOptimizationController *c = esl_optimization_controller_new(&bad, NULL);
    g_autoptr(GError) error = NULL;
    gboolean started = esl_optimization_controller_start(c, &error);
    tap_ok(!started && error && !esl_optimization_controller_is_running(c),
           "the controller refuses at start what the optimiser refuses: %s",
           error ? error->message : "");
    g_object_unref(c);
}

int main(void)
{
    g_autoptr(GError) error = NULL;
    g_autofree char *dir = g_dir_make_tmp("esl-optimizer-XXXXXX", NULL);
    project_path = g_build_filename(dir, "optimize.eslabon", NULL);
    MbsModel *m = esl_model_load_file(MODELS "five-bar.json", NULL, 0, &error);
    if (!tap_ok(m != NULL, "five-bar loads%s", error ? error->message : ""))
        return tap_done();
    mbs_settings_defaults(&settings);
    mbs_settings_for(&settings, mbs_formulation_find("penalty"));
    settings.step = 0.01;
    settings.duration = 1.0;
    parameters[0] = mbs_model_find_parameter(m, "Ls1");
    parameters[1] = mbs_model_find_parameter(m, "Ls2");
    converges(m, ESL_OPTIMIZER_LBFGS);
    converges(m, ESL_OPTIMIZER_SLSQP);
    stops_and_limits(m);
    refusals(m);
    controller(m);
    mbs_model_free(m);
    /* the project and what SQLite left beside it */
    GDir *made = g_dir_open(dir, 0, NULL);
    for (const char *name; made && (name = g_dir_read_name(made));) {
        g_autofree char *file = g_build_filename(dir, name, NULL);
        g_unlink(file);
    }
    if (made)
        g_dir_close(made);
    g_rmdir(dir);
    g_free(project_path);
    return tap_done();
}
