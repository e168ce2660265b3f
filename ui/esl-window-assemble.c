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
#include "esl-recent.h"

/* ---- the check -------------------------------------------------------------------------------- */

/* Show the model (or draft) shown, which had nbodies_before bodies before the edit. */
static void show_model(EslWindow *self, const MbsModel *shown, int nbodies_before)
{
    EslModelPanel *panel = ESL_MODEL_PANEL(self->model_panel);
    /* A body added or removed: the view frames the mechanism again. */
    gboolean reframe = shown && shown->nbodies != nbodies_before;
    int source, index;
    esl_model_panel_get_selected(panel, &source, &index);
    esl_viewport_set_model(ESL_VIEWPORT(self->viewport), shown);
    esl_model_panel_set_model(panel, shown, esl_window_json(self));
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

/* The document took the result of a check (its old model and draft still alive). */
static void on_checked(EslModelDocument *doc, EslModelCheck *check, gboolean installed,
                       EslWindow *self)
{
    esl_model_editor_set_check(ESL_MODEL_EDITOR(self->model_editor), FALSE, check);
    if (!installed) { /* the model as opened: its counts only */
        esl_window_update_run_actions(self);
        return;
    }
    const MbsModel *shown = esl_model_document_get_shown(doc);
    /* The run settings hold the model: they get the new one before the old is freed. */
    esl_run_settings_set_model(ESL_RUN_SETTINGS(self->run_settings), esl_window_model(self));
    show_model(self, shown, self->nbodies_before_check);
    if (check->model) {
        esl_window_show_state(self, check->poses, check->violations);
        gtk_label_set_text(GTK_LABEL(self->viewport_note),
                           _("Model edited and re-assembled: run it to see the effect."));
    } else {
        esl_window_show_state(self, NULL, NULL);
        gtk_label_set_text(GTK_LABEL(self->viewport_note),
                           _("The model is not complete: see the Build page."));
        if (esl_model_document_get_draft(doc) && check->index >= 0) {
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
        if (!check->error)
            esl_window_start_run(self);
    }
}

static void start_check(EslWindow *self, gboolean installs)
{
    if (installs) {
        const MbsModel *before = esl_model_document_get_shown(self->document);
        self->nbodies_before_check = before ? before->nbodies : -1;
    }
    MbsSettings settings;
    esl_window_read_settings(self, &settings);
    const MbsFormulationClass *klass =
        esl_run_settings_get_formulation(ESL_RUN_SETTINGS(self->run_settings));
    esl_model_document_check(self->document, klass ? klass->name : "penalty", &settings,
                             installs);
    esl_model_editor_set_check(ESL_MODEL_EDITOR(self->model_editor), TRUE, NULL);
    esl_window_update_run_actions(self);
}

/* ---- history ------------------------------------------------------------------------------------- */

static void show_history(EslWindow *self)
{
    const char *undo = esl_model_document_undo_label(self->document);
    const char *redo = esl_model_document_redo_label(self->document);
    gtk_widget_action_set_enabled(GTK_WIDGET(self), "win.undo", undo != NULL && !self->controller);
    gtk_widget_action_set_enabled(GTK_WIDGET(self), "win.redo", redo != NULL && !self->controller);
    esl_model_editor_set_history(ESL_MODEL_EDITOR(self->model_editor), undo, redo);
}

void esl_window_begin_edits(EslWindow *self)
{
    self->run_when_checked = FALSE;
    if (!self->model_editor)
        return;
    if (!self->checked_handler)
        self->checked_handler =
            g_signal_connect(self->document, "checked", G_CALLBACK(on_checked), self);
    esl_model_editor_set_model(ESL_MODEL_EDITOR(self->model_editor), esl_window_model(self));
    show_history(self);
    if (esl_window_json(self)) /* the counts of the model as opened */
        start_check(self, FALSE);
}

void esl_window_end_edits(EslWindow *self)
{
    if (self->document) {
        esl_model_document_cancel_check(self->document);
        g_clear_signal_handler(&self->checked_handler, self->document);
    }
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

/* The document's text changed (an edit, undo, redo): checked on a worker. */
static void text_changed(EslWindow *self)
{
    self->edits_discarded = FALSE;
    forget_history_shown(self);
    esl_window_update_titles(self);
    show_history(self);
    start_check(self, TRUE);
}

void esl_window_commit_edit(EslWindow *self, char *json, const char *label)
{
    esl_model_document_commit(self->document, json, label);
    text_changed(self);
}

static gboolean can_edit(EslWindow *self)
{
    if (self->controller) {
        esl_window_show_status(self, TRUE,
                               _("Stop the running simulation before editing the model."));
        return FALSE;
    }
    if (!esl_window_json(self)) {
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
    if (!can_edit(self))
        return;
    gboolean undo = g_str_equal(name, "win.undo");
    g_autofree char *label = g_strdup(undo ? esl_model_document_undo_label(self->document)
                                           : esl_model_document_redo_label(self->document));
    if (!(undo ? esl_model_document_undo(self->document) : esl_model_document_redo(self->document)))
        return;
    text_changed(self);
    esl_window_show_status(self, FALSE, undo ? _("Undone: %s.") : _("Redone: %s."), label);
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
        char *json = esl_model_build_edit(esl_window_json(self), edit_actions[i].kind, parameter,
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
    const MbsModel *m = esl_model_document_get_shown(self->document);
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
gboolean esl_window_commit_from_dialog(EslWindow *self, const char *base_json, const char *json,
                                   const char *label, GError **error)
{
    if (esl_window_is_running(self)) {
        g_set_error_literal(error, G_IO_ERROR, G_IO_ERROR_BUSY,
                            _("Stop the running simulation before editing the model."));
        return FALSE;
    }
    if (g_strcmp0(base_json, esl_window_json(self)) != 0) {
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
    return esl_window_commit_from_dialog(self, base_json, json, _("objectives"), error);
}

static void action_edit_objectives(GtkWidget *widget, const char *name, GVariant *parameter)
{
    (void)name;
    (void)parameter;
    EslWindow *self = ESL_WINDOW(widget);
    if (!esl_window_json(self)) {
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
    esl_objective_editor_set_model(ESL_OBJECTIVE_EDITOR(self->objective_editor),
                                   esl_window_json(self), esl_model_document_get_origin(self->document));
    gtk_window_present(GTK_WINDOW(self->objective_editor));
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
}
