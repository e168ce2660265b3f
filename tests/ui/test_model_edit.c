/* Editing numbers of a model from the inspector (app/esl-model-edit.c), the code path the
 * window uses, without a display: a mass, an initial velocity, a stiffness, a parameter that
 * other values depend on, and impossible values that must leave the model unchanged; several
 * parameters set as one edit (the optimiser's Apply): the file reads back the same doubles, and
 * a name or value refused leaves nothing half-applied. */
#include <math.h>
#include <string.h>

#include "esl-model-edit.h"
#include "esl-model-file.h"
#include "tap.h"

static char *models_dir;

static char *read_model(const char *name)
{
    g_autofree char *path = g_build_filename(models_dir, name, NULL);
    char *text = NULL;
    if (!g_file_get_contents(path, &text, NULL, NULL))
        tap_ok(0, "read %s", path);
    return text;
}

static const EslModelField *find_field(GPtrArray *fields, const char *path)
{
    for (guint i = 0; i < fields->len; i++)
        if (g_str_equal(((EslModelField *)fields->pdata[i])->path, path))
            return fields->pdata[i];
    return NULL;
}

static void test_mass(MbsSettings *settings)
{
    g_autofree char *json = read_model("double-pendulum.json");
    MbsModel *m = esl_model_load_string(json, "double-pendulum.json", NULL, 0, NULL);
    g_autoptr(GPtrArray) fields = esl_model_edit_fields(m, json, ESL_ELEMENT_BODY, 1);
    const EslModelField *mass = find_field(fields, "bodies/1/mass");
    tap_ok(mass && mass->value == 1.0 && !mass->expression, "bar1 offers its mass (1 kg)");
    tap_ok(find_field(fields, "bodies/1/points/P/1") != NULL, "bar1 offers point P's y");
    g_autoptr(GPtrArray) ground = esl_model_edit_fields(m, json, ESL_ELEMENT_BODY, 0);
    tap_ok(ground->len == 0, "the ground has nothing to edit");

    g_autoptr(GError) error = NULL;
    g_autoptr(EslModelEdit) edit = esl_model_edit_apply(json, "double-pendulum.json",
                                                        "bodies/1/mass", 2.5, "penalty",
                                                        settings, &error);
    tap_ok(edit != NULL, "mass 2.5 kg accepted%s%s", error ? ": " : "",
           error ? error->message : "");
    if (edit) {
        tap_ok(edit->model->bodies[1].mass == 2.5, "the rebuilt model has the new mass");
        tap_close(edit->model->bodies[1].inertia[0], 2.5 * m->bodies[1].inertia[0], 1e-12,
                  "the slender-rod inertia follows the mass");
        tap_ok(edit->model->bodies[2].mass == 1.0, "the other bar is unchanged");
        MbsModel *again = esl_model_load_string(edit->json, "x.json", NULL, 0, NULL);
        tap_ok(again && again->bodies[1].mass == 2.5, "the edited JSON loads with the new mass");
        mbs_model_free(again);
        const double *pose = edit->poses + 12 * 2; /* x = R x_drawn + p */
        tap_ok(fabs(pose[0] - 1) < 1e-9 && fabs(pose[4] - 1) < 1e-9 && fabs(pose[9]) < 1e-9 &&
                   fabs(pose[10]) < 1e-9 && fabs(pose[11]) < 1e-9,
               "assembled pose of bar2: as drawn (R = I, p = 0)");
    }

    g_autofree char *before = g_strdup(json);
    g_clear_error(&error);
    EslModelEdit *bad = esl_model_edit_apply(json, "double-pendulum.json", "bodies/1/mass", -1,
                                             "penalty", settings, &error);
    tap_ok(bad == NULL && error && strstr(error->message, "must be zero or positive"),
           "negative mass refused: %s", error ? error->message : "(no error)");
    tap_ok(strcmp(before, json) == 0 && m->bodies[1].mass == 1.0,
           "the model file and the model are unchanged");
    esl_model_edit_free(bad);
    mbs_model_free(m);
}

static void test_initial_velocity(MbsSettings *settings)
{
    g_autofree char *json = read_model("double-pendulum.json");
    MbsModel *m = esl_model_load_string(json, "double-pendulum.json", NULL, 0, NULL);
    g_autoptr(GPtrArray) fields = esl_model_edit_fields(m, json, ESL_ELEMENT_JOINT, 0);
    const EslModelField *v = find_field(fields, "initial/0/0/velocity");
    tap_ok(v && v->value == 0.0, "joint O offers its initial velocity (0)");
    g_autoptr(GError) error = NULL;
    g_autoptr(EslModelEdit) edit = esl_model_edit_apply(json, "dp.json", "initial/0/0/velocity",
                                                        3.0, "penalty", settings, &error);
    tap_ok(edit && edit->model->ninitial == 1 && edit->model->initial[0].value == 3.0 &&
               edit->model->initial[0].is_velocity,
           "an initial entry is added with the velocity%s%s", error ? ": " : "",
           error ? error->message : "");
    if (edit) {
        g_autoptr(GPtrArray) after = esl_model_edit_fields(edit->model, edit->json,
                                                           ESL_ELEMENT_JOINT, 0);
        const EslModelField *v2 = find_field(after, "initial/0/0/velocity");
        tap_ok(v2 && v2->value == 3.0, "the field shows the new initial velocity");
    }
    mbs_model_free(m);
}

