#include "mbs_formulation.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "mbs_linalg.h"
#include "mbs_tangent_probe.h"

/* The registry: one line per formulation. */
extern const MbsFormulationClass mbs_penalty_class;
extern const MbsFormulationClass mbs_ali3p_class;
extern const MbsFormulationClass mbs_matrix_r_class;
extern const MbsFormulationClass mbs_ssode_class;

static const MbsFormulationClass *const registry[] = {
    &mbs_penalty_class,
    &mbs_ali3p_class,
    &mbs_matrix_r_class,
    &mbs_ssode_class,
};

static const MbsSetting newton_items[] = {
    {.name = "newton-tolerance", .type = MBS_SETTING_NUMBER,
     .offset = offsetof(MbsNewtonOptions, tolerance), .default_value = 1e-10, .min = 0.0,
     .max = 1.0, .flags = MBS_SETTING_ABOVE_MIN | MBS_SETTING_DECADES,
     .label = MBS_N_("Newton tolerance"),
     .description = MBS_N_("On the max-norm of the Newton correction")},
    {.name = "newton-iterations", .type = MBS_SETTING_INTEGER,
     .offset = offsetof(MbsNewtonOptions, max_iterations), .default_value = 20, .min = 1,
     .max = 1000, .label = MBS_N_("Newton iterations"),
     .description = MBS_N_("Most Newton–Raphson iterations per step")},
};

const MbsSettingTable mbs_newton_settings = {
    .name = "newton", .items = newton_items, .count = 2, .size = sizeof(MbsNewtonOptions)};

/* Ratio of the penalty term to the mass in an augmented Lagrangian tangent: ali3p's rule of
 * thumb (docs/formulations/ali3p.md, "alpha and convergence"). */
#define AUGMENTED_RATIO 1e3

/* The step at and above which newton-tolerance applies unscaled. */
#define NEWTON_REFERENCE_STEP 1e-3

double mbs_newton_step_factor(double h)
{
    return h < NEWTON_REFERENCE_STEP ? h / NEWTON_REFERENCE_STEP : 1.0;
}

int mbs_newton_converged(const MbsNewtonOptions *o, double h, double size, double corr,
                         double previous, double *bound)
{
    double unscaled = o->tolerance * size;
    *bound = unscaled * mbs_newton_step_factor(h);
    return corr <= *bound || (corr <= unscaled && corr > 0.5 * previous);
}

double mbs_augmented_alpha(double alpha, double mass, double gram, double weight)
{
    if (!(gram > 0.0) || !(weight > 0.0))
        return alpha;
    return fmax(alpha, AUGMENTED_RATIO * mass / (weight * gram));
}

#define TANGENT_REUSE_ITEM                                                                       \
    {.name = "jacobian-reuse", .type = MBS_SETTING_INTEGER,                                      \
     .offset = offsetof(MbsTangentOptions, reuse), .default_value = 3, .min = 1, .max = 1000,    \
     .label = MBS_N_("Jacobian reuse"),                                                          \
     .description = MBS_N_("Newton iterations that reuse one tangent matrix")}
#define TANGENT_METHOD_ITEM(default_method)                                                      \
    {.name = "jacobian", .type = MBS_SETTING_CHOICE, .offset = offsetof(MbsTangentOptions, method), \
     .default_value = (default_method), .choices = mbs_jacobian_method_names,                    \
     .choice_labels = mbs_jacobian_method_labels, .label = MBS_N_("Jacobian"),                   \
     .description = MBS_N_("How the tangent matrix is computed: forward or central "             \
                           "differences, forward ones compressed by a column colouring, "        \
                           "automatic differentiation, dense (penalty, ali3p, matrix-r, ssode) or "     \
                           "compressed (penalty, ali3p), or analytical derivatives")}

/* All cores (capped by the formulation for small models): 1.9-2x on the lattices with 2 idle
 * cores; slower when the cores are busy with other work (docs/benchmarks.md). */
#define TANGENT_THREADS_ITEM                                                                     \
    {.name = "threads", .type = MBS_SETTING_INTEGER,                                             \
     .offset = offsetof(MbsTangentOptions, threads), .default_value = 0, .min = 0, .max = 1024,  \
     .flags = MBS_SETTING_AUTO_ZERO, .label = MBS_N_("Jacobian threads"),                        \
     .description = MBS_N_("Threads computing the columns of the Jacobian; 0: automatic")}

