/* Optimisations in the project store (schema 10); see esl-project.h. */
#include "esl-project-private.h"

void esl_optimization_run_free(EslOptimizationRun *run)
{
    if (!run)
        return;
    g_free(run->objective);
    g_free(run->method);
    g_free(run->method_options);
    g_free(run->algorithm);
    g_strfreev(run->parameters);
    g_free(run->lower);
    g_free(run->upper);
    g_free(run->start);
    g_free(run->result);
    g_free(run->x);
    g_free(run->gradient);
    g_free(run->history_psi);
    g_free(run->history_gradient);
    g_free(run->history_x);
    g_free(run);
}

/* The run is running and an optimisation; its parameter count in *nparameters. */
static gboolean optimization_size(EslProject *project, gint64 run_id, const char *what,
                                  int *nparameters, GError **error)
{
    EslProjectRunState run;
    if (!esl_project_running_run(project, run_id, what, &run, error))
        return FALSE;
    gint64 np = 0;
    gboolean found = esl_project_rows_of_run(project->db,
                                 "SELECT nparameters FROM optimizations WHERE run_id = ?",
                                 run_id, &np, "cannot read the optimisation", NULL);
    if (!found || np < 1 || np > ESL_PROJECT_MAX_NAMES) {
        g_set_error(error, ESL_PROJECT_ERROR,
                    found ? ESL_PROJECT_ERROR_CORRUPT : ESL_PROJECT_ERROR_INVALID,
                    "run %" G_GINT64_FORMAT " %s: %s refused", run_id,
                    found ? "stores a parameter count out of range" : "is not an optimisation",
                    what);
        return FALSE;
    }
    *nparameters = (int)np;
    return TRUE;
}

gboolean esl_project_begin_optimization(EslProject *project, gint64 run_id,
                                        const EslOptimizationRequest *r, GError **error)
{
    g_return_val_if_fail(project && r && r->objective && r->method && r->algorithm, FALSE);
    int np = r->nparameters;
    if (np < 1 || np > ESL_PROJECT_MAX_NAMES || !r->parameters || !r->lower || !r->upper ||
        !r->start) {
        g_set_error(error, ESL_PROJECT_ERROR, ESL_PROJECT_ERROR_INVALID,
                    "an optimisation needs 1 to %d parameters with bounds and a start (%d given)",
                    ESL_PROJECT_MAX_NAMES, np);
        return FALSE;
    }
    if (!esl_project_check_all_finite(r->lower, np, "the lower bounds", error) ||
        !esl_project_check_all_finite(r->upper, np, "the upper bounds", error) ||
        !esl_project_check_all_finite(r->start, np, "the start", error) ||
        !esl_project_check_all_finite(&r->xtol, 1, "xtol", error))
        return FALSE;
    if (r->method_options && !esl_project_is_json_object(r->method_options)) {
        g_set_error(error, ESL_PROJECT_ERROR, ESL_PROJECT_ERROR_INVALID,
                    "the %s method's options are not a JSON object", r->method);
        return FALSE;
    }
    EslProjectRunState run;
    if (!esl_project_running_run(project, run_id, "an optimisation record", &run, error))
        return FALSE;
    g_autofree char *parameters = esl_project_names_json(r->parameters, np);
    g_autofree guint64 *scratch = g_new(guint64, 3 * (gsize)np);
    sqlite3_stmt *st = NULL; /* one statement: its own transaction */
    if (sqlite3_prepare_v2(project->db,
                           "INSERT INTO optimizations (run_id, objective, method, method_options,"
                           " algorithm, max_evaluations, xtol, nparameters, parameters, lower,"
                           " upper, start) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
                           -1, &st, NULL) != SQLITE_OK)
        return esl_project_db_error(project->db, "cannot store the optimisation", error);
    sqlite3_bind_int64(st, 1, run_id);
    sqlite3_bind_text(st, 2, r->objective, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 3, r->method, -1, SQLITE_STATIC);
    if (r->method_options)
        sqlite3_bind_text(st, 4, r->method_options, -1, SQLITE_STATIC);
    else
        sqlite3_bind_null(st, 4);
    sqlite3_bind_text(st, 5, r->algorithm, -1, SQLITE_STATIC);
    sqlite3_bind_int(st, 6, r->max_evaluations);
    sqlite3_bind_double(st, 7, r->xtol);
    sqlite3_bind_int(st, 8, np);
    sqlite3_bind_text(st, 9, parameters, -1, SQLITE_STATIC);
    esl_project_bind_doubles(st, 10, r->lower, np, scratch);
    esl_project_bind_doubles(st, 11, r->upper, np, scratch + np);
    esl_project_bind_doubles(st, 12, r->start, np, scratch + 2 * np);
    return esl_project_step_and_finalize(project->db, st, "cannot store the optimisation", error);
}

