/* Suspension force elements (issue 24): spring_table, damper_bilinear, bump_stop,
 * antiroll_bar. Each law against an independent reference: the table at its nodes, monotone
 * between them, its energy against Simpson quadrature of the force, its derivative against
 * central differences; closed forms for the damper, the stop and the bar; the checks that
 * refuse bad numbers. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "mbs_force.h"
#include "tap.h"

/* The HMMWV's front spring ("Spring Curve Data" and "Free Length" of
 * /work/shared/vehicles/hmmwv/HMMWV_DoubleWishboneFront.json; Chrono's data, BSD-3). */
static const double hmmwv[21][2] = {
    {-0.2, -322095.536}, {-0.18, -240521.166}, {-0.16, -174535.686}, {-0.14, -122406.996},
    {-0.12, -82402.997}, {-0.1, -52791.592},   {-0.08, -31840.681},  {-0.06, -17818.165},
    {-0.04, -8991.945},  {-0.02, -3629.923},   {0, 0},               {0.02, 3629.923},
    {0.04, 8991.945},    {0.06, 17818.165},    {0.08, 31840.681},    {0.1, 52791.592},
    {0.12, 82402.997},   {0.14, 122406.996},   {0.16, 174535.686},   {0.18, 240521.166},
    {0.2, 322095.536}};

static MbsForce table_spring(const double (*t)[2], int n, double free_length, double damping)
{
    MbsForce f = {.type = MBS_FORCE_SPRING_TABLE, .natural_length = free_length,
                  .damping = damping, .ntable = n};
    for (int i = 0; i < n; ++i)
        f.table[2 * i] = t[i][0], f.table[2 * i + 1] = t[i][1];
    return f;
}

static double tension(const MbsForce *f, double l, double rate)
{
    MbsForceInput in = {.value = l, .rate = rate};
    MbsForceOutput out;
    mbs_force_class(f->type)->evaluate(f, &in, &out);
    return out.tension;
}

static double energy(const MbsForce *f, double l)
{
    MbsForceInput in = {.value = l};
    return mbs_force_class(f->type)->energy(f, &in);
}

/* d tension/d l and d tension/d l' from the class, and from the dual law. */
static void slopes(const MbsForce *f, double l, double rate, double an[2], double dual[2])
{
    const MbsForceClass *c = mbs_force_class(f->type);
    MbsForceInput in = {.value = l, .rate = rate};
    MbsForceDerivative d = {0};
    c->derivative(f, &in, &d);
    an[0] = d.d_value, an[1] = d.d_rate;
    MbsForceInputDual ind = {.value = mbs_dual_constant(l), .rate = mbs_dual_constant(rate)};
    ind.value.d[0] = ind.rate.d[1] = 1.0;
    MbsForceOutputDual outd;
    c->evaluate_dual(f, &ind, &outd);
    dual[0] = outd.tension.d[0], dual[1] = outd.tension.d[1];
}

/* Simpson's rule for the integral of F(d) = tension at l0 + d, no rate, from 0 to d. */
static double simpson(const MbsForce *f, double d)
{
    int n = 20000; /* even */
    double h = d / n, s = 0.0;
    for (int i = 0; i <= n; ++i) {
        double w = i == 0 || i == n ? 1.0 : i % 2 ? 4.0 : 2.0;
        s += w * tension(f, f->natural_length + i * h, 0.0);
    }
    return s * h / 3.0;
}

