/* The tangent interface (engine/mbs_tangent.h): nd-forward and nd-central against the analytic
 * derivatives of a known function (errors of order sqrt(eps) and eps^(2/3) with increments
 * scaled by the coordinates), bit-identical results on 1 and 2 threads, evaluation counts, a
 * sparsity pattern restricting the computed entries, a failing residual, and the tangents of
 * penalty, ali3p (dense and sparse) and matrix-r against an independent difference of each
 * formulation's own residual; ad and ad-sparse on the same problems through their dual
 * evaluation (banded_dual), and refused by a problem or a formulation without one. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mbs_formulation.h"
#include "form_matrix_r.h"
#include "mbs_tangent.h"
#include "mbs_tangent_probe.h"
#include "tap.h"
#include "test_models.h"

/* r_i = sin(x_i) x_{i+1} + atan(x_{i-1}) + x_i^3 / 3: a tridiagonal Jacobian. */
typedef struct {
    int n;
    int fail_column; /* the residual fails when this column is perturbed (-2: never) */
    long calls;
    int negate;      /* what the problem asks of the analytical Jacobian */
} Banded;

static int banded(void *ctx, const double *x, int column, double step, double *r)
{
    Banded *b = ctx;
    (void)step;
    b->calls++;
    if (column == b->fail_column)
        return MBS_RECOVERABLE;
    for (int i = 0; i < b->n; ++i) {
        r[i] = x[i] * x[i] * x[i] / 3.0;
        if (i + 1 < b->n)
            r[i] += sin(x[i]) * x[i + 1];
        if (i > 0)
            r[i] += atan(x[i - 1]);
    }
    return 0;
}

/* The same over dual numbers (the AD methods' residual_dual), in the same order. A pass that
 * seeds the failing column fails. */
static int banded_dual(void *ctx, const MbsDual *x, int largest, MbsDual *r)
{
    Banded *b = ctx;
    b->calls++;
    for (int j = 0; b->fail_column >= 0 && j <= largest; ++j)
        for (int k = 0; k < MBS_DUAL_WIDTH; ++k)
            if (j == b->fail_column && x[j].d[k] != 0.0)
                return MBS_RECOVERABLE;
    for (int i = 0; i < b->n; ++i) {
        r[i] = mbs_dual_scale(1.0 / 3.0, mbs_dual_mul(mbs_dual_mul(x[i], x[i]), x[i]));
        if (i + 1 < b->n)
            r[i] = mbs_dual_add(r[i], mbs_dual_mul(mbs_dual_sin(x[i]), x[i + 1]));
        if (i > 0)
            r[i] = mbs_dual_add(r[i], mbs_dual_atan(x[i - 1]));
    }
    return 0;
}

static double banded_derivative(int n, const double *x, int i, int j)
{
    if (j == i - 1)
        return 1.0 / (1.0 + x[i - 1] * x[i - 1]);
    if (j == i)
        return x[i] * x[i] + (i + 1 < n ? cos(x[i]) * x[i + 1] : 0.0);
    if (j == i + 1)
        return sin(x[i]);
    return 0.0;
}

static double banded_derivative(int n, const double *x, int i, int j);

/* The `analytical` method's hook: the exact Jacobian (with the problem's sign). */
static int banded_analytical(void *ctx, const double *x, double *J)
{
    Banded *b = ctx;
    for (int j = 0; j < b->n; ++j)
        for (int i = 0; i < b->n; ++i)
            J[i + (size_t)b->n * j] = (b->negate ? -1.0 : 1.0) * banded_derivative(b->n, x, i, j);
    return 0;
}

/* Coordinates of moderate size, or (large) of very different magnitudes, where an increment
 * not scaled by the coordinate loses digits on the diagonal entries of the large ones (the
 * off-diagonal entries of their rows are lost to round-off whatever the increment). */
static void banded_point(int n, int large, double *x)
{
    static const double moderate[] = {0.3, -1.2, 2.5, 1.7, -0.6, 0.02, 2.9, -2.2};
    static const double mixed[] = {0.3, -1.2, 2.5, 4000.0, -15.0, 0.02, 7.0, -60.0};
    for (int i = 0; i < n; ++i)
        x[i] = (large ? mixed : moderate)[i % 8] * (1.0 + 0.01 * i);
}

