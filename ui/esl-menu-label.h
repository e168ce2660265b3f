/* Menu labels with names in them: GMenu items parse underscores as mnemonics ("v_0_1" would be
 * shown "v01"), so a name's underscores are doubled to be shown as they are. Header-only. */
#ifndef ESL_MENU_LABEL_H
#define ESL_MENU_LABEL_H

#include <glib.h>

static inline char *esl_menu_label_escape(const char *name)
{
    GString *s = g_string_new(NULL);
    for (const char *c = name; c && *c; c++)
        g_string_append(s, *c == '_' ? "__" : (char[]){*c, 0});
    return g_string_free(s, FALSE);
}

#endif
