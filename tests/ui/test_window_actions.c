/* The window's actions and shortcuts (the GtkApplication in ui/esl-application.c sets the
 * accelerators, the window and its parts install the actions): every shortcut keeps its key,
 * every action it names exists on the window or the application, and the playback toggle is
 * a boolean state that refuses to play with nothing to play. Needs a display (xvfb-run). */
#include <gtk/gtk.h>
#include <string.h>

#include "esl-application.h"
#include "esl-window.h"
#include "esl-window-testing.h"
#include "tap.h"
#include "ui-test.h"

static const struct {
    const char *action, *accel;
} shortcuts[] = {
    {"app.quit", "<Control>q"},
    {"win.open-model", "<Control>o"},
    {"win.new-project", "<Control>n"},
    {"win.open-project", "<Shift><Control>o"},
    {"win.save-model-file", "<Control>s"},
    {"win.save-model", "<Shift><Control>s"},
    {"win.save-project", "<Control><Alt>s"},
    {"win.show-gallery", "<Control>g"},
    {"win.run", "F5"},
    {"win.pause", "F6"},
    {"win.stop", "<Shift>F5"},
    {"win.playback", "<Control>p"},
    {"win.step-forward", "<Alt>Right"},
    {"win.step-backward", "<Alt>Left"},
    {"win.fit-view", "<Control>f"},
    {"win.fit-motion", "<Shift><Control>f"},
    {"win.presentation", "F11"},
    {"win.view::iso", "<Control>1"},
    {"win.view::front", "<Control>2"},
    {"win.view::side", "<Control>3"},
    {"win.view::top", "<Control>4"},
    {"win.show-frames", "<Control>b"},
    {"win.export-view", "<Control>e"},
    {"win.new-model", "<Shift><Control>n"},
    {"win.undo", "<Control>z"},
    {"win.redo", "<Shift><Control>z"},
};

/* Actions of the menus and buttons without a shortcut. */
static const char *const other_actions[] = {"win.open-recent", "win.show-grid",
                                            "win.export-points", "win.real-time", "win.presentation-plot",
                                            "win.plot-variable",
                                            "app.about"};

static gboolean window_has_action(GtkWidget *window, const char *name)
{
    if (g_action_group_has_action(G_ACTION_GROUP(window), name))
        return TRUE;
    g_autofree char *full = g_strconcat("win.", name, NULL);
    GType owner;
    const char *class_name, *property;
    const GVariantType *parameter;
    for (guint i = 0; gtk_widget_class_query_action(GTK_WIDGET_GET_CLASS(window), i, &owner,
                                                    &class_name, &parameter, &property);
         i++)
        if (g_str_equal(class_name, full))
            return TRUE;
    return FALSE;
}

static gboolean has_action(GtkApplication *app, GtkWidget *window, const char *detailed)
{
    g_autofree char *name = NULL;
    g_autoptr(GVariant) target = NULL;
    if (!g_action_parse_detailed_name(detailed, &name, &target, NULL))
        return FALSE;
    if (g_str_has_prefix(name, "app."))
        return g_action_group_has_action(G_ACTION_GROUP(app), name + 4);
    return g_str_has_prefix(name, "win.") && window_has_action(window, name + 4);
}

