#include "mbs_model.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lapacke.h>

#include "mbs_force.h"
#include "mbs_linalg.h"
#include "mbs_path.h"
#include "mbs_road.h"
#include "mbs_topology.h"
#include "mbs_tyre_model.h"

static const char *const joint_type_names[MBS_JOINT_TYPE_COUNT] = {
    "revolute", "prismatic", "spherical", "universal", "rod",
};
static const int joint_type_dofs[MBS_JOINT_TYPE_COUNT] = {1, 1, 3, 2, 0};

const char *mbs_joint_type_name(MbsJointType type)
{
    return (unsigned)type < MBS_JOINT_TYPE_COUNT ? joint_type_names[type] : "unknown";
}

int mbs_joint_type_dofs(MbsJointType type)
{
    return (unsigned)type < MBS_JOINT_TYPE_COUNT ? joint_type_dofs[type] : 0;
}

MbsModel *mbs_model_new(const char *name)
{
    MbsModel *m = calloc(1, sizeof *m);
    if (!m)
        return NULL;
    snprintf(m->name, sizeof m->name, "%s", name ? name : "model");
    m->ground = -1;
    m->planar_normal = -1;
    return m;
}

void mbs_model_free(MbsModel *m)
{
    if (!m)
        return;
    mbs_topology_free(m->topo);
    free(m->bodies);
    free(m->points);
    free(m->joints);
    for (int i = 0; m->forces && i < m->nforces; ++i)
        if (m->forces[i].tyre_data)
            mbs_tyre_model_class_at(m->forces[i].tyre_law)->free_data(m->forces[i].tyre_data);
    free(m->forces);
    mbs_road_free(m->road);
    mbs_path_free(m->path);
    free(m->initial);
    free(m->parameters);
    free(m->dofs);
    free(m->objectives);
    free(m->objective_terms);
    mbs_model_clear_bindings(m);
    free(m);
}

/* Grow *array so that it holds one more element of size elem. */
static int grow(void **array, int count, int *cap, size_t elem)
{
    if (count < *cap)
        return 0;
    int ncap = *cap ? 2 * *cap : 8;
    void *p = realloc(*array, (size_t)ncap * elem);
    if (!p)
        return -1;
    memset((char *)p + (size_t)*cap * elem, 0, (size_t)(ncap - *cap) * elem);
    *array = p;
    *cap = ncap;
    return 0;
}

#define GROW(m, arr, count, cap, err)                                                     \
    do {                                                                                  \
        if (grow((void **)&(m)->arr, (m)->count, &(m)->cap, sizeof *(m)->arr))           \
            return mbs_error_set(err, MBS_FATAL, "out of memory"), -1;                    \
    } while (0)

static int check_open(const MbsModel *m, MbsError *err)
{
    if (m->topo)
        return mbs_error_set(err, MBS_FATAL, "model '%s' is compiled and read-only", m->name);
    return 0;
}

static int check_body(const MbsModel *m, int body, const char *what, MbsError *err)
{
    if (body < 0 || body >= m->nbodies)
        return mbs_error_set(err, MBS_FATAL, "%s: body index %d out of range", what, body);
    return 0;
}

static int check_finite(const double *v, int n, const char *what, MbsError *err)
{
    for (int i = 0; i < n; ++i)
        if (!isfinite(v[i]))
            return mbs_error_set(err, MBS_FATAL, "%s: value is not a finite number", what);
    return 0;
}

static int copy_name(char *dst, const char *name, const char *kind, MbsError *err)
{
    if (!name || !*name)
        return mbs_error_set(err, MBS_FATAL, "%s without a name", kind);
    if (strlen(name) >= MBS_NAME_MAX)
        return mbs_error_set(err, MBS_FATAL, "%s name '%.20s...' longer than %d characters",
                             kind, name, MBS_NAME_MAX - 1);
    strcpy(dst, name);
    return 0;
}

/* Principal moments non-negative and satisfying the triangle inequality (a real mass
 * distribution), with a relative tolerance for round-off. */
