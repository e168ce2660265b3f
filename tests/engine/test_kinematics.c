/* Semi-recursive kinematics, dynamics and constraints against finite differences:
 * Phi_z vs dPhi/dz, the acceleration bias vs d(Phi_z zd)/dt, M and Q vs Lagrange's equations
 * (Q = -Mdot zd + dT/dz - dV/dz for conservative models), kinetic energy vs 1/2 zd^T M zd. */
#include <string.h>

#include "mbs_constraints.h"
#include "mbs_dynamics.h"
#include "mbs_energy.h"
#include "mbs_topology.h"
#include "tap.h"
#include "test_models.h"

typedef struct {
    const MbsModel *m;
    MbsKinematics k;
    MbsDynamics d;
    int n, nr;
} Ctx;

static void ctx_init(Ctx *c, const MbsModel *m)
{
    c->m = m;
    c->n = m->topo->nnodes;
    c->nr = m->topo->nrows;
    mbs_kinematics_init(&c->k, m);
    mbs_dynamics_init(&c->d, m);
}

static void ctx_free(Ctx *c)
{
    mbs_kinematics_free(&c->k);
    mbs_dynamics_free(&c->d);
}

static void state(Ctx *c, const double *z, const double *zd)
{
    mbs_kinematics_positions(c->m, &c->k, z);
    mbs_kinematics_velocities(c->m, &c->k, zd);
}

static MbsEnergy energy(Ctx *c, const double *z, const double *zd)
{
    MbsEnergy e;
    state(c, z, zd);
    mbs_energy_eval(c->m, &c->k, z, zd, &e);
    return e;
}

static double frand(unsigned *seed)
{
    *seed = *seed * 1103515245u + 12345u;
    return ((*seed >> 8) & 0xffff) / 65535.0 * 2.0 - 1.0;
}

