/*
 * The sphere tree object: options, build (the shared skeleton, then each
 * node's sphere around its corners), refit, destruction, statistics.
 *
 * A node's sphere: two candidates, the centre of the corners' box and
 * Ritter's (1990: the farthest pair from a start point, then grown over the
 * points outside); the centre rounded to float, the radius the largest corner
 * distance from it in double, rounded up. The smaller radius wins.
 */
#include <string.h>

#include "core/minmax.h"
#include "spheretree/spheretree_internal.h"
#include "core/alloc.h"
#include "core/diag.h"

static bool corner_ok(const float *p)
{
    return isfinite(p[0]) && isfinite(p[1]) && isfinite(p[2]);
}

static double dist2(const double c[3], const float *p)
{
    double x = p[0] - c[0], y = p[1] - c[1], z = p[2] - c[2];
    return x * x + y * y + z * z;
}

/* The radius about the float centre c of every corner of tris[first, end). */
static double radius_about(const mq_triangle *tris, uint32_t first, uint32_t end, const float c[3])
{
    double cd[3] = {c[0], c[1], c[2]}, r2 = 0.0;
    for (uint32_t i = first; i < end; i++)
        for (int v = 0; v < 3; v++)
            if (corner_ok(tris[i].v[v]))
                r2 = mq_fmax(r2, dist2(cd, tris[i].v[v]));
    return sqrt(r2);
}

static void ritter(const mq_triangle *tris, uint32_t first, uint32_t end, const float *start, double c[3], double *r)
{
    const float *y = start, *z = start;
    double s[3] = {start[0], start[1], start[2]}, best = -1.0;
    for (uint32_t i = first; i < end; i++)
        for (int v = 0; v < 3; v++)
            if (corner_ok(tris[i].v[v]) && dist2(s, tris[i].v[v]) > best) {
                best = dist2(s, tris[i].v[v]);
                y = tris[i].v[v];
            }
    double yd[3] = {y[0], y[1], y[2]};
    best = -1.0;
    for (uint32_t i = first; i < end; i++)
        for (int v = 0; v < 3; v++)
            if (corner_ok(tris[i].v[v]) && dist2(yd, tris[i].v[v]) > best) {
                best = dist2(yd, tris[i].v[v]);
                z = tris[i].v[v];
            }
    for (int k = 0; k < 3; k++)
        c[k] = 0.5 * ((double)y[k] + z[k]);
    *r = 0.5 * sqrt(best);
    for (uint32_t i = first; i < end; i++)
        for (int v = 0; v < 3; v++) {
            const float *p = tris[i].v[v];
            if (!corner_ok(p))
                continue;
            double d = sqrt(dist2(c, p));
            if (d > *r) { /* grow to hold p: the new sphere touches p and the far side of the old */
                double nr = 0.5 * (*r + d), move = nr - *r;
                for (int k = 0; k < 3; k++)
                    c[k] += move * (p[k] - c[k]) / d;
                *r = nr;
            }
        }
}

static void fit(const mq_triangle *tris, uint32_t first, uint32_t end, float out[4])
{
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    const float *start = NULL;
    for (uint32_t i = first; i < end; i++)
        for (int v = 0; v < 3; v++) {
            const float *p = tris[i].v[v];
            if (!corner_ok(p))
                continue;
            start = start ? start : p;
            for (int k = 0; k < 3; k++) {
                lo[k] = mq_fmin(lo[k], p[k]);
                hi[k] = mq_fmax(hi[k], p[k]);
            }
        }
    if (!start) { /* no finite corner (after a refit): a ball nothing reaches */
        out[0] = out[1] = out[2] = 0.0f;
        out[3] = -INFINITY;
        return;
    }
    float cb[3], cr[3];
    double rc[3], rr;
    ritter(tris, first, end, start, rc, &rr);
    for (int k = 0; k < 3; k++) {
        cb[k] = (float)(0.5 * lo[k] + 0.5 * hi[k]);
        cr[k] = (float)rc[k];
    }
    double rb = radius_about(tris, first, end, cb), rt = radius_about(tris, first, end, cr);
    const float *c = rt < rb ? cr : cb;
    memcpy(out, c, 3 * sizeof(float));
    out[3] = mq_bvt_up(rt < rb ? rt : rb);
}

/* Recomputes every sphere; `first` and `end` are node_count scratch entries each. */
static void compute_spheres(mq_spheretree *t, uint32_t *first, uint32_t *end)
{
    mq_bvt_node_ranges(&t->bvt, first, end);
    for (uint32_t i = 0; i < t->bvt.node_count; i++)
        fit(t->bvt.tris, first[i], end[i], t->spheres + 4 * (size_t)i);
}

mq_spheretree_def mq_default_spheretree_def(void)
{
    mq_spheretree_def def = {4, NULL, MQ_SPHERETREE_DEF_COOKIE};
    return def;
}

static void destroy(mq_spheretree *t)
{
    mq_allocator copy = t->bvt.alloc;
    const mq_allocator *a = t->bvt.has_alloc ? &copy : NULL;
    mq_free(a, t->spheres, (size_t)t->bvt.node_count * 4 * sizeof *t->spheres);
    mq_bvt_free(&t->bvt);
    mq_free(a, t, sizeof *t);
}

/* Spheres through node-range scratch from the tree's allocator. */
static mq_status spheres(mq_spheretree *t)
{
    const mq_allocator *a = mq_bvt_allocator(&t->bvt);
    size_t n = t->bvt.node_count;
    uint32_t *first = mq_alloc(a, n * sizeof *first, MQ_CACHE_LINE);
    uint32_t *end = mq_alloc(a, n * sizeof *end, MQ_CACHE_LINE);
    if (first && end)
        compute_spheres(t, first, end);
    mq_free(a, first, n * sizeof *first);
    mq_free(a, end, n * sizeof *end);
    return first && end ? MQ_OK : MQ_ERR_OUT_OF_MEMORY;
}

