/*
 * libFuzzer target for the shape distance, shape clearance and shape casts of
 * the k-DOP tree and the sphere tree (meshquery/proximity.h, casts.h): a tiny
 * mesh decoded from the input, both trees and an OBB tree over it, then up to
 * 16 shapes, each queried on every tree.
 *
 * Input layout: fuzz_kdoptree.c's (its seeds are seeds here too):
 *   byte   vertex count (3 + b % 14)
 *   byte   k-DOP tree's k (6, 14, 18, 26 by b % 4) and leaf sizes (b >> 2: both trees, 1 + b % 16)
 *   coords 3 per vertex
 *   byte   triangle count (1 + b % 24), then 3 index bytes per triangle
 *   then shapes: a kind byte (% 8: 1 sphere, 2 capsule, 3 OBB, 4 AABB, 7 with
 *   bit 4 a convex hull of 4..11 points; 0, 5, 6 and 7 without it: a kind no
 *   tree knows), its fields, then a size (the clearance d), a direction and,
 *   with bit 5 of the kind, a size as the cast's tmax (else INFINITY).
 *
 * Compared (a mismatch aborts):
 *   - distance: both trees give the brute-force minimum of the leaf distance
 *     (src/proximity, the one every hierarchy uses) over every finite triangle,
 *     bit for bit, and the OBB tree's answer; the named triangle is at it;
 *     max_distance just below it finds nothing;
 *   - clearance within d: exactly the triangles brute force puts within d,
 *     at their brute-force distances; _any agrees;
 *   - casts (spheres, capsules, convexes): both trees' records equal the OBB
 *     tree's bit for bit; a convex's t and triangle equal the smallest
 *     mq_convex_cast_triangle time over every triangle (ties: smaller id).
 * Inputs with coordinates beyond 1e17 run (no crash, no leak) uncompared,
 * as in fuzz_kdoptree.c.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <meshquery/casts.h>
#include <meshquery/convex.h>
#include <meshquery/kdoptree.h>
#include <meshquery/mesh.h>
#include <meshquery/obbtree.h>
#include <meshquery/primitives.h>
#include <meshquery/proximity.h>
#include <meshquery/spheretree.h>

#include "fuzz_reader.h"

#include "proximity/distance_walk.h"
#include "proximity/distance_walk_internal.h"

#define MAX_V 16
#define MAX_T 24
#define MAX_Q 16
#define EXACT_LIMIT 1e17f

#define FAIL(...)                                                                                                      \
    do {                                                                                                               \
        fprintf(stderr, "fuzz_tree_shapes: " __VA_ARGS__);                                                             \
        fprintf(stderr, "\n");                                                                                         \
        abort();                                                                                                       \
    } while (0)
#define CHECK(c)                                                                                                       \
    do {                                                                                                               \
        if (!(c))                                                                                                      \
            FAIL("check failed: %s (line %d)", #c, __LINE__);                                                          \
    } while (0)

typedef struct fixture {
    const mq_kdoptree *kdop;
    const mq_spheretree *sphere;
    const mq_obbtree *obb;
    uint32_t nt;
    mq_triangle tri[MAX_T];
    float mesh_scale;
} fixture;

static bool t_distance(const fixture *f, int which, const mq_shape *s, const mq_distance_options *o,
                       mq_shape_distance_result *r)
{
    return which ? mq_spheretree_shape_distance(f->sphere, s, o, r) : mq_kdoptree_shape_distance(f->kdop, s, o, r);
}

static size_t t_clearance(const fixture *f, int which, const mq_shape *s, double d, mq_clearance_pair *out, size_t cap)
{
    return which ? mq_spheretree_shape_clearance_array(f->sphere, s, d, out, cap)
                 : mq_kdoptree_shape_clearance_array(f->kdop, s, d, out, cap);
}

static bool t_clearance_any(const fixture *f, int which, const mq_shape *s, double d)
{
    return which ? mq_spheretree_shape_clearance_any(f->sphere, s, d) : mq_kdoptree_shape_clearance_any(f->kdop, s, d);
}

/* The leaf distance of the shape to triangle i (INFINITY for a non-finite corner). */
static double leaf_distance(const fixture *f, const mq_dist_shape *ds, uint32_t i)
{
    mq_dw_tri t;
    memset(&t, 0, sizeof t);
    for (int v = 0; v < 3; v++)
        for (int k = 0; k < 3; k++) {
            float x = f->tri[i].v[v][k];
            if (!isfinite(x))
                return INFINITY;
            t.d.v[v][k] = x;
            t.f.v[v][k] = x;
        }
    mq_td_tri_prepare(&t.d);
    for (int k = 0; k < 3; k++) {
        t.lo[k] = fmin(fmin(t.d.v[0][k], t.d.v[1][k]), t.d.v[2][k]);
        t.hi[k] = fmax(fmax(t.d.v[0][k], t.d.v[1][k]), t.d.v[2][k]);
        t.c[k] = (t.d.v[0][k] + t.d.v[1][k] + t.d.v[2][k]) * (1.0 / 3.0);
    }
    t.id = i;
    double ps[3], pt[3];
    return mq_dist_shape_triangle(ds, &t, ps, pt);
}

