/* Studies: the case manifest, one case into its shard, a local pool of processes; see
 * esl-study.h. */
#include "esl-study.h"
#include "eslabon-config.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <math.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "esl-model-file.h"
#include "esl-project.h"
#include "esl-run-recorder.h"
#include "esl-settings-json.h"
#include "esl-variables.h"
#include "mbs_clock.h"
#include "mbs_run.h"

G_DEFINE_QUARK(esl-study-error-quark, esl_study_error)

#define STUDY_FORMAT "eslabon-study"
#define STUDY_VERSION 1
#define SAMPLES_MAX 4000 /* stored per run, as `eslabon-cli run --project` */

static const char *const design_names[] = {"full", "lhs", "random"};
G_STATIC_ASSERT(G_N_ELEMENTS(design_names) == ESL_STUDY_N_DESIGNS);

const char *esl_study_design_name(EslStudyDesign design)
{
    return (unsigned)design < G_N_ELEMENTS(design_names) ? design_names[design] : "?";
}

int esl_study_design_from_name(const char *name)
{
    for (guint i = 0; name && i < G_N_ELEMENTS(design_names); i++)
        if (strcmp(name, design_names[i]) == 0)
            return (int)i;
    return -1;
}

void esl_study_free(EslStudy *study)
{
    if (!study)
        return;
    g_free(study->manifest_path);
    g_free(study->sha256);
    g_free(study->model_name);
    g_free(study->model_path);
    g_free(study->model_text);
    g_free(study->model_sha256);
    for (int j = 0; j < study->nparameters; j++)
        g_free(study->parameters[j].name);
    g_free(study->parameters);
    g_free(study->formulation);
    g_strfreev(study->objectives);
    g_free(study->values);
    g_free(study);
}

static gboolean parse_number(const char *text, double *out)
{
    char *end = NULL;
    if (!text || !*text)
        return FALSE;
    *out = g_ascii_strtod(text, &end);
    return end && *end == '\0' && isfinite(*out);
}

gboolean esl_study_parameter_parse(const char *spec, EslStudyDesign design,
                                   EslStudyParameter *p, GError **error)
{
    const char *eq = strchr(spec, '=');
    g_auto(GStrv) parts = eq ? g_strsplit(eq + 1, ":", -1) : NULL;
    guint n = parts ? g_strv_length(parts) : 0;
    double levels = 0;
    gboolean full = design == ESL_STUDY_DESIGN_FULL;
    gboolean ok = eq && eq != spec && (n == 2 || n == 3) && parse_number(parts[0], &p->lower) &&
                  parse_number(parts[1], &p->upper) &&
                  (n == 2 || (parse_number(parts[2], &levels) && levels == floor(levels) &&
                              levels >= 1 && levels <= 100000)) &&
                  (!full || n == 3) && p->lower <= p->upper;
    if (!ok) {
        g_set_error(error, ESL_STUDY_ERROR, ESL_STUDY_ERROR_INVALID,
                    "--parameter '%s': expected NAME=LOWER:UPPER%s with LOWER <= UPPER", spec,
                    full ? ":LEVELS (the full design takes the levels of each parameter)"
                         : "[:LEVELS]");
        return FALSE;
    }
    p->name = g_strndup(spec, (gsize)(eq - spec));
    p->levels = full ? (int)levels : 0;
    return TRUE;
}

/* ---- designs --------------------------------------------------------------------------------- */

static gboolean draw_cases(EslStudy *s, GError **error)
{
    int np = s->nparameters;
    if (s->design == ESL_STUDY_DESIGN_FULL) {
        double n = 1;
        for (int j = 0; j < np; j++)
            n *= s->parameters[j].levels;
        if (n > 1000000) {
            g_set_error(error, ESL_STUDY_ERROR, ESL_STUDY_ERROR_INVALID,
                        "the full design has %.0f cases (at most 1000000)", n);
            return FALSE;
        }
        s->ncases = (int)n;
        s->samples = s->ncases;
        s->values = g_new(double, (gsize)s->ncases * np + 1);
        /* case k: the last parameter varies fastest */
        for (int k = 0; k < s->ncases; k++) {
            int rest = k;
            for (int j = np - 1; j >= 0; j--) {
                const EslStudyParameter *p = &s->parameters[j];
                int i = rest % p->levels;
                rest /= p->levels;
                s->values[(gsize)k * np + j] =
                    p->levels == 1 ? p->lower
                    : i == p->levels - 1
                        ? p->upper
                        : p->lower + (p->upper - p->lower) * i / (p->levels - 1);
            }
        }
        return TRUE;
    }
    if (s->samples < 1 || s->samples > 1000000) {
        g_set_error(error, ESL_STUDY_ERROR, ESL_STUDY_ERROR_INVALID,
                    "--samples %d: the %s design needs 1 to 1000000 samples", s->samples,
                    esl_study_design_name(s->design));
        return FALSE;
    }
    int n = s->ncases = s->samples;
    s->values = g_new(double, (gsize)n * np + 1);
    g_autoptr(GRand) rand = g_rand_new_with_seed(s->seed); /* Mersenne twister: same everywhere */
    g_autofree int *perm = g_new(int, n);
    for (int j = 0; j < np; j++) {
        const EslStudyParameter *p = &s->parameters[j];
        for (int i = 0; i < n; i++)
            perm[i] = i;
        if (s->design == ESL_STUDY_DESIGN_LHS)
            for (int i = n - 1; i > 0; i--) { /* Fisher-Yates */
                int r = g_rand_int_range(rand, 0, i + 1), t = perm[i];
                perm[i] = perm[r];
                perm[r] = t;
            }
        for (int k = 0; k < n; k++) {
            double u = g_rand_double(rand); /* [0, 1) */
            double x = s->design == ESL_STUDY_DESIGN_LHS ? (perm[k] + u) / n : u;
            s->values[(gsize)k * np + j] = p->lower + (p->upper - p->lower) * x;
        }
    }
    return TRUE;
}

