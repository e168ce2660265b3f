/* Plottable variables of a run; see esl-variables.h. */
#include "esl-variables.h"

#include <glib/gi18n.h>
#include <math.h>
#include <string.h>

#include "esl-points.h"
#include "mbs_driver.h"
#include "mbs_force.h"
#include "mbs_linalg.h"
#include "mbs_path.h"
#include "mbs_wheel.h"

const EslVariableKind esl_variable_kinds[] = {
    {"x", ESL_VARIABLE_POINT, 0, "m", N_("position x")},
    {"y", ESL_VARIABLE_POINT, 1, "m", N_("position y")},
    {"z", ESL_VARIABLE_POINT, 2, "m", N_("position z")},
    {"vx", ESL_VARIABLE_POINT, 3, "m/s", N_("velocity x")},
    {"vy", ESL_VARIABLE_POINT, 4, "m/s", N_("velocity y")},
    {"vz", ESL_VARIABLE_POINT, 5, "m/s", N_("velocity z")},
    {"ax", ESL_VARIABLE_POINT, 6, "m/s²", N_("acceleration x")},
    {"ay", ESL_VARIABLE_POINT, 7, "m/s²", N_("acceleration y")},
    {"az", ESL_VARIABLE_POINT, 8, "m/s²", N_("acceleration z")},
    {"violation", ESL_VARIABLE_JOINT, ESL_JOINT_VIOLATION, "", N_("constraint violation")},
    {"angle", ESL_VARIABLE_JOINT, ESL_JOINT_ANGLE, "rad", N_("angle")},
    {"angle_rate", ESL_VARIABLE_JOINT, ESL_JOINT_ANGLE_RATE, "rad/s", N_("angular rate")},
    {"slide", ESL_VARIABLE_JOINT, ESL_JOINT_SLIDE, "m", N_("slide")},
    {"slide_rate", ESL_VARIABLE_JOINT, ESL_JOINT_SLIDE_RATE, "m/s", N_("slide rate")},
    {"kinetic", ESL_VARIABLE_BODY, ESL_BODY_KINETIC, "J", N_("kinetic energy")},
    {"potential", ESL_VARIABLE_BODY, ESL_BODY_POTENTIAL, "J", N_("potential energy (gravity)")},
    {"speed", ESL_VARIABLE_BODY, ESL_BODY_SPEED, "m/s", N_("horizontal speed")},
    {"yaw", ESL_VARIABLE_BODY, ESL_BODY_YAW, "rad", N_("yaw angle")},
    {"pitch", ESL_VARIABLE_BODY, ESL_BODY_PITCH, "rad", N_("pitch angle")},
    {"roll", ESL_VARIABLE_BODY, ESL_BODY_ROLL, "rad", N_("roll angle")},
    {"yaw_rate", ESL_VARIABLE_BODY, ESL_BODY_YAW_RATE, "rad/s", N_("yaw rate")},
    {"lateral_acceleration", ESL_VARIABLE_BODY, ESL_BODY_LATERAL_ACCELERATION, "m/s²",
     N_("lateral acceleration")},
    {"fz", ESL_VARIABLE_FORCE, ESL_FORCE_FZ, "N", N_("tyre vertical load Fz")},
    {"fx", ESL_VARIABLE_FORCE, ESL_FORCE_FX, "N", N_("tyre longitudinal force Fx")},
    {"fy", ESL_VARIABLE_FORCE, ESL_FORCE_FY, "N", N_("tyre lateral force Fy")},
    {"mz", ESL_VARIABLE_FORCE, ESL_FORCE_MZ, "N·m", N_("tyre aligning moment Mz")},
    {"kappa", ESL_VARIABLE_FORCE, ESL_FORCE_KAPPA, "", N_("longitudinal slip κ")},
    {"alpha", ESL_VARIABLE_FORCE, ESL_FORCE_ALPHA, "rad", N_("slip angle α")},
    {"lateral_error", ESL_VARIABLE_FORCE, ESL_FORCE_LATERAL_ERROR, "m",
     N_("look-ahead point's lateral error")},
    {"steering_command", ESL_VARIABLE_FORCE, ESL_FORCE_STEERING_COMMAND, "",
     N_("steering command")},
    {"target_y", ESL_VARIABLE_FORCE, ESL_FORCE_TARGET_Y, "m", N_("path's y (target)")},
    {"actual_y", ESL_VARIABLE_FORCE, ESL_FORCE_ACTUAL_Y, "m", N_("chassis point's y (actual)")},
    {"measured_speed", ESL_VARIABLE_FORCE, ESL_FORCE_MEASURED_SPEED, "m/s",
     N_("speed (measured)")},
    {"target_speed", ESL_VARIABLE_FORCE, ESL_FORCE_TARGET_SPEED, "m/s", N_("speed (target)")},
    {"drive_torque", ESL_VARIABLE_FORCE, ESL_FORCE_DRIVE_TORQUE, "N·m", N_("drive torque")},
    {"speed_integral", ESL_VARIABLE_FORCE, ESL_FORCE_SPEED_INTEGRAL, "m",
     N_("integrated speed error")},
};
const int esl_variable_kind_count = G_N_ELEMENTS(esl_variable_kinds);