static void check_spring_table(void)
{
    MbsForce f = table_spring(hmmwv, 21, 0.339, 1000.0);
    const MbsForceClass *c = mbs_force_class(f.type);
    MbsError err = {0};
    tap_ok(c && c->geometry == MBS_FORCE_ON_LINE && c->check(&f, "spring", &err) == 0,
           "spring_table: a line element; the HMMWV table passes its check");
    /* at the nodes: the table (no rate) */
    double worst = 0.0;
    for (int i = 0; i < 21; ++i)
        worst = fmax(worst, fabs(tension(&f, 0.339 + hmmwv[i][0], 0.0) - hmmwv[i][1]));
    tap_below(worst, 1e-6, "spring_table: the law at the 21 nodes is the table (worst %.1e N)",
              worst);
    /* monotone between nodes (and beyond them), sampled finely */
    int violations = 0;
    double previous = -INFINITY;
    for (int i = 0; i <= 5000; ++i) {
        double F = tension(&f, 0.339 - 0.25 + 0.5 * i / 5000.0, 0.0);
        violations += !(F > previous);
        previous = F;
    }
    tap_ok(violations == 0, "spring_table: increasing on 5001 points of [-0.25, 0.25] m "
           "(%d decreasing steps)", violations);
    /* damping adds c l' */
    tap_close(tension(&f, 0.339 + 0.05, 0.3) - tension(&f, 0.339 + 0.05, 0.0), 300.0, 1e-9,
              "spring_table: damping adds c l' (c = 1000 N·s/m, l' = 0.3 m/s)");
    /* energy against quadrature, inside and beyond the table */
    const double ds[] = {0.013, -0.057, 0.11, 0.1999, -0.2, 0.23, -0.26};
    worst = 0.0;
    for (size_t k = 0; k < sizeof ds / sizeof ds[0]; ++k) {
        double q = simpson(&f, ds[k]), V = energy(&f, 0.339 + ds[k]);
        worst = fmax(worst, fabs(V - q) / fmax(1.0, fabs(q)));
    }
    tap_below(worst, 1e-9, "spring_table: energy = Simpson quadrature of the force at 7 "
              "deflections in and beyond the table (worst relative %.1e)", worst);
    tap_close(energy(&f, 0.339), 0.0, 1e-12, "spring_table: no energy at the free length");
    /* derivative against central differences, and the dual law */
    double worst_an = 0.0, worst_dual = 0.0, largest = 0.0;
    for (int i = 0; i < 200; ++i) {
        double l = 0.339 - 0.24 + 0.48 * (i + 0.37) / 200.0, h = 1e-7, an[2], dual[2];
        double fd = (tension(&f, l + h, 0.2) - tension(&f, l - h, 0.2)) / (2 * h);
        slopes(&f, l, 0.2, an, dual);
        largest = fmax(largest, fabs(fd));
        worst_an = fmax(worst_an, fmax(fabs(an[0] - fd), fabs(an[1] - 1000.0)));
        worst_dual = fmax(worst_dual, fmax(fabs(dual[0] - an[0]), fabs(dual[1] - an[1])));
    }
    tap_below(worst_an / largest, 1e-7, "spring_table: derivative = central differences at 200 "
              "lengths (worst %.1e of the largest slope %.4g N/m)", worst_an / largest, largest);
    tap_below(worst_dual / largest, 1e-12, "spring_table: dual law = derivative (worst %.1e)",
              worst_dual / largest);
    /* C1 at a node: the slopes either side agree */
    double an_l[2], an_r[2], dual[2];
    slopes(&f, 0.339 + 0.1 - 1e-12, 0, an_l, dual);
    slopes(&f, 0.339 + 0.1, 0, an_r, dual);
    tap_close(an_l[0], an_r[0], 1e-6 * an_r[0], "spring_table: C1 at a node (%.6g N/m both sides)",
              an_r[0]);

    /* a table with a flat part and a steep step (where a plain cubic spline overshoots) */
    static const double steps[6][2] = {{0, 0}, {1, 0}, {2, 0.1}, {3, 5}, {4, 5.1}, {5, 10}};
    MbsForce g = table_spring(steps, 6, 0.0, 0.0);
    violations = 0;
    previous = -INFINITY;
    double flat = 0.0;
    for (int i = 0; i <= 5000; ++i) {
        double F = tension(&g, 5.0 * i / 5000.0, 0.0);
        violations += F < previous;
        previous = F;
        if (i <= 1000)
            flat = fmax(flat, fabs(F));
    }
    tap_ok(violations == 0 && flat == 0.0, "spring_table: a monotone table with a flat part and "
           "a step stays monotone and flat where it is (%d decreasing steps, %.1e on the flat)",
           violations, flat);
    /* a linear table is the linear spring */
    static const double linear[3][2] = {{-0.1, -500}, {0.0, 0.0}, {0.3, 1500}};
    MbsForce lin = table_spring(linear, 3, 0.5, 0.0);
    tap_close(tension(&lin, 0.5 + 0.17, 0) + tension(&lin, 0.5 - 0.4, 0), 5000 * (0.17 - 0.4),
              1e-9, "spring_table: a linear table gives k (l - l0), extrapolated too");
    /* refusals */
    MbsForce bad = table_spring(linear, 3, 0.5, 0.0);
    bad.table[2] = -0.2;
    err = (MbsError){0};
    tap_ok(c->check(&bad, "front spring", &err) != 0 && strstr(err.message, "front spring") &&
               strstr(err.message, "increase"),
           "spring_table: deflections that do not increase refused: %s", err.message);
    bad.ntable = 1;
    err = (MbsError){0};
    tap_ok(c->check(&bad, "front spring", &err) != 0 && strstr(err.message, "32"),
           "spring_table: one pair refused: %s", err.message);
}

