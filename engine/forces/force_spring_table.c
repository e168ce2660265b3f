/* Spring from a force-deflection table, with a linear damper, between two points:
 * tension = F(l - l0) + c l', the deflection d = l - l0 positive in extension (as a TSDA's
 * k (l - l0): the data of Chrono's vehicle models, e.g. the HMMWV's "Spring Curve Data", are
 * tables of this F, odd in d).
 *
 * F interpolates the pairs (d_i, F_i) by a piecewise cubic Hermite polynomial whose node slopes
 * keep a monotone table monotone (Fritsch & Carlson, SIAM J. Numer. Anal. 17 (1980) 238): the
 * slopes are the weighted harmonic means of the neighbouring secants of Fritsch & Butland (SIAM
 * J. Sci. Stat. Comput. 5 (1984) 300), zero where the secants change sign, which keep every
 * interval inside Fritsch-Carlson's monotonicity region (alpha, beta <= 3) without a second
 * pass, so a slope depends only on its neighbours and is computed where it is used (no state,
 * nothing stored). The end slopes are the shape-preserving three-point formula. Beyond the
 * table F continues along the end tangents (C1). V = integral of F from 0 to d, exact for the
 * cubic pieces; the derivative is exact. */
#include <math.h>
#include <string.h>

#include "mbs_force.h"
#include "mbs_settings.h" /* MBS_N_ */

static const MbsForceField fields[] = {
    {MBS_N_("table"), "m, N", offsetof(MbsForce, table), 2 * MBS_FORCE_TABLE_MAX,
     MBS_FIELD_REQUIRED | MBS_FIELD_TABLE},
    {MBS_N_("free_length"), "m", offsetof(MbsForce, natural_length), 1,
     MBS_FIELD_NONNEGATIVE | MBS_FIELD_DRAWN_LENGTH},
    {MBS_N_("damping"), "N·s/m", offsetof(MbsForce, damping), 1, MBS_FIELD_NONNEGATIVE},
    {0},
};

#define X(f, i) ((f)->table[2 * (i)])
#define Y(f, i) ((f)->table[2 * (i) + 1])

static double secant(const MbsForce *f, int i)
{
    return (Y(f, i + 1) - Y(f, i)) / (X(f, i + 1) - X(f, i));
}

static double sign(double x)
{
    return x > 0.0 ? 1.0 : x < 0.0 ? -1.0 : 0.0;
}

/* The slope at node i (Fritsch-Butland, with the three-point ends). */
static double node_slope(const MbsForce *f, int i)
{
    int n = f->ntable;
    if (n == 2)
        return secant(f, 0);
    if (i == 0 || i == n - 1) {
        /* h0, s0: the end interval; h1, s1: the next one in */
        int a = i == 0 ? 0 : n - 2, b = i == 0 ? 1 : n - 3;
        double h0 = X(f, a + 1) - X(f, a), h1 = X(f, b + 1) - X(f, b);
        double s0 = secant(f, a), s1 = secant(f, b);
        double m = ((2.0 * h0 + h1) * s0 - h0 * s1) / (h0 + h1);
        if (sign(m) != sign(s0))
            return 0.0;
        if (sign(s0) != sign(s1) && fabs(m) > 3.0 * fabs(s0))
            return 3.0 * s0;
        return m;
    }
    double h0 = X(f, i) - X(f, i - 1), h1 = X(f, i + 1) - X(f, i);
    double s0 = secant(f, i - 1), s1 = secant(f, i);
    if (s0 * s1 <= 0.0)
        return 0.0;
    double w0 = 2.0 * h1 + h0, w1 = h1 + 2.0 * h0;
    return (w0 + w1) / (w0 / s0 + w1 / s1);
}

/* The piece that holds d: -1 below the table, n - 1 above, else k with d_k <= d < d_k+1. */
static int piece(const MbsForce *f, double d)
{
    int n = f->ntable;
    if (d < X(f, 0))
        return -1;
    if (d >= X(f, n - 1))
        return n - 1;
    int k = 0;
    while (k + 2 < n && d >= X(f, k + 1))
        ++k;
    return k;
}

/* F(d) written once over the scalar type: Hermite basis in t = (d - d_k)/h. */
MBS_FORCE_LAW(evaluate,
    MbsLawScalar d = MBS_SUBC(in->value, f->natural_length), F;
    int n = f->ntable, k = piece(f, MBS_VALUE(d));
    if (k < 0) {
        F = MBS_ADDC(MBS_SCALE(node_slope(f, 0), MBS_SUBC(d, X(f, 0))), Y(f, 0));
    } else if (k == n - 1) {
        F = MBS_ADDC(MBS_SCALE(node_slope(f, n - 1), MBS_SUBC(d, X(f, n - 1))), Y(f, n - 1));
    } else {
        double h = X(f, k + 1) - X(f, k), m0 = node_slope(f, k), m1 = node_slope(f, k + 1);
        MbsLawScalar t = MBS_SCALE(1.0 / h, MBS_SUBC(d, X(f, k)));
        MbsLawScalar t2 = MBS_MUL(t, t), t3 = MBS_MUL(t2, t);
        /* h00 = 2t^3 - 3t^2 + 1, h10 = t^3 - 2t^2 + t, h01 = 3t^2 - 2t^3, h11 = t^3 - t^2 */
        MbsLawScalar h00 = MBS_ADDC(MBS_SUB(MBS_SCALE(2.0, t3), MBS_SCALE(3.0, t2)), 1.0);
        MbsLawScalar h10 = MBS_ADD(MBS_SUB(t3, MBS_SCALE(2.0, t2)), t);
        MbsLawScalar h01 = MBS_SUB(MBS_SCALE(3.0, t2), MBS_SCALE(2.0, t3));
        MbsLawScalar h11 = MBS_SUB(t3, t2);
        F = MBS_ADD(MBS_ADD(MBS_SCALE(Y(f, k), h00), MBS_SCALE(h * m0, h10)),
                    MBS_ADD(MBS_SCALE(Y(f, k + 1), h01), MBS_SCALE(h * m1, h11)));
    }
    out->tension = MBS_ADD(F, MBS_SCALE(f->damping, in->rate));
)

