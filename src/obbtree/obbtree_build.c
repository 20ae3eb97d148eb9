/*
 * Top-down OBB tree build (Gottschalk, Lin & Manocha 1996, §4): fit a box to
 * the node's triangles, split them perpendicular to the box's longest axis at
 * the mean of their centroids, recurse. When the mean leaves a side empty the
 * other axes are tried, then the median; below MQ_OBBTREE_MEDIAN_DEPTH the
 * median is always used, which bounds the depth for the fixed query stacks.
 * Nodes go into one growing array (no per-node allocation), in depth-first
 * order so the left child is always the next node.
 */
#include <math.h>
#include <string.h>

#include "core/minmax.h"
#include "obbtree/obb_fit.h"
#include "obbtree/obbtree_internal.h"
#include "core/alloc.h"
#include "core/diag.h"
#include "mesh/mesh_internal.h"

typedef struct build_ctx {
    mq_obbtree *tree;
    const mq_allocator *alloc;
    const float *positions;
    const uint32_t *indices;
    uint32_t *refs;     /* ids of the finite triangles, permuted into tree order */
    float *centroids;   /* 3 per mesh triangle id */
    float *keys;        /* scratch for the median split, one per ref */
    uint32_t max_nodes; /* 2 * triangles - 1: a binary tree's bound */
} build_ctx;

static bool triangle_is_finite(const mq_mesh *m, size_t t)
{
    for (int k = 0; k < 3; k++) {
        const float *p = m->positions + 3 * (size_t)m->indices[3 * t + (size_t)k];
        if (!isfinite(p[0]) || !isfinite(p[1]) || !isfinite(p[2]))
            return false;
    }
    return true;
}

/* Lists the finite triangles, their centroids and the corners' largest |x|+|y|+|z|. */
static void collect_triangles(build_ctx *c, const mq_mesh *m)
{
    uint32_t n = 0;
    float magnitude = 0.0f;
    for (size_t t = 0; t < m->triangle_count; t++) {
        if (!triangle_is_finite(m, t))
            continue;
        c->refs[n++] = (uint32_t)t;
        float *cen = c->centroids + 3 * t;
        cen[0] = cen[1] = cen[2] = 0.0f;
        for (int k = 0; k < 3; k++) {
            const float *p = m->positions + 3 * (size_t)m->indices[3 * t + (size_t)k];
            for (int d = 0; d < 3; d++)
                cen[d] += p[d] / 3.0f;
            magnitude = mq_fmaxf(magnitude, fabsf(p[0]) + fabsf(p[1]) + fabsf(p[2]));
        }
    }
    c->tree->magnitude = magnitude;
}

static mq_status reserve_node(build_ctx *c, uint32_t *index)
{
    mq_obbtree *t = c->tree;
    if (t->node_count == t->node_capacity) {
        uint32_t grow = t->node_capacity / 2 + 16;
        uint32_t cap = c->max_nodes - t->node_capacity < grow ? c->max_nodes : t->node_capacity + grow;
        mq_obbtree_node *nodes = mq_realloc(c->alloc, t->nodes, (size_t)t->node_capacity * sizeof *nodes,
                                            (size_t)cap * sizeof *nodes, MQ_CACHE_LINE);
        if (!nodes)
            return MQ_ERR_OUT_OF_MEMORY;
        t->nodes = nodes;
        t->node_capacity = cap;
    }
    *index = t->node_count++;
    return MQ_OK;
}

static double centroid_along(const build_ctx *c, uint32_t id, const float axis[3])
{
    const float *p = c->centroids + 3 * (size_t)id;
    return (double)p[0] * axis[0] + (double)p[1] * axis[1] + (double)p[2] * axis[2];
}

/* Splits refs[begin, end) at the mean of the centroids along `axis`; returns
 * the first index of the right side (begin or end when a side is empty). */
