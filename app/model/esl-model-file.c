/* Model file loader: JSON (json-glib) -> MbsModel builders -> mbs_model_compile.
 *
 * Every value is type-checked before it is read, so no input can crash the loader; the first
 * problem found is reported as "<file>: <element>: <problem>". */
#include "esl-model-file.h"
#include "eslabon-config.h"

#include <glib/gi18n-lib.h>

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "esl-objective-format.h"
#include "esl-settings-json.h"
#include "mbs_expr.h"
#include "mbs_force.h"
#include "mbs_objective.h"
#include "mbs_path.h"
#include "mbs_road.h"
#include "mbs_tyre_model.h"

#define MAX_NESTING 200

G_DEFINE_QUARK(esl-model-file-error-quark, esl_model_file_error)

typedef struct {
    int body;
    char name[MBS_NAME_MAX];
    double v[3];
    char *text[3]; /* the expressions of v */
} NamedVector;

/* How a number the loader holds was obtained from the file: the expression texts it is derived
 * from. Numbers are keyed by their address while one element is read; when the element is
 * added to the model they become the model's bindings (mbs_model_bind), so the engine knows
 * which fields depend on which parameter. */
typedef struct {
    MbsDerivation how;
    int n;
    char *inputs[MBS_BINDING_INPUTS_MAX];
} Source;

typedef struct {
    const char *origin;      /* file name shown in messages */
    MbsModel *m;
    GArray *vars;            /* MbsExprVariable: the parameters, in file order */
    GArray *vectors;         /* NamedVector */
    GHashTable *sources;     /* double * -> Source *, for the element being read */
    char *where;             /* element being read, e.g. "bodies[1] 'crank'" */
    GError **error;
    gboolean failed;
    const char *dir;         /* the model file's folder (tyre files are relative to it) */
} Loader;

/* ---- messages -------------------------------------------------------------------------- */

static gboolean fail_code(Loader *L, int code, const char *fmt, ...) G_GNUC_PRINTF(3, 4);
static gboolean fail(Loader *L, const char *fmt, ...) G_GNUC_PRINTF(2, 3);

static gboolean fail_va(Loader *L, int code, const char *fmt, va_list ap)
{
    if (L->failed)
        return FALSE;
    L->failed = TRUE;
    char *what = g_strdup_vprintf(fmt, ap);
    g_set_error(L->error, ESL_MODEL_FILE_ERROR, code, "%s: %s%s%s", L->origin,
                L->where ? L->where : "", L->where ? ": " : "", what);
    g_free(what);
    return FALSE;
}

static gboolean fail_code(Loader *L, int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fail_va(L, code, fmt, ap);
    va_end(ap);
    return FALSE;
}

static gboolean fail(Loader *L, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fail_va(L, ESL_MODEL_FILE_ERROR_INVALID, fmt, ap);
    va_end(ap);
    return FALSE;
}

static void set_where(Loader *L, const char *fmt, ...) G_GNUC_PRINTF(2, 3);
static void set_where(Loader *L, const char *fmt, ...)
{
    g_free(L->where);
    L->where = NULL;
    if (!fmt)
        return;
    va_list ap;
    va_start(ap, fmt);
    L->where = g_strdup_vprintf(fmt, ap);
    va_end(ap);
}

static const char *kind_of(JsonNode *n)
{
    switch (json_node_get_node_type(n)) {
    case JSON_NODE_OBJECT: return _("an object");
    case JSON_NODE_ARRAY: return _("an array");
    case JSON_NODE_NULL: return "null";
    case JSON_NODE_VALUE: break;
    }
    GType t = json_node_get_value_type(n);
    if (t == G_TYPE_STRING)
        return _("a string");
    if (t == G_TYPE_BOOLEAN)
        return _("a boolean");
    return _("a number");
}

static gboolean is_type(JsonNode *n, GType t)
{
    return JSON_NODE_HOLDS_VALUE(n) && json_node_get_value_type(n) == t;
}

/* ---- where numbers come from -------------------------------------------------------------- */

static void source_free(gpointer data)
{
    Source *src = data;
    for (int i = 0; i < src->n; ++i)
        g_free(src->inputs[i]);
    g_free(src);
}

/* The expression x was read from, or NULL if the loader did not read it from the file. */
static const char *text_of(Loader *L, const double *x)
{
    const Source *src = g_hash_table_lookup(L->sources, x);
    return src && src->how == MBS_DERIVE_VALUE ? src->inputs[0] : NULL;
}

static char *text_or_number(Loader *L, const double *x)
{
    const char *text = text_of(L, x);
    if (text)
        return g_strdup(text);
    char number[MBS_EXPR_NUMBER_MAX];
    mbs_expr_format_number(*x, number);
    return g_strdup(number);
}

/* x was read from text (NULL: x is a constant of the loader). */
static void note_value(Loader *L, double *x, const char *text)
{
    Source *src = g_new0(Source, 1);
    src->how = MBS_DERIVE_VALUE;
    src->n = 1;
    src->inputs[0] = text ? g_strdup(text) : text_or_number(L, x);
    g_hash_table_insert(L->sources, x, src);
}

/* out was computed from inputs (numbers the loader holds) as derivation how does. */
static void note_derived(Loader *L, double *out, MbsDerivation how, const double *const *inputs,
                         int n)
{
    Source *src = g_new0(Source, 1);
    src->how = how;
    src->n = n;
    for (int i = 0; i < n; ++i)
        src->inputs[i] = text_or_number(L, inputs[i]);
    g_hash_table_insert(L->sources, out, src);
}

/* The expression a point of the model was given by (NULL: a constant). */
static const char *point_text(Loader *L, int point, int k)
{
    size_t offset = offsetof(MbsPoint, pos) + (size_t)k * sizeof(double);
    for (int i = 0; i < L->m->nbindings; ++i) {
        const MbsBinding *b = &L->m->bindings[i];
        if (b->target.kind == MBS_ELEMENT_POINT && b->target.index == point &&
            b->target.offset == offset && b->derivation == MBS_DERIVE_VALUE)
            return b->inputs[0];
    }
    return NULL;
}

/* The numbers local[0..n) now live in the model at (kind, index, offset): record how each was
 * obtained. */
static gboolean bind(Loader *L, MbsElementKind kind, int index, size_t offset, double *local, int n)
{
    for (int k = 0; k < n; ++k) {
        const Source *src = g_hash_table_lookup(L->sources, &local[k]);
        if (!src)
            continue;
        MbsError err = {0};
        MbsFieldRef target = {kind, index, offset + (size_t)k * sizeof(double)};
        if (mbs_model_bind(L->m, target, src->how, (const char *const *)src->inputs, src->n, &err))
            return fail(L, "%s", err.message);
        k += mbs_derivation_outputs(src->how) - 1;
    }
    return TRUE;
}

/* Every number of a struct the loader filled and copied into the model. */
static gboolean bind_struct(Loader *L, MbsElementKind kind, int index, size_t offset,
                            void *local, size_t size)
{
    return bind(L, kind, index, offset, local, (int)(size / sizeof(double)));
}

/* ---- typed access ---------------------------------------------------------------------- */

/* Only the listed members (plus "comment") may appear in o. */
static gboolean check_members(Loader *L, JsonObject *o, const char *const *allowed)
{
    GList *members = json_object_get_members(o);
    for (GList *l = members; l; l = l->next) {
        const char *key = l->data;
        gboolean ok = !strcmp(key, "comment");
        for (int i = 0; !ok && allowed[i]; ++i)
            ok = !strcmp(key, allowed[i]);
        if (!ok) {
            char *list = g_strjoinv(", ", (char **)allowed);
            fail(L, _("unknown field '%s' (expected %s or comment)"), key, list);
            g_free(list);
            break;
        }
    }
    g_list_free(members);
    return !L->failed;
}

/* The member key of o, or NULL if it is absent (an error if required). */
static JsonNode *member(Loader *L, JsonObject *o, const char *key, gboolean required)
{
    JsonNode *n = json_object_get_member(o, key);
    if (!n && required)
        fail(L, _("missing required field '%s'"), key);
    return n;
}

/* A number: a JSON number or a string holding an expression of the parameters. */
static gboolean node_number(Loader *L, JsonNode *n, const char *what, double *out)
{
    if (is_type(n, G_TYPE_INT64) || is_type(n, G_TYPE_DOUBLE)) {
        *out = json_node_get_double(n);
        if (!isfinite(*out))
            return fail(L, _("%s is not a finite number"), what);
        /* a variable read twice (an initial condition's position, then its velocity) must not
         * keep the first read's text for the second number */
        g_hash_table_remove(L->sources, out);
        note_value(L, out, NULL);
        return TRUE;
    }
    if (is_type(n, G_TYPE_STRING)) {
        char msg[MBS_EXPR_MESSAGE_MAX];
        const char *text = json_node_get_string(n);
        if (mbs_expr_eval(text, (const MbsExprVariable *)(void *)L->vars->data,
                          (int)L->vars->len, out, NULL, msg)) {
            note_value(L, out, text);
            return TRUE;
        }
        return fail(L, _("%s: in expression \"%s\": %s"), what, text, msg);
    }
    return fail(L, _("%s must be a number or an expression string, not %s"), what, kind_of(n));
}

/* 1: read, 0: absent (optional), -1: error. */
static int get_number(Loader *L, JsonObject *o, const char *key, gboolean required, double *out)
{
    JsonNode *n = member(L, o, key, required);
    if (!n)
        return L->failed ? -1 : 0;
    char *what = g_strdup_printf("'%s'", key);
    gboolean ok = node_number(L, n, what, out);
    g_free(what);
    return ok ? 1 : -1;
}

static gboolean node_vec(Loader *L, JsonNode *n, const char *what, int len, double *out)
{
    if (!JSON_NODE_HOLDS_ARRAY(n) || (int)json_array_get_length(json_node_get_array(n)) != len)
        return fail(L, _("%s must be an array of %d numbers"), what, len);
    JsonArray *a = json_node_get_array(n);
    for (int i = 0; i < len; ++i) {
        char *w = g_strdup_printf("%s[%d]", what, i);
        gboolean ok = node_number(L, json_array_get_element(a, (guint)i), w, &out[i]);
        g_free(w);
        if (!ok)
            return FALSE;
    }
    return TRUE;
}

static int get_vec3(Loader *L, JsonObject *o, const char *key, gboolean required, double out[3])
{
    JsonNode *n = member(L, o, key, required);
    if (!n)
        return L->failed ? -1 : 0;
    char *what = g_strdup_printf("'%s'", key);
    gboolean ok = node_vec(L, n, what, 3, out);
    g_free(what);
    return ok ? 1 : -1;
}

