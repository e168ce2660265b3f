/* A step allocates nothing: malloc, calloc and realloc are wrapped at link time
 * (-Wl,--wrap) and counted while the formulation steps. */
#include <stddef.h>

#include "mbs_formulation.h"
#include "alloc_counter.h"
#include "tap.h"
#include "test_models.h"


static void check(const char *formulation, const char *name, MbsModel *m, double h, int steps)
{
    MbsSettings s;
    mbs_settings_defaults(&s);
    s.step = h;
    MbsError err;
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
    mbs_formulation_free(f);
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
    return tap_done();
}
