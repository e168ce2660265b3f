/* The Step Through view; see esl-step-view.h. */
#include "esl-step-view.h"

#include <glib/gi18n.h>
#include <math.h>

#include "esl-model-file.h"
#include "esl-number.h"
#include "esl-step-trace.h"

/* The residual bar's log scale: 1 (full) down to 1e-16 (empty). */
#define BAR_DECADES 16.0
/* Spy plots: magnitudes over this many decades below the largest are told apart by colour. */
#define SPY_DECADES 12.0
#define SPY_SIZE 280

struct _EslStepView {
    GtkWindow parent_instance;
    GtkWidget *summary_label, *paned, *phase_list, *phase_label, *matrix_box;
    MbsTrace *trace;
    GCancellable *cancellable;
    int selected;
};

G_DEFINE_FINAL_TYPE(EslStepView, esl_step_view, GTK_TYPE_WINDOW)

enum { SIGNAL_TRACED, N_SIGNALS };
static guint signals[N_SIGNALS];

typedef struct {
    char *json, *formulation;
    MbsSettings settings;
    double at;
} TraceJob;

static void trace_job_free(TraceJob *job)
{
    g_free(job->json);
    g_free(job->formulation);
    g_free(job);
}

static char *number(double v)
{
    return isfinite(v) ? esl_number_to_text(v, 3, NULL) : g_strdup("—");
}

/* Blue (small) to yellow (large) through green: t in [0, 1]. */
static void magnitude_colour(double t, double rgb[3])
{
    static const double stops[4][3] = {
        {0.23, 0.30, 0.75}, {0.13, 0.57, 0.55}, {0.37, 0.79, 0.38}, {0.99, 0.85, 0.15}};
    t = fmin(fmax(t, 0.0), 1.0) * 3.0;
    int i = t >= 3.0 ? 2 : (int)t;
    double f = t - i;
    for (int k = 0; k < 3; ++k)
        rgb[k] = stops[i][k] + f * (stops[i + 1][k] - stops[i][k]);
}

static void draw_spy(GtkDrawingArea *area, cairo_t *cr, int width, int height, gpointer data)
{
    (void)area;
    const MbsTrace *t = g_object_get_data(G_OBJECT(area), "trace");
    const MbsTraceMatrix *x = &t->matrices[GPOINTER_TO_INT(data)];
    if (x->rows <= 0 || x->cols <= 0)
        return;
    double cell = fmin((width - 2.0) / x->cols, (height - 2.0) / x->rows);
    double w = cell * x->cols, h = cell * x->rows;
    double ox = 0.5 * (width - w), oy = 0.5 * (height - h);
    cairo_set_source_rgb(cr, 1, 1, 1);
    cairo_rectangle(cr, ox, oy, w, h);
    cairo_fill(cr);
    double largest = 0.0;
    for (long k = 0; x->stored && k < x->nonzeros; ++k)
        largest = fmax(largest, fabs(t->value[x->first + (size_t)k]));
    double dot = fmax(cell, 1.0);
    for (long k = 0; x->stored && k < x->nonzeros; ++k) {
        size_t at = x->first + (size_t)k;
        double rgb[3];
        magnitude_colour(1.0 + log10(fabs(t->value[at]) / largest) / SPY_DECADES, rgb);
        cairo_set_source_rgb(cr, rgb[0], rgb[1], rgb[2]);
        cairo_rectangle(cr, ox + cell * t->col[at], oy + cell * t->row[at], dot, dot);
        cairo_fill(cr);
    }
    cairo_set_source_rgb(cr, 0.3, 0.3, 0.3);
    cairo_set_line_width(cr, 1.0);
    cairo_rectangle(cr, ox - 0.5, oy - 0.5, w + 1.0, h + 1.0);
    cairo_stroke(cr);
}

