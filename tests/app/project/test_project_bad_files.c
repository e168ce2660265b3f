/* Corrupt and foreign project files (issue 13, "Project files"): each variant is generated here
 * from a good project, then opened through the project API (and by `eslabon-cli run
 * --project`). A refused file must be refused with a message, be byte-identical afterwards and
 * have nothing beside it; a run with impossible stored sizes or deeply nested JSON is refused
 * when loaded, without crashing the listing; a stored trigger never runs. */
#include <glib/gstdio.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "esl-project.h"
#include "esl-settings-json.h"
#include "tap.h"

static char *tmpdir;
static const char *eslabon_cli;
enum { NBODIES = 2, NJOINTS = 3, NSAMPLES = 40 };

static char *tmp_path(const char *name)
{
    return g_build_filename(tmpdir, name, NULL);
}

static EslRunRequest request(void)
{
    EslRunRequest r = {.model_name = "pendulum", .formulation = "penalty", .nbodies = NBODIES,
                       .njoints = NJOINTS};
    mbs_settings_defaults(&r.settings);
    r.settings.step = 1e-3;
    r.settings.duration = 0.04;
    mbs_settings_for(&r.settings, mbs_formulation_find("penalty"));
    return r;
}

/* Appends n samples with awkward numbers to a running run. */
static gboolean append(EslProject *p, gint64 run, int n)
{
    g_autofree MbsMonitors *m = g_new0(MbsMonitors, n);
    g_autofree double *poses = g_new0(double, (gsize)n * NBODIES * 12);
    g_autofree double *viol = g_new0(double, (gsize)n * NJOINTS);
    for (int i = 0; i < n; i++) {
        m[i].time = i / 3.0;
        m[i].kinetic = 1.0 / (i + 7.0);
        for (int k = 0; k < NBODIES * 12; k++)
            poses[(gsize)i * NBODIES * 12 + k] = (i + k) / 11.0;
        for (int k = 0; k < NJOINTS; k++)
            viol[(gsize)i * NJOINTS + k] = 1e-12 * (i + k);
    }
    return esl_project_append_samples(p, run, m, poses, viol, n, NULL);
}

/* A good project: one model and one finished run of NSAMPLES samples. */
static gboolean make_good_project(const char *path)
{
    g_unlink(path);
    EslProject *p = esl_project_open(path, TRUE, NULL);
    if (!p)
        return FALSE;
    EslRunRequest req = request();
    req.model_id = esl_project_add_model(p, "pendulum", NULL, "{}", NULL);
    gint64 run = esl_project_begin_run(p, &req, NULL);
    gboolean ok = run > 0 && append(p, run, NSAMPLES / 2) && append(p, run, NSAMPLES / 2) &&
                  esl_project_finish_run(p, run, ESL_RUN_FINISHED, NULL, "{\"steps\": 40}", 0.1,
                                         NULL);
    esl_project_close(p);
    return ok;
}

/* SQL run on the file by plain SQLite (what someone else's program could do). */
static gboolean tamper(const char *path, const char *sql)
{
    sqlite3 *db = NULL;
    char *message = NULL;
    gboolean ok = sqlite3_open(path, &db) == SQLITE_OK &&
                  sqlite3_exec(db, sql, NULL, NULL, &message) == SQLITE_OK;
    if (!ok)
        printf("# tamper: %s\n", message ? message : sqlite3_errmsg(db));
    sqlite3_free(message);
    sqlite3_close(db);
    return ok;
}

static gboolean write_bytes(const char *path, gsize offset, const guint8 *bytes, gsize n)
{
    FILE *fp = fopen(path, "r+b");
    gboolean ok = fp && fseek(fp, (long)offset, SEEK_SET) == 0 && fwrite(bytes, 1, n, fp) == n;
    if (fp)
        fclose(fp);
    return ok;
}

