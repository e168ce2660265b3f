/* eslabon: the GTK 4 workbench. */
#include <glib/gi18n.h>
#include <locale.h>

#include "eslabon-config.h"
#include "esl-application.h"

int main(int argc, char **argv)
{
    setlocale(LC_ALL, "");
    /* ESLABON_LOCALEDIR in the environment: translations of an uninstalled build (its po/). */
    const char *localedir = g_getenv("ESLABON_LOCALEDIR");
    bindtextdomain(GETTEXT_PACKAGE, localedir && *localedir ? localedir : ESLABON_LOCALEDIR);
    bind_textdomain_codeset(GETTEXT_PACKAGE, "UTF-8");
    textdomain(GETTEXT_PACKAGE);

    g_autoptr(EslApplication) app = esl_application_new();
    int status = g_application_run(G_APPLICATION(app), argc, argv);
    int smoke = esl_application_get_smoke_status(app);
    return smoke >= 0 ? smoke : status;
}
