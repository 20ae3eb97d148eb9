/*
 * libFuzzer target for the spatial queries: a tiny mesh (3..16 vertices, 1..24
 * triangles) decoded from the input, a BVH and an OBB tree over it, then a
 * handful of queries, each compared with brute force over all triangles using
 * the public primitives.
 *
 * Input layout (every read past the end yields 0):
 *   byte   vertex count (3 + b % 14)
 *   byte   build options: BVH quality, OBB fit
 *   byte   leaf sizes: BVH (low nibble), OBB tree (high nibble), each 1..16
 *   coords 3 per vertex, see read_coord: most tags give small "nice" values
 *          (integers, quarters) so shared edges, touching and coplanar cases are
 *          common; tag >= 224 reads 4 raw bytes as a float (NaN, Inf, huge, subnormal)
 *   byte   triangle count (1 + b % 24), then 3 index bytes per triangle (mod vertex count)
 *   then queries until the input ends (at most 16): a kind byte and its fields.
 *
 * What is compared (a mismatch aborts with a message):
 *   - OBB tree overlap (sphere, capsule, OBB, AABB): the id set equals the set of
 *     triangles the primitive accepts on the shape cut down to the tree's root
 *     box (a no-op for shapes of the mesh's size), EXACTLY (obbtree.h promises
 *     that; test_diff_huge_shapes shows the cut shape meets what the given one
 *     does, against double-precision oracles); the
 *     callback, array (also with a short array) and any-overlap forms agree;
 *     early stop returns the number of calls made.
 *   - OBB tree raycast closest/any: exactly the brute-force closest hit of
 *     mq_raycast_triangle (t, u, v bit for bit; ties: smallest id), with and
 *     without back-face culling.
 *   - OBB tree closest point: the brute-force minimum of mq_closest_point_triangle
 *     (ties: smallest id) within max_distance.
 *   - OBB tree collide (the mesh against itself under a rigid transform): the pair
 *     set equals brute force with mq_rigid_apply + mq_overlap_triangle_triangle.
 *   - BVH closest hit vs brute force on the ray the BVH traces (direction
 *     components below 2^-90 of the largest zeroed, as bvh.h says): a hit
 *     triangle must be one the primitive hits, at the same t within a tiny
 *     tolerance (ray_info), and no primitive hit may be nearer beyond it; ties
 *     may pick another triangle. Triangles the BVH may legitimately decide
 *     differently (in-plane rays, crossings within the tolerance of tmin/tmax,
 *     where its float t and the primitive's double quotient can land on opposite
 *     sides of the bound; subnormal t) are exempt. Any-hit must equal "closest
 *     hit found" (same leaf test) and so inherits the same exemptions; all-hits
 *     must start with the closest hit, sorted by t; batch closest/any
 *     (threads = 1) must equal the single-ray answers bit for bit.
 * The OBB tree's exactness is documented for coordinates below about 1e18; inputs
 * beyond 1e17 are run (no crash, no leak) but not compared. The same limit is
 * applied to the BVH: with corners near FLT_MAX its float arithmetic overflows
 * (node entry/exit distances become infinite, outside bvh.h's "normal
 * magnitude" bound) and it can miss hits the double-precision primitive finds.
 */
#include <float.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <meshquery/bvh.h>
#include <meshquery/mesh.h>
#include <meshquery/obbtree.h>
#include <meshquery/primitives.h>

#include "fuzz_reader.h"
#include "primitives/shape_checks.h"
#include "primitives/shape_reduce.h"
#include "bvh/bvh_region.h"
#include "obbtree/obbtree_region.h"

