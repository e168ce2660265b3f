#include "mbs_path.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static void stations(MbsPath *p);

static const char *const kind_names[MBS_PATH_KIND_COUNT] = {"points", "iso3888-1", "iso3888-2",
                                                                 "slalom"};

const char *mbs_path_kind_name(MbsPathKind kind)
{
    return (unsigned)kind < MBS_PATH_KIND_COUNT ? kind_names[kind] : "?";
}

int mbs_path_kind_index(const char *name)
{
    for (int i = 0; name && i < MBS_PATH_KIND_COUNT; ++i)
        if (!strcmp(kind_names[i], name))
            return i;
    return -1;
}

static MbsPath *path_alloc(int n)
{
    MbsPath *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    p->x = malloc(sizeof(double) * (size_t)n);
    p->y = malloc(sizeof(double) * (size_t)n);
    p->slope = malloc(sizeof(double) * (size_t)n);
    p->station = malloc(sizeof(double) * (size_t)n);
    if (!p->x || !p->y || !p->slope || !p->station) {
        mbs_path_free(p);
        return NULL;
    }
    p->n = n;
    return p;
}

void mbs_path_free(MbsPath *p)
{
    if (!p)
        return;
    free(p->x);
    free(p->y);
    free(p->slope);
    free(p->station);
    free(p);
}

MbsPath *mbs_path_copy(const MbsPath *p)
{
    if (!p)
        return NULL;
    MbsPath *c = path_alloc(p->n);
    if (!c)
        return NULL;
    double *x = c->x, *y = c->y, *s = c->slope, *st = c->station;
    *c = *p;
    c->x = x, c->y = y, c->slope = s, c->station = st;
    memcpy(x, p->x, sizeof(double) * (size_t)p->n);
    memcpy(y, p->y, sizeof(double) * (size_t)p->n);
    memcpy(s, p->slope, sizeof(double) * (size_t)p->n);
    memcpy(st, p->station, sizeof(double) * (size_t)p->n);
    return c;
}

/* Fritsch-Carlson slopes: the harmonic mean of the neighbouring secants where they agree in
 * sign, 0 at a local extremum; one-sided three-point slopes at the ends, limited likewise. */
static void pchip_slopes(MbsPath *p)
{
    int n = p->n;
    const double *x = p->x, *y = p->y;
    double *d = p->slope;
    if (n == 2) {
        d[0] = d[1] = (y[1] - y[0]) / (x[1] - x[0]);
        return;
    }
    for (int i = 1; i < n - 1; ++i) {
        double h0 = x[i] - x[i - 1], h1 = x[i + 1] - x[i];
        double s0 = (y[i] - y[i - 1]) / h0, s1 = (y[i + 1] - y[i]) / h1;
        if (s0 * s1 <= 0.0) {
            d[i] = 0.0;
        } else {
            double w0 = 2.0 * h1 + h0, w1 = h1 + 2.0 * h0;
            d[i] = (w0 + w1) / (w0 / s0 + w1 / s1);
        }
    }
    for (int e = 0; e < 2; ++e) { /* the ends */
        int i = e ? n - 1 : 0, a = e ? n - 2 : 1, b = e ? n - 3 : 2;
        double h0 = fabs(x[a] - x[i]), h1 = fabs(x[b] - x[a]);
        double s0 = (y[a] - y[i]) / (x[a] - x[i]), s1 = (y[b] - y[a]) / (x[b] - x[a]);
        double v = ((2.0 * h0 + h1) * s0 - h0 * s1) / (h0 + h1);
        if (v * s0 <= 0.0)
            v = 0.0;
        else if (s0 * s1 <= 0.0 && fabs(v) > 3.0 * fabs(s0))
            v = 3.0 * s0;
        d[i] = v;
    }
}

