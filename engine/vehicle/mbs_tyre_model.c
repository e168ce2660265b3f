/* The tyre laws (mbs_tyre_model.h): one line per law. */
#include "mbs_tyre_model.h"

#include <string.h>

extern const MbsTyreModelClass mbs_tyre_pac2002;

static const MbsTyreModelClass *const classes[] = {
    &mbs_tyre_pac2002,
};

#define NCLASSES ((int)(sizeof classes / sizeof classes[0]))

int mbs_tyre_model_class_count(void) { return NCLASSES; }

const MbsTyreModelClass *mbs_tyre_model_class_at(int i)
{
    return i >= 0 && i < NCLASSES ? classes[i] : NULL;
}

const MbsTyreModelClass *mbs_tyre_model_class_by_name(const char *name)
{
    for (int i = 0; name && i < NCLASSES; ++i)
        if (!strcmp(classes[i]->name, name))
            return classes[i];
    return NULL;
}
