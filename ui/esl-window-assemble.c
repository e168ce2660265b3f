/* Building the model in the window: File ▸ New Model, the edits (add, remove, set), undo and
 * redo, the check of every edit on a worker, and the dialogs whose Apply is one edit (the
 * objective editor, the optimiser); see esl-window-private.h. The edits themselves
 * are app/esl-model-build.c's; this file presents them. */
#include "esl-window-private.h"

#include <glib/gi18n.h>

#include "esl-color-scale.h"
#include "esl-model-edit.h"
#include "esl-model-editor.h"
#include "esl-model-file.h"
#include "esl-objective-editor.h"
#include "esl-optimize-dialog.h"
#include "esl-recent.h"

/* ---- the check -------------------------------------------------------------------------------- */

static const char *origin_of(EslWindow *self, char **owned)
{
    *owned = self->model_path ? g_path_get_basename(self->model_path) : g_strdup("model.json");
    return *owned;
}

/* Show the model (or draft) shown, which had nbodies_before bodies before the edit. */
static void show_model(EslWindow *self, const MbsModel *shown, int nbodies_before)
{
    EslModelPanel *panel = ESL_MODEL_PANEL(self->model_panel);
    /* A body added or removed: the view frames the mechanism again. */
    gboolean reframe = shown && shown->nbodies != nbodies_before;
    int source, index;
    esl_model_panel_get_selected(panel, &source, &index);
    esl_viewport_set_model(ESL_VIEWPORT(self->viewport), shown);
    esl_model_panel_set_model(panel, shown, self->model_json);
    if (shown && ((source == ESL_SOURCE_BODY && index < shown->nbodies) ||
                  (source == ESL_SOURCE_JOINT && index < shown->njoints) ||
                  (source == ESL_SOURCE_FORCE && index < shown->nforces) ||
                  (source == ESL_MODEL_PANEL_PARAMETER && index < shown->nparameters))) {
        /* the selection kept across an edit: the sidebar stays on the page the user is on
         * (selecting turns it to the Model tab; the Build page would be left after every Add) */
        GtkNotebook *sidebar =
            GTK_NOTEBOOK(gtk_widget_get_ancestor(self->model_editor, GTK_TYPE_NOTEBOOK));
        int page = sidebar ? gtk_notebook_get_current_page(sidebar) : -1;
        esl_model_panel_select(panel, source, index);
        if (sidebar)
            gtk_notebook_set_current_page(sidebar, page);
    }
    esl_model_editor_set_model(ESL_MODEL_EDITOR(self->model_editor), shown);
    if (reframe)
        esl_viewport_fit(ESL_VIEWPORT(self->viewport));
}

static void on_checked(GObject *source, GAsyncResult *result, gpointer data)
{
    (void)source;
    EslWindow *self = data;
    g_autoptr(EslModelCheck) check = esl_model_check_finish(result, NULL);
    /* A later edit started another check, or the window is going away: this one is stale. */
    if (!check || !self->model_json || g_strcmp0(check->json, self->model_json) != 0 ||
        !self->model_editor) {
        g_object_unref(self);
        return;
    }
    self->checking = FALSE;
    g_clear_object(&self->check_cancellable);
    g_clear_pointer(&self->check_error, g_free);
    self->check_error = g_strdup(check->error);
    self->dof = check->dof;
    self->redundant = check->redundant;
    esl_model_editor_set_check(ESL_MODEL_EDITOR(self->model_editor), FALSE, check);
    if (!self->check_installs) { /* the model as opened: its counts only */
        esl_window_update_run_actions(self);
        g_object_unref(self);
        return;
    }
    const MbsModel *before = self->draft ? self->draft : self->model;
    int nbodies_before = before ? before->nbodies : -1;
    esl_viewport_set_model(ESL_VIEWPORT(self->viewport), NULL);
    g_clear_pointer(&self->draft, mbs_model_free);
    if (check->model) {
        /* The run settings hold the model: they get the new one before the old is freed. */
        MbsModel *old = self->model;
        self->model = g_steal_pointer(&check->model);
        esl_run_settings_set_model(ESL_RUN_SETTINGS(self->run_settings), self->model);
        mbs_model_free(old);
        show_model(self, self->model, nbodies_before);
        esl_window_show_state(self, check->poses, check->violations);
        gtk_label_set_text(GTK_LABEL(self->viewport_note),
                           _("Model edited and re-assembled: run it to see the effect."));
    } else {
        /* The last model that loaded stays for the run settings; the draft is drawn. */
        self->draft = g_steal_pointer(&check->draft);
        show_model(self, self->draft ? self->draft : self->model, nbodies_before);
        esl_window_show_state(self, NULL, NULL);
        gtk_label_set_text(GTK_LABEL(self->viewport_note),
                           _("The model is not complete: see the Build page."));
        if (self->draft && check->index >= 0) {
            static const int sources[] = {ESL_SOURCE_BODY, ESL_SOURCE_JOINT, ESL_SOURCE_FORCE,
                                          ESL_MODEL_PANEL_PARAMETER};
            esl_viewport_set_highlight(ESL_VIEWPORT(self->viewport), sources[check->section],
                                       check->index);
        }
    }
    esl_window_update_titles(self);
    esl_window_update_run_actions(self);
    esl_window_show_status(self, check->error != NULL, "%s",
                           check->error ? check->error
                                        : esl_model_editor_get_status(
                                              ESL_MODEL_EDITOR(self->model_editor)));
    if (self->run_when_checked) {
        self->run_when_checked = FALSE;
        if (!self->check_error)
            esl_window_start_run(self);
    }
    g_object_unref(self);
}

