/* Project store: exact round trips, refusal of foreign/corrupt files (left byte-identical),
 * refusal of NaN, and a run killed mid-way marked "interrupted" without harming other runs. */
#include <glib/gstdio.h>
#include <math.h>
#include <signal.h>
#include <sqlite3.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "esl-project.h"
#include "form_matrix_r.h"
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

/* Settings away from their defaults, by setting name: each formulation takes those it has. */
static const struct {
    const char *name, *value;
} sample_options[] = {
    {"alpha", "3333333.3333333335"},          /* 1e7 / 3 */
    {"newton-tolerance", "1.4285714285714285e-11"}, /* 1e-10 / 7 */
    {"newton-iterations", "17"},
    {"jacobian-reuse", "3"},
    {"jacobian", "nd-central"},
    {"newmark-beta", "0.042857142857142858"},  /* 0.3 / 7 */
    {"newmark-gamma", "0.6428571428571428"},   /* 0.5 + 1 / 7 */
    {"projection", "mdk"},
    {"integrator", "trapezoidal"},
    {"rcond", "0.33333333333333331"},
    {"threads", "2"},
    /* a joint coordinate and a point coordinate */
    {"dof", "[{\"joint\": 3, \"coordinate\": 1}, {\"point\": 4, \"axis\": 2}]"},
};

