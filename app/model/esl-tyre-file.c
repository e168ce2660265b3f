/* See esl-tyre-file.h. */
#include "esl-tyre-file.h"

#include <errno.h>
#include <gio/gio.h>
#include <sys/stat.h>

#include "tyre_pac2002.h"

#define TYRE_FILE_MAX (16 * 1024 * 1024)

MbsTyreData *esl_tyre_file_load(const char *path, GError **error)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        int code = errno;
        g_set_error(error, G_IO_ERROR, g_io_error_from_errno(code), "%s: %s", path,
                    g_strerror(code));
        return NULL;
    }
    if (!S_ISREG(st.st_mode) || st.st_size > TYRE_FILE_MAX) {
        g_set_error(error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                    "%s: not a regular file of at most %d MB", path, TYRE_FILE_MAX >> 20);
        return NULL;
    }
    g_autofree char *text = NULL;
    gsize size = 0;
    if (!g_file_get_contents(path, &text, &size, error))
        return NULL;
    MbsError err = {0};
    MbsTyreData *data = mbs_tyre_pac2002.parse(text, size, path, &err);
    if (!data)
        g_set_error(error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, "%s", err.message);
    return data;
}
