/* nd-sparse (issue 9): penalty's structural pattern of [C, K] = -dQ/d[zd, z] from the topology
 * against dense evaluations, the column colouring, compressed differences against nd-forward
 * and nd-central column by column, and trajectories with nd-sparse against nd-central (and
 * analytical against nd-forward). */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mbs_dynamics.h"
#include "mbs_formulation.h"
#include "mbs_tangent.h"
#include "mbs_tangent_probe.h"
#include "mbs_topology.h"
#include "tap.h"
#include "tangent_cases.h"
#include "test_models.h"

typedef struct {
    const char *name;
    MbsModel *(*build)(void);
} ModelCase;

static MbsModel *four_bar(void) { return build_four_bar(); }
static MbsModel *double_pendulum(void) { return build_double_pendulum(0.3, -0.5, 1); }
static MbsModel *slider_crank(void) { return build_slider_crank(0); }
static MbsModel *lattice_1x15(void) { return build_lattice(1, 15); }
static MbsModel *lattice_4x15(void) { return build_lattice(4, 15); }
static MbsModel *lattice_7x15(void) { return build_lattice(7, 15); }

/* The bundled models (the files in models/), built with the engine builder. */
static const ModelCase models[] = {
    {"four-bar", four_bar},         {"double pendulum", double_pendulum},
    {"slider-crank", slider_crank}, {"1x15 lattice", lattice_1x15},
    {"4x15 lattice", lattice_4x15}, {"7x15 lattice", lattice_7x15},
};

/* Dense J of a probe whose tangent has no pattern (nr x nx, column-major). */
static int dense_jacobian(MbsFormulation *f, double *J, MbsError *err)
{
    MbsTangentProbe probe;
    int status = mbs_formulation_tangent_probe(f, &probe, err);
    return status ? status : mbs_tangent_eval(probe.tangent, probe.x, probe.r0, J);
}

/* Every entry of a dense central-difference J at several random states lies in the pattern. */
static void test_pattern_covers(void)
{
    for (size_t c = 0; c < sizeof models / sizeof models[0]; ++c) {
        MbsModel *m = models[c].build();
        MbsError err = {0};
        MbsFormulation *f = penalty_with_jacobian(m, "nd-central", 1e-3, &err);
        int n = f ? f->klass->ncoords(f) : 0, missed = 0, first_row = -1, first_col = -1;
        int *colptr = calloc((size_t)n + 1, sizeof(int));
        int nnz = f ? mbs_dynamics_forces_pattern(m, colptr, NULL) : -1;
        int *rowind = calloc((size_t)(nnz > 0 ? nnz : 1), sizeof(int));
        unsigned char *in = calloc((size_t)n * (size_t)n + 1, 1);
        double *J = calloc(2 * (size_t)n * (size_t)n + 1, sizeof(double));
        double *state = f ? calloc((size_t)f->klass->state_size(f), sizeof(double)) : NULL;
        int status = f && nnz >= 0 ? 0 : MBS_FATAL, found = 0;
        if (!status)
            mbs_dynamics_forces_pattern(m, colptr, rowind);
        for (int j = 0; j < n && !status; ++j)
            for (int k = colptr[j]; k < colptr[j + 1]; ++k)
                in[(size_t)n * j + rowind[k]] = 1;
        for (int trial = 0; trial < 3 && !status; ++trial) {
            tangent_cases_random_state(f, state);
            status = f->klass->state_set(f, state, &err);
            if (!status)
                status = dense_jacobian(f, J, &err);
            /* [C, K]: both blocks have dQ/dz's pattern */
            for (int j = 0; j < 2 * n && !status; ++j)
                for (int i = 0; i < n; ++i) {
                    double v = J[i + (size_t)n * j];
                    found += v != 0.0;
                    if (v != 0.0 && !in[(size_t)n * (j % n) + i] && missed++ == 0) {
                        first_row = i;
                        first_col = j;
                    }
                }
        }
        tap_ok(!status && missed == 0 && found > 0,
               "%s: the topology's pattern of dQ/dz (%d of %d entries) covers every nonzero of "
               "a dense nd-central [C, K] at 3 random states (%d outside it; first: row %d, "
               "column %d) %s", models[c].name, nnz, n * n, missed, first_row, first_col,
               status ? err.message : "");
        free(colptr);
        free(rowind);
        free(in);
        free(J);
        free(state);
        mbs_formulation_free(f);
        mbs_model_free(m);
    }
}

