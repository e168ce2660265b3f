/* SDIRK 4/15 for ssode (paper 002 §4; Hairer & Wanner, Solving ODEs II, §IV.6 and their code
 * SDIRK4): see ssode_sdirk.h. One step of h from (t, y):
 *   stages i = 1..5: Z_i = h sum_{j<i} a_ij K_j + h gamma f(t + c_i h, y + Z_i), by simplified
 *     Newton with the matrix I - h gamma J (J at the step start, kept while Newton converges fast),
 *     stopped by the convergence rate theta: eta |dZ| <= kappa, eta = theta / (1 - theta), and
 *     abandoned (h halved) when the forecast theta^(kmax - k) / (1 - theta) |dZ| exceeds kappa;
 *   y_new = y + Z_5 (stiffly accurate: b is the last row of A);
 *   error: (I - h gamma J)^-1 h sum (b_i - d_i) K_i with d the order-3 embedding, a local error
 *     O(h^4) whose stiff components the filter damps (an unfiltered estimate of order 3 does not
 *     vanish for h lambda -> -inf and rejected most steps on the stiff double pendulum);
 *   h_new = h / min(5, max(1/8, err^(1/4) / fac)), fac = 0.9 (2 kmax + 1) / (newt + 2 kmax)
 *     (fewer Newton iterations, larger steps: Hairer's SDIRK4 controller).
 * In y = (x, xd, w) with x' = xd the Newton system reduces to
 *   (I - hg J2 - hg^2 J1) dxd = r_xd + hg J1 r_x,  dx = r_x + hg dxd,  dw = r_w
 * (hg = h gamma; paper 002 eqs 41-46): an nx x nx factorization per step size. */
#include "ssode_sdirk.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mbs_linalg.h"

#define STAGES 5
#define GAMMA (4.0 / 15.0)
/* Hairer's SDIRK4 defaults: Newton iterations per stage, safety factor, step growth at most 8,
 * cut at most 5, keep h (and its LU) when the new one is 1..1.2 times it, keep J when Newton
 * contracted by 1e-3 or better (THET). The Newton stop is ours: a stage's Newton error enters
 * the next stages and y_new through K = (Z - S) / (h gamma), amplified by up to |a_ij| / gamma
 * = 11 (b4 = -3.0): Hairer's 0.03 (of the error weights) left the stiff double pendulum's
 * errors at 18 tol at tol 1e-5 and not falling from 1e-4 to 1e-5 (Table II); 0.002 keeps them
 * at 0.7-1.9 tol, for ~10 % more right-hand sides. */
#define MAX_NEWTON 7
#define NEWTON_KAPPA 0.002
#define SAFETY 0.9
#define MAX_GROWTH 8.0
#define MAX_CUT 5.0
#define KEEP_STEP_MAX 1.2
#define JACOBIAN_REUSE_THETA 1e-3
/* Attempts of one step (error test and Newton failures) before giving up. */
#define MAX_ATTEMPTS 60

/* Hairer & Wanner's SDIRK of order 4, 5 stages, gamma = 4/15, c = (4/15, 23/30, 17/30,
 * 707/1931, 1), stiffly accurate and L-stable; the exact rationals. d: the embedded weights
 * of order 3 with d5 = 0 (the unique solution of the four order-3 conditions on the first
 * four stages). */
const double mbs_ssode_sdirk_c[5] = {4.0 / 15.0, 23.0 / 30.0, 17.0 / 30.0, 707.0 / 1931.0, 1.0};
const double mbs_ssode_sdirk_A[25] = {
    4.0 / 15.0, 0, 0, 0, 0,
    1.0 / 2.0, 4.0 / 15.0, 0, 0, 0,
    51069.0 / 144200.0, -7809.0 / 144200.0, 4.0 / 15.0, 0, 0,
    12047244770625658.0 / 141474406359725325.0, -3057890203562191.0 / 47158135453241775.0,
    2239631894905804.0 / 28294881271945065.0, 4.0 / 15.0, 0,
    181513.0 / 86430.0, -89074.0 / 116015.0, 83636.0 / 34851.0,
    -69863904375173.0 / 23297141763930.0, 4.0 / 15.0};
