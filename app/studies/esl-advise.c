/* The formulation advisor; see esl-advise.h. */
#include "esl-advise.h"

#include <math.h>
#include <string.h>
#include <time.h>

#include "esl-study.h"
#include "mbs_trajectory.h"

#define SAMPLE_INTERVAL 0.01 /* s: every candidate's step divides it */
#define REFERENCE_STEP 1e-4

static const double fixed_steps[] = {0.01, 0.005, 0.002, 0.001, 0.0005};
static const double ssode_rtols[] = {1e-4, 1e-6, 1e-8};

static void candidate_free(gpointer data)
{
    EslAdviseCandidate *c = data;
    g_free(c->formulation);
    g_free(c->label);
    g_free(c->verdict);
    g_free(c);
}

void esl_advice_free(EslAdvice *a)
{
    if (!a)
        return;
    g_free(a->reference[0]);
    g_free(a->reference[1]);
    if (a->candidates)
        g_ptr_array_unref(a->candidates);
    g_free(a);
}

/* Settings of formulation at step h (ssode: rtol, atol = rtol / 100, on the sample grid). */
static gboolean settings_for(const char *formulation, double h, double rtol, double duration,
                             MbsSettings *s)
{
    mbs_settings_defaults(s);
    mbs_settings_for(s, mbs_formulation_find(formulation));
    s->step = h;
    s->duration = duration;
    if (rtol > 0)
        return mbs_settings_set_number_for(s, formulation, "rtol", rtol, NULL) == 0 &&
               mbs_settings_set_number_for(s, formulation, "atol", rtol / 100, NULL) == 0;
    return TRUE;
}

static int every_of(double h)
{
    return (int)lround(SAMPLE_INTERVAL / h);
}

static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

/* Run; TRUE when it ran to the end. t is filled either way (free it). *seconds: the CPU time of
 * the run (this thread's: a loaded machine's other processes do not count), the least of up to
 * five repetitions while they take less than 0.2 s together (short runs are timed again). */
static gboolean record(const MbsModel *m, const char *formulation, const MbsSettings *s,
                       const int *points, int npoints, MbsTrajectory *t, char **message,
                       double *seconds)
{
    MbsError err = {0};
    double spent = 0, best = INFINITY;
    memset(t, 0, sizeof *t);
    for (int rep = 0; rep < 5 && (rep == 0 || spent < 0.2); rep++) {
        if (rep > 0)
            mbs_trajectory_free(t);
        double t0 = cpu_now();
        if (mbs_trajectory_record(m, formulation, s, every_of(s->step), points, npoints, t,
                                  &err)) {
            *message = g_strdup(err.message);
            return FALSE;
        }
        double dt = cpu_now() - t0;
        spent += dt;
        best = fmin(best, dt);
        if (t->failed) {
            *message = g_strdup(t->error.message);
            return FALSE;
        }
        if (!seconds)
            break;
    }
    if (seconds)
        *seconds = best;
    return TRUE;
}

/* Largest displacement of the points over the reference's samples. */
static double displacement_scale(const MbsTrajectory *ref)
{
    double scale = 0;
    for (int k = 0; k < ref->nsamples; k++)
        for (int p = 0; p < ref->npoints; p++) {
            const double *a = ref->xyz + 3 * p, *b = ref->xyz + ((gsize)k * ref->npoints + p) * 3;
            scale = fmax(scale, sqrt((b[0] - a[0]) * (b[0] - a[0]) +
                                     (b[1] - a[1]) * (b[1] - a[1]) +
                                     (b[2] - a[2]) * (b[2] - a[2])));
        }
    return scale > 0 ? scale : 1.0;
}

typedef struct {
    const char *formulation;
    double rtol;
} RefChoice;

