/* Run controller: a run on the worker thread delivers samples to the main context, is stored in
 * the project with the same samples, and stop/pause act at once. */
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>

#include "esl-model-file.h"
#include "esl-project.h"
#include "esl-run-controller.h"
#include "esl-run-recorder.h"
#include "tap.h"

typedef struct {
    GMainLoop *loop;
    GPtrArray *samples; /* copies */
    int status;
    char *message;
    int batches;
} Received;

static void on_samples(EslRunController *c, GPtrArray *samples, Received *r)
{
    (void)c;
    r->batches++;
    for (guint i = 0; i < samples->len; i++)
        g_ptr_array_add(r->samples, esl_run_sample_copy(samples->pdata[i]));
}

static void on_finished(EslRunController *c, int status, const char *message, Received *r)
{
    (void)c;
    r->status = status;
    r->message = g_strdup(message);
    g_main_loop_quit(r->loop);
}

static void received_init(Received *r)
{
    r->loop = g_main_loop_new(NULL, FALSE);
    r->samples = g_ptr_array_new_with_free_func((GDestroyNotify)esl_run_sample_free);
    r->status = -1;
}

static void received_clear(Received *r)
{
    g_main_loop_unref(r->loop);
    g_ptr_array_unref(r->samples);
    g_free(r->message);
}

static EslRunController *make(const MbsModel *m, const char *project, double duration, Received *r)
{
    MbsSettings s;
    mbs_settings_defaults(&s);
    s.duration = duration;
    EslRunController *c = esl_run_controller_new(m, "four-bar-spatial", "penalty", &s, project, 0);
    g_signal_connect(c, "samples", G_CALLBACK(on_samples), r);
    g_signal_connect(c, "finished", G_CALLBACK(on_finished), r);
    return c;
}

static void stop_on_first_samples(EslRunController *c, GPtrArray *samples, gpointer data)
{
    (void)samples;
    (void)data;
    esl_run_controller_stop(c);
}

/* The member names of a JSON object text, sorted and joined with spaces. */
static char *json_keys(const char *text)
{
    g_autoptr(JsonParser) parser = json_parser_new();
    if (!text || !json_parser_load_from_data(parser, text, -1, NULL) ||
        !JSON_NODE_HOLDS_OBJECT(json_parser_get_root(parser)))
        return g_strdup("(not a JSON object)");
    GList *names = json_object_get_members(json_node_get_object(json_parser_get_root(parser)));
    names = g_list_sort(names, (GCompareFunc)g_strcmp0);
    GString *out = g_string_new(NULL);
    for (GList *l = names; l; l = l->next)
        g_string_append_printf(out, "%s%s", out->len ? " " : "", (const char *)l->data);
    g_list_free(names);
    return g_string_free(out, FALSE);
}

/* `eslabon-cli run --project` and the run controller store summaries with the same keys. */
static void cli_and_application_store_the_same_summary(const char *cli, const char *project,
                                                       const char *controller_summary)
{
    const char *argv[] = {cli, "run", ESLABON_SOURCE_DIR "/models/four-bar-spatial.json",
                          "--step", "0.01", "--duration", "0.5", "--project", project, NULL};
    int status = -1;
    g_autoptr(GError) error = NULL;
    gboolean spawned = g_spawn_sync(NULL, (char **)argv, NULL, G_SPAWN_STDOUT_TO_DEV_NULL, NULL,
                                    NULL, NULL, NULL, &status, &error);
    EslProject *p = esl_project_open(project, FALSE, &error);
    g_autoptr(GPtrArray) runs = p ? esl_project_list_runs(p, &error) : NULL;
    const EslRunInfo *cli_run = runs && runs->len ? runs->pdata[runs->len - 1] : NULL;
    g_autofree char *cli_keys = json_keys(cli_run ? cli_run->summary_json : NULL);
    g_autofree char *app_keys = json_keys(controller_summary);
    tap_ok(spawned && g_spawn_check_wait_status(status, NULL) && cli_run &&
               g_str_equal(cli_keys, app_keys) && strstr(app_keys, "energy_drift_max") &&
               !strstr(app_keys, "max_energy_drift"),
           "runs stored by eslabon-cli and by the run controller have the same summary keys: "
           "cli [%s], application [%s]", cli_keys, app_keys);
    if (p)
        esl_project_close(p);
}

/* ssode (own steps): the run stores its step-size history, one row per accepted internal step
 * of the integrator; they add up to the duration (the stop time lands on it). */
