/* Parameters of a model: bindings of fields to expressions, copies, and rebuilding a model
 * for a new value of one parameter (what sensitivities perturb). See mbs_model.h. */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mbs_expr.h"
#include "mbs_force.h"
#include "mbs_linalg.h"
#include "mbs_model.h"
#include "mbs_path.h"
#include "mbs_road.h"
#include "mbs_tyre_model.h"

int mbs_model_find_parameter(const MbsModel *m, const char *name)
{
    for (int i = 0; name && i < m->nparameters; ++i)
        if (!strcmp(m->parameters[i].name, name))
            return i;
    return -1;
}

/* ---- derivations ---------------------------------------------------------------------- */

typedef void (*DeriveFn)(const double *in, double *out);

static void derive_value(const double *in, double *out) { out[0] = in[0]; }

/* Same arithmetic as the joint builders' unit axis. */
static void derive_unit_vector(const double *in, double *out)
{
    if (mbs_v3_unit(in, out) == 0.0)
        out[0] = out[1] = out[2] = NAN; /* refused as not finite, as 0 / 0 was */
}

static void derive_distance(const double *in, double *out)
{
    double d[3];
    mbs_v3_sub(in + 3, in, d);
    out[0] = mbs_v3_norm(d);
}

static void derive_midpoint(const double *in, double *out)
{
    for (int k = 0; k < 3; ++k)
        out[k] = 0.5 * (in[k] + in[3 + k]);
}

static void derive_box_inertia(const double *in, double *out)
{
    mbs_inertia_box(in[0], in + 1, out);
}

static void derive_rod_inertia(const double *in, double *out)
{
    mbs_inertia_slender_rod(in[0], in + 1, in + 4, out);
}

static void derive_box_inertia_along(const double *in, double *out)
{
    mbs_inertia_box_along(in[0], in + 1, in + 4, in + 7, out);
}

static const struct {
    int ninputs, noutputs;
    DeriveFn fn;
} derivations[MBS_DERIVE_COUNT] = {
    [MBS_DERIVE_VALUE] = {1, 1, derive_value},
    [MBS_DERIVE_UNIT_VECTOR] = {3, 3, derive_unit_vector},
    [MBS_DERIVE_DISTANCE] = {6, 1, derive_distance},
    [MBS_DERIVE_MIDPOINT] = {6, 3, derive_midpoint},
    [MBS_DERIVE_BOX_INERTIA] = {4, 9, derive_box_inertia},
    [MBS_DERIVE_ROD_INERTIA] = {7, 9, derive_rod_inertia},
    [MBS_DERIVE_BOX_INERTIA_ALONG] = {10, 9, derive_box_inertia_along},
};

int mbs_derivation_outputs(MbsDerivation derivation)
{
    return (unsigned)derivation < MBS_DERIVE_COUNT ? derivations[derivation].noutputs : 0;
}

/* ---- fields ----------------------------------------------------------------------------- */

typedef struct {
    const char *name;
    size_t offset;
    int count;
} FieldName;

#define FIELD(type, member, n) {#member, offsetof(type, member), n}
static const FieldName model_fields[] = {FIELD(MbsModel, gravity, 3), {0}};
static const FieldName parameter_fields[] = {FIELD(MbsParameter, value, 1), {0}};
static const FieldName body_fields[] = {FIELD(MbsBody, mass, 1), FIELD(MbsBody, com, 3),
                                        FIELD(MbsBody, inertia, 9), {0}};
static const FieldName point_fields[] = {FIELD(MbsPoint, pos, 3), {0}};
static const FieldName joint_fields[] = {
    FIELD(MbsJoint, point1, 3), FIELD(MbsJoint, point2, 3), FIELD(MbsJoint, axis1, 3),
    FIELD(MbsJoint, axis2, 3), FIELD(MbsJoint, length, 1),
    FIELD(MbsJoint, driver.coef, MBS_POLY_MAX), FIELD(MbsJoint, driver.offset, 1),
    FIELD(MbsJoint, driver.amplitude, 1), FIELD(MbsJoint, driver.omega, 1),
    FIELD(MbsJoint, driver.phase, 1), {0}};
