/* eslabon-cli render MODEL [--time T] --out view.png [--size WxH] [--view V] [--frames]
 * eslabon-cli render --project FILE --run ID [--time T] --out view.png ...
 *
 * Renders the mechanism at simulated time T (the assembled initial configuration for T = 0)
 * into a PNG without any window: an EGL surfaceless OpenGL 3.3 core context (Mesa llvmpipe
 * works) and the renderer's offscreen framebuffer. With --project and --run, the pose is the
 * stored sample of that run nearest to T (the model is the one stored with the run, with the
 * run's parameter overrides); nothing is simulated. */
#include <json-glib/json-glib.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "eslabon-config.h"
#include "esl-cli.h"
#include "esl-models-dir.h"
#include "esl-project.h"
#include "esl-model-file.h"
#include "esl-settings-json.h"
#include "mbs_formulation.h"
#include "mbs_run.h"

#ifdef ESLABON_HAVE_RENDERER
#include <gdk-pixbuf/gdk-pixbuf.h>
#include <signal.h>
#include <unistd.h>

#include "esl-renderer.h"
#include "esl-scene.h"
#include "esl-video-export.h"
#endif

#ifndef ESLABON_HAVE_RENDERER
int esl_cli_render(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "eslabon-cli render: this build has no renderer (it was configured without "
                    "libepoxy and cglm, e.g. with -Dgui=disabled)\n");
    return 2;
}
#else


