/* Settings tables (engine/mbs_settings.h) as JSON: a run's formulation options as one object
 * keyed by setting name (the project's `options` column, the CLI summary), and the tables
 * themselves (`eslabon-cli formulations --json`). Generated from the tables: nothing here
 * names a setting. */
#ifndef ESL_SETTINGS_JSON_H
#define ESL_SETTINGS_JSON_H

#include <glib.h>
#include <json-glib/json-glib.h>

#include "mbs_formulation.h"

/* Deepest nesting of arrays and objects in a JSON text of len bytes, counted without parsing:
 * json-glib recurses and would exhaust the stack on, say, 100,000 '['. */
int esl_json_nesting_depth(const char *text, gsize len);
/* Nesting the JSON readers of settings and project texts accept. */
#define ESL_JSON_MAX_NESTING 200

/* JSON text of root, the one JSON writer of the application (never json_generator_to_data
 * nor json_to_string: json-glib 1.6 writes 1e+17 as "1e+17.0", which no parser reads). Every
 * double reads back to the same double; a non-finite one is written as null. */
char *esl_json_generate(JsonNode *root, gboolean pretty);
/* One double as JSON (the digits esl_json_generate writes). */
void esl_json_append_double(GString *out, double v);
/* A member key: v of the object being built (null when v is not finite). */
void esl_json_builder_add_number(JsonBuilder *b, const char *key, double v);
/* A member key: v (a string) of the object being built. */
void esl_json_builder_add_string(JsonBuilder *b, const char *key, const char *v);
/* The value of one setting of s (numbers, integers, choices by name, lists as their JSON). */
JsonNode *esl_setting_to_json(const MbsSettings *s, const MbsSettingRef *r);
/* The options s holds (a formulation's, or a sensitivity method's), as {"name": value, ...};
 * "{}" when it holds none. */
char *esl_settings_options_to_json(const MbsSettings *s);
/* The same as a JSON object node (the caller's). */
JsonNode *esl_settings_options_to_node(const MbsSettings *s);
/* Makes s hold k's options: its defaults, overwritten by the members of `json` (NULL or "{}":
 * all defaults; a null member: that default; a member no setting of k has: ignored, so that a
 * project written by a later version still opens). FALSE with error on a malformed text or a
 * value out of its setting's range. */
gboolean esl_settings_options_from_json(MbsSettings *s, const MbsFormulationClass *k,
                                        const char *json, GError **error);
/* The same for any options table t (a sensitivity method's: mbs_sensitivity_settings); owner
 * names it in messages ("matrix-r adjoint"). */
gboolean esl_settings_table_options_from_json(MbsSettings *s, const MbsSettingTable *t,
                                              const char *owner, const char *json,
                                              GError **error);
/* Every number of s is finite; FALSE with error naming the first that is not. */
gboolean esl_settings_check_finite(const MbsSettings *s, GError **error);
/* The table of formulation k (common settings first) as an array of setting objects:
 * name, type, default, choices, min, max, unit, label, description, applies_always. */
void esl_settings_table_to_json(JsonBuilder *b, const MbsFormulationClass *k);

#endif
