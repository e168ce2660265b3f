/* eslabon-cli info / generate / list-models: inspect model files, write generated ones, list
 * the bundled ones. JSON keys are documented in docs/model-format.md and stable. */
#include <json-glib/json-glib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "eslabon-config.h"
#include "esl-cli.h"
#include "esl-models-dir.h"
#include "esl-generate.h"
#include "esl-model-file.h"
#include "esl-settings-json.h"
#include "mbs_constraints.h"
#include "mbs_force.h"
#include "mbs_topology.h"

/* Relative coordinates (node indices) of joint j in coordinate order; returns the count. */
static int joint_coordinates(const MbsModel *m, int j, int out[3])
{
    int count = 0;
    for (int c = 0; c < mbs_joint_type_dofs(m->joints[j].type); ++c)
        for (int n = 0; n < m->topo->nnodes; ++n)
            if (m->topo->nodes[n].joint == j && m->topo->nodes[n].joint_coord == c)
                out[count++] = n;
    return count;
}

static const char *force_type_name(MbsForceType t)
{
    const MbsForceClass *c = mbs_force_class(t);
    return c ? c->name : "unknown";
}

/* "stiffness 500 N/m, damping 5 N·s/m, ...": the element's numbers from its class. */
static void print_force_fields(const MbsForce *f)
{
    const MbsForceClass *c = mbs_force_class(f->type);
    for (const MbsForceField *fd = c ? c->fields : NULL; fd && fd->name; ++fd) {
        const double *x = mbs_force_field_values(f, fd);
        printf("%s%s ", fd == c->fields ? "  " : ", ", fd->name);
        if (fd->flags & MBS_FIELD_TABLE)
            printf("(%d pairs)", f->ntable);
        else if (fd->count == 3)
            printf("[%.6g, %.6g, %.6g]", x[0], x[1], x[2]);
        else
            printf("%.6g", x[0]);
        printf(" %s", fd->unit);
    }
}

/* Fields of the model that change with parameter p (mbs_model_parameter_dependents). */
static int count_dependents(const MbsModel *m, int p)
{
    return mbs_model_parameter_dependents(m, p, NULL, 0);
}

static void print_info_text(const char *path, const MbsModel *m, int rank)
{
    const MbsTopology *t = m->topo;
    int nc = mbs_model_ncoords(m), nr = mbs_model_nconstraints(m), ndrivers = 0;
    for (int j = 0; j < m->njoints; ++j)
        ndrivers += m->joints[j].driven;

    printf("Model %s (%s)\n", m->name, path);
    printf("Gravity: [%g, %g, %g] m/s^2\n", m->gravity[0], m->gravity[1], m->gravity[2]);
    printf("\nBodies: %d moving + ground '%s'\n", m->nbodies - 1, m->bodies[m->ground].name);
    for (int b = 0; b < m->nbodies; ++b) {
        if (b == m->ground)
            continue;
        const MbsBody *B = &m->bodies[b];
        printf("  %-16s mass %-8g com [%g, %g, %g]\n", B->name, B->mass, B->com[0], B->com[1],
               B->com[2]);
    }
    printf("\nJoints: %d (%d in the spanning tree, %d cut)\n", m->njoints, m->njoints - t->ncut,
           t->ncut);
    for (int j = 0; j < m->njoints; ++j) {
        const MbsJoint *J = &m->joints[j];
        printf("  %-16s %-10s %s - %s  ", J->name, mbs_joint_type_name(J->type),
               m->bodies[J->body1].name, m->bodies[J->body2].name);
        int coords[3], n = joint_coordinates(m, j, coords);
        if (t->joint_node[j] >= 0) {
            printf("tree, z");
            for (int c = 0; c < n; ++c)
                printf("%s%d", c ? ",z" : "", coords[c]);
        } else {
            printf("cut");
        }
        if (t->joint_nrows[j] > 0)
            printf(", constraint rows %d-%d", t->joint_row[j], t->joint_row[j] + t->joint_nrows[j] - 1);
        printf("%s\n", J->driven ? ", driven" : "");
    }
    if (m->nforces) {
        printf("\nForces: %d\n", m->nforces);
        for (int f = 0; f < m->nforces; ++f) {
            printf("  %-16s %-7s", m->forces[f].name, force_type_name(m->forces[f].type));
            print_force_fields(&m->forces[f]);
            printf("\n");
        }
    }
    if (m->nparameters) {
        printf("\nParameters: %d\n", m->nparameters);
        for (int p = 0; p < m->nparameters; ++p)
            printf("  %-16s %-14.12g (%d dependent fields)\n", m->parameters[p].name,
                   m->parameters[p].value, count_dependents(m, p));
    }
    printf("\nRelative coordinates: %d\n", nc);
    printf("Constraint equations: %d (%d loop closure, %d driver)\n", nr, nr - ndrivers, ndrivers);
    if (rank >= 0) {
        printf("Rank of Phi_z at the drawn configuration: %d\n", rank);
        printf("Degrees of freedom: %d\n", nc - rank);
        printf("Redundant constraints: %d\n", nr - rank);
    } else {
        printf("Rank of Phi_z: could not be computed\n");
    }
}

