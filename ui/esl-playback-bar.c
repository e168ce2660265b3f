/* The playback bar; see esl-playback-bar.h. */
#include "esl-playback-bar.h"
#include "esl-template.h"

#include <math.h>

struct _EslPlaybackBar {
    GtkWidget parent_instance;
    /* template */
    GtkWidget *time_scale, *speed_dropdown, *time_label;
    GtkAdjustment *time_adjustment;

    gboolean playable, updating_scale;
    guint playback_tick;
    gint64 playback_last_us;
};

G_DEFINE_FINAL_TYPE(EslPlaybackBar, esl_playback_bar, GTK_TYPE_WIDGET)

enum { PROP_0, PROP_PLAYING, PROP_SPEED, N_PROPS };
static GParamSpec *props[N_PROPS];
enum { SIGNAL_TIME_CHANGED, N_SIGNALS };
static guint signals[N_SIGNALS];

/* The speed drop-down's choices, in its order (assets/ui/esl-playback-bar.ui). */
static const double playback_speeds[] = {0.1, 0.25, 0.5, 1.0, 2.0, 4.0};

static void stop_tick(EslPlaybackBar *self)
{
    if (self->playback_tick) {
        gtk_widget_remove_tick_callback(GTK_WIDGET(self), self->playback_tick);
        self->playback_tick = 0;
        g_object_notify_by_pspec(G_OBJECT(self), props[PROP_PLAYING]);
    }
}

static gboolean playback_tick(GtkWidget *widget, GdkFrameClock *clock, gpointer data)
{
    (void)widget;
    EslPlaybackBar *self = data;
    gint64 now = gdk_frame_clock_get_frame_time(clock);
    guint speed = gtk_drop_down_get_selected(GTK_DROP_DOWN(self->speed_dropdown));
    double dt = self->playback_last_us ? (now - self->playback_last_us) * 1e-6 : 0.0;
    dt *= speed < G_N_ELEMENTS(playback_speeds) ? playback_speeds[speed] : 1.0;
    self->playback_last_us = now;
    double t = gtk_adjustment_get_value(self->time_adjustment) + dt;
    double end = gtk_adjustment_get_upper(self->time_adjustment);
    if (t >= end) {
        gtk_adjustment_set_value(self->time_adjustment, end);
        self->playback_tick = 0;
        g_object_notify_by_pspec(G_OBJECT(self), props[PROP_PLAYING]);
        return G_SOURCE_REMOVE;
    }
    gtk_adjustment_set_value(self->time_adjustment, t);
    return G_SOURCE_CONTINUE;
}

void esl_playback_bar_set_playing(EslPlaybackBar *self, gboolean playing)
{
    if (playing && !self->playback_tick && self->playable) {
        /* From the start when the slider is at the end. */
        if (gtk_adjustment_get_value(self->time_adjustment) >=
            gtk_adjustment_get_upper(self->time_adjustment) - 1e-9)
            gtk_adjustment_set_value(self->time_adjustment, 0);
        self->playback_last_us = 0;
        self->playback_tick = gtk_widget_add_tick_callback(GTK_WIDGET(self), playback_tick, self,
                                                           NULL);
        g_object_notify_by_pspec(G_OBJECT(self), props[PROP_PLAYING]);
    } else if (!playing) {
        stop_tick(self);
    } else if (!self->playback_tick) {
        /* Refused: tell the toggle button (through the action) that it stays off. */
        g_object_notify_by_pspec(G_OBJECT(self), props[PROP_PLAYING]);
    }
}

gboolean esl_playback_bar_get_playing(EslPlaybackBar *self)
{
    return self->playback_tick != 0;
}

void esl_playback_bar_set_playable(EslPlaybackBar *self, gboolean playable)
{
    self->playable = playable;
    if (!playable)
        stop_tick(self);
}

void esl_playback_bar_set_range(EslPlaybackBar *self, double end, double time)
{
    self->updating_scale = TRUE;
    gtk_adjustment_set_upper(self->time_adjustment, fmax(end, 1e-6));
    gtk_adjustment_set_step_increment(self->time_adjustment, fmax(end, 1e-6) / 1000);
    gtk_adjustment_set_page_increment(self->time_adjustment, fmax(end, 1e-6) / 20);
    gtk_adjustment_set_value(self->time_adjustment, time);
    self->updating_scale = FALSE;
}

double esl_playback_bar_get_end(EslPlaybackBar *self)
{
    return gtk_adjustment_get_upper(self->time_adjustment);
}

void esl_playback_bar_seek(EslPlaybackBar *self, double time)
{
    gtk_adjustment_set_value(self->time_adjustment, time);
}

double esl_playback_bar_get_time(EslPlaybackBar *self)
{
    return gtk_adjustment_get_value(self->time_adjustment);
}

void esl_playback_bar_set_seekable(EslPlaybackBar *self, gboolean seekable)
{
    gtk_widget_set_sensitive(self->time_scale, seekable);
}

