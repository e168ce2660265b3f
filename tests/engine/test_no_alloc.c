/* A step allocates nothing: every allocation of the process (the engine's and its libraries',
 * alloc_counter.h) is counted while the formulation steps. */
#include <stddef.h>

#include "mbs_run.h"
#include "mbs_tangent.h"
#include "alloc_counter.h"
#include "tap.h"
#include "test_models.h"
#include "mbs_path.h"
#include "mbs_road.h"
#include "mbs_tyre_model.h"


/* jacobian: a method for the formulation's jacobian setting, NULL: its default; setting: one
 * more setting and its value, or NULL */
static void check_with_setting(const char *formulation, const char *jacobian, const char *setting,
                               const char *value, const char *name, MbsModel *m, double h,
                               int steps)
{
    MbsSettings s;
    mbs_settings_defaults(&s);
    s.step = h;
    MbsError err;
    if ((jacobian && mbs_settings_set_for(&s, formulation, "jacobian", jacobian, &err)) ||
        (setting && mbs_settings_set_for(&s, formulation, setting, value, &err))) {
        tap_ok(0, "%s on %s: %s", formulation, name, err.message);
        return;
    }
    MbsFormulation *f = mbs_formulation_new(formulation, m, &s, &err);
    tap_ok(f != NULL, "%s on %s: initialised", formulation, name);
    if (!f)
        return;
    long before = alloc_count;
    alloc_counting = 1;
    int ok = 1;
    for (int i = 0; i < steps; ++i)
        ok &= mbs_formulation_step(f, &err) == 0;
    alloc_counting = 0;
    tap_ok(ok && alloc_count - before == 0, "%s on %s: %d steps made %ld allocations", formulation,
           name, steps, alloc_count - before);
    /* the run driver (checkpoint before every step, summary, observer) allocates in
     * mbs_run_new only */
    MbsRun *run = mbs_run_new(f, NULL, NULL, &err);
    before = alloc_count;
    alloc_counting = 1;
    MbsRunOutcome out = run ? mbs_run_advance(run, f->time + steps * h) : MBS_RUN_FAILED;
    alloc_counting = 0;
    tap_ok(out == MBS_RUN_REACHED && mbs_run_summary(run)->steps == steps &&
               alloc_count - before == 0,
           "%s on %s: %d driver steps made %ld allocations", formulation, name, steps,
           alloc_count - before);
    mbs_run_free(run);
    mbs_formulation_free(f);
}

static void check_with(const char *formulation, const char *jacobian, const char *name,
                       MbsModel *m, double h, int steps)
{
    check_with_setting(formulation, jacobian, NULL, NULL, name, m, h, steps);
}

static void check(const char *formulation, const char *name, MbsModel *m, double h, int steps)
{
    check_with(formulation, NULL, name, m, h, steps);
}

/* Runs formulation on the parallelogram chain of n loops to T through the run driver, counting
 * allocations; the step cuts and one named statistic (NULL: none) after it. */
typedef struct {
    int reached;
    long allocations, cuts;
    double statistic;
} ChainRun;

static ChainRun run_chain_counting(const char *formulation, int loops, double h, double T,
                                   const char *statistic)
{
    ChainRun r = {0};
    MbsModel *m = build_parallelogram_chain(loops, 6.0);
    MbsSettings s;
    mbs_settings_defaults(&s);
    s.step = h;
    MbsError err;
    MbsFormulation *f = mbs_formulation_new(formulation, m, &s, &err);
    MbsRun *run = f ? mbs_run_new(f, NULL, NULL, &err) : NULL;
    long before = alloc_count;
    alloc_counting = 1;
    r.reached = run && mbs_run_advance(run, T) == MBS_RUN_REACHED;
    alloc_counting = 0;
    r.allocations = alloc_count - before;
    r.cuts = run ? mbs_run_summary(run)->step_cuts : 0;
    MbsStatistic stats[32];
    int count = f && statistic && f->klass->statistics ? f->klass->statistics(f, stats, 32) : 0;
    for (int i = 0; i < count && i < 32; ++i)
        if (!strcmp(stats[i].name, statistic))
            r.statistic = stats[i].value;
    mbs_run_free(run);
    mbs_formulation_free(f);
    mbs_model_free(m);
    return r;
}

/* A cut step restores the checkpoint and retries: no allocation either (ali3p passing the flat
 * position of a parallelogram chain, as in test_run); matrix-r's damped SVD solves near the rank
 * loss (and its dense repartitions) allocate nothing either. */
