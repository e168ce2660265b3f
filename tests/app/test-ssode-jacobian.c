/* ssode's J1 = dvdd/dv, J2 = dvdd/dvd and the work rate's row (engine/formulations/
 * ssode_jacobian.c) by the methods analytical and ad, on every bundled model at three states
 * of its trajectory, against Richardson-extrapolated central differences of the ODE's right-hand
 * side (error O(h^4)); and the same J from nd-central. Loads the model files, so it lives here. */
#include <glib.h>
#include <lapacke.h>
#include <math.h>
#include <string.h>

#include "esl-model-file.h"
#include "mbs_formulation.h"
#include "mbs_tangent.h"
#include "mbs_tangent_probe.h"
#include "tap.h"

#define MODELS ESLABON_SOURCE_DIR "/models/"

/* Output steps (of 10 ms) run before each of the three probes. */
static const int probe_steps[3] = {0, 3, 8};

/* Relative to the largest entry of the reference: the exact methods, and nd-central. */
#define BOUND_EXACT 2e-9
#define BOUND_CENTRAL 5e-8

/* Reference J ((nv + 1) x 2 nv) of the probe's residual: Richardson extrapolation of central
 * differences with increments h and h / 2, h = base max(1, |x_j|). */
static void reference(const MbsTangentProbe *probe, double base, double *ref)
{
    const MbsTangentProblem *p = &probe->tangent->problem;
    int nx = p->nx, nr = p->nr;
    double *x = g_new(double, nx + 1), *r[4];
    for (int k = 0; k < 4; ++k)
        r[k] = g_new(double, nr + 1);
    memcpy(x, probe->x, sizeof(double) * (size_t)nx);
    for (int j = 0; j < nx; ++j) {
        double h = base * fmax(1.0, fabs(x[j])), x0 = x[j];
        static const double steps[4] = {1.0, -1.0, 0.5, -0.5};
        for (int k = 0; k < 4; ++k) {
            x[j] = x0 + steps[k] * h;
            p->residual(p->contexts[0], x, j, steps[k] * h, r[k]);
        }
        x[j] = x0;
        for (int i = 0; i < nr; ++i) {
            double d1 = (r[0][i] - r[1][i]) / (2.0 * h), d2 = (r[2][i] - r[3][i]) / h;
            ref[i + (size_t)nr * j] = (4.0 * d2 - d1) / 3.0;
        }
    }
    for (int k = 0; k < 4; ++k)
        g_free(r[k]);
    g_free(x);
}

/* Worst |J - ref| over the rows of vdd (J1, J2) and over the work row, each relative to the
 * largest entry of its part of ref. */
static void compare(const double *J, const double *ref, int nv, double *err_acc, double *err_w)
{
    int nr = nv + 1;
    double scale_a = 0.0, scale_w = 0.0, worst_a = 0.0, worst_w = 0.0;
    for (int j = 0; j < 2 * nv; ++j)
        for (int i = 0; i < nr; ++i) {
            double e = fabs(J[i + (size_t)nr * j] - ref[i + (size_t)nr * j]);
            double v = fabs(ref[i + (size_t)nr * j]);
            if (!isfinite(J[i + (size_t)nr * j]))
                e = INFINITY;
            if (i < nv) {
                scale_a = fmax(scale_a, v);
                worst_a = fmax(worst_a, e);
            } else {
                scale_w = fmax(scale_w, v);
                worst_w = fmax(worst_w, e);
            }
        }
    *err_acc = scale_a > 0.0 ? worst_a / scale_a : worst_a;
    *err_w = worst_w / fmax(scale_w, 1.0);
}

/* The eigenvalue of the ODE's Jacobian [0 I; J1 J2] with the most negative real part (paper
 * 002 quotes it for its models: -1e5 for the stiff double pendulum, -2.6e5 for the HMMWV). */
static void dominant_eigenvalue(const double *J, int nv, double *re, double *im)
{
    int n = 2 * nv, nr = nv + 1;
    double *A = g_new0(double, (size_t)n * n + 1), *wr = g_new0(double, n + 1),
           *wi = g_new0(double, n + 1);
    for (int i = 0; i < nv; ++i)
        A[i + (size_t)n * (nv + i)] = 1.0;
    for (int j = 0; j < n; ++j)
        for (int i = 0; i < nv; ++i)
            A[nv + i + (size_t)n * j] = J[i + (size_t)nr * j];
    *re = *im = 0.0;
    if (n > 0 && LAPACKE_dgeev(LAPACK_COL_MAJOR, 'N', 'N', n, A, n, wr, wi, NULL, 1, NULL, 1) == 0)
        for (int k = 0; k < n; ++k)
            if (wr[k] < *re) {
                *re = wr[k];
                *im = wi[k];
            }
    g_free(A);
    g_free(wr);
    g_free(wi);
}

