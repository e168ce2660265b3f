/* Project store: exact round trips, refusal of foreign/corrupt files (left byte-identical),
 * refusal of NaN, and a run killed mid-way marked "interrupted" without harming other runs. */
#include <glib/gstdio.h>
#include <math.h>
#include <sqlite3.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "esl-project.h"
#include "eslabon-config.h"
#include "tap.h"

static char *tmpdir;
enum { NJ = 3 }; /* joints per stored violation vector */

static char *tmp_path(const char *name)
{
    return g_build_filename(tmpdir, name, NULL);
}

/* Deterministic, awkward numbers (not round in binary) so that any rounding shows. */
static void make_samples(int n, int nbodies, int salt, MbsMonitors *m, double *poses,
                         double *violations)
{
    for (int i = 0; i < n; i++) {
        double t = i * 0.001 + salt * 1e-7;
        m[i] = (MbsMonitors){
            .time = t,
            .kinetic = 1.0 / 3.0 + sin(t),
            .potential_gravity = -9.81 * cos(t) / 7.0,
            .potential_elastic = exp(-t) * M_PI,
            .work_nonconservative = -t * t / 11.0,
            .phi_norm = 1e-13 * (i + 1) / 3.0,
            .dphi_norm = 2e-11 / (i + 3.0),
            .ddphi_norm = 5e-9 * sqrt(i + 2.0),
            .newton_iterations = 2 + i % 3,
            .jacobian_evaluations = i % 2,
            .time_dynamics = 1.1e-5 * (i + 1),
            .time_jacobian = 3.7e-6,
            .time_factorization = 2.3e-6 / (i + 1),
            .time_projection = 9.1e-7,
            .time_step = 4.4e-5 + i * 1e-9,
        };
        m[i].total = m[i].kinetic + m[i].potential_gravity + m[i].potential_elastic -
                     m[i].work_nonconservative;
        for (int k = 0; k < nbodies * 12; k++)
            poses[(size_t)i * nbodies * 12 + k] = sin(1.0 + i + 0.37 * k + salt) / 3.0;
        for (int k = 0; k < NJ; k++)
            violations[(size_t)i * NJ + k] = 1e-12 * exp(0.1 * i + k) / 3.0;
    }
}

static EslRunRequest sample_request(const char *formulation, gint64 model_id, int nbodies)
{
    EslRunRequest r = {.model_name = "four-bar-spatial", .model_id = model_id,
                       .formulation = formulation, .nbodies = nbodies, .njoints = NJ,
                       .parameters_json = "{\"crank_length\": 0.1}"};
    mbs_settings_defaults(&r.settings);
    r.settings.step = 1.0 / 300.0;
    r.settings.duration = 2.5;
    r.settings.penalty = 1e7 / 3.0;
    r.settings.newton_tolerance = 1.0 / 7.0 * 1e-10;
    r.settings.newton_max_iterations = 17;
    r.settings.jacobian_reuse = 3;
    r.settings.assembly_tolerance = 1e-12 / 3.0;
    r.settings.jacobian = MBS_JACOBIAN_ND_CENTRAL;
    r.settings.newmark_beta = 0.3 / 7.0;
    r.settings.newmark_gamma = 0.6 / 7.0;
    r.settings.projection_kind = 1;
    r.settings.matrix_r_integrator = 1;
    r.settings.matrix_r_sparse = 1;
    r.settings.matrix_r_rcond = 1.0 / 3.0;
    r.settings.ali3p_solver = 2;
    r.settings.threads = 2;
    r.settings.matrix_r_ndofs = 2; /* a joint coordinate and a point coordinate */
    r.settings.matrix_r_dof_joint[0] = 3;
    r.settings.matrix_r_dof_coord[0] = 1;
    r.settings.matrix_r_dof_joint[1] = -1;
    r.settings.matrix_r_dof_point[1] = 4;
    r.settings.matrix_r_dof_axis[1] = 2;
    return r;
}

