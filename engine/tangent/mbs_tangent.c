#include "mbs_tangent.h"

#include <stdlib.h>
#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "mbs_settings.h"
#include "mbs_tangent_method.h"

/* The registry: one line per method in each table, indexed by MbsJacobianMethod. */
extern const MbsTangentMethodClass mbs_tangent_nd_forward;
extern const MbsTangentMethodClass mbs_tangent_nd_central;
extern const MbsTangentMethodClass mbs_tangent_nd_sparse;
extern const MbsTangentMethodClass mbs_tangent_ad;
extern const MbsTangentMethodClass mbs_tangent_ad_sparse;
extern const MbsTangentMethodClass mbs_tangent_analytical;

static const MbsTangentMethodClass *const registry[MBS_JACOBIAN_COUNT] = {
    [MBS_JACOBIAN_ND_FORWARD] = &mbs_tangent_nd_forward,
    [MBS_JACOBIAN_ND_CENTRAL] = &mbs_tangent_nd_central,
    [MBS_JACOBIAN_ND_SPARSE] = &mbs_tangent_nd_sparse,
    [MBS_JACOBIAN_AD] = &mbs_tangent_ad,
    [MBS_JACOBIAN_AD_SPARSE] = &mbs_tangent_ad_sparse,
    [MBS_JACOBIAN_ANALYTICAL] = &mbs_tangent_analytical,
};

const char *const mbs_jacobian_method_names[MBS_JACOBIAN_COUNT + 1] = {
    [MBS_JACOBIAN_ND_FORWARD] = "nd-forward",
    [MBS_JACOBIAN_ND_CENTRAL] = "nd-central",
    [MBS_JACOBIAN_ND_SPARSE] = "nd-sparse",
    [MBS_JACOBIAN_AD] = "ad",
    [MBS_JACOBIAN_AD_SPARSE] = "ad-sparse",
    [MBS_JACOBIAN_ANALYTICAL] = "analytical",
};

const char *const mbs_jacobian_method_labels[MBS_JACOBIAN_COUNT + 1] = {
    [MBS_JACOBIAN_ND_FORWARD] = MBS_N_("forward differences"),
    [MBS_JACOBIAN_ND_CENTRAL] = MBS_N_("central differences"),
    [MBS_JACOBIAN_ND_SPARSE] = MBS_N_("compressed forward differences"),
    [MBS_JACOBIAN_AD] = MBS_N_("automatic differentiation"),
    [MBS_JACOBIAN_AD_SPARSE] = MBS_N_("compressed automatic differentiation"),
    [MBS_JACOBIAN_ANALYTICAL] = MBS_N_("analytical derivatives"),
};

const char *mbs_jacobian_method_name(MbsJacobianMethod method)
{
    return (unsigned)method < MBS_JACOBIAN_COUNT ? mbs_jacobian_method_names[method] : "unknown";
}

int mbs_jacobian_method_uses_pattern(MbsJacobianMethod method)
{
    return (unsigned)method < MBS_JACOBIAN_COUNT && registry[method]->uses_pattern;
}

int mbs_jacobian_method_needs_dual(MbsJacobianMethod method)
{
    return (unsigned)method < MBS_JACOBIAN_COUNT && registry[method]->needs_dual;
}

int mbs_jacobian_method_from_name(const char *name)
{
    for (int i = 0; name && i < MBS_JACOBIAN_COUNT; ++i)
        if (!strcmp(name, mbs_jacobian_method_names[i]))
            return i;
    return -1;
}

int mbs_tangent_threads(int requested, int max)
{
#ifdef _OPENMP
    int t = requested > 0 ? requested : omp_get_max_threads();
#else
    int t = 1;
    (void)requested;
#endif
    return t < 1 ? 1 : t > max ? max : t;
}

