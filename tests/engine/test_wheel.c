/* The wheel force element (engine/vehicle, issue 24): the road, the linear tyre law, the
 * element's derivative against central differences, the analytical tangent of both
 * descriptions' forces, and runs: static deflection m g / k, free rolling (Vsx ~ 0, energy
 * balance) in penalty and matrix-r, a four-wheel vehicle braking in two formulations. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mbs_dynamics.h"
#include "mbs_dynamics_derivatives.h"
#include "mbs_force.h"
#include "mbs_formulation.h"
#include "mbs_kinematics.h"
#include "mbs_road.h"
#include "mbs_topology.h"
#include "mbs_tyre_model.h"
#include "mbs_wheel.h"
#include "tyre_pac2002.h"
#include "tap.h"

static void die_on(int r, const MbsError *err)
{
    if (r < 0) {
        fprintf(stderr, "%s\n", err->message);
        exit(2);
    }
}

/* The linear law's numbers of the tests: R0 0.3 m, k 2e5 N/m, c 1500 N s/m, C_kappa 2e4 N,
 * C_alpha 3e4 N/rad, mu 0.9, Re (set per test), v_low 0.5 m/s. */
static MbsForce wheel_force(int body, const double centre[3], double Re)
{
    MbsForce f;
    memset(&f, 0, sizeof f);
    f.type = MBS_FORCE_WHEEL;
    f.body1 = f.body2 = f.joint = -1;
    f.body1 = body;
    memcpy(f.point1, centre, sizeof f.point1);
    f.axis[1] = 1.0;
    f.tyre_law = mbs_tyre_model_class_index("linear");
    double t[MBS_TYRE_LINEAR_COUNT] = {0.3, 2e5, 1500.0, 2e4, 3e4, 0.9, Re, 0.5};
    memcpy(f.tyre, t, sizeof t);
    return f;
}

static const double I_wheel[9] = {0.8, 0, 0, 0, 1.2, 0, 0, 0, 0.8};
static const double I_small[9] = {0.1, 0, 0, 0, 0.1, 0, 0, 0, 0.1};
#define M_WHEEL 20.0
#define M_HUB 5.0

/* A wheel on a rig: ground -(prismatic x)- slider -(prismatic z)- hub -(revolute y)- wheel, its
 * centre drawn at height z0, moving at v0 along x and spinning at w0. */
static MbsModel *rig(double z0, double v0, double w0, const MbsRoad *road, int *centre)
{
    MbsError err = {0};
    MbsModel *m = mbs_model_new("wheel-rig");
    m->gravity[2] = -9.81;
    double c[3] = {0, 0, z0}, x[3] = {1, 0, 0}, z[3] = {0, 0, 1}, y[3] = {0, 1, 0};
    int g = mbs_model_add_ground(m, "ground", &err);
    int s = mbs_model_add_body(m, "slider", 1.0, c, I_small, &err);
    int h = mbs_model_add_body(m, "hub", M_HUB, c, I_small, &err);
    int w = mbs_model_add_body(m, "wheel", M_WHEEL, c, I_wheel, &err);
    die_on(w, &err);
    int jx = mbs_model_add_joint(m, "px", MBS_JOINT_PRISMATIC, g, s, c, x, &err);
    die_on(mbs_model_add_joint(m, "pz", MBS_JOINT_PRISMATIC, s, h, c, z, &err), &err);
    int jr = mbs_model_add_joint(m, "spin", MBS_JOINT_REVOLUTE, h, w, c, y, &err);
    die_on(jr, &err);
    *centre = mbs_model_add_point(m, w, "centre", c, &err);
    MbsForce f = wheel_force(w, c, z0);
    snprintf(f.name, sizeof f.name, "tyre");
    die_on(mbs_model_add_force(m, &f, &err), &err);
    die_on(mbs_model_set_road(m, road, &err), &err);
    die_on(mbs_model_set_initial(m, jx, 0, 1, v0, &err), &err);
    die_on(mbs_model_set_initial(m, jr, 0, 1, w0, &err), &err);
    die_on(mbs_model_compile(m, &err), &err);
    return m;
}

static MbsFormulation *formulation(const MbsModel *m, const char *name, double h,
                                   const char *jacobian, MbsError *err)
{
    MbsSettings s;
    mbs_settings_defaults(&s);
    s.step = h;
    if (jacobian && mbs_settings_set_for(&s, name, "jacobian", jacobian, err))
        return NULL;
    return mbs_formulation_new(name, m, &s, err);
}

/* ---- the road ----------------------------------------------------------------------------- */

static void test_road(void)
{
    MbsError err = {0};
    MbsRoad *r = mbs_road_new(0.1, 0.8);
    double bump[2] = {0.2, 5.0}, step[3] = {-0.01, 8.0, 0.0}, pts[6] = {10, 0, 12, 0.2, 14, 0.2};
    die_on(mbs_road_add(r, mbs_road_class_index("bump"), bump, 2, NULL, 0, &err), &err);
    die_on(mbs_road_add(r, mbs_road_class_index("step"), step, 3, NULL, 0, &err), &err);
    die_on(mbs_road_add(r, mbs_road_class_index("profile"), NULL, 0, pts, 3, &err), &err);
    MbsRoadPoint p;
    mbs_road_eval(r, 5.05, 3.0, &p);
    tap_close(p.height, 0.1 + sqrt(0.01 - 0.0025), 1e-15, "road: height on the bump "
              "(0.1 + sqrt(R^2 - s^2))");
    tap_close(p.gradient[0], -0.05 / sqrt(0.0075), 1e-14, "road: slope on the bump -s/h");
    tap_close(p.normal[0] * p.normal[0] + p.normal[2] * p.normal[2], 1.0, 1e-15,
              "road: the normal is unit");
    mbs_road_eval(r, 9.0, 0.0, &p);
    tap_close(p.height, 0.09, 1e-15, "road: after the 1 cm step down");
    mbs_road_eval(r, 11.0, 0.0, &p);
    tap_close(p.height, 0.09 + 0.1, 1e-15, "road: the profile halfway up its ramp");
    tap_close(p.gradient[0], 0.1, 1e-15, "road: the profile's slope");
    tap_close(p.mu, 0.8, 0, "road: mu");
    MbsRoad *c = mbs_road_copy(r);
    mbs_road_eval(c, 11.0, 0.0, &p);
    tap_close(p.height, 0.19, 1e-15, "road: a copy is the same road");
    double bad[3] = {0.01, 1.0, -1.0};
    tap_ok(mbs_road_add(r, mbs_road_class_index("step"), bad, 3, NULL, 0, &err) < 0 &&
               strstr(err.message, "length"),
           "road: a negative step length is refused naming the field (%s)", err.message);
    mbs_road_free(c);
    mbs_road_free(r);
}

