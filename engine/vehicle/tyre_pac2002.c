/* The tyre law "pac2002": Pacejka's Magic Formula 5.2 (PAC2002), steady state, combined slip,
 * from a TeimOrbit .tir file (mbs_tir.h). The law is written once over a scalar type
 * (tyre_pac2002_law.h): over double for the value, over MbsDual (forward mode, one direction
 * per input) for the exact derivative d out / d in. */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "mbs_scalar.h"
#include "mbs_settings.h" /* MBS_N_ */
#include "mbs_tir.h"
#include "mbs_tyre_model.h"
#include "tyre_pac2002.h"

struct MbsTyreData {
    MbsTir tir;
    int combined;  /* USE_MODE 4: combined slip; 3: Fx and Fy each from its own slip */
    double cz;     /* vertical stiffness VERTICAL_STIFFNESS LCZ */
    double lam[MBS_TIR_SCALING_COUNT]; /* the file's scaling factors, MBS_TIR_SCALE_* */
};

/* The scaling factors the law reads, which a wheel may multiply (MbsTyreInput.scale, in this
 * order); the others (LKG, LSGKP, LSGAL, LGYR, LIP: turn slip, relaxation, gyroscopic and
 * pressure terms) this steady-state law has not. */
#define PAC_SCALING(Y)                                                                           \
    Y(LFZO) Y(LCX) Y(LEX) Y(LKX) Y(LHX) Y(LVX) Y(LMUX) Y(LGAX) Y(LCY) Y(LEY) Y(LKY) Y(LHY) Y(LVY) \
    Y(LMUY) Y(LGAY) Y(LTR) Y(LRES) Y(LGAZ) Y(LXAL) Y(LYKA) Y(LVYKA) Y(LS) Y(LMX) Y(LMY) Y(LVMX)    \
    Y(LCZ)
#define PAC_NAME(n) #n,
#define PAC_INDEX(n) MBS_TIR_SCALE_##n,
#define PAC_POS(n) POS_##n,
static const char *const scaling_names[] = {PAC_SCALING(PAC_NAME) NULL};
static const int scaling_index[] = {PAC_SCALING(PAC_INDEX)};
enum { PAC_SCALING(PAC_POS) NSCALING }; /* POS_LMUY: LMUY's place in scaling_names */
#undef PAC_NAME
#undef PAC_INDEX
#undef PAC_POS
_Static_assert(NSCALING <= MBS_TYRE_SCALES, "MBS_TYRE_SCALES holds the law's factors");
_Static_assert(offsetof(MbsTir, LIP) - offsetof(MbsTir, LFZO) ==
                   sizeof(double) * (MBS_TIR_SCALING_COUNT - 1),
               "the scaling factors are contiguous in MbsTir, in MBS_TIR_SCALING_KEYS order");

#define PAC_S double
#define PAC_L double
#define PAC_LS(l, s) MBS_SCALE(l, s)
#define PAC_L2S(x, l) MBS_LIKE(x, l)
#define PAC_LC(c) (c)
#define PAC_SUFFIX(name) name##_real
#include "tyre_pac2002_law.h"
#undef PAC_S
#undef PAC_SUFFIX
#define PAC_S MbsDual
#define PAC_SUFFIX(name) name##_dual
#include "tyre_pac2002_law.h"
#undef PAC_S
#undef PAC_L
#undef PAC_LS
#undef PAC_L2S
#undef PAC_LC
#undef PAC_SUFFIX
/* The factors dual too: d out / d lambda */
#define PAC_S MbsDual
#define PAC_L MbsDual
#define PAC_LS(l, s) MBS_MUL(l, s)
#define PAC_L2S(x, l) (l)
#define PAC_LC(c) mbs_dual_constant(c)
#define PAC_SUFFIX(name) name##_scaled
#include "tyre_pac2002_law.h"
#undef PAC_S
#undef PAC_L
#undef PAC_LS
#undef PAC_L2S
#undef PAC_LC
#undef PAC_SUFFIX

