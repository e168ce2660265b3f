/* What esl-scene.c shares with esl-scene-vehicle.c (tyres, chassis, road, cones). */
#ifndef ESL_SCENE_PRIVATE_H
#define ESL_SCENE_PRIVATE_H

#include "esl-scene.h"

/* pose: 12 numbers (R row-major, then p) or NULL (identity). */
void esl_scene_transform(const double *pose, const double x[3], float out[3]);
void esl_scene_rotate(const double *pose, const double v[3], float out[3]);
float esl_scene_dist3(const float a[3], const float b[3]);
void esl_scene_unit(float v[3]);
const double *esl_scene_body_pose(const double *poses, int body);
/* A new drawable (zeroed but for kind, source, index and colour); NULL when out of memory. */
EslDrawable *esl_scene_push(EslScene *s, EslDrawableKind kind, EslDrawableSource source,
                            int index, const float color[4]);
/* Cylinder of given length centred at c along axis. */
EslDrawable *esl_scene_add_axis_cylinder(EslScene *s, EslDrawableSource source, int index,
                                         const float color[4], const float c[3],
                                         const float axis[3], float length, float radius);

/* esl-scene-vehicle.c */
/* 1 when body b carries a tyre (it is drawn as the tyre, not as bars). */
int esl_scene_carries_tyre(const MbsModel *m, int b);
/* The tyre of force i (a `wheel` or `tyre` element). */
int esl_scene_add_tyre(EslScene *s, const MbsModel *m, int i, const double *poses,
                       const float color[4]);
/* 1 when body b of a vehicle whose heaviest body is vehicle_body is drawn as a box: that body,
 * and any other of at least a tenth of its mass that carries no tyre (a truck's tractor beside
 * its semi-trailer, the coach's second bodywork half). */
int esl_scene_is_frame(const MbsModel *m, int b, int vehicle_body);
/* The chassis box of body b; 0 when drawn, 1 when it has no box (drawn as bars), -1 no memory. */
int esl_scene_add_chassis(EslScene *s, const MbsModel *m, int b, const double *poses,
                          const float color[4]);
/* The road surface around the vehicle; sets s->floor under it. */
int esl_scene_add_road(EslScene *s, const MbsModel *m, const double *poses);

#endif
