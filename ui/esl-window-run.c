/* The window's runs: starting one and showing it live, replaying or comparing stored ones;
 * see esl-window-private.h. */
#include "esl-window-private.h"

#include <glib/gi18n.h>
#include <math.h>
#include <string.h>

#include "esl-model-file.h"
#include "esl-optimize-dialog.h"
#include "esl-point-sensitivity.h"
#include "esl-sensitivity-recorder.h"
#include "mbs_formulation.h"
#include "mbs_topology.h"

/* ---- a run going on ----------------------------------------------------------------------- */


gint64 esl_window_stored_model_id(EslWindow *self)
{
    /* One stored copy per distinct text: an edited model is stored as it was run. */
    g_autofree char *sum = g_compute_checksum_for_string(G_CHECKSUM_SHA256, esl_window_json(self), -1);
    g_autofree char *key = g_strconcat(esl_model_document_get_path(self->document), "\n", sum, NULL);
    gpointer id = g_hash_table_lookup(self->model_ids, key);
    if (id)
        return GPOINTER_TO_INT(id);
    gint64 model_id = esl_project_add_model(self->project, esl_window_model(self)->name, esl_model_document_get_path(self->document),
                                            esl_window_json(self), NULL);
    if (model_id > 0)
        g_hash_table_insert(self->model_ids, g_steal_pointer(&key), GINT_TO_POINTER((int)model_id));
    return model_id;
}

static void update_progress(EslWindow *self)
{
    if (!self->controller)
        return;
    double sim, wall;
    long steps;
    esl_run_controller_progress(self->controller, &sim, &steps, &wall);
    double duration = self->run_duration;
    gtk_progress_bar_set_fraction(GTK_PROGRESS_BAR(self->progress_bar),
                                  duration > 0 ? CLAMP(sim / duration, 0, 1) : 0);
    g_autofree char *percent = g_strdup_printf("%.0f %%", duration > 0 ? 100 * sim / duration : 0);
    gtk_progress_bar_set_text(GTK_PROGRESS_BAR(self->progress_bar), percent);
    double frame_ms = self->frame_meter ? esl_frame_meter_recent_work(self->frame_meter, 60) : 0;
    g_autofree char *text = g_strdup_printf(
        _("simulated time: %.4f s\nsteps: %ld\nreal-time factor: %.3g\nsteps per second: %.0f\n"
          "window: %.1f ms of work per frame"),
        sim, steps, wall > 0 ? sim / wall : 0.0, wall > 0 ? steps / wall : 0.0, frame_ms);
    gtk_label_set_text(GTK_LABEL(self->progress_label), text);
}

/* The progress area of a stored run selected: what it reached, not the last live run's
 * numbers. simulated: the last stored time (NAN for an optimisation, which shows its
 * evaluations). */
static void show_stored_progress(EslWindow *self, const EslRunInfo *info, double simulated)
{
    g_autofree char *id = g_strdup_printf("#%" G_GINT64_FORMAT, info->id);
    g_autofree char *text = NULL;
    double fraction = 1.0;
    if (isnan(simulated)) {
        int n = (int)info->optimization_evaluations;
        text = g_strdup_printf(ngettext("stored run %s (%s)\n%d evaluation\nwall time: %.3g s",
                                        "stored run %s (%s)\n%d evaluations\nwall time: %.3g s",
                                        (unsigned long)n),
                               id, esl_run_status_label(info->status), n, info->wall_time);
    } else {
        double duration = info->settings.duration;
        fraction = duration > 0 ? CLAMP(simulated / duration, 0, 1) : 1.0;
        text = g_strdup_printf(_("stored run %s (%s)\nsimulated time: %.4f s of %g s\n"
                                 "wall time: %.3g s"),
                               id, esl_run_status_label(info->status), simulated, duration,
                               info->wall_time);
    }
    g_autofree char *percent = g_strdup_printf("%.0f %%", 100 * fraction);
    gtk_progress_bar_set_fraction(GTK_PROGRESS_BAR(self->progress_bar), fraction);
    gtk_progress_bar_set_text(GTK_PROGRESS_BAR(self->progress_bar), percent);
    gtk_label_set_text(GTK_LABEL(self->progress_label), text);
}

void esl_window_clear_progress(EslWindow *self)
{
    gtk_progress_bar_set_fraction(GTK_PROGRESS_BAR(self->progress_bar), 0.0);
    gtk_progress_bar_set_text(GTK_PROGRESS_BAR(self->progress_bar), "");
    gtk_label_set_text(GTK_LABEL(self->progress_label), "");
}

const char *esl_window_get_progress_text(EslWindow *self)
{
    return gtk_label_get_text(GTK_LABEL(self->progress_label));
}

static gboolean progress_timeout(gpointer data)
{
    update_progress(data);
    return G_SOURCE_CONTINUE;
}

