#include "mbs_error.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>

int mbs_error_set(MbsError *err, int status, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->message, sizeof err->message, fmt, ap);
        va_end(ap);
        err->status = status;
    }
    return status;
}

const char *mbs_error_correction_hint(double correction)
{
    return isfinite(correction) ? ""
                                : "; the correction is not finite: are the model's values (masses, "
                                  "lengths, gravity) too large for double precision?";
}

void mbs_error_clear(MbsError *err)
{
    if (err) {
        err->status = 0;
        err->message[0] = '\0';
    }
}
