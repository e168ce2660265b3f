/* SQLite project store: see esl-project.h for the rules it keeps. This file opens, checks and
 * migrates the file and stores models and runs; the sensitivity runs and the optimisations are
 * esl-project-sensitivity.c and esl-project-optimization.c, sharing esl-project-private.h. */
#include "esl-project-private.h"
#include "eslabon-config.h"

#include <glib/gi18n-lib.h>

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <math.h>
#include <signal.h>
#include <sqlite3.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/un.h>
#include <unistd.h>

#include "esl-settings-json.h"
#include "eslabon-config.h"

G_DEFINE_QUARK(esl-project-error-quark, esl_project_error)

/* ---- schema ---------------------------------------------------------------------------- */

/* migrations[v] brings a database from version v - 1 to v. Never edit a released entry:
 * add a new one and bump ESL_PROJECT_SCHEMA_VERSION. */
static const char *const migrations[ESL_PROJECT_SCHEMA_VERSION + 1] = {
    [1] =
        "CREATE TABLE schema_migrations ("
        "  version INTEGER PRIMARY KEY,"
        "  applied_at TEXT NOT NULL,"
        "  eslabon_version TEXT NOT NULL);"
        "CREATE TABLE models ("
        "  id INTEGER PRIMARY KEY,"
        "  name TEXT NOT NULL,"
        "  path TEXT,"
        "  json TEXT NOT NULL,"
        "  added_at TEXT NOT NULL);"
        "CREATE TABLE runs ("
        "  id INTEGER PRIMARY KEY,"
        "  model_id INTEGER REFERENCES models(id) ON DELETE SET NULL,"
        "  model_name TEXT NOT NULL,"
        "  formulation TEXT NOT NULL,"
        "  step REAL NOT NULL,"
        "  duration REAL NOT NULL,"
        "  jacobian TEXT NOT NULL,"
        "  penalty REAL NOT NULL,"
        "  newton_tolerance REAL NOT NULL,"
        "  newton_max_iterations INTEGER NOT NULL,"
        "  jacobian_reuse INTEGER NOT NULL,"
        "  assembly_tolerance REAL NOT NULL,"
        "  parameters TEXT,"
        "  eslabon_version TEXT NOT NULL,"
        "  hostname TEXT NOT NULL,"
        "  pid INTEGER NOT NULL,"
        "  started_at TEXT NOT NULL,"
        "  finished_at TEXT,"
        "  wall_time REAL NOT NULL DEFAULT 0,"
        "  status TEXT NOT NULL CHECK (status IN"
        "    ('running','finished','stopped','failed','interrupted')),"
        "  message TEXT,"
        "  nbodies INTEGER NOT NULL,"
        "  njoints INTEGER NOT NULL);"
        "CREATE TABLE samples ("
        "  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
        "  seq INTEGER NOT NULL,"
        "  time REAL NOT NULL,"
        "  kinetic REAL NOT NULL,"
        "  potential_gravity REAL NOT NULL,"
        "  potential_elastic REAL NOT NULL,"
        "  work_nonconservative REAL NOT NULL,"
        "  total REAL NOT NULL,"
        "  phi REAL NOT NULL,"
        "  dphi REAL NOT NULL,"
        "  ddphi REAL NOT NULL,"
        "  newton_iterations INTEGER NOT NULL,"
        "  jacobian_evaluations INTEGER NOT NULL,"
        "  time_dynamics REAL NOT NULL,"
        "  time_jacobian REAL NOT NULL,"
        "  time_factorization REAL NOT NULL,"
        "  time_projection REAL NOT NULL,"
        "  time_step REAL NOT NULL,"
        "  poses BLOB,"
        "  violations BLOB,"
        "  PRIMARY KEY (run_id, seq)) WITHOUT ROWID;"
        "CREATE TABLE summaries ("
        "  run_id INTEGER PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,"
        "  json TEXT NOT NULL);",
    /* 2: the formulations' own settings (NULL in runs stored before: engine defaults). */
    [2] =
        "ALTER TABLE runs ADD COLUMN newmark_beta REAL;"
        "ALTER TABLE runs ADD COLUMN newmark_gamma REAL;"
        "ALTER TABLE runs ADD COLUMN projection_kind INTEGER;"
        "ALTER TABLE runs ADD COLUMN matrix_r_integrator INTEGER;"
        "ALTER TABLE runs ADD COLUMN matrix_r_sparse INTEGER;"
        "ALTER TABLE runs ADD COLUMN matrix_r_rcond REAL;"
        "ALTER TABLE runs ADD COLUMN ali3p_solver INTEGER;"
        "ALTER TABLE runs ADD COLUMN threads INTEGER;",
    /* 3: matrix-r's independent coordinates chosen for the run (NULL: the model file's list or
     * the automatic partition; []: the automatic partition whatever the model lists), as JSON:
     * [{"joint": J, "coordinate": C} or {"point": P, "axis": A}, ...]. */
    [3] = "ALTER TABLE runs ADD COLUMN matrix_r_dofs TEXT;",
    /* 4: a formulation's own settings in one JSON object keyed by the names of its settings
     * table (engine/mbs_settings.h), so that a new setting needs no migration; the columns of
     * schemas 1-3 move into it (NULL ones, of runs stored before schema 2: null, the default). */
    [4] =
        "ALTER TABLE runs ADD COLUMN options TEXT;"
        "UPDATE runs SET options = CASE formulation"
        " WHEN 'penalty' THEN json_object('alpha', penalty, 'newton-tolerance', newton_tolerance,"
        "  'newton-iterations', newton_max_iterations, 'jacobian-reuse', jacobian_reuse,"
        "  'jacobian', jacobian, 'threads', threads)"
        " WHEN 'ali3p' THEN json_object('alpha', penalty, 'newmark-beta', newmark_beta,"
        "  'newmark-gamma', newmark_gamma,"
        "  'projection', CASE projection_kind WHEN 0 THEN 'mass' WHEN 1 THEN 'mdk'"
        "   WHEN 2 THEN 'mass-unit-zeta' END,"
        "  'algebra', CASE ali3p_solver WHEN 0 THEN 'automatic' WHEN 1 THEN 'dense'"
        "   WHEN 2 THEN 'sparse' END,"
        "  'newton-tolerance', newton_tolerance, 'newton-iterations', newton_max_iterations,"
        "  'jacobian-reuse', jacobian_reuse, 'jacobian', jacobian)"
        " WHEN 'matrix-r' THEN json_object("
        "  'integrator', CASE matrix_r_integrator WHEN 0 THEN 'rk4' WHEN 1 THEN 'trapezoidal' END,"
        "  'algebra', CASE matrix_r_sparse WHEN 0 THEN 'dense' WHEN 1 THEN 'sparse' END,"
        "  'rcond', matrix_r_rcond, 'dof', json(matrix_r_dofs),"
        "  'newton-tolerance', newton_tolerance, 'newton-iterations', newton_max_iterations,"
        "  'jacobian-reuse', jacobian_reuse)"
        " ELSE '{}' END;"
        "ALTER TABLE runs DROP COLUMN jacobian;"
        "ALTER TABLE runs DROP COLUMN penalty;"
        "ALTER TABLE runs DROP COLUMN newton_tolerance;"
        "ALTER TABLE runs DROP COLUMN newton_max_iterations;"
        "ALTER TABLE runs DROP COLUMN jacobian_reuse;"
        "ALTER TABLE runs DROP COLUMN newmark_beta;"
        "ALTER TABLE runs DROP COLUMN newmark_gamma;"
        "ALTER TABLE runs DROP COLUMN projection_kind;"
        "ALTER TABLE runs DROP COLUMN matrix_r_integrator;"
        "ALTER TABLE runs DROP COLUMN matrix_r_sparse;"
        "ALTER TABLE runs DROP COLUMN matrix_r_rcond;"
        "ALTER TABLE runs DROP COLUMN ali3p_solver;"
        "ALTER TABLE runs DROP COLUMN threads;"
        "ALTER TABLE runs DROP COLUMN matrix_r_dofs;",
    /* 5: the name the user gives a run (NULL: none; the list shows its number). */
    [5] = "ALTER TABLE runs ADD COLUMN name TEXT;",
    /* 6: the step-size history of error-controlled integrators (ssode), one row per internal
     * step. */
    [6] = "CREATE TABLE internal_steps ("
          "  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
          "  seq INTEGER NOT NULL,"
          "  time REAL NOT NULL,"
          "  size REAL NOT NULL,"
          "  step_order INTEGER NOT NULL,"
          "  PRIMARY KEY (run_id, seq)) WITHOUT ROWID;",
    /* 7: sensitivity runs (issue 10): what was differentiated (names as JSON arrays), psi and
     * the gradient (little-endian double BLOBs, NULL until finished), and the history of the
     * running psi and gradient, one row per reported time. */
    [7] = "CREATE TABLE sensitivities ("
          "  run_id INTEGER PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,"
          "  method TEXT NOT NULL,"
          "  nobjectives INTEGER NOT NULL,"
          "  nparameters INTEGER NOT NULL,"
          "  objectives TEXT NOT NULL,"
          "  parameters TEXT NOT NULL,"
          "  parameter_values BLOB NOT NULL,"
          "  psi BLOB,"
          "  gradient BLOB);"
          "CREATE TABLE sensitivity_history ("
          "  run_id INTEGER NOT NULL REFERENCES sensitivities(run_id) ON DELETE CASCADE,"
          "  seq INTEGER NOT NULL,"
          "  time REAL NOT NULL,"
          "  psi BLOB NOT NULL,"
          "  gradient BLOB NOT NULL,"
          "  PRIMARY KEY (run_id, seq)) WITHOUT ROWID;",
    /* 8: the coordinates' sensitivities d q / d rho at each history row (n x nparameters
     * doubles, column per parameter; NULL for methods that step none), so that stored runs
     * replay them. */
    [8] = "ALTER TABLE sensitivity_history ADD COLUMN state_sensitivity BLOB;",
    /* 9: the sensitivity method's own options (mbs_sensitivity_settings: matrix-r's jacobian,
     * adjoint-memory, parameter-step), one JSON object keyed by the names of its settings table
     * as the runs' options column; '{}' for a method without a table, NULL for runs stored
     * before (not known); */
    [9] = "ALTER TABLE sensitivities ADD COLUMN method_options TEXT;"
    /* and the named points whose d r / d rho the run stores (JSON array of "BODY:POINT"; NULL:
     * none), with those sensitivities at each history row (3 npoints x nparameters doubles,
     * column per parameter; NULL for rows without them) */
          "ALTER TABLE sensitivities ADD COLUMN points TEXT;"
          "ALTER TABLE sensitivity_history ADD COLUMN point_sensitivity BLOB;",
    /* 10: design optimisations (esl-optimizer.h): what was minimised over what (names as JSON
     * arrays, bounds and start as little-endian double BLOBs), how it ended and the best point
     * (NULL until finished), and every evaluation's psi, gradient and x. */
    [10] = "CREATE TABLE optimizations ("
           "  run_id INTEGER PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,"
           "  objective TEXT NOT NULL,"
           "  method TEXT NOT NULL,"
           "  method_options TEXT,"
           "  algorithm TEXT NOT NULL,"
           "  max_evaluations INTEGER NOT NULL,"
           "  xtol REAL NOT NULL,"
           "  nparameters INTEGER NOT NULL,"
           "  parameters TEXT NOT NULL,"
           "  lower BLOB NOT NULL,"
           "  upper BLOB NOT NULL,"
           "  start BLOB NOT NULL,"
           "  result TEXT,"
           "  psi REAL,"
           "  x BLOB,"
           "  gradient BLOB);"
           "CREATE TABLE optimization_evaluations ("
           "  run_id INTEGER NOT NULL REFERENCES optimizations(run_id) ON DELETE CASCADE,"
           "  seq INTEGER NOT NULL,"
           "  psi REAL NOT NULL,"
           "  gradient BLOB NOT NULL,"
           "  x BLOB NOT NULL,"
           "  PRIMARY KEY (run_id, seq)) WITHOUT ROWID;",
    /* 11: studies and merged projects (issue 25): a run's identity (kept when the run is
     * copied into another project, so that merging twice adds nothing), its provenance as a
     * JSON object (study, case, Slurm job and task ids) and the file it was merged from (NULL:
     * run in this project). Runs stored before have no row. */
    [11] = "CREATE TABLE run_provenance ("
           "  run_id INTEGER PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,"
           "  identity TEXT NOT NULL UNIQUE,"
           "  json TEXT NOT NULL,"
           "  merged_from TEXT);",
    /* 12: the formulation advisor's studies (issue 25; esl-project-advice.c): the advice as
     * `eslabon-cli advise --json` prints it, the model and quantity it was for. */
    [12] = "CREATE TABLE advice ("
           "  id INTEGER PRIMARY KEY,"
           "  created_at TEXT NOT NULL,"
           "  model TEXT NOT NULL,"
           "  quantity TEXT NOT NULL,"
           "  json TEXT NOT NULL);",
};

