/* Sensitivities of named model points: d r / d rho of a point's position r along a run, from
 * the coordinates' sensitivities d q / d rho the direct methods step
 * (MbsSensitivityStateHistory):
 *
 *     d r / d rho_k = (d r / d q) (d q / d rho_k) + d r / d rho_k |q fixed
 *
 * The first term is exact: relative coordinates give d r / d z from the kinematics of z (the
 * point's velocity row, mbs_kinematics.h), natural ones a constant linear map (mbs_natural.h).
 * The second, explicit, term is nonzero for a geometric parameter that moves the point on its
 * body or the joints it hangs from (five-bar's L_A1): a central difference of the point's
 * position at the same q on the models rho_k +- d_k (mbs_model_with_parameter, d_k =
 * cbrt(eps) max(1, |rho_k|), as the direct methods take them), which is what "the same q"
 * means to those methods. A parameter that changes the model's topology, points or
 * coordinates is refused (the direct methods refuse it too). Allocates at creation only.
 *
 * GLib-only: the `--points` of `eslabon-cli sensitivity` and the window's sensitivity runs.
 */
#ifndef ESL_POINT_SENSITIVITY_H
#define ESL_POINT_SENSITIVITY_H

#include <glib.h>

#include "mbs_formulation.h"

G_BEGIN_DECLS

typedef struct _EslPointSensitivity EslPointSensitivity;

/* For the points (indices into m->points) of model m in the coordinates of kind, and the
 * parameters (indices into m->parameters); NULL with error naming the parameter or point
 * refused. */
EslPointSensitivity *esl_point_sensitivity_new(const MbsModel *m, MbsCoordinateKind kind,
                                               const int *points, int npoints,
                                               const int *parameters, int nparameters,
                                               GError **error);
void esl_point_sensitivity_free(EslPointSensitivity *ps);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(EslPointSensitivity, esl_point_sensitivity_free)

/* 3 per point. */
int esl_point_sensitivity_outputs(const EslPointSensitivity *ps);

/* From q (n coordinates of the kind) and sq = d q / d rho (n x nparameters, column per
 * parameter): dr = d r / d rho, 3 npoints x nparameters, column per parameter (x, y, z of the
 * first point, then the next), and r (3 npoints, may be NULL), the positions. FALSE when n is
 * not the model's number of coordinates. */
gboolean esl_point_sensitivity_eval(EslPointSensitivity *ps, int n, const double *q,
                                    const double *sq, double *dr, double *r);

/* "BODY:POINT" (the name `--points` takes). */
char *esl_point_name(const MbsModel *m, int point);

G_END_DECLS

#endif
