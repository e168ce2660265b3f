/* Model file loader: good models give the expected model; every bad model gives an error that
 * names the file, the element and the problem; mutated input never crashes. */
#include <stddef.h>
#include <string.h>

#include "esl-model-file.h"
#include "mbs_assembly.h"
#include "mbs_road.h"
#include "mbs_topology.h"
#include "mbs_tyre_model.h"
#include "tap.h"

#define MODELS ESLABON_SOURCE_DIR "/models/"
#define BAD ESLABON_SOURCE_DIR "/tests/app/bad-models/"

/* ---- bad models ------------------------------------------------------------------------ */

typedef struct {
    const char *file;
    int code;
    const char *expect[4]; /* substrings of the message besides the file name */
} BadCase;

static const BadCase bad_cases[] = {
    {"syntax.json", ESL_MODEL_FILE_ERROR_SYNTAX, {"line 6, column 33", "expected character `,'"}},
    {"deep-nesting.json", ESL_MODEL_FILE_ERROR_SYNTAX, {"nested deeper than"}},
    {"not-an-object.json", ESL_MODEL_FILE_ERROR_FORMAT, {"top level must be a JSON object"}},
    {"bad-format.json", ESL_MODEL_FILE_ERROR_FORMAT, {"unsupported format 'openmodelica'"}},
    {"bad-version.json", ESL_MODEL_FILE_ERROR_FORMAT, {"unsupported version 2"}},
    {"missing-field.json", ESL_MODEL_FILE_ERROR_INVALID,
     {"bodies[1] 'crank'", "missing required field 'mass'"}},
    {"wrong-type.json", ESL_MODEL_FILE_ERROR_INVALID,
     {"bodies[1] 'crank'", "'mass' must be a number", "not an array"}},
    {"negative-mass.json", ESL_MODEL_FILE_ERROR_INVALID,
     {"bodies[1] 'crank': mass -1 must be zero or positive"}},
    {"bad-inertia.json", ESL_MODEL_FILE_ERROR_INVALID, {"bodies[1] 'crank'", "'inertia'", "3 rows"}},
    {"unknown-body.json", ESL_MODEL_FILE_ERROR_INVALID, {"joints[0] 'A'", "unknown body 'krank'"}},
    {"no-ground.json", ESL_MODEL_FILE_ERROR_INVALID, {"no ground body"}},
    {"two-grounds.json", ESL_MODEL_FILE_ERROR_INVALID,
     {"bodies[2] 'floor'", "second ground", "'ground'"}},
    {"duplicate-body.json", ESL_MODEL_FILE_ERROR_INVALID,
     {"bodies[2] 'crank'", "body named 'crank' is already defined"}},
    {"duplicate-joint.json", ESL_MODEL_FILE_ERROR_INVALID,
     {"joints[1] 'A'", "joint named 'A' is already defined"}},
    {"unknown-joint-type.json", ESL_MODEL_FILE_ERROR_INVALID,
     {"joints[2] 'C': unknown joint type 'hinge' (expected revolute, prismatic, spherical, "
      "universal or rod)"}},
    {"unknown-point.json", ESL_MODEL_FILE_ERROR_INVALID,
     {"joints[0] 'A': point 'Q' is not a point of 'ground' or 'crank'"}},
    {"zero-axis.json", ESL_MODEL_FILE_ERROR_INVALID, {"joints[0] 'A'", "'axis' has zero length"}},
    {"driven-spherical.json", ESL_MODEL_FILE_ERROR_INVALID,
     {"joints[0] 'A'", "only revolute and prismatic joints can be driven"}},
    {"unknown-parameter.json", ESL_MODEL_FILE_ERROR_INVALID,
     {"bodies[1] 'crank'", "point 'B'", "\"2*Lc\"", "unknown parameter 'Lc'"}},
    {"bad-expression.json", ESL_MODEL_FILE_ERROR_INVALID,
     {"bodies[1] 'crank'", "\"2*(L + 1\"", "expected ')'"}},
    {"bad-parameter-name.json", ESL_MODEL_FILE_ERROR_INVALID,
     {"parameters '2L'", "must start with a letter"}},
    {"unknown-field.json", ESL_MODEL_FILE_ERROR_INVALID,
     {"forces[0] 'spring'", "unknown field 'stifness'"}},
    {"unknown-force-type.json", ESL_MODEL_FILE_ERROR_INVALID,
     {"forces[0] 'push'", "unknown force type 'impulse'"}},
    /* found by fuzzing: (int)1e308 was undefined (issue 13) */
    {"huge-dof-coordinate.json", ESL_MODEL_FILE_ERROR_INVALID,
     {"degrees_of_freedom[0]", "'coordinate' 1e+308", "revolute"}},
    {"bad-initial.json", ESL_MODEL_FILE_ERROR_INVALID,
     {"initial[0] (joint 'A')", "'coordinate' 1", "revolute"}},
    /* suspension elements (issue 24): a table's storage and its order */
    {"spring-table-too-long.json", ESL_MODEL_FILE_ERROR_INVALID,
     {"forces[0] 'spring'", "'table' has 33 pairs: at most 32 fit"}},
    {"spring-table-unsorted.json", ESL_MODEL_FILE_ERROR_INVALID,
     {"spring", "table deflections must increase"}},
    {"disconnected.json", ESL_MODEL_FILE_ERROR_TOPOLOGY,
     {"body 'loose' is not connected to the ground"}},
};