/* 1: read (*out valid while the document lives), 0: absent, -1: error. */
static int get_string(Loader *L, JsonObject *o, const char *key, gboolean required,
                      const char **out)
{
    JsonNode *n = member(L, o, key, required);
    *out = NULL;
    if (!n)
        return L->failed ? -1 : 0;
    if (!is_type(n, G_TYPE_STRING))
        return fail(L, _("'%s' must be a string, not %s"), key, kind_of(n)), -1;
    *out = json_node_get_string(n);
    return 1;
}

static int get_array(Loader *L, JsonObject *o, const char *key, gboolean required,
                     JsonArray **out)
{
    JsonNode *n = member(L, o, key, required);
    *out = NULL;
    if (!n)
        return L->failed ? -1 : 0;
    if (!JSON_NODE_HOLDS_ARRAY(n))
        return fail(L, _("'%s' must be an array, not %s"), key, kind_of(n)), -1;
    *out = json_node_get_array(n);
    return 1;
}

static int get_object(Loader *L, JsonObject *o, const char *key, gboolean required,
                      JsonObject **out)
{
    JsonNode *n = member(L, o, key, required);
    *out = NULL;
    if (!n)
        return L->failed ? -1 : 0;
    if (!JSON_NODE_HOLDS_OBJECT(n))
        return fail(L, _("'%s' must be an object, not %s"), key, kind_of(n)), -1;
    *out = json_node_get_object(n);
    return 1;
}

/* A name of a body, joint, point, vector or force. */
static gboolean check_name(Loader *L, const char *kind, const char *name)
{
    if (!*name)
        return fail(L, _("%s name is empty"), kind);
    if (strlen(name) >= MBS_NAME_MAX)
        return fail(L, _("%s name '%.20s...' is longer than %d characters"), kind, name,
                    MBS_NAME_MAX - 1);
    return TRUE;
}

/* Array key of two strings, each a body name: body indices in b[2]. */
static gboolean get_two_bodies(Loader *L, JsonObject *o, const char *key, int b[2])
{
    JsonArray *a;
    if (get_array(L, o, key, TRUE, &a) < 0)
        return FALSE;
    if (json_array_get_length(a) != 2)
        return fail(L, _("'%s' must name exactly two bodies"), key);
    for (guint i = 0; i < 2; ++i) {
        JsonNode *n = json_array_get_element(a, i);
        if (!is_type(n, G_TYPE_STRING))
            return fail(L, _("'%s'[%u] must be a body name, not %s"), key, i, kind_of(n));
        const char *name = json_node_get_string(n);
        if ((b[i] = mbs_model_find_body(L->m, name)) < 0)
            return fail(L, _("unknown body '%s'"), name);
    }
    return TRUE;
}

static gboolean get_body(Loader *L, JsonObject *o, const char *key, int *body)
{
    const char *name;
    if (get_string(L, o, key, TRUE, &name) < 0)
        return FALSE;
    if ((*body = mbs_model_find_body(L->m, name)) < 0)
        return fail(L, _("unknown body '%s'"), name);
    return TRUE;
}

/* A point given by name (looked up on body1, then on body2 if >= 0) or as coordinates. */
static gboolean node_point(Loader *L, JsonNode *n, const char *what, int body1, int body2,
                           double out[3])
{
    if (!is_type(n, G_TYPE_STRING))
        return JSON_NODE_HOLDS_ARRAY(n)
                   ? node_vec(L, n, what, 3, out)
                   : fail(L, _("%s must be a point name or an array of 3 numbers, not %s"), what,
                          kind_of(n));
    const char *name = json_node_get_string(n);
    int p = mbs_model_find_point(L->m, body1, name);
    if (p < 0 && body2 >= 0)
        p = mbs_model_find_point(L->m, body2, name);
    if (p >= 0) {
        memcpy(out, L->m->points[p].pos, 3 * sizeof *out);
        for (int k = 0; k < 3; ++k)
            note_value(L, &out[k], point_text(L, p, k));
        return TRUE;
    }
    if (body2 >= 0)
        return fail(L, _("point '%s' is not a point of '%s' or '%s'"), name,
                    L->m->bodies[body1].name, L->m->bodies[body2].name);
    return fail(L, _("point '%s' is not a point of '%s'"), name, L->m->bodies[body1].name);
}

static gboolean find_vector(Loader *L, int body, const char *name, double out[3])
{
    for (guint i = 0; i < L->vectors->len; ++i) {
        const NamedVector *v = &g_array_index(L->vectors, NamedVector, i);
        if (v->body == body && !strcmp(v->name, name)) {
            memcpy(out, v->v, 3 * sizeof *out);
            for (int k = 0; k < 3; ++k)
                note_value(L, &out[k], v->text[k]);
            return TRUE;
        }
    }
    return FALSE;
}

/* A direction given by name (a vector of body1, then of body2, then the global "x", "y",
 * "z") or as components. */
static gboolean get_axis(Loader *L, JsonObject *o, const char *key, int body1, int body2,
                         double out[3])
{
    JsonNode *n = member(L, o, key, TRUE);
    if (!n)
        return FALSE;
    char *what = g_strdup_printf("'%s'", key);
    gboolean ok;
    if (is_type(n, G_TYPE_STRING)) {
        const char *name = json_node_get_string(n);
        static const char *const global[3] = {"x", "y", "z"};
        ok = find_vector(L, body1, name, out) || find_vector(L, body2, name, out);
        for (int k = 0; !ok && k < 3; ++k)
            if (!strcmp(name, global[k])) {
                out[0] = out[1] = out[2] = 0.0;
                out[k] = 1.0;
                for (int c = 0; c < 3; ++c)
                    note_value(L, &out[c], NULL);
                ok = TRUE;
            }
        if (!ok)
            fail(L, _("%s: '%s' is not a vector of '%s' or '%s' (nor x, y or z)"), what, name,
                 L->m->bodies[body1].name, L->m->bodies[body2].name);
    } else if (JSON_NODE_HOLDS_ARRAY(n)) {
        ok = node_vec(L, n, what, 3, out);
    } else {
        ok = fail(L, _("%s must be a vector name or an array of 3 numbers, not %s"), what,
                  kind_of(n));
    }
    if (ok && sqrt(out[0] * out[0] + out[1] * out[1] + out[2] * out[2]) < 1e-12)
        ok = fail(L, _("%s has zero length"), what);
    g_free(what);
    return ok;
}

/* Engine builder failed: report its message at the current element. */
static gboolean engine_fail(Loader *L, const MbsError *err)
{
    return fail(L, "%s", err->message);
}

/* ---- parameters, gravity --------------------------------------------------------------- */

static gboolean load_parameters(Loader *L, JsonObject *root,
                                const EslParameterOverride *overrides, int noverrides)
{
    JsonObject *params;
    if (get_object(L, root, "parameters", FALSE, &params) < 0)
        return FALSE;
    for (int i = 0; i < noverrides; ++i) {
        set_where(L, _("parameter override '%s'"), overrides[i].name ? overrides[i].name : "");
        if (!overrides[i].name || !params || !json_object_has_member(params, overrides[i].name))
            return fail(L, _("the file has no such parameter"));
        if (!isfinite(overrides[i].value))
            return fail(L, _("value is not a finite number"));
    }
    if (!params)
        return TRUE;
    GList *names = json_object_get_members(params);
    for (GList *l = names; l && !L->failed; l = l->next) {
        const char *name = l->data;
        char msg[MBS_EXPR_MESSAGE_MAX];
        set_where(L, _("parameters '%s'"), name);
        if (!mbs_expr_valid_name(name, msg)) {
            fail(L, _("parameter name %s"), msg);
            break;
        }
        MbsExprVariable var = {name, 0.0};
        g_hash_table_remove_all(L->sources);
        int k = noverrides - 1;
        while (k >= 0 && strcmp(overrides[k].name, name))
            k--;
        if (k >= 0)
            var.value = overrides[k].value;
        else if (!node_number(L, json_object_get_member(params, name), "value", &var.value))
            break;
        MbsError err = {0};
        int p = mbs_model_add_parameter(L->m, name, var.value, &err);
        if (p < 0) {
            engine_fail(L, &err);
            break;
        }
        if (k < 0 &&
            !bind(L, MBS_ELEMENT_PARAMETER, p, offsetof(MbsParameter, value), &var.value, 1))
            break;
        g_array_append_val(L->vars, var);
    }
    g_list_free(names);
    return !L->failed;
}

/* ---- bodies ---------------------------------------------------------------------------- */

typedef struct {
    const char *name;
    double pos[3];
} PendingPoint;

static gboolean read_points(Loader *L, JsonObject *o, GArray *points)
{
    JsonObject *pts;
    if (get_object(L, o, "points", FALSE, &pts) <= 0)
        return !L->failed;
    GList *names = json_object_get_members(pts);
    /* Sized once: the loader notes where each coordinate came from by its address. */
    g_array_set_size(points, g_list_length(names));
    guint i = 0;
    for (GList *l = names; l; l = l->next, ++i) {
        PendingPoint *p = &g_array_index(points, PendingPoint, i);
        p->name = l->data;
        char *what = g_strdup_printf(_("point '%s'"), p->name);
        gboolean ok = check_name(L, _("point"), p->name) &&
                      node_vec(L, json_object_get_member(pts, p->name), what, 3, p->pos);
        g_free(what);
        if (!ok)
            break;
    }
    g_list_free(names);
    return !L->failed;
}

static gboolean read_vectors(Loader *L, JsonObject *o, int body)
{
    JsonObject *vecs;
    if (get_object(L, o, "vectors", FALSE, &vecs) <= 0)
        return !L->failed;
    GList *names = json_object_get_members(vecs);
    for (GList *l = names; l; l = l->next) {
        NamedVector v = {.body = body};
        const char *name = l->data;
        char *what = g_strdup_printf(_("vector '%s'"), name);
        gboolean ok = check_name(L, _("vector"), name) &&
                      node_vec(L, json_object_get_member(vecs, name), what, 3, v.v);
        if (ok && sqrt(v.v[0] * v.v[0] + v.v[1] * v.v[1] + v.v[2] * v.v[2]) < 1e-12)
            ok = fail(L, _("%s has zero length"), what);
        g_free(what);
        if (!ok)
            break;
        g_strlcpy(v.name, name, sizeof v.name);
        for (int k = 0; k < 3; ++k)
            v.text[k] = text_or_number(L, &v.v[k]);
        g_array_append_val(L->vectors, v);
    }
    g_list_free(names);
    return !L->failed;
}