/* "final:VAR", "max:VAR", "min:VAR" with VAR a variable of m that one state gives. */
static gboolean parse_objective(const MbsModel *m, const char *spec, int *kind, EslVariable *v,
                                GError **error)
{
    static const char *const kinds[] = {"final", "max", "min"};
    const char *colon = strchr(spec, ':');
    *kind = -1;
    for (int i = 0; colon && i < 3; i++)
        if (strlen(kinds[i]) == (size_t)(colon - spec) && !strncmp(spec, kinds[i], colon - spec))
            *kind = i;
    if (*kind < 0) {
        g_set_error(error, ESL_STUDY_ERROR, ESL_STUDY_ERROR_INVALID,
                    "objective '%s': expected final:VARIABLE, max:VARIABLE or min:VARIABLE",
                    spec);
        return FALSE;
    }
    g_autoptr(GError) local = NULL;
    if (!esl_variable_parse(m, colon + 1, v, &local) || !esl_variable_is_instantaneous(v)) {
        g_set_error(error, ESL_STUDY_ERROR, ESL_STUDY_ERROR_INVALID, "objective '%s': %s", spec,
                    local ? local->message : "an acceleration is not a function of one state");
        return FALSE;
    }
    return TRUE;
}

EslStudy *esl_study_plan(const char *model_path, EslStudyDesign design, int samples,
                         guint32 seed, EslStudyParameter *parameters, int nparameters,
                         const char *formulation, const MbsSettings *settings,
                         const char *const *objectives, GError **error)
{
    g_autoptr(EslStudy) s = g_new0(EslStudy, 1);
    s->design = design;
    s->samples = samples;
    s->seed = seed;
    s->nparameters = nparameters;
    s->parameters = g_new0(EslStudyParameter, nparameters + 1);
    memcpy(s->parameters, parameters, sizeof *parameters * nparameters);
    memset(parameters, 0, sizeof *parameters * nparameters);
    s->formulation = g_strdup(formulation);
    s->settings = *settings;
    s->objectives = g_strdupv((char **)objectives);
    if (!s->objectives)
        s->objectives = g_new0(char *, 1);
    if (nparameters < 1) {
        g_set_error(error, ESL_STUDY_ERROR, ESL_STUDY_ERROR_INVALID,
                    "a study needs at least one --parameter NAME=LOWER:UPPER[:LEVELS]");
        return NULL;
    }
    if (!g_file_get_contents(model_path, &s->model_text, NULL, error))
        return NULL;
    g_autoptr(GError) local = NULL;
    MbsModel *m = esl_model_load_file(model_path, NULL, 0, error);
    if (!m)
        return NULL;
    gboolean ok = TRUE;
    for (int j = 0; ok && j < nparameters; j++) {
        int p = mbs_model_find_parameter(m, s->parameters[j].name);
        for (int i = 0; i < j; i++)
            if (!strcmp(s->parameters[i].name, s->parameters[j].name))
                p = -2;
        if (p < 0 || !mbs_model_parameter_is_free(m, p)) {
            GString *names = g_string_new(NULL);
            for (int q = 0; q < m->nparameters; q++)
                if (mbs_model_parameter_is_free(m, q))
                    g_string_append_printf(names, "%s%s", names->len ? ", " : "",
                                           m->parameters[q].name);
            g_set_error(error, ESL_STUDY_ERROR, ESL_STUDY_ERROR_INVALID,
                        p == -2 ? "parameter '%s' is given twice"
                        : p < 0 ? "%s: the model has no parameter '%s' (it has %s)"
                                : "%s: parameter '%s' is computed from others (free: %s)",
                        p == -2 ? s->parameters[j].name : model_path,
                        s->parameters[j].name, names->str);
            g_string_free(names, TRUE);
            ok = FALSE;
        }
    }
    for (int i = 0; ok && s->objectives[i]; i++) {
        int kind;
        EslVariable v;
        ok = parse_objective(m, s->objectives[i], &kind, &v, error);
    }
    if (ok) {
        s->model_name = g_strdup(m->name);
        g_autofree char *cwd = g_get_current_dir();
        s->model_path = g_path_is_absolute(model_path)
                            ? g_strdup(model_path)
                            : g_build_filename(cwd, model_path, NULL);
        s->model_sha256 = g_compute_checksum_for_string(G_CHECKSUM_SHA256, s->model_text, -1);
        ok = draw_cases(s, error);
    }
    mbs_model_free(m);
    return ok ? g_steal_pointer(&s) : NULL;
}

