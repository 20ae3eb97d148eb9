/*
 * Clash detection over a scene (clash.h): the candidate pairs from the
 * self-join of the top-level tree (tlas/tlas_selfjoin.c), filtered on the
 * calling thread and sorted, then one distance walk per candidate on the
 * pool, each candidate's answer written to its own slot: the result is the
 * same for any thread count. With triangle pairs asked for, a second parallel
 * pass counts each clash's pairs (up to the cap), and a third fills them at
 * their prefix-sum offsets.
 */
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>

#include <meshquery/clash.h>

#include "core/alloc.h"
#include "core/diag.h"
#include "core/pool.h"
#include "scene/scene_distance.h"
#include "scene/tlas/tlas_selfjoin.h"

struct mq_clash_list {
    mq_allocator alloc;
    bool has_alloc;
    mq_clash *clashes;
    size_t count, clash_bytes;
    mq_clash_tri_pair *pairs;
    size_t pair_total;
    size_t *first; /* clash i's pairs start at pairs[first[i]] */
};

mq_clash_options mq_default_clash_options(void)
{
    mq_clash_options o;
    o.clearance = 0.0;
    o.mask = 0xFFFFFFFFu;
    o.threads = 0;
    o.max_triangle_pairs = 0;
    o.filter = NULL;
    o.filter_user = NULL;
    return o;
}

/* ---- candidates ---- */

typedef struct cand {
    uint32_t a, b;
} cand;

typedef struct cand_sink {
    const mq_allocator *alloc;
    const mq_clash_options *opts;
    cand *v;
    size_t n, cap;
    bool oom;
} cand_sink;

static bool add_cand(const mq_instance_rec *a, const mq_instance_rec *b, void *user)
{
    cand_sink *s = user;
    if (s->opts->filter && !s->opts->filter(a->id, b->id, s->opts->filter_user))
        return true;
    if (s->n == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 256, bytes;
        if (!mq_mul_size(cap, sizeof(cand), &bytes)) {
            s->oom = true;
            return false;
        }
        cand *v = mq_realloc(s->alloc, s->v, s->cap * sizeof(cand), bytes, _Alignof(cand));
        if (!v) {
            s->oom = true;
            return false;
        }
        s->v = v;
        s->cap = cap;
    }
    s->v[s->n++] = (cand){a->id, b->id};
    return true;
}

static int cmp_cand(const void *x, const void *y)
{
    const cand *p = x, *q = y;
    if (p->a != q->a)
        return p->a < q->a ? -1 : 1;
    return p->b < q->b ? -1 : p->b > q->b;
}

/* ---- the parallel passes ---- */

#define MQ_CLASH_CHUNK 8

typedef struct clash_job {
    const mq_scene *s;
    const cand *c;
    size_t n;
    double d;
    size_t cap;
    mq_instance_distance *dist; /* per candidate */
    bool *hit;                  /* per candidate */
    size_t *count;              /* per candidate: pairs within d, up to cap (pass 2) */
    size_t *first;              /* per candidate: where its pairs go (pass 3) */
    mq_clash_tri_pair *pairs;   /* pass 3 */
    int pass;
    atomic_size_t next;
} clash_job;

typedef struct pair_collect {
    size_t n, cap;
    mq_clash_tri_pair *out; /* NULL: count only */
} pair_collect;

static bool on_pair(const mq_dist_pair *p, void *user)
{
    pair_collect *c = user;
    if (c->out)
        c->out[c->n] = (mq_clash_tri_pair){p->triangle_a, p->triangle_b, p->distance};
    c->n++;
    return c->n < c->cap;
}