static void show_matrices(EslStepView *self)
{
    GtkWidget *child;
    while ((child = gtk_widget_get_first_child(self->matrix_box)))
        gtk_flow_box_remove(GTK_FLOW_BOX(self->matrix_box), child);
    const MbsTrace *t = self->trace;
    if (!t || self->selected < 0 || self->selected >= t->nphases) {
        gtk_label_set_text(GTK_LABEL(self->phase_label), "");
        return;
    }
    const MbsTracePhase *p = &t->phases[self->selected];
    g_autofree char *name = esl_step_trace_phase_label(p);
    g_autofree char *res = number(p->residual), *cor = number(p->correction);
    g_autofree char *bound = number(p->bound), *after = number(p->residual_after);
    g_autofree char *phi = number(p->constraint);
    g_autofree char *text = NULL;
    switch (p->kind) {
    case MBS_TRACE_PREDICTOR:
        text = g_strdup_printf(_("%s: initial guess of the positions from the last step's "
                                 "velocities and accelerations; it moves them by %s."),
                               name, cor);
        break;
    case MBS_TRACE_NEWTON:
        text = g_strdup_printf(_("%s: residual ‖r‖∞ = %s, correction ‖Δ‖∞ = %s (converged "
                                 "below %s: %s), constraints ‖Φ‖ = %s; tangent K, C "
                                 "evaluated: %s."),
                               name, res, cor, bound, p->converged ? _("yes") : _("no"), phi,
                               p->tangent_evaluated ? _("yes") : _("no"));
        break;
    case MBS_TRACE_POSITION_NEWTON:
        text = g_strdup_printf(_("%s: position problem, dependent coordinates from the "
                                 "independent ones: max |Φ| = %s, correction ‖Δ‖∞ = %s "
                                 "(converged below %s: %s)."),
                               name, res, cor, bound, p->converged ? _("yes") : _("no"));
        break;
    case MBS_TRACE_EVALUATION:
        text = g_strdup_printf(_("%s: velocity problem solved, R and the reduced mass matrix "
                                 "Rᵀ M R of the independent accelerations built."),
                               name);
        break;
    default:
        text = g_strdup_printf(_("%s (%d iterations): constraint residual %s before, %s after; "
                                 "largest change %s."),
                               name, p->iteration, res, after, cor);
        break;
    }
    if (p->matrix_count == 0) {
        g_autofree char *more = g_strdup_printf(
            "%s %s", text, _("This phase builds no matrix."));
        gtk_label_set_text(GTK_LABEL(self->phase_label), more);
    } else {
        gtk_label_set_text(GTK_LABEL(self->phase_label), text);
    }
    for (int k = 0; k < p->matrix_count; ++k) {
        int i = p->matrix_first + k;
        const MbsTraceMatrix *x = &t->matrices[i];
        GtkWidget *box = gtk_box_new(GTK_ORIENTATION_VERTICAL, 2);
        GtkWidget *area = gtk_drawing_area_new();
        gtk_drawing_area_set_content_width(GTK_DRAWING_AREA(area), SPY_SIZE);
        gtk_drawing_area_set_content_height(GTK_DRAWING_AREA(area), SPY_SIZE);
        g_object_set_data(G_OBJECT(area), "trace", self->trace);
        gtk_drawing_area_set_draw_func(GTK_DRAWING_AREA(area), draw_spy, GINT_TO_POINTER(i),
                                       NULL);
        double fill = 100.0 * (double)x->nonzeros / ((double)x->rows * x->cols);
        g_autofree char *fill_text = esl_number_to_text(fill, 3, NULL);
        g_autofree char *caption = g_strdup_printf(
            _("%s: %d × %d, %ld nonzeros (%s %%)\n%s"), x->name, x->rows, x->cols, x->nonzeros,
            fill_text, x->formula ? x->formula : "");
        if (!x->stored) {
            char *longer = g_strdup_printf("%s\n%s", caption,
                                           _("Too large to keep: not drawn."));
            g_free(caption);
            caption = longer;
        }
        GtkWidget *label = gtk_label_new(caption);
        gtk_label_set_wrap(GTK_LABEL(label), TRUE);
        gtk_label_set_max_width_chars(GTK_LABEL(label), 40);
        gtk_widget_set_name(label, "caption");
        gtk_box_append(GTK_BOX(box), area);
        gtk_box_append(GTK_BOX(box), label);
        gtk_flow_box_append(GTK_FLOW_BOX(self->matrix_box), box);
    }
}