const char *const mbs_algebra_choices[] = {"automatic", "dense", "sparse", NULL};
const char *const mbs_algebra_labels[] = {MBS_N_("automatic"), MBS_N_("dense (LAPACK)"),
                                          MBS_N_("sparse (KLU)"), NULL};

/* penalty and ali3p: columns in parallel, analytical derivatives by default (the fastest: one J
 * costs about 10 evaluations of Q on penalty's lattices against 2n for nd-central; ali3p 17-27
 * residuals against 88-927, whole runs 1.6-1.9x less CPU; docs/benchmarks.md). */
static const MbsSetting tangent_analytical_items[] = {
    TANGENT_REUSE_ITEM,
    TANGENT_METHOD_ITEM(MBS_JACOBIAN_ANALYTICAL),
    TANGENT_THREADS_ITEM,
};

const MbsSettingTable mbs_tangent_analytical_settings = {
    .name = "tangent", .items = tangent_analytical_items, .count = 3,
    .size = sizeof(MbsTangentOptions)};

/* matrix-r's trapezoidal tangent: serial, and analytical by default — exact and the fastest
 * on every bundled model (1.2x less CPU than forward differences on the spatial four-bar,
 * 2.4-3.4x on the lattices, the same Newton iterations; docs/benchmarks.md). */
static const MbsSetting tangent_serial_items[] = {
    TANGENT_REUSE_ITEM,
    TANGENT_METHOD_ITEM(MBS_JACOBIAN_ANALYTICAL),
};
const MbsSettingTable mbs_tangent_serial_settings = {
    .name = "tangent", .items = tangent_serial_items, .count = 2,
    .size = sizeof(MbsTangentOptions)};

/* ssode's J1, J2 (its integrators decide when to recompute them): the method alone,
 * analytical by default (docs/formulations/ssode.md). */
static const MbsSetting tangent_method_items[] = {
    TANGENT_METHOD_ITEM(MBS_JACOBIAN_ANALYTICAL),
};
const MbsSettingTable mbs_tangent_method_settings = {
    .name = "tangent", .items = tangent_method_items, .count = 1,
    .size = sizeof(MbsTangentOptions)};

int mbs_formulation_count(void)
{
    return (int)(sizeof registry / sizeof registry[0]);
}

const MbsFormulationClass *mbs_formulation_class(int i)
{
    return i >= 0 && i < mbs_formulation_count() ? registry[i] : NULL;
}

const MbsFormulationClass *mbs_formulation_find(const char *name)
{
    for (int i = 0; name && i < mbs_formulation_count(); ++i)
        if (!strcmp(registry[i]->name, name))
            return registry[i];
    return NULL;
}

void mbs_settings_for(MbsSettings *s, const MbsFormulationClass *k)
{
    mbs_settings_use_options(s, k->settings);
}

int mbs_settings_set_for(MbsSettings *s, const char *formulation, const char *name,
                         const char *text, MbsError *err)
{
    const MbsFormulationClass *k = mbs_formulation_find(formulation);
    if (!k)
        return mbs_error_set(err, MBS_FATAL, "unknown formulation '%s'",
                             formulation ? formulation : "(null)");
    return mbs_settings_set(s, k->settings, name, text, err);
}

int mbs_settings_set_number_for(MbsSettings *s, const char *formulation, const char *name,
                                double value, MbsError *err)
{
    const MbsFormulationClass *k = mbs_formulation_find(formulation);
    MbsSettingRef r;
    if (!k || (mbs_settings_for(s, k), mbs_settings_find(k->settings, name, &r)))
        return mbs_error_set(err, MBS_FATAL, "no setting '%s' for formulation '%s'",
                             name ? name : "(null)", formulation ? formulation : "(null)");
    return mbs_setting_set_number(s, &r, value, err);
}

void *mbs_settings_value_for(MbsSettings *s, const char *formulation, const char *name)
{
    const MbsFormulationClass *k = mbs_formulation_find(formulation);
    MbsSettingRef r;
    if (!k || (mbs_settings_for(s, k), mbs_settings_find(k->settings, name, &r)))
        return NULL;
    return mbs_setting_value(s, &r);
}

