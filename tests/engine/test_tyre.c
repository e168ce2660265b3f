/* The Magic Formula tyre (engine/vehicle/tyre_pac2002.c) and the .tir reader (mbs_tir.c) on
 * both bundled files (data/tyres): closed-form properties of the Magic Formula (Pacejka, Tire
 * and Vehicle Dynamics, 3rd ed., §4.3.2) computed here from the file's coefficients, the
 * combined-slip reduction, the exact derivative against central differences, and the reader's
 * errors. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mbs_tir.h"
#include "mbs_tyre_model.h"
#include "tap.h"
#include "tyre_pac2002.h"

static char *read_all(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)n + 1);
    if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        buf = NULL;
    }
    fclose(f);
    if (buf)
        buf[n] = '\0';
    *size = (size_t)n;
    return buf;
}

typedef struct {
    const MbsTyreModelClass *law;
    MbsTyreData *data;
    MbsTir tir; /* read again here for the closed forms */
    double mu;  /* the road's friction scale */
} Tyre;

/* Evaluates at slips (kappa, alpha), camber gamma, load fz and speed vx > 0 as a test rig: the
 * spin from kappa = (Omega Re - Vx)/Vx, the lateral velocity from tan(alpha) = Vy/Vx. */
static void at_slip(const Tyre *t, double fz, double kappa, double alpha, double gamma,
                    double vx, MbsTyreOutput *out, MbsTyreDerivative *d)
{
    double re = mbs_pac2002_rolling_radius(t->data, fz);
    MbsTyreInput in = {.in = {fz, vx, vx * tan(alpha), vx * (1.0 + kappa) / re, gamma},
                       .mu_scale = t->mu};
    t->law->evaluate(t->data, &in, out, d);
}
static double fy_at(const Tyre *t, double fz, double kappa, double alpha)
{
    MbsTyreOutput o;
    at_slip(t, fz, kappa, alpha, 0.0, t->tir.LONGVL, &o, NULL);
    return o.out[MBS_TYRE_OUT_FY];
}
static double fx_at(const Tyre *t, double fz, double kappa, double alpha)
{
    MbsTyreOutput o;
    at_slip(t, fz, kappa, alpha, 0.0, t->tir.LONGVL, &o, NULL);
    return o.out[MBS_TYRE_OUT_FX];
}

/* The extreme of f over [a, b] (f unimodal there; sign +1: max, -1: min) by golden sections:
 * f at the extremum. */
static double golden(double (*f)(const Tyre *, double, double, double), const Tyre *t,
                     double fz, int over_kappa, double sign, double a, double b)
{
    const double g = 0.5 * (sqrt(5.0) - 1.0);
#define EVAL(x) (sign * (over_kappa ? f(t, fz, (x), 0.0) : f(t, fz, 0.0, (x))))
    double c = b - g * (b - a), d = a + g * (b - a), fc = EVAL(c), fd = EVAL(d);
    for (int i = 0; i < 200 && b - a > 1e-12; ++i) {
        if (fc > fd) {
            b = d;
            d = c;
            fd = fc;
            c = b - g * (b - a);
            fc = EVAL(c);
        } else {
            a = c;
            c = d;
            fc = fd;
            d = a + g * (b - a);
            fd = EVAL(d);
        }
    }
    return sign * EVAL(0.5 * (a + b));
#undef EVAL
}