/* A pattern-free check of the colouring: no two columns of one colour share a row. */
static int colouring_valid(const MbsSparsity *sp, int nx, int nr, const int *colour)
{
    int *owner = malloc(sizeof(int) * (size_t)nr * (size_t)(nx + 1));
    int ok = owner != NULL;
    int p = 0;
    for (int j = 0; j < nx; ++j)
        p = colour[j] + 1 > p ? colour[j] + 1 : p;
    for (int c = 0; c < p && ok; ++c) {
        for (int i = 0; i < nr; ++i)
            owner[i] = -1;
        for (int j = 0; j < nx && ok; ++j)
            if (colour[j] == c)
                for (int k = sp->colptr[j]; k < sp->colptr[j + 1]; ++k) {
                    ok = owner[sp->rowind[k]] < 0;
                    owner[sp->rowind[k]] = j;
                }
    }
    free(owner);
    return ok;
}

/* The colours p penalty reports, and a valid colouring, well below n on the lattices. */
static void test_colours(void)
{
    for (size_t c = 0; c < sizeof models / sizeof models[0]; ++c) {
        MbsModel *m = models[c].build();
        MbsError err = {0};
        MbsFormulation *f = penalty_with_jacobian(m, "nd-sparse", 1e-3, &err);
        MbsTangentProbe probe;
        int status = f ? mbs_formulation_tangent_probe(f, &probe, &err) : MBS_FATAL;
        if (status) {
            tap_ok(0, "%s: penalty with nd-sparse: %s", models[c].name, err.message);
            mbs_model_free(m);
            continue;
        }
        const MbsTangentProblem *p = &probe.tangent->problem;
        int *colour = malloc(sizeof(int) * (size_t)p->nx);
        int colours = mbs_tangent_colour_columns(p->pattern, p->nx, p->nr, colour);
        double reported = mbs_formulation_statistic(f, "jacobian_colours", -1.0);
        double columns = mbs_formulation_statistic(f, "jacobian_columns", -1.0);
        /* the most entries in a row bound p from below: its columns need distinct colours */
        int *row_count = calloc((size_t)p->nr + 1, sizeof(int)), widest = 0;
        for (int k = 0; k < p->pattern->colptr[p->nx]; ++k)
            if (++row_count[p->pattern->rowind[k]] > widest)
                widest = row_count[p->pattern->rowind[k]];
        free(row_count);
        int big_lattice = strstr(models[c].name, "x15") && models[c].name[0] != '1';
        tap_ok(colours > 0 && colouring_valid(p->pattern, p->nx, p->nr, colour) &&
                   reported == colours && columns == p->nx && colours == widest &&
                   (!big_lattice || colours * 4 <= p->nx),
               "%s: p = %d colours for n = %d columns of [C, K] (%d nonzeros); no two columns "
               "of a colour share a row; p = the widest row (%d: the least possible); "
               "reported %g%s", models[c].name, colours, p->nx, p->pattern->colptr[p->nx],
               widest, reported, big_lattice ? "; p <= n/4" : "");
        free(colour);
        mbs_formulation_free(f);
        mbs_model_free(m);
    }
}

/* nd-sparse against nd-forward (same increments: round-off only) and nd-central (forward
 * truncation) column by column at a random state, so that a wrong column names itself. */
