/* Building a mechanism; see esl-model-build.h. */
#include "esl-model-build.h"
#include "eslabon-config.h"

#include <glib/gi18n-lib.h>

#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>

#include "esl-edit-json.h"
#include "esl-model-edit.h"
#include "esl-model-file.h"
#include "esl-settings-json.h"
#include "mbs_constraints.h"
#include "mbs_force.h"

/* ---- the document -------------------------------------------------------------------------- */

static gboolean fail(GError **error, const char *fmt, ...) G_GNUC_PRINTF(2, 3);
static gboolean fail(GError **error, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    g_autofree char *text = g_strdup_vprintf(fmt, ap);
    va_end(ap);
    g_set_error_literal(error, ESL_MODEL_FILE_ERROR, ESL_MODEL_FILE_ERROR_INVALID, text);
    return FALSE;
}

static char *generate(JsonNode *root)
{
    g_autofree char *text = esl_json_generate(root, TRUE);
    return g_strconcat(text, "\n", NULL);
}

char *esl_model_build_empty(const char *name)
{
    g_autoptr(JsonBuilder) b = json_builder_new();
    json_builder_begin_object(b);
    json_builder_set_member_name(b, "format");
    json_builder_add_string_value(b, "eslabon-model");
    json_builder_set_member_name(b, "version");
    json_builder_add_int_value(b, 1);
    json_builder_set_member_name(b, "name");
    json_builder_add_string_value(b, name && *name ? name : "model");
    json_builder_set_member_name(b, "gravity");
    json_builder_begin_array(b);
    const double g[3] = {0, 0, -9.81}; /* the loader's default, written out to be edited */
    for (int k = 0; k < 3; k++)
        json_builder_add_double_value(b, g[k]);
    json_builder_end_array(b);
    json_builder_set_member_name(b, "bodies");
    json_builder_begin_array(b);
    json_builder_begin_object(b);
    json_builder_set_member_name(b, "name");
    json_builder_add_string_value(b, "ground");
    json_builder_set_member_name(b, "ground");
    json_builder_add_boolean_value(b, TRUE);
    json_builder_end_object(b);
    json_builder_end_array(b);
    json_builder_end_object(b);
    g_autoptr(JsonNode) root = json_builder_get_root(b);
    return generate(root);
}

/* The array member key of root, created empty when absent. */
static JsonArray *section(JsonObject *root, const char *key)
{
    JsonNode *n = json_object_get_member(root, key);
    if (!n || !JSON_NODE_HOLDS_ARRAY(n)) {
        json_object_set_array_member(root, key, json_array_new());
        n = json_object_get_member(root, key);
    }
    return json_node_get_array(n);
}

static JsonObject *element_at(JsonArray *a, guint i)
{
    JsonNode *n = json_array_get_element(a, i);
    return JSON_NODE_HOLDS_OBJECT(n) ? json_node_get_object(n) : NULL;
}

static const char *name_of(JsonObject *o)
{
    return o ? json_object_get_string_member_with_default(o, "name", "") : "";
}

/* Index of the element named name in the array member key of root, or -1. */
static int find_named(JsonObject *root, const char *key, const char *name)
{
    JsonArray *a = section(root, key);
    for (guint i = 0; i < json_array_get_length(a); i++)
        if (g_strcmp0(name_of(element_at(a, i)), name) == 0)
            return (int)i;
    return -1;
}

static JsonObject *find_body(JsonObject *root, const char *name)
{
    int i = find_named(root, "bodies", name);
    return i < 0 ? NULL : element_at(section(root, "bodies"), (guint)i);
}

static JsonObject *points_of(JsonObject *body)
{
    JsonNode *n = json_object_get_member(body, "points");
    if (!n || !JSON_NODE_HOLDS_OBJECT(n)) {
        json_object_set_object_member(body, "points", json_object_new());
        n = json_object_get_member(body, "points");
    }
    return json_node_get_object(n);
}

/* ---- reading the inputs ------------------------------------------------------------------- */

static JsonArray *vector_array(const double v[3])
{
    JsonArray *a = json_array_new();
    for (int k = 0; k < 3; k++)
        json_array_add_double_element(a, v[k]);
    return a;
}

/* The value of a point written as three plain numbers; FALSE for expressions. */
static gboolean literal_point(JsonNode *n, double out[3])
{
    if (!n || !JSON_NODE_HOLDS_ARRAY(n) || json_array_get_length(json_node_get_array(n)) != 3)
        return FALSE;
    for (guint k = 0; k < 3; k++) {
        JsonNode *e = json_array_get_element(json_node_get_array(n), k);
        if (!JSON_NODE_HOLDS_VALUE(e) || json_node_get_value_type(e) == G_TYPE_STRING ||
            json_node_get_value_type(e) == G_TYPE_BOOLEAN)
            return FALSE;
        out[k] = json_node_get_double(e);
    }
    return TRUE;
}

static gboolean check_new_name(JsonObject *root, const char *key, const char *what,
                               const char *name, GError **error)
{
    if (!name || !*name)
        return fail(error, _("the %s needs a name"), what);
    if (strlen(name) >= MBS_NAME_MAX)
        return fail(error, _("the %s name '%s' is longer than %d characters"), what, name,
                    MBS_NAME_MAX - 1);
    if (find_named(root, key, name) >= 0)
        return fail(error, _("a %s named '%s' is already defined"), what, name);
    return TRUE;
}

/* ---- bodies --------------------------------------------------------------------------------- */