static void derivative(const MbsForce *f, const MbsForceInput *in, MbsForceDerivative *dd)
{
    double d = in->value - f->natural_length, slope;
    int n = f->ntable, k = piece(f, d);
    if (k < 0)
        slope = node_slope(f, 0);
    else if (k == n - 1)
        slope = node_slope(f, n - 1);
    else {
        double h = X(f, k + 1) - X(f, k), m0 = node_slope(f, k), m1 = node_slope(f, k + 1);
        double t = (d - X(f, k)) / h;
        /* dF/dd = (y0 h00' + h m0 h10' + y1 h01' + h m1 h11') / h */
        slope = (Y(f, k) * (6.0 * t * t - 6.0 * t) + h * m0 * (3.0 * t * t - 4.0 * t + 1.0) +
                 Y(f, k + 1) * (6.0 * t - 6.0 * t * t) + h * m1 * (3.0 * t * t - 2.0 * t)) /
                h;
    }
    dd->d_value = slope;
    dd->d_rate = f->damping;
}

/* The integral of F from d_k to d_k + t h on piece k (0 <= t <= 1). */
static double piece_integral(const MbsForce *f, int k, double t)
{
    double h = X(f, k + 1) - X(f, k), m0 = node_slope(f, k), m1 = node_slope(f, k + 1);
    double t2 = t * t, t3 = t2 * t, t4 = t3 * t;
    return h * (Y(f, k) * (t - t3 + 0.5 * t4) + h * m0 * (0.25 * t4 - 2.0 * t3 / 3.0 + 0.5 * t2) +
                Y(f, k + 1) * (t3 - 0.5 * t4) + h * m1 * (0.25 * t4 - t3 / 3.0));
}

/* G(d) = the integral of F from d_0 to d (negative below d_0). */
static double antiderivative(const MbsForce *f, double d)
{
    int n = f->ntable, k = piece(f, d);
    if (k < 0) {
        double s = d - X(f, 0);
        return Y(f, 0) * s + 0.5 * node_slope(f, 0) * s * s;
    }
    double G = 0.0;
    for (int i = 0; i < k && i < n - 1; ++i)
        G += piece_integral(f, i, 1.0);
    if (k == n - 1) {
        double s = d - X(f, n - 1);
        return G + Y(f, n - 1) * s + 0.5 * node_slope(f, n - 1) * s * s;
    }
    return G + piece_integral(f, k, (d - X(f, k)) / (X(f, k + 1) - X(f, k)));
}

static double energy(const MbsForce *f, const MbsForceInput *in)
{
    return antiderivative(f, in->value - f->natural_length) - antiderivative(f, 0.0);
}

static double power(const MbsForce *f, const MbsForceInput *in)
{
    return -f->damping * in->rate * in->rate;
}

static int check(const MbsForce *f, const char *name, MbsError *err)
{
    if (f->ntable < 2 || f->ntable > MBS_FORCE_TABLE_MAX)
        return mbs_error_set(err, MBS_FATAL,
                             "force '%s': table needs 2 to %d (deflection, force) pairs, not %d",
                             name, MBS_FORCE_TABLE_MAX, f->ntable);
    for (int i = 0; i < f->ntable; ++i) {
        if (!isfinite(X(f, i)) || !isfinite(Y(f, i)))
            return mbs_error_set(err, MBS_FATAL, "force '%s': table[%d] is not finite", name, i);
        if (i > 0 && !(X(f, i) > X(f, i - 1)))
            return mbs_error_set(err, MBS_FATAL,
                                 "force '%s': table deflections must increase (table[%d] %g "
                                 "after %g)", name, i, X(f, i), X(f, i - 1));
    }
    return 0;
}

const MbsForceClass mbs_force_spring_table = {
    .name = "spring_table",
    .description = MBS_N_("spring from a force-deflection table"),
    .type = MBS_FORCE_SPRING_TABLE,
    .geometry = MBS_FORCE_ON_LINE,
    .fields = fields,
    .state_dependent = 1,
    .drawing = MBS_FORCE_DRAW_SPRING,
    .evaluate = evaluate,
    .evaluate_dual = evaluate_dual,
    .energy = energy,
    .power = power,
    .derivative = derivative,
    .check = check,
};
