/* The plan dialog of a study; see esl-study-plan-dialog.h. */
#include "esl-study-plan-dialog.h"

#include <glib/gi18n.h>
#include <math.h>

#include "esl-model-file.h"

typedef struct {
    char *name;
    GtkWidget *check, *entry;
} ParameterRow;

struct _EslStudyPlanDialog {
    GtkWindow parent_instance;
    GtkWidget *parameter_grid, *design_choice, *samples, *seed, *objectives, *jobs;
    GtkWidget *run_settings, *status_label;
    GtkStringList *design_names;
    GArray *rows; /* ParameterRow */
    char *model_path;
    MbsModel *model; /* the dialog's own, for the run settings' checks */
};

G_DEFINE_FINAL_TYPE(EslStudyPlanDialog, esl_study_plan_dialog, GTK_TYPE_WINDOW)

enum { SIGNAL_PLANNED, N_SIGNALS };
static guint signals[N_SIGNALS];

static void row_clear(gpointer data)
{
    g_free(((ParameterRow *)data)->name);
}

static void show_status(EslStudyPlanDialog *self, const char *text)
{
    gtk_label_set_text(GTK_LABEL(self->status_label), text ? text : "");
}

void esl_study_plan_dialog_set_message(EslStudyPlanDialog *self, const char *text)
{
    show_status(self, text);
}

/* The samples and seed are the sampled designs' (the full one takes each parameter's levels). */
static void on_design_chosen(EslStudyPlanDialog *self)
{
    gboolean sampled =
        gtk_drop_down_get_selected(GTK_DROP_DOWN(self->design_choice)) != ESL_STUDY_DESIGN_FULL;
    gtk_widget_set_sensitive(self->samples, sampled);
    gtk_widget_set_sensitive(self->seed, sampled);
}

gboolean esl_study_plan_dialog_set_model(EslStudyPlanDialog *self, const char *model_path,
                                         const char *formulation, const MbsSettings *settings,
                                         GError **error)
{
    GError *local = NULL;
    MbsModel *m = model_path ? esl_model_load_file(model_path, NULL, 0, &local) : NULL;
    if (!m) {
        if (!local)
            g_set_error(&local, ESL_STUDY_ERROR, ESL_STUDY_ERROR_INVALID,
                        _("Save the model to a file first: a study runs the model file"));
        show_status(self, local->message);
        g_propagate_error(error, local);
        return FALSE;
    }
    EslRunSettings *panel = ESL_RUN_SETTINGS(self->run_settings);
    esl_run_settings_set_model(panel, m);
    mbs_model_free(self->model);
    self->model = m;
    g_free(self->model_path);
    self->model_path = g_strdup(model_path);
    esl_run_settings_show(panel, formulation, settings);
    GtkWidget *child;
    while ((child = gtk_widget_get_first_child(self->parameter_grid)))
        gtk_grid_remove(GTK_GRID(self->parameter_grid), child);
    g_array_set_size(self->rows, 0);
    int r = 0;
    for (int p = 0; p < m->nparameters; p++) {
        if (!mbs_model_parameter_is_free(m, p))
            continue;
        double v = m->parameters[p].value;
        ParameterRow row = {g_strdup(m->parameters[p].name), NULL, NULL};
        row.check = gtk_check_button_new_with_label(row.name);
        g_autofree char *value = g_strdup_printf("%g", v);
        GtkWidget *value_label = gtk_label_new(value);
        gtk_label_set_xalign(GTK_LABEL(value_label), 1.0f);
        gtk_widget_add_css_class(value_label, "numeric");
        g_autofree char *range = v != 0 ? g_strdup_printf("%g:%g:3", fmin(0.8 * v, 1.2 * v),
                                                          fmax(0.8 * v, 1.2 * v))
                                        : g_strdup("-1:1:3");
        row.entry = gtk_entry_new();
        gtk_editable_set_text(GTK_EDITABLE(row.entry), range);
        gtk_editable_set_width_chars(GTK_EDITABLE(row.entry), 18);
        gtk_widget_set_tooltip_text(row.entry, _("LOWER:UPPER:LEVELS (the full design) or "
                                                 "LOWER:UPPER (Latin hypercube, random)"));
        gtk_grid_attach(GTK_GRID(self->parameter_grid), row.check, 0, r, 1, 1);
        gtk_grid_attach(GTK_GRID(self->parameter_grid), value_label, 1, r, 1, 1);
        gtk_grid_attach(GTK_GRID(self->parameter_grid), row.entry, 2, r, 1, 1);
        g_array_append_val(self->rows, row);
        r++;
    }
    if (r == 0)
        gtk_grid_attach(GTK_GRID(self->parameter_grid),
                        gtk_label_new(_("This model has no free parameter to vary.")), 0, 0, 3, 1);
    show_status(self, NULL);
    return TRUE;
}