static void check_damper(void)
{
    MbsForce f = {.type = MBS_FORCE_DAMPER_BILINEAR, .compression_damping = 4000,
                  .compression_damping_high = 1500, .compression_knee = 0.1,
                  .rebound_damping = 9000, .rebound_damping_high = 3000, .rebound_knee = 0.2};
    const MbsForceClass *c = mbs_force_class(f.type);
    /* closed forms on each branch */
    double F1 = tension(&f, 0.4, 0.1), F2 = tension(&f, 0.4, 0.5), F3 = tension(&f, 0.4, -0.05),
           F4 = tension(&f, 0.4, -0.3);
    tap_ok(fabs(F1 - 900) < 1e-9 && fabs(F2 - (1800 + 900)) < 1e-9 && fabs(F3 + 200) < 1e-9 &&
               fabs(F4 - (-400 - 300)) < 1e-9,
           "damper_bilinear: rebound 900, 2700 N, compression -200, -700 N (closed forms)");
    /* continuous at the knees */
    double jr = tension(&f, 0, 0.2 + 1e-12) - tension(&f, 0, 0.2);
    double jc = tension(&f, 0, -0.1 - 1e-12) - tension(&f, 0, -0.1);
    tap_below(fabs(jr) + fabs(jc), 1e-7, "damper_bilinear: continuous at both knees");
    /* power = -F v */
    MbsForceInput in = {.value = 0.4, .rate = -0.3};
    tap_close(c->power(&f, &in), -(-700) * -0.3, 1e-9,
              "damper_bilinear: power = -F v = %.4g W (dissipates)", c->power(&f, &in));
    tap_ok(c->energy(&f, &in) == 0.0, "damper_bilinear: no potential");
    /* derivative against central differences away from the knees, and its branch at them */
    const double rates[] = {0.13, 0.45, -0.04, -0.6, 1e-3};
    double worst = 0.0, an[2], dual[2];
    for (size_t k = 0; k < sizeof rates / sizeof rates[0]; ++k) {
        double h = 1e-7, fd = (tension(&f, 0.4, rates[k] + h) - tension(&f, 0.4, rates[k] - h)) /
                              (2 * h);
        slopes(&f, 0.4, rates[k], an, dual);
        worst = fmax(worst, fmax(fabs(an[1] - fd), fabs(dual[1] - an[1])) + fabs(an[0]));
    }
    tap_below(worst, 1e-5, "damper_bilinear: derivative = central differences on all four "
              "branches, dual law the same (worst %.1e N·s/m)", worst);
    double at[4];
    slopes(&f, 0.4, 0.2, an, dual), at[0] = an[1];
    slopes(&f, 0.4, -0.1, an, dual), at[1] = an[1];
    slopes(&f, 0.4, 0.0, an, dual), at[2] = an[1];
    slopes(&f, 0.4, 0.2 + 1e-9, an, dual), at[3] = an[1];
    tap_ok(at[0] == 9000 && at[1] == 4000 && at[2] == 9000 && at[3] == 3000,
           "damper_bilinear: at a knee the low-speed slope (%g, %g), at v = 0 the rebound one "
           "(%g), just past the knee the high one (%g)", at[0], at[1], at[2], at[3]);
}

