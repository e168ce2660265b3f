/* Drop-downs that keep their width; see esl-drop-down.h. */
#include "esl-drop-down.h"

/* The full text in a tooltip only when the label is ellipsized, followed by the drop-down's
 * own tooltip (a setting's description); otherwise the drop-down's tooltip is the one shown
 * (GTK asks the widgets under the pointer from the innermost out). */
static gboolean on_query_tooltip(GtkWidget *label, int x, int y, gboolean keyboard,
                                 GtkTooltip *tooltip, gpointer data)
{
    (void)x;
    (void)y;
    (void)keyboard;
    (void)data;
    if (!pango_layout_is_ellipsized(gtk_label_get_layout(GTK_LABEL(label))))
        return FALSE;
    GtkWidget *drop_down = gtk_widget_get_ancestor(label, GTK_TYPE_DROP_DOWN);
    const char *about = drop_down ? gtk_widget_get_tooltip_text(drop_down) : NULL;
    const char *full = gtk_label_get_text(GTK_LABEL(label));
    g_autofree char *text = about ? g_strdup_printf("%s\n\n%s", full, about) : g_strdup(full);
    /* wrapped: a description is a long line, which GTK 4.8's tooltips do not wrap */
    GtkWidget *shown = gtk_label_new(text);
    gtk_label_set_wrap(GTK_LABEL(shown), TRUE);
    gtk_label_set_max_width_chars(GTK_LABEL(shown), 60);
    gtk_label_set_xalign(GTK_LABEL(shown), 0);
    gtk_tooltip_set_custom(tooltip, shown);
    return TRUE;
}

static void setup_button_item(GtkSignalListItemFactory *factory, GtkListItem *item,
                              gpointer data)
{
    (void)factory;
    (void)data;
    GtkWidget *label = gtk_label_new(NULL);
    gtk_label_set_xalign(GTK_LABEL(label), 0);
    gtk_label_set_ellipsize(GTK_LABEL(label), PANGO_ELLIPSIZE_END);
    gtk_label_set_width_chars(GTK_LABEL(label), ESL_DROP_DOWN_MIN_CHARS);
    gtk_label_set_max_width_chars(GTK_LABEL(label), ESL_DROP_DOWN_MAX_CHARS);
    gtk_widget_set_hexpand(label, TRUE);
    gtk_widget_set_has_tooltip(label, TRUE);
    g_signal_connect(label, "query-tooltip", G_CALLBACK(on_query_tooltip), NULL);
    gtk_list_item_set_child(item, label);
}

static const char *item_text(GtkListItem *item)
{
    gpointer object = gtk_list_item_get_item(item);
    return GTK_IS_STRING_OBJECT(object) ? gtk_string_object_get_string(object) : "";
}

static void bind_button_item(GtkSignalListItemFactory *factory, GtkListItem *item,
                             gpointer data)
{
    (void)factory;
    (void)data;
    gtk_label_set_text(GTK_LABEL(gtk_list_item_get_child(item)), item_text(item));
}

/* The popup's rows: the full label and a check mark shown on the item chosen (as GTK's
 * default list: the drop-down's "selected-item" is followed while the row is bound). */
static void update_check(GtkDropDown *drop_down, GParamSpec *pspec, GtkListItem *item)
{
    (void)pspec;
    GtkWidget *check = gtk_widget_get_last_child(gtk_list_item_get_child(item));
    gtk_widget_set_opacity(check, gtk_drop_down_get_selected_item(drop_down) ==
                                          gtk_list_item_get_item(item)
                                      ? 1.0
                                      : 0.0);
}

static void setup_list_item(GtkSignalListItemFactory *factory, GtkListItem *item,
                            gpointer data)
{
    (void)factory;
    (void)data;
    GtkWidget *box = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 6);
    GtkWidget *label = gtk_label_new(NULL);
    gtk_label_set_xalign(GTK_LABEL(label), 0);
    gtk_box_append(GTK_BOX(box), label);
    gtk_box_append(GTK_BOX(box), gtk_image_new_from_icon_name("object-select-symbolic"));
    gtk_list_item_set_child(item, box);
}

static void bind_list_item(GtkSignalListItemFactory *factory, GtkListItem *item,
                           gpointer drop_down)
{
    (void)factory;
    GtkWidget *box = gtk_list_item_get_child(item);
    gtk_label_set_text(GTK_LABEL(gtk_widget_get_first_child(box)), item_text(item));
    g_signal_connect(drop_down, "notify::selected-item", G_CALLBACK(update_check), item);
    update_check(drop_down, NULL, item);
}

static void unbind_list_item(GtkSignalListItemFactory *factory, GtkListItem *item,
                             gpointer drop_down)
{
    (void)factory;
    g_signal_handlers_disconnect_by_func(drop_down, update_check, item);
}

GtkWidget *esl_drop_down_new(GtkStringList *strings)
{
    GtkWidget *drop_down = gtk_drop_down_new(G_LIST_MODEL(strings), NULL);
    GtkListItemFactory *button = gtk_signal_list_item_factory_new();
    g_signal_connect(button, "setup", G_CALLBACK(setup_button_item), NULL);
    g_signal_connect(button, "bind", G_CALLBACK(bind_button_item), NULL);
    gtk_drop_down_set_factory(GTK_DROP_DOWN(drop_down), button);
    g_object_unref(button);
    /* the rows live inside the drop-down's popover: they never outlive it */
    GtkListItemFactory *list = gtk_signal_list_item_factory_new();
    g_signal_connect(list, "setup", G_CALLBACK(setup_list_item), NULL);
    g_signal_connect(list, "bind", G_CALLBACK(bind_list_item), drop_down);
    g_signal_connect(list, "unbind", G_CALLBACK(unbind_list_item), drop_down);
    gtk_drop_down_set_list_factory(GTK_DROP_DOWN(drop_down), list);
    g_object_unref(list);
    return drop_down;
}