/* Which force kind a force quantity belongs to. */
static MbsForceType force_quantity_type(EslForceQuantity q)
{
    return q <= ESL_FORCE_ALPHA             ? MBS_FORCE_WHEEL
           : q <= ESL_FORCE_ACTUAL_Y        ? MBS_FORCE_PATH_FOLLOWER
                                            : MBS_FORCE_SPEED_CONTROL;
}

gboolean esl_variable_applies(const MbsModel *m, const EslVariableKind *kind, int index)
{
    switch (kind->element) {
    case ESL_VARIABLE_FORCE:
        return index >= 0 && index < m->nforces &&
               m->forces[index].type == force_quantity_type((EslForceQuantity)kind->component);
    case ESL_VARIABLE_POINT:
        return index >= 0 && index < m->npoints;
    case ESL_VARIABLE_BODY:
        if (kind->component >= ESL_BODY_SPEED && !m->road)
            return FALSE; /* the vehicle quantities: models with a road */
        return index >= 0 && index < m->nbodies && index != m->ground;
    case ESL_VARIABLE_JOINT:
        if (index < 0 || index >= m->njoints)
            return FALSE;
        switch ((EslJointQuantity)kind->component) {
        case ESL_JOINT_ANGLE:
        case ESL_JOINT_ANGLE_RATE:
            return m->joints[index].type == MBS_JOINT_REVOLUTE;
        case ESL_JOINT_SLIDE:
        case ESL_JOINT_SLIDE_RATE:
            return m->joints[index].type == MBS_JOINT_PRISMATIC;
        case ESL_JOINT_VIOLATION:
            return TRUE;
        }
    }
    return FALSE;
}

gboolean esl_variable_parse(const MbsModel *m, const char *name, EslVariable *out,
                            GError **error)
{
    const char *colon = name ? strrchr(name, ':') : NULL;
    for (int k = 0; colon && k < esl_variable_kind_count; k++) {
        const EslVariableKind *kind = &esl_variable_kinds[k];
        if (strcmp(colon + 1, kind->suffix) != 0)
            continue;
        g_autofree char *element = g_strndup(name, (gsize)(colon - name));
        int index = -1;
        if (kind->element == ESL_VARIABLE_JOINT) {
            index = mbs_model_find_joint(m, element);
        } else if (kind->element == ESL_VARIABLE_BODY) {
            index = mbs_model_find_body(m, element);
        } else if (kind->element == ESL_VARIABLE_FORCE) {
            for (int f = 0; f < m->nforces && index < 0; f++)
                if (!strcmp(m->forces[f].name, element))
                    index = f;
        } else {
            g_autoptr(GArray) points = esl_points_parse(m, element, NULL);
            index = points && points->len == 1 ? g_array_index(points, int, 0) : -1;
        }
        if (index >= 0 && esl_variable_applies(m, kind, index)) {
            *out = (EslVariable){kind, index};
            return TRUE;
        }
    }
    g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                "'%s' is not a variable of this model (BODY:POINT:x|y|z|vx|vy|vz|ax|ay|az, "
                "JOINT:violation, REVOLUTE:angle|angle_rate, PRISMATIC:slide|slide_rate, "
                "BODY:kinetic|potential of a moving body; with a road BODY:speed|yaw|pitch|roll|"
                "yaw_rate, WHEEL:fz|fx|fy|mz|kappa|alpha, FOLLOWER:lateral_error|"
                "steering_command|target_y|actual_y, CONTROL:measured_speed|target_speed|"
                "drive_torque|speed_integral)",
                name ? name : "");
    return FALSE;
}

