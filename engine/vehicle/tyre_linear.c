/* The "linear" tyre law: linear slip stiffnesses with a friction limit, a reference and a
 * fallback (no property file).
 *
 * With V = sqrt(Vcx^2 + v_low^2) (the low-speed treatment: slips stay finite at rest, and below
 * v_low the slip forces act as dampers on the slip velocities, as VXLOW does in a .tir file):
 *   kappa = -(Vcx - Omega Re) / V,   alpha = Vcy / V   (mbs_tyre_model.h's signs, linearised)
 *   F0 = (C_kappa kappa, -C_alpha alpha),   L = mu mu_road Fz,
 * (C_alpha > 0: Fy opposes the lateral slip, as K_ya < 0 does in the .tir files' W axes)
 *   (Fx, Fy) = F0 while |F0| <= L, else F0 L / |F0|
 * (linear up to the friction circle, then sliding along F0). Linear, not smoothed: a difference
 * quotient of a rolling wheel is then exact (test-tangent-ad perturbs wheel angles by 1e-4 |z|).
 * Mx = My = Mz = 0. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mbs_model.h"
#include "mbs_settings.h"
#include "mbs_tyre_model.h"

_Static_assert(MBS_TYRE_LINEAR_COUNT == MBS_FORCE_TYRE_NUMBERS,
               "MbsForce.tyre holds the linear law's numbers");

struct MbsTyreData {
    double v[MBS_TYRE_LINEAR_COUNT];
};

static const double defaults[MBS_TYRE_LINEAR_COUNT] = {
    [MBS_TYRE_LINEAR_RADIUS] = 0.3,     [MBS_TYRE_LINEAR_STIFFNESS] = 2e5,
    [MBS_TYRE_LINEAR_DAMPING] = 500.0,  [MBS_TYRE_LINEAR_CKAPPA] = 5e4,
    [MBS_TYRE_LINEAR_CALPHA] = 4e4,     [MBS_TYRE_LINEAR_MU] = 1.0,
    [MBS_TYRE_LINEAR_ROLLING] = 0.0,    [MBS_TYRE_LINEAR_VLOW] = 1.0,
};

static void vertical(const MbsTyreData *d, const double *scale, double *radius,
                     double *stiffness, double *damping)
{
    (void)scale; /* no scaling factors: its numbers are the wheel's fields */
    *radius = d->v[MBS_TYRE_LINEAR_RADIUS];
    *stiffness = d->v[MBS_TYRE_LINEAR_STIFFNESS];
    *damping = d->v[MBS_TYRE_LINEAR_DAMPING];
}

static void evaluate(const MbsTyreData *data, const MbsTyreInput *in, MbsTyreOutput *out,
                     MbsTyreDerivative *d)
{
    const double *p = data->v;
    double Re = p[MBS_TYRE_LINEAR_ROLLING] > 0.0 ? p[MBS_TYRE_LINEAR_ROLLING]
                                                 : p[MBS_TYRE_LINEAR_RADIUS];
    double vl = p[MBS_TYRE_LINEAR_VLOW] > 0.0 ? p[MBS_TYRE_LINEAR_VLOW] : 1e-3;
    double Ck = p[MBS_TYRE_LINEAR_CKAPPA], Ca = p[MBS_TYRE_LINEAR_CALPHA];
    double Fz = in->in[MBS_TYRE_IN_FZ], vx = in->in[MBS_TYRE_IN_VX], vy = in->in[MBS_TYRE_IN_VY];
    double om = in->in[MBS_TYRE_IN_OMEGA];
    double mu = p[MBS_TYRE_LINEAR_MU] * in->mu_scale;
    memset(out, 0, sizeof *out);
    if (d)
        memset(d, 0, sizeof *d);
    double V = sqrt(vx * vx + vl * vl), vsx = vx - om * Re;
    double kappa = -vsx / V, alpha = vy / V;
    out->kappa = kappa;
    out->alpha = alpha;
    double L = mu * Fz;
    if (!(Fz > 0.0) || !(L > 0.0))
        return;
    double F0[2] = {Ck * kappa, -Ca * alpha}, s = sqrt(F0[0] * F0[0] + F0[1] * F0[1]);
    int sliding = s > L;
    double g = sliding ? L / s : 1.0;
    out->out[MBS_TYRE_OUT_FX] = g * F0[0];
    out->out[MBS_TYRE_OUT_FY] = g * F0[1];
    if (!d)
        return;
    /* dF0 / d(in): kappa_vx = -1/V + vsx vx/V^3, kappa_omega = Re/V; -alpha_vx = vy vx/V^3,
     * -alpha_vy = -1/V. */
    double V3 = V * V * V, dF0[2][MBS_TYRE_IN_COUNT] = {{0}};
    dF0[0][MBS_TYRE_IN_VX] = Ck * (-1.0 / V + vsx * vx / V3);
    dF0[0][MBS_TYRE_IN_OMEGA] = Ck * Re / V;
    dF0[1][MBS_TYRE_IN_VX] = Ca * vy * vx / V3;
    dF0[1][MBS_TYRE_IN_VY] = -Ca / V;
    /* sliding: F = L F0 / s, dF = (L / s) (dF0 - F0 (F0 . dF0) / s^2) + (F0 / s) dL,
     * dL = mu dFz */
    for (int a = 0; a < 2; ++a)
        for (int j = 0; j < MBS_TYRE_IN_COUNT; ++j) {
            if (!sliding) {
                d->d[a][j] = dF0[a][j];
                continue;
            }
            double dL = j == MBS_TYRE_IN_FZ ? mu : 0.0;
            double proj = F0[0] * dF0[0][j] + F0[1] * dF0[1][j];
            d->d[a][j] = g * (dF0[a][j] - F0[a] * proj / (s * s)) + F0[a] / s * dL;
        }
}

static MbsTyreData *parse(const char *text, size_t size, const char *file, MbsError *err)
{
    (void)size;
    if (text)
        return mbs_error_set(err, MBS_FATAL, "%s: the linear tyre law reads no property file "
                             "(its numbers are the wheel's fields)", file ? file : "tyre"),
               NULL;
    MbsTyreData *d = malloc(sizeof *d);
    if (!d)
        return mbs_error_set(err, MBS_FATAL, "out of memory"), NULL;
    memcpy(d->v, defaults, sizeof defaults);
    return d;
}

static MbsTyreData *copy(const MbsTyreData *data)
{
    MbsTyreData *d = malloc(sizeof *d);
    if (d)
        *d = *data;
    return d;
}

static void free_data(MbsTyreData *data) { free(data); }

const MbsTyreModelClass mbs_tyre_linear = {
    .name = "linear",
    .description = MBS_N_("linear slip stiffnesses with a friction limit"),
    .vertical = vertical,
    .evaluate = evaluate,
    .parse = parse,
    .copy = copy,
    .free_data = free_data,
};

/* The defaults of the linear law's numbers (the wheel element's field defaults). */
const double *mbs_tyre_linear_defaults(void) { return defaults; }