static void on_run_samples(EslRunController *controller, GPtrArray *samples, EslWindow *self)
{
    (void)controller;
    for (guint i = 0; i < samples->len; i++) {
        const EslRunSample *s = samples->pdata[i];
        esl_plot_board_append(ESL_PLOT_BOARD(self->plot_board), &s->monitors);
        g_ptr_array_add(self->history, esl_run_sample_copy(s));
    }
    const EslRunSample *last = samples->pdata[samples->len - 1];
    esl_window_show_state(self, last->poses, last->violations);
    esl_window_update_trail(self, (int)self->history->len - 1);
    esl_plot_board_set_cursor(ESL_PLOT_BOARD(self->plot_board), NAN);
    EslPlaybackBar *bar = ESL_PLAYBACK_BAR(self->playback_bar);
    esl_playback_bar_set_range(bar, esl_playback_bar_get_end(bar), last->monitors.time);
    g_autofree char *text = g_strdup_printf(_("t = %.4f s"), last->monitors.time);
    esl_playback_bar_set_label(ESL_PLAYBACK_BAR(self->playback_bar), text);
}

static gboolean close_window(gpointer window)
{
    gtk_window_close(GTK_WINDOW(window)); /* asks about unsaved edits, if any */
    return G_SOURCE_REMOVE;
}

/* The end of a run or a sensitivity run: the list, the status line (format: id, status,
 * separator, message), the actions, "run-finished", and the close the user asked for. */
static void announce_run_end(EslWindow *self, const char *format, int status,
                             const char *message, gint64 run_id)
{
    esl_window_fill_runs(self);
    g_autofree char *id = g_strdup_printf("#%" G_GINT64_FORMAT, run_id);
    esl_window_show_status(self, status == ESL_RUN_FAILED, format, id,
                           esl_run_status_label((EslRunStatus)status), message ? ": " : ".",
                           message ? message : "");
    esl_window_update_run_actions(self);
    g_object_ref(self); /* a handler may destroy the window */
    g_signal_emit_by_name(self, "run-finished", status, run_id);
    if (self->close_when_stopped) /* not from inside the controller's signal */
        g_idle_add_full(G_PRIORITY_DEFAULT, close_window, g_object_ref(self), g_object_unref);
    g_object_unref(self);
}

/* Live runs are paced to the playback speed (win.real-time). */
static gboolean paced(EslWindow *self)
{
    GAction *pace = g_action_map_lookup_action(G_ACTION_MAP(self), "real-time");
    g_autoptr(GVariant) on = pace ? g_action_get_state(pace) : NULL;
    return on && g_variant_get_boolean(on);
}

/* A run that took less time than it simulated went by too fast to be seen (a second after Run
 * it showed the final pose): its motion is played back from t = 0 at the playback speed (1x
 * unless chosen otherwise). A paced run was seen as it went. */
static void replay_if_unseen(EslWindow *self, int status, double simulated)
{
    double elapsed = (g_get_monotonic_time() - self->run_started_us) * 1e-6;
    if (status != ESL_RUN_FINISHED || paced(self) || elapsed >= simulated || !self->history ||
        self->history->len < 2)
        return;
    EslPlaybackBar *bar = ESL_PLAYBACK_BAR(self->playback_bar);
    esl_playback_bar_seek(bar, 0.0);
    esl_playback_bar_set_playing(bar, TRUE);
}

static void on_run_finished(EslRunController *controller, int status, const char *message,
                            EslWindow *self)
{
    update_progress(self);
    double simulated, wall;
    long steps;
    esl_run_controller_progress(controller, &simulated, &steps, &wall);
    (void)wall; /* the time spent stepping only; the motion was on screen from Run */
    gint64 run_id = esl_run_controller_get_run_id(controller);
    g_signal_handlers_disconnect_by_data(controller, self);
    g_clear_object(&self->controller);
    g_clear_handle_id(&self->progress_timer, g_source_remove);
    g_clear_pointer(&self->frame_meter, esl_frame_meter_free);
    gtk_widget_remove_css_class(self->pause_button, "suggested-action");
    GPtrArray *history = g_steal_pointer(&self->history);
    esl_window_set_history(self, history, TRUE);
    esl_window_fit_history(self);
    replay_if_unseen(self, status, simulated);
    announce_run_end(self, _("Run %s %s%s%s"), status, message, run_id);
}

static void on_question_response(GtkDialog *dialog, int response, EslWindow *self)
{
    gtk_window_destroy(GTK_WINDOW(dialog));
    self->question = NULL;
    if (response != GTK_RESPONSE_ACCEPT)
        return;
    if (!esl_window_is_running(self)) { /* it ended while the question was asked */
        gtk_window_close(GTK_WINDOW(self));
        return;
    }
    /* Closed once the worker has stored the run as "stopped" (on_run_finished). */
    self->close_when_stopped = TRUE;
    esl_window_show_status(self, FALSE, _("Stopping the run before closing…"));
    esl_window_stop_run(self);
}

