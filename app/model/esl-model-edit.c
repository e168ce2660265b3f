/* Editing the numbers of a model file; see esl-model-edit.h. */
#include "esl-model-edit.h"
#include "eslabon-config.h"

#include <glib/gi18n-lib.h>

#include <json-glib/json-glib.h>
#include <stdlib.h>
#include <string.h>

#include "esl-model-file.h"
#include "esl-settings-json.h"
#include "mbs_force.h"

void esl_model_field_free(EslModelField *field)
{
    if (!field)
        return;
    g_free(field->path);
    g_free(field->key);
    g_free(field->sub);
    g_free(field->expression);
    g_free(field);
}

void esl_model_edit_free(EslModelEdit *edit)
{
    if (!edit)
        return;
    g_free(edit->json);
    mbs_model_free(edit->model);
    g_free(edit->poses);
    g_free(edit->violations);
    g_free(edit);
}

/* ---- reading the file ---------------------------------------------------------------------- */

static JsonObject *array_object(JsonObject *o, const char *member, int index)
{
    JsonNode *n = o ? json_object_get_member(o, member) : NULL;
    if (!n || !JSON_NODE_HOLDS_ARRAY(n) || index < 0 ||
        (guint)index >= json_array_get_length(json_node_get_array(n)))
        return NULL;
    JsonNode *e = json_array_get_element(json_node_get_array(n), (guint)index);
    return JSON_NODE_HOLDS_OBJECT(e) ? json_node_get_object(e) : NULL;
}

static JsonObject *object_member(JsonObject *o, const char *member)
{
    JsonNode *n = o ? json_object_get_member(o, member) : NULL;
    return n && JSON_NODE_HOLDS_OBJECT(n) ? json_node_get_object(n) : NULL;
}

/* The expression text of a node (NULL when it is a plain number or absent). */
static char *expression_of(JsonNode *n)
{
    if (n && JSON_NODE_HOLDS_VALUE(n) && json_node_get_value_type(n) == G_TYPE_STRING)
        return g_strdup(json_node_get_string(n));
    return NULL;
}

static JsonNode *element_of(JsonNode *array, int component)
{
    if (!array || !JSON_NODE_HOLDS_ARRAY(array) ||
        (guint)component >= json_array_get_length(json_node_get_array(array)))
        return NULL;
    return json_array_get_element(json_node_get_array(array), (guint)component);
}

/* The entry of "initial" for coordinate c of the joint named name, or NULL. */
static JsonObject *initial_entry(JsonObject *root, const char *joint, int c)
{
    JsonNode *n = json_object_get_member(root, "initial");
    if (!n || !JSON_NODE_HOLDS_ARRAY(n))
        return NULL;
    JsonArray *a = json_node_get_array(n);
    for (guint i = 0; i < json_array_get_length(a); i++) {
        JsonNode *e = json_array_get_element(a, i);
        if (!JSON_NODE_HOLDS_OBJECT(e))
            continue;
        JsonObject *o = json_node_get_object(e);
        if (g_strcmp0(json_object_get_string_member_with_default(o, "joint", ""), joint) == 0 &&
            json_object_get_double_member_with_default(o, "coordinate", 0) == c)
            return o;
    }
    return NULL;
}

static void add_field(GPtrArray *fields, char *path, const char *key, const char *sub,
                      int component, int coordinate, double value, JsonNode *node)
{
    EslModelField *f = g_new0(EslModelField, 1);
    f->path = path;
    f->key = g_strdup(key);
    f->sub = g_strdup(sub);
    f->component = component;
    f->coordinate = coordinate;
    f->value = value;
    f->expression = expression_of(node);
    g_ptr_array_add(fields, f);
}

static void body_fields(GPtrArray *fields, const MbsModel *m, JsonObject *o, int b)
{
    if (m->bodies[b].is_ground)
        return;
    add_field(fields, g_strdup_printf("bodies/%d/mass", b), "mass", NULL, -1, -1,
              m->bodies[b].mass, o ? json_object_get_member(o, "mass") : NULL);
    JsonObject *points = object_member(o, "points");
    for (int i = 0; i < m->npoints; i++) {
        const MbsPoint *p = &m->points[i];
        if (p->body != b)
            continue;
        JsonNode *array = points ? json_object_get_member(points, p->name) : NULL;
        for (int k = 0; k < 3; k++)
            add_field(fields, g_strdup_printf("bodies/%d/points/%s/%d", b, p->name, k), "points",
                      p->name, k, -1, p->pos[k], element_of(array, k));
    }
}

