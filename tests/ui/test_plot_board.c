/* Every monitor of the table (engine/formulations/mbs_monitors.h) that names a plot has its
 * series on the plot board, under its translated label, and one appended sample adds one point
 * to each (the CLI's CSV and the project are checked in tests/cli/test_monitors.py from the
 * same table). */
#include <glib/gi18n.h>
#include <gtk/gtk.h>

#include "esl-plot-board.h"
#include "tap.h"

/* Every EslPlot below w, in tree order. */
static void collect_plots(GtkWidget *w, GPtrArray *plots)
{
    if (ESL_IS_PLOT(w))
        g_ptr_array_add(plots, w);
    for (GtkWidget *c = gtk_widget_get_first_child(w); c; c = gtk_widget_get_next_sibling(c))
        collect_plots(c, plots);
}

int main(void)
{
    gtk_init();
    EslPlotBoard *board = g_object_ref_sink(g_object_new(ESL_TYPE_PLOT_BOARD, NULL));
    esl_plot_board_prepare_single(board);
    MbsMonitors m = {0};
    for (int k = 0; k < mbs_monitor_count; k++)
        mbs_monitor_set(&m, k, k + 1.0); /* time = 1 s: after the first step */
    esl_plot_board_append(board, &m);
    GPtrArray *plots = g_ptr_array_new();
    collect_plots(GTK_WIDGET(board), plots);
    tap_ok(plots->len >= 4, "the board holds %u plots", plots->len);
    int plotted = 0;
    for (int k = 0; k < mbs_monitor_count; k++) {
        const MbsMonitorField *c = &mbs_monitor_fields[k];
        if (c->plot == MBS_MONITOR_PLOT_NONE)
            continue;
        plotted++;
        const char *label = _(c->label);
        int found = 0, points = -1;
        for (guint i = 0; i < plots->len && !found; i++) {
            int s = esl_plot_find_series(plots->pdata[i], label);
            if (s >= 0) {
                found = 1;
                points = esl_plot_series_length(plots->pdata[i], s);
            }
        }
        tap_ok(found && points == 1, "monitor '%s': series \"%s\" with %d point", c->key, label,
               points);
    }
    tap_ok(plotted >= 15, "%d of the %d monitors are plotted", plotted, mbs_monitor_count);
    g_ptr_array_unref(plots);
    g_object_unref(board);
    return tap_done();
}
