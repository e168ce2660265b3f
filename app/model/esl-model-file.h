/* Model files (JSON, format "eslabon-model" version 1, see docs/model-format.md) -> compiled
 * engine model. Every failure is a GError whose message names the file, the element and the
 * problem, e.g. "four-bar.json: joints[2] 'C': unknown joint type 'hinge' (...)". */
#ifndef ESL_MODEL_FILE_H
#define ESL_MODEL_FILE_H

#include <glib.h>
#include <json-glib/json-glib.h>

#include "mbs_model.h"

G_BEGIN_DECLS

#define ESL_MODEL_FILE_ERROR (esl_model_file_error_quark())
GQuark esl_model_file_error_quark(void);

typedef enum {
    ESL_MODEL_FILE_ERROR_READ,     /* the file cannot be read */
    ESL_MODEL_FILE_ERROR_SYNTAX,   /* not JSON */
    ESL_MODEL_FILE_ERROR_FORMAT,   /* JSON, but not an eslabon-model of a supported version */
    ESL_MODEL_FILE_ERROR_INVALID,  /* a missing, mistyped or wrong value */
    ESL_MODEL_FILE_ERROR_TOPOLOGY, /* rejected by mbs_model_compile */
} EslModelFileError;

/* Replaces the value of a parameter of the file before any field is evaluated. */
typedef struct {
    const char *name;
    double value;
} EslParameterOverride;

/* Largest model file esl_model_load_file reads (the largest shipped model is a few hundred kB);
 * it also refuses anything but a regular file (a FIFO, /dev/zero). */
#define ESL_MODEL_FILE_SIZE_MAX (64 * 1000 * 1000)

/* Largest memory json-glib may take to parse a model file, estimated from the text before it
 * is parsed (about 100 bytes a value, 300 an object): a file of millions of empty arrays or
 * small numbers would otherwise take 40 times its size. */
#define ESL_MODEL_PARSE_MEMORY_MAX (256 * 1000 * 1000)

/* The text of a model file read with the loader's guards, for every reader of model files (the
 * loader, list-models, the start page's gallery): a regular file (a FIFO or a device is refused
 * without blocking, also through a link), at most ESL_MODEL_FILE_SIZE_MAX bytes. NULL with
 * error (ESL_MODEL_FILE_ERROR_READ); *len the length (the text is NUL-terminated). */
char *esl_model_file_read(const char *path, gsize *len, GError **error);
/* The file parsed (esl_model_file_read, then JSON nested at most 200 levels and within
 * ESL_MODEL_PARSE_MEMORY_MAX), its root node (free with json_node_unref); NULL with error. */
JsonNode *esl_model_file_read_json(const char *path, GError **error);

/* Load, build and compile. Returns NULL with error set on any failure. */
MbsModel *esl_model_load_file(const char *path, const EslParameterOverride *overrides,
                              int noverrides, GError **error);
/* Same from a NUL-terminated string; origin_name stands for the file name in messages. */
MbsModel *esl_model_load_string(const char *json, const char *origin_name,
                                const EslParameterOverride *overrides, int noverrides,
                                GError **error);

/* The same without overrides; on failure *partial (when not NULL) receives the model as far as it
 * was read before the problem, not compiled (NULL when nothing could be read), for drawing a
 * mechanism under construction. */
MbsModel *esl_model_load_string_partial(const char *json, const char *origin_name,
                                        MbsModel **partial, GError **error);

G_END_DECLS

#endif