static EslRunRequest sample_request(const char *formulation, gint64 model_id, int nbodies)
{
    EslRunRequest r = {.model_name = "four-bar-spatial", .model_id = model_id,
                       .formulation = formulation, .nbodies = nbodies, .njoints = NJ,
                       .parameters_json = "{\"crank_length\": 0.1}"};
    mbs_settings_defaults(&r.settings);
    r.settings.step = 1.0 / 300.0;
    r.settings.duration = 2.5;
    r.settings.assembly_tolerance = 1e-12 / 3.0;
    const MbsFormulationClass *k = mbs_formulation_find(formulation);
    mbs_settings_for(&r.settings, k);
    for (size_t i = 0; i < G_N_ELEMENTS(sample_options); i++) {
        MbsSettingRef ref;
        if (mbs_settings_find(k->settings, sample_options[i].name, &ref) == 0)
            mbs_setting_set_text(&r.settings, &ref, sample_options[i].value, NULL);
    }
    mbs_settings_set(&r.settings, k->settings, "algebra", "sparse", NULL);
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
               mbs_settings_number(s, "alpha") == 1e7 / 3.0 &&
               mbs_settings_number(s, "newton-tolerance") == 1.0 / 7.0 * 1e-10 &&
               mbs_settings_number(s, "newton-iterations") == 17 &&
               mbs_settings_number(s, "jacobian-reuse") == 3 &&
               s->assembly_tolerance == req.settings.assembly_tolerance &&
               mbs_settings_number(s, "jacobian") == MBS_JACOBIAN_ND_CENTRAL &&
               mbs_settings_number(s, "threads") == 2,
           "settings round trip exactly");
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
    g_autofree char *text = NULL;
    gsize len = 0;
    gboolean copied = g_file_get_contents(SOURCE_DIR "/tests/app/project/data/schema3.eslabon",
                                          &text, &len, NULL) &&
                      g_file_set_contents(path, text, (gssize)len, NULL);
    gint64 run = copied ? 2 : 0; /* the ali3p run */
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
    g_autoptr(GError) error = NULL;
    EslProject *p = esl_project_open(path, FALSE, &error);
    g_autoptr(EslRunInfo) info = p ? esl_project_get_run(p, run, &error) : NULL;
    MbsSettings defaults;
    mbs_settings_defaults(&defaults);
    mbs_settings_for(&defaults, mbs_formulation_find("ali3p"));
    tap_ok(info && mbs_settings_number(&info->settings, "newmark-beta") ==
                       mbs_settings_number(&defaults, "newmark-beta") &&
               mbs_settings_number(&info->settings, "algebra") ==
                   mbs_settings_number(&defaults, "algebra") &&
               info->settings.step == 0.01,
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

/* A value of setting r other than its default d, within its range. */
static void set_away_from_default(MbsSettings *s, const MbsSettingRef *r)
{
    const MbsSetting *d = r->setting;
    if (d->type == MBS_SETTING_LIST) {
        mbs_setting_set_text(s, r, "[{\"joint\": 3, \"coordinate\": 1}, {\"point\": 4, \"axis\": 2}]",
                             NULL);
    } else if (d->type == MBS_SETTING_CHOICE) {
        mbs_setting_set_number(s, r, ((int)d->default_value + 1) % mbs_setting_choice_count(d), NULL);
    } else {
        double v = d->type == MBS_SETTING_INTEGER ? d->default_value + 1
                                                  : d->default_value * (1.0 + 1.0 / 7.0);
        if (v > d->max || v == d->default_value)
            v = d->type == MBS_SETTING_INTEGER ? d->default_value - 1
                                               : 0.5 * (d->default_value + d->min);
        if (v == d->default_value) /* a default at its minimum, 0: halfway to the maximum */
            v = 0.5 * (d->default_value + d->max);
        mbs_setting_set_number(s, r, v, NULL);
    }
}

/* Every setting of every formulation's table, stored and loaded: the formulations' own
 * settings in the JSON options column. */
static void test_options_round_trip(void)
{
    g_autofree char *path = tmp_path("options.eslabon");
    EslProject *p = esl_project_open(path, TRUE, NULL);
    for (int k = 0; p && k < mbs_formulation_count(); k++) {
        const MbsFormulationClass *klass = mbs_formulation_class(k);
        EslRunRequest req = sample_request(klass->name, 0, 0);
        MbsSettingRef all[MBS_SETTINGS_MAX];
        int n = mbs_settings_list(klass->settings, all), same = 0, changed = 0;
        MbsSettings defaults = req.settings;
        mbs_settings_use_options(&defaults, NULL);
        mbs_settings_for(&defaults, klass);
        for (int i = 0; i < n; i++)
            if (all[i].in_options)
                set_away_from_default(&req.settings, &all[i]);
        g_autoptr(GError) error = NULL;
        gint64 run = esl_project_begin_run(p, &req, &error);
        g_autoptr(EslRunInfo) info = run ? esl_project_get_run(p, run, &error) : NULL;
        for (int i = 0; info && i < n; i++) {
            char want[1024], got[1024], fallback[1024];
            mbs_setting_format(&req.settings, &all[i], want, sizeof want);
            mbs_setting_format(&info->settings, &all[i], got, sizeof got);
            mbs_setting_format(&defaults, &all[i], fallback, sizeof fallback);
            same += strcmp(want, got) == 0;
            changed += !all[i].in_options || strcmp(want, fallback) != 0;
            if (strcmp(want, got) || (all[i].in_options && !strcmp(want, fallback)))
                tap_diag("%s %s: stored %s, read %s, default %s", klass->name,
                         all[i].setting->name, want, got, fallback);
        }
        tap_ok(info && same == n && changed == n, "%s: its %d settings, away from their defaults, "
               "round trip exactly%s%s", klass->name, n, error ? ": " : "",
               error ? error->message : "");

        req = sample_request(klass->name, 0, 0);
        run = esl_project_begin_run(p, &req, NULL);
        g_autoptr(EslRunInfo) sample = run ? esl_project_get_run(p, run, NULL) : NULL;
        const MbsSettings *s = sample ? &sample->settings : NULL;
        if (!strcmp(klass->name, "ali3p"))
            tap_ok(s && mbs_settings_number(s, "newmark-beta") == 0.3 / 7.0 &&
                       mbs_settings_number(s, "newmark-gamma") == 0.5 + 1.0 / 7.0 &&
                       mbs_settings_number(s, "projection") == 1 &&
                       mbs_settings_number(s, "algebra") == 2,
                   "the formulations' own settings round trip exactly (ali3p: beta, gamma, "
                   "mdk, sparse)");
        if (!strcmp(klass->name, "matrix-r")) {
            const MbsDofList *d = s ? mbs_settings_value_for(&sample->settings, "matrix-r", "dof")
                                    : NULL;
            tap_ok(s && mbs_settings_number(s, "integrator") == 1 &&
                       mbs_settings_number(s, "algebra") == 1 &&
                       mbs_settings_number(s, "rcond") == 1.0 / 3.0,
                   "the formulations' own settings round trip exactly (matrix-r: trapezoidal, "
                   "sparse, rcond)");
            tap_ok(d && d->count == 2 && d->items[0].joint == 3 && d->items[0].coordinate == 1 &&
                       d->items[1].joint == -1 && d->items[1].point == 4 && d->items[1].axis == 2,
                   "matrix-r's chosen coordinates round trip (joint 3 coordinate 1, point 4 axis z)");
        }
    }
    esl_project_close(p);
}

/* A project written by schema 3 (tests/app/project/data/schema3.eslabon, made by eslabon-cli
 * before the options column) opens, migrates, and its runs read with the settings they had. */
static void test_migration_from_3(void)
{
    g_autofree char *path = tmp_path("schema3.eslabon");
    g_autofree char *text = NULL;
    gsize len = 0;
    gboolean copied = g_file_get_contents(SOURCE_DIR "/tests/app/project/data/schema3.eslabon",
                                          &text, &len, NULL) &&
                      g_file_set_contents(path, text, (gssize)len, NULL);
    g_autoptr(GError) error = NULL;
    EslProject *p = copied ? esl_project_open(path, FALSE, &error) : NULL;
    g_autoptr(GPtrArray) runs = p ? esl_project_list_runs(p, &error) : NULL;
    tap_ok(runs && runs->len == 4, "the schema-3 project opens with its 4 runs%s%s",
           error ? ": " : "", error ? error->message : "");
    if (!runs || runs->len != 4) {
        esl_project_close(p);
        return;
    }
    const MbsSettings *pen = &((EslRunInfo *)runs->pdata[0])->settings;
    tap_ok(pen->step == 0.005 && pen->duration == 0.1 && mbs_settings_number(pen, "alpha") == 2.5e8 &&
               mbs_settings_number(pen, "jacobian") == MBS_JACOBIAN_ND_FORWARD &&
               mbs_settings_number(pen, "threads") == 2 &&
               mbs_settings_number(pen, "newton-tolerance") == 1e-10 &&
               mbs_settings_number(pen, "newton-iterations") == 20 &&
               mbs_settings_number(pen, "jacobian-reuse") == 3 && pen->assembly_tolerance == 1e-12,
           "penalty run: h = 5 ms, alpha = 2.5e8, nd-forward, 2 threads");
    const MbsSettings *ali = &((EslRunInfo *)runs->pdata[1])->settings;
    tap_ok(mbs_settings_number(ali, "algebra") == 2 && mbs_settings_number(ali, "projection") == 1 &&
               mbs_settings_number(ali, "newmark-beta") == 0.25 &&
               mbs_settings_number(ali, "newmark-gamma") == 0.5 &&
               mbs_settings_number(ali, "alpha") == 1e9,
           "ali3p run: sparse algebra, mdk projection, Newmark 0.25, 0.5");
    const MbsSettings *mr = &((EslRunInfo *)runs->pdata[2])->settings;
    MbsSettingRef ref;
    mbs_settings_find(mr->options_table, "dof", &ref);
    const MbsDofList *d = mbs_setting_value_const(mr, &ref);
    tap_ok(mbs_settings_number(mr, "integrator") == 1 && mbs_settings_number(mr, "algebra") == 1 &&
               mbs_settings_number(mr, "rcond") == 0.1 && d->count == 1 &&
               d->items[0].joint == 3 && d->items[0].coordinate == 0,
           "matrix-r run: trapezoidal, sparse, --dof D (joint 3)");
    const MbsSettings *mr2 = &((EslRunInfo *)runs->pdata[3])->settings;
    d = mbs_setting_value_const(mr2, &ref);
    tap_ok(mbs_settings_number(mr2, "integrator") == 0 && d->count == MBS_MATRIX_R_AUTOMATIC,
           "matrix-r run: rk4, --dof auto");
    EslRunInfo *last = runs->pdata[3];
    g_autoptr(EslRunHistory) h = esl_project_load_run(p, last->id, &error);
    tap_ok(h && h->n == 11 && last->status == ESL_RUN_FINISHED && last->summary_json &&
               strstr(last->summary_json, "energy_drift_max"),
           "its samples (%d) and summary survive the migration", h ? h->n : -1);
    esl_project_close(p);
}

/* matrix-r asked for its automatic partition (whatever the model lists) reads back as such. */
static void test_automatic_dofs(void)
{
    g_autofree char *path = tmp_path("automatic.eslabon");
    EslProject *p = esl_project_open(path, TRUE, NULL);
    EslRunRequest req = sample_request("matrix-r", 0, 0);
    MbsDofList *dofs = mbs_settings_value_for(&req.settings, "matrix-r", "dof");
    dofs->count = MBS_MATRIX_R_AUTOMATIC;
    gint64 run = p ? esl_project_begin_run(p, &req, NULL) : 0;
    g_autoptr(EslRunInfo) info = run ? esl_project_get_run(p, run, NULL) : NULL;
    const MbsDofList *read = info ? mbs_settings_value_for(&info->settings, "matrix-r", "dof") : NULL;
    tap_ok(read && read->count == MBS_MATRIX_R_AUTOMATIC,
           "matrix-r's automatic partition, asked for explicitly, round trips");
    esl_project_close(p);
}

/* Issue 28: a run "running" for ever. A process killed with SIGKILL and not yet reaped (a
 * zombie: kill(pid, 0) still finds it) was taken as alive; its run is interrupted at once on a
 * quick reopen. A run a live process writes stays running. */
static void test_quick_reopen_after_kill(void)
{
    g_autofree char *path = tmp_path("zombie.eslabon");
    EslProject *p = esl_project_open(path, TRUE, NULL);
    gint64 model_id = p ? esl_project_add_model(p, "m", NULL, "{}", NULL) : 0;
    esl_project_close(p);
    int ready[2];
    if (!tap_ok(model_id > 0 && pipe(ready) == 0, "a project and a pipe"))
        return;
    pid_t child = fork();
    if (child == 0) {
        close(ready[0]);
        EslProject *cp = esl_project_open(path, FALSE, NULL);
        EslRunRequest req = sample_request("penalty", model_id, 2);
        gint64 run = cp ? esl_project_begin_run(cp, &req, NULL) : 0;
        char byte = run > 0 ? 'y' : 'n';
        if (write(ready[1], &byte, 1) != 1)
            _exit(3);
        for (;;)
            pause(); /* writing the run, until killed */
    }
    close(ready[1]);
    char byte = 0;
    gboolean began = read(ready[0], &byte, 1) == 1 && byte == 'y';
    close(ready[0]);
    g_autoptr(GError) error = NULL;
    p = began ? esl_project_open(path, FALSE, &error) : NULL;
    tap_ok(p && esl_project_interrupted_on_open(p) == 0,
           "a run a live process writes is not marked interrupted%s%s", error ? ": " : "",
           error ? error->message : "");
    esl_project_close(p);
    kill(child, SIGKILL);
    /* not reaped yet: wait until the kernel has ended it (a zombie), without waitpid */
    siginfo_t info = {0};
    waitid(P_PID, (id_t)child, &info, WEXITED | WNOWAIT);
    p = esl_project_open(path, FALSE, &error);
    g_autoptr(GPtrArray) runs = p ? esl_project_list_runs(p, &error) : NULL;
    EslRunInfo *last = runs && runs->len ? runs->pdata[runs->len - 1] : NULL;
    tap_ok(p && esl_project_interrupted_on_open(p) == 1 && last &&
               last->status == ESL_RUN_INTERRUPTED,
           "killed (not yet reaped): its run is marked interrupted on a quick reopen (%d)",
           p ? esl_project_interrupted_on_open(p) : -1);
    esl_project_close(p);
    waitpid(child, NULL, 0);
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

/* Runs are renamed and deleted, the size on disk is reported, and compacting gives a deleted
 * run's space back (issue 12: a 6-run project reached 45 MB with no way to trim it). */
static void test_rename_delete_compact(void)
{
    g_autofree char *path = tmp_path("trim.eslabon");
    g_autoptr(GError) error = NULL;
    EslProject *p = esl_project_open(path, TRUE, &error);
    gint64 small = write_finished_run(p, 0, 20, 4, 1);
    gint64 big = write_finished_run(p, 0, 4000, 40, 2);
    tap_ok(esl_project_rename_run(p, small, "  baseline, h = 1 ms  ", &error),
           "a run is renamed");
    g_autoptr(EslRunInfo) named = esl_project_get_run(p, small, NULL);
    tap_ok(named && g_strcmp0(named->name, "baseline, h = 1 ms") == 0,
           "its name is stored without the blanks around it: '%s'", named ? named->name : "");
    g_autoptr(EslRunInfo) unnamed = esl_project_get_run(p, big, NULL);
    tap_ok(unnamed && unnamed->name == NULL, "a run never renamed has no name");
    tap_ok(esl_project_rename_run(p, small, "   ", NULL), "a blank name clears it");
    g_autoptr(EslRunInfo) cleared = esl_project_get_run(p, small, NULL);
    tap_ok(cleared && cleared->name == NULL, "the cleared name reads as none");
    tap_ok(!esl_project_rename_run(p, 9999, "x", &error) && error,
           "renaming a missing run fails: %s", error ? error->message : "");
    g_clear_error(&error);

    gint64 before = esl_project_disk_size(p);
    tap_ok(before > 4000 * 40 * 12 * 8, "the size counts the stored poses (%" G_GINT64_FORMAT
           " bytes)", before);
    tap_ok(esl_project_delete_run(p, big, &error) && esl_project_compact(p, &error),
           "the big run is deleted and the project compacted%s%s", error ? ": " : "",
           error ? error->message : "");
    gint64 after = esl_project_disk_size(p);
    tap_ok(after < before / 10, "compacting gives the space back (%" G_GINT64_FORMAT " -> %"
           G_GINT64_FORMAT " bytes)", before, after);
    g_autoptr(GPtrArray) runs = esl_project_list_runs(p, NULL);
    tap_ok(runs && runs->len == 1 && ((EslRunInfo *)runs->pdata[0])->id == small,
           "the other run is kept");
    esl_project_close(p);
    g_unlink(path);
}

int main(void)
{
    tmpdir = g_dir_make_tmp("esl-project-XXXXXX", NULL);
    test_round_trip();
    test_refuses_foreign_and_corrupt();
    test_migration_from_1();
    test_migration_from_3();
    test_options_round_trip();
    test_automatic_dofs();
    test_killed_run();
    test_quick_reopen_after_kill();
    test_rename_delete_compact();
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
