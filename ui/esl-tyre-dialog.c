/* Tyre curves; see esl-tyre-dialog.h. */
#include "esl-tyre-dialog.h"

#include <glib/gi18n.h>
#include <math.h>

#include "esl-tyre-file.h"
#include "tyre_pac2002.h"

#define CURVE_POINTS 241

/* One table of the curves: which slip varies, over what, and which output is plotted. */
static const struct {
    const char *title, *x_label, *y_label;
    int varies_alpha;  /* 1: alpha (shown in degrees), 0: kappa */
    double from, to;   /* of the slip (rad or 1) */
    int output;        /* MBS_TYRE_OUT_* */
} curves[ESL_TYRE_CURVE_COUNT] = {
    [ESL_TYRE_CURVE_FY_ALPHA] = {N_("Lateral force"), N_("slip angle α (°)"), N_("Fy (N)"), 1,
                                 -0.35, 0.35, MBS_TYRE_OUT_FY},
    [ESL_TYRE_CURVE_FX_KAPPA] = {N_("Longitudinal force"), N_("slip ratio κ"), N_("Fx (N)"), 0,
                                 -0.5, 0.5, MBS_TYRE_OUT_FX},
    [ESL_TYRE_CURVE_MZ_ALPHA] = {N_("Self-aligning moment"), N_("slip angle α (°)"),
                                 N_("Mz (N·m)"), 1, -0.35, 0.35, MBS_TYRE_OUT_MZ},
};
static const double load_factors[ESL_TYRE_LOADS] = {0.5, 1.0, 1.5}; /* of FNOMIN */

struct _EslTyreDialog {
    GtkWindow parent_instance;
    GtkWidget *plots[ESL_TYRE_CURVE_COUNT];
    GtkWidget *info_label;
    double loads[ESL_TYRE_LOADS];
};

G_DEFINE_FINAL_TYPE(EslTyreDialog, esl_tyre_dialog, GTK_TYPE_WINDOW)

void esl_tyre_dialog_show_data(EslTyreDialog *self, const MbsTyreData *data, const char *name)
{
    const MbsTir *tir = mbs_pac2002_tir(data);
    static const GdkRGBA colors[ESL_TYRE_LOADS] = {
        {0.20f, 0.45f, 0.85f, 1}, {0.85f, 0.30f, 0.20f, 1}, {0.20f, 0.60f, 0.30f, 1}};
    double vx = tir->LONGVL > 0 ? tir->LONGVL : 16.7; /* the file's reference speed */
    for (int l = 0; l < ESL_TYRE_LOADS; l++)
        self->loads[l] = load_factors[l] * tir->FNOMIN;
    for (int c = 0; c < ESL_TYRE_CURVE_COUNT; c++) {
        EslPlot *plot = ESL_PLOT(self->plots[c]);
        esl_plot_clear(plot);
        esl_plot_set_title(plot, _(curves[c].title));
        esl_plot_set_labels(plot, _(curves[c].x_label), _(curves[c].y_label));
        for (int l = 0; l < ESL_TYRE_LOADS; l++) {
            g_autofree char *series = g_strdup_printf(_("Fz = %.1f kN"), self->loads[l] / 1e3);
            int s = esl_plot_add_series(plot, series, &colors[l], FALSE);
            double x[CURVE_POINTS], y[CURVE_POINTS];
            for (int i = 0; i < CURVE_POINTS; i++) {
                double slip = curves[c].from +
                              (curves[c].to - curves[c].from) * i / (CURVE_POINTS - 1);
                MbsTyreOutput out;
                mbs_pac2002_rig(data, self->loads[l], curves[c].varies_alpha ? 0.0 : slip,
                                curves[c].varies_alpha ? slip : 0.0, 0.0, vx, 1.0, &out);
                x[i] = curves[c].varies_alpha ? slip * 180.0 / G_PI : slip;
                y[i] = out.out[curves[c].output];
            }
            esl_plot_append_many(plot, s, x, y, CURVE_POINTS);
        }
        esl_plot_fit(plot);
    }
    g_autofree char *info = g_strdup_printf(
        _("%s: unloaded radius %.3f m, nominal load FNOMIN %.0f N; curves at 0.5, 1 and 1.5 "
          "FNOMIN, no camber, Vx = %.1f m/s, pure slip (the other slip zero)"),
        name, tir->UNLOADED_RADIUS, tir->FNOMIN, vx);
    gtk_label_set_text(GTK_LABEL(self->info_label), info);
    g_autofree char *title = g_strdup_printf(_("Tyre Curves — %s"), name);
    gtk_window_set_title(GTK_WINDOW(self), title);
}

