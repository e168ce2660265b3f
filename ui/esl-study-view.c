/* The Studies window; see esl-study-view.h. */
#include "esl-study-view.h"

#include <glib/gi18n.h>
#include <glib/gstdio.h>
#include <math.h>

#include "esl-study-pool.h"

struct _EslStudyView {
    GtkWindow parent_instance;
    GtkWidget *notebook, *study_choice, *info_label, *table_box, *objective_choice,
        *parameter_choice, *case_plot, *advice_plot, *advice_label;
    GtkStringList *study_names, *objective_names, *parameter_names;
    char *project_path;
    GPtrArray *manifests;     /* char*: the project's studies */
    EslStudyResults *results; /* the study shown, or NULL */
    GPtrArray *cells;         /* GStrv per row, the headers first */
    GtkWidget *list;          /* GtkListBox of the cases */
    EslAdvice *advice;
    gboolean filling;         /* the choosers are being filled: no "notify::selected" */
    /* a study run from the window (esl_study_view_run_study) */
    GtkWidget *run_box, *run_progress;
    EslStudy *running;        /* its manifest as saved, or NULL */
    char *run_project;        /* the project its cases are merged into */
    EslStudyPool *pool;       /* its pool (kept after it ended until the next run) */
    char *merge_error;        /* the last case that could not be merged, or NULL */
    GtkWidget *advice_choice;
    GtkStringList *advice_names;
    GPtrArray *stored_advice; /* EslStoredAdvice*: the project's, oldest first */
};

G_DEFINE_FINAL_TYPE(EslStudyView, esl_study_view, GTK_TYPE_WINDOW)

enum {
    SIGNAL_OPEN_RUN,
    SIGNAL_APPLY_SETTINGS,
    SIGNAL_PLAN_STUDY,
    SIGNAL_RUNS_MERGED,
    N_SIGNALS
};
static guint signals[N_SIGNALS];

/* The status of a case as shown. */
static const char *case_status(const EslStudyCase *c)
{
    if (!c->stored)
        return _("not run");
    switch (c->status) {
    case ESL_RUN_FINISHED:
        return _("finished");
    case ESL_RUN_FAILED:
        return _("failed");
    case ESL_RUN_RUNNING:
    case ESL_RUN_INTERRUPTED:
    case ESL_RUN_STOPPED:
        break;
    }
    return _("partial");
}

static void set_strings(GtkStringList *list, GPtrArray *names)
{
    guint n = g_list_model_get_n_items(G_LIST_MODEL(list));
    g_autofree const char **v = g_new0(const char *, names->len + 1);
    for (guint i = 0; i < names->len; i++)
        v[i] = names->pdata[i];
    gtk_string_list_splice(list, 0, n, v);
}

/* ---- the table -------------------------------------------------------------------------------- */

static GtkWidget *row_box(const char *const *texts, gboolean header)
{
    GtkWidget *box = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 0);
    for (int c = 0; texts[c]; c++) {
        GtkWidget *label = gtk_label_new(texts[c]);
        gtk_label_set_width_chars(GTK_LABEL(label), c == 0 ? 4 : 10);
        gtk_label_set_xalign(GTK_LABEL(label), c == 0 ? 0.0f : 1.0f);
        gtk_label_set_ellipsize(GTK_LABEL(label), PANGO_ELLIPSIZE_START);
        gtk_widget_set_margin_start(label, 4);
        gtk_widget_set_margin_end(label, 4);
        if (header)
            gtk_widget_add_css_class(label, "heading");
        else
            gtk_widget_add_css_class(label, "numeric");
        gtk_box_append(GTK_BOX(box), label);
    }
    return box;
}

static char *number_text(double v)
{
    return isfinite(v) ? g_strdup_printf("%.6g", v) : g_strdup("—");
}

/* The selected case is ringed in the plot. */
static void on_row_selected(GtkListBox *list, GtkListBoxRow *row, EslStudyView *self)
{
    (void)list;
    if (!self->case_plot) /* disposed: the rows go */
        return;
    int k = row ? gtk_list_box_row_get_index(row) : -1;
    g_autofree char *label = k >= 0 ? g_strdup_printf(_("case %d"), k) : NULL;
    esl_scatter_plot_set_highlight(ESL_SCATTER_PLOT(self->case_plot), k, label);
}

static void fill_table(EslStudyView *self)
{
    GtkWidget *child;
    while ((child = gtk_widget_get_first_child(self->table_box)))
        gtk_box_remove(GTK_BOX(self->table_box), child);
    g_ptr_array_set_size(self->cells, 0);
    self->list = NULL;
    const EslStudyResults *r = self->results;
    if (!r)
        return;
    const EslStudy *s = r->study;
    GStrv header = g_new0(char *, s->nparameters + r->nobjectives + 3);
    int c = 0;
    header[c++] = g_strdup(_("case"));
    for (int j = 0; j < s->nparameters; j++)
        header[c++] = g_strdup(s->parameters[j].name);
    header[c++] = g_strdup(_("status"));
    for (int i = 0; i < r->nobjectives; i++)
        header[c++] = g_strdup(s->objectives[i]);
    g_ptr_array_add(self->cells, header);
    GtkWidget *head = row_box((const char *const *)header, TRUE);
    gtk_box_append(GTK_BOX(self->table_box), head);
    self->list = gtk_list_box_new();
    gtk_widget_set_vexpand(self->list, TRUE);
    gtk_box_append(GTK_BOX(self->table_box), self->list);
    for (int k = 0; k < s->ncases; k++) {
        const EslStudyCase *cs = &r->cases[k];
        GStrv row = g_new0(char *, s->nparameters + r->nobjectives + 3);
        c = 0;
        row[c++] = g_strdup_printf("%d", k);
        for (int j = 0; j < s->nparameters; j++)
            row[c++] = number_text(esl_study_results_parameter(r, k, j));
        row[c++] = g_strdup(case_status(cs));
        for (int i = 0; i < r->nobjectives; i++)
            row[c++] = number_text(cs->objectives[i]);
        g_ptr_array_add(self->cells, row);
        gtk_list_box_append(GTK_LIST_BOX(self->list), row_box((const char *const *)row, FALSE));
    }
    g_signal_connect(self->list, "row-selected", G_CALLBACK(on_row_selected), self);
}