static void run_one(clash_job *j, size_t i)
{
    const mq_instance_rec *a = mq_scene_record(j->s, j->c[i].a), *b = mq_scene_record(j->s, j->c[i].b);
    if (j->pass == 1) {
        j->hit[i] = mq_inst_distance(a, b, j->d, &j->dist[i]);
        return;
    }
    if (!j->hit[i])
        return;
    mq_dist_side sa, sb;
    double shift[3];
    mq_inst_dist_sides(a, b, &sa, &sb, shift);
    pair_collect pc = {0, j->cap, j->pass == 3 ? j->pairs + j->first[i] : NULL};
    mq_dist_walk_within(&sa, &sb, j->d, on_pair, &pc);
    if (j->pass == 2)
        j->count[i] = pc.n;
}

static void worker(void *arg, uint32_t index)
{
    (void)index;
    clash_job *j = arg;
    for (;;) {
        size_t first = atomic_fetch_add_explicit(&j->next, MQ_CLASH_CHUNK, memory_order_relaxed);
        if (first >= j->n)
            return;
        size_t end = first + MQ_CLASH_CHUNK < j->n ? first + MQ_CLASH_CHUNK : j->n;
        for (size_t i = first; i < end; i++)
            run_one(j, i);
    }
}

static void run_pass(clash_job *j, int pass, uint32_t threads)
{
    j->pass = pass;
    atomic_store_explicit(&j->next, 0, memory_order_relaxed);
    size_t chunks = (j->n + MQ_CLASH_CHUNK - 1) / MQ_CLASH_CHUNK;
    uint32_t t = chunks < threads ? (uint32_t)chunks : threads;
    mq_run_parallel(t ? t : 1, worker, j);
}

/* ---- the list ---- */

static void list_free(mq_clash_list *l)
{
    if (!l)
        return;
    const mq_allocator *a = l->has_alloc ? &l->alloc : NULL;
    mq_free(a, l->clashes, l->count * sizeof(mq_clash));
    mq_free(a, l->pairs, l->pair_total * sizeof(mq_clash_tri_pair));
    mq_free(a, l->first, l->count * sizeof(size_t));
    mq_free(a, l, sizeof *l);
}

void mq_clash_list_destroy(mq_clash_list *list)
{
    list_free(list);
}

size_t mq_clash_list_count(const mq_clash_list *list)
{
    return list ? list->count : 0;
}

const mq_clash *mq_clash_list_get(const mq_clash_list *list, size_t i)
{
    return list && i < list->count ? &list->clashes[i] : NULL;
}

const mq_clash_tri_pair *mq_clash_list_pairs(const mq_clash_list *list, size_t i, size_t *count)
{
    if (count)
        *count = 0;
    if (!list || i >= list->count || list->clashes[i].pair_count == 0)
        return NULL;
    if (count)
        *count = list->clashes[i].pair_count;
    return list->pairs + list->first[i];
}

/* Allocates n elements of `size` (none for n == 0); false on failure. */
static bool alloc_n(const mq_allocator *a, size_t n, size_t size, size_t align, void **out)
{
    *out = NULL;
    if (n == 0)
        return true;
    size_t bytes;
    if (!mq_mul_size(n, size, &bytes))
        return false;
    *out = mq_alloc(a, bytes, align);
    return *out != NULL;
}