/* Where a force acts; its numbers are named by its class (mbs_force.h). */
static const FieldName force_fields[] = {FIELD(MbsForce, point1, 3), FIELD(MbsForce, point2, 3),
                                         {0}};
static const FieldName initial_fields[] = {FIELD(MbsInitialCondition, value, 1),
                                           FIELD(MbsInitialCondition, direction, 3), {0}};
#undef FIELD

static const FieldName *const field_names[] = {
    [MBS_ELEMENT_MODEL] = model_fields,   [MBS_ELEMENT_PARAMETER] = parameter_fields,
    [MBS_ELEMENT_BODY] = body_fields,     [MBS_ELEMENT_POINT] = point_fields,
    [MBS_ELEMENT_JOINT] = joint_fields,   [MBS_ELEMENT_FORCE] = force_fields,
    [MBS_ELEMENT_INITIAL] = initial_fields,
};

typedef struct {
    char *base;
    int count;
    size_t size;
} ElementArray;

#define ELEMENTS(array, count) (char *)(array), (count), sizeof *(array)

/* The address of the double ref names, or NULL when ref is out of range. */
static double *field_address(MbsModel *m, MbsFieldRef ref)
{
    ElementArray e;
    switch (ref.kind) {
    case MBS_ELEMENT_MODEL: e = (ElementArray){(char *)m, 1, sizeof *m}; break;
    case MBS_ELEMENT_PARAMETER: e = (ElementArray){ELEMENTS(m->parameters, m->nparameters)}; break;
    case MBS_ELEMENT_BODY: e = (ElementArray){ELEMENTS(m->bodies, m->nbodies)}; break;
    case MBS_ELEMENT_POINT: e = (ElementArray){ELEMENTS(m->points, m->npoints)}; break;
    case MBS_ELEMENT_JOINT: e = (ElementArray){ELEMENTS(m->joints, m->njoints)}; break;
    case MBS_ELEMENT_FORCE: e = (ElementArray){ELEMENTS(m->forces, m->nforces)}; break;
    case MBS_ELEMENT_INITIAL: e = (ElementArray){ELEMENTS(m->initial, m->ninitial)}; break;
    default: return NULL;
    }
    if (ref.index < 0 || ref.index >= e.count || ref.offset + sizeof(double) > e.size)
        return NULL;
    return (double *)(void *)(e.base + (size_t)ref.index * e.size + ref.offset);
}
#undef ELEMENTS

void mbs_field_ref_describe(const MbsModel *m, MbsFieldRef ref, char *text, size_t size)
{
    static const char *const lists[] = {"model", "parameters", "bodies", "points",
                                        "joints", "forces", "initial"};
    const char *element = "?";
    switch (ref.kind) {
    case MBS_ELEMENT_MODEL: element = m->name; break;
    case MBS_ELEMENT_PARAMETER: element = m->parameters[ref.index].name; break;
    case MBS_ELEMENT_BODY: element = m->bodies[ref.index].name; break;
    case MBS_ELEMENT_POINT: element = m->points[ref.index].name; break;
    case MBS_ELEMENT_JOINT: element = m->joints[ref.index].name; break;
    case MBS_ELEMENT_FORCE: element = m->forces[ref.index].name; break;
    case MBS_ELEMENT_INITIAL:
        element = m->initial[ref.index].joint >= 0 ? m->joints[m->initial[ref.index].joint].name
                                                   : m->points[m->initial[ref.index].point].name;
        break;
    }
    FieldName found = {"?", 0, 1};
    for (const FieldName *f = field_names[ref.kind]; f->name; ++f)
        if (ref.offset >= f->offset && ref.offset < f->offset + (size_t)f->count * sizeof(double))
            found = *f;
    const MbsForceClass *c =
        ref.kind == MBS_ELEMENT_FORCE ? mbs_force_class(m->forces[ref.index].type) : NULL;
    for (const MbsForceField *f = c ? c->fields : NULL; f && f->name; ++f)
        if (ref.offset >= f->offset && ref.offset < f->offset + (size_t)f->count * sizeof(double))
            found = (FieldName){f->name, f->offset, f->count};
    const char *field = found.name;
    int component = found.count > 1 ? (int)((ref.offset - found.offset) / sizeof(double)) : -1;
    /* a wheel's multiplier of a tyre scaling factor: "tyre_scaling LMUY" */
    size_t scales = offsetof(MbsForce, tyre_scale);
    char scaling[48];
    if (c && ref.offset >= scales && ref.offset < scales + sizeof m->forces->tyre_scale) {
        int k = (int)((ref.offset - scales) / sizeof(double));
        const MbsTyreModelClass *law = mbs_tyre_model_class_at(m->forces[ref.index].tyre_law);
        snprintf(scaling, sizeof scaling, "tyre_scaling %s",
                 k < mbs_tyre_scaling_count(law) ? law->scaling[k] : "?");
        field = scaling;
        component = -1;
    }
    char index[16] = "";
    if (component >= 0)
        snprintf(index, sizeof index, "[%d]", component);
    snprintf(text, size, "%s[%d] '%s' %s%s", lists[ref.kind], ref.index, element, field, index);
}