int mbs_formulation_offers_jacobian(const MbsFormulationClass *k, MbsJacobianMethod method)
{
    if (method == MBS_JACOBIAN_ANALYTICAL)
        return k->tangent_offers_analytical;
    if (k->tangent_dense_only && mbs_jacobian_method_uses_pattern(method))
        return 0;
    return !mbs_jacobian_method_needs_dual(method) || k->tangent_offers_dual;
}

int mbs_formulation_offers_choice(const MbsFormulationClass *k, const MbsSetting *d, int choice)
{
    if (k && d->choices == mbs_jacobian_method_names)
        return mbs_formulation_offers_jacobian(k, (MbsJacobianMethod)choice);
    return 1;
}

int mbs_formulation_check_settings(const MbsFormulationClass *k, const MbsModel *m,
                                   const MbsSettings *s, MbsError *err)
{
    MbsSettings own = *s;
    mbs_settings_for(&own, k);
    if (mbs_settings_validate(&own, err))
        return MBS_FATAL;
    MbsSettingRef jacobian;
    /* refused even where the setting does not apply (matrix-r's rk4 still makes its tangent) */
    if (!mbs_settings_find(k->settings, "jacobian", &jacobian)) {
        MbsJacobianMethod method = (MbsJacobianMethod)mbs_setting_get_number(&own, &jacobian);
        if (!mbs_formulation_offers_jacobian(k, method)) {
            char offering[128] = "";
            MbsSettingRef other;
            for (int i = 0; i < mbs_formulation_count(); ++i)
                if (!mbs_settings_find(registry[i]->settings, "jacobian", &other) &&
                    mbs_formulation_offers_jacobian(registry[i], method)) {
                    if (offering[0])
                        strncat(offering, ", ", sizeof offering - strlen(offering) - 1);
                    strncat(offering, registry[i]->name, sizeof offering - strlen(offering) - 1);
                }
            char own[128] = "";
            for (int i = 0; i < MBS_JACOBIAN_COUNT; ++i)
                if (mbs_formulation_offers_jacobian(k, (MbsJacobianMethod)i)) {
                    if (own[0])
                        strncat(own, ", ", sizeof own - strlen(own) - 1);
                    strncat(own, mbs_jacobian_method_name((MbsJacobianMethod)i),
                            sizeof own - strlen(own) - 1);
                }
            return mbs_error_set(err, MBS_FATAL,
                                 "%s does not offer the Jacobian method '%s' (offered by %s); "
                                 "choose one of %s",
                                 k->name, mbs_jacobian_method_name(method), offering, own);
        }
    }
    return k->check_settings ? k->check_settings(m, &own, err) : 0;
}


MbsFormulation *mbs_formulation_new(const char *name, const MbsModel *m, const MbsSettings *s,
                                    MbsError *err)
{
    const MbsFormulationClass *klass = mbs_formulation_find(name);
    if (!klass) {
        mbs_error_set(err, MBS_FATAL, "unknown formulation '%s'", name ? name : "(null)");
        return NULL;
    }
    if (!m->topo) {
        mbs_error_set(err, MBS_FATAL, "model '%s' is not compiled", m->name);
        return NULL;
    }
    if (mbs_formulation_check_settings(klass, m, s, err))
        return NULL;
    mbs_linalg_single_threaded();
    MbsFormulation *f = calloc(1, sizeof *f);
    if (!f) {
        mbs_error_set(err, MBS_FATAL, "out of memory");
        return NULL;
    }
    f->klass = klass;
    f->model = m;
    f->settings = *s;
    mbs_settings_for(&f->settings, klass);
    if (klass->init(f, err) != 0) {
        mbs_formulation_free(f);
        return NULL;
    }
    f->energy0 = f->monitors.total;
    f->monitors.time = f->time;
    const char *bad = mbs_monitors_non_finite(&f->monitors);
    if (bad) {
        mbs_error_set(err, MBS_FATAL,
                      "%s: the initial state is not finite (%s): the model's values (masses, "
                      "lengths, gravity) are too large for double precision",
                      klass->name, bad);
        mbs_formulation_free(f);
        return NULL;
    }
    return f;
}

int mbs_formulation_step(MbsFormulation *f, MbsError *err)
{
    return mbs_formulation_step_by(f, f->settings.step, err);
}

