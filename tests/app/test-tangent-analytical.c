/* The analytical tangent of penalty (engine/mbs_dynamics_derivatives.c) on every bundled model
 * and on a test model with a force element of every kind: -dQ/d[zd, z] against central
 * differences of Q at random states and velocities, column by column (so that a wrong column
 * names itself), and the refusals of formulations and elements without analytical derivatives.
 */
#include <math.h>
#include <string.h>

#include "esl-model-file.h"
#include "mbs_dynamics_derivatives.h"
#include "mbs_formulation.h"
#include "mbs_tangent.h"
#include "mbs_tangent_probe.h"
#include "tap.h"

#define MODELS ESLABON_SOURCE_DIR "/models/"
#define TEST_MODELS ESLABON_SOURCE_DIR "/tests/app/models/"

/* A formulation with an analytical tangent of its forces, and how to reach that tangent. */
typedef struct {
    const char *name;
    double amplitude; /* of the random change of the coordinates */
} Formulation;

static const Formulation formulations[] = {
    {"penalty", 0.4},
    /* natural coordinates: a small change keeps the bodies nearly rigid */
    {"ali3p", 0.05},
};

static MbsFormulation *formulation_with(const Formulation *fm, const MbsModel *m,
                                        const char *method, MbsError *err)
{
    MbsSettings s;
    mbs_settings_defaults(&s);
    s.step = 1e-3;
    if (mbs_settings_set_for(&s, fm->name, "jacobian", method, err))
        return NULL;
    mbs_settings_set_number_for(&s, fm->name, "threads", 1, NULL);
    return mbs_formulation_new(fm->name, m, &s, err);
}

/* A reproducible pseudo-random number in [-1, 1). */
static double uniform(unsigned *seed)
{
    *seed = *seed * 1103515245u + 12345u;
    return ((*seed >> 8) & 0xffffff) / (double)0x800000 - 1.0;
}

/* Puts the formulation at z + dz, zd random (the same for both given the seed); the state
 * begins with the coordinates and their rates. */
static int set_random_state(MbsFormulation *f, double amplitude, unsigned seed, MbsError *err)
{
    MbsCheckpoint c;
    if (mbs_checkpoint_init(&c, f, err))
        return MBS_FATAL;
    mbs_formulation_save(f, &c);
    int n = f->klass->ncoords(f);
    for (int i = 0; i < n; ++i) {
        c.state[i] += amplitude * uniform(&seed);
        c.state[n + i] = 3.0 * uniform(&seed);
    }
    int status = mbs_formulation_restore(f, &c, err);
    mbs_checkpoint_free(&c);
    return status;
}

/* J (n x 2n) dense from a tangent's storage: the values of its pattern, or dense already. */
static void to_dense(const MbsSparsity *pattern, int n, const double *values, double *dense)
{
    if (!pattern) {
        memcpy(dense, values, sizeof(double) * 2 * (size_t)n * n);
        return;
    }
    memset(dense, 0, sizeof(double) * 2 * (size_t)n * n);
    for (int j = 0; j < 2 * n; ++j)
        for (int k = pattern->colptr[j]; k < pattern->colptr[j + 1]; ++k)
            dense[pattern->rowind[k] + (size_t)n * j] = values[k];
}

/* ad and ad-sparse (where the formulation offers them) against the analytical tangent at the
 * same three random states: all three exact, so to round-off (1e-10 of the largest entry),
 * entry by entry (each tangent's storage made dense: penalty gives its pattern to the
 * compressed methods only). */
