/* The window's layout on the screen it runs on (xvfb-run -s "-screen 0 1280x720x24", and
 * 1920x1080): with a model open, the window fits the screen; the transport controls (play
 * button, time slider), the 3D view and the plots have non-zero allocations inside the window,
 * none of them behind the side panels (issue 12: below ~1400 px the Play button and the energy
 * plot went behind the left panel); the progress bar, the status line and the project line are
 * in view without scrolling (at 1280x720 they were below the fold of the run panel).
 * ESL_SCREENSHOT=FILE.png saves the screen once laid out.
 * Then the run panel keeps its width when the longest choice of every drop-down of its
 * settings and of the sensitivity method's own is chosen (penalty with direct sensitivities,
 * matrix-r with adjoint ones): the drop-downs ellipsize (ui/esl-drop-down.c). */
#include <glib/gi18n.h>
#include <gtk/gtk.h>
#include <locale.h>
#include <stdlib.h>

#include "eslabon-config.h"

#include "esl-application.h"
#include "esl-run-settings.h"
#include "esl-sensitivity-chooser.h"
#include "esl-window.h"
#include "esl-window-testing.h"
#include "tap.h"
#include "ui-test.h"

#define LAYOUT_TIMEOUT_S 60

static GtkWidget *find(GtkWidget *root, const char *type_name, int nth)
{
    GType type = g_type_from_name(type_name);
    int seen = 0;
    return type ? find_counting(root, type, nth, &seen) : NULL;
}

/* The widget's bounds in the window; FALSE when it has none. */
static gboolean bounds(GtkWidget *widget, GtkWidget *window, graphene_rect_t *r)
{
    return widget && gtk_widget_get_mapped(widget) && gtk_widget_compute_bounds(widget, window, r);
}

static gboolean visible_inside(GtkWidget *widget, GtkWidget *window, graphene_rect_t *r)
{
    int w = gtk_widget_get_width(window), h = gtk_widget_get_height(window);
    return bounds(widget, window, r) && r->size.width >= 1 && r->size.height >= 1 &&
           r->origin.x >= 0 && r->origin.y >= 0 && r->origin.x + r->size.width <= w + 0.5 &&
           r->origin.y + r->size.height <= h + 0.5;
}

/* Inside the window and not scrolled out of view: inside every scrolled window around it too
 * (below a scrolled panel's fold a widget is allocated but not seen). */
static gboolean in_view(GtkWidget *widget, GtkWidget *window, graphene_rect_t *r)
{
    if (!visible_inside(widget, window, r))
        return FALSE;
    for (GtkWidget *sw = gtk_widget_get_ancestor(widget, GTK_TYPE_SCROLLED_WINDOW); sw;
         sw = gtk_widget_get_ancestor(gtk_widget_get_parent(sw), GTK_TYPE_SCROLLED_WINDOW)) {
        graphene_rect_t v;
        if (!gtk_widget_compute_bounds(sw, window, &v) || r->origin.y < v.origin.y - 0.5 ||
            r->origin.y + r->size.height > v.origin.y + v.size.height + 0.5)
            return FALSE;
    }
    return TRUE;
}

/* Not behind either side panel: entirely between the left panel's right edge and the run
 * panel's left edge. */
static gboolean between_panels(const graphene_rect_t *r, const graphene_rect_t *left,
                               const graphene_rect_t *right)
{
    return r->origin.x >= left->origin.x + left->size.width - 0.5 &&
           r->origin.x + r->size.width <= right->origin.x + 0.5;
}

static gboolean choose_longest(gpointer data);

/* ---- drop-downs with long choices ---------------------------------------------------------- */

static const char *const phases[][2] = {{"penalty", "direct"}, {"matrix-r", "adjoint"}};
static int phase;
static double panel_width, view_width;

static GtkWidget *run_panel(GtkWidget *window)
{
    return gtk_widget_get_ancestor(find(window, "EslRunSettings", 0), GTK_TYPE_SCROLLED_WINDOW);
}

/* The drop-downs of the settings rows shown (not the formulation's nor the method's, which
 * change what is shown), each set to its longest choice; returns how many. */
