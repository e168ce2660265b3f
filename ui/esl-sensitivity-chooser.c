/* The sensitivity chooser; see esl-sensitivity-chooser.h. */
#include "esl-sensitivity-chooser.h"

#include <glib/gi18n.h>

#include "esl-drop-down.h"
#include "esl-point-sensitivity.h"
#include "esl-points.h"
#include "esl-sensitivity-controller.h"
#include "esl-setting-row.h"

struct _EslSensitivityChooser {
    GtkBox parent_instance;
    GtkWidget *method;      /* drop-down: "none", then the formulation's methods */
    GtkStringList *methods; /* its items */
    int offered[MBS_SENSITIVITY_METHOD_COUNT + 1]; /* item -> method (-1: none) */
    GtkWidget *lists, *objectives, *parameters, *note;
    GtkWidget *outputs_title, *outputs; /* the coordinates whose d q / d rho are plotted */
    GtkWidget *points_title, *points;   /* the model's points whose d r / d rho are plotted */
    /* rows of the methods' own settings (mbs_sensitivity_settings), made once per table for
     * every formulation and method that has one; those of the chosen method's table shown */
    GtkWidget *options_grid;
    int options_rows;
    GPtrArray *tables; /* const MbsSettingTable* */
    GPtrArray *rows;   /* GPtrArray* of EslSettingRow*, one per table */
    const MbsModel *model;
    char *formulation;
};

G_DEFINE_FINAL_TYPE(EslSensitivityChooser, esl_sensitivity_chooser, GTK_TYPE_BOX)

/* The table of the chosen method's own settings, or NULL (none, or a plain run). */
static const MbsSettingTable *chosen_table(EslSensitivityChooser *self)
{
    guint i = gtk_drop_down_get_selected(GTK_DROP_DOWN(self->method));
    if (i == GTK_INVALID_LIST_POSITION || self->offered[i] < 0 || !self->formulation)
        return NULL;
    return mbs_sensitivity_settings(self->formulation, self->offered[i]);
}

/* The rows of table t (NULL when the chooser has none). */
static GPtrArray *rows_of(EslSensitivityChooser *self, const MbsSettingTable *t)
{
    guint at;
    return t && g_ptr_array_find(self->tables, t, &at) ? self->rows->pdata[at] : NULL;
}

const MbsSettingTable *esl_sensitivity_chooser_get_options(EslSensitivityChooser *self,
                                                           MbsSettings *options)
{
    const MbsSettingTable *t = chosen_table(self);
    mbs_settings_defaults(options);
    if (!t)
        return NULL;
    mbs_settings_use_options(options, t);
    GPtrArray *rows = rows_of(self, t);
    for (guint r = 0; rows && r < rows->len; r++)
        esl_setting_row_read(rows->pdata[r], options);
    return t;
}

gboolean esl_sensitivity_chooser_show_options(EslSensitivityChooser *self,
                                              const MbsSettings *options)
{
    GPtrArray *rows = rows_of(self, options->options_table);
    for (guint r = 0; rows && r < rows->len; r++)
        esl_setting_row_show(rows->pdata[r], options);
    return rows != NULL;
}

/* The rows of the chosen method's table, those that apply to the model and options shown. */
static void update_options(EslSensitivityChooser *self)
{
    MbsSettings shown;
    const MbsSettingTable *chosen = esl_sensitivity_chooser_get_options(self, &shown);
    for (guint t = 0; t < self->tables->len; t++) {
        GPtrArray *rows = self->rows->pdata[t];
        for (guint r = 0; r < rows->len; r++) {
            EslSettingRow *row = rows->pdata[r];
            esl_setting_row_set_visible(row, self->tables->pdata[t] == chosen &&
                                                 mbs_setting_applies(&row->ref, self->model,
                                                                     &shown));
        }
    }
}

static void update_sensitivity(EslSensitivityChooser *self)
{
    update_options(self);
    guint i = gtk_drop_down_get_selected(GTK_DROP_DOWN(self->method));
    gboolean on = i != GTK_INVALID_LIST_POSITION && self->offered[i] >= 0;
    gtk_widget_set_visible(self->lists, on && self->model);
    const char *note = "";
    if (on && self->model && (self->model->nobjectives == 0 || self->model->nparameters == 0))
        note = _("The model declares no objectives or parameters to differentiate.");
    else if (on && !mbs_sensitivity_has_state_history(self->formulation, self->offered[i]))
        note = self->offered[i] == MBS_SENSITIVITY_DIRECT
                   ? _("This method plots the running gradient; it does not step the "
                       "coordinates' sensitivities.")
                   : _("This method gives the final gradient only: the progress bar shows how "
                       "far it is, the gradient table comes at the end.");
    gtk_label_set_text(GTK_LABEL(self->note), note);
    gtk_widget_set_visible(self->note, *note != '\0');
    gboolean outputs = on && mbs_sensitivity_has_state_history(self->formulation, self->offered[i]) &&
                       gtk_widget_get_first_child(self->outputs);
    gtk_widget_set_visible(self->outputs_title, outputs);
    gtk_widget_set_visible(self->outputs, outputs);
    gboolean points = outputs && gtk_widget_get_first_child(self->points);
    gtk_widget_set_visible(self->points_title, points);
    gtk_widget_set_visible(self->points, points);
}