#define FAIL(...)                                                                                                      \
    do {                                                                                                               \
        fprintf(stderr, "fuzz_queries: mismatch (line %d): ", __LINE__);                                               \
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

/* What a mismatch message prints besides itself: the mesh and the current ray. */
static const mq_triangle *g_tris;
static uint32_t g_nt;
static const mq_ray *g_ray;

static void dump_context(void)
{
    for (uint32_t i = 0; g_tris && i < g_nt; i++)
        fprintf(stderr, "  tri %u: (%a %a %a) (%a %a %a) (%a %a %a)\n", i, (double)g_tris[i].v[0][0],
                (double)g_tris[i].v[0][1], (double)g_tris[i].v[0][2], (double)g_tris[i].v[1][0],
                (double)g_tris[i].v[1][1], (double)g_tris[i].v[1][2], (double)g_tris[i].v[2][0],
                (double)g_tris[i].v[2][1], (double)g_tris[i].v[2][2]);
    if (g_ray)
        fprintf(stderr, "  ray: origin (%a %a %a) dir (%a %a %a) t [%a, %a]\n", (double)g_ray->origin[0],
                (double)g_ray->origin[1], (double)g_ray->origin[2], (double)g_ray->dir[0], (double)g_ray->dir[1],
                (double)g_ray->dir[2], (double)g_ray->tmin, (double)g_ray->tmax);
}

#define MAX_V 16
#define MAX_T 24
#define MAX_Q 16
#define MAX_RAYS 8
/* The OBB tree is exact for coordinates below about 1e18 (obbtree.h); stay well inside. */
#define EXACT_LIMIT 1e17f

/* ------------------------------------------------------------------------- */
/* The fixture                                                               */
/* ------------------------------------------------------------------------- */

typedef struct fixture {
    const mq_mesh *mesh;
    const mq_bvh *bvh;
    const mq_obbtree *tree;
    uint32_t nt;
    mq_triangle tri[MAX_T];
    float mesh_scale; /* largest finite |coordinate| of the mesh */
    float bvh_scale;  /* largest |corner| of the triangles with three finite corners (the BVH's scale) */
} fixture;

static bool exact_ok(const fixture *f, float query_scale)
{
    return f->mesh_scale < EXACT_LIMIT && !(query_scale >= EXACT_LIMIT);
}

/* ------------------------------------------------------------------------- */
/* Shape overlap on the OBB tree                                             */
/* ------------------------------------------------------------------------- */

typedef enum shape_kind { SH_SPHERE, SH_CAPSULE, SH_OBB, SH_AABB } shape_kind;

typedef struct shape {
    shape_kind kind;
    mq_sphere sphere;
    mq_capsule capsule;
    mq_obb obb;
    mq_aabb aabb;
} shape;

static bool shape_tri(const shape *s, const mq_triangle *t)
{
    switch (s->kind) {
    case SH_SPHERE:
        return mq_overlap_sphere_triangle(&s->sphere, t);
    case SH_CAPSULE:
        return mq_overlap_capsule_triangle(&s->capsule, t);
    case SH_OBB:
        return mq_overlap_triangle_obb(t, &s->obb);
    default:
        return mq_overlap_triangle_aabb(t, &s->aabb);
    }
}

static bool shape_valid(const shape *s)
{
    switch (s->kind) {
    case SH_SPHERE:
        return mq_sphere_ok(&s->sphere);
    case SH_CAPSULE:
        return mq_capsule_ok(&s->capsule);
    case SH_OBB:
        return mq_obb_is_valid(&s->obb);
    default:
        return mq_aabb_ok(&s->aabb);
    }
}

/* The shape the tree's walk tests (obbtree.h, "Shapes of any finite size"):
 * a valid shape cut down to the root box, so a shape far larger than the
 * mesh is decided at the mesh's scale, not at its own as the pairwise
 * primitive would. False when it cannot meet the mesh. Shapes of the mesh's
 * size, and invalid ones (the primitive's answer stays the oracle: none),
 * come back as they are. */
static bool cut_to_tree(const fixture *f, const shape *s, shape *out)
{
    double lo[3], hi[3];
    *out = *s;
    if (!shape_valid(s))
        return true;
    if (!mq_obbtree_root_region(f->tree, lo, hi))
        return false;
    switch (s->kind) {
    case SH_SPHERE:
        return mq_sphere_reduce(&s->sphere, lo, hi, &out->sphere);
    case SH_CAPSULE:
        return mq_capsule_reduce(&s->capsule, lo, hi, &out->capsule);
    case SH_OBB:
        return mq_obb_reduce(&s->obb, lo, hi, &out->obb);
    default:
        return mq_aabb_reduce(&s->aabb, lo, hi, &out->aabb);
    }
}

typedef struct collect {
    uint32_t seen[MAX_T];
    size_t calls;
    size_t stop_after; /* 0: never stop */
    bool dup;
} collect;

static bool collect_fn(uint32_t triangle, void *user)
{
    collect *c = user;
    c->calls++;
    if (triangle >= MAX_T || c->seen[triangle]++)
        c->dup = true;
    return !(c->stop_after && c->calls >= c->stop_after);
}

static size_t shape_each(const fixture *f, const shape *s, collect *c)
{
    switch (s->kind) {
    case SH_SPHERE:
        return mq_obbtree_overlap(f->tree, &(mq_shape){MQ_SHAPE_SPHERE, {.sphere = s->sphere}}, collect_fn, c);
    case SH_CAPSULE:
        return mq_obbtree_overlap(f->tree, &(mq_shape){MQ_SHAPE_CAPSULE, {.capsule = s->capsule}}, collect_fn, c);
    case SH_OBB:
        return mq_obbtree_overlap(f->tree, &(mq_shape){MQ_SHAPE_OBB, {.obb = s->obb}}, collect_fn, c);
    default:
        return mq_obbtree_overlap(f->tree, &(mq_shape){MQ_SHAPE_AABB, {.aabb = s->aabb}}, collect_fn, c);
    }
}

static size_t shape_array(const fixture *f, const shape *s, uint32_t *out, size_t cap)
{
    switch (s->kind) {
    case SH_SPHERE:
        return mq_obbtree_overlap_array(f->tree, &(mq_shape){MQ_SHAPE_SPHERE, {.sphere = s->sphere}}, out, cap);
    case SH_CAPSULE:
        return mq_obbtree_overlap_array(f->tree, &(mq_shape){MQ_SHAPE_CAPSULE, {.capsule = s->capsule}}, out, cap);
    case SH_OBB:
        return mq_obbtree_overlap_array(f->tree, &(mq_shape){MQ_SHAPE_OBB, {.obb = s->obb}}, out, cap);
    default:
        return mq_obbtree_overlap_array(f->tree, &(mq_shape){MQ_SHAPE_AABB, {.aabb = s->aabb}}, out, cap);
    }
}

static bool shape_any(const fixture *f, const shape *s)
{
    switch (s->kind) {
    case SH_SPHERE:
        return mq_obbtree_overlap_any(f->tree, &(mq_shape){MQ_SHAPE_SPHERE, {.sphere = s->sphere}});
    case SH_CAPSULE:
        return mq_obbtree_overlap_any(f->tree, &(mq_shape){MQ_SHAPE_CAPSULE, {.capsule = s->capsule}});
    case SH_OBB:
        return mq_obbtree_overlap_any(f->tree, &(mq_shape){MQ_SHAPE_OBB, {.obb = s->obb}});
    default:
        return mq_obbtree_overlap_any(f->tree, &(mq_shape){MQ_SHAPE_AABB, {.aabb = s->aabb}});
    }
}

static void check_shape(const fixture *f, const shape *s, float scale, uint8_t stop)
{
    static const char *names[] = {"sphere", "capsule", "obb", "aabb"};
    bool brute[MAX_T];
    size_t total = 0;
    shape cut;
    bool meets = cut_to_tree(f, s, &cut);
    for (uint32_t i = 0; i < f->nt; i++)
        total += brute[i] = meets && shape_tri(&cut, &f->tri[i]);
    bool exact = exact_ok(f, scale);

    collect c;
    memset(&c, 0, sizeof c);
    size_t n = shape_each(f, s, &c);
    CHECK(!c.dup && n == c.calls);
    if (exact)
        for (uint32_t i = 0; i < f->nt; i++)
            if ((c.seen[i] != 0) != brute[i])
                FAIL("%s overlap: triangle %u tree %d, primitive %d", names[s->kind], i, c.seen[i] != 0, brute[i]);
    size_t tree_total = n;

    uint32_t ids[MAX_T];
    size_t m = shape_array(f, s, ids, MAX_T);
    CHECK(m == tree_total);
    for (size_t i = 0; i < m; i++)
        CHECK(ids[i] < f->nt && c.seen[ids[i]]);
    size_t cap = stop % (tree_total + 1);
    CHECK(shape_array(f, s, cap ? ids : NULL, cap) == tree_total);
    for (size_t i = 0; i < cap; i++)
        CHECK(ids[i] < f->nt && c.seen[ids[i]]);
    CHECK(shape_any(f, s) == (tree_total != 0));

    collect e;
    memset(&e, 0, sizeof e);
    e.stop_after = 1 + stop % 4;
    size_t k = shape_each(f, s, &e);
    CHECK(!e.dup && k == e.calls && k == (tree_total < e.stop_after ? tree_total : e.stop_after));
    (void)total;
}

/* ------------------------------------------------------------------------- */
/* Rays                                                                      */
/* ------------------------------------------------------------------------- */

typedef struct brute_hit {
    bool hit;
    mq_triangle_hit h;
} brute_hit;

static void brute_ray(const fixture *f, const mq_ray *ray, bool cull, brute_hit *out, int *best)
{
    *best = -1;
    for (uint32_t i = 0; i < f->nt; i++) {
        out[i].hit = mq_raycast_triangle(ray, &f->tri[i], &out[i].h) && !(cull && out[i].h.back_face);
        if (out[i].hit && (*best < 0 || out[i].h.t < out[*best].h.t))
            *best = (int)i;
    }
}

/* True when the ray is within 1e-6 (sine of the angle) of parallel to t's plane
 * (primitives/near_parallel.h). */
static bool near_parallel(const mq_ray *ray, const mq_triangle *t)
{
    double e1[3], e2[3], n[3], d[3];
    for (int k = 0; k < 3; k++) {
        e1[k] = (double)t->v[1][k] - t->v[0][k];
        e2[k] = (double)t->v[2][k] - t->v[0][k];
        d[k] = ray->dir[k];
    }
    n[0] = e1[1] * e2[2] - e1[2] * e2[1];
    n[1] = e1[2] * e2[0] - e1[0] * e2[2];
    n[2] = e1[0] * e2[1] - e1[1] * e2[0];
    double dn = n[0] * d[0] + n[1] * d[1] + n[2] * d[2];
    double nn = n[0] * n[0] + n[1] * n[1] + n[2] * n[2], dd = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
    return !(dn * dn > 1e-12 * nn * dd);
}

/* True when brute hit a comes before b: smaller t, or the same t and a smaller id. */
static bool comes_before(const brute_hit *b, int a, int c)
{
    return b[a].h.t < b[c].h.t || (b[a].h.t == b[c].h.t && a < c);
}

/*
 * OBB tree: its leaf test is mq_raycast_triangle, so its answer is, bit for
 * bit, the brute force's, with two exceptions where the primitive's hit is
 * not a point of the triangle's box, so the tree's (geometric, conservative)
 * node tests may cull it:
 *   - a hit whose t overflows float (a denormal direction across a finite
 *     gap) has no finite record (noted on issue 23);
 *   - a ray within 1e-6 of parallel to the triangle's plane: the primitive
 *     decides the hit in the sheared float frame, where such a triangle is a
 *     sliver about as thin as rounding, and locates it where that decision
 *     puts it (primitives/near_parallel.h), which rounding can put a little
 *     outside the triangle's box (the BVH's oracle calls these ambiguous too).
 * So the tree may answer a later hit (or a miss) when every earlier brute
 * hit is one of those.
 */
static bool obb_ray_matches(const fixture *f, const mq_ray *ray, bool cull, bool hit, const mq_hit *h)
{
    brute_hit b[MAX_T];
    int best;
    brute_ray(f, ray, cull, b, &best);
    int got = -1;
    if (hit) {
        if (h->triangle >= f->nt)
            return false;
        got = (int)h->triangle;
        const brute_hit *g = &b[got];
        if (!g->hit || h->t != g->h.t || h->u != g->h.u || h->v != g->h.v || h->back_face != g->h.back_face)
            return false;
    } else if (h->triangle != MQ_NO_TRIANGLE || h->t != INFINITY) {
        return false; /* a miss has the miss record */
    }
    for (uint32_t i = 0; i < f->nt; i++) {
        if (!b[i].hit || (int)i == got || (got >= 0 && !comes_before(b, (int)i, got)))
            continue;
        if (!isinf(b[i].h.t) && !near_parallel(ray, &f->tri[i]))
            return false; /* an earlier hit the tree must not have skipped */
    }
    return true;
}

/* The ray the BVH traces: direction components below 2^-90 of the largest are zero (bvh.h). */
static void bvh_effective_ray(const mq_ray *ray, mq_ray *out)
{
    *out = *ray;
    float m = absmax3(ray->dir);
    for (int i = 0; i < 3; i++)
        if (fabsf(ray->dir[i]) < ldexpf(m, -90))
            out->dir[i] = 0.0f;
}

/*
 * Per triangle, how far the BVH's float t may sit from the primitive's: 1e-5 of
 * the ray's t plus 1e-5 of the coordinate scale over |dir| (T and det come from
 * corners translated to the origin in float, whose rounding is relative to the
 * coordinates, not to t). Triangles are AMBIGUOUS for the BVH (it may hit or miss
 * them, differently from the primitive) when
 *   - the ray is parallel to their plane within 1e-6 (bvh.h: in-plane rays may
 *     report a grazing hit the double-precision primitive rejects; near-parallel
 *     hits keep the traversal's float t, primitives/near_parallel.h);
 *   - their plane is crossed within that tolerance of tmin or tmax (the BVH's
 *     float t and the primitive's double quotient may fall on different sides);
 *   - the crossing t is nonzero but below 2^-100 (the node test's error bound
 *     holds only for |t| >= FLT_MIN or 0);
 *   - the crossing point lies within 1e-6 of the coordinate scale of the
 *     triangle's boundary (near_boundary: both float tests err there by a few
 *     ulps of the coordinates, differently).
 */
typedef struct ray_tri_info {
    double tol;
    bool ambiguous;
} ray_tri_info;

/* True when the plane crossing at tp lies within 2^-40 (barycentric) of an
 * edge or corner: the BVH traces the ray scaled by powers of two (bvh.h), and
 * where that rounds (subnormal coordinates, directions spanning ~2^70 and
 * more) a ray this close to an edge may be decided otherwise than by
 * mq_raycast_triangle on the unscaled ray (bvh.h documents it; watertightness
 * is unaffected: every triangle sees the same scaled ray). */
static bool grazes_edge(const mq_triangle *t, const mq_ray *ray, double tp, const double n[3], double nl)
{
    if (!isfinite(tp) || !(nl > 0.0))
        return false;
    double p[3];
    for (int k = 0; k < 3; k++)
        p[k] = ray->origin[k] + tp * ray->dir[k];
    for (int i = 0; i < 3; i++) {
        const float *a = t->v[(i + 1) % 3], *b = t->v[(i + 2) % 3];
        double u[3], v[3];
        for (int k = 0; k < 3; k++) {
            u[k] = a[k] - p[k];
            v[k] = b[k] - p[k];
        }
        double c[3] = {u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]};
        double bary = (c[0] * n[0] + c[1] * n[1] + c[2] * n[2]) / (nl * nl);
        if (fabs(bary) < 0x1p-40)
            return true;
    }
    return false;
}

