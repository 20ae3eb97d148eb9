/*
 * Batches of rays on several threads (meshquery/bvh.h). Threads take chunks
 * of rays from a shared atomic counter. Over trees larger than a core's L2
 * cache, a chunk is traced as a stream (eight interleaved traversals,
 * traverse_loop.h), which overlaps their cache misses; over smaller trees the
 * misses are few and the interleaving costs more in mispredicted branches than
 * it saves, so rays go one by one there (closest hits without a filter or
 * stats through the single-ray call's fused preparation and trace). Each
 * ray's answer is its single-ray answer either way, so the output depends
 * neither on the thread count nor on the schedule.
 *
 * With AVX2, closest-hit chunks first go to the packet kernel straight from
 * the caller's rays (packet8_avx2.c): each group of 8 consecutive rays that
 * shares a direction octant and a dominant axis (camera tiles, bundles) is
 * prepared in vector registers, traced as one packet and its hit records
 * written there. Over small trees, the closest-hit rays it leaves take the
 * single-ray call's path (above). Otherwise the rays it leaves, and any-hit
 * batches, are prepared 8 at a time (ray_prep_avx2.c) where all 8 are on
 * mq_trace_prepare's common path, else one by one, and traced as above; the
 * answers are those of single rays, bit for bit. The other rays' hit records
 * are written four at a time where the kernel set can (mq_hit_queue: the
 * packets' double refinement, the same bits), as four are pending and the
 * rest at the chunk's end.
 */
#include <pthread.h>
#include <stdatomic.h>

#include "core/pool.h"
#include "bvh/kernels/hit_record.h"
#include "bvh/kernels/trace.h"

#define MQ_BATCH_CHUNK 128
/* Coherent packets are interleaved only over trees beyond the last-level
 * cache: packets share their nodes, so over smaller trees they mostly hit the
 * caches already and interleaving only adds work. */
#define MQ_PACKET_INTERLEAVE_MIN_BYTES (32u << 20)
/* Rays per thread below which starting another thread is not worth it. */
#define MQ_BATCH_MIN_PER_THREAD 1024

typedef struct batch {
    const mq_bvh *bvh;
    const mq_ray *rays;   /* the rays as records, or NULL: */
    const float *origins; /* the rays as two N x 3 arrays sharing tmin and tmax */
    const float *dirs;
    float tmin, tmax;
    size_t count;
    const mq_ray_query *query;
    mq_hit *hits;   /* closest */
    bool *occluded; /* any */
    atomic_size_t next;
    atomic_size_t hit_count;
    pthread_mutex_t lock; /* guards the user's stats */
} batch;

/* Per-thread state: the chunk's prepared queries and their answers. */
typedef struct chunk_work {
    mq_trace q[MQ_BATCH_CHUNK];
    mq_best best[MQ_BATCH_CHUNK];
    bool hit[MQ_BATCH_CHUNK];
    size_t ray[MQ_BATCH_CHUNK];               /* index of the ray of q[j] */
    const mq_trace *packet_q[MQ_BATCH_CHUNK]; /* queries grouped in packets of 8 */
    mq_best *packet_best[MQ_BATCH_CHUNK];
    size_t packet_index[MQ_BATCH_CHUNK];
    size_t rest_index[MQ_BATCH_CHUNK]; /* queries left for the stream */
    mq_hit_queue records;              /* of the chunk's hits, flushed at its end */
    mq_trace_counts counts;
} chunk_work;

static void add_stats(batch *b, const mq_trace_counts *c)
{
    if (!b->query || !b->query->stats)
        return;
    pthread_mutex_lock(&b->lock);
    b->query->stats->node_visits += c->nodes;
    b->query->stats->leaf_visits += c->leaves;
    b->query->stats->triangle_tests += c->blocks * MQ_TRI_BLOCK;
    pthread_mutex_unlock(&b->lock);
}

/* Writes query j's answer (from the chunk's arrays) to the batch's outputs. */
static inline __attribute__((always_inline)) size_t finish_ray(batch *b, chunk_work *w, size_t j, bool any)
{
    size_t i = w->ray[j];
    bool h = any ? w->hit[j] : w->best[j].id != MQ_NO_TRIANGLE;
    if (any)
        b->occluded[i] = h;
    else if (h)
        mq_hit_queue_push(&w->records, w->q[j].user_ray, w->q[j].ray.t_shift, &w->best[j], &b->hits[i]);
    else
        mq_hit_miss(&b->hits[i]);
    return h;
}