static gboolean add_body(JsonObject *root, GVariant *spec, GError **error)
{
    const char *name = esl_spec_string(spec, "name"), *shape = esl_spec_string(spec, "shape");
    if (!check_new_name(root, "bodies", _("body"), name, error))
        return FALSE;
    double mass = 0, density = 0, ends[6], centre[3], size[3];
    gboolean has_mass = esl_spec_double(spec, "mass", &mass);
    gboolean has_density = esl_spec_double(spec, "density", &density);
    if (has_mass == has_density)
        return fail(error, _("body '%s': give its mass or its density (one of them)"), name);
    if (mass < 0 || density < 0)
        return fail(error, _("body '%s': the mass and the density must not be negative"), name);
    JsonObject *body = json_object_new();
    json_object_set_string_member(body, "name", name);
    JsonObject *points = json_object_new();
    JsonNode *inertia = NULL;
    double measure = 0; /* length (bar) or volume (box) that the density multiplies */
    if (g_strcmp0(shape, "bar") == 0) {
        const char *names[2] = {"P1", "P2"};
        if (!esl_spec_doubles(spec, "ends", 6, ends)) {
            json_object_unref(body);
            json_object_unref(points);
            return fail(error, _("body '%s': a bar needs its two ends (6 numbers)"), name);
        }
        esl_spec_pair(spec, "end-names", names);
        if (!*names[0] || !*names[1] || g_str_equal(names[0], names[1])) {
            json_object_unref(body);
            json_object_unref(points);
            return fail(error, _("body '%s': the two ends need two different names"), name);
        }
        measure = sqrt((ends[3] - ends[0]) * (ends[3] - ends[0]) +
                       (ends[4] - ends[1]) * (ends[4] - ends[1]) +
                       (ends[5] - ends[2]) * (ends[5] - ends[2]));
        json_object_set_array_member(points, names[0], vector_array(ends));
        json_object_set_array_member(points, names[1], vector_array(ends + 3));
        JsonObject *rod = json_object_new();
        JsonArray *refs = json_array_new();
        json_array_add_string_element(refs, names[0]);
        json_array_add_string_element(refs, names[1]);
        json_object_set_array_member(rod, "slender_rod", refs);
        inertia = json_node_init_object(json_node_alloc(), rod);
        json_object_unref(rod);
    } else if (g_strcmp0(shape, "box") == 0 || g_strcmp0(shape, "point-mass") == 0) {
        gboolean box = g_str_equal(shape, "box");
        if (!esl_spec_doubles(spec, "centre", 3, centre) ||
            (box && (!esl_spec_doubles(spec, "size", 3, size) || size[0] < 0 || size[1] < 0 ||
                     size[2] < 0))) {
            json_object_unref(body);
            json_object_unref(points);
            return fail(error, box ? _("body '%s': a box needs its centre and its three edges")
                                   : _("body '%s': a point mass needs its position"), name);
        }
        json_object_set_array_member(body, "com", vector_array(centre));
        json_object_set_array_member(points, "G", vector_array(centre));
        if (box) {
            measure = size[0] * size[1] * size[2];
            JsonObject *o = json_object_new();
            json_object_set_array_member(o, "box", vector_array(size));
            inertia = json_node_init_object(json_node_alloc(), o);
            json_object_unref(o);
        } else {
            inertia = json_node_init_string(json_node_alloc(), "point");
        }
    } else {
        json_object_unref(body);
        json_object_unref(points);
        return fail(error, _("body '%s': unknown shape '%s' (expected bar, box or point-mass)"),
                    name, shape ? shape : "");
    }
    if (has_density && g_str_equal(shape, "point-mass")) {
        json_node_unref(inertia);
        json_object_unref(body);
        json_object_unref(points);
        return fail(error, _("body '%s': a point mass is given by its mass"), name);
    }
    json_object_set_double_member(body, "mass", has_mass ? mass : density * measure);
    json_object_set_member(body, "inertia", inertia);
    json_object_set_object_member(body, "points", points);
    json_array_add_object_element(section(root, "bodies"), body);
    return TRUE;
}

/* ---- shared points ---------------------------------------------------------------------------- */

/* The name of a point of body at location v (written as plain numbers), or NULL. */
static const char *point_at(JsonObject *body, const double v[3])
{
    JsonObject *points = points_of(body);
    g_autoptr(GList) names = json_object_get_members(points);
    for (GList *l = names; l; l = l->next) {
        double p[3];
        if (literal_point(json_object_get_member(points, l->data), p) && p[0] == v[0] &&
            p[1] == v[1] && p[2] == v[2])
            return l->data;
    }
    return NULL;
}

/* A name for a new point of two bodies: base, else base2, base3, ... */
static char *free_point_name(JsonObject *b1, JsonObject *b2, const char *base)
{
    for (int i = 1;; i++) {
        char *name = i == 1 ? g_strdup(base) : g_strdup_printf("%s%d", base, i);
        if (!json_object_has_member(points_of(b1), name) &&
            !json_object_has_member(points_of(b2), name))
            return name;
        g_free(name);
    }
}

/* The joint's location as the name of a point that both bodies have at the same place: the
 * point named, or a point at the location, or a new one named after the joint. */