static MbsTangent make(MbsJacobianMethod method, int n, Banded *ctx, int nthreads,
                       const MbsSparsity *pattern, int negate)
{
    void **contexts = malloc(sizeof(void *) * (size_t)nthreads);
    for (int t = 0; t < nthreads; ++t) {
        ctx[t] = (Banded){.n = n, .fail_column = -2, .negate = negate};
        contexts[t] = &ctx[t];
    }
    MbsTangentProblem p = {.nx = n, .nr = n, .residual = banded, .contexts = contexts,
                           .nthreads = nthreads, .pattern = pattern, .negate = negate,
                           .analytical_jacobian = banded_analytical,
                           .residual_dual = banded_dual};
    MbsTangent t;
    MbsError err = {0};
    if (mbs_tangent_init(&t, &p, method, &err))
        tap_diag("mbs_tangent_init: %s", err.message);
    return t;
}

static void release(MbsTangent *t)
{
    free((void *)t->problem.contexts);
    mbs_tangent_free(t);
}

/* Largest error relative to (1 + |exact|) over the dense J (or its diagonal). */
static double banded_error(int n, const double *x, const double *J, double sign, int diagonal)
{
    double worst = 0.0;
    for (int j = 0; j < n; ++j)
        for (int i = diagonal ? j : 0; i < (diagonal ? j + 1 : n); ++i) {
            double exact = sign * banded_derivative(n, x, i, j);
            worst = fmax(worst, fabs(J[i + (size_t)n * j] - exact) / (1.0 + fabs(exact)));
        }
    return worst;
}

static void test_accuracy(void)
{
    enum { N = 8 };
    double x[N], r0[N], J[N * N];
    Banded ctx[1];
    double bound[MBS_JACOBIAN_COUNT] = {
        [MBS_JACOBIAN_ND_FORWARD] = 20.0 * sqrt(DBL_EPSILON),
        [MBS_JACOBIAN_ND_CENTRAL] = 20.0 * pow(DBL_EPSILON, 2.0 / 3.0),
        [MBS_JACOBIAN_ND_SPARSE] = 20.0 * sqrt(DBL_EPSILON), /* forward; no pattern here */
        [MBS_JACOBIAN_AD] = 4.0 * DBL_EPSILON,        /* exact but for round-off */
        [MBS_JACOBIAN_AD_SPARSE] = 4.0 * DBL_EPSILON,
        [MBS_JACOBIAN_ANALYTICAL] = 4.0 * DBL_EPSILON, /* the hook's own exact values */
    };
    double error[MBS_JACOBIAN_COUNT];
    for (int m = 0; m < MBS_JACOBIAN_COUNT; ++m) {
        const char *name = mbs_jacobian_method_name((MbsJacobianMethod)m);
        MbsTangent t = make((MbsJacobianMethod)m, N, ctx, 1, NULL, 0);
        banded_point(N, 1, x);
        banded(&ctx[0], x, -1, 0.0, r0);
        int status = mbs_tangent_eval(&t, x, r0, J);
        double diagonal = banded_error(N, x, J, 1.0, 1);
        tap_below(diagonal, bound[m], "%s: coordinates from 0.02 to 4000: diagonal error %.2e "
                  "(bound %.1e: increments scaled by the coordinates)", name, diagonal, bound[m]);
        banded_point(N, 0, x);
        banded(&ctx[0], x, -1, 0.0, r0);
        status |= mbs_tangent_eval(&t, x, r0, J);
        error[m] = banded_error(N, x, J, 1.0, 0);
        tap_ok(status == 0, "%s: evaluated", name);
        tap_below(error[m], bound[m], "%s: error %.2e against the analytic Jacobian (bound %.1e)",
                  name, error[m], bound[m]);
        /* one colour a column here; AD: MBS_DUAL_WIDTH columns an evaluation; the analytical
         * hook evaluates no residual */
        long want = m == MBS_JACOBIAN_ND_CENTRAL             ? 2 * N
                    : m == MBS_JACOBIAN_ANALYTICAL           ? 0
                    : mbs_jacobian_method_needs_dual(m) ? (N + MBS_DUAL_WIDTH - 1) / MBS_DUAL_WIDTH
                                                        : N;
        tap_ok(t.evaluations == want, "%s: %ld residual evaluations for %d columns (want %ld)",
               name, t.evaluations, N, want);
        release(&t);
    }
    tap_ok(error[MBS_JACOBIAN_ND_CENTRAL] < 0.01 * error[MBS_JACOBIAN_ND_FORWARD],
           "central differences are more accurate than forward ones (%.1e vs %.1e)",
           error[MBS_JACOBIAN_ND_CENTRAL], error[MBS_JACOBIAN_ND_FORWARD]);

    /* Without r(x) given, nd-forward evaluates it once more; negate gives -dr/dx. */
    MbsTangent t = make(MBS_JACOBIAN_ND_FORWARD, N, ctx, 1, NULL, 1);
    int status = mbs_tangent_eval(&t, x, NULL, J);
    tap_ok(status == 0 && t.evaluations == N + 1,
           "nd-forward without r(x): %ld evaluations (want %d)", t.evaluations, N + 1);
    tap_below(banded_error(N, x, J, -1.0, 0), bound[MBS_JACOBIAN_ND_FORWARD],
              "negate: J = -dr/dx (error %.1e)", banded_error(N, x, J, -1.0, 0));
    release(&t);
}