/* The monitors are stored one column each, named by their keys (mbs_monitors.h). */
#define POSE_NUMBERS 12
/* Bodies or joints per stored sample: counts from the file at or above this are refused, so
 * that counts times POSE_NUMBERS times 8 bytes stays far inside an int. */
#define MAX_STORED_COUNT (1 << 24)

/* ---- small helpers --------------------------------------------------------------------- */

static const char *const status_names[] = {"running", "finished", "stopped", "failed",
                                           "interrupted"};

const char *esl_run_status_name(EslRunStatus status)
{
    return (unsigned)status < G_N_ELEMENTS(status_names) ? status_names[status] : "unknown";
}

int esl_run_status_from_name(const char *name)
{
    for (unsigned i = 0; name && i < G_N_ELEMENTS(status_names); i++)
        if (strcmp(name, status_names[i]) == 0)
            return (int)i;
    return -1;
}

static char *now_iso8601(void)
{
    g_autoptr(GDateTime) now = g_date_time_new_now_utc();
    return g_date_time_format(now, "%Y-%m-%dT%H:%M:%S.%fZ");
}

gboolean esl_project_db_error(sqlite3 *db, const char *what, GError **error)
{
    int code = sqlite3_errcode(db);
    int kind = (code == SQLITE_CORRUPT || code == SQLITE_NOTADB) ? ESL_PROJECT_ERROR_CORRUPT
                                                                 : ESL_PROJECT_ERROR_SQLITE;
    g_set_error(error, ESL_PROJECT_ERROR, kind, "%s: %s", what, sqlite3_errmsg(db));
    return FALSE;
}

gboolean esl_project_exec_sql(sqlite3 *db, const char *sql, const char *what, GError **error)
{
    char *message = NULL;
    if (sqlite3_exec(db, sql, NULL, NULL, &message) != SQLITE_OK) {
        g_set_error(error, ESL_PROJECT_ERROR, ESL_PROJECT_ERROR_SQLITE, "%s: %s", what,
                    message ? message : sqlite3_errmsg(db));
        sqlite3_free(message);
        return FALSE;
    }
    return TRUE;
}

void esl_project_rollback(sqlite3 *db)
{
    if (!sqlite3_get_autocommit(db))
        sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
}

static gboolean query_int(sqlite3 *db, const char *sql, gint64 *out, GError **error)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
        return esl_project_db_error(db, sql, error);
    int rc = sqlite3_step(st);
    if (rc != SQLITE_ROW) {
        sqlite3_finalize(st);
        return esl_project_db_error(db, sql, error);
    }
    *out = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return TRUE;
}

static gboolean check_finite(double value, const char *field, GError **error)
{
    if (isfinite(value))
        return TRUE;
    g_set_error(error, ESL_PROJECT_ERROR, ESL_PROJECT_ERROR_INVALID,
                _("refusing to store a non-finite %s (%g)"), field, value);
    return FALSE;
}

char *esl_project_column_text(sqlite3_stmt *st, int col)
{
    const unsigned char *text = sqlite3_column_text(st, col);
    return text ? g_strdup((const char *)text) : NULL;
}

/* ---- opening ----------------------------------------------------------------------------- */

/* What a project file may hold: exactly the objects the migrations create. */
#define SCHEMA_QUERY                                                                             \
    "SELECT type, name, tbl_name, sql FROM sqlite_schema ORDER BY type, name"

/* Settings that keep a project file from running SQL of its own in Eslabón (a trigger, a view,
 * a function in a default or an index expression): defensive mode (no writable_schema, no
 * direct writes to shadow tables), untrusted schema, and triggers and views switched off (the
 * migrations create neither; foreign-key actions are not triggers and still apply). */
static gboolean make_defensive(sqlite3 *db, GError **error)
{
    int set = -1;
    static const int flags[][2] = {
        {SQLITE_DBCONFIG_DEFENSIVE, 1},
        {SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0},
        {SQLITE_DBCONFIG_ENABLE_TRIGGER, 0},
        {SQLITE_DBCONFIG_ENABLE_VIEW, 0},
    };
    for (size_t i = 0; i < G_N_ELEMENTS(flags); i++) {
        if (sqlite3_db_config(db, flags[i][0], flags[i][1], &set) != SQLITE_OK ||
            set != flags[i][1]) {
            g_set_error(error, ESL_PROJECT_ERROR, ESL_PROJECT_ERROR_SQLITE,
                        _("cannot make the database connection defensive (SQLite %s)"),
                        sqlite3_libversion());
            return FALSE;
        }
    }
    return esl_project_exec_sql(db, "PRAGMA trusted_schema = OFF", "cannot configure the database",
                                error);
}

/* The schema objects (type, name, table, SQL) that migrations 1..version create, as one text;
 * NULL with error if they cannot be built. */
static char *schema_text(sqlite3 *db, GError **error)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db, SCHEMA_QUERY, -1, &st, NULL) != SQLITE_OK)
        return esl_project_db_error(db, "cannot read the schema", error), NULL;
    GString *text = g_string_new(NULL);
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW)
        for (int c = 0; c < 4; c++) {
            const char *v = (const char *)sqlite3_column_text(st, c);
            /* runs of white space as one space: how an SQLite version lays out the text of
             * an altered table is not what makes it ours or not */
            gboolean space = FALSE;
            for (; v && *v; v++) {
                if (g_ascii_isspace(*v)) {
                    space = TRUE;
                    continue;
                }
                if (space)
                    g_string_append_c(text, ' ');
                space = FALSE;
                g_string_append_c(text, *v);
            }
            g_string_append_c(text, c == 3 ? '\n' : '\t');
        }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) {
        g_string_free(text, TRUE);
        return esl_project_db_error(db, "cannot read the schema", error), NULL;
    }
    return g_string_free(text, FALSE);
}

static char *expected_schema(gint64 version, GError **error)
{
    sqlite3 *mem = NULL;
    char *text = NULL;
    if (sqlite3_open_v2(":memory:", &mem, SQLITE_OPEN_READWRITE, NULL) == SQLITE_OK) {
        gboolean ok = TRUE;
        for (gint64 v = 1; ok && v <= version; v++)
            ok = esl_project_exec_sql(mem, migrations[v], "cannot build the reference schema",
                                      error);
        if (ok)
            text = schema_text(mem, error);
    } else {
        g_set_error(error, ESL_PROJECT_ERROR, ESL_PROJECT_ERROR_SQLITE, _("out of memory"));
    }
    sqlite3_close(mem);
    return text;
}

/* The first line of 'found' that 'expected' does not have (or the reverse), for the message. */
static char *first_schema_difference(const char *found, const char *expected)
{
    g_auto(GStrv) have = g_strsplit(found, "\n", -1), want = g_strsplit(expected, "\n", -1);
    for (int i = 0; have[i]; i++)
        if (*have[i] && !g_strv_contains((const char *const *)want, have[i]))
            return g_strdup_printf(_("it holds %s"), have[i]);
    for (int i = 0; want[i]; i++)
        if (*want[i] && !g_strv_contains((const char *const *)have, want[i]))
            return g_strdup_printf(_("it lacks %s"), want[i]);
    return g_strdup("the schema differs");
}

/* The schema of a database at 'version' is exactly what the migrations create: no trigger,
 * view, index or table of anyone else, no altered definition. */
static gboolean check_schema(sqlite3 *db, const char *path, gint64 version, GError **error)
{
    g_autofree char *expected = expected_schema(version, error);
    if (!expected)
        return FALSE;
    g_autoptr(GError) local = NULL;
    g_autofree char *found = schema_text(db, &local);
    if (!found) {
        g_set_error(error, ESL_PROJECT_ERROR, ESL_PROJECT_ERROR_CORRUPT,
                    _("%s is corrupt or unreadable: %s"), path, local->message);
        return FALSE;
    }
    if (strcmp(found, expected) == 0)
        return TRUE;
    g_autofree char *difference = first_schema_difference(found, expected);
    g_strdelimit(difference, "\t\n", ' ');
    if (strlen(difference) > 200)
        strcpy(difference + 197, "...");
    g_set_error(error, ESL_PROJECT_ERROR, ESL_PROJECT_ERROR_NOT_PROJECT,
                _("%s holds database objects Eslabón did not create (%s); refusing to open it"),
                path, difference);
    return FALSE;
}

