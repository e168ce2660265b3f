/* The vocabulary of a model file's objectives; see esl-objective-format.h. */
#include "esl-objective-format.h"

#include "mbs_objective.h"

EslObjectiveTarget esl_objective_target(MbsQuantityKind quantity)
{
    if (quantity == MBS_QUANTITY_JOINT_COORDINATE || quantity == MBS_QUANTITY_JOINT_RATE)
        return ESL_OBJECTIVE_TARGET_JOINT;
    return quantity == MBS_QUANTITY_ANGULAR_VELOCITY ? ESL_OBJECTIVE_TARGET_BODY
                                                     : ESL_OBJECTIVE_TARGET_POINT;
}

const char *esl_objective_part_name(int final)
{
    return final ? "final" : "integrand";
}

/* A vector's measures: its squared norm, then its components (1-3), then their squares (4-6). */
static const char *const vector_measures[] = {"squared_norm", "x", "y", "z",
                                              "squared_x", "squared_y", "squared_z", NULL};
static const char *const scalar_measures[] = {"squared_norm", "value", NULL};

const char *const *esl_objective_measures(MbsQuantityKind quantity)
{
    return mbs_quantity_size(quantity) == 1 ? scalar_measures : vector_measures;
}

gboolean esl_objective_measure_parse(MbsQuantityKind quantity, const char *name,
                                     MbsMeasure *measure, int *component)
{
    const char *const *names = esl_objective_measures(quantity);
    for (int k = 0; name && names[k]; k++)
        if (g_str_equal(name, names[k])) {
            *measure = k == 0 ? MBS_MEASURE_SQUARED_NORM
                       : k <= 3 ? MBS_MEASURE_COMPONENT
                                : MBS_MEASURE_SQUARED_COMPONENT;
            *component = k == 0 ? 0 : (k - 1) % 3;
            return TRUE;
        }
    return FALSE;
}

const char *esl_objective_measure_name(const MbsObjectiveTerm *term)
{
    const char *const *names = esl_objective_measures(term->quantity);
    if (term->measure == MBS_MEASURE_SQUARED_NORM)
        return names[0];
    int squared = term->measure == MBS_MEASURE_SQUARED_COMPONENT ? 3 : 0;
    return term->component >= 0 && term->component < mbs_quantity_size(term->quantity)
               ? names[term->component + 1 + squared]
               : "";
}