static gboolean parse_view(const char *name, EslStandardView *view)
{
    static const struct {
        const char *name;
        EslStandardView view;
    } views[] = {{"iso", ESL_VIEW_ISOMETRIC}, {"front", ESL_VIEW_FRONT}, {"side", ESL_VIEW_SIDE},
                 {"top", ESL_VIEW_TOP}};
    for (size_t i = 0; i < G_N_ELEMENTS(views); i++)
        if (g_strcmp0(name, views[i].name) == 0) {
            *view = views[i].view;
            return TRUE;
        }
    return FALSE;
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC(MbsModel, mbs_model_free)

/* The run's parameter overrides ({"name": number, ...}) as an array of EslParameterOverride
 * whose names point into *parsed (kept alive by the caller). */
static GArray *stored_overrides(const char *json, JsonParser **parsed, GError **error)
{
    GArray *overrides = g_array_new(FALSE, FALSE, sizeof(EslParameterOverride));
    if (!json)
        return overrides;
    *parsed = json_parser_new();
    if (!json_parser_load_from_data(*parsed, json, -1, error)) {
        g_array_unref(overrides);
        return NULL;
    }
    JsonNode *root = json_parser_get_root(*parsed);
    if (!JSON_NODE_HOLDS_OBJECT(root)) {
        g_set_error(error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                    "the run's parameters are not a JSON object");
        g_array_unref(overrides);
        return NULL;
    }
    JsonObject *o = json_node_get_object(root);
    g_autoptr(GList) names = json_object_get_members(o);
    for (GList *n = names; n; n = n->next) {
        JsonNode *v = json_object_get_member(o, n->data);
        if (!JSON_NODE_HOLDS_VALUE(v) || json_node_get_value_type(v) == G_TYPE_STRING) {
            g_set_error(error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                        "the run's parameter '%s' is not a number", (const char *)n->data);
            g_array_unref(overrides);
            return NULL;
        }
        EslParameterOverride ov = {n->data, json_node_get_double(v)};
        g_array_append_val(overrides, ov);
    }
    return overrides;
}

/* The model (with the run's parameter overrides) and history of a stored run with poses. */
static gboolean load_stored(const char *project_path, gint64 run_id, MbsModel **model,
                            EslRunHistory **history, GError **error)
{
    g_autoptr(EslProject) project = esl_project_open(project_path, FALSE, error);
    if (!project)
        return FALSE;
    g_autoptr(EslRunInfo) info = esl_project_get_run(project, run_id, error);
    if (!info)
        return FALSE;
    if (info->nbodies <= 0 || info->model_id <= 0) {
        g_set_error(error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                    "run %" G_GINT64_FORMAT " stored %s: nothing to draw", run_id,
                    info->nbodies <= 0 ? "no body poses" : "no model");
        return FALSE;
    }
    g_autofree char *model_json = esl_project_model_json(project, info->model_id, error);
    g_autoptr(JsonParser) parsed = NULL;
    g_autoptr(GArray) overrides = model_json ? stored_overrides(info->parameters_json, &parsed,
                                                                error)
                                             : NULL;
    if (!overrides)
        return FALSE;
    g_autoptr(MbsModel) m = esl_model_load_string(
        model_json, info->model_name, (const EslParameterOverride *)(void *)overrides->data,
        (int)overrides->len, error);
    if (!m)
        return FALSE;
    if (m->nbodies != info->nbodies) {
        g_set_error(error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                    "run %" G_GINT64_FORMAT " stored poses of %d bodies, its model has %d",
                    run_id, info->nbodies, m->nbodies);
        return FALSE;
    }
    g_autoptr(EslRunHistory) h = esl_project_load_run(project, run_id, error);
    if (!h)
        return FALSE;
    if (h->n == 0 || !h->poses) {
        g_set_error(error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                    "run %" G_GINT64_FORMAT " has no stored samples", run_id);
        return FALSE;
    }
    *model = g_steal_pointer(&m);
    *history = g_steal_pointer(&h);
    return TRUE;
}

/* Poses and violations of a stored history at the sample nearest to t (t after the last
 * sample: refused). */
static gboolean stored_sample(const MbsModel *m, const EslRunHistory *h, gint64 run_id, double t,
                              double *poses, double *violations, double *reached,
                              GError **error)
{
    double last = h->monitors[h->n - 1].time;
    if (t > last + 1e-9 * fmax(1.0, last)) {
        g_set_error(error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                    "--time %g s is after the last stored sample of run %" G_GINT64_FORMAT
                    " (t = %g s)",
                    t, run_id, last);
        return FALSE;
    }
    int best = 0;
    for (int i = 1; i < h->n; i++)
        if (fabs(h->monitors[i].time - t) < fabs(h->monitors[best].time - t))
            best = i;
    memcpy(poses, h->poses + (gsize)best * 12 * m->nbodies, sizeof(double) * 12 * (gsize)m->nbodies);
    memset(violations, 0, sizeof(double) * (gsize)MAX(m->njoints, 1));
    if (h->violations && h->njoints == m->njoints)
        memcpy(violations, h->violations + (gsize)best * m->njoints,
               sizeof(double) * (gsize)m->njoints);
    *reached = h->monitors[best].time;
    return TRUE;
}

static gboolean write_png(const char *path, guint8 *rgba, int width, int height, GError **error)
{
    g_autoptr(GdkPixbuf) pixbuf = gdk_pixbuf_new_from_data(rgba, GDK_COLORSPACE_RGB, TRUE, 8,
                                                           width, height, width * 4, NULL, NULL);
    return gdk_pixbuf_save(pixbuf, path, "png", error, NULL);
}

/* One line of JSON: model, time, out, width, height, drawables, gl_renderer. */
static void print_report(const char *model, double time, const char *out, int width, int height,
                         int drawables, const char *gl_renderer)
{
    g_autoptr(JsonBuilder) b = json_builder_new();
    json_builder_begin_object(b);
    json_builder_set_member_name(b, "model");
    json_builder_add_string_value(b, model);
    json_builder_set_member_name(b, "time");
    json_builder_add_double_value(b, time);
    json_builder_set_member_name(b, "out");
    json_builder_add_string_value(b, out);
    json_builder_set_member_name(b, "width");
    json_builder_add_int_value(b, width);
    json_builder_set_member_name(b, "height");
    json_builder_add_int_value(b, height);
    json_builder_set_member_name(b, "drawables");
    json_builder_add_int_value(b, drawables);
    json_builder_set_member_name(b, "gl_renderer");
    json_builder_add_string_value(b, gl_renderer ? gl_renderer : "");
    json_builder_end_object(b);
    g_autoptr(JsonNode) root = json_builder_get_root(b);
    g_autofree char *text = esl_json_generate(root, FALSE);
    printf("%s\n", text);
}

/* Where the poses come from: a simulation run forward frame by frame, or a stored history. */
typedef struct {
    const MbsModel *m;
    MbsFormulation *f; /* simulated */
    MbsRun *run;
    const EslRunHistory *h; /* stored */
    gint64 run_id;
} PoseSource;

static gboolean source_start(PoseSource *src, const char *formulation, double step,
                             double duration, GError **error)
{
    MbsSettings settings;
    mbs_settings_defaults(&settings);
    if (step > 0)
        settings.step = step;
    settings.duration = duration;
    MbsError err = {0};
    src->f = mbs_formulation_new(formulation, src->m, &settings, &err);
    src->run = src->f ? mbs_run_new(src->f, NULL, NULL, &err) : NULL;
    if (!src->run) {
        g_set_error(error, G_IO_ERROR, G_IO_ERROR_FAILED, "formulation %s: %s", formulation,
                    err.message);
        return FALSE;
    }
    return TRUE;
}

static void source_stop(PoseSource *src)
{
    mbs_run_free(src->run);
    mbs_formulation_free(src->f);
    src->run = NULL;
    src->f = NULL;
}

/* Poses and violations at t: the stored sample nearest to t, or the simulation advanced to t
 * (times only grow; the run driver cuts the step where a formulation fails recoverably). */
static gboolean source_at(PoseSource *src, double t, double *poses, double *violations,
                          double *reached, GError **error)
{
    const MbsModel *m = src->m;
    if (src->h)
        return stored_sample(m, src->h, src->run_id, t, poses, violations, reached, error);
    MbsFormulation *f = src->f;
    if (t > f->time + 0.5 * f->settings.step &&
        mbs_run_advance(src->run, t + 0.5 * f->settings.step) == MBS_RUN_FAILED) {
        g_set_error(error, G_IO_ERROR, G_IO_ERROR_FAILED, "simulation failed at t = %g s: %s",
                    f->time, mbs_run_error(src->run)->message);
        return FALSE;
    }
    for (int b = 0; b < m->nbodies; b++)
        mbs_formulation_body_pose(f, b, poses + 12 * b, poses + 12 * b + 9);
    for (int j = 0; j < m->njoints; j++)
        violations[j] = f->klass->joint_violation ? f->klass->joint_violation(f, j) : 0.0;
    *reached = f->time;
    return TRUE;
}

/* --follow [BODY]: the body's index, or -1 (no follow camera). */
static char *follow_name;
static gboolean follow_asked;

static gboolean on_follow(const char *option, const char *value, gpointer data, GError **error)
{
    (void)option, (void)data, (void)error;
    follow_asked = TRUE;
    g_free(follow_name);
    follow_name = g_strdup(value);
    return TRUE;
}

/* The body --follow names, the vehicle's (the heaviest) without a name; -1 with a message when
 * there is no such moving body. */
static int follow_body(const MbsModel *m, const char *name)
{
    if (!name)
        return esl_scene_vehicle_body(m);
    for (int b = 0; b < m->nbodies; b++)
        if (strcmp(m->bodies[b].name, name) == 0 && !m->bodies[b].is_ground)
            return b;
    fprintf(stderr, "eslabon-cli render: --follow %s: the model has no moving body of that "
                    "name\n", name);
    return -1;
}

static volatile sig_atomic_t cancelled;

static void on_interrupt(int signal_number)
{
    (void)signal_number;
    cancelled = 1;
}

static gboolean poses_at(gpointer data, double t, double *poses, double *violations,
                         GError **error)
{
    double reached;
    return source_at(data, t, poses, violations, &reached, error);
}

/* The video (render/esl-video-export.h), as `render --time` draws each instant. Ctrl+C cancels
 * (nothing is left behind); a terminal sees the progress. */
static gboolean export_video(PoseSource *src, EslRenderer *renderer,
                             const EslVideoExportOptions *options, int *nframes, GError **error)
{
    EslVideoExport *x = esl_video_export_new(src->m, renderer, options, poses_at, src, error);
    if (!x)
        return FALSE;
    long n = esl_video_export_n_frames(x);
    gboolean tty = isatty(fileno(stderr)), ok = TRUE;
    cancelled = 0;
    void (*previous)(int) = signal(SIGINT, on_interrupt);
    for (long k = 0; k < n && ok; ++k) {
        double t = esl_video_export_next_time(x);
        ok = esl_video_export_step(x, error);
        if (ok && cancelled) {
            g_set_error(error, G_IO_ERROR, G_IO_ERROR_CANCELLED,
                        "cancelled at frame %ld of %ld: %s was not written", k + 1, n,
                        options->path);
            ok = FALSE;
        }
        if (tty)
            fprintf(stderr, "\rframe %ld of %ld (t = %.3f s)", k + 1, n, t);
    }
    if (tty)
        fprintf(stderr, "\n");
    signal(SIGINT, previous);
    if (!ok) {
        esl_video_export_abort(x);
        return FALSE;
    }
    *nframes = (int)n;
    return esl_video_export_finish(x, error);
}

int esl_cli_render(int argc, char **argv)
{
    double time = 0.0, step = 0.0, duration = NAN, speed = 1.0;
    int fps = 30;
    char *out = NULL, *video = NULL, *size = NULL, *view_name = NULL, *formulation = NULL;
    char *project = NULL;
    gint64 run_id = 0;
    gboolean frames = FALSE, no_grid = FALSE;
    GOptionEntry entries[] = {
        {"time", 't', 0, G_OPTION_ARG_DOUBLE, &time, "Simulated time to show (s, default 0)",
         "T"},
        {"out", 'o', 0, G_OPTION_ARG_FILENAME, &out, "PNG file to write", "FILE"},
        {"video", 0, 0, G_OPTION_ARG_FILENAME, &video,
         "Video file to write instead: .mp4 (H.264) or .webm (VP9)", "FILE"},
        {"fps", 0, 0, G_OPTION_ARG_INT, &fps, "Video: frames per second (default 30)", "N"},
        {"duration", 0, 0, G_OPTION_ARG_DOUBLE, &duration,
         "Video: simulated seconds shown (default 5 s, or the stored run's length)", "T"},
        {"speed", 0, 0, G_OPTION_ARG_DOUBLE, &speed,
         "Video: simulated seconds per second of video (default 1)", "S"},
        {"size", 's', 0, G_OPTION_ARG_STRING, &size, "Image size (default 1280x800)", "WxH"},
        {"view", 0, 0, G_OPTION_ARG_STRING, &view_name, "iso (default), front, side or top",
         "VIEW"},
        {"formulation", 'f', 0, G_OPTION_ARG_STRING, &formulation,
         "Formulation used to reach T (default penalty)", "NAME"},
        {"step", 0, 0, G_OPTION_ARG_DOUBLE, &step, "Time step (s, default from the settings)",
         "H"},
        {"frames", 0, 0, G_OPTION_ARG_NONE, &frames, "Draw body frames", NULL},
        {"follow", 0, G_OPTION_FLAG_OPTIONAL_ARG, G_OPTION_ARG_CALLBACK, (gpointer)on_follow,
         "Camera follows BODY (default: the heaviest, a vehicle's chassis)", "BODY"},
        {"no-grid", 0, 0, G_OPTION_ARG_NONE, &no_grid, "Do not draw the floor grid", NULL},
        {"project", 'p', 0, G_OPTION_ARG_FILENAME, &project, "Draw a run stored in this project "
         "(with --run; no MODEL)", "FILE"},
        {"run", 0, 0, G_OPTION_ARG_INT64, &run_id, "Id of the stored run to draw", "ID"},
        {NULL, 0, 0, 0, NULL, NULL, NULL}};
    g_autoptr(GOptionContext) ctx =
        g_option_context_new("[MODEL] - draw a model, or a run stored in a project (--project "
                             "FILE --run ID), at a simulated time into a PNG, or its motion "
                             "into a video, headless");
    g_option_context_add_main_entries(ctx, entries, NULL);
    g_autoptr(GError) error = NULL;
    int status = 1;
    MbsModel *m = NULL;
    EslGlHeadless *gl = NULL;
    EslRenderer *renderer = NULL;
    EslScene *scene = NULL;
    g_autoptr(EslRunHistory) history = NULL;
    PoseSource src = {0};
    g_autofree double *poses = NULL, *violations = NULL;
    g_autofree guint8 *pixels = NULL;
    g_autofree char *path = NULL;
    int width = 1280, height = 800, follow = -1;
    EslStandardView view = ESL_VIEW_ISOMETRIC;
    follow_asked = FALSE;
    g_clear_pointer(&follow_name, g_free);

    if (!g_option_context_parse(ctx, &argc, &argv, &error)) {
        fprintf(stderr, "eslabon-cli render: %s\n", error->message);
        goto done;
    }
    if (argc != (project ? 1 : 2) || !out == !video || !project != !run_id) {
        fprintf(stderr, "usage: eslabon-cli render MODEL [--time T] --out FILE.png "
                        "[--size WxH] [--view iso|front|side|top] [--follow[=BODY]]\n"
                        "       eslabon-cli render MODEL --video FILE.mp4|FILE.webm "
                        "[--fps N] [--duration T] [--speed S] ...\n"
                        "       eslabon-cli render --project FILE --run ID [--time T] "
                        "--out FILE.png | --video FILE ...\n");
        goto done;
    }
    if (size && (sscanf(size, "%dx%d", &width, &height) != 2 || width < 16 || height < 16 ||
                 width > 8192 || height > 8192)) {
        fprintf(stderr, "eslabon-cli render: --size %s: expected WxH between 16 and 8192\n",
                size);
        goto done;
    }
    if (view_name && !parse_view(view_name, &view)) {
        fprintf(stderr, "eslabon-cli render: unknown view '%s' (iso, front, side, top)\n",
                view_name);
        goto done;
    }
    if (!(time >= 0.0) || !isfinite(time)) {
        fprintf(stderr, "eslabon-cli render: --time %g: expected a finite number of seconds, "
                        "zero or more\n", time);
        goto done;
    }
    if (video && (!(speed > 0.0) || !isfinite(speed) || fps < 1 || fps > 240 ||
                  !(isnan(duration) || (duration >= 0.0 && isfinite(duration))))) {
        fprintf(stderr, "eslabon-cli render: --video needs --fps 1 to 240, --speed > 0 and "
                        "--duration >= 0\n");
        goto done;
    }
    if (project) {
        if (!load_stored(project, run_id, &m, &history, &error)) {
            fprintf(stderr, "eslabon-cli render: %s\n", error->message);
            goto done;
        }
        src.h = history;
        src.run_id = run_id;
        if (isnan(duration))
            duration = history->monitors[history->n - 1].time;
    } else {
        path = esl_resolve_model_path(argv[1]);
        m = esl_model_load_file(path, NULL, 0, &error);
        if (!m) {
            fprintf(stderr, "eslabon-cli render: %s\n", error->message);
            goto done;
        }
        if (isnan(duration))
            duration = 5.0;
    }
    src.m = m;
    if (follow_asked && (follow = follow_body(m, follow_name)) < 0) {
        status = 2;
        goto done;
    }
    if (!src.h && !source_start(&src, formulation ? formulation : "penalty", step,
                                video ? duration : time, &error)) {
        fprintf(stderr, "eslabon-cli render: %s %g s: %s\n", video ? "--duration" : "--time",
                video ? duration : time, error->message);
        goto done;
    }
    gl = esl_gl_headless_new(&error);
    renderer = gl ? esl_renderer_new(&error) : NULL;
    if (!renderer || !esl_renderer_set_offscreen_size(renderer, width, height, &error)) {
        fprintf(stderr, "eslabon-cli render: %s\n", error->message);
        goto done;
    }
    esl_renderer_set_show_grid(renderer, !no_grid);
    if (video) {
        int nframes = 0;
        EslVideoExportOptions options = {video, width, height, fps, speed, 0.0, duration,
                                         view, frames, follow, NULL};
        if (!export_video(&src, renderer, &options, &nframes, &error)) {
            fprintf(stderr, "eslabon-cli render: %s\n", error->message);
            goto done;
        }
        printf("{\"model\": \"%s\", \"video\": \"%s\", \"frames\": %d, \"fps\": %d, "
               "\"duration\": %g, \"width\": %d, \"height\": %d}\n",
               m->name, video, nframes, fps, duration, width, height);
        status = 0;
        goto done;
    }
    double reached = 0.0;
    poses = g_new0(double, (gsize)m->nbodies * 12);
    violations = g_new0(double, (gsize)MAX(m->njoints, 1));
    if (!source_at(&src, time, poses, violations, &reached, &error)) {
        fprintf(stderr, "eslabon-cli render: --time %g s: %s\n", time, error->message);
        goto done;
    }
    scene = esl_scene_new();
    EslSceneOptions options;
    esl_scene_options_defaults(&options);
    options.show_frames = frames;
    esl_scene_build(scene, m, poses, violations, &options);
    EslCamera camera = {0};
    esl_camera_set_view(&camera, view, scene);
    esl_camera_aim(&camera, m, poses, follow);
    pixels = g_malloc((gsize)width * height * 4);
    if (!esl_renderer_render_offscreen(renderer, scene, &camera, pixels, &error) ||
        !write_png(out, pixels, width, height, &error)) {
        fprintf(stderr, "eslabon-cli render: %s\n", error->message);
        goto done;
    }
    print_report(m->name, reached, out, width, height, scene->n, esl_gl_renderer_name());
    status = 0;
done:
    source_stop(&src);
    esl_scene_free(scene);
    esl_renderer_free(renderer);
    esl_gl_headless_free(gl);
    mbs_model_free(m);
    g_free(out);
    g_free(video);
    g_free(size);
    g_free(view_name);
    g_free(formulation);
    g_free(project);
    g_clear_pointer(&follow_name, g_free);
    return status;
}
#endif
