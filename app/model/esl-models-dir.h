/* Where the bundled models are, and model arguments given by name. */
#ifndef ESL_MODELS_DIR_H
#define ESL_MODELS_DIR_H

/* $ESLABON_MODELS_DIR when set, else the models/ folder of the source tree. */
const char *esl_models_dir(void);
/* A path, or the name of a bundled model ("four-bar-spatial" or "four-bar-spatial.json").
 * Returns a newly allocated path (g_free); the argument itself when nothing matches. */
char *esl_resolve_model_path(const char *arg);

#endif