static void ssode_run_stores_its_step_sizes(const char *path)
{
    g_autoptr(GError) error = NULL;
    MbsModel *m = esl_model_load_file(ESLABON_SOURCE_DIR "/models/double-pendulum-stiff.json",
                                      NULL, 0, &error);
    MbsSettings s;
    mbs_settings_defaults(&s);
    s.step = 0.01;
    s.duration = 2.0;
    mbs_settings_set_for(&s, "ssode", "rtol", "1e-4", NULL);
    mbs_settings_set_for(&s, "ssode", "atol", "1e-4", NULL);
    MbsError err = {0};
    MbsFormulation *f = m ? mbs_formulation_new("ssode", m, &s, &err) : NULL;
    EslProject *p = f ? esl_project_open(path, FALSE, &error) : NULL;
    EslRunRequest request = {.model_name = "double-pendulum-stiff", .formulation = "ssode",
                             .settings = s, .nbodies = m ? m->nbodies : 0,
                             .njoints = m ? m->njoints : 0};
    gint64 run_id = p ? esl_project_begin_run(p, &request, &error) : 0;
    EslRunRecorder *recorder = m ? esl_run_recorder_new(m) : NULL;
    if (run_id)
        esl_run_recorder_set_project(recorder, p, run_id);
    MbsRunObserver observer = {.sample = esl_run_recorder_sample,
                               .internal_step = esl_run_recorder_internal_step,
                               .data = recorder};
    MbsRun *run = run_id ? mbs_run_new(f, NULL, &observer, &err) : NULL;
    gboolean ran = run && mbs_run_advance(run, s.duration) == MBS_RUN_REACHED &&
                   esl_run_recorder_finish(recorder, ESL_RUN_FINISHED, NULL, NULL, 0.0, &error);
    double statistic = f ? mbs_formulation_statistic(f, "internal_steps", -1) : -1;
    g_autoptr(GArray) steps = ran ? esl_project_load_internal_steps(p, run_id, &error) : NULL;
    double sum = 0.0, largest = 0.0, previous = 0.0;
    gboolean ordered = steps != NULL;
    for (guint i = 0; steps && i < steps->len; i++) {
        const EslInternalStep *st = &g_array_index(steps, EslInternalStep, i);
        sum += st->size;
        largest = MAX(largest, st->size);
        /* each step ends where the previous one ended plus its size, order 4 (SDIRK) */
        ordered &= fabs(st->time - (previous + st->size)) < 1e-12 && st->order == 4;
        previous = st->time;
    }
    tap_ok(ran && steps && steps->len == statistic && statistic > 10 && ordered &&
               fabs(sum - s.duration) < 1e-9 && largest > s.step,
           "ssode on the stiff double pendulum, stored: %u internal steps (statistic %.0f), "
           "sizes sum to %.12f s of %g s, the largest %.3g s exceeds the output step (%s)",
           steps ? steps->len : 0, statistic, sum, s.duration, largest,
           error ? error->message : err.message);
    mbs_run_free(run);
    esl_run_recorder_free(recorder);
    if (p)
        esl_project_close(p);
    mbs_formulation_free(f);
    mbs_model_free(m);
}

