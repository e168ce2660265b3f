/* The window's actions (class actions named win.*, and the stateful toggles), its file
 * choosers and the Project ▸ Open Recent menu; see esl-window-private.h. */
#include "esl-window-private.h"

#include <glib/gi18n.h>
#include <glib/gstdio.h>

#include "esl-menu-label.h"
#include "esl-models-dir.h"
#include "esl-points.h"
#include "esl-recent.h"
#include "esl-step-view.h"

#define RECENT_MAX 8


static void action_run(GtkWidget *widget, const char *name, GVariant *parameter)
{
    (void)name;
    (void)parameter;
    esl_window_start_run(ESL_WINDOW(widget));
}

static void action_pause(GtkWidget *widget, const char *name, GVariant *parameter)
{
    (void)name;
    (void)parameter;
    esl_window_toggle_pause(ESL_WINDOW(widget));
}

static void action_stop(GtkWidget *widget, const char *name, GVariant *parameter)
{
    (void)name;
    (void)parameter;
    esl_window_stop_run(ESL_WINDOW(widget));
}

static void action_fit(GtkWidget *widget, const char *name, GVariant *parameter)
{
    (void)name;
    (void)parameter;
    esl_viewport_fit(ESL_VIEWPORT(ESL_WINDOW(widget)->viewport));
}

static void action_fit_motion(GtkWidget *widget, const char *name, GVariant *parameter)
{
    (void)name;
    (void)parameter;
    esl_window_fit_history(ESL_WINDOW(widget));
}

/* Step Through: the step after the time shown, of the model with the run panel's formulation
 * and settings (those of the run shown), re-created on a worker; a run going on is left alone
 * but must be paused, so that the time shown stays where the step is traced. */
static void action_step_through(GtkWidget *widget, const char *name, GVariant *parameter)
{
    (void)name;
    (void)parameter;
    EslWindow *self = ESL_WINDOW(widget);
    if (!esl_window_model(self) || !esl_window_json(self) || esl_model_document_get_check_error(self->document)) {
        esl_window_show_status(self, TRUE, _("Step Through needs a model that runs."));
        return;
    }
    if (self->controller && !esl_run_controller_is_paused(self->controller)) {
        esl_window_show_status(self, TRUE, _("Pause the run first: Step Through traces the step "
                                             "after the time shown."));
        return;
    }
    const MbsFormulationClass *klass =
        esl_run_settings_get_formulation(ESL_RUN_SETTINGS(self->run_settings));
    if (!klass)
        return;
    MbsSettings settings;
    esl_window_read_settings(self, &settings);
    EslStepView *view = esl_step_view_new(GTK_WINDOW(self));
    esl_step_view_trace(view, esl_window_json(self), klass->name, &settings, esl_window_get_time(self));
    esl_window_present_step_view(self, GTK_WINDOW(view));
    gtk_window_present(GTK_WINDOW(view));
}

/* Target: variable names separated by commas, plotted together. */
static void action_plot_variable(GtkWidget *widget, const char *name, GVariant *parameter)
{
    (void)name;
    EslWindow *self = ESL_WINDOW(widget);
    g_auto(GStrv) names = g_strsplit(g_variant_get_string(parameter, NULL), ",", -1);
    for (int i = 0; names[i]; i++) {
        g_autoptr(GError) error = NULL;
        if (!esl_window_plot_variable(self, names[i], &error)) {
            esl_window_show_status(self, TRUE, _("Cannot plot %s: %s"), names[i],
                                   error->message);
            return;
        }
    }
}

static void action_step(GtkWidget *widget, const char *name, GVariant *parameter)
{
    (void)parameter;
    esl_window_step_sample(ESL_WINDOW(widget), g_str_equal(name, "win.step-backward") ? -1 : 1);
}