static void check_singular_paths(void)
{
    ChainRun r = run_chain_counting("ali3p", 40, 5e-3, 3.0, NULL);
    tap_ok(r.reached && r.cuts > 0 && r.allocations == 0,
           "ali3p through a singular position: %ld step cut(s), %ld allocations", r.cuts,
           r.allocations);
    r = run_chain_counting("matrix-r", 2, 5e-4, 1.2, "singular_evaluations");
    tap_ok(r.reached && r.statistic > 0 && r.allocations == 0,
           "matrix-r through a singular position: %.0f damped evaluations, %ld allocations",
           r.statistic, r.allocations);
    /* ssode (dense): its singular mode's damped solves and Newton recoveries */
    r = run_chain_counting("ssode", 2, 1e-2, 0.7, "damped_evaluations");
    tap_ok(r.reached && r.statistic > 0 && r.allocations == 0,
           "ssode through a singular position: %.0f damped evaluations, %ld allocations",
           r.statistic, r.allocations);
}


/* ssode's sparse algebra: KLU refactorizes in place; a new partition (a new pattern, its KLU
 * analysis and first factorization) or a refactorization whose pivots degraded (a fresh
 * factorization) allocates, as matrix-r's sparse block does. So: no allocation in any step
 * that made neither. Takes m. */
static void check_ssode_sparse(const char *name, MbsModel *m)
{
    MbsSettings s;
    mbs_settings_defaults(&s);
    s.step = 1e-3;
    MbsError err;
    mbs_settings_set_for(&s, "ssode", "algebra", "sparse", &err);
    MbsFormulation *f = mbs_formulation_new("ssode", m, &s, &err);
    int ok = f != NULL, quiet = 0, allocating = 0;
    long stray = 0;
    for (int i = 0; ok && i < 200; ++i) {
        double events = mbs_formulation_statistic(f, "repartitions", 0) +
                        mbs_formulation_statistic(f, "sparse_full_factorizations", 0);
        long before = alloc_count;
        alloc_counting = 1;
        ok = mbs_formulation_step(f, &err) == 0;
        alloc_counting = 0;
        int event = mbs_formulation_statistic(f, "repartitions", 0) +
                        mbs_formulation_statistic(f, "sparse_full_factorizations", 0) >
                    events;
        if (event)
            allocating++;
        else {
            quiet++;
            stray += alloc_count - before;
        }
    }
    tap_ok(ok && quiet > 100 && stray == 0,
           "ssode (sparse) on %s: %d steps without a new partition or factorization made %ld "
           "allocations (%d steps with one)",
           name, quiet, stray, allocating);
    mbs_formulation_free(f);
    mbs_model_free(m);
}

/* The slider-crank with springs and the suspension elements (issue 24) on it: a spring_table,
 * a bilinear damper and a bump stop (acting: below its min_length) on the spring's line, an
 * anti-roll bar on the joint between the crank and the rod. */
static MbsModel *slider_crank_with_suspension(void)
{
    MbsModel *m = build_slider_crank(0);
    MbsModel *open = mbs_model_new("slider-crank with suspension");
    MbsError err = {0};
    /* rebuild it open: a compiled model is read-only */
    for (int b = 0; b < m->nbodies; ++b) {
        const MbsBody *B = &m->bodies[b];
        die_on(B->is_ground ? mbs_model_add_ground(open, B->name, &err)
                            : mbs_model_add_body(open, B->name, B->mass, B->com, B->inertia, &err),
               &err);
    }
    for (int p = 0; p < m->npoints; ++p)
        die_on(mbs_model_add_point(open, m->points[p].body, m->points[p].name, m->points[p].pos,
                                   &err), &err);
    for (int j = 0; j < m->njoints; ++j) {
        const MbsJoint *J = &m->joints[j];
        die_on(mbs_model_add_joint(open, J->name, J->type, J->body1, J->body2, J->point1,
                                   J->axis1, &err), &err);
    }
    for (int f = 0; f < m->nforces; ++f)
        die_on(mbs_model_add_force(open, &m->forces[f], &err), &err);
    for (int i = 0; i < m->ninitial; ++i) {
        const MbsInitialCondition *c = &m->initial[i];
        die_on(mbs_model_set_initial(open, c->joint, c->coordinate, c->is_velocity, c->value,
                                     &err), &err);
    }
    MbsForce line = m->forces[0]; /* the spring: ground anchor to the slider */
    mbs_model_free(m);
    MbsForce table = line, damper = line, stop = line;
    table.type = MBS_FORCE_SPRING_TABLE;
    table.ntable = 4;
    memcpy(table.table, (double[8]){-0.5, -40, 0, 0, 0.2, 15, 0.6, 90}, sizeof(double[8]));
    snprintf(table.name, sizeof table.name, "table spring");
    damper.type = MBS_FORCE_DAMPER_BILINEAR;
    damper.stiffness = damper.damping = 0.0;
    damper.compression_damping = damper.rebound_damping = 3.0;
    damper.compression_damping_high = damper.rebound_damping_high = 1.0;
    damper.compression_knee = damper.rebound_knee = 0.2;
    snprintf(damper.name, sizeof damper.name, "damper");
    stop.type = MBS_FORCE_BUMP_STOP;
    stop.min_length = 5.0;
    snprintf(stop.name, sizeof stop.name, "stop");
    MbsForce bar = {.type = MBS_FORCE_ANTIROLL_BAR, .joint = 1, .stiffness = 5.0, .damping = 0.1,
                    .name = "bar"};
    die_on(mbs_model_add_force(open, &table, &err), &err);
    die_on(mbs_model_add_force(open, &damper, &err), &err);
    die_on(mbs_model_add_force(open, &stop, &err), &err);
    die_on(mbs_model_add_force(open, &bar, &err), &err);
    die_on(mbs_model_compile(open, &err), &err);
    return open;
}

