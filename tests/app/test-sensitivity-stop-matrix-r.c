/* Stop of matrix-r's sensitivities (mbs_sensitivity.h's problem->stop, issue 10):
 *  - direct: a stop set at the 10th history call ends the run there with "stopped";
 *  - adjoint, every state stored and with checkpoints: a stop set before the run ends it with
 *    "stopped"; with checkpoints and an unset flag, the gradient is that of every state stored;
 *  - a stop flag that stays 0 changes nothing: psi and the gradient are bit-identical to a run
 *    without the flag (direct and adjoint);
 *  - progress (problem->progress): the adjoint's fractions never fall, pass 0.5 between its
 *    forward run and its backward sweep and end at 1, for every state stored and with
 *    checkpoints, without changing the gradient; a stop set from it in the middle of the
 *    backward sweep (recomputed segments) ends the run there. */
#include <string.h>

#include "esl-model-file.h"
#include "mbs_sensitivity.h"
#include "sens_matrix_r.h"
#include "tap.h"

#define MODELS ESLABON_SOURCE_DIR "/models/"

typedef struct {
    int calls, stop_after;
    volatile int stop;
} Stopper;

static void history(void *data, double time, const double *psi, const double *gradient)
{
    (void)time, (void)psi, (void)gradient;
    Stopper *s = data;
    if (++s->calls == s->stop_after)
        s->stop = 1;
}

/* Fractions seen; stops the computation when one passes stop_at (0: never). */
typedef struct {
    double first, last, stop_at;
    int calls, fell, crossed_half;
    volatile int *stop;
} Progress;

static void progress(void *data, double fraction)
{
    Progress *pr = data;
    if (pr->calls++ == 0)
        pr->first = fraction;
    pr->fell |= fraction < pr->last;
    pr->crossed_half |= pr->last < 0.5 && fraction >= 0.5;
    pr->last = fraction;
    if (pr->stop_at > 0 && fraction > pr->stop_at && pr->stop)
        *pr->stop = 1;
}

static Progress *watching; /* the next run reports to it */

static int run(const MbsModel *m, MbsSensitivityMethod method, const MbsSettings *s,
               const MbsMatrixRSensOptions *options, Stopper *stopper, double psi[1],
               double gradient[2], MbsError *err)
{
    int objectives[] = {0}, parameters[] = {0, 1};
    MbsSensitivityProblem p = {.model = m, .formulation = "matrix-r", .settings = s,
                               .objectives = objectives, .nobjectives = 1,
                               .parameters = parameters, .nparameters = 2,
                               .history = stopper ? history : NULL, .history_data = stopper,
                               .stop = stopper ? &stopper->stop : NULL,
                               .method_options = options,
                               .progress = watching ? progress : NULL,
                               .progress_data = watching};
    MbsSensitivityResult r = {.psi = psi, .gradient = gradient};
    memset(err, 0, sizeof *err);
    return mbs_sensitivity_compute(&p, method, &r, err);
}

