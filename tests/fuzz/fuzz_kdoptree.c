/*
 * libFuzzer target for the k-DOP tree and the sphere tree: a tiny mesh
 * decoded from the input (3..16 vertices, 1..24 triangles; coordinates drawn by
 * fuzz_reader.h: mostly small integers and quarters, so touching, shared
 * edges and coplanar cases are common, sometimes any bit pattern), both
 * trees over it, then up to 16 queries, each compared with brute force over
 * all triangles through the public primitives.
 *
 * Input layout (every read past the end yields 0):
 *   byte   vertex count (3 + b % 14)
 *   byte   k-DOP tree's k (6, 14, 18, 26 by b % 4) and leaf sizes (b >> 2: both trees, 1 + b % 16)
 *   coords 3 per vertex
 *   byte   triangle count (1 + b % 24), then 3 index bytes per triangle
 *   then queries: a kind byte and its fields.
 *
 * Compared, on both trees (a mismatch aborts):
 *   - shape overlap (sphere, capsule, OBB, AABB, and a convex hull of 4..11
 *     decoded points): the id set equals the primitive on the shape cut down
 *     to the trees' region (kdoptree.h; a convex is kept whole); the array,
 *     callback and any forms agree;
 *   - rays: the closest hit equals brute force (triangle, t, u, v; ties: the
 *     smallest id); any-hit equals "closest found";
 *   - closest point: the brute-force minimum (ties: smallest id) within max;
 *   - mesh vs mesh (the mesh against itself under a rigid transform): the
 *     pair set equals brute force with mq_rigid_apply.
 * Inputs with coordinates beyond 1e17 run (no crash, no leak) uncompared:
 * the trees are exact for coordinates below about 1e18, as the OBB tree.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <meshquery/convex.h>
#include <meshquery/kdoptree.h>
#include <meshquery/mesh.h>
#include <meshquery/primitives.h>
#include <meshquery/spheretree.h>

#include "fuzz_reader.h"

#include "primitives/shape_checks.h"
#include "primitives/shape_reduce.h"
#include "kdoptree/kdoptree_internal.h"

#define MAX_V 16
#define MAX_T 24
#define MAX_Q 16
#define EXACT_LIMIT 1e17f

#define FAIL(...)                                                                                                      \
    do {                                                                                                               \
        fprintf(stderr, "fuzz_kdoptree: " __VA_ARGS__);                                                                \
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
    uint32_t nt;
    mq_triangle tri[MAX_T];
    float mesh_scale;
} fixture;

static bool exact_ok(const fixture *f, float scale)
{
    return f->mesh_scale < EXACT_LIMIT && !(scale >= EXACT_LIMIT);
}

/* ---- the two trees behind one interface ---- */

static size_t t_array(const fixture *f, int which, const mq_shape *s, uint32_t *out, size_t cap)
{
    return which ? mq_spheretree_overlap_array(f->sphere, s, out, cap)
                 : mq_kdoptree_overlap_array(f->kdop, s, out, cap);
}
static size_t t_each(const fixture *f, int which, const mq_shape *s, mq_overlap_fn fn, void *u)
{
    return which ? mq_spheretree_overlap(f->sphere, s, fn, u) : mq_kdoptree_overlap(f->kdop, s, fn, u);
}
static bool t_any(const fixture *f, int which, const mq_shape *s)
{
    return which ? mq_spheretree_overlap_any(f->sphere, s) : mq_kdoptree_overlap_any(f->kdop, s);
}

typedef struct collect {
    uint8_t seen[MAX_T];
    size_t calls;
    bool bad;
} collect;

static bool collect_fn(uint32_t tri, void *user)
{
    collect *c = user;
    c->calls++;
    if (tri >= MAX_T || c->seen[tri]++)
        c->bad = true;
    return true;
}

