/* Joint coordinates, joint rates and body energies (app/esl-variables.c) against independent
 * computations, in every formulation (relative and natural coordinates):
 * - the double pendulum's joint angles against the angles of its bars' axes (atan2 of the
 *   formulation's point positions), the rate of O against the velocity of the tip P;
 * - the slider-crank's driven crank angle against 2 pi t, its slide against the slider point's
 *   position, the slide rate against that point's velocity;
 * - the bodies' kinetic and potential energies summed against the formulation's own energy
 *   monitors (the total energy history) within 1e-9 relative;
 * - the same variables from stored poses only (differences, as the window plots a stored run)
 *   against the exact ones to O(h^2);
 * - names parse back and a kind that a joint has not is refused. */
#include <glib.h>
#include <math.h>
#include <string.h>

#include "esl-model-file.h"
#include "esl-variables.h"
#include "mbs_formulation.h"
#include "tap.h"

#define STEPS 200
#define STEP 0.005

static const char *const formulations[] = {"penalty", "matrix-r", "ali3p", "ssode"};

static MbsModel *load(const char *file)
{
    g_autofree char *path = g_build_filename(ESLABON_SOURCE_DIR, "models", file, NULL);
    g_autoptr(GError) error = NULL;
    MbsModel *m = esl_model_load_file(path, NULL, 0, &error);
    tap_ok(m != NULL, "%s loads %s", file, error ? error->message : "");
    return m;
}

static EslVariable variable(const MbsModel *m, const char *name)
{
    EslVariable v = {NULL, -1};
    g_autoptr(GError) error = NULL;
    if (!esl_variable_parse(m, name, &v, &error))
        tap_ok(FALSE, "%s parses: %s", name, error->message);
    return v;
}

static double wrap(double a)
{
    return a - 2 * G_PI * round(a / (2 * G_PI));
}

/* Poses (nbodies * 12) and body velocities (nbodies * 6) of f now. */
static void state(const MbsFormulation *f, double *poses, double *vel)
{
    for (int b = 0; b < f->model->nbodies; b++)
        mbs_formulation_body_pose(f, b, poses + 12 * b, poses + 12 * b + 9);
    esl_body_velocities_from_formulation(f, vel);
}

static double point_coordinate(const MbsFormulation *f, const char *body, const char *point,
                               int axis, gboolean velocity)
{
    const MbsModel *m = f->model;
    int p = mbs_model_find_point(m, mbs_model_find_body(m, body), point);
    double x[3];
    if (velocity)
        mbs_formulation_point_velocity(f, p, x);
    else
        mbs_formulation_point_position(f, p, x);
    return x[axis];
}

/* Largest |sum of the bodies' energies - monitors| / (|kinetic| + |potential|) over the run. */
static double energy_mismatch(const MbsFormulation *f, const double *poses, const double *vel)
{
    const MbsModel *m = f->model;
    double kinetic = 0, potential = 0;
    for (int b = 0; b < m->nbodies; b++) {
        if (b == m->ground)
            continue;
        EslVariable k = {&esl_variable_kinds[0], b}, u = k;
        for (int i = 0; i < esl_variable_kind_count; i++)
            if (esl_variable_kinds[i].element == ESL_VARIABLE_BODY) {
                if (esl_variable_kinds[i].component == ESL_BODY_KINETIC)
                    k.kind = &esl_variable_kinds[i];
                else
                    u.kind = &esl_variable_kinds[i];
            }
        kinetic += esl_variable_value(m, &k, 0.0, poses, vel, NULL);
        potential += esl_variable_value(m, &u, 0.0, poses, vel, NULL);
    }
    double scale = fabs(f->monitors.kinetic) + fabs(f->monitors.potential_gravity);
    double d = fabs(kinetic - f->monitors.kinetic) +
               fabs(potential - f->monitors.potential_gravity);
    return scale > 0 ? d / scale : d;
}

/* The stored-history series of v (differences of the poses) against its exact values. */
static double series_mismatch(const MbsModel *m, const EslVariable *v, const double *time,
                              const double *poses, const double *exact)
{
    double y[STEPS + 1], worst = 0, scale = 0;
    esl_variable_series(m, v, time, poses, NULL, STEPS + 1, y);
    for (int k = 1; k < STEPS; k++) { /* central differences inside */
        worst = fmax(worst, fabs(y[k] - exact[k]));
        scale = fmax(scale, fabs(exact[k]));
    }
    return worst / fmax(scale, 1e-300);
}