gboolean esl_window_ask_close(EslWindow *self)
{
    if (!esl_window_is_running(self))
        return FALSE;
    if (self->question || self->close_when_stopped)
        return TRUE;
    GtkWidget *dialog = gtk_message_dialog_new(
        GTK_WINDOW(self), GTK_DIALOG_MODAL | GTK_DIALOG_DESTROY_WITH_PARENT, GTK_MESSAGE_QUESTION,
        GTK_BUTTONS_NONE, _("Stop the run and close the window?"));
    gtk_message_dialog_format_secondary_text(
        GTK_MESSAGE_DIALOG(dialog),
        _("A simulation is running. What it has computed so far is kept in the project as a "
          "stopped run."));
    gtk_dialog_add_button(GTK_DIALOG(dialog), _("_Cancel"), GTK_RESPONSE_CANCEL);
    GtkWidget *stop = gtk_dialog_add_button(GTK_DIALOG(dialog), _("_Stop and Close"),
                                            GTK_RESPONSE_ACCEPT);
    gtk_widget_add_css_class(stop, "destructive-action");
    gtk_dialog_set_default_response(GTK_DIALOG(dialog), GTK_RESPONSE_CANCEL);
    g_signal_connect(dialog, "response", G_CALLBACK(on_question_response), self);
    self->question = dialog;
    gtk_window_present(GTK_WINDOW(dialog));
    return TRUE;
}

GtkWidget *esl_window_get_question(EslWindow *self)
{
    return self->question;
}

gboolean esl_window_is_running(EslWindow *self)
{
    return self->controller || self->sensitivity;
}

/* ---- a sensitivity run going on (issue 10) --------------------------------------------------- */

/* The coordinates of a stored run's d q / d rho (nstate of them): as a live run's when the model
 * shown has the run's name and its coordinates fit, otherwise the first few by number. */
static void stored_state_coordinates(const MbsModel *m, const MbsFormulationClass *klass,
                                     int nstate, GArray *index, GPtrArray *names)
{
    if (m && klass) {
        esl_sensitivity_state_coordinates(m, klass->coordinate_kind, index, names);
        gboolean fits = TRUE;
        for (guint i = 0; i < index->len; i++)
            fits &= g_array_index(index, int, i) < nstate;
        if (fits)
            return;
        g_array_set_size(index, 0);
        g_ptr_array_set_size(names, 0);
    }
    for (int i = 0; i < MIN(nstate, 12); i++) {
        g_array_append_val(index, i);
        g_ptr_array_add(names, g_strdup_printf("q%d", i + 1));
    }
}

/* The plot board's outputs of the point (name, owned) at position j of a run's points: its x,
 * y and z (-1 - (3 j + a)), with names. */
static void point_outputs(char *name, int j, GArray *index, GPtrArray *names)
{
    for (int a = 0; a < 3; a++) {
        int output = -1 - (3 * j + a);
        g_array_append_val(index, output);
        g_ptr_array_add(names, g_strdup_printf("%s %c", name, "xyz"[a]));
    }
    g_free(name);
}

static void on_sensitivity_rows(EslSensitivityController *controller, GPtrArray *rows,
                                EslWindow *self)
{
    (void)controller;
    for (guint i = 0; i < rows->len; i++)
        if (((EslSensitivityRow *)rows->pdata[i])->gradient)
            esl_plot_board_append_sensitivity(ESL_PLOT_BOARD(self->plot_board), rows->pdata[i]);
    const EslSensitivityRow *last = rows->pdata[rows->len - 1];
    double fraction = CLAMP(last->progress, 0, 1);
    gtk_progress_bar_set_fraction(GTK_PROGRESS_BAR(self->progress_bar), fraction);
    g_autofree char *percent = g_strdup_printf("%.0f %%", 100 * fraction);
    gtk_progress_bar_set_text(GTK_PROGRESS_BAR(self->progress_bar), percent);
    if (last->gradient) { /* progress-only rows (fd, adjoint) have no simulated time to show */
        g_autofree char *text = g_strdup_printf(_("t = %.4f s"), last->time);
        esl_playback_bar_set_label(ESL_PLAYBACK_BAR(self->playback_bar), text);
    }
    g_autofree char *status =
        last->gradient ? g_strdup_printf(_("sensitivities: %.0f %% done\nsimulated time: %.4f s"),
                                         100 * fraction, last->time)
                       : g_strdup_printf(_("sensitivities: %.0f %% done"), 100 * fraction);
    gtk_label_set_text(GTK_LABEL(self->progress_label), status);
}

static void on_sensitivity_finished(EslSensitivityController *controller, int status,
                                    const char *message, EslWindow *self)
{
    gint64 run_id = esl_sensitivity_controller_get_run_id(controller);
    g_signal_handlers_disconnect_by_data(controller, self);
    g_autoptr(EslSensitivityRun) run =
        self->project ? esl_project_load_sensitivity(self->project, run_id, NULL) : NULL;
    if (run && run->gradient)
        esl_plot_board_end_sensitivity(ESL_PLOT_BOARD(self->plot_board), run);
    g_clear_object(&self->sensitivity);
    announce_run_end(self, _("Sensitivity run %s %s%s%s"), status, message, run_id);
}