static gboolean pending_point(Loader *L, GArray *points, JsonNode *n, const char *what,
                              double out[3])
{
    if (is_type(n, G_TYPE_STRING)) {
        const char *name = json_node_get_string(n);
        for (guint i = 0; i < points->len; ++i) {
            const PendingPoint *p = &g_array_index(points, PendingPoint, i);
            if (!strcmp(p->name, name)) {
                memcpy(out, p->pos, 3 * sizeof *out);
                for (int k = 0; k < 3; ++k)
                    note_value(L, &out[k], text_of(L, &p->pos[k]));
                return TRUE;
            }
        }
        return fail(L, _("%s: '%s' is not a point of this body"), what, name);
    }
    if (JSON_NODE_HOLDS_ARRAY(n))
        return node_vec(L, n, what, 3, out);
    return fail(L, _("%s must be a point name or an array of 3 numbers, not %s"), what,
                kind_of(n));
}

/* "inertia": 3x3 array, {"slender_rod": [p1, p2]}, {"box": [a, b, c]} or "point".
 * A slender rod sets the centre of mass to the midpoint of its ends unless com_given. */
static gboolean read_inertia(Loader *L, JsonObject *o, GArray *points, double *mass_read,
                             double com[3], gboolean com_given, double I[9])
{
    JsonNode *n = member(L, o, "inertia", TRUE);
    double mass = *mass_read;
    if (!n)
        return FALSE;
    memset(I, 0, 9 * sizeof *I);
    note_value(L, &mass, text_of(L, mass_read));
    if (is_type(n, G_TYPE_STRING)) {
        if (strcmp(json_node_get_string(n), "point"))
            return fail(L, _("'inertia' \"%s\" is not a known shape (expected \"point\", a 3x3 "
                        "array, {\"slender_rod\": [p1, p2]} or {\"box\": [a, b, c]})"),
                        json_node_get_string(n));
        return com_given || fail(L, _("missing required field 'com'"));
    }
    if (JSON_NODE_HOLDS_ARRAY(n)) {
        JsonArray *rows = json_node_get_array(n);
        if (json_array_get_length(rows) != 3)
            return fail(L, _("'inertia' must be an array of 3 rows of 3 numbers"));
        for (guint i = 0; i < 3; ++i) {
            char *what = g_strdup_printf("'inertia'[%u]", i);
            gboolean ok = node_vec(L, json_array_get_element(rows, i), what, 3, &I[3 * i]);
            g_free(what);
            if (!ok)
                return FALSE;
        }
        return com_given || fail(L, _("missing required field 'com'"));
    }
    if (!JSON_NODE_HOLDS_OBJECT(n))
        return fail(L, _("'inertia' must be \"point\", a 3x3 array or an object, not %s"),
                    kind_of(n));
    JsonObject *shape = json_node_get_object(n);
    JsonNode *rod = json_object_get_member(shape, "slender_rod");
    JsonNode *box = json_object_get_member(shape, "box");
    JsonNode *along = json_object_get_member(shape, "along");
    if (along && !box)
        return fail(L, _("'along' belongs to a box: {\"box\": [a, b, c], \"along\": [u, v]}"));
    if (json_object_get_size(shape) != (along ? 2u : 1u) || (!rod && !box))
        return fail(L, _("'inertia' object must have exactly one field, slender_rod or box (with "
                    "'along' for a box drawn along other axes)"));
    if (box) {
        double size[3];
        if (!node_vec(L, box, "'box'", 3, size))
            return FALSE;
        if (size[0] < 0 || size[1] < 0 || size[2] < 0)
            return fail(L, _("'box' sizes must not be negative"));
        if (!along) {
            mbs_inertia_box(mass, size, I);
            note_derived(L, I, MBS_DERIVE_BOX_INERTIA,
                         (const double *const[]){&mass, &size[0], &size[1], &size[2]}, 4);
            return com_given || fail(L, _("missing required field 'com'"));
        }
        double dir[2][3];
        if (!JSON_NODE_HOLDS_ARRAY(along) || json_array_get_length(json_node_get_array(along)) != 2)
            return fail(L, _("'along' must be two vectors [u, v]: edge a along u, edge b along v"));
        for (guint i = 0; i < 2; ++i) {
            char *what = g_strdup_printf("'along'[%u]", i);
            gboolean ok = node_vec(L, json_array_get_element(json_node_get_array(along), i), what,
                                   3, dir[i]);
            g_free(what);
            if (!ok)
                return FALSE;
        }
        if (mbs_inertia_box_along(mass, size, dir[0], dir[1], I))
            return fail(L, _("'along': the edge directions must be nonzero and not parallel"));
        note_derived(L, I, MBS_DERIVE_BOX_INERTIA_ALONG,
                     (const double *const[]){&mass, &size[0], &size[1], &size[2], &dir[0][0],
                                             &dir[0][1], &dir[0][2], &dir[1][0], &dir[1][1],
                                             &dir[1][2]},
                     10);
        return com_given || fail(L, _("missing required field 'com'"));
    }
    if (!JSON_NODE_HOLDS_ARRAY(rod) || json_array_get_length(json_node_get_array(rod)) != 2)
        return fail(L, _("'slender_rod' must be an array of two points (its ends)"));
    double ends[2][3];
    JsonArray *a = json_node_get_array(rod);
    for (guint i = 0; i < 2; ++i) {
        char *what = g_strdup_printf("'slender_rod'[%u]", i);
        gboolean ok = pending_point(L, points, json_array_get_element(a, i), what, ends[i]);
        g_free(what);
        if (!ok)
            return FALSE;
    }
    mbs_inertia_slender_rod(mass, ends[0], ends[1], I);
    const double *const end_coords[6] = {&ends[0][0], &ends[0][1], &ends[0][2],
                                         &ends[1][0], &ends[1][1], &ends[1][2]};
    const double *const rod_inputs[7] = {&mass, &ends[0][0], &ends[0][1], &ends[0][2],
                                         &ends[1][0], &ends[1][1], &ends[1][2]};
    note_derived(L, I, MBS_DERIVE_ROD_INERTIA, rod_inputs, 7);
    if (!com_given) {
        for (int k = 0; k < 3; ++k)
            com[k] = 0.5 * (ends[0][k] + ends[1][k]);
        note_derived(L, com, MBS_DERIVE_MIDPOINT, end_coords, 6);
    }
    return TRUE;
}

static gboolean load_body(Loader *L, JsonObject *o, int index)
{
    static const char *const ground_fields[] = {"name", "ground", "points", "vectors", NULL};
    static const char *const body_fields[] = {"name",   "ground", "mass",    "com",
                                              "inertia", "points", "vectors", NULL};
    const char *name;
    if (get_string(L, o, "name", TRUE, &name) < 0 || !check_name(L, _("body"), name))
        return FALSE;
    set_where(L, _("bodies[%d] '%s'"), index, name);
    if (mbs_model_find_body(L->m, name) >= 0)
        return fail(L, _("a body named '%s' is already defined"), name);

    gboolean is_ground = FALSE;
    JsonNode *g = member(L, o, "ground", FALSE);
    if (g && !is_type(g, G_TYPE_BOOLEAN))
        return fail(L, _("'ground' must be true or false, not %s"), kind_of(g));
    is_ground = g && json_node_get_boolean(g);
    if (!check_members(L, o, is_ground ? ground_fields : body_fields))
        return FALSE;

    GArray *points = g_array_new(FALSE, FALSE, sizeof(PendingPoint));
    MbsError err = {0};
    int b = -1;
    if (!read_points(L, o, points))
        goto out;
    if (is_ground) {
        if (L->m->ground >= 0) {
            fail(L, _("a second ground body (the ground is already '%s'); a model has exactly one"),
                 L->m->bodies[L->m->ground].name);
            goto out;
        }
        b = mbs_model_add_ground(L->m, name, &err);
    } else {
        double mass, com[3] = {0, 0, 0}, I[9];
        int has_com;
        if (get_number(L, o, "mass", TRUE, &mass) < 0)
            goto out;
        if (mass < 0.0) {
            fail(L, _("mass %g must be zero or positive"), mass);
            goto out;
        }
        if ((has_com = get_vec3(L, o, "com", FALSE, com)) < 0 ||
            !read_inertia(L, o, points, &mass, com, has_com, I))
            goto out;
        b = mbs_model_add_body(L->m, name, mass, com, I, &err);
        if (b >= 0 && (!bind(L, MBS_ELEMENT_BODY, b, offsetof(MbsBody, mass), &mass, 1) ||
                       !bind(L, MBS_ELEMENT_BODY, b, offsetof(MbsBody, com), com, 3) ||
                       !bind(L, MBS_ELEMENT_BODY, b, offsetof(MbsBody, inertia), I, 9)))
            goto out;
    }
    if (b < 0) {
        engine_fail(L, &err);
        goto out;
    }
    for (guint i = 0; i < points->len; ++i) {
        PendingPoint *p = &g_array_index(points, PendingPoint, i);
        int added = mbs_model_add_point(L->m, b, p->name, p->pos, &err);
        if (added < 0) {
            engine_fail(L, &err);
            goto out;
        }
        if (!bind(L, MBS_ELEMENT_POINT, added, offsetof(MbsPoint, pos), p->pos, 3))
            goto out;
    }
    read_vectors(L, o, b);
out:
    g_array_free(points, TRUE);
    return !L->failed;
}

/* ---- joints ---------------------------------------------------------------------------- */

static const char *const joint_types[] = {"revolute", "prismatic", "spherical", "universal",
                                          "rod"};

static gboolean read_driver(Loader *L, JsonNode *n, MbsFunction *f)
{
    static const char *const poly_fields[] = {"type", "coefficients", NULL};
    static const char *const sine_fields[] = {"type", "offset", "amplitude", "omega", "phase",
                                              NULL};
    if (!JSON_NODE_HOLDS_OBJECT(n))
        return fail(L, _("'driver' must be an object, not %s"), kind_of(n));
    JsonObject *o = json_node_get_object(n);
    const char *type;
    memset(f, 0, sizeof *f);
    if (get_string(L, o, "type", TRUE, &type) < 0)
        return FALSE;
    if (!strcmp(type, "polynomial")) {
        JsonArray *c;
        if (!check_members(L, o, poly_fields) || get_array(L, o, "coefficients", TRUE, &c) < 0)
            return FALSE;
        int nc = (int)json_array_get_length(c);
        if (nc < 1 || nc > MBS_POLY_MAX)
            return fail(L, _("driver 'coefficients' must have 1 to %d numbers"), MBS_POLY_MAX);
        f->kind = MBS_FUNCTION_POLYNOMIAL;
        f->ncoef = nc;
        for (int i = 0; i < nc; ++i) {
            char *what = g_strdup_printf(_("driver 'coefficients'[%d]"), i);
            gboolean ok = node_number(L, json_array_get_element(c, (guint)i), what, &f->coef[i]);
            g_free(what);
            if (!ok)
                return FALSE;
        }
        return TRUE;
    }
    if (!strcmp(type, "sine")) {
        f->kind = MBS_FUNCTION_SINE;
        return check_members(L, o, sine_fields) &&
               get_number(L, o, "offset", FALSE, &f->offset) >= 0 &&
               get_number(L, o, "amplitude", TRUE, &f->amplitude) > 0 &&
               get_number(L, o, "omega", TRUE, &f->omega) > 0 &&
               get_number(L, o, "phase", FALSE, &f->phase) >= 0;
    }
    return fail(L, _("unknown driver type '%s' (expected polynomial or sine)"), type);
}

