/* A run's stored formulation options read back (app/esl-settings-json.c): malformed texts are
 * refused with a GError, never a crash. The empty text crashed the project reader (found by
 * fuzz-project, tests/fuzz/regressions/project/empty-options-text.eslp). */
#include <string.h>

#include "esl-settings-json.h"
#include "tests/tap.h"

static void check_refused(const MbsFormulationClass *k, const char *text, const char *expect)
{
    MbsSettings s;
    mbs_settings_defaults(&s);
    GError *error = NULL;
    gboolean ok = esl_settings_options_from_json(&s, k, text, &error);
    /* escaped: a raw newline in the test's name would be read as a line of TAP */
    g_autofree char *shown = g_strescape(text, NULL);
    tap_ok(!ok && error && strstr(error->message, expect), "options '%s' refused: %s", shown,
           error ? error->message : "(no error set)");
    g_clear_error(&error);
}

int main(void)
{
    const MbsFormulationClass *k = mbs_formulation_find("penalty");
    tap_ok(k != NULL, "penalty is registered");
    if (!k)
        return tap_done();
    check_refused(k, "", "empty JSON text");
    check_refused(k, "  \n ", "empty JSON text");
    check_refused(k, "[1]", "not a JSON object");

    MbsSettings s;
    mbs_settings_defaults(&s);
    GError *error = NULL;
    tap_ok(esl_settings_options_from_json(&s, k, "{}", &error) && !error,
           "'{}' gives the defaults");
    g_clear_error(&error);
    return tap_done();
}