static void closed_forms(const Tyre *t, const char *name)
{
    MbsTir scaled = t->tir; /* the road's friction is lambda_mu (Pacejka §4.3.2) */
    scaled.LMUX *= t->mu;
    scaled.LMUY *= t->mu;
    const MbsTir *p = &scaled;
    const double fz0 = p->FNOMIN * p->LFZO;
    const double loads[] = {p->FNOMIN, 0.4 * p->FNOMIN};
    for (int l = 0; l < 2; ++l) {
        double fz = loads[l], dfz = (fz - fz0) / fz0;
        /* lateral: at gamma = 0, kappa = 0 the combined-slip factor is 1 and SVyk = 0 */
        double shy = (p->PHY1 + p->PHY2 * dfz) * p->LHY;
        double svy = fz * (p->PVY1 + p->PVY2 * dfz) * p->LVY * p->LMUY;
        double muy = (p->PDY1 + p->PDY2 * dfz) * p->LMUY, dy = muy * fz, cy = p->PCY1 * p->LCY;
        double ky = p->PKY1 * fz0 * sin(2.0 * atan(fz / (p->PKY2 * fz0))) * p->LKY;
        double by = ky / (cy * dy);
        double ey = (p->PEY1 + p->PEY2 * dfz) * (1.0 - p->PEY3 * (shy < 0 ? -1.0 : 1.0)) * p->LEY;
        double x = by * shy;
        double fy_alpha0 = dy * sin(cy * atan(x - ey * (x - atan(x)))) + svy;
        tap_close(fy_at(t, fz, 0.0, -shy), svy, 1e-14 * fz,
                  "%s Fz=%g: Fy(alpha = -S_Hy, kappa = 0, gamma = 0) = S_Vy = %.6g N", name, fz,
                  svy);
        tap_close(fy_at(t, fz, 0.0, 0.0), fy_alpha0, 1e-14 * fz,
                  "%s Fz=%g: Fy(alpha = 0) = D_y sin(C_y atan(B_y S_Hy - E_y(..))) + S_Vy = %.6g N",
                  name, fz, fy_alpha0);
        /* dFy/dalpha at alpha_y = 0 is K_yalpha: from the exact derivative, dVy/dalpha = Vx/cos^2 */
        MbsTyreOutput o;
        MbsTyreDerivative d;
        double vx = p->LONGVL;
        at_slip(t, fz, 0.0, -shy, 0.0, vx, &o, &d);
        double dfy = d.d[MBS_TYRE_OUT_FY][MBS_TYRE_IN_VY] * vx / (cos(shy) * cos(shy));
        tap_close(dfy, ky, 1e-14 * fabs(ky),
                  "%s Fz=%g: dFy/dalpha at alpha_y = 0 = K_yalpha = PKY1 F'z0 sin(2 atan(Fz/(PKY2 "
                  "F'z0))) LKY = %.6g N/rad", name, fz, ky);
        /* peak: the Magic Formula's D is reached (C > 1) on both sides of the shift; with
         * K_y < 0 (the files' sign) the maximum lies at alpha < -S_Hy */
        double kys = ky < 0 ? -1.0 : 1.0;
        double up = golden(fy_at, t, fz, 0, 1.0, kys < 0 ? -1.5 : -shy, kys < 0 ? -shy : 1.5) - svy;
        double down = golden(fy_at, t, fz, 0, -1.0, kys < 0 ? -shy : -1.5, kys < 0 ? 1.5 : -shy) - svy;
        tap_close(up, dy, 1e-13 * dy, "%s Fz=%g mu=%g: max Fy - S_Vy = D_y = mu_y Fz = %.6g N",
                  name, fz, t->mu, dy);
        tap_close(down, -dy, 1e-13 * dy, "%s Fz=%g mu=%g: min Fy - S_Vy = -D_y", name, fz, t->mu);

        /* longitudinal, alpha = 0 */
        double shx = (p->PHX1 + p->PHX2 * dfz) * p->LHX;
        double svx = fz * (p->PVX1 + p->PVX2 * dfz) * p->LVX * p->LMUX;
        double dx = (p->PDX1 + p->PDX2 * dfz) * p->LMUX * fz;
        double kx = fz * (p->PKX1 + p->PKX2 * dfz) * exp(p->PKX3 * dfz) * p->LKX;
        tap_close(fx_at(t, fz, -shx, 0.0), svx, 1e-14 * fz,
                  "%s Fz=%g: Fx(kappa = -S_Hx, alpha = 0) = S_Vx = %.6g N", name, fz, svx);
        at_slip(t, fz, -shx, 0.0, 0.0, vx, &o, &d);
        double re = mbs_pac2002_rolling_radius(t->data, fz);
        double dfx = d.d[MBS_TYRE_OUT_FX][MBS_TYRE_IN_OMEGA] * vx / re; /* dOmega/dkappa */
        tap_close(dfx, kx, 1e-14 * fabs(kx),
                  "%s Fz=%g: dFx/dkappa at kappa_x = 0 = K_xkappa = Fz (PKX1 + PKX2 dfz) "
                  "exp(PKX3 dfz) LKX = %.6g N", name, fz, kx);
        double fup = golden(fx_at, t, fz, 1, 1.0, -shx, 1.0) - svx;
        double fdown = golden(fx_at, t, fz, 1, -1.0, -1.0, -shx) - svx;
        tap_close(fup, dx, 1e-13 * dx, "%s Fz=%g mu=%g: max Fx - S_Vx = D_x = mu_x Fz = %.6g N",
                  name, fz, t->mu, dx);
        tap_close(fdown, -dx, 1e-13 * dx, "%s Fz=%g: min Fx - S_Vx = -D_x", name, fz);
    }
}

/* Combined slip never exceeds pure slip: |Fx(kappa, alpha)| <= |Fx(kappa, 0)| and
 * |Fy(kappa, alpha) - S_Vyk| <= |Fy(0, alpha)| (S_Vyk, the kappa-induced side force, is added
 * to the reduced force: 4.E58-4.E67), on a grid. The reduction factors G = cos(C atan(B x_s))
 * / cos(C atan(B S_H)) exceed 1 where |x_s| < |S_H| (x_s = alpha + RHX1, kappa + S_Hyk): those
 * points are left out and the largest excess there reported. */
static void combined(const Tyre *t, const char *name)
{
    const MbsTir *p = &t->tir;
    double worst_x = -1e300, worst_y = -1e300, band = 0.0;
    int n = 0;
    for (int i = 0; i <= 40; ++i) {
        double kappa = -0.8 + 1.6 * i / 40.0;
        for (int j = 0; j <= 40; ++j) {
            double alpha = -0.5 + 1.0 * j / 40.0;
            for (int l = 0; l < 2; ++l) {
                double fz = (l ? 1.5 : 0.5) * p->FNOMIN, fz0 = p->FNOMIN * p->LFZO;
                double dfz = (fz - fz0) / fz0;
                MbsTyreOutput c, px, py;
                at_slip(t, fz, kappa, alpha, 0.0, p->LONGVL, &c, NULL);
                at_slip(t, fz, kappa, 0.0, 0.0, p->LONGVL, &px, NULL);
                at_slip(t, fz, 0.0, alpha, 0.0, p->LONGVL, &py, NULL);
                double muy = (p->PDY1 + p->PDY2 * dfz) * p->LMUY;
                double svyk = muy * fz * (p->RVY1 + p->RVY2 * dfz) * cos(atan(p->RVY4 * alpha)) *
                              sin(p->RVY5 * atan(p->RVY6 * kappa)) * p->LVYKA;
                double shyk = p->RHY1 + p->RHY2 * dfz;
                double ex = (fabs(c.out[MBS_TYRE_OUT_FX]) - fabs(px.out[MBS_TYRE_OUT_FX])) / fz;
                double ey = (fabs(c.out[MBS_TYRE_OUT_FY] - svyk) - fabs(py.out[MBS_TYRE_OUT_FY])) / fz;
                int in_x = fabs(alpha + p->RHX1) < fabs(p->RHX1);
                int in_y = fabs(kappa + shyk) < fabs(shyk);
                if (in_x)
                    band = fmax(band, ex);
                else
                    worst_x = fmax(worst_x, ex);
                if (in_y)
                    band = fmax(band, ey);
                else
                    worst_y = fmax(worst_y, ey);
                n++;
            }
        }
    }
    tap_below(worst_x, 1e-12, "%s: |Fx(kappa, alpha)| <= |Fx(kappa, 0)| on %d points "
              "(max excess/Fz %.3g)", name, n, worst_x);
    tap_below(worst_y, 1e-12, "%s: |Fy(kappa, alpha) - S_Vyk| <= |Fy(0, alpha)| on %d points "
              "(max excess/Fz %.3g)", name, n, worst_y);
    tap_diag("%s: inside the shifts' bands the excess/Fz reaches %.3g", name, band);
}