static void check_ad(const Formulation *fm, const MbsModel *m, const char *file, int n,
                     const double *const *Janalytical, const MbsSparsity *analytical_pattern,
                     double largest)
{
    if (!mbs_formulation_offers_jacobian(mbs_formulation_find(fm->name), MBS_JACOBIAN_AD))
        return;
    static const char *const methods[] = {"ad", "ad-sparse"};
    for (int k = 0; k < 2; ++k) {
        MbsError err = {0};
        MbsFormulation *f = formulation_with(fm, m, methods[k], &err);
        double *J = g_new0(double, 2 * (size_t)n * n + 1), worst = 0.0;
        double *D = g_new0(double, 2 * (size_t)n * n + 1), *A = g_new0(double, 2 * (size_t)n * n + 1);
        int status = f ? 0 : MBS_FATAL, worst_column = -1;
        for (unsigned sample = 0; sample < 3 && !status; ++sample) {
            MbsTangentProbe p;
            status = set_random_state(f, fm->amplitude, 17 + sample, &err) ||
                     mbs_formulation_tangent_probe(f, &p, &err) ||
                     mbs_tangent_eval(p.tangent, p.x, p.r0, J);
            if (status)
                break;
            to_dense(p.tangent->problem.pattern, n, J, D);
            to_dense(analytical_pattern, n, Janalytical[sample], A);
            for (size_t e = 0; e < 2 * (size_t)n * n; ++e) {
                double d = fabs(D[e] - A[e]) / fmax(largest, 1e-300);
                if (d > worst || isnan(d)) {
                    worst = isnan(d) ? INFINITY : d;
                    worst_column = (int)(e / (size_t)n);
                }
            }
        }
        tap_ok(!status && worst <= 1e-10,
               "%s, %s: %s agrees with the analytical tangent at 3 random states: worst %.1e of "
               "the largest entry, column %d (bound 1e-10) %s", fm->name, file, methods[k], worst,
               worst_column, status ? err.message : "");
        g_free(J);
        g_free(D);
        g_free(A);
        mbs_formulation_free(f);
    }
}

/* The bound on analytical vs central differences, relative to J's largest entry: 1e-7, but for
 * coach.json in penalty, whose random states (±0.4 rad of attitude on a 12 m body: tyres half a
 * metre into the road or off it) give central differences a truncation of 2.2e-7 (measured),
 * while the analytical and ad tangents, exact both, agree to 4e-16 there. */
static double difference_bound(const Formulation *fm, const char *file)
{
    /* truck-slalom.json: the same on a 40 t, 27-body vehicle: 3.4e-7 in penalty and 2.7e-6 in
     * ali3p (a drive-axle column; entries of 8e5 against a largest of 9.7e6) measured, while
     * analytical = ad holds to round-off (below) */
    if (!strcmp(file, "truck-slalom.json"))
        return !strcmp(fm->name, "penalty") ? 3e-6 : 3e-5;
    return !strcmp(fm->name, "penalty") && !strcmp(file, "coach.json") ? 1e-6 : 1e-7;
}

/* Analytical against central differences at three random states: the worst column, relative to
 * the largest entry of J (central differences: truncation and round-off near 1e-9 of it). */
