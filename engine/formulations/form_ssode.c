/* ssode: state-space ODE by generalized coordinate partitioning, integrated by an embedded
 * off-the-shelf stiff code (paper 002, Haug, Negrut et al.).
 *
 * Global natural coordinates q (shared with ali3p, engine/mbs_natural.h) are split q = (u, v)
 * by Gaussian elimination with complete pivoting of Phi_q (paper 002 §2): the r pivot rows are
 * the independent constraints Phi_R, the r pivot columns the dependent coordinates u, the other
 * n - r columns the independent coordinates v. The partition is kept while the condition
 * estimate of Phi_u (LAPACK dgecon, 1-norm) stays within 25 % of its value when it was chosen.
 *
 * The ODE (paper 002 eq 19) in y = (v, vd, W), W the work of non-conservative forces:
 *   f(t, v, vd): u from Phi_R(u, v, t) = 0 (Newton with the Phi_u factorization of the step
 *   start, eq 15), ud from Phi_u ud = -(Phi_v vd + Phi_t) (eq 16), then the augmented system
 *     [M  Phi_R^T] [qdd   ]   [ Q  ]
 *     [Phi_R   0 ] [lambda] = [-c_R]     (c = dPhi_q/dt qd + dPhi_t/dt)
 *   solved in its partitioned form (see evaluate), vdd = qdd(v);
 *   W' = non-conservative power + lambda^T Phi_t (drivers).
 * Integrators: our SDIRK 4/15 (engine/ssode_sdirk.c: Hairer and Wanner's SDIRK of order 4, 5
 * stages, gamma = 4/15, the one paper 002 embeds, with its filtered order-3 error estimate and
 * Newton convergence forecast), CVODE BDF (Newton, dense) or CVODE Adams (fixed-point iteration:
 * the explicit comparison, the modern counterpart of DEABM). The iteration matrices are
 * difference quotients (paper 002's J1, J2 of eqs 27-40 are not derived here; mbs_tangent.h
 * could supply them).
 *
 * One formulation step of h integrates to f->time + h with the integrator's own internal steps
 * (stop time at the output time, so that it lands there without interpolation). They are
 * taken one at a time (ONE_STEP mode rather than NORMAL) because the partition is checked
 * after each (paper 002 Table I, step 7): a bar turning through a quarter of a revolution
 * within one output step makes the partition of the step start singular. The integrator is
 * restarted only at a new partition, after a failure and at a restored checkpoint.
 * Outputs: positions v from the Hermite polynomial through (v, vd) at the last two or three
 * internal step ends, velocities vd its derivative, u and ud recovered there: the output
 * velocities are the derivative of the output positions (see dense_output).
 * SUNDIALS objects and every workspace are allocated in init.
 */
#include <cvode/cvode.h>
#include <klu.h>
#include <lapacke.h>
#include <math.h>
#include <nvector/nvector_serial.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sundials/sundials_context.h>
#include <sunlinsol/sunlinsol_dense.h>
#include <sunmatrix/sunmatrix_dense.h>
#include <sunnonlinsol/sunnonlinsol_fixedpoint.h>

#include "mbs_alloc.h"
#include "mbs_assembly.h"
#include "mbs_clock.h"
#include "mbs_formulation.h"
#include "mbs_linalg.h"
#include "mbs_natural.h"
#include "mbs_sparse_lu.h"
#include "mbs_topology.h"
#include "form_ssode_private.h"
#include "ssode_sdirk.h"

static const SsodeOptions *options(const MbsFormulation *f)
{
    return mbs_formulation_options(f);
}

static void sparse_free_patterns(Ssode *s);

static void ssode_finalize(MbsFormulation *f)
{
    Ssode *s = f->impl;
    if (!s)
        return;
    if (s->mem)
        CVodeFree(&s->mem);
    ssode_sdirk_free(s->sdirk);
    if (s->NLS)
        SUNNonlinSolFree(s->NLS);
    if (s->LS)
        SUNLinSolFree(s->LS);
    if (s->J)
        SUNMatDestroy(s->J);
    if (s->y)
        N_VDestroy(s->y);
    if (s->abstol)
        N_VDestroy(s->abstol);
    if (s->y_out)
        N_VDestroy(s->y_out);
    if (s->ctx)
        SUNContext_Free(&s->ctx);
    ssode_jacobian_free(s);
    mbs_natural_free(s->nat);
    sparse_free_patterns(s);
    free(s->Jr);
    free(s->uidx);
    if (s->dnum)
        klu_free_numeric(&s->dnum, &s->kc);
    if (s->dsym)
        klu_free_symbolic(&s->dsym, &s->kc);
    void *damped[] = {s->q0, s->qd0, s->qdd0, s->T0, s->Pv, s->Kd, s->Kdip,
                      s->Dp, s->Di, s->dmap, s->Dx};
    for (size_t i = 0; i < sizeof damped / sizeof damped[0]; ++i)
        free(damped[i]);
    void *bufs[] = {s->q, s->qd, s->qdd, s->lambda, s->angle_ref, s->rows, s->ucol, s->vcol,
                    s->M, s->Phi, s->phi, s->phit, s->cb, s->W, s->rp, s->cp, s->Pu0, s->ip0,
                    s->Pu, s->ip, s->K, s->rhs, s->ipk, s->tcol, s->gacc, s->Q, s->grad, s->x, s->lwork,
                    s->iwork, s->q_start, s->qd_start, s->q_recovered, s->q_step, s->q_step_prev, s->ydot0, s->hist_y, s->eval_y};
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; ++i)
        free(bufs[i]);
    free(s);
    f->impl = NULL;
}

/* Phi_u (rows R, columns u) of s->Phi into P (r x r), factorized; returns the LAPACK info and
 * the 1-norm condition estimate in *cond. */
static int factor_phi_u(Ssode *s, double *P, int *ipiv, double *cond)
{
    int r = s->r;
    size_t m = (size_t)s->m;
    double anorm = 0.0;
    for (int j = 0; j < r; ++j) {
        double col = 0.0;
        for (int i = 0; i < r; ++i) {
            double v = s->Phi[(size_t)s->rows[i] + m * (size_t)s->ucol[j]];
            P[i + (size_t)r * j] = v;
            col += fabs(v);
        }
        anorm = fmax(anorm, col);
    }
    if (r == 0) {
        if (cond)
            *cond = 1.0;
        return 0;
    }
    int info = mbs_lu_factor(r, P, ipiv);
    if (info != 0)
        return info;
    if (cond) {
        double rcond = 0.0;
        LAPACKE_dgecon_work(LAPACK_COL_MAJOR, '1', r, P, r, anorm, &rcond, s->lwork, s->iwork);
        *cond = rcond > 0.0 ? 1.0 / rcond : INFINITY;
    }
    return 0;
}


/* --- sparse algebra (issue 27) ---------------------------------------------------------- */

static void sparse_free_patterns(Ssode *s)
{
    klu_numeric **nums[] = {&s->pnum0, &s->pnum, &s->knum};
    for (size_t i = 0; i < 3; ++i)
        if (*nums[i])
            klu_free_numeric(nums[i], &s->kc);
    if (s->psym)
        klu_free_symbolic(&s->psym, &s->kc);
    if (s->ksym)
        klu_free_symbolic(&s->ksym, &s->kc);
    int **ints[] = {&s->Pp, &s->Pi, &s->ppos, &s->Kp, &s->Ki, &s->kpos};
    for (size_t i = 0; i < 6; ++i) {
        free(*ints[i]);
        *ints[i] = NULL;
    }
    free(s->Px);
    free(s->Kx);
    s->Px = s->Kx = NULL;
}

/* CSC pattern (ncol columns, rows increasing in each column, repeated entries merged) of nt
 * (row, column) pairs; map[k]: the position of pair k. Allocates *Ap, *Ai (partition time
 * only). 0, or -1 out of memory. */
static int csc_pattern(int nrow, int ncol, int nt, const int *Ti, const int *Tj, int **Ap_out,
                       int **Ai_out, int *map)
{
    int *Ap = calloc((size_t)ncol + 1, sizeof(int)), *Ai = malloc(((size_t)nt + 1) * sizeof(int));
    int *start = calloc((size_t)nrow + 1, sizeof(int)), *order = malloc(((size_t)nt + 1) * sizeof(int));
    int *lastrow = malloc(((size_t)ncol + 1) * sizeof(int)), *lastpos = malloc(((size_t)ncol + 1) * sizeof(int));
    int *cursor = malloc(((size_t)ncol + 1) * sizeof(int));
    int ok = Ap && Ai && start && order && lastrow && lastpos && cursor;
    if (ok) {
        /* the pairs in row order (counting sort), so that each column receives its rows sorted
         * and repeats come together */
        for (int k = 0; k < nt; ++k)
            start[Ti[k] + 1]++;
        for (int i = 0; i < nrow; ++i)
            start[i + 1] += start[i];
        for (int k = 0; k < nt; ++k)
            order[start[Ti[k]]++] = k;
        for (int j = 0; j < ncol; ++j)
            lastrow[j] = -1;
        for (int o = 0; o < nt; ++o) {
            int k = order[o], j = Tj[k];
            if (lastrow[j] != Ti[k]) {
                lastrow[j] = Ti[k];
                Ap[j + 1]++;
            }
        }
        for (int j = 0; j < ncol; ++j) {
            Ap[j + 1] += Ap[j];
            cursor[j] = Ap[j];
            lastrow[j] = -1;
        }
        for (int o = 0; o < nt; ++o) {
            int k = order[o], i = Ti[k], j = Tj[k];
            if (lastrow[j] != i) {
                lastrow[j] = i;
                lastpos[j] = cursor[j]++;
                Ai[lastpos[j]] = i;
            }
            map[k] = lastpos[j];
        }
    }
    free(start);
    free(order);
    free(lastrow);
    free(lastpos);
    free(cursor);
    if (!ok) {
        free(Ap);
        free(Ai);
        return -1;
    }
    *Ap_out = Ap;
    *Ai_out = Ai;
    return 0;
}

/* The patterns of Phi_u and of the augmented matrix K = [M Phi_R^T; Phi_R 0] for the current
 * partition from the structure of s->Jr, M's values in K, and their KLU analyses. Allocates
 * (once per partition). 0, or -1. */
static int sparse_patterns(Ssode *s)
{
    sparse_free_patterns(s);
    const MbsNatural *nat = s->nat;
    const MbsModel *model = nat->model;
    int n = s->n, r = s->r;
    for (int k = 0; k < n; ++k)
        s->uidx[k] = -1;
    for (int i = 0; i < r; ++i)
        s->uidx[s->ucol[i]] = i;
    size_t E = (size_t)r * 24;              /* row entries of Phi_R */
    size_t NM = 30 * (size_t)nat->nbodies;  /* M: m I3 and S (x) I3 per body */
    size_t NT = NM + 2 * E;
    int *Ti = malloc((NT + 1) * sizeof(int)), *Tj = malloc((NT + 1) * sizeof(int));
    int *map = malloc((NT + 1) * sizeof(int));
    double *Mv = malloc((NM + 1) * sizeof(double));
    s->ppos = malloc((E + 1) * sizeof(int));
    s->kpos = malloc((2 * E + 1) * sizeof(int));
    int ok = Ti && Tj && map && Mv && s->ppos && s->kpos;
    /* Phi_u: pairs (i, uidx) of the row entries on u */
    size_t nt = 0;
    for (int i = 0; ok && i < r; ++i) {
        const MbsNatJacRow *row = &s->Jr[s->rows[i]];
        for (int t = 0; t < 2; ++t)
            for (int k = 0; k < 12; ++k) {
                int c = row->off[t] >= 0 ? s->uidx[row->off[t] + k] : -1;
                s->ppos[(size_t)i * 24 + 12 * t + k] = c >= 0 ? (int)nt : -1;
                if (c >= 0) {
                    Ti[nt] = i;
                    Tj[nt++] = c;
                }
            }
    }
    if (ok && r > 0) {
        ok = csc_pattern(r, r, (int)nt, Ti, Tj, &s->Pp, &s->Pi, map) == 0;
        for (size_t e = 0; ok && e < E; ++e)
            if (s->ppos[e] >= 0)
                s->ppos[e] = map[s->ppos[e]];
        s->Px = ok ? malloc(((size_t)s->Pp[r] + 1) * sizeof(double)) : NULL;
        ok = ok && s->Px;
    }
    /* K: M's blocks, then Phi_R (rows n + i) and Phi_R^T (columns n + i) */
    nt = 0;
    for (int b = 0; ok && b < model->nbodies; ++b) {
        int off = nat->body_off[b];
        if (off < 0)
            continue;
        const double *S = &nat->S[9 * b];
        for (int d = 0; d < 3; ++d) {
            Ti[nt] = Tj[nt] = off + d;
            Mv[nt++] = model->bodies[b].mass;
        }
        for (int j = 0; j < 3; ++j)
            for (int k = 0; k < 3; ++k)
                for (int d = 0; d < 3; ++d) {
                    Ti[nt] = off + 3 + 3 * j + d;
                    Tj[nt] = off + 3 + 3 * k + d;
                    Mv[nt++] = S[3 * j + k];
                }
    }
    size_t nm = nt;
    for (int i = 0; ok && i < r; ++i) {
        const MbsNatJacRow *row = &s->Jr[s->rows[i]];
        for (int t = 0; t < 2; ++t)
            for (int k = 0; k < 12; ++k) {
                size_t e = (size_t)i * 24 + 12 * t + k;
                if (row->off[t] < 0) {
                    s->kpos[2 * e] = s->kpos[2 * e + 1] = -1;
                    continue;
                }
                int c = row->off[t] + k;
                s->kpos[2 * e] = (int)nt;
                Ti[nt] = n + i;
                Tj[nt++] = c;
                s->kpos[2 * e + 1] = (int)nt;
                Ti[nt] = c;
                Tj[nt++] = n + i;
            }
    }
    int nk = n + r;
    if (ok) {
        ok = csc_pattern(nk, nk, (int)nt, Ti, Tj, &s->Kp, &s->Ki, map) == 0;
        s->Kx = ok ? calloc((size_t)s->Kp[nk] + 1, sizeof(double)) : NULL;
        ok = ok && s->Kx;
    }
    if (ok) {
        for (size_t k = 0; k < nm; ++k)
            s->Kx[map[k]] += Mv[k];
        for (size_t e = 0; e < 2 * E; ++e)
            if (s->kpos[e] >= 0)
                s->kpos[e] = map[s->kpos[e]];
    }
    free(Ti);
    free(Tj);
    free(map);
    free(Mv);
    /* AMD for both (KLU's default): on the 4x15 lattice K's factors have 127k nonzeros with
     * it, 184k with COLAMD, and its refactorization costs half (callgrind) */
    s->kc.ordering = 0;
    if (ok && r > 0)
        ok = (s->psym = klu_analyze(r, s->Pp, s->Pi, &s->kc)) != NULL;
    if (ok)
        ok = (s->ksym = klu_analyze(nk, s->Kp, s->Ki, &s->kc)) != NULL;
    s->pattern_stale = !ok;
    return ok ? 0 : -1;
}