static void joint_fields(GPtrArray *fields, const MbsModel *m, JsonObject *root, int j)
{
    const MbsJoint *joint = &m->joints[j];
    if (joint->type == MBS_JOINT_ROD) {
        JsonObject *o = array_object(root, "joints", j);
        add_field(fields, g_strdup_printf("joints/%d/length", j), "length", NULL, -1, -1,
                  joint->length, o ? json_object_get_member(o, "length") : NULL);
    }
    static const char *const keys[2] = {"position", "velocity"};
    for (int c = 0; c < mbs_joint_type_dofs(joint->type); c++) {
        if (c == 0 && joint->driven)
            continue;
        JsonObject *entry = initial_entry(root, joint->name, c);
        for (int v = 0; v < 2; v++) {
            double value = 0;
            for (int i = 0; i < m->ninitial; i++)
                if (m->initial[i].joint == j && m->initial[i].coordinate == c &&
                    m->initial[i].is_velocity == v)
                    value = m->initial[i].value;
            add_field(fields, g_strdup_printf("initial/%d/%d/%s", j, c, keys[v]), keys[v], NULL,
                      -1, c, value, entry ? json_object_get_member(entry, keys[v]) : NULL);
        }
    }
}

/* The numbers of a force element are the fields of its class (mbs_force.h). */
static void force_fields(GPtrArray *fields, const MbsModel *m, JsonObject *o, int f)
{
    const MbsForce *force = &m->forces[f];
    const MbsForceClass *c = mbs_force_class(force->type);
    for (const MbsForceField *fd = c ? c->fields : NULL; fd && fd->name; ++fd) {
        const double *x = mbs_force_field_values(force, fd);
        JsonNode *node = o ? json_object_get_member(o, fd->name) : NULL;
        if (fd->flags & MBS_FIELD_TABLE)
            continue; /* a table is edited in the model file, not number by number */
        if (fd->count == 1) {
            add_field(fields, g_strdup_printf("forces/%d/%s", f, fd->name), fd->name, NULL, -1, -1,
                      x[0], node);
            continue;
        }
        for (int k = 0; k < fd->count; k++)
            add_field(fields, g_strdup_printf("forces/%d/%s/%d", f, fd->name, k), fd->name, NULL,
                      k, -1, x[k], element_of(node, k));
    }
}

GPtrArray *esl_model_edit_fields(const MbsModel *m, const char *json, EslElementKind kind,
                                 int index)
{
    GPtrArray *fields = g_ptr_array_new_with_free_func((GDestroyNotify)esl_model_field_free);
    g_autoptr(JsonParser) parser = json_parser_new();
    JsonObject *root = NULL;
    if (json && json_parser_load_from_data(parser, json, -1, NULL) &&
        JSON_NODE_HOLDS_OBJECT(json_parser_get_root(parser)))
        root = json_node_get_object(json_parser_get_root(parser));
    if (!m || !root || index < 0)
        return fields;
    switch (kind) {
    case ESL_ELEMENT_BODY:
        if (index < m->nbodies)
            body_fields(fields, m, array_object(root, "bodies", index), index);
        break;
    case ESL_ELEMENT_JOINT:
        if (index < m->njoints)
            joint_fields(fields, m, root, index);
        break;
    case ESL_ELEMENT_FORCE:
        if (index < m->nforces)
            force_fields(fields, m, array_object(root, "forces", index), index);
        break;
    case ESL_ELEMENT_PARAMETER:
        if (index < m->nparameters) {
            const char *name = m->parameters[index].name;
            JsonObject *params = object_member(root, "parameters");
            add_field(fields, g_strdup_printf("parameters/%s", name), "value", NULL, -1, -1,
                      m->parameters[index].value,
                      params ? json_object_get_member(params, name) : NULL);
        }
        break;
    }
    return fields;
}

/* ---- writing a number ---------------------------------------------------------------------- */

static gboolean bad_path(const char *path, const char *why, GError **error)
{
    g_set_error(error, ESL_MODEL_FILE_ERROR, ESL_MODEL_FILE_ERROR_INVALID,
                _("cannot edit '%s': %s"), path, why);
    return FALSE;
}

