/* Force-element classes (engine/mbs_force.h): the registry, each law against its energy
 * (conservative output = -dV/dx by finite differences, power of the rest), and each element
 * alone on an open chain in relative coordinates: its generalized forces are -dV/dz plus the
 * power it reports, Q_el . zd = -dV/dt + P. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mbs_dynamics.h"
#include "mbs_energy.h"
#include "mbs_force.h"
#include "mbs_topology.h"
#include "tap.h"
#include "test_models.h"

static void check_registry(void)
{
    static const char *const names[] = {"tsda",          "rsda",           "force",
                                        "torque",        "tyre",           "spring_table",
                                        "damper_bilinear", "bump_stop",    "antiroll_bar", "wheel",
                                        "path_follower", "speed_control"};
    static const MbsForceType types[] = {
        MBS_FORCE_TSDA,         MBS_FORCE_RSDA,           MBS_FORCE_CONSTANT,
        MBS_FORCE_TORQUE,       MBS_FORCE_TYRE,           MBS_FORCE_SPRING_TABLE,
        MBS_FORCE_DAMPER_BILINEAR, MBS_FORCE_BUMP_STOP,   MBS_FORCE_ANTIROLL_BAR, MBS_FORCE_WHEEL,
        MBS_FORCE_PATH_FOLLOWER, MBS_FORCE_SPEED_CONTROL};
    enum { NKINDS = (int)(sizeof names / sizeof names[0]) };
    tap_ok(mbs_force_class_count() == NKINDS, "%d force classes", NKINDS);
    int consistent = 1;
    for (int i = 0; i < NKINDS; ++i) {
        const MbsForceClass *c = mbs_force_class_at(i);
        consistent &= c && !strcmp(c->name, names[i]) && c->type == types[i] &&
                      mbs_force_class(types[i]) == c && mbs_force_class_by_name(names[i]) == c &&
                      c->nstates == 0 && c->evaluate && c->energy && c->power;
        for (const MbsForceField *f = c ? c->fields : NULL; f && f->name; ++f)
            consistent &= f->offset + sizeof(double) * (size_t)f->count <= sizeof(MbsForce) &&
                          (f->count == 1 || f->count == 3 ||
                           ((f->flags & MBS_FIELD_TABLE) && f->count % 2 == 0)) &&
                          f->unit && *f->unit;
    }
    tap_ok(consistent, "classes found by index, type and name; fields inside MbsForce with units");
    tap_ok(!mbs_force_class_by_name("impulse") && !mbs_force_class_at(NKINDS),
           "no class for an unknown kind");
    char list[256];
    mbs_force_class_list(list, sizeof list);
    tap_ok(!strcmp(list, "tsda, rsda, force, torque, tyre, spring_table, damper_bilinear, "
                         "bump_stop, antiroll_bar, wheel, path_follower or speed_control"),
           "kinds listed for messages: %s", list);
}

/* Law level: line and joint outputs are -dV/dx for the conservative part, the power is the
 * output of the rest times the rate; point and body elements report f.v and n.w. */
