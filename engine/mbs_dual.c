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

static MbsDual *alloc_duals(size_t per_node, int n)
{
    return calloc(per_node * (size_t)(n > 0 ? n : 1), sizeof(MbsDual));
}

int mbs_kinematics_dual_init(MbsKinematicsDual *k, const MbsModel *m)
{
    int n = m->topo->nnodes;
    memset(k, 0, sizeof *k);
    k->n = n;
    k->R = alloc_duals(9, n);
    k->p = alloc_duals(3, n);
    k->b = alloc_duals(6, n);
    k->Z = alloc_duals(6, n);
    k->D = alloc_duals(6, n);
    if (!k->R || !k->p || !k->b || !k->Z || !k->D) {
        mbs_kinematics_dual_free(k);
        return -1;
    }
    return 0;
}

void mbs_kinematics_dual_free(MbsKinematicsDual *k)
{
    free(k->R);
    free(k->p);
    free(k->b);
    free(k->Z);
    free(k->D);
    memset(k, 0, sizeof *k);
}

int mbs_dynamics_dual_init(MbsDynamicsDual *d, const MbsModel *m)
{
    d->n = m->topo->nnodes;
    d->Wacc = alloc_duals(6, d->n);
    return d->Wacc ? 0 : -1;
}

void mbs_dynamics_dual_free(MbsDynamicsDual *d)
{
    free(d->Wacc);
    d->Wacc = NULL;
}