gboolean esl_project_append_optimization_evaluation(EslProject *project, gint64 run_id,
                                                    double psi, const double *gradient,
                                                    const double *x, GError **error)
{
    g_return_val_if_fail(project && gradient && x, FALSE);
    int np;
    if (!optimization_size(project, run_id, "an evaluation", &np, error) ||
        !esl_project_check_all_finite(&psi, 1, "psi", error) ||
        !esl_project_check_all_finite(gradient, np, "the gradient", error) ||
        !esl_project_check_all_finite(x, np, "the parameters", error))
        return FALSE;
    sqlite3 *db = project->db;
    sqlite3_stmt *st = NULL;
    gint64 seq = 0;
    g_autofree guint64 *scratch = g_new(guint64, 2 * (gsize)np);
    gboolean ok =
        esl_project_exec_sql(db, "BEGIN IMMEDIATE", "cannot store the evaluation", error) &&
        esl_project_rows_of_run(db,
                                "SELECT count(*) FROM optimization_evaluations WHERE run_id = ?",
                                run_id, &seq, "cannot store the evaluation", error);
    if (ok && sqlite3_prepare_v2(db, "INSERT INTO optimization_evaluations (run_id, seq, psi,"
                                     " gradient, x) VALUES (?,?,?,?,?)",
                                 -1, &st, NULL) != SQLITE_OK)
        ok = esl_project_db_error(db, "cannot store the evaluation", error);
    if (ok) {
        sqlite3_bind_int64(st, 1, run_id);
        sqlite3_bind_int64(st, 2, seq);
        sqlite3_bind_double(st, 3, psi);
        esl_project_bind_doubles(st, 4, gradient, np, scratch);
        esl_project_bind_doubles(st, 5, x, np, scratch + np);
        ok = esl_project_step_and_finalize(db, st, "cannot store the evaluation", error) &&
             esl_project_exec_sql(db, "COMMIT", "cannot store the evaluation", error);
    }
    if (!ok)
        esl_project_rollback(db);
    return ok;
}

gboolean esl_project_set_optimization_result(EslProject *project, gint64 run_id,
                                             const char *result, double psi, const double *x,
                                             const double *gradient, GError **error)
{
    g_return_val_if_fail(project && result && (x == NULL) == (gradient == NULL), FALSE);
    int np;
    if (!optimization_size(project, run_id, "the result", &np, error) ||
        (x && (!esl_project_check_all_finite(&psi, 1, "psi", error) ||
               !esl_project_check_all_finite(x, np, "the best parameters", error) ||
               !esl_project_check_all_finite(gradient, np, "the gradient", error))))
        return FALSE;
    g_autofree guint64 *scratch = g_new(guint64, 2 * (gsize)np);
    sqlite3_stmt *st = NULL; /* one statement: its own transaction */
    if (sqlite3_prepare_v2(project->db,
                           "UPDATE optimizations SET result = ?, psi = ?, x = ?, gradient = ?"
                           " WHERE run_id = ?",
                           -1, &st, NULL) != SQLITE_OK)
        return esl_project_db_error(project->db, "cannot store the optimisation's result", error);
    sqlite3_bind_text(st, 1, result, -1, SQLITE_STATIC);
    if (x)
        sqlite3_bind_double(st, 2, psi);
    else
        sqlite3_bind_null(st, 2);
    esl_project_bind_doubles(st, 3, x, x ? np : 0, scratch);
    esl_project_bind_doubles(st, 4, gradient, x ? np : 0, scratch + np);
    sqlite3_bind_int64(st, 5, run_id);
    return esl_project_step_and_finalize(project->db, st, "cannot store the optimisation's result",
                                         error);
}

gboolean esl_project_run_is_optimization(EslProject *project, gint64 run_id)
{
    gint64 found = 0;
    return esl_project_rows_of_run(project->db,
                                   "SELECT count(*) FROM optimizations WHERE run_id = ?", run_id,
                                   &found, "cannot read the run", NULL) &&
           found > 0;
}

static EslOptimizationRun *optimization_corrupt(EslOptimizationRun *run, gint64 run_id,
                                                const char *what, GError **error)
{
    g_set_error(error, ESL_PROJECT_ERROR, ESL_PROJECT_ERROR_CORRUPT,
                "optimisation %" G_GINT64_FORMAT " is corrupt: %s", run_id, what);
    esl_optimization_run_free(run);
    return NULL;
}

/* The evaluations of run r (rows of them, counted before) into r's history; FALSE when one
 * has the wrong size. */
