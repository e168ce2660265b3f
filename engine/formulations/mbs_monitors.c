/* The monitors' descriptor table, expanded from MBS_MONITORS (mbs_monitors.h). */
#include "mbs_monitors.h"

#include <math.h>
#include <string.h>

#define MBS_MONITOR_TYPE_double MBS_MONITOR_DOUBLE
#define MBS_MONITOR_TYPE_int MBS_MONITOR_INT
#define FIELD_(field, type, key, csv, what, plot, label, finite)                                  \
    {#field, key, csv, what, MBS_MONITOR_TYPE_##type, offsetof(MbsMonitors, field),                \
     MBS_MONITOR_PLOT_##plot, label, finite},

const MbsMonitorField mbs_monitor_fields[] = {MBS_MONITORS(FIELD_)};
const int mbs_monitor_count = (int)(sizeof mbs_monitor_fields / sizeof mbs_monitor_fields[0]);

double mbs_monitor_get(const MbsMonitors *m, int i)
{
    const char *p = (const char *)m + mbs_monitor_fields[i].offset;
    return mbs_monitor_fields[i].type == MBS_MONITOR_INT ? *(const int *)p : *(const double *)p;
}

void mbs_monitor_set(MbsMonitors *m, int i, double value)
{
    char *p = (char *)m + mbs_monitor_fields[i].offset;
    if (mbs_monitor_fields[i].type == MBS_MONITOR_INT)
        *(int *)p = (int)lround(value);
    else
        *(double *)p = value;
}

int mbs_monitor_find(const char *key)
{
    for (int i = 0; i < mbs_monitor_count; ++i)
        if (!strcmp(mbs_monitor_fields[i].key, key))
            return i;
    return -1;
}

const char *mbs_monitors_non_finite(const MbsMonitors *m)
{
    for (int i = 0; i < mbs_monitor_count; ++i)
        if (mbs_monitor_fields[i].finite && !isfinite(mbs_monitor_get(m, i)))
            return mbs_monitor_fields[i].what;
    return NULL;
}
