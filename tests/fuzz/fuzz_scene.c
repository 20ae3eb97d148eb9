/*
 * libFuzzer target for the scene queries (meshquery/scene.h): one tiny mesh
 * (3..16 vertices, 1..24 triangles) with a BVH and an OBB tree over it,
 * instanced 1..6 times; world rays, shapes, a closest point and a collide;
 * then staged edits, a second commit and the rays again.
 *
 * Input layout (every read past the end yields 0):
 *   byte   vertex count (3 + b % 14), 3 coords per vertex (read_num as float)
 *   byte   triangle count (1 + b % 24), 3 index bytes each (mod vertex count)
 *   byte   leaf sizes: BVH (low nibble), OBB tree (high nibble), each 1..16
 *   byte   instance count (1 + b % 6); per instance a byte (bit 0: OBB tree,
 *          else BVH; also in the user id), an xform (read_xform), a mask byte
 *   byte   ray count (1 + b % 8); per ray origin, dir (read_num) and a
 *          tmin/tmax selector (read_ray)
 *   2 byte query mask byte, flags (bit 0: cull back faces)
 *   shapes a stop byte, sphere, capsule, OBB, AABB (check_shapes); a closest
 *          point (check_closest); two instance ids to collide
 *   edit   ids to remove, move (+ xform) and re-mask (+ mask byte); a flags byte
 * Numbers (read_num) are mostly small integers and quarters, values next to
 * +-1e7 (far instances), powers of two, or raw float/double bit patterns
 * (NaN, Inf, huge, subnormal). A mask byte b means ~(b * 0x01010101).
 *
 * What is checked (a mismatch aborts with a message), all promised by scene.h:
 *   - add / set_transform reject (MQ_ERR_INVALID_ARG) a linear part with a
 *     non-finite entry or a singular value ratio < 1e-12, and accept the table
 *     transforms that are clearly fine; ids are the smallest free ones.
 *   - Rays: closest and any batches (1 thread; the query, and NULL vs the
 *     default query) equal the single queries field by field, bit for bit;
 *     any == closest found; a hit names a committed instance whose mask
 *     matches, its user id, a triangle < count, t in [tmin, tmax], and no back
 *     face when culling; a miss has MQ_NO_INSTANCE, MQ_NO_TRIANGLE, t = inf;
 *     invalid rays hit nothing; raycast_all (capacity 2) totals >= 1 exactly
 *     when closest hits, equals raycast_each's calls, and its hits are valid
 *     and sorted by t.
 *   - Shapes: callback, array, short array, early-stop, any and both batch
 *     forms agree; each (instance, triangle) at most once; invalid shapes
 *     (non-finite, negative radius, non-orthonormal axes) match nothing.
 *   - Closest point: single == batch; invalid input or no hit leaves the output
 *     untouched; a hit is valid and within max_distance.
 *   - Collide: callback == array total, valid distinct pairs, 0 for unknown ids.
 *   - Staged edits change no answer before the commit (bit for bit); after it
 *     instance count and mq_scene_instance follow them.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <meshquery/mesh.h>
#include <meshquery/scene.h>

#include "fuzz_reader.h"

#define FAIL(...)                                                                                                      \
    do {                                                                                                               \
        fprintf(stderr, "fuzz_scene: mismatch (line %d): ", __LINE__);                                                 \
        fprintf(stderr, __VA_ARGS__);                                                                                  \
        fprintf(stderr, "\n");                                                                                         \
        dump_context();                                                                                                \
        abort();                                                                                                       \
    } while (0)
#define CHECK(cond)                                                                                                    \
    do {                                                                                                               \
        if (!(cond))                                                                                                   \
            FAIL("%s", #cond);                                                                                         \
    } while (0)

#define MAX_V 16
#define MAX_T 24
#define MAX_I 6
#define MAX_RAYS 8

/* What a mismatch message prints besides itself: mesh, committed instances, current ray. */
static const mq_mesh *g_mesh;
static const mq_scene *g_scene;
static const mq_dray *g_ray;