int esl_study_view_get_n_rows(EslStudyView *self)
{
    return self->cells->len > 0 ? (int)self->cells->len - 1 : 0;
}

const char *esl_study_view_cell_text(EslStudyView *self, int row, int column)
{
    if (row < -1 || row + 1 >= (int)self->cells->len || column < 0)
        return NULL;
    GStrv texts = self->cells->pdata[row + 1];
    return column < (int)g_strv_length(texts) ? texts[column] : NULL;
}

void esl_study_view_select_case(EslStudyView *self, int k)
{
    if (!self->list)
        return;
    GtkListBoxRow *row = k >= 0 ? gtk_list_box_get_row_at_index(GTK_LIST_BOX(self->list), k)
                                : NULL;
    if (row)
        gtk_list_box_select_row(GTK_LIST_BOX(self->list), row);
    else
        gtk_list_box_unselect_all(GTK_LIST_BOX(self->list));
}

int esl_study_view_get_selected_case(EslStudyView *self)
{
    GtkListBoxRow *row =
        self->list ? gtk_list_box_get_selected_row(GTK_LIST_BOX(self->list)) : NULL;
    return row ? gtk_list_box_row_get_index(row) : -1;
}

/* ---- the plot of the cases -------------------------------------------------------------------- */

/* The coloured map of objective i over a study's two parameters: a cell per case at its two
 * values, coloured by the objective's value, failed cases grey. */
static void draw_map(EslStudyView *self, int objective)
{
    EslScatterPlot *plot = ESL_SCATTER_PLOT(self->case_plot);
    const EslStudyResults *r = self->results;
    const char *p0 = r->study->parameters[0].name, *p1 = r->study->parameters[1].name;
    const char *oname = r->study->objectives[objective];
    g_autofree char *title = g_strdup_printf(_("%s over %s and %s"), oname, p0, p1);
    esl_scatter_plot_set_title(plot, title);
    esl_scatter_plot_set_labels(plot, p0, p1);
    esl_scatter_plot_set_color_bar(plot, oname);
    static const GdkRGBA finished = {0.20f, 0.45f, 0.85f, 1}, failed = {0.6f, 0.6f, 0.6f, 1};
    int sf = esl_scatter_plot_add_series(plot, _("finished"), &finished, FALSE);
    int sx = esl_scatter_plot_add_series(plot, _("failed"), &failed, FALSE);
    for (int k = 0; k < r->study->ncases; k++) {
        const EslStudyCase *c = &r->cases[k];
        gboolean ok = c->status == ESL_RUN_FINISHED;
        if (c->stored)
            esl_scatter_plot_add_valued_point(plot, ok ? sf : sx,
                                              esl_study_results_parameter(r, k, 0),
                                              esl_study_results_parameter(r, k, 1),
                                              ok ? c->objectives[objective] : NAN, k);
    }
}

void esl_study_view_set_axes(EslStudyView *self, int parameter, int objective)
{
    EslScatterPlot *plot = ESL_SCATTER_PLOT(self->case_plot);
    esl_scatter_plot_clear(plot);
    const EslStudyResults *r = self->results;
    gboolean map = r && r->study->nparameters == 2 && parameter == 2;
    if (!r || parameter < 0 || (parameter >= r->study->nparameters && !map) || objective < 0 ||
        objective >= r->nobjectives) {
        esl_scatter_plot_set_title(plot, r && r->nobjectives == 0
                                             ? _("This study evaluates no objective")
                                             : NULL);
        return;
    }
    self->filling = TRUE;
    gtk_drop_down_set_selected(GTK_DROP_DOWN(self->parameter_choice), (guint)parameter);
    gtk_drop_down_set_selected(GTK_DROP_DOWN(self->objective_choice), (guint)objective);
    self->filling = FALSE;
    if (map) {
        draw_map(self, objective);
        return;
    }
    const char *pname = r->study->parameters[parameter].name;
    const char *oname = r->study->objectives[objective];
    g_autofree char *title = g_strdup_printf(_("%s against %s"), oname, pname);
    esl_scatter_plot_set_title(plot, title);
    esl_scatter_plot_set_labels(plot, pname, oname);
    static const GdkRGBA finished = {0.20f, 0.45f, 0.85f, 1}, failed = {0.85f, 0.25f, 0.2f, 1};
    int sf = esl_scatter_plot_add_series(plot, _("finished"), &finished, FALSE);
    int sx = esl_scatter_plot_add_series(plot, _("failed"), &failed, FALSE);
    for (int k = 0; k < r->study->ncases; k++) {
        const EslStudyCase *c = &r->cases[k];
        if (c->stored)
            esl_scatter_plot_add_point(plot, c->status == ESL_RUN_FINISHED ? sf : sx,
                                       esl_study_results_parameter(r, k, parameter),
                                       c->objectives[objective], k);
    }
}