static void start_sensitivity_run(EslWindow *self, const MbsFormulationClass *klass,
                                  const MbsSettings *settings, int method, GArray *objectives,
                                  GArray *parameters, GArray *outputs)
{
    const MbsModel *m = esl_window_model(self);
    if (objectives->len == 0 || parameters->len == 0) {
        esl_window_show_status(self, TRUE, _("Check at least one objective and one parameter "
                                             "to differentiate."));
        return;
    }
    /* what the method refuses at once (matrix-r's RK4, ...) is said before the plots are
     * cleared for a run that would not start */
    MbsError refused = {0};
    if (mbs_sensitivity_check(klass->name, (MbsSensitivityMethod)method, settings, &refused)) {
        esl_window_show_status(self, TRUE, refused.message);
        return;
    }
    g_autoptr(GPtrArray) onames = g_ptr_array_new();
    g_autoptr(GPtrArray) pnames = g_ptr_array_new();
    for (guint i = 0; i < objectives->len; i++)
        g_ptr_array_add(onames, m->objectives[g_array_index(objectives, int, i)].name);
    for (guint k = 0; k < parameters->len; k++)
        g_ptr_array_add(pnames, m->parameters[g_array_index(parameters, int, k)].name);
    /* the coordinates checked in the chooser, with their names */
    g_autoptr(GArray) all = g_array_new(FALSE, FALSE, sizeof(int));
    g_autoptr(GPtrArray) all_names = g_ptr_array_new_with_free_func(g_free);
    g_autoptr(GArray) coords = g_array_new(FALSE, FALSE, sizeof(int));
    g_autoptr(GPtrArray) cnames = g_ptr_array_new();
    if (mbs_sensitivity_has_state_history(klass->name, method))
        esl_sensitivity_state_coordinates(m, klass->coordinate_kind, all, all_names);
    for (guint i = 0; i < outputs->len; i++) {
        int k = g_array_index(outputs, int, i);
        if (k < (int)all->len) {
            g_array_append_val(coords, g_array_index(all, int, k));
            g_ptr_array_add(cnames, all_names->pdata[k]);
        }
    }
    /* and the points checked: x, y, z of each (outputs -1 - j of the plot board) */
    g_autoptr(GArray) points = g_array_new(FALSE, FALSE, sizeof(int));
    if (all->len > 0)
        esl_sensitivity_chooser_get_points(
            esl_run_settings_get_sensitivity(ESL_RUN_SETTINGS(self->run_settings)), points);
    g_autoptr(GPtrArray) point_names = g_ptr_array_new_with_free_func(g_free);
    for (guint i = 0; i < points->len; i++)
        point_outputs(esl_point_name(m, g_array_index(points, int, i)), (int)i, coords,
                      point_names);
    for (guint i = 0; i < point_names->len; i++)
        g_ptr_array_add(cnames, point_names->pdata[i]);
    self->run_duration = settings->duration;
    esl_playback_bar_set_playing(ESL_PLAYBACK_BAR(self->playback_bar), FALSE);
    esl_run_browser_unselect_all(ESL_RUN_BROWSER(self->run_browser));
    esl_window_set_history(self, NULL, TRUE);
    /* fd and adjoint have no running gradient: no empty plots, the table comes at the end */
    esl_plot_board_begin_sensitivity(ESL_PLOT_BOARD(self->plot_board),
                                     (const char *const *)onames->pdata,
                                     method == MBS_SENSITIVITY_DIRECT ? (int)onames->len : 0,
                                     (const char *const *)pnames->pdata, (int)pnames->len,
                                     (const int *)(void *)coords->data,
                                     (const char *const *)cnames->pdata, (int)coords->len);
    self->sensitivity = esl_sensitivity_controller_new(
        m, m->name, klass->name, settings, method, (const int *)(void *)objectives->data,
        (int)objectives->len, (const int *)(void *)parameters->data, (int)parameters->len,
        self->project_path, esl_window_stored_model_id(self));
    MbsSettings method_options; /* the method's own (matrix-r's state derivatives, ...) */
    if (esl_sensitivity_chooser_get_options(
            esl_run_settings_get_sensitivity(ESL_RUN_SETTINGS(self->run_settings)),
            &method_options))
        esl_sensitivity_controller_set_method_options(self->sensitivity, &method_options);
    esl_sensitivity_controller_set_points(self->sensitivity, (const int *)(void *)points->data,
                                          (int)points->len);
    g_signal_connect(self->sensitivity, "rows", G_CALLBACK(on_sensitivity_rows), self);
    g_signal_connect(self->sensitivity, "finished", G_CALLBACK(on_sensitivity_finished), self);
    g_autoptr(GError) error = NULL;
    if (!esl_sensitivity_controller_start(self->sensitivity, &error)) {
        g_clear_object(&self->sensitivity);
        esl_window_show_status(self, TRUE, _("Cannot start the sensitivity run: %s"),
                               error->message);
        return;
    }
    esl_window_show_status(self, FALSE, _("Running %s with %s and %s sensitivities…"), m->name,
                           klass->name, mbs_sensitivity_method_name(method));
    esl_window_update_run_actions(self);
}