static void check_bad(const BadCase *c)
{
    char *path = g_strconcat(BAD, c->file, NULL);
    GError *error = NULL;
    MbsModel *m = esl_model_load_file(path, NULL, 0, &error);
    tap_ok(m == NULL && error, "%s is rejected", c->file);
    mbs_model_free(m);
    if (error) {
        char *prefix = g_strconcat(c->file, ": ", NULL);
        tap_ok(g_str_has_prefix(error->message, prefix), "%s: message starts with the file name",
               c->file);
        tap_ok(error->domain == ESL_MODEL_FILE_ERROR && error->code == c->code,
               "%s: error code %d (got %d)", c->file, c->code, error->code);
        for (int i = 0; i < 4 && c->expect[i]; ++i)
            tap_ok(strstr(error->message, c->expect[i]) != NULL, "%s: message mentions \"%s\"",
                   c->file, c->expect[i]);
        tap_diag("%s", error->message);
        g_free(prefix);
        g_error_free(error);
    }
    g_free(path);
}

/* Every fixture in bad-models/ is listed above, so a new fixture cannot go untested. */
static void check_all_fixtures_listed(void)
{
    GDir *d = g_dir_open(BAD, 0, NULL);
    int found = 0, listed = 0;
    for (const char *f; d && (f = g_dir_read_name(d));) {
        if (!g_str_has_suffix(f, ".json"))
            continue;
        found++;
        for (size_t i = 0; i < G_N_ELEMENTS(bad_cases); ++i)
            listed += !strcmp(bad_cases[i].file, f);
    }
    if (d)
        g_dir_close(d);
    tap_ok(found == (int)G_N_ELEMENTS(bad_cases) && listed == found,
           "every bad-models/*.json fixture is checked (%d files, %d cases)", found,
           (int)G_N_ELEMENTS(bad_cases));
}

/* ---- good models ----------------------------------------------------------------------- */

static double dist(const double a[3], const double b[3])
{
    return sqrt((a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) +
                (a[2] - b[2]) * (a[2] - b[2]));
}

static const double *point(const MbsModel *m, const char *body, const char *name)
{
    int p = mbs_model_find_point(m, mbs_model_find_body(m, body), name);
    static const double nan3[3] = {NAN, NAN, NAN};
    return p >= 0 ? m->points[p].pos : nan3;
}

static void check_four_bar(void)
{
    GError *error = NULL;
    MbsModel *m = esl_model_load_file(MODELS "four-bar-spatial.json", NULL, 0, &error);
    if (!tap_ok(m != NULL, "four-bar-spatial.json loads%s%s", error ? ": " : "",
                error ? error->message : "")) {
        g_clear_error(&error);
        return;
    }
    tap_ok(!strcmp(m->name, "four-bar-spatial"), "model name from the file");
    tap_ok(m->nbodies == 4 && m->njoints == 4 && m->npoints == 8 && m->nforces == 0,
           "4 bodies, 4 joints, 8 points, no forces (got %d, %d, %d, %d)", m->nbodies,
           m->njoints, m->npoints, m->nforces);
    tap_ok(m->bodies[m->ground].is_ground && !strcmp(m->bodies[m->ground].name, "ground"),
           "the ground is 'ground'");
    tap_ok(mbs_model_ncoords(m) == 4 && mbs_model_nconstraints(m) == 3 && m->topo->ncut == 1,
           "4 relative coordinates, 3 constraints, 1 cut joint (got %d, %d, %d)",
           mbs_model_ncoords(m), mbs_model_nconstraints(m), m->topo->ncut);
    tap_close(m->gravity[2], -9.81, 0, "gravity -Z 9.81");

    double s = sqrt(1.0 - 0.7625 * 0.7625);
    const double *C = point(m, "coupler", "C"), *B = point(m, "coupler", "B");
    tap_close(C[0], 5.0 - 2 * 0.7625, 1e-15, "C.x = 5 + 2 cos t (expression)");
    tap_close(C[1], 2 * s, 1e-15, "C.y = 2 sin t (expression with sqrt)");
    tap_close(dist(B, C), 4.0, 1e-13, "|BC| = 4: the drawing is assembled");
    tap_close(dist(point(m, "follower", "D"), point(m, "follower", "C")), 2.0, 1e-13,
              "|DC| = 2");
    tap_close(dist(point(m, "crank", "A"), point(m, "crank", "B")), 1.5, 0, "|AB| = 1.5");

    const MbsBody *cp = &m->bodies[mbs_model_find_body(m, "coupler")];
    tap_close(cp->mass, 4.0, 0, "coupler mass 4 kg");
    tap_close(cp->com[1], s, 1e-15, "slender rod: com defaults to the midpoint of its ends");
    double d[3] = {C[0] - B[0], C[1] - B[1], C[2] - B[2]};
    tap_close(cp->inertia[0], 4.0 / 12.0 * (16.0 - d[0] * d[0]), 1e-13,
              "slender rod inertia Ixx = m/12 (L^2 - dx^2)");
    tap_close(cp->inertia[1], -4.0 / 12.0 * d[0] * d[1], 1e-13, "slender rod inertia Ixy");

    const MbsJoint *jb = &m->joints[mbs_model_find_joint(m, "B")];
    double n = sqrt(1.5 * 1.5 + 4 * s * s);
    tap_ok(jb->type == MBS_JOINT_UNIVERSAL, "joint B is universal");
    tap_close(jb->axis1[0], 1.0, 0, "B axis1 = X (named global axis)");
    tap_close(jb->axis2[1], 1.5 / n, 1e-15, "B axis2 normalized (y)");
    tap_close(jb->axis2[2], 2 * s / n, 1e-15, "B axis2 normalized (z)");
    tap_close(jb->point1[2], 1.5, 0, "B at the crank's point B");
    const MbsJoint *jd = &m->joints[mbs_model_find_joint(m, "D")];
    tap_ok(jd->type == MBS_JOINT_REVOLUTE && jd->axis1[2] == 1.0 && jd->point1[0] == 5.0,
           "D revolute about Z at (5, 0, 0)");
    tap_ok(m->topo->joint_node[mbs_model_find_joint(m, "D")] >= 0,
           "D (with an initial condition) is a tree joint");
    tap_ok(m->ninitial == 1 && m->initial[0].is_velocity && m->initial[0].coordinate == 0 &&
               m->initial[0].joint == mbs_model_find_joint(m, "D"),
           "one initial velocity on D");
    tap_close(m->initial[0].value, -0.1, 0, "D velocity -0.1 rad/s");
    tap_ok(m->nparameters == 2 && !strcmp(m->parameters[1].name, "sin_t"),
           "parameters cos_t, sin_t are kept in the model");
    tap_close(m->parameters[1].value, s, 1e-15, "parameter defined by an expression");
    mbs_model_free(m);
}