static gboolean monitors_equal(const MbsMonitors *a, const MbsMonitors *b)
{
    return a->time == b->time && a->kinetic == b->kinetic &&
           a->potential_gravity == b->potential_gravity &&
           a->potential_elastic == b->potential_elastic &&
           a->work_nonconservative == b->work_nonconservative && a->total == b->total &&
           a->phi_norm == b->phi_norm && a->dphi_norm == b->dphi_norm &&
           a->ddphi_norm == b->ddphi_norm && a->newton_iterations == b->newton_iterations &&
           a->jacobian_evaluations == b->jacobian_evaluations &&
           a->time_dynamics == b->time_dynamics && a->time_jacobian == b->time_jacobian &&
           a->time_factorization == b->time_factorization &&
           a->time_projection == b->time_projection && a->time_step == b->time_step;
}

static gboolean file_bytes(const char *path, char **data, gsize *len)
{
    return g_file_get_contents(path, data, len, NULL);
}

static gboolean same_bytes(const char *path, const char *before, gsize before_len)
{
    g_autofree char *after = NULL;
    gsize after_len = 0;
    return file_bytes(path, &after, &after_len) && after_len == before_len &&
           memcmp(after, before, before_len) == 0;
}

/* Write one finished run with 'n' samples; return its id. */
static gint64 write_finished_run(EslProject *p, gint64 model_id, int n, int nbodies, int salt)
{
    EslRunRequest req = sample_request("penalty", model_id, nbodies);
    gint64 run = esl_project_begin_run(p, &req, NULL);
    g_autofree MbsMonitors *m = g_new0(MbsMonitors, n);
    g_autofree double *poses = g_new0(double, (size_t)n * nbodies * 12 + 1);
    g_autofree double *viol = g_new0(double, (size_t)n * NJ);
    make_samples(n, nbodies, salt, m, poses, viol);
    esl_project_append_samples(p, run, m, poses, viol, n / 2, NULL);
    esl_project_append_samples(p, run, m + n / 2, poses + (size_t)(n / 2) * nbodies * 12,
                               viol + (n / 2) * NJ, n - n / 2, NULL);
    esl_project_finish_run(p, run, ESL_RUN_FINISHED, NULL,
                           "{\"energy_drift_max\": 1.25e-06, \"steps\": 750}", 0.5, NULL);
    return run;
}