static void check_distance(const fixture *f, const mq_shape *s, float scale, float dsize)
{
    bool exact = f->mesh_scale < EXACT_LIMIT && !(scale >= EXACT_LIMIT);
    mq_dist_shape ds;
    bool valid = mq_dist_shape_from(s, &ds);
    double brute[MAX_T], best = INFINITY;
    for (uint32_t i = 0; i < f->nt; i++) {
        brute[i] = valid ? leaf_distance(f, &ds, i) : INFINITY;
        best = brute[i] < best ? brute[i] : best;
    }
    mq_shape_distance_result ro;
    bool fo = mq_obbtree_shape_distance(f->obb, s, NULL, &ro);
    for (int which = 0; which < 2; which++) {
        mq_shape_distance_result r;
        bool found = t_distance(f, which, s, NULL, &r);
        CHECK(found == r.found);
        if (!exact)
            continue;
        CHECK(found == (best < INFINITY));
        CHECK(found == fo);
        if (!found) {
            CHECK(r.triangle == MQ_NO_TRIANGLE);
            continue;
        }
        CHECK(r.distance == best);
        CHECK(r.distance == ro.distance);
        CHECK(r.triangle < f->nt && brute[r.triangle] == best);
        if (best > 0.0) {
            mq_distance_options o = mq_default_distance_options();
            o.max_distance = nextafter(best, 0.0);
            CHECK(!t_distance(f, which, s, &o, NULL));
        }
    }
    /* clearance within d */
    double d = dsize;
    mq_clearance_pair got[MAX_T + 1];
    for (int which = 0; which < 2; which++) {
        size_t n = t_clearance(f, which, s, d, got, MAX_T + 1);
        bool any = t_clearance_any(f, which, s, d);
        if (!exact)
            continue;
        CHECK(any == (n > 0));
        if (!valid || !(d >= 0.0)) {
            CHECK(n == 0);
            continue;
        }
        uint8_t seen[MAX_T] = {0};
        size_t want = 0;
        for (uint32_t i = 0; i < f->nt; i++)
            want += brute[i] <= d;
        CHECK(n == want);
        for (size_t k = 0; k < n; k++) {
            uint32_t i = got[k].triangle_b;
            CHECK(i < f->nt && !seen[i]++);
            CHECK(got[k].triangle_a == MQ_NO_TRIANGLE && got[k].distance == brute[i]);
        }
    }
}

static bool same_hit(const mq_cast_hit *a, const mq_cast_hit *b)
{
    return memcmp(&a->t, &b->t, sizeof a->t) == 0 && a->triangle == b->triangle &&
           memcmp(a->point, b->point, sizeof a->point) == 0 && memcmp(a->normal, b->normal, sizeof a->normal) == 0 &&
           a->initially_overlapping == b->initially_overlapping;
}

