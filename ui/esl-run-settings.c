/* The run settings panel; see esl-run-settings.h. */
#include "esl-run-settings.h"

#include <glib/gi18n.h>
#include <math.h>

struct _EslRunSettings {
    GtkBox parent_instance;
    GtkWidget *grid, *description;
    GtkWidget *formulation, *step, *duration;
    GtkWidget *penalty, *jacobian, *newton_tolerance, *newton_iterations;
    GtkWidget *newmark_beta, *newmark_gamma, *projection, *integrator, *algebra, *rcond;
    GPtrArray *rows; /* Row* */
    int nrows;
};

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

static void on_formulation_selected(GObject *dropdown, GParamSpec *pspec, EslRunSettings *self)
{
    (void)dropdown;
    (void)pspec;
    const MbsFormulationClass *k = esl_run_settings_get_formulation(self);
    gtk_label_set_text(GTK_LABEL(self->description), k && k->description ? k->description : "");
    for (guint i = 0; i < self->rows->len; i++) {
        const Row *row = self->rows->pdata[i];
        gboolean visible = row->uses == 0 || (k && (k->uses & row->uses));
        gtk_widget_set_visible(row->label, visible);
        gtk_widget_set_visible(row->widget, visible);
    }
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
    g_ptr_array_unref(ESL_RUN_SETTINGS(object)->rows);
    G_OBJECT_CLASS(esl_run_settings_parent_class)->finalize(object);
}

static void esl_run_settings_class_init(EslRunSettingsClass *klass)
{
    G_OBJECT_CLASS(klass)->finalize = esl_run_settings_finalize;
}

static void esl_run_settings_init(EslRunSettings *self)
{
    gtk_orientable_set_orientation(GTK_ORIENTABLE(self), GTK_ORIENTATION_VERTICAL);
    gtk_box_set_spacing(GTK_BOX(self), 6);
    self->rows = g_ptr_array_new_with_free_func(g_free);
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

    MbsSettings defaults;
    mbs_settings_defaults(&defaults);
    g_signal_connect(self->formulation, "notify::selected", G_CALLBACK(on_formulation_selected),
                     self);
    on_formulation_selected(NULL, NULL, self);
    esl_run_settings_show(self, NULL, &defaults);
}

GtkWidget *esl_run_settings_new(void)
{
    return g_object_new(ESL_TYPE_RUN_SETTINGS, NULL);
}
