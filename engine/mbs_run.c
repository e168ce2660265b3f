#include "mbs_run.h"

#include <math.h>
#include <string.h>

void mbs_run_summary_init(MbsRunSummary *s, const MbsFormulation *f)
{
    memset(s, 0, sizeof *s);
    const MbsMonitors *mo = &f->monitors;
    s->energy0 = mo->total;
    s->kinetic_energy_max = mo->kinetic;
    s->constraint_position_max = mo->phi_norm;
    s->constraint_velocity_max = mo->dphi_norm;
    s->constraint_acceleration_max = mo->ddphi_norm;
}

void mbs_run_summary_add(MbsRunSummary *s, const MbsFormulation *f)
{
    const MbsMonitors *mo = &f->monitors;
    s->steps++;
    s->energy_drift_max = fmax(s->energy_drift_max, fabs(mo->total - s->energy0));
    s->kinetic_energy_max = fmax(s->kinetic_energy_max, mo->kinetic);
    s->constraint_position_max = fmax(s->constraint_position_max, mo->phi_norm);
    s->constraint_velocity_max = fmax(s->constraint_velocity_max, mo->dphi_norm);
    s->constraint_acceleration_max = fmax(s->constraint_acceleration_max, mo->ddphi_norm);
    s->newton_iterations += mo->newton_iterations;
    s->jacobian_evaluations += mo->jacobian_evaluations;
    s->time_dynamics += mo->time_dynamics;
    s->time_jacobian += mo->time_jacobian;
    s->time_factorization += mo->time_factorization;
    s->time_projection += mo->time_projection;
    s->time_steps += mo->time_step;
}

long mbs_run_step_count(double duration, double h)
{
    return (long)floor(duration / h + 1e-9);
}