const double mbs_ssode_sdirk_b[5] = {181513.0 / 86430.0, -89074.0 / 116015.0, 83636.0 / 34851.0,
                                     -69863904375173.0 / 23297141763930.0, 4.0 / 15.0};
const double mbs_ssode_sdirk_d[5] = {33665407.0 / 11668050.0, -2284766.0 / 15662025.0,
                                     11244716.0 / 4704885.0,
                                     -96203066666797.0 / 23297141763930.0, 0.0};

struct SsodeSdirk {
    int nx, nw, n;
    SsodeSdirkRhs rhs;
    SsodeSdirkJacobian jacobian_fn;
    void *data;
    double rtol, atol, hmax;
    double t, h, h_last;
    double hg_lu;      /* h gamma of the factorized E */
    double facon;      /* eta of the last converged stage: the first iteration's stop test */
    int first, reject, need_jacobian, jacobian_fresh, have_lu;
    double *y, *fy;    /* the state and f there */
    double *ynew, *fnew;
    double *Z, *K;     /* STAGES x n: stage increments and derivatives */
    double *S, *F, *G, *dz, *scal;
    double *J1, *J2, *E; /* nx x nx */
    double *Jw;          /* nw x 2 nx: dw'/d(x, xd) */
    int *ipiv;
    SsodeSdirkCounters c;
};

SsodeSdirk *ssode_sdirk_new(int nx, int nw, SsodeSdirkRhs rhs, SsodeSdirkJacobian jacobian,
                            void *data)
{
    SsodeSdirk *sd = calloc(1, sizeof *sd);
    if (!sd)
        return NULL;
    sd->nx = nx;
    sd->nw = nw;
    int n = sd->n = 2 * nx + nw;
    sd->rhs = rhs;
    sd->jacobian_fn = jacobian;
    sd->data = data;
    sd->rtol = sd->atol = 1e-6;
    size_t N = (size_t)n + 1, X2 = (size_t)nx * (size_t)nx + 1;
    double **vecs[] = {&sd->y, &sd->fy, &sd->ynew, &sd->fnew, &sd->S, &sd->F, &sd->G, &sd->dz,
                       &sd->scal};
    int fail = 0;
    for (size_t i = 0; i < sizeof vecs / sizeof vecs[0]; ++i)
        fail |= !(*vecs[i] = calloc(N, sizeof(double)));
    fail |= !(sd->Z = calloc(STAGES * N, sizeof(double)));
    fail |= !(sd->K = calloc(STAGES * N, sizeof(double)));
    fail |= !(sd->J1 = calloc(X2, sizeof(double)));
    fail |= !(sd->J2 = calloc(X2, sizeof(double)));
    fail |= !(sd->E = calloc(X2, sizeof(double)));
    fail |= !(sd->Jw = calloc(2 * (size_t)nx * (size_t)nw + 1, sizeof(double)));
    fail |= !(sd->ipiv = calloc((size_t)nx + 1, sizeof(int)));
    if (fail) {
        ssode_sdirk_free(sd);
        return NULL;
    }
    return sd;
}

void ssode_sdirk_free(SsodeSdirk *sd)
{
    if (!sd)
        return;
    void *bufs[] = {sd->y, sd->fy, sd->ynew, sd->fnew, sd->S, sd->F, sd->G, sd->dz, sd->scal,
                    sd->Z, sd->K, sd->J1, sd->J2, sd->E, sd->Jw, sd->ipiv};
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; ++i)
        free(bufs[i]);
    free(sd);
}

void ssode_sdirk_set_tolerances(SsodeSdirk *sd, double rtol, double atol)
{
    sd->rtol = rtol;
    sd->atol = atol;
}

void ssode_sdirk_set_max_step(SsodeSdirk *sd, double hmax)
{
    sd->hmax = hmax;
}