static void check_bump_stop(void)
{
    MbsForce f = {.type = MBS_FORCE_BUMP_STOP, .min_length = 0.15, .max_length = 0.3,
                  .stiffness = 5e5, .damping = 2e3};
    const MbsForceClass *c = mbs_force_class(f.type);
    tap_ok(tension(&f, 0.2, 1.0) == 0.0 && tension(&f, 0.2, -1.0) == 0.0 &&
               energy(&f, 0.2) == 0.0,
           "bump_stop: nothing inside [min, max]");
    tap_close(tension(&f, 0.14, 0.0), -5e5 * 0.01, 1e-9,
              "bump_stop: below min it pushes k p = 5000 N");
    tap_close(tension(&f, 0.32, 0.0), 5e5 * 0.02, 1e-9,
              "bump_stop: above max it pulls k p = 10000 N");
    tap_close(tension(&f, 0.14, -0.5), -(5e3 + 1e3), 1e-9,
              "bump_stop: closing faster adds damping (6000 N)");
    tap_ok(tension(&f, 0.14, 3.0) == 0.0 && tension(&f, 0.32, -6.0) == 0.0,
           "bump_stop: never holds the points at the limit (separating fast: 0)");
    /* conservative part = dV/dl, power = dV/dt - tension l' */
    double h = 1e-7;
    double dV = (energy(&f, 0.14 + h) - energy(&f, 0.14 - h)) / (2 * h);
    tap_close(tension(&f, 0.14, 0.0), dV, 1e-5, "bump_stop: tension = dV/dl (%.6g)", dV);
    MbsForceInput in = {.value = 0.14, .rate = -0.5};
    tap_close(c->power(&f, &in), -2e3 * 0.25, 1e-6, "bump_stop: power -c l'^2 while acting");
    double an[2], dual[2];
    slopes(&f, 0.14, -0.5, an, dual);
    double fd = (tension(&f, 0.14 + h, -0.5) - tension(&f, 0.14 - h, -0.5)) / (2 * h);
    tap_ok(fabs(an[0] - fd) < 1e-3 && an[1] == 2e3 && dual[0] == an[0] && dual[1] == an[1],
           "bump_stop: derivative k = %.6g (differences %.6g), c; dual the same", an[0], fd);
    slopes(&f, 0.14, 3.0, an, dual);
    tap_ok(an[0] == 0 && an[1] == 0 && dual[0] == 0 && dual[1] == 0,
           "bump_stop: clamped, no derivative");
    /* with a transition: C1 at contact, energy = quadrature, derivative = differences */
    MbsForce soft = f;
    soft.transition = 0.01;
    double t0 = tension(&soft, 0.15 - 1e-9, 0.0), t1 = tension(&soft, 0.15 - 0.004, -0.3);
    tap_close(t1, -(5e5 * 0.004 * 0.004 / 0.02 + 2e3 * 0.4 * 0.3), 1e-9,
              "bump_stop, transition 0.01 m: at p = 4 mm P = k p^2/(2 delta) + c (p/delta) p' = "
              "%.6g N", -t1);
    slopes(&soft, 0.15 - 1e-9, 0.0, an, dual);
    /* at p = 1e-9 m: stiffness k p/delta = 0.05 N/m, damping c p/delta = 2e-4 N·s/m */
    tap_ok(fabs(t0) < 1e-8 && fabs(an[0] - 0.05) < 1e-9 && fabs(an[1] - 2e-4) < 1e-12,
           "bump_stop, transition: force, stiffness and damping vanish at contact (C1: %.1e N, "
           "%.1e N/m, %.1e N·s/m)", t0, an[0], an[1]);
    double worst = 0.0;
    const double ls[] = {0.147, 0.143, 0.13, 0.305, 0.33};
    for (size_t k = 0; k < sizeof ls / sizeof ls[0]; ++k) {
        double fdl = (tension(&soft, ls[k] + h, 0.2) - tension(&soft, ls[k] - h, 0.2)) / (2 * h);
        double fdr = (tension(&soft, ls[k], 0.2 + h) - tension(&soft, ls[k], 0.2 - h)) / (2 * h);
        slopes(&soft, ls[k], 0.2, an, dual);
        worst = fmax(worst, fmax(fabs(an[0] - fdl) / 5e5, fabs(an[1] - fdr) / 2e3));
        worst = fmax(worst, fmax(fabs(dual[0] - an[0]) / 5e5, fabs(dual[1] - an[1]) / 2e3));
        /* elastic part: tension at no rate = dV/dl */
        double dVl = (energy(&soft, ls[k] + h) - energy(&soft, ls[k] - h)) / (2 * h);
        worst = fmax(worst, fabs(tension(&soft, ls[k], 0.0) - dVl) / 5e3);
    }
    tap_below(worst, 1e-6, "bump_stop, transition: derivative and dual = central differences, "
              "tension = dV/dl, inside and beyond the transition (worst %.1e relative)", worst);
    MbsError err = {0};
    MbsForce bad = f;
    bad.max_length = 0.1;
    tap_ok(c->check(&bad, "stop", &err) != 0 && strstr(err.message, "stop"),
           "bump_stop: max below min refused: %s", err.message);
}

