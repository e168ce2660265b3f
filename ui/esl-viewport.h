/* EslViewport: the 3D view of a mechanism (GtkGLArea + EslRenderer).
 * Left drag orbits, middle drag or Shift+left drag pans, scroll zooms, a click picks the element
 * under the pointer ("picked" with an EslDrawableSource and an index, or -1, -1 for nothing). */
#ifndef ESL_VIEWPORT_H
#define ESL_VIEWPORT_H

#include <gtk/gtk.h>

#include "esl-renderer.h"
#include "esl-scene.h"
#include "mbs_model.h"

G_BEGIN_DECLS

#define ESL_TYPE_VIEWPORT (esl_viewport_get_type())
G_DECLARE_FINAL_TYPE(EslViewport, esl_viewport, ESL, VIEWPORT, GtkGLArea)

GtkWidget *esl_viewport_new(void);

/* The model must outlive the viewport's use of it (until the next set_model). NULL clears. */
void esl_viewport_set_model(EslViewport *self, const MbsModel *model);
/* Body poses (nbodies * 12) and joint violations (njoints), or NULL for the drawn state. */
void esl_viewport_set_state(EslViewport *self, const double *poses, const double *violations);
void esl_viewport_set_show_frames(EslViewport *self, gboolean show);
void esl_viewport_set_show_grid(EslViewport *self, gboolean show);
/* Follow camera (property "follow"): the view keeps the model's heaviest body (a vehicle's
 * chassis, esl_scene_vehicle_body) at its centre in every state shown. */
void esl_viewport_set_follow(EslViewport *self, gboolean follow);
gboolean esl_viewport_get_follow(EslViewport *self);
/* The camera as it is now (for tests). */
const EslCamera *esl_viewport_get_camera(EslViewport *self);
/* Highlight one element (source < 0: none). */
void esl_viewport_set_highlight(EslViewport *self, int source, int index);
/* Path drawn as a trail (n points, x y z each; copied), or n = 0 for none. */
void esl_viewport_set_trail(EslViewport *self, const float *points, int n, int body);
/* Frame the mechanism as it is drawn now, in the view's aspect ratio. */
void esl_viewport_fit(EslViewport *self);
/* Frame the ball of this radius around center (an element: a joint). */
void esl_viewport_fit_element(EslViewport *self, const float center[3], float radius);
/* Frame every one of n states (poses[i]: nbodies * 12 numbers), keeping the view direction:
 * the whole motion of a run stays in view. */
void esl_viewport_fit_states(EslViewport *self, const double *const *poses, int n);
void esl_viewport_set_view(EslViewport *self, EslStandardView view);
/* The view as it is now, drawn offscreen by the renderer at the widget's size in device pixels;
 * NULL with error when the view cannot be drawn. */
GdkTexture *esl_viewport_render_texture(EslViewport *self, GError **error);
/* NULL when the renderer works, else why it does not. */
const char *esl_viewport_get_error(EslViewport *self);

G_END_DECLS

#endif