static gboolean same_hash_as(const char *path, const char *data, gsize len)
{
    g_autofree char *now = NULL;
    gsize now_len = 0;
    return g_file_get_contents(path, &now, &now_len, NULL) && now_len == len &&
           memcmp(now, data, len) == 0;
}

/* Rewrite the whole file in place (no fsync, unlike g_file_set_contents: hundreds of variants). */
static gboolean write_whole(const char *path, const char *data, gsize len)
{
    FILE *fp = fopen(path, "wb");
    gboolean ok = fp && fwrite(data, 1, len, fp) == len;
    if (fp)
        ok = fclose(fp) == 0 && ok;
    return ok;
}

static char *file_hash(const char *path)
{
    g_autofree char *data = NULL;
    gsize len = 0;
    if (!g_file_get_contents(path, &data, &len, NULL))
        return g_strdup("(unreadable)");
    return g_compute_checksum_for_data(G_CHECKSUM_SHA256, (const guchar *)data, len);
}

/* Names of the files SQLite keeps beside 'path' that exist now, or NULL. */
static char *side_files(const char *path)
{
    static const char *const suffixes[] = {"-wal", "-shm", "-journal"};
    GString *found = g_string_new(NULL);
    for (size_t i = 0; i < G_N_ELEMENTS(suffixes); i++) {
        g_autofree char *side = g_strconcat(path, suffixes[i], NULL);
        if (g_file_test(side, G_FILE_TEST_EXISTS))
            g_string_append_printf(found, "%s ", suffixes[i]);
    }
    return g_string_free(found, found->len == 0);
}

/* Opening 'path' is refused with 'code' and a message containing 'words'; the file is
 * byte-identical afterwards and has no -wal/-shm/-journal beside it. */
static void expect_refused(const char *path, int code, const char *words, const char *what)
{
    g_autofree char *before = file_hash(path);
    g_autoptr(GError) error = NULL;
    EslProject *p = esl_project_open(path, FALSE, &error);
    tap_ok(!p && error && error->code == code && strstr(error->message, words),
           "%s: refused (%s)", what, error ? error->message : "opened");
    esl_project_close(p);
    g_autofree char *after = file_hash(path);
    g_autofree char *left = side_files(path);
    tap_ok(strcmp(before, after) == 0 && !left, "%s: file byte-identical, nothing beside it%s%s",
           what, left ? "; left: " : "", left ? left : "");
}

