/*
 * OBB tree raycasts and closest-point queries vs brute force over all
 * triangles, on every test mesh. Rays: incoherent (docs/formats.md generator),
 * short segments from inside the bounds, and rays aimed exactly at vertices
 * (ties between the triangles sharing them). Closest points: random points
 * with log-uniform maximum distances, unbounded ones, and points exactly on
 * vertices (distance 0, ties). Answers must match bit for bit: same triangle
 * (ties: smallest id), same t / distance, same barycentrics.
 * The same rays go to the AABB BVH (bvh.h), whose answers the OBB tree must
 * share: the same hit or miss and the same triangle; t, u, v to within a few
 * ulp (the BVH's SIMD leaf test rounds t differently from mq_raycast_triangle,
 * which computes it in double), and for rays aimed exactly at a vertex, where
 * that rounding may pick another of the tied triangles, the same t.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "test_diff_obbtree_common.h"

typedef struct brute_hit {
    bool found;
    uint32_t tri;
    mq_triangle_hit h;
} brute_hit;

static bool ray_filter_odd(const mq_hit *h, void *user)
{
    (void)user;
    return (h->triangle & 1u) != 0;
}

/* Brute force closest hit; `mode` 0 plain, 1 back faces culled, 2 odd ids only. */
static brute_hit brute_ray(const gen_tri_boxes *tb, const mq_ray *ray, int mode)
{
    brute_hit best = {false, 0, {0}};
    for (size_t i = 0; i < tb->count; i++) {
        mq_triangle_hit h;
        if (!mq_raycast_triangle(ray, &tb->tris[i], &h))
            continue;
        if ((mode == 1 && h.back_face) || (mode == 2 && !(i & 1u)))
            continue;
        if (!best.found || h.t < best.h.t) { /* ascending ids: the first of equal t wins */
            best = (brute_hit){true, (uint32_t)i, h};
        }
    }
    return best;
}

static bool same_hit(const brute_hit *b, bool hit, const mq_hit *h)
{
    if (b->found != hit)
        return false;
    if (!hit)
        return h->triangle == MQ_NO_TRIANGLE && isinf(h->t);
    return h->triangle == b->tri && h->t == b->h.t && h->u == b->h.u && h->v == b->h.v &&
           h->back_face == b->h.back_face;
}

typedef struct ray_stats {
    size_t rays, hits, mismatches, bvh_boundary;
} ray_stats;

/* t agrees to 1e-5 of the scale it is computed at: |t| plus the origin's
 * distance in units of the direction (a hit at t ~ 0 from an origin at 200 is
 * known to ~1e-5, not to 1e-5 of itself). */
static bool t_close(const mq_ray *r, float a, float b)
{
    float o = fmaxf(fmaxf(fabsf(r->origin[0]), fabsf(r->origin[1])), fabsf(r->origin[2]));
    float d = fmaxf(fmaxf(fabsf(r->dir[0]), fabsf(r->dir[1])), fabsf(r->dir[2]));
    return fabsf(a - b) <= 1e-5f * (fabsf(a) + fabsf(b) + o / d);
}

static bool uv_close(float a, float b)
{
    return fabsf(a - b) <= 1e-3f;
}

/* The OBB tree against the BVH on one ray (see the top of the file). A hit
 * within rounding of an end of the ray's interval (t ~ tmin: an origin on the
 * surface) may be kept by one test and dropped by the other: "boundary". */
typedef enum bvh_verdict { BVH_AGREES, BVH_BOUNDARY, BVH_DISAGREES } bvh_verdict;

static bool near_an_end(const mq_ray *r, const mq_hit *h)
{
    return h->triangle != MQ_NO_TRIANGLE && (t_close(r, h->t, r->tmin) || t_close(r, h->t, r->tmax));
}

static bvh_verdict compare_with_bvh(const mq_obbtree *t, const mq_bvh *bvh, const mq_ray *ray, bool at_vertex)
{
    mq_hit a, b;
    bool ha = mq_obbtree_raycast_closest(t, ray, NULL, &a), hb = mq_bvh_raycast_closest(bvh, ray, NULL, &b);
    bool same_any = mq_obbtree_raycast_any(t, ray, NULL) == mq_bvh_raycast_any(bvh, ray, NULL);
    bool same = ha == hb && same_any;
    if (same && ha && at_vertex)
        same = t_close(ray, a.t, b.t);
    else if (same && ha)
        same = a.triangle == b.triangle && a.face == b.face && t_close(ray, a.t, b.t) && uv_close(a.u, b.u) &&
               uv_close(a.v, b.v) && a.back_face == b.back_face && memcmp(a.normal, b.normal, sizeof a.normal) == 0;
    if (same)
        return BVH_AGREES;
    return near_an_end(ray, &a) || near_an_end(ray, &b) ? BVH_BOUNDARY : BVH_DISAGREES;
}

