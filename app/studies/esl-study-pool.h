/* EslStudyPool: a study's cases on a local pool of processes driven by a GLib main context
 * (issue 25): one `eslabon-cli study run study.json --case K` process per case not done yet,
 * at most jobs at a time, each writing its output to study.shards/case-KKKK.log. The command
 * line's `study run` iterates a context of its own until the pool ends
 * (esl_study_run_pool); the application runs it on its main loop, with a progress bar and
 * Cancel, merging each case's shard into its project as the case ends.
 *
 * GLib-level, no GTK.
 */
#ifndef ESL_STUDY_POOL_H
#define ESL_STUDY_POOL_H

#include <glib.h>

#include "esl-study.h"

G_BEGIN_DECLS

typedef struct _EslStudyPool EslStudyPool;

/* Case k's process ended (not called for a case Cancel killed). */
typedef void (*EslStudyCaseEnded)(int k, EslCaseState state, gpointer data);
/* Every process ended: the pool is over (cancelled: by esl_study_pool_cancel). */
typedef void (*EslStudyPoolEnded)(gboolean cancelled, gpointer data);

typedef struct {
    EslStudyProgress progress;  /* after each case ends, and once at the start (may be NULL) */
    EslStudyCaseEnded case_ended;
    EslStudyPoolEnded ended;
    gpointer data;
} EslStudyPoolCallbacks;

/* Start the pool on context (NULL: the default one). argv: the command that runs one case,
 * its last element replaced by the case number. study must outlive the pool. The callbacks
 * are called from context (ended too when no case is left to run). NULL with error when the
 * shards' folder cannot be made or the first process cannot be started. */
EslStudyPool *esl_study_pool_start(const EslStudy *study, char *const *argv, int jobs,
                                   GMainContext *context, const EslStudyPoolCallbacks *callbacks,
                                   GError **error);
/* Stop: no case starts any more, the running ones are killed (their shards are partial: a
 * later run of the study runs them again); ended(TRUE) follows when they have exited. */
void esl_study_pool_cancel(EslStudyPool *pool);
gboolean esl_study_pool_is_running(const EslStudyPool *pool);
/* The cases that ran (their process ended) and those of them that failed or were killed. */
int esl_study_pool_get_ran(const EslStudyPool *pool);
int esl_study_pool_get_failed(const EslStudyPool *pool);
/* A process that could not be started after the first (NULL: none). */
const GError *esl_study_pool_get_error(const EslStudyPool *pool);
/* Frees the pool; a running one is cancelled first and its processes waited for (no
 * callback is called). */
void esl_study_pool_free(EslStudyPool *pool);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(EslStudyPool, esl_study_pool_free)

/* The eslabon-cli that runs a case for the application: $ESLABON_CLI, else the one beside this
 * program (installed) or in the build tree's app/ (../app/eslabon-cli), else the PATH's. NULL
 * when there is none. */
char *esl_study_find_cli(void);

G_END_DECLS

#endif
