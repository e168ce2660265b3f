/* The gradient table; see esl-gradient-table.h. */
#include "esl-gradient-table.h"

#include <glib/gi18n.h>
#include <math.h>

#include "esl-number.h"
#include "esl-wheel.h"

struct _EslGradientTable {
    GtkWidget parent_instance;
    GtkWidget *scroller, *grid;
};

G_DEFINE_FINAL_TYPE(EslGradientTable, esl_gradient_table, GTK_TYPE_WIDGET)

static GtkWidget *cell(EslGradientTable *self, const char *text, int column, int row,
                       gboolean heading)
{
    GtkWidget *label = gtk_label_new(text);
    gtk_label_set_xalign(GTK_LABEL(label), heading && column == 0 ? 0.0f : 1.0f);
    gtk_label_set_selectable(GTK_LABEL(label), !heading);
    if (heading)
        gtk_widget_add_css_class(label, "heading");
    else
        gtk_widget_add_css_class(label, "numeric");
    gtk_grid_attach(GTK_GRID(self->grid), label, column, row, 1, 1);
    return label;
}

/* The table asks for the height of its rows (whoever shows it scrolls, as the plot board does)
 * and for the width of its columns up to MAX_MIN_WIDTH, beyond which it scrolls sideways:
 * the five-bar's 3 objectives x 5 parameters fit in that width, which leaves the plot board
 * between the side panels at 1280x720 (about 590 px there). */
#define MAX_MIN_WIDTH 520

static void fit_cells(EslGradientTable *self)
{
    int width = 0;
    gtk_widget_measure(self->grid, GTK_ORIENTATION_HORIZONTAL, -1, NULL, &width, NULL, NULL);
    gtk_scrolled_window_set_min_content_width(GTK_SCROLLED_WINDOW(self->scroller),
                                              MIN(width, MAX_MIN_WIDTH));
}

void esl_gradient_table_set_run(EslGradientTable *self, const EslSensitivityRun *run)
{
    GtkWidget *child;
    while ((child = gtk_widget_get_first_child(self->grid)))
        gtk_grid_remove(GTK_GRID(self->grid), child);
    if (!run) {
        fit_cells(self);
        return;
    }
    /* psi has a row of its own under the objectives' names (not "psi1 = 0.726872" headings):
     * narrow enough for the five-bar's 3 objectives in the board at 1280x720 */
    g_autofree char *corner = g_strdup_printf(_("∂ψ/∂ρ (%s)"), run->method);
    cell(self, corner, 0, 0, TRUE);
    cell(self, _("ρ"), 1, 0, TRUE);
    GtkWidget *psi = cell(self, "ψ", 0, 1, TRUE);
    gtk_widget_set_tooltip_text(psi, _("The objectives at the end of the run"));
    for (int i = 0; i < run->nobjectives; i++) {
        cell(self, run->objectives[i], 2 + i, 0, TRUE);
        g_autofree char *value = run->psi ? esl_number_to_text(run->psi[i], 6, NULL)
                                          : g_strdup("—");
        cell(self, value, 2 + i, 1, FALSE);
    }
    for (int k = 0; k < run->nparameters; k++) {
        cell(self, run->parameters[k], 0, 2 + k, TRUE);
        g_autofree char *value = esl_number_to_text(run->parameter_values[k], 6, NULL);
        cell(self, value, 1, 2 + k, FALSE);
        for (int i = 0; i < run->nobjectives; i++) {
            g_autofree char *d =
                run->gradient ? esl_number_to_text(run->gradient[i * run->nparameters + k], 6,
                                                   NULL)
                              : g_strdup("—");
            cell(self, d, 2 + i, 2 + k, FALSE);
        }
    }
    if (!run->gradient) {
        GtkWidget *note = gtk_label_new(_("No gradient stored: the run did not finish (its "
                                          "history up to where it stopped is plotted)."));
        gtk_label_set_wrap(GTK_LABEL(note), TRUE);
        gtk_label_set_max_width_chars(GTK_LABEL(note), 50); /* not the table's width */
        gtk_label_set_xalign(GTK_LABEL(note), 0.0f);
        gtk_grid_attach(GTK_GRID(self->grid), note, 0, 2 + run->nparameters,
                        2 + run->nobjectives, 1);
    }
    fit_cells(self);
}