/* The shape cut down to the trees' region, as the trees cut it; false when it meets nothing. */
static bool cut(const fixture *f, const mq_shape *s, mq_shape *out)
{
    const double *lo = f->kdop->bvt.lo, *hi = f->kdop->bvt.hi;
    *out = *s;
    switch (s->kind) {
    case MQ_SHAPE_SPHERE:
        return mq_sphere_ok(&s->u.sphere) && mq_sphere_reduce(&s->u.sphere, lo, hi, &out->u.sphere);
    case MQ_SHAPE_CAPSULE:
        return mq_capsule_ok(&s->u.capsule) && mq_capsule_reduce(&s->u.capsule, lo, hi, &out->u.capsule);
    case MQ_SHAPE_OBB:
        return mq_obb_is_valid(&s->u.obb) && mq_obb_reduce(&s->u.obb, lo, hi, &out->u.obb);
    case MQ_SHAPE_AABB:
        return mq_aabb_ok(&s->u.aabb) && mq_aabb_reduce(&s->u.aabb, lo, hi, &out->u.aabb);
    case MQ_SHAPE_CONVEX:
        return s->u.convex != NULL; /* tested in double at any size: kept whole */
    default:
        return false;
    }
}

static bool prim(const mq_shape *s, const mq_triangle *t)
{
    switch (s->kind) {
    case MQ_SHAPE_SPHERE:
        return mq_overlap_sphere_triangle(&s->u.sphere, t);
    case MQ_SHAPE_CAPSULE:
        return mq_overlap_capsule_triangle(&s->u.capsule, t);
    case MQ_SHAPE_OBB:
        return mq_overlap_triangle_obb(t, &s->u.obb);
    case MQ_SHAPE_AABB:
        return mq_overlap_triangle_aabb(t, &s->u.aabb);
    case MQ_SHAPE_CONVEX:
        return mq_overlap_convex_triangle(s->u.convex, t);
    default:
        return false;
    }
}

static void check_shape(const fixture *f, const mq_shape *s, float scale)
{
    bool want[MAX_T] = {false};
    size_t nwant = 0;
    mq_shape c;
    bool exact = exact_ok(f, scale) && f->nt > 0;
    if (exact && f->kdop->bvt.node_count > 0 && cut(f, s, &c))
        for (uint32_t i = 0; i < f->nt; i++)
            nwant += want[i] = prim(&c, &f->tri[i]);
    for (int which = 0; which < 2; which++) {
        collect col;
        memset(&col, 0, sizeof col);
        size_t n = t_each(f, which, s, collect_fn, &col);
        CHECK(!col.bad && n == col.calls);
        uint32_t arr[MAX_T];
        CHECK(t_array(f, which, s, arr, MAX_T) == n);
        CHECK(t_any(f, which, s) == (n > 0));
        for (size_t i = 0; i < n; i++)
            CHECK(arr[i] < MAX_T && col.seen[arr[i]]);
        if (!exact)
            continue;
        for (uint32_t i = 0; i < f->nt; i++)
            if (want[i] != (col.seen[i] != 0))
                FAIL("%s overlap (kind %d): triangle %u tree %d, primitive %d", which ? "sphere" : "kdop", (int)s->kind,
                     i, col.seen[i] != 0, want[i]);
        CHECK(n == nwant);
    }
}

static void check_ray(const fixture *f, const mq_ray *ray, bool cull)
{
    int best = -1;
    mq_triangle_hit bh = {0};
    bool valid = mq_ray_is_valid(ray);
    for (uint32_t i = 0; valid && i < f->nt; i++) {
        mq_triangle_hit h;
        if (mq_raycast_triangle(ray, &f->tri[i], &h) && !(cull && h.back_face) && (best < 0 || h.t < bh.t)) {
            best = (int)i;
            bh = h;
        }
    }
    bool exact = exact_ok(f, fmaxf(absmax3(ray->origin), absmax3(ray->dir)));
    mq_ray_query q = {.cull_back_faces = cull};
    for (int which = 0; which < 2; which++) {
        mq_hit h;
        bool hit = which ? mq_spheretree_raycast_closest(f->sphere, ray, &q, &h)
                         : mq_kdoptree_raycast_closest(f->kdop, ray, &q, &h);
        bool any = which ? mq_spheretree_raycast_any(f->sphere, ray, &q) : mq_kdoptree_raycast_any(f->kdop, ray, &q);
        CHECK(any == hit);
        if (!exact)
            continue;
        if (hit != (best >= 0))
            FAIL("%s ray: tree %d, brute %d", which ? "sphere" : "kdop", hit, best >= 0);
        if (hit && (h.triangle != (uint32_t)best || h.t != bh.t || h.u != bh.u || h.v != bh.v))
            FAIL("%s ray: tree triangle %u t %a, brute %d t %a", which ? "sphere" : "kdop", h.triangle, (double)h.t,
                 best, (double)bh.t);
    }
}

