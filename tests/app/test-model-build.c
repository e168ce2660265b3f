/* Building a mechanism (app/esl-model-build.c): a four-bar from an empty model, its degrees of
 * freedom as `eslabon-cli info` counts them, shared points, removal with what depends on it,
 * undo/redo, and the round trip model -> file -> model for every bundled model and an edited
 * one. */
#include <glib/gstdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h> /* symlink */

#include "esl-model-build.h"
#include "esl-model-edit.h"
#include "esl-model-file.h"
#include "esl-models-dir.h"
#include "mbs_constraints.h"
#include "mbs_force.h"
#include "build-spec.h"
#include "tap.h"

#define MODELS ESLABON_SOURCE_DIR "/models/"

G_DEFINE_AUTOPTR_CLEANUP_FUNC(MbsModel, mbs_model_free)

static char *edit(const char *json, const char *kind, GVariant *spec, GError **error)
{
    g_autoptr(GVariant) owned = g_variant_ref_sink(spec);
    return esl_model_build_edit(json, kind, owned, error);
}

/* A planar four-bar (X = 0 plane, revolutes about X): ground O-C, crank O-A, coupler A-B,
 * rocker B-C; the crank driven at 2 rad/s. Every step is an edit of the text. */
static char *four_bar(GError **error)
{
    char *json = esl_model_build_empty("four-bar-built");
    static const double crank[6] = {0, 0, 0, 0, 0, 1};
    static const double coupler[6] = {0, 0, 1, 0, 3, 1.5};
    static const double rocker[6] = {0, 3, 1.5, 0, 4, 0};
    struct {
        const char *name, *a, *b;
        const double *ends;
    } bars[] = {{"crank", "O", "A", crank}, {"coupler", "A", "B", coupler},
                {"rocker", "B", "C", rocker}};
    for (size_t i = 0; json && i < G_N_ELEMENTS(bars); i++) {
        g_autofree char *before = json;
        json = edit(before, "body",
                    dict("name", g_variant_new_string(bars[i].name), "shape",
                         g_variant_new_string("bar"), "density", g_variant_new_double(2.0),
                         "ends", doubles(6, bars[i].ends), "end-names",
                         pair(bars[i].a, bars[i].b), NULL),
                    error);
    }
    struct {
        const char *name, *b1, *b2;
        double at[3];
    } joints[] = {{"O", "ground", "crank", {0, 0, 0}},
                  {"A", "crank", "coupler", {0, 0, 1}},
                  {"B", "coupler", "rocker", {0, 3, 1.5}},
                  {"C", "ground", "rocker", {0, 4, 0}}};
    for (size_t i = 0; json && i < G_N_ELEMENTS(joints); i++) {
        g_autofree char *before = json;
        json = edit(before, "joint",
                    dict("name", g_variant_new_string(joints[i].name), "type",
                         g_variant_new_string("revolute"), "bodies",
                         pair(joints[i].b1, joints[i].b2), "location", doubles(3, joints[i].at),
                         "axis", g_variant_new_string("x"), NULL),
                    error);
    }
    if (json) {
        g_autofree char *before = json;
        const double c[2] = {0, 2};
        json = edit(before, "driver",
                    dict("joint", g_variant_new_string("O"), "type",
                         g_variant_new_string("polynomial"), "coefficients", doubles(2, c), NULL),
                    error);
    }
    return json;
}

static MbsSettings default_settings(void)
{
    MbsSettings s;
    mbs_settings_defaults(&s);
    return s;
}