EslStudy *esl_study_plan_from_words(const char *model_path, const char *design_name,
                                    int samples, gint64 seed, const char *const *parameters,
                                    const char *formulation, MbsSettings *settings,
                                    const char *objectives, GError **error)
{
    int design = esl_study_design_from_name(design_name ? design_name : "full");
    if (design < 0) {
        g_set_error(error, ESL_STUDY_ERROR, ESL_STUDY_ERROR_INVALID,
                    "--design '%s': full, lhs or random", design_name);
        return NULL;
    }
    if (seed < 0 || seed > G_MAXUINT32) {
        g_set_error(error, ESL_STUDY_ERROR, ESL_STUDY_ERROR_INVALID,
                    "--seed %" G_GINT64_FORMAT ": 0 to %u", seed, G_MAXUINT32);
        return NULL;
    }
    const MbsFormulationClass *k = mbs_formulation_find(formulation);
    if (!k) {
        GString *names = g_string_new(NULL);
        for (int i = 0; i < mbs_formulation_count(); ++i)
            g_string_append_printf(names, " %s", mbs_formulation_class(i)->name);
        g_set_error(error, ESL_STUDY_ERROR, ESL_STUDY_ERROR_INVALID,
                    "unknown formulation '%s'; available:%s", formulation, names->str);
        g_string_free(names, TRUE);
        return NULL;
    }
    int np = parameters ? (int)g_strv_length((char **)parameters) : 0;
    EslStudyParameter *ps = g_new0(EslStudyParameter, np + 1);
    EslStudy *study = NULL;
    gboolean ok = TRUE;
    for (int j = 0; ok && j < np; j++)
        ok = esl_study_parameter_parse(parameters[j], (EslStudyDesign)design, &ps[j], error);
    MbsError err = {0};
    if (ok) {
        mbs_settings_for(settings, k);
        if (mbs_settings_check_run(settings, &err)) {
            g_set_error(error, ESL_STUDY_ERROR, ESL_STUDY_ERROR_INVALID, "%s", err.message);
            ok = FALSE;
        }
    }
    if (ok) {
        g_auto(GStrv) list = objectives && *objectives ? g_strsplit(objectives, ",", -1)
                                                       : g_new0(char *, 1);
        study = esl_study_plan(model_path, (EslStudyDesign)design, samples, (guint32)seed, ps,
                               np, formulation, settings, (const char *const *)list, error);
    }
    for (int j = 0; j < np; j++)
        g_free(ps[j].name);
    g_free(ps);
    return study;
}

/* ---- the manifest ------------------------------------------------------------------------------ */

