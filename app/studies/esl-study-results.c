/* A study's results; see esl-study-results.h. */
#include "esl-study-results.h"

#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>

void esl_study_results_free(EslStudyResults *r)
{
    if (!r)
        return;
    for (int k = 0; r->study && k < r->study->ncases; k++)
        g_free(r->cases[k].objectives);
    g_free(r->cases);
    esl_study_free(r->study);
    g_free(r->project_path);
    g_free(r);
}

double esl_study_results_parameter(const EslStudyResults *r, int k, int j)
{
    return r->study->values[(gsize)k * r->study->nparameters + j];
}

/* The case of a provenance text of this study (-1: another study's run, or none), and its
 * objectives' values into values (NAN when missing). */
static int case_of(const EslStudyResults *r, const char *json, double *values)
{
    g_autoptr(JsonParser) parser = json_parser_new();
    if (!json || !json_parser_load_from_data(parser, json, -1, NULL))
        return -1;
    JsonNode *root = json_parser_get_root(parser);
    JsonObject *o = root && JSON_NODE_HOLDS_OBJECT(root) ? json_node_get_object(root) : NULL;
    JsonObject *s = o && json_object_has_member(o, "study")
                        ? json_object_get_object_member(o, "study")
                        : NULL;
    if (!s || g_strcmp0(json_object_get_string_member_with_default(s, "sha256", ""),
                        r->study->sha256) != 0)
        return -1;
    gint64 k = json_object_get_int_member_with_default(s, "case", -1);
    if (k < 0 || k >= r->study->ncases)
        return -1;
    JsonObject *obj = json_object_has_member(s, "objectives")
                          ? json_object_get_object_member(s, "objectives")
                          : NULL;
    for (int i = 0; i < r->nobjectives; i++) {
        const char *name = r->study->objectives[i];
        JsonNode *n = obj ? json_object_get_member(obj, name) : NULL;
        values[i] = n && JSON_NODE_HOLDS_VALUE(n) ? json_node_get_double(n) : NAN;
    }
    return (int)k;
}

GPtrArray *esl_study_results_list(const char *project_path, GError **error)
{
    g_autoptr(EslProject) project = esl_project_open(project_path, FALSE, error);
    g_autoptr(GPtrArray) runs = project ? esl_project_list_runs(project, error) : NULL;
    if (!runs)
        return NULL;
    GPtrArray *manifests = g_ptr_array_new_with_free_func(g_free);
    for (guint i = 0; i < runs->len; i++) {
        const EslRunInfo *info = runs->pdata[i];
        g_autofree char *prov = esl_project_get_provenance(project, info->id, NULL, NULL, NULL);
        g_autoptr(JsonParser) parser = json_parser_new();
        if (!prov || !json_parser_load_from_data(parser, prov, -1, NULL))
            continue;
        JsonNode *root = json_parser_get_root(parser);
        JsonObject *o = root && JSON_NODE_HOLDS_OBJECT(root) ? json_node_get_object(root) : NULL;
        JsonObject *st = o && json_object_has_member(o, "study")
                             ? json_object_get_object_member(o, "study")
                             : NULL;
        const char *manifest =
            st ? json_object_get_string_member_with_default(st, "manifest", NULL) : NULL;
        gboolean seen = FALSE;
        for (guint j = 0; manifest && j < manifests->len && !seen; j++)
            seen = g_str_equal(manifests->pdata[j], manifest);
        if (manifest && !seen)
            g_ptr_array_add(manifests, g_strdup(manifest));
    }
    return manifests;
}

EslStudyResults *esl_study_results_load(const char *manifest_path, const char *project_path,
                                        GError **error)
{
    g_autoptr(EslStudyResults) r = g_new0(EslStudyResults, 1);
    r->study = esl_study_load(manifest_path, error);
    if (!r->study)
        return NULL;
    r->project_path = g_strdup(project_path);
    r->nobjectives = (int)g_strv_length(r->study->objectives);
    r->cases = g_new0(EslStudyCase, r->study->ncases + 1);
    for (int k = 0; k < r->study->ncases; k++) {
        r->cases[k].objectives = g_new(double, r->nobjectives + 1);
        for (int i = 0; i < r->nobjectives; i++)
            r->cases[k].objectives[i] = NAN;
    }
    if (!g_file_test(project_path, G_FILE_TEST_IS_REGULAR)) {
        g_set_error(error, ESL_STUDY_ERROR, ESL_STUDY_ERROR_IO,
                    "%s: no such project (merge the study's shards into it: eslabon-cli study "
                    "collect %s --output %s)", project_path, manifest_path, project_path);
        return NULL;
    }
    g_autoptr(EslProject) project = esl_project_open(project_path, FALSE, error);
    g_autoptr(GPtrArray) runs = project ? esl_project_list_runs(project, error) : NULL;
    if (!runs)
        return NULL;
    g_autofree double *values = g_new(double, r->nobjectives + 1);
    for (guint i = 0; i < runs->len; i++) { /* oldest first: a later run of a case wins */
        const EslRunInfo *info = runs->pdata[i];
        g_autofree char *prov = esl_project_get_provenance(project, info->id, NULL, NULL, NULL);
        int k = case_of(r, prov, values);
        if (k < 0)
            continue;
        EslStudyCase *c = &r->cases[k];
        c->stored = TRUE;
        c->run_id = info->id;
        c->status = info->status;
        memcpy(c->objectives, values, sizeof(double) * r->nobjectives);
    }
    for (int k = 0; k < r->study->ncases; k++) {
        r->nstored += r->cases[k].stored;
        r->nfinished += r->cases[k].stored && r->cases[k].status == ESL_RUN_FINISHED;
        r->nfailed += r->cases[k].stored && r->cases[k].status == ESL_RUN_FAILED;
    }
    return g_steal_pointer(&r);
}