static void check_ray(const gen_tri_boxes *tb, const mq_obbtree *t, const mq_bvh *bvh, const mq_ray *ray, ray_stats *st,
                      const char *mesh, const char *kind)
{
    st->rays++;
    bvh_verdict v = compare_with_bvh(t, bvh, ray, strcmp(kind, "at-vertex") == 0);
    st->bvh_boundary += v == BVH_BOUNDARY;
    if (v == BVH_DISAGREES && st->mismatches++ < 10)
        fprintf(stderr, "  BVH DISAGREES %s %s: ray %.9g %.9g %.9g  %.9g %.9g %.9g\n", mesh, kind,
                (double)ray->origin[0], (double)ray->origin[1], (double)ray->origin[2], (double)ray->dir[0],
                (double)ray->dir[1], (double)ray->dir[2]);
    for (int mode = 0; mode < 3; mode++) {
        mq_ray_query q = {.cull_back_faces = false}; /* what mq_default_ray_query gives */
        q.cull_back_faces = mode == 1;
        q.filter = mode == 2 ? ray_filter_odd : NULL;
        brute_hit b = brute_ray(tb, ray, mode);
        mq_hit h;
        bool hit = mq_obbtree_raycast_closest(t, ray, &q, &h);
        bool any = mq_obbtree_raycast_any(t, ray, &q);
        st->hits += mode == 0 && b.found;
        if ((!same_hit(&b, hit, &h) || any != b.found) && st->mismatches++ < 10)
            fprintf(stderr,
                    "  MISMATCH %s %s mode %d: brute %d tri %u t %.9g, tree %d tri %u t %.9g any %d\n"
                    "    ray %.9g %.9g %.9g  %.9g %.9g %.9g  [%g, %g]\n",
                    mesh, kind, mode, b.found, b.tri, (double)b.h.t, hit, h.triangle, (double)h.t, any,
                    (double)ray->origin[0], (double)ray->origin[1], (double)ray->origin[2], (double)ray->dir[0],
                    (double)ray->dir[1], (double)ray->dir[2], (double)ray->tmin, (double)ray->tmax);
    }
}

static void random_ray(mq_test_rng *r, const mq_aabb *box, double D, int kind, const gen_tri_boxes *tb, mq_ray *ray)
{
    double c[3], u[3];
    vec3 target;
    for (int k = 0; k < 3; k++)
        c[k] = 0.5 * ((double)box->min[k] + box->max[k]);
    if (kind == 0) { /* incoherent: from the sphere of radius 1.5 D to a point of the box */
        mq_test_rng_unit_vector(r, u);
        gen_point_in(r, box, target);
        for (int k = 0; k < 3; k++) {
            ray->origin[k] = (float)(c[k] + 1.5 * D * u[k]);
            ray->dir[k] = target[k] - ray->origin[k];
        }
        ray->tmin = 0.0f;
        ray->tmax = INFINITY;
    } else if (kind == 1) { /* short segments inside the bounds */
        gen_point_in(r, box, ray->origin);
        mq_test_rng_unit_vector(r, u);
        for (int k = 0; k < 3; k++)
            ray->dir[k] = (float)u[k];
        ray->tmin = 0.0f;
        ray->tmax = (float)(0.02 * D);
    } else { /* aimed exactly at a vertex: ties between its triangles */
        const mq_triangle *t = &tb->tris[mq_test_rng_u64(r) % tb->count];
        const float *v = t->v[mq_test_rng_u64(r) % 3];
        mq_test_rng_unit_vector(r, u);
        for (int k = 0; k < 3; k++) {
            ray->origin[k] = (float)(c[k] + 1.5 * D * u[k]);
            ray->dir[k] = v[k] - ray->origin[k];
        }
        ray->tmin = 0.0f;
        ray->tmax = INFINITY;
    }
}

/* Rays per mesh: about `budget` triangle tests each kind. */
static size_t ray_count(size_t triangles)
{
    const char *s = getenv("MQ_OBT_RAY_BUDGET");
    double budget = s && *s ? strtod(s, NULL) : 4.5e6 * OBT_SCALE;
    size_t n = (size_t)(budget / (double)(triangles + 1));
    return n < 50 ? 50 : n > 1000 ? 1000 : n;
}

static void raycasts_match_brute_force(void **state)
{
    (void)state;
    mq_test_rng rng;
    mq_test_rng_seed(&rng, mq_test_seed(0x0BB70002));
    static const char *const kinds[3] = {"incoherent", "short", "at-vertex"};
    ray_stats total = {0, 0, 0, 0};
    for (size_t mi = 0; mi < OBT_MESH_COUNT; mi++) {
        mq_mesh *mesh = mq_test_load_mesh(obt_meshes[mi]);
        mq_aabb box;
        double D = gen_bounds(mesh, &box);
        gen_tri_boxes tb = gen_tri_boxes_make(mesh);
        mq_obbtree_def def = mq_default_obbtree_def();
        def.fit = mi % 2 ? MQ_OBB_FIT_PCA : MQ_OBB_FIT_DITO;
        mq_obbtree *t;
        assert_int_equal(mq_obbtree_build(mesh, &def, &t, NULL), MQ_OK);
        mq_bvh_def bdef = mq_default_bvh_def();
        bdef.threads = 1;
        mq_bvh *bvh;
        assert_int_equal(mq_bvh_build(mesh, &bdef, &bvh, NULL), MQ_OK);
        size_t n = ray_count(tb.count);
        for (int kind = 0; kind < 3; kind++) {
            ray_stats st = {0, 0, 0, 0};
            for (size_t i = 0; i < n; i++) {
                mq_ray ray;
                random_ray(&rng, &box, D, kind, &tb, &ray);
                check_ray(&tb, t, bvh, &ray, &st, obt_meshes[mi], kinds[kind]);
            }
            fprintf(stderr, "  %-18s %-10s %zu rays, %zu hit, %zu at-the-boundary differences from the BVH\n",
                    obt_meshes[mi], kinds[kind], st.rays, st.hits, st.bvh_boundary);
            total.mismatches += st.mismatches;
        }
        mq_obbtree_destroy(t);
        mq_bvh_destroy(bvh);
        gen_tri_boxes_free(&tb);
        mq_mesh_destroy(mesh);
    }
    assert_int_equal(total.mismatches, 0);
}

