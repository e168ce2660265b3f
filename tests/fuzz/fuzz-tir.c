/* libFuzzer target: the .tir reader (engine/vehicle/mbs_tir.c) and the pac2002 law's checks
 * (engine/vehicle/tyre_pac2002.c). Besides "no crash", it checks that a refusal leaves a
 * NUL-terminated message naming the file, and that a file it accepts gives finite forces,
 * moments and derivatives on a few inputs (the law's promise: never NaN for finite input). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz-target.h"
#include "mbs_tyre_model.h"

/* Real .tir files are about 10 kB. */
#define FUZZ_TIR_MAX_BYTES 65536

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > FUZZ_TIR_MAX_BYTES)
        return 0;
    /* not NUL-terminated on purpose: the reader takes a size */
    char *text = malloc(size ? size : 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    const MbsTyreModelClass *law = mbs_tyre_model_class_by_name("pac2002");
    MbsError err = {0};
    MbsTyreData *d = law->parse(text, size, "fuzz.tir", &err);
    if (!d) {
        if (!memchr(err.message, '\0', sizeof err.message) || strncmp(err.message, "fuzz.tir", 8))
            abort();
    } else {
        static const double inputs[][MBS_TYRE_IN_COUNT] = {
            {4000.0, 20.0, 1.0, 45.0, 0.02},  {4000.0, 0.0, 0.0, 0.0, 0.0},
            {9000.0, 0.3, -0.2, 3.0, -0.1},   {1e5, -15.0, 4.0, -20.0, 0.2},
            {0.0, 10.0, 1.0, 20.0, 0.0},      {1.0, 1e3, -1e3, 1e4, 0.5},
        };
        for (size_t i = 0; i < sizeof inputs / sizeof inputs[0]; ++i) {
            MbsTyreInput in = {.mu_scale = 0.8};
            memcpy(in.in, inputs[i], sizeof in.in);
            MbsTyreOutput o;
            MbsTyreDerivative dd;
            law->evaluate(d, &in, &o, &dd);
            for (int k = 0; k < MBS_TYRE_OUT_COUNT; ++k) {
                if (!isfinite(o.out[k]))
                    abort();
                for (int j = 0; j < MBS_TYRE_IN_COUNT; ++j)
                    if (!isfinite(dd.d[k][j]))
                        abort();
            }
        }
        double r, k, c;
        law->vertical(d, NULL, &r, &k, &c);
        MbsTyreData *copy = law->copy(d);
        law->free_data(copy);
        law->free_data(d);
    }
    free(text);
    return 0;
}