static void check_cast(const fixture *f, const mq_shape *s, const vec3 dir, float tmax, float scale)
{
    bool exact = f->mesh_scale < EXACT_LIMIT && !(scale >= EXACT_LIMIT) && !(absmax3(dir) >= EXACT_LIMIT);
    mq_cast_hit ho, hk, hs;
    bool fo, fk, fs;
    switch (s->kind) {
    case MQ_SHAPE_SPHERE:
        fo = mq_obbtree_sphere_cast(f->obb, &s->u.sphere, dir, tmax, &ho);
        fk = mq_kdoptree_sphere_cast(f->kdop, &s->u.sphere, dir, tmax, &hk);
        fs = mq_spheretree_sphere_cast(f->sphere, &s->u.sphere, dir, tmax, &hs);
        break;
    case MQ_SHAPE_CAPSULE:
        fo = mq_obbtree_capsule_cast(f->obb, &s->u.capsule, dir, tmax, &ho);
        fk = mq_kdoptree_capsule_cast(f->kdop, &s->u.capsule, dir, tmax, &hk);
        fs = mq_spheretree_capsule_cast(f->sphere, &s->u.capsule, dir, tmax, &hs);
        break;
    case MQ_SHAPE_CONVEX:
        fo = mq_obbtree_convex_cast(f->obb, s->u.convex, dir, tmax, &ho);
        fk = mq_kdoptree_convex_cast(f->kdop, s->u.convex, dir, tmax, &hk);
        fs = mq_spheretree_convex_cast(f->sphere, s->u.convex, dir, tmax, &hs);
        break;
    default:
        return;
    }
    if (!exact)
        return;
    if (!(fk == fo && same_hit(&hk, &ho)) || !(fs == fo && same_hit(&hs, &ho)))
        FAIL("%s cast, dir (%g %g %g) tmax %g: OBB tree %d t %.9g tri %u, k-DOP %d t %.9g tri %u, sphere %d t %.9g "
             "tri %u",
             s->kind == MQ_SHAPE_SPHERE    ? "sphere"
             : s->kind == MQ_SHAPE_CAPSULE ? "capsule"
                                           : "convex",
             dir[0], dir[1], dir[2], tmax, fo, ho.t, ho.triangle, fk, hk.t, hk.triangle, fs, hs.t, hs.triangle);
    if (s->kind == MQ_SHAPE_CONVEX && isfinite(absmax3(dir)) && tmax >= 0.0f) {
        float best = INFINITY;
        uint32_t id = MQ_NO_TRIANGLE;
        for (uint32_t i = 0; i < f->nt; i++) {
            float t;
            if (mq_convex_cast_triangle(s->u.convex, dir, tmax, &f->tri[i], &t) && t < best) {
                best = t;
                id = i;
            }
        }
        CHECK(fk == (id != MQ_NO_TRIANGLE));
        CHECK(hk.triangle == id && (!fk || hk.t == best));
    }
}

