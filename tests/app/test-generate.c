/* Multiple four-bar generator: the committed models equal its output, and the generated
 * lattice has the bodies, joints, geometry and degrees of freedom of paper 000. */
#include <string.h>

#include "esl-generate.h"
#include "esl-model-file.h"
#include "mbs_constraints.h"
#include "mbs_linalg.h"
#include "mbs_topology.h"
#include "tap.h"

/* rank(Phi_z) at the drawn configuration. */
static int constraint_rank(const MbsModel *m)
{
    int nr = mbs_model_nconstraints(m), n = mbs_model_ncoords(m);
    MbsKinematics k;
    if (mbs_kinematics_init(&k, m))
        return -1;
    double *z = g_new0(double, n);
    double *phiz = g_new(double, (gsize)nr * (gsize)n);
    double *rhs = g_new0(double, nr > n ? nr : n);
    MbsLeastSquares *ls = mbs_lsq_new(nr, n);
    mbs_kinematics_positions(m, &k, z);
    mbs_constraints_eval(m, &k, 0.0, z, NULL, phiz, NULL);
    int rank = mbs_lsq_solve(ls, nr, n, phiz, rhs, 1e-9);
    mbs_lsq_free(ls);
    g_free(rhs);
    g_free(phiz);
    g_free(z);
    mbs_kinematics_free(&k);
    return rank;
}

static void check_lattice(int ny, int nz, gboolean committed)
{
    char *text = esl_generate_multi_four_bar(ny, nz);
    if (!tap_ok(text != NULL, "%dx%d: generated", ny, nz))
        return;
    char *name = g_strdup_printf("multi-four-bar-%dx%d.json", ny, nz);
    if (committed) {
        char *path = g_build_filename(ESLABON_SOURCE_DIR, "models", name, NULL), *file = NULL;
        tap_ok(g_file_get_contents(path, &file, NULL, NULL) && !strcmp(file, text),
               "models/%s equals the generator's output", name);
        g_free(file);
        g_free(path);
    }
    GError *error = NULL;
    MbsModel *m = esl_model_load_string(text, name, NULL, 0, &error);
    if (!tap_ok(m != NULL, "%dx%d: loads%s%s", ny, nz, error ? ": " : "",
                error ? error->message : "")) {
        g_clear_error(&error);
        g_free(name);
        g_free(text);
        return;
    }
    int moving = (2 * ny + 1) * nz;
    int joints = (ny + 1) * nz + 2 * ny * nz;
    tap_ok(m->nbodies == moving + 1, "%dx%d: %d moving bodies (got %d)", ny, nz, moving,
           m->nbodies - 1);
    tap_ok(m->njoints == joints, "%dx%d: %d revolute joints (got %d)", ny, nz, joints, m->njoints);
    tap_ok(mbs_model_ncoords(m) == moving, "%dx%d: one relative coordinate per body", ny, nz);
    tap_ok(m->topo->ncut == joints - moving, "%dx%d: %d cut joints", ny, nz, joints - moving);

    /* Geometry: 1 kg, 1 m bars; every joint about X at a point both bodies share. */
    int bars_ok = 1, joints_ok = 1;
    for (int b = 0; b < m->nbodies; ++b) {
        if (b == m->ground)
            continue;
        const MbsBody *B = &m->bodies[b];
        int p0 = -1, p1 = -1;
        for (int p = 0; p < m->npoints; ++p)
            if (m->points[p].body == b)
                *(p0 < 0 ? &p0 : &p1) = p;
        double d[3];
        mbs_v3_sub(m->points[p0].pos, m->points[p1].pos, d);
        bars_ok &= B->mass == 1.0 && fabs(mbs_v3_norm(d) - 1.0) < 1e-15 && B->com[0] == 0.0 &&
                   fabs(B->inertia[0] - 1.0 / 12.0) < 1e-15;
    }
    for (int j = 0; j < m->njoints; ++j) {
        const MbsJoint *J = &m->joints[j];
        int on1 = 0, on2 = 0;
        for (int p = 0; p < m->npoints; ++p) {
            int same = m->points[p].pos[0] == J->point1[0] &&
                       m->points[p].pos[1] == J->point1[1] && m->points[p].pos[2] == J->point1[2];
            on1 |= same && m->points[p].body == J->body1;
            on2 |= same && m->points[p].body == J->body2;
        }
        joints_ok &= J->type == MBS_JOINT_REVOLUTE && J->axis1[0] == 1.0 && on1 && on2;
    }
    tap_ok(bars_ok, "%dx%d: every bar is a 1 kg, 1 m slender rod in the YZ plane", ny, nz);
    tap_ok(joints_ok, "%dx%d: every joint is revolute about X at a point of both bodies", ny, nz);

    int rank = constraint_rank(m);
    tap_ok(mbs_model_ncoords(m) - rank == nz, "%dx%d: %d degrees of freedom (ncoords %d - rank %d)",
           ny, nz, nz, mbs_model_ncoords(m), rank);
    tap_ok(m->ninitial == nz, "%dx%d: %d initial conditions fix the %d degrees of freedom", ny, nz,
           nz, nz);
    int j0 = mbs_model_find_joint(m, "n_0_0_down");
    tap_ok(j0 >= 0 && m->initial[0].joint == j0 && m->initial[0].is_velocity &&
               fabs(m->initial[0].value - G_PI / 3) < 1e-15,
           "%dx%d: the top-left joint turns at pi/3 rad/s", ny, nz);
    mbs_model_free(m);
    g_free(name);
    g_free(text);
}

int main(void)
{
    check_lattice(1, 15, TRUE);
    check_lattice(4, 15, TRUE);
    check_lattice(7, 15, TRUE);
    check_lattice(1, 1, FALSE);
    check_lattice(3, 2, FALSE);
    tap_ok(esl_generate_multi_four_bar(0, 15) == NULL, "ny = 0 is refused");
    tap_ok(esl_generate_multi_four_bar(1, -1) == NULL, "nz = -1 is refused");
    tap_ok(esl_generate_multi_four_bar(ESL_GENERATE_MAX_CELLS + 1, 1) == NULL,
           "ny above the limit is refused");
    return tap_done();
}
