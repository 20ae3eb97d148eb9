/* mq_bvh_build and the BVH object's lifetime (meshquery/bvh.h). */
#include <float.h>
#include <math.h>
#include <time.h>

#include "core/minmax.h"
#include "bvh/bvh_internal.h"
#include "bvh/flatten.h"
#include "core/pool.h"
#include "bvh/wide_build.h"
#include "core/alloc.h"
#include "core/diag.h"
#include "mesh/mesh_internal.h"

/* Marks a def made by mq_default_bvh_def (box2d's internalValue idea). */
#define MQ_BVH_DEF_COOKIE 0x4D514256u

mq_bvh_def mq_default_bvh_def(void)
{
    return (mq_bvh_def){.quality = MQ_BUILD_MEDIUM,
                        .max_leaf_size = 4,
                        .threads = 0,
                        .allocator = NULL,
                        .internal_cookie = MQ_BVH_DEF_COOKIE};
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return 1e3 * (double)ts.tv_sec + 1e-6 * (double)ts.tv_nsec;
}

static mq_status check_def(const mq_bvh_def *d, mq_diag *diag)
{
    if (d->internal_cookie != MQ_BVH_DEF_COOKIE)
        return mq_diag_set(diag, MQ_ERR_INVALID_ARG, NULL, 0, 0,
                           "mq_bvh_def was not initialised with mq_default_bvh_def()");
    if (d->max_leaf_size < 1 || d->max_leaf_size > MQ_LEAF_MAX_BLOCKS * MQ_TRI_BLOCK)
        return mq_diag_set(diag, MQ_ERR_INVALID_ARG, NULL, 0, 0, "max_leaf_size %u is outside 1..%d", d->max_leaf_size,
                           MQ_LEAF_MAX_BLOCKS * MQ_TRI_BLOCK);
    if ((unsigned)d->quality > MQ_BUILD_HIGH)
        return mq_diag_set(diag, MQ_ERR_INVALID_ARG, NULL, 0, 0, "unknown build quality %d", (int)d->quality);
    return MQ_OK;
}

/* Builder settings per quality level (see mq_build_quality). MEDIUM has no
 * exact sweep on small nodes: on the test meshes it found trees of the same
 * SAH cost, and took a quarter of the build time. */
static mq_build_params params_for(const mq_bvh_def *d)
{
    mq_build_params p = {.max_leaf = d->max_leaf_size, .trav_cost = 1.0f, .threads = mq_thread_count(d->threads)};
    switch (d->quality) {
    case MQ_BUILD_LOW:
        p.bins = 8;
        p.sweep_below = 0;
        break;
    case MQ_BUILD_MEDIUM:
        p.bins = 32;
        p.sweep_below = 0;
        break;
    case MQ_BUILD_HIGH:
        p.bins = 64;
        p.sweep_below = 4096;
        break;
    }
    return p;
}

int32_t mq_bvh_scale_exp(float magnitude)
{
    if (!(magnitude > 0.0f) || !isfinite(magnitude))
        return 0;
    int e;
    frexpf(magnitude, &e); /* magnitude = m * 2^e, m in [0.5, 1) */
    int k = -e;
    return k < -126 ? -126 : k > 126 ? 126 : k;
}

void mq_bvh_set_scale(mq_bvh *b, int32_t scale_exp)
{
    b->scale_exp = scale_exp;
    b->scale = ldexpf(1.0f, scale_exp);
    b->inv_scale = ldexpf(1.0f, -scale_exp);
}

float mq_triangles_magnitude(const float *positions, const uint32_t *indices, size_t count)
{
    /* Only triangles with three finite corners count: any other is never hit,
     * and a finite y beside a NaN x (the fuzzer's 2^53) must not shrink the real
     * geometry towards float underflow. Vertices no triangle uses do not count
     * either: one at 1e22 would scale a unit mesh to 1e-22, where the products
     * of the leaf test underflow. */
    float m = 0.0f;
    for (size_t i = 0; i < count; i++) {
        float a = 0.0f;
        bool finite = true;
        for (int c = 0; c < 3; c++) {
            const float *p = positions + 3 * (size_t)indices[3 * i + c];
            finite = finite && isfinite(p[0]) && isfinite(p[1]) && isfinite(p[2]);
            a = mq_fmaxf(a, mq_fmaxf(mq_fmaxf(fabsf(p[0]), fabsf(p[1])), fabsf(p[2])));
        }
        m = finite && a > m ? a : m;
    }
    return m;
}

/* mq_triangles_magnitude from the builder's root box, which holds exactly the
 * triangles with finite corners (prim_ref.c): the same value, without a pass. */
static float box_magnitude(const mq_bounds *box)
{
    float m = 0.0f;
    for (int k = 0; k < 3; k++)
        if (box->lo[k] <= box->hi[k])
            m = mq_fmaxf(m, mq_fmaxf(fabsf(box->lo[k]), fabsf(box->hi[k])));
    return m;
}

