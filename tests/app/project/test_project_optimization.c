/* Optimisations in a project (schema 10): exact round trip of the request, every evaluation
 * and the result; listed with their objective; non-finite numbers and runs that are not
 * optimisations refused; migration from schema 9; stored sizes that do not match refused on
 * load (CORRUPT), the file still opening. */
#include <glib/gstdio.h>
#include <math.h>
#include <sqlite3.h>
#include <string.h>

#include "esl-project.h"
#include "tap.h"

static char *tmpdir;
enum { NP = 3, EVALUATIONS = 25 };
static const char *const names[NP] = {"Ls1", "Ls2", "m_A1"};
static const double lower[NP] = {1.1180339887498949, 1.0307764064044151, 0.5};
static const double upper[NP] = {3.3541019662496847, 3.0923292192132454, 1.0 / 0.7};
static const double start[NP] = {2.23606797749979, 2.0615528128088303, 1.0 / 3.0};

static char *tmp_path(const char *name)
{
    return g_build_filename(tmpdir, name, NULL);
}

static gboolean sql(const char *path, const char *statements)
{
    sqlite3 *db = NULL;
    int rc = sqlite3_open(path, &db);
    rc = rc == SQLITE_OK ? sqlite3_exec(db, statements, NULL, NULL, NULL) : rc;
    sqlite3_close(db);
    return rc == SQLITE_OK;
}

/* Evaluation i: awkward numbers so that any rounding shows. */
static void make_evaluation(int i, double *psi, double gradient[NP], double x[NP])
{
    *psi = exp(-i) / 3.0;
    for (int k = 0; k < NP; k++) {
        gradient[k] = sin(i + k) / 7.0;
        x[k] = start[k] + cos(0.3 * i + k) / 11.0;
    }
}

static gint64 begin(EslProject *p, GError **error)
{
    EslRunRequest req = {.model_name = "five-bar", .formulation = "penalty"};
    mbs_settings_defaults(&req.settings);
    req.settings.step = 0.01;
    req.settings.duration = 1.0;
    gint64 run = esl_project_begin_run(p, &req, error);
    EslOptimizationRequest r = {.objective = "psi1", .method = "direct", .method_options = "{}",
                                .algorithm = "lbfgs", .max_evaluations = 40, .xtol = 1e-8 / 3,
                                .nparameters = NP, .parameters = names, .lower = lower,
                                .upper = upper, .start = start};
    return run && esl_project_begin_optimization(p, run, &r, error) ? run : 0;
}

