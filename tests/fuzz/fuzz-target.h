/* Shared by the fuzz targets (tests/fuzz) and their replay driver. */
#ifndef FUZZ_TARGET_H
#define FUZZ_TARGET_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

/* The libFuzzer entry point: one input, returns 0. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#ifdef FUZZ_TARGET_USES_GLIB
#include <glib.h>

static GLogWriterOutput fuzz_drop_log(GLogLevelFlags level, const GLogField *fields,
                                      gsize nfields, gpointer user_data)
{
    (void)fields, (void)nfields, (void)user_data;
    /* Warnings about a corrupt input are expected by the million; criticals are not (a
     * g_return_if_fail reached from input is a bug): abort so the fuzzer reports them. */
    if (level & (G_LOG_LEVEL_ERROR | G_LOG_LEVEL_CRITICAL))
        abort();
    return G_LOG_WRITER_HANDLED;
}

/* g_warning from a rejected input would flood the fuzzer's output. */
static inline void fuzz_quiet_glib_logs(void)
{
    static int done;
    if (!done) {
        g_log_set_writer_func(fuzz_drop_log, NULL, NULL);
        done = 1;
    }
}
#endif

#endif