typedef struct brute_point {
    bool found;
    uint32_t tri;
    float d2;
    vec3 point;
    vec2 uv;
} brute_point;

static brute_point brute_closest(const gen_tri_boxes *tb, const vec3 p, float maxd)
{
    brute_point best = {false, 0, maxd * maxd, {0, 0, 0}, {0, 0}};
    mq_aabb reach = {{p[0] - maxd, p[1] - maxd, p[2] - maxd}, {p[0] + maxd, p[1] + maxd, p[2] + maxd}};
    for (size_t i = 0; i < tb->count; i++) {
        if (isfinite(maxd) && gen_far_apart(&tb->boxes[i], &reach, 1e-3f * maxd + 1e-6f))
            continue;
        vec3 q;
        vec2 uv;
        float d2 = mq_closest_point_triangle(p, &tb->tris[i], q, uv);
        if (d2 < best.d2 || (!best.found && d2 == best.d2)) {
            best = (brute_point){true, (uint32_t)i, d2, {q[0], q[1], q[2]}, {uv[0], uv[1]}};
        }
    }
    return best;
}

static bool same_point(const brute_point *b, bool found, const mq_point_hit *h)
{
    if (b->found != found)
        return false;
    return !found || (h->triangle == b->tri && h->distance == sqrtf(b->d2) && h->u == b->uv[0] && h->v == b->uv[1] &&
                      memcmp(h->point, b->point, sizeof h->point) == 0);
}

static void closest_points_match_brute_force(void **state)
{
    (void)state;
    mq_test_rng rng;
    mq_test_rng_seed(&rng, mq_test_seed(0x0BB70003));
    size_t mismatches = 0;
    for (size_t mi = 0; mi < OBT_MESH_COUNT; mi++) {
        mq_mesh *mesh = mq_test_load_mesh(obt_meshes[mi]);
        mq_aabb box, wide;
        double D = gen_bounds(mesh, &box);
        for (int k = 0; k < 3; k++) {
            float m = 0.2f * (box.max[k] - box.min[k]);
            wide.min[k] = box.min[k] - m;
            wide.max[k] = box.max[k] + m;
        }
        gen_tri_boxes tb = gen_tri_boxes_make(mesh);
        mq_obbtree_def def = mq_default_obbtree_def();
        def.fit = mi % 2 ? MQ_OBB_FIT_DITO : MQ_OBB_FIT_PCA;
        mq_obbtree *t;
        assert_int_equal(mq_obbtree_build(mesh, &def, &t, NULL), MQ_OK);
        size_t n = 4 * ray_count(tb.count), found = 0;
        for (size_t i = 0; i < n; i++) {
            vec3 p;
            float maxd;
            int kind = (int)(i % 4);
            if (kind == 3) { /* on a vertex: distance 0, every incident triangle ties */
                const mq_triangle *tri = &tb.tris[mq_test_rng_u64(&rng) % tb.count];
                memcpy(p, tri->v[mq_test_rng_u64(&rng) % 3], sizeof p);
                maxd = 0.0f;
            } else {
                gen_point_in(&rng, &wide, p);
                maxd = kind == 2 && i % 16 == 2 ? INFINITY : gen_size(&rng, D);
            }
            brute_point b = brute_closest(&tb, p, maxd);
            mq_point_hit h;
            bool hit = mq_obbtree_closest_point(t, p, maxd, &h);
            found += hit;
            if (!same_point(&b, hit, &h) && mismatches++ < 10)
                fprintf(stderr,
                        "  MISMATCH %s point %.9g %.9g %.9g max %g: brute %d tri %u d2 %.9g, tree %d tri %u d %.9g\n",
                        obt_meshes[mi], (double)p[0], (double)p[1], (double)p[2], (double)maxd, b.found, b.tri,
                        (double)b.d2, hit, h.triangle, (double)h.distance);
        }
        fprintf(stderr, "  %-18s %zu closest-point queries, %zu found\n", obt_meshes[mi], n, found);
        mq_obbtree_destroy(t);
        gen_tri_boxes_free(&tb);
        mq_mesh_destroy(mesh);
    }
    assert_int_equal(mismatches, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(raycasts_match_brute_force),
        cmocka_unit_test(closest_points_match_brute_force),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
