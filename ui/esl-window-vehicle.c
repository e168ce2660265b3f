/* The window's vehicle actions: win.follow-body (the 3D view's follow camera: its "follow"
 * property) and win.tyre-curves (EslTyreDialog for a wheel of the model, or a .tir file). */

#include "esl-models-dir.h"
#include "esl-scene.h"
#include "esl-tyre-dialog.h"
#include "esl-window-private.h"
#include "mbs_force.h"
#include "mbs_tyre_model.h"

/* The pac2002 data of force index of the model, or NULL when it is not such a wheel. */
static const MbsTyreData *pac2002_wheel(const MbsModel *m, int index)
{
    if (!m || index < 0 || index >= m->nforces)
        return NULL;
    const MbsForce *f = &m->forces[index];
    int pac2002 = mbs_tyre_model_class_index("pac2002");
    return f->type == MBS_FORCE_WHEEL && f->tyre_law == pac2002 ? f->tyre_data : NULL;
}

/* The bundled HMMWV tyre: data/tyres/ beside the bundled models. */
static char *bundled_tyre_file(void)
{
    g_autofree char *top = g_path_get_dirname(esl_models_dir());
    return g_build_filename(top, "data", "tyres", "HMMWV_Pac02Tire.tir", NULL);
}

GtkWidget *esl_window_show_tyre_curves(EslWindow *self, int force)
{
    if (!self->tyre_dialog) {
        self->tyre_dialog = esl_tyre_dialog_new(GTK_WINDOW(self));
        gtk_window_set_destroy_with_parent(GTK_WINDOW(self->tyre_dialog), TRUE);
        g_object_add_weak_pointer(G_OBJECT(self->tyre_dialog), (gpointer *)&self->tyre_dialog);
    }
    EslTyreDialog *dialog = ESL_TYRE_DIALOG(self->tyre_dialog);
    int source = -1, selected = -1;
    if (force < 0 && esl_model_panel_get_selected(ESL_MODEL_PANEL(self->model_panel), &source,
                                                  &selected) &&
        source == ESL_SOURCE_FORCE)
        force = selected;
    const MbsTyreData *data = pac2002_wheel(esl_window_model(self), force);
    if (data) {
        esl_tyre_dialog_show_data(dialog, data, esl_window_model(self)->forces[force].name);
    } else {
        g_autofree char *path = bundled_tyre_file();
        esl_tyre_dialog_open_file(dialog, path, NULL); /* a missing file says so in the dialog */
    }
    gtk_window_present(GTK_WINDOW(dialog));
    return self->tyre_dialog;
}

static void on_tyre_curves(GSimpleAction *action, GVariant *parameter, gpointer window)
{
    (void)action;
    esl_window_show_tyre_curves(ESL_WINDOW(window), g_variant_get_int32(parameter));
}

void esl_window_init_vehicle_actions(EslWindow *self)
{
    g_autoptr(GPropertyAction) follow =
        g_property_action_new("follow-body", self->viewport, "follow");
    g_action_map_add_action(G_ACTION_MAP(self), G_ACTION(follow));
    g_autoptr(GSimpleAction) curves = g_simple_action_new("tyre-curves", G_VARIANT_TYPE_INT32);
    g_signal_connect(curves, "activate", G_CALLBACK(on_tyre_curves), self);
    g_action_map_add_action(G_ACTION_MAP(self), G_ACTION(curves));
}