static char *manifest_text(const EslStudy *s)
{
    g_autoptr(JsonBuilder) b = json_builder_new();
    json_builder_begin_object(b);
    json_builder_set_member_name(b, "format");
    json_builder_add_string_value(b, STUDY_FORMAT);
    json_builder_set_member_name(b, "version");
    json_builder_add_int_value(b, STUDY_VERSION);
    json_builder_set_member_name(b, "model");
    json_builder_begin_object(b);
    json_builder_set_member_name(b, "name");
    json_builder_add_string_value(b, s->model_name);
    json_builder_set_member_name(b, "path");
    json_builder_add_string_value(b, s->model_path);
    json_builder_set_member_name(b, "sha256");
    json_builder_add_string_value(b, s->model_sha256);
    json_builder_set_member_name(b, "text");
    json_builder_add_string_value(b, s->model_text);
    json_builder_end_object(b);
    json_builder_set_member_name(b, "design");
    json_builder_begin_object(b);
    json_builder_set_member_name(b, "kind");
    json_builder_add_string_value(b, esl_study_design_name(s->design));
    json_builder_set_member_name(b, "samples");
    json_builder_add_int_value(b, s->samples);
    json_builder_set_member_name(b, "seed");
    json_builder_add_int_value(b, s->seed);
    json_builder_end_object(b);
    json_builder_set_member_name(b, "parameters");
    json_builder_begin_array(b);
    for (int j = 0; j < s->nparameters; j++) {
        json_builder_begin_object(b);
        json_builder_set_member_name(b, "name");
        json_builder_add_string_value(b, s->parameters[j].name);
        json_builder_set_member_name(b, "lower");
        json_builder_add_double_value(b, s->parameters[j].lower);
        json_builder_set_member_name(b, "upper");
        json_builder_add_double_value(b, s->parameters[j].upper);
        json_builder_set_member_name(b, "levels");
        json_builder_add_int_value(b, s->parameters[j].levels);
        json_builder_end_object(b);
    }
    json_builder_end_array(b);
    json_builder_set_member_name(b, "formulation");
    json_builder_add_string_value(b, s->formulation);
    json_builder_set_member_name(b, "settings");
    json_builder_begin_object(b);
    json_builder_set_member_name(b, "step");
    json_builder_add_double_value(b, s->settings.step);
    json_builder_set_member_name(b, "duration");
    json_builder_add_double_value(b, s->settings.duration);
    json_builder_set_member_name(b, "assembly-tolerance");
    json_builder_add_double_value(b, s->settings.assembly_tolerance);
    json_builder_set_member_name(b, "options");
    json_builder_add_value(b, esl_settings_options_to_node(&s->settings));
    json_builder_end_object(b);
    json_builder_set_member_name(b, "objectives");
    json_builder_begin_array(b);
    for (int i = 0; s->objectives[i]; i++)
        json_builder_add_string_value(b, s->objectives[i]);
    json_builder_end_array(b);
    json_builder_set_member_name(b, "cases");
    json_builder_begin_array(b);
    for (int k = 0; k < s->ncases; k++) {
        json_builder_begin_object(b);
        json_builder_set_member_name(b, "id");
        json_builder_add_int_value(b, k);
        json_builder_set_member_name(b, "parameters");
        json_builder_begin_object(b);
        for (int j = 0; j < s->nparameters; j++) {
            json_builder_set_member_name(b, s->parameters[j].name);
            json_builder_add_double_value(b, s->values[(gsize)k * s->nparameters + j]);
        }
        json_builder_end_object(b);
        json_builder_end_object(b);
    }
    json_builder_end_array(b);
    json_builder_end_object(b);
    g_autoptr(JsonNode) root = json_builder_get_root(b);
    return esl_json_generate(root, TRUE);
}

gboolean esl_study_save(EslStudy *study, const char *path, GError **error)
{
    g_autofree char *text = manifest_text(study);
    g_autofree char *with_newline = g_strconcat(text, "\n", NULL);
    /* g_file_set_contents writes a temporary file and renames it over path */
    if (!g_file_set_contents(path, with_newline, -1, error))
        return FALSE;
    g_free(study->manifest_path);
    study->manifest_path = g_strdup(path);
    g_free(study->sha256);
    study->sha256 = g_compute_checksum_for_string(G_CHECKSUM_SHA256, with_newline, -1);
    return TRUE;
}

static gboolean bad_manifest(GError **error, const char *path, const char *what)
{
    g_set_error(error, ESL_STUDY_ERROR, ESL_STUDY_ERROR_INVALID,
                "%s: not a study manifest of this version (%s)", path, what);
    return FALSE;
}

static const char *member_string(JsonObject *o, const char *name)
{
    JsonNode *n = o ? json_object_get_member(o, name) : NULL;
    return n && JSON_NODE_HOLDS_VALUE(n) && json_node_get_value_type(n) == G_TYPE_STRING
               ? json_node_get_string(n) : NULL;
}

static gboolean member_number(JsonObject *o, const char *name, double *out)
{
    JsonNode *n = o ? json_object_get_member(o, name) : NULL;
    if (!n || !JSON_NODE_HOLDS_VALUE(n))
        return FALSE;
    GType t = json_node_get_value_type(n);
    if (t != G_TYPE_DOUBLE && t != G_TYPE_INT64)
        return FALSE;
    *out = json_node_get_double(n);
    return isfinite(*out);
}

static JsonObject *member_object(JsonObject *o, const char *name)
{
    JsonNode *n = o ? json_object_get_member(o, name) : NULL;
    return n && JSON_NODE_HOLDS_OBJECT(n) ? json_node_get_object(n) : NULL;
}

static JsonArray *member_array(JsonObject *o, const char *name)
{
    JsonNode *n = o ? json_object_get_member(o, name) : NULL;
    return n && JSON_NODE_HOLDS_ARRAY(n) ? json_node_get_array(n) : NULL;
}

