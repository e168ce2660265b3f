/* Sensitivity runs in a project (schemas 7 to 9): exact round trip of psi, gradient, history,
 * the coordinates' sensitivities and the method's own options, refusal of non-finite numbers,
 * a killed run readable as "interrupted" with its committed history, migrations from schemas
 * 6, 7 and 8, and stored sizes that do not match refused on load. */
#include <glib/gstdio.h>
#include <math.h>
#include <sqlite3.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "esl-project.h"
#include "esl-sensitivity-recorder.h"
#include "esl-settings-json.h"
#include "sens_matrix_r.h"
#include "tap.h"

static char *tmpdir;
/* What migrations 10 (optimisations) and 11 (run provenance) add, taken away to make an older
 * project. */
#define DROP_SCHEMA_10 "DROP TABLE optimization_evaluations; DROP TABLE optimizations;" \
                       "DROP TABLE run_provenance; DROP TABLE advice;"
enum { NO = 2, NP = 3 };
static const char *const objective_names[NO] = {"psi1", "psi2"};
static const char *const parameter_names[NP] = {"Ls1", "Ls2", "m_A1"};
static const double parameter_values[NP] = {2.23606797749979, 2.0615528128088303, 1.0 / 3.0};

static char *tmp_path(const char *name)
{
    return g_build_filename(tmpdir, name, NULL);
}

/* Row i of a history: awkward numbers so that any rounding shows. */
static void make_row(int i, double *t, double psi[NO], double gradient[NO * NP])
{
    *t = i * 0.01 + 1e-9 / 3.0;
    for (int o = 0; o < NO; o++)
        psi[o] = sin(0.1 * i + o) / 7.0;
    for (int k = 0; k < NO * NP; k++)
        gradient[k] = exp(-0.01 * i) * cos(k + 0.3 * i) / 3.0;
}

static gint64 begin_method_run(EslProject *p, const char *formulation, const char *method,
                               const char *method_options, GError **error)
{
    EslRunRequest req = {.model_name = "five-bar", .formulation = formulation};
    mbs_settings_defaults(&req.settings);
    req.settings.step = 0.01;
    req.settings.duration = 5.0;
    gint64 run = esl_project_begin_run(p, &req, error);
    EslSensitivityRequest sreq = {.method = method, .nobjectives = NO, .nparameters = NP,
                                  .objectives = objective_names, .parameters = parameter_names,
                                  .parameter_values = parameter_values,
                                  .method_options = method_options};
    return run && esl_project_begin_sensitivity(p, run, &sreq, error) ? run : 0;
}

static gint64 begin_sensitivity_run(EslProject *p, GError **error)
{
    return begin_method_run(p, "penalty", "direct", "{}", error);
}

static gboolean history_matches(const EslSensitivityRun *s, int n)
{
    if (!s || s->n != n)
        return FALSE;
    for (int i = 0; i < n; i++) {
        double t, psi[NO], gradient[NO * NP];
        make_row(i, &t, psi, gradient);
        if (s->times[i] != t || memcmp(s->history_psi + i * NO, psi, sizeof psi) != 0 ||
            memcmp(s->history_gradient + i * NO * NP, gradient, sizeof gradient) != 0)
            return FALSE;
    }
    return TRUE;
}