static void check_slider_crank(void)
{
    GError *error = NULL;
    MbsModel *m = esl_model_load_file(MODELS "slider-crank.json", NULL, 0, &error);
    if (!tap_ok(m != NULL, "slider-crank.json loads%s%s", error ? ": " : "",
                error ? error->message : "")) {
        g_clear_error(&error);
        return;
    }
    const MbsJoint *o = &m->joints[mbs_model_find_joint(m, "O")];
    tap_ok(o->driven && o->driver.kind == MBS_FUNCTION_POLYNOMIAL && o->driver.ncoef == 2,
           "crank joint driven by a degree-1 polynomial");
    tap_close(o->driver.coef[1], 2 * G_PI, 1e-15, "driver speed 2 pi rad/s");
    tap_ok(m->joints[mbs_model_find_joint(m, "S")].type == MBS_JOINT_PRISMATIC,
           "slider joint is prismatic");
    tap_ok(m->nforces == 1 && m->forces[0].type == MBS_FORCE_TSDA, "one TSDA");
    tap_close(m->forces[0].stiffness, 500, 0, "TSDA stiffness");
    tap_close(m->forces[0].natural_length, 0.6, 0, "TSDA natural length");
    tap_close(m->forces[0].point2[1], sqrt(0.32), 1e-15, "TSDA end on the slider point B");
    const MbsBody *sl = &m->bodies[mbs_model_find_body(m, "slider")];
    tap_close(sl->inertia[0], 1.0 / 12 * (0.01 + 0.0025), 1e-15, "box inertia Ixx");
    mbs_model_free(m);
}

/* Every bundled model loads and compiles. */
static void check_bundled(void)
{
    GDir *d = g_dir_open(MODELS, 0, NULL);
    int n = 0;
    for (const char *f; d && (f = g_dir_read_name(d));) {
        if (!g_str_has_suffix(f, ".json"))
            continue;
        char *path = g_strconcat(MODELS, f, NULL);
        GError *error = NULL;
        MbsModel *m = esl_model_load_file(path, NULL, 0, &error);
        tap_ok(m != NULL, "bundled %s loads%s%s", f, error ? ": " : "", error ? error->message : "");
        g_clear_error(&error);
        mbs_model_free(m);
        g_free(path);
        n++;
    }
    if (d)
        g_dir_close(d);
    tap_ok(n >= 6, "at least 6 bundled models (found %d)", n);
}

static const char *param_model =
    "{\"format\": \"eslabon-model\", \"version\": 1,\n"
    " \"parameters\": {\"L\": 2, \"m\": \"3*L\", \"h\": \"-L/2 + 2^3\", \"w\": 5},\n"
    " \"gravity\": [0, \"-w\", 0],\n"
    " \"bodies\": [\n"
    "  {\"name\": \"ground\", \"ground\": true, \"points\": {\"O\": [0, 0, 0]},\n"
    "   \"vectors\": {\"u\": [0, 0, 2]}},\n"
    "  {\"name\": \"bar\", \"mass\": \"m\", \"inertia\": {\"slender_rod\": [\"O\", \"E\"]},\n"
    "   \"points\": {\"O\": [0, 0, 0], \"E\": [0, \"L\", \"h\"]}},\n"
    "  {\"name\": \"bob\", \"mass\": 1, \"com\": [0, \"L\", \"h\"], \"inertia\": \"point\",\n"
    "   \"comment\": \"a point mass on a rod\"}],\n"
    " \"joints\": [\n"
    "  {\"name\": \"O\", \"type\": \"revolute\", \"bodies\": [\"ground\", \"bar\"],\n"
    "   \"point\": \"O\", \"axis\": \"u\"},\n"
    "  {\"name\": \"E\", \"type\": \"spherical\", \"bodies\": [\"bar\", \"bob\"],\n"
    "   \"point\": \"E\"},\n"
    "  {\"name\": \"R\", \"type\": \"rod\", \"bodies\": [\"ground\", \"bob\"],\n"
    "   \"points\": [\"O\", [0, \"L\", \"h\"]]}],\n"
    " \"forces\": [\n"
    "  {\"type\": \"rsda\", \"joint\": \"O\", \"stiffness\": \"10*L\", \"rest_angle\": \"pi/4\"},\n"
    "  {\"type\": \"torque\", \"body\": \"bar\", \"vector\": [1, 0, 0]},\n"
    "  {\"type\": \"force\", \"body\": \"bar\", \"point\": \"E\", \"vector\": [0, 0, \"-w\"]}],\n"
    " \"initial\": [{\"joint\": \"O\", \"position\": 0.1, \"velocity\": \"L\"}]}\n";