EslScatterPlot *esl_study_view_get_case_plot(EslStudyView *self)
{
    return ESL_SCATTER_PLOT(self->case_plot);
}

static void on_axes_chosen(EslStudyView *self)
{
    if (self->filling)
        return;
    esl_study_view_set_axes(
        self, (int)gtk_drop_down_get_selected(GTK_DROP_DOWN(self->parameter_choice)),
        (int)gtk_drop_down_get_selected(GTK_DROP_DOWN(self->objective_choice)));
}

static void list_stored_advice(EslStudyView *self);

/* ---- studies ---------------------------------------------------------------------------------- */

static void show_error(EslStudyView *self, const GError *error)
{
    gtk_label_set_text(GTK_LABEL(self->info_label), error->message);
}

gboolean esl_study_view_select_study(EslStudyView *self, int index, GError **error)
{
    g_clear_pointer(&self->results, esl_study_results_free);
    GError *local = NULL;
    if (index >= 0 && self->manifests && index < (int)self->manifests->len)
        self->results = esl_study_results_load(self->manifests->pdata[index],
                                               self->project_path, &local);
    fill_table(self);
    g_autoptr(GPtrArray) pnames = g_ptr_array_new();
    g_autoptr(GPtrArray) onames = g_ptr_array_new();
    const EslStudyResults *r = self->results;
    for (int j = 0; r && j < r->study->nparameters; j++)
        g_ptr_array_add(pnames, r->study->parameters[j].name);
    /* two parameters: their map is the last choice of the x axis */
    g_autofree char *map = r && r->study->nparameters == 2
                               ? g_strdup_printf(_("%s × %s (map)"),
                                                 r->study->parameters[0].name,
                                                 r->study->parameters[1].name)
                               : NULL;
    if (map)
        g_ptr_array_add(pnames, map);
    for (int i = 0; r && i < r->nobjectives; i++)
        g_ptr_array_add(onames, r->study->objectives[i]);
    self->filling = TRUE;
    set_strings(self->parameter_names, pnames);
    set_strings(self->objective_names, onames);
    if (index >= 0)
        gtk_drop_down_set_selected(GTK_DROP_DOWN(self->study_choice), (guint)index);
    self->filling = FALSE;
    esl_study_view_set_axes(self, 0, 0);
    if (local) {
        show_error(self, local);
        g_propagate_error(error, local);
        return FALSE;
    }
    if (!r) {
        gtk_label_set_text(GTK_LABEL(self->info_label),
                           _("This project holds no study's cases."));
        return TRUE;
    }
    g_autofree char *info = g_strdup_printf(
        _("%s, %s design, %s: %d cases; %d finished, %d failed, %d not in the project"),
        r->study->model_name, esl_study_design_name(r->study->design), r->study->formulation,
        r->study->ncases, r->nfinished, r->nfailed, r->study->ncases - r->nstored);
    gtk_label_set_text(GTK_LABEL(self->info_label), info);
    return TRUE;
}

gboolean esl_study_view_set_project(EslStudyView *self, const char *project_path,
                                    GError **error)
{
    g_free(self->project_path);
    self->project_path = g_strdup(project_path);
    g_clear_pointer(&self->manifests, g_ptr_array_unref);
    GError *local = NULL;
    if (project_path)
        self->manifests = esl_study_results_list(project_path, &local);
    g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func(g_free);
    for (guint i = 0; self->manifests && i < self->manifests->len; i++)
        g_ptr_array_add(names, g_path_get_basename(self->manifests->pdata[i]));
    self->filling = TRUE;
    set_strings(self->study_names, names);
    self->filling = FALSE;
    if (local) {
        esl_study_view_select_study(self, -1, NULL);
        show_error(self, local);
        g_propagate_error(error, local);
        return FALSE;
    }
    list_stored_advice(self);
    if (project_path) {
        g_autofree char *base = g_path_get_basename(project_path);
        g_autofree char *title = g_strdup_printf(_("Studies — %s"), base);
        gtk_window_set_title(GTK_WINDOW(self), title);
    }
    return esl_study_view_select_study(self, names->len > 0 ? 0 : -1, error);
}

int esl_study_view_get_n_studies(EslStudyView *self)
{
    return self->manifests ? (int)self->manifests->len : 0;
}

const EslStudyResults *esl_study_view_get_results(EslStudyView *self)
{
    return self->results;
}

static void on_study_chosen(EslStudyView *self)
{
    if (!self->filling)
        esl_study_view_select_study(
            self, (int)gtk_drop_down_get_selected(GTK_DROP_DOWN(self->study_choice)), NULL);
}

