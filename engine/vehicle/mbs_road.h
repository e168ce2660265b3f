/* Roads: what a wheel rolls on (engine/vehicle/force_wheel.c), part of the model (MbsModel's
 * road, model file "road": {...}).
 *
 * One interface: the height z = h(x, y) of the road surface above the global XY plane (+Z up),
 * its gradient and curvature (the analytical tangent of a wheel needs how the normal turns),
 * the unit normal and the friction coefficient mu at a point. A road is a flat plane (height,
 * mu) plus features whose heights add to it, each a class in its own file listed once in
 * mbs_road.c:
 *   "step"     a step of some height at x = position (sharp, or a smooth ramp over length)
 *   "bump"     a half-cylinder across the road of some diameter, its axis at x = position
 *   "profile"  a polyline height profile along x through points (x, h), held beyond its ends
 * A later height map or OpenCRG road is one more class.
 */
#ifndef MBS_ROAD_H
#define MBS_ROAD_H

#include <stddef.h>

#include "mbs_error.h"

typedef struct MbsRoad MbsRoad;

/* The road at a point. */
typedef struct {
    double height;      /* h */
    double gradient[2]; /* dh/dx, dh/dy */
    double hessian[3];  /* d2h/dx2, d2h/dxdy, d2h/dy2 */
    double normal[3];   /* unit, up: (-h_x, -h_y, 1) / |.| with the slope limited to 1 */
    int limited;        /* 1: the normal's slope was limited (it then does not turn with x) */
    double mu;          /* friction coefficient */
} MbsRoadPoint;

#define MBS_ROAD_NUMBERS 4

/* A number of a feature read from model files. */
typedef struct {
    const char *name; /* "height" */
    const char *unit;
    int required;
} MbsRoadField;

typedef struct {
    int kind;                       /* index in the registry (mbs_road_class_at) */
    double v[MBS_ROAD_NUMBERS];     /* the numbers, in the order of the class's fields */
    double *points;                 /* profile: x0, h0, x1, h1, ... (owned), x increasing */
    int npoints;
} MbsRoadFeature;

struct MbsRoad {
    double height, mu;              /* the flat plane */
    MbsRoadFeature *features;
    int nfeatures;
};

typedef struct {
    const char *name;               /* "bump" */
    const char *description;        /* "half-cylinder bump" */
    const MbsRoadField *fields;     /* terminated by a NULL name; at most MBS_ROAD_NUMBERS */
    int takes_points;               /* 1: reads "points" [[x, h], ...] */
    /* Adds the feature's height, gradient and Hessian at (x, y) to p. */
    void (*add)(const MbsRoadFeature *f, double x, double y, MbsRoadPoint *p);
    /* Checks the numbers (a message naming the field into err). */
    int (*check)(const MbsRoadFeature *f, MbsError *err);
    /* The x interval where the feature changes the height (for drawing). */
    void (*extent)(const MbsRoadFeature *f, double *x0, double *x1);
} MbsRoadClass;

int mbs_road_class_count(void);
const MbsRoadClass *mbs_road_class_at(int i);
int mbs_road_class_index(const char *name); /* -1 if unknown */
void mbs_road_class_list(char *text, size_t size); /* "step, bump or profile" */

MbsRoad *mbs_road_new(double height, double mu);
void mbs_road_free(MbsRoad *r);
MbsRoad *mbs_road_copy(const MbsRoad *r); /* NULL on no memory (or r NULL) */
/* Adds a feature of class kind with its numbers (n of them, in the class's field order) and,
 * for a profile, npoints (x, h) pairs. -1 with err (naming the feature by its position) on bad
 * input. */
int mbs_road_add(MbsRoad *r, int kind, const double *numbers, int n, const double *points,
                 int npoints, MbsError *err);
/* The road at (x, y) (no allocation). The normal's slope is limited to 1 (45 degrees): a
 * half-cylinder's edge is vertical, a tyre never meets it so; the height and its gradient stay
 * the road's own (the tyre's elastic energy follows the true height). */
void mbs_road_eval(const MbsRoad *r, double x, double y, MbsRoadPoint *p);

#endif