/* Coherent groups of 8 consecutive queries go through the packet kernel;
 * returns how many queries remain, compacted to the front for the stream. */
static size_t trace_packets(const mq_kernels *k, batch *b, chunk_work *w, size_t n, bool interleave, size_t *hits)
{
    if (b->occluded || (b->query && b->query->filter))
        return n;
    size_t rest = 0, packed = 0;
    for (size_t j = 0; j < n; j += 8) {
        size_t m = n - j < 8 ? n - j : 8;
        const mq_trace *group[8];
        for (size_t l = 0; l < m; l++)
            group[l] = &w->q[j + l];
        if (m == 8 && mq_packet8_coherent(group)) {
            for (size_t l = 0; l < 8; l++) {
                w->packet_q[packed + l] = &w->q[j + l];
                w->packet_best[packed + l] = &w->best[j + l];
                w->packet_index[packed + l] = j + l;
            }
            packed += 8;
            continue;
        }
        w->rest_index[rest++] = j;
        for (size_t l = 1; l < m; l++)
            w->rest_index[rest++] = j + l;
    }
    if (!packed)
        return n;
    k->packet8(w->packet_q, w->packet_best, packed / 8, interleave, &w->counts);
    for (size_t l = 0; l < packed; l++)
        *hits += finish_ray(b, w, w->packet_index[l], false);
    /* Compact the remaining queries to the front (indices only grow). */
    for (size_t r = 0; r < rest; r++) {
        size_t j = w->rest_index[r];
        if (j != r) {
            w->q[r] = w->q[j];
            w->best[r] = w->best[j];
            w->ray[r] = w->ray[j];
        }
    }
    return rest;
}

/* Closest hits of the rays index[0..todo) (rays[] starts at ray `begin`),
 * without a filter or stats, over a tree too small for the stream: each
 * through the single-ray call's path (the kernel set's closest_valid,
 * preparation and trace in one function), not prepared into w->q first.
 * The hits wait in w->best (their rays in w->ray) until every ray is
 * traced, then their records are written four at a time: the records'
 * refinement then overlaps itself rather than the next traversal. Writes
 * the records (flushed) and returns how many hit. */
static size_t trace_singly(const mq_kernels *k, batch *b, chunk_work *w, const mq_ray *rays, size_t begin,
                           const size_t *index, size_t todo)
{
    bool cull = b->query && b->query->cull_back_faces;
    size_t hits = 0;
    int shift[MQ_BATCH_CHUNK];
    for (size_t r = 0; r < todo; r++) {
        size_t i = index[r];
        const mq_ray *ray = &rays[i - begin];
        mq_trace q;
        if (mq_trace_ray_ok(ray) && k->closest_valid(b->bvh, ray, cull, &q, &w->best[hits])) {
            shift[hits] = q.ray.t_shift;
            w->ray[hits++] = i;
        } else {
            mq_hit_miss(&b->hits[i]);
        }
    }
    for (size_t h = 0; h < hits; h++) {
        size_t i = w->ray[h];
        mq_hit_queue_push(&w->records, &rays[i - begin], shift[h], &w->best[h], &b->hits[i]);
    }
    mq_hit_queue_flush(&w->records);
    return hits;
}

/* Any-hit answers of the rays index[0..todo) (rays[] starts at ray
 * `begin`), without a filter or stats, over a tree too small for the stream:
 * each through the single-ray call's path (the kernel set's any_valid), as
 * trace_singly does for closest hits. Returns how many hit. */
static size_t any_singly(const mq_kernels *k, batch *b, const mq_ray *rays, size_t begin, const size_t *index,
                         size_t todo)
{
    bool cull = b->query && b->query->cull_back_faces;
    size_t hits = 0;
    for (size_t r = 0; r < todo; r++) {
        size_t i = index[r];
        const mq_ray *ray = &rays[i - begin];
        bool h = mq_trace_ray_ok(ray) && k->any_valid(b->bvh, ray, cull);
        b->occluded[i] = h;
        hits += h;
    }
    return hits;
}

