/* State sensitivities and stop of the direct methods (mbs_sensitivity.h, issue 10):
 *  - penalty, ali3p and matrix-r (trapezoidal) on five-bar give d q / d rho at every history
 *    time; at t = 1 s it agrees with central differences of the final q of runs with rho +- d
 *    (the same method, its q); matrix-r with a geometric parameter (L_A1) too, whose change
 *    moves the dependent coordinates at fixed independent ones;
 *  - a stop flag set during a run ends it with "stopped" (direct and fd), at the step it was
 *    set. */
#include <math.h>
#include <string.h>

#include "esl-model-file.h"
#include "mbs_sensitivity.h"
#include "tap.h"

#define MODELS ESLABON_SOURCE_DIR "/models/"
#define MAXN 256

typedef struct {
    int n, calls, stop_after;
    double time, q[MAXN], sq[MAXN * 2];
    int np;
    volatile int stop;
} Last;

static void state(void *data, double time, int n, const double *q, const double *sq)
{
    Last *l = data;
    l->calls++;
    l->n = n;
    l->time = time;
    if (n <= MAXN) {
        memcpy(l->q, q, sizeof(double) * (size_t)n);
        memcpy(l->sq, sq, sizeof(double) * (size_t)n * (size_t)l->np);
    }
    if (l->stop_after && l->calls == l->stop_after)
        l->stop = 1;
}

static int run(const MbsModel *m, const char *formulation, MbsSensitivityMethod method,
               const MbsSettings *s, int *parameters, int np, Last *l, MbsError *err)
{
    int objectives[] = {0};
    l->np = np;
    MbsSensitivityProblem p = {.model = m, .formulation = formulation, .settings = s,
                               .objectives = objectives, .nobjectives = 1,
                               .parameters = parameters, .nparameters = np,
                               .state_history = state, .state_history_data = l,
                               .stop = &l->stop};
    double psi[1], gradient[2];
    MbsSensitivityResult r = {.psi = psi, .gradient = gradient};
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
    s.step = 0.01;
    s.duration = 1.0;
    int parameters[2], np = 0;
    for (int i = 0; i < m->nparameters && np < 2; ++i)
        if (mbs_model_parameter_is_free(m, i))
            parameters[np++] = i;
    tap_ok(np == 2, "five-bar has 2 free parameters");
    const char *formulations[] = {"penalty", "ali3p", "matrix-r"};
    MbsSettings base = s;
    int first_two[2] = {parameters[0], parameters[1]};
    for (int fi = 0; fi < 3; ++fi) {
        const char *f = formulations[fi];
        s = base;
        memcpy(parameters, first_two, sizeof first_two);
        if (!strcmp(f, "matrix-r")) {
            MbsError serr = {0};
            mbs_settings_set_for(&s, f, "integrator", "trapezoidal", &serr);
            parameters[1] = mbs_model_find_parameter(m, "L_A1");
        }
        tap_ok(mbs_sensitivity_has_state_history(f, MBS_SENSITIVITY_DIRECT) &&
                   !mbs_sensitivity_has_state_history(f, MBS_SENSITIVITY_FD),
               "%s: direct has state histories, fd not", f);
        static Last nominal;
        memset((void *)&nominal, 0, sizeof nominal);
        MbsError err = {0};
        int status = run(m, f, MBS_SENSITIVITY_DIRECT, &s, parameters, np, &nominal, &err);
        tap_ok(status == 0 && nominal.calls == 101 && fabs(nominal.time - 1.0) < 1e-12,
               "%s: 101 state history calls, the last at t = 1 (%d, %g) %s", f, nominal.calls,
               nominal.time, err.message);
        int n = nominal.n;
        double worst = 0.0, scale = 0.0;
        for (int k = 0; k < np; ++k) {
            double rho = m->parameters[parameters[k]].value, d = 1e-5 * fmax(1.0, fabs(rho));
            static Last plus, minus;
            memset((void *)&plus, 0, sizeof plus);
            memset((void *)&minus, 0, sizeof minus);
            MbsModel *mp = mbs_model_with_parameter(m, parameters[k], rho + d, &err);
            MbsModel *mm = mbs_model_with_parameter(m, parameters[k], rho - d, &err);
            status = mp && mm ? run(mp, f, MBS_SENSITIVITY_DIRECT, &s, parameters, np, &plus, &err) ||
                                    run(mm, f, MBS_SENSITIVITY_DIRECT, &s, parameters, np, &minus, &err)
                              : -1;
            tap_ok(status == 0, "%s: runs with %s +- d %s", f, m->parameters[parameters[k]].name,
                   status ? err.message : "");
            for (int i = 0; i < n; ++i) {
                double fd = (plus.q[i] - minus.q[i]) / (2.0 * d);
                worst = fmax(worst, fabs(fd - nominal.sq[i + (size_t)n * k]));
                scale = fmax(scale, fabs(fd));
            }
            mbs_model_free(mp);
            mbs_model_free(mm);
        }
        /* fd truncation (d^2) and the Newton tolerance over 2d bound the agreement */
        tap_ok(scale > 1e-3 && worst <= 1e-5 * scale,
               "%s: d q(1 s) / d rho (%s, %s) agrees with central differences of q: max diff "
               "%.3g (max |dq/drho| %.3g)", f, m->parameters[parameters[0]].name,
               m->parameters[parameters[1]].name, worst, scale);

        static Last stopped;
        memset((void *)&stopped, 0, sizeof stopped);
        stopped.stop_after = 10;
        err = (MbsError){0};
        status = run(m, f, MBS_SENSITIVITY_DIRECT, &s, parameters, np, &stopped, &err);
        tap_ok(status != 0 && !strcmp(err.message, MBS_SENSITIVITY_STOPPED) &&
                   stopped.calls == 10,
               "%s: a stop set at the 10th call ends the direct run there (%d calls, '%s')", f,
               stopped.calls, err.message);
    }
    /* fd: the flag set before the computation ends it at the nominal run's first step */
    static Last fd;
    memset((void *)&fd, 0, sizeof fd);
    fd.stop = 1;
    MbsError err = {0};
    int status = run(m, "penalty", MBS_SENSITIVITY_FD, &s, parameters, np, &fd, &err);
    tap_ok(status != 0 && !strcmp(err.message, MBS_SENSITIVITY_STOPPED) && fd.calls == 0,
           "fd: a stop ends it with '%s' and no state history", err.message);
    mbs_model_free(m);
    return tap_done();
}
