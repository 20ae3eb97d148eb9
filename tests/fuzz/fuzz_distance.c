/*
 * libFuzzer target for meshquery/proximity.h: two tiny meshes decoded from the
 * input, a BVH and an OBB tree over each, a rigid transform and a shape; the
 * distance, clearance and shape queries on both trees, compared with each
 * other and with brute force over all triangle pairs.
 *
 * Input layout (every read past the end yields 0):
 *   byte   leaf sizes: BVH (low nibble), OBB tree (high nibble), each 1 + n % 4
 *   mesh A, then mesh B, each:
 *     byte   vertex count (3 + b % 10)
 *     coords 3 per vertex (coord: small "nice" values, so touching and
 *            coplanar cases are common; tag >= 240 reads 4 raw bytes: NaN, Inf, huge)
 *     byte   triangle count (1 + b % 12), then 3 index bytes per triangle
 *   4 bytes quaternion w, x, y, z ((b - 128) / 64; all 128: the zero quaternion),
 *   3 coords translation,
 *   byte   shape kind (% 5: sphere, capsule, OBB, AABB, an unknown kind), its coords,
 *   byte   clearance d (b / 16).
 *
 * Compared (a mismatch aborts with a message), when every coordinate is finite
 * and below 1e4 (larger inputs are run, not compared):
 *   - the two trees find the same thing, at the same distance (to 1e-9 of the scale);
 *   - the distance equals the brute-force minimum of
 *     mq_closest_points_triangle_triangle over B's corners mapped in double and
 *     rounded to float, to 1e-5 of the scale (the float rounding of the mapping);
 *   - the witness points are the distance apart;
 *   - clearance: every pair reported is within d, the count lies between the
 *     brute-force counts at d minus and plus that tolerance, and _any agrees;
 *   - shapes: the two trees agree, and a sphere's distance equals the brute
 *     force over mq_closest_point_triangle minus its radius.
 */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <meshquery/meshquery.h>

#include "fuzz_reader.h"

#define FAIL(...)                                                                                                      \
    do {                                                                                                               \
        fprintf(stderr, "fuzz_distance: mismatch (line %d): ", __LINE__);                                              \
        fprintf(stderr, __VA_ARGS__);                                                                                  \
        fprintf(stderr, "\n");                                                                                         \
        abort();                                                                                                       \
    } while (0)
