/* The GtkApplication; see esl-application.h. */
#include "esl-application.h"
#include "esl-frame-meter.h"
#include "esl-gsk-choice.h"

#include <glib/gi18n.h>
#include <math.h>
#include <glib/gstdio.h>
#include <stdio.h>

#include "eslabon-config.h"
#include "esl-model-file.h"
#include "esl-project.h"
#include "esl-recent.h"
#include "esl-window.h"

#define SMOKE_TIMEOUT_S 90
#define SMOKE_PLAYBACK_MS 1000 /* of playback measured after the run */
#define SMOKE_MIN_FRAMES 10 /* frames the window must draw while the run goes on */
#define SMOKE_EDITED_MASS 1.25 /* kg, given to bodies[1] through the window before the run */

struct _EslApplication {
    GtkApplication parent_instance;
    /* command line */
    gboolean smoke_test;
    char *model, *project, *formulation;
    double duration;
    /* smoke test */
    int smoke_status;
    guint smoke_timeout;
    EslFrameMeter *frame_meter; /* frames drawn while the run or the playback goes on */
    char *smoke_message;        /* the result, printed once playback has been measured */
};

G_DEFINE_FINAL_TYPE(EslApplication, esl_application, GTK_TYPE_APPLICATION)

static EslWindow *current_window(EslApplication *self)
{
    GtkWindow *w = gtk_application_get_active_window(GTK_APPLICATION(self));
    if (!w) {
        w = GTK_WINDOW(esl_window_new(GTK_APPLICATION(self)));
    }
    return ESL_WINDOW(w);
}

/* ---- smoke test ---------------------------------------------------------------------------- */

/* Prints how the window kept up during what (the run, playback); returns the number of
 * frames. */
static guint report_frames(EslApplication *self, const char *what)
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

static void smoke_finish(EslApplication *self, int status, const char *message)
{
    printf("%s smoke test: %s\n", status == 0 ? "PASS" : "FAIL", message);
    fflush(stdout);
    self->smoke_status = status;
    g_clear_handle_id(&self->smoke_timeout, g_source_remove);
    g_application_quit(G_APPLICATION(self));
}

static gboolean smoke_timed_out(gpointer data)
{
    EslApplication *self = data;
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
    EslApplication *self = data;
    EslWindow *window = current_window(self);
    double reached = esl_window_get_time(window), end = self->duration > 0 ? self->duration : 0.5;
    GVariant *state = g_action_group_get_action_state(G_ACTION_GROUP(window), "playback");
    gboolean playing = state && g_variant_get_boolean(state);
    g_clear_pointer(&state, g_variant_unref);
    printf("playback at 4x: t = %.3f s of %.3f s after %d ms\n", reached, end,
           SMOKE_PLAYBACK_MS);
    if (playing || fabs(reached - end) > 1e-6 * fmax(1.0, end))
        smoke_finish(self, 1, "playback at 4x did not reach the end of the run and stop");
    else
        smoke_finish(self, 0, self->smoke_message);
    return G_SOURCE_REMOVE;
}

static gboolean smoke_end_playback(gpointer data)
{
    EslApplication *self = data;
    report_frames(self, "playback");
    EslWindow *window = current_window(self);
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
                                  EslApplication *self)
{
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
    EslWindow *window = data;
    EslApplication *self = ESL_APPLICATION(gtk_window_get_application(GTK_WINDOW(window)));
    self->frame_meter = esl_frame_meter_start(GTK_WIDGET(window));
    g_action_group_activate_action(G_ACTION_GROUP(window), "run", NULL);
    return G_SOURCE_REMOVE;
}

static void smoke_test(EslApplication *self, EslWindow *window)
{
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
    g_timeout_add(700, smoke_start_run, window);
}

/* ---- application ------------------------------------------------------------------------- */

