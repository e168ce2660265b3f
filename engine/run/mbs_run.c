#include "mbs_run.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The energy in play at a step: what moves or is stored, not the gravity potential's arbitrary
 * level. */
static double energy_in_play(const MbsRunSummary *s, const MbsMonitors *mo)
{
    return mo->kinetic + fabs(mo->potential_gravity - s->gravity0) +
           fabs(mo->potential_elastic) + fabs(mo->work_nonconservative);
}

void mbs_run_summary_init(MbsRunSummary *s, const MbsFormulation *f)
{
    memset(s, 0, sizeof *s);
    const MbsMonitors *mo = &f->monitors;
    s->energy0 = mo->total;
    s->kinetic_energy_max = mo->kinetic;
    s->constraint_position_max = mo->phi_norm;
    s->constraint_velocity_max = mo->dphi_norm;
    s->constraint_acceleration_max = mo->ddphi_norm;
    s->step_min = f->settings.step;
    s->gravity0 = mo->potential_gravity;
    s->energy_warning_time = -1.0;
    s->energy_scale = energy_in_play(s, mo);
}


void mbs_run_summary_add(MbsRunSummary *s, const MbsFormulation *f, double h)
{
    const MbsMonitors *mo = &f->monitors;
    s->steps++;
    double drift = fabs(mo->total - s->energy0);
    s->energy_drift_max = fmax(s->energy_drift_max, drift);
    s->energy_scale = fmax(s->energy_scale, energy_in_play(s, mo));
    /* above the round-off of the energies summed (a system at rest has no scale) */
    double bound = MBS_RUN_ENERGY_WARNING * s->energy_scale +
                   1e-10 * (fabs(s->energy0) + fabs(s->gravity0));
    if (s->energy_warning_time < 0.0 && !(drift <= bound))
        s->energy_warning_time = f->time;
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
    s->step_min = fmin(s->step_min, h);
}

int mbs_run_summary_warning(const MbsRunSummary *s, char *buf, size_t size)
{
    if (s->energy_warning_time < 0.0)
        return 0;
    snprintf(buf, size,
             "energy error: max |E - E(0)| = %.3g J is %.3g %% of the system's energy (%.3g J; "
             "above %g %% from t = %.6g s): the results are not to be trusted, try a smaller step",
             s->energy_drift_max, 100.0 * s->energy_drift_max / s->energy_scale, s->energy_scale,
             100.0 * MBS_RUN_ENERGY_WARNING, s->energy_warning_time);
    return 1;
}

long mbs_run_step_count(double duration, double h)
{
    double n = floor(duration / h + 1e-9);
    /* mbs_formulation_new refuses such settings; this keeps the conversion defined anyway */
    if (!(n >= 0.0))
        return 0;
    return n < 1e15 ? (long)n : (long)1e15;
}

struct MbsRun {
    MbsFormulation *f;
    MbsRunOptions options;
    MbsRunObserver observer;
    MbsRunSummary summary;
    MbsCheckpoint start;  /* state at the start of the step being tried */
    double h;             /* the grid step */
    int level;            /* current step: h / 2^level */
    long grid;            /* grid steps done */
    int started;          /* the sample at t = 0 was taken */
    MbsRunOutcome outcome;
    int finished;         /* failed or stopped: no further steps */
    MbsError error;
};

void mbs_run_options_defaults(MbsRunOptions *o)
{
    o->max_halvings = MBS_RUN_MAX_HALVINGS;
}

MbsRun *mbs_run_new(MbsFormulation *f, const MbsRunOptions *options,
                    const MbsRunObserver *observer, MbsError *err)
{
    MbsRun *run = calloc(1, sizeof *run);
    if (!run) {
        mbs_error_set(err, MBS_FATAL, "out of memory");
        return NULL;
    }
    if (mbs_checkpoint_init(&run->start, f, err)) {
        free(run);
        return NULL;
    }
    run->f = f;
    if (options)
        run->options = *options;
    else
        mbs_run_options_defaults(&run->options);
    /* h / 2^30 is far below any useful step; positions inside an interval stay in a long */
    if (run->options.max_halvings < 0)
        run->options.max_halvings = 0;
    if (run->options.max_halvings > 30)
        run->options.max_halvings = 30;
    if (observer)
        run->observer = *observer;
    if (run->observer.every < 1)
        run->observer.every = 1;
    if (run->observer.internal_step) {
        f->internal_step = run->observer.internal_step;
        f->internal_step_data = run->observer.data;
    }
    run->h = f->settings.step;
    run->grid = mbs_run_step_count(f->time + 0.5 * run->h, run->h);
    mbs_run_summary_init(&run->summary, f);
    return run;
}

