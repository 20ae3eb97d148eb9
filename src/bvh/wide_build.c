/* Direct top-down 8-wide SAH construction, subtrees in parallel (see wide_build.h). */
#include <math.h>
#include "bvh/wide_build.h"

#include <pthread.h>
#include <stdatomic.h>

#include "core/alloc.h"
#include "core/pool.h"

/* Exact sweep scratch lives on each worker's stack: at most this many refs. */
#define MQ_SWEEP_MAX 4096u
/* Below this depth the SAH decides; from here on splits are object medians,
 * which halve the refs per level and so bound the depth (MQ_BVH_MAX_DEPTH). */
#define MQ_MEDIAN_DEPTH (MQ_BVH_MAX_DEPTH - 30)
#if defined(__GNUC__)
#define MQ_NOINLINE __attribute__((noinline))
#else
#define MQ_NOINLINE
#endif

/* Subtrees with at least this many refs become tasks for other threads. */
#define MQ_SPAWN_MIN 256u
/* The top node's items of at least this many refs (and fewer than
 * MQ_SHARED_SPLIT_MIN) are split ahead of their turn, several at once
 * (open_ahead). */
#define MQ_AHEAD_MIN 1024u
/* The top node's splits of at least this many refs share their binning over
 * the threads (mq_sah_find_binned_shared). */
#define MQ_SHARED_SPLIT_MIN 4096u

/* A child being formed: a range, its split once computed, whether it is
 * final as a leaf, and whether it was split ahead of its turn (open_ahead):
 * 0, or 1 + the index of its two sides in builder.ahead. Small: build_node
 * keeps eight, and the one-thread build copies them at every split. */
typedef struct item {
    mq_build_range r;
    mq_split split;
    bool has_split;
    bool leaf;
    uint8_t ahead;
} item;

typedef struct build_task {
    item it;
    int depth;
    mq_bnode *parent;
    int slot;
} build_task;

typedef struct builder {
    mq_prim_ref *refs;
    const mq_build_params *p;
    const mq_allocator *alloc;
    mq_wide_tree *tree;
    pthread_mutex_t lock;
    pthread_cond_t wake;
    build_task *tasks;
    uint32_t task_count;
    uint32_t pending;   /* queued + running tasks */
    atomic_bool failed; /* set under the lock; build_node also reads it outside */
    /* The sides of the top node's items split ahead of their turn. A node
     * makes at most 2 * (MQ_BVH_WIDTH - 1) items besides its first. */
    mq_build_range ahead[2 * MQ_BVH_WIDTH][2];
    uint32_t ahead_count;
} builder;

typedef struct thread_ctx {
    builder *b;
    uint32_t split_threads; /* > 1: the top node, binning shared over that many threads */
    mq_bnode *chunk;
    uint32_t chunk_base, next, end;
    mq_sah_scratch scratch;
    float scratch_mem[MQ_SWEEP_MAX];
} thread_ctx;

static bool grab_chunk(thread_ctx *c)
{
    builder *b = c->b;
    mq_wide_tree *t = b->tree;
    bool ok = false;
    pthread_mutex_lock(&b->lock);
    if (t->chunk_count == t->chunk_capacity) {
        uint32_t cap = t->chunk_capacity ? 2 * t->chunk_capacity : 16;
        mq_bnode **grown = mq_realloc(b->alloc, t->chunks, t->chunk_capacity * sizeof *grown, cap * sizeof *grown, 16);
        if (grown) {
            t->chunks = grown;
            t->chunk_capacity = cap;
        }
    }
    if (t->chunk_count < t->chunk_capacity) {
        mq_bnode *chunk = mq_alloc(b->alloc, MQ_BNODE_CHUNK * sizeof *chunk, MQ_CACHE_LINE);
        if (chunk) {
            c->chunk = chunk;
            c->chunk_base = t->chunk_count * MQ_BNODE_CHUNK;
            c->next = 0;
            c->end = MQ_BNODE_CHUNK;
            t->chunks[t->chunk_count++] = chunk;
            ok = true;
        }
    }
    if (!ok)
        atomic_store_explicit(&b->failed, true, memory_order_relaxed);
    pthread_mutex_unlock(&b->lock);
    return ok;
}