/* The factors the law uses at in: the file's, times the wheel's multipliers when it has them. */
static const double *factors(const MbsTyreData *data, const double *scale,
                             double lam[MBS_TIR_SCALING_COUNT])
{
    if (!scale)
        return data->lam;
    memcpy(lam, data->lam, sizeof data->lam);
    for (int k = 0; k < NSCALING; ++k)
        lam[scaling_index[k]] *= scale[k];
    return lam;
}

/* Road friction relative to the tyre's: kept positive so lambda_mu divides (Bt, Br). */
static double road_mu(double mu_scale) { return mu_scale > 1e-6 ? mu_scale : 1e-6; }

/* The interface's promise, never NaN for finite input: a result that overflows double (only
 * reachable with inputs or coefficients far beyond any tyre's: a load of 1e300 N) is returned
 * as no force, with no derivative. */
static void overflow_guard(MbsTyreOutput *out, MbsTyreDerivative *d)
{
    int finite = isfinite(out->kappa) && isfinite(out->alpha);
    for (int i = 0; i < MBS_TYRE_OUT_COUNT; ++i) {
        finite = finite && isfinite(out->out[i]);
        for (int j = 0; d && j < MBS_TYRE_IN_COUNT; ++j)
            finite = finite && isfinite(d->d[i][j]);
    }
    if (finite)
        return;
    memset(out, 0, sizeof *out);
    if (d)
        memset(d, 0, sizeof *d);
}

static void pac2002_evaluate(const MbsTyreData *data, const MbsTyreInput *in, MbsTyreOutput *out,
                             MbsTyreDerivative *d)
{
    double mu = road_mu(in->mu_scale), own[MBS_TIR_SCALING_COUNT];
    const double *lam = factors(data, in->scale, own);
    if (!d) {
        double x[MBS_TYRE_IN_COUNT], y[MBS_TYRE_OUT_COUNT];
        memcpy(x, in->in, sizeof x);
        pac2002_law_real(data, lam, x, mu, y, &out->kappa, &out->alpha);
        memcpy(out->out, y, sizeof y);
        overflow_guard(out, NULL);
        return;
    }
    MbsDual x[MBS_TYRE_IN_COUNT], y[MBS_TYRE_OUT_COUNT], kappa, alpha;
    for (int j = 0; j < MBS_TYRE_IN_COUNT; ++j) {
        x[j] = mbs_dual_constant(in->in[j]);
        x[j].d[j] = 1.0;
    }
    pac2002_law_dual(data, lam, x, mu, y, &kappa, &alpha);
    for (int i = 0; i < MBS_TYRE_OUT_COUNT; ++i) {
        out->out[i] = y[i].v;
        for (int j = 0; j < MBS_TYRE_IN_COUNT; ++j)
            d->d[i][j] = y[i].d[j];
    }
    out->kappa = kappa.v;
    out->alpha = alpha.v;
    overflow_guard(out, d);
}

/* d out / d scale[k] (the multipliers of the law's factors, MbsTyreInput.scale) by the law
 * over dual factors, MBS_DUAL_WIDTH factors a pass: d lambda_k / d scale_k = the file's
 * lambda_k. */
static void pac2002_scaling_derivative(const MbsTyreData *data, const MbsTyreInput *in,
                                       MbsTyreScalingDerivative *d)
{
    double mu = road_mu(in->mu_scale), own[MBS_TIR_SCALING_COUNT];
    const double *lam = factors(data, in->scale, own);
    memset(d, 0, sizeof *d);
    for (int first = 0; first < NSCALING; first += MBS_DUAL_WIDTH) {
        MbsDual x[MBS_TYRE_IN_COUNT], y[MBS_TYRE_OUT_COUNT], kappa, alpha;
        MbsDual l[MBS_TIR_SCALING_COUNT];
        for (int j = 0; j < MBS_TYRE_IN_COUNT; ++j)
            x[j] = mbs_dual_constant(in->in[j]);
        for (int k = 0; k < MBS_TIR_SCALING_COUNT; ++k)
            l[k] = mbs_dual_constant(lam[k]);
        for (int k = first; k < NSCALING && k < first + MBS_DUAL_WIDTH; ++k)
            l[scaling_index[k]].d[k - first] = data->lam[scaling_index[k]];
        pac2002_law_scaled(data, l, x, mu, y, &kappa, &alpha);
        for (int i = 0; i < MBS_TYRE_OUT_COUNT; ++i)
            for (int k = first; k < NSCALING && k < first + MBS_DUAL_WIDTH; ++k)
                d->d[i][k] = isfinite(y[i].d[k - first]) ? y[i].d[k - first] : 0.0;
    }
}

