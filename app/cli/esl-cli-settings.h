/* eslabon-cli flags generated from the settings tables; see esl-cli-settings.c. */
#ifndef ESL_CLI_SETTINGS_H
#define ESL_CLI_SETTINGS_H

#include <glib.h>

#include "mbs_formulation.h"
#include "mbs_sensitivity.h"

#define ESL_SETTING_FLAGS_MAX 64

/* One flag per distinct setting name; `entries` ends with a zeroed entry for GOptionContext. */
typedef struct {
    int count;
    const char *names[ESL_SETTING_FLAGS_MAX];
    char *values[ESL_SETTING_FLAGS_MAX]; /* as given, NULL when absent */
    char **lists[ESL_SETTING_FLAGS_MAX]; /* list settings: every occurrence */
    GOptionEntry entries[ESL_SETTING_FLAGS_MAX + 1];
    GPtrArray *strings; /* help texts the entries point to */
} EslSettingFlags;

void esl_setting_flags_init(EslSettingFlags *f);
void esl_setting_flags_clear(EslSettingFlags *f);
/* An option context for a command: its own entries, then the settings flags (f initialised
 * here), the settings with their defaults in --help. */
GOptionContext *esl_setting_flags_context(EslSettingFlags *f, const char *parameter_string,
                                          const GOptionEntry *entries);
/* The settings of each formulation with their defaults, for --help. */
char *esl_setting_flags_help(void);
/* The flags given, into s (made to hold k's options); list items are read against model m.
 * 0, or the exit status 2 with a message on stderr (a flag k has no setting for, a choice or
 * a number that does not parse). Ranges are left to the engine. A resource setting (threads)
 * k has not is accepted with a note on stderr. */
int esl_setting_flags_apply(const EslSettingFlags *f, const MbsFormulationClass *k,
                            const MbsModel *m, MbsSettings *s);

/* Flags of the sensitivity methods' own tables (mbs_sensitivity_settings): one per setting,
 * named "<table name>-<setting name>" (--sensitivity-adjoint-memory) so that none shadows a
 * formulation's setting of the same name (jacobian). */
typedef struct {
    int count;
    const MbsSettingTable *tables[ESL_SETTING_FLAGS_MAX];
    const MbsSetting *settings[ESL_SETTING_FLAGS_MAX];
    char *values[ESL_SETTING_FLAGS_MAX]; /* as given, NULL when absent */
    GOptionEntry entries[ESL_SETTING_FLAGS_MAX + 1];
    GPtrArray *strings;
} EslMethodFlags;

void esl_method_flags_init(EslMethodFlags *f);
void esl_method_flags_clear(EslMethodFlags *f);
/* The flags given, into `options`: made to hold the options of formulation's sensitivity
 * method (mbs_sensitivity_settings' table, its defaults; left without options, options_table
 * NULL, for a method without a table), then the flags set. 0, or the exit status 2 with a
 * message on stderr (a flag of another table, a value that does not parse). Shared by
 * `sensitivity` and `optimize`. */
int esl_method_flags_apply(const EslMethodFlags *f, const char *formulation,
                           MbsSensitivityMethod method, MbsSettings *options);
/* Those options as MbsSensitivityProblem.method_options takes them: NULL (the defaults) for a
 * method without a table. */
const void *esl_method_options_bytes(const MbsSettings *options);

#endif