/* A fresh node (all slots empty) and its id; NULL when out of memory. */
static mq_bnode *new_node(thread_ctx *c, uint32_t *id)
{
    if (c->next == c->end && !grab_chunk(c))
        return NULL;
    *id = c->chunk_base + c->next;
    mq_bnode *n = &c->chunk[c->next++];
    for (int i = 0; i < MQ_BVH_WIDTH; i++) {
        mq_bounds_empty(&n->box[i]);
        n->child[i] = MQ_REF_EMPTY;
        n->count[i] = 0;
    }
    n->n = 0;
    return n;
}

static mq_split find_split(thread_ctx *c, const mq_build_range *r)
{
    const mq_build_params *p = c->b->p;
    uint32_t n = r->end - r->begin;
    if (n <= p->sweep_below)
        return mq_sah_find_sorted(c->b->refs, r, &c->scratch);
    if (c->split_threads > 1 && n >= MQ_SHARED_SPLIT_MIN)
        return mq_sah_find_binned_shared(c->b->refs, r, p->bins, c->split_threads);
    return mq_sah_find_binned(c->b->refs, r, p->bins);
}

static void find_item_split(thread_ctx *c, item *it, int depth)
{
    if (depth >= MQ_MEDIAN_DEPTH)
        it->split = (mq_split){MQ_SPLIT_NONE, 0, 0, 0.0f, 0.0f, INFINITY};
    else
        it->split = find_split(c, &it->r);
    it->has_split = true;
}

/* The two sides of `it` by its split. A split that leaves a side empty makes
 * no progress (it happens when overflowing coordinates put inf/NaN into the
 * centroid bounds): then the object median, which always halves n >= 2. */
static void split_item(thread_ctx *c, const item *it, mq_build_range side[2])
{
    if (it->ahead) {
        side[0] = c->b->ahead[it->ahead - 1][0];
        side[1] = c->b->ahead[it->ahead - 1][1];
        return;
    }
    mq_sah_partition(c->b->refs, &it->r, &it->split, &side[0], &side[1]);
    if (side[0].begin == side[0].end || side[1].begin == side[1].end) {
        const mq_split median = {MQ_SPLIT_NONE, 0, 0, 0.0f, 0.0f, INFINITY};
        mq_sah_partition(c->b->refs, &it->r, &median, &side[0], &side[1]);
    }
}

/* Decides whether `it` is a leaf, computing (and keeping) its split when needed. */
static bool decide_leaf(thread_ctx *c, item *it, int depth)
{
    const mq_build_params *p = c->b->p;
    uint32_t n = it->r.end - it->r.begin;
    if (n <= 1)
        return true;
    /* One block and a node step costing at least a block test: a split
     * (trav * A + A_L * 1 + A_R * 1 >= A) can never beat the leaf (A * 1). */
    if (n <= p->max_leaf && n <= MQ_TRI_BLOCK && p->trav_cost >= 1.0f)
        return true;
    if (!it->has_split)
        find_item_split(c, it, depth);
    if (n > p->max_leaf)
        return false;
    if (it->split.kind == MQ_SPLIT_NONE)
        return true; /* identical centroids (or the depth guard) and it fits: keep it whole */
    float area = mq_bounds_half_area(&it->r.box);
    float leaf_cost = area * (float)mq_sah_blocks(n);
    return leaf_cost <= p->trav_cost * area + it->split.cost;
}

/* Index of the non-final item with the largest box, or -1. */
static int largest_open(const item *items, int count)
{
    int best = -1;
    float best_area = -1.0f;
    for (int i = 0; i < count; i++) {
        float a = mq_bounds_half_area(&items[i].r.box);
        /* Boxes spanning more than FLT_MAX give inf*0 = NaN: treat them as the
         * largest, so every non-final item gets opened (a node must never end up
         * with its own range as its only child, which would recurse forever). */
        if (isnan(a))
            a = INFINITY;
        if (!items[i].leaf && a > best_area) {
            best_area = a;
            best = i;
        }
    }
    return best;
}

typedef struct ahead_job {
    builder *b;
    item *it[MQ_BVH_WIDTH];
    uint32_t slot[MQ_BVH_WIDTH]; /* where in b->ahead each item's sides go */
    uint32_t count;
    atomic_uint next; /* the next item to split */
    int depth;
} ahead_job;