static void test_round_trip(void)
{
    g_autofree char *path = tmp_path("round-trip.eslabon");
    g_autoptr(GError) error = NULL;
    EslProject *p = esl_project_open(path, FALSE, &error);
    tap_ok(p == NULL && error && error->code == ESL_PROJECT_ERROR_NOT_FOUND,
           "opening a missing project without create fails: %s", error ? error->message : "");
    g_clear_error(&error);

    p = esl_project_open(path, TRUE, &error);
    if (!tap_ok(p != NULL, "create a new project"))
        tap_diag("%s", error->message);
    if (!p)
        return;
    const char *model_text = "{\"name\": \"four-bar-spatial\", \"bodies\": []}";
    gint64 model_id = esl_project_add_model(p, "four-bar-spatial", "/models/four-bar.json",
                                            model_text, &error);
    tap_ok(model_id > 0, "model stored with id %" G_GINT64_FORMAT, model_id);

    enum { N = 101, NB = 4 };
    EslRunRequest req = sample_request("penalty", model_id, NB);
    gint64 run = esl_project_begin_run(p, &req, &error);
    tap_ok(run > 0, "run created");
    MbsMonitors m[N];
    double poses[N * NB * 12], viol[N * NJ];
    make_samples(N, NB, 0, m, poses, viol);
    gboolean ok = esl_project_append_samples(p, run, m, poses, viol, 40, &error) &&
                  esl_project_append_samples(p, run, m + 40, poses + 40 * NB * 12, viol + 40 * NJ,
                                             N - 40, &error);
    tap_ok(ok, "samples appended in two batches");

    g_autoptr(EslRunInfo) live = esl_project_get_run(p, run, &error);
    tap_ok(live && live->status == ESL_RUN_RUNNING && live->finished_at == NULL,
           "a run starts in status running");

    MbsMonitors bad = m[3];
    bad.potential_elastic = NAN;
    g_clear_error(&error);
    ok = esl_project_append_samples(p, run, &bad, poses, viol, 1, &error);
    tap_ok(!ok && error && strstr(error->message, "potential_elastic") &&
               strstr(error->message, "nan"),
           "NaN refused with a message naming the field: %s", error ? error->message : "");
    g_clear_error(&error);
    double bad_poses[NB * 12];
    memcpy(bad_poses, poses, sizeof bad_poses);
    bad_poses[12 * 2 + 5] = INFINITY;
    ok = esl_project_append_samples(p, run, &m[5], bad_poses, viol, 1, &error);
    tap_ok(!ok && error && strstr(error->message, "body 2"),
           "infinite pose refused naming the body: %s", error ? error->message : "");
    g_clear_error(&error);
    double bad_viol[NJ] = {0, NAN, 0};
    ok = esl_project_append_samples(p, run, &m[5], poses, bad_viol, 1, &error);
    tap_ok(!ok && error && strstr(error->message, "joint 1"),
           "NaN violation refused naming the joint: %s", error ? error->message : "");
    g_clear_error(&error);

    const char *summary = "{\"energy_drift_max\": 3.3333333333333335e-07, \"steps\": 100}";
    ok = esl_project_finish_run(p, run, ESL_RUN_FINISHED, NULL, summary, 1.0 / 3.0, &error);
    tap_ok(ok, "run finished");
    ok = esl_project_append_samples(p, run, m, poses, viol, 1, &error);
    tap_ok(!ok, "samples refused once a run is finished: %s", error ? error->message : "");
    g_clear_error(&error);

    gint64 failed = esl_project_begin_run(p, &req, &error);
    esl_project_finish_run(p, failed, ESL_RUN_FAILED, "Newton did not converge at t = 0.5 s",
                           NULL, 0.25, &error);
    esl_project_close(p);

    /* Reopen and compare everything. */
    p = esl_project_open(path, FALSE, &error);
    if (!tap_ok(p != NULL, "reopen the project"))
        return;
    tap_ok(esl_project_interrupted_on_open(p) == 0, "nothing interrupted on a clean reopen");
    g_autoptr(GPtrArray) runs = esl_project_list_runs(p, &error);
    tap_ok(runs && runs->len == 2, "two runs listed");
    EslRunInfo *info = runs->pdata[0];
    tap_ok(info->id == run && info->model_id == model_id &&
               strcmp(info->model_name, "four-bar-spatial") == 0 &&
               strcmp(info->formulation, "penalty") == 0,
           "run identity round trip");
    const MbsSettings *s = &info->settings;
    tap_ok(s->step == req.settings.step && s->duration == req.settings.duration &&
               s->penalty == req.settings.penalty &&
               s->newton_tolerance == req.settings.newton_tolerance &&
               s->newton_max_iterations == 17 && s->jacobian_reuse == 3 &&
               s->assembly_tolerance == req.settings.assembly_tolerance &&
               s->jacobian == MBS_JACOBIAN_ND_CENTRAL,
           "settings round trip exactly");
    tap_ok(s->newmark_beta == req.settings.newmark_beta &&
               s->newmark_gamma == req.settings.newmark_gamma && s->projection_kind == 1 &&
               s->matrix_r_integrator == 1 && s->matrix_r_sparse == 1 &&
               s->matrix_r_rcond == req.settings.matrix_r_rcond && s->ali3p_solver == 2 &&
               s->threads == 2,
           "the formulations' own settings round trip exactly");
    tap_ok(s->matrix_r_ndofs == 2 && s->matrix_r_dof_joint[0] == 3 &&
               s->matrix_r_dof_coord[0] == 1 && s->matrix_r_dof_joint[1] == -1 &&
               s->matrix_r_dof_point[1] == 4 && s->matrix_r_dof_axis[1] == 2,
           "matrix-r's chosen coordinates round trip (joint 3 coordinate 1, point 4 axis z)");
    tap_ok(info->status == ESL_RUN_FINISHED && info->wall_time == 1.0 / 3.0 &&
               info->finished_at != NULL && info->nsamples == N && info->nbodies == NB,
           "status, wall time and sample count round trip");
    tap_ok(g_strcmp0(info->summary_json, summary) == 0, "summary round trips exactly");
    tap_ok(g_strcmp0(info->parameters_json, req.parameters_json) == 0,
           "parameter overrides round trip");
    tap_ok(g_strcmp0(info->eslabon_version, ESLABON_VERSION) == 0 && info->hostname &&
               info->hostname[0] && info->started_at && strchr(info->started_at, 'T'),
           "provenance recorded (version %s, host %s, started %s)", info->eslabon_version,
           info->hostname, info->started_at);
    EslRunInfo *info2 = runs->pdata[1];
    tap_ok(info2->status == ESL_RUN_FAILED &&
               g_strcmp0(info2->message, "Newton did not converge at t = 0.5 s") == 0 &&
               info2->summary_json == NULL,
           "failed run keeps its message");

    g_autoptr(EslRunHistory) h = esl_project_load_run(p, run, &error);
    gboolean all_equal = h && h->n == N && h->nbodies == NB;
    for (int i = 0; all_equal && i < N; i++)
        all_equal = monitors_equal(&h->monitors[i], &m[i]);
    tap_ok(all_equal, "all %d monitor samples round trip bit for bit", N);
    tap_ok(h && memcmp(h->poses, poses, sizeof poses) == 0, "body poses round trip bit for bit");
    tap_ok(h && h->njoints == NJ && memcmp(h->violations, viol, sizeof viol) == 0,
           "joint violations round trip bit for bit");

    g_autofree char *json = esl_project_model_json(p, model_id, &error);
    tap_ok(g_strcmp0(json, model_text) == 0, "model JSON round trips");

    g_autofree char *copy = tmp_path("copy.eslabon");
    ok = esl_project_save_copy(p, copy, &error);
    esl_project_close(p);
    p = ok ? esl_project_open(copy, FALSE, &error) : NULL;
    g_autoptr(GPtrArray) copy_runs = p ? esl_project_list_runs(p, NULL) : NULL;
    tap_ok(copy_runs && copy_runs->len == 2, "a saved copy opens with both runs");
    if (p) {
        tap_ok(esl_project_delete_run(p, run, NULL), "delete a run");
        g_autoptr(EslRunHistory) gone = esl_project_load_run(p, run, NULL);
        tap_ok(gone == NULL, "a deleted run cannot be loaded");
        esl_project_close(p);
    }
}

