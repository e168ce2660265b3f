/* Reading the inputs of an edit: the a{sv} dictionaries that the structural edits
 * (esl-model-build.h) and the objective edits (esl-objective-edit.h) take, as the window's
 * actions and editors fill them. GLib-only. */
#ifndef ESL_EDIT_SPEC_H
#define ESL_EDIT_SPEC_H

#include <glib.h>

G_BEGIN_DECLS

/* The string at key, or NULL when absent or not a string. */
const char *esl_spec_string(GVariant *spec, const char *key);
/* A finite number at key, given as d or i; FALSE when absent, of another type or not finite. */
gboolean esl_spec_double(GVariant *spec, const char *key, double *out);
/* n finite numbers of an "ad" input; FALSE when absent or of another length. */
gboolean esl_spec_doubles(GVariant *spec, const char *key, int n, double *out);
/* Two strings of an "as" input; FALSE when absent or not two. */
gboolean esl_spec_pair(GVariant *spec, const char *key, const char *out[2]);

G_END_DECLS

#endif