static void start_check(EslWindow *self, gboolean installs)
{
    if (self->check_cancellable)
        g_cancellable_cancel(self->check_cancellable);
    g_clear_object(&self->check_cancellable);
    self->check_cancellable = g_cancellable_new();
    self->checking = TRUE;
    self->check_installs = installs;
    MbsSettings settings;
    esl_window_read_settings(self, &settings);
    const MbsFormulationClass *klass =
        esl_run_settings_get_formulation(ESL_RUN_SETTINGS(self->run_settings));
    g_autofree char *owned = NULL;
    esl_model_check_async(self->model_json, origin_of(self, &owned),
                          klass ? klass->name : "penalty", &settings, self->check_cancellable,
                          on_checked, g_object_ref(self));
    esl_model_editor_set_check(ESL_MODEL_EDITOR(self->model_editor), TRUE, NULL);
    esl_window_update_run_actions(self);
}

/* ---- history ------------------------------------------------------------------------------------- */

static void show_history(EslWindow *self)
{
    const char *undo = self->edits ? esl_model_history_undo_label(self->edits) : NULL;
    const char *redo = self->edits ? esl_model_history_redo_label(self->edits) : NULL;
    gtk_widget_action_set_enabled(GTK_WIDGET(self), "win.undo", undo != NULL && !self->controller);
    gtk_widget_action_set_enabled(GTK_WIDGET(self), "win.redo", redo != NULL && !self->controller);
    esl_model_editor_set_history(ESL_MODEL_EDITOR(self->model_editor), undo, redo);
}

void esl_window_begin_edits(EslWindow *self)
{
    g_clear_pointer(&self->edits, esl_model_history_free);
    if (self->check_cancellable)
        g_cancellable_cancel(self->check_cancellable);
    g_clear_object(&self->check_cancellable);
    self->checking = FALSE;
    self->run_when_checked = FALSE;
    g_clear_pointer(&self->check_error, g_free);
    g_clear_pointer(&self->draft, mbs_model_free);
    self->edits = self->model_json ? esl_model_history_new(self->model_json) : NULL;
    self->dof = self->redundant = -1;
    if (!self->model_editor)
        return;
    esl_model_editor_set_model(ESL_MODEL_EDITOR(self->model_editor), self->model);
    show_history(self);
    if (self->model_json) /* the counts of the model as opened */
        start_check(self, FALSE);
}

void esl_window_end_edits(EslWindow *self)
{
    if (self->check_cancellable)
        g_cancellable_cancel(self->check_cancellable);
    g_clear_object(&self->check_cancellable);
    g_clear_pointer(&self->edits, esl_model_history_free);
    g_clear_pointer(&self->check_error, g_free);
    g_clear_pointer(&self->draft, mbs_model_free);
    self->model_editor = NULL;
}

/* The run shown was of the model before the edit: it is no longer shown. */
static void forget_history_shown(EslWindow *self)
{
    esl_run_browser_unselect_all(ESL_RUN_BROWSER(self->run_browser));
    esl_window_set_history(self, NULL, FALSE);
    esl_plot_board_prepare_single(ESL_PLOT_BOARD(self->plot_board));
    esl_playback_bar_set_label(ESL_PLAYBACK_BAR(self->playback_bar), _("t = 0 s"));
}

/* The history's present text becomes the model's; checked on a worker. */
static void take_present(EslWindow *self)
{
    g_free(self->model_json);
    self->model_json = g_strdup(esl_model_history_get_json(self->edits));
    self->model_modified = TRUE;
    self->edits_discarded = FALSE;
    forget_history_shown(self);
    esl_window_update_titles(self);
    show_history(self);
    start_check(self, TRUE);
}

