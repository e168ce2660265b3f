/* Editing the objectives of a model file; see esl-objective-edit.h. */
#include "esl-objective-edit.h"
#include "eslabon-config.h"

#include <glib/gi18n-lib.h>

#include <json-glib/json-glib.h>
#include <string.h>

#include "esl-edit-json.h"
#include "esl-model-file.h"
#include "mbs_objective.h"
#include "mbs_topology.h"

gboolean esl_objective_joint_offered(const MbsModel *m, int joint)
{
    if (!m || !m->topo || joint < 0 || joint >= m->njoints)
        return FALSE;
    MbsJointType type = m->joints[joint].type;
    return (type == MBS_JOINT_REVOLUTE || type == MBS_JOINT_PRISMATIC) &&
           m->topo->joint_node[joint] >= 0;
}

char *esl_objective_free_name(const MbsModel *m, const char *base)
{
    for (int i = 1;; i++) {
        char *name = g_strdup_printf("%s%d", base, i);
        if (!m || mbs_model_find_objective(m, name) < 0)
            return name;
        g_free(name);
    }
}

/* ---- the file's objectives ------------------------------------------------------------------ */

static const char *string_member(JsonObject *o, const char *key)
{
    JsonNode *n = json_object_get_member(o, key);
    return n && JSON_NODE_HOLDS_VALUE(n) && json_node_get_value_type(n) == G_TYPE_STRING
               ? json_node_get_string(n)
               : NULL;
}

static JsonArray *array_member(JsonObject *o, const char *key, gboolean create)
{
    JsonNode *n = json_object_get_member(o, key);
    if ((!n || !JSON_NODE_HOLDS_ARRAY(n)) && create) {
        json_object_set_array_member(o, key, json_array_new());
        n = json_object_get_member(o, key);
    }
    return n && JSON_NODE_HOLDS_ARRAY(n) ? json_node_get_array(n) : NULL;
}

/* The objective named name, and its index in the array; NULL with error when there is none. */
static JsonObject *find_objective(JsonObject *root, const char *name, guint *index,
                                  GError **error)
{
    JsonArray *a = array_member(root, "objectives", FALSE);
    for (guint i = 0; a && name && i < json_array_get_length(a); i++) {
        JsonNode *e = json_array_get_element(a, i);
        if (JSON_NODE_HOLDS_OBJECT(e) &&
            g_strcmp0(string_member(json_node_get_object(e), "name"), name) == 0) {
            if (index)
                *index = i;
            return json_node_get_object(e);
        }
    }
    g_set_error(error, ESL_MODEL_FILE_ERROR, ESL_MODEL_FILE_ERROR_INVALID,
                _("no objective named '%s'"), name ? name : "");
    return NULL;
}

/* Term `term` of objective o as the model lists them (the integrand's, then the final
 * value's): its list (*final) and place in it; NULL with error when there is none. */
static JsonObject *find_term(JsonObject *o, const char *objective, GVariant *spec, int *final,
                             guint *at, GError **error)
{
    gint32 term = -1;
    g_variant_lookup(spec, "term", "i", &term);
    int i = term;
    for (int f = 0; f < 2 && i >= 0; f++) {
        JsonArray *a = array_member(o, esl_objective_part_name(f), FALSE);
        guint n = a ? json_array_get_length(a) : 0;
        if ((guint)i < n) {
            JsonNode *e = json_array_get_element(a, (guint)i);
            if (!JSON_NODE_HOLDS_OBJECT(e))
                break;
            *final = f;
            *at = (guint)i;
            return json_node_get_object(e);
        }
        i -= (int)n;
    }
    g_set_error(error, ESL_MODEL_FILE_ERROR, ESL_MODEL_FILE_ERROR_INVALID,
                _("objective '%s' has no term %d"), objective, term);
    return NULL;
}

/* The part a term goes to: 0 (integrand), 1 (final), or -1 with error. */
static int spec_part(GVariant *spec, int current, GError **error)
{
    const char *part = esl_spec_string(spec, "part");
    if (!part)
        return current;
    for (int f = 0; f < 2; f++)
        if (g_str_equal(part, esl_objective_part_name(f)))
            return f;
    g_set_error(error, ESL_MODEL_FILE_ERROR, ESL_MODEL_FILE_ERROR_INVALID,
                _("unknown part '%s' of an objective (expected integrand or final)"), part);
    return -1;
}

/* Write the term's keys given in spec into t (see esl-objective-edit.h). */
static gboolean write_term(JsonObject *t, GVariant *spec, GError **error)
{
    const char *quantity = esl_spec_string(spec, "quantity");
    if (quantity && g_strcmp0(string_member(t, "quantity"), quantity) != 0) {
        MbsQuantityKind kind = mbs_quantity_from_name(quantity);
        if (kind != MBS_QUANTITY_COUNT) { /* else the loader names the quantity */
            EslObjectiveTarget target = esl_objective_target(kind);
            if (target != ESL_OBJECTIVE_TARGET_POINT)
                json_object_remove_member(t, "point");
            json_object_remove_member(t, target == ESL_OBJECTIVE_TARGET_JOINT ? "body" : "joint");
        }
        json_object_remove_member(t, "reference");
    }
    static const char *const strings[] = {"quantity", "body", "point", "joint", "measure"};
    for (size_t k = 0; k < G_N_ELEMENTS(strings); k++) {
        const char *value = esl_spec_string(spec, strings[k]);
        if (value)
            json_object_set_string_member(t, strings[k], value);
    }
    g_autoptr(GVariant) weight = g_variant_lookup_value(spec, "weight", NULL);
    double w;
    if (weight && !esl_spec_double(spec, "weight", &w)) {
        g_set_error(error, ESL_MODEL_FILE_ERROR, ESL_MODEL_FILE_ERROR_INVALID,
                    _("the weight of a term must be a finite number"));
        return FALSE;
    }
    if (weight)
        json_object_set_double_member(t, "weight", w);
    g_autoptr(GVariant) reference = g_variant_lookup_value(spec, "reference", G_VARIANT_TYPE("ad"));
    gsize n = 0;
    const double *r = reference ? g_variant_get_fixed_array(reference, &n, sizeof(double)) : NULL;
    if (reference && n == 0) {
        json_object_remove_member(t, "reference");
    } else if (reference) {
        JsonArray *a = json_array_new();
        for (gsize k = 0; k < n; k++)
            json_array_add_double_element(a, r[k]);
        json_object_set_array_member(t, "reference", a); /* the loader checks its length */
    }
    return TRUE;
}