static void test_refuses_foreign_and_corrupt(void)
{
    g_autoptr(GError) error = NULL;

    /* A text file. */
    g_autofree char *text = tmp_path("notes.eslabon");
    g_file_set_contents(text, "just some notes, not a database\n", -1, NULL);
    EslProject *p = esl_project_open(text, TRUE, &error);
    tap_ok(!p && error && error->code == ESL_PROJECT_ERROR_NOT_PROJECT &&
               strstr(error->message, "not an Eslabón project"),
           "text file refused: %s", error ? error->message : "");
    g_clear_error(&error);

    /* An SQLite database of another application. */
    g_autofree char *foreign = tmp_path("foreign.sqlite");
    sqlite3 *db = NULL;
    sqlite3_open(foreign, &db);
    sqlite3_exec(db, "CREATE TABLE contacts(name TEXT); INSERT INTO contacts VALUES('Ana');",
                 NULL, NULL, NULL);
    sqlite3_close(db);
    g_autofree char *before = NULL;
    gsize before_len = 0;
    file_bytes(foreign, &before, &before_len);
    p = esl_project_open(foreign, TRUE, &error);
    tap_ok(!p && error && error->code == ESL_PROJECT_ERROR_NOT_PROJECT &&
               strstr(error->message, "another application"),
           "foreign SQLite file refused: %s", error ? error->message : "");
    tap_ok(same_bytes(foreign, before, before_len), "foreign SQLite file left byte-identical");
    g_autofree char *foreign_wal = g_strconcat(foreign, "-wal", NULL);
    tap_ok(!g_file_test(foreign_wal, G_FILE_TEST_EXISTS),
           "no WAL file left next to the foreign file");
    g_clear_error(&error);

    /* A real project whose pages are damaged. */
    g_autofree char *corrupt = tmp_path("corrupt.eslabon");
    p = esl_project_open(corrupt, TRUE, &error);
    gint64 model_id = esl_project_add_model(p, "m", NULL, "{}", NULL);
    for (int r = 0; r < 3; r++)
        write_finished_run(p, model_id, 400, 3, r);
    esl_project_close(p);
    g_autofree char *data = NULL;
    gsize len = 0;
    file_bytes(corrupt, &data, &len);
    tap_ok(len > 8 * 4096, "project large enough to damage (%zu bytes)", len);
    /* Scribble over the middle of the file, keeping the header intact. */
    for (gsize i = len / 2; i < len / 2 + 3000 && i < len; i++)
        data[i] = (char)(0xA5 ^ (i * 31));
    g_file_set_contents(corrupt, data, (gssize)len, NULL);
    p = esl_project_open(corrupt, FALSE, &error);
    tap_ok(!p && error && error->code == ESL_PROJECT_ERROR_CORRUPT &&
               strstr(error->message, "corrupt"),
           "damaged project refused: %s", error ? error->message : "");
    tap_ok(same_bytes(corrupt, data, len), "damaged project left byte-identical");
    g_clear_error(&error);

    /* A truncated project. */
    g_autofree char *truncated = tmp_path("truncated.eslabon");
    g_file_set_contents(truncated, data, (gssize)(len / 3), NULL);
    p = esl_project_open(truncated, FALSE, &error);
    tap_ok(!p && error && error->code == ESL_PROJECT_ERROR_CORRUPT,
           "truncated project refused: %s", error ? error->message : "");
    tap_ok(same_bytes(truncated, data, len / 3), "truncated project left byte-identical");
    g_clear_error(&error);

    /* A project from a newer Eslabón. */
    g_autofree char *newer = tmp_path("newer.eslabon");
    p = esl_project_open(newer, TRUE, NULL);
    esl_project_close(p);
    sqlite3_open(newer, &db);
    sqlite3_exec(db, "PRAGMA user_version = 99", NULL, NULL, NULL);
    sqlite3_close(db);
    g_autofree char *newer_bytes = NULL;
    gsize newer_len = 0;
    file_bytes(newer, &newer_bytes, &newer_len);
    p = esl_project_open(newer, FALSE, &error);
    tap_ok(!p && error && error->code == ESL_PROJECT_ERROR_TOO_NEW &&
               strstr(error->message, "newer Eslabón"),
           "project from a newer version refused: %s", error ? error->message : "");
    tap_ok(same_bytes(newer, newer_bytes, newer_len), "newer project left byte-identical");
}

