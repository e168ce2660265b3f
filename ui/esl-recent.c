/* Recent files; see esl-recent.h. */
#include "esl-recent.h"

void esl_recent_add(const char *path)
{
    g_autoptr(GFile) file = g_file_new_for_path(path);
    g_autofree char *uri = g_file_get_uri(file);
    /* add_full, not add_item: add_item looks the type up asynchronously, so the file would not
     * be listed yet when the menus are refilled. */
    g_autofree char *exec = g_strdup_printf("%s %%u", g_get_prgname());
    GtkRecentData data = {
        .mime_type = g_str_has_suffix(path, ".json") ? (char *)"application/json"
                                                      : (char *)"application/x-eslabon-project",
        .app_name = (char *)g_get_application_name(),
        .app_exec = exec,
    };
    gtk_recent_manager_add_full(gtk_recent_manager_get_default(), uri, &data);
}

void esl_recent_forget(const char *path)
{
    g_autoptr(GFile) file = g_file_new_for_path(path);
    g_autofree char *uri = g_file_get_uri(file);
    gtk_recent_manager_remove_item(gtk_recent_manager_get_default(), uri, NULL);
}

static int newest_first(gconstpointer a, gconstpointer b)
{
    GtkRecentInfo *x = *(GtkRecentInfo *const *)a, *y = *(GtkRecentInfo *const *)b;
    /* transfer none */
    return g_date_time_compare(gtk_recent_info_get_modified(y), gtk_recent_info_get_modified(x));
}

GPtrArray *esl_recent_list(int max)
{
    GPtrArray *paths = g_ptr_array_new_with_free_func(g_free);
    GList *items = gtk_recent_manager_get_items(gtk_recent_manager_get_default());
    g_autoptr(GPtrArray) ours = g_ptr_array_new();
    const char *app = g_get_application_name();
    for (GList *l = items; l; l = l->next) {
        GtkRecentInfo *info = l->data;
        const char *uri = gtk_recent_info_get_uri(info);
        if (app && gtk_recent_info_has_application(info, app) &&
            (g_str_has_suffix(uri, ".json") || g_str_has_suffix(uri, ".eslabon")) &&
            gtk_recent_info_is_local(info) && gtk_recent_info_exists(info))
            g_ptr_array_add(ours, info);
    }
    g_ptr_array_sort(ours, newest_first);
    for (guint i = 0; i < ours->len && (int)paths->len < max; i++) {
        g_autoptr(GFile) file = g_file_new_for_uri(gtk_recent_info_get_uri(ours->pdata[i]));
        char *path = g_file_get_path(file);
        if (path)
            g_ptr_array_add(paths, path);
    }
    g_list_free_full(items, (GDestroyNotify)gtk_recent_info_unref);
    return paths;
}