static int physical_inertia(const double tensor[9])
{
    double a[9], w[3];
    memcpy(a, tensor, sizeof a);
    if (LAPACKE_dsyev(LAPACK_ROW_MAJOR, 'N', 'U', 3, a, 3, w) != 0)
        return 0;
    double tol = 1e-9 * (fabs(w[0]) + fabs(w[1]) + fabs(w[2]) + 1e-300);
    return w[0] >= -tol && w[2] <= w[0] + w[1] + tol;
}

int mbs_model_add_ground(MbsModel *m, const char *name, MbsError *err)
{
    if (m->ground >= 0)
        return mbs_error_set(err, MBS_FATAL, "body '%s': the model already has a ground ('%s')",
                             name ? name : "?", m->bodies[m->ground].name), -1;
    double zero[3] = {0, 0, 0}, no_inertia[9] = {0};
    int b = mbs_model_add_body(m, name, 0.0, zero, no_inertia, err);
    if (b >= 0) {
        m->bodies[b].is_ground = 1;
        m->ground = b;
    }
    return b;
}

int mbs_model_add_body(MbsModel *m, const char *name, double mass, const double com[3],
                       const double inertia[9], MbsError *err)
{
    if (check_open(m, err))
        return -1;
    if (mbs_model_find_body(m, name) >= 0)
        return mbs_error_set(err, MBS_FATAL, "body '%s' is defined twice", name), -1;
    if (!(mass >= 0.0) || !isfinite(mass))
        return mbs_error_set(err, MBS_FATAL, "body '%s': mass %g must be zero or positive",
                             name ? name : "?", mass), -1;
    char what[MBS_NAME_MAX + 32];
    snprintf(what, sizeof what, "body '%s': centre of mass", name ? name : "?");
    if (check_finite(com, 3, what, err))
        return -1;
    snprintf(what, sizeof what, "body '%s': inertia", name ? name : "?");
    if (check_finite(inertia, 9, what, err))
        return -1;
    for (int i = 0; i < 3; ++i) {
        if (inertia[4 * i] < 0.0)
            return mbs_error_set(err, MBS_FATAL,
                                 "body '%s': inertia tensor has a negative diagonal term",
                                 name ? name : "?"), -1;
        for (int j = 0; j < 3; ++j)
            if (fabs(inertia[3 * i + j] - inertia[3 * j + i]) > 1e-9 * (1.0 + fabs(inertia[3 * i + j])))
                return mbs_error_set(err, MBS_FATAL, "body '%s': inertia tensor is not symmetric",
                                     name ? name : "?"), -1;
    }
    if (!physical_inertia(inertia))
        return mbs_error_set(err, MBS_FATAL,
                             "body '%s': inertia tensor is not physical (principal moments must be "
                             "non-negative and each at most the sum of the other two)",
                             name ? name : "?"), -1;
    GROW(m, bodies, nbodies, cap_bodies, err);
    MbsBody *b = &m->bodies[m->nbodies];
    memset(b, 0, sizeof *b);
    if (copy_name(b->name, name, "body", err))
        return -1;
    b->mass = mass;
    memcpy(b->com, com, sizeof b->com);
    memcpy(b->inertia, inertia, sizeof b->inertia);
    return m->nbodies++;
}

int mbs_model_add_point(MbsModel *m, int body, const char *name, const double pos[3],
                        MbsError *err)
{
    char what[2 * MBS_NAME_MAX + 16];
    snprintf(what, sizeof what, "point '%s'", name ? name : "?");
    if (check_open(m, err) || check_body(m, body, what, err) || check_finite(pos, 3, what, err))
        return -1;
    if (mbs_model_find_point(m, body, name) >= 0)
        return mbs_error_set(err, MBS_FATAL, "body '%s': point '%s' is defined twice",
                             m->bodies[body].name, name), -1;
    GROW(m, points, npoints, cap_points, err);
    MbsPoint *p = &m->points[m->npoints];
    if (copy_name(p->name, name, "point", err))
        return -1;
    p->body = body;
    memcpy(p->pos, pos, sizeof p->pos);
    return m->npoints++;
}

