/* Small mechanisms built with the engine builder API, shared by the engine tests (the same
 * mechanisms as the bundled model files, so the engine is tested without the JSON loader). */
#ifndef TEST_MODELS_H
#define TEST_MODELS_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "mbs_linalg.h"
#include "mbs_model.h"

static void die_on(int idx, const MbsError *err)
{
    if (idx < 0) {
        fprintf(stderr, "model building failed: %s\n", err->message);
        exit(2);
    }
}

/* A slender bar body between p1 and p2 with mass = rho * length. */
__attribute__((unused)) static int add_bar(MbsModel *m, const char *name, const double p1[3], const double p2[3],
                   double rho, MbsError *err)
{
    double d[3], com[3], I[9];
    mbs_v3_sub(p2, p1, d);
    double mass = rho * mbs_v3_norm(d);
    for (int i = 0; i < 3; ++i)
        com[i] = 0.5 * (p1[i] + p2[i]);
    mbs_inertia_slender_rod(mass, p1, p2, I);
    int b = mbs_model_add_body(m, name, mass, com, I, err);
    die_on(b, err);
    char pn[64];
    snprintf(pn, sizeof pn, "%s.1", name);
    die_on(mbs_model_add_point(m, b, pn, p1, err), err);
    snprintf(pn, sizeof pn, "%s.2", name);
    die_on(mbs_model_add_point(m, b, pn, p2, err), err);
    return b;
}

static const double X_AXIS[3] = {1, 0, 0}, Y_AXIS[3] = {0, 1, 0}, Z_AXIS[3] = {0, 0, 1};

/* Paper 000's spatial four-bar, in the configuration of models/four-bar-spatial.json; when
 * dof_joint names a joint, the model lists its coordinate as the degree of freedom (as a model
 * file's degrees_of_freedom does). */
__attribute__((unused)) static MbsModel *build_four_bar_listing_dof(const char *dof_joint)
{
    MbsError err;
    MbsModel *m = mbs_model_new("four-bar-spatial");
    m->gravity[2] = -9.81;
    double ct = -0.7625, st = sqrt(1.0 - ct * ct);
    double A[3] = {0, 0, 0}, B[3] = {0, 0, 1.5}, D[3] = {5, 0, 0};
    double C[3] = {5 + 2 * ct, 2 * st, 0};
    int g = mbs_model_add_ground(m, "ground", &err);
    int crank = add_bar(m, "crank", A, B, 1.0, &err);
    int coupler = add_bar(m, "coupler", B, C, 1.0, &err);
    int follower = add_bar(m, "follower", D, C, 1.0, &err);
    double bc[3], ax2[3];
    mbs_v3_sub(C, B, bc);
    mbs_v3_cross(X_AXIS, bc, ax2);
    die_on(mbs_model_add_joint(m, "A", MBS_JOINT_REVOLUTE, g, crank, A, X_AXIS, &err), &err);
    die_on(mbs_model_add_universal(m, "B", crank, coupler, B, X_AXIS, ax2, &err), &err);
    die_on(mbs_model_add_joint(m, "C", MBS_JOINT_SPHERICAL, coupler, follower, C, X_AXIS, &err), &err);
    int jd = mbs_model_add_joint(m, "D", MBS_JOINT_REVOLUTE, g, follower, D, Z_AXIS, &err);
    die_on(jd, &err);
    die_on(mbs_model_set_initial(m, jd, 0, 1, -0.1, &err), &err);
    if (dof_joint)
        die_on(mbs_model_add_dof(m, mbs_model_find_joint(m, dof_joint), 0, -1, -1, &err), &err);
    if (mbs_model_compile(m, &err)) {
        fprintf(stderr, "%s\n", err.message);
        exit(2);
    }
    return m;
}

__attribute__((unused)) static MbsModel *build_four_bar(void)
{
    return build_four_bar_listing_dof(NULL);
}

/* Double pendulum of two 1 m, 1 kg bars about X, drawn at angle theta0 from the downward
 * vertical (theta0 = pi/2: horizontal along +Y). */
