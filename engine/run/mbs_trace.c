#include "mbs_trace.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mbs_formulation.h"

/* Phases and matrices kept per trace: a step of 1000 Newton iterations (the settings' largest)
 * with a matrix each still fits; beyond, the trace says it is truncated. */
#define TRACE_PHASES 1100
#define TRACE_MATRICES 2400
/* Entries kept: 64 matrices of ncoords^2, between 16 Ki and 2 Mi (32 MB). */
#define TRACE_ENTRIES_MIN ((size_t)1 << 14)
#define TRACE_ENTRIES_MAX ((size_t)1 << 21)

const char *mbs_trace_phase_kind_name(MbsTracePhaseKind kind)
{
    static const char *const names[MBS_TRACE_PHASE_KINDS] = {
        "predictor", "newton", "projection-velocity", "projection-acceleration",
        "position-newton", "evaluation"};
    return kind >= 0 && kind < MBS_TRACE_PHASE_KINDS ? names[kind] : "?";
}

MbsTrace *mbs_trace_new(const MbsFormulation *f, MbsError *err)
{
    MbsTrace *t = calloc(1, sizeof *t);
    int n = f->klass->ncoords(f);
    size_t entries = 64 * (size_t)n * (size_t)n;
    if (entries < TRACE_ENTRIES_MIN)
        entries = TRACE_ENTRIES_MIN;
    if (entries > TRACE_ENTRIES_MAX)
        entries = TRACE_ENTRIES_MAX;
    if (t) {
        t->phase_capacity = TRACE_PHASES;
        t->matrix_capacity = TRACE_MATRICES;
        t->entry_capacity = entries;
        t->scratch_size = n;
        t->phases = calloc(TRACE_PHASES, sizeof *t->phases);
        t->matrices = calloc(TRACE_MATRICES, sizeof *t->matrices);
        t->row = malloc(entries * sizeof *t->row);
        t->col = malloc(entries * sizeof *t->col);
        t->value = malloc(entries * sizeof *t->value);
        t->scratch = malloc(((size_t)n * (size_t)n + 1) * sizeof *t->scratch);
    }
    if (!t || !t->phases || !t->matrices || !t->row || !t->col || !t->value || !t->scratch) {
        mbs_trace_free(t);
        mbs_error_set(err, MBS_FATAL, "out of memory for a step trace");
        return NULL;
    }
    t->formulation = f->klass->name;
    mbs_trace_clear(t);
    return t;
}

void mbs_trace_free(MbsTrace *t)
{
    if (!t)
        return;
    free(t->phases);
    free(t->matrices);
    free(t->row);
    free(t->col);
    free(t->value);
    free(t->scratch);
    free(t);
}

void mbs_trace_clear(MbsTrace *t)
{
    t->nphases = t->nmatrices = 0;
    t->nentries = 0;
    t->truncated = 0;
    t->open_matrix = -1;
    t->status = 0;
    t->message[0] = '\0';
}

int mbs_formulation_trace_step(MbsFormulation *f, MbsTrace *t, MbsError *err)
{
    MbsCheckpoint c;
    if (mbs_checkpoint_init(&c, f, err))
        return -1;
    mbs_trace_clear(t);
    t->formulation = f->klass->name;
    t->time = f->time;
    t->step = f->settings.step;
    mbs_formulation_save(f, &c);
    MbsError step_err = {0};
    f->trace = t;
    t->status = mbs_formulation_step(f, &step_err);
    f->trace = NULL;
    if (t->status)
        snprintf(t->message, sizeof t->message, "%s", step_err.message);
    else if (t->nphases == 0)
        snprintf(t->message, sizeof t->message,
                 "%s does not report the phases of its step: it is not traced", f->klass->name);
    int status = mbs_formulation_restore(f, &c, err);
    mbs_checkpoint_free(&c);
    return status ? status : t->status;
}

MbsTracePhase *mbs_trace_phase(MbsTrace *t, MbsTracePhaseKind kind, int iteration)
{
    t->open_matrix = -1;
    if (t->nphases == t->phase_capacity) {
        t->truncated = 1;
        return NULL;
    }
    MbsTracePhase *p = &t->phases[t->nphases++];
    *p = (MbsTracePhase){.kind = kind, .iteration = iteration, .residual = NAN,
                         .correction = NAN, .bound = NAN, .residual_after = NAN,
                         .constraint = NAN, .matrix_first = t->nmatrices};
    return p;
}

void mbs_trace_newton_end(MbsTracePhase *p, double correction, double bound, int converged)
{
    if (!p)
        return;
    p->correction = correction;
    p->bound = bound;
    p->converged = converged;
}

void mbs_trace_matrix_begin(MbsTrace *t, const char *name, const char *formula, int rows,
                            int cols)
{
    t->open_matrix = -1;
    if (t->nmatrices == t->matrix_capacity || t->nphases == 0) {
        t->truncated = 1;
        return;
    }
    MbsTraceMatrix *x = &t->matrices[t->nmatrices];
    snprintf(x->name, sizeof x->name, "%s", name);
    x->formula = formula;
    x->phase = t->nphases - 1;
    x->rows = rows;
    x->cols = cols;
    x->nonzeros = 0;
    x->stored = 1;
    x->first = t->nentries;
    t->phases[x->phase].matrix_count++;
    t->open_matrix = t->nmatrices++;
}

void mbs_trace_matrix_entry(MbsTrace *t, int row, int col, double value)
{
    if (t->open_matrix < 0 || value == 0.0)
        return;
    MbsTraceMatrix *x = &t->matrices[t->open_matrix];
    x->nonzeros++;
    if (!x->stored)
        return;
    if (t->nentries == t->entry_capacity) {
        /* the matrix is kept whole or not at all: give back what it took */
        x->stored = 0;
        t->nentries = x->first;
        t->truncated = 1;
        return;
    }
    t->row[t->nentries] = row;
    t->col[t->nentries] = col;
    t->value[t->nentries] = value;
    t->nentries++;
}

void mbs_trace_matrix_end(MbsTrace *t)
{
    t->open_matrix = -1;
}

void mbs_trace_dense(MbsTrace *t, const char *name, const char *formula, int rows, int cols,
                     const double *A, int ld)
{
    mbs_trace_matrix_begin(t, name, formula, rows, cols);
    for (int j = 0; j < cols; ++j)
        for (int i = 0; i < rows; ++i)
            mbs_trace_matrix_entry(t, i, j, A[i + (size_t)ld * j]);
    mbs_trace_matrix_end(t);
}

void mbs_trace_csc(MbsTrace *t, const char *name, const char *formula, int rows, int cols,
                   const int *Ap, const int *Ai, const double *Ax)
{
    mbs_trace_matrix_begin(t, name, formula, rows, cols);
    for (int j = 0; j < cols; ++j)
        for (int k = Ap[j]; k < Ap[j + 1]; ++k)
            mbs_trace_matrix_entry(t, Ai[k], j, Ax[k]);
    mbs_trace_matrix_end(t);
}
