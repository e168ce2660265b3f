/* Sensitivity runs in the project store (schemas 7 to 9); see esl-project.h. */
#include "esl-project-private.h"
#include "eslabon-config.h"

#include <glib/gi18n-lib.h>

void esl_sensitivity_run_free(EslSensitivityRun *run)
{
    if (!run)
        return;
    g_free(run->method);
    g_free(run->method_options);
    g_strfreev(run->points);
    g_free(run->history_points);
    g_strfreev(run->objectives);
    g_strfreev(run->parameters);
    g_free(run->parameter_values);
    g_free(run->psi);
    g_free(run->gradient);
    g_free(run->times);
    g_free(run->history_psi);
    g_free(run->history_gradient);
    g_free(run->history_state);
    g_free(run);
}

/* The run is running and a sensitivity run; its sizes in *nobjectives, *nparameters. */
static gboolean sensitivity_sizes(EslProject *project, gint64 run_id, const char *what,
                                  int *nobjectives, int *nparameters, GError **error)
{
    EslProjectRunState run;
    if (!esl_project_running_run(project, run_id, what, &run, error))
        return FALSE;
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(project->db,
                           "SELECT nobjectives, nparameters FROM sensitivities WHERE run_id = ?",
                           -1, &st, NULL) != SQLITE_OK)
        return esl_project_db_error(project->db, "cannot read the sensitivity run", error);
    sqlite3_bind_int64(st, 1, run_id);
    gboolean found = sqlite3_step(st) == SQLITE_ROW;
    gint64 no = found ? sqlite3_column_int64(st, 0) : 0,
           np = found ? sqlite3_column_int64(st, 1) : 0;
    sqlite3_finalize(st);
    if (!found || no < 1 || np < 1 || no > ESL_PROJECT_MAX_NAMES || np > ESL_PROJECT_MAX_NAMES) {
        g_set_error(error, ESL_PROJECT_ERROR, found ? ESL_PROJECT_ERROR_CORRUPT :
                                                      ESL_PROJECT_ERROR_INVALID,
                    "run %" G_GINT64_FORMAT " %s: %s refused", run_id,
                    found ? "stores sensitivity sizes out of range" : "is not a sensitivity run",
                    what);
        return FALSE;
    }
    *nobjectives = (int)no;
    *nparameters = (int)np;
    return TRUE;
}

gboolean esl_project_begin_sensitivity(EslProject *project, gint64 run_id,
                                       const EslSensitivityRequest *r, GError **error)
{
    g_return_val_if_fail(project && r && r->method, FALSE);
    if (r->nobjectives < 1 || r->nparameters < 1 || r->nobjectives > ESL_PROJECT_MAX_NAMES ||
        r->nparameters > ESL_PROJECT_MAX_NAMES || !r->objectives || !r->parameters ||
        !r->parameter_values) {
        g_set_error(
            error, ESL_PROJECT_ERROR, ESL_PROJECT_ERROR_INVALID,
            _("a sensitivity run needs 1 to %d objectives and parameters (%d and %d given)"),
            ESL_PROJECT_MAX_NAMES, r->nobjectives, r->nparameters);
        return FALSE;
    }
    if (!esl_project_check_all_finite(r->parameter_values, r->nparameters, "the parameter values",
                                      error))
        return FALSE;
    if (r->npoints < 0 || r->npoints > ESL_PROJECT_MAX_STATE_SENSITIVITIES / 3 ||
        (r->npoints > 0 && !r->points)) {
        g_set_error(error, ESL_PROJECT_ERROR, ESL_PROJECT_ERROR_INVALID,
                    "a sensitivity run stores 0 to %d points (%d given)",
                    ESL_PROJECT_MAX_STATE_SENSITIVITIES / 3, r->npoints);
        return FALSE;
    }
    if (r->method_options && !esl_project_is_json_object(r->method_options)) {
        g_set_error(error, ESL_PROJECT_ERROR, ESL_PROJECT_ERROR_INVALID,
                    "the %s method's options are not a JSON object", r->method);
        return FALSE;
    }
    EslProjectRunState run;
    if (!esl_project_running_run(project, run_id, "a sensitivity record", &run, error))
        return FALSE;
    g_autofree char *objectives = esl_project_names_json(r->objectives, r->nobjectives);
    g_autofree char *parameters = esl_project_names_json(r->parameters, r->nparameters);
    g_autofree char *points = r->npoints > 0 ? esl_project_names_json(r->points, r->npoints) : NULL;
    g_autofree guint64 *scratch = g_new(guint64, r->nparameters);
    /* One statement: its own transaction. */
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(project->db,
                           "INSERT INTO sensitivities (run_id, method, nobjectives, nparameters,"
                           " objectives, parameters, parameter_values, method_options, points)"
                           " VALUES (?,?,?,?,?,?,?,?,?)",
                           -1, &st, NULL) != SQLITE_OK)
        return esl_project_db_error(project->db, "cannot store the sensitivity run", error);
    sqlite3_bind_int64(st, 1, run_id);
    sqlite3_bind_text(st, 2, r->method, -1, SQLITE_STATIC);
    sqlite3_bind_int(st, 3, r->nobjectives);
    sqlite3_bind_int(st, 4, r->nparameters);
    sqlite3_bind_text(st, 5, objectives, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 6, parameters, -1, SQLITE_STATIC);
    esl_project_bind_doubles(st, 7, r->parameter_values, r->nparameters, scratch);
    if (r->method_options)
        sqlite3_bind_text(st, 8, r->method_options, -1, SQLITE_STATIC);
    else
        sqlite3_bind_null(st, 8);
    if (points)
        sqlite3_bind_text(st, 9, points, -1, SQLITE_STATIC);
    else
        sqlite3_bind_null(st, 9);
    return esl_project_step_and_finalize(project->db, st, "cannot store the sensitivity run",
                                         error);
}