static GtkWidget *phase_row(const MbsTracePhase *p)
{
    GtkWidget *grid = gtk_grid_new();
    gtk_grid_set_column_spacing(GTK_GRID(grid), 8);
    g_autofree char *name = esl_step_trace_phase_label(p);
    GtkWidget *label = gtk_label_new(name);
    gtk_label_set_xalign(GTK_LABEL(label), 0.0f);
    gtk_widget_set_size_request(label, 150, -1);
    gtk_grid_attach(GTK_GRID(grid), label, 0, 0, 1, 1);
    /* Newton: residual -> correction; projections: before -> after */
    int newton = p->kind == MBS_TRACE_NEWTON || p->kind == MBS_TRACE_POSITION_NEWTON;
    double first = p->residual, second = newton ? p->correction : p->residual_after;
    if (p->kind == MBS_TRACE_PREDICTOR)
        first = p->correction, second = NAN;
    g_autofree char *a = number(first), *b = number(second);
    g_autofree char *values = isfinite(second) ? g_strdup_printf("%s → %s", a, b) : g_strdup(a);
    GtkWidget *v = gtk_label_new(values);
    gtk_label_set_xalign(GTK_LABEL(v), 0.0f);
    gtk_widget_add_css_class(v, "numeric");
    gtk_grid_attach(GTK_GRID(grid), v, 1, 0, 1, 1);
    GtkWidget *bar = gtk_level_bar_new_for_interval(0.0, 1.0);
    /* one colour: the length is the information, not a good/bad threshold */
    gtk_level_bar_remove_offset_value(GTK_LEVEL_BAR(bar), GTK_LEVEL_BAR_OFFSET_LOW);
    gtk_level_bar_remove_offset_value(GTK_LEVEL_BAR(bar), GTK_LEVEL_BAR_OFFSET_HIGH);
    gtk_level_bar_remove_offset_value(GTK_LEVEL_BAR(bar), GTK_LEVEL_BAR_OFFSET_FULL);
    double shown = p->kind == MBS_TRACE_PREDICTOR ? p->correction : p->residual;
    gtk_level_bar_set_value(GTK_LEVEL_BAR(bar),
                            isfinite(shown) && shown > 0
                                ? fmin(fmax(1.0 + log10(shown) / BAR_DECADES, 0.0), 1.0)
                                : 0.0);
    gtk_widget_set_hexpand(bar, TRUE);
    gtk_widget_set_valign(bar, GTK_ALIGN_CENTER);
    gtk_grid_attach(GTK_GRID(grid), bar, 0, 1, 2, 1);
    return grid;
}

static void on_row_selected(EslStepView *self, GtkListBoxRow *row)
{
    self->selected = row ? gtk_list_box_row_get_index(row) : -1;
    show_matrices(self);
}

static void show_trace(EslStepView *self, MbsTrace *t, const char *failure)
{
    g_clear_pointer(&self->trace, mbs_trace_free);
    self->trace = t;
    self->selected = -1;
    GtkListBoxRow *row;
    while ((row = gtk_list_box_get_row_at_index(GTK_LIST_BOX(self->phase_list), 0)))
        gtk_list_box_remove(GTK_LIST_BOX(self->phase_list), GTK_WIDGET(row));
    show_matrices(self);
    if (!t) {
        g_autofree char *text = g_strdup_printf(_("Cannot trace the step: %s"), failure);
        gtk_label_set_text(GTK_LABEL(self->summary_label), text);
        return;
    }
    g_autofree char *t0 = esl_number_to_text(t->time, 6, NULL);
    g_autofree char *t1 = esl_number_to_text(t->time + t->step, 6, NULL);
    g_autofree char *h = esl_number_to_text(t->step, 6, NULL);
    int newton = 0;
    for (int i = 0; i < t->nphases; ++i)
        newton += t->phases[i].kind == MBS_TRACE_NEWTON ||
                  t->phases[i].kind == MBS_TRACE_POSITION_NEWTON;
    g_autofree char *summary = g_strdup_printf(
        _("%s: the step from t = %s s to %s s (h = %s s), %d Newton iterations"),
        t->formulation, t0, t1, h, newton);
    if (t->message[0]) {
        char *longer = g_strdup_printf("%s. %s", summary, t->message);
        g_free(summary);
        summary = longer;
    }
    gtk_label_set_text(GTK_LABEL(self->summary_label), summary);
    for (int i = 0; i < t->nphases; ++i)
        gtk_list_box_append(GTK_LIST_BOX(self->phase_list), phase_row(&t->phases[i]));
    /* the first phase that builds matrices (penalty, ali3p: the first Newton iteration, with
     * M, Phi and the leading matrix) */
    for (int i = 0; i < t->nphases; ++i)
        if (t->phases[i].matrix_count > 0) {
            esl_step_view_select_phase(self, i);
            break;
        }
}

static void trace_thread(GTask *task, gpointer source, gpointer data, GCancellable *cancel)
{
    (void)source;
    (void)cancel;
    TraceJob *job = data;
    GError *error = NULL;
    MbsModel *m = esl_model_load_string(job->json, "model", NULL, 0, &error);
    MbsTrace *t = m ? esl_step_trace_at(m, job->formulation, &job->settings, job->at, &error)
                    : NULL;
    mbs_model_free(m);
    if (t)
        g_task_return_pointer(task, t, (GDestroyNotify)mbs_trace_free);
    else
        g_task_return_error(task, error);
}

