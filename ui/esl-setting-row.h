/* EslSettingRow: one row of a settings grid made from a setting's descriptor
 * (engine/mbs_settings.h): a label (with the unit; the description as tooltip) and a control —
 * a drop-down of the choices the formulation offers, or a spin button (logarithmic for
 * tolerances, %g for quantities spanning decades, "automatic" for 0 where 0 means that). The run
 * panel makes its rows of the common settings and of every formulation's table with it, the
 * sensitivity chooser those of the sensitivity methods' tables: nothing here or there names a
 * setting. A plain struct, not a widget: the panel that makes rows owns them (g_free). */
#ifndef ESL_SETTING_ROW_H
#define ESL_SETTING_ROW_H

#include <gtk/gtk.h>

#include "mbs_formulation.h"

typedef struct {
    /* the formulation whose choices a choice row offers (mbs_formulation_offers_choice) and
     * whose options the row reads; NULL: the common settings */
    const MbsFormulationClass *klass;
    MbsSettingRef ref;
    GtkWidget *label, *widget;
    gboolean model_ok; /* the setting applies to the panel's model (the panel keeps it) */
    /* a choice row: the choice at each position of its drop-down */
    int choice_at[32];
    int nchoices;
} EslSettingRow;

/* Makes the control of a list setting (the panel's own, e.g. matrix-r's coordinates). */
typedef GtkWidget *(*EslSettingListWidget)(gpointer data);

/* Rows for the settings of table (NULL: the common settings; else only table's own, not the
 * common ones mbs_settings_list puts first), appended to rows and attached to grid from
 * *next_row on (a list setting spans both columns under its heading; none is made when
 * make_list is NULL). changed (may be NULL) is called with data when a choice changes. */
void esl_setting_rows_add(GPtrArray *rows, GtkGrid *grid, int *next_row,
                          const MbsFormulationClass *klass, const MbsSettingTable *table,
                          EslSettingListWidget make_list, GCallback changed, gpointer data);
/* The value the row shows into s (s holds the options of the row's table), and the reverse;
 * not for list settings (the panel's own). Typed text not yet confirmed is taken in. */
void esl_setting_row_read(const EslSettingRow *row, MbsSettings *s);
void esl_setting_row_show(const EslSettingRow *row, const MbsSettings *s);
void esl_setting_row_set_visible(EslSettingRow *row, gboolean visible);

#endif