/* Traces rays [begin, end); returns how many hit. Closest hits go through
 * the kernel's packets straight from the rays first, in groups of 8 (see
 * mq_kernels.packet8_rays); over small trees the rays it leaves, and any-hit
 * rays, go through trace_singly or any_singly when the query is plain;
 * otherwise they are prepared one by one and traced as packets of prepared
 * queries, a stream, or single rays. */
static size_t run_chunk(batch *b, chunk_work *w, const mq_ray *rays, size_t begin, size_t end)
{
    const mq_kernels *k = mq_kernels_active();
    bool any = b->occluded != NULL;
    bool stream = b->bvh->arena_bytes >= MQ_STREAM_MIN_BYTES;
    bool interleave = b->bvh->arena_bytes >= MQ_PACKET_INTERLEAVE_MIN_BYTES;
    size_t n = 0, hits = 0, todo = 0;
    size_t index[MQ_BATCH_CHUNK];
    mq_hit_queue_start(&w->records, b->bvh, k);
    if (!any && b->bvh->root != MQ_REF_EMPTY && !(b->query && b->query->filter)) {
        size_t groups = (end - begin) / 8;
        bool left[MQ_BATCH_CHUNK / 8];
        bool cull = b->query && b->query->cull_back_faces;
        hits += k->packet8_rays(b->bvh, rays, groups, cull, interleave, b->hits + begin, left, &w->counts);
        for (size_t g = 0; g < groups; g++)
            if (left[g])
                for (size_t l = 0; l < 8; l++)
                    index[todo++] = begin + 8 * g + l;
        for (size_t i = begin + 8 * groups; i < end; i++)
            index[todo++] = i;
    } else {
        for (size_t i = begin; i < end; i++)
            index[todo++] = i;
    }
    if (!stream && mq_ray_query_is_plain(b->query))
        return hits +
               (any ? any_singly(k, b, rays, begin, index, todo) : trace_singly(k, b, w, rays, begin, index, todo));
    for (size_t r = 0; r < todo;) {
        /* Eight at a time where the kernel set can and all eight are on the
         * common path (then its queries are mq_trace_prepare's). */
        size_t first = n;
        bool group = false;
        if (todo - r >= 8 && b->bvh->root != MQ_REF_EMPTY) {
            const mq_ray *rp[8];
            mq_trace *qp[8];
            for (size_t l = 0; l < 8; l++) {
                rp[l] = &rays[index[r + l] - begin];
                qp[l] = &w->q[n + l];
            }
            group = k->prepare8(qp, b->bvh, rp, b->query) == 0xFFu;
        }
        for (size_t l = 0, stop = r + (group ? 8 : 1); r < stop; r++, l++) {
            size_t i = index[r];
            mq_trace *q = &w->q[n];
            if (group) {
                if (n != first + l) /* an earlier lane ran on its own */
                    *q = w->q[first + l];
            } else if (!(b->bvh->root != MQ_REF_EMPTY && mq_trace_prepare(q, b->bvh, &rays[i - begin], b->query))) {
                /* invalid ray or empty tree: a miss */
                if (any)
                    b->occluded[i] = false;
                else
                    mq_hit_miss(&b->hits[i]);
                continue;
            }
            w->best[n] = mq_best_init(q->ray.tmax);
            w->ray[n] = i;
            if (mq_trace_tmin(q) >= 0.0f) {
                n++; /* for packets or the stream */
                continue;
            }
            bool h = any ? k->any(q, &w->counts) : k->closest(q, &w->best[n], &w->counts);
            w->hit[n] = h;
            hits += finish_ray(b, w, n, any);
        }
    }
    n = trace_packets(k, b, w, n, interleave, &hits);
    if (stream && n) {
        k->stream(w->q, w->best, any ? w->hit : NULL, n, &w->counts);
    } else {
        for (size_t j = 0; j < n; j++)
            w->hit[j] = any ? k->any(&w->q[j], &w->counts) : k->closest(&w->q[j], &w->best[j], &w->counts);
    }
    for (size_t j = 0; j < n; j++)
        hits += finish_ray(b, w, j, any);
    mq_hit_queue_flush(&w->records);
    return hits;
}

/* Rays [begin, end) as records: the caller's own, or gathered from the two
 * arrays into `local` (one chunk, which stays in the L1 cache while traced).
 * The next chunk's input is prefetched (a single thread takes it next): a
 * chunk of records is one 4 KiB page, where the hardware prefetchers stop. */
