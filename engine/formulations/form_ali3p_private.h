/* ali3p's options, typed, for the files of its family (form_ali3p.c, sens_ali3p.c): they read
 * its settings through this struct, not by name, so that a renamed setting fails to compile
 * instead of reading NaN. Not part of the engine's interface. */
#ifndef FORM_ALI3P_PRIVATE_H
#define FORM_ALI3P_PRIVATE_H

#include "mbs_formulation.h"

/* Projection kinds (ali3p_settings' "projection"). */
enum { PROJECTION_MASS, PROJECTION_MDK, PROJECTION_MASS_UNIT_ZETA };
/* The settings it reads (ali3p_settings). */
typedef struct {
    double alpha;
    /* Newmark parameters (trapezoidal rule: 0.25, 0.5) */
    double newmark_beta, newmark_gamma;
    /* PROJECTION_MASS: mass-orthogonal (P = M, zeta = beta h^2); PROJECTION_MDK:
     * mass-damping-stiffness-orthogonal (P = M + gamma h C + beta h^2 K, zeta = beta h^2);
     * PROJECTION_MASS_UNIT_ZETA: mass-orthogonal, zeta = 1 */
    int projection;
    int algebra; /* ALGEBRA_AUTOMATIC: sparse KLU from 20 moving bodies */
    MbsNewtonOptions newton;
    MbsTangentOptions tangent;
} Ali3pOptions;
_Static_assert(sizeof(Ali3pOptions) <= MBS_OPTIONS_BYTES, "ali3p options fit MbsSettings");

/* The ali3p options s holds, or NULL when it holds another formulation's (or none). */
const Ali3pOptions *mbs_ali3p_options(const MbsSettings *s);

#endif
