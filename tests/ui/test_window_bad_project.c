/* The window with corrupt and foreign project files (issue 13): it goes through the same project
 * API as the CLI, so a file holding a trigger is refused with the message, left byte-identical
 * with nothing beside it; a project whose runs have impossible stored sizes, deeply nested JSON
 * or no samples (killed before the first batch) opens, lists them, and selecting each shows its
 * state without crashing. Needs a display (xvfb-run). */
#include <glib/gstdio.h>
#include <gtk/gtk.h>
#include <sqlite3.h>
#include <string.h>

#include "esl-application.h"
#include "esl-project.h"
#include "esl-window.h"
#include "esl-window-testing.h"
#include "tap.h"
#include "ui-test.h"

static char *dir;

static gboolean tamper(const char *path, const char *sql)
{
    sqlite3 *db = NULL;
    gboolean ok = sqlite3_open(path, &db) == SQLITE_OK &&
                  sqlite3_exec(db, sql, NULL, NULL, NULL) == SQLITE_OK;
    sqlite3_close(db);
    return ok;
}

/* A project with 'nruns' finished runs of 3 samples each (poses of 2 bodies). */
static char *make_project(const char *name, int nruns)
{
    char *path = g_build_filename(dir, name, NULL);
    EslProject *p = esl_project_open(path, TRUE, NULL);
    for (int r = 0; p && r < nruns; r++) {
        EslRunRequest req = {.model_name = "pendulum", .formulation = "penalty", .nbodies = 2};
        mbs_settings_defaults(&req.settings);
        gint64 id = esl_project_begin_run(p, &req, NULL);
        MbsMonitors m[3] = {{.time = 0}, {.time = 0.1}, {.time = 0.2}};
        double poses[3 * 2 * 12] = {0};
        esl_project_append_samples(p, id, m, poses, NULL, 3, NULL);
        esl_project_finish_run(p, id, ESL_RUN_FINISHED, NULL, NULL, 0.1, NULL);
    }
    esl_project_close(p);
    return path;
}

static char *hash(const char *path)
{
    g_autofree char *data = NULL;
    gsize len = 0;
    g_file_get_contents(path, &data, &len, NULL);
    return g_compute_checksum_for_data(G_CHECKSUM_SHA256, (const guchar *)(data ? data : ""), len);
}

static GtkWidget *find_type(GtkWidget *widget, GType type)
{
    if (G_TYPE_CHECK_INSTANCE_TYPE(widget, type))
        return widget;
    for (GtkWidget *c = gtk_widget_get_first_child(widget); c; c = gtk_widget_get_next_sibling(c)) {
        GtkWidget *found = find_type(c, type);
        if (found)
            return found;
    }
    return NULL;
}

/* Some label of the window outside 'skip' (the run list) shows text containing 'words'. */
static gboolean shows(GtkWidget *widget, GtkWidget *skip, const char *words)
{
    if (widget == skip)
        return FALSE;
    if (GTK_IS_LABEL(widget) && strstr(gtk_label_get_text(GTK_LABEL(widget)), words))
        return TRUE;
    for (GtkWidget *c = gtk_widget_get_first_child(widget); c; c = gtk_widget_get_next_sibling(c))
        if (shows(c, skip, words))
            return TRUE;
    return FALSE;
}

static void check(GtkApplication *app, gpointer data)
{
    (void)data;
    EslWindow *window = ESL_WINDOW(gtk_application_get_active_window(app));

    /* A stored trigger: refused, untouched. */
    g_autofree char *trap = make_project("trap.eslabon", 1);
    tamper(trap, "CREATE TRIGGER wipe AFTER UPDATE ON runs BEGIN DELETE FROM samples; END;");
    g_autofree char *before = hash(trap);
    g_autoptr(GError) error = NULL;
    gboolean opened = esl_window_open_project(window, trap, FALSE, &error);
    g_autofree char *after = hash(trap);
    g_autofree char *wal = g_strconcat(trap, "-wal", NULL);
    g_autofree char *shm = g_strconcat(trap, "-shm", NULL);
    tap_ok(!opened && error && strstr(error->message, "did not create") &&
               strcmp(before, after) == 0 && !g_file_test(wal, G_FILE_TEST_EXISTS) &&
               !g_file_test(shm, G_FILE_TEST_EXISTS),
           "a project holding a trigger is refused, untouched: %s",
           error ? error->message : "opened");
    g_clear_error(&error);

    /* Runs with impossible sizes, deep JSON, and one killed before its first batch. */
    g_autofree char *odd = make_project("odd.eslabon", 3);
    GString *deep = g_string_new("{\"k\": ");
    for (int i = 0; i < 100000; i++)
        g_string_append_c(deep, '[');
    g_autofree char *sql = g_strdup_printf(
        "UPDATE runs SET nbodies = -7 WHERE id = 1;"
        "UPDATE runs SET options = '%s' WHERE id = 2;"
        "DELETE FROM samples WHERE run_id = 3;"
        "UPDATE runs SET status = 'running', finished_at = NULL, pid = 2147483646 WHERE id = 3;",
        deep->str);
    g_string_free(deep, TRUE);
    gboolean tampered = tamper(odd, sql);
    opened = esl_window_open_project(window, odd, FALSE, &error);
    GtkWidget *browser = find_type(GTK_WIDGET(window), g_type_from_name("EslRunBrowser"));
    GtkWidget *list = browser ? find_type(browser, GTK_TYPE_LIST_BOX) : NULL;
    int rows = 0;
    for (GtkWidget *c = list ? gtk_widget_get_first_child(list) : NULL; c;
         c = gtk_widget_get_next_sibling(c))
        rows += GTK_IS_LIST_BOX_ROW(c);
    tap_ok(tampered && opened && rows == 3, "the project with odd runs opens and lists %d runs%s%s",
           rows, error ? ": " : "", error ? error->message : "");
    static const struct {
        int row; /* newest first */
        const char *words;
    } expected[] = {
        {2, "corrupt"},     /* run 1: -7 bodies */
        {1, "finished"},    /* run 2: options unreadable, shown with the defaults */
        {0, "interrupted"}, /* run 3: no samples */
    };
    for (size_t i = 0; list && i < G_N_ELEMENTS(expected); i++) {
        gtk_list_box_unselect_all(GTK_LIST_BOX(list));
        gtk_list_box_select_row(GTK_LIST_BOX(list),
                                gtk_list_box_get_row_at_index(GTK_LIST_BOX(list),
                                                              expected[i].row));
        tap_ok(shows(GTK_WIDGET(window), browser, expected[i].words),
               "selecting run %d shows it is %s, no crash", 3 - expected[i].row,
               expected[i].words);
    }
    g_application_quit(G_APPLICATION(app));
}

int main(void)
{
    dir = g_dir_make_tmp("eslabon-bad-project-XXXXXX", NULL);
    g_autoptr(EslApplication) app = esl_application_new();
    g_application_set_flags(G_APPLICATION(app),
                            g_application_get_flags(G_APPLICATION(app)) |
                                G_APPLICATION_NON_UNIQUE);
    g_signal_connect_after(app, "activate", G_CALLBACK(check), NULL);
    char *argv[] = {"test_window_bad_project", NULL};
    g_application_run(G_APPLICATION(app), 1, argv);
    remove_temporary_dir(dir);
    g_free(dir);
    return tap_done();
}