static gint64 count_rows(const char *path, const char *sql)
{
    sqlite3 *db = NULL;
    sqlite3_stmt *st = NULL;
    gint64 n = -1;
    g_autofree char *uri = g_strconcat("file:", path, "?immutable=1", NULL);
    if (sqlite3_open_v2(uri, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, NULL) == SQLITE_OK &&
        sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
        n = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    sqlite3_close(db);
    return n;
}

/* The schema version is 4 bytes at offset 60 of the header, big-endian; SQLite reads it as a
 * signed 32-bit number. */
static void test_schema_version(void)
{
    g_autofree char *path = tmp_path("version.eslabon");
    static const struct {
        guint8 bytes[4];
        const char *shown;
    } versions[] = {
        {{0x80, 0, 0, 0}, "-2147483648"},        /* 2^31 */
        {{0xff, 0xff, 0xff, 0xff}, "-1"},        /* 2^32 - 1 */
        {{0xff, 0xff, 0xff, 0xfc}, "-4"},
        {{0, 0, 0, 0}, "is 0"},
    };
    for (size_t i = 0; i < G_N_ELEMENTS(versions); i++) {
        make_good_project(path);
        write_bytes(path, 60, versions[i].bytes, 4);
        g_autofree char *what = g_strdup_printf("user_version %02x%02x%02x%02x",
                                                versions[i].bytes[0], versions[i].bytes[1],
                                                versions[i].bytes[2], versions[i].bytes[3]);
        expect_refused(path, ESL_PROJECT_ERROR_CORRUPT, versions[i].shown, what);
    }
    make_good_project(path);
    write_bytes(path, 60, (const guint8[]){0x7f, 0xff, 0xff, 0xff}, 4);
    expect_refused(path, ESL_PROJECT_ERROR_TOO_NEW, "newer Eslabón", "user_version 2^31 - 1");

    /* The CLI says the same and exits non-zero, leaving the file alone. */
    make_good_project(path);
    write_bytes(path, 60, (const guint8[]){0x80, 0, 0, 0}, 4);
    g_autofree char *before = file_hash(path);
    g_autofree char *model = g_build_filename(SOURCE_DIR, "models", "double-pendulum.json", NULL);
    const char *argv[] = {eslabon_cli, "run", model, "--project", path, "--duration", "0.01",
                          NULL};
    g_autofree char *out = NULL, *err = NULL;
    int status = 0;
    gboolean spawned = g_spawn_sync(NULL, (char **)argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, &out,
                                    &err, &status, NULL);
    g_autofree char *after = file_hash(path);
    g_autofree char *left = side_files(path);
    tap_ok(spawned && WIFEXITED(status) && WEXITSTATUS(status) != 0 && err &&
               strstr(err, "schema version is -2147483648") && strcmp(before, after) == 0 &&
               !left,
           "run --project with user_version 2^31: exit %d, file untouched: %s",
           WIFEXITED(status) ? WEXITSTATUS(status) : -1, err ? g_strstrip(err) : "");
}

/* Every byte of the 100-byte header, flipped in turn: each variant opens (and reads its run) or
 * is refused byte-identical with nothing beside it; none crashes. */
static void test_header_flips(void)
{
    g_autofree char *path = tmp_path("flip.eslabon");
    make_good_project(path);
    g_autofree char *good = NULL;
    gsize len = 0;
    g_file_get_contents(path, &good, &len, NULL);
    int refused = 0, opened = 0, bad = 0;
    for (int offset = 0; offset < 100; offset++) {
        g_autofree char *data = g_memdup2(good, len);
        data[offset] ^= 0xff;
        write_whole(path, data, len);
        g_autofree char *before = file_hash(path);
        g_autoptr(GError) error = NULL;
        EslProject *p = esl_project_open(path, FALSE, &error);
        if (p) {
            g_autoptr(GPtrArray) runs = esl_project_list_runs(p, NULL);
            g_autoptr(EslRunHistory) h =
                runs && runs->len == 1
                    ? esl_project_load_run(p, ((EslRunInfo *)runs->pdata[0])->id, NULL)
                    : NULL;
            esl_project_close(p);
            opened++;
            /* a flip SQLite ignores or repairs: the project must still read */
            if (!h || h->n != NSAMPLES) {
                bad++;
                printf("# byte %d flipped: opened but its run does not read back\n", offset);
            }
        } else {
            refused++;
            g_autofree char *after = file_hash(path);
            g_autofree char *left = side_files(path);
            if (strcmp(before, after) != 0 || left || !error || !*error->message) {
                bad++;
                printf("# byte %d flipped: refused (%s) but changed or left %s\n", offset,
                       error ? error->message : "no message", left ? left : "nothing");
            }
        }
    }
    tap_ok(bad == 0 && refused > 30,
           "100 header-byte flips: %d refused byte-identical, %d opened and read, %d wrong",
           refused, opened, bad);
}

/* 250 variants (or ESL_CORRUPT_VARIANTS) with 1 to 8 random bytes anywhere in the file
 * changed (fixed seed): none crashes; each is refused byte-identical with nothing beside it,
 * or opens and every run lists and loads or is refused with a message. */
static void test_random_corruption(void)
{
    g_autofree char *path = tmp_path("random.eslabon");
    make_good_project(path);
    g_autofree char *good = NULL;
    gsize len = 0;
    g_file_get_contents(path, &good, &len, NULL);
    g_autoptr(GRand) rand = g_rand_new_with_seed(13);
    int refused = 0, opened = 0, bad = 0;
    /* ESL_CORRUPT_VARIANTS=N for a longer sweep by hand */
    const char *asked = g_getenv("ESL_CORRUPT_VARIANTS");
    int variants = asked ? atoi(asked) : 250;
    for (int variant = 0; variant < variants; variant++) {
        g_autofree char *data = g_memdup2(good, len);
        int nbytes = g_rand_int_range(rand, 1, 9);
        for (int k = 0; k < nbytes; k++)
            data[g_rand_int_range(rand, 0, (gint32)len)] = (char)g_rand_int_range(rand, 0, 256);
        write_whole(path, data, len);
        g_autoptr(GError) error = NULL;
        EslProject *p = esl_project_open(path, FALSE, &error);
        if (!p) {
            refused++;
            g_autofree char *left = side_files(path);
            if (!same_hash_as(path, data, len) || left || !error || !*error->message) {
                bad++;
                printf("# variant %d: refused (%s) but changed or left %s\n", variant,
                       error ? error->message : "no message", left ? left : "nothing");
            }
            continue;
        }
        opened++;
        g_autoptr(GPtrArray) runs = esl_project_list_runs(p, &error);
        for (guint i = 0; runs && i < runs->len; i++) {
            g_autoptr(GError) load_error = NULL;
            g_autoptr(EslRunHistory) h =
                esl_project_load_run(p, ((EslRunInfo *)runs->pdata[i])->id, &load_error);
            if (!h && (!load_error || !*load_error->message)) {
                bad++;
                printf("# variant %d: a run neither loads nor says why\n", variant);
            }
        }
        esl_project_close(p);
    }
    tap_ok(bad == 0 && refused > 0,
           "%d random corruptions: %d refused byte-identical, %d opened, %d wrong", variants,
           refused, opened, bad);
}

/* Schema objects Eslabón did not create: refused before any of them can run. */
static void test_foreign_schema_objects(void)
{
    g_autofree char *path = tmp_path("objects.eslabon");
    static const struct {
        const char *what, *sql;
    } objects[] = {
        {"a trigger that deletes every sample",
         "CREATE TRIGGER wipe AFTER UPDATE ON runs BEGIN DELETE FROM samples; END;"},
        {"a view", "CREATE VIEW everything AS SELECT * FROM runs;"},
        {"an index", "CREATE INDEX by_status ON runs(status);"},
        {"a table", "CREATE TABLE notes(text TEXT);"},
        {"an added column", "ALTER TABLE runs ADD COLUMN evil TEXT DEFAULT 'x';"},
        {"a dropped table", "DROP TABLE summaries;"},
    };
    for (size_t i = 0; i < G_N_ELEMENTS(objects); i++) {
        make_good_project(path);
        /* the run is left "running" by a dead process: opening would mark it interrupted,
         * the UPDATE that fired the trigger */
        g_autofree char *sql = g_strconcat(
            "UPDATE runs SET status = 'running', finished_at = NULL, pid = 2147483646;",
            objects[i].sql, NULL);
        tamper(path, sql);
        expect_refused(path, ESL_PROJECT_ERROR_NOT_PROJECT, "did not create", objects[i].what);
    }
    tap_ok(count_rows(path, "SELECT count(*) FROM samples") == NSAMPLES,
           "the trigger never ran: %d samples still stored", NSAMPLES);
}

/* integrity_check, not quick_check: a CHECK constraint broken behind SQLite's back. */
static void test_integrity_check(void)
{
    g_autofree char *path = tmp_path("check.eslabon");
    make_good_project(path);
    tamper(path, "PRAGMA ignore_check_constraints = ON; UPDATE runs SET status = 'bogus';");
    expect_refused(path, ESL_PROJECT_ERROR_CORRUPT, "CHECK constraint",
                   "a run status outside the CHECK constraint");
}

/* Stored sizes that are negative or too large: the run lists, loading it is refused. */
static void test_impossible_counts(void)
{
    g_autofree char *path = tmp_path("counts.eslabon");
    static const struct {
        const char *sql, *words;
    } cases[] = {
        {"UPDATE runs SET nbodies = -5", "stores -5 bodies"},
        {"UPDATE runs SET njoints = -1", "-1 joints"},
        {"UPDATE runs SET nbodies = 16777216", "stores 16777216 bodies"},
        {"UPDATE runs SET njoints = 1099511627776", "1099511627776 joints"},
        {"UPDATE runs SET nbodies = 9223372036854775807", "9223372036854775807 bodies"},
        /* in range, but 40 samples of it would need 6 GB: more than the file holds */
        {"UPDATE runs SET nbodies = 16777215", "more than the file holds"},
    };
    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
        make_good_project(path);
        tamper(path, cases[i].sql);
        g_autoptr(GError) error = NULL;
        EslProject *p = esl_project_open(path, FALSE, &error);
        g_autoptr(GPtrArray) runs = p ? esl_project_list_runs(p, &error) : NULL;
        EslRunInfo *info = runs && runs->len == 1 ? runs->pdata[0] : NULL;
        g_autoptr(EslRunHistory) h = info ? esl_project_load_run(p, info->id, &error) : NULL;
        tap_ok(info && !h && error && error->code == ESL_PROJECT_ERROR_CORRUPT &&
                   strstr(error->message, cases[i].words),
               "%s: listed, loading refused: %s", cases[i].sql, error ? error->message : "");
        esl_project_close(p);
    }
    /* a run being written with such counts is refused too */
    make_good_project(path);
    tamper(path, "UPDATE runs SET status = 'running', nbodies = -5, pid = 2147483646");
    g_autoptr(GError) error = NULL;
    EslProject *p = esl_project_open(path, FALSE, &error);
    /* opening marked it interrupted; a new run of impossible size is refused when begun */
    EslRunRequest req = request();
    req.nbodies = 1 << 24;
    gint64 run = p ? esl_project_begin_run(p, &req, &error) : 0;
    tap_ok(p && run == 0 && error && strstr(error->message, "out of range"),
           "a run of 2^24 bodies is refused when begun: %s", error ? error->message : "");
    esl_project_close(p);
}

