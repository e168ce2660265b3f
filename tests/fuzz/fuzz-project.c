/* libFuzzer target: the project reader (app/esl-project.c). The input is written as a project
 * file, opened as the application opens one, then every run is listed and each run's record
 * and samples are loaded, as the GUI does on open. A refused file must give a GError, never
 * a crash, an abort or an allocation of unchecked size. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define FUZZ_TARGET_USES_GLIB
#include "esl-project.h"
#include "fuzz-target.h"

/* A project with a few short runs is ~100 kB; SQLite reads pages lazily, so longer inputs only
 * add copying. */
#define FUZZ_PROJECT_MAX_BYTES (1024 * 1024)

static char *project_path(void)
{
    static char *path;
    if (!path) {
        /* One file per process (libFuzzer's -jobs/-workers run several). */
        const char *dir = g_getenv("TMPDIR");
        path = g_strdup_printf("%s/eslabon-fuzz-project-%d.eslp", dir ? dir : "/tmp",
                               (int)getpid());
    }
    return path;
}

static void remove_project_files(const char *path)
{
    static const char *const suffixes[] = {"", "-wal", "-shm", "-journal"};
    for (size_t i = 0; i < sizeof suffixes / sizeof suffixes[0]; i++) {
        char *name = g_strconcat(path, suffixes[i], NULL);
        unlink(name);
        g_free(name);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > FUZZ_PROJECT_MAX_BYTES)
        return 0;
    fuzz_quiet_glib_logs();
    const char *path = project_path();
    remove_project_files(path);
    FILE *fp = fopen(path, "wb");
    if (!fp)
        abort(); /* the target itself cannot work: say so loudly rather than test nothing */
    if (size && fwrite(data, 1, size, fp) != size)
        abort();
    fclose(fp);

    GError *error = NULL;
    EslProject *project = esl_project_open(path, FALSE, &error);
    if (project) {
        GPtrArray *runs = esl_project_list_runs(project, &error);
        g_clear_error(&error);
        for (guint i = 0; runs && i < runs->len; i++) {
            const EslRunInfo *listed = g_ptr_array_index(runs, i);
            EslRunInfo *info = esl_project_get_run(project, listed->id, &error);
            g_clear_error(&error);
            esl_run_info_free(info);
            EslRunHistory *history = esl_project_load_run(project, listed->id, &error);
            g_clear_error(&error);
            esl_run_history_free(history);
            char *model = esl_project_model_json(project, listed->model_id, &error);
            g_clear_error(&error);
            g_free(model);
        }
        if (runs)
            g_ptr_array_unref(runs);
        esl_project_close(project);
    }
    g_clear_error(&error);
    remove_project_files(path);
    return 0;
}
