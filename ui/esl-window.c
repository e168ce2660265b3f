/* The workbench window: composition of its parts and the model and project they show; see
 * esl-window.h. Runs are in esl-window-run.c, actions in esl-window-actions.c. */
#include "esl-window-private.h"

#include <glib/gi18n.h>
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>
#include <unistd.h>

#include "esl-color-scale.h"
#include "esl-model-edit.h"
#include "esl-model-editor.h"
#include "esl-model-file.h"
#include "esl-models-dir.h"
#include "esl-variables.h"
#include "mbs_formulation.h"

G_DEFINE_FINAL_TYPE(EslWindow, esl_window, GTK_TYPE_APPLICATION_WINDOW)

enum { SIGNAL_RUN_FINISHED, N_SIGNALS };
static guint signals[N_SIGNALS];

void esl_window_show_status(EslWindow *self, gboolean is_error, const char *format, ...)
{
    va_list ap;
    va_start(ap, format);
    g_autofree char *text = g_strdup_vprintf(format, ap);
    va_end(ap);
    gtk_label_set_text(GTK_LABEL(self->status_label), text);
    if (is_error)
        gtk_widget_add_css_class(self->status_label, "error");
    else
        gtk_widget_remove_css_class(self->status_label, "error");
    /* an error also in full under the header bar, until dismissed or a later message (the
     * status line is narrow and out of sight beside the run panel) */
    if (is_error)
        gtk_label_set_text(GTK_LABEL(self->error_label), text);
    gtk_revealer_set_reveal_child(GTK_REVEALER(self->error_revealer), is_error);
}

const char *esl_window_get_error_banner(EslWindow *self)
{
    return gtk_revealer_get_reveal_child(GTK_REVEALER(self->error_revealer))
               ? gtk_label_get_text(GTK_LABEL(self->error_label))
               : NULL;
}

static void action_dismiss_error(GtkWidget *widget, const char *name, GVariant *parameter)
{
    (void)name, (void)parameter;
    gtk_revealer_set_reveal_child(GTK_REVEALER(ESL_WINDOW(widget)->error_revealer), FALSE);
}

/* ---- titles ------------------------------------------------------------------------------- */

void esl_window_update_titles(EslWindow *self)
{
    g_autofree char *file = esl_window_model_display_name(self);
    g_autofree char *name = esl_model_document_is_modified(self->document)
                                ? g_strdup_printf(_("%s (modified)"), file)
                                : g_strdup(file);
    gtk_label_set_text(GTK_LABEL(self->title_label), name);
    g_autofree char *project_name =
        self->project_path ? g_path_get_basename(self->project_path) : NULL;
    g_autofree char *subtitle =
        self->project_is_temporary ? g_strdup(_("unsaved project"))
        : project_name             ? g_strdup(project_name)
                                   : g_strdup(_("no project"));
    gtk_label_set_text(GTK_LABEL(self->subtitle_label), subtitle);
    g_autofree char *where =
        self->project_is_temporary
            ? g_strdup_printf(_("Runs are kept in a temporary project (%s); use Project ▸ Save "
                                "Project As… to keep them."),
                              self->project_path)
        : self->project_path ? g_strdup_printf(_("Project: %s"), self->project_path)
                             : g_strdup(_("No project open."));
    gtk_label_set_text(GTK_LABEL(self->project_label), where);
    g_autofree char *title = esl_window_model(self) ? g_strdup_printf("%s — Eslabón", name)
                                         : g_strdup("Eslabón");
    gtk_window_set_title(GTK_WINDOW(self), title);
}

/* ---- the history shown: 3D view, trail, playback ------------------------------------------ */

int esl_window_history_index_at(EslWindow *self, double t)
{
    GPtrArray *h = self->history;
    if (!h || h->len == 0)
        return -1;
    guint lo = 0, hi = h->len - 1;
    while (hi - lo > 1) {
        guint mid = (lo + hi) / 2;
        if (((EslRunSample *)h->pdata[mid])->monitors.time < t)
            lo = mid;
        else
            hi = mid;
    }
    double tl = ((EslRunSample *)h->pdata[lo])->monitors.time;
    double th = ((EslRunSample *)h->pdata[hi])->monitors.time;
    return (int)(fabs(th - t) < fabs(tl - t) ? hi : lo);
}