/* Weights of the error-controlled components x, xd: atol + rtol max(|a|, |b|). */
static void set_scale(SsodeSdirk *sd, const double *a, const double *b)
{
    for (int i = 0; i < 2 * sd->nx; ++i)
        sd->scal[i] = fmax(sd->atol + sd->rtol * fmax(fabs(a[i]), fabs(b[i])), DBL_MIN);
}

/* RMS of v / scal over x, xd (Hairer's norm). */
static double scaled_norm(const SsodeSdirk *sd, const double *v)
{
    int m = 2 * sd->nx;
    if (m == 0)
        return 0.0;
    double sum = 0.0;
    for (int i = 0; i < m; ++i) {
        double e = v[i] / sd->scal[i];
        sum += e * e;
    }
    return sqrt(sum / m);
}

void ssode_sdirk_restart(SsodeSdirk *sd, double t, const double *y, const double *ydot, double h0)
{
    sd->t = t;
    memcpy(sd->y, y, (size_t)sd->n * sizeof(double));
    memcpy(sd->fy, ydot, (size_t)sd->n * sizeof(double));
    if (!(h0 > 0.0)) {
        /* Hairer & Wanner I, §II.4: h0 = 0.01 |y| / |f| in the error norm */
        set_scale(sd, y, y);
        double d0 = scaled_norm(sd, y), d1 = scaled_norm(sd, ydot);
        h0 = d0 < 1e-5 || d1 < 1e-5 ? 1e-6 : 0.01 * d0 / d1;
    }
    sd->h = h0;
    sd->h_last = 0.0;
    sd->facon = 1.0;
    sd->first = 1;
    sd->reject = 0;
    sd->need_jacobian = 1;
    sd->jacobian_fresh = 0;
    sd->have_lu = 0;
}

void ssode_sdirk_rebase(SsodeSdirk *sd, double t, const double *y, const double *ydot)
{
    sd->t = t;
    memcpy(sd->y, y, (size_t)sd->n * sizeof(double));
    memcpy(sd->fy, ydot, (size_t)sd->n * sizeof(double));
    sd->need_jacobian = 1;
    sd->jacobian_fresh = 0;
    sd->have_lu = 0;
}

/* J1 = da/dx, J2 = da/dxd and Jw = dw'/d(x, xd) at (t, y) from the caller. */
static int jacobian(SsodeSdirk *sd)
{
    if (sd->jacobian_fn(sd->data, sd->t, sd->y, sd->fy, sd->J1, sd->J2, sd->Jw) != 0)
        return -1;
    sd->c.jacobians++;
    return 0;
}

/* E = I - hg J2 - hg^2 J1, factorized. */
static int factor(SsodeSdirk *sd, double hg)
{
    size_t X = (size_t)sd->nx;
    for (size_t k = 0; k < X * X; ++k)
        sd->E[k] = -hg * sd->J2[k] - hg * hg * sd->J1[k];
    for (size_t i = 0; i < X; ++i)
        sd->E[i + X * i] += 1.0;
    sd->hg_lu = hg;
    sd->have_lu = sd->nx == 0 || mbs_lu_factor(sd->nx, sd->E, sd->ipiv) == 0;
    return sd->have_lu ? 0 : -1;
}

/* dz = (I - hg J)^-1 r with J = [0 I 0; J1 J2 0; Jw 0] (the quadratures w are not fed back).
 * The w rows matter: without them a stage's w' would be the one at the last iterate before
 * the last correction (the predictor when Newton stops after one iteration), and W was of
 * order 1 (3e-3 relative error at tol 1e-4 on an oscillator's integral of xd^2). */
static void reduced_solve(const SsodeSdirk *sd, double hg, const double *r, double *dz)
{
    int nx = sd->nx;
    size_t X = (size_t)nx;
    double *dx = dz, *dxd = dz + nx;
    for (int i = 0; i < nx; ++i)
        dxd[i] = r[nx + i];
    for (int j = 0; j < nx; ++j) {
        const double *col = &sd->J1[X * (size_t)j];
        double rj = hg * r[j];
        for (int i = 0; i < nx; ++i)
            dxd[i] += col[i] * rj;
    }
    if (nx > 0)
        mbs_lu_solve(nx, sd->E, sd->ipiv, dxd, 1);
    for (int i = 0; i < nx; ++i)
        dx[i] = r[i] + hg * dxd[i];
    for (int w = 0; w < sd->nw; ++w) {
        double d = r[2 * nx + w];
        for (int j = 0; j < 2 * nx; ++j)
            d += hg * sd->Jw[w + (size_t)sd->nw * (size_t)j] * dz[j];
        dz[2 * nx + w] = d;
    }
}

