#include "esl-models-dir.h"

#include <glib.h>
#include <string.h>

#include "eslabon-config.h"

const char *esl_models_dir(void)
{
    const char *env = g_getenv("ESLABON_MODELS_DIR");
    return env && *env ? env : ESLABON_MODELS_DIR;
}

char *esl_resolve_model_path(const char *arg)
{
    if (g_file_test(arg, G_FILE_TEST_EXISTS) || strchr(arg, G_DIR_SEPARATOR))
        return g_strdup(arg);
    g_autofree char *file =
        g_str_has_suffix(arg, ".json") ? g_strdup(arg) : g_strconcat(arg, ".json", NULL);
    char *bundled = g_build_filename(esl_models_dir(), file, NULL);
    if (g_file_test(bundled, G_FILE_TEST_IS_REGULAR))
        return bundled;
    g_free(bundled);
    return g_strdup(arg);
}