static void check_point(const fixture *f, const vec3 p, float maxd)
{
    bool bad_input = !isfinite(p[0]) || !isfinite(p[1]) || !isfinite(p[2]) || isnan(maxd) || maxd < 0.0f;
    int best = -1;
    float bd = INFINITY, d2[MAX_T];
    vec3 pts[MAX_T];
    for (uint32_t i = 0; !bad_input && i < f->nt; i++) {
        d2[i] = mq_closest_point_triangle(p, &f->tri[i], pts[i], NULL);
        if (!isnan(d2[i]) && (best < 0 || d2[i] < bd))
            best = (int)i, bd = d2[i];
    }
    for (int which = 0; which < 2; which++) {
        mq_point_hit h;
        h.triangle = 12345;
        bool got = which ? mq_spheretree_closest_point(f->sphere, p, maxd, &h)
                         : mq_kdoptree_closest_point(f->kdop, p, maxd, &h);
        if (bad_input) {
            CHECK(!got && h.triangle == 12345);
            continue;
        }
        if (!exact_ok(f, absmax3(p)))
            continue;
        double lim = (double)maxd * maxd;
        bool ambiguous = best >= 0 && fabs((double)bd - lim) <= 1e-6 * lim;
        if (!ambiguous && got != (best >= 0 && (double)bd <= lim))
            FAIL("%s closest point: tree %d, brute d2 %a max %a", which ? "sphere" : "kdop", got, (double)bd,
                 (double)maxd);
        if (got && h.triangle != (uint32_t)best)
            FAIL("%s closest point: tree triangle %u, brute %d", which ? "sphere" : "kdop", h.triangle, best);
        if (got)
            CHECK(memcmp(h.point, pts[best], sizeof(vec3)) == 0);
    }
}

typedef struct pairs {
    uint8_t seen[MAX_T][MAX_T];
    size_t calls;
    bool bad;
} pairs;

static bool pair_fn(uint32_t a, uint32_t b, void *user)
{
    pairs *p = user;
    p->calls++;
    if (a >= MAX_T || b >= MAX_T || p->seen[a][b]++)
        p->bad = true;
    return true;
}

static void check_collide(const fixture *f, const mq_rigid *xf, float scale)
{
    for (int which = 0; which < 2; which++) {
        pairs *p = calloc(1, sizeof *p);
        CHECK(p);
        size_t n = which ? mq_spheretree_collide(f->sphere, f->sphere, xf, pair_fn, p)
                         : mq_kdoptree_collide(f->kdop, f->kdop, xf, pair_fn, p);
        CHECK(!p->bad && n == p->calls);
        bool any =
            which ? mq_spheretree_any_collide(f->sphere, f->sphere, xf) : mq_kdoptree_any_collide(f->kdop, f->kdop, xf);
        CHECK(any == (n > 0));
        if (exact_ok(f, scale)) {
            mq_triangle moved[MAX_T];
            for (uint32_t j = 0; j < f->nt; j++)
                for (int c = 0; c < 3; c++)
                    mq_rigid_apply(xf, f->tri[j].v[c], moved[j].v[c]);
            for (uint32_t i = 0; i < f->nt; i++)
                for (uint32_t j = 0; j < f->nt; j++) {
                    bool want = mq_overlap_triangle_triangle(&f->tri[i], &moved[j]);
                    if (want != (p->seen[i][j] != 0))
                        FAIL("%s collide: pair (%u, %u) tree %d, primitive %d", which ? "sphere" : "kdop", i, j,
                             p->seen[i][j] != 0, want);
                }
        }
        free(p);
    }
}

