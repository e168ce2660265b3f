/* Settings described by tables (docs/formulations.md § Settings).
 *
 * A run's settings are the common ones (step, duration, assembly tolerance: fields of
 * MbsSettings) plus the chosen formulation's own options struct, which lives in
 * MbsSettings.options and is described by that formulation's const MbsSettingTable. A table lists
 * each setting once: name (command-line flag and JSON key), type, offset in the options struct,
 * default, range, unit, translatable label and description, and when it applies. The command
 * line, the run panel and the project store are generated from the tables, so a new setting or
 * a new formulation with settings touches no front end.
 */
#ifndef MBS_SETTINGS_H
#define MBS_SETTINGS_H

#include <stddef.h>

#include "mbs_error.h"
#include "mbs_model.h"

/* Marks a string for translation catalogues without translating it here (the engine has no
 * gettext): xgettext --keyword=MBS_N_ extracts it, an interface looks it up at run time. */
#define MBS_N_(text) (text)

typedef enum {
    MBS_SETTING_NUMBER,  /* double */
    MBS_SETTING_INTEGER, /* int */
    MBS_SETTING_CHOICE,  /* int: index into choices */
    MBS_SETTING_LIST,    /* a value handled by the list's callbacks */
    MBS_SETTING_GROUP,   /* a sub-table whose options struct sits at offset */
} MbsSettingType;

enum {
    MBS_SETTING_ABOVE_MIN = 1 << 0, /* the value must be strictly above min */
    MBS_SETTING_DECADES = 1 << 1,   /* spans decades (1e-10, 1e9): show it as %g / log scale */
    MBS_SETTING_AUTO_ZERO = 1 << 2, /* 0 means "automatic" */
};

/* A list setting (matrix-r's independent coordinates): the value has three states, "the
 * model's own" (the default), "automatic" and an explicit list of items. */
typedef struct {
    /* Today's JSON text of the value (the project form), "null" for the model's own. Returns
     * the length written (truncated as snprintf). */
    int (*to_json)(const void *value, char *buf, size_t size);
    /* From that JSON text; 0, or -1 with err. */
    int (*from_json)(const char *text, void *value, MbsError *err);
    /* One item as typed on the command line (names of the model's elements), appended to the
     * value; 0, or -1 with err. */
    int (*add_item)(const MbsModel *m, const char *text, void *value, MbsError *err);
    const char *item_syntax; /* for --help: e.g. "JOINT[:COORD]|BODY:POINT:x|y|z|auto" */
    /* For an editor of the value (the run panel), which offers the model's coordinates as
     * items: an explicit list holds at most max_items; get_items gives the value's state,
     * MBS_SETTING_LIST_OWN, MBS_SETTING_LIST_AUTOMATIC or the count of its items (copied into
     * items, max_items of room), and set_items sets it back the same way; needed gives how many
     * items model m needs (-1: unknown, e.g. it does not assemble). */
    int max_items;
    int (*get_items)(const void *value, MbsDofChoice *items);
    void (*set_items)(void *value, int count, const MbsDofChoice *items);
    int (*needed)(const MbsModel *m);
} MbsSettingList;

#define MBS_SETTINGS_LIST_MAX 64        /* the most max_items of any list setting */
#define MBS_SETTING_LIST_OWN 0          /* the model's own list (the default) */
#define MBS_SETTING_LIST_AUTOMATIC (-1) /* chosen automatically, whatever the model lists */

typedef struct MbsSettingTable MbsSettingTable;

typedef struct MbsSetting {
    const char *name; /* command-line flag (--name) and JSON key */
    MbsSettingType type;
    size_t offset;    /* into the options struct of the table that lists it */
    double default_value; /* number, integer; choice: index */
    double min, max;      /* number, integer: inclusive range (see MBS_SETTING_ABOVE_MIN) */
    const char *const *choices;       /* choice: names, NULL-terminated */
    const char *const *choice_labels; /* choice: labels for an interface, MBS_N_ (NULL: names) */
    const char *unit;                 /* "s", or NULL */
    const char *label, *description;  /* English, MBS_N_ */
    unsigned flags;                   /* MBS_SETTING_* */
    /* Whether a run of model m reads it with these options (the owner's options struct; NULL:
     * whatever they are; m NULL: whatever the model); NULL: always. */
    int (*applies)(const MbsModel *m, const void *options);
    const MbsSettingList *list;       /* list */
    const MbsSettingTable *group;     /* group */
} MbsSetting;

