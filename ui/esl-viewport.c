/* 3D viewport; see esl-viewport.h. */
#include "esl-viewport.h"

#include <epoxy/gl.h>
#include <glib/gi18n.h>
#include <math.h>
#include <string.h>

struct _EslViewport {
    GtkGLArea parent_instance;
    EslRenderer *renderer;
    char *error;
    const MbsModel *model;
    EslScene *scene;
    EslSceneOptions options;
    EslCamera camera;
    double *poses, *violations; /* copies of the current state, or NULL */
    float *trail;               /* n_trail points */
    float motion_floor;         /* floor under every state framed by fit_states, or +inf */
    int n_trail, trail_body;
    gboolean camera_set;
    gboolean show_grid;
    gboolean follow;
    /* drag */
    EslCamera drag_camera;
    gboolean drag_pan;
    EslCamera pinch_camera; /* camera when a pinch began */
};

G_DEFINE_FINAL_TYPE(EslViewport, esl_viewport, GTK_TYPE_GL_AREA)

enum { SIGNAL_PICKED, N_SIGNALS };
static guint signals[N_SIGNALS];
enum { PROP_0, PROP_FOLLOW, N_PROPS };
static GParamSpec *props[N_PROPS];

static void rebuild_scene(EslViewport *self)
{
    if (!self->model) {
        self->scene->n = 0;
    } else {
        esl_scene_build(self->scene, self->model, self->poses, self->violations, &self->options);
        self->scene->floor = fminf(self->scene->floor, self->motion_floor);
        static const float trail_color[4] = {0.95f, 0.55f, 0.10f, 1.0f};
        if (self->n_trail > 1)
            esl_scene_add_trail(self->scene, self->trail, self->n_trail, trail_color,
                                self->trail_body);
        if (!self->camera_set) {
            esl_camera_set_view(&self->camera, ESL_VIEW_ISOMETRIC, self->scene);
            self->camera_set = TRUE;
        }
        int body = self->follow ? esl_scene_vehicle_body(self->model) : -1;
        if (body >= 0) {
            float center[3];
            esl_scene_body_center(self->model, self->poses, body, center);
            esl_camera_follow(&self->camera, center);
        }
    }
    gtk_gl_area_queue_render(GTK_GL_AREA(self));
}

static void esl_viewport_realize(GtkWidget *widget)
{
    EslViewport *self = ESL_VIEWPORT(widget);
    GTK_WIDGET_CLASS(esl_viewport_parent_class)->realize(widget);
    gtk_gl_area_make_current(GTK_GL_AREA(self));
    GError *gl_error = gtk_gl_area_get_error(GTK_GL_AREA(self));
    if (gl_error) {
        g_free(self->error);
        self->error = g_strdup(gl_error->message);
        return;
    }
    g_autoptr(GError) error = NULL;
    self->renderer = esl_renderer_new(&error);
    if (!self->renderer) {
        g_free(self->error);
        self->error = g_strdup(error->message);
        gtk_gl_area_set_error(GTK_GL_AREA(self), error);
        return;
    }
    esl_renderer_set_show_grid(self->renderer, self->show_grid);
}

static void esl_viewport_unrealize(GtkWidget *widget)
{
    EslViewport *self = ESL_VIEWPORT(widget);
    gtk_gl_area_make_current(GTK_GL_AREA(self));
    if (!gtk_gl_area_get_error(GTK_GL_AREA(self)))
        g_clear_pointer(&self->renderer, esl_renderer_free);
    self->renderer = NULL;
    GTK_WIDGET_CLASS(esl_viewport_parent_class)->unrealize(widget);
}

static gboolean esl_viewport_render(GtkGLArea *area, GdkGLContext *context)
{
    (void)context;
    EslViewport *self = ESL_VIEWPORT(area);
    if (!self->renderer)
        return FALSE;
    int scale = gtk_widget_get_scale_factor(GTK_WIDGET(area));
    int w = gtk_widget_get_width(GTK_WIDGET(area)) * scale;
    int h = gtk_widget_get_height(GTK_WIDGET(area)) * scale;
    esl_renderer_draw(self->renderer, self->scene, &self->camera, w, h);
    return TRUE;
}

