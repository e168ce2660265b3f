/* The GtkApplication; see esl-application.h. */
#include "esl-application.h"
#include "esl-models-dir.h"
#include "esl-gsk-choice.h"

#include <glib/gi18n.h>
#include <stdio.h>

#include "eslabon-config.h"
#include "esl-recent.h"
#include "esl-window.h"

struct _EslApplication {
    GtkApplication parent_instance;
    /* command line */
    char *model, *project, *formulation;
};

G_DEFINE_FINAL_TYPE(EslApplication, esl_application, GTK_TYPE_APPLICATION)

static EslWindow *current_window(EslApplication *self)
{
    GtkWindow *w = gtk_application_get_active_window(GTK_APPLICATION(self));
    if (!w) {
        w = GTK_WINDOW(esl_window_new(GTK_APPLICATION(self)));
    }
    return ESL_WINDOW(w);
}

/* ---- application ------------------------------------------------------------------------- */

/* --project FILE: opened (made when missing) before any model the command line names, so that
 * the runs of that model are stored in it. */
static void open_project_option(EslApplication *self, EslWindow *window)
{
    g_autoptr(GError) error = NULL;
    if (self->project && !esl_window_open_project(window, self->project, TRUE, &error))
        g_printerr("eslabon: %s\n", error->message);
}

/* --formulation NAME: chosen once the model is in (the run settings are set up for the model
 * loaded). */
static void select_formulation_option(EslApplication *self, EslWindow *window)
{
    if (self->formulation && !esl_window_set_formulation(window, self->formulation))
        g_printerr("eslabon: no formulation named %s\n", self->formulation);
}

static void esl_application_activate(GApplication *app)
{
    EslApplication *self = ESL_APPLICATION(app);
    EslWindow *window = current_window(self);
    gtk_window_present(GTK_WINDOW(window));
    open_project_option(self, window);
    g_autoptr(GError) error = NULL;
    if (self->model && !esl_window_load_model(window, self->model, &error))
        g_printerr("eslabon: %s\n", error->message);
    select_formulation_option(self, window);
}

/* A file argument's path; a bare name that is no file here ("five-bar") names a bundled model,
 * as --model and eslabon-cli take it. */
static char *bundled_or_path(GFile *file)
{
    char *path = g_file_get_path(file);
    if (!path || g_file_test(path, G_FILE_TEST_EXISTS))
        return path;
    g_autofree char *base = g_file_get_basename(file);
    g_autofree char *cwd = g_get_current_dir();
    g_autofree char *bare = g_build_filename(cwd, base, NULL);
    if (g_strcmp0(bare, path) != 0)
        return path; /* a path with folders: keep it, and its error */
    char *bundled = esl_resolve_model_path(base);
    if (g_file_test(bundled, G_FILE_TEST_IS_REGULAR)) {
        g_free(path);
        return bundled;
    }
    g_free(bundled);
    return path;
}

/* Files on the command line (eslabon [options] FILE…): GApplication calls this instead of
 * activate, so the options are applied here too. */
static void esl_application_open(GApplication *app, GFile **files, int n_files,
                                 const char *hint)
{
    (void)hint;
    EslApplication *self = ESL_APPLICATION(app);
    EslWindow *window = current_window(self);
    gtk_window_present(GTK_WINDOW(window));
    open_project_option(self, window);
    for (int i = 0; i < n_files; i++) {
        g_autofree char *path = bundled_or_path(files[i]);
        g_autoptr(GError) error = NULL;
        gboolean ok = path && g_str_has_suffix(path, ".eslabon")
                          ? esl_window_open_project(window, path, FALSE, &error)
                          : esl_window_load_model(window, path, &error);
        if (!ok) {
            g_printerr("eslabon: %s\n", error ? error->message : "cannot open the file");
            esl_recent_forget(path);
        } else {
            esl_recent_add(path);
        }
    }
    select_formulation_option(self, window);
}

static void action_quit(GSimpleAction *a, GVariant *p, gpointer data)
{
    (void)a;
    (void)p;
    /* Closed as the user closes them: a window with a run going on asks first. */
    GList *windows = g_list_copy(gtk_application_get_windows(GTK_APPLICATION(data)));
    for (GList *l = windows; l; l = l->next)
        gtk_window_close(GTK_WINDOW(l->data));
    g_list_free(windows);
}

static void action_about(GSimpleAction *a, GVariant *p, gpointer data)
{
    (void)a;
    (void)p;
    GtkWindow *parent = gtk_application_get_active_window(GTK_APPLICATION(data));
    const char *authors[] = {"The Eslabón developers", NULL};
    gtk_show_about_dialog(parent, "program-name", "Eslabón", "version", ESLABON_VERSION,
                          "comments",
                          _("A workbench for multibody dynamics: run mechanisms with several "
                            "formulations and compare their energy, constraints and cost."),
                          "license-type", GTK_LICENSE_BSD_3, "logo-icon-name",
                          "org.eslabon.Eslabon", "authors", authors, "system-information",
                          esl_gsk_choose_renderer(gdk_display_get_default()), NULL);
}

static const GActionEntry app_actions[] = {
    {"quit", action_quit, NULL, NULL, NULL, {0}},
    {"about", action_about, NULL, NULL, NULL, {0}},
};