/* Phi_u's values from s->Jr into Px. */
static void sparse_fill_phi_u(Ssode *s)
{
    memset(s->Px, 0, (size_t)s->Pp[s->r] * sizeof(double));
    for (int i = 0; i < s->r; ++i) {
        const MbsNatJacRow *row = &s->Jr[s->rows[i]];
        const int *pos = &s->ppos[(size_t)i * 24];
        for (int t = 0; t < 2; ++t)
            for (int k = 0; k < 12; ++k)
                if (pos[12 * t + k] >= 0)
                    s->Px[pos[12 * t + k]] += row->v[t][k];
    }
}

/* Phi_u's values from s->Jr, factorized into *num (reusing its pivots); 0 or -1 (singular). */
static int sparse_factor_phi_u(Ssode *s, klu_numeric **num)
{
    if (s->r == 0)
        return 0;
    sparse_fill_phi_u(s);
    return mbs_sparse_lu_factor(s->Pp, s->Pi, s->Px, s->psym, num, &s->kc,
                                &s->refactorizations, &s->full_factorizations)
               ? -1
               : 0;
}

/* Phi_u at the step start (s->Jr current) into pnum0 and its 1-norm condition estimate. */
static int sparse_factor_phi_u0(Ssode *s, double *cond)
{
    if (s->r == 0) {
        *cond = 1.0;
        return 0;
    }
    if (sparse_factor_phi_u(s, &s->pnum0) != 0)
        return -1;
    if (!klu_condest(s->Pp, s->Px, s->psym, s->pnum0, &s->kc) || !(s->kc.condest > 0))
        return -1;
    *cond = s->kc.condest;
    return 0;
}

/* Complete pivoting on Phi_q at the current q (s->Phi current): rank, independent rows,
 * dependent columns u and independent columns v (paper 002 §2). Returns the rank. */
static int eliminate(Ssode *s)
{
    int m = s->m, n = s->n;
    size_t M = (size_t)m;
    memcpy(s->W, s->Phi, M * (size_t)n * sizeof(double));
    for (int i = 0; i < m; ++i)
        s->rp[i] = i;
    for (int j = 0; j < n; ++j)
        s->cp[j] = j;
    double *W = s->W, first = 0.0;
    int r = 0;
    for (int k = 0; k < m && k < n; ++k) {
        int pi = k, pj = k;
        double best = 0.0;
        for (int j = k; j < n; ++j)
            for (int i = k; i < m; ++i) {
                double v = fabs(W[i + M * j]);
                if (v > best) {
                    best = v;
                    pi = i;
                    pj = j;
                }
            }
        if (k == 0)
            first = best;
        if (best == 0.0 || best <= RANK_TOLERANCE * first)
            break;
        s->gap = best / first; /* the last pivot's: Phi_q's distance to a rank loss */
        if (pi != k) {
            for (int j = 0; j < n; ++j) {
                double t = W[k + M * j];
                W[k + M * j] = W[pi + M * j];
                W[pi + M * j] = t;
            }
            int t = s->rp[k];
            s->rp[k] = s->rp[pi];
            s->rp[pi] = t;
        }
        if (pj != k) {
            for (int i = 0; i < m; ++i) {
                double t = W[i + M * k];
                W[i + M * k] = W[i + M * pj];
                W[i + M * pj] = t;
            }
            int t = s->cp[k];
            s->cp[k] = s->cp[pj];
            s->cp[pj] = t;
        }
        double piv = W[k + M * k];
        for (int i = k + 1; i < m; ++i) {
            double l = W[i + M * k] / piv;
            W[i + M * k] = l;
            if (l != 0.0)
                for (int j = k + 1; j < n; ++j)
                    W[i + M * j] -= l * W[k + M * j];
        }
        ++r;
    }
    return r;
}

/* The partition with sparse algebra: Gaussian elimination of the rows of Phi_q (s->Jr) one by
 * one in their order, each reduced by the pivot rows before it and pivoting on its largest
 * remaining entry (a row whose remainder is below RANK_TOLERANCE of its own size is
 * redundant). The complete pivoting of `eliminate` searches the whole remaining matrix at every
 * pivot, m n r operations (about 100 s on the 7x15 lattice); this one costs the nonzeros of the
 * reduced rows. Fills s->rp (the r pivot rows first), s->cp (the r pivot columns, then the
 * others) and returns r, or -1 out of memory. Allocates (partition time only). */
static int eliminate_sparse(Ssode *s)
{
    int m = s->m, n = s->n, r = 0;
    double *w = calloc((size_t)n, sizeof(double));
    int *pivot_of = malloc((size_t)n * sizeof(int)); /* column -> pivot index, -1 */
    int *start = malloc(((size_t)m + 1) * sizeof(int)), *mark = calloc((size_t)n, sizeof(int));
    int *nzlist = malloc((size_t)n * sizeof(int));
    size_t cap = 64 * (size_t)m + 64, used = 0;
    int *ui = malloc(cap * sizeof(int));
    double *ux = malloc(cap * sizeof(double));
    int ok = w && pivot_of && start && mark && nzlist && ui && ux;
    s->gap = 1.0;
    for (int j = 0; ok && j < n; ++j)
        pivot_of[j] = -1;
    /* pivot k: its row's reduced entries ui/ux[start[k] .. start[k + 1]) (the pivot first) */
    for (int i = 0; ok && i < m; ++i) {
        const MbsNatJacRow *row = &s->Jr[i];
        int nnz = 0;
        double size = 0.0;
        for (int t = 0; t < 2; ++t)
            if (row->off[t] >= 0)
                for (int k = 0; k < 12; ++k) {
                    int c = row->off[t] + k;
                    if (!mark[c]) {
                        mark[c] = 1;
                        nzlist[nnz++] = c;
                    }
                    w[c] += row->v[t][k];
                    size = fmax(size, fabs(row->v[t][k]));
                }
        /* reduce by the earlier pivots in their order (a reduction can fill later pivots'
         * columns, never earlier ones): repeatedly the earliest pivot column still nonzero */
        for (;;) {
            int best = -1;
            for (int p = 0; p < nnz; ++p) {
                int c = nzlist[p], k = pivot_of[c];
                if (k >= 0 && w[c] != 0.0 && (best < 0 || k < pivot_of[best]))
                    best = c;
            }
            if (best < 0)
                break;
            int k = pivot_of[best];
            double l = w[best] / ux[start[k]];
            for (int p = start[k]; p < start[k + 1]; ++p) {
                int c = ui[p];
                if (!mark[c]) {
                    mark[c] = 1;
                    nzlist[nnz++] = c;
                }
                w[c] -= l * ux[p];
            }
            w[best] = 0.0;
        }
        int pc = -1;
        double big = 0.0;
        for (int p = 0; p < nnz; ++p) {
            int c = nzlist[p];
            if (pivot_of[c] < 0 && fabs(w[c]) > big) {
                big = fabs(w[c]);
                pc = c;
            }
        }
        if (pc >= 0 && big > RANK_TOLERANCE * size) {
            s->gap = fmin(s->gap, big / size);
            if (used + (size_t)nnz > cap) {
                cap = 2 * (used + (size_t)nnz);
                int *ni = realloc(ui, cap * sizeof(int));
                if (ni)
                    ui = ni;
                double *nx = ni ? realloc(ux, cap * sizeof(double)) : NULL;
                if (nx)
                    ux = nx;
                ok = ni && nx;
            }
            if (ok) {
                start[r] = (int)used;
                ui[used] = pc;
                ux[used++] = w[pc];
                for (int p = 0; p < nnz; ++p) {
                    int c = nzlist[p];
                    if (c != pc && pivot_of[c] < 0 && w[c] != 0.0) {
                        ui[used] = c;
                        ux[used++] = w[c];
                    }
                }
                start[r + 1] = (int)used;
                pivot_of[pc] = r;
                s->rp[r] = i;
                s->cp[r] = pc;
                ++r;
            }
        }
        for (int p = 0; p < nnz; ++p) {
            w[nzlist[p]] = 0.0;
            mark[nzlist[p]] = 0;
        }
    }
    if (ok) {
        int k = r;
        for (int j = 0; j < n; ++j)
            if (pivot_of[j] < 0)
                s->cp[k++] = j;
    }
    free(w);
    free(pivot_of);
    free(start);
    free(mark);
    free(nzlist);
    free(ui);
    free(ux);
    return ok ? r : -1;
}

/* A new partition at the current q (s->Phi current): rows, u, v, Phi_u factorized in Pu0 and
 * its condition cond0. 0, or -1 when the rank changed or Phi_u is singular. */
static int choose_partition(Ssode *s)
{
    s->eval_valid = 0; /* the ODE's state depends on the partition */
    int r = s->sparse ? eliminate_sparse(s) : eliminate(s);
    if (r < 0)
        return -1;
    if (s->partitioned && r != s->r)
        return -1;
    s->r = r;
    s->nv = s->n - r;
    for (int i = 0; i < r; ++i) {
        s->rows[i] = s->rp[i];
        s->ucol[i] = s->cp[i];
    }
    for (int j = 0; j < s->nv; ++j)
        s->vcol[j] = s->cp[r + j];
    s->partitioned = 1;
    if (s->sparse) {
        if (sparse_patterns(s) != 0 || sparse_factor_phi_u0(s, &s->cond0) != 0)
            return -1;
    } else if (factor_phi_u(s, s->Pu0, s->ip0, &s->cond0) != 0) {
        return -1;
    }
    s->cond = s->cond0;
    return 0;
}

/* --- singular positions ------------------------------------------------------------------
 * At a parallelogram's flat position Phi_q loses rank whatever the partition: Phi_u has
 * singular values sigma -> 0, the two branches of Phi_R(u; v) = 0 cross, and solving with Phi_u
 * amplifies the recovery's position error by 1/sigma in ud and 1/sigma^2 in the accelerations
 * (the chain's right-hand side turned to noise within ~1e-5 rad of the crossing, and a stage
 * there could take the other branch's velocities: the SDIRK cut its step until it gave up).
 * In the singular mode (SINGULAR_GAP) every solve with A = Phi_u is a damped least-squares
 * one anchored on a prior x_p (as matrix-r's, form_matrix_r_partition.c):
 *   min |A x - b|^2 + mu^2 |x - x_p|^2,  K [y; x - x_p] = [b - A x_p; 0],  K = [mu I A; A^T -mu I]
 * (quasi-definite: condition sqrt(sigma_max^2 + mu^2) / mu); directions with sigma >> mu are
 * solved exactly, those with sigma << mu keep the prior. The priors are the step start's
 * state (q0, qd0, qdd0 at t0) and tangent T0 = dq/dv, anchored on the evaluated v, vd: a
 * deterministic function of (t, y) within a step, so the integrator's Newton and error control
 * see a smooth right-hand side. The positions are Newton's from that prediction (it picks the
 * branch), with Phi_u at the iterate. */