EslStudy *esl_study_load(const char *path, GError **error)
{
    g_autofree char *text = NULL;
    gsize len = 0;
    if (!g_file_get_contents(path, &text, &len, error))
        return NULL;
    if (esl_json_nesting_depth(text, len) > ESL_JSON_MAX_NESTING)
        return bad_manifest(error, path, "nested too deep"), NULL;
    g_autoptr(JsonParser) parser = json_parser_new();
    g_autoptr(GError) local = NULL;
    if (!json_parser_load_from_data(parser, text, (gssize)len, &local)) {
        g_set_error(error, ESL_STUDY_ERROR, ESL_STUDY_ERROR_INVALID, "%s: %s", path,
                    local->message);
        return NULL;
    }
    JsonNode *root = json_parser_get_root(parser);
    JsonObject *o = root && JSON_NODE_HOLDS_OBJECT(root) ? json_node_get_object(root) : NULL;
    double version = 0;
    if (g_strcmp0(member_string(o, "format"), STUDY_FORMAT) ||
        !member_number(o, "version", &version) || version != STUDY_VERSION)
        return bad_manifest(error, path, "format \"" STUDY_FORMAT "\", version 1"), NULL;
    g_autoptr(EslStudy) s = g_new0(EslStudy, 1);
    s->manifest_path = g_strdup(path);
    s->sha256 = g_compute_checksum_for_string(G_CHECKSUM_SHA256, text, (gssize)len);
    JsonObject *model = member_object(o, "model");
    JsonObject *design = member_object(o, "design");
    JsonObject *settings = member_object(o, "settings");
    JsonArray *params = member_array(o, "parameters");
    JsonArray *objectives = member_array(o, "objectives");
    JsonArray *cases = member_array(o, "cases");
    double samples = 0, seed = 0;
    if (!member_string(model, "name") || !member_string(model, "text") ||
        !member_string(model, "sha256") || !params || !cases || !objectives ||
        esl_study_design_from_name(member_string(design, "kind")) < 0 ||
        !member_number(design, "samples", &samples) || !member_number(design, "seed", &seed) ||
        !member_number(settings, "step", &s->settings.step) ||
        !member_number(settings, "duration", &s->settings.duration) ||
        !member_number(settings, "assembly-tolerance", &s->settings.assembly_tolerance) ||
        !member_string(o, "formulation"))
        return bad_manifest(error, path, "a member is missing or mistyped"), NULL;
    s->model_name = g_strdup(member_string(model, "name"));
    s->model_path = g_strdup(member_string(model, "path"));
    s->model_text = g_strdup(member_string(model, "text"));
    s->model_sha256 = g_strdup(member_string(model, "sha256"));
    g_autofree char *digest =
        g_compute_checksum_for_string(G_CHECKSUM_SHA256, s->model_text, -1);
    if (strcmp(digest, s->model_sha256) != 0)
        return bad_manifest(error, path, "the model text does not have its SHA-256"), NULL;
    s->design = (EslStudyDesign)esl_study_design_from_name(member_string(design, "kind"));
    s->samples = (int)samples;
    s->seed = (guint32)seed;
    s->formulation = g_strdup(member_string(o, "formulation"));
    const MbsFormulationClass *k = mbs_formulation_find(s->formulation);
    if (!k) {
        g_set_error(error, ESL_STUDY_ERROR, ESL_STUDY_ERROR_INVALID,
                    "%s: unknown formulation '%s'", path, s->formulation);
        return NULL;
    }
    JsonNode *options = settings ? json_object_get_member(settings, "options") : NULL;
    g_autofree char *options_text = options ? esl_json_generate(options, FALSE) : NULL;
    if (!esl_settings_options_from_json(&s->settings, k, options_text, error))
        return NULL;
    s->nparameters = (int)json_array_get_length(params);
    s->parameters = g_new0(EslStudyParameter, s->nparameters + 1);
    for (int j = 0; j < s->nparameters; j++) {
        JsonNode *n = json_array_get_element(params, j);
        JsonObject *p = JSON_NODE_HOLDS_OBJECT(n) ? json_node_get_object(n) : NULL;
        double levels = 0;
        if (!member_string(p, "name") || !member_number(p, "lower", &s->parameters[j].lower) ||
            !member_number(p, "upper", &s->parameters[j].upper) ||
            !member_number(p, "levels", &levels))
            return bad_manifest(error, path, "a parameter is malformed"), NULL;
        s->parameters[j].name = g_strdup(member_string(p, "name"));
        s->parameters[j].levels = (int)levels;
    }
    guint nobj = json_array_get_length(objectives);
    s->objectives = g_new0(char *, nobj + 1);
    for (guint i = 0; i < nobj; i++) {
        JsonNode *n = json_array_get_element(objectives, i);
        if (!JSON_NODE_HOLDS_VALUE(n) || json_node_get_value_type(n) != G_TYPE_STRING)
            return bad_manifest(error, path, "an objective is not a string"), NULL;
        s->objectives[i] = g_strdup(json_node_get_string(n));
    }
    s->ncases = (int)json_array_get_length(cases);
    s->values = g_new0(double, (gsize)s->ncases * s->nparameters + 1);
    for (int c = 0; c < s->ncases; c++) {
        JsonNode *n = json_array_get_element(cases, c);
        JsonObject *co = JSON_NODE_HOLDS_OBJECT(n) ? json_node_get_object(n) : NULL;
        JsonObject *values = member_object(co, "parameters");
        double id = -1;
        if (!member_number(co, "id", &id) || id != c || !values)
            return bad_manifest(error, path, "cases must be numbered 0, 1, ... in order"), NULL;
        for (int j = 0; j < s->nparameters; j++)
            if (!member_number(values, s->parameters[j].name,
                               &s->values[(gsize)c * s->nparameters + j]))
                return bad_manifest(error, path, "a case lacks a parameter's value"), NULL;
    }
    return g_steal_pointer(&s);
}

