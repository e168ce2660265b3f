/* Export Video; see esl-video-dialog.h. */
#include "esl-video-dialog.h"

#include <glib/gi18n.h>
#include <math.h>
#include <string.h>

#include "esl-model-file.h"
#include "esl-run-recorder.h"
#include "esl-video-export.h"

static const int sizes[][2] = {{640, 360},   {854, 480},   {1280, 720},
                               {1920, 1080}, {2560, 1440}, {3840, 2160}};

/* What the worker needs, copied from the window when the export starts: it owns all of it. */
typedef struct {
    char *json, *origin, *path;
    int nbodies, njoints;
    int n;                             /* samples */
    double *times, *poses, *violations; /* n, n * nbodies * 12, n * njoints */
    EslCamera camera;
    gboolean has_camera, show_frames, show_grid;
    int follow, fps, width, height;
    double speed;
    gint done, total; /* frames, read by the window while the worker writes them */
} Job;

struct _EslVideoDialog {
    GtkWindow parent_instance;
    GtkWidget *run_label, *path_entry, *format_label, *size_dropdown, *fps_spin, *speed_spin;
    GtkWidget *frames_label, *progress_bar, *message_label, *cancel_button, *export_button;

    /* the run (set_run) */
    char *json, *origin, *run_name;
    GPtrArray *samples; /* EslRunSample* */
    EslCamera camera;
    gboolean has_camera, show_frames, show_grid;
    int follow;

    Job *job; /* the export going on, or NULL */
    GCancellable *cancellable;
    guint progress_timer;
    long last_done, last_total;
    gboolean disposed;
};

G_DEFINE_FINAL_TYPE(EslVideoDialog, esl_video_dialog, GTK_TYPE_WINDOW)

enum { SIGNAL_FINISHED, N_SIGNALS };
static guint signals[N_SIGNALS];

static void job_free(Job *job)
{
    g_free(job->json);
    g_free(job->origin);
    g_free(job->path);
    g_free(job->times);
    g_free(job->poses);
    g_free(job->violations);
    g_free(job);
}

/* ---- the worker --------------------------------------------------------------------------- */

/* The stored sample nearest to t (as `render --project --run` draws an instant). */
static gboolean job_poses_at(gpointer data, double t, double *poses, double *violations,
                             GError **error)
{
    (void)error;
    const Job *job = data;
    int lo = 0, hi = job->n - 1;
    while (hi - lo > 1) { /* times grow: the last sample at or before t, and the next */
        int mid = (lo + hi) / 2;
        if (job->times[mid] <= t)
            lo = mid;
        else
            hi = mid;
    }
    int k = fabs(job->times[hi] - t) < fabs(job->times[lo] - t) ? hi : lo;
    memcpy(poses, job->poses + (gsize)k * 12 * job->nbodies,
           sizeof(double) * 12 * (gsize)job->nbodies);
    memset(violations, 0, sizeof(double) * (gsize)MAX(job->njoints, 1));
    if (job->njoints > 0)
        memcpy(violations, job->violations + (gsize)k * job->njoints,
               sizeof(double) * (gsize)job->njoints);
    return TRUE;
}

/* The model read again from its text (the window may change its own meanwhile), a headless GL
 * context of this thread, and the frames one by one until the end or a cancel. */
static gboolean job_run(Job *job, GCancellable *cancellable, GError **error)
{
    g_autoptr(GError) load_error = NULL;
    MbsModel *m = esl_model_load_string(job->json, job->origin, NULL, 0, &load_error);
    if (!m) {
        g_set_error(error, G_IO_ERROR, G_IO_ERROR_FAILED, _("the model does not load: %s"),
                    load_error->message);
        return FALSE;
    }
    gboolean ok = FALSE;
    EslGlHeadless *gl = NULL;
    EslRenderer *renderer = NULL;
    EslVideoExport *x = NULL;
    if (m->nbodies != job->nbodies) {
        g_set_error(error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                    _("the run stored poses of %d bodies, its model has %d"), job->nbodies,
                    m->nbodies);
        goto done;
    }
    gl = esl_gl_headless_new(error);
    renderer = gl ? esl_renderer_new(error) : NULL;
    if (!renderer)
        goto done;
    esl_renderer_set_show_grid(renderer, job->show_grid);
    double start = job->times[0], duration = job->times[job->n - 1] - start;
    EslVideoExportOptions o = {job->path,        job->width,
                               job->height,      job->fps,
                               job->speed,       start,
                               duration,         ESL_VIEW_ISOMETRIC,
                               job->show_frames, job->follow,
                               job->has_camera ? &job->camera : NULL};
    x = esl_video_export_new(m, renderer, &o, job_poses_at, job, error);
    if (!x)
        goto done;
    long n = esl_video_export_n_frames(x);
    g_atomic_int_set(&job->total, (int)n);
    for (long k = 0; k < n; k++) {
        if (g_cancellable_is_cancelled(cancellable)) {
            g_set_error(error, G_IO_ERROR, G_IO_ERROR_CANCELLED,
                        _("Cancelled at frame %ld of %ld: %s was not written."), k + 1, n,
                        job->path);
            goto done;
        }
        if (!esl_video_export_step(x, error))
            goto done;
        g_atomic_int_set(&job->done, (int)(k + 1));
    }
    ok = esl_video_export_finish(g_steal_pointer(&x), error);
done:
    esl_video_export_abort(x); /* nothing half-written is left */
    esl_renderer_free(renderer);
    esl_gl_headless_free(gl);
    mbs_model_free(m);
    return ok;
}