void esl_window_commit_edit(EslWindow *self, char *json, const char *label)
{
    if (!self->edits)
        self->edits = esl_model_history_new(self->model_json ? self->model_json : "");
    esl_model_history_push(self->edits, json, label);
    take_present(self);
}

static gboolean can_edit(EslWindow *self)
{
    if (self->controller) {
        esl_window_show_status(self, TRUE,
                               _("Stop the running simulation before editing the model."));
        return FALSE;
    }
    if (!self->model_json) {
        esl_window_show_status(self, TRUE, _("Open a model or start a new one (Project ▸ New "
                                             "Model) first."));
        return FALSE;
    }
    return TRUE;
}

static void action_undo(GtkWidget *widget, const char *name, GVariant *parameter)
{
    (void)parameter;
    EslWindow *self = ESL_WINDOW(widget);
    if (!can_edit(self) || !self->edits)
        return;
    g_autofree char *label = g_strdup(g_str_equal(name, "win.undo")
                                          ? esl_model_history_undo_label(self->edits)
                                          : esl_model_history_redo_label(self->edits));
    gboolean done = g_str_equal(name, "win.undo") ? esl_model_history_undo(self->edits)
                                                  : esl_model_history_redo(self->edits);
    if (!done)
        return;
    take_present(self);
    esl_window_show_status(self, FALSE,
                           g_str_equal(name, "win.undo") ? _("Undone: %s.") : _("Redone: %s."),
                           label);
}

/* ---- edits ------------------------------------------------------------------------------------ */

/* The actions whose a{sv} is an edit of app/esl-model-build.c, with how the edit is named for
 * Undo. */
static const struct {
    const char *action, *kind, *label;
} edit_actions[] = {
    {"win.add-body", "body", N_("add body %s")},
    {"win.add-joint", "joint", N_("add joint %s")},
    {"win.add-force", "force", N_("add force %s")},
    {"win.set-driver", "driver", N_("driver of joint %s")},
    {"win.set-initial", "initial", N_("initial condition of joint %s")},
    {"win.set-parameter", "parameter", N_("parameter %s")},
    {"win.set-gravity", "gravity", N_("gravity%s")},
    {"win.remove-element", "remove", N_("remove %s")},
};

static void action_edit(GtkWidget *widget, const char *name, GVariant *parameter)
{
    EslWindow *self = ESL_WINDOW(widget);
    if (!can_edit(self))
        return;
    for (size_t i = 0; i < G_N_ELEMENTS(edit_actions); i++) {
        if (!g_str_equal(edit_actions[i].action, name))
            continue;
        g_autoptr(GError) error = NULL;
        char *json = esl_model_build_edit(self->model_json, edit_actions[i].kind, parameter,
                                          &error);
        if (!json) {
            esl_window_show_status(self, TRUE, _("Cannot edit the model: %s"), error->message);
            return;
        }
        const char *what = NULL;
        if (!g_variant_lookup(parameter, "name", "&s", &what))
            g_variant_lookup(parameter, "joint", "&s", &what);
        if (!what)
            g_variant_lookup(parameter, "type", "&s", &what);
        g_autofree char *label = g_strdup_printf(_(edit_actions[i].label), what ? what : "");
        esl_window_commit_edit(self, json, label);
        esl_window_show_status(self, FALSE, _("Done: %s. Checking the model…"), label);
        return;
    }
}

/* Remove the element selected in the model list. */
static void action_remove_selected(GtkWidget *widget, const char *name, GVariant *parameter)
{
    (void)name;
    (void)parameter;
    EslWindow *self = ESL_WINDOW(widget);
    int source, index;
    const MbsModel *m = self->draft ? self->draft : self->model;
    if (!m || !esl_model_panel_get_selected(ESL_MODEL_PANEL(self->model_panel), &source, &index)) {
        esl_window_show_status(self, TRUE, _("Select the element to remove in the model list."));
        return;
    }
    const char *section = NULL, *element = NULL;
    if (source == ESL_SOURCE_BODY && index < m->nbodies) {
        section = "bodies";
        element = m->bodies[index].name;
    } else if (source == ESL_SOURCE_JOINT && index < m->njoints) {
        section = "joints";
        element = m->joints[index].name;
    } else if (source == ESL_SOURCE_FORCE && index < m->nforces) {
        section = "forces";
        element = m->forces[index].name;
    } else if (source == ESL_MODEL_PANEL_PARAMETER && index < m->nparameters) {
        section = "parameters";
        element = m->parameters[index].name;
    }
    if (!section)
        return;
    GVariantBuilder b;
    g_variant_builder_init(&b, G_VARIANT_TYPE_VARDICT);
    g_variant_builder_add(&b, "{sv}", "section", g_variant_new_string(section));
    g_variant_builder_add(&b, "{sv}", "name", g_variant_new_string(element));
    gtk_widget_activate_action_variant(widget, "win.remove-element", g_variant_builder_end(&b));
}

