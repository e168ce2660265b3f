/* libFuzzer target: the model loader (JSON text -> engine model), mbs_model_compile and the
 * initial assembly (position, velocity, acceleration problems), as `eslabon-cli run` does
 * before its first step. Every input must end in a loaded model or a GError, never a crash,
 * a sanitizer report or a hang. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define FUZZ_TARGET_USES_GLIB
#include "esl-model-file.h"
#include "fuzz-target.h"
#include "mbs_assembly.h"

/* Larger than every bundled model (the 7x15 lattice is ~60 kB): longer inputs only slow the
 * fuzzer down without reaching new code. */
#define FUZZ_MODEL_MAX_BYTES (256 * 1024)

static void assemble(const MbsModel *m)
{
    MbsSettings s;
    mbs_settings_defaults(&s);
    int n = mbs_model_ncoords(m);
    double *z = calloc((size_t)n + 1, sizeof *z);
    double *zd = calloc((size_t)n + 1, sizeof *zd);
    double *zdd = calloc((size_t)n + 1, sizeof *zdd);
    MbsBodyState *bodies = calloc((size_t)m->nbodies + 1, sizeof *bodies);
    MbsError err = {0};
    if (z && zd && zdd && bodies && mbs_assemble(m, &s, 0.0, z, zd, bodies, &err) == 0)
        mbs_assemble_accelerations(m, &s, 0.0, z, zd, zdd, &err);
    free(z);
    free(zd);
    free(zdd);
    free(bodies);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > FUZZ_MODEL_MAX_BYTES)
        return 0;
    fuzz_quiet_glib_logs();
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    GError *error = NULL;
    MbsModel *m = esl_model_load_string(text, "fuzz.json", NULL, 0, &error);
    free(text);
    if (m) {
        assemble(m);
        mbs_model_free(m);
    }
    g_clear_error(&error);
    return 0;
}