/* Splits the job's items not yet taken, one at a time, on this thread. */
static void open_items(void *arg, uint32_t index)
{
    (void)index;
    ahead_job *j = arg;
    thread_ctx c = {.b = j->b, .split_threads = 1};
    c.scratch = (mq_sah_scratch){c.scratch_mem, MQ_SWEEP_MAX};
    for (uint32_t k; (k = atomic_fetch_add_explicit(&j->next, 1, memory_order_relaxed)) < j->count;) {
        item *it = j->it[k];
        if (!it->has_split)
            find_item_split(&c, it, j->depth);
        mq_build_range side[2];
        split_item(&c, it, side);
        j->b->ahead[j->slot[k]][0] = side[0];
        j->b->ahead[j->slot[k]][1] = side[1];
    }
}

/*
 * The top node is built on one thread while the others wait for its
 * subtrees. Its splits of MQ_SHARED_SPLIT_MIN refs or more share their
 * binning over the threads; the smaller items of MQ_AHEAD_MIN or more are
 * split on threads of their own, all of them at once. An item of more refs
 * than a leaf holds is split whatever happens, here or first thing in its own
 * subtree, by the same split (it depends only on the item's refs, and on
 * the depth once past MQ_MEDIAN_DEPTH, far below the top node) and into the
 * same order of refs (partitioning touches only its range): so splitting it
 * ahead of its turn leaves the tree the one a single thread builds. Larger
 * items keep the shared binning: split whole side by side, they measured
 * slower (docs/performance.md).
 */
static void open_ahead(thread_ctx *c, item *items, int count, int depth)
{
    builder *b = c->b;
    if (depth + 1 >= MQ_MEDIAN_DEPTH)
        return;
    ahead_job j = {.b = b, .depth = depth};
    uint32_t n = 0;
    for (int i = 0; i < count; i++) {
        uint32_t refs = items[i].r.end - items[i].r.begin;
        if (!items[i].leaf && !items[i].ahead && refs > b->p->max_leaf && refs >= MQ_AHEAD_MIN &&
            refs < MQ_SHARED_SPLIT_MIN && b->ahead_count + n < 2 * MQ_BVH_WIDTH) {
            j.it[n] = &items[i];
            j.slot[n] = b->ahead_count + n;
            n++;
        }
    }
    if (n < 2)
        return;
    j.count = n;
    atomic_init(&j.next, 0);
    mq_run_parallel(n < c->split_threads ? n : c->split_threads, open_items, &j);
    for (uint32_t k = 0; k < n; k++)
        j.it[k]->ahead = (uint8_t)(j.slot[k] + 1);
    b->ahead_count += n;
}

/* Opens `items` (starting with one) up to MQ_BVH_WIDTH children; returns the count. */
static int open_children(thread_ctx *c, item *items, int depth)
{
    int count = 1;
    while (count < MQ_BVH_WIDTH) {
        int i = largest_open(items, count);
        if (i < 0)
            break;
        if (decide_leaf(c, &items[i], depth)) {
            items[i].leaf = true;
            continue;
        }
        mq_build_range side[2];
        split_item(c, &items[i], side);
        items[i] = (item){.r = side[0]};
        items[count++] = (item){.r = side[1]};
        if (c->split_threads > 1 && count < MQ_BVH_WIDTH)
            open_ahead(c, items, count, depth);
    }
    return count;
}

static void push_task(builder *b, const item *it, int depth, mq_bnode *parent, int slot)
{
    pthread_mutex_lock(&b->lock);
    b->tasks[b->task_count++] = (build_task){*it, depth, parent, slot};
    b->pending++;
    pthread_cond_signal(&b->wake);
    pthread_mutex_unlock(&b->lock);
}

static uint32_t build_node(thread_ctx *c, const item *first, int depth);

static void fill_child(thread_ctx *c, mq_bnode *node, int slot, item *it, int depth)
{
    builder *b = c->b;
    node->box[slot] = it->r.box;
    uint32_t n = it->r.end - it->r.begin;
    bool task = b->p->threads > 1 && n >= MQ_SPAWN_MIN && n > b->p->max_leaf;
    if (task && !it->leaf) {
        push_task(b, it, depth + 1, node, slot); /* with its split and sides if found already */
    } else if (it->leaf || decide_leaf(c, it, depth + 1)) {
        node->child[slot] = it->r.begin;
        node->count[slot] = n;
    } else {
        node->child[slot] = build_node(c, it, depth + 1);
    }
}