static void new_model_now(EslWindow *self, const char *path)
{
    (void)path;
    if (self->controller) {
        esl_window_show_status(self, TRUE,
                               _("Stop the running simulation before starting a new model."));
        return;
    }
    char *json = esl_model_build_empty(_("untitled"));
    g_autoptr(GError) error = NULL;
    MbsModel *model = esl_model_load_string(json, "untitled.json", NULL, 0, &error);
    if (!model) { /* an empty model always loads; say so if it does not */
        esl_window_show_status(self, TRUE, "%s", error->message);
        g_free(json);
        return;
    }
    esl_window_install_model(self, model, json, g_strdup("untitled.json"));
    gtk_notebook_set_current_page(
        GTK_NOTEBOOK(gtk_widget_get_ancestor(self->model_editor, GTK_TYPE_NOTEBOOK)),
        gtk_notebook_page_num(
            GTK_NOTEBOOK(gtk_widget_get_ancestor(self->model_editor, GTK_TYPE_NOTEBOOK)),
            self->model_editor));
    esl_window_show_status(self, FALSE,
                           _("New model: a ground and gravity. Add bodies and joints on the "
                             "Build page."));
}

static void action_new_model(GtkWidget *widget, const char *name, GVariant *parameter)
{
    (void)name;
    (void)parameter;
    esl_window_ask_unsaved(ESL_WINDOW(widget), new_model_now, NULL);
}

static void action_save_model_to(GtkWidget *widget, const char *name, GVariant *parameter)
{
    (void)name;
    esl_window_save_model_path(ESL_WINDOW(widget), g_variant_get_string(parameter, NULL));
}

/* ---- objectives ---------------------------------------------------------------------------------- */

/* A dialog's Apply (the objective editor's, the optimiser's): its text is the model's after one
 * edit named label (undoable), checked on a worker as every edit. Refused while a run goes on,
 * or when the model changed since the dialog read it (its edit would undo the change). */
static gboolean commit_from_dialog(EslWindow *self, const char *base_json, const char *json,
                                   const char *label, GError **error)
{
    if (esl_window_is_running(self)) {
        g_set_error_literal(error, G_IO_ERROR, G_IO_ERROR_BUSY,
                            _("Stop the running simulation before editing the model."));
        return FALSE;
    }
    if (g_strcmp0(base_json, self->model_json) != 0) {
        g_set_error_literal(error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                            _("The model changed since the dialog read it: open it again."));
        return FALSE;
    }
    esl_window_commit_edit(self, g_strdup(json), label);
    esl_window_show_status(self, FALSE, _("Done: %s. Checking the model…"), label);
    return TRUE;
}

/* The objective editor's Apply; the run panel's chooser then lists the new objectives. */
static gboolean on_objectives_apply(EslObjectiveEditor *editor, const char *base_json,
                                    const char *json, GError **error, EslWindow *self)
{
    (void)editor;
    return commit_from_dialog(self, base_json, json, _("objectives"), error);
}

/* The optimiser's Apply to Model: the parameters it varied at its best point. */
static gboolean on_optimum_apply(EslOptimizeDialog *dialog, const char *base_json,
                                 const char *json, GError **error, EslWindow *self)
{
    const char *const *varied;
    int n;
    esl_optimize_dialog_get_result(dialog, &varied, &n);
    g_autofree char *names = g_strjoinv(", ", (char **)varied);
    g_autofree char *label = g_strdup_printf(_("optimised %s"), names);
    return commit_from_dialog(self, base_json, json, label, error);
}

static void action_edit_objectives(GtkWidget *widget, const char *name, GVariant *parameter)
{
    (void)name;
    (void)parameter;
    EslWindow *self = ESL_WINDOW(widget);
    if (!self->model_json) {
        esl_window_show_status(self, TRUE, _("Open a model or start a new one (Project ▸ New "
                                             "Model) first."));
        return;
    }
    if (!self->objective_editor) {
        EslObjectiveEditor *editor = esl_objective_editor_new(GTK_WINDOW(self));
        self->objective_editor = GTK_WIDGET(editor);
        g_object_add_weak_pointer(G_OBJECT(editor), (gpointer *)&self->objective_editor);
        g_signal_connect(editor, "apply", G_CALLBACK(on_objectives_apply), self);
    }
    g_autofree char *owned = NULL;
    esl_objective_editor_set_model(ESL_OBJECTIVE_EDITOR(self->objective_editor),
                                   self->model_json, origin_of(self, &owned));
    gtk_window_present(GTK_WINDOW(self->objective_editor));
}