static void export_thread(GTask *task, gpointer source, gpointer data, GCancellable *cancellable)
{
    (void)source;
    GError *error = NULL;
    if (job_run(data, cancellable, &error))
        g_task_return_boolean(task, TRUE);
    else
        g_task_return_error(task, error);
}

/* ---- the dialog --------------------------------------------------------------------------- */

static void show_message(EslVideoDialog *self, gboolean is_error, const char *text)
{
    gtk_label_set_text(GTK_LABEL(self->message_label), text);
    if (is_error)
        gtk_widget_add_css_class(self->message_label, "error");
    else
        gtk_widget_remove_css_class(self->message_label, "error");
}

static const char *path_text(EslVideoDialog *self)
{
    return gtk_editable_get_text(GTK_EDITABLE(self->path_entry));
}

/* The format the extension names, or NULL. */
static const char *format_of(const char *path)
{
    g_autofree char *lower = g_ascii_strdown(path, -1);
    if (g_str_has_suffix(lower, ".mp4"))
        return _("MP4 (H.264)");
    if (g_str_has_suffix(lower, ".webm"))
        return _("WebM (VP9)");
    return NULL;
}

static double run_duration(EslVideoDialog *self)
{
    if (!self->samples || self->samples->len < 2)
        return 0.0;
    const EslRunSample *first = self->samples->pdata[0];
    const EslRunSample *last = self->samples->pdata[self->samples->len - 1];
    return last->monitors.time - first->monitors.time;
}

static void update_sensitivity(EslVideoDialog *self)
{
    gboolean exporting = self->job != NULL;
    gboolean can = !exporting && format_of(path_text(self)) && run_duration(self) > 0 &&
                   esl_video_export_supported();
    gtk_widget_action_set_enabled(GTK_WIDGET(self), "video.export", can);
    gtk_widget_action_set_enabled(GTK_WIDGET(self), "video.choose", !exporting);
    gtk_button_set_label(GTK_BUTTON(self->cancel_button),
                         exporting ? _("_Cancel") : _("_Close"));
    gtk_widget_set_sensitive(self->path_entry, !exporting);
    gtk_widget_set_sensitive(self->size_dropdown, !exporting);
    gtk_widget_set_sensitive(self->fps_spin, !exporting);
    gtk_widget_set_sensitive(self->speed_spin, !exporting);
}

static void update_frames(EslVideoDialog *self)
{
    double duration = run_duration(self);
    int fps = gtk_spin_button_get_value_as_int(GTK_SPIN_BUTTON(self->fps_spin));
    double speed = gtk_spin_button_get_value(GTK_SPIN_BUTTON(self->speed_spin));
    g_autofree char *text =
        duration > 0 ? g_strdup_printf(_("%.3g s simulated → %.3g s of video, %ld frames."),
                                       duration, duration / speed,
                                       MAX(1, (long)floor(duration * fps / speed + 1e-9)))
                     : g_strdup(_("The run shown has no motion to export."));
    gtk_label_set_text(GTK_LABEL(self->frames_label), text);
}

static void on_timing_changed(EslVideoDialog *self)
{
    update_frames(self);
}

static void on_path_changed(EslVideoDialog *self)
{
    const char *format = format_of(path_text(self));
    gtk_label_set_text(GTK_LABEL(self->format_label),
                       !esl_video_export_supported()
                           ? _("This build has no video export (FFmpeg's libraries were not "
                               "found).")
                       : format ? format
                                : _("Unknown: name the file .mp4 (H.264) or .webm (VP9)."));
    update_sensitivity(self);
}

