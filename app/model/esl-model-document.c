/* The model open for editing: see esl-model-document.h. */
#include "esl-model-document.h"

#include <glib/gi18n.h>
#include <string.h>

#include "esl-model-file.h"
#include "esl-models-dir.h"

struct _EslModelDocument {
    GObject parent_instance;

    MbsModel *model; /* the last model that loaded and assembled */
    char *json;      /* the model file's text, as edited */
    char *path;      /* its file, or NULL */
    gboolean modified;
    EslModelHistory *edits; /* json and its undo/redo */

    GCancellable *check_cancellable; /* the check under way */
    gboolean checking, installs;
    char *check_error;
    MbsModel *draft; /* drawn while the text does not load */
    int dof, redundant;
};

G_DEFINE_FINAL_TYPE(EslModelDocument, esl_model_document, G_TYPE_OBJECT)

enum { SIGNAL_CHECKED, N_SIGNALS };
static guint signals[N_SIGNALS];

static void forget_check(EslModelDocument *doc)
{
    esl_model_document_cancel_check(doc);
    g_clear_pointer(&doc->check_error, g_free);
    g_clear_pointer(&doc->draft, mbs_model_free);
    doc->dof = doc->redundant = -1;
}

static void esl_model_document_finalize(GObject *object)
{
    EslModelDocument *doc = ESL_MODEL_DOCUMENT(object);
    forget_check(doc);
    g_clear_pointer(&doc->edits, esl_model_history_free);
    mbs_model_free(doc->model);
    g_free(doc->json);
    g_free(doc->path);
    G_OBJECT_CLASS(esl_model_document_parent_class)->finalize(object);
}

static void esl_model_document_class_init(EslModelDocumentClass *klass)
{
    G_OBJECT_CLASS(klass)->finalize = esl_model_document_finalize;
    signals[SIGNAL_CHECKED] = g_signal_new("checked", G_TYPE_FROM_CLASS(klass), G_SIGNAL_RUN_LAST,
                                           0, NULL, NULL, NULL, G_TYPE_NONE, 2, G_TYPE_POINTER,
                                           G_TYPE_BOOLEAN);
}

static void esl_model_document_init(EslModelDocument *doc)
{
    doc->dof = doc->redundant = -1;
}

EslModelDocument *esl_model_document_new(void)
{
    return g_object_new(ESL_TYPE_MODEL_DOCUMENT, NULL);
}

/* ---- the document ------------------------------------------------------------------------- */

/* A path as given, or a bundled model's name ("four-bar" or "four-bar.json"). */
static char *resolve_model(const char *arg)
{
    if (g_file_test(arg, G_FILE_TEST_EXISTS) || strchr(arg, G_DIR_SEPARATOR))
        return g_strdup(arg);
    g_autofree char *file =
        g_str_has_suffix(arg, ".json") ? g_strdup(arg) : g_strconcat(arg, ".json", NULL);
    return g_build_filename(esl_models_dir(), file, NULL);
}

gboolean esl_model_document_read_file(const char *path_or_name, MbsModel **model, char **json,
                                      char **path, GError **error)
{
    g_autofree char *resolved = resolve_model(path_or_name);
    MbsModel *m = esl_model_load_file(resolved, NULL, 0, error);
    char *text = NULL;
    if (!m || !g_file_get_contents(resolved, &text, NULL, error)) {
        mbs_model_free(m);
        return FALSE;
    }
    *model = m;
    *json = text;
    *path = g_steal_pointer(&resolved);
    return TRUE;
}

gboolean esl_model_document_load(EslModelDocument *doc, const char *path_or_name,
                                 GError **error)
{
    MbsModel *model;
    char *json, *path;
    if (!esl_model_document_read_file(path_or_name, &model, &json, &path, error))
        return FALSE;
    esl_model_document_open(doc, model, json, path);
    return TRUE;
}