/* Replace element k of the array member key of o by value. */
static gboolean set_component(JsonObject *o, const char *key, int k, double value)
{
    JsonNode *n = json_object_get_member(o, key);
    if (!n || !JSON_NODE_HOLDS_ARRAY(n) || k < 0 ||
        (guint)k >= json_array_get_length(json_node_get_array(n)))
        return FALSE;
    JsonArray *old = json_node_get_array(n);
    JsonArray *copy = json_array_new();
    for (guint i = 0; i < json_array_get_length(old); i++) {
        if ((int)i == k)
            json_array_add_double_element(copy, value);
        else
            json_array_add_element(copy, json_node_copy(json_array_get_element(old, i)));
    }
    json_object_set_array_member(o, key, copy);
    return TRUE;
}

static gboolean parse_index(const char *text, int *out)
{
    char *end = NULL;
    long v = text ? strtol(text, &end, 10) : -1;
    if (!text || !*text || *end || v < 0 || v > G_MAXINT)
        return FALSE;
    *out = (int)v;
    return TRUE;
}

static gboolean is_scalar_key(const char *key)
{
    static const char *const keys[] = {"mass",    "stiffness",  "damping", "natural_length",
                                       "preload", "rest_angle", "length",  NULL};
    return g_strv_contains(keys, key);
}

/* ---- shared points ------------------------------------------------------------------------- */

/* The body object named name, or NULL. */
static JsonObject *body_named(JsonObject *root, const char *name)
{
    JsonNode *n = json_object_get_member(root, "bodies");
    guint count = n && JSON_NODE_HOLDS_ARRAY(n) ? json_array_get_length(json_node_get_array(n)) : 0;
    for (guint i = 0; i < count; i++) {
        JsonObject *b = array_object(root, "bodies", (int)i);
        if (b && g_strcmp0(json_object_get_string_member_with_default(b, "name", ""), name) == 0)
            return b;
    }
    return NULL;
}

/* Where a joint is: its "point" as written (coordinates), or the point it names (of body1, then
 * body2); NULL for a rod. */
static JsonNode *joint_location(JsonObject *joint, JsonObject *b1, JsonObject *b2)
{
    JsonNode *n = json_object_get_member(joint, "point");
    if (!n || JSON_NODE_HOLDS_ARRAY(n) || !JSON_NODE_HOLDS_VALUE(n) ||
        json_node_get_value_type(n) != G_TYPE_STRING)
        return n;
    const char *name = json_node_get_string(n);
    JsonObject *p1 = object_member(b1, "points"), *p2 = object_member(b2, "points");
    JsonNode *at = p1 ? json_object_get_member(p1, name) : NULL;
    return at ? at : p2 ? json_object_get_member(p2, name) : NULL;
}

static const char *string_at(JsonArray *a, guint i)
{
    JsonNode *n = json_array_get_element(a, i);
    return JSON_NODE_HOLDS_VALUE(n) && json_node_get_value_type(n) == G_TYPE_STRING
               ? json_node_get_string(n)
               : NULL;
}

static gboolean listed(GPtrArray *pairs, gpointer owner, const char *key)
{
    for (guint i = 0; i < pairs->len; i += 2)
        if (pairs->pdata[i] == owner && g_str_equal(pairs->pdata[i + 1], key))
            return TRUE;
    return FALSE;
}

/* A point shared by the bodies of a joint is one point to the user: the point `name` of body
 * (written as `was`) and, transitively, every point written alike of a body joined to it by a
 * joint located there, and such joints' own coordinates. Returned as pairs (JsonObject owning
 * the array, member name), found before anything is changed. */
