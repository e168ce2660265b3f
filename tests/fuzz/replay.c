/* Replays inputs through a fuzz target without libFuzzer (any compiler): every argument is a
 * file or a directory of files (not recursive), fed in name order to LLVMFuzzerTestOneInput.
 * Prints TAP, one line per input; a crash or sanitizer report ends the process, which the
 * test harness reports as a failure. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz-target.h"

static int replayed;

static int replay_file(const char *path)
{
    FILE *fp = fopen(path, "rb");
    if (!fp) {
        printf("not ok %d - cannot read %s\n", ++replayed, path);
        return 0;
    }
    size_t cap = 1 << 16, size = 0;
    unsigned char *data = malloc(cap);
    size_t got;
    while (data && (got = fread(data + size, 1, cap - size, fp)) > 0) {
        size += got;
        if (size == cap) {
            unsigned char *bigger = realloc(data, cap *= 2);
            if (!bigger)
                free(data);
            data = bigger;
        }
    }
    fclose(fp);
    if (!data) {
        printf("not ok %d - out of memory reading %s\n", ++replayed, path);
        return 0;
    }
    fflush(stdout); /* the last line printed names the input being replayed if it crashes */
    fprintf(stderr, "replaying %s\n", path);
    LLVMFuzzerTestOneInput(data, size);
    free(data);
    printf("ok %d - %s (%zu bytes)\n", ++replayed, path, size);
    return 1;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int replay_path(const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        printf("not ok %d - no such input %s\n", ++replayed, path);
        return 0;
    }
    if (!S_ISDIR(st.st_mode))
        return replay_file(path);
    DIR *dir = opendir(path);
    if (!dir) {
        printf("not ok %d - cannot list %s\n", ++replayed, path);
        return 0;
    }
    char **names = NULL;
    size_t n = 0;
    struct dirent *e;
    while ((e = readdir(dir))) {
        if (e->d_name[0] == '.' || strcmp(e->d_name, "README.md") == 0)
            continue;
        char **more = realloc(names, (n + 1) * sizeof *names);
        if (!more)
            break;
        names = more;
        size_t len = strlen(path) + strlen(e->d_name) + 2;
        names[n] = malloc(len);
        snprintf(names[n++], len, "%s/%s", path, e->d_name);
    }
    closedir(dir);
    if (n > 1)
        qsort(names, n, sizeof *names, by_name);
    int ok = 1;
    for (size_t i = 0; i < n; i++) {
        ok &= replay_file(names[i]);
        free(names[i]);
    }
    free(names);
    return ok;
}

int main(int argc, char **argv)
{
    int ok = 1;
    for (int i = 1; i < argc; i++)
        ok &= replay_path(argv[i]);
    if (replayed == 0) {
        printf("1..0 # SKIP no inputs given\n");
        return 1; /* an empty replay would pass while testing nothing */
    }
    printf("1..%d\n", replayed);
    return ok ? 0 : 1;
}
