/* Settings tables as JSON; see esl-settings-json.h. */
#include "esl-settings-json.h"

#include <math.h>
#include <string.h>

static const char *const type_names[] = {
    [MBS_SETTING_NUMBER] = "number", [MBS_SETTING_INTEGER] = "integer",
    [MBS_SETTING_CHOICE] = "choice", [MBS_SETTING_LIST] = "list", [MBS_SETTING_GROUP] = "group"};

int esl_json_nesting_depth(const char *s, gsize len)
{
    int depth = 0, max = 0;
    gboolean in_string = FALSE;
    for (gsize i = 0; i < len; ++i) {
        char c = s[i];
        if (in_string) {
            if (c == '\\')
                i++;
            else if (c == '"')
                in_string = FALSE;
        } else if (c == '"') {
            in_string = TRUE;
        } else if (c == '[' || c == '{') {
            if (++depth > max)
                max = depth;
        } else if (c == ']' || c == '}') {
            depth--;
        }
    }
    return max;
}

static JsonNode *parse_json(const char *text, GError **error)
{
    if (esl_json_nesting_depth(text, strlen(text)) > ESL_JSON_MAX_NESTING) {
        g_set_error(error, JSON_PARSER_ERROR, JSON_PARSER_ERROR_INVALID_DATA,
                    "arrays and objects nested deeper than %d levels", ESL_JSON_MAX_NESTING);
        return NULL;
    }
    g_autoptr(JsonParser) parser = json_parser_new();
    if (!json_parser_load_from_data(parser, text, -1, error))
        return NULL;
    /* An empty or blank text parses without error and without a root (found by fuzzing). */
    JsonNode *root = json_parser_get_root(parser);
    if (!root) {
        g_set_error(error, JSON_PARSER_ERROR, JSON_PARSER_ERROR_INVALID_DATA, "empty JSON text");
        return NULL;
    }
    return json_node_copy(root);
}

JsonNode *esl_setting_to_json(const MbsSettings *s, const MbsSettingRef *r)
{
    JsonNode *node = json_node_new(JSON_NODE_VALUE);
    switch (r->setting->type) {
    case MBS_SETTING_NUMBER:
        json_node_set_double(node, mbs_setting_get_number(s, r));
        break;
    case MBS_SETTING_INTEGER:
        json_node_set_int(node, (gint64)mbs_setting_get_number(s, r));
        break;
    default: {
        char text[2048];
        mbs_setting_format(s, r, text, sizeof text);
        if (r->setting->type == MBS_SETTING_CHOICE) {
            json_node_set_string(node, text);
        } else {
            json_node_unref(node);
            node = parse_json(text, NULL);
            if (!node)
                node = json_node_new(JSON_NODE_NULL);
        }
    }
    }
    return node;
}

/* JSON writer: the layout of json-glib's generator (2-space indent, "name" : value when
 * pretty), but every double is written so that any JSON parser reads it back: json-glib 1.6
 * writes 1e+17 as "1e+17.0" and NaN as "nan", neither of which is JSON. */
static void indent(GString *out, gboolean pretty, int level)
{
    if (pretty)
        for (int i = 0; i < 2 * level; i++)
            g_string_append_c(out, ' ');
}

static void append_string(GString *out, const char *s)
{
    g_string_append_c(out, '"');
    for (const unsigned char *p = (const unsigned char *)s; p && *p; p++) {
        switch (*p) {
        case '"': g_string_append(out, "\\\""); break;
        case '\\': g_string_append(out, "\\\\"); break;
        case '\b': g_string_append(out, "\\b"); break;
        case '\f': g_string_append(out, "\\f"); break;
        case '\n': g_string_append(out, "\\n"); break;
        case '\r': g_string_append(out, "\\r"); break;
        case '\t': g_string_append(out, "\\t"); break;
        default:
            if (*p < 0x20 || *p == 0x7f)
                g_string_append_printf(out, "\\u%04x", *p);
            else
                g_string_append_c(out, (char)*p);
        }
    }
    g_string_append_c(out, '"');
}

void esl_json_builder_add_number(JsonBuilder *b, const char *key, double v)
{
    json_builder_set_member_name(b, key);
    if (isfinite(v))
        json_builder_add_double_value(b, v);
    else
        json_builder_add_null_value(b);
}

void esl_json_builder_add_string(JsonBuilder *b, const char *key, const char *v)
{
    json_builder_set_member_name(b, key);
    json_builder_add_string_value(b, v);
}