/* Case k's run, shown in the main window (nothing for a case not in the project). */
static void open_case(EslStudyView *self, int k)
{
    const EslStudyResults *r = self->results;
    if (!r || k < 0 || k >= r->study->ncases || !r->cases[k].stored)
        return;
    g_signal_emit(self, signals[SIGNAL_OPEN_RUN], 0, r->project_path, r->cases[k].run_id);
}

static void on_point_activated(EslScatterPlot *plot, int k, EslStudyView *self)
{
    (void)plot;
    esl_study_view_select_case(self, k);
    open_case(self, k);
}

static void action_open_run(GtkWidget *widget, const char *name, GVariant *parameter)
{
    (void)name, (void)parameter;
    EslStudyView *self = ESL_STUDY_VIEW(widget);
    open_case(self, esl_study_view_get_selected_case(self));
}

/* ---- a study run from the window --------------------------------------------------------------- */

gboolean esl_study_view_show_map(EslStudyView *self, int objective)
{
    if (!self->results || self->results->study->nparameters != 2)
        return FALSE;
    esl_study_view_set_axes(self, 2, objective);
    return TRUE;
}

/* Show the study run from the window (it is in the project's list once a case is merged). */
static void show_running(EslStudyView *self)
{
    int parameter = (int)gtk_drop_down_get_selected(GTK_DROP_DOWN(self->parameter_choice));
    int objective = (int)gtk_drop_down_get_selected(GTK_DROP_DOWN(self->objective_choice));
    int selected = esl_study_view_get_selected_case(self);
    g_clear_pointer(&self->manifests, g_ptr_array_unref);
    self->manifests = esl_study_results_list(self->project_path, NULL);
    if (!self->manifests)
        self->manifests = g_ptr_array_new_with_free_func(g_free);
    int index = -1;
    for (guint i = 0; i < self->manifests->len && index < 0; i++)
        if (!g_strcmp0(self->manifests->pdata[i], self->running->manifest_path))
            index = (int)i;
    if (index < 0) {
        g_ptr_array_add(self->manifests, g_strdup(self->running->manifest_path));
        index = (int)self->manifests->len - 1;
    }
    g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func(g_free);
    for (guint i = 0; i < self->manifests->len; i++)
        g_ptr_array_add(names, g_path_get_basename(self->manifests->pdata[i]));
    self->filling = TRUE;
    set_strings(self->study_names, names);
    self->filling = FALSE;
    esl_study_view_select_study(self, index, NULL);
    if (self->results && parameter != (int)GTK_INVALID_LIST_POSITION &&
        objective != (int)GTK_INVALID_LIST_POSITION)
        esl_study_view_set_axes(self, parameter, objective);
    esl_study_view_select_case(self, selected);
}

static void on_pool_progress(int done, int failed, int total, double left, gpointer data)
{
    EslStudyView *self = data;
    g_autofree char *text =
        left >= 0 ? g_strdup_printf(_("%d of %d cases, %d failed, about %.0f s left"), done,
                                    total, failed, left)
                  : g_strdup_printf(_("%d of %d cases, %d failed"), done, total, failed);
    gtk_progress_bar_set_fraction(GTK_PROGRESS_BAR(self->run_progress),
                                  total > 0 ? (double)done / total : 1.0);
    gtk_progress_bar_set_text(GTK_PROGRESS_BAR(self->run_progress), text);
}

/* A case ended: its shard merged into the project, the table shows it. */
static void on_case_ended(int k, EslCaseState state, gpointer data)
{
    EslStudyView *self = data;
    if (state != ESL_CASE_FINISHED && state != ESL_CASE_FAILED)
        return; /* killed: nothing to merge (its partial shard runs again next time) */
    g_autofree char *shard = esl_study_shard_path(self->running, k);
    g_autoptr(GError) error = NULL;
    g_autoptr(EslProject) project = esl_project_open(self->run_project, FALSE, &error);
    if (!project || !esl_project_merge(project, shard, NULL, NULL, &error)) {
        g_free(self->merge_error);
        self->merge_error = g_strdup_printf(_("Case %d not merged: %s"), k, error->message);
    }
    g_clear_pointer(&project, esl_project_close);
    if (g_strcmp0(self->project_path, self->run_project) != 0)
        return; /* another project is shown now: the study goes on into its own */
    show_running(self);
    if (self->merge_error)
        gtk_label_set_text(GTK_LABEL(self->info_label), self->merge_error);
    g_signal_emit(self, signals[SIGNAL_RUNS_MERGED], 0);
}

static void on_pool_ended(gboolean cancelled, gpointer data)
{
    EslStudyView *self = data;
    gtk_widget_action_set_enabled(GTK_WIDGET(self), "studies.cancel-run", FALSE);
    gtk_widget_action_set_enabled(GTK_WIDGET(self), "studies.plan", TRUE);
    const GError *error = esl_study_pool_get_error(self->pool);
    int ran = esl_study_pool_get_ran(self->pool), failed = esl_study_pool_get_failed(self->pool);
    g_autofree char *text =
        error       ? g_strdup_printf(_("Stopped: %s"), error->message)
        : cancelled ? g_strdup_printf(_("Cancelled after %d cases (%d failed): run it again to "
                                        "finish it"), ran, failed)
                    : g_strdup_printf(_("Done: %d cases run, %d failed"), ran, failed);
    gtk_progress_bar_set_text(GTK_PROGRESS_BAR(self->run_progress), text);
}