/* Phi_R's entry (row i of R, column v_j). */
static double phi_rv(const Ssode *s, int i, int j)
{
    if (!s->sparse)
        return s->Phi[(size_t)s->rows[i] + (size_t)s->m * (size_t)s->vcol[j]];
    const MbsNatJacRow *row = &s->Jr[s->rows[i]];
    double sum = 0.0;
    for (int t = 0; t < 2; ++t) {
        int k = s->vcol[j] - row->off[t];
        if (row->off[t] >= 0 && k >= 0 && k < 12)
            sum += row->v[t][k];
    }
    return sum;
}

/* |Phi_u|_1 at the current q (dense: s->Phi; sparse: Px, filled). */
static double phi_u_norm1(Ssode *s)
{
    double anorm = 0.0;
    for (int j = 0; j < s->r; ++j) {
        double col = 0.0;
        if (s->sparse)
            for (int p = s->Pp[j]; p < s->Pp[j + 1]; ++p)
                col += fabs(s->Px[p]);
        else
            for (int i = 0; i < s->r; ++i)
                col += fabs(s->Phi[(size_t)s->rows[i] + (size_t)s->m * (size_t)s->ucol[j]]);
        anorm = fmax(anorm, col);
    }
    return anorm;
}

/* The damped matrix's storage for the partition: dense 2r x 2r (once), or K's CSC pattern from
 * Phi_u's (columns 0..r-1: mu e_j then A's row j at rows r + c; columns r + c: A's column c
 * then -mu) and its KLU analysis. Allocates (partition time). 0, or -1. */
static int damped_pattern(Ssode *s)
{
    int r = s->r;
    if (!s->sparse) {
        if (!s->Kd) {
            s->Kd = malloc(4 * (size_t)r * (size_t)r * sizeof(double) + 1);
            s->Kdip = malloc(2 * (size_t)r * sizeof(int) + 1);
        }
        return s->Kd && s->Kdip ? 0 : -1;
    }
    if (s->dnum)
        klu_free_numeric(&s->dnum, &s->kc);
    if (s->dsym)
        klu_free_symbolic(&s->dsym, &s->kc);
    free(s->Dp);
    free(s->Di);
    free(s->Dx);
    free(s->dmap);
    int nnz = s->Pp[r];
    s->Dp = calloc(2 * (size_t)r + 1, sizeof(int));
    s->Di = malloc((2 * (size_t)nnz + 2 * (size_t)r + 1) * sizeof(int));
    s->Dx = calloc(2 * (size_t)nnz + 2 * (size_t)r + 1, sizeof(double));
    s->dmap = malloc((2 * (size_t)nnz + 1) * sizeof(int));
    int *cnt = calloc((size_t)r + 1, sizeof(int));
    int ok = s->Dp && s->Di && s->Dx && s->dmap && cnt;
    if (ok) {
        for (int p = 0; p < nnz; ++p)
            cnt[s->Pi[p]]++;
        for (int j = 0; j < r; ++j)
            s->Dp[j + 1] = s->Dp[j] + 1 + cnt[j];
        for (int c = 0; c < r; ++c)
            s->Dp[r + c + 1] = s->Dp[r + c] + (s->Pp[c + 1] - s->Pp[c]) + 1;
        for (int j = 0; j < r; ++j) {
            s->Di[s->Dp[j]] = j;
            cnt[j] = s->Dp[j] + 1;
        }
        for (int c = 0; c < r; ++c) {
            int q = s->Dp[r + c];
            for (int p = s->Pp[c]; p < s->Pp[c + 1]; ++p) {
                int i = s->Pi[p];
                s->Di[q] = i;
                s->dmap[p] = q++;
                s->Di[cnt[i]] = r + c;
                s->dmap[nnz + p] = cnt[i]++;
            }
            s->Di[q] = r + c;
        }
        ok = (s->dsym = klu_analyze(2 * r, s->Dp, s->Di, &s->kc)) != NULL;
    }
    free(cnt);
    return ok ? 0 : -1;
}

/* K = [mu I A; A^T -mu I] at the current q (Phi or Jr current), factorized. 0, or -1. */
static int damped_factor(Ssode *s)
{
    int r = s->r;
    if (r == 0)
        return 0;
    s->mu = SINGULAR_DAMPING * s->sigma_ref;
    if (!s->sparse) {
        size_t R2 = 2 * (size_t)r;
        memset(s->Kd, 0, R2 * R2 * sizeof(double));
        for (int j = 0; j < r; ++j) {
            for (int i = 0; i < r; ++i) {
                double a = s->Phi[(size_t)s->rows[i] + (size_t)s->m * (size_t)s->ucol[j]];
                s->Kd[(size_t)i + R2 * (size_t)(r + j)] = a;
                s->Kd[(size_t)(r + j) + R2 * (size_t)i] = a;
            }
            s->Kd[(size_t)j + R2 * (size_t)j] = s->mu;
            s->Kd[(size_t)(r + j) + R2 * (size_t)(r + j)] = -s->mu;
        }
        return mbs_lu_factor(2 * r, s->Kd, s->Kdip) ? -1 : 0;
    }
    sparse_fill_phi_u(s);
    int nnz = s->Pp[r];
    for (int p = 0; p < nnz; ++p)
        s->Dx[s->dmap[p]] = s->Dx[s->dmap[nnz + p]] = s->Px[p];
    for (int j = 0; j < r; ++j) {
        s->Dx[s->Dp[j]] = s->mu;
        s->Dx[s->Dp[r + j + 1] - 1] = -s->mu;
    }
    return mbs_sparse_lu_factor(s->Dp, s->Di, s->Dx, s->dsym, &s->dnum, &s->kc,
                                &s->refactorizations, &s->full_factorizations)
               ? -1
               : 0;
}

static void damped_solve_k(Ssode *s, double *Kb)
{
    if (s->sparse)
        klu_solve(s->dsym, s->dnum, 2 * s->r, 1, Kb, &s->kc);
    else
        mbs_lu_solve(2 * s->r, s->Kd, s->Kdip, Kb, 1);
}

/* b := argmin |A x - b|^2 + mu^2 |x - xp|^2 (A = Phi_u, damped_factor done). */
static void damped_solve(Ssode *s, double *b, const double *xp)
{
    int r = s->r;
    double *Kb = s->lwork; /* 4 r */
    memcpy(Kb, b, (size_t)r * sizeof(double));
    memset(Kb + r, 0, (size_t)r * sizeof(double));
    for (int c = 0; c < r; ++c) {
        if (s->sparse)
            for (int p = s->Pp[c]; p < s->Pp[c + 1]; ++p)
                Kb[s->Pi[p]] -= s->Px[p] * xp[c];
        else
            for (int i = 0; i < r; ++i)
                Kb[i] -= s->Phi[(size_t)s->rows[i] + (size_t)s->m * (size_t)s->ucol[c]] * xp[c];
    }
    damped_solve_k(s, Kb);
    for (int i = 0; i < r; ++i)
        b[i] = xp[i] + Kb[r + i];
}

/* y := A (A^T A + mu^2 I)^-1 y = argmin |A^T x - y|^2 + mu^2 |x|^2: K [x; z] = [0; y]. */
static void damped_solve_transposed(Ssode *s, double *y)
{
    int r = s->r;
    double *Kb = s->lwork;
    memset(Kb, 0, (size_t)r * sizeof(double));
    memcpy(Kb + r, y, (size_t)r * sizeof(double));
    damped_solve_k(s, Kb);
    memcpy(y, Kb, (size_t)r * sizeof(double));
}

/* The step start's prediction for the singular mode at t: the state (q, qd, qdd consistent)
 * and T0 = dq/dv: from Tu (s->K, the last evaluation's) or, with `plain`, solved with the
 * partition's factors (Pu0 / pnum0, current at q: a new partition). */
static void record_prediction(Ssode *s, double t, int plain)
{
    int n = s->n, r = s->r, nv = s->nv;
    size_t N = (size_t)n, R = (size_t)r;
    memcpy(s->q0, s->q, N * sizeof(double));
    memcpy(s->qd0, s->qd, N * sizeof(double));
    memcpy(s->qdd0, s->qdd, N * sizeof(double));
    s->t0 = t;
    for (int j = 0; j < nv; ++j) {
        double *col = s->T0 + N * (size_t)j, *x = s->Pv;
        memset(col, 0, N * sizeof(double));
        col[s->vcol[j]] = 1.0;
        if (plain) {
            for (int i = 0; i < r; ++i)
                x[i] = -phi_rv(s, i, j);
            if (r > 0 && s->sparse)
                klu_solve(s->psym, s->pnum0, r, 1, x, &s->kc);
            else if (r > 0)
                mbs_lu_solve(r, s->Pu0, s->ip0, x, 1);
        } else {
            x = s->K + R * (size_t)j;
        }
        for (int i = 0; i < r; ++i)
            col[s->ucol[i]] = x[i];
    }
}

/* The singular mode starts at the current state (a new partition chosen at t): its damped
 * matrix's storage and the prediction. 0, or -1. */
static int start_singular(Ssode *s, double t)
{
    if (damped_pattern(s) != 0)
        return -1;
    record_prediction(s, t, 1);
    s->singular = 1;
    s->eval_valid = 0;
    return 0;
}

/* The position recovery's factors of Phi_u: the step start's (dense Pu0/ip0, sparse pnum0),
 * or refactorized at the iterate (Pu/ip, pnum). */
typedef struct {
    int at_iterate;
} RecoveryFactors;

/* x := Phi_u^-1 x with the chosen factors, in either algebra. */
static void recovery_solve(Ssode *s, const RecoveryFactors *fac, double *x)
{
    if (s->sparse)
        klu_solve(s->psym, fac->at_iterate ? s->pnum : s->pnum0, s->r, 1, x, &s->kc);
    else
        mbs_lu_solve(s->r, fac->at_iterate ? s->Pu : s->Pu0, fac->at_iterate ? s->ip : s->ip0,
                     x, 1);
}

/* Phi_u at q, factorized for the iterations that follow. 0, or non-zero when singular. */
static int recovery_refactor(Ssode *s, double t, RecoveryFactors *fac)
{
    if (s->sparse) {
        mbs_natural_constraint_rows(s->nat, s->q, NULL, t, NULL, s->Jr, NULL, NULL);
        if (sparse_factor_phi_u(s, &s->pnum) != 0)
            return -1;
    } else {
        mbs_natural_constraints(s->nat, s->q, NULL, t, NULL, s->Phi, NULL, NULL);
        if (factor_phi_u(s, s->Pu, s->ip, NULL) != 0)
            return -1;
    }
    fac->at_iterate = 1;
    return 0;
}

/* u from Phi_R(u, v, t) = 0 by Newton with the step-start factorization of Phi_u (a chord
 * iteration); when it converges slowly (far from the step start) Phi_u is refactorized at the
 * iterate. Dense LAPACK or KLU factors, as the algebra. 0, or -1 when it does not converge. */
static int recover_positions(Ssode *s, double t)
{
    int r = s->r;
    RecoveryFactors fac = {0};
    double prev = INFINITY;
    for (int it = 0; it < RECOVERY_ITERATIONS; ++it) {
        /* singular mode: Newton with Phi_u at every iterate (the step start's may be far
         * more singular than the iterate's) */
        if (s->singular && r > 0 && recovery_refactor(s, t, &fac) != 0)
            return -1;
        mbs_natural_constraints(s->nat, s->q, NULL, t, s->phi, NULL, NULL, NULL);
        for (int i = 0; i < r; ++i)
            s->x[i] = -s->phi[s->rows[i]];
        if (r == 0)
            return 0;
        recovery_solve(s, &fac, s->x);
        double dnorm = 0.0, qnorm = 0.0;
        for (int i = 0; i < r; ++i) {
            s->q[s->ucol[i]] += s->x[i];
            dnorm = fmax(dnorm, fabs(s->x[i]));
            qnorm = fmax(qnorm, fabs(s->q[s->ucol[i]]));
        }
        s->recovery_iterations++;
        if (!isfinite(dnorm))
            return -1;
        double scale = fmax(1.0, qnorm);
        /* converged, or stagnating at round-off (cond(Phi_u) eps) */
        if (dnorm <= RECOVERY_TOLERANCE * scale || (dnorm <= 1e-9 * scale && dnorm >= 0.5 * prev))
            return 0;
        if (it >= 2 && dnorm > 0.25 * prev && !fac.at_iterate) {
            /* slow chord: Newton with Phi_u at the iterate */
            if (recovery_refactor(s, t, &fac) != 0)
                return -1;
            s->recovery_refactorizations++;
        }
        prev = dnorm;
    }
    return -1;
}

/* The end of both evaluations: lambda on its rows from lambda_R, the work rate W' = P_nc +
 * lambda^T Phi_t (the constraint force -Phi_q^T lambda has power -lambda^T Phi_q qd =
 * lambda^T Phi_t), ydot = (vd, vdd, W'); 1 if the accelerations are not finite. */