static void check_model(const char *name, const MbsModel *m, int conservative)
{
    Ctx c;
    ctx_init(&c, m);
    int n = c.n, nr = c.nr;
    unsigned seed = 7;
    double *z = calloc(n, sizeof(double)), *zd = calloc(n, sizeof(double));
    double *zp = calloc(n, sizeof(double)), *zm = calloc(n, sizeof(double));
    double *phiz = calloc((size_t)nr * n + 1, sizeof(double));
    double *phizp = calloc((size_t)nr * n + 1, sizeof(double));
    double *phizm = calloc((size_t)nr * n + 1, sizeof(double));
    double *phip = calloc(nr + 1, sizeof(double)), *phim = calloc(nr + 1, sizeof(double));
    double *phit = calloc(nr + 1, sizeof(double)), *phitp = calloc(nr + 1, sizeof(double));
    double *phitm = calloc(nr + 1, sizeof(double)), *bias = calloc(nr + 1, sizeof(double));
    double *M = calloc((size_t)n * n, sizeof(double)), *Mp = calloc((size_t)n * n, sizeof(double));
    double *Mm = calloc((size_t)n * n, sizeof(double)), *Q = calloc(n, sizeof(double));
    for (int i = 0; i < n; ++i) {
        z[i] = 0.3 * frand(&seed);
        zd[i] = frand(&seed);
    }
    const double t = 0.37, eps = 1e-6;

    /* Phi_z against central differences of Phi. */
    state(&c, z, zd);
    mbs_constraints_eval(m, &c.k, t, z, NULL, phiz, phit);
    mbs_constraints_bias(m, &c.k, t, bias);
    double err_jac = 0.0, scale = 1.0;
    for (int j = 0; j < n; ++j) {
        memcpy(zp, z, n * sizeof(double));
        memcpy(zm, z, n * sizeof(double));
        zp[j] += eps;
        zm[j] -= eps;
        state(&c, zp, zd);
        mbs_constraints_eval(m, &c.k, t, zp, phip, NULL, NULL);
        state(&c, zm, zd);
        mbs_constraints_eval(m, &c.k, t, zm, phim, NULL, NULL);
        for (int i = 0; i < nr; ++i) {
            double fd = (phip[i] - phim[i]) / (2 * eps);
            err_jac = fmax(err_jac, fabs(fd - phiz[i + (size_t)nr * j]));
            scale = fmax(scale, fabs(fd));
        }
    }
    tap_below(err_jac / scale, 1e-8, "%s: Phi_z matches central differences of Phi (%d rows)",
              name, nr);

    /* Bias: d/dt (Phi_z zd + Phi_t) at zdd = 0, along z(t) = z + t zd. */
    for (int i = 0; i < n; ++i) {
        zp[i] = z[i] + eps * zd[i];
        zm[i] = z[i] - eps * zd[i];
    }
    state(&c, zp, zd);
    mbs_constraints_eval(m, &c.k, t + eps, zp, NULL, phizp, phitp);
    state(&c, zm, zd);
    mbs_constraints_eval(m, &c.k, t - eps, zm, NULL, phizm, phitm);
    double err_bias = 0.0, bscale = 1.0;
    for (int i = 0; i < nr; ++i) {
        double vp = phitp[i], vm = phitm[i];
        for (int j = 0; j < n; ++j) {
            vp += phizp[i + (size_t)nr * j] * zd[j];
            vm += phizm[i + (size_t)nr * j] * zd[j];
        }
        double fd = (vp - vm) / (2 * eps);
        err_bias = fmax(err_bias, fabs(fd - bias[i]));
        bscale = fmax(bscale, fabs(fd));
    }
    tap_below(err_bias / bscale, 1e-7, "%s: acceleration bias matches d(Phi_z zd + Phi_t)/dt",
              name);

    /* Mass matrix: symmetric, and 1/2 zd^T M zd is the kinetic energy of the bodies. */
    state(&c, z, zd);
    mbs_dynamics_mass(m, &c.k, &c.d, M);
    double asym = 0.0, quad = 0.0;
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) {
            asym = fmax(asym, fabs(M[i + n * j] - M[j + n * i]));
            quad += 0.5 * zd[i] * M[i + n * j] * zd[j];
        }
    MbsEnergy e0 = energy(&c, z, zd);
    tap_below(asym, 1e-12, "%s: M is symmetric", name);
    tap_close(quad, e0.kinetic, 1e-10 * (1 + e0.kinetic), "%s: 1/2 zd^T M zd = body kinetic energy",
              name);
    /* M v without forming M (mbs_dynamics_mass_times) = the dense product, for v = zd and a
     * vector with every coordinate moving differently */
    double err_mv = 0.0, mv_scale = 1.0;
    for (int pass = 0; pass < 2; ++pass) {
        for (int i = 0; i < n; ++i)
            zp[i] = pass ? zd[i] : 0.3 + 0.7 * sin(1.3 * i);
        mbs_dynamics_mass_times(m, &c.k, &c.d, zp, zm);
        for (int i = 0; i < n; ++i) {
            double dense = 0.0;
            for (int j = 0; j < n; ++j)
                dense += M[i + n * j] * zp[j];
            err_mv = fmax(err_mv, fabs(dense - zm[i]));
            mv_scale = fmax(mv_scale, fabs(dense));
        }
    }
    tap_below(err_mv / mv_scale, 1e-13, "%s: M v without M = the dense product", name);
    /* Q of parts of the model: every body and force is Q; the bodies and the forces apart sum
     * to it (mbs_dynamics_forces_part, what a parameter of the dynamics differences) */
    {
        unsigned char all_b[64], all_f[64], none[64];
        memset(all_b, 1, sizeof all_b);
        memset(all_f, 1, sizeof all_f);
        memset(none, 0, sizeof none);
        double *Qp = malloc(sizeof(double) * 3 * (size_t)n);
        state(&c, z, zd);
        mbs_dynamics_forces(m, &c.k, &c.d, z, zd, Q);
        mbs_dynamics_forces_part(m, &c.k, &c.d, z, zd, all_b, all_f, Qp);
        mbs_dynamics_forces_part(m, &c.k, &c.d, z, zd, all_b, none, Qp + n);
        mbs_dynamics_forces_part(m, &c.k, &c.d, z, zd, none, all_f, Qp + 2 * n);
        double err_part = 0.0, qs = 1.0;
        for (int i = 0; i < n; ++i) {
            err_part = fmax(err_part, fabs(Qp[i] - Q[i]));
            err_part = fmax(err_part, fabs(Qp[n + i] + Qp[2 * n + i] - Q[i]));
            qs = fmax(qs, fabs(Q[i]));
        }
        tap_ok(m->nbodies <= 64 && m->nforces <= 64 && err_part <= 1e-12 * qs,
               "%s: Q of all parts = Q, bodies' + forces' = Q (%.2g)", name, err_part / qs);
        free(Qp);
    }

    /* Q against Lagrange's equations: Q = -Mdot zd + dT/dz - dV/dz. */
    if (conservative) {
        state(&c, z, zd);
        mbs_dynamics_forces(m, &c.k, &c.d, z, zd, Q);
        for (int i = 0; i < n; ++i) {
            zp[i] = z[i] + eps * zd[i];
            zm[i] = z[i] - eps * zd[i];
        }
        state(&c, zp, zd);
        mbs_dynamics_mass(m, &c.k, &c.d, Mp);
        state(&c, zm, zd);
        mbs_dynamics_mass(m, &c.k, &c.d, Mm);
        double err_q = 0.0, qscale = 1.0;
        for (int i = 0; i < n; ++i) {
            double mdot = 0.0;
            for (int j = 0; j < n; ++j)
                mdot += (Mp[i + n * j] - Mm[i + n * j]) / (2 * eps) * zd[j];
            memcpy(zp, z, n * sizeof(double));
            memcpy(zm, z, n * sizeof(double));
            zp[i] += eps;
            zm[i] -= eps;
            MbsEnergy ep = energy(&c, zp, zd), em = energy(&c, zm, zd);
            double dT = (ep.kinetic - em.kinetic) / (2 * eps);
            double dV = (ep.potential_gravity + ep.potential_elastic - em.potential_gravity -
                         em.potential_elastic) / (2 * eps);
            double lag = -mdot + dT - dV;
            err_q = fmax(err_q, fabs(lag - Q[i]));
            qscale = fmax(qscale, fabs(lag));
        }
        tap_below(err_q / qscale, 1e-6, "%s: Q = -Mdot zd + dT/dz - dV/dz (Lagrange)", name);
    }

    free(z); free(zd); free(zp); free(zm); free(phiz); free(phizp); free(phizm);
    free(phip); free(phim); free(phit); free(phitp); free(phitm); free(bias);
    free(M); free(Mp); free(Mm); free(Q);
    ctx_free(&c);
}

