/* Frame meter; see esl-frame-meter.h. */
#include "esl-frame-meter.h"

struct EslFrameMeter {
    GdkFrameClock *clock;
    gulong before_handler, after_handler;
    GtkWidget *widget;
    gint64 frame_start, previous_start;
    GArray *work, *intervals; /* of double, ms */
};

static void on_before_paint(GdkFrameClock *clock, EslFrameMeter *m)
{
    (void)clock;
    m->frame_start = g_get_monotonic_time();
}

static void on_after_paint(GdkFrameClock *clock, EslFrameMeter *m)
{
    (void)clock;
    if (!m->frame_start)
        return;
    double work = (g_get_monotonic_time() - m->frame_start) * 1e-3;
    g_array_append_val(m->work, work);
    if (m->previous_start) {
        double interval = (m->frame_start - m->previous_start) * 1e-3;
        g_array_append_val(m->intervals, interval);
    }
    m->previous_start = m->frame_start;
    m->frame_start = 0;
}

EslFrameMeter *esl_frame_meter_start(GtkWidget *widget)
{
    EslFrameMeter *m = g_new0(EslFrameMeter, 1);
    m->work = g_array_new(FALSE, FALSE, sizeof(double));
    m->intervals = g_array_new(FALSE, FALSE, sizeof(double));
    m->clock = gtk_widget_get_frame_clock(widget);
    if (!m->clock)
        return m;
    g_object_ref(m->clock);
    m->widget = g_object_ref(widget);
    m->before_handler = g_signal_connect(m->clock, "before-paint", G_CALLBACK(on_before_paint), m);
    m->after_handler =
        g_signal_connect_after(m->clock, "after-paint", G_CALLBACK(on_after_paint), m);
    return m;
}

static int compare_doubles(gconstpointer a, gconstpointer b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Median, 95th percentile and maximum of values (sorted in place). */
static void percentiles(GArray *values, double *median, double *p95, double *max)
{
    *median = *p95 = *max = 0;
    if (values->len == 0)
        return;
    g_array_sort(values, compare_doubles);
    guint n = values->len;
    *median = g_array_index(values, double, n / 2);
    *p95 = g_array_index(values, double, (n - 1) * 95 / 100);
    *max = g_array_index(values, double, n - 1);
}

double esl_frame_meter_recent_work(EslFrameMeter *m, guint n)
{
    guint len = m->work->len, count = MIN(n, len);
    if (count == 0)
        return 0;
    g_autoptr(GArray) recent = g_array_sized_new(FALSE, FALSE, sizeof(double), count);
    g_array_append_vals(recent, &g_array_index(m->work, double, len - count), count);
    double median, p95, max;
    percentiles(recent, &median, &p95, &max);
    return median;
}

static void disconnect(EslFrameMeter *m)
{
    if (!m->clock)
        return;
    g_signal_handler_disconnect(m->clock, m->before_handler);
    g_signal_handler_disconnect(m->clock, m->after_handler);
    g_clear_object(&m->clock);
    g_clear_object(&m->widget);
}

void esl_frame_meter_stop(EslFrameMeter *m, EslFrameStats *stats)
{
    disconnect(m);
    *stats = (EslFrameStats){.frames = m->work->len};
    double total = 0;
    for (guint i = 0; i < m->intervals->len; i++)
        total += g_array_index(m->intervals, double, i);
    stats->span = total * 1e-3;
    percentiles(m->work, &stats->work_median, &stats->work_p95, &stats->work_max);
    percentiles(m->intervals, &stats->interval_median, &stats->interval_p95,
                &stats->interval_max);
}

void esl_frame_meter_free(EslFrameMeter *m)
{
    if (!m)
        return;
    disconnect(m);
    g_array_unref(m->work);
    g_array_unref(m->intervals);
    g_free(m);
}
