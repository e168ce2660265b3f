/* The command line of the application (ui/esl-application.c): `eslabon --project FILE
 * --formulation matrix-r five-bar` opens the bundled model named (a bare name that is no file
 * here, as --model and eslabon-cli take it; before: "file not found") and the project (made, as
 * it is missing) and chooses the formulation; a run then is stored in that project, with that
 * formulation. Before, a model file on the command line made GApplication call "open", which
 * ignored --project and --formulation.
 * usage: test_window_command_line MODELS_DIR. Needs a display (xvfb-run). */
#include <glib/gstdio.h>
#include <gtk/gtk.h>
#include <string.h>

#include "esl-application.h"
#include "esl-project.h"
#include "esl-window.h"
#include "esl-window-testing.h"
#include "tap.h"
#include "ui-test.h"

#define TIMEOUT_S 60

static char *project_path;
static gboolean checked;

static void on_run_finished(EslWindow *window, int status, gint64 run_id, gpointer data)
{
    (void)data;
    g_autoptr(GError) error = NULL;
    EslProject *project = esl_project_open(project_path, FALSE, &error);
    g_autoptr(GPtrArray) runs = project ? esl_project_list_runs(project, &error) : NULL;
    EslRunInfo *run = runs && runs->len == 1 ? runs->pdata[0] : NULL;
    tap_ok(status == ESL_RUN_FINISHED && run && run->id == run_id &&
               !g_strcmp0(run->model_name, "five-bar") && !g_strcmp0(run->formulation, "matrix-r"),
           "the run finishes and is the project's one run: five-bar, matrix-r (%u runs%s%s)",
           runs ? runs->len : 0, error ? ": " : "", error ? error->message : "");
    if (project)
        esl_project_close(project);
    checked = TRUE;
    gtk_window_destroy(GTK_WINDOW(window));
}

static void started(GtkApplication *app, gpointer data)
{
    (void)data;
    EslWindow *window = ESL_WINDOW(gtk_application_get_active_window(app));
    const char *json = window ? esl_window_get_model_json(window) : NULL;
    tap_ok(json && strstr(json, "\"five-bar\""), "the model named on the command line is open");
    tap_ok(window && !g_strcmp0(esl_window_get_project_path(window), project_path) &&
               g_file_test(project_path, G_FILE_TEST_IS_REGULAR),
           "and so is the --project file, made as it was missing (%s)",
           window ? esl_window_get_project_path(window) : "no window");
    if (!window || !json) {
        if (window)
            gtk_window_destroy(GTK_WINDOW(window));
        return;
    }
    wait_checked(window);
    start_run(window, 0.1, G_CALLBACK(on_run_finished), NULL, TIMEOUT_S);
}

int main(int argc, char **argv)
{
    if (argc != 2)
        return 2;
    g_autofree char *dir = g_dir_make_tmp("esl-command-line-XXXXXX", NULL);
    g_setenv("XDG_DATA_HOME", dir, TRUE); /* the model opened goes to the recent files */
    project_path = g_build_filename(dir, "given.eslabon", NULL);
    g_setenv("ESLABON_MODELS_DIR", argv[1], TRUE);
    char *app_argv[] = {"eslabon", "--project", project_path, "--formulation", "matrix-r",
                        "five-bar", NULL};
    run_application_with(app_argv, G_CALLBACK(started), NULL);
    tap_ok(checked, "every check ran");
    remove_temporary_dir(dir); /* the project, and the recent files the model went to */
    g_free(project_path);
    return tap_done();
}