/* Issue 28: position and velocity in one entry, both plain numbers (the form
 * docs/model-format.md shows), or an expression then a number: the second was checked against
 * the first's text ("its expressions do not reproduce the value the model holds"). */
static void check_joint_position_and_velocity(void)
{
    static const char *const entries[] = {
        "{\"joint\": \"O\", \"position\": 0.1, \"velocity\": 0.5}",
        "{\"joint\": \"O\", \"position\": \"L/20\", \"velocity\": 0.5}",
    };
    for (size_t i = 0; i < G_N_ELEMENTS(entries); ++i) {
        g_autofree char *text = g_strdup(param_model);
        char *at = strstr(text, "\"initial\": [");
        g_autofree char *model = g_strdup_printf("%.*s\"initial\": [%s]}\n", (int)(at - text),
                                                 text, entries[i]);
        GError *error = NULL;
        MbsModel *m = esl_model_load_string(model, "params.json", NULL, 0, &error);
        tap_ok(m && m->ninitial == 2 && !m->initial[0].is_velocity &&
                   fabs(m->initial[0].value - 0.1) < 1e-15 && m->initial[1].is_velocity &&
                   m->initial[1].value == 0.5,
               "initial %s: a position 0.1 and a velocity 0.5%s%s", entries[i],
               error ? ": " : "", error ? error->message : "");
        g_clear_error(&error);
        mbs_model_free(m);
    }
}

static void check_parameters(void)
{
    GError *error = NULL;
    MbsModel *m = esl_model_load_string(param_model, "params.json", NULL, 0, &error);
    if (!tap_ok(m != NULL, "parameter model loads%s%s", error ? ": " : "",
                error ? error->message : "")) {
        g_clear_error(&error);
        return;
    }
    tap_ok(!strcmp(m->name, "params"), "model name defaults to the file name");
    const MbsBody *bar = &m->bodies[mbs_model_find_body(m, "bar")];
    tap_close(bar->mass, 6.0, 0, "mass = 3*L with L = 2");
    tap_close(point(m, "bar", "E")[2], 7.0, 0, "h = -L/2 + 2^3 = 7");
    tap_close(bar->com[1], 1.0, 0, "com at the rod midpoint");
    tap_close(m->gravity[1], -5.0, 0, "gravity from an expression");
    tap_close(m->joints[0].axis1[2], 1.0, 0, "axis by a named vector of the ground, normalized");
    tap_close(m->joints[2].length, sqrt(53.0), 1e-14, "rod length defaults to the drawn distance");
    tap_ok(m->topo->joint_node[2] < 0, "a rod is always a cut joint");
    tap_ok(m->nforces == 3, "3 forces");
    tap_close(m->forces[0].stiffness, 20.0, 0, "RSDA stiffness 10*L");
    tap_close(m->forces[0].rest_angle, G_PI / 4, 1e-16, "RSDA rest angle pi/4");
    tap_close(m->forces[2].vector[2], -5.0, 0, "force vector from an expression");
    tap_ok(m->ninitial == 2, "position and velocity given in one entry make two conditions");
    mbs_model_free(m);

    /* Overrides replace a value before anything is evaluated; dependents follow. */
    EslParameterOverride ov[] = {{"L", 3.0}, {"w", 9.81}};
    m = esl_model_load_string(param_model, "params.json", ov, 2, &error);
    if (!tap_ok(m != NULL, "parameter model loads with overrides")) {
        g_clear_error(&error);
        return;
    }
    bar = &m->bodies[mbs_model_find_body(m, "bar")];
    tap_close(bar->mass, 9.0, 0, "override L = 3: mass = 3*L = 9");
    tap_close(point(m, "bar", "E")[1], 3.0, 0, "override L = 3: point E moves");
    tap_close(point(m, "bar", "E")[2], 6.5, 0, "override L = 3: h follows");
    tap_close(m->gravity[1], -9.81, 0, "override w");
    tap_close(m->parameters[0].value, 3.0, 0, "the model keeps the overridden value");
    mbs_model_free(m);

    EslParameterOverride bad[] = {{"Q", 1.0}};
    m = esl_model_load_string(param_model, "params.json", bad, 1, &error);
    tap_ok(!m && error && strstr(error->message, "params.json") &&
               strstr(error->message, "override 'Q'") && strstr(error->message, "no such parameter"),
           "override of an unknown parameter is an error: %s", error ? error->message : "");
    g_clear_error(&error);
    mbs_model_free(m);
}

/* A box drawn along other axes (issue 13): edges a, b along u = (1, 1, 0) and v = (-1, 1, 0)
 * (45 degrees about Z): Ixx = Iyy = (Ia + Ib)/2, Ixy = (Ia - Ib)/2, Izz = Ic; a parameter in a
 * direction is re-evaluated by mbs_model_with_parameter. */
