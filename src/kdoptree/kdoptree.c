/* The k-DOP tree object: options, build (the skeleton, then the slabs
 * bottom-up), refit, destruction, statistics and accessors. */
#include <string.h>

#include "core/minmax.h"
#include "kdoptree/kdoptree_internal.h"
#include "core/alloc.h"
#include "core/diag.h"

/* The 13 directions a k-DOP may use: the axes, the cube diagonals, the face diagonals. */
static const float ALL_DIRS[13][3] = {{1, 0, 0}, {0, 1, 0},  {0, 0, 1}, {1, 1, 1},  {1, 1, -1}, {1, -1, 1}, {-1, 1, 1},
                                      {1, 1, 0}, {1, -1, 0}, {1, 0, 1}, {1, 0, -1}, {0, 1, 1},  {0, 1, -1}};

bool mq_kdop_set_dirs(mq_kdoptree *t, uint32_t k)
{
    static const int k6[] = {0, 1, 2}, k14[] = {0, 1, 2, 3, 4, 5, 6}, k18[] = {0, 1, 2, 7, 8, 9, 10, 11, 12},
                     k26[] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
    const int *pick = k == 6 ? k6 : k == 14 ? k14 : k == 18 ? k18 : k == 26 ? k26 : NULL;
    if (!pick)
        return false;
    t->k = k;
    t->m = k / 2;
    for (uint32_t i = 0; i < t->m; i++) {
        const float *d = ALL_DIRS[pick[i]];
        memcpy(t->dirs[i], d, sizeof t->dirs[i]);
        double n2 = (double)d[0] * d[0] + (double)d[1] * d[1] + (double)d[2] * d[2];
        t->inv_norm[i] = mq_bvt_down(1.0 / sqrt(n2));
    }
    return true;
}

mq_kdoptree_def mq_default_kdoptree_def(void)
{
    mq_kdoptree_def def = {18, 4, NULL, MQ_KDOPTREE_DEF_COOKIE};
    return def;
}

void mq_kdop_compute_slabs(mq_kdoptree *t)
{
    const mq_bvt *b = &t->bvt;
    uint32_t m = t->m, k = t->k;
    for (uint32_t i = b->node_count; i-- > 0;) {
        float *s = t->slabs + (size_t)i * k;
        uint32_t d = b->data[i];
        if (!mq_bvt_is_leaf(d)) { /* children have larger indices: already done */
            const float *l = t->slabs + (size_t)(i + 1) * k, *r = t->slabs + (size_t)d * k;
            for (uint32_t j = 0; j < m; j++) {
                s[j] = mq_fminf(l[j], r[j]);
                s[m + j] = mq_fmaxf(l[m + j], r[m + j]);
            }
            continue;
        }
        double lo[MQ_KDOP_MAX_DIRS], hi[MQ_KDOP_MAX_DIRS];
        for (uint32_t j = 0; j < m; j++) {
            lo[j] = INFINITY;
            hi[j] = -INFINITY;
        }
        uint32_t first = mq_bvt_first(d), end = first + mq_bvt_count(d);
        for (uint32_t tri = first; tri < end; tri++)
            for (int v = 0; v < 3; v++) {
                const float *p = b->tris[tri].v[v];
                if (!isfinite(p[0]) || !isfinite(p[1]) || !isfinite(p[2]))
                    continue;
                for (uint32_t j = 0; j < m; j++) {
                    double x =
                        (double)t->dirs[j][0] * p[0] + (double)t->dirs[j][1] * p[1] + (double)t->dirs[j][2] * p[2];
                    lo[j] = mq_fmin(lo[j], x);
                    hi[j] = mq_fmax(hi[j], x);
                }
            }
        for (uint32_t j = 0; j < m; j++) {
            s[j] = mq_bvt_down(lo[j]); /* empty (all corners non-finite): +inf > -inf, never entered */
            s[m + j] = mq_bvt_up(hi[j]);
        }
    }
}

static void destroy(mq_kdoptree *t)
{
    mq_allocator copy = t->bvt.alloc;
    const mq_allocator *a = t->bvt.has_alloc ? &copy : NULL;
    mq_free(a, t->slabs, (size_t)t->bvt.node_count * t->k * sizeof *t->slabs);
    mq_bvt_free(&t->bvt);
    mq_free(a, t, sizeof *t);
}