static void dump_context(void)
{
    mq_triangle t;
    for (uint32_t i = 0; g_mesh && i < mq_mesh_triangle_count(g_mesh); i++) {
        mq_mesh_get_triangle(g_mesh, i, &t);
        fprintf(stderr, "  tri %u: (%a %a %a) (%a %a %a) (%a %a %a)\n", i, t.v[0][0], t.v[0][1], t.v[0][2], t.v[1][0],
                t.v[1][1], t.v[1][2], t.v[2][0], t.v[2][1], t.v[2][2]);
    }
    mq_instance_def d;
    for (uint32_t i = 0; g_scene && i < MAX_I; i++)
        for (int r = 0; r < 3 && mq_scene_instance(g_scene, i, &d); r++)
            fprintf(stderr, "  inst %u (%s) row %d: %a %a %a %a\n", i, d.bvh ? "bvh" : "obb", r, d.transform.m[r][0],
                    d.transform.m[r][1], d.transform.m[r][2], d.transform.m[r][3]);
    if (g_ray)
        fprintf(stderr, "  ray: origin (%a %a %a) dir (%a %a %a) t [%a, %a]\n", g_ray->origin[0], g_ray->origin[1],
                g_ray->origin[2], g_ray->dir[0], g_ray->dir[1], g_ray->dir[2], g_ray->tmin, g_ray->tmax);
}

/* ---- reading the input --------------------------------------------------- */

/* A raw float (single) or double bit pattern, big-endian. */
static double read_raw(reader *r, bool single)
{
    return single ? (double)rd_raw(r) : rd_raw64(r);
}

/* A coordinate: small integers and quarters make shared edges, touching and
 * coplanar cases common; +-1e7 + k sits next to far instances; then signed
 * zero, powers of two (subnormal, huge) and raw bit patterns (float for the
 * mesh, double for the world). */
static double read_num(reader *r, bool single)
{
    uint8_t t = rd_byte(r);
    if (t < 128)
        return (double)(t % 9) - 4.0;
    if (t < 192)
        return (double)((int)(t % 64) - 32) * 0.25;
    if (t < 208)
        return ((t & 1) ? -1e7 : 1e7) + (double)(t % 7) - 3.0;
    if (t < 216)
        return (t & 1) ? -0.0 : 1e-3 * (double)(t % 8);
    if (t < 224)
        return ldexp((t & 1) ? -1.0 : 1.0, (t & 2) ? -140 : (t & 4) ? 40 : 200);
    return read_raw(r, single);
}

/* A radius, half extent or distance: mostly small and >= 0, sometimes raw. */
static double read_dsize(reader *r)
{
    uint8_t t = rd_byte(r);
    return t < 160 ? (double)(t % 5) * 0.5 : t < 224 ? (double)(t % 9) : read_raw(r, false);
}

static void read_vec(reader *r, mq_dvec3 v)
{
    for (int i = 0; i < 3; i++)
        v[i] = read_num(r, false);
}

static bool finite3(const double *v)
{
    return isfinite(v[0]) && isfinite(v[1]) && isfinite(v[2]);
}

/* Rotations (rows): identity, quarter and half turns, a cyclic permutation, and a
 * generic one (quaternion (1, 2, 3, 4) normalised: entries k/15). */
static const double ROT[7][3][3] = {
    {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}},
    {{0, -1, 0}, {1, 0, 0}, {0, 0, 1}},
    {{1, 0, 0}, {0, 0, -1}, {0, 1, 0}},
    {{-1, 0, 0}, {0, 1, 0}, {0, 0, -1}},
    {{1, 0, 0}, {0, -1, 0}, {0, 0, -1}},
    {{0, 0, 1}, {1, 0, 0}, {0, 1, 0}},
    {{2 / 15., -10 / 15., 11 / 15.}, {14 / 15., 5 / 15., 2 / 15.}, {-5 / 15., 10 / 15., 10 / 15.}},
};
/* Per-axis scales: mirrors, 0 (singular), and magnitudes that mix ill-conditioned. */
static const double SCALES[10] = {1, 1, 2, 0.5, -1, -3, 0, 1e-6, 1e30, 1e-30};

/*
 * R * diag(s) + t (byte: rotation 0..6, or 7: mq_xform_from_trs with a decoded
 * quaternion; byte: < 128 one scale for all axes, else a byte per axis; t),
 * then up to 3 entries replaced by raw doubles (while a byte is >= 224).
 * Returns what add / set_transform must answer: 1 accept, -1 reject, 0 either.
 * Table rotations have singular values |s| (the generic one up to rounding),
 * so ratios are exactly 0, below 1e-24 or above 1e-7: far from 1e-12. A
 * non-finite translation is not covered by the contract (0).
 */