static char *shared_point(JsonObject *b1, JsonObject *b2, GVariant *spec, const char *joint,
                          GError **error)
{
    const char *named = esl_spec_string(spec, "point");
    double at[3];
    JsonObject *bodies[2] = {b1, b2};
    JsonNode *value = NULL;
    char *name = NULL;
    if (named) {
        for (int i = 0; i < 2 && !value; i++)
            value = json_object_get_member(points_of(bodies[i]), named);
        if (!value) {
            fail(error, _("joint '%s': '%s' is not a point of '%s' or '%s'"), joint, named,
                 name_of(b1), name_of(b2));
            return NULL;
        }
        name = g_strdup(named);
    } else if (esl_spec_doubles(spec, "location", 3, at)) {
        const char *found = point_at(b1, at);
        if (!found)
            found = point_at(b2, at);
        name = found ? g_strdup(found) : free_point_name(b1, b2, joint);
    } else {
        fail(error, _("joint '%s': give its location (a point of its bodies or 3 numbers)"), joint);
        return NULL;
    }
    /* Both bodies carry the point, written alike: it is one point of the mechanism. */
    for (int i = 0; i < 2; i++) {
        JsonObject *points = points_of(bodies[i]);
        JsonNode *mine = json_object_get_member(points, name);
        if (mine && value && !json_node_equal(mine, value)) {
            fail(error, _("joint '%s': '%s' and '%s' have points '%s' at different places"), joint,
                 name_of(b1), name_of(b2), name);
            g_free(name);
            return NULL;
        }
        if (!mine && value)
            json_object_set_member(points, name, json_node_copy(value));
        else if (!mine)
            json_object_set_array_member(points, name, vector_array(at));
        if (!value)
            value = json_object_get_member(points, name);
    }
    return name;
}

static gboolean set_direction(JsonObject *joint, GVariant *spec, const char *key,
                              GError **error)
{
    double v[3];
    const char *named = esl_spec_string(spec, key);
    if (named)
        json_object_set_string_member(joint, key, named);
    else if (esl_spec_doubles(spec, key, 3, v))
        json_object_set_array_member(joint, key, vector_array(v));
    else
        return fail(error, _("joint '%s': give its %s (x, y, z, a vector name or 3 numbers)"),
                    name_of(joint), key);
    return TRUE;
}

/* ---- joints ------------------------------------------------------------------------------------ */

static gboolean add_joint(JsonObject *root, GVariant *spec, GError **error)
{
    static const char *const types[] = {"revolute", "prismatic", "spherical", "universal", "rod",
                                        NULL};
    const char *name = esl_spec_string(spec, "name"), *type = esl_spec_string(spec, "type");
    const char *bodies[2];
    if (!check_new_name(root, "joints", _("joint"), name, error))
        return FALSE;
    if (!type || !g_strv_contains(types, type))
        return fail(error, _("joint '%s': unknown type '%s' (expected revolute, prismatic, "
                    "spherical, universal or rod)"), name, type ? type : "");
    if (!esl_spec_pair(spec, "bodies", bodies))
        return fail(error, _("joint '%s': pick its two bodies"), name);
    JsonObject *b1 = find_body(root, bodies[0]), *b2 = find_body(root, bodies[1]);
    if (!b1 || !b2)
        return fail(error, _("joint '%s': no body named '%s'"), name, b1 ? bodies[1] : bodies[0]);
    if (b1 == b2)
        return fail(error, _("joint '%s': its two bodies must differ"), name);
    JsonObject *joint = json_object_new();
    json_object_set_string_member(joint, "name", name);
    json_object_set_string_member(joint, "type", type);
    JsonArray *pair = json_array_new();
    json_array_add_string_element(pair, bodies[0]);
    json_array_add_string_element(pair, bodies[1]);
    json_object_set_array_member(joint, "bodies", pair);
    gboolean ok = TRUE;
    if (g_str_equal(type, "rod")) {
        double ends[6], length;
        const char *names[2];
        JsonArray *points = json_array_new();
        if (esl_spec_pair(spec, "points", names)) {
            json_array_add_string_element(points, names[0]);
            json_array_add_string_element(points, names[1]);
        } else if (esl_spec_doubles(spec, "ends", 6, ends)) {
            json_array_add_array_element(points, vector_array(ends));
            json_array_add_array_element(points, vector_array(ends + 3));
        } else {
            ok = fail(error, _("joint '%s': a rod needs its two end points"), name);
        }
        json_object_set_array_member(joint, "points", points);
        if (esl_spec_double(spec, "length", &length))
            json_object_set_double_member(joint, "length", length);
    } else {
        g_autofree char *point = shared_point(b1, b2, spec, name, error);
        ok = point != NULL;
        if (ok)
            json_object_set_string_member(joint, "point", point);
        if (ok && (g_str_equal(type, "revolute") || g_str_equal(type, "prismatic")))
            ok = set_direction(joint, spec, "axis", error);
        if (ok && g_str_equal(type, "universal"))
            ok = set_direction(joint, spec, "axis1", error) &&
                 set_direction(joint, spec, "axis2", error);
    }
    if (!ok) {
        json_object_unref(joint);
        return FALSE;
    }
    json_array_add_object_element(section(root, "joints"), joint);
    return TRUE;
}

static gboolean set_driver(JsonObject *root, GVariant *spec, GError **error)
{
    const char *name = esl_spec_string(spec, "joint"), *type = esl_spec_string(spec, "type");
    int j = name ? find_named(root, "joints", name) : -1;
    if (j < 0)
        return fail(error, _("driver: no joint named '%s'"), name ? name : "");
    JsonObject *joint = element_at(section(root, "joints"), (guint)j);
    if (g_strcmp0(type, "none") == 0) {
        json_object_remove_member(joint, "driver");
        return TRUE;
    }
    JsonObject *driver = json_object_new();
    if (g_strcmp0(type, "polynomial") == 0) {
        g_autoptr(GVariant) v = g_variant_lookup_value(spec, "coefficients", G_VARIANT_TYPE("ad"));
        gsize n = 0;
        const double *c = v ? g_variant_get_fixed_array(v, &n, sizeof(double)) : NULL;
        if (n < 1 || n > MBS_POLY_MAX) {
            json_object_unref(driver);
            return fail(error, _("driver of '%s': a polynomial has 1 to %d coefficients"), name,
                        MBS_POLY_MAX);
        }
        json_object_set_string_member(driver, "type", "polynomial");
        JsonArray *a = json_array_new();
        for (gsize i = 0; i < n; i++)
            json_array_add_double_element(a, c[i]);
        json_object_set_array_member(driver, "coefficients", a);
    } else if (g_strcmp0(type, "sine") == 0) {
        json_object_set_string_member(driver, "type", "sine");
        static const char *const keys[] = {"offset", "amplitude", "omega", "phase"};
        for (size_t i = 0; i < G_N_ELEMENTS(keys); i++) {
            double x = 0;
            if (!esl_spec_double(spec, keys[i], &x) && (i == 1 || i == 2)) {
                json_object_unref(driver);
                return fail(error, _("driver of '%s': a sine needs its %s"), name, keys[i]);
            }
            json_object_set_double_member(driver, keys[i], x);
        }
    } else {
        json_object_unref(driver);
        return fail(error, _("driver of '%s': unknown type '%s' (expected polynomial, sine or "
                    "none)"), name, type ? type : "");
    }
    json_object_set_object_member(joint, "driver", driver);
    return TRUE;
}