/* The exact derivative against central differences on a grid of (kappa, alpha, gamma, Fz, Vx),
 * including slips near 0 and speeds inside the low-speed band (|Vx| < VXLOW). */
static void derivatives(const Tyre *t, const char *name, double tol)
{
    const MbsTir *p = &t->tir;
    const double kappas[] = {-0.5, -0.01, 1e-3, 0.05, 0.4};
    const double alphas[] = {-0.3, -0.01, 1e-3, 0.02, 0.2};
    const double gammas[] = {-0.05, 0.03, 0.1};
    const double loads[] = {0.3, 1.0, 1.8};
    const double speeds[] = {16.7, 3.0, 0.6 * p->VXLOW, 0.05 * p->VXLOW};
    const double steps[MBS_TYRE_IN_COUNT] = {1e-2, 1e-6, 1e-6, 1e-6, 1e-7};
    /* scales: a derivative is compared relative to max(|exact|, scale of out / scale of in) */
    const double out_scale[MBS_TYRE_OUT_COUNT] = {p->FNOMIN, p->FNOMIN,
                                                  p->FNOMIN * p->UNLOADED_RADIUS,
                                                  p->FNOMIN * p->UNLOADED_RADIUS,
                                                  p->FNOMIN * p->UNLOADED_RADIUS};
    const double in_scale[MBS_TYRE_IN_COUNT] = {p->FNOMIN, 10.0, 10.0, 10.0, 1.0};
    double worst = 0.0, worst_low = 0.0;
    int n = 0;
    char where[160] = "";
    for (size_t a = 0; a < 5; ++a)
        for (size_t b = 0; b < 5; ++b)
            for (size_t c = 0; c < 3; ++c)
                for (size_t e = 0; e < 3; ++e)
                    for (size_t s = 0; s < 4; ++s) {
                        double fz = loads[e] * p->FNOMIN, vx = speeds[s];
                        double re = mbs_pac2002_rolling_radius(t->data, fz);
                        MbsTyreInput in = {.in = {fz, vx, vx * tan(alphas[b]),
                                                  vx * (1.0 + kappas[a]) / re, gammas[c]},
                                           .mu_scale = 0.9};
                        MbsTyreOutput o;
                        MbsTyreDerivative d;
                        t->law->evaluate(t->data, &in, &o, &d);
                        for (int j = 0; j < MBS_TYRE_IN_COUNT; ++j) {
                            MbsTyreInput hi = in, lo = in;
                            hi.in[j] += steps[j];
                            lo.in[j] -= steps[j];
                            MbsTyreOutput oh, ol;
                            t->law->evaluate(t->data, &hi, &oh, NULL);
                            t->law->evaluate(t->data, &lo, &ol, NULL);
                            for (int i = 0; i < MBS_TYRE_OUT_COUNT; ++i) {
                                double fd = (oh.out[i] - ol.out[i]) / (2.0 * steps[j]);
                                double ref = fmax(fabs(d.d[i][j]), out_scale[i] / in_scale[j]);
                                double err = fabs(fd - d.d[i][j]) / ref;
                                if (!isfinite(d.d[i][j]))
                                    err = INFINITY;
                                n++;
                                if (vx < p->VXLOW)
                                    worst_low = fmax(worst_low, err);
                                if (err > worst) {
                                    worst = err;
                                    snprintf(where, sizeof where,
                                             "out %d in %d at kappa %g alpha %g gamma %g Fz %g "
                                             "Vx %g: exact %.9g fd %.9g", i, j, kappas[a],
                                             alphas[b], gammas[c], fz, vx, d.d[i][j], fd);
                                }
                            }
                        }
                    }
    tap_diag("%s: worst %s", name, where);
    tap_below(worst, tol, "%s: d out/d in = central differences on %d entries (worst relative "
              "%.3g, inside the low-speed band %.3g)", name, n, worst, worst_low);
}

