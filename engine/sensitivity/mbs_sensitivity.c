#include "mbs_sensitivity.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mbs_sensitivity_method.h"

static const char *const method_names[MBS_SENSITIVITY_METHOD_COUNT] = {"direct", "adjoint", "fd"};

const char *mbs_sensitivity_method_name(MbsSensitivityMethod method)
{
    return (unsigned)method < MBS_SENSITIVITY_METHOD_COUNT ? method_names[method] : "unknown";
}

int mbs_sensitivity_method_from_name(const char *name)
{
    for (int i = 0; name && i < MBS_SENSITIVITY_METHOD_COUNT; ++i)
        if (!strcmp(name, method_names[i]))
            return i;
    return -1;
}

/* The registry: one line per method (its class in its own file), fd first (every formulation
 * has it, and the error of a missing method lists it first). */
extern const MbsSensitivityMethodClass mbs_sens_fd;
extern const MbsSensitivityMethodClass mbs_sens_penalty_direct;
extern const MbsSensitivityMethodClass mbs_sens_ali3p_direct;
extern const MbsSensitivityMethodClass mbs_sens_matrix_r_direct;
extern const MbsSensitivityMethodClass mbs_sens_matrix_r_adjoint;

static const MbsSensitivityMethodClass *const registry[] = {
    &mbs_sens_fd,
    &mbs_sens_penalty_direct,
    &mbs_sens_ali3p_direct,
    &mbs_sens_matrix_r_direct,
    &mbs_sens_matrix_r_adjoint,
};

static int serves(const MbsSensitivityMethodClass *k, const char *formulation)
{
    return !k->formulation || (formulation && !strcmp(k->formulation, formulation));
}

static const MbsSensitivityMethodClass *find_method(const char *formulation,
                                                    MbsSensitivityMethod method)
{
    for (size_t i = 0; i < sizeof registry / sizeof registry[0]; ++i)
        if (registry[i]->method == method && serves(registry[i], formulation))
            return registry[i];
    return NULL;
}

const MbsSettingTable *mbs_sensitivity_settings(const char *formulation,
                                                MbsSensitivityMethod method)
{
    const MbsSensitivityMethodClass *k = find_method(formulation, method);
    return k ? k->settings : NULL;
}

int mbs_sensitivity_available(const char *formulation, MbsSensitivityMethod method)
{
    return find_method(formulation, method) != NULL;
}

int mbs_sensitivity_check(const char *formulation, MbsSensitivityMethod method,
                          const MbsSettings *s, MbsError *err)
{
    const MbsSensitivityMethodClass *k = find_method(formulation, method);
    if (!k)
        return mbs_error_set(err, MBS_FATAL, "formulation '%s' has no %s sensitivity method",
                             formulation ? formulation : "(none)",
                             mbs_sensitivity_method_name(method));
    return k->check ? k->check(s, err) : 0;
}

int mbs_sensitivity_has_state_history(const char *formulation, MbsSensitivityMethod method)
{
    const MbsSensitivityMethodClass *k = find_method(formulation, method);
    return k && k->has_state_history;
}

int mbs_sensitivity_compute(const MbsSensitivityProblem *p, MbsSensitivityMethod method,
                            MbsSensitivityResult *r, MbsError *err)
{
    if (!mbs_formulation_find(p->formulation))
        return mbs_error_set(err, MBS_FATAL, "unknown formulation '%s'", p->formulation);
    const MbsSensitivityMethodClass *klass = find_method(p->formulation, method);
    if (!klass) {
        char have[128] = "";
        for (size_t i = 0; i < sizeof registry / sizeof registry[0]; ++i)
            if (serves(registry[i], p->formulation)) {
                if (have[0])
                    strncat(have, ", ", sizeof have - strlen(have) - 1);
                strncat(have, method_names[registry[i]->method], sizeof have - strlen(have) - 1);
            }
        return mbs_error_set(err, MBS_FATAL, "formulation '%s' has no %s sensitivity method "
                             "(not implemented yet; it has: %s)", p->formulation,
                             mbs_sensitivity_method_name(method), have);
    }
    for (int i = 0; i < p->nobjectives; ++i)
        if (p->objectives[i] < 0 || p->objectives[i] >= p->model->nobjectives)
            return mbs_error_set(err, MBS_FATAL, "objective index %d out of range (the model "
                                 "has %d)", p->objectives[i], p->model->nobjectives);
    for (int i = 0; i < p->nparameters; ++i)
        if (p->parameters[i] < 0 || p->parameters[i] >= p->model->nparameters)
            return mbs_error_set(err, MBS_FATAL, "parameter index %d out of range (the model "
                                 "has %d)", p->parameters[i], p->model->nparameters);
    if (klass->check_problem && klass->check_problem(p, err))
        return MBS_FATAL;
    int status = klass->run(p, r, err);
    if (status)
        return status;
    /* an objective that overflows (a weight of 1e308) is an error, never a NaN printed */
    for (int i = 0; i < p->nobjectives; ++i) {
        const char *name = p->model->objectives[p->objectives[i]].name;
        if (!isfinite(r->psi[i]))
            return mbs_error_set(err, MBS_FATAL,
                                 "objective '%s' is not finite (%g): its terms overflow (a "
                                 "weight or a value too large)", name, r->psi[i]);
        for (int k = 0; k < p->nparameters; ++k)
            if (!isfinite(r->gradient[i * p->nparameters + k]))
                return mbs_error_set(err, MBS_FATAL,
                                     "d %s / d %s is not finite (%g): the objective's terms or "
                                     "the method's increments overflow", name,
                                     p->model->parameters[p->parameters[k]].name,
                                     r->gradient[i * p->nparameters + k]);
    }
    return 0;
}