/* A schema-1 project (made by removing what migration 2 adds) is migrated on open; its runs get
 * the engine's defaults for the settings it did not store. */
static void test_migration_from_1(void)
{
    g_autofree char *path = tmp_path("schema1.eslabon");
    g_autoptr(GError) error = NULL;
    EslProject *p = esl_project_open(path, TRUE, &error);
    EslRunRequest req = sample_request("ali3p", 0, 0);
    gint64 run = p ? esl_project_begin_run(p, &req, &error) : 0;
    esl_project_close(p);
    sqlite3 *db = NULL;
    sqlite3_open(path, &db);
    static const char *const added[] = {"newmark_beta",    "newmark_gamma",       "projection_kind",
                                        "matrix_r_integrator", "matrix_r_sparse", "matrix_r_rcond",
                                        "ali3p_solver",    "threads",             "matrix_r_dofs"};
    int rc = SQLITE_OK;
    for (size_t i = 0; i < G_N_ELEMENTS(added) && rc == SQLITE_OK; i++) {
        g_autofree char *sql = g_strdup_printf("ALTER TABLE runs DROP COLUMN %s", added[i]);
        rc = sqlite3_exec(db, sql, NULL, NULL, NULL);
    }
    rc = rc == SQLITE_OK ? sqlite3_exec(db, "DELETE FROM schema_migrations WHERE version >= 2;"
                                            "PRAGMA user_version = 1",
                                        NULL, NULL, NULL)
                         : rc;
    sqlite3_close(db);
    tap_ok(run > 0 && rc == SQLITE_OK, "a schema-1 project made");
    p = esl_project_open(path, FALSE, &error);
    g_autoptr(EslRunInfo) info = p ? esl_project_get_run(p, run, &error) : NULL;
    MbsSettings defaults;
    mbs_settings_defaults(&defaults);
    tap_ok(info && info->settings.newmark_beta == defaults.newmark_beta &&
               info->settings.ali3p_solver == defaults.ali3p_solver &&
               info->settings.step == req.settings.step && info->settings.matrix_r_ndofs == 0,
           "migrated to schema %d: the old run reads with default formulation settings%s%s",
           ESL_PROJECT_SCHEMA_VERSION, error ? ": " : "", error ? error->message : "");
    esl_project_close(p);
    sqlite3_open(path, &db);
    sqlite3_stmt *st = NULL;
    sqlite3_prepare_v2(db, "SELECT (SELECT user_version FROM pragma_user_version),"
                           " (SELECT count(*) FROM schema_migrations)", -1, &st, NULL);
    gboolean row = st && sqlite3_step(st) == SQLITE_ROW;
    tap_ok(row && sqlite3_column_int(st, 0) == ESL_PROJECT_SCHEMA_VERSION &&
               sqlite3_column_int(st, 1) == ESL_PROJECT_SCHEMA_VERSION,
           "user_version and schema_migrations record the migration");
    sqlite3_finalize(st);
    sqlite3_close(db);
}