mq_status mq_kdoptree_build(const mq_mesh *mesh, const mq_kdoptree_def *def, mq_kdoptree **out, mq_diag *diag)
{
    mq_diag_clear(diag);
    if (!out)
        return mq_diag_set(diag, MQ_ERR_INVALID_ARG, NULL, 0, 0, "out is NULL");
    *out = NULL;
    if (!mesh)
        return mq_diag_set(diag, MQ_ERR_INVALID_ARG, NULL, 0, 0, "mesh is NULL");
    mq_kdoptree_def d = def ? *def : mq_default_kdoptree_def();
    if (d.internal_cookie != MQ_KDOPTREE_DEF_COOKIE)
        return mq_diag_set(diag, MQ_ERR_INVALID_ARG, NULL, 0, 0, "the def was not made by mq_default_kdoptree_def()");
    if (d.max_leaf_size < 1 || d.max_leaf_size > MQ_KDOPTREE_MAX_LEAF_SIZE)
        return mq_diag_set(diag, MQ_ERR_INVALID_ARG, NULL, 0, 0, "max_leaf_size %u is outside 1..%d", d.max_leaf_size,
                           MQ_KDOPTREE_MAX_LEAF_SIZE);
    if (d.k != 6 && d.k != 14 && d.k != 18 && d.k != 26)
        return mq_diag_set(diag, MQ_ERR_INVALID_ARG, NULL, 0, 0, "k = %u: a k-DOP tree takes k = 6, 14, 18 or 26", d.k);
    mq_kdoptree *t = mq_alloc_zero(d.allocator, sizeof *t, MQ_CACHE_LINE);
    if (!t)
        return mq_diag_set(diag, MQ_ERR_OUT_OF_MEMORY, NULL, 0, 0, "out of memory building a k-DOP tree");
    if (d.allocator) {
        t->bvt.alloc = *d.allocator;
        t->bvt.has_alloc = true;
    }
    t->bvt.mesh = mesh;
    t->bvt.leaf_size = d.max_leaf_size;
    mq_kdop_set_dirs(t, d.k);
    mq_status st = mq_bvt_build(&t->bvt);
    if (st == MQ_OK && t->bvt.node_count > 0) {
        t->slabs =
            mq_alloc(mq_bvt_allocator(&t->bvt), (size_t)t->bvt.node_count * t->k * sizeof *t->slabs, MQ_CACHE_LINE);
        if (t->slabs)
            mq_kdop_compute_slabs(t);
        else
            st = MQ_ERR_OUT_OF_MEMORY;
    }
    if (st != MQ_OK) {
        destroy(t);
        if (st == MQ_ERR_LIMIT)
            return mq_diag_set(diag, st, NULL, 0, 0, "the mesh exceeds the k-DOP tree's limit of %u triangles",
                               MQ_KDOPTREE_MAX_TRIANGLES);
        return mq_diag_set(diag, st, NULL, 0, 0, "out of memory building a k-DOP tree");
    }
    *out = t;
    return MQ_OK;
}

void mq_kdoptree_destroy(mq_kdoptree *t)
{
    if (t)
        destroy(t);
}

mq_status mq_kdoptree_refit(mq_kdoptree *t, const float *positions, mq_diag *diag)
{
    mq_diag_clear(diag);
    if (!t)
        return mq_diag_set(diag, MQ_ERR_INVALID_ARG, NULL, 0, 0, "tree is NULL");
    if (t->bvt.node_count == 0)
        return MQ_OK;
    mq_bvt_reload(&t->bvt, positions);
    mq_kdop_compute_slabs(t);
    return MQ_OK;
}

const mq_mesh *mq_kdoptree_mesh(const mq_kdoptree *t)
{
    return t->bvt.mesh;
}

uint32_t mq_kdoptree_k(const mq_kdoptree *t)
{
    return t->k;
}

size_t mq_kdoptree_byte_count(const mq_kdoptree *t)
{
    return sizeof *t + mq_bvt_bytes(&t->bvt) + (size_t)t->bvt.node_count * t->k * sizeof *t->slabs;
}

void mq_kdoptree_get_stats(const mq_kdoptree *t, mq_kdoptree_stats *out)
{
    if (!out)
        return;
    mq_kdoptree_stats st = {0};
    if (t) {
        const mq_bvt *b = &t->bvt;
        st.triangle_count = b->tri_count;
        st.node_count = b->node_count;
        st.max_depth = b->depth;
        for (uint32_t i = 0; i < b->node_count; i++) {
            const float *s = t->slabs + (size_t)i * t->k;
            double v = 0.0, a = 0.0;
            mq_kdop_measure((const float(*)[3])t->dirs, t->m, s, s + t->m, &v, &a);
            st.total_volume += v;
            if (mq_bvt_is_leaf(b->data[i])) {
                st.leaf_count++;
                st.leaf_volume += v;
                st.leaf_area += a;
            }
        }
        st.avg_leaf_size = st.leaf_count ? (double)st.triangle_count / (double)st.leaf_count : 0.0;
        st.bytes_per_triangle = b->tri_count ? (double)mq_kdoptree_byte_count(t) / (double)b->tri_count : 0.0;
    }
    *out = st;
}
