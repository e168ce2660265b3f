/* The start page; see esl-start-page.h. */
#include "esl-start-page.h"
#include "esl-template.h"

#include <glib/gi18n.h>
#include <json-glib/json-glib.h>

#include "esl-model-file.h"
#include "esl-models-dir.h"
#include "esl-recent.h"
#include "esl-renderer.h"
#include "esl-scene.h"

#define THUMBNAIL_WIDTH 320
#define THUMBNAIL_HEIGHT 160
#define RECENT_MAX 8

struct _EslStartPage {
    GtkWidget parent_instance;
    GtkWidget *gallery, *recent_box; /* template */
    GPtrArray *thumbnails; /* GtkPicture of each gallery card, "path" set on it */
    gboolean thumbnails_drawn;
};

G_DEFINE_FINAL_TYPE(EslStartPage, esl_start_page, GTK_TYPE_WIDGET)

enum { SIGNAL_MODEL_CHOSEN, N_SIGNALS };
static guint signals[N_SIGNALS];

static void on_gallery_clicked(GtkButton *button, EslStartPage *self)
{
    g_signal_emit(self, signals[SIGNAL_MODEL_CHOSEN], 0,
                  g_object_get_data(G_OBJECT(button), "path"));
}

/* Thumbnails of the gallery: each bundled model drawn offscreen with the renderer, in a GL
 * context of the window's surface. Without OpenGL the cards simply have no picture. */
static void draw_thumbnails(EslStartPage *self)
{
    if (self->thumbnails_drawn || self->thumbnails->len == 0)
        return;
    self->thumbnails_drawn = TRUE;
    GdkSurface *surface = gtk_native_get_surface(gtk_widget_get_native(GTK_WIDGET(self)));
    g_autoptr(GError) error = NULL;
    g_autoptr(GdkGLContext) context = surface ? gdk_surface_create_gl_context(surface, &error)
                                              : NULL;
    if (!context)
        return;
    gdk_gl_context_set_required_version(context, 3, 3);
    if (!gdk_gl_context_realize(context, &error)) {
        g_debug("no thumbnails: %s", error->message);
        return;
    }
    gdk_gl_context_make_current(context);
    EslRenderer *renderer = esl_renderer_new(&error);
    if (!renderer || !esl_renderer_set_offscreen_size(renderer, THUMBNAIL_WIDTH,
                                                      THUMBNAIL_HEIGHT, &error)) {
        g_debug("no thumbnails: %s", error ? error->message : "");
        esl_renderer_free(renderer);
        gdk_gl_context_clear_current();
        return;
    }
    EslScene *scene = esl_scene_new();
    gsize stride = THUMBNAIL_WIDTH * 4;
    for (guint i = 0; i < self->thumbnails->len; i++) {
        GtkWidget *picture = self->thumbnails->pdata[i];
        const char *path = g_object_get_data(G_OBJECT(picture), "path");
        MbsModel *m = esl_model_load_file(path, NULL, 0, NULL);
        if (!m)
            continue;
        esl_scene_build(scene, m, NULL, NULL, NULL);
        EslCamera camera = {0};
        esl_camera_set_view(&camera, ESL_VIEW_ISOMETRIC, scene);
        guint8 *pixels = g_malloc(stride * THUMBNAIL_HEIGHT);
        if (esl_renderer_render_offscreen(renderer, scene, &camera, pixels, NULL)) {
            g_autoptr(GBytes) bytes = g_bytes_new_take(pixels, stride * THUMBNAIL_HEIGHT);
            g_autoptr(GdkTexture) texture = gdk_memory_texture_new(
                THUMBNAIL_WIDTH, THUMBNAIL_HEIGHT, GDK_MEMORY_R8G8B8A8, bytes, stride);
            gtk_picture_set_paintable(GTK_PICTURE(picture), GDK_PAINTABLE(texture));
        } else {
            g_free(pixels);
        }
        mbs_model_free(m);
    }
    esl_scene_free(scene);
    esl_renderer_free(renderer);
    gdk_gl_context_clear_current();
}