GArray *esl_variables_parse(const MbsModel *m, const char *spec, GError **error)
{
    GArray *variables = g_array_new(FALSE, FALSE, sizeof(EslVariable));
    g_auto(GStrv) names = g_strsplit(spec ? spec : "", ",", -1);
    for (int k = 0; names[k]; k++) {
        EslVariable v;
        if (!esl_variable_parse(m, names[k], &v, error)) {
            g_array_unref(variables);
            return NULL;
        }
        g_array_append_val(variables, v);
    }
    return variables;
}

char *esl_variable_name(const MbsModel *m, const EslVariable *v)
{
    if (v->kind->element == ESL_VARIABLE_JOINT)
        return g_strdup_printf("%s:%s", m->joints[v->index].name, v->kind->suffix);
    if (v->kind->element == ESL_VARIABLE_BODY)
        return g_strdup_printf("%s:%s", m->bodies[v->index].name, v->kind->suffix);
    if (v->kind->element == ESL_VARIABLE_FORCE)
        return g_strdup_printf("%s:%s", m->forces[v->index].name, v->kind->suffix);
    const MbsPoint *p = &m->points[v->index];
    return g_strdup_printf("%s:%s:%s", m->bodies[p->body].name, p->name, v->kind->suffix);
}

/* ---- body velocities ------------------------------------------------------------------- */

static void centre_of_mass(const MbsModel *m, const double *poses, int b, double g[3])
{
    mbs_m3_mulv(poses + 12 * b, m->bodies[b].com, g);
    mbs_v3_add(g, poses + 12 * b + 9, g);
}

void esl_body_velocities_from_formulation(const MbsFormulation *f, double *velocities)
{
    const MbsModel *m = f->model;
    for (int b = 0; b < m->nbodies; b++) {
        double *vg = velocities + 6 * b, *w = vg + 3;
        memset(vg, 0, 6 * sizeof(double));
        if (b == m->ground)
            continue;
        double R[9], p[3], g[3];
        mbs_formulation_body_pose(f, b, R, p);
        mbs_m3_mulv(R, m->bodies[b].com, g);
        mbs_v3_add(g, p, g);
        f->klass->point_velocity(f, b, g, vg);
        for (int i = 0; i < 3; i++) {
            double r[3] = {g[0], g[1], g[2]}, vr[3], dv[3], c[3];
            r[i] += 1.0;
            f->klass->point_velocity(f, b, r, vr);
            mbs_v3_sub(vr, vg, dv);
            /* e_i x dv */
            double e[3] = {0, 0, 0};
            e[i] = 1.0;
            mbs_v3_cross(e, dv, c);
            mbs_v3_axpy(0.5, c, w);
        }
    }
}

void esl_body_velocities_from_poses(const MbsModel *m, const double *time, const double *poses,
                                    int n, double *velocities)
{
    size_t stride = 12 * (size_t)m->nbodies;
    for (int k = 0; k < n; k++) {
        int a = k > 0 ? k - 1 : 0, c = k < n - 1 ? k + 1 : n - 1;
        double dt = time[c] - time[a];
        const double *Pa = poses + a * stride, *Pc = poses + c * stride, *Pk = poses + k * stride;
        for (int b = 0; b < m->nbodies; b++) {
            double *vg = velocities + ((size_t)k * m->nbodies + b) * 6, *w = vg + 3;
            memset(vg, 0, 6 * sizeof(double));
            if (b == m->ground || !(dt > 0))
                continue;
            double ga[3], gc[3];
            centre_of_mass(m, Pa, b, ga);
            centre_of_mass(m, Pc, b, gc);
            for (int i = 0; i < 3; i++)
                vg[i] = (gc[i] - ga[i]) / dt;
            /* W = dR/dt R^T is skew: w = (W21 - W12, W02 - W20, W10 - W01) / 2 */
            const double *Ra = Pa + 12 * b, *Rc = Pc + 12 * b, *R = Pk + 12 * b;
            double W[9];
            for (int i = 0; i < 3; i++)
                for (int j = 0; j < 3; j++) {
                    double s = 0;
                    for (int l = 0; l < 3; l++)
                        s += (Rc[3 * i + l] - Ra[3 * i + l]) / dt * R[3 * j + l];
                    W[3 * i + j] = s;
                }
            w[0] = 0.5 * (W[7] - W[5]);
            w[1] = 0.5 * (W[2] - W[6]);
            w[2] = 0.5 * (W[3] - W[1]);
        }
    }
}