static void test_four_bar(void)
{
    g_autoptr(GError) error = NULL;
    g_autofree char *empty = esl_model_build_empty("nothing");
    MbsSettings settings = default_settings();
    g_autoptr(EslModelCheck) none = esl_model_check_run(empty, "nothing.json", "penalty", &settings);
    tap_ok(none->model && none->model->nbodies == 1 && none->model->bodies[0].is_ground &&
               none->model->gravity[2] == -9.81 && none->dof == 0,
           "an empty model is a ground and the default gravity, and loads (%s, %d dof)",
           none->error ? none->error : "no error", none->dof);

    /* A body not yet joined: the text does not load, the check names the body and still has a
     * draft to draw. */
    const double ends[6] = {0, 0, 0, 0, 0, 1};
    g_autofree char *loose =
        edit(empty, "body",
             dict("name", g_variant_new_string("crank"), "shape", g_variant_new_string("bar"),
                  "density", g_variant_new_double(2.0), "ends", doubles(6, ends), NULL),
             &error);
    g_autoptr(EslModelCheck) c = esl_model_check_run(loose, "loose.json", "penalty", &settings);
    tap_ok(!c->model && c->error && c->section == ESL_CHECK_SECTION_BODY && c->index == 1 &&
               c->draft && c->draft->nbodies == 2,
           "a body without a joint: the error is at the body (%s)", c->error ? c->error : "");
    tap_ok(c->draft && fabs(c->draft->bodies[1].mass - 2.0) < 1e-15 &&
               fabs(c->draft->bodies[1].inertia[0] - 2.0 / 12.0) < 1e-15,
           "a 1 m bar of 2 kg/m: 2 kg and m L^2/12 = 1/6 kg m^2 about a normal axis (%.17g)",
           c->draft ? c->draft->bodies[1].inertia[0] : NAN);

    g_autofree char *json = four_bar(&error);
    tap_ok(json != NULL, "a four-bar is built edit by edit%s%s", error ? ": " : "",
           error ? error->message : "");
    if (!json)
        return;
    g_autoptr(EslModelCheck) built = esl_model_check_run(json, "built.json", "penalty", &settings);
    tap_ok(built->model != NULL, "the four-bar loads and assembles%s%s",
           built->error ? ": " : "", built->error ? built->error : "");
    if (!built->model)
        return;
    /* Four revolutes about X in a plane: 3 tree coordinates; the cut revolute's 5 equations
     * have rank 2 (the 3 out-of-plane ones hold for any planar motion), the driver 1: rank 3,
     * no degree of freedom left, 3 redundant equations. */
    tap_ok(built->ncoords == 3 && built->rank == 3 && built->dof == 0 && built->redundant == 3,
           "driven planar four-bar: %d coordinates, rank %d, %d dof, %d redundant (3, 3, 0, 3)",
           built->ncoords, built->rank, built->dof, built->redundant);
    double worst = 0;
    for (int j = 0; j < built->model->njoints; j++)
        worst = fmax(worst, built->violations[j]);
    tap_ok(worst < 1e-9, "assembled: largest joint violation %.3g < 1e-9", worst);
    /* The joint points are shared: one point of two bodies, by name. */
    int a_crank = mbs_model_find_point(built->model, 1, "A");
    int a_coupler = mbs_model_find_point(built->model, 2, "A");
    int c_ground = mbs_model_find_point(built->model, 0, "C");
    tap_ok(a_crank >= 0 && a_coupler >= 0 && c_ground >= 0,
           "a joint at a point of one body gives that point to the other (ground gets C)");

    /* Moving the shared point B of the coupler moves it for the rocker and the joint. */
    int coupler = mbs_model_find_body(built->model, "coupler");
    g_autofree char *path = g_strdup_printf("bodies/%d/points/B/2", coupler);
    g_autofree char *moved = esl_model_edit_set_number(json, path, 1.25, &error);
    g_autoptr(EslModelCheck) after = moved ? esl_model_check_run(moved, "m.json", "penalty",
                                                                 &settings)
                                           : NULL;
    const MbsModel *m = after ? after->model : NULL;
    int rocker = m ? mbs_model_find_body(m, "rocker") : -1;
    int jb = m ? mbs_model_find_joint(m, "B") : -1;
    int b_rocker = m ? mbs_model_find_point(m, rocker, "B") : -1;
    tap_ok(m && b_rocker >= 0 && m->points[b_rocker].pos[2] == 1.25 &&
               m->joints[jb].point1[2] == 1.25,
           "moving the coupler's B moves the rocker's B and joint B (z = 1.25)");
    int a_moved = m ? mbs_model_find_point(m, 1, "A") : -1;
    tap_ok(m && a_moved >= 0 && m->points[a_moved].pos[2] == 1.0,
           "the other joint points stay where they were");

    /* In a bundled file the shared point C of the spatial four-bar is written as expressions
     * on the coupler and the follower: it is one point all the same. */
    g_autofree char *spatial = NULL;
    g_file_get_contents(MODELS "four-bar-spatial.json", &spatial, NULL, NULL);
    g_autofree char *c_moved =
        spatial ? esl_model_edit_set_number(spatial, "bodies/2/points/C/2", 0.25, &error) : NULL;
    g_autoptr(MbsModel) sm = c_moved ? esl_model_load_string(c_moved, "s.json", NULL, 0, NULL)
                                     : NULL;
    int c_follower = sm ? mbs_model_find_point(sm, 3, "C") : -1;
    int b_coupler = sm ? mbs_model_find_point(sm, 2, "B") : -1;
    tap_ok(c_follower >= 0 && sm->points[c_follower].pos[2] == 0.25 &&
               sm->points[b_coupler].pos[2] == 1.5 &&
               fabs(sm->points[c_follower].pos[1] - 2 * sqrt(1 - 0.7625 * 0.7625)) < 1e-15,
           "four-bar-spatial: the coupler's C moved to z = 0.25 moves the follower's C (its y "
           "still 2 sin t), not B");

    /* Removing a body removes its joints (and nothing else). */
    g_autofree char *removed =
        edit(json, "remove",
             dict("section", g_variant_new_string("bodies"), "name",
                  g_variant_new_string("rocker"), NULL),
             &error);
    g_autoptr(EslModelCheck) open = esl_model_check_run(removed, "r.json", "penalty", &settings);
    tap_ok(open->model && open->model->nbodies == 3 && open->model->njoints == 2 &&
               mbs_model_find_joint(open->model, "B") < 0 && open->model->joints[0].driven,
           "removing the rocker removes joints B and C: a driven crank and coupler remain");

    /* Forces from the classes' fields; removing the joint removes the rsda on it. */
    g_autofree char *with_spring =
        edit(json, "force",
             dict("type", g_variant_new_string("rsda"), "name", g_variant_new_string("spring"),
                  "joint", g_variant_new_string("C"), "stiffness", g_variant_new_double(30.0),
                  NULL),
             &error);
    g_autoptr(EslModelCheck) sprung =
        with_spring ? esl_model_check_run(with_spring, "s.json", "penalty", &settings) : NULL;
    tap_ok(sprung && sprung->model && sprung->model->nforces == 1 &&
               sprung->model->forces[0].stiffness == 30.0 &&
               sprung->model->forces[0].type == MBS_FORCE_RSDA,
           "an rsda with stiffness 30 on joint C");
    g_autofree char *no_joint =
        with_spring ? edit(with_spring, "remove",
                           dict("section", g_variant_new_string("joints"), "name",
                                g_variant_new_string("C"), NULL),
                           &error)
                    : NULL;
    g_autoptr(EslModelCheck) nj =
        no_joint ? esl_model_check_run(no_joint, "n.json", "penalty", &settings) : NULL;
    tap_ok(nj && nj->model && nj->model->nforces == 0 && nj->model->njoints == 3 &&
               nj->dof == 2,
           "removing joint C removes its rsda; the open chain (crank driven) has 2 dof");
    g_autofree char *bad = edit(json, "force",
                                dict("type", g_variant_new_string("tsda"), "bodies",
                                     pair("crank", "nobody"), NULL),
                                &error);
    tap_ok(!bad && error && strstr(error->message, "two bodies"),
           "a spring-damper on a missing body is refused (%s)", error ? error->message : "");
}

