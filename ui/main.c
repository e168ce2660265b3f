/* eslabon: the GTK 4 workbench. */
#include <glib/gi18n.h>
#include <locale.h>

#include "eslabon-config.h"
#include "esl-application.h"

/* Where the compiled translations are: ESLABON_LOCALEDIR from the environment; else, for the
 * uninstalled binary of a build, that build's po/ (where meson compiles them); else the
 * installed ones. */
static const char *translations_dir(void)
{
    const char *from_env = g_getenv("ESLABON_LOCALEDIR");
    if (from_env && *from_env)
        return from_env;
    g_autofree char *exe = g_file_read_link("/proc/self/exe", NULL);
    if (exe && g_str_has_prefix(exe, ESLABON_BUILD_ROOT G_DIR_SEPARATOR_S))
        return ESLABON_BUILD_ROOT G_DIR_SEPARATOR_S "po";
    return ESLABON_LOCALEDIR;
}

int main(int argc, char **argv)
{
    setlocale(LC_ALL, "");
    bindtextdomain(GETTEXT_PACKAGE, translations_dir());
    bind_textdomain_codeset(GETTEXT_PACKAGE, "UTF-8");
    textdomain(GETTEXT_PACKAGE);

    g_autoptr(EslApplication) app = esl_application_new();
    return g_application_run(G_APPLICATION(app), argc, argv);
}