static void remove_children(GtkWidget *box);
static GtkWidget *index_check(const char *label, int index, gboolean active);

/* The coordinates of the formulation's kind for the model (esl_sensitivity_state_coordinates),
 * the first DEFAULT_OUTPUTS checked: the plots stay readable on the lattices. */
#define DEFAULT_OUTPUTS 6
static void fill_outputs(EslSensitivityChooser *self)
{
    remove_children(self->outputs);
    const MbsFormulationClass *k = self->formulation ? mbs_formulation_find(self->formulation)
                                                     : NULL;
    if (!self->model || !k)
        return;
    g_autoptr(GArray) index = g_array_new(FALSE, FALSE, sizeof(int));
    g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func(g_free);
    int n = esl_sensitivity_state_coordinates(self->model, k->coordinate_kind, index, names);
    for (int i = 0; i < n; i++)
        gtk_box_append(GTK_BOX(self->outputs),
                       index_check(names->pdata[i], i, i < DEFAULT_OUTPUTS));
}

void esl_sensitivity_chooser_set_formulation(EslSensitivityChooser *self, const char *name)
{
    guint was = gtk_drop_down_get_selected(GTK_DROP_DOWN(self->method));
    int kept = was != GTK_INVALID_LIST_POSITION ? self->offered[was] : -1;
    g_free(self->formulation);
    const MbsFormulationClass *old = self->formulation ? mbs_formulation_find(self->formulation)
                                                       : NULL;
    const MbsFormulationClass *now = name ? mbs_formulation_find(name) : NULL;
    self->formulation = g_strdup(name);
    if (!old || !now || old->coordinate_kind != now->coordinate_kind)
        fill_outputs(self); /* other coordinates: the choice cannot be kept */
    guint n = 0, select = 0;
    const char *items[MBS_SENSITIVITY_METHOD_COUNT + 2] = {_("none (plain run)")};
    self->offered[n++] = -1;
    for (int m = 0; m < MBS_SENSITIVITY_METHOD_COUNT; m++)
        if (name && mbs_sensitivity_available(name, m)) {
            if (m == kept)
                select = n;
            self->offered[n] = m;
            items[n++] = mbs_sensitivity_method_name(m);
        }
    items[n] = NULL;
    gtk_string_list_splice(self->methods, 0,
                           g_list_model_get_n_items(G_LIST_MODEL(self->methods)), items);
    gtk_drop_down_set_selected(GTK_DROP_DOWN(self->method), select);
    update_sensitivity(self);
}

gboolean esl_sensitivity_chooser_set_method(EslSensitivityChooser *self, const char *name)
{
    int method = name && g_strcmp0(name, "none") ? mbs_sensitivity_method_from_name(name) : -1;
    guint n = g_list_model_get_n_items(G_LIST_MODEL(self->methods));
    for (guint i = 0; i < n; i++)
        if (self->offered[i] == method) {
            gtk_drop_down_set_selected(GTK_DROP_DOWN(self->method), i);
            return TRUE;
        }
    return FALSE;
}

static GtkWidget *index_check(const char *label, int index, gboolean active)
{
    GtkWidget *check = gtk_check_button_new_with_label(label);
    gtk_check_button_set_active(GTK_CHECK_BUTTON(check), active);
    g_object_set_data(G_OBJECT(check), "index", GINT_TO_POINTER(index));
    return check;
}

static void remove_children(GtkWidget *box)
{
    GtkWidget *c;
    while ((c = gtk_widget_get_first_child(box)))
        gtk_box_remove(GTK_BOX(box), c);
}