/* ---- values ---------------------------------------------------------------------------- */

/* A unit vector perpendicular to the unit a. */
static void perpendicular(const double a[3], double u[3])
{
    int least = 0;
    for (int i = 1; i < 3; i++)
        if (fabs(a[i]) < fabs(a[least]))
            least = i;
    double e[3] = {0, 0, 0};
    e[least] = 1.0;
    mbs_v3_cross(a, e, u);
    mbs_v3_unit(u, u);
}

/* R^T x */
static void transpose_mulv(const double R[9], const double x[3], double out[3])
{
    for (int i = 0; i < 3; i++)
        out[i] = R[i] * x[0] + R[3 + i] * x[1] + R[6 + i] * x[2];
}

/* Rotation of body2 relative to body1 about the joint axis (drawn, body1's frame): with u
 * perpendicular to the axis a, body2 turns u into R1^T R2 u; the angle is that of its
 * projection on the plane of u and a x u. 0 in the drawn configuration. */
static double joint_angle(const MbsJoint *J, const double *pose1, const double *pose2)
{
    double u[3], Ru[3], rel[3], au[3];
    perpendicular(J->axis1, u);
    mbs_m3_mulv(pose2, u, Ru);
    transpose_mulv(pose1, Ru, rel);
    mbs_v3_cross(J->axis1, u, au);
    return atan2(mbs_v3_dot(au, rel), mbs_v3_dot(u, rel));
}

/* Velocity of the material point of a body now at r. */
static void body_point_velocity(const MbsModel *m, const double *poses, const double *vel,
                                int b, const double r[3], double v[3])
{
    double g[3], d[3], c[3];
    centre_of_mass(m, poses, b, g);
    mbs_v3_sub(r, g, d);
    mbs_v3_cross(vel + 6 * b + 3, d, c);
    mbs_v3_add(vel + 6 * b, c, v);
}

static double joint_value(const MbsModel *m, const EslVariable *v, const double *poses,
                          const double *vel, const double *violations)
{
    const MbsJoint *J = &m->joints[v->index];
    const double *P1 = poses + 12 * J->body1, *P2 = poses + 12 * J->body2;
    double axis[3];
    mbs_m3_mulv(P1, J->axis1, axis); /* the axis now, carried by body1 */
    switch ((EslJointQuantity)v->kind->component) {
    case ESL_JOINT_VIOLATION:
        return violations ? violations[v->index] : 0.0;
    case ESL_JOINT_ANGLE:
        return joint_angle(J, P1, P2);
    case ESL_JOINT_ANGLE_RATE: {
        double w[3];
        mbs_v3_sub(vel + 6 * J->body2 + 3, vel + 6 * J->body1 + 3, w);
        return mbs_v3_dot(axis, w);
    }
    case ESL_JOINT_SLIDE:
    case ESL_JOINT_SLIDE_RATE: {
        double x1[3], x2[3], d[3];
        mbs_m3_mulv(P1, J->point1, x1);
        mbs_v3_add(x1, P1 + 9, x1);
        mbs_m3_mulv(P2, J->point2, x2);
        mbs_v3_add(x2, P2 + 9, x2);
        mbs_v3_sub(x2, x1, d);
        if (v->kind->component == ESL_JOINT_SLIDE)
            return mbs_v3_dot(axis, d);
        /* d/dt (a . d) = (w1 x a) . d + a . (v2(x2) - v1(x1)) */
        double v1[3], v2[3], dv[3], wa[3];
        body_point_velocity(m, poses, vel, J->body1, x1, v1);
        body_point_velocity(m, poses, vel, J->body2, x2, v2);
        mbs_v3_sub(v2, v1, dv);
        mbs_v3_cross(vel + 6 * J->body1 + 3, axis, wa);
        return mbs_v3_dot(wa, d) + mbs_v3_dot(axis, dv);
    }
    }
    return 0.0;
}

/* The kinetic energy as mbs_energy.c writes it: 1/2 (m v_G.v_G + w0 . J0 w0), w0 = R^T w,
 * J0 the inertia about G in drawn axes. */