static gboolean load_evaluations(sqlite3 *db, gint64 run_id, EslOptimizationRun *r, gint64 rows,
                                 GError **error)
{
    int np = r->nparameters;
    r->history_psi = g_new(double, MAX(rows, 1));
    r->history_gradient = g_new(double, (gsize)MAX(rows, 1) * np);
    r->history_x = g_new(double, (gsize)MAX(rows, 1) * np);
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db, "SELECT psi, gradient, x FROM optimization_evaluations"
                               " WHERE run_id = ? ORDER BY seq",
                           -1, &st, NULL) != SQLITE_OK)
        return esl_project_db_error(db, "cannot read the evaluations", error);
    sqlite3_bind_int64(st, 1, run_id);
    int rc;
    gboolean ok = TRUE;
    while (ok && (rc = sqlite3_step(st)) == SQLITE_ROW && r->n < rows) {
        r->history_psi[r->n] = sqlite3_column_double(st, 0);
        ok = esl_project_column_doubles(st, 1, r->history_gradient + (gsize)r->n * np, np) &&
             esl_project_column_doubles(st, 2, r->history_x + (gsize)r->n * np, np);
        r->n += ok;
    }
    sqlite3_finalize(st);
    if (!ok)
        g_set_error(error, ESL_PROJECT_ERROR, ESL_PROJECT_ERROR_CORRUPT,
                    "optimisation %" G_GINT64_FORMAT " is corrupt: evaluation %d has the wrong "
                    "size", run_id, r->n + 1);
    else if (rc != SQLITE_DONE && rc != SQLITE_ROW)
        ok = esl_project_db_error(db, "cannot read the evaluations", error);
    return ok;
}

EslOptimizationRun *esl_project_load_optimization(EslProject *project, gint64 run_id,
                                                  GError **error)
{
    sqlite3 *db = project->db;
    sqlite3_stmt *st = esl_project_record_of_run(
        project, run_id,
        "SELECT objective, method, method_options, algorithm, max_evaluations, xtol, nparameters,"
        " parameters, lower, upper, start, result, psi, x, gradient,"
        " (SELECT count(*) FROM optimization_evaluations WHERE run_id = ?1)"
        " FROM optimizations WHERE run_id = ?1",
        "an optimisation", error);
    if (!st)
        return NULL;
    EslOptimizationRun *r = g_new0(EslOptimizationRun, 1);
    r->objective = esl_project_column_text(st, 0);
    r->method = esl_project_column_text(st, 1);
    r->method_options = esl_project_column_text(st, 2);
    r->algorithm = esl_project_column_text(st, 3);
    r->max_evaluations = sqlite3_column_int(st, 4);
    r->xtol = sqlite3_column_double(st, 5);
    gint64 np = sqlite3_column_int64(st, 6), rows = sqlite3_column_int64(st, 15);
    r->result = esl_project_column_text(st, 11);
    const char *problem = NULL;
    if (np < 1 || np > ESL_PROJECT_MAX_NAMES)
        problem = "parameter count out of range";
    else if (r->method_options && !esl_project_is_json_object(r->method_options))
        problem = "the method's options are not a JSON object";
    else if (rows < 0 || rows > G_MAXINT ||
             rows * (1 + 2 * np) * 8 > esl_project_disk_size(project))
        problem = "more evaluations than the file holds";
    if (!problem) {
        r->nparameters = (int)np;
        r->parameters =
            esl_project_names_from_json((const char *)sqlite3_column_text(st, 7), r->nparameters);
        r->lower = g_new(double, np);
        r->upper = g_new(double, np);
        r->start = g_new(double, np);
        if (!r->parameters || !esl_project_column_doubles(st, 8, r->lower, r->nparameters) ||
            !esl_project_column_doubles(st, 9, r->upper, r->nparameters) ||
            !esl_project_column_doubles(st, 10, r->start, r->nparameters))
            problem = "names, bounds or start of the wrong size";
    }
    if (!problem && sqlite3_column_type(st, 13) != SQLITE_NULL) {
        r->psi = sqlite3_column_double(st, 12);
        r->x = g_new(double, np);
        r->gradient = g_new(double, np);
        if (!esl_project_column_doubles(st, 13, r->x, r->nparameters) ||
            !esl_project_column_doubles(st, 14, r->gradient, r->nparameters))
            problem = "best point of the wrong size";
    }
    sqlite3_finalize(st);
    if (problem)
        return optimization_corrupt(r, run_id, problem, error);
    if (!load_evaluations(db, run_id, r, rows, error)) {
        esl_optimization_run_free(r);
        return NULL;
    }
    return r;
}