static void run_queries(const fixture *f, reader *r)
{
    for (int q = 0; q < MAX_Q && r->n; q++) {
        uint8_t kind = rd_byte(r);
        mq_shape s;
        memset(&s, 0, sizeof s);
        switch (kind % 8) {
        case 0: {
            mq_ray ray;
            read_vec3(r, ray.origin);
            read_vec3(r, ray.dir);
            ray.tmin = (kind & 0x10) ? read_coord(r) : 0.0f;
            ray.tmax = (kind & 0x20) ? read_size(r) : INFINITY;
            check_ray(f, &ray, (kind & 0x40) != 0);
            break;
        }
        case 1:
            s.kind = MQ_SHAPE_SPHERE;
            read_vec3(r, s.u.sphere.center);
            s.u.sphere.radius = read_size(r);
            check_shape(f, &s, absmax3(s.u.sphere.center) + fabsf(s.u.sphere.radius));
            break;
        case 2:
            s.kind = MQ_SHAPE_CAPSULE;
            read_vec3(r, s.u.capsule.a);
            read_vec3(r, s.u.capsule.b);
            s.u.capsule.radius = read_size(r);
            check_shape(f, &s, fmaxf(absmax3(s.u.capsule.a), absmax3(s.u.capsule.b)) + fabsf(s.u.capsule.radius));
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
            check_shape(f, &s, absmax3(c) + absmax3(h));
            break;
        }
        case 4:
            s.kind = MQ_SHAPE_AABB;
            read_vec3(r, s.u.aabb.min);
            read_vec3(r, s.u.aabb.max);
            check_shape(f, &s, fmaxf(absmax3(s.u.aabb.min), absmax3(s.u.aabb.max)));
            break;
        case 5: {
            vec3 p;
            read_vec3(r, p);
            check_point(f, p, (kind & 0x10) ? INFINITY : read_size(r));
            break;
        }
        case 6: {
            mq_rigid xf;
            for (int i = 0; i < 4; i++)
                xf.rotation[i] = read_coord(r);
            read_vec3(r, xf.translation);
            check_collide(f, &xf, absmax3(xf.translation));
            break;
        }
        default:
            if (kind & 0x10) {
                /* a convex hull of 4..11 points (one that does not span a solid: skipped) */
                float pts[3 * 11];
                size_t np = 4 + (size_t)(kind >> 5);
                float scale = 0.0f;
                for (size_t i = 0; i < np; i++) {
                    read_vec3(r, pts + 3 * i);
                    scale = fmaxf(scale, absmax3(pts + 3 * i));
                }
                mq_convex *cv = NULL;
                if (mq_convex_create(pts, np, NULL, &cv, NULL) == MQ_OK) {
                    s = mq_shape_convex(cv);
                    check_shape(f, &s, scale);
                    mq_convex_destroy(cv);
                }
                break;
            }
            s.kind = (mq_shape_kind)(100 + kind); /* a kind no tree knows: nothing */
            CHECK(mq_kdoptree_overlap_array(f->kdop, &s, NULL, 0) == 0);
            CHECK(mq_spheretree_overlap_array(f->sphere, &s, NULL, 0) == 0);
            break;
        }
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
    CHECK(mq_kdoptree_build(mesh, &kd, &k, NULL) == MQ_OK);
    CHECK(mq_spheretree_build(mesh, &sd, &s, NULL) == MQ_OK);
    f.kdop = k;
    f.sphere = s;
    run_queries(&f, &r);
    mq_kdoptree_destroy(k);
    mq_spheretree_destroy(s);
    mq_mesh_destroy(mesh);
    return 0;
}
