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

/* Under AddressSanitizer the allocator is ASan's: forward to its entry points (glibc's would
 * hand ASan pointers it never made: "munmap_chunk(): invalid pointer"), so the sanitizer build
 * counts the same allocations and still checks every access. */
#if defined(__SANITIZE_ADDRESS__)
#define ALLOC_COUNTER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ALLOC_COUNTER_ASAN 1
#endif
#endif

#ifdef ALLOC_COUNTER_ASAN
void *__interceptor_malloc(size_t size);
void *__interceptor_calloc(size_t n, size_t size);
void *__interceptor_realloc(void *p, size_t size);
void __interceptor_free(void *p);
int __interceptor_posix_memalign(void **out, size_t align, size_t size);
void *__interceptor_aligned_alloc(size_t align, size_t size);
#define ALLOC_REAL(name) __interceptor_##name
#else
void *__libc_malloc(size_t size);
void *__libc_calloc(size_t n, size_t size);
void *__libc_realloc(void *p, size_t size);
void *__libc_memalign(size_t align, size_t size);
void __libc_free(void *p);
#define ALLOC_REAL(name) __libc_##name
#endif

/* relaxed atomics: library threads (OpenBLAS) may allocate at the same time */
static void alloc_counter_note(void)
{
    if (__atomic_load_n(&alloc_counting, __ATOMIC_RELAXED))
        __atomic_fetch_add(&alloc_count, 1, __ATOMIC_RELAXED);
}

void *malloc(size_t size)
{
    alloc_counter_note();
    return ALLOC_REAL(malloc)(size);
}

void *calloc(size_t n, size_t size)
{
    alloc_counter_note();
    return ALLOC_REAL(calloc)(n, size);
}

void *realloc(void *p, size_t size)
{
    alloc_counter_note();
    return ALLOC_REAL(realloc)(p, size);
}

void free(void *p)
{
    ALLOC_REAL(free)(p);
}

int posix_memalign(void **out, size_t align, size_t size)
{
    alloc_counter_note();
#ifdef ALLOC_COUNTER_ASAN
    return __interceptor_posix_memalign(out, align, size);
#else
    void *p = __libc_memalign(align, size);
    if (!p)
        return ENOMEM;
    *out = p;
    return 0;
#endif
}

void *aligned_alloc(size_t align, size_t size)
{
    alloc_counter_note();
#ifdef ALLOC_COUNTER_ASAN
    return __interceptor_aligned_alloc(align, size);
#else
    return __libc_memalign(align, size);
#endif
}

#endif
