/* Editing the objectives of a model file (app/esl-objective-edit.c): an edit changes the JSON,
 * rebuilds the model with the loader, and either everything succeeds or nothing changes and
 * the loader's message says why. Checked with numbers: an objective added to five-bar as
 * psi2 is written integrates to psi2 over a run; edited terms equal a model file written by
 * hand; invalid edits are refused with the loader's message. */
#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>

#include "esl-model-build.h"
#include "esl-model-file.h"
#include "esl-objective-edit.h"
#include "mbs_formulation.h"
#include "mbs_objective.h"
#include "tap.h"

#define MODELS ESLABON_SOURCE_DIR "/models/"

static char *read_model(const char *name)
{
    g_autofree char *path = g_build_filename(MODELS, name, NULL);
    char *text = NULL;
    if (!g_file_get_contents(path, &text, NULL, NULL))
        tap_ok(0, "read %s", path);
    return text;
}

/* An a{sv} from key, type, value triples ("s": const char *, "d": double, "i": int, "ad":
 * const double * and an int count), NULL-terminated. */
static GVariant *spec(const char *key, ...)
{
    GVariantBuilder b;
    g_variant_builder_init(&b, G_VARIANT_TYPE_VARDICT);
    va_list ap;
    va_start(ap, key);
    for (; key; key = va_arg(ap, const char *)) {
        const char *type = va_arg(ap, const char *);
        GVariant *v;
        if (g_str_equal(type, "s")) {
            v = g_variant_new_string(va_arg(ap, const char *));
        } else if (g_str_equal(type, "d")) {
            v = g_variant_new_double(va_arg(ap, double));
        } else if (g_str_equal(type, "i")) {
            v = g_variant_new_int32(va_arg(ap, int));
        } else {
            const double *x = va_arg(ap, const double *);
            int n = va_arg(ap, int);
            v = g_variant_new_fixed_array(G_VARIANT_TYPE_DOUBLE, x, (gsize)n, sizeof(double));
        }
        g_variant_builder_add(&b, "{sv}", key, v);
    }
    va_end(ap);
    return g_variant_ref_sink(g_variant_builder_end(&b));
}

/* json after the edit, or NULL (error kept in *error). */
static char *edit(const char *json, const char *kind, GVariant *inputs, MbsModel **model,
                  GError **error)
{
    g_clear_error(error);
    char *text = esl_objective_edit(json, "five-bar.json", kind, inputs, model, error);
    g_variant_unref(inputs);
    return text;
}

/* psi of every objective of m over a penalty run of `steps` steps from t = 0 (the
 * trapezoidal sums the sensitivity runs integrate). */
static gboolean run_psi(const MbsModel *m, int steps, double *psi)
{
    MbsSettings s;
    mbs_settings_defaults(&s);
    MbsError err = {0};
    MbsFormulation *f = mbs_formulation_new("penalty", m, &s, &err);
    MbsObjectiveAccumulator a;
    if (!f || mbs_objective_accumulator_init(&a, m, f->klass->coordinate_kind, &err) != 0) {
        tap_diag("run: %s", err.message);
        mbs_formulation_free(f);
        return FALSE;
    }
    mbs_objective_accumulator_add(&a, f);
    gboolean ok = TRUE;
    for (int i = 0; ok && i < steps; i++) {
        ok = mbs_formulation_step(f, &err) == 0;
        mbs_objective_accumulator_add(&a, f);
    }
    mbs_objective_accumulator_psi(&a, psi);
    mbs_objective_accumulator_free(&a);
    mbs_formulation_free(f);
    return ok;
}