EslAdvice *esl_advise(const MbsModel *m, const int *points, int npoints, double accuracy,
                      double duration, int full_runs, GError **error)
{
    if (!(accuracy > 0) || !(duration >= 10 * SAMPLE_INTERVAL) ||
        fabs(duration / SAMPLE_INTERVAL - lround(duration / SAMPLE_INTERVAL)) > 1e-9) {
        g_set_error(error, ESL_STUDY_ERROR, ESL_STUDY_ERROR_INVALID,
                    "the accuracy must be positive and the duration a multiple of %g s, at "
                    "least %g s", SAMPLE_INTERVAL, 10 * SAMPLE_INTERVAL);
        return NULL;
    }
    g_autoptr(EslAdvice) a = g_new0(EslAdvice, 1);
    a->accuracy = accuracy;
    a->duration = duration;
    a->sample_interval = SAMPLE_INTERVAL;
    a->probe_duration = fmax(10 * SAMPLE_INTERVAL,
                             SAMPLE_INTERVAL * round(duration / 10 / SAMPLE_INTERVAL));
    a->reference_step = REFERENCE_STEP;
    a->recommended = -1;
    a->candidates = g_ptr_array_new_with_free_func(candidate_free);

    /* 1. the reference: the first two of these that agree */
    static const RefChoice choices[] = {
        {"matrix-r", 0}, {"penalty", 0}, {"ali3p", 0}, {"ssode", 1e-10}};
    MbsTrajectory refs[G_N_ELEMENTS(choices)];
    memset(refs, 0, sizeof refs);
    gboolean have[G_N_ELEMENTS(choices)] = {FALSE};
    int ref = -1, other = -1;
    GString *why = g_string_new(NULL);
    for (guint i = 0; i < G_N_ELEMENTS(choices) && ref < 0; i++) {
        MbsSettings s;
        g_autofree char *message = NULL;
        if (!mbs_formulation_find(choices[i].formulation) ||
            !settings_for(choices[i].formulation,
                          choices[i].rtol > 0 ? SAMPLE_INTERVAL : REFERENCE_STEP,
                          choices[i].rtol, duration, &s))
            continue;
        have[i] = record(m, choices[i].formulation, &s, points, npoints, &refs[i], &message,
                         NULL);
        if (!have[i]) {
            g_string_append_printf(why, "%s%s failed (%s)", why->len ? "; " : "",
                                   choices[i].formulation, message);
            continue;
        }
        for (guint j = 0; j < i && ref < 0; j++) {
            if (!have[j])
                continue;
            double dev = mbs_trajectory_max_deviation(&refs[j], &refs[i]);
            double rel = dev / displacement_scale(&refs[j]);
            if (dev >= 0 && refs[i].nsamples == refs[j].nsamples && rel <= accuracy / 10) {
                ref = (int)j;
                other = (int)i;
                a->reference_agreement = rel;
            } else {
                g_string_append_printf(why, "%s%s and %s differ by %.2e", why->len ? "; " : "",
                                       choices[j].formulation, choices[i].formulation, rel);
            }
        }
    }
    if (ref < 0) {
        g_set_error(error, ESL_STUDY_ERROR, ESL_STUDY_ERROR_RUN,
                    "no reference solution: no two formulations agree within %.1e at tight "
                    "settings (%s); ask for a lower accuracy or a shorter duration",
                    accuracy / 10, why->str);
        g_string_free(why, TRUE);
        for (guint i = 0; i < G_N_ELEMENTS(choices); i++)
            mbs_trajectory_free(&refs[i]);
        return NULL;
    }
    g_string_free(why, TRUE);
    a->reference[0] = g_strdup(choices[ref].formulation);
    a->reference[1] = g_strdup(choices[other].formulation);
    a->scale = displacement_scale(&refs[ref]);

    /* 2. the candidates, probed on a short horizon */
    for (int i = 0; i < mbs_formulation_count(); i++) {
        const char *name = mbs_formulation_class(i)->name;
        gboolean own = mbs_formulation_class(i)->own_steps;
        int n = own ? (int)G_N_ELEMENTS(ssode_rtols) : (int)G_N_ELEMENTS(fixed_steps);
        for (int k = 0; k < n; k++) {
            EslAdviseCandidate *c = g_new0(EslAdviseCandidate, 1);
            c->formulation = g_strdup(name);
            double h = own ? SAMPLE_INTERVAL : fixed_steps[k];
            double rtol = own ? ssode_rtols[k] : 0;
            if (!settings_for(name, h, rtol, a->probe_duration, &c->settings)) {
                candidate_free(c);
                continue;
            }
            c->label = own ? g_strdup_printf("%s, rtol = %g", name, rtol)
                           : g_strdup_printf("%s, h = %g s", name, h);
            c->probe_error = c->probe_seconds = c->error = c->seconds = NAN;
            g_ptr_array_add(a->candidates, c);
            MbsTrajectory t;
            g_autofree char *message = NULL;
            double cpu = NAN;
            if (!record(m, name, &c->settings, points, npoints, &t, &message, &cpu)) {
                c->probe_failed = c->failed = TRUE;
                c->verdict = g_strdup_printf("failed in the probe: %s", message);
            } else {
                c->probe_seconds = cpu;
                c->probe_error = mbs_trajectory_max_deviation(&t, &refs[ref]) / a->scale;
                if (c->probe_error > accuracy)
                    c->verdict = g_strdup_printf("too inaccurate: %.2e in the probe",
                                                 c->probe_error);
            }
            mbs_trajectory_free(&t);
        }
    }

    /* 3. full runs of the fastest survivors */
    g_autoptr(GPtrArray) order = g_ptr_array_new();
    for (guint i = 0; i < a->candidates->len; i++) {
        EslAdviseCandidate *c = a->candidates->pdata[i];
        if (!c->verdict)
            g_ptr_array_add(order, c);
    }
    for (guint i = 1; i < order->len; i++) /* insertion sort by probe time */
        for (guint j = i; j > 0 && ((EslAdviseCandidate *)order->pdata[j])->probe_seconds <
                                       ((EslAdviseCandidate *)order->pdata[j - 1])->probe_seconds;
             j--) {
            gpointer t = order->pdata[j];
            order->pdata[j] = order->pdata[j - 1];
            order->pdata[j - 1] = t;
        }
    gboolean found = FALSE; /* one within the accuracy: past full_runs, stop there */
    for (guint i = 0; i < order->len; i++) {
        EslAdviseCandidate *c = order->pdata[i];
        if ((int)i >= full_runs && found) {
            c->verdict = g_strdup_printf("not run in full: slower in the probe (%.2g s)",
                                         c->probe_seconds);
            continue;
        }
        c->settings.duration = duration;
        MbsTrajectory t;
        g_autofree char *message = NULL;
        c->ran_full = TRUE;
        double cpu = NAN;
        if (!record(m, c->formulation, &c->settings, points, npoints, &t, &message, &cpu)) {
            c->failed = TRUE;
            c->verdict = g_strdup_printf("failed: %s", message);
        } else {
            c->seconds = cpu;
            c->error = mbs_trajectory_max_deviation(&t, &refs[ref]) / a->scale;
            if (c->error > accuracy)
                c->verdict = g_strdup_printf("too inaccurate: %.2e", c->error);
            else
                found = TRUE;
        }
        mbs_trajectory_free(&t);
    }

    /* 4. the fastest within the accuracy */
    for (guint i = 0; i < a->candidates->len; i++) {
        EslAdviseCandidate *c = a->candidates->pdata[i];
        if (c->ran_full && !c->verdict &&
            (a->recommended < 0 ||
             c->seconds < ((EslAdviseCandidate *)a->candidates->pdata[a->recommended])->seconds))
            a->recommended = (int)i;
    }
    for (guint i = 0; i < a->candidates->len; i++) {
        EslAdviseCandidate *c = a->candidates->pdata[i];
        if (c->verdict)
            continue;
        c->verdict = (int)i == a->recommended
                         ? g_strdup("recommended")
                         : g_strdup_printf("within the accuracy, slower (%.2g s)", c->seconds);
    }
    for (guint i = 0; i < G_N_ELEMENTS(choices); i++)
        mbs_trajectory_free(&refs[i]);
    return g_steal_pointer(&a);
}