/* The five stages of a step of h into Z, K and sd->ynew. 0, or 1 when Newton fails (diverges,
 * is forecast too slow, or f cannot be evaluated). *newt: most iterations of a stage,
 * *theta: largest contraction rate. */
static int stages(SsodeSdirk *sd, double h, int *newt, double *theta_max)
{
    int n = sd->n;
    size_t N = (size_t)n;
    double hg = GAMMA * h;
    *newt = 0;
    *theta_max = 0.0;
    for (int i = 0; i < STAGES; ++i) {
        double *Zi = &sd->Z[N * (size_t)i], *Ki = &sd->K[N * (size_t)i];
        /* the start: the polynomial through Z = 0 at c = 0 and the stages before, at c_i
         * (the first stage: an Euler step) */
        double w[STAGES];
        for (int j = 0; j < i; ++j) {
            const double *c = mbs_ssode_sdirk_c;
            w[j] = c[i] / c[j];
            for (int l = 0; l < i; ++l)
                if (l != j)
                    w[j] *= (c[i] - c[l]) / (c[j] - c[l]);
        }
        for (int k = 0; k < n; ++k) {
            double s = 0.0, z = i ? 0.0 : hg * sd->fy[k];
            for (int j = 0; j < i; ++j) {
                s += mbs_ssode_sdirk_A[STAGES * i + j] * sd->K[N * (size_t)j + (size_t)k];
                z += w[j] * sd->Z[N * (size_t)j + (size_t)k];
            }
            sd->S[k] = h * s;
            Zi[k] = z;
        }
        double ti = sd->t + mbs_ssode_sdirk_c[i] * h;
        double eta = pow(fmax(sd->facon, DBL_EPSILON), 0.8), dnorm_old = 0.0, rate_old = 0.0;
        int converged = 0;
        for (int it = 0; it < MAX_NEWTON && !converged; ++it) {
            for (int k = 0; k < n; ++k)
                sd->ynew[k] = sd->y[k] + Zi[k];
            sd->c.rhs++;
            if (sd->rhs(sd->data, ti, sd->ynew, sd->F) != 0)
                return 1;
            for (int k = 0; k < n; ++k)
                sd->G[k] = sd->S[k] + hg * sd->F[k] - Zi[k];
            reduced_solve(sd, hg, sd->G, sd->dz);
            for (int k = 0; k < n; ++k)
                Zi[k] += sd->dz[k];
            sd->c.newton_iterations++;
            double dnorm = scaled_norm(sd, sd->dz);
            if (!isfinite(dnorm))
                return 1;
            if (it > 0) {
                /* contraction rate; the first one, measured from the predictor, is
                 * unreliable: up to 2 it gets one more iteration (as 0.9) */
                double rate = dnorm / dnorm_old;
                if (rate >= (it == 1 ? 2.0 : 0.99))
                    return 1;
                /* from the third iteration on, the geometric mean of the last two rates
                 * (RADAU5's smoothing) */
                double theta = it >= 2 ? sqrt(rate * rate_old) : fmin(rate, 0.9);
                rate_old = rate;
                *theta_max = fmax(*theta_max, theta);
                eta = theta / (1.0 - theta);
                /* convergence forecast (Hairer's DYTH), from the third iteration on: the error
                 * left after the remaining iterations; abandoning on the first rate tripled
                 * the convergence failures on the stiff double pendulum */
                if (it >= 2 && eta * dnorm * pow(theta, MAX_NEWTON - 1 - it) > NEWTON_KAPPA)
                    return 1;
            }
            dnorm_old = dnorm;
            if (eta * dnorm <= NEWTON_KAPPA) {
                converged = 1;
                if (it + 1 > *newt)
                    *newt = it + 1;
            }
        }
        if (!converged)
            return 1;
        /* w' at the converged stage: the last evaluation precedes the last correction, which
         * Jw (possibly from an older step) only linearizes; after a large last correction
         * (Newton stopped on the rate alone) evaluate once more (on an oscillator's integral of
         * xd^2 the quadrature was otherwise of order 1: 3e-3 relative error at tol 1e-6) */
        if (sd->nw > 0 && dnorm_old > NEWTON_KAPPA) {
            for (int k = 0; k < n; ++k)
                sd->ynew[k] = sd->y[k] + Zi[k];
            sd->c.rhs++;
            if (sd->rhs(sd->data, ti, sd->ynew, sd->F) != 0)
                return 1;
            for (int w = 2 * sd->nx; w < n; ++w)
                Zi[w] = sd->S[w] + hg * sd->F[w];
        }
        sd->facon = eta;
        for (int k = 0; k < n; ++k)
            Ki[k] = (Zi[k] - sd->S[k]) / hg;
    }
    const double *Z5 = &sd->Z[N * (STAGES - 1)];
    for (int k = 0; k < n; ++k)
        sd->ynew[k] = sd->y[k] + Z5[k];
    return 0;
}