static void action_view(GtkWidget *widget, const char *action, GVariant *parameter)
{
    (void)action;
    const char *name = g_variant_get_string(parameter, NULL);
    EslStandardView view = g_str_equal(name, "front") ? ESL_VIEW_FRONT
                           : g_str_equal(name, "side") ? ESL_VIEW_SIDE
                           : g_str_equal(name, "top")  ? ESL_VIEW_TOP
                                                       : ESL_VIEW_ISOMETRIC;
    esl_viewport_set_view(ESL_VIEWPORT(ESL_WINDOW(widget)->viewport), view);
}


static void frames_state_changed(GSimpleAction *a, GVariant *state, gpointer data)
{
    g_simple_action_set_state(a, state);
    esl_viewport_set_show_frames(ESL_VIEWPORT(ESL_WINDOW(data)->viewport),
                                 g_variant_get_boolean(state));
}

static void grid_state_changed(GSimpleAction *a, GVariant *state, gpointer data)
{
    g_simple_action_set_state(a, state);
    esl_viewport_set_show_grid(ESL_VIEWPORT(ESL_WINDOW(data)->viewport),
                               g_variant_get_boolean(state));
}

static void real_time_state_changed(GSimpleAction *a, GVariant *state, gpointer data)
{
    g_simple_action_set_state(a, state);
    esl_window_update_pacing(ESL_WINDOW(data));
}

static void presentation_state_changed(GSimpleAction *a, GVariant *state, gpointer data)
{
    g_simple_action_set_state(a, state);
    esl_window_update_presentation(ESL_WINDOW(data));
}

static void action_gallery(GtkWidget *widget, const char *name, GVariant *parameter)
{
    (void)name;
    (void)parameter;
    gtk_stack_set_visible_child_name(GTK_STACK(ESL_WINDOW(widget)->stack), "start");
}

gboolean esl_window_leave_gallery(EslWindow *self)
{
    if (!esl_window_model(self))
        return FALSE;
    gtk_stack_set_visible_child_name(GTK_STACK(self->stack), "workbench");
    return TRUE;
}

static void action_show_workbench(GtkWidget *widget, const char *name, GVariant *parameter)
{
    (void)name;
    (void)parameter;
    esl_window_leave_gallery(ESL_WINDOW(widget));
}

/* Escape on the gallery goes back; elsewhere it goes on to the other handlers. */
static gboolean escape_from_gallery(GtkWidget *widget, GVariant *args, gpointer data)
{
    (void)args;
    (void)data;
    EslWindow *self = ESL_WINDOW(widget);
    if (g_strcmp0(gtk_stack_get_visible_child_name(GTK_STACK(self->stack)), "start") != 0)
        return FALSE;
    return esl_window_leave_gallery(self);
}

typedef void (*PathHandler)(EslWindow *self, const char *path);

static void on_chooser_response(GtkNativeDialog *dialog, int response, gpointer data)
{
    EslWindow *self = data;
    PathHandler handler = (PathHandler)g_object_get_data(G_OBJECT(dialog), "handler");
    if (response == GTK_RESPONSE_ACCEPT) {
        g_autoptr(GFile) file = gtk_file_chooser_get_file(GTK_FILE_CHOOSER(dialog));
        g_autofree char *path = file ? g_file_get_path(file) : NULL;
        if (path)
            handler(self, path);
        /* Saved for the unsaved-edits question: what the user was doing goes on. */
        EslWindowThen then = (EslWindowThen)g_object_get_data(G_OBJECT(dialog), "then");
        if (then && path && !esl_model_document_is_modified(self->document))
            then(self, g_object_get_data(G_OBJECT(dialog), "then-path"));
    }
    gtk_native_dialog_destroy(dialog);
    g_object_unref(dialog);
}

