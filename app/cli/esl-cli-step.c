/* eslabon-cli step MODEL [--formulation F] [--at T] [--SETTING VALUE]... [--json]
 *
 * Runs the model to the last grid time at or before T with the run driver, then traces the
 * next step (engine/mbs_trace.h): the phases as a table (predictor, each Newton iteration's
 * residual and correction, the projections) and the matrices' sizes and nonzeros; with --json
 * everything, the matrices' patterns as index lists with their values (docs/cli.md). Pictures
 * of the matrices are the window's (Step Through). */
#include <json-glib/json-glib.h>
#include <math.h>
#include <stdio.h>

#include "esl-cli-settings.h"
#include "esl-cli.h"
#include "esl-model-file.h"
#include "esl-models-dir.h"
#include "esl-settings-json.h"
#include "esl-step-trace.h"

G_DEFINE_AUTOPTR_CLEANUP_FUNC(MbsModel, mbs_model_free)

static void print_number(double v)
{
    if (isfinite(v))
        printf("  %10.3e", v);
    else
        printf("  %10s", "-");
}

static void print_table(const MbsTrace *t, const char *model)
{
    printf("%s, %s: step from t = %.6g s to %.6g s (h = %g s)\n", model, t->formulation,
           t->time, t->time + t->step, t->step);
    if (t->message[0])
        printf("%s\n", t->message);
    if (t->nphases == 0)
        return;
    printf("%-24s %4s  %10s  %10s  %10s  %10s  %10s  %s\n", "phase", "it", "residual",
           "correction", "bound", "after", "|Phi|", "K,C eval");
    for (int i = 0; i < t->nphases; ++i) {
        const MbsTracePhase *p = &t->phases[i];
        printf("%-24s %4d", mbs_trace_phase_kind_name(p->kind), p->iteration);
        print_number(p->residual);
        print_number(p->correction);
        print_number(p->bound);
        print_number(p->residual_after);
        print_number(p->constraint);
        printf("  %s\n", p->kind != MBS_TRACE_NEWTON ? "" :
                         p->tangent_evaluated ? "yes" : "no");
    }
    printf("\nmatrices (first of each name; %d in all):\n", t->nmatrices);
    printf("%-12s %-24s %10s %10s %8s  %s\n", "name", "phase", "size", "nonzeros", "fill",
           "formula");
    for (int i = 0; i < t->nmatrices; ++i) {
        const MbsTraceMatrix *x = &t->matrices[i];
        int seen = 0;
        for (int k = 0; k < i && !seen; ++k)
            seen = g_strcmp0(t->matrices[k].name, x->name) == 0;
        if (seen)
            continue;
        char size[32];
        g_snprintf(size, sizeof size, "%dx%d", x->rows, x->cols);
        const MbsTracePhase *p = &t->phases[x->phase];
        char phase[40];
        g_snprintf(phase, sizeof phase, "%s %d", mbs_trace_phase_kind_name(p->kind), p->iteration);
        double cells = (double)x->rows * x->cols;
        printf("%-12s %-24s %10s %10ld %7.1f%%  %s\n", x->name, phase, size, x->nonzeros,
               cells > 0 ? 100.0 * (double)x->nonzeros / cells : 0.0, x->formula);
    }
    if (t->truncated)
        printf("(the trace buffer was full: some phases or matrix entries were not kept)\n");
}

int esl_cli_step(int argc, char **argv)
{
    char *formulation = NULL;
    double at = 0.0;
    gboolean json = FALSE;
    GOptionEntry entries[] = {
        {"formulation", 'f', 0, G_OPTION_ARG_STRING, &formulation, "Formulation (penalty, ...)", "NAME"},
        {"at", 0, 0, G_OPTION_ARG_DOUBLE, &at, "Trace the step that starts at this time (s; the last grid time at or before it)", "T"},
        {"json", 0, 0, G_OPTION_ARG_NONE, &json, "Print the whole trace as JSON", NULL},
        {NULL, 0, 0, 0, NULL, NULL, NULL},
    };
    EslSettingFlags flags;
    g_autoptr(GOptionContext) ctx =
        esl_setting_flags_context(&flags, "MODEL - trace one time step", entries);
    g_autoptr(GError) error = NULL;
    g_autofree char *path = NULL;
    g_autoptr(MbsModel) m = NULL;
    g_autoptr(MbsTrace) t = NULL;
    int status = 2;
    if (!g_option_context_parse(ctx, &argc, &argv, &error)) {
        fprintf(stderr, "eslabon-cli step: %s\n", error->message);
        goto out;
    }
    if (argc != 2 || !(at >= 0.0) || !isfinite(at)) {
        fprintf(stderr, "eslabon-cli step: expected one MODEL file and --at T >= 0\n");
        goto out;
    }
    if (!formulation)
        formulation = g_strdup("penalty");
    const MbsFormulationClass *k = mbs_formulation_find(formulation);
    if (!k) {
        fprintf(stderr, "eslabon-cli step: unknown formulation '%s'\n", formulation);
        goto out;
    }
    path = esl_resolve_model_path(argv[1]);
    m = esl_model_load_file(path, NULL, 0, &error);
    if (!m) {
        fprintf(stderr, "eslabon-cli step: %s\n", error->message);
        status = 1;
        goto out;
    }
    MbsSettings s;
    mbs_settings_defaults(&s);
    if ((status = esl_setting_flags_apply(&flags, k, m, &s)))
        goto out;
    status = 1;
    t = esl_step_trace_at(m, formulation, &s, at, &error);
    if (!t) {
        fprintf(stderr, "eslabon-cli step: %s\n", error->message);
        goto out;
    }
    if (json) {
        g_autoptr(JsonBuilder) b = json_builder_new();
        esl_step_trace_to_json(t, b);
        g_autoptr(JsonNode) root = json_builder_get_root(b);
        g_autofree char *text = esl_json_generate(root, FALSE);
        printf("%s\n", text);
    } else {
        print_table(t, m->name);
    }
    /* a step that fails is still shown, and said to have failed */
    status = t->status ? 1 : 0;
out:
    esl_setting_flags_clear(&flags);
    g_free(formulation);
    return status;
}
