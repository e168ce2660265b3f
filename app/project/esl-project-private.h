/* What the project store's files share: esl-project.c (opening, models, runs) defines these;
 * esl-project-sensitivity.c and esl-project-optimization.c use them. Not for other callers:
 * they see esl-project.h only. */
#ifndef ESL_PROJECT_PRIVATE_H
#define ESL_PROJECT_PRIVATE_H

#include <sqlite3.h>

#include "esl-project.h"

G_BEGIN_DECLS

struct EslProject {
    sqlite3 *db;
    char *path;
    int interrupted_on_open;
    int unreadable_on_open;
    guint64 device, inode;  /* the file's identity, in the names of the run tokens */
    GHashTable *run_tokens; /* run id (gint64 *) -> the token this process holds (fd) */
};

/* Objectives and parameters per sensitivity run or optimisation: far above any model, small
 * enough that nobjectives x nparameters doubles fit a BLOB. */
#define ESL_PROJECT_MAX_NAMES (1 << 16)

/* Status, sizes and sample count of a run. */
typedef struct {
    EslRunStatus status;
    int nbodies, njoints;
    gint64 nsamples;
} EslProjectRunState;

/* FALSE with the database's error (CORRUPT for a corrupt file, else SQLITE) after what. */
gboolean esl_project_db_error(sqlite3 *db, const char *what, GError **error);
gboolean esl_project_exec_sql(sqlite3 *db, const char *sql, const char *what, GError **error);
/* Roll back the transaction under way, if any. */
void esl_project_rollback(sqlite3 *db);
char *esl_project_column_text(sqlite3_stmt *st, int col);

/* The run's state when it exists and is running; else FALSE with what it refuses named. */
gboolean esl_project_running_run(EslProject *project, gint64 run_id, const char *what,
                                 EslProjectRunState *run, GError **error);
/* The row sql (its ?1 the run) reads of a run of a kind (its own table; "a sensitivity run"),
 * as a statement stepped onto it; NULL with error when there is no such run or it is not of
 * the kind. */
sqlite3_stmt *esl_project_record_of_run(EslProject *project, gint64 run_id, const char *sql,
                                        const char *kind, GError **error);
/* The rows a run already has in a table (count_sql: "SELECT count(*) ... WHERE run_id = ?"),
 * the next sequence number of what is appended. */
gboolean esl_project_rows_of_run(sqlite3 *db, const char *count_sql, gint64 run_id,
                                 gint64 *count, const char *what, GError **error);
/* Run a prepared write statement once and finalize it. */
gboolean esl_project_step_and_finalize(sqlite3 *db, sqlite3_stmt *st, const char *what,
                                       GError **error);

/* count doubles as a little-endian IEEE 754 BLOB (whatever the host; scratch: count numbers),
 * or NULL when count is 0; and back, FALSE when the BLOB is not count doubles. */
void esl_project_bind_doubles(sqlite3_stmt *st, int col, const double *values, int count,
                              guint64 *scratch);
gboolean esl_project_column_doubles(sqlite3_stmt *st, int col, double *out, int count);
/* Refuse (naming the field) the first non-finite number of values. */
gboolean esl_project_check_all_finite(const double *values, int count, const char *field,
                                      GError **error);

/* Names as a JSON array, and back (count < 0: any number; NULL when the text is not an array
 * of count strings). */
char *esl_project_names_json(const char *const *names, int count);
GStrv esl_project_names_from_json(const char *text, int count);
/* TRUE when text is a JSON object (nested no deeper than the readers accept). */
gboolean esl_project_is_json_object(const char *text);

G_END_DECLS

#endif
