/* Energy terms of a relative-coordinate state, for the monitors and the energy balance. */
#ifndef MBS_ENERGY_H
#define MBS_ENERGY_H

#include "mbs_kinematics.h"

typedef struct {
    double kinetic;
    double potential_gravity;
    double potential_elastic;
    /* Power of the non-conservative elements (dampers, constant forces and torques), W. */
    double power_nonconservative;
} MbsEnergy;

/* Positions and velocities must be current in k. */
void mbs_energy_eval(const MbsModel *m, const MbsKinematics *k, const double *z,
                     const double *zd, MbsEnergy *e);

#endif
