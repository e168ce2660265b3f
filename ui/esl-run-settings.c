/* The run settings panel; see esl-run-settings.h. */
#include "esl-run-settings.h"

#include "esl-drop-down.h"
#include "esl-setting-row.h"

#include <glib/gi18n.h>

#include "mbs_formulation.h"
#include "mbs_topology.h"

struct _EslRunSettings {
    GtkBox parent_instance;
    GtkWidget *grid, *description;
    GtkWidget *formulation;
    /* a list setting (matrix-r's independent coordinates), edited through its callbacks
     * (MbsSettingList): how they are chosen (three radio buttons), what the model needs, and
     * the candidates offered under "chosen here" */
    const MbsSettingList *list; /* NULL: no formulation has a list setting */
    GtkWidget *dof_automatic, *dof_from_model, *dof_chosen;
    GtkWidget *dof_needed, *dof_chooser, *dof_count, *joint_dofs, *point_dofs;
    GPtrArray *dof_candidates; /* DofCandidate* */
    int model_dofs;            /* degrees of freedom of the model; -1: unknown */
    char *model_name;          /* of the model whose candidates are offered */
    const MbsModel *model;     /* the last one set (esl_run_settings_set_model) */
    GPtrArray *rows; /* EslSettingRow*: one per setting of the common table and of each formulation's */
    int nrows;
    GtkWidget *sensitivity; /* EslSensitivityChooser */
};

/* A coordinate that can be chosen as independent, and its check button. */
typedef struct {
    MbsDofChoice dof;
    GtkWidget *check;
} DofCandidate;

G_DEFINE_FINAL_TYPE(EslRunSettings, esl_run_settings, GTK_TYPE_BOX)

/* ---- a list setting: matrix-r's independent coordinates ------------------------------------ */

static GtkWidget *radio(const char *text, const char *tooltip, GtkWidget *group)
{
    GtkWidget *label = gtk_label_new(text);
    gtk_label_set_wrap(GTK_LABEL(label), TRUE);
    gtk_label_set_xalign(GTK_LABEL(label), 0);
    GtkWidget *button = gtk_check_button_new();
    gtk_check_button_set_child(GTK_CHECK_BUTTON(button), label);
    gtk_widget_set_tooltip_text(button, tooltip);
    if (group)
        gtk_check_button_set_group(GTK_CHECK_BUTTON(button), GTK_CHECK_BUTTON(group));
    return button;
}

static gboolean is_active(GtkWidget *check_button)
{
    return gtk_check_button_get_active(GTK_CHECK_BUTTON(check_button));
}

static int max_items(const EslRunSettings *self)
{
    return self->list ? self->list->max_items : 0;
}

/* The coordinates checked under "chosen here", into items (at most max_items; items may be
 * NULL); returns how many are checked. */
static int chosen_dofs(EslRunSettings *self, MbsDofChoice *items)
{
    int count = 0;
    for (guint i = 0; i < self->dof_candidates->len; i++) {
        const DofCandidate *c = self->dof_candidates->pdata[i];
        if (!is_active(c->check))
            continue;
        if (items && count < max_items(self))
            items[count] = c->dof;
        count++;
    }
    return count;
}

/* Why the coordinates chosen here cannot be run, or NULL: what the panel itself knows (none or
 * too many checked), then the formulation's check_settings against the model, phrased for the
 * user when it is the count (the number the model needs comes from the engine too). */
static char *dof_problem(EslRunSettings *self, const MbsFormulationClass *k,
                         const MbsSettings *s)
{
    if (!is_active(self->dof_chosen))
        return NULL;
    int chosen = chosen_dofs(self, NULL), needed = self->model_dofs;
    if (chosen > max_items(self))
        return g_strdup_printf(_("At most %d independent coordinates can be chosen; %d are."),
                               max_items(self), chosen);
    if (chosen == 0)
        return g_strdup(_("No independent coordinate is chosen."));
    MbsError err = {0};
    if (!k || !s || !self->model || mbs_formulation_check_settings(k, self->model, s, &err) == 0)
        return NULL;
    if (needed >= 0 && chosen != needed)
        return g_strdup_printf(ngettext("The model has %d degree of freedom but %d independent "
                                        "coordinates are chosen.",
                                        "The model has %d degrees of freedom but %d independent "
                                        "coordinates are chosen.",
                                        (unsigned long)needed),
                               needed, chosen);
    return g_strdup(err.message);
}