/* A formulation of m with steps of STEP, or NULL (reported). */
static MbsFormulation *start(const MbsModel *m, const char *form)
{
    MbsSettings s;
    mbs_settings_defaults(&s);
    s.step = STEP;
    MbsError err = {0};
    MbsFormulation *f = mbs_formulation_new(form, m, &s, &err);
    tap_ok(f != NULL, "%s: %s assembles %s", form, m->name, err.message);
    return f;
}

static void pendulum(const MbsModel *m, const char *form)
{
    MbsFormulation *f = start(m, form);
    MbsError err = {0};
    if (!f)
        return;
    EslVariable angle_o = variable(m, "O:angle"), rate_o = variable(m, "O:angle_rate");
    EslVariable angle_p = variable(m, "P:angle"), kinetic2 = variable(m, "bar2:kinetic");
    g_autofree double *poses = g_new(double, (gsize)(STEPS + 1) * 12 * m->nbodies);
    g_autofree double *vel = g_new(double, 6 * (gsize)m->nbodies);
    double time[STEPS + 1], exact_rate[STEPS + 1], exact_kinetic[STEPS + 1];
    double angle_error = 0, rate_error = 0, energy_error = 0, prev_o = NAN, swing = 0;
    for (int k = 0; k <= STEPS; k++) {
        if (k > 0 && mbs_formulation_step(f, &err) != 0)
            break;
        double *pose = poses + (gsize)k * 12 * m->nbodies;
        state(f, pose, vel);
        time[k] = f->time;
        /* the bars' axes OP and PQ turn about +X from +Y towards +Z */
        double py = point_coordinate(f, "bar1", "P", 1, FALSE);
        double pz = point_coordinate(f, "bar1", "P", 2, FALSE);
        double qy = point_coordinate(f, "bar2", "Q", 1, FALSE);
        double qz = point_coordinate(f, "bar2", "Q", 2, FALSE);
        double theta1 = atan2(pz, py), theta2 = atan2(qz - pz, qy - py);
        double o = esl_variable_unwrap(&angle_o, prev_o, esl_variable_value(m, &angle_o, 0.0, pose,
                                                                            vel, NULL));
        prev_o = o;
        swing = fmax(swing, fabs(o));
        angle_error = fmax(angle_error, fabs(wrap(o - theta1)));
        angle_error = fmax(angle_error,
                           fabs(wrap(esl_variable_value(m, &angle_p, 0.0, pose, vel, NULL) -
                                     (theta2 - theta1))));
        /* theta1' = (P x v_P)_x / |P|^2 */
        double vy = point_coordinate(f, "bar1", "P", 1, TRUE);
        double vz = point_coordinate(f, "bar1", "P", 2, TRUE);
        exact_rate[k] = (py * vz - pz * vy) / (py * py + pz * pz);
        double rate = esl_variable_value(m, &rate_o, 0.0, pose, vel, NULL);
        rate_error = fmax(rate_error, fabs(rate - exact_rate[k]) / fmax(1.0, fabs(rate)));
        exact_kinetic[k] = esl_variable_value(m, &kinetic2, 0.0, pose, vel, NULL);
        energy_error = fmax(energy_error, energy_mismatch(f, pose, vel));
    }
    tap_ok(swing > 1.0, "%s: the pendulum swings (|O:angle| reaches %.3f rad)", form, swing);
    tap_ok(angle_error < 1e-9, "%s: O:angle and P:angle equal the bars' angles from atan2 "
           "(max error %.2e rad)", form, angle_error);
    tap_ok(rate_error < 1e-9, "%s: O:angle_rate equals (P x v_P)_x / |P|^2 (max error %.2e)",
           form, rate_error);
    tap_ok(energy_error < 1e-9, "%s: the bodies' kinetic and potential energies sum to the "
           "energy monitors (max relative error %.2e)", form, energy_error);
    double rate_series = series_mismatch(m, &rate_o, time, poses, exact_rate);
    double kinetic_series = series_mismatch(m, &kinetic2, time, poses, exact_kinetic);
    /* central differences of a smooth motion: error ~ h^2 |x'''| / 6, a few 1e-4 here */
    tap_ok(rate_series < 2e-3 && kinetic_series < 4e-3,
           "%s: from stored poses, O:angle_rate and bar2:kinetic agree with the exact values "
           "to O(h^2) (relative %.2e, %.2e)", form, rate_series, kinetic_series);
    mbs_formulation_free(f);
}

