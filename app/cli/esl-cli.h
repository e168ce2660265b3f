/* Sub-commands of eslabon-cli. Each returns the process exit status. */
#ifndef ESL_CLI_H
#define ESL_CLI_H

int esl_cli_info(int argc, char **argv);        /* esl-cli-model.c */
int esl_cli_generate(int argc, char **argv);    /* esl-cli-model.c */
int esl_cli_list_models(int argc, char **argv); /* esl-cli-model.c */
int esl_cli_run(int argc, char **argv);         /* esl-cli-run.c */
int esl_cli_bench(int argc, char **argv);       /* esl-cli-bench.c */
int esl_cli_render(int argc, char **argv);      /* esl-cli-render.c */
int esl_cli_compare(int argc, char **argv);     /* esl-cli-compare.c */
int esl_cli_sensitivity(int argc, char **argv);  /* esl-cli-sensitivity.c */
int esl_cli_optimize(int argc, char **argv);     /* esl-cli-optimize.c */
int esl_cli_formulations(int argc, char **argv); /* esl-cli-settings.c */
int esl_cli_step(int argc, char **argv);         /* esl-cli-step.c */
int esl_cli_study(int argc, char **argv);        /* esl-cli-study.c */
int esl_cli_project(int argc, char **argv);      /* esl-cli-study.c */
int esl_cli_advise(int argc, char **argv);       /* esl-cli-advise.c */
int esl_cli_tyre(int argc, char **argv);         /* esl-cli-tyre.c */
int esl_cli_export(int argc, char **argv);       /* esl-cli-export.c */

/* The MJCF text of m with its assembled initial state (esl-cli-export.c; esl-mjcf.h). */
#include <glib.h>
#include "mbs_model.h"
char *esl_cli_mjcf_text(const MbsModel *m, double step, const char *integrator, int *qpos_node,
                        GError **error);

/* Closes an output file the command wrote (--output, --history...): FALSE, with "eslabon-cli
 * COMMAND: cannot write 'PATH': reason" on stderr, when any write or the close failed (a full
 * disk), and then a regular file at path is removed rather than left half-written. */
#include <stdio.h>
int esl_cli_close_output(FILE *fp, const char *path, const char *command); /* eslabon-cli.c */

#endif
