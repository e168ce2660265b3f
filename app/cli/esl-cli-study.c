/* eslabon-cli study plan|run|collect and project merge (issue 25): a case manifest, its cases
 * run one by one (a Slurm array task), on a local pool of processes or by an emitted sbatch
 * script, and the shards merged into one project. */
#include <glib.h>
#include <glib/gstdio.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "esl-cli.h"
#include "esl-cli-settings.h"
#include "esl-model-file.h"
#include "esl-models-dir.h"
#include "esl-project.h"
#include "esl-study.h"

/* ---- study plan ------------------------------------------------------------------------------ */

static int study_plan(int argc, char **argv)
{
    g_auto(GStrv) parameters = NULL;
    g_autofree char *design_name = NULL, *formulation = NULL, *objectives = NULL;
    g_autofree char *output = NULL;
    int samples = 0;
    gint64 seed = 1;
    GOptionEntry entries[] = {
        {"parameter", 0, 0, G_OPTION_ARG_STRING_ARRAY, &parameters, "A parameter and its range (full: its levels)", "NAME=LOWER:UPPER[:LEVELS]"},
        {"design", 0, 0, G_OPTION_ARG_STRING, &design_name, "full (default), lhs or random", "DESIGN"},
        {"samples", 0, 0, G_OPTION_ARG_INT, &samples, "Cases of an lhs or random design", "N"},
        {"seed", 0, 0, G_OPTION_ARG_INT64, &seed, "Seed of an lhs or random design (1)", "S"},
        {"formulation", 'f', 0, G_OPTION_ARG_STRING, &formulation, "Formulation (penalty, ...)", "NAME"},
        {"objectives", 0, 0, G_OPTION_ARG_STRING, &objectives, "What each case evaluates", "final:VAR,max:VAR,min:VAR,..."},
        {"output", 'o', 0, G_OPTION_ARG_FILENAME, &output, "The manifest to write", "study.json"},
        {NULL, 0, 0, 0, NULL, NULL, NULL},
    };
    EslSettingFlags flags;
    g_autoptr(GOptionContext) ctx = esl_setting_flags_context(
        &flags, "MODEL - plan a study: a case manifest", entries);
    g_autoptr(GError) error = NULL;
    int status = 2;
    MbsModel *m = NULL;
    g_autofree char *resolved = NULL;
    g_autoptr(EslStudy) study = NULL;
    if (!g_option_context_parse(ctx, &argc, &argv, &error)) {
        fprintf(stderr, "eslabon-cli study plan: %s\n", error->message);
        goto out;
    }
    if (argc != 2 || !output) {
        fprintf(stderr, "eslabon-cli study plan: expected one MODEL and --output study.json\n");
        goto out;
    }
    if (!formulation)
        formulation = g_strdup("penalty");
    const MbsFormulationClass *k = mbs_formulation_find(formulation);
    resolved = esl_resolve_model_path(argv[1]);
    m = k ? esl_model_load_file(resolved, NULL, 0, &error) : NULL;
    if (k && !m) {
        fprintf(stderr, "eslabon-cli study plan: %s\n", error->message);
        status = 1;
        goto out;
    }
    MbsSettings s;
    mbs_settings_defaults(&s);
    if (k && esl_setting_flags_apply(&flags, k, m, &s))
        goto out;
    /* the words the application's plan dialog gives too (esl_study_plan_from_words) */
    study = esl_study_plan_from_words(resolved, design_name, samples, seed,
                                      (const char *const *)parameters, formulation, &s,
                                      objectives, &error);
    if (!study || !esl_study_save(study, output, &error)) {
        fprintf(stderr, "eslabon-cli study plan: %s\n", error->message);
        goto out;
    }
    printf("%s: %d cases (%s design over", output, study->ncases,
           esl_study_design_name(study->design));
    for (int j = 0; j < study->nparameters; j++)
        printf("%s %s", j ? "," : "", study->parameters[j].name);
    printf("), %s, h = %g s, %g s each\n", formulation, s.step, s.duration);
    status = 0;
out:
    mbs_model_free(m);
    esl_setting_flags_clear(&flags);
    return status;
}

