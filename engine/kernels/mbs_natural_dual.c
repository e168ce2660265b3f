/* The dual-number instance of mbs_natural_forces_kernel.h: the forces of ali3p's tangent
 * methods ad and ad-sparse (mbs_natural.h). */
#include "mbs_natural.h"

#define MBS_S MbsDual
#define MBS_K(name) name##_dual
#define MBS_FORCE_IN MbsForceInputDual
#define MBS_FORCE_OUT MbsForceOutputDual
#define MBS_FORCE_EVALUATE(c) (c)->evaluate_dual
#define MBS_NAT_ACCOUNT(c, F, in, e) ((void)(e)) /* energies are of the double instance */
#define MBS_NAT_BODY_ENERGY(nat, b, q, qd, e) ((void)(e))

#include "mbs_natural_forces_kernel.h"