/* The example: v2 = integral of |velocity of 12:2|^2, added to five-bar, is psi2. */
static void add_v2(void)
{
    g_autofree char *json = read_model("five-bar.json");
    g_autoptr(GError) error = NULL;
    MbsModel *original = esl_model_load_string(json, "five-bar.json", NULL, 0, &error);
    MbsModel *m = NULL;
    g_autofree char *text = edit(json, "add",
                                 spec("name", "s", "v2", "quantity", "s", "velocity", "body", "s",
                                      "12", "point", "s", "2", NULL),
                                 &m, &error);
    tap_ok(text && m && original, "v2 added to five-bar%s%s", error ? ": " : "",
           error ? error->message : "");
    if (!text || !m || !original)
        return;
    int v2 = mbs_model_find_objective(m, "v2"), psi2 = mbs_model_find_objective(m, "psi2");
    tap_ok(m->nobjectives == 4 && v2 == 3 && psi2 == 1 && m->objectives[v2].nterms == 1,
           "the rebuilt model lists psi1, psi2, psi3 and v2 (one term)");
    const MbsObjectiveTerm *a = &m->objective_terms[m->objectives[v2].first_term];
    const MbsObjectiveTerm *b = &m->objective_terms[m->objectives[psi2].first_term];
    tap_ok(a->quantity == MBS_QUANTITY_VELOCITY && a->point == b->point &&
               a->measure == MBS_MEASURE_SQUARED_NORM && a->weight == 1.0 && !a->final,
           "v2's term reads the velocity of the point psi2 reads, squared norm, weight 1");
    MbsModel *again = esl_model_load_string(text, "again.json", NULL, 0, NULL);
    g_autofree char *why = NULL;
    tap_ok(again && esl_model_equal(again, m, &why),
           "the edited text loads to the same model %s", why ? why : "");
    mbs_model_free(again);

    double psi_edited[4], psi_original[3];
    gboolean ran = run_psi(m, 100, psi_edited) && run_psi(original, 100, psi_original);
    tap_ok(ran && psi_edited[v2] > 0 && psi_edited[v2] == psi_edited[psi2] &&
               psi_edited[v2] == psi_original[psi2],
           "over 100 penalty steps v2 = %.17g, psi2 of the edited model %.17g, of five-bar "
           "%.17g (the same numbers)", psi_edited[v2], psi_edited[psi2], psi_original[psi2]);
    tap_ok(psi_edited[0] == psi_original[0] && psi_edited[2] == psi_original[2],
           "psi1 and psi3 are unchanged by the edit");
    mbs_model_free(m);
    mbs_model_free(original);
}

