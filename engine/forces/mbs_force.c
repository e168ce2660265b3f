#include "mbs_force.h"

#include <stdio.h>
#include <string.h>

extern const MbsForceClass mbs_force_tsda, mbs_force_rsda, mbs_force_constant, mbs_force_torque,
    mbs_force_tyre, mbs_force_wheel, mbs_force_path_follower, mbs_force_speed_control;
extern const MbsForceClass mbs_force_spring_table, mbs_force_damper_bilinear,
    mbs_force_bump_stop, mbs_force_antiroll_bar;

/* The registry: one line per kind, in the order messages list them. */
static const MbsForceClass *const classes[] = {
    &mbs_force_tsda,
    &mbs_force_rsda,
    &mbs_force_constant,
    &mbs_force_torque,
    &mbs_force_tyre,
    &mbs_force_spring_table,
    &mbs_force_damper_bilinear,
    &mbs_force_bump_stop,
    &mbs_force_antiroll_bar,
    &mbs_force_wheel, /* engine/vehicle/force_wheel.c */
    &mbs_force_path_follower, /* engine/vehicle/force_path_follower.c */
    &mbs_force_speed_control, /* engine/vehicle/force_speed_control.c */
};

#define NCLASSES ((int)(sizeof classes / sizeof classes[0]))

int mbs_force_class_count(void) { return NCLASSES; }

const MbsForceClass *mbs_force_class_at(int i)
{
    return i >= 0 && i < NCLASSES ? classes[i] : NULL;
}

const MbsForceClass *mbs_force_class(MbsForceType type)
{
    for (int i = 0; i < NCLASSES; ++i)
        if (classes[i]->type == type)
            return classes[i];
    return NULL;
}

const MbsForceClass *mbs_force_class_by_name(const char *name)
{
    for (int i = 0; name && i < NCLASSES; ++i)
        if (!strcmp(classes[i]->name, name))
            return classes[i];
    return NULL;
}

void mbs_force_class_list(char *text, size_t size)
{
    size_t used = 0;
    text[0] = '\0';
    for (int i = 0; i < NCLASSES && used < size; ++i) {
        const char *sep = i == 0 ? "" : i == NCLASSES - 1 ? " or " : ", ";
        int n = snprintf(text + used, size - used, "%s%s", sep, classes[i]->name);
        used += n > 0 ? (size_t)n : 0;
    }
}

MBS_FORCE_LAW(constant_vector,
    for (int i = 0; i < 3; ++i)
        out->vector[i] = MBS_LIKE(in->value, f->vector[i]);
)

void mbs_force_constant_vector(const MbsForce *f, const MbsForceInput *in, MbsForceOutput *out)
{
    constant_vector(f, in, out);
}

void mbs_force_constant_vector_dual(const MbsForce *f, const MbsForceInputDual *in,
                                    MbsForceOutputDual *out)
{
    constant_vector_dual(f, in, out);
}

double mbs_force_no_energy(const MbsForce *f, const MbsForceInput *in)
{
    (void)f, (void)in;
    return 0.0;
}

void mbs_force_constant_derivative(const MbsForce *f, const MbsForceInput *in,
                                   MbsForceDerivative *d)
{
    (void)f, (void)in;
    memset(d, 0, sizeof *d);
}

int mbs_force_varies_in_natural(const MbsForce *f)
{
    const MbsForceClass *c = mbs_force_class(f->type);
    return !c || c->state_dependent || c->geometry != MBS_FORCE_AT_POINT;
}
