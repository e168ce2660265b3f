/* The GUI smoke test (tests/ui/smoke-test.sh): starts the application, and once its window is
 * open loads a bundled model into a fresh project, edits it as the inspector does, runs it,
 * checks the stored run through a second connection, exports the 3D view, plays the run back
 * (also at 4x); with --sensitivity METHOD it then runs the model with sensitivities and checks
 * that the running-gradient (and, for the direct method, d q / d rho) plots were filled and
 * the run stored. Quits with 0 (passed), 1 (failed), 2 (timed out) or 3 (did not finish).
 * usage: eslabon-smoke-test [--model NAME] [--duration SECONDS] [--project FILE]
 *                           [--formulation NAME] [--sensitivity METHOD] */
#include <glib/gstdio.h>
#include <gtk/gtk.h>
#include <locale.h>
#include <math.h>
#include <stdio.h>

#include "esl-application.h"
#include "esl-frame-meter.h"
#include "esl-gsk-choice.h"
#include "esl-model-file.h"
#include "esl-project.h"
#include "esl-window.h"
#include "esl-window-testing.h"

#define SMOKE_TIMEOUT_S 90
#define SMOKE_PLAYBACK_MS 1000 /* of playback measured after the run */
/* Frames the window must draw while a run of a second or more goes on: a UI thread blocked by
 * the run draws at most one. Not a frame rate: llvmpipe on a loaded 2-core machine drew the
 * 225-body lattice at 2-3 frames per second, so a rate would test the machine, not the program. */
#define SMOKE_MIN_FRAMES 3
#define SMOKE_EDITED_MASS 1.25 /* kg, given to bodies[1] through the window before the run */

typedef struct {
    EslApplication *app;
    EslWindow *window;
    /* command line */
    char *model, *project, *formulation, *sensitivity;
    double duration;
    gboolean sensitivity_started;
    /* state */
    int smoke_status;
    guint smoke_timeout;
    EslFrameMeter *frame_meter; /* frames drawn while the run or the playback goes on */
    char *smoke_message;        /* the result, printed once playback has been measured */
} SmokeTest;

/* Prints how the window kept up during what (the run, playback); returns the number of
 * frames. */
static guint report_frames(SmokeTest *self, const char *what)
{
    EslFrameStats st;
    esl_frame_meter_stop(self->frame_meter, &st);
    g_clear_pointer(&self->frame_meter, esl_frame_meter_free);
    printf("frames during %s: %u in %.2f s\n", what, st.frames, st.span);
    if (st.frames > 1)
        printf("main-thread work per frame: median %.1f ms, 95th percentile %.1f ms, max %.1f "
               "ms\nframe interval: median %.1f ms, 95th percentile %.1f ms, max %.1f ms\n",
               st.work_median, st.work_p95, st.work_max, st.interval_median, st.interval_p95,
               st.interval_max);
    return st.frames;
}

static void smoke_finish(SmokeTest *self, int status, const char *message)
{
    printf("%s smoke test: %s\n", status == 0 ? "PASS" : "FAIL", message);
    fflush(stdout);
    self->smoke_status = status;
    g_clear_handle_id(&self->smoke_timeout, g_source_remove);
    g_application_quit(G_APPLICATION(self->app));
}

static gboolean smoke_timed_out(gpointer data)
{
    SmokeTest *self = data;
    self->smoke_timeout = 0;
    smoke_finish(self, 2, "timed out");
    return G_SOURCE_REMOVE;
}

/* The 3D view exported as PNG must be the size of the view and not a blank picture. */
static gboolean smoke_check_export(EslWindow *window, const char *path, char **message)
{
    g_autoptr(GError) error = NULL;
    if (!esl_window_export_view(window, path, &error)) {
        *message = g_strdup_printf("cannot export the 3D view: %s", error->message);
        return FALSE;
    }
    g_autoptr(GdkTexture) texture = gdk_texture_new_from_filename(path, &error);
    if (!texture) {
        *message = g_strdup_printf("the exported view does not load: %s", error->message);
        return FALSE;
    }
    int w = gdk_texture_get_width(texture), h = gdk_texture_get_height(texture);
    gsize stride = (gsize)w * 4;
    g_autofree guint8 *pixels = g_malloc(stride * (gsize)h);
    gdk_texture_download(texture, pixels, stride);
    g_autoptr(GHashTable) colours = g_hash_table_new(g_direct_hash, g_direct_equal);
    for (gsize i = 0; i < stride * (gsize)h && g_hash_table_size(colours) < 50; i += 4 * 7) {
        guint32 c = (guint32)pixels[i] << 16 | (guint32)pixels[i + 1] << 8 | pixels[i + 2];
        g_hash_table_add(colours, GUINT_TO_POINTER(c + 1));
    }
    printf("3D view exported: %s, %d x %d pixels\n", path, w, h);
    if (w < 100 || h < 100 || g_hash_table_size(colours) < 50) {
        *message = g_strdup_printf("the exported view is %d x %d with %u colours", w, h,
                                   g_hash_table_size(colours));
        return FALSE;
    }
    return TRUE;
}

