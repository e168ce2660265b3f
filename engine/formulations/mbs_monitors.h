/* The monitors: what every formulation reports after every step, as one table. MBS_MONITORS
 * generates the struct (MbsMonitors) and the descriptor table (mbs_monitor_fields) from which
 * the front ends take the CSV history's columns, the project's sample columns, the
 * non-finite check and the plot board's series: a monitor is added here, nowhere else.
 *
 * X(field, type, key, csv, what, plot, label, finite)
 *   field   member of MbsMonitors; type: double or int
 *   key     its name in the CSV history and its column in the project's samples table (stored
 *           files have these columns: renaming one needs a migration)
 *   csv     printf format of its CSV column
 *   what    English, for messages ("the kinetic energy is not finite")
 *   plot    the plot board's plot (MBS_MONITOR_PLOT_*) and label: English, MBS_N_ when an
 *           interface translates it (symbols are not)
 *   finite  1: a non-finite value stops the run before any front end sees it
 * Energies in J, times in s; the timings are the wall time of the last step, by phase. */
#ifndef MBS_MONITORS_H
#define MBS_MONITORS_H

#include <stddef.h>

#include "mbs_settings.h" /* MBS_N_ */

typedef enum {
    MBS_MONITOR_PLOT_NONE,
    MBS_MONITOR_PLOT_ENERGY,
    MBS_MONITOR_PLOT_CONSTRAINTS,
    MBS_MONITOR_PLOT_TIMING, /* shown in ms, from the first step on */
    MBS_MONITOR_PLOT_NEWTON, /* from the first step on */
} MbsMonitorPlot;

#define MBS_MONITORS(X)                                                                            \
    X(time, double, "time", "%.9g", "time", NONE, NULL, 0)                                        \
    X(kinetic, double, "kinetic", "%.12g", "kinetic energy", ENERGY, MBS_N_("kinetic"), 1)         \
    X(potential_gravity, double, "potential_gravity", "%.12g", "gravity potential energy", ENERGY, \
      MBS_N_("gravity potential"), 1)                                                              \
    X(potential_elastic, double, "potential_elastic", "%.12g", "elastic potential energy", ENERGY, \
      MBS_N_("elastic potential"), 1)                                                              \
    /* work done on the system by dampers, drivers, torques */                                     \
    X(work_nonconservative, double, "work_nonconservative", "%.12g", "non-conservative work",     \
      ENERGY, MBS_N_("non-conservative work"), 1)                                                  \
    /* kinetic + potentials - work_nonconservative */                                              \
    X(total, double, "total", "%.12g", "total energy", ENERGY, MBS_N_("total"), 1)                 \
    /* 2-norms of the position, velocity and acceleration constraint residuals */                 \
    X(phi_norm, double, "phi", "%.6e", "position constraint residual", CONSTRAINTS, "‖Φ‖", 1)       \
    X(dphi_norm, double, "dphi", "%.6e", "velocity constraint residual", CONSTRAINTS, "‖dΦ/dt‖", 1) \
    X(ddphi_norm, double, "ddphi", "%.6e", "acceleration constraint residual", CONSTRAINTS,        \
      "‖d²Φ/dt²‖", 1)                                                                              \
    /* in the last step */                                                                         \
    X(newton_iterations, int, "newton_iterations", "%d", "Newton iterations", NEWTON,             \
      MBS_N_("Newton iterations"), 0)                                                              \
    X(jacobian_evaluations, int, "jacobian_evaluations", "%d", "Jacobian evaluations", NEWTON,    \
      MBS_N_("Jacobian evaluations"), 0)                                                           \
    X(time_dynamics, double, "time_dynamics", "%.3e", "dynamics time", TIMING,                    \
      MBS_N_("dynamics"), 0)                                                                       \
    X(time_jacobian, double, "time_jacobian", "%.3e", "Jacobian time", TIMING,                    \
      MBS_N_("Jacobian"), 0)                                                                       \
    X(time_factorization, double, "time_factorization", "%.3e", "factorization time", TIMING,     \
      MBS_N_("factorization"), 0)                                                                  \
    X(time_projection, double, "time_projection", "%.3e", "projection time", TIMING,              \
      MBS_N_("projection"), 0)                                                                     \
    X(time_step, double, "time_step", "%.3e", "step time", TIMING, MBS_N_("whole step"), 0)

#define MBS_MONITOR_MEMBER_(field, type, ...) type field;
typedef struct {
    MBS_MONITORS(MBS_MONITOR_MEMBER_)
} MbsMonitors;

typedef enum { MBS_MONITOR_DOUBLE, MBS_MONITOR_INT } MbsMonitorType;

typedef struct {
    const char *field; /* the member's name */
    const char *key, *csv, *what;
    MbsMonitorType type;
    size_t offset;
    MbsMonitorPlot plot;
    const char *label;
    int finite;
} MbsMonitorField;

extern const MbsMonitorField mbs_monitor_fields[];
extern const int mbs_monitor_count;

/* Monitor i of m as a double (ints converted), and set from one (ints rounded). */
double mbs_monitor_get(const MbsMonitors *m, int i);
void mbs_monitor_set(MbsMonitors *m, int i, double value);
/* The index of a key, or -1. */
int mbs_monitor_find(const char *key);
/* The `what` of the first monitor marked finite that is not, or NULL. */
const char *mbs_monitors_non_finite(const MbsMonitors *m);

#endif