int main(void)
{
    MbsModel *fb = build_four_bar();
    tap_ok(fb->topo->nnodes == 4 && fb->topo->nrows == 3,
           "four-bar: 4 relative coordinates, 3 constraint equations (got %d, %d)",
           fb->topo->nnodes, fb->topo->nrows);
    /* leaves-to-root numbering */
    int ordered = 1;
    for (int i = 0; i < fb->topo->nnodes; ++i)
        if (fb->topo->nodes[i].parent >= 0 && fb->topo->nodes[i].parent <= i)
            ordered = 0;
    tap_ok(ordered, "nodes are numbered from the leaves to the root (parent > child)");
    check_model("four-bar", fb, 1);
    mbs_model_free(fb);

    MbsModel *dp = build_double_pendulum(M_PI / 2, M_PI / 2, 1);
    check_model("double-pendulum", dp, 1);
    mbs_model_free(dp);

    MbsModel *sc = build_slider_crank(0);
    check_model("slider-crank (prismatic cut, TSDA, RSDA)", sc, 1);
    mbs_model_free(sc);

    MbsModel *scd = build_slider_crank(1);
    check_model("slider-crank (driven)", scd, 0);
    mbs_model_free(scd);

    MbsModel *lat = build_lattice(2, 3);
    tap_ok(lat->topo->nnodes == 15, "lattice 2x3: 15 moving bars, one coordinate each (got %d)",
           lat->topo->nnodes);
    check_model("lattice 2x3", lat, 1);
    mbs_model_free(lat);
    return tap_done();
}