/* After SMOKE_PLAYBACK_MS at 4x from t = 0 the playback must have reached the end of a run of
 * up to 4 s of simulated time, and stopped there (the speed scales wall time, not frames). */
static gboolean smoke_check_fast_playback(gpointer data)
{
    SmokeTest *self = data;
    EslWindow *window = self->window;
    double reached = esl_window_get_time(window), end = self->duration > 0 ? self->duration : 0.5;
    GVariant *state = g_action_group_get_action_state(G_ACTION_GROUP(window), "playback");
    gboolean playing = state && g_variant_get_boolean(state);
    g_clear_pointer(&state, g_variant_unref);
    printf("playback at 4x: t = %.3f s of %.3f s after %d ms\n", reached, end,
           SMOKE_PLAYBACK_MS);
    if (playing || fabs(reached - end) > 1e-6 * fmax(1.0, end)) {
        smoke_finish(self, 1, "playback at 4x did not reach the end of the run and stop");
    } else if (self->sensitivity) {
        if (!esl_window_set_sensitivity_method(window, self->sensitivity)) {
            smoke_finish(self, 1, "the formulation has not that sensitivity method");
        } else {
            self->sensitivity_started = TRUE;
            gtk_widget_activate_action(GTK_WIDGET(window), "win.run", NULL);
        }
    } else {
        smoke_finish(self, 0, self->smoke_message);
    }
    return G_SOURCE_REMOVE;
}

/* The sensitivity run after the plain one: its plots filled while it ran, and stored. */
static void smoke_on_sensitivity_finished(EslWindow *window, int status, gint64 run_id,
                                          SmokeTest *self)
{
    int state_points = 0, points = esl_window_sensitivity_points(window, &state_points);
    g_autoptr(GError) error = NULL;
    EslProject *project = esl_project_open(esl_window_get_project_path(window), FALSE, &error);
    g_autoptr(EslSensitivityRun) run =
        project ? esl_project_load_sensitivity(project, run_id, &error) : NULL;
    esl_project_close(project);
    printf("sensitivity run %" G_GINT64_FORMAT " (%s): %d points plotted (%d of d q / d rho), "
           "%d history rows stored\n", run_id, self->sensitivity, points, state_points,
           run ? run->n : -1);
    gboolean direct = g_strcmp0(self->sensitivity, "direct") == 0;
    if (status != ESL_RUN_FINISHED || !run || !run->gradient)
        smoke_finish(self, 1, "the sensitivity run did not finish and store its gradient");
    else if (direct && (points - state_points <= 0 || state_points <= 0 || run->n < 2))
        smoke_finish(self, 1, "the sensitivity plots were not filled while it ran");
    else
        smoke_finish(self, 0, self->smoke_message);
}

static gboolean smoke_end_playback(gpointer data)
{
    SmokeTest *self = data;
    report_frames(self, "playback");
    EslWindow *window = self->window;
    g_action_group_change_action_state(G_ACTION_GROUP(window), "playback",
                                       g_variant_new_boolean(FALSE));
    esl_window_seek(window, 0.0);
    if (self->duration > 4.0 || !esl_window_set_playback_speed(window, 4.0)) {
        smoke_finish(self, 1, "cannot check the playback speed");
        return G_SOURCE_REMOVE;
    }
    g_action_group_change_action_state(G_ACTION_GROUP(window), "playback",
                                       g_variant_new_boolean(TRUE));
    g_timeout_add(SMOKE_PLAYBACK_MS, smoke_check_fast_playback, self);
    return G_SOURCE_REMOVE;
}