gboolean esl_project_append_sensitivity_history(EslProject *project, gint64 run_id,
                                                const double *times, const double *psi,
                                                const double *gradient, int n, GError **error)
{
    return esl_project_append_sensitivity_rows(project, run_id, times, psi, gradient, NULL, 0,
                                               NULL, n, error);
}

/* How many points a sensitivity run stores (its points column; 0 when none or unreadable); -1
 * with error. */
static int stored_points(EslProject *project, gint64 run_id, GError **error)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(project->db, "SELECT points FROM sensitivities WHERE run_id = ?", -1,
                           &st, NULL) != SQLITE_OK)
        return esl_project_db_error(project->db, "cannot read the sensitivity run", error), -1;
    sqlite3_bind_int64(st, 1, run_id);
    g_auto(GStrv) names =
        sqlite3_step(st) == SQLITE_ROW
            ? esl_project_names_from_json((const char *)sqlite3_column_text(st, 0), -1)
            : NULL;
    sqlite3_finalize(st);
    return names ? (int)g_strv_length(names) : 0;
}

gboolean esl_project_append_sensitivity_rows(EslProject *project, gint64 run_id,
                                             const double *times, const double *psi,
                                             const double *gradient, const double *state,
                                             int nstate, const double *points, int n,
                                             GError **error)
{
    g_return_val_if_fail(project && n >= 0 && (n == 0 || (times && psi && gradient)), FALSE);
    g_return_val_if_fail(nstate >= 0 && (nstate == 0 || state), FALSE);
    int no, np;
    if (!sensitivity_sizes(project, run_id, "sensitivity history", &no, &np, error))
        return FALSE;
    int ng = no * np;
    gsize ns = (gsize)nstate * np;
    int npoints = points ? stored_points(project, run_id, error) : 0;
    if (npoints < 0)
        return FALSE;
    if (points && npoints == 0) {
        g_set_error(error, ESL_PROJECT_ERROR, ESL_PROJECT_ERROR_INVALID,
                    "sensitivity run %" G_GINT64_FORMAT " stores no points", run_id);
        return FALSE;
    }
    gsize nr = (gsize)3 * npoints * np;
    if (nstate > ESL_PROJECT_MAX_STATE_SENSITIVITIES) {
        g_set_error(error, ESL_PROJECT_ERROR, ESL_PROJECT_ERROR_INVALID,
                    _("sensitivity history: %d coordinates, at most %d are stored"), nstate,
                    ESL_PROJECT_MAX_STATE_SENSITIVITIES);
        return FALSE;
    }
    /* Validate everything before writing anything. */
    for (int i = 0; i < n; i++) {
        g_autofree char *field = g_strdup_printf(_("sensitivity history row %d (t = %g s)"), i,
                                                 times[i]);
        if (!esl_project_check_all_finite(&times[i], 1, field, error) ||
            !esl_project_check_all_finite(psi + (gsize)i * no, no, field, error) ||
            !esl_project_check_all_finite(gradient + (gsize)i * ng, ng, field, error) ||
            (ns && !esl_project_check_all_finite(state + i * ns, (int)ns, field, error)) ||
            (nr && !esl_project_check_all_finite(points + i * nr, (int)nr, field, error)))
            return FALSE;
    }
    sqlite3 *db = project->db;
    sqlite3_stmt *st = NULL;
    gint64 seq = 0;
    gboolean ok =
        esl_project_exec_sql(db, "BEGIN IMMEDIATE", "cannot store sensitivity history", error);
    ok = ok &&
         esl_project_rows_of_run(db, "SELECT count(*) FROM sensitivity_history WHERE run_id = ?",
                                 run_id, &seq, "cannot store sensitivity history", error);
    if (ok && sqlite3_prepare_v2(db, "INSERT INTO sensitivity_history (run_id, seq, time, psi,"
                                     " gradient, state_sensitivity, point_sensitivity)"
                                     " VALUES (?,?,?,?,?,?,?)",
                                 -1, &st, NULL) != SQLITE_OK)
        ok = esl_project_db_error(db, "cannot store sensitivity history", error);
    g_autofree guint64 *scratch_psi = g_new(guint64, no);
    g_autofree guint64 *scratch_gradient = g_new(guint64, ng);
    g_autofree guint64 *scratch_state = g_new(guint64, MAX(ns, 1));
    g_autofree guint64 *scratch_points = g_new(guint64, MAX(nr, 1));
    for (int i = 0; ok && i < n; i++) {
        sqlite3_bind_int64(st, 1, run_id);
        sqlite3_bind_int64(st, 2, seq + i);
        sqlite3_bind_double(st, 3, times[i]);
        esl_project_bind_doubles(st, 4, psi + (gsize)i * no, no, scratch_psi);
        esl_project_bind_doubles(st, 5, gradient + (gsize)i * ng, ng, scratch_gradient);
        if (ns)
            esl_project_bind_doubles(st, 6, state + i * ns, (int)ns, scratch_state);
        else
            sqlite3_bind_null(st, 6);
        if (nr)
            esl_project_bind_doubles(st, 7, points + i * nr, (int)nr, scratch_points);
        else
            sqlite3_bind_null(st, 7);
        if (sqlite3_step(st) != SQLITE_DONE)
            ok = esl_project_db_error(db, "cannot store sensitivity history", error);
        sqlite3_reset(st);
    }
    sqlite3_finalize(st);
    if (ok)
        ok = esl_project_exec_sql(db, "COMMIT", "cannot store sensitivity history", error);
    if (!ok)
        esl_project_rollback(db);
    return ok;
}