/* Trail of the selected body's centre of mass over samples 0..upto of the history. */
void esl_window_update_trail(EslWindow *self, int upto)
{
    EslViewport *viewport = ESL_VIEWPORT(self->viewport);
    int b = self->selected_body;
    if (b < 0 || !esl_window_model(self) || b >= esl_window_model(self)->nbodies || esl_window_model(self)->bodies[b].is_ground ||
        !self->history || !self->history_matches_model || upto < 1 ||
        upto >= (int)self->history->len) {
        esl_viewport_set_trail(viewport, NULL, 0, -1);
        return;
    }
    const double *com = esl_window_model(self)->bodies[b].com;
    int stride = MAX(1, (upto + 1) / 400);
    g_autoptr(GArray) points = g_array_new(FALSE, FALSE, sizeof(float));
    for (int i = 0;; i += stride) {
        if (i > upto)
            i = upto;
        const EslRunSample *s = self->history->pdata[i];
        const double *R = s->poses + 12 * b, *p = R + 9;
        for (int k = 0; k < 3; k++) {
            float x = (float)(R[3 * k] * com[0] + R[3 * k + 1] * com[1] + R[3 * k + 2] * com[2] +
                              p[k]);
            g_array_append_val(points, x);
        }
        if (i == upto)
            break;
    }
    esl_viewport_set_trail(viewport, (const float *)points->data, (int)(points->len / 3), b);
}

static void show_time(EslWindow *self, double t)
{
    int i = esl_window_history_index_at(self, t);
    if (i < 0)
        return;
    const EslRunSample *s = self->history->pdata[i];
    if (self->history_matches_model)
        esl_window_show_state(self, s->poses, s->violations);
    esl_window_update_trail(self, i);
    esl_plot_board_set_cursor(ESL_PLOT_BOARD(self->plot_board), s->monitors.time);
    g_autofree char *text = g_strdup_printf(_("t = %.4f s"), s->monitors.time);
    esl_playback_bar_set_label(ESL_PLAYBACK_BAR(self->playback_bar), text);
}

static void on_playback_time_changed(EslPlaybackBar *bar, double t, EslWindow *self)
{
    (void)bar;
    show_time(self, t);
}

static void on_plot_cursor_moved(EslPlotBoard *board, double t, EslWindow *self)
{
    (void)board;
    esl_playback_bar_seek(ESL_PLAYBACK_BAR(self->playback_bar), t);
}

/* Frame the whole motion of the history (a few dozen of its states). */
void esl_window_fit_history(EslWindow *self)
{
    if (!self->history || !self->history_matches_model || self->history->len == 0)
        return;
    int n = MIN((int)self->history->len, 60);
    g_autofree const double **poses = g_new(const double *, n);
    for (int i = 0; i < n; i++) {
        guint k = (guint)((gint64)i * (self->history->len - 1) / MAX(n - 1, 1));
        poses[i] = ((EslRunSample *)self->history->pdata[k])->poses;
    }
    esl_viewport_fit_states(ESL_VIEWPORT(self->viewport), (const double *const *)poses, n);
}

void esl_window_set_history(EslWindow *self, GPtrArray *history, gboolean matches_model)
{
    EslPlaybackBar *bar = ESL_PLAYBACK_BAR(self->playback_bar);
    esl_playback_bar_set_playing(bar, FALSE);
    esl_viewport_set_trail(ESL_VIEWPORT(self->viewport), NULL, 0, -1);
    g_clear_pointer(&self->history, g_ptr_array_unref);
    self->history = history;
    self->history_matches_model = matches_model;
    double end = history && history->len
                     ? ((EslRunSample *)history->pdata[history->len - 1])->monitors.time
                     : 0.0;
    esl_playback_bar_set_range(bar, end, end);
    esl_playback_bar_set_seekable(bar, history && history->len > 1);
    esl_playback_bar_set_playable(bar, history && history->len > 1 && !self->controller);
    esl_window_update_run_actions(self);
    esl_window_set_compared(self, NULL); /* replots the variables for this history */
    esl_window_update_worst_over_run(self);
    if (!history)
        esl_window_clear_progress(self);
    if (history && history->len)
        show_time(self, end);
}

