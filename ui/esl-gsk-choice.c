/* GSK renderer choice; see esl-gsk-choice.h. */
#include "esl-gsk-choice.h"

#include <epoxy/gl.h>
#include <glib/gi18n.h>
#include <string.h>

gboolean esl_gl_renderer_is_software(const char *renderer)
{
    static const char *const software[] = {"llvmpipe", "softpipe", "swrast", "SWR ",
                                           "Software Rasterizer", NULL};
    for (int i = 0; renderer && software[i]; i++)
        if (strstr(renderer, software[i]))
            return TRUE;
    return FALSE;
}

/* GL_RENDERER of a context on the display, or NULL without OpenGL. */
static char *probe_gl_renderer(GdkDisplay *display)
{
    g_autoptr(GError) error = NULL;
    g_autoptr(GdkGLContext) context = gdk_display_create_gl_context(display, &error);
    if (!context || !gdk_gl_context_realize(context, &error)) {
        g_debug("no OpenGL on the display: %s", error ? error->message : "");
        return NULL;
    }
    gdk_gl_context_make_current(context);
    char *name = g_strdup((const char *)glGetString(GL_RENDERER));
    gdk_gl_context_clear_current();
    return name;
}

const char *esl_gsk_choose_renderer(GdkDisplay *display)
{
    static char *description;
    if (description)
        return description;
    const char *requested = g_getenv("GSK_RENDERER");
    if (requested && *requested) {
        description = g_strdup_printf(_("GTK renderer: %s (set by GSK_RENDERER)"), requested);
        return description;
    }
    g_autofree char *gl = display ? probe_gl_renderer(display) : NULL;
    if (gl && esl_gl_renderer_is_software(gl)) {
        g_setenv("GSK_RENDERER", "cairo", TRUE);
        description = g_strdup_printf(
            _("GTK renderer: Cairo, because OpenGL is software-rendered here (%s)"), gl);
    } else {
        description = g_strdup_printf(_("GTK renderer: GTK's default (OpenGL: %s)"),
                                      gl ? gl : _("not available"));
    }
    g_debug("%s", description);
    return description;
}
