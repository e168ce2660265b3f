/* A constant global force at a point of a body. Counted as external work in the energy
 * balance (its power f.v), not as a potential. */
#include "mbs_force.h"
#include "mbs_settings.h" /* MBS_N_ */
#include "mbs_linalg.h"

static const MbsForceField fields[] = {
    {MBS_N_("vector"), "N", offsetof(MbsForce, vector), 3, MBS_FIELD_REQUIRED},
    {0},
};

static double power(const MbsForce *f, const MbsForceInput *in)
{
    return mbs_v3_dot(f->vector, in->v);
}

const MbsForceClass mbs_force_constant = {
    .name = "force",
    .description = MBS_N_("constant force"),
    .type = MBS_FORCE_CONSTANT,
    .geometry = MBS_FORCE_AT_POINT,
    .fields = fields,
    .state_dependent = 0,
    .drawing = MBS_FORCE_DRAW_ARROW,
    .evaluate = mbs_force_constant_vector,
    .evaluate_dual = mbs_force_constant_vector_dual,
    .energy = mbs_force_no_energy,
    .power = power,
    .derivative = mbs_force_constant_derivative,
};