static void esl_application_startup(GApplication *app)
{
    G_APPLICATION_CLASS(esl_application_parent_class)->startup(app);
    esl_gsk_choose_renderer(gdk_display_get_default());
    g_action_map_add_action_entries(G_ACTION_MAP(app), app_actions, G_N_ELEMENTS(app_actions),
                                    app);
    static const struct {
        const char *action;
        const char *accels[3];
    } accels[] = {
        {"app.quit", {"<Primary>q", NULL}},
        {"win.open-model", {"<Primary>o", NULL}},
        {"win.new-model", {"<Primary><Shift>n", NULL}},
        {"win.undo", {"<Primary>z", NULL}},
        {"win.redo", {"<Primary><Shift>z", "<Primary>y", NULL}},
        {"win.new-project", {"<Primary>n", NULL}},
        {"win.open-project", {"<Primary><Shift>o", NULL}},
        /* GNOME's Save and Save As are the model's (the document); the project saves itself
         * as runs happen, so Save Project As has Ctrl+Alt+S */
        {"win.save-model-file", {"<Primary>s", NULL}},
        {"win.save-model", {"<Primary><Shift>s", NULL}},
        {"win.save-project", {"<Primary><Alt>s", NULL}},
        {"win.show-gallery", {"<Primary>g", NULL}},
        {"win.run", {"F5", "<Primary>r", NULL}},
        {"win.pause", {"F6", NULL}},
        {"win.stop", {"<Shift>F5", NULL}},
        {"win.step-through", {"<Primary>t", NULL}},
        {"win.playback", {"<Primary>p", NULL}},
        {"win.step-forward", {"<Alt>Right", NULL}},
        {"win.step-backward", {"<Alt>Left", NULL}},
        {"win.fit-view", {"<Primary>f", NULL}},
        {"win.fit-motion", {"<Primary><Shift>f", NULL}},
        {"win.presentation", {"F11", NULL}},
        {"win.view::iso", {"<Primary>1", NULL}},
        {"win.view::front", {"<Primary>2", NULL}},
        {"win.view::side", {"<Primary>3", NULL}},
        {"win.view::top", {"<Primary>4", NULL}},
        {"win.show-frames", {"<Primary>b", NULL}},
        {"win.follow-body", {"<Primary>l", NULL}},
        {"win.export-view", {"<Primary>e", NULL}},
    };
    for (size_t i = 0; i < G_N_ELEMENTS(accels); i++)
        gtk_application_set_accels_for_action(GTK_APPLICATION(app), accels[i].action,
                                              accels[i].accels);
    GtkCssProvider *css = gtk_css_provider_new();
    gtk_css_provider_load_from_resource(css, "/org/eslabon/Eslabon/style.css");
    gtk_style_context_add_provider_for_display(gdk_display_get_default(), GTK_STYLE_PROVIDER(css),
                                               GTK_STYLE_PROVIDER_PRIORITY_APPLICATION);
    g_object_unref(css);
}

static int esl_application_handle_local_options(GApplication *app, GVariantDict *options)
{
    EslApplication *self = ESL_APPLICATION(app);
    if (g_variant_dict_contains(options, "version")) {
        printf("eslabon %s\n", ESLABON_VERSION);
        return 0;
    }
    g_variant_dict_lookup(options, "model", "s", &self->model);
    g_variant_dict_lookup(options, "project", "^ay", &self->project);
    g_variant_dict_lookup(options, "formulation", "s", &self->formulation);
    return -1;
}

static void esl_application_finalize(GObject *object)
{
    EslApplication *self = ESL_APPLICATION(object);
    g_free(self->model);
    g_free(self->project);
    g_free(self->formulation);
    G_OBJECT_CLASS(esl_application_parent_class)->finalize(object);
}

static void esl_application_class_init(EslApplicationClass *klass)
{
    G_OBJECT_CLASS(klass)->finalize = esl_application_finalize;
    GApplicationClass *app_class = G_APPLICATION_CLASS(klass);
    app_class->activate = esl_application_activate;
    app_class->open = esl_application_open;
    app_class->startup = esl_application_startup;
    app_class->handle_local_options = esl_application_handle_local_options;
}

static void esl_application_init(EslApplication *self)
{
    static const GOptionEntry entries[] = {
        {"version", 0, 0, G_OPTION_ARG_NONE, NULL, N_("Print the version and exit"), NULL},
        {"model", 'm', 0, G_OPTION_ARG_STRING, NULL, N_("Open this model (file or bundled name)"),
         N_("MODEL")},
        {"project", 'p', 0, G_OPTION_ARG_FILENAME, NULL,
         N_("Store runs in this project file (created when missing)"), N_("FILE")},
        {"formulation", 0, 0, G_OPTION_ARG_STRING, NULL,
         N_("Formulation selected for the runs (default penalty)"), N_("NAME")},
        {NULL, 0, 0, 0, NULL, NULL, NULL},
    };
    g_application_add_main_option_entries(G_APPLICATION(self), entries);
    g_application_set_option_context_parameter_string(G_APPLICATION(self),
                                                      _("[MODEL.json|PROJECT.eslabon…]"));
}

EslApplication *esl_application_new(void)
{
    return g_object_new(ESL_TYPE_APPLICATION, "application-id", "org.eslabon.Eslabon", "flags",
                        G_APPLICATION_HANDLES_OPEN, NULL);
}
