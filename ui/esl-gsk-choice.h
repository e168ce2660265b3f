/* Which GSK renderer draws the windows.
 *
 * GTK 4.8's GL renderer recomposites the whole window every frame; on a software OpenGL
 * implementation (Mesa llvmpipe/softpipe, e.g. a virtual machine, a remote desktop or Xvfb)
 * that costs about 50 ms per frame for a 1600 × 1000 window, while GTK's Cairo renderer redraws
 * only what changed (measured in docs/benchmarks.md, "Frame time of the window"). The 3D view
 * keeps using OpenGL either way. A GSK_RENDERER set by the user is always respected.
 */
#ifndef ESL_GSK_CHOICE_H
#define ESL_GSK_CHOICE_H

#include <gtk/gtk.h>

G_BEGIN_DECLS

/* Before the first window is realized: probe the display's OpenGL and, when it is a software
 * rasterizer and GSK_RENDERER is unset, set GSK_RENDERER=cairo. Returns a description of the
 * choice for the about dialog and logs (owned by the callee). */
const char *esl_gsk_choose_renderer(GdkDisplay *display);

/* TRUE when the GL_RENDERER string names a software rasterizer. */
gboolean esl_gl_renderer_is_software(const char *renderer);

G_END_DECLS

#endif