static void test_round_trip(void)
{
    g_autofree char *path = tmp_path("sens.eslabon");
    g_autoptr(GError) error = NULL;
    EslProject *p = esl_project_open(path, TRUE, &error);
    gint64 run = p ? begin_sensitivity_run(p, &error) : 0;
    if (!tap_ok(run > 0, "a sensitivity run begins%s%s", error ? ": " : "",
                error ? error->message : ""))
        return;
    /* 600 rows through the recorder: two full batches and a partial one at finish. */
    EslSensitivityRecorder *rec = esl_sensitivity_recorder_new(p, run, NO, NP);
    double t, psi[NO], gradient[NO * NP];
    for (int i = 0; i < 600; i++) {
        make_row(i, &t, psi, gradient);
        esl_sensitivity_recorder_history(rec, t, psi, gradient);
    }
    tap_ok(esl_sensitivity_recorder_finish(rec, ESL_RUN_FINISHED, psi, gradient, NULL,
                                           "{\"psi\": [1, 2]}", 1.25, &error),
           "history, psi and gradient stored, run finished%s%s", error ? ": " : "",
           error ? error->message : "");
    esl_sensitivity_recorder_free(rec);
    esl_project_close(p);

    p = esl_project_open(path, FALSE, &error);
    g_autoptr(EslRunInfo) info = p ? esl_project_get_run(p, run, &error) : NULL;
    tap_ok(info && info->status == ESL_RUN_FINISHED && info->nbodies == 0 &&
               g_strcmp0(info->formulation, "penalty") == 0 && info->settings.step == 0.01,
           "the run reads as a finished penalty run with its settings");
    tap_ok(p && esl_project_run_is_sensitivity(p, run), "it is a sensitivity run");
    g_autoptr(EslSensitivityRun) s = p ? esl_project_load_sensitivity(p, run, &error) : NULL;
    tap_ok(s && g_strcmp0(s->method, "direct") == 0 && s->nobjectives == NO &&
               s->nparameters == NP && g_strv_length(s->objectives) == NO &&
               g_strcmp0(s->objectives[1], "psi2") == 0 &&
               g_strcmp0(s->parameters[2], "m_A1") == 0 &&
               memcmp(s->parameter_values, parameter_values, sizeof parameter_values) == 0,
           "method, names and parameter values round trip%s%s", error ? ": " : "",
           error ? error->message : "");
    tap_ok(s && s->psi && s->gradient && memcmp(s->psi, psi, sizeof psi) == 0 &&
               memcmp(s->gradient, gradient, sizeof gradient) == 0,
           "psi and the gradient round trip bit for bit");
    tap_ok(history_matches(s, 600), "the 600 history rows round trip bit for bit (%d)",
           s ? s->n : -1);

    /* A plain run is not a sensitivity run. */
    EslRunRequest req = {.model_name = "m", .formulation = "penalty"};
    mbs_settings_defaults(&req.settings);
    gint64 plain = p ? esl_project_begin_run(p, &req, NULL) : 0;
    g_clear_error(&error);
    g_autoptr(EslSensitivityRun) none = p ? esl_project_load_sensitivity(p, plain, &error) : NULL;
    tap_ok(plain && !esl_project_run_is_sensitivity(p, plain) && !none && error &&
               error->code == ESL_PROJECT_ERROR_INVALID,
           "a plain run has no sensitivities: %s", error ? error->message : "");
    g_clear_error(&error);
    gboolean refused = !esl_project_append_sensitivity_history(p, plain, &t, psi, gradient, 1,
                                                               &error);
    tap_ok(refused && error, "history for a plain run refused: %s", error ? error->message : "");
    g_clear_error(&error);
    refused = !esl_project_append_sensitivity_history(p, run, &t, psi, gradient, 1, &error);
    tap_ok(refused && error, "history for a finished run refused: %s",
           error ? error->message : "");
    g_clear_error(&error);
    tap_ok(esl_project_delete_run(p, run, &error) && !esl_project_run_is_sensitivity(p, run),
           "deleting the run deletes its sensitivities");
    esl_project_close(p);
}

static void test_refuses_non_finite(void)
{
    g_autofree char *path = tmp_path("nan.eslabon");
    g_autoptr(GError) error = NULL;
    EslProject *p = esl_project_open(path, TRUE, &error);
    gint64 run = p ? begin_sensitivity_run(p, &error) : 0;
    double t[2], psi[2 * NO], gradient[2 * NO * NP];
    make_row(0, &t[0], psi, gradient);
    make_row(1, &t[1], psi + NO, gradient + NO * NP);
    gradient[NO * NP + 4] = NAN;
    gboolean refused = run && !esl_project_append_sensitivity_history(p, run, t, psi, gradient,
                                                                      2, &error);
    tap_ok(refused && error && strstr(error->message, "row 1"),
           "a NaN in the second row's gradient refuses both rows: %s",
           error ? error->message : "");
    g_clear_error(&error);
    psi[1] = INFINITY;
    refused = !esl_project_set_sensitivity_result(p, run, psi, gradient, &error);
    tap_ok(refused && error,
           "an infinite psi refused: %s", error ? error->message : "");
    g_clear_error(&error);
    double values[NP] = {1.0, NAN, 2.0};
    EslRunRequest req = {.model_name = "m", .formulation = "penalty"};
    mbs_settings_defaults(&req.settings);
    gint64 other = esl_project_begin_run(p, &req, NULL);
    EslSensitivityRequest sreq = {.method = "fd", .nobjectives = NO, .nparameters = NP,
                                  .objectives = objective_names, .parameters = parameter_names,
                                  .parameter_values = values};
    refused = !esl_project_begin_sensitivity(p, other, &sreq, &error);
    tap_ok(refused && error,
           "a NaN parameter value refused: %s", error ? error->message : "");
    g_clear_error(&error);
    g_autoptr(EslSensitivityRun) s = esl_project_load_sensitivity(p, run, &error);
    tap_ok(s && s->n == 0 && !s->psi && !s->gradient && !esl_project_run_is_sensitivity(p, other),
           "nothing of the refused numbers was stored");
    esl_project_close(p);
}