static void test_history(void)
{
    g_autoptr(GError) error = NULL;
    g_autofree char *json = four_bar(&error);
    g_autoptr(EslModelHistory) h = esl_model_history_new(json);
    g_autofree char *heavier = esl_model_edit_set_number(json, "bodies/1/mass", 7.0, &error);
    esl_model_history_push(h, g_strdup(heavier), "mass");
    g_autofree char *gravity = edit(heavier, "gravity",
                                    dict("vector", doubles(3, (double[]){0, -9.81, 0}), NULL),
                                    &error);
    esl_model_history_push(h, g_strdup(gravity), "gravity");
    tap_ok(g_strcmp0(esl_model_history_undo_label(h), "gravity") == 0 &&
               !esl_model_history_redo_label(h),
           "two edits: Undo names the last one");
    tap_ok(esl_model_history_undo(h) && g_str_equal(esl_model_history_get_json(h), heavier) &&
               esl_model_history_undo(h) && g_str_equal(esl_model_history_get_json(h), json) &&
               !esl_model_history_undo(h),
           "undo twice gives back the texts exactly, then there is nothing to undo");
    tap_ok(esl_model_history_redo(h) && g_str_equal(esl_model_history_get_json(h), heavier) &&
               g_strcmp0(esl_model_history_redo_label(h), "gravity") == 0,
           "redo gives back the edit");
    esl_model_history_push(h, g_strdup(json), "other");
    tap_ok(!esl_model_history_redo_label(h), "a new edit drops the redo list");
}