static void check_laws(void)
{
    MbsForce tsda = {.type = MBS_FORCE_TSDA, .stiffness = 30, .damping = 1.5,
                     .natural_length = 0.8, .preload = 2.0};
    MbsForce rsda = {.type = MBS_FORCE_RSDA, .stiffness = 7, .damping = 0.4, .rest_angle = 0.3};
    const MbsForce *elastic[2] = {&tsda, &rsda};
    for (int e = 0; e < 2; ++e) {
        const MbsForce *f = elastic[e];
        const MbsForceClass *c = mbs_force_class(f->type);
        MbsForceInput in = {.value = 1.37, .rate = -0.6}, at0 = {.value = 1.37, .rate = 0.0};
        MbsForceOutput out, out0;
        c->evaluate(f, &in, &out);
        c->evaluate(f, &at0, &out0);
        double h = 1e-6;
        MbsForceInput plus = {.value = in.value + h}, minus = {.value = in.value - h};
        double dV = (c->energy(f, &plus) - c->energy(f, &minus)) / (2 * h);
        /* Line: the tension pulls the points together, so it is +dV/dl; joint: -dV/dq. */
        double conservative = c->geometry == MBS_FORCE_ON_LINE ? out0.tension : -out0.generalized;
        tap_close(conservative, dV, 1e-7 * (1 + fabs(dV)), "%s: conservative output = dV/dx",
                  c->name);
        double dissipative = c->geometry == MBS_FORCE_ON_LINE ? -(out.tension - out0.tension)
                                                               : out.generalized - out0.generalized;
        tap_close(c->power(f, &in), dissipative * in.rate, 1e-14,
                  "%s: power = damping output x rate (%g)", c->name, c->power(f, &in));
        tap_ok(c->power(f, &in) < 0, "%s: damping dissipates", c->name);
    }
    MbsForce push = {.type = MBS_FORCE_CONSTANT, .vector = {1.0, -2.0, 0.5}};
    MbsForce turn = {.type = MBS_FORCE_TORQUE, .vector = {0.3, 0.7, -1.1}};
    MbsForceInput in = {.v = {0.2, 0.1, -0.4}, .omega = {-1.0, 0.5, 2.0}};
    MbsForceOutput out;
    const MbsForceClass *cp = mbs_force_class(push.type), *ct = mbs_force_class(turn.type);
    cp->evaluate(&push, &in, &out);
    tap_ok(!memcmp(out.vector, push.vector, sizeof out.vector) && cp->energy(&push, &in) == 0.0,
           "constant force: the vector, no potential");
    tap_close(cp->power(&push, &in), 1.0 * 0.2 - 2.0 * 0.1 + 0.5 * -0.4, 1e-15,
              "constant force: power f.v");
    ct->evaluate(&turn, &in, &out);
    tap_ok(!memcmp(out.vector, turn.vector, sizeof out.vector), "torque: the vector");
    tap_close(ct->power(&turn, &in), -0.3 + 0.35 - 2.2, 1e-15, "torque: power n.w");
    /* tyre on the slope of the bump (x = 0.33, bump at 0.3 of radius 0.05 on a road at 0.1):
     * without damping the force is -dV/dz, the power f.v + dV/dt; off the road nothing */
    MbsForce tyre = {.type = MBS_FORCE_TYRE, .stiffness = 2e3, .damping = 0.0,
                     .natural_length = 0.4, .bump = {0.3, 0.05, 0.1}};
    const MbsForceClass *cy = mbs_force_class(tyre.type);
    MbsForceInput on = {.r = {0.33, 0.0, 0.45}, .v = {4.0, 0.0, -0.3}};
    cy->evaluate(&tyre, &on, &out);
    double h = 1e-7, dVdz, dVdt;
    MbsForceInput up = on, down = on;
    up.r[2] += h;
    down.r[2] -= h;
    dVdz = (cy->energy(&tyre, &up) - cy->energy(&tyre, &down)) / (2 * h);
    for (int k = 0; k < 3; ++k) {
        up.r[k] = on.r[k] + h * on.v[k];
        down.r[k] = on.r[k] - h * on.v[k];
    }
    dVdt = (cy->energy(&tyre, &up) - cy->energy(&tyre, &down)) / (2 * h);
    tap_ok(out.vector[2] > 0 && out.vector[0] == 0 && out.vector[1] == 0,
           "tyre: vertical force %.4g N in contact on the bump", out.vector[2]);
    tap_close(out.vector[2], -dVdz, 1e-5 * out.vector[2], "tyre: force = -dV/dz");
    tap_close(cy->power(&tyre, &on), out.vector[2] * on.v[2] + dVdt, 1e-5 * fabs(dVdt),
              "tyre: power = f.v + dV/dt (%.4g W: the bump's slope does work)",
              cy->power(&tyre, &on));
    tyre.damping = 50.0;
    MbsForceInput off = {.r = {0.33, 0.0, 0.7}, .v = {4.0, 0.0, -0.3}};
    cy->evaluate(&tyre, &off, &out);
    tap_ok(out.vector[2] == 0 && cy->energy(&tyre, &off) == 0 && cy->power(&tyre, &off) == 0,
           "tyre: off the road (centre above radius + road) no force, energy or power");
    MbsForceInput lifting = {.r = {1.0, 0.0, 0.499}, .v = {0.0, 0.0, 5.0}};
    cy->evaluate(&tyre, &lifting, &out);
    tap_ok(out.vector[2] == 0, "tyre: never pulls (damping would, lifting off fast)");
}

