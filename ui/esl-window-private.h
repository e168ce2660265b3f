/* EslWindow's fields and the functions its three files share (esl-window.c: composition, model
 * and project; esl-window-run.c: runs, live and stored; esl-window-actions.c: the actions). */
#ifndef ESL_WINDOW_PRIVATE_H
#define ESL_WINDOW_PRIVATE_H

#include "esl-window-testing.h"

#include "esl-frame-meter.h"
#include "esl-model-build.h"
#include "esl-model-document.h"
#include "esl-model-panel.h"
#include "esl-optimize-dialog.h"
#include "esl-playback-bar.h"
#include "esl-plot-board.h"
#include "esl-project.h"
#include "esl-run-browser.h"
#include "esl-run-controller.h"
#include "esl-sensitivity-controller.h"
#include "esl-run-settings.h"
#include "esl-start-page.h"
#include "esl-viewport.h"

G_BEGIN_DECLS

struct _EslWindow {
    GtkApplicationWindow parent_instance;

    /* template: the parts */
    GtkWidget *stack, *start_page, *model_panel, *run_browser, *viewport, *playback_bar;
    GtkWidget *plot_board, *run_settings, *color_scale;
    GtkWidget *variable_browser; /* EslVariableBrowser, made when first asked for, or NULL */
    GtkWidget *objective_editor; /* EslObjectiveEditor, made when first asked for, or NULL */
    GtkWidget *optimize_dialog;  /* EslOptimizeDialog, made when first asked for, or NULL */
    GtkWidget *tyre_dialog;      /* EslTyreDialog, made when first asked for, or NULL */
    GtkWidget *video_dialog;     /* EslVideoDialog, made when first asked for, or NULL */
    GtkWidget *sidebar, *run_column, *view_paned; /* run_column: settings, progress, status */
    /* template: what the window itself writes to */
    GMenu *recent_menu;
    GtkWidget *viewport_note, *progress_bar, *progress_label, *status_label, *project_label;
    GtkWidget *title_label, *subtitle_label, *pause_button, *back_button;
    GtkWidget *error_revealer, *error_label; /* an error in full under the header bar */

    EslModelDocument *document; /* the model, its file, its undo history, its check */
    gboolean edits_discarded;   /* the user chose to discard the edits: close without asking */

    EslProject *project;
    char *project_path;
    gboolean project_is_temporary;
    GHashTable *model_ids; /* model path -> stored model id (in this project) */

    EslRunController *controller;
    EslSensitivityController *sensitivity; /* a sensitivity run going on (esl-window-run.c) */
    GPtrArray *history; /* EslRunSample* of the run shown (live or loaded) */
    gboolean history_matches_model;
    GPtrArray *compared; /* EslComparedRun: the runs compared that are of the model shown */
    guint progress_timer;
    EslFrameMeter *frame_meter; /* the window's frames while a run goes on */
    int selected_body; /* body whose centre of mass leaves a trail, or -1 */
    double run_duration; /* duration of the run going on */
    gint64 run_started_us; /* when it started (monotonic clock) */
    GtkWidget *question;         /* a question to the user (stop the run? save the edits?) */
    gboolean close_when_stopped; /* the user chose to close: do it once the run is stored */
    /* before presentation mode: the 3D view's height, the side panels' split positions */
    int paned_position_before, sidebar_position_before, run_panel_position_before;

    /* building the model (esl-window-assemble.c) */
    GtkWidget *model_editor;
    gulong checked_handler;    /* the document's "checked" */
    gboolean run_when_checked; /* Run was asked for during the check of an edit */
    int nbodies_before_check;  /* of the model shown when the edit checked was made */
};

/* The document's model (the last that loaded; NULL: none open) and text as edited. */
static inline MbsModel *esl_window_model(EslWindow *self)
{
    return esl_model_document_get_model(self->document);
}
static inline const char *esl_window_json(EslWindow *self)
{
    return esl_model_document_get_json(self->document);
}

/* esl-window.c */
void esl_window_show_status(EslWindow *self, gboolean is_error, const char *format, ...)
    G_GNUC_PRINTF(3, 4);
void esl_window_update_titles(EslWindow *self);
/* Make model (built from json, read from path) the window's model; takes the three. */
void esl_window_install_model(EslWindow *self, MbsModel *model, char *json, char *path);
/* The history shown (taken; NULL: none) and whether it is a motion of the model shown. */
void esl_window_set_history(EslWindow *self, GPtrArray *history, gboolean matches_model);
/* Show a state (NULL poses: the model as drawn) in the 3D view and on the colour legend. */
void esl_window_show_state(EslWindow *self, const double *poses, const double *violations);
/* The history's sample nearest to time t, or -1 when there is none. */
int esl_window_history_index_at(EslWindow *self, double t);
/* Trail of the selected body over samples 0..upto of the history. */
void esl_window_update_trail(EslWindow *self, int upto);
/* Frame the whole motion of the history. */
void esl_window_fit_history(EslWindow *self);
/* esl-window-project.c */
void esl_window_class_bind_project_callbacks(GtkWidgetClass *widget_class);
/* Close the project (a temporary one is deleted). */
void esl_window_close_project(EslWindow *self);
/* Open a temporary project when none is open. */
gboolean esl_window_ensure_project(EslWindow *self, GError **error);
void esl_window_fill_runs(EslWindow *self);
/* A run or a sensitivity run is going on. */
gboolean esl_window_is_running(EslWindow *self);
/* The run settings shown in the run panel. */
void esl_window_read_settings(EslWindow *self, MbsSettings *settings);

/* esl-window-run.c */
/* No run shown: the progress area empty (it kept the last run's numbers after another model,
 * a project reopened or the run deleted). */