/* model -> file -> model: the text the editor writes loads back to the same model. */
static gboolean round_trip(const char *json, const char *origin, char **why)
{
    g_autoptr(GError) error = NULL;
    /* Files a model names (a wheel's "tyre_file", relative to the model file): the copy is
     * written in a folder laid out as the source's, models/ beside a link to data/. */
    g_autofree char *dir = g_dir_make_tmp("eslabon-build-XXXXXX", NULL);
    g_autofree char *models = g_build_filename(dir, "models", NULL);
    g_autofree char *data = g_build_filename(dir, "data", NULL);
    g_autofree char *file = g_build_filename(models, origin, NULL);
    g_mkdir(models, 0700);
    if (symlink(MODELS "../data", data) != 0)
        g_warning("round trip: cannot link %s", data);
    g_autoptr(MbsModel) a = NULL;
    if (g_file_set_contents(file, json, -1, &error))
        a = esl_model_load_file(file, NULL, 0, &error);
    g_unlink(file);
    if (!a) {
        *why = g_strdup(error->message);
        g_unlink(data), g_rmdir(models), g_rmdir(dir);
        return FALSE;
    }
    /* An edit that changes nothing in value: the editor's writer rewrites the whole text. */
    g_autofree char *rewritten = edit(json, "gravity",
                                      dict("vector", doubles(3, a->gravity), NULL), &error);
    g_autoptr(MbsModel) b = NULL;
    if (rewritten && g_file_set_contents(file, rewritten, -1, &error))
        b = esl_model_load_file(file, NULL, 0, &error);
    g_unlink(file);
    g_unlink(data);
    g_rmdir(models);
    g_rmdir(dir);
    if (!b) {
        *why = g_strdup(error ? error->message : "not written");
        return FALSE;
    }
    return esl_model_equal(a, b, why);
}

static void test_round_trip(void)
{
    g_autoptr(GDir) dir = g_dir_open(MODELS, 0, NULL);
    const char *name;
    int n = 0;
    while (dir && (name = g_dir_read_name(dir))) {
        if (!g_str_has_suffix(name, ".json"))
            continue;
        g_autofree char *path = g_build_filename(MODELS, name, NULL);
        g_autofree char *json = NULL;
        g_autofree char *why = NULL;
        g_file_get_contents(path, &json, NULL, NULL);
        /* Decided before the message is made: the arguments' order of evaluation is unspecified. */
        gboolean same = json && round_trip(json, name, &why);
        tap_ok(same, "round trip of %s%s%s", name, why ? ": " : "", why ? why : "");
        n++;
    }
    tap_ok(n >= 7, "%d bundled models", n);
    g_autoptr(GError) error = NULL;
    g_autofree char *built = four_bar(&error);
    g_autofree char *edited =
        built ? esl_model_edit_set_number(built, "bodies/2/points/B/1", 0.1 + 2.9, &error) : NULL;
    g_autofree char *with_force =
        edited ? edit(edited, "force",
                      dict("type", g_variant_new_string("tsda"), "bodies",
                           pair("ground", "rocker"), "points", pair("C", "B"), "stiffness",
                           g_variant_new_double(1.0 / 3.0), "damping", g_variant_new_double(0.1),
                           NULL),
                      &error)
               : NULL;
    g_autofree char *why = NULL;
    tap_ok(with_force && round_trip(with_force, "edited.json", &why),
           "round trip of an edited built model (1/3, 0.1 + 2.9 kept to the last bit)%s%s",
           why ? ": " : "", why ? why : "");
    /* The comparison itself sees a difference of one bit. */
    g_autoptr(MbsModel) a = esl_model_load_string(built, "a.json", NULL, 0, NULL);
    g_autofree char *nudged = esl_model_edit_set_number(built, "bodies/1/mass",
                                                        nextafter(a->bodies[1].mass, 10), NULL);
    g_autoptr(MbsModel) b = esl_model_load_string(nudged, "a.json", NULL, 0, NULL);
    g_autofree char *difference = NULL;
    tap_ok(!esl_model_equal(a, b, &difference) && difference && strstr(difference, "crank"),
           "a mass one ulp off is a different model (%s)", difference ? difference : "");
}