GdkTexture *esl_viewport_render_texture(EslViewport *self, GError **error)
{
    if (!self->renderer) {
        g_set_error(error, ESL_RENDERER_ERROR, 0, "%s",
                    self->error ? self->error : _("the 3D view is not shown yet"));
        return NULL;
    }
    int scale = gtk_widget_get_scale_factor(GTK_WIDGET(self));
    int w = MAX(gtk_widget_get_width(GTK_WIDGET(self)) * scale, 16);
    int h = MAX(gtk_widget_get_height(GTK_WIDGET(self)) * scale, 16);
    gtk_gl_area_make_current(GTK_GL_AREA(self));
    gsize stride = (gsize)w * 4;
    guint8 *pixels = g_malloc(stride * (gsize)h);
    if (!esl_renderer_set_offscreen_size(self->renderer, w, h, error) ||
        !esl_renderer_render_offscreen(self->renderer, self->scene, &self->camera, pixels,
                                       error)) {
        g_free(pixels);
        return NULL;
    }
    g_autoptr(GBytes) bytes = g_bytes_new_take(pixels, stride * (gsize)h);
    return gdk_memory_texture_new(w, h, GDK_MEMORY_R8G8B8A8, bytes, stride);
}

/* ---- interaction ------------------------------------------------------------------------- */

static void on_drag_begin(GtkGestureDrag *gesture, double x, double y, EslViewport *self)
{
    (void)x;
    (void)y;
    guint button = gtk_gesture_single_get_current_button(GTK_GESTURE_SINGLE(gesture));
    GdkModifierType mods =
        gtk_event_controller_get_current_event_state(GTK_EVENT_CONTROLLER(gesture));
    self->drag_camera = self->camera;
    self->drag_pan = button == GDK_BUTTON_MIDDLE || (mods & GDK_SHIFT_MASK);
}

static void on_drag_update(GtkGestureDrag *gesture, double dx, double dy, EslViewport *self)
{
    (void)gesture;
    int h = MAX(gtk_widget_get_height(GTK_WIDGET(self)), 1);
    self->camera = self->drag_camera;
    if (self->drag_pan)
        esl_camera_pan(&self->camera, (float)(dx / h), (float)(dy / h));
    else
        esl_camera_orbit(&self->camera, (float)(-dx * 0.01), (float)(dy * 0.01));
    gtk_gl_area_queue_render(GTK_GL_AREA(self));
}

/* A mouse wheel zooms. Two fingers on a touchpad (smooth scrolling, in pixels) orbit, pan with
 * Shift, zoom with Ctrl; pinching zooms too (on_pinch). */
static gboolean on_scroll(GtkEventControllerScroll *controller, double dx, double dy,
                          EslViewport *self)
{
    if (gtk_event_controller_scroll_get_unit(controller) == GDK_SCROLL_UNIT_WHEEL) {
        esl_camera_zoom(&self->camera, (float)pow(1.15, dy));
    } else {
        GdkModifierType mods =
            gtk_event_controller_get_current_event_state(GTK_EVENT_CONTROLLER(controller));
        int h = MAX(gtk_widget_get_height(GTK_WIDGET(self)), 1);
        if (mods & GDK_CONTROL_MASK)
            esl_camera_zoom(&self->camera, (float)pow(1.01, dy));
        else if (mods & GDK_SHIFT_MASK)
            esl_camera_pan(&self->camera, (float)(-dx / h), (float)(-dy / h));
        else
            esl_camera_orbit(&self->camera, (float)(dx * 0.01), (float)(-dy * 0.01));
    }
    gtk_gl_area_queue_render(GTK_GL_AREA(self));
    return TRUE;
}

static void on_pinch_begin(GtkGesture *gesture, GdkEventSequence *sequence, EslViewport *self)
{
    (void)gesture;
    (void)sequence;
    self->pinch_camera = self->camera;
}

