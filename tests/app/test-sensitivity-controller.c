/* EslSensitivityController (issue 10): a sensitivity computation on a worker thread, reported
 * to the main loop and stored in a project.
 *  - penalty direct on five-bar (h 0.01 s, 1 s): 101 rows, each with d q / d rho; the last
 *    row's gradient is the final gradient; the project holds the same 101 rows and gradient;
 *  - fd of the same problem: no rows (fd has no history), its gradient within 1e-5 relative of
 *    the direct one (the agreement the window shows);
 *  - a stop asked at once ends the computation as "stopped", stored as stopped with
 *    its rows so far and no gradient;
 *  - matrix-r adjoint with its own options (esl_sensitivity_controller_set_method_options):
 *    they reach the engine (its gradient for them, bit for bit; a too small adjoint memory
 *    refused), options of another table are refused. */
#include <glib/gstdio.h>
#include <math.h>

#include "esl-model-file.h"
#include "esl-project.h"
#include "esl-sensitivity-controller.h"
#include "tap.h"

#define MODELS ESLABON_SOURCE_DIR "/models/"

typedef struct {
    GMainLoop *loop;
    GPtrArray *rows;
    gboolean stop_at_once;
    int status;
} Seen;

static void on_rows(EslSensitivityController *c, GPtrArray *rows, gpointer data)
{
    (void)c;
    Seen *seen = data;
    for (guint i = 0; i < rows->len; i++)
        g_ptr_array_add(seen->rows, g_steal_pointer(&rows->pdata[i]));
}

static void on_finished(EslSensitivityController *c, int status, const char *message,
                        gpointer data)
{
    (void)c, (void)message;
    Seen *seen = data;
    seen->status = status;
    g_main_loop_quit(seen->loop);
}

static int objectives[] = {0, 1}, parameters[] = {0, 1};

/* The run's settings: h 0.01 s, 1 s, the formulation's defaults (matrix-r: the trapezoidal
 * rule, which its sensitivities differentiate). */
static MbsSettings run_settings(const char *formulation)
{
    MbsSettings s;
    mbs_settings_defaults(&s);
    mbs_settings_for(&s, mbs_formulation_find(formulation));
    if (!strcmp(formulation, "matrix-r"))
        mbs_settings_set_for(&s, formulation, "integrator", "trapezoidal", NULL);
    s.step = 0.01;
    s.duration = 1.0;
    return s;
}

/* A computation on the controller (options: the method's own, NULL: none given), waited for. */
static EslSensitivityController *compute_with(const MbsModel *m, const char *formulation,
                                              MbsSensitivityMethod method,
                                              const MbsSettings *options, const char *project,
                                              gint64 model_id, Seen *seen)
{
    MbsSettings s = run_settings(formulation);
    EslSensitivityController *c = esl_sensitivity_controller_new(
        m, NULL, formulation, &s, method, objectives, 2, parameters, 2, project, model_id);
    esl_sensitivity_controller_set_method_options(c, options);
    seen->rows = g_ptr_array_new_with_free_func((GDestroyNotify)esl_sensitivity_row_free);
    seen->loop = g_main_loop_new(NULL, FALSE);
    g_signal_connect(c, "rows", G_CALLBACK(on_rows), seen);
    g_signal_connect(c, "finished", G_CALLBACK(on_finished), seen);
    GError *error = NULL;
    if (tap_ok(esl_sensitivity_controller_start(c, &error), "%s starts",
               mbs_sensitivity_method_name(method))) {
        if (seen->stop_at_once)
            esl_sensitivity_controller_stop(c);
        g_main_loop_run(seen->loop);
    }
    g_main_loop_unref(seen->loop);
    return c;
}

static EslSensitivityController *compute(const MbsModel *m, MbsSensitivityMethod method,
                                         const char *project, gint64 model_id, Seen *seen)
{
    return compute_with(m, "penalty", method, NULL, project, model_id, seen);
}

/* matrix-r adjoint with its own options (the sensitivity chooser's rows): the controller gives
 * them to the engine. Its gradient is the engine's for the same options bit for bit, and not
 * the defaults' (nd-forward state derivatives); an adjoint memory too small for the run is
 * refused by the engine, naming the setting. */