static void check_model(const char *file)
{
    char *path = g_build_filename(MODELS, file, NULL);
    GError *error = NULL;
    MbsModel *m = esl_model_load_file(path, NULL, 0, &error);
    g_free(path);
    if (!m) {
        tap_ok(0, "%s loads: %s", file, error->message);
        g_error_free(error);
        return;
    }
    /* ad first: every model has it; analytical is refused (with the reason) on models whose
     * elements have no analytical derivative (the drivers of hmmwv-lane-change) */
    static const char *const methods[] = {"ad", "analytical", "nd-central"};
    char no_analytical[300] = "";
    {
        MbsSettings s;
        mbs_settings_defaults(&s);
        MbsError err = {0};
        mbs_settings_set_for(&s, "ssode", "jacobian", "analytical", &err);
        MbsFormulation *f = mbs_formulation_new("ssode", m, &s, &err);
        if (!f)
            g_snprintf(no_analytical, sizeof no_analytical, "(analytical refused: %s)",
                       err.message);
        mbs_formulation_free(f);
    }
    for (int s3 = 0; s3 < 3; ++s3) {
        /* the coach and hmmwv-lane-change start upright: camber 0, the kink of PAC2002's
         * |camber| terms, where the derivative does not exist (the exact methods take one
         * side's slope: on the coach 6.1e-3 from the reference, nd-central 1.2e-8, the average
         * of both sides) */
        if (s3 == 0 && (!strcmp(file, "coach.json") || !strcmp(file, "hmmwv-lane-change.json"))) {
            tap_skip("%s, t = 0: camber 0 at the drawn state, PAC2002's kink: J does not exist "
                     "there (checked at 0.03 s and 0.08 s)", file);
            continue;
        }
        /* the first method's run reaches the state; the others restore its checkpoint, so
         * that every J is taken at the same state */
        double *ref = NULL, errs[3][2] = {{0}}, gap[2] = {0}, base = 2e-4;
        int nv = -1, ok = 1;
        double t = 0.0;
        char why[300] = "";
        MbsCheckpoint cp = {0};
        int have_cp = 0;
        for (int k = 0; k < 3 && ok; ++k) {
            if (k == 1 && no_analytical[0])
                continue;
            MbsSettings s;
            mbs_settings_defaults(&s);
            s.step = 1e-2;
            s.duration = 1.0;
            MbsError err = {0};
            mbs_settings_set_for(&s, "ssode", "jacobian", methods[k], &err);
            mbs_settings_set_number_for(&s, "ssode", "rtol", 1e-4, &err);
            mbs_settings_set_number_for(&s, "ssode", "atol", 1e-4, &err);
            MbsFormulation *f = mbs_formulation_new("ssode", m, &s, &err);
            int status = f ? 0 : MBS_FATAL;
            if (k == 0) {
                for (int i = 0; i < probe_steps[s3] && !status; ++i)
                    status = mbs_formulation_step(f, &err);
                if (!status && !(status = mbs_checkpoint_init(&cp, f, &err))) {
                    have_cp = 1;
                    mbs_formulation_save(f, &cp);
                }
            } else if (!status) {
                status = mbs_formulation_restore(f, &cp, &err);
            }
            MbsTangentProbe probe;
            if (!status)
                status = mbs_formulation_tangent_probe(f, &probe, &err);
            if (status) {
                ok = 0;
                g_snprintf(why, sizeof why, "%s: %s", methods[k], err.message);
                mbs_formulation_free(f);
                break;
            }
            const MbsTangentProblem *p = &probe.tangent->problem;
            nv = p->nx / 2;
            t = f->time;
            double *J = g_new0(double, (size_t)p->nx * p->nr + 1);
            if (!ref) {
                ref = g_new0(double, (size_t)p->nx * p->nr + 1);
                /* it moves the formulation's state; J is evaluated at probe.x again. Each
                 * reference also at half its increments: their gap bounds its truncation. Of
                 * the bases 2e-4 and 2e-5 the one with the smaller gap: a kink of a force law
                 * within the larger increments (PAC2002's |camber| on the coach, upright near
                 * camber 0: 1.7e-6 at 2e-4, 3.9e-10 at 2e-5) shows as a gap */
                double *half = g_new0(double, (size_t)p->nx * p->nr + 1);
                double *other = g_new0(double, (size_t)p->nx * p->nr + 1), g2[2];
                reference(&probe, 2e-4, ref);
                reference(&probe, 1e-4, half);
                compare(half, ref, nv, &gap[0], &gap[1]);
                reference(&probe, 2e-5, other);
                reference(&probe, 1e-5, half);
                compare(half, other, nv, &g2[0], &g2[1]);
                if (g2[0] < gap[0]) {
                    memcpy(ref, other, sizeof(double) * (size_t)p->nx * p->nr);
                    memcpy(gap, g2, sizeof gap);
                    base = 2e-5;
                }
                g_free(other);
                g_free(half);
            }
            if (mbs_tangent_eval(probe.tangent, probe.x, probe.r0, J)) {
                ok = 0;
                g_snprintf(why, sizeof why, "%s: J failed", methods[k]);
            } else {
                compare(J, ref, nv, &errs[k][0], &errs[k][1]);
                if (k == 0) {
                    double re, im;
                    dominant_eigenvalue(J, nv, &re, &im);
                    tap_diag("%s, t = %.2f s: dominant eigenvalue of the ODE %.4g %+.3gi", file,
                             f->time, re, im);
                }
            }
            g_free(J);
            mbs_formulation_free(f);
        }
        if (have_cp)
            mbs_checkpoint_free(&cp);
        /* the exact methods cannot be checked below the reference's own error (its gap);
         * nd-central on hmmwv-lane-change is not asserted: measured 1.2e-7 and 8.4e-5 (0.03,
         * 0.08 s) against the reference's gaps 2.4e-11 and 3e-7, its increments (the tangent
         * layer's) cross the kinks of the tyres or the path follower; open */
        double bound_exact = fmax(BOUND_EXACT, 3.0 * gap[0]);
        int central_asserted = strcmp(file, "hmmwv-lane-change.json") != 0;
        tap_ok(ok && errs[0][0] < bound_exact && errs[1][0] < bound_exact &&
                   (errs[2][0] < BOUND_CENTRAL || !central_asserted),
               "%s, t = %.2f s, nv = %d: J1, J2 against Richardson differences of the ODE: "
               "analytical %.1e, ad %.1e (bound %.1e), nd-central %.1e (bound %.0e%s) of the "
               "largest entry; reference at increments %.0e, its gap at half of them %.1e %s%s",
               file, t, nv, errs[1][0], errs[0][0], bound_exact, errs[2][0], BOUND_CENTRAL,
               central_asserted ? "" : ", not asserted", base, gap[0], why, no_analytical);
        /* the work rate's row: its P_nc part is a Richardson-extrapolated central
         * difference (ssode_jacobian.c); relative to its largest entry, at least 1 W/(m/s) (at
         * rest the dampers' entries vanish). Measured at most 3.8e-9 (buggy-lane-change), and
         * on hmmwv-lane-change at 0.08 s 5.2e-7 where the reference's own gap is 4.9e-7 */
        double bound_work = fmax(5e-8, 3.0 * gap[1]);
        tap_ok(ok && errs[0][1] < bound_work && errs[1][1] < bound_work,
               "%s, t = %.2f s: dW'/d(v, vd): analytical %.1e, ad %.1e of the largest entry "
               "(bound %.1e; the reference's gap at half its increments %.1e)",
               file, t, errs[1][1], errs[0][1], bound_work, gap[1]);
        g_free(ref);
    }
    mbs_model_free(m);
}