static gboolean check_integrity(sqlite3 *db, const char *path, GError **error)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db, "PRAGMA integrity_check(1)", -1, &st, NULL) != SQLITE_OK) {
        g_set_error(error, ESL_PROJECT_ERROR, ESL_PROJECT_ERROR_CORRUPT, _("%s is corrupt: %s"),
                    path, sqlite3_errmsg(db));
        return FALSE;
    }
    int rc = sqlite3_step(st);
    const char *verdict =
        rc == SQLITE_ROW ? (const char *)sqlite3_column_text(st, 0) : sqlite3_errmsg(db);
    gboolean ok = rc == SQLITE_ROW && verdict && strcmp(verdict, "ok") == 0;
    if (!ok) {
        g_autofree char *one_line = g_strdup(verdict ? verdict : "integrity check failed");
        g_strdelimit(one_line, "\n", ' ');
        g_set_error(error, ESL_PROJECT_ERROR, ESL_PROJECT_ERROR_CORRUPT, _("%s is corrupt: %s"),
                    path, one_line);
    }
    sqlite3_finalize(st);
    if (!ok)
        return FALSE;
    /* integrity_check verifies CHECK constraints only on a writable connection (SQLite 3.40);
     * the schema holds one, on the run status, verified here. */
    gint64 bad_status = 0;
    g_autoptr(GError) local = NULL;
    if (!query_int(db,
                   "SELECT count(*) FROM runs WHERE status IS NULL OR status NOT IN"
                   " ('running','finished','stopped','failed','interrupted')",
                   &bad_status, &local)) {
        g_set_error(error, ESL_PROJECT_ERROR, ESL_PROJECT_ERROR_CORRUPT, _("%s is corrupt: %s"),
                    path, local->message);
        return FALSE;
    }
    if (bad_status > 0) {
        g_set_error(error, ESL_PROJECT_ERROR, ESL_PROJECT_ERROR_CORRUPT,
                    "%s is corrupt: CHECK constraint failed in runs (%" G_GINT64_FORMAT
                    " runs with an unknown status)",
                    path, bad_status);
        return FALSE;
    }
    return TRUE;
}

/* The files SQLite keeps beside a database. */
static const char *const side_suffixes[] = {"-wal", "-shm", "-journal"};

/* Opens an existing file read-only for inspection. With no side file beside it the whole
 * database is in the file, so it is opened immutable: SQLite then creates nothing (a plain
 * read-only open of a WAL database leaves empty -wal and -shm files). */
static sqlite3 *open_for_inspection(const char *path, gboolean has_side_files, GError **error)
{
    sqlite3 *db = NULL;
    int rc;
    if (has_side_files) {
        rc = sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL);
    } else {
        g_autofree char *absolute = g_canonicalize_filename(path, NULL);
        g_autofree char *uri = g_filename_to_uri(absolute, NULL, NULL);
        g_autofree char *immutable = uri ? g_strconcat(uri, "?immutable=1", NULL) : NULL;
        rc = immutable ? sqlite3_open_v2(immutable, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI,
                                         NULL)
                       : SQLITE_CANTOPEN;
    }
    if (rc != SQLITE_OK) {
        g_set_error(error, ESL_PROJECT_ERROR, ESL_PROJECT_ERROR_CORRUPT, _("cannot open %s: %s"),
                    path, db ? sqlite3_errmsg(db) : sqlite3_errstr(rc));
        sqlite3_close(db);
        return NULL;
    }
    /* a process creating or writing the project may hold it for a moment */
    sqlite3_busy_timeout(db, 5000);
    if (!make_defensive(db, error)) {
        sqlite3_close(db);
        return NULL;
    }
    return db;
}

/* Read-only inspection of an existing file: it must be an intact Eslabón project whose schema
 * this program knows, holding only what Eslabón created. Nothing is written to the file and
 * nothing is left beside it. */
static gboolean check_existing_file(const char *path, GError **error)
{
    static const char sqlite_magic[16] = "SQLite format 3";
    char header[16] = {0};
    FILE *fp = fopen(path, "rb");
    if (!fp) {
        g_set_error(error, ESL_PROJECT_ERROR, ESL_PROJECT_ERROR_NOT_FOUND, _("cannot read %s: %s"),
                    path, g_strerror(errno));
        return FALSE;
    }
    size_t got = fread(header, 1, sizeof header, fp);
    fclose(fp);
    if (got < sizeof header || memcmp(header, sqlite_magic, sizeof header) != 0) {
        g_set_error(error, ESL_PROJECT_ERROR, ESL_PROJECT_ERROR_NOT_PROJECT,
                    _("%s is not an Eslabón project (not an SQLite database)"), path);
        return FALSE;
    }

    gboolean had_side_file[G_N_ELEMENTS(side_suffixes)], has_side_files = FALSE;
    for (size_t i = 0; i < G_N_ELEMENTS(side_suffixes); i++) {
        g_autofree char *side = g_strconcat(path, side_suffixes[i], NULL);
        had_side_file[i] = g_file_test(side, G_FILE_TEST_EXISTS);
        has_side_files |= had_side_file[i];
    }
    sqlite3 *db = open_for_inspection(path, has_side_files, error);
    if (!db)
        return FALSE;
    gint64 application_id = 0, user_version = 0;
    g_autoptr(GError) local = NULL;
    gboolean ok = query_int(db, "PRAGMA application_id", &application_id, &local) &&
                  query_int(db, "PRAGMA user_version", &user_version, &local);
    if (!ok) {
        g_set_error(error, ESL_PROJECT_ERROR, ESL_PROJECT_ERROR_CORRUPT,
                    _("%s is corrupt or unreadable: %s"), path, local->message);
    } else if (application_id != ESL_PROJECT_APPLICATION_ID) {
        g_set_error(error, ESL_PROJECT_ERROR, ESL_PROJECT_ERROR_NOT_PROJECT,
                    _("%s is an SQLite database of another application, not an Eslabón project "
                      "(application_id 0x%08llx)"),
                    path, (unsigned long long) application_id);
        ok = FALSE;
    } else if (user_version > ESL_PROJECT_SCHEMA_VERSION) {
        g_set_error(error, ESL_PROJECT_ERROR, ESL_PROJECT_ERROR_TOO_NEW,
                    _("%s was written by a newer Eslabón (project schema %lld, this program knows "
                      "up to %d)"),
                    path, (long long) user_version, ESL_PROJECT_SCHEMA_VERSION);
        ok = FALSE;
    } else if (user_version < 1) {
        /* SQLite reads the header's version as a signed 32-bit number: a byte of 0x80 or
         * more there is a negative version; 0 is a database no migration has touched. */
        g_set_error(error, ESL_PROJECT_ERROR, ESL_PROJECT_ERROR_CORRUPT,
                    _("%s is corrupt: its project schema version is %lld (Eslabón writes 1 to %d)"),
                    path, (long long)user_version, ESL_PROJECT_SCHEMA_VERSION);
        ok = FALSE;
    } else {
        ok = check_schema(db, path, user_version, error) && check_integrity(db, path, error);
    }
    sqlite3_close(db);
    /* A refused file keeps nothing beside it that was not there before. */
    for (size_t i = 0; !ok && i < G_N_ELEMENTS(side_suffixes); i++) {
        g_autofree char *side = g_strconcat(path, side_suffixes[i], NULL);
        if (!had_side_file[i])
            g_unlink(side);
    }
    return ok;
}

/* Rows that one migration cannot carry, made carryable before it runs and marked: the run
 * keeps its samples, its status becomes failed and its message names what was lost. Returns
 * how many runs were marked, -1 with error. */
static int repair_before_migration(sqlite3 *db, gint64 version, GError **error)
{
    if (version != 4)
        return 0;
    /* migration 4 parses matrix_r_dofs with json(), which fails the whole migration on one
     * malformed list */
    static const char *const sql =
        "UPDATE runs SET status = CASE status WHEN 'running' THEN 'interrupted' ELSE 'failed' END,"
        " message = 'unreadable: its stored independent-coordinate list (' ||"
        " substr(matrix_r_dofs, 1, 60) || ') is malformed JSON; dropped when the project was"
        " migrated to schema 4' || coalesce(' (' || message || ')', ''),"
        " matrix_r_dofs = NULL"
        " WHERE matrix_r_dofs IS NOT NULL AND NOT json_valid(matrix_r_dofs)";
    if (!esl_project_exec_sql(db, sql, "schema migration to version 4", error))
        return -1;
    return sqlite3_changes(db);
}

/* Brings the database to ESL_PROJECT_SCHEMA_VERSION in one transaction: a migration that fails
 * leaves the file as it was (with the rollback journal of an old project, byte for byte), and
 * two processes opening one old project never both migrate it. Returns the runs that had to be
 * marked unreadable on the way (repair_before_migration), -1 with error. */
static int migrate(sqlite3 *db, GError **error)
{
    if (!esl_project_exec_sql(db, "BEGIN IMMEDIATE", "cannot start the schema migration", error))
        return -1;
    gint64 version = 0;
    if (!query_int(db, "PRAGMA user_version", &version, error)) {
        esl_project_rollback(db);
        return -1;
    }
    /* checked on open; checked again because the table must never be indexed outside it */
    if (version < 0 || version > ESL_PROJECT_SCHEMA_VERSION) {
        esl_project_rollback(db);
        g_set_error(error, ESL_PROJECT_ERROR, ESL_PROJECT_ERROR_CORRUPT,
                    "project schema version %" G_GINT64_FORMAT " is not one Eslabón writes",
                    version);
        return -1;
    }
    int marked = 0;
    for (gint64 v = version + 1; v <= ESL_PROJECT_SCHEMA_VERSION; v++) {
        g_autofree char *now = now_iso8601();
        g_autofree char *bookkeeping = g_strdup_printf(
            "INSERT INTO schema_migrations VALUES (%" G_GINT64_FORMAT ", '%s', '%s');"
            "PRAGMA user_version = %" G_GINT64_FORMAT ";"
            "PRAGMA application_id = %d;",
            v, now, ESLABON_VERSION, v, ESL_PROJECT_APPLICATION_ID);
        g_autofree char *what = g_strdup_printf("schema migration to version %" G_GINT64_FORMAT, v);
        int repaired = repair_before_migration(db, v, error);
        if (repaired < 0 || !esl_project_exec_sql(db, migrations[v], what, error) ||
            !esl_project_exec_sql(db, bookkeeping, what, error)) {
            esl_project_rollback(db);
            return -1;
        }
        marked += repaired;
    }
    if (!esl_project_exec_sql(db, "COMMIT", "schema migration", error)) {
        esl_project_rollback(db);
        return -1;
    }
    return marked;
}

