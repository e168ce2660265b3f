/* The formulation advisor's studies in a project (schema 12); see esl-project.h. */
#include "esl-project-private.h"

void esl_stored_advice_free(EslStoredAdvice *a)
{
    if (!a)
        return;
    g_free(a->created_at);
    g_free(a->model);
    g_free(a->quantity);
    g_free(a->json);
    g_free(a);
}

gint64 esl_project_add_advice(EslProject *project, const char *model, const char *quantity,
                              const char *json, GError **error)
{
    if (!json || !esl_project_is_json_object(json)) {
        g_set_error(error, ESL_PROJECT_ERROR, ESL_PROJECT_ERROR_INVALID,
                    "an advice is a JSON object");
        return 0;
    }
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(project->db,
                           "INSERT INTO advice (created_at, model, quantity, json)"
                           " VALUES (strftime('%Y-%m-%dT%H:%M:%SZ', 'now'), ?, ?, ?)",
                           -1, &st, NULL) != SQLITE_OK)
        return esl_project_db_error(project->db, "cannot store the advice", error), 0;
    sqlite3_bind_text(st, 1, model ? model : "", -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 2, quantity ? quantity : "", -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 3, json, -1, SQLITE_TRANSIENT);
    if (!esl_project_step_and_finalize(project->db, st, "cannot store the advice", error))
        return 0;
    return sqlite3_last_insert_rowid(project->db);
}

GPtrArray *esl_project_list_advice(EslProject *project, GError **error)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(project->db,
                           "SELECT id, created_at, model, quantity, json FROM advice ORDER BY id",
                           -1, &st, NULL) != SQLITE_OK)
        return esl_project_db_error(project->db, "cannot read the advice", error), NULL;
    GPtrArray *list = g_ptr_array_new_with_free_func((GDestroyNotify)esl_stored_advice_free);
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        EslStoredAdvice *a = g_new0(EslStoredAdvice, 1);
        a->id = sqlite3_column_int64(st, 0);
        a->created_at = esl_project_column_text(st, 1);
        a->model = esl_project_column_text(st, 2);
        a->quantity = esl_project_column_text(st, 3);
        a->json = esl_project_column_text(st, 4);
        g_ptr_array_add(list, a);
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) {
        g_ptr_array_unref(list);
        return esl_project_db_error(project->db, "cannot read the advice", error), NULL;
    }
    return list;
}