static int finish_evaluation(Ssode *s, const double *lambda_r, double power_nc, const double *vd,
                             double *ydot)
{
    int n = s->n, r = s->r, nv = s->nv;
    memset(s->lambda, 0, (size_t)s->m * sizeof(double));
    double driver_power = 0.0;
    for (int i = 0; i < r; ++i) {
        int row = s->rows[i];
        s->lambda[row] = lambda_r[i];
        driver_power += s->lambda[row] * s->phit[row];
    }
    s->power = power_nc + driver_power;
    if (ydot) {
        for (int j = 0; j < nv; ++j) {
            ydot[j] = vd[j];
            ydot[nv + j] = s->qdd[s->vcol[j]];
        }
        ydot[2 * nv] = s->power;
    }
    for (int k = 0; k < n; ++k)
        if (!isfinite(s->qdd[k]))
            return 1;
    return 0;
}

static int reduced_accelerations(Ssode *s, double t, const double *vd, double *ydot);

/* evaluate with sparse algebra: velocities with Phi_u's KLU factors, then the augmented system
 * [M Phi_R^T; Phi_R 0] [qdd; lambda_R] = [Q; -c_R] (paper 002 eq 17 before its reduction to
 * the independent accelerations) factorized by KLU: its cost grows with the nonzeros of the
 * factors, not with (n - r) r^2 as the reduced dense form's. */
static int evaluate_sparse(Ssode *s, double t, const double *y, double *ydot)
{
    int n = s->n, r = s->r, nv = s->nv;
    const double *v = y, *vd = y + nv;
    for (int j = 0; j < nv; ++j)
        s->q[s->vcol[j]] = v[j];
    if (recover_positions(s, t) != 0) {
        memcpy(s->q, s->q_recovered, (size_t)n * sizeof(double));
        return 1;
    }
    memcpy(s->q_recovered, s->q, (size_t)n * sizeof(double));
    mbs_natural_constraint_rows(s->nat, s->q, NULL, t, NULL, s->Jr, s->phit, NULL);
    /* velocities: Phi_u ud = -(Phi_v vd + Phi_t)_R (qd zero on u while Phi_v vd is formed) */
    for (int i = 0; i < r; ++i)
        s->qd[s->ucol[i]] = 0.0;
    for (int j = 0; j < nv; ++j)
        s->qd[s->vcol[j]] = vd[j];
    for (int i = 0; i < r; ++i) {
        int row = s->rows[i];
        s->x[i] = -(s->phit[row] + sparse_row_dot(&s->Jr[row], s->qd));
    }
    if (r > 0) {
        if (sparse_factor_phi_u(s, &s->pnum) != 0)
            return 1;
        klu_solve(s->psym, s->pnum, r, 1, s->x, &s->kc);
    }
    for (int i = 0; i < r; ++i)
        s->qd[s->ucol[i]] = s->x[i];
    mbs_natural_constraint_rows(s->nat, s->q, s->qd, t, NULL, NULL, NULL, s->cb);
    MbsNatEnergy e;
    mbs_natural_forces(s->nat, s->q, s->qd, s->angle_ref, s->grad, s->Q, &e);
    /* K's Phi_R entries (M's are constant), factorized */
    for (size_t e2 = 0; e2 < 48 * (size_t)r; ++e2)
        if (s->kpos[e2] >= 0)
            s->Kx[s->kpos[e2]] = 0.0;
    for (int i = 0; i < r; ++i) {
        const MbsNatJacRow *row = &s->Jr[s->rows[i]];
        const int *pos = &s->kpos[(size_t)i * 48];
        for (int t2 = 0; t2 < 2; ++t2)
            for (int k = 0; k < 12; ++k) {
                int e2 = 2 * (12 * t2 + k);
                if (pos[e2] >= 0) {
                    s->Kx[pos[e2]] += row->v[t2][k];
                    s->Kx[pos[e2 + 1]] += row->v[t2][k];
                }
            }
    }
    if (mbs_sparse_lu_factor(s->Kp, s->Ki, s->Kx, s->ksym, &s->knum, &s->kc,
                             &s->refactorizations, &s->full_factorizations) != 0)
        return 1;
    memcpy(s->x, s->Q, (size_t)n * sizeof(double));
    for (int i = 0; i < r; ++i)
        s->x[n + i] = -s->cb[s->rows[i]];
    klu_solve(s->ksym, s->knum, n + r, 1, s->x, &s->kc);
    memcpy(s->qdd, s->x, (size_t)n * sizeof(double));
    return finish_evaluation(s, s->x + n, e.power_nonconservative, vd, ydot);
}

/* The state-space ODE at (t, v, vd): fills s->q, qd, qdd, lambda and returns vdd and W' in
 * ydot (both may be the same state vector layout); 0, or 1 (recoverable for SUNDIALS) when the
 * dependent coordinates cannot be recovered or the augmented matrix is singular. */
static int evaluate_dense(Ssode *s, double t, const double *y, double *ydot)
{
    int n = s->n, r = s->r, nv = s->nv;
    size_t M = (size_t)s->m;
    const double *v = y, *vd = y + nv;
    for (int j = 0; j < nv; ++j)
        s->q[s->vcol[j]] = v[j];
    if (recover_positions(s, t) != 0) {
        /* the next recovery (a smaller step) starts from the last good q, not from the
         * diverged iterate */
        memcpy(s->q, s->q_recovered, (size_t)n * sizeof(double));
        return 1;
    }
    memcpy(s->q_recovered, s->q, (size_t)n * sizeof(double));
    /* velocities: Phi_u ud = -(Phi_v vd + Phi_t)_R at the recovered q */
    mbs_natural_constraints(s->nat, s->q, NULL, t, NULL, s->Phi, s->phit, NULL);
    for (int j = 0; j < nv; ++j)
        s->qd[s->vcol[j]] = vd[j];
    for (int i = 0; i < r; ++i) {
        int row = s->rows[i];
        double b = s->phit[row];
        for (int j = 0; j < nv; ++j)
            b += s->Phi[row + M * s->vcol[j]] * vd[j];
        s->x[i] = -b;
    }
    if (r > 0) {
        if (factor_phi_u(s, s->Pu, s->ip, NULL) != 0)
            return 1;
        mbs_lu_solve(r, s->Pu, s->ip, s->x, 1);
    }
    for (int i = 0; i < r; ++i)
        s->qd[s->ucol[i]] = s->x[i];
    return reduced_accelerations(s, t, vd, ydot);
}

/* Accelerations at the recovered (q, qd) (paper 002 eqs 17-19, the partitioned form of the
 * augmented system [M Phi_R^T; Phi_R 0] [qdd; lambda] = [Q; -c_R]): qdd = T vdd + g with
 * T = [-Phi_u^-1 Phi_v; I], g = [-Phi_u^-1 c_R; 0]; (T^T M T) vdd = T^T (Q - M g); then
 * Phi_u^T lambda = (Q - M qdd)_u. With Phi_u already factorized this costs r^2 (nv + 2) +
 * n nv + nv^3, not (n + r)^3. Dense LU factors (Pu), or in the singular mode the damped solves
 * anchored on the prediction's T0 and g0 = qdd0_u - T0_u qdd0_v (either algebra). */
static int reduced_accelerations(Ssode *s, double t, const double *vd, double *ydot)
{
    int n = s->n, r = s->r, nv = s->nv;
    if (s->sparse)
        mbs_natural_constraint_rows(s->nat, s->q, s->qd, t, NULL, NULL, NULL, s->cb);
    else
        mbs_natural_constraints(s->nat, s->q, s->qd, t, NULL, NULL, NULL, s->cb);
    MbsNatEnergy e;
    mbs_natural_forces(s->nat, s->q, s->qd, s->angle_ref, s->grad, s->Q, &e);
    size_t R = (size_t)r, N = (size_t)n, NV = (size_t)nv;
    double *Tu = s->K, *MT = Tu + R * NV, *Mred = MT + N * NV, *prior = s->Pv;
    for (int j = 0; j < nv; ++j) {
        double *col = &Tu[R * j];
        for (int i = 0; i < r; ++i) {
            col[i] = -phi_rv(s, i, j);
            prior[i] = s->T0[s->ucol[i] + N * j];
        }
        if (r > 0 && s->singular)
            damped_solve(s, col, prior);
        else if (r > 0)
            mbs_lu_solve(r, s->Pu, s->ip, col, 1);
    }
    for (int i = 0; i < r; ++i) {
        s->x[i] = -s->cb[s->rows[i]];
        double g0 = s->qdd0[s->ucol[i]];
        for (int j = 0; j < nv && s->singular; ++j)
            g0 -= s->T0[s->ucol[i] + N * j] * s->qdd0[s->vcol[j]];
        prior[i] = g0;
    }
    if (r > 0 && s->singular)
        damped_solve(s, s->x, prior);
    else if (r > 0)
        mbs_lu_solve(r, s->Pu, s->ip, s->x, 1);
    memset(s->gacc, 0, N * sizeof(double));
    for (int i = 0; i < r; ++i)
        s->gacc[s->ucol[i]] = s->x[i];
    /* rhs = Q - M g */
    mbs_natural_mass_mul(s->nat, s->gacc, s->rhs);
    for (int k = 0; k < n; ++k)
        s->rhs[k] = s->Q[k] - s->rhs[k];
    /* columns of T, M T, and the reduced system */
    for (int j = 0; j < nv; ++j) {
        memset(s->tcol, 0, N * sizeof(double));
        for (int i = 0; i < r; ++i)
            s->tcol[s->ucol[i]] = Tu[R * j + i];
        s->tcol[s->vcol[j]] = 1.0;
        mbs_natural_mass_mul(s->nat, s->tcol, &MT[N * j]);
    }
    for (int j = 0; j < nv; ++j) {
        const double *mt = &MT[N * j];
        for (int i = 0; i < nv; ++i) {
            /* T_i^T (M T_j): T_i has the entries Tu(:, i) on u and 1 on v_i */
            double sum = mt[s->vcol[i]];
            for (int k = 0; k < r; ++k)
                sum += Tu[R * i + k] * mt[s->ucol[k]];
            Mred[NV * j + i] = sum;
        }
        double b = s->rhs[s->vcol[j]];
        for (int k = 0; k < r; ++k)
            b += Tu[R * j + k] * s->rhs[s->ucol[k]];
        s->x[r + j] = b;
    }
    if (nv > 0) {
        if (mbs_lu_factor(nv, Mred, s->ipk) != 0)
            return 1;
        mbs_lu_solve(nv, Mred, s->ipk, &s->x[r], 1);
    }
    const double *vdd = &s->x[r];
    memcpy(s->qdd, s->gacc, N * sizeof(double));
    for (int j = 0; j < nv; ++j) {
        s->qdd[s->vcol[j]] += vdd[j];
        for (int i = 0; i < r; ++i)
            s->qdd[s->ucol[i]] += Tu[R * j + i] * vdd[j];
    }
    /* multipliers: Phi_u^T lambda_R = (Q - M qdd)_u */
    mbs_natural_mass_mul(s->nat, s->qdd, s->tcol);
    for (int i = 0; i < r; ++i)
        s->rhs[i] = s->Q[s->ucol[i]] - s->tcol[s->ucol[i]];
    if (r > 0 && s->singular)
        damped_solve_transposed(s, s->rhs);
    else if (r > 0)
        LAPACKE_dgetrs_work(LAPACK_COL_MAJOR, 'T', r, 1, s->Pu, r, s->ip, s->rhs, r);
    return finish_evaluation(s, s->rhs, e.power_nonconservative, vd, ydot);
}

/* The ODE in the singular mode (either algebra): u by Newton from the prediction anchored on
 * v, ud by the damped solve anchored on the predicted ud, then reduced_accelerations. */
static int evaluate_singular(Ssode *s, double t, const double *y, double *ydot)
{
    int n = s->n, r = s->r, nv = s->nv;
    size_t N = (size_t)n;
    const double *v = y, *vd = y + nv;
    double dt = t - s->t0;
    for (int k = 0; k < n; ++k)
        s->q[k] = s->q0[k] + dt * (s->qd0[k] + 0.5 * dt * s->qdd0[k]);
    for (int j = 0; j < nv; ++j) {
        int c = s->vcol[j];
        double dv = v[j] - s->q[c];
        for (int i = 0; i < r; ++i)
            s->q[s->ucol[i]] += s->T0[s->ucol[i] + N * j] * dv;
        s->q[c] = v[j];
    }
    if (recover_positions(s, t) != 0) {
        memcpy(s->q, s->q_recovered, N * sizeof(double));
        return 1;
    }
    memcpy(s->q_recovered, s->q, N * sizeof(double));
    if (s->sparse)
        mbs_natural_constraint_rows(s->nat, s->q, NULL, t, NULL, s->Jr, s->phit, NULL);
    else
        mbs_natural_constraints(s->nat, s->q, NULL, t, NULL, s->Phi, s->phit, NULL);
    if (damped_factor(s) != 0)
        return 1;
    s->damped_evaluations++;
    for (int i = 0; i < r; ++i)
        s->qd[s->ucol[i]] = 0.0;
    for (int j = 0; j < nv; ++j)
        s->qd[s->vcol[j]] = vd[j];
    for (int i = 0; i < r; ++i) {
        int row = s->rows[i], u = s->ucol[i];
        double b = s->phit[row], p = s->qd0[u] + dt * s->qdd0[u];
        for (int j = 0; j < nv; ++j) {
            int c = s->vcol[j];
            b += phi_rv(s, i, j) * vd[j];
            p += s->T0[u + N * j] * (vd[j] - s->qd0[c] - dt * s->qdd0[c]);
        }
        s->x[i] = -b;
        s->Pv[i] = p;
    }
    if (r > 0)
        damped_solve(s, s->x, s->Pv);
    for (int i = 0; i < r; ++i)
        s->qd[s->ucol[i]] = s->x[i];
    return reduced_accelerations(s, t, vd, ydot);
}