static char *next_manifest_path(const char *project_path)
{
    g_autofree char *stem = g_str_has_suffix(project_path, ".eslabon")
                                ? g_strndup(project_path, strlen(project_path) - 8)
                                : g_strdup(project_path);
    g_autofree char *dir = g_strconcat(stem, ".studies", NULL);
    if (g_mkdir_with_parents(dir, 0777) != 0)
        return NULL;
    for (int i = 1;; i++) {
        g_autofree char *name = g_strdup_printf("study-%03d.json", i);
        char *path = g_build_filename(dir, name, NULL);
        if (!g_file_test(path, G_FILE_TEST_EXISTS))
            return path;
        g_free(path);
    }
}

gboolean esl_study_view_run_study(EslStudyView *self, EslStudy *study, const char *cli,
                                  int jobs, GError **error)
{
    GError *local = NULL;
    if (esl_study_view_is_running(self))
        g_set_error(&local, ESL_STUDY_ERROR, ESL_STUDY_ERROR_INVALID,
                    _("A study runs already: cancel it first"));
    else if (!self->project_path)
        g_set_error(&local, ESL_STUDY_ERROR, ESL_STUDY_ERROR_INVALID,
                    _("No project to merge the cases into"));
    else if (!cli)
        g_set_error(&local, ESL_STUDY_ERROR, ESL_STUDY_ERROR_INVALID,
                    _("eslabon-cli, which runs the cases, is not found (set ESLABON_CLI)"));
    g_autofree char *canonical = g_canonicalize_filename(self->project_path ? self->project_path
                                                                            : ".", NULL);
    g_autofree char *path = local ? NULL : next_manifest_path(canonical);
    if (!local && !path)
        g_set_error(&local, ESL_STUDY_ERROR, ESL_STUDY_ERROR_IO,
                    _("Cannot make the studies' folder beside %s"), self->project_path);
    /* the study as every case process reads it */
    EslStudy *saved = !local && esl_study_save(study, path, &local)
                          ? esl_study_load(path, &local) : NULL;
    if (!saved) {
        gtk_label_set_text(GTK_LABEL(self->info_label), local->message);
        g_propagate_error(error, local);
        return FALSE;
    }
    esl_study_pool_free(self->pool);
    self->pool = NULL;
    esl_study_free(self->running);
    self->running = saved;
    g_free(self->run_project);
    self->run_project = g_strdup(self->project_path);
    g_clear_pointer(&self->merge_error, g_free);
    gtk_widget_set_visible(self->run_box, TRUE);
    gtk_widget_action_set_enabled(GTK_WIDGET(self), "studies.cancel-run", TRUE);
    gtk_widget_action_set_enabled(GTK_WIDGET(self), "studies.plan", FALSE);
    gtk_notebook_set_current_page(GTK_NOTEBOOK(self->notebook), 0);
    show_running(self);
    char *argv[] = {(char *)cli, "study", "run", saved->manifest_path, "--case", "0", NULL};
    EslStudyPoolCallbacks cb = {.progress = on_pool_progress, .case_ended = on_case_ended,
                                .ended = on_pool_ended, .data = self};
    self->pool = esl_study_pool_start(saved, argv, jobs, NULL, &cb, &local);
    if (!self->pool) {
        on_pool_ended(TRUE, self);
        gtk_progress_bar_set_text(GTK_PROGRESS_BAR(self->run_progress), local->message);
        g_propagate_error(error, local);
        return FALSE;
    }
    return TRUE;
}

gboolean esl_study_view_is_running(EslStudyView *self)
{
    return esl_study_pool_is_running(self->pool);
}

void esl_study_view_cancel(EslStudyView *self)
{
    esl_study_pool_cancel(self->pool);
}

const char *esl_study_view_get_progress_text(EslStudyView *self)
{
    return gtk_progress_bar_get_text(GTK_PROGRESS_BAR(self->run_progress));
}

double esl_study_view_get_progress_fraction(EslStudyView *self)
{
    return gtk_progress_bar_get_fraction(GTK_PROGRESS_BAR(self->run_progress));
}

const EslStudy *esl_study_view_get_running_study(EslStudyView *self)
{
    return self->running;
}

static void action_cancel_run(GtkWidget *widget, const char *name, GVariant *parameter)
{
    (void)name, (void)parameter;
    esl_study_view_cancel(ESL_STUDY_VIEW(widget));
}

static void action_plan(GtkWidget *widget, const char *name, GVariant *parameter)
{
    (void)name, (void)parameter;
    g_signal_emit(widget, signals[SIGNAL_PLAN_STUDY], 0);
}

/* ---- the advice ------------------------------------------------------------------------------- */

static void show_advice(EslStudyView *self, EslAdvice *a, const char *model, gboolean page);

void esl_study_view_show_advice(EslStudyView *self, EslAdvice *a, const char *model)
{
    show_advice(self, a, model, TRUE);
}

