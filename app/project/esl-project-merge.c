/* Run provenance and merging projects (schema 11, issue 25): the shards of a study, one
 * project per case written by a local pool or a Slurm array task, copied into one project.
 * A run is copied whole (its row with the provenance it was stored with: host, process,
 * version, dates; its model; and every row of every table keyed by run_id), so that the merged
 * project holds the same numbers bit for bit. */
#include "esl-project-private.h"

#include <glib/gstdio.h>

#include <string.h>
#include <sys/stat.h>

/* ---- provenance ------------------------------------------------------------------------------ */

gboolean esl_project_set_provenance(EslProject *project, gint64 run_id, const char *identity,
                                    const char *json, GError **error)
{
    g_return_val_if_fail(project && identity && *identity && json, FALSE);
    if (!esl_project_is_json_object(json)) {
        g_set_error(error, ESL_PROJECT_ERROR, ESL_PROJECT_ERROR_INVALID,
                    "the provenance of run %" G_GINT64_FORMAT " is not a JSON object", run_id);
        return FALSE;
    }
    sqlite3_stmt *st = NULL;
    /* the identity of a run stays the one it was given first */
    if (sqlite3_prepare_v2(project->db,
                           "INSERT INTO run_provenance (run_id, identity, json) VALUES (?,?,?)"
                           " ON CONFLICT(run_id) DO UPDATE SET json = excluded.json",
                           -1, &st, NULL) != SQLITE_OK)
        return esl_project_db_error(project->db, "cannot store the run's provenance", error);
    sqlite3_bind_int64(st, 1, run_id);
    sqlite3_bind_text(st, 2, identity, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 3, json, -1, SQLITE_STATIC);
    return esl_project_step_and_finalize(project->db, st, "cannot store the run's provenance",
                                         error);
}

char *esl_project_get_provenance(EslProject *project, gint64 run_id, char **identity,
                                 char **merged_from, GError **error)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(project->db,
                           "SELECT json, identity, merged_from FROM run_provenance"
                           " WHERE run_id = ?", -1, &st, NULL) != SQLITE_OK)
        return esl_project_db_error(project->db, "cannot read the run's provenance", error),
               NULL;
    sqlite3_bind_int64(st, 1, run_id);
    char *json = NULL;
    if (sqlite3_step(st) == SQLITE_ROW) {
        json = esl_project_column_text(st, 0);
        if (identity)
            *identity = esl_project_column_text(st, 1);
        if (merged_from)
            *merged_from = esl_project_column_text(st, 2);
    }
    sqlite3_finalize(st);
    return json;
}

/* ---- inspecting a shard ------------------------------------------------------------------------ */

void esl_shard_info_clear(EslShardInfo *info)
{
    g_clear_pointer(&info->model_sha256, g_free);
    g_clear_pointer(&info->model_name, g_free);
    g_clear_pointer(&info->partial, g_free);
    info->runs = 0;
}

static char *sha256_of(const char *text)
{
    return g_compute_checksum_for_string(G_CHECKSUM_SHA256, text, -1);
}

/* The one model the runs of db were made with: its SHA-256 and name (NULL when no run has a
 * stored model); FALSE with error when they used several. */
static gboolean runs_model(sqlite3 *db, const char *path, char **sha, char **name,
                           GError **error)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db,
                           "SELECT DISTINCT m.json, m.name FROM models m"
                           " WHERE m.id IN (SELECT model_id FROM runs)", -1, &st, NULL) !=
        SQLITE_OK)
        return esl_project_db_error(db, "cannot read the models", error);
    gboolean ok = TRUE;
    while (ok && sqlite3_step(st) == SQLITE_ROW) {
        g_autofree char *digest = sha256_of((const char *)sqlite3_column_text(st, 0));
        if (!*sha) {
            *sha = g_steal_pointer(&digest);
            *name = esl_project_column_text(st, 1);
        } else if (strcmp(*sha, digest) != 0) {
            g_set_error(error, ESL_PROJECT_ERROR, ESL_PROJECT_ERROR_INVALID,
                        "%s holds runs of several models ('%s' and '%s'): a merge takes the runs "
                        "of one model", path, *name, (const char *)sqlite3_column_text(st, 1));
            ok = FALSE;
        }
    }
    sqlite3_finalize(st);
    return ok;
}

