#include "mbs_alloc.h"

#include <stdlib.h>

void *mbs_calloc(size_t n, size_t size, int *fail)
{
    void *p = calloc(n ? n : 1, size);
    if (!p)
        *fail = 1;
    return p;
}

double *mbs_calloc_doubles(size_t n, int *fail)
{
    return mbs_calloc(n, sizeof(double), fail);
}

int *mbs_calloc_ints(size_t n, int *fail)
{
    return mbs_calloc(n, sizeof(int), fail);
}