/* The entries of "initial" for joint (and coordinate c, or every one when c < 0) removed. */
static void remove_initial(JsonObject *root, const char *joint, int c)
{
    JsonArray *a = section(root, "initial");
    for (guint i = json_array_get_length(a); i-- > 0;) {
        JsonObject *o = element_at(a, i);
        if (o && g_strcmp0(json_object_get_string_member_with_default(o, "joint", ""), joint) == 0 &&
            (c < 0 || json_object_get_int_member_with_default(o, "coordinate", 0) == c))
            json_array_remove_element(a, i);
    }
}

static gboolean set_initial(JsonObject *root, GVariant *spec, GError **error)
{
    const char *joint = esl_spec_string(spec, "joint");
    if (!joint || find_named(root, "joints", joint) < 0)
        return fail(error, _("initial condition: no joint named '%s'"), joint ? joint : "");
    gint32 c = 0;
    g_variant_lookup(spec, "coordinate", "i", &c);
    if (c < 0 || c > 2)
        return fail(error, _("initial condition of '%s': coordinate %d does not exist"), joint, c);
    remove_initial(root, joint, c);
    double position, velocity;
    gboolean has_position = esl_spec_double(spec, "position", &position);
    gboolean has_velocity = esl_spec_double(spec, "velocity", &velocity);
    if (!has_position && !has_velocity)
        return TRUE;
    JsonObject *entry = json_object_new();
    json_object_set_string_member(entry, "joint", joint);
    json_object_set_int_member(entry, "coordinate", c);
    if (has_position)
        json_object_set_double_member(entry, "position", position);
    if (has_velocity)
        json_object_set_double_member(entry, "velocity", velocity);
    json_array_add_object_element(section(root, "initial"), entry);
    return TRUE;
}

/* ---- forces -------------------------------------------------------------------------------------- */

static gboolean set_force_place(JsonObject *root, JsonObject *force, const MbsForceClass *c,
                                GVariant *spec, GError **error)
{
    const char *pair[2], *body = esl_spec_string(spec, "body");
    const char *joint = esl_spec_string(spec, "joint");
    double v[6];
    switch (c->geometry) {
    case MBS_FORCE_ON_LINE: {
        if (!esl_spec_pair(spec, "bodies", pair) || !find_body(root, pair[0]) ||
            !find_body(root, pair[1]))
            return fail(error, _("%s: pick its two bodies"), c->name);
        JsonArray *a = json_array_new();
        json_array_add_string_element(a, pair[0]);
        json_array_add_string_element(a, pair[1]);
        json_object_set_array_member(force, "bodies", a);
        JsonArray *points = json_array_new();
        if (esl_spec_pair(spec, "points", pair)) {
            json_array_add_string_element(points, pair[0]);
            json_array_add_string_element(points, pair[1]);
        } else if (esl_spec_doubles(spec, "ends", 6, v)) {
            json_array_add_array_element(points, vector_array(v));
            json_array_add_array_element(points, vector_array(v + 3));
        } else {
            json_array_unref(points);
            return fail(error, _("%s: give its two points"), c->name);
        }
        json_object_set_array_member(force, "points", points);
        return TRUE;
    }
    case MBS_FORCE_ON_JOINT:
    case MBS_FORCE_CONTROL:
        if (!joint || find_named(root, "joints", joint) < 0)
            return fail(error, _("%s: pick its joint"), c->name);
        json_object_set_string_member(force, "joint", joint);
        if (c->geometry == MBS_FORCE_ON_JOINT)
            return TRUE;
        /* a driver also reads a body's point: */
        /* fall through */
    case MBS_FORCE_AT_POINT:
    case MBS_FORCE_ON_WHEEL: /* its centre: a point; its axis: a field */
    case MBS_FORCE_ON_BODY:
        if (!body || !find_body(root, body))
            return fail(error, _("%s: pick its body"), c->name);
        json_object_set_string_member(force, "body", body);
        if (c->geometry == MBS_FORCE_ON_BODY)
            return TRUE;
        if (esl_spec_string(spec, "point"))
            json_object_set_string_member(force, "point", esl_spec_string(spec, "point"));
        else if (esl_spec_doubles(spec, "location", 3, v))
            json_object_set_array_member(force, "point", vector_array(v));
        else
            return fail(error, _("%s: give the point it acts at"), c->name);
        return TRUE;
    }
    return FALSE;
}