static uint32_t split_at_mean(build_ctx *c, uint32_t begin, uint32_t end, const float axis[3])
{
    double mean = 0.0;
    for (uint32_t i = begin; i < end; i++)
        mean += centroid_along(c, c->refs[i], axis);
    mean /= (double)(end - begin);
    uint32_t i = begin, j = end;
    while (i < j) {
        if (centroid_along(c, c->refs[i], axis) < mean) {
            i++;
        } else {
            uint32_t tmp = c->refs[i];
            c->refs[i] = c->refs[--j];
            c->refs[j] = tmp;
        }
    }
    return i;
}

static void swap_ref(build_ctx *c, uint32_t base, uint32_t i, uint32_t j)
{
    float k = c->keys[i];
    c->keys[i] = c->keys[j];
    c->keys[j] = k;
    uint32_t r = c->refs[base + i];
    c->refs[base + i] = c->refs[base + j];
    c->refs[base + j] = r;
}

/* Hoare-partition selection (Hoare 1961, FIND): reorders keys[0, n) and
 * refs[base, base+n) alike so that key k is in place, smaller ones before it,
 * larger ones after. Duplicates split evenly, so equal keys cost no extra depth. */
static void select_kth(build_ctx *c, uint32_t base, uint32_t n, uint32_t k)
{
    uint32_t lo = 0, hi = n - 1;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        /* median of three as the pivot */
        if (c->keys[mid] < c->keys[lo])
            swap_ref(c, base, mid, lo);
        if (c->keys[hi] < c->keys[lo])
            swap_ref(c, base, hi, lo);
        if (c->keys[hi] < c->keys[mid])
            swap_ref(c, base, hi, mid);
        float pivot = c->keys[mid];
        uint32_t i = lo, j = hi;
        while (i <= j) {
            while (c->keys[i] < pivot)
                i++;
            while (pivot < c->keys[j])
                j--;
            if (i <= j) {
                swap_ref(c, base, i, j);
                i++;
                if (j == 0)
                    break;
                j--;
            }
        }
        if (k <= j)
            hi = j;
        else if (k >= i)
            lo = i;
        else
            return;
    }
}

static uint32_t split_at_median(build_ctx *c, uint32_t begin, uint32_t end, const float axis[3])
{
    uint32_t n = end - begin;
    for (uint32_t i = 0; i < n; i++)
        c->keys[i] = (float)centroid_along(c, c->refs[begin + i], axis);
    select_kth(c, begin, n, n / 2);
    return begin + n / 2;
}

/* Chooses where refs[begin, end) (more than one) is split; begin < result < end. */
static uint32_t split_node(build_ctx *c, const mq_obb *box, uint32_t begin, uint32_t end, uint32_t depth)
{
    int order[3] = {0, 1, 2}; /* box axes, longest first */
    for (int i = 1; i < 3; i++)
        for (int j = i; j > 0 && box->half[order[j]] > box->half[order[j - 1]]; j--) {
            int tmp = order[j];
            order[j] = order[j - 1];
            order[j - 1] = tmp;
        }
    if (depth < MQ_OBBTREE_MEDIAN_DEPTH)
        for (int a = 0; a < 3; a++) {
            uint32_t mid = split_at_mean(c, begin, end, box->axes[order[a]]);
            if (mid > begin && mid < end)
                return mid;
        }
    return split_at_median(c, begin, end, box->axes[order[0]]);
}

static void store_box(mq_obbtree_node *n, const mq_obb *box)
{
    for (int i = 0; i < 3; i++) {
        n->center[i] = box->center[i];
        n->half[i] = box->half[i];
        for (int k = 0; k < 3; k++)
            n->axes[i][k] = box->axes[i][k];
    }
}