mq_status mq_scene_clash(const mq_scene *scene, const mq_clash_options *opts, mq_clash_list **out, mq_diag *diag)
{
    if (out)
        *out = NULL;
    mq_clash_options o = opts ? *opts : mq_default_clash_options();
    if (!scene || !out || !(o.clearance >= 0.0) || !isfinite(o.clearance))
        return mq_diag_set(diag, MQ_ERR_INVALID_ARG, NULL, 0, 0, "mq_scene_clash: %s",
                           !scene || !out ? "NULL scene or out" : "the clearance must be finite and >= 0");
    const mq_allocator *alloc = mq_scene_allocator(scene);
    mq_status st = MQ_ERR_OUT_OF_MEMORY;
    cand_sink cs = {alloc, &o, NULL, 0, 0, false};
    clash_job *j = NULL;
    mq_clash_list *l = mq_alloc_zero(alloc, sizeof *l, _Alignof(mq_clash_list));
    if (!l)
        goto fail;
    l->has_alloc = alloc != NULL;
    if (alloc)
        l->alloc = *alloc;

    mq_tlas_self_join(scene, o.clearance, o.mask, add_cand, &cs);
    if (cs.oom)
        goto fail;
    if (cs.n > 1)
        qsort(cs.v, cs.n, sizeof *cs.v, cmp_cand);

    j = mq_alloc_zero(alloc, sizeof *j, _Alignof(clash_job));
    if (!j)
        goto fail;
    j->s = scene;
    j->c = cs.v;
    j->n = cs.n;
    j->d = o.clearance;
    j->cap = o.max_triangle_pairs;
    if (!alloc_n(alloc, cs.n, sizeof(mq_instance_distance), _Alignof(mq_instance_distance), (void **)&j->dist) ||
        !alloc_n(alloc, cs.n, sizeof(bool), _Alignof(bool), (void **)&j->hit))
        goto fail;
    uint32_t threads = mq_thread_count(o.threads);
    run_pass(j, 1, threads);

    size_t hits = 0;
    for (size_t i = 0; i < cs.n; i++)
        hits += j->hit[i];
    l->count = hits; /* the sizes list_free frees with */
    if (!alloc_n(alloc, hits, sizeof(mq_clash), _Alignof(mq_clash), (void **)&l->clashes) ||
        !alloc_n(alloc, hits, sizeof(size_t), _Alignof(size_t), (void **)&l->first))
        goto fail;
    if (j->cap > 0 && hits > 0) {
        if (!alloc_n(alloc, cs.n, sizeof(size_t), _Alignof(size_t), (void **)&j->count) ||
            !alloc_n(alloc, cs.n, sizeof(size_t), _Alignof(size_t), (void **)&j->first))
            goto fail;
        for (size_t i = 0; i < cs.n; i++)
            j->count[i] = 0;
        run_pass(j, 2, threads);
        size_t total = 0;
        for (size_t i = 0; i < cs.n; i++) {
            j->first[i] = total;
            total += j->count[i];
        }
        if (!alloc_n(alloc, total, sizeof(mq_clash_tri_pair), _Alignof(mq_clash_tri_pair), (void **)&l->pairs))
            goto fail;
        l->pair_total = total;
        j->pairs = l->pairs;
        run_pass(j, 3, threads);
    }
    for (size_t i = 0, k = 0; i < cs.n; i++) {
        if (!j->hit[i])
            continue;
        mq_clash *c = &l->clashes[k];
        const mq_instance_distance *d = &j->dist[i];
        c->instance_a = cs.v[i].a;
        c->instance_b = cs.v[i].b;
        c->distance = d->distance;
        c->triangle_a = d->triangle_a;
        c->triangle_b = d->triangle_b;
        for (int e = 0; e < 3; e++) {
            c->point_a[e] = d->point_a[e];
            c->point_b[e] = d->point_b[e];
        }
        c->pair_count = j->count ? j->count[i] : 0;
        l->first[k] = j->first ? j->first[i] : 0;
        k++;
    }
    st = MQ_OK;
fail:
    if (j) {
        mq_free(alloc, j->dist, cs.n * sizeof(mq_instance_distance));
        mq_free(alloc, j->hit, cs.n * sizeof(bool));
        mq_free(alloc, j->count, cs.n * sizeof(size_t));
        mq_free(alloc, j->first, cs.n * sizeof(size_t));
        mq_free(alloc, j, sizeof *j);
    }
    mq_free(alloc, cs.v, cs.cap * sizeof(cand));
    if (st != MQ_OK) {
        list_free(l);
        return mq_diag_set(diag, st, NULL, 0, 0, "mq_scene_clash: out of memory");
    }
    *out = l;
    return MQ_OK;
}