/* ---- run tokens ------------------------------------------------------------------------------
 * A process writing a run holds a token for it: an abstract Unix socket bound to a name made of
 * the project file's identity and the run's id. The kernel frees it when the process ends,
 * however it ends (kill -9 included, and before its parent reaps it: a zombie holds none), so a
 * "running" run whose token can be taken is one nobody writes. Tokens are seen by processes of
 * this machine (and network namespace) only; a run of another machine is taken as not live, as
 * before. Not a file lock: closing any descriptor of the project file would drop SQLite's own
 * POSIX locks of this process. */

enum { TOKEN_TAKEN = -1, TOKEN_UNSUPPORTED = -2 };

/* The bound token, TOKEN_TAKEN when a live process holds it, TOKEN_UNSUPPORTED when tokens
 * cannot be made here (not Linux, sockets refused). */
static int take_run_token(const EslProject *project, gint64 run_id)
{
#ifdef __linux__
    struct sockaddr_un address = {.sun_family = AF_UNIX};
    /* sun_path[0] = 0: the abstract namespace, nothing on disk */
    int len = g_snprintf(address.sun_path + 1, sizeof address.sun_path - 1,
                         "eslabon-run/%" G_GINT64_MODIFIER "x/%" G_GINT64_MODIFIER "x/%"
                         G_GINT64_FORMAT, project->device, project->inode, run_id);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return TOKEN_UNSUPPORTED;
    if (bind(fd, (struct sockaddr *)&address,
             (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + (size_t)len)) == 0)
        return fd;
    int saved = errno;
    close(fd);
    return saved == EADDRINUSE ? TOKEN_TAKEN : TOKEN_UNSUPPORTED;
#else
    (void)project;
    (void)run_id;
    return TOKEN_UNSUPPORTED;
#endif
}

static void release_run_token(EslProject *project, gint64 run_id)
{
    if (project->run_tokens)
        g_hash_table_remove(project->run_tokens, &run_id);
}

static void close_token(gpointer fd)
{
    close(GPOINTER_TO_INT(fd));
}

static gboolean process_is_alive(gint64 pid)
{
    if (pid <= 0)
        return FALSE;
    return kill((pid_t)pid, 0) == 0 || errno == EPERM;
}

/* Runs left "running" by a process that is gone become "interrupted". Returns how many. */
static int mark_interrupted_runs(EslProject *project, GError **error)
{
    sqlite3 *db = project->db;
    char hostname[256] = "";
    gethostname(hostname, sizeof hostname - 1);
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db, "SELECT id, hostname, pid FROM runs WHERE status = 'running'", -1,
                           &st, NULL) != SQLITE_OK)
        return esl_project_db_error(db, "cannot list running runs", error), -1;
    g_autoptr(GArray) stale = g_array_new(FALSE, FALSE, sizeof(gint64));
    while (sqlite3_step(st) == SQLITE_ROW) {
        gint64 id = sqlite3_column_int64(st, 0);
        const char *host = (const char *)sqlite3_column_text(st, 1);
        gint64 pid = sqlite3_column_int64(st, 2);
        gboolean same_host = host && strcmp(host, hostname) == 0;
        if (same_host && pid == getpid())
            continue; /* this process writes it */
        /* a token nobody holds: no process writes the run (a pid alone is not enough: a
         * process killed a moment ago is a zombie that kill(pid, 0) still finds) */
        int token = take_run_token(project, id);
        if (token >= 0)
            close(token);
        else if (token == TOKEN_TAKEN ||
                 (same_host && token == TOKEN_UNSUPPORTED && process_is_alive(pid)))
            continue; /* still being written by a live process on this machine */
        g_array_append_val(stale, id);
    }
    sqlite3_finalize(st);
    if (stale->len == 0)
        return 0;

    if (!esl_project_exec_sql(db, "BEGIN IMMEDIATE", "cannot mark interrupted runs", error))
        return -1;
    g_autofree char *now = now_iso8601();
    if (sqlite3_prepare_v2(db,
                           "UPDATE runs SET status = 'interrupted', finished_at = ?, message = "
                           "'the program stopped before the run finished' WHERE id = ?"
                           /* its writer may have finished it (and let its token go) since the
                            * list above was read: only a run still running is left behind */
                           " AND status = 'running'",
                           -1, &st, NULL) != SQLITE_OK) {
        esl_project_db_error(db, "cannot mark interrupted runs", error);
        esl_project_rollback(db);
        return -1;
    }
    for (guint i = 0; i < stale->len; i++) {
        sqlite3_bind_text(st, 1, now, -1, SQLITE_STATIC);
        sqlite3_bind_int64(st, 2, g_array_index(stale, gint64, i));
        if (sqlite3_step(st) != SQLITE_DONE) {
            esl_project_db_error(db, "cannot mark an interrupted run", error);
            sqlite3_finalize(st);
            esl_project_rollback(db);
            return -1;
        }
        sqlite3_reset(st);
    }
    sqlite3_finalize(st);
    if (!esl_project_exec_sql(db, "COMMIT", "cannot mark interrupted runs", error)) {
        esl_project_rollback(db);
        return -1;
    }
    return (int)stale->len;
}

/* Before SQLite sees the path: a FIFO or a device would block or be read forever, and a
 * read-only file or folder (SQLite writes its journal beside the file) would fail later with
 * SQLite's "attempt to write a readonly database". */
static gboolean check_location(const char *path, gboolean exists, GError **error)
{
    GStatBuf st;
    if (exists && (g_stat(path, &st) != 0 || !S_ISREG(st.st_mode))) {
        g_set_error(error, ESL_PROJECT_ERROR, ESL_PROJECT_ERROR_NOT_PROJECT,
                    _("%s is not a regular file, so not an Eslabón project"), path);
        return FALSE;
    }
    if (exists && g_access(path, R_OK | W_OK) != 0) {
        g_set_error(error, ESL_PROJECT_ERROR, ESL_PROJECT_ERROR_INVALID,
                    _("the project %s cannot be written (%s); copy it somewhere writable"),
                    path, g_strerror(errno));
        return FALSE;
    }
    g_autofree char *folder = g_path_get_dirname(path);
    if (g_access(folder, W_OK) != 0) {
        g_set_error(error, ESL_PROJECT_ERROR, ESL_PROJECT_ERROR_INVALID,
                    exists ? "the folder %s of the project is read-only (%s); Eslabón writes "
                             "its journal beside the project: copy it somewhere writable"
                           : "cannot create a project in the folder %s (%s)",
                    folder, g_strerror(errno));
        return FALSE;
    }
    return TRUE;
}

/* Removes a project file that was being made and what SQLite keeps beside it. */
static void remove_with_side_files(const char *path)
{
    for (size_t i = 0; i < G_N_ELEMENTS(side_suffixes); i++) {
        g_autofree char *side = g_strconcat(path, side_suffixes[i], NULL);
        g_unlink(side);
    }
    g_unlink(path);
}

/* A new project made whole under a temporary name beside path (schema, WAL) and linked into
 * place: two processes creating one project never see each other's half-made file (one links,
 * the other finds the project and opens it), and a creation that fails (a full disk) leaves
 * nothing. TRUE when path now exists, whoever made it. */
static gboolean create_project_file(const char *path, GError **error)
{
    g_autofree char *folder = g_path_get_dirname(path);
    g_autofree char *base = g_path_get_basename(path);
    g_autofree char *made = g_strdup_printf("%s%c.%s.XXXXXX", folder, G_DIR_SEPARATOR, base);
    int fd = g_mkstemp_full(made, O_RDWR, 0666);
    if (fd < 0) {
        g_set_error(error, ESL_PROJECT_ERROR, ESL_PROJECT_ERROR_SQLITE,
                    _("cannot create the project %s: %s"), path, g_strerror(errno));
        return FALSE;
    }
    close(fd);
    sqlite3 *db = NULL;
    gboolean ok = sqlite3_open_v2(made, &db, SQLITE_OPEN_READWRITE, NULL) == SQLITE_OK;
    if (!ok)
        g_set_error(error, ESL_PROJECT_ERROR, ESL_PROJECT_ERROR_SQLITE,
                    _("cannot create the project %s: %s"), path,
                    db ? sqlite3_errmsg(db) : "out of memory");
    ok = ok && make_defensive(db, error) && migrate(db, error) >= 0 &&
         esl_project_exec_sql(db, "PRAGMA journal_mode = WAL", "cannot create the project", error);
    if (db && sqlite3_close(db) != SQLITE_OK && ok)
        ok = esl_project_db_error(db, "cannot create the project", error);
    if (ok && link(made, path) != 0 && errno != EEXIST) {
        /* a file system without hard links: the rename, which could replace a project created
         * at this instant by someone else, only when there is none */
        int saved = errno;
        if (g_file_test(path, G_FILE_TEST_EXISTS)) {
            /* created meanwhile: open that one */
        } else if (g_rename(made, path) != 0) {
            g_set_error(error, ESL_PROJECT_ERROR, ESL_PROJECT_ERROR_SQLITE,
                        _("cannot create the project %s: %s"), path, g_strerror(saved));
            ok = FALSE;
        }
    }
    remove_with_side_files(made);
    return ok;
}