static void test_force_and_parameter(MbsSettings *settings)
{
    g_autofree char *json = read_model("slider-crank.json");
    MbsModel *m = esl_model_load_string(json, "slider-crank.json", NULL, 0, NULL);
    g_autoptr(GError) error = NULL;
    g_autoptr(EslModelEdit) k = esl_model_edit_apply(json, "slider-crank.json",
                                                     "forces/0/stiffness", 1000, "penalty",
                                                     settings, &error);
    tap_ok(k && k->model->forces[0].stiffness == 1000 && k->model->forces[0].damping == 5,
           "spring stiffness 1000 N/m accepted");
    g_autoptr(GPtrArray) pfields = esl_model_edit_fields(m, json, ESL_ELEMENT_BODY, 2);
    const EslModelField *yB = find_field(pfields, "bodies/2/points/B/1");
    tap_ok(yB && g_strcmp0(yB->expression, "yB") == 0,
           "a coordinate written as an expression says so");

    int r = -1;
    for (int i = 0; i < m->nparameters; i++)
        if (g_str_equal(m->parameters[i].name, "r"))
            r = i;
    g_autoptr(GPtrArray) rfields = esl_model_edit_fields(m, json, ESL_ELEMENT_PARAMETER, r);
    tap_ok(rfields->len == 1 && g_str_equal(((EslModelField *)rfields->pdata[0])->path,
                                            "parameters/r"),
           "parameter r offers its value");
    g_clear_error(&error);
    g_autoptr(EslModelEdit) p = esl_model_edit_apply(json, "slider-crank.json", "parameters/r",
                                                     0.3, "penalty", settings, &error);
    tap_ok(p != NULL, "r = 0.3 accepted%s%s", error ? ": " : "", error ? error->message : "");
    if (p) {
        int b = mbs_model_find_body(p->model, "slider");
        tap_close(p->model->bodies[b].com[1], sqrt(0.36 - 0.09), 1e-12,
                  "the slider moves to sqrt(l^2 - r^2): dependent expressions re-evaluated");
    }
    g_clear_error(&error);
    EslModelEdit *bad = esl_model_edit_apply(json, "slider-crank.json", "parameters/r", 0.7,
                                             "penalty", settings, &error);
    tap_ok(bad == NULL && error, "r = 0.7 > l (no such slider-crank) refused: %s",
           error ? error->message : "(no error)");
    esl_model_edit_free(bad);
    g_clear_error(&error);
    bad = esl_model_edit_apply(json, "slider-crank.json", "forces/0/damping", -2, "penalty",
                               settings, &error);
    tap_ok(bad == NULL && error, "negative damping refused: %s",
           error ? error->message : "(no error)");
    esl_model_edit_free(bad);
    g_clear_error(&error);
    bad = esl_model_edit_apply(json, "slider-crank.json", "bodies/9/mass", 1, "penalty",
                               settings, &error);
    tap_ok(bad == NULL && error, "a path to nothing refused: %s",
           error ? error->message : "(no error)");
    esl_model_edit_free(bad);
    mbs_model_free(m);
}

/* A bar pivoting about X at O, held at its end A = (0, 1, 0) by a rod of 1 m to the ground point
 * S = (0, 1, 1). A rod of 1.2 m turns the bar until |A S| = 1.2; no turn gives 3 m (|A S| is at
 * most 1 + sqrt(2)): assembly fails. */
static const char rod_model[] =
    "{\"format\": \"eslabon-model\", \"version\": 1, \"name\": \"rod\","
    " \"gravity\": [0, 0, -9.81],"
    " \"bodies\": [{\"name\": \"ground\", \"ground\": true,"
    "   \"points\": {\"O\": [0, 0, 0], \"S\": [0, 1, 1]}},"
    "  {\"name\": \"bar\", \"mass\": 1, \"inertia\": {\"slender_rod\": [\"O\", \"A\"]},"
    "   \"points\": {\"O\": [0, 0, 0], \"A\": [0, 1, 0]}}],"
    " \"joints\": [{\"name\": \"O\", \"type\": \"revolute\", \"bodies\": [\"ground\", \"bar\"],"
    "   \"point\": \"O\", \"axis\": \"x\"},"
    "  {\"name\": \"R\", \"type\": \"rod\", \"bodies\": [\"ground\", \"bar\"],"
    "   \"points\": [\"S\", \"A\"]}]}";