/* A wheel rolling on a road with a smooth step and a profile (issue 24): ground -(prismatic x)- slider
 * -(prismatic z)- hub -(revolute y)- wheel with the linear tyre law. */
/* A wheel on a road; with a driver (issue 24): a speed controller on the wheel's spin reading
 * the hub, a path follower on the hub's vertical slide (any joint will do for the count) along a
 * path of points. */
static MbsModel *build_wheel_rig(int driver)
{
    MbsError err = {0};
    MbsModel *m = mbs_model_new("wheel-rig");
    m->gravity[2] = -9.81;
    double c[3] = {0, 0, 0.299}, x[3] = {1, 0, 0}, y[3] = {0, 1, 0}, z[3] = {0, 0, 1};
    double I[9] = {0.5, 0, 0, 0, 0.8, 0, 0, 0, 0.5};
    int g = mbs_model_add_ground(m, "ground", &err);
    int s = mbs_model_add_body(m, "slider", 1.0, c, I, &err);
    int h = mbs_model_add_body(m, "hub", 5.0, c, I, &err);
    int w = mbs_model_add_body(m, "wheel", 20.0, c, I, &err);
    int jx = mbs_model_add_joint(m, "px", MBS_JOINT_PRISMATIC, g, s, c, x, &err);
    mbs_model_add_joint(m, "pz", MBS_JOINT_PRISMATIC, s, h, c, z, &err);
    int jr = mbs_model_add_joint(m, "spin", MBS_JOINT_REVOLUTE, h, w, c, y, &err);
    MbsForce f = {.type = MBS_FORCE_WHEEL, .body1 = w, .body2 = -1, .joint = -1,
                  .axis = {0, 1, 0}, .tyre = {0.3, 2e5, 1500, 2e4, 3e4, 0.9, 0.299, 0.5}};
    memcpy(f.point1, c, sizeof c);
    f.tyre_law = mbs_tyre_model_class_index("linear");
    mbs_model_add_force(m, &f, &err);
    MbsRoad *road = mbs_road_new(0.0, 1.0);
    double step[3] = {-0.01, 0.5, 0.2}, pts[6] = {1.0, 0.0, 1.2, 0.01, 1.6, 0.0};
    mbs_road_add(road, mbs_road_class_index("step"), step, 3, NULL, 0, &err);
    mbs_road_add(road, mbs_road_class_index("profile"), NULL, 0, pts, 3, &err);
    mbs_model_set_road(m, road, &err);
    mbs_road_free(road);
    mbs_model_set_initial(m, jx, 0, 1, 5.0, &err);
    mbs_model_set_initial(m, jr, 0, 1, 5.0 / 0.299, &err);
    if (driver) {
        MbsForce speed = {.type = MBS_FORCE_SPEED_CONTROL, .body1 = h, .body2 = -1, .joint = jr,
                          .axis = {1, 0, 0}, .target_speed = 6.0, .gain = 50.0,
                          .integral_gain = 20.0, /* the station along the path each step */
                          .feed_forward = 1.0, .max_torque = 200.0};
        MbsForce follow = {.type = MBS_FORCE_PATH_FOLLOWER, .body1 = h, .body2 = -1,
                           .joint = mbs_model_find_joint(m, "pz"), .axis = {1, 0, 0},
                           .preview = 2.0, .lateral_gain = 0.01, .rate_gain = 0.001,
                           .max_command = 0.01, .left = 1.0, .stiffness = 10.0, .damping = 1.0};
        memcpy(speed.point1, c, sizeof c);
        memcpy(follow.point1, c, sizeof c);
        die_on(mbs_model_add_force(m, &speed, &err), &err);
        die_on(mbs_model_add_force(m, &follow, &err), &err);
        double xy[8] = {0.0, 0.0, 1.0, 0.1, 2.0, -0.1, 5.0, 0.0};
        MbsPath *path = mbs_path_new_points(xy, 4, &err);
        die_on(path ? mbs_model_set_path(m, path, &err) : -1, &err);
        mbs_path_free(path);
    }
    if (mbs_model_compile(m, &err)) {
        fprintf(stderr, "%s\n", err.message);
        exit(2);
    }
    return m;
}