/* Stored JSON nested 100,000 deep: no stack overflow; the run lists with default options. */
static void test_deep_json(void)
{
    g_autofree char *path = tmp_path("deep.eslabon");
    enum { DEEP = 100000 };
    GString *deep = g_string_new(NULL);
    for (int i = 0; i < DEEP; i++)
        g_string_append_c(deep, '[');
    for (int i = 0; i < DEEP; i++)
        g_string_append_c(deep, ']');
    static const char *const columns[] = {"options", "parameters"};
    for (size_t i = 0; i < G_N_ELEMENTS(columns); i++) {
        make_good_project(path);
        sqlite3 *db = NULL;
        sqlite3_stmt *st = NULL;
        g_autofree char *sql = g_strdup_printf("UPDATE runs SET %s = ?", columns[i]);
        g_autofree char *text = g_strdup_printf("%s%s%s", i == 0 ? "{\"dof\": " : "{\"k\": ",
                                                deep->str, "}");
        sqlite3_open(path, &db);
        sqlite3_prepare_v2(db, sql, -1, &st, NULL);
        sqlite3_bind_text(st, 1, text, -1, SQLITE_STATIC);
        gboolean stored = sqlite3_step(st) == SQLITE_DONE;
        sqlite3_finalize(st);
        sqlite3_close(db);
        g_autoptr(GError) error = NULL;
        EslProject *p = esl_project_open(path, FALSE, &error);
        g_autoptr(GPtrArray) runs = p ? esl_project_list_runs(p, &error) : NULL;
        EslRunInfo *info = runs && runs->len == 1 ? runs->pdata[0] : NULL;
        EslRunRequest defaults = request();
        gboolean as_expected =
            i == 0 ? info && mbs_settings_number(&info->settings, "alpha") ==
                                 mbs_settings_number(&defaults.settings, "alpha")
                   : info && !info->parameters_json;
        tap_ok(stored && as_expected, "%s nested %d deep: the run lists (%s)", columns[i], DEEP,
               i == 0 ? "with the default options" : "without its parameters");
        esl_project_close(p);
    }
    MbsSettings s;
    mbs_settings_defaults(&s);
    g_autofree char *options = g_strdup_printf("{\"dof\": %s}", deep->str);
    g_autoptr(GError) error = NULL;
    gboolean read = esl_settings_options_from_json(&s, mbs_formulation_find("matrix-r"), options,
                                                   &error);
    tap_ok(!read && error && strstr(error->message, "nested deeper than 200"),
           "options text nested %d deep refused: %s", DEEP, error ? error->message : "");
    g_clear_error(&error);
    EslProject *p = esl_project_open(path, FALSE, &error);
    EslRunRequest req = request();
    g_autofree char *parameters = g_strdup_printf("{\"k\": %s}", deep->str);
    req.parameters_json = parameters;
    gint64 run = p ? esl_project_begin_run(p, &req, &error) : 0;
    tap_ok(run == 0 && error && strstr(error->message, "deeper than 200"),
           "a parameter list nested %d deep is refused when a run begins: %s", DEEP,
           error ? error->message : "");
    esl_project_close(p);
    g_string_free(deep, TRUE);
}

