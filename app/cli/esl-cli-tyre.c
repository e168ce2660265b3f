/* eslabon-cli tyre FILE.tir --fz N[,N...] --kappa a:b:n --alpha a:b:n --gamma g [--vx V]
 *                  [--mu M] [--csv|--json]
 *
 * A tyre test rig (as Adams' and Chrono's): evaluates a .tir file's Magic Formula on a grid of
 * loads and slips, the wheel centre moving at Vx with the spin and lateral velocity that give
 * each kappa and alpha (engine/vehicle/tyre_pac2002.h), so a user can check a file before a
 * vehicle uses it. docs/cli.md § tyre. */
#include <json-glib/json-glib.h>
#include <math.h>
#include <stdio.h>

#include "esl-cli.h"
#include "esl-settings-json.h"
#include "esl-tyre-file.h"
#include "mbs_tyre_model.h"
#include "tyre_pac2002.h"

#define GRID_MAX 100000

static const char *const out_names[MBS_TYRE_OUT_COUNT] = {"Fx", "Fy", "Mx", "My", "Mz"};

/* "a:b:n" (n points from a to b, ends included) or "a" (one point). */
static gboolean parse_range(const char *text, double out[3])
{
    g_auto(GStrv) parts = g_strsplit(text, ":", -1);
    guint n = g_strv_length(parts);
    if (n != 1 && n != 3)
        return FALSE;
    for (guint i = 0; i < n; ++i) {
        char *end;
        out[i] = g_ascii_strtod(parts[i], &end);
        if (end == parts[i] || *end || !isfinite(out[i]))
            return FALSE;
    }
    if (n == 1) {
        out[1] = out[0];
        out[2] = 1;
    }
    return out[2] >= 1 && out[2] <= GRID_MAX && out[2] == floor(out[2]);
}

static double range_at(const double r[3], int i)
{
    return r[2] > 1 ? r[0] + (r[1] - r[0]) * i / (r[2] - 1) : r[0];
}