static gboolean shard_info_of(EslProject *src, EslShardInfo *info, GError **error)
{
    sqlite3 *db = src->db;
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db,
                           "SELECT count(*), (SELECT id FROM runs WHERE status IN"
                           " ('running','interrupted') ORDER BY id LIMIT 1), (SELECT status FROM"
                           " runs WHERE status IN ('running','interrupted') ORDER BY id LIMIT 1)"
                           " FROM runs", -1, &st, NULL) != SQLITE_OK)
        return esl_project_db_error(db, "cannot list the runs", error);
    if (sqlite3_step(st) == SQLITE_ROW) {
        info->runs = sqlite3_column_int(st, 0);
        if (sqlite3_column_type(st, 1) != SQLITE_NULL)
            info->partial = g_strdup_printf(
                "run %lld is %s (a task killed before it ended)",
                (long long)sqlite3_column_int64(st, 1), sqlite3_column_text(st, 2));
        else if (info->runs == 0)
            info->partial = g_strdup("it holds no run (a task killed before its run began)");
    }
    sqlite3_finalize(st);
    return runs_model(db, src->path, &info->model_sha256, &info->model_name, error);
}

gboolean esl_project_merge_inspect(const char *shard, EslShardInfo *info, GError **error)
{
    memset(info, 0, sizeof *info);
    g_autoptr(EslProject) src = esl_project_open(shard, FALSE, error);
    if (!src)
        return FALSE;
    if (!shard_info_of(src, info, error)) {
        esl_shard_info_clear(info);
        return FALSE;
    }
    return TRUE;
}

/* ---- copying ----------------------------------------------------------------------------------- */

/* A run's identity in src: the one stored with it, else a digest of what makes it unique (the
 * same run copied from the same file gets the same one). */
static char *run_identity(sqlite3 *db, gint64 run_id, char **json, char **merged_from,
                          GError **error)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db,
                           "SELECT p.identity, p.json, p.merged_from, r.hostname, r.pid,"
                           " r.started_at, r.model_name, r.formulation, r.parameters, r.options,"
                           " r.step, r.duration FROM runs r LEFT JOIN run_provenance p"
                           " ON p.run_id = r.id WHERE r.id = ?", -1, &st, NULL) != SQLITE_OK)
        return esl_project_db_error(db, "cannot read the run's provenance", error), NULL;
    sqlite3_bind_int64(st, 1, run_id);
    char *identity = NULL;
    if (sqlite3_step(st) == SQLITE_ROW) {
        *json = esl_project_column_text(st, 1);
        *merged_from = esl_project_column_text(st, 2);
        identity = esl_project_column_text(st, 0);
        if (!identity) {
            GString *key = g_string_new(NULL);
            for (int c = 3; c < 12; c++)
                g_string_append_printf(key, "%s\n",
                                       sqlite3_column_type(st, c) == SQLITE_NULL
                                           ? "" : (const char *)sqlite3_column_text(st, c));
            g_autofree char *digest = sha256_of(key->str);
            g_string_free(key, TRUE);
            identity = g_strconcat("run-", digest, NULL);
        }
    } else {
        g_set_error(error, ESL_PROJECT_ERROR, ESL_PROJECT_ERROR_INVALID,
                    "no run %" G_GINT64_FORMAT, run_id);
    }
    sqlite3_finalize(st);
    return identity;
}

/* 1 when the project has a run of that identity, 0 when not, -1 on error. */
static int has_identity(sqlite3 *db, const char *identity, GError **error)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db, "SELECT 1 FROM run_provenance WHERE identity = ?", -1, &st,
                           NULL) != SQLITE_OK)
        return esl_project_db_error(db, "cannot read the provenance", error), -1;
    sqlite3_bind_text(st, 1, identity, -1, SQLITE_STATIC);
    int found = sqlite3_step(st) == SQLITE_ROW;
    sqlite3_finalize(st);
    return found;
}

/* Copy the rows `select` (its ?1 bound to key) reads from src into the same columns of table in
 * dst, with column `remap` (when not NULL) set to new_value and column `skip` left out. */
