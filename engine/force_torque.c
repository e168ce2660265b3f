/* A constant global torque on a body; external work in the energy balance (power n.w). */
#include <string.h>

#include "mbs_force.h"
#include "mbs_linalg.h"

static const MbsForceField fields[] = {
    {"vector", "N·m", offsetof(MbsForce, vector), 3, MBS_FIELD_REQUIRED},
    {0},
};

static void evaluate(const MbsForce *f, const MbsForceInput *in, MbsForceOutput *out)
{
    (void)in;
    memcpy(out->vector, f->vector, sizeof out->vector);
}

static double energy(const MbsForce *f, const MbsForceInput *in)
{
    (void)f, (void)in;
    return 0.0;
}

static double power(const MbsForce *f, const MbsForceInput *in)
{
    return mbs_v3_dot(f->vector, in->omega);
}

const MbsForceClass mbs_force_torque = {
    .name = "torque",
    .description = "constant torque",
    .type = MBS_FORCE_TORQUE,
    .geometry = MBS_FORCE_ON_BODY,
    .fields = fields,
    .state_dependent = 0,
    .drawing = MBS_FORCE_DRAW_NONE,
    .evaluate = evaluate,
    .energy = energy,
    .power = power,
};