static mq_status build_node(build_ctx *c, uint32_t index, uint32_t begin, uint32_t end, uint32_t depth)
{
    mq_obbtree *t = c->tree;
    mq_fit_tris tris = {c->positions, c->indices, c->refs + begin, end - begin};
    mq_obb box;
    mq_obb_fit_box(t->fit, &tris, &box);
    store_box(&t->nodes[index], &box);
    if (depth > t->depth)
        t->depth = depth;
    if (end - begin <= t->leaf_size) {
        t->nodes[index].data = mq_obbtree_leaf_data(begin, end - begin);
        return MQ_OK;
    }
    uint32_t mid = split_node(c, &box, begin, end, depth), left, right;
    mq_status st = reserve_node(c, &left); /* == index + 1: depth-first order */
    if (st == MQ_OK)
        st = build_node(c, left, begin, mid, depth + 1);
    if (st == MQ_OK)
        st = reserve_node(c, &right);
    if (st != MQ_OK)
        return st;
    t->nodes[index].data = right; /* the array may have moved: index, not pointer */
    return build_node(c, right, mid, end, depth + 1);
}

/* Copies the triangles into tree order beside their mesh ids. */
static void gather_triangles(build_ctx *c, const mq_mesh *m)
{
    mq_obbtree *t = c->tree;
    for (uint32_t i = 0; i < t->tri_count; i++) {
        t->ids[i] = c->refs[i];
        mq_mesh_get_triangle(m, c->refs[i], &t->tris[i]);
    }
}

/* Returns the unused tail of the node array; keeps it when that allocation fails. */
static void shrink_nodes(build_ctx *c)
{
    mq_obbtree *t = c->tree;
    if (t->node_capacity == t->node_count)
        return;
    size_t used = (size_t)t->node_count * sizeof *t->nodes;
    mq_obbtree_node *nodes =
        mq_realloc(c->alloc, t->nodes, (size_t)t->node_capacity * sizeof *t->nodes, used, MQ_CACHE_LINE);
    if (nodes) {
        t->nodes = nodes;
        t->node_capacity = t->node_count;
    }
}

static mq_status check_def(const mq_obbtree_def *def, mq_diag *diag)
{
    if (def->internal_cookie != MQ_OBBTREE_DEF_COOKIE)
        return mq_diag_set(diag, MQ_ERR_INVALID_ARG, NULL, 0, 0, "the def was not made by mq_default_obbtree_def()");
    if (def->max_leaf_size < 1 || def->max_leaf_size > MQ_OBBTREE_MAX_LEAF_SIZE)
        return mq_diag_set(diag, MQ_ERR_INVALID_ARG, NULL, 0, 0, "max_leaf_size %u is outside 1..%d",
                           def->max_leaf_size, MQ_OBBTREE_MAX_LEAF_SIZE);
    if (def->fit != MQ_OBB_FIT_DITO && def->fit != MQ_OBB_FIT_PCA && def->fit != MQ_OBB_FIT_AABB)
        return mq_diag_set(diag, MQ_ERR_INVALID_ARG, NULL, 0, 0, "unknown fit method %d", (int)def->fit);
    return MQ_OK;
}

static size_t count_finite(const mq_mesh *m)
{
    size_t n = 0;
    for (size_t t = 0; t < m->triangle_count; t++)
        n += triangle_is_finite(m, t);
    return n;
}

/* Allocates the scratch arrays and the tree's own arrays for `n` (> 0) triangles. */
static mq_status allocate(build_ctx *c, const mq_mesh *m, uint32_t n)
{
    mq_obbtree *t = c->tree;
    c->max_nodes = 2 * n - 1;
    uint32_t guess = 4 * (n / t->leaf_size) + 16;
    t->node_capacity = guess < c->max_nodes ? guess : c->max_nodes;
    c->refs = mq_alloc(c->alloc, (size_t)n * sizeof *c->refs, MQ_CACHE_LINE);
    c->keys = mq_alloc(c->alloc, (size_t)n * sizeof *c->keys, MQ_CACHE_LINE);
    c->centroids = mq_alloc(c->alloc, m->triangle_count * 3 * sizeof *c->centroids, MQ_CACHE_LINE);
    t->nodes = mq_alloc(c->alloc, (size_t)t->node_capacity * sizeof *t->nodes, MQ_CACHE_LINE);
    t->tris = mq_alloc(c->alloc, (size_t)n * sizeof *t->tris, MQ_CACHE_LINE);
    t->ids = mq_alloc(c->alloc, (size_t)n * sizeof *t->ids, MQ_CACHE_LINE);
    if (!t->nodes)
        t->node_capacity = 0; /* so destroy frees what exists, with the sizes it has */
    t->tri_count = n;
    if (!c->refs || !c->keys || !c->centroids || !t->nodes || !t->tris || !t->ids)
        return MQ_ERR_OUT_OF_MEMORY;
    return MQ_OK;
}

