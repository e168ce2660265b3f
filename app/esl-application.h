/* EslApplication: the GtkApplication "org.eslabon.Eslabon" (actions, accelerators, CSS, the
 * --smoke-test mode used by tests/ui). */
#ifndef ESL_APPLICATION_H
#define ESL_APPLICATION_H

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define ESL_TYPE_APPLICATION (esl_application_get_type())
G_DECLARE_FINAL_TYPE(EslApplication, esl_application, ESL, APPLICATION, GtkApplication)

EslApplication *esl_application_new(void);
/* Exit status of --smoke-test (0 passed), or -1 when not in that mode. */
int esl_application_get_smoke_status(EslApplication *self);

G_END_DECLS

#endif