/* ---- shards ------------------------------------------------------------------------------------ */

char *esl_study_shards_dir(const EslStudy *study)
{
    const char *p = study->manifest_path;
    gsize n = strlen(p);
    if (g_str_has_suffix(p, ".json"))
        n -= 5;
    g_autofree char *stem = g_strndup(p, n);
    return g_strconcat(stem, ".shards", NULL);
}

char *esl_study_shard_path(const EslStudy *study, int k)
{
    g_autofree char *dir = esl_study_shards_dir(study);
    g_autofree char *name = g_strdup_printf("case-%04d.eslabon", k);
    return g_build_filename(dir, name, NULL);
}

EslCaseState esl_study_case_state(const EslStudy *study, int k, char **detail)
{
    g_autofree char *path = esl_study_shard_path(study, k);
    if (detail)
        *detail = NULL;
    if (!g_file_test(path, G_FILE_TEST_EXISTS))
        return ESL_CASE_NOT_RUN;
    g_autoptr(GError) error = NULL;
    g_autoptr(EslProject) p = esl_project_open(path, FALSE, &error);
    g_autoptr(GPtrArray) runs = p ? esl_project_list_runs(p, &error) : NULL;
    EslCaseState state = ESL_CASE_PARTIAL;
    for (guint i = 0; runs && i < runs->len; i++) {
        const EslRunInfo *r = runs->pdata[i];
        if (r->status == ESL_RUN_FINISHED)
            state = ESL_CASE_FINISHED;
        else if (r->status == ESL_RUN_FAILED && state != ESL_CASE_FINISHED)
            state = ESL_CASE_FAILED;
    }
    if (state == ESL_CASE_PARTIAL && detail)
        *detail = g_strdup(error ? error->message
                                 : runs && runs->len ? "its run never ended" : "it holds no run");
    return state;
}

static void remove_shard(const char *path)
{
    static const char *const suffixes[] = {"", "-wal", "-shm", "-journal"};
    for (guint i = 0; i < G_N_ELEMENTS(suffixes); i++) {
        g_autofree char *p = g_strconcat(path, suffixes[i], NULL);
        g_unlink(p);
    }
}

/* ---- running one case -------------------------------------------------------------------------- */

typedef struct {
    EslRunRecorder *recorder;
    const MbsModel *model;
    int nobjectives;
    int *kinds;            /* 0 final, 1 max, 2 min */
    EslVariable *variables;
    double *values;
    double *poses, *velocities, *violations;
} CaseObserver;

/* Every grid step: the recorder's sample, then the objectives at the formulation's state. */
static int case_sample(void *data, const MbsRun *run)
{
    CaseObserver *o = data;
    int rc = esl_run_recorder_sample(o->recorder, run);
    if (o->nobjectives == 0)
        return rc;
    const MbsFormulation *f = mbs_run_formulation(run);
    const MbsModel *m = o->model;
    for (int b = 0; b < m->nbodies; b++)
        mbs_formulation_body_pose(f, b, o->poses + 12 * b, o->poses + 12 * b + 9);
    esl_body_velocities_from_formulation(f, o->velocities);
    for (int j = 0; j < m->njoints; j++)
        o->violations[j] = f->klass->joint_violation(f, j);
    for (int i = 0; i < o->nobjectives; i++) {
        double v = esl_variable_value(m, &o->variables[i], f->time, o->poses, o->velocities,
                                      o->violations);
        double *x = &o->values[i];
        if (o->kinds[i] == 0 || isnan(*x) || (o->kinds[i] == 1 ? v > *x : v < *x))
            *x = v;
    }
    return rc;
}