static void show_advice(EslStudyView *self, EslAdvice *a, const char *model, gboolean page)
{
    esl_advice_free(self->advice);
    self->advice = a;
    EslScatterPlot *plot = ESL_SCATTER_PLOT(self->advice_plot);
    esl_scatter_plot_clear(plot);
    g_autofree char *base = model ? g_path_get_basename(model) : g_strdup("");
    g_autofree char *title = g_strdup_printf(_("Work–precision: %s, %g s"), base, a->duration);
    esl_scatter_plot_set_title(plot, title);
    esl_scatter_plot_set_labels(plot, _("CPU time (s)"), _("relative error"));
    esl_scatter_plot_set_log(plot, TRUE, TRUE);
    g_autofree char *line = g_strdup_printf(_("accuracy asked: %g"), a->accuracy);
    esl_scatter_plot_set_reference(plot, a->accuracy, line);
    static const GdkRGBA colors[] = {{0.20f, 0.45f, 0.85f, 1}, {0.85f, 0.30f, 0.20f, 1},
                                     {0.20f, 0.60f, 0.30f, 1}, {0.55f, 0.30f, 0.70f, 1},
                                     {0.60f, 0.50f, 0.10f, 1}, {0.10f, 0.60f, 0.65f, 1}};
    g_autoptr(GPtrArray) forms = g_ptr_array_new();
    GString *why = g_string_new(NULL);
    /* one curve per formulation through its full runs; a candidate only probed, at its probe */
    for (guint i = 0; i < a->candidates->len; i++) {
        const EslAdviseCandidate *c = a->candidates->pdata[i];
        guint f;
        for (f = 0; f < forms->len && g_strcmp0(forms->pdata[f], c->formulation); f++)
            ;
        if (f == forms->len) {
            g_ptr_array_add(forms, c->formulation);
            esl_scatter_plot_add_series(plot, c->formulation, &colors[f % G_N_ELEMENTS(colors)],
                                        TRUE);
        }
        esl_scatter_plot_add_point(plot, (int)f, c->seconds, c->error, (int)i);
        g_string_append_printf(why, "%s%s: %s", why->len ? "\n" : "", c->label, c->verdict);
    }
    if (a->recommended >= 0) {
        const EslAdviseCandidate *c = a->candidates->pdata[a->recommended];
        g_autofree char *label = g_strdup_printf(_("recommended: %s"), c->label);
        esl_scatter_plot_set_highlight(plot, a->recommended, label);
        g_string_prepend(why, "\n");
        g_autofree char *head = g_strdup_printf(
            _("Recommended: %s — error %.2e within %.1e in %.2g s of CPU (reference %s, "
              "confirmed by %s)."), c->label, c->error, a->accuracy, c->seconds, a->reference[0],
            a->reference[1]);
        g_string_prepend(why, head);
        g_string_append(why, _("\n\nDrawn: the full runs. The other candidates stopped at the "
                               "probe (a tenth of the duration): their verdicts above."));
    } else {
        g_string_prepend(why, "\n");
        g_autofree char *head =
            g_strdup_printf(_("No candidate meets %.1e."), a->accuracy);
        g_string_prepend(why, head);
    }
    gtk_label_set_text(GTK_LABEL(self->advice_label), why->str);
    g_string_free(why, TRUE);
    gtk_widget_action_set_enabled(GTK_WIDGET(self), "studies.apply-advice",
                                  a->recommended >= 0);
    if (page)
        gtk_notebook_set_current_page(GTK_NOTEBOOK(self->notebook), 1);
}

/* ---- the advice stored in the project (eslabon-cli advise --project) ---------------------------- */

static gboolean select_stored_advice(EslStudyView *self, int index, gboolean page,
                                     GError **error)
{
    if (!self->stored_advice || index < 0 || index >= (int)self->stored_advice->len) {
        g_set_error(error, ESL_STUDY_ERROR, ESL_STUDY_ERROR_INVALID,
                    "the project has no advice %d", index);
        return FALSE;
    }
    const EslStoredAdvice *stored = self->stored_advice->pdata[index];
    g_autofree char *model = NULL;
    GError *local = NULL;
    EslAdvice *a = esl_advice_from_json(stored->json, &model, NULL, &local);
    if (!a) {
        g_autofree char *msg = g_strdup_printf("#%" G_GINT64_FORMAT ": %s", stored->id,
                                               local->message);
        gtk_label_set_text(GTK_LABEL(self->advice_label), msg);
        g_propagate_error(error, local);
        return FALSE;
    }
    self->filling = TRUE;
    gtk_drop_down_set_selected(GTK_DROP_DOWN(self->advice_choice), (guint)index);
    self->filling = FALSE;
    show_advice(self, a, model ? model : stored->model, page);
    return TRUE;
}

gboolean esl_study_view_select_stored_advice(EslStudyView *self, int index, GError **error)
{
    return select_stored_advice(self, index, TRUE, error);
}

int esl_study_view_get_n_stored_advice(EslStudyView *self)
{
    return self->stored_advice ? (int)self->stored_advice->len : 0;
}

static void on_advice_chosen(EslStudyView *self)
{
    if (!self->filling)
        esl_study_view_select_stored_advice(
            self, (int)gtk_drop_down_get_selected(GTK_DROP_DOWN(self->advice_choice)), NULL);
}