static gboolean add_force(JsonObject *root, GVariant *spec, GError **error)
{
    const char *type = esl_spec_string(spec, "type"), *name = esl_spec_string(spec, "name");
    const MbsForceClass *c = type ? mbs_force_class_by_name(type) : NULL;
    if (!c) {
        char kinds[256];
        mbs_force_class_list(kinds, sizeof kinds);
        return fail(error, _("unknown force type '%s' (expected %s)"), type ? type : "", kinds);
    }
    if (name && *name && !check_new_name(root, "forces", _("force"), name, error))
        return FALSE;
    JsonObject *force = json_object_new();
    if (name && *name)
        json_object_set_string_member(force, "name", name);
    json_object_set_string_member(force, "type", c->name);
    if (!set_force_place(root, force, c, spec, error)) {
        json_object_unref(force);
        return FALSE;
    }
    /* The class's own numbers: the fields it publishes, nothing listed here. */
    for (const MbsForceField *fd = c->fields; fd->name; fd++) {
        double v[3];
        if (fd->flags & MBS_FIELD_TABLE) { /* not from a spec: written in the file */
            json_object_unref(force);
            return fail(error, _("%s: its %s is written in the model file"), c->name, fd->name);
        }
        if (fd->count == 3 && esl_spec_doubles(spec, fd->name, 3, v))
            json_object_set_array_member(force, fd->name, vector_array(v));
        else if (fd->count == 1 && esl_spec_double(spec, fd->name, v))
            json_object_set_double_member(force, fd->name, v[0]);
        else if (fd->flags & MBS_FIELD_REQUIRED) {
            json_object_unref(force);
            return fail(error, _("%s: give its %s"), c->name, fd->name);
        }
    }
    json_array_add_object_element(section(root, "forces"), force);
    return TRUE;
}

/* ---- parameters, gravity ---------------------------------------------------------------------- */

static gboolean set_parameter(JsonObject *root, GVariant *spec, GError **error)
{
    const char *name = esl_spec_string(spec, "name"), *expression = esl_spec_string(spec, "value");
    double value;
    if (!name || !*name)
        return fail(error, _("the parameter needs a name"));
    JsonNode *n = json_object_get_member(root, "parameters");
    if (!n || !JSON_NODE_HOLDS_OBJECT(n)) {
        json_object_set_object_member(root, "parameters", json_object_new());
        n = json_object_get_member(root, "parameters");
    }
    JsonObject *params = json_node_get_object(n);
    if (expression)
        json_object_set_string_member(params, name, expression);
    else if (esl_spec_double(spec, "value", &value))
        json_object_set_double_member(params, name, value);
    else
        return fail(error, _("parameter '%s': give its value (a number or an expression)"), name);
    return TRUE;
}

static gboolean set_gravity(JsonObject *root, GVariant *spec, GError **error)
{
    double g[3];
    if (!esl_spec_doubles(spec, "vector", 3, g))
        return fail(error, _("gravity: give its three components"));
    json_object_set_array_member(root, "gravity", vector_array(g));
    return TRUE;
}

/* ---- removing --------------------------------------------------------------------------------- */

static gboolean mentions(JsonObject *o, const char *key, const char *name)
{
    JsonNode *n = json_object_get_member(o, key);
    if (!n)
        return FALSE;
    if (JSON_NODE_HOLDS_VALUE(n) && json_node_get_value_type(n) == G_TYPE_STRING)
        return g_str_equal(json_node_get_string(n), name);
    if (!JSON_NODE_HOLDS_ARRAY(n))
        return FALSE;
    JsonArray *a = json_node_get_array(n);
    for (guint i = 0; i < json_array_get_length(a); i++) {
        JsonNode *e = json_array_get_element(a, i);
        if (JSON_NODE_HOLDS_VALUE(e) && json_node_get_value_type(e) == G_TYPE_STRING &&
            g_str_equal(json_node_get_string(e), name))
            return TRUE;
    }
    return FALSE;
}

/* Remove the elements of the array member key whose member field names name. */
static void remove_mentioning(JsonObject *root, const char *key, const char *field,
                              const char *name, GPtrArray *removed_names)
{
    JsonArray *a = section(root, key);
    for (guint i = json_array_get_length(a); i-- > 0;) {
        JsonObject *o = element_at(a, i);
        if (!o || !mentions(o, field, name))
            continue;
        if (removed_names)
            g_ptr_array_add(removed_names, g_strdup(name_of(o)));
        json_array_remove_element(a, i);
    }
}

/* Remove the objective terms (integrand and final) whose member field names name, and the
 * objectives left without a term: what read a removed body or joint goes with it, as its joints
 * and forces do, so the model still loads (an objective needs a term: docs/model-format.md). */
static void remove_objective_terms(JsonObject *root, const char *field, const char *name)
{
    static const char *const parts[] = {"integrand", "final"};
    JsonNode *member = json_object_get_member(root, "objectives");
    if (!member || !JSON_NODE_HOLDS_ARRAY(member))
        return;
    JsonArray *objectives = json_node_get_array(member);
    for (guint i = json_array_get_length(objectives); i-- > 0;) {
        JsonObject *o = element_at(objectives, i);
        if (!o)
            continue;
        guint left = 0;
        for (size_t k = 0; k < G_N_ELEMENTS(parts); k++) {
            JsonNode *n = json_object_get_member(o, parts[k]);
            if (!n || !JSON_NODE_HOLDS_ARRAY(n))
                continue;
            JsonArray *terms = json_node_get_array(n);
            for (guint t = json_array_get_length(terms); t-- > 0;) {
                JsonObject *term = element_at(terms, t);
                if (term && mentions(term, field, name))
                    json_array_remove_element(terms, t);
            }
            left += json_array_get_length(terms);
        }
        if (left == 0)
            json_array_remove_element(objectives, i);
    }
    if (json_array_get_length(objectives) == 0) /* a model without objectives has no member */
        json_object_remove_member(root, "objectives");
}

static void remove_joint_named(JsonObject *root, const char *joint)
{
    int j = find_named(root, "joints", joint);
    if (j >= 0)
        json_array_remove_element(section(root, "joints"), (guint)j);
    remove_initial(root, joint, -1);
    remove_mentioning(root, "degrees_of_freedom", "joint", joint, NULL);
    remove_mentioning(root, "forces", "joint", joint, NULL);
    remove_objective_terms(root, "joint", joint);
}

