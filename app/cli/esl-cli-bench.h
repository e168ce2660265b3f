/* Benchmarks of eslabon-cli bench that live in their own files. */
#ifndef ESL_CLI_BENCH_H
#define ESL_CLI_BENCH_H

#include "mbs_run.h"

/* One run of a benchmark case (esl-cli-bench.c): wall and process CPU seconds, its summary. */
typedef struct {
    double wall, cpu, thread_cpu; /* cpu: every thread of the process (an idle OpenMP or
                                     OpenBLAS pool spinning counts); thread_cpu: the caller's */
    MbsRunSummary summary;
    int failed;
    char message[512];
} EslBenchRun;

EslBenchRun esl_bench_once(const MbsModel *m, const char *formulation, const MbsSettings *s);
/* The median of v (sorted in place). */
double esl_bench_median(double *v, int n);
/* CPU seconds of the process (every thread). */
double esl_bench_process_cpu(void);
/* CPU seconds of the calling thread. */
double esl_bench_thread_cpu(void);

/* Paper 000 Tables 1-4 for every formulation with a tangent (esl-cli-bench-jacobian.c). */
int esl_bench_jacobian(const char *models_dir, const char *formulation, const char *models,
                       int runs, double duration, double step);
int esl_bench_matrix_r(const char *models_dir, int runs, int evaluations);
/* matrix-r direct and adjoint sensitivities on the five-bar (esl-cli-bench-sensitivity.c);
 * jac: the state derivatives' method (NULL: the default). */
int esl_bench_sensitivity(const char *models_dir, int runs, double duration, const char *jac);
/* Vehicles x formulations x steps 1, 10, 20 ms (esl-cli-bench-vehicles.c); models: comma-
 * separated names (NULL: the bundled vehicles). */
int esl_bench_vehicles(const char *models_dir, const char *models, const char *formulations,
                       int runs, double duration);
/* ssode's cost per right-hand side on the lattices, against matrix-r RK4's (esl-cli-bench-ssode.c);
 * algebra: ssode's algebra setting (NULL: its default); lattices: rows of the Nx15 lattices, e.g.
 * "1,4" (NULL: 1,4,7,10) */
int esl_bench_ssode(const char *models_dir, int runs, int evaluations, const char *algebra,
                    const char *lattices);
/* Our formulations (comma-separated; matrix-r with algebra, NULL: dense) at step against MuJoCo
 * Euler and RK4 at peer_step on the model at model_path (esl-cli-bench-peer.c). */
int esl_bench_peer(const char *model_path, const char *formulations, const char *algebra,
                   int runs, double duration, double step, double peer_step);
/* models: one model name (default stiff-vehicle); jacobian: ssode's method (NULL: default). */
int esl_bench_stiff(const char *models_dir, const char *model, const char *jacobian, int runs,
                    double duration, double adams_duration, double max_step);

#endif