/* matrix-r asked for its automatic partition (whatever the model lists) reads back as such. */
static void test_automatic_dofs(void)
{
    g_autofree char *path = tmp_path("automatic.eslabon");
    EslProject *p = esl_project_open(path, TRUE, NULL);
    EslRunRequest req = sample_request("matrix-r", 0, 0);
    req.settings.matrix_r_ndofs = MBS_MATRIX_R_AUTOMATIC;
    gint64 run = p ? esl_project_begin_run(p, &req, NULL) : 0;
    g_autoptr(EslRunInfo) info = run ? esl_project_get_run(p, run, NULL) : NULL;
    tap_ok(info && info->settings.matrix_r_ndofs == MBS_MATRIX_R_AUTOMATIC,
           "matrix-r's automatic partition, asked for explicitly, round trips");
    esl_project_close(p);
}

static void test_killed_run(void)
{
    g_autofree char *path = tmp_path("killed.eslabon");
    g_autoptr(GError) error = NULL;
    EslProject *p = esl_project_open(path, TRUE, &error);
    gint64 model_id = esl_project_add_model(p, "m", NULL, "{}", NULL);
    gint64 first = write_finished_run(p, model_id, 200, 2, 1);
    esl_project_close(p);

    pid_t child = fork();
    if (child == 0) {
        /* The child writes half a run and dies without finishing or closing anything. */
        EslProject *cp = esl_project_open(path, FALSE, NULL);
        EslRunRequest req = sample_request("penalty", model_id, 2);
        gint64 run = esl_project_begin_run(cp, &req, NULL);
        MbsMonitors m[50];
        double poses[50 * 2 * 12], viol[50 * NJ];
        make_samples(50, 2, 7, m, poses, viol);
        esl_project_append_samples(cp, run, m, poses, viol, 50, NULL);
        _exit(run > 0 ? 0 : 3);
    }
    int wstatus = 0;
    waitpid(child, &wstatus, 0);
    tap_ok(WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == 0, "child wrote half a run and died");

    p = esl_project_open(path, FALSE, &error);
    if (!tap_ok(p != NULL, "project opens after the crash"))
        return;
    tap_ok(esl_project_interrupted_on_open(p) == 1, "one run marked interrupted on open");
    g_autoptr(GPtrArray) runs = esl_project_list_runs(p, &error);
    tap_ok(runs && runs->len == 2, "both runs present");
    if (!runs || runs->len != 2)
        return;
    EslRunInfo *a = runs->pdata[0], *b = runs->pdata[1];
    tap_ok(a->id == first && a->status == ESL_RUN_FINISHED && a->nsamples == 200,
           "earlier run intact (finished, 200 samples)");
    g_autoptr(EslRunHistory) h = esl_project_load_run(p, first, &error);
    MbsMonitors m[200];
    double poses[200 * 2 * 12], viol[200 * NJ];
    make_samples(200, 2, 1, m, poses, viol);
    gboolean equal = h && h->n == 200;
    for (int i = 0; equal && i < 200; i++)
        equal = monitors_equal(&h->monitors[i], &m[i]);
    tap_ok(equal && memcmp(h->poses, poses, sizeof poses) == 0,
           "earlier run's history unchanged");
    tap_ok(b->status == ESL_RUN_INTERRUPTED && b->nsamples == 50 && b->message &&
               b->finished_at,
           "killed run marked interrupted with its 50 committed samples (%s)",
           b->message ? b->message : "");
    esl_project_close(p);

    /* Reopening again changes nothing more. */
    p = esl_project_open(path, FALSE, &error);
    tap_ok(p && esl_project_interrupted_on_open(p) == 0, "second reopen marks nothing");
    esl_project_close(p);
}

int main(void)
{
    tmpdir = g_dir_make_tmp("esl-project-XXXXXX", NULL);
    test_round_trip();
    test_refuses_foreign_and_corrupt();
    test_migration_from_1();
    test_automatic_dofs();
    test_killed_run();
    /* clean up */
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