static gboolean remove_element(JsonObject *root, GVariant *spec, GError **error)
{
    const char *key = esl_spec_string(spec, "section"), *name = esl_spec_string(spec, "name");
    if (!name)
        return fail(error, _("remove: which element?"));
    if (g_strcmp0(key, "parameters") == 0) {
        JsonNode *n = json_object_get_member(root, "parameters");
        if (!n || !JSON_NODE_HOLDS_OBJECT(n) ||
            !json_object_has_member(json_node_get_object(n), name))
            return fail(error, _("no parameter named '%s'"), name);
        json_object_remove_member(json_node_get_object(n), name);
        return TRUE;
    }
    if (!key || (!g_str_equal(key, "bodies") && !g_str_equal(key, "joints") &&
                 !g_str_equal(key, "forces")))
        return fail(error, _("remove: unknown section '%s'"), key ? key : "");
    int i = find_named(root, key, name);
    if (i < 0)
        return fail(error, _("no element named '%s' in %s"), name, key);
    if (g_str_equal(key, "joints")) {
        remove_joint_named(root, name);
        return TRUE;
    }
    if (g_str_equal(key, "bodies")) {
        JsonObject *body = element_at(section(root, key), (guint)i);
        if (json_object_get_boolean_member_with_default(body, "ground", FALSE))
            return fail(error, _("the ground '%s' cannot be removed"), name);
        g_autoptr(GPtrArray) joints = g_ptr_array_new_with_free_func(g_free);
        JsonArray *a = section(root, "joints");
        for (guint k = 0; k < json_array_get_length(a); k++)
            if (element_at(a, k) && mentions(element_at(a, k), "bodies", name))
                g_ptr_array_add(joints, g_strdup(name_of(element_at(a, k))));
        for (guint k = 0; k < joints->len; k++)
            remove_joint_named(root, joints->pdata[k]);
        remove_mentioning(root, "forces", "bodies", name, NULL);
        remove_mentioning(root, "forces", "body", name, NULL);
        remove_mentioning(root, "degrees_of_freedom", "body", name, NULL);
        remove_objective_terms(root, "body", name);
    }
    json_array_remove_element(section(root, key), (guint)i);
    return TRUE;
}

/* ---- dispatch --------------------------------------------------------------------------------- */

char *esl_model_build_edit(const char *json, const char *kind, GVariant *spec, GError **error)
{
    static const EslEditKind edits[] = {
        {"body", add_body},          {"joint", add_joint},          {"force", add_force},
        {"driver", set_driver},      {"initial", set_initial},      {"parameter", set_parameter},
        {"gravity", set_gravity},    {"remove", remove_element},
    };
    return esl_edit_json(json, edits, G_N_ELEMENTS(edits), kind, spec, error);
}

/* ---- undo / redo ------------------------------------------------------------------------------ */

typedef struct {
    char *json;  /* the text before (undo) or after (redo) the edit */
    char *label;
} HistoryEntry;

struct _EslModelHistory {
    char *json;
    GArray *undo, *redo; /* HistoryEntry, the latest last */
};

static void history_entry_clear(gpointer data)
{
    HistoryEntry *e = data;
    g_free(e->json);
    g_free(e->label);
}

EslModelHistory *esl_model_history_new(const char *json)
{
    EslModelHistory *h = g_new0(EslModelHistory, 1);
    h->json = g_strdup(json);
    h->undo = g_array_new(FALSE, FALSE, sizeof(HistoryEntry));
    h->redo = g_array_new(FALSE, FALSE, sizeof(HistoryEntry));
    g_array_set_clear_func(h->undo, history_entry_clear);
    g_array_set_clear_func(h->redo, history_entry_clear);
    return h;
}

void esl_model_history_free(EslModelHistory *h)
{
    if (!h)
        return;
    g_free(h->json);
    g_array_unref(h->undo);
    g_array_unref(h->redo);
    g_free(h);
}

const char *esl_model_history_get_json(const EslModelHistory *h)
{
    return h->json;
}

void esl_model_history_push(EslModelHistory *h, char *json, const char *label)
{
    HistoryEntry e = {h->json, g_strdup(label)};
    g_array_append_val(h->undo, e);
    g_array_set_size(h->redo, 0);
    h->json = json;
}

static const char *last_label(const GArray *a)
{
    return a->len ? g_array_index(a, HistoryEntry, a->len - 1).label : NULL;
}

const char *esl_model_history_undo_label(const EslModelHistory *h)
{
    return last_label(h->undo);
}

const char *esl_model_history_redo_label(const EslModelHistory *h)
{
    return last_label(h->redo);
}

/* The latest entry of from becomes the present; the present goes to to, under the same label. */
static gboolean history_move(EslModelHistory *h, GArray *from, GArray *to)
{
    if (from->len == 0)
        return FALSE;
    HistoryEntry *last = &g_array_index(from, HistoryEntry, from->len - 1);
    HistoryEntry e = {h->json, last->label};
    h->json = last->json;
    g_array_append_val(to, e);
    last->json = NULL;
    last->label = NULL;
    g_array_set_size(from, from->len - 1);
    return TRUE;
}

gboolean esl_model_history_undo(EslModelHistory *h)
{
    return history_move(h, h->undo, h->redo);
}

gboolean esl_model_history_redo(EslModelHistory *h)
{
    return history_move(h, h->redo, h->undo);
}

/* ---- the check ---------------------------------------------------------------------------------- */

void esl_model_check_free(EslModelCheck *c)
{
    if (!c)
        return;
    g_free(c->json);
    mbs_model_free(c->model);
    mbs_model_free(c->draft);
    g_free(c->poses);
    g_free(c->violations);
    g_free(c->error);
    g_free(c);
}