/* The project's advice listed; the newest shown (the page stays). */
static void list_stored_advice(EslStudyView *self)
{
    g_clear_pointer(&self->stored_advice, g_ptr_array_unref);
    g_autoptr(EslProject) project =
        self->project_path ? esl_project_open(self->project_path, FALSE, NULL) : NULL;
    self->stored_advice = project ? esl_project_list_advice(project, NULL) : NULL;
    g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func(g_free);
    for (guint i = 0; self->stored_advice && i < self->stored_advice->len; i++) {
        const EslStoredAdvice *a = self->stored_advice->pdata[i];
        g_autofree char *base = g_path_get_basename(a->model);
        g_ptr_array_add(names, g_strdup_printf("#%" G_GINT64_FORMAT " %s, %s (%s)", a->id, base,
                                               a->quantity, a->created_at));
    }
    self->filling = TRUE;
    set_strings(self->advice_names, names);
    self->filling = FALSE;
    if (names->len > 0)
        select_stored_advice(self, (int)names->len - 1, FALSE, NULL);
}

gboolean esl_study_view_open_advice(EslStudyView *self, const char *path, GError **error)
{
    g_autofree char *text = NULL;
    g_autofree char *model = NULL;
    GError *local = NULL;
    EslAdvice *a = g_file_get_contents(path, &text, NULL, &local)
                       ? esl_advice_from_json(text, &model, NULL, &local)
                       : NULL;
    if (!a) {
        g_autofree char *msg = g_strdup_printf("%s: %s", path, local->message);
        gtk_label_set_text(GTK_LABEL(self->advice_label), msg);
        gtk_notebook_set_current_page(GTK_NOTEBOOK(self->notebook), 1);
        g_propagate_error(error, local);
        return FALSE;
    }
    esl_study_view_show_advice(self, a, model ? model : path);
    return TRUE;
}

static void action_apply_advice(GtkWidget *widget, const char *name, GVariant *parameter)
{
    (void)name, (void)parameter;
    EslStudyView *self = ESL_STUDY_VIEW(widget);
    if (!self->advice || self->advice->recommended < 0)
        return;
    const EslAdviseCandidate *c = self->advice->candidates->pdata[self->advice->recommended];
    g_signal_emit(self, signals[SIGNAL_APPLY_SETTINGS], 0, c->formulation, &c->settings);
}

EslScatterPlot *esl_study_view_get_work_precision_plot(EslStudyView *self)
{
    return ESL_SCATTER_PLOT(self->advice_plot);
}

const char *esl_study_view_get_advice_text(EslStudyView *self)
{
    return gtk_label_get_text(GTK_LABEL(self->advice_label));
}

/* ---- file choosers ---------------------------------------------------------------------------- */

static void on_file_chosen(GtkNativeDialog *chooser, int response, EslStudyView *self)
{
    if (response == GTK_RESPONSE_ACCEPT) {
        g_autoptr(GFile) file = gtk_file_chooser_get_file(GTK_FILE_CHOOSER(chooser));
        g_autofree char *path = file ? g_file_get_path(file) : NULL;
        gboolean advice = GPOINTER_TO_INT(g_object_get_data(G_OBJECT(chooser), "advice"));
        if (path && advice)
            esl_study_view_open_advice(self, path, NULL); /* an error shows in the window */
        else if (path)
            esl_study_view_set_project(self, path, NULL);
    }
    g_object_unref(chooser);
}

static void choose_file(EslStudyView *self, gboolean advice)
{
    GtkFileChooserNative *chooser = gtk_file_chooser_native_new(
        advice ? _("Open an Advice") : _("Open a Project with Studies"), GTK_WINDOW(self),
        GTK_FILE_CHOOSER_ACTION_OPEN, _("_Open"), _("_Cancel"));
    GtkFileFilter *filter = gtk_file_filter_new();
    gtk_file_filter_set_name(filter, advice ? _("Advice (eslabon-cli advise --json)")
                                            : _("Eslabón projects"));
    gtk_file_filter_add_pattern(filter, advice ? "*.json" : "*.eslabon");
    gtk_file_chooser_add_filter(GTK_FILE_CHOOSER(chooser), filter);
    g_object_unref(filter);
    g_object_set_data(G_OBJECT(chooser), "advice", GINT_TO_POINTER(advice));
    g_signal_connect(chooser, "response", G_CALLBACK(on_file_chosen), self);
    gtk_native_dialog_show(GTK_NATIVE_DIALOG(chooser));
}

static void action_open(GtkWidget *widget, const char *name, GVariant *parameter)
{
    (void)name, (void)parameter;
    choose_file(ESL_STUDY_VIEW(widget), FALSE);
}

static void action_open_advice(GtkWidget *widget, const char *name, GVariant *parameter)
{
    (void)name, (void)parameter;
    choose_file(ESL_STUDY_VIEW(widget), TRUE);
}

/* ---- the class -------------------------------------------------------------------------------- */

static void esl_study_view_dispose(GObject *object)
{
    EslStudyView *self = ESL_STUDY_VIEW(object);
    g_clear_pointer(&self->pool, esl_study_pool_free); /* kills the cases still running */
    gtk_widget_dispose_template(GTK_WIDGET(object), ESL_TYPE_STUDY_VIEW);
    G_OBJECT_CLASS(esl_study_view_parent_class)->dispose(object);
}

static void esl_study_view_finalize(GObject *object)
{
    EslStudyView *self = ESL_STUDY_VIEW(object);
    g_free(self->project_path);
    g_clear_pointer(&self->manifests, g_ptr_array_unref);
    esl_study_results_free(self->results);
    g_ptr_array_unref(self->cells);
    esl_advice_free(self->advice);
    esl_study_free(self->running);
    g_free(self->run_project);
    g_free(self->merge_error);
    g_clear_pointer(&self->stored_advice, g_ptr_array_unref);
    G_OBJECT_CLASS(esl_study_view_parent_class)->finalize(object);
}