/* The joint builders store unit axes: record them as derived from the axes read. */
static gboolean bind_joint(Loader *L, int j, double p1[3], double p2[3], double a1[3],
                           double a2[3], double *length)
{
    const MbsJoint *J = &L->m->joints[j];
    double u1[3], u2[3];
    gboolean axes = J->type != MBS_JOINT_SPHERICAL && J->type != MBS_JOINT_ROD;
    if (axes) {
        memcpy(u1, J->axis1, sizeof u1);
        memcpy(u2, J->axis2, sizeof u2);
        /* Revolute and prismatic joints store their one axis twice. */
        const double *second = J->type == MBS_JOINT_UNIVERSAL ? a2 : a1;
        note_derived(L, u1, MBS_DERIVE_UNIT_VECTOR, (const double *const[]){&a1[0], &a1[1], &a1[2]},
                     3);
        note_derived(L, u2, MBS_DERIVE_UNIT_VECTOR,
                     (const double *const[]){&second[0], &second[1], &second[2]}, 3);
    }
    return bind(L, MBS_ELEMENT_JOINT, j, offsetof(MbsJoint, point1), p1, 3) &&
           bind(L, MBS_ELEMENT_JOINT, j, offsetof(MbsJoint, point2), p2, 3) &&
           (!axes || (bind(L, MBS_ELEMENT_JOINT, j, offsetof(MbsJoint, axis1), u1, 3) &&
                      bind(L, MBS_ELEMENT_JOINT, j, offsetof(MbsJoint, axis2), u2, 3))) &&
           (J->type != MBS_JOINT_ROD ||
            bind(L, MBS_ELEMENT_JOINT, j, offsetof(MbsJoint, length), length, 1));
}

static gboolean load_joint(Loader *L, JsonObject *o, int index)
{
    static const char *const fields[] = {"name", "type",  "bodies", "point",  "points",
                                         "axis", "axis1", "axis2",  "length", "driver", NULL};
    const char *name, *type_name;
    if (get_string(L, o, "name", TRUE, &name) < 0 || !check_name(L, _("joint"), name))
        return FALSE;
    set_where(L, _("joints[%d] '%s'"), index, name);
    if (!check_members(L, o, fields) || get_string(L, o, "type", TRUE, &type_name) < 0)
        return FALSE;
    int type = 0;
    while (type < MBS_JOINT_TYPE_COUNT && strcmp(type_name, joint_types[type]))
        type++;
    if (type == MBS_JOINT_TYPE_COUNT)
        return fail(L, _("unknown joint type '%s' (expected revolute, prismatic, spherical, "
                    "universal or rod)"), type_name);
    if (mbs_model_find_joint(L->m, name) >= 0)
        return fail(L, _("a joint named '%s' is already defined"), name);
    int b[2];
    if (!get_two_bodies(L, o, "bodies", b))
        return FALSE;
    if (b[0] == b[1])
        return fail(L, _("connects body '%s' to itself"), L->m->bodies[b[0]].name);

    MbsError err = {0};
    double p[3], p2[3], a1[3], a2[3], length = -1.0;
    int j = -1;
    JsonNode *n;
    if (type == MBS_JOINT_ROD) {
        JsonArray *pts;
        if (get_array(L, o, "points", TRUE, &pts) < 0)
            return FALSE;
        if (json_array_get_length(pts) != 2)
            return fail(L, _("'points' must have two points (on the first and second body)"));
        if (!node_point(L, json_array_get_element(pts, 0), "'points'[0]", b[0], -1, p) ||
            !node_point(L, json_array_get_element(pts, 1), "'points'[1]", b[1], -1, p2))
            return FALSE;
        int has_length = get_number(L, o, "length", FALSE, &length);
        if (has_length < 0)
            return FALSE;
        if (has_length && !(length > 0.0))
            return fail(L, _("'length' %g must be positive"), length);
        j = mbs_model_add_rod(L->m, name, b[0], p, b[1], p2, length, &err);
        if (!has_length && j >= 0) {
            length = L->m->joints[j].length;
            note_derived(L, &length, MBS_DERIVE_DISTANCE,
                         (const double *const[]){&p[0], &p[1], &p[2], &p2[0], &p2[1], &p2[2]}, 6);
        }
    } else {
        if (!(n = member(L, o, "point", TRUE)) || !node_point(L, n, "'point'", b[0], b[1], p))
            return FALSE;
        if (type == MBS_JOINT_UNIVERSAL) {
            if (!get_axis(L, o, "axis1", b[0], b[1], a1) ||
                !get_axis(L, o, "axis2", b[1], b[0], a2))
                return FALSE;
            j = mbs_model_add_universal(L->m, name, b[0], b[1], p, a1, a2, &err);
        } else {
            if (type != MBS_JOINT_SPHERICAL && !get_axis(L, o, "axis", b[0], b[1], a1))
                return FALSE;
            if (type == MBS_JOINT_SPHERICAL)
                a1[0] = a1[1] = 0.0, a1[2] = 1.0;
            j = mbs_model_add_joint(L->m, name, (MbsJointType)type, b[0], b[1], p, a1, &err);
        }
    }
    if (j < 0)
        return engine_fail(L, &err);
    if (!bind_joint(L, j, p, type == MBS_JOINT_ROD ? p2 : p, a1, a2, &length))
        return FALSE;
    if ((n = member(L, o, "driver", FALSE))) {
        MbsFunction f;
        if (type != MBS_JOINT_REVOLUTE && type != MBS_JOINT_PRISMATIC)
            return fail(L, _("only revolute and prismatic joints can be driven (this is %s)"),
                        type_name);
        if (!read_driver(L, n, &f))
            return FALSE;
        if (mbs_model_drive_joint(L->m, j, &f, &err))
            return engine_fail(L, &err);
        if (!bind_struct(L, MBS_ELEMENT_JOINT, j, offsetof(MbsJoint, driver), &f, sizeof f))
            return FALSE;
    }
    return TRUE;
}

/* ---- forces ---------------------------------------------------------------------------- */

static gboolean get_joint(Loader *L, JsonObject *o, const char *key, int *joint)
{
    const char *name;
    if (get_string(L, o, key, TRUE, &name) < 0)
        return FALSE;
    if ((*joint = mbs_model_find_joint(L->m, name)) < 0)
        return fail(L, _("unknown joint '%s'"), name);
    return TRUE;
}

/* Geometry keys of a force element, in the order messages list them. */
static const char *const *geometry_keys(MbsForceGeometry g)
{
    static const char *const line[] = {"bodies", "points", NULL};
    static const char *const joint[] = {"joint", NULL};
    static const char *const point[] = {"body", "point", NULL};
    static const char *const body[] = {"body", NULL};
    static const char *const wheel[] = {"body",          "point", "tyre", "tyre_file", "side",
                                        "tyre_scaling", NULL};
    static const char *const control[] = {"joint", "body", "point", NULL};
    switch (g) {
    case MBS_FORCE_ON_LINE: return line;
    case MBS_FORCE_ON_JOINT: return joint;
    case MBS_FORCE_AT_POINT: return point;
    case MBS_FORCE_ON_WHEEL: return wheel;
    case MBS_FORCE_CONTROL: return control;
    case MBS_FORCE_ON_BODY: break;
    }
    return body;
}

/* Only name, type, the geometry's keys and the class's fields may appear. */
static gboolean check_force_members(Loader *L, JsonObject *o, const MbsForceClass *c)
{
    GPtrArray *allowed = g_ptr_array_new();
    g_ptr_array_add(allowed, (gpointer) "name");
    g_ptr_array_add(allowed, (gpointer) "type");
    for (const char *const *k = geometry_keys(c->geometry); *k; ++k)
        g_ptr_array_add(allowed, (gpointer)*k);
    for (const MbsForceField *fd = c->fields; fd->name; ++fd)
        g_ptr_array_add(allowed, (gpointer)fd->name);
    g_ptr_array_add(allowed, NULL);
    gboolean ok = check_members(L, o, (const char *const *)allowed->pdata);
    g_ptr_array_free(allowed, TRUE);
    return ok;
}

/* A wheel's tyre law ("tyre": its name, "linear" if absent) and, for a law other than the
 * linear one, its property file ("tyre_file", relative to the model file), whose text the law
 * parses; f->tyre_data is then the loader's until mbs_model_add_force copies it. */
static gboolean read_tyre(Loader *L, JsonObject *o, MbsForce *f)
{
    const char *law = "linear", *file = NULL;
    if (get_string(L, o, "tyre", FALSE, &law) < 0 || get_string(L, o, "tyre_file", FALSE, &file) < 0)
        return FALSE;
    if (!law)
        law = "linear";
    int index = mbs_tyre_model_class_index(law);
    if (index < 0) {
        GString *known = g_string_new(NULL);
        for (int i = 0; i < mbs_tyre_model_class_count(); ++i)
            g_string_append_printf(known, "%s%s", i ? ", " : "", mbs_tyre_model_class_at(i)->name);
        fail(L, _("'tyre': unknown tyre law '%s' (expected %s)"), law, known->str);
        g_string_free(known, TRUE);
        return FALSE;
    }
    f->tyre_law = index;
    memcpy(f->tyre, mbs_tyre_linear_defaults(), sizeof f->tyre);
    if (!strcmp(law, "linear")) {
        if (file)
            return fail(L, _("'tyre_file': the linear tyre law reads no file (its numbers are "
                             "the wheel's fields)"));
        return TRUE;
    }
    if (!file)
        return fail(L, _("'tyre_file': the tyre law '%s' needs its property file"), law);
    char *path = g_path_is_absolute(file) || !L->dir ? g_strdup(file)
                                                    : g_build_filename(L->dir, file, NULL);
    char *text = NULL;
    gsize len = 0;
    GError *ioerr = NULL;
    gboolean ok = g_file_get_contents(path, &text, &len, &ioerr);
    g_free(path);
    if (!ok) {
        fail(L, _("'tyre_file': %s"), ioerr->message);
        g_error_free(ioerr);
        return FALSE;
    }
    MbsError err = {0};
    f->tyre_data = mbs_tyre_model_class_at(index)->parse(text, len, file, &err);
    g_free(text);
    return f->tyre_data ? TRUE : fail(L, _("'tyre_file': %s"), err.message);
}