static void test_threads(void)
{
    enum { N = 41 };
    double x[N], r0[N], J1[N * N], J2[N * N];
    banded_point(N, 1, x);
    for (int m = 0; m < MBS_JACOBIAN_COUNT; ++m) {
        Banded one[1], two[2];
        MbsTangent t1 = make((MbsJacobianMethod)m, N, one, 1, NULL, 1);
        MbsTangent t2 = make((MbsJacobianMethod)m, N, two, 2, NULL, 1);
        banded(&one[0], x, -1, 0.0, r0);
        int s1 = mbs_tangent_eval(&t1, x, r0, J1), s2 = mbs_tangent_eval(&t2, x, r0, J2);
        tap_ok(s1 == 0 && s2 == 0 && !memcmp(J1, J2, sizeof J1),
               "%s: 1 and 2 threads give bit-identical Jacobians",
               mbs_jacobian_method_name((MbsJacobianMethod)m));
        tap_ok(t1.evaluations == t2.evaluations && two[0].calls + two[1].calls == t2.evaluations,
               "%s: evaluations counted over the threads (%ld = %ld + %ld)",
               mbs_jacobian_method_name((MbsJacobianMethod)m), t2.evaluations, two[0].calls,
               two[1].calls);
        release(&t1);
        release(&t2);
    }
}

/* Tridiagonal pattern (or, with upper = 0, only the diagonal and subdiagonal). */
static int tridiagonal(int n, int upper, int *colptr, int *rowind)
{
    int k = 0;
    for (int j = 0; j < n; ++j) {
        colptr[j] = k;
        for (int i = j - (upper ? 1 : 0); i <= j + 1; ++i)
            if (i >= 0 && i < n)
                rowind[k++] = i;
    }
    colptr[n] = k;
    return k;
}

static void test_pattern(void)
{
    enum { N = 12 };
    double x[N], r0[N], J[N * N], values[3 * N + 1];
    int colptr[N + 1], rowind[3 * N];
    banded_point(N, 1, x);
    Banded ctx[2];
    for (int upper = 1; upper >= 0; --upper) {
        int nnz = tridiagonal(N, upper, colptr, rowind);
        MbsSparsity pattern = {.colptr = colptr, .rowind = rowind};
        MbsTangent dense = make(MBS_JACOBIAN_ND_CENTRAL, N, ctx, 1, NULL, 0);
        MbsTangent sparse = make(MBS_JACOBIAN_ND_CENTRAL, N, ctx + 1, 1, &pattern, 0);
        banded(&ctx[0], x, -1, 0.0, r0);
        mbs_tangent_eval(&dense, x, r0, J);
        for (int k = 0; k <= 3 * N; ++k)
            values[k] = -999.0;
        int status = mbs_tangent_eval(&sparse, x, r0, values);
        int same = 1;
        for (int j = 0; j < N; ++j)
            for (int k = colptr[j]; k < colptr[j + 1]; ++k)
                same = same && values[k] == J[rowind[k] + (size_t)N * j];
        int untouched = 1;
        for (int k = nnz; k <= 3 * N; ++k)
            untouched = untouched && values[k] == -999.0;
        tap_ok(status == 0 && same && untouched,
               "pattern with %d entries (%s): its values equal the dense Jacobian's, nothing "
               "written beyond them", nnz, upper ? "tridiagonal" : "lower bidiagonal");
        release(&dense);
        release(&sparse);
    }
}

/* matrix-r's degrees of freedom may change with a partition: a tangent made for 10 columns
 * serves 6 as a tangent made for 6 does, and refuses 11. */