MbsPath *mbs_path_new_points(const double *xy, int n, MbsError *err)
{
    if (n < 2) {
        mbs_error_set(err, MBS_FATAL, "a path needs at least two points (it has %d)", n);
        return NULL;
    }
    for (int i = 0; i < n; ++i) {
        if (!isfinite(xy[2 * i]) || !isfinite(xy[2 * i + 1])) {
            mbs_error_set(err, MBS_FATAL, "path point %d is not a finite number", i);
            return NULL;
        }
        if (i > 0 && !(xy[2 * i] > xy[2 * i - 2])) {
            mbs_error_set(err, MBS_FATAL,
                          "path point %d: x %g does not increase (the previous point's x is "
                          "%g); a path is y as a function of x",
                          i, xy[2 * i], xy[2 * i - 2]);
            return NULL;
        }
    }
    MbsPath *p = path_alloc(n);
    if (!p) {
        mbs_error_set(err, MBS_FATAL, "out of memory");
        return NULL;
    }
    p->kind = MBS_PATH_POINTS;
    for (int i = 0; i < n; ++i) {
        p->x[i] = xy[2 * i];
        p->y[i] = xy[2 * i + 1];
    }
    pchip_slopes(p);
    stations(p);
    return p;
}

#define SAMPLE_STEP 0.5 /* m between the samples of a transition */

MbsPath *mbs_path_new_lane_change(MbsPathKind kind, double width, double start, double offset,
                                  MbsError *err)
{
    /* ISO 3888-1 and -2: the five sections' lengths and the three lanes' widths */
    double L[5], W[3];
    if (kind == MBS_PATH_ISO3888_1) {
        const double l[5] = {15, 30, 25, 25, 15};
        memcpy(L, l, sizeof L);
        W[0] = 1.1 * width + 0.25, W[1] = 1.2 * width + 0.25, W[2] = 1.3 * width + 0.25;
        if (isnan(offset))
            offset = 3.5;
    } else if (kind == MBS_PATH_ISO3888_2) {
        const double l[5] = {12, 13.5, 11, 12.5, 12};
        memcpy(L, l, sizeof L);
        W[0] = 1.1 * width + 0.25, W[1] = width + 1.0, W[2] = 3.0;
        if (isnan(offset))
            offset = W[0] + 1.0;
    } else {
        mbs_error_set(err, MBS_FATAL, "a lane change is iso3888-1 or iso3888-2");
        return NULL;
    }
    if (!(width > 0.0) || !isfinite(width)) {
        mbs_error_set(err, MBS_FATAL, "'vehicle_width' %g must be positive", width);
        return NULL;
    }
    if (!isfinite(start) || !isfinite(offset)) {
        mbs_error_set(err, MBS_FATAL, "'start' and 'offset' must be finite numbers");
        return NULL;
    }
    if (!(offset >= W[0])) {
        mbs_error_set(err, MBS_FATAL,
                      "'offset' %g m would make the side lane overlap the entry lane (%g m "
                      "wide)", offset, W[0]);
        return NULL;
    }
    double right = -0.5 * W[0]; /* lanes 1 and 5's right-hand boundary */
    double centre[3] = {0.0, right + offset + 0.5 * W[1], right + 0.5 * W[2]};
    int nt[2] = {(int)ceil(L[1] / SAMPLE_STEP), (int)ceil(L[3] / SAMPLE_STEP)};
    MbsPath *p = path_alloc(2 + nt[0] + nt[1] + 2);
    if (!p) {
        mbs_error_set(err, MBS_FATAL, "out of memory");
        return NULL;
    }
    p->kind = kind;
    p->vehicle_width = width, p->start = start, p->offset = offset;
    int k = 0;
    double x = start;
    for (int s = 0; s < 5; ++s) {
        double y0 = centre[s / 2], x0 = x;
        if (s % 2 == 0) { /* a lane: its start (and, for the last, its end) */
            p->lanes[s / 2] = (MbsPathLane){x0, x0 + L[s], y0 - 0.5 * W[s / 2],
                                            y0 + 0.5 * W[s / 2]};
            p->x[k] = x0, p->y[k++] = y0;
            if (s == 4)
                p->x[k] = x0 + L[s], p->y[k++] = y0;
        } else { /* a transition: half-cosine samples after its start */
            double y1 = centre[s / 2 + 1];
            int m = nt[s / 2];
            p->x[k] = x0, p->y[k++] = y0;
            for (int i = 1; i < m; ++i) {
                double u = (double)i / m;
                p->x[k] = x0 + u * L[s];
                p->y[k++] = y0 + (y1 - y0) * 0.5 * (1.0 - cos(M_PI * u));
            }
        }
        x += L[s];
    }
    p->n = k;
    p->nlanes = 3;
    pchip_slopes(p);
    stations(p);
    return p;
}