gboolean esl_tyre_dialog_open_file(EslTyreDialog *self, const char *path, GError **error)
{
    GError *local = NULL;
    MbsTyreData *data = esl_tyre_file_load(path, &local);
    if (!data) {
        gtk_label_set_text(GTK_LABEL(self->info_label), local->message);
        g_propagate_error(error, local);
        return FALSE;
    }
    g_autofree char *name = g_path_get_basename(path);
    esl_tyre_dialog_show_data(self, data, name);
    mbs_tyre_pac2002.free_data(data);
    return TRUE;
}

static void on_file_chosen(GtkNativeDialog *chooser, int response, EslTyreDialog *self)
{
    if (response == GTK_RESPONSE_ACCEPT) {
        g_autoptr(GFile) file = gtk_file_chooser_get_file(GTK_FILE_CHOOSER(chooser));
        g_autofree char *path = file ? g_file_get_path(file) : NULL;
        if (path)
            esl_tyre_dialog_open_file(self, path, NULL); /* an error shows in the dialog */
    }
    g_object_unref(chooser);
}

static void action_open(GtkWidget *widget, const char *name, GVariant *parameter)
{
    (void)name, (void)parameter;
    GtkFileChooserNative *chooser = gtk_file_chooser_native_new(
        _("Open a Tyre Property File"), GTK_WINDOW(widget), GTK_FILE_CHOOSER_ACTION_OPEN,
        _("_Open"), _("_Cancel"));
    GtkFileFilter *filter = gtk_file_filter_new();
    gtk_file_filter_set_name(filter, _("Tyre property files (.tir)"));
    gtk_file_filter_add_pattern(filter, "*.tir");
    gtk_file_chooser_add_filter(GTK_FILE_CHOOSER(chooser), filter);
    g_object_unref(filter);
    g_signal_connect(chooser, "response", G_CALLBACK(on_file_chosen), widget);
    gtk_native_dialog_show(GTK_NATIVE_DIALOG(chooser));
}

EslPlot *esl_tyre_dialog_get_plot(EslTyreDialog *self, EslTyreCurve curve)
{
    g_return_val_if_fail(curve >= 0 && curve < ESL_TYRE_CURVE_COUNT, NULL);
    return ESL_PLOT(self->plots[curve]);
}

const double *esl_tyre_dialog_get_loads(EslTyreDialog *self)
{
    return self->loads;
}

static void esl_tyre_dialog_dispose(GObject *object)
{
    gtk_widget_dispose_template(GTK_WIDGET(object), ESL_TYPE_TYRE_DIALOG);
    G_OBJECT_CLASS(esl_tyre_dialog_parent_class)->dispose(object);
}

static void esl_tyre_dialog_class_init(EslTyreDialogClass *klass)
{
    GtkWidgetClass *widget_class = GTK_WIDGET_CLASS(klass);
    G_OBJECT_CLASS(klass)->dispose = esl_tyre_dialog_dispose;
    g_type_ensure(ESL_TYPE_PLOT);
    gtk_widget_class_set_template_from_resource(widget_class,
                                                "/org/eslabon/Eslabon/ui/esl-tyre-dialog.ui");
    gtk_widget_class_bind_template_child_full(widget_class, "fy_plot", FALSE,
                                              G_STRUCT_OFFSET(EslTyreDialog, plots[0]));
    gtk_widget_class_bind_template_child_full(widget_class, "fx_plot", FALSE,
                                              G_STRUCT_OFFSET(EslTyreDialog, plots[1]));
    gtk_widget_class_bind_template_child_full(widget_class, "mz_plot", FALSE,
                                              G_STRUCT_OFFSET(EslTyreDialog, plots[2]));
    gtk_widget_class_bind_template_child(widget_class, EslTyreDialog, info_label);
    gtk_widget_class_install_action(widget_class, "tyre.open", NULL, action_open);
    gtk_widget_class_add_binding_action(widget_class, GDK_KEY_o, GDK_CONTROL_MASK, "tyre.open",
                                        NULL);
    gtk_widget_class_add_binding_action(widget_class, GDK_KEY_Escape, 0, "window.close", NULL);
}

static void esl_tyre_dialog_init(EslTyreDialog *self)
{
    gtk_widget_init_template(GTK_WIDGET(self));
}

GtkWidget *esl_tyre_dialog_new(GtkWindow *parent)
{
    return g_object_new(ESL_TYPE_TYRE_DIALOG, "transient-for", parent, NULL);
}