static int set_longest_choices(GtkWidget *window)
{
    GtkWidget *settings = find(window, "EslRunSettings", 0);
    GtkWidget *formulation = find(settings, "GtkDropDown", 0);
    GtkWidget *method = find(find(settings, "EslSensitivityChooser", 0), "GtkDropDown", 0);
    int n = 0;
    GtkWidget *d;
    for (int i = 0; (d = find(settings, "GtkDropDown", i)); i++) {
        if (d == formulation || d == method || !gtk_widget_get_mapped(d))
            continue;
        GListModel *items = gtk_drop_down_get_model(GTK_DROP_DOWN(d));
        guint longest = 0;
        gsize most = 0;
        for (guint k = 0; k < g_list_model_get_n_items(items); k++) {
            g_autoptr(GtkStringObject) o = g_list_model_get_item(items, k);
            gsize len = g_utf8_strlen(gtk_string_object_get_string(o), -1);
            if (len > most) {
                most = len;
                longest = k;
            }
        }
        gtk_drop_down_set_selected(GTK_DROP_DOWN(d), longest);
        n++;
    }
    return n;
}

/* The labels of the drop-downs that are ellipsized, and whether every label fits its
 * drop-down. */
static int ellipsized_labels(GtkWidget *window, gboolean *all_fit)
{
    GtkWidget *settings = find(window, "EslRunSettings", 0);
    int n = 0;
    *all_fit = TRUE;
    GtkWidget *d;
    for (int i = 0; (d = find(settings, "GtkDropDown", i)); i++) {
        GtkWidget *label = NULL; /* the button's: the popover's are not mapped */
        for (int k = 0; gtk_widget_get_mapped(d) && !label && find(d, "GtkLabel", k); k++)
            if (gtk_widget_get_mapped(find(d, "GtkLabel", k)))
                label = find(d, "GtkLabel", k);
        if (!label)
            continue;
        n += pango_layout_is_ellipsized(gtk_label_get_layout(GTK_LABEL(label)));
        *all_fit &= gtk_widget_get_width(label) <= gtk_widget_get_width(d);
    }
    return n;
}

static gboolean check_longest(gpointer data)
{
    GtkWidget *window = data;
    GtkWidget *view = find(window, "EslViewport", 0);
    gboolean all_fit;
    int ellipsized = ellipsized_labels(window, &all_fit);
    double width = gtk_widget_get_width(run_panel(window));
    tap_ok(width == panel_width && gtk_widget_get_width(view) == view_width && all_fit &&
               (phase > 0 || ellipsized > 0),
           "%s, %s sensitivities, the longest choices chosen: the run panel keeps its width "
           "(%.0f px, was %.0f) and the 3D view its (%d px, was %.0f); %d labels ellipsized",
           phases[phase][0], phases[phase][1], width, panel_width, gtk_widget_get_width(view),
           view_width, ellipsized);
    if (++phase < (int)G_N_ELEMENTS(phases)) {
        g_idle_add(choose_longest, window);
        return G_SOURCE_REMOVE;
    }
    gtk_window_destroy(GTK_WINDOW(window));
    return G_SOURCE_REMOVE;
}

static gboolean set_them(gpointer data)
{
    GtkWidget *window = data;
    panel_width = gtk_widget_get_width(run_panel(window));
    view_width = gtk_widget_get_width(find(window, "EslViewport", 0));
    int n = set_longest_choices(window);
    tap_ok(n >= 3, "%s, %s sensitivities: %d drop-downs set to their longest choice",
           phases[phase][0], phases[phase][1], n);
    g_timeout_add(500, check_longest, window);
    return G_SOURCE_REMOVE;
}

static gboolean choose_longest(gpointer data)
{
    EslWindow *window = data;
    esl_window_set_formulation(window, phases[phase][0]);
    esl_window_set_sensitivity_method(window, phases[phase][1]);
    g_timeout_add(500, set_them, window); /* laid out with the rows of that choice */
    return G_SOURCE_REMOVE;
}

/* ---- the layout ------------------------------------------------------------------------------ */