static void trace_done(GObject *source, GAsyncResult *result, gpointer data)
{
    (void)data;
    g_autoptr(GError) error = NULL;
    MbsTrace *t = g_task_propagate_pointer(G_TASK(result), &error);
    if (g_error_matches(error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        return;
    EslStepView *self = ESL_STEP_VIEW(source);
    show_trace(self, t, error ? error->message : NULL);
    g_signal_emit(self, signals[SIGNAL_TRACED], 0);
}

void esl_step_view_trace(EslStepView *self, const char *model_json, const char *formulation,
                         const MbsSettings *s, double at)
{
    g_cancellable_cancel(self->cancellable);
    g_clear_object(&self->cancellable);
    self->cancellable = g_cancellable_new();
    show_trace(self, NULL, NULL);
    g_autofree char *when = esl_number_to_text(at, 6, NULL);
    g_autofree char *text = g_strdup_printf(_("Tracing the step at t = %s s with %s…"), when,
                                            formulation);
    gtk_label_set_text(GTK_LABEL(self->summary_label), text);
    TraceJob *job = g_new0(TraceJob, 1);
    job->json = g_strdup(model_json);
    job->formulation = g_strdup(formulation);
    job->settings = *s;
    job->at = at;
    g_autoptr(GTask) task = g_task_new(self, self->cancellable, trace_done, NULL);
    g_task_set_return_on_cancel(task, TRUE);
    g_task_set_task_data(task, job, (GDestroyNotify)trace_job_free);
    g_task_run_in_thread(task, trace_thread);
}

const MbsTrace *esl_step_view_get_trace(EslStepView *self)
{
    return self->trace;
}

void esl_step_view_select_phase(EslStepView *self, int i)
{
    GtkListBoxRow *row = gtk_list_box_get_row_at_index(GTK_LIST_BOX(self->phase_list), i);
    gtk_list_box_select_row(GTK_LIST_BOX(self->phase_list), row);
}

int esl_step_view_get_selected_phase(EslStepView *self)
{
    return self->selected;
}

static GtkWidget *picture_box(EslStepView *self, int k)
{
    GtkFlowBoxChild *c = gtk_flow_box_get_child_at_index(GTK_FLOW_BOX(self->matrix_box), k);
    return c ? gtk_flow_box_child_get_child(c) : NULL;
}

int esl_step_view_count_pictures(EslStepView *self)
{
    int n = 0;
    while (picture_box(self, n))
        n++;
    return n;
}

const char *esl_step_view_picture_caption(EslStepView *self, int k)
{
    GtkWidget *box = picture_box(self, k);
    GtkWidget *label = box ? gtk_widget_get_last_child(box) : NULL;
    return GTK_IS_LABEL(label) ? gtk_label_get_text(GTK_LABEL(label)) : NULL;
}

const char *esl_step_view_get_summary(EslStepView *self)
{
    return gtk_label_get_text(GTK_LABEL(self->summary_label));
}

static void esl_step_view_dispose(GObject *object)
{
    EslStepView *self = ESL_STEP_VIEW(object);
    g_cancellable_cancel(self->cancellable);
    g_clear_object(&self->cancellable);
    G_OBJECT_CLASS(esl_step_view_parent_class)->dispose(object);
}

static void esl_step_view_finalize(GObject *object)
{
    EslStepView *self = ESL_STEP_VIEW(object);
    g_clear_pointer(&self->trace, mbs_trace_free);
    G_OBJECT_CLASS(esl_step_view_parent_class)->finalize(object);
}

static void esl_step_view_class_init(EslStepViewClass *klass)
{
    GtkWidgetClass *widget_class = GTK_WIDGET_CLASS(klass);
    G_OBJECT_CLASS(klass)->dispose = esl_step_view_dispose;
    G_OBJECT_CLASS(klass)->finalize = esl_step_view_finalize;
    gtk_widget_class_set_template_from_resource(widget_class,
                                                "/org/eslabon/Eslabon/ui/esl-step-view.ui");
    gtk_widget_class_bind_template_child(widget_class, EslStepView, summary_label);
    gtk_widget_class_bind_template_child(widget_class, EslStepView, paned);
    gtk_widget_class_bind_template_child(widget_class, EslStepView, phase_list);
    gtk_widget_class_bind_template_child(widget_class, EslStepView, phase_label);
    gtk_widget_class_bind_template_child(widget_class, EslStepView, matrix_box);
    gtk_widget_class_bind_template_callback(widget_class, on_row_selected);
    gtk_widget_class_add_binding_action(widget_class, GDK_KEY_Escape, 0, "window.close", NULL);
    signals[SIGNAL_TRACED] = g_signal_new("traced", G_TYPE_FROM_CLASS(klass), G_SIGNAL_RUN_LAST,
                                          0, NULL, NULL, NULL, G_TYPE_NONE, 0);
}

static void esl_step_view_init(EslStepView *self)
{
    self->selected = -1;
    gtk_widget_init_template(GTK_WIDGET(self));
}

EslStepView *esl_step_view_new(GtkWindow *parent)
{
    return g_object_new(ESL_TYPE_STEP_VIEW, "transient-for", parent, NULL);
}