/* ---- model panel and inspector ------------------------------------------------------------ */

static void on_element_selected(EslModelPanel *panel, int source, int index, EslWindow *self)
{
    (void)panel;
    EslViewport *viewport = ESL_VIEWPORT(self->viewport);
    if (source < 0) {
        self->selected_body = -1;
        esl_viewport_set_trail(viewport, NULL, 0, -1);
        esl_viewport_set_highlight(viewport, -1, -1);
        return;
    }
    self->selected_body = source == ESL_SOURCE_BODY ? index : -1;
    if (self->history && self->history->len > 0)
        esl_window_update_trail(
            self, self->controller
                      ? (int)self->history->len - 1
                      : esl_window_history_index_at(
                            self, esl_playback_bar_get_time(ESL_PLAYBACK_BAR(self->playback_bar))));
    esl_viewport_set_highlight(viewport, source == ESL_MODEL_PANEL_PARAMETER ? -1 : source, index);
}

static void on_viewport_picked(EslViewport *viewport, int source, int index, EslWindow *self)
{
    (void)viewport;
    /* On the Build page a pick fills the form (its bodies or joint) and the page stays. */
    GtkNotebook *sidebar = GTK_NOTEBOOK(gtk_widget_get_ancestor(self->model_editor,
                                                                GTK_TYPE_NOTEBOOK));
    int page = gtk_notebook_get_current_page(sidebar);
    gboolean building = page == gtk_notebook_page_num(sidebar, self->model_editor);
    esl_model_panel_select(ESL_MODEL_PANEL(self->model_panel), source, index);
    if (building) {
        gtk_notebook_set_current_page(sidebar, page);
        if (source == ESL_SOURCE_BODY || source == ESL_SOURCE_JOINT)
            esl_model_editor_pick(ESL_MODEL_EDITOR(self->model_editor),
                                  source == ESL_SOURCE_BODY, index);
    }
}

void esl_window_read_settings(EslWindow *self, MbsSettings *settings)
{
    esl_run_settings_read(ESL_RUN_SETTINGS(self->run_settings), settings);
}

/* The model's text with the number at path set to value, or NULL with error (a run going on,
 * no model, no such number). */
static char *edited_json(EslWindow *self, const char *path, double value, GError **error)
{
    if (esl_window_is_running(self)) {
        g_set_error(error, G_IO_ERROR, G_IO_ERROR_BUSY,
                    _("Stop the running simulation before editing the model."));
        return NULL;
    }
    if (!esl_window_json(self)) {
        g_set_error(error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND, _("no model is open"));
        return NULL;
    }
    return esl_model_edit_set_number(esl_window_json(self), path, value, error);
}

/* The document validates an edit (app/esl-model-document.h); the assembly and the rank are
 * computed on a worker (esl-window-assemble.c). */
gboolean esl_window_edit_model(EslWindow *self, const char *path, double value, GError **error)
{
    g_autofree char *label = g_strdup_printf(_("set %s"), path);
    g_autofree char *json = edited_json(self, path, value, error);
    if (!json || !esl_model_document_validate(self->document, json, error))
        return FALSE;
    esl_window_commit_edit(self, g_steal_pointer(&json), label);
    return TRUE;
}

/* An inspector edit whose text is validated on a worker before it is committed. */
typedef struct {
    EslWindow *window;
    char *base_json; /* the model's text when the edit was entered: a later edit wins */
    char *json, *path, *label;
    double value;
} FieldEdit;

static void field_edit_free(FieldEdit *e)
{
    g_object_unref(e->window);
    g_free(e->base_json);
    g_free(e->json);
    g_free(e->path);
    g_free(e->label);
    g_free(e);
}
G_DEFINE_AUTOPTR_CLEANUP_FUNC(FieldEdit, field_edit_free)