void esl_window_start_run(EslWindow *self)
{
    if (esl_window_is_running(self) || !esl_window_model(self))
        return;
    if (esl_model_document_is_installing(self->document)) { /* the edited model is not there yet */
        self->run_when_checked = TRUE;
        esl_window_show_status(self, FALSE, _("Checking the edited model; the run starts once "
                                              "it is checked."));
        return;
    }
    if (esl_model_document_get_check_error(self->document)) {
        esl_window_show_status(self, TRUE, _("The model cannot run: %s"), esl_model_document_get_check_error(self->document));
        return;
    }
    g_autoptr(GError) error = NULL;
    if (!esl_run_settings_check(ESL_RUN_SETTINGS(self->run_settings), &error)) {
        esl_window_show_status(self, TRUE, "%s", error->message);
        return;
    }
    if (!esl_window_ensure_project(self, &error)) {
        esl_window_show_status(self, TRUE, _("No project to store the run in: %s"), error->message);
        return;
    }
    MbsSettings settings;
    esl_window_read_settings(self, &settings);
    const MbsFormulationClass *klass =
        esl_run_settings_get_formulation(ESL_RUN_SETTINGS(self->run_settings));
    if (!klass) {
        esl_window_show_status(self, TRUE, _("No formulation is available in this build."));
        return;
    }
    g_autoptr(GArray) objectives = g_array_new(FALSE, FALSE, sizeof(int));
    g_autoptr(GArray) parameters = g_array_new(FALSE, FALSE, sizeof(int));
    g_autoptr(GArray) outputs = g_array_new(FALSE, FALSE, sizeof(int));
    int method = esl_sensitivity_chooser_get(
        esl_run_settings_get_sensitivity(ESL_RUN_SETTINGS(self->run_settings)), objectives,
        parameters, outputs);
    if (method >= 0) {
        start_sensitivity_run(self, klass, &settings, method, objectives, parameters, outputs);
        return;
    }
    esl_playback_bar_set_playing(ESL_PLAYBACK_BAR(self->playback_bar), FALSE);
    self->run_duration = settings.duration;
    esl_run_browser_unselect_all(ESL_RUN_BROWSER(self->run_browser));
    esl_plot_board_prepare_single(ESL_PLOT_BOARD(self->plot_board));
    if (!klass->own_steps)
        esl_plot_board_set_fixed_step(ESL_PLOT_BOARD(self->plot_board), settings.step,
                                      settings.duration);
    esl_window_set_history(self, NULL, TRUE);
    self->history = g_ptr_array_new_with_free_func((GDestroyNotify)esl_run_sample_free);
    esl_playback_bar_set_range(ESL_PLAYBACK_BAR(self->playback_bar), settings.duration, 0);
    esl_playback_bar_set_seekable(ESL_PLAYBACK_BAR(self->playback_bar), FALSE);
    gtk_label_set_text(GTK_LABEL(self->viewport_note), "");

    self->controller = esl_run_controller_new(esl_window_model(self), esl_window_model(self)->name, klass->name,
                                              &settings, self->project_path,
                                              esl_window_stored_model_id(self));
    g_signal_connect(self->controller, "samples", G_CALLBACK(on_run_samples), self);
    g_signal_connect(self->controller, "finished", G_CALLBACK(on_run_finished), self);
    esl_window_update_pacing(self);
    if (!esl_run_controller_start(self->controller, &error)) {
        g_clear_object(&self->controller);
        esl_window_show_status(self, TRUE, _("Cannot start the run: %s"), error->message);
        return;
    }
    esl_window_show_status(self, FALSE, _("Running %s with %s…"), esl_window_model(self)->name, klass->name);
    self->run_started_us = g_get_monotonic_time();
    self->progress_timer = g_timeout_add(100, progress_timeout, self);
    self->frame_meter = esl_frame_meter_start(GTK_WIDGET(self));
    esl_window_update_run_actions(self);
}

void esl_window_show_newest_run(EslWindow *self)
{
    if (esl_window_model(self) || !self->project)
        return;
    /* only a run stored with its model (and so with its settings) can be shown */
    g_autoptr(GPtrArray) runs = esl_project_list_runs(self->project, NULL);
    const EslRunInfo *newest = NULL;
    for (guint i = 0; runs && i < runs->len; i++) {
        const EslRunInfo *info = runs->pdata[i];
        if (!newest || info->id > newest->id)
            newest = info;
    }
    if (!newest || newest->model_id <= 0)
        return;
    EslRunBrowser *browser = ESL_RUN_BROWSER(self->run_browser);
    esl_run_browser_click_row(browser, 0, 0); /* loads its model from the project */
    g_autoptr(GArray) shown = esl_run_browser_get_selected(browser);
    if (!esl_window_model(self) || shown->len == 0)
        return;
    gtk_notebook_set_current_page(GTK_NOTEBOOK(self->sidebar),
                                  gtk_notebook_page_num(GTK_NOTEBOOK(self->sidebar),
                                                        self->run_browser));
    esl_window_leave_gallery(self);
}

void esl_window_update_pacing(EslWindow *self)
{
    if (!self->controller)
        return;
    esl_run_controller_set_pacing(
        self->controller,
        paced(self) ? esl_playback_bar_get_speed(ESL_PLAYBACK_BAR(self->playback_bar)) : 0.0);
}

