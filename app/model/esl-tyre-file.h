/* Reading a tyre property file (.tir, PAC2002) for the tyre test rig: `eslabon-cli tyre` and
 * the application's tyre curves (ui/esl-tyre-dialog.c) read it through this one function. */
#ifndef ESL_TYRE_FILE_H
#define ESL_TYRE_FILE_H

#include <glib.h>

#include "mbs_tyre_model.h"

G_BEGIN_DECLS

/* The pac2002 law's data from the file at path (a regular file of at most 16 MB), or NULL with
 * error (naming the file, and the line for a bad key). Free with mbs_tyre_pac2002.free_data. */
MbsTyreData *esl_tyre_file_load(const char *path, GError **error);

G_END_DECLS

#endif
