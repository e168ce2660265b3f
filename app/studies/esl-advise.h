/* The formulation advisor (issue 25): which formulation, settings and step should this model
 * use for a stated accuracy? A study over formulations x steps (x tolerances for the
 * error-controlled ssode):
 *  1. a reference solution, accepted only when two different formulations agree at tight
 *     settings (h = 1e-4 s; ssode at rtol 1e-10) within a tenth of the accuracy;
 *  2. a short-horizon probe (a tenth of the duration) of every candidate that prunes the ones
 *     that fail or are already less accurate than asked;
 *  3. full runs of the fastest few survivors (more, in the probe's order, until one meets the
 *     accuracy);
 *  4. the recommendation: the fastest full run within the accuracy.
 * The error of a run is the largest distance of its points from the reference's over the
 * samples (every 10 ms), divided by the largest displacement of those points in the reference
 * (a relative error: 1e-4 is a tenth of a millimetre for a mechanism moving a metre). With
 * variables of the variable table (esl-variables.h) instead of points, the largest |y - y_ref|
 * over the variables and the samples, divided by the largest |y_ref(t) - y_ref(0)| (the same
 * measure with one component instead of three; angles continuous from the first sample).
 *
 * GLib-level, no GTK.
 */
#ifndef ESL_ADVISE_H
#define ESL_ADVISE_H

#include <glib.h>

#include "esl-variables.h"
#include "mbs_formulation.h"

G_BEGIN_DECLS

/* What the error measures, besides points and variables (`--quantity energy|constraints`):
 *  - ENERGY: the total energy (kinetic + potentials - non-conservative work, the monitors'
 *    "total": its drift is the integration error), max |E - E_ref| over the samples divided
 *    by the largest |T_ref(t) - T_ref(0)| (the kinetic energy the motion exchanges);
 *  - CONSTRAINTS: the position constraint residual ||Phi|| (the monitors' "phi"),
 *    max | ||Phi|| - ||Phi_ref|| | divided by the points' largest displacement in the
 *    reference (a violation relative to the size of the motion). */
typedef enum {
    ESL_ADVISE_MEASURE_POINTS,    /* or the variables, when there are */
    ESL_ADVISE_MEASURE_ENERGY,
    ESL_ADVISE_MEASURE_CONSTRAINTS,
} EslAdviseMeasure;

typedef struct {
    char *formulation;
    MbsSettings settings; /* step (the output grid for ssode), and the formulation's options */
    char *label;          /* "penalty, h = 0.005 s", "ssode, rtol = 1e-06" */
    gboolean probe_failed, ran_full, failed;
    double probe_error, probe_seconds; /* NAN when not run */
    double error, seconds;             /* the full run; NAN when not run */
    char *verdict;        /* "recommended", "failed: ...", "too inaccurate: ...", ... */
} EslAdviseCandidate;

typedef struct {
    double accuracy, duration, probe_duration, sample_interval;
    char *reference[2];       /* the two formulations that agreed; the first is the reference */
    double reference_step;
    double reference_agreement; /* their relative difference */
    double scale;             /* the largest displacement of the points in the reference, m
                                 (of the variables: in their units) */
    gboolean variables;       /* the quantity was variables, not points */
    EslAdviseMeasure measure; /* energy, constraints, or points/variables */
    GPtrArray *candidates;    /* EslAdviseCandidate*, in the order tried */
    int recommended;          /* index into candidates, -1 when none meets the accuracy */
} EslAdvice;

void esl_advice_free(EslAdvice *advice);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(EslAdvice, esl_advice_free)

/* What the error measures: measure ENERGY or CONSTRAINTS (the points: those whose displacement
 * scales the constraints' violation); else nvariables > 0, those variables (instantaneous
 * ones: not point accelerations); else the points (model point indices). */
typedef struct {
    const int *points;
    int npoints;
    const EslVariable *variables;
    int nvariables;
    EslAdviseMeasure measure;
} EslAdviseQuantity;

/* Advise for model m, comparing quantity q. full_runs: how many probe survivors run in full
 * (the fastest). NULL with error when no two formulations agree on a reference. */
EslAdvice *esl_advise(const MbsModel *m, const EslAdviseQuantity *q, double accuracy,
                      double duration, int full_runs, GError **error);

/* The advice as JSON (what `eslabon-cli advise --json` prints; model and quantity say what was
 * advised on): {model, quantity, measure, accuracy, duration, probe_duration, sample_interval,
 * reference {formulation, confirmed_by, step, agreement, scale}, recommended (index or null),
 * candidates [{formulation, label, step, options, probe_error, probe_seconds, error, seconds,
 * verdict}]} (null for a number not measured). */
char *esl_advice_to_json(const EslAdvice *a, const char *model, const char *quantity);
/* Read that text back (the application's work-precision diagram); model and quantity (may be
 * NULL) receive theirs. NULL with error naming what is missing. */
EslAdvice *esl_advice_from_json(const char *text, char **model, char **quantity,
                                GError **error);

G_END_DECLS

#endif