static gboolean on_progress(gpointer data)
{
    EslVideoDialog *self = data;
    if (!self->job)
        return G_SOURCE_CONTINUE;
    self->last_done = g_atomic_int_get(&self->job->done);
    self->last_total = g_atomic_int_get(&self->job->total);
    gtk_progress_bar_set_fraction(GTK_PROGRESS_BAR(self->progress_bar),
                                  self->last_total > 0 ? (double)self->last_done /
                                                             (double)self->last_total
                                                       : 0.0);
    g_autofree char *text =
        g_strdup_printf(_("Frame %ld of %ld"), self->last_done, self->last_total);
    gtk_progress_bar_set_text(GTK_PROGRESS_BAR(self->progress_bar), text);
    return G_SOURCE_CONTINUE;
}

static void on_exported(GObject *source, GAsyncResult *result, gpointer data)
{
    (void)data;
    EslVideoDialog *self = ESL_VIDEO_DIALOG(source);
    g_autoptr(GError) error = NULL;
    gboolean ok = g_task_propagate_boolean(G_TASK(result), &error);
    Job *job = g_steal_pointer(&self->job);
    self->last_done = g_atomic_int_get(&job->done);
    self->last_total = g_atomic_int_get(&job->total);
    g_clear_handle_id(&self->progress_timer, g_source_remove);
    g_clear_object(&self->cancellable);
    g_application_release(g_application_get_default());
    if (!self->disposed) {
        g_autofree char *text =
            ok ? g_strdup_printf(_("Exported %ld frames to %s."), self->last_done, job->path)
            : g_error_matches(error, G_IO_ERROR, G_IO_ERROR_CANCELLED)
                ? g_strdup(error->message)
                : g_strdup_printf(_("Cannot export the video: %s"), error->message);
        show_message(self, !ok, text);
        gtk_progress_bar_set_fraction(GTK_PROGRESS_BAR(self->progress_bar), ok ? 1.0 : 0.0);
        gtk_progress_bar_set_text(GTK_PROGRESS_BAR(self->progress_bar), ok ? _("Done") : "");
        update_sensitivity(self);
        g_signal_emit(self, signals[SIGNAL_FINISHED], 0, ok);
    }
    job_free(job);
}

gboolean esl_video_dialog_export(EslVideoDialog *self)
{
    if (self->job)
        return FALSE;
    const char *path = path_text(self);
    if (!esl_video_export_supported() || !format_of(path) || run_duration(self) <= 0) {
        show_message(self, TRUE,
                     !esl_video_export_supported()
                         ? _("This build has no video export (FFmpeg's libraries were not "
                             "found).")
                     : run_duration(self) <= 0
                         ? _("The run shown has no motion to export.")
                         : _("Name the file .mp4 (H.264) or .webm (VP9)."));
        return FALSE;
    }
    Job *job = g_new0(Job, 1);
    job->json = g_strdup(self->json);
    job->origin = g_strdup(self->origin);
    job->path = g_strdup(path);
    const EslRunSample *first = self->samples->pdata[0];
    job->nbodies = first->nbodies;
    job->njoints = first->njoints;
    job->n = (int)self->samples->len;
    job->times = g_new(double, job->n);
    job->poses = g_new(double, (gsize)job->n * 12 * job->nbodies + 1);
    job->violations = g_new0(double, (gsize)job->n * job->njoints + 1);
    for (int k = 0; k < job->n; k++) {
        const EslRunSample *s = self->samples->pdata[k];
        job->times[k] = s->monitors.time;
        memcpy(job->poses + (gsize)k * 12 * job->nbodies, s->poses,
               sizeof(double) * 12 * (gsize)job->nbodies);
        if (s->violations && s->njoints == job->njoints)
            memcpy(job->violations + (gsize)k * job->njoints, s->violations,
                   sizeof(double) * (gsize)job->njoints);
    }
    job->camera = self->camera;
    job->has_camera = self->has_camera;
    job->show_frames = self->show_frames;
    job->show_grid = self->show_grid;
    job->follow = self->follow;
    job->fps = gtk_spin_button_get_value_as_int(GTK_SPIN_BUTTON(self->fps_spin));
    job->speed = gtk_spin_button_get_value(GTK_SPIN_BUTTON(self->speed_spin));
    guint size = gtk_drop_down_get_selected(GTK_DROP_DOWN(self->size_dropdown));
    size = MIN(size, G_N_ELEMENTS(sizes) - 1);
    job->width = sizes[size][0];
    job->height = sizes[size][1];
    self->job = job;
    self->last_done = self->last_total = 0;
    self->cancellable = g_cancellable_new();
    show_message(self, FALSE, "");
    on_progress(self);
    update_sensitivity(self);
    /* the application stays until the worker has removed what it was writing */
    g_application_hold(g_application_get_default());
    self->progress_timer = g_timeout_add(100, on_progress, self);
    GTask *task = g_task_new(self, self->cancellable, on_exported, NULL);
    g_task_set_task_data(task, job, NULL);
    g_task_set_check_cancellable(task, FALSE); /* the worker says at which frame it stopped */
    g_task_run_in_thread(task, export_thread);
    g_object_unref(task);
    return TRUE;
}