static void physics(const Tyre *t, const char *name)
{
    const MbsTir *p = &t->tir;
    MbsTyreOutput o;
    /* the forces oppose the slip velocities */
    at_slip(t, p->FNOMIN, 0.0, 0.05, 0.0, 10.0, &o, NULL);
    tap_ok(o.out[MBS_TYRE_OUT_FY] < 0.0 && o.out[MBS_TYRE_OUT_MZ] > 0.0,
           "%s: Vcy > 0 gives Fy < 0 (%.0f N) and an aligning Mz > 0 (%.0f N m)", name,
           o.out[MBS_TYRE_OUT_FY], o.out[MBS_TYRE_OUT_MZ]);
    at_slip(t, p->FNOMIN, 0.05, 0.0, 0.0, 10.0, &o, NULL);
    tap_ok(o.out[MBS_TYRE_OUT_FX] > 0.0 && o.out[MBS_TYRE_OUT_MY] < 0.0,
           "%s: driving (kappa > 0) gives Fx > 0 (%.0f N); rolling resistance My < 0 (%.1f N m)",
           name, o.out[MBS_TYRE_OUT_FX], o.out[MBS_TYRE_OUT_MY]);
    tap_close(o.kappa, 0.05, 1e-12, "%s: the law reports the rig's kappa", name);
    /* at rest with no slip velocity: no force, no moment but the overturning couple */
    MbsTyreInput rest = {.in = {p->FNOMIN, 0.0, 0.0, 0.0, 0.0}, .mu_scale = 1.0};
    MbsTyreDerivative d;
    t->law->evaluate(t->data, &rest, &o, &d);
    tap_ok(o.out[MBS_TYRE_OUT_FX] == 0.0 && o.out[MBS_TYRE_OUT_FY] == 0.0 &&
               o.out[MBS_TYRE_OUT_MY] == 0.0 && o.out[MBS_TYRE_OUT_MZ] == 0.0,
           "%s: at rest Fx = Fy = My = Mz = 0 (%g %g %g %g)", name, o.out[MBS_TYRE_OUT_FX],
           o.out[MBS_TYRE_OUT_FY], o.out[MBS_TYRE_OUT_MY], o.out[MBS_TYRE_OUT_MZ]);
    /* the damper at rest: dFy/dVy = K_y / (VXLOW/2) (the low-speed denominator) */
    double fz0 = p->FNOMIN * p->LFZO, fz = p->FNOMIN;
    double ky = p->PKY1 * fz0 * sin(2.0 * atan(fz / (p->PKY2 * fz0))) * p->LKY;
    tap_close(d.d[MBS_TYRE_OUT_FY][MBS_TYRE_IN_VY], ky / (0.5 * p->VXLOW), 1e-14 * fabs(ky),
              "%s: at rest dFy/dVy = K_y / (VXLOW/2) = %.6g N s/m", name, ky / (0.5 * p->VXLOW));
    /* at the tip of the equivalent-slip cone (kappa = 0, alpha_t = 0) the derivative is finite */
    {
        double fz0t = p->FNOMIN * p->LFZO, dfz = (p->FNOMIN - fz0t) / fz0t;
        double sht = p->QHZ1 + p->QHZ2 * dfz;
        at_slip(t, p->FNOMIN, 0.0, -sht, 0.0, 10.0, &o, &d);
        int finite = 1;
        for (int i = 0; i < MBS_TYRE_OUT_COUNT; ++i)
            for (int j = 0; j < MBS_TYRE_IN_COUNT; ++j)
                finite = finite && isfinite(d.d[i][j]);
        tap_ok(finite && d.d[MBS_TYRE_OUT_MZ][MBS_TYRE_IN_VY] != 0.0,
               "%s: at kappa = 0, alpha_t = 0 (to rounding) every derivative is finite (dMz/dVy %.6g)", name,
               d.d[MBS_TYRE_OUT_MZ][MBS_TYRE_IN_VY]);
    }
    /* no load, no force */
    MbsTyreInput air = {.in = {0.0, 10.0, 1.0, 30.0, 0.0}, .mu_scale = 1.0};
    t->law->evaluate(t->data, &air, &o, &d);
    int zero = 1;
    for (int i = 0; i < MBS_TYRE_OUT_COUNT; ++i)
        zero = zero && o.out[i] == 0.0;
    tap_ok(zero, "%s: Fz = 0 gives no force", name);
    /* vertical */
    double radius, k, c;
    t->law->vertical(t->data, NULL, &radius, &k, &c);
    double width = mbs_tyre_width(t->law, t->data);
    tap_ok(width == p->WIDTH && width > 0.3 && width < 0.33,
           "%s: the law keeps the section width WIDTH %g m (drawn tyres use it)", name, width);
    tap_ok(radius == p->UNLOADED_RADIUS && k == p->VERTICAL_STIFFNESS * p->LCZ &&
               c == p->VERTICAL_DAMPING,
           "%s: vertical: R0 %g m, Cz %g N/m (VERTICAL_STIFFNESS LCZ), damping %g N s/m", name,
           radius, k, c);
}

static int load(Tyre *t, const char *path, const char *name)
{
    size_t size;
    char *text = read_all(path, &size);
    if (!tap_ok(text != NULL, "read %s", path))
        return -1;
    MbsError err = {0};
    t->law = mbs_tyre_model_class_by_name("pac2002");
    t->data = t->law ? t->law->parse(text, size, name, &err) : NULL;
    int ok = mbs_tir_parse(text, size, name, &t->tir, NULL, &err) == 0;
    tap_ok(t->data && ok, "%s parses (%s)", name, err.message);
    free(text);
    return t->data && ok ? 0 : -1;
}

/* The text with line `line` (1-based) replaced by `with` (NULL: deleted) or, when insert,
 * `with` inserted before it. */
static char *edit_line(const char *text, int line, const char *with, int insert)
{
    size_t n = strlen(text);
    char *out = malloc(n + strlen(with ? with : "") + 4);
    const char *p = text;
    for (int l = 1; l < line && p; ++l) {
        p = strchr(p, '\n');
        if (p)
            p++;
    }
    size_t head = (size_t)(p - text);
    const char *next = strchr(p, '\n');
    next = next ? next + 1 : text + n;
    memcpy(out, text, head);
    size_t o = head;
    if (with) {
        strcpy(out + o, with);
        o += strlen(with);
        out[o++] = '\n';
    }
    const char *rest = insert ? p : next;
    strcpy(out + o, rest);
    return out;
}

static int line_of(const char *text, const char *key)
{
    int line = 1;
    size_t k = strlen(key);
    for (const char *p = text; *p; ++p) {
        if ((p == text || p[-1] == '\n') && !strncmp(p, key, k) && (p[k] == ' ' || p[k] == '='))
            return line;
        if (*p == '\n')
            line++;
    }
    return -1;
}

static void expect_error(const char *text, const char *want, const char *what)
{
    char *copy = strdup(text);
    MbsError err = {0};
    const MbsTyreModelClass *law = mbs_tyre_model_class_by_name("pac2002");
    MbsTyreData *d = law->parse(copy, strlen(copy), "HMMWV_Pac02Tire.tir", &err);
    tap_ok(!d && strstr(err.message, want) != NULL && !strcmp(copy, text),
           "reader: %s -> \"%s\" (text untouched)", what, err.message);
    if (d)
        law->free_data(d);
    free(copy);
}

