/* Edits of a model file's JSON text; see esl-edit-json.h. */
#include "esl-edit-json.h"
#include "eslabon-config.h"

#include <glib/gi18n-lib.h>

#include <math.h>
#include <string.h>

#include "esl-model-file.h"
#include "esl-settings-json.h"

const char *esl_spec_string(GVariant *spec, const char *key)
{
    const char *s = NULL;
    return g_variant_lookup(spec, key, "&s", &s) ? s : NULL;
}

gboolean esl_spec_double(GVariant *spec, const char *key, double *out)
{
    g_autoptr(GVariant) v = g_variant_lookup_value(spec, key, NULL);
    if (!v)
        return FALSE;
    if (g_variant_is_of_type(v, G_VARIANT_TYPE_DOUBLE))
        *out = g_variant_get_double(v);
    else if (g_variant_is_of_type(v, G_VARIANT_TYPE_INT32))
        *out = g_variant_get_int32(v);
    else
        return FALSE;
    return isfinite(*out);
}

gboolean esl_spec_doubles(GVariant *spec, const char *key, int n, double *out)
{
    g_autoptr(GVariant) v = g_variant_lookup_value(spec, key, G_VARIANT_TYPE("ad"));
    gsize len = 0;
    const double *x = v ? g_variant_get_fixed_array(v, &len, sizeof(double)) : NULL;
    if (!x || (int)len != n)
        return FALSE;
    for (int i = 0; i < n; i++)
        if (!isfinite(x[i]))
            return FALSE;
    memcpy(out, x, (size_t)n * sizeof *out);
    return TRUE;
}

gboolean esl_spec_pair(GVariant *spec, const char *key, const char *out[2])
{
    g_autoptr(GVariant) v = g_variant_lookup_value(spec, key, G_VARIANT_TYPE("as"));
    if (!v || g_variant_n_children(v) != 2)
        return FALSE;
    for (int i = 0; i < 2; i++)
        g_variant_get_child(v, (gsize)i, "&s", &out[i]);
    return TRUE;
}

char *esl_edit_json(const char *json, const EslEditKind *edits, size_t n, const char *kind,
                    GVariant *spec, GError **error)
{
    g_return_val_if_fail(json && kind && spec, NULL);
    if (!g_variant_is_of_type(spec, G_VARIANT_TYPE_VARDICT)) {
        g_set_error(error, ESL_MODEL_FILE_ERROR, ESL_MODEL_FILE_ERROR_INVALID,
                    _("the inputs of an edit are a dictionary (a{sv})"));
        return NULL;
    }
    size_t i = 0;
    while (i < n && !g_str_equal(edits[i].kind, kind))
        i++;
    if (i == n) {
        g_set_error(error, ESL_MODEL_FILE_ERROR, ESL_MODEL_FILE_ERROR_INVALID,
                    _("unknown edit '%s'"), kind);
        return NULL;
    }
    g_autoptr(JsonParser) parser = json_parser_new();
    if (!json_parser_load_from_data(parser, json, -1, error))
        return NULL;
    JsonNode *root = json_parser_get_root(parser);
    if (!JSON_NODE_HOLDS_OBJECT(root)) {
        g_set_error(error, ESL_MODEL_FILE_ERROR, ESL_MODEL_FILE_ERROR_INVALID,
                    _("the model file is not a JSON object"));
        return NULL;
    }
    if (!edits[i].edit(json_node_get_object(root), spec, error))
        return NULL;
    g_autofree char *text = esl_json_generate(root, TRUE);
    return g_strconcat(text, "\n", NULL);
}