/* Edits of terms give the model of a file written by hand. */
static void edit_terms(void)
{
    g_autofree char *json = read_model("five-bar.json");
    g_autoptr(GError) error = NULL;
    g_autofree char *t1 =
        edit(json, "rename", spec("name", "s", "psi3", "new-name", "s", "acc", NULL), NULL, &error);
    const double ref[3] = {1, 2, 3};
    g_autofree char *t2 =
        t1 ? edit(t1, "add-term",
                  spec("objective", "s", "acc", "part", "s", "final", "quantity", "s",
                       "joint_coordinate", "joint", "s", "A", "measure", "s", "value", "weight",
                       "d", 0.25, NULL),
                  NULL, &error)
           : NULL;
    g_autofree char *t3 =
        t2 ? edit(t2, "add-term",
                  spec("objective", "s", "acc", "quantity", "s", "displacement", "body", "s",
                       "23", "point", "s", "3", "reference", "ad", ref, 3, NULL),
                  NULL, &error)
           : NULL;
    /* acc's terms: integrand |a2|^2, displacement of 23:3; final: coordinate of A */
    g_autofree char *t4 =
        t3 ? edit(t3, "set-term",
                  spec("objective", "s", "acc", "term", "i", 1, "measure", "s", "y", "weight", "d",
                       -2.0, NULL),
                  NULL, &error)
           : NULL;
    /* psi1's term becomes the angular velocity of A1 about z: point and reference go */
    g_autofree char *t5 =
        t4 ? edit(t4, "set-term",
                  spec("objective", "s", "psi1", "term", "i", 0, "quantity", "s",
                       "angular_velocity", "body", "s", "A1", "measure", "s", "z", NULL),
                  NULL, &error)
           : NULL;
    /* and moves to the final value; psi2's velocity term is removed after a second one */
    g_autofree char *t6 =
        t5 ? edit(t5, "set-term",
                  spec("objective", "s", "psi1", "term", "i", 0, "part", "s", "final", NULL),
                  NULL, &error)
           : NULL;
    g_autofree char *t7 =
        t6 ? edit(t6, "add-term",
                  spec("objective", "s", "psi2", "quantity", "s", "joint_rate", "joint", "s", "1",
                       NULL),
                  NULL, &error)
           : NULL;
    MbsModel *edited = NULL;
    g_autofree char *t8 =
        t7 ? edit(t7, "remove-term", spec("objective", "s", "psi2", "term", "i", 0, NULL),
                  &edited, &error)
           : NULL;
    tap_ok(t8 && edited, "rename, add-term (final, integrand), set-term (measure and weight, "
           "quantity, part), remove-term accepted%s%s", error ? ": " : "",
           error ? error->message : "");
    if (!t8 || !edited)
        return;
    /* The same objectives written by hand. */
    const char *cut = strstr(json, "\"objectives\"");
    g_autofree char *head = g_strndup(json, (gsize)(cut - json));
    g_autofree char *by_hand = g_strconcat(
        head,
        "\"objectives\": ["
        " {\"name\": \"psi1\", \"final\": [{\"quantity\": \"angular_velocity\", \"body\": \"A1\","
        "  \"measure\": \"z\"}]},"
        " {\"name\": \"psi2\", \"integrand\": [{\"quantity\": \"joint_rate\", \"joint\": \"1\"}]},"
        " {\"name\": \"acc\", \"integrand\": ["
        "  {\"quantity\": \"acceleration\", \"body\": \"12\", \"point\": \"2\"},"
        "  {\"quantity\": \"displacement\", \"body\": \"23\", \"point\": \"3\", \"measure\": \"y\","
        "   \"weight\": -2, \"reference\": [1, 2, 3]}],"
        "  \"final\": [{\"quantity\": \"joint_coordinate\", \"joint\": \"A\","
        "   \"measure\": \"value\", \"weight\": 0.25}]}]}",
        NULL);
    MbsModel *hand = esl_model_load_string(by_hand, "by-hand.json", NULL, 0, &error);
    g_autofree char *why = NULL;
    tap_ok(hand && esl_model_equal(edited, hand, &why),
           "the edited model equals the file written by hand %s%s", why ? why : "",
           error ? error->message : "");
    /* psi1's term as written: the keys of an angular velocity only (its point and reference
     * went with the position; the loader would ignore a point left over) */
    g_autoptr(JsonParser) parser = json_parser_new();
    JsonObject *psi1_term = NULL;
    if (json_parser_load_from_data(parser, t8, -1, NULL)) {
        JsonObject *root = json_node_get_object(json_parser_get_root(parser));
        JsonObject *psi1 = json_array_get_object_element(
            json_object_get_array_member(root, "objectives"), 0);
        psi1_term = json_array_get_object_element(json_object_get_array_member(psi1, "final"), 0);
    }
    tap_ok(psi1_term && json_object_get_size(psi1_term) == 3 &&
               json_object_has_member(psi1_term, "quantity") &&
               json_object_has_member(psi1_term, "body") &&
               json_object_has_member(psi1_term, "measure"),
           "psi1's term is written with quantity, body and measure only");
    tap_ok(strstr(t8, "\"description\"") && strstr(t8, "r20 = (0.5, -2) stays the reference"),
           "the edited text keeps the model's description and the objective's comment");
    mbs_model_free(hand);
    mbs_model_free(edited);

    /* Removing every objective removes the section. */
    g_autofree char *r1 = edit(json, "remove", spec("name", "s", "psi1", NULL), NULL, &error);
    g_autofree char *r2 = r1 ? edit(r1, "remove", spec("name", "s", "psi2", NULL), NULL, &error)
                             : NULL;
    MbsModel *none = NULL;
    g_autofree char *r3 = r2 ? edit(r2, "remove", spec("name", "s", "psi3", NULL), &none, &error)
                             : NULL;
    tap_ok(r3 && none && none->nobjectives == 0 && !strstr(r3, "\"objectives\""),
           "removing psi1, psi2 and psi3 leaves a model without objectives and no section");
    mbs_model_free(none);
}

/* Refused edits: the loader's message, no text, no model. */
static void expect_refused(const char *model_file, const char *kind, GVariant *inputs,
                           const char *fragment, const char *what)
{
    g_autofree char *json = read_model(model_file);
    g_autofree char *before = g_strdup(json);
    g_autoptr(GError) error = NULL;
    MbsModel *m = (MbsModel *)&error; /* must be set to NULL */
    g_autofree char *text = esl_objective_edit(json, model_file, kind, inputs, &m, &error);
    g_variant_unref(inputs);
    tap_ok(!text && !m && error && strstr(error->message, fragment) && !strcmp(before, json),
           "%s: refused, the JSON unchanged: %s", what, error ? error->message : "(accepted)");
}

