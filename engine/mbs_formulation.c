#include "mbs_formulation.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mbs_linalg.h"

/* The registry: one line per formulation. */
extern const MbsFormulationClass mbs_penalty_class;
extern const MbsFormulationClass mbs_ali3p_class;
extern const MbsFormulationClass mbs_matrix_r_class;

static const MbsFormulationClass *const registry[] = {
    &mbs_penalty_class,
    &mbs_ali3p_class,
    &mbs_matrix_r_class,
};

static const char *const jacobian_names[MBS_JACOBIAN_COUNT] = {"nd-forward", "nd-central"};

const char *mbs_jacobian_method_name(MbsJacobianMethod method)
{
    return (unsigned)method < MBS_JACOBIAN_COUNT ? jacobian_names[method] : "unknown";
}

int mbs_jacobian_method_from_name(const char *name)
{
    for (int i = 0; name && i < MBS_JACOBIAN_COUNT; ++i)
        if (!strcmp(name, jacobian_names[i]))
            return i;
    return -1;
}

void mbs_settings_defaults(MbsSettings *s)
{
    memset(s, 0, sizeof *s);
    s->step = 1e-2;
    s->duration = 5.0;
    s->jacobian = MBS_JACOBIAN_ND_CENTRAL;
    s->penalty = 1e9;
    s->newton_tolerance = 1e-10;
    s->newton_max_iterations = 20;
    s->jacobian_reuse = 3;
    s->assembly_tolerance = 1e-12;
    /* All cores (capped by the formulation for small models): 1.9-2x on the lattices with
     * 2 idle cores; slower when the cores are busy with other work (docs/benchmarks.md). */
    s->threads = 0;
    s->newmark_beta = 0.25;
    s->newmark_gamma = 0.5;
    s->projection_kind = 0;
    s->ali3p_solver = 0;
    s->matrix_r_integrator = 0;
    s->matrix_r_sparse = 0;
    s->matrix_r_rcond = 0.1;
    s->matrix_r_ndofs = 0;
}

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

static int check_settings(const MbsSettings *s, MbsError *err)
{
    if (!(s->step > 0.0) || !(s->step < 1e3))
        return mbs_error_set(err, MBS_FATAL, "step %g s must be positive", s->step);
    if (!(s->duration >= 0.0) || !(s->duration < 1e9))
        return mbs_error_set(err, MBS_FATAL, "duration %g s must not be negative", s->duration);
    if (!(s->penalty > 0.0) || !(s->penalty < 1e300))
        return mbs_error_set(err, MBS_FATAL, "penalty factor %g must be positive", s->penalty);
    if (!(s->newton_tolerance > 0.0))
        return mbs_error_set(err, MBS_FATAL, "Newton tolerance %g must be positive",
                             s->newton_tolerance);
    if (s->newton_max_iterations < 1)
        return mbs_error_set(err, MBS_FATAL, "at least one Newton iteration is needed");
    if ((unsigned)s->jacobian >= MBS_JACOBIAN_COUNT)
        return mbs_error_set(err, MBS_FATAL, "unknown Jacobian method %d", (int)s->jacobian);
    return 0;
}

unsigned mbs_formulation_uses(const MbsFormulationClass *k, const MbsModel *m)
{
    return m && k->uses_for_model ? k->uses_for_model(m) : k->uses;
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
    if (check_settings(s, err))
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
    /* Degrees of freedom chosen in the model apply unless the run chose its own or asked for
     * the automatic partition. */
    if (f->settings.matrix_r_ndofs == MBS_MATRIX_R_AUTOMATIC) {
        f->settings.matrix_r_ndofs = 0;
    } else if (f->settings.matrix_r_ndofs == 0 && m->ndofs > 0) {
        if (m->ndofs > MBS_MATRIX_R_MAX_DOFS) {
            mbs_error_set(err, MBS_FATAL, "model '%s' chooses %d degrees of freedom; at most %d "
                          "are supported", m->name, m->ndofs, MBS_MATRIX_R_MAX_DOFS);
            free(f);
            return NULL;
        }
        f->settings.matrix_r_ndofs = m->ndofs;
        for (int i = 0; i < m->ndofs; ++i) {
            f->settings.matrix_r_dof_joint[i] = m->dofs[i].joint;
            f->settings.matrix_r_dof_coord[i] = m->dofs[i].coordinate;
            f->settings.matrix_r_dof_point[i] = m->dofs[i].point;
            f->settings.matrix_r_dof_axis[i] = m->dofs[i].axis;
        }
    }
    if (klass->init(f, err) != 0) {
        mbs_formulation_free(f);
        return NULL;
    }
    f->energy0 = f->monitors.total;
    f->monitors.time = f->time;
    return f;
}

int mbs_formulation_step(MbsFormulation *f, MbsError *err)
{
    return mbs_formulation_step_by(f, f->settings.step, err);
}

int mbs_formulation_step_by(MbsFormulation *f, double h, MbsError *err)
{
    int status = f->klass->step(f, h, err);
    f->monitors.time = f->time;
    if (status == 0) {
        f->steps++;
        const MbsMonitors *mo = &f->monitors;
        if (!isfinite(mo->total) || !isfinite(mo->phi_norm))
            return mbs_error_set(err, MBS_FATAL,
                                 "%s: the solution became non-finite at t = %g s",
                                 f->klass->name, f->time);
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

void mbs_formulation_point_position(const MbsFormulation *f, int point, double out[3])
{
    const MbsPoint *pt = &f->model->points[point];
    double R[9], p[3];
    mbs_formulation_body_pose(f, pt->body, R, p);
    mbs_m3_mulv(R, pt->pos, out);
    mbs_v3_add(out, p, out);
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
    f->time = c->time;
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
