/*
 * Pass 3 of the OBJ reader: faces with more than 3 corners were written as fans
 * by the parse pass; here each is tested for convexity with every position in
 * place, and the concave ones are re-cut (triangulate.c) into the same n-2
 * triangle slots. The corners are read back from the fan itself:
 * (c0,c1,c2), (c0,c2,c3), ... holds c0, c1, then c(k+2) as triangle k's third.
 */
#include <stdatomic.h>
#include <string.h>

#include "core/alloc.h"
#include "core/diag.h"
#include "obj/obj_internal.h"
#include "obj/triangulate.h"

typedef struct polygon_job {
    obj_load *load;
    size_t per_task;
    atomic_uint_fast64_t concave;
    atomic_bool out_of_memory;
} polygon_job;

/* Per-task buffers: the corners of one polygon in each index array, and the cut. */
typedef struct polygon_buffers {
    const mq_allocator *alloc;
    uint32_t capacity;
    uint32_t *v, *vt, *vn, *cut;
    mq_tri_scratch tri;
} polygon_buffers;

static void buffers_free(polygon_buffers *b)
{
    size_t n = b->capacity;
    mq_free(b->alloc, b->v, n * sizeof(uint32_t));
    mq_free(b->alloc, b->vt, n * sizeof(uint32_t));
    mq_free(b->alloc, b->vn, n * sizeof(uint32_t));
    mq_free(b->alloc, b->cut, 3 * n * sizeof(uint32_t));
    mq_tri_scratch_free(&b->tri);
    b->v = b->vt = b->vn = b->cut = NULL;
    b->capacity = 0;
}

static bool buffers_reserve(polygon_buffers *b, uint32_t n)
{
    if (n <= b->capacity)
        return true;
    uint64_t cap = b->capacity ? b->capacity : 16;
    while (cap < n)
        cap *= 2;
    if (cap > UINT32_MAX)
        cap = n;
    mq_tri_scratch tri = b->tri; /* keep the triangulator's arrays */
    b->tri = (mq_tri_scratch){.alloc = b->alloc};
    buffers_free(b);
    b->tri = tri;
    b->capacity = (uint32_t)cap;
    b->v = mq_alloc(b->alloc, cap * sizeof(uint32_t), 16);
    b->vt = mq_alloc(b->alloc, cap * sizeof(uint32_t), 16);
    b->vn = mq_alloc(b->alloc, cap * sizeof(uint32_t), 16);
    b->cut = mq_alloc(b->alloc, 3 * cap * sizeof(uint32_t), 16);
    if (b->v && b->vt && b->vn && b->cut)
        return true;
    tri = b->tri;
    b->tri = (mq_tri_scratch){.alloc = b->alloc};
    buffers_free(b);
    b->tri = tri;
    return false;
}

/* Reads the corners of a fan starting at triangle t0 from one index array. */
static void gather(const uint32_t *tri_idx, uint64_t t0, uint32_t n, uint32_t *dst)
{
    const uint32_t *t = tri_idx + 3 * t0;
    dst[0] = t[0];
    dst[1] = t[1];
    for (uint32_t k = 0; k + 2 < n; k++)
        dst[k + 2] = t[3 * k + 2];
}

/* Writes the cut back through the corner map of one index array. */
static void scatter(uint32_t *tri_idx, uint64_t t0, uint32_t n, const uint32_t *corners, const uint32_t *cut)
{
    uint32_t *t = tri_idx + 3 * t0;
    for (uint32_t k = 0; k < 3 * (n - 2); k++)
        t[k] = corners[cut[k]];
}

/* Re-cuts one polygon if concave: 1 when it was, 0 when convex, -1 out of memory. */
static int recut(obj_output *o, const obj_polygon *poly, polygon_buffers *b)
{
    uint32_t n = poly->corners;
    if (!buffers_reserve(b, n))
        return -1;
    gather(o->indices, poly->first_tri, n, b->v);
    mq_tri_result r = mq_triangulate(o->positions, b->v, n, &b->tri, b->cut);
    if (r != MQ_TRI_CLIPPED)
        return r == MQ_TRI_FAN ? 0 : -1;
    scatter(o->indices, poly->first_tri, n, b->v, b->cut);
    if (o->corner_texcoords) {
        gather(o->corner_texcoords, poly->first_tri, n, b->vt);
        scatter(o->corner_texcoords, poly->first_tri, n, b->vt, b->cut);
    }
    if (o->corner_normals) {
        gather(o->corner_normals, poly->first_tri, n, b->vn);
        scatter(o->corner_normals, poly->first_tri, n, b->vn, b->cut);
    }
    return 1;
}

static void polygon_task(void *ctx, size_t task)
{
    polygon_job *job = ctx;
    obj_output *o = &job->load->out;
    uint64_t from = task * job->per_task, to = from + job->per_task;
    if (to > o->total.polygons)
        to = o->total.polygons;
    polygon_buffers b = {.alloc = job->load->alloc, .tri = {.alloc = job->load->alloc}};
    uint64_t concave = 0;
    for (uint64_t i = from; i < to && !atomic_load_explicit(&job->out_of_memory, memory_order_relaxed); i++) {
        int r = recut(o, &o->polygons[i], &b);
        if (r < 0)
            atomic_store(&job->out_of_memory, true);
        concave += r > 0;
    }
    buffers_free(&b);
    atomic_fetch_add(&job->concave, concave);
}

mq_status mq_obj_triangulate_polygons(obj_load *load, uint64_t *concave, mq_diag *diag)
{
    uint64_t count = load->out.total.polygons;
    *concave = 0;
    if (count == 0)
        return MQ_OK;
    polygon_job job = {.load = load, .per_task = 1 << 14};
    atomic_init(&job.concave, 0);
    atomic_init(&job.out_of_memory, false);
    size_t tasks = (size_t)((count + job.per_task - 1) / job.per_task);
    mq_obj_parallel(load->threads, tasks, polygon_task, &job);
    if (atomic_load(&job.out_of_memory))
        return mq_diag_set(diag, MQ_ERR_OUT_OF_MEMORY, load->name, 0, 0, "out of memory triangulating faces");
    *concave = atomic_load(&job.concave);
    return MQ_OK;
}