/* The wheel's multipliers: finite, of a coefficient's range, and positive for the factors the
 * file's checks keep positive or nonzero (the law divides by them), so those checks still hold. */
static int pac2002_check_scaling(const MbsTyreData *data, const double *scale, const char *name,
                                 MbsError *err)
{
    (void)data;
    static const int positive[] = {POS_LFZO, POS_LCZ, POS_LMUX, POS_LMUY, POS_LCX, POS_LCY};
    for (int k = 0; k < NSCALING; ++k)
        if (!isfinite(scale[k]) || fabs(scale[k]) > 1e6)
            return mbs_error_set(err, MBS_FATAL, "force '%s': tyre_scaling %s %g is out of range "
                                 "(|value| <= 1e6)", name, scaling_names[k], scale[k]);
    for (size_t i = 0; i < sizeof positive / sizeof positive[0]; ++i) {
        int k = positive[i];
        if (!(scale[k] > 0.0))
            return mbs_error_set(err, MBS_FATAL, "force '%s': tyre_scaling %s %g must be "
                                 "positive", name, scaling_names[k], scale[k]);
    }
    return 0;
}

static void pac2002_vertical(const MbsTyreData *data, const double *scale, double *radius,
                             double *stiffness, double *damping)
{
    *radius = data->tir.UNLOADED_RADIUS;
    *stiffness = scale ? data->cz * scale[POS_LCZ] : data->cz;
    *damping = data->tir.VERTICAL_DAMPING;
}

double mbs_pac2002_rolling_radius(const MbsTyreData *data, double fz)
{
    const MbsTir *t = &data->tir;
    double rho = fz / t->FNOMIN;
    return t->UNLOADED_RADIUS -
           t->FNOMIN / data->cz * (t->DREFF * atan(t->BREFF * rho) + t->FREFF * rho);
}

const MbsTir *mbs_pac2002_tir(const MbsTyreData *data) { return &data->tir; }

void mbs_pac2002_rig(const MbsTyreData *data, double fz, double kappa, double alpha,
                     double gamma, double vx, double mu, MbsTyreOutput *out)
{
    /* kappa = (Omega Re - Vx) / Vx and tan(alpha) = Vy / Vx */
    double re = mbs_pac2002_rolling_radius(data, fz);
    MbsTyreInput in = {.in = {fz, vx, vx * tan(alpha), vx * (1.0 + kappa) / re, gamma},
                       .mu_scale = mu};
    mbs_tyre_pac2002.evaluate(data, &in, out, NULL);
}

static int key_index(const char *name)
{
    for (int i = 0; i < mbs_tir_key_count(); ++i)
        if (!strcmp(mbs_tir_key_at(i)->name, name))
            return i;
    return -1;
}

static double key_value(const MbsTir *t, int k)
{
    double v;
    memcpy(&v, (const char *)t + mbs_tir_key_at(k)->offset, sizeof v);
    return v;
}

/* "FILE:LINE: " or "FILE: " when the key took its default. */
static int refuse(MbsError *err, const char *file, const int *lines, const char *key,
                  const char *why)
{
    int k = key_index(key);
    int line = k >= 0 ? lines[k] : 0;
    if (line)
        return mbs_error_set(err, MBS_FATAL, "%s:%d: %s %s", file, line, key, why);
    return mbs_error_set(err, MBS_FATAL, "%s: %s %s", file, key, why);
}