static void print_info_json(const char *path, const MbsModel *m, int rank)
{
    const MbsTopology *t = m->topo;
    JsonBuilder *b = json_builder_new();
    json_builder_begin_object(b);
    json_builder_set_member_name(b, "file");
    json_builder_add_string_value(b, path);
    json_builder_set_member_name(b, "name");
    json_builder_add_string_value(b, m->name);
    json_builder_set_member_name(b, "gravity");
    json_builder_begin_array(b);
    for (int i = 0; i < 3; ++i)
        json_builder_add_double_value(b, m->gravity[i]);
    json_builder_end_array(b);

    json_builder_set_member_name(b, "bodies");
    json_builder_begin_array(b);
    for (int i = 0; i < m->nbodies; ++i) {
        const MbsBody *B = &m->bodies[i];
        json_builder_begin_object(b);
        json_builder_set_member_name(b, "name");
        json_builder_add_string_value(b, B->name);
        json_builder_set_member_name(b, "ground");
        json_builder_add_boolean_value(b, B->is_ground);
        json_builder_set_member_name(b, "mass");
        json_builder_add_double_value(b, B->mass);
        json_builder_end_object(b);
    }
    json_builder_end_array(b);

    json_builder_set_member_name(b, "joints");
    json_builder_begin_array(b);
    for (int j = 0; j < m->njoints; ++j) {
        const MbsJoint *J = &m->joints[j];
        int coords[3], n = joint_coordinates(m, j, coords);
        json_builder_begin_object(b);
        json_builder_set_member_name(b, "name");
        json_builder_add_string_value(b, J->name);
        json_builder_set_member_name(b, "type");
        json_builder_add_string_value(b, mbs_joint_type_name(J->type));
        json_builder_set_member_name(b, "bodies");
        json_builder_begin_array(b);
        json_builder_add_string_value(b, m->bodies[J->body1].name);
        json_builder_add_string_value(b, m->bodies[J->body2].name);
        json_builder_end_array(b);
        json_builder_set_member_name(b, "tree");
        json_builder_add_boolean_value(b, t->joint_node[j] >= 0);
        json_builder_set_member_name(b, "driven");
        json_builder_add_boolean_value(b, J->driven);
        json_builder_set_member_name(b, "coordinates");
        json_builder_begin_array(b);
        for (int c = 0; c < n; ++c)
            json_builder_add_int_value(b, coords[c]);
        json_builder_end_array(b);
        json_builder_set_member_name(b, "constraint_rows");
        json_builder_begin_array(b);
        for (int r = 0; r < t->joint_nrows[j]; ++r)
            json_builder_add_int_value(b, t->joint_row[j] + r);
        json_builder_end_array(b);
        json_builder_end_object(b);
    }
    json_builder_end_array(b);

    json_builder_set_member_name(b, "forces");
    json_builder_begin_array(b);
    for (int f = 0; f < m->nforces; ++f) {
        json_builder_begin_object(b);
        json_builder_set_member_name(b, "name");
        json_builder_add_string_value(b, m->forces[f].name);
        json_builder_set_member_name(b, "type");
        json_builder_add_string_value(b, force_type_name(m->forces[f].type));
        const MbsForceClass *c = mbs_force_class(m->forces[f].type);
        for (const MbsForceField *fd = c ? c->fields : NULL; fd && fd->name; ++fd) {
            const double *x = mbs_force_field_values(&m->forces[f], fd);
            json_builder_set_member_name(b, fd->name);
            if (fd->count == 1) {
                json_builder_add_double_value(b, x[0]);
                continue;
            }
            json_builder_begin_array(b);
            if (fd->flags & MBS_FIELD_TABLE) /* [[x, y], ...] as in the model file */
                for (int k = 0; k < m->forces[f].ntable; ++k) {
                    json_builder_begin_array(b);
                    json_builder_add_double_value(b, x[2 * k]);
                    json_builder_add_double_value(b, x[2 * k + 1]);
                    json_builder_end_array(b);
                }
            else
                for (int k = 0; k < fd->count; ++k)
                    json_builder_add_double_value(b, x[k]);
            json_builder_end_array(b);
        }
        json_builder_end_object(b);
    }
    json_builder_end_array(b);

    json_builder_set_member_name(b, "parameters");
    json_builder_begin_object(b);
    for (int p = 0; p < m->nparameters; ++p) {
        json_builder_set_member_name(b, m->parameters[p].name);
        json_builder_add_double_value(b, m->parameters[p].value);
    }
    json_builder_end_object(b);

    int nc = mbs_model_ncoords(m), nr = mbs_model_nconstraints(m);
    json_builder_set_member_name(b, "ncoords");
    json_builder_add_int_value(b, nc);
    json_builder_set_member_name(b, "nconstraints");
    json_builder_add_int_value(b, nr);
    json_builder_set_member_name(b, "ncut");
    json_builder_add_int_value(b, t->ncut);
    const char *keys[3] = {"rank", "dof", "redundant"};
    int values[3] = {rank, nc - rank, nr - rank};
    for (int i = 0; i < 3; ++i) {
        json_builder_set_member_name(b, keys[i]);
        if (rank >= 0)
            json_builder_add_int_value(b, values[i]);
        else
            json_builder_add_null_value(b);
    }
    json_builder_end_object(b);

    JsonNode *root = json_builder_get_root(b);
    char *text = esl_json_generate(root, TRUE);
    printf("%s\n", text);
    g_free(text);
    json_node_unref(root);
    g_object_unref(b);
}

