/* Counts heap allocations made while `alloc_counting` is set, in the whole process: the test
 * executable defines malloc, calloc, realloc, free, posix_memalign and aligned_alloc, and the
 * dynamic linker binds every library's calls (KLU, OpenBLAS, SUNDIALS, libc) to these, so
 * allocations inside the libraries are counted too. They forward to glibc's allocator through
 * its exported __libc_* entry points (dlsym(RTLD_NEXT) would itself call calloc). Include in
 * exactly one file of a test executable. */
#ifndef ALLOC_COUNTER_H
#define ALLOC_COUNTER_H

#include <errno.h>
#include <stddef.h>

static long alloc_count;
static int alloc_counting;

void *__libc_malloc(size_t size);
void *__libc_calloc(size_t n, size_t size);
void *__libc_realloc(void *p, size_t size);
void *__libc_memalign(size_t align, size_t size);
void __libc_free(void *p);

/* relaxed atomics: library threads (OpenBLAS) may allocate at the same time */
static void alloc_counter_note(void)
{
    if (__atomic_load_n(&alloc_counting, __ATOMIC_RELAXED))
        __atomic_fetch_add(&alloc_count, 1, __ATOMIC_RELAXED);
}

void *malloc(size_t size)
{
    alloc_counter_note();
    return __libc_malloc(size);
}

void *calloc(size_t n, size_t size)
{
    alloc_counter_note();
    return __libc_calloc(n, size);
}

void *realloc(void *p, size_t size)
{
    alloc_counter_note();
    return __libc_realloc(p, size);
}

void free(void *p)
{
    __libc_free(p);
}

int posix_memalign(void **out, size_t align, size_t size)
{
    alloc_counter_note();
    void *p = __libc_memalign(align, size);
    if (!p)
        return ENOMEM;
    *out = p;
    return 0;
}

void *aligned_alloc(size_t align, size_t size)
{
    alloc_counter_note();
    return __libc_memalign(align, size);
}

#endif