static uint32_t build_node(thread_ctx *c, const item *first, int depth)
{
    uint32_t id;
    mq_bnode *node = new_node(c, &id);
    if (!node)
        return MQ_REF_EMPTY;
    item items[MQ_BVH_WIDTH];
    items[0] = *first;
    items[0].leaf = false;
    int count = open_children(c, items, depth);
    node->n = (uint32_t)count;
    for (int i = 0; i < count && !atomic_load_explicit(&c->b->failed, memory_order_relaxed); i++)
        fill_child(c, node, i, &items[i], depth);
    return id;
}

static void run_task(thread_ctx *c, build_task *t)
{
    uint32_t id = build_node(c, &t->it, t->depth);
    if (t->parent)
        t->parent->child[t->slot] = id;
    else
        c->b->tree->root = id;
}

static void worker(void *arg, uint32_t index)
{
    (void)index;
    thread_ctx c = {.b = arg};
    c.scratch = (mq_sah_scratch){c.scratch_mem, MQ_SWEEP_MAX};
    builder *b = c.b;
    pthread_mutex_lock(&b->lock);
    for (;;) {
        if (b->task_count > 0) {
            build_task t = b->tasks[--b->task_count];
            bool skip = atomic_load_explicit(&b->failed, memory_order_relaxed);
            pthread_mutex_unlock(&b->lock);
            if (!skip)
                run_task(&c, &t);
            pthread_mutex_lock(&b->lock);
            if (--b->pending == 0)
                pthread_cond_broadcast(&b->wake);
            continue;
        }
        if (b->pending == 0)
            break;
        pthread_cond_wait(&b->wake, &b->lock);
    }
    pthread_mutex_unlock(&b->lock);
}

void mq_wide_tree_free(mq_wide_tree *t, const mq_allocator *alloc)
{
    for (uint32_t i = 0; i < t->chunk_count; i++)
        mq_free(alloc, t->chunks[i], MQ_BNODE_CHUNK * sizeof(mq_bnode));
    mq_free(alloc, t->chunks, t->chunk_capacity * sizeof *t->chunks);
    *t = (mq_wide_tree){0};
}

/* The top node on this thread while nothing else runs, the binning of its
 * large splits shared over the threads; its large children are queued as
 * tasks for the workers. Out of line, so that its context (16 KB) is off this
 * thread's stack when it then works as one of them. */
static MQ_NOINLINE void build_top(builder *b, const mq_build_range *all)
{
    thread_ctx c = {.b = b, .split_threads = b->p->threads};
    c.scratch = (mq_sah_scratch){c.scratch_mem, MQ_SWEEP_MAX};
    build_task root = {.it = {.r = *all}};
    run_task(&c, &root);
}

mq_status mq_wide_build(mq_prim_ref *refs, const mq_build_range *all, const mq_build_params *p,
                        const mq_allocator *alloc, mq_wide_tree *out)
{
    *out = (mq_wide_tree){0};
    uint32_t n = all->end - all->begin;
    uint32_t task_capacity = n / MQ_SPAWN_MIN + 2;
    builder b = {.refs = refs, .p = p, .alloc = alloc, .tree = out};
    atomic_init(&b.failed, false);
    b.tasks = mq_alloc(alloc, task_capacity * sizeof *b.tasks, 16);
    if (!b.tasks)
        return MQ_ERR_OUT_OF_MEMORY;
    pthread_mutex_init(&b.lock, NULL);
    pthread_cond_init(&b.wake, NULL);
    if (p->threads > 1) {
        build_top(&b, all);
    } else {
        b.tasks[b.task_count++] = (build_task){.it = {.r = *all}};
        b.pending = 1;
    }
    if (b.pending > 0)
        mq_run_parallel(p->threads, worker, &b);
    pthread_cond_destroy(&b.wake);
    pthread_mutex_destroy(&b.lock);
    mq_free(alloc, b.tasks, task_capacity * sizeof *b.tasks);
    if (atomic_load_explicit(&b.failed, memory_order_relaxed)) {
        mq_wide_tree_free(out, alloc);
        return MQ_ERR_OUT_OF_MEMORY;
    }
    return MQ_OK;
}