/* True when the plane crossing at tp lies within `band` (a world distance)
 * of the triangle's boundary. The primitive translates the corners to the ray
 * origin in float before its edge tests, so its verdict errs by up to a few
 * ulps of the coordinates involved: around a sliver 1e13 long, a point a few
 * units off an edge may be called a hit (the BVH, which scales first, may
 * decide it otherwise). */
static bool near_boundary(const mq_triangle *t, const mq_ray *ray, double tp, double band)
{
    if (!isfinite(tp))
        return false;
    double p[3];
    for (int k = 0; k < 3; k++)
        p[k] = ray->origin[k] + tp * ray->dir[k];
    for (int i = 0; i < 3; i++) {
        const float *a = t->v[i], *b = t->v[(i + 1) % 3];
        double ab[3], ap[3], abab = 0.0, apab = 0.0, d2 = 0.0;
        for (int k = 0; k < 3; k++) {
            ab[k] = (double)b[k] - a[k];
            ap[k] = p[k] - a[k];
            abab += ab[k] * ab[k];
            apab += ap[k] * ab[k];
        }
        double s = abab > 0.0 ? fmin(fmax(apab / abab, 0.0), 1.0) : 0.0;
        for (int k = 0; k < 3; k++)
            d2 += (ap[k] - s * ab[k]) * (ap[k] - s * ab[k]);
        if (sqrt(d2) <= band)
            return true;
    }
    return false;
}