/* scale: the fingers' distance relative to the start of the pinch; spreading them zooms in. */
static void on_pinch(GtkGestureZoom *gesture, double scale, EslViewport *self)
{
    (void)gesture;
    if (!(scale > 0))
        return;
    self->camera = self->pinch_camera;
    esl_camera_zoom(&self->camera, (float)(1.0 / scale));
    gtk_gl_area_queue_render(GTK_GL_AREA(self));
}

static void on_click_released(GtkGestureClick *gesture, int n_press, double x, double y,
                              EslViewport *self)
{
    (void)gesture;
    if (n_press == 2) {
        esl_viewport_fit(self);
        return;
    }
    if (!self->model)
        return;
    float origin[3], dir[3];
    esl_camera_ray(&self->camera, gtk_widget_get_width(GTK_WIDGET(self)),
                   gtk_widget_get_height(GTK_WIDGET(self)), (float)x, (float)y, origin, dir);
    /* a few pixels of slack at the target's distance */
    float pixel = 2.0f * self->camera.distance * tanf(0.5f * self->camera.fov) /
                  (float)MAX(gtk_widget_get_height(GTK_WIDGET(self)), 1);
    int hit = esl_scene_pick(self->scene, origin, dir, 5.0f * pixel);
    int source = -1, index = -1;
    if (hit >= 0) {
        const EslDrawable *d = &self->scene->items[hit];
        source = d->source == ESL_SOURCE_GROUND                                ? ESL_SOURCE_JOINT
                 : d->source == ESL_SOURCE_FRAME || d->source == ESL_SOURCE_TRAIL ? ESL_SOURCE_BODY
                                                                                  : (int)d->source;
        index = d->index;
    }
    g_signal_emit(self, signals[SIGNAL_PICKED], 0, source, index);
}

/* ---- object ------------------------------------------------------------------------------ */

static void esl_viewport_finalize(GObject *object)
{
    EslViewport *self = ESL_VIEWPORT(object);
    esl_scene_free(self->scene);
    g_free(self->poses);
    g_free(self->violations);
    g_free(self->trail);
    g_free(self->error);
    G_OBJECT_CLASS(esl_viewport_parent_class)->finalize(object);
}

static void esl_viewport_get_property(GObject *object, guint id, GValue *value,
                                      GParamSpec *pspec)
{
    if (id == PROP_FOLLOW)
        g_value_set_boolean(value, ESL_VIEWPORT(object)->follow);
    else
        G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, pspec);
}

static void esl_viewport_set_property(GObject *object, guint id, const GValue *value,
                                      GParamSpec *pspec)
{
    if (id == PROP_FOLLOW)
        esl_viewport_set_follow(ESL_VIEWPORT(object), g_value_get_boolean(value));
    else
        G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, pspec);
}

static void esl_viewport_class_init(EslViewportClass *klass)
{
    GtkWidgetClass *widget_class = GTK_WIDGET_CLASS(klass);
    G_OBJECT_CLASS(klass)->finalize = esl_viewport_finalize;
    G_OBJECT_CLASS(klass)->get_property = esl_viewport_get_property;
    G_OBJECT_CLASS(klass)->set_property = esl_viewport_set_property;
    props[PROP_FOLLOW] = g_param_spec_boolean("follow", NULL, NULL, FALSE,
                                              G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY |
                                                  G_PARAM_STATIC_STRINGS);
    g_object_class_install_properties(G_OBJECT_CLASS(klass), N_PROPS, props);
    widget_class->realize = esl_viewport_realize;
    widget_class->unrealize = esl_viewport_unrealize;
    GTK_GL_AREA_CLASS(klass)->render = esl_viewport_render;
    signals[SIGNAL_PICKED] = g_signal_new("picked", G_TYPE_FROM_CLASS(klass), G_SIGNAL_RUN_LAST,
                                          0, NULL, NULL, NULL, G_TYPE_NONE, 2, G_TYPE_INT,
                                          G_TYPE_INT);
}

