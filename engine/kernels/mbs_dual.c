#include "mbs_dual.h"

#include <stdlib.h>
#include <string.h>

#include "mbs_topology.h"

/* The dual instance of the kernels. */
#define MBS_S MbsDual
#define MBS_K(name) name##_dual
#define MBS_KIN MbsKinematicsDual
#define MBS_S_ZERO {.v = 0.0}
#define MBS_S_ONE {.v = 1.0}
#define MBS_DYN MbsDynamicsDual
#define MBS_FORCE_IN MbsForceInputDual
#define MBS_FORCE_OUT MbsForceOutputDual
#define MBS_FORCE_EVALUATE(c) (c)->evaluate_dual

#include "mbs_kinematics_kernel.h"
#include "mbs_dynamics_kernel.h"
#include "mbs_constraints_kernel.h"

int mbs_dynamics_init_dual(MbsDynamicsDual *d, const MbsModel *m)
{
    d->n = m->topo->nnodes;
    d->Wacc = calloc(6 * (size_t)(d->n > 0 ? d->n : 1), sizeof(MbsDual));
    return d->Wacc ? 0 : -1;
}

void mbs_dynamics_free_dual(MbsDynamicsDual *d)
{
    free(d->Wacc);
    d->Wacc = NULL;
}