/* ---- study run ------------------------------------------------------------------------------- */

static char *self_executable(void)
{
    char *self = g_file_read_link("/proc/self/exe", NULL);
    return self ? self : g_find_program_in_path("eslabon-cli");
}

static void print_progress(int done, int failed, int total, double left, gpointer data)
{
    gboolean tty = GPOINTER_TO_INT(data);
    if (!tty)
        return;
    int width = 30, filled = total ? width * done / total : width;
    char bar[64];
    for (int i = 0; i < width; i++)
        bar[i] = i < filled ? '#' : '.';
    bar[width] = '\0';
    if (left >= 0)
        fprintf(stderr, "\r[%s] %d/%d cases, %d failed, about %.0f s left   ", bar, done, total,
                failed, left);
    else
        fprintf(stderr, "\r[%s] %d/%d cases, %d failed   ", bar, done, total, failed);
    fflush(stderr);
}

/* The sbatch script of a study's array: an ordinary file, documented in docs/cli.md. */
static int emit_slurm(const EslStudy *study, const char *path, const char *partition,
                      const char *time, int max_parallel)
{
    g_autofree char *self = self_executable();
    g_autofree char *manifest = g_canonicalize_filename(study->manifest_path, NULL);
    g_autofree char *dir = esl_study_shards_dir(study);
    g_autofree char *shards = g_canonicalize_filename(dir, NULL);
    g_autofree char *quoted_cli = g_shell_quote(self ? self : "eslabon-cli");
    g_autofree char *quoted_manifest = g_shell_quote(manifest);
    GString *s = g_string_new("#!/bin/bash\n");
    g_string_append_printf(s, "#SBATCH --job-name=eslabon-%s\n", study->model_name);
    if (max_parallel > 0)
        g_string_append_printf(s, "#SBATCH --array=0-%d%%%d\n", study->ncases - 1,
                               max_parallel);
    else
        g_string_append_printf(s, "#SBATCH --array=0-%d\n", study->ncases - 1);
    g_string_append(s, "#SBATCH --ntasks=1\n#SBATCH --cpus-per-task=1\n");
    if (partition)
        g_string_append_printf(s, "#SBATCH --partition=%s\n", partition);
    if (time)
        g_string_append_printf(s, "#SBATCH --time=%s\n", time);
    g_string_append_printf(s, "#SBATCH --output=%s/slurm-%%A_%%a.out\n", shards);
    g_string_append_printf(
        s,
        "# A study of %d cases (eslabon-cli study plan), one array task per case: each runs its\n"
        "# case into its own shard, %s/case-NNNN.eslabon.\n"
        "# Submit with `sbatch %s`, then merge the shards with\n"
        "#   eslabon-cli study collect %s --output merged.eslabon\n"
        "# Set ESLABON_CLI to the eslabon-cli the compute nodes have if it is not this one.\n"
        "set -eu\n"
        "ESLABON_CLI=\"${ESLABON_CLI:-%s}\"\n",
        study->ncases, shards, path, manifest, self ? self : "eslabon-cli");
    g_string_append_printf(s, "exec \"$ESLABON_CLI\" study run %s --case \"$SLURM_ARRAY_TASK_ID\"\n",
                           quoted_manifest);
    g_autoptr(GError) error = NULL;
    gboolean ok = g_mkdir_with_parents(dir, 0777) == 0 &&
                  g_file_set_contents(path, s->str, (gssize)s->len, &error) &&
                  g_chmod(path, 0755) == 0;
    g_string_free(s, TRUE);
    if (!ok) {
        fprintf(stderr, "eslabon-cli study run: cannot write %s: %s\n", path,
                error ? error->message : g_strerror(errno));
        return 1;
    }
    if (max_parallel > 0)
        printf("%s: sbatch script of %d array tasks, at most %d at once\n", path, study->ncases,
               max_parallel);
    else
        printf("%s: sbatch script of %d array tasks\n", path, study->ncases);
    return 0;
}