/* A process killed mid-run: the batches it committed are read back, the run is interrupted. */
static void test_killed_run(void)
{
    g_autofree char *path = tmp_path("killed.eslabon");
    EslProject *p = esl_project_open(path, TRUE, NULL);
    esl_project_close(p);
    pid_t child = fork();
    if (child == 0) {
        EslProject *cp = esl_project_open(path, FALSE, NULL);
        gint64 run = cp ? begin_sensitivity_run(cp, NULL) : 0;
        EslSensitivityRecorder *rec = esl_sensitivity_recorder_new(cp, run, NO, NP);
        for (int i = 0; i < 300; i++) { /* one batch of 256 committed, 44 buffered */
            double t, psi[NO], gradient[NO * NP];
            make_row(i, &t, psi, gradient);
            esl_sensitivity_recorder_history(rec, t, psi, gradient);
        }
        _exit(run > 0 ? 0 : 3);
    }
    int wstatus = 0;
    waitpid(child, &wstatus, 0);
    tap_ok(WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == 0, "child wrote 300 rows and died");
    g_autoptr(GError) error = NULL;
    p = esl_project_open(path, FALSE, &error);
    g_autoptr(GPtrArray) runs = p ? esl_project_list_runs(p, &error) : NULL;
    EslRunInfo *info = runs && runs->len == 1 ? runs->pdata[0] : NULL;
    tap_ok(info && info->status == ESL_RUN_INTERRUPTED && esl_project_interrupted_on_open(p) == 1,
           "the killed sensitivity run is listed as interrupted");
    g_autoptr(EslSensitivityRun) s = info ? esl_project_load_sensitivity(p, info->id, &error)
                                          : NULL;
    tap_ok(s && history_matches(s, 256) && !s->psi && !s->gradient,
           "its committed 256 history rows read back, without psi or gradient (%d)%s%s",
           s ? s->n : -1, error ? ": " : "", error ? error->message : "");
    esl_project_close(p);
}

static gboolean sql(const char *path, const char *statements)
{
    sqlite3 *db = NULL;
    int rc = sqlite3_open(path, &db);
    rc = rc == SQLITE_OK ? sqlite3_exec(db, statements, NULL, NULL, NULL) : rc;
    sqlite3_close(db);
    return rc == SQLITE_OK;
}

/* A schema-6 project (made by removing what migration 7 adds) migrates on open. */
static void test_migration_from_6(void)
{
    g_autofree char *path = tmp_path("schema6.eslabon");
    g_autoptr(GError) error = NULL;
    EslProject *p = esl_project_open(path, TRUE, &error);
    EslRunRequest req = {.model_name = "m", .formulation = "penalty"};
    mbs_settings_defaults(&req.settings);
    gint64 old = p ? esl_project_begin_run(p, &req, &error) : 0;
    esl_project_finish_run(p, old, ESL_RUN_FINISHED, NULL, NULL, 1.0, NULL);
    esl_project_close(p);
    tap_ok(old && sql(path, "DROP TABLE sensitivity_history; DROP TABLE sensitivities;"
                            DROP_SCHEMA_10
                            "DELETE FROM schema_migrations WHERE version >= 7;"
                            "PRAGMA user_version = 6; PRAGMA journal_mode = DELETE"),
           "a schema-6 project made");
    p = esl_project_open(path, FALSE, &error);
    g_autoptr(EslRunInfo) info = p ? esl_project_get_run(p, old, &error) : NULL;
    tap_ok(info && info->status == ESL_RUN_FINISHED && !esl_project_run_is_sensitivity(p, old),
           "migrated to schema %d: the old run reads as before%s%s", ESL_PROJECT_SCHEMA_VERSION,
           error ? ": " : "", error ? error->message : "");
    gint64 run = p ? begin_sensitivity_run(p, &error) : 0;
    tap_ok(run > 0, "and the migrated project stores sensitivity runs%s%s", error ? ": " : "",
           error ? error->message : "");
    esl_project_close(p);
}

