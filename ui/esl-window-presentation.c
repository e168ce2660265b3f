/* Presentation mode (F11, win.presentation): the 3D view and one plot fill the screen, framed
 * and with every text scaled for the back row of a classroom (win.presentation-text: normal,
 * large, larger, as MuJoCo's simulate offers a font scale); Step Through opened meanwhile is
 * presented too. See esl-window-private.h. */
#include "esl-window-private.h"

#include "esl-color-scale.h"
#include "esl-step-view.h"

/* The plots' and the joint-violation legend's zoom at the normal text size; the window's text
 * is 150 % (style.css, window.presentation). */
#define PRESENTATION_ZOOM 1.8

/* The text size chosen: 1 (normal), 1.25 (large) or 1.5 (larger). */
static double text_scale(EslWindow *self)
{
    g_autoptr(GVariant) state =
        g_action_group_get_action_state(G_ACTION_GROUP(self), "presentation-text");
    return state ? CLAMP(g_variant_get_double(state), 1.0, 1.5) : 1.0;
}

/* The window's text as style.css scales it for the text size chosen (no class: normal). */
static void set_text_class(GtkWidget *widget, gboolean on, double scale)
{
    gtk_widget_remove_css_class(widget, "text-large");
    gtk_widget_remove_css_class(widget, "text-larger");
    if (on && scale > 1.3)
        gtk_widget_add_css_class(widget, "text-larger");
    else if (on && scale > 1.1)
        gtk_widget_add_css_class(widget, "text-large");
}

/* A Step Through window of this window presented (maximised, its text 1.5 times larger; the
 * larger text sizes would not leave its matrices room at 1280x720) or back to normal. */
static void present_step_view(GtkWindow *view, gboolean on)
{
    if (on) {
        gtk_widget_add_css_class(GTK_WIDGET(view), "presentation");
        gtk_window_maximize(view);
    } else if (gtk_widget_has_css_class(GTK_WIDGET(view), "presentation")) {
        gtk_widget_remove_css_class(GTK_WIDGET(view), "presentation");
        gtk_window_unmaximize(view);
    }
}

gboolean esl_window_is_presenting(EslWindow *self)
{
    return gtk_widget_has_css_class(GTK_WIDGET(self), "presentation");
}

void esl_window_present_step_view(EslWindow *self, GtkWindow *view)
{
    if (esl_window_is_presenting(self))
        present_step_view(view, TRUE);
}

/* The mechanism fills the 3D view: its whole motion when a run of it is shown. */
static void frame_mechanism(EslWindow *self)
{
    if (self->history && self->history_matches_model && self->history->len)
        esl_window_fit_history(self);
    else
        esl_viewport_fit(ESL_VIEWPORT(self->viewport));
}

/* The view's size changes as presentation mode lays the window out (fullscreen, the side
 * panels hidden, the split moved): framed for its final shape, not the one before. */
static void on_viewport_resize(GtkGLArea *area, int width, int height, EslWindow *self)
{
    (void)area, (void)width, (void)height;
    if (esl_window_is_presenting(self))
        frame_mechanism(self);
}

void esl_window_init_presentation(EslWindow *self)
{
    g_signal_connect(self->viewport, "resize", G_CALLBACK(on_viewport_resize), self);
}

void esl_window_update_presentation(EslWindow *self)
{
    g_autoptr(GVariant) on_state = g_action_group_get_action_state(G_ACTION_GROUP(self),
                                                                    "presentation");
    g_autoptr(GVariant) plot_state = g_action_group_get_action_state(G_ACTION_GROUP(self),
                                                                      "presentation-plot");
    gboolean on = on_state && g_variant_get_boolean(on_state);
    const char *plot = plot_state ? g_variant_get_string(plot_state, NULL) : "energy";
    gboolean was_on = esl_window_is_presenting(self);
    double zoom = PRESENTATION_ZOOM * text_scale(self);
    /* the panes that hold the side panels (hiding a pane's child moves its split) */
    GtkPaned *sidebar_pane = GTK_PANED(gtk_widget_get_parent(self->sidebar));
    GtkPaned *run_panel_pane = GTK_PANED(gtk_widget_get_parent(self->run_column));
    if (on && !was_on) {
        self->sidebar_position_before = gtk_paned_get_position(sidebar_pane);
        self->run_panel_position_before = gtk_paned_get_position(run_panel_pane);
    }
    /* the gallery's larger text must not make the workbench taller than the screen */
    gtk_stack_set_vhomogeneous(GTK_STACK(self->stack), !on);
    gtk_widget_set_visible(self->sidebar, !on);
    gtk_widget_set_visible(self->run_column, !on);
    esl_plot_board_present(ESL_PLOT_BOARD(self->plot_board), on ? plot : NULL, zoom);
    esl_color_scale_set_zoom(ESL_COLOR_SCALE(self->color_scale), on ? zoom : 1.0);
    set_text_class(GTK_WIDGET(self), on, text_scale(self));
    if (on && !was_on) {
        gtk_widget_add_css_class(GTK_WIDGET(self), "presentation");
        gtk_window_fullscreen(GTK_WINDOW(self));
        /* the 3D view takes two thirds of the height, the plot the rest */
        self->paned_position_before = gtk_paned_get_position(GTK_PANED(self->view_paned));
        int height = gtk_widget_get_height(self->view_paned);
        gtk_paned_set_position(GTK_PANED(self->view_paned), height > 0 ? 2 * height / 3 : 420);
        frame_mechanism(self); /* again when the view has its new size (on_viewport_resize) */
    } else if (!on && was_on) {
        gtk_widget_remove_css_class(GTK_WIDGET(self), "presentation");
        gtk_window_unfullscreen(GTK_WINDOW(self));
        gtk_paned_set_position(GTK_PANED(self->view_paned), self->paned_position_before);
        gtk_paned_set_position(sidebar_pane, self->sidebar_position_before);
        gtk_paned_set_position(run_panel_pane, self->run_panel_position_before);
    }
    /* Step Through windows already open follow */
    GListModel *toplevels = gtk_window_get_toplevels(); /* transfer none */
    for (guint i = 0; i < g_list_model_get_n_items(toplevels); i++) {
        g_autoptr(GtkWindow) w = g_list_model_get_item(toplevels, i);
        if (ESL_IS_STEP_VIEW(w) && gtk_window_get_transient_for(w) == GTK_WINDOW(self))
            present_step_view(w, on);
    }
}

/* Escape leaves presentation mode, before the focused widget sees it (a pane would take it). */
gboolean esl_window_escape_from_presentation(GtkWidget *widget, GVariant *args, gpointer data)
{
    (void)args;
    (void)data;
    if (!esl_window_is_presenting(ESL_WINDOW(widget)))
        return FALSE;
    g_action_group_change_action_state(G_ACTION_GROUP(widget), "presentation",
                                       g_variant_new_boolean(FALSE));
    return TRUE;
}
