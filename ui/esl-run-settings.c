/* The run settings panel; see esl-run-settings.h. */
#include "esl-run-settings.h"

#include <glib/gi18n.h>
#include <math.h>

#include "mbs_assembly.h"
#include "mbs_constraints.h"
#include "mbs_topology.h"

struct _EslRunSettings {
    GtkBox parent_instance;
    GtkWidget *grid, *description;
    GtkWidget *formulation, *step, *duration;
    GtkWidget *penalty, *jacobian, *newton_tolerance, *newton_iterations;
    GtkWidget *newmark_beta, *newmark_gamma, *projection, *integrator, *algebra, *rcond;
    GtkWidget *threads;
    /* matrix-r's independent coordinates: how they are chosen (three radio buttons), what the
     * model needs, and the candidates offered under "chosen here" */
    GtkWidget *dof_automatic, *dof_from_model, *dof_chosen;
    GtkWidget *dof_needed, *dof_chooser, *dof_count, *joint_dofs, *point_dofs;
    GPtrArray *dof_candidates; /* DofCandidate* */
    int model_dofs;            /* degrees of freedom of the model; -1: unknown */
    char *model_name;          /* of the model whose candidates are offered */
    GPtrArray *rows; /* Row* */
    unsigned *uses;  /* per registered formulation: the settings a run of the current model reads */
    int nrows;
};

/* A coordinate that can be chosen as independent, and its check button. */
typedef struct {
    MbsDofChoice dof;
    GtkWidget *check;
} DofCandidate;

G_DEFINE_FINAL_TYPE(EslRunSettings, esl_run_settings, GTK_TYPE_BOX)

/* A row of the grid: its label and widget, shown when the formulation uses `uses` (0: always). */
typedef struct {
    GtkWidget *label, *widget;
    unsigned uses;
} Row;

static GtkWidget *add_row(EslRunSettings *self, const char *label_text, const char *tooltip,
                          GtkWidget *widget, unsigned uses)
{
    GtkWidget *label = gtk_label_new(label_text);
    gtk_label_set_xalign(GTK_LABEL(label), 0);
    gtk_widget_set_hexpand(widget, TRUE);
    if (tooltip) {
        gtk_widget_set_tooltip_text(label, tooltip);
        gtk_widget_set_tooltip_text(widget, tooltip);
    }
    gtk_grid_attach(GTK_GRID(self->grid), label, 0, self->nrows, 1, 1);
    gtk_grid_attach(GTK_GRID(self->grid), widget, 1, self->nrows, 1, 1);
    self->nrows++;
    Row *row = g_new(Row, 1);
    *row = (Row){label, widget, uses};
    g_ptr_array_add(self->rows, row);
    return widget;
}

/* A row spanning both columns: a heading, and the widget under it. */
static GtkWidget *add_section(EslRunSettings *self, const char *heading, const char *tooltip,
                              GtkWidget *widget, unsigned uses)
{
    GtkWidget *label = gtk_label_new(heading);
    gtk_label_set_xalign(GTK_LABEL(label), 0);
    gtk_widget_set_tooltip_text(label, tooltip);
    gtk_grid_attach(GTK_GRID(self->grid), label, 0, self->nrows, 2, 1);
    gtk_grid_attach(GTK_GRID(self->grid), widget, 0, self->nrows + 1, 2, 1);
    self->nrows += 2;
    Row *row = g_new(Row, 1);
    *row = (Row){label, widget, uses};
    g_ptr_array_add(self->rows, row);
    return widget;
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
    char text[G_ASCII_DTOSTR_BUF_SIZE];
    g_ascii_formatd(text, sizeof text, "%g", gtk_spin_button_get_value(spin));
    set_spin_text(spin, text);
    return TRUE;
}

static int on_input_general(GtkSpinButton *spin, double *value, gpointer data)
{
    (void)data;
    const char *text = gtk_editable_get_text(GTK_EDITABLE(spin));
    char *end = NULL;
    *value = g_ascii_strtod(text, &end);
    return end == text || *end ? GTK_INPUT_ERROR : TRUE;
}

/* GtkSpinButton ignores changes smaller than 1e-10, so a tolerance is held as its decimal
 * logarithm and shown as the number itself. */
static gboolean on_output_power(GtkSpinButton *spin, gpointer data)
{
    (void)data;
    char text[G_ASCII_DTOSTR_BUF_SIZE];
    g_ascii_formatd(text, sizeof text, "%.3g", pow(10, gtk_spin_button_get_value(spin)));
    set_spin_text(spin, text);
    return TRUE;
}