static int unit_axis(const double in[3], double out[3], const char *joint, MbsError *err)
{
    if (check_finite(in, 3, joint, err))
        return -1;
    double unit[3];
    if (mbs_v3_unit(in, unit) < 1e-12)
        return mbs_error_set(err, MBS_FATAL, "joint '%s': axis has zero length", joint);
    memcpy(out, unit, sizeof unit);
    return 0;
}

static MbsJoint *new_joint(MbsModel *m, const char *name, MbsJointType type, int body1,
                           int body2, MbsError *err)
{
    if (check_open(m, err))
        return NULL;
    if (mbs_model_find_joint(m, name) >= 0)
        return mbs_error_set(err, MBS_FATAL, "joint '%s' is defined twice", name), NULL;
    if (check_body(m, body1, name, err) || check_body(m, body2, name, err))
        return NULL;
    if (body1 == body2)
        return mbs_error_set(err, MBS_FATAL, "joint '%s' connects body '%s' to itself", name,
                             m->bodies[body1].name), NULL;
    if (grow((void **)&m->joints, m->njoints, &m->cap_joints, sizeof *m->joints))
        return mbs_error_set(err, MBS_FATAL, "out of memory"), NULL;
    MbsJoint *j = &m->joints[m->njoints];
    memset(j, 0, sizeof *j);
    if (copy_name(j->name, name, "joint", err))
        return NULL;
    j->type = type;
    j->body1 = body1;
    j->body2 = body2;
    j->axis1[2] = j->axis2[2] = 1.0;
    return j;
}

int mbs_model_add_joint(MbsModel *m, const char *name, MbsJointType type, int body1, int body2,
                        const double point[3], const double axis[3], MbsError *err)
{
    if (type == MBS_JOINT_UNIVERSAL || type == MBS_JOINT_ROD || (unsigned)type >= MBS_JOINT_TYPE_COUNT)
        return mbs_error_set(err, MBS_FATAL,
                             "joint '%s': use the universal/rod builders for type %s", name,
                             mbs_joint_type_name(type)), -1;
    MbsJoint *j = new_joint(m, name, type, body1, body2, err);
    if (!j || check_finite(point, 3, name, err))
        return -1;
    memcpy(j->point1, point, sizeof j->point1);
    memcpy(j->point2, point, sizeof j->point2);
    if (type != MBS_JOINT_SPHERICAL) {
        if (unit_axis(axis, j->axis1, name, err))
            return -1;
        memcpy(j->axis2, j->axis1, sizeof j->axis2);
    }
    return m->njoints++;
}

int mbs_model_add_universal(MbsModel *m, const char *name, int body1, int body2,
                            const double point[3], const double axis1[3],
                            const double axis2[3], MbsError *err)
{
    MbsJoint *j = new_joint(m, name, MBS_JOINT_UNIVERSAL, body1, body2, err);
    if (!j || check_finite(point, 3, name, err) || unit_axis(axis1, j->axis1, name, err) ||
        unit_axis(axis2, j->axis2, name, err))
        return -1;
    if (fabs(mbs_v3_dot(j->axis1, j->axis2)) > 1.0 - 1e-6)
        return mbs_error_set(err, MBS_FATAL, "joint '%s': universal joint axes are parallel",
                             name), -1;
    memcpy(j->point1, point, sizeof j->point1);
    memcpy(j->point2, point, sizeof j->point2);
    return m->njoints++;
}

int mbs_model_add_rod(MbsModel *m, const char *name, int body1, const double point1[3],
                      int body2, const double point2[3], double length, MbsError *err)
{
    MbsJoint *j = new_joint(m, name, MBS_JOINT_ROD, body1, body2, err);
    if (!j || check_finite(point1, 3, name, err) || check_finite(point2, 3, name, err))
        return -1;
    memcpy(j->point1, point1, sizeof j->point1);
    memcpy(j->point2, point2, sizeof j->point2);
    double d[3];
    mbs_v3_sub(point1, point2, d);
    j->length = length < 0.0 ? mbs_v3_norm(d) : length;
    if (!(j->length > 0.0) || !isfinite(j->length))
        return mbs_error_set(err, MBS_FATAL, "rod '%s': length must be positive", name), -1;
    return m->njoints++;
}