/* The filtered order-3 estimate of the step just computed, in the error norm. */
static double error_norm(SsodeSdirk *sd, double h)
{
    int n = sd->n;
    size_t N = (size_t)n;
    for (int k = 0; k < n; ++k) {
        double s = 0.0;
        for (int i = 0; i < STAGES; ++i)
            s += (mbs_ssode_sdirk_b[i] - mbs_ssode_sdirk_d[i]) * sd->K[N * (size_t)i + (size_t)k];
        sd->G[k] = h * s;
    }
    reduced_solve(sd, GAMMA * h, sd->G, sd->dz);
    set_scale(sd, sd->y, sd->ynew);
    return fmax(scaled_norm(sd, sd->dz), 1e-10);
}

int ssode_sdirk_step(SsodeSdirk *sd, double t_stop)
{
    for (int attempt = 0; attempt < MAX_ATTEMPTS; ++attempt) {
        double h = sd->h;
        if (sd->hmax > 0.0)
            h = fmin(h, sd->hmax);
        double rest = t_stop - sd->t;
        int last = h * 1.0001 >= rest;
        if (last)
            h = rest;
        if (!(h > 10.0 * DBL_EPSILON * fmax(1.0, fabs(sd->t))))
            return -1;
        if (sd->need_jacobian) {
            if (jacobian(sd) != 0)
                return -1;
            sd->need_jacobian = 0;
            sd->jacobian_fresh = 1;
            sd->have_lu = 0;
        }
        if ((!sd->have_lu || GAMMA * h != sd->hg_lu) && factor(sd, GAMMA * h) != 0) {
            sd->h = 0.5 * h;
            sd->reject = 1;
            continue;
        }
        set_scale(sd, sd->y, sd->y);
        int newt;
        double theta;
        int fail = stages(sd, h, &newt, &theta);
        double err = fail ? INFINITY : error_norm(sd, h);
        /* accepted only if f (the ODE's state: the dependent coordinates) exists at the end */
        if (!fail && err <= 1.0) {
            sd->c.rhs++;
            fail = sd->rhs(sd->data, sd->t + h, sd->ynew, sd->fnew) != 0;
        }
        if (fail) {
            /* Newton failed or the positions have no solution there: half the step, with a
             * Jacobian at the step start */
            sd->c.newton_failures++;
            sd->h = 0.5 * h;
            sd->reject = 1;
            sd->need_jacobian = !sd->jacobian_fresh;
            sd->facon = 1.0;
            continue;
        }
        double fac = fmin(SAFETY, SAFETY * (2 * MAX_NEWTON + 1) / (newt + 2 * MAX_NEWTON));
        double quot = fmax(1.0 / MAX_GROWTH, fmin(MAX_CUT, pow(err, 0.25) / fac));
        double hnew = h / quot;
        if (err > 1.0) {
            sd->c.error_test_failures++;
            sd->h = sd->first ? 0.1 * h : hnew;
            sd->reject = 1;
            sd->need_jacobian = !sd->jacobian_fresh;
            continue;
        }
        sd->t = last ? t_stop : sd->t + h;
        double *swap = sd->y;
        sd->y = sd->ynew;
        sd->ynew = swap;
        swap = sd->fy;
        sd->fy = sd->fnew;
        sd->fnew = swap;
        sd->c.steps++;
        sd->h_last = h;
        sd->first = 0;
        if (sd->reject)
            hnew = fmin(hnew, h);
        sd->reject = 0;
        sd->jacobian_fresh = 0;
        sd->need_jacobian = !(theta <= JACOBIAN_REUSE_THETA);
        /* a new h costs a factorization: keep the old one when the change is small */
        if (!sd->need_jacobian && hnew >= h && hnew <= KEEP_STEP_MAX * h && !last)
            hnew = h;
        sd->h = hnew;
        return 0;
    }
    return -1;
}