static int same_text(const char *a, const char *b)
{
    for (; *a && *b; ++a, ++b) {
        int x = *a >= 'a' && *a <= 'z' ? *a - 32 : *a, y = *b >= 'a' && *b <= 'z' ? *b - 32 : *b;
        if (x != y)
            return 0;
    }
    return *a == *b;
}

/* What this law needs of a parsed file beyond the reader's checks. */
static int check(const MbsTir *t, const int *lines, const char *file, MbsError *err)
{
    if (!same_text(t->PROPERTY_FILE_FORMAT, "PAC2002"))
        return refuse(err, file, lines, "PROPERTY_FILE_FORMAT",
                      MBS_N_("must be 'PAC2002' (other Magic Formula versions are not read)"));
    if (t->USE_MODE != 3.0 && t->USE_MODE != 4.0)
        return refuse(err, file, lines, "USE_MODE",
                      MBS_N_("must be 3 (uncombined) or 4 (combined slip): relaxation (+10), "
                             "mirroring (< 0) and the Fx- or Fy-only modes are not modelled"));
    /* TYRESIDE: the side the coefficients were measured on (MF-Tyre: 'LEFT' or 'RIGHT'; absent:
     * LEFT); a wheel on the other side evaluates the law mirrored (mbs_tyre_evaluate) */
    if (t->TYRESIDE[0] && !same_text(t->TYRESIDE, "LEFT") && !same_text(t->TYRESIDE, "RIGHT"))
        return refuse(err, file, lines, "TYRESIDE", MBS_N_("must be 'LEFT' or 'RIGHT'"));
    if (t->WIDTH < 0.0)
        return refuse(err, file, lines, "WIDTH", MBS_N_("must not be negative"));
    static const char *const positive[] = {"FNOMIN", "UNLOADED_RADIUS", "VERTICAL_STIFFNESS",
                                           "LFZO", "LCZ", "VXLOW", "LONGVL", "LMUX", "LMUY"};
    for (size_t i = 0; i < sizeof positive / sizeof positive[0]; ++i)
        if (!(key_value(t, key_index(positive[i])) > 0.0))
            return refuse(err, file, lines, positive[i], MBS_N_("must be positive"));
    static const char *const nonzero[] = {"PCX1", "PDX1", "PCY1", "PDY1", "PKY1", "PKY2"};
    for (size_t i = 0; i < sizeof nonzero / sizeof nonzero[0]; ++i)
        if (key_value(t, key_index(nonzero[i])) == 0.0)
            return refuse(err, file, lines, nonzero[i], MBS_N_("must not be zero"));
    if (t->PCX1 * t->LCX == 0.0)
        return refuse(err, file, lines, "LCX", MBS_N_("must not be zero (C_x = PCX1 LCX)"));
    if (t->PCY1 * t->LCY == 0.0)
        return refuse(err, file, lines, "LCY", MBS_N_("must not be zero (C_y = PCY1 LCY)"));
    /* Magnitudes no tyre has (typing errors such as 1e309 are already refused as numbers):
     * the coefficients are O(1)..O(1e3) in real files; the load and radius span every tyre from
     * a bicycle's to a mining truck's. */
    for (int k = 0; k < mbs_tir_key_count(); ++k) {
        const MbsTirKey *key = mbs_tir_key_at(k);
        if (!key->is_text && key->dimension == MBS_TIR_ONE && fabs(key_value(t, k)) > 1e6)
            return refuse(err, file, lines, key->name,
                          MBS_N_("is out of range (|value| <= 1e6 for a coefficient)"));
    }
    if (t->FNOMIN < 1.0 || t->FNOMIN > 1e7)
        return refuse(err, file, lines, "FNOMIN", MBS_N_("must lie in [1, 1e7] N"));
    if (t->UNLOADED_RADIUS < 1e-3 || t->UNLOADED_RADIUS > 10.0)
        return refuse(err, file, lines, "UNLOADED_RADIUS", MBS_N_("must lie in [0.001, 10] m"));
    if (t->VXLOW < 1e-3)
        return refuse(err, file, lines, "VXLOW", MBS_N_("must be at least 0.001 m/s"));
    if (t->VERTICAL_DAMPING < 0.0)
        return refuse(err, file, lines, "VERTICAL_DAMPING", MBS_N_("must not be negative"));
    /* Terms of other versions or of dynamics this steady-state law does not model: refused
     * rather than ignored when they would change the result. */
    static const char *const absent[] = {"QSX4", "QSX5", "QSX6", "QSX7", "QSX8", "QSX9", "QSX10",
                                         "QSX11", "QSY7", "QSY8", "QTZ1"};
    for (size_t i = 0; i < sizeof absent / sizeof absent[0]; ++i)
        if (key_value(t, key_index(absent[i])) != 0.0)
            return refuse(err, file, lines, absent[i],
                          MBS_N_("is not modelled by this PAC2002 law (it must be 0)"));
    if (t->IP != t->IP_NOM) {
        static const char *const pressure[] = {"PPX1", "PPX2", "PPX3", "PPX4", "PPY1", "PPY2",
                                               "PPY3", "PPY4", "QPZ1", "QPZ2", "QPX1"};
        for (size_t i = 0; i < sizeof pressure / sizeof pressure[0]; ++i)
            if (key_value(t, key_index(pressure[i])) != 0.0)
                return refuse(err, file, lines, pressure[i],
                              MBS_N_("is an inflation-pressure term: pressure effects are not "
                                     "modelled (IP must equal IP_NOM)"));
    }
    return 0;
}

