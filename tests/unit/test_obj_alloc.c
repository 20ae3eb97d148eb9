/* OBJ reader and mesh: every allocation goes through the user's allocator, and
 * failing the 1st, 2nd, ... Nth one gives MQ_ERR_OUT_OF_MEMORY and leaks nothing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <meshquery/obj.h>

#include "test_support.h"

/* Counts allocations and live bytes; fails allocation number `fail_at` (1-based;
 * 0 = never). Thread-safe: the parse passes allocate on several threads. */
typedef struct counting {
    pthread_mutex_t lock;
    long allocs, fail_at;
    long long live;
    bool failed;
} counting;

static void *count_alloc(size_t size, size_t align, void *user)
{
    counting *c = user;
    pthread_mutex_lock(&c->lock);
    long n = ++c->allocs;
    bool fail = n == c->fail_at;
    c->failed |= fail;
    if (!fail)
        c->live += (long long)size;
    pthread_mutex_unlock(&c->lock);
    if (fail)
        return NULL;
    void *p = NULL;
    if (posix_memalign(&p, align < sizeof(void *) ? sizeof(void *) : align, size))
        abort();
    assert_true((uintptr_t)p % align == 0);
    return p;
}

static void count_free(void *ptr, size_t size, void *user)
{
    counting *c = user;
    pthread_mutex_lock(&c->lock);
    c->live -= (long long)size;
    pthread_mutex_unlock(&c->lock);
    free(ptr);
}

/* A file that uses everything that allocates: names (more than the first event
 * block), colours, normals, texture coordinates, a concave polygon, a face with
 * more corners than the first corner block, and a tail without a newline. */
static char *rich_text(size_t *len)
{
    size_t cap = 1 << 16, n = 0;
    char *t = malloc(cap);
    for (int i = 0; i < 80; i++)
        n += (size_t)sprintf(t + n, "v %d %d 0 0.5 0.5 0.5\n", i % 9, i / 9);
    n += (size_t)sprintf(t + n, "v 0 0 0\nv 1 0.2 0\nv 2 0 0\nv 1 2 0\nvt 0 0\nvt 1 1\nvn 0 0 1\n");
    for (int i = 0; i < 40; i++)
        n += (size_t)sprintf(t + n, "g group%d\nusemtl mat%d\no obj%d\nf %d/1/1 %d/2/1 %d/1/1\n", i % 13, i % 5, i % 3,
                             1 + i, 2 + i, 10 + i);
    n += (size_t)sprintf(t + n, "f 81 82 83 84\nf");
    for (int i = 0; i < 70; i++) /* a 70-corner polygon along a circle-ish zigzag */
        n += (size_t)sprintf(t + n, " %d", 1 + (i % 2 ? i : 70 - i) % 80);
    n += (size_t)sprintf(t + n, "\nf 1 2 3");
    *len = n;
    return t;
}

static void run_until_success(const char *text, size_t len, uint32_t threads)
{
    counting c = {PTHREAD_MUTEX_INITIALIZER, 0, 0, 0, false};
    mq_allocator a = {count_alloc, count_free, &c};
    mq_obj_options o = mq_default_obj_options();
    o.allocator = &a;
    o.threads = threads;
    for (long fail_at = 1;; fail_at++) {
        c.allocs = 0;
        c.fail_at = fail_at;
        c.failed = false;
        mq_mesh *m = (mq_mesh *)1;
        mq_diag d;
        mq_status st = mq_obj_load_memory(text, len, "rich.obj", &o, &m, NULL, &d);
        if (st == MQ_OK) {
            assert_false(c.failed);
            assert_true(fail_at > 10);
            assert_true(mq_mesh_triangle_count(m) > 100);
            mq_mesh_destroy(m);
            assert_int_equal(c.live, 0);
            return;
        }
        if (st != MQ_ERR_OUT_OF_MEMORY || !c.failed)
            fail_msg("failing allocation %ld gave %s: %s", fail_at, mq_status_string(st), d.message);
        assert_null(m);
        assert_non_null(strstr(d.message, "out of memory"));
        if (c.live != 0)
            fail_msg("failing allocation %ld leaked %lld bytes", fail_at, c.live);
    }
}

