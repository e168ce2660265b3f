/* The application's one JSON writer (esl_json_generate): every double, extreme ones included,
 * reads back bit for bit through json-glib's parser; non-finite numbers become null; strings
 * that look like numbers are left alone; and no other file of the application writes JSON
 * through json-glib's generator (json-glib 1.6 writes 1e+17 as "1e+17.0"). */
#include <float.h>
#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>

#include "esl-settings-json.h"
#include "tap.h"

static const double extremes[] = {
    1e17, 1e30, 1e-100, -1e17, 1e16, 1e21, 1e22, 123456789012345678.0, 0.1, 1.0 / 3.0, 2.0,
    -0.0, 0.0, DBL_MAX, -DBL_MAX, DBL_MIN, 4.9406564584124654e-324, 1e308, 1e-308, 5e-324,
    2.5e-10, 9007199254740993.0, 1e300, 1e-5, 123.456};
#define N_EXTREMES (int)(sizeof extremes / sizeof extremes[0])

static JsonNode *document(void)
{
    g_autoptr(JsonBuilder) b = json_builder_new();
    json_builder_begin_object(b);
    json_builder_set_member_name(b, "values");
    json_builder_begin_array(b);
    for (int i = 0; i < N_EXTREMES; i++)
        json_builder_add_double_value(b, extremes[i]);
    json_builder_end_array(b);
    json_builder_set_member_name(b, "nan");
    json_builder_add_double_value(b, NAN);
    json_builder_set_member_name(b, "inf");
    json_builder_add_double_value(b, -INFINITY);
    json_builder_set_member_name(b, "text \"1e5.0\"\n\t\x01");
    json_builder_add_string_value(b, "alpha 1e+17.0 \\ \"quoted\" \x1f é");
    json_builder_set_member_name(b, "count");
    json_builder_add_int_value(b, G_GINT64_CONSTANT(-9007199254740993));
    json_builder_set_member_name(b, "flag");
    json_builder_add_boolean_value(b, TRUE);
    json_builder_set_member_name(b, "nothing");
    json_builder_add_null_value(b);
    json_builder_set_member_name(b, "empty");
    json_builder_begin_object(b);
    json_builder_end_object(b);
    json_builder_end_object(b);
    return json_builder_get_root(b);
}

static void round_trip(gboolean pretty)
{
    g_autoptr(JsonNode) root = document();
    g_autofree char *text = esl_json_generate(root, pretty);
    g_autoptr(JsonParser) parser = json_parser_new();
    g_autoptr(GError) error = NULL;
    if (!tap_ok(json_parser_load_from_data(parser, text, -1, &error), "%s text parses%s%s",
                pretty ? "pretty" : "compact", error ? ": " : "", error ? error->message : ""))
        return;
    JsonObject *o = json_node_get_object(json_parser_get_root(parser));
    JsonArray *a = json_object_get_array_member(o, "values");
    int same = json_array_get_length(a) == (guint)N_EXTREMES;
    for (int i = 0; same && i < N_EXTREMES; i++) {
        JsonNode *v = json_array_get_element(a, i);
        double back = json_node_get_double(v);
        same = json_node_get_value_type(v) == G_TYPE_DOUBLE &&
               memcmp(&back, &extremes[i], sizeof back) == 0;
        if (!same)
            tap_diag("value %d: wrote %.17g, read %.17g", i, extremes[i], back);
    }
    tap_ok(same, "%s: %d extreme doubles (1e17, 1e30, 1e-100, DBL_MAX, denormals, -0) read "
                 "back bit for bit, as doubles",
           pretty ? "pretty" : "compact", N_EXTREMES);
    g_autofree char *numbers = esl_json_generate(json_object_get_member(o, "values"), pretty);
    tap_ok(!strstr(numbers, "e+17.0") && strstr(numbers, "1e+17") &&
               !strstr(text, ": nan") && !strstr(text, ":nan") && !strstr(text, "inf,") &&
               JSON_NODE_HOLDS_NULL(json_object_get_member(o, "nan")) &&
               JSON_NODE_HOLDS_NULL(json_object_get_member(o, "inf")),
           "%s: no '1e+17.0', NaN and infinity written as null", pretty ? "pretty" : "compact");
    tap_ok(g_strcmp0(json_object_get_string_member(o, "text \"1e5.0\"\n\t\x01"),
                     "alpha 1e+17.0 \\ \"quoted\" \x1f é") == 0 &&
               json_object_get_int_member(o, "count") == G_GINT64_CONSTANT(-9007199254740993) &&
               json_object_get_boolean_member(o, "flag") &&
               json_object_get_size(json_object_get_object_member(o, "empty")) == 0,
           "%s: strings (escapes, number-like text), integers, booleans, empty objects survive",
           pretty ? "pretty" : "compact");
}

/* No source of the application calls json-glib's generator but the writer itself. */
static void one_writer(void)
{
    static const char *const dirs[] = {"app", "ui", "render"};
    GString *offenders = g_string_new(NULL);
    for (size_t d = 0; d < G_N_ELEMENTS(dirs); d++) {
        g_autofree char *path = g_build_filename(ESLABON_SOURCE_DIR, dirs[d], NULL);
        g_autoptr(GDir) dir = g_dir_open(path, 0, NULL);
        const char *name;
        while (dir && (name = g_dir_read_name(dir))) {
            if (!g_str_has_suffix(name, ".c") || !strcmp(name, "esl-settings-json.c"))
                continue;
            g_autofree char *file = g_build_filename(path, name, NULL);
            g_autofree char *text = NULL;
            if (g_file_get_contents(file, &text, NULL, NULL) &&
                (strstr(text, "json_generator_") || strstr(text, "json_to_string")))
                g_string_append_printf(offenders, " %s/%s", dirs[d], name);
        }
    }
    tap_ok(offenders->len == 0, "every JSON writer of app/, ui/, render/ is esl_json_generate%s",
           offenders->str);
    g_string_free(offenders, TRUE);
}

int main(void)
{
    round_trip(FALSE);
    round_trip(TRUE);
    one_writer();
    return tap_done();
}