gboolean esl_gradient_table_set_runs(EslGradientTable *self, EslSensitivityRun *const *runs,
                                     int n)
{
    GtkWidget *child;
    while ((child = gtk_widget_get_first_child(self->grid)))
        gtk_grid_remove(GTK_GRID(self->grid), child);
    const EslSensitivityRun *a = runs[0];
    for (int r = 1; r < n; r++)
        if (runs[r]->nobjectives != a->nobjectives || runs[r]->nparameters != a->nparameters ||
            !g_strv_equal((const char *const *)runs[r]->objectives,
                          (const char *const *)a->objectives) ||
            !g_strv_equal((const char *const *)runs[r]->parameters,
                          (const char *const *)a->parameters)) {
            fit_cells(self);
            return FALSE;
        }
    cell(self, _("Derivative"), 0, 0, TRUE);
    for (int r = 0; r < n; r++)
        cell(self, runs[r]->method, 1 + r, 0, TRUE);
    GtkWidget *head = cell(self, _("rel. difference"), 1 + n, 0, TRUE);
    gtk_widget_set_tooltip_text(head, _("Largest relative difference: max |a − b| / max |a| over the runs' values of the row"));
    int row = 1;
    for (int i = 0; i < a->nobjectives; i++)
        for (int k = 0; k < a->nparameters; k++, row++) {
            g_autofree char *name = g_strdup_printf("∂%s/∂%s", a->objectives[i], a->parameters[k]);
            cell(self, name, 0, row, TRUE);
            double lo = INFINITY, hi = -INFINITY, scale = 0.0;
            gboolean all = TRUE;
            for (int r = 0; r < n; r++) {
                const double *g = runs[r]->gradient;
                double v = g ? g[i * a->nparameters + k] : NAN;
                g_autofree char *text = g ? esl_number_to_text(v, 6, NULL) : g_strdup("—");
                cell(self, text, 1 + r, row, FALSE);
                all = all && g;
                if (g) {
                    lo = fmin(lo, v), hi = fmax(hi, v);
                    scale = fmax(scale, fabs(v));
                }
            }
            g_autofree char *diff = !all         ? g_strdup("—")
                                    : scale == 0 ? g_strdup("0")
                                                 : g_strdup_printf("%.1e", (hi - lo) / scale);
            cell(self, diff, 1 + n, row, FALSE);
        }
    fit_cells(self);
    return TRUE;
}

const char *esl_gradient_table_grid_text(EslGradientTable *self, int column, int row)
{
    GtkWidget *c = gtk_grid_get_child_at(GTK_GRID(self->grid), column, row);
    return GTK_IS_LABEL(c) ? gtk_label_get_text(GTK_LABEL(c)) : NULL;
}

const char *esl_gradient_table_cell_text(EslGradientTable *self, int k, int i)
{
    GtkWidget *c = gtk_grid_get_child_at(GTK_GRID(self->grid), 2 + i, 2 + k);
    return GTK_IS_LABEL(c) ? gtk_label_get_text(GTK_LABEL(c)) : NULL;
}

static void esl_gradient_table_dispose(GObject *object)
{
    EslGradientTable *self = ESL_GRADIENT_TABLE(object);
    g_clear_pointer(&self->scroller, gtk_widget_unparent);
    G_OBJECT_CLASS(esl_gradient_table_parent_class)->dispose(object);
}

static void esl_gradient_table_class_init(EslGradientTableClass *klass)
{
    G_OBJECT_CLASS(klass)->dispose = esl_gradient_table_dispose;
    gtk_widget_class_set_layout_manager_type(GTK_WIDGET_CLASS(klass), GTK_TYPE_BIN_LAYOUT);
    gtk_widget_class_set_css_name(GTK_WIDGET_CLASS(klass), "eslgradienttable");
}

static void esl_gradient_table_init(EslGradientTable *self)
{
    self->scroller = gtk_scrolled_window_new();
    gtk_scrolled_window_set_policy(GTK_SCROLLED_WINDOW(self->scroller), GTK_POLICY_AUTOMATIC,
                                   GTK_POLICY_NEVER);
    esl_wheel_vertical_to_parent(self->scroller); /* the wheel scrolls the board */
    self->grid = gtk_grid_new();
    gtk_grid_set_column_spacing(GTK_GRID(self->grid), 12);
    gtk_grid_set_row_spacing(GTK_GRID(self->grid), 4);
    gtk_widget_set_margin_start(self->grid, 8);
    gtk_widget_set_margin_end(self->grid, 8);
    gtk_widget_set_margin_top(self->grid, 8);
    gtk_scrolled_window_set_child(GTK_SCROLLED_WINDOW(self->scroller), self->grid);
    gtk_widget_set_parent(self->scroller, GTK_WIDGET(self));
}

GtkWidget *esl_gradient_table_new(void)
{
    return g_object_new(ESL_TYPE_GRADIENT_TABLE, NULL);
}
