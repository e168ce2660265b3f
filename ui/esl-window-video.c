/* The window's File ▸ Export Video… (win.export-video): the run shown, with the 3D view's
 * camera and options, in an EslVideoDialog. */
#include "esl-window-private.h"

#include <glib/gi18n.h>

#include "esl-scene.h"
#include "esl-video-dialog.h"

GtkWidget *esl_window_show_video_export(EslWindow *self, GError **error)
{
    const MbsModel *m = esl_window_model(self);
    if (!m || !self->history || self->history->len < 2 || !self->history_matches_model) {
        g_set_error_literal(error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                            _("Export Video needs a run of the model shown: run it, or choose "
                              "a stored run in the Runs page."));
        return NULL;
    }
    if (esl_window_is_running(self)) {
        g_set_error_literal(error, G_IO_ERROR, G_IO_ERROR_BUSY,
                            _("Export Video exports a finished run: wait for the run going on "
                              "to end, or stop it."));
        return NULL;
    }
    if (!self->video_dialog) {
        self->video_dialog = esl_video_dialog_new(GTK_WINDOW(self));
        gtk_window_set_destroy_with_parent(GTK_WINDOW(self->video_dialog), TRUE);
        g_object_add_weak_pointer(G_OBJECT(self->video_dialog), (gpointer *)&self->video_dialog);
        const char *videos = g_get_user_special_dir(G_USER_DIRECTORY_VIDEOS);
        g_autofree char *file = g_strdup_printf("%s.mp4", m->name);
        g_autofree char *path = g_build_filename(videos ? videos : g_get_home_dir(), file, NULL);
        esl_video_dialog_set_path(ESL_VIDEO_DIALOG(self->video_dialog), path);
    }
    EslVideoDialog *dialog = ESL_VIDEO_DIALOG(self->video_dialog);
    if (esl_video_dialog_is_exporting(dialog)) {
        gtk_window_present(GTK_WINDOW(dialog)); /* the export going on is shown, untouched */
        return self->video_dialog;
    }
    g_autofree char *model_name = esl_window_model_display_name(self);
    const EslRunSample *first = self->history->pdata[0];
    const EslRunSample *last = self->history->pdata[self->history->len - 1];
    g_autofree char *run_name = g_strdup_printf(_("%s: the run shown, t = %.3g to %.3g s"),
                                                model_name, first->monitors.time,
                                                last->monitors.time);
    EslViewport *viewport = ESL_VIEWPORT(self->viewport);
    g_autoptr(GVariant) frames =
        g_action_group_get_action_state(G_ACTION_GROUP(self), "show-frames");
    g_autoptr(GVariant) grid = g_action_group_get_action_state(G_ACTION_GROUP(self), "show-grid");
    esl_video_dialog_set_run(dialog, esl_window_json(self),
                             esl_model_document_get_origin(self->document), run_name,
                             self->history, esl_viewport_get_camera(viewport),
                             frames && g_variant_get_boolean(frames),
                             !grid || g_variant_get_boolean(grid),
                             esl_viewport_get_follow(viewport) ? esl_scene_vehicle_body(m) : -1);
    gtk_window_present(GTK_WINDOW(dialog));
    return self->video_dialog;
}

static void action_export_video(GtkWidget *widget, const char *name, GVariant *parameter)
{
    (void)name, (void)parameter;
    EslWindow *self = ESL_WINDOW(widget);
    g_autoptr(GError) error = NULL;
    if (!esl_window_show_video_export(self, &error))
        esl_window_show_status(self, TRUE, _("Cannot export a video: %s"), error->message);
}

void esl_window_class_install_video_actions(GtkWidgetClass *widget_class)
{
    gtk_widget_class_install_action(widget_class, "win.export-video", NULL, action_export_video);
}