static void test_method_options(const MbsModel *m)
{
    const MbsSettingTable *t = mbs_sensitivity_settings("matrix-r", MBS_SENSITIVITY_ADJOINT);
    MbsSettings options;
    mbs_settings_defaults(&options);
    MbsError err = {0};
    if (!tap_ok(t && mbs_settings_set(&options, t, "jacobian", "nd-forward", &err) == 0,
                "matrix-r adjoint has a table of its own options%s", err.message))
        return;
    Seen given = {0}, defaults = {0}, small = {0};
    EslSensitivityController *c =
        compute_with(m, "matrix-r", MBS_SENSITIVITY_ADJOINT, &options, NULL, 0, &given);
    EslSensitivityController *d =
        compute_with(m, "matrix-r", MBS_SENSITIVITY_ADJOINT, NULL, NULL, 0, &defaults);
    const double *a = esl_sensitivity_controller_get_gradient(c);
    const double *b = esl_sensitivity_controller_get_gradient(d);

    MbsSettings s = run_settings("matrix-r");
    double psi[2], engine[4];
    MbsSensitivityProblem p = {.model = m, .formulation = "matrix-r", .settings = &s,
                               .objectives = objectives, .nobjectives = 2,
                               .parameters = parameters, .nparameters = 2,
                               .method_options = options.options.bytes};
    MbsSensitivityResult r = {.psi = psi, .gradient = engine};
    int status = mbs_sensitivity_compute(&p, MBS_SENSITIVITY_ADJOINT, &r, &err);
    tap_ok(a && b && status == 0 && !memcmp(a, engine, sizeof engine) &&
               memcmp(a, b, sizeof engine) != 0,
           "matrix-r adjoint with nd-forward state derivatives: the engine's gradient for those "
           "options (%.17g), not the defaults' (%.17g)",
           a ? a[0] : NAN, b ? b[0] : NAN);

    mbs_settings_set(&options, t, "adjoint-memory", "0.001", &err);
    EslSensitivityController *e =
        compute_with(m, "matrix-r", MBS_SENSITIVITY_ADJOINT, &options, NULL, 0, &small);
    const char *message = esl_sensitivity_controller_get_message(e);
    tap_ok(small.status == ESL_RUN_FAILED && message && strstr(message, "adjoint-memory"),
           "0.001 MiB of adjoint memory is refused by the engine: %s", message ? message : "");

    MbsSettings other;
    mbs_settings_defaults(&other);
    mbs_settings_for(&other, mbs_formulation_find("penalty")); /* not the method's table */
    EslSensitivityController *f = esl_sensitivity_controller_new(
        m, NULL, "matrix-r", &s, MBS_SENSITIVITY_ADJOINT, objectives, 2, parameters, 2, NULL, 0);
    esl_sensitivity_controller_set_method_options(f, &other);
    GError *error = NULL;
    gboolean started = esl_sensitivity_controller_start(f, &error);
    tap_ok(!started && error, "options of another table are refused at start: %s",
           error ? error->message : "");
    g_clear_error(&error);
    for (guint i = 0; i < 3; i++) {
        Seen *seen[] = {&given, &defaults, &small};
        g_ptr_array_unref(seen[i]->rows);
    }
    g_object_unref(c);
    g_object_unref(d);
    g_object_unref(e);
    g_object_unref(f);
}

