/* Tangent interface: J = dr/dx (or -dr/dx) of a residual r(x) given as a callback, written once
 * for every formulation (penalty's K, C = -dQ/d[z, zd], ali3p's K, C = -dQ/d[q, qd], matrix-r's
 * tangent of its reduced trapezoidal residual).
 *
 * A tangent object is made at a formulation's init for one problem and one method; it sizes its
 * workspace then, so evaluating it allocates nothing. Methods are a registry of classes
 * (mbs_tangent.c): finite differences live in tangent_nd.c and tangent_sparse.c, forward-mode
 * automatic differentiation over dual numbers in tangent_ad.c; another method is another file
 * with its class and one registry line (see mbs_tangent_method.h).
 *
 * Threads: columns are shared among the problem's threads (OpenMP), thread t evaluating the
 * residual only with contexts[t] and its own slice of the workspace, so no locks are taken and
 * the result does not depend on the thread count.
 */
#ifndef MBS_TANGENT_H
#define MBS_TANGENT_H

#include <stddef.h>

#include "mbs_error.h"
#include "mbs_scalar.h" /* MbsDual */

typedef enum {
    MBS_JACOBIAN_ND_FORWARD, /* forward differences */
    MBS_JACOBIAN_ND_CENTRAL, /* central differences */
    MBS_JACOBIAN_ND_SPARSE,  /* forward differences compressed by a column colouring */
    MBS_JACOBIAN_AD,         /* forward-mode automatic differentiation, 2n directions */
    MBS_JACOBIAN_AD_SPARSE,  /* the same compressed by the colouring: p directions */
    MBS_JACOBIAN_ANALYTICAL, /* the problem's own analytical_jacobian (penalty) */
    MBS_JACOBIAN_COUNT
} MbsJacobianMethod;

/* Names (settings' choices, files, command line) and labels (MBS_N_) of the methods, NULL
 * terminated. */
extern const char *const mbs_jacobian_method_names[MBS_JACOBIAN_COUNT + 1];
extern const char *const mbs_jacobian_method_labels[MBS_JACOBIAN_COUNT + 1];

const char *mbs_jacobian_method_name(MbsJacobianMethod method);
/* 1 when the method gains from the problem's sparsity pattern (a formulation whose J is dense
 * in memory gives the pattern to those methods only, and scatters their values). */
int mbs_jacobian_method_uses_pattern(MbsJacobianMethod method);
/* 1 when the method differentiates the problem's residual_dual (a problem without one, and a
 * formulation that offers none, refuses it). */
int mbs_jacobian_method_needs_dual(MbsJacobianMethod method);
/* Returns -1 when the name is unknown. */
int mbs_jacobian_method_from_name(const char *name);

/* Residual r(x) (nr values) at x (nx values). column is the variable by which x differs from
 * the base point of the tangent being computed (by step; -1: x is the base point), so that a
 * context may keep work that does not depend on that variable or move auxiliary unknowns along
 * with it. A compressed method (nd-sparse) moves several variables that no row reads together
 * and passes the largest of them (with a pattern only: without one it moves one variable at a
 * time). Calls on different contexts run concurrently. Returns 0, or an MbsError status
 * (> 0 recoverable, < 0 fatal; the message is the context's business). */
typedef int (*MbsResidualFn)(void *ctx, const double *x, int column, double step, double *r);

/* r(x) over dual numbers (mbs_scalar.h) from the same source as the problem's residual: x holds
 * the values with up to MBS_DUAL_WIDTH seeded directions, r receives the values and their
 * derivatives along those directions (forward-mode automatic differentiation). largest is the
 * largest variable seeded (as `column` of MbsResidualFn, so a context may keep the work of the
 * variables no direction moves). Returns as MbsResidualFn. */
typedef int (*MbsResidualDualFn)(void *ctx, const MbsDual *x, int largest, MbsDual *r);

/* Structural sparsity of J, compressed columns (nr x nx): entries of column j are rows
 * rowind[colptr[j] .. colptr[j + 1] - 1]; every other entry is known to be zero. */
