/* libFuzzer target: the parameter expression evaluator (engine/mbs_expr.c). Besides "no
 * crash", it checks two properties of every input it accepts: the result is finite, and the
 * text mbs_expr_format_number writes for it evaluates back to exactly the same double. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz-target.h"
#include "mbs_expr.h"

/* Model fields are short; long inputs only test the nesting limit, which short ones reach. */
#define FUZZ_EXPR_MAX_BYTES 4096

static const MbsExprVariable variables[] = {
    {"L", 0.5}, {"m", 2.0}, {"g", 9.81}, {"theta_0", 0.3}, {"big", 1e300}, {"tiny", 1e-300},
};
#define NVARIABLES ((int)(sizeof variables / sizeof variables[0]))

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > FUZZ_EXPR_MAX_BYTES)
        return 0;
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';

    char message[MBS_EXPR_MESSAGE_MAX];
    unsigned char used[NVARIABLES] = {0};
    double value = 0.0;
    if (mbs_expr_eval(text, variables, NVARIABLES, &value, used, message)) {
        if (!(value - value == 0.0)) /* NaN or infinite: the evaluator promises an error */
            abort();
        char number[MBS_EXPR_NUMBER_MAX];
        mbs_expr_format_number(value, number);
        double back = 0.0;
        if (!mbs_expr_eval(number, NULL, 0, &back, NULL, message) || back != value)
            abort();
    } else if (memchr(message, '\0', sizeof message) == NULL) {
        abort(); /* the message must be a terminated string */
    }
    mbs_expr_valid_name(text, message);
    free(text);
    return 0;
}