int esl_cli_tyre(int argc, char **argv)
{
    char *fz_text = NULL, *kappa_text = NULL, *alpha_text = NULL;
    double gamma = 0.0, vx = NAN, mu = 1.0;
    gboolean csv = FALSE, json = FALSE;
    GOptionEntry entries[] = {
        {"fz", 0, 0, G_OPTION_ARG_STRING, &fz_text, "Normal loads (N), comma-separated", "N[,N...]"},
        {"kappa", 0, 0, G_OPTION_ARG_STRING, &kappa_text, "Longitudinal slips: n points from a to b (default 0)", "a:b:n"},
        {"alpha", 0, 0, G_OPTION_ARG_STRING, &alpha_text, "Slip angles (rad): n points from a to b (default 0)", "a:b:n"},
        {"gamma", 0, 0, G_OPTION_ARG_DOUBLE, &gamma, "Inclination angle (rad, default 0)", "G"},
        {"vx", 0, 0, G_OPTION_ARG_DOUBLE, &vx, "Wheel centre speed (m/s, default the file's LONGVL)", "V"},
        {"mu", 0, 0, G_OPTION_ARG_DOUBLE, &mu, "Road friction relative to the tyre's (default 1)", "M"},
        {"csv", 0, 0, G_OPTION_ARG_NONE, &csv, "Print CSV", NULL},
        {"json", 0, 0, G_OPTION_ARG_NONE, &json, "Print JSON", NULL},
        {NULL, 0, 0, 0, NULL, NULL, NULL},
    };
    g_autoptr(GOptionContext) ctx = g_option_context_new("FILE.tir - evaluate a tyre on a grid");
    g_option_context_add_main_entries(ctx, entries, NULL);
    g_autoptr(GError) error = NULL;
    g_autoptr(GArray) loads = g_array_new(FALSE, FALSE, sizeof(double));
    g_autoptr(JsonBuilder) b = NULL;
    MbsTyreData *data = NULL;
    int status = 2;
    double kr[3] = {0, 0, 1}, ar[3] = {0, 0, 1};
    if (!g_option_context_parse(ctx, &argc, &argv, &error)) {
        fprintf(stderr, "eslabon-cli tyre: %s\n", error->message);
        goto out;
    }
    if (argc != 2) {
        fprintf(stderr, "eslabon-cli tyre: expected one FILE.tir\n");
        goto out;
    }
    if (csv && json) {
        fprintf(stderr, "eslabon-cli tyre: --csv and --json exclude each other\n");
        goto out;
    }
    if (!fz_text) {
        fprintf(stderr, "eslabon-cli tyre: --fz N[,N...] is required\n");
        goto out;
    }
    {
        g_auto(GStrv) parts = g_strsplit(fz_text, ",", -1);
        for (char **p = parts; *p; ++p) {
            char *end;
            double f = g_ascii_strtod(*p, &end);
            if (end == *p || *end || !isfinite(f) || f < 0.0) {
                fprintf(stderr, "eslabon-cli tyre: --fz: '%s' is not a load >= 0 N\n", *p);
                goto out;
            }
            g_array_append_val(loads, f);
        }
    }
    if (loads->len == 0 || loads->len > GRID_MAX) {
        fprintf(stderr, "eslabon-cli tyre: --fz needs 1 to %d loads\n", GRID_MAX);
        goto out;
    }
    if ((kappa_text && !parse_range(kappa_text, kr)) || (alpha_text && !parse_range(alpha_text, ar))) {
        fprintf(stderr, "eslabon-cli tyre: --kappa and --alpha take a:b:n (n from 1 to %d) or "
                        "one number\n", GRID_MAX);
        goto out;
    }
    if (fabs(ar[0]) >= G_PI_2 || fabs(ar[1]) >= G_PI_2 || !isfinite(gamma) || fabs(gamma) >= G_PI_2) {
        fprintf(stderr, "eslabon-cli tyre: --alpha and --gamma must lie in (-pi/2, pi/2) rad\n");
        goto out;
    }
    if (!(mu > 0.0) || !isfinite(mu)) {
        fprintf(stderr, "eslabon-cli tyre: --mu must be a positive number\n");
        goto out;
    }
    if (!isnan(vx) && !(vx > 0.0 && isfinite(vx))) {
        fprintf(stderr, "eslabon-cli tyre: --vx must be a positive speed (m/s)\n");
        goto out;
    }
    if ((double)loads->len * kr[2] * ar[2] > 1e7) {
        fprintf(stderr, "eslabon-cli tyre: the grid has more than 10^7 points\n");
        goto out;
    }
    status = 1;
    const char *path = argv[1];
    data = esl_tyre_file_load(path, &error);
    if (!data) {
        fprintf(stderr, "eslabon-cli tyre: %s\n", error->message);
        goto out;
    }
    if (isnan(vx))
        vx = mbs_pac2002_tir(data)->LONGVL;

    if (json) {
        b = json_builder_new();
        json_builder_begin_object(b);
        json_builder_set_member_name(b, "file");
        json_builder_add_string_value(b, path);
        json_builder_set_member_name(b, "vx");
        json_builder_add_double_value(b, vx);
        json_builder_set_member_name(b, "gamma");
        json_builder_add_double_value(b, gamma);
        json_builder_set_member_name(b, "mu");
        json_builder_add_double_value(b, mu);
        json_builder_set_member_name(b, "points");
        json_builder_begin_array(b);
    } else if (csv) {
        printf("fz,kappa,alpha,gamma,vx,Fx,Fy,Mx,My,Mz\n");
    } else {
        printf("%s at Vx = %g m/s, gamma = %g rad, mu = %g\n", path, vx, gamma, mu);
        printf("%10s %10s %10s %12s %12s %12s %12s %12s\n", "Fz (N)", "kappa", "alpha",
               "Fx (N)", "Fy (N)", "Mx (N m)", "My (N m)", "Mz (N m)");
    }
    for (guint l = 0; l < loads->len; ++l) {
        double fz = g_array_index(loads, double, l);
        for (int i = 0; i < (int)kr[2]; ++i) {
            double kappa = range_at(kr, i);
            for (int j = 0; j < (int)ar[2]; ++j) {
                double alpha = range_at(ar, j);
                MbsTyreOutput o;
                mbs_pac2002_rig(data, fz, kappa, alpha, gamma, vx, mu, &o);
                const double *y = o.out;
                if (json) {
                    json_builder_begin_object(b);
                    json_builder_set_member_name(b, "fz");
                    json_builder_add_double_value(b, fz);
                    json_builder_set_member_name(b, "kappa");
                    json_builder_add_double_value(b, o.kappa);
                    json_builder_set_member_name(b, "alpha");
                    json_builder_add_double_value(b, o.alpha);
                    for (int k = 0; k < MBS_TYRE_OUT_COUNT; ++k) {
                        json_builder_set_member_name(b, out_names[k]);
                        json_builder_add_double_value(b, y[k]);
                    }
                    json_builder_end_object(b);
                } else if (csv) {
                    printf("%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g\n", fz,
                           o.kappa, o.alpha, gamma, vx, y[0], y[1], y[2], y[3], y[4]);
                } else {
                    printf("%10.1f %10.4f %10.4f %12.2f %12.2f %12.3f %12.3f %12.3f\n", fz,
                           o.kappa, o.alpha, y[0], y[1], y[2], y[3], y[4]);
                }
            }
        }
    }
    if (json) {
        json_builder_end_array(b);
        json_builder_end_object(b);
        g_autoptr(JsonNode) root = json_builder_get_root(b);
        g_autofree char *s = esl_json_generate(root, FALSE);
        printf("%s\n", s);
    }
    status = 0;
out:
    if (data)
        mbs_tyre_pac2002.free_data(data);
    g_free(fz_text);
    g_free(kappa_text);
    g_free(alpha_text);
    return status;
}