/* ---- the linear law ------------------------------------------------------------------------ */

static void test_linear_law(void)
{
    const MbsTyreModelClass *c = mbs_tyre_model_class_by_name("linear");
    MbsError err = {0};
    MbsTyreData *d = c->parse(NULL, 0, NULL, &err);
    tap_ok(d != NULL, "linear: parse(NULL) gives the defaults");
    /* small slip: F = C kappa; large: |F| -> mu Fz */
    MbsTyreInput in = {.in = {3000.0, 10.0, 0.0, 10.0 / 0.3 * 1.001, 0.0}, .mu_scale = 1.0};
    MbsTyreOutput out;
    c->evaluate(d, &in, &out, NULL);
    double V = sqrt(100.0 + 1.0), kappa = 10.0 * 0.001 / V;
    tap_close(out.kappa, kappa, 1e-15, "linear: kappa = -Vsx / sqrt(Vcx^2 + v_low^2)");
    tap_close(out.out[MBS_TYRE_OUT_FX], 5e4 * kappa, 5e4 * kappa * 1e-3,
              "linear: Fx = C_kappa kappa at small slip");
    in.in[MBS_TYRE_IN_VY] = -5.0;
    c->evaluate(d, &in, &out, NULL);
    double F = hypot(out.out[MBS_TYRE_OUT_FX], out.out[MBS_TYRE_OUT_FY]);
    tap_close(F, 3000.0, 1e-9, "linear: |F| = mu Fz = 3000 N when sliding (got %.6f N)", F);
    /* d out / d in against central differences, at several inputs */
    const double ins[4][5] = {{3000, 10, 0.3, 33.0, 0}, {2000, 0.2, -0.1, 1.0, 0.02},
                              {4000, -3, 1.0, -9.0, 0}, {500, 20, -4, 60, 0}};
    double worst = 0.0;
    for (int s = 0; s < 4; ++s) {
        MbsTyreInput x = {.mu_scale = 0.9};
        memcpy(x.in, ins[s], sizeof x.in);
        MbsTyreDerivative D;
        c->evaluate(d, &x, &out, &D);
        for (int j = 0; j < MBS_TYRE_IN_COUNT; ++j) {
            double hstep = 1e-6 * fmax(1.0, fabs(x.in[j]));
            MbsTyreInput p = x, mns = x;
            MbsTyreOutput op, om;
            p.in[j] += hstep;
            mns.in[j] -= hstep;
            c->evaluate(d, &p, &op, NULL);
            c->evaluate(d, &mns, &om, NULL);
            for (int i = 0; i < MBS_TYRE_OUT_COUNT; ++i) {
                double fd = (op.out[i] - om.out[i]) / (2 * hstep);
                worst = fmax(worst, fabs(fd - D.d[i][j]) / fmax(1.0, fabs(fd)));
            }
        }
    }
    tap_below(worst, 1e-6, "linear: d out/d in = central differences (worst relative %.2e)",
              worst);
    c->free_data(d);
}

/* ---- the element's derivative --------------------------------------------------------------- */

/* The wrench (6) of f at input in. */
static void wrench(const MbsForce *f, const MbsForceInput *in, double out[6])
{
    const MbsForceClass *c = mbs_force_class(f->type);
    MbsForceOutput o;
    c->evaluate(f, in, &o);
    memcpy(out, o.vector, 3 * sizeof(double));
    memcpy(out + 3, o.torque, 3 * sizeof(double));
}

static double element_gap(const MbsForce *f, const MbsForceInput *in, double *scale)
{
    const MbsForceClass *c = mbs_force_class(f->type);
    MbsForceDerivative D;
    c->derivative(f, in, &D);
    double worst = 0.0, big = 0.0;
    for (int group = 0; group < 4; ++group)
        for (int b = 0; b < 3; ++b) {
            MbsForceInput p = *in, mns = *in;
            double *xp = group == 0 ? p.r : group == 1 ? p.v : group == 2 ? p.axis : p.omega;
            double *xm = group == 0 ? mns.r : group == 1 ? mns.v : group == 2 ? mns.axis
                                                                           : mns.omega;
            double h = 1e-7 * fmax(1.0, fabs(xp[b]));
            xp[b] += h;
            xm[b] -= h;
            double wp[6], wm[6];
            wrench(f, &p, wp);
            wrench(f, &mns, wm);
            for (int a = 0; a < 6; ++a) {
                double fd = (wp[a] - wm[a]) / (2 * h);
                const double(*M)[3] =
                    a < 3 ? (group == 0 ? D.d_vector_r : group == 1 ? D.d_vector_v
                             : group == 2 ? D.d_vector_a : D.d_vector_w)
                          : (group == 0 ? D.d_torque_r : group == 1 ? D.d_torque_v
                             : group == 2 ? D.d_torque_a : D.d_torque_w);
                double an = M[a % 3][b];
                if (getenv("WHEEL_DEBUG") && fabs(fd - an) > 1e-5 * fmax(1.0, fabs(an)))
                    printf("# group %d dir %d out %d: an %.9e fd %.9e\n", group, b, a, an, fd);
                worst = fmax(worst, fabs(fd - an));
                big = fmax(big, fabs(an));
            }
        }
    *scale = big;
    return worst;
}

