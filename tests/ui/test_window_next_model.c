/* The step of one model is not carried to the next (issue 26, item 11): a step chosen in the
 * run panel for one model gave way to the formulation's default when another model was
 * opened; an edit of the same model keeps it. Needs a display (xvfb-run). */
#include <gtk/gtk.h>
#include <math.h>

#include "esl-application.h"
#include "esl-run-settings.h"
#include "esl-window.h"
#include "esl-window-testing.h"
#include "tap.h"
#include "ui-test.h"

static double shown_step(EslRunSettings *panel)
{
    MbsSettings s;
    esl_run_settings_read(panel, &s);
    return s.step;
}

static void check(GtkApplication *app, gpointer data)
{
    (void)data;
    EslWindow *window = ESL_WINDOW(gtk_application_get_active_window(app));
    g_autoptr(GError) error = NULL;
    tap_ok(esl_window_load_model(window, "four-bar-spatial", &error), "the four-bar loads");
    EslRunSettings *panel = ESL_RUN_SETTINGS(find_nth(GTK_WIDGET(window), ESL_TYPE_RUN_SETTINGS, 0));
    MbsSettings s;
    esl_run_settings_read(panel, &s);
    const double chosen = 0.0037;
    s.step = chosen;
    esl_run_settings_show(panel, NULL, &s);
    tap_close(shown_step(panel), chosen, 1e-12, "the step set to %g s", chosen);

    tap_ok(esl_window_edit_model(window, "bodies/1/mass", 2.5, &error),
           "an edit of the four-bar%s%s", error ? ": " : "", error ? error->message : "");
    g_clear_error(&error);
    wait_checked(window);
    tap_close(shown_step(panel), chosen, 1e-12, "keeps the step (%g s)", shown_step(panel));

    tap_ok(esl_window_load_model(window, "slider-crank", &error), "the slider-crank loads");
    MbsSettings defaults;
    mbs_settings_defaults(&defaults);
    mbs_settings_for(&defaults, esl_run_settings_get_formulation(panel));
    tap_close(shown_step(panel), defaults.step, 1e-12,
              "another model starts from the formulation's default step %g s (shown %g s)",
              defaults.step, shown_step(panel));
    gtk_window_destroy(GTK_WINDOW(window));
}

int main(void)
{
    run_application("test_window_next_model", G_CALLBACK(check), NULL);
    return tap_done();
}
