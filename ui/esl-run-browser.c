/* The run browser; see esl-run-browser.h. */
#include "esl-run-browser.h"
#include "esl-number.h"
#include "esl-template.h"

#include <glib/gi18n.h>
#include <math.h>

struct _EslRunBrowser {
    GtkWidget parent_instance;
    GtkWidget *runs_list, *rename_button, *rename_popover, *rename_entry, *delete_button;
    GtkWidget *size_label; /* template */
    gboolean rebuilding; /* no "selection-changed" while TRUE */
    int anchor;          /* row a Shift+click extends from, or -1 */
};

G_DEFINE_FINAL_TYPE(EslRunBrowser, esl_run_browser, GTK_TYPE_WIDGET)

enum { SIGNAL_SELECTION_CHANGED, SIGNAL_RENAME_RUN, SIGNAL_DELETE_RUNS, N_SIGNALS };
static guint signals[N_SIGNALS];

const char *esl_run_status_label(EslRunStatus status)
{
    switch (status) {
    case ESL_RUN_RUNNING: return _("running");
    case ESL_RUN_FINISHED: return _("finished");
    case ESL_RUN_STOPPED: return _("stopped");
    case ESL_RUN_FAILED: return _("failed");
    case ESL_RUN_INTERRUPTED: return _("interrupted");
    }
    return esl_run_status_name(status);
}

/* An optimisation's summary, as a plain run's sample count: the objective, the evaluations
 * stored and the lowest ψ among them. */
static char *optimization_summary(const EslRunInfo *r)
{
    int n = (int)MIN(r->optimization_evaluations, G_MAXINT);
    g_autofree char *evaluations =
        g_strdup_printf(ngettext("%d evaluation", "%d evaluations", n), n);
    if (isnan(r->optimization_psi))
        /* TRANSLATORS: the objective, then "0 evaluations" */
        return g_strdup_printf(_("optimisation of %s · %s"), r->optimization_objective,
                               evaluations);
    g_autofree char *psi = esl_number_to_text(r->optimization_psi, 2, NULL);
    /* TRANSLATORS: the objective, "7 evaluations", then the lowest ψ evaluated */
    return g_strdup_printf(_("optimisation of %s · %s, ψ %s"), r->optimization_objective,
                           evaluations, psi);
}

static GtkWidget *run_row(const EslRunInfo *r)
{
    g_autofree char *started = g_strndup(r->started_at ? r->started_at : "", 16);
    g_strdelimit(started, "T", ' ');
    g_autofree char *id = g_strdup_printf("#%" G_GINT64_FORMAT, r->id);
    g_autofree char *nsamples = g_strdup_printf("%" G_GINT64_FORMAT, r->nsamples);
    g_autofree char *count =
        r->sensitivity_method       ? g_strdup_printf(_("sensitivities (%s)"), r->sensitivity_method)
        : r->optimization_objective ? optimization_summary(r)
                                    : g_strdup_printf(_("%s samples"), nsamples);
    /* A named run shows its name where the model's would be, and the model after it. */
    g_autofree char *title = r->name ? g_strdup_printf("%s · %s", r->name, r->model_name)
                                     : g_strdup(r->model_name);
    g_autofree char *markup = g_markup_printf_escaped(
        _("<b>%s %s</b> · %s\nh = %g s, %g s · %s\n<span alpha=\"60%%\">%s UTC · "
          "%s</span>"),
        id, title, r->formulation, r->settings.step, r->settings.duration,
        esl_run_status_label(r->status), started, count);
    GtkWidget *label = gtk_label_new(NULL);
    gtk_label_set_markup(GTK_LABEL(label), markup);
    gtk_label_set_xalign(GTK_LABEL(label), 0);
    /* a long line (an optimisation's summary, a long name) wraps instead of widening the
     * side panel */
    gtk_label_set_wrap(GTK_LABEL(label), TRUE);
    gtk_label_set_wrap_mode(GTK_LABEL(label), PANGO_WRAP_WORD_CHAR);
    gtk_widget_set_margin_top(label, 3);
    gtk_widget_set_margin_bottom(label, 3);
    if (r->message)
        gtk_widget_set_tooltip_text(label, r->message);
    GtkWidget *row = gtk_list_box_row_new();
    gtk_list_box_row_set_child(GTK_LIST_BOX_ROW(row), label);
    g_object_set_data(G_OBJECT(row), "run-id", GINT_TO_POINTER((int)r->id));
    g_object_set_data_full(G_OBJECT(row), "run-name", g_strdup(r->name), g_free);
    return row;
}