/* One state of a wheel (contact point r, velocity v, angular velocity w, axis ax / |ax| = n) on
 * road: its vertical force is positive and its derivative within 1e-6 of the largest entry of
 * central differences (element_gap); prefix and what name the check. */
static void check_wheel_state(const MbsForce *f, const MbsRoad *road, const double r[3],
                              const double v[3], const double w[3], const double ax[3], double n,
                              const char *prefix, const char *what)
{
    MbsForceInput in = {.road = road};
    memcpy(in.r, r, sizeof in.r);
    memcpy(in.v, v, sizeof in.v);
    memcpy(in.omega, w, sizeof in.omega);
    for (int k = 0; k < 3; ++k)
        in.axis[k] = ax[k] / n;
    double wr[6];
    wrench(f, &in, wr);
    double scale, gap = element_gap(f, &in, &scale);
    tap_ok(wr[2] > 0.0 && gap <= 1e-6 * scale,
           "%swheel derivative = central differences, %s (Fz %.0f N, gap %.2e of %.2e)", prefix,
           what, wr[2], gap, scale);
}

static void test_element_derivative(void)
{
    double c0[3] = {0, 0, 0.3};
    MbsForce f = wheel_force(0, c0, 0.295);
    MbsRoad *flat = mbs_road_new(0.0, 1.0), *bumpy = mbs_road_new(0.0, 1.0);
    MbsError err = {0};
    double bump[2] = {0.4, 1.0};
    die_on(mbs_road_add(bumpy, mbs_road_class_index("bump"), bump, 2, NULL, 0, &err), &err);
    /* a tilted, steered axis (unit), a spinning wheel */
    double ax[3] = {0.1, 0.99, 0.05}, n = sqrt(0.01 + 0.99 * 0.99 + 0.0025);
    struct {
        const char *what;
        const MbsRoad *road;
        double r[3], v[3], w[3];
    } cases[] = {
        {"flat road, free rolling", flat, {0.2, 0.1, 0.296}, {10, 0.0, -0.1}, {0.1, 10 / 0.295, 0}},
        {"flat road, with slip", flat, {0.2, 0.1, 0.292}, {10, 0.8, 0.2}, {0.3, 25, 0.5}},
        {"flat road, saturated", flat, {0.2, 0.1, 0.29}, {3, 2.5, 0.2}, {0.3, 40, 0.5}},
        {"flat road, near rest", flat, {0.0, 0.0, 0.295}, {0.05, 0.01, -0.02}, {0, 0.3, 0.1}},
        {"on the bump", bumpy, {0.95, 0.0, 0.47}, {5, 0.2, 0.4}, {0, 15, 0.2}},
        {"on the bump, braking", bumpy, {1.05, 0.0, 0.47}, {5, -0.2, -0.4}, {0.1, 10, -0.2}},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i)
        check_wheel_state(&f, cases[i].road, cases[i].r, cases[i].v, cases[i].w, ax, n, "",
                          cases[i].what);
    mbs_road_free(flat);
    mbs_road_free(bumpy);
}

/* The text of a .tir file into buf (static storage of 64 KiB), its length in *len; NULL (a
 * failed check) when it cannot be opened. */
static const char *read_tir_text(const char *path, const char *name, size_t *len)
{
    static char buf[1 << 16];
    FILE *fp = fopen(path, "rb");
    if (!fp) {
        tap_ok(0, "%s: open", name);
        return NULL;
    }
    *len = fread(buf, 1, sizeof buf, fp);
    fclose(fp);
    return buf;
}

/* The wheel with the PAC2002 law of a .tir file (data/tyres): the element's derivative against
 * central differences of evaluate at states like the vehicle models' (rolling at 50 km/h,
 * loaded, small slip) and in the low-speed band. Measured (2026-11-29): the gap, dominated by
 * the axis columns, falls as h^2 (CityBus, free rolling: 3.0e-1, 3.0e-3 at h = 1e-5, 1e-6) to
 * the rounding floor (5e-4 of 1e6 at h = 1e-7): no wrong term in the exact derivative here.
 * WHEEL_DEBUG=1 prints the entries that differ by more than 1e-5 relative. */