static int read_xform(reader *r, mq_xform *xf)
{
    uint8_t rs = rd_byte(r) % 8, ss = rd_byte(r);
    double s[3], t[3], lo = INFINITY, hi = 0.0;
    for (int i = 0; i < 3; i++) {
        s[i] = SCALES[(ss < 128 ? ss : rd_byte(r)) % 10];
        lo = fmin(lo, fabs(s[i])), hi = fmax(hi, fabs(s[i]));
    }
    read_vec(r, t);
    int want = lo == 0.0 || lo < 1e-12 * hi ? -1 : finite3(t) ? 1 : 0;
    if (rs == 7) {
        double q[4]; /* read in order: initialiser lists are not sequenced */
        for (int i = 0; i < 4; i++)
            q[i] = read_num(r, false);
        *xf = mq_xform_from_trs(t, q, s);
        want = 0; /* a zero or non-finite quaternion gives NaN entries: see below */
    } else {
        for (int i = 0; i < 3; i++) {
            for (int j = 0; j < 3; j++)
                xf->m[i][j] = ROT[rs][i][j] * s[j];
            xf->m[i][3] = t[i];
        }
    }
    for (int k = 0; k < 3; k++) {
        uint8_t e = rd_byte(r);
        if (e < 224)
            break;
        xf->m[e % 12 / 4][e % 4] = read_raw(r, false);
        want = 0;
    }
    for (int i = 0; i < 3; i++)
        if (!finite3(xf->m[i])) /* columns 0..2: the linear part */
            want = -1;
    return want;
}

/* tmin, tmax by selector % 8: [0, inf] [0, size] [num, num] [-inf, inf] [-size, size]
 * [size, inf] [raw, raw] [2 or NaN, 1] (the last: tmin > tmax or NaN, both invalid). */
static void read_ray(reader *r, mq_dray *ray)
{
    read_vec(r, ray->origin);
    read_vec(r, ray->dir);
    uint8_t sel = rd_byte(r), k = sel % 8;
    ray->tmin = k == 2   ? read_num(r, false)
                : k == 3 ? -INFINITY
                : k == 4 ? -read_dsize(r)
                : k == 5 ? read_dsize(r)
                : k == 6 ? read_raw(r, false)
                : k == 7 ? ((sel & 16) ? NAN : 2.0)
                         : 0.0;
    ray->tmax = k == 1 || k == 4 ? read_dsize(r)
                : k == 2         ? read_num(r, false)
                : k == 6         ? read_raw(r, false)
                : k == 7         ? 1.0
                                 : INFINITY;
}

/* ---- the scene as built ---------------------------------------------------- */

typedef struct world {
    mq_scene *scene;
    uint32_t nt;    /* triangles of the one mesh */
    uint32_t count; /* ids handed out: 0 .. count-1 */
    bool alive[MAX_I];
    uint32_t mask[MAX_I];
    uint64_t user[MAX_I];
} world;

static bool live(const world *w, uint32_t id)
{
    return id < w->count && w->alive[id];
}

static bool sees(const world *w, uint32_t id, const mq_scene_query *q)
{
    return live(w, id) && (w->mask[id] & (q ? q->mask : 0xFFFFFFFFu)) != 0;
}

static void check_committed(const world *w)
{
    size_t n = 0;
    mq_instance_def d;
    for (uint32_t id = 0; id <= MAX_I; id++) {
        n += live(w, id);
        CHECK(mq_scene_instance(w->scene, id, &d) == live(w, id));
        CHECK(!live(w, id) || (d.user_id == w->user[id] && d.mask == w->mask[id]));
    }
    CHECK(mq_scene_instance_count(w->scene) == n);
}

static void expect_status(mq_status st, int want)
{
    if (want ? st != (want > 0 ? MQ_OK : MQ_ERR_INVALID_ARG) : (st != MQ_OK && st != MQ_ERR_INVALID_ARG))
        FAIL("transform status %d, expected %s", (int)st, want > 0 ? "MQ_OK" : want ? "INVALID_ARG" : "either");
}

/* ---- rays ------------------------------------------------------------------ */

static bool ray_invalid(const mq_dray *ray)
{
    bool zero = ray->dir[0] == 0.0 && ray->dir[1] == 0.0 && ray->dir[2] == 0.0;
    return !finite3(ray->origin) || !finite3(ray->dir) || zero || isnan(ray->tmin) || isnan(ray->tmax) ||
           ray->tmin > ray->tmax;
}