gboolean esl_run_browser_fill(EslRunBrowser *self, EslProject *project, GError **error)
{
    self->rebuilding = TRUE;
    GtkWidget *child;
    while ((child = gtk_widget_get_first_child(self->runs_list)))
        gtk_list_box_remove(GTK_LIST_BOX(self->runs_list), child);
    self->anchor = -1;
    g_autoptr(GPtrArray) runs = project ? esl_project_list_runs(project, error) : NULL;
    for (guint i = 0; runs && i < runs->len; i++) /* newest first */
        gtk_list_box_append(GTK_LIST_BOX(self->runs_list),
                            run_row(runs->pdata[runs->len - 1 - i]));
    self->rebuilding = FALSE;
    return !project || runs;
}

void esl_run_browser_unselect_all(EslRunBrowser *self)
{
    gtk_list_box_unselect_all(GTK_LIST_BOX(self->runs_list));
}

GArray *esl_run_browser_get_selected(EslRunBrowser *self)
{
    GArray *ids = g_array_new(FALSE, FALSE, sizeof(gint64));
    GList *rows = gtk_list_box_get_selected_rows(GTK_LIST_BOX(self->runs_list));
    for (GList *l = rows; l; l = l->next) {
        gint64 id = GPOINTER_TO_INT(g_object_get_data(G_OBJECT(l->data), "run-id"));
        g_array_append_val(ids, id);
    }
    g_list_free(rows);
    return ids;
}

gboolean esl_run_browser_select_run(EslRunBrowser *self, gint64 run_id)
{
    GtkListBoxRow *row;
    for (int i = 0; (row = gtk_list_box_get_row_at_index(GTK_LIST_BOX(self->runs_list), i)); i++)
        if (GPOINTER_TO_INT(g_object_get_data(G_OBJECT(row), "run-id")) == run_id) {
            esl_run_browser_click_row(self, i, 0);
            return TRUE;
        }
    return FALSE;
}

void esl_run_browser_click_row(EslRunBrowser *self, int index, GdkModifierType state)
{
    GtkListBox *list = GTK_LIST_BOX(self->runs_list);
    GtkListBoxRow *row = gtk_list_box_get_row_at_index(list, index);
    if (!row)
        return;
    /* One "selection-changed" for the whole click, not one per row touched. */
    gboolean was_rebuilding = self->rebuilding;
    self->rebuilding = TRUE;
    if ((state & GDK_SHIFT_MASK) && self->anchor >= 0) {
        if (!(state & GDK_CONTROL_MASK))
            gtk_list_box_unselect_all(list);
        for (int i = MIN(self->anchor, index); i <= MAX(self->anchor, index); i++)
            gtk_list_box_select_row(list, gtk_list_box_get_row_at_index(list, i));
    } else if (state & GDK_CONTROL_MASK) {
        if (gtk_list_box_row_is_selected(row))
            gtk_list_box_unselect_row(list, row);
        else
            gtk_list_box_select_row(list, row);
        self->anchor = index;
    } else {
        gtk_list_box_unselect_all(list);
        gtk_list_box_select_row(list, row);
        self->anchor = index;
    }
    self->rebuilding = was_rebuilding;
    if (!self->rebuilding)
        g_signal_emit(self, signals[SIGNAL_SELECTION_CHANGED], 0);
}