typedef struct {
    const int *colptr; /* nx + 1 */
    const int *rowind; /* colptr[nx] */
} MbsSparsity;

/* How the difference increment of column j is chosen: h_j = relative * max(1, |x_j|) (scaled by
 * the coordinate's magnitude), or with offset_one h_j = relative * (1 + |x_j|). relative = 0
 * takes the method's own constant (nd-forward: sqrt(eps), nd-central: cbrt(eps), which balance
 * truncation and round-off errors). nd-forward rounds h so that (x_j + h) - x_j == h exactly
 * unless unrounded is set. The zero rule {0} is the one to use unless a formulation's results
 * are tied to its own historic increments. */
typedef struct {
    double relative;
    int offset_one;
    int unrounded;
} MbsTangentStep;

typedef struct {
    int nx, nr;
    MbsResidualFn residual;
    void (*begin)(void *ctx);   /* optional: called by each thread before its first column */
    void *const *contexts;      /* one per thread, nthreads of them */
    int nthreads;
    const MbsSparsity *pattern; /* NULL: dense */
    int negate;                 /* 1: J = -dr/dx (the tangent of forces), 0: J = dr/dx */
    MbsTangentStep step;
    /* optional: the formulation's own evaluation of r over dual numbers, which the methods ad
     * and ad-sparse differentiate (with contexts[t] on thread t, like residual); NULL: those
     * methods refuse the problem */
    MbsResidualDualFn residual_dual;
    /* Optional: J at x computed analytically by the formulation (with the sign that negate
     * asks for; nr x nx column-major, every entry written), on contexts[0]; the `analytical`
     * method calls it and refuses problems without it. Returns 0 or an MbsError status. */
    int (*analytical_jacobian)(void *ctx, const double *x, double *J);
} MbsTangentProblem;

typedef struct MbsTangentMethodClass MbsTangentMethodClass;

typedef struct {
    MbsTangentProblem problem; /* a copy; the pattern and contexts must outlive the object */
    int capacity_nx, capacity_nr; /* the sizes the workspace was made for */
    const MbsTangentMethodClass *method;
    double *work;          /* nthreads slices of work_stride doubles */
    size_t work_stride;
    int *status;           /* per thread */
    long evaluations;      /* residual evaluations made by the last mbs_tangent_eval (ad,
                            * ad-sparse: dual evaluations, MBS_DUAL_WIDTH directions each) */
    int colours;           /* groups of columns perturbed together: nx, or p when compressed */
    void *method_data;     /* what the method prepared at init (nd-sparse: its colouring) */
} MbsTangent;

/* Sizes the workspace for the problem and the method. Returns 0 or MBS_FATAL. */
int mbs_tangent_init(MbsTangent *t, const MbsTangentProblem *problem, MbsJacobianMethod method,
                     MbsError *err);
void mbs_tangent_free(MbsTangent *t);

/* A problem whose size varies (matrix-r's degrees of freedom after a new partition): nx, nr
 * at most those the object was made for. Returns 0, or MBS_FATAL when they are larger. */
int mbs_tangent_set_size(MbsTangent *t, int nx, int nr);

/* J at x, given r0 = r(x) (forward differences use it; with NULL it is evaluated here, on
 * contexts[0]). J is nr x nx column-major (ld = nr) without a pattern, else the pattern's
 * values in its order. Returns 0, or the worst status of a failing residual (fatal before
 * recoverable; J is then incomplete and the remaining columns are skipped). */
int mbs_tangent_eval(MbsTangent *t, const double *x, const double *r0, double *J);

/* Greedy colouring of the columns of a pattern (nr x nx) such that two columns of one colour
 * share no row (distance-2 colouring of the column-intersection graph, columns taken by
 * decreasing count of entries): colour[j] in 0 .. p - 1. Returns p, or -1 when out of memory. */
int mbs_tangent_colour_columns(const MbsSparsity *pattern, int nx, int nr, int *colour);

/* Threads to use for a requested count (0: what OpenMP offers), at most max. */
int mbs_tangent_threads(int requested, int max);

#endif