static GPtrArray *shared_points(JsonObject *root, JsonObject *body, const char *name,
                                JsonNode *was)
{
    GPtrArray *pairs = g_ptr_array_new();
    g_ptr_array_add(pairs, object_member(body, "points"));
    g_ptr_array_add(pairs, (gpointer)name);
    JsonNode *jn = json_object_get_member(root, "joints");
    guint njoints =
        jn && JSON_NODE_HOLDS_ARRAY(jn) ? json_array_get_length(json_node_get_array(jn)) : 0;
    g_autoptr(GPtrArray) bodies = g_ptr_array_new(); /* bodies reached, to visit */
    g_ptr_array_add(bodies, body);
    for (guint visit = 0; visit < bodies->len; visit++) {
        JsonObject *here = bodies->pdata[visit];
        const char *here_name = json_object_get_string_member_with_default(here, "name", "");
        for (guint j = 0; j < njoints; j++) {
            JsonObject *joint = array_object(root, "joints", (int)j);
            JsonNode *pair = joint ? json_object_get_member(joint, "bodies") : NULL;
            if (!pair || !JSON_NODE_HOLDS_ARRAY(pair) ||
                json_array_get_length(json_node_get_array(pair)) != 2)
                continue;
            JsonArray *a = json_node_get_array(pair);
            const char *n1 = string_at(a, 0), *n2 = string_at(a, 1);
            if (g_strcmp0(n1, here_name) != 0 && g_strcmp0(n2, here_name) != 0)
                continue;
            JsonObject *b1 = body_named(root, n1), *b2 = body_named(root, n2);
            JsonNode *at = b1 && b2 ? joint_location(joint, b1, b2) : NULL;
            if (!at || !json_node_equal(at, was))
                continue;
            JsonNode *own = json_object_get_member(joint, "point");
            if (JSON_NODE_HOLDS_ARRAY(own) && !listed(pairs, joint, "point")) {
                g_ptr_array_add(pairs, joint);
                g_ptr_array_add(pairs, (gpointer)"point");
            }
            JsonObject *other = g_strcmp0(n1, here_name) == 0 ? b2 : b1;
            JsonObject *points = object_member(other, "points");
            g_autoptr(GList) names = points ? json_object_get_members(points) : NULL;
            for (GList *l = names; l; l = l->next) {
                if (!json_node_equal(json_object_get_member(points, l->data), was) ||
                    listed(pairs, points, l->data))
                    continue;
                g_ptr_array_add(pairs, points);
                g_ptr_array_add(pairs, l->data);
                if (!g_ptr_array_find(bodies, other, NULL))
                    g_ptr_array_add(bodies, other);
            }
        }
    }
    return pairs;
}

/* bodies/B/..., forces/F/... or joints/J/length */
static gboolean set_in_element(JsonObject *root, const char *path, char **parts, double value,
                               GError **error)
{
    int index;
    if (!parts[1] || !parse_index(parts[1], &index) || !parts[2])
        return bad_path(path, "expected SECTION/INDEX/FIELD", error);
    JsonObject *o = array_object(root, parts[0], index);
    if (!o)
        return bad_path(path, "no such element in the file", error);
    const char *key = parts[2];
    const char *rest = parts[3];
    if (is_scalar_key(key) && !rest) {
        json_object_set_double_member(o, key, value);
        return TRUE;
    }
    int k;
    if (g_str_equal(key, "vector") && rest && parse_index(rest, &k) && k < 3) {
        if (!set_component(o, "vector", k, value))
            return bad_path(path, "the element has no vector", error);
        return TRUE;
    }
    if (g_str_equal(key, "points") && rest) {
        const char *slash = strrchr(rest, '/');
        g_autofree char *name = slash ? g_strndup(rest, (gsize)(slash - rest)) : NULL;
        JsonObject *points = object_member(o, "points");
        JsonNode *old = points && name ? json_object_get_member(points, name) : NULL;
        if (!slash || !parse_index(slash + 1, &k) || k > 2 || !old ||
            !JSON_NODE_HOLDS_ARRAY(old))
            return bad_path(path, "no such point coordinate in the file", error);
        g_autoptr(JsonNode) before = json_node_copy(old);
        g_autoptr(GPtrArray) shared = shared_points(root, o, name, before);
        for (guint i = 0; i < shared->len; i += 2)
            set_component(shared->pdata[i], shared->pdata[i + 1], k, value);
        return TRUE;
    }
    return bad_path(path, "not an editable number", error);
}

/* initial/J/C/position|velocity */
static gboolean set_initial(JsonObject *root, const char *path, char **parts, double value,
                            GError **error)
{
    int j, c;
    if (!parts[1] || !parse_index(parts[1], &j) || !parts[2] || !parse_index(parts[2], &c) ||
        !parts[3] || (!g_str_equal(parts[3], "position") && !g_str_equal(parts[3], "velocity")))
        return bad_path(path, "expected initial/JOINT/COORDINATE/position|velocity", error);
    JsonObject *joint = array_object(root, "joints", j);
    const char *name = joint ? json_object_get_string_member_with_default(joint, "name", NULL)
                             : NULL;
    if (!name)
        return bad_path(path, "no such joint in the file", error);
    JsonObject *entry = initial_entry(root, name, c);
    if (!entry) {
        JsonNode *n = json_object_get_member(root, "initial");
        if (!n) {
            json_object_set_array_member(root, "initial", json_array_new());
            n = json_object_get_member(root, "initial");
        }
        if (!JSON_NODE_HOLDS_ARRAY(n))
            return bad_path(path, "'initial' is not an array", error);
        entry = json_object_new();
        json_object_set_string_member(entry, "joint", name);
        json_object_set_int_member(entry, "coordinate", c);
        json_array_add_object_element(json_node_get_array(n), entry);
    }
    json_object_set_double_member(entry, parts[3], value);
    return TRUE;
}

