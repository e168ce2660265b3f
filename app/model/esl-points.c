/* Named model points and their histories; see esl-points.h. */
#include "esl-points.h"
#include "eslabon-config.h"

#include <glib/gi18n-lib.h>

#include <errno.h>
#include <glib/gstdio.h>
#include <string.h>

#include "mbs_linalg.h"

GArray *esl_points_parse(const MbsModel *m, const char *spec, GError **error)
{
    GArray *pts = g_array_new(FALSE, FALSE, sizeof(int));
    if (!spec) {
        for (int i = 0; i < m->npoints; ++i)
            if (m->points[i].body != m->ground)
                g_array_append_val(pts, i);
        return pts;
    }
    g_auto(GStrv) names = g_strsplit(spec, ",", -1);
    for (int k = 0; names[k]; ++k) {
        g_auto(GStrv) bp = g_strsplit(names[k], ":", 2);
        int body = bp[0] ? mbs_model_find_body(m, bp[0]) : -1;
        int p = body >= 0 && bp[1] ? mbs_model_find_point(m, body, bp[1]) : -1;
        if (p < 0) {
            g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                        _("--points: '%s' is not BODY:POINT of this model"), names[k]);
            g_array_free(pts, TRUE);
            return NULL;
        }
        g_array_append_val(pts, p);
    }
    return pts;
}

void esl_points_write_header(FILE *csv, const MbsModel *m, const int *points, int npoints)
{
    static const char *const axes[] = {"x", "y", "z", "vx", "vy", "vz"};
    for (int i = 0; i < npoints; ++i) {
        const MbsPoint *p = &m->points[points[i]];
        for (int a = 0; a < 6; ++a)
            fprintf(csv, ",%s:%s:%s", m->bodies[p->body].name, p->name, axes[a]);
    }
}

/* A file's number: a decimal point whatever the locale (the window runs under the user's). */
static void write_number(FILE *csv, const char *format, double value)
{
    char text[G_ASCII_DTOSTR_BUF_SIZE];
    fputs(g_ascii_formatd(text, sizeof text, format, value), csv);
}

void esl_points_write_values(FILE *csv, const double *xyz, const double *v, int npoints)
{
    for (int i = 0; i < 3 * npoints; i += 3)
        for (int c = 0; c < 6; ++c) {
            fputc(',', csv);
            write_number(csv, "%.12g", c < 3 ? xyz[i + c] : v[i + c - 3]);
        }
}

void esl_points_from_poses(const MbsModel *m, const double *poses, const int *points,
                           int npoints, double *xyz)
{
    for (int i = 0; i < npoints; ++i) {
        const MbsPoint *p = &m->points[points[i]];
        const double *pose = poses + 12 * p->body;
        mbs_m3_mulv(pose, p->pos, xyz + 3 * i);
        mbs_v3_add(xyz + 3 * i, pose + 9, xyz + 3 * i);
    }
}

void esl_points_history(const MbsModel *m, const double *time, const double *poses, int n,
                        const int *points, int npoints, double *xyz, double *v)
{
    const size_t row = 3 * (size_t)npoints;
    for (int k = 0; k < n; ++k)
        esl_points_from_poses(m, poses + (size_t)k * 12 * m->nbodies, points, npoints,
                              xyz + k * row);
    memset(v, 0, sizeof(double) * row * (size_t)n);
    if (n < 2)
        return;
    for (int k = 0; k < n; ++k) {
        int a = k > 0 ? k - 1 : 0, b = k < n - 1 ? k + 1 : n - 1;
        double dt = time[b] - time[a];
        if (!(dt > 0))
            continue;
        for (size_t i = 0; i < row; ++i)
            v[k * row + i] = (xyz[b * row + i] - xyz[a * row + i]) / dt;
    }
}

gboolean esl_points_write_history(const char *path, const MbsModel *m, const double *time,
                                  const double *poses, int n, const int *points, int npoints,
                                  GError **error)
{
    FILE *csv = g_fopen(path, "w");
    if (!csv) {
        int code = errno;
        g_set_error(error, G_FILE_ERROR, g_file_error_from_errno(code), _("cannot write %s: %s"),
                    path, g_strerror(code));
        return FALSE;
    }
    const size_t row = 3 * (size_t)npoints;
    g_autofree double *xyz = g_new0(double, row * (size_t)n + 1);
    g_autofree double *v = g_new0(double, row * (size_t)n + 1);
    esl_points_history(m, time, poses, n, points, npoints, xyz, v);
    fputs("time", csv);
    esl_points_write_header(csv, m, points, npoints);
    fputc('\n', csv);
    for (int k = 0; k < n; ++k) {
        write_number(csv, "%.9g", time[k]);
        esl_points_write_values(csv, xyz + k * row, v + k * row, npoints);
        fputc('\n', csv);
    }
    gboolean ok = !ferror(csv);
    if (fclose(csv) != 0 || !ok) {
        g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_IO, _("cannot write %s"), path);
        return FALSE;
    }
    return TRUE;
}