static void test_columns(void)
{
    static const size_t cases[] = {0, 3}; /* four-bar, 1x15 lattice */
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
        const ModelCase *mc = &models[cases[c]];
        MbsModel *m = mc->build();
        MbsError err = {0};
        MbsFormulation *fs = penalty_with_jacobian(m, "nd-sparse", 1e-3, &err);
        MbsFormulation *ff = penalty_with_jacobian(m, "nd-forward", 1e-3, &err);
        MbsFormulation *fc = penalty_with_jacobian(m, "nd-central", 1e-3, &err);
        if (!fs || !ff || !fc) {
            tap_ok(0, "%s: penalty: %s", mc->name, err.message);
            continue;
        }
        int n = fs->klass->ncoords(fs), nx = 2 * n;
        double *state = calloc((size_t)fs->klass->state_size(fs), sizeof(double));
        double *Jf = calloc((size_t)n * nx, sizeof(double)), *Jc = calloc((size_t)n * nx, 8);
        tangent_cases_random_state(fs, state);
        int status = fs->klass->state_set(fs, state, &err) |
                     ff->klass->state_set(ff, state, &err) |
                     fc->klass->state_set(fc, state, &err);
        MbsTangentProbe probe;
        status |= dense_jacobian(ff, Jf, &err) | dense_jacobian(fc, Jc, &err);
        status |= mbs_formulation_tangent_probe(fs, &probe, &err);
        const MbsSparsity *sp = probe.tangent->problem.pattern;
        double *Js = calloc((size_t)sp->colptr[nx] + 1, sizeof(double));
        status |= mbs_tangent_eval(probe.tangent, probe.x, probe.r0, Js);
        long evaluations = probe.tangent->evaluations;
        /* errors relative to the largest entry of J (as tests/engine/test_tangent.c) */
        double worst[2] = {0.0, 0.0}, scale = 1e-300;
        int worst_col[2] = {-1, -1};
        for (size_t k = 0; k < (size_t)n * nx; ++k)
            scale = fmax(scale, fabs(Jc[k]));
        for (int j = 0; j < nx && !status; ++j) {
            for (int k = sp->colptr[j]; k < sp->colptr[j + 1]; ++k) {
                int i = sp->rowind[k];
                double e[2] = {fabs(Js[k] - Jf[i + (size_t)n * j]) / scale,
                               fabs(Js[k] - Jc[i + (size_t)n * j]) / scale};
                for (int r = 0; r < 2; ++r)
                    if (e[r] > worst[r]) {
                        worst[r] = e[r];
                        worst_col[r] = j;
                    }
            }
        }
        tap_ok(!status && worst[0] <= 1e-9,
               "%s: nd-sparse vs nd-forward, column by column: worst %.1e of the largest "
               "entry in column %d (%s %d) (bound 1e-9: the same increments) %s",
               mc->name, worst[0], worst_col[0], worst_col[0] < n ? "zd" : "z",
               worst_col[0] % n, status ? err.message : "");
        tap_ok(!status && worst[1] <= 1e-5,
               "%s: nd-sparse vs nd-central, column by column: worst %.1e in column %d (%s %d) "
               "(bound 1e-5, nd-forward's in test_tangent: O(sqrt eps) truncation)",
               mc->name, worst[1], worst_col[1], worst_col[1] < n ? "zd" : "z",
               worst_col[1] % n);
        tap_ok(!status && evaluations == probe.tangent->colours && evaluations < nx,
               "%s: one Jacobian took %ld residual evaluations = the colours, for %d columns",
               mc->name, evaluations, nx);
        free(state);
        free(Jf);
        free(Jc);
        free(Js);
        mbs_formulation_free(fs);
        mbs_formulation_free(ff);
        mbs_formulation_free(fc);
        mbs_model_free(m);
    }
}

/* A run with nd-sparse follows nd-central's trajectory, and one with analytical follows
 * nd-forward's: both Newton iterations stop within the tolerance, so the coordinates differ by
 * the order of the tolerance times the steps. */
static void test_trajectory(const char *reference, const char *method)
{
    static const size_t cases[] = {0, 3}; /* four-bar, 1x15 lattice */
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
        const ModelCase *mc = &models[cases[c]];
        MbsModel *m = mc->build();
        MbsError err = {0};
        const char *methods[2] = {reference, method};
        double *z[2] = {NULL, NULL}, tolerance = 1e-10, bound = 0.0, diff = INFINITY;
        int n = 0, steps = 100;
        long newton[2] = {0, 0};
        for (int k = 0; k < 2 && (k == 0 || z[0]); ++k)
            z[k] = tangent_cases_run(m, methods[k], 1e-2, steps, &n, &newton[k], &tolerance,
                                     &err);
        if (z[0] && z[1])
            diff = tangent_cases_gap(n, z[0], z[1], steps, tolerance, &bound);
        tap_ok(diff <= bound,
               "%s, h = 10 ms, 1 s: %s and %s end within %.1e of each other "
               "(bound %.1e = steps x Newton tolerance x (1 + |z|)); Newton iterations %ld vs "
               "%ld %s", mc->name, method, reference, diff, bound, newton[1], newton[0],
               z[0] && z[1] ? "" : err.message);
        free(z[0]);
        free(z[1]);
        mbs_model_free(m);
    }
}

