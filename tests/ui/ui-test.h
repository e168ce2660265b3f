/* Helpers the window tests share: key presses through the shortcut controllers, and widgets
 * found by type. Header-only (static functions), included by tests/ui/test_*.c. */
#ifndef ESL_UI_TEST_H
#define ESL_UI_TEST_H

#include <glib/gstdio.h>
#include <gtk/gtk.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"

/* A test's watchdog: g_timeout_add_seconds(s, ui_test_timed_out, GINT_TO_POINTER(s)) fails
 * the test and exits when its checks have not finished within s seconds. */
static inline gboolean ui_test_timed_out(gpointer seconds)
{
    tap_ok(FALSE, "the checks finished within %d s", GPOINTER_TO_INT(seconds));
    exit(tap_done());
}

/* Activate widget's shortcut for this key (as gtk_accelerator_name writes it, e.g.
 * "<Control>p") as a key press would; FALSE when none takes it. */
static inline gboolean press(GtkWidget *widget, const char *accel)
{
    g_autoptr(GListModel) controllers = gtk_widget_observe_controllers(widget);
    for (guint i = 0; i < g_list_model_get_n_items(controllers); i++) {
        g_autoptr(GObject) controller = g_list_model_get_item(controllers, i);
        if (!GTK_IS_SHORTCUT_CONTROLLER(controller))
            continue;
        for (guint k = 0; k < g_list_model_get_n_items(G_LIST_MODEL(controller)); k++) {
            g_autoptr(GtkShortcut) shortcut = g_list_model_get_item(G_LIST_MODEL(controller), k);
            g_autofree char *trigger =
                gtk_shortcut_trigger_to_string(gtk_shortcut_get_trigger(shortcut));
            /* a shortcut that declines (returns FALSE) lets the key go on to the next, as GTK
             * does with a real key press */
            if (g_str_equal(trigger, accel) &&
                gtk_shortcut_action_activate(gtk_shortcut_get_action(shortcut), 0, widget,
                                             gtk_shortcut_get_arguments(shortcut)))
                return TRUE;
        }
    }
    return FALSE;
}

static inline GtkWidget *find_counting(GtkWidget *widget, GType type, int nth, int *seen)
{
    if (G_TYPE_CHECK_INSTANCE_TYPE(widget, type) && (*seen)++ == nth)
        return widget;
    for (GtkWidget *c = gtk_widget_get_first_child(widget); c; c = gtk_widget_get_next_sibling(c)) {
        GtkWidget *found = find_counting(c, type, nth, seen);
        if (found)
            return found;
    }
    return NULL;
}

/* The nth widget of this type under root (itself included), depth first; NULL when none. */
static inline GtkWidget *find_nth(GtkWidget *root, GType type, int nth)
{
    int seen = 0;
    return root ? find_counting(root, type, nth, &seen) : NULL;
}

/* The event controller of widget with this name (gtk_event_controller_set_name), or NULL; the
 * widget keeps its reference. */
static inline GtkEventController *find_controller(GtkWidget *widget, const char *name)
{
    g_autoptr(GListModel) controllers = gtk_widget_observe_controllers(widget);
    for (guint i = 0; i < g_list_model_get_n_items(controllers); i++) {
        g_autoptr(GtkEventController) c = g_list_model_get_item(controllers, i);
        if (g_strcmp0(gtk_event_controller_get_name(c), name) == 0)
            return c;
    }
    return NULL;
}

/* Handle what is pending, five times over (a handler may queue more: a list made again in an
 * idle, a redraw). */
static inline void iterate_pending(void)
{
    for (int i = 0; i < 5; i++)
        while (g_main_context_iteration(NULL, FALSE))
            ;
}

#ifdef ESL_TYPE_WINDOW
/* Run the window's model for duration seconds (win.run) with finished connected to its
 * "run-finished" (window, status, run id, data); the test fails when its checks have not
 * finished within seconds. */
static inline void start_run(EslWindow *window, double duration, GCallback finished,
                             gpointer data, int seconds)
{
    esl_window_set_duration(window, duration);
    g_signal_connect(window, "run-finished", finished, data);
    gtk_widget_activate_action(GTK_WIDGET(window), "win.run", NULL);
    g_timeout_add_seconds((guint)seconds, ui_test_timed_out, GINT_TO_POINTER(seconds));
}

