/* Rows of settings from their descriptors; see esl-setting-row.h. */
#include "esl-setting-row.h"

#include <glib/gi18n.h>
#include <math.h>

#include "esl-drop-down.h"
#include "esl-number.h"
#include "esl-wheel.h"

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
    /* the fewest digits that read back as the logarithm held: 10^log10(6e-6) is
     * 6.0000000000000027e-06, shown as 6e-06 */
    double held = gtk_spin_button_get_value(spin), x = pow(10, held), back;
    for (int digits = 1; digits < 17; digits++) {
        g_autofree char *text = esl_number_to_text(x, digits, NULL);
        if (esl_number_from_text(text, &back) && back > 0 && log10(back) == held) {
            set_spin_text(spin, text);
            return TRUE;
        }
    }
    g_autofree char *text = esl_number_to_text(x, 0, NULL);
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

/* The position of choice value in the row's drop-down, GTK_INVALID_LIST_POSITION when it is
 * not offered there. */
static guint choice_position(const EslSettingRow *row, int value)
{
    for (int i = 0; i < row->nchoices; i++)
        if (row->choice_at[i] == value)
            return (guint)i;
    return GTK_INVALID_LIST_POSITION;
}

/* The control for a setting that is not a list, from its descriptor. */
static GtkWidget *setting_widget(EslSettingRow *row)
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
        return esl_drop_down_new(list);
    }
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

/* Label and control side by side; a section (a list) spans both columns: a heading, and the
 * widget under it. */
static void attach(EslSettingRow *row, GtkGrid *grid, int *next_row)
{
    const MbsSetting *d = row->ref.setting;
    gboolean section = d->type == MBS_SETTING_LIST;
    gtk_label_set_xalign(GTK_LABEL(row->label), 0);
    /* a long label ("Damping near singular positions", longer in Spanish) wraps rather than
     * widening the panel; the usual ones ("Assembly tolerance") keep one line */
    gtk_label_set_wrap(GTK_LABEL(row->label), TRUE);
    gtk_label_set_width_chars(GTK_LABEL(row->label), 18);
    gtk_label_set_natural_wrap_mode(GTK_LABEL(row->label), GTK_NATURAL_WRAP_WORD);
    gtk_widget_set_hexpand(row->widget, TRUE);
    if (d->description) {
        gtk_widget_set_tooltip_text(row->label, _(d->description));
        gtk_widget_set_tooltip_text(row->widget, _(d->description));
    }
    gtk_grid_attach(grid, row->label, 0, *next_row, section ? 2 : 1, 1);
    gtk_grid_attach(grid, row->widget, section ? 0 : 1, *next_row + (section ? 1 : 0),
                    section ? 2 : 1, 1);
    *next_row += section ? 2 : 1;
}

void esl_setting_rows_add(GPtrArray *rows, GtkGrid *grid, int *next_row,
                          const MbsFormulationClass *klass, const MbsSettingTable *table,
                          EslSettingListWidget make_list, GCallback changed, gpointer data)
{
    MbsSettingRef all[MBS_SETTINGS_MAX];
    int n = mbs_settings_list(table, all);
    for (int i = 0; i < n; i++) {
        const MbsSetting *d = all[i].setting;
        if ((table && !all[i].in_options) || (d->type == MBS_SETTING_LIST && !make_list))
            continue; /* the common rows are made once */
        EslSettingRow *row = g_new0(EslSettingRow, 1);
        row->klass = klass;
        row->ref = all[i];
        row->model_ok = TRUE;
        g_autofree char *label = d->unit ? g_strdup_printf("%s (%s)", _(d->label), d->unit)
                                         : g_strdup(_(d->label));
        row->label = gtk_label_new(label);
        row->widget = d->type == MBS_SETTING_LIST ? make_list(data) : setting_widget(row);
        if (changed && d->type == MBS_SETTING_CHOICE)
            g_signal_connect_swapped(row->widget, "notify::selected", changed, data);
        attach(row, grid, next_row);
        g_ptr_array_add(rows, row);
    }
}

/* The value, with text typed but not yet confirmed taken in (a spin button that has not been
 * shown yet has no text, and nothing to take in). */
static double spin_value(GtkWidget *w)
{
    if (*gtk_editable_get_text(GTK_EDITABLE(w)))
        gtk_spin_button_update(GTK_SPIN_BUTTON(w));
    return gtk_spin_button_get_value(GTK_SPIN_BUTTON(w));
}

/* The number a logarithmic spin button holding held shows (6e-06, not 10^log10(6e-6) =
 * 6.0000000000000027e-06): its text when that is the value held, else 10^held. */
static double power_value(GtkWidget *w, double held)
{
    double shown;
    if (esl_number_from_text(gtk_editable_get_text(GTK_EDITABLE(w)), &shown) && shown > 0 &&
        log10(shown) == held)
        return shown;
    return pow(10, held);
}

void esl_setting_row_read(const EslSettingRow *row, MbsSettings *s)
{
    const MbsSetting *d = row->ref.setting;
    switch (d->type) {
    case MBS_SETTING_CHOICE: {
        /* a value not offered (from a project) shows no choice and stays, for the engine to
         * refuse naming the formulation */
        guint position = gtk_drop_down_get_selected(GTK_DROP_DOWN(row->widget));
        if (position != GTK_INVALID_LIST_POSITION && (int)position < row->nchoices)
            mbs_setting_set_number(s, &row->ref, row->choice_at[position], NULL);
        break;
    }
    case MBS_SETTING_LIST:
        g_return_if_reached(); /* the panel's own */
    default: {
        double v = spin_value(row->widget);
        if (d->flags & MBS_SETTING_DECADES && d->max <= 1.0)
            v = power_value(row->widget, v); /* held as its logarithm: see spin_power */
        /* the spin button keeps it within the range; the engine checks it again */
        if (d->type == MBS_SETTING_NUMBER)
            *(double *)mbs_setting_value(s, &row->ref) = v;
        else
            *(int *)mbs_setting_value(s, &row->ref) = (int)lround(v);
    }
    }
}

void esl_setting_row_show(const EslSettingRow *row, const MbsSettings *s)
{
    const MbsSetting *d = row->ref.setting;
    switch (d->type) {
    case MBS_SETTING_CHOICE:
        gtk_drop_down_set_selected(GTK_DROP_DOWN(row->widget),
                                   choice_position(row, (int)mbs_setting_get_number(s, &row->ref)));
        break;
    case MBS_SETTING_LIST:
        g_return_if_reached(); /* the panel's own */
    default: {
        double v = mbs_setting_get_number(s, &row->ref);
        if (d->flags & MBS_SETTING_DECADES && d->max <= 1.0)
            v = log10(v);
        gtk_spin_button_set_value(GTK_SPIN_BUTTON(row->widget), v);
    }
    }
}

void esl_setting_row_set_visible(EslSettingRow *row, gboolean visible)
{
    gtk_widget_set_visible(row->label, visible);
    gtk_widget_set_visible(row->widget, visible);
}