static gboolean copy_rows(sqlite3 *src, sqlite3 *dst, const char *table, const char *where,
                          gint64 key, const char *remap, gint64 new_value, const char *skip,
                          GError **error)
{
    g_autofree char *select = g_strdup_printf("SELECT * FROM %s WHERE %s = ?1", table, where);
    sqlite3_stmt *in = NULL, *out = NULL;
    if (sqlite3_prepare_v2(src, select, -1, &in, NULL) != SQLITE_OK)
        return esl_project_db_error(src, "cannot read the shard", error);
    sqlite3_bind_int64(in, 1, key);
    int ncols = sqlite3_column_count(in);
    GString *sql = g_string_new(NULL);
    GString *values = g_string_new(NULL);
    g_string_printf(sql, "INSERT INTO %s (", table);
    int nout = 0;
    for (int c = 0; c < ncols; c++) {
        const char *name = sqlite3_column_name(in, c);
        if (skip && strcmp(name, skip) == 0)
            continue;
        g_string_append_printf(sql, "%s\"%s\"", nout ? "," : "", name);
        g_string_append_printf(values, "%s?", nout ? "," : "");
        nout++;
    }
    g_string_append_printf(sql, ") VALUES (%s)", values->str);
    g_string_free(values, TRUE);
    gboolean ok = sqlite3_prepare_v2(dst, sql->str, -1, &out, NULL) == SQLITE_OK;
    g_string_free(sql, TRUE);
    if (!ok) {
        sqlite3_finalize(in);
        return esl_project_db_error(dst, "cannot copy into the project", error);
    }
    int rc;
    while (ok && (rc = sqlite3_step(in)) == SQLITE_ROW) {
        sqlite3_reset(out);
        sqlite3_clear_bindings(out);
        int b = 1;
        for (int c = 0; c < ncols; c++) {
            const char *name = sqlite3_column_name(in, c);
            if (skip && strcmp(name, skip) == 0)
                continue;
            if (remap && strcmp(name, remap) == 0)
                sqlite3_bind_int64(out, b++, new_value);
            else
                sqlite3_bind_value(out, b++, sqlite3_column_value(in, c));
        }
        if (sqlite3_step(out) != SQLITE_DONE)
            ok = esl_project_db_error(dst, "cannot copy into the project", error);
    }
    if (ok && rc != SQLITE_DONE)
        ok = esl_project_db_error(src, "cannot read the shard", error);
    sqlite3_finalize(in);
    sqlite3_finalize(out);
    return ok;
}

/* The project's id of src's model model_id: one with the same text, else a copy. 0 on error. */
static gint64 map_model(sqlite3 *src, sqlite3 *dst, gint64 model_id, GError **error)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(dst,
                           "SELECT d.id FROM models d WHERE d.json = ? ORDER BY d.id LIMIT 1",
                           -1, &st, NULL) != SQLITE_OK)
        return esl_project_db_error(dst, "cannot read the models", error), 0;
    g_autoptr(GError) local = NULL;
    sqlite3_stmt *text = NULL;
    if (sqlite3_prepare_v2(src, "SELECT json FROM models WHERE id = ?", -1, &text, NULL) !=
        SQLITE_OK) {
        sqlite3_finalize(st);
        return esl_project_db_error(src, "cannot read the shard's model", error), 0;
    }
    sqlite3_bind_int64(text, 1, model_id);
    gint64 id = 0;
    if (sqlite3_step(text) == SQLITE_ROW) {
        sqlite3_bind_value(st, 1, sqlite3_column_value(text, 0));
        if (sqlite3_step(st) == SQLITE_ROW)
            id = sqlite3_column_int64(st, 0);
    }
    sqlite3_finalize(text);
    sqlite3_finalize(st);
    if (id)
        return id;
    if (!copy_rows(src, dst, "models", "id", model_id, NULL, 0, "id", error))
        return 0;
    return sqlite3_last_insert_rowid(dst);
}

/* Tables of src other than runs and run_provenance that hold rows of a run (a run_id column),
 * in the order they were created (a table before those that refer to it). */
static GPtrArray *run_tables(sqlite3 *db, GError **error)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db,
                           "SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE"
                           " 'sqlite_%' AND name NOT IN ('runs', 'run_provenance') ORDER BY rowid",
                           -1, &st, NULL) != SQLITE_OK)
        return esl_project_db_error(db, "cannot list the tables", error), NULL;
    GPtrArray *tables = g_ptr_array_new_with_free_func(g_free);
    while (sqlite3_step(st) == SQLITE_ROW) {
        const char *name = (const char *)sqlite3_column_text(st, 0);
        g_autofree char *probe = g_strdup_printf("SELECT * FROM \"%s\" LIMIT 0", name);
        sqlite3_stmt *p = NULL;
        if (sqlite3_prepare_v2(db, probe, -1, &p, NULL) == SQLITE_OK) {
            for (int c = 0; c < sqlite3_column_count(p); c++)
                if (strcmp(sqlite3_column_name(p, c), "run_id") == 0) {
                    g_ptr_array_add(tables, g_strdup(name));
                    break;
                }
        }
        sqlite3_finalize(p);
    }
    sqlite3_finalize(st);
    return tables;
}

static gboolean same_file(const char *a, const char *b)
{
    GStatBuf sa, sb;
    return g_stat(a, &sa) == 0 && g_stat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
           sa.st_ino == sb.st_ino;
}