static void smoke_on_run_finished(EslWindow *window, int status, gint64 run_id,
                                  SmokeTest *self)
{
    if (self->sensitivity_started) {
        smoke_on_sensitivity_finished(window, status, run_id, self);
        return;
    }
    printf("%s\n", esl_gsk_choose_renderer(NULL));
    guint frames = report_frames(self, "the run");
    if (status != ESL_RUN_FINISHED) {
        smoke_finish(self, 1, "the run did not finish");
        return;
    }
    /* The legend marks the largest violation of the last state: a number, tiny for penalty. */
    double largest = esl_window_get_largest_violation(window);
    printf("largest joint violation shown: %.3g\n", largest);
    if (!(largest >= 0 && largest < 1e-3)) {
        smoke_finish(self, 1, "the colour legend does not mark the violation of the state shown");
        return;
    }
    const char *viewport_error = esl_window_get_viewport_error(window);
    if (viewport_error) {
        g_autofree char *msg = g_strdup_printf("the 3D view failed: %s", viewport_error);
        smoke_finish(self, 1, msg);
        return;
    }
    /* Read the run back through a separate connection, as another program would. */
    g_autoptr(GError) error = NULL;
    EslProject *project = esl_project_open(esl_window_get_project_path(window), FALSE, &error);
    g_autoptr(EslRunInfo) info = project ? esl_project_get_run(project, run_id, &error) : NULL;
    g_autofree char *stored_json =
        info ? esl_project_model_json(project, info->model_id, NULL) : NULL;
    esl_project_close(project);
    if (!info) {
        g_autofree char *msg = g_strdup_printf("the run is not in the project: %s",
                                               error ? error->message : "?");
        smoke_finish(self, 1, msg);
        return;
    }
    if (info->status != ESL_RUN_FINISHED || info->nsamples < 2 || !info->summary_json) {
        smoke_finish(self, 1, "the stored run is incomplete");
        return;
    }
    /* A run shorter than a second may end within a few frames. */
    guint min_frames = info->wall_time >= 1.0 ? SMOKE_MIN_FRAMES : 0;
    MbsModel *stored = stored_json ? esl_model_load_string(stored_json, "stored", NULL, 0, NULL)
                                   : NULL;
    gboolean edited = stored && stored->nbodies > 1 && stored->bodies[1].mass == SMOKE_EDITED_MASS;
    mbs_model_free(stored);
    if (!edited) {
        smoke_finish(self, 1, "the project does not hold the model as edited in the window");
        return;
    }
    if (frames < min_frames) {
        g_autofree char *msg = g_strdup_printf("the window drew %u frames during a run of %.2f s "
                                               "(fewer than %u)", frames, info->wall_time,
                                               min_frames);
        smoke_finish(self, 1, msg);
        return;
    }
    g_autofree char *png = g_strconcat(esl_window_get_project_path(window), ".png", NULL);
    g_autofree char *export_error = NULL;
    if (!smoke_check_export(window, png, &export_error)) {
        smoke_finish(self, 1, export_error);
        return;
    }
    self->smoke_message = g_strdup_printf(
        "run %" G_GINT64_FORMAT " of %s with %s (%.2f s of wall time) stored in %s (%" G_GINT64_FORMAT
        " samples)",
        run_id, info->model_name, info->formulation, info->wall_time,
        esl_window_get_project_path(window), info->nsamples);
    /* Replay the stored motion from the start, with the trail of the first moving body. */
    esl_window_select_body(window, 1);
    esl_window_seek(window, 0.0);
    self->frame_meter = esl_frame_meter_start(GTK_WIDGET(window));
    g_action_group_change_action_state(G_ACTION_GROUP(window), "playback",
                                       g_variant_new_boolean(TRUE));
    g_timeout_add(SMOKE_PLAYBACK_MS, smoke_end_playback, self);
}

static gboolean smoke_start_run(gpointer data)
{
    SmokeTest *self = data;
    EslWindow *window = self->window;
    self->frame_meter = esl_frame_meter_start(GTK_WIDGET(window));
    gtk_widget_activate_action(GTK_WIDGET(window), "win.run", NULL);
    return G_SOURCE_REMOVE;
}

