/*
 * libFuzzer target for the convex queries: a hull of 4..16 points and a tiny
 * mesh (up to 24 triangles) decoded from the input; every triangle's
 * mq_overlap_convex_triangle is compared with a double-precision oracle (the
 * hull's half-spaces, the triangle clipped by them), and the BVH's and the
 * OBB tree's convex overlap with brute force over the triangles.
 *
 * Input layout (every read past the end yields 0):
 *   byte   point count (4 + b % 13), then 3 coordinates per point
 *   byte   vertex count (3 + b % 14), then 3 coordinates per vertex
 *   byte   triangle count (1 + b % 24), then 3 index bytes per triangle
 *   3 coordinates: the direction of a convex cast, and a byte: tmax
 *   (b % 4: 1, 0.5, 4, infinity)
 *   coordinates: a tag byte; tag < 224 gives a small value (tag % 32 - 16, in
 *   quarters), so touching, shared and coplanar cases are common; tag >= 224
 *   reads 4 raw bytes as a float.
 *
 * What is compared (a mismatch aborts):
 *   - primitive vs oracle, for cases the oracle decides (the answer does not
 *     change when every plane moves by 1e-9 of the scale; inputs beyond 1e15
 *     in magnitude are run but not compared);
 *   - trees vs brute force: exactly the same id sets; _any agrees;
 *   - convex casts on both trees vs brute force (mq_convex_cast_triangle on
 *     every triangle, the smallest t, ties to the smallest id): the same
 *     triangle and the same t;
 *   - shape distance of the convex on both trees vs brute force
 *     (mq_convex_triangle_distance on every triangle): exactly its minimum,
 *     0 exactly when some triangle overlaps, the reported triangle at that
 *     distance; shape clearance at 0, at the minimum and beyond it: exactly
 *     the triangles brute force puts within d, each at its distance.
 *   The BVH's answers (overlaps, casts, distances) are compared only when no
 *   mesh coordinate turns subnormal in the BVH's power-of-two scaling (bvh.h),
 *   which rounds such corners: the BVH then answers for the rounded mesh.
 */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <meshquery/bvh.h>
#include <meshquery/casts.h>
#include <meshquery/convex.h>
#include <meshquery/mesh.h>
#include <meshquery/obbtree.h>
#include <meshquery/proximity.h>

#include "fuzz_reader.h"

#define CHECK(c, ...)                                                                                                  \
    do {                                                                                                               \
        if (!(c)) {                                                                                                    \
            fprintf(stderr, "fuzz_convex_queries: " __VA_ARGS__);                                                      \
            fputc('\n', stderr);                                                                                       \
            abort();                                                                                                   \
        }                                                                                                              \
    } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static float coord(reader *r)
{
    uint8_t tag = rd_byte(r);
    if (tag < 224)
        return (float)((int)(tag % 32) - 16) * 0.25f;
    return rd_raw_le(r);
}

