/* Benchmarks of eslabon-cli bench that live in their own files. */
#ifndef ESL_CLI_BENCH_H
#define ESL_CLI_BENCH_H

int esl_bench_matrix_r(const char *models_dir, int runs, int evaluations);
/* matrix-r direct and adjoint sensitivities on the five-bar (esl-cli-bench-sensitivity.c);
 * jac: the state derivatives' method (NULL: the default). */
int esl_bench_sensitivity(const char *models_dir, int runs, double duration, const char *jac);
int esl_bench_stiff(const char *models_dir, int runs, double duration, double adams_duration);

#endif