static char *provenance_json(const EslStudy *s, int k, const CaseObserver *o)
{
    g_autoptr(JsonBuilder) b = json_builder_new();
    json_builder_begin_object(b);
    json_builder_set_member_name(b, "study");
    json_builder_begin_object(b);
    g_autofree char *manifest = g_canonicalize_filename(s->manifest_path, NULL);
    json_builder_set_member_name(b, "manifest");
    json_builder_add_string_value(b, manifest);
    json_builder_set_member_name(b, "sha256");
    json_builder_add_string_value(b, s->sha256);
    json_builder_set_member_name(b, "case");
    json_builder_add_int_value(b, k);
    json_builder_set_member_name(b, "parameters");
    json_builder_begin_object(b);
    for (int j = 0; j < s->nparameters; j++) {
        json_builder_set_member_name(b, s->parameters[j].name);
        json_builder_add_double_value(b, s->values[(gsize)k * s->nparameters + j]);
    }
    json_builder_end_object(b);
    if (o) {
        json_builder_set_member_name(b, "objectives");
        json_builder_begin_object(b);
        for (int i = 0; i < o->nobjectives; i++)
            if (isfinite(o->values[i])) {
                json_builder_set_member_name(b, s->objectives[i]);
                json_builder_add_double_value(b, o->values[i]);
            }
        json_builder_end_object(b);
    }
    json_builder_end_object(b);
    char host[256] = "";
    gethostname(host, sizeof host - 1);
    json_builder_set_member_name(b, "host");
    json_builder_add_string_value(b, host);
    json_builder_set_member_name(b, "eslabon_version");
    json_builder_add_string_value(b, ESLABON_VERSION);
    /* a Slurm task's ids, from the environment Slurm gives it */
    static const char *const slurm[][2] = {
        {"SLURM_JOB_ID", "job_id"},
        {"SLURM_ARRAY_JOB_ID", "array_job_id"},
        {"SLURM_ARRAY_TASK_ID", "array_task_id"},
        {"SLURM_CLUSTER_NAME", "cluster"},
    };
    gboolean any = FALSE;
    for (guint i = 0; i < G_N_ELEMENTS(slurm); i++)
        any |= g_getenv(slurm[i][0]) != NULL;
    if (any) {
        json_builder_set_member_name(b, "slurm");
        json_builder_begin_object(b);
        for (guint i = 0; i < G_N_ELEMENTS(slurm); i++)
            if (g_getenv(slurm[i][0])) {
                json_builder_set_member_name(b, slurm[i][1]);
                json_builder_add_string_value(b, g_getenv(slurm[i][0]));
            }
        json_builder_end_object(b);
    }
    json_builder_end_object(b);
    g_autoptr(JsonNode) root = json_builder_get_root(b);
    return esl_json_generate(root, FALSE);
}

static char *parameters_json(const EslStudy *s, int k)
{
    GString *out = g_string_new("{");
    for (int j = 0; j < s->nparameters; j++) {
        g_autoptr(JsonNode) name = json_node_init_string(json_node_alloc(), s->parameters[j].name);
        g_autofree char *quoted = esl_json_generate(name, FALSE);
        g_string_append_printf(out, "%s%s:", j ? "," : "", quoted);
        esl_json_append_double(out, s->values[(gsize)k * s->nparameters + j]);
    }
    g_string_append_c(out, '}');
    return g_string_free(out, FALSE);
}

