/* The run settings panel (ui/esl-run-settings.c): what it shows is what a run gets, for every
 * setting and every formulation, and it offers only the settings the formulation uses. */
#include <gtk/gtk.h>
#include <math.h>
#include <string.h>

#include "esl-model-file.h"
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

/* The label with this text anywhere in the widget tree (depth first), or NULL. */
static GtkWidget *find_label(GtkWidget *w, const char *text)
{
    if (GTK_IS_LABEL(w) && g_str_equal(gtk_label_get_text(GTK_LABEL(w)), text))
        return w;
    for (GtkWidget *c = gtk_widget_get_first_child(w); c; c = gtk_widget_get_next_sibling(c)) {
        GtkWidget *found = find_label(c, text);
        if (found)
            return found;
    }
    return NULL;
}

/* The check button labelled text (a mode or a candidate coordinate). */
static GtkCheckButton *check_button(EslRunSettings *panel, const char *text)
{
    GtkWidget *label = find_label(GTK_WIDGET(panel), text);
    GtkWidget *button = label ? gtk_widget_get_ancestor(label, GTK_TYPE_CHECK_BUTTON) : NULL;
    if (!button)
        printf("# no check button '%s'\n", text);
    return button ? GTK_CHECK_BUTTON(button) : NULL;
}

static void set_checked(EslRunSettings *panel, const char *text, gboolean active)
{
    GtkCheckButton *b = check_button(panel, text);
    if (b)
        gtk_check_button_set_active(b, active);
}

static gboolean is_checked(EslRunSettings *panel, const char *text)
{
    GtkCheckButton *b = check_button(panel, text);
    return b && gtk_check_button_get_active(b);
}

/* The independent coordinates of the spatial four-bar (1 degree of freedom): chosen, read,
 * shown again, and refused when they are not as many as the degrees of freedom. */
static void test_dofs(EslRunSettings *panel, const char *models_dir)
{
    g_autofree char *path = g_build_filename(models_dir, "four-bar-spatial.json", NULL);
    g_autoptr(GError) error = NULL;
    MbsModel *m = esl_model_load_file(path, NULL, 0, &error);
    if (!tap_ok(m != NULL, "the four-bar loads: %s", error ? error->message : ""))
        return;
    esl_run_settings_set_model(panel, m);
    esl_run_settings_set_formulation(panel, "matrix-r");
    tap_ok(find_label(GTK_WIDGET(panel), "The model has 1 degree of freedom.") != NULL &&
               is_checked(panel, "Automatic (pivoted QR of Φ_z)") &&
               !gtk_widget_get_sensitive(
                   GTK_WIDGET(check_button(panel, "From the model file"))),
           "the panel shows the model's degrees of freedom; automatic, as the model lists none");

    MbsSettings s;
    set_checked(panel, "Chosen here", TRUE);
    set_checked(panel, "A · angle", TRUE);
    set_checked(panel, "D · angle", TRUE);
    esl_run_settings_read(panel, &s);
    int A = mbs_model_find_joint(m, "A"), D = mbs_model_find_joint(m, "D");
    tap_ok(s.matrix_r_ndofs == 2 && s.matrix_r_dof_joint[0] == A &&
               s.matrix_r_dof_coord[0] == 0 && s.matrix_r_dof_joint[1] == D &&
               s.matrix_r_dof_coord[1] == 0,
           "two joint coordinates chosen: %d DOFs, joints %d:%d and %d:%d", s.matrix_r_ndofs,
           s.matrix_r_dof_joint[0], s.matrix_r_dof_coord[0], s.matrix_r_dof_joint[1],
           s.matrix_r_dof_coord[1]);
    g_clear_error(&error);
    gboolean ok = esl_run_settings_check(panel, &error);
    tap_ok(!ok && error && strstr(error->message, "1 degree of freedom but 2") &&
               find_label(GTK_WIDGET(panel), "2 of 1 chosen") != NULL,
           "two of one are refused: %s", error ? error->message : "(no message)");

    /* A point coordinate (points are behind an expander: open it to reach them). */
    set_checked(panel, "A · angle", FALSE);
    set_checked(panel, "D · angle", FALSE);
    GtkWidget *expander = gtk_widget_get_ancestor(
        find_label(GTK_WIDGET(panel), "Point coordinates"), GTK_TYPE_EXPANDER);
    gtk_expander_set_expanded(GTK_EXPANDER(expander), TRUE);
    set_checked(panel, "follower · C · y", TRUE);
    esl_run_settings_read(panel, &s);
    int C = mbs_model_find_point(m, mbs_model_find_body(m, "follower"), "C");
    g_clear_error(&error);
    tap_ok(s.matrix_r_ndofs == 1 && s.matrix_r_dof_joint[0] == -1 &&
               s.matrix_r_dof_point[0] == C && s.matrix_r_dof_axis[0] == 1 &&
               esl_run_settings_check(panel, &error),
           "a point coordinate: joint %d, point %d (want %d), axis %d", s.matrix_r_dof_joint[0],
           s.matrix_r_dof_point[0], C, s.matrix_r_dof_axis[0]);

    /* A stored run's choice is shown again, and read back. */
    MbsSettings stored;
    mbs_settings_defaults(&stored);
    int B = mbs_model_find_joint(m, "B");
    stored.matrix_r_ndofs = 2;
    stored.matrix_r_dof_joint[0] = B;
    stored.matrix_r_dof_coord[0] = 1;
    stored.matrix_r_dof_joint[1] = -1;
    stored.matrix_r_dof_point[1] = C;
    stored.matrix_r_dof_axis[1] = 2;
    esl_run_settings_show(panel, "matrix-r", &stored);
    esl_run_settings_read(panel, &s);
    tap_ok(is_checked(panel, "Chosen here") && is_checked(panel, "B · angle about axis 2") &&
               !is_checked(panel, "follower · C · y") && s.matrix_r_ndofs == 2 &&
               s.matrix_r_dof_joint[0] == B && s.matrix_r_dof_coord[0] == 1 &&
               s.matrix_r_dof_joint[1] == -1 && s.matrix_r_dof_point[1] == C &&
               s.matrix_r_dof_axis[1] == 2,
           "a stored run's choice is shown and read back");
    mbs_settings_defaults(&stored);
    esl_run_settings_show(panel, "matrix-r", &stored);
    esl_run_settings_read(panel, &s);
    tap_ok(is_checked(panel, "Automatic (pivoted QR of Φ_z)") && s.matrix_r_ndofs == 0 &&
               esl_run_settings_check(panel, NULL),
           "a stored run without a choice shows the automatic one");

    /* The same model with a degrees_of_freedom list: "from the model file", and nothing chosen
     * in the settings (the engine applies the model's list). */
    g_autofree char *json = NULL;
    g_file_get_contents(path, &json, NULL, NULL);
    g_autoptr(GString) listed = g_string_new(json);
    g_string_replace(listed, "\"initial\":",
                     "\"degrees_of_freedom\": [{\"joint\": \"D\"}], \"initial\":", 1);
    MbsModel *m2 = esl_model_load_string(listed->str, "listed.json", NULL, 0, NULL);
    esl_run_settings_set_model(panel, m2);
    esl_run_settings_read(panel, &s);
    tap_ok(m2 && m2->ndofs == 1 && is_checked(panel, "From the model file") &&
               s.matrix_r_ndofs == 0,
           "a model that lists its degrees of freedom: they are taken from the model file");
    GtkCheckButton *automatic = check_button(panel, "Automatic (pivoted QR of Φ_z)");
    gtk_check_button_set_active(automatic, TRUE);
    esl_run_settings_read(panel, &s);
    tap_ok(s.matrix_r_ndofs == MBS_MATRIX_R_AUTOMATIC,
           "automatic chosen for such a model: the run asks for the automatic partition");
    esl_run_settings_show(panel, "matrix-r", &s);
    tap_ok(is_checked(panel, "Automatic (pivoted QR of Φ_z)"),
           "and a stored run of it shows the automatic choice again");
    esl_run_settings_set_model(panel, NULL);
    mbs_model_free(m2);
    mbs_model_free(m);
}