gboolean esl_project_set_sensitivity_result(EslProject *project, gint64 run_id,
                                            const double *psi, const double *gradient,
                                            GError **error)
{
    g_return_val_if_fail(project && psi && gradient, FALSE);
    int no, np;
    if (!sensitivity_sizes(project, run_id, "sensitivity result", &no, &np, error) ||
        !esl_project_check_all_finite(psi, no, "psi", error) ||
        !esl_project_check_all_finite(gradient, no * np, "the gradient", error))
        return FALSE;
    g_autofree guint64 *scratch_psi = g_new(guint64, no);
    g_autofree guint64 *scratch_gradient = g_new(guint64, no * np);
    sqlite3_stmt *st = NULL; /* one statement: its own transaction */
    if (sqlite3_prepare_v2(project->db,
                           "UPDATE sensitivities SET psi = ?, gradient = ? WHERE run_id = ?", -1,
                           &st, NULL) != SQLITE_OK)
        return esl_project_db_error(project->db, "cannot store the gradient", error);
    esl_project_bind_doubles(st, 1, psi, no, scratch_psi);
    esl_project_bind_doubles(st, 2, gradient, no * np, scratch_gradient);
    sqlite3_bind_int64(st, 3, run_id);
    return esl_project_step_and_finalize(project->db, st, "cannot store the gradient", error);
}