int esl_cli_info(int argc, char **argv)
{
    gboolean as_json = FALSE;
    GOptionEntry entries[] = {
        {"json", 0, 0, G_OPTION_ARG_NONE, &as_json, "Print JSON", NULL},
        {NULL, 0, 0, 0, NULL, NULL, NULL},
    };
    GOptionContext *ctx = g_option_context_new("MODEL - describe a model file (path or bundled name)");
    g_option_context_add_main_entries(ctx, entries, NULL);
    GError *error = NULL;
    gboolean parsed = g_option_context_parse(ctx, &argc, &argv, &error);
    g_option_context_free(ctx);
    if (!parsed || argc != 2) {
        fprintf(stderr, "eslabon-cli info: %s\nusage: eslabon-cli info MODEL [--json]\n",
                error ? error->message : "expected one MODEL");
        g_clear_error(&error);
        return 2;
    }
    char *path = esl_resolve_model_path(argv[1]);
    if (!g_file_test(path, G_FILE_TEST_EXISTS)) {
        fprintf(stderr, "eslabon-cli info: %s: no such file, nor a bundled model of that name "
                "(see eslabon-cli list-models)\n", path);
        g_free(path);
        return 1;
    }
    MbsModel *m = esl_model_load_file(path, NULL, 0, &error);
    if (!m) {
        fprintf(stderr, "eslabon-cli info: %s\n", error->message);
        g_error_free(error);
        g_free(path);
        return 1;
    }
    int rank = mbs_constraints_rank(m, 0.0, NULL); /* at the drawn configuration */
    if (as_json)
        print_info_json(path, m, rank);
    else
        print_info_text(path, m, rank);
    mbs_model_free(m);
    g_free(path);
    return 0;
}

int esl_cli_generate(int argc, char **argv)
{
    int ny = 0, nz = 0;
    char *output = NULL;
    GOptionEntry entries[] = {
        {"ny", 0, 0, G_OPTION_ARG_INT, &ny, "Quadrilaterals along Y", "N"},
        {"nz", 0, 0, G_OPTION_ARG_INT, &nz, "Quadrilaterals along Z", "M"},
        {"output", 'o', 0, G_OPTION_ARG_FILENAME, &output, "Write to FILE (default: stdout)",
         "FILE"},
        {NULL, 0, 0, 0, NULL, NULL, NULL},
    };
    GOptionContext *ctx = g_option_context_new("multi-four-bar - write a generated model file");
    g_option_context_add_main_entries(ctx, entries, NULL);
    GError *error = NULL;
    gboolean parsed = g_option_context_parse(ctx, &argc, &argv, &error);
    g_option_context_free(ctx);
    int status = 2;
    char *text = NULL;
    if (!parsed || argc != 2 || strcmp(argv[1], "multi-four-bar")) {
        fprintf(stderr, "eslabon-cli generate: %s\n"
                "usage: eslabon-cli generate multi-four-bar --ny N --nz M [--output FILE]\n",
                error ? error->message
                : argc == 2 ? "unknown generator (available: multi-four-bar)"
                            : "expected one generator name");
    } else if (!(text = esl_generate_multi_four_bar(ny, nz))) {
        fprintf(stderr, "eslabon-cli generate: --ny and --nz must be between 1 and %d\n",
                ESL_GENERATE_MAX_CELLS);
    } else if (output && !g_file_set_contents(output, text, -1, &error)) {
        fprintf(stderr, "eslabon-cli generate: %s\n", error->message);
        status = 1;
    } else {
        if (!output)
            fputs(text, stdout);
        status = 0;
    }
    g_clear_error(&error);
    g_free(text);
    g_free(output);
    return status;
}