void esl_sensitivity_chooser_set_model(EslSensitivityChooser *self, const MbsModel *model)
{
    self->model = model;
    remove_children(self->objectives);
    remove_children(self->parameters);
    remove_children(self->points);
    for (int i = 0; model && i < model->nobjectives; i++)
        gtk_box_append(GTK_BOX(self->objectives),
                       index_check(model->objectives[i].name, i, TRUE));
    for (int i = 0; model && i < model->nparameters; i++)
        if (mbs_model_parameter_is_free(model, i))
            gtk_box_append(GTK_BOX(self->parameters),
                           index_check(model->parameters[i].name, i, TRUE));
    /* the points of moving bodies (esl_points_parse's), none checked: three curves each */
    g_autoptr(GArray) points = model ? esl_points_parse(model, NULL, NULL) : NULL;
    for (guint i = 0; points && i < points->len; i++) {
        g_autofree char *name = esl_point_name(model, g_array_index(points, int, i));
        gtk_box_append(GTK_BOX(self->points),
                       index_check(name, g_array_index(points, int, i), FALSE));
    }
    fill_outputs(self);
    update_sensitivity(self);
}

static void checked(GtkWidget *box, GArray *out)
{
    for (GtkWidget *c = gtk_widget_get_first_child(box); c; c = gtk_widget_get_next_sibling(c))
        if (gtk_check_button_get_active(GTK_CHECK_BUTTON(c))) {
            int index = GPOINTER_TO_INT(g_object_get_data(G_OBJECT(c), "index"));
            g_array_append_val(out, index);
        }
}

int esl_sensitivity_chooser_get(EslSensitivityChooser *self, GArray *objectives,
                                GArray *parameters, GArray *outputs)
{
    guint i = gtk_drop_down_get_selected(GTK_DROP_DOWN(self->method));
    if (i == GTK_INVALID_LIST_POSITION || self->offered[i] < 0)
        return -1;
    checked(self->objectives, objectives);
    checked(self->parameters, parameters);
    if (outputs)
        checked(self->outputs, outputs);
    return self->offered[i];
}

void esl_sensitivity_chooser_get_points(EslSensitivityChooser *self, GArray *points)
{
    checked(self->points, points);
}

gboolean esl_sensitivity_chooser_set_point(EslSensitivityChooser *self, int point,
                                           gboolean active)
{
    for (GtkWidget *c = gtk_widget_get_first_child(self->points); c;
         c = gtk_widget_get_next_sibling(c))
        if (GPOINTER_TO_INT(g_object_get_data(G_OBJECT(c), "index")) == point) {
            gtk_check_button_set_active(GTK_CHECK_BUTTON(c), active);
            return TRUE;
        }
    return FALSE;
}

gboolean esl_sensitivity_chooser_set_output(EslSensitivityChooser *self, int index,
                                            gboolean active)
{
    int i = 0;
    for (GtkWidget *c = gtk_widget_get_first_child(self->outputs); c;
         c = gtk_widget_get_next_sibling(c), i++)
        if (i == index) {
            gtk_check_button_set_active(GTK_CHECK_BUTTON(c), active);
            return TRUE;
        }
    return FALSE;
}

static void esl_sensitivity_chooser_finalize(GObject *object)
{
    EslSensitivityChooser *self = ESL_SENSITIVITY_CHOOSER(object);
    g_ptr_array_unref(self->tables);
    g_ptr_array_unref(self->rows);
    g_free(self->formulation);
    G_OBJECT_CLASS(esl_sensitivity_chooser_parent_class)->finalize(object);
}

static void esl_sensitivity_chooser_class_init(EslSensitivityChooserClass *klass)
{
    G_OBJECT_CLASS(klass)->finalize = esl_sensitivity_chooser_finalize;
}

static GtkWidget *titled_list(GtkWidget *parent, const char *title)
{
    GtkWidget *label = gtk_label_new(title);
    gtk_label_set_xalign(GTK_LABEL(label), 0);
    gtk_widget_add_css_class(label, "caption-heading");
    gtk_box_append(GTK_BOX(parent), label);
    GtkWidget *box = gtk_box_new(GTK_ORIENTATION_VERTICAL, 0);
    gtk_box_append(GTK_BOX(parent), box);
    return box;
}

/* Under the method, a grid of the rows of every method's table (the run panel's rows, made
 * the same way: esl-setting-row.h), each at its defaults; shown for the chosen method. */