MbsPath *mbs_path_new_slalom(double width, double start, double spacing, double amplitude,
                             int gates, MbsError *err)
{
    if (!(width > 0.0) || !isfinite(width)) {
        mbs_error_set(err, MBS_FATAL, "'vehicle_width' %g must be positive", width);
        return NULL;
    }
    if (!(spacing > 0.0) || !(spacing <= 1e3) || !(amplitude >= 0.0) || !isfinite(amplitude) ||
        !isfinite(start)) {
        mbs_error_set(err, MBS_FATAL, "a slalom's 'spacing' must be in (0, 1000] m, its "
                      "'amplitude' not negative and 'start' finite (they are %g, %g, %g)", spacing,
                      amplitude, start);
        return NULL;
    }
    if (gates < 1 || gates > MBS_PATH_LANES) {
        mbs_error_set(err, MBS_FATAL, "a slalom has 1 to %d gates ('gates' is %d)",
                      MBS_PATH_LANES, gates);
        return NULL;
    }
    /* m samples per half wave, so that the crests (the gates' centres) are samples and PCHIP
     * keeps them (its slope is 0 at a local extremum) */
    int m = (int)ceil(0.5 * spacing / SAMPLE_STEP);
    MbsPath *p = path_alloc(2 * m * gates + 1);
    if (!p) {
        mbs_error_set(err, MBS_FATAL, "out of memory");
        return NULL;
    }
    p->kind = MBS_PATH_SLALOM;
    p->vehicle_width = width, p->start = start, p->spacing = spacing, p->amplitude = amplitude;
    p->offset = NAN;
    double x_in = start - 0.5 * spacing, w = width + 1.0;
    for (int k = 0; k < p->n; ++k) {
        double u = (double)k / (2 * m); /* in spacings from x_in */
        p->x[k] = x_in + u * spacing;
        p->y[k] = k == 0 || k == p->n - 1 ? 0.0 : amplitude * sin(M_PI * u);
    }
    for (int g = 0; g < gates; ++g) {
        double x = start + g * spacing, y = g % 2 ? -amplitude : amplitude;
        p->lanes[g] = (MbsPathLane){x, x, y - 0.5 * w, y + 0.5 * w};
    }
    p->nlanes = gates;
    pchip_slopes(p);
    stations(p);
    return p;
}

