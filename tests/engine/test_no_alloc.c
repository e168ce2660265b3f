/* A step allocates nothing: malloc, calloc and realloc are wrapped at link time
 * (-Wl,--wrap) and counted while the formulation steps. */
#include <stddef.h>

#include "mbs_formulation.h"
#include "tap.h"
#include "test_models.h"

static long allocations;
static int counting;

void *__real_malloc(size_t size);
void *__real_calloc(size_t n, size_t size);
void *__real_realloc(void *p, size_t size);

void *__wrap_malloc(size_t size)
{
    allocations += counting;
    return __real_malloc(size);
}

void *__wrap_calloc(size_t n, size_t size)
{
    allocations += counting;
    return __real_calloc(n, size);
}

void *__wrap_realloc(void *p, size_t size)
{
    allocations += counting;
    return __real_realloc(p, size);
}

static void check(const char *formulation, const char *name, MbsModel *m, double h, int steps)
{
    MbsSettings s;
    mbs_settings_defaults(&s);
    s.step = h;
    MbsError err;
    allocations = 0;
    MbsFormulation *f = mbs_formulation_new(formulation, m, &s, &err);
    tap_ok(f != NULL && allocations == 0 && !counting, "%s on %s: initialised", formulation, name);
    if (!f)
        return;
    long before = allocations;
    counting = 1;
    int ok = 1;
    for (int i = 0; i < steps; ++i)
        ok &= mbs_formulation_step(f, &err) == 0;
    counting = 0;
    tap_ok(ok && allocations - before == 0, "%s on %s: %d steps made %ld allocations", formulation,
           name, steps, allocations - before);
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
