/* Summary of a run, accumulated step by step from the monitors (used by the command line,
 * the run controller and the benchmarks, so every front end reports the same figures). */
#ifndef MBS_RUN_H
#define MBS_RUN_H

#include "mbs_formulation.h"

typedef struct {
    long steps;
    double energy0;              /* total energy at t = 0, J */
    double energy_drift_max;     /* max |E(t) - E(0)|, J */
    double kinetic_energy_max;   /* J */
    double constraint_position_max, constraint_velocity_max, constraint_acceleration_max;
    long newton_iterations, jacobian_evaluations;
    double time_dynamics, time_jacobian, time_factorization, time_projection, time_steps;
} MbsRunSummary;

void mbs_run_summary_init(MbsRunSummary *s, const MbsFormulation *f);
void mbs_run_summary_add(MbsRunSummary *s, const MbsFormulation *f);
/* Number of steps of size h that cover duration (round-off tolerant). */
long mbs_run_step_count(double duration, double h);

#endif