typedef struct {
    GMainLoop *loop;
    EslModelCheck *result;
    GThread *worker;
} AsyncCheck;

static void on_checked(GObject *source, GAsyncResult *result, gpointer data)
{
    (void)source;
    AsyncCheck *ctx = data;
    ctx->result = esl_model_check_finish(result, NULL);
    g_main_loop_quit(ctx->loop);
}

/* The check runs on a worker; its result comes back to the main loop. */
static void test_async(void)
{
    g_autoptr(GError) error = NULL;
    g_autofree char *json = four_bar(&error);
    MbsSettings settings = default_settings();
    AsyncCheck ctx = {g_main_loop_new(NULL, FALSE), NULL, NULL};
    esl_model_check_async(json, "x.json", "penalty", &settings, NULL, on_checked, &ctx);
    g_main_loop_run(ctx.loop);
    g_autoptr(EslModelCheck) sync = esl_model_check_run(json, "x.json", "penalty", &settings);
    tap_ok(ctx.result && ctx.result->model && sync->model &&
               esl_model_equal(ctx.result->model, sync->model, NULL) &&
               ctx.result->dof == sync->dof && ctx.result->redundant == sync->redundant &&
               memcmp(ctx.result->poses, sync->poses, sizeof(double) * 12 * 4) == 0,
           "the worker's check is the same as on the calling thread (%.1f ms there)",
           ctx.result ? ctx.result->seconds * 1e3 : NAN);
    esl_model_check_free(ctx.result);
    g_main_loop_unref(ctx.loop);
}

/* Inputs of the wrong kind, size or name are refused with a message; nothing crashes. */
static void test_bad_inputs(void)
{
    g_autoptr(GError) error = NULL;
    g_autofree char *json = four_bar(&error);
    const double two[2] = {0, 1}, ends[6] = {0, 0, 0, 0, 1, 0};
    char long_name[MBS_NAME_MAX + 2];
    memset(long_name, 'x', sizeof long_name - 1);
    long_name[sizeof long_name - 1] = 0;
    struct {
        const char *kind, *why;
        GVariant *spec;
    } bad[] = {
        {"body", "ends of 2 numbers",
         dict("name", g_variant_new_string("b"), "shape", g_variant_new_string("bar"), "mass",
              g_variant_new_double(1), "ends", doubles(2, two), NULL)},
        {"body", "ends as a string",
         dict("name", g_variant_new_string("b"), "shape", g_variant_new_string("bar"), "mass",
              g_variant_new_double(1), "ends", g_variant_new_string("0 0 0"), NULL)},
        {"body", "both mass and density",
         dict("name", g_variant_new_string("b"), "shape", g_variant_new_string("bar"), "mass",
              g_variant_new_double(1), "density", g_variant_new_double(1), "ends",
              doubles(6, ends), NULL)},
        {"body", "a name already used",
         dict("name", g_variant_new_string("crank"), "shape", g_variant_new_string("bar"),
              "mass", g_variant_new_double(1), "ends", doubles(6, ends), NULL)},
        {"body", "a name too long",
         dict("name", g_variant_new_string(long_name), "shape", g_variant_new_string("bar"),
              "mass", g_variant_new_double(1), "ends", doubles(6, ends), NULL)},
        {"body", "an unknown shape",
         dict("name", g_variant_new_string("b"), "shape", g_variant_new_string("cone"), "mass",
              g_variant_new_double(1), NULL)},
        {"joint", "one body twice",
         dict("name", g_variant_new_string("J"), "type", g_variant_new_string("spherical"),
              "bodies", pair("crank", "crank"), "point", g_variant_new_string("A"), NULL)},
        {"joint", "a point of neither body",
         dict("name", g_variant_new_string("J"), "type", g_variant_new_string("spherical"),
              "bodies", pair("crank", "rocker"), "point", g_variant_new_string("Q"), NULL)},
        {"joint", "a revolute without its axis",
         dict("name", g_variant_new_string("J"), "type", g_variant_new_string("revolute"),
              "bodies", pair("crank", "rocker"), "point", g_variant_new_string("A"), NULL)},
        {"joint", "an unknown type",
         dict("name", g_variant_new_string("J"), "type", g_variant_new_string("hinge"),
              "bodies", pair("crank", "rocker"), NULL)},
        {"force", "an unknown class", dict("type", g_variant_new_string("magnet"), NULL)},
        {"force", "an rsda on no joint",
         dict("type", g_variant_new_string("rsda"), "joint", g_variant_new_string("Z"), NULL)},
        {"driver", "a polynomial of 9 coefficients",
         dict("joint", g_variant_new_string("O"), "type", g_variant_new_string("polynomial"),
              "coefficients", doubles(9, (double[9]){0}), NULL)},
        {"remove", "the ground",
         dict("section", g_variant_new_string("bodies"), "name", g_variant_new_string("ground"),
              NULL)},
        {"remove", "an unknown section",
         dict("section", g_variant_new_string("points"), "name", g_variant_new_string("A"),
              NULL)},
        {"gravity", "a vector of 2", dict("vector", doubles(2, two), NULL)},
        {"teleport", "an unknown edit", dict("name", g_variant_new_string("x"), NULL)},
    };
    for (size_t i = 0; i < G_N_ELEMENTS(bad); i++) {
        g_clear_error(&error);
        g_autofree char *out = edit(json, bad[i].kind, bad[i].spec, &error);
        tap_ok(!out && error && error->message[0], "%s: %s is refused (%s)", bad[i].kind,
               bad[i].why, error ? error->message : "accepted");
    }
}

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The 7 x 15 lattice: the check counts as `eslabon-cli info` does; the UI thread's part of an
 * inspector edit (text + load) against the old synchronous path (text + load + assembly) and
 * the worker's check, medians of 5 runs in this process (docs/benchmarks.md). */