static void test_pac2002_derivative(const char *path, const char *name, double R0, int mirror)
{
    size_t len;
    const char *buf = read_tir_text(path, name, &len);
    if (!buf)
        return;
    MbsError err = {0};
    const MbsTyreModelClass *law = mbs_tyre_model_class_by_name("pac2002");
    double c0[3] = {0, 0, R0};
    MbsForce f = wheel_force(0, c0, R0);
    f.tyre_law = mbs_tyre_model_class_index("pac2002");
    f.tyre_data = law->parse(buf, len, name, &err);
    die_on(f.tyre_data ? 0 : -1, &err);
    f.tyre_mirror = mirror;
    const char *side = mirror ? " (mirrored: the other side)" : "";
    double rr, k, c;
    law->vertical(f.tyre_data, NULL, &rr, &k, &c);
    MbsRoad *flat = mbs_road_new(0.0, 1.0);
    double ax[3] = {0.02, 0.999, 0.01}, n = mbs_v3_norm(ax);
    double vl = 13.9, dz = 4000.0 / k; /* 50 km/h; a few kN of load */
    struct {
        const char *what;
        double r[3], v[3], w[3];
    } cases[] = {
        {"50 km/h, free rolling", {0.2, 0.1, rr - dz}, {vl, 0.0, 0.0}, {0, vl / (rr - dz), 0}},
        {"50 km/h, small slip", {0.2, 0.1, rr - dz}, {vl, 0.3, 0.05}, {0.1, vl / (rr - dz) * 1.01, 0.2}},
        {"50 km/h, braking, slip", {0.2, 0.1, rr - 2 * dz}, {vl, -0.8, -0.05}, {0.1, vl / rr * 0.9, -0.3}},
        {"low-speed band", {0.0, 0.0, rr - dz}, {0.3, 0.05, -0.02}, {0, 0.3 / rr * 1.05, 0.1}},
    };
    char prefix[160];
    snprintf(prefix, sizeof prefix, "%s%s: ", name, side);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i)
        check_wheel_state(&f, flat, cases[i].r, cases[i].v, cases[i].w, ax, n, prefix,
                          cases[i].what);
    /* the same through the dual kernel with the wheel's multipliers of the scaling factors off
     * 1 (a model file's tyre_scaling: the law reads them, LCZ the vertical stiffness too) */
    MbsForce scaled = f;
    scaled.tyre_scaled = 1;
    for (int i = 0; i < MBS_FORCE_TYRE_SCALES; ++i)
        scaled.tyre_scale[i] = i < mbs_tyre_scaling_count(law) ? 1.0 + 0.1 * sin(2.0 + i) : 1.0;
    char scaled_prefix[200];
    snprintf(scaled_prefix, sizeof scaled_prefix, "%s%s, tyre_scaling off 1: ", name, side);
    for (size_t i = 1; i < 3; ++i)
        check_wheel_state(&scaled, flat, cases[i].r, cases[i].v, cases[i].w, ax, n,
                          scaled_prefix, cases[i].what);
    /* Camber exactly 0 (an upright wheel on a flat road: the vehicle models' drawn state at
     * t = 0) is a kink of PAC2002 (|gamma| in Ky via PKY3 and in Bt via QBZ5): the exact
     * derivative along the camber (the axis' z) is the right-hand one (MBS_FABS' slope at 0),
     * which a forward difference reproduces to O(h); central differences average the two
     * slopes (measured: HMMWV Fy 50 km/h, -278 exact vs -230 central, 17%). */
    MbsForceInput in = {.road = flat};
    double a0[3] = {0.02, 0.999, 0.0}, n0 = mbs_v3_norm(a0);
    for (int j = 0; j < 3; ++j) {
        in.axis[j] = a0[j] / n0;
        in.r[j] = cases[0].r[j];
        in.v[j] = cases[0].v[j];
        in.omega[j] = cases[0].w[j];
    }
    MbsForceDerivative D;
    mbs_force_class(f.type)->derivative(&f, &in, &D);
    double w0[6], wp[6], wm[6], h = 1e-6, fwd = 0.0, cen = 0.0, big = 0.0;
    wrench(&f, &in, w0);
    MbsForceInput p = in, m = in;
    p.axis[2] += h;
    m.axis[2] -= h;
    wrench(&f, &p, wp);
    wrench(&f, &m, wm);
    /* mirrored, the law reads -gamma: its right-hand slope is the wheel's left-hand one */
    const double *one = mirror ? wm : wp;
    for (int a = 0; a < 6; ++a) {
        double an = a < 3 ? D.d_vector_a[a][2] : D.d_torque_a[a - 3][2];
        fwd = fmax(fwd, fabs((mirror ? w0[a] - one[a] : one[a] - w0[a]) / h - an));
        cen = fmax(cen, fabs((wp[a] - wm[a]) / (2 * h) - an));
        big = fmax(big, fabs(an));
    }
    tap_ok(fwd <= 1e-3 * big && cen > 1e-2 * big,
           "%s%s: at camber 0 (a kink) the derivative along the camber is the %s one "
           "(one-sided difference gap %.2e, central %.2e, of %.2e)", name, side,
           mirror ? "left-hand" : "right-hand", fwd, cen, big);
    law->free_data(f.tyre_data);
    mbs_road_free(flat);
}

/* The analytical dQ/dz, dQ/dzd of the relative coordinates (mbs_dynamics_forces_derivatives)
 * against central differences of Q, on a tree that turns the wheel's axis (roll and steer). */

/* The reflection in the XZ plane (the vehicle's mirror image): polar vectors (position,
 * velocity, force) keep x, z and flip y; axial ones (angular velocity, torque) keep y and flip
 * x, z; the spin axis, which points left on both sides, is carried as an axial vector. */
static void reflect_polar(const double a[3], double b[3]) { b[0] = a[0], b[1] = -a[1], b[2] = a[2]; }
static void reflect_axial(const double a[3], double b[3]) { b[0] = -a[0], b[1] = a[1], b[2] = -a[2]; }

/* TYRESIDE mirroring (mbs_tyre_evaluate, docs/formulations.md § Tyres): (1) the physical
 * symmetry: a mirrored wheel in the mirror image of a state gives the mirror image of the
 * unmirrored wheel's wrench (the geometry's frames, V_cy and gamma, and the law's output signs
 * all take part; exact up to rounding); (2) at alpha = S_Hy, kappa = gamma = 0 a mirrored tyre's
 * Fy is -S_Vy (closed form from the file's PVY1, PVY2, LVY, LMUY), the unmirrored one's at
 * -S_Hy is +S_Vy: the conicity/ply-steer offsets change sign with the side. */