void mbs_run_free(MbsRun *run)
{
    if (!run)
        return;
    if (run->observer.internal_step)
        run->f->internal_step = NULL;
    mbs_checkpoint_free(&run->start);
    free(run);
}

static void append_message(MbsError *err, const char *fmt, double value)
{
    size_t len = strlen(err->message);
    if (len + 1 < sizeof err->message)
        snprintf(err->message + len, sizeof err->message - len, fmt, value);
}

/* One grid interval [t, t + h], in substeps of h / 2^level when the step has been cut. The
 * position inside the interval counts units of h / 2^max_halvings, so substeps land exactly. */
static int grid_step(MbsRun *run)
{
    MbsFormulation *f = run->f;
    const int max_halvings = run->options.max_halvings;
    const long units_total = 1L << max_halvings;
    const double t0 = f->time;
    long pos = 0;
    int substeps = 0;
    while (pos < units_total) {
        const int level = run->level;
        const double step = ldexp(run->h, -level);
        const long units = units_total >> level;
        mbs_formulation_save(f, &run->start);
        int status = mbs_formulation_step_by(f, step, &run->error);
        if (status == 0) {
            mbs_run_summary_add(&run->summary, f, step);
            pos += units;
            substeps |= level > 0;
            if (level > 0 && pos % (2 * units) == 0)
                run->level--; /* grow back */
            continue;
        }
        run->summary.steps_rejected++;
        MbsError restore_error = {0};
        int restored = mbs_formulation_restore(f, &run->start, &restore_error);
        if (restored != 0) {
            run->error = restore_error;
            return MBS_FATAL;
        }
        if (status < 0 || level >= max_halvings) {
            if (status > 0 && level > 0)
                append_message(&run->error, " (also with the step cut to %g s)", step);
            return status;
        }
        run->level++;
        run->summary.step_cuts++;
        if (run->observer.cut) {
            MbsRunCut cut = {f->time, step, 0.5 * step, run->error.message};
            run->observer.cut(run->observer.data, run, &cut);
        }
    }
    /* substeps summing to h may differ from t0 + h in the last bit: land on the grid */
    if (substeps) {
        f->time = t0 + run->h;
        f->monitors.time = f->time;
    }
    return 0;
}

static int observe(MbsRun *run)
{
    if (run->observer.sample && run->observer.sample(run->observer.data, run)) {
        run->outcome = MBS_RUN_STOPPED;
        run->finished = 1;
        return 1;
    }
    return 0;
}

MbsRunOutcome mbs_run_advance(MbsRun *run, double t_end)
{
    if (run->finished)
        return run->outcome;
    if (!run->started) {
        run->started = 1;
        if (observe(run))
            return run->outcome;
    }
    long target = mbs_run_step_count(t_end, run->h);
    while (run->grid < target) {
        if (grid_step(run) != 0) {
            run->outcome = MBS_RUN_FAILED;
            run->finished = 1;
            return run->outcome;
        }
        run->grid++;
        if ((run->grid % run->observer.every == 0 || run->grid == target) && observe(run))
            return run->outcome;
    }
    run->outcome = MBS_RUN_REACHED;
    return run->outcome;
}

MbsFormulation *mbs_run_formulation(const MbsRun *run)
{
    return run->f;
}

const MbsRunSummary *mbs_run_summary(const MbsRun *run)
{
    return &run->summary;
}

long mbs_run_grid_steps(const MbsRun *run)
{
    return run->grid;
}

double mbs_run_current_step(const MbsRun *run)
{
    return ldexp(run->h, -run->level);
}

const MbsError *mbs_run_error(const MbsRun *run)
{
    return &run->error;
}