static void free_scratch(build_ctx *c, const mq_mesh *m)
{
    uint32_t n = c->tree->tri_count;
    mq_free(c->alloc, c->refs, (size_t)n * sizeof *c->refs);
    mq_free(c->alloc, c->keys, (size_t)n * sizeof *c->keys);
    mq_free(c->alloc, c->centroids, m->triangle_count * 3 * sizeof *c->centroids);
}

static mq_status build_all(build_ctx *c, const mq_mesh *m, uint32_t n)
{
    mq_status st = allocate(c, m, n);
    if (st != MQ_OK)
        return st;
    collect_triangles(c, m);
    uint32_t root;
    st = reserve_node(c, &root);
    if (st == MQ_OK)
        st = build_node(c, root, 0, n, 0);
    if (st != MQ_OK)
        return st;
    gather_triangles(c, m);
    shrink_nodes(c);
    return MQ_OK;
}

mq_status mq_obbtree_build(const mq_mesh *mesh, const mq_obbtree_def *def, mq_obbtree **out, mq_diag *diag)
{
    mq_diag_clear(diag);
    if (!out)
        return mq_diag_set(diag, MQ_ERR_INVALID_ARG, NULL, 0, 0, "out is NULL");
    *out = NULL;
    if (!mesh)
        return mq_diag_set(diag, MQ_ERR_INVALID_ARG, NULL, 0, 0, "mesh is NULL");
    mq_obbtree_def d = def ? *def : mq_default_obbtree_def();
    mq_status st = check_def(&d, diag);
    if (st != MQ_OK)
        return st;
    size_t n = count_finite(mesh);
    if (n > MQ_OBBTREE_MAX_TRIANGLES)
        return mq_diag_set(diag, MQ_ERR_LIMIT, NULL, 0, 0, "%zu triangles exceed the OBB tree's limit of %u", n,
                           MQ_OBBTREE_MAX_TRIANGLES);

    mq_obbtree *t = mq_alloc_zero(d.allocator, sizeof *t, MQ_CACHE_LINE);
    if (!t)
        return mq_diag_set(diag, MQ_ERR_OUT_OF_MEMORY, NULL, 0, 0, "out of memory building an OBB tree");
    if (d.allocator) {
        t->alloc = *d.allocator;
        t->has_alloc = true;
    }
    t->mesh = mesh;
    t->fit = d.fit;
    t->leaf_size = d.max_leaf_size;
    build_ctx c = {t, mq_obbtree_allocator(t), mesh->positions, mesh->indices, NULL, NULL, NULL, 0};
    if (n > 0) {
        st = build_all(&c, mesh, (uint32_t)n);
        free_scratch(&c, mesh);
        if (st != MQ_OK) {
            mq_obbtree_destroy(t);
            return mq_diag_set(diag, st, NULL, 0, 0, "out of memory building an OBB tree");
        }
    }
    if (mq_obbtree_set_top_boxes(t) != MQ_OK) {
        mq_obbtree_destroy(t);
        return mq_diag_set(diag, MQ_ERR_OUT_OF_MEMORY, NULL, 0, 0, "out of memory building an OBB tree");
    }
    *out = t;
    return MQ_OK;
}