static gboolean copy_runs(EslProject *src, EslProject *dst, const char *shard, int *copied,
                          int *present, GError **error)
{
    g_autoptr(GPtrArray) tables = run_tables(src->db, error);
    if (!tables)
        return FALSE;
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(src->db, "SELECT id, model_id FROM runs ORDER BY id", -1, &st,
                           NULL) != SQLITE_OK)
        return esl_project_db_error(src->db, "cannot list the shard's runs", error);
    gboolean ok = TRUE;
    while (ok && sqlite3_step(st) == SQLITE_ROW) {
        gint64 run_id = sqlite3_column_int64(st, 0);
        gboolean has_model = sqlite3_column_type(st, 1) != SQLITE_NULL;
        gint64 model_id = sqlite3_column_int64(st, 1);
        g_autofree char *json = NULL, *merged_from = NULL;
        g_autofree char *identity = run_identity(src->db, run_id, &json, &merged_from, error);
        int found = identity ? has_identity(dst->db, identity, error) : -1;
        if (found != 0) {
            ok = found > 0;
            *present += ok;
            continue;
        }
        gint64 new_model = has_model ? map_model(src->db, dst->db, model_id, error) : 0;
        if (has_model && !new_model) {
            ok = FALSE;
            break;
        }
        /* the row as stored (host, process, version, dates), under a new id and model id */
        ok = copy_rows(src->db, dst->db, "runs", "id", run_id, has_model ? "model_id" : NULL,
                       new_model, "id", error);
        if (!ok)
            break;
        gint64 new_id = sqlite3_last_insert_rowid(dst->db);
        for (guint t = 0; ok && t < tables->len; t++)
            ok = copy_rows(src->db, dst->db, tables->pdata[t], "run_id", run_id, "run_id",
                           new_id, NULL, error);
        if (!ok)
            break;
        sqlite3_stmt *p = NULL;
        if (sqlite3_prepare_v2(dst->db,
                               "INSERT INTO run_provenance (run_id, identity, json, merged_from)"
                               " VALUES (?,?,?,?)", -1, &p, NULL) != SQLITE_OK) {
            ok = esl_project_db_error(dst->db, "cannot store the provenance", error);
            break;
        }
        sqlite3_bind_int64(p, 1, new_id);
        sqlite3_bind_text(p, 2, identity, -1, SQLITE_STATIC);
        sqlite3_bind_text(p, 3, json ? json : "{}", -1, SQLITE_STATIC);
        /* where it came from first, when the shard was itself a merge */
        g_autofree char *absolute = g_canonicalize_filename(shard, NULL);
        sqlite3_bind_text(p, 4, merged_from ? merged_from : absolute, -1, SQLITE_STATIC);
        ok = esl_project_step_and_finalize(dst->db, p, "cannot store the provenance", error);
        *copied += ok;
    }
    sqlite3_finalize(st);
    return ok;
}

gboolean esl_project_merge(EslProject *project, const char *shard, int *copied, int *present,
                           GError **error)
{
    g_return_val_if_fail(project && shard, FALSE);
    int ncopied = 0, npresent = 0;
    if (same_file(project->path, shard)) {
        g_set_error(error, ESL_PROJECT_ERROR, ESL_PROJECT_ERROR_INVALID,
                    "%s is the project being merged into", shard);
        return FALSE;
    }
    g_autoptr(EslProject) src = esl_project_open(shard, FALSE, error);
    if (!src)
        return FALSE;
    EslShardInfo info = {0};
    if (!shard_info_of(src, &info, error))
        return esl_shard_info_clear(&info), FALSE;
    g_autofree char *own_sha = NULL, *own_name = NULL;
    gboolean ok = runs_model(project->db, project->path, &own_sha, &own_name, error);
    if (ok && info.partial) {
        g_set_error(error, ESL_PROJECT_ERROR, ESL_PROJECT_ERROR_INVALID,
                    "%s is partial: %s", shard, info.partial);
        ok = FALSE;
    } else if (ok && own_sha && info.model_sha256 && strcmp(own_sha, info.model_sha256) != 0) {
        g_set_error(error, ESL_PROJECT_ERROR, ESL_PROJECT_ERROR_INVALID,
                    "%s holds runs of another model ('%s', SHA-256 %.12s...) than %s ('%s', "
                    "SHA-256 %.12s...): refused", shard, info.model_name, info.model_sha256,
                    project->path, own_name, own_sha);
        ok = FALSE;
    }
    esl_shard_info_clear(&info);
    if (!ok)
        return FALSE;
    if (!esl_project_exec_sql(project->db, "BEGIN IMMEDIATE", "cannot start the merge", error))
        return FALSE;
    if (!copy_runs(src, project, shard, &ncopied, &npresent, error) ||
        !esl_project_exec_sql(project->db, "COMMIT", "cannot finish the merge", error)) {
        esl_project_rollback(project->db);
        return FALSE;
    }
    if (copied)
        *copied = ncopied;
    if (present)
        *present = npresent;
    return TRUE;
}