/* Field by field (the struct has padding); doubles and floats by their bits. */
static bool hit_equal(const mq_scene_hit *a, const mq_scene_hit *b)
{
#define SAME(f) (memcmp(&a->f, &b->f, sizeof a->f) == 0)
    return SAME(t) && SAME(point) && SAME(normal) && SAME(shading_normal) && SAME(u) && SAME(v) && SAME(uv) &&
           SAME(instance) && SAME(triangle) && SAME(face) && SAME(group) && SAME(object) && SAME(material) &&
           SAME(user_id) && SAME(back_face) && SAME(has_shading_normal) && SAME(has_uv);
#undef SAME
}

static void check_hit(const world *w, const mq_dray *ray, const mq_scene_query *q, bool found, const mq_scene_hit *h)
{
    if (!found) {
        CHECK(h->instance == MQ_NO_INSTANCE && h->triangle == MQ_NO_TRIANGLE && h->t == INFINITY);
        return;
    }
    CHECK(!ray_invalid(ray) && sees(w, h->instance, q));
    CHECK(h->user_id == w->user[h->instance] && h->triangle < w->nt);
    CHECK(h->t >= ray->tmin && h->t <= ray->tmax);
    /* scene.h: back_face and culling both follow the world normal of the mapped triangle */
    CHECK(!(q && q->cull_back_faces && h->back_face));
}

static bool count_hit(const mq_scene_hit *h, void *user)
{
    (void)h;
    ++*(size_t *)user;
    return true;
}

static void check_all(const world *w, const mq_dray *ray, const mq_scene_query *q, bool found)
{
    mq_scene_hit all[2];
    size_t total = mq_scene_raycast_all(w->scene, ray, q, all, 2), calls = 0;
    CHECK((total >= 1) == found);
    CHECK(mq_scene_raycast_each(w->scene, ray, q, count_hit, &calls) == total && calls == total);
    for (size_t i = 0; i < total && i < 2; i++)
        check_hit(w, ray, q, true, &all[i]);
    CHECK(total < 2 || all[0].t <= all[1].t);
}

/* Single queries, then both batches against them; `out` keeps the closest hits under q. */
static void check_rays(const world *w, const mq_dray *rays, size_t n, const mq_scene_query *q, mq_scene_hit *out)
{
    mq_scene_query dq = mq_default_scene_query();
    mq_scene_hit single[MAX_RAYS], batch[MAX_RAYS];
    bool occl[MAX_RAYS];
    for (int pass = 0; pass < 2; pass++) {
        const mq_scene_query *sq = pass ? &dq : q, *bq = pass ? NULL : q; /* NULL means the defaults */
        size_t found = 0;
        for (size_t i = 0; i < n; i++) {
            g_ray = &rays[i];
            bool hit = mq_scene_raycast_closest(w->scene, &rays[i], sq, &single[i]);
            found += hit;
            check_hit(w, &rays[i], sq, hit, &single[i]);
            CHECK(mq_scene_raycast_any(w->scene, &rays[i], sq) == hit);
            check_all(w, &rays[i], sq, hit);
        }
        g_ray = NULL;
        CHECK(mq_scene_raycast_closest_batch(w->scene, rays, n, bq, 1, batch) == found);
        for (size_t i = 0; i < n; i++)
            if (!hit_equal(&batch[i], &single[i]))
                FAIL("closest batch (pass %d) ray %zu: instance %u triangle %u t %a, single %u %u %a", pass, i,
                     batch[i].instance, batch[i].triangle, batch[i].t, single[i].instance, single[i].triangle,
                     single[i].t);
        CHECK(mq_scene_raycast_any_batch(w->scene, rays, n, bq, 1, occl) == found);
        for (size_t i = 0; i < n; i++)
            CHECK(occl[i] == (single[i].instance != MQ_NO_INSTANCE));
        if (!pass && out)
            memcpy(out, single, n * sizeof *out);
    }
}

/* ---- shapes, closest point, collide ---------------------------------------- */

typedef struct seen_set {
    const world *w;
    const mq_scene_query *q;
    size_t calls, stop_after; /* stop_after 0: never stop */
    uint8_t seen[MAX_I][MAX_T];
    bool bad;
} seen_set;