static void esl_viewport_init(EslViewport *self)
{
    self->scene = esl_scene_new();
    self->show_grid = TRUE;
    self->motion_floor = INFINITY;
    esl_scene_options_defaults(&self->options);
    gtk_gl_area_set_required_version(GTK_GL_AREA(self), 3, 3);
    gtk_gl_area_set_has_depth_buffer(GTK_GL_AREA(self), TRUE);
    /* Render only when the scene or the camera changes, not on every window redraw. */
    gtk_gl_area_set_auto_render(GTK_GL_AREA(self), FALSE);
    gtk_widget_set_hexpand(GTK_WIDGET(self), TRUE);
    gtk_widget_set_vexpand(GTK_WIDGET(self), TRUE);
    gtk_widget_set_size_request(GTK_WIDGET(self), 320, 240);

    GtkGesture *drag = gtk_gesture_drag_new();
    gtk_gesture_single_set_button(GTK_GESTURE_SINGLE(drag), 0);
    g_signal_connect(drag, "drag-begin", G_CALLBACK(on_drag_begin), self);
    g_signal_connect(drag, "drag-update", G_CALLBACK(on_drag_update), self);
    gtk_widget_add_controller(GTK_WIDGET(self), GTK_EVENT_CONTROLLER(drag));

    GtkGesture *click = gtk_gesture_click_new();
    g_signal_connect(click, "released", G_CALLBACK(on_click_released), self);
    gtk_widget_add_controller(GTK_WIDGET(self), GTK_EVENT_CONTROLLER(click));

    GtkEventController *scroll =
        gtk_event_controller_scroll_new(GTK_EVENT_CONTROLLER_SCROLL_BOTH_AXES);
    g_signal_connect(scroll, "scroll", G_CALLBACK(on_scroll), self);
    gtk_widget_add_controller(GTK_WIDGET(self), scroll);

    GtkGesture *pinch = gtk_gesture_zoom_new();
    g_signal_connect(pinch, "begin", G_CALLBACK(on_pinch_begin), self);
    g_signal_connect(pinch, "scale-changed", G_CALLBACK(on_pinch), self);
    gtk_widget_add_controller(GTK_WIDGET(self), GTK_EVENT_CONTROLLER(pinch));
}

GtkWidget *esl_viewport_new(void)
{
    return g_object_new(ESL_TYPE_VIEWPORT, NULL);
}

void esl_viewport_set_model(EslViewport *self, const MbsModel *model)
{
    self->model = model;
    g_clear_pointer(&self->poses, g_free);
    g_clear_pointer(&self->violations, g_free);
    g_clear_pointer(&self->trail, g_free);
    self->n_trail = 0;
    self->motion_floor = INFINITY;
    self->camera_set = FALSE;
    self->options.highlight_source = -1;
    rebuild_scene(self);
}

void esl_viewport_set_state(EslViewport *self, const double *poses, const double *violations)
{
    if (!self->model)
        return;
    g_clear_pointer(&self->poses, g_free);
    g_clear_pointer(&self->violations, g_free);
    if (poses)
        self->poses = g_memdup2(poses, sizeof(double) * 12 * self->model->nbodies);
    if (violations && self->model->njoints > 0)
        self->violations = g_memdup2(violations, sizeof(double) * self->model->njoints);
    rebuild_scene(self);
}

void esl_viewport_set_show_frames(EslViewport *self, gboolean show)
{
    self->options.show_frames = show;
    rebuild_scene(self);
}

void esl_viewport_set_show_grid(EslViewport *self, gboolean show)
{
    self->show_grid = show;
    if (self->renderer)
        esl_renderer_set_show_grid(self->renderer, show);
    gtk_gl_area_queue_render(GTK_GL_AREA(self));
}