static gboolean check(gpointer data)
{
    GtkWidget *window = data;
    int w = gtk_widget_get_width(window), h = gtk_widget_get_height(window);
    GdkRectangle screen = {0};
    GdkSurface *surface = gtk_native_get_surface(GTK_NATIVE(window));
    GdkMonitor *monitor = gdk_display_get_monitor_at_surface(gdk_display_get_default(), surface);
    if (monitor)
        gdk_monitor_get_geometry(monitor, &screen);
    tap_ok(w > 0 && w <= screen.width && h > 0 && h <= screen.height,
           "the window fits the %dx%d screen (%dx%d)", screen.width, screen.height, w, h);
    graphene_rect_t left, right, r;
    GtkWidget *sidebar = find(window, "GtkNotebook", 0);
    GtkWidget *run_settings = find(window, "EslRunSettings", 0);
    tap_ok(visible_inside(sidebar, window, &left), "the left panel is shown");
    tap_ok(visible_inside(run_settings, window, &right), "the run settings are shown");
    struct {
        const char *type, *what;
        int nth;
        int min_w, min_h;
    } parts[] = {
        {"EslViewport", "the 3D view", 0, 300, 200},
        {"GtkToggleButton", "the Play button", 0, 16, 16},
        {"GtkScale", "the time slider", 0, 100, 10},
        {"EslPlot", "the energy plot", 0, 150, 100},
        {"EslPlot", "the constraint plot", 2, 150, 100},
        {"EslPlot", "the Newton plot", 4, 150, 100},
    };
    GtkWidget *bar = find(window, "EslPlaybackBar", 0);
    for (size_t i = 0; i < G_N_ELEMENTS(parts); i++) {
        GtkWidget *root = g_str_has_prefix(parts[i].type, "Gtk") ? bar : window;
        GtkWidget *part = root ? find(root, parts[i].type, parts[i].nth) : NULL;
        gboolean shown = visible_inside(part, window, &r);
        tap_ok(shown && r.size.width >= parts[i].min_w && r.size.height >= parts[i].min_h &&
                   between_panels(&r, &left, &right),
               "%s is inside the window, between the side panels, at least %dx%d (%.0fx%.0f at "
               "%.0f,%.0f)",
               parts[i].what, parts[i].min_w, parts[i].min_h, shown ? r.size.width : 0,
               shown ? r.size.height : 0, shown ? r.origin.x : 0, shown ? r.origin.y : 0);
    }
    /* The progress and the status line under the settings (issue: at 1280x720 they were
     * below the fold of the scrolled run panel). */
    struct {
        GtkWidget *widget;
        const char *what;
    } status[] = {
        {find(window, "GtkProgressBar", 0), "the progress bar"},
        {label_with(window, "four-bar-spatial: "), "the status line (the model's counts)"},
        {label_with(window, _("No project open.")), "the project line"},
    };
    for (size_t i = 0; i < G_N_ELEMENTS(status); i++) {
        gboolean shown = in_view(status[i].widget, window, &r);
        tap_ok(shown, "%s is in view without scrolling (%.0fx%.0f at %.0f,%.0f)",
               status[i].what, shown ? r.size.width : 0, shown ? r.size.height : 0,
               shown ? r.origin.x : 0, shown ? r.origin.y : 0);
    }
    save_screenshot_if_asked();
    g_idle_add(choose_longest, window);
    return G_SOURCE_REMOVE;
}

static void activate(GtkApplication *app, gpointer data)
{
    (void)data;
    GtkWidget *window = GTK_WIDGET(gtk_application_get_active_window(app));
    g_autoptr(GError) error = NULL;
    tap_ok(esl_window_load_model(ESL_WINDOW(window), "four-bar-spatial", &error),
           "a bundled model loads");
    g_timeout_add(1500, check, window); /* mapped and laid out by then */
    g_timeout_add_seconds(LAYOUT_TIMEOUT_S, ui_test_timed_out, GINT_TO_POINTER(LAYOUT_TIMEOUT_S));
}

int main(void)
{
    /* The user's locale and the build's catalogue, as ui/main.c sets them (the Spanish run of
     * this test, ESLABON_TEST_SPANISH, checks that the window really is in Spanish). */
    setlocale(LC_ALL, "");
    bindtextdomain(GETTEXT_PACKAGE, ESLABON_BUILD_ROOT G_DIR_SEPARATOR_S "po");
    bind_textdomain_codeset(GETTEXT_PACKAGE, "UTF-8");
    textdomain(GETTEXT_PACKAGE);
    if (g_getenv("ESLABON_TEST_SPANISH"))
        tap_ok(g_str_equal(_("Run Settings"), "Ajustes de la simulación"),
               "the window is in Spanish (Run Settings: %s)", _("Run Settings"));
    g_autoptr(EslApplication) app = esl_application_new();
    g_application_set_flags(G_APPLICATION(app),
                            g_application_get_flags(G_APPLICATION(app)) |
                                G_APPLICATION_NON_UNIQUE);
    g_signal_connect_after(app, "activate", G_CALLBACK(activate), NULL);
    char *argv[] = {"test_window_layout", NULL};
    g_application_run(G_APPLICATION(app), 1, argv);
    return tap_done();
}