static MbsTyreData *pac2002_parse(const char *text, size_t size, const char *file, MbsError *err)
{
    if (!file)
        file = "(tyre file)";
    if (!text) {
        mbs_error_set(err, MBS_FATAL, MBS_N_("%s: the pac2002 tyre needs a .tir property file"),
                      file);
        return NULL;
    }
    MbsTyreData *d = calloc(1, sizeof *d);
    int *lines = calloc((size_t)mbs_tir_key_count(), sizeof *lines);
    if (!d || !lines) {
        free(d);
        free(lines);
        mbs_error_set(err, MBS_FATAL, MBS_N_("%s: out of memory"), file);
        return NULL;
    }
    if (mbs_tir_parse(text, size, file, &d->tir, lines, err) ||
        check(&d->tir, lines, file, err)) {
        free(d);
        free(lines);
        return NULL;
    }
    free(lines);
    d->combined = d->tir.USE_MODE == 4.0;
    d->cz = d->tir.VERTICAL_STIFFNESS * d->tir.LCZ;
    memcpy(d->lam, &d->tir.LFZO, sizeof d->lam);
    mbs_error_clear(err);
    return d;
}

static MbsTyreData *pac2002_copy(const MbsTyreData *data)
{
    MbsTyreData *d = malloc(sizeof *d);
    if (d)
        *d = *data;
    return d;
}

static void pac2002_free(MbsTyreData *data) { free(data); }

static int pac2002_side(const MbsTyreData *data)
{
    return same_text(data->tir.TYRESIDE, "RIGHT") ? MBS_TYRE_RIGHT : MBS_TYRE_LEFT;
}

static double pac2002_width(const MbsTyreData *data) { return data->tir.WIDTH; }

const MbsTyreModelClass mbs_tyre_pac2002 = {
    .name = "pac2002",
    .description = MBS_N_("Magic Formula 5.2 (PAC2002)"),
    .vertical = pac2002_vertical,
    .evaluate = pac2002_evaluate,
    .parse = pac2002_parse,
    .copy = pac2002_copy,
    .free_data = pac2002_free,
    .side = pac2002_side,
    .width = pac2002_width,
    .scaling = scaling_names,
    .scaling_derivative = pac2002_scaling_derivative,
    .check_scaling = pac2002_check_scaling,
};