static const mq_ray *chunk_rays(const batch *b, mq_ray local[MQ_BATCH_CHUNK], size_t begin, size_t end)
{
    size_t pf_end = end + MQ_BATCH_CHUNK < b->count ? end + MQ_BATCH_CHUNK : b->count;
    if (b->rays) {
        for (size_t i = end; i < pf_end; i += 64 / sizeof(mq_ray))
            __builtin_prefetch(&b->rays[i]);
        return b->rays + begin;
    }
    for (size_t i = 3 * end; i < 3 * pf_end; i += 64 / sizeof(float)) {
        __builtin_prefetch(&b->origins[i]);
        __builtin_prefetch(&b->dirs[i]);
    }
    for (size_t i = begin; i < end; i++) {
        mq_ray *r = &local[i - begin];
        const float *o = &b->origins[3 * i], *d = &b->dirs[3 * i];
        *r = (mq_ray){{o[0], o[1], o[2]}, b->tmin, {d[0], d[1], d[2]}, b->tmax};
    }
    return local;
}

static void batch_worker(void *arg, uint32_t index)
{
    (void)index;
    batch *b = arg;
    mq_ray local[MQ_BATCH_CHUNK];
    chunk_work w;
    w.counts = (mq_trace_counts){0, 0, 0};
    size_t hits = 0;
    for (;;) {
        size_t begin = atomic_fetch_add(&b->next, MQ_BATCH_CHUNK);
        if (begin >= b->count)
            break;
        size_t end = begin + MQ_BATCH_CHUNK < b->count ? begin + MQ_BATCH_CHUNK : b->count;
        hits += run_chunk(b, &w, chunk_rays(b, local, begin, end), begin, end);
    }
    atomic_fetch_add(&b->hit_count, hits);
    add_stats(b, &w.counts);
}

static size_t run_batch(batch *b, uint32_t threads)
{
    uint32_t n = mq_thread_count(threads);
    size_t useful = b->count / MQ_BATCH_MIN_PER_THREAD + 1;
    if (n > useful)
        n = (uint32_t)useful;
    atomic_init(&b->next, 0);
    atomic_init(&b->hit_count, 0);
    pthread_mutex_init(&b->lock, NULL);
    mq_run_parallel(n, batch_worker, b);
    pthread_mutex_destroy(&b->lock);
    return atomic_load(&b->hit_count);
}

size_t mq_bvh_raycast_closest_batch(const mq_bvh *bvh, const mq_ray *rays, size_t count, const mq_ray_query *query,
                                    uint32_t threads, mq_hit *hits)
{
    if (!bvh || !rays || !hits || count == 0)
        return 0;
    batch b = {.bvh = bvh, .rays = rays, .count = count, .query = query, .hits = hits};
    return run_batch(&b, threads);
}

size_t mq_bvh_raycast_any_batch(const mq_bvh *bvh, const mq_ray *rays, size_t count, const mq_ray_query *query,
                                uint32_t threads, bool *occluded)
{
    if (!bvh || !rays || !occluded || count == 0)
        return 0;
    batch b = {.bvh = bvh, .rays = rays, .count = count, .query = query, .occluded = occluded};
    return run_batch(&b, threads);
}

size_t mq_bvh_raycast_closest_batch_arrays(const mq_bvh *bvh, const float *origins, const float *dirs, size_t count,
                                           float tmin, float tmax, const mq_ray_query *query, uint32_t threads,
                                           mq_hit *hits)
{
    if (!bvh || !origins || !dirs || !hits || count == 0)
        return 0;
    batch b = {.bvh = bvh,
               .origins = origins,
               .dirs = dirs,
               .tmin = tmin,
               .tmax = tmax,
               .count = count,
               .query = query,
               .hits = hits};
    return run_batch(&b, threads);
}

size_t mq_bvh_raycast_any_batch_arrays(const mq_bvh *bvh, const float *origins, const float *dirs, size_t count,
                                       float tmin, float tmax, const mq_ray_query *query, uint32_t threads,
                                       bool *occluded)
{
    if (!bvh || !origins || !dirs || !occluded || count == 0)
        return 0;
    batch b = {.bvh = bvh,
               .origins = origins,
               .dirs = dirs,
               .tmin = tmin,
               .tmax = tmax,
               .count = count,
               .query = query,
               .occluded = occluded};
    return run_batch(&b, threads);
}