gboolean esl_study_plan_dialog_set_range(EslStudyPlanDialog *self, const char *name,
                                         const char *range)
{
    for (guint i = 0; i < self->rows->len; i++) {
        ParameterRow *row = &g_array_index(self->rows, ParameterRow, i);
        if (g_strcmp0(row->name, name) != 0)
            continue;
        gtk_check_button_set_active(GTK_CHECK_BUTTON(row->check), range != NULL);
        if (range)
            gtk_editable_set_text(GTK_EDITABLE(row->entry), range);
        return TRUE;
    }
    return FALSE;
}

void esl_study_plan_dialog_set_design(EslStudyPlanDialog *self, EslStudyDesign design,
                                      int samples, guint32 seed)
{
    gtk_drop_down_set_selected(GTK_DROP_DOWN(self->design_choice), (guint)design);
    gtk_spin_button_set_value(GTK_SPIN_BUTTON(self->samples), samples);
    gtk_spin_button_set_value(GTK_SPIN_BUTTON(self->seed), seed);
}

void esl_study_plan_dialog_set_objectives(EslStudyPlanDialog *self, const char *objectives)
{
    gtk_editable_set_text(GTK_EDITABLE(self->objectives), objectives ? objectives : "");
}

void esl_study_plan_dialog_set_jobs(EslStudyPlanDialog *self, int jobs)
{
    gtk_spin_button_set_value(GTK_SPIN_BUTTON(self->jobs), jobs);
}

int esl_study_plan_dialog_get_jobs(EslStudyPlanDialog *self)
{
    return gtk_spin_button_get_value_as_int(GTK_SPIN_BUTTON(self->jobs));
}

EslRunSettings *esl_study_plan_dialog_get_run_settings(EslStudyPlanDialog *self)
{
    return ESL_RUN_SETTINGS(self->run_settings);
}

GListModel *esl_study_plan_dialog_get_design_names(EslStudyPlanDialog *self)
{
    return G_LIST_MODEL(self->design_names);
}

EslStudy *esl_study_plan_dialog_plan(EslStudyPlanDialog *self, GError **error)
{
    GError *local = NULL;
    EslStudy *study = NULL;
    EslRunSettings *panel = ESL_RUN_SETTINGS(self->run_settings);
    const MbsFormulationClass *k = esl_run_settings_get_formulation(panel);
    if (!self->model_path || !k) {
        g_set_error(&local, ESL_STUDY_ERROR, ESL_STUDY_ERROR_INVALID,
                    _("No model to plan a study of"));
    } else if (esl_run_settings_check(panel, &local)) {
        /* the words of `eslabon-cli study plan --parameter NAME=RANGE ...` */
        g_autoptr(GPtrArray) specs = g_ptr_array_new_with_free_func(g_free);
        for (guint i = 0; i < self->rows->len; i++) {
            ParameterRow *row = &g_array_index(self->rows, ParameterRow, i);
            if (gtk_check_button_get_active(GTK_CHECK_BUTTON(row->check)))
                g_ptr_array_add(specs, g_strdup_printf("%s=%s", row->name,
                                                       gtk_editable_get_text(
                                                           GTK_EDITABLE(row->entry))));
        }
        g_ptr_array_add(specs, NULL);
        guint design = gtk_drop_down_get_selected(GTK_DROP_DOWN(self->design_choice));
        MbsSettings settings;
        esl_run_settings_read(panel, &settings);
        study = esl_study_plan_from_words(
            self->model_path, esl_study_design_name((EslStudyDesign)design),
            gtk_spin_button_get_value_as_int(GTK_SPIN_BUTTON(self->samples)),
            (gint64)gtk_spin_button_get_value(GTK_SPIN_BUTTON(self->seed)),
            (const char *const *)specs->pdata, k->name, &settings,
            gtk_editable_get_text(GTK_EDITABLE(self->objectives)), &local);
    }
    if (!study) {
        show_status(self, local->message);
        g_propagate_error(error, local);
        return NULL;
    }
    g_autofree char *text = g_strdup_printf(_("%d cases"), study->ncases);
    show_status(self, text);
    return study;
}

static void action_run(GtkWidget *widget, const char *name, GVariant *parameter)
{
    (void)name, (void)parameter;
    EslStudyPlanDialog *self = ESL_STUDY_PLAN_DIALOG(widget);
    g_autoptr(EslStudy) study = esl_study_plan_dialog_plan(self, NULL);
    if (!study)
        return; /* the message is shown */
    g_signal_emit(self, signals[SIGNAL_PLANNED], 0, study, esl_study_plan_dialog_get_jobs(self));
    gtk_window_close(GTK_WINDOW(self));
}

