/* A local pool of processes running a study's cases; see esl-study-pool.h. */
#include "esl-study-pool.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mbs_clock.h"

typedef struct {
    GPid pid;    /* 0: a free slot */
    int k;
    GSource *watch;
    EslStudyPool *pool;
} Slot;

struct _EslStudyPool {
    const EslStudy *study;
    char **argv;
    int jobs;
    GMainContext *context;
    EslStudyPoolCallbacks cb;
    GArray *todo; /* int: the cases not done when the pool started */
    guint next;
    Slot *slots;
    int running, done, failed, ran;
    gboolean cancelled, over;
    double t0;
    GError *error;
    GSource *idle; /* ended() of a pool with nothing to run */
};

static void report(EslStudyPool *p)
{
    if (!p->cb.progress)
        return;
    double elapsed = mbs_clock_now() - p->t0;
    int left = p->study->ncases - p->done;
    p->cb.progress(p->done, p->failed, p->study->ncases, p->ran > 0 ? elapsed / p->ran * left : -1,
                   p->cb.data);
}

static void on_child_exit(GPid pid, gint wait_status, gpointer data);

/* Start case k in slot s; FALSE with error when the process cannot be started. */
static gboolean spawn_case(EslStudyPool *p, Slot *s, int k, GError **error)
{
    g_autofree char *dir = esl_study_shards_dir(p->study);
    g_autofree char *log_name = g_strdup_printf("case-%04d.log", k);
    g_autofree char *log = g_build_filename(dir, log_name, NULL);
    int argc = (int)g_strv_length(p->argv);
    g_autofree char *number = g_strdup_printf("%d", k);
    g_autofree char **argv = g_new0(char *, argc + 1);
    memcpy(argv, p->argv, sizeof(char *) * argc);
    argv[argc - 1] = number;
    int fd = g_open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (fd < 0) {
        g_set_error(error, ESL_STUDY_ERROR, ESL_STUDY_ERROR_IO, "cannot write %s: %s", log,
                    g_strerror(errno));
        return FALSE;
    }
    GPid pid = 0;
    gboolean ok = g_spawn_async_with_pipes_and_fds(
        NULL, (const char *const *)argv, NULL, G_SPAWN_DO_NOT_REAP_CHILD, NULL, NULL, -1, fd, fd,
        NULL, NULL, 0, &pid, NULL, NULL, NULL, error);
    close(fd);
    if (!ok) {
        g_prefix_error(error, "cannot start a process for case %d: ", k);
        return FALSE;
    }
    s->pid = pid;
    s->k = k;
    s->pool = p;
    s->watch = g_child_watch_source_new(pid);
    g_source_set_callback(s->watch, (GSourceFunc)(void (*)(void))on_child_exit, s, NULL);
    g_source_attach(s->watch, p->context);
    p->running++;
    return TRUE;
}

/* Fill the free slots with the next cases (none once cancelled or after an error). */
static gboolean fill(EslStudyPool *p, GError **error)
{
    for (int i = 0; i < p->jobs && !p->cancelled && !p->error && p->next < p->todo->len; i++)
        if (p->slots[i].pid == 0) {
            int k = g_array_index(p->todo, int, p->next++);
            if (!spawn_case(p, &p->slots[i], k, error))
                return FALSE;
        }
    return TRUE;
}

static void end(EslStudyPool *p)
{
    p->over = TRUE;
    if (p->cb.ended)
        p->cb.ended(p->cancelled, p->cb.data);
}

static void on_child_exit(GPid pid, gint wait_status, gpointer data)
{
    Slot *s = data;
    EslStudyPool *p = s->pool;
    int k = s->k;
    g_spawn_close_pid(pid);
    g_source_unref(s->watch);
    s->watch = NULL;
    s->pid = 0;
    p->running--;
    gboolean killed = WIFSIGNALED(wait_status) && WTERMSIG(wait_status) == SIGTERM;
    if (!(p->cancelled && killed)) {
        EslCaseState st = esl_study_case_state(p->study, k, NULL);
        p->ran++;
        p->done++;
        if (!WIFEXITED(wait_status) || st != ESL_CASE_FINISHED)
            p->failed++;
        if (p->cb.case_ended)
            p->cb.case_ended(k, st, p->cb.data);
        report(p);
    }
    GError *error = NULL;
    if (!fill(p, &error))
        p->error = error;
    if (p->running == 0)
        end(p);
}

static gboolean on_nothing_to_run(gpointer data)
{
    EslStudyPool *p = data;
    g_source_unref(p->idle);
    p->idle = NULL;
    end(p);
    return G_SOURCE_REMOVE;
}