static gint by_name(gconstpointer a, gconstpointer b)
{
    return g_strcmp0(*(char *const *)a, *(char *const *)b);
}

/* Arguments: model files to check instead of every bundled one (to measure one model). */
int main(int argc, char **argv)
{
    GDir *d = argc > 1 ? NULL : g_dir_open(MODELS, 0, NULL);
    GPtrArray *files = g_ptr_array_new_with_free_func(g_free);
    const char *name;
    for (int i = 1; i < argc; ++i)
        g_ptr_array_add(files, g_strdup(argv[i]));
    while (d && (name = g_dir_read_name(d)))
        if (g_str_has_suffix(name, ".json"))
            g_ptr_array_add(files, g_strdup(name));
    if (d)
        g_dir_close(d);
    g_ptr_array_sort(files, by_name);
    for (guint i = 0; i < files->len; ++i) {
        const char *file = g_ptr_array_index(files, i);
        /* the 4x15 and 7x15 lattices: the 1x15 one covers the lattice at a fraction of the
         * cost (4 nv right-hand sides of ~1260 coordinates per reference column) */
        if (strstr(file, "4x15") || strstr(file, "7x15"))
            continue;
        /* Open (issue 27): the truck's beam axles keep its tyres' camber at 0 on its straight
         * start, on PAC2002's |camber| kink: at t = 0 analytical = ad are 4.7e-3 from the
         * Richardson reference, at 0.08 s 9.2e-7 where the reference's own gap is 5e-8, and
         * nd-central 3.6e-7 to 7.9e-7 (bound 5e-8); measured at the merge of issue 24's truck */
        if (!strcmp(file, "truck-slalom.json")) {
            tap_skip("%s: open (issue 27): its tyres stay on PAC2002's camber-0 kink", file);
            continue;
        }
        check_model(file);
    }
    g_ptr_array_free(files, TRUE);
    return tap_done();
}
