/* EslWorker: a thread reporting to the main context; see esl-worker.h. */
#include "esl-worker.h"

#include <gio/gio.h>

struct _EslWorker {
    GDestroyNotify item_free;
    GThread *thread;
    GMainContext *context;
    GAsyncQueue *queue; /* items, then the finished marker */
    GSource *poll;
    GObject *owner;     /* referenced while running */
    void (*run)(GObject *owner);
    EslWorkerItems items;
    EslWorkerFinished finished;
    gboolean running;
};

/* The queue's last item: the thread has returned. */
static char finished_marker;

EslWorker *esl_worker_new(GDestroyNotify item_free)
{
    EslWorker *w = g_new0(EslWorker, 1);
    w->item_free = item_free;
    w->queue = g_async_queue_new();
    return w;
}

static void drop_items(EslWorker *w)
{
    gpointer item;
    while ((item = g_async_queue_try_pop(w->queue)))
        if (item != &finished_marker)
            w->item_free(item);
}

void esl_worker_free(EslWorker *w)
{
    if (!w)
        return;
    esl_worker_join(w);
    drop_items(w);
    g_async_queue_unref(w->queue);
    g_free(w);
}

static gpointer thread_main(gpointer data)
{
    EslWorker *w = data;
    w->run(w->owner);
    g_async_queue_push(w->queue, &finished_marker);
    return NULL;
}

/* Every 50 ms: the items so far, and "finished" after the thread's last. */
static gboolean poll_queue(gpointer data)
{
    EslWorker *w = data;
    g_autoptr(GPtrArray) items = g_ptr_array_new_with_free_func(w->item_free);
    gboolean finished = FALSE;
    gpointer item;
    while (!finished && (item = g_async_queue_try_pop(w->queue))) {
        if (item == &finished_marker)
            finished = TRUE;
        else
            g_ptr_array_add(items, item);
    }
    if (items->len > 0)
        w->items(w->owner, items);
    if (!finished)
        return G_SOURCE_CONTINUE;
    g_thread_join(w->thread);
    w->thread = NULL;
    w->running = FALSE;
    g_clear_pointer(&w->poll, g_source_unref);
    g_clear_pointer(&w->context, g_main_context_unref);
    GObject *owner = g_steal_pointer(&w->owner);
    w->finished(owner);
    g_object_unref(owner); /* the start's reference: the owner (and w) may go now */
    return G_SOURCE_REMOVE;
}

gboolean esl_worker_start(EslWorker *w, const char *name, GObject *owner,
                          void (*run)(GObject *owner), EslWorkerItems items,
                          EslWorkerFinished finished, GError **error)
{
    if (w->running) {
        g_set_error(error, G_IO_ERROR, G_IO_ERROR_BUSY, "this computation has already started");
        return FALSE;
    }
    w->owner = g_object_ref(owner);
    w->run = run;
    w->items = items;
    w->finished = finished;
    w->running = TRUE;
    w->thread = g_thread_try_new(name, thread_main, w, error);
    if (!w->thread) {
        w->running = FALSE;
        g_clear_object(&w->owner);
        return FALSE;
    }
    w->context = g_main_context_ref_thread_default();
    w->poll = g_timeout_source_new(50);
    g_source_set_callback(w->poll, poll_queue, w, NULL);
    g_source_attach(w->poll, w->context);
    return TRUE;
}

void esl_worker_push(EslWorker *w, gpointer item)
{
    g_async_queue_push(w->queue, item);
}

gboolean esl_worker_is_running(EslWorker *w)
{
    return w->running;
}

void esl_worker_join(EslWorker *w)
{
    if (!w->thread)
        return;
    g_thread_join(w->thread);
    w->thread = NULL;
    w->running = FALSE;
    if (w->poll) { /* "finished" will not come: the start's reference goes here */
        g_source_destroy(w->poll);
        g_clear_pointer(&w->poll, g_source_unref);
        g_clear_pointer(&w->context, g_main_context_unref);
        drop_items(w);
        GObject *owner = g_steal_pointer(&w->owner);
        g_object_unref(owner);
    }
}