/* An optimisation ended: it is listed with the runs. */
static void on_optimization_finished(EslOptimizeDialog *dialog, int status, EslWindow *self)
{
    (void)dialog, (void)status;
    esl_window_fill_runs(self);
}

EslOptimizeDialog *esl_window_present_optimizer(EslWindow *self)
{
    if (!self->model_json) {
        esl_window_show_status(self, TRUE, _("Open a model or start a new one (Project ▸ New "
                                             "Model) first."));
        return NULL;
    }
    const MbsFormulationClass *klass =
        esl_run_settings_get_formulation(ESL_RUN_SETTINGS(self->run_settings));
    g_autoptr(GError) error = NULL;
    if (!klass) {
        esl_window_show_status(self, TRUE, _("No formulation is available in this build."));
        return NULL;
    }
    if (!esl_window_ensure_project(self, &error)) {
        esl_window_show_status(self, TRUE, _("No project to store the optimisation in: %s"),
                               error->message);
        return NULL;
    }
    if (!self->optimize_dialog) {
        EslOptimizeDialog *dialog = esl_optimize_dialog_new(GTK_WINDOW(self));
        self->optimize_dialog = GTK_WIDGET(dialog);
        g_object_add_weak_pointer(G_OBJECT(dialog), (gpointer *)&self->optimize_dialog);
        g_signal_connect(dialog, "apply", G_CALLBACK(on_optimum_apply), self);
        g_signal_connect(dialog, "finished", G_CALLBACK(on_optimization_finished), self);
    }
    EslOptimizeDialog *dialog = ESL_OPTIMIZE_DIALOG(self->optimize_dialog);
    /* the sensitivity chooser's method options go with the run panel's settings */
    MbsSettings settings, options;
    esl_window_read_settings(self, &settings);
    gboolean has_options = esl_sensitivity_chooser_get_options(
                               esl_run_settings_get_sensitivity(
                                   ESL_RUN_SETTINGS(self->run_settings)),
                               &options) != NULL;
    g_autofree char *owned = NULL;
    if (!esl_optimize_dialog_is_running(dialog)) /* a running one keeps its project and model */
        esl_optimize_dialog_set_project(dialog, self->project_path,
                                        self->model ? esl_window_stored_model_id(self) : 0);
    esl_optimize_dialog_set_model(dialog, self->model_json, origin_of(self, &owned), klass->name,
                                  &settings, has_options ? &options : NULL);
    esl_window_offer_selected_optimization(self, dialog);
    gtk_window_present(GTK_WINDOW(dialog));
    return dialog;
}

static void action_optimize(GtkWidget *widget, const char *name, GVariant *parameter)
{
    (void)name;
    (void)parameter;
    esl_window_present_optimizer(ESL_WINDOW(widget));
}

/* ---- public -------------------------------------------------------------------------------------- */

const char *esl_window_get_model_json(EslWindow *self)
{
    return self->model_json;
}

gboolean esl_window_is_checking(EslWindow *self)
{
    return self->checking;
}

const char *esl_window_get_check_error(EslWindow *self)
{
    return self->check_error;
}

void esl_window_get_mobility(EslWindow *self, int *dof, int *redundant)
{
    *dof = self->dof;
    *redundant = self->redundant;
}

void esl_window_class_install_assemble_actions(GtkWidgetClass *widget_class)
{
    for (size_t i = 0; i < G_N_ELEMENTS(edit_actions); i++)
        gtk_widget_class_install_action(widget_class, edit_actions[i].action, "a{sv}",
                                        action_edit);
    gtk_widget_class_install_action(widget_class, "win.undo", NULL, action_undo);
    gtk_widget_class_install_action(widget_class, "win.redo", NULL, action_undo);
    gtk_widget_class_install_action(widget_class, "win.new-model", NULL, action_new_model);
    gtk_widget_class_install_action(widget_class, "win.remove-selected", NULL,
                                    action_remove_selected);
    gtk_widget_class_install_action(widget_class, "win.save-model-to", "s", action_save_model_to);
    gtk_widget_class_install_action(widget_class, "win.edit-objectives", NULL,
                                    action_edit_objectives);
    gtk_widget_class_install_action(widget_class, "win.optimize", NULL, action_optimize);
}
