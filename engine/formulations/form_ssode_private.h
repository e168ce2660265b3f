/* ssode's private state, shared by form_ssode.c (partition, recovery, the ODE, integrators)
 * and ssode_jacobian.c (J1, J2 through the tangent interface). */
#ifndef FORM_SSODE_PRIVATE_H
#define FORM_SSODE_PRIVATE_H

#include <cvode/cvode.h>
#include <klu.h>
#include <sundials/sundials_context.h>
#include <sunlinsol/sunlinsol_dense.h>
#include <sunmatrix/sunmatrix_dense.h>

#include "mbs_formulation.h"
#include "mbs_natural.h"
#include "mbs_tangent.h"
#include "ssode_sdirk.h"

enum { INTEGRATOR_SDIRK4, INTEGRATOR_BDF, INTEGRATOR_ADAMS };
enum { ALGEBRA_AUTO, ALGEBRA_DENSE, ALGEBRA_SPARSE }; /* mbs_algebra_choices */
/* algebra automatic: sparse from this many natural coordinates (8 moving bodies) */
#define SPARSE_MIN_COORDS 96
/* Internal step ends the dense output interpolates (Hermite in v with vd): 3, degree 5. */
enum { HISTORY = 3 };

typedef struct {
    int integrator;
    double rtol, atol;
    int max_internal_steps; /* per output step */
    double max_internal_step; /* s; 0: no limit */
    int algebra;
    MbsTangentOptions tangent; /* "jacobian": how J1, J2 are computed (ssode_jacobian.c) */
} SsodeOptions;
_Static_assert(sizeof(SsodeOptions) <= MBS_OPTIONS_BYTES, "ssode options fit MbsSettings");

/* Growth of cond(Phi_u) over its value at partition time that triggers a new partition. */
#define REPARTITION_GROWTH 1.25
/* Pivots below this fraction of the largest one are redundant constraints (rank decision). */
#define RANK_TOLERANCE 1e-9
/* Dependent coordinates: Newton stops when the correction is below this (relative). */
#define RECOVERY_TOLERANCE 1e-13
#define RECOVERY_ITERATIONS 50
/* Singular positions (a parallelogram's flat position: Phi_q loses rank whatever the
 * partition). A new partition whose elimination gap (smallest pivot over the largest, a measure
 * of Phi_q's distance to a rank loss that no partition changes) is below SINGULAR_GAP of the
 * first partition's starts the singular mode: the partition is kept (no repartition cascade)
 * and every solve with Phi_u is a damped least-squares one anchored on the step start's
 * prediction, mu = SINGULAR_DAMPING sigma_ref (sigma_ref = |Phi_u|_1 / cond at t = 0, the first
 * partition's smallest singular value in order of magnitude); it ends once cond(Phi_u) falls
 * below its value at the mode's start. */
#define SINGULAR_GAP 0.1
#define SINGULAR_DAMPING 0.01

