/* The run settings panel (ui/esl-run-settings.c): what it shows is what a run gets, for every
 * setting and every formulation, and it offers only the settings the formulation uses. */
#include <gtk/gtk.h>
#include <math.h>
#include <string.h>

#include "esl-model-file.h"
#include "esl-run-settings.h"
#include "form_matrix_r.h"
#include "tap.h"

/* The label of a row with this text, the visible one when several formulations have a row of
 * that label (each formulation has its own rows). */
static GtkWidget *row_label(EslRunSettings *panel, const char *label)
{
    GtkWidget *grid = gtk_widget_get_first_child(GTK_WIDGET(panel)), *found = NULL;
    for (GtkWidget *c = gtk_widget_get_first_child(grid); c; c = gtk_widget_get_next_sibling(c))
        if (GTK_IS_LABEL(c) && g_str_equal(gtk_label_get_text(GTK_LABEL(c)), label) &&
            (!found || gtk_widget_get_visible(c)))
            found = c;
    return found;
}

static gboolean row_visible(EslRunSettings *panel, const char *label)
{
    GtkWidget *c = row_label(panel, label);
    return c && gtk_widget_get_visible(c);
}

/* Text of the widget next to a label (the editable of a spin button). */
static const char *row_text(EslRunSettings *panel, const char *label)
{
    GtkWidget *c = row_label(panel, label);
    return c ? gtk_editable_get_text(GTK_EDITABLE(gtk_widget_get_next_sibling(c))) : "";
}

