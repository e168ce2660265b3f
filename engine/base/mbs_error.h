/* Error record shared by every engine function.
 * Status convention: 0 ok, > 0 recoverable (the caller may cut the step), < 0 fatal. */
#ifndef MBS_ERROR_H
#define MBS_ERROR_H

#define MBS_OK 0
#define MBS_RECOVERABLE 1
#define MBS_FATAL (-1)

typedef struct MbsError {
    int status;
    char message[512];
} MbsError;

/* Fill the record (printf-style) and return status. err may be NULL. */
int mbs_error_set(MbsError *err, int status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void mbs_error_clear(MbsError *err);
/* For a Newton failure message: "" when the last correction is finite, else a sentence saying
 * so (huge masses, lengths or gravity overflow double precision; a smaller step rarely helps). */
const char *mbs_error_correction_hint(double correction);

#endif