/* ---- bindings --------------------------------------------------------------------------- */

static void binding_clear(MbsBinding *b)
{
    for (int i = 0; i < b->ninputs; ++i)
        free(b->inputs[i]);
    free(b->reads);
    memset(b, 0, sizeof *b);
}

static int binding_copy(MbsBinding *dst, const MbsBinding *src)
{
    *dst = *src;
    dst->reads = NULL;
    for (int i = 0; i < src->ninputs; ++i)
        dst->inputs[i] = NULL;
    for (int i = 0; i < src->ninputs; ++i) {
        size_t len = strlen(src->inputs[i]) + 1;
        if (!(dst->inputs[i] = malloc(len)))
            return binding_clear(dst), -1;
        memcpy(dst->inputs[i], src->inputs[i], len);
    }
    if (src->nreads) {
        if (!(dst->reads = malloc(sizeof(int) * (size_t)src->nreads)))
            return binding_clear(dst), -1;
        memcpy(dst->reads, src->reads, sizeof(int) * (size_t)src->nreads);
    }
    return 0;
}

void mbs_model_clear_bindings(MbsModel *m)
{
    for (int i = 0; i < m->nbindings; ++i)
        binding_clear(&m->bindings[i]);
    free(m->bindings);
    m->bindings = NULL;
    m->nbindings = m->cap_bindings = 0;
}

/* Evaluate the inputs with the model's parameters and write the derived numbers (or, when
 * check_only, verify that they equal the field's present value). used (may be NULL) collects
 * the parameters read. */
static int evaluate(MbsModel *m, MbsFieldRef target, MbsDerivation how, const char *const *inputs,
                    int ninputs, unsigned char *used, int check_only, MbsError *err)
{
    char where[256];
    if ((unsigned)how >= MBS_DERIVE_COUNT || ninputs != derivations[how].ninputs)
        return mbs_error_set(err, MBS_FATAL, "binding: wrong number of inputs");
    double *out = field_address(m, target);
    MbsFieldRef last = target;
    last.offset += sizeof(double) * (size_t)(derivations[how].noutputs - 1);
    if (!out || !field_address(m, last))
        return mbs_error_set(err, MBS_FATAL, "binding: field out of range");
    MbsExprVariable vars[m->nparameters > 0 ? m->nparameters : 1];
    for (int i = 0; i < m->nparameters; ++i)
        vars[i] = (MbsExprVariable){m->parameters[i].name, m->parameters[i].value};
    double in[MBS_BINDING_INPUTS_MAX];
    for (int i = 0; i < ninputs; ++i) {
        char message[MBS_EXPR_MESSAGE_MAX];
        if (!mbs_expr_eval(inputs[i], vars, m->nparameters, &in[i], used, message)) {
            mbs_field_ref_describe(m, target, where, sizeof where);
            return mbs_error_set(err, MBS_FATAL, "%s: in expression \"%s\": %s", where,
                                 inputs[i], message);
        }
    }
    double result[9];
    derivations[how].fn(in, result);
    for (int k = 0; k < derivations[how].noutputs; ++k)
        if (!isfinite(result[k])) {
            mbs_field_ref_describe(m, target, where, sizeof where);
            return mbs_error_set(err, MBS_FATAL, "%s: value is not a finite number", where);
        }
    size_t bytes = sizeof(double) * (size_t)derivations[how].noutputs;
    if (check_only && memcmp(out, result, bytes)) {
        mbs_field_ref_describe(m, target, where, sizeof where);
        return mbs_error_set(err, MBS_FATAL, "%s: its expressions do not reproduce the value "
                             "the model holds", where);
    }
    memcpy(out, result, bytes);
    return 0;
}