/* Shows the candidates under "chosen here" and the count of those checked. */
static void update_dofs(EslRunSettings *self)
{
    gtk_widget_set_visible(self->dof_chooser, is_active(self->dof_chosen));
    int chosen = chosen_dofs(self, NULL);
    g_autofree char *count = self->model_dofs >= 0
                                 ? g_strdup_printf(_("%d of %d chosen"), chosen, self->model_dofs)
                                 : g_strdup_printf(_("%d chosen"), chosen);
    gboolean wrong = chosen == 0 || chosen > max_items(self) ||
                     (self->model_dofs >= 0 && chosen != self->model_dofs);
    g_autofree char *problem = wrong ? dof_problem(self, NULL, NULL) : NULL;
    gtk_label_set_text(GTK_LABEL(self->dof_count), count);
    gtk_widget_set_tooltip_text(self->dof_count, problem);
    if (problem)
        gtk_widget_add_css_class(self->dof_count, "error");
    else
        gtk_widget_remove_css_class(self->dof_count, "error");
}

static gboolean dof_is(const MbsDofChoice *d, const MbsDofChoice *e)
{
    if (d->joint >= 0)
        return e->joint == d->joint && e->coordinate == d->coordinate;
    return e->joint < 0 && e->point == d->point && e->axis == d->axis;
}

/* count items, or MBS_SETTING_LIST_OWN: the model file's list for a model with one, else the
 * automatic partition; MBS_SETTING_LIST_AUTOMATIC: the automatic partition whatever the file
 * lists. */
static void show_dofs(EslRunSettings *self, int count, const MbsDofChoice *items)
{
    for (guint i = 0; i < self->dof_candidates->len; i++) {
        const DofCandidate *c = self->dof_candidates->pdata[i];
        gboolean chosen = FALSE;
        for (int k = 0; k < count && !chosen; k++)
            chosen = dof_is(&c->dof, &items[k]);
        gtk_check_button_set_active(GTK_CHECK_BUTTON(c->check), chosen);
    }
    gboolean listed = gtk_widget_get_sensitive(self->dof_from_model);
    GtkWidget *mode = count > 0                                 ? self->dof_chosen
                      : count == MBS_SETTING_LIST_OWN && listed ? self->dof_from_model
                                                                : self->dof_automatic;
    gtk_check_button_set_active(GTK_CHECK_BUTTON(mode), TRUE);
    update_dofs(self);
}

static void add_candidate(EslRunSettings *self, GtkWidget *box, const char *text,
                          MbsDofChoice dof)
{
    DofCandidate *c = g_new(DofCandidate, 1);
    c->dof = dof;
    c->check = gtk_check_button_new_with_label(text);
    g_signal_connect_swapped(c->check, "toggled", G_CALLBACK(update_dofs), self);
    gtk_box_append(GTK_BOX(box), c->check);
    g_ptr_array_add(self->dof_candidates, c);
}

/* What coordinate `coord` of a joint of this type measures (architecture.md: a spherical joint
 * is successive rotations about the drawn X, Y, Z; a universal one, about axis1 then axis2). */
static const char *coordinate_name(MbsJointType type, int coord)
{
    static const char *const spherical[] = {N_("angle about X"), N_("angle about Y"),
                                            N_("angle about Z")};
    static const char *const universal[] = {N_("angle about axis 1"), N_("angle about axis 2")};
    switch (type) {
    case MBS_JOINT_REVOLUTE:
        return _("angle");
    case MBS_JOINT_PRISMATIC:
        return _("displacement");
    case MBS_JOINT_UNIVERSAL:
        return _(universal[coord]);
    case MBS_JOINT_SPHERICAL:
        return _(spherical[coord]);
    default:
        return "";
    }
}

static void remove_children(GtkWidget *box)
{
    GtkWidget *child;
    while ((child = gtk_widget_get_first_child(box)))
        gtk_box_remove(GTK_BOX(box), child);
}

/* Candidates: the coordinates of the spanning tree's joints (a cut joint has none; a driven
 * coordinate follows its driver) and x, y, z of the points of moving bodies. */