/* ---- the class -------------------------------------------------------------------------------- */

static GtkWidget *heading(const char *text)
{
    GtkWidget *label = gtk_label_new(text);
    gtk_label_set_xalign(GTK_LABEL(label), 0);
    gtk_widget_add_css_class(label, "heading");
    return label;
}

static GtkWidget *labelled(const char *text, GtkWidget *widget)
{
    GtkWidget *box = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 6);
    gtk_box_append(GTK_BOX(box), gtk_label_new(text));
    gtk_box_append(GTK_BOX(box), widget);
    return box;
}

static void esl_study_plan_dialog_init(EslStudyPlanDialog *self)
{
    gtk_window_set_title(GTK_WINDOW(self), _("Plan a Study"));
    gtk_window_set_modal(GTK_WINDOW(self), TRUE);
    gtk_window_set_default_size(GTK_WINDOW(self), 1000, 620);
    self->rows = g_array_new(FALSE, TRUE, sizeof(ParameterRow));
    g_array_set_clear_func(self->rows, row_clear);

    GtkWidget *paned = gtk_paned_new(GTK_ORIENTATION_HORIZONTAL);
    GtkWidget *left = gtk_box_new(GTK_ORIENTATION_VERTICAL, 8);
    gtk_widget_set_margin_start(left, 10);
    gtk_widget_set_margin_end(left, 10);
    gtk_widget_set_margin_top(left, 10);
    gtk_box_append(GTK_BOX(left), heading(_("Parameters and their ranges")));
    self->parameter_grid = gtk_grid_new();
    gtk_grid_set_column_spacing(GTK_GRID(self->parameter_grid), 10);
    gtk_grid_set_row_spacing(GTK_GRID(self->parameter_grid), 4);
    GtkWidget *scroll = gtk_scrolled_window_new();
    gtk_widget_set_vexpand(scroll, TRUE);
    gtk_scrolled_window_set_child(GTK_SCROLLED_WINDOW(scroll), self->parameter_grid);
    gtk_box_append(GTK_BOX(left), scroll);

    gtk_box_append(GTK_BOX(left), heading(_("Design")));
    self->design_names = gtk_string_list_new(NULL);
    for (int d = 0; d < ESL_STUDY_N_DESIGNS; d++) /* the table `study plan --design` takes */
        gtk_string_list_append(self->design_names, esl_study_design_name((EslStudyDesign)d));
    self->design_choice = gtk_drop_down_new(G_LIST_MODEL(g_object_ref(self->design_names)), NULL);
    self->samples = gtk_spin_button_new_with_range(1, 1000000, 1);
    gtk_spin_button_set_value(GTK_SPIN_BUTTON(self->samples), 20);
    self->seed = gtk_spin_button_new_with_range(0, G_MAXUINT32, 1);
    gtk_spin_button_set_value(GTK_SPIN_BUTTON(self->seed), 1);
    gtk_editable_set_width_chars(GTK_EDITABLE(self->samples), 6);
    gtk_editable_set_width_chars(GTK_EDITABLE(self->seed), 10);
    GtkWidget *design_row = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 12);
    gtk_box_append(GTK_BOX(design_row), self->design_choice);
    gtk_box_append(GTK_BOX(design_row), labelled(_("Samples"), self->samples));
    gtk_box_append(GTK_BOX(design_row), labelled(_("Seed"), self->seed));
    gtk_box_append(GTK_BOX(left), design_row);
    g_signal_connect_swapped(self->design_choice, "notify::selected",
                             G_CALLBACK(on_design_chosen), self);
    on_design_chosen(self);

    gtk_box_append(GTK_BOX(left), heading(_("Objectives")));
    self->objectives = gtk_entry_new();
    gtk_entry_set_placeholder_text(GTK_ENTRY(self->objectives), "final:VAR,max:VAR,min:VAR");
    gtk_widget_set_tooltip_text(self->objectives,
                                _("What each case evaluates: the final, largest or smallest "
                                  "value of variables of the variable table (12:2:x, "
                                  "A1:kinetic, B:angle...), separated by commas"));
    gtk_box_append(GTK_BOX(left), self->objectives);
    self->jobs = gtk_spin_button_new_with_range(1, 256, 1);
    gtk_spin_button_set_value(GTK_SPIN_BUTTON(self->jobs), g_get_num_processors());
    gtk_box_append(GTK_BOX(left), labelled(_("Processes of the local pool"), self->jobs));
    gtk_paned_set_start_child(GTK_PANED(paned), left);

    self->run_settings = esl_run_settings_new();
    gtk_widget_set_margin_top(self->run_settings, 10);
    gtk_widget_set_margin_end(self->run_settings, 10);
    gtk_widget_set_visible(GTK_WIDGET(esl_run_settings_get_sensitivity(
                               ESL_RUN_SETTINGS(self->run_settings))),
                           FALSE);
    GtkWidget *right = gtk_scrolled_window_new();
    gtk_scrolled_window_set_policy(GTK_SCROLLED_WINDOW(right), GTK_POLICY_NEVER,
                                   GTK_POLICY_AUTOMATIC);
    gtk_scrolled_window_set_child(GTK_SCROLLED_WINDOW(right), self->run_settings);
    gtk_widget_set_size_request(right, 280, -1);
    gtk_paned_set_end_child(GTK_PANED(paned), right);
    gtk_paned_set_shrink_start_child(GTK_PANED(paned), FALSE);
    gtk_paned_set_shrink_end_child(GTK_PANED(paned), FALSE);
    gtk_paned_set_position(GTK_PANED(paned), 600);

    GtkWidget *bottom = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 8);
    gtk_widget_set_margin_start(bottom, 10);
    gtk_widget_set_margin_end(bottom, 10);
    gtk_widget_set_margin_top(bottom, 6);
    gtk_widget_set_margin_bottom(bottom, 10);
    self->status_label = gtk_label_new(NULL);
    gtk_label_set_wrap(GTK_LABEL(self->status_label), TRUE);
    gtk_label_set_xalign(GTK_LABEL(self->status_label), 0);
    gtk_widget_set_hexpand(self->status_label, TRUE);
    gtk_box_append(GTK_BOX(bottom), self->status_label);
    GtkWidget *cancel = gtk_button_new_with_mnemonic(_("_Cancel"));
    gtk_actionable_set_action_name(GTK_ACTIONABLE(cancel), "window.close");
    gtk_box_append(GTK_BOX(bottom), cancel);
    GtkWidget *run = gtk_button_new_with_mnemonic(_("Plan and _Run"));
    gtk_widget_add_css_class(run, "suggested-action");
    gtk_actionable_set_action_name(GTK_ACTIONABLE(run), "plan.run");
    gtk_widget_set_tooltip_text(run, _("Write the study's manifest beside the project and run "
                                       "its cases on the local pool"));
    gtk_box_append(GTK_BOX(bottom), run);

    GtkWidget *box = gtk_box_new(GTK_ORIENTATION_VERTICAL, 0);
    gtk_widget_set_vexpand(paned, TRUE);
    gtk_box_append(GTK_BOX(box), paned);
    gtk_box_append(GTK_BOX(box), bottom);
    gtk_window_set_child(GTK_WINDOW(self), box);
}

