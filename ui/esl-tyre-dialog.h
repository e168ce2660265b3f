/* EslTyreDialog: a tyre's steady-state curves, Fy–α, Fx–κ and Mz–α at 0.5, 1 and 1.5 times its
 * nominal load (FNOMIN), from a PAC2002 .tir file through the engine's rig
 * (mbs_pac2002_rig, as `eslabon-cli tyre`). Opened from a wheel's context menu in the model list
 * and from the main menu (win.tyre-curves). */
#ifndef ESL_TYRE_DIALOG_H
#define ESL_TYRE_DIALOG_H

#include <gtk/gtk.h>

#include "esl-plot.h"
#include "mbs_tyre_model.h"

G_BEGIN_DECLS

#define ESL_TYPE_TYRE_DIALOG (esl_tyre_dialog_get_type())
G_DECLARE_FINAL_TYPE(EslTyreDialog, esl_tyre_dialog, ESL, TYRE_DIALOG, GtkWindow)

typedef enum {
    ESL_TYRE_CURVE_FY_ALPHA,
    ESL_TYRE_CURVE_FX_KAPPA,
    ESL_TYRE_CURVE_MZ_ALPHA,
    ESL_TYRE_CURVE_COUNT
} EslTyreCurve;

GtkWidget *esl_tyre_dialog_new(GtkWindow *parent);
/* The curves of a pac2002 law's data (used at once, not kept); name says whose (a wheel, a
 * file). */
void esl_tyre_dialog_show_data(EslTyreDialog *self, const MbsTyreData *data, const char *name);
/* The curves of a .tir file; FALSE with error (also shown in the dialog) when it cannot be read. */
gboolean esl_tyre_dialog_open_file(EslTyreDialog *self, const char *path, GError **error);
EslPlot *esl_tyre_dialog_get_plot(EslTyreDialog *self, EslTyreCurve curve);
/* The loads plotted (N), ESL_TYRE_LOADS of them. */
#define ESL_TYRE_LOADS 3
const double *esl_tyre_dialog_get_loads(EslTyreDialog *self);

G_END_DECLS

#endif