__attribute__((unused)) static MbsModel *build_double_pendulum(double theta1, double theta2, int compile)
{
    MbsError err;
    MbsModel *m = mbs_model_new("double-pendulum");
    m->gravity[2] = -9.81;
    double O[3] = {0, 0, 0};
    double P1[3] = {0, sin(theta1), -cos(theta1)};
    double P2[3] = {0, P1[1] + sin(theta2), P1[2] - cos(theta2)};
    int g = mbs_model_add_ground(m, "ground", &err);
    int b1 = add_bar(m, "bar1", O, P1, 1.0, &err);
    int b2 = add_bar(m, "bar2", P1, P2, 1.0, &err);
    die_on(mbs_model_add_joint(m, "O", MBS_JOINT_REVOLUTE, g, b1, O, X_AXIS, &err), &err);
    die_on(mbs_model_add_joint(m, "P", MBS_JOINT_REVOLUTE, b1, b2, P1, X_AXIS, &err), &err);
    if (compile && mbs_model_compile(m, &err)) {
        fprintf(stderr, "%s\n", err.message);
        exit(2);
    }
    return m;
}

/* A closed loop with every cut-joint kind: a planar slider-crank closed by a prismatic joint,
 * with a TSDA spring-damper, an RSDA on the crank and a rod to a pendulum. */
__attribute__((unused)) static MbsModel *build_slider_crank(int driven)
{
    MbsError err;
    MbsModel *m = mbs_model_new("slider-crank");
    m->gravity[2] = -9.81;
    double O[3] = {0, 0, 0}, A[3] = {0, 0.3, 0.4}, B[3] = {0, 1.2, 0};
    int g = mbs_model_add_ground(m, "ground", &err);
    int crank = add_bar(m, "crank", O, A, 2.0, &err);
    int rod = add_bar(m, "rod", A, B, 2.0, &err);
    double Iblk[9];
    double size[3] = {0.1, 0.2, 0.1};
    mbs_inertia_box(1.5, size, Iblk);
    int slider = mbs_model_add_body(m, "slider", 1.5, B, Iblk, &err);
    die_on(slider, &err);
    die_on(mbs_model_add_point(m, slider, "B", B, &err), &err);
    int jo = mbs_model_add_joint(m, "O", MBS_JOINT_REVOLUTE, g, crank, O, X_AXIS, &err);
    die_on(jo, &err);
    die_on(mbs_model_add_joint(m, "A", MBS_JOINT_REVOLUTE, crank, rod, A, X_AXIS, &err), &err);
    die_on(mbs_model_add_joint(m, "B", MBS_JOINT_REVOLUTE, rod, slider, B, X_AXIS, &err), &err);
    die_on(mbs_model_add_joint(m, "S", MBS_JOINT_PRISMATIC, g, slider, B, Y_AXIS, &err), &err);
    MbsForce spring = {.type = MBS_FORCE_TSDA, .body1 = g, .body2 = slider, .stiffness = 50.0,
                       .damping = driven ? 2.0 : 0.0, .natural_length = 1.0};
    double anchor[3] = {0, 2.0, 0};
    memcpy(spring.point1, anchor, sizeof anchor);
    memcpy(spring.point2, B, sizeof B);
    snprintf(spring.name, sizeof spring.name, "spring");
    die_on(mbs_model_add_force(m, &spring, &err), &err);
    if (driven) {
        MbsFunction fn = {.kind = MBS_FUNCTION_POLYNOMIAL, .ncoef = 2, .coef = {0.0, 2.0 * M_PI}};
        die_on(mbs_model_drive_joint(m, jo, &fn, &err), &err);
    } else {
        MbsForce rsda = {.type = MBS_FORCE_RSDA, .joint = jo, .stiffness = 20.0, .rest_angle = 0.3};
        snprintf(rsda.name, sizeof rsda.name, "torsion");
        die_on(mbs_model_add_force(m, &rsda, &err), &err);
        die_on(mbs_model_set_initial(m, jo, 0, 1, 3.0, &err), &err);
    }
    if (mbs_model_compile(m, &err)) {
        fprintf(stderr, "%s\n", err.message);
        exit(2);
    }
    return m;
}

/* Parallelogram linkage (issue 13): a planar chain of n four-bars sharing their vertical links,
 * every link 1 m long, cranks hinged on the ground along Y and turning about X, the first one
 * started at omega rad/s. It passes the flat position (cranks along the ground) where every
 * loop is singular at once. */