int mbs_model_drive_joint(MbsModel *m, int joint, const MbsFunction *driver, MbsError *err)
{
    if (check_open(m, err))
        return -1;
    if (joint < 0 || joint >= m->njoints)
        return mbs_error_set(err, MBS_FATAL, "driver: joint index %d out of range (%d joints)",
                             joint, m->njoints);
    MbsJoint *j = &m->joints[joint];
    if (j->type != MBS_JOINT_REVOLUTE && j->type != MBS_JOINT_PRISMATIC)
        return mbs_error_set(err, MBS_FATAL,
                             "joint '%s': only revolute and prismatic joints can be driven (it is %s)",
                             j->name, mbs_joint_type_name(j->type));
    if (!driver)
        return mbs_error_set(err, MBS_FATAL, "joint '%s': driver function missing", j->name);
    if (driver->kind == MBS_FUNCTION_POLYNOMIAL &&
        (driver->ncoef < 1 || driver->ncoef > MBS_POLY_MAX))
        return mbs_error_set(err, MBS_FATAL, "joint '%s': a polynomial driver needs 1 to %d "
                             "coefficients (got %d)", j->name, MBS_POLY_MAX, driver->ncoef);
    if (driver->kind != MBS_FUNCTION_POLYNOMIAL && driver->kind != MBS_FUNCTION_SINE)
        return mbs_error_set(err, MBS_FATAL, "joint '%s': unknown driver function", j->name);
    double vals[4] = {driver->offset, driver->amplitude, driver->omega, driver->phase};
    char what[MBS_NAME_MAX + 32];
    snprintf(what, sizeof what, "joint '%s': driver", j->name);
    if (check_finite(vals, 4, what, err) ||
        (driver->kind == MBS_FUNCTION_POLYNOMIAL && check_finite(driver->coef, driver->ncoef, what, err)))
        return -1;
    for (int i = 0; i < m->ninitial; ++i)
        if (m->initial[i].joint == joint)
            return mbs_error_set(err, MBS_FATAL, "joint '%s': a driven joint cannot also have an "
                                 "initial condition", j->name);
    j->driven = 1;
    j->driver = *driver;
    return 0;
}

/* A wheel's multipliers of its law's scaling factors: finite, 1 past the law's factors (a law
 * without them takes none), and what the law accepts. */
static int check_tyre_scaling(const MbsForce *f, const char *name, MbsError *err)
{
    const MbsTyreModelClass *law = mbs_tyre_model_class_at(f->tyre_law);
    int n = mbs_tyre_scaling_count(law);
    if (check_finite(f->tyre_scale, MBS_FORCE_TYRE_SCALES, name, err))
        return -1;
    for (int i = n; i < MBS_FORCE_TYRE_SCALES; ++i)
        if (f->tyre_scale[i] != 1.0)
            return mbs_error_set(err, MBS_FATAL, "force '%s': the tyre law '%s' has %d scaling "
                                 "factors (a multiplier past them is not 1)", name, law->name, n);
    return n && law->check_scaling ? law->check_scaling(f->tyre_data, f->tyre_scale, name, err)
                                   : 0;
}