static void ray_info(const mq_ray *ray, const mq_triangle *t, ray_tri_info *out)
{
    double e1[3], e2[3], n[3], w[3], d[3], scale = absmax3(ray->origin);
    for (int k = 0; k < 3; k++) {
        e1[k] = (double)t->v[1][k] - t->v[0][k];
        e2[k] = (double)t->v[2][k] - t->v[0][k];
        w[k] = (double)t->v[0][k] - ray->origin[k];
        d[k] = ray->dir[k];
        for (int j = 0; j < 3; j++)
            if (fabs((double)t->v[j][k]) > scale)
                scale = fabs((double)t->v[j][k]);
    }
    n[0] = e1[1] * e2[2] - e1[2] * e2[1];
    n[1] = e1[2] * e2[0] - e1[0] * e2[2];
    n[2] = e1[0] * e2[1] - e1[1] * e2[0];
    double dn = n[0] * d[0] + n[1] * d[1] + n[2] * d[2];
    double wn = n[0] * w[0] + n[1] * w[1] + n[2] * w[2];
    double nl = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    double dmax = absmax3(ray->dir);
    double tp = wn / dn;
    out->tol = 1e-5 * fabs(tp) + 1e-5 * scale / dmax;
    out->ambiguous = near_parallel(ray, t) || !isfinite(tp) || fabs(tp - ray->tmin) <= out->tol ||
                     fabs(tp - ray->tmax) <= out->tol || (tp != 0.0 && fabs(tp) < 0x1p-100) ||
                     grazes_edge(t, ray, tp, n, nl) || near_boundary(t, ray, tp, 1e-6 * scale);
}

