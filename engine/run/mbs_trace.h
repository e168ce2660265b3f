/* Step trace: what a formulation does in one time step, for teaching ("step through one time
 * step", issue 12).
 *
 * A trace is a record buffer sized for one formulation object by mbs_trace_new (the only
 * allocation). While it is attached (f->trace), the formulation appends the phases of its step
 * (predictor, each Newton iteration, the projections) and snapshots of the matrices it builds
 * (M, the constraint Jacobian, the leading matrix), each matrix as its nonzero entries. A
 * formulation with no trace attached pays one pointer test per phase; a traced step allocates
 * nothing either. mbs_formulation_trace_step traces the next step and puts the formulation back
 * where it was (checkpoint), so a paused run's copy can be traced without moving it.
 */
#ifndef MBS_TRACE_H
#define MBS_TRACE_H

#include <stddef.h>

#include "mbs_error.h"

typedef enum {
    MBS_TRACE_PREDICTOR,              /* initial guess of the step */
    MBS_TRACE_NEWTON,                 /* one Newton-Raphson iteration */
    MBS_TRACE_PROJECTION_VELOCITY,    /* velocity projection onto Phi_q qd + Phi_t = 0 */
    MBS_TRACE_PROJECTION_ACCELERATION,/* acceleration projection */
    MBS_TRACE_POSITION_NEWTON,        /* matrix-r: a Newton iteration of the position problem */
    MBS_TRACE_EVALUATION,             /* matrix-r: velocity problem, R, reduced dynamics */
    MBS_TRACE_PHASE_KINDS
} MbsTracePhaseKind;

/* Stable identifiers of the phase kinds ("predictor", "newton", "projection-velocity",
 * "projection-acceleration", "position-newton", "evaluation"), as in eslabon-cli step --json. */
const char *mbs_trace_phase_kind_name(MbsTracePhaseKind kind);

typedef struct {
    MbsTracePhaseKind kind;
    int iteration;         /* Newton: 1, 2, ...; projection: its iterations; predictor: 0;
                              evaluation: 1, 2, ... in the step */
    /* Newton: max-norm of the residual (the right-hand side solved), of the correction, and the
     * bound the correction is tested against (tolerance scaled as the formulation does).
     * Position Newton: residual = max |Phi| (also tested against the bound).
     * Projection: 2-norms of the velocity/acceleration constraint residual before and after,
     * correction = max-norm of the change of the projected vector. NaN: not measured. */
    double residual, correction, bound, residual_after;
    double constraint;     /* 2-norm of Phi at the iterate (Newton, predictor); NaN: not measured */
    int tangent_evaluated; /* Newton: the tangent [K, C] was evaluated in this iteration */
    int converged;         /* Newton: this iteration met the bound */
    int matrix_first, matrix_count; /* its matrices: trace->matrices[first .. first + count) */
} MbsTracePhase;

typedef struct {
    char name[16];         /* short identifier: "M", "Phi_q", "Phi_z", "leading", "projection" */
    const char *formula;   /* what it is, e.g. "M + h/2 C + h^2/4 (Phi_z^T alpha Phi_z + K)" */
    int phase;             /* index of the phase that built it */
    int rows, cols;
    long nonzeros;         /* entries != 0 (counted even when not stored) */
    int stored;            /* 0: the buffer was full, entries not kept (nonzeros still right) */
    size_t first;          /* its entries: row[first + k], col[...], value[...], k < nonzeros */
} MbsTraceMatrix;

typedef struct MbsTrace {
    const char *formulation;
    double time, step;     /* the traced step goes from time to time + step */
    int status;            /* the step's status (0: ok, > 0 recoverable failure, < 0 fatal) */
    char message[512];     /* the step's error message, or why phases are missing */
    MbsTracePhase *phases;
    int nphases, phase_capacity;
    MbsTraceMatrix *matrices;
    int nmatrices, matrix_capacity;
    int *row, *col;        /* entries of the stored matrices */
    double *value;
    size_t nentries, entry_capacity;
    int truncated;         /* phases, matrices or entries were dropped (buffer full) */
    int open_matrix;       /* the matrix being filled by mbs_trace_matrix_entry, -1: none */
    double *scratch;       /* ncoords^2: for formulations that assemble a matrix to show it */
    int scratch_size;      /* its columns (ncoords) */
} MbsTrace;

struct MbsFormulation;

/* A trace sized for f's formulation object (matrices of ncoords^2 entries, Newton iterations
 * up to the settings): NULL with err when out of memory. */
MbsTrace *mbs_trace_new(const struct MbsFormulation *f, MbsError *err);
void mbs_trace_free(MbsTrace *t);
void mbs_trace_clear(MbsTrace *t);

/* Trace the next step of f (of settings.step from its current state), then restore its state,
 * time, step count and monitors: stepping f afterwards gives the same result as if it had not
 * been traced. Returns the step's status (also in t->status); -1 with err when f cannot be
 * checkpointed. A formulation that reports no phases leaves t->message saying so. */
int mbs_formulation_trace_step(struct MbsFormulation *f, MbsTrace *t, MbsError *err);

/* ---- for formulations (called only when f->trace != NULL) ---- */

/* Begin a phase: the new record (NaN norms), or NULL when the buffer is full. */
MbsTracePhase *mbs_trace_phase(MbsTrace *t, MbsTracePhaseKind kind, int iteration);
/* The end of a Newton phase p (NULL: not traced): its correction, the bound it is tested
 * against, and whether it met it. */
void mbs_trace_newton_end(MbsTracePhase *p, double correction, double bound, int converged);
/* A dense column-major matrix (leading dimension ld) for the last phase. */
void mbs_trace_dense(MbsTrace *t, const char *name, const char *formula, int rows, int cols,
                     const double *A, int ld);
/* A compressed-column matrix (Ap[cols + 1], Ai, Ax) for the last phase. */
void mbs_trace_csc(MbsTrace *t, const char *name, const char *formula, int rows, int cols,
                   const int *Ap, const int *Ai, const double *Ax);
/* Entry by entry (each position at most once): begin, entries, end. */
void mbs_trace_matrix_begin(MbsTrace *t, const char *name, const char *formula, int rows,
                            int cols);
void mbs_trace_matrix_entry(MbsTrace *t, int row, int col, double value);
void mbs_trace_matrix_end(MbsTrace *t);

#endif