void esl_viewport_set_follow(EslViewport *self, gboolean follow)
{
    follow = !!follow;
    if (self->follow == follow)
        return;
    self->follow = follow;
    g_object_notify_by_pspec(G_OBJECT(self), props[PROP_FOLLOW]);
    if (follow) { /* the vehicle, not its whole drive, with some road around it */
        esl_viewport_fit(self);
        esl_camera_zoom(&self->camera, 1.6f);
    }
    rebuild_scene(self);
}

gboolean esl_viewport_get_follow(EslViewport *self)
{
    return self->follow;
}

const EslCamera *esl_viewport_get_camera(EslViewport *self)
{
    return &self->camera;
}

void esl_viewport_set_highlight(EslViewport *self, int source, int index)
{
    self->options.highlight_source = source;
    self->options.highlight_index = index;
    rebuild_scene(self);
}

void esl_viewport_set_trail(EslViewport *self, const float *points, int n, int body)
{
    g_clear_pointer(&self->trail, g_free);
    self->n_trail = n > 1 ? n : 0;
    self->trail_body = body;
    if (self->n_trail)
        self->trail = g_memdup2(points, sizeof(float) * 3 * (gsize)n);
    rebuild_scene(self);
}

/* Width / height of the view (1 before it has a size). */
static float viewport_aspect(EslViewport *self)
{
    int w = gtk_widget_get_width(GTK_WIDGET(self)), h = gtk_widget_get_height(GTK_WIDGET(self));
    return w > 0 && h > 0 ? (float)w / (float)h : 1.0f;
}

void esl_viewport_fit(EslViewport *self)
{
    float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    esl_scene_grow_bounds(self->scene, lo, hi);
    if (lo[0] <= hi[0]) /* the mechanism as it is now */
        esl_camera_fit_box(&self->camera, lo, hi, viewport_aspect(self));
    else
        esl_camera_fit(&self->camera, self->scene);
    gtk_gl_area_queue_render(GTK_GL_AREA(self));
}

void esl_viewport_fit_element(EslViewport *self, const float center[3], float radius)
{
    float lo[3], hi[3];
    for (int k = 0; k < 3; k++) {
        lo[k] = center[k] - radius;
        hi[k] = center[k] + radius;
    }
    esl_camera_fit_box(&self->camera, lo, hi, viewport_aspect(self));
    gtk_gl_area_queue_render(GTK_GL_AREA(self));
}

void esl_viewport_fit_states(EslViewport *self, const double *const *poses, int n)
{
    if (!self->model || n <= 0)
        return;
    float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    EslScene *scratch = esl_scene_new();
    for (int i = 0; i < n; i++) {
        esl_scene_build(scratch, self->model, poses[i], NULL, &self->options);
        esl_scene_grow_bounds(scratch, lo, hi);
    }
    esl_scene_free(scratch);
    if (!(lo[0] <= hi[0]))
        return;
    float size = 0;
    for (int k = 0; k < 3; k++)
        size += (hi[k] - lo[k]) * (hi[k] - lo[k]);
    float radius = fmaxf(0.5f * sqrtf(size), 1e-3f);
    if (!self->follow) /* a follow camera keeps its distance */
        esl_camera_fit_box(&self->camera, lo, hi, viewport_aspect(self));
    /* the floor goes under the lowest corner of the motion's box */
    const float *up = self->scene->up;
    float lowest = INFINITY;
    for (int c = 0; c < 8; c++) {
        float corner[3] = {(c & 1) ? hi[0] : lo[0], (c & 2) ? hi[1] : lo[1],
                           (c & 4) ? hi[2] : lo[2]};
        lowest = fminf(lowest, corner[0] * up[0] + corner[1] * up[1] + corner[2] * up[2]);
    }
    self->motion_floor = lowest - 0.05f * radius;
    rebuild_scene(self);
}

void esl_viewport_set_view(EslViewport *self, EslStandardView view)
{
    esl_camera_set_view(&self->camera, view, self->scene);
    gtk_gl_area_queue_render(GTK_GL_AREA(self));
}

const char *esl_viewport_get_error(EslViewport *self)
{
    return self->error;
}