static void esl_study_plan_dialog_finalize(GObject *object)
{
    EslStudyPlanDialog *self = ESL_STUDY_PLAN_DIALOG(object);
    g_array_unref(self->rows);
    g_free(self->model_path);
    g_object_unref(self->design_names);
    G_OBJECT_CLASS(esl_study_plan_dialog_parent_class)->finalize(object);
}

static void esl_study_plan_dialog_dispose(GObject *object)
{
    EslStudyPlanDialog *self = ESL_STUDY_PLAN_DIALOG(object);
    if (self->run_settings)
        esl_run_settings_set_model(ESL_RUN_SETTINGS(self->run_settings), NULL);
    self->run_settings = NULL;
    g_clear_pointer(&self->model, mbs_model_free);
    G_OBJECT_CLASS(esl_study_plan_dialog_parent_class)->dispose(object);
}

static void esl_study_plan_dialog_class_init(EslStudyPlanDialogClass *klass)
{
    G_OBJECT_CLASS(klass)->finalize = esl_study_plan_dialog_finalize;
    G_OBJECT_CLASS(klass)->dispose = esl_study_plan_dialog_dispose;
    GtkWidgetClass *widget_class = GTK_WIDGET_CLASS(klass);
    gtk_widget_class_install_action(widget_class, "plan.run", NULL, action_run);
    gtk_widget_class_add_binding_action(widget_class, GDK_KEY_Escape, 0, "window.close", NULL);
    signals[SIGNAL_PLANNED] =
        g_signal_new("planned", G_TYPE_FROM_CLASS(klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL,
                     NULL, G_TYPE_NONE, 2, G_TYPE_POINTER, G_TYPE_INT);
}

EslStudyPlanDialog *esl_study_plan_dialog_new(GtkWindow *parent)
{
    return g_object_new(ESL_TYPE_STUDY_PLAN_DIALOG, "transient-for", parent, NULL);
}