/* The thumbnails are drawn when the page is first shown (a window opened on a model never
 * draws them). */
static void esl_start_page_map(GtkWidget *widget)
{
    GTK_WIDGET_CLASS(esl_start_page_parent_class)->map(widget);
    draw_thumbnails(ESL_START_PAGE(widget));
}

/* g_ptr_array_sort passes pointers to the elements. */
static int compare_names(gconstpointer a, gconstpointer b)
{
    return g_strcmp0(*(char *const *)a, *(char *const *)b);
}

static void fill_gallery(EslStartPage *self)
{
    g_autoptr(GDir) dir = g_dir_open(esl_models_dir(), 0, NULL);
    g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func(g_free);
    const char *name;
    while (dir && (name = g_dir_read_name(dir)))
        if (g_str_has_suffix(name, ".json"))
            g_ptr_array_add(names, g_strdup(name));
    g_ptr_array_sort(names, compare_names);
    for (guint i = 0; i < names->len; i++) {
        g_autofree char *path = g_build_filename(esl_models_dir(), names->pdata[i], NULL);
        /* the loader's guards (a FIFO, /dev/zero, deep nesting, a huge file): skipped */
        g_autoptr(JsonNode) root = esl_model_file_read_json(path, NULL);
        if (!root || !JSON_NODE_HOLDS_OBJECT(root))
            continue;
        JsonObject *o = json_node_get_object(root);
        const char *title = json_object_get_string_member_with_default(o, "name", names->pdata[i]);
        const char *description = json_object_get_string_member_with_default(o, "description", "");
        GtkWidget *box = gtk_box_new(GTK_ORIENTATION_VERTICAL, 6);
        GtkWidget *picture = gtk_picture_new();
        gtk_widget_set_size_request(picture, THUMBNAIL_WIDTH, THUMBNAIL_HEIGHT);
        gtk_picture_set_can_shrink(GTK_PICTURE(picture), FALSE);
        gtk_widget_set_halign(picture, GTK_ALIGN_CENTER);
        gtk_widget_set_valign(picture, GTK_ALIGN_START);
        g_object_set_data_full(G_OBJECT(picture), "path", g_strdup(path), g_free);
        g_ptr_array_add(self->thumbnails, picture);
        gtk_box_append(GTK_BOX(box), picture);
        GtkWidget *heading = gtk_label_new(title);
        gtk_widget_add_css_class(heading, "heading");
        gtk_label_set_xalign(GTK_LABEL(heading), 0);
        GtkWidget *text = gtk_label_new(description);
        gtk_label_set_wrap(GTK_LABEL(text), TRUE);
        gtk_label_set_lines(GTK_LABEL(text), 5);
        gtk_label_set_ellipsize(GTK_LABEL(text), PANGO_ELLIPSIZE_END);
        gtk_label_set_max_width_chars(GTK_LABEL(text), 40);
        gtk_label_set_xalign(GTK_LABEL(text), 0);
        gtk_label_set_yalign(GTK_LABEL(text), 0);
        gtk_widget_add_css_class(text, "dim-label");
        gtk_box_append(GTK_BOX(box), heading);
        gtk_box_append(GTK_BOX(box), text);
        GtkWidget *button = gtk_button_new();
        gtk_button_set_child(GTK_BUTTON(button), box);
        gtk_widget_add_css_class(button, "model-card");
        gtk_widget_set_valign(button, GTK_ALIGN_START);
        gtk_widget_set_tooltip_text(button, description);
        g_object_set_data_full(G_OBJECT(button), "path", g_strdup(path), g_free);
        g_signal_connect(button, "clicked", G_CALLBACK(on_gallery_clicked), self);
        gtk_flow_box_append(GTK_FLOW_BOX(self->gallery), button);
    }
    if (names->len == 0) {
        g_autofree char *text =
            g_strdup_printf(_("No bundled models found in %s."), esl_models_dir());
        gtk_flow_box_append(GTK_FLOW_BOX(self->gallery), gtk_label_new(text));
    }
}