int ssode_evaluate(Ssode *s, double t, const double *y, double *ydot)
{
    s->clock = t;
    int st = s->singular ? evaluate_singular(s, t, y, ydot)
             : s->sparse ? evaluate_sparse(s, t, y, ydot)
                         : evaluate_dense(s, t, y, ydot);
    s->eval_valid = st == 0;
    if (st == 0) {
        s->eval_t = t;
        memcpy(s->eval_y, y, 2 * (size_t)s->nv * sizeof(double));
    }
    return st;
}

static int rhs(sunrealtype t, N_Vector y, N_Vector ydot, void *data)
{
    Ssode *s = data;
    s->rhs_evals++;
    int st = ssode_evaluate(s, t, N_VGetArrayPointer(y), N_VGetArrayPointer(ydot));
    s->rhs_failed = st;
    return st;
}

static int sdirk_rhs(void *data, double t, const double *y, double *ydot)
{
    Ssode *s = data;
    s->rhs_evals++;
    int st = ssode_evaluate(s, t, y, ydot);
    s->rhs_failed = st;
    /* the SDIRK retries a smaller step: its recoveries start from the step start, not from
     * the last stage that converged (possibly far along the abandoned step) */
    if (st != 0) {
        memcpy(s->q_recovered, s->q_step, (size_t)s->n * sizeof(double));
        memcpy(s->q, s->q_step, (size_t)s->n * sizeof(double));
    }
    return st;
}

/* SsodeSdirkJacobian: J1, J2 and dW'/d(v, vd) through the tangent (ssode_jacobian.c). */
static int sdirk_jacobian(void *data, double t, const double *y, const double *ydot, double *J1,
                          double *J2, double *Jw)
{
    return ssode_jacobian(data, t, y, ydot, J1, J2, Jw);
}

/* CVODE's Jacobian of y' = (vd, vdd, W'): [0 I 0; J1 J2 0; Jw 0]. */
static int cvode_jacobian(sunrealtype t, N_Vector y, N_Vector fy, SUNMatrix Jac, void *data,
                          N_Vector tmp1, N_Vector tmp2, N_Vector tmp3)
{
    (void)tmp1;
    (void)tmp2;
    (void)tmp3;
    Ssode *s = data;
    int nv = s->nv;
    if (ssode_jacobian(s, t, N_VGetArrayPointer(y), N_VGetArrayPointer(fy), NULL, NULL, NULL))
        return 1;
    const double *J = ssode_jacobian_matrix(s);
    SUNMatZero(Jac);
    for (int i = 0; i < nv; ++i)
        SM_ELEMENT_D(Jac, i, nv + i) = 1.0;
    for (int j = 0; j < 2 * nv; ++j)
        for (int i = 0; i <= nv; ++i)
            SM_ELEMENT_D(Jac, nv + i, j) = J[i + (size_t)(nv + 1) * j];
    return 0;
}

static void pack(const Ssode *s, double *y, double work)
{
    for (int j = 0; j < s->nv; ++j) {
        y[j] = s->q[s->vcol[j]];
        y[s->nv + j] = s->qd[s->vcol[j]];
    }
    y[2 * s->nv] = work;
}

/* ydot = f at the current state (q, qd, qdd, power consistent), in the current partition. */
static void pack_derivative(const Ssode *s, double *ydot)
{
    for (int j = 0; j < s->nv; ++j) {
        ydot[j] = s->qd[s->vcol[j]];
        ydot[s->nv + j] = s->qdd[s->vcol[j]];
    }
    ydot[2 * s->nv] = s->power;
}

/* An internal step ended at (t, y), where W' = s->power. */
static void history_push(Ssode *s, double t, const double *y)
{
    size_t N = 2 * (size_t)s->nv + 1;
    if (s->nhist == HISTORY) {
        memmove(s->hist_y, s->hist_y + N, (HISTORY - 1) * N * sizeof(double));
        memmove(s->hist_t, s->hist_t + 1, (HISTORY - 1) * sizeof(double));
        memmove(s->hist_power, s->hist_power + 1, (HISTORY - 1) * sizeof(double));
        s->nhist--;
    }
    memcpy(s->hist_y + N * (size_t)s->nhist, y, N * sizeof(double));
    s->hist_t[s->nhist] = t;
    s->hist_power[s->nhist] = s->power;
    s->nhist++;
}

/* The output y = (v, vd, W) at t, inside the last internal step (or at the restart point).
 * v is the Hermite polynomial through v and its derivative vd at the last two internal step
 * ends (cubic), or three (quintic) when the step before is not much shorter than the last
 * (near-confluent nodes would amplify the integration error); the output vd is that
 * polynomial's derivative, so that the output velocities are the derivative of the output
 * positions (u, ud recovered from them follow: ud = -Phi_u^-1 Phi_v vd is du/dt). No stiff
 * data enter (a polynomial fed vdd at the ends, e.g. ARKODE's Hermite interpolant, picked up
 * the stiff accelerations' error, 1e5 tol on the stiff double pendulum). W the same way, with
 * W' = power. */
static void dense_output(const Ssode *s, double t, double *yo)
{
    int nv = s->nv, first = 0, last = s->nhist - 1;
    size_t N = 2 * (size_t)nv + 1;
    if (last >= 2 && s->hist_t[last - 1] - s->hist_t[last - 2] <
                         0.25 * (s->hist_t[last] - s->hist_t[last - 1]))
        first = last - 1;
    else if (last >= 2)
        first = last - 2;
    else if (last == 1)
        first = 0;
    int npts = last - first + 1, m = 2 * npts;
    double z[2 * HISTORY], dd[2 * HISTORY];
    for (int p = 0; p < npts; ++p)
        z[2 * p] = z[2 * p + 1] = s->hist_t[first + p];
    for (int j = 0; j <= nv; ++j) {
        /* component j < nv: v_j (derivative vd_j); j = nv: W (derivative power) */
        for (int p = 0; p < npts; ++p) {
            const double *y = s->hist_y + N * (size_t)(first + p);
            dd[2 * p] = dd[2 * p + 1] = j < nv ? y[j] : y[2 * nv];
        }
        /* Newton divided differences on the doubled nodes */
        for (int k = m - 1; k >= 1; --k) {
            if (k % 2 == 1) {
                const double *y = s->hist_y + N * (size_t)(first + k / 2);
                dd[k] = j < nv ? y[nv + j] : s->hist_power[first + k / 2];
            } else {
                dd[k] = (dd[k] - dd[k - 1]) / (z[k] - z[k - 1]);
            }
        }
        for (int l = 2; l < m; ++l)
            for (int k = m - 1; k >= l; --k)
                dd[k] = (dd[k] - dd[k - 1]) / (z[k] - z[k - l]);
        double p = dd[m - 1], dp = 0.0;
        for (int k = m - 2; k >= 0; --k) {
            dp = dp * (t - z[k]) + p;
            p = p * (t - z[k]) + dd[k];
        }
        if (j < nv) {
            yo[j] = p;
            yo[nv + j] = dp;
        } else {
            yo[2 * nv] = p;
        }
    }
}

static void update_angle_refs(Ssode *s, const MbsModel *m)
{
    for (int j = 0; j < m->njoints; ++j)
        if (m->joints[j].type == MBS_JOINT_REVOLUTE)
            s->angle_ref[j] = mbs_natural_joint_coordinate(s->nat, s->q, j, s->angle_ref[j], NULL);
}

/* Energies and constraint norms at the current state (q, qd, qdd, lambda consistent). */
static void fill_monitors(MbsFormulation *f, Ssode *s)
{
    MbsMonitors *mo = &f->monitors;
    MbsNatEnergy e;
    s->clock = f->time;
    mbs_natural_forces(s->nat, s->q, s->qd, s->angle_ref, s->grad, s->Q, &e);
    if (s->sparse)
        mbs_natural_constraint_rows(s->nat, s->q, s->qd, f->time, s->phi, s->Jr, s->phit, s->cb);
    else
        mbs_natural_constraints(s->nat, s->q, s->qd, f->time, s->phi, s->Phi, s->phit, s->cb);
    mo->time = f->time;
    mo->kinetic = e.kinetic;
    mo->potential_gravity = e.potential_gravity;
    mo->potential_elastic = e.potential_elastic;
    mo->work_nonconservative = s->work;
    mo->total = e.kinetic + e.potential_gravity + e.potential_elastic - s->work;
    mo->phi_norm = mbs_vec_norm2(s->m, s->phi);
    size_t M = (size_t)s->m;
    double dsum = 0.0, ddsum = 0.0;
    for (int i = 0; i < s->m; ++i) {
        double d = s->phit[i], dd = s->cb[i];
        if (s->sparse) {
            d += sparse_row_dot(&s->Jr[i], s->qd);
            dd += sparse_row_dot(&s->Jr[i], s->qdd);
        }
        for (int j = 0; !s->sparse && j < s->n; ++j) {
            d += s->Phi[i + M * j] * s->qd[j];
            dd += s->Phi[i + M * j] * s->qdd[j];
        }
        dsum += d * d;
        ddsum += dd * dd;
    }
    mo->dphi_norm = sqrt(dsum);
    mo->ddphi_norm = sqrt(ddsum);
}

/* The dense output restarts at (t, y) (s->power: W' there). */
static void history_reset(Ssode *s, double t, const double *y)
{
    s->nhist = 0;
    history_push(s, t, y);
}

/* (Re)start the integrator at (t, s->y), where the state (q, qd, qdd, power) is consistent,
 * with the first internal step h0 (0: its own guess); it stops at the end of the run, or never
 * when restarted past it. `rebase`: the same trajectory in a new partition (a repartition
 * between internal steps): the SDIRK, a one-step method, keeps its step size and controller
 * (only its Jacobian is new); CVODE starts again at order 1 with the step h0 (its Nordsieck
 * history of v would need u's second and higher derivatives along v to be moved to the new
 * coordinates). */
static int integrator_restart(const MbsFormulation *f, Ssode *s, double t, double h0,
                              int rebase)
{
    int st = 0;
    const double *y = N_VGetArrayPointer(s->y);
    s->t_stop = t < f->settings.duration ? f->settings.duration : INFINITY;
    if (s->o->integrator == INTEGRATOR_SDIRK4) {
        pack_derivative(s, s->ydot0);
        if (rebase)
            ssode_sdirk_rebase(s->sdirk, t, y, s->ydot0);
        else
            ssode_sdirk_restart(s->sdirk, t, y, s->ydot0, h0);
    } else {
        st = CVodeReInit(s->mem, t, s->y);
        st |= CVodeSetInitStep(s->mem, h0);
        if (isfinite(s->t_stop))
            st |= CVodeSetStopTime(s->mem, s->t_stop);
    }
    if (!s->sdirk) /* SUNDIALS counts since its last (re)start, ours since creation */
        memset(s->seen, 0, sizeof s->seen);
    history_reset(s, t, y);
    memcpy(s->q_step, s->q, (size_t)s->n * sizeof(double));
    memcpy(s->q_step_prev, s->q, (size_t)s->n * sizeof(double));
    return st;
}

