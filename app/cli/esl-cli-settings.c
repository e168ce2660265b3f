/* Command-line flags generated from the settings tables (engine/mbs_settings.h): one flag per
 * setting name of the common table and of every formulation's, the --help text that lists each
 * formulation's settings, and `eslabon-cli formulations [--json]`. */
#include "esl-cli-settings.h"

#include <stdio.h>
#include <string.h>

#include "esl-cli.h"
#include "esl-settings-json.h"
#include "mbs_sensitivity.h"

/* Presentation only: the short forms `run` has always had. */
static char short_name(const char *name)
{
    return !strcmp(name, "step") ? 'h' : !strcmp(name, "duration") ? 't' : 0;
}

/* The first descriptor of this name: common settings first, then in registry order. */
static const MbsSetting *first_with_name(const char *name)
{
    MbsSettingRef r;
    if (mbs_settings_find(NULL, name, &r) == 0)
        return r.setting;
    for (int i = 0; i < mbs_formulation_count(); i++)
        if (mbs_settings_find(mbs_formulation_class(i)->settings, name, &r) == 0)
            return r.setting;
    return NULL;
}

/* "penalty, ali3p" (the formulations that have it) or NULL for a common setting. */
static char *owners(const char *name)
{
    MbsSettingRef r;
    if (mbs_settings_find(NULL, name, &r) == 0)
        return NULL;
    GString *s = g_string_new(NULL);
    for (int i = 0; i < mbs_formulation_count(); i++)
        if (mbs_settings_find(mbs_formulation_class(i)->settings, name, &r) == 0)
            g_string_append_printf(s, "%s%s", s->len ? ", " : "", mbs_formulation_class(i)->name);
    return g_string_free(s, FALSE);
}

/* "dense|sparse" over every formulation that has this choice; NUMBER, N or a list's syntax. */
static char *arg_description(const char *name, const MbsSetting *d)
{
    if (d->type == MBS_SETTING_NUMBER)
        return g_strdup(d->unit ? "NUMBER" : "X");
    if (d->type == MBS_SETTING_INTEGER)
        return g_strdup("N");
    if (d->type == MBS_SETTING_LIST)
        return g_strdup(d->list->item_syntax);
    g_autoptr(GPtrArray) names = g_ptr_array_new();
    for (int i = -1; i < mbs_formulation_count(); i++) {
        MbsSettingRef r;
        if (mbs_settings_find(i < 0 ? NULL : mbs_formulation_class(i)->settings, name, &r))
            continue;
        for (int c = 0; r.setting->choices && r.setting->choices[c]; c++)
            if (!g_ptr_array_find_with_equal_func(names, r.setting->choices[c], g_str_equal, NULL))
                g_ptr_array_add(names, (gpointer)r.setting->choices[c]);
    }
    g_ptr_array_add(names, NULL);
    return g_strjoinv("|", (char **)names->pdata);
}

static void add_flag(EslSettingFlags *f, const char *name)
{
    for (int i = 0; i < f->count; i++)
        if (!strcmp(f->names[i], name))
            return;
    if (f->count >= ESL_SETTING_FLAGS_MAX)
        return;
    const MbsSetting *d = first_with_name(name);
    int i = f->count++;
    f->names[i] = name;
    g_autofree char *who = owners(name);
    char *help = g_strdup_printf("%s%s%s%s%s", d->label, d->unit ? ", " : "",
                                 d->unit ? d->unit : "", who ? "; " : "", who ? who : "");
    char *arg = arg_description(name, d);
    g_ptr_array_add(f->strings, help);
    g_ptr_array_add(f->strings, arg);
    f->entries[i] = (GOptionEntry){
        .long_name = name,
        .short_name = short_name(name),
        .arg = d->type == MBS_SETTING_LIST ? G_OPTION_ARG_STRING_ARRAY : G_OPTION_ARG_STRING,
        .arg_data = d->type == MBS_SETTING_LIST ? (gpointer)&f->lists[i] : (gpointer)&f->values[i],
        .description = help,
        .arg_description = arg,
    };
}

void esl_setting_flags_init(EslSettingFlags *f)
{
    memset(f, 0, sizeof *f);
    f->strings = g_ptr_array_new_with_free_func(g_free);
    for (int k = -1; k < mbs_formulation_count(); k++) {
        MbsSettingRef all[MBS_SETTINGS_MAX];
        int n = mbs_settings_list(k < 0 ? NULL : mbs_formulation_class(k)->settings, all);
        for (int i = 0; i < n; i++)
            add_flag(f, all[i].setting->name);
    }
}

void esl_setting_flags_clear(EslSettingFlags *f)
{
    for (int i = 0; i < f->count; i++) {
        g_free(f->values[i]);
        g_strfreev(f->lists[i]);
    }
    g_ptr_array_unref(f->strings);
    memset(f, 0, sizeof *f);
}

static void print_default(GString *out, const MbsSettings *s, const MbsSettingRef *r)
{
    char text[256];
    if (r->setting->type == MBS_SETTING_LIST)
        g_string_append(out, "the model's");
    else if (r->setting->type == MBS_SETTING_NUMBER)
        g_string_append_printf(out, "%g", mbs_setting_get_number(s, r));
    else
        g_string_append(out, (mbs_setting_format(s, r, text, sizeof text), text));
}