/* ali3p reads the Jacobian settings only for a model with forces that vary with the state (in
 * natural coordinates gravity and constant forces give K = C = 0). */
static void test_uses_for_model(EslRunSettings *panel, const char *models_dir)
{
    static const struct {
        const char *file;
        gboolean springs;
    } cases[] = {{"four-bar-spatial.json", FALSE}, {"slider-crank.json", TRUE}};
    esl_run_settings_set_formulation(panel, "ali3p");
    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
        g_autofree char *path = g_build_filename(models_dir, cases[i].file, NULL);
        MbsModel *m = esl_model_load_file(path, NULL, 0, NULL);
        esl_run_settings_set_model(panel, m);
        tap_ok(m && row_visible(panel, "Jacobian") == cases[i].springs &&
                   row_visible(panel, "Jacobian threads") == cases[i].springs &&
                   row_visible(panel, "Newmark β"),
               "ali3p on %s: Jacobian rows %s", cases[i].file,
               cases[i].springs ? "shown (spring-damper)" : "hidden (no state-dependent force)");
        esl_run_settings_set_model(panel, NULL);
        mbs_model_free(m);
    }
    esl_run_settings_set_formulation(panel, "penalty");
    tap_ok(row_visible(panel, "Jacobian"), "penalty: the Jacobian row shown without a model");
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: test_run_settings MODELS_DIR\n");
        return 2;
    }
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
        want.threads = 1;
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
                   read.threads == 1 &&
                   (ali3p ? read.ali3p_solver == 2 : read.matrix_r_sparse == 1),
               "%s: every setting shown is read back (tolerance %g)", k->name,
               read.newton_tolerance);
        tap_ok(row_visible(panel, "Penalty α") == !!(k->uses & MBS_USES_PENALTY) &&
                   row_visible(panel, "Newmark β") == !!(k->uses & MBS_USES_NEWMARK) &&
                   row_visible(panel, "Integrator") == !!(k->uses & MBS_USES_INTEGRATOR) &&
                   row_visible(panel, "Projection") == !!(k->uses & MBS_USES_PROJECTION) &&
                   row_visible(panel, "Linear algebra") == !!(k->uses & MBS_USES_ALGEBRA) &&
                   row_visible(panel, "Repartition below") == !!(k->uses & MBS_USES_DOFS) &&
                   row_visible(panel, "Independent coordinates") ==
                       !!(k->uses & MBS_USES_DOFS) &&
                   row_visible(panel, "Jacobian threads") == !!(k->uses & MBS_USES_JACOBIAN) &&
                   row_visible(panel, "Step (s)"),
               "%s: only the settings it uses are shown", k->name);
    }
    MbsSettings automatic = defaults;
    esl_run_settings_show(panel, "penalty", &automatic);
    tap_ok(g_str_equal(row_text(panel, "Jacobian threads"), "automatic"),
           "0 Jacobian threads is shown as automatic: '%s'", row_text(panel, "Jacobian threads"));
    test_dofs(panel, argv[1]);
    test_uses_for_model(panel, argv[1]);
    g_object_unref(panel);
    return tap_done();
}