static void reader_errors(const char *path)
{
    size_t size;
    char *text = read_all(path, &size);
    if (!text)
        return;
    char want[160];
    int l = line_of(text, "PCY1");
    char *t1 = edit_line(text, l + 1, "PCY9                       = 1.2 $ no such key", 1);
    snprintf(want, sizeof want,
             "HMMWV_Pac02Tire.tir:%d: unknown key 'PCY9' in [LATERAL_COEFFICIENTS]", l + 1);
    expect_error(t1, want, "unknown key");
    free(t1);
    l = line_of(text, "PKY1");
    char *t2 = edit_line(text, l, NULL, 0);
    expect_error(t2, "HMMWV_Pac02Tire.tir: missing required key 'PKY1' in [LATERAL_COEFFICIENTS]",
                 "missing required key");
    free(t2);
    l = line_of(text, "PDY1");
    char *t3 = edit_line(text, l, "PDY1                       = 0.7x3957 $Lateral friction Muy", 0);
    snprintf(want, sizeof want, "HMMWV_Pac02Tire.tir:%d: '0.7x3957' is not a number (key PDY1)", l);
    expect_error(t3, want, "malformed number");
    free(t3);
    l = line_of(text, "LENGTH");
    char *t4 = edit_line(text, l, "LENGTH = 'furlong'", 0);
    snprintf(want, sizeof want, "HMMWV_Pac02Tire.tir:%d: unknown unit 'furlong' for LENGTH", l);
    expect_error(t4, want, "wrong units");
    free(t4);
    l = line_of(text, "QSX1");
    char *t5 = edit_line(text, l, "QSX1 = 1 = 2", 0);
    snprintf(want, sizeof want, "HMMWV_Pac02Tire.tir:%d:", l);
    expect_error(t5, want, "garbage after a value");
    free(t5);
    l = line_of(text, "FNOMIN");
    char *t6 = edit_line(text, l, "FNOMIN = -35000", 0);
    snprintf(want, sizeof want, "HMMWV_Pac02Tire.tir:%d: FNOMIN must be positive", l);
    expect_error(t6, want, "a negative nominal load");
    free(t6);
    char *t7 = edit_line(text, 1, "[WHEEL_SPIN]", 1);
    expect_error(t7, "HMMWV_Pac02Tire.tir:1: unknown section [WHEEL_SPIN]", "unknown section");
    free(t7);
    l = line_of(text, "PKY1");
    char *t8 = edit_line(text, l + 1, "PKY1 = 3", 1);
    snprintf(want, sizeof want, "HMMWV_Pac02Tire.tir:%d: key 'PKY1' given twice (first on line %d)",
             l + 1, l);
    expect_error(t8, want, "a key twice");
    free(t8);

    /* USE_MODE 3: no combined-slip reduction; [MDI_HEADER] and [SHAPE] (Adams files) skipped */
    {
        char *u = edit_line(text, line_of(text, "USE_MODE"), "USE_MODE = 3", 0);
        char *h = edit_line(u, 1, "[MDI_HEADER]\nFILE_TYPE = 'tir'\nFILE_VERSION = 3.0\n"
                                  "[SHAPE]\n{radial width}\n 1.0 0.0\n 0.9 0.4", 1);
        MbsError e = {0};
        Tyre t3 = {.law = mbs_tyre_model_class_by_name("pac2002"), .mu = 1.0};
        t3.data = t3.law->parse(h, strlen(h), "mode3.tir", &e);
        mbs_tir_parse(h, strlen(h), "mode3.tir", &t3.tir, NULL, &e);
        double worst = t3.data ? 0.0 : INFINITY;
        for (int i = 0; t3.data && i <= 10; ++i)
            for (int j = 0; j <= 10; ++j) {
                double k = -0.5 + 0.1 * i, a = -0.3 + 0.06 * j, fz = 30000.0;
                MbsTyreOutput c, px, py;
                at_slip(&t3, fz, k, a, 0.0, 16.7, &c, NULL);
                at_slip(&t3, fz, k, 0.0, 0.0, 16.7, &px, NULL);
                at_slip(&t3, fz, 0.0, a, 0.0, 16.7, &py, NULL);
                worst = fmax(worst, fabs(c.out[MBS_TYRE_OUT_FX] - px.out[MBS_TYRE_OUT_FX]) +
                                        fabs(c.out[MBS_TYRE_OUT_FY] - py.out[MBS_TYRE_OUT_FY]));
            }
        tap_ok(worst == 0.0, "USE_MODE 3 (with [MDI_HEADER] and [SHAPE] skipped): Fx(kappa, alpha) "
               "= Fx(kappa, 0), Fy(kappa, alpha) = Fy(0, alpha) on 121 points (%s)", e.message);
        if (t3.data)
            t3.law->free_data(t3.data);
        free(u);
        free(h);
    }
    l = line_of(text, "USE_MODE");
    char *t9 = edit_line(text, l, "USE_MODE = 14", 0);
    snprintf(want, sizeof want, "HMMWV_Pac02Tire.tir:%d: USE_MODE must be 3 (uncombined) or 4", l);
    expect_error(t9, want, "relaxation (USE_MODE 14) refused");
    free(t9);

    /* TYRESIDE: the side the data describe (MF-Tyre's LEFT or RIGHT; absent: LEFT) */
    {
        const MbsTyreModelClass *law = mbs_tyre_model_class_by_name("pac2002");
        int sides[3] = {-1, -1, -1};
        const char *lines[3] = {"TYRESIDE = 'RIGHT'", "TYRESIDE = 'left'", NULL};
        for (int i = 0; i < 3; ++i) {
            char *u = edit_line(text, line_of(text, "TYRESIDE"), lines[i], 0);
            MbsError e = {0};
            MbsTyreData *d = law->parse(u, strlen(u), "side.tir", &e);
            if (d)
                sides[i] = mbs_tyre_side(law, d), law->free_data(d);
            free(u);
        }
        tap_ok(sides[0] == MBS_TYRE_RIGHT && sides[1] == MBS_TYRE_LEFT &&
                   sides[2] == MBS_TYRE_LEFT,
               "reader: TYRESIDE 'RIGHT' is right, 'left' (case ignored) and absent are left");
        l = line_of(text, "TYRESIDE");
        char *ts = edit_line(text, l, "TYRESIDE = 'MIDDLE'", 0);
        snprintf(want, sizeof want, "HMMWV_Pac02Tire.tir:%d: TYRESIDE must be 'LEFT' or 'RIGHT'",
                 l);
        expect_error(ts, want, "an unknown TYRESIDE");
        free(ts);
        l = line_of(text, "WIDTH");
        ts = edit_line(text, l, "WIDTH = -0.3", 0);
        snprintf(want, sizeof want, "HMMWV_Pac02Tire.tir:%d: WIDTH must not be negative", l);
        expect_error(ts, want, "a negative WIDTH");
        free(ts);
    }

    /* units: the same tyre in mm, kN, degrees and km/h-free mm/s reads to the same SI values */
    MbsTir si, mm;
    MbsError err = {0};
    mbs_tir_parse(text, size, "a.tir", &si, NULL, &err);
    static const struct {
        const char *key, *line;
    } conv[] = {
        {"LENGTH", "LENGTH = 'mm'"}, {"FORCE", "FORCE = 'kN'"}, {"ANGLE", "ANGLE = 'degree'"},
        {"UNLOADED_RADIUS", "UNLOADED_RADIUS = 469.9"},
        {"VERTICAL_STIFFNESS", "VERTICAL_STIFFNESS = 1.0 $ kN/mm"},
        {"VERTICAL_DAMPING", "VERTICAL_DAMPING = 0.0005 $ kN s/mm"},
        {"FNOMIN", "FNOMIN = 35"}, {"VXLOW", "VXLOW = 1000 $ mm/s"},
        {"ALPMAX", "ALPMAX = 90.0002104591497 $ deg"}, {"WIDTH", "WIDTH = 317.5 $ mm"},
    };
    char *t = strdup(text);
    for (size_t i = 0; i < sizeof conv / sizeof conv[0]; ++i) {
        char *n = edit_line(t, line_of(t, conv[i].key), conv[i].line, 0);
        free(t);
        t = n;
    }
    int ok = mbs_tir_parse(t, strlen(t), "b.tir", &mm, NULL, &err) == 0;
    tap_ok(ok && fabs(mm.UNLOADED_RADIUS - si.UNLOADED_RADIUS) < 1e-15 &&
               fabs(mm.VERTICAL_STIFFNESS - si.VERTICAL_STIFFNESS) < 1e-6 &&
               fabs(mm.VERTICAL_DAMPING - si.VERTICAL_DAMPING) < 1e-10 &&
               fabs(mm.FNOMIN - si.FNOMIN) < 1e-9 && fabs(mm.VXLOW - si.VXLOW) < 1e-15 &&
               fabs(mm.ALPMAX - si.ALPMAX) < 1e-12 && mm.PKY1 == si.PKY1 &&
               fabs(mm.WIDTH - si.WIDTH) < 1e-15 && si.WIDTH == 0.3175,
           "reader: [UNITS] mm, kN, degree give the SI values (R0 %.6g m, Cz %.6g N/m, c %.6g "
           "N s/m, FNOMIN %.6g N, VXLOW %.6g m/s, ALPMAX %.6g rad, WIDTH %.6g m (the file's "
           "0.3175); PKY1 as written) %s",
           mm.UNLOADED_RADIUS, mm.VERTICAL_STIFFNESS, mm.VERTICAL_DAMPING, mm.FNOMIN, mm.VXLOW,
           mm.ALPMAX, mm.WIDTH, err.message);
    free(t);
    free(text);
}