static void check_antiroll_bar(void)
{
    /* a solid steel bar: d = 25 mm, torsion length 1.1 m, G = 79.3 GPa:
     * k = G pi d^4 / (32 L) = 2764.7 N·m/rad */
    MbsForce f = {.type = MBS_FORCE_ANTIROLL_BAR, .bar_diameter = 0.025, .bar_length = 1.1,
                  .shear_modulus = 79.3e9, .damping = 10.0};
    const MbsForceClass *c = mbs_force_class(f.type);
    double k = 79.3e9 * 3.141592653589793 * pow(0.025, 4) / 32.0 / 1.1;
    MbsForceInput in = {.value = 0.05};
    MbsForceOutput out;
    c->evaluate(&f, &in, &out);
    tap_ok(c->geometry == MBS_FORCE_ON_JOINT, "antiroll_bar: acts on a joint");
    tap_close(out.generalized, -k * 0.05, 1e-9 * k,
              "antiroll_bar: torque = -k x twist, k = G J / L = %.6g N·m/rad", k);
    tap_close(c->energy(&f, &in), 0.5 * k * 0.05 * 0.05, 1e-12 * k, "antiroll_bar: V = k phi^2/2");
    f.stiffness = 500.0;
    c->evaluate(&f, &in, &out);
    tap_close(out.generalized, -(k + 500) * 0.05, 1e-9 * k,
              "antiroll_bar: stiffness adds to the bar's own");
    MbsError err = {0};
    MbsForce none = {.type = MBS_FORCE_ANTIROLL_BAR, .bar_diameter = 0.02};
    tap_ok(c->check(&none, "front bar", &err) != 0 && strstr(err.message, "front bar"),
           "antiroll_bar: no stiffness refused: %s", err.message);
}

int main(void)
{
    check_spring_table();
    check_damper();
    check_bump_stop();
    check_antiroll_bar();
    return tap_done();
}