/* A run whose process dies before its first batch of samples reads back as interrupted with 0
 * samples; the project still takes new runs. */
static void test_killed_before_first_batch(void)
{
    g_autofree char *path = tmp_path("killed-early.eslabon");
    make_good_project(path);
    pid_t child = fork();
    if (child == 0) {
        EslProject *cp = esl_project_open(path, FALSE, NULL);
        EslRunRequest req = request();
        _exit(cp && esl_project_begin_run(cp, &req, NULL) > 0 ? 0 : 3);
    }
    int wstatus = 0;
    waitpid(child, &wstatus, 0);
    g_autoptr(GError) error = NULL;
    EslProject *p = esl_project_open(path, FALSE, &error);
    g_autoptr(GPtrArray) runs = p ? esl_project_list_runs(p, &error) : NULL;
    EslRunInfo *killed = runs && runs->len == 2 ? runs->pdata[1] : NULL;
    g_autoptr(EslRunHistory) h = killed ? esl_project_load_run(p, killed->id, &error) : NULL;
    tap_ok(WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == 0 && p &&
               esl_project_interrupted_on_open(p) == 1 && killed &&
               killed->status == ESL_RUN_INTERRUPTED && killed->nsamples == 0 && h && h->n == 0,
           "run killed before its first batch: interrupted, reads back with 0 samples%s%s",
           error ? ": " : "", error ? error->message : "");
    /* and the project still appends */
    EslRunRequest req = request();
    gint64 run = p ? esl_project_begin_run(p, &req, &error) : 0;
    tap_ok(run > 0 && append(p, run, 5) &&
               esl_project_finish_run(p, run, ESL_RUN_FINISHED, NULL, NULL, 0.0, &error),
           "a new run is appended afterwards");
    esl_project_close(p);
}