/* The wheel's multipliers of the law's scaling factors (MbsTyreInput.scale, a model file's
 * "tyre_scaling"; issue 24: sensitivities of LMUY...). */
static void eval_scaled(const Tyre *t, const double *scale, double fz, double kappa,
                        double alpha, double vx, MbsTyreOutput *out, MbsTyreDerivative *d,
                        MbsTyreScalingDerivative *ds)
{
    double re = mbs_pac2002_rolling_radius(t->data, fz);
    MbsTyreInput in = {.in = {fz, vx, vx * tan(alpha), vx * (1.0 + kappa) / re, 0.0},
                       .mu_scale = t->mu, .scale = scale};
    t->law->evaluate(t->data, &in, out, d);
    if (ds)
        t->law->scaling_derivative(t->data, &in, ds);
}

/* The slip (over_kappa: kappa at alpha = 0; else alpha at kappa = 0) in [a, b] where Fx or Fy
 * peaks: bisection on the sign of its exact slope (dFx/dkappa = dFx/dOmega Vx/Re, dFy/dalpha =
 * dFy/dVy Vx/cos^2), to round-off. */
static double peak_slip(const Tyre *t, double fz, int over_kappa, double a, double b)
{
    double vx = t->tir.LONGVL;
    double sa = 0.0;
    for (int i = 0; i < 200 && b - a > 1e-15; ++i) {
        double m = 0.5 * (a + b);
        MbsTyreOutput o;
        MbsTyreDerivative d;
        eval_scaled(t, NULL, fz, over_kappa ? m : 0.0, over_kappa ? 0.0 : m, vx, &o, &d, NULL);
        double slope = over_kappa ? d.d[MBS_TYRE_OUT_FX][MBS_TYRE_IN_OMEGA]
                                  : d.d[MBS_TYRE_OUT_FY][MBS_TYRE_IN_VY];
        if (i == 0) {
            MbsTyreDerivative da;
            eval_scaled(t, NULL, fz, over_kappa ? a : 0.0, over_kappa ? 0.0 : a, vx, &o, &da,
                        NULL);
            sa = over_kappa ? da.d[MBS_TYRE_OUT_FX][MBS_TYRE_IN_OMEGA]
                            : da.d[MBS_TYRE_OUT_FY][MBS_TYRE_IN_VY];
        }
        if ((slope < 0) == (sa < 0))
            a = m;
        else
            b = m;
    }
    return 0.5 * (a + b);
}