static void add_options(EslSensitivityChooser *self)
{
    self->tables = g_ptr_array_new();
    self->rows = g_ptr_array_new_with_free_func((GDestroyNotify)g_ptr_array_unref);
    self->options_grid = gtk_grid_new();
    gtk_grid_set_row_spacing(GTK_GRID(self->options_grid), 6);
    gtk_grid_set_column_spacing(GTK_GRID(self->options_grid), 8);
    gtk_box_append(GTK_BOX(self), self->options_grid);
    for (int k = 0; k < mbs_formulation_count(); k++)
        for (int m = 0; m < MBS_SENSITIVITY_METHOD_COUNT; m++) {
            const MbsFormulationClass *klass = mbs_formulation_class(k);
            const MbsSettingTable *t = mbs_sensitivity_settings(klass->name, m);
            if (!t || g_ptr_array_find(self->tables, t, NULL))
                continue;
            GPtrArray *rows = g_ptr_array_new_with_free_func(g_free);
            /* the formulation's choices (its Jacobian methods) for a choice of its table */
            esl_setting_rows_add(rows, GTK_GRID(self->options_grid), &self->options_rows, klass,
                                 t, NULL, G_CALLBACK(update_options), self);
            g_ptr_array_add(self->tables, (gpointer)t);
            g_ptr_array_add(self->rows, rows);
            MbsSettings defaults;
            mbs_settings_defaults(&defaults);
            mbs_settings_use_options(&defaults, t);
            esl_sensitivity_chooser_show_options(self, &defaults);
        }
}

static void esl_sensitivity_chooser_init(EslSensitivityChooser *self)
{
    gtk_orientable_set_orientation(GTK_ORIENTABLE(self), GTK_ORIENTATION_VERTICAL);
    gtk_box_set_spacing(GTK_BOX(self), 4);
    GtkWidget *row = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 8);
    GtkWidget *label = gtk_label_new(_("Sensitivities"));
    gtk_widget_set_tooltip_text(label, _("Run with the gradient of the model's objectives with "
                                         "respect to its parameters, plotted while it runs"));
    gtk_widget_set_hexpand(label, TRUE);
    gtk_label_set_xalign(GTK_LABEL(label), 0);
    self->methods = gtk_string_list_new(NULL);
    self->method = esl_drop_down_new(self->methods);
    gtk_box_append(GTK_BOX(row), label);
    gtk_box_append(GTK_BOX(row), self->method);
    gtk_box_append(GTK_BOX(self), row);
    add_options(self);
    self->note = gtk_label_new(NULL);
    gtk_label_set_wrap(GTK_LABEL(self->note), TRUE);
    gtk_label_set_xalign(GTK_LABEL(self->note), 0);
    gtk_label_set_max_width_chars(GTK_LABEL(self->note), 30);
    gtk_widget_add_css_class(self->note, "dim-label");
    gtk_widget_add_css_class(self->note, "caption");
    gtk_box_append(GTK_BOX(self), self->note);
    self->lists = gtk_box_new(GTK_ORIENTATION_VERTICAL, 2);
    self->objectives = titled_list(self->lists, _("Objectives"));
    /* the window's editor of the model's objectives (ui/esl-objective-editor.c) and its
     * optimiser of them (ui/esl-optimize-dialog.c) */
    GtkWidget *buttons = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 6);
    GtkWidget *edit = gtk_button_new_with_mnemonic(_("_Edit Objectives…"));
    gtk_actionable_set_action_name(GTK_ACTIONABLE(edit), "win.edit-objectives");
    gtk_widget_set_tooltip_text(edit, _("Add, remove and change the model's objectives"));
    gtk_box_append(GTK_BOX(buttons), edit);
    GtkWidget *optimize = gtk_button_new_with_mnemonic(_("_Optimise…"));
    gtk_actionable_set_action_name(GTK_ACTIONABLE(optimize), "win.optimize");
    gtk_widget_set_tooltip_text(optimize, _("Minimise an objective over some of the model's "
                                            "parameters within bounds"));
    gtk_box_append(GTK_BOX(buttons), optimize);
    gtk_box_append(GTK_BOX(self->lists), buttons);
    self->parameters = titled_list(self->lists, _("Parameters"));
    self->outputs = titled_list(self->lists, _("Plot the sensitivities of"));
    self->outputs_title = gtk_widget_get_prev_sibling(self->outputs);
    gtk_widget_set_tooltip_text(self->outputs_title,
                                _("The coordinates whose sensitivities ∂q/∂ρ are plotted while "
                                  "the run goes (one plot per parameter)"));
    self->points = titled_list(self->lists, _("and of the points"));
    self->points_title = gtk_widget_get_prev_sibling(self->points);
    gtk_widget_set_tooltip_text(self->points_title,
                                _("The model's points whose position sensitivities ∂r/∂ρ (x, y, "
                                  "z) are plotted while the run goes, and stored with it"));
    gtk_box_append(GTK_BOX(self), self->lists);
    g_signal_connect_swapped(self->method, "notify::selected", G_CALLBACK(update_sensitivity),
                             self);
    esl_sensitivity_chooser_set_formulation(self, NULL);
}

GtkWidget *esl_sensitivity_chooser_new(void)
{
    return g_object_new(ESL_TYPE_SENSITIVITY_CHOOSER, NULL);
}
