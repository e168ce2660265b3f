/* The run settings panel; see esl-run-settings.h. */
#include "esl-run-settings.h"

#include "esl-number.h"
#include "esl-wheel.h"

#include <glib/gi18n.h>
#include <math.h>

#include "form_matrix_r.h"
#include "mbs_topology.h"

struct _EslRunSettings {
    GtkBox parent_instance;
    GtkWidget *grid, *description;
    GtkWidget *formulation;
    /* matrix-r's independent coordinates: how they are chosen (three radio buttons), what the
     * model needs, and the candidates offered under "chosen here" */
    GtkWidget *dof_automatic, *dof_from_model, *dof_chosen;
    GtkWidget *dof_needed, *dof_chooser, *dof_count, *joint_dofs, *point_dofs;
    GPtrArray *dof_candidates; /* DofCandidate* */
    int model_dofs;            /* degrees of freedom of the model; -1: unknown */
    char *model_name;          /* of the model whose candidates are offered */
    const MbsModel *model;     /* the last one set (esl_run_settings_set_model) */
    GPtrArray *rows; /* Row*: one per setting of the common table and of each formulation's */
    int nrows;
    GtkWidget *sensitivity; /* EslSensitivityChooser */
};

/* A coordinate that can be chosen as independent, and its check button. */
typedef struct {
    MbsDofChoice dof;
    GtkWidget *check;
} DofCandidate;

G_DEFINE_FINAL_TYPE(EslRunSettings, esl_run_settings, GTK_TYPE_BOX)

/* A row of the grid, made from a setting's descriptor: shown when its formulation (NULL: any)
 * is selected and the setting applies to the model (model_ok) and to the options shown. */
typedef struct {
    const MbsFormulationClass *klass;
    MbsSettingRef ref;
    GtkWidget *label, *widget;
    gboolean model_ok;
    /* a choice row: the choice at each position of its drop-down (only those the formulation
     * offers: mbs_formulation_offers_choice) */
    int choice_at[32];
    int nchoices;
} Row;

/* The position of choice value in the row's drop-down, GTK_INVALID_LIST_POSITION when it is
 * not offered there. */
static guint choice_position(const Row *row, int value)
{
    for (int i = 0; i < row->nchoices; i++)
        if (row->choice_at[i] == value)
            return (guint)i;
    return GTK_INVALID_LIST_POSITION;
}

static void attach_row(EslRunSettings *self, Row *row, const char *tooltip, gboolean section)
{
    gtk_label_set_xalign(GTK_LABEL(row->label), 0);
    gtk_widget_set_hexpand(row->widget, TRUE);
    if (tooltip) {
        gtk_widget_set_tooltip_text(row->label, tooltip);
        gtk_widget_set_tooltip_text(row->widget, tooltip);
    }
    /* a section spans both columns: a heading, and the widget under it */
    gtk_grid_attach(GTK_GRID(self->grid), row->label, 0, self->nrows, section ? 2 : 1, 1);
    gtk_grid_attach(GTK_GRID(self->grid), row->widget, section ? 0 : 1,
                    self->nrows + (section ? 1 : 0), section ? 2 : 1, 1);
    self->nrows += section ? 2 : 1;
    row->model_ok = TRUE;
    g_ptr_array_add(self->rows, row);
}

/* Text of a spin button from an "output" handler: GTK 4.8 ignores gtk_editable_set_text() on
 * the spin button itself there, so it goes to the text widget it delegates to. */
static void set_spin_text(GtkSpinButton *spin, const char *text)
{
    gtk_editable_set_text(gtk_editable_get_delegate(GTK_EDITABLE(spin)), text);
}

/* Spin buttons for quantities spanning decades (1e9, 1e-10) show and read them as %g. */
static gboolean on_output_general(GtkSpinButton *spin, gpointer data)
{
    (void)data;
    g_autofree char *text = esl_number_to_text(gtk_spin_button_get_value(spin), 0, NULL);
    set_spin_text(spin, text);
    return TRUE;
}

static int on_input_general(GtkSpinButton *spin, double *value, gpointer data)
{
    (void)data;
    return esl_number_from_text(gtk_editable_get_text(GTK_EDITABLE(spin)), value)
               ? TRUE
               : GTK_INPUT_ERROR;
}

/* GtkSpinButton ignores changes smaller than 1e-10, so a tolerance is held as its decimal
 * logarithm and shown as the number itself. */
