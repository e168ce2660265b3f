/* Tangent by the formulation's analytical derivatives (penalty: mbs_dynamics_derivatives.c;
 * ali3p: mbs_natural.c; matrix-r: those and mbs_constraints_derivatives.c): one call of the
 * problem's analytical_jacobian, serial, no residual evaluation. */
#include "mbs_tangent_method.h"

static size_t analytical_thread_work(const MbsTangentProblem *p)
{
    (void)p;
    return 0;
}

static int analytical_prepare(MbsTangent *t, MbsError *err)
{
    if (!t->problem.analytical_jacobian)
        return mbs_error_set(err, MBS_FATAL,
                             "the analytical Jacobian is not available for this formulation "
                             "(penalty, ali3p and matrix-r offer it); choose a difference method");
    t->colours = 0; /* no column is perturbed */
    return 0;
}

static int analytical_eval(MbsTangent *t, const double *x, const double *r0, double *J)
{
    const MbsTangentProblem *p = &t->problem;
    (void)r0;
    if (p->begin)
        p->begin(p->contexts[0]);
    t->status[0] = p->analytical_jacobian(p->contexts[0], x, J);
    t->evaluations = 0;
    return t->status[0];
}

const MbsTangentMethodClass mbs_tangent_analytical = {
    .needs_base_residual = 0,
    .thread_work = analytical_thread_work,
    .eval = analytical_eval,
    .prepare = analytical_prepare,
};