int mbs_model_bind(MbsModel *m, MbsFieldRef target, MbsDerivation derivation,
                   const char *const *inputs, int ninputs, MbsError *err)
{
    if (m->topo)
        return mbs_error_set(err, MBS_FATAL, "model '%s' is compiled and read-only", m->name);
    unsigned char used[m->nparameters > 0 ? m->nparameters : 1];
    memset(used, 0, sizeof used);
    if (evaluate(m, target, derivation, inputs, ninputs, used, 1, err))
        return -1;
    int nreads = 0;
    for (int i = 0; i < m->nparameters; ++i)
        nreads += used[i];
    if (!nreads)
        return 0; /* a constant */
    if (m->nbindings == m->cap_bindings) {
        int cap = m->cap_bindings ? 2 * m->cap_bindings : 16;
        MbsBinding *grown = realloc(m->bindings, sizeof *grown * (size_t)cap);
        if (!grown)
            return mbs_error_set(err, MBS_FATAL, "out of memory");
        m->bindings = grown;
        m->cap_bindings = cap;
    }
    MbsBinding b = {.target = target, .derivation = derivation, .ninputs = ninputs};
    for (int i = 0; i < ninputs; ++i)
        b.inputs[i] = (char *)inputs[i];
    MbsBinding *slot = &m->bindings[m->nbindings];
    if (binding_copy(slot, &b) || !(slot->reads = malloc(sizeof(int) * (size_t)nreads)))
        return binding_clear(slot), mbs_error_set(err, MBS_FATAL, "out of memory");
    for (int i = 0; i < m->nparameters; ++i)
        if (used[i])
            slot->reads[slot->nreads++] = i;
    m->nbindings++;
    return 0;
}

static int reads_changed(const MbsBinding *b, const unsigned char *changed)
{
    for (int i = 0; i < b->nreads; ++i)
        if (changed[b->reads[i]])
            return 1;
    return 0;
}

int mbs_model_parameter_dependents(const MbsModel *m, int p, MbsFieldRef *out, int max)
{
    if (p < 0 || p >= m->nparameters)
        return 0;
    unsigned char changed[m->nparameters];
    memset(changed, 0, sizeof changed);
    changed[p] = 1;
    int n = 0;
    for (int i = 0; i < m->nbindings; ++i) {
        const MbsBinding *b = &m->bindings[i];
        if (!reads_changed(b, changed))
            continue;
        if (b->target.kind == MBS_ELEMENT_PARAMETER)
            changed[b->target.index] = 1;
        if (out && n < max)
            out[n] = b->target;
        n++;
    }
    return n;
}

int mbs_model_parameter_is_free(const MbsModel *m, int p)
{
    for (int i = 0; i < m->nbindings; ++i)
        if (m->bindings[i].target.kind == MBS_ELEMENT_PARAMETER && m->bindings[i].target.index == p)
            return 0;
    return p >= 0 && p < m->nparameters;
}

