/* matrix-r steps allocate nothing on every path: RK4 and trapezoidal, dense and sparse (KLU
 * refactorizes in place), and a repartition in the dense path. The counter sees the whole
 * process (alloc_counter.h), KLU and OpenBLAS included; a first check shows that it sees an
 * allocation inside KLU. (A repartition in the sparse path re-analyses the pattern with KLU,
 * which allocates; it is rare and not covered here.) */
#include <stddef.h>

#include <klu.h>

#include "form_matrix_r.h"
#include "mbs_formulation.h"
#include "alloc_counter.h"
#include "tap.h"
#include "test_models.h"


static void check(const char *name, MbsModel *m, double h, int steps, int integrator, int sparse,
                  long min_partitions)
{
    MbsSettings s;
    mbs_settings_defaults(&s);
    s.step = h;
    mbs_settings_set_number_for(&s, "matrix-r", "integrator", integrator, NULL);
    mbs_settings_set_number_for(&s, "matrix-r", "algebra", sparse, NULL);
    MbsError err;
    MbsFormulation *f = mbs_formulation_new("matrix-r", m, &s, &err);
    if (!tap_ok(f != NULL, "%s: initialised", name))
        return;
    alloc_count = 0;
    alloc_counting = 1;
    int ok = 1;
    for (int i = 0; i < steps; ++i)
        ok &= mbs_formulation_step(f, &err) == 0;
    alloc_counting = 0;
    MbsMatrixRStats st;
    mbs_matrix_r_stats(f, &st);
    tap_ok(ok && alloc_count == 0 && st.partitions >= min_partitions,
           "%s (%s, %s): %d steps, %ld partition(s), %ld allocations", name,
           integrator ? "trapezoidal" : "RK4", sparse ? "sparse" : "dense", steps, st.partitions,
           alloc_count);
    mbs_formulation_free(f);
}

/* the counter is not blind to KLU: klu_analyze of a 2x2 pattern allocates its symbolic object */
static void check_counter_sees_klu(void)
{
    int Ap[] = {0, 2, 4}, Ai[] = {0, 1, 0, 1};
    klu_common common;
    klu_defaults(&common);
    alloc_count = 0;
    alloc_counting = 1;
    klu_symbolic *sym = klu_analyze(2, Ap, Ai, &common);
    alloc_counting = 0;
    tap_ok(sym != NULL && alloc_count > 0, "the counter sees klu_analyze's allocations (%ld)",
           alloc_count);
    klu_free_symbolic(&sym, &common);
}

int main(void)
{
    check_counter_sees_klu();
    MbsModel *m = build_four_bar();
    for (int integ = 0; integ < 2; ++integ)
        for (int sp = 0; sp < 2; ++sp)
            check("four-bar", m, 1e-3, 200, integ, sp, 1);
    mbs_model_free(m);
    m = build_slider_crank(1);
    for (int integ = 0; integ < 2; ++integ)
        check("driven slider-crank", m, 1e-3, 100, integ, 1, 1);
    mbs_model_free(m);
    m = build_lattice(4, 15);
    check("4x15 lattice", m, 1e-2, 20, 0, 1, 1);
    mbs_model_free(m);
    m = build_lattice(1, 15);
    check("1x15 lattice through a repartition", m, 1e-2, 200, 0, 0, 2);
    mbs_model_free(m);
    /* natural coordinates as degrees of freedom: the tip of the double pendulum, through the
     * straight-arm singularity (the partition falls back to the joint angles) */
    m = build_double_pendulum(M_PI / 2, 0.3, 1);
    int tip = mbs_model_find_point(m, mbs_model_find_body(m, "bar2"), "bar2.2");
    for (int integ = 0; integ < 2; ++integ) {
        MbsSettings s;
        mbs_settings_defaults(&s);
        s.step = 1e-3;
        mbs_settings_set_number_for(&s, "matrix-r", "integrator", integ, NULL);
        MbsDofList *dofs = mbs_settings_value_for(&s, "matrix-r", "dof");
        dofs->count = 2;
        dofs->items[0] = (MbsDofChoice){-1, 0, tip, 1};
        dofs->items[1] = (MbsDofChoice){-1, 0, tip, 2};
        MbsError err;
        MbsFormulation *f = mbs_formulation_new("matrix-r", m, &s, &err);
        if (!tap_ok(f != NULL, "double pendulum with tip DOFs: initialised"))
            continue;
        alloc_count = 0;
        alloc_counting = 1;
        int ok = 1;
        for (int i = 0; i < 500; ++i)
            ok &= mbs_formulation_step(f, &err) == 0;
        alloc_counting = 0;
        MbsMatrixRStats st;
        mbs_matrix_r_stats(f, &st);
        tap_ok(ok && alloc_count == 0 && st.partitions == 2,
               "double pendulum with tip DOFs (%s): 500 steps, %ld partitions, %ld allocations",
               integ ? "trapezoidal" : "RK4", st.partitions, alloc_count);
        mbs_formulation_free(f);
    }
    mbs_model_free(m);
    return tap_done();
}
