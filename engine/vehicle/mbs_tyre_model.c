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