/* ali3p gives nd-sparse [K, C]'s own pattern (the force elements' bodies, not the leading
 * matrix's, which also couples the bodies of every joint): with both algebras nd-sparse's J,
 * made dense, equals nd-forward's entry by entry, with fewer residual evaluations. */
static void test_ali3p(void)
{
    MbsModel *m = build_slider_crank(0);
    const char *methods[2] = {"nd-forward", "nd-sparse"}, *algebras[2] = {"dense", "sparse"};
    for (int alg = 0; alg < 2; ++alg) {
        double *J[2] = {NULL, NULL};
        long evaluations[2] = {0, 0};
        int n = 0, nnz = 0, status = 0;
        MbsError err = {0};
        for (int k = 0; k < 2 && !status; ++k) {
            MbsSettings s;
            mbs_settings_defaults(&s);
            s.step = 1e-3;
            status = mbs_settings_set_for(&s, "ali3p", "jacobian", methods[k], &err) ||
                     mbs_settings_set_for(&s, "ali3p", "algebra", algebras[alg], &err);
            MbsFormulation *f = status ? NULL : mbs_formulation_new("ali3p", m, &s, &err);
            status = f ? 0 : MBS_FATAL;
            for (int i = 0; i < 50 && !status; ++i)
                status = mbs_formulation_step(f, &err);
            MbsTangentProbe probe;
            if (!status)
                status = mbs_formulation_tangent_probe(f, &probe, &err);
            if (!status) {
                const MbsTangentProblem *tp = &probe.tangent->problem;
                const MbsSparsity *sp = tp->pattern;
                n = tp->nr;
                size_t entries = sp ? (size_t)sp->colptr[tp->nx] : (size_t)n * tp->nx;
                double *values = calloc(entries + 1, sizeof(double));
                J[k] = calloc((size_t)n * tp->nx + 1, sizeof(double));
                status = mbs_tangent_eval(probe.tangent, probe.x, probe.r0, values);
                for (int j = 0; j < tp->nx; ++j)
                    for (size_t e = sp ? (size_t)sp->colptr[j] : (size_t)n * j;
                         e < (sp ? (size_t)sp->colptr[j + 1] : (size_t)n * (j + 1)); ++e)
                        J[k][(sp ? (size_t)sp->rowind[e] : e - (size_t)n * j) +
                             (size_t)n * j] = values[e];
                if (k == 1)
                    nnz = sp ? sp->colptr[tp->nx] : -1;
                evaluations[k] = probe.tangent->evaluations;
                free(values);
            }
            mbs_formulation_free(f);
        }
        double worst = status ? INFINITY : 0.0, scale = 1e-300;
        for (size_t k = 0; k < 2 * (size_t)n * n && !status; ++k)
            scale = fmax(scale, fabs(J[0][k]));
        for (size_t k = 0; k < 2 * (size_t)n * n && !status; ++k)
            worst = fmax(worst, fabs(J[1][k] - J[0][k]) / scale);
        tap_ok(!status && worst <= 1e-9 && nnz > 0 && evaluations[1] < evaluations[0],
               "ali3p, %s algebra, slider-crank with springs: nd-sparse equals nd-forward to "
               "%.1e of the largest entry ([K, C]'s pattern: %d nonzeros of %d) with %ld "
               "residual evaluations for %d columns (nd-forward: %ld) %s", algebras[alg], worst,
               nnz, 2 * n * n, evaluations[1], 2 * n, evaluations[0],
               status ? err.message : "");
        free(J[0]);
        free(J[1]);
    }
    mbs_model_free(m);
}

int main(void)
{
    test_pattern_covers();
    test_colours();
    test_columns();
    test_trajectory("nd-central", "nd-sparse");
    test_trajectory("nd-forward", "analytical");
    test_ali3p();
    return tap_done();
}