gboolean esl_study_run_case(const EslStudy *s, int k, EslCaseState *state, GError **error)
{
    if (k < 0 || k >= s->ncases) {
        g_set_error(error, ESL_STUDY_ERROR, ESL_STUDY_ERROR_INVALID,
                    "%s has cases 0 to %d, not %d", s->manifest_path, s->ncases - 1, k);
        return FALSE;
    }
    g_autofree char *path = esl_study_shard_path(s, k);
    g_autofree char *dir = esl_study_shards_dir(s);
    *state = esl_study_case_state(s, k, NULL);
    if (*state == ESL_CASE_FINISHED || *state == ESL_CASE_FAILED)
        return TRUE; /* resumable: a case that ended is not run again */
    if (*state == ESL_CASE_PARTIAL)
        remove_shard(path);
    if (g_mkdir_with_parents(dir, 0777) != 0) {
        g_set_error(error, ESL_STUDY_ERROR, ESL_STUDY_ERROR_IO, "cannot create %s: %s", dir,
                    g_strerror(errno));
        return FALSE;
    }
    int np = s->nparameters;
    g_autofree EslParameterOverride *ov = g_new0(EslParameterOverride, np + 1);
    for (int j = 0; j < np; j++)
        ov[j] = (EslParameterOverride){s->parameters[j].name, s->values[(gsize)k * np + j]};

    /* the model file when it is still the planned one (its property files beside it), else the
     * planned text */
    g_autofree char *file_text = NULL;
    g_autofree char *file_sha = NULL;
    if (s->model_path && g_file_get_contents(s->model_path, &file_text, NULL, NULL))
        file_sha = g_compute_checksum_for_string(G_CHECKSUM_SHA256, file_text, -1);
    g_autoptr(GError) model_error = NULL;
    MbsModel *m = file_sha && !strcmp(file_sha, s->model_sha256)
                      ? esl_model_load_file(s->model_path, ov, np, &model_error)
                      : esl_model_load_string(s->model_text, s->model_name, ov, np,
                                              &model_error);
    g_autoptr(EslProject) project = esl_project_open(path, TRUE, error);
    if (!project) {
        mbs_model_free(m);
        return FALSE;
    }
    gint64 model_id = esl_project_add_model(project, s->model_name, s->model_path, s->model_text,
                                            error);
    g_autofree char *params = parameters_json(s, k);
    EslRunRequest req = {.model_name = s->model_name, .model_id = model_id,
                         .formulation = s->formulation, .settings = s->settings,
                         .parameters_json = params, .nbodies = m ? m->nbodies : 0,
                         .njoints = m ? m->njoints : 0};
    gint64 run_id = model_id ? esl_project_begin_run(project, &req, error) : 0;
    g_autofree char *identity = g_uuid_string_random();
    g_autofree char *prov0 = provenance_json(s, k, NULL);
    if (!run_id || !esl_project_set_provenance(project, run_id, identity, prov0, error)) {
        mbs_model_free(m);
        return FALSE;
    }

    MbsError err = {0};
    MbsSettings settings = s->settings;
    MbsFormulation *f = NULL;
    if (m && mbs_settings_check_run(&settings, &err) == 0)
        f = mbs_formulation_new(s->formulation, m, &settings, &err);
    int nobj = (int)g_strv_length(s->objectives);
    CaseObserver o = {.model = m, .nobjectives = nobj};
    o.kinds = g_new0(int, nobj + 1);
    o.variables = g_new0(EslVariable, nobj + 1);
    o.values = g_new(double, nobj + 1);
    for (int i = 0; i < nobj; i++)
        o.values[i] = NAN;
    g_autofree char *message = NULL;
    for (int i = 0; m && i < nobj && !message; i++) {
        g_autoptr(GError) local = NULL;
        if (!parse_objective(m, s->objectives[i], &o.kinds[i], &o.variables[i], &local))
            message = g_strdup(local->message);
    }
    if (!m)
        message = g_strdup(model_error->message);
    else if (!f && !message)
        message = g_strdup_printf("%s: %s", s->model_name, err.message);
    double wall0 = mbs_clock_now();
    EslRunRecorder *recorder = m ? esl_run_recorder_new(m) : NULL;
    MbsRun *run = NULL;
    g_autofree char *summary = NULL;
    if (!message) {
        o.recorder = recorder;
        o.poses = g_new0(double, 12 * (gsize)m->nbodies + 1);
        o.velocities = g_new0(double, 6 * (gsize)m->nbodies + 1);
        o.violations = g_new0(double, (gsize)m->njoints + 1);
        long nsteps = mbs_run_step_count(settings.duration, settings.step);
        esl_run_recorder_set_sample_every(recorder, nsteps / SAMPLES_MAX + 1, nsteps);
        esl_run_recorder_set_project(recorder, project, run_id);
        MbsRunObserver observer = {.sample = case_sample,
                                   .internal_step = esl_run_recorder_internal_step,
                                   .data = &o,
                                   .every = 1};
        run = mbs_run_new(f, NULL, &observer, &err);
        if (!run)
            message = g_strdup_printf("%s: %s", s->model_name, err.message);
        else if (mbs_run_advance(run, settings.duration) == MBS_RUN_FAILED)
            message = g_strdup_printf("%s: %s", s->model_name, mbs_run_error(run)->message);
    }
    double wall = mbs_clock_now() - wall0;
    if (run) {
        EslRunSummaryInfo info = {.model_path = s->model_path, .model_name = s->model_name,
                                  .formulation = s->formulation,
                                  .status = message ? "failed" : "finished",
                                  .message = message, .wall_seconds = wall};
        summary = esl_run_summary_json(&info, run, FALSE);
    }
    g_autofree char *prov = provenance_json(s, k, &o);
    gboolean ok = esl_project_set_provenance(project, run_id, identity, prov, error);
    EslRunStatus status = message ? ESL_RUN_FAILED : ESL_RUN_FINISHED;
    g_autofree char *warning = run && !message ? esl_run_warning(run) : NULL;
    const char *note = message ? message : warning;
    if (ok)
        ok = recorder ? esl_run_recorder_finish(recorder, status, note, summary, wall, error)
                      : esl_project_finish_run(project, run_id, status, note, summary, wall,
                                               error);
    *state = message ? ESL_CASE_FAILED : ESL_CASE_FINISHED;
    if (ok && message)
        g_printerr("case %d: %s\n", k, message);
    mbs_run_free(run);
    esl_run_recorder_free(recorder);
    mbs_formulation_free(f);
    mbs_model_free(m);
    g_free(o.kinds);
    g_free(o.variables);
    g_free(o.values);
    g_free(o.poses);
    g_free(o.velocities);
    g_free(o.violations);
    return ok;
}
