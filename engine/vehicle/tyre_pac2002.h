/* What the tyre test rig (eslabon-cli tyre) and the tests need of the pac2002 law beyond
 * MbsTyreModelClass (mbs_tyre_model.h). */
#ifndef TYRE_PAC2002_H
#define TYRE_PAC2002_H

#include "mbs_tir.h"
#include "mbs_tyre_model.h"

extern const MbsTyreModelClass mbs_tyre_pac2002;

/* The effective rolling radius Re at a load (PAC2002: R0 - (Fz0/Cz)(DREFF atan(BREFF Fz/Fz0)
 * + FREFF Fz/Fz0)), the radius of kappa = (Omega Re - Vcx) / |Vcx|: a rig sets the spin
 * Omega = Vcx (1 + kappa) / Re for a wanted slip. data must be a pac2002 law's. */
double mbs_pac2002_rolling_radius(const MbsTyreData *data, double fz);
/* A steady-state test rig (eslabon-cli tyre, the application's tyre curves): the law at load fz,
 * longitudinal slip kappa, slip angle alpha and inclination gamma, the wheel centre moving at vx
 * with the lateral velocity vx tan(alpha) and the spin vx (1 + kappa) / Re that give these slips
 * (above the file's VXLOW; below it the law's low-speed slips differ), road friction mu times
 * the tyre's. */
void mbs_pac2002_rig(const MbsTyreData *data, double fz, double kappa, double alpha,
                     double gamma, double vx, double mu, MbsTyreOutput *out);
/* The file as read, in SI. */
const MbsTir *mbs_pac2002_tir(const MbsTyreData *data);

#endif