EslProject *esl_project_open(const char *path, gboolean create, GError **error)
{
    g_return_val_if_fail(path != NULL, NULL);
    gboolean exists = g_file_test(path, G_FILE_TEST_EXISTS);
    if (!exists && !create) {
        g_set_error(error, ESL_PROJECT_ERROR, ESL_PROJECT_ERROR_NOT_FOUND,
                    _("no project file %s"), path);
        return NULL;
    }
    if (!check_location(path, exists, error))
        return NULL;
    if (!exists && !create_project_file(path, error))
        return NULL;
    if (!check_existing_file(path, error))
        return NULL;

    EslProject *project = g_new0(EslProject, 1);
    project->path = g_strdup(path);
    project->run_tokens =
        g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, close_token);
    GStatBuf identity;
    if (g_stat(path, &identity) == 0) {
        project->device = (guint64)identity.st_dev;
        project->inode = (guint64)identity.st_ino;
    }
    if (sqlite3_open_v2(path, &project->db, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK) {
        g_set_error(error, ESL_PROJECT_ERROR, ESL_PROJECT_ERROR_SQLITE, _("cannot open %s: %s"),
                    path, project->db ? sqlite3_errmsg(project->db) : "out of memory");
        esl_project_close(project);
        return NULL;
    }
    sqlite3_busy_timeout(project->db, 5000);
    /* WAL only once the file is known to be an Eslabón project at this program's schema (or
     * is new): switching it writes the header, which a refused migration must not have done. */
    if (!make_defensive(project->db, error) ||
        !esl_project_exec_sql(project->db, "PRAGMA foreign_keys = ON;",
                              "cannot configure the project database", error) ||
        (project->unreadable_on_open = migrate(project->db, error)) < 0 ||
        !esl_project_exec_sql(project->db,
                              "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;",
                              "cannot configure the project database", error)) {
        esl_project_close(project);
        return NULL;
    }
    project->interrupted_on_open = mark_interrupted_runs(project, error);
    if (project->interrupted_on_open < 0) {
        esl_project_close(project);
        return NULL;
    }
    return project;
}

void esl_project_close(EslProject *project)
{
    if (!project)
        return;
    sqlite3_close(project->db);
    if (project->run_tokens) /* after the database: an opener then sees the runs as left */
        g_hash_table_destroy(project->run_tokens);
    g_free(project->path);
    g_free(project);
}

const char *esl_project_path(const EslProject *project)
{
    return project->path;
}

int esl_project_interrupted_on_open(const EslProject *project)
{
    return project->interrupted_on_open;
}

int esl_project_unreadable_on_open(const EslProject *project)
{
    return project->unreadable_on_open;
}

/* ---- models -------------------------------------------------------------------------------- */

gint64 esl_project_add_model(EslProject *project, const char *name, const char *path,
                             const char *json_text, GError **error)
{
    g_return_val_if_fail(project && name && json_text, 0);
    sqlite3 *db = project->db;
    sqlite3_stmt *st = NULL;
    g_autofree char *now = now_iso8601();
    if (sqlite3_prepare_v2(db, "INSERT INTO models (name, path, json, added_at) VALUES (?,?,?,?)",
                           -1, &st, NULL) != SQLITE_OK)
        return esl_project_db_error(db, "cannot store the model", error), 0;
    sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
    if (path)
        sqlite3_bind_text(st, 2, path, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 3, json_text, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 4, now, -1, SQLITE_STATIC);
    int rc = sqlite3_step(st);
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE)
        return esl_project_db_error(db, "cannot store the model", error), 0;
    return sqlite3_last_insert_rowid(db);
}

char *esl_project_model_json(EslProject *project, gint64 model_id, GError **error)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(project->db, "SELECT json FROM models WHERE id = ?", -1, &st, NULL) !=
        SQLITE_OK)
        return esl_project_db_error(project->db, "cannot read the model", error), NULL;
    sqlite3_bind_int64(st, 1, model_id);
    char *json = NULL;
    if (sqlite3_step(st) == SQLITE_ROW)
        json = esl_project_column_text(st, 0);
    else
        g_set_error(error, ESL_PROJECT_ERROR, ESL_PROJECT_ERROR_INVALID,
                    "no model %" G_GINT64_FORMAT " in the project", model_id);
    sqlite3_finalize(st);
    return json;
}

/* ---- runs ----------------------------------------------------------------------------------- */

static gboolean stored_counts_valid(gint64 nbodies, gint64 njoints)
{
    return nbodies >= 0 && nbodies < MAX_STORED_COUNT && njoints >= 0 &&
           njoints < MAX_STORED_COUNT;
}

/* A JSON text that json-glib can parse without exhausting the stack. */
static gboolean json_nesting_ok(const char *text)
{
    return !text || esl_json_nesting_depth(text, strlen(text)) <= ESL_JSON_MAX_NESTING;
}

static gboolean check_json_object(const char *text, const char *what, GError **error)
{
    if (!text)
        return TRUE;
    if (!json_nesting_ok(text)) {
        g_set_error(error, ESL_PROJECT_ERROR, ESL_PROJECT_ERROR_INVALID,
                    _("the %s nests arrays and objects deeper than %d levels"), what,
                    ESL_JSON_MAX_NESTING);
        return FALSE;
    }
    g_autoptr(JsonParser) parser = json_parser_new();
    g_autoptr(GError) local = NULL;
    if (!json_parser_load_from_data(parser, text, -1, &local) ||
        !JSON_NODE_HOLDS_OBJECT(json_parser_get_root(parser))) {
        g_set_error(error, ESL_PROJECT_ERROR, ESL_PROJECT_ERROR_INVALID,
                    _("the %s is not a JSON object%s%s"), what, local ? ": " : "",
                    local ? local->message : "");
        return FALSE;
    }
    return TRUE;
}

gint64 esl_project_begin_run(EslProject *project, const EslRunRequest *request, GError **error)
{
    g_return_val_if_fail(project && request && request->model_name && request->formulation, 0);
    if (!esl_settings_check_finite(&request->settings, error) ||
        !check_json_object(request->parameters_json, "parameter list", error))
        return 0;
    if (!stored_counts_valid(request->nbodies, request->njoints)) {
        g_set_error(error, ESL_PROJECT_ERROR, ESL_PROJECT_ERROR_INVALID,
                    _("body or joint count out of range (%d, %d; 0 to %d)"), request->nbodies,
                    request->njoints, MAX_STORED_COUNT - 1);
        return 0;
    }
    sqlite3 *db = project->db;
    char hostname[256] = "";
    gethostname(hostname, sizeof hostname - 1);
    g_autofree char *now = now_iso8601();
    const MbsSettings *s = &request->settings;
    sqlite3_stmt *st = NULL;
    const char *sql =
        "INSERT INTO runs (model_id, model_name, formulation, step, duration,"
        " assembly_tolerance, parameters, eslabon_version, hostname, pid, started_at, status,"
        " nbodies, njoints, options)"
        " VALUES (?,?,?,?,?,?,?,?,?,?,?,'running',?,?,?)";
    /* the row and its token together: an opener never sees the run running without it */
    if (!esl_project_exec_sql(db, "BEGIN IMMEDIATE", "cannot create the run", error))
        return 0;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
        esl_project_db_error(db, "cannot create the run", error);
        esl_project_rollback(db);
        return 0;
    }
    int c = 1;
    if (request->model_id > 0)
        sqlite3_bind_int64(st, c, request->model_id);
    c++;
    sqlite3_bind_text(st, c++, request->model_name, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, c++, request->formulation, -1, SQLITE_STATIC);
    sqlite3_bind_double(st, c++, s->step);
    sqlite3_bind_double(st, c++, s->duration);
    sqlite3_bind_double(st, c++, s->assembly_tolerance);
    if (request->parameters_json)
        sqlite3_bind_text(st, c, request->parameters_json, -1, SQLITE_STATIC);
    c++;
    sqlite3_bind_text(st, c++, ESLABON_VERSION, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, c++, hostname, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, c++, getpid());
    sqlite3_bind_text(st, c++, now, -1, SQLITE_STATIC);
    sqlite3_bind_int(st, c++, request->nbodies);
    sqlite3_bind_int(st, c++, request->njoints);
    /* the options of the run's formulation (the settings may hold none yet: its defaults) */
    MbsSettings own = *s;
    const MbsFormulationClass *k = mbs_formulation_find(request->formulation);
    if (k)
        mbs_settings_for(&own, k);
    g_autofree char *options = esl_settings_options_to_json(&own);
    sqlite3_bind_text(st, c++, options, -1, SQLITE_STATIC);
    int rc = sqlite3_step(st);
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) {
        esl_project_db_error(db, "cannot create the run", error);
        esl_project_rollback(db);
        return 0;
    }
    gint64 run_id = sqlite3_last_insert_rowid(db);
    int token = take_run_token(project, run_id);
    if (token >= 0)
        g_hash_table_insert(project->run_tokens, g_memdup2(&run_id, sizeof run_id),
                            GINT_TO_POINTER(token));
    if (!esl_project_exec_sql(db, "COMMIT", "cannot create the run", error)) {
        esl_project_rollback(db);
        release_run_token(project, run_id);
        return 0;
    }
    return run_id;
}

/* Status, sizes and sample count of a run; FALSE with error when it does not exist. */
static gboolean run_state(EslProject *project, gint64 run_id, EslProjectRunState *out,
                          GError **error)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(project->db,
                           "SELECT status, nbodies, njoints, (SELECT count(*) FROM samples WHERE "
                           "run_id = runs.id) FROM runs WHERE id = ?",
                           -1, &st, NULL) != SQLITE_OK)
        return esl_project_db_error(project->db, "cannot read the run", error);
    sqlite3_bind_int64(st, 1, run_id);
    gboolean found = sqlite3_step(st) == SQLITE_ROW;
    if (found) {
        int status = esl_run_status_from_name((const char *)sqlite3_column_text(st, 0));
        out->status = status < 0 ? ESL_RUN_INTERRUPTED : (EslRunStatus)status;
        gint64 nbodies = sqlite3_column_int64(st, 1), njoints = sqlite3_column_int64(st, 2);
        out->nsamples = sqlite3_column_int64(st, 3);
        if (!stored_counts_valid(nbodies, njoints)) {
            g_set_error(error, ESL_PROJECT_ERROR, ESL_PROJECT_ERROR_CORRUPT,
                        "run %" G_GINT64_FORMAT " is corrupt: it stores %" G_GINT64_FORMAT
                        " bodies and %" G_GINT64_FORMAT " joints per sample (0 to %d)",
                        run_id, nbodies, njoints, MAX_STORED_COUNT - 1);
            found = FALSE;
        }
        out->nbodies = (int)nbodies;
        out->njoints = (int)njoints;
    } else {
        g_set_error(error, ESL_PROJECT_ERROR, ESL_PROJECT_ERROR_INVALID,
                    "no run %" G_GINT64_FORMAT " in the project", run_id);
    }
    sqlite3_finalize(st);
    return found;
}

/* run_state of a run that must be running to take what (named in the refusal). */
gboolean esl_project_running_run(EslProject *project, gint64 run_id, const char *what,
                                 EslProjectRunState *run, GError **error)
{
    if (!run_state(project, run_id, run, error))
        return FALSE;
    if (run->status == ESL_RUN_RUNNING)
        return TRUE;
    g_set_error(error, ESL_PROJECT_ERROR, ESL_PROJECT_ERROR_INVALID,
                "run %" G_GINT64_FORMAT " is %s, not running: %s refused", run_id,
                esl_run_status_name(run->status), what);
    return FALSE;
}

