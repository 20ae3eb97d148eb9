/* Internal allocation through the user's mq_allocator hook (or the default). */
#ifndef MQ_CORE_ALLOC_H
#define MQ_CORE_ALLOC_H

#include <stdint.h>

#include <meshquery/base.h>

/* Cache-line alignment for node and leaf arrays. */
#define MQ_CACHE_LINE 64

/* Allocate `size` bytes aligned to `align` (power of two). NULL on failure or size 0. */
void *mq_alloc(const mq_allocator *a, size_t size, size_t align);
/* Zero-filled variant of mq_alloc. */
void *mq_alloc_zero(const mq_allocator *a, size_t size, size_t align);
/* Free a block from mq_alloc with the size it was allocated with. NULL is a no-op. */
void mq_free(const mq_allocator *a, void *ptr, size_t size);
/* Grow (or shrink) a block: allocates new_size, copies min(old, new), frees the old block.
 * On failure returns NULL and leaves the old block untouched. */
void *mq_realloc(const mq_allocator *a, void *ptr, size_t old_size, size_t new_size, size_t align);

/* Asks the system to back the block from mq_alloc(a, size, ...) with huge
 * pages (2 MiB on x86-64; Linux transparent huge pages, which in the
 * "madvise" mode only advised memory gets). For large blocks read at random,
 * such as a tree of millions of triangles: with 4 KiB pages most of those
 * reads would also miss the TLB. Call it before the block is first written:
 * pages already touched stay small. Only the default allocator's blocks of
 * 8 MiB or more, and only their 2 MiB-aligned interior. A block that came
 * from the C library's heap rather than its own mapping keeps the advice on
 * that range after it is freed. A hint: a refusal (or another system)
 * changes nothing. */
void mq_advise_huge_pages(const mq_allocator *a, void *p, size_t size);
/* The range mq_advise_huge_pages advises for a block [p, p + size): its
 * 2 MiB-aligned interior, [*lo, *hi); false (nothing to advise) below 8 MiB
 * or when that interior is empty. */
bool mq_huge_page_interior(uintptr_t p, size_t size, uintptr_t *lo, uintptr_t *hi);

/* Overflow-checked size arithmetic: false when a*b (or a+b) does not fit in size_t. */
static inline bool mq_mul_size(size_t a, size_t b, size_t *out)
{
    if (b != 0 && a > SIZE_MAX / b)
        return false;
    *out = a * b;
    return true;
}
static inline bool mq_add_size(size_t a, size_t b, size_t *out)
{
    if (a > SIZE_MAX - b)
        return false;
    *out = a + b;
    return true;
}

#endif