int mbs_model_add_force(MbsModel *m, const MbsForce *f, MbsError *err)
{
    if (check_open(m, err))
        return -1;
    const char *name = f->name[0] ? f->name : "force";
    const MbsForceClass *c = mbs_force_class(f->type);
    if (!c)
        return mbs_error_set(err, MBS_FATAL, "force '%s': unknown type", name);
    switch (c->geometry) {
    case MBS_FORCE_ON_LINE:
        if (check_body(m, f->body2, name, err))
            return -1;
        /* fall through */
    case MBS_FORCE_AT_POINT:
    case MBS_FORCE_ON_BODY:
        if (check_body(m, f->body1, name, err))
            return -1;
        break;
    case MBS_FORCE_ON_WHEEL:
        if (check_body(m, f->body1, name, err))
            return -1;
        if (!mbs_tyre_model_class_at(f->tyre_law))
            return mbs_error_set(err, MBS_FATAL, "force '%s': unknown tyre law", name);
        if (check_finite(f->axis, 3, name, err) || check_finite(f->tyre, MBS_FORCE_TYRE_NUMBERS,
                                                               name, err))
            return -1;
        if (mbs_v3_norm(f->axis) < 1e-12)
            return mbs_error_set(err, MBS_FATAL, "force '%s': the wheel's axis is zero", name);
        for (int i = 0; i < MBS_FORCE_TYRE_NUMBERS; ++i)
            if (f->tyre[i] < 0.0)
                return mbs_error_set(err, MBS_FATAL, "force '%s': the tyre's numbers must not be "
                                     "negative", name);
        if (!f->tyre_data && !(f->tyre[MBS_TYRE_LINEAR_RADIUS] > 0.0))
            return mbs_error_set(err, MBS_FATAL, "force '%s': the wheel's radius must be "
                                 "positive", name);
        if (f->tyre_scaled && check_tyre_scaling(f, name, err))
            return -1;
        break;
    case MBS_FORCE_CONTROL:
        if (check_body(m, f->body1, name, err) || check_finite(f->axis, 3, name, err))
            return -1;
        if (f->body1 == m->ground)
            return mbs_error_set(err, MBS_FATAL, "force '%s': a driver reads a moving body (the "
                                 "chassis), not the ground", name);
        /* it acts on a joint: */
        /* fall through */
    case MBS_FORCE_ON_JOINT:
        if (f->joint < 0 || f->joint >= m->njoints)
            return mbs_error_set(err, MBS_FATAL, "force '%s': joint index out of range", name);
        if (m->joints[f->joint].type != MBS_JOINT_REVOLUTE &&
            m->joints[f->joint].type != MBS_JOINT_PRISMATIC)
            return mbs_error_set(err, MBS_FATAL,
                                 "force '%s': a spring-damper on a joint coordinate needs a revolute "
                                 "or prismatic joint ('%s' is %s)",
                                 name, m->joints[f->joint].name,
                                 mbs_joint_type_name(m->joints[f->joint].type));
        break;
    }
    double nums[5] = {f->stiffness, f->damping, f->natural_length, f->preload, f->rest_angle};
    if (check_finite(nums, 5, name, err) || check_finite(f->vector, 3, name, err) ||
        check_finite(f->point1, 3, name, err) || check_finite(f->point2, 3, name, err))
        return -1;
    if (f->stiffness < 0.0 || f->damping < 0.0)
        return mbs_error_set(err, MBS_FATAL,
                             "force '%s': stiffness and damping must not be negative", name);
    if (c->check && c->check(f, name, err))
        return -1;
    if (c->geometry == MBS_FORCE_ON_LINE) {
        double d[3];
        mbs_v3_sub(f->point1, f->point2, d);
        if (f->natural_length < 0.0)
            return mbs_error_set(err, MBS_FATAL, "force '%s': natural length must not be negative",
                                 name);
        if (mbs_v3_norm(d) < 1e-9)
            return mbs_error_set(err, MBS_FATAL, "force '%s': the two points of a spring-damper "
                                 "coincide, so its line of action is undefined", name);
    }
    for (int i = 0; f->name[0] && i < m->nforces; ++i)
        if (!strcmp(m->forces[i].name, f->name))
            return mbs_error_set(err, MBS_FATAL, "force '%s' is defined twice", f->name);
    MbsTyreData *data = NULL;
    if (c->geometry == MBS_FORCE_ON_WHEEL && f->tyre_data &&
        !(data = mbs_tyre_model_class_at(f->tyre_law)->copy(f->tyre_data)))
        return mbs_error_set(err, MBS_FATAL, "out of memory");
    if (grow((void **)&m->forces, m->nforces, &m->cap_forces, sizeof *m->forces)) {
        if (data)
            mbs_tyre_model_class_at(f->tyre_law)->free_data(data);
        return mbs_error_set(err, MBS_FATAL, "out of memory");
    }
    m->forces[m->nforces] = *f;
    m->forces[m->nforces].tyre_data = data;
    if (c->geometry == MBS_FORCE_ON_WHEEL && !f->tyre_scaled) {
        for (int i = 0; i < MBS_FORCE_TYRE_SCALES; ++i)
            m->forces[m->nforces].tyre_scale[i] = 1.0;
        m->forces[m->nforces].tyre_scaled = 1;
    }

    if (!f->name[0])
        snprintf(m->forces[m->nforces].name, MBS_NAME_MAX, "force%d", m->nforces);
    return m->nforces++;
}