/* The element a loader message names: "bodies[2] 'x'", "joints[0]", "forces[1]",
 * "parameters 'L'", or "body 'x' is not connected" from the topology. */
static void locate_error(EslModelCheck *c, const MbsModel *draft)
{
    static const struct {
        const char *prefix;
        EslCheckSection section;
    } sections[] = {
        {"bodies[", ESL_CHECK_SECTION_BODY},
        {"joints[", ESL_CHECK_SECTION_JOINT},
        {"forces[", ESL_CHECK_SECTION_FORCE},
    };
    c->section = ESL_CHECK_SECTION_NONE;
    c->index = -1;
    for (size_t i = 0; i < G_N_ELEMENTS(sections); i++) {
        const char *at = strstr(c->error, sections[i].prefix);
        if (at) {
            c->section = sections[i].section;
            c->index = atoi(at + strlen(sections[i].prefix));
            return;
        }
    }
    const char *body = strstr(c->error, "body '");
    if (body && draft) {
        body += strlen("body '");
        const char *end = strchr(body, '\'');
        g_autofree char *name = end ? g_strndup(body, (gsize)(end - body)) : NULL;
        int b = name ? mbs_model_find_body(draft, name) : -1;
        if (b >= 0) {
            c->section = ESL_CHECK_SECTION_BODY;
            c->index = b;
        }
    }
}

EslModelCheck *esl_model_check_run(const char *json, const char *origin, const char *formulation,
                                   const MbsSettings *settings)
{
    gint64 start = g_get_monotonic_time();
    EslModelCheck *c = g_new0(EslModelCheck, 1);
    c->json = g_strdup(json);
    c->ncoords = c->nconstraints = c->rank = c->dof = c->redundant = -1;
    c->section = ESL_CHECK_SECTION_NONE;
    c->index = -1;
    g_autoptr(GError) error = NULL;
    MbsModel *draft = NULL;
    MbsModel *m = esl_model_load_string_partial(json, origin, &draft, &error);
    if (!m) {
        c->error = g_strdup(error->message);
        c->draft = draft;
        locate_error(c, draft);
        c->seconds = (double)(g_get_monotonic_time() - start) * 1e-6;
        return c;
    }
    c->ncoords = mbs_model_ncoords(m);
    c->nconstraints = mbs_model_nconstraints(m);
    c->rank = mbs_constraints_rank(m, 0.0, NULL); /* as `eslabon-cli info` */
    if (c->rank >= 0) {
        c->dof = c->ncoords - c->rank;
        c->redundant = c->nconstraints - c->rank;
    }
    if (c->ncoords == 0) {
        /* Nothing moves (a ground alone): nothing to assemble; the formulations need at least
         * one coordinate (penalty's acceleration problem fails without one). */
        c->model = m;
        c->poses = g_new0(double, (gsize)m->nbodies * 12);
        c->violations = g_new0(double, (gsize)MAX(m->njoints, 1));
        for (int b = 0; b < m->nbodies; b++)
            c->poses[12 * b] = c->poses[12 * b + 4] = c->poses[12 * b + 8] = 1.0;
        c->seconds = (double)(g_get_monotonic_time() - start) * 1e-6;
        return c;
    }
    g_autoptr(GError) error_assembly = NULL;
    if (esl_model_assemble(m, origin, formulation, settings, &c->poses, &c->violations,
                           &error_assembly)) {
        c->model = m;
    } else {
        c->error = g_strdup(error_assembly->message);
        c->draft = m;
    }
    c->seconds = (double)(g_get_monotonic_time() - start) * 1e-6;
    return c;
}

typedef struct {
    char *json, *origin, *formulation;
    MbsSettings settings;
} CheckInput;

static void check_input_free(gpointer data)
{
    CheckInput *in = data;
    g_free(in->json);
    g_free(in->origin);
    g_free(in->formulation);
    g_free(in);
}

static void check_thread(GTask *task, gpointer source, gpointer data, GCancellable *cancellable)
{
    (void)source;
    (void)cancellable;
    CheckInput *in = data;
    g_task_return_pointer(task,
                          esl_model_check_run(in->json, in->origin, in->formulation, &in->settings),
                          (GDestroyNotify)esl_model_check_free);
}

void esl_model_check_async(const char *json, const char *origin, const char *formulation,
                           const MbsSettings *settings, GCancellable *cancellable,
                           GAsyncReadyCallback callback, gpointer data)
{
    CheckInput *in = g_new0(CheckInput, 1);
    in->json = g_strdup(json);
    in->origin = g_strdup(origin);
    in->formulation = g_strdup(formulation);
    in->settings = *settings;
    GTask *task = g_task_new(NULL, cancellable, callback, data);
    g_task_set_task_data(task, in, check_input_free);
    g_task_set_return_on_cancel(task, FALSE);
    g_task_run_in_thread(task, check_thread);
    g_object_unref(task);
}

EslModelCheck *esl_model_check_finish(GAsyncResult *result, GError **error)
{
    return g_task_propagate_pointer(G_TASK(result), error);
}

/* ---- comparing models ---------------------------------------------------------------------------- */

static gboolean same_doubles(const double *a, const double *b, int n)
{
    for (int i = 0; i < n; i++)
        if (a[i] != b[i] && !(isnan(a[i]) && isnan(b[i])))
            return FALSE;
    return TRUE;
}

static gboolean same_function(const MbsFunction *a, const MbsFunction *b)
{
    return a->kind == b->kind && a->ncoef == b->ncoef && same_doubles(a->coef, b->coef, a->ncoef) &&
           a->offset == b->offset && a->amplitude == b->amplitude && a->omega == b->omega &&
           a->phase == b->phase;
}

