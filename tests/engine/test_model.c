/* Model builder and topology: sizes, spanning-tree choice, and a clear error for each kind of
 * bad model the builder can see. */
#include <math.h>
#include <string.h>

#include "mbs_topology.h"
#include "tap.h"
#include "test_models.h"

static void expect_error(int status, const MbsError *err, const char *needle, const char *what)
{
    tap_ok(status < 0 && strstr(err->message, needle) != NULL, "%s: \"%s\"", what, err->message);
}

int main(void)
{
    MbsError err = {0};
    double o[3] = {0, 0, 0}, I[9] = {0}, x[3] = {1, 0, 0}, zero[3] = {0, 0, 0};
    MbsModel *m = mbs_model_new("bad");
    int g = mbs_model_add_ground(m, "ground", &err);
    expect_error(mbs_model_add_body(m, "neg", -1.0, o, I, &err), &err, "mass -1",
                 "negative mass is refused");
    expect_error(mbs_model_add_body(m, "ground", 1.0, o, I, &err), &err, "defined twice",
                 "duplicate body name is refused");
    double Ibad[9] = {1, 2, 0, 0, 1, 0, 0, 0, 1};
    expect_error(mbs_model_add_body(m, "skew", 1.0, o, Ibad, &err), &err, "not symmetric",
                 "non-symmetric inertia is refused");
    double Iflat[9] = {1, 0, 0, 0, 1, 0, 0, 0, 3}; /* Izz > Ixx + Iyy: no mass distribution */
    expect_error(mbs_model_add_body(m, "flat", 1.0, o, Iflat, &err), &err, "not physical",
                 "an inertia violating the triangle inequality is refused");
    int b = mbs_model_add_body(m, "bar", 1.0, o, I, &err);
    expect_error(mbs_model_add_joint(m, "self", MBS_JOINT_REVOLUTE, b, b, o, x, &err), &err,
                 "to itself", "a joint from a body to itself is refused");
    expect_error(mbs_model_add_joint(m, "noaxis", MBS_JOINT_REVOLUTE, g, b, o, zero, &err), &err,
                 "zero length", "a zero axis is refused");
    /* |a|^2 overflows for these axes: they are normalised without it, not turned into zero */
    double huge[3] = {1e200, 0, 0}, huge2[3] = {-1e308, 1e308, 0}, plain[3] = {3, 4, 0};
    int jh = mbs_model_add_joint(m, "huge", MBS_JOINT_REVOLUTE, g, b, o, huge, &err);
    tap_ok(jh >= 0 && m->joints[jh].axis1[0] == 1.0 && m->joints[jh].axis1[1] == 0.0 &&
               m->joints[jh].axis1[2] == 0.0,
           "axis [1e200, 0, 0] becomes [1, 0, 0] %s", jh < 0 ? err.message : "");
    int jh2 = mbs_model_add_joint(m, "huge2", MBS_JOINT_REVOLUTE, g, b, o, huge2, &err);
    tap_ok(jh2 >= 0 && fabs(m->joints[jh2].axis1[0] + sqrt(0.5)) < 1e-15 &&
               fabs(m->joints[jh2].axis1[1] - sqrt(0.5)) < 1e-15,
           "axis [-1e308, 1e308, 0] becomes [-0.7071, 0.7071, 0] %s", jh2 < 0 ? err.message : "");
    int jp = mbs_model_add_joint(m, "plain", MBS_JOINT_REVOLUTE, g, b, o, plain, &err);
    tap_ok(jp >= 0 && m->joints[jp].axis1[0] == 3.0 / 5.0 && m->joints[jp].axis1[1] == 4.0 / 5.0,
           "an ordinary axis is divided by its norm as before (bit for bit)");
    int js = mbs_model_add_joint(m, "ball", MBS_JOINT_SPHERICAL, g, b, o, x, &err);
    MbsFunction fn = {.kind = MBS_FUNCTION_POLYNOMIAL, .ncoef = 1};
    tap_ok(mbs_model_drive_joint(m, js, &fn, &err) < 0 && strstr(err.message, "ball"),
           "driving a spherical joint is refused: \"%s\"", err.message);
    expect_error(mbs_model_add_rod(m, "r", g, o, b, o, -1.0, &err), &err, "length",
                 "a rod of zero length is refused");
    int jr = mbs_model_add_joint(m, "hinge", MBS_JOINT_REVOLUTE, g, b, o, x, &err);
    MbsFunction bad = {.kind = MBS_FUNCTION_POLYNOMIAL, .ncoef = 99};
    tap_ok(mbs_model_drive_joint(m, jr, &bad, &err) < 0 && strstr(err.message, "coefficients"),
           "a polynomial driver with too many coefficients is refused: \"%s\"", err.message);
    MbsFunction lin = {.kind = MBS_FUNCTION_POLYNOMIAL, .ncoef = 2, .coef = {0, 1}};
    mbs_model_drive_joint(m, jr, &lin, &err);
    tap_ok(mbs_model_set_initial(m, jr, 0, 1, 1.0, &err) < 0 && strstr(err.message, "driven"),
           "an initial condition on a driven joint is refused: \"%s\"", err.message);
    MbsForce spring = {.type = MBS_FORCE_TSDA, .body1 = g, .body2 = b, .stiffness = 1};
    snprintf(spring.name, sizeof spring.name, "spring");
    tap_ok(mbs_model_add_force(m, &spring, &err) < 0 && strstr(err.message, "coincide"),
           "a spring between coincident points is refused: \"%s\"", err.message);
    int lonely = mbs_model_add_body(m, "lonely", 1.0, o, I, &err);
    (void)lonely;
    tap_ok(mbs_model_compile(m, &err) < 0 && strstr(err.message, "lonely") &&
               strstr(err.message, "not connected"),
           "a body without a path to ground is named: \"%s\"", err.message);
    mbs_model_free(m);

    m = mbs_model_new("no-ground");
    mbs_model_add_body(m, "a", 1.0, o, I, &err);
    tap_ok(mbs_model_compile(m, &err) < 0 && strstr(err.message, "no ground"),
           "a model without ground is refused: \"%s\"", err.message);
    mbs_model_free(m);

    /* Topology of the four-bar: joint D has an initial velocity, so it is a tree joint; one
     * joint is cut and becomes 3 (spherical) or 5 (revolute) equations. */
    m = build_four_bar();
    int jd = mbs_model_find_joint(m, "D");
    tap_ok(m->topo->joint_node[jd] >= 0, "a joint with an initial condition is in the tree");
    tap_ok(m->topo->ncut == 1, "four-bar has one cut joint (got %d)", m->topo->ncut);
    int depth_ok = 1;
    for (int i = 0; i < m->topo->nnodes; ++i)
        if (m->topo->nodes[i].depth < 1 || m->topo->nodes[i].depth > m->topo->max_depth)
            depth_ok = 0;
    tap_ok(depth_ok && m->topo->max_depth == 3, "path depths are consistent (max %d)",
           m->topo->max_depth);
    MbsError e2;
    double p[3] = {0, 0, 0};
    tap_ok(mbs_model_add_point(m, 1, "late", p, &e2) < 0 && strstr(e2.message, "read-only"),
           "a compiled model is read-only: \"%s\"", e2.message);
    mbs_model_free(m);

    m = build_lattice(7, 15);
    int bodies = m->nbodies - 1;
    tap_ok(bodies == 225 && m->topo->nnodes == 225, "7x15 lattice: 225 moving bodies and coordinates");
    tap_ok(m->topo->ncut == m->njoints - 225, "cut joints = joints - tree joints (%d)", m->topo->ncut);
    mbs_model_free(m);
    return tap_done();
}