int mbs_model_set_road(MbsModel *m, const MbsRoad *road, MbsError *err)
{
    if (check_open(m, err))
        return -1;
    MbsRoad *copy = NULL;
    if (road && !(copy = mbs_road_copy(road)))
        return mbs_error_set(err, MBS_FATAL, "out of memory");
    mbs_road_free(m->road);
    m->road = copy;
    return 0;
}

int mbs_model_set_path(MbsModel *m, const MbsPath *path, MbsError *err)
{
    if (check_open(m, err))
        return -1;
    MbsPath *copy = NULL;
    if (path && !(copy = mbs_path_copy(path)))
        return mbs_error_set(err, MBS_FATAL, "out of memory");
    mbs_path_free(m->path);
    m->path = copy;
    return 0;
}

int mbs_model_set_planar(MbsModel *m, int axis, MbsError *err)
{
    if (axis < -1 || axis > 2)
        return mbs_error_set(err, MBS_FATAL, "planar: the normal must be X, Y or Z");
    m->planar_normal = axis;
    return 0;
}

/* A planar model's joints must keep its bodies in the plane (mbs_model_set_planar). */
static int check_planar(const MbsModel *m, MbsError *err)
{
    static const char axes[] = "XYZ";
    for (int j = 0; m->planar_normal >= 0 && j < m->njoints; ++j) {
        const MbsJoint *J = &m->joints[j];
        double along = fabs(J->axis1[m->planar_normal]);
        if (J->type == MBS_JOINT_SPHERICAL || J->type == MBS_JOINT_UNIVERSAL)
            return mbs_error_set(err, MBS_FATAL, "joint '%s': a %s joint in a planar model (use "
                                 "a revolute joint about %c)", J->name,
                                 mbs_joint_type_name(J->type), axes[m->planar_normal]);
        if (J->type == MBS_JOINT_REVOLUTE && along < 1.0 - 1e-12)
            return mbs_error_set(err, MBS_FATAL, "joint '%s': in a model planar about %c a "
                                 "revolute axis must be along %c", J->name,
                                 axes[m->planar_normal], axes[m->planar_normal]);
        if (J->type == MBS_JOINT_PRISMATIC && along > 1e-12)
            return mbs_error_set(err, MBS_FATAL, "joint '%s': in a model planar about %c a "
                                 "prismatic axis must lie in the plane", J->name,
                                 axes[m->planar_normal]);
    }
    return 0;
}

int mbs_model_set_point_velocity(MbsModel *m, int point, const double direction[3], double value,
                                 MbsError *err)
{
    if (point < 0 || point >= m->npoints)
        return mbs_error_set(err, MBS_FATAL, "initial velocity: point index out of range");
    const MbsPoint *p = &m->points[point];
    double u[3];
    if (!isfinite(value) || !isfinite(direction[0] + direction[1] + direction[2]))
        return mbs_error_set(err, MBS_FATAL, "initial velocity of point '%s' is not finite",
                             p->name);
    if (mbs_v3_unit(direction, u) == 0.0 || !isfinite(u[0] + u[1] + u[2]))
        return mbs_error_set(err, MBS_FATAL, "initial velocity of point '%s': the direction is "
                             "zero", p->name);
    if (m->bodies[p->body].is_ground)
        return mbs_error_set(err, MBS_FATAL, "initial velocity of point '%s': it is a point of "
                             "the ground", p->name);
    for (int i = 0; i < m->ninitial; ++i)
        if (m->initial[i].joint < 0 && m->initial[i].point == point &&
            fabs(mbs_v3_dot(m->initial[i].direction, u)) > 1.0 - 1e-12)
            return mbs_error_set(err, MBS_FATAL, "point '%s': initial velocity along this "
                                 "direction given twice", p->name);
    GROW(m, initial, ninitial, cap_initial, err);
    MbsInitialCondition *c = &m->initial[m->ninitial];
    *c = (MbsInitialCondition){.joint = -1, .is_velocity = 1, .value = value, .point = point};
    memcpy(c->direction, u, sizeof u);
    return m->ninitial++;
}