static void on_recent_clicked(GtkButton *button, EslStartPage *self)
{
    gtk_widget_activate_action(GTK_WIDGET(self), "win.open-recent", "s",
                               g_object_get_data(G_OBJECT(button), "path"));
}

/* The list of recent files under its heading. */
static void fill_recent(EslStartPage *self)
{
    g_autoptr(GPtrArray) paths = esl_recent_list(RECENT_MAX);
    GtkWidget *heading = gtk_widget_get_first_child(self->recent_box);
    GtkWidget *child;
    while ((child = gtk_widget_get_next_sibling(heading)))
        gtk_box_remove(GTK_BOX(self->recent_box), child);
    for (guint i = 0; i < paths->len; i++) {
        const char *path = paths->pdata[i];
        g_autofree char *base = g_path_get_basename(path);
        g_autofree char *dir = g_path_get_dirname(path);
        g_autofree char *markup =
            g_markup_printf_escaped("%s  <span alpha=\"60%%\">%s</span>", base, dir);
        GtkWidget *label = gtk_label_new(NULL);
        gtk_label_set_markup(GTK_LABEL(label), markup);
        gtk_label_set_xalign(GTK_LABEL(label), 0);
        gtk_label_set_ellipsize(GTK_LABEL(label), PANGO_ELLIPSIZE_MIDDLE);
        GtkWidget *button = gtk_button_new();
        gtk_button_set_child(GTK_BUTTON(button), label);
        gtk_widget_add_css_class(button, "flat");
        gtk_widget_set_tooltip_text(button, path);
        g_object_set_data_full(G_OBJECT(button), "path", g_strdup(path), g_free);
        g_signal_connect(button, "clicked", G_CALLBACK(on_recent_clicked), self);
        gtk_box_append(GTK_BOX(self->recent_box), button);
    }
    gtk_widget_set_visible(self->recent_box, paths->len > 0);
}

static void on_recent_changed(GtkRecentManager *manager, EslStartPage *self)
{
    (void)manager;
    fill_recent(self);
}

static void esl_start_page_dispose(GObject *object)
{
    g_signal_handlers_disconnect_by_data(gtk_recent_manager_get_default(), object);
    gtk_widget_dispose_template(GTK_WIDGET(object), ESL_TYPE_START_PAGE);
    esl_template_unparent_children(GTK_WIDGET(object));
    G_OBJECT_CLASS(esl_start_page_parent_class)->dispose(object);
}

static void esl_start_page_finalize(GObject *object)
{
    g_ptr_array_unref(ESL_START_PAGE(object)->thumbnails);
    G_OBJECT_CLASS(esl_start_page_parent_class)->finalize(object);
}

static void esl_start_page_class_init(EslStartPageClass *klass)
{
    GObjectClass *object_class = G_OBJECT_CLASS(klass);
    GtkWidgetClass *widget_class = GTK_WIDGET_CLASS(klass);
    object_class->dispose = esl_start_page_dispose;
    object_class->finalize = esl_start_page_finalize;
    widget_class->map = esl_start_page_map;
    gtk_widget_class_set_layout_manager_type(widget_class, GTK_TYPE_BIN_LAYOUT);
    gtk_widget_class_set_css_name(widget_class, "eslstartpage");
    gtk_widget_class_set_template_from_resource(widget_class,
                                                "/org/eslabon/Eslabon/ui/esl-start-page.ui");
    gtk_widget_class_bind_template_child(widget_class, EslStartPage, gallery);
    gtk_widget_class_bind_template_child(widget_class, EslStartPage, recent_box);
    signals[SIGNAL_MODEL_CHOSEN] =
        g_signal_new("model-chosen", G_TYPE_FROM_CLASS(klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL,
                     NULL, G_TYPE_NONE, 1, G_TYPE_STRING);
}

static void esl_start_page_init(EslStartPage *self)
{
    gtk_widget_init_template(GTK_WIDGET(self));
    self->thumbnails = g_ptr_array_new();
    fill_gallery(self);
    fill_recent(self);
    g_signal_connect(gtk_recent_manager_get_default(), "changed", G_CALLBACK(on_recent_changed),
                     self);
}