/* Row i's d q / d rho (NSTATE coordinates x NP parameters). */
enum { NSTATE = 5 };
static void make_state(int i, double sq[NSTATE * NP])
{
    for (int k = 0; k < NSTATE * NP; k++)
        sq[k] = tan(0.01 * i + 0.1 * k) / 11.0;
}

/* Schema 8: the recorder stores each recorded row's d q / d rho (a state for a row it did not
 * record is ignored, as the CLI thins rows), bit for bit; a corrupt BLOB is refused on load;
 * rows without them load with nstate 0. */
static void test_state_round_trip(void)
{
    g_autofree char *path = tmp_path("state.eslabon");
    g_autoptr(GError) error = NULL;
    EslProject *p = esl_project_open(path, TRUE, &error);
    gint64 run = p ? begin_sensitivity_run(p, &error) : 0;
    EslSensitivityRecorder *rec = run ? esl_sensitivity_recorder_new(p, run, NO, NP) : NULL;
    double t, psi[NO], gradient[NO * NP], sq[NSTATE * NP], q[NSTATE] = {0};
    for (int i = 0; rec && i < 600; i++) {
        make_row(i, &t, psi, gradient);
        make_state(i, sq);
        esl_sensitivity_recorder_history(rec, t, psi, gradient);
        esl_sensitivity_recorder_state(rec, t, NSTATE, q, sq);
        esl_sensitivity_recorder_state(rec, t + 0.005, NSTATE, q, sq); /* not recorded */
    }
    tap_ok(rec && esl_sensitivity_recorder_finish(rec, ESL_RUN_FINISHED, psi, gradient, NULL,
                                                  NULL, 1.0, &error),
           "600 rows with their state sensitivities stored%s%s", error ? ": " : "",
           error ? error->message : "");
    esl_sensitivity_recorder_free(rec);
    gint64 plain = p ? begin_sensitivity_run(p, &error) : 0;
    make_row(0, &t, psi, gradient);
    esl_project_append_sensitivity_history(p, plain, &t, psi, gradient, 1, NULL);
    esl_project_finish_run(p, plain, ESL_RUN_FINISHED, NULL, NULL, 1.0, NULL);
    esl_project_close(p);

    p = esl_project_open(path, FALSE, &error);
    g_autoptr(EslSensitivityRun) s = p ? esl_project_load_sensitivity(p, run, &error) : NULL;
    gboolean same = s && history_matches(s, 600) && s->nstate == NSTATE && s->history_state;
    for (int i = 0; same && i < 600; i++) {
        make_state(i, sq);
        same = memcmp(s->history_state + (gsize)i * NSTATE * NP, sq, sizeof sq) == 0;
    }
    tap_ok(same, "they round trip bit for bit (%d coordinates x %d parameters, %d rows)%s%s",
           s ? s->nstate : -1, NP, s ? s->n : -1, error ? ": " : "",
           error ? error->message : "");
    g_autoptr(EslSensitivityRun) none = p ? esl_project_load_sensitivity(p, plain, NULL) : NULL;
    tap_ok(none && none->n == 1 && none->nstate == 0 && !none->history_state,
           "a run stored without them loads with none");
    esl_project_close(p);
    g_autofree char *edit = g_strdup_printf(
        "UPDATE sensitivity_history SET state_sensitivity = zeroblob(20) WHERE run_id = %"
        G_GINT64_FORMAT " AND seq = 7; PRAGMA journal_mode = DELETE", run);
    sql(path, edit);
    p = esl_project_open(path, FALSE, NULL);
    g_clear_error(&error);
    g_autoptr(EslSensitivityRun) bad = p ? esl_project_load_sensitivity(p, run, &error) : NULL;
    tap_ok(!bad && error && error->code == ESL_PROJECT_ERROR_CORRUPT,
           "a state BLOB of 20 bytes (not whole coordinates) refused on load: %s",
           error ? error->message : "");
    esl_project_close(p);
}

/* A schema-7 project (made by removing what migrations 8 and 9 add) migrates on open: its sensitivity
 * run reads as before (no state sensitivities), and new rows store them. */