static void scaling(const Tyre *t, const char *path, const char *name)
{
    const MbsTir *p = &t->tir;
    int ns = mbs_tyre_scaling_count(t->law);
    int lmuy = mbs_tyre_scaling_index(t->law, "LMUY"), lmux = mbs_tyre_scaling_index(t->law, "LMUX");
    int lvy = mbs_tyre_scaling_index(t->law, "LVY"), lcz = mbs_tyre_scaling_index(t->law, "LCZ");
    tap_ok(ns == 26 && lmuy >= 0 && lmux >= 0 && lvy >= 0 && lcz >= 0 &&
               mbs_tyre_scaling_index(t->law, "LSGKP") < 0,
           "%s: the law offers the 26 scaling factors it reads (LMUY, LMUX, LVY, LCZ..., not "
           "LSGKP)", name);
    /* d out / d scale against central differences (step 1e-6: truncation and round-off),
     * multipliers off 1, on a grid of slips, loads and speeds (the low-speed band among them);
     * measured 8.6e-8 (HMMWV), 1.1e-7 (city bus) */
    double scale[MBS_TYRE_SCALES];
    for (int k = 0; k < MBS_TYRE_SCALES; ++k)
        scale[k] = k < ns ? 1.0 + 0.05 * sin(1.0 + k) : 1.0;
    const double kappas[] = {-0.3, 1e-3, 0.1}, alphas[] = {-0.2, -0.01, 0.05};
    const double loads[] = {0.4, 1.2}, speeds[] = {16.7, 0.5 * p->VXLOW};
    const double out_scale[MBS_TYRE_OUT_COUNT] = {p->FNOMIN, p->FNOMIN,
                                                  p->FNOMIN * p->UNLOADED_RADIUS,
                                                  p->FNOMIN * p->UNLOADED_RADIUS,
                                                  p->FNOMIN * p->UNLOADED_RADIUS};
    double worst = 0.0;
    int n = 0;
    char where[200] = "";
    for (size_t a = 0; a < 3; ++a)
        for (size_t b = 0; b < 3; ++b)
            for (size_t e = 0; e < 2; ++e)
                for (size_t v = 0; v < 2; ++v) {
                    double fz = loads[e] * p->FNOMIN;
                    MbsTyreOutput o;
                    MbsTyreScalingDerivative ds;
                    eval_scaled(t, scale, fz, kappas[a], alphas[b], speeds[v], &o, NULL, &ds);
                    for (int k = 0; k < ns; ++k) {
                        double hi[MBS_TYRE_SCALES], lo[MBS_TYRE_SCALES], h = 1e-6;
                        memcpy(hi, scale, sizeof hi);
                        memcpy(lo, scale, sizeof lo);
                        hi[k] += h;
                        lo[k] -= h;
                        MbsTyreOutput oh, ol;
                        /* the same spin and lateral velocity: the rig's Re is the file's */
                        eval_scaled(t, hi, fz, kappas[a], alphas[b], speeds[v], &oh, NULL, NULL);
                        eval_scaled(t, lo, fz, kappas[a], alphas[b], speeds[v], &ol, NULL, NULL);
                        for (int i = 0; i < MBS_TYRE_OUT_COUNT; ++i) {
                            double fd = (oh.out[i] - ol.out[i]) / (2.0 * h);
                            double err = fabs(fd - ds.d[i][k]) /
                                         fmax(fabs(ds.d[i][k]), 1e-3 * out_scale[i]);
                            n++;
                            if (err > worst) {
                                worst = err;
                                snprintf(where, sizeof where,
                                         "out %d / %s at kappa %g alpha %g Fz %g Vx %g: exact "
                                         "%.9g fd %.9g", i, t->law->scaling[k], kappas[a],
                                         alphas[b], fz, speeds[v], ds.d[i][k], fd);
                            }
                        }
                    }
                }
    tap_diag("%s: worst %s", name, where);
    tap_below(worst, 1e-6, "%s: d out/d scale = central differences on %d entries (worst "
              "relative %.3g)", name, n, worst);

    /* Closed forms (Pacejka 4.E19-4.E30 at kappa = 0, gamma = 0, where G_yk = 1 and S_Vyk = 0):
     * Fy = D_y sin(C_y atan(B_y a - E_y(..))) + S_Vy with D_y and S_Vy proportional to LMUY and
     * B_y = K_y/(C_y D_y) to 1/LMUY (K_y, C_y, E_y free of it): at the peak, where the cosine
     * of the sine's argument vanishes, dFy/dLMUY = (D_y sin + S_Vy)/LMUY = Fy/LMUY; the same
     * for Fx with LMUX at alpha = 0 (4.E9-4.E18). With the multipliers at 1, dFy/dscale = Fy.
     * Measured: 1.6e-15 of the peak force, 5.7e-14 N at alpha_y = 0. */
    for (int l = 0; l < 2; ++l) {
        double fz = (l ? 0.5 : 1.0) * p->FNOMIN;
        MbsTyreOutput o;
        MbsTyreScalingDerivative ds;
        for (int side = 0; side < 2; ++side) {
            double ay = peak_slip(t, fz, 0, side ? 0.0 : -0.6, side ? 0.6 : 0.0);
            eval_scaled(t, NULL, fz, 0.0, ay, p->LONGVL, &o, NULL, &ds);
            double fy = o.out[MBS_TYRE_OUT_FY];
            tap_close(ds.d[MBS_TYRE_OUT_FY][lmuy], fy, 2e-14 * fabs(fy),
                      "%s Fz=%g: at the peak of Fy (alpha %.6f) dFy/dLMUY = Fy/LMUY = %.6g N",
                      name, fz, ay, fy);
            double kx = peak_slip(t, fz, 1, side ? 0.0 : -0.6, side ? 0.6 : 0.0);
            eval_scaled(t, NULL, fz, kx, 0.0, p->LONGVL, &o, NULL, &ds);
            double fx = o.out[MBS_TYRE_OUT_FX];
            tap_close(ds.d[MBS_TYRE_OUT_FX][lmux], fx, 2e-14 * fabs(fx),
                      "%s Fz=%g: at the peak of Fx (kappa %.6f) dFx/dLMUX = Fx/LMUX = %.6g N",
                      name, fz, kx, fx);
        }
        /* at alpha_y = alpha + S_Hy = 0 the sine's argument is 0: Fy = S_Vy, proportional to
         * LVY LMUY */
        double fz0 = p->FNOMIN * p->LFZO, dfz = (fz - fz0) / fz0;
        double shy = (p->PHY1 + p->PHY2 * dfz) * p->LHY;
        double svy = fz * (p->PVY1 + p->PVY2 * dfz) * p->LVY * p->LMUY;
        eval_scaled(t, NULL, fz, 0.0, -shy, p->LONGVL, &o, NULL, &ds);
        tap_close(ds.d[MBS_TYRE_OUT_FY][lvy], svy, 5e-13,
                  "%s Fz=%g: at alpha_y = 0 dFy/dLVY = S_Vy = %.6g N", name, fz, svy);
        tap_close(ds.d[MBS_TYRE_OUT_FY][lmuy], svy, 5e-13,
                  "%s Fz=%g: at alpha_y = 0 dFy/dLMUY = S_Vy", name, fz);
    }

    /* A multiplier is the file's factor times it: the file with LMUY and LCZ edited gives the
     * same wrench and vertical stiffness. */
    size_t size;
    char *text = read_all(path, &size);
    if (!text)
        return;
    char line[96];
    snprintf(line, sizeof line, "LMUY = %.17g", p->LMUY * 1.1);
    char *t1 = edit_line(text, line_of(text, "LMUY"), line, 0);
    snprintf(line, sizeof line, "LCZ = %.17g", p->LCZ * 0.8);
    char *t2 = edit_line(t1, line_of(t1, "LCZ"), line, 0);
    MbsError err = {0};
    MbsTyreData *edited = t->law->parse(t2, strlen(t2), name, &err);
    double mult[MBS_TYRE_SCALES];
    for (int k = 0; k < MBS_TYRE_SCALES; ++k)
        mult[k] = 1.0;
    mult[lmuy] = 1.1;
    mult[lcz] = 0.8;
    double worst_file = INFINITY, r0, k0, c0, r1, k1, c1;
    if (edited) {
        worst_file = 0.0;
        double re = mbs_pac2002_rolling_radius(t->data, p->FNOMIN);
        MbsTyreInput a = {.in = {p->FNOMIN, 12.0, 1.5, 12.3 / re, 0.02}, .mu_scale = 1.0,
                          .scale = mult};
        MbsTyreInput b = a;
        b.scale = NULL;
        MbsTyreOutput oa, ob;
        t->law->evaluate(t->data, &a, &oa, NULL);
        t->law->evaluate(edited, &b, &ob, NULL);
        for (int i = 0; i < MBS_TYRE_OUT_COUNT; ++i)
            worst_file = fmax(worst_file, fabs(oa.out[i] - ob.out[i]) / out_scale[i]);
        t->law->vertical(t->data, mult, &r0, &k0, &c0);
        t->law->vertical(edited, NULL, &r1, &k1, &c1);
        worst_file = fmax(worst_file, fabs(k0 - k1) / k1);
        t->law->free_data(edited);
    }
    tap_below(worst_file, 1e-14, "%s: multipliers LMUY 1.1, LCZ 0.8 = the file with them "
              "edited (outputs and vertical stiffness; worst %.3g)", name, worst_file);
    free(t1);
    free(t2);
    free(text);
    /* what the law refuses */
    mult[lmuy] = -1.0;
    int bad = t->law->check_scaling(t->data, mult, "w", &err);
    tap_ok(bad && strstr(err.message, "LMUY") && strstr(err.message, "positive"),
           "%s: a negative LMUY multiplier is refused (%s)", name, err.message);
}