void esl_video_dialog_cancel(EslVideoDialog *self)
{
    if (self->cancellable)
        g_cancellable_cancel(self->cancellable);
}

static void action_export(GtkWidget *widget, const char *name, GVariant *parameter)
{
    (void)name, (void)parameter;
    esl_video_dialog_export(ESL_VIDEO_DIALOG(widget));
}

/* Cancel while exporting, Close otherwise. */
static void action_cancel(GtkWidget *widget, const char *name, GVariant *parameter)
{
    (void)name, (void)parameter;
    EslVideoDialog *self = ESL_VIDEO_DIALOG(widget);
    if (self->job)
        esl_video_dialog_cancel(self);
    else
        gtk_window_close(GTK_WINDOW(self));
}

static void on_file_chosen(GtkNativeDialog *chooser, int response, EslVideoDialog *self)
{
    if (response == GTK_RESPONSE_ACCEPT) {
        g_autoptr(GFile) file = gtk_file_chooser_get_file(GTK_FILE_CHOOSER(chooser));
        g_autofree char *path = file ? g_file_get_path(file) : NULL;
        if (path)
            esl_video_dialog_set_path(self, path);
    }
    g_object_unref(chooser);
}

static void action_choose(GtkWidget *widget, const char *name, GVariant *parameter)
{
    (void)name, (void)parameter;
    EslVideoDialog *self = ESL_VIDEO_DIALOG(widget);
    GtkFileChooserNative *chooser =
        gtk_file_chooser_native_new(_("Export Video"), GTK_WINDOW(self),
                                    GTK_FILE_CHOOSER_ACTION_SAVE, _("_Choose"), _("_Cancel"));
    GtkFileFilter *filter = gtk_file_filter_new();
    gtk_file_filter_set_name(filter, _("Videos (*.mp4, *.webm)"));
    gtk_file_filter_add_pattern(filter, "*.mp4");
    gtk_file_filter_add_pattern(filter, "*.webm");
    gtk_file_chooser_add_filter(GTK_FILE_CHOOSER(chooser), filter);
    g_object_unref(filter);
    g_autofree char *base = g_path_get_basename(path_text(self));
    gtk_file_chooser_set_current_name(GTK_FILE_CHOOSER(chooser), base);
    g_signal_connect(chooser, "response", G_CALLBACK(on_file_chosen), self);
    gtk_native_dialog_show(GTK_NATIVE_DIALOG(chooser));
}

/* Closing the dialog while it exports cancels the export. */
static gboolean on_close_request(GtkWindow *window)
{
    esl_video_dialog_cancel(ESL_VIDEO_DIALOG(window));
    return GTK_WINDOW_CLASS(esl_video_dialog_parent_class)->close_request(window); /* hides */
}

void esl_video_dialog_set_run(EslVideoDialog *self, const char *json, const char *origin,
                              const char *run_name, GPtrArray *samples, const EslCamera *camera,
                              gboolean show_frames, gboolean show_grid, int follow)
{
    g_free(self->json);
    self->json = g_strdup(json);
    g_free(self->origin);
    self->origin = g_strdup(origin);
    g_free(self->run_name);
    self->run_name = g_strdup(run_name);
    g_clear_pointer(&self->samples, g_ptr_array_unref);
    self->samples = g_ptr_array_new_with_free_func((GDestroyNotify)esl_run_sample_free);
    for (guint i = 0; samples && i < samples->len; i++)
        g_ptr_array_add(self->samples, esl_run_sample_copy(samples->pdata[i]));
    self->has_camera = camera != NULL;
    if (camera)
        self->camera = *camera;
    self->show_frames = show_frames;
    self->show_grid = show_grid;
    self->follow = follow;
    gtk_label_set_text(GTK_LABEL(self->run_label), run_name);
    show_message(self, FALSE, "");
    gtk_progress_bar_set_fraction(GTK_PROGRESS_BAR(self->progress_bar), 0.0);
    gtk_progress_bar_set_text(GTK_PROGRESS_BAR(self->progress_bar), "");
    update_frames(self);
    update_sensitivity(self);
}