static int study_run(int argc, char **argv)
{
    int case_k = -1, jobs = 0, max_parallel = 0;
    g_autofree char *emit = NULL, *partition = NULL, *time = NULL, *output = NULL;
    GOptionEntry entries[] = {
        {"case", 0, 0, G_OPTION_ARG_INT, &case_k, "Run this case only (0 .. n-1)", "K"},
        {"jobs", 'j', 0, G_OPTION_ARG_INT, &jobs, "Processes of the local pool (default: the cores)", "N"},
        {"emit", 0, 0, G_OPTION_ARG_STRING, &emit, "Write a scheduler script instead of running", "slurm"},
        {"partition", 0, 0, G_OPTION_ARG_STRING, &partition, "slurm: partition", "P"},
        {"time", 0, 0, G_OPTION_ARG_STRING, &time, "slurm: time limit of a task", "T"},
        {"max-parallel", 0, 0, G_OPTION_ARG_INT, &max_parallel, "slurm: tasks at once", "M"},
        {"output", 'o', 0, G_OPTION_ARG_FILENAME, &output, "slurm: the script (default: STUDY.sbatch)", "FILE"},
        {NULL, 0, 0, 0, NULL, NULL, NULL},
    };
    g_autoptr(GOptionContext) ctx = g_option_context_new("STUDY.json - run a study's cases");
    g_option_context_add_main_entries(ctx, entries, NULL);
    g_autoptr(GError) error = NULL;
    if (!g_option_context_parse(ctx, &argc, &argv, &error)) {
        fprintf(stderr, "eslabon-cli study run: %s\n", error->message);
        return 2;
    }
    if (argc != 2) {
        fprintf(stderr, "eslabon-cli study run: expected one STUDY.json\n");
        return 2;
    }
    if ((partition || time || max_parallel || output) && !emit) {
        fprintf(stderr, "eslabon-cli study run: --partition, --time, --max-parallel and --output "
                        "go with --emit slurm\n");
        return 2;
    }
    if (emit && strcmp(emit, "slurm") != 0) {
        fprintf(stderr, "eslabon-cli study run: --emit '%s': only slurm\n", emit);
        return 2;
    }
    if (max_parallel < 0 || jobs < 0) {
        fprintf(stderr, "eslabon-cli study run: --jobs and --max-parallel are positive\n");
        return 2;
    }
    g_autoptr(EslStudy) study = esl_study_load(argv[1], &error);
    if (!study) {
        fprintf(stderr, "eslabon-cli study run: %s\n", error->message);
        return 1;
    }
    if (emit) {
        g_autofree char *stem = g_str_has_suffix(argv[1], ".json")
                                    ? g_strndup(argv[1], strlen(argv[1]) - 5)
                                    : g_strdup(argv[1]);
        g_autofree char *path = output ? g_strdup(output) : g_strconcat(stem, ".sbatch", NULL);
        return emit_slurm(study, path, partition, time, max_parallel);
    }
    if (case_k >= 0) {
        EslCaseState state;
        EslCaseState before = case_k >= 0 && case_k < study->ncases
                                  ? esl_study_case_state(study, case_k, NULL)
                                  : ESL_CASE_NOT_RUN;
        if (!esl_study_run_case(study, case_k, &state, &error)) {
            fprintf(stderr, "eslabon-cli study run: case %d: %s\n", case_k, error->message);
            return 1;
        }
        g_autofree char *shard = esl_study_shard_path(study, case_k);
        gboolean again = before == ESL_CASE_FINISHED || before == ESL_CASE_FAILED;
        printf("case %d: %s%s (%s)\n", case_k, state == ESL_CASE_FINISHED ? "finished" : "failed",
               again ? ", already done" : "", shard);
        return state == ESL_CASE_FINISHED ? 0 : 1;
    }
    if (jobs == 0)
        jobs = (int)g_get_num_processors();
    g_autofree char *self = self_executable();
    if (!self) {
        fprintf(stderr, "eslabon-cli study run: cannot find the eslabon-cli executable\n");
        return 1;
    }
    char *child[] = {self, "study", "run", argv[1], "--case", "0", NULL};
    int ran = 0, failed = 0;
    gboolean tty = isatty(2);
    double t0 = g_get_monotonic_time() / 1e6;
    if (!esl_study_run_pool(study, child, jobs, print_progress, GINT_TO_POINTER(tty), &ran,
                            &failed, &error)) {
        fprintf(stderr, "%seslabon-cli study run: %s\n", tty ? "\n" : "", error->message);
        return 1;
    }
    if (tty)
        fprintf(stderr, "\n");
    printf("%s: %d cases, %d run now on %d processes in %.2f s, %d done before, %d failed\n",
           argv[1], study->ncases, ran, jobs, g_get_monotonic_time() / 1e6 - t0,
           study->ncases - ran, failed);
    for (int k = 0; failed && k < study->ncases; k++) {
        g_autofree char *detail = NULL;
        EslCaseState st = esl_study_case_state(study, k, &detail);
        if (st != ESL_CASE_FINISHED)
            printf("  case %d: %s%s%s\n", k, st == ESL_CASE_FAILED ? "failed" : "did not end",
                   detail ? ": " : "", detail ? detail : "");
    }
    return failed ? 1 : 0;
}