void esl_window_update_run_actions(EslWindow *self)
{
    gboolean running = esl_window_is_running(self);
    GtkWidget *widget = GTK_WIDGET(self);
    /* A text that does not load cannot run; an edited one runs once checked
     * (esl-window-assemble.c). */
    gtk_widget_action_set_enabled(widget, "win.run",
                                  !running && esl_window_model(self) && !esl_model_document_get_check_error(self->document));
    gtk_widget_action_set_enabled(widget, "win.pause", self->controller != NULL);
    gtk_widget_action_set_enabled(widget, "win.stop", running);
    /* stepping goes through stored samples: of a run shown, not of one going on */
    gboolean steppable = !running && self->history && self->history->len > 1;
    gtk_widget_action_set_enabled(widget, "win.step-forward", steppable);
    gtk_widget_action_set_enabled(widget, "win.step-backward", steppable);
    gtk_widget_action_set_enabled(widget, "win.export-points",
                                  self->history && self->history->len > 0 &&
                                      self->history_matches_model);
    gtk_widget_set_sensitive(self->run_settings, !running);
    esl_model_panel_set_editable(ESL_MODEL_PANEL(self->model_panel), !running);
    gtk_widget_action_set_enabled(widget, "win.save-model", esl_window_model(self) != NULL);
    gtk_widget_action_set_enabled(widget, "win.export-view", esl_window_model(self) != NULL);
}

void esl_window_toggle_pause(EslWindow *self)
{
    if (!self->controller)
        return;
    if (esl_run_controller_is_paused(self->controller)) {
        esl_run_controller_resume(self->controller);
        gtk_widget_remove_css_class(self->pause_button, "suggested-action");
        esl_window_show_status(self, FALSE, _("Resumed."));
    } else {
        esl_run_controller_pause(self->controller);
        gtk_widget_add_css_class(self->pause_button, "suggested-action");
        esl_window_show_status(self, FALSE, _("Paused: press Pause again to resume."));
    }
}

void esl_window_stop_run(EslWindow *self)
{
    if (self->controller)
        esl_run_controller_stop(self->controller);
    if (self->sensitivity)
        esl_sensitivity_controller_stop(self->sensitivity);
}

/* ---- stored runs --------------------------------------------------------------------------- */

static GPtrArray *history_from_store(const EslRunHistory *h)
{
    GPtrArray *samples = g_ptr_array_new_with_free_func((GDestroyNotify)esl_run_sample_free);
    for (int i = 0; i < h->n; i++) {
        EslRunSample *s = esl_run_sample_new(h->nbodies, h->njoints);
        s->monitors = h->monitors[i];
        if (h->poses)
            memcpy(s->poses, h->poses + (gsize)i * h->nbodies * 12,
                   sizeof(double) * h->nbodies * 12);
        if (h->violations)
            memcpy(s->violations, h->violations + (gsize)i * h->njoints,
                   sizeof(double) * h->njoints);
        g_ptr_array_add(samples, s);
    }
    return samples;
}

/* The run panel's sensitivity chooser shows the stored run's method and the method's own
 * options (a plain run: none), as the panel shows its formulation settings. Returns a note
 * for the status line when the options cannot be shown as they were (a run stored before
 * they were, or options that do not read), else NULL. */
static char *show_stored_method(EslWindow *self, const char *formulation,
                                const EslSensitivityRun *run)
{
    EslSensitivityChooser *chooser =
        esl_run_settings_get_sensitivity(ESL_RUN_SETTINGS(self->run_settings));
    if (!run) {
        esl_sensitivity_chooser_set_method(chooser, NULL);
        return NULL;
    }
    if (!esl_sensitivity_chooser_set_method(chooser, run->method))
        return NULL; /* a method this build has not: nothing to show it in */
    MbsSettings options;
    g_autoptr(GError) error = NULL;
    gboolean read = esl_sensitivity_run_method_options(run, formulation, &options, &error);
    if (!options.options_table)
        return NULL; /* the method has no options of its own */
    if (!read) { /* what did read is not shown either */
        const MbsSettingTable *t = options.options_table;
        mbs_settings_defaults(&options);
        mbs_settings_use_options(&options, t);
    }
    esl_sensitivity_chooser_show_options(chooser, &options);
    if (!read)
        return g_strdup_printf(_(" (its method options do not read: %s; the defaults are "
                                 "shown)"), error->message);
    if (!run->method_options)
        return g_strdup(_(" (stored before method options were: the defaults are shown)"));
    return NULL;
}

/* A stored optimisation: the run panel shows its formulation and settings, the plot board its
 * evaluations, the status line how it ended (note: what loading its model said, or NULL); the
 * Optimise dialog shows it with its choices when it opens (esl-window-optimize.c)
 * or, open already, at once. */