static void refused(void)
{
    expect_refused("five-bar.json", "add",
                   spec("name", "s", "v2", "quantity", "s", "velocity", "body", "s", "12",
                        "point", "s", "9", NULL),
                   "objectives[3] 'v2' integrand[0]: '9' is not a point of body '12'",
                   "a point that does not exist");
    expect_refused("four-bar-spatial.json", "add-term",
                   spec("objective", "s", "follower_rate", "quantity", "s", "joint_coordinate",
                        "joint", "s", "B", NULL),
                   "joint 'B' is universal; joint quantities read revolute or prismatic joints",
                   "a joint quantity of a universal joint");
    expect_refused("five-bar.json", "rename",
                   spec("name", "s", "psi1", "new-name", "s", "psi2", NULL),
                   "objective 'psi2' is defined twice", "a name taken");
    expect_refused("five-bar.json", "remove-term",
                   spec("objective", "s", "psi2", "term", "i", 0, NULL),
                   "needs at least one term", "the last term of an objective");
    expect_refused("five-bar.json", "set-term",
                   spec("objective", "s", "psi2", "term", "i", 0, "measure", "s", "value", NULL),
                   "'measure' of velocity must be \"squared_norm\" or \"x\", \"y\", \"z\" or their "
                   "squares \"squared_x\", \"squared_y\", \"squared_z\"",
                   "a scalar's measure on a vector");
    expect_refused("five-bar.json", "set-term",
                   spec("objective", "s", "psi2", "term", "i", 0, "quantity", "s", "joint_rate",
                        NULL),
                   "missing required field 'joint'", "a joint quantity without its joint");
    const double two[2] = {1, 2};
    expect_refused("five-bar.json", "set-term",
                   spec("objective", "s", "psi1", "term", "i", 0, "reference", "ad", two, 2, NULL),
                   "'reference' must be an array of 3 numbers", "a reference of 2 numbers");
    expect_refused("five-bar.json", "set-term",
                   spec("objective", "s", "psi1", "term", "i", 1, "weight", "d", 2.0, NULL),
                   "objective 'psi1' has no term 1", "a term that does not exist");
    expect_refused("five-bar.json", "remove", spec("name", "s", "psi9", NULL),
                   "no objective named 'psi9'", "an objective that does not exist");
    expect_refused("five-bar.json", "add-term",
                   spec("objective", "s", "psi1", "part", "s", "middle", "quantity", "s",
                        "velocity", "body", "s", "12", "point", "s", "2", NULL),
                   "unknown part 'middle'", "a part that is neither integrand nor final");
}

/* The format's helpers: the measures offered parse back to themselves, the joints offered. */
static void format_helpers(void)
{
    gboolean round_trip = TRUE;
    for (int q = 0; q < MBS_QUANTITY_COUNT; q++) {
        const char *const *names = esl_objective_measures(q);
        int n = 0;
        for (; names[n]; n++) {
            MbsObjectiveTerm t = {.quantity = q};
            round_trip &= esl_objective_measure_parse(q, names[n], &t.measure, &t.component) &&
                          !strcmp(esl_objective_measure_name(&t), names[n]);
        }
        round_trip &= n == 1 + (mbs_quantity_size(q) == 3 ? 6 : 1); /* components, squares */
    }
    MbsMeasure measure;
    int component;
    tap_ok(round_trip && !esl_objective_measure_parse(MBS_QUANTITY_JOINT_RATE, "x", &measure,
                                                      &component),
           "every quantity's measures parse back to their names; a joint rate has no x");
    MbsModel *m = esl_model_load_file(MODELS "four-bar-spatial.json", NULL, 0, NULL);
    int offered = 0;
    for (int j = 0; m && j < m->njoints; j++)
        offered |= esl_objective_joint_offered(m, j) << j;
    /* A (revolute, tree) is offered; B (universal), C (spherical) are not; D (revolute) only
     * when the spanning tree holds it */
    gboolean d_in_tree = m && m->topo->joint_node[3] >= 0;
    tap_ok(m && (offered & 1) && !(offered & 2) && !(offered & 4) &&
               !!(offered & 8) == d_in_tree,
           "joint quantities are offered revolute and prismatic joints of the tree (mask %x)",
           offered);
    g_autofree char *name = esl_objective_free_name(m, "crank_spin");
    tap_ok(name && !strcmp(name, "crank_spin1"), "a free objective name: %s", name);
    mbs_model_free(m);
}

int main(void)
{
    add_v2();
    edit_terms();
    refused();
    format_helpers();
    return tap_done();
}