EslStudyPool *esl_study_pool_start(const EslStudy *study, char *const *argv, int jobs,
                                   GMainContext *context, const EslStudyPoolCallbacks *callbacks,
                                   GError **error)
{
    g_autofree char *dir = esl_study_shards_dir(study);
    if (g_mkdir_with_parents(dir, 0777) != 0) {
        g_set_error(error, ESL_STUDY_ERROR, ESL_STUDY_ERROR_IO, "cannot create %s: %s", dir,
                    g_strerror(errno));
        return NULL;
    }
    EslStudyPool *p = g_new0(EslStudyPool, 1);
    p->study = study;
    p->argv = g_strdupv((char **)argv);
    p->jobs = MAX(jobs, 1);
    p->context = context ? g_main_context_ref(context) : NULL;
    if (callbacks)
        p->cb = *callbacks;
    p->todo = g_array_new(FALSE, FALSE, sizeof(int));
    p->slots = g_new0(Slot, p->jobs);
    for (int k = 0; k < study->ncases; k++) {
        EslCaseState st = esl_study_case_state(study, k, NULL);
        if (st == ESL_CASE_FINISHED || st == ESL_CASE_FAILED)
            p->done++, p->failed += st == ESL_CASE_FAILED;
        else
            g_array_append_val(p->todo, k);
    }
    p->t0 = mbs_clock_now();
    report(p);
    if (!fill(p, error)) {
        esl_study_pool_free(p);
        return NULL;
    }
    if (p->running == 0) {
        p->idle = g_idle_source_new();
        g_source_set_callback(p->idle, on_nothing_to_run, p, NULL);
        g_source_attach(p->idle, p->context);
    }
    return p;
}

void esl_study_pool_cancel(EslStudyPool *p)
{
    if (!p || p->over)
        return;
    p->cancelled = TRUE;
    for (int i = 0; i < p->jobs; i++)
        if (p->slots[i].pid > 0)
            kill(p->slots[i].pid, SIGTERM);
}

gboolean esl_study_pool_is_running(const EslStudyPool *p)
{
    return p && !p->over;
}

int esl_study_pool_get_ran(const EslStudyPool *p)
{
    return p->ran;
}

int esl_study_pool_get_failed(const EslStudyPool *p)
{
    return p->failed;
}

const GError *esl_study_pool_get_error(const EslStudyPool *p)
{
    return p->error;
}

void esl_study_pool_free(EslStudyPool *p)
{
    if (!p)
        return;
    for (int i = 0; i < p->jobs; i++) {
        Slot *s = &p->slots[i];
        if (s->pid > 0) {
            g_source_destroy(s->watch);
            g_source_unref(s->watch);
            kill(s->pid, SIGTERM);
            while (waitpid(s->pid, NULL, 0) < 0 && errno == EINTR)
                ;
            g_spawn_close_pid(s->pid);
        }
    }
    if (p->idle) {
        g_source_destroy(p->idle);
        g_source_unref(p->idle);
    }
    g_free(p->slots);
    g_array_unref(p->todo);
    g_strfreev(p->argv);
    if (p->context)
        g_main_context_unref(p->context);
    g_clear_error(&p->error);
    g_free(p);
}

char *esl_study_find_cli(void)
{
    const char *env = g_getenv("ESLABON_CLI");
    if (env && *env)
        return g_strdup(env);
    g_autofree char *self = g_file_read_link("/proc/self/exe", NULL);
    g_autofree char *dir = self ? g_path_get_dirname(self) : NULL;
    char *candidates[] = {dir ? g_build_filename(dir, "eslabon-cli", NULL) : NULL,
                          dir ? g_build_filename(dir, "..", "app", "eslabon-cli", NULL) : NULL};
    char *found = NULL;
    for (guint i = 0; i < G_N_ELEMENTS(candidates); i++) {
        if (!found && candidates[i] && g_file_test(candidates[i], G_FILE_TEST_IS_EXECUTABLE))
            found = g_canonicalize_filename(candidates[i], NULL);
        g_free(candidates[i]);
    }
    return found ? found : g_find_program_in_path("eslabon-cli");
}

/* ---- the command line's pool: its own context, iterated until the pool ends --------------- */

typedef struct {
    EslStudyProgress progress;
    gpointer data;
    gboolean ended;
} SyncRun;

static void sync_progress(int done, int failed, int total, double left, gpointer data)
{
    SyncRun *r = data;
    if (r->progress)
        r->progress(done, failed, total, left, r->data);
}

static void sync_ended(gboolean cancelled, gpointer data)
{
    (void)cancelled;
    ((SyncRun *)data)->ended = TRUE;
}

gboolean esl_study_run_pool(const EslStudy *study, char **argv, int jobs,
                            EslStudyProgress progress, gpointer data, int *ran_out,
                            int *failed_out, GError **error)
{
    g_autoptr(GMainContext) context = g_main_context_new();
    SyncRun r = {progress, data, FALSE};
    EslStudyPoolCallbacks cb = {.progress = sync_progress, .ended = sync_ended, .data = &r};
    g_autoptr(EslStudyPool) pool = esl_study_pool_start(study, argv, jobs, context, &cb, error);
    if (!pool)
        return FALSE;
    while (!r.ended)
        g_main_context_iteration(context, TRUE);
    if (ran_out)
        *ran_out = pool->ran;
    if (failed_out)
        *failed_out = pool->failed;
    if (pool->error) {
        g_propagate_error(error, g_error_copy(pool->error));
        return FALSE;
    }
    return TRUE;
}