int main(void)
{
    {
        MbsModel *m = slider_crank_with_suspension();
        for (int i = 0; i < mbs_formulation_count(); ++i)
            check(mbs_formulation_class(i)->name, "slider-crank with suspension elements", m,
                  1e-3, 100);
        check_with("penalty", "ad", "slider-crank with suspension elements, ad", m, 1e-3, 100);
        check_with("ali3p", "analytical", "slider-crank with suspension elements, analytical", m,
                   1e-3, 100);
        mbs_model_free(m);
    }
    MbsModel *wheel = build_wheel_rig(0);
    for (int i = 0; i < mbs_formulation_count(); ++i)
        check(mbs_formulation_class(i)->name, "wheel on a road", wheel, 1e-3, 300);
    check_with("penalty", "ad", "wheel on a road, ad", wheel, 1e-3, 300);
    check_with("ali3p", "ad", "wheel on a road, ad", wheel, 1e-3, 300);
    check_with_setting("matrix-r", "analytical", "integrator", "trapezoidal",
                       "wheel on a road, trapezoidal, analytical", wheel, 1e-3, 300);
    mbs_model_free(wheel);
    /* the drivers: every formulation with its default (analytical) tangent, and with ad */
    MbsModel *driver = build_wheel_rig(1);
    for (int i = 0; i < mbs_formulation_count(); ++i)
        check(mbs_formulation_class(i)->name, "wheel with a driver", driver, 1e-3, 300);
    check_with_setting("matrix-r", "analytical", "integrator", "trapezoidal",
                       "wheel with a driver, trapezoidal, analytical", driver, 1e-3, 300);
    check_with("ssode", "ad", "wheel with a driver, ad", driver, 1e-3, 300);
    check_with("penalty", "ad", "wheel with a driver, ad", driver, 1e-3, 300);
    check_with("ali3p", "ad", "wheel with a driver, ad", driver, 1e-3, 300);
    mbs_model_free(driver);

    for (int i = 0; i < mbs_formulation_count(); ++i) {
        const char *fname = mbs_formulation_class(i)->name;
        MbsModel *m = build_four_bar();
        check(fname, "four-bar", m, 1e-3, 200);
        mbs_model_free(m);
        m = build_slider_crank(1);
        check(fname, "driven slider-crank", m, 1e-3, 100);
        mbs_model_free(m);
    }
    check_ssode_sparse("four-bar", build_four_bar());
    check_ssode_sparse("driven slider-crank", build_slider_crank(1));
    check_singular_paths();
    /* the methods that use a structural pattern (nd-sparse: its colouring made at init) and
     * the AD ones (their dual workspaces) with the formulations that offer them */
    static const char *const with_pattern[] = {"penalty", "ali3p"};
    for (int j = 0; j < MBS_JACOBIAN_COUNT; ++j)
        for (size_t i = 0; i < 2; ++i) {
            int dual = mbs_jacobian_method_needs_dual(j);
            if (!(mbs_jacobian_method_uses_pattern(j) || dual) ||
                (dual && !mbs_formulation_find(with_pattern[i])->tangent_offers_dual))
                continue;
            char name[96];
            snprintf(name, sizeof name, "slider-crank with springs, %s",
                     mbs_jacobian_method_name(j));
            MbsModel *m = build_slider_crank(0);
            check_with(with_pattern[i], mbs_jacobian_method_name(j), name, m, 1e-3, 100);
            mbs_model_free(m);
        }
    /* matrix-r's trapezoidal tangent by ad (its dual workspaces) and analytical, on the
     * four-bar and through
     * the 1x15 lattice's repartition */
    MbsModel *mr = build_four_bar();
    check_with_setting("matrix-r", "ad", "integrator", "trapezoidal",
                       "four-bar, trapezoidal, ad", mr, 1e-3, 200);
    mbs_model_free(mr);
    mr = build_lattice(1, 15);
    check_with_setting("matrix-r", "ad", "integrator", "trapezoidal",
                       "1x15 lattice, trapezoidal, ad", mr, 1e-2, 200);
    check_with_setting("matrix-r", "analytical", "integrator", "trapezoidal",
                       "1x15 lattice, trapezoidal, analytical", mr, 1e-2, 200);
    mbs_model_free(mr);
    /* penalty's default is analytical; with the springs of the slider-crank too */
    MbsModel *springs = build_slider_crank(0);
    check_with("penalty", "analytical", "slider-crank with springs, analytical", springs, 1e-3, 100);
    check_with("ali3p", "analytical", "slider-crank with springs, analytical", springs, 1e-3, 100);
    mbs_model_free(springs);
    return tap_done();
}