/* First non-finite number among count values, or -1. */
static int first_non_finite(const double *values, int count)
{
    for (int k = 0; k < count; k++)
        if (!isfinite(values[k]))
            return k;
    return -1;
}

/* Bind count doubles as a little-endian IEEE 754 BLOB (whatever the host), or NULL. */
void esl_project_bind_doubles(sqlite3_stmt *st, int col, const double *values, int count,
                         guint64 *scratch)
{
    if (count == 0) {
        sqlite3_bind_null(st, col);
        return;
    }
    for (int k = 0; k < count; k++) {
        guint64 bits;
        memcpy(&bits, &values[k], sizeof bits);
        scratch[k] = GUINT64_TO_LE(bits);
    }
    sqlite3_bind_blob(st, col, scratch, count * (int)sizeof(guint64), SQLITE_TRANSIENT);
}

/* Read a BLOB written by esl_project_bind_doubles; FALSE when its size is not count doubles. */
gboolean esl_project_column_doubles(sqlite3_stmt *st, int col, double *out, int count)
{
    if (count == 0)
        return TRUE;
    const guint8 *blob = sqlite3_column_blob(st, col);
    int bytes = sqlite3_column_bytes(st, col);
    if (!blob || bytes != count * (int)sizeof(guint64))
        return FALSE;
    for (int k = 0; k < count; k++) {
        guint64 bits;
        memcpy(&bits, blob + k * sizeof bits, sizeof bits);
        bits = GUINT64_FROM_LE(bits);
        memcpy(&out[k], &bits, sizeof bits);
    }
    return TRUE;
}

gboolean esl_project_append_samples(EslProject *project, gint64 run_id,
                                    const MbsMonitors *monitors, const double *poses,
                                    const double *violations, int n, GError **error)
{
    g_return_val_if_fail(project && (monitors || n == 0) && n >= 0, FALSE);
    EslProjectRunState run;
    if (!esl_project_running_run(project, run_id, "samples", &run, error))
        return FALSE;
    if (n > 0 && ((run.nbodies > 0 && !poses) || (run.njoints > 0 && !violations))) {
        g_set_error(error, ESL_PROJECT_ERROR, ESL_PROJECT_ERROR_INVALID,
                    "run %" G_GINT64_FORMAT " stores poses of %d bodies and violations of %d "
                    "joints, but they were not given",
                    run_id, run.nbodies, run.njoints);
        return FALSE;
    }
    int pose_count = run.nbodies * POSE_NUMBERS, joint_count = run.njoints;
    /* Validate everything before writing anything. */
    for (int i = 0; i < n; i++) {
        for (int k = 0; k < mbs_monitor_count; k++) {
            double v = mbs_monitor_get(&monitors[i], k);
            if (!isfinite(v)) {
                g_set_error(error, ESL_PROJECT_ERROR, ESL_PROJECT_ERROR_INVALID,
                            "refusing to store sample %d of run %" G_GINT64_FORMAT
                            ": %s is %g at t = %g s",
                            i, run_id, mbs_monitor_fields[k].key, v, monitors[i].time);
                return FALSE;
            }
        }
        int bad = pose_count ? first_non_finite(poses + (size_t)i * pose_count, pose_count) : -1;
        if (bad >= 0) {
            g_set_error(error, ESL_PROJECT_ERROR, ESL_PROJECT_ERROR_INVALID,
                        "refusing to store sample %d of run %" G_GINT64_FORMAT
                        ": pose of body %d is %g at t = %g s",
                        i, run_id, bad / POSE_NUMBERS, poses[(size_t)i * pose_count + bad],
                        monitors[i].time);
            return FALSE;
        }
        bad = joint_count ? first_non_finite(violations + (size_t)i * joint_count, joint_count)
                          : -1;
        if (bad >= 0) {
            g_set_error(error, ESL_PROJECT_ERROR, ESL_PROJECT_ERROR_INVALID,
                        "refusing to store sample %d of run %" G_GINT64_FORMAT
                        ": violation of joint %d is %g at t = %g s",
                        i, run_id, bad, violations[(size_t)i * joint_count + bad],
                        monitors[i].time);
            return FALSE;
        }
    }

    sqlite3 *db = project->db;
    GString *sql = g_string_new("INSERT INTO samples (run_id, seq, poses, violations");
    for (int k = 0; k < mbs_monitor_count; k++)
        g_string_append_printf(sql, ", %s", mbs_monitor_fields[k].key);
    g_string_append(sql, ") VALUES (?,?,?,?");
    for (int k = 0; k < mbs_monitor_count; k++)
        g_string_append(sql, ",?");
    g_string_append(sql, ")");

    sqlite3_stmt *st = NULL;
    gboolean ok = esl_project_exec_sql(db, "BEGIN IMMEDIATE", "cannot store samples", error);
    if (ok && sqlite3_prepare_v2(db, sql->str, -1, &st, NULL) != SQLITE_OK)
        ok = esl_project_db_error(db, "cannot store samples", error);
    g_string_free(sql, TRUE);
    g_autofree guint64 *scratch = g_new(guint64, MAX(pose_count, joint_count) + 1);
    for (int i = 0; ok && i < n; i++) {
        const MbsMonitors *m = &monitors[i];
        sqlite3_bind_int64(st, 1, run_id);
        sqlite3_bind_int64(st, 2, run.nsamples + i);
        esl_project_bind_doubles(st, 3, pose_count ? poses + (size_t)i * pose_count : NULL,
                                 pose_count, scratch);
        esl_project_bind_doubles(st, 4, joint_count ? violations + (size_t)i * joint_count : NULL,
                     joint_count, scratch);
        for (int k = 0; k < mbs_monitor_count; k++)
            if (mbs_monitor_fields[k].type == MBS_MONITOR_INT)
                sqlite3_bind_int(st, 5 + k, (int)mbs_monitor_get(m, k));
            else
                sqlite3_bind_double(st, 5 + k, mbs_monitor_get(m, k));
        if (sqlite3_step(st) != SQLITE_DONE)
            ok = esl_project_db_error(db, "cannot store a sample", error);
        sqlite3_reset(st);
    }
    sqlite3_finalize(st);
    if (ok)
        ok = esl_project_exec_sql(db, "COMMIT", "cannot store samples", error);
    if (!ok)
        esl_project_rollback(db);
    return ok;
}

gboolean esl_project_finish_run(EslProject *project, gint64 run_id, EslRunStatus status,
                                const char *message, const char *summary_json,
                                double wall_time, GError **error)
{
    g_return_val_if_fail(project, FALSE);
    if (status == ESL_RUN_RUNNING || esl_run_status_from_name(esl_run_status_name(status)) < 0) {
        g_set_error(error, ESL_PROJECT_ERROR, ESL_PROJECT_ERROR_INVALID,
                    _("a run cannot finish with status %s"), esl_run_status_name(status));
        return FALSE;
    }
    if (!check_finite(wall_time, "wall time", error) ||
        !check_json_object(summary_json, "run summary", error))
        return FALSE;
    EslProjectRunState run;
    if (!run_state(project, run_id, &run, error))
        return FALSE;
    if (run.status != ESL_RUN_RUNNING) {
        g_set_error(error, ESL_PROJECT_ERROR, ESL_PROJECT_ERROR_INVALID,
                    "run %" G_GINT64_FORMAT " is already %s", run_id,
                    esl_run_status_name(run.status));
        return FALSE;
    }
    sqlite3 *db = project->db;
    g_autofree char *now = now_iso8601();
    sqlite3_stmt *st = NULL;
    gboolean ok = esl_project_exec_sql(db, "BEGIN IMMEDIATE", "cannot finish the run", error);
    if (ok && sqlite3_prepare_v2(db,
                                 "UPDATE runs SET status = ?, message = ?, finished_at = ?,"
                                 " wall_time = ? WHERE id = ?",
                                 -1, &st, NULL) == SQLITE_OK) {
        sqlite3_bind_text(st, 1, esl_run_status_name(status), -1, SQLITE_STATIC);
        if (message)
            sqlite3_bind_text(st, 2, message, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 3, now, -1, SQLITE_STATIC);
        sqlite3_bind_double(st, 4, wall_time);
        sqlite3_bind_int64(st, 5, run_id);
        if (sqlite3_step(st) != SQLITE_DONE)
            ok = esl_project_db_error(db, "cannot finish the run", error);
        sqlite3_finalize(st);
    } else if (ok) {
        ok = esl_project_db_error(db, "cannot finish the run", error);
    }
    if (ok && summary_json) {
        if (sqlite3_prepare_v2(db, "INSERT OR REPLACE INTO summaries (run_id, json) VALUES (?,?)",
                               -1, &st, NULL) != SQLITE_OK) {
            ok = esl_project_db_error(db, "cannot store the summary", error);
        } else {
            sqlite3_bind_int64(st, 1, run_id);
            sqlite3_bind_text(st, 2, summary_json, -1, SQLITE_STATIC);
            if (sqlite3_step(st) != SQLITE_DONE)
                ok = esl_project_db_error(db, "cannot store the summary", error);
            sqlite3_finalize(st);
        }
    }
    if (ok)
        ok = esl_project_exec_sql(db, "COMMIT", "cannot finish the run", error);
    if (!ok)
        esl_project_rollback(db);
    else
        release_run_token(project, run_id); /* after the commit: never running without one */
    return ok;
}

void esl_run_info_free(EslRunInfo *info)
{
    if (!info)
        return;
    g_free(info->model_name);
    g_free(info->formulation);
    g_free(info->parameters_json);
    g_free(info->eslabon_version);
    g_free(info->hostname);
    g_free(info->started_at);
    g_free(info->finished_at);
    g_free(info->message);
    g_free(info->name);
    g_free(info->summary_json);
    g_free(info->sensitivity_method);
    g_free(info->optimization_objective);
    g_free(info);
}

#define RUN_COLUMNS                                                                              \
    "r.id, r.model_id, r.model_name, r.formulation, r.step, r.duration, r.assembly_tolerance,"   \
    " r.parameters, r.eslabon_version, r.hostname, r.started_at, r.finished_at, r.wall_time,"    \
    " r.status, r.message, s.json, r.nbodies, r.njoints,"                                        \
    " (SELECT count(*) FROM samples WHERE run_id = r.id), r.options, r.name,"                    \
    " (SELECT method FROM sensitivities WHERE run_id = r.id),"                                   \
    " (SELECT objective FROM optimizations WHERE run_id = r.id),"                                \
    " (SELECT count(*) FROM optimization_evaluations WHERE run_id = r.id),"                      \
    " (SELECT min(psi) FROM optimization_evaluations WHERE run_id = r.id)"                       \
    " FROM runs r LEFT JOIN summaries s ON s.run_id = r.id"

