/* eslabon-cli export --format mjcf MODEL: the model as MuJoCo XML (app/model/esl-mjcf.c), with
 * the assembled initial state as the keyframe "initial". */
#include <gio/gio.h>
#include <stdio.h>
#include <string.h>

#include "esl-cli.h"
#include "esl-mjcf.h"
#include "esl-model-file.h"
#include "esl-models-dir.h"
#include "mbs_assembly.h"
#include "mbs_settings.h"
#include "mbs_topology.h"

char *esl_cli_mjcf_text(const MbsModel *m, double step, const char *integrator, int *qpos_node,
                        GError **error)
{
    int n = m->topo->nnodes;
    double *z = g_new0(double, n + 1), *zd = g_new0(double, n + 1);
    MbsSettings s;
    mbs_settings_defaults(&s);
    MbsError err = {0};
    char *text = NULL;
    if (mbs_assemble(m, &s, 0.0, z, zd, NULL, &err))
        g_set_error(error, G_IO_ERROR, G_IO_ERROR_FAILED, "initial assembly: %s", err.message);
    else
        text = esl_mjcf_from_model(m, z, zd, &(EslMjcfOptions){step, integrator}, qpos_node,
                                   error);
    g_free(z);
    g_free(zd);
    return text;
}

int esl_cli_export(int argc, char **argv)
{
    char *format = NULL, *output = NULL, *integrator = NULL;
    double step = 0.01;
    GOptionEntry entries[] = {
        {"format", 0, 0, G_OPTION_ARG_STRING, &format, "Output format: mjcf (MuJoCo XML)", "F"},
        {"output", 'o', 0, G_OPTION_ARG_FILENAME, &output, "Write to FILE (default: stdout)",
         "FILE"},
        {"step", 0, 0, G_OPTION_ARG_DOUBLE, &step, "MuJoCo's timestep (default 0.01 s)", "H"},
        {"integrator", 0, 0, G_OPTION_ARG_STRING, &integrator,
         "MuJoCo's integrator: RK4 (default), Euler or implicit", "I"},
        {NULL, 0, 0, 0, NULL, NULL, NULL},
    };
    GOptionContext *ctx = g_option_context_new("MODEL - write a model in another format");
    g_option_context_add_main_entries(ctx, entries, NULL);
    GError *error = NULL;
    gboolean parsed = g_option_context_parse(ctx, &argc, &argv, &error);
    g_option_context_free(ctx);
    int status = 2;
    char *path = NULL, *text = NULL;
    MbsModel *m = NULL;
    if (!parsed || argc != 2 || !format || strcmp(format, "mjcf") || !(step > 0.0)) {
        fprintf(stderr,
                "eslabon-cli export: %s\nusage: eslabon-cli export --format mjcf MODEL "
                "[--output FILE] [--step H] [--integrator RK4|Euler|implicit]\n",
                error ? error->message
                : argc != 2 ? "expected one MODEL"
                : !(step > 0.0) ? "--step must be > 0"
                            : "unknown or missing --format (available: mjcf)");
        goto out;
    }
    status = 1;
    path = esl_resolve_model_path(argv[1]);
    if (!(m = esl_model_load_file(path, NULL, 0, &error)) ||
        !(text = esl_cli_mjcf_text(m, step, integrator ? integrator : "RK4", NULL, &error))) {
        fprintf(stderr, "eslabon-cli export: %s\n", error->message);
        goto out;
    }
    if (output && !g_file_set_contents(output, text, -1, &error)) {
        fprintf(stderr, "eslabon-cli export: %s\n", error->message);
        goto out;
    }
    if (!output)
        fputs(text, stdout);
    status = 0;
out:
    g_clear_error(&error);
    mbs_model_free(m);
    g_free(text);
    g_free(path);
    g_free(format);
    g_free(output);
    g_free(integrator);
    return status;
}