gboolean esl_project_run_is_sensitivity(EslProject *project, gint64 run_id)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(project->db, "SELECT 1 FROM sensitivities WHERE run_id = ?", -1, &st,
                           NULL) != SQLITE_OK)
        return FALSE;
    sqlite3_bind_int64(st, 1, run_id);
    gboolean found = sqlite3_step(st) == SQLITE_ROW;
    sqlite3_finalize(st);
    return found;
}

static EslSensitivityRun *sensitivity_corrupt(EslSensitivityRun *run, gint64 run_id,
                                              const char *what, GError **error)
{
    g_set_error(error, ESL_PROJECT_ERROR, ESL_PROJECT_ERROR_CORRUPT,
                "sensitivity run %" G_GINT64_FORMAT " is corrupt: %s", run_id, what);
    esl_sensitivity_run_free(run);
    return NULL;
}

/* A per-row BLOB of count x nparameters doubles (column col of row r->n) into *values: the
 * first row that has one sets *count and allocates for every row; FALSE when a BLOB is not a
 * whole number of count's, differs from the first, or the whole would not fit the file. The
 * coordinates' d q / d rho and the points' d r / d rho are read so. */
static gboolean blob_row(sqlite3_stmt *st, int col, EslSensitivityRun *r, int *count,
                         double **values, int *with, gint64 rows, gint64 file_bytes)
{
    if (sqlite3_column_type(st, col) == SQLITE_NULL)
        return TRUE;
    gint64 bytes = sqlite3_column_bytes(st, col), per_count = 8 * (gint64)r->nparameters;
    if (bytes <= 0 || bytes % per_count)
        return FALSE;
    gint64 n = bytes / per_count;
    if (!*count) {
        if (n > ESL_PROJECT_MAX_STATE_SENSITIVITIES || rows * bytes > file_bytes)
            return FALSE; /* a row count the file cannot hold would allocate for nothing */
        *count = (int)n;
        *values = g_new0(double, (gsize)rows * n * r->nparameters);
    }
    if (n != *count)
        return FALSE;
    gsize per_row = (gsize)*count * r->nparameters;
    if (!esl_project_column_doubles(st, col, *values + (gsize)r->n * per_row, (int)per_row))
        return FALSE;
    (*with)++;
    return TRUE;
}