static void check_model(const Formulation *fm, const char *dir, const char *file)
{
    const double bound = difference_bound(fm, file);
    char path[512];
    snprintf(path, sizeof path, "%s%s", dir, file);
    GError *error = NULL;
    MbsModel *m = esl_model_load_file(path, NULL, 0, &error);
    if (!m) {
        tap_ok(0, "%s loads: %s", file, error->message);
        g_clear_error(&error);
        return;
    }
    MbsError err = {0};
    char why[256];
    if (!mbs_dynamics_derivatives_supported(m, why, sizeof why)) {
        /* a law without its derivative (none today; the drivers had none before): refused */
        MbsFormulation *refused = formulation_with(fm, m, "analytical", &err);
        tap_ok(!refused && strstr(err.message, "no analytical derivative") != NULL,
               "%s, %s: the analytical tangent is refused: %s", fm->name, file, err.message);
        mbs_formulation_free(refused);
        mbs_model_free(m);
        return;
    }
    MbsFormulation *fa = formulation_with(fm, m, "analytical", &err);
    MbsFormulation *fn = fa ? formulation_with(fm, m, "nd-central", &err) : NULL;
    MbsTangentProbe pa, pn;
    if (fa && fn && !strcmp(fm->name, "ali3p") &&
        mbs_formulation_tangent_probe(fa, &pa, &err)) {
        /* only constant forces: no tangent to check */
        tap_ok(strstr(err.message, "no force varies") != NULL, "%s, %s: %s", fm->name, file,
               err.message);
        mbs_formulation_free(fa);
        mbs_formulation_free(fn);
        mbs_model_free(m);
        return;
    }
    if (!fa || !fn) {
        tap_ok(0, "%s: %s with analytical and nd-central: %s", file, fm->name, err.message);
        mbs_formulation_free(fa);
        mbs_model_free(m);
        return;
    }
    int n = fa->klass->ncoords(fa), worst_column = -1;
    double worst = 0.0, largest = 0.0;
    double *Ja = g_new0(double, 2 * (size_t)n * n + 1), *Jn = g_new0(double, 2 * (size_t)n * n + 1);
    double *Jsample[3]; /* analytical at each sample, for the AD methods below */
    const char *first_block = !strcmp(fm->name, "penalty") ? "C (zd)" : "K (q)";
    const char *second_block = !strcmp(fm->name, "penalty") ? "K (z)" : "C (qd)";
    int status = 0, wrong_count = 0;
    GString *wrong = g_string_new("");
    for (unsigned sample = 0; sample < 3 && !status; ++sample) {
        status = set_random_state(fa, fm->amplitude, 17 + sample, &err) ||
                 set_random_state(fn, fm->amplitude, 17 + sample, &err) ||
                 mbs_formulation_tangent_probe(fa, &pa, &err) ||
                 mbs_formulation_tangent_probe(fn, &pn, &err);
        if (status)
            break;
        status = mbs_tangent_eval(pa.tangent, pa.x, pa.r0, Ja) ||
                 mbs_tangent_eval(pn.tangent, pn.x, pn.r0, Jn);
        Jsample[sample] = g_memdup2(Ja, sizeof(double) * (2 * (size_t)n * n + 1));
        /* ali3p's sparse algebra stores the values of its pattern, both methods alike */
        const MbsSparsity *pattern = pa.tangent->problem.pattern;
        size_t entries = pattern ? (size_t)pattern->colptr[2 * n] : 2 * (size_t)n * n;
        double scale = 0.0;
        for (size_t k = 0; k < entries; ++k)
            scale = fmax(scale, fabs(Jn[k]));
        largest = fmax(largest, scale);
        for (int j = 0; j < 2 * n; ++j) {
            size_t lo = pattern ? (size_t)pattern->colptr[j] : (size_t)n * j;
            size_t hi = pattern ? (size_t)pattern->colptr[j + 1] : lo + (size_t)n;
            for (size_t k = lo; k < hi; ++k) {
                int i = pattern ? pattern->rowind[k] : (int)(k - lo);
                double e = fabs(Ja[k] - Jn[k]) / fmax(scale, 1e-300);
                if (e > bound && wrong_count++ < 4) /* names the first wrong columns */
                    g_string_append_printf(wrong, " %s %d (row %d, sample %u: %.3g vs %.3g)",
                                           j < n ? first_block : second_block,
                                           j < n ? j : j - n, i, sample, Ja[k], Jn[k]);
                if (e > worst) {
                    worst = e;
                    worst_column = j;
                }
            }
        }
    }
    tap_ok(status == 0, "%s, %s: analytical and nd-central tangents evaluated %s", fm->name,
           file, status ? err.message : "");
    char column[64] = "";
    if (worst_column >= 0)
        snprintf(column, sizeof column, "%s column %d", worst_column < n ? first_block : second_block,
                 worst_column < n ? worst_column : worst_column - n);
    tap_below(worst, bound, "%s, %s (n = %d): analytical tangent of Q agrees with central "
              "differences at 3 random states: worst %.1e of the largest entry (%.3g) in %s",
              fm->name, file, n, worst, largest, column);
    tap_ok(wrong_count == 0, "%s, %s: every column of C and K within %g of the largest entry "
           "(%d entries beyond:%s)", fm->name, file, bound, wrong_count, wrong->str);
    g_string_free(wrong, TRUE);
    if (!status)
        check_ad(fm, m, file, n, (const double *const *)Jsample, pa.tangent->problem.pattern,
                 largest);
    for (unsigned sample = 0; sample < 3 && !status; ++sample)
        g_free(Jsample[sample]);
    g_free(Ja);
    g_free(Jn);
    mbs_formulation_free(fa);
    mbs_formulation_free(fn);
    mbs_model_free(m);
}

static void check_all_models(const Formulation *fm)
{
    GDir *d = g_dir_open(MODELS, 0, NULL);
    int count = 0;
    for (const char *f; d && (f = g_dir_read_name(d));)
        if (g_str_has_suffix(f, ".json")) {
            check_model(fm, MODELS, f);
            count++;
        }
    if (d)
        g_dir_close(d);
    tap_ok(count >= 7, "%s: every bundled model checked (%d)", fm->name, count);
    check_model(fm, TEST_MODELS, "all-force-kinds.json");
    check_model(fm, TEST_MODELS, "suspension-kinds.json");
}

int main(void)
{
    for (size_t i = 0; i < sizeof formulations / sizeof formulations[0]; ++i)
        check_all_models(&formulations[i]);
    return tap_done();
}