typedef struct {
    MbsNatural *nat;
    double clock; /* the time of the evaluation in progress (nat's clock) */
    int n, m, r, nv;           /* coordinates, constraints, rank, independent coordinates */
    const SsodeOptions *o;
    /* state */
    double *q, *qd, *qdd, *lambda; /* lambda: m (the independent rows' entries, 0 elsewhere) */
    double *angle_ref;
    double work, power, h_next;
    /* the integrator: its internal time (at or past f->time), the work at its last restart,
     * the end of the run (stop time) and whether it must restart at the output state */
    double t_int, work_base, t_stop;
    int restart;
    int failed;   /* a step failed since the last restore: a restore restarts the integrator */
    long seen[6]; /* its counters already collected: steps, error tests, iterations,
                     convergence failures, Jacobians, CVODE's Jacobian right-hand sides */
    /* partition */
    int *rows, *ucol, *vcol;   /* r, r, nv */
    double cond0, cond;
    int partitioned;
    /* workspaces */
    double *M;                 /* n x n */
    double *Phi, *phi, *phit, *cb; /* m x n, m, m, m */
    double *W;                 /* m x n: elimination */
    int *rp, *cp;
    double *Pu0;               /* r x r: Phi_u at the step start, LU */
    int *ip0;
    double *Pu;                /* r x r: Phi_u at the current q, LU */
    int *ip;
    double *K, *rhs;           /* (n + r)^2 (T_u, M T, reduced mass), n + r */
    int *ipk;
    double *tcol, *gacc;       /* n */
    double *Q, *grad, *x, *lwork;
    int *iwork;
    double *q_start, *qd_start; /* for a failed step */
    double *q_recovered;        /* the last q recovered: the start of the next recovery */
    double *q_step, *q_step_prev; /* q at the last two internal step ends: the start of the
                                     recovery of a retried SDIRK step, or of an output */
    double t_stage_guess;
    /* singular mode (see SINGULAR_GAP): the step start's prediction (q0, qd0, qdd0 at t0 and
     * T0 = dq/dv, n x nv, in the current partition), the damped matrix [mu I A; A^T -mu I]
     * (A = Phi_u; dense 2r x 2r LU, or KLU on Dp/Di/Dx with A's entries at dmap), its mu */
    int singular;
    double gap, gap_ref, sigma_ref, mu, t0;
    double *q0, *qd0, *qdd0, *T0, *Pv; /* Pv: n, the gathered prior */
    double *Kd;
    int *Kdip;
    int *Dp, *Di, *dmap;
    double *Dx;
    klu_symbolic *dsym;
    klu_numeric *dnum;
    long singular_steps, damped_evaluations;
    int rhs_failed;             /* the last rhs could not recover u */
    /* SUNDIALS */
    SUNContext ctx;
    N_Vector y, y_out, abstol;
    SUNMatrix J;
    SUNLinearSolver LS;
    SUNNonlinearSolver NLS;
    void *mem;                  /* CVODE */
    SsodeSdirk *sdirk;
    double *ydot0;              /* f at a restart (SDIRK) */
    /* dense output: the last (up to HISTORY) internal step ends since the last restart, oldest
     * first: time, y = (v, vd, W) and W' (power) */
    double hist_t[HISTORY], hist_power[HISTORY], *hist_y;
    int nhist;
    /* statistics (since init or reset) */
    long internal_steps, rhs_evals, jac_evals, nonlinear_iterations, error_test_failures,
        nonlinear_failures, repartitions, recovery_iterations, recovery_refactorizations;
    double h_last, h_min, h_max;
    /* sparse algebra (issue 27): Phi_q as rows (s->Jr plays s->Phi's part: current at the last
     * evaluation), Phi_u and the augmented matrix [M Phi_R^T; Phi_R 0] in CSC with KLU,
     * analysed once per partition (their patterns follow rows R and columns u) */
    int sparse, pattern_stale;
    MbsNatJacRow *Jr;
    int *uidx;                  /* n: index of a coordinate among u, -1 for v */
    int *Pp, *Pi, *ppos;        /* Phi_u: r + 1, nnz, r * 24 (position of each row entry) */
    double *Px;
    int *Kp, *Ki, *kpos;        /* augmented: n + r + 1, nnz, 2 r * 24 (Phi_R, Phi_R^T) */
    double *Kx;
    klu_common kc;
    klu_symbolic *psym, *ksym;
    klu_numeric *pnum0, *pnum, *knum; /* Phi_u at the step start, at the current q; K */
    double refactorizations, full_factorizations;
    /* J1, J2 and the work rate's row through the tangent interface (ssode_jacobian.c):
     * x = (v, vd), r = (vdd, W'); the state of the last successful evaluation, which the
     * analytical and ad methods linearize (valid while q, qd, qdd, lambda and the factors are
     * those of (eval_t, eval_y)) */
    MbsTangent tangent;
    void *tangent_ctx;          /* SsodeJacobian (ssode_jacobian.c) */
    double *eval_y, eval_t;     /* 2 nv */
    int eval_valid;
    long jacobian_rhs_evals;    /* right-hand sides spent in Jacobians (included in rhs_evals) */
} Ssode;

/* form_ssode.c: the state-space ODE at (t, v, vd) (y = (v, vd, W)): s->q, qd, qdd, lambda,
 * power and the factorizations at the recovered q; ydot = (vd, vdd, W') when not NULL.
 * 0, or 1 when u cannot be recovered or the augmented matrix is singular. */
int ssode_evaluate(Ssode *s, double t, const double *y, double *ydot);

/* form_ssode.c: the integrator restarted at the output state (f->time, s->q, s->qd) after a
 * restored checkpoint or a new partition: Phi_q there, the sparse patterns when stale, the
 * partition checked. 0, or negative when that fails. */
int ssode_restart_at_output(MbsFormulation *f, Ssode *s);

/* ssode_jacobian.c: the tangent object for s->o->tangent.method (after the first partition:
 * nv known). 0 or MBS_FATAL with err set. */
int ssode_jacobian_init(Ssode *s, MbsError *err);
void ssode_jacobian_free(Ssode *s);
/* J1 = dvdd/dv, J2 = dvdd/dvd (nv x nv) and Jw = dW'/d(v, vd) (1 x 2 nv) at (t, y), ydot =
 * f(t, y) (paper 002 eqs 27-40). 0, or non-zero when f cannot be evaluated near y. */
int ssode_jacobian(Ssode *s, double t, const double *y, const double *ydot, double *J1,
                   double *J2, double *Jw);
/* The last J of ssode_jacobian: (nv + 1) x 2 nv, column-major, rows (vdd, W'). */
const double *ssode_jacobian_matrix(const Ssode *s);
/* 1 when the method computes J without difference quotients of the ODE (analytical, ad). */
int ssode_jacobian_exact(const Ssode *s);
/* The class's tangent_probe (mbs_tangent_probe.h): x = (v, vd), r = (vdd, W') at the last
 * output. */
int mbs_ssode_tangent_probe(MbsFormulation *f, MbsTangentProbe *probe, MbsError *err);

/* Row `row` of Phi_q (sparse) times x (n entries). */
static inline double sparse_row_dot(const MbsNatJacRow *row, const double *x)
{
    double sum = 0.0;
    for (int t = 0; t < 2; ++t)
        if (row->off[t] >= 0)
            for (int k = 0; k < 12; ++k)
                sum += row->v[t][k] * x[row->off[t] + k];
    return sum;
}

#endif