/* A wheel's "tyre_scaling" ({"LMUY": 1.1, "LKX": "lkx"}): multipliers of its tyre law's scaling
 * factors (PAC2002: the .tir file's [SCALING_COEFFICIENTS] that the law reads), each a number or
 * an expression of the parameters (so that sensitivities take them); the others are 1. */
static gboolean read_tyre_scaling(Loader *L, JsonObject *o, MbsForce *f)
{
    const MbsTyreModelClass *law = mbs_tyre_model_class_at(f->tyre_law);
    for (int i = 0; i < MBS_FORCE_TYRE_SCALES; ++i)
        f->tyre_scale[i] = 1.0;
    f->tyre_scaled = 1;
    JsonNode *n = member(L, o, "tyre_scaling", FALSE);
    if (!n)
        return !L->failed;
    if (!JSON_NODE_HOLDS_OBJECT(n))
        return fail(L, _("'tyre_scaling' must be an object of scaling factors (e.g. "
                         "{\"LMUY\": 1.1}), not %s"), kind_of(n));
    int count = mbs_tyre_scaling_count(law);
    if (!count)
        return fail(L, _("'tyre_scaling': the tyre law '%s' has no scaling factors"), law->name);
    JsonObject *so = json_node_get_object(n);
    GList *keys = json_object_get_members(so);
    gboolean ok = TRUE;
    for (GList *k = keys; ok && k; k = k->next) {
        const char *key = k->data;
        int i = mbs_tyre_scaling_index(law, key);
        if (i < 0) {
            GString *known = g_string_new(NULL);
            for (int j = 0; j < count; ++j)
                g_string_append_printf(known, "%s%s", j ? ", " : "", law->scaling[j]);
            ok = fail(L, _("'tyre_scaling': '%s' is not a scaling factor of the tyre law '%s' "
                           "(expected %s)"), key, law->name, known->str);
            g_string_free(known, TRUE);
            break;
        }
        char *what = g_strdup_printf("'tyre_scaling' '%s'", key);
        ok = node_number(L, json_object_get_member(so, key), what, &f->tyre_scale[i]);
        g_free(what);
    }
    g_list_free(keys);
    return ok;
}

/* A wheel's "side" ("left" or "right": where the wheel is mounted; absent: the side of its tyre
 * data, a .tir file's TYRESIDE, so no mirroring): a wheel on the other side than its tyre's
 * data evaluates the law mirrored (mbs_tyre_evaluate). */
static gboolean read_side(Loader *L, JsonObject *o, MbsForce *f)
{
    const char *side = NULL;
    if (get_string(L, o, "side", FALSE, &side) < 0)
        return FALSE;
    f->tyre_mirror = 0;
    if (!side)
        return TRUE;
    int mounted;
    if (!strcmp(side, "left"))
        mounted = MBS_TYRE_LEFT;
    else if (!strcmp(side, "right"))
        mounted = MBS_TYRE_RIGHT;
    else
        return fail(L, _("'side': '%s' is not a side (expected left or right)"), side);
    const MbsTyreModelClass *law = mbs_tyre_model_class_at(f->tyre_law);
    f->tyre_mirror = mounted != mbs_tyre_side(law, f->tyre_data);
    return TRUE;
}

/* Where the element acts: bodies, points, joint. */
static gboolean read_force_geometry(Loader *L, JsonObject *o, const MbsForceClass *c, MbsForce *f)
{
    int b[2];
    JsonArray *pts;
    JsonNode *p;
    switch (c->geometry) {
    case MBS_FORCE_ON_LINE:
        if (!get_two_bodies(L, o, "bodies", b) || get_array(L, o, "points", TRUE, &pts) < 0)
            return FALSE;
        if (json_array_get_length(pts) != 2)
            return fail(L, _("'points' must have two points (on the first and second body)"));
        f->body1 = b[0];
        f->body2 = b[1];
        return node_point(L, json_array_get_element(pts, 0), "'points'[0]", b[0], -1, f->point1) &&
               node_point(L, json_array_get_element(pts, 1), "'points'[1]", b[1], -1, f->point2);
    case MBS_FORCE_ON_JOINT:
        return get_joint(L, o, "joint", &f->joint);
    case MBS_FORCE_AT_POINT:
        return get_body(L, o, "body", &f->body1) && (p = member(L, o, "point", TRUE)) &&
               node_point(L, p, "'point'", f->body1, -1, f->point1);
    case MBS_FORCE_ON_BODY:
        return get_body(L, o, "body", &f->body1);
    case MBS_FORCE_ON_WHEEL:
        return get_body(L, o, "body", &f->body1) && (p = member(L, o, "point", TRUE)) &&
               node_point(L, p, "'point'", f->body1, -1, f->point1) && read_tyre(L, o, f) &&
               read_side(L, o, f) && read_tyre_scaling(L, o, f);
    case MBS_FORCE_CONTROL: /* the joint it drives, the body (and its point) it reads */
        return get_joint(L, o, "joint", &f->joint) && get_body(L, o, "body", &f->body1) &&
               (p = member(L, o, "point", TRUE)) &&
               node_point(L, p, "'point'", f->body1, -1, f->point1);
    }
    return FALSE;
}

/* A table field: [[x, y], ...], at most fd->count / 2 pairs (the storage MbsForce has). */
static gboolean read_force_table(Loader *L, JsonObject *o, const MbsForceField *fd, double *x,
                                 int *n)
{
    JsonArray *rows;
    int r = get_array(L, o, fd->name, (fd->flags & MBS_FIELD_REQUIRED) != 0, &rows);
    if (r <= 0)
        return r == 0 && !L->failed;
    int len = (int)json_array_get_length(rows);
    if (len > fd->count / 2)
        return fail(L, _("'%s' has %d pairs: at most %d fit"), fd->name, len, fd->count / 2);
    for (int i = 0; i < len; ++i) {
        char *what = g_strdup_printf("'%s'[%d]", fd->name, i);
        gboolean ok = node_vec(L, json_array_get_element(rows, (guint)i), what, 2, &x[2 * i]);
        g_free(what);
        if (!ok)
            return FALSE;
    }
    *n = len;
    return TRUE;
}

/* The class's numbers, in its order. */
static gboolean read_force_fields(Loader *L, JsonObject *o, const MbsForceClass *c, MbsForce *f)
{
    for (const MbsForceField *fd = c->fields; fd->name; ++fd) {
        double *x = (double *)(void *)((char *)f + fd->offset);
        gboolean required = (fd->flags & MBS_FIELD_REQUIRED) != 0;
        if (fd->flags & MBS_FIELD_TABLE) {
            if (!read_force_table(L, o, fd, x, &f->ntable))
                return FALSE;
            continue;
        }
        if (fd->flags & MBS_FIELD_DRAWN_LENGTH) {
            double d[3] = {f->point2[0] - f->point1[0], f->point2[1] - f->point1[1],
                           f->point2[2] - f->point1[2]};
            *x = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
            note_derived(L, x, MBS_DERIVE_DISTANCE,
                         (const double *const[]){&f->point1[0], &f->point1[1], &f->point1[2],
                                                 &f->point2[0], &f->point2[1], &f->point2[2]}, 6);
        }
        int r = fd->count == 3 ? get_vec3(L, o, fd->name, required, x)
                               : get_number(L, o, fd->name, required, x);
        if (r < 0 || (required && r == 0))
            return FALSE;
        if ((fd->flags & MBS_FIELD_NONNEGATIVE) && fd->count == 1 && *x < 0.0)
            return fail(L, _("'%s' %g must not be negative"), fd->name, *x);
    }
    return TRUE;
}

static gboolean load_force(Loader *L, JsonObject *o, int index)
{
    const char *name, *type;
    set_where(L, _("forces[%d]"), index);
    int has_name = get_string(L, o, "name", FALSE, &name);
    if (has_name < 0 || (has_name && !check_name(L, _("force"), name)))
        return FALSE;
    if (has_name)
        set_where(L, _("forces[%d] '%s'"), index, name);
    if (get_string(L, o, "type", TRUE, &type) < 0)
        return FALSE;

    MbsForce f;
    memset(&f, 0, sizeof f);
    f.body1 = f.body2 = f.joint = -1;
    if (has_name) {
        for (int i = 0; i < L->m->nforces; ++i)
            if (!strcmp(L->m->forces[i].name, name))
                return fail(L, _("a force named '%s' is already defined"), name);
        g_strlcpy(f.name, name, sizeof f.name);
    }
    const MbsForceClass *c = mbs_force_class_by_name(type);
    if (!c) {
        char kinds[256];
        mbs_force_class_list(kinds, sizeof kinds);
        return fail(L, _("unknown force type '%s' (expected %s)"), type, kinds);
    }
    f.type = c->type;
    gboolean ok = check_force_members(L, o, c) && read_force_geometry(L, o, c, &f) &&
                  read_force_fields(L, o, c, &f);
    MbsError err = {0};
    int added = ok ? mbs_model_add_force(L->m, &f, &err) : -1;
    if (f.tyre_data) /* the model holds its own copy */
        mbs_tyre_model_class_at(f.tyre_law)->free_data(f.tyre_data);
    f.tyre_data = NULL;
    if (!ok)
        return FALSE;
    if (added < 0)
        return engine_fail(L, &err);
    return bind_struct(L, MBS_ELEMENT_FORCE, added, 0, &f, sizeof f);
}

/* ---- road ------------------------------------------------------------------------------ */

/* "road": {"height": h, "mu": mu, "features": [{"type": "bump", "diameter": d,
 * "position": x}, ...]}: the flat plane and the features on it (mbs_road.h). */