/* A refused file that already has side files (a writer killed while it had it open): they
 * stay as they were, and none is added. */
static void test_refused_with_side_files(void)
{
    g_autofree char *path = tmp_path("foreign-wal.sqlite");
    g_autofree char *wal = g_strconcat(path, "-wal", NULL);
    g_autofree char *shm = g_strconcat(path, "-shm", NULL);
    g_unlink(path);
    pid_t child = fork();
    if (child == 0) {
        /* a foreign WAL database with committed rows still in its WAL, then killed */
        sqlite3 *db = NULL;
        sqlite3_open(path, &db);
        sqlite3_exec(db,
                     "PRAGMA journal_mode = WAL; PRAGMA wal_autocheckpoint = 0;"
                     "CREATE TABLE contacts(name TEXT); INSERT INTO contacts VALUES('Ana');",
                     NULL, NULL, NULL);
        _exit(0);
    }
    int wstatus = 0;
    waitpid(child, &wstatus, 0);
    gboolean had = g_file_test(wal, G_FILE_TEST_EXISTS) && g_file_test(shm, G_FILE_TEST_EXISTS);
    g_autofree char *db_before = file_hash(path);
    g_autofree char *wal_before = file_hash(wal);
    g_autoptr(GError) error = NULL;
    EslProject *p = esl_project_open(path, FALSE, &error);
    g_autofree char *db_after = file_hash(path);
    g_autofree char *wal_after = file_hash(wal);
    tap_ok(had && !p && error && error->code == ESL_PROJECT_ERROR_NOT_PROJECT &&
               strcmp(db_before, db_after) == 0 && strcmp(wal_before, wal_after) == 0 &&
               g_file_test(shm, G_FILE_TEST_EXISTS),
           "foreign database with a live WAL: refused (%s), file and WAL unchanged",
           error ? error->message : "opened");
    g_clear_error(&error);

    /* its WAL without the -shm: the -shm SQLite makes to read it is removed again */
    g_unlink(shm);
    p = esl_project_open(path, FALSE, &error);
    g_autofree char *wal_again = file_hash(wal);
    tap_ok(!p && error && strcmp(wal_before, wal_again) == 0 &&
               !g_file_test(shm, G_FILE_TEST_EXISTS),
           "with only its -wal: refused, no -shm left (%s)", error ? error->message : "opened");
    esl_project_close(p);
    g_unlink(wal);
}