static void check_bvh_ray(const fixture *f, const mq_ray *ray, bool cull, bool hit, const mq_hit *h)
{
    mq_ray er;
    bvh_effective_ray(ray, &er);
    if (!mq_ray_is_valid(ray)) {
        CHECK(!hit && h->triangle == MQ_NO_TRIANGLE);
        return;
    }
    if (!exact_ok(f, absmax3(ray->origin)))
        return; /* see EXACT_LIMIT: near FLT_MAX the BVH's float edge functions and node distances overflow */
    /* docs/robustness.md, "Limits of the BVH": its guarantees hold for origins
     * up to about 1e16 times the mesh's magnitude (its finite triangles'
     * corners); beyond about 1e38 times (the scaled origin overflows) a miss. */
    if (!(absmax3(ray->origin) <= 1e16f * f->bvh_scale))
        return;
    brute_hit b[MAX_T];
    int best;
    brute_ray(f, &er, cull, b, &best);
    ray_tri_info info[MAX_T];
    for (uint32_t i = 0; i < f->nt; i++)
        ray_info(&er, &f->tri[i], &info[i]);
    if (!hit) {
        CHECK(h->triangle == MQ_NO_TRIANGLE && h->t == INFINITY);
        for (uint32_t i = 0; i < f->nt; i++)
            if (b[i].hit && !info[i].ambiguous)
                FAIL("bvh closest missed triangle %u at t=%a (cull %d)", i, (double)b[i].h.t, cull);
        return;
    }
    uint32_t k = h->triangle;
    CHECK(k < f->nt);
    CHECK(h->t >= ray->tmin && h->t <= ray->tmax);
    if (!info[k].ambiguous) {
        if (!b[k].hit)
            FAIL("bvh closest hit triangle %u at t=%a, the primitive misses it", k, (double)h->t);
        if (fabs((double)h->t - b[k].h.t) > info[k].tol)
            FAIL("bvh closest t=%a on triangle %u, primitive t=%a", (double)h->t, k, (double)b[k].h.t);
        if (h->back_face != b[k].h.back_face)
            FAIL("bvh back_face %d on triangle %u, primitive %d", h->back_face, k, b[k].h.back_face);
    }
    if (cull)
        CHECK(!h->back_face);
    for (uint32_t i = 0; i < f->nt; i++)
        if (b[i].hit && !info[i].ambiguous && (double)b[i].h.t < (double)h->t - info[i].tol - info[k].tol)
            FAIL("bvh closest t=%a on triangle %u, but triangle %u is hit at t=%a", (double)h->t, k, i,
                 (double)b[i].h.t);
}

static bool hit_same(const mq_hit *a, const mq_hit *b)
{
    return a->triangle == b->triangle && (a->t == b->t || (isnan(a->t) && isnan(b->t))) && a->u == b->u &&
           a->v == b->v && a->back_face == b->back_face;
}

/* Every field of two hit records, bit for bit (padding aside). */
static bool hit_record_same(const mq_hit *a, const mq_hit *b)
{
    return memcmp(&a->t, &b->t, offsetof(mq_hit, back_face)) == 0 && a->back_face == b->back_face &&
           a->has_shading_normal == b->has_shading_normal && a->has_uv == b->has_uv &&
           memcmp(a->shading_normal, b->shading_normal, sizeof(mq_hit) - offsetof(mq_hit, shading_normal)) == 0;
}

/* The array batches must equal the record batches on the same rays, given
 * the interval of the first ray. */
