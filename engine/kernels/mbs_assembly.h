/* Initial assembly in relative coordinates: position problem (Newton with minimum-norm least
 * squares, imposed coordinates held), velocity problem and acceleration problem. */
#ifndef MBS_ASSEMBLY_H
#define MBS_ASSEMBLY_H

#include "mbs_error.h"
#include "mbs_model.h"
#include "mbs_settings.h"

/* Pose and velocity of one body: x = R x_drawn + p; v_com velocity of the centre of mass. */
typedef struct {
    double R[9], p[3];
    double v_com[3], omega[3];
} MbsBodyState;

/* Solve the position and velocity problems at t. z, zd: ncoords entries (in: ignored).
 * bodies (optional, nbodies entries): the resulting body states, ground included. */
int mbs_assemble(const MbsModel *m, const MbsSettings *s, double t, double *z, double *zd,
                 MbsBodyState *bodies, MbsError *err);

/* Accelerations consistent with the constraints: M zdd + Phi_z^T lambda = Q, Phi_z zdd = -c,
 * solved by augmented Lagrangian iterations (redundant constraints allowed). */
int mbs_assemble_accelerations(const MbsModel *m, const MbsSettings *s, double t,
                               const double *z, const double *zd, double *zdd, MbsError *err);

#endif
