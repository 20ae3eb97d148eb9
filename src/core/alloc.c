#define _DEFAULT_SOURCE 1 /* madvise, MADV_HUGEPAGE */
#include "core/alloc.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#if defined(__linux__)
#include <sys/mman.h>
#endif

static void *default_alloc(size_t size, size_t align, void *user)
{
    (void)user;
    if (align < sizeof(void *))
        align = sizeof(void *);
    void *p = NULL;
    return posix_memalign(&p, align, size) == 0 ? p : NULL;
}

static void default_free(void *ptr, size_t size, void *user)
{
    (void)size;
    (void)user;
    free(ptr);
}

void *mq_alloc(const mq_allocator *a, size_t size, size_t align)
{
    if (size == 0)
        return NULL;
    if (a && a->alloc)
        return a->alloc(size, align, a->user);
    return default_alloc(size, align, NULL);
}

void *mq_alloc_zero(const mq_allocator *a, size_t size, size_t align)
{
    void *p = mq_alloc(a, size, align);
    if (p)
        memset(p, 0, size);
    return p;
}

void mq_free(const mq_allocator *a, void *ptr, size_t size)
{
    if (!ptr)
        return;
    if (a && a->free)
        a->free(ptr, size, a->user);
    else
        default_free(ptr, size, NULL);
}

void *mq_realloc(const mq_allocator *a, void *ptr, size_t old_size, size_t new_size, size_t align)
{
    void *p = mq_alloc(a, new_size, align);
    if (!p)
        return NULL;
    if (ptr) {
        memcpy(p, ptr, old_size < new_size ? old_size : new_size);
        mq_free(a, ptr, old_size);
    }
    return p;
}

#define MQ_HUGE_PAGE ((size_t)2 << 20)
#define MQ_HUGE_ADVISE_MIN_BYTES (4 * MQ_HUGE_PAGE)

bool mq_huge_page_interior(uintptr_t p, size_t size, uintptr_t *lo, uintptr_t *hi)
{
    if (size < MQ_HUGE_ADVISE_MIN_BYTES || p > UINTPTR_MAX - size)
        return false;
    *lo = (p + MQ_HUGE_PAGE - 1) & ~(uintptr_t)(MQ_HUGE_PAGE - 1);
    *hi = (p + size) & ~(uintptr_t)(MQ_HUGE_PAGE - 1);
    return *hi > *lo;
}

void mq_advise_huge_pages(const mq_allocator *a, void *p, size_t size)
{
    if (a && a->alloc)
        return; /* the caller's memory, the caller's policy */
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    uintptr_t lo, hi;
    if (mq_huge_page_interior((uintptr_t)p, size, &lo, &hi))
        (void)madvise((void *)lo, hi - lo, MADV_HUGEPAGE);
#else
    (void)p;
    (void)size;
#endif
}