/* A copy of the schema-3 project (rollback journal, as old Eslabón wrote it) with sql run on it. */
static gboolean schema3_with(const char *path, const char *sql)
{
    g_autofree char *text = NULL;
    gsize len = 0;
    return g_file_get_contents(SOURCE_DIR "/tests/app/project/data/schema3.eslabon", &text, &len,
                               NULL) &&
           write_whole(path, text, len) && tamper(path, sql);
}

/* Issue 28: a migration that fails leaves the file byte-identical (it used to be switched to
 * WAL, and earlier migrations kept); a run whose stored DOF list is malformed JSON no longer
 * sinks the whole project: it opens, that run marked unreadable, the others read. */
static void test_failed_migration(void)
{
    g_autofree char *path = tmp_path("schema3-blob.eslabon");
    /* json_object() cannot hold a BLOB: migration 4 fails on this row */
    tap_ok(schema3_with(path, "UPDATE runs SET jacobian = x'00' WHERE id = 1"),
           "a schema-3 project whose migration 4 fails made");
    expect_refused(path, ESL_PROJECT_ERROR_SQLITE, "schema migration to version 4",
                   "a failed schema migration");

    g_autofree char *bad = tmp_path("schema3-bad-dofs.eslabon");
    tap_ok(schema3_with(bad, "UPDATE runs SET matrix_r_dofs = '[{\"joint\": 3,' WHERE id = 3"),
           "a schema-3 project with one run's DOF list malformed made");
    g_autoptr(GError) error = NULL;
    EslProject *p = esl_project_open(bad, FALSE, &error);
    g_autoptr(GPtrArray) runs = p ? esl_project_list_runs(p, &error) : NULL;
    tap_ok(runs && runs->len == 4 && esl_project_unreadable_on_open(p) == 1,
           "it opens with its 4 runs, one counted unreadable%s%s", error ? ": " : "",
           error ? error->message : "");
    EslRunInfo *r3 = runs && runs->len == 4 ? runs->pdata[2] : NULL;
    tap_ok(r3 && r3->status == ESL_RUN_FAILED && r3->message &&
               strstr(r3->message, "unreadable") && strstr(r3->message, "malformed JSON"),
           "that run is marked failed, unreadable, with the reason (%s)",
           r3 && r3->message ? r3->message : "none");
    gboolean others = runs && runs->len == 4;
    for (guint i = 0; others && i < 4; i++) {
        EslRunInfo *r = runs->pdata[i];
        g_autoptr(EslRunHistory) h = esl_project_load_run(p, r->id, NULL);
        others = h && h->n > 0 && (i == 2 || r->status == ESL_RUN_FINISHED);
    }
    tap_ok(others, "the other runs (and that run's samples) read");
    esl_project_close(p);
}

