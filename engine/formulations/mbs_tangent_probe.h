/* The tangent a formulation uses, at its current state: its tangent object, the variables x
 * and the residual r(x), so that tests and diagnostics can check it against other derivatives
 * of the same residual. A probe may disturb the formulation's work state: free it afterwards
 * instead of stepping it on. */
#ifndef MBS_TANGENT_PROBE_H
#define MBS_TANGENT_PROBE_H

#include "mbs_formulation.h"
#include "mbs_tangent.h"

struct MbsTangentProbe {
    MbsTangent *tangent;
    const double *x, *r0;
};

/* f's tangent by its class's tangent_probe (penalty: -dQ/d[zd, z]; ali3p: -dQ/d[q, qd];
 * matrix-r trapezoidal: dg/dz_i; ssode: x = (v, vd), r = (vdd, W') at the last output, its time
 * the tangent's): 0, or MBS_FATAL when the formulation computes no tangent (a class without
 * one, ali3p without forces that vary with the state) or the evaluation of r fails. */
int mbs_formulation_tangent_probe(MbsFormulation *f, MbsTangentProbe *probe, MbsError *err);

#endif