static void test_migration_from_7(void)
{
    g_autofree char *path = tmp_path("schema7.eslabon");
    g_autoptr(GError) error = NULL;
    EslProject *p = esl_project_open(path, TRUE, &error);
    gint64 old = p ? begin_sensitivity_run(p, &error) : 0;
    double t, psi[NO], gradient[NO * NP], sq[NSTATE * NP];
    make_row(0, &t, psi, gradient);
    esl_project_append_sensitivity_history(p, old, &t, psi, gradient, 1, NULL);
    esl_project_finish_run(p, old, ESL_RUN_FINISHED, NULL, NULL, 1.0, NULL);
    esl_project_close(p);
    tap_ok(old && sql(path, "ALTER TABLE sensitivity_history DROP COLUMN state_sensitivity;"
                            "ALTER TABLE sensitivities DROP COLUMN method_options;"
                            "ALTER TABLE sensitivities DROP COLUMN points;"
                            "ALTER TABLE sensitivity_history DROP COLUMN point_sensitivity;"
                            DROP_SCHEMA_10
                            "DELETE FROM schema_migrations WHERE version >= 8;"
                            "PRAGMA user_version = 7; PRAGMA journal_mode = DELETE"),
           "a schema-7 project made");
    p = esl_project_open(path, FALSE, &error);
    g_autoptr(EslSensitivityRun) s = p ? esl_project_load_sensitivity(p, old, &error) : NULL;
    tap_ok(s && history_matches(s, 1) && s->nstate == 0,
           "migrated to schema %d: the old sensitivity run reads as before%s%s",
           ESL_PROJECT_SCHEMA_VERSION, error ? ": " : "", error ? error->message : "");
    gint64 run = p ? begin_sensitivity_run(p, &error) : 0;
    make_state(0, sq);
    tap_ok(run && esl_project_append_sensitivity_rows(p, run, &t, psi, gradient, sq, NSTATE,
                                                      NULL, 1, &error),
           "and stores state sensitivities%s%s", error ? ": " : "", error ? error->message : "");
    esl_project_close(p);
}

/* matrix-r adjoint's options, none at its default: jacobian ad, 0.5 MiB, parameter step 1e-4/3
 * (a number that rounds if written with too few digits). */
static void odd_matrix_r_options(MbsSettings *o)
{
    mbs_settings_defaults(o);
    MbsError err = {0};
    mbs_settings_set(o, &mbs_matrix_r_sens_settings, "jacobian", "ad", &err);
    mbs_settings_set(o, &mbs_matrix_r_sens_settings, "adjoint-memory", "0.5", &err);
    mbs_settings_set(o, &mbs_matrix_r_sens_settings, "parameter-step", "3.3333333333333335e-05",
                     &err);
}

/* Schema 9: the method's own options round trip (stored as JSON from the table, read back into
 * the table's struct: equal byte for byte); a method without a table stores "{}" and reads
 * back none; malformed options are refused on store and on load. */