static void slider_crank(const MbsModel *m, const char *form)
{
    MbsFormulation *f = start(m, form);
    MbsError err = {0};
    if (!f)
        return;
    EslVariable crank = variable(m, "O:angle"), crank_rate = variable(m, "O:angle_rate");
    EslVariable slide = variable(m, "S:slide"), slide_rate = variable(m, "S:slide_rate");
    g_autofree double *poses = g_new(double, 12 * (gsize)m->nbodies);
    g_autofree double *vel = g_new(double, 6 * (gsize)m->nbodies);
    double y0 = point_coordinate(f, "slider", "B", 1, FALSE);
    double angle_error = 0, rate_error = 0, slide_error = 0, slide_rate_error = 0, travel = 0;
    double prev = NAN;
    for (int k = 0; k <= STEPS; k++) {
        if (k > 0 && mbs_formulation_step(f, &err) != 0)
            break;
        state(f, poses, vel);
        double a = esl_variable_unwrap(&crank, prev, esl_variable_value(m, &crank, 0.0, poses, vel,
                                                                        NULL));
        prev = a;
        angle_error = fmax(angle_error, fabs(a - 2 * G_PI * f->time));
        rate_error = fmax(rate_error, fabs(esl_variable_value(m, &crank_rate, 0.0, poses, vel,
                                                              NULL) - 2 * G_PI));
        double y = point_coordinate(f, "slider", "B", 1, FALSE) - y0;
        travel = fmax(travel, fabs(y));
        slide_error =
            fmax(slide_error, fabs(esl_variable_value(m, &slide, 0.0, poses, vel, NULL) - y));
        slide_rate_error = fmax(slide_rate_error,
                                fabs(esl_variable_value(m, &slide_rate, 0.0, poses, vel, NULL) -
                                     point_coordinate(f, "slider", "B", 1, TRUE)));
    }
    tap_ok(angle_error < 1e-6 && rate_error < 1e-6,
           "%s: the driven crank's O:angle is 2 pi t, unwrapped over a turn (error %.2e rad), "
           "O:angle_rate 2 pi (error %.2e)", form, angle_error, rate_error);
    tap_ok(travel > 0.1 && slide_error < 1e-9 && slide_rate_error < 1e-9,
           "%s: S:slide and S:slide_rate are the slider's travel along Y (%.3f m) and its "
           "velocity (errors %.2e, %.2e)", form, travel, slide_error, slide_rate_error);
    mbs_formulation_free(f);
}

int main(void)
{
    MbsModel *pend = load("double-pendulum.json");
    MbsModel *crank = load("slider-crank.json");
    if (!pend || !crank)
        return tap_done();

    for (int k = 0; k < esl_variable_kind_count; k++)
        for (int b = 0; b < crank->nbodies; b++)
            if (esl_variable_kinds[k].element == ESL_VARIABLE_BODY)
                tap_ok(esl_variable_applies(crank, &esl_variable_kinds[k], b) ==
                           (b != crank->ground &&
                            esl_variable_kinds[k].component < ESL_BODY_SPEED),
                       "%s:%s exists exactly for moving bodies (the vehicle quantities for "
                       "models with a road)", crank->bodies[b].name,
                       esl_variable_kinds[k].suffix);
    g_autoptr(GError) bad = NULL;
    EslVariable v;
    tap_ok(!esl_variable_parse(crank, "O:slide", &v, &bad) && strstr(bad->message, "'O:slide'"),
           "a revolute joint has no slide: refused, naming it");
    g_autoptr(GArray) list = esl_variables_parse(crank, "S:slide,rod:kinetic,crank:A:vz", NULL);
    g_autofree char *name = list && list->len == 3
                                ? esl_variable_name(crank, &g_array_index(list, EslVariable, 1))
                                : NULL;
    tap_ok(name && strcmp(name, "rod:kinetic") == 0, "a list parses and names read back (%s)",
           name ? name : "");

    for (gsize i = 0; i < G_N_ELEMENTS(formulations); i++) {
        pendulum(pend, formulations[i]);
        slider_crank(crank, formulations[i]);
    }
    mbs_model_free(pend);
    mbs_model_free(crank);
    return tap_done();
}