static GtkFileChooserNative *choose_file(EslWindow *self, const char *title, GtkFileChooserAction action,
                        const char *accept, const char *filter_name, const char *pattern,
                        PathHandler handler)
{
    GtkFileChooserNative *chooser =
        gtk_file_chooser_native_new(title, GTK_WINDOW(self), action, accept, _("_Cancel"));
    GtkFileFilter *filter = gtk_file_filter_new();
    gtk_file_filter_set_name(filter, filter_name);
    gtk_file_filter_add_pattern(filter, pattern);
    gtk_file_chooser_add_filter(GTK_FILE_CHOOSER(chooser), filter);
    g_object_unref(filter);
    if (action == GTK_FILE_CHOOSER_ACTION_OPEN && g_str_equal(pattern, "*.json")) {
        g_autoptr(GFile) dir = g_file_new_for_path(esl_models_dir());
        gtk_file_chooser_set_current_folder(GTK_FILE_CHOOSER(chooser), dir, NULL);
    }
    if (action == GTK_FILE_CHOOSER_ACTION_SAVE && g_str_equal(pattern, "*.json")) {
        g_autofree char *name =
            g_strdup_printf("%s.json", esl_window_model(self) ? esl_window_model(self)->name : "model");
        gtk_file_chooser_set_current_name(GTK_FILE_CHOOSER(chooser), name);
    } else if (action == GTK_FILE_CHOOSER_ACTION_SAVE && g_str_equal(pattern, "*.png")) {
        g_autofree char *name =
            g_strdup_printf("%s.png", esl_window_model(self) ? esl_window_model(self)->name : "view");
        gtk_file_chooser_set_current_name(GTK_FILE_CHOOSER(chooser), name);
    } else if (action == GTK_FILE_CHOOSER_ACTION_SAVE && g_str_equal(pattern, "*.csv")) {
        g_autofree char *name =
            g_strdup_printf(_("%s-points.csv"), esl_window_model(self) ? esl_window_model(self)->name : "run");
        gtk_file_chooser_set_current_name(GTK_FILE_CHOOSER(chooser), name);
    } else if (action == GTK_FILE_CHOOSER_ACTION_SAVE) {
        gtk_file_chooser_set_current_name(GTK_FILE_CHOOSER(chooser), _("runs.eslabon"));
    }
    g_object_set_data(G_OBJECT(chooser), "handler", (gpointer)handler);
    g_signal_connect(chooser, "response", G_CALLBACK(on_chooser_response), self);
    gtk_native_dialog_show(GTK_NATIVE_DIALOG(chooser));
    return chooser;
}

static void open_model_now(EslWindow *self, const char *path)
{
    g_autoptr(GError) error = NULL;
    if (!esl_window_load_model(self, path, &error)) {
        esl_window_show_status(self, TRUE, "%s", error->message);
        if (!g_error_matches(error, G_IO_ERROR, G_IO_ERROR_BUSY)) /* the file is fine */
            esl_recent_forget(path);
    } else {
        esl_recent_add(path);
    }
}

static void open_model_path(EslWindow *self, const char *path)
{
    esl_window_ask_unsaved(self, open_model_now, path);
}

static void new_project_path(EslWindow *self, const char *path)
{
    g_autoptr(GError) error = NULL;
    /* The chooser has asked before overwriting: start from an empty file. */
    if (g_file_test(path, G_FILE_TEST_EXISTS)) {
        g_autoptr(GError) check = NULL;
        EslProject *existing = esl_project_open(path, FALSE, &check);
        if (!existing) {
            esl_window_show_status(
                self, TRUE, _("%s is not replaced because it is not an Eslabón project: %s"),
                path, check->message);
            return;
        }
        esl_project_close(existing);
        g_unlink(path);
    }
    if (!esl_window_open_project(self, path, TRUE, &error)) {
        esl_window_show_status(self, TRUE, "%s", error->message);
        return;
    }
    esl_window_show_status(self, FALSE, _("New project %s."), path);
    esl_recent_add(path);
}

static void open_project_path(EslWindow *self, const char *path)
{
    g_autoptr(GError) error = NULL;
    if (!esl_window_open_project(self, path, FALSE, &error)) {
        esl_window_show_status(self, TRUE, _("Cannot open the project: %s"), error->message);
        if (!g_error_matches(error, G_IO_ERROR, G_IO_ERROR_BUSY)) /* the file is fine */
            esl_recent_forget(path);
    } else {
        esl_recent_add(path);
    }
}

