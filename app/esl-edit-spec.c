/* Reading the inputs of an edit; see esl-edit-spec.h. */
#include "esl-edit-spec.h"

#include <math.h>
#include <string.h>

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