static gboolean load_road(Loader *L, JsonObject *root)
{
    static const char *const fields[] = {"height", "mu", "features", NULL};
    JsonNode *n = json_object_get_member(root, "road");
    if (!n)
        return TRUE;
    set_where(L, "road");
    if (!JSON_NODE_HOLDS_OBJECT(n))
        return fail(L, _("must be an object, not %s"), kind_of(n));
    JsonObject *o = json_node_get_object(n);
    double height = 0.0, mu = 1.0;
    JsonArray *features = NULL;
    if (!check_members(L, o, fields) || get_number(L, o, "height", FALSE, &height) < 0 ||
        get_number(L, o, "mu", FALSE, &mu) < 0 || get_array(L, o, "features", FALSE, &features) < 0)
        return FALSE;
    if (!(mu >= 0.0))
        return fail(L, _("'mu' %g must not be negative"), mu);
    MbsRoad *road = mbs_road_new(height, mu);
    gboolean ok = road != NULL;
    for (guint i = 0; ok && features && i < json_array_get_length(features); ++i) {
        JsonNode *e = json_array_get_element(features, i);
        set_where(L, _("road: features[%u]"), i);
        if (!JSON_NODE_HOLDS_OBJECT(e)) {
            ok = fail(L, _("must be an object, not %s"), kind_of(e));
            break;
        }
        JsonObject *fo = json_node_get_object(e);
        const char *type;
        if (get_string(L, fo, "type", TRUE, &type) < 0) {
            ok = FALSE;
            break;
        }
        int kind = mbs_road_class_index(type);
        if (kind < 0) {
            char kinds[128];
            mbs_road_class_list(kinds, sizeof kinds);
            ok = fail(L, _("unknown road feature '%s' (expected %s)"), type, kinds);
            break;
        }
        const MbsRoadClass *c = mbs_road_class_at(kind);
        set_where(L, _("road: features[%u] (%s)"), i, type);
        const char *allowed[MBS_ROAD_NUMBERS + 3] = {"type"};
        int na = 1, nv = 0;
        double v[MBS_ROAD_NUMBERS] = {0};
        for (const MbsRoadField *fd = c->fields; fd->name; ++fd)
            allowed[na++] = fd->name;
        if (c->takes_points)
            allowed[na++] = "points";
        allowed[na] = NULL;
        if (!check_members(L, fo, allowed)) {
            ok = FALSE;
            break;
        }
        for (const MbsRoadField *fd = c->fields; ok && fd->name; ++fd, ++nv) {
            int r = get_number(L, fo, fd->name, fd->required, &v[nv]);
            ok = r >= 0 && (r > 0 || !fd->required);
        }
        GArray *pts = g_array_new(FALSE, FALSE, sizeof(double));
        JsonArray *pa = NULL;
        if (ok && c->takes_points && (ok = get_array(L, fo, "points", TRUE, &pa) >= 0)) {
            for (guint k = 0; ok && k < json_array_get_length(pa); ++k) {
                double xy[2];
                char *what = g_strdup_printf("'points'[%u]", k);
                ok = node_vec(L, json_array_get_element(pa, k), what, 2, xy);
                g_free(what);
                g_array_append_vals(pts, xy, 2);
            }
        }
        MbsError err = {0};
        if (ok && mbs_road_add(road, kind, v, nv, (const double *)(void *)pts->data,
                               (int)pts->len / 2, &err) < 0)
            ok = engine_fail(L, &err);
        g_array_free(pts, TRUE);
    }
    MbsError err = {0};
    if (ok && mbs_model_set_road(L->m, road, &err))
        ok = engine_fail(L, &err);
    if (!road)
        ok = fail(L, _("out of memory"));
    mbs_road_free(road);
    return ok;
}

/* ---- path ------------------------------------------------------------------------------ */

/* "path": {"type": "points", "points": [[x, y], ...]} or {"type": "iso3888-1" | "iso3888-2",
 * "vehicle_width": w, "start": x0, "offset": o (optional)} or {"type": "slalom",
 * "vehicle_width": w, "start": x0, "spacing": d, "amplitude": a, "gates": n}: what path
 * followers steer along (mbs_path.h). */
static gboolean load_path(Loader *L, JsonObject *root)
{
    static const char *const points_fields[] = {"type", "points", NULL};
    static const char *const lane_fields[] = {"type", "vehicle_width", "start", "offset", NULL};
    static const char *const slalom_fields[] = {"type",    "vehicle_width", "start", "spacing",
                                                "amplitude", "gates",       NULL};
    JsonNode *n = json_object_get_member(root, "path");
    if (!n)
        return TRUE;
    set_where(L, "path");
    if (!JSON_NODE_HOLDS_OBJECT(n))
        return fail(L, _("must be an object, not %s"), kind_of(n));
    JsonObject *o = json_node_get_object(n);
    const char *type;
    if (get_string(L, o, "type", TRUE, &type) < 0)
        return FALSE;
    int kind = mbs_path_kind_index(type);
    if (kind < 0)
        return fail(L, _("unknown path type '%s' (expected points, iso3888-1, iso3888-2 or "
                         "slalom)"),
                    type);
    set_where(L, _("path (%s)"), type);
    MbsError err = {0};
    MbsPath *path = NULL;
    if (kind == MBS_PATH_POINTS) {
        JsonArray *pa;
        if (!check_members(L, o, points_fields) || get_array(L, o, "points", TRUE, &pa) < 0)
            return FALSE;
        guint np = json_array_get_length(pa);
        g_autofree double *xy = g_new0(double, 2 * (gsize)np + 2);
        for (guint k = 0; k < np; ++k) {
            g_autofree char *what = g_strdup_printf("'points'[%u]", k);
            if (!node_vec(L, json_array_get_element(pa, k), what, 2, &xy[2 * k]))
                return FALSE;
        }
        path = mbs_path_new_points(xy, (int)np, &err);
    } else if (kind == MBS_PATH_SLALOM) {
        double width, start = 0.0, spacing, amplitude, gates;
        if (!check_members(L, o, slalom_fields) ||
            get_number(L, o, "vehicle_width", TRUE, &width) <= 0 ||
            get_number(L, o, "start", FALSE, &start) < 0 ||
            get_number(L, o, "spacing", TRUE, &spacing) <= 0 ||
            get_number(L, o, "amplitude", TRUE, &amplitude) <= 0 ||
            get_number(L, o, "gates", TRUE, &gates) <= 0)
            return FALSE;
        if (gates != floor(gates) || !(fabs(gates) < 1e6))
            return fail(L, _("'gates' must be a whole number (it is %g)"), gates);
        path = mbs_path_new_slalom(width, start, spacing, amplitude, (int)gates, &err);
    } else {
        double width, start = 0.0, offset = NAN;
        if (!check_members(L, o, lane_fields) ||
            get_number(L, o, "vehicle_width", TRUE, &width) <= 0 ||
            get_number(L, o, "start", FALSE, &start) < 0 ||
            get_number(L, o, "offset", FALSE, &offset) < 0)
            return FALSE;
        path = mbs_path_new_lane_change((MbsPathKind)kind, width, start, offset, &err);
    }
    if (!path)
        return engine_fail(L, &err);
    gboolean ok = mbs_model_set_path(L->m, path, &err) == 0 || engine_fail(L, &err);
    mbs_path_free(path);
    return ok;
}

/* ---- initial conditions ---------------------------------------------------------------- */

/* {"body": B, "point": P, "direction": [x, y, z], "velocity": v}: point P of body B moves at
 * v along the direction (issue 13). */
static gboolean load_point_velocity(Loader *L, JsonObject *o, int index)
{
    static const char *const fields[] = {"body", "point", "direction", "velocity", NULL};
    int body;
    const char *point;
    double dir[3], value;
    if (!check_members(L, o, fields) || !get_body(L, o, "body", &body) ||
        get_string(L, o, "point", TRUE, &point) < 0)
        return FALSE;
    set_where(L, _("initial[%d] (point '%s' of '%s')"), index, point, L->m->bodies[body].name);
    int p = mbs_model_find_point(L->m, body, point);
    if (p < 0)
        return fail(L, _("'%s' is not a point of body '%s'"), point, L->m->bodies[body].name);
    JsonNode *d = member(L, o, "direction", TRUE);
    if (!d || !node_vec(L, d, "'direction'", 3, dir) ||
        get_number(L, o, "velocity", TRUE, &value) < 0)
        return FALSE;
    MbsError err = {0};
    int added = mbs_model_set_point_velocity(L->m, p, dir, value, &err);
    if (added < 0)
        return engine_fail(L, &err);
    double unit[3];
    memcpy(unit, L->m->initial[added].direction, sizeof unit);
    note_derived(L, unit, MBS_DERIVE_UNIT_VECTOR, (const double *const[]){&dir[0], &dir[1], &dir[2]},
                 3);
    return bind(L, MBS_ELEMENT_INITIAL, added, offsetof(MbsInitialCondition, value), &value, 1) &&
           bind(L, MBS_ELEMENT_INITIAL, added, offsetof(MbsInitialCondition, direction), unit, 3);
}

static gboolean load_initial(Loader *L, JsonObject *o, int index)
{
    static const char *const fields[] = {"joint", "coordinate", "position", "velocity", NULL};
    if (!json_object_has_member(o, "joint") && json_object_has_member(o, "point"))
        return load_point_velocity(L, o, index);
    int joint;
    double coord = 0.0, value;
    set_where(L, _("initial[%d]"), index);
    if (!check_members(L, o, fields) || !get_joint(L, o, "joint", &joint))
        return FALSE;
    set_where(L, _("initial[%d] (joint '%s')"), index, L->m->joints[joint].name);
    if (get_number(L, o, "coordinate", FALSE, &coord) < 0)
        return FALSE;
    int ndofs = mbs_joint_type_dofs(L->m->joints[joint].type);
    if (coord != floor(coord) || coord < 0 || coord >= ndofs)
        return fail(L, _("'coordinate' %g is not a coordinate of this %s joint (it has %d)"), coord,
                    mbs_joint_type_name(L->m->joints[joint].type), ndofs);
    int found = 0;
    static const char *const kinds[2] = {"position", "velocity"};
    for (int is_velocity = 0; is_velocity < 2; ++is_velocity) {
        int r = get_number(L, o, kinds[is_velocity], FALSE, &value);
        if (r < 0)
            return FALSE;
        MbsError err = {0};
        int added = r > 0 ? mbs_model_set_initial(L->m, joint, (int)coord, is_velocity, value, &err)
                          : 0;
        if (added < 0)
            return engine_fail(L, &err);
        if (r > 0 && !bind(L, MBS_ELEMENT_INITIAL, added, offsetof(MbsInitialCondition, value),
                           &value, 1))
            return FALSE;
        found += r;
    }
    return found || fail(L, _("needs 'position', 'velocity' or both"));
}

/* ---- user-chosen degrees of freedom (matrix-r) ----------------------------------------- */