static void test_mirror_symmetry(const char *path, const char *name)
{
    size_t len;
    const char *buf = read_tir_text(path, name, &len);
    if (!buf)
        return;
    MbsError err = {0};
    const MbsTyreModelClass *law = mbs_tyre_model_class_by_name("pac2002");
    double rr, k, c, c0[3] = {0, 0, 0.5};
    MbsForce f = wheel_force(0, c0, 0.5);
    f.tyre_law = mbs_tyre_model_class_index("pac2002");
    f.tyre_data = law->parse(buf, len, name, &err);
    die_on(f.tyre_data ? 0 : -1, &err);
    tap_ok(mbs_tyre_side(law, f.tyre_data) == MBS_TYRE_LEFT, "%s: TYRESIDE = 'LEFT'", name);
    MbsForce g = f;
    g.tyre_mirror = 1;
    law->vertical(f.tyre_data, NULL, &rr, &k, &c);
    MbsRoad *flat = mbs_road_new(0.0, 1.0);
    double dz = 4000.0 / k, vl = 13.9, worst = 0.0, big = 0.0, asym = 0.0;
    const double states[3][4][3] = { /* r, v, axis (unnormalised), w */
        {{0.2, 0.6, rr - dz}, {vl, 0.3, 0.05}, {0.02, 0.999, 0.03}, {0.1, vl / rr * 1.01, 0.2}},
        {{0.2, -0.6, rr - 2 * dz}, {vl, -0.8, -0.05}, {-0.05, 0.998, -0.04}, {0.1, vl / rr * 0.9, -0.3}},
        {{0.0, 0.7, rr - dz}, {0.3, 0.05, -0.02}, {0.0, 1.0, 0.02}, {0, 0.3 / rr * 1.05, 0.1}},
    };
    for (int s = 0; s < 3; ++s) {
        MbsForceInput in = {.road = flat}, im = {.road = flat};
        double n = mbs_v3_norm(states[s][2]);
        for (int j = 0; j < 3; ++j) {
            in.r[j] = states[s][0][j];
            in.v[j] = states[s][1][j];
            in.axis[j] = states[s][2][j] / n;
            in.omega[j] = states[s][3][j];
        }
        reflect_polar(in.r, im.r);
        reflect_polar(in.v, im.v);
        reflect_axial(in.axis, im.axis);
        reflect_axial(in.omega, im.omega);
        double w[6], wm[6], wr[6], wu[6];
        wrench(&f, &in, w);
        wrench(&g, &im, wm);
        wrench(&f, &im, wu); /* the same tyre unmirrored in the mirror state */
        reflect_polar(w, wr);
        reflect_axial(w + 3, wr + 3);
        for (int a = 0; a < 6; ++a) {
            worst = fmax(worst, fabs(wm[a] - wr[a]));
            asym = fmax(asym, fabs(wu[a] - wr[a]));
            big = fmax(big, fabs(w[a]));
        }
    }
    tap_ok(worst <= 1e-12 * big && asym > 1e-3 * big,
           "%s: a mirrored wheel in the mirror state gives the mirror wrench (gap %.2e of %.2e; "
           "unmirrored there it would differ by %.2e)", name, worst, big, asym);

    /* (2) closed form: S_Hy = PHY1 + PHY2 dfz (LHY = 1), S_Vy = Fz (PVY1 + PVY2 dfz) LVY LMUY
     * at gamma = 0 above VXLOW (4.E27, 4.E29) */
    const MbsTir *t = mbs_pac2002_tir(f.tyre_data);
    double fz = t->FNOMIN * 0.8, dfz = (fz - t->FNOMIN * t->LFZO) / (t->FNOMIN * t->LFZO);
    double shy = (t->PHY1 + t->PHY2 * dfz) * t->LHY;
    double svy = fz * (t->PVY1 + t->PVY2 * dfz) * t->LVY * t->LMUY;
    double re = mbs_pac2002_rolling_radius(f.tyre_data, fz);
    MbsTyreOutput ol, om;
    MbsTyreInput tl = {.in = {fz, vl, vl * tan(-shy), vl / re, 0.0}, .mu_scale = 1.0};
    MbsTyreInput tm = {.in = {fz, vl, vl * tan(shy), vl / re, 0.0}, .mu_scale = 1.0};
    mbs_tyre_evaluate(law, f.tyre_data, 0, &tl, &ol, NULL);
    mbs_tyre_evaluate(law, f.tyre_data, 1, &tm, &om, NULL);
    double el = fabs(ol.out[MBS_TYRE_OUT_FY] - svy), em = fabs(om.out[MBS_TYRE_OUT_FY] + svy);
    tap_ok(el <= 1e-10 * fz && em <= 1e-10 * fz && fabs(svy) > 1e-3 * fz,
           "%s: Fy(alpha = -S_Hy) = S_Vy = %.2f N left, Fy(alpha = +S_Hy) = -S_Vy mirrored "
           "(gaps %.1e, %.1e N; alpha reported %.5f = S_Hy)", name, svy, el, em,
           om.alpha);
    tap_ok(fabs(om.alpha - shy) <= 1e-12, "%s: the mirrored tyre reports its own alpha "
           "(%.6f, S_Hy %.6f)", name, om.alpha, shy);
    law->free_data(f.tyre_data);
    mbs_road_free(flat);
}

