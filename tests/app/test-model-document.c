/* EslModelDocument (app/model/esl-model-document.c): the model open for editing. Opened from a
 * file, its text edited, undone and redone with their labels and the modified flag; edits
 * validated with the file's path (models/coach.json reads its tyre files by a path relative to
 * the model file: the test runs in a temporary folder where that path leads nowhere, so only the
 * file's own folder finds them); the check of an edit on a worker installs its model and counts
 * as the check run on the calling thread counts; a later edit makes an earlier check stale;
 * Save writes the text and forgets the modified flag; a bad file changes nothing. */
#include <glib/gstdio.h>
#include <string.h>

#include "esl-model-document.h"
#include "esl-model-edit.h"
#include "tap.h"

#define MODELS ESLABON_SOURCE_DIR "/models/"

typedef struct {
    int count;
    gboolean installed;
    char *json; /* the text checked last */
    int dof;
} Checked;

static void on_checked(EslModelDocument *doc, EslModelCheck *check, gboolean installed,
                       Checked *c)
{
    (void)doc;
    c->count++;
    c->installed = installed;
    g_free(c->json);
    c->json = g_strdup(check->json);
    c->dof = check->dof;
}

static void wait_check(EslModelDocument *doc)
{
    gint64 end = g_get_monotonic_time() + 60 * G_USEC_PER_SEC;
    while (esl_model_document_is_checking(doc) && g_get_monotonic_time() < end)
        g_main_context_iteration(NULL, TRUE);
    while (g_main_context_iteration(NULL, FALSE))
        ;
}

int main(void)
{
    g_autofree char *dir = g_dir_make_tmp("esl-doc-XXXXXX", NULL);
    g_autofree char *inner = g_build_filename(dir, "inner", NULL);
    g_mkdir(inner, 0700);
    g_chdir(inner);
    g_autoptr(EslModelDocument) doc = esl_model_document_new();
    Checked c = {0};
    g_signal_connect(doc, "checked", G_CALLBACK(on_checked), &c);
    MbsSettings settings;
    mbs_settings_defaults(&settings);
    mbs_settings_for(&settings, mbs_formulation_find("penalty"));

    g_autoptr(GError) error = NULL;
    gboolean loaded = esl_model_document_load(doc, MODELS "no-such-model.json", &error);
    tap_ok(!loaded && error &&
               !esl_model_document_get_json(doc) && !esl_model_document_get_model(doc),
           "a missing file is refused and nothing is open: %s", error ? error->message : "");
    g_clear_error(&error);
    if (!tap_ok(esl_model_document_load(doc, MODELS "coach.json", &error),
                "coach.json opens: %s", error ? error->message : "ok"))
        return tap_done();
    const char *path = esl_model_document_get_path(doc);
    tap_ok(g_str_equal(esl_model_document_get_origin(doc), path) &&
               g_str_has_suffix(path, "/models/coach.json"),
           "the loader's origin is the file's path (%s), not its base name", path);
    g_autofree char *opened = g_strdup(esl_model_document_get_json(doc));
    MbsModel *first = esl_model_document_get_model(doc);
    tap_ok(first && !esl_model_document_is_modified(doc) &&
               !esl_model_document_undo_label(doc),
           "opened: a model, unmodified, nothing to undo");

    /* the text as opened, counted on a worker as on this thread */
    esl_model_document_check(doc, "penalty", &settings, FALSE);
    wait_check(doc);
    g_autoptr(EslModelCheck) here = esl_model_check_run(opened, path, "penalty", &settings);
    int dof, redundant;
    esl_model_document_get_mobility(doc, &dof, &redundant);
    tap_ok(c.count == 1 && !c.installed && !esl_model_document_get_check_error(doc) &&
               here->error == NULL && dof == here->dof && redundant == here->redundant &&
               esl_model_document_get_model(doc) == first,
           "the check of the text as opened counts %d dof, %d redundant (%d, %d on this "
           "thread) and keeps the model", dof, redundant, here->dof, here->redundant);
    if (esl_model_document_get_check_error(doc) || here->error)
        printf("# %s / %s\n", esl_model_document_get_check_error(doc), here->error);

    /* an edit: validated with the file's path, committed, checked, installed */
    char *heavier = esl_model_edit_set_number(opened, "bodies/4/mass", 8100.25, &error);
    tap_ok(heavier && esl_model_document_validate(doc, heavier, &error),
           "an edit of the front body's mass validates (the tyre files found from the model's "
           "folder): %s", error ? error->message : "ok");
    g_clear_error(&error);
    g_autofree char *negative = esl_model_edit_set_number(opened, "bodies/4/mass", -1, NULL);
    gboolean valid = esl_model_document_validate(doc, negative, &error);
    tap_ok(!valid && error &&
               strstr(error->message, "mass") && strstr(error->message, "coach.json"),
           "a negative mass is refused naming the file: %s", error ? error->message : "");
    g_clear_error(&error);
    esl_model_document_commit(doc, heavier, "set mass");
    tap_ok(esl_model_document_is_modified(doc) &&
               g_strcmp0(esl_model_document_undo_label(doc), "set mass") == 0 &&
               strstr(esl_model_document_get_json(doc), "8100.25"),
           "committed: modified, Undo names it");
    g_autofree char *after_first = g_strdup(esl_model_document_get_json(doc));
    esl_model_document_check(doc, "penalty", &settings, TRUE);
    /* a second edit before the first check ends: the first check is stale */
    char *heavier2 = esl_model_edit_set_number(after_first, "bodies/5/mass", 8100.5, NULL);
    esl_model_document_commit(doc, heavier2, "set rear mass");
    esl_model_document_check(doc, "penalty", &settings, TRUE);
    tap_ok(esl_model_document_is_installing(doc), "the check of an edit is under way");
    wait_check(doc);
    MbsModel *installed = esl_model_document_get_model(doc);
    tap_ok(c.count == 2 && c.installed &&
               g_strcmp0(c.json, esl_model_document_get_json(doc)) == 0 && installed &&
               installed->bodies[5].mass == 8100.5 && installed->bodies[4].mass == 8100.25 &&
               !esl_model_document_get_check_error(doc),
           "one check reported (the later edit's), its model installed (masses %.2f, %.2f)",
           installed ? installed->bodies[4].mass : 0, installed ? installed->bodies[5].mass : 0);

    /* undo, redo */
    tap_ok(esl_model_document_undo(doc) &&
               g_str_equal(esl_model_document_get_json(doc), after_first) &&
               g_strcmp0(esl_model_document_redo_label(doc), "set rear mass") == 0,
           "Undo gives the text after the first edit back; Redo names the second");
    tap_ok(esl_model_document_undo(doc) && g_str_equal(esl_model_document_get_json(doc), opened) &&
               !esl_model_document_undo(doc),
           "a second Undo gives the text as opened; no third");
    tap_ok(esl_model_document_redo(doc) &&
               g_str_equal(esl_model_document_get_json(doc), after_first),
           "Redo");

    /* save */
    g_autofree char *saved = g_build_filename(dir, "my-coach.json", NULL);
    g_autofree char *text = NULL;
    tap_ok(esl_model_document_save(doc, saved, &error) &&
               !esl_model_document_is_modified(doc) &&
               g_str_equal(esl_model_document_get_path(doc), saved) &&
               g_file_get_contents(saved, &text, NULL, NULL) &&
               g_str_equal(text, esl_model_document_get_json(doc)),
           "Save writes the text, the file becomes the document's, unmodified");
    g_unlink(saved);
    g_free(c.json);
    g_chdir("/");
    g_rmdir(inner);
    g_rmdir(dir);
    return tap_done();
}