/* ---- one element on an open chain, relative coordinates ---------------------------------- */

/* Ground - revolute O (x) - bar1 (O..A) - spherical A - bar2 (A..B): 4 coordinates, no loop,
 * no gravity, so all generalized forces besides inertia come from the element. */
static MbsModel *chain(const MbsForce *element)
{
    MbsError err = {0};
    MbsModel *m = mbs_model_new("chain");
    int g = mbs_model_add_ground(m, "ground", &err);
    double O[3] = {0, 0, 0}, A[3] = {0, 0.2, 1.0}, B[3] = {0.3, 0.9, 1.4};
    int b1 = add_bar(m, "bar1", O, A, 1.0, &err), b2 = add_bar(m, "bar2", A, B, 2.0, &err);
    die_on(mbs_model_add_point(m, g, "S", (double[3]){0.5, 1.5, 0.2}, &err), &err);
    die_on(mbs_model_add_joint(m, "O", MBS_JOINT_REVOLUTE, g, b1, O, X_AXIS, &err), &err);
    die_on(mbs_model_add_joint(m, "A", MBS_JOINT_SPHERICAL, b1, b2, A, X_AXIS, &err), &err);
    if (element) {
        MbsForce f = *element;
        f.body1 = mbs_force_class(f.type)->geometry == MBS_FORCE_ON_LINE ? g : b2;
        f.body2 = b2;
        f.joint = 0;
        die_on(mbs_model_add_force(m, &f, &err), &err);
    }
    die_on(mbs_model_compile(m, &err), &err);
    return m;
}

typedef struct {
    MbsModel *m;
    MbsKinematics k;
    MbsDynamics d;
} Chain;

static void q_and_energy(Chain *c, const double *z, const double *zd, double *Q, MbsEnergy *e)
{
    mbs_kinematics_positions(c->m, &c->k, z);
    mbs_kinematics_velocities(c->m, &c->k, zd);
    if (Q)
        mbs_dynamics_forces(c->m, &c->k, &c->d, z, zd, Q);
    if (e)
        mbs_energy_eval(c->m, &c->k, z, zd, e);
}