#define CHECK(cond)                                                                                                    \
    do {                                                                                                               \
        if (!(cond))                                                                                                   \
            FAIL("%s", #cond);                                                                                         \
    } while (0)

static float coord(reader *r)
{
    uint8_t t = rd_byte(r);
    if (t >= 240)
        return rd_raw_le(r);
    return ((float)t - 120.0f) * 0.25f;
}

typedef struct fmesh {
    float pos[13][3];
    uint32_t idx[12][3];
    size_t nv, nt;
    mq_mesh *mesh;
    mq_bvh *bvh;
    mq_obbtree *obb;
} fmesh;

static bool small(float x)
{
    return isfinite(x) && fabsf(x) < 1e4f;
}

static bool read_mesh(reader *r, fmesh *m, uint32_t bvh_leaf, uint32_t obb_leaf, bool *comparable)
{
    m->nv = 3 + rd_byte(r) % 10;
    for (size_t i = 0; i < m->nv; i++)
        for (int k = 0; k < 3; k++) {
            m->pos[i][k] = coord(r);
            *comparable = *comparable && small(m->pos[i][k]);
        }
    m->nt = 1 + rd_byte(r) % 12;
    for (size_t t = 0; t < m->nt; t++)
        for (int k = 0; k < 3; k++)
            m->idx[t][k] = rd_byte(r) % m->nv;
    if (mq_mesh_create(&m->pos[0][0], m->nv, &m->idx[0][0], m->nt, NULL, &m->mesh, NULL) != MQ_OK)
        return false;
    mq_bvh_def bd = mq_default_bvh_def();
    bd.max_leaf_size = bvh_leaf;
    mq_obbtree_def od = mq_default_obbtree_def();
    od.max_leaf_size = obb_leaf;
    if (mq_bvh_build(m->mesh, &bd, &m->bvh, NULL) != MQ_OK)
        m->bvh = NULL;
    if (mq_obbtree_build(m->mesh, &od, &m->obb, NULL) != MQ_OK)
        m->obb = NULL;
    return true;
}

static void free_mesh(fmesh *m)
{
    mq_bvh_destroy(m->bvh);
    mq_obbtree_destroy(m->obb);
    mq_mesh_destroy(m->mesh);
}

static bool tri_finite(const mq_triangle *t)
{
    for (int v = 0; v < 3; v++)
        for (int k = 0; k < 3; k++)
            if (!isfinite(t->v[v][k]))
                return false;
    return true;
}

/* B's triangle j mapped into A's frame (rotation from the normalised quaternion, in double). */
static bool map_tri(const fmesh *b, size_t j, const mq_rigid *xf, mq_triangle *out)
{
    double q[4], n = 0.0;
    for (int k = 0; k < 4; k++)
        n += (double)xf->rotation[k] * xf->rotation[k];
    for (int k = 0; k < 4; k++)
        q[k] = xf->rotation[k] / sqrt(n);
    for (int v = 0; v < 3; v++) {
        const float *p = b->pos[b->idx[j][v]];
        /* v' = v + 2w (u x v) + 2 u x (u x v) */
        double u[3] = {q[1], q[2], q[3]}, pv[3] = {p[0], p[1], p[2]}, t[3], c[3];
        t[0] = 2 * (u[1] * pv[2] - u[2] * pv[1]);
        t[1] = 2 * (u[2] * pv[0] - u[0] * pv[2]);
        t[2] = 2 * (u[0] * pv[1] - u[1] * pv[0]);
        c[0] = u[1] * t[2] - u[2] * t[1];
        c[1] = u[2] * t[0] - u[0] * t[2];
        c[2] = u[0] * t[1] - u[1] * t[0];
        for (int k = 0; k < 3; k++)
            out->v[v][k] = (float)(pv[k] + q[0] * t[k] + c[k] + xf->translation[k]);
    }
    return tri_finite(out);
}

static void get_tri(const fmesh *m, size_t i, mq_triangle *t)
{
    for (int v = 0; v < 3; v++)
        for (int k = 0; k < 3; k++)
            t->v[v][k] = m->pos[m->idx[i][v]][k];
}

static double dist3(const double *a, const double *b)
{
    return sqrt((a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) + (a[2] - b[2]) * (a[2] - b[2]));
}

static bool count_pair(const mq_clearance_pair *p, void *user)
{
    (void)p;
    (*(size_t *)user)++;
    return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    reader r = {data, size};
    uint8_t leaves = rd_byte(&r);
    uint32_t bl = 1 + (leaves & 15) % 4, ol = 1 + (leaves >> 4) % 4;
    bool comparable = true;
    fmesh a = {0}, b = {0};
    if (!read_mesh(&r, &a, bl, ol, &comparable) || !read_mesh(&r, &b, bl, ol, &comparable)) {
        free_mesh(&a);
        free_mesh(&b);
        return 0;
    }
    mq_rigid xf;
    for (int k = 0; k < 4; k++)
        xf.rotation[k] = ((float)rd_byte(&r) - 128.0f) / 64.0f;
    for (int k = 0; k < 3; k++) {
        xf.translation[k] = coord(&r);
        comparable = comparable && small(xf.translation[k]);
    }
    bool xf_ok = xf.rotation[0] != 0 || xf.rotation[1] != 0 || xf.rotation[2] != 0 || xf.rotation[3] != 0;

    /* mesh vs mesh on both trees */
    mq_distance_result ro = {0}, rb = {0};
    bool fo = a.obb && b.obb && mq_obbtree_distance(a.obb, b.obb, &xf, NULL, &ro);
    bool fb = a.bvh && b.bvh && mq_bvh_distance(a.bvh, b.bvh, &xf, NULL, &rb);
    double scale = 1.0;
    for (size_t i = 0; i < a.nv; i++)
        for (int k = 0; k < 3; k++)
            scale = fmax(scale, fabs(a.pos[i][k]));
    for (size_t i = 0; i < b.nv; i++)
        for (int k = 0; k < 3; k++)
            scale = fmax(scale, fabs(b.pos[i][k]) + fabs(xf.translation[k]));
    double tol = 1e-5 * scale;
    if (comparable && xf_ok && a.obb && b.obb && a.bvh && b.bvh) {
        double brute = INFINITY;
        for (size_t i = 0; i < a.nt; i++) {
            mq_triangle ta, tb;
            get_tri(&a, i, &ta);
            if (!tri_finite(&ta))
                continue;
            for (size_t j = 0; j < b.nt; j++)
                if (map_tri(&b, j, &xf, &tb))
                    brute = fmin(brute, mq_closest_points_triangle_triangle(&ta, &tb, NULL, NULL));
        }
        CHECK(fo == fb);
        CHECK(fo == (brute < INFINITY));
        if (fo) {
            if (fabs(ro.distance - rb.distance) > 1e-9 * scale || fabs(ro.distance - brute) > tol)
                FAIL("distance %.17g (obb) %.17g (bvh), brute force %.17g", ro.distance, rb.distance, brute);
            CHECK(fabs(dist3(ro.point_a, ro.point_b) - ro.distance) <= tol);
            CHECK(fabs(dist3(rb.point_a, rb.point_b) - rb.distance) <= tol);
            CHECK(ro.triangle_a < a.nt && ro.triangle_b < b.nt);

            /* clearance at d */
            double d = rd_byte(&r) / 16.0;
            size_t lo = 0, hi = 0;
            for (size_t i = 0; i < a.nt; i++) {
                mq_triangle ta, tb;
                get_tri(&a, i, &ta);
                if (!tri_finite(&ta))
                    continue;
                for (size_t j = 0; j < b.nt; j++)
                    if (map_tri(&b, j, &xf, &tb)) {
                        double e = mq_closest_points_triangle_triangle(&ta, &tb, NULL, NULL);
                        lo += e <= d - tol;
                        hi += e <= d + tol;
                    }
            }
            mq_clearance_pair pairs[144];
            size_t n1 = mq_obbtree_clearance_array(a.obb, b.obb, &xf, d, pairs, 144);
            size_t n2 = mq_bvh_clearance_array(a.bvh, b.bvh, &xf, d, NULL, 0);
            if (n1 < lo || n1 > hi || n2 < lo || n2 > hi)
                FAIL("clearance %g: %zu (obb) %zu (bvh) pairs, brute force %zu..%zu", d, n1, n2, lo, hi);
            for (size_t i = 0; i < n1 && i < 144; i++)
                CHECK(pairs[i].distance <= d && pairs[i].triangle_a < a.nt && pairs[i].triangle_b < b.nt);
            CHECK(mq_obbtree_clearance_any(a.obb, b.obb, &xf, d) == (n1 > 0));
            CHECK(mq_bvh_clearance_any(a.bvh, b.bvh, &xf, d) == (n2 > 0));
            size_t calls = 0;
            CHECK(mq_bvh_clearance(a.bvh, b.bvh, &xf, d, count_pair, &calls) == n2 && calls == n2);
        }
    } else {
        /* run, do not compare */
        if (a.obb && b.obb)
            mq_obbtree_clearance_array(a.obb, b.obb, &xf, 1.0, NULL, 0);
        if (a.bvh && b.bvh)
            mq_bvh_clearance_any(a.bvh, b.bvh, &xf, 0.5);
    }

    /* a shape against mesh A */
    mq_shape s;
    uint8_t kind = rd_byte(&r) % 5;
    float f[10];
    for (int k = 0; k < 10; k++) {
        f[k] = coord(&r);
        comparable = comparable && small(f[k]);
    }
    switch (kind) {
    case 0:
        s = mq_shape_sphere((mq_sphere){{f[0], f[1], f[2]}, fabsf(f[3])});
        break;
    case 1:
        s = mq_shape_capsule((mq_capsule){{f[0], f[1], f[2]}, {f[3], f[4], f[5]}, fabsf(f[6])});
        break;
    case 2: {
        float q[4] = {f[6], f[7], f[8], f[9]};
        if (q[0] == 0 && q[1] == 0 && q[2] == 0 && q[3] == 0)
            q[0] = 1;
        mq_obb o;
        mq_obb_from_quat((vec3){f[0], f[1], f[2]}, (vec3){fabsf(f[3]), fabsf(f[4]), fabsf(f[5])}, q, &o);
        s = mq_shape_obb(o);
        break;
    }
    case 3:
        s = mq_shape_aabb((mq_aabb){{f[0], f[1], f[2]}, {f[0] + fabsf(f[3]), f[1] + fabsf(f[4]), f[2] + fabsf(f[5])}});
        break;
    default:
        s = mq_shape_sphere((mq_sphere){{f[0], f[1], f[2]}, 1.0f});
        s.kind = (mq_shape_kind)9;
        break;
    }
    mq_shape_distance_result so = {0}, sb = {0};
    bool gso = a.obb && mq_obbtree_shape_distance(a.obb, &s, NULL, &so);
    bool gsb = a.bvh && mq_bvh_shape_distance(a.bvh, &s, NULL, &sb);
    if (kind == 4)
        CHECK(!gso && !gsb);
    if (comparable && a.obb && a.bvh) {
        CHECK(gso == gsb);
        if (gso) {
            double sc = scale;
            for (int k = 0; k < 10; k++)
                sc = fmax(sc, fabs(f[k]));
            if (fabs(so.distance - sb.distance) > 1e-9 * sc)
                FAIL("shape %d: %.17g (obb) vs %.17g (bvh)", kind, so.distance, sb.distance);
            CHECK(fabs(dist3(so.point_shape, so.point_mesh) - so.distance) <= 1e-5 * sc);
            if (kind == 0) {
                double brute = INFINITY;
                for (size_t i = 0; i < a.nt; i++) {
                    mq_triangle t;
                    get_tri(&a, i, &t);
                    if (!tri_finite(&t))
                        continue;
                    vec3 q;
                    vec2 uv;
                    brute = fmin(brute, sqrt((double)mq_closest_point_triangle(s.u.sphere.center, &t, q, uv)));
                }
                brute = fmax(brute - s.u.sphere.radius, 0.0);
                if (fabs(brute - so.distance) > 1e-5 * sc)
                    FAIL("sphere: %.17g, brute force %.17g", so.distance, brute);
            }
            size_t n1 = mq_obbtree_shape_clearance_array(a.obb, &s, so.distance + 1e-6 * sc, NULL, 0);
            CHECK(n1 >= 1);
        }
    } else if (a.obb) {
        mq_obbtree_shape_clearance_any(a.obb, &s, 1.0);
    }
    free_mesh(&a);
    free_mesh(&b);
    return 0;
}
