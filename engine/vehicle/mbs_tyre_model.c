/* The tyre laws (mbs_tyre_model.h): one line per law. */
#include "mbs_tyre_model.h"

#include <string.h>

extern const MbsTyreModelClass mbs_tyre_linear, mbs_tyre_pac2002;

static const MbsTyreModelClass *const classes[] = {
    &mbs_tyre_linear,  /* engine/vehicle/tyre_linear.c */
    &mbs_tyre_pac2002, /* engine/vehicle/tyre_pac2002.c */
};

#define NCLASSES ((int)(sizeof classes / sizeof classes[0]))

int mbs_tyre_model_class_count(void) { return NCLASSES; }

const MbsTyreModelClass *mbs_tyre_model_class_at(int i)
{
    return i >= 0 && i < NCLASSES ? classes[i] : NULL;
}

int mbs_tyre_model_class_index(const char *name)
{
    for (int i = 0; name && i < NCLASSES; ++i)
        if (!strcmp(classes[i]->name, name))
            return i;
    return -1;
}

const MbsTyreModelClass *mbs_tyre_model_class_by_name(const char *name)
{
    return mbs_tyre_model_class_at(mbs_tyre_model_class_index(name));
}

int mbs_tyre_side(const MbsTyreModelClass *law, const MbsTyreData *data)
{
    return law && law->side ? law->side(data) : MBS_TYRE_LEFT;
}

double mbs_tyre_width(const MbsTyreModelClass *law, const MbsTyreData *data)
{
    return law && law->width ? law->width(data) : 0.0;
}

/* The signs of the reflection in the wheel plane: of the inputs (Vcy and gamma change sign) and
 * of the outputs (Fy, Mx and Mz do). */
static const double in_sign[MBS_TYRE_IN_COUNT] = {
    [MBS_TYRE_IN_FZ] = 1, [MBS_TYRE_IN_VX] = 1, [MBS_TYRE_IN_VY] = -1, [MBS_TYRE_IN_OMEGA] = 1,
    [MBS_TYRE_IN_GAMMA] = -1};
static const double out_sign[MBS_TYRE_OUT_COUNT] = {
    [MBS_TYRE_OUT_FX] = 1, [MBS_TYRE_OUT_FY] = -1, [MBS_TYRE_OUT_MX] = -1, [MBS_TYRE_OUT_MY] = 1,
    [MBS_TYRE_OUT_MZ] = -1};

void mbs_tyre_evaluate(const MbsTyreModelClass *law, const MbsTyreData *data, int mirror,
                       const MbsTyreInput *in, MbsTyreOutput *out, MbsTyreDerivative *d)
{
    if (!mirror) {
        law->evaluate(data, in, out, d);
        return;
    }
    MbsTyreInput m = *in;
    for (int j = 0; j < MBS_TYRE_IN_COUNT; ++j)
        m.in[j] *= in_sign[j];
    law->evaluate(data, &m, out, d);
    for (int i = 0; i < MBS_TYRE_OUT_COUNT; ++i) {
        out->out[i] *= out_sign[i];
        for (int j = 0; d && j < MBS_TYRE_IN_COUNT; ++j)
            d->d[i][j] *= out_sign[i] * in_sign[j];
    }
    out->alpha = -out->alpha;
}

void mbs_tyre_scaling_derivative(const MbsTyreModelClass *law, const MbsTyreData *data,
                                 int mirror, const MbsTyreInput *in, MbsTyreScalingDerivative *d)
{
    memset(d, 0, sizeof *d);
    if (!law->scaling_derivative)
        return;
    MbsTyreInput m = *in;
    for (int j = 0; mirror && j < MBS_TYRE_IN_COUNT; ++j)
        m.in[j] *= in_sign[j];
    law->scaling_derivative(data, &m, d);
    for (int i = 0; mirror && i < MBS_TYRE_OUT_COUNT; ++i)
        for (int k = 0; k < MBS_TYRE_SCALES; ++k)
            d->d[i][k] *= out_sign[i];
}

int mbs_tyre_scaling_count(const MbsTyreModelClass *law)
{
    int n = 0;
    while (law && law->scaling && law->scaling[n])
        ++n;
    return n;
}

int mbs_tyre_scaling_index(const MbsTyreModelClass *law, const char *name)
{
    for (int k = 0; name && k < mbs_tyre_scaling_count(law); ++k)
        if (!strcmp(law->scaling[k], name))
            return k;
    return -1;
}