static bool seen_fn(uint32_t inst, uint32_t tri, void *user)
{
    seen_set *s = user;
    s->calls++;
    if (!sees(s->w, inst, s->q) || tri >= s->w->nt || s->seen[inst][tri]++)
        s->bad = true;
    return !(s->stop_after && s->calls >= s->stop_after);
}

/* The callback (into set), array (into arr, capacity cap) and any forms of one shape query. */
typedef struct forms {
    size_t each, array;
    bool any;
} forms;

static forms shape_forms(const mq_dshape *s, seen_set *set, mq_instance_triangle *arr, size_t cap)
{
    const mq_scene *sc = set->w->scene;
    const mq_scene_query *q = set->q;
    forms f = {0, 0, false};
    f.each = mq_scene_overlap(sc, s, q, seen_fn, set);
    f.array = mq_scene_overlap_array(sc, s, q, cap ? arr : NULL, cap);
    f.any = mq_scene_overlap_any(sc, s, q);
    return f;
}

static void check_shape(const world *w, const mq_dshape *s, const mq_scene_query *q, uint8_t stop, bool invalid)
{
    seen_set *set = calloc(2, sizeof *set); /* [0] every pair, [1] with an early stop */
    CHECK(set);
    set[0].w = set[1].w = w;
    set[0].q = set[1].q = q;
    set[1].stop_after = 1 + stop % 3;
    mq_instance_triangle arr[MAX_I * MAX_T];
    forms all = shape_forms(s, &set[0], arr, MAX_I * MAX_T);
    size_t n = all.each, k = n < set[1].stop_after ? n : set[1].stop_after;
    CHECK(!set[0].bad && n == set[0].calls && all.array == n && all.any == (n != 0) && !(invalid && n));
    for (size_t i = 0; i < n; i++)
        CHECK(arr[i].instance < MAX_I && arr[i].triangle < MAX_T && set[0].seen[arr[i].instance][arr[i].triangle]);
    forms part = shape_forms(s, &set[1], arr, stop % (n + 1)); /* early stop, short array */
    CHECK(!set[1].bad && part.each == set[1].calls && part.each == k && part.array == n && part.any == all.any);
    bool bany = !all.any;
    uint64_t cnt = n + 1;
    CHECK(mq_scene_overlap_any_batch(w->scene, s, 1, q, 1, &bany) == all.any && bany == all.any);
    CHECK(mq_scene_overlap_count_batch(w->scene, s, 1, q, 1, &cnt) == n && cnt == n);
    free(set);
}

static void check_shapes(const world *w, reader *r, const mq_scene_query *q)
{
    uint8_t stop = rd_byte(r), rs;
    mq_dshape s = {MQ_SHAPE_SPHERE, {.sphere = {{0, 0, 0}, 0}}};
    mq_dsphere *sp = &s.u.sphere;
    read_vec(r, sp->center);
    sp->radius = read_dsize(r);
    check_shape(w, &s, q, stop, !finite3(sp->center) || !isfinite(sp->radius) || sp->radius < 0.0);

    s.kind = MQ_SHAPE_CAPSULE;
    mq_dcapsule *c = &s.u.capsule;
    read_vec(r, c->a);
    if (stop & 0x80)
        read_vec(r, c->b);
    else
        memcpy(c->b, c->a, sizeof c->b);
    c->radius = read_dsize(r);
    check_shape(w, &s, q, stop, !finite3(c->a) || !finite3(c->b) || !isfinite(c->radius) || c->radius < 0.0);

    s.kind = MQ_SHAPE_OBB;
    mq_dobb *o = &s.u.obb;
    read_vec(r, o->center);
    for (int i = 0; i < 3; i++)
        o->half[i] = read_dsize(r);
    rs = rd_byte(r);
    memcpy(o->axes, ROT[rs % 7], sizeof o->axes);
    if (rs & 0x80)
        o->axes[0][0] += 0.5; /* not orthonormal: matches nothing */
    check_shape(w, &s, q, stop, !finite3(o->center) || !finite3(o->half) || (rs & 0x80));

    s.kind = MQ_SHAPE_AABB;
    read_vec(r, s.u.aabb.min);
    read_vec(r, s.u.aabb.max);
    check_shape(w, &s, q, stop, !finite3(s.u.aabb.min) || !finite3(s.u.aabb.max));
}