/* GtkListBox in multiple mode adds a plainly clicked row to the selection; the browser claims
 * the press (capture phase) and selects as file managers do. */
static void on_list_pressed(GtkGestureClick *gesture, int n_press, double x, double y,
                            EslRunBrowser *self)
{
    (void)x;
    GtkListBoxRow *row = gtk_list_box_get_row_at_y(GTK_LIST_BOX(self->runs_list), (int)y);
    if (!row || n_press != 1)
        return;
    gtk_gesture_set_state(GTK_GESTURE(gesture), GTK_EVENT_SEQUENCE_CLAIMED);
    gtk_widget_grab_focus(GTK_WIDGET(row));
    esl_run_browser_click_row(
        self, gtk_list_box_row_get_index(row),
        gtk_event_controller_get_current_event_state(GTK_EVENT_CONTROLLER(gesture)));
}

static void action_unselect_all(GtkWidget *widget, const char *name, GVariant *parameter)
{
    (void)name;
    (void)parameter;
    EslRunBrowser *self = ESL_RUN_BROWSER(widget);
    g_autoptr(GArray) selected = esl_run_browser_get_selected(self);
    if (selected->len == 0)
        return;
    gtk_list_box_unselect_all(GTK_LIST_BOX(self->runs_list));
    self->anchor = -1;
}

static void on_rename_popover_shown(GtkPopover *popover, EslRunBrowser *self)
{
    (void)popover;
    g_autoptr(GArray) ids = esl_run_browser_get_selected(self);
    GtkListBoxRow *row = gtk_list_box_get_selected_row(GTK_LIST_BOX(self->runs_list));
    const char *name = row && ids->len == 1 ? g_object_get_data(G_OBJECT(row), "run-name") : NULL;
    gtk_editable_set_text(GTK_EDITABLE(self->rename_entry), name ? name : "");
    gtk_widget_grab_focus(self->rename_entry);
}

static void on_rename_entry_activate(GtkEntry *entry, EslRunBrowser *self)
{
    g_autoptr(GArray) ids = esl_run_browser_get_selected(self);
    gtk_popover_popdown(GTK_POPOVER(self->rename_popover));
    if (ids->len == 1)
        g_signal_emit(self, signals[SIGNAL_RENAME_RUN], 0, g_array_index(ids, gint64, 0),
                      gtk_editable_get_text(GTK_EDITABLE(entry)));
}

static void action_delete(GtkWidget *widget, const char *name, GVariant *parameter)
{
    (void)name;
    (void)parameter;
    EslRunBrowser *self = ESL_RUN_BROWSER(widget);
    g_autoptr(GArray) ids = esl_run_browser_get_selected(self);
    if (ids->len > 0)
        g_signal_emit(self, signals[SIGNAL_DELETE_RUNS], 0, ids);
}

static void on_delete_clicked(GtkButton *button, EslRunBrowser *self)
{
    (void)button;
    action_delete(GTK_WIDGET(self), NULL, NULL);
}

void esl_run_browser_set_size(EslRunBrowser *self, gint64 bytes)
{
    g_autofree char *size = bytes > 0 ? g_format_size((guint64)bytes) : NULL;
    g_autofree char *text = size ? g_strdup_printf(_("Project: %s"), size) : NULL;
    gtk_label_set_text(GTK_LABEL(self->size_label), text ? text : "");
}

const char *esl_run_browser_get_size_text(EslRunBrowser *self)
{
    return gtk_label_get_text(GTK_LABEL(self->size_label));
}

static void on_selected_rows_changed(GtkListBox *list, EslRunBrowser *self)
{
    (void)list;
    if (!self->runs_list) /* the list unselects its rows as it goes, during dispose */
        return;
    g_autoptr(GArray) ids = esl_run_browser_get_selected(self);
    gtk_widget_set_sensitive(self->rename_button, ids->len == 1);
    gtk_widget_set_sensitive(self->delete_button, ids->len > 0);
    if (!self->rebuilding)
        g_signal_emit(self, signals[SIGNAL_SELECTION_CHANGED], 0);
}