/* The chain drawn, not compiled yet (parameters may still be bound). */
__attribute__((unused)) static MbsModel *parallelogram_chain_drawn(int n, double omega,
                                                                  int planar_normal)
{
    MbsError err;
    MbsModel *m = mbs_model_new("parallelogram-chain");
    die_on(mbs_model_set_planar(m, planar_normal, &err), &err);
    m->gravity[2] = -9.81;
    int g = mbs_model_add_ground(m, "ground", &err);
    int previous = -1, first = -1;
    char name[64];
    for (int k = 0; k <= n; ++k) {
        double G[3] = {0, k, 0}, T[3] = {0, k, 1};
        snprintf(name, sizeof name, "crank%d", k);
        int crank = add_bar(m, name, G, T, 1.0, &err);
        snprintf(name, sizeof name, "G%d", k);
        int j = mbs_model_add_joint(m, name, MBS_JOINT_REVOLUTE, g, crank, G, X_AXIS, &err);
        die_on(j, &err);
        if (k == 0)
            first = j;
        if (previous >= 0) {
            double A[3] = {0, k - 1, 1};
            snprintf(name, sizeof name, "coupler%d", k);
            int c = add_bar(m, name, A, T, 1.0, &err);
            snprintf(name, sizeof name, "A%d", k);
            die_on(mbs_model_add_joint(m, name, MBS_JOINT_REVOLUTE, previous, c, A, X_AXIS, &err),
                   &err);
            snprintf(name, sizeof name, "B%d", k);
            die_on(mbs_model_add_joint(m, name, MBS_JOINT_REVOLUTE, c, crank, T, X_AXIS, &err),
                   &err);
        }
        previous = crank;
    }
    die_on(mbs_model_set_initial(m, first, 0, 1, omega, &err), &err);
    return m;
}

__attribute__((unused)) static MbsModel *build_parallelogram_chain_planar(int n, double omega,
                                                                         int planar_normal)
{
    MbsError err;
    MbsModel *m = parallelogram_chain_drawn(n, omega, planar_normal);
    if (mbs_model_compile(m, &err)) {
        fprintf(stderr, "%s\n", err.message);
        exit(2);
    }
    return m;
}

__attribute__((unused)) static MbsModel *build_parallelogram_chain(int n, double omega)
{
    return build_parallelogram_chain_planar(n, omega, -1);
}

/* Multiple four-bar lattice of paper 000 (as written by `eslabon-cli generate`).
 * noipa: GCC 12 with -O2 -fsanitize=undefined miscompiles the constant-propagated clone for
 * ny = 1 (the `i < nz` branch is dropped); found by the ASan+UBSan test setup. */
__attribute__((unused, noipa)) static MbsModel *build_lattice(int ny, int nz)
{
    MbsError err;
    MbsModel *m = mbs_model_new("multi-four-bar");
    m->gravity[2] = -9.81;
    int g = mbs_model_add_ground(m, "ground", &err);
    int *vert = calloc((size_t)(nz * (ny + 1)), sizeof(int));
    int *hor = calloc((size_t)((nz + 1) * ny), sizeof(int));
    char name[64];
    for (int i = 0; i < nz; ++i)
        for (int j = 0; j <= ny; ++j) {
            double p1[3] = {0, j, -i}, p2[3] = {0, j, -i - 1};
            snprintf(name, sizeof name, "v_%d_%d", i, j);
            vert[i * (ny + 1) + j] = add_bar(m, name, p1, p2, 1.0, &err);
        }
    for (int i = 1; i <= nz; ++i)
        for (int j = 0; j < ny; ++j) {
            double p1[3] = {0, j, -i}, p2[3] = {0, j + 1, -i};
            snprintf(name, sizeof name, "h_%d_%d", i, j);
            hor[i * ny + j] = add_bar(m, name, p1, p2, 1.0, &err);
        }
    for (int i = 0; i <= nz; ++i)
        for (int j = 0; j <= ny; ++j) {
            double P[3] = {0, j, -i};
            int hub = i == 0 ? g : vert[(i - 1) * (ny + 1) + j];
            int others[3], no = 0;
            if (i < nz)
                others[no++] = vert[i * (ny + 1) + j];
            if (i >= 1 && j > 0)
                others[no++] = hor[i * ny + j - 1];
            if (i >= 1 && j < ny)
                others[no++] = hor[i * ny + j];
            for (int k = 0; k < no; ++k) {
                snprintf(name, sizeof name, "n_%d_%d_%d", i, j, k);
                int jt = mbs_model_add_joint(m, name, MBS_JOINT_REVOLUTE, hub, others[k], P,
                                             X_AXIS, &err);
                die_on(jt, &err);
                if (j == 0 && k == 0 && i < nz)
                    die_on(mbs_model_set_initial(m, jt, 0, 1, i == 0 ? M_PI / 3.0 : 0.0, &err),
                           &err);
            }
        }
    free(vert);
    free(hor);
    if (mbs_model_compile(m, &err)) {
        fprintf(stderr, "%s\n", err.message);
        exit(2);
    }
    return m;
}

