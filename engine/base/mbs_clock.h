/* Monotonic wall clock for the per-phase timings. */
#ifndef MBS_CLOCK_H
#define MBS_CLOCK_H

double mbs_clock_now(void); /* seconds */

#endif