static const char *rotated_box_model =
    "{\"format\": \"eslabon-model\", \"version\": 1, \"parameters\": {\"k\": 1},\n"
    " \"bodies\": [{\"name\": \"ground\", \"ground\": true},\n"
    "  {\"name\": \"plate\", \"mass\": 12, \"com\": [0, 0, 0],\n"
    "   \"inertia\": {\"box\": [1, 2, 3], \"along\": [[1, \"k\", 0], [-1, 1, 0]]}}],\n"
    " \"joints\": [{\"name\": \"O\", \"type\": \"revolute\", \"bodies\": [\"ground\", "
    "\"plate\"], \"point\": [0, 0, 0], \"axis\": [0, 0, 1]}]}\n";

static void check_rotated_box(void)
{
    GError *error = NULL;
    MbsModel *m = esl_model_load_string(rotated_box_model, "box.json", NULL, 0, &error);
    if (!tap_ok(m != NULL, "a box with 'along' loads%s%s", error ? ": " : "",
                error ? error->message : "")) {
        g_clear_error(&error);
        return;
    }
    /* m = 12: Ia = b^2 + c^2 = 13, Ib = a^2 + c^2 = 10, Ic = a^2 + b^2 = 5 */
    const double *I = m->bodies[1].inertia;
    tap_close(I[0], 11.5, 1e-13, "rotated box Ixx = (Ia + Ib)/2");
    tap_close(I[4], 11.5, 1e-13, "rotated box Iyy = (Ia + Ib)/2");
    tap_close(I[1], 1.5, 1e-13, "rotated box Ixy = (Ia - Ib)/2");
    tap_close(I[3], I[1], 0, "symmetric");
    tap_close(I[8], 5.0, 1e-13, "rotated box Izz = Ic");
    tap_ok(fabs(I[2]) + fabs(I[5]) < 1e-15, "no coupling with Z");
    /* k = 0: u along X, v's normal part along Y: the axis-aligned box */
    MbsError err = {0};
    MbsModel *aligned = mbs_model_with_parameter(m, 0, 0.0, &err);
    tap_ok(aligned && fabs(aligned->bodies[1].inertia[0] - 13.0) < 1e-13 &&
               fabs(aligned->bodies[1].inertia[4] - 10.0) < 1e-13 &&
               fabs(aligned->bodies[1].inertia[1]) < 1e-15,
           "a direction's parameter is re-evaluated: k = 0 gives the axis-aligned box %s",
           aligned ? "" : err.message);
    mbs_model_free(aligned);
    mbs_model_free(m);

    char *bad = g_strdup(rotated_box_model);
    char *at = strstr(bad, "[-1, 1, 0]");
    memcpy(at, "[ 2, 2, 0]", 10); /* parallel to u */
    m = esl_model_load_string(bad, "box.json", NULL, 0, &error);
    tap_ok(!m && error && strstr(error->message, "not parallel"),
           "parallel edge directions are refused: %s", error ? error->message : "");
    g_clear_error(&error);
    mbs_model_free(m);
    g_free(bad);
}

/* An initial condition given as a point's velocity (issue 13): a slider-crank drawn with the crank
 * vertical (O-A, 0.3 m) and the rod A-B to the slider at B (0, 1, 0): the rod translates at that
 * instant, so "B moves at 1 m/s along +Y" makes the crank turn at -1/0.3 rad/s about X. */
static const char *point_velocity_model =
    "{\"format\": \"eslabon-model\", \"version\": 1, \"parameters\": {\"v\": 1},\n"
    " \"bodies\": [{\"name\": \"ground\", \"ground\": true, \"points\": {\"O\": [0, 0, 0]}},\n"
    "  {\"name\": \"crank\", \"mass\": 1, \"inertia\": {\"slender_rod\": [\"O\", \"A\"]},\n"
    "   \"points\": {\"O\": [0, 0, 0], \"A\": [0, 0, 0.3]}},\n"
    "  {\"name\": \"rod\", \"mass\": 1, \"inertia\": {\"slender_rod\": [\"A\", \"B\"]},\n"
    "   \"points\": {\"A\": [0, 0, 0.3], \"B\": [0, 1, 0]}},\n"
    "  {\"name\": \"slider\", \"mass\": 1, \"com\": [0, 1, 0], \"inertia\": \"point\",\n"
    "   \"points\": {\"B\": [0, 1, 0]}}],\n"
    " \"joints\": [\n"
    "  {\"name\": \"O\", \"type\": \"revolute\", \"bodies\": [\"ground\", \"crank\"], "
    "\"point\": \"O\", \"axis\": [1, 0, 0]},\n"
    "  {\"name\": \"A\", \"type\": \"revolute\", \"bodies\": [\"crank\", \"rod\"], "
    "\"point\": [0, 0, 0.3], \"axis\": [1, 0, 0]},\n"
    "  {\"name\": \"B\", \"type\": \"revolute\", \"bodies\": [\"rod\", \"slider\"], "
    "\"point\": [0, 1, 0], \"axis\": [1, 0, 0]},\n"
    "  {\"name\": \"S\", \"type\": \"prismatic\", \"bodies\": [\"ground\", \"slider\"], "
    "\"point\": [0, 1, 0], \"axis\": [0, 1, 0]}],\n"
    " \"initial\": [{\"body\": \"slider\", \"point\": \"B\", \"direction\": [0, 2, 0], "
    "\"velocity\": \"v\"}]}\n";