static gboolean on_output_power(GtkSpinButton *spin, gpointer data)
{
    (void)data;
    g_autofree char *text = esl_number_to_text(pow(10, gtk_spin_button_get_value(spin)), 0, NULL);
    set_spin_text(spin, text);
    return TRUE;
}

static int on_input_power(GtkSpinButton *spin, double *value, gpointer data)
{
    (void)data;
    double x;
    if (!esl_number_from_text(gtk_editable_get_text(GTK_EDITABLE(spin)), &x) || !(x > 0))
        return GTK_INPUT_ERROR;
    *value = log10(x);
    return TRUE;
}

/* Jacobian threads: 0 lets the run controller decide, and is shown as a word. */
static gboolean on_output_threads(GtkSpinButton *spin, gpointer data)
{
    (void)data;
    if (gtk_spin_button_get_value_as_int(spin) != 0)
        return FALSE;
    set_spin_text(spin, _("automatic"));
    return TRUE;
}

static int on_input_threads(GtkSpinButton *spin, double *value, gpointer data)
{
    (void)data;
    if (!g_str_equal(gtk_editable_get_text(GTK_EDITABLE(spin)), _("automatic")))
        return FALSE;
    *value = 0;
    return TRUE;
}

static GtkWidget *spin_power(double lower, double upper)
{
    GtkWidget *s = esl_spin_new(log10(lower), log10(upper), 1);
    gtk_spin_button_set_digits(GTK_SPIN_BUTTON(s), 3);
    g_signal_connect(s, "output", G_CALLBACK(on_output_power), NULL);
    g_signal_connect(s, "input", G_CALLBACK(on_input_power), NULL);
    return s;
}

static GtkWidget *spin(double lower, double upper, double step, int digits, gboolean general)
{
    GtkWidget *s = esl_spin_new(lower, upper, step);
    gtk_spin_button_set_digits(GTK_SPIN_BUTTON(s), (guint)digits);
    if (general) {
        g_signal_connect(s, "output", G_CALLBACK(on_output_general), NULL);
        g_signal_connect(s, "input", G_CALLBACK(on_input_general), NULL);
    }
    return s;
}

/* ---- matrix-r's independent coordinates ---------------------------------------------------- */

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

/* The coordinates checked under "chosen here", into l (at most MBS_MATRIX_R_MAX_DOFS; l may be
 * NULL); returns how many are checked. */