static void fill_candidates(EslRunSettings *self, const MbsModel *m)
{
    remove_children(self->joint_dofs);
    remove_children(self->point_dofs);
    g_ptr_array_set_size(self->dof_candidates, 0);
    if (!m)
        return;
    for (int j = 0; j < m->njoints; j++) {
        const MbsJoint *J = &m->joints[j];
        if (m->topo->joint_node[j] < 0)
            continue;
        for (int c = J->driven ? 1 : 0; c < mbs_joint_type_dofs(J->type); c++) {
            g_autofree char *text =
                g_strdup_printf("%s · %s", J->name, coordinate_name(J->type, c));
            add_candidate(self, self->joint_dofs, text, (MbsDofChoice){j, c, -1, 0});
        }
    }
    for (int p = 0; p < m->npoints; p++) {
        const MbsPoint *P = &m->points[p];
        if (P->body == m->ground)
            continue;
        for (int axis = 0; axis < 3; axis++) {
            g_autofree char *text = g_strdup_printf("%s · %s · %c", m->bodies[P->body].name,
                                                    P->name, "xyz"[axis]);
            add_candidate(self, self->point_dofs, text, (MbsDofChoice){-1, 0, p, axis});
        }
    }
}

static void update_rows(EslRunSettings *self);

static void show_row(EslRunSettings *self, const EslSettingRow *row, const MbsSettings *s);

/* Another model: the step at the selected formulation's default (a step chosen for a vehicle
 * stayed for the next model, issue 26). */
static void reset_step(EslRunSettings *self)
{
    MbsSettings defaults;
    mbs_settings_defaults(&defaults);
    const MbsFormulationClass *k = esl_run_settings_get_formulation(self);
    if (k)
        mbs_settings_for(&defaults, k);
    for (guint r = 0; r < self->rows->len; r++) {
        const EslSettingRow *row = self->rows->pdata[r];
        if (!row->klass && g_str_equal(row->ref.setting->name, "step"))
            show_row(self, row, &defaults);
    }
}

void esl_run_settings_set_model(EslRunSettings *self, const MbsModel *model)
{
    self->model = model;
    esl_sensitivity_chooser_set_model(ESL_SENSITIVITY_CHOOSER(self->sensitivity), model);
    for (guint r = 0; r < self->rows->len; r++) {
        EslSettingRow *row = self->rows->pdata[r];
        row->model_ok = mbs_setting_applies(&row->ref, model, NULL);
    }
    update_rows(self);
    /* The same model again (edited in the inspector, or reloaded) keeps the choice. */
    gboolean same = model && g_strcmp0(self->model_name, model->name) == 0;
    MbsDofChoice kept[MBS_SETTINGS_LIST_MAX];
    int nkept = same && is_active(self->dof_chosen) ? MIN(chosen_dofs(self, kept), max_items(self))
                                                    : 0;
    if (model && !same)
        reset_step(self);
    g_free(self->model_name);
    self->model_name = model ? g_strdup(model->name) : NULL;
    self->model_dofs = model && self->list ? self->list->needed(model) : -1;
    fill_candidates(self, model);

    gboolean listed = model && model->ndofs > 0;
    gtk_widget_set_sensitive(self->dof_from_model, listed);
    gtk_widget_set_sensitive(self->dof_chosen, model != NULL);
    g_autofree char *needed =
        self->model_dofs >= 0
            ? g_strdup_printf(ngettext("The model has %d degree of freedom.",
                                       "The model has %d degrees of freedom.",
                                       (unsigned long)self->model_dofs),
                              self->model_dofs)
            : g_strdup(model ? _("The model does not assemble: its degrees of freedom are "
                                 "unknown.")
                             : "");
    gtk_label_set_text(GTK_LABEL(self->dof_needed), needed);
    gboolean was_chosen = same && is_active(self->dof_chosen);
    show_dofs(self, nkept, kept);
    if (was_chosen)
        gtk_check_button_set_active(GTK_CHECK_BUTTON(self->dof_chosen), TRUE);
}