static EslRunInfo *run_info_from_row(sqlite3_stmt *st)
{
    EslRunInfo *info = g_new0(EslRunInfo, 1);
    int c = 0;
    info->id = sqlite3_column_int64(st, c++);
    info->model_id = sqlite3_column_int64(st, c++);
    info->model_name = esl_project_column_text(st, c++);
    info->formulation = esl_project_column_text(st, c++);
    mbs_settings_defaults(&info->settings);
    info->settings.step = sqlite3_column_double(st, c++);
    info->settings.duration = sqlite3_column_double(st, c++);
    info->settings.assembly_tolerance = sqlite3_column_double(st, c++);
    info->parameters_json = esl_project_column_text(st, c++);
    info->eslabon_version = esl_project_column_text(st, c++);
    info->hostname = esl_project_column_text(st, c++);
    info->started_at = esl_project_column_text(st, c++);
    info->finished_at = esl_project_column_text(st, c++);
    info->wall_time = sqlite3_column_double(st, c++);
    int status = esl_run_status_from_name((const char *)sqlite3_column_text(st, c++));
    info->status = status < 0 ? ESL_RUN_INTERRUPTED : (EslRunStatus)status;
    info->message = esl_project_column_text(st, c++);
    info->summary_json = esl_project_column_text(st, c++);
    gint64 nbodies = sqlite3_column_int64(st, c++), njoints = sqlite3_column_int64(st, c++);
    info->nsamples = sqlite3_column_int64(st, c++);
    /* Impossible sizes: the run still lists, with none (loading it is refused, naming them). */
    if (stored_counts_valid(nbodies, njoints)) {
        info->nbodies = (int)nbodies;
        info->njoints = (int)njoints;
    } else {
        g_free(info->message);
        info->message = g_strdup_printf("corrupt: it stores %" G_GINT64_FORMAT " bodies and %"
                                        G_GINT64_FORMAT " joints per sample; it cannot be loaded",
                                        nbodies, njoints);
        g_warning("run %" G_GINT64_FORMAT " is %s", info->id, info->message);
    }
    /* JSON texts too deeply nested for json-glib are dropped here, before anyone parses them. */
    char **texts[] = {&info->parameters_json, &info->summary_json};
    for (size_t i = 0; i < G_N_ELEMENTS(texts); i++)
        if (!json_nesting_ok(*texts[i])) {
            g_warning("run %" G_GINT64_FORMAT ": a stored JSON text nests deeper than %d levels",
                      info->id, ESL_JSON_MAX_NESTING);
            g_clear_pointer(texts[i], g_free);
        }
    /* A formulation this version does not have, or options it cannot read: the defaults
     * (the run still lists; what it stored stays in the file). */
    const MbsFormulationClass *k = mbs_formulation_find(info->formulation);
    const char *options = (const char *)sqlite3_column_text(st, c++);
    g_autoptr(GError) local = NULL;
    if (k && !json_nesting_ok(options)) {
        mbs_settings_for(&info->settings, k);
        g_warning("run %" G_GINT64_FORMAT ": its options nest deeper than %d levels; showing "
                  "the defaults",
                  info->id, ESL_JSON_MAX_NESTING);
    } else if (k && !esl_settings_options_from_json(&info->settings, k, options, &local)) {
        g_warning("run %" G_GINT64_FORMAT ": %s", info->id, local->message);
    }
    info->name = esl_project_column_text(st, c++);
    info->sensitivity_method = esl_project_column_text(st, c++);
    info->optimization_objective = esl_project_column_text(st, c++);
    info->optimization_evaluations = sqlite3_column_int64(st, c++);
    /* the lowest evaluated: an optimisation's result (esl-optimizer.h), also while it runs */
    info->optimization_psi =
        sqlite3_column_type(st, c) == SQLITE_NULL ? NAN : sqlite3_column_double(st, c);
    c++;
    return info;
}

GPtrArray *esl_project_list_runs(EslProject *project, GError **error)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(project->db, "SELECT " RUN_COLUMNS " ORDER BY r.id", -1, &st, NULL) !=
        SQLITE_OK)
        return esl_project_db_error(project->db, "cannot list runs", error), NULL;
    GPtrArray *runs = g_ptr_array_new_with_free_func((GDestroyNotify)esl_run_info_free);
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW)
        g_ptr_array_add(runs, run_info_from_row(st));
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) {
        g_ptr_array_unref(runs);
        return esl_project_db_error(project->db, "cannot list runs", error), NULL;
    }
    return runs;
}

EslRunInfo *esl_project_get_run(EslProject *project, gint64 run_id, GError **error)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(project->db, "SELECT " RUN_COLUMNS " WHERE r.id = ?", -1, &st, NULL) !=
        SQLITE_OK)
        return esl_project_db_error(project->db, "cannot read the run", error), NULL;
    sqlite3_bind_int64(st, 1, run_id);
    EslRunInfo *info = NULL;
    if (sqlite3_step(st) == SQLITE_ROW)
        info = run_info_from_row(st);
    else
        g_set_error(error, ESL_PROJECT_ERROR, ESL_PROJECT_ERROR_INVALID,
                    "no run %" G_GINT64_FORMAT " in the project", run_id);
    sqlite3_finalize(st);
    return info;
}

void esl_run_history_free(EslRunHistory *history)
{
    if (!history)
        return;
    g_free(history->monitors);
    g_free(history->poses);
    g_free(history->violations);
    g_free(history);
}

EslRunHistory *esl_project_load_run(EslProject *project, gint64 run_id, GError **error)
{
    EslProjectRunState run;
    if (!run_state(project, run_id, &run, error))
        return NULL;
    GString *sql = g_string_new("SELECT poses, violations");
    for (int k = 0; k < mbs_monitor_count; k++)
        g_string_append_printf(sql, ", %s", mbs_monitor_fields[k].key);
    g_string_append(sql, " FROM samples WHERE run_id = ? ORDER BY seq");
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(project->db, sql->str, -1, &st, NULL);
    g_string_free(sql, TRUE);
    if (rc != SQLITE_OK)
        return esl_project_db_error(project->db, "cannot read the run's samples", error), NULL;
    sqlite3_bind_int64(st, 1, run_id);

    g_autoptr(EslRunHistory) h = g_new0(EslRunHistory, 1);
    h->nbodies = run.nbodies;
    h->njoints = run.njoints;
    gsize capacity = (gsize)MAX(run.nsamples, 1);
    int pose_count = run.nbodies * POSE_NUMBERS;
    /* Every stored pose and violation number is 8 bytes of the file: sizes that would need
     * more than the file holds are corrupt, not something to allocate. */
    gint64 page_count = 0, page_size = 0;
    guint64 numbers = 0;
    if (!query_int(project->db, "PRAGMA page_count", &page_count, error) ||
        !query_int(project->db, "PRAGMA page_size", &page_size, error)) {
        sqlite3_finalize(st);
        return NULL;
    }
    if (!g_uint64_checked_mul(&numbers, (guint64)capacity, (guint64)(pose_count + run.njoints)) ||
        numbers > (guint64)page_count * (guint64)page_size / sizeof(double)) {
        g_set_error(error, ESL_PROJECT_ERROR, ESL_PROJECT_ERROR_CORRUPT,
                    "run %" G_GINT64_FORMAT " is corrupt: %" G_GINT64_FORMAT " samples of %d "
                    "bodies and %d joints are more than the file holds",
                    run_id, run.nsamples, run.nbodies, run.njoints);
        sqlite3_finalize(st);
        return NULL;
    }
    h->monitors = g_try_new0(MbsMonitors, capacity);
    if (pose_count)
        h->poses = g_try_new0(double, capacity * pose_count);
    if (run.njoints)
        h->violations = g_try_new0(double, capacity * run.njoints);
    if (!h->monitors || (pose_count && !h->poses) || (run.njoints && !h->violations)) {
        g_set_error(error, ESL_PROJECT_ERROR, ESL_PROJECT_ERROR_SQLITE,
                    "not enough memory to load run %" G_GINT64_FORMAT " (%" G_GINT64_FORMAT
                    " samples)",
                    run_id, run.nsamples);
        sqlite3_finalize(st);
        return NULL;
    }
    /* a run killed before its first batch has no samples: that is read back, not an error */
    rc = SQLITE_DONE;
    while (h->n < run.nsamples && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        MbsMonitors *m = &h->monitors[h->n];
        for (int k = 0; k < mbs_monitor_count; k++)
            if (mbs_monitor_fields[k].type == MBS_MONITOR_INT)
                mbs_monitor_set(m, k, sqlite3_column_int(st, 2 + k));
            else
                mbs_monitor_set(m, k, sqlite3_column_double(st, 2 + k));
        if (!esl_project_column_doubles(
                st, 0, h->poses ? h->poses + (gsize)h->n * pose_count : NULL, pose_count) ||
            !esl_project_column_doubles(
                st, 1, h->violations ? h->violations + (gsize)h->n * run.njoints : NULL,
                run.njoints)) {
            g_set_error(error, ESL_PROJECT_ERROR, ESL_PROJECT_ERROR_CORRUPT,
                        "sample %d of run %" G_GINT64_FORMAT " has poses or violations of the "
                        "wrong size",
                        h->n, run_id);
            sqlite3_finalize(st);
            return NULL;
        }
        h->n++;
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE && rc != SQLITE_ROW)
        return esl_project_db_error(project->db, "cannot read the run's samples", error), NULL;
    return g_steal_pointer(&h);
}

/* The rows a run already has in a table (count_sql: "SELECT count(*) ... WHERE run_id = ?"),
 * the next sequence number of what is appended. */
gboolean esl_project_rows_of_run(sqlite3 *db, const char *count_sql, gint64 run_id, gint64 *count,
                            const char *what, GError **error)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db, count_sql, -1, &st, NULL) != SQLITE_OK)
        return esl_project_db_error(db, what, error);
    sqlite3_bind_int64(st, 1, run_id);
    gboolean ok = sqlite3_step(st) == SQLITE_ROW;
    if (ok)
        *count = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return ok || esl_project_db_error(db, what, error);
}

