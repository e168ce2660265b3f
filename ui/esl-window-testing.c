/* EslWindow's probes for the tests: see esl-window-testing.h. */
#include "esl-window-private.h"

#include "esl-color-scale.h"

void esl_window_set_duration(EslWindow *self, double duration)
{
    esl_run_settings_set_duration(ESL_RUN_SETTINGS(self->run_settings), duration);
}

gboolean esl_window_set_sensitivity_method(EslWindow *self, const char *name)
{
    return esl_sensitivity_chooser_set_method(
        esl_run_settings_get_sensitivity(ESL_RUN_SETTINGS(self->run_settings)), name);
}

int esl_window_sensitivity_points(EslWindow *self, int *state_points)
{
    EslPlotBoard *board = ESL_PLOT_BOARD(self->plot_board);
    if (state_points)
        *state_points = esl_plot_board_state_sensitivity_points(board);
    return esl_plot_board_sensitivity_points(board);
}

const char *esl_window_get_viewport_error(EslWindow *self)
{
    return esl_viewport_get_error(ESL_VIEWPORT(self->viewport));
}

void esl_window_select_body(EslWindow *self, int body)
{
    esl_model_panel_select(ESL_MODEL_PANEL(self->model_panel), ESL_SOURCE_BODY, body);
}

void esl_window_seek(EslWindow *self, double time)
{
    esl_playback_bar_seek(ESL_PLAYBACK_BAR(self->playback_bar), time);
}

const char *esl_window_get_project_size_text(EslWindow *self)
{
    return esl_run_browser_get_size_text(ESL_RUN_BROWSER(self->run_browser));
}

const char *esl_window_get_page(EslWindow *self)
{
    return gtk_stack_get_visible_child_name(GTK_STACK(self->stack));
}

double esl_window_get_largest_violation(EslWindow *self)
{
    return esl_color_scale_get_value(ESL_COLOR_SCALE(self->color_scale));
}

gboolean esl_window_step_sample(EslWindow *self, int direction)
{
    if (self->controller || !self->history || self->history->len < 2)
        return FALSE;
    EslPlaybackBar *bar = ESL_PLAYBACK_BAR(self->playback_bar);
    esl_playback_bar_set_playing(bar, FALSE);
    int i = esl_window_history_index_at(self, esl_playback_bar_get_time(bar));
    int next = CLAMP(i + (direction < 0 ? -1 : 1), 0, (int)self->history->len - 1);
    if (next == i)
        return FALSE;
    esl_playback_bar_seek(bar, ((EslRunSample *)self->history->pdata[next])->monitors.time);
    return TRUE;
}

double esl_window_get_time(EslWindow *self)
{
    return esl_playback_bar_get_time(ESL_PLAYBACK_BAR(self->playback_bar));
}

gboolean esl_window_set_playback_speed(EslWindow *self, double speed)
{
    return esl_playback_bar_set_speed(ESL_PLAYBACK_BAR(self->playback_bar), speed);
}

const char *esl_window_get_model_json(EslWindow *self)
{
    return esl_window_json(self);
}

gboolean esl_window_is_checking(EslWindow *self)
{
    return esl_model_document_is_checking(self->document);
}

const char *esl_window_get_check_error(EslWindow *self)
{
    return esl_model_document_get_check_error(self->document);
}

void esl_window_get_mobility(EslWindow *self, int *dof, int *redundant)
{
    esl_model_document_get_mobility(self->document, dof, redundant);
}