static void test_method_options_round_trip(void)
{
    g_autofree char *path = tmp_path("options.eslabon");
    g_autoptr(GError) error = NULL;
    MbsSettings given, defaults;
    odd_matrix_r_options(&given);
    mbs_settings_defaults(&defaults);
    mbs_settings_use_options(&defaults, &mbs_matrix_r_sens_settings);
    g_autofree char *json = esl_settings_options_to_json(&given);
    EslProject *p = esl_project_open(path, TRUE, &error);
    gint64 run = p ? begin_method_run(p, "matrix-r", "adjoint", json, &error) : 0;
    gint64 plain = p ? begin_sensitivity_run(p, &error) : 0;
    esl_project_finish_run(p, run, ESL_RUN_FINISHED, NULL, NULL, 1.0, NULL);
    esl_project_finish_run(p, plain, ESL_RUN_FINISHED, NULL, NULL, 1.0, NULL);
    g_clear_error(&error);
    gint64 refused = p ? begin_method_run(p, "matrix-r", "adjoint", "[1, 2]", &error) : 0;
    tap_ok(!refused && error && error->code == ESL_PROJECT_ERROR_INVALID,
           "options that are not a JSON object refused: %s", error ? error->message : "");
    g_clear_error(&error);
    esl_project_close(p);

    p = esl_project_open(path, FALSE, &error);
    g_autoptr(EslSensitivityRun) s = p ? esl_project_load_sensitivity(p, run, &error) : NULL;
    MbsSettings back;
    gboolean read = s && esl_sensitivity_run_method_options(s, "matrix-r", &back, &error);
    tap_ok(read && back.options_table == &mbs_matrix_r_sens_settings &&
               memcmp(back.options.bytes, given.options.bytes,
                      sizeof(MbsMatrixRSensOptions)) == 0 &&
               memcmp(back.options.bytes, defaults.options.bytes,
                      sizeof(MbsMatrixRSensOptions)) != 0,
           "matrix-r adjoint's options (%s) read back equal, none at its default%s%s",
           s && s->method_options ? s->method_options : "none", error ? ": " : "",
           error ? error->message : "");
    g_autoptr(EslSensitivityRun) d = p ? esl_project_load_sensitivity(p, plain, &error) : NULL;
    read = d && esl_sensitivity_run_method_options(d, "penalty", &back, &error);
    tap_ok(read && g_strcmp0(d->method_options, "{}") == 0 && !back.options_table,
           "penalty direct (no options of its own) stores {} and reads back none");
    esl_project_close(p);

    g_autofree char *edit = g_strdup_printf(
        "UPDATE sensitivities SET method_options = '\"ad\"' WHERE run_id = %" G_GINT64_FORMAT
        "; PRAGMA journal_mode = DELETE", run);
    sql(path, edit);
    p = esl_project_open(path, FALSE, NULL);
    g_clear_error(&error);
    g_autoptr(EslSensitivityRun) bad = p ? esl_project_load_sensitivity(p, run, &error) : NULL;
    tap_ok(!bad && error && error->code == ESL_PROJECT_ERROR_CORRUPT,
           "stored options that are not a JSON object refused on load: %s",
           error ? error->message : "");
    esl_project_close(p);
    sql(path, "UPDATE sensitivities SET method_options = '{\"adjoint-memory\": -3}';"
              "PRAGMA journal_mode = DELETE");
    p = esl_project_open(path, FALSE, NULL);
    g_clear_error(&error);
    g_autoptr(EslSensitivityRun) out = p ? esl_project_load_sensitivity(p, run, &error) : NULL;
    read = out && esl_sensitivity_run_method_options(out, "matrix-r", &back, &error);
    tap_ok(out && !read && error && strstr(error->message, "adjoint-memory"),
           "an option out of its range loads but does not read: %s",
           error ? error->message : "");
    esl_project_close(p);
}

/* A schema-8 project (made by removing what migration 9 adds) migrates on open: its
 * sensitivity run reads with options unknown (NULL: the defaults read back) and no points, and
 * new runs store theirs. */
static void test_migration_from_8(void)
{
    g_autofree char *path = tmp_path("schema8.eslabon");
    g_autoptr(GError) error = NULL;
    EslProject *p = esl_project_open(path, TRUE, &error);
    gint64 old = p ? begin_method_run(p, "matrix-r", "direct", NULL, &error) : 0;
    double t, psi[NO], gradient[NO * NP];
    make_row(0, &t, psi, gradient);
    esl_project_append_sensitivity_history(p, old, &t, psi, gradient, 1, NULL);
    esl_project_finish_run(p, old, ESL_RUN_FINISHED, NULL, NULL, 1.0, NULL);
    esl_project_close(p);
    tap_ok(old && sql(path, "ALTER TABLE sensitivities DROP COLUMN method_options;"
                            "ALTER TABLE sensitivities DROP COLUMN points;"
                            "ALTER TABLE sensitivity_history DROP COLUMN point_sensitivity;"
                            DROP_SCHEMA_10
                            "DELETE FROM schema_migrations WHERE version >= 9;"
                            "PRAGMA user_version = 8; PRAGMA journal_mode = DELETE"),
           "a schema-8 project made");
    p = esl_project_open(path, FALSE, &error);
    g_autoptr(EslSensitivityRun) s = p ? esl_project_load_sensitivity(p, old, &error) : NULL;
    MbsSettings back, defaults;
    mbs_settings_defaults(&defaults);
    mbs_settings_use_options(&defaults, &mbs_matrix_r_sens_settings);
    gboolean read = s && esl_sensitivity_run_method_options(s, "matrix-r", &back, &error);
    tap_ok(s && history_matches(s, 1) && !s->method_options && read && s->npoints == 0 &&
               !s->history_points &&
               back.options_table == &mbs_matrix_r_sens_settings &&
               memcmp(back.options.bytes, defaults.options.bytes,
                      sizeof(MbsMatrixRSensOptions)) == 0,
           "migrated to schema %d: the old run reads as before, its options unknown (the "
           "defaults)%s%s", ESL_PROJECT_SCHEMA_VERSION, error ? ": " : "",
           error ? error->message : "");
    MbsSettings given;
    odd_matrix_r_options(&given);
    g_autofree char *json = esl_settings_options_to_json(&given);
    gint64 run = p ? begin_method_run(p, "matrix-r", "direct", json, &error) : 0;
    g_autoptr(EslSensitivityRun) n = run ? esl_project_load_sensitivity(p, run, &error) : NULL;
    tap_ok(n && g_strcmp0(n->method_options, json) == 0,
           "and stores the options of new runs%s%s", error ? ": " : "",
           error ? error->message : "");
    esl_project_close(p);
}

