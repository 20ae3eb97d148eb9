/* Core: version, status strings, allocator hook, diagnostics. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <meshquery/meshquery.h>

#include "core/alloc.h"
#include "core/diag.h"
#include "test_support.h"

static void version_matches_macros(void **state)
{
    (void)state;
    char expect[32];
    snprintf(expect, sizeof expect, "%d.%d.%d", MQ_VERSION_MAJOR, MQ_VERSION_MINOR, MQ_VERSION_PATCH);
    assert_string_equal(mq_version(), expect);
}

static void every_status_has_a_name(void **state)
{
    (void)state;
    for (int s = MQ_OK; s <= MQ_ERR_CORRUPT; s++)
        assert_string_not_equal(mq_status_string((mq_status)s), "unknown status");
    assert_string_equal(mq_status_string((mq_status)999), "unknown status");
}

typedef struct counting {
    size_t live_bytes;
    int allocs, frees;
} counting;

static void *count_alloc(size_t size, size_t align, void *user)
{
    counting *c = user;
    void *p = NULL;
    if (posix_memalign(&p, align < sizeof(void *) ? sizeof(void *) : align, size))
        return NULL;
    c->live_bytes += size;
    c->allocs++;
    return p;
}

static void count_free(void *ptr, size_t size, void *user)
{
    counting *c = user;
    c->live_bytes -= size;
    c->frees++;
    free(ptr);
}

static void allocator_hook_sees_sizes_and_alignment(void **state)
{
    (void)state;
    counting c = {0};
    mq_allocator a = {count_alloc, count_free, &c};
    char *p = mq_alloc(&a, 100, 64);
    assert_non_null(p);
    assert_int_equal((uintptr_t)p % 64, 0);
    memset(p, 7, 100);
    char *q = mq_realloc(&a, p, 100, 300, 64);
    assert_non_null(q);
    assert_int_equal(q[99], 7);
    assert_int_equal(c.live_bytes, 300);
    mq_free(&a, q, 300);
    assert_int_equal(c.live_bytes, 0);
    assert_int_equal(c.allocs, c.frees);
    assert_null(mq_alloc(&a, 0, 16));
}

static void size_arithmetic_detects_overflow(void **state)
{
    (void)state;
    size_t r;
    assert_true(mq_mul_size(1000, 1000, &r));
    assert_int_equal(r, 1000000);
    assert_false(mq_mul_size(SIZE_MAX / 2, 3, &r));
    assert_false(mq_add_size(SIZE_MAX, 1, &r));
}

/* The advised range of a block is 2 MiB-aligned and inside it, as large as
 * it can be; small blocks are not advised. */
static void huge_page_interior_stays_inside_the_block(void **state)
{
    (void)state;
    const uintptr_t page = (uintptr_t)2 << 20, mib = (uintptr_t)1 << 20;
    uintptr_t lo = 0, hi = 0;
    assert_false(mq_huge_page_interior(16 * page + 64, 3 * page, &lo, &hi)); /* under 8 MiB */
    assert_true(mq_huge_page_interior(16 * page, 4 * page, &lo, &hi));       /* aligned: all of it */
    assert_true(lo == 16 * page && hi == 20 * page);
    assert_true(mq_huge_page_interior(16 * page + 64, 4 * page, &lo, &hi)); /* unaligned: the inner 3 pages */
    assert_true(lo == 17 * page && hi == 20 * page);
    assert_true(mq_huge_page_interior(16 * page + mib, 5 * page + 16, &lo, &hi));
    assert_true(lo == 17 * page && hi == 21 * page);
    for (uintptr_t p = 7 * page - 4096; p < 7 * page + 4096; p += 64) {
        size_t size = (size_t)(9 * mib + (p & 0xFFF));
        if (mq_huge_page_interior(p, size, &lo, &hi)) {
            assert_true(lo >= p && hi <= p + size && lo % page == 0 && hi % page == 0 && hi > lo);
            assert_true(lo - p < page && p + size - hi < page);
        }
    }
    assert_false(mq_huge_page_interior(UINTPTR_MAX - 4096, 16 * page, &lo, &hi)); /* wraps: refused */
}

static void diag_records_location(void **state)
{
    (void)state;
    mq_diag d;
    assert_int_equal(mq_diag_set(&d, MQ_ERR_PARSE, "a.obj", 12, 7, "expected %s", "a number"), MQ_ERR_PARSE);
    assert_string_equal(d.message, "expected a number");
    assert_string_equal(d.path, "a.obj");
    assert_int_equal(d.line, 12);
    assert_int_equal(d.column, 7);
    assert_int_equal(mq_diag_set(NULL, MQ_ERR_IO, NULL, 0, 0, "x"), MQ_ERR_IO);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(version_matches_macros),
        cmocka_unit_test(every_status_has_a_name),
        cmocka_unit_test(allocator_hook_sees_sizes_and_alignment),
        cmocka_unit_test(size_arithmetic_detects_overflow),
        cmocka_unit_test(diag_records_location),
        cmocka_unit_test(huge_page_interior_stays_inside_the_block),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