static void test_size(void)
{
    enum { N = 10, M = 6 };
    double x[N], r0[N], J[N * N], Jm[M * M];
    banded_point(N, 1, x);
    Banded big[1], small[1];
    MbsTangent t = make(MBS_JACOBIAN_ND_CENTRAL, N, big, 1, NULL, 0);
    MbsTangent u = make(MBS_JACOBIAN_ND_CENTRAL, M, small, 1, NULL, 0);
    int refused = mbs_tangent_set_size(&t, N + 1, N) != 0;
    int status = mbs_tangent_set_size(&t, M, M);
    big[0].n = M;
    banded(&small[0], x, -1, 0.0, r0);
    status |= mbs_tangent_eval(&t, x, r0, J) | mbs_tangent_eval(&u, x, r0, Jm);
    tap_ok(refused && status == 0 && !memcmp(J, Jm, sizeof Jm) && t.evaluations == 2 * M,
           "a tangent made for %d columns computes a %d x %d one like a tangent made for it, "
           "and refuses %d", N, M, M, N + 1);
    release(&t);
    release(&u);
}

static void test_failure(void)
{
    enum { N = 10 };
    double x[N], r0[N], J[N * N];
    banded_point(N, 1, x);
    static const MbsJacobianMethod methods[] = {MBS_JACOBIAN_ND_FORWARD, MBS_JACOBIAN_AD};
    for (size_t m = 0; m < sizeof methods / sizeof methods[0]; ++m)
        for (int threads = 1; threads <= 2; ++threads) {
            Banded ctx[2];
            MbsTangent t = make(methods[m], N, ctx, threads, NULL, 0);
            banded(&ctx[0], x, -1, 0.0, r0);
            for (int k = 0; k < threads; ++k)
                ctx[k].fail_column = 3;
            int status = mbs_tangent_eval(&t, x, r0, J);
            tap_ok(status == MBS_RECOVERABLE, "%s, %d thread(s): a failing residual's status "
                   "is returned (%d)", mbs_jacobian_method_name(methods[m]), threads, status);
            release(&t);
        }
    /* a problem without a dual evaluation refuses the AD methods */
    Banded ctx[1] = {{.n = N, .fail_column = -2}};
    void *contexts[1] = {ctx};
    MbsTangentProblem p = {.nx = N, .nr = N, .residual = banded, .contexts = contexts,
                           .nthreads = 1};
    MbsTangent t;
    MbsError err = {0};
    int status = mbs_tangent_init(&t, &p, MBS_JACOBIAN_AD_SPARSE, &err);
    tap_ok(status == MBS_FATAL && strstr(err.message, "'ad-sparse'") &&
               strstr(err.message, "dual-number"),
           "ad-sparse without residual_dual is refused: %s", err.message);
}

/* An independent derivative of the formulation's residual: Richardson-extrapolated central
 * differences with large increments (error O(h^4)), against the interface's J. */
static double probe_error(const MbsTangentProbe *probe)
{
    const MbsTangentProblem *p = &probe->tangent->problem;
    int nx = p->nx, nr = p->nr;
    const MbsSparsity *sp = p->pattern;
    size_t nJ = sp ? (size_t)sp->colptr[nx] : (size_t)nx * (size_t)nr;
    double *J = calloc(nJ + 1, sizeof(double));
    double *x = malloc(sizeof(double) * (size_t)nx);
    double *r[4], *ref = calloc((size_t)nx * (size_t)nr + 1, sizeof(double));
    for (int k = 0; k < 4; ++k)
        r[k] = malloc(sizeof(double) * (size_t)nr);
    void *ctx = p->contexts[0];
    double sign = p->negate ? -1.0 : 1.0, scale = 0.0, worst = 0.0;
    if (mbs_tangent_eval(probe->tangent, probe->x, probe->r0, J))
        worst = INFINITY;
    memcpy(x, probe->x, sizeof(double) * (size_t)nx);
    if (p->begin)
        p->begin(ctx);
    for (int j = 0; j < nx; ++j) {
        double h = 1e-3 * fmax(1.0, fabs(x[j])), x0 = x[j];
        static const double steps[4] = {1.0, -1.0, 0.5, -0.5};
        for (int k = 0; k < 4; ++k) {
            x[j] = x0 + steps[k] * h;
            p->residual(ctx, x, j, steps[k] * h, r[k]);
        }
        x[j] = x0;
        for (int i = 0; i < nr; ++i) {
            double d1 = (r[0][i] - r[1][i]) / (2.0 * h), d2 = (r[2][i] - r[3][i]) / h;
            ref[i + (size_t)nr * j] = sign * (4.0 * d2 - d1) / 3.0;
            scale = fmax(scale, fabs(ref[i + (size_t)nr * j]));
        }
    }
    for (int j = 0; j < nx; ++j) {
        size_t lo = sp ? (size_t)sp->colptr[j] : (size_t)nr * j;
        size_t hi = sp ? (size_t)sp->colptr[j + 1] : lo + (size_t)nr;
        for (size_t k = lo; k < hi; ++k) {
            int i = sp ? sp->rowind[k] : (int)(k - lo);
            worst = fmax(worst, fabs(J[k] - ref[i + (size_t)nr * j]));
        }
    }
    for (int k = 0; k < 4; ++k)
        free(r[k]);
    free(ref);
    free(x);
    free(J);
    return scale > 0.0 ? worst / scale : worst;
}