static void save_project_path(EslWindow *self, const char *path)
{
    g_autoptr(GError) error = NULL;
    if (!esl_window_ensure_project(self, &error)) {
        esl_window_show_status(self, TRUE, "%s", error->message);
        return;
    }
    if (g_strcmp0(path, self->project_path) == 0) {
        esl_window_show_status(self, FALSE,
                               _("The project is saved: runs are written as they happen."));
        return;
    }
    if (g_file_test(path, G_FILE_TEST_EXISTS))
        g_unlink(path); /* the chooser confirmed the overwrite */
    if (!esl_project_save_copy(self->project, path, &error) ||
        !esl_window_open_project(self, path, FALSE, &error)) {
        esl_window_show_status(self, TRUE, _("Cannot save the project: %s"), error->message);
        return;
    }
    esl_window_show_status(self, FALSE, _("Project saved as %s."), path);
    esl_recent_add(path);
}

void esl_window_save_model_path(EslWindow *self, const char *path)
{
    g_autoptr(GError) error = NULL;
    g_autofree char *kept = g_strdup(path); /* path may be the document's own (Save Model) */
    if (!esl_model_document_save(self->document, kept, &error)) {
        esl_window_show_status(self, TRUE, _("Cannot save the model: %s"), error->message);
        return;
    }
    esl_window_update_titles(self);
    esl_window_show_status(self, FALSE, _("Model saved as %s."), kept);
    esl_recent_add(kept);
}

void esl_window_choose_model_file(EslWindow *self, EslWindowThen then, const char *path)
{
    GtkFileChooserNative *chooser =
        choose_file(self, _("Save Model As"), GTK_FILE_CHOOSER_ACTION_SAVE, _("_Save"),
                    _("Eslabón models (*.json)"), "*.json", esl_window_save_model_path);
    g_object_set_data(G_OBJECT(chooser), "then", (gpointer)then);
    g_object_set_data_full(G_OBJECT(chooser), "then-path", g_strdup(path), g_free);
}

gboolean esl_window_export_view(EslWindow *self, const char *path, GError **error)
{
    g_autoptr(GdkTexture) texture =
        esl_viewport_render_texture(ESL_VIEWPORT(self->viewport), error);
    if (!texture)
        return FALSE;
    if (!gdk_texture_save_to_png(texture, path)) {
        g_set_error(error, G_IO_ERROR, G_IO_ERROR_FAILED, _("cannot write %s"), path);
        return FALSE;
    }
    return TRUE;
}

static void export_view_path(EslWindow *self, const char *path)
{
    g_autoptr(GError) error = NULL;
    if (esl_window_export_view(self, path, &error))
        esl_window_show_status(self, FALSE, _("3D view exported to %s."), path);
    else
        esl_window_show_status(self, TRUE, _("Cannot export the 3D view: %s"), error->message);
}

gboolean esl_window_export_points(EslWindow *self, const char *points, const char *path,
                                  GError **error)
{
    if (!esl_window_model(self) || !self->history || self->history->len == 0 ||
        !self->history_matches_model) {
        g_set_error_literal(error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                            _("no run of this model is shown"));
        return FALSE;
    }
    const MbsModel *m = esl_window_model(self);
    g_autoptr(GArray) selected = NULL;
    if (points) {
        selected = esl_points_parse(m, points, error);
        if (!selected)
            return FALSE;
    } else {
        selected = g_array_new(FALSE, FALSE, sizeof(int));
        for (int i = 0; i < m->npoints; ++i) /* the selected body's, else every moving one's */
            if (self->selected_body >= 0 ? m->points[i].body == self->selected_body
                                         : m->points[i].body != m->ground)
                g_array_append_val(selected, i);
    }
    guint n = self->history->len;
    g_autofree double *time = g_new(double, n);
    g_autofree double *poses = g_new(double, (gsize)n * 12 * m->nbodies + 1);
    for (guint k = 0; k < n; ++k) {
        const EslRunSample *s = self->history->pdata[k];
        time[k] = s->monitors.time;
        memcpy(poses + (gsize)k * 12 * m->nbodies, s->poses, sizeof(double) * 12 * m->nbodies);
    }
    return esl_points_write_history(path, m, time, poses, (int)n,
                                    (const int *)(void *)selected->data, (int)selected->len,
                                    error);
}

