/* Recent model and project files, kept in the desktop's recently-used list (GtkRecentManager),
 * marked as opened by Eslabón. */
#ifndef ESL_RECENT_H
#define ESL_RECENT_H

#include <gtk/gtk.h>

G_BEGIN_DECLS

/* Remember a model (.json) or project (.eslabon) file that the user opened or saved. */
void esl_recent_add(const char *path);
/* Drop a file that failed to open (the file chooser adds what it picks to the list). */
void esl_recent_forget(const char *path);
/* The newest at most max files Eslabón opened that still exist, newest first: a GPtrArray of
 * paths (owning). */
GPtrArray *esl_recent_list(int max);

G_END_DECLS

#endif