void esl_model_document_open(EslModelDocument *doc, MbsModel *model, char *json, char *path)
{
    forget_check(doc);
    mbs_model_free(doc->model);
    doc->model = model;
    g_free(doc->json);
    doc->json = json;
    g_free(doc->path);
    doc->path = path;
    doc->modified = FALSE;
    g_clear_pointer(&doc->edits, esl_model_history_free);
    doc->edits = json ? esl_model_history_new(json) : NULL;
}

MbsModel *esl_model_document_get_model(EslModelDocument *doc)
{
    return doc->model;
}

const MbsModel *esl_model_document_get_draft(EslModelDocument *doc)
{
    return doc->draft;
}

const MbsModel *esl_model_document_get_shown(EslModelDocument *doc)
{
    return doc->draft ? doc->draft : doc->model;
}

const char *esl_model_document_get_json(EslModelDocument *doc)
{
    return doc->json;
}

const char *esl_model_document_get_path(EslModelDocument *doc)
{
    return doc->path;
}

const char *esl_model_document_get_origin(EslModelDocument *doc)
{
    return doc->path ? doc->path : "model.json";
}

gboolean esl_model_document_is_modified(EslModelDocument *doc)
{
    return doc->json && doc->modified;
}

gboolean esl_model_document_save(EslModelDocument *doc, const char *path, GError **error)
{
    if (!doc->json) {
        g_set_error_literal(error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND, _("no model is open"));
        return FALSE;
    }
    if (!g_file_set_contents(path, doc->json, -1, error))
        return FALSE;
    char *kept = g_strdup(path); /* path may be doc->path itself (Save Model) */
    g_free(doc->path);
    doc->path = kept;
    doc->modified = FALSE;
    return TRUE;
}

/* ---- edits -------------------------------------------------------------------------------- */

static gboolean refused(const char *json, const char *origin, gboolean had_check_error,
                        GError **error)
{
    g_autoptr(GError) load_error = NULL;
    MbsModel *loaded = esl_model_load_string(json, origin, NULL, 0, &load_error);
    gboolean loads = loaded != NULL;
    mbs_model_free(loaded);
    if (loads || had_check_error ||
        g_error_matches(load_error, ESL_MODEL_FILE_ERROR, ESL_MODEL_FILE_ERROR_TOPOLOGY))
        return FALSE;
    g_propagate_error(error, g_steal_pointer(&load_error));
    return TRUE;
}

gboolean esl_model_document_validate(EslModelDocument *doc, const char *json, GError **error)
{
    return !refused(json, esl_model_document_get_origin(doc), doc->check_error != NULL, error);
}

typedef struct {
    char *json, *origin;
    gboolean had_check_error;
} Validation;

static void validation_free(Validation *v)
{
    g_free(v->json);
    g_free(v->origin);
    g_free(v);
}

static void validate_thread(GTask *task, gpointer source, gpointer data, GCancellable *cancel)
{
    (void)source, (void)cancel;
    Validation *v = data;
    GError *error = NULL;
    if (refused(v->json, v->origin, v->had_check_error, &error))
        g_task_return_error(task, error);
    else
        g_task_return_boolean(task, TRUE);
}

void esl_model_document_validate_async(EslModelDocument *doc, const char *json,
                                       GAsyncReadyCallback callback, gpointer data)
{
    Validation *v = g_new0(Validation, 1);
    v->json = g_strdup(json);
    v->origin = g_strdup(esl_model_document_get_origin(doc));
    v->had_check_error = doc->check_error != NULL;
    GTask *task = g_task_new(doc, NULL, callback, data);
    g_task_set_task_data(task, v, (GDestroyNotify)validation_free);
    g_task_run_in_thread(task, validate_thread);
    g_object_unref(task);
}

gboolean esl_model_document_validate_finish(GAsyncResult *result, GError **error)
{
    return g_task_propagate_boolean(G_TASK(result), error);
}

