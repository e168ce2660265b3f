#include "mbs_settings.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const MbsSetting run_items[] = {
    {.name = "step", .type = MBS_SETTING_NUMBER, .offset = offsetof(MbsSettings, step),
     .default_value = 1e-2, .min = 0.0, .max = 1e3, .unit = "s", .flags = MBS_SETTING_ABOVE_MIN,
     .label = MBS_N_("Step"), .description = MBS_N_("Time step h")},
    {.name = "duration", .type = MBS_SETTING_NUMBER, .offset = offsetof(MbsSettings, duration),
     .default_value = 5.0, .min = 0.0, .max = 1e9, .unit = "s",
     .label = MBS_N_("Duration"), .description = MBS_N_("Simulated time")},
    {.name = "assembly-tolerance", .type = MBS_SETTING_NUMBER,
     .offset = offsetof(MbsSettings, assembly_tolerance), .default_value = 1e-12, .min = 0.0,
     .max = 1.0, .flags = MBS_SETTING_ABOVE_MIN | MBS_SETTING_DECADES,
     .label = MBS_N_("Assembly tolerance"),
     .description = MBS_N_("On the constraints of the initial position problem")},
};

const MbsSettingTable mbs_run_settings = {
    .name = "run", .items = run_items, .count = 3, .size = sizeof(MbsSettings)};

void mbs_setting_table_defaults(const MbsSettingTable *t, void *options)
{
    for (int i = 0; t && i < t->count; ++i) {
        const MbsSetting *d = &t->items[i];
        void *p = (char *)options + d->offset;
        switch (d->type) {
        case MBS_SETTING_NUMBER:
            *(double *)p = d->default_value;
            break;
        case MBS_SETTING_INTEGER:
        case MBS_SETTING_CHOICE:
            *(int *)p = (int)d->default_value;
            break;
        case MBS_SETTING_LIST:
            d->list->from_json("null", p, NULL);
            break;
        case MBS_SETTING_GROUP:
            mbs_setting_table_defaults(d->group, p);
            break;
        }
    }
}

void mbs_settings_defaults(MbsSettings *s)
{
    memset(s, 0, sizeof *s);
    mbs_setting_table_defaults(&mbs_run_settings, s);
}

void mbs_settings_use_options(MbsSettings *s, const MbsSettingTable *t)
{
    if (s->options_table == t)
        return;
    memset(&s->options, 0, sizeof s->options);
    s->options_table = t;
    mbs_setting_table_defaults(t, s->options.bytes);
}

static int flatten(const MbsSettingTable *t, const MbsSetting *group, int in_options,
                   size_t base, MbsSettingRef *out, int n)
{
    for (int i = 0; t && i < t->count && n < MBS_SETTINGS_MAX; ++i) {
        const MbsSetting *d = &t->items[i];
        if (d->type == MBS_SETTING_GROUP)
            n = flatten(d->group, group ? group : d, in_options, base + d->offset, out, n);
        else
            out[n++] = (MbsSettingRef){d, group, in_options, base + d->offset};
    }
    return n;
}

int mbs_settings_list(const MbsSettingTable *t, MbsSettingRef out[MBS_SETTINGS_MAX])
{
    int n = flatten(&mbs_run_settings, NULL, 0, 0, out, 0);
    return flatten(t, NULL, 1, 0, out, n);
}

int mbs_settings_find(const MbsSettingTable *t, const char *name, MbsSettingRef *ref)
{
    MbsSettingRef all[MBS_SETTINGS_MAX];
    int n = mbs_settings_list(t, all);
    for (int i = 0; name && i < n; ++i)
        if (!strcmp(all[i].setting->name, name)) {
            *ref = all[i];
            return 0;
        }
    return -1;
}

void *mbs_setting_value(MbsSettings *s, const MbsSettingRef *r)
{
    return (r->in_options ? (char *)s->options.bytes : (char *)s) + r->offset;
}

const void *mbs_setting_value_const(const MbsSettings *s, const MbsSettingRef *r)
{
    return (r->in_options ? (const char *)s->options.bytes : (const char *)s) + r->offset;
}

int mbs_setting_applies(const MbsSettingRef *r, const MbsModel *m, const MbsSettings *s)
{
    const void *options = s && r->in_options ? s->options.bytes : NULL;
    if (r->group && r->group->applies && !r->group->applies(m, options))
        return 0;
    return !r->setting->applies || r->setting->applies(m, options);
}

int mbs_setting_choice_count(const MbsSetting *d)
{
    int n = 0;
    while (d->choices && d->choices[n])
        n++;
    return n;
}

int mbs_setting_choice_index(const MbsSetting *d, const char *name)
{
    for (int i = 0; name && i < mbs_setting_choice_count(d); ++i)
        if (!strcmp(d->choices[i], name))
            return i;
    return -1;
}

double mbs_setting_get_number(const MbsSettings *s, const MbsSettingRef *r)
{
    const void *p = mbs_setting_value_const(s, r);
    switch (r->setting->type) {
    case MBS_SETTING_NUMBER:
        return *(const double *)p;
    case MBS_SETTING_INTEGER:
    case MBS_SETTING_CHOICE:
        return *(const int *)p;
    default:
        return NAN;
    }
}

