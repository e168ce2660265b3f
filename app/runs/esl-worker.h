/* EslWorker: a computation on a thread of its own that reports to the main context that
 * started it, as the sensitivity and optimisation controllers need: what the thread pushes
 * comes in batches every 50 ms ("items"), and once the thread has returned and been joined,
 * "finished" follows the last batch. The owner (a GObject) is kept alive from the start until
 * "finished" has been called, or until esl_worker_join.
 *
 * GLib-level, no GTK. */
#ifndef ESL_WORKER_H
#define ESL_WORKER_H

#include <glib-object.h>

G_BEGIN_DECLS

typedef struct _EslWorker EslWorker;

/* On the main context: a batch of items (owned by the array, which frees them). */
typedef void (*EslWorkerItems)(GObject *owner, GPtrArray *items);
/* On the main context, once, after the thread's last items. */
typedef void (*EslWorkerFinished)(GObject *owner);

/* A worker whose items are freed with item_free when not delivered. */
EslWorker *esl_worker_new(GDestroyNotify item_free);
/* Joins the thread first (no "finished" then). */
void esl_worker_free(EslWorker *worker);

/* Run run(owner) on a thread called name; items and finished on the calling thread's default
 * main context. FALSE with error while it runs or when the thread cannot be made. */
gboolean esl_worker_start(EslWorker *worker, const char *name, GObject *owner,
                          void (*run)(GObject *owner), EslWorkerItems items,
                          EslWorkerFinished finished, GError **error);
/* From the thread: one item for the next batch (taken). */
void esl_worker_push(EslWorker *worker, gpointer item);
/* Started and not finished yet. */
gboolean esl_worker_is_running(EslWorker *worker);
/* Wait for the thread (the caller asks it to end first); items not delivered are dropped and
 * "finished" does not come. */
void esl_worker_join(EslWorker *worker);

G_END_DECLS

#endif