/* The segment [X[lo], X[lo + 1]] holding x (X[0] < x < X[n - 1]), by bisection. */
static int segment(const MbsPath *p, double x)
{
    int lo = 0, hi = p->n - 1; /* X[lo] <= x < X[hi] */
    while (hi - lo > 1) {
        int mid = (lo + hi) / 2;
        if (p->x[mid] <= x)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

/* Cubic Hermite on [X[lo], X[lo + 1]] in t = (x - X[lo]) / h: y, y', y''. */
static void hermite(const MbsPath *p, int lo, double x, double *y, double *slope,
                    double *curvature)
{
    const double *X = p->x, *Y = p->y, *D = p->slope;
    int hi = lo + 1;
    double h = X[hi] - X[lo], t = (x - X[lo]) / h;
    double y0 = Y[lo], y1 = Y[hi], d0 = D[lo] * h, d1 = D[hi] * h;
    double t2 = t * t, t3 = t2 * t;
    *y = (2 * t3 - 3 * t2 + 1) * y0 + (t3 - 2 * t2 + t) * d0 + (-2 * t3 + 3 * t2) * y1 +
         (t3 - t2) * d1;
    *slope = ((6 * t2 - 6 * t) * y0 + (3 * t2 - 4 * t + 1) * d0 + (-6 * t2 + 6 * t) * y1 +
              (3 * t2 - 2 * t) * d1) / h;
    *curvature = ((12 * t - 6) * y0 + (6 * t - 4) * d0 + (-12 * t + 6) * y1 + (6 * t - 2) * d1) /
                 (h * h);
}

void mbs_path_eval(const MbsPath *p, double x, double *y, double *slope, double *curvature)
{
    const double *X = p->x, *Y = p->y;
    int n = p->n;
    if (!(x > X[0]) || x >= X[n - 1]) { /* held beyond the ends (and at a NaN x) */
        *y = x >= X[n - 1] ? Y[n - 1] : Y[0];
        *slope = *curvature = 0.0;
        return;
    }
    hermite(p, segment(p, x), x, y, slope, curvature);
}

/* The arc length of segment lo from X[lo] to x: five-point Gauss-Legendre on sqrt(1 + y'^2),
 * y' a quadratic (exact to degree 9; on the lane changes' 0.5 m samples its error is below
 * 1e-13 m). */
static double segment_length(const MbsPath *p, int lo, double x)
{
    static const double node[5] = {-0.9061798459386640, -0.5384693101056831, 0.0,
                                   0.5384693101056831, 0.9061798459386640};
    static const double weight[5] = {0.2369268850561891, 0.4786286704993665,
                                     0.5688888888888889, 0.4786286704993665,
                                     0.2369268850561891};
    double a = p->x[lo], half = 0.5 * (x - a), sum = 0.0;
    for (int i = 0; i < 5; ++i) {
        double y, s, c;
        hermite(p, lo, a + half * (1.0 + node[i]), &y, &s, &c);
        sum += weight[i] * sqrt(1.0 + s * s);
    }
    return half * sum;
}

/* The arc length at the points (station[0] = 0). */
static void stations(MbsPath *p)
{
    p->station[0] = 0.0;
    for (int i = 1; i < p->n; ++i)
        p->station[i] = p->station[i - 1] + segment_length(p, i - 1, p->x[i]);
}

double mbs_path_station(const MbsPath *p, double x, double *rate)
{
    const double *X = p->x;
    int n = p->n;
    if (!(x > X[0]) || x >= X[n - 1]) { /* y held: straight beyond the ends */
        *rate = 1.0;
        return x >= X[n - 1] ? p->station[n - 1] + (x - X[n - 1]) : x - X[0];
    }
    int lo = segment(p, x);
    double y, s, c;
    hermite(p, lo, x, &y, &s, &c);
    *rate = sqrt(1.0 + s * s);
    return p->station[lo] + segment_length(p, lo, x);
}

int mbs_path_lanes(const MbsPath *p, MbsPathLane *lanes, int max)
{
    for (int i = 0; i < p->nlanes && i < max; ++i)
        lanes[i] = p->lanes[i];
    return p->nlanes;
}

int mbs_path_cones(const MbsPath *p, double *xy, int max)
{
    int k = 0, along = p->kind == MBS_PATH_SLALOM ? 1 : 3; /* a gate: its two cones */
    for (int i = 0; i < p->nlanes; ++i) {
        const MbsPathLane *l = &p->lanes[i];
        for (int j = 0; j < along; ++j)
            for (int side = 0; side < 2; ++side, ++k)
                if (k < max) {
                    xy[2 * k] = l->x0 + 0.5 * j * (l->x1 - l->x0);
                    xy[2 * k + 1] = side ? l->y_max : l->y_min;
                }
    }
    return k;
}