static int on_input_power(GtkSpinButton *spin, double *value, gpointer data)
{
    (void)data;
    const char *text = gtk_editable_get_text(GTK_EDITABLE(spin));
    char *end = NULL;
    double x = g_ascii_strtod(text, &end);
    if (end == text || *end || !(x > 0))
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
    GtkWidget *s = gtk_spin_button_new_with_range(log10(lower), log10(upper), 1);
    gtk_spin_button_set_digits(GTK_SPIN_BUTTON(s), 3);
    g_signal_connect(s, "output", G_CALLBACK(on_output_power), NULL);
    g_signal_connect(s, "input", G_CALLBACK(on_input_power), NULL);
    return s;
}

static GtkWidget *spin(double lower, double upper, double step, int digits, gboolean general)
{
    GtkWidget *s = gtk_spin_button_new_with_range(lower, upper, step);
    gtk_spin_button_set_digits(GTK_SPIN_BUTTON(s), (guint)digits);
    if (general) {
        g_signal_connect(s, "output", G_CALLBACK(on_output_general), NULL);
        g_signal_connect(s, "input", G_CALLBACK(on_input_general), NULL);
    }
    return s;
}

static GtkWidget *dropdown(const char *const *items)
{
    return gtk_drop_down_new_from_strings(items);
}

/* ali3p's linear algebra has an automatic choice (ali3p_solver 0, 1 dense, 2 sparse); matrix-r's
 * is dense or sparse (matrix_r_sparse 0 or 1). */
static gboolean algebra_is_ali3p(const MbsFormulationClass *k)
{
    return k && g_str_equal(k->name, "ali3p");
}

