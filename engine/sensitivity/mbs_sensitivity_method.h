/* What a sensitivity method implements (private to the engine). Adding one: a file defining an
 * MbsSensitivityMethodClass and its line in the registry of mbs_sensitivity.c (as formulations,
 * mbs_formulation.c, and tangent methods, mbs_tangent.c). */
#ifndef MBS_SENSITIVITY_METHOD_H
#define MBS_SENSITIVITY_METHOD_H

#include "mbs_sensitivity.h"

typedef struct {
    const char *formulation;     /* the formulation it differentiates; NULL: every one (fd) */
    MbsSensitivityMethod method; /* its kind: direct, adjoint, fd */
    /* psi and d psi / d rho (mbs_sensitivity_compute, after the indices are checked) */
    int (*run)(const MbsSensitivityProblem *p, MbsSensitivityResult *r, MbsError *err);
    /* optional: what it refuses at once in the settings (mbs_sensitivity_check) */
    int (*check)(const MbsSettings *s, MbsError *err);
    /* optional: what it refuses in the problem before it runs (fd: a step lost in round-off) */
    int (*check_problem)(const MbsSensitivityProblem *p, MbsError *err);
    /* its own options (problem->method_options), or NULL */
    const MbsSettingTable *settings;
    /* 1 when it gives state histories (problem->state_history) */
    int has_state_history;
} MbsSensitivityMethodClass;

#endif