static void test_lattice(void)
{
    g_autofree char *json = NULL;
    g_file_get_contents(MODELS "multi-four-bar-7x15.json", &json, NULL, NULL);
    MbsSettings settings = default_settings();
    g_autoptr(EslModelCheck) c = json ? esl_model_check_run(json, "7x15.json", "penalty", &settings)
                                      : NULL;
    g_autoptr(MbsModel) m = json ? esl_model_load_string(json, "7x15.json", NULL, 0, NULL) : NULL;
    int rank = m ? mbs_constraints_rank(m, 0.0, NULL) : -2;
    tap_ok(c && c->model && c->rank == rank && c->dof == mbs_model_ncoords(m) - rank &&
               c->redundant == mbs_model_nconstraints(m) - rank,
           "7x15 lattice: %d dof, %d redundant, as eslabon-cli info (rank %d)", c ? c->dof : -1,
           c ? c->redundant : -1, rank);
    enum { RUNS = 5 };
    double ui_before[RUNS], ui_now[RUNS], worker[RUNS];
    for (int i = 0; json && i < RUNS; i++) {
        gint64 t0 = g_get_monotonic_time();
        EslModelEdit *e = esl_model_edit_apply(json, "7x15.json", "bodies/1/mass", 1.5 + i,
                                               "penalty", &settings, NULL);
        gint64 t1 = g_get_monotonic_time();
        char *text = esl_model_edit_set_number(json, "bodies/1/mass", 1.5 + i, NULL);
        MbsModel *loaded = esl_model_load_string(text, "7x15.json", NULL, 0, NULL);
        gint64 t2 = g_get_monotonic_time();
        EslModelCheck *check = esl_model_check_run(text, "7x15.json", "penalty", &settings);
        gint64 t3 = g_get_monotonic_time();
        ui_before[i] = (double)(t1 - t0) * 1e-3;
        ui_now[i] = (double)(t2 - t1) * 1e-3;
        worker[i] = (double)(t3 - t2) * 1e-3;
        esl_model_edit_free(e);
        g_free(text);
        mbs_model_free(loaded);
        esl_model_check_free(check);
    }
    qsort(ui_before, RUNS, sizeof(double), compare_doubles);
    qsort(ui_now, RUNS, sizeof(double), compare_doubles);
    qsort(worker, RUNS, sizeof(double), compare_doubles);
    tap_diag("7x15 edit, medians of %d: UI thread before %.1f ms (text, load, assembly), now "
             "%.1f ms (text, load; ratio %.2f); worker check %.1f ms (load, rank, assembly)",
             RUNS, ui_before[RUNS / 2], ui_now[RUNS / 2], ui_now[RUNS / 2] / ui_before[RUNS / 2],
             worker[RUNS / 2]);
}

