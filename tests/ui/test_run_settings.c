/* The run settings panel (ui/esl-run-settings.c): what it shows is what a run gets, for every
 * setting and every formulation, and it offers only the settings the formulation uses. */
#include <gtk/gtk.h>
#include <math.h>

#include "esl-run-settings.h"
#include "tap.h"

static gboolean row_visible(EslRunSettings *panel, const char *label)
{
    GtkWidget *grid = gtk_widget_get_first_child(GTK_WIDGET(panel));
    for (GtkWidget *c = gtk_widget_get_first_child(grid); c; c = gtk_widget_get_next_sibling(c))
        if (GTK_IS_LABEL(c) && g_str_equal(gtk_label_get_text(GTK_LABEL(c)), label))
            return gtk_widget_get_visible(c);
    return FALSE;
}

/* Text of the widget next to a label (the editable of a spin button). */
static const char *row_text(EslRunSettings *panel, const char *label)
{
    GtkWidget *grid = gtk_widget_get_first_child(GTK_WIDGET(panel));
    for (GtkWidget *c = gtk_widget_get_first_child(grid); c; c = gtk_widget_get_next_sibling(c))
        if (GTK_IS_LABEL(c) && g_str_equal(gtk_label_get_text(GTK_LABEL(c)), label))
            return gtk_editable_get_text(GTK_EDITABLE(gtk_widget_get_next_sibling(c)));
    return "";
}

int main(void)
{
    gtk_init();
    EslRunSettings *panel = ESL_RUN_SETTINGS(g_object_ref_sink(esl_run_settings_new()));
    MbsSettings defaults, read;
    mbs_settings_defaults(&defaults);
    esl_run_settings_read(panel, &read);
    tap_ok(read.newton_tolerance == defaults.newton_tolerance &&
               read.newton_max_iterations == defaults.newton_max_iterations &&
               read.penalty == defaults.penalty && read.step == defaults.step &&
               read.jacobian == defaults.jacobian,
           "the panel starts with the engine's defaults (tolerance %g, want %g)",
           read.newton_tolerance, defaults.newton_tolerance);

    tap_ok(g_str_equal(row_text(panel, "Newton tolerance"), "1e-10") &&
               g_str_equal(row_text(panel, "Penalty α"), "1e+09"),
           "tolerance and penalty are shown as numbers: '%s', '%s'",
           row_text(panel, "Newton tolerance"), row_text(panel, "Penalty α"));

    for (int i = 0; i < mbs_formulation_count(); i++) {
        const MbsFormulationClass *k = mbs_formulation_class(i);
        MbsSettings want = defaults;
        want.step = 0.0025;
        want.duration = 3.5;
        want.penalty = 3e8;
        want.jacobian = MBS_JACOBIAN_ND_FORWARD;
        want.newton_tolerance = 1e-12;
        want.newton_max_iterations = 7;
        want.newmark_beta = 0.3;
        want.newmark_gamma = 0.6;
        want.projection_kind = 1;
        want.matrix_r_integrator = 1;
        want.matrix_r_sparse = 1;
        want.ali3p_solver = 2;
        want.matrix_r_rcond = 0.25;
        esl_run_settings_show(panel, k->name, &want);
        esl_run_settings_read(panel, &read);
        gboolean ali3p = g_str_equal(k->name, "ali3p");
        tap_ok(esl_run_settings_get_formulation(panel) == k && read.step == want.step &&
                   read.duration == want.duration && read.penalty == want.penalty &&
                   read.jacobian == want.jacobian &&
                   fabs(read.newton_tolerance / want.newton_tolerance - 1) < 1e-12 &&
                   read.newton_max_iterations == 7 && read.newmark_beta == 0.3 &&
                   read.newmark_gamma == 0.6 && read.projection_kind == 1 &&
                   read.matrix_r_integrator == 1 && read.matrix_r_rcond == 0.25 &&
                   (ali3p ? read.ali3p_solver == 2 : read.matrix_r_sparse == 1),
               "%s: every setting shown is read back (tolerance %g)", k->name,
               read.newton_tolerance);
        tap_ok(row_visible(panel, "Penalty α") == !!(k->uses & MBS_USES_PENALTY) &&
                   row_visible(panel, "Newmark β") == !!(k->uses & MBS_USES_NEWMARK) &&
                   row_visible(panel, "Integrator") == !!(k->uses & MBS_USES_INTEGRATOR) &&
                   row_visible(panel, "Projection") == !!(k->uses & MBS_USES_PROJECTION) &&
                   row_visible(panel, "Linear algebra") == !!(k->uses & MBS_USES_ALGEBRA) &&
                   row_visible(panel, "Repartition below") == !!(k->uses & MBS_USES_DOFS) &&
                   row_visible(panel, "Step (s)"),
               "%s: only the settings it uses are shown", k->name);
    }
    g_object_unref(panel);
    return tap_done();
}