static void test_kernel_derivative(void)
{
    MbsError err = {0};
    MbsModel *m = mbs_model_new("steered");
    m->gravity[2] = -9.81;
    double c[3] = {0, 0, 0.3}, x[3] = {1, 0, 0}, y[3] = {0, 1, 0}, z[3] = {0, 0, 1};
    double p1[3] = {0, 0, 0.5};
    int g = mbs_model_add_ground(m, "ground", &err);
    int s1 = mbs_model_add_body(m, "s1", 1.0, c, I_small, &err);
    int s2 = mbs_model_add_body(m, "s2", 1.0, c, I_small, &err);
    int s3 = mbs_model_add_body(m, "s3", 3.0, p1, I_small, &err);
    int kn = mbs_model_add_body(m, "knuckle", 2.0, c, I_small, &err);
    int w = mbs_model_add_body(m, "wheel", M_WHEEL, c, I_wheel, &err);
    die_on(mbs_model_add_joint(m, "px", MBS_JOINT_PRISMATIC, g, s1, c, x, &err), &err);
    die_on(mbs_model_add_joint(m, "pz", MBS_JOINT_PRISMATIC, s1, s2, c, z, &err), &err);
    die_on(mbs_model_add_joint(m, "roll", MBS_JOINT_REVOLUTE, s2, s3, p1, x, &err), &err);
    die_on(mbs_model_add_joint(m, "steer", MBS_JOINT_REVOLUTE, s3, kn, c, z, &err), &err);
    die_on(mbs_model_add_joint(m, "spin", MBS_JOINT_REVOLUTE, kn, w, c, y, &err), &err);
    MbsForce f = wheel_force(w, c, 0.295);
    die_on(mbs_model_add_force(m, &f, &err), &err);
    MbsRoad *road = mbs_road_new(0.0, 1.0);
    double bump[2] = {0.4, 0.1};
    die_on(mbs_road_add(road, mbs_road_class_index("bump"), bump, 2, NULL, 0, &err), &err);
    die_on(mbs_model_set_road(m, road, &err), &err);
    mbs_road_free(road);
    die_on(mbs_model_compile(m, &err), &err);
    char why[256];
    tap_ok(mbs_dynamics_derivatives_supported(m, why, sizeof why),
           "relative coordinates: the analytical tangent covers the wheel");
    int n = m->topo->nnodes;
    MbsKinematics k;
    MbsDynamics d;
    MbsDynamicsDerivatives dw;
    mbs_kinematics_init(&k, m);
    mbs_dynamics_init(&d, m);
    mbs_dynamics_derivatives_init(&dw, m);
    double *Kz = calloc((size_t)(n * n), sizeof(double)), *Cz = calloc((size_t)(n * n), sizeof(double));
    double zz[8], zd[8], Qp[8], Qm[8];
    /* states: in contact on the flat road, on the bump, steered and rolled, with slip */
    const double states[3][2][5] = {
        {{0.6, -0.006, 0.03, 0.1, 0.4}, {8, -0.1, 0.2, 0.3, 27}},
        {{0.12, 0.08, -0.02, -0.15, 1.0}, {5, 0.3, -0.2, 0.1, 12}},
        {{-0.5, -0.004, 0.05, 0.3, 2.0}, {2, 0.0, 0.1, -0.4, 9}},
    };
    for (int sidx = 0; sidx < 3; ++sidx) {
        for (int j = 0; j < 5; ++j) { /* by joint: px, pz, roll, steer, spin */
            zz[m->topo->joint_node[j]] = states[sidx][0][j];
            zd[m->topo->joint_node[j]] = states[sidx][1][j];
        }
        mbs_kinematics_positions(m, &k, zz);
        mbs_kinematics_velocities(m, &k, zd);
        mbs_dynamics_forces_derivatives(m, &k, &dw, zz, zd, 1.0, Cz, Kz, (size_t)n);
        MbsWheelInfo info;
        MbsForceInput in;
        mbs_dynamics_force_input(m, &k, zz, zd, &m->forces[0], &in, NULL, NULL);
        double fv[3], tv[3];
        mbs_force_wheel_contact(&m->forces[0], m->road, in.r, in.v, in.axis, in.omega, fv, tv,
                                &info);
        double worst = 0.0, big = 0.0;
        for (int j = 0; j < n; ++j)
            for (int vel = 0; vel < 2; ++vel) {
                double *x = vel ? zd : zz, h = 1e-6, keep = x[j];
                x[j] = keep + h;
                mbs_kinematics_positions(m, &k, zz);
                mbs_kinematics_velocities(m, &k, zd);
                mbs_dynamics_forces(m, &k, &d, zz, zd, Qp);
                x[j] = keep - h;
                mbs_kinematics_positions(m, &k, zz);
                mbs_kinematics_velocities(m, &k, zd);
                mbs_dynamics_forces(m, &k, &d, zz, zd, Qm);
                x[j] = keep;
                for (int i = 0; i < n; ++i) {
                    double fd = (Qp[i] - Qm[i]) / (2 * h), an = (vel ? Cz : Kz)[i + n * j];
                    worst = fmax(worst, fabs(fd - an));
                    big = fmax(big, fabs(an));
                }
            }
        if (!(info.fz > 0.0))
            tap_diag("delta %g r %g %g %g a %g %g %g", info.delta, in.r[0], in.r[1], in.r[2],
                     in.axis[0], in.axis[1], in.axis[2]);
        tap_ok(info.fz > 0.0 && worst <= 1e-6 * big,
               "relative coordinates: analytical dQ/d(z, zd) = central differences, state %d "
               "(Fz %.0f N, kappa %.3f, alpha %.3f; gap %.2e of %.2e)",
               sidx, info.fz, info.kappa, info.alpha, worst, big);
    }
    free(Kz);
    free(Cz);
    mbs_dynamics_derivatives_free(&dw);
    mbs_dynamics_free(&d);
    mbs_kinematics_free(&k);
    mbs_model_free(m);
}

/* ---- runs ------------------------------------------------------------------------------------ */

static void test_static_deflection(void)
{
    MbsRoad *road = mbs_road_new(0.0, 1.0);
    int centre;
    MbsModel *m = rig(0.3, 0.0, 0.0, road, &centre);
    const char *names[] = {"penalty", "matrix-r"};
    double want = (M_WHEEL + M_HUB) * 9.81 / 2e5;
    for (int i = 0; i < 2; ++i) {
        MbsError err = {0};
        MbsFormulation *f = formulation(m, names[i], 1e-3, NULL, &err);
        int ok = f != NULL;
        for (int s = 0; ok && s < 1500; ++s)
            ok = mbs_formulation_step(f, &err) == 0;
        double r[3] = {0};
        if (ok)
            mbs_formulation_point_position(f, centre, r);
        else
            tap_diag("%s", err.message);
        tap_diag("%s: deflection %.9g m, m g / k %.9g m", names[i], 0.3 - r[2], want);
        tap_close(0.3 - r[2], want, 1e-6 * want,
                  "%s: a wheel at rest settles to the static deflection (m g / k = %.6g m)",
                  names[i], want);
        mbs_formulation_free(f);
    }
    mbs_model_free(m);
    mbs_road_free(road);
}

typedef struct {
    double x, drift, vsx, energy;
} Rolling;