/* Removing a body or a joint removes the objective terms that read it, and the objectives left
 * without a term: the model still loads (before, it failed on an unknown body). */
static void test_removal_objectives(void)
{
    g_autofree char *five = NULL;
    g_file_get_contents(MODELS "five-bar.json", &five, NULL, NULL);
    GString *text = g_string_new(five);
    const char *extra =
        "\"objectives\": [\n"
        "    {\"name\": \"mixed\", \"integrand\": [{\"quantity\": \"angular_velocity\", "
        "\"body\": \"A1\"}, {\"quantity\": \"velocity\", \"body\": \"23\", \"point\": \"3\"}],"
        " \"final\": [{\"quantity\": \"joint_coordinate\", \"joint\": \"2\", "
        "\"measure\": \"value\"}]},";
    g_string_replace(text, "\"objectives\": [", extra, 1);
    g_autofree char *json = g_string_free(text, FALSE);
    g_autoptr(GError) error = NULL;
    g_autoptr(MbsModel) before = esl_model_load_string(json, "f.json", NULL, 0, NULL);
    tap_ok(before && before->nobjectives == 4 && before->nobjective_terms == 6,
           "five-bar with an objective of three terms on A1, 23 and joint 2: 4 objectives");

    g_autofree char *no12 = edit(json, "remove",
                                 dict("section", g_variant_new_string("bodies"), "name",
                                      g_variant_new_string("12"), NULL),
                                 &error);
    g_autoptr(GError) load_error = NULL;
    g_autoptr(MbsModel) m12 =
        no12 ? esl_model_load_string(no12, "f.json", NULL, 0, &load_error) : NULL;
    /* body 12 goes with joints 1 and 2: psi1-3 (point 2 of 12) and mixed's final term */
    int mixed = m12 ? mbs_model_find_objective(m12, "mixed") : -1;
    tap_ok(m12 && m12->nobjectives == 1 && mixed == 0 && m12->objectives[0].nterms == 2,
           "removing body 12 removes psi1-3 and the term on joint 2; the model loads (%s)",
           load_error ? load_error->message : "loaded");

    g_autofree char *no23 = no12 ? edit(no12, "remove",
                                        dict("section", g_variant_new_string("bodies"), "name",
                                             g_variant_new_string("23"), NULL),
                                        &error)
                                 : NULL;
    g_autoptr(MbsModel) m23 = no23 ? esl_model_load_string(no23, "f.json", NULL, 0, NULL) : NULL;
    tap_ok(m23 && m23->nobjectives == 1 && m23->objectives[0].nterms == 1 &&
               m23->objective_terms[m23->objectives[0].first_term].quantity ==
                   MBS_QUANTITY_ANGULAR_VELOCITY,
           "then removing body 23 leaves mixed with its term on A1");

    g_autofree char *noA1 = no23 ? edit(no23, "remove",
                                        dict("section", g_variant_new_string("bodies"), "name",
                                             g_variant_new_string("A1"), NULL),
                                        &error)
                                 : NULL;
    g_autoptr(MbsModel) mA1 = noA1 ? esl_model_load_string(noA1, "f.json", NULL, 0, NULL) : NULL;
    tap_ok(mA1 && mA1->nobjectives == 0 && noA1 && !strstr(noA1, "\"objectives\""),
           "and removing A1 leaves no objective, and no empty objectives member");

    g_autofree char *no_joint = edit(json, "remove",
                                     dict("section", g_variant_new_string("joints"), "name",
                                          g_variant_new_string("2"), NULL),
                                     &error);
    g_autoptr(MbsModel) mj =
        no_joint ? esl_model_load_string(no_joint, "f.json", NULL, 0, NULL) : NULL;
    mixed = mj ? mbs_model_find_objective(mj, "mixed") : -1;
    tap_ok(mj && mj->nobjectives == 4 && mixed >= 0 && mj->objectives[mixed].nterms == 2,
           "removing joint 2 removes the term on it alone");
}

int main(void)
{
    test_four_bar();
    test_history();
    test_round_trip();
    test_async();
    test_bad_inputs();
    test_removal_objectives();
    test_lattice();
    return tap_done();
}
