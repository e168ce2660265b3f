/* Paths: what a path follower (force_path_follower.c) steers along, part of the model
 * (MbsModel's path, model file "path": {...}).
 *
 * A path is a curve y = y(x) on the road's XY plane, x increasing: the piecewise cubic Hermite
 * interpolant (PCHIP, Fritsch and Carlson 1980) through its points, so y and its slope are
 * continuous and it does not overshoot its points; beyond its ends y is held (slope 0). A path
 * that turned back in x (a circuit) is not one of these: the follower measures its error along
 * global y at the look-ahead point's x (see docs/design/engine.md § Drivers).
 *
 * Kinds:
 *   "points"      the polyline of the file's points [[x, y], ...], interpolated as above
 *   "iso3888-1"   the ISO 3888-1 double lane change for a vehicle of some width starting at x0:
 *                 lanes 15 / 30 / 25 / 25 / 15 m long, widths 1.1 w + 0.25, 1.2 w + 0.25,
 *                 1.3 w + 0.25 m (sections 1, 3, 5; 2 and 4 are the transitions)
 *   "iso3888-2"   ISO 3888-2 (obstacle avoidance): 12 / 13.5 / 11 / 12.5 / 12 m, widths
 *                 1.1 w + 0.25, w + 1, 3 m
 *   "slalom"      a multiple slalom (paper 003's truck): n gates `spacing` m apart from x0, their
 *                 centres alternately `amplitude` to the left (the first) and to the right of
 *                 y = 0, each w + 1 m wide (ISO 3888-2's side-lane rule); the path is the sine
 *                 y = a sin(pi (x - x0 + d/2) / d) through the gates' centres from x0 - d/2 to
 *                 x0 + (n - 1/2) d and y = 0 outside, sampled so that its crests are samples;
 *                 each gate is a lane of zero length (x0 = x1), its two cones at its ends
 * For both lane changes the entry and exit lanes (1 and 5) share their right-hand boundary
 * (y = -w1 / 2, lane 1 centred on y = 0) and the side lane (3) lies to the left, its right-hand boundary
 * `offset` to the left of lane 1's: 3.5 m for ISO 3888-1, w1 + 1 m for ISO 3888-2 (the side
 * lane 1 m beyond lane 1's left boundary). The path is the lanes' centre lines joined across
 * the transitions by half-cosines (y = y0 + (y1 - y0)(1 - cos(pi s))/2, the least curvature of
 * the smooth S-curves), sampled every 0.5 m. The cones stand on the lanes' boundaries.
 */
#ifndef MBS_PATH_H
#define MBS_PATH_H

#include "mbs_error.h"

typedef enum {
    MBS_PATH_POINTS,
    MBS_PATH_ISO3888_1,
    MBS_PATH_ISO3888_2,
    MBS_PATH_SLALOM,
    MBS_PATH_KIND_COUNT
} MbsPathKind;

/* A lane section of a lane change: the vehicle must be between y_min and y_max (its right- and
 * left-hand boundaries) from x0 to x1. */
typedef struct {
    double x0, x1, y_min, y_max;
} MbsPathLane;

#define MBS_PATH_LANES 16 /* a lane change's 3 sections, a slalom's gates */

typedef struct MbsPath {
    MbsPathKind kind;
    double vehicle_width, start, offset; /* lane changes: the numbers they were made from */
    double spacing, amplitude;           /* slalom: the gates' distance and centres' offset */
    double *x, *y, *slope;               /* the interpolant's points and slopes (owned) */
    double *station;                     /* the arc length from x[0] at each point (owned) */
    int n;
    MbsPathLane lanes[MBS_PATH_LANES];   /* lane changes: sections 1, 3, 5 */
    int nlanes;
} MbsPath;

const char *mbs_path_kind_name(MbsPathKind kind); /* "points", "iso3888-1", "iso3888-2",
                                                     "slalom" */
int mbs_path_kind_index(const char *name);        /* -1 if unknown */

/* A path through n points xy[2 i], xy[2 i + 1] (n >= 2, x strictly increasing, finite); NULL
 * with err naming the first bad point. */
MbsPath *mbs_path_new_points(const double *xy, int n, MbsError *err);
/* A lane change of ISO 3888-1 or -2 (kind) for a vehicle of width (m) whose lane 1 starts at
 * x = start; offset NAN: the standard's (above). NULL with err on a width that is not positive,
 * a non-finite number or an offset that makes lanes overlap. */
MbsPath *mbs_path_new_lane_change(MbsPathKind kind, double width, double start, double offset,
                                  MbsError *err);
/* A slalom of `gates` gates (1 to MBS_PATH_LANES) for a vehicle of width (m), the first at
 * x = start, `spacing` (m, > 0) apart, centred alternately `amplitude` (m, >= 0) to the left
 * and to the right. NULL with err naming the bad number. */
MbsPath *mbs_path_new_slalom(double width, double start, double spacing, double amplitude,
                             int gates, MbsError *err);
MbsPath *mbs_path_copy(const MbsPath *p); /* NULL on no memory (or p NULL) */
void mbs_path_free(MbsPath *p);

/* y, dy/dx and d2y/dx2 of the path at x (no allocation). */
void mbs_path_eval(const MbsPath *p, double x, double *y, double *slope, double *curvature);

/* The station of x: the arc length of the curve from its first point to (x, y(x)) (negative
 * before it; beyond the ends, where y is held, the straight line's length), and its rate
 * dS/dx = sqrt(1 + y'(x)^2) into *rate (no allocation). */
double mbs_path_station(const MbsPath *p, double x, double *rate);

/* The cones of a lane change or a slalom: their (x, y) into xy (2 per cone), at most max
 * cones; returns how many there are (0 for a path of points). Each lane section has cones on
 * both its boundaries at its start, middle and end (ISO 3888 sets them at most a few metres
 * apart; these are the gates a run is checked at); a slalom's gate has its two. */
int mbs_path_cones(const MbsPath *p, double *xy, int max);
/* Its lane sections (MBS_PATH_LANES at most); returns how many. */
int mbs_path_lanes(const MbsPath *p, MbsPathLane *lanes, int max);

#endif
