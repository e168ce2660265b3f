/* Under a Spanish locale (decimal comma, LANGUAGE=es; run through locale-files.sh, which makes
 * es_ES.UTF-8 when the system lacks it) the user reads Spanish messages, but the files keep a
 * decimal point and read back identically: the model loader's errors are translated
 * (app/esl-model-file.c), a point history CSV (app/esl-points.c), a model edit
 * (app/esl-model-edit.c) and a project (app/esl-project.c) are written and read back. */
#include <glib.h>
#include <glib/gstdio.h>
#include <libintl.h>
#include <locale.h>
#include <math.h>
#include <string.h>

#include "eslabon-config.h"
#include "esl-model-edit.h"
#include "esl-model-file.h"
#include "esl-points.h"
#include "esl-project.h"
#include "tap.h"

#define SAMPLES 3

/* Poses of SAMPLES samples: identity rotations, positions with fractions that need all their
 * digits (1/3, 0.1) so a comma or a truncation shows. */
static void make_poses(const MbsModel *m, double *time, double *poses)
{
    for (int k = 0; k < SAMPLES; ++k) {
        time[k] = 0.1 * k + 1.0 / 3.0;
        for (int b = 0; b < m->nbodies; ++b) {
            double *pose = poses + ((size_t)k * m->nbodies + b) * 12;
            memset(pose, 0, 12 * sizeof *pose);
            pose[0] = pose[4] = pose[8] = 1.0;
            pose[9] = 0.5 + k / 3.0;
            pose[10] = -1.25e-3 * (b + 1);
            pose[11] = 2.0 / 7.0;
        }
    }
}