typedef struct {
    const char *formulation, *label;
    const char *setting, *value; /* one more setting of the case, or NULL */
} Case;

static void test_formulations(void)
{
    static const Case cases[] = {
        {"penalty", "penalty: -dQ/d[zd, z]", NULL, NULL},
        {"ali3p", "ali3p, dense: -dQ/d[q, qd]", "algebra", "dense"},
        {"ali3p", "ali3p, sparse pattern: -dQ/d[q, qd]", "algebra",
         "sparse"},
        {"matrix-r", "matrix-r trapezoidal: dg/dz_i", "integrator",
         "trapezoidal"},
        {"ssode", "ssode: d(vdd, W')/d(v, vd)", NULL, NULL},
    };
    /* Relative to the largest entry; the residuals solve inner problems (matrix-r's position
     * problem) to the Newton tolerance, which bounds what differences can resolve. */
    double bound[MBS_JACOBIAN_COUNT] = {[MBS_JACOBIAN_ND_FORWARD] = 1e-5,
                                        [MBS_JACOBIAN_ND_CENTRAL] = 1e-7,
                                        [MBS_JACOBIAN_ND_SPARSE] = 1e-5,
                                        [MBS_JACOBIAN_AD] = 1e-7,
                                        [MBS_JACOBIAN_AD_SPARSE] = 1e-7,
                                        [MBS_JACOBIAN_ANALYTICAL] = 1e-7};
    MbsModel *m = build_slider_crank(0);
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c)
        for (int method = 0; method < MBS_JACOBIAN_COUNT; ++method) {
            MbsSettings s;
            mbs_settings_defaults(&s);
            s.step = 1e-3;
            MbsError err = {0};
            int status = mbs_settings_set_for(&s, cases[c].formulation, "jacobian",
                                              mbs_jacobian_method_name((MbsJacobianMethod)method),
                                              &err);
            if (cases[c].setting && !status)
                status = mbs_settings_set_for(&s, cases[c].formulation, cases[c].setting,
                                              cases[c].value, &err);
            MbsFormulation *f =
                status ? NULL : mbs_formulation_new(cases[c].formulation, m, &s, &err);
            /* what a formulation does not offer (mbs_formulation_offers_jacobian: matrix-r has
             * no analytical and no compressed tangent) is refused, naming both */
            const MbsFormulationClass *k = mbs_formulation_find(cases[c].formulation);
            if (!mbs_formulation_offers_jacobian(k, (MbsJacobianMethod)method)) {
                tap_ok(!f && strstr(err.message, cases[c].formulation) &&
                           strstr(err.message, mbs_jacobian_method_name(method)) &&
                           strstr(err.message, "does not offer the Jacobian method"),
                       "%s, %s: refused, naming the formulation: %s", cases[c].label,
                       mbs_jacobian_method_name(method), err.message);
                mbs_formulation_free(f);
                continue;
            }
            status = f ? 0 : MBS_FATAL;
            for (int k = 0; k < 50 && !status; ++k)
                status = mbs_formulation_step(f, &err);
            MbsTangentProbe probe;
            if (!status)
                status = mbs_formulation_tangent_probe(f, &probe, &err);
            double error = status ? INFINITY : probe_error(&probe);
            tap_below(error, bound[method], "%s, %s: %s at t = 50 ms against Richardson "
                      "differences of its residual: %.1e of the largest entry %s",
                      cases[c].label, mbs_jacobian_method_name((MbsJacobianMethod)method),
                      status ? "failed" : "J", error, status ? err.message : "");
            mbs_formulation_free(f);
        }
    mbs_model_free(m);
}