/* ---- merging --------------------------------------------------------------------------------- */

/* Merge shards into out: every shard is inspected first, and a refused one (not a project, a
 * newer schema, another model) stops the merge before anything is written. Partial shards are
 * named and skipped. Missing shards (when allow_missing) are named. */
static int merge_shards(const char *cmd, const char *out, char **shards, int n,
                        gboolean allow_missing)
{
    g_autoptr(GError) error = NULL;
    g_autofree gboolean *skip = g_new0(gboolean, n + 1);
    g_autofree char *model_sha = NULL, *model_name = NULL, *model_from = NULL;
    int partial = 0, missing = 0;
    for (int i = 0; i < n; i++) {
        if (allow_missing && !g_file_test(shards[i], G_FILE_TEST_EXISTS)) {
            printf("%s: missing (the case has not run)\n", shards[i]);
            skip[i] = TRUE;
            missing++;
            continue;
        }
        EslShardInfo info = {0};
        if (!esl_project_merge_inspect(shards[i], &info, &error)) {
            /* a file a killed task left half-created is partial; anything else is refused */
            if (allow_missing && error->domain == ESL_PROJECT_ERROR &&
                (error->code == ESL_PROJECT_ERROR_NOT_PROJECT ||
                 error->code == ESL_PROJECT_ERROR_CORRUPT)) {
                printf("%s: partial, skipped: %s\n", shards[i], error->message);
                g_clear_error(&error);
                skip[i] = TRUE;
                partial++;
                continue;
            }
            fprintf(stderr, "eslabon-cli %s: %s: refused, nothing merged\n", cmd,
                    error->message);
            return 1;
        }
        if (info.partial) {
            printf("%s: partial, skipped: %s\n", shards[i], info.partial);
            skip[i] = TRUE;
            partial++;
        } else if (info.model_sha256 && model_sha && strcmp(info.model_sha256, model_sha)) {
            fprintf(stderr, "eslabon-cli %s: %s holds runs of another model ('%s', SHA-256 "
                    "%.12s...) than %s ('%s', SHA-256 %.12s...): refused, nothing merged\n",
                    cmd, shards[i], info.model_name, info.model_sha256, model_from, model_name,
                    model_sha);
            esl_shard_info_clear(&info);
            return 1;
        } else if (info.model_sha256 && !model_sha) {
            model_sha = g_strdup(info.model_sha256);
            model_name = g_strdup(info.model_name);
            model_from = g_strdup(shards[i]);
        }
        esl_shard_info_clear(&info);
    }
    g_autoptr(EslProject) project = esl_project_open(out, TRUE, &error);
    if (!project) {
        fprintf(stderr, "eslabon-cli %s: %s\n", cmd, error->message);
        return 1;
    }
    int copied = 0, present = 0, merged = 0;
    for (int i = 0; i < n; i++) {
        if (skip[i])
            continue;
        int c = 0, p = 0;
        if (!esl_project_merge(project, shards[i], &c, &p, &error)) {
            fprintf(stderr, "eslabon-cli %s: %s\n", cmd, error->message);
            return 1;
        }
        copied += c;
        present += p;
        merged++;
    }
    printf("%s: %d runs copied from %d shards, %d already there, %d partial shards skipped",
           out, copied, merged, present, partial);
    if (allow_missing)
        printf(", %d missing", missing);
    printf("\n");
    return 0;
}