void esl_playback_bar_set_label(EslPlaybackBar *self, const char *text)
{
    gtk_label_set_text(GTK_LABEL(self->time_label), text);
}

double esl_playback_bar_get_speed(EslPlaybackBar *self)
{
    guint i = gtk_drop_down_get_selected(GTK_DROP_DOWN(self->speed_dropdown));
    return i < G_N_ELEMENTS(playback_speeds) ? playback_speeds[i] : NAN;
}

gboolean esl_playback_bar_set_speed(EslPlaybackBar *self, double speed)
{
    for (guint i = 0; i < G_N_ELEMENTS(playback_speeds); i++)
        if (playback_speeds[i] == speed) {
            gtk_drop_down_set_selected(GTK_DROP_DOWN(self->speed_dropdown), i);
            return TRUE;
        }
    return FALSE;
}

static void on_time_changed(GtkAdjustment *adjustment, EslPlaybackBar *self)
{
    if (!self->updating_scale)
        g_signal_emit(self, signals[SIGNAL_TIME_CHANGED], 0, gtk_adjustment_get_value(adjustment));
}

static void esl_playback_bar_get_property(GObject *object, guint id, GValue *value,
                                          GParamSpec *pspec)
{
    EslPlaybackBar *self = ESL_PLAYBACK_BAR(object);
    if (id == PROP_PLAYING)
        g_value_set_boolean(value, esl_playback_bar_get_playing(self));
    else if (id == PROP_SPEED)
        g_value_set_double(value, esl_playback_bar_get_speed(self));
    else
        G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, pspec);
}

static void esl_playback_bar_set_property(GObject *object, guint id, const GValue *value,
                                          GParamSpec *pspec)
{
    EslPlaybackBar *self = ESL_PLAYBACK_BAR(object);
    if (id == PROP_PLAYING)
        esl_playback_bar_set_playing(self, g_value_get_boolean(value));
    else
        G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, pspec);
}

static void esl_playback_bar_dispose(GObject *object)
{
    EslPlaybackBar *self = ESL_PLAYBACK_BAR(object);
    if (self->playback_tick) {
        gtk_widget_remove_tick_callback(GTK_WIDGET(self), self->playback_tick);
        self->playback_tick = 0;
    }
    gtk_widget_dispose_template(GTK_WIDGET(object), ESL_TYPE_PLAYBACK_BAR);
    esl_template_unparent_children(GTK_WIDGET(object));
    G_OBJECT_CLASS(esl_playback_bar_parent_class)->dispose(object);
}

static void esl_playback_bar_class_init(EslPlaybackBarClass *klass)
{
    GObjectClass *object_class = G_OBJECT_CLASS(klass);
    GtkWidgetClass *widget_class = GTK_WIDGET_CLASS(klass);
    object_class->dispose = esl_playback_bar_dispose;
    object_class->get_property = esl_playback_bar_get_property;
    object_class->set_property = esl_playback_bar_set_property;
    props[PROP_PLAYING] = g_param_spec_boolean(
        "playing", NULL, NULL, FALSE,
        G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
    props[PROP_SPEED] = g_param_spec_double("speed", NULL, NULL, 0, G_MAXDOUBLE, 1,
                                            G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
    g_object_class_install_properties(object_class, N_PROPS, props);
    signals[SIGNAL_TIME_CHANGED] =
        g_signal_new("time-changed", G_TYPE_FROM_CLASS(klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL,
                     NULL, G_TYPE_NONE, 1, G_TYPE_DOUBLE);
    gtk_widget_class_set_layout_manager_type(widget_class, GTK_TYPE_BIN_LAYOUT);
    gtk_widget_class_set_css_name(widget_class, "eslplaybackbar");
    gtk_widget_class_set_template_from_resource(widget_class,
                                                "/org/eslabon/Eslabon/ui/esl-playback-bar.ui");
#define CHILD(name) gtk_widget_class_bind_template_child(widget_class, EslPlaybackBar, name)
    CHILD(time_scale);
    CHILD(time_adjustment);
    CHILD(speed_dropdown);
    CHILD(time_label);
#undef CHILD
}

static void on_speed_selected(GObject *dropdown, GParamSpec *pspec, EslPlaybackBar *self)
{
    (void)dropdown;
    (void)pspec;
    g_object_notify_by_pspec(G_OBJECT(self), props[PROP_SPEED]);
}

static void esl_playback_bar_init(EslPlaybackBar *self)
{
    gtk_widget_init_template(GTK_WIDGET(self));
    g_signal_connect(self->speed_dropdown, "notify::selected", G_CALLBACK(on_speed_selected),
                     self);
    g_signal_connect(self->time_adjustment, "value-changed", G_CALLBACK(on_time_changed), self);
    gtk_widget_set_sensitive(self->time_scale, FALSE);
}