/* What a setting accepts, for messages: "a number in (0, 1000]", "dense or sparse". */
static void accepted(const MbsSetting *d, char *buf, size_t size)
{
    if (d->type == MBS_SETTING_CHOICE) {
        size_t len = 0;
        buf[0] = '\0';
        int n = mbs_setting_choice_count(d);
        for (int i = 0; i < n && len < size; ++i)
            len += (size_t)snprintf(buf + len, size - len, "%s%s", i == 0 ? "" : i == n - 1 ? " or " : ", ",
                                    d->choices[i]);
    } else if (d->type == MBS_SETTING_LIST) {
        snprintf(buf, size, "%s", d->list->item_syntax);
    } else {
        snprintf(buf, size, "%s in %s%.17g, %.17g]", d->type == MBS_SETTING_INTEGER ? "an integer" : "a number",
                 d->flags & MBS_SETTING_ABOVE_MIN ? "(" : "[", d->min, d->max);
    }
}

static int in_range(const MbsSetting *d, double v)
{
    if (d->type == MBS_SETTING_CHOICE)
        return v >= 0 && v < mbs_setting_choice_count(d) && v == floor(v);
    if (d->type == MBS_SETTING_INTEGER && v != floor(v))
        return 0;
    return (d->flags & MBS_SETTING_ABOVE_MIN ? v > d->min : v >= d->min) && v <= d->max;
}

static int out_of_range(const MbsSetting *d, const char *value, MbsError *err)
{
    char what[256];
    accepted(d, what, sizeof what);
    return mbs_error_set(err, MBS_FATAL, "%s: '%s' is not %s", d->name, value, what);
}

int mbs_setting_set_number(MbsSettings *s, const MbsSettingRef *r, double v, MbsError *err)
{
    const MbsSetting *d = r->setting;
    if (d->type == MBS_SETTING_LIST || !in_range(d, v)) {
        char text[32];
        snprintf(text, sizeof text, "%.17g", v);
        return out_of_range(d, text, err);
    }
    void *p = mbs_setting_value(s, r);
    if (d->type == MBS_SETTING_NUMBER)
        *(double *)p = v;
    else
        *(int *)p = (int)v;
    return 0;
}

int mbs_setting_set_text(MbsSettings *s, const MbsSettingRef *r, const char *text, MbsError *err)
{
    const MbsSetting *d = r->setting;
    if (!text)
        return out_of_range(d, "", err);
    if (d->type == MBS_SETTING_LIST)
        return d->list->from_json(text, mbs_setting_value(s, r), err) ? -1 : 0;
    if (d->type == MBS_SETTING_CHOICE) {
        int i = mbs_setting_choice_index(d, text);
        return i < 0 ? out_of_range(d, text, err) : mbs_setting_set_number(s, r, i, err);
    }
    char *end = NULL;
    double v = strtod(text, &end);
    if (end == text || *end || !isfinite(v) || !in_range(d, v))
        return out_of_range(d, text, err);
    return mbs_setting_set_number(s, r, v, err);
}

int mbs_setting_format(const MbsSettings *s, const MbsSettingRef *r, char *buf, size_t size)
{
    const MbsSetting *d = r->setting;
    const void *p = mbs_setting_value_const(s, r);
    switch (d->type) {
    case MBS_SETTING_NUMBER:
        return snprintf(buf, size, "%.17g", *(const double *)p);
    case MBS_SETTING_INTEGER:
        return snprintf(buf, size, "%d", *(const int *)p);
    case MBS_SETTING_CHOICE: {
        int i = *(const int *)p;
        return snprintf(buf, size, "%s",
                        i >= 0 && i < mbs_setting_choice_count(d) ? d->choices[i] : "unknown");
    }
    case MBS_SETTING_LIST:
        return d->list->to_json(p, buf, size);
    default:
        return snprintf(buf, size, "%s", "");
    }
}

int mbs_settings_set(MbsSettings *s, const MbsSettingTable *t, const char *name, const char *text,
                     MbsError *err)
{
    mbs_settings_use_options(s, t);
    MbsSettingRef r;
    if (mbs_settings_find(t, name, &r))
        return mbs_error_set(err, MBS_FATAL, "no setting '%s'%s%s", name ? name : "(null)",
                             t ? " for " : "", t ? t->name : "");
    return mbs_setting_set_text(s, &r, text, err);
}

double mbs_settings_number(const MbsSettings *s, const char *name)
{
    MbsSettingRef r;
    return mbs_settings_find(s->options_table, name, &r) ? NAN : mbs_setting_get_number(s, &r);
}

int mbs_settings_validate(const MbsSettings *s, MbsError *err)
{
    MbsSettingRef all[MBS_SETTINGS_MAX];
    int n = mbs_settings_list(s->options_table, all);
    for (int i = 0; i < n; ++i) {
        const MbsSetting *d = all[i].setting;
        if (d->type == MBS_SETTING_LIST)
            continue;
        double v = mbs_setting_get_number(s, &all[i]);
        if (!in_range(d, v)) {
            char text[32];
            snprintf(text, sizeof text, "%.17g", v);
            return out_of_range(d, text, err);
        }
    }
    /* Each within its range, together they may still ask for a run nobody can wait for (and
     * whose step count overflows a long): --duration 1e9 at 10 ms, --step 1e-300. */
    if (s->step > 0.0 && s->duration / s->step > MBS_SETTINGS_STEPS_MAX)
        return mbs_error_set(err, MBS_FATAL,
                             "duration %g s at step %g s is %.3g steps; a run takes at most "
                             "%.0e steps (lengthen the step or shorten the duration)",
                             s->duration, s->step, s->duration / s->step, MBS_SETTINGS_STEPS_MAX);
    return 0;
}

int mbs_settings_check_run(const MbsSettings *s, MbsError *err)
{
    if (mbs_settings_validate(s, err))
        return -1;
    if (s->duration > 0.0 && s->step > s->duration * (1.0 + 1e-9))
        return mbs_error_set(err, MBS_FATAL,
                             "step %g s is longer than the duration %g s: the run would take "
                             "no step", s->step, s->duration);
    return 0;
}