gboolean esl_project_append_internal_steps(EslProject *project, gint64 run_id,
                                           const EslInternalStep *steps, int n, GError **error)
{
    g_return_val_if_fail(project && (steps || n == 0) && n >= 0, FALSE);
    EslProjectRunState run;
    if (!esl_project_running_run(project, run_id, "internal steps", &run, error))
        return FALSE;
    for (int i = 0; i < n; i++)
        if (!check_finite(steps[i].time, "internal step time", error) ||
            !check_finite(steps[i].size, "internal step size", error))
            return FALSE;
    sqlite3 *db = project->db;
    sqlite3_stmt *st = NULL;
    gint64 seq = 0;
    gboolean ok = esl_project_exec_sql(db, "BEGIN IMMEDIATE", "cannot store internal steps", error);
    ok = ok && esl_project_rows_of_run(db, "SELECT count(*) FROM internal_steps WHERE run_id = ?",
                                       run_id, &seq, "cannot store internal steps", error);
    if (ok && sqlite3_prepare_v2(db, "INSERT INTO internal_steps (run_id, seq, time, size, "
                                     "step_order) VALUES (?,?,?,?,?)",
                                 -1, &st, NULL) != SQLITE_OK)
        ok = esl_project_db_error(db, "cannot store internal steps", error);
    for (int i = 0; ok && i < n; i++) {
        sqlite3_bind_int64(st, 1, run_id);
        sqlite3_bind_int64(st, 2, seq + i);
        sqlite3_bind_double(st, 3, steps[i].time);
        sqlite3_bind_double(st, 4, steps[i].size);
        sqlite3_bind_int(st, 5, steps[i].order);
        if (sqlite3_step(st) != SQLITE_DONE)
            ok = esl_project_db_error(db, "cannot store internal steps", error);
        sqlite3_reset(st);
    }
    sqlite3_finalize(st);
    if (ok)
        ok = esl_project_exec_sql(db, "COMMIT", "cannot store internal steps", error);
    if (!ok)
        esl_project_rollback(db);
    return ok;
}

GArray *esl_project_load_internal_steps(EslProject *project, gint64 run_id, GError **error)
{
    EslProjectRunState run;
    if (!run_state(project, run_id, &run, error))
        return NULL;
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(project->db, "SELECT time, size, step_order FROM internal_steps "
                                        "WHERE run_id = ? ORDER BY seq",
                           -1, &st, NULL) != SQLITE_OK)
        return esl_project_db_error(project->db, "cannot read the run's internal steps", error),
               NULL;
    sqlite3_bind_int64(st, 1, run_id);
    GArray *steps = g_array_new(FALSE, FALSE, sizeof(EslInternalStep));
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        EslInternalStep s = {sqlite3_column_double(st, 0), sqlite3_column_double(st, 1),
                             sqlite3_column_int(st, 2)};
        g_array_append_val(steps, s);
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) {
        g_array_unref(steps);
        return esl_project_db_error(project->db, "cannot read the run's internal steps", error),
               NULL;
    }
    return steps;
}

gboolean esl_project_delete_run(EslProject *project, gint64 run_id, GError **error)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(project->db, "DELETE FROM runs WHERE id = ?", -1, &st, NULL) !=
        SQLITE_OK)
        return esl_project_db_error(project->db, "cannot delete the run", error);
    sqlite3_bind_int64(st, 1, run_id);
    int rc = sqlite3_step(st);
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE)
        return esl_project_db_error(project->db, "cannot delete the run", error);
    if (sqlite3_changes(project->db) == 0) {
        g_set_error(error, ESL_PROJECT_ERROR, ESL_PROJECT_ERROR_INVALID,
                    "no run %" G_GINT64_FORMAT " in the project", run_id);
        return FALSE;
    }
    return TRUE;
}

gboolean esl_project_rename_run(EslProject *project, gint64 run_id, const char *name,
                                GError **error)
{
    g_autofree char *stripped = name ? g_strstrip(g_strdup(name)) : NULL;
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(project->db, "UPDATE runs SET name = ? WHERE id = ?", -1, &st,
                           NULL) != SQLITE_OK)
        return esl_project_db_error(project->db, "cannot rename the run", error);
    if (stripped && *stripped)
        sqlite3_bind_text(st, 1, stripped, -1, SQLITE_TRANSIENT);
    else
        sqlite3_bind_null(st, 1);
    sqlite3_bind_int64(st, 2, run_id);
    int rc = sqlite3_step(st);
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE)
        return esl_project_db_error(project->db, "cannot rename the run", error);
    if (sqlite3_changes(project->db) == 0) {
        g_set_error(error, ESL_PROJECT_ERROR, ESL_PROJECT_ERROR_INVALID,
                    "no run %" G_GINT64_FORMAT " in the project", run_id);
        return FALSE;
    }
    return TRUE;
}

gint64 esl_project_disk_size(EslProject *project)
{
    gint64 total = 0;
    const char *suffixes[] = {"", "-wal"};
    for (size_t i = 0; i < G_N_ELEMENTS(suffixes); i++) {
        g_autofree char *path = g_strconcat(project->path, suffixes[i], NULL);
        GStatBuf st;
        if (g_stat(path, &st) == 0)
            total += (gint64)st.st_size;
    }
    return total;
}

gboolean esl_project_compact(EslProject *project, GError **error)
{
    return esl_project_exec_sql(project->db, "PRAGMA wal_checkpoint(TRUNCATE); VACUUM;"
                                 "PRAGMA wal_checkpoint(TRUNCATE);",
                    "cannot compact the project", error);
}

gboolean esl_project_save_copy(EslProject *project, const char *path, GError **error)
{
    if (g_strcmp0(path, project->path) == 0) {
        g_set_error(error, ESL_PROJECT_ERROR, ESL_PROJECT_ERROR_INVALID,
                    _("cannot copy the project onto itself"));
        return FALSE;
    }
    sqlite3 *dest = NULL;
    if (sqlite3_open_v2(path, &dest, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) !=
        SQLITE_OK) {
        g_set_error(error, ESL_PROJECT_ERROR, ESL_PROJECT_ERROR_SQLITE, _("cannot create %s: %s"),
                    path, dest ? sqlite3_errmsg(dest) : "out of memory");
        sqlite3_close(dest);
        return FALSE;
    }
    sqlite3_backup *backup = sqlite3_backup_init(dest, "main", project->db, "main");
    gboolean ok = backup && sqlite3_backup_step(backup, -1) == SQLITE_DONE;
    sqlite3_backup_finish(backup);
    if (!ok)
        esl_project_db_error(dest, "cannot copy the project", error);
    else
        ok = esl_project_exec_sql(dest, "PRAGMA journal_mode = WAL", "cannot configure the copy",
                                  error);
    sqlite3_close(dest);
    return ok;
}

/* ---- shared with esl-project-sensitivity.c and esl-project-optimization.c ----------------- */

char *esl_project_names_json(const char *const *names, int count)
{
    g_autoptr(JsonBuilder) b = json_builder_new();
    json_builder_begin_array(b);
    for (int i = 0; i < count; i++)
        json_builder_add_string_value(b, names[i]);
    json_builder_end_array(b);
    g_autoptr(JsonNode) root = json_builder_get_root(b);
    return esl_json_generate(root, FALSE);
}

/* A stored JSON array of count strings (count < 0: any number), or NULL. */
GStrv esl_project_names_from_json(const char *text, int count)
{
    if (!text || !json_nesting_ok(text))
        return NULL;
    g_autoptr(JsonParser) parser = json_parser_new();
    if (!json_parser_load_from_data(parser, text, -1, NULL) ||
        !JSON_NODE_HOLDS_ARRAY(json_parser_get_root(parser)))
        return NULL;
    JsonArray *a = json_node_get_array(json_parser_get_root(parser));
    if (count < 0)
        count = (int)MIN(json_array_get_length(a), G_MAXINT / 2);
    if ((int)json_array_get_length(a) != count)
        return NULL;
    GStrv names = g_new0(char *, count + 1);
    for (int i = 0; i < count; i++) {
        JsonNode *n = json_array_get_element(a, i);
        if (!JSON_NODE_HOLDS_VALUE(n) || json_node_get_value_type(n) != G_TYPE_STRING) {
            g_strfreev(names);
            return NULL;
        }
        names[i] = g_strdup(json_node_get_string(n));
    }
    return names;
}

/* TRUE when text is a JSON object (nested no deeper than the readers accept). */
gboolean esl_project_is_json_object(const char *text)
{
    if (!text || !json_nesting_ok(text))
        return FALSE;
    g_autoptr(JsonParser) parser = json_parser_new();
    return json_parser_load_from_data(parser, text, -1, NULL) &&
           json_parser_get_root(parser) && JSON_NODE_HOLDS_OBJECT(json_parser_get_root(parser));
}

/* Refuse (naming the field) the first non-finite number of values. */
gboolean esl_project_check_all_finite(const double *values, int count, const char *field,
                                 GError **error)
{
    int bad = first_non_finite(values, count);
    if (bad >= 0) {
        g_set_error(error, ESL_PROJECT_ERROR, ESL_PROJECT_ERROR_INVALID,
                    _("refusing to store %s: entry %d is %g"), field, bad, values[bad]);
        return FALSE;
    }
    return TRUE;
}

/* Run a prepared write statement once and finalize it. */
gboolean esl_project_step_and_finalize(sqlite3 *db, sqlite3_stmt *st, const char *what,
                                  GError **error)
{
    gboolean ok = sqlite3_step(st) == SQLITE_DONE || esl_project_db_error(db, what, error);
    sqlite3_finalize(st);
    return ok;
}

/* The row sql (its ?1 the run) reads of a run of a kind (its own table; "a sensitivity run"),
 * as a statement stepped onto it; NULL with error when there is no such run or it is not of
 * the kind. */
sqlite3_stmt *esl_project_record_of_run(EslProject *project, gint64 run_id, const char *sql,
                                   const char *kind, GError **error)
{
    EslProjectRunState state;
    if (!run_state(project, run_id, &state, error))
        return NULL;
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(project->db, sql, -1, &st, NULL) != SQLITE_OK) {
        g_autofree char *what = g_strdup_printf("cannot read %s", kind);
        return esl_project_db_error(project->db, what, error), NULL;
    }
    sqlite3_bind_int64(st, 1, run_id);
    if (sqlite3_step(st) == SQLITE_ROW)
        return st;
    sqlite3_finalize(st);
    g_set_error(error, ESL_PROJECT_ERROR, ESL_PROJECT_ERROR_INVALID,
                "run %" G_GINT64_FORMAT " is not %s", run_id, kind);
    return NULL;
}
