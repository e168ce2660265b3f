/* The tangent a formulation uses, at its current state: its tangent object, the variables x
 * and the residual r(x), so that tests and diagnostics can check it against other derivatives
 * of the same residual. A probe may disturb the formulation's work state: free it afterwards
 * instead of stepping it on. */
#ifndef MBS_TANGENT_PROBE_H
#define MBS_TANGENT_PROBE_H

#include "mbs_formulation.h"
#include "mbs_tangent.h"

typedef struct {
    MbsTangent *tangent;
    const double *x, *r0;
} MbsTangentProbe;

/* Each returns 0, or MBS_FATAL when the formulation computes no tangent (ali3p without forces
 * that vary with the state) or the evaluation of r fails. */
int mbs_penalty_tangent_probe(MbsFormulation *f, MbsTangentProbe *probe, MbsError *err);
int mbs_ali3p_tangent_probe(MbsFormulation *f, MbsTangentProbe *probe, MbsError *err);
int mbs_matrix_r_tangent_probe(MbsFormulation *f, MbsTangentProbe *probe, MbsError *err);
/* ssode: x = (v, vd), r = (vdd, W') at the last output (its time: the tangent's). */
int mbs_ssode_tangent_probe(MbsFormulation *f, MbsTangentProbe *probe, MbsError *err);

#endif
