/* Parameters in the engine: a model rebuilt for a new parameter value
 * (mbs_model_with_parameter) is the model the file gives with that value, field by field; the
 * fields listed as depending on a parameter are the ones that change with it. */
#include <math.h>
#include <string.h>

#include "esl-model-file.h"
#include "mbs_formulation.h"
#include "mbs_linalg.h"
#include "mbs_topology.h"
#include "tap.h"

#define MODELS ESLABON_SOURCE_DIR "/models/"

/* Every way a number of a model file can come from a parameter: directly, through another
 * parameter, a named point or vector, a shape's inertia, a drawn distance, a unit axis. */
static const char *const every_kind = "{\"format\": \"eslabon-model\", \"version\": 1,"
    "\"parameters\": {\"L\": 0.5, \"m\": 2, \"half\": \"L/2\", \"k\": 40, \"tilt\": 0.1,"
    "                 \"w\": 3, \"g\": 9.81, \"q0\": 0.2},"
    "\"gravity\": [0, \"-g*sin(tilt)\", \"-g*cos(tilt)\"],"
    "\"bodies\": ["
    " {\"name\": \"ground\", \"ground\": true, \"points\": {\"O\": [0, 0, 0], \"S\": [\"L\", 1, 0]},"
    "  \"vectors\": {\"n\": [1, \"tilt\", 0]}},"
    " {\"name\": \"arm\", \"mass\": \"m\", \"inertia\": {\"slender_rod\": [\"O\", \"A\"]},"
    "  \"points\": {\"O\": [0, 0, 0], \"A\": [0, 0, \"L\"]}},"
    " {\"name\": \"box\", \"mass\": \"m/2\", \"com\": [0, \"half\", \"L\"],"
    "  \"inertia\": {\"box\": [\"half\", 0.1, 0.1]}, \"points\": {\"A\": [0, 0, \"L\"], \"C\": [0, \"L\", \"L\"]}},"
    " {\"name\": \"bob\", \"mass\": 1, \"com\": [0, \"L\", 0],"
    "  \"inertia\": [[\"0.01*m\", 0, 0], [0, 0.01, 0], [0, 0, 0.01]], \"points\": {\"P\": [0, \"L\", 0]}},"
    " {\"name\": \"cross\", \"mass\": 1, \"com\": [\"L\", 0, 0], \"inertia\": \"point\"}"
    "],"
    "\"joints\": ["
    " {\"name\": \"O\", \"type\": \"revolute\", \"bodies\": [\"ground\", \"arm\"], \"point\": \"O\", \"axis\": \"n\"},"
    " {\"name\": \"A\", \"type\": \"prismatic\", \"bodies\": [\"arm\", \"box\"], \"point\": \"A\","
    "  \"axis\": [0, 1, \"tilt\"], \"driver\": {\"type\": \"sine\", \"amplitude\": \"L/10\", \"omega\": \"w\"}},"
    " {\"name\": \"R\", \"type\": \"rod\", \"bodies\": [\"box\", \"bob\"], \"points\": [\"C\", \"P\"]},"
    " {\"name\": \"B\", \"type\": \"spherical\", \"bodies\": [\"ground\", \"bob\"], \"point\": [0, \"L\", 0]},"
    " {\"name\": \"U\", \"type\": \"universal\", \"bodies\": [\"ground\", \"cross\"], \"point\": [\"L\", 0, 0],"
    "  \"axis1\": [1, \"tilt\", 0], \"axis2\": \"z\"}"
    "],"
    "\"forces\": ["
    " {\"name\": \"spring\", \"type\": \"tsda\", \"bodies\": [\"ground\", \"bob\"], \"points\": [\"S\", \"P\"],"
    "  \"stiffness\": \"k\", \"damping\": \"k/100\"},"
    " {\"name\": \"twist\", \"type\": \"rsda\", \"joint\": \"O\", \"stiffness\": \"2*k\", \"rest_angle\": \"tilt\"},"
    " {\"name\": \"push\", \"type\": \"force\", \"body\": \"bob\", \"point\": \"P\", \"vector\": [\"m\", 0, 0]},"
    " {\"name\": \"turn\", \"type\": \"torque\", \"body\": \"cross\", \"vector\": [0, 0, \"k/40\"]}"
    "],"
    "\"initial\": [{\"joint\": \"O\", \"position\": \"q0\", \"velocity\": \"w/3\"}]}";

static int same_bytes(const void *a, const void *b, size_t n) { return n == 0 || !memcmp(a, b, n); }