static int roll(const MbsModel *m, int centre, const char *name, const char *jacobian, double h,
                double duration, Rolling *out)
{
    MbsError err = {0};
    MbsFormulation *f = formulation(m, name, h, jacobian, &err);
    if (!f) {
        tap_diag("%s: %s", name, err.message);
        return 0;
    }
    double e0 = f->monitors.total;
    out->drift = out->vsx = 0.0;
    long steps = lround(duration / h);
    int ok = 1;
    for (long s = 0; ok && s < steps; ++s) {
        ok = mbs_formulation_step(f, &err) == 0;
        out->drift = fmax(out->drift, fabs(f->monitors.total - e0));
        double r[3], v[3], R[9], p[3];
        mbs_formulation_point_position(f, centre, r);
        mbs_formulation_point_velocity(f, centre, v);
        (void)R, (void)p;
        out->x = r[0];
    }
    if (!ok)
        tap_diag("%s: %s", name, err.message);
    out->energy = fabs(e0);
    /* the slip velocity at the end, from the element itself */
    const MbsForce *F = &m->forces[0];
    double R[9], pw[3], r[3], v[3], w[3], a[3], fv[3], tv[3];
    mbs_formulation_body_pose(f, F->body1, R, pw);
    mbs_formulation_point_position(f, centre, r);
    mbs_formulation_point_velocity(f, centre, v);
    mbs_m3_mulv(R, F->axis, a);
    /* the wheel's angular velocity: its spin coordinate's rate about y (the rig turns nothing
     * else) */
    int n = f->klass->ncoords(f); /* natural coordinates: 12 per body */
    double *q = malloc(sizeof(double) * (size_t)n), *qd = malloc(sizeof(double) * (size_t)n);
    f->klass->coordinates(f, q, qd);
    w[0] = w[2] = 0.0;
    /* the spin joint's rate (relative coordinates); natural coordinates: u x u' . y of the
     * wheel's first unit vector (its last body) */
    if (f->klass->coordinate_kind == MBS_COORDINATES_RELATIVE) {
        w[1] = qd[m->topo->joint_node[2]];
    } else {
        const double *u = q + n - 9, *ud = qd + n - 9;
        w[1] = u[2] * ud[0] - u[0] * ud[2];
    }
    MbsWheelInfo info;
    mbs_force_wheel_contact(F, m->road, r, v, a, w, fv, tv, &info);
    out->vsx = v[0] - w[1] * F->tyre[MBS_TYRE_LINEAR_ROLLING];
    free(q);
    free(qd);
    mbs_formulation_free(f);
    return ok;
}

static void test_free_rolling(void)
{
    MbsRoad *road = mbs_road_new(0.0, 1.0);
    double ds = (M_WHEEL + M_HUB) * 9.81 / 2e5, z0 = 0.3 - ds, v0 = 10.0;
    int centre;
    /* spinning 3 % slow at the start: the tyre brings it to free rolling */
    MbsModel *m = rig(z0, v0, 0.97 * v0 / z0, road, &centre);
    Rolling r[2];
    const char *names[] = {"penalty", "matrix-r"};
    for (int i = 0; i < 2; ++i) {
        int ok = roll(m, centre, names[i], NULL, 1e-3, 1.0, &r[i]);
        (void)ok;
        tap_ok(ok && fabs(r[i].vsx) < 1e-6,
               "%s: a wheel rolling freely (spinning 3 %% slow at first) reaches Vsx = %.2e m/s "
               "(~0) at ~10 m/s", names[i], r[i].vsx);
        tap_diag("%s: x %.9f m after 1 s, energy drift %.3e J", names[i], r[i].x, r[i].drift);
        tap_below(r[i].drift, 5e-6 * r[i].energy,
                  "%s: energy balance T + V + V_tyre - W_dissipated constant (drift %.2e J of "
                  "%.3g J)", names[i], r[i].drift, r[i].energy);
    }
    /* the natural coordinates: ali3p (its analytical tangent, then ad), ssode */
    const char *nat[] = {"ali3p", "ali3p", "ssode"};
    for (int i = 0; i < 3; ++i) {
        Rolling rn;
        int ok = roll(m, centre, nat[i], i == 1 ? "ad" : NULL, 1e-3, 1.0, &rn);
        tap_diag("%s: x %.9f m after 1 s, energy drift %.3e J, Vsx %.3e", nat[i], rn.x, rn.drift,
                 rn.vsx);
        tap_ok(ok && fabs(rn.x - r[0].x) < 4e-4 && fabs(rn.vsx) < 5e-5,
               "%s: the same distance as penalty (%.6f m) and Vsx ~ 0 (%.2e m/s)", nat[i], rn.x,
               rn.vsx);
        tap_below(rn.drift, 5e-5 * rn.energy, "%s: energy balance (drift %.2e J of %.3g J)",
                  nat[i], rn.drift, rn.energy);
    }
    tap_close(r[0].x, r[1].x, 1e-5, "penalty and matrix-r: the same distance rolled (%.6f, "
              "%.6f m)", r[0].x, r[1].x);
    mbs_model_free(m);
    mbs_road_free(road);
}

/* A four-wheel vehicle (models/vehicle-simple.json's): a chassis moving in XZ (prismatic X,
 * prismatic Z, pitch) on four wheels on revolute joints, braking with viscous brakes on the front
 * wheels, stepping down 3 cm over a smooth ramp. */