/* ---- copies ----------------------------------------------------------------------------- */

static int copy_array(void **dst, const void *src, int count, size_t elem)
{
    *dst = NULL;
    if (count == 0)
        return 0;
    if (!(*dst = malloc(elem * (size_t)count)))
        return -1;
    memcpy(*dst, src, elem * (size_t)count);
    return 0;
}

/* Copy without topology: the element arrays sized to their counts, the bindings deep. */
static MbsModel *copy_elements(const MbsModel *m, MbsError *err)
{
    MbsModel *c = calloc(1, sizeof *c);
    if (!c)
        return mbs_error_set(err, MBS_FATAL, "out of memory"), NULL;
    *c = *m;
    c->topo = NULL;
    c->road = NULL;
    c->path = NULL;
    c->bodies = NULL, c->points = NULL, c->joints = NULL, c->forces = NULL;
    c->initial = NULL, c->parameters = NULL, c->dofs = NULL, c->bindings = NULL;
    c->objectives = NULL, c->objective_terms = NULL;
    c->nbindings = 0;
    int failed = copy_array((void **)&c->bodies, m->bodies, m->nbodies, sizeof *m->bodies) ||
                 copy_array((void **)&c->points, m->points, m->npoints, sizeof *m->points) ||
                 copy_array((void **)&c->joints, m->joints, m->njoints, sizeof *m->joints) ||
                 copy_array((void **)&c->forces, m->forces, m->nforces, sizeof *m->forces) ||
                 copy_array((void **)&c->initial, m->initial, m->ninitial, sizeof *m->initial) ||
                 copy_array((void **)&c->parameters, m->parameters, m->nparameters,
                            sizeof *m->parameters) ||
                 copy_array((void **)&c->dofs, m->dofs, m->ndofs, sizeof *m->dofs) ||
                 copy_array((void **)&c->objectives, m->objectives, m->nobjectives,
                            sizeof *m->objectives) ||
                 copy_array((void **)&c->objective_terms, m->objective_terms,
                            m->nobjective_terms, sizeof *m->objective_terms);
    c->cap_bodies = m->nbodies, c->cap_points = m->npoints, c->cap_joints = m->njoints;
    c->cap_forces = m->nforces, c->cap_initial = m->ninitial;
    c->cap_parameters = m->nparameters, c->cap_dofs = m->ndofs;
    c->cap_objectives = m->nobjectives, c->cap_objective_terms = m->nobjective_terms;
    c->cap_bindings = m->nbindings;
    /* The wheels' tyre data and the road: the copy owns its own (mbs_model_free frees them). */
    for (int i = 0; !failed && i < m->nforces; ++i)
        c->forces[i].tyre_data = NULL;
    for (int i = 0; !failed && i < m->nforces; ++i)
        if (m->forces[i].tyre_data &&
            !(c->forces[i].tyre_data =
                  mbs_tyre_model_class_at(m->forces[i].tyre_law)->copy(m->forces[i].tyre_data)))
            failed = 1;
    if (!failed && m->road && !(c->road = mbs_road_copy(m->road)))
        failed = 1;
    if (!failed && m->path && !(c->path = mbs_path_copy(m->path)))
        failed = 1;
    if (!failed && m->nbindings &&
        !(c->bindings = calloc((size_t)m->nbindings, sizeof *c->bindings)))
        failed = 1;
    for (int i = 0; !failed && i < m->nbindings; ++i, c->nbindings++)
        failed = binding_copy(&c->bindings[i], &m->bindings[i]);
    if (failed) {
        mbs_model_free(c);
        return mbs_error_set(err, MBS_FATAL, "out of memory"), NULL;
    }
    return c;
}

MbsModel *mbs_model_copy(const MbsModel *m, MbsError *err)
{
    MbsModel *c = copy_elements(m, err);
    if (c && m->topo && mbs_model_compile(c, err)) {
        mbs_model_free(c);
        return NULL;
    }
    return c;
}