int mbs_model_set_initial(MbsModel *m, int joint, int coordinate, int is_velocity, double value,
                          MbsError *err)
{
    if (check_open(m, err))
        return -1;
    if (joint < 0 || joint >= m->njoints)
        return mbs_error_set(err, MBS_FATAL, "initial condition: joint index out of range");
    const MbsJoint *j = &m->joints[joint];
    if (coordinate < 0 || coordinate >= mbs_joint_type_dofs(j->type))
        return mbs_error_set(err, MBS_FATAL,
                             "initial condition: joint '%s' (%s) has no coordinate %d", j->name,
                             mbs_joint_type_name(j->type), coordinate);
    if (!isfinite(value))
        return mbs_error_set(err, MBS_FATAL, "initial condition of joint '%s' is not finite",
                             j->name);
    if (j->driven)
        return mbs_error_set(err, MBS_FATAL, "joint '%s' is driven: its motion is given, it "
                             "takes no initial condition", j->name);
    for (int i = 0; i < m->ninitial; ++i)
        if (m->initial[i].joint == joint && m->initial[i].coordinate == coordinate &&
            m->initial[i].is_velocity == is_velocity)
            return mbs_error_set(err, MBS_FATAL, "joint '%s': initial %s of coordinate %d given "
                                 "twice", j->name, is_velocity ? "velocity" : "position", coordinate);
    GROW(m, initial, ninitial, cap_initial, err);
    m->initial[m->ninitial] = (MbsInitialCondition){.joint = joint, .coordinate = coordinate,
                                                    .is_velocity = is_velocity, .value = value};
    return m->ninitial++;
}

int mbs_model_add_parameter(MbsModel *m, const char *name, double value, MbsError *err)
{
    if (check_open(m, err))
        return -1;
    if (!name || !*name)
        return mbs_error_set(err, MBS_FATAL, "parameter without a name"), -1;
    if (!isfinite(value))
        return mbs_error_set(err, MBS_FATAL, "parameter '%s' is not a finite number", name), -1;
    for (int i = 0; i < m->nparameters; ++i)
        if (!strcmp(m->parameters[i].name, name))
            return mbs_error_set(err, MBS_FATAL, "parameter '%s' is defined twice", name), -1;
    GROW(m, parameters, nparameters, cap_parameters, err);
    if (copy_name(m->parameters[m->nparameters].name, name, "parameter", err))
        return -1;
    m->parameters[m->nparameters].value = value;
    return m->nparameters++;
}

int mbs_model_add_dof(MbsModel *m, int joint, int coordinate, int point, int axis,
                      MbsError *err)
{
    if (check_open(m, err))
        return -1;
    if (joint >= 0) {
        if (joint >= m->njoints)
            return mbs_error_set(err, MBS_FATAL, "degree of freedom: joint index out of range"), -1;
        if (coordinate < 0 || coordinate >= mbs_joint_type_dofs(m->joints[joint].type))
            return mbs_error_set(err, MBS_FATAL, "degree of freedom: joint '%s' (%s) has no "
                                 "coordinate %d", m->joints[joint].name,
                                 mbs_joint_type_name(m->joints[joint].type), coordinate), -1;
        point = axis = -1;
    } else {
        if (point < 0 || point >= m->npoints || axis < 0 || axis > 2)
            return mbs_error_set(err, MBS_FATAL, "degree of freedom: needs a joint coordinate, "
                                 "or a point and an axis x, y or z"), -1;
        if (m->points[point].body == m->ground)
            return mbs_error_set(err, MBS_FATAL, "degree of freedom: point '%s' is on the ground",
                                 m->points[point].name), -1;
        coordinate = -1;
    }
    for (int i = 0; i < m->ndofs; ++i)
        if (m->dofs[i].joint == joint && m->dofs[i].coordinate == coordinate &&
            m->dofs[i].point == point && m->dofs[i].axis == axis)
            return mbs_error_set(err, MBS_FATAL, "degree of freedom given twice"), -1;
    GROW(m, dofs, ndofs, cap_dofs, err);
    m->dofs[m->ndofs] = (MbsDofChoice){joint, coordinate, point, axis};
    return m->ndofs++;
}