static void check_ray_arrays(const fixture *f, const mq_ray *rays, size_t count, const mq_ray_query *q)
{
    mq_ray same[MAX_RAYS];
    float origins[3 * MAX_RAYS], dirs[3 * MAX_RAYS];
    mq_hit want[MAX_RAYS], got[MAX_RAYS];
    bool wocc[MAX_RAYS], gocc[MAX_RAYS];
    for (size_t r = 0; r < count; r++) {
        same[r] = rays[r];
        same[r].tmin = rays[0].tmin, same[r].tmax = rays[0].tmax;
        memcpy(&origins[3 * r], rays[r].origin, sizeof(vec3));
        memcpy(&dirs[3 * r], rays[r].dir, sizeof(vec3));
    }
    size_t nw = mq_bvh_raycast_closest_batch(f->bvh, same, count, q, 1, want);
    CHECK(mq_bvh_raycast_closest_batch_arrays(f->bvh, origins, dirs, count, rays[0].tmin, rays[0].tmax, q, 1, got) ==
          nw);
    for (size_t r = 0; r < count; r++)
        CHECK(hit_record_same(&got[r], &want[r]));
    nw = mq_bvh_raycast_any_batch(f->bvh, same, count, q, 1, wocc);
    CHECK(mq_bvh_raycast_any_batch_arrays(f->bvh, origins, dirs, count, rays[0].tmin, rays[0].tmax, q, 1, gocc) == nw);
    CHECK(memcmp(gocc, wocc, count) == 0);
}

static void check_rays(const fixture *f, const mq_ray *rays, size_t count, uint8_t opts)
{
    mq_hit closest[MAX_RAYS], batch[MAX_RAYS];
    bool occl[MAX_RAYS];
    for (int cull = 0; cull < 2; cull++) {
        if (cull && !(opts & 1))
            break;
        mq_ray_query q = mq_default_ray_query();
        q.cull_back_faces = cull;
        for (size_t r = 0; r < count; r++) {
            const mq_ray *ray = &rays[r];
            g_ray = ray;
            float scale = absmax3(ray->origin);
            bool exact = exact_ok(f, scale);

            /* OBB tree: exact. It may or may not apply the BVH's 2^-90 rule: accept either ray. */
            mq_hit oh;
            bool ohit = mq_obbtree_raycast_closest(f->tree, ray, &q, &oh);
            if (exact) {
                mq_ray er;
                bvh_effective_ray(ray, &er);
                if (!obb_ray_matches(f, ray, cull, ohit, &oh) && !obb_ray_matches(f, &er, cull, ohit, &oh))
                    FAIL("obbtree closest (cull %d): hit %d triangle %u t=%a", cull, ohit, oh.triangle, (double)oh.t);
            }
            CHECK(mq_obbtree_raycast_any(f->tree, ray, &q) == ohit);

            /* BVH. */
            bool bhit = mq_bvh_raycast_closest(f->bvh, ray, &q, &closest[r]);
            check_bvh_ray(f, ray, cull, bhit, &closest[r]);
            CHECK(mq_bvh_raycast_any(f->bvh, ray, &q) == bhit);

            mq_hit all[MAX_T + 1];
            size_t na = mq_bvh_raycast_all(f->bvh, ray, &q, all, MAX_T + 1);
            CHECK(na <= MAX_T);
            CHECK((na != 0) == bhit);
            if (na)
                CHECK(hit_same(&all[0], &closest[r]));
            for (size_t i = 1; i < na; i++)
                CHECK(all[i].t >= all[i - 1].t && all[i].t <= ray->tmax);
            CHECK(mq_bvh_raycast_all(f->bvh, ray, &q, NULL, 0) == na);
        }
        g_ray = NULL;
        /* Batches (packet path when 8 rays share an octant) must equal single queries. */
        CHECK(mq_bvh_raycast_closest_batch(f->bvh, rays, count, &q, 1, batch) <= count);
        for (size_t r = 0; r < count; r++)
            if (!hit_same(&batch[r], &closest[r]))
                FAIL("bvh batch ray %zu: triangle %u t=%a, single: triangle %u t=%a", r, batch[r].triangle,
                     (double)batch[r].t, closest[r].triangle, (double)closest[r].t);
        mq_bvh_raycast_any_batch(f->bvh, rays, count, &q, 1, occl);
        for (size_t r = 0; r < count; r++)
            CHECK(occl[r] == (closest[r].triangle != MQ_NO_TRIANGLE));
        check_ray_arrays(f, rays, count, &q);
    }
}

static void read_ray(reader *r, mq_ray *ray)
{
    read_vec3(r, ray->origin);
    read_vec3(r, ray->dir);
    uint8_t sel = rd_byte(r);
    switch (sel % 8) {
    case 0:
        ray->tmin = 0.0f, ray->tmax = INFINITY;
        break;
    case 1:
        ray->tmin = 0.0f, ray->tmax = read_size(r);
        break;
    case 2:
        ray->tmin = read_coord(r), ray->tmax = read_coord(r);
        break;
    case 3:
        ray->tmin = -INFINITY, ray->tmax = INFINITY;
        break;
    case 4:
        ray->tmin = -0.0f, ray->tmax = -0.0f;
        break;
    case 5:
        ray->tmin = read_size(r), ray->tmax = INFINITY;
        break;
    case 6:
        ray->tmin = rd_raw(r), ray->tmax = rd_raw(r);
        break;
    default:
        ray->tmin = 1.0f, ray->tmax = 1.0f;
        break;
    }
    if (sel & 8) /* a tiny component next to normal ones: the 2^-90 rule */
        ray->dir[sel >> 6 & 3 ? (sel >> 6) - 1 : 0] *= 0x1p-95f;
}