static void check_closest(const world *w, reader *r, const mq_scene_query *q)
{
    mq_dvec3 p[1];
    read_vec(r, p[0]);
    uint8_t sel = rd_byte(r);
    double maxd = sel < 96 ? INFINITY : sel < 208 ? read_dsize(r) : sel < 216 ? -1.0 : read_raw(r, false);
    mq_scene_point_hit h, b, untouched;
    memset(&untouched, 0xA5, sizeof untouched);
    memset(&h, 0xA5, sizeof h);
    memset(&b, 0xA5, sizeof b);
    bool got = mq_scene_closest_point(w->scene, p[0], maxd, q, &h), bf = !got;
    CHECK(mq_scene_closest_point_batch(w->scene, (const mq_dvec3 *)p, 1, maxd, q, 1, &b, &bf) == got && bf == got);
    if (!got) {
        CHECK(memcmp(&h, &untouched, sizeof h) == 0 && memcmp(&b, &untouched, sizeof b) == 0);
        return;
    }
#define SAME(f) (memcmp(&h.f, &b.f, sizeof h.f) == 0)
    CHECK(SAME(point) && SAME(distance) && SAME(u) && SAME(v) && SAME(instance) && SAME(triangle) && SAME(user_id));
#undef SAME
    CHECK(finite3(p[0]) && maxd >= 0.0 && sees(w, h.instance, q) && h.user_id == w->user[h.instance]);
    CHECK(h.triangle < w->nt && h.distance >= 0.0 && h.distance <= maxd);
}

typedef struct tri_pairs {
    uint32_t nt;
    size_t calls;
    uint8_t seen[MAX_T][MAX_T];
    bool bad;
} tri_pairs;

static bool pair_fn(uint32_t a, uint32_t b, void *user)
{
    tri_pairs *p = user;
    p->calls++;
    if (a >= p->nt || b >= p->nt || p->seen[a][b]++)
        p->bad = true;
    return true;
}

static void check_collide(const world *w, uint32_t a, uint32_t b)
{
    tri_pairs p;
    memset(&p, 0, sizeof p);
    p.nt = w->nt;
    size_t n = mq_scene_collide(w->scene, a, b, pair_fn, &p);
    CHECK(!p.bad && n == p.calls && (n == 0 || (live(w, a) && live(w, b))));
    mq_tri_pair arr[8];
    CHECK(mq_scene_collide_array(w->scene, a, b, arr, 8) == n);
    for (size_t i = 0; i < n && i < 8; i++)
        CHECK(arr[i].a < w->nt && arr[i].b < w->nt && p.seen[arr[i].a][arr[i].b]);
}

/* ---- building and editing ---------------------------------------------------- */

static void add_instances(world *w, const mq_bvh *bvh, const mq_obbtree *tree, reader *r)
{
    uint32_t k = 1 + rd_byte(r) % MAX_I;
    for (uint32_t i = 0; i < k; i++) {
        uint8_t kind = rd_byte(r);
        mq_instance_def def = mq_default_instance_def();
        def.bvh = (kind & 1) ? NULL : bvh;
        def.obbtree = (kind & 1) ? tree : NULL;
        int want = read_xform(r, &def.transform);
        def.mask = ~(rd_byte(r) * 0x01010101u);
        def.user_id = (uint64_t)kind << 40 | i;
        uint32_t id = 12345;
        mq_status st = mq_scene_add(w->scene, &def, &id, NULL);
        expect_status(st, want);
        if (st != MQ_OK)
            continue;          /* rejected: the instance is simply left out */
        CHECK(id == w->count); /* the smallest free id (no removals yet) */
        w->alive[id] = true, w->mask[id] = def.mask, w->user[id] = def.user_id;
        w->count++;
    }
}