static const MbsDofList *dofs_of(MbsSettings *s)
{
    return mbs_settings_value_for(s, "matrix-r", "dof");
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
    const MbsDofList *l = dofs_of(&s);
    tap_ok(l->count == 2 && l->items[0].joint == A && l->items[0].coordinate == 0 &&
               l->items[1].joint == D && l->items[1].coordinate == 0,
           "two joint coordinates chosen: %d DOFs, joints %d:%d and %d:%d", l->count,
           l->items[0].joint, l->items[0].coordinate, l->items[1].joint,
           l->items[1].coordinate);
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
    l = dofs_of(&s);
    tap_ok(l->count == 1 && l->items[0].joint == -1 && l->items[0].point == C &&
               l->items[0].axis == 1 && esl_run_settings_check(panel, &error),
           "a point coordinate: joint %d, point %d (want %d), axis %d", l->items[0].joint,
           l->items[0].point, C, l->items[0].axis);

    /* A stored run's choice is shown again, and read back. */
    MbsSettings stored;
    mbs_settings_defaults(&stored);
    int B = mbs_model_find_joint(m, "B");
    MbsDofList *chosen = mbs_settings_value_for(&stored, "matrix-r", "dof");
    chosen->count = 2;
    chosen->items[0] = (MbsDofChoice){B, 1, -1, 0};
    chosen->items[1] = (MbsDofChoice){-1, 0, C, 2};
    esl_run_settings_show(panel, "matrix-r", &stored);
    esl_run_settings_read(panel, &s);
    l = dofs_of(&s);
    tap_ok(is_checked(panel, "Chosen here") && is_checked(panel, "B · angle about axis 2") &&
               !is_checked(panel, "follower · C · y") && l->count == 2 &&
               l->items[0].joint == B && l->items[0].coordinate == 1 &&
               l->items[1].joint == -1 && l->items[1].point == C && l->items[1].axis == 2,
           "a stored run's choice is shown and read back");
    mbs_settings_defaults(&stored);
    esl_run_settings_show(panel, "matrix-r", &stored);
    esl_run_settings_read(panel, &s);
    tap_ok(is_checked(panel, "Automatic (pivoted QR of Φ_z)") && dofs_of(&s)->count == 0 &&
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
               dofs_of(&s)->count == 0,
           "a model that lists its degrees of freedom: they are taken from the model file");
    GtkCheckButton *automatic = check_button(panel, "Automatic (pivoted QR of Φ_z)");
    gtk_check_button_set_active(automatic, TRUE);
    esl_run_settings_read(panel, &s);
    tap_ok(dofs_of(&s)->count == MBS_MATRIX_R_AUTOMATIC,
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
        /* ali3p's K and C columns run on threads: its threads row goes with the Jacobian's */
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

/* Values away from the defaults, by setting name (each formulation takes those it has). */
static const struct {
    const char *name, *value;
} shown_values[] = {
    {"step", "0.0025"},         {"duration", "3.5"},         {"alpha", "3e8"},
    {"jacobian", "nd-forward"}, {"newton-tolerance", "1e-12"}, {"newton-iterations", "7"},
    {"newmark-beta", "0.3"},    {"newmark-gamma", "0.6"},    {"projection", "mdk"},
    {"integrator", "trapezoidal"}, {"algebra", "sparse"},    {"rcond", "0.25"},
    {"threads", "1"},           {"jacobian-reuse", "5"},     {"assembly-tolerance", "1e-11"},
};

/* Whether two settings agree on every setting of k (the logarithmic rows: to 1e-12). */
static gboolean same_settings(const MbsFormulationClass *k, const MbsSettings *a,
                              const MbsSettings *b, char *which, size_t size)
{
    MbsSettingRef all[MBS_SETTINGS_MAX];
    int n = mbs_settings_list(k->settings, all);
    for (int i = 0; i < n; i++) {
        char ta[1024], tb[1024];
        mbs_setting_format(a, &all[i], ta, sizeof ta);
        mbs_setting_format(b, &all[i], tb, sizeof tb);
        const MbsSetting *d = all[i].setting;
        gboolean same = strcmp(ta, tb) == 0;
        if (!same && d->type == MBS_SETTING_NUMBER && d->flags & MBS_SETTING_DECADES)
            same = fabs(mbs_setting_get_number(a, &all[i]) / mbs_setting_get_number(b, &all[i]) -
                        1) < 1e-12;
        if (!same) {
            g_snprintf(which, size, "%s: %s, read %s", d->name, ta, tb);
            return FALSE;
        }
    }
    g_snprintf(which, size, "all %d", n);
    return TRUE;
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
    mbs_settings_for(&defaults, mbs_formulation_find("penalty"));
    esl_run_settings_read(panel, &read);
    tap_ok(mbs_settings_number(&read, "newton-tolerance") ==
                   mbs_settings_number(&defaults, "newton-tolerance") &&
               mbs_settings_number(&read, "newton-iterations") ==
                   mbs_settings_number(&defaults, "newton-iterations") &&
               mbs_settings_number(&read, "alpha") == mbs_settings_number(&defaults, "alpha") &&
               read.step == defaults.step &&
               mbs_settings_number(&read, "jacobian") == mbs_settings_number(&defaults, "jacobian"),
           "the panel starts with the engine's defaults (tolerance %g, want %g)",
           mbs_settings_number(&read, "newton-tolerance"),
           mbs_settings_number(&defaults, "newton-tolerance"));

    tap_ok(g_str_equal(row_text(panel, "Newton tolerance"), "1e-10") &&
               g_str_equal(row_text(panel, "Penalty α"), "1e+09"),
           "tolerance and penalty are shown as numbers: '%s', '%s'",
           row_text(panel, "Newton tolerance"), row_text(panel, "Penalty α"));

    for (int i = 0; i < mbs_formulation_count(); i++) {
        const MbsFormulationClass *k = mbs_formulation_class(i);
        MbsSettings want;
        mbs_settings_defaults(&want);
        mbs_settings_for(&want, k);
        for (size_t v = 0; v < G_N_ELEMENTS(shown_values); v++) {
            MbsSettingRef r;
            if (mbs_settings_find(k->settings, shown_values[v].name, &r) == 0)
                mbs_setting_set_text(&want, &r, shown_values[v].value, NULL);
        }
        esl_run_settings_show(panel, k->name, &want);
        esl_run_settings_read(panel, &read);
        char which[1200];
        tap_ok(esl_run_settings_get_formulation(panel) == k &&
                   same_settings(k, &want, &read, which, sizeof which),
               "%s: every setting shown is read back (%s)", k->name, which);

        /* Every setting of its table, each away from its default, through the rows. */
        MbsSettings away = want;
        MbsSettingRef all[MBS_SETTINGS_MAX];
        int n = mbs_settings_list(k->settings, all);
        for (int s = 0; s < n; s++) {
            const MbsSetting *d = all[s].setting;
            if (d->type == MBS_SETTING_CHOICE)
                mbs_setting_set_number(&away, &all[s],
                                       ((int)d->default_value + 1) % mbs_setting_choice_count(d),
                                       NULL);
            else if (d->type == MBS_SETTING_INTEGER)
                mbs_setting_set_number(&away, &all[s], d->default_value + 2, NULL);
            else if (d->type == MBS_SETTING_NUMBER)
                mbs_setting_set_number(&away, &all[s],
                                       d->default_value * (d->max >= 1.0 && d->default_value <= 0.5
                                                               ? 1.0 + 1.0 / 7.0
                                                               : 1.0 - 1.0 / 7.0),
                                       NULL);
        }
        esl_run_settings_show(panel, k->name, &away);
        esl_run_settings_read(panel, &read);
        tap_ok(same_settings(k, &away, &read, which, sizeof which),
               "%s: each of its %d settings set in its row is read back (%s)", k->name, n,
               which);

        /* Its rows are shown when its settings apply (no model: whatever the model); the rows
         * of the other formulations' settings are hidden. */
        esl_run_settings_show(panel, k->name, &want);
        gboolean rows_right = row_visible(panel, "Step (s)");
        for (int j = 0; j < mbs_formulation_count(); j++) {
            const MbsFormulationClass *other = mbs_formulation_class(j);
            MbsSettingRef theirs[MBS_SETTINGS_MAX];
            int m = mbs_settings_list(other->settings, theirs);
            for (int s = 0; s < m; s++) {
                const MbsSetting *d = theirs[s].setting;
                g_autofree char *label =
                    d->unit ? g_strdup_printf("%s (%s)", d->label, d->unit) : g_strdup(d->label);
                MbsSettingRef mine;
                gboolean has = mbs_settings_find(k->settings, d->name, &mine) == 0 &&
                               g_str_equal(mine.setting->label, d->label);
                gboolean want_visible = has && mbs_setting_applies(&mine, NULL, &want);
                if (!(has || !want_visible) || row_visible(panel, label) != want_visible) {
                    if (!has && row_visible(panel, label))
                        ; /* a label another formulation shares with one of k's: checked as k's */
                    else {
                        tap_diag("%s: row '%s' visible %d, want %d", k->name, label,
                                 row_visible(panel, label), want_visible);
                        rows_right = FALSE;
                    }
                }
            }
        }
        tap_ok(rows_right, "%s: only the settings it uses are shown", k->name);
    }
    /* matrix-r's Jacobian reuse is read by its trapezoidal rule only */
    MbsSettings rk4;
    mbs_settings_defaults(&rk4);
    mbs_settings_set_for(&rk4, "matrix-r", "integrator", "rk4", NULL);
    esl_run_settings_show(panel, "matrix-r", &rk4);
    gboolean hidden = !row_visible(panel, "Jacobian reuse");
    mbs_settings_set_for(&rk4, "matrix-r", "integrator", "trapezoidal", NULL);
    esl_run_settings_show(panel, "matrix-r", &rk4);
    tap_ok(hidden && row_visible(panel, "Jacobian reuse"),
           "matrix-r: the Jacobian reuse row is shown for the trapezoidal rule only");
    MbsSettings automatic;
    mbs_settings_defaults(&automatic);
    esl_run_settings_show(panel, "penalty", &automatic);
    tap_ok(g_str_equal(row_text(panel, "Jacobian threads"), "automatic"),
           "0 Jacobian threads is shown as automatic: '%s'", row_text(panel, "Jacobian threads"));
    /* The AD methods are choices of the Jacobian row (generated from the table), and a run gets
     * them from the panel. */
    for (int method = MBS_JACOBIAN_AD; method <= MBS_JACOBIAN_AD_SPARSE; ++method) {
        MbsSettings ad;
        mbs_settings_defaults(&ad);
        mbs_settings_set_for(&ad, "penalty", "jacobian", mbs_jacobian_method_name(method), NULL);
        esl_run_settings_show(panel, "penalty", &ad);
        esl_run_settings_read(panel, &read);
        tap_ok(mbs_settings_number(&read, "jacobian") == method,
               "penalty: the Jacobian row offers %s and a run reads it (%g)",
               mbs_jacobian_method_name(method), mbs_settings_number(&read, "jacobian"));
    }
    /* Each formulation's Jacobian row offers only the methods it computes, from the engine's
     * table (mbs_formulation_offers_jacobian), and a chosen one reaches the run. */
    for (int i = 0; i < mbs_formulation_count(); i++) {
        const MbsFormulationClass *k = mbs_formulation_class(i);
        MbsSettings mine;
        mbs_settings_defaults(&mine);
        mbs_settings_for(&mine, k);
        if (!mbs_settings_value_for(&mine, k->name, "jacobian"))
            continue; /* ssode has no Jacobian row */
        if (!strcmp(k->name, "matrix-r")) /* its row is shown for the trapezoidal rule */
            mbs_settings_set_for(&mine, k->name, "integrator", "trapezoidal", NULL);
        esl_run_settings_show(panel, k->name, &mine);
        GtkWidget *label = row_label(panel, "Jacobian");
        GListModel *offered = label ? gtk_drop_down_get_model(GTK_DROP_DOWN(
                                          gtk_widget_get_next_sibling(label)))
                                    : NULL;
        int want = 0, reads = 1;
        for (int method = 0; method < MBS_JACOBIAN_COUNT; ++method) {
            if (!mbs_formulation_offers_jacobian(k, method))
                continue;
            want++;
            MbsSettings chosen = mine;
            mbs_settings_set_for(&chosen, k->name, "jacobian", mbs_jacobian_method_name(method),
                                 NULL);
            esl_run_settings_show(panel, k->name, &chosen);
            esl_run_settings_read(panel, &read);
            reads &= mbs_settings_number(&read, "jacobian") == method;
        }
        guint shown = offered ? g_list_model_get_n_items(offered) : 0;
        tap_ok(shown == (guint)want && reads && want >= 2,
               "%s: the Jacobian row offers its %d methods (%u shown), each read back", k->name,
               want, shown);
    }
    test_dofs(panel, argv[1]);
    test_uses_for_model(panel, argv[1]);
    g_object_unref(panel);
    return tap_done();
}
