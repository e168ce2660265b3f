/* Point histories from stored poses (app/esl-points.c), as the application exports them: the
 * positions are the formulation's own (from the same poses), the velocities differences of
 * them that agree with the formulation's exact velocities to O(h^2); names are parsed and
 * refused as `--points` does; the CSV file has the documented columns. */
#include <glib.h>
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

#include "esl-model-file.h"
#include "esl-points.h"
#include "mbs_formulation.h"
#include "tap.h"

#define STEPS 100

int main(void)
{
    g_autoptr(GError) error = NULL;
    MbsModel *m = esl_model_load_file(ESLABON_SOURCE_DIR "/models/four-bar-spatial.json", NULL, 0,
                                      &error);
    tap_ok(m != NULL, "the four-bar loads");
    if (!m)
        return tap_done();
    g_autoptr(GArray) all = esl_points_parse(m, NULL, NULL);
    int moving = 0;
    for (int i = 0; i < m->npoints; ++i)
        moving += m->points[i].body != m->ground;
    tap_ok((int)all->len == moving && moving > 0, "no names: every point of a moving body (%d)",
           moving);
    g_autoptr(GArray) pts = esl_points_parse(m, "crank:B,follower:C", &error);
    tap_ok(pts && pts->len == 2, "crank:B,follower:C parse to two points");
    g_autoptr(GError) bad = NULL;
    GArray *refused = esl_points_parse(m, "crank:B,crank", &bad);
    tap_ok(!refused && bad && strstr(bad->message, "'crank'"),
           "a name without a point is refused, naming it (%s)", bad ? bad->message : "");

    MbsSettings s;
    mbs_settings_defaults(&s);
    s.step = 0.01;
    MbsError err = {0};
    MbsFormulation *f = mbs_formulation_new("penalty", m, &s, &err);
    tap_ok(f != NULL, "penalty assembles the four-bar %s", err.message);
    const int *p = (const int *)(void *)pts->data;
    g_autofree double *time = g_new(double, STEPS + 1);
    g_autofree double *poses = g_new(double, (gsize)(STEPS + 1) * 12 * m->nbodies);
    g_autofree double *exact_x = g_new(double, (STEPS + 1) * 6);
    g_autofree double *exact_v = g_new(double, (STEPS + 1) * 6);
    for (int k = 0; f && k <= STEPS; ++k) {
        if (k > 0 && mbs_formulation_step(f, &err) != 0)
            break;
        time[k] = f->time;
        for (int b = 0; b < m->nbodies; ++b)
            mbs_formulation_body_pose(f, b, poses + ((gsize)k * m->nbodies + b) * 12,
                                      poses + ((gsize)k * m->nbodies + b) * 12 + 9);
        for (int i = 0; i < 2; ++i) {
            mbs_formulation_point_position(f, p[i], exact_x + 6 * k + 3 * i);
            mbs_formulation_point_velocity(f, p[i], exact_v + 6 * k + 3 * i);
        }
    }
    g_autofree double *xyz = g_new(double, (STEPS + 1) * 6);
    g_autofree double *v = g_new(double, (STEPS + 1) * 6);
    esl_points_history(m, time, poses, STEPS + 1, p, 2, xyz, v);
    double dx = 0, dv_inside = 0, dv_ends = 0, vmax = 0;
    for (int k = 0; k <= STEPS; ++k)
        for (int i = 0; i < 6; ++i) {
            dx = fmax(dx, fabs(xyz[6 * k + i] - exact_x[6 * k + i]));
            double dv = fabs(v[6 * k + i] - exact_v[6 * k + i]);
            if (k == 0 || k == STEPS)
                dv_ends = fmax(dv_ends, dv);
            else
                dv_inside = fmax(dv_inside, dv);
            vmax = fmax(vmax, fabs(exact_v[6 * k + i]));
        }
    tap_below(dx, 1e-12, "positions from the stored poses are the formulation's (%.1e m)", dx);
    /* central differences: h^2/6 |x'''| with |x'''| of a few m/s^3 at h = 10 ms */
    tap_ok(dv_inside < 3e-3 && vmax > 0.5,
           "central differences of the positions are the exact velocities to %.1e m/s (|v| up to "
           "%.2f m/s)", dv_inside, vmax);
    tap_below(dv_ends, 0.1, "one-sided at the ends (%.1e m/s)", dv_ends);

    g_autofree char *dir = g_dir_make_tmp("esl-points-XXXXXX", NULL);
    g_autofree char *path = g_build_filename(dir, "points.csv", NULL);
    tap_ok(esl_points_write_history(path, m, time, poses, STEPS + 1, p, 2, &error),
           "the history is written to CSV");
    g_autofree char *text = NULL;
    g_file_get_contents(path, &text, NULL, NULL);
    g_auto(GStrv) lines = text ? g_strsplit(text, "\n", -1) : NULL;
    tap_ok(lines && g_str_equal(lines[0], "time,crank:B:x,crank:B:y,crank:B:z,crank:B:vx,"
                                          "crank:B:vy,crank:B:vz,follower:C:x,follower:C:y,"
                                          "follower:C:z,follower:C:vx,follower:C:vy,follower:C:vz"),
           "its header: time, then the six columns of each point");
    tap_ok(lines && g_strv_length(lines) == STEPS + 3 && g_str_equal(lines[STEPS + 2], ""),
           "a row per sample");
    g_auto(GStrv) last = lines ? g_strsplit(lines[STEPS + 1], ",", -1) : NULL;
    tap_ok(last && g_strv_length(last) == 13 &&
               fabs(g_ascii_strtod(last[3], NULL) - exact_x[6 * STEPS + 2]) < 1e-9,
           "the last row holds crank:B's z at t = 1 s");
    g_unlink(path);
    g_rmdir(dir);
    g_autofree char *nowhere = g_build_filename(dir, "no", "such", "dir.csv", NULL);
    g_autoptr(GError) unwritable = NULL;
    tap_ok(!esl_points_write_history(nowhere, m, time, poses, 1, p, 2, &unwritable) &&
               unwritable && strstr(unwritable->message, nowhere),
           "an unwritable file is refused naming it");
    mbs_formulation_free(f);
    mbs_model_free(m);
    return tap_done();
}