void esl_json_append_double(GString *out, double v)
{
    if (!isfinite(v)) {
        g_string_append(out, "null"); /* JSON has no NaN nor infinity */
        return;
    }
    char buf[G_ASCII_DTOSTR_BUF_SIZE];
    g_ascii_dtostr(buf, sizeof buf, v); /* enough digits to read back the same double */
    g_string_append(out, buf);
    /* a double stays a double when read back: 2 -> 2.0 (1e+17 needs nothing) */
    if (!strpbrk(buf, ".eE"))
        g_string_append(out, ".0");
}

static void append_node(GString *out, JsonNode *node, gboolean pretty, int level);

static void append_container(GString *out, JsonNode *node, gboolean pretty, int level)
{
    gboolean is_object = JSON_NODE_HOLDS_OBJECT(node);
    g_autoptr(GList) members = is_object ? json_object_get_members(json_node_get_object(node))
                                         : NULL;
    guint n = is_object ? g_list_length(members)
                        : json_array_get_length(json_node_get_array(node));
    g_string_append_c(out, is_object ? '{' : '[');
    if (pretty)
        g_string_append_c(out, '\n');
    GList *m = members;
    for (guint i = 0; i < n; i++) {
        indent(out, pretty, level + 1);
        JsonNode *child;
        if (is_object) {
            append_string(out, m->data);
            g_string_append(out, pretty ? " : " : ":");
            child = json_object_get_member(json_node_get_object(node), m->data);
            m = m->next;
        } else {
            child = json_array_get_element(json_node_get_array(node), i);
        }
        append_node(out, child, pretty, level + 1);
        if (i + 1 < n)
            g_string_append_c(out, ',');
        if (pretty)
            g_string_append_c(out, '\n');
    }
    indent(out, pretty, level);
    g_string_append_c(out, is_object ? '}' : ']');
}

static void append_node(GString *out, JsonNode *node, gboolean pretty, int level)
{
    if (!node || JSON_NODE_HOLDS_NULL(node)) {
        g_string_append(out, "null");
        return;
    }
    if (JSON_NODE_HOLDS_OBJECT(node) || JSON_NODE_HOLDS_ARRAY(node)) {
        append_container(out, node, pretty, level);
        return;
    }
    GType type = json_node_get_value_type(node);
    if (type == G_TYPE_STRING)
        append_string(out, json_node_get_string(node));
    else if (type == G_TYPE_BOOLEAN)
        g_string_append(out, json_node_get_boolean(node) ? "true" : "false");
    else if (type == G_TYPE_DOUBLE || type == G_TYPE_FLOAT)
        esl_json_append_double(out, json_node_get_double(node));
    else
        g_string_append_printf(out, "%" G_GINT64_FORMAT, json_node_get_int(node));
}

char *esl_json_generate(JsonNode *root, gboolean pretty)
{
    GString *out = g_string_new(NULL);
    append_node(out, root, pretty, 0);
    return g_string_free(out, FALSE);
}

static char *to_text(JsonNode *root)
{
    return esl_json_generate(root, FALSE);
}

JsonNode *esl_settings_options_to_node(const MbsSettings *s)
{
    g_autoptr(JsonObject) o = json_object_new();
    MbsSettingRef all[MBS_SETTINGS_MAX];
    int n = mbs_settings_list(s->options_table, all);
    for (int i = 0; i < n; i++)
        if (all[i].in_options)
            json_object_set_member(o, all[i].setting->name, esl_setting_to_json(s, &all[i]));
    JsonNode *root = json_node_new(JSON_NODE_OBJECT);
    json_node_set_object(root, o);
    return root;
}

char *esl_settings_options_to_json(const MbsSettings *s)
{
    g_autoptr(JsonNode) root = esl_settings_options_to_node(s);
    return to_text(root);
}

