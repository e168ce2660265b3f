/* EslPlaybackBar: play/pause of the history shown, the time slider, the playback speed and the
 * time of the state shown. The window exposes "playing" as its stateful action win.playback. */
#ifndef ESL_PLAYBACK_BAR_H
#define ESL_PLAYBACK_BAR_H

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define ESL_TYPE_PLAYBACK_BAR (esl_playback_bar_get_type())
G_DECLARE_FINAL_TYPE(EslPlaybackBar, esl_playback_bar, ESL, PLAYBACK_BAR, GtkWidget)

/* Whether there is something to play (a history of two samples or more, no run going on);
 * FALSE also stops the playback. */
void esl_playback_bar_set_playable(EslPlaybackBar *self, gboolean playable);
void esl_playback_bar_set_playing(EslPlaybackBar *self, gboolean playing);
gboolean esl_playback_bar_get_playing(EslPlaybackBar *self);
/* Slider range [0, end] and position, without emitting "time-changed". */
void esl_playback_bar_set_range(EslPlaybackBar *self, double end, double time);
double esl_playback_bar_get_end(EslPlaybackBar *self);
/* Move the slider (clamped to its range); emits "time-changed". */
void esl_playback_bar_seek(EslPlaybackBar *self, double time);
double esl_playback_bar_get_time(EslPlaybackBar *self);
/* Whether the user may move the slider. */
void esl_playback_bar_set_seekable(EslPlaybackBar *self, gboolean seekable);
/* The text next to the slider (the time of the state shown). */
void esl_playback_bar_set_label(EslPlaybackBar *self, const char *text);
/* Simulated seconds per second; FALSE when the speed menu does not offer it. */
gboolean esl_playback_bar_set_speed(EslPlaybackBar *self, double speed);
double esl_playback_bar_get_speed(EslPlaybackBar *self);

/* Properties: "playing" (boolean), "speed" (double, read-only: the speed menu's choice).
 * Signals: "time-changed" (double time) when the user or the playback moves the slider. */

G_END_DECLS

#endif