int main(int argc, char **argv)
{
    const char *po_dir = argc > 1 ? argv[1] : ESLABON_BUILD_ROOT "/po";
    const char *locale = setlocale(LC_ALL, "");
    bindtextdomain(GETTEXT_PACKAGE, po_dir);
    bind_textdomain_codeset(GETTEXT_PACKAGE, "UTF-8");
    const char *decimal = localeconv()->decimal_point;
    tap_ok(locale && g_str_equal(decimal, ","), "the locale %s writes a decimal comma (%s)",
           locale ? locale : "(none)", decimal);

    /* 1: a loader message in Spanish. */
    g_autoptr(GError) error = NULL;
    MbsModel *none = esl_model_load_string("{}", "vacio.json", NULL, 0, &error);
    tap_ok(!none && error && strstr(error->message, "no es un archivo eslabon-model (falta el "
                                                    "campo obligatorio «format»)"),
           "the loader's message is Spanish: %s", error ? error->message : "(none)");
    g_clear_error(&error);

    g_autofree char *model_path = g_build_filename(ESLABON_SOURCE_DIR, "models",
                                                   "four-bar-spatial.json", NULL);
    MbsModel *m = esl_model_load_file(model_path, NULL, 0, &error);
    tap_ok(m != NULL, "the four-bar loads under the Spanish locale");
    if (!m)
        return tap_done();

    /* 2: the point history CSV. */
    double time[SAMPLES], *poses = g_new(double, (size_t)SAMPLES * m->nbodies * 12);
    make_poses(m, time, poses);
    g_autoptr(GArray) pts = esl_points_parse(m, "crank:B", &error);
    g_autofree char *dir = g_dir_make_tmp("eslabon-locale-XXXXXX", NULL);
    g_autofree char *csv_path = g_build_filename(dir, "points.csv", NULL);
    gboolean written = pts && esl_points_write_history(csv_path, m, time, poses, SAMPLES,
                                                       (int *)(void *)pts->data, 1, &error);
    g_autofree char *csv = NULL;
    g_file_get_contents(csv_path, &csv, NULL, NULL);
    g_auto(GStrv) rows = csv ? g_strsplit(csv, "\n", -1) : NULL;
    int columns_ok = rows && g_strv_length(rows) == SAMPLES + 2;
    double worst = 0.0;
    double xyz[3 * SAMPLES], v[3 * SAMPLES];
    esl_points_history(m, time, poses, SAMPLES, (int *)(void *)pts->data, 1, xyz, v);
    for (int k = 0; columns_ok && k < SAMPLES; ++k) {
        g_auto(GStrv) cell = g_strsplit(rows[k + 1], ",", -1);
        columns_ok = g_strv_length(cell) == 7;
        for (int c = 0; columns_ok && c < 7; ++c) {
            char *end;
            double value = g_ascii_strtod(cell[c], &end);
            columns_ok = *end == '\0';
            double want = c == 0 ? time[k] : c < 4 ? xyz[3 * k + c - 1] : v[3 * k + c - 4];
            /* time is written with 9 significant digits, the rest with 12: relative to them */
            double digits = c == 0 ? 5e-9 : 5e-12;
            worst = fmax(worst, fabs(value - want) / (digits * fmax(fabs(want), 1e-300)));
        }
    }
    tap_ok(written && columns_ok, "the CSV has 7 point-decimal cells per row (%s)",
           rows && rows[1] ? rows[1] : "(none)");
    tap_ok(columns_ok && worst <= 1.0, "its numbers read back to their written digits (worst "
                                       "%.2f of half a last digit)", worst);

    /* 3: a model edit writes a point into the JSON and it loads back exactly. */
    g_autofree char *json = NULL;
    g_file_get_contents(model_path, &json, NULL, NULL);
    const double mass = 1.0 / 3.0;
    g_autofree char *edited = json ? esl_model_edit_set_number(json, "bodies/1/mass", mass,
                                                               &error)
                                   : NULL;
    MbsModel *back = edited ? esl_model_load_string(edited, "edited.json", NULL, 0, &error) : NULL;
    tap_ok(back && back->bodies[1].mass == mass && !strstr(edited, "0,333"),
           "an edited mass of 1/3 is written with a point and loads back bit for bit");

    /* 4: a project: the model text and the samples come back identical. */
    g_autofree char *project_path = g_build_filename(dir, "locale.eslabon", NULL);
    EslProject *project = esl_project_open(project_path, TRUE, &error);
    gint64 model_id = project && edited ? esl_project_add_model(project, "four-bar", model_path,
                                                                 edited, &error)
                                        : 0;
    g_autofree char *stored = model_id ? esl_project_model_json(project, model_id, &error) : NULL;
    tap_ok(stored && g_str_equal(stored, edited), "the project stores the model text unchanged");
    EslRunRequest request = {.model_name = "four-bar", .model_id = model_id,
                             .formulation = "penalty", .nbodies = m->nbodies};
    mbs_settings_defaults(&request.settings);
    request.settings.step = 1.0 / 300.0;
    MbsMonitors monitors[SAMPLES] = {{0}};
    for (int k = 0; k < SAMPLES; ++k) {
        monitors[k].time = time[k];
        monitors[k].kinetic = 0.1 + k / 7.0;
        monitors[k].total = -2.0 / 3.0;
    }
    gint64 run = project ? esl_project_begin_run(project, &request, &error) : 0;
    gboolean stored_run =
        run && esl_project_append_samples(project, run, monitors, poses, NULL, SAMPLES, &error) &&
        esl_project_finish_run(project, run, ESL_RUN_FINISHED, NULL, "{\"steps\": 0.5}", 0.25,
                               &error);
    esl_project_close(project);
    project = esl_project_open(project_path, FALSE, &error);
    g_autoptr(EslRunHistory) history = project ? esl_project_load_run(project, run, &error) : NULL;
    g_autoptr(EslRunInfo) info = project ? esl_project_get_run(project, run, &error) : NULL;
    gboolean same = stored_run && history && history->n == SAMPLES && info &&
                    info->settings.step == request.settings.step;
    for (int k = 0; same && k < SAMPLES; ++k)
        same = history->monitors[k].time == time[k] &&
               history->monitors[k].kinetic == monitors[k].kinetic &&
               history->monitors[k].total == monitors[k].total;
    for (int i = 0; same && i < SAMPLES * m->nbodies * 12; ++i)
        same = history->poses[i] == poses[i];
    tap_ok(same, "a run's settings, monitors and poses read back bit for bit%s%s",
           error ? ": " : "", error ? error->message : "");
    esl_project_close(project);

    g_unlink(csv_path);
    g_unlink(project_path);
    g_rmdir(dir);
    g_free(poses);
    mbs_model_free(back);
    mbs_model_free(m);
    return tap_done();
}
