/* EslRunController's real-time pacing (app/esl-run-controller.c): a four-bar that computes in a
 * few milliseconds takes at least its simulated time in wall time when paced at 1x and at least
 * half of it at 2x; the paced run's results are those of the unpaced one (pacing only waits
 * between steps). */
#include <glib.h>
#include <math.h>

#include "esl-model-file.h"
#include "esl-run-controller.h"
#include "tap.h"

typedef struct {
    GMainLoop *loop;
    int status;
    double last_time, last_kinetic;
} Outcome;

static void on_samples(EslRunController *c, GPtrArray *samples, Outcome *o)
{
    (void)c;
    const EslRunSample *s = samples->pdata[samples->len - 1];
    o->last_time = s->monitors.time;
    o->last_kinetic = s->monitors.kinetic;
}

static void on_finished(EslRunController *c, int status, const char *message, Outcome *o)
{
    (void)c;
    (void)message;
    o->status = status;
    g_main_loop_quit(o->loop);
}

/* Wall seconds of a 0.5 s run of the model paced at speed (0: not paced). */
static double run(const MbsModel *m, double speed, Outcome *o)
{
    MbsSettings s;
    mbs_settings_defaults(&s);
    s.step = 0.01;
    s.duration = 0.5;
    g_autoptr(EslRunController) c = esl_run_controller_new(m, NULL, "penalty", &s, NULL, 0);
    esl_run_controller_set_pacing(c, speed);
    g_signal_connect(c, "samples", G_CALLBACK(on_samples), o);
    g_signal_connect(c, "finished", G_CALLBACK(on_finished), o);
    gint64 start = g_get_monotonic_time();
    if (!esl_run_controller_start(c, NULL))
        return NAN;
    g_main_loop_run(o->loop);
    return (g_get_monotonic_time() - start) * 1e-6;
}

int main(void)
{
    g_autoptr(GError) error = NULL;
    MbsModel *m = esl_model_load_file(ESLABON_SOURCE_DIR "/models/four-bar-spatial.json", NULL, 0,
                                      &error);
    tap_ok(m != NULL, "the four-bar loads");
    if (!m)
        return tap_done();
    g_autoptr(GMainLoop) loop = g_main_loop_new(NULL, FALSE);
    Outcome fast = {.loop = loop}, paced = {.loop = loop}, twice = {.loop = loop};
    double wall_fast = run(m, 0.0, &fast);
    double wall_paced = run(m, 1.0, &paced);
    double wall_twice = run(m, 2.0, &twice);
    tap_ok(fast.status == ESL_RUN_FINISHED && paced.status == ESL_RUN_FINISHED &&
               twice.status == ESL_RUN_FINISHED,
           "the three runs finish");
    /* Only lower bounds, which pacing guarantees on any machine: an upper bound would be a
     * timing threshold that a loaded machine breaks (benches measure time). The last step is
     * not waited for after it: 0.49 s at least. */
    tap_diag("unpaced, 0.5 s of the four-bar compute in %.3f s", wall_fast);
    tap_ok(wall_paced >= 0.49,
           "paced at 1x, 0.5 s of motion take at least 0.49 s of wall time (%.3f s)", wall_paced);
    tap_ok(wall_twice >= 0.245,
           "paced at 2x, at least 0.245 s (%.3f s; unpaced %.3f s)", wall_twice, wall_fast);
    tap_close(paced.last_time, 0.5, 1e-9, "the paced run reaches t = 0.5 s");
    tap_close(paced.last_kinetic, fast.last_kinetic, 0.0,
              "and ends in the same state as the unpaced run (kinetic %.9g J)", paced.last_kinetic);
    mbs_model_free(m);
    return tap_done();
}
