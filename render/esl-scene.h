/* EslScene: what to draw for a model in a given state, as a flat list of simple drawables.
 * No GL here (unit-testable); the renderer turns each drawable into an instanced mesh.
 *
 * Drawn elements:
 *  - bodies: capsules joining the body's anchors (points, joint locations, force attachments);
 *    one anchor: a capsule from the centre of mass; none: a sphere at the centre of mass;
 *  - joints: revolute a cylinder along its axis, prismatic a long thin cylinder along its axis,
 *    spherical a sphere, universal two crossed cylinders, rod a thin capsule between its points;
 *    coloured by their constraint violation (esl_scene_violation_color);
 *  - joints on the ground: a cone under them (ground marker);
 *  - TSDA springs: helices; constant forces: arrows;
 *  - body frames (optional): three arrows x (red), y (green), z (blue) at the centre of mass;
 *  - trails (esl_scene_add_trail): the path of a point as thin capsules;
 *  - vehicles (a model with `wheel` or `tyre` elements): each tyre as a tyre (a cylinder of its
 *    radius with a rim, spokes and tread bars that turn with its body; the body carrying it is
 *    not drawn as bars), the chassis (esl_scene_vehicle_body, and any body of a tenth of its
 *    mass or more that carries no tyre: a tractor) as the box of its mass and inertia,
 *    narrowed to stay between the wheels; the road (the model's, or a `tyre`
 *    element's own) as a checkered surface of triangles from mbs_road_eval, features tinted,
 *    over a stretch that follows the vehicle; lane-change cones (esl_scene_add_cones).
 */
#ifndef ESL_SCENE_H
#define ESL_SCENE_H

#include "mbs_model.h"

typedef enum {
    ESL_DRAW_CAPSULE,  /* segment a-b with rounded ends, radius */
    ESL_DRAW_CYLINDER, /* frustum a-b with radius at a and radius2 at b, flat ends */
    ESL_DRAW_SPHERE,   /* centre a, radius */
    ESL_DRAW_HELIX,    /* coil from a to b: coil radius, wire radius2, turns */
    ESL_DRAW_BOX,      /* box with its length from a to b, half-width radius along side,
                          half-height radius2 along (b - a) x side */
    ESL_DRAW_KIND_COUNT
} EslDrawableKind;

typedef enum {
    ESL_SOURCE_BODY,
    ESL_SOURCE_JOINT,
    ESL_SOURCE_FORCE,
    ESL_SOURCE_GROUND, /* ground marker under a joint (index: the joint) */
    ESL_SOURCE_FRAME,  /* body frame arrow (index: the body) */
    ESL_SOURCE_TRAIL,  /* path followed by a point (index: given by the caller) */
    ESL_SOURCE_CONE,   /* lane-change cone (index: its place in the array given) */
} EslDrawableSource;

typedef struct {
    EslDrawableKind kind;
    float a[3], b[3];
    float radius, radius2;
    int turns;
    float side[3]; /* box: unit vector across its width */
    float color[4];
    EslDrawableSource source;
    int index; /* body, joint or force index in the model */
} EslDrawable;

typedef struct {
    int show_frames;          /* draw body frames */
    double violation_low;     /* violations at or below this are drawn in the "good" colour */
    double violation_high;    /* violations at or above this are drawn in the "bad" colour */
    int highlight_source;     /* -1: none; else an EslDrawableSource whose element is */
    int highlight_index;      /*   drawn highlighted (selection in the model tree) */
} EslSceneOptions;

void esl_scene_options_defaults(EslSceneOptions *o);

/* A vertex of the scene's surface triangles (the road): world position, unit normal, colour. */
typedef struct {
    float position[3], normal[3], color[4];
} EslSurfaceVertex;

typedef struct {
    EslDrawable *items;
    int n, cap;
    /* Triangles, three vertices each, not pickable and not in the bounds: the road. */
    EslSurfaceVertex *surface;
    int n_surface, cap_surface;
    /* Bounding sphere of the model as drawn (of a vehicle: of its moving bodies in the state
     * drawn), a unit "up" vector (against gravity, +z when there is no gravity) and a length
     * scale used for radii (of the drawn configuration: radii do not change as it moves). */
    float center[3];
    float radius;
    float up[3];
    float size;
    float bar_radius; /* radius of the bars, the unit of every other size */
    float floor;      /* height (along up) of the floor grid: under the drawn model (just under
                         the road when there is one); users that know the whole motion may
                         lower it */
} EslScene;

EslScene *esl_scene_new(void);
void esl_scene_free(EslScene *scene);

/* Rebuild the drawables. poses: nbodies * 12 numbers (per body R row-major, then p;
 * x_now = R x_drawn + p), or NULL for the drawn configuration. violations: njoints numbers
 * (max |constraint residual| of each joint) or NULL. Reuses the storage; returns 0, or -1 when
 * out of memory. */
int esl_scene_build(EslScene *scene, const MbsModel *m, const double *poses,
                    const double *violations, const EslSceneOptions *options);

/* Append a trail: thin capsules joining n points (x, y, z each), e.g. the path of a centre of
 * mass during a run. Call after esl_scene_build. Returns 0, or -1 when out of memory. */
int esl_scene_add_trail(EslScene *scene, const float *points, int n, const float color[4],
                        int index);

/* Lane-change cones at n ground positions (x, y pairs), standing on the model's road (or at
 * the floor without one): an orange cone with a white band each, source ESL_SOURCE_CONE, index
 * their place in xy. For the paths of engine/vehicle (ISO 3888); call after esl_scene_build.
 * Returns 0, or -1 when out of memory. */
int esl_scene_add_cones(EslScene *scene, const MbsModel *m, const double *xy, int n);

/* The vehicle's body, which the chassis box draws and a follow camera follows by default: the
 * heaviest body that is not the ground (-1 when there is none). */
int esl_scene_vehicle_body(const MbsModel *m);
/* Centre of mass of body b in the state poses (NULL: drawn configuration). */
void esl_scene_body_center(const MbsModel *m, const double *poses, int b, float out[3]);
/* 1 when the model has wheels (`wheel` or `tyre` elements). */
int esl_scene_is_vehicle(const MbsModel *m);

/* Axis-aligned bounds (lo, hi) of the drawables as they are now, radii included; grows the
 * given box (start with lo = +inf, hi = -inf). */
void esl_scene_grow_bounds(const EslScene *scene, float lo[3], float hi[3]);

/* Colour scale for constraint violation: green at or below low, through yellow, to red at or
 * above high, interpolated on log10(v). */
void esl_scene_violation_color(double violation, double low, double high, float rgba[4]);

/* Index of the nearest drawable hit by the ray origin + t dir (t > 0), or -1. tolerance
 * (world units, >= 0) widens every element, so that thin ones can be picked. */
int esl_scene_pick(const EslScene *scene, const float origin[3], const float dir[3],
                   float tolerance);

#endif