static mq_status build_tree(mq_bvh *bvh, const mq_bvh_def *def)
{
    const mq_mesh *m = bvh->mesh;
    const mq_allocator *a = mq_bvh_allocator(bvh);
    size_t n = m->triangle_count;
    mq_prim_ref *refs = mq_alloc(a, n * sizeof *refs, MQ_CACHE_LINE);
    if (!refs)
        return MQ_ERR_OUT_OF_MEMORY;
    mq_build_params p = params_for(def);
    mq_build_range all = {0, (uint32_t)n, {{0}, {0}}, {{0}, {0}}};
    mq_prim_refs_from_positions(m->positions, m->indices, n, refs, p.threads, &all.box, &all.cbox);
    mq_wide_tree tree;
    mq_status st = mq_wide_build(refs, &all, &p, a, &tree);
    if (st == MQ_OK) {
        /* The tree is built in the mesh's units (root_box stays so); the arena
         * is laid out scaled by 2^k (bvh_internal.h). */
        mq_bvh_set_scale(bvh, mq_bvh_scale_exp(box_magnitude(&all.box)));
        st = mq_flatten(bvh, &tree, refs, m->positions, m->indices, p.threads);
        mq_wide_tree_free(&tree, a);
    }
    mq_free(a, refs, n * sizeof *refs);
    return st;
}

mq_status mq_bvh_build(const mq_mesh *mesh, const mq_bvh_def *def, mq_bvh **out, mq_diag *diag)
{
    mq_diag_clear(diag);
    if (!out)
        return mq_diag_set(diag, MQ_ERR_INVALID_ARG, NULL, 0, 0, "out is NULL");
    *out = NULL;
    if (!mesh)
        return mq_diag_set(diag, MQ_ERR_INVALID_ARG, NULL, 0, 0, "mesh is NULL");
    mq_bvh_def defaults = mq_default_bvh_def();
    if (!def)
        def = &defaults;
    mq_status st = check_def(def, diag);
    if (st != MQ_OK)
        return st;
    if (mesh->triangle_count >= MQ_BVH_MAX_TRIANGLES)
        return mq_diag_set(diag, MQ_ERR_LIMIT, NULL, 0, 0, "%zu triangles exceed the BVH limit of %u",
                           mesh->triangle_count, MQ_BVH_MAX_TRIANGLES - 1);
    double t0 = now_ms();
    mq_bvh *bvh = mq_alloc_zero(def->allocator, sizeof *bvh, MQ_CACHE_LINE);
    if (!bvh)
        return mq_diag_set(diag, MQ_ERR_OUT_OF_MEMORY, NULL, 0, 0, "out of memory building a BVH");
    bvh->mesh = mesh;
    bvh->root = MQ_REF_EMPTY;
    mq_bvh_set_scale(bvh, 0);
    for (int p = 0; p < 6; p++)
        bvh->root_box[p] = (p & 1) ? -INFINITY : INFINITY;
    if (def->allocator) {
        bvh->alloc = *def->allocator;
        bvh->has_alloc = true;
    }
    if (mesh->triangle_count > 0) {
        st = build_tree(bvh, def);
        if (st != MQ_OK) {
            mq_bvh_destroy(bvh);
            if (st == MQ_ERR_LIMIT)
                return mq_diag_set(diag, st, NULL, 0, 0, "the BVH over %zu triangles would exceed 16 GiB",
                                   mesh->triangle_count);
            return mq_diag_set(diag, st, NULL, 0, 0, "out of memory building a BVH over %zu triangles",
                               mesh->triangle_count);
        }
    }
    if (mq_bvh_set_top_boxes(bvh) != MQ_OK) {
        mq_bvh_destroy(bvh);
        return mq_diag_set(diag, MQ_ERR_OUT_OF_MEMORY, NULL, 0, 0, "out of memory building a BVH");
    }
    bvh->build_ms = now_ms() - t0;
    *out = bvh;
    return MQ_OK;
}

void mq_bvh_destroy(mq_bvh *bvh)
{
    if (!bvh)
        return;
    mq_allocator copy = bvh->alloc; /* the struct itself is freed last, through the same hook */
    const mq_allocator *a = bvh->has_alloc ? &copy : NULL;
    mq_top_boxes_free(a, &bvh->top);
    if (bvh->map) { /* mq_bvh_load_mapped: the arena and the mesh's arrays are in the mapping */
        bvh->release_map(bvh->owned_mesh, bvh->map, bvh->map_bytes);
    } else {
        mq_free(a, bvh->arena, bvh->arena_bytes);
        mq_mesh_destroy(bvh->owned_mesh);
    }
    mq_free(a, bvh, sizeof *bvh);
}

size_t mq_bvh_byte_count(const mq_bvh *bvh)
{
    return sizeof *bvh + bvh->arena_bytes + bvh->top.doubles * sizeof(double);
}

const mq_mesh *mq_bvh_mesh(const mq_bvh *bvh)
{
    return bvh->mesh;
}