#define DIFFER(...)                                                                        \
    do {                                                                                   \
        if (difference)                                                                    \
            *difference = g_strdup_printf(__VA_ARGS__);                                    \
        return FALSE;                                                                      \
    } while (0)

gboolean esl_model_equal(const MbsModel *a, const MbsModel *b, char **difference)
{
    if (difference)
        *difference = NULL;
    if (strcmp(a->name, b->name) || !same_doubles(a->gravity, b->gravity, 3))
        DIFFER("name or gravity");
    if (a->nbodies != b->nbodies || a->npoints != b->npoints || a->njoints != b->njoints ||
        a->nforces != b->nforces || a->ninitial != b->ninitial ||
        a->nparameters != b->nparameters || a->ndofs != b->ndofs ||
        a->nbindings != b->nbindings || a->ground != b->ground)
        DIFFER("element counts");
    for (int i = 0; i < a->nbodies; i++) {
        const MbsBody *x = &a->bodies[i], *y = &b->bodies[i];
        if (strcmp(x->name, y->name) || x->is_ground != y->is_ground || x->mass != y->mass ||
            !same_doubles(x->com, y->com, 3) || !same_doubles(x->inertia, y->inertia, 9))
            DIFFER("bodies[%d] '%s'", i, x->name);
    }
    for (int i = 0; i < a->npoints; i++) {
        const MbsPoint *x = &a->points[i], *y = &b->points[i];
        if (strcmp(x->name, y->name) || x->body != y->body || !same_doubles(x->pos, y->pos, 3))
            DIFFER("points[%d] '%s'", i, x->name);
    }
    for (int i = 0; i < a->njoints; i++) {
        const MbsJoint *x = &a->joints[i], *y = &b->joints[i];
        if (strcmp(x->name, y->name) || x->type != y->type || x->body1 != y->body1 ||
            x->body2 != y->body2 || !same_doubles(x->point1, y->point1, 3) ||
            !same_doubles(x->point2, y->point2, 3) || !same_doubles(x->axis1, y->axis1, 3) ||
            !same_doubles(x->axis2, y->axis2, 3) || x->length != y->length ||
            x->driven != y->driven || (x->driven && !same_function(&x->driver, &y->driver)))
            DIFFER("joints[%d] '%s'", i, x->name);
    }
    for (int i = 0; i < a->nforces; i++) {
        const MbsForce *x = &a->forces[i], *y = &b->forces[i];
        if (strcmp(x->name, y->name) || x->type != y->type || x->body1 != y->body1 ||
            x->body2 != y->body2 || x->joint != y->joint ||
            !same_doubles(x->point1, y->point1, 3) || !same_doubles(x->point2, y->point2, 3))
            DIFFER("forces[%d] '%s'", i, x->name);
        const MbsForceClass *c = mbs_force_class(x->type);
        for (const MbsForceField *fd = c ? c->fields : NULL; fd && fd->name; fd++)
            if (!same_doubles(mbs_force_field_values(x, fd), mbs_force_field_values(y, fd),
                              fd->count))
                DIFFER("forces[%d] '%s' %s", i, x->name, fd->name);
    }
    for (int i = 0; i < a->ninitial; i++) {
        const MbsInitialCondition *x = &a->initial[i], *y = &b->initial[i];
        if (x->joint != y->joint || x->coordinate != y->coordinate ||
            x->is_velocity != y->is_velocity || x->value != y->value)
            DIFFER("initial[%d]", i);
    }
    for (int i = 0; i < a->nparameters; i++)
        if (strcmp(a->parameters[i].name, b->parameters[i].name) ||
            a->parameters[i].value != b->parameters[i].value)
            DIFFER("parameters[%d] '%s'", i, a->parameters[i].name);
    for (int i = 0; i < a->ndofs; i++)
        if (memcmp(&a->dofs[i], &b->dofs[i], sizeof a->dofs[i]))
            DIFFER("degrees_of_freedom[%d]", i);
    for (int i = 0; i < a->nbindings; i++) {
        const MbsBinding *x = &a->bindings[i], *y = &b->bindings[i];
        gboolean same = x->target.kind == y->target.kind && x->target.index == y->target.index &&
                        x->target.offset == y->target.offset && x->derivation == y->derivation &&
                        x->ninputs == y->ninputs;
        for (int k = 0; same && k < x->ninputs; k++)
            same = g_strcmp0(x->inputs[k], y->inputs[k]) == 0;
        if (!same)
            DIFFER("bindings[%d]", i);
    }
    if (a->nobjectives != b->nobjectives || a->nobjective_terms != b->nobjective_terms)
        DIFFER("objective counts");
    for (int i = 0; i < a->nobjectives; i++)
        if (strcmp(a->objectives[i].name, b->objectives[i].name) ||
            a->objectives[i].first_term != b->objectives[i].first_term ||
            a->objectives[i].nterms != b->objectives[i].nterms)
            DIFFER("objectives[%d] '%s'", i, a->objectives[i].name);
    for (int i = 0; i < a->nobjective_terms; i++) {
        const MbsObjectiveTerm *x = &a->objective_terms[i], *y = &b->objective_terms[i];
        if (x->quantity != y->quantity || x->point != y->point || x->body != y->body ||
            x->joint != y->joint || x->measure != y->measure || x->component != y->component ||
            x->weight != y->weight || !same_doubles(x->reference, y->reference, 3) ||
            x->final != y->final)
            DIFFER("objective_terms[%d]", i);
    }
    if ((a->topo == NULL) != (b->topo == NULL) ||
        (a->topo && (mbs_model_ncoords(a) != mbs_model_ncoords(b) ||
                     mbs_model_nconstraints(a) != mbs_model_nconstraints(b))))
        DIFFER("coordinates or constraints");
    return TRUE;
}