char *esl_setting_flags_help(void)
{
    GString *out = g_string_new("Settings of each formulation, with their defaults "
                                "(eslabon-cli formulations --json lists ranges and meanings):\n");
    for (int k = -1; k < mbs_formulation_count(); k++) {
        const MbsFormulationClass *klass = k < 0 ? NULL : mbs_formulation_class(k);
        MbsSettings s;
        mbs_settings_defaults(&s);
        if (klass)
            mbs_settings_for(&s, klass);
        MbsSettingRef all[MBS_SETTINGS_MAX];
        int n = mbs_settings_list(klass ? klass->settings : NULL, all);
        g_string_append_printf(out, "  %s:", klass ? klass->name : "every formulation");
        for (int i = 0; i < n; i++) {
            if (klass && !all[i].in_options)
                continue;
            const MbsSetting *d = all[i].setting;
            g_string_append_printf(out, " --%s ", d->name);
            if (d->type == MBS_SETTING_CHOICE) {
                /* only the choices the formulation offers (its Jacobian methods) */
                for (int c = 0, first = 1; d->choices[c]; c++)
                    if (mbs_formulation_offers_choice(klass, d, c)) {
                        g_string_append_printf(out, "%s%s", first ? "" : "|", d->choices[c]);
                        first = 0;
                    }
                g_string_append(out, " (");
            } else {
                g_string_append(out, "(");
            }
            print_default(out, &s, &all[i]);
            g_string_append(out, mbs_setting_applies(&all[i], NULL, &s) ? ")" : "; when it applies)");
        }
        g_string_append(out, "\n");
    }
    return g_string_free(out, FALSE);
}

/* Settings that choose how much of the machine a run uses, not what it computes: accepted for
 * every formulation (a note where there is nothing to use them for). A misspelt flag never
 * parses; a numerical setting of another formulation is still refused below. */
static gboolean is_resource(const char *name)
{
    return !strcmp(name, "threads");
}

int esl_setting_flags_apply(const EslSettingFlags *f, const MbsFormulationClass *k,
                            const MbsModel *m, MbsSettings *s)
{
    mbs_settings_for(s, k);
    for (int i = 0; i < f->count; i++) {
        if (!f->values[i] && !f->lists[i])
            continue;
        MbsSettingRef r;
        if (mbs_settings_find(k->settings, f->names[i], &r) && is_resource(f->names[i])) {
            /* a script looping over formulations passes the same resource flags to each */
            char *end = NULL;
            g_ascii_strtod(f->values[i], &end);
            if (end == f->values[i] || *end) {
                fprintf(stderr, "eslabon-cli run: --%s '%s' is not a number\n", f->names[i],
                        f->values[i]);
                return 2;
            }
            g_autofree char *who = owners(f->names[i]);
            fprintf(stderr, "eslabon-cli: note: --%s changes nothing for %s (it is a setting of "
                            "%s only)\n", f->names[i], k->name, who ? who : "none");
            continue;
        }
        if (mbs_settings_find(k->settings, f->names[i], &r)) {
            g_autofree char *who = owners(f->names[i]);
            fprintf(stderr, "eslabon-cli run: --%s is not a setting of %s (it is one of %s)\n",
                    f->names[i], k->name, who ? who : "none");
            return 2;
        }
        const MbsSetting *d = r.setting;
        MbsError err = {0};
        if (d->type == MBS_SETTING_LIST) {
            for (int j = 0; f->lists[i][j]; j++)
                if (d->list->add_item(m, f->lists[i][j], mbs_setting_value(s, &r), &err)) {
                    fprintf(stderr, "eslabon-cli run: %s\n", err.message);
                    return 2;
                }
        } else if (d->type == MBS_SETTING_CHOICE) {
            if (mbs_setting_set_text(s, &r, f->values[i], &err)) {
                fprintf(stderr, "eslabon-cli run: --%s\n", err.message);
                return 2;
            }
        } else {
            /* Out-of-range numbers go to the engine, which refuses the run naming the setting
             * (exit status 1, as for any settings the engine refuses). */
            char *end = NULL;
            double v = g_ascii_strtod(f->values[i], &end);
            if (end == f->values[i] || *end) {
                fprintf(stderr, "eslabon-cli run: --%s '%s' is not a number\n", d->name,
                        f->values[i]);
                return 2;
            }
            if (d->type == MBS_SETTING_NUMBER)
                *(double *)mbs_setting_value(s, &r) = v;
            else
                *(int *)mbs_setting_value(s, &r) = (int)CLAMP(v, -1e9, 1e9);
        }
    }
    return 0;
}

