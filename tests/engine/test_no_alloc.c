/* A step allocates nothing: malloc, calloc and realloc are wrapped at link time
 * (-Wl,--wrap) and counted while the formulation steps. */
#include <stddef.h>

#include "mbs_run.h"
#include "mbs_tangent.h"
#include "alloc_counter.h"
#include "tap.h"
#include "test_models.h"


/* jacobian: a method for the formulation's jacobian setting, NULL: its default */
static void check_with(const char *formulation, const char *jacobian, const char *name,
                       MbsModel *m, double h, int steps)
{
    MbsSettings s;
    mbs_settings_defaults(&s);
    s.step = h;
    MbsError err;
    if (jacobian && mbs_settings_set_for(&s, formulation, "jacobian", jacobian, &err)) {
        tap_ok(0, "%s on %s: %s", formulation, name, err.message);
        return;
    }
    alloc_count = 0;
    MbsFormulation *f = mbs_formulation_new(formulation, m, &s, &err);
    tap_ok(f != NULL && alloc_count == 0 && !alloc_counting, "%s on %s: initialised", formulation, name);
    if (!f)
        return;
    long before = alloc_count;
    alloc_counting = 1;
    int ok = 1;
    for (int i = 0; i < steps; ++i)
        ok &= mbs_formulation_step(f, &err) == 0;
    alloc_counting = 0;
    tap_ok(ok && alloc_count - before == 0, "%s on %s: %d steps made %ld allocations", formulation,
           name, steps, alloc_count - before);
    /* the run driver (checkpoint before every step, summary, observer) allocates in
     * mbs_run_new only */
    MbsRun *run = mbs_run_new(f, NULL, NULL, &err);
    before = alloc_count;
    alloc_counting = 1;
    MbsRunOutcome out = run ? mbs_run_advance(run, f->time + steps * h) : MBS_RUN_FAILED;
    alloc_counting = 0;
    tap_ok(out == MBS_RUN_REACHED && mbs_run_summary(run)->steps == steps &&
               alloc_count - before == 0,
           "%s on %s: %d driver steps made %ld allocations", formulation, name, steps,
           alloc_count - before);
    mbs_run_free(run);
    mbs_formulation_free(f);
}

static void check(const char *formulation, const char *name, MbsModel *m, double h, int steps)
{
    check_with(formulation, NULL, name, m, h, steps);
}

/* A cut step restores the checkpoint and retries: no allocation either (ali3p passing the flat
 * position of a parallelogram chain, as in test_run). */
static void check_cut_path(void)
{
    MbsModel *m = build_parallelogram_chain(40, 6.0);
    MbsSettings s;
    mbs_settings_defaults(&s);
    s.step = 5e-3;
    MbsError err;
    MbsFormulation *f = mbs_formulation_new("ali3p", m, &s, &err);
    MbsRun *run = f ? mbs_run_new(f, NULL, NULL, &err) : NULL;
    long before = alloc_count;
    alloc_counting = 1;
    MbsRunOutcome out = run ? mbs_run_advance(run, 3.0) : MBS_RUN_FAILED;
    alloc_counting = 0;
    tap_ok(out == MBS_RUN_REACHED && mbs_run_summary(run)->step_cuts > 0 &&
               alloc_count - before == 0,
           "ali3p through a singular position: %ld step cut(s), %ld allocations",
           run ? mbs_run_summary(run)->step_cuts : 0L, alloc_count - before);
    mbs_run_free(run);
    mbs_formulation_free(f);
    mbs_model_free(m);
}

/* matrix-r through the flat position of a parallelogram chain: the damped SVD solves near the
 * rank loss (and the repartitions, dense) allocate nothing either. */
static void check_matrix_r_singular_path(void)
{
    MbsModel *m = build_parallelogram_chain(2, 6.0);
    MbsSettings s;
    mbs_settings_defaults(&s);
    s.step = 5e-4;
    MbsError err;
    MbsFormulation *f = mbs_formulation_new("matrix-r", m, &s, &err);
    MbsRun *run = f ? mbs_run_new(f, NULL, NULL, &err) : NULL;
    long before = alloc_count;
    alloc_counting = 1;
    MbsRunOutcome out = run ? mbs_run_advance(run, 1.2) : MBS_RUN_FAILED;
    alloc_counting = 0;
    double singular = 0.0;
    MbsStatistic stats[32];
    int count = f ? f->klass->statistics(f, stats, 32) : 0;
    for (int i = 0; i < count && i < 32; ++i)
        if (!strcmp(stats[i].name, "singular_evaluations"))
            singular = stats[i].value;
    tap_ok(out == MBS_RUN_REACHED && singular > 0 && alloc_count - before == 0,
           "matrix-r through a singular position: %.0f damped evaluations, %ld allocations",
           singular, alloc_count - before);
    mbs_run_free(run);
    mbs_formulation_free(f);
    mbs_model_free(m);
}

int main(void)
{
    for (int i = 0; i < mbs_formulation_count(); ++i) {
        const char *fname = mbs_formulation_class(i)->name;
        MbsModel *m = build_four_bar();
        check(fname, "four-bar", m, 1e-3, 200);
        mbs_model_free(m);
        m = build_slider_crank(1);
        check(fname, "driven slider-crank", m, 1e-3, 100);
        mbs_model_free(m);
    }
    check_cut_path();
    check_matrix_r_singular_path();
    /* the methods that use a structural pattern (nd-sparse: its colouring made at init) */
    static const char *const with_pattern[] = {"penalty", "ali3p"};
    for (int j = 0; j < MBS_JACOBIAN_COUNT; ++j)
        for (size_t i = 0; mbs_jacobian_method_uses_pattern(j) && i < 2; ++i) {
            char name[96];
            snprintf(name, sizeof name, "slider-crank with springs, %s",
                     mbs_jacobian_method_name(j));
            MbsModel *m = build_slider_crank(0);
            check_with(with_pattern[i], mbs_jacobian_method_name(j), name, m, 1e-3, 100);
            mbs_model_free(m);
        }
    return tap_done();
}