/* After the application's own activate handler: the window is open and empty. */
static void smoke_test(GApplication *app, SmokeTest *self)
{
    EslWindow *window = ESL_WINDOW(gtk_application_get_active_window(GTK_APPLICATION(app)));
    self->window = window;
    self->smoke_timeout = g_timeout_add_seconds(SMOKE_TIMEOUT_S, smoke_timed_out, self);
    g_autoptr(GError) error = NULL;
    if (!esl_window_load_model(window, self->model ? self->model : "four-bar-spatial", &error)) {
        smoke_finish(self, 1, error->message);
        return;
    }
    g_autofree char *tmp = NULL;
    const char *project = self->project;
    if (!project) {
        tmp = g_build_filename(g_get_tmp_dir(), "eslabon-smoke-test.eslabon", NULL);
        g_unlink(tmp);
        project = tmp;
    }
    if (!esl_window_open_project(window, project, TRUE, &error)) {
        smoke_finish(self, 1, error->message);
        return;
    }
    esl_window_set_duration(window, self->duration > 0 ? self->duration : 0.5);
    const char *formulation = self->formulation ? self->formulation : "penalty";
    if (!esl_window_set_formulation(window, formulation)) {
        g_autofree char *msg = g_strdup_printf("no formulation named %s", formulation);
        smoke_finish(self, 1, msg);
        return;
    }
    /* Edit the model as the inspector does: an impossible mass is refused, a possible one is
     * what the run uses (checked in the stored model). */
    if (esl_window_edit_model(window, "bodies/1/mass", -1.0, NULL)) {
        smoke_finish(self, 1, "a negative mass was accepted");
        return;
    }
    if (!esl_window_edit_model(window, "bodies/1/mass", SMOKE_EDITED_MASS, &error)) {
        smoke_finish(self, 1, error->message);
        return;
    }
    g_signal_connect(window, "run-finished", G_CALLBACK(smoke_on_run_finished), self);
    /* Let the window map and draw its first frames before running. */
    g_timeout_add(700, smoke_start_run, self);
}

int main(int argc, char **argv)
{
    setlocale(LC_ALL, "");
    SmokeTest smoke = {.smoke_status = 3 /* not finished */};
    const GOptionEntry entries[] = {
        {"model", 'm', 0, G_OPTION_ARG_STRING, &smoke.model, "Bundled model or file", "MODEL"},
        {"project", 'p', 0, G_OPTION_ARG_FILENAME, &smoke.project,
         "Project file to store the run in (default: a fresh one in the temporary directory)",
         "FILE"},
        {"duration", 0, 0, G_OPTION_ARG_DOUBLE, &smoke.duration, "Simulated time of the run",
         "SECONDS"},
        {"formulation", 0, 0, G_OPTION_ARG_STRING, &smoke.formulation,
         "Formulation of the run (default penalty)", "NAME"},
        {"sensitivity", 0, 0, G_OPTION_ARG_STRING, &smoke.sensitivity,
         "Then run with this sensitivity method (direct, adjoint, fd)", "METHOD"},
        {NULL, 0, 0, 0, NULL, NULL, NULL},
    };
    g_autoptr(GOptionContext) context = g_option_context_new("- smoke test of the Eslabón window");
    g_option_context_add_main_entries(context, entries, NULL);
    g_autoptr(GError) error = NULL;
    if (!g_option_context_parse(context, &argc, &argv, &error)) {
        fprintf(stderr, "eslabon-smoke-test: %s\n", error->message);
        return 1;
    }
    smoke.app = esl_application_new();
    /* A test instance never hands over to (or waits for) another one. */
    g_application_set_flags(G_APPLICATION(smoke.app),
                            g_application_get_flags(G_APPLICATION(smoke.app)) |
                                G_APPLICATION_NON_UNIQUE);
    g_signal_connect_after(smoke.app, "activate", G_CALLBACK(smoke_test), &smoke);
    char *app_argv[] = {argv[0], NULL};
    g_application_run(G_APPLICATION(smoke.app), 1, app_argv);
    g_object_unref(smoke.app);
    g_clear_pointer(&smoke.frame_meter, esl_frame_meter_free);
    g_free(smoke.smoke_message);
    g_free(smoke.model);
    g_free(smoke.project);
    g_free(smoke.formulation);
    g_free(smoke.sensitivity);
    return smoke.smoke_status;
}