void esl_method_flags_init(EslMethodFlags *f)
{
    memset(f, 0, sizeof *f);
    f->strings = g_ptr_array_new_with_free_func(g_free);
    for (int k = 0; k < mbs_formulation_count(); k++)
        for (int method = 0; method < MBS_SENSITIVITY_METHOD_COUNT; method++) {
            const MbsSettingTable *t =
                mbs_sensitivity_settings(mbs_formulation_class(k)->name, method);
            for (int i = 0; t && i < t->count && f->count < ESL_SETTING_FLAGS_MAX; i++) {
                gboolean seen = FALSE;
                for (int j = 0; j < f->count; j++)
                    seen |= f->settings[j] == &t->items[i];
                if (seen)
                    continue;
                const MbsSetting *d = &t->items[i];
                int n = f->count++;
                f->tables[n] = t;
                f->settings[n] = d;
                char *name = g_strdup_printf("%s-%s", t->name, d->name);
                char *help = g_strdup_printf("%s%s%s; %s sensitivities", d->label,
                                             d->unit ? ", " : "",
                                             d->unit ? d->unit : "",
                                             mbs_formulation_class(k)->name);
                char *arg = d->type == MBS_SETTING_CHOICE ? g_strjoinv("|", (char **)d->choices)
                                                          : arg_description(d->name, d);
                g_ptr_array_add(f->strings, name);
                g_ptr_array_add(f->strings, help);
                g_ptr_array_add(f->strings, arg);
                f->entries[n] = (GOptionEntry){.long_name = name, .arg = G_OPTION_ARG_STRING,
                                               .arg_data = &f->values[n], .description = help,
                                               .arg_description = arg};
            }
        }
}

void esl_method_flags_clear(EslMethodFlags *f)
{
    for (int i = 0; i < f->count; i++)
        g_free(f->values[i]);
    g_ptr_array_unref(f->strings);
    memset(f, 0, sizeof *f);
}

int esl_method_flags_apply(const EslMethodFlags *f, const char *formulation,
                           MbsSensitivityMethod method, MbsSettings *options)
{
    const MbsSettingTable *t = mbs_sensitivity_settings(formulation, method);
    mbs_settings_defaults(options);
    if (t)
        mbs_settings_use_options(options, t);
    for (int i = 0; i < f->count; i++) {
        if (!f->values[i])
            continue;
        MbsError err = {0};
        if (f->tables[i] != t) {
            fprintf(stderr, "eslabon-cli: --%s is not a setting of %s %s\n",
                    f->entries[i].long_name, formulation, mbs_sensitivity_method_name(method));
            return 2;
        }
        if (mbs_settings_set(options, t, f->settings[i]->name, f->values[i], &err)) {
            fprintf(stderr, "eslabon-cli: --%s: %s\n", f->entries[i].long_name, err.message);
            return 2;
        }
    }
    return 0;
}

const void *esl_method_options_bytes(const MbsSettings *options)
{
    return options->options_table ? options->options.bytes : NULL;
}

int esl_cli_formulations(int argc, char **argv)
{
    gboolean json = FALSE;
    GOptionEntry entries[] = {
        {"json", 0, 0, G_OPTION_ARG_NONE, &json, "Print every formulation and its settings table as JSON", NULL},
        {NULL, 0, 0, 0, NULL, NULL, NULL},
    };
    g_autoptr(GOptionContext) ctx = g_option_context_new("- the formulations and their settings");
    g_option_context_add_main_entries(ctx, entries, NULL);
    g_autoptr(GError) error = NULL;
    if (!g_option_context_parse(ctx, &argc, &argv, &error) || argc != 1) {
        fprintf(stderr, "eslabon-cli formulations: %s\n", error ? error->message : "no arguments expected");
        return 2;
    }
    if (!json) {
        g_autofree char *help = esl_setting_flags_help();
        for (int k = 0; k < mbs_formulation_count(); k++)
            printf("%s: %s\n", mbs_formulation_class(k)->name, mbs_formulation_class(k)->description);
        printf("\n%s", help);
        return 0;
    }
    g_autoptr(JsonBuilder) b = json_builder_new();
    json_builder_begin_object(b);
    json_builder_set_member_name(b, "formulations");
    json_builder_begin_array(b);
    for (int k = 0; k < mbs_formulation_count(); k++) {
        const MbsFormulationClass *klass = mbs_formulation_class(k);
        json_builder_begin_object(b);
        json_builder_set_member_name(b, "name");
        json_builder_add_string_value(b, klass->name);
        json_builder_set_member_name(b, "description");
        json_builder_add_string_value(b, klass->description);
        json_builder_set_member_name(b, "settings");
        esl_settings_table_to_json(b, klass);
        json_builder_end_object(b);
    }
    json_builder_end_array(b);
    json_builder_end_object(b);
    g_autoptr(JsonNode) root = json_builder_get_root(b);
    g_autofree char *text = esl_json_generate(root, TRUE);
    printf("%s\n", text);
    return 0;
}

GOptionContext *esl_setting_flags_context(EslSettingFlags *f, const char *parameter_string,
                                          const GOptionEntry *entries)
{
    GOptionContext *ctx = g_option_context_new(parameter_string);
    g_option_context_add_main_entries(ctx, entries, NULL);
    esl_setting_flags_init(f);
    g_option_context_add_main_entries(ctx, f->entries, NULL);
    g_autofree char *help = esl_setting_flags_help();
    g_option_context_set_description(ctx, help);
    return ctx;
}