/* Schema 9: the named points of a run and their d r / d rho at each row round trip bit for bit
 * (through the recorder, rows it did not record ignored); a row without them drops them all
 * on load; a BLOB of another size is refused. */
static void test_points_round_trip(void)
{
    enum { NPT = 2, NR = 3 * NPT };
    static const char *const points[NPT] = {"12:2", "A1:1"};
    g_autofree char *path = tmp_path("points.eslabon");
    g_autoptr(GError) error = NULL;
    EslProject *p = esl_project_open(path, TRUE, &error);
    EslRunRequest req = {.model_name = "five-bar", .formulation = "penalty"};
    mbs_settings_defaults(&req.settings);
    gint64 run = p ? esl_project_begin_run(p, &req, &error) : 0;
    EslSensitivityRequest sreq = {.method = "direct", .nobjectives = NO, .nparameters = NP,
                                  .objectives = objective_names, .parameters = parameter_names,
                                  .parameter_values = parameter_values,
                                  .method_options = "{}", .npoints = NPT, .points = points};
    gboolean begun = run && esl_project_begin_sensitivity(p, run, &sreq, &error);
    EslSensitivityRecorder *rec = begun ? esl_sensitivity_recorder_new(p, run, NO, NP) : NULL;
    double t, psi[NO], gradient[NO * NP], dr[NR * NP];
    for (int i = 0; rec && i < 300; i++) {
        make_row(i, &t, psi, gradient);
        for (int k = 0; k < NR * NP; k++)
            dr[k] = sin(0.3 * i + k) / 13.0;
        esl_sensitivity_recorder_history(rec, t, psi, gradient);
        esl_sensitivity_recorder_points(rec, t, NR, dr);
        esl_sensitivity_recorder_points(rec, t + 0.005, NR, dr); /* not recorded */
    }
    tap_ok(rec && esl_sensitivity_recorder_finish(rec, ESL_RUN_FINISHED, psi, gradient, NULL,
                                                  NULL, 1.0, &error),
           "300 rows with the d r / d rho of 2 points stored%s%s", error ? ": " : "",
           error ? error->message : "");
    esl_sensitivity_recorder_free(rec);
    esl_project_close(p);
    p = esl_project_open(path, FALSE, &error);
    g_autoptr(EslSensitivityRun) s = p ? esl_project_load_sensitivity(p, run, &error) : NULL;
    gboolean same = s && s->npoints == NPT && !g_strcmp0(s->points[0], "12:2") &&
                    !g_strcmp0(s->points[1], "A1:1") && s->history_points && s->n == 300;
    for (int i = 0; same && i < 300; i++)
        for (int k = 0; same && k < NR * NP; k++)
            same = s->history_points[(gsize)i * NR * NP + k] == sin(0.3 * i + k) / 13.0;
    tap_ok(same, "the point names and their 300 rows of d r / d rho round trip bit for bit%s%s",
           error ? ": " : "", error ? error->message : "");
    esl_project_close(p);
    g_autofree char *edit = g_strdup_printf(
        "UPDATE sensitivity_history SET point_sensitivity = NULL WHERE run_id = %" G_GINT64_FORMAT
        " AND seq = 3; PRAGMA journal_mode = DELETE", run);
    sql(path, edit);
    p = esl_project_open(path, FALSE, NULL);
    g_autoptr(EslSensitivityRun) some = p ? esl_project_load_sensitivity(p, run, NULL) : NULL;
    tap_ok(some && some->npoints == NPT && !some->history_points && some->n == 300,
           "a row without them: the run loads without point histories");
    esl_project_close(p);
    g_autofree char *bad = g_strdup_printf(
        "UPDATE sensitivity_history SET point_sensitivity = zeroblob(%d) WHERE run_id = %"
        G_GINT64_FORMAT "; PRAGMA journal_mode = DELETE", 8 * 3 * NP, run);
    sql(path, bad);
    p = esl_project_open(path, FALSE, NULL);
    g_clear_error(&error);
    g_autoptr(EslSensitivityRun) wrong = p ? esl_project_load_sensitivity(p, run, &error) : NULL;
    tap_ok(!wrong && error && error->code == ESL_PROJECT_ERROR_CORRUPT,
           "rows of 1 point for a run of 2 refused on load: %s", error ? error->message : "");
    esl_project_close(p);
}