static void show_stored_optimization(EslWindow *self, const EslRunInfo *info, const char *note)
{
    g_autoptr(GError) error = NULL;
    g_autoptr(EslOptimizationRun) run = esl_project_load_optimization(self->project, info->id,
                                                                      &error);
    g_autofree char *id = g_strdup_printf("#%" G_GINT64_FORMAT, info->id);
    if (!run) {
        esl_window_show_status(self, TRUE, _("Cannot load the optimisation %s: %s"), id,
                               error->message);
        return;
    }
    esl_window_set_history(self, NULL, TRUE);
    esl_plot_board_show_optimization(ESL_PLOT_BOARD(self->plot_board), run);
    esl_run_settings_show(ESL_RUN_SETTINGS(self->run_settings), info->formulation,
                          &info->settings);
    gtk_label_set_text(GTK_LABEL(self->viewport_note),
                       note ? note
                            : _("An optimisation stores its evaluations (plotted below), not a "
                                "motion: run the model to see one."));
    if (self->optimize_dialog && gtk_widget_get_visible(self->optimize_dialog))
        esl_window_present_optimizer(self);
    g_autofree char *result = esl_optimize_dialog_stored_result_text(run, info->message);
    esl_window_show_status(self, info->status == ESL_RUN_FAILED ||
                                     info->status == ESL_RUN_INTERRUPTED,
                           _("Run %s (%s, optimisation of %s): %s Project ▸ Optimise Design… "
                             "shows its choices and applies its best point."),
                           id, info->formulation, run->objective, result);
}

static void load_single_run(EslWindow *self, gint64 run_id)
{
    g_autoptr(GError) error = NULL;
    g_autoptr(EslRunInfo) info = esl_project_get_run(self->project, run_id, &error);
    g_autoptr(EslRunHistory) h = info ? esl_project_load_run(self->project, run_id, &error) : NULL;
    g_autofree char *id = g_strdup_printf("#%" G_GINT64_FORMAT, run_id);
    if (!h) {
        esl_window_show_status(self, TRUE, _("Cannot load run %s: %s"), id, error->message);
        return;
    }
    /* The run's own model (stored with it) is loaded to replay it, unless the model shown has
     * unsaved edits. */
    g_autofree char *note = NULL;
    g_autofree char *run_json =
        info->model_id > 0 ? esl_project_model_json(self->project, info->model_id, NULL) : NULL;
    if (run_json && g_strcmp0(run_json, esl_window_json(self)) != 0) {
        g_autoptr(GError) model_error = NULL;
        g_autofree char *origin = g_strdup_printf("%s.json", info->model_name);
        MbsModel *m = esl_model_document_is_modified(self->document)
                          ? NULL
                          : esl_model_load_string(run_json, origin, NULL, 0, &model_error);
        if (m) {
            esl_window_install_model(self, m, g_steal_pointer(&run_json), g_steal_pointer(&origin));
            note = g_strdup_printf(_("Model %s of run %s loaded from the project."),
                                   info->model_name, id);
        } else if (esl_model_document_is_modified(self->document)) {
            note = g_strdup(_("This run belongs to another model: save the edited model (Project "
                              "▸ Save Model As…) to replay it in 3D."));
        } else {
            note = g_strdup_printf(_("The model of this run cannot be loaded: %s"),
                                   model_error->message);
        }
    }
    if (esl_project_run_is_optimization(self->project, run_id)) {
        show_stored_optimization(self, info, note);
        show_stored_progress(self, info, NAN);
        return;
    }
    show_stored_progress(self, info, h->n > 0 ? h->monitors[h->n - 1].time : 0.0);
    gboolean matches = esl_window_model(self) && h->nbodies == esl_window_model(self)->nbodies &&
                       h->njoints == esl_window_model(self)->njoints &&
                       g_strcmp0(info->model_name, esl_window_model(self)->name) == 0 &&
                       (!run_json || g_strcmp0(run_json, esl_window_json(self)) == 0);
    esl_plot_board_prepare_single(ESL_PLOT_BOARD(self->plot_board));
    for (int i = 0; i < h->n; i++)
        esl_plot_board_append(ESL_PLOT_BOARD(self->plot_board), &h->monitors[i]);
    g_autoptr(GArray) steps = esl_project_load_internal_steps(self->project, run_id, NULL);
    if (steps)
        esl_plot_board_set_step_sizes(ESL_PLOT_BOARD(self->plot_board),
                                      (const EslInternalStep *)(void *)steps->data,
                                      (int)steps->len);
    const MbsFormulationClass *run_class = mbs_formulation_find(info->formulation);
    if (run_class && !run_class->own_steps)
        esl_plot_board_set_fixed_step(ESL_PLOT_BOARD(self->plot_board), info->settings.step,
                                      h->n > 0 ? h->monitors[h->n - 1].time : 0.0);
    g_autoptr(GError) sensitivity_error = NULL;
    g_autoptr(EslSensitivityRun) sensitivity =
        esl_project_run_is_sensitivity(self->project, run_id)
            ? esl_project_load_sensitivity(self->project, run_id, &sensitivity_error)
            : NULL;
    if (sensitivity) {
        /* the stored d q / d rho, named from the model when the run is of the one shown */
        g_autoptr(GArray) coords = g_array_new(FALSE, FALSE, sizeof(int));
        g_autoptr(GPtrArray) cnames = g_ptr_array_new_with_free_func(g_free);
        if (sensitivity->nstate > 0)
            stored_state_coordinates(esl_window_model(self) && g_strcmp0(info->model_name,
                                                              esl_window_model(self)->name) == 0
                                         ? esl_window_model(self)
                                         : NULL,
                                     run_class,
                                     sensitivity->nstate, coords, cnames);
        for (int j = 0; sensitivity->history_points && j < sensitivity->npoints; j++)
            point_outputs(g_strdup(sensitivity->points[j]), j, coords, cnames);
        esl_plot_board_show_sensitivity(ESL_PLOT_BOARD(self->plot_board), sensitivity,
                                        (const int *)(void *)coords->data,
                                        (const char *const *)cnames->pdata, (int)coords->len);
    }
    esl_window_set_history(self, history_from_store(h), matches);
    esl_window_fit_history(self);
    esl_run_settings_show(ESL_RUN_SETTINGS(self->run_settings), info->formulation,
                          &info->settings);
    g_autofree char *options_note = show_stored_method(self, info->formulation, sensitivity);
    gtk_label_set_text(GTK_LABEL(self->viewport_note),
                       note          ? note
                       : sensitivity ? _("A sensitivity run stores its gradients (plotted "
                                         "below), not the motion: run the model to replay it.")
                       : matches     ? ""
                                 : _("This run belongs to another model: open that model to "
                                     "replay it in 3D."));
    g_autofree char *what = sensitivity ? g_strdup_printf(_("%s, %s sensitivities"),
                                                          info->formulation, sensitivity->method)
                                        : g_strdup(info->formulation);
    if (sensitivity_error)
        esl_window_show_status(self, TRUE, _("Cannot load the sensitivities of run %s: %s"), id,
                               sensitivity_error->message);
    else
        esl_window_show_status(
            self, info->status == ESL_RUN_FAILED || info->status == ESL_RUN_INTERRUPTED,
            _("Run %s (%s): %s%s%s%s"), id, what, esl_run_status_label(info->status),
            info->message ? " — " : "", info->message ? info->message : "",
            options_note ? options_note : "");
}