static void test_round_trip(void)
{
    g_autofree char *path = tmp_path("optimize.eslabon");
    g_autoptr(GError) error = NULL;
    EslProject *p = esl_project_open(path, TRUE, &error);
    gint64 run = p ? begin(p, &error) : 0;
    if (!tap_ok(run > 0, "an optimisation begins%s%s", error ? ": " : "",
                error ? error->message : ""))
        return;
    double psi, gradient[NP], x[NP];
    gboolean stored = TRUE;
    for (int i = 0; i < EVALUATIONS; i++) {
        make_evaluation(i, &psi, gradient, x);
        stored &= esl_project_append_optimization_evaluation(p, run, psi, gradient, x, &error);
    }
    make_evaluation(EVALUATIONS - 1, &psi, gradient, x);
    stored &= esl_project_set_optimization_result(p, run, "converged", psi, x, gradient, &error) &&
              esl_project_finish_run(p, run, ESL_RUN_FINISHED, NULL, NULL, 0.5, &error);
    tap_ok(stored, "%d evaluations and the result stored, the run finished%s%s", EVALUATIONS,
           error ? ": " : "", error ? error->message : "");
    esl_project_close(p);

    p = esl_project_open(path, FALSE, &error);
    g_autoptr(GPtrArray) runs = p ? esl_project_list_runs(p, &error) : NULL;
    const EslRunInfo *info = runs && runs->len == 1 ? runs->pdata[0] : NULL;
    tap_ok(info && info->status == ESL_RUN_FINISHED &&
               !g_strcmp0(info->optimization_objective, "psi1") && !info->sensitivity_method &&
               p && esl_project_run_is_optimization(p, run) &&
               !esl_project_run_is_sensitivity(p, run),
           "it lists as a finished optimisation of psi1, not a sensitivity run");
    g_autoptr(EslOptimizationRun) o = p ? esl_project_load_optimization(p, run, &error) : NULL;
    tap_ok(o && !g_strcmp0(o->objective, "psi1") && !g_strcmp0(o->method, "direct") &&
               !g_strcmp0(o->method_options, "{}") && !g_strcmp0(o->algorithm, "lbfgs") &&
               o->max_evaluations == 40 && o->xtol == 1e-8 / 3 && o->nparameters == NP &&
               !g_strcmp0(o->parameters[2], "m_A1") && !memcmp(o->lower, lower, sizeof lower) &&
               !memcmp(o->upper, upper, sizeof upper) && !memcmp(o->start, start, sizeof start),
           "the request round trips bit for bit%s%s", error ? ": " : "",
           error ? error->message : "");
    gboolean same = o && o->n == EVALUATIONS;
    for (int i = 0; same && i < EVALUATIONS; i++) {
        make_evaluation(i, &psi, gradient, x);
        same = o->history_psi[i] == psi &&
               !memcmp(o->history_gradient + i * NP, gradient, sizeof gradient) &&
               !memcmp(o->history_x + i * NP, x, sizeof x);
    }
    tap_ok(same, "the %d evaluations round trip bit for bit", o ? o->n : -1);
    tap_ok(o && !g_strcmp0(o->result, "converged") && o->psi == psi && o->x &&
               !memcmp(o->x, x, sizeof x) && !memcmp(o->gradient, gradient, sizeof gradient),
           "the result: converged at the last evaluation");

    /* refusals: non-finite numbers, a finished run, a run that is not an optimisation */
    double nan_x[NP] = {1.0, NAN, 2.0};
    EslRunRequest req = {.model_name = "m", .formulation = "penalty"};
    mbs_settings_defaults(&req.settings);
    gint64 plain = esl_project_begin_run(p, &req, NULL);
    gint64 other = begin(p, NULL);
    g_clear_error(&error);
    gboolean nan_refused =
        !esl_project_append_optimization_evaluation(p, other, 1.0, gradient, nan_x, &error) &&
        error && strstr(error->message, "entry 1 is nan");
    g_clear_error(&error);
    gboolean finished_refused =
        !esl_project_append_optimization_evaluation(p, run, 1.0, gradient, x, &error) && error;
    g_clear_error(&error);
    gboolean plain_refused =
        !esl_project_append_optimization_evaluation(p, plain, 1.0, gradient, x, &error) &&
        error && strstr(error->message, "is not an optimisation");
    EslOptimizationRequest inf = {.objective = "psi1", .method = "direct", .algorithm = "lbfgs",
                                  .nparameters = NP, .parameters = names, .lower = lower,
                                  .upper = (const double[NP]){3.0, INFINITY, 1.0},
                                  .start = start};
    g_clear_error(&error);
    gboolean inf_refused = !esl_project_begin_optimization(p, plain, &inf, &error) && error &&
                           !esl_project_run_is_optimization(p, plain);
    g_autoptr(EslOptimizationRun) none = esl_project_load_optimization(p, other, NULL);
    tap_ok(nan_refused && finished_refused && plain_refused && inf_refused && none &&
               none->n == 0 && !none->result && !none->x,
           "refused: a NaN parameter, an evaluation of a finished run, of a run that is not an "
           "optimisation, an infinite bound (%s); nothing of them stored",
           error ? error->message : "");
    esl_project_close(p);

    /* stored sizes that do not match: refused on load, the file still opens */
    g_autofree char *edit = g_strdup_printf(
        "UPDATE optimization_evaluations SET x = zeroblob(20) WHERE run_id = %" G_GINT64_FORMAT
        " AND seq = 7; UPDATE optimizations SET nparameters = 0 WHERE run_id = %" G_GINT64_FORMAT
        "; PRAGMA journal_mode = DELETE", run, other);
    sql(path, edit);
    p = esl_project_open(path, FALSE, &error);
    g_clear_error(&error);
    g_autoptr(EslOptimizationRun) bad = p ? esl_project_load_optimization(p, run, &error) : NULL;
    tap_ok(p && !bad && error && error->code == ESL_PROJECT_ERROR_CORRUPT &&
               strstr(error->message, "evaluation 8"),
           "an x of 20 bytes refused on load: %s", error ? error->message : "");
    g_clear_error(&error);
    g_autoptr(EslOptimizationRun) zero = p ? esl_project_load_optimization(p, other, &error)
                                           : NULL;
    tap_ok(!zero && error && error->code == ESL_PROJECT_ERROR_CORRUPT,
           "a parameter count of 0 refused on load: %s", error ? error->message : "");
    esl_project_close(p);
}