static int integrator_create(MbsFormulation *f, Ssode *s, MbsError *err)
{
    const SsodeOptions *o = s->o;
    int N = 2 * s->nv + 1, st = 0;
    if (SUNContext_Create(NULL, &s->ctx) != 0)
        return mbs_error_set(err, MBS_FATAL, "ssode: could not create the SUNDIALS context");
    s->y = N_VNew_Serial(N, s->ctx);
    s->y_out = N_VNew_Serial(N, s->ctx);
    s->abstol = N_VNew_Serial(N, s->ctx);
    if (!s->y || !s->y_out || !s->abstol)
        return mbs_error_set(err, MBS_FATAL, "out of memory");
    pack(s, N_VGetArrayPointer(s->y), 0.0);
    /* Error control on v and vd (paper 002 Table I, step 2); W only follows (its equation is
     * a quadrature that the states' accuracy carries). */
    double *at = N_VGetArrayPointer(s->abstol);
    for (int i = 0; i < N - 1; ++i)
        at[i] = o->atol;
    at[N - 1] = 1e30;
    int newton = o->integrator == INTEGRATOR_BDF;
    if (newton) {
        s->J = SUNDenseMatrix(N, N, s->ctx);
        s->LS = s->J ? SUNLinSol_Dense(s->y, s->J, s->ctx) : NULL;
        if (!s->LS)
            return mbs_error_set(err, MBS_FATAL, "out of memory");
    }
    if (o->integrator == INTEGRATOR_SDIRK4) {
        s->sdirk = ssode_sdirk_new(s->nv, 1, sdirk_rhs, sdirk_jacobian, s);
        if (!s->sdirk)
            return mbs_error_set(err, MBS_FATAL, "out of memory");
        ssode_sdirk_set_tolerances(s->sdirk, o->rtol, o->atol);
    } else {
        s->mem = CVodeCreate(newton ? CV_BDF : CV_ADAMS, s->ctx);
        if (!s->mem)
            return mbs_error_set(err, MBS_FATAL, "ssode: could not create CVODE");
        st |= CVodeInit(s->mem, rhs, f->time, s->y);
        st |= CVodeSetUserData(s->mem, s);
        st |= CVodeSVtolerances(s->mem, o->rtol, s->abstol);
        if (newton) {
            st |= CVodeSetLinearSolver(s->mem, s->LS, s->J);
            /* analytical or ad: J from the tangent (difference methods: CVODE's own) */
            if (ssode_jacobian_exact(s))
                st |= CVodeSetJacFn(s->mem, cvode_jacobian);
        } else {
            s->NLS = SUNNonlinSol_FixedPoint(s->y, 0, s->ctx);
            if (!s->NLS)
                return mbs_error_set(err, MBS_FATAL, "out of memory");
            st |= CVodeSetNonlinearSolver(s->mem, s->NLS);
        }
        st |= CVodeSetMaxNumSteps(s->mem, o->max_internal_steps);
    }
    /* The user's cap on the internal step: the error control only sees the solution at the
     * steps it takes, so a short event (a 22 ms bump at 16 km/h) can fall between two steps of
     * a loose tolerance. No independent coordinates (a fully driven mechanism): the error
     * control sees nothing (W is excluded) and would grow the step without bound; the output
     * step caps it. */
    double hmax = o->max_internal_step;
    if (s->nv == 0 && (hmax <= 0.0 || hmax > f->settings.step))
        hmax = f->settings.step;
    if (hmax > 0.0) {
        if (s->sdirk)
            ssode_sdirk_set_max_step(s->sdirk, hmax);
        else
            st |= CVodeSetMaxStep(s->mem, hmax);
    }
    if (st != 0)
        return mbs_error_set(err, MBS_FATAL, "ssode: could not configure the integrator");
    return 0;
}

static int ssode_init(MbsFormulation *f, MbsError *err)
{
    const MbsModel *m = f->model;
    const MbsSettings *set = &f->settings;
    Ssode *s = calloc(1, sizeof *s);
    if (!s)
        return mbs_error_set(err, MBS_FATAL, "out of memory");
    f->impl = s;
    s->o = options(f);
    s->nat = mbs_natural_new(m, err);
    if (!s->nat)
        return MBS_FATAL;
    s->nat->clock = &s->clock;
    int n = s->n = s->nat->n, mm = s->m = s->nat->m;
    int fail = 0;
    size_t N = (size_t)n, MM = (size_t)mm, R = (size_t)(mm < n ? mm : n), NK = N + R;
    s->q = mbs_calloc(N, sizeof(double), &fail);
    s->qd = mbs_calloc(N, sizeof(double), &fail);
    s->qdd = mbs_calloc(N, sizeof(double), &fail);
    s->lambda = mbs_calloc(MM, sizeof(double), &fail);
    s->angle_ref = mbs_calloc((size_t)m->njoints, sizeof(double), &fail);
    s->rows = mbs_calloc(R, sizeof(int), &fail);
    s->ucol = mbs_calloc(R, sizeof(int), &fail);
    s->vcol = mbs_calloc(N, sizeof(int), &fail);
    s->sparse = s->o->algebra == ALGEBRA_SPARSE ||
                (s->o->algebra == ALGEBRA_AUTO && n >= SPARSE_MIN_COORDS);
    klu_defaults(&s->kc);
    /* no block triangular form: on the 1x15 lattice it doubled the factors of Phi_u and of K */
    s->kc.btf = 0;
    /* dense algebra's n x n, (n + r)^2 and r x r workspaces are not needed with sparse */
    size_t dense = s->sparse ? 0 : 1;
    s->M = mbs_calloc(dense * N * N, sizeof(double), &fail);
    s->Jr = mbs_calloc(MM, sizeof *s->Jr, &fail);
    s->uidx = mbs_calloc(N, sizeof(int), &fail);
    s->Phi = mbs_calloc(dense * MM * N, sizeof(double), &fail);
    s->W = mbs_calloc(dense * MM * N, sizeof(double), &fail);
    s->phi = mbs_calloc(MM, sizeof(double), &fail);
    s->phit = mbs_calloc(MM, sizeof(double), &fail);
    s->cb = mbs_calloc(MM, sizeof(double), &fail);
    s->rp = mbs_calloc(MM, sizeof(int), &fail);
    s->cp = mbs_calloc(N, sizeof(int), &fail);
    s->Pu0 = mbs_calloc(dense * R * R, sizeof(double), &fail);
    s->Pu = mbs_calloc(dense * R * R, sizeof(double), &fail);
    s->ip0 = mbs_calloc(R, sizeof(int), &fail);
    s->ip = mbs_calloc(R, sizeof(int), &fail);
    s->K = mbs_calloc(dense * NK * NK, sizeof(double), &fail);
    s->rhs = mbs_calloc(NK, sizeof(double), &fail);
    s->ipk = mbs_calloc(NK, sizeof(int), &fail);
    s->tcol = mbs_calloc(N, sizeof(double), &fail);
    s->gacc = mbs_calloc(N, sizeof(double), &fail);
    s->Q = mbs_calloc(N, sizeof(double), &fail);
    s->grad = mbs_calloc(N, sizeof(double), &fail);
    s->x = mbs_calloc(NK, sizeof(double), &fail);
    s->lwork = mbs_calloc(4 * R, sizeof(double), &fail);
    s->iwork = mbs_calloc(R, sizeof(int), &fail);
    s->q_start = mbs_calloc(N, sizeof(double), &fail);
    s->qd_start = mbs_calloc(N, sizeof(double), &fail);
    s->q_recovered = mbs_calloc(N, sizeof(double), &fail);
    s->q_step = mbs_calloc(N, sizeof(double), &fail);
    s->q_step_prev = mbs_calloc(N, sizeof(double), &fail);
    s->ydot0 = mbs_calloc(2 * N + 1, sizeof(double), &fail);
    s->eval_y = mbs_calloc(2 * N, sizeof(double), &fail);
    s->hist_y = mbs_calloc(HISTORY * (2 * N + 1), sizeof(double), &fail);
    int nz = mbs_model_ncoords(m);
    double *z = calloc((size_t)nz + 1, sizeof(double)), *zd = calloc((size_t)nz + 1, sizeof(double));
    MbsBodyState *bodies = calloc((size_t)m->nbodies + 1, sizeof *bodies);
    if (fail || !z || !zd || !bodies) {
        free(z);
        free(zd);
        free(bodies);
        return mbs_error_set(err, MBS_FATAL, "out of memory");
    }
    /* The same assembled initial state as every formulation. */
    int st = mbs_assemble(m, set, 0.0, z, zd, bodies, err);
    if (st == 0) {
        mbs_natural_from_bodies(s->nat, bodies, s->q, s->qd);
        for (int j = 0; j < m->njoints; ++j) {
            int nd = m->topo->joint_node[j];
            s->angle_ref[j] = nd >= 0 ? z[nd] : 0.0;
        }
    }
    free(z);
    free(zd);
    free(bodies);
    if (st != 0)
        return st;
    update_angle_refs(s, m);
    if (!s->sparse)
        mbs_natural_mass(s->nat, s->M);
    memset(&f->monitors, 0, sizeof f->monitors);
    if (s->sparse)
        mbs_natural_constraint_rows(s->nat, s->q, NULL, 0.0, NULL, s->Jr, NULL, NULL);
    else
        mbs_natural_constraints(s->nat, s->q, NULL, 0.0, NULL, s->Phi, NULL, NULL);
    if (choose_partition(s) != 0)
        return mbs_error_set(err, MBS_FATAL, "ssode: Phi_u is singular at t = 0");
    /* the singular mode's references (SINGULAR_GAP, SINGULAR_DAMPING) and storage */
    s->gap_ref = s->gap;
    s->sigma_ref = s->r > 0 ? phi_u_norm1(s) / s->cond0 : 0.0;
    size_t NV = (size_t)s->nv, RR = (size_t)s->r;
    s->q0 = mbs_calloc(N, sizeof(double), &fail);
    s->qd0 = mbs_calloc(N, sizeof(double), &fail);
    s->qdd0 = mbs_calloc(N, sizeof(double), &fail);
    s->T0 = mbs_calloc(N * NV, sizeof(double), &fail);
    s->Pv = mbs_calloc(N, sizeof(double), &fail);
    if (s->sparse) { /* the reduced route's T_u, M T, T^T M T (singular mode) */
        free(s->K);
        s->K = mbs_calloc(RR * NV + N * NV + NV * NV, sizeof(double), &fail);
    } else if (damped_pattern(s) != 0) { /* dense: 4 r^2, no larger than K's (n + r)^2 */
        fail = 1;
    }
    if (fail)
        return mbs_error_set(err, MBS_FATAL, "out of memory");
    /* Consistent u, ud, qdd at t = 0 from the assembled v, vd. */
    int N2 = 2 * s->nv + 1;
    double *y0 = calloc((size_t)N2, sizeof(double));
    if (!y0)
        return mbs_error_set(err, MBS_FATAL, "out of memory");
    pack(s, y0, 0.0);
    st = ssode_evaluate(s, 0.0, y0, NULL);
    free(y0);
    if (st != 0)
        return mbs_error_set(err, MBS_FATAL,
                             "ssode: no consistent state at t = 0 (dependent coordinates or the "
                             "reduced mass matrix T^T M T singular)");
    s->work = 0.0;
    s->h_next = 0.0;
    s->h_min = INFINITY;
    s->restart = 1;
    if (ssode_jacobian_init(s, err) != 0 || integrator_create(f, s, err) != 0)
        return MBS_FATAL;
    fill_monitors(f, s);
    return 0;
}

static void restore_start(Ssode *s)
{
    memcpy(s->q, s->q_start, (size_t)s->n * sizeof(double));
    memcpy(s->qd, s->qd_start, (size_t)s->n * sizeof(double));
    s->eval_valid = 0;
}

/* Integrator counters since the last collection (SUNDIALS counts since its last (re)start),
 * added to the statistics and to the output step's. */
static void collect_counters(Ssode *s, long *nli, long *jevals)
{
    long nst = 0, netf = 0, nni = 0, nncf = 0, nje = 0, nfe_ls = 0;
    if (s->sdirk) {
        const SsodeSdirkCounters *c = ssode_sdirk_counters(s->sdirk);
        nst = c->steps;
        netf = c->error_test_failures;
        nni = c->newton_iterations;
        nncf = c->newton_failures;
        nje = c->jacobians;
    } else {
        CVodeGetNumSteps(s->mem, &nst);
        CVodeGetNumErrTestFails(s->mem, &netf);
        CVodeGetNumNonlinSolvIters(s->mem, &nni);
        CVodeGetNumNonlinSolvConvFails(s->mem, &nncf);
        if (s->o->integrator == INTEGRATOR_BDF) {
            CVodeGetNumJacEvals(s->mem, &nje);
            /* its own difference quotients (nd methods): right-hand sides of the Jacobian */
            CVodeGetNumLinRhsEvals(s->mem, &nfe_ls);
        }
    }
    long *seen = s->seen;
    s->internal_steps += nst - seen[0];
    s->error_test_failures += netf - seen[1];
    s->nonlinear_iterations += nni - seen[2];
    s->nonlinear_failures += nncf - seen[3];
    s->jac_evals += nje - seen[4];
    s->jacobian_rhs_evals += nfe_ls - seen[5];
    *nli += nni - seen[2];
    *jevals += nje - seen[4];
    seen[0] = nst;
    seen[1] = netf;
    seen[5] = nfe_ls;
    seen[2] = nni;
    seen[3] = nncf;
    seen[4] = nje;
}

/* The step the integrator will try next (the checkpoint's first step after a restart). */
static double proposed_step(const Ssode *s)
{
    double h = 0.0;
    if (s->sdirk)
        h = ssode_sdirk_next_step(s->sdirk);
    else
        CVodeGetCurrentStep(s->mem, &h);
    return h;
}

/* One accepted internal step that ended at t: statistics and the step-size history. */
static void internal_step_taken(MbsFormulation *f, Ssode *s, double t)
{
    double h = 0.0;
    int order = 4;
    if (s->sdirk) {
        h = ssode_sdirk_last_step(s->sdirk);
    } else {
        CVodeGetLastStep(s->mem, &h);
        CVodeGetLastOrder(s->mem, &order);
    }
    s->h_last = h;
    s->h_max = fmax(s->h_max, h);
    s->h_min = fmin(s->h_min, h);
    if (f->internal_step)
        f->internal_step(f->internal_step_data, t, h, order);
}