static void test_rod_length(MbsSettings *settings)
{
    g_autoptr(GError) error = NULL;
    MbsModel *m = esl_model_load_string(rod_model, "rod.json", NULL, 0, &error);
    if (!tap_ok(m != NULL, "the rod model loads%s%s", error ? ": " : "",
                error ? error->message : ""))
        return;
    g_autoptr(GPtrArray) fields = esl_model_edit_fields(m, rod_model, ESL_ELEMENT_JOINT, 1);
    const EslModelField *length = find_field(fields, "joints/1/length");
    tap_ok(length && fabs(length->value - 1.0) < 1e-12, "the rod offers its length (1 m)");
    g_autoptr(EslModelEdit) edit = esl_model_edit_apply(rod_model, "rod.json", "joints/1/length",
                                                        1.2, "penalty", settings, &error);
    tap_ok(edit && edit->model->joints[1].length == 1.2, "length 1.2 m accepted%s%s",
           error ? ": " : "", error ? error->message : "");
    if (edit) {
        const double *R = edit->poses + 12, *p = R + 9; /* A = R (0, 1, 0) + p */
        double d[3];
        for (int k = 0; k < 3; k++)
            d[k] = R[3 * k + 1] + p[k] - (k == 0 ? 0 : 1);
        tap_close(sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]), 1.2, 1e-8,
                  "assembled: |A S| = 1.2 m");
    }
    g_clear_error(&error);
    EslModelEdit *bad = esl_model_edit_apply(rod_model, "rod.json", "joints/1/length", 3.0,
                                             "penalty", settings, &error);
    tap_ok(bad == NULL && error && strstr(error->message, "cannot assemble"),
           "length 3 m cannot be assembled: %s", error ? error->message : "(no error)");
    esl_model_edit_free(bad);
    g_clear_error(&error);
    bad = esl_model_edit_apply(rod_model, "rod.json", "joints/1/length", 0, "penalty", settings,
                               &error);
    tap_ok(bad == NULL && error, "length 0 refused: %s", error ? error->message : "(no error)");
    esl_model_edit_free(bad);
    mbs_model_free(m);
}

static void test_assembly_failure(MbsSettings *settings)
{
    g_autofree char *json = read_model("double-pendulum.json");
    g_autoptr(GError) error = NULL;
    EslModelEdit *bad = esl_model_edit_apply(json, "dp.json", "bodies/1/mass", 2, "no-such",
                                             settings, &error);
    tap_ok(bad == NULL && error && strstr(error->message, "cannot assemble"),
           "a formulation that cannot assemble: %s", error ? error->message : "(no error)");
    esl_model_edit_free(bad);
}

/* Five-bar's springs set to an optimum (values with all 17 digits, over expressions). */
static void test_parameters(void)
{
    g_autofree char *json = read_model("five-bar.json");
    const char *names[] = {"Ls1", "Ls2"};
    const double values[] = {2.4319235726331547, 1.8448688864713713};
    g_autoptr(GError) error = NULL;
    g_autofree char *text = esl_model_edit_set_parameters(json, "five-bar.json", names, values, 2,
                                                         &error);
    MbsModel *m = text ? esl_model_load_string(text, "five-bar.json", NULL, 0, &error) : NULL;
    int ls1 = m ? mbs_model_find_parameter(m, "Ls1") : -1;
    int ls2 = m ? mbs_model_find_parameter(m, "Ls2") : -1;
    tap_ok(m && ls1 >= 0 && ls2 >= 0 && m->parameters[ls1].value == values[0] &&
               m->parameters[ls2].value == values[1] && mbs_model_parameter_is_free(m, ls1),
           "Ls1, Ls2 set in one edit read back as the same doubles (%.17g, %.17g)%s",
           m ? m->parameters[ls1].value : NAN, m ? m->parameters[ls2].value : NAN,
           error ? error->message : "");
    mbs_model_free(m);

    const char *unknown[] = {"Ls1", "Lx"};
    g_clear_error(&error);
    char *none = esl_model_edit_set_parameters(json, "five-bar.json", unknown, values, 2, &error);
    tap_ok(!none && error && strstr(error->message, "Lx"),
           "a name the file has not refuses the whole edit: %s", error ? error->message : "");
    g_free(none);

    const char *geometry[] = {"Ls1", "L_A1"};
    const double bad[] = {2.0, 5.0};
    g_clear_error(&error);
    none = esl_model_edit_set_parameters(json, "five-bar.json", geometry, bad, 2, &error);
    tap_ok(!none && error && strstr(error->message, "h3"),
           "a value the loader refuses (L_A1 = 5) refuses the whole edit: %s",
           error ? error->message : "");
    g_free(none);
}

int main(int argc, char **argv)
{
    models_dir = argc > 1 ? argv[1] : "models";
    MbsSettings settings;
    mbs_settings_defaults(&settings);
    test_mass(&settings);
    test_initial_velocity(&settings);
    test_force_and_parameter(&settings);
    test_rod_length(&settings);
    test_assembly_failure(&settings);
    test_parameters();
    return tap_done();
}