gboolean esl_settings_table_options_from_json(MbsSettings *s, const MbsSettingTable *t,
                                              const char *owner, const char *json,
                                              GError **error)
{
    mbs_settings_use_options(s, NULL);
    mbs_settings_use_options(s, t);
    if (!json)
        return TRUE;
    g_autoptr(JsonNode) root = parse_json(json, error);
    if (!root)
        return FALSE;
    if (!JSON_NODE_HOLDS_OBJECT(root)) {
        g_set_error(error, JSON_PARSER_ERROR, JSON_PARSER_ERROR_INVALID_DATA,
                    "%s options: not a JSON object", owner);
        return FALSE;
    }
    JsonObject *o = json_node_get_object(root);
    MbsSettingRef all[MBS_SETTINGS_MAX];
    int n = mbs_settings_list(t, all);
    for (int i = 0; i < n; i++) {
        const MbsSetting *d = all[i].setting;
        JsonNode *v = all[i].in_options ? json_object_get_member(o, d->name) : NULL;
        if (!v || JSON_NODE_HOLDS_NULL(v))
            continue;
        MbsError err = {0};
        int status;
        if (d->type == MBS_SETTING_LIST) {
            g_autofree char *text = to_text(v);
            status = mbs_setting_set_text(s, &all[i], text, &err);
        } else if (d->type == MBS_SETTING_CHOICE && json_node_get_value_type(v) == G_TYPE_STRING) {
            status = mbs_setting_set_text(s, &all[i], json_node_get_string(v), &err);
        } else if (JSON_NODE_HOLDS_VALUE(v) && json_node_get_value_type(v) != G_TYPE_STRING) {
            status = mbs_setting_set_number(s, &all[i], json_node_get_double(v), &err);
        } else {
            status = mbs_error_set(&err, MBS_FATAL, "%s: not a %s", d->name,
                                   type_names[d->type]);
        }
        if (status) {
            g_set_error(error, JSON_PARSER_ERROR, JSON_PARSER_ERROR_INVALID_DATA, "%s options: %s",
                        owner, err.message);
            return FALSE;
        }
    }
    return TRUE;
}

gboolean esl_settings_options_from_json(MbsSettings *s, const MbsFormulationClass *k,
                                        const char *json, GError **error)
{
    return esl_settings_table_options_from_json(s, k->settings, k->name, json, error);
}

gboolean esl_settings_check_finite(const MbsSettings *s, GError **error)
{
    MbsSettingRef all[MBS_SETTINGS_MAX];
    int n = mbs_settings_list(s->options_table, all);
    for (int i = 0; i < n; i++)
        if (all[i].setting->type == MBS_SETTING_NUMBER &&
            !isfinite(mbs_setting_get_number(s, &all[i]))) {
            g_set_error(error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                        "setting %s is not a finite number", all[i].setting->name);
            return FALSE;
        }
    return TRUE;
}

static void member_string(JsonBuilder *b, const char *name, const char *value)
{
    if (!value)
        return;
    json_builder_set_member_name(b, name);
    json_builder_add_string_value(b, value);
}

void esl_settings_table_to_json(JsonBuilder *b, const MbsFormulationClass *k)
{
    MbsSettings defaults;
    mbs_settings_defaults(&defaults);
    mbs_settings_for(&defaults, k);
    MbsSettingRef all[MBS_SETTINGS_MAX];
    int n = mbs_settings_list(k->settings, all);
    json_builder_begin_array(b);
    for (int i = 0; i < n; i++) {
        const MbsSetting *d = all[i].setting;
        json_builder_begin_object(b);
        member_string(b, "name", d->name);
        member_string(b, "type", type_names[d->type]);
        member_string(b, "scope", all[i].in_options ? k->name : "run");
        json_builder_set_member_name(b, "default");
        json_builder_add_value(b, esl_setting_to_json(&defaults, &all[i]));
        if (d->type == MBS_SETTING_CHOICE) {
            json_builder_set_member_name(b, "choices");
            json_builder_begin_array(b);
            for (int c = 0; d->choices[c]; c++)
                json_builder_add_string_value(b, d->choices[c]);
            json_builder_end_array(b);
        }
        if (d->type == MBS_SETTING_NUMBER || d->type == MBS_SETTING_INTEGER) {
            json_builder_set_member_name(b, "min");
            json_builder_add_double_value(b, d->min);
            json_builder_set_member_name(b, "min_exclusive");
            json_builder_add_boolean_value(b, (d->flags & MBS_SETTING_ABOVE_MIN) != 0);
            json_builder_set_member_name(b, "max");
            json_builder_add_double_value(b, d->max);
        }
        if (d->type == MBS_SETTING_LIST)
            member_string(b, "item_syntax", d->list->item_syntax);
        member_string(b, "unit", d->unit);
        member_string(b, "label", d->label);
        member_string(b, "description", d->description);
        json_builder_set_member_name(b, "applies_always");
        json_builder_add_boolean_value(b, !d->applies && !(all[i].group && all[i].group->applies));
        json_builder_end_object(b);
    }
    json_builder_end_array(b);
}