static bool clip_meets(const double (*n)[3], const double *d, size_t count, const mq_triangle *t, double shift)
{
    double poly[64][3], next[64][3];
    int m = 3;
    for (int i = 0; i < 3; i++)
        for (int k = 0; k < 3; k++)
            poly[i][k] = t->v[i][k];
    for (size_t j = 0; j < count && m > 0; j++) {
        int q = 0;
        for (int i = 0; i < m && q < 62; i++) {
            const double *a = poly[i], *b = poly[(i + 1) % m];
            double sa = n[j][0] * a[0] + n[j][1] * a[1] + n[j][2] * a[2] - d[j] - shift;
            double sb = n[j][0] * b[0] + n[j][1] * b[1] + n[j][2] * b[2] - d[j] - shift;
            if (sa <= 0.0)
                memcpy(next[q++], a, sizeof(double[3]));
            if ((sa < 0.0 && sb > 0.0) || (sa > 0.0 && sb < 0.0)) {
                double s = sa / (sa - sb);
                for (int k = 0; k < 3; k++)
                    next[q][k] = a[k] + s * (b[k] - a[k]);
                q++;
            }
        }
        m = q;
        memcpy(poly, next, (size_t)m * sizeof(double[3]));
    }
    return m > 0;
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

/* The brute-force convex cast: the first triangle the swept convex touches. */
static uint32_t brute_cast(const mq_convex *c, const float *pos, const uint32_t *idx, size_t nt, const vec3 dir,
                           float tmax, float *t_out)
{
    uint32_t best = MQ_NO_TRIANGLE;
    *t_out = INFINITY;
    for (size_t t = 0; t < nt; t++) {
        mq_triangle tri;
        float th;
        for (int j = 0; j < 3; j++)
            memcpy(tri.v[j], pos + 3 * idx[3 * t + j], sizeof(float[3]));
        if (mq_convex_cast_triangle(c, dir, tmax, &tri, &th) && th < *t_out) {
            *t_out = th;
            best = (uint32_t)t;
        }
    }
    return best;
}

/* The convex's shape distance and clearance on one tree (bvh or o) against brute[]. */
static void check_distance(const char *tree, const mq_bvh *b, const mq_obbtree *o, const mq_shape *s,
                           const double *brute, size_t nt, size_t overlapping)
{
    double bmin = INFINITY;
    for (size_t t = 0; t < nt; t++)
        bmin = fmin(bmin, brute[t]);
    mq_shape_distance_result r;
    bool found = b ? mq_bvh_shape_distance(b, s, NULL, &r) : mq_obbtree_shape_distance(o, s, NULL, &r);
    bool any_finite = bmin < INFINITY;
    CHECK(found == any_finite, "%s distance: found %d, brute force %.17g", tree, found, bmin);
    if (!found)
        return;
    CHECK(r.distance == bmin && r.triangle < nt && brute[r.triangle] == bmin,
          "%s distance %.17g (triangle %u), brute force %.17g", tree, r.distance, r.triangle, bmin);
    CHECK((bmin == 0.0) == (overlapping > 0), "%s distance %.17g, %zu triangles overlap", tree, bmin, overlapping);
    double ds[3] = {0.0, bmin, 2.0 * bmin + 0.5};
    for (int i = 0; i < 3; i++) {
        mq_clearance_pair got[24];
        size_t want = 0;
        for (size_t t = 0; t < nt; t++)
            want += brute[t] <= ds[i];
        size_t k = b ? mq_bvh_shape_clearance_array(b, s, ds[i], got, 24)
                     : mq_obbtree_shape_clearance_array(o, s, ds[i], got, 24);
        CHECK(k == want, "%s clearance %.17g: %zu triangles, brute force %zu", tree, ds[i], k, want);
        for (size_t j = 0; j < k && j < 24; j++)
            CHECK(got[j].triangle_b < nt && got[j].distance == brute[got[j].triangle_b],
                  "%s clearance %.17g: triangle %u at %.17g", tree, ds[i], got[j].triangle_b, got[j].distance);
    }
}

static void check_cast(const char *tree, bool hit, const mq_cast_hit *h, uint32_t want, float want_t)
{
    CHECK(hit == (want != MQ_NO_TRIANGLE) && h->triangle == want,
          "%s convex cast: triangle %u t %a, brute force %u t %a", tree, h->triangle, (double)h->t, want,
          (double)want_t);
    CHECK(!hit || memcmp(&h->t, &want_t, sizeof want_t) == 0, "%s convex cast: t %a, brute force %a", tree,
          (double)h->t, (double)want_t);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    reader r = {data, size};
    float p[3 * 16], pos[3 * 16];
    uint32_t idx[3 * 24];
    size_t np = 4 + rd_byte(&r) % 13;
    for (size_t i = 0; i < 3 * np; i++)
        p[i] = coord(&r);
    size_t nv = 3 + rd_byte(&r) % 14;
    for (size_t i = 0; i < 3 * nv; i++)
        pos[i] = coord(&r);
    size_t nt = 1 + rd_byte(&r) % 24;
    for (size_t i = 0; i < 3 * nt; i++)
        idx[i] = rd_byte(&r) % nv;
    vec3 dir = {coord(&r), coord(&r), coord(&r)};
    static const float tmaxes[4] = {1.0f, 0.5f, 4.0f, INFINITY};
    float tmax = tmaxes[rd_byte(&r) % 4];
    mq_convex *c = NULL;
    if (mq_convex_create(p, np, NULL, &c, NULL) != MQ_OK)
        return 0;
    bool compare = true;
    for (size_t i = 0; i < 3 * np; i++)
        compare &= fabsf(p[i]) < 1e15f;
    for (size_t i = 0; i < 3 * nv; i++)
        compare &= isfinite(pos[i]) && fabsf(pos[i]) < 1e15f;
    /* the oracle's half-spaces, from the public hull */
    size_t hv = mq_convex_vertex_count(c), hf = mq_convex_face_count(c);
    const float *v = mq_convex_vertices(c);
    const uint32_t *f = mq_convex_faces(c);
    double(*n)[3] = malloc(hf * sizeof *n), *d = malloc(hf * sizeof *d), scale = 0.0;
    for (size_t i = 0; i < 3 * hv; i++)
        scale = fmax(scale, fabs((double)v[i]));
    for (size_t j = 0; j < hf; j++) {
        double e1[3], e2[3], nn[3];
        const float *a = v + 3 * f[3 * j], *b = v + 3 * f[3 * j + 1], *cc = v + 3 * f[3 * j + 2];
        for (int k = 0; k < 3; k++) {
            e1[k] = (double)b[k] - a[k];
            e2[k] = (double)cc[k] - a[k];
        }
        nn[0] = e1[1] * e2[2] - e1[2] * e2[1];
        nn[1] = e1[2] * e2[0] - e1[0] * e2[2];
        nn[2] = e1[0] * e2[1] - e1[1] * e2[0];
        double l = sqrt(nn[0] * nn[0] + nn[1] * nn[1] + nn[2] * nn[2]);
        d[j] = -INFINITY;
        for (int k = 0; k < 3; k++)
            n[j][k] = l > 0.0 ? nn[k] / l : 0.0;
        for (size_t i = 0; i < hv; i++)
            d[j] = fmax(d[j], n[j][0] * v[3 * i] + n[j][1] * v[3 * i + 1] + n[j][2] * v[3 * i + 2]);
    }
    uint32_t want[24], got[24];
    double dist[24];
    size_t nw = 0;
    for (size_t t = 0; t < nt; t++) {
        mq_triangle tri;
        for (int j = 0; j < 3; j++)
            memcpy(tri.v[j], pos + 3 * idx[3 * t + j], sizeof(float[3]));
        bool hit = mq_overlap_convex_triangle(c, &tri);
        dist[t] = mq_convex_triangle_distance(c, &tri, NULL, NULL);
        if (!(dist[t] >= 0.0))
            dist[t] = INFINITY; /* a non-finite corner: ignored by the walks */
        if (hit)
            want[nw++] = (uint32_t)t;
        if (!compare)
            continue;
        /* the clipping's rounding grows with the triangle's coordinates too */
        double e = 1e-9 * scale;
        for (int j = 0; j < 3; j++)
            for (int k = 0; k < 3; k++)
                e = fmax(e, 1e-9 * fabs((double)tri.v[j][k]));
        bool out = clip_meets((const double(*)[3])n, d, hf, &tri, e),
             in = clip_meets((const double(*)[3])n, d, hf, &tri, -e);
        if (out == in)
            CHECK(hit == out, "triangle %zu: convex-triangle %d, oracle %d", t, hit, out);
    }
    free(n);
    free(d);
    /* the BVH keeps the corners scaled by 2^-e, e the exponent of the largest
     * |coordinate|: a nonzero one below FLT_MIN * 2^e then rounds */
    float big = 0.0f;
    for (size_t i = 0; i < 3 * nv; i++)
        big = fabsf(pos[i]) > big ? fabsf(pos[i]) : big;
    int e = 0;
    frexpf(big, &e);
    bool bvh_exact = true;
    for (size_t i = 0; i < 3 * nv; i++)
        bvh_exact &= pos[i] == 0.0f || fabsf(pos[i]) >= ldexpf(FLT_MIN, e);
    mq_mesh *m = NULL;
    if (mq_mesh_create(pos, nv, idx, nt, NULL, &m, NULL) == MQ_OK) {
        mq_bvh *b = NULL;
        mq_obbtree *o = NULL;
        mq_shape s = mq_shape_convex(c);
        mq_cast_hit ch;
        float cast_t;
        uint32_t cast_want = brute_cast(c, pos, idx, nt, dir, tmax, &cast_t);
        if (compare && bvh_exact && mq_bvh_build(m, NULL, &b, NULL) == MQ_OK) {
            size_t k = mq_bvh_overlap_array(b, &s, got, 24);
            qsort(got, k < 24 ? k : 24, sizeof *got, cmp_u32);
            CHECK(k == nw && memcmp(got, want, nw * sizeof *got) == 0, "bvh: %zu triangles, brute force %zu", k, nw);
            CHECK(mq_bvh_overlap_any(b, &s) == (nw > 0), "bvh any");
            check_cast("bvh", mq_bvh_convex_cast(b, c, dir, tmax, &ch), &ch, cast_want, cast_t);
            check_distance("bvh", b, NULL, &s, dist, nt, nw);
            mq_bvh_destroy(b);
        }
        if (compare && mq_obbtree_build(m, NULL, &o, NULL) == MQ_OK) {
            size_t k = mq_obbtree_overlap_array(o, &s, got, 24);
            qsort(got, k < 24 ? k : 24, sizeof *got, cmp_u32);
            CHECK(k == nw && memcmp(got, want, nw * sizeof *got) == 0, "obbtree: %zu triangles, brute force %zu", k,
                  nw);
            CHECK(mq_obbtree_overlap_any(o, &s) == (nw > 0), "obbtree any");
            check_cast("obbtree", mq_obbtree_convex_cast(o, c, dir, tmax, &ch), &ch, cast_want, cast_t);
            check_distance("obbtree", NULL, o, &s, dist, nt, nw);
            mq_obbtree_destroy(o);
        }
        mq_mesh_destroy(m);
    }
    mq_convex_destroy(c);
    return 0;
}