/* The history's present text becomes the document's. */
static void take_present(EslModelDocument *doc)
{
    g_free(doc->json);
    doc->json = g_strdup(esl_model_history_get_json(doc->edits));
    doc->modified = TRUE;
}

void esl_model_document_commit(EslModelDocument *doc, char *json, const char *label)
{
    if (!doc->edits)
        doc->edits = esl_model_history_new(doc->json ? doc->json : "");
    esl_model_history_push(doc->edits, json, label);
    take_present(doc);
}

gboolean esl_model_document_undo(EslModelDocument *doc)
{
    if (!doc->edits || !esl_model_history_undo(doc->edits))
        return FALSE;
    take_present(doc);
    return TRUE;
}

gboolean esl_model_document_redo(EslModelDocument *doc)
{
    if (!doc->edits || !esl_model_history_redo(doc->edits))
        return FALSE;
    take_present(doc);
    return TRUE;
}

const char *esl_model_document_undo_label(EslModelDocument *doc)
{
    return doc->edits ? esl_model_history_undo_label(doc->edits) : NULL;
}

const char *esl_model_document_redo_label(EslModelDocument *doc)
{
    return doc->edits ? esl_model_history_redo_label(doc->edits) : NULL;
}

/* ---- the check ---------------------------------------------------------------------------- */

static void on_checked(GObject *source, GAsyncResult *result, gpointer data)
{
    (void)source;
    EslModelDocument *doc = data;
    g_autoptr(EslModelCheck) check = esl_model_check_finish(result, NULL);
    /* A later edit started another check (or this one was cancelled): this one is stale. */
    if (!check || !doc->json || g_strcmp0(check->json, doc->json) != 0 || !doc->checking) {
        g_object_unref(doc);
        return;
    }
    doc->checking = FALSE;
    g_clear_object(&doc->check_cancellable);
    g_free(doc->check_error);
    doc->check_error = g_strdup(check->error);
    doc->dof = check->dof;
    doc->redundant = check->redundant;
    /* The old model and draft live until the handlers have shown the new ones. */
    MbsModel *old_model = NULL, *old_draft = NULL;
    gboolean installs = doc->installs;
    if (installs) {
        old_draft = g_steal_pointer(&doc->draft);
        if (check->model) {
            old_model = doc->model;
            doc->model = check->model;
        } else {
            doc->draft = check->draft;
        }
    }
    g_signal_emit(doc, signals[SIGNAL_CHECKED], 0, check, installs);
    if (installs) { /* the handlers saw check->model / draft; the document owns them now */
        if (check->model)
            check->model = NULL;
        else
            check->draft = NULL;
    }
    mbs_model_free(old_model);
    mbs_model_free(old_draft);
    g_object_unref(doc);
}

void esl_model_document_check(EslModelDocument *doc, const char *formulation,
                              const MbsSettings *settings, gboolean installs)
{
    esl_model_document_cancel_check(doc);
    if (!doc->json)
        return;
    doc->check_cancellable = g_cancellable_new();
    doc->checking = TRUE;
    doc->installs = installs;
    esl_model_check_async(doc->json, esl_model_document_get_origin(doc), formulation, settings,
                          doc->check_cancellable, on_checked, g_object_ref(doc));
}

void esl_model_document_cancel_check(EslModelDocument *doc)
{
    if (doc->check_cancellable)
        g_cancellable_cancel(doc->check_cancellable);
    g_clear_object(&doc->check_cancellable);
    doc->checking = FALSE;
}

gboolean esl_model_document_is_checking(EslModelDocument *doc)
{
    return doc->checking;
}

gboolean esl_model_document_is_installing(EslModelDocument *doc)
{
    return doc->checking && doc->installs;
}

const char *esl_model_document_get_check_error(EslModelDocument *doc)
{
    return doc->check_error;
}

void esl_model_document_get_mobility(EslModelDocument *doc, int *dof, int *redundant)
{
    *dof = doc->dof;
    *redundant = doc->redundant;
}
