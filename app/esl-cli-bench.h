/* Benchmarks of eslabon-cli bench that live in their own files. */
#ifndef ESL_CLI_BENCH_H
#define ESL_CLI_BENCH_H

int esl_bench_matrix_r(const char *models_dir, int runs, int evaluations);
int esl_bench_stiff(const char *models_dir, int runs, double duration, double adams_duration);

#endif
