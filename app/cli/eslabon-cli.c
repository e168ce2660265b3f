/* eslabon-cli: everything the application can run, headless (DESIGN.md §5). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "eslabon-config.h"
#include "esl-cli.h"

typedef struct {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *synopsis;
} Command;

static const Command commands[] = {
    {"run", esl_cli_run,
     "run MODEL [--formulation NAME] [--step H] [--duration T] [--SETTING VALUE]...\n"
     "            [--set PARAM=VALUE]... [--output history.csv [--points BODY:POINT,...]\n"
     "            [--variables NAME,...] [--output-step DT]] [--project FILE] [--json]\n"
     "            (settings: run --help, formulations)"},
    {"sensitivity", esl_cli_sensitivity,
     "sensitivity MODEL [--formulation NAME] [--method direct|adjoint|fd] [--objectives A,B]\n"
     "            [--parameters A,B] [--step H] [--duration T] [--SETTING VALUE]... [--json]"},
    {"optimize", esl_cli_optimize,
     "optimize MODEL [--objective NAME] [--parameters A,B] [--lower A,B] [--upper A,B]\n"
     "            [--algorithm lbfgs|slsqp] [--method direct|fd] [--max-evaluations N] [--step H]\n"
     "            [--duration T] [--SETTING VALUE]..."},
    {"step", esl_cli_step,
     "step MODEL [--formulation NAME] [--at T] [--SETTING VALUE]... [--json]   (trace one time step)"},
    {"study", esl_cli_study,
     "study plan MODEL --parameter NAME=LOWER:UPPER[:LEVELS]... [--design full|lhs|random]\n"
     "            [--samples N] [--seed S] [--formulation NAME] [--SETTING VALUE]...\n"
     "            [--objectives final:VAR,max:VAR,min:VAR] --output study.json\n"
     "  study run study.json [--case K | --jobs N | --emit slurm [--partition P] [--time T]\n"
     "            [--max-parallel M] [--output FILE]]\n"
     "  study collect study.json --output OUT.eslabon"},
    {"project", esl_cli_project, "project merge OUT.eslabon SHARD.eslabon..."},
    {"advise", esl_cli_advise,
     "advise MODEL [--accuracy 1e-4] [--quantity BODY:POINT,...] [--duration T] [--full-runs N]\n"
     "            [--json]   (which formulation, settings and step)"},
    {"formulations", esl_cli_formulations, "formulations [--json]"},
    {"compare", esl_cli_compare,
     "compare MODEL [--formulations A,B,...] [--step H] [--duration T] [--reference-step H_REF]\n"
     "            [--reference-formulation NAME] [--points BODY:POINT,...] [--json]"},
    {"info", esl_cli_info, "info MODEL [--json]"},
    {"bench", esl_cli_bench, "bench penalty|jacobian|matrix-r|peer MODEL [--runs N] [--duration T] [--evaluations E]"},
    {"render", esl_cli_render, "render MODEL|--project FILE --run ID [--time T] --out view.png [--size WxH]"},
    {"generate", esl_cli_generate, "generate multi-four-bar --ny N --nz M [--output FILE]"},
    {"list-models", esl_cli_list_models, "list-models"},
    {"export", esl_cli_export,
     "export --format mjcf MODEL [--output FILE] [--step H] [--integrator RK4|Euler|implicit]"},
    {"tyre", esl_cli_tyre,
     "tyre FILE.tir --fz N[,N...] [--kappa a:b:n] [--alpha a:b:n] [--gamma G] [--vx V] [--mu M]\n"
     "            [--csv|--json]   (a tyre test rig)"},
};

int esl_cli_close_output(FILE *fp, const char *path, const char *command)
{
    /* the flush retries what a failed write left in the buffer, so errno names the reason */
    errno = 0;
    int saved = fflush(fp) != 0 ? errno : 0;
    int failed = saved || ferror(fp);
    if (fclose(fp) != 0) {
        failed = 1;
        saved = saved ? saved : errno;
    }
    if (!failed)
        return 1;
    fprintf(stderr, "eslabon-cli %s: cannot write '%s': %s\n", command, path,
            strerror(saved ? saved : EIO));
    struct stat st;
    if (stat(path, &st) == 0 && S_ISREG(st.st_mode)) /* never a device such as /dev/full */
        unlink(path);
    return 0;
}

/* What a command printed on stdout must have reached it: a full disk under a redirection is an
 * error, not exit status 0. */
static int finish(int status)
{
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "eslabon-cli: cannot write the output: %s\n", strerror(errno ? errno : EIO));
        return status ? status : 1;
    }
    return status;
}

static void usage(FILE *out)
{
    fprintf(out, "Usage: eslabon-cli COMMAND [OPTIONS]\n\nCommands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; ++i)
        fprintf(out, "  %s\n", commands[i].synopsis);
    fprintf(out, "\nJSON output keys are documented in docs/cli.md.\n");
}

int main(int argc, char **argv)
{
    if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
        usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? 2 : 0;
    }
    if (!strcmp(argv[1], "--version")) {
        printf("eslabon-cli %s\n", ESLABON_VERSION);
        return 0;
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; ++i)
        if (!strcmp(argv[1], commands[i].name))
            return finish(commands[i].run(argc - 1, argv + 1));
    fprintf(stderr, "eslabon-cli: unknown command '%s'\n\n", argv[1]);
    usage(stderr);
    return 2;
}
