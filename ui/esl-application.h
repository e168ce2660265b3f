/* EslApplication: the GtkApplication "org.eslabon.Eslabon" (application actions, accelerators,
 * CSS, command line options). tests/ui/eslabon-smoke-test.c drives it for the smoke test. */
#ifndef ESL_APPLICATION_H
#define ESL_APPLICATION_H

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define ESL_TYPE_APPLICATION (esl_application_get_type())
G_DECLARE_FINAL_TYPE(EslApplication, esl_application, ESL, APPLICATION, GtkApplication)

EslApplication *esl_application_new(void);

G_END_DECLS

#endif