gboolean esl_run_settings_check(EslRunSettings *self, GError **error)
{
    const MbsFormulationClass *k = esl_run_settings_get_formulation(self);
    MbsSettings s;
    esl_run_settings_read(self, &s);
    g_autofree char *problem = NULL;
    for (guint r = 0; k && r < self->rows->len && !problem; r++) {
        const EslSettingRow *row = self->rows->pdata[r];
        if (row->klass == k && row->ref.setting->type == MBS_SETTING_LIST)
            problem = dof_problem(self, k, &s);
    }
    if (problem)
        g_set_error_literal(error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT, problem);
    return problem == NULL;
}

static void on_formulation_selected(GObject *dropdown, GParamSpec *pspec, EslRunSettings *self)
{
    (void)dropdown;
    (void)pspec;
    const MbsFormulationClass *k = esl_run_settings_get_formulation(self);
    gtk_label_set_text(GTK_LABEL(self->description),
                       k && k->description ? _(k->description) : "");
    esl_sensitivity_chooser_set_formulation(ESL_SENSITIVITY_CHOOSER(self->sensitivity),
                                            k ? k->name : NULL);
    update_rows(self);
}

EslSensitivityChooser *esl_run_settings_get_sensitivity(EslRunSettings *self)
{
    return ESL_SENSITIVITY_CHOOSER(self->sensitivity);
}

const MbsFormulationClass *esl_run_settings_get_formulation(EslRunSettings *self)
{
    guint i = gtk_drop_down_get_selected(GTK_DROP_DOWN(self->formulation));
    return i == GTK_INVALID_LIST_POSITION ? NULL : mbs_formulation_class((int)i);
}

gboolean esl_run_settings_set_formulation(EslRunSettings *self, const char *name)
{
    for (int i = 0; i < mbs_formulation_count(); i++)
        if (g_strcmp0(mbs_formulation_class(i)->name, name) == 0) {
            gtk_drop_down_set_selected(GTK_DROP_DOWN(self->formulation), (guint)i);
            return TRUE;
        }
    return FALSE;
}

/* The value a row shows, into s (which holds the row's formulation's options when it has one);
 * the list (matrix-r's independent coordinates) is the panel's own, set through its callbacks. */
static void read_row(EslRunSettings *self, const EslSettingRow *row, MbsSettings *s)
{
    const MbsSettingList *list = row->ref.setting->list;
    if (row->ref.setting->type != MBS_SETTING_LIST) {
        esl_setting_row_read(row, s);
        return;
    }
    MbsDofChoice items[MBS_SETTINGS_LIST_MAX];
    int count = MBS_SETTING_LIST_OWN;
    if (is_active(self->dof_chosen))
        count = MIN(chosen_dofs(self, items), list->max_items);
    else if (is_active(self->dof_automatic) && gtk_widget_get_sensitive(self->dof_from_model))
        count = MBS_SETTING_LIST_AUTOMATIC; /* not the list the model file has */
    list->set_items(mbs_setting_value(s, &row->ref), count, items);
}

static void show_row(EslRunSettings *self, const EslSettingRow *row, const MbsSettings *s)
{
    if (row->ref.setting->type == MBS_SETTING_LIST) {
        MbsDofChoice items[MBS_SETTINGS_LIST_MAX];
        int count = row->ref.setting->list->get_items(mbs_setting_value_const(s, &row->ref),
                                                      items);
        show_dofs(self, count, items);
    } else {
        esl_setting_row_show(row, s);
    }
}

void esl_run_settings_read(EslRunSettings *self, MbsSettings *s)
{
    mbs_settings_defaults(s);
    const MbsFormulationClass *k = esl_run_settings_get_formulation(self);
    if (k)
        mbs_settings_for(s, k);
    for (guint r = 0; r < self->rows->len; r++) {
        const EslSettingRow *row = self->rows->pdata[r];
        if (!row->klass || row->klass == k)
            read_row(self, row, s);
    }
}

void esl_run_settings_show(EslRunSettings *self, const char *formulation, const MbsSettings *s)
{
    if (formulation)
        esl_run_settings_set_formulation(self, formulation);
    const MbsFormulationClass *k = esl_run_settings_get_formulation(self);
    /* settings made for another formulation (or none): its defaults for its own rows */
    MbsSettings shown = *s;
    if (k)
        mbs_settings_for(&shown, k);
    for (guint r = 0; r < self->rows->len; r++) {
        const EslSettingRow *row = self->rows->pdata[r];
        if (!row->klass || row->klass == k)
            show_row(self, row, &shown);
    }
    update_rows(self);
}