mq_status mq_spheretree_build(const mq_mesh *mesh, const mq_spheretree_def *def, mq_spheretree **out, mq_diag *diag)
{
    mq_diag_clear(diag);
    if (!out)
        return mq_diag_set(diag, MQ_ERR_INVALID_ARG, NULL, 0, 0, "out is NULL");
    *out = NULL;
    if (!mesh)
        return mq_diag_set(diag, MQ_ERR_INVALID_ARG, NULL, 0, 0, "mesh is NULL");
    mq_spheretree_def d = def ? *def : mq_default_spheretree_def();
    if (d.internal_cookie != MQ_SPHERETREE_DEF_COOKIE)
        return mq_diag_set(diag, MQ_ERR_INVALID_ARG, NULL, 0, 0, "the def was not made by mq_default_spheretree_def()");
    if (d.max_leaf_size < 1 || d.max_leaf_size > MQ_SPHERETREE_MAX_LEAF_SIZE)
        return mq_diag_set(diag, MQ_ERR_INVALID_ARG, NULL, 0, 0, "max_leaf_size %u is outside 1..%d", d.max_leaf_size,
                           MQ_SPHERETREE_MAX_LEAF_SIZE);
    mq_spheretree *t = mq_alloc_zero(d.allocator, sizeof *t, MQ_CACHE_LINE);
    if (!t)
        return mq_diag_set(diag, MQ_ERR_OUT_OF_MEMORY, NULL, 0, 0, "out of memory building a sphere tree");
    if (d.allocator) {
        t->bvt.alloc = *d.allocator;
        t->bvt.has_alloc = true;
    }
    t->bvt.mesh = mesh;
    t->bvt.leaf_size = d.max_leaf_size;
    mq_status st = mq_bvt_build(&t->bvt);
    if (st == MQ_OK && t->bvt.node_count > 0) {
        t->spheres =
            mq_alloc(mq_bvt_allocator(&t->bvt), (size_t)t->bvt.node_count * 4 * sizeof *t->spheres, MQ_CACHE_LINE);
        st = t->spheres ? spheres(t) : MQ_ERR_OUT_OF_MEMORY;
    }
    if (st != MQ_OK) {
        destroy(t);
        if (st == MQ_ERR_LIMIT)
            return mq_diag_set(diag, st, NULL, 0, 0, "the mesh exceeds the sphere tree's limit of %u triangles",
                               MQ_SPHERETREE_MAX_TRIANGLES);
        return mq_diag_set(diag, st, NULL, 0, 0, "out of memory building a sphere tree");
    }
    *out = t;
    return MQ_OK;
}

void mq_spheretree_destroy(mq_spheretree *t)
{
    if (t)
        destroy(t);
}

mq_status mq_spheretree_refit(mq_spheretree *t, const float *positions, mq_diag *diag)
{
    mq_diag_clear(diag);
    if (!t)
        return mq_diag_set(diag, MQ_ERR_INVALID_ARG, NULL, 0, 0, "tree is NULL");
    if (t->bvt.node_count == 0)
        return MQ_OK;
    mq_bvt_reload(&t->bvt, positions);
    /* No allocation: each node's range is recomputed from its subtree's leaves. */
    for (uint32_t i = 0; i < t->bvt.node_count; i++) {
        uint32_t j = i, first, end;
        while (!mq_bvt_is_leaf(t->bvt.data[j])) /* leftmost leaf */
            j++;
        first = mq_bvt_first(t->bvt.data[j]);
        j = i;
        while (!mq_bvt_is_leaf(t->bvt.data[j])) /* rightmost leaf */
            j = t->bvt.data[j];
        end = mq_bvt_first(t->bvt.data[j]) + mq_bvt_count(t->bvt.data[j]);
        fit(t->bvt.tris, first, end, t->spheres + 4 * (size_t)i);
    }
    return MQ_OK;
}

const mq_mesh *mq_spheretree_mesh(const mq_spheretree *t)
{
    return t->bvt.mesh;
}

size_t mq_spheretree_byte_count(const mq_spheretree *t)
{
    return sizeof *t + mq_bvt_bytes(&t->bvt) + (size_t)t->bvt.node_count * 4 * sizeof *t->spheres;
}

void mq_spheretree_get_stats(const mq_spheretree *t, mq_spheretree_stats *out)
{
    if (!out)
        return;
    mq_spheretree_stats st = {0};
    if (t) {
        const mq_bvt *b = &t->bvt;
        st.triangle_count = b->tri_count;
        st.node_count = b->node_count;
        st.max_depth = b->depth;
        const double pi = 3.14159265358979323846;
        for (uint32_t i = 0; i < b->node_count; i++) {
            double r = t->spheres[4 * (size_t)i + 3];
            if (!(r >= 0.0))
                r = 0.0;
            double v = 4.0 / 3.0 * pi * r * r * r;
            st.total_volume += v;
            if (mq_bvt_is_leaf(b->data[i])) {
                st.leaf_count++;
                st.leaf_volume += v;
                st.leaf_area += 4.0 * pi * r * r;
            }
        }
        st.avg_leaf_size = st.leaf_count ? (double)st.triangle_count / (double)st.leaf_count : 0.0;
        st.bytes_per_triangle = b->tri_count ? (double)mq_spheretree_byte_count(t) / (double)b->tri_count : 0.0;
    }
    *out = st;
}