static MbsModel *vehicle(int *chassis_point)
{
    MbsError err = {0};
    MbsModel *m = mbs_model_new("vehicle");
    m->gravity[2] = -9.81;
    double C[3] = {0, 0, 0.5}, x[3] = {1, 0, 0}, y[3] = {0, 1, 0}, z[3] = {0, 0, 1};
    double Ic[9] = {800 / 12.0 * (1.6 * 1.6 + 0.25), 0, 0, 0, 800 / 12.0 * (3.6 * 3.6 + 0.25), 0,
                    0, 0, 800 / 12.0 * (3.6 * 3.6 + 1.6 * 1.6)};
    double Iw[9] = {0.3875, 0, 0, 0, 0.675, 0, 0, 0, 0.3875};
    double R0 = 0.3, k = 2e5, zc = 0.28943, v0 = 10.0;
    int g = mbs_model_add_ground(m, "ground", &err);
    int ca = mbs_model_add_body(m, "carrier", 1.0, C, I_small, &err);
    int he = mbs_model_add_body(m, "heave", 1.0, C, I_small, &err);
    int ch = mbs_model_add_body(m, "chassis", 800.0, C, Ic, &err);
    int jd = mbs_model_add_joint(m, "drive", MBS_JOINT_PRISMATIC, g, ca, C, x, &err);
    die_on(mbs_model_add_joint(m, "bounce", MBS_JOINT_PRISMATIC, ca, he, C, z, &err), &err);
    die_on(mbs_model_add_joint(m, "pitch", MBS_JOINT_REVOLUTE, he, ch, C, y, &err), &err);
    *chassis_point = mbs_model_add_point(m, ch, "C", C, &err);
    const double at[4][2] = {{1.3, 0.75}, {1.3, -0.75}, {-1.3, 0.75}, {-1.3, -0.75}};
    for (int i = 0; i < 4; ++i) {
        double W[3] = {at[i][0], at[i][1], zc};
        int w = mbs_model_add_body(m, i == 0 ? "fl" : i == 1 ? "fr" : i == 2 ? "rl" : "rr", 15.0,
                                   W, Iw, &err);
        char jn[16];
        snprintf(jn, sizeof jn, "spin%d", i);
        int j = mbs_model_add_joint(m, jn, MBS_JOINT_REVOLUTE, ch, w, W, y, &err);
        die_on(j, &err);
        MbsForce f = wheel_force(w, W, zc);
        f.tyre[MBS_TYRE_LINEAR_RADIUS] = R0;
        f.tyre[MBS_TYRE_LINEAR_STIFFNESS] = k;
        f.tyre[MBS_TYRE_LINEAR_DAMPING] = 2000.0;
        die_on(mbs_model_add_force(m, &f, &err), &err);
        die_on(mbs_model_set_initial(m, j, 0, 1, v0 / zc, &err), &err);
        if (i < 2) {
            MbsForce b = {.type = MBS_FORCE_RSDA, .body1 = -1, .body2 = -1, .joint = j,
                          .damping = 8.0};
            die_on(mbs_model_add_force(m, &b, &err), &err);
        }
    }
    die_on(mbs_model_set_initial(m, jd, 0, 1, v0, &err), &err);
    MbsRoad *road = mbs_road_new(0.0, 1.0);
    double step[3] = {-0.03, 12.0, 0.5};
    die_on(mbs_road_add(road, mbs_road_class_index("step"), step, 3, NULL, 0, &err), &err);
    die_on(mbs_model_set_road(m, road, &err), &err);
    mbs_road_free(road);
    die_on(mbs_model_compile(m, &err), &err);
    return m;
}

static void test_vehicle(void)
{
    int cp;
    MbsModel *m = vehicle(&cp);
    const char *names[] = {"penalty", "matrix-r"};
    double end[2][3] = {{0}}, drift[2] = {0}, e0 = 0.0;
    for (int i = 0; i < 2; ++i) {
        MbsError err = {0};
        MbsFormulation *f = formulation(m, names[i], 1e-3, NULL, &err);
        int ok = f != NULL;
        e0 = ok ? f->monitors.total : 0.0;
        for (int s = 0; ok && s < 2500; ++s) {
            ok = mbs_formulation_step(f, &err) == 0;
            drift[i] = fmax(drift[i], fabs(f->monitors.total - e0));
        }
        if (ok) {
            mbs_formulation_point_position(f, cp, end[i]);
            tap_diag("%s: chassis at (%.9f, %.9f) m after 2.5 s, energy drift %.3e J of %.4g J",
                     names[i], end[i][0], end[i][2], drift[i], e0);
        } else {
            tap_diag("%s: %s", names[i], err.message);
        }
        tap_ok(ok && end[i][0] > 18.0 && end[i][0] < 24.0,
               "%s: the braked vehicle travels %.3f m in 2.5 s (10 m/s at the start)", names[i],
               end[i][0]);
        /* measured: penalty 1.6e-6, matrix-r 6.8e-5 of E(0) */
        tap_below(drift[i], (i == 0 ? 1.6e-5 : 7e-4) * e0, "%s: vehicle energy balance (drift %.2e J of %.4g J)",
                  names[i], drift[i], e0);
        mbs_formulation_free(f);
    }
    tap_close(end[0][0], end[1][0], 2e-3, "vehicle: penalty and matrix-r travel the same distance "
              "(%.6f, %.6f m)", end[0][0], end[1][0]);
    tap_close(end[0][2], end[1][2], 4e-6, "vehicle: and end at the same chassis height (%.7f, "
              "%.7f m: 3 cm lower after the step)", end[0][2], end[1][2]);
    mbs_model_free(m);
}

int main(void)
{
    test_road();
    test_linear_law();
    test_element_derivative();
    for (int mirror = 0; mirror < 2; ++mirror) {
        test_pac2002_derivative(ESLABON_SOURCE_DIR "/data/tyres/HMMWV_Pac02Tire.tir",
                                "HMMWV_Pac02Tire.tir", 0.47, mirror);
        test_pac2002_derivative(ESLABON_SOURCE_DIR "/data/tyres/CityBus_Pac02Tire.tir",
                                "CityBus_Pac02Tire.tir", 0.5, mirror);
    }
    test_mirror_symmetry(ESLABON_SOURCE_DIR "/data/tyres/HMMWV_Pac02Tire.tir",
                         "HMMWV_Pac02Tire.tir");
    test_mirror_symmetry(ESLABON_SOURCE_DIR "/data/tyres/CityBus_Pac02Tire.tir",
                         "CityBus_Pac02Tire.tir");
    test_kernel_derivative();
    test_static_deflection();
    test_free_rolling();
    test_vehicle();
    printf("1..%d\n", tap_count);
    return tap_failed ? 1 : 0;
}