static gboolean load_dof(Loader *L, JsonObject *o, int index)
{
    static const char *const fields[] = {"joint", "coordinate", "body", "point", "axis", NULL};
    set_where(L, _("degrees_of_freedom[%d]"), index);
    if (!check_members(L, o, fields))
        return FALSE;
    MbsError err = {0};
    if (json_object_has_member(o, "joint")) {
        int joint;
        double coord = 0.0;
        if (!get_joint(L, o, "joint", &joint) || get_number(L, o, "coordinate", FALSE, &coord) < 0)
            return FALSE;
        int ndofs = mbs_joint_type_dofs(L->m->joints[joint].type);
        /* checked as a double: (int)coord is undefined beyond INT_MAX (1e308, 2^32) */
        if (coord != floor(coord) || coord < 0 || coord >= ndofs)
            return fail(L, _("'coordinate' %g is not a coordinate of this %s joint (it has %d)"),
                        coord, mbs_joint_type_name(L->m->joints[joint].type), ndofs);
        if (mbs_model_add_dof(L->m, joint, (int)coord, -1, -1, &err) < 0)
            return engine_fail(L, &err);
        return TRUE;
    }
    int body;
    const char *point, *axis;
    if (!get_body(L, o, "body", &body) || get_string(L, o, "point", TRUE, &point) < 0 ||
        get_string(L, o, "axis", TRUE, &axis) < 0)
        return FALSE;
    int p = mbs_model_find_point(L->m, body, point);
    if (p < 0)
        return fail(L, _("'%s' is not a point of body '%s'"), point, L->m->bodies[body].name);
    int a = !strcmp(axis, "x") ? 0 : !strcmp(axis, "y") ? 1 : !strcmp(axis, "z") ? 2 : -1;
    if (a < 0)
        return fail(L, _("'axis' must be \"x\", \"y\" or \"z\", not '%s'"), axis);
    if (mbs_model_add_dof(L->m, -1, -1, p, a, &err) < 0)
        return engine_fail(L, &err);
    return TRUE;
}

/* ---- objectives (sensitivities, optimisation) ------------------------------------------ */

/* One term of an objective's integrand or final value: a quantity of a point, joint or body
 * and how it is measured (docs/model-format.md). */
static gboolean load_objective_term(Loader *L, JsonObject *o, const char *where, int final)
{
    static const char *const fields[] = {"quantity", "body", "point", "joint", "measure",
                                         "weight", "reference", NULL};
    MbsObjectiveTerm t = {.point = -1, .body = -1, .joint = -1, .weight = 1.0, .final = final};
    const char *quantity, *measure;
    set_where(L, "%s", where);
    int has_measure;
    if (!check_members(L, o, fields) || get_string(L, o, "quantity", TRUE, &quantity) < 0 ||
        (has_measure = get_string(L, o, "measure", FALSE, &measure)) < 0)
        return FALSE;
    if (!has_measure)
        measure = "squared_norm";
    t.quantity = mbs_quantity_from_name(quantity);
    if (t.quantity == MBS_QUANTITY_COUNT)
        return fail(L, _("unknown quantity '%s' (expected position, displacement, velocity, "
                    "acceleration, joint_coordinate, joint_rate or angular_velocity)"), quantity);
    EslObjectiveTarget target = esl_objective_target(t.quantity);
    if (target == ESL_OBJECTIVE_TARGET_JOINT) {
        if (!get_joint(L, o, "joint", &t.joint))
            return FALSE;
    } else {
        if (!get_body(L, o, "body", &t.body))
            return FALSE;
        if (target == ESL_OBJECTIVE_TARGET_POINT) {
            const char *point;
            if (get_string(L, o, "point", TRUE, &point) < 0)
                return FALSE;
            t.point = mbs_model_find_point(L->m, t.body, point);
            if (t.point < 0)
                return fail(L, _("'%s' is not a point of body '%s'"), point,
                            L->m->bodies[t.body].name);
        }
    }
    if (!esl_objective_measure_parse(t.quantity, measure, &t.measure, &t.component)) {
        int scalar = mbs_quantity_size(t.quantity) == 1;
        return fail(L, _("'measure' of %s must be \"squared_norm\" or %s, not '%s'"),
                    quantity, scalar ? "\"value\""
                                     : _("\"x\", \"y\", \"z\" or their squares \"squared_x\", "
                                         "\"squared_y\", \"squared_z\""),
                    measure);
    }
    /* A plain number: a weight is not a bound field, so an expression could not follow a
     * parameter's new value. */
    JsonNode *w = json_object_get_member(o, "weight");
    if (w) {
        if (!JSON_NODE_HOLDS_VALUE(w) || (json_node_get_value_type(w) != G_TYPE_DOUBLE &&
                                          json_node_get_value_type(w) != G_TYPE_INT64))
            return fail(L, _("'weight' must be a number, not %s"), kind_of(w));
        t.weight = json_node_get_double(w);
    }
    /* A fixed point or value (plain numbers, like the weight). */
    JsonNode *ref = json_object_get_member(o, "reference");
    int size = mbs_quantity_size(t.quantity);
    if (ref) {
        JsonArray *a = JSON_NODE_HOLDS_ARRAY(ref) ? json_node_get_array(ref) : NULL;
        if (!a || (int)json_array_get_length(a) != size)
            return fail(L, _("'reference' must be an array of %d numbers"), size);
        for (int k = 0; k < size; ++k) {
            JsonNode *e = json_array_get_element(a, (guint)k);
            if (!JSON_NODE_HOLDS_VALUE(e) || (json_node_get_value_type(e) != G_TYPE_DOUBLE &&
                                              json_node_get_value_type(e) != G_TYPE_INT64))
                return fail(L, _("'reference' must be an array of %d numbers"), size);
            t.reference[k] = json_node_get_double(e);
        }
    }
    MbsError err = {0};
    if (mbs_model_add_objective_term(L->m, &t, &err) < 0)
        return engine_fail(L, &err);
    return TRUE;
}

static gboolean load_objective(Loader *L, JsonObject *o, int index)
{
    static const char *const fields[] = {"name", "integrand", "final", NULL};
    const char *name;
    set_where(L, _("objectives[%d]"), index);
    if (!check_members(L, o, fields) || get_string(L, o, "name", TRUE, &name) < 0 ||
        !check_name(L, _("objective"), name))
        return FALSE;
    set_where(L, _("objectives[%d] '%s'"), index, name);
    MbsError err = {0};
    if (mbs_model_add_objective(L->m, name, &err) < 0)
        return engine_fail(L, &err);
    int nterms = 0;
    for (int final = 0; final < 2; ++final) {
        JsonArray *a;
        set_where(L, _("objectives[%d] '%s'"), index, name);
        int r = get_array(L, o, esl_objective_part_name(final), FALSE, &a);
        if (r < 0)
            return FALSE;
        for (guint i = 0; r > 0 && i < json_array_get_length(a); ++i, ++nterms) {
            JsonNode *e = json_array_get_element(a, i);
            char *where = g_strdup_printf(_("objectives[%d] '%s' %s[%u]"), index, name,
                                          esl_objective_part_name(final), i);
            gboolean ok = JSON_NODE_HOLDS_OBJECT(e)
                              ? load_objective_term(L, json_node_get_object(e), where, final)
                              : (set_where(L, "%s", where),
                                 fail(L, _("must be an object, not %s"), kind_of(e)));
            g_free(where);
            if (!ok)
                return FALSE;
        }
    }
    set_where(L, _("objectives[%d] '%s'"), index, name);
    return nterms > 0 || fail(L, _("needs at least one term in 'integrand' or 'final'"));
}

/* ---- document -------------------------------------------------------------------------- */

typedef gboolean (*ElementLoader)(Loader *L, JsonObject *o, int index);

static gboolean load_list(Loader *L, JsonObject *root, const char *key, gboolean required,
                          ElementLoader load)
{
    JsonArray *a;
    set_where(L, NULL);
    int r = get_array(L, root, key, required, &a);
    if (r <= 0)
        return r == 0;
    guint n = json_array_get_length(a);
    if (required && n == 0)
        return fail(L, _("'%s' is empty"), key);
    for (guint i = 0; i < n; ++i) {
        JsonNode *e = json_array_get_element(a, i);
        set_where(L, "%s[%u]", key, i);
        g_hash_table_remove_all(L->sources);
        if (!JSON_NODE_HOLDS_OBJECT(e))
            return fail(L, _("must be an object, not %s"), kind_of(e));
        if (!load(L, json_node_get_object(e), (int)i))
            return FALSE;
    }
    return TRUE;
}

static gboolean load_header(Loader *L, JsonObject *root, const char *default_name)
{
    static const char *const fields[] = {"format", "version", "name",   "description",
                                         "parameters", "gravity", "bodies", "joints",
                                         "forces", "initial", "degrees_of_freedom",
                                         "objectives", "planar", "road", "path", NULL};
    const char *format, *name, *description;
    JsonNode *v;
    if (!json_object_has_member(root, "format"))
        return fail_code(L, ESL_MODEL_FILE_ERROR_FORMAT,
                         _("not an eslabon-model file (missing required field 'format')"));
    if (get_string(L, root, "format", TRUE, &format) < 0)
        return FALSE;
    if (strcmp(format, "eslabon-model"))
        return fail_code(L, ESL_MODEL_FILE_ERROR_FORMAT,
                         _("unsupported format '%s' (expected \"eslabon-model\")"), format);
    if (!(v = member(L, root, "version", TRUE)))
        return FALSE;
    gboolean number = is_type(v, G_TYPE_INT64) || is_type(v, G_TYPE_DOUBLE);
    if (!number || json_node_get_double(v) != 1.0) {
        char *shown = number ? g_strdup_printf("%g", json_node_get_double(v))
                      : is_type(v, G_TYPE_STRING) ? g_strdup_printf("\"%s\"", json_node_get_string(v))
                                                  : g_strdup(kind_of(v));
        fail_code(L, ESL_MODEL_FILE_ERROR_FORMAT,
                  _("unsupported version %s (this program reads version 1)"), shown);
        g_free(shown);
        return FALSE;
    }
    if (!check_members(L, root, fields) || get_string(L, root, "name", FALSE, &name) < 0 ||
        get_string(L, root, "description", FALSE, &description) < 0)
        return FALSE;
    g_snprintf(L->m->name, sizeof L->m->name, "%s", name ? name : default_name);
    return TRUE;
}

/* json-glib reports "<data>:LINE:COL: Parse error: WHAT"; say "line LINE, column COL: WHAT". */
static char *syntax_message(const char *raw)
{
    int line, col, used = 0;
    if (sscanf(raw, "<data>:%d:%d: Parse error: %n", &line, &col, &used) >= 2 && used > 0)
        return g_strdup_printf(_("line %d, column %d: %s"), line, col, raw + used);
    return g_strdup(raw);
}

/* What json-glib will allocate to parse the text, in bytes (measured with json-glib 1.6: a
 * value node about 90, an array 40 more, an object 220 more, a member 160 more). */
static guint64 parse_memory_estimate(const char *s, gsize len)
{
    guint64 values = 1, arrays = 0, objects = 0, members = 0;
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
        } else if (c == ',') {
            values++;
        } else if (c == '[') {
            arrays++;
        } else if (c == '{') {
            objects++;
        } else if (c == ':') {
            members++;
        }
    }
    return 96 * values + 48 * arrays + 240 * objects + 160 * members;
}

/* The guards before json-glib sees a text: nesting (its recursion would overflow the stack) and
 * memory. */