void esl_run_settings_set_duration(EslRunSettings *self, double duration)
{
    for (guint r = 0; r < self->rows->len; r++) {
        const EslSettingRow *row = self->rows->pdata[r];
        if (!row->klass && g_str_equal(row->ref.setting->name, "duration"))
            gtk_spin_button_set_value(GTK_SPIN_BUTTON(row->widget), duration);
    }
}

static void esl_run_settings_finalize(GObject *object)
{
    EslRunSettings *self = ESL_RUN_SETTINGS(object);
    g_ptr_array_unref(self->rows);
    g_ptr_array_unref(self->dof_candidates);
    g_free(self->model_name);
    G_OBJECT_CLASS(esl_run_settings_parent_class)->finalize(object);
}

static void esl_run_settings_class_init(EslRunSettingsClass *klass)
{
    G_OBJECT_CLASS(klass)->finalize = esl_run_settings_finalize;
}

/* The mode, what the model needs, and the candidates (points behind an expander: there are
 * three per point), in a scrolled list so that a large model does not stretch the panel. */
static GtkWidget *dof_section(EslRunSettings *self)
{
    GtkWidget *box = gtk_box_new(GTK_ORIENTATION_VERTICAL, 4);
    self->dof_needed = gtk_label_new(NULL);
    gtk_label_set_wrap(GTK_LABEL(self->dof_needed), TRUE);
    gtk_label_set_xalign(GTK_LABEL(self->dof_needed), 0);
    gtk_widget_add_css_class(self->dof_needed, "dim-label");
    gtk_box_append(GTK_BOX(box), self->dof_needed);
    self->dof_automatic = radio(_("Automatic (pivoted QR of Φ_z)"),
                                _("A QR factorization of Φ_z with column pivoting chooses them, "
                                  "and chooses again when they become ill-conditioned, even when "
                                  "the model file lists some"),
                                NULL);
    self->dof_from_model = radio(_("From the model file"),
                                 _("The model file's degrees_of_freedom list (available "
                                   "when it has one)"),
                                 self->dof_automatic);
    self->dof_chosen = radio(_("Chosen here"), _("The coordinates checked below"),
                             self->dof_automatic);
    g_signal_connect_swapped(self->dof_chosen, "toggled", G_CALLBACK(update_dofs), self);
    gtk_box_append(GTK_BOX(box), self->dof_automatic);
    gtk_box_append(GTK_BOX(box), self->dof_from_model);
    gtk_box_append(GTK_BOX(box), self->dof_chosen);

    self->dof_chooser = gtk_box_new(GTK_ORIENTATION_VERTICAL, 4);
    gtk_widget_set_margin_start(self->dof_chooser, 24);
    self->dof_count = gtk_label_new(NULL);
    gtk_label_set_xalign(GTK_LABEL(self->dof_count), 0);
    gtk_box_append(GTK_BOX(self->dof_chooser), self->dof_count);
    GtkWidget *list = gtk_box_new(GTK_ORIENTATION_VERTICAL, 0);
    self->joint_dofs = gtk_box_new(GTK_ORIENTATION_VERTICAL, 0);
    gtk_box_append(GTK_BOX(list), self->joint_dofs);
    self->point_dofs = gtk_box_new(GTK_ORIENTATION_VERTICAL, 0);
    GtkWidget *expander = gtk_expander_new(_("Point coordinates"));
    gtk_expander_set_child(GTK_EXPANDER(expander), self->point_dofs);
    gtk_box_append(GTK_BOX(list), expander);
    GtkWidget *scrolled = gtk_scrolled_window_new();
    gtk_scrolled_window_set_policy(GTK_SCROLLED_WINDOW(scrolled), GTK_POLICY_NEVER,
                                   GTK_POLICY_AUTOMATIC);
    gtk_scrolled_window_set_has_frame(GTK_SCROLLED_WINDOW(scrolled), TRUE);
    gtk_scrolled_window_set_propagate_natural_height(GTK_SCROLLED_WINDOW(scrolled), TRUE);
    gtk_scrolled_window_set_max_content_height(GTK_SCROLLED_WINDOW(scrolled), 240);
    gtk_scrolled_window_set_child(GTK_SCROLLED_WINDOW(scrolled), list);
    gtk_box_append(GTK_BOX(self->dof_chooser), scrolled);
    gtk_box_append(GTK_BOX(box), self->dof_chooser);
    return box;
}