static gint compare_names(gconstpointer a, gconstpointer b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Print text wrapped at width columns, every line indented. */
static void print_wrapped(const char *text, int indent, int width)
{
    char **words = g_strsplit_set(text, " \n\t", -1);
    int col = 0;
    for (char **w = words; *w; ++w) {
        int len = (int)strlen(*w);
        if (!len)
            continue;
        if (col > 0 && col + 1 + len > width) {
            printf("\n");
            col = 0;
        }
        if (col == 0)
            col = printf("%*s%s", indent, "", *w);
        else
            col += printf(" %s", *w);
    }
    if (col > 0)
        printf("\n");
    g_strfreev(words);
}

int esl_cli_list_models(int argc, char **argv)
{
    gboolean as_json = FALSE;
    GOptionEntry entries[] = {
        {"json", 0, 0, G_OPTION_ARG_NONE, &as_json, "Print JSON", NULL},
        {NULL, 0, 0, 0, NULL, NULL, NULL},
    };
    GOptionContext *ctx = g_option_context_new("- list the bundled models");
    g_option_context_add_main_entries(ctx, entries, NULL);
    GError *error = NULL;
    gboolean parsed = g_option_context_parse(ctx, &argc, &argv, &error);
    g_option_context_free(ctx);
    if (!parsed || argc != 1) {
        fprintf(stderr, "eslabon-cli list-models: %s\nusage: eslabon-cli list-models [--json]\n",
                error ? error->message : "unexpected argument");
        g_clear_error(&error);
        return 2;
    }
    const char *dir = esl_models_dir();
    GDir *d = g_dir_open(dir, 0, &error);
    if (!d) {
        fprintf(stderr, "eslabon-cli list-models: %s\n", error->message);
        g_error_free(error);
        return 1;
    }
    GPtrArray *files = g_ptr_array_new_with_free_func(g_free);
    for (const char *f; (f = g_dir_read_name(d));)
        if (g_str_has_suffix(f, ".json"))
            g_ptr_array_add(files, g_strdup(f));
    g_dir_close(d);
    g_ptr_array_sort(files, compare_names);

    JsonBuilder *b = json_builder_new();
    json_builder_begin_array(b);
    int status = 0;
    for (guint i = 0; i < files->len; ++i) {
        const char *file = files->pdata[i];
        char *path = g_build_filename(dir, file, NULL);
        /* the loader's guards: a FIFO, /dev/zero or a deeply nested file is refused, not read */
        JsonNode *root = esl_model_file_read_json(path, &error);
        const char *name = NULL, *description = "";
        if (root && JSON_NODE_HOLDS_OBJECT(root)) {
            JsonObject *o = json_node_get_object(root);
            JsonNode *n = json_object_get_member(o, "name");
            JsonNode *dn = json_object_get_member(o, "description");
            if (n && JSON_NODE_HOLDS_VALUE(n) && json_node_get_value_type(n) == G_TYPE_STRING)
                name = json_node_get_string(n);
            if (dn && JSON_NODE_HOLDS_VALUE(dn) && json_node_get_value_type(dn) == G_TYPE_STRING)
                description = json_node_get_string(dn);
        }
        if (!name) {
            if (error) /* names the file */
                fprintf(stderr, "eslabon-cli list-models: %s\n", error->message);
            else
                fprintf(stderr, "eslabon-cli list-models: %s: not a model file with a \"name\"\n",
                        file);
            g_clear_error(&error);
            status = 1;
        } else if (as_json) {
            json_builder_begin_object(b);
            json_builder_set_member_name(b, "name");
            json_builder_add_string_value(b, name);
            json_builder_set_member_name(b, "file");
            json_builder_add_string_value(b, path);
            json_builder_set_member_name(b, "description");
            json_builder_add_string_value(b, description);
            json_builder_end_object(b);
        } else {
            printf("%s  (%s)\n", name, file);
            print_wrapped(description, 4, 96);
        }
        if (root)
            json_node_unref(root);
        g_free(path);
    }
    json_builder_end_array(b);
    if (as_json) {
        JsonNode *root = json_builder_get_root(b);
        char *text = esl_json_generate(root, TRUE);
        printf("%s\n", text);
        g_free(text);
        json_node_unref(root);
    }
    g_object_unref(b);
    g_ptr_array_free(files, TRUE);
    return status;
}