static int chosen_dofs(EslRunSettings *self, MbsDofList *l)
{
    int count = 0;
    for (guint i = 0; i < self->dof_candidates->len; i++) {
        const DofCandidate *c = self->dof_candidates->pdata[i];
        if (!is_active(c->check))
            continue;
        if (l && count < MBS_MATRIX_R_MAX_DOFS)
            l->items[count] = c->dof;
        count++;
    }
    if (l)
        l->count = MIN(count, MBS_MATRIX_R_MAX_DOFS);
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
    if (chosen > MBS_MATRIX_R_MAX_DOFS)
        return g_strdup_printf(_("At most %d independent coordinates can be chosen; %d are."),
                               MBS_MATRIX_R_MAX_DOFS, chosen);
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
    gboolean wrong = chosen == 0 || chosen > MBS_MATRIX_R_MAX_DOFS ||
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

/* No choice (0) means the model file's list for a model with one, else the automatic partition;
 * MBS_MATRIX_R_AUTOMATIC asks for the automatic partition whatever the file lists. */
static void show_dofs(EslRunSettings *self, const MbsDofList *l)
{
    for (guint i = 0; i < self->dof_candidates->len; i++) {
        const DofCandidate *c = self->dof_candidates->pdata[i];
        gboolean chosen = FALSE;
        for (int k = 0; k < l->count && !chosen; k++)
            chosen = dof_is(&c->dof, &l->items[k]);
        gtk_check_button_set_active(GTK_CHECK_BUTTON(c->check), chosen);
    }
    gboolean listed = gtk_widget_get_sensitive(self->dof_from_model);
    GtkWidget *mode = l->count > 0                ? self->dof_chosen
                      : l->count == 0 && listed ? self->dof_from_model
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

void esl_run_settings_set_model(EslRunSettings *self, const MbsModel *model)
{
    self->model = model;
    esl_sensitivity_chooser_set_model(ESL_SENSITIVITY_CHOOSER(self->sensitivity), model);
    for (guint r = 0; r < self->rows->len; r++) {
        Row *row = self->rows->pdata[r];
        row->model_ok = mbs_setting_applies(&row->ref, model, NULL);
    }
    update_rows(self);
    /* The same model again (edited in the inspector, or reloaded) keeps the choice. */
    gboolean same = model && g_strcmp0(self->model_name, model->name) == 0;
    MbsDofList kept = {0};
    if (same && is_active(self->dof_chosen))
        chosen_dofs(self, &kept);
    g_free(self->model_name);
    self->model_name = model ? g_strdup(model->name) : NULL;
    MbsSettings common;
    mbs_settings_defaults(&common);
    self->model_dofs = model ? mbs_matrix_r_degrees_of_freedom(model, &common) : -1;
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
    show_dofs(self, &kept);
    if (was_chosen)
        gtk_check_button_set_active(GTK_CHECK_BUTTON(self->dof_chosen), TRUE);
}

gboolean esl_run_settings_check(EslRunSettings *self, GError **error)
{
    const MbsFormulationClass *k = esl_run_settings_get_formulation(self);
    MbsSettings s;
    esl_run_settings_read(self, &s);
    g_autofree char *problem = NULL;
    MbsSettingRef ref;
    if (k && mbs_settings_find(k->settings, "dof", &ref) == 0)
        problem = dof_problem(self, k, &s);
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

/* The value, with text typed but not yet confirmed taken in (a spin button that has not been
 * shown yet has no text, and nothing to take in). */
static double spin_value(GtkWidget *w)
{
    if (*gtk_editable_get_text(GTK_EDITABLE(w)))
        gtk_spin_button_update(GTK_SPIN_BUTTON(w));
    return gtk_spin_button_get_value(GTK_SPIN_BUTTON(w));
}

static int selected(GtkWidget *w)
{
    return (int)gtk_drop_down_get_selected(GTK_DROP_DOWN(w));
}

/* The value a row shows, into s (which holds the row's formulation's options when it has one). */
static void read_row(EslRunSettings *self, const Row *row, MbsSettings *s)
{
    const MbsSetting *d = row->ref.setting;
    switch (d->type) {
    case MBS_SETTING_CHOICE: {
        /* a value not offered (from a project) shows no choice and stays, for the engine to
         * refuse naming the formulation */
        guint position = (guint)selected(row->widget);
        if (position != GTK_INVALID_LIST_POSITION && (int)position < row->nchoices)
            mbs_setting_set_number(s, &row->ref, row->choice_at[position], NULL);
        break;
    }
    case MBS_SETTING_LIST: {
        MbsDofList *l = mbs_setting_value(s, &row->ref);
        l->count = 0;
        if (is_active(self->dof_chosen))
            chosen_dofs(self, l);
        else if (is_active(self->dof_automatic) && gtk_widget_get_sensitive(self->dof_from_model))
            l->count = MBS_MATRIX_R_AUTOMATIC; /* not the list the model file has */
        break;
    }
    default: {
        double v = spin_value(row->widget);
        if (d->flags & MBS_SETTING_DECADES && d->max <= 1.0)
            v = pow(10, v); /* held as its logarithm: see spin_power */
        /* the spin button keeps it within the range; the engine checks it again */
        if (d->type == MBS_SETTING_NUMBER)
            *(double *)mbs_setting_value(s, &row->ref) = v;
        else
            *(int *)mbs_setting_value(s, &row->ref) = (int)lround(v);
    }
    }
}

static void show_row(EslRunSettings *self, const Row *row, const MbsSettings *s)
{
    const MbsSetting *d = row->ref.setting;
    switch (d->type) {
    case MBS_SETTING_CHOICE:
        gtk_drop_down_set_selected(GTK_DROP_DOWN(row->widget),
                                   choice_position(row, (int)mbs_setting_get_number(s, &row->ref)));
        break;
    case MBS_SETTING_LIST:
        show_dofs(self, mbs_setting_value_const(s, &row->ref));
        break;
    default: {
        double v = mbs_setting_get_number(s, &row->ref);
        if (d->flags & MBS_SETTING_DECADES && d->max <= 1.0)
            v = log10(v);
        gtk_spin_button_set_value(GTK_SPIN_BUTTON(row->widget), v);
    }
    }
}

void esl_run_settings_read(EslRunSettings *self, MbsSettings *s)
{
    mbs_settings_defaults(s);
    const MbsFormulationClass *k = esl_run_settings_get_formulation(self);
    if (k)
        mbs_settings_for(s, k);
    for (guint r = 0; r < self->rows->len; r++) {
        const Row *row = self->rows->pdata[r];
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
        const Row *row = self->rows->pdata[r];
        if (!row->klass || row->klass == k)
            show_row(self, row, &shown);
    }
    update_rows(self);
}

void esl_run_settings_set_duration(EslRunSettings *self, double duration)
{
    for (guint r = 0; r < self->rows->len; r++) {
        const Row *row = self->rows->pdata[r];
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

/* Show the rows of the settings the selected formulation reads for the current model and the
 * options shown. */
static void update_rows(EslRunSettings *self)
{
    const MbsFormulationClass *k = esl_run_settings_get_formulation(self);
    MbsSettings shown;
    esl_run_settings_read(self, &shown);
    for (guint r = 0; r < self->rows->len; r++) {
        const Row *row = self->rows->pdata[r];
        gboolean visible = (!row->klass || row->klass == k) && row->model_ok &&
                           mbs_setting_applies(&row->ref, NULL, &shown);
        gtk_widget_set_visible(row->label, visible);
        gtk_widget_set_visible(row->widget, visible);
    }
}

/* The control for a setting, from its descriptor. */
static GtkWidget *setting_widget(EslRunSettings *self, Row *row)
{
    const MbsSetting *d = row->ref.setting;
    switch (d->type) {
    case MBS_SETTING_CHOICE: {
        GtkStringList *list = gtk_string_list_new(NULL);
        const char *const *labels = d->choice_labels ? d->choice_labels : d->choices;
        for (int i = 0; labels[i] && row->nchoices < (int)G_N_ELEMENTS(row->choice_at); i++)
            if (mbs_formulation_offers_choice(row->klass, d, i)) {
                row->choice_at[row->nchoices++] = i;
                gtk_string_list_append(list, d->choice_labels ? _(labels[i]) : labels[i]);
            }
        GtkWidget *w = gtk_drop_down_new(G_LIST_MODEL(list), NULL);
        g_signal_connect_swapped(w, "notify::selected", G_CALLBACK(update_rows), self);
        return w;
    }
    case MBS_SETTING_LIST:
        /* the one kind of list there is: matrix-r's independent coordinates */
        return dof_section(self);
    case MBS_SETTING_INTEGER: {
        GtkWidget *w = spin(d->min, MIN(d->max, 1e6), 1, 0, FALSE);
        if (d->flags & MBS_SETTING_AUTO_ZERO) {
            g_signal_connect(w, "output", G_CALLBACK(on_output_threads), NULL);
            g_signal_connect(w, "input", G_CALLBACK(on_input_threads), NULL);
        }
        return w;
    }
    default:
        /* GtkSpinButton ignores changes below 1e-10: tolerances are held as logarithms */
        if (d->flags & MBS_SETTING_DECADES && d->max <= 1.0)
            return spin_power(MAX(d->min, 1e-16), d->max);
        if (d->flags & MBS_SETTING_DECADES)
            return spin(MAX(d->min, 1), MIN(d->max, 1e15), d->default_value / 10, 0, TRUE);
        return spin(d->min, MIN(d->max, 1e6), d->default_value > 0 ? d->default_value / 10 : 0.01,
                    6, TRUE);
    }
}

static void add_setting_rows(EslRunSettings *self, const MbsFormulationClass *k)
{
    MbsSettingRef all[MBS_SETTINGS_MAX];
    int n = mbs_settings_list(k ? k->settings : NULL, all);
    for (int i = 0; i < n; i++) {
        if (k && !all[i].in_options)
            continue; /* the common rows are made once */
        const MbsSetting *d = all[i].setting;
        Row *row = g_new0(Row, 1);
        row->klass = k;
        row->ref = all[i];
        g_autofree char *label = d->unit ? g_strdup_printf("%s (%s)", _(d->label), d->unit)
                                         : g_strdup(_(d->label));
        row->label = gtk_label_new(label);
        row->widget = setting_widget(self, row);
        attach_row(self, row, d->description ? _(d->description) : NULL,
                   d->type == MBS_SETTING_LIST);
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
    self->formulation = gtk_drop_down_new(G_LIST_MODEL(names), NULL);
    GtkWidget *label = gtk_label_new(_("Formulation"));
    gtk_label_set_xalign(GTK_LABEL(label), 0);
    gtk_grid_attach(GTK_GRID(self->grid), label, 0, self->nrows, 1, 1);
    gtk_grid_attach(GTK_GRID(self->grid), self->formulation, 1, self->nrows, 1, 1);
    self->nrows++;
    for (int i = -1; i < mbs_formulation_count(); i++)
        add_setting_rows(self, i < 0 ? NULL : mbs_formulation_class(i));

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