static GtkWidget *dof_section_for(gpointer self)
{
    return dof_section(ESL_RUN_SETTINGS(self));
}

/* Show the rows of the settings the selected formulation reads for the current model and the
 * options shown. */
static void update_rows(EslRunSettings *self)
{
    const MbsFormulationClass *k = esl_run_settings_get_formulation(self);
    MbsSettings shown;
    esl_run_settings_read(self, &shown);
    for (guint r = 0; r < self->rows->len; r++) {
        EslSettingRow *row = self->rows->pdata[r];
        esl_setting_row_set_visible(row, (!row->klass || row->klass == k) && row->model_ok &&
                                             mbs_setting_applies(&row->ref, NULL, &shown));
    }
}

static void esl_run_settings_init(EslRunSettings *self)
{
    gtk_orientable_set_orientation(GTK_ORIENTABLE(self), GTK_ORIENTATION_VERTICAL);
    gtk_box_set_spacing(GTK_BOX(self), 6);
    self->rows = g_ptr_array_new_with_free_func(g_free);
    self->dof_candidates = g_ptr_array_new_with_free_func(g_free);
    self->model_dofs = -1;
    self->grid = gtk_grid_new();
    gtk_grid_set_row_spacing(GTK_GRID(self->grid), 6);
    gtk_grid_set_column_spacing(GTK_GRID(self->grid), 8);
    gtk_box_append(GTK_BOX(self), self->grid);
    self->description = gtk_label_new(NULL);
    gtk_label_set_wrap(GTK_LABEL(self->description), TRUE);
    gtk_label_set_xalign(GTK_LABEL(self->description), 0);
    gtk_label_set_max_width_chars(GTK_LABEL(self->description), 30);
    gtk_widget_add_css_class(self->description, "dim-label");
    gtk_widget_add_css_class(self->description, "caption");
    gtk_box_append(GTK_BOX(self), self->description);
    self->sensitivity = esl_sensitivity_chooser_new();
    gtk_box_append(GTK_BOX(self), gtk_separator_new(GTK_ORIENTATION_HORIZONTAL));
    gtk_box_append(GTK_BOX(self), self->sensitivity);

    GtkStringList *names = gtk_string_list_new(NULL);
    for (int i = 0; i < mbs_formulation_count(); i++)
        gtk_string_list_append(names, mbs_formulation_class(i)->name);
    self->formulation = esl_drop_down_new(names);
    GtkWidget *label = gtk_label_new(_("Formulation"));
    gtk_label_set_xalign(GTK_LABEL(label), 0);
    gtk_grid_attach(GTK_GRID(self->grid), label, 0, self->nrows, 1, 1);
    gtk_grid_attach(GTK_GRID(self->grid), self->formulation, 1, self->nrows, 1, 1);
    self->nrows++;
    for (int i = -1; i < mbs_formulation_count(); i++) {
        const MbsFormulationClass *k = i < 0 ? NULL : mbs_formulation_class(i);
        esl_setting_rows_add(self->rows, GTK_GRID(self->grid), &self->nrows, k,
                             k ? k->settings : NULL, dof_section_for,
                             G_CALLBACK(update_rows), self);
    }

    for (guint r = 0; r < self->rows->len; r++) {
        const EslSettingRow *row = self->rows->pdata[r];
        if (row->ref.setting->type == MBS_SETTING_LIST)
            self->list = row->ref.setting->list;
    }
    g_signal_connect(self->formulation, "notify::selected", G_CALLBACK(on_formulation_selected),
                     self);
    esl_run_settings_set_model(self, NULL);
    /* every formulation's rows at its defaults */
    for (int i = mbs_formulation_count() - 1; i >= 0; i--) {
        MbsSettings defaults;
        mbs_settings_defaults(&defaults);
        esl_run_settings_show(self, mbs_formulation_class(i)->name, &defaults);
    }
    on_formulation_selected(NULL, NULL, self);
}

GtkWidget *esl_run_settings_new(void)
{
    return g_object_new(ESL_TYPE_RUN_SETTINGS, NULL);
}