/* Wait until the playback of a run too fast to be seen (started when it finished) has reached
 * the run's end. */
static inline void wait_replayed(EslWindow *window)
{
    for (;;) {
        g_autoptr(GVariant) state =
            g_action_group_get_action_state(G_ACTION_GROUP(window), "playback");
        if (!state || !g_variant_get_boolean(state))
            return;
        g_main_context_iteration(NULL, TRUE);
    }
}

/* The application's window opens the project at path (a TAP line says so; what names it), then
 * check(window) runs after delay_ms; the test fails when its checks have not finished within
 * seconds. */
static inline void open_project_then(GtkApplication *app, const char *path, const char *what,
                                     GSourceFunc check, guint delay_ms, int seconds)
{
    GtkWidget *window = GTK_WIDGET(gtk_application_get_active_window(app));
    g_autoptr(GError) error = NULL;
    tap_ok(esl_window_open_project(ESL_WINDOW(window), path, FALSE, &error), "%s opens%s%s",
           what, error ? ": " : "", error ? error->message : "");
    g_timeout_add(delay_ms, check, window);
    g_timeout_add_seconds((guint)seconds, ui_test_timed_out, GINT_TO_POINTER(seconds));
}

/* Wait (20 s at most) until the window has checked its model's text on the worker. */
static inline void wait_checked(EslWindow *window)
{
    gint64 end = g_get_monotonic_time() + 20 * G_USEC_PER_SEC;
    while ((esl_window_is_checking(window) || g_main_context_pending(NULL)) &&
           g_get_monotonic_time() < end)
        g_main_context_iteration(NULL, TRUE);
}
#endif

#ifdef ESL_TYPE_PLOT
/* The plot with this title under root (the board's plots by name, whatever their order); NULL
 * when none. */
static inline GtkWidget *find_plot(GtkWidget *root, const char *title)
{
    for (int i = 0;; i++) {
        GtkWidget *plot = find_nth(root, ESL_TYPE_PLOT, i);
        if (!plot || g_strcmp0(esl_plot_get_title(ESL_PLOT(plot)), title) == 0)
            return plot;
    }
}
#endif

#ifdef ESL_TYPE_PLOT
/* How many plots under root are shown (mapped); in *larger how many of those are drawn larger
 * than their normal size (presentation mode). */
static inline int shown_plots(GtkWidget *root, int *larger)
{
    int shown = 0;
    *larger = 0;
    GtkWidget *plot;
    for (int i = 0; (plot = find_nth(root, ESL_TYPE_PLOT, i)); i++)
        if (gtk_widget_get_mapped(plot)) {
            shown++;
            *larger += esl_plot_get_zoom(ESL_PLOT(plot)) > 1.0;
        }
    return shown;
}
#endif

/* Mapped, at least min_w x min_h, entirely inside the window. */
static inline gboolean shown_inside(GtkWidget *widget, GtkWidget *window, int min_w, int min_h,
                             graphene_rect_t *r)
{
    int w = gtk_widget_get_width(window), h = gtk_widget_get_height(window);
    return widget && gtk_widget_get_mapped(widget) &&
           gtk_widget_compute_bounds(widget, window, r) && r->size.width >= min_w &&
           r->size.height >= min_h && r->origin.x >= 0 && r->origin.y >= 0 &&
           r->origin.x + r->size.width <= w + 0.5 && r->origin.y + r->size.height <= h + 0.5;
}

/* A label under root whose text has this in it, or NULL. */
static inline GtkWidget *label_with(GtkWidget *root, const char *text)
{
    GtkWidget *label;
    for (int i = 0; (label = find_nth(root, GTK_TYPE_LABEL, i)); i++)
        if (strstr(gtk_label_get_text(GTK_LABEL(label)), text))
            return label;
    return NULL;
}

