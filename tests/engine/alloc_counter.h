/* Counts heap allocations made while `alloc_counting` is set: malloc, calloc and realloc are
 * wrapped at link time (-Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc; see meson.build). */
#ifndef ALLOC_COUNTER_H
#define ALLOC_COUNTER_H

#include <stddef.h>

static long alloc_count;
static int alloc_counting;

void *__real_malloc(size_t size);
void *__real_calloc(size_t n, size_t size);
void *__real_realloc(void *p, size_t size);

void *__wrap_malloc(size_t size)
{
    alloc_count += alloc_counting;
    return __real_malloc(size);
}

void *__wrap_calloc(size_t n, size_t size)
{
    alloc_count += alloc_counting;
    return __real_calloc(n, size);
}

void *__wrap_realloc(void *p, size_t size)
{
    alloc_count += alloc_counting;
    return __real_realloc(p, size);
}

#endif
