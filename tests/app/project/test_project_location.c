/* esl_project_open against paths that are not project files (issue 13 "Bad input"): a FIFO
 * (SQLite would block reading it), a folder, a read-only file or folder. Each is refused with
 * a message naming the problem, before SQLite opens it: nothing is created beside it. */
#include <errno.h>
#include <glib/gstdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "esl-project.h"
#include "tap.h"

/* The names in dir, sorted and joined with spaces. */
static char *listing(const char *dir)
{
    g_autoptr(GDir) d = g_dir_open(dir, 0, NULL);
    g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func(g_free);
    const char *name;
    while (d && (name = g_dir_read_name(d)))
        g_ptr_array_add(names, g_strdup(name));
    g_ptr_array_sort(names, (GCompareFunc)(void *)g_strcmp0);
    g_ptr_array_add(names, NULL);
    return g_strjoinv(" ", (char **)names->pdata);
}

static void refused(const char *path, const char *needle, const char *what)
{
    g_autoptr(GError) error = NULL;
    EslProject *p = esl_project_open(path, TRUE, &error);
    tap_ok(!p && error && strstr(error->message, needle), "%s is refused: %s", what,
           error ? error->message : "(opened)");
    if (p)
        esl_project_close(p);
}

int main(void)
{
    g_autofree char *dir = g_dir_make_tmp("esl-location-XXXXXX", NULL);
    g_autofree char *fifo = g_build_filename(dir, "fifo.eslabon", NULL);
    tap_ok(mkfifo(fifo, 0600) == 0, "a FIFO to open");
    alarm(60); /* a blocking open would otherwise hang the suite */
    refused(fifo, "not a regular file", "a FIFO");
    refused(dir, "not a regular file", "a folder");
    g_autofree char *files = listing(dir);
    tap_ok(g_str_equal(files, "fifo.eslabon"), "nothing created beside them (%s)", files);

    g_autofree char *ro = g_build_filename(dir, "ro", NULL);
    g_autofree char *project = g_build_filename(ro, "p.eslabon", NULL);
    g_mkdir(ro, 0755);
    g_autoptr(GError) error = NULL;
    EslProject *p = esl_project_open(project, TRUE, &error);
    tap_ok(p != NULL, "a project to protect%s%s", error ? ": " : "", error ? error->message : "");
    esl_project_close(p);
    g_autofree char *before = NULL, *after = NULL;
    gsize nbefore = 0, nafter = 0;
    g_file_get_contents(project, &before, &nbefore, NULL);
    if (geteuid() == 0) {
        /* tests/cli/test_bad_input.py runs this case as another user */
        tap_ok(1, "read-only file and folder # SKIP running as root: permissions do not stop root");
    } else {
        g_chmod(project, 0444);
        refused(project, "cannot be written", "a read-only project file");
        g_chmod(project, 0644);
        g_chmod(ro, 0555);
        refused(project, "read-only", "a project in a read-only folder");
        g_chmod(ro, 0755);
    }
    g_file_get_contents(project, &after, &nafter, NULL);
    g_autofree char *left = listing(ro);
    tap_ok(nbefore == nafter && memcmp(before, after, nbefore) == 0 &&
               g_str_equal(left, "p.eslabon"),
           "the refused project is byte-identical, nothing beside it (%s)", left);
    return tap_done();
}