int main(void)
{
    GError *error = NULL;
    MbsModel *m = esl_model_load_file(MODELS "five-bar.json", NULL, 0, &error);
    if (!tap_ok(m != NULL, "five-bar loads"))
        return tap_done();
    MbsSettings s;
    mbs_settings_defaults(&s);
    MbsError err = {0};
    mbs_settings_set_for(&s, "matrix-r", "integrator", "trapezoidal", &err);
    s.step = 0.01;
    s.duration = 0.5;
    double psi[1], gradient[2], psi0[1], gradient0[2];

    static Stopper direct;
    direct.stop_after = 10;
    int status = run(m, MBS_SENSITIVITY_DIRECT, &s, NULL, &direct, psi, gradient, &err);
    tap_ok(status != 0 && !strcmp(err.message, MBS_SENSITIVITY_STOPPED) && direct.calls == 10,
           "direct: a stop set at the 10th history call ends the run there (%d calls, '%s')",
           direct.calls, err.message);

    static Stopper adjoint;
    adjoint.stop = 1;
    status = run(m, MBS_SENSITIVITY_ADJOINT, &s, NULL, &adjoint, psi, gradient, &err);
    tap_ok(status != 0 && !strcmp(err.message, MBS_SENSITIVITY_STOPPED),
           "adjoint: a stop set before the run ends it as '%s'", err.message);

    for (int method = MBS_SENSITIVITY_DIRECT; method <= MBS_SENSITIVITY_ADJOINT; ++method) {
        static Stopper never;
        memset((void *)&never, 0, sizeof never);
        int a = run(m, method, &s, NULL, NULL, psi0, gradient0, &err);
        int b = run(m, method, &s, NULL, &never, psi, gradient, &err);
        tap_ok(a == 0 && b == 0 && !memcmp(psi, psi0, sizeof psi) &&
                   !memcmp(gradient, gradient0, sizeof gradient),
               "%s: an unset stop flag leaves psi and the gradient bit-identical (%.17g %.17g)",
               mbs_sensitivity_method_name(method), gradient[0], gradient[1]);
    }

    /* 51 states of 672 bytes (a state keeps its damped solves' priors since issue 28's fix) do
     * not fit 0.02 MiB (31 do): a checkpoint every 2 steps, segments recomputed backwards */
    MbsMatrixRSensOptions checkpointed;
    mbs_setting_table_defaults(&mbs_matrix_r_sens_settings, &checkpointed);
    checkpointed.memory = 0.02;
    static Stopper never;
    memset((void *)&never, 0, sizeof never);
    status = run(m, MBS_SENSITIVITY_ADJOINT, &s, &checkpointed, &never, psi, gradient, &err);
    tap_ok(status == 0 && !memcmp(psi, psi0, sizeof psi) && !memcmp(gradient, gradient0,
                                                                    sizeof gradient),
           "adjoint with checkpoints, unset stop flag: bit-identical to every state stored %s",
           err.message);
    never.stop = 1;
    status = run(m, MBS_SENSITIVITY_ADJOINT, &s, &checkpointed, &never, psi, gradient, &err);
    tap_ok(status != 0 && !strcmp(err.message, MBS_SENSITIVITY_STOPPED),
           "adjoint with checkpoints: a stop set before the run ends it as '%s'", err.message);

    const MbsMatrixRSensOptions *storage[] = {NULL, &checkpointed};
    const char *storage_name[] = {"every state stored", "checkpointed"};
    for (int k = 0; k < 2; ++k) {
        static Progress seen;
        memset(&seen, 0, sizeof seen);
        watching = &seen;
        status = run(m, MBS_SENSITIVITY_ADJOINT, &s, storage[k], NULL, psi, gradient, &err);
        watching = NULL;
        tap_ok(status == 0 && seen.calls > 50 && !seen.fell && seen.first < 0.02 &&
                   seen.crossed_half && seen.last == 1.0 &&
                   !memcmp(gradient, gradient0, sizeof gradient),
               "adjoint, %s: progress from %.3f to %g in %d calls, never falling, through 0.5; "
               "gradient unchanged", storage_name[k], seen.first, seen.last, seen.calls);
    }
    static Stopper midway;
    memset((void *)&midway, 0, sizeof midway);
    static Progress half;
    memset(&half, 0, sizeof half);
    half.stop_at = 0.75;
    half.stop = &midway.stop;
    watching = &half;
    status = run(m, MBS_SENSITIVITY_ADJOINT, &s, &checkpointed, &midway, psi, gradient, &err);
    watching = NULL;
    tap_ok(status != 0 && !strcmp(err.message, MBS_SENSITIVITY_STOPPED) && half.last > 0.75 &&
               half.last < 0.8,
           "adjoint with checkpoints: a stop set in the backward sweep (at %.3f) ends it as '%s'",
           half.last, err.message);
    mbs_model_free(m);
    return tap_done();
}