/* Open chain with every tree joint type and two drivers:
 * ground -R(X, driven)- b1 -P(along the bar)- b2 -S- b3 -U- b4 -P(driven)- b5, with boxes. */
__attribute__((unused)) static MbsModel *build_chain(void)
{
    MbsError err;
    MbsModel *m = mbs_model_new("chain");
    m->gravity[2] = -9.81;
    int g = mbs_model_add_ground(m, "ground", &err);
    double size[3] = {0.2, 0.5, 0.1}, I[9];
    int b[6];
    b[0] = g;
    char name[32];
    for (int i = 1; i <= 5; ++i) {
        double com[3] = {0.1 * i, 0.5 * i, -0.2 * i};
        mbs_inertia_box(1.0 + 0.2 * i, size, I);
        I[1] = I[3] = 0.003; /* not aligned with the axes */
        snprintf(name, sizeof name, "b%d", i);
        b[i] = mbs_model_add_body(m, name, 1.0 + 0.2 * i, com, I, &err);
        die_on(b[i], &err);
        snprintf(name, sizeof name, "p%d", i);
        double pt[3] = {com[0] + 0.05, com[1] + 0.1, com[2] - 0.07};
        die_on(mbs_model_add_point(m, b[i], name, pt, &err), &err);
    }
    double P0[3] = {0, 0, 0}, P1[3] = {0.1, 0.4, -0.1}, P2[3] = {0.15, 1.2, -0.5},
           P3[3] = {0.3, 1.6, -0.6}, P4[3] = {0.4, 2.2, -0.9};
    double ax[3] = {0.1, 1.0, -0.2}, a2[3] = {0, 0.3, 1.0}, a3[3] = {1, 0.2, 0.1};
    MbsFunction drv = {.kind = MBS_FUNCTION_SINE, .offset = 0.2, .amplitude = 0.5,
                       .omega = 3.0, .phase = 0.1};
    MbsFunction drv2 = {.kind = MBS_FUNCTION_POLYNOMIAL, .ncoef = 3, .coef = {0.05, -0.3, 0.4}};
    int j0 = mbs_model_add_joint(m, "R", MBS_JOINT_REVOLUTE, g, b[1], P0, X_AXIS, &err);
    die_on(j0, &err);
    die_on(mbs_model_drive_joint(m, j0, &drv, &err), &err);
    die_on(mbs_model_add_joint(m, "P", MBS_JOINT_PRISMATIC, b[1], b[2], P1, ax, &err), &err);
    die_on(mbs_model_add_joint(m, "S", MBS_JOINT_SPHERICAL, b[2], b[3], P2, X_AXIS, &err), &err);
    die_on(mbs_model_add_universal(m, "U", b[3], b[4], P3, a2, a3, &err), &err);
    int j4 = mbs_model_add_joint(m, "P2", MBS_JOINT_PRISMATIC, b[5], b[4], P4, a3, &err);
    die_on(j4, &err);
    die_on(mbs_model_drive_joint(m, j4, &drv2, &err), &err);
    MbsForce tsda = {.type = MBS_FORCE_TSDA, .body1 = b[1], .body2 = b[4], .stiffness = 30,
                     .damping = 1.5, .natural_length = 0.8, .preload = 2.0,
                     .point1 = {0.1, 0.5, -0.2}, .point2 = {0.4, 2.0, -0.8}};
    die_on(mbs_model_add_force(m, &tsda, &err), &err);
    MbsForce rsda = {.type = MBS_FORCE_RSDA, .joint = j0, .stiffness = 7, .damping = 0.4,
                     .rest_angle = 0.3};
    die_on(mbs_model_add_force(m, &rsda, &err), &err);
    MbsForce fc = {.type = MBS_FORCE_CONSTANT, .body1 = b[3], .point1 = {0.3, 1.5, -0.6},
                   .vector = {1.0, -2.0, 0.5}};
    die_on(mbs_model_add_force(m, &fc, &err), &err);
    MbsForce tq = {.type = MBS_FORCE_TORQUE, .body1 = b[2], .vector = {0.3, 0.7, -1.1}};
    die_on(mbs_model_add_force(m, &tq, &err), &err);
    if (mbs_model_compile(m, &err)) {
        fprintf(stderr, "%s\n", err.message);
        exit(2);
    }
    return m;
}

#endif
