/* penalty and ali3p direct sensitivities allocate nothing per step: between two history calls (one grid
 * step of the dynamics and of the tangent linear model) no malloc, calloc or realloc. */
#include "esl-model-file.h"
#include "mbs_sensitivity.h"
#include "../engine/alloc_counter.h"
#include "tap.h"

#define MODELS ESLABON_SOURCE_DIR "/models/"

typedef struct {
    int calls;
    long counted_steps;
} Count;

static void history(void *data, double time, const double *psi, const double *gradient)
{
    Count *c = data;
    (void)time, (void)psi, (void)gradient;
    if (++c->calls == 2) /* from the second step on */
        alloc_counting = 1;
    if (c->calls > 2)
        c->counted_steps++;
}

int main(void)
{
    GError *error = NULL;
    MbsModel *m = esl_model_load_file(MODELS "five-bar.json", NULL, 0, &error);
    tap_ok(m != NULL, "five-bar loads");
    if (!m)
        return tap_done();
    MbsSettings s;
    mbs_settings_defaults(&s);
    s.step = 0.01;
    s.duration = 1.0;
    int objectives[] = {0, 1, 2}, parameters[5], np = 0;
    for (int i = 0; i < m->nparameters; ++i)
        if (mbs_model_parameter_is_free(m, i))
            parameters[np++] = i;
    const char *formulations[] = {"penalty", "ali3p"};
    for (int fi = 0; fi < 2; ++fi) {
        Count c = {0};
        MbsSensitivityProblem p = {.model = m, .formulation = formulations[fi], .settings = &s,
                                   .objectives = objectives, .nobjectives = 3,
                                   .parameters = parameters, .nparameters = np,
                                   .history = history, .history_data = &c};
        double psi[3], gradient[15];
        MbsSensitivityResult r = {.psi = psi, .gradient = gradient};
        MbsError err = {0};
        alloc_count = 0;
        int status = mbs_sensitivity_compute(&p, MBS_SENSITIVITY_DIRECT, &r, &err);
        alloc_counting = 0;
        tap_ok(status == 0, "%s direct runs %s", formulations[fi], err.message);
        tap_ok(c.counted_steps == 99, "99 steps counted (%ld)", c.counted_steps);
        /* mbs_run_free and the workspaces' release come after the last call: free, not malloc */
        tap_ok(alloc_count == 0, "%s: %ld allocations in %ld steps with 5 parameters",
               formulations[fi], alloc_count, c.counted_steps);
    }
    mbs_model_free(m);
    return tap_done();
}
