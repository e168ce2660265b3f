/* The analytical tangent of penalty (engine/mbs_dynamics_derivatives.c) on every bundled model
 * and on a test model with a force element of every kind: -dQ/d[zd, z] against central
 * differences of Q at random states and velocities, column by column (so that a wrong column
 * names itself), and the refusals of formulations and elements without analytical derivatives.
 */
#include <math.h>
#include <string.h>

#include "esl-model-file.h"
#include "mbs_formulation.h"
#include "mbs_tangent_probe.h"
#include "tap.h"

#define MODELS ESLABON_SOURCE_DIR "/models/"
#define TEST_MODELS ESLABON_SOURCE_DIR "/tests/app/models/"

static MbsFormulation *penalty_with(const MbsModel *m, const char *method, MbsError *err)
{
    MbsSettings s;
    mbs_settings_defaults(&s);
    s.step = 1e-3;
    if (mbs_settings_set_for(&s, "penalty", "jacobian", method, err))
        return NULL;
    mbs_settings_set_number_for(&s, "penalty", "threads", 1, NULL);
    return mbs_formulation_new("penalty", m, &s, err);
}

/* A reproducible pseudo-random number in [-1, 1). */
static double uniform(unsigned *seed)
{
    *seed = *seed * 1103515245u + 12345u;
    return ((*seed >> 8) & 0xffffff) / (double)0x800000 - 1.0;
}

/* Puts the formulation at z + dz, zd random (the same for both given the seed). */
static int set_random_state(MbsFormulation *f, unsigned seed, MbsError *err)
{
    MbsCheckpoint c;
    if (mbs_checkpoint_init(&c, f, err))
        return MBS_FATAL;
    mbs_formulation_save(f, &c);
    int n = (c.size - 2) / 3;
    for (int i = 0; i < n; ++i) {
        c.state[i] += 0.4 * uniform(&seed);
        c.state[n + i] = 3.0 * uniform(&seed);
    }
    int status = mbs_formulation_restore(f, &c, err);
    mbs_checkpoint_free(&c);
    return status;
}

/* Analytical against central differences at three random states: the worst column, relative to
 * the largest entry of J (central differences: truncation and round-off near 1e-9 of it). */
static void check_model(const char *dir, const char *file)
{
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
    MbsFormulation *fa = penalty_with(m, "analytical", &err);
    MbsFormulation *fn = fa ? penalty_with(m, "nd-central", &err) : NULL;
    if (!fa || !fn) {
        tap_ok(0, "%s: penalty with analytical and nd-central: %s", file, err.message);
        mbs_formulation_free(fa);
        mbs_model_free(m);
        return;
    }
    int n = mbs_model_ncoords(m), worst_column = -1;
    double worst = 0.0, largest = 0.0;
    double *Ja = g_new0(double, 2 * (size_t)n * n + 1), *Jn = g_new0(double, 2 * (size_t)n * n + 1);
    int status = 0, wrong_count = 0;
    GString *wrong = g_string_new("");
    for (unsigned sample = 0; sample < 3 && !status; ++sample) {
        MbsTangentProbe pa, pn;
        status = set_random_state(fa, 17 + sample, &err) || set_random_state(fn, 17 + sample, &err) ||
                 mbs_penalty_tangent_probe(fa, &pa, &err) ||
                 mbs_penalty_tangent_probe(fn, &pn, &err);
        if (status)
            break;
        status = mbs_tangent_eval(pa.tangent, pa.x, pa.r0, Ja) ||
                 mbs_tangent_eval(pn.tangent, pn.x, pn.r0, Jn);
        double scale = 0.0;
        for (size_t k = 0; k < 2 * (size_t)n * n; ++k)
            scale = fmax(scale, fabs(Jn[k]));
        largest = fmax(largest, scale);
        for (int j = 0; j < 2 * n; ++j)
            for (int i = 0; i < n; ++i) {
                double e = fabs(Ja[i + (size_t)n * j] - Jn[i + (size_t)n * j]) / fmax(scale, 1e-300);
                if (e > 1e-7 && wrong_count++ < 4) /* names the first wrong columns */
                    g_string_append_printf(wrong, " %s %d (row %d, sample %u: %.3g vs %.3g)",
                                           j < n ? "C" : "K", j < n ? j : j - n, i, sample,
                                           Ja[i + (size_t)n * j], Jn[i + (size_t)n * j]);
                if (e > worst) {
                    worst = e;
                    worst_column = j;
                }
            }
    }
    tap_ok(status == 0, "%s: analytical and nd-central tangents evaluated %s", file,
           status ? err.message : "");
    char column[64] = "";
    if (worst_column >= 0)
        snprintf(column, sizeof column, "%s column %d", worst_column < n ? "C (zd)" : "K (z)",
                 worst_column < n ? worst_column : worst_column - n);
    tap_below(worst, 1e-7, "%s (n = %d): analytical -dQ/d[zd, z] agrees with central "
              "differences at 3 random states: worst %.1e of the largest entry (%.3g) in %s",
              file, n, worst, largest, column);
    tap_ok(wrong_count == 0, "%s: every column of C and K within 1e-7 of the largest entry "
           "(%d entries beyond:%s)", file, wrong_count, wrong->str);
    g_string_free(wrong, TRUE);
    g_free(Ja);
    g_free(Jn);
    mbs_formulation_free(fa);
    mbs_formulation_free(fn);
    mbs_model_free(m);
}

static void check_all_models(void)
{
    GDir *d = g_dir_open(MODELS, 0, NULL);
    int count = 0;
    for (const char *f; d && (f = g_dir_read_name(d));)
        if (g_str_has_suffix(f, ".json")) {
            check_model(MODELS, f);
            count++;
        }
    if (d)
        g_dir_close(d);
    tap_ok(count >= 7, "every bundled model checked (%d)", count);
    check_model(TEST_MODELS, "all-force-kinds.json");
}

int main(void)
{
    check_all_models();
    return tap_done();
}