static void check_element_on_chain(const MbsForce *element)
{
    const MbsForceClass *cls = mbs_force_class(element->type);
    Chain with = {.m = chain(element)}, without = {.m = chain(NULL)};
    mbs_kinematics_init(&with.k, with.m), mbs_dynamics_init(&with.d, with.m);
    mbs_kinematics_init(&without.k, without.m), mbs_dynamics_init(&without.d, without.m);
    int n = mbs_model_ncoords(with.m);
    double z[4] = {0.3, -0.2, 0.5, 0.1}, zd[4] = {0.7, 0.4, -0.9, 1.1}, zero[4] = {0};
    double Qw[4], Qo[4], Qel[4];
    MbsEnergy e;
    /* Elastic forces: Q_el(z, 0) = -dV/dz, coordinate by coordinate. */
    q_and_energy(&with, z, zero, Qw, NULL);
    q_and_energy(&without, z, zero, Qo, NULL);
    double worst = 0.0, h = 1e-6;
    for (int i = 0; i < n; ++i) {
        double zp[4], zm[4];
        MbsEnergy ep, em;
        memcpy(zp, z, sizeof zp), memcpy(zm, z, sizeof zm);
        zp[i] += h, zm[i] -= h;
        q_and_energy(&with, zp, zero, NULL, &ep);
        q_and_energy(&with, zm, zero, NULL, &em);
        double dV = (ep.potential_elastic - em.potential_elastic) / (2 * h);
        /* Point and body elements have no potential: their Q is checked through the power. */
        if (cls->geometry == MBS_FORCE_ON_LINE || cls->geometry == MBS_FORCE_ON_JOINT)
            worst = fmax(worst, fabs(Qw[i] - Qo[i] + dV));
    }
    if (cls->geometry == MBS_FORCE_ON_LINE || cls->geometry == MBS_FORCE_ON_JOINT)
        tap_below(worst, 1e-6, "%s on a chain: elastic generalized forces = -dV/dz", cls->name);
    /* With velocities: Q_el . zd = -dV/dt + power. */
    q_and_energy(&with, z, zd, Qw, &e);
    q_and_energy(&without, z, zd, Qo, NULL);
    double Pq = 0.0;
    for (int i = 0; i < n; ++i)
        Qel[i] = Qw[i] - Qo[i], Pq += Qel[i] * zd[i];
    double zp[4], zm[4];
    MbsEnergy ep, em;
    for (int i = 0; i < n; ++i)
        zp[i] = z[i] + h * zd[i], zm[i] = z[i] - h * zd[i];
    q_and_energy(&with, zp, zero, NULL, &ep);
    q_and_energy(&with, zm, zero, NULL, &em);
    double dVdt = (ep.potential_elastic - em.potential_elastic) / (2 * h);
    tap_close(Pq, -dVdt + e.power_nonconservative, 1e-6 * (1 + fabs(Pq)),
              "%s on a chain: Q_el.zd = -dV/dt + power (%.6g = %.6g + %.6g)", cls->name, Pq,
              -dVdt, e.power_nonconservative);
    tap_ok(fabs(Pq) > 1e-3 && (fabs(dVdt) > 1e-3 || cls->geometry == MBS_FORCE_AT_POINT ||
                               cls->geometry == MBS_FORCE_ON_BODY ||
                               cls->energy == mbs_force_no_energy),
           "%s on a chain: the element does work and stores energy at this state", cls->name);
    mbs_kinematics_free(&with.k), mbs_dynamics_free(&with.d);
    mbs_kinematics_free(&without.k), mbs_dynamics_free(&without.d);
    mbs_model_free(with.m);
    mbs_model_free(without.m);
}

/* Every law has its dual-number twin from the same source (MBS_FORCE_LAW): the same values, and
 * derivatives along value and rate (directions 0, 1) that match central differences of the law. */
