/* Edits of a model file's JSON text: the structural edits (esl-model-build.h) and the
 * objective edits (esl-objective-edit.h) are each a function of the parsed file and an a{sv}
 * dictionary of inputs (as the window's actions and editors fill them), named by a kind. This
 * reads those inputs and applies one edit by its kind. GLib-only (json-glib). */
#ifndef ESL_EDIT_JSON_H
#define ESL_EDIT_JSON_H

#include <glib.h>
#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/* The string at key, or NULL when absent or not a string. */
const char *esl_spec_string(GVariant *spec, const char *key);
/* A finite number at key, given as d or i; FALSE when absent, of another type or not finite. */
gboolean esl_spec_double(GVariant *spec, const char *key, double *out);
/* n finite numbers of an "ad" input; FALSE when absent or of another length. */
gboolean esl_spec_doubles(GVariant *spec, const char *key, int n, double *out);
/* Two strings of an "as" input; FALSE when absent or not two. */
gboolean esl_spec_pair(GVariant *spec, const char *key, const char *out[2]);

/* An edit: changes the file's root object after the inputs, or FALSE with error. */
typedef struct {
    const char *kind;
    gboolean (*edit)(JsonObject *root, GVariant *spec, GError **error);
} EslEditKind;

/* json after the edit of edits (n of them) named kind, pretty-printed with a final newline;
 * NULL with error when spec is not an a{sv}, json not a JSON object, kind none of edits, or
 * the edit fails. */
char *esl_edit_json(const char *json, const EslEditKind *edits, size_t n, const char *kind,
                    GVariant *spec, GError **error);

G_END_DECLS

#endif