struct MbsSettingTable {
    const char *name;
    const MbsSetting *items;
    int count;
    size_t size;      /* of the options struct */
};

/* Room for a formulation's options struct (each formulation checks that it fits). */
#define MBS_OPTIONS_BYTES 1024

typedef struct {
    double step;               /* h, s */
    double duration;           /* s */
    double assembly_tolerance; /* of the position problem at t = 0 */
    /* The options struct `options` holds is described by this table (a formulation's
     * MbsFormulationClass.settings); NULL: none chosen yet, a formulation takes its defaults. */
    const MbsSettingTable *options_table;
    union {
        max_align_t align;
        unsigned char bytes[MBS_OPTIONS_BYTES];
    } options;
} MbsSettings;

/* The common settings (step, duration, assembly-tolerance), fields of MbsSettings itself. */
extern const MbsSettingTable mbs_run_settings;

/* Common defaults; no formulation options yet. */
void mbs_settings_defaults(MbsSettings *s);
/* Makes s hold options of table t: t's defaults unless it holds them already. */
void mbs_settings_use_options(MbsSettings *s, const MbsSettingTable *t);
/* Writes the defaults of every setting of t into the options struct at `options`. */
void mbs_setting_table_defaults(const MbsSettingTable *t, void *options);

/* One setting of a run, groups flattened. */
typedef struct {
    const MbsSetting *setting;
    const MbsSetting *group; /* the group it was listed through (its `applies` holds too) */
    int in_options;          /* 0: a field of MbsSettings, 1: of the formulation's options */
    size_t offset;           /* from MbsSettings or from its options */
} MbsSettingRef;

#define MBS_SETTINGS_MAX 64
/* The common settings, then those of t (NULL: none), groups flattened; returns the count. */
int mbs_settings_list(const MbsSettingTable *t, MbsSettingRef out[MBS_SETTINGS_MAX]);
/* 0 and ref filled, or -1 when neither the common settings nor t have it. */
int mbs_settings_find(const MbsSettingTable *t, const char *name, MbsSettingRef *ref);

/* The value's address in s (options: s must hold the table's options). */
void *mbs_setting_value(MbsSettings *s, const MbsSettingRef *r);
const void *mbs_setting_value_const(const MbsSettings *s, const MbsSettingRef *r);
/* Whether a run of m (NULL: any model) with s reads it. */
int mbs_setting_applies(const MbsSettingRef *r, const MbsModel *m, const MbsSettings *s);

/* Number, integer or choice index as a double. */
double mbs_setting_get_number(const MbsSettings *s, const MbsSettingRef *r);
/* Range-checked; 0, or -1 with err naming the setting. */
int mbs_setting_set_number(MbsSettings *s, const MbsSettingRef *r, double v, MbsError *err);
/* Text forms: numbers as %.17g, choices by name, lists as their JSON text. The text set is
 * parsed and range-checked; 0, or -1 with err naming the setting and what it accepts. */
int mbs_setting_set_text(MbsSettings *s, const MbsSettingRef *r, const char *text, MbsError *err);
int mbs_setting_format(const MbsSettings *s, const MbsSettingRef *r, char *buf, size_t size);
/* Choice index of a name, -1 when unknown. */
int mbs_setting_choice_index(const MbsSetting *d, const char *name);
int mbs_setting_choice_count(const MbsSetting *d);

/* By name: binds s to t's options first (mbs_settings_use_options), then sets the text. */
int mbs_settings_set(MbsSettings *s, const MbsSettingTable *t, const char *name, const char *text,
                     MbsError *err);
/* By name, among the common settings and those of the options s holds: number, integer or
 * choice index; NAN when s has no such setting. */
double mbs_settings_number(const MbsSettings *s, const char *name);

/* Most steps of a run (duration / step). */
#define MBS_SETTINGS_STEPS_MAX 1e9

/* Every setting of s within its range and at most MBS_SETTINGS_STEPS_MAX steps of the step in
 * the duration; 0, or -1 with err naming the first problem. */
int mbs_settings_validate(const MbsSettings *s, MbsError *err);
/* mbs_settings_validate, and the step does not exceed a nonzero duration (a run of the
 * duration would take no step). For front ends starting a run of settings.duration; a
 * duration of 0 (the initial state only) is accepted. */
int mbs_settings_check_run(const MbsSettings *s, MbsError *err);

#endif