static void every_allocation_failure_one_thread(void **state)
{
    (void)state;
    size_t len;
    char *text = rich_text(&len);
    run_until_success(text, len, 1);
    free(text);
}

static void every_allocation_failure_three_threads(void **state)
{
    (void)state;
    size_t len;
    char *text = rich_text(&len);
    run_until_success(text, len, 3);
    free(text);
}

typedef struct pipe_writer {
    int fd;
    const char *text;
    size_t len;
} pipe_writer;

static void *write_pipe(void *arg)
{
    pipe_writer *w = arg;
    for (size_t done = 0; done < w->len;) {
        ssize_t n = write(w->fd, w->text + done, w->len - done);
        if (n <= 0)
            break;
        done += (size_t)n;
    }
    close(w->fd);
    return NULL;
}

/* A path that cannot be mapped (a pipe, opened again through /proc/self/fd) is
 * read into a buffer from the allocator. The text fits the pipe's buffer, so the
 * writer never waits for a reader that gave up. */
static void reading_a_pipe_uses_the_allocator(void **state)
{
    (void)state;
    if (!mq_test_file_exists("/proc/self/fd/0"))
        skip();
    size_t len;
    char *text = rich_text(&len);
    assert_true(len < 16384);
    counting c = {PTHREAD_MUTEX_INITIALIZER, 0, 0, 0, false};
    mq_allocator a = {count_alloc, count_free, &c};
    mq_obj_options o = mq_default_obj_options();
    o.allocator = &a;
    for (long fail_at = 1; fail_at >= 0; fail_at--) { /* the first is the read buffer; 0: none fails */
        c.allocs = 0;
        c.fail_at = fail_at;
        int fds[2];
        assert_int_equal(pipe(fds), 0);
        pipe_writer w = {fds[1], text, len};
        pthread_t writer;
        assert_int_equal(pthread_create(&writer, NULL, write_pipe, &w), 0);
        char path[64];
        snprintf(path, sizeof path, "/proc/self/fd/%d", fds[0]);
        mq_mesh *m;
        mq_diag d;
        mq_status st = mq_obj_load(path, &o, &m, NULL, &d);
        pthread_join(writer, NULL);
        close(fds[0]);
        if (fail_at == 1) {
            assert_int_equal(st, MQ_ERR_OUT_OF_MEMORY);
        } else {
            assert_int_equal(st, MQ_OK);
            assert_true(mq_mesh_triangle_count(m) > 100);
            mq_mesh_destroy(m);
        }
        assert_int_equal(c.live, 0);
    }
    free(text);
}

static void mesh_create_allocation_failures(void **state)
{
    (void)state;
    const float pos[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
    const uint32_t idx[3] = {0, 1, 2};
    counting c = {PTHREAD_MUTEX_INITIALIZER, 0, 0, 0, false};
    mq_allocator a = {count_alloc, count_free, &c};
    for (long fail_at = 1;; fail_at++) {
        c.allocs = 0;
        c.fail_at = fail_at;
        c.failed = false;
        mq_mesh *m;
        mq_diag d;
        mq_status st = mq_mesh_create(pos, 3, idx, 1, &a, &m, &d);
        if (st == MQ_OK) {
            mq_mesh_destroy(m);
            assert_int_equal(c.live, 0);
            break;
        }
        assert_int_equal(st, MQ_ERR_OUT_OF_MEMORY);
        assert_int_equal(c.live, 0);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_allocation_failure_one_thread),
        cmocka_unit_test(every_allocation_failure_three_threads),
        cmocka_unit_test(reading_a_pipe_uses_the_allocator),
        cmocka_unit_test(mesh_create_allocation_failures),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
