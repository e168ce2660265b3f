/* The derivative of a model's drawn data with respect to one of its parameters: what a
 * parameter of the geometry (a bar length, a point) moves — the nodes' points, the constraint
 * rows' points, the bodies' mass properties, the force elements' points, the model's points —
 * so that the terms of the equations can be differentiated along it analytically at fixed
 * coordinates (paper 001 eqs 55-61's explicit F_rho), instead of evaluated on models rebuilt with
 * rho +- delta and differenced.
 *
 * Taken from those two rebuilt models (mbs_model_with_parameter), once: the drawn data are
 * smooth functions of rho built by the model's own expressions, so their central difference is
 * their derivative to O(delta^2), and nothing else about the rebuilt models is needed while
 * the run goes. Offered only when the parameter moves points without turning anything: the
 * same topology, the same joint axes and row vectors, drivers, force laws' numbers and gravity
 * (what the analytical terms assume, so that every body keeps its orientation: the direction
 * is a translation of each node's subtree, T_k = [dp_k; 0]); otherwise the caller keeps its
 * differences. */
#ifndef MBS_MODEL_DIRECTION_H
#define MBS_MODEL_DIRECTION_H

#include "mbs_model.h"

typedef struct {
    int nnodes, nrows, nbodies, nforces, npoints;
    double *node_point;            /* 3 per node: d point */
    double *row_points;            /* 6 per constraint row: d r1, d r2 */
    double *row_c;                 /* per row: d c (DOT's value, DISTANCE's L^2) */
    double *mass, *com, *inertia;  /* per body: 1, 3, 9 */
    double *force_points;          /* 6 per force element: d point1, d point2 */
    double *point;                 /* 3 per model point: d pos */
} MbsModelDirection;

/* The direction (plus - minus) / (2 delta) of models plus and minus, rebuilt from base with
 * rho +- delta. Returns 0; 1 when the parameter turns or changes something the analytical terms
 * do not follow (why, when not NULL, names it); -1 when out of memory. */
int mbs_model_direction_init(MbsModelDirection *dir, const MbsModel *base, const MbsModel *plus,
                             const MbsModel *minus, double delta, char *why, size_t size);
void mbs_model_direction_free(MbsModelDirection *dir);

#endif