static void esl_run_browser_dispose(GObject *object)
{
    ESL_RUN_BROWSER(object)->rebuilding = TRUE; /* nobody hears of a selection it loses here */
    gtk_widget_dispose_template(GTK_WIDGET(object), ESL_TYPE_RUN_BROWSER);
    esl_template_unparent_children(GTK_WIDGET(object));
    G_OBJECT_CLASS(esl_run_browser_parent_class)->dispose(object);
}

static void esl_run_browser_class_init(EslRunBrowserClass *klass)
{
    GtkWidgetClass *widget_class = GTK_WIDGET_CLASS(klass);
    G_OBJECT_CLASS(klass)->dispose = esl_run_browser_dispose;
    gtk_widget_class_set_layout_manager_type(widget_class, GTK_TYPE_BIN_LAYOUT);
    gtk_widget_class_set_css_name(widget_class, "eslrunbrowser");
    gtk_widget_class_set_template_from_resource(widget_class,
                                                "/org/eslabon/Eslabon/ui/esl-run-browser.ui");
    gtk_widget_class_bind_template_child(widget_class, EslRunBrowser, runs_list);
    gtk_widget_class_bind_template_child(widget_class, EslRunBrowser, rename_button);
    gtk_widget_class_bind_template_child(widget_class, EslRunBrowser, rename_popover);
    gtk_widget_class_bind_template_child(widget_class, EslRunBrowser, rename_entry);
    gtk_widget_class_bind_template_child(widget_class, EslRunBrowser, delete_button);
    gtk_widget_class_bind_template_child(widget_class, EslRunBrowser, size_label);
    gtk_widget_class_bind_template_callback(widget_class, on_rename_popover_shown);
    gtk_widget_class_bind_template_callback(widget_class, on_rename_entry_activate);
    gtk_widget_class_bind_template_callback(widget_class, on_delete_clicked);
    gtk_widget_class_install_action(widget_class, "runs.delete", NULL, action_delete);
    gtk_widget_class_add_binding_action(widget_class, GDK_KEY_Delete, 0, "runs.delete", NULL);
    gtk_widget_class_bind_template_callback(widget_class, on_selected_rows_changed);
    gtk_widget_class_install_action(widget_class, "runs.unselect-all", NULL, action_unselect_all);
    gtk_widget_class_add_binding_action(widget_class, GDK_KEY_Escape, 0, "runs.unselect-all",
                                        NULL);
    signals[SIGNAL_SELECTION_CHANGED] =
        g_signal_new("selection-changed", G_TYPE_FROM_CLASS(klass), G_SIGNAL_RUN_LAST, 0, NULL,
                     NULL, NULL, G_TYPE_NONE, 0);
    signals[SIGNAL_RENAME_RUN] =
        g_signal_new("rename-run", G_TYPE_FROM_CLASS(klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL,
                     NULL, G_TYPE_NONE, 2, G_TYPE_INT64, G_TYPE_STRING);
    signals[SIGNAL_DELETE_RUNS] =
        g_signal_new("delete-runs", G_TYPE_FROM_CLASS(klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL,
                     NULL, G_TYPE_NONE, 1, G_TYPE_ARRAY);
}

static void esl_run_browser_init(EslRunBrowser *self)
{
    gtk_widget_init_template(GTK_WIDGET(self));
    self->anchor = -1;
    GtkGesture *click = gtk_gesture_click_new();
    gtk_event_controller_set_propagation_phase(GTK_EVENT_CONTROLLER(click), GTK_PHASE_CAPTURE);
    g_signal_connect(click, "pressed", G_CALLBACK(on_list_pressed), self);
    gtk_widget_add_controller(self->runs_list, GTK_EVENT_CONTROLLER(click));
}