/* A new term from spec, appended to its part of objective o. */
static gboolean add_term_to(JsonObject *o, GVariant *spec, GError **error)
{
    int final = spec_part(spec, 0, error);
    if (final < 0)
        return FALSE;
    if (!esl_spec_string(spec, "quantity")) {
        g_set_error(error, ESL_MODEL_FILE_ERROR, ESL_MODEL_FILE_ERROR_INVALID,
                    _("a term of an objective needs its quantity"));
        return FALSE;
    }
    JsonObject *t = json_object_new();
    if (!write_term(t, spec, error)) {
        json_object_unref(t);
        return FALSE;
    }
    json_array_add_object_element(array_member(o, esl_objective_part_name(final), TRUE), t);
    return TRUE;
}

/* ---- the edits ------------------------------------------------------------------------------- */

static gboolean add_objective(JsonObject *root, GVariant *spec, GError **error)
{
    const char *name = esl_spec_string(spec, "name");
    if (!name) {
        g_set_error(error, ESL_MODEL_FILE_ERROR, ESL_MODEL_FILE_ERROR_INVALID,
                    _("the objective needs a name"));
        return FALSE;
    }
    JsonObject *o = json_object_new();
    json_object_set_string_member(o, "name", name);
    if (!add_term_to(o, spec, error)) {
        json_object_unref(o);
        return FALSE;
    }
    json_array_add_object_element(array_member(root, "objectives", TRUE), o);
    return TRUE; /* the loader refuses a name defined twice */
}

static gboolean remove_objective(JsonObject *root, GVariant *spec, GError **error)
{
    guint index;
    if (!find_objective(root, esl_spec_string(spec, "name"), &index, error))
        return FALSE;
    JsonArray *a = array_member(root, "objectives", FALSE);
    json_array_remove_element(a, index);
    if (json_array_get_length(a) == 0)
        json_object_remove_member(root, "objectives");
    return TRUE;
}

static gboolean rename_objective(JsonObject *root, GVariant *spec, GError **error)
{
    JsonObject *o = find_objective(root, esl_spec_string(spec, "name"), NULL, error);
    const char *name = esl_spec_string(spec, "new-name");
    if (o && !name)
        g_set_error(error, ESL_MODEL_FILE_ERROR, ESL_MODEL_FILE_ERROR_INVALID,
                    _("the objective needs a name"));
    if (!o || !name)
        return FALSE;
    json_object_set_string_member(o, "name", name);
    return TRUE;
}

static gboolean add_term(JsonObject *root, GVariant *spec, GError **error)
{
    JsonObject *o = find_objective(root, esl_spec_string(spec, "objective"), NULL, error);
    return o && add_term_to(o, spec, error);
}

static gboolean remove_term(JsonObject *root, GVariant *spec, GError **error)
{
    const char *name = esl_spec_string(spec, "objective");
    JsonObject *o = find_objective(root, name, NULL, error);
    int final;
    guint at;
    if (!o || !find_term(o, name, spec, &final, &at, error))
        return FALSE;
    const char *part = esl_objective_part_name(final);
    JsonArray *a = array_member(o, part, FALSE);
    json_array_remove_element(a, at);
    if (json_array_get_length(a) == 0)
        json_object_remove_member(o, part);
    return TRUE; /* the loader refuses an objective left without terms */
}

static gboolean set_term(JsonObject *root, GVariant *spec, GError **error)
{
    const char *name = esl_spec_string(spec, "objective");
    JsonObject *o = find_objective(root, name, NULL, error);
    int final, to;
    guint at;
    JsonObject *t = o ? find_term(o, name, spec, &final, &at, error) : NULL;
    if (!t || (to = spec_part(spec, final, error)) < 0 || !write_term(t, spec, error))
        return FALSE;
    if (to != final) {
        const char *part = esl_objective_part_name(final);
        JsonArray *from = array_member(o, part, FALSE);
        json_object_ref(t);
        json_array_remove_element(from, at);
        if (json_array_get_length(from) == 0)
            json_object_remove_member(o, part);
        json_array_add_object_element(array_member(o, esl_objective_part_name(to), TRUE), t);
    }
    return TRUE;
}

char *esl_objective_edit(const char *json, const char *origin, const char *kind, GVariant *spec,
                         MbsModel **model, GError **error)
{
    static const EslEditKind edits[] = {
        {"add", add_objective},   {"remove", remove_objective},       {"rename", rename_objective},
        {"add-term", add_term},   {"remove-term", remove_term},       {"set-term", set_term},
    };
    if (model)
        *model = NULL;
    char *edited = esl_edit_json(json, edits, G_N_ELEMENTS(edits), kind, spec, error);
    if (!edited)
        return NULL;
    MbsModel *loaded = esl_model_load_string(edited, origin, NULL, 0, error);
    if (!loaded) {
        g_free(edited);
        return NULL;
    }
    if (model)
        *model = loaded;
    else
        mbs_model_free(loaded);
    return edited;
}
