/* The formulation advisor's studies in a project (schema 12, app/project/esl-project-advice.c):
 * an advice stored reads back byte for byte with its model and quantity, oldest first, after
 * the project is closed and opened read-only; a text that is not a JSON object is refused; a
 * schema-11 project migrates and then stores advice. */
#include <glib/gstdio.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "esl-project.h"
#include "tap.h"

static char *tmpdir;

static char *tmp_path(const char *name)
{
    return g_build_filename(tmpdir, name, NULL);
}

static void test_round_trip(void)
{
    g_autofree char *path = tmp_path("advice.eslabon");
    g_autoptr(GError) error = NULL;
    /* awkward text: unicode, escapes, a number printed to 17 digits */
    const char *texts[] = {"{\"model\": \"four-bar\", \"accuracy\": 0.00010000000000000001, "
                           "\"label\": \"penalty, h = 0.01 s \\u2014 ñ\"}",
                           "{\"model\": \"lattice\", \"candidates\": []}"};
    EslProject *p = esl_project_open(path, TRUE, &error);
    gint64 a = p ? esl_project_add_advice(p, "models/four-bar.json", "points", texts[0], &error)
                 : 0;
    gint64 b = a ? esl_project_add_advice(p, "lattice.json", "energy", texts[1], &error) : 0;
    tap_ok(a > 0 && b > a, "two advice stored (#%" G_GINT64_FORMAT ", #%" G_GINT64_FORMAT ")%s%s",
           a, b, error ? ": " : "", error ? error->message : "");
    g_autoptr(GError) refused = NULL;
    gint64 bad = p ? esl_project_add_advice(p, "m", "points", "[1, 2]", &refused) : 1;
    tap_ok(bad == 0 && refused && strstr(refused->message, "JSON object"),
           "a text that is not a JSON object is refused: %s", refused ? refused->message : "");
    esl_project_close(p);
    p = esl_project_open(path, FALSE, &error);
    g_autoptr(GPtrArray) list = p ? esl_project_list_advice(p, &error) : NULL;
    gboolean same = list && list->len == 2;
    for (guint i = 0; same && i < 2; i++) {
        const EslStoredAdvice *s = list->pdata[i];
        same &= !strcmp(s->json, texts[i]) && s->created_at && strlen(s->created_at) == 20;
    }
    same = same && !strcmp(((EslStoredAdvice *)list->pdata[0])->model, "models/four-bar.json") &&
           !strcmp(((EslStoredAdvice *)list->pdata[1])->quantity, "energy");
    tap_ok(same, "they read back, oldest first, text, model and quantity as stored%s%s",
           error ? ": " : "", error ? error->message : "");
    esl_project_close(p);
}

/* A schema-11 project (made by removing what migration 12 adds) migrates on open. */
static void test_migration_from_11(void)
{
    g_autofree char *path = tmp_path("schema11.eslabon");
    g_autoptr(GError) error = NULL;
    EslProject *p = esl_project_open(path, TRUE, &error);
    esl_project_close(p);
    sqlite3 *db = NULL;
    int rc = sqlite3_open(path, &db);
    rc = rc == SQLITE_OK ? sqlite3_exec(db, "DROP TABLE advice;"
                                            "DELETE FROM schema_migrations WHERE version >= 12;"
                                            "PRAGMA user_version = 11; PRAGMA journal_mode = DELETE",
                                        NULL, NULL, NULL)
                         : rc;
    sqlite3_close(db);
    tap_ok(p && rc == SQLITE_OK, "a schema-11 project made");
    p = esl_project_open(path, FALSE, &error);
    gint64 id = p ? esl_project_add_advice(p, "m", "points", "{}", &error) : 0;
    tap_ok(id > 0, "migrated to schema %d, it stores an advice%s%s", ESL_PROJECT_SCHEMA_VERSION,
           error ? ": " : "", error ? error->message : "");
    esl_project_close(p);
}

int main(void)
{
    tmpdir = g_dir_make_tmp("esl-project-advice-XXXXXX", NULL);
    test_round_trip();
    test_migration_from_11();
    g_autofree char *rm = g_strdup_printf("rm -rf '%s'", tmpdir);
    if (system(rm) != 0)
        tap_diag("could not remove %s", tmpdir);
    return tap_done();
}