EslSensitivityRun *esl_project_load_sensitivity(EslProject *project, gint64 run_id,
                                                GError **error)
{
    sqlite3 *db = project->db;
    sqlite3_stmt *st = esl_project_record_of_run(
        project, run_id,
        "SELECT method, nobjectives, nparameters, objectives, parameters, parameter_values, psi,"
        " gradient, (SELECT count(*) FROM sensitivity_history WHERE run_id = ?1),"
        " method_options, points FROM sensitivities WHERE run_id = ?1",
        "a sensitivity run", error);
    if (!st)
        return NULL;
    EslSensitivityRun *r = g_new0(EslSensitivityRun, 1);
    r->method = esl_project_column_text(st, 0);
    r->method_options = esl_project_column_text(st, 9);
    gint64 no = sqlite3_column_int64(st, 1), np = sqlite3_column_int64(st, 2);
    gint64 rows = sqlite3_column_int64(st, 8);
    if (no < 1 || np < 1 || no > ESL_PROJECT_MAX_NAMES || np > ESL_PROJECT_MAX_NAMES ||
        no * np > G_MAXINT / 8) {
        sqlite3_finalize(st);
        return sensitivity_corrupt(r, run_id, "objective or parameter count out of range", error);
    }
    const char *points = (const char *)sqlite3_column_text(st, 10);
    r->points = points ? esl_project_names_from_json(points, -1) : NULL;
    gint64 npoints = r->points ? g_strv_length(r->points) : 0;
    if (points && (npoints < 1 || npoints > ESL_PROJECT_MAX_STATE_SENSITIVITIES / 3)) {
        sqlite3_finalize(st);
        return sensitivity_corrupt(r, run_id, "its points are not a list of names", error);
    }
    r->npoints = (int)npoints;
    if (r->method_options && !esl_project_is_json_object(r->method_options)) {
        sqlite3_finalize(st);
        return sensitivity_corrupt(r, run_id, "the method's options are not a JSON object",
                                   error);
    }
    r->nobjectives = (int)no;
    r->nparameters = (int)np;
    int ng = r->nobjectives * r->nparameters;
    /* Each history row's BLOBs are checked below; the total must fit what the file holds. */
    gint64 file_bytes = esl_project_disk_size(project);
    if (rows < 0 || rows > G_MAXINT || (gint64)rows * (1 + no + ng) * 8 > file_bytes) {
        sqlite3_finalize(st);
        return sensitivity_corrupt(r, run_id, "more history than the file holds", error);
    }
    r->objectives =
        esl_project_names_from_json((const char *)sqlite3_column_text(st, 3), r->nobjectives);
    r->parameters =
        esl_project_names_from_json((const char *)sqlite3_column_text(st, 4), r->nparameters);
    r->parameter_values = g_new(double, r->nparameters);
    gboolean ok = r->objectives && r->parameters &&
                  esl_project_column_doubles(st, 5, r->parameter_values, r->nparameters);
    if (ok && sqlite3_column_type(st, 6) != SQLITE_NULL) {
        r->psi = g_new(double, r->nobjectives);
        r->gradient = g_new(double, ng);
        ok = esl_project_column_doubles(st, 6, r->psi, r->nobjectives) &&
             esl_project_column_doubles(st, 7, r->gradient, ng);
    }
    sqlite3_finalize(st);
    if (!ok)
        return sensitivity_corrupt(r, run_id, "names, values, psi or gradient of the wrong size",
                                   error);
    r->times = g_new(double, rows);
    r->history_psi = g_new(double, (gsize)rows * no);
    r->history_gradient = g_new(double, (gsize)rows * ng);
    if (sqlite3_prepare_v2(db, "SELECT time, psi, gradient, state_sensitivity, point_sensitivity"
                               " FROM sensitivity_history WHERE run_id = ? ORDER BY seq",
                           -1, &st, NULL) != SQLITE_OK) {
        esl_sensitivity_run_free(r);
        return esl_project_db_error(db, "cannot read the sensitivity history", error), NULL;
    }
    sqlite3_bind_int64(st, 1, run_id);
    int rc, point_outputs = 0, point_rows = 0;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW && r->n < rows) {
        r->times[r->n] = sqlite3_column_double(st, 0);
        if (!esl_project_column_doubles(st, 1, r->history_psi + (gsize)r->n * no, r->nobjectives) ||
            !esl_project_column_doubles(st, 2, r->history_gradient + (gsize)r->n * ng, ng) ||
            !blob_row(st, 3, r, &r->nstate, &r->history_state, &r->state_rows, rows,
                      file_bytes) ||
            !blob_row(st, 4, r, &point_outputs, &r->history_points, &point_rows, rows,
                      file_bytes) ||
            (point_outputs && point_outputs != 3 * r->npoints)) {
            sqlite3_finalize(st);
            g_autofree char *what = g_strdup_printf(_("history row %d has the wrong size"), r->n);
            return sensitivity_corrupt(r, run_id, what, error);
        }
        r->n++;
    }
    if (r->nstate && r->state_rows < r->n) { /* some rows without: none is replayed */
        g_clear_pointer(&r->history_state, g_free);
        r->nstate = 0;
    }
    if (point_rows < r->n) /* likewise */
        g_clear_pointer(&r->history_points, g_free);
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE && rc != SQLITE_ROW) {
        esl_sensitivity_run_free(r);
        return esl_project_db_error(db, "cannot read the sensitivity history", error), NULL;
    }
    return r;
}