enum { SCALARS = 10 };

int ssode_sdirk_checkpoint_size(const SsodeSdirk *sd)
{
    return SCALARS + 2 * sd->n + 2 * sd->nx * sd->nx + 2 * sd->nx * sd->nw;
}

void ssode_sdirk_checkpoint_get(const SsodeSdirk *sd, double *x)
{
    const double scalars[SCALARS] = {sd->t, sd->h, sd->h_last, sd->hg_lu, sd->facon, sd->first,
                                     sd->reject, sd->need_jacobian, sd->jacobian_fresh,
                                     sd->have_lu};
    size_t N = (size_t)sd->n, X2 = (size_t)sd->nx * (size_t)sd->nx;
    memcpy(x, scalars, sizeof scalars);
    x += SCALARS;
    memcpy(x, sd->y, N * sizeof(double));
    memcpy(x += N, sd->fy, N * sizeof(double));
    memcpy(x += N, sd->J1, X2 * sizeof(double));
    memcpy(x += X2, sd->J2, X2 * sizeof(double));
    memcpy(x + X2, sd->Jw, 2 * (size_t)sd->nx * (size_t)sd->nw * sizeof(double));
}

void ssode_sdirk_checkpoint_set(SsodeSdirk *sd, const double *x)
{
    sd->t = x[0];
    sd->h = x[1];
    sd->h_last = x[2];
    sd->hg_lu = x[3];
    sd->facon = x[4];
    sd->first = (int)x[5];
    sd->reject = (int)x[6];
    sd->need_jacobian = (int)x[7];
    sd->jacobian_fresh = (int)x[8];
    int have_lu = (int)x[9];
    size_t N = (size_t)sd->n, X2 = (size_t)sd->nx * (size_t)sd->nx;
    x += SCALARS;
    memcpy(sd->y, x, N * sizeof(double));
    memcpy(sd->fy, x += N, N * sizeof(double));
    memcpy(sd->J1, x += N, X2 * sizeof(double));
    memcpy(sd->J2, x += X2, X2 * sizeof(double));
    memcpy(sd->Jw, x + X2, 2 * (size_t)sd->nx * (size_t)sd->nw * sizeof(double));
    sd->have_lu = 0;
    if (have_lu)
        factor(sd, sd->hg_lu);
}

double ssode_sdirk_time(const SsodeSdirk *sd)
{
    return sd->t;
}

const double *ssode_sdirk_state(const SsodeSdirk *sd)
{
    return sd->y;
}

const double *ssode_sdirk_derivative(const SsodeSdirk *sd)
{
    return sd->fy;
}

double ssode_sdirk_last_step(const SsodeSdirk *sd)
{
    return sd->h_last;
}

double ssode_sdirk_next_step(const SsodeSdirk *sd)
{
    return sd->h;
}

const SsodeSdirkCounters *ssode_sdirk_counters(const SsodeSdirk *sd)
{
    return &sd->c;
}