static gboolean same_file(const char *path, const char *bytes, gsize len)
{
    g_autofree char *now = NULL;
    gsize now_len = 0;
    return g_file_get_contents(path, &now, &now_len, NULL) && now_len == len &&
           memcmp(now, bytes, len) == 0;
}

/* Stored sizes that do not match what is stored: the file opens, that run is refused. A file
 * claiming schema 6 with the tables of 7 is refused byte-identical. */
static void test_bad_files(void)
{
    g_autofree char *path = tmp_path("bad-sens.eslabon");
    g_autoptr(GError) error = NULL;
    EslProject *p = esl_project_open(path, TRUE, &error);
    gint64 a = p ? begin_sensitivity_run(p, &error) : 0;
    gint64 b = p ? begin_sensitivity_run(p, &error) : 0;
    gint64 c = p ? begin_sensitivity_run(p, &error) : 0;
    double t, psi[NO], gradient[NO * NP];
    make_row(3, &t, psi, gradient);
    for (gint64 r = a; r && r <= c; r++) {
        esl_project_append_sensitivity_history(p, r, &t, psi, gradient, 1, NULL);
        esl_project_set_sensitivity_result(p, r, psi, gradient, NULL);
        esl_project_finish_run(p, r, ESL_RUN_FINISHED, NULL, NULL, 1.0, NULL);
    }
    esl_project_close(p);
    g_autofree char *edits = g_strdup_printf(
        "UPDATE sensitivities SET gradient = zeroblob(40) WHERE run_id = %" G_GINT64_FORMAT ";"
        "UPDATE sensitivities SET nobjectives = 100000000 WHERE run_id = %" G_GINT64_FORMAT ";"
        "UPDATE sensitivity_history SET psi = zeroblob(8) WHERE run_id = %" G_GINT64_FORMAT ";"
        "PRAGMA journal_mode = DELETE", a, b, c);
    gboolean refused = FALSE;
    tap_ok(c && sql(path, edits), "three runs with wrong stored sizes made");
    p = esl_project_open(path, FALSE, &error);
    tap_ok(p != NULL, "the file still opens%s%s", error ? ": " : "", error ? error->message : "");
    const gint64 bad[] = {a, b, c};
    const char *what[] = {"gradient of 5 doubles", "1e8 objectives", "history psi of 1 double"};
    for (int i = 0; i < 3; i++) {
        g_clear_error(&error);
        g_autoptr(EslSensitivityRun) s = p ? esl_project_load_sensitivity(p, bad[i], &error)
                                           : NULL;
        tap_ok(!s && error && error->code == ESL_PROJECT_ERROR_CORRUPT,
               "%s refused on load: %s", what[i], error ? error->message : "");
    }
    esl_project_close(p);

    /* The tables of schema 7 in a file that says 6: not what migrations 1..6 create. */
    g_autofree char *lying = tmp_path("lying.eslabon");
    p = esl_project_open(lying, TRUE, NULL);
    esl_project_close(p);
    sql(lying, "PRAGMA journal_mode = DELETE; DELETE FROM schema_migrations WHERE version >= 7;"
               "PRAGMA user_version = 6");
    g_autofree char *bytes = NULL;
    gsize len = 0;
    g_file_get_contents(lying, &bytes, &len, NULL);
    g_clear_error(&error);
    p = esl_project_open(lying, FALSE, &error);
    refused = p == NULL;
    g_autofree char *wal = g_strconcat(lying, "-wal", NULL);
    tap_ok(refused && error && error->code == ESL_PROJECT_ERROR_NOT_PROJECT &&
               same_file(lying, bytes, len) &&
               !g_file_test(wal, G_FILE_TEST_EXISTS),
           "schema 6 with the sensitivity tables refused, byte-identical: %s",
           error ? error->message : "");
    esl_project_close(p);
}

int main(void)
{
    tmpdir = g_dir_make_tmp("esl-project-sens-XXXXXX", NULL);
    test_round_trip();
    test_refuses_non_finite();
    test_killed_run();
    test_migration_from_6();
    test_state_round_trip();
    test_migration_from_7();
    test_method_options_round_trip();
    test_migration_from_8();
    test_points_round_trip();
    test_bad_files();
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