static double body_value(const MbsModel *m, const EslVariable *v, const double *poses,
                         const double *vel)
{
    const MbsBody *B = &m->bodies[v->index];
    const double *R = poses + 12 * v->index, *vg = vel + 6 * v->index;
    switch ((EslBodyQuantity)v->kind->component) {
    case ESL_BODY_SPEED:
        return hypot(vg[0], vg[1]);
    case ESL_BODY_YAW: /* R = Rz(yaw) Ry(pitch) Rx(roll) */
        return atan2(R[3], R[0]);
    case ESL_BODY_PITCH:
        return -asin(fmax(-1.0, fmin(1.0, R[6])));
    case ESL_BODY_ROLL:
        return atan2(R[7], R[8]);
    case ESL_BODY_YAW_RATE:
        return vg[5];
    case ESL_BODY_LATERAL_ACCELERATION:
        return NAN; /* accelerations need more than one state */
    case ESL_BODY_KINETIC:
    case ESL_BODY_POTENTIAL:
        break;
    }
    if (v->kind->component == ESL_BODY_POTENTIAL) {
        double g[3];
        centre_of_mass(m, poses, v->index, g);
        return -B->mass * mbs_v3_dot(m->gravity, g);
    }
    const double *w = vg + 3;
    double w0[3], Jw[3];
    transpose_mulv(poses + 12 * v->index, w, w0);
    mbs_m3_mulv(B->inertia, w0, Jw);
    return 0.5 * (B->mass * mbs_v3_dot(vg, vg) + mbs_v3_dot(w0, Jw));
}

/* What force element F's law reads, from the poses and body velocities (wheel and control
 * geometries: the body's point, its velocity, its turned axis, its angular velocity; a control
 * element's joint coordinate and rate as the joint variables compute them). */
static void force_input(const MbsModel *m, const MbsForce *F, double time, const double *poses,
                        const double *vel, MbsForceInput *in)
{
    memset(in, 0, sizeof *in);
    in->time = time;
    const double *P = poses + 12 * F->body1;
    mbs_m3_mulv(P, F->point1, in->r);
    mbs_v3_add(in->r, P + 9, in->r);
    body_point_velocity(m, poses, vel, F->body1, in->r, in->v);
    mbs_m3_mulv(P, F->axis, in->axis);
    memcpy(in->omega, vel + 6 * F->body1 + 3, sizeof in->omega);
    in->road = m->road;
    in->path = m->path;
    if (F->type == MBS_FORCE_WHEEL)
        return;
    int revolute = m->joints[F->joint].type == MBS_JOINT_REVOLUTE;
    const EslVariableKind coordinate = {"", ESL_VARIABLE_JOINT,
                                        revolute ? ESL_JOINT_ANGLE : ESL_JOINT_SLIDE, "", ""};
    const EslVariableKind rate = {"", ESL_VARIABLE_JOINT,
                                  revolute ? ESL_JOINT_ANGLE_RATE : ESL_JOINT_SLIDE_RATE, "", ""};
    in->value = joint_value(m, &(EslVariable){&coordinate, F->joint}, poses, vel, NULL);
    in->rate = joint_value(m, &(EslVariable){&rate, F->joint}, poses, vel, NULL);
}

static double force_value(const MbsModel *m, const EslVariable *v, double time,
                          const double *poses, const double *vel)
{
    const MbsForce *F = &m->forces[v->index];
    MbsForceInput in;
    force_input(m, F, time, poses, vel, &in);
    EslForceQuantity q = (EslForceQuantity)v->kind->component;
    if (F->type == MBS_FORCE_WHEEL) {
        double force[3], torque[3];
        MbsWheelInfo w;
        mbs_force_wheel_contact(F, m->road, in.r, in.v, in.axis, in.omega, force, torque, &w);
        const double values[] = {w.fz, w.fx, w.fy, w.mz, w.kappa, w.alpha};
        return values[q - ESL_FORCE_FZ];
    }
    if (F->type == MBS_FORCE_PATH_FOLLOWER) {
        MbsPathFollowerInfo p;
        mbs_path_follower_info(F, &in, &p);
        double y = 0.0, slope, curvature;
        if (m->path)
            mbs_path_eval(m->path, in.r[0], &y, &slope, &curvature);
        const double values[] = {p.lateral_error, p.command, y, in.r[1]};
        return values[q - ESL_FORCE_LATERAL_ERROR];
    }
    MbsSpeedControlInfo s;
    mbs_speed_control_info(F, &in, &s);
    const double values[] = {s.speed, s.target_speed, s.torque, s.integral};
    return values[q - ESL_FORCE_MEASURED_SPEED];
}

