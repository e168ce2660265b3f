/* libFuzzer target: the project reader (app/esl-project.c). The input is written as a project
 * file, opened as the application opens one, then every run is listed and each run's record
 * and samples are loaded, as the GUI does on open. A refused file must give a GError, never
 * a crash, an abort or an allocation of unchecked size.
 *
 * Built a second time with FUZZ_PROJECT_FROM_SQL (target fuzz-project-sql): the input is SQL
 * run on a copy of a valid project (FUZZ_PROJECT_TEMPLATE) before it is opened, so mutations
 * change stored values (counts, texts, pragmas) that random bytes almost never reach past
 * SQLite's own checks. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifdef FUZZ_PROJECT_FROM_SQL
#include <sqlite3.h>
#endif

#define FUZZ_TARGET_USES_GLIB
#include "esl-project.h"
#include "fuzz-target.h"

/* A project with a few short runs is ~100 kB; SQLite reads pages lazily, so longer inputs only
 * add copying. */
#define FUZZ_PROJECT_MAX_BYTES (1024 * 1024)

static char *project_path(void)
{
    static char *path;
    if (!path) {
        /* One file per process (libFuzzer's -jobs/-workers run several); in memory when
         * possible, since SQLite syncs every commit to disk. */
        const char *dir = g_getenv("TMPDIR");
        if (!dir)
            dir = g_file_test("/dev/shm", G_FILE_TEST_IS_DIR) ? "/dev/shm" : "/tmp";
        path = g_strdup_printf("%s/eslabon-fuzz-project-%d.eslp", dir, (int)getpid());
    }
    return path;
}

static void remove_project_files(const char *path)
{
    static const char *const suffixes[] = {"", "-wal", "-shm", "-journal"};
    for (size_t i = 0; i < sizeof suffixes / sizeof suffixes[0]; i++) {
        char *name = g_strconcat(path, suffixes[i], NULL);
        unlink(name);
        g_free(name);
    }
}

static void write_file(const char *path, const void *data, size_t size)
{
    FILE *fp = fopen(path, "wb");
    if (!fp)
        abort(); /* the target itself cannot work: say so loudly rather than test nothing */
    if (size && fwrite(data, 1, size, fp) != size)
        abort();
    fclose(fp);
}

#ifdef FUZZ_PROJECT_FROM_SQL
/* Bounds the work of one statement (a recursive CTE would otherwise loop for ever). */
static int stop_long_statement(void *steps)
{
    return ++*(long *)steps > 200;
}

/* Runs the input as SQL on a fresh copy of the template project. Statements that reach other
 * files (ATTACH, VACUUM INTO) are refused: the fuzzer must not write outside its file. */
static int make_project_from_sql(const char *path, const uint8_t *data, size_t size)
{
    static gchar *template;
    static gsize template_size;
    if (!template && !g_file_get_contents(FUZZ_PROJECT_TEMPLATE, &template, &template_size, NULL))
        abort();
    char *sql = g_strndup((const char *)data, size);
    char *lower = g_ascii_strdown(sql, -1);
    gboolean reaches_out = strstr(lower, "attach") || strstr(lower, "vacuum");
    g_free(lower);
    if (reaches_out) {
        g_free(sql);
        return 0;
    }
    write_file(path, template, template_size);
    sqlite3 *db = NULL;
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, NULL) == SQLITE_OK) {
        long steps = 0;
        sqlite3_progress_handler(db, 10000, stop_long_statement, &steps);
        sqlite3_limit(db, SQLITE_LIMIT_LENGTH, 1 << 20);
        sqlite3_exec(db, sql, NULL, NULL, NULL);
    }
    sqlite3_close(db);
    g_free(sql);
    return 1;
}
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > FUZZ_PROJECT_MAX_BYTES)
        return 0;
    fuzz_quiet_glib_logs();
    const char *path = project_path();
    remove_project_files(path);
#ifdef FUZZ_PROJECT_FROM_SQL
    if (!make_project_from_sql(path, data, size))
        return 0;
#else
    write_file(path, data, size);
#endif

    GError *error = NULL;
    EslProject *project = esl_project_open(path, FALSE, &error);
    if (project) {
        GPtrArray *runs = esl_project_list_runs(project, &error);
        g_clear_error(&error);
        for (guint i = 0; runs && i < runs->len; i++) {
            const EslRunInfo *listed = g_ptr_array_index(runs, i);
            EslRunInfo *info = esl_project_get_run(project, listed->id, &error);
            g_clear_error(&error);
            esl_run_info_free(info);
            EslRunHistory *history = esl_project_load_run(project, listed->id, &error);
            g_clear_error(&error);
            esl_run_history_free(history);
            char *model = esl_project_model_json(project, listed->model_id, &error);
            g_clear_error(&error);
            g_free(model);
        }
        if (runs)
            g_ptr_array_unref(runs);
        esl_project_close(project);
    }
    g_clear_error(&error);
    remove_project_files(path);
    return 0;
}