static void field_edit_loaded(GObject *source, GAsyncResult *result, gpointer data)
{
    (void)source;
    g_autoptr(GError) error = NULL;
    gboolean accepted = esl_model_document_validate_finish(result, &error);
    g_autoptr(FieldEdit) e = data;
    EslWindow *self = e->window;
    if (gtk_widget_in_destruction(GTK_WIDGET(self)) || !self->model_panel || self->controller ||
        g_strcmp0(esl_window_json(self), e->base_json) != 0)
        return; /* closed, a run started or another edit came first: this one is dropped */
    if (!accepted) {
        esl_model_panel_show_field_error(ESL_MODEL_PANEL(self->model_panel), e->path,
                                         error->message);
        return;
    }
    g_autofree char *what = g_strdup_printf(_("set %s"), e->label);
    esl_window_commit_edit(self, g_steal_pointer(&e->json), what);
    const MbsFormulationClass *klass =
        esl_run_settings_get_formulation(ESL_RUN_SETTINGS(self->run_settings));
    esl_window_show_status(self, FALSE, _("%s set to %g; the model is re-assembled (%s)."),
                           e->label, e->value, klass ? klass->name : "penalty");
}

/* A number entered in the inspector: refused at once when it cannot be written, else validated
 * on a worker (field_edit_loaded commits it or shows the loader's message under the field). */
static gboolean on_edit_field(EslModelPanel *panel, const char *path, const char *label,
                              double value, GError **error, EslWindow *self)
{
    (void)panel;
    char *json = edited_json(self, path, value, error);
    if (!json)
        return FALSE;
    FieldEdit *e = g_new0(FieldEdit, 1);
    e->window = g_object_ref(self);
    e->base_json = g_strdup(esl_window_json(self));
    e->json = json;
    e->path = g_strdup(path);
    e->label = g_strdup(label);
    e->value = value;
    esl_model_document_validate_async(self->document, json, field_edit_loaded, e);
    return TRUE;
}

/* ---- model -------------------------------------------------------------------------------- */

gboolean esl_window_load_model(EslWindow *self, const char *path_or_name, GError **error)
{
    if (esl_window_is_running(self)) {
        g_set_error(error, G_IO_ERROR, G_IO_ERROR_BUSY,
                    _("Stop the running simulation before opening another model."));
        return FALSE;
    }
    MbsModel *model;
    char *json, *path;
    if (!esl_model_document_read_file(path_or_name, &model, &json, &path, error))
        return FALSE;
    esl_window_install_model(self, model, json, path);
    return TRUE;
}

/* Make model (built from json, read from path) the window's model; takes the three. */
void esl_window_install_model(EslWindow *self, MbsModel *model, char *json, char *path)
{
    esl_viewport_set_model(ESL_VIEWPORT(self->viewport), NULL);
    esl_window_set_history(self, NULL, FALSE);
    esl_model_document_open(self->document, model, json, path);
    self->edits_discarded = FALSE;
    esl_run_settings_set_model(ESL_RUN_SETTINGS(self->run_settings), model);
    esl_viewport_set_model(ESL_VIEWPORT(self->viewport), model);
    esl_color_scale_set_value(ESL_COLOR_SCALE(self->color_scale), NAN);
    esl_color_scale_set_worst(ESL_COLOR_SCALE(self->color_scale), NULL);
    self->selected_body = -1;
    esl_model_panel_set_model(ESL_MODEL_PANEL(self->model_panel), model, json);
    esl_plot_board_prepare_single(ESL_PLOT_BOARD(self->plot_board));
    esl_window_variables_model_changed(self);
    gtk_label_set_text(GTK_LABEL(self->viewport_note), "");
    /* Each count with its own plural form ("1 fuerza", not "1 fuerzas"). */
    int ncoords = mbs_model_ncoords(model), nconstraints = mbs_model_nconstraints(model);
    g_autofree char *bodies =
        g_strdup_printf(ngettext("%d body", "%d bodies", model->nbodies), model->nbodies);
    g_autofree char *joints =
        g_strdup_printf(ngettext("%d joint", "%d joints", model->njoints), model->njoints);
    g_autofree char *forces =
        g_strdup_printf(ngettext("%d force", "%d forces", model->nforces), model->nforces);
    g_autofree char *coords =
        g_strdup_printf(ngettext("%d coordinate", "%d coordinates", ncoords), ncoords);
    g_autofree char *constraints = g_strdup_printf(
        ngettext("%d constraint", "%d constraints", nconstraints), nconstraints);
    /* TRANSLATORS: model name, then the counts above */
    esl_window_show_status(self, FALSE, _("%s: %s, %s, %s, %s, %s."), model->name, bodies, joints,
                           forces, coords, constraints);
    gtk_stack_set_visible_child_name(GTK_STACK(self->stack), "workbench");
    esl_window_begin_edits(self);
    esl_window_update_titles(self);
    esl_window_update_run_actions(self);
}

