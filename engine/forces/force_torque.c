/* A constant global torque on a body; external work in the energy balance (power n.w). */
#include "mbs_force.h"
#include "mbs_settings.h" /* MBS_N_ */
#include "mbs_linalg.h"

static const MbsForceField fields[] = {
    {MBS_N_("vector"), "N·m", offsetof(MbsForce, vector), 3, MBS_FIELD_REQUIRED},
    {0},
};

static double power(const MbsForce *f, const MbsForceInput *in)
{
    return mbs_v3_dot(f->vector, in->omega);
}

const MbsForceClass mbs_force_torque = {
    .name = "torque",
    .description = MBS_N_("constant torque"),
    .type = MBS_FORCE_TORQUE,
    .geometry = MBS_FORCE_ON_BODY,
    .fields = fields,
    .state_dependent = 0,
    .drawing = MBS_FORCE_DRAW_NONE,
    .evaluate = mbs_force_constant_vector,
    .evaluate_dual = mbs_force_constant_vector_dual,
    .energy = mbs_force_no_energy,
    .power = power,
    .derivative = mbs_force_constant_derivative,
};