static void check_point_velocity(void)
{
    GError *error = NULL;
    MbsModel *m = esl_model_load_string(point_velocity_model, "pv.json", NULL, 0, &error);
    if (!tap_ok(m != NULL, "an initial point velocity loads%s%s", error ? ": " : "",
                error ? error->message : "")) {
        g_clear_error(&error);
        return;
    }
    tap_ok(m->ninitial == 1 && m->initial[0].joint == -1 && m->initial[0].direction[1] == 1.0,
           "stored as a point condition with a unit direction");
    MbsSettings s;
    mbs_settings_defaults(&s);
    int n = m->topo->nnodes, slider = mbs_model_find_body(m, "slider");
    double z[16] = {0}, zd[16] = {0};
    MbsBodyState bodies[8];
    MbsError err = {0};
    int st = n <= 16 ? mbs_assemble(m, &s, 0.0, z, zd, bodies, &err) : -1;
    tap_ok(st == 0 && fabs(bodies[slider].v_com[1] - 1.0) < 1e-12,
           "assembled: the slider moves at %.15g m/s along Y %s", st == 0 ? bodies[slider].v_com[1] : 0.0,
           st ? err.message : "");
    double crank_rate = 0.0;
    for (int k = 0; k < n; ++k)
        if (m->topo->nodes[k].joint == mbs_model_find_joint(m, "O"))
            crank_rate = zd[k];
    tap_close(crank_rate, -1.0 / 0.3, 1e-12, "the crank turns at -1/0.3 rad/s (the rod translates)");
    /* the value is a parameter: v = 2 doubles every rate */
    MbsModel *twice = mbs_model_with_parameter(m, 0, 2.0, &err);
    st = twice ? mbs_assemble(twice, &s, 0.0, z, zd, bodies, &err) : -1;
    tap_ok(st == 0 && fabs(bodies[slider].v_com[1] - 2.0) < 1e-12,
           "the velocity given as a parameter follows it (v = 2: %.15g m/s) %s",
           st == 0 ? bodies[slider].v_com[1] : 0.0, st ? err.message : "");
    mbs_model_free(twice);
    mbs_model_free(m);

    /* a second condition that contradicts the first: A along Y at 2 m/s (it must equal B's) */
    char *bad = g_strdup_printf("%.*s, {\"body\": \"crank\", \"point\": \"A\", \"direction\": "
                                "[0, 1, 0], \"velocity\": 2}]}\n",
                                (int)(strrchr(point_velocity_model, ']') - point_velocity_model),
                                point_velocity_model);
    m = esl_model_load_string(bad, "pv.json", NULL, 0, &error);
    st = m ? mbs_assemble(m, &s, 0.0, z, zd, NULL, &err) : -1;
    tap_ok(m && st < 0 && strstr(err.message, "initial velocity of point '") &&
               strstr(err.message, "cannot be met"),
           "contradictory point velocities are refused: %s", m ? err.message : error->message);
    g_clear_error(&error);
    mbs_model_free(m);
    g_free(bad);
    m = esl_model_load_string("{\"format\": \"eslabon-model\", \"version\": 1, \"bodies\": "
                              "[{\"name\": \"g\", \"ground\": true, \"points\": {\"P\": [0, 0, 0]}}], "
                              "\"initial\": [{\"body\": \"g\", \"point\": \"Q\", \"direction\": "
                              "[1, 0, 0], \"velocity\": 1}]}", "pv.json", NULL, 0, &error);
    tap_ok(!m && error && strstr(error->message, "'Q' is not a point of body 'g'"),
           "an unknown point is named: %s", error ? error->message : "");
    g_clear_error(&error);
    mbs_model_free(m);
}

/* "planar": the slider-crank above is planar about X: its one cut joint keeps 2 equations. */
static void check_planar(void)
{
    GError *error = NULL;
    char *text = g_strdup_printf("{\"planar\": \"x\", %s", point_velocity_model + 1);
    MbsModel *m = esl_model_load_string(text, "planar.json", NULL, 0, &error);
    tap_ok(m && m->planar_normal == 0 && m->topo->nrows == 2 && m->topo->ncut == 1,
           "\"planar\": \"x\": one cut joint, %d equations %s", m ? m->topo->nrows : -1,
           error ? error->message : "");
    g_clear_error(&error);
    mbs_model_free(m);
    g_free(text);
    text = g_strdup_printf("{\"planar\": \"w\", %s", point_velocity_model + 1);
    m = esl_model_load_string(text, "planar.json", NULL, 0, &error);
    tap_ok(!m && error && strstr(error->message, "'planar' names the axis normal to the plane"),
           "a bad plane is refused: %s", error ? error->message : "");
    g_clear_error(&error);
    mbs_model_free(m);
    g_free(text);
    text = g_strdup_printf("{\"planar\": \"y\", %s", point_velocity_model + 1);
    m = esl_model_load_string(text, "planar.json", NULL, 0, &error);
    tap_ok(!m && error && strstr(error->message, "joint 'O'") &&
               strstr(error->message, "revolute axis must be along Y"),
           "joints that leave the plane are refused: %s", error ? error->message : "");
    g_clear_error(&error);
    mbs_model_free(m);
    g_free(text);
}

/* Wheels and the road (issue 24): the bundled vehicle's numbers, and errors naming the element
 * and the key. */