int main(int argc, char **argv)
{
    g_autoptr(GError) error = NULL;
    MbsModel *m = esl_model_load_file(ESLABON_SOURCE_DIR "/models/four-bar-spatial.json", NULL, 0,
                                      &error);
    if (!tap_ok(m != NULL, "bundled four-bar loads"))
        return tap_diag("%s", error->message), tap_done();
    g_autofree char *dir = g_dir_make_tmp("esl-run-XXXXXX", NULL);
    g_autofree char *path = g_build_filename(dir, "runs.eslabon", NULL);
    EslProject *p = esl_project_open(path, TRUE, &error);
    esl_project_close(p);

    /* A complete run. */
    Received r = {0};
    received_init(&r);
    EslRunController *c = make(m, path, 0.5, &r);
    esl_run_controller_set_sample_every(c, 5);
    tap_ok(esl_run_controller_start(c, &error), "run started");
    g_main_loop_run(r.loop);
    tap_ok(r.status == ESL_RUN_FINISHED, "run finished (%s)", r.message ? r.message : "no message");
    tap_ok(r.samples->len >= 2 && r.batches >= 1, "%u samples arrived in %d batches",
           r.samples->len, r.batches);
    const EslRunSample *last = r.samples->len ? r.samples->pdata[r.samples->len - 1] : NULL;
    tap_ok(last && fabs(last->monitors.time - 0.5) < 1e-9, "last sample at t = 0.5 s (%g)",
           last ? last->monitors.time : -1);
    gboolean increasing = TRUE;
    for (guint i = 1; i < r.samples->len; i++)
        increasing &= ((EslRunSample *)r.samples->pdata[i])->monitors.time >
                      ((EslRunSample *)r.samples->pdata[i - 1])->monitors.time;
    tap_ok(increasing, "sample times increase");
    gint64 run_id = esl_run_controller_get_run_id(c);
    g_object_unref(c);

    p = esl_project_open(path, FALSE, &error);
    g_autoptr(EslRunInfo) info = p ? esl_project_get_run(p, run_id, &error) : NULL;
    tap_ok(info && info->status == ESL_RUN_FINISHED && info->nsamples == r.samples->len &&
               info->nbodies == m->nbodies && info->njoints == m->njoints,
           "stored run: finished, same sample count, body and joint counts");
    g_autoptr(EslRunHistory) h = p ? esl_project_load_run(p, run_id, &error) : NULL;
    gboolean same = h && h->n == (int)r.samples->len;
    for (int i = 0; same && i < h->n; i++) {
        const EslRunSample *s = r.samples->pdata[i];
        same = h->monitors[i].time == s->monitors.time &&
               h->monitors[i].total == s->monitors.total &&
               memcmp(h->poses + (gsize)i * h->nbodies * 12, s->poses,
                      sizeof(double) * h->nbodies * 12) == 0;
    }
    tap_ok(same, "stored samples equal the delivered ones (time, energy, poses)");
    g_autoptr(JsonParser) parser = json_parser_new();
    gboolean summary_ok = info && info->summary_json &&
                          json_parser_load_from_data(parser, info->summary_json, -1, NULL);
    JsonObject *o = summary_ok ? json_node_get_object(json_parser_get_root(parser)) : NULL;
    tap_ok(o && json_object_get_int_member(o, "steps") > 0 &&
               json_object_has_member(o, "energy_drift_max") &&
               json_object_has_member(o, "constraint_position_max"),
           "summary has steps, energy drift and constraint maxima: %s",
           info && info->summary_json ? info->summary_json : "none");
    esl_project_close(p);
    if (argc > 1)
        cli_and_application_store_the_same_summary(argv[1], path,
                                                   info ? info->summary_json : NULL);
    else
        tap_ok(0, "the path of eslabon-cli is given as the first argument");
    received_clear(&r);
    ssode_run_stores_its_step_sizes(path);

    /* Stop: immediate, stored as stopped. */
    received_init(&r);
    c = make(m, path, 50.0, &r);
    esl_run_controller_set_sample_every(c, 1);
    g_signal_connect(c, "samples", G_CALLBACK(stop_on_first_samples), NULL);
    esl_run_controller_start(c, NULL);
    g_autoptr(GTimer) timer = g_timer_new();
    g_main_loop_run(r.loop);
    double waited = g_timer_elapsed(timer, NULL);
    tap_ok(r.status == ESL_RUN_STOPPED, "stopped run reports stopped: %s",
           r.message ? r.message : "");
    const EslRunSample *final = r.samples->len ? r.samples->pdata[r.samples->len - 1] : NULL;
    tap_ok(final && final->monitors.time < 50.0 - 1e-9, "stopped before the end (t = %g s)",
           final ? final->monitors.time : -1);
    tap_below(waited, 2.0, "stop took effect quickly (%.3f s after start)", waited);
    run_id = esl_run_controller_get_run_id(c);
    g_object_unref(c);
    p = esl_project_open(path, FALSE, NULL);
    g_autoptr(EslRunInfo) stopped = p ? esl_project_get_run(p, run_id, NULL) : NULL;
    tap_ok(stopped && stopped->status == ESL_RUN_STOPPED && stopped->nsamples > 0,
           "stopped run stored as stopped with its samples");
    esl_project_close(p);
    received_clear(&r);

    /* Pause: no progress while paused. */
    received_init(&r);
    c = make(m, NULL, 50.0, &r);
    esl_run_controller_set_sample_every(c, 1);
    esl_run_controller_start(c, NULL);
    double t0 = 0;
    gint64 deadline = g_get_monotonic_time() + 20 * G_USEC_PER_SEC;
    while (t0 <= 0 && g_get_monotonic_time() < deadline) { /* wait for the first steps */
        g_usleep(1000);
        esl_run_controller_progress(c, &t0, NULL, NULL);
    }
    esl_run_controller_pause(c);
    /* the step in progress finishes: wait until two reads 50 ms apart agree */
    double t1 = t0, t2 = -1;
    while (t1 != t2 && g_get_monotonic_time() < deadline) {
        t2 = t1;
        g_usleep(50000);
        esl_run_controller_progress(c, &t1, NULL, NULL);
    }
    g_usleep(200000);
    esl_run_controller_progress(c, &t2, NULL, NULL);
    tap_ok(t1 > 0 && t1 == t2, "no progress while paused (t = %g s)", t1);
    esl_run_controller_resume(c);
    /* wait for the worker's next step (a busy machine may take a while to schedule it) */
    gint64 give_up = g_get_monotonic_time() + 20 * G_USEC_PER_SEC;
    do {
        g_usleep(1000);
        esl_run_controller_progress(c, &t2, NULL, NULL);
    } while (t2 == t1 && g_get_monotonic_time() < give_up);
    tap_ok(t2 > t1, "progress again after resume (t = %g s)", t2);
    esl_run_controller_stop(c);
    g_main_loop_run(r.loop);
    tap_ok(r.status == ESL_RUN_STOPPED, "paused run stops: %s", r.message ? r.message : "");
    g_object_unref(c);
    received_clear(&r);

    /* Settings the engine refuses: the run fails with the engine's message, and is stored as
     * failed. */
    received_init(&r);
    MbsSettings bad;
    mbs_settings_defaults(&bad);
    bad.step = -0.01;
    c = esl_run_controller_new(m, "four-bar-spatial", "penalty", &bad, path, 0);
    g_signal_connect(c, "samples", G_CALLBACK(on_samples), &r);
    g_signal_connect(c, "finished", G_CALLBACK(on_finished), &r);
    esl_run_controller_start(c, NULL);
    g_main_loop_run(r.loop);
    tap_ok(r.status == ESL_RUN_FAILED && r.message && strstr(r.message, "cannot start") &&
               r.samples->len == 0,
           "refused settings: run failed without samples (%s)", r.message ? r.message : "");
    run_id = esl_run_controller_get_run_id(c);
    g_object_unref(c);
    p = esl_project_open(path, FALSE, NULL);
    g_autoptr(EslRunInfo) failed = p ? esl_project_get_run(p, run_id, NULL) : NULL;
    tap_ok(failed && failed->status == ESL_RUN_FAILED && g_strcmp0(failed->message, r.message) == 0,
           "failed run stored with its message");
    esl_project_close(p);
    received_clear(&r);

    /* Each setting in range, together impossible (issue 13 "Bad input"): the application
     * refuses them as eslabon-cli run does, and stores the run as failed, never running. */
    static const struct {
        double step, duration;
        const char *needle;
    } impossible[] = {{1e-300, 1.0, "steps"}, {0.01, 1e9, "at most 1e+09 steps"},
                      {2.0, 1.0, "longer than the duration"}};
    for (size_t i = 0; i < G_N_ELEMENTS(impossible); i++) {
        received_init(&r);
        mbs_settings_defaults(&bad);
        bad.step = impossible[i].step;
        bad.duration = impossible[i].duration;
        c = esl_run_controller_new(m, "four-bar-spatial", "penalty", &bad, path, 0);
        g_signal_connect(c, "samples", G_CALLBACK(on_samples), &r);
        g_signal_connect(c, "finished", G_CALLBACK(on_finished), &r);
        esl_run_controller_start(c, NULL);
        g_main_loop_run(r.loop);
        run_id = esl_run_controller_get_run_id(c);
        g_object_unref(c);
        p = esl_project_open(path, FALSE, NULL);
        EslRunInfo *stored = p ? esl_project_get_run(p, run_id, NULL) : NULL;
        tap_ok(r.status == ESL_RUN_FAILED && r.message && strstr(r.message, impossible[i].needle) &&
                   r.samples->len == 0 && stored && stored->status == ESL_RUN_FAILED,
               "step %g s, duration %g s: failed at once, stored as failed (%s)",
               impossible[i].step, impossible[i].duration, r.message ? r.message : "");
        esl_run_info_free(stored);
        esl_project_close(p);
        received_clear(&r);
    }

    /* A summary the project refuses (json-glib 1.6 wrote 1e17 as "1e+17.0"): the run still
     * ends, as failed, saying why; never left "running". */
    p = esl_project_open(path, FALSE, NULL);
    MbsSettings defaults;
    mbs_settings_defaults(&defaults);
    EslRunRequest request = {.model_name = "four-bar-spatial", .formulation = "penalty",
                             .settings = defaults};
    gint64 refused_id = p ? esl_project_begin_run(p, &request, NULL) : 0;
    EslRunRecorder *recorder = esl_run_recorder_new(m);
    esl_run_recorder_set_project(recorder, p, refused_id);
    g_autoptr(GError) store_error = NULL;
    gboolean finished = refused_id && esl_run_recorder_finish(recorder, ESL_RUN_FINISHED, NULL,
                                                              "{\"alpha\": 1e+17.0}", 1.0,
                                                              &store_error);
    g_autoptr(EslRunInfo) closed = p ? esl_project_get_run(p, refused_id, NULL) : NULL;
    tap_ok(refused_id && !finished && store_error && strstr(store_error->message, "summary") &&
               closed && closed->status == ESL_RUN_FAILED && closed->message &&
               strstr(closed->message, "summary"),
           "a refused summary closes the run as failed (%s)",
           closed && closed->message ? closed->message : "not closed");
    esl_run_recorder_free(recorder);
    esl_project_close(p);

    /* A step that fails recoverably is cut by the run driver: ali3p through the flat position
     * of a parallelogram chain (h = 5 ms stalls at t = 2.785 s) finishes and says so. */
    MbsModel *chain = esl_model_load_file(ESLABON_SOURCE_DIR "/tests/cli/parallelogram-chain.json",
                                          NULL, 0, &error);
    received_init(&r);
    MbsSettings cut;
    mbs_settings_defaults(&cut);
    cut.step = 5e-3;
    cut.duration = 3.0;
    c = chain ? esl_run_controller_new(chain, NULL, "ali3p", &cut, path, 0) : NULL;
    if (c) {
        g_signal_connect(c, "samples", G_CALLBACK(on_samples), &r);
        g_signal_connect(c, "finished", G_CALLBACK(on_finished), &r);
        esl_run_controller_start(c, NULL);
        g_main_loop_run(r.loop);
        run_id = esl_run_controller_get_run_id(c);
        g_object_unref(c);
    }
    p = esl_project_open(path, FALSE, NULL);
    g_autoptr(EslRunInfo) cut_run = p && c ? esl_project_get_run(p, run_id, NULL) : NULL;
    g_autoptr(JsonParser) cut_parser = json_parser_new();
    JsonObject *cut_summary =
        cut_run && cut_run->summary_json &&
                json_parser_load_from_data(cut_parser, cut_run->summary_json, -1, NULL)
            ? json_node_get_object(json_parser_get_root(cut_parser))
            : NULL;
    const EslRunSample *cut_last = r.samples->len ? r.samples->pdata[r.samples->len - 1] : NULL;
    tap_ok(r.status == ESL_RUN_FINISHED && cut_last && fabs(cut_last->monitors.time - 3.0) < 1e-9 &&
               cut_summary && json_object_get_int_member(cut_summary, "step_cuts") >= 1 &&
               json_object_get_double_member(cut_summary, "step_min") == 2.5e-3,
           "the application's run of ali3p through a singular position finishes with the step "
           "cut (%s)", cut_run && cut_run->summary_json ? cut_run->summary_json : r.message);
    if (p)
        esl_project_close(p);
    received_clear(&r);
    mbs_model_free(chain);

    /* Unknown formulation refused before any thread starts. */
    MbsSettings s;
    mbs_settings_defaults(&s);
    c = esl_run_controller_new(m, "x", "no-such-formulation", &s, NULL, 0);
    g_clear_error(&error);
    gboolean refused = !esl_run_controller_start(c, &error) && error;
    tap_ok(refused, "unknown formulation refused: %s", error ? error->message : "");
    g_object_unref(c);

    g_unlink(path);
    g_autofree char *wal = g_strconcat(path, "-wal", NULL), *shm = g_strconcat(path, "-shm", NULL);
    g_unlink(wal);
    g_unlink(shm);
    g_rmdir(dir);
    mbs_model_free(m);
    return tap_done();
}
