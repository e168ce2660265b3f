/* The driver's force elements (force_path_follower.c, force_speed_control.c): what monitors,
 * plots and tests ask of them. Both have the geometry MBS_FORCE_CONTROL (mbs_force.h): they act
 * on a joint's coordinate and read a body (the chassis: point1 of body1 and its forward axis).
 * The heading they use is the forward axis projected on the road's XY plane. */
#ifndef MBS_DRIVER_H
#define MBS_DRIVER_H

#include "mbs_error.h"
#include "mbs_force.h"

/* What a path follower sees and commands at an instant. */
typedef struct {
    double lateral_error;  /* y of the look-ahead point minus the path's y at its x (m) */
    double error_rate;     /* its time derivative (m/s) */
    double command;        /* the steering joint's commanded coordinate (joint units) */
    double force;          /* the servo's generalized force on the joint */
    double preview_x, preview_y; /* the look-ahead point */
} MbsPathFollowerInfo;

/* What a speed controller sees and applies. */
typedef struct {
    double speed;        /* of point1 along the heading (m/s) */
    double target_speed; /* m/s */
    double torque;       /* on the joint (N m) */
    double integral;     /* the integrated speed error v* t - (S - S0) (m): force_speed_control.c */
} MbsSpeedControlInfo;

void mbs_path_follower_info(const MbsForce *f, const MbsForceInput *in, MbsPathFollowerInfo *info);
void mbs_speed_control_info(const MbsForce *f, const MbsForceInput *in, MbsSpeedControlInfo *info);

/* Both read a heading: their 'forward' axis must not be vertical (the heading is its projection
 * on the road's XY plane). 0, or -1 with err naming the element. */
static inline int mbs_driver_check_heading(const MbsForce *f, const char *name, MbsError *err)
{
    if (f->axis[0] * f->axis[0] + f->axis[1] * f->axis[1] > 1e-12)
        return 0;
    return mbs_error_set(err, MBS_FATAL, "force '%s': 'forward' must not be vertical (the "
                         "heading is its projection on the road's XY plane)", name);
}

#endif