/* cond(Phi_u) at the current q (s->Phi current) has grown 25 % over its value when the
 * partition was chosen (paper 002 Table I, step 7). Phi_u, factorized in Pu0, is the Newton
 * matrix of the position recovery until the next check. */
static int partition_degraded(Ssode *s)
{
    if (s->sparse)
        return s->pattern_stale || sparse_factor_phi_u0(s, &s->cond) != 0 ||
               !(s->cond < REPARTITION_GROWTH * s->cond0);
    int info = factor_phi_u(s, s->Pu0, s->ip0, &s->cond);
    return info != 0 || !(s->cond < REPARTITION_GROWTH * s->cond0);
}

/* A new partition at the current state at t (s->Phi current): 0, or -1 when none is regular.
 * Its elimination gap near a rank loss of Phi_q starts the singular mode. */
static int repartition(Ssode *s, double t)
{
    if (choose_partition(s) != 0)
        return -1;
    s->repartitions++;
    if (!s->singular && s->gap < SINGULAR_GAP * s->gap_ref && start_singular(s, t) != 0)
        return -1;
    return 0;
}

static int integrator_failed(Ssode *s, double t, int flag, MbsError *err)
{
    restore_start(s);
    s->restart = 1;
    s->failed = 1;
    const char *name = s->sdirk ? NULL : CVodeGetReturnFlagName(flag);
    /* the name is allocated by SUNDIALS */
    int e = mbs_error_set(err, MBS_RECOVERABLE,
                          "ssode: the integrator failed at t = %.6g s (%s, internal step %.3g s)%s",
                          t, name ? name : "SDIRK: no step accepted in 60 tries",
                          s->sdirk ? ssode_sdirk_next_step(s->sdirk) : s->h_last,
                          s->rhs_failed ? ": the dependent coordinates could not be recovered"
                                        : "");
    free((void *)name);
    return e;
}

static int step_failed(Ssode *s, MbsError *err, const char *what, double t)
{
    restore_start(s);
    s->restart = 1;
    s->failed = 1;
    return mbs_error_set(err, MBS_RECOVERABLE, "ssode: %s at t = %.6g s", what, t);
}

/* Restart the integrator at the output state (f->time, q, qd) when it has none to continue:
 * after init, a restored checkpoint, a failure or a repartition at an output time. */
int ssode_restart_at_output(MbsFormulation *f, Ssode *s)
{
    if (s->sparse)
        mbs_natural_constraint_rows(s->nat, s->q, NULL, f->time, NULL, s->Jr, NULL, NULL);
    else
        mbs_natural_constraints(s->nat, s->q, NULL, f->time, NULL, s->Phi, NULL, NULL);
    if (s->pattern_stale && sparse_patterns(s) != 0)
        return -1;
    if (!s->singular && partition_degraded(s) && repartition(s, f->time) != 0)
        return -1;
    /* in the singular mode: the prediction from the output state (Phi_u's factors there) */
    if (s->singular) {
        partition_degraded(s);
        if (start_singular(s, f->time) != 0)
            return -1;
    }
    s->work_base = s->work;
    memcpy(s->q_recovered, s->q, (size_t)s->n * sizeof(double));
    pack(s, N_VGetArrayPointer(s->y), 0.0);
    if (integrator_restart(f, s, f->time, s->h_next, 0) != 0)
        return -2;
    s->t_int = f->time;
    s->restart = 0;
    return 0;
}

/* Advances to the output time f->time + h. The integrator continues from where the previous
 * output step left it (its internal time t_int may already lie past this output time): it
 * steps one internal step at a time (ONE_STEP), the partition is checked after each (paper 002
 * Table I, step 7) and the output comes from its interpolant at the output time, where u, ud
 * are recovered. A partition that degrades inside the output interval restarts the integrator
 * at that internal step in the new coordinates; one that degrades past it, at the output time
 * (its interpolant is in the old coordinates). Only the last internal step reaches the end of
 * the run (stop time: settings.duration), so the step sizes sum to the duration. */
static int ssode_step(MbsFormulation *f, double h, MbsError *err)
{
    Ssode *s = f->impl;
    MbsMonitors *mo = &f->monitors;
    double t_start = mbs_clock_now(), c0 = t_start;
    double t0 = f->time, t1 = t0 + h;
    int sdirk = s->o->integrator == INTEGRATOR_SDIRK4;
    memcpy(s->q_start, s->q, (size_t)s->n * sizeof(double));
    memcpy(s->qd_start, s->qd, (size_t)s->n * sizeof(double));
    if (s->restart || t1 > s->t_stop + 1e-9 * h) {
        int st = ssode_restart_at_output(f, s);
        if (st == -2)
            return mbs_error_set(err, MBS_FATAL, "ssode: could not restart the integrator");
        if (st != 0)
            return step_failed(s, err, "no regular partition (the constraint Jacobian changed "
                                       "rank: a singular configuration?)", t0);
    }
    double t_fac = mbs_clock_now() - c0;
    c0 = mbs_clock_now();
    double *y = N_VGetArrayPointer(s->y);
    long nni = 0, nje = 0;
    int degraded_past_output = 0;
    /* the output time counts as reached within round-off of the grid (t1 = t0 + h) */
    const double reach = t1 - 1e-9 * h;
    int steps_here = 0;
    while (s->t_int < reach) {
        double tret = s->t_int;
        const double *yi = y;
        if (sdirk) {
            /* a step whose stages or end have no position solution is retried with a smaller
             * one inside (a rejected step, not a failure) */
            if (ssode_sdirk_step(s->sdirk, s->t_stop) != 0) {
                collect_counters(s, &nni, &nje);
                return integrator_failed(s, tret, 0, err);
            }
            tret = ssode_sdirk_time(s->sdirk);
            yi = ssode_sdirk_state(s->sdirk); /* its last evaluation: the state is there */
        } else {
            int flag = CVode(s->mem, t1, s->y, &tret, CV_ONE_STEP);
            if (flag < 0) {
                collect_counters(s, &nni, &nje);
                return integrator_failed(s, tret, flag, err);
            }
            if (ssode_evaluate(s, tret, y, NULL) != 0) {
                collect_counters(s, &nni, &nje);
                return step_failed(s, err, "the dependent coordinates could not be recovered",
                                   tret);
            }
        }
        s->t_int = tret;
        internal_step_taken(f, s, tret);
        history_push(s, tret, yi);
        memcpy(s->q_step_prev, s->q_step, (size_t)s->n * sizeof(double));
        memcpy(s->q_step, s->q, (size_t)s->n * sizeof(double));
        if (++steps_here > s->o->max_internal_steps) {
            collect_counters(s, &nni, &nje);
            return step_failed(s, err, "more internal steps than max-internal-steps in one "
                                       "output step", tret);
        }
        update_angle_refs(s, f->model);
        if (s->singular) {
            /* the partition is kept through the singular position; the mode ends once
             * Phi_u is better conditioned than at its start (past the crossing) */
            s->singular_steps++;
            if (partition_degraded(s) && !(s->cond < s->cond0)) {
                record_prediction(s, tret, 0);
            } else {
                s->singular = 0;
                s->eval_valid = 0;
            }
            continue;
        }
        if (!partition_degraded(s))
            continue;
        if (tret >= reach) {
            degraded_past_output = 1;
            break;
        }
        collect_counters(s, &nni, &nje);
        if (repartition(s, tret) != 0)
            return step_failed(s, err, "no regular partition (a singular configuration?)", tret);
        pack(s, y, yi[2 * s->nv]);
        if (integrator_restart(f, s, tret, proposed_step(s), 1) != 0)
            return mbs_error_set(err, MBS_FATAL, "ssode: could not restart the integrator");
    }
    collect_counters(s, &nni, &nje);
    /* The output at t1, inside the last internal step (or at its end, within round-off). */
    double *yo = N_VGetArrayPointer(s->y_out);
    dense_output(s, t1, yo);
    /* u recovered from the nearer end of the internal step (a long step may turn the
     * mechanism too far for the chord iteration from its end) */
    if (s->nhist >= 2 && t1 - s->hist_t[s->nhist - 2] < s->t_int - t1)
        memcpy(s->q, s->q_step_prev, (size_t)s->n * sizeof(double));
    if (ssode_evaluate(s, t1, yo, NULL) != 0)
        return step_failed(s, err, "the dependent coordinates could not be recovered", t1);
    /* not the linearization point of a Jacobian: a restored checkpoint has not its factors */
    s->eval_valid = 0;
    double t_dyn = mbs_clock_now() - c0;
    s->work = s->work_base + yo[2 * s->nv];
    s->h_next = proposed_step(s);
    f->time = t1;
    update_angle_refs(s, f->model);
    if (degraded_past_output) {
        /* choose at the output state (s->Phi is at its q) and restart there next step */
        if (repartition(s, t1) != 0)
            return step_failed(s, err, "no regular partition (a singular configuration?)", t1);
        s->restart = 1;
    }
    fill_monitors(f, s);
    mo->newton_iterations = (int)nni;
    mo->jacobian_evaluations = (int)nje;
    mo->time_dynamics = t_dyn;
    mo->time_jacobian = 0.0;
    mo->time_factorization = t_fac;
    mo->time_projection = 0.0;
    mo->time_step = mbs_clock_now() - t_start;
    return 0;
}

static void ssode_body_pose(const MbsFormulation *f, int body, double R[9], double p[3])
{
    const Ssode *s = f->impl;
    mbs_natural_body_pose(s->nat, s->q, body, R, p);
}

static void ssode_point_velocity(const MbsFormulation *f, int body, const double r[3],
                                  double v[3])
{
    const Ssode *s = f->impl;
    mbs_natural_point_velocity(s->nat, s->q, s->qd, body, r, v);
}

static int ssode_ncoords(const MbsFormulation *f)
{
    const Ssode *s = f->impl;
    return s->n;
}

static void ssode_coordinates(const MbsFormulation *f, double *q, double *qd)
{
    const Ssode *s = f->impl;
    if (q)
        memcpy(q, s->q, (size_t)s->n * sizeof(double));
    if (qd)
        memcpy(qd, s->qd, (size_t)s->n * sizeof(double));
}

static void ssode_accelerations(const MbsFormulation *f, double *qdd)
{
    const Ssode *s = f->impl;
    memcpy(qdd, s->qdd, sizeof(double) * (size_t)s->n);
}

static double ssode_joint_violation(const MbsFormulation *f, int joint)
{
    const Ssode *s = f->impl;
    return mbs_natural_joint_violation(s->nat, s->phi, joint);
}

/* The SDIRK's continuation in the checkpoint (issue 27), so that a restored run repeats the
 * uninterrupted one bit for bit (dense algebra: KLU's refactorizations keep the pivot order
 * of their history): scalars (internal time, work at the restart, stop time (-1: none),
 * whether a restart is pending, the singular mode, its t0, cond, the dense output's count),
 * the dense output's points, q at the last two internal step ends and the last recovered q,
 * the singular mode's prediction, then the SDIRK's own state. CVODE's history is not
 * accessible (no Nordsieck array setter): a restored CVODE run restarts at the output state. */
enum { CONTINUATION_SCALARS = 8 };

static int continuation_size(const Ssode *s)
{
    if (!s->sdirk)
        return 0;
    int n2 = 2 * s->nv + 1;
    return CONTINUATION_SCALARS + 2 * HISTORY + HISTORY * n2 + 6 * s->n + s->n * s->nv +
           ssode_sdirk_checkpoint_size(s->sdirk);
}

static void continuation_get(const Ssode *s, double *x)
{
    if (!s->sdirk)
        return;
    size_t N = (size_t)s->n, N2 = 2 * (size_t)s->nv + 1;
    const double scalars[CONTINUATION_SCALARS] = {
        s->t_int, s->work_base, isfinite(s->t_stop) ? s->t_stop : -1.0, s->restart,
        s->singular, s->t0, s->cond, s->nhist};
    memcpy(x, scalars, sizeof scalars);
    x += CONTINUATION_SCALARS;
    memcpy(x, s->hist_t, HISTORY * sizeof(double));
    memcpy(x += HISTORY, s->hist_power, HISTORY * sizeof(double));
    memcpy(x += HISTORY, s->hist_y, HISTORY * N2 * sizeof(double));
    double *const vecs[] = {s->q_step, s->q_step_prev, s->q_recovered, s->q0, s->qd0, s->qdd0};
    x += HISTORY * N2;
    for (int k = 0; k < 6; ++k, x += N)
        memcpy(x, vecs[k], N * sizeof(double));
    memcpy(x, s->T0, N * (size_t)s->nv * sizeof(double));
    ssode_sdirk_checkpoint_get(s->sdirk, x + N * (size_t)s->nv);
}

/* Restores the continuation unless the checkpoint was taken with a restart pending or the run
 * is retrying a failed step (a retry must differ from the attempt: it restarts at the output
 * state, as before). 0, 1 (a restart instead), or -1 (Phi_u cannot be factorized). */