void esl_window_clear_progress(EslWindow *self);
/* The project's id of the model's text as it is now (stored once per distinct text). */
gint64 esl_window_stored_model_id(EslWindow *self);
void esl_window_start_run(EslWindow *self);
void esl_window_toggle_pause(EslWindow *self);
void esl_window_stop_run(EslWindow *self);
/* Closing during a run: asks (stop and close / cancel) and returns TRUE (the window stays for
 * now); FALSE when no run goes on. */
gboolean esl_window_ask_close(EslWindow *self);
/* A project opened alone (no model open): its newest run and its model are shown, with the
 * Runs page (the gallery stayed in front of a project of runs). */
void esl_window_show_newest_run(EslWindow *self);
/* Replay or compare the runs selected in the run browser. */
void esl_window_show_selected_runs(EslWindow *self);
/* Pace the run going on as win.real-time and the playback speed say. */
void esl_window_update_pacing(EslWindow *self);
/* Enable the actions and parts that depend on a model and on a run going on. */
void esl_window_update_run_actions(EslWindow *self);

/* What the window does once unsaved edits are saved or discarded. */
typedef void (*EslWindowThen)(EslWindow *self, const char *path);
/* With unsaved model edits, ask (save / discard / cancel) and then (unless cancelled) call
 * then(self, path); without edits, call it at once. */
void esl_window_ask_unsaved(EslWindow *self, EslWindowThen then, const char *path);

/* esl-window-violations.c */
void esl_window_init_violations(EslWindow *self);
/* The legend's joint violated most over the history shown (none while a run goes on). */
void esl_window_update_worst_over_run(EslWindow *self);

/* esl-window-presentation.c */
/* Presentation mode on or off as win.presentation, win.presentation-plot and
 * win.presentation-text say. */
void esl_window_update_presentation(EslWindow *self);
gboolean esl_window_is_presenting(EslWindow *self);
/* Escape's handler: leaves presentation mode (FALSE when not presenting). */
gboolean esl_window_escape_from_presentation(GtkWidget *widget, GVariant *args, gpointer data);
/* A Step Through window just opened: presented too when the window is. */
void esl_window_present_step_view(EslWindow *self, GtkWindow *view);
void esl_window_init_presentation(EslWindow *self);

/* esl-window-actions.c */
void esl_window_class_install_actions(GtkWidgetClass *widget_class);
void esl_window_init_actions(EslWindow *self);
/* esl-window-vehicle.c: win.follow-body and win.tyre-curves */
void esl_window_init_vehicle_actions(EslWindow *self);
/* win.studies (esl-window-studies.c) */
void esl_window_init_study_actions(EslWindow *self);
void esl_window_fill_recent_menu(EslWindow *self);
/* Save the model's text to path (it becomes the model's file). */
void esl_window_save_model_path(EslWindow *self, const char *path);
/* esl-window-save.c: Save Model (win.save-model-file), and the model's name as shown. */
void esl_window_class_install_save_actions(GtkWidgetClass *widget_class);
gboolean esl_window_model_saved_in_place(EslWindow *self);
char *esl_window_model_display_name(EslWindow *self);
/* Ask for a file to save the model in; once saved, call then(self, path). */
void esl_window_choose_model_file(EslWindow *self, EslWindowThen then, const char *path);
/* Leave the gallery for the workbench when a model is open; FALSE when there is none. */
gboolean esl_window_leave_gallery(EslWindow *self);

/* esl-window-variables.c */
void esl_window_class_install_variable_actions(GtkWidgetClass *widget_class);
/* A run compared with others whose motion is of the model shown: its variables are plotted. */
typedef struct {
    char *name; /* as the legends name it */
    int color;  /* its colour in the monitor plots' comparison (esl_plot_board_add_run's k) */
    EslRunHistory *history;
} EslComparedRun;
EslComparedRun *esl_compared_run_new(const char *name, int color,
                                     EslRunHistory *history /* taken */);
void esl_compared_run_free(EslComparedRun *run);
/* The runs compared (taken; NULL: none), then the variable plots drawn again for the runs
 * shown: the history, or else the runs compared. */
void esl_window_set_compared(EslWindow *self, GPtrArray *compared);
/* The model shown changed: the variable browser lists its variables. */
void esl_window_variables_model_changed(EslWindow *self);
/* Enable the plot actions as the plot board is now. */
void esl_window_update_plot_actions(EslWindow *self);

/* esl-window-assemble.c */
void esl_window_class_install_assemble_actions(GtkWidgetClass *widget_class);
/* The model just installed starts a new undo history. */
void esl_window_begin_edits(EslWindow *self);
/* json (taken) is the model's text after an edit named label: it can be undone, the model is
 * marked modified and checked again on a worker. */
void esl_window_commit_edit(EslWindow *self, char *json, const char *label);
/* Cancel the check under way and forget the history (the window goes away). */
void esl_window_end_edits(EslWindow *self);
/* A dialog's Apply (the objective editor's, the optimiser's): json is the model's text after
 * one edit named label (undoable), checked on a worker; refused while a run goes on or when the
 * model changed since the dialog read it (base_json). */
gboolean esl_window_commit_from_dialog(EslWindow *self, const char *base_json, const char *json,
                                       const char *label, GError **error);
/* esl-window-optimize.c: win.optimize. The Optimise dialog over the window's model, with the run panel's formulation and settings,
 * storing in the window's project (made when none is open), presented; NULL with the reason on
 * the status line when there is no model or no project. */
EslOptimizeDialog *esl_window_present_optimizer(EslWindow *self);
void esl_window_class_install_optimize_actions(GtkWidgetClass *widget_class);
/* esl-window-video.c: win.export-video (File ▸ Export Video…) */
void esl_window_class_install_video_actions(GtkWidgetClass *widget_class);
G_END_DECLS

#endif
