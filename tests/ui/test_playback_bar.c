/* EslPlaybackBar (ui/esl-playback-bar.c): the slider emits "time-changed" when moved, not when
 * its range is set; playing is refused with nothing to play (and said so through "playing",
 * for the toggle button of win.playback); playback advances on the frame clock at the chosen
 * speed and stops at the end. Needs a display (xvfb-run). */
#include <gtk/gtk.h>
#include <math.h>

#include "esl-playback-bar.h"
#include "tap.h"

typedef struct {
    int time_changes, playing_notes;
    double last_time;
} Seen;

static void on_time_changed(EslPlaybackBar *bar, double t, Seen *seen)
{
    (void)bar;
    seen->time_changes++;
    seen->last_time = t;
}

static void on_playing(GObject *bar, GParamSpec *pspec, Seen *seen)
{
    (void)bar;
    (void)pspec;
    seen->playing_notes++;
}

static gboolean quit_loop(gpointer loop)
{
    g_main_loop_quit(loop);
    return G_SOURCE_REMOVE;
}

int main(void)
{
    gtk_init();
    GtkWidget *window = gtk_window_new();
    EslPlaybackBar *bar = g_object_new(ESL_TYPE_PLAYBACK_BAR, NULL);
    gtk_window_set_child(GTK_WINDOW(window), GTK_WIDGET(bar));
    Seen seen = {0};
    g_signal_connect(bar, "time-changed", G_CALLBACK(on_time_changed), &seen);
    g_signal_connect(bar, "notify::playing", G_CALLBACK(on_playing), &seen);

    tap_close(esl_playback_bar_get_speed(bar), 1.0, 0,
              "playback starts at 1x (issue 12: the template selected 0.1x)");
    esl_playback_bar_set_range(bar, 2.0, 2.0);
    tap_ok(seen.time_changes == 0, "setting the range emits no time-changed");
    tap_close(esl_playback_bar_get_end(bar), 2.0, 0, "end of the range");
    tap_close(esl_playback_bar_get_time(bar), 2.0, 0, "time set with the range");
    esl_playback_bar_seek(bar, 0.5);
    tap_ok(seen.time_changes == 1 && seen.last_time == 0.5, "seek emits time-changed (0.5 s)");
    esl_playback_bar_seek(bar, 5.0);
    tap_close(seen.last_time, 2.0, 0, "seek beyond the end is clamped to it");

    tap_ok(esl_playback_bar_set_speed(bar, 0.25) && esl_playback_bar_set_speed(bar, 4.0) &&
               !esl_playback_bar_set_speed(bar, 3.0),
           "the speed menu offers 0.25x and 4x, not 3x");

    esl_playback_bar_set_playable(bar, FALSE);
    g_object_set(bar, "playing", TRUE, NULL);
    gboolean playing = TRUE;
    g_object_get(bar, "playing", &playing, NULL);
    tap_ok(!playing && seen.playing_notes == 1,
           "playing is refused with nothing to play, and notified (%d)", seen.playing_notes);

    /* Playback on the frame clock of a shown window. */
    gtk_window_present(GTK_WINDOW(window));
    GMainLoop *loop = g_main_loop_new(NULL, FALSE);
    for (int i = 0; i < 100 && !gtk_widget_get_mapped(GTK_WIDGET(bar)); i++) {
        g_timeout_add(20, quit_loop, loop);
        g_main_loop_run(loop);
    }
    g_timeout_add(200, quit_loop, loop); /* the first frames */
    g_main_loop_run(loop);
    esl_playback_bar_set_range(bar, 0.2, 0.2);
    esl_playback_bar_set_speed(bar, 0.5);
    esl_playback_bar_set_playable(bar, TRUE);
    seen.time_changes = 0;
    esl_playback_bar_set_playing(bar, TRUE);
    tap_ok(esl_playback_bar_get_playing(bar), "plays once there is something to play");
    tap_close(seen.last_time, 0.0, 0, "from the start when the slider was at the end");
    /* 0.2 s at 0.5x is 0.4 s of wall time; give the frame clock up to 5 s. */
    gint64 start = g_get_monotonic_time();
    while (esl_playback_bar_get_playing(bar) && g_get_monotonic_time() - start < 5000000) {
        g_timeout_add(10, quit_loop, loop);
        g_main_loop_run(loop);
    }
    double wall = (g_get_monotonic_time() - start) * 1e-6;
    tap_ok(!esl_playback_bar_get_playing(bar), "playback stops by itself (after %.2f s)", wall);
    tap_ok(wall >= 0.36, "at 0.5x, 0.2 s of motion take at least 0.4 s (less one frame): %.2f s",
           wall);
    tap_close(esl_playback_bar_get_time(bar), 0.2, 0, "at the end of the range");
    tap_ok(seen.time_changes > 2, "the slider moved through %d times", seen.time_changes);

    esl_playback_bar_set_playing(bar, TRUE);
    tap_ok(esl_playback_bar_get_playing(bar), "plays again");
    esl_playback_bar_set_playable(bar, FALSE);
    tap_ok(!esl_playback_bar_get_playing(bar), "stops when there is nothing to play any more");

    g_main_loop_unref(loop);
    gtk_window_destroy(GTK_WINDOW(window));
    return tap_done();
}