static const char wheel_model[] =
    "{\"format\": \"eslabon-model\", \"version\": 1, %s"
    "\"bodies\": [{\"name\": \"g\", \"ground\": true},"
    " {\"name\": \"w\", \"mass\": 10, \"com\": [0, 0, 0.3], \"inertia\": \"point\"}],"
    "\"joints\": [{\"name\": \"p\", \"type\": \"prismatic\", \"bodies\": [\"g\", \"w\"],"
    " \"point\": [0, 0, 0.3], \"axis\": \"z\"}],"
    "\"forces\": [{\"name\": \"tyre\", \"type\": \"wheel\", \"body\": \"w\","
    " \"point\": [0, 0, 0.3], \"axis\": [0, 2, 0]%s}]}";

static MbsModel *load_wheel(const char *head, const char *tail, GError **error)
{
    char *text = g_strdup_printf(wheel_model, head, tail);
    MbsModel *m = esl_model_load_string(text, "wheel.json", NULL, 0, error);
    g_free(text);
    return m;
}

static void check_wheels(void)
{
    GError *error = NULL;
    MbsModel *m = esl_model_load_file(MODELS "vehicle-simple.json", NULL, 0, &error);
    int wheels = 0;
    for (int i = 0; m && i < m->nforces; ++i)
        wheels += m->forces[i].type == MBS_FORCE_WHEEL;
    tap_ok(m && wheels == 4 && m->road && m->road->nfeatures == 1 &&
               m->forces[0].tyre[MBS_TYRE_LINEAR_CKAPPA] == 2e4,
           "vehicle-simple.json: four wheels with their numbers, a road with a step %s",
           error ? error->message : "");
    g_clear_error(&error);
    mbs_model_free(m);
    m = load_wheel("\"road\": {\"mu\": 0.8, \"features\": [{\"type\": \"bump\", "
                   "\"diameter\": 0.1, \"position\": 2}, {\"type\": \"profile\", "
                   "\"points\": [[5, 0], [6, 0.1]]}]},", ", \"radius\": 0.31", &error);
    tap_ok(m && m->road && m->road->mu == 0.8 && m->road->nfeatures == 2 &&
               m->forces[0].axis[1] == 2.0 && m->forces[0].tyre[MBS_TYRE_LINEAR_RADIUS] == 0.31 &&
               m->forces[0].tyre[MBS_TYRE_LINEAR_STIFFNESS] == 2e5,
           "a wheel: its axis as given, its radius, the linear law's default stiffness, the road %s",
           error ? error->message : "");
    g_clear_error(&error);
    mbs_model_free(m);
    /* "side": mirrored when the wheel is on the other side than its tyre's data (the linear
     * law's count as left) */
    int mirror[3] = {-1, -1, -1};
    const char *sides[3] = {"", ", \"side\": \"left\"", ", \"side\": \"right\""};
    for (int i = 0; i < 3; ++i) {
        m = load_wheel("", sides[i], &error);
        if (m)
            mirror[i] = m->forces[0].tyre_mirror;
        g_clear_error(&error);
        mbs_model_free(m);
    }
    tap_ok(mirror[0] == 0 && mirror[1] == 0 && mirror[2] == 1,
           "a wheel's side: absent and left unmirrored, right mirrored (%d %d %d)", mirror[0],
           mirror[1], mirror[2]);
    /* "tyre_scaling": multipliers of the pac2002 law's factors, bound to parameters */
#define PAC ", \"tyre\": \"pac2002\", \"tyre_file\": \"" ESLABON_SOURCE_DIR \
            "/data/tyres/HMMWV_Pac02Tire.tir\""
    m = load_wheel("\"parameters\": {\"lmuy\": 1.25},",
                   PAC ", \"tyre_scaling\": {\"LMUY\": \"lmuy\", \"LKX\": 0.9}", &error);
    const MbsTyreModelClass *pac = mbs_tyre_model_class_by_name("pac2002");
    int iy = mbs_tyre_scaling_index(pac, "LMUY"), ix = mbs_tyre_scaling_index(pac, "LKX");
    int bound = 0;
    for (int b = 0; m && b < m->nbindings; ++b)
        bound += m->bindings[b].target.kind == MBS_ELEMENT_FORCE &&
                 m->bindings[b].target.offset ==
                     offsetof(MbsForce, tyre_scale) + (size_t)iy * sizeof(double);
    tap_ok(m && m->forces[0].tyre_scale[iy] == 1.25 && m->forces[0].tyre_scale[ix] == 0.9 &&
               m->forces[0].tyre_scale[mbs_tyre_scaling_index(pac, "LMUX")] == 1.0 && bound == 1,
           "tyre_scaling: LMUY bound to the parameter lmuy (1.25), LKX 0.9, the others 1 %s",
           error ? error->message : "");
    g_clear_error(&error);
    mbs_model_free(m);
    static const struct {
        const char *head, *tail, *want;
    } bad[] = {
        {"", ", \"tyre\": \"magic\"", "forces[0] 'tyre': 'tyre': unknown tyre law 'magic'"},
        {"", ", \"tyre_file\": \"x.tir\"", "'tyre_file': the linear tyre law reads no file"},
        {"", ", \"friction\": -1", "forces[0] 'tyre': 'friction' -1 must not be negative"},
        {"", ", \"side\": \"middle\"",
         "forces[0] 'tyre': 'side': 'middle' is not a side (expected left or right)"},
        {"", ", \"tyre_scaling\": {\"LMUY\": 1.1}",
         "'tyre_scaling': the tyre law 'linear' has no scaling factors"},
        {"", PAC ", \"tyre_scaling\": {\"LSGKP\": 1.1}",
         "'tyre_scaling': 'LSGKP' is not a scaling factor of the tyre law 'pac2002' (expected "
         "LFZO, LCX,"},
        {"", PAC ", \"tyre_scaling\": {\"LMUY\": -1}",
         "force 'tyre': tyre_scaling LMUY -1 must be positive"},
        {"", PAC ", \"tyre_scaling\": [1]", "'tyre_scaling' must be an object"},
        {"\"road\": {\"features\": [{\"type\": \"hill\"}]},", "",
         "road: features[0]: unknown road feature 'hill' (expected step, bump or profile)"},
        {"\"road\": {\"features\": [{\"type\": \"bump\", \"position\": 1}]},", "",
         "road: features[0] (bump): missing required field 'diameter'"},
        {"\"road\": {\"features\": [{\"type\": \"profile\", \"points\": [[1, 0], [0, 1]]}]},",
         "", "'points' must increase"},
    };
    for (size_t i = 0; i < G_N_ELEMENTS(bad); ++i) {
        m = load_wheel(bad[i].head, bad[i].tail, &error);
        tap_ok(!m && error && strstr(error->message, bad[i].want), "refused: %s",
               error ? error->message : "(loaded)");
        g_clear_error(&error);
        mbs_model_free(m);
    }
#undef PAC
}