/* ------------------------------------------------------------------------- */
/* Closest point, collide                                                    */
/* ------------------------------------------------------------------------- */

static void check_closest_point(const fixture *f, const vec3 p, float maxd)
{
    mq_point_hit ph;
    memset(&ph, 0, sizeof ph);
    ph.triangle = 12345;
    bool got = mq_obbtree_closest_point(f->tree, p, maxd, &ph);
    float scale = absmax3(p);
    if (!isfinite(p[0]) || !isfinite(p[1]) || !isfinite(p[2]) || isnan(maxd) || maxd < 0.0f) {
        CHECK(!got && ph.triangle == 12345);
        return;
    }
    if (!exact_ok(f, scale))
        return;
    int best = -1;
    float bd = INFINITY;
    float d2[MAX_T];
    vec3 pts[MAX_T];
    vec2 uvs[MAX_T];
    for (uint32_t i = 0; i < f->nt; i++) {
        d2[i] = mq_closest_point_triangle(p, &f->tri[i], pts[i], uvs[i]);
        if (!isnan(d2[i]) && (best < 0 || d2[i] < bd))
            best = (int)i, bd = d2[i];
    }
    double lim = (double)maxd * maxd;
    bool ambiguous = best >= 0 && fabs((double)bd - lim) <= 1e-6 * lim; /* maxd² rounding */
    if (!ambiguous) {
        bool want = best >= 0 && (double)bd <= lim;
        if (got != want)
            FAIL("closest point: tree %d, brute %d (d2 %a, max %a)", got, want, (double)bd, (double)maxd);
    }
    if (!got) {
        CHECK(ph.triangle == 12345);
        return;
    }
    uint32_t k = ph.triangle;
    CHECK(k < f->nt && best >= 0);
    if (k != (uint32_t)best)
        FAIL("closest point: tree triangle %u (d2 %a), brute %d (d2 %a)", k, (double)d2[k], best, (double)bd);
    if (ph.point[0] != pts[k][0] || ph.point[1] != pts[k][1] || ph.point[2] != pts[k][2] || ph.u != uvs[k][0] ||
        ph.v != uvs[k][1])
        FAIL("closest point: point/uv differ from the primitive on triangle %u", k);
    CHECK(ph.distance >= 0.0f && fabs((double)ph.distance * ph.distance - d2[k]) <= 1e-5 * d2[k] + 1e-30);
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
    pairs *p = calloc(1, sizeof *p);
    CHECK(p);
    size_t n = mq_obbtree_collide(f->tree, f->tree, xf, pair_fn, p);
    CHECK(!p->bad && n == p->calls);
    if (exact_ok(f, scale)) {
        mq_triangle moved[MAX_T];
        for (uint32_t j = 0; j < f->nt; j++)
            for (int c = 0; c < 3; c++)
                mq_rigid_apply(xf, f->tri[j].v[c], moved[j].v[c]);
        for (uint32_t i = 0; i < f->nt; i++)
            for (uint32_t j = 0; j < f->nt; j++) {
                bool want = mq_overlap_triangle_triangle(&f->tri[i], &moved[j]);
                if (want != (p->seen[i][j] != 0))
                    FAIL("collide: pair (%u, %u) tree %d, primitive %d", i, j, p->seen[i][j] != 0, want);
            }
    }
    mq_tri_pair arr[8];
    CHECK(mq_obbtree_collide_array(f->tree, f->tree, xf, arr, 8) == n);
    for (size_t i = 0; i < n && i < 8; i++)
        CHECK(arr[i].a < f->nt && arr[i].b < f->nt && p->seen[arr[i].a][arr[i].b]);
    CHECK(mq_obbtree_any_collide(f->tree, f->tree, xf) == (n != 0));
    free(p);
}

/* ------------------------------------------------------------------------- */