static void load_chosen_model(EslWindow *self, const char *path)
{
    g_autoptr(GError) error = NULL;
    if (!esl_window_load_model(self, path, &error)) {
        /* The status line is on the workbench: go back there to show why (a run going on). */
        esl_window_leave_gallery(self);
        esl_window_show_status(self, TRUE, "%s", error->message);
    }
}

static void on_model_chosen(EslStartPage *page, const char *path, EslWindow *self)
{
    (void)page;
    esl_window_ask_unsaved(self, load_chosen_model, path);
}

/* The Back button is there when the gallery is shown over an open model. */
static void on_stack_page_changed(GtkStack *stack, GParamSpec *pspec, EslWindow *self)
{
    (void)pspec;
    if (!self->back_button)
        return;
    gtk_widget_set_visible(self->back_button,
                           esl_window_model(self) && g_strcmp0(gtk_stack_get_visible_child_name(stack),
                                                    "start") == 0);
}

/* ---- object -------------------------------------------------------------------------------- */

static void esl_window_dispose(GObject *object)
{
    EslWindow *self = ESL_WINDOW(object);
    esl_window_end_edits(self);
    if (self->sensitivity) {
        g_signal_handlers_disconnect_by_data(self->sensitivity, self);
        esl_sensitivity_controller_join(self->sensitivity);
        g_clear_object(&self->sensitivity);
    }
    if (self->variable_browser) /* it listens to the plot board, which goes with the template */
        gtk_window_destroy(GTK_WINDOW(self->variable_browser));
    if (self->objective_editor)
        gtk_window_destroy(GTK_WINDOW(self->objective_editor));
    if (self->optimize_dialog) /* stops and waits for its optimisation */
        gtk_window_destroy(GTK_WINDOW(self->optimize_dialog));
    if (self->controller) {
        g_signal_handlers_disconnect_by_data(self->controller, self);
        esl_run_controller_join(self->controller);
        g_clear_object(&self->controller);
    }
    g_clear_handle_id(&self->progress_timer, g_source_remove);
    g_clear_pointer(&self->frame_meter, esl_frame_meter_free);
    g_signal_handlers_disconnect_by_data(gtk_recent_manager_get_default(), self);
    if (self->viewport)
        esl_viewport_set_model(ESL_VIEWPORT(self->viewport), NULL);
    if (self->model_panel)
        esl_model_panel_set_model(ESL_MODEL_PANEL(self->model_panel), NULL, NULL);
    /* The stack is the window's child and a bound template child: dispose_template would
     * unparent it behind GtkWindow's back (which unparents it again: a critical). */
    gtk_window_set_child(GTK_WINDOW(self), NULL);
    gtk_widget_dispose_template(GTK_WIDGET(self), ESL_TYPE_WINDOW);
    G_OBJECT_CLASS(esl_window_parent_class)->dispose(object);
}

static void esl_window_finalize(GObject *object)
{
    EslWindow *self = ESL_WINDOW(object);
    esl_window_close_project(self);
    g_hash_table_unref(self->model_ids);
    if (self->history)
        g_ptr_array_unref(self->history);
    if (self->compared)
        g_ptr_array_unref(self->compared);
    g_clear_object(&self->document);
    G_OBJECT_CLASS(esl_window_parent_class)->finalize(object);
}

static void destroy_now(EslWindow *self, const char *path)
{
    (void)path;
    gtk_window_destroy(GTK_WINDOW(self));
}

static gboolean esl_window_close_request(GtkWindow *window)
{
    EslWindow *self = ESL_WINDOW(window);
    if (esl_window_ask_close(self))
        return TRUE;
    if (esl_model_document_is_modified(self->document) && !self->edits_discarded) {
        esl_window_ask_unsaved(self, destroy_now, NULL);
        return TRUE;
    }
    GtkWindowClass *parent = GTK_WINDOW_CLASS(esl_window_parent_class);
    return parent->close_request ? parent->close_request(window) : FALSE;
}