static void check_misc_errors(void)
{
    GError *error = NULL;
    MbsModel *m = esl_model_load_file(BAD "does-not-exist.json", NULL, 0, &error);
    tap_ok(!m && error && error->code == ESL_MODEL_FILE_ERROR_READ &&
               g_str_has_prefix(error->message, "does-not-exist.json: "),
           "missing file: %s", error ? error->message : "");
    g_clear_error(&error);
    m = esl_model_load_string("", "empty.json", NULL, 0, &error);
    tap_ok(!m && error && strstr(error->message, "empty.json"), "empty input: %s",
           error ? error->message : "");
    g_clear_error(&error);
    m = esl_model_load_string("{\"a\": 1}", "other.json", NULL, 0, &error);
    tap_ok(!m && error && error->code == ESL_MODEL_FILE_ERROR_FORMAT &&
               strstr(error->message, "not an eslabon-model file"),
           "JSON of another kind: %s", error ? error->message : "");
    g_clear_error(&error);
    m = esl_model_load_string("{\"format\": \"eslabon-model\", \"version\": 1.0, \"bodies\": "
                              "[{\"name\": \"g\", \"ground\": true}]}", "v.json", NULL, 0, &error);
    tap_ok(m && m->nbodies == 1, "version 1.0 is version 1; a lone ground is a valid model");
    g_clear_error(&error);
    mbs_model_free(m);
    m = esl_model_load_string(NULL, NULL, NULL, 0, &error);
    tap_ok(!m && error, "NULL input is an error, not a crash");
    g_clear_error(&error);
}

/* Mutated and truncated versions of a valid model: no crash, and a failure always comes with
 * a message naming the file (under ASan/valgrind this is a small fuzz run). */
static void check_mutations(void)
{
    size_t len = strlen(param_model);
    char *buf = g_malloc(len + 1);
    GRand *rng = g_rand_new_with_seed(2014);
    int failures_named = 1, loaded = 0, runs = 0;
    static const char junk[] = "{}[]\",:0-9eE.+-truefalsenull \\\x01\xff";
    for (int i = 0; i < 3000; ++i, ++runs) {
        memcpy(buf, param_model, len + 1);
        int edits = 1 + g_rand_int_range(rng, 0, 3);
        for (int e = 0; e < edits; ++e)
            buf[g_rand_int_range(rng, 0, (gint32)len)] = junk[g_rand_int_range(rng, 0, sizeof junk - 1)];
        GError *error = NULL;
        MbsModel *m = esl_model_load_string(buf, "mut.json", NULL, 0, &error);
        if (m)
            loaded++;
        else if (!error || !g_str_has_prefix(error->message, "mut.json: "))
            failures_named = 0;
        g_clear_error(&error);
        mbs_model_free(m);
    }
    size_t last = (size_t)(strrchr(param_model, '}') - param_model);
    for (size_t cut = 0; cut <= last; ++cut, ++runs) {
        memcpy(buf, param_model, cut);
        buf[cut] = '\0';
        GError *error = NULL;
        MbsModel *m = esl_model_load_string(buf, "cut.json", NULL, 0, &error);
        if (m || !error || !g_str_has_prefix(error->message, "cut.json: "))
            failures_named = 0;
        g_clear_error(&error);
        mbs_model_free(m);
    }
    tap_ok(failures_named, "%d mutated/truncated inputs: no crash, every failure names the file "
           "(%d mutants still valid)", runs, loaded);
    g_rand_free(rng);
    g_free(buf);
}

int main(void)
{
    for (size_t i = 0; i < G_N_ELEMENTS(bad_cases); ++i)
        check_bad(&bad_cases[i]);
    check_all_fixtures_listed();
    check_four_bar();
    check_joint_position_and_velocity();
    check_slider_crank();
    check_bundled();
    check_parameters();
    check_rotated_box();
    check_point_velocity();
    check_planar();
    check_wheels();
    check_misc_errors();
    check_mutations();
    return tap_done();
}