static void run_queries(const fixture *f, reader *r)
{
    for (int q = 0; q < MAX_Q && r->n; q++) {
        uint8_t kind = rd_byte(r);
        mq_shape s;
        memset(&s, 0, sizeof s);
        float scale = 0.0f;
        mq_convex *cv = NULL;
        switch (kind % 8) {
        case 1:
            s.kind = MQ_SHAPE_SPHERE;
            read_vec3(r, s.u.sphere.center);
            s.u.sphere.radius = read_size(r);
            scale = absmax3(s.u.sphere.center) + fabsf(s.u.sphere.radius);
            break;
        case 2:
            s.kind = MQ_SHAPE_CAPSULE;
            read_vec3(r, s.u.capsule.a);
            read_vec3(r, s.u.capsule.b);
            s.u.capsule.radius = read_size(r);
            scale = fmaxf(absmax3(s.u.capsule.a), absmax3(s.u.capsule.b)) + fabsf(s.u.capsule.radius);
            break;
        case 3: {
            s.kind = MQ_SHAPE_OBB;
            vec3 c, h;
            read_vec3(r, c);
            for (int i = 0; i < 3; i++)
                h[i] = read_size(r);
            float quat[4] = {read_coord(r), read_coord(r), read_coord(r), read_coord(r)};
            if (quat[0] == 0 && quat[1] == 0 && quat[2] == 0 && quat[3] == 0)
                quat[0] = 1;
            mq_obb_from_quat(c, h, quat, &s.u.obb);
            scale = absmax3(c) + absmax3(h);
            break;
        }
        case 4:
            s.kind = MQ_SHAPE_AABB;
            read_vec3(r, s.u.aabb.min);
            read_vec3(r, s.u.aabb.max);
            scale = fmaxf(absmax3(s.u.aabb.min), absmax3(s.u.aabb.max));
            break;
        case 7:
            if (kind & 0x10) {
                float pts[3 * 11];
                size_t np = 4 + (size_t)(kind >> 5);
                for (size_t i = 0; i < np; i++) {
                    read_vec3(r, pts + 3 * i);
                    scale = fmaxf(scale, absmax3(pts + 3 * i));
                }
                if (mq_convex_create(pts, np, NULL, &cv, NULL) != MQ_OK)
                    continue; /* does not span a solid */
                s = mq_shape_convex(cv);
                break;
            }
            /* fall through */
        default:
            s.kind = (mq_shape_kind)(100 + kind); /* a kind no tree knows: nothing */
            break;
        }
        float d = read_size(r);
        vec3 dir;
        read_vec3(r, dir);
        float tmax = (kind & 0x20) ? read_size(r) : INFINITY;
        check_distance(f, &s, scale, d);
        check_cast(f, &s, dir, tmax, scale);
        mq_convex_destroy(cv);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    reader r = {data, size};
    uint32_t nv = 3 + rd_byte(&r) % 14;
    uint8_t opts = rd_byte(&r);
    static const uint32_t ks[4] = {6, 14, 18, 26};
    float pos[3 * MAX_V];
    for (uint32_t i = 0; i < 3 * nv; i++)
        pos[i] = read_coord(&r);
    uint32_t nt = 1 + rd_byte(&r) % 24, idx[3 * MAX_T];
    for (uint32_t i = 0; i < 3 * nt; i++)
        idx[i] = rd_byte(&r) % nv;
    mq_mesh *mesh = NULL;
    if (mq_mesh_create(pos, nv, idx, nt, NULL, &mesh, NULL) != MQ_OK)
        return 0;
    fixture f;
    memset(&f, 0, sizeof f);
    f.nt = nt;
    for (uint32_t i = 0; i < nt; i++) {
        mq_mesh_get_triangle(mesh, i, &f.tri[i]);
        for (int v = 0; v < 3; v++) {
            float m = absmax3(f.tri[i].v[v]);
            if (isfinite(m) && m > f.mesh_scale)
                f.mesh_scale = m;
        }
    }
    mq_kdoptree_def kd = mq_default_kdoptree_def();
    kd.k = ks[opts % 4];
    kd.max_leaf_size = 1 + (opts >> 2) % 16;
    mq_spheretree_def sd = mq_default_spheretree_def();
    sd.max_leaf_size = kd.max_leaf_size;
    mq_kdoptree *k = NULL;
    mq_spheretree *s = NULL;
    mq_obbtree *o = NULL;
    CHECK(mq_kdoptree_build(mesh, &kd, &k, NULL) == MQ_OK);
    CHECK(mq_spheretree_build(mesh, &sd, &s, NULL) == MQ_OK);
    CHECK(mq_obbtree_build(mesh, NULL, &o, NULL) == MQ_OK);
    f.kdop = k;
    f.sphere = s;
    f.obb = o;
    run_queries(&f, &r);
    mq_kdoptree_destroy(k);
    mq_spheretree_destroy(s);
    mq_obbtree_destroy(o);
    mq_mesh_destroy(mesh);
    return 0;
}