static void esl_study_view_class_init(EslStudyViewClass *klass)
{
    GtkWidgetClass *widget_class = GTK_WIDGET_CLASS(klass);
    G_OBJECT_CLASS(klass)->dispose = esl_study_view_dispose;
    G_OBJECT_CLASS(klass)->finalize = esl_study_view_finalize;
    g_type_ensure(ESL_TYPE_SCATTER_PLOT);
    gtk_widget_class_set_template_from_resource(widget_class,
                                                "/org/eslabon/Eslabon/ui/esl-study-view.ui");
    gtk_widget_class_bind_template_child(widget_class, EslStudyView, notebook);
    gtk_widget_class_bind_template_child(widget_class, EslStudyView, study_choice);
    gtk_widget_class_bind_template_child(widget_class, EslStudyView, study_names);
    gtk_widget_class_bind_template_child(widget_class, EslStudyView, info_label);
    gtk_widget_class_bind_template_child(widget_class, EslStudyView, table_box);
    gtk_widget_class_bind_template_child(widget_class, EslStudyView, objective_choice);
    gtk_widget_class_bind_template_child(widget_class, EslStudyView, objective_names);
    gtk_widget_class_bind_template_child(widget_class, EslStudyView, parameter_choice);
    gtk_widget_class_bind_template_child(widget_class, EslStudyView, parameter_names);
    gtk_widget_class_bind_template_child(widget_class, EslStudyView, case_plot);
    gtk_widget_class_bind_template_child(widget_class, EslStudyView, advice_plot);
    gtk_widget_class_bind_template_child(widget_class, EslStudyView, advice_label);
    gtk_widget_class_bind_template_child(widget_class, EslStudyView, run_box);
    gtk_widget_class_bind_template_child(widget_class, EslStudyView, advice_choice);
    gtk_widget_class_bind_template_child(widget_class, EslStudyView, advice_names);
    gtk_widget_class_bind_template_child(widget_class, EslStudyView, run_progress);
    gtk_widget_class_install_action(widget_class, "studies.plan", NULL, action_plan);
    gtk_widget_class_install_action(widget_class, "studies.cancel-run", NULL, action_cancel_run);
    gtk_widget_class_install_action(widget_class, "studies.open", NULL, action_open);
    gtk_widget_class_install_action(widget_class, "studies.open-advice", NULL,
                                    action_open_advice);
    gtk_widget_class_install_action(widget_class, "studies.open-run", NULL, action_open_run);
    gtk_widget_class_install_action(widget_class, "studies.apply-advice", NULL,
                                    action_apply_advice);
    gtk_widget_class_add_binding_action(widget_class, GDK_KEY_o, GDK_CONTROL_MASK,
                                        "studies.open", NULL);
    gtk_widget_class_add_binding_action(widget_class, GDK_KEY_Escape, 0, "window.close", NULL);
    signals[SIGNAL_OPEN_RUN] =
        g_signal_new("open-run", G_TYPE_FROM_CLASS(klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL,
                     NULL, G_TYPE_NONE, 2, G_TYPE_STRING, G_TYPE_INT64);
    signals[SIGNAL_APPLY_SETTINGS] =
        g_signal_new("apply-settings", G_TYPE_FROM_CLASS(klass), G_SIGNAL_RUN_LAST, 0, NULL,
                     NULL, NULL, G_TYPE_NONE, 2, G_TYPE_STRING, G_TYPE_POINTER);
    signals[SIGNAL_PLAN_STUDY] =
        g_signal_new("plan-study", G_TYPE_FROM_CLASS(klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL,
                     NULL, G_TYPE_NONE, 0);
    signals[SIGNAL_RUNS_MERGED] =
        g_signal_new("runs-merged", G_TYPE_FROM_CLASS(klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL,
                     NULL, G_TYPE_NONE, 0);
}

static void esl_study_view_init(EslStudyView *self)
{
    gtk_widget_init_template(GTK_WIDGET(self));
    gtk_widget_action_set_enabled(GTK_WIDGET(self), "studies.apply-advice", FALSE);
    gtk_widget_action_set_enabled(GTK_WIDGET(self), "studies.cancel-run", FALSE);
    self->cells = g_ptr_array_new_with_free_func((GDestroyNotify)g_strfreev);
    g_signal_connect_swapped(self->study_choice, "notify::selected",
                             G_CALLBACK(on_study_chosen), self);
    g_signal_connect_swapped(self->parameter_choice, "notify::selected",
                             G_CALLBACK(on_axes_chosen), self);
    g_signal_connect_swapped(self->objective_choice, "notify::selected",
                             G_CALLBACK(on_axes_chosen), self);
    g_signal_connect(self->case_plot, "point-activated", G_CALLBACK(on_point_activated), self);
    g_signal_connect_swapped(self->advice_choice, "notify::selected",
                             G_CALLBACK(on_advice_chosen), self);
}

GtkWidget *esl_study_view_new(GtkWindow *parent)
{
    return g_object_new(ESL_TYPE_STUDY_VIEW, "transient-for", parent, NULL);
}