static void esl_application_activate(GApplication *app)
{
    EslApplication *self = ESL_APPLICATION(app);
    EslWindow *window = current_window(self);
    gtk_window_present(GTK_WINDOW(window));
    if (self->smoke_test) {
        smoke_test(self, window);
        return;
    }
    g_autoptr(GError) error = NULL;
    if (self->project && !esl_window_open_project(window, self->project, TRUE, &error))
        g_printerr("eslabon: %s\n", error->message);
    g_clear_error(&error);
    if (self->model && !esl_window_load_model(window, self->model, &error))
        g_printerr("eslabon: %s\n", error->message);
    if (self->formulation && !esl_window_set_formulation(window, self->formulation))
        g_printerr("eslabon: no formulation named %s\n", self->formulation);
}

static void esl_application_open(GApplication *app, GFile **files, int n_files,
                                 const char *hint)
{
    (void)hint;
    EslWindow *window = current_window(ESL_APPLICATION(app));
    gtk_window_present(GTK_WINDOW(window));
    for (int i = 0; i < n_files; i++) {
        g_autofree char *path = g_file_get_path(files[i]);
        g_autoptr(GError) error = NULL;
        gboolean ok = path && g_str_has_suffix(path, ".eslabon")
                          ? esl_window_open_project(window, path, FALSE, &error)
                          : esl_window_load_model(window, path, &error);
        if (!ok)
            g_printerr("eslabon: %s\n", error ? error->message : "cannot open the file");
        else
            esl_recent_add(path);
    }
}

static void action_quit(GSimpleAction *a, GVariant *p, gpointer data)
{
    (void)a;
    (void)p;
    GList *windows = gtk_application_get_windows(GTK_APPLICATION(data));
    for (GList *l = windows; l;) {
        GList *next = l->next;
        gtk_window_destroy(GTK_WINDOW(l->data));
        l = next;
    }
}

static void action_about(GSimpleAction *a, GVariant *p, gpointer data)
{
    (void)a;
    (void)p;
    GtkWindow *parent = gtk_application_get_active_window(GTK_APPLICATION(data));
    const char *authors[] = {"The Eslabón developers", NULL};
    gtk_show_about_dialog(parent, "program-name", "Eslabón", "version", ESLABON_VERSION,
                          "comments",
                          _("A workbench for multibody dynamics: run mechanisms with several "
                            "formulations and compare their energy, constraints and cost."),
                          "license-type", GTK_LICENSE_GPL_3_0, "logo-icon-name",
                          "org.eslabon.Eslabon", "authors", authors, "system-information",
                          esl_gsk_choose_renderer(gdk_display_get_default()), NULL);
}

static const GActionEntry app_actions[] = {
    {"quit", action_quit, NULL, NULL, NULL, {0}},
    {"about", action_about, NULL, NULL, NULL, {0}},
};

static void esl_application_startup(GApplication *app)
{
    G_APPLICATION_CLASS(esl_application_parent_class)->startup(app);
    esl_gsk_choose_renderer(gdk_display_get_default());
    g_action_map_add_action_entries(G_ACTION_MAP(app), app_actions, G_N_ELEMENTS(app_actions),
                                    app);
    static const struct {
        const char *action;
        const char *accels[3];
    } accels[] = {
        {"app.quit", {"<Primary>q", NULL}},
        {"win.open-model", {"<Primary>o", NULL}},
        {"win.new-project", {"<Primary>n", NULL}},
        {"win.open-project", {"<Primary><Shift>o", NULL}},
        {"win.save-project", {"<Primary>s", NULL}},
        {"win.show-gallery", {"<Primary>g", NULL}},
        {"win.run", {"F5", "<Primary>r", NULL}},
        {"win.pause", {"F6", NULL}},
        {"win.stop", {"<Shift>F5", NULL}},
        {"win.playback", {"<Primary>p", NULL}},
        {"win.fit-view", {"<Primary>f", NULL}},
        {"win.view::iso", {"<Primary>1", NULL}},
        {"win.view::front", {"<Primary>2", NULL}},
        {"win.view::side", {"<Primary>3", NULL}},
        {"win.view::top", {"<Primary>4", NULL}},
        {"win.show-frames", {"<Primary>b", NULL}},
        {"win.export-view", {"<Primary>e", NULL}},
    };
    for (size_t i = 0; i < G_N_ELEMENTS(accels); i++)
        gtk_application_set_accels_for_action(GTK_APPLICATION(app), accels[i].action,
                                              accels[i].accels);
    GtkCssProvider *css = gtk_css_provider_new();
    gtk_css_provider_load_from_resource(css, "/org/eslabon/Eslabon/style.css");
    gtk_style_context_add_provider_for_display(gdk_display_get_default(), GTK_STYLE_PROVIDER(css),
                                               GTK_STYLE_PROVIDER_PRIORITY_APPLICATION);
    g_object_unref(css);
}