int mbs_tangent_init(MbsTangent *t, const MbsTangentProblem *problem, MbsJacobianMethod method,
                     MbsError *err)
{
    memset(t, 0, sizeof *t);
    if ((unsigned)method >= MBS_JACOBIAN_COUNT)
        return mbs_error_set(err, MBS_FATAL, "unknown Jacobian method %d", (int)method);
    if (problem->nx < 0 || problem->nr < 0 || problem->nthreads < 1 || !problem->residual ||
        !problem->contexts)
        return mbs_error_set(err, MBS_FATAL, "tangent: incomplete problem description");
    if (registry[method]->needs_dual && !problem->residual_dual)
        return mbs_error_set(err, MBS_FATAL,
                             "tangent: the Jacobian method '%s' differentiates a dual-number "
                             "evaluation of the residual, which this problem does not offer",
                             mbs_jacobian_method_names[method]);
    t->problem = *problem;
    t->capacity_nx = problem->nx;
    t->capacity_nr = problem->nr;
    t->method = registry[method];
    t->colours = problem->nx;
    t->work_stride = t->method->thread_work(problem);
    /* one more slice holds r(x) when the caller does not give it */
    t->work = calloc(t->work_stride * (size_t)problem->nthreads + (size_t)problem->nr + 1,
                     sizeof(double));
    t->status = calloc((size_t)problem->nthreads, sizeof(int));
    if (!t->work || !t->status) {
        mbs_tangent_free(t);
        return mbs_error_set(err, MBS_FATAL, "out of memory");
    }
    if (t->method->prepare && t->method->prepare(t, err)) {
        mbs_tangent_free(t);
        return MBS_FATAL;
    }
    /* libgomp allocates a team the first time a parallel region of this size runs: do it here,
     * at init, so that the first step allocates nothing (test_no_alloc counts libgomp too) */
    int warm = 0;
#pragma omp parallel num_threads(problem->nthreads) reduction(+ : warm) if (problem->nthreads > 1)
    warm += 1;
    (void)warm;
    return 0;
}

void mbs_tangent_free(MbsTangent *t)
{
    free(t->work);
    free(t->status);
    if (t->method && t->method->release)
        t->method->release(t);
    t->method_data = NULL;
    t->work = NULL;
    t->status = NULL;
}

int mbs_tangent_set_size(MbsTangent *t, int nx, int nr)
{
    if (nx < 0 || nr < 0 || nx > t->capacity_nx || nr > t->capacity_nr)
        return MBS_FATAL;
    /* what a method prepared (a colouring) is for the size at init; without a pattern the
     * groups are the columns themselves, renumbered here for nx (no allocation: nx is at most
     * the size they were made for); analytical prepared nothing that has a size */
    if (t->method->prepare && nx != t->problem.nx && t->method != &mbs_tangent_analytical) {
        if (t->problem.pattern || t->method->prepare != mbs_tangent_groups_prepare)
            return MBS_FATAL;
        MbsColumnGroups *g = t->method_data;
        for (int j = 0; j < nx; ++j) {
            g->start[j] = j;
            g->columns[j] = j;
        }
        g->start[nx] = nx;
        t->colours = nx;
    }
    t->problem.nx = nx;
    t->problem.nr = nr;
    return 0;
}

int mbs_tangent_run_tasks(MbsTangent *t, int ntasks, MbsTangentTask task, const double *x,
                          const double *r0, double *J)
{
    const MbsTangentProblem *p = &t->problem;
    int failed = 0;
    long evals = 0;
    memset(t->status, 0, sizeof(int) * (size_t)p->nthreads);
#pragma omp parallel num_threads(p->nthreads) reduction(+ : evals) if (p->nthreads > 1)
    {
#ifdef _OPENMP
        int tid = omp_get_thread_num();
#else
        int tid = 0;
#endif
        double *work = t->work + t->work_stride * (size_t)tid;
        void *ctx = p->contexts[tid];
        int status = 0;
        memcpy(work, x, sizeof(double) * (size_t)p->nx);
        if (p->begin)
            p->begin(ctx);
#pragma omp for schedule(static, 1)
        for (int k = 0; k < ntasks; ++k) {
            int stop;
#pragma omp atomic read
            stop = failed;
            if (status || stop)
                continue; /* a residual failed: J is not wanted any more */
            status = task(t, ctx, k, work, x, r0, J, &evals);
            if (status) {
#pragma omp atomic write
                failed = 1;
            }
        }
        t->status[tid] = status;
    }
    t->evaluations = evals;
    return mbs_tangent_worst_status(t);
}

int mbs_tangent_worst_status(const MbsTangent *t)
{
    int worst = 0;
    for (int i = 0; i < t->problem.nthreads; ++i)
        if (t->status[i] < 0 ? worst >= 0 : worst == 0)
            worst = t->status[i];
    return worst;
}

int mbs_tangent_eval(MbsTangent *t, const double *x, const double *r0, double *J)
{
    const MbsTangentProblem *p = &t->problem;
    long base_evaluations = 0;
    if (!r0 && t->method->needs_base_residual) {
        double *r = t->work + t->work_stride * (size_t)p->nthreads;
        if (p->begin)
            p->begin(p->contexts[0]);
        int status = p->residual(p->contexts[0], x, -1, 0.0, r);
        if (status)
            return status;
        r0 = r;
        base_evaluations = 1;
    }
    int status = t->method->eval(t, x, r0, J);
    t->evaluations += base_evaluations;
    return status;
}