/* A schema-9 project (made by removing what migration 10 adds) migrates on open. */
static void test_migration_from_9(void)
{
    g_autofree char *path = tmp_path("schema9.eslabon");
    g_autoptr(GError) error = NULL;
    EslProject *p = esl_project_open(path, TRUE, &error);
    EslRunRequest req = {.model_name = "m", .formulation = "penalty"};
    mbs_settings_defaults(&req.settings);
    gint64 old = p ? esl_project_begin_run(p, &req, &error) : 0;
    esl_project_finish_run(p, old, ESL_RUN_FINISHED, NULL, NULL, 1.0, NULL);
    esl_project_close(p);
    tap_ok(old && sql(path, "DROP TABLE optimization_evaluations; DROP TABLE optimizations;"
                            "DROP TABLE run_provenance; DROP TABLE advice;"
                            "DELETE FROM schema_migrations WHERE version >= 10;"
                            "PRAGMA user_version = 9; PRAGMA journal_mode = DELETE"),
           "a schema-9 project made");
    p = esl_project_open(path, FALSE, &error);
    g_autoptr(EslRunInfo) info = p ? esl_project_get_run(p, old, &error) : NULL;
    tap_ok(info && info->status == ESL_RUN_FINISHED && !info->optimization_objective &&
               !esl_project_run_is_optimization(p, old),
           "migrated to schema %d: the old run reads as before%s%s", ESL_PROJECT_SCHEMA_VERSION,
           error ? ": " : "", error ? error->message : "");
    gint64 run = p ? begin(p, &error) : 0;
    tap_ok(run > 0, "and the migrated project stores optimisations%s%s", error ? ": " : "",
           error ? error->message : "");
    esl_project_close(p);
    sqlite3 *db = NULL;
    sqlite3_stmt *st = NULL;
    sqlite3_open(path, &db);
    sqlite3_prepare_v2(db, "SELECT (SELECT user_version FROM pragma_user_version),"
                           " (SELECT max(version) FROM schema_migrations)", -1, &st, NULL);
    gboolean row = sqlite3_step(st) == SQLITE_ROW;
    tap_ok(row && sqlite3_column_int(st, 0) == ESL_PROJECT_SCHEMA_VERSION &&
               sqlite3_column_int(st, 1) == ESL_PROJECT_SCHEMA_VERSION,
           "user_version and schema_migrations record the migrations up to %d",
           ESL_PROJECT_SCHEMA_VERSION);
    sqlite3_finalize(st);
    sqlite3_close(db);
}

int main(void)
{
    tmpdir = g_dir_make_tmp("esl-project-opt-XXXXXX", NULL);
    test_round_trip();
    test_migration_from_9();
    const char *files[] = {"optimize.eslabon", "optimize.eslabon-wal", "optimize.eslabon-shm",
                           "schema9.eslabon", "schema9.eslabon-wal", "schema9.eslabon-shm"};
    for (size_t i = 0; i < G_N_ELEMENTS(files); i++) {
        g_autofree char *f = tmp_path(files[i]);
        g_unlink(f);
    }
    g_rmdir(tmpdir);
    return tap_done();
}