/* Remove, move and re-mask; answers stay those of the last commit until the next one. */
static void edit(world *w, reader *r, const mq_dray *rays, size_t n, const mq_scene_query *q,
                 const mq_scene_hit *before)
{
    uint32_t rm = rd_byte(r) % (MAX_I + 1), mv = rd_byte(r) % (MAX_I + 1), mk = rd_byte(r) % (MAX_I + 1);
    mq_xform xf;
    int want = read_xform(r, &xf);
    uint32_t mask = ~(rd_byte(r) * 0x01010101u);
    CHECK((mq_scene_remove(w->scene, rm) == MQ_OK) == live(w, rm));
    if (rm < MAX_I)
        w->alive[rm] = false;
    /* A just-removed id is still committed: whether it is "unknown" the header
     * does not say, so only ids never handed out must be refused. */
    mq_status st = mq_scene_set_transform(w->scene, mv, &xf, NULL);
    if (live(w, mv))
        expect_status(st, want);
    CHECK(mv < w->count || st == MQ_ERR_INVALID_ARG);
    st = mq_scene_set_mask(w->scene, mk, mask);
    CHECK(live(w, mk) ? st == MQ_OK : (mk < w->count || st == MQ_ERR_INVALID_ARG));
    if (live(w, mk))
        w->mask[mk] = mask;
    for (size_t i = 0; i < n; i++) {
        mq_scene_hit h;
        g_ray = &rays[i];
        mq_scene_raycast_closest(w->scene, &rays[i], q, &h);
        if (!hit_equal(&h, &before[i]))
            FAIL("staged edits changed ray %zu: instance %u t %a, before %u %a", i, h.instance, h.t, before[i].instance,
                 before[i].t);
    }
    g_ray = NULL;
    CHECK(mq_scene_commit(w->scene, NULL) == MQ_OK);
    check_committed(w);
}

static void run_scene(const mq_bvh *bvh, const mq_obbtree *tree, uint32_t nt, reader *r)
{
    world w;
    memset(&w, 0, sizeof w);
    w.nt = nt;
    CHECK(mq_scene_create(NULL, &w.scene, NULL) == MQ_OK);
    g_scene = w.scene;
    add_instances(&w, bvh, tree, r);
    CHECK(mq_scene_commit(w.scene, NULL) == MQ_OK);
    check_committed(&w);

    mq_dray rays[MAX_RAYS];
    size_t n = 1 + rd_byte(r) % MAX_RAYS;
    for (size_t i = 0; i < n; i++)
        read_ray(r, &rays[i]);
    mq_scene_query q = mq_default_scene_query();
    q.mask = ~(rd_byte(r) * 0x01010101u);
    q.cull_back_faces = rd_byte(r) & 1;
    mq_scene_hit before[MAX_RAYS];
    check_rays(&w, rays, n, &q, before);
    check_shapes(&w, r, &q);
    check_closest(&w, r, &q);
    uint32_t a = rd_byte(r) % (MAX_I + 1);
    check_collide(&w, a, rd_byte(r) % (MAX_I + 1));

    edit(&w, r, rays, n, &q, before);
    q.cull_back_faces ^= rd_byte(r) & 1;
    check_rays(&w, rays, n, &q, NULL);
    g_scene = NULL;
    mq_scene_destroy(w.scene);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size); /* libFuzzer calls it */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    reader r = {data, size};
    if (size < 4)
        return 0;
    uint32_t nv = 3 + rd_byte(&r) % (MAX_V - 2);
    float pos[3 * MAX_V];
    for (uint32_t i = 0; i < 3 * nv; i++)
        pos[i] = (float)read_num(&r, true);
    uint32_t nt = 1 + rd_byte(&r) % MAX_T, idx[3 * MAX_T];
    for (uint32_t i = 0; i < 3 * nt; i++)
        idx[i] = rd_byte(&r) % nv;
    uint8_t leaf = rd_byte(&r);

    mq_mesh *mesh = NULL;
    mq_bvh *bvh = NULL;
    mq_obbtree *tree = NULL;
    if (mq_mesh_create(pos, nv, idx, nt, NULL, &mesh, NULL) != MQ_OK)
        return 0;
    mq_bvh_def bd = mq_default_bvh_def();
    bd.max_leaf_size = 1 + (leaf & 15);
    bd.threads = 1;
    mq_obbtree_def od = mq_default_obbtree_def();
    od.max_leaf_size = 1 + (leaf >> 4);
    g_mesh = mesh;
    if (mq_bvh_build(mesh, &bd, &bvh, NULL) == MQ_OK && mq_obbtree_build(mesh, &od, &tree, NULL) == MQ_OK)
        run_scene(bvh, tree, nt, &r); /* a build that rejects the mesh is not this target's business */
    g_mesh = NULL;
    if (tree)
        mq_obbtree_destroy(tree);
    if (bvh)
        mq_bvh_destroy(bvh);
    mq_mesh_destroy(mesh);
    return 0;
}