double esl_variable_value(const MbsModel *m, const EslVariable *v, double time,
                          const double *poses, const double *velocities,
                          const double *violations)
{
    if (v->kind->element == ESL_VARIABLE_FORCE)
        return force_value(m, v, time, poses, velocities);
    if (v->kind->element == ESL_VARIABLE_JOINT)
        return joint_value(m, v, poses, velocities, violations);
    if (v->kind->element == ESL_VARIABLE_BODY)
        return body_value(m, v, poses, velocities);
    const MbsPoint *p = &m->points[v->index];
    int axis = v->kind->component % 3;
    double r[3], vr[3];
    esl_points_from_poses(m, poses, &v->index, 1, r);
    if (v->kind->component < 3)
        return r[axis];
    if (v->kind->component < 6 && p->body != m->ground) {
        body_point_velocity(m, poses, velocities, p->body, r, vr);
        return vr[axis];
    }
    /* accelerations need more than one state */
    return v->kind->component < 6 ? 0.0 : NAN;
}

gboolean esl_variable_is_instantaneous(const EslVariable *v)
{
    if (v->kind->element == ESL_VARIABLE_BODY)
        return v->kind->component != ESL_BODY_LATERAL_ACCELERATION;
    return v->kind->element != ESL_VARIABLE_POINT || v->kind->component < 6;
}

double esl_variable_unwrap(const EslVariable *v, double previous, double value)
{
    if (v->kind->element != ESL_VARIABLE_JOINT || v->kind->component != ESL_JOINT_ANGLE ||
        !isfinite(previous))
        return value;
    return value + 2 * G_PI * round((previous - value) / (2 * G_PI));
}

static void point_series(const MbsModel *m, const EslVariable *v, const double *time,
                         const double *poses, int n, double *y)
{
    g_autofree double *xyz = g_new0(double, 3 * (size_t)n + 1);
    g_autofree double *vel = g_new0(double, 3 * (size_t)n + 1);
    esl_points_history(m, time, poses, n, &v->index, 1, xyz, vel);
    int axis = v->kind->component % 3;
    if (v->kind->component < 3) {
        for (int k = 0; k < n; k++)
            y[k] = xyz[3 * k + axis];
        return;
    }
    if (v->kind->component < 6) {
        for (int k = 0; k < n; k++)
            y[k] = vel[3 * k + axis];
        return;
    }
    /* acceleration: the same differences, of the velocities */
    for (int k = 0; k < n; k++) {
        int a = k > 0 ? k - 1 : 0, b = k < n - 1 ? k + 1 : n - 1;
        double dt = time[b] - time[a];
        y[k] = dt > 0 ? (vel[3 * b + axis] - vel[3 * a + axis]) / dt : 0.0;
    }
}

void esl_variable_series(const MbsModel *m, const EslVariable *v, const double *time,
                         const double *poses, const double *violations, int n, double *y)
{
    if (v->kind->element == ESL_VARIABLE_POINT) {
        point_series(m, v, time, poses, n, y);
        return;
    }
    g_autofree double *vel = g_new0(double, (size_t)n * 6 * m->nbodies + 1);
    esl_body_velocities_from_poses(m, time, poses, n, vel);
    if (v->kind->element == ESL_VARIABLE_BODY &&
        v->kind->component == ESL_BODY_LATERAL_ACCELERATION) {
        /* differences of the centre of mass's velocities, along the horizontal left of the
         * body's drawn X */
        size_t stride = 6 * (size_t)m->nbodies;
        for (int k = 0; k < n; k++) {
            int a = k > 0 ? k - 1 : 0, b = k < n - 1 ? k + 1 : n - 1;
            double dt = time[b] - time[a];
            const double *R = poses + (size_t)k * 12 * m->nbodies + 12 * v->index;
            const double *va = vel + a * stride + 6 * v->index, *vb = vel + b * stride + 6 * v->index;
            double hl = hypot(R[0], R[3]);
            y[k] = dt > 0 && hl > 0 ? ((vb[1] - va[1]) * R[0] - (vb[0] - va[0]) * R[3]) / (dt * hl)
                                    : 0.0;
        }
        return;
    }
    for (int k = 0; k < n; k++) {
        double value = esl_variable_value(m, v, time[k], poses + (size_t)k * 12 * m->nbodies,
                                          vel + (size_t)k * 6 * m->nbodies,
                                          violations ? violations + (size_t)k * m->njoints
                                                     : NULL);
        y[k] = k > 0 ? esl_variable_unwrap(v, y[k - 1], value) : value;
    }
}