void esl_video_dialog_set_path(EslVideoDialog *self, const char *path)
{
    gtk_editable_set_text(GTK_EDITABLE(self->path_entry), path);
}

void esl_video_dialog_set_fps(EslVideoDialog *self, int fps)
{
    gtk_spin_button_set_value(GTK_SPIN_BUTTON(self->fps_spin), fps);
}

void esl_video_dialog_set_speed(EslVideoDialog *self, double speed)
{
    gtk_spin_button_set_value(GTK_SPIN_BUTTON(self->speed_spin), speed);
}

gboolean esl_video_dialog_set_size(EslVideoDialog *self, int width, int height)
{
    for (guint i = 0; i < G_N_ELEMENTS(sizes); i++)
        if (sizes[i][0] == width && sizes[i][1] == height) {
            gtk_drop_down_set_selected(GTK_DROP_DOWN(self->size_dropdown), i);
            return TRUE;
        }
    return FALSE;
}

gboolean esl_video_dialog_is_exporting(EslVideoDialog *self)
{
    return self->job != NULL;
}

void esl_video_dialog_get_progress(EslVideoDialog *self, long *done, long *total)
{
    if (self->job) {
        *done = g_atomic_int_get(&self->job->done);
        *total = g_atomic_int_get(&self->job->total);
    } else {
        *done = self->last_done;
        *total = self->last_total;
    }
}

const char *esl_video_dialog_get_message(EslVideoDialog *self)
{
    return gtk_label_get_text(GTK_LABEL(self->message_label));
}

static void esl_video_dialog_dispose(GObject *object)
{
    EslVideoDialog *self = ESL_VIDEO_DIALOG(object);
    self->disposed = TRUE;
    esl_video_dialog_cancel(self); /* the task keeps the dialog until the worker has stopped */
    g_clear_handle_id(&self->progress_timer, g_source_remove);
    gtk_widget_dispose_template(GTK_WIDGET(object), ESL_TYPE_VIDEO_DIALOG);
    G_OBJECT_CLASS(esl_video_dialog_parent_class)->dispose(object);
}

static void esl_video_dialog_finalize(GObject *object)
{
    EslVideoDialog *self = ESL_VIDEO_DIALOG(object);
    g_free(self->json);
    g_free(self->origin);
    g_free(self->run_name);
    g_clear_pointer(&self->samples, g_ptr_array_unref);
    G_OBJECT_CLASS(esl_video_dialog_parent_class)->finalize(object);
}

static void esl_video_dialog_class_init(EslVideoDialogClass *klass)
{
    GObjectClass *object_class = G_OBJECT_CLASS(klass);
    GtkWidgetClass *widget_class = GTK_WIDGET_CLASS(klass);
    object_class->dispose = esl_video_dialog_dispose;
    object_class->finalize = esl_video_dialog_finalize;
    GTK_WINDOW_CLASS(klass)->close_request = on_close_request;
    signals[SIGNAL_FINISHED] = g_signal_new("finished", G_TYPE_FROM_CLASS(klass),
                                            G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL, G_TYPE_NONE,
                                            1, G_TYPE_BOOLEAN);
    gtk_widget_class_set_template_from_resource(widget_class,
                                                "/org/eslabon/Eslabon/ui/esl-video-dialog.ui");
#define CHILD(name) gtk_widget_class_bind_template_child(widget_class, EslVideoDialog, name)
    CHILD(run_label);
    CHILD(path_entry);
    CHILD(format_label);
    CHILD(size_dropdown);
    CHILD(fps_spin);
    CHILD(speed_spin);
    CHILD(frames_label);
    CHILD(progress_bar);
    CHILD(message_label);
    CHILD(cancel_button);
    CHILD(export_button);
#undef CHILD
    gtk_widget_class_bind_template_callback(widget_class, on_path_changed);
    gtk_widget_class_bind_template_callback(widget_class, on_timing_changed);
    gtk_widget_class_install_action(widget_class, "video.export", NULL, action_export);
    gtk_widget_class_install_action(widget_class, "video.cancel", NULL, action_cancel);
    gtk_widget_class_install_action(widget_class, "video.choose", NULL, action_choose);
    gtk_widget_class_add_binding_action(widget_class, GDK_KEY_Escape, 0, "video.cancel", NULL);
}

static void esl_video_dialog_init(EslVideoDialog *self)
{
    gtk_widget_init_template(GTK_WIDGET(self));
    self->follow = -1;
    on_path_changed(self);
    update_frames(self);
}

GtkWidget *esl_video_dialog_new(GtkWindow *parent)
{
    return g_object_new(ESL_TYPE_VIDEO_DIALOG, "transient-for", parent, NULL);
}