int mbs_formulation_step_by(MbsFormulation *f, double h, MbsError *err)
{
    int status = f->klass->step(f, h, err);
    f->clock = f->time; /* a failed step's restored state is at time */
    f->monitors.time = f->time;
    if (status == 0) {
        f->steps++;
        /* every front end stores and prints the monitors: NaN stops the run before they do */
        const char *bad = mbs_monitors_non_finite(&f->monitors);
        if (bad)
            return mbs_error_set(err, MBS_FATAL,
                                 "%s: the solution became non-finite at t = %g s (%s)",
                                 f->klass->name, f->time, bad);
    }
    return status;
}

void mbs_formulation_free(MbsFormulation *f)
{
    if (!f)
        return;
    if (f->klass && f->klass->finalize)
        f->klass->finalize(f);
    free(f);
}

void mbs_formulation_body_pose(const MbsFormulation *f, int body, double R[9], double p[3])
{
    if (body == f->model->ground || body < 0 || body >= f->model->nbodies) {
        mbs_m3_identity(R);
        p[0] = p[1] = p[2] = 0.0;
        return;
    }
    f->klass->body_pose(f, body, R, p);
}

void mbs_formulation_accelerations(const MbsFormulation *f, double *qdd)
{
    if (f->klass->accelerations) {
        f->klass->accelerations(f, qdd);
        return;
    }
    for (int i = 0, n = f->klass->ncoords(f); i < n; ++i)
        qdd[i] = NAN;
}

int mbs_formulation_tangent_probe(MbsFormulation *f, MbsTangentProbe *probe, MbsError *err)
{
    if (!f->klass->tangent_probe)
        return mbs_error_set(err, MBS_FATAL, "formulation '%s' computes no tangent",
                             f->klass->name);
    return f->klass->tangent_probe(f, probe, err);
}

void mbs_formulation_point_position(const MbsFormulation *f, int point, double out[3])
{
    const MbsPoint *pt = &f->model->points[point];
    double R[9], p[3];
    mbs_formulation_body_pose(f, pt->body, R, p);
    mbs_m3_mulv(R, pt->pos, out);
    mbs_v3_add(out, p, out);
}

void mbs_formulation_point_velocity(const MbsFormulation *f, int point, double out[3])
{
    const MbsPoint *pt = &f->model->points[point];
    double r[3];
    mbs_formulation_point_position(f, point, r);
    if (pt->body == f->model->ground) {
        out[0] = out[1] = out[2] = 0.0;
        return;
    }
    f->klass->point_velocity(f, pt->body, r, out);
}

int mbs_checkpoint_init(MbsCheckpoint *c, const MbsFormulation *f, MbsError *err)
{
    memset(c, 0, sizeof *c);
    c->klass = f->klass;
    c->size = f->klass->state_size(f);
    c->state = calloc((size_t)c->size + 1, sizeof(double));
    if (!c->state)
        return mbs_error_set(err, MBS_FATAL, "out of memory for a checkpoint of %d values",
                             c->size);
    return 0;
}

void mbs_checkpoint_free(MbsCheckpoint *c)
{
    free(c->state);
    c->state = NULL;
    c->size = 0;
}

void mbs_formulation_save(const MbsFormulation *f, MbsCheckpoint *c)
{
    c->time = f->time;
    c->steps = f->steps;
    c->monitors = f->monitors;
    f->klass->state_get(f, c->state);
}

int mbs_formulation_restore(MbsFormulation *f, const MbsCheckpoint *c, MbsError *err)
{
    if (c->klass != f->klass || c->size != f->klass->state_size(f))
        return mbs_error_set(err, MBS_FATAL, "%s: a checkpoint of %s with %d values does not fit "
                             "a state of %d", f->klass->name, c->klass ? c->klass->name : "?",
                             c->size, f->klass->state_size(f));
    f->time = f->clock = c->time;
    f->steps = c->steps;
    int status = f->klass->state_set(f, c->state, err);
    f->monitors = c->monitors;
    return status;
}

int mbs_formulation_statistics(const MbsFormulation *f, MbsStatistic *out, int capacity)
{
    return f->klass->statistics(f, out, capacity);
}

double mbs_formulation_statistic(const MbsFormulation *f, const char *name, double fallback)
{
    MbsStatistic stats[64];
    int n = f->klass->statistics(f, stats, 64);
    for (int i = 0; i < n && i < 64; ++i)
        if (!strcmp(stats[i].name, name))
            return stats[i].value;
    return fallback;
}

void mbs_formulation_reset_statistics(MbsFormulation *f)
{
    f->klass->reset_statistics(f);
}