/* The builders hold every check of an element; run them on a scratch model. */
static int check_with_builders(const MbsModel *m, MbsError *err)
{
    MbsModel *s = mbs_model_new(m->name);
    if (!s)
        return mbs_error_set(err, MBS_FATAL, "out of memory");
    int bad = 0;
    for (int i = 0; !bad && i < m->nparameters; ++i)
        bad = mbs_model_add_parameter(s, m->parameters[i].name, m->parameters[i].value, err) < 0;
    for (int i = 0; !bad && i < m->nbodies; ++i) {
        const MbsBody *b = &m->bodies[i];
        bad = (b->is_ground ? mbs_model_add_ground(s, b->name, err)
                            : mbs_model_add_body(s, b->name, b->mass, b->com, b->inertia, err)) < 0;
    }
    for (int i = 0; !bad && i < m->npoints; ++i)
        bad = mbs_model_add_point(s, m->points[i].body, m->points[i].name, m->points[i].pos,
                                  err) < 0;
    for (int i = 0; !bad && i < m->njoints; ++i) {
        const MbsJoint *j = &m->joints[i];
        int r;
        if (j->type == MBS_JOINT_ROD)
            r = mbs_model_add_rod(s, j->name, j->body1, j->point1, j->body2, j->point2,
                                  j->length, err);
        else if (j->type == MBS_JOINT_UNIVERSAL)
            r = mbs_model_add_universal(s, j->name, j->body1, j->body2, j->point1, j->axis1,
                                        j->axis2, err);
        else
            r = mbs_model_add_joint(s, j->name, j->type, j->body1, j->body2, j->point1,
                                    j->axis1, err);
        bad = r < 0 || (j->driven && mbs_model_drive_joint(s, r, &j->driver, err));
    }
    for (int i = 0; !bad && i < m->nforces; ++i)
        bad = mbs_model_add_force(s, &m->forces[i], err) < 0;
    for (int i = 0; !bad && i < m->ninitial; ++i) {
        const MbsInitialCondition *c = &m->initial[i];
        bad = (c->joint >= 0 ? mbs_model_set_initial(s, c->joint, c->coordinate, c->is_velocity,
                                                     c->value, err)
                             : mbs_model_set_point_velocity(s, c->point, c->direction, c->value,
                                                            err)) < 0;
    }
    mbs_model_free(s);
    return bad ? MBS_FATAL : 0;
}

MbsModel *mbs_model_with_parameter(const MbsModel *m, int p, double value, MbsError *err)
{
    if (p < 0 || p >= m->nparameters)
        return mbs_error_set(err, MBS_FATAL, "parameter index %d out of range (%d parameters)",
                             p, m->nparameters), NULL;
    if (!isfinite(value))
        return mbs_error_set(err, MBS_FATAL, "parameter '%s': value is not a finite number",
                             m->parameters[p].name), NULL;
    MbsModel *c = copy_elements(m, err);
    if (!c)
        return NULL;
    c->parameters[p].value = value;
    unsigned char changed[c->nparameters];
    memset(changed, 0, sizeof changed);
    changed[p] = 1;
    int failed = 0, kept = 0;
    for (int i = 0; i < c->nbindings; ++i) {
        MbsBinding *b = &c->bindings[i];
        /* The given value replaces the parameter's own expression, as a file override does. */
        if (b->target.kind == MBS_ELEMENT_PARAMETER && b->target.index == p) {
            binding_clear(b);
            continue;
        }
        if (!failed && reads_changed(b, changed)) {
            failed = evaluate(c, b->target, b->derivation, (const char *const *)b->inputs,
                              b->ninputs, NULL, 0, err) != 0;
            if (b->target.kind == MBS_ELEMENT_PARAMETER)
                changed[b->target.index] = 1;
        }
        c->bindings[kept++] = *b;
    }
    c->nbindings = kept;
    if (failed || check_with_builders(c, err) || (m->topo && mbs_model_compile(c, err))) {
        mbs_model_free(c);
        return NULL;
    }
    return c;
}