static void check_dual_laws(void)
{
    MbsForce forces[] = {
        {.type = MBS_FORCE_TSDA, .stiffness = 30, .damping = 1.5, .natural_length = 0.8,
         .preload = 2.0},
        {.type = MBS_FORCE_RSDA, .stiffness = 7, .damping = 0.4, .rest_angle = 0.3},
        {.type = MBS_FORCE_CONSTANT, .vector = {1.0, -2.0, 0.5}},
        {.type = MBS_FORCE_TORQUE, .vector = {0.3, 0.7, -1.1}},
    };
    int all = 1;
    for (size_t e = 0; e < sizeof forces / sizeof forces[0]; ++e) {
        const MbsForce *f = &forces[e];
        const MbsForceClass *c = mbs_force_class(f->type);
        MbsForceInput in = {.value = 1.37, .rate = -0.6};
        MbsForceInputDual ind = {.value = mbs_dual_constant(1.37), .rate = mbs_dual_constant(-0.6)};
        ind.value.d[0] = ind.rate.d[1] = 1.0;
        MbsForceOutput out, plus, minus;
        MbsForceOutputDual outd;
        all &= c->evaluate_dual != NULL;
        if (!c->evaluate_dual)
            continue;
        c->evaluate(f, &in, &out);
        c->evaluate_dual(f, &ind, &outd);
        /* the scalar output of the class's geometry and its dual */
        int line = c->geometry == MBS_FORCE_ON_LINE, joint = c->geometry == MBS_FORCE_ON_JOINT;
        double value = line ? out.tension : joint ? out.generalized : out.vector[0];
        MbsDual dual = line ? outd.tension : joint ? outd.generalized : outd.vector[0];
        double h = 1e-6, error = fabs(dual.v - value);
        for (int k = 0; k < 2; ++k) {
            MbsForceInput p = in, m = in;
            *(k ? &p.rate : &p.value) += h;
            *(k ? &m.rate : &m.value) -= h;
            c->evaluate(f, &p, &plus);
            c->evaluate(f, &m, &minus);
            double dp = line ? plus.tension : joint ? plus.generalized : plus.vector[0];
            double dm = line ? minus.tension : joint ? minus.generalized : minus.vector[0];
            error = fmax(error, fabs(dual.d[k] - (dp - dm) / (2 * h)));
        }
        tap_below(error, 1e-8, "%s: the dual law gives the law's value and its derivatives in "
                  "value and rate (error %.1e)", c->name, error);
    }
    for (int i = 0; i < mbs_force_class_count(); ++i) {
        const MbsForceClass *c = mbs_force_class_at(i);
        /* the drivers' (geometry control) too: tests/engine/test_driver_law.c */
        all &= c->evaluate_dual != NULL && c->derivative != NULL;
    }
    tap_ok(all, "every force class has its dual law (evaluate_dual) and its derivative");
}

/* A point law (the tyre) against central differences of its law in the six inputs r, v: its
 * analytical derivative (d vector/d r, d vector/d v) and its dual law seeded along them, on
 * the bump's slope with damping, on the flat road and off the road. */
static void check_point_law_derivatives(void)
{
    MbsForce tyre = {.type = MBS_FORCE_TYRE, .stiffness = 2e3, .damping = 50.0,
                     .natural_length = 0.4, .bump = {0.3, 0.05, 0.1}};
    const MbsForceClass *c = mbs_force_class(tyre.type);
    static const struct {
        const char *where;
        MbsForceInput in;
    } cases[] = {
        {"on the bump's slope", {.r = {0.33, 0.02, 0.45}, .v = {4.0, 0.1, -0.3}}},
        {"on the bump's other side", {.r = {0.27, 0.0, 0.47}, .v = {-2.0, 0.0, 0.5}}},
        {"on the flat road", {.r = {1.0, 0.0, 0.49}, .v = {3.0, 0.0, -0.2}}},
        {"off the road", {.r = {1.0, 0.0, 0.7}, .v = {3.0, 0.0, -0.2}}},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
        const MbsForceInput *in = &cases[k].in;
        MbsForceDerivative d;
        MbsForceInputDual ind = {0};
        MbsForceOutput out, plus, minus;
        MbsForceOutputDual outd;
        for (int b = 0; b < 3; ++b) {
            ind.r[b] = mbs_dual_constant(in->r[b]);
            ind.v[b] = mbs_dual_constant(in->v[b]);
            ind.r[b].d[b] = ind.v[b].d[3 + b] = 1.0;
        }
        c->evaluate(&tyre, in, &out);
        c->derivative(&tyre, in, &d);
        c->evaluate_dual(&tyre, &ind, &outd);
        double worst_analytical = 0.0, worst_dual = 0.0, largest = 0.0, h = 1e-7;
        for (int b = 0; b < 6; ++b) {
            MbsForceInput p = *in, m = *in;
            (b < 3 ? p.r : p.v)[b % 3] += h;
            (b < 3 ? m.r : m.v)[b % 3] -= h;
            c->evaluate(&tyre, &p, &plus);
            c->evaluate(&tyre, &m, &minus);
            for (int a = 0; a < 3; ++a) {
                double fd = (plus.vector[a] - minus.vector[a]) / (2 * h);
                double an = b < 3 ? d.d_vector_r[a][b] : d.d_vector_v[a][b - 3];
                largest = fmax(largest, fabs(fd));
                worst_analytical = fmax(worst_analytical, fabs(an - fd));
                worst_dual = fmax(worst_dual, fabs(outd.vector[a].d[b] - fd));
                worst_dual = fmax(worst_dual, fabs(outd.vector[a].v - out.vector[a]));
            }
        }
        /* central differences with h = 1e-7 of forces near 1e2 N: error below 1e-5 N/m */
        tap_below(worst_analytical, 1e-8 * (1 + largest),
                  "tyre %s: derivative d vector/d(r, v) = central differences (error %.1e, "
                  "largest entry %.4g)", cases[k].where, worst_analytical, largest);
        tap_below(worst_dual, 1e-8 * (1 + largest),
                  "tyre %s: dual law = the law and its central differences (error %.1e)",
                  cases[k].where, worst_dual);
        if (k == 0)
            tap_ok(largest > 1e3 && d.d_vector_r[2][0] != 0.0,
                   "tyre on the slope: the force varies with x (%.4g N/m)", d.d_vector_r[2][0]);
    }
}