int main(void)
{
    GError *error = NULL;
    g_autofree char *path = NULL;
    MbsModel *m = esl_model_load_file(MODELS "five-bar.json", NULL, 0, &error);
    g_autofree char *text = NULL;
    g_file_get_contents(MODELS "five-bar.json", &text, NULL, NULL);
    g_autofree char *dir = g_dir_make_tmp("esl-sens-ctl-XXXXXX", NULL);
    path = g_build_filename(dir, "p.eslabon", NULL);
    EslProject *project = esl_project_open(path, TRUE, &error);
    gint64 model_id = project ? esl_project_add_model(project, "five-bar", MODELS "five-bar.json",
                                                      text, &error)
                              : 0;
    if (!tap_ok(m && m->nobjectives >= 2 && m->nparameters >= 2 && model_id > 0,
                "five-bar (2 objectives, 2 parameters) in a new project"))
        return tap_done();

    Seen direct = {0};
    EslSensitivityController *c = compute(m, MBS_SENSITIVITY_DIRECT, path, model_id, &direct);
    const double *gradient = esl_sensitivity_controller_get_gradient(c);
    tap_ok(direct.status == ESL_RUN_FINISHED && gradient && direct.rows->len == 101,
           "direct finishes with 101 rows (%u)", direct.rows->len);
    gboolean state = direct.rows->len > 0;
    for (guint i = 0; i < direct.rows->len; i++) {
        EslSensitivityRow *row = direct.rows->pdata[i];
        state = state && row->n > 0 && row->state_sensitivity && isfinite(row->state_sensitivity[0]);
    }
    EslSensitivityRow *last = direct.rows->len ? direct.rows->pdata[direct.rows->len - 1] : NULL;
    double grad_direct[4] = {0};
    for (int i = 0; gradient && i < 4; i++)
        grad_direct[i] = gradient[i];
    tap_ok(state, "every row has d q / d rho (%d coordinates)", last ? last->n : 0);
    tap_ok(last && fabs(last->progress - 1.0) < 1e-12, "the last row says the run is done (%g)",
           last ? last->progress : -1.0);
    tap_ok(last && fabs(last->time - 1.0) < 1e-12 &&
               !memcmp(last->gradient, grad_direct, sizeof grad_direct),
           "the last row (t = 1 s) holds the final gradient");
    gint64 run_id = esl_sensitivity_controller_get_run_id(c);
    EslSensitivityRun *stored = esl_project_load_sensitivity(project, run_id, &error);
    tap_ok(stored && stored->n == 101 && stored->gradient &&
               !memcmp(stored->gradient, grad_direct, sizeof grad_direct) &&
               !strcmp(stored->method, "direct"),
           "the project holds the direct run: 101 rows and the gradient%s%s",
           error ? ": " : "", error ? error->message : "");
    esl_sensitivity_run_free(stored);
    g_clear_error(&error);
    g_object_unref(c);

    Seen fd = {0};
    c = compute(m, MBS_SENSITIVITY_FD, path, model_id, &fd);
    gradient = esl_sensitivity_controller_get_gradient(c);
    double worst = 0.0, scale = 0.0;
    for (int i = 0; gradient && i < 4; i++) {
        worst = fmax(worst, fabs(gradient[i] - grad_direct[i]));
        scale = fmax(scale, fabs(grad_direct[i]));
    }
    tap_ok(fd.status == ESL_RUN_FINISHED && gradient && scale > 0 && worst <= 1e-5 * scale,
           "fd finishes, gradient within 1e-5 relative of direct (%.3g of %.3g)", worst, scale);
    /* fd has no history: its rows only say how far it is, one per whole run (5: the nominal
     * one and 2 per parameter), rising to 1 */
    gboolean progress_only = fd.rows->len == 5;
    double before = 0.0;
    for (guint i = 0; progress_only && i < fd.rows->len; i++) {
        EslSensitivityRow *row = fd.rows->pdata[i];
        progress_only = !row->psi && !row->gradient && row->progress > before;
        before = row->progress;
    }
    tap_ok(progress_only && before == 1.0,
           "fd reports progress only: %u rows without psi or gradient, rising to %g",
           fd.rows->len, before);
    g_object_unref(c);

    Seen stopped = {.stop_at_once = TRUE};
    c = compute(m, MBS_SENSITIVITY_DIRECT, path, model_id, &stopped);
    run_id = esl_sensitivity_controller_get_run_id(c);
    EslRunInfo *info = esl_project_get_run(project, run_id, NULL);
    stored = esl_project_load_sensitivity(project, run_id, NULL);
    tap_ok(stopped.status == ESL_RUN_STOPPED && !esl_sensitivity_controller_get_gradient(c) &&
               stopped.rows->len < 101 && info && info->status == ESL_RUN_STOPPED && stored &&
               !stored->gradient && stored->n == (int)stopped.rows->len,
           "a stop ends it as stopped: %u rows reported and stored, no gradient",
           stopped.rows->len);
    esl_sensitivity_run_free(stored);
    esl_run_info_free(info);
    g_object_unref(c);

    test_method_options(m);

    g_ptr_array_unref(direct.rows);
    g_ptr_array_unref(fd.rows);
    g_ptr_array_unref(stopped.rows);
    esl_project_close(project);
    mbs_model_free(m);
    const char *suffixes[] = {"", "-wal", "-shm"};
    for (size_t i = 0; i < G_N_ELEMENTS(suffixes); i++) {
        g_autofree char *f = g_strconcat(path, suffixes[i], NULL);
        g_unlink(f);
    }
    g_rmdir(dir);
    return tap_done();
}