static int study_collect(int argc, char **argv)
{
    g_autofree char *output = NULL;
    GOptionEntry entries[] = {
        {"output", 'o', 0, G_OPTION_ARG_FILENAME, &output, "The merged project", "OUT.eslabon"},
        {NULL, 0, 0, 0, NULL, NULL, NULL},
    };
    g_autoptr(GOptionContext) ctx = g_option_context_new("STUDY.json - merge a study's shards");
    g_option_context_add_main_entries(ctx, entries, NULL);
    g_autoptr(GError) error = NULL;
    if (!g_option_context_parse(ctx, &argc, &argv, &error) || argc != 2 || !output) {
        fprintf(stderr, "eslabon-cli study collect: %s\n",
                error ? error->message : "expected STUDY.json --output OUT.eslabon");
        return 2;
    }
    g_autoptr(EslStudy) study = esl_study_load(argv[1], &error);
    if (!study) {
        fprintf(stderr, "eslabon-cli study collect: %s\n", error->message);
        return 1;
    }
    g_autoptr(GPtrArray) shards = g_ptr_array_new_with_free_func(g_free);
    for (int k = 0; k < study->ncases; k++)
        g_ptr_array_add(shards, esl_study_shard_path(study, k));
    g_ptr_array_add(shards, NULL);
    return merge_shards("study collect", output, (char **)shards->pdata, study->ncases, TRUE);
}

int esl_cli_study(int argc, char **argv)
{
    if (argc >= 2 && !strcmp(argv[1], "plan"))
        return study_plan(argc - 1, argv + 1);
    if (argc >= 2 && !strcmp(argv[1], "run"))
        return study_run(argc - 1, argv + 1);
    if (argc >= 2 && !strcmp(argv[1], "collect"))
        return study_collect(argc - 1, argv + 1);
    fprintf(stderr, "eslabon-cli study: expected plan, run or collect\n");
    return 2;
}

int esl_cli_project(int argc, char **argv)
{
    if (argc >= 2 && !strcmp(argv[1], "merge")) {
        if (argc >= 3 && (!strcmp(argv[2], "--help") || !strcmp(argv[2], "-h"))) {
            printf("Usage: eslabon-cli project merge OUT.eslabon SHARD.eslabon...\n");
            return 0;
        }
        if (argc < 4) {
            fprintf(stderr, "eslabon-cli project merge: expected OUT.eslabon SHARD.eslabon...\n");
            return 2;
        }
        return merge_shards("project merge", argv[2], argv + 3, argc - 3, FALSE);
    }
    fprintf(stderr, "eslabon-cli project: expected merge\n");
    return 2;
}