int main(void)
{
    check_registry();
    check_dual_laws();
    check_point_law_derivatives();
    check_laws();
    const MbsForce elements[] = {
        {.type = MBS_FORCE_TSDA, .stiffness = 30, .damping = 1.5, .natural_length = 0.8,
         .preload = 2.0, .point1 = {0.5, 1.5, 0.2}, .point2 = {0.3, 0.9, 1.4}},
        {.type = MBS_FORCE_RSDA, .stiffness = 7, .damping = 0.4, .rest_angle = -0.25},
        {.type = MBS_FORCE_CONSTANT, .point1 = {0.3, 0.9, 1.4}, .vector = {1.0, -2.0, 0.5}},
        {.type = MBS_FORCE_TORQUE, .vector = {0.3, 0.7, -1.1}},
        /* a tyre of radius 10 on a bump of radius 5 around x = 0: point B stays in contact
         * on the bump's slope wherever the chain moves it */
        {.type = MBS_FORCE_TYRE, .stiffness = 50, .damping = 2, .natural_length = 10,
         .point1 = {0.3, 0.9, 1.4}, .bump = {0.0, 5.0, 0.1}},
        /* suspension elements (issue 24), on the line S-B of drawn length 1.356 m */
        {.type = MBS_FORCE_SPRING_TABLE, .natural_length = 1.2, .damping = 1.5, .ntable = 4,
         .table = {-0.5, -40, 0.0, 0.0, 0.2, 15, 0.6, 90}, .point1 = {0.5, 1.5, 0.2},
         .point2 = {0.3, 0.9, 1.4}},
        {.type = MBS_FORCE_DAMPER_BILINEAR, .compression_damping = 3, .compression_damping_high = 1,
         .compression_knee = 0.2, .rebound_damping = 5, .rebound_damping_high = 2,
         .rebound_knee = 0.3, .point1 = {0.5, 1.5, 0.2}, .point2 = {0.3, 0.9, 1.4}},
        /* always below its min_length here: acting */
        {.type = MBS_FORCE_BUMP_STOP, .min_length = 5.0, .stiffness = 50, .damping = 2,
         .point1 = {0.5, 1.5, 0.2}, .point2 = {0.3, 0.9, 1.4}},
        /* the same within its transition (penetration about 3.6 m of 5) */
        {.type = MBS_FORCE_BUMP_STOP, .min_length = 5.0, .stiffness = 50, .damping = 2,
         .transition = 5.0, .point1 = {0.5, 1.5, 0.2}, .point2 = {0.3, 0.9, 1.4}},
        {.type = MBS_FORCE_ANTIROLL_BAR, .stiffness = 4, .bar_diameter = 0.01, .bar_length = 0.5,
         .shear_modulus = 8e9, .damping = 0.3, .rest_angle = -0.15},
    };
    for (size_t i = 0; i < sizeof elements / sizeof elements[0]; ++i)
        check_element_on_chain(&elements[i]);
    return tap_done();
}