static void load_overlay(EslWindow *self, GArray *ids)
{
    esl_plot_board_clear(ESL_PLOT_BOARD(self->plot_board));
    esl_window_set_history(self, NULL, FALSE);
    esl_plot_board_set_cursor(ESL_PLOT_BOARD(self->plot_board), NAN);
    esl_playback_bar_set_label(ESL_PLAYBACK_BAR(self->playback_bar), "");
    gtk_label_set_text(GTK_LABEL(self->viewport_note),
                       _("Comparing runs: select a single run to replay it."));
    int k;
    GPtrArray *compared = g_ptr_array_new_with_free_func((GDestroyNotify)esl_compared_run_free);
    for (k = 0; k < (int)ids->len; k++) {
        gint64 id = g_array_index(ids, gint64, k);
        g_autoptr(GError) error = NULL;
        g_autoptr(EslRunInfo) info = esl_project_get_run(self->project, id, &error);
        g_autoptr(EslRunHistory) h = info ? esl_project_load_run(self->project, id, &error) : NULL;
        if (!h)
            continue;
        g_autofree char *name = g_strdup_printf("#%" G_GINT64_FORMAT " %s h=%g", id,
                                                info->formulation, info->settings.step);
        esl_plot_board_add_run(ESL_PLOT_BOARD(self->plot_board), k, name, h->monitors, h->n);
        /* the runs of the model shown: their variables are plotted too */
        if (esl_window_model(self) && g_strcmp0(info->model_name, esl_window_model(self)->name) == 0)
            g_ptr_array_add(compared, esl_compared_run_new(name, k, g_steal_pointer(&h)));
    }
    esl_window_set_compared(self, compared);
    esl_window_show_status(self, FALSE,
                           _("Comparing %d runs: total energy, drift, ‖Φ‖, step time and "
                             "Newton iterations of each."),
                           k);
}

/* Several sensitivity runs of the same objectives and parameters: their gradients side by side.
 * FALSE when the selection is not such (then it is compared as runs are). */
static gboolean show_agreement(EslWindow *self, GArray *ids)
{
    g_autoptr(GPtrArray) runs =
        g_ptr_array_new_with_free_func((GDestroyNotify)esl_sensitivity_run_free);
    for (guint i = 0; i < ids->len; i++) {
        gint64 id = g_array_index(ids, gint64, i);
        EslSensitivityRun *run = esl_project_run_is_sensitivity(self->project, id)
                                     ? esl_project_load_sensitivity(self->project, id, NULL)
                                     : NULL;
        if (!run)
            return FALSE;
        g_ptr_array_add(runs, run);
    }
    esl_window_set_history(self, NULL, TRUE);
    if (!esl_plot_board_show_agreement(ESL_PLOT_BOARD(self->plot_board),
                                       (EslSensitivityRun *const *)runs->pdata, (int)runs->len)) {
        esl_window_show_status(self, TRUE, _("These sensitivity runs differentiate different "
                                             "objectives or parameters: nothing to compare."));
        return TRUE;
    }
    esl_window_show_status(self, FALSE, _("%u sensitivity runs side by side."), runs->len);
    return TRUE;
}

void esl_window_show_selected_runs(EslWindow *self)
{
    if (esl_window_is_running(self))
        return;
    g_autoptr(GArray) ids = esl_run_browser_get_selected(ESL_RUN_BROWSER(self->run_browser));
    if (ids->len == 1)
        load_single_run(self, g_array_index(ids, gint64, 0));
    else if (ids->len > 1 && !show_agreement(self, ids))
        load_overlay(self, ids);
}
