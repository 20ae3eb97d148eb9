/*
 * libFuzzer target for the scene's shape casts (scene.h "Shape casts"): one
 * tiny mesh (3..12 vertices, 1..16 triangles) with a BVH and an OBB tree,
 * instanced 1..4 times under fuzzed affine transforms; one sphere, capsule or
 * placed convex (4..8 fuzzed points; a hull that does not build is skipped)
 * cast along a fuzzed direction up to a fuzzed tmax, with a fuzzed mask.
 *
 * Input layout (every read past the end yields 0):
 *   byte   vertex count (3 + b % 10), 3 numbers per vertex (num)
 *   byte   triangle count (1 + b % 16), 3 index bytes each (mod vertex count)
 *   byte   instance count (1 + b % 4); per instance: a byte (bit 0: OBB
 *          tree), 12 numbers (the 3x4 transform; rows of the linear part
 *          replaced by a rotation or identity when bit 1 / bit 2 is set), a mask byte
 *   byte   shape kind (b % 3: sphere, capsule, convex); its numbers
 *          (sphere: centre, radius; capsule: a, b, radius; convex: point
 *          count 4 + b % 5, points, a quaternion, a translation)
 *   3+1    dir (3 numbers), tmax (number; its sign bit cleared unless b & 1)
 *   byte   query mask
 * Numbers: small integers and quarters, +-1e7, or raw float/double bits.
 *
 * Checked (abort with a message on a mismatch), all promised by scene.h:
 *   - a hit has t in [0, tmax], a committed instance whose mask matches, its
 *     user id, a triangle < count, a unit normal, a finite point, and
 *     initially_overlapping == (t == 0); a miss is the miss record;
 *   - invalid input (non-finite dir, NaN or negative tmax, a box) misses;
 *   - the batch of one (1 and 2 threads) equals the single cast field by field;
 *   - spheres and capsules: when the cast with zero motion hits, the moving
 *     cast hits at t == 0; the cast again with tmax = t (> 0) finds the same t; with
 *     the query mask narrowed to the hit instance's bits the same t.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <meshquery/meshquery.h>

#include "fuzz_reader.h"

#define FAIL(...)                                                                                                      \
    do {                                                                                                               \
        fprintf(stderr, "fuzz_scene_cast: mismatch (line %d): ", __LINE__);                                            \
        fprintf(stderr, __VA_ARGS__);                                                                                  \
        fprintf(stderr, "\n");                                                                                         \
        abort();                                                                                                       \
    } while (0)
#define CHECK(cond)                                                                                                    \
    do {                                                                                                               \
        if (!(cond))                                                                                                   \
            FAIL("%s", #cond);                                                                                         \
    } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static double num(reader *r)
{
    uint8_t b = rd_byte(r);
    switch (b >> 6) {
    case 0:
        return ((double)(b & 63) - 32.0) * 0.25;
    case 1:
        return (double)((int)(b & 63) - 32);
    case 2: {
        static const double far[4] = {1e7, -1e7, 1e7 + 0.5, 3.0e5};
        return far[b & 3] + (double)((b >> 2) & 15) * 0.25;
    }
    default:
        return (b & 1) ? rd_raw64_le(r) : (double)rd_raw_le(r);
    }
}

static bool finite3(const double *v)
{
    return isfinite(v[0]) && isfinite(v[1]) && isfinite(v[2]);
}

static bool same_hit(const mq_scene_cast_hit *a, const mq_scene_cast_hit *b)
{
    bool t_same = a->t == b->t || (isnan(a->t) && isnan(b->t));
    return t_same && a->instance == b->instance && a->triangle == b->triangle && a->user_id == b->user_id &&
           a->initially_overlapping == b->initially_overlapping &&
           memcmp(a->normal, b->normal, sizeof a->normal) == 0 &&
           (a->instance == MQ_NO_INSTANCE || memcmp(a->point, b->point, sizeof a->point) == 0);
}

static void check_record(const mq_scene *scene, const mq_mesh *mesh, bool hit, const mq_scene_cast_hit *h, double tmax,
                         uint32_t qmask)
{
    if (!hit) {
        CHECK(isinf(h->t) && h->instance == MQ_NO_INSTANCE && h->triangle == MQ_NO_TRIANGLE);
        CHECK(!h->initially_overlapping);
        return;
    }
    CHECK(h->t >= 0.0 && h->t <= tmax);
    mq_instance_def d;
    CHECK(mq_scene_instance(scene, h->instance, &d));
    CHECK((d.mask & qmask) != 0);
    CHECK(d.user_id == h->user_id);
    CHECK(h->triangle < mq_mesh_triangle_count(mesh));
    CHECK(h->initially_overlapping == (h->t == 0.0));
    double nl = sqrt(h->normal[0] * h->normal[0] + h->normal[1] * h->normal[1] + h->normal[2] * h->normal[2]);
    if (!(nl == 0.0 || fabs(nl - 1.0) < 1e-6))
        FAIL("normal length %.17g", nl);
    CHECK(finite3(h->point));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    reader r = {data, size};
    int nv = 3 + rd_byte(&r) % 10;
    float pos[3 * 12];
    for (int i = 0; i < 3 * nv; i++) {
        double x = num(&r);
        pos[i] = isfinite(x) && fabs(x) < 1e30 ? (float)x : 0.0f;
    }
    int nt = 1 + rd_byte(&r) % 16;
    uint32_t idx[3 * 16];
    for (int i = 0; i < 3 * nt; i++)
        idx[i] = rd_byte(&r) % (uint32_t)nv;
    mq_mesh *mesh = NULL;
    mq_bvh *bvh = NULL;
    mq_obbtree *obt = NULL;
    mq_scene *scene = NULL;
    mq_convex *hull = NULL;
    if (mq_mesh_create(pos, (size_t)nv, idx, (size_t)nt, NULL, &mesh, NULL) != MQ_OK)
        return 0;
    if (mq_bvh_build(mesh, NULL, &bvh, NULL) != MQ_OK || mq_obbtree_build(mesh, NULL, &obt, NULL) != MQ_OK ||
        mq_scene_create(NULL, &scene, NULL) != MQ_OK)
        goto done;
    int ni = 1 + rd_byte(&r) % 4;
    for (int i = 0; i < ni; i++) {
        uint8_t b = rd_byte(&r);
        mq_instance_def d = mq_default_instance_def();
        if (b & 1)
            d.obbtree = obt;
        else
            d.bvh = bvh;
        for (int row = 0; row < 3; row++)
            for (int c = 0; c < 4; c++)
                d.transform.m[row][c] = num(&r);
        if (b & 6) {
            double q[4] = {1.0 + (b >> 3 & 3), (b >> 5) & 1, 0.5, -(double)((b >> 6) & 1)}, t[3], s[3] = {1, 1, 1};
            for (int k = 0; k < 3; k++)
                t[k] = d.transform.m[k][3];
            if (b & 4)
                s[b % 3] = 2.0 + (b >> 5);
            d.transform = mq_xform_from_trs(t, q, s);
        }
        d.mask = ~(uint32_t)(rd_byte(&r) * 0x01010101u);
        d.user_id = 77u + (uint64_t)i;
        uint32_t id;
        (void)mq_scene_add(scene, &d, &id, NULL); /* rejected transforms are fine */
    }
    if (mq_scene_commit(scene, NULL) != MQ_OK)
        goto done;
    int kind = rd_byte(&r) % 3;
    mq_dshape s;
    if (kind == 0) {
        mq_dsphere sp = {{num(&r), num(&r), num(&r)}, num(&r)};
        s = mq_dshape_sphere(sp);
    } else if (kind == 1) {
        mq_dcapsule cp = {{num(&r), num(&r), num(&r)}, {num(&r), num(&r), num(&r)}, num(&r)};
        s = mq_dshape_capsule(cp);
    } else {
        int np = 4 + rd_byte(&r) % 5;
        float pts[3 * 8];
        for (int i = 0; i < 3 * np; i++)
            pts[i] = (float)num(&r);
        if (mq_convex_create(pts, (size_t)np, NULL, &hull, NULL) != MQ_OK)
            goto done;
        mq_dconvex c = {hull, {num(&r), num(&r), num(&r)}, {num(&r), num(&r), num(&r), num(&r)}};
        s = mq_dshape_convex(c);
    }
    mq_dvec3 dir = {num(&r), num(&r), num(&r)};
    uint8_t tb = rd_byte(&r);
    double tmax = num(&r);
    if (!(tb & 1))
        tmax = fabs(tmax);
    mq_scene_query q = mq_default_scene_query();
    q.mask = ~(uint32_t)(rd_byte(&r) * 0x01010101u);

    mq_scene_cast_hit h, b1, b2;
    bool hit = mq_scene_shape_cast(scene, &s, dir, tmax, &q, &h);
    check_record(scene, mesh, hit, &h, tmax, q.mask);
    if (!finite3(dir) || !(tmax >= 0.0))
        CHECK(!hit);
    size_t n1 = mq_scene_shape_cast_batch(scene, &s, (const mq_dvec3 *)&dir, 1, tmax, &q, 1, &b1);
    size_t n2 = mq_scene_shape_cast_batch(scene, &s, (const mq_dvec3 *)&dir, 1, tmax, &q, 2, &b2);
    CHECK(n1 == (size_t)hit && n2 == (size_t)hit);
    CHECK(same_hit(&h, &b1) && same_hit(&h, &b2));
    /* the same shape as a box is rejected */
    if (kind == 0) {
        mq_daabb bx = {{s.u.sphere.center[0] - s.u.sphere.radius, s.u.sphere.center[1] - s.u.sphere.radius,
                        s.u.sphere.center[2] - s.u.sphere.radius},
                       {s.u.sphere.center[0] + s.u.sphere.radius, s.u.sphere.center[1] + s.u.sphere.radius,
                        s.u.sphere.center[2] + s.u.sphere.radius}};
        mq_dshape box = mq_dshape_aabb(bx);
        CHECK(!mq_scene_shape_cast(scene, &box, dir, tmax, &q, &b1));
    }
    if (hit && kind != 2) {
        mq_dvec3 zero = {0, 0, 0};
        bool still = mq_scene_shape_cast(scene, &s, zero, tmax, &q, &b1);
        /* an initial overlap is always reported as t = 0; the converse need
         * not hold: a shape that touches the Minkowski surface to within float
         * rounding at the start may be entered at t = 0 by the moving test */
        if (still && h.t != 0.0)
            FAIL("zero motion %d vs t %.17g", still, h.t);
        mq_scene_cast_hit again;
        /* (t = 0 may come from the moving test entering at 0, see above:
         * with tmax = 0 that one is not repeated) */
        if (h.t > 0.0) {
            CHECK(mq_scene_shape_cast(scene, &s, dir, h.t, &q, &again));
            if (again.t != h.t)
                FAIL("tmax = t: %.17g vs %.17g", again.t, h.t);
        }
        mq_instance_def d;
        CHECK(mq_scene_instance(scene, h.instance, &d));
        mq_scene_query only = q;
        only.mask = d.mask & q.mask;
        CHECK(mq_scene_shape_cast(scene, &s, dir, tmax, &only, &again));
        CHECK(again.t == h.t);
    }
done:
    mq_convex_destroy(hull);
    mq_scene_destroy(scene);
    mq_obbtree_destroy(obt);
    mq_bvh_destroy(bvh);
    mq_mesh_destroy(mesh);
    return 0;
}