/* Field by field (padding aside, every element struct is zero-filled by its builder). */
static int same_model(const MbsModel *a, const MbsModel *b, char *what, size_t size)
{
#define SAME_ARRAY(arr, count)                                                                 \
    if (a->count != b->count || !same_bytes(a->arr, b->arr, sizeof *a->arr * (size_t)a->count)) \
        return snprintf(what, size, "%s", #arr), 0;
    SAME_ARRAY(bodies, nbodies)
    SAME_ARRAY(points, npoints)
    SAME_ARRAY(joints, njoints)
    SAME_ARRAY(forces, nforces)
    SAME_ARRAY(parameters, nparameters)
    SAME_ARRAY(dofs, ndofs)
#undef SAME_ARRAY
    if (memcmp(a->gravity, b->gravity, sizeof a->gravity))
        return snprintf(what, size, "gravity"), 0;
    if (a->ninitial != b->ninitial)
        return snprintf(what, size, "initial count"), 0;
    for (int i = 0; i < a->ninitial; ++i)
        if (a->initial[i].joint != b->initial[i].joint ||
            a->initial[i].coordinate != b->initial[i].coordinate ||
            a->initial[i].is_velocity != b->initial[i].is_velocity ||
            a->initial[i].value != b->initial[i].value)
            return snprintf(what, size, "initial[%d]", i), 0;
    if (mbs_model_ncoords(a) != mbs_model_ncoords(b) ||
        mbs_model_nconstraints(a) != mbs_model_nconstraints(b))
        return snprintf(what, size, "compiled sizes"), 0;
    return 1;
}

/* For every parameter: rebuild with value * factor + shift and compare with loading the file
 * given that value (or check that both reject it, unless must_load). */
static void check_rebuilds(const char *origin, const char *json, double factor, double shift,
                           int must_load)
{
    GError *error = NULL;
    MbsModel *m = esl_model_load_string(json, origin, NULL, 0, &error);
    tap_ok(m != NULL, "%s loads%s%s", origin, error ? ": " : "", error ? error->message : "");
    g_clear_error(&error);
    if (!m)
        return;
    MbsError err = {0};
    MbsModel *before = mbs_model_copy(m, &err);
    char what[64] = "";
    tap_ok(before && same_model(m, before, what, sizeof what) && before->topo,
           "%s: a copy is the same compiled model %s", origin, what);
    for (int p = 0; p < m->nparameters; ++p) {
        double value = m->parameters[p].value * factor + shift;
        EslParameterOverride o = {m->parameters[p].name, value};
        MbsModel *loaded = esl_model_load_string(json, origin, &o, 1, &error);
        MbsModel *rebuilt = mbs_model_with_parameter(m, p, value, &err);
        if (loaded || rebuilt)
            tap_ok(loaded && rebuilt && same_model(loaded, rebuilt, what, sizeof what),
                   "%s: %s = %g rebuilt in the engine is the model the file gives (%s%s%s)",
                   origin, o.name, value, what, rebuilt ? "" : err.message,
                   error ? error->message : "");
        else
            tap_ok(!must_load, "%s: %s = %g is rejected by the loader and by the engine (%s)",
                   origin, o.name, value, err.message);
        tap_ok(!rebuilt || rebuilt->nbindings == (loaded ? loaded->nbindings : -1),
               "%s: %s: the rebuilt model keeps the bindings the file gives", origin, o.name);
        g_clear_error(&error);
        mbs_model_free(loaded);
        mbs_model_free(rebuilt);
    }
    tap_ok(same_model(m, before, what, sizeof what), "%s: the original model is untouched %s",
           origin, what);
    mbs_model_free(before);
    mbs_model_free(m);
}

static int lists(const MbsModel *m, const MbsFieldRef *refs, int n, const char *field)
{
    for (int i = 0; i < n; ++i) {
        char text[256];
        mbs_field_ref_describe(m, refs[i], text, sizeof text);
        if (!strcmp(text, field))
            return 1;
    }
    return 0;
}

static void check_dependents(void)
{
    GError *error = NULL;
    MbsModel *m = esl_model_load_file(MODELS "slider-crank.json", NULL, 0, &error);
    tap_ok(m != NULL, "slider-crank loads");
    if (!m)
        return;
    int r = mbs_model_find_parameter(m, "r"), l = mbs_model_find_parameter(m, "l");
    MbsFieldRef refs[64];
    int n = mbs_model_parameter_dependents(m, r, refs, 64);
    /* r: yB; the z of A on crank and rod; B (y, through yB) on rod and slider; com and
     * inertia of crank and rod (slender rods); the slider's com; joints S, A, B (point1,
     * point2); the spring's second point. */
    tap_ok(lists(m, refs, n, "parameters[2] 'yB' value"), "r feeds the parameter yB");
    tap_ok(lists(m, refs, n, "points[3] 'A' pos[2]") && lists(m, refs, n, "points[5] 'B' pos[1]"),
           "r feeds the crank's point A (directly) and the rod's B (through yB)");
    tap_ok(lists(m, refs, n, "bodies[1] 'crank' inertia[0]") &&
               lists(m, refs, n, "bodies[1] 'crank' com[0]"),
           "r feeds the crank's slender-rod inertia and its centre of mass");
    tap_ok(lists(m, refs, n, "joints[1] 'S' point1[1]") && lists(m, refs, n, "joints[2] 'A' point2[2]"),
           "r feeds the points of joints S (through B) and A");
    tap_ok(!lists(m, refs, n, "bodies[1] 'crank' mass") && !lists(m, refs, n, "joints[0] 'O' point1[0]") &&
               !lists(m, refs, n, "joints[0] 'O' driver.coef[1]"),
           "r does not feed the crank's mass, joint O or its driver");
    int nl = mbs_model_parameter_dependents(m, l, refs, 64);
    tap_ok(!lists(m, refs, nl, "points[3] 'A' pos[2]") && lists(m, refs, nl, "points[5] 'B' pos[1]"),
           "l feeds B but not A");
    int nk = mbs_model_parameter_dependents(m, mbs_model_find_parameter(m, "yB"), refs, 64);
    tap_ok(lists(m, refs, nk, "forces[0] 'spring' point2[1]"), "yB feeds the spring's second point");
    tap_ok(n == 17 && nl == 11, "r has 17 dependent bindings, l 11 (got %d, %d)", n, nl);
    tap_ok(mbs_model_parameter_dependents(m, -1, NULL, 0) == 0 &&
               mbs_model_parameter_dependents(m, m->nparameters, NULL, 0) == 0,
           "no dependents for a parameter out of range");

    /* A geometric parameter: the rebuilt model assembles and runs with the new crank. */
    MbsError err = {0};
    MbsModel *longer = mbs_model_with_parameter(m, r, 0.25, &err);
    MbsSettings settings;
    mbs_settings_defaults(&settings);
    MbsFormulation *f = longer ? mbs_formulation_new("penalty", longer, &settings, &err) : NULL;
    double worst = 0.0;
    for (int i = 0; f && i < 20 && mbs_formulation_step(f, &err) == 0; ++i) {
        double O[3], A[3], d[3];
        mbs_formulation_point_position(f, 2, O); /* crank O, A: points 2, 3 */
        mbs_formulation_point_position(f, 3, A);
        mbs_v3_sub(A, O, d);
        worst = fmax(worst, fabs(mbs_v3_norm(d) - 0.25));
    }
    tap_ok(f != NULL, "r = 0.25: the rebuilt slider-crank runs (%s)", f ? "" : err.message);
    tap_below(worst, 1e-12, "r = 0.25: the crank is 0.25 long while it turns");
    mbs_formulation_free(f);
    mbs_model_free(longer);

    /* A value the builders reject is an error naming the element; nothing is returned. */
    MbsModel *bad = mbs_model_with_parameter(m, l, 0.1, &err);
    tap_ok(!bad && strstr(err.message, "yB") != NULL,
           "l = 0.1 < r makes yB = sqrt(negative): rejected naming yB (%s)", err.message);
    mbs_model_free(bad);
    bad = mbs_model_with_parameter(m, r, NAN, &err);
    tap_ok(!bad && strstr(err.message, "not a finite number"), "a NaN value is rejected");
    mbs_model_free(m);
}

int main(void)
{
    check_rebuilds("every-kind.json", every_kind, 0.9, 0.0, 1);
    /* Some of these are invalid (a negative mass or stiffness): both must reject them. */
    check_rebuilds("every-kind.json", every_kind, -0.5, 0.3, 0);
    const char *files[] = {"slider-crank.json", "four-bar-spatial.json"};
    for (size_t i = 0; i < G_N_ELEMENTS(files); ++i) {
        char *path = g_build_filename(ESLABON_SOURCE_DIR, "models", files[i], NULL);
        char *json = NULL;
        g_file_get_contents(path, &json, NULL, NULL);
        check_rebuilds(files[i], json ? json : "", 1.01, 0.0, 1);
        g_free(json);
        g_free(path);
    }
    check_dependents();
    return tap_done();
}