static int esl_application_handle_local_options(GApplication *app, GVariantDict *options)
{
    EslApplication *self = ESL_APPLICATION(app);
    if (g_variant_dict_contains(options, "version")) {
        printf("eslabon %s\n", ESLABON_VERSION);
        return 0;
    }
    g_variant_dict_lookup(options, "smoke-test", "b", &self->smoke_test);
    g_variant_dict_lookup(options, "model", "s", &self->model);
    g_variant_dict_lookup(options, "project", "^ay", &self->project);
    g_variant_dict_lookup(options, "duration", "d", &self->duration);
    g_variant_dict_lookup(options, "formulation", "s", &self->formulation);
    if (self->smoke_test) {
        /* A test instance never hands over to (or waits for) another one. */
        g_application_set_flags(app, g_application_get_flags(app) | G_APPLICATION_NON_UNIQUE);
        self->smoke_status = 3; /* not finished */
    }
    return -1;
}

static void esl_application_finalize(GObject *object)
{
    EslApplication *self = ESL_APPLICATION(object);
    g_free(self->model);
    g_free(self->project);
    g_free(self->formulation);
    g_clear_pointer(&self->frame_meter, esl_frame_meter_free);
    g_free(self->smoke_message);
    G_OBJECT_CLASS(esl_application_parent_class)->finalize(object);
}

static void esl_application_class_init(EslApplicationClass *klass)
{
    G_OBJECT_CLASS(klass)->finalize = esl_application_finalize;
    GApplicationClass *app_class = G_APPLICATION_CLASS(klass);
    app_class->activate = esl_application_activate;
    app_class->open = esl_application_open;
    app_class->startup = esl_application_startup;
    app_class->handle_local_options = esl_application_handle_local_options;
}

static void esl_application_init(EslApplication *self)
{
    self->smoke_status = -1;
    static const GOptionEntry entries[] = {
        {"version", 0, 0, G_OPTION_ARG_NONE, NULL, N_("Print the version and exit"), NULL},
        {"model", 'm', 0, G_OPTION_ARG_STRING, NULL, N_("Open this model (file or bundled name)"),
         N_("MODEL")},
        {"project", 'p', 0, G_OPTION_ARG_FILENAME, NULL,
         N_("Store runs in this project file (created when missing)"), N_("FILE")},
        {"smoke-test", 0, 0, G_OPTION_ARG_NONE, NULL,
         N_("Open the window, run the model briefly, store the run, check it and quit"), NULL},
        {"duration", 0, 0, G_OPTION_ARG_DOUBLE, NULL, N_("Simulated time of the smoke-test run"),
         N_("SECONDS")},
        {"formulation", 0, 0, G_OPTION_ARG_STRING, NULL,
         N_("Formulation selected for the runs (default penalty)"), N_("NAME")},
        {NULL, 0, 0, 0, NULL, NULL, NULL},
    };
    g_application_add_main_option_entries(G_APPLICATION(self), entries);
    g_application_set_option_context_parameter_string(G_APPLICATION(self),
                                                      _("[MODEL.json|PROJECT.eslabon…]"));
}

EslApplication *esl_application_new(void)
{
    return g_object_new(ESL_TYPE_APPLICATION, "application-id", "org.eslabon.Eslabon", "flags",
                        G_APPLICATION_HANDLES_OPEN, NULL);
}

int esl_application_get_smoke_status(EslApplication *self)
{
    return self->smoke_test ? self->smoke_status : -1;
}
