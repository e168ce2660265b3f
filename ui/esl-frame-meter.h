/* EslFrameMeter: how long the main thread works on each frame of a widget's window.
 *
 * For every frame the window's GdkFrameClock goes through (only when something asked for a
 * redraw or a tick callback runs: idle frames are not counted) it records the work (from the start of the
 * frame's "before-paint" phase to the end of "after-paint": tick callbacks, layout, snapshot and
 * rendering of the window, the 3D view included) and the interval since the previous frame.
 * The interval is paced by the display (about 16.7 ms at 60 Hz) when the work fits in a frame;
 * the work is what must stay under 16 ms for the UI to keep up.
 */
#ifndef ESL_FRAME_METER_H
#define ESL_FRAME_METER_H

#include <gtk/gtk.h>

G_BEGIN_DECLS

typedef struct EslFrameMeter EslFrameMeter;

typedef struct {
    guint frames;
    double span;                                /* s from first to last frame */
    double work_median, work_p95, work_max;     /* ms */
    double interval_median, interval_p95, interval_max; /* ms */
} EslFrameStats;

/* Starts measuring the frames of widget's window (the widget must be realized). */
EslFrameMeter *esl_frame_meter_start(GtkWidget *widget);
/* Median work (ms) of the last n frames so far (0 when none), for a live read-out. */
double esl_frame_meter_recent_work(EslFrameMeter *meter, guint n);
/* Stops measuring and fills stats (zeros when there were no frames). */
void esl_frame_meter_stop(EslFrameMeter *meter, EslFrameStats *stats);
void esl_frame_meter_free(EslFrameMeter *meter);

G_END_DECLS

#endif
