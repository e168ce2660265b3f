/* Initial assembly: a drawing that is slightly off is closed by Newton; impossible loops and
 * incompatible velocities give errors naming the joint; velocities satisfy the constraints. */
#include <string.h>

#include "mbs_assembly.h"
#include "mbs_constraints.h"
#include "mbs_topology.h"
#include "tap.h"
#include "test_models.h"

static double velocity_residual(const MbsModel *m, const double *z, const double *zd)
{
    MbsKinematics k;
    mbs_kinematics_init(&k, m);
    mbs_kinematics_positions(m, &k, z);
    int n = m->topo->nnodes, nr = m->topo->nrows;
    double *phiz = calloc((size_t)nr * n, sizeof(double)), *phit = calloc(nr, sizeof(double));
    mbs_constraints_eval(m, &k, 0.0, z, NULL, phiz, phit);
    double worst = 0.0;
    for (int i = 0; i < nr; ++i) {
        double v = phit[i];
        for (int j = 0; j < n; ++j)
            v += phiz[i + (size_t)nr * j] * zd[j];
        worst = fmax(worst, fabs(v));
    }
    free(phiz);
    free(phit);
    mbs_kinematics_free(&k);
    return worst;
}

/* The four-bar drawn with the follower tip 5 cm off the coupler end. */
static MbsModel *four_bar_off(double follower_len)
{
    MbsError err;
    MbsModel *m = mbs_model_new("four-bar-off");
    m->gravity[2] = -9.81;
    double ct = -0.7625, st = sqrt(1.0 - ct * ct);
    double A[3] = {0, 0, 0}, B[3] = {0, 0, 1.5}, D[3] = {5, 0, 0};
    double C[3] = {5 + 2 * ct, 2 * st, 0};
    double Cf[3] = {5 + follower_len * ct, follower_len * st + 0.05, 0};
    int g = mbs_model_add_ground(m, "ground", &err);
    int crank = add_bar(m, "crank", A, B, 1.0, &err);
    int coupler = add_bar(m, "coupler", B, C, 1.0, &err);
    int follower = add_bar(m, "follower", D, Cf, 1.0, &err);
    double bc[3], ax2[3];
    mbs_v3_sub(C, B, bc);
    mbs_v3_cross(X_AXIS, bc, ax2);
    mbs_model_add_joint(m, "A", MBS_JOINT_REVOLUTE, g, crank, A, X_AXIS, &err);
    mbs_model_add_universal(m, "B", crank, coupler, B, X_AXIS, ax2, &err);
    /* the cut: a rod from the coupler end to the follower tip of the right length */
    mbs_model_add_rod(m, "C", coupler, C, follower, Cf, 1e-3, &err);
    int jd = mbs_model_add_joint(m, "D", MBS_JOINT_REVOLUTE, g, follower, D, Z_AXIS, &err);
    mbs_model_set_initial(m, jd, 0, 1, -0.1, &err);
    mbs_model_compile(m, &err);
    return m;
}

int main(void)
{
    MbsSettings s;
    mbs_settings_defaults(&s);
    MbsError err = {0};

    MbsModel *m = build_four_bar();
    int n = m->topo->nnodes;
    double z[8], zd[8];
    MbsBodyState bs[8];
    tap_ok(mbs_assemble(m, &s, 0.0, z, zd, bs, &err) == 0, "four-bar assembles %s", err.message);
    tap_below(mbs_vec_norminf(n, z), 1e-12, "the drawn four-bar is already assembled (z = 0)");
    int jd = m->topo->joint_node[mbs_model_find_joint(m, "D")];
    tap_close(zd[jd], -0.1, 1e-15, "imposed initial velocity of joint D kept");
    tap_below(velocity_residual(m, z, zd), 1e-12, "Phi_z zd + Phi_t = 0 after the velocity problem");
    tap_close(bs[3].omega[2], -0.1, 1e-12, "follower angular velocity about Z = -0.1 rad/s");
    mbs_model_free(m);

    m = four_bar_off(2.0);
    tap_ok(mbs_assemble(m, &s, 0.0, z, zd, NULL, &err) == 0, "a drawing 5 cm off is assembled by Newton %s", err.message);
    tap_below(velocity_residual(m, z, zd), 1e-12, "and its velocities satisfy the constraints");
    mbs_model_free(m);

    m = four_bar_off(0.5); /* follower far too short: the loop cannot close */
    tap_ok(mbs_assemble(m, &s, 0.0, z, zd, NULL, &err) < 0 && strstr(err.message, "'C'") &&
               strstr(err.message, "cannot be assembled"),
           "an impossible loop is reported with its joint: \"%s\"", err.message);
    mbs_model_free(m);

    /* Two velocities imposed on a 1-DOF mechanism that contradict each other. */
    {
        MbsModel *mm = mbs_model_new("overdetermined");
        double ct = -0.7625, st = sqrt(1.0 - ct * ct);
        double A[3] = {0, 0, 0}, B[3] = {0, 0, 1.5}, D[3] = {5, 0, 0}, C[3] = {5 + 2 * ct, 2 * st, 0};
        int g = mbs_model_add_ground(mm, "ground", &err);
        int crank = add_bar(mm, "crank", A, B, 1.0, &err);
        int coupler = add_bar(mm, "coupler", B, C, 1.0, &err);
        int follower = add_bar(mm, "follower", D, C, 1.0, &err);
        double bc[3], ax2[3];
        mbs_v3_sub(C, B, bc);
        mbs_v3_cross(X_AXIS, bc, ax2);
        int ja = mbs_model_add_joint(mm, "A", MBS_JOINT_REVOLUTE, g, crank, A, X_AXIS, &err);
        mbs_model_add_universal(mm, "B", crank, coupler, B, X_AXIS, ax2, &err);
        mbs_model_add_joint(mm, "C", MBS_JOINT_SPHERICAL, coupler, follower, C, X_AXIS, &err);
        int j4 = mbs_model_add_joint(mm, "D", MBS_JOINT_REVOLUTE, g, follower, D, Z_AXIS, &err);
        mbs_model_set_initial(mm, j4, 0, 1, -0.1, &err);
        mbs_model_set_initial(mm, ja, 0, 1, 5.0, &err);
        mbs_model_compile(mm, &err);
        tap_ok(mbs_assemble(mm, &s, 0.0, z, zd, NULL, &err) < 0 && strstr(err.message, "incompatible"),
               "contradicting initial velocities are reported: \"%s\"", err.message);
        mbs_model_free(mm);
    }

    /* Accelerations: M zdd + Phi_z^T lambda = Q with Phi_z zdd + c = 0 (the lattice is redundant). */
    m = build_lattice(2, 3);
    n = m->topo->nnodes;
    double *zz = calloc(n, sizeof(double)), *zzd = calloc(n, sizeof(double)), *zdd = calloc(n, sizeof(double));
    mbs_error_clear(&err);
    tap_ok(mbs_assemble(m, &s, 0.0, zz, zzd, NULL, &err) == 0, "2x3 lattice assembles");
    tap_ok(mbs_assemble_accelerations(m, &s, 0.0, zz, zzd, zdd, &err) == 0,
           "redundant lattice: consistent accelerations found %s", err.message);
    free(zz); free(zzd); free(zdd);
    mbs_model_free(m);
    return tap_done();
}