static void esl_window_class_init(EslWindowClass *klass)
{
    GObjectClass *object_class = G_OBJECT_CLASS(klass);
    GTK_WINDOW_CLASS(klass)->close_request = esl_window_close_request;
    GtkWidgetClass *widget_class = GTK_WIDGET_CLASS(klass);
    object_class->dispose = esl_window_dispose;
    object_class->finalize = esl_window_finalize;
    g_type_ensure(ESL_TYPE_START_PAGE);
    g_type_ensure(ESL_TYPE_MODEL_PANEL);
    g_type_ensure(ESL_TYPE_RUN_BROWSER);
    g_type_ensure(ESL_TYPE_VIEWPORT);
    g_type_ensure(ESL_TYPE_COLOR_SCALE);
    g_type_ensure(ESL_TYPE_PLAYBACK_BAR);
    g_type_ensure(ESL_TYPE_PLOT_BOARD);
    g_type_ensure(ESL_TYPE_RUN_SETTINGS);
    g_type_ensure(ESL_TYPE_MODEL_EDITOR);
    gtk_widget_class_set_template_from_resource(widget_class,
                                                "/org/eslabon/Eslabon/ui/esl-window.ui");
#define CHILD(name) gtk_widget_class_bind_template_child(widget_class, EslWindow, name)
    CHILD(stack);
    CHILD(start_page);
    CHILD(model_panel);
    CHILD(run_browser);
    CHILD(viewport);
    CHILD(playback_bar);
    CHILD(sidebar);
    CHILD(run_column);
    CHILD(view_paned);
    CHILD(plot_board);
    CHILD(run_settings);
    CHILD(color_scale);
    CHILD(recent_menu);
    CHILD(viewport_note);
    CHILD(progress_bar);
    CHILD(progress_label);
    CHILD(status_label);
    CHILD(project_label);
    CHILD(title_label);
    CHILD(subtitle_label);
    CHILD(pause_button);
    CHILD(back_button);
    CHILD(model_editor);
    CHILD(error_revealer);
    CHILD(error_label);
#undef CHILD
    gtk_widget_class_bind_template_callback(widget_class, on_model_chosen);
    gtk_widget_class_bind_template_callback(widget_class, on_stack_page_changed);
    gtk_widget_class_bind_template_callback(widget_class, on_element_selected);
    gtk_widget_class_bind_template_callback(widget_class, on_edit_field);
    gtk_widget_class_bind_template_callback(widget_class, on_viewport_picked);
    gtk_widget_class_bind_template_callback(widget_class, on_playback_time_changed);
    gtk_widget_class_bind_template_callback(widget_class, on_plot_cursor_moved);
    esl_window_class_bind_project_callbacks(widget_class);
    esl_window_class_install_actions(widget_class);
    esl_window_class_install_save_actions(widget_class);
    esl_window_class_install_assemble_actions(widget_class);
    esl_window_class_install_optimize_actions(widget_class);
    esl_window_class_install_variable_actions(widget_class);
    esl_window_class_install_video_actions(widget_class);
    gtk_widget_class_install_action(widget_class, "win.dismiss-error", NULL,
                                    action_dismiss_error);
    signals[SIGNAL_RUN_FINISHED] =
        g_signal_new("run-finished", G_TYPE_FROM_CLASS(klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL,
                     NULL, G_TYPE_NONE, 2, G_TYPE_INT, G_TYPE_INT64);
}

static void esl_window_init(EslWindow *self)
{
    self->document = esl_model_document_new();
    gtk_widget_init_template(GTK_WIDGET(self));
    self->model_ids = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    self->selected_body = -1;
    esl_window_init_actions(self);
    g_signal_connect_swapped(self->plot_board, "plots-changed",
                             G_CALLBACK(esl_window_update_plot_actions), self);
    esl_window_init_violations(self);
    esl_playback_bar_set_label(ESL_PLAYBACK_BAR(self->playback_bar), _("t = 0 s"));
    esl_window_update_titles(self);
    esl_window_update_run_actions(self);
}

EslWindow *esl_window_new(GtkApplication *app)
{
    return g_object_new(ESL_TYPE_WINDOW, "application", app, NULL);
}

gboolean esl_window_set_formulation(EslWindow *self, const char *name)
{
    return esl_run_settings_set_formulation(ESL_RUN_SETTINGS(self->run_settings), name);
}