int mbs_model_find_body(const MbsModel *m, const char *name)
{
    for (int i = 0; name && i < m->nbodies; ++i)
        if (!strcmp(m->bodies[i].name, name))
            return i;
    return -1;
}

int mbs_model_find_joint(const MbsModel *m, const char *name)
{
    for (int i = 0; name && i < m->njoints; ++i)
        if (!strcmp(m->joints[i].name, name))
            return i;
    return -1;
}

int mbs_model_find_point(const MbsModel *m, int body, const char *name)
{
    for (int i = 0; name && i < m->npoints; ++i)
        if (m->points[i].body == body && !strcmp(m->points[i].name, name))
            return i;
    return -1;
}

void mbs_inertia_slender_rod(double mass, const double end1[3], const double end2[3],
                             double inertia[9])
{
    /* J = m L^2 / 12 (I - e e^T): no inertia about the rod's own axis. */
    double d[3];
    mbs_v3_sub(end2, end1, d);
    double L2 = mbs_v3_dot(d, d);
    double c = mass / 12.0;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
            inertia[3 * i + j] = c * ((i == j ? L2 : 0.0) - d[i] * d[j]);
}

void mbs_inertia_box(double mass, const double size[3], double inertia[9])
{
    double a2 = size[0] * size[0], b2 = size[1] * size[1], c2 = size[2] * size[2];
    memset(inertia, 0, 9 * sizeof *inertia);
    inertia[0] = mass * (b2 + c2) / 12.0;
    inertia[4] = mass * (a2 + c2) / 12.0;
    inertia[8] = mass * (a2 + b2) / 12.0;
}

int mbs_inertia_box_along(double mass, const double size[3], const double u[3],
                          const double v[3], double inertia[9])
{
    double q[3][3], principal[9], vn[3];
    if (mbs_v3_unit(u, q[0]) == 0.0 || !isfinite(q[0][0] + q[0][1] + q[0][2]))
        goto bad;
    double along = mbs_v3_dot(v, q[0]);
    for (int k = 0; k < 3; ++k)
        vn[k] = v[k] - along * q[0][k];
    /* v within 1e-9 rad of u is taken as parallel: the box's orientation would be noise */
    if (!(mbs_v3_norm(vn) > 1e-9 * mbs_v3_norm(v)) || mbs_v3_unit(vn, q[1]) == 0.0)
        goto bad;
    mbs_v3_cross(q[0], q[1], q[2]);
    mbs_inertia_box(mass, size, principal);
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
            double s = 0.0;
            for (int k = 0; k < 3; ++k)
                s += q[k][i] * principal[4 * k] * q[k][j];
            inertia[3 * i + j] = s;
        }
    return 0;
bad:
    for (int k = 0; k < 9; ++k)
        inertia[k] = NAN;
    return -1;
}

int mbs_model_compile(MbsModel *m, MbsError *err)
{
    if (m->topo)
        return 0;
    if (m->ground < 0)
        return mbs_error_set(err, MBS_FATAL, "model '%s' has no ground body", m->name);
    for (int f = 0; f < m->nforces; ++f)
        if (m->forces[f].type == MBS_FORCE_PATH_FOLLOWER && !m->path)
            return mbs_error_set(err, MBS_FATAL, "force '%s': a path follower needs the model's "
                                 "path", m->forces[f].name);
    if (check_planar(m, err))
        return MBS_FATAL;
    m->topo = mbs_topology_build(m, err);
    return m->topo ? 0 : (err ? err->status : MBS_FATAL);
}

int mbs_model_ncoords(const MbsModel *m)
{
    return m->topo ? m->topo->nnodes : 0;
}

int mbs_model_nconstraints(const MbsModel *m)
{
    return m->topo ? m->topo->nrows : 0;
}
