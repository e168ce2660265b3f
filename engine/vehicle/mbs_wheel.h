/* The wheel force element (force_wheel.c): what the scene and monitors ask of it. */
#ifndef MBS_WHEEL_H
#define MBS_WHEEL_H

#include "mbs_force.h"
#include "mbs_road.h"

/* What a wheel's contact is at an instant (for monitors, plots and tests). */
typedef struct {
    double delta;            /* tyre deflection, m (0 off the road) */
    double fz, fx, fy, mz;   /* the law's input load and outputs, contact frame */
    double kappa, alpha;     /* the slips the law used */
    double vsx;              /* longitudinal slip velocity of the contact point, m/s */
    double gamma;            /* inclination, rad */
} MbsWheelInfo;

/* The unloaded radius of wheel element f (its law's), or of a `tyre` element (its field). */
double mbs_force_wheel_radius(const MbsForce *f);
/* The section width of wheel element f's tyre (its law's: a .tir file's WIDTH, m); 0 when the
 * law or file gives none, or for another element (drawings then take a fraction of the radius). */
double mbs_force_wheel_width(const MbsForce *f);
/* The road a `tyre` element rolls on (its own: a plane at bump[2] with a half-cylinder of radius
 * bump[1] at x = bump[0], force_tyre.c), as an MbsRoad for drawing with mbs_road_eval; NULL for
 * another element or no memory. Free with mbs_road_free. */
MbsRoad *mbs_force_tyre_road(const MbsForce *f);
/* The contact of wheel f with road at centre r, velocity v, spin axis a, angular velocity w
 * (global): force and torque about the centre, and info (may be NULL). */
void mbs_force_wheel_contact(const MbsForce *f, const MbsRoad *road, const double r[3],
                             const double v[3], const double a[3], const double w[3],
                             double force[3], double torque[3], MbsWheelInfo *info);

#endif