static int continuation_set(MbsFormulation *f, Ssode *s, const double *x)
{
    if (!s->sdirk || x[3] != 0.0 || s->failed) {
        s->singular = s->sdirk ? (int)x[4] : 0; /* restarts in the mode it was in */
        return 1;
    }
    size_t N = (size_t)s->n, N2 = 2 * (size_t)s->nv + 1;
    s->t_int = x[0];
    s->work_base = x[1];
    s->t_stop = x[2] < 0.0 ? INFINITY : x[2];
    s->singular = (int)x[4];
    s->t0 = x[5];
    s->cond = x[6];
    s->nhist = (int)x[7];
    x += CONTINUATION_SCALARS;
    memcpy(s->hist_t, x, HISTORY * sizeof(double));
    memcpy(s->hist_power, x += HISTORY, HISTORY * sizeof(double));
    memcpy(s->hist_y, x += HISTORY, HISTORY * N2 * sizeof(double));
    double *const vecs[] = {s->q_step, s->q_step_prev, s->q_recovered, s->q0, s->qd0, s->qdd0};
    x += HISTORY * N2;
    for (int k = 0; k < 6; ++k, x += N)
        memcpy(vecs[k], x, N * sizeof(double));
    memcpy(s->T0, x, N * (size_t)s->nv * sizeof(double));
    ssode_sdirk_checkpoint_set(s->sdirk, x + N * (size_t)s->nv);
    /* the recovery's chord matrix: Phi_u at the last internal step end (partition_degraded) */
    double cond;
    if (s->sparse) {
        mbs_natural_constraint_rows(s->nat, s->q_step, NULL, s->t_int, NULL, s->Jr, NULL, NULL);
        if ((s->pattern_stale && sparse_patterns(s) != 0) || sparse_factor_phi_u0(s, &cond) != 0)
            return -1;
        if (s->singular && damped_pattern(s) != 0)
            return -1;
    } else {
        mbs_natural_constraints(s->nat, s->q_step, NULL, s->t_int, NULL, s->Phi, NULL, NULL);
        if (factor_phi_u(s, s->Pu0, s->ip0, &cond) != 0)
            return -1;
    }
    (void)f;
    s->restart = 0;
    return 0;
}

/* State: q, qd, qdd (n each), lambda (m), angle branches (per joint), the partition (rank,
 * rows, u and v columns, cond0), work, power and the proposed next internal step, then the
 * integrator's continuation (continuation_get). */
static int ssode_state_size(const MbsFormulation *f)
{
    const Ssode *s = f->impl;
    int R = s->m < s->n ? s->m : s->n;
    return 3 * s->n + s->m + f->model->njoints + 1 + R + R + s->n + 1 + 3 +
           continuation_size(s);
}

static void ssode_state_get(const MbsFormulation *f, double *state)
{
    const Ssode *s = f->impl;
    size_t N = (size_t)s->n;
    int R = s->m < s->n ? s->m : s->n;
    double *x = state;
    memcpy(x, s->q, N * sizeof(double));
    memcpy(x += N, s->qd, N * sizeof(double));
    memcpy(x += N, s->qdd, N * sizeof(double));
    memcpy(x += N, s->lambda, (size_t)s->m * sizeof(double));
    memcpy(x += s->m, s->angle_ref, (size_t)f->model->njoints * sizeof(double));
    x += f->model->njoints;
    *x++ = s->r;
    for (int i = 0; i < R; ++i)
        *x++ = i < s->r ? s->rows[i] : -1;
    for (int i = 0; i < R; ++i)
        *x++ = i < s->r ? s->ucol[i] : -1;
    for (int j = 0; j < s->n; ++j)
        *x++ = j < s->nv ? s->vcol[j] : -1;
    *x++ = s->cond0;
    x[0] = s->work;
    x[1] = s->power;
    x[2] = s->h_next;
    continuation_get(s, x + 3);
}

static int ssode_state_set(MbsFormulation *f, const double *state, MbsError *err)
{
    Ssode *s = f->impl;
    size_t N = (size_t)s->n;
    int R = s->m < s->n ? s->m : s->n;
    const double *x = state;
    s->eval_valid = 0;
    int r = (int)x[3 * N + s->m + f->model->njoints];
    if (r != s->r)
        return mbs_error_set(err, MBS_FATAL, "ssode: the checkpoint has rank %d, the model %d",
                             r, s->r);
    memcpy(s->q, x, N * sizeof(double));
    memcpy(s->qd, x += N, N * sizeof(double));
    memcpy(s->qdd, x += N, N * sizeof(double));
    memcpy(s->lambda, x += N, (size_t)s->m * sizeof(double));
    memcpy(s->angle_ref, x += s->m, (size_t)f->model->njoints * sizeof(double));
    x += f->model->njoints + 1;
    for (int i = 0; i < R; ++i)
        if (i < r && (s->rows[i] != (int)x[i] || s->ucol[i] != (int)x[R + i]))
            s->pattern_stale = s->sparse;
    for (int i = 0; i < R; ++i, ++x)
        if (i < r)
            s->rows[i] = (int)*x;
    for (int i = 0; i < R; ++i, ++x)
        if (i < r)
            s->ucol[i] = (int)*x;
    for (int j = 0; j < s->n; ++j, ++x)
        if (j < s->nv)
            s->vcol[j] = (int)*x;
    s->cond0 = *x++;
    s->work = x[0];
    s->power = x[1];
    s->h_next = x[2];
    s->restart = 1;
    fill_monitors(f, s);
    int st = continuation_set(f, s, x + 3);
    s->failed = 0;
    if (st < 0)
        return mbs_error_set(err, MBS_FATAL, "ssode: Phi_u is singular at the checkpoint's "
                                             "last internal step (t = %g s)", s->t_int);
    return 0;
}

static int ssode_statistics(const MbsFormulation *f, MbsStatistic *out, int capacity)
{
    const Ssode *s = f->impl;
    const MbsStatistic all[] = {
        {"internal_steps", (double)s->internal_steps, ""},
        {"internal_step_last", s->h_last, "s"},
        {"internal_step_min", isfinite(s->h_min) ? s->h_min : 0.0, "s"},
        {"internal_step_max", s->h_max, "s"},
        {"error_test_failures", (double)s->error_test_failures, ""},
        {"rhs_evaluations", (double)s->rhs_evals, ""},
        {"rhs_per_step", s->internal_steps > 0 ? (double)s->rhs_evals / (double)s->internal_steps
                                               : 0.0, ""},
        {"jacobian_evaluations", (double)s->jac_evals, ""},
        {"jacobian_rhs_evaluations", (double)s->jacobian_rhs_evals, ""},
        {"nonlinear_iterations", (double)s->nonlinear_iterations, ""},
        {"nonlinear_failures", (double)s->nonlinear_failures, ""},
        {"repartitions", (double)s->repartitions, ""},
        {"singular_steps", (double)s->singular_steps, ""},
        {"damped_evaluations", (double)s->damped_evaluations, ""},
        {"partition_condition", s->cond0, ""},
        {"recovery_iterations", (double)s->recovery_iterations, ""},
        {"recovery_refactorizations", (double)s->recovery_refactorizations, ""},
        {"sparse_refactorizations", s->refactorizations, ""},
        {"sparse_full_factorizations", s->full_factorizations, ""},
        {"independent_coordinates", (double)s->nv, ""},
        {"sparse_lu_nonzeros_phi_u", s->pnum ? (double)(s->pnum->lnz + s->pnum->unz) : 0.0, ""},
        {"sparse_lu_nonzeros_augmented", s->knum ? (double)(s->knum->lnz + s->knum->unz) : 0.0, ""},
        {"sparse_nonzeros_augmented", s->Kp ? (double)s->Kp[s->n + s->r] : 0.0, ""},
    };
    int count = (int)(sizeof all / sizeof all[0]);
    for (int i = 0; i < count && i < capacity; ++i)
        out[i] = all[i];
    return count;
}

static void ssode_reset_statistics(MbsFormulation *f)
{
    Ssode *s = f->impl;
    s->internal_steps = s->rhs_evals = s->jac_evals = s->nonlinear_iterations = 0;
    s->jacobian_rhs_evals = 0;
    s->error_test_failures = s->nonlinear_failures = s->repartitions = 0;
    s->singular_steps = s->damped_evaluations = 0;
    s->recovery_iterations = s->recovery_refactorizations = 0;
    s->refactorizations = s->full_factorizations = 0.0;
    s->h_last = s->h_max = 0.0;
    s->h_min = INFINITY;
}

static int ssode_check_settings(const MbsModel *m, const MbsSettings *set, MbsError *err)
{
    (void)m;
    const SsodeOptions *o = (const SsodeOptions *)set->options.bytes;
    if (o->rtol == 0.0 && o->atol == 0.0)
        return mbs_error_set(err, MBS_FATAL, "ssode: rtol and atol cannot both be 0");
    return 0;
}

static const char *const integrator_choices[] = {"sdirk4", "bdf", "adams", NULL};
static const char *const integrator_labels[] = {
    MBS_N_("SDIRK 4/15 (paper 002)"), MBS_N_("BDF (CVODE)"), MBS_N_("Adams, explicit (CVODE)"),
    NULL};

static const MbsSetting ssode_items[] = {
    {.name = "integrator", .type = MBS_SETTING_CHOICE,
     .offset = offsetof(SsodeOptions, integrator), .default_value = INTEGRATOR_SDIRK4,
     .choices = integrator_choices, .choice_labels = integrator_labels,
     .label = MBS_N_("Integrator"),
     .description = MBS_N_("Implicit SDIRK 4/15 (paper 002), implicit BDF, or the explicit "
                           "comparison: variable-order Adams with fixed-point iteration")},
    {.name = "rtol", .type = MBS_SETTING_NUMBER, .offset = offsetof(SsodeOptions, rtol),
     .default_value = 1e-6, .min = 0.0, .max = 1.0, .flags = MBS_SETTING_DECADES,
     .label = MBS_N_("Relative tolerance"),
     .description = MBS_N_("Relative tolerance of the integrator's error control on the "
                           "independent positions and velocities")},
    {.name = "atol", .type = MBS_SETTING_NUMBER, .offset = offsetof(SsodeOptions, atol),
     .default_value = 1e-6, .min = 0.0, .max = 1.0, .flags = MBS_SETTING_DECADES,
     .label = MBS_N_("Absolute tolerance"),
     .description = MBS_N_("Absolute tolerance of the integrator's error control on the "
                           "independent positions and velocities")},
    {.name = "max-internal-steps", .type = MBS_SETTING_INTEGER,
     .offset = offsetof(SsodeOptions, max_internal_steps), .default_value = 100000, .min = 1,
     .max = 1e9, .label = MBS_N_("Internal steps"),
     .description = MBS_N_("Most internal steps of the integrator per output step")},
    {.name = "max-internal-step", .type = MBS_SETTING_NUMBER,
     .offset = offsetof(SsodeOptions, max_internal_step), .default_value = 0.0, .min = 0.0,
     .max = 1e6, .label = MBS_N_("Largest internal step (s)"),
     .description = MBS_N_("Cap on the integrator's internal step, so that a short event "
                           "(a bump, a step in the road) cannot fall between two steps; "
                           "0: no cap")},
    {.name = "algebra", .type = MBS_SETTING_CHOICE, .offset = offsetof(SsodeOptions, algebra),
     .default_value = ALGEBRA_AUTO, .choices = mbs_algebra_choices,
     .choice_labels = mbs_algebra_labels,
     .label = MBS_N_("Linear algebra"),
     .description = MBS_N_("Dense (LAPACK) reduced equations, or sparse (KLU) factorizations "
                           "of Phi_u and of the augmented mass matrix; automatic: sparse from "
                           "8 moving bodies")},
    {.name = "tangent", .type = MBS_SETTING_GROUP, .offset = offsetof(SsodeOptions, tangent),
     .group = &mbs_tangent_method_settings},
};

static const MbsSettingTable ssode_settings = {
    .name = "ssode", .items = ssode_items, .count = 7, .size = sizeof(SsodeOptions)};

const MbsFormulationClass mbs_ssode_class = {
    .name = "ssode",
    .description = MBS_N_("State-space ODE in independent natural coordinates (coordinate "
                          "partitioning) with error-controlled SDIRK 4/15, BDF or Adams "
                          "(paper 002)"),
    .settings = &ssode_settings,
    .check_settings = ssode_check_settings,
    .init = ssode_init,
    .step = ssode_step,
    .finalize = ssode_finalize,
    .body_pose = ssode_body_pose,
    .point_velocity = ssode_point_velocity,
    .ncoords = ssode_ncoords,
    .coordinates = ssode_coordinates,
    .coordinate_kind = MBS_COORDINATES_NATURAL,
    .accelerations = ssode_accelerations,
    .joint_violation = ssode_joint_violation,
    .state_size = ssode_state_size,
    .state_get = ssode_state_get,
    .state_set = ssode_state_set,
    .statistics = ssode_statistics,
    .reset_statistics = ssode_reset_statistics,
    .own_steps = 1,
    .tangent_dense_only = 1,
    .tangent_offers_dual = 1,
    .tangent_probe = mbs_ssode_tangent_probe,
    .tangent_offers_analytical = 1,
};