/* Good projects: the schema-3 file migrates and appends; a schema-4 file reopens unchanged. */
static void test_good_projects_still_open(void)
{
    g_autofree char *path = tmp_path("schema3-append.eslabon");
    g_autofree char *text = NULL;
    gsize len = 0;
    g_file_get_contents(SOURCE_DIR "/tests/app/project/data/schema3.eslabon", &text, &len, NULL);
    g_file_set_contents(path, text, (gssize)len, NULL);
    g_autoptr(GError) error = NULL;
    EslProject *p = esl_project_open(path, FALSE, &error);
    EslRunRequest req = request();
    gint64 run = p ? esl_project_begin_run(p, &req, &error) : 0;
    gboolean ok = run > 0 && append(p, run, 7) &&
                  esl_project_finish_run(p, run, ESL_RUN_FINISHED, NULL, NULL, 0.0, &error);
    esl_project_close(p);
    p = ok ? esl_project_open(path, FALSE, &error) : NULL;
    g_autoptr(GPtrArray) runs = p ? esl_project_list_runs(p, &error) : NULL;
    g_autoptr(EslRunHistory) h = runs ? esl_project_load_run(p, run, &error) : NULL;
    tap_ok(runs && runs->len == 5 && h && h->n == 7 &&
               count_rows(path, "PRAGMA user_version") == ESL_PROJECT_SCHEMA_VERSION,
           "schema-3 project migrates to %d, takes a run and reopens with 5 runs%s%s",
           ESL_PROJECT_SCHEMA_VERSION, error ? ": " : "", error ? error->message : "");
    /* triggers are off on Eslabón's connection; foreign-key actions must still apply */
    gboolean deleted = p && esl_project_delete_run(p, run, &error);
    esl_project_close(p);
    g_autofree char *orphans =
        g_strdup_printf("SELECT count(*) FROM samples WHERE run_id = %" G_GINT64_FORMAT, run);
    tap_ok(deleted && count_rows(path, orphans) == 0,
           "deleting a run still deletes its samples (ON DELETE CASCADE)");

    g_autofree char *good = tmp_path("good.eslabon");
    make_good_project(good);
    g_autofree char *before = file_hash(good);
    p = esl_project_open(good, FALSE, &error);
    tap_ok(p != NULL, "a good project opens%s%s", error ? ": " : "", error ? error->message : "");
    esl_project_close(p);
    g_autofree char *after = file_hash(good);
    g_autofree char *left = side_files(good);
    tap_ok(strcmp(before, after) == 0 && !left,
           "opening and closing a good project changes nothing and leaves nothing beside it");
}

int main(int argc, char **argv)
{
    eslabon_cli = argc > 1 ? argv[1] : "eslabon-cli";
    tmpdir = g_dir_make_tmp("esl-project-bad-XXXXXX", NULL);
    test_schema_version();
    test_header_flips();
    test_random_corruption();
    test_foreign_schema_objects();
    test_integrity_check();
    test_impossible_counts();
    test_deep_json();
    test_killed_before_first_batch();
    test_refused_with_side_files();
    test_good_projects_still_open();
    test_failed_migration();
    GDir *dir = g_dir_open(tmpdir, 0, NULL);
    const char *name;
    while (dir && (name = g_dir_read_name(dir))) {
        g_autofree char *f = g_build_filename(tmpdir, name, NULL);
        g_unlink(f);
    }
    if (dir)
        g_dir_close(dir);
    g_rmdir(tmpdir);
    return tap_done();
}