/* The analytical method needs the problem's hook. */
static void test_analytical_refusal(void)
{
    Banded ctx = {.n = 3, .fail_column = -2};
    void *contexts[1] = {&ctx};
    MbsTangentProblem p = {.nx = 3, .nr = 3, .residual = banded, .contexts = contexts,
                           .nthreads = 1};
    MbsTangent t;
    MbsError err = {0};
    int status = mbs_tangent_init(&t, &p, MBS_JACOBIAN_ANALYTICAL, &err);
    tap_ok(status == MBS_FATAL && strstr(err.message, "analytical Jacobian is not available"),
           "analytical without the problem's analytical_jacobian: refused (%s)", err.message);
}

/* ali3p's columns on 1 and 2 threads: the same trajectory to the last bit. */
static void test_ali3p_threads(void)
{
    MbsModel *m = build_slider_crank(0);
    MbsMonitors end[2];
    int ok = 1;
    for (int threads = 1; threads <= 2; ++threads) {
        MbsSettings s;
        mbs_settings_defaults(&s);
        s.step = 1e-3;
        MbsError err = {0};
        mbs_settings_set_number_for(&s, "ali3p", "threads", threads, &err);
        MbsFormulation *f = mbs_formulation_new("ali3p", m, &s, &err);
        for (int k = 0; f && k < 300 && ok; ++k)
            ok = mbs_formulation_step(f, &err) == 0;
        ok = ok && f;
        if (f)
            end[threads - 1] = f->monitors;
        mbs_formulation_free(f);
    }
    tap_ok(ok && end[0].total == end[1].total && end[0].phi_norm == end[1].phi_norm &&
               end[0].kinetic == end[1].kinetic,
           "ali3p, slider-crank with springs: 1 and 2 threads give the same energies and "
           "constraint error after 300 steps (%.17g J)", ok ? end[1].total : 0.0);
    mbs_model_free(m);
}

/* matrix-r with point coordinates as degrees of freedom (Theta = [Phi_z; B(z)]): its
 * analytical tangent against Richardson differences while the tip's coordinates are the DOFs;
 * ad refuses them, naming the methods that take them. */
static void test_matrix_r_point_dofs(void)
{
    MbsModel *m = build_double_pendulum(M_PI / 2, 0.3, 1);
    int tip = mbs_model_find_point(m, mbs_model_find_body(m, "bar2"), "bar2.2");
    static const char *const methods[3] = {"analytical", "nd-central", "ad"};
    for (int k = 0; k < 3; ++k) {
        MbsSettings s;
        mbs_settings_defaults(&s);
        s.step = 1e-3;
        MbsError err = {0};
        mbs_settings_set_for(&s, "matrix-r", "integrator", "trapezoidal", &err);
        mbs_settings_set_for(&s, "matrix-r", "jacobian", methods[k], &err);
        MbsDofList *dofs = mbs_settings_value_for(&s, "matrix-r", "dof");
        dofs->count = 2;
        dofs->items[0] = (MbsDofChoice){-1, 0, tip, 1};
        dofs->items[1] = (MbsDofChoice){-1, 0, tip, 2};
        MbsFormulation *f = mbs_formulation_new("matrix-r", m, &s, &err);
        if (k == 2) {
            tap_ok(!f && strstr(err.message, "point coordinates") &&
                       strstr(err.message, "analytical"),
                   "matrix-r, tip coordinates as DOFs: ad refused: %s", err.message);
            mbs_formulation_free(f);
            continue;
        }
        int status = f ? 0 : MBS_FATAL;
        for (int i = 0; i < 50 && !status; ++i)
            status = mbs_formulation_step(f, &err);
        MbsMatrixRStats st = {0};
        if (f)
            mbs_matrix_r_stats(f, &st);
        MbsTangentProbe probe;
        if (!status)
            status = mbs_formulation_tangent_probe(f, &probe, &err);
        double error = status ? INFINITY : probe_error(&probe);
        tap_below(error, k == 0 ? 1e-9 : 1e-6,
                  "matrix-r, tip coordinates as DOFs (%ld partition), %s: J at t = 50 ms against "
                  "Richardson differences of its residual: %.1e of the largest entry %s",
                  st.partitions, methods[k], error, status ? err.message : "");
        mbs_formulation_free(f);
    }
    mbs_model_free(m);
}

int main(void)
{
    test_accuracy();
    test_threads();
    test_pattern();
    test_size();
    test_failure();
    test_formulations();
    test_analytical_refusal();
    test_ali3p_threads();
    test_matrix_r_point_dofs();
    return tap_done();
}