int main(void)
{
    static const struct {
        const char *file, *name;
        double tol;
    } files[] = {
        {ESLABON_SOURCE_DIR "/data/tyres/HMMWV_Pac02Tire.tir", "HMMWV_Pac02Tire.tir", 5e-8},
        {ESLABON_SOURCE_DIR "/data/tyres/CityBus_Pac02Tire.tir", "CityBus_Pac02Tire.tir", 5e-8},
    };
    for (size_t i = 0; i < sizeof files / sizeof files[0]; ++i) {
        Tyre t;
        if (load(&t, files[i].file, files[i].name))
            continue;
        t.mu = 1.0;
        closed_forms(&t, files[i].name);
        t.mu = 0.6; /* a wet road: the peaks scale with it */
        closed_forms(&t, files[i].name);
        t.mu = 1.0;
        combined(&t, files[i].name);
        derivatives(&t, files[i].name, files[i].tol);
        physics(&t, files[i].name);
        scaling(&t, files[i].file, files[i].name);
        MbsTyreData *copy = t.law->copy(t.data);
        MbsTyreInput in = {.in = {20000.0, 12.0, 0.7, 30.0, 0.02}, .mu_scale = 1.0};
        MbsTyreOutput a, b;
        t.law->evaluate(t.data, &in, &a, NULL);
        t.law->evaluate(copy, &in, &b, NULL);
        tap_ok(!memcmp(a.out, b.out, sizeof a.out), "%s: a copy evaluates the same", files[i].name);
        t.law->free_data(copy);
        t.law->free_data(t.data);
    }
    reader_errors(ESLABON_SOURCE_DIR "/data/tyres/HMMWV_Pac02Tire.tir");
    return tap_done();
}