static gboolean check_json_text(const char *data, gsize len, GError **error)
{
    if (esl_json_nesting_depth(data, len) > MAX_NESTING) {
        g_set_error(error, ESL_MODEL_FILE_ERROR, ESL_MODEL_FILE_ERROR_SYNTAX,
                    _("arrays and objects nested deeper than %d levels"), MAX_NESTING);
        return FALSE;
    }
    guint64 memory = parse_memory_estimate(data, len);
    if (memory > ESL_MODEL_PARSE_MEMORY_MAX) {
        g_set_error(error, ESL_MODEL_FILE_ERROR, ESL_MODEL_FILE_ERROR_READ,
                    _("too large to read: parsing its %.0f MB of JSON would take about %.0f MB "
                      "of memory (a model may take at most %d MB)"),
                    (double)len / 1e6, (double)memory / 1e6, ESL_MODEL_PARSE_MEMORY_MAX / 1000000);
        return FALSE;
    }
    return TRUE;
}

static MbsModel *load_data(const char *data, gsize len, const char *origin, const char *dir,
                           const char *default_name, const EslParameterOverride *overrides,
                           int noverrides, MbsModel **partial, GError **error)
{
    Loader L = {origin, NULL, NULL, NULL, NULL, NULL, error, FALSE, dir};
    JsonParser *parser = NULL;
    GError *guard = NULL;
    if (!check_json_text(data, len, &guard)) {
        fail_code(&L, guard->code, "%s", guard->message);
        g_error_free(guard);
        return NULL;
    }
    parser = json_parser_new();
    GError *jerr = NULL;
    if (!json_parser_load_from_data(parser, data, (gssize)len, &jerr)) {
        char *msg = syntax_message(jerr->message);
        fail_code(&L, ESL_MODEL_FILE_ERROR_SYNTAX, "%s", msg);
        g_free(msg);
        g_error_free(jerr);
        g_object_unref(parser);
        return NULL;
    }
    JsonNode *root = json_parser_get_root(parser);
    if (!root || !JSON_NODE_HOLDS_OBJECT(root)) {
        fail_code(&L, ESL_MODEL_FILE_ERROR_FORMAT, _("the top level must be a JSON object, not %s"),
                  root ? kind_of(root) : _("empty"));
        g_object_unref(parser);
        return NULL;
    }
    JsonObject *o = json_node_get_object(root);
    L.m = mbs_model_new(default_name);
    L.vars = g_array_new(FALSE, FALSE, sizeof(MbsExprVariable));
    L.vectors = g_array_new(FALSE, FALSE, sizeof(NamedVector));
    L.sources = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, source_free);

    gboolean ok = load_header(&L, o, default_name) &&
                  load_parameters(&L, o, overrides, noverrides);
    if (ok) {
        set_where(&L, NULL);
        double gravity[3] = {0.0, 0.0, -9.81};
        g_hash_table_remove_all(L.sources);
        ok = get_vec3(&L, o, "gravity", FALSE, gravity) >= 0;
        memcpy(L.m->gravity, gravity, sizeof gravity);
        ok = ok && bind(&L, MBS_ELEMENT_MODEL, 0, offsetof(MbsModel, gravity), gravity, 3);
        const char *planar = NULL;
        if (ok && json_object_has_member(o, "planar") &&
            (ok = get_string(&L, o, "planar", TRUE, &planar) >= 0)) {
            int axis = !strcmp(planar, "x") ? 0 : !strcmp(planar, "y") ? 1
                                                : !strcmp(planar, "z") ? 2 : -1;
            MbsError err = {0};
            if (axis < 0)
                ok = fail(&L, _("'planar' names the axis normal to the plane: \"x\", \"y\" or "
                          "\"z\", not '%s'"), planar);
            else if (mbs_model_set_planar(L.m, axis, &err))
                ok = engine_fail(&L, &err);
        }
    }
    ok = ok && load_road(&L, o) && load_path(&L, o);
    ok = ok && load_list(&L, o, "bodies", TRUE, load_body);
    if (ok && L.m->ground < 0) {
        set_where(&L, _("bodies"));
        ok = fail(&L, _("no ground body (mark exactly one body with \"ground\": true)"));
    }
    ok = ok && load_list(&L, o, "joints", FALSE, load_joint) &&
         load_list(&L, o, "forces", FALSE, load_force) &&
         load_list(&L, o, "initial", FALSE, load_initial) &&
         load_list(&L, o, "degrees_of_freedom", FALSE, load_dof) &&
         load_list(&L, o, "objectives", FALSE, load_objective);
    if (ok) {
        MbsError err = {0};
        set_where(&L, NULL);
        if (mbs_model_compile(L.m, &err))
            ok = fail_code(&L, ESL_MODEL_FILE_ERROR_TOPOLOGY, "%s", err.message);
    }
    set_where(&L, NULL);
    g_array_free(L.vars, TRUE);
    for (guint i = 0; i < L.vectors->len; ++i)
        for (int k = 0; k < 3; ++k)
            g_free(g_array_index(L.vectors, NamedVector, i).text[k]);
    g_array_free(L.vectors, TRUE);
    g_hash_table_destroy(L.sources);
    g_object_unref(parser);
    if (!ok) {
        if (partial) /* what was read before the problem, to draw */
            *partial = L.m;
        else
            mbs_model_free(L.m);
        return NULL;
    }
    return L.m;
}

static MbsModel *load_string(const char *json, const char *origin_name,
                             const EslParameterOverride *overrides, int noverrides,
                             MbsModel **partial, GError **error)
{
    const char *origin = origin_name ? origin_name : "<string>";
    const char *slash = strrchr(origin, G_DIR_SEPARATOR), *base = slash ? slash + 1 : origin;
    char *stem = g_str_has_suffix(base, ".json") ? g_strndup(base, strlen(base) - 5)
                                                 : g_strdup(base);
    /* An origin with a folder (the model's path) is where its relative paths (a wheel's
     * tyre_file) start, as for a file; a bare name: the working directory. */
    char *dir = origin_name && strchr(origin_name, G_DIR_SEPARATOR)
                    ? g_path_get_dirname(origin_name) : NULL;
    MbsModel *m = load_data(json ? json : "", json ? strlen(json) : 0, origin, dir, stem, overrides,
                            noverrides, partial, error);
    g_free(dir);
    g_free(stem);
    return m;
}

MbsModel *esl_model_load_string(const char *json, const char *origin_name,
                                const EslParameterOverride *overrides, int noverrides,
                                GError **error)
{
    return load_string(json, origin_name, overrides, noverrides, NULL, error);
}

MbsModel *esl_model_load_string_partial(const char *json, const char *origin_name,
                                        MbsModel **partial, GError **error)
{
    if (partial)
        *partial = NULL;
    return load_string(json, origin_name, NULL, 0, partial, error);
}

/* A model is a regular file of at most ESL_MODEL_FILE_SIZE_MAX bytes: a FIFO or a device
 * (/dev/zero) would block or fill the memory before the parser could refuse it. Opened without
 * blocking and checked on the descriptor read, so that a link swapped meanwhile changes
 * nothing. */
char *esl_model_file_read(const char *path, gsize *len, GError **error)
{
    g_autofree char *base = g_path_get_basename(path);
    int fd = g_open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC, 0);
    if (fd < 0) {
        int saved = errno;
        g_set_error(error, ESL_MODEL_FILE_ERROR, ESL_MODEL_FILE_ERROR_READ,
                    _("%s: cannot open the file: %s"), base, g_strerror(saved));
        return NULL;
    }
    struct stat st;
    char *data = NULL;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        g_set_error(error, ESL_MODEL_FILE_ERROR, ESL_MODEL_FILE_ERROR_READ,
                    _("%s: not a regular file (a model must be a JSON file)"), base);
    } else if ((guint64)st.st_size > ESL_MODEL_FILE_SIZE_MAX) {
        g_set_error(error, ESL_MODEL_FILE_ERROR, ESL_MODEL_FILE_ERROR_READ,
                    _("%s: the file is %.0f MB; a model file may be at most %d MB"), base,
                    (double)st.st_size / 1e6, ESL_MODEL_FILE_SIZE_MAX / 1000000);
    } else {
        /* read up to the size found and one byte more, to see a file that grew meanwhile */
        gsize cap = (gsize)st.st_size + 1, got = 0;
        data = g_malloc(cap + 1);
        for (;;) {
            ssize_t n = read(fd, data + got, cap - got);
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0) {
                if (n < 0) {
                    int saved = errno;
                    g_set_error(error, ESL_MODEL_FILE_ERROR, ESL_MODEL_FILE_ERROR_READ,
                                _("%s: cannot read the file: %s"), base, g_strerror(saved));
                    g_clear_pointer(&data, g_free);
                }
                break;
            }
            got += (gsize)n;
            if (got == cap) {
                g_set_error(error, ESL_MODEL_FILE_ERROR, ESL_MODEL_FILE_ERROR_READ,
                            _("%s: the file changed while it was read"), base);
                g_clear_pointer(&data, g_free);
                break;
            }
        }
        if (data) {
            data[got] = '\0';
            if (len)
                *len = got;
        }
    }
    close(fd);
    return data;
}

JsonNode *esl_model_file_read_json(const char *path, GError **error)
{
    gsize len = 0;
    g_autofree char *data = esl_model_file_read(path, &len, error);
    if (!data)
        return NULL;
    g_autofree char *base = g_path_get_basename(path);
    GError *local = NULL;
    g_autoptr(JsonParser) parser = NULL;
    if (check_json_text(data, len, &local)) {
        parser = json_parser_new();
        if (json_parser_load_from_data(parser, data, (gssize)len, &local) &&
            json_parser_get_root(parser))
            return json_node_copy(json_parser_get_root(parser));
    }
    g_set_error(error, ESL_MODEL_FILE_ERROR,
                local ? (local->domain == ESL_MODEL_FILE_ERROR ? local->code
                                                               : ESL_MODEL_FILE_ERROR_SYNTAX)
                      : ESL_MODEL_FILE_ERROR_SYNTAX,
                "%s: %s", base, local ? local->message : _("empty"));
    g_clear_error(&local);
    return NULL;
}

MbsModel *esl_model_load_file(const char *path, const EslParameterOverride *overrides,
                              int noverrides, GError **error)
{
    char *base = g_path_get_basename(path);
    char *stem = g_str_has_suffix(base, ".json") ? g_strndup(base, strlen(base) - 5)
                                                 : g_strdup(base);
    gsize len = 0;
    MbsModel *m = NULL;
    char *data = esl_model_file_read(path, &len, error);
    if (data) {
        char *dir = g_path_get_dirname(path);
        m = load_data(data, len, base, dir, stem, overrides, noverrides, NULL, error);
        g_free(dir);
    }
    g_free(data);
    g_free(stem);
    g_free(base);
    return m;
}