static void export_points_path(EslWindow *self, const char *path)
{
    g_autoptr(GError) error = NULL;
    if (esl_window_export_points(self, NULL, path, &error))
        esl_window_show_status(self, FALSE, _("Point history exported to %s."), path);
    else
        esl_window_show_status(self, TRUE, _("Cannot export the point history: %s"),
                               error->message);
}

/* The actions that ask for a file, then hand its path to a handler. */
static const struct {
    const char *action, *title;
    GtkFileChooserAction mode;
    const char *accept, *filter_name, *pattern;
    PathHandler handler;
} file_actions[] = {
    {"win.open-model", N_("Open Model"), GTK_FILE_CHOOSER_ACTION_OPEN, N_("_Open"),
     N_("Eslabón models (*.json)"), "*.json", open_model_path},
    {"win.save-model", N_("Save Model As"), GTK_FILE_CHOOSER_ACTION_SAVE, N_("_Save"),
     N_("Eslabón models (*.json)"), "*.json", esl_window_save_model_path},
    {"win.export-view", N_("Export 3D View"), GTK_FILE_CHOOSER_ACTION_SAVE, N_("_Export"),
     N_("PNG images (*.png)"), "*.png", export_view_path},
    {"win.export-points", N_("Export Point History"), GTK_FILE_CHOOSER_ACTION_SAVE, N_("_Export"),
     N_("CSV files (*.csv)"), "*.csv", export_points_path},
    {"win.new-project", N_("New Project"), GTK_FILE_CHOOSER_ACTION_SAVE, N_("_Create"),
     N_("Eslabón projects (*.eslabon)"), "*.eslabon", new_project_path},
    {"win.open-project", N_("Open Project"), GTK_FILE_CHOOSER_ACTION_OPEN, N_("_Open"),
     N_("Eslabón projects (*.eslabon)"), "*.eslabon", open_project_path},
    {"win.save-project", N_("Save Project As"), GTK_FILE_CHOOSER_ACTION_SAVE, N_("_Save"),
     N_("Eslabón projects (*.eslabon)"), "*.eslabon", save_project_path},
};

static void action_choose_file(GtkWidget *widget, const char *name, GVariant *parameter)
{
    (void)parameter;
    for (size_t i = 0; i < G_N_ELEMENTS(file_actions); i++)
        if (g_str_equal(file_actions[i].action, name))
            choose_file(ESL_WINDOW(widget), _(file_actions[i].title), file_actions[i].mode,
                        _(file_actions[i].accept), _(file_actions[i].filter_name),
                        file_actions[i].pattern, file_actions[i].handler);
}

static void action_open_recent(GtkWidget *widget, const char *name, GVariant *parameter)
{
    (void)name;
    const char *path = g_variant_get_string(parameter, NULL);
    if (g_str_has_suffix(path, ".eslabon"))
        open_project_path(ESL_WINDOW(widget), path);
    else
        open_model_path(ESL_WINDOW(widget), path);
}

/* ---- recent files ------------------------------------------------------------------------- */

/* The Project ▸ Open Recent menu (the start page lists them too). */
void esl_window_fill_recent_menu(EslWindow *self)
{
    g_autoptr(GPtrArray) paths = esl_recent_list(RECENT_MAX);
    g_menu_remove_all(self->recent_menu);
    for (guint i = 0; i < paths->len; i++) {
        const char *path = paths->pdata[i];
        g_autofree char *base = g_path_get_basename(path);
        g_autofree char *shown = esl_menu_label_escape(base); /* my_model.json as it is */
        g_autoptr(GMenuItem) item = g_menu_item_new(shown, NULL);
        g_menu_item_set_action_and_target_value(item, "win.open-recent",
                                                g_variant_new_string(path));
        g_menu_append_item(self->recent_menu, item);
    }
}

