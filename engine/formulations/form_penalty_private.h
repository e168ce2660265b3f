/* penalty's options, typed, for the files of its family (form_penalty.c, sens_penalty.c): they
 * read its settings through this struct, not by name, so that a renamed setting fails to
 * compile instead of reading NaN. Not part of the engine's interface. */
#ifndef FORM_PENALTY_PRIVATE_H
#define FORM_PENALTY_PRIVATE_H

#include "mbs_formulation.h"

/* The settings it reads (penalty_settings). */
enum { MULTIPLIERS_NONE, MULTIPLIERS_ITERATED };
enum { PENALTY_PROJECTION_TANGENT, PENALTY_PROJECTION_MASS };

typedef struct {
    double alpha;
    int algebra;
    int multipliers; /* MULTIPLIERS_NONE (paper 000) or MULTIPLIERS_ITERATED (augmented) */
    int projection;  /* PENALTY_PROJECTION_TANGENT (paper 000) or _MASS (issue 28) */
    MbsNewtonOptions newton;
    MbsTangentOptions tangent;
} PenaltyOptions;
_Static_assert(sizeof(PenaltyOptions) <= MBS_OPTIONS_BYTES, "penalty options fit MbsSettings");

/* The penalty options s holds, or NULL when it holds another formulation's (or none). */
const PenaltyOptions *mbs_penalty_options(const MbsSettings *s);

#endif