/* The application's first window of this type (a dialog an action made), or NULL. */
static inline gpointer find_toplevel(GType type)
{
    GListModel *toplevels = gtk_window_get_toplevels(); /* transfer none */
    for (guint i = 0; i < g_list_model_get_n_items(toplevels); i++) {
        g_autoptr(GObject) w = g_list_model_get_item(toplevels, i);
        if (G_TYPE_CHECK_INSTANCE_TYPE(w, type))
            return w; /* GTK keeps a reference */
    }
    return NULL;
}

/* Run a command (eslabon-cli making a project, say) to its end: TRUE when it exited with 0,
 * its standard output in *out; its standard error goes nowhere. */
static inline gboolean run_command(const char *const *argv, char **out)
{
    int status = 0;
    return g_spawn_sync(NULL, (char **)argv, NULL, G_SPAWN_STDERR_TO_DEV_NULL, NULL, NULL, out,
                        NULL, &status, NULL) &&
           g_spawn_check_wait_status(status, NULL);
}

/* Remove a temporary directory and the files in it (a project and what SQLite kept beside
 * it, a recent files' list). */
static inline void remove_temporary_dir(const char *dir)
{
    GDir *d = g_dir_open(dir, 0, NULL);
    for (const char *name; d && (name = g_dir_read_name(d));) {
        g_autofree char *file = g_build_filename(dir, name, NULL);
        g_unlink(file);
    }
    if (d)
        g_dir_close(d);
    g_rmdir(dir);
}

/* Remove a project file and what SQLite kept beside it. */
static inline void remove_project(const char *path)
{
    const char *suffixes[] = {"", "-wal", "-shm"};
    for (size_t i = 0; i < G_N_ELEMENTS(suffixes); i++) {
        g_autofree char *f = g_strconcat(path, suffixes[i], NULL);
        g_unlink(f);
    }
}

#ifdef ESL_TYPE_APPLICATION
typedef struct {
    GCallback started;
    gpointer data;
} UiTestStarted;

/* "open" (files on the command line) calls the test's callback as "activate" would. */
static inline void ui_test_opened(GApplication *app, GFile **files, int n_files, const char *hint,
                                  gpointer started)
{
    (void)files, (void)n_files, (void)hint;
    UiTestStarted *s = started;
    ((void (*)(GtkApplication *, gpointer))s->started)(GTK_APPLICATION(app), s->data);
}

/* Run the application (not unique) on this command line (argv[0] its name, NULL-terminated),
 * started(app, data) called after its own "activate", or after "open" when the command line
 * names files; returns when its last window is gone. */
static inline void run_application_with(char **argv, GCallback started, gpointer data)
{
    g_autoptr(EslApplication) app = esl_application_new();
    g_application_set_flags(G_APPLICATION(app),
                            g_application_get_flags(G_APPLICATION(app)) |
                                G_APPLICATION_NON_UNIQUE);
    UiTestStarted s = {started, data};
    g_signal_connect_after(app, "activate", started, data);
    g_signal_connect_after(app, "open", G_CALLBACK(ui_test_opened), &s);
    g_application_run(G_APPLICATION(app), (int)g_strv_length(argv), argv);
}

/* The same with no arguments but the name. */
static inline void run_application(const char *name, GCallback activate, gpointer data)
{
    char *argv[] = {(char *)name, NULL};
    run_application_with(argv, activate, data);
}
#endif

/* When the environment variable `variable` names a FILE.png: the screen as the user sees it
 * (ImageMagick's import), after the pending redraws and a few frames (a tick callback that
 * scrolls once the layout is done runs by then). */
static inline void save_screenshot_as(const char *variable)
{
    const char *path = g_getenv(variable);
    if (!path)
        return;
    for (int i = 0; i < 50; i++) {
        while (g_main_context_iteration(NULL, FALSE))
            ;
        if (i % 10 == 9)
            g_usleep(40000);
    }
    const char *argv[] = {"import", "-window", "root", path, NULL};
    g_spawn_sync(NULL, (char **)argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, NULL, NULL, NULL,
                 NULL);
}

/* ESL_SCREENSHOT=FILE.png: the screen as the user sees it. */
static inline void save_screenshot_if_asked(void)
{
    save_screenshot_as("ESL_SCREENSHOT");
}

#endif