static void check(GtkApplication *app, gpointer data)
{
    (void)data;
    GtkWidget *window = GTK_WIDGET(gtk_application_get_active_window(app));
    tap_ok(window && ESL_IS_WINDOW(window), "the application opens an EslWindow");
    for (size_t i = 0; i < G_N_ELEMENTS(shortcuts); i++) {
        g_auto(GStrv) accels = gtk_application_get_accels_for_action(app, shortcuts[i].action);
        tap_ok(accels[0] && g_str_equal(accels[0], shortcuts[i].accel), "%s is %s (got %s)",
               shortcuts[i].action, shortcuts[i].accel, accels[0] ? accels[0] : "none");
        tap_ok(has_action(app, window, shortcuts[i].action), "%s exists", shortcuts[i].action);
    }
    /* the shortcuts window (Ctrl+?) lists every shortcut (the views by their keys) */
    g_autoptr(GBytes) overlay =
        g_resources_lookup_data("/org/eslabon/Eslabon/gtk/help-overlay.ui", 0, NULL);
    const char *xml = overlay ? g_bytes_get_data(overlay, NULL) : "";
    for (size_t i = 0; i < G_N_ELEMENTS(shortcuts); i++) {
        if (strstr(shortcuts[i].action, "::"))
            continue;
        g_autofree char *entry = g_strdup_printf(">%s<", shortcuts[i].action);
        tap_ok(strstr(xml, entry) != NULL, "the shortcuts window lists %s", shortcuts[i].action);
    }
    /* and shows each one's key when it opens (issue 26: F11, Alt+Left/Right and Ctrl+Shift+F
     * were listed without their keys) */
    GtkWindow *help = GTK_WINDOW(
        gtk_application_window_get_help_overlay(GTK_APPLICATION_WINDOW(window)));
    tap_ok(help != NULL, "the window has its shortcuts window");
    if (help) {
        gtk_window_present(help);
        iterate_pending();
        for (size_t i = 0; i < G_N_ELEMENTS(shortcuts); i++) {
            if (strstr(shortcuts[i].action, "::"))
                continue;
            GtkWidget *row = NULL, *w;
            for (int k = 0; (w = find_nth(GTK_WIDGET(help), GTK_TYPE_SHORTCUTS_SHORTCUT, k)); k++) {
                g_autofree char *name = NULL;
                g_object_get(w, "action-name", &name, NULL);
                if (g_strcmp0(name, shortcuts[i].action) == 0)
                    row = w;
            }
            g_autofree char *accel = NULL;
            if (row)
                g_object_get(row, "accelerator", &accel, NULL);
            guint key = 0;
            GdkModifierType mods = 0, want_mods = 0;
            guint want_key = 0;
            gtk_accelerator_parse(shortcuts[i].accel, &want_key, &want_mods);
            gboolean found = FALSE;
            g_auto(GStrv) shown = g_strsplit(accel ? accel : "", " ", -1);
            for (int k = 0; shown[k]; k++)
                if (gtk_accelerator_parse(shown[k], &key, &mods) && key == want_key &&
                    mods == want_mods)
                    found = TRUE;
            tap_ok(found, "the shortcuts window shows %s for %s (shows '%s')",
                   shortcuts[i].accel, shortcuts[i].action, accel ? accel : "");
        }
        gtk_window_close(help);
    }
    g_auto(GStrv) run = gtk_application_get_accels_for_action(app, "win.run");
    tap_ok(g_strv_length(run) == 2 && g_str_equal(run[1], "<Control>r"),
           "win.run is also <Control>r");
    for (size_t i = 0; i < G_N_ELEMENTS(other_actions); i++)
        tap_ok(has_action(app, window, other_actions[i]), "%s exists", other_actions[i]);
    tap_ok(!has_action(app, window, "win.no-such-action"), "an unknown action is not found");

    GActionGroup *group = G_ACTION_GROUP(window);
    const GVariantType *type = g_action_group_get_action_state_type(group, "playback");
    tap_ok(type && g_variant_type_equal(type, G_VARIANT_TYPE_BOOLEAN),
           "win.playback has a boolean state");
    g_action_group_change_action_state(group, "playback", g_variant_new_boolean(TRUE));
    g_autoptr(GVariant) state = g_action_group_get_action_state(group, "playback");
    tap_ok(state && !g_variant_get_boolean(state), "win.playback stays off with no run to play");
    tap_ok(esl_window_set_playback_speed(ESL_WINDOW(window), 4.0) &&
               !esl_window_set_playback_speed(ESL_WINDOW(window), 3.0),
           "the speed menu offers 4x and not 3x");
    g_autoptr(GError) error = NULL;
    tap_ok(esl_window_load_model(ESL_WINDOW(window), "four-bar-spatial", &error),
           "a bundled model loads");
    /* Key presses reach the class actions (win.view, win.fit-view, win.show-gallery) and the
     * toggles of the action map (win.show-frames). */
    tap_ok(press(window, "<Control>4") && press(window, "<Control>f"),
           "Ctrl+4 and Ctrl+F reach the window's view actions");
    tap_ok(press(window, "<Control>b"), "Ctrl+B reaches win.show-frames");
    g_autoptr(GVariant) frames = g_action_group_get_action_state(group, "show-frames");
    tap_ok(frames && g_variant_get_boolean(frames), "Ctrl+B shows the body frames");
    tap_ok(press(window, "<Control>g"), "Ctrl+G reaches win.show-gallery");
    tap_ok(!press(window, "<Control><Shift>F12"), "a key without a shortcut reaches nothing");
    g_autoptr(GVariant) grid = g_action_group_get_action_state(group, "show-grid");
    tap_ok(grid && g_variant_get_boolean(grid), "the floor grid is shown by default");
    g_application_quit(G_APPLICATION(app));
}

int main(void)
{
    g_autoptr(EslApplication) app = esl_application_new();
    g_application_set_flags(G_APPLICATION(app),
                            g_application_get_flags(G_APPLICATION(app)) |
                                G_APPLICATION_NON_UNIQUE);
    g_signal_connect_after(app, "activate", G_CALLBACK(check), NULL);
    char *argv[] = {"test_window_actions", NULL};
    g_application_run(G_APPLICATION(app), 1, argv);
    return tap_done();
}