static void run_queries(const fixture *f, reader *r)
{
    mq_ray rays[MAX_RAYS];
    size_t nrays = 0;
    for (int q = 0; q < MAX_Q && r->n; q++) {
        uint8_t kind = rd_byte(r);
        shape s;
        memset(&s, 0, sizeof s);
        float scale;
        switch (kind % 8) {
        case 0:
        case 1:
            if (nrays < MAX_RAYS)
                read_ray(r, &rays[nrays++]);
            break;
        case 2:
            s.kind = SH_SPHERE;
            read_vec3(r, s.sphere.center);
            s.sphere.radius = read_size(r);
            scale = absmax3(s.sphere.center) + fabsf(s.sphere.radius);
            check_shape(f, &s, scale, kind >> 3);
            break;
        case 3:
            s.kind = SH_CAPSULE;
            read_vec3(r, s.capsule.a);
            if (kind & 0x80)
                read_vec3(r, s.capsule.b);
            else
                memcpy(s.capsule.b, s.capsule.a, sizeof(vec3));
            s.capsule.radius = read_size(r);
            scale = absmax3(s.capsule.a) + absmax3(s.capsule.b) + fabsf(s.capsule.radius);
            check_shape(f, &s, scale, kind >> 3);
            break;
        case 4: {
            s.kind = SH_OBB;
            vec3 c, h;
            float qt[4]; /* w, x, y, z */
            read_vec3(r, c);
            h[0] = read_size(r), h[1] = read_size(r), h[2] = read_size(r);
            for (int i = 0; i < 4; i++)
                qt[(i + 1) % 4] = read_coord(r); /* the input gives x, y, z, w: the corpus keeps its meaning */
            if (kind & 0x80)
                qt[0] = 1.0f, qt[1] = qt[2] = qt[3] = 0.0f;
            mq_obb_from_quat(c, h, qt, &s.obb);
            scale = absmax3(c) + absmax3(h);
            check_shape(f, &s, scale, kind >> 3);
            break;
        }
        case 5:
            s.kind = SH_AABB;
            read_vec3(r, s.aabb.min);
            read_vec3(r, s.aabb.max);
            scale = absmax3(s.aabb.min) + absmax3(s.aabb.max);
            check_shape(f, &s, scale, kind >> 3);
            break;
        case 6: {
            vec3 p;
            read_vec3(r, p);
            uint8_t sel = rd_byte(r);
            float maxd = sel < 96 ? INFINITY : sel < 224 ? read_size(r) : rd_raw(r);
            check_closest_point(f, p, maxd);
            break;
        }
        default: {
            mq_rigid xf;
            memset(&xf, 0, sizeof xf);
            xf.rotation[0] = 1.0f; /* w, x, y, z */
            if (kind & 0x08)
                for (int i = 0; i < 4; i++)
                    xf.rotation[(i + 1) % 4] = read_coord(r); /* the input gives x, y, z, w, as before */
            if (kind & 0x10)
                read_vec3(r, xf.translation);
            check_collide(f, &xf, absmax3(xf.translation) * 2.0f);
            break;
        }
        }
    }
    if (nrays)
        check_rays(f, rays, nrays, rays[0].origin[0] > 0.0f);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size); /* libFuzzer calls it */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    reader r = {data, size};
    if (size < 4)
        return 0;
    uint32_t nv = 3 + rd_byte(&r) % (MAX_V - 2);
    uint8_t opt = rd_byte(&r), leaf = rd_byte(&r);
    float pos[3 * MAX_V];
    for (uint32_t i = 0; i < 3 * nv; i++)
        pos[i] = read_coord(&r);
    uint32_t nt = 1 + rd_byte(&r) % MAX_T;
    uint32_t idx[3 * MAX_T];
    for (uint32_t i = 0; i < 3 * nt; i++)
        idx[i] = rd_byte(&r) % nv;

    fixture f;
    memset(&f, 0, sizeof f);
    mq_mesh *mesh = NULL;
    mq_diag d;
    CHECK(mq_mesh_create(pos, nv, idx, nt, NULL, &mesh, &d) == MQ_OK && mesh);
    CHECK(mq_mesh_triangle_count(mesh) == nt);
    f.mesh = mesh;
    f.nt = nt;
    uint32_t finite = 0;
    for (uint32_t i = 0; i < nt; i++) {
        mq_mesh_get_triangle(mesh, i, &f.tri[i]);
        bool fin = true;
        for (int c = 0; c < 3; c++) {
            for (int k = 0; k < 3; k++)
                fin = fin && isfinite(f.tri[i].v[c][k]);
            if (fin && absmax3(f.tri[i].v[c]) > f.mesh_scale)
                f.mesh_scale = absmax3(f.tri[i].v[c]);
        }
        finite += fin;
        for (int c = 0; fin && c < 3; c++) /* the BVH's magnitude: whole finite triangles */
            f.bvh_scale = absmax3(f.tri[i].v[c]) > f.bvh_scale ? absmax3(f.tri[i].v[c]) : f.bvh_scale;
    }

    mq_bvh_def bd = mq_default_bvh_def();
    bd.quality = (mq_build_quality)(opt % 3);
    bd.max_leaf_size = 1 + (leaf & 15);
    bd.threads = 1;
    mq_bvh *bvh = NULL;
    CHECK(mq_bvh_build(mesh, &bd, &bvh, &d) == MQ_OK && bvh);
    if (mq_bvh_validate(bvh, &d) != MQ_OK)
        FAIL("bvh_validate: %s", d.message);

    mq_obbtree_def od = mq_default_obbtree_def();
    od.fit = (mq_obb_fit)((opt / 3) % 3);
    od.max_leaf_size = 1 + (leaf >> 4);
    mq_obbtree *tree = NULL;
    CHECK(mq_obbtree_build(mesh, &od, &tree, &d) == MQ_OK && tree);
    mq_obbtree_stats st;
    mq_obbtree_get_stats(tree, &st);
    CHECK(st.triangle_count == finite);
    f.bvh = bvh;
    f.tree = tree;
    g_tris = f.tri;
    g_nt = nt;
    g_ray = NULL;

    run_queries(&f, &r);

    mq_obbtree_destroy(tree);
    mq_bvh_destroy(bvh);
    mq_mesh_destroy(mesh);
    return 0;
}
