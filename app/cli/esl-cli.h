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
int esl_cli_tyre(int argc, char **argv);         /* esl-cli-tyre.c */

#endif
