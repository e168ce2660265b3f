/* Zeroed workspaces made at init: at least one element each (an empty array is not NULL, so a
 * NULL means the allocation failed), and *fail set when one cannot be had, so that a run of them
 * is checked once. The formulations' and sensitivity methods' init use these; nothing in a step
 * allocates. */
#ifndef MBS_ALLOC_H
#define MBS_ALLOC_H

#include <stddef.h>

void *mbs_calloc(size_t n, size_t size, int *fail);
double *mbs_calloc_doubles(size_t n, int *fail);
int *mbs_calloc_ints(size_t n, int *fail);

#endif