static void set_algebra_choices(EslRunSettings *self, const MbsFormulationClass *k)
{
    static const char *const ali3p[] = {N_("automatic"), N_("dense (LAPACK)"),
                                        N_("sparse (KLU)"), NULL};
    const char *const *items = algebra_is_ali3p(k) ? ali3p : ali3p + 1;
    GtkStringList *list = gtk_string_list_new(NULL);
    for (int i = 0; items[i]; i++)
        gtk_string_list_append(list, _(items[i]));
    gtk_drop_down_set_model(GTK_DROP_DOWN(self->algebra), G_LIST_MODEL(list));
    g_object_unref(list);
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

/* The coordinates checked under "chosen here", into s (at most MBS_MATRIX_R_MAX_DOFS; s may be
 * NULL); returns how many are checked. */
static int chosen_dofs(EslRunSettings *self, MbsSettings *s)
{
    int count = 0;
    for (guint i = 0; i < self->dof_candidates->len; i++) {
        const DofCandidate *c = self->dof_candidates->pdata[i];
        if (!is_active(c->check))
            continue;
        if (s && count < MBS_MATRIX_R_MAX_DOFS) {
            s->matrix_r_dof_joint[count] = c->dof.joint;
            s->matrix_r_dof_coord[count] = c->dof.coordinate;
            s->matrix_r_dof_point[count] = c->dof.point;
            s->matrix_r_dof_axis[count] = c->dof.axis;
        }
        count++;
    }
    if (s)
        s->matrix_r_ndofs = MIN(count, MBS_MATRIX_R_MAX_DOFS);
    return count;
}

/* Why the coordinates chosen here cannot be run, or NULL. */
static char *dof_problem(EslRunSettings *self)
{
    if (!is_active(self->dof_chosen))
        return NULL;
    int chosen = chosen_dofs(self, NULL), needed = self->model_dofs;
    if (chosen > MBS_MATRIX_R_MAX_DOFS)
        return g_strdup_printf(_("At most %d independent coordinates can be chosen; %d are."),
                               MBS_MATRIX_R_MAX_DOFS, chosen);
    if (needed < 0 && chosen == 0)
        return g_strdup(_("No independent coordinate is chosen."));
    if (needed >= 0 && chosen != needed)
        return g_strdup_printf(ngettext("The model has %d degree of freedom but %d independent "
                                        "coordinates are chosen.",
                                        "The model has %d degrees of freedom but %d independent "
                                        "coordinates are chosen.",
                                        (unsigned long)needed),
                               needed, chosen);
    return NULL;
}

/* Shows the candidates under "chosen here" and the count of those checked. */
static void update_dofs(EslRunSettings *self)
{
    gtk_widget_set_visible(self->dof_chooser, is_active(self->dof_chosen));
    int chosen = chosen_dofs(self, NULL);
    g_autofree char *count = self->model_dofs >= 0
                                 ? g_strdup_printf(_("%d of %d chosen"), chosen, self->model_dofs)
                                 : g_strdup_printf(_("%d chosen"), chosen);
    g_autofree char *problem = dof_problem(self);
    gtk_label_set_text(GTK_LABEL(self->dof_count), count);
    gtk_widget_set_tooltip_text(self->dof_count, problem);
    if (problem)
        gtk_widget_add_css_class(self->dof_count, "error");
    else
        gtk_widget_remove_css_class(self->dof_count, "error");
}

static gboolean dof_is(const MbsDofChoice *d, const MbsSettings *s, int i)
{
    if (d->joint >= 0)
        return s->matrix_r_dof_joint[i] == d->joint && s->matrix_r_dof_coord[i] == d->coordinate;
    return s->matrix_r_dof_joint[i] < 0 && s->matrix_r_dof_point[i] == d->point &&
           s->matrix_r_dof_axis[i] == d->axis;
}

/* No choice (0) means the model file's list for a model with one, else the automatic partition;
 * MBS_MATRIX_R_AUTOMATIC asks for the automatic partition whatever the file lists. */
static void show_dofs(EslRunSettings *self, const MbsSettings *s)
{
    for (guint i = 0; i < self->dof_candidates->len; i++) {
        const DofCandidate *c = self->dof_candidates->pdata[i];
        gboolean chosen = FALSE;
        for (int k = 0; k < s->matrix_r_ndofs && !chosen; k++)
            chosen = dof_is(&c->dof, s, k);
        gtk_check_button_set_active(GTK_CHECK_BUTTON(c->check), chosen);
    }
    gboolean listed = gtk_widget_get_sensitive(self->dof_from_model);
    GtkWidget *mode = s->matrix_r_ndofs > 0            ? self->dof_chosen
                      : s->matrix_r_ndofs == 0 && listed ? self->dof_from_model
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

/* Coordinates minus the rank of Φ_z where the model assembles (what matrix-r checks a choice
 * against); -1 when it does not assemble. */
static int model_degrees_of_freedom(const MbsModel *m)
{
    int n = mbs_model_ncoords(m);
    g_autofree double *z = g_new0(double, n + 1);
    g_autofree double *zd = g_new0(double, n + 1);
    MbsSettings s;
    mbs_settings_defaults(&s);
    MbsError err = {0};
    if (mbs_assemble(m, &s, 0.0, z, zd, NULL, &err) != 0)
        return -1;
    int rank = mbs_constraints_rank(m, 0.0, z);
    return rank < 0 ? -1 : n - rank;
}

/* Show the rows of the settings the selected formulation reads for the current model. */
static void update_rows(EslRunSettings *self)
{
    guint i = gtk_drop_down_get_selected(GTK_DROP_DOWN(self->formulation));
    unsigned uses = i == GTK_INVALID_LIST_POSITION ? 0 : self->uses[i];
    for (guint r = 0; r < self->rows->len; r++) {
        const Row *row = self->rows->pdata[r];
        gboolean visible = row->uses == 0 || (uses & row->uses);
        gtk_widget_set_visible(row->label, visible);
        gtk_widget_set_visible(row->widget, visible);
    }
}

void esl_run_settings_set_model(EslRunSettings *self, const MbsModel *model)
{
    for (int i = 0; i < mbs_formulation_count(); i++)
        self->uses[i] = mbs_formulation_uses(mbs_formulation_class(i), model);
    update_rows(self);
    /* The same model again (edited in the inspector, or reloaded) keeps the choice. */
    gboolean same = model && g_strcmp0(self->model_name, model->name) == 0;
    MbsSettings kept;
    mbs_settings_defaults(&kept);
    if (same && is_active(self->dof_chosen))
        chosen_dofs(self, &kept);
    g_free(self->model_name);
    self->model_name = model ? g_strdup(model->name) : NULL;
    self->model_dofs = model ? model_degrees_of_freedom(model) : -1;
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
    g_autofree char *problem = k && (k->uses & MBS_USES_DOFS) ? dof_problem(self) : NULL;
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
    update_rows(self);
    set_algebra_choices(self, k);
    MbsSettings defaults;
    mbs_settings_defaults(&defaults);
    gtk_drop_down_set_selected(GTK_DROP_DOWN(self->algebra),
                               (guint)(algebra_is_ali3p(k) ? defaults.ali3p_solver
                                                           : defaults.matrix_r_sparse));
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

void esl_run_settings_read(EslRunSettings *self, MbsSettings *s)
{
    mbs_settings_defaults(s);
    s->step = spin_value(self->step);
    s->duration = spin_value(self->duration);
    s->penalty = spin_value(self->penalty);
    s->jacobian = (MbsJacobianMethod)selected(self->jacobian);
    s->newton_tolerance = pow(10, spin_value(self->newton_tolerance));
    s->newton_max_iterations = (int)spin_value(self->newton_iterations);
    s->newmark_beta = spin_value(self->newmark_beta);
    s->newmark_gamma = spin_value(self->newmark_gamma);
    s->projection_kind = selected(self->projection);
    s->matrix_r_integrator = selected(self->integrator);
    s->matrix_r_rcond = spin_value(self->rcond);
    s->threads = (int)spin_value(self->threads);
    if (is_active(self->dof_chosen))
        chosen_dofs(self, s);
    else if (is_active(self->dof_automatic) && gtk_widget_get_sensitive(self->dof_from_model))
        s->matrix_r_ndofs = MBS_MATRIX_R_AUTOMATIC; /* not the list the model file has */
    if (algebra_is_ali3p(esl_run_settings_get_formulation(self)))
        s->ali3p_solver = selected(self->algebra);
    else
        s->matrix_r_sparse = selected(self->algebra);
}

void esl_run_settings_show(EslRunSettings *self, const char *formulation, const MbsSettings *s)
{
    if (formulation)
        esl_run_settings_set_formulation(self, formulation);
    gtk_spin_button_set_value(GTK_SPIN_BUTTON(self->step), s->step);
    gtk_spin_button_set_value(GTK_SPIN_BUTTON(self->duration), s->duration);
    gtk_spin_button_set_value(GTK_SPIN_BUTTON(self->penalty), s->penalty);
    gtk_drop_down_set_selected(GTK_DROP_DOWN(self->jacobian), (guint)s->jacobian);
    gtk_spin_button_set_value(GTK_SPIN_BUTTON(self->newton_tolerance),
                              log10(s->newton_tolerance));
    gtk_spin_button_set_value(GTK_SPIN_BUTTON(self->newton_iterations),
                              s->newton_max_iterations);
    gtk_spin_button_set_value(GTK_SPIN_BUTTON(self->newmark_beta), s->newmark_beta);
    gtk_spin_button_set_value(GTK_SPIN_BUTTON(self->newmark_gamma), s->newmark_gamma);
    if (s->projection_kind >= 0 && s->projection_kind <= 1)
        gtk_drop_down_set_selected(GTK_DROP_DOWN(self->projection), (guint)s->projection_kind);
    gtk_drop_down_set_selected(GTK_DROP_DOWN(self->integrator), (guint)s->matrix_r_integrator);
    gtk_spin_button_set_value(GTK_SPIN_BUTTON(self->rcond), s->matrix_r_rcond);
    gtk_spin_button_set_value(GTK_SPIN_BUTTON(self->threads), s->threads);
    show_dofs(self, s);
    gtk_drop_down_set_selected(GTK_DROP_DOWN(self->algebra),
                               (guint)(algebra_is_ali3p(esl_run_settings_get_formulation(self))
                                           ? s->ali3p_solver
                                           : s->matrix_r_sparse));
}

void esl_run_settings_set_duration(EslRunSettings *self, double duration)
{
    gtk_spin_button_set_value(GTK_SPIN_BUTTON(self->duration), duration);
}

static void esl_run_settings_finalize(GObject *object)
{
    EslRunSettings *self = ESL_RUN_SETTINGS(object);
    g_ptr_array_unref(self->rows);
    g_free(self->uses);
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

static void esl_run_settings_init(EslRunSettings *self)
{
    gtk_orientable_set_orientation(GTK_ORIENTABLE(self), GTK_ORIENTATION_VERTICAL);
    gtk_box_set_spacing(GTK_BOX(self), 6);
    self->rows = g_ptr_array_new_with_free_func(g_free);
    self->uses = g_new0(unsigned, MAX(mbs_formulation_count(), 1));
    for (int i = 0; i < mbs_formulation_count(); i++)
        self->uses[i] = mbs_formulation_class(i)->uses;
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

    GtkStringList *names = gtk_string_list_new(NULL);
    for (int i = 0; i < mbs_formulation_count(); i++)
        gtk_string_list_append(names, mbs_formulation_class(i)->name);
    self->formulation = gtk_drop_down_new(G_LIST_MODEL(names), NULL);
    GtkStringList *jacobians = gtk_string_list_new(NULL);
    for (int i = 0; i < MBS_JACOBIAN_COUNT; i++)
        gtk_string_list_append(jacobians, mbs_jacobian_method_name((MbsJacobianMethod)i));
    static const char *const projections[] = {N_("mass-orthogonal"),
                                              N_("mass-damping-stiffness-orthogonal"), NULL};
    static const char *const integrators[] = {N_("RK4 (explicit)"),
                                              N_("trapezoidal (implicit)"), NULL};
    const char *projection_items[] = {_(projections[0]), _(projections[1]), NULL};
    const char *integrator_items[] = {_(integrators[0]), _(integrators[1]), NULL};

    add_row(self, _("Formulation"), NULL, self->formulation, 0);
    self->step = add_row(self, _("Step (s)"), NULL, spin(1e-5, 0.1, 5e-4, 5, FALSE), 0);
    self->duration = add_row(self, _("Duration (s)"), NULL, spin(0.01, 1e4, 1, 2, FALSE), 0);
    self->penalty = add_row(self, _("Penalty α"), _("Penalty factor of the constraints"),
                            spin(1, 1e15, 1e6, 0, TRUE), MBS_USES_PENALTY);
    self->jacobian = add_row(self, _("Jacobian"),
                             _("How the tangent matrix is computed: forward or central "
                               "differences"),
                             gtk_drop_down_new(G_LIST_MODEL(jacobians), NULL), MBS_USES_JACOBIAN);
    self->threads = add_row(self, _("Jacobian threads"),
                            _("Threads computing the columns of the Jacobian; automatic (0): one "
                              "per core but one, which is left to the window"),
                            spin(0, g_get_num_processors(), 1, 0, FALSE), MBS_USES_JACOBIAN);
    g_signal_connect(self->threads, "output", G_CALLBACK(on_output_threads), NULL);
    g_signal_connect(self->threads, "input", G_CALLBACK(on_input_threads), NULL);
    self->newton_tolerance =
        add_row(self, _("Newton tolerance"), _("On the max-norm of the Newton correction"),
                spin_power(1e-16, 1e-2), MBS_USES_NEWTON);
    self->newton_iterations = add_row(self, _("Newton iterations"),
                                      _("Most Newton–Raphson iterations per step"),
                                      spin(1, 1000, 1, 0, FALSE), MBS_USES_NEWTON);
    self->newmark_beta = add_row(self, _("Newmark β"), _("0.25 with γ = 0.5: trapezoidal rule"),
                                 spin(0, 1, 0.01, 4, FALSE), MBS_USES_NEWMARK);
    self->newmark_gamma = add_row(self, _("Newmark γ"), NULL, spin(0, 1, 0.01, 4, FALSE),
                                  MBS_USES_NEWMARK);
    self->projection = add_row(self, _("Projection"),
                               _("Velocity and acceleration projections: onto the mass metric, "
                                 "or onto mass, damping and stiffness (paper 004)"),
                               dropdown(projection_items), MBS_USES_PROJECTION);
    self->integrator = add_row(self, _("Integrator"), NULL, dropdown(integrator_items),
                               MBS_USES_INTEGRATOR);
    self->algebra = add_row(self, _("Linear algebra"),
                            _("Dense LAPACK or sparse KLU factorizations"),
                            dropdown(projection_items), MBS_USES_ALGEBRA);
    self->rcond = add_row(self, _("Repartition below"),
                          _("A new choice of independent coordinates when the condition estimate "
                            "of the dependent block falls below this fraction of its value "
                            "after the last choice (1: every step)"),
                          spin(0, 1, 0.01, 3, FALSE), MBS_USES_DOFS);
    add_section(self, _("Independent coordinates"),
                _("The coordinates matrix-r integrates; the others follow from the constraints"),
                dof_section(self), MBS_USES_DOFS);

    MbsSettings defaults;
    mbs_settings_defaults(&defaults);
    g_signal_connect(self->formulation, "notify::selected", G_CALLBACK(on_formulation_selected),
                     self);
    on_formulation_selected(NULL, NULL, self);
    esl_run_settings_set_model(self, NULL);
    esl_run_settings_show(self, NULL, &defaults);
}

GtkWidget *esl_run_settings_new(void)
{
    return g_object_new(ESL_TYPE_RUN_SETTINGS, NULL);
}