static void on_recent_changed(GtkRecentManager *manager, EslWindow *self)
{
    (void)manager;
    esl_window_fill_recent_menu(self);
}

/* ---- installation ------------------------------------------------------------------------- */

/* Actions without state, on the class; their accelerators are set by EslApplication. */
static const struct {
    const char *name, *parameter_type;
    GtkWidgetActionActivateFunc activate;
} window_actions[] = {
    {"win.run", NULL, action_run},
    {"win.pause", NULL, action_pause},
    {"win.stop", NULL, action_stop},
    {"win.fit-view", NULL, action_fit},
    {"win.fit-motion", NULL, action_fit_motion},
    {"win.step-through", NULL, action_step_through},
    {"win.plot-variable", "s", action_plot_variable},
    {"win.step-forward", NULL, action_step},
    {"win.step-backward", NULL, action_step},
    {"win.view", "s", action_view},
    {"win.show-gallery", NULL, action_gallery},
    {"win.show-workbench", NULL, action_show_workbench},
    {"win.open-recent", "s", action_open_recent},
};

/* Toggles with a state, in the window's action map. */
static const GActionEntry window_toggles[] = {
    {"show-frames", NULL, NULL, "false", frames_state_changed, {0}},
    {"show-grid", NULL, NULL, "true", grid_state_changed, {0}},
    {"real-time", NULL, NULL, "false", real_time_state_changed, {0}},
    {"presentation", NULL, NULL, "false", presentation_state_changed, {0}},
    {"presentation-plot", NULL, "s", "'energy'", presentation_state_changed, {0}},
    {"presentation-text", NULL, "d", "1.0", presentation_state_changed, {0}},
};

void esl_window_class_install_actions(GtkWidgetClass *widget_class)
{
    for (size_t i = 0; i < G_N_ELEMENTS(window_actions); i++)
        gtk_widget_class_install_action(widget_class, window_actions[i].name,
                                        window_actions[i].parameter_type,
                                        window_actions[i].activate);
    for (size_t i = 0; i < G_N_ELEMENTS(file_actions); i++)
        gtk_widget_class_install_action(widget_class, file_actions[i].action, NULL,
                                        action_choose_file);
    gtk_widget_class_add_binding(widget_class, GDK_KEY_Escape, 0, escape_from_gallery, NULL);
}

void esl_window_init_actions(EslWindow *self)
{
    g_action_map_add_action_entries(G_ACTION_MAP(self), window_toggles,
                                    G_N_ELEMENTS(window_toggles), self);
    /* win.playback is the playback bar's "playing". */
    g_autoptr(GPropertyAction) playback =
        g_property_action_new("playback", self->playback_bar, "playing");
    g_action_map_add_action(G_ACTION_MAP(self), G_ACTION(playback));
    esl_window_init_vehicle_actions(self);
    esl_window_init_study_actions(self);
    /* a paced run follows the playback speed */
    g_signal_connect_swapped(self->playback_bar, "notify::speed",
                             G_CALLBACK(esl_window_update_pacing), self);
    esl_window_init_presentation(self);
    GtkEventController *escape = gtk_shortcut_controller_new();
    gtk_event_controller_set_propagation_phase(escape, GTK_PHASE_CAPTURE);
    gtk_shortcut_controller_add_shortcut(
        GTK_SHORTCUT_CONTROLLER(escape),
        gtk_shortcut_new(gtk_keyval_trigger_new(GDK_KEY_Escape, 0),
                         gtk_callback_action_new(esl_window_escape_from_presentation, NULL, NULL)));
    gtk_widget_add_controller(GTK_WIDGET(self), escape);
    esl_window_fill_recent_menu(self);
    g_signal_connect(gtk_recent_manager_get_default(), "changed", G_CALLBACK(on_recent_changed),
                     self);
}