char *esl_model_edit_set_number(const char *json, const char *path, double value,
                                GError **error)
{
    g_return_val_if_fail(json && path, NULL);
    g_autoptr(JsonParser) parser = json_parser_new();
    if (!json_parser_load_from_data(parser, json, -1, error))
        return NULL;
    JsonNode *root_node = json_parser_get_root(parser);
    if (!JSON_NODE_HOLDS_OBJECT(root_node)) {
        bad_path(path, "the model file is not a JSON object", error);
        return NULL;
    }
    JsonObject *root = json_node_get_object(root_node);
    gboolean ok;
    if (g_str_has_prefix(path, "parameters/")) {
        const char *name = path + strlen("parameters/");
        JsonObject *params = object_member(root, "parameters");
        ok = params && json_object_has_member(params, name);
        if (ok)
            json_object_set_double_member(params, name, value);
        else
            bad_path(path, "the file has no such parameter", error);
    } else {
        g_auto(GStrv) parts = g_strsplit(path, "/", 4);
        if (g_str_equal(parts[0], "bodies") || g_str_equal(parts[0], "forces") ||
            g_str_equal(parts[0], "joints"))
            ok = set_in_element(root, path, parts, value, error);
        else if (g_str_equal(parts[0], "initial"))
            ok = set_initial(root, path, parts, value, error);
        else
            ok = bad_path(path, "unknown section", error);
    }
    if (!ok)
        return NULL;
    char *text = esl_json_generate(root_node, TRUE);
    char *with_newline = g_strconcat(text, "\n", NULL);
    g_free(text);
    return with_newline;
}

char *esl_model_edit_set_parameters(const char *json, const char *origin,
                                    const char *const *names, const double *values, int n,
                                    GError **error)
{
    g_return_val_if_fail(json && (n == 0 || (names && values)), NULL);
    char *text = g_strdup(json);
    for (int k = 0; k < n && text; k++) {
        g_autofree char *path = g_strconcat("parameters/", names[k], NULL);
        char *next = esl_model_edit_set_number(text, path, values[k], error);
        g_free(text);
        text = next;
    }
    MbsModel *model = text ? esl_model_load_string(text, origin, NULL, 0, error) : NULL;
    if (!model)
        g_clear_pointer(&text, g_free);
    mbs_model_free(model);
    return text;
}

/* ---- rebuilding and assembling --------------------------------------------------------------- */

gboolean esl_model_assemble(const MbsModel *model, const char *origin, const char *formulation,
                            const MbsSettings *settings, double **poses, double **violations,
                            GError **error)
{
    MbsError err = {0};
    MbsFormulation *f = mbs_formulation_new(formulation, model, settings, &err);
    if (!f) {
        g_set_error(error, ESL_MODEL_FILE_ERROR, ESL_MODEL_FILE_ERROR_INVALID,
                    _("%s: cannot assemble with %s: %s"), origin ? origin : _("model"), formulation,
                    err.message[0] ? err.message : _("unknown error"));
        return FALSE;
    }
    *poses = g_new(double, (gsize)model->nbodies * 12);
    *violations = g_new0(double, (gsize)MAX(model->njoints, 1));
    for (int b = 0; b < model->nbodies; b++)
        mbs_formulation_body_pose(f, b, *poses + 12 * b, *poses + 12 * b + 9);
    for (int j = 0; j < model->njoints; j++)
        (*violations)[j] = f->klass->joint_violation(f, j);
    mbs_formulation_free(f);
    return TRUE;
}

EslModelEdit *esl_model_edit_apply(const char *json, const char *origin, const char *path,
                                   double value, const char *formulation,
                                   const MbsSettings *settings, GError **error)
{
    g_autofree char *text = esl_model_edit_set_number(json, path, value, error);
    if (!text)
        return NULL;
    MbsModel *model = esl_model_load_string(text, origin, NULL, 0, error);
    if (!model)
        return NULL;
    EslModelEdit *edit = g_new0(EslModelEdit, 1);
    if (!esl_model_assemble(model, origin, formulation, settings, &edit->poses,
                            &edit->violations, error)) {
        mbs_model_free(model);
        g_free(edit);
        return NULL;
    }
    edit->json = g_steal_pointer(&text);
    edit->model = model;
    return edit;
}
